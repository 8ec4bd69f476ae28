"""Benchmark: certify deal 11982 (or another) end to end, beside a plain-BFS baseline.

    python benchmarks/bench_certify.py [DEAL] [--runs 5] [--json]

Prints medians over the runs: search time, positions per second, time to build and compress
the certificate, bytes per position at the default and other zstd levels, and the peak memory
of one run in a fresh process (--json: one JSON object a line per figure, benchmarks/report.py).
Machines here are shared: read ratios, not absolute seconds.
"""

import argparse
import resource
import statistics
import subprocess
import sys
import time
from collections import deque
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from report import Report, add_json_option, figure, ratio  # noqa: E402

from certify.format import writer  # noqa: E402
from certify.game.deals import deal  # noqa: E402
from certify.game.rules import Rules, decode, encode, moves, start  # noqa: E402
from certify.engine.reference.search import search  # noqa: E402


def plain_bfs(position, ncells=4):
    """The baseline: breadth-first over the readable rules, canonical byte keys, no interning."""
    first = encode(position, ncells)
    seen = {first}
    queue = deque([first])
    while queue:
        for _, _, q in moves(decode(queue.popleft(), ncells), Rules(ncells)):
            k = encode(q, ncells)
            if k not in seen:
                seen.add(k)
                queue.append(k)
    return len(seen)


def timed(f, *args):
    t = time.perf_counter()
    value = f(*args)
    return time.perf_counter() - t, value


def peak_memory_mb(number):
    code = ("import resource, sys; from certify.commands.cli import main; "
            f"main(['{number}', '-q', '-o', '/tmp/bench-peak.msgpack.zst']); "
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parent.parent)
    return int(out.stdout.split()[-1]) / 1024


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("deal", nargs="?", type=int, default=11982)
    p.add_argument("--runs", type=int, default=5)
    add_json_option(p)
    args = p.parse_args()
    report = Report("bench_certify", args.json)
    position = start(deal(args.deal))
    rules = Rules(4)
    searches, builds, compress, whole = [], [], [], []
    for _ in range(args.runs):
        t0 = time.perf_counter()
        s, outcome = timed(search, position, rules)
        b, body = timed(writer.no_win_body, outcome.keys, outcome.columns, 4, False)
        head = writer.header("no-win", args.deal, None, rules, outcome.positions, body)
        c, data = timed(writer.encode_file, head, body)
        whole.append(time.perf_counter() - t0)
        searches.append(s)
        builds.append(b)
        compress.append(c)
    n = outcome.positions
    runs = args.runs
    baseline_runs = max(1, args.runs // 2)
    baseline = [timed(plain_bfs, position)[0] for _ in range(baseline_runs)]
    med = statistics.median
    d = args.deal
    searched = f"certify.engine.reference.search.search(start(deal({d})), Rules(4))"
    report.line(f"deal {d}: {outcome.verdict}, {n:,} positions (columns up to permutation)",
                figure("positions", n, "positions", searched, deal=d, verdict=outcome.verdict))
    report.line(f"search           median {med(searches):.3f} s   "
                f"{n / med(searches):,.0f} positions/s",
                figure("search", med(searches), "s", searched, runs, deal=d),
                figure("search rate", n / med(searches), "positions/s", searched, runs, deal=d))
    bfs = f"plain_bfs(start(deal({d})))"
    report.line(f"plain BFS        median {med(baseline):.3f} s   (readable rules, no interning)"
                f"   ratio {med(baseline) / med(searches):.2f}x",
                figure("plain BFS", med(baseline), "s", bfs, baseline_runs, deal=d,
                       versus=searched, versus_value=med(searches),
                       ratio=ratio(med(baseline), med(searches))))
    report.line(f"build records    median {med(builds):.3f} s",
                figure("build records", med(builds), "s", "writer.no_win_body", runs, deal=d))
    report.line(f"zstd (certify's)  median {med(compress):.3f} s",
                figure("zstd, certify's settings", med(compress), "s", "writer.encode_file",
                       runs, deal=d))
    report.line(f"search+write     median {med(whole):.3f} s",
                figure("search and write", med(whole), "s", "search, no_win_body, encode_file",
                       runs, deal=d))
    report.line(f"certificate      {len(data):,} bytes = {len(data) / n:.3f} bytes/position "
                f"(uncompressed body {len(body):,} bytes)",
                figure("certificate", len(data), "bytes", "writer.encode_file", deal=d),
                figure("certificate a position", len(data) / n, "bytes/position",
                       "writer.encode_file", deal=d),
                figure("uncompressed body", len(body), "bytes", "writer.no_win_body", deal=d))
    for level in (3, 9, 15, 19, 22):
        t, z = timed(writer.encode_file, head, body, level)
        call = f"writer.encode_file(head, body, {level})"
        report.line(f"  level {level:2}: {len(z) / n:.3f} bytes/position, {t:.3f} s",
                    figure("zstd level, bytes a position", len(z) / n, "bytes/position", call,
                           deal=d, level=level),
                    figure("zstd level, time", t, "s", call, deal=d, level=level))
    peak = peak_memory_mb(d)
    report.line(f"peak memory      {peak:.0f} MB (fresh process, certify {d})",
                figure("peak memory", peak, "MB", f"certify {d} -q -o FILE (fresh process)",
                       deal=d))
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    report.line(f"this process     {rss:.0f} MB max RSS",
                figure("this process's peak memory", rss, "MB", "bench_certify.py"))


if __name__ == "__main__":
    main()
