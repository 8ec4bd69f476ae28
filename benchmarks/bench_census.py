"""Benchmark the census, its range certificate, and the check of that file.

    python3 benchmarks/bench_census.py [--range 1-1000] [-j 2] [--keep DIR]
    python3 benchmarks/bench_census.py --reuse DIR --range 1-32000 --levels 3,12,19
    python3 benchmarks/bench_census.py --synthetic 1000000
    nice python3 benchmarks/bench_census.py --versus 1-32000 [-j 2] [--runs 3]
    python3 benchmarks/bench_census.py ... --json       one JSON object a line per figure

Runs `certify A-B -j N --out DIR` on a fresh folder (or reuses a finished one), each command
as a separate process, and prints: wall time and deals per second, the largest resident size
of any process (the memory a million-deal run needs must not grow with the range), median and
worst deal, the verdicts, the range certificate's size; then the time to write the range
certificate again from the chunk files (the same command on a finished census), to extract one
deal's certificate, and to check the range file. --levels compares zstd levels for the range
certificate (certify/format/ranges.py's LEVEL was chosen so).

--synthetic N measures the range certificate writer alone at the scale of a million deals,
before an engine can prove them: it fills a census folder with N made-up win entries (random
lines of 120 move indices: NOT proofs, `check` rejects them), then times writing the range file
from the chunk files and the writer's peak memory, which must not grow with N.

--versus A-B is the census's CPU beside Freecell Solver's: `certify A-B -j N -q --out DIR` (a
fresh folder each run) and `freecell-solver-range-parallel-solve A B 1000 -l lg` in turn,
--runs times, each command's CPU the user + system time of all its processes (getrusage of
the children waited for); the medians, and the ratio pair by pair (the machine is shared: a
pair run back to back meets about the same load). Run it under nice: both commands inherit it.
"""

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from report import Report, add_json_option, figure

CERTIFY = "import sys; from certify.commands.cli import main; sys.exit(main(sys.argv[1:]))"
CHECK = "import sys; from check.checker import main; sys.exit(main(sys.argv[1:]))"


def timed(argv):
    t0 = time.monotonic()
    done = subprocess.run(argv, capture_output=True, text=True)
    return time.monotonic() - t0, done


def peak_mb():
    """The largest resident set of any child process waited for so far, in MB."""
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--range", default="1-1000", help="deals A-B (default 1-1000)")
    p.add_argument("-j", "--jobs", type=int, default=2, help="worker processes (default 2)")
    p.add_argument("--keep", metavar="DIR", help="census into DIR (must not exist) and keep it")
    p.add_argument("--reuse", metavar="DIR", help="a finished census of the range: no census run")
    p.add_argument("--levels", help="zstd levels to compare for the range file, e.g. 3,12,19")
    p.add_argument("--synthetic", type=int, metavar="N",
                   help="time the range writer on N made-up entries (no census run)")
    p.add_argument("--versus", metavar="A-B",
                   help="certify A-B -j N beside freecell-solver-range-parallel-solve, CPU time")
    p.add_argument("--runs", type=int, default=3, help="pairs of runs for --versus (default 3)")
    add_json_option(p)
    args = p.parse_args()
    report = Report("bench_census", args.json)
    if args.synthetic:
        return synthetic(args.synthetic, report)
    if args.versus:
        return versus(args.versus, args.jobs, args.runs, report)
    if args.keep and os.path.exists(args.keep):
        sys.exit(f"bench_census: {args.keep} exists; give a new folder")
    scratch = tempfile.mkdtemp(prefix="bench-census-")
    folder = args.reuse or args.keep or os.path.join(scratch, "census")
    try:
        if not args.reuse:
            census(args.range, args.jobs, folder, report)
        afterwards(args.range, folder, scratch, report)
        if args.levels:
            levels(args.range, folder, [int(x) for x in args.levels.split(",")], report)
    finally:
        shutil.rmtree(scratch)


def census(span, jobs, folder, report):
    command = f"certify {span} -j {jobs} -q --json --out DIR"
    report.text(f"census: {command}   (python {sys.version.split()[0]}, {os.cpu_count()} cores)")
    wall, done = timed([sys.executable, "-c", CERTIFY, span, "-j", str(jobs), "-q", "--json",
                        "--out", folder])
    if done.returncode not in (0, 3):
        sys.exit(f"census failed (exit {done.returncode}): {done.stderr.strip()}")
    summary = json.loads(done.stdout)
    with open(os.path.join(folder, "results.jsonl"), encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    seconds = [r["seconds"] for r in rows]
    worst = max(rows, key=lambda r: r["seconds"])
    lengths = [r["moves"] for r in rows if r["claim"] == "win"]
    n = summary["proved"]
    peak = peak_mb()
    report.line(f"  {n:,} deals in {wall:.1f} s wall: {n / wall:.1f} deals/s; "
                f"largest process {peak:.0f} MB resident",
                figure("census wall", wall, "s", command, deals=n),
                figure("census rate", n / wall, "deals/s", command, deals=n),
                figure("largest process", peak, "MB", command, deals=n))
    per_deal = f"{command}: results.jsonl seconds"
    report.line(f"  per deal: median {statistics.median(seconds):.3f} s, "
                f"worst {worst['seconds']:.2f} s (deal {worst['deal']}, {worst['claim']}); "
                f"sum {sum(seconds):.1f} s ({sum(seconds) / jobs / wall:.0%} of the workers' "
                f"time)",
                figure("seconds a deal", statistics.median(seconds), "s", per_deal, len(seconds)),
                figure("seconds a deal", worst["seconds"], "s", per_deal, len(seconds), "max",
                       deal=worst["deal"], claim=worst["claim"]),
                figure("seconds of all deals", sum(seconds), "s", per_deal, len(seconds), "sum"))
    if lengths:
        won = f"{command}: results.jsonl moves of the wins"
        report.line(f"  solution length: mean {statistics.mean(lengths):.1f} single-card moves "
                    f"(median {statistics.median(lengths):g}, longest {max(lengths):,})",
                    figure("solution length", statistics.mean(lengths), "moves", won,
                           len(lengths), "mean"),
                    figure("solution length", statistics.median(lengths), "moves", won,
                           len(lengths)),
                    figure("solution length", max(lengths), "moves", won, len(lengths), "max"))
    report.line(f"  {summary['won']:,} won, {summary['no_win']:,} no win "
                f"{summary['no_win_deals']}, {summary['unknown']:,} unknown "
                f"{summary['unknown_deals']}",
                *[figure(f"deals {what}", summary[key], "deals", command, deals=n)
                  for what, key in (("won", "won"), ("with no win", "no_win"),
                                    ("unknown", "unknown"))])
    if summary["range_certificate"]:
        report.line(f"  range certificate: {summary['bytes']:,} bytes, sha256 "
                    f"{summary['sha256']}",
                    figure("range certificate", summary["bytes"], "bytes", command, deals=n,
                           sha256=summary["sha256"]))
    chunk_bytes = sum(e.stat().st_size for e in os.scandir(os.path.join(folder, "chunks")))
    chunk_files = len(os.listdir(os.path.join(folder, "chunks")))
    report.line(f"  working state: {chunk_files:,} chunk files, {chunk_bytes:,} bytes",
                figure("working state", chunk_bytes, "bytes", command, chunk_files=chunk_files))
    report.text(f"  at this rate 32,000 deals take {32000 / (n / wall) / 60:.1f} min and "
                f"1,000,000 take {1e6 / (n / wall) / 60:.0f} min")


FC_RANGE = "freecell-solver-range-parallel-solve"


def cpu_of(argv):
    """(wall seconds, CPU seconds: user + system of the command and all its processes)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"{argv[0]} failed (exit {done.returncode}): {done.stderr.strip()[-300:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def compile_package():
    """Byte-compile certify/ first, as `pip install` does: certify is measured as installed.
    Where PYTHONDONTWRITEBYTECODE is set (some sandboxes and CI images set it) Python writes no
    bytecode of its own, and every run would compile the package's modules from source again,
    about 0.3 s of CPU a process that no installed copy pays. What it did, in a few words."""
    import certify
    where = os.path.dirname(certify.__file__)
    done = subprocess.run([sys.executable, "-m", "compileall", "-q", where], capture_output=True)
    return "certify byte-compiled" if done.returncode == 0 else "certify NOT byte-compiled"


def versus(span, jobs, runs, report):
    if not shutil.which(FC_RANGE):
        sys.exit(f"no {FC_RANGE} here (apt-get install freecell-solver-bin)")
    first, last = (int(x) for x in span.split("-"))
    n = last - first + 1
    ours_argv = [sys.executable, "-c", CERTIFY, span, "-j", str(jobs), "-q", "--out"]
    theirs_argv = [FC_RANGE, str(first), str(last), "1000", "-l", "lg"]
    ours_said, theirs_said = f"certify {span} -j {jobs} -q --out DIR", " ".join(theirs_argv)
    compiled = compile_package()
    report.text(f"{ours_said}  vs  {theirs_said}  "
                f"({runs} pairs, nice {os.nice(0)}, load {os.getloadavg()[0]:.1f}; {compiled})")
    ours, theirs = [], []
    for i in range(runs):
        with tempfile.TemporaryDirectory(prefix="bench-census-") as scratch:
            ours.append(cpu_of(ours_argv + [os.path.join(scratch, "census")]))
        theirs.append(cpu_of(theirs_argv))
        report.line(f"  pair {i + 1}: certify {ours[-1][1]:.2f} s CPU ({ours[-1][0]:.1f} s "
                    f"wall), fc-solve {theirs[-1][1]:.2f} s CPU ({theirs[-1][0]:.1f} s wall): "
                    f"CPU ratio {ours[-1][1] / theirs[-1][1]:.2f}x",
                    figure("census CPU, one pair", ours[-1][1], "s", ours_said,
                           versus=theirs_said, versus_value=theirs[-1][1],
                           ratio=ours[-1][1] / theirs[-1][1], pair=i + 1, deals=n,
                           wall=ours[-1][0], versus_wall=theirs[-1][0]))
    cpu_ours = statistics.median(c for _, c in ours)
    cpu_theirs = statistics.median(c for _, c in theirs)
    wall_ours = statistics.median(w for w, _ in ours)
    wall_theirs = statistics.median(w for w, _ in theirs)
    report.line(f"  median CPU: certify {cpu_ours:.2f} s ({cpu_ours / n * 1e6:.0f} us a deal), "
                f"fc-solve {cpu_theirs:.2f} s ({cpu_theirs / n * 1e6:.0f} us a deal): "
                f"{cpu_ours / cpu_theirs:.2f}x (target <= 1.0); median wall "
                f"{wall_ours:.1f} s vs {wall_theirs:.1f} s; load now {os.getloadavg()[0]:.1f}",
                figure("census CPU", cpu_ours, "s", ours_said, runs, versus=theirs_said,
                       versus_value=cpu_theirs, ratio=cpu_ours / cpu_theirs, deals=n),
                figure("census CPU a deal", cpu_ours / n * 1e6, "us", ours_said, runs,
                       versus=theirs_said, versus_value=cpu_theirs / n * 1e6,
                       ratio=cpu_ours / cpu_theirs, deals=n),
                figure("census wall", wall_ours, "s", ours_said, runs, versus=theirs_said,
                       versus_value=wall_theirs, ratio=wall_ours / wall_theirs, deals=n))


def afterwards(span, folder, scratch, report):
    wall, done = timed([sys.executable, "-c", CERTIFY, span, "-q", "--json", "--out", folder])
    summary = json.loads(done.stdout)
    path = summary["range_certificate"]
    if not path:
        report.text("no range certificate (some deal unknown): nothing more to time")
        return
    report.line(f"rewrite the range certificate from the chunks (the same command again): "
                f"{wall:.1f} s; {summary['bytes']:,} bytes",
                figure("rewrite the range certificate", wall, "s",
                       f"certify {span} -q --json --out DIR (finished)"),
                figure("range certificate", summary["bytes"], "bytes",
                       f"certify {span} -q --json --out DIR (finished)"))
    last = span.split("-")[1]
    out = os.path.join(scratch, "one.msgpack.zst")
    wall, done = timed([sys.executable, "-c", CERTIFY, "extract", path, last, "-o", out])
    report.line(f"certify extract FILE {last} (the last deal: the whole file is read): "
                f"{wall:.2f} s, exit {done.returncode}",
                figure("extract the last deal", wall, "s", f"certify extract FILE {last}",
                       exit=done.returncode))
    wall, done = timed([sys.executable, "-c", CHECK, path])
    said = (done.stdout.strip() or done.stderr.strip()).splitlines()
    report.line(f"check FILE: {wall:.1f} s wall, exit {done.returncode}: "
                f"{said[-1][:160] if said else ''}",
                figure("check the range certificate", wall, "s", "check FILE",
                       exit=done.returncode, deals=span))


def levels(span, folder, chosen, report):
    """Write the range certificate at each level (in this process) and compare."""
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from certify.format import ranges
    from certify.commands.census.command import deal_range
    from certify.commands.census.folder import Census
    with open(os.path.join(folder, "census.json"), encoding="utf-8") as f:
        settings = json.load(f)
    census = Census(folder, settings)
    deals = deal_range(span)
    from certify.game.rules import Rules
    rules = Rules(settings["cells"], settings["fixed_columns"], settings["foundation_moves"])
    raw = sum(len(e) for e in census.entries(deals))
    report.text(f"range file by zstd level ({raw:,} bytes of entries):")
    with tempfile.TemporaryDirectory() as scratch:
        for level in chosen:
            t0 = time.monotonic()
            size, _ = ranges.write(os.path.join(scratch, "r"), deals.start,
                                              deals.stop - 1, rules,
                                              lambda: census.entries(deals), level=level)
            seconds = time.monotonic() - t0
            call = f"ranges.write(..., level={level})"
            report.line(f"  level {level:2}: {size:,} bytes ({size / raw:.3f} of raw) in "
                        f"{seconds:.1f} s",
                        figure("range file", size, "bytes", call, level=level, raw=raw),
                        figure("range file write", seconds, "s", call, level=level))


WRITE_RANGE = """
import resource, sys, time
from certify.commands.census.command import main
t0 = time.monotonic()
code = main([sys.argv[1], "--out", sys.argv[2], "-q", "--json"])
print(time.monotonic() - t0, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
      file=sys.stderr)
sys.exit(code)
"""


INDICES = bytes(i % 8 for i in range(256))   # (a move's index among the legal moves: small)


def synthetic(n, report):
    """A census folder of n made-up win entries, then the range writer timed on it."""
    import random

    import msgpack
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from certify.commands.census import chunks
    from certify.commands.census.chunks import Item
    from certify.commands.census.folder import open_folder
    from certify.commands.census.work import Settings
    from certify.format.ranges import pack_entry
    random.seed(1)
    with tempfile.TemporaryDirectory(prefix="bench-census-") as scratch:
        folder = os.path.join(scratch, "census")
        settings = Settings(4, False, False, autoplay=True).recorded()   # (certify A-B's default)
        lock, settings = open_folder(folder, settings, True)
        lock.close()
        t0 = time.monotonic()
        for k in range(0, n // 1000 + 1):
            items = []
            for deal in chunks.block_span(k, 1000):
                if deal > n:
                    break
                line = random.randbytes(120).translate(INDICES)   # a line as version 3 holds it
                values = msgpack.packb(line, use_bin_type=True)
                items.append(Item(deal, "win", "{}", pack_entry(deal, "win", 120, values)))
            if items:
                chunks.write(folder, k, 1000, settings, items)
        report.text(f"synthetic census of {n:,} made-up win entries (120 move indices each): "
                    f"{time.monotonic() - t0:.1f} s to make")
        done = subprocess.run([sys.executable, "-c", WRITE_RANGE, f"1-{n}", folder],
                              capture_output=True, text=True)
        seconds, peak = done.stderr.split()[-2:]
        summary = json.loads(done.stdout)
        writer = f"certify 1-{n} --out DIR -q --json (finished, made-up entries)"
        report.line(f"  certify 1-{n} on the finished folder (table rebuilt, range file "
                    f"written): {float(seconds):.1f} s, peak {float(peak):.0f} MB resident; "
                    f"range file {summary['bytes']:,} bytes",
                    figure("range writer", float(seconds), "s", writer, deals=n),
                    figure("range writer peak memory", float(peak), "MB", writer, deals=n),
                    figure("range file", summary["bytes"], "bytes", writer, deals=n))
        out = os.path.join(scratch, "one.msgpack.zst")
        wall, ran = timed([sys.executable, "-c", CERTIFY, "extract", summary["range_certificate"],
                           str(n), "-o", out])
        report.line(f"  certify extract FILE {n} (reads the whole file): {wall:.1f} s, "
                    f"exit {ran.returncode}",
                    figure("extract the last deal", wall, "s", f"certify extract FILE {n}",
                           deals=n, exit=ran.returncode))


if __name__ == "__main__":
    main()
