"""Benchmark vcheck (the checker proved in Coq, run natively) beside check/.

    python3 benchmarks/bench_vcheck.py [--runs N] [--build DIR] [--no-build] [--version2]
                                       [--version3] [--packed] [--no-check] [--published]
                                       [--jobs J] [--baseline VCHECK] [--json] [FILE...]
        builds vcheck into DIR (default vcheck/_build; vcheck/build.sh; --no-build: DIR holds
        it built), then checks each FILE (default certificates/7484159.msgpack.zst and
        certificates/11982.msgpack.zst) N times (1) with each checker, one process each (check
        with -j 1): the median CPU seconds (user + system), wall seconds and peak resident MiB
        of each, the peak bytes a position and vcheck's positions a CPU second for a no-win,
        and the machine's load (the 1-minute load average, before and after the runs: the
        machine may be shared, and the wall times depend on it).  --version2 also checks each
        version 3 FILE rewritten as version 2 (bench_check's as_version2: the same proof, its
        records one bin; the published files are version 3), --version3 each FILE of version 1
        or 2 rewritten as version 3 (certgen's as_version3: its records read a chunk at a
        time); a FILE already in that version is said so and checked as it is.  --packed also
        runs vcheck with
        --memory 1 (its records packed: front-coded blocks, found by a binary search);
        --no-check leaves check/ out.  --published also checks every published certificate at
        once, `vcheck -q -j J certificates` (J: --jobs, default 2), and the range 1..32,000 alone
        with -j 1 and -j J: CPU seconds there are the processes' together.  --baseline VCHECK
        also runs another vcheck binary (an older build: `git worktree` or `git archive` of
        that revision, then vcheck/build.sh) on each FILE, with --memory 1 too under --packed,
        its runs and this build's taken in turn so that both see the same load, and prints the
        ratio of their median CPU seconds (baseline over this build: above 1, this build is
        faster).  --json: one JSON object a line per figure instead of the table
        (benchmarks/report.py).

Every run is its own process; its figures are its own (os.wait4), so nothing else need be
installed. The targets (the design of vcheck): 7484159 within 20 s of CPU and 150 MB.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from report import Report, add_json_option, figure

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_FILES = [ROOT / "certificates" / "7484159.msgpack.zst",
                 ROOT / "certificates" / "11982.msgpack.zst"]


def measure(command):
    """(verdict line, exit code, CPU seconds, wall seconds, peak MiB) of one process."""
    start = time.monotonic()
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    out = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.monotonic() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    return (out.strip().splitlines()[0] if out.strip() else "", child.returncode,
            usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss / 1024)


def rewritten(files, version2, version3, report):
    """Copies of FILEs in the other version of the format, in a scratch folder: version 3 ones
    as version 2 (with version2), single certificates of version 1 or 2 as version 3 (with
    version3); each file not rewritten is said so."""
    from bench_check import as_version2   # (it puts tests/ on the path for support.certgen)
    from support import certgen
    folder = Path(tempfile.mkdtemp(prefix="bench-vcheck-"))
    out = []
    for path in files:
        blob = path.read_bytes()
        h = certgen.unpack_file(blob)[0]
        if h["version"] == 3 and version2:
            out.append(folder / f"v2-{path.name}")
            out[-1].write_bytes(as_version2(blob))
        elif h["version"] != 3 and version3 and h["claim"] != "range":
            out.append(folder / f"v3-{path.name}")
            out[-1].write_bytes(certgen.as_version3(blob))
        else:
            kind = "range" if h["claim"] == "range" else "file"
            report.text(f"{path.name}: a version {h['version']} {kind}, checked as it is")
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=1)
    p.add_argument("--build", type=Path, default=ROOT / "vcheck" / "_build")
    p.add_argument("--no-build", action="store_true")
    p.add_argument("--version2", action="store_true")
    p.add_argument("--version3", action="store_true")
    p.add_argument("--packed", action="store_true")
    p.add_argument("--no-check", action="store_true")
    p.add_argument("--published", action="store_true")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--baseline", type=Path)
    p.add_argument("files", nargs="*", type=Path)
    add_json_option(p)
    args = p.parse_args(argv)
    report = Report("bench_vcheck", args.json)
    if not args.no_build:
        subprocess.run(["bash", str(ROOT / "vcheck" / "build.sh"), str(args.build)], check=True,
                       stdout=subprocess.DEVNULL)
    # name -> (the command run, the same as a figure names it: the program, not its path)
    one_job = [str(args.build / "vcheck"), "-j", "1", "--json"]
    checkers = {"vcheck": (one_job, "vcheck -j 1 --json")}
    base_job = [str(args.baseline), "-j", "1", "--json"] if args.baseline else None
    if base_job:
        checkers["baseline"] = (base_job, "baseline vcheck -j 1 --json")
    if args.packed:
        checkers["packed"] = ([*one_job, "--memory", "1"], "vcheck -j 1 --json --memory 1")
        if base_job:
            checkers["base-packed"] = ([*base_job, "--memory", "1"],
                                       "baseline vcheck -j 1 --json --memory 1")
    if not args.no_check:
        checkers["check"] = ([sys.executable, "-m", "check", "-j", "1", "--json"],
                             "check -j 1 --json")
    files = list(args.files or ([] if args.published else DEFAULT_FILES))
    if args.version2 or args.version3:
        files += rewritten(files, args.version2, args.version3, report)
    report.text(f"{'file':<28} {'checker':<11} {'verdict':<9} {'CPU s':>8} {'wall s':>8} "
                f"{'peak MiB':>9} {'B/position':>10} {'positions/CPU s':>16} {'load':>11}")
    for path in files:
        # Each checker's runs in turn with the others' (vcheck, baseline, vcheck, ...): a
        # load that changes during the runs is seen by each alike.
        before = os.getloadavg()[0]
        measured = {name: [] for name in checkers}
        for _ in range(args.runs):
            for name, (command, _) in checkers.items():
                measured[name].append(measure([*command, str(path)]))
        after = os.getloadavg()[0]
        load = f"{before:.2f}-{after:.2f}"
        for name, (command, said) in checkers.items():
            runs = measured[name]
            line, code = runs[0][0], runs[0][1]
            item = json.loads(line) if line.startswith("{") else {}
            cpu = statistics.median(r[2] for r in runs)
            wall = statistics.median(r[3] for r in runs)
            peak = statistics.median(r[4] for r in runs)
            nowin = item.get("claim") == "no-win"
            rate = f"{item['count'] / cpu:>16,.0f}" if nowin and cpu else f"{'':>16}"
            each = f"{peak * 2**20 / item['count']:>10.1f}" if nowin else f"{'':>10}"
            verdict = item.get("verdict", f"exit {code}")
            run = f"{said} {path.name}"
            context = {"file": path.name, "checker": name, "verdict": verdict,
                       "load_before": round(before, 2), "load_after": round(after, 2)}
            found = [figure("CPU", cpu, "s", run, args.runs, **context),
                     figure("wall", wall, "s", run, args.runs, **context),
                     figure("peak memory", peak, "MiB", run, args.runs, **context)]
            if nowin:
                found += [figure("peak memory a position", peak * 2**20 / item["count"],
                                 "bytes/position", run, args.runs, positions=item["count"],
                                 **context)]
                if cpu:
                    found += [figure("positions a CPU second", item["count"] / cpu,
                                     "positions/s", run, args.runs, positions=item["count"],
                                     **context)]
            report.line(f"{path.name:<28} {name:<11} {verdict:<9} "
                        f"{cpu:>8.2f} {wall:>8.2f} {peak:>9.1f} {each} {rate} {load:>11}",
                        *found)
        for mine, theirs, said in (("vcheck", "baseline", ""),
                                   ("packed", "base-packed", " --memory 1")):
            if theirs not in measured:
                continue
            cpu = statistics.median(r[2] for r in measured[mine])
            base = statistics.median(r[2] for r in measured[theirs])
            if cpu:
                report.line(f"{path.name:<28} ratio   baseline CPU / this build's CPU{said}: "
                            f"{base / cpu:.3f}",
                            figure("CPU against the baseline", cpu, "s",
                                   f"vcheck -j 1 --json{said} {path.name}", args.runs,
                                   versus=f"baseline vcheck -j 1 --json{said} {path.name}",
                                   versus_value=base, ratio=base / cpu, file=path.name,
                                   checker="ratio" + said.replace(" --memory 1", " packed"),
                                   load_before=round(before, 2), load_after=round(after, 2)))
    if args.published:
        vcheck = str(args.build / "vcheck")
        certificates = ROOT / "certificates"
        report.text(f"\n{'command':<40} {'exit':>4} {'CPU s':>8} {'wall s':>8} {'peak MiB':>9} "
                    f"{'load':>11}")
        for jobs, target in ((args.jobs, certificates), (1, certificates / "1-32000.msgpack.zst"),
                             (args.jobs, certificates / "1-32000.msgpack.zst")):
            before = os.getloadavg()[0]
            _, code, cpu, wall, peak = measure([vcheck, "-q", "-j", str(jobs), str(target)])
            after = os.getloadavg()[0]
            run = f"vcheck -q -j {jobs} {target.relative_to(ROOT)}"
            context = {"exit": code, "jobs": jobs, "load_before": round(before, 2),
                       "load_after": round(after, 2)}
            report.line(f"{run:<40} {code:>4} {cpu:>8.2f} {wall:>8.2f} {peak:>9.1f} "
                        f"{before:.2f}-{after:.2f}",
                        figure("CPU", cpu, "s", run, **context),
                        figure("wall", wall, "s", run, **context),
                        figure("peak memory", peak, "MiB", run, **context))


if __name__ == "__main__":
    main()
