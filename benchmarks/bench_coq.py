"""Benchmark the Coq export: coqc's CPU time and peak memory, by method, on published deals.

    python3 benchmarks/bench_coq.py                          11982 and 517776, both methods
    python3 benchmarks/bench_coq.py --deals below-a-million  the eight deals below 1,000,000
    python3 benchmarks/bench_coq.py --deals 7484159 --methods search
    python3 benchmarks/bench_coq.py --runs 3 --keep DIR
    python3 benchmarks/bench_coq.py --closures --runs 5      11982: plain beside autoplay
    python3 benchmarks/bench_coq.py --json                   one JSON object a line per figure

For each deal, exports the published certificate (certificates/DEAL.msgpack.zst) with
`certify export --coq --method M` for each method, then compiles the file with coqc --runs
times. coqc's CPU time (user + system) and peak resident memory come from the operating
system's accounting of the finished child (os.wait4). Prints, for each deal and method, the
file's size and the median CPU seconds and peak MB; then the ratio data/search per deal, and
the targets: 11982 at most 15 s and 600 MB; the eight deals below one million at
most 60 s together; 7484159 at most 20 minutes and 8 GB.

--closures sets the two closures side by side instead, for each deal (default 11982) and
method: the published certificate (closed under every move then safe autoplay) and a plain
one written for the comparison (`certify DEAL --no-autoplay`), each exported, then compiled
in turn, plain then autoplay, --runs pairs (default 3 here). It prints the median CPU of
each and the median of the pairs' ratios plain / autoplay; the target for 11982 is that the
autoplay file compiles at least 1.3 times as fast as the plain one. The plain file is the
baseline ("old"): the export as it was before autoplay existed. The script checks that with
git when it can: it exports the plain certificate again with the exporter of BASELINE (the
commit before the autoplay export, its coq.py and templates from git, the certificate read by
today's reader) and says whether the two files are the same bytes.

The machine is shared: CPU time depends on the load much less than wall time does, but it
does depend on it; compare methods within one run, and take figures from a quiet machine.
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from report import Report, add_json_option, figure

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PUBLISHED = os.path.join(ROOT, "certificates")
CERTIFY = "import sys; from certify.commands.cli import main; sys.exit(main(sys.argv[1:]))"
BELOW_A_MILLION = [11982, 146692, 186216, 455889, 495505, 512118, 517776, 781948]
TARGETS = {11982: (15, 600), 7484159: (20 * 60, 8 * 1024)}  # CPU seconds, peak MB
# The last commit before the Coq export knew autoplay: its export is the "old" of --closures.
BASELINE = "df9dd83^"
OLD_EXPORT = """import sys
sys.path.insert(0, sys.argv[1])
from oldexport import coq
from certify.commands import exports
exports.coq = coq
sys.exit(exports.run_export(sys.argv[2:]))
"""


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--deals", help="comma-separated deal numbers, or below-a-million "
                   "(default 11982,517776; 11982 with --closures)")
    p.add_argument("--methods", help="comma-separated (default both; search with --closures)")
    p.add_argument("--runs", type=int, help="coqc runs per file (default 1; pairs with "
                   "--closures, default 3)")
    p.add_argument("--closures", action="store_true",
                   help="plain beside autoplay certificates, in pairs (default deal 11982, "
                        "method search)")
    p.add_argument("--keep", metavar="DIR", help="work in DIR (must not exist) and keep it")
    add_json_option(p)
    args = p.parse_args()
    if args.deals is None:
        args.deals = "11982" if args.closures else "11982,517776"
    if args.methods is None:
        args.methods = "search" if args.closures else "search,data"
    if args.runs is None:
        args.runs = 3 if args.closures else 1
    deals = BELOW_A_MILLION if args.deals == "below-a-million" else \
        [int(d) for d in args.deals.split(",")]
    methods = args.methods.split(",")
    if not shutil.which("coqc"):
        sys.exit("bench_coq: coqc is not installed (Debian: apt-get install coq)")
    if args.keep and os.path.exists(args.keep):
        sys.exit(f"bench_coq: {args.keep} exists; give a new folder")
    for deal in deals:
        if not os.path.exists(certificate(deal)):
            sys.exit(f"bench_coq: no published certificate for deal {deal}")
    folder = args.keep or tempfile.mkdtemp(prefix="bench-coq-")
    os.makedirs(folder, exist_ok=True)
    try:
        report = Report("bench_coq", args.json)
        if args.closures:
            closures(deals, methods, args.runs, folder, report)
        else:
            bench(deals, methods, args.runs, folder, report)
    finally:
        if not args.keep:
            shutil.rmtree(folder)


def certificate(deal):
    return os.path.join(PUBLISHED, f"{deal}.msgpack.zst")


def coqc_once(path):
    """(CPU s, peak MB, wall s, proved?) of one coqc run on `path`, in its folder."""
    t0 = time.monotonic()
    with tempfile.TemporaryFile() as log:
        child = subprocess.Popen(["coqc", os.path.basename(path)], cwd=os.path.dirname(path),
                                 stdout=log, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.monotonic() - t0
        log.seek(0)
        output = log.read().decode("utf-8", "replace")
    proved = os.waitstatus_to_exitcode(status) == 0 and "Closed under the global context" in output
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, wall, proved


def export(cert, path, method):
    """`certify export --coq` of `cert` into `path`; the count the file must end with."""
    done = subprocess.run([sys.executable, "-c", CERTIFY, "export", "--coq", cert, "-o", path,
                           "--method", method], capture_output=True, text=True, cwd=ROOT)
    if done.returncode != 0:
        sys.exit(f"bench_coq: export of {cert} failed: {done.stderr.strip()}")
    return re.search(r"([\d,]+) up to column order", done.stdout).group(1)


def closures(deals, methods, runs, folder, report):
    """Plain beside autoplay, compiled in turn, pair by pair."""
    report.text(f"coq export, plain beside autoplay: coqc {coq_version()}, {os.cpu_count()} "
                f"cores, load {load()}; {runs} pair(s) per file, plain then autoplay; CPU s "
                f"(user + system)")
    report.text(f"  {'deal':>8}  {'method':<6}  {'plain':>16}  {'autoplay':>16}  "
                f"{'plain CPU':>9}  {'autoplay':>8}  {'ratio':>5}  proved")
    for deal in deals:
        plain_cert = os.path.join(folder, f"{deal}-plain.msgpack.zst")
        done = subprocess.run([sys.executable, "-c", CERTIFY, str(deal), "--no-autoplay", "-q",
                               "-o", plain_cert], capture_output=True, text=True, cwd=ROOT)
        if done.returncode != 0:
            sys.exit(f"bench_coq: certify {deal} --no-autoplay failed: {done.stderr.strip()}")
        for method in methods:
            paths, counts = {}, {}
            for closure, cert in (("plain", plain_cert), ("autoplay", certificate(deal))):
                sub = os.path.join(folder, f"{deal}-{method}-{closure}")
                os.makedirs(sub, exist_ok=True)
                paths[closure] = os.path.join(sub, f"FreeCell{deal}.v")
                counts[closure] = export(cert, paths[closure], method)
            if method == "search":
                report.text(f"    plain file the same bytes as {BASELINE}'s export: "
                            f"{same_as_baseline(plain_cert, paths['plain'], folder)}")
            pairs = [(coqc_once(paths["plain"]), coqc_once(paths["autoplay"]))
                     for _ in range(runs)]
            plain = statistics.median(p[0] for p, _ in pairs)
            auto = statistics.median(a[0] for _, a in pairs)
            ratio = statistics.median(p[0] / a[0] for p, a in pairs)
            proved = all(p[3] and a[3] for p, a in pairs)
            what = {c: f"coqc FreeCell{deal}.v ({c}, {method})" for c in paths}
            report.line(f"  {deal:>8}  {method:<6}  "
                        f"{counts['plain'] + ' pos.':>16}  {counts['autoplay'] + ' pos.':>16}  "
                        f"{plain:>9.2f}  {auto:>8.2f}  {ratio:>5.2f}  "
                        f"{'yes' if proved else 'NO'}",
                        figure("coqc CPU, plain", plain, "s", what["plain"], runs, deal=deal,
                               method=method, proved=proved),
                        figure("coqc CPU, autoplay beside plain", auto, "s", what["autoplay"],
                               runs, versus=what["plain"], versus_value=plain, ratio=ratio,
                               ratio_of="median of pairs, plain / autoplay", deal=deal,
                               method=method, proved=proved))
            report.text("    pairs (plain / autoplay CPU s): " + ", ".join(
                f"{p[0]:.2f}/{a[0]:.2f}" for p, a in pairs))
            if deal == 11982:
                report.text(f"  target 11982 ({method}): autoplay (new) at least 1.3x as fast as "
                            f"plain (old): "
                            f"{ratio:.2f}x -> {'met' if ratio >= 1.3 and proved else 'missed'}")
    report.text(f"  load now {load()}")


def same_as_baseline(cert, plain, folder):
    """Whether `plain` is what BASELINE's exporter writes for `cert` ("yes", "NO", or why not
    known): the exporter's coq.py and templates from git, run with today's reader."""
    package = os.path.join(folder, "baseline", "oldexport")
    if not os.path.isdir(package):
        listing = subprocess.run(["git", "-C", ROOT, "ls-tree", "--name-only", "-r", BASELINE,
                                  "certify/exports/"], capture_output=True, text=True)
        if listing.returncode != 0 or not shutil.which("git"):
            return "not known (no git history)"
        os.makedirs(os.path.join(package, "templates"))
        open(os.path.join(package, "__init__.py"), "w").close()
        for name in listing.stdout.split():
            if name.endswith(".v") or name.endswith("/coq.py"):
                text = subprocess.run(["git", "-C", ROOT, "show", f"{BASELINE}:{name}"],
                                      capture_output=True, text=True, check=True).stdout
                text = text.replace("from ..board import describe",
                                    "from certify.game.board import describe")
                where = "templates" if name.endswith(".v") else ""
                with open(os.path.join(package, where, os.path.basename(name)), "w") as f:
                    f.write(text)
    out = os.path.join(folder, "baseline", os.path.basename(plain))
    done = subprocess.run([sys.executable, "-c", OLD_EXPORT, os.path.dirname(package), "--coq",
                           cert, "-o", out], capture_output=True, text=True, cwd=ROOT)
    if done.returncode != 0:
        return f"not known ({done.stderr.strip()[-200:]})"
    with open(out, "rb") as a, open(plain, "rb") as b:
        return "yes" if a.read() == b.read() else "NO"


def load():
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def bench(deals, methods, runs, folder, report):
    report.text(f"coq export: coqc {coq_version()}, {os.cpu_count()} cores, load {load()}; "
                f"{runs} run(s) per file, median CPU")
    report.text(f"  {'deal':>8}  {'method':<6}  {'positions':>10}  {'file':>10}  {'CPU s':>7}  "
                f"{'peak MB':>7}  {'wall s':>7}  proved")
    results = {}
    for deal in deals:
        for method in methods:
            sub = os.path.join(folder, f"{deal}-{method}")
            os.makedirs(sub, exist_ok=True)
            path = os.path.join(sub, f"FreeCell{deal}.v")
            done = subprocess.run([sys.executable, "-c", CERTIFY, "export", "--coq",
                                   certificate(deal), "-o", path, "--method", method],
                                  capture_output=True, text=True, cwd=ROOT)
            if done.returncode != 0:
                sys.exit(f"bench_coq: export of {deal} failed: {done.stderr.strip()}")
            count = re.search(r"([\d,]+) up to column order", done.stdout).group(1)
            runs_ = [coqc_once(path) for _ in range(runs)]
            cpu = statistics.median(r[0] for r in runs_)
            peak = max(r[1] for r in runs_)
            wall = statistics.median(r[2] for r in runs_)
            proved = all(r[3] for r in runs_)
            results[deal, method] = (cpu, peak, proved)
            size = os.path.getsize(path)
            exported = (f"certify export --coq certificates/{deal}.msgpack.zst --method {method}")
            coqc = f"coqc FreeCell{deal}.v ({method})"
            about = dict(deal=deal, method=method, proved=proved)
            report.line(f"  {deal:>8}  {method:<6}  {count:>10}  {size:>10,}  "
                        f"{cpu:>7.1f}  {peak:>7,.0f}  {wall:>7.1f}  {'yes' if proved else 'NO'}",
                        figure("positions", int(count.replace(",", "")), "positions", exported,
                               **about),
                        figure("file", size, "bytes", exported, **about),
                        figure("coqc CPU", cpu, "s", coqc, runs, **about),
                        figure("coqc peak memory", peak, "MB", coqc, runs, "max", **about),
                        figure("coqc wall", wall, "s", coqc, runs, **about))
    if {"search", "data"} <= set(methods):
        cpu_ratios = {d: results[d, "data"][0] / results[d, "search"][0] for d in deals}
        peak_ratios = {d: results[d, "data"][1] / results[d, "search"][1] for d in deals}

        def versus(measure, unit, d, which, ratios):
            return figure(measure, results[d, "data"][which], unit,
                          f"coqc FreeCell{d}.v (data)", runs, "max" if which else "median",
                          versus=f"coqc FreeCell{d}.v (search)",
                          versus_value=results[d, "search"][which], ratio=ratios[d], deal=d)
        report.line("  data / search, CPU: " + ", ".join(
            f"{d} {cpu_ratios[d]:.2f}" for d in deals) +
            "; peak memory: " + ", ".join(f"{d} {peak_ratios[d]:.2f}" for d in deals),
            *[versus("coqc CPU, data beside search", "s", d, 0, cpu_ratios) for d in deals],
            *[versus("coqc peak memory, data beside search", "MB", d, 1, peak_ratios)
              for d in deals])
    for method in methods:
        for deal, (cpu_max, mb_max) in TARGETS.items():
            if (deal, method) in results:
                cpu, peak, proved = results[deal, method]
                met = proved and cpu <= cpu_max and peak <= mb_max
                report.text(f"  target {deal} ({method}): <= {cpu_max} s and <= {mb_max} MB: "
                            f"{cpu:.1f} s, {peak:,.0f} MB -> {'met' if met else 'missed'}")
        if all((d, method) in results for d in BELOW_A_MILLION):
            total = sum(results[d, method][0] for d in BELOW_A_MILLION)
            report.line(f"  target: the eight deals below one million ({method}) <= 60 s "
                        f"together: {total:.1f} s -> {'met' if total <= 60 else 'missed'}",
                        figure("coqc CPU, the eight deals below one million", total, "s",
                               f"coqc of each FreeCellD.v ({method})", runs, "sum of medians",
                               method=method))
    report.text(f"  load now {load()}")


def coq_version():
    done = subprocess.run(["coqc", "--version"], capture_output=True, text=True)
    match = re.search(r"version (\S+)", done.stdout)
    return match.group(1) if match else "?"


if __name__ == "__main__":
    main()
