"""Benchmark the census and the check of its folder.

    python3 benchmarks/bench_census.py [--range 1-1000] [-j 2] [--keep DIR]

Runs `certify A-B -j N --out DIR` on a fresh folder, then `check DIR`, each as a separate
process, and prints: wall time, deals per second, median and worst deal, mean solution length in
single-card moves, the verdicts, and the check time. The issue's target is 1..32000 with
certificates within 10 minutes on 2 cores; the last line extrapolates to that.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

CERTIFY = "import sys; from certify.cli import main; sys.exit(main(sys.argv[1:]))"
CHECK = "import sys; from check.checker import main; sys.exit(main(sys.argv[1:]))"


def timed(argv):
    t0 = time.monotonic()
    done = subprocess.run(argv, capture_output=True, text=True)
    return time.monotonic() - t0, done


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--range", default="1-1000", help="deals A-B (default 1-1000)")
    p.add_argument("-j", "--jobs", type=int, default=2, help="worker processes (default 2)")
    p.add_argument("--keep", metavar="DIR", help="census into DIR (must not exist) and keep it")
    args = p.parse_args()
    if args.keep and os.path.exists(args.keep):
        sys.exit(f"bench_census: {args.keep} exists; give a new folder")
    scratch = None if args.keep else tempfile.mkdtemp(prefix="bench-census-")
    folder = args.keep or os.path.join(scratch, "census")
    try:
        bench(args.range, args.jobs, folder)
    finally:
        if scratch:
            shutil.rmtree(scratch)


def bench(span, jobs, folder):
    command = f"certify {span} -j {jobs} -q --json --out DIR"
    print(f"census: {command}   (python {sys.version.split()[0]}, {os.cpu_count()} cores)")
    wall, done = timed([sys.executable, "-c", CERTIFY, span, "-j", str(jobs), "-q", "--json",
                        "--out", folder])
    if done.returncode not in (0, 3):
        sys.exit(f"census failed (exit {done.returncode}): {done.stderr.strip()}")
    summary = json.loads(done.stdout)
    with open(os.path.join(folder, "results.jsonl"), encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    seconds = [r["seconds"] for r in rows]
    worst = max(rows, key=lambda r: r["seconds"])
    lengths = [r["moves"] for r in rows if r["verdict"] == "win"]
    n = len(rows)
    print(f"  {n:,} deals in {wall:.1f} s wall: {n / wall:.1f} deals/s")
    print(f"  per deal: median {statistics.median(seconds):.3f} s, "
          f"worst {worst['seconds']:.2f} s (deal {worst['deal']}, {worst['verdict']})")
    if lengths:
        print(f"  solution length: mean {statistics.mean(lengths):.1f} single-card moves "
              f"(median {statistics.median(lengths):g}, longest {max(lengths):,})")
    print(f"  {summary['won']:,} won, {summary['no_win']:,} no win {summary['no_win_deals']}, "
          f"{summary['unknown']:,} unknown {summary['unknown_deals']}")
    # A solver's win vouches for the positions of its line only (moves + 1); a win with more
    # positions came from the exhaustive search, after the solver gave up.
    searched = [r for r in rows if r["verdict"] == "win" and r["positions"] > r["moves"] + 1]
    fallback = sorted(searched, key=lambda r: -r["seconds"])
    if fallback:
        shown = ", ".join(f"{r['deal']} ({r['seconds']:.1f} s)" for r in fallback[:10])
        print(f"  {len(fallback)} wins needed the exhaustive search (solver gave up): {shown}")
    print(f"  sum of per-deal times {sum(seconds):.1f} s "
          f"({sum(seconds) / jobs:.1f} s per worker if perfectly shared)")
    size = sum(r["bytes"] or 0 for r in rows)
    print(f"  certificates: {size:,} bytes in all")

    print("check: check DIR --json")
    wall_check, checked = timed([sys.executable, "-c", CHECK, folder, "--json"])
    verdicts = [json.loads(line)["verdict"] for line in checked.stdout.splitlines()]
    print(f"  {len(verdicts):,} certificates in {wall_check:.1f} s wall "
          f"({len(verdicts) / wall_check:.1f} per s), "
          f"{verdicts.count('verified'):,} verified, exit {checked.returncode}")

    print(f"target: 1..32000 in 10 minutes on 2 cores; at this rate 32,000 deals take "
          f"{32000 / (n / wall) / 60:.1f} min")


if __name__ == "__main__":
    main()
