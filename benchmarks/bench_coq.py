"""Benchmark the Coq export: coqc's time and peak memory on the proof for a deal (default 11982).

    python3 benchmarks/bench_coq.py [--deal 11982] [--runs 1] [--keep DIR]

Proves the deal (a certificate up to column permutation, the default), exports it with
`certify export --coq` (which re-runs the search with fixed columns), then runs coqc on the file
under /usr/bin/time -v, --runs times. Prints the export's time and the file's size, then for
coqc the median wall time, CPU time (user + system) and peak resident memory, and whether the
file printed "Closed under the global context". The issue's target for 11982 is under 2 minutes.

The machine is shared: wall time depends on the load (printed before and after), CPU time much
less so.
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

CERTIFY = "import sys; from certify.cli import main; sys.exit(main(sys.argv[1:]))"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--deal", type=int, default=11982, help="a deal that cannot be won (11982)")
    p.add_argument("--runs", type=int, default=1, help="coqc runs (default 1; about 30 s each)")
    p.add_argument("--keep", metavar="DIR", help="work in DIR (must not exist) and keep it")
    args = p.parse_args()
    if not shutil.which("coqc"):
        sys.exit("bench_coq: coqc is not installed (Debian: apt-get install coq)")
    if args.keep and os.path.exists(args.keep):
        sys.exit(f"bench_coq: {args.keep} exists; give a new folder")
    folder = args.keep or tempfile.mkdtemp(prefix="bench-coq-")
    os.makedirs(folder, exist_ok=True)
    try:
        bench(args.deal, args.runs, folder)
    finally:
        if not args.keep:
            shutil.rmtree(folder)


def run(argv, folder):
    t0 = time.monotonic()
    done = subprocess.run(argv, cwd=folder, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"bench_coq: {' '.join(argv)} failed:\n{done.stderr[-2000:]}")
    return time.monotonic() - t0, done


def coqc_once(filename, folder):
    """(wall s, CPU s, peak MB, closed?) of one coqc run, from GNU time's report."""
    _, done = run(["/usr/bin/time", "-v", "coqc", filename], folder)
    report = dict(line.strip().rsplit(": ", 1) for line in done.stderr.splitlines()
                  if ": " in line and line.startswith("\t"))
    h, m, s = (["0"] + report["Elapsed (wall clock) time (h:mm:ss or m:ss)"].split(":"))[-3:]
    wall = int(h) * 3600 + int(m) * 60 + float(s)
    cpu = float(report["User time (seconds)"]) + float(report["System time (seconds)"])
    peak = int(report["Maximum resident set size (kbytes)"]) / 1024
    return wall, cpu, peak, "Closed under the global context" in done.stdout


def load():
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def bench(deal, runs, folder):
    print(f"coq export of deal {deal}   (coqc {coq_version()}, {os.cpu_count()} cores, "
          f"load {load()})")
    cert = f"{deal}.msgpack.zst"
    seconds, _ = run([sys.executable, "-c", CERTIFY, str(deal), "-o", cert, "-q", "--no-solver"],
                     folder)
    print(f"  certify {deal}: {seconds:.1f} s")
    filename = f"FreeCell{deal}.v"
    seconds, done = run([sys.executable, "-c", CERTIFY, "export", "--coq", cert, "-o", filename],
                        folder)
    size = os.path.getsize(os.path.join(folder, filename))
    count = re.search(r"from ([\d,]+) positions", done.stdout).group(1)
    print(f"  certify export --coq: {seconds:.1f} s, {count} positions, {size / 1e6:.2f} MB")
    results = [coqc_once(filename, folder) for _ in range(runs)]
    wall = statistics.median(r[0] for r in results)
    cpu = statistics.median(r[1] for r in results)
    peak = max(r[2] for r in results)
    closed = all(r[3] for r in results)
    print(f"  coqc ({runs} run{'s' if runs > 1 else ''}): median wall {wall:.1f} s, "
          f"median CPU {cpu:.1f} s, peak memory {peak:,.0f} MB; "
          f"Print Assumptions: {'Closed under the global context' if closed else 'NOT CLOSED'}")
    print(f"  target: under 120 s wall -> {'met' if wall < 120 else 'missed'} "
          f"(CPU {cpu:.0f} s; load now {load()})")


def coq_version():
    done = subprocess.run(["coqc", "--version"], capture_output=True, text=True)
    match = re.search(r"version (\S+)", done.stdout)
    return match.group(1) if match else "?"


if __name__ == "__main__":
    main()
