"""Benchmark: what the autoplay closure saves the checkers, side by side in one run.

    python benchmarks/bench_closure.py [--deals 11982,7484159] [--vcheck vcheck/_build/vcheck]
                                       [--no-check] [--runs 3] [--json]

For each deal (default: every deal of certificates/deals.txt), makes its no-win certificate twice
in a scratch folder, `certify DEAL --no-autoplay` (every position reachable) and `certify DEAL`
(closed under every move then safe moves home), then times each checker on each folder with
`-j 1`, the plain folder and the autoplay folder alternately: CPU seconds (user + system of the
child), medians of the runs, and their ratio. Prints the positions and bytes of both folders too.
check is this checkout's (python -m check; --no-check leaves it out); vcheck only where --vcheck
names a built one.
"""

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "certificates"))

from report import Report, add_json_option, figure  # noqa: E402

from certify.format.reader import peek_header  # noqa: E402
from published import read_deals  # noqa: E402  (certificates/published.py)


def cpu_of(argv):
    """(CPU seconds of the child, user + system; wall seconds); it must exit 0."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def make(deals, folder, plain):
    os.makedirs(folder)
    for deal in deals:
        argv = [sys.executable, "-m", "certify", str(deal), "-q", "-o",
                os.path.join(folder, f"{deal}.msgpack.zst")] + (["--no-autoplay"] if plain else [])
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    files = [os.path.join(folder, f) for f in sorted(os.listdir(folder))]
    return sum(peek_header(f)["count"] for f in files), sum(os.path.getsize(f) for f in files)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--deals", help="comma-separated deal numbers (default: certificates/deals.txt)")
    p.add_argument("--vcheck", help="a built vcheck to time beside check")
    p.add_argument("--no-check", action="store_true", help="time vcheck alone")
    p.add_argument("--runs", type=int, default=3)
    add_json_option(p)
    args = p.parse_args()
    report = Report("bench_closure", args.json)
    deals = [int(d) for d in args.deals.split(",")] if args.deals else read_deals()
    checkers = {} if args.no_check else {"check": [sys.executable, "-m", "check", "-q", "-j", "1"]}
    if args.vcheck:
        checkers["vcheck"] = [args.vcheck, "-q", "-j", "1"]
    with tempfile.TemporaryDirectory(prefix="bench-closure-") as tmp:
        plain, auto = os.path.join(tmp, "plain"), os.path.join(tmp, "autoplay")
        plain_n, plain_b = make(deals, plain, True)
        auto_n, auto_b = make(deals, auto, False)
        report.text(f"{len(deals)} deals: {plain_n:,} positions plain ({plain_b:,} bytes), "
                    f"{auto_n:,} under autoplay ({auto_b:,} bytes): {plain_n / auto_n:.2f}x fewer")
        for name, argv in checkers.items():
            times = {plain: [], auto: []}
            for _ in range(args.runs):
                for folder in (plain, auto):
                    times[folder].append(cpu_of(argv + [folder])[0])
            a, b = statistics.median(times[plain]), statistics.median(times[auto])
            command = " ".join(argv[-4:] if name == "check" else argv) + " FOLDER"
            report.line(f"{name} -j 1, {len(deals)} deals: plain {a:.1f} s CPU, autoplay {b:.1f} s "
                        f"CPU: {a / b:.2f}x faster (medians of {args.runs})",
                        figure(f"{name} CPU on the autoplay files", b, "s", command, args.runs,
                               versus="the same deals' plain files", versus_value=a,
                               ratio=a / b, deals=len(deals)))


if __name__ == "__main__":
    main()
