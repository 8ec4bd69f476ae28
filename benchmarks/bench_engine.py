"""Benchmark: the engine side by side with Freecell Solver, in one run.

    python benchmarks/bench_engine.py [--runs 7]         11982 whole process, search alone,
                                                         7484159 peak memory
    python benchmarks/bench_engine.py --levels           zstd levels on 11982's records
    python benchmarks/bench_engine.py --grid             a grid of zstd parameters, and the ids'
                                                         bytes in another plane order (11982)
    python benchmarks/bench_engine.py --parts            11982's run part by part, in process
    python benchmarks/bench_engine.py --order            the cost of proved()'s order of work
    python benchmarks/bench_engine.py --regenerate       certificates/regenerate.py --all, timed
    python benchmarks/bench_engine.py --census [N]       certify 1-N -j 2 beside
                                                         freecell-solver-range-parallel-solve
    python benchmarks/bench_engine.py --memory           the least --memory each of a few deals
                                                         is proved within, beside its peak
    ... --json                                           any of these: one JSON object a line
                                                         per figure (benchmarks/report.py)

Whole-process figures run the command as a user would (Python start-up and imports included),
alternating certify and fc-solve run by run, and give medians and the median of the pairwise
ratios: the machine is shared and its speed drifts, so only ratios taken side by side mean much.
Installs nothing: Freecell Solver comes from Debian (`apt-get install freecell-solver-bin`);
without it the fc-solve columns are left out.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from report import Report, add_json_option, figure  # noqa: E402

from certify import engine  # noqa: E402
from certify.game.deals import deal  # noqa: E402
from certify.game.rules import Rules, start  # noqa: E402

# The command as a user types it: the `certify` script installed beside this Python (python -m
# certify, where there is none, costs runpy's few milliseconds more).
SCRIPT = Path(sys.executable).parent / "certify"
CERTIFY = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "certify"]
FC_SOLVE = "fc-solve"
FC_RANGE = "freecell-solver-range-parallel-solve"
HOW_TO_GET = "(apt-get install freecell-solver-bin)"


# A user's Python keeps the compiled bytecode of certify's modules (pip writes it at install,
# Python on first import). Where the environment says PYTHONDONTWRITEBYTECODE (some CI and
# sandbox images do), every start would compile certify's ~40 modules from source again: a
# fifth of the instructions of `certify 11982`. The warm-up run below writes it as a user's first
# run does.
ENVIRONMENT = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def run(argv, cwd=None):
    """(wall seconds, peak resident MiB) of one whole process; its output is thrown away."""
    t0 = time.perf_counter()
    child = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             env=ENVIRONMENT)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - t0
    child.returncode = os.waitstatus_to_exitcode(status)
    err = child.stderr.read().decode(errors="replace")
    child.stderr.close()
    if child.returncode not in (0, 3):
        raise SystemExit(f"{' '.join(map(str, argv))} failed ({child.returncode}): {err.strip()}")
    return wall, usage.ru_maxrss / 1024


def side_by_side(a, b, runs):
    """Alternate a and b; (median wall of a, of b, median of the pairwise ratios a/b)."""
    run(a), run(b)  # warm the caches, and Python's bytecode
    walls_a, walls_b, ratios = [], [], []
    for _ in range(runs):
        wa, wb = run(a)[0], run(b)[0]
        walls_a.append(wa)
        walls_b.append(wb)
        ratios.append(wa / wb)
    med = statistics.median
    return med(walls_a), med(walls_b), med(ratios)


def median_time(f, runs):
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def board_file(number, folder):
    path = Path(folder) / f"{number}.board"
    from certify.game.board import write_board
    path.write_text(write_board(start(deal(number))))
    return str(path)


def main_figures(args, report):
    have_fc = shutil.which(FC_SOLVE) is not None
    report.text(f"engine: {engine.describe()}")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "11982.msgpack.zst")
        certify = CERTIFY + ["11982", "-q", "-o", out]
        fc = [FC_SOLVE, "-to", "01ABCDE", "-sel", board_file(11982, tmp)]
        position, rules = start(deal(11982)), Rules(4)
        search = median_time(lambda: engine.search(position, rules), args.runs)
        whole = "certify 11982 -q -o FILE"
        alone = "engine.search(start(deal(11982)), Rules(4))"
        fc_said = "fc-solve -to 01ABCDE -sel 11982.board"
        if have_fc:
            ours, theirs, ratio = side_by_side(certify, fc, args.runs)
            report.line(f"certify 11982 (whole process)   median {ours:.3f} s   "
                        f"fc-solve -to 01ABCDE -sel: {theirs:.3f} s   ratio {ratio:.2f}x  "
                        f"(target <= 1.0)",
                        figure("whole process wall", ours, "s", whole, args.runs,
                               versus=fc_said, versus_value=theirs, ratio=ratio,
                               ratio_of="median of pairs"))
            report.line(f"exhaustive search alone         median {search:.3f} s   "
                        f"ratio {search / theirs:.2f}x fc-solve  (target <= 0.3)",
                        figure("exhaustive search alone", search, "s", alone, args.runs,
                               versus=fc_said, versus_value=theirs, ratio=search / theirs))
        else:
            ours = statistics.median(run(certify)[0] for _ in range(args.runs))
            report.line(f"certify 11982 (whole process)   median {ours:.3f} s   "
                        f"(no fc-solve here {HOW_TO_GET})",
                        figure("whole process wall", ours, "s", whole, args.runs))
            report.line(f"exhaustive search alone         median {search:.3f} s",
                        figure("exhaustive search alone", search, "s", alone, args.runs))
        writes = []
        for _ in range(args.runs):
            outcome = engine.search(position, rules)
            t0 = time.perf_counter()
            engine.no_win_body(outcome, rules)
            writes.append(time.perf_counter() - t0)
        report.line(f"  writing the body (renumber, sort, planes) median "
                    f"{statistics.median(writes):.3f} s; {outcome.positions:,} positions",
                    figure("writing the body", statistics.median(writes), "s",
                           "engine.no_win_body (11982)", args.runs),
                    figure("positions", outcome.positions, "positions", alone))
        peak_out = os.path.join(tmp, "7484159.msgpack.zst")
        wall, peak = run(CERTIFY + ["7484159", "-q", "-o", peak_out])
        size = os.path.getsize(peak_out)
        big = "certify 7484159 -q -o FILE"
        report.line(f"certify 7484159                 {wall:.1f} s wall, peak {peak:.0f} MiB "
                    f"(target <= 400), {size:,} bytes",
                    figure("whole process wall", wall, "s", big, deal=7484159),
                    figure("peak memory", peak, "MiB", big, deal=7484159),
                    figure("certificate", size, "bytes", big, deal=7484159))


def parts(args, report):
    """Where a `certify 11982` run goes, part by part, in this process (medians): the solver's
    first attempt, the bounded search, both at once on two threads (as certify DEAL runs
    them), the writer, zstd; and the start-up of a process that only imports certify."""
    from certify.format import writer
    from certify.run.prove import SEARCH_FIRST, SOLVER_FIRST
    position, rules = start(deal(11982)), Rules(4)
    med = statistics.median

    def timed(f):
        times = []
        for _ in range(args.runs):
            t0 = time.perf_counter()
            f()
            times.append(time.perf_counter() - t0)
        return med(times) * 1000

    def together():   # (as proved() overlaps them: the search in the Background, the solver here)
        running = engine.Background(engine.Search(position, rules), SEARCH_FIRST)
        if engine.solve_line(position, rules, SOLVER_FIRST) is not None:
            running.stop()
        running.outcome()

    bodies = []

    def write():
        outcome = engine.search(position, rules)
        t0 = time.perf_counter()
        bodies.append(engine.no_win_body(outcome, rules))
        return time.perf_counter() - t0

    def part(text, measure, ms, call):   # (text: the label and the spaces after it)
        report.line(f"  {text}{ms:6.1f}", figure(measure, ms, "ms", call, args.runs, deal=11982))

    report.text(f"11982 in process, ms, median of {args.runs}:")
    part(f"solver's first attempt ({SOLVER_FIRST:,})  ", "solver's first attempt",
         timed(lambda: engine.solve(position, rules, SOLVER_FIRST)),
         f"engine.solve(position, rules, {SOLVER_FIRST})")
    part(f"bounded search ({SEARCH_FIRST:,})           ", "bounded search",
         timed(lambda: engine.search(position, rules, SEARCH_FIRST)),
         f"engine.search(position, rules, {SEARCH_FIRST})")
    part("both at once (two threads)          ", "solver and search at once", timed(together),
         "engine.Background and engine.solve_line")
    part("writer (renumber, sort, planes)     ", "writer",
         med(write() for _ in range(args.runs)) * 1000, "engine.no_win_body")
    head = writer.header("no-win", 11982, None, rules, 83_239, bodies[-1])
    part("zstd, certify's settings (fresh)    ", "zstd, certify's settings, fresh compressor",
         timed(lambda: writer.encode_file(head, bodies[-1], fresh=True)),
         "writer.encode_file(head, body, fresh=True)")
    imports = [sys.executable, "-c", "import certify.commands.cli, certify.run.prove, certify.engine"]
    bare = [sys.executable, "-c", "pass"]
    ours, theirs, ratio = side_by_side(imports, bare, args.runs)
    report.line(f"  python -c 'import certify...'       {ours * 1000:6.1f}  (python -c pass: "
                f"{theirs * 1000:.1f})",
                figure("start-up with certify's imports", ours * 1000, "ms",
                       "python -c 'import certify.commands.cli, certify.run.prove, certify.engine'", args.runs,
                       versus="python -c pass", versus_value=theirs * 1000, ratio=ratio,
                       ratio_of="median of pairs"))


def content_11982():
    """(11982's certificate content before zstd: header then body, its positions, the header,
    the body)."""
    import msgpack
    from certify.format import writer
    position, rules = start(deal(11982)), Rules(4)
    outcome = engine.search(position, rules)
    body = engine.no_win_body(outcome, rules)
    head = writer.header("no-win", 11982, None, rules, outcome.positions, body)
    content = msgpack.packb(head, use_bin_type=True) + body   # (the body values follow the header)
    return content, outcome.positions, head, body


def levels(args, report):
    import zstandard
    from certify.format import writer
    content, positions, _, _ = content_11982()
    report.text(f"11982: {positions:,} positions, content {len(content):,} bytes; "
                f"CPU seconds of one compress, median of {args.runs}")
    # Each compress by a new compressor, as the one file of `certify DEAL` has: a compressor
    # kept from call to call spares the making of its tables, which a real run pays.
    settings = [(f"level {level:2}", dict(level=level)) for level in (3, 9, 12, 14, 15, 16, 17, 19)]
    settings.append(("certify's", dict(compression_params=zstandard.ZstdCompressionParameters(
        write_content_size=True, write_checksum=False, **writer.ZSTD_SETTINGS))))
    for name, how in settings:
        if "level" in how:
            how = dict(how, write_checksum=False, write_content_size=True)
        times = []
        for _ in range(args.runs):
            t0 = time.process_time()
            z = zstandard.ZstdCompressor(**how).compress(content)
            times.append(time.process_time() - t0)
        call = f"zstandard.ZstdCompressor({name}).compress(11982's content)"
        report.line(f"  {name}: {len(z) / positions:.3f} bytes/position, "
                    f"{statistics.median(times) * 1000:.0f} ms",
                    figure("compressed a position", len(z) / positions, "bytes/position", call,
                           settings=name, deal=11982),
                    figure("compress CPU", statistics.median(times) * 1000, "ms", call,
                           args.runs, settings=name, deal=11982))


def grid(args, report):
    """For the 11982 target: every zstd parameter set of a grid on 11982's content, the fastest
    ones within 1.1 bytes a position; then the same records with the column ids' high
    bytes as planes before their low bytes (a layout format version 2 does not have)."""
    import itertools
    import msgpack
    import zstandard as zs
    content, positions, head, body = content_11982()
    limit = int(1.1 * positions)

    def best_of(data, runs, level=None, **params):   # (bytes, least CPU seconds of `runs` compresses)
        times = []
        for _ in range(runs):
            t0 = time.process_time()   # (a new compressor each time, as `certify DEAL` has one)
            compressor = (zs.ZstdCompressor(level=level, write_checksum=False, write_content_size=True)
                          if level else zs.ZstdCompressor(compression_params=zs.ZstdCompressionParameters(
                              write_content_size=True, write_checksum=False, **params)))
            size = len(compressor.compress(data))
            times.append(time.process_time() - t0)
        return size, min(times)

    found = []
    for strategy, window, chain, hashes, search, match, target in itertools.product(
            (zs.STRATEGY_LAZY, zs.STRATEGY_LAZY2, zs.STRATEGY_BTLAZY2), (17, 18, 19, 20), (16, 17, 18),
            (15, 16, 17, 18), (3, 4, 5, 6), (4, 5), (8, 16, 32)):
        params = dict(strategy=strategy, window_log=window, chain_log=chain, hash_log=hashes,
                      search_log=search, min_match=match, target_length=target)
        size, seconds = best_of(content, 2, **params)
        if size <= limit:
            found.append((seconds, size, params))
    found.sort(key=lambda f: f[:2])
    report.text(f"11982: {positions:,} positions; zstd parameter sets within 1.1 bytes a "
                f"position ({limit:,} bytes), fastest first (least CPU of 2 compresses):")
    names = {zs.STRATEGY_LAZY: "lazy", zs.STRATEGY_LAZY2: "lazy2", zs.STRATEGY_BTLAZY2: "btlazy2"}
    for seconds, size, params in found[:8]:
        said = dict(params, strategy=names[params["strategy"]])
        call = f"zstandard.ZstdCompressionParameters(**{said})"
        report.line(f"  {seconds * 1000:5.1f} ms  {size / positions:.4f} bytes/position  {said}",
                    figure("compress CPU", seconds * 1000, "ms", call, 2, "best",
                           parameters=said, deal=11982),
                    figure("compressed a position", size / positions, "bytes/position", call,
                           parameters=said, deal=11982))
    values = msgpack.Unpacker(raw=False)
    values.feed(body)
    table, *chunks = values   # (the body as the file holds it: the records in plane-coded chunks)
    n, at = positions, 4 + head["cells"]
    width = at + 16
    # all the records as one array of byte planes, as version 2 held them: plane j of every chunk
    records = b"".join(c[j * (len(c) // width):(j + 1) * (len(c) // width)]
                       for j in range(width) for c in chunks)
    if len(table) > 65536 or len(records) != n * width:
        report.text("  (ids are not 2 bytes wide here: no high/low layout)")
        return
    # planes: foundations and cells as they are, then each id's high byte, then each id's low byte
    order_hi_lo = list(range(at)) + list(range(at, at + 16, 2)) + list(range(at + 1, at + 16, 2))
    regrouped = b"".join(records[j * n:(j + 1) * n] for j in order_hi_lo)
    prefix = msgpack.packb(head, use_bin_type=True)
    for name, recs in (("version 2's planes", records), ("ids' high bytes, then low bytes", regrouped)):
        data = prefix + msgpack.packb(msgpack.packb([table, recs], use_bin_type=True), use_bin_type=True)
        sizes = [(level, *best_of(data, args.runs, level=level)) for level in (9, 11, 12, 13)]
        report.line(f"  {name}: " + ", ".join(f"level {level} {size / n:.4f} bytes/position "
                                              f"{seconds * 1000:.0f} ms"
                                              for level, size, seconds in sizes),
                    *[found for level, size, seconds in sizes for found in (
                        figure("compressed a position", size / n, "bytes/position",
                               f"zstd level {level} on {name}", layout=name, level=level),
                        figure("compress CPU", seconds * 1000, "ms", f"zstd level {level} on "
                               f"{name}", args.runs, "best", layout=name, level=level))])


def order(args, report):
    """What proved()'s order costs: on the unwinnable deals and on winnable ones."""
    from certify.run.prove import proved
    with open(ROOT / "certificates" / "deals.txt") as f:
        unwinnable = [int(x.split("#")[0]) for x in f if x.split("#")[0].strip()]
    sample = unwinnable[:: max(1, len(unwinnable) // args.sample)]
    for label, deals in (("unwinnable (sample of certificates/deals.txt)", sample),
                         ("winnable 1..%d" % args.sample, range(1, args.sample + 1))):
        t0 = time.perf_counter()
        for n in deals:
            proved(start(deal(n)), Rules(4))
        seconds = time.perf_counter() - t0
        report.line(f"{label}: {len(deals)} deals, {seconds:.2f} s, "
                    f"{seconds / len(deals) * 1000:.1f} ms a deal",
                    figure("proved() a deal", seconds / len(deals) * 1000, "ms",
                           f"proved(start(deal(n)), Rules(4)) for {label}", len(deals), "mean",
                           deals=len(deals), total_seconds=seconds))


def regenerate(args, report):
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, str(ROOT / "certificates" / "regenerate.py"), "--all",
                           "-j", "2"], cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    different = [line for line in done.stdout.splitlines() if "same" not in line.split("\t")[1:2]]
    report.line(f"certificates/regenerate.py --all -j 2: {wall / 60:.1f} min (target <= 5), "
                f"exit {done.returncode}, {len(different)} not reproduced",
                figure("wall", wall / 60, "min", "certificates/regenerate.py --all -j 2",
                       exit=done.returncode, not_reproduced=len(different)))
    for line in different[:10]:
        report.text("  " + line)


MEMORY_DEALS = (11982, 146692, 7484159)


def memory(args, report):
    """The least --memory (to 1 MiB) within which the compiled search proves each deal, found by
    bisection in this process, and the bytes a position it counts; beside the peak resident
    memory of the whole `certify DEAL` (Python and the solver's attempts included): what a
    budget means, and what a disk-backed search would have to beat."""
    position_rules = Rules(4)
    mib = 1 << 20
    with tempfile.TemporaryDirectory() as tmp:
        # (first: a child forked from this process once it holds the searches below would
        # count its pages in the child's peak until it execs)
        peaks = {number: run(CERTIFY + [str(number), "-q", "-o", os.path.join(tmp, "x.zst")])[1]
                 for number in MEMORY_DEALS}
    for number in MEMORY_DEALS:
        position = start(deal(number))
        whole = engine.search(position, position_rules)
        low, high = 1, 64 * 1024   # MiB: stopped at low, proved at high
        while high - low > 1:
            mid = (low + high) // 2
            outcome = engine.search(position, position_rules, memory=mid * mib)
            if outcome.verdict == whole.verdict:
                high = mid
            else:
                low = mid
        with tempfile.TemporaryDirectory() as tmp:
            stopped = run(CERTIFY + [str(number), "-q", "--memory", f"{low}M", "-o",
                                     os.path.join(tmp, "y.zst")])
        bisected = f"engine.search(start(deal({number})), Rules(4), memory=M)"
        report.line(f"{number}: {whole.positions:,} positions; proved within --memory {high}M "
                    f"({high * mib / whole.positions:.0f} bytes a position), UNKNOWN at {low}M "
                    f"(exit 3 in {stopped[0]:.1f} s); certify {number} peaks at "
                    f"{peaks[number]:.0f} MiB",
                    figure("least --memory", high, "MiB", bisected, statistic="bisection",
                           deal=number, positions=whole.positions),
                    figure("least --memory a position", high * mib / whole.positions,
                           "bytes/position", bisected, statistic="bisection", deal=number),
                    figure("peak memory", peaks[number], "MiB", f"certify {number} -q -o FILE",
                           deal=number))


def census(args, report):
    n = args.census
    ours_said = f"certify 1-{n} -j 2 -q --out DIR"
    theirs_said = f"{FC_RANGE} 1 {n} 1000 -l lg"
    with tempfile.TemporaryDirectory() as tmp:
        ours, peak = run(CERTIFY + [f"1-{n}", "-j", "2", "-q", "--out", os.path.join(tmp, "c")])
    # (both run before either line is printed, so that the wall figure carries its comparison)
    theirs = run([FC_RANGE, "1", str(n), "1000", "-l", "lg"])[0] if shutil.which(FC_RANGE) else None
    beside = {} if theirs is None else dict(versus=theirs_said, versus_value=theirs,
                                            ratio=ours / theirs)
    report.line(f"certify 1-{n} -j 2: {ours:.1f} s, peak {peak:.0f} MiB",
                figure("census wall", ours, "s", ours_said, deals=n, **beside),
                figure("census peak memory", peak, "MiB", ours_said, deals=n))
    if theirs is not None:
        report.text(f"{theirs_said}: {theirs:.1f} s; ratio {ours / theirs:.2f}x (target <= 2.0)")
    else:
        report.text(f"no {FC_RANGE} here {HOW_TO_GET}")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=7)
    p.add_argument("--levels", action="store_true")
    p.add_argument("--grid", action="store_true", help="zstd parameter sets and a plane order for 11982")
    p.add_argument("--parts", action="store_true", help="11982's run part by part, in process")
    p.add_argument("--order", action="store_true")
    p.add_argument("--sample", type=int, default=40, help="deals for --order")
    p.add_argument("--regenerate", action="store_true")
    p.add_argument("--census", type=int, nargs="?", const=32000, metavar="N")
    p.add_argument("--memory", action="store_true", help="the least --memory a few deals need")
    add_json_option(p)
    args = p.parse_args()
    report = Report("bench_engine", args.json)
    if args.levels:
        levels(args, report)
    elif args.grid:
        grid(args, report)
    elif args.parts:
        parts(args, report)
    elif args.order:
        order(args, report)
    elif args.regenerate:
        regenerate(args, report)
    elif args.census:
        census(args, report)
    elif args.memory:
        memory(args, report)
    else:
        main_figures(args, report)


if __name__ == "__main__":
    main()
