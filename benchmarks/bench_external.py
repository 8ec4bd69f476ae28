"""Benchmark: the exhaustive search on disk (certify/engine/on_disk.py) beside the in-memory engine.

    python benchmarks/bench_external.py [--deal 7484159] [--memory 16M,64M,256M] [--runs 3]
                                        [--autoplay] [--foundation-moves] [--fixed-columns]
                                        [--threads N] [--json]
        positions a second and the peak of disk in use (bytes a position) of the search on
        disk at each --memory, beside the in-memory search of the same deal; then the
        certificate streamed out of the work folder (seconds, and the same SHA-256 as the
        in-memory engine's file). --autoplay: both closed under every move then safe moves
        home (certify's default closure; without it, every move alone, as the figures in
        benchmarks/README were taken). --threads N: the search on disk's sorts and merges on N
        threads (work_folder.Disk.threads; default 1), its CPU (user + system) said beside its
        wall time
    python benchmarks/bench_external.py --far 504179225 --memory-far 16G --minutes 15
        how far a hard deal gets on disk in the time: positions, the bucket (cards home) and
        layer, disk in use a minute at a time (the folder's files, what a merge under way has
        written too), its peak and bytes a position there, and how fast the disk grew; the work
        folder is removed after (this measures, it proves nothing)
    python benchmarks/bench_external.py --tail [--deal 7484159 --foundation-moves --memory 8M]
        a group's last layers on disk (on_disk.LOOK_UP_BELOW): the search run with its layers'
        successors looked up in the group's files by block index where they are few, then with
        every layer merged through the files (LOOK_UP_BELOW 0, as before lookups), CPU and wall
        of each and the same certificate SHA-256; and each layer's merge less the group's files
        timed both ways on the same files (CPU; the same bytes asserted), with the layer's
        successors against the group's keys

In process (the search's own work, not Python's start-up); the machine is shared, so read the
ratio of the two engines taken in the same run. --json: one JSON object a line per figure
(benchmarks/report.py).
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

from report import Report, add_json_option, figure  # noqa: E402

from certify import engine
from certify.engine import on_disk, work_folder  # noqa: E402
from certify.game.deals import deal  # noqa: E402
from certify.commands.options import memory_size  # noqa: E402
from certify.outcome import size_text  # noqa: E402
from certify.game.rules import Rules, start  # noqa: E402


class Watch:
    """A progress display that keeps the search's peak of disk in use (and the positions
    then), and prints a line a minute (for --far)."""

    def __init__(self, search, report=None):
        self.search, self.report, self.said = search, report, time.monotonic()
        self.peak = self.at_peak = 0
        self.where = ""
        self.layered = []  # the buckets, or a bucket's foundation groups, closed in layers on disk

    def note(self, text):
        self.where = text
        unit, _, how = text.partition(": ")
        if how.startswith("layer ") and unit not in self.layered:
            self.layered.append(unit)

    def update(self, positions, most_home):
        disk = self.search.disk_bytes()
        if disk > self.peak:
            self.peak, self.at_peak = disk, positions
        if self.report and time.monotonic() - self.said > 60:
            self.said = time.monotonic()
            self.report.text(f"  [{time.strftime('%H:%M:%S')}] {positions:,} positions, "
                             f"most home {most_home}, {self.where}")


def cpu_seconds():
    import resource
    usage = resource.getrusage(resource.RUSAGE_SELF)  # (every thread's)
    return usage.ru_utime + usage.ru_stime


def run_on_disk(position, rules, memory, folder, seconds=None, report=None, threads=1):
    shutil.rmtree(folder, ignore_errors=True)
    search = on_disk.DiskSearch(position, rules, work_folder.Disk(folder, threads=threads), memory)
    watch = Watch(search, report)
    t0, c0 = time.perf_counter(), cpu_seconds()
    outcome = search.run(time_limit=seconds, progress=watch)
    watch.cpu = cpu_seconds() - c0
    return search, outcome, time.perf_counter() - t0, watch


def compare(args, report):
    number = args.deal
    rules = Rules(args.cells, args.fixed_columns, args.foundation_moves, args.autoplay)
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
        from certify.run import prove
        prove.proved(position, rules, number, out=tmp / "memory.zst", plan=prove.SEARCH_ALONE)
        write_memory = time.perf_counter() - t0 - min(memory_seconds)
        m = min(memory_seconds)
        closure = "autoplay" if rules.autoplay else "moves"
        about = dict(deal=number, cells=rules.ncells, closure=closure,
                     foundation_moves=rules.foundation_moves, fixed_columns=rules.fixed_columns)
        in_memory = (f"engine.search(start(deal({number})), Rules({rules.ncells}"
                     f"{', autoplay=True' if rules.autoplay else ''}))")
        report.line(f"deal {number}, {rules.ncells} cells, closed under "
                    f"{'every move then safe autoplay' if rules.autoplay else 'every move'}: "
                    f"{n:,} positions",
                    figure("positions", n, "positions", in_memory, **about))
        report.line(f"  in memory: {m:.2f} s search (best of {args.runs}), {n / m:,.0f} "
                    f"positions/s; search + certificate {m + write_memory:.2f} s",
                    figure("in-memory search", m, "s", in_memory, args.runs, "best", **about),
                    figure("in-memory search + certificate", m + write_memory, "s",
                           "prove.proved(..., plan=SEARCH_ALONE)", args.runs, "best", **about))
        for text in args.memory.split(","):
            budget = memory_size(text)
            runs = [run_on_disk(position, rules, budget, tmp / "work", threads=args.threads)
                    for _ in range(args.runs)]
            search, outcome, seconds, watch = min(runs, key=lambda r: r[2])
            peak = watch.peak
            assert outcome.positions == n, outcome
            t0 = time.perf_counter()
            size, sha = search.write_certificate(os.fspath(tmp / "disk.zst"), number, None)
            written = time.perf_counter() - t0
            same = (tmp / "disk.zst").read_bytes() == (tmp / "memory.zst").read_bytes()
            disk = (f"on_disk.DiskSearch(..., Disk(..., threads={args.threads}), memory={text})"
                    ".run()")
            on = dict(about, memory=text, same_bytes=same, threads=args.threads)
            report.line(f"  on disk, --memory {text}: {seconds:.2f} s search (best of "
                        f"{args.runs}; {watch.cpu:.2f} s CPU on {args.threads} thread"
                        f"{'s' if args.threads > 1 else ''}), {n / seconds:,.0f} positions/s "
                        f"({seconds / m:.1f}x the "
                        f"in-memory time); disk at most {size_text(peak)}, {peak / n:.1f} bytes a "
                        f"position (keys of {search.expander.keylen} B), "
                        f"{search.state['layer']} layers in the last bucket; in layers on disk: "
                        f"{'; '.join(watch.layered) or 'none (every group held in memory)'}; "
                        f"certificate streamed in {written:.2f} s, "
                        f"{'the same bytes' if same else 'NOT THE SAME BYTES'} ({size:,} B)",
                        figure("search on disk", seconds, "s", disk, args.runs, "best",
                               versus=in_memory, versus_value=m, ratio=seconds / m, **on),
                        figure("search on disk CPU", watch.cpu, "s", disk, args.runs,
                               "of the best wall", **on),
                        figure("search on disk rate", n / seconds, "positions/s", disk,
                               args.runs, "best", **on),
                        figure("disk at most", peak, "bytes", disk, **on),
                        figure("units in layers on disk", len(watch.layered), "buckets or groups",
                               disk, **on),
                        figure("disk a position", peak / n, "bytes/position", disk, **on),
                        figure("certificate streamed", written, "s",
                               "DiskSearch.write_certificate", **on),
                        figure("certificate", size, "bytes", "DiskSearch.write_certificate",
                               **on))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def tail(args, report):
    rules = Rules(args.cells, args.fixed_columns, args.foundation_moves, args.autoplay)
    position, memory = start(deal(args.deal)), memory_size(args.memory)
    tmp = Path(tempfile.mkdtemp(prefix="bench-external-tail-", dir=args.tmp))
    layers = []
    x = on_disk._native()

    class Timed(on_disk.DiskSearch):
        """Each merge less the group's files made the other way too, on the same files."""

        def _merge(self, runs, less=(), what="merged"):
            got = super()._merge(runs, less, what)
            if less and what == "frontier":
                w, files = self.expander.keylen, [self._b(e[0]) for e in less]
                inputs = [self._b(r[0]) for r in runs]
                c0 = time.process_time()
                x.merge(inputs, w, os.fsencode(tmp / "merged.keys"), files)
                c1 = time.process_time()
                indexes = [x.index(f, w) for f in files]
                c2 = time.process_time()
                x.merge_looked(inputs, w, os.fsencode(tmp / "looked.keys"), files, indexes)
                c3 = time.process_time()
                same = (tmp / "merged.keys").read_bytes() == (tmp / "looked.keys").read_bytes() \
                    == Path(self._path(got[0])).read_bytes()
                assert same, "a lookup by block index wrote another file than the merge"
                for name in ("merged.keys", "looked.keys"):
                    (tmp / name).unlink()
                layers.append((self.state["layer"], sum(r[1] for r in runs),
                               sum(e[1] for e in less), got[1], c1 - c0, c2 - c1, c3 - c2))
            return got

    closure = "autoplay" if rules.autoplay else "moves"
    about = dict(deal=args.deal, cells=rules.ncells, closure=closure, memory=args.memory,
                 foundation_moves=rules.foundation_moves)
    report.line(f"deal {args.deal}, {rules.words()}, closed under "
                f"{'every move then safe autoplay' if rules.autoplay else 'every move'}, "
                f"--memory {args.memory}")
    default = on_disk.LOOK_UP_BELOW
    try:
        for below, words in ((default, "lookups where few"), (0, "every layer merged")):
            on_disk.LOOK_UP_BELOW = below
            folder = tmp / "work"
            shutil.rmtree(folder, ignore_errors=True)
            disk = work_folder.Disk(folder, threads=args.threads)
            search = on_disk.DiskSearch(position, rules, disk, memory)
            t0, c0 = time.perf_counter(), time.process_time()
            outcome = search.run()
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            size, sha = search.write_certificate(os.fspath(tmp / "cert.zst"), args.deal, None)
            search.remove()
            command = (f"on_disk.DiskSearch(..., memory={args.memory}).run() "
                       f"(LOOK_UP_BELOW={below:g})")
            report.line(f"  {words} (LOOK_UP_BELOW {below:g}): {outcome.verdict}, "
                        f"{outcome.positions:,} positions, search {cpu:.2f} s CPU, {wall:.2f} s "
                        f"wall; certificate {size:,} B, sha256 {sha[:16]}…",
                        figure("search CPU", cpu, "s", command, look_up_below=below, **about),
                        figure("search wall", wall, "s", command, look_up_below=below, **about))
        on_disk.LOOK_UP_BELOW = default
        folder = tmp / "work"
        shutil.rmtree(folder, ignore_errors=True)
        search = Timed(position, rules, work_folder.Disk(folder, threads=args.threads), memory)
        search.run()
        search.remove()
        report.line("  each layer's merge less the group's files, CPU s (both ways, same files):")
        report.line("  layer  successors  group keys  new  merged  index  looked-up  (the search "
                    f"looks up where successors <= {default:g} x group keys)")
        for layer, asked, group, new, merged, index, looked in layers:
            report.line(f"  {layer:5d} {asked:11,d} {group:11,d} {new:9,d} {merged:7.4f} "
                        f"{index:6.4f} {looked:9.4f}")
        few = [r for r in layers if r[1] <= default * r[2]]
        report.line(f"  layers looked up: {len(few)} of {len(layers)}; their merges "
                    f"{sum(r[4] for r in few):.3f} s CPU, their lookups "
                    f"{sum(r[6] for r in few):.3f} s (+ {sum(r[5] for r in few):.3f} s of "
                    f"indexes, each read once a file in the search)",
                    figure("tail merges CPU", sum(r[4] for r in few), "s", "merge()", **about),
                    figure("tail lookups CPU", sum(r[6] for r in few), "s", "merge_looked()",
                           **about))
    finally:
        on_disk.LOOK_UP_BELOW = default
        shutil.rmtree(tmp, ignore_errors=True)


def far(args, report):
    rules = Rules(args.cells, autoplay=args.autoplay)
    position = start(deal(args.far))
    folder = Path(tempfile.mkdtemp(prefix="bench-external-far-", dir=args.tmp))
    try:
        import resource
        search, outcome, seconds, watch = run_on_disk(position, rules, memory_size(args.memory_far),
                                                  folder / "work", args.minutes * 60, report,
                                                  args.threads)
        usage = resource.getrusage(resource.RUSAGE_SELF)
        cpu = usage.ru_utime + usage.ru_stime
        n, peak = outcome.positions, watch.peak
        resident = usage.ru_maxrss / 1024 ** 2
        disk = (f"on_disk.DiskSearch(start(deal({args.far})), memory={args.memory_far})"
                f".run(time_limit={args.minutes * 60:g})")
        about = dict(deal=args.far, cells=rules.ncells, memory=args.memory_far,
                     verdict=outcome.verdict, closure="autoplay" if rules.autoplay else "moves")
        report.line(f"deal {args.far} on disk, --memory {args.memory_far}, {seconds / 60:.1f} "
                    f"min ({cpu / 60:.1f} min of CPU, peak {resident:.1f} GiB): "
                    f"{n:,} positions ({n / seconds:,.0f}/s, {n / cpu:,.0f} per CPU second), "
                    f"most home {outcome.most_home}, {search.where()}; disk at most "
                    f"{size_text(peak)} ({peak / max(watch.at_peak, 1):.1f} bytes a position "
                    f"then), {size_text(peak / (seconds / 60))} a minute to its peak; "
                    f"{outcome.verdict}",
                    figure("wall", seconds, "s", disk, **about),
                    figure("CPU", cpu, "s", disk, **about),
                    figure("peak memory", resident, "GiB", disk, **about),
                    figure("positions", n, "positions", disk, **about),
                    figure("positions a CPU second", n / cpu, "positions/s", disk, **about),
                    figure("most home", outcome.most_home, "cards", disk, **about),
                    figure("disk at most", peak, "bytes", disk, **about),
                    figure("disk a position at its peak", peak / max(watch.at_peak, 1),
                           "bytes/position", disk, **about))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--deal", type=int, default=7484159)
    p.add_argument("--cells", type=int, default=4)
    p.add_argument("--autoplay", action="store_true",
                   help="close under every move then safe moves home (certify's default)")
    p.add_argument("--foundation-moves", action="store_true")
    p.add_argument("--fixed-columns", action="store_true")
    p.add_argument("--threads", type=int, default=1,
                   help="threads of the search on disk's sorts and merges (default 1)")
    p.add_argument("--tail", action="store_true",
                   help="a group's last layers: lookups by block index against merges")
    p.add_argument("--memory", default="16M,64M,256M")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--far", type=int, help="how far this deal gets on disk in --minutes")
    p.add_argument("--minutes", type=float, default=15)
    p.add_argument("--memory-far", default="16G")
    p.add_argument("--tmp", default=None, help="where --far's work folder goes")
    add_json_option(p)
    args = p.parse_args()
    if not on_disk.available():
        raise SystemExit("the search on disk is not built (certify.engine._external)")
    report = Report("bench_external", args.json)
    if args.tail:
        args.memory = args.memory if args.memory != "16M,64M,256M" else "8M"
        tail(args, report)
    else:
        far(args, report) if args.far else compare(args, report)


if __name__ == "__main__":
    main()
