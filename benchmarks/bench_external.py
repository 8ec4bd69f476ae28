"""Benchmark: the exhaustive search on disk (certify/external.py) beside the in-memory engine.

    python benchmarks/bench_external.py [--deal 7484159] [--memory 16M,64M,256M] [--runs 3]
        positions a second and the peak of disk in use (bytes a position) of the search on
        disk at each --memory, beside the in-memory search of the same deal; then the
        certificate streamed out of the work folder (seconds, and the same SHA-256 as the
        in-memory engine's file)
    python benchmarks/bench_external.py --far 504179225 --memory-far 16G --minutes 15
        how far a hard deal gets on disk in the time: positions, the bucket (cards home) and
        layer, disk in use a minute at a time (the folder's files, what a merge under way has
        written too), its peak and bytes a position there, and how fast the disk grew; the work
        folder is removed after (this measures, it proves nothing)

In process (the search's own work, not Python's start-up); the machine is shared, so read the
ratio of the two engines taken in the same run.
"""

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from certify import engine, external  # noqa: E402
from certify.deals import deal  # noqa: E402
from certify.options import memory_size  # noqa: E402
from certify.outcome import size_text  # noqa: E402
from certify.rules import Rules, start  # noqa: E402


class Watch:
    """A progress display that keeps the search's peak of disk in use (and the positions
    then), and prints a line a minute (for --far)."""

    def __init__(self, search, loud=False):
        self.search, self.loud, self.said = search, loud, time.monotonic()
        self.peak = self.at_peak = 0
        self.where = ""

    def note(self, text):
        self.where = text

    def update(self, positions, most_home):
        disk = self.search.disk_bytes()
        if disk > self.peak:
            self.peak, self.at_peak = disk, positions
        if self.loud and time.monotonic() - self.said > 60:
            self.said = time.monotonic()
            print(f"  [{time.strftime('%H:%M:%S')}] {positions:,} positions, most home "
                  f"{most_home}, {self.where}", flush=True)


def on_disk(position, rules, memory, folder, seconds=None, loud=False):
    shutil.rmtree(folder, ignore_errors=True)
    search = external.DiskSearch(position, rules, external.Disk(folder), memory)
    watch = Watch(search, loud)
    t0 = time.perf_counter()
    outcome = search.run(time_limit=seconds, progress=watch)
    return search, outcome, time.perf_counter() - t0, watch


def compare(args):
    number = args.deal
    rules = Rules(args.cells)
    position = start(deal(number))
    tmp = Path(tempfile.mkdtemp(prefix="bench-external-"))
    try:
        memory_seconds = []
        for _ in range(args.runs):
            t0 = time.perf_counter()
            whole = engine.search(position, rules)
            memory_seconds.append(time.perf_counter() - t0)
        n = whole.positions
        t0 = time.perf_counter()
        from certify import prove
        prove.prove(position, rules, number, out=tmp / "memory.zst", plan=prove.SEARCH_ALONE)
        write_memory = time.perf_counter() - t0 - min(memory_seconds)
        m = min(memory_seconds)
        print(f"deal {number}, {rules.ncells} cells: {n:,} positions")
        print(f"  in memory: {m:.2f} s search (best of {args.runs}), {n / m:,.0f} positions/s;"
              f" search + certificate {m + write_memory:.2f} s")
        for text in args.memory.split(","):
            budget = memory_size(text)
            runs = [on_disk(position, rules, budget, tmp / "work") for _ in range(args.runs)]
            search, outcome, seconds, watch = min(runs, key=lambda r: r[2])
            peak = watch.peak
            assert outcome.positions == n, outcome
            t0 = time.perf_counter()
            size, sha = search.write_certificate(os.fspath(tmp / "disk.zst"), number, None)
            written = time.perf_counter() - t0
            same = (tmp / "disk.zst").read_bytes() == (tmp / "memory.zst").read_bytes()
            print(f"  on disk, --memory {text}: {seconds:.2f} s search (best of {args.runs}), "
                  f"{n / seconds:,.0f} positions/s ({seconds / m:.1f}x the in-memory time); "
                  f"disk at most {size_text(peak)}, {peak / n:.1f} bytes a position "
                  f"(keys of {search.expander.keylen} B), {search.state['layer']} layers in the "
                  f"last bucket; certificate streamed in {written:.2f} s, "
                  f"{'the same bytes' if same else 'NOT THE SAME BYTES'} ({size:,} B)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def far(args):
    rules = Rules(args.cells)
    position = start(deal(args.far))
    folder = Path(tempfile.mkdtemp(prefix="bench-external-far-", dir=args.tmp))
    try:
        import resource
        search, outcome, seconds, watch = on_disk(position, rules, memory_size(args.memory_far),
                                                  folder / "work", args.minutes * 60, loud=True)
        usage = resource.getrusage(resource.RUSAGE_SELF)
        cpu = usage.ru_utime + usage.ru_stime
        n, peak = outcome.positions, watch.peak
        print(f"deal {args.far} on disk, --memory {args.memory_far}, {seconds / 60:.1f} min "
              f"({cpu / 60:.1f} min of CPU, peak {usage.ru_maxrss / 1024 ** 2:.1f} GiB): "
              f"{n:,} positions ({n / seconds:,.0f}/s, {n / cpu:,.0f} per CPU second), most "
              f"home {outcome.most_home}, {search.where()}; disk at most {size_text(peak)} "
              f"({peak / max(watch.at_peak, 1):.1f} bytes a position then), "
              f"{size_text(peak / (seconds / 60))} a minute to its peak; {outcome.verdict}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--deal", type=int, default=7484159)
    p.add_argument("--cells", type=int, default=4)
    p.add_argument("--memory", default="16M,64M,256M")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--far", type=int, help="how far this deal gets on disk in --minutes")
    p.add_argument("--minutes", type=float, default=15)
    p.add_argument("--memory-far", default="16G")
    p.add_argument("--tmp", default=None, help="where --far's work folder goes")
    args = p.parse_args()
    if not external.available():
        raise SystemExit("the search on disk is not built (certify.engine._external)")
    far(args) if args.far else compare(args)


if __name__ == "__main__":
    main()
