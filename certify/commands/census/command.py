"""The census command: `certify A-B [-j N] [--out DIR] [-o FILE] [--scheduler ADDRESS] ...`."""

import json
import multiprocessing
import os
import sys
import time

from ... import engine, output
from ...run import progress
from ...format import ranges
from ..options import (EXIT_BAD_INPUT, EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, EXIT_UNKNOWN,
                       Parser, Usage, add_budget_options, add_rule_options, deal_range,
                       default_memory, memory_size, positive_count)
from ...format.names import range_name
from ...outcome import UNKNOWN, VERDICTS
from . import chunks, work
from .folder import TABLE, Census, FolderError, open_folder, summary


def census_parser():
    p = Parser(
        prog="certify A-B",
        description="Prove every deal from A to B and write one range certificate for them all, "
                    "DIR/A-B.msgpack.zst (rules other than the defaults in its name, as for "
                    "single certificates). The work is kept in DIR, a chunk file per block of "
                    f"deals, with one row per deal in DIR/{TABLE}. Rerun the same command to "
                    "resume; on a finished census it writes the range certificate again. "
                    "`certify extract FILE DEAL` gives one deal's own certificate.",
        epilog="Exit codes: 0 every deal won or not winnable (the range certificate is written), "
               "3 some deal unknown (a budget ran out; no range certificate), 2 bad input, "
               "1 a worker failed (rerun to resume), 130 interrupted.")
    p.add_argument("range", metavar="A-B", help="deals A to B, e.g. 1-32000")
    p.add_argument("-j", "--jobs", type=positive_count, metavar="N",
                   help="worker processes (default: one per core)")
    p.add_argument("--out", metavar="DIR", help="census folder (default census-A-B)")
    p.add_argument("-o", "--output", metavar="PATH",
                   help="where to write the range certificate (default DIR/A-B.msgpack.zst)")
    add_rule_options(p)
    add_budget_options(p, scope="each deal's whole proof, the solver's attempt included")
    p.add_argument("--memory", type=memory_size, metavar="SIZE",
                   help="the memory each deal's exhaustive search may take, such as 500M "
                        "(default: three quarters of this machine's memory, shared among the "
                        "local workers; on a Dask cluster none, each worker's own memory "
                        "bounding it); past it the deal is unknown")
    p.add_argument("--retry-unknown", action="store_true",
                   help="prove again the deals that are unknown (e.g. with a bigger budget)")
    p.add_argument("--chunk", type=int, metavar="N",
                   help="deals per chunk file, and at most per task (default 1000; a census "
                        "folder keeps the size it was begun with)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="run on the Dask cluster whose scheduler is at ADDRESS "
                        "(pip install '.[dask]')")
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    return p


def run_census(argv):
    args = census_parser().parse_args(argv)
    span = deal_range(args.range)
    if args.jobs is not None and args.scheduler:
        raise Usage("-j and --scheduler do not go together: the Dask cluster has its own workers")
    if args.chunk is not None and not 1 <= args.chunk <= chunks.MAX_SIZE:
        raise Usage(f"--chunk must be 1 to {chunks.MAX_SIZE:,}")
    folder = args.out or f"census-{span.start}-{span.stop - 1}"
    settings = work.Settings(args.cells, args.fixed_columns, args.foundation_moves,
                             args.chunk or 1000, args.max_positions, args.time_limit,
                             autoplay=not args.no_autoplay)
    memory = memory_budget(args.memory, args.jobs or len(os.sched_getaffinity(0)), args.scheduler)
    name = range_name(span.start, span.stop - 1, settings.rules())
    target = os.path.join(folder, name) if args.output is None else output.target(args.output, name)
    client = dask_client(args.scheduler) if args.scheduler else None
    if not (args.quiet or args.json):
        engine.warn_if_slow()
    try:
        try:
            lock, recorded = open_folder(folder, settings.recorded(), args.chunk is not None)
        except FolderError as e:
            raise Usage(str(e)) from None
        try:
            settings = work.Settings(args.cells, args.fixed_columns, args.foundation_moves,
                                     recorded["chunk"], args.max_positions, args.time_limit,
                                     memory, not args.no_autoplay)
            try:
                census = Census(folder, recorded)
            except chunks.ChunkError as e:
                raise Usage(f"{folder} is damaged: {e}; not resuming") from None
            return run(census, span, settings, args, client, target)
        finally:
            lock.close()
    finally:
        if client is not None:
            client.close()


def memory_budget(given, jobs, scheduler):
    """The bytes each deal's search may take: --memory if given; else, on this machine, its
    default shared among the `jobs` local workers, which search at once; on a Dask cluster
    none, as this machine's memory says nothing of the workers'."""
    if given is not None or scheduler:
        return given
    share = default_memory()
    return None if share is None else share // jobs


def dask_client(address):
    try:
        import distributed
    except ImportError:
        raise Usage("--scheduler needs Dask: pip install '.[dask]'") from None
    check_address(address)
    try:
        # How long to try is Dask's setting distributed.comm.timeouts.connect (30 s).
        return distributed.Client(address, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as e:
        raise Usage(f"cannot reach the Dask scheduler at {address}: {e}") from None


def check_address(address):
    """Refuse a scheduler address that names no port (127.0.0.1, tcp://127.0.0.1, nonsense)
    before a Client is made: Dask's Client, given one, raises after starting a thread of its
    own that never ends, so that the process would hang at its exit."""
    from distributed.comm.addressing import parse_address, parse_host_port
    try:
        scheme, location = parse_address(address)
        if scheme in ("tcp", "tls", "ws", "wss"):
            parse_host_port(location)
    except (ValueError, TypeError) as e:
        raise Usage(f"--scheduler {address}: not an address with a port ({e}); "
                    f"e.g. tcp://127.0.0.1:8786") from None


def run(census, span, settings, args, client, target):
    t0 = time.monotonic()
    try:
        retried = set()
        if args.retry_unknown:
            retried = {d for d, v in census.verdicts(span) if v == UNKNOWN}
        census.rebuild_table(leave_out=retried)
        before = [0, 0, 0]
        for _, verdict in census.verdicts(span):
            before[VERDICTS.index(verdict)] += 1
        before[2] -= len(retried)
    except chunks.ChunkError as e:
        raise Usage(f"{census.folder} is damaged: {e}; not resuming") from None
    jobs = args.jobs or len(os.sched_getaffinity(0))
    workers = sum(client.nthreads().values()) if client is not None else jobs
    open_blocks = {}  # block -> [tasks still out, items so far]
    todo = work.tasks(census.todo(span, args.retry_unknown),
                      work.task_size(len(span), settings.chunk, workers), open_blocks)
    if client is not None:
        tally = [0, 0, 0]
        finished = work.on_dask(todo, settings, tally, client)
    elif jobs == 1:
        tally = [0, 0, 0]
        finished = work.in_process(todo, settings, tally)
    else:
        tally = multiprocessing.Array("q", 3)
        finished = work.process_pool(todo, settings, tally, jobs)
    counts = progress.counter(len(span), sum(before), args.quiet,
                              read=lambda: tallied(before, tally))
    kept = [0]  # deals of this run written to chunk files
    try:
        with open(census.table_path, "a", encoding="utf-8") as table:
            try:
                for k, items in finished:
                    waiting = open_blocks[k]
                    waiting[0] -= 1
                    waiting[1] += items
                    if not waiting[0]:  # the block's last task: write its chunk file
                        block_items = open_blocks.pop(k)[1]
                        census.commit(k, block_items, table)
                        kept[0] += len(block_items)
            except BaseException:
                # Stopped: the tasks that came back are proved, though their blocks are not
                # finished; a chunk file may hold part of a block, so they are kept too.
                keep_finished_tasks(census, open_blocks, table, kept)
                raise
    except KeyboardInterrupt:
        close(counts)
        print(f"certify: interrupted; {kept_words(kept[0], tally)} {census.folder}; "
              f"run the same command again to resume", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as e:  # a deal failed, a worker died, the disk is full...: keep what is done
        close(counts)
        why = str(e) if isinstance(e, work.DealFailed) else f"{type(e).__name__}: {e}"
        print(f"certify: census stopped: {why}; {kept_words(kept[0], tally)} {census.folder}; "
              f"run the same command again to resume", file=sys.stderr)
        return EXIT_FAILED
    close(counts)
    proved = sum(tally)
    try:
        census.rebuild_table()
        s = summary(census.verdicts(span), span)
        written = None
        if s["done"] == s["deals"] and not s["unknown"]:
            if not args.quiet:
                shown = "to standard output" if target == "-" else output.printable(target)
                print(f"  writing the range certificate {shown} ...", file=sys.stderr)
            size, sha = census.write_range(span, settings.rules(), target)
            written = {"range_certificate": target, "bytes": size, "sha256": sha}
    except (chunks.ChunkError, ranges.RangeError) as e:
        raise Usage(f"{census.folder} is damaged: {e}") from None
    except BrokenPipeError:  # -o - and the reader went away: said by cli.main
        raise
    except OSError as e:  # the disk is full, the folder went away...
        print(f"certify: cannot write the results: {e}; the finished chunks in "
              f"{census.folder} are kept; run the same command again", file=sys.stderr)
        return EXIT_FAILED
    seconds = time.monotonic() - t0
    report(s, written, census.table_path, proved, seconds, args,
           sys.stderr if target == "-" else sys.stdout)
    return EXIT_UNKNOWN if s["unknown"] else EXIT_OK


def keep_finished_tasks(census, open_blocks, table, kept):
    """Write the deals of the tasks that came back from blocks still open (a run stopped)."""
    for k in sorted(open_blocks):
        items = open_blocks[k][1]
        if items:
            census.commit(k, items, table)
            kept[0] += len(items)
            open_blocks[k][1] = []


def kept_words(kept, tally):
    """What a stopped run keeps, in words: the deals proved by tasks that came back (a task
    still running when the run stopped loses the deals it had proved)."""
    lost = sum(tally) - kept
    lost_words = "" if lost <= 0 else \
        f" ({lost:,} more, proved by tasks still running, {'is' if lost == 1 else 'are'} not)"
    return (f"{kept:,} deal{'' if kept == 1 else 's'} proved in this run "
            f"{'is' if kept == 1 else 'are'} kept{lost_words} in")


def tallied(before, tally):
    """(deals done, how they came out) for the progress line: `tally` is this run's [won, no
    win, unknown], counted by the workers as each deal finishes."""
    won, no_win, unknown = (b + tally[i] for i, b in enumerate(before))
    return won + no_win + unknown, f"{no_win:,} no win, {unknown:,} unknown"


def close(display):
    if display is not None:
        display.close()


def report(s, written, table, proved, seconds, args, said=None):
    """The summary, on `said` (stderr when the range certificate went to standard output)."""
    said = said or sys.stdout
    if args.json:
        output.say(json.dumps({**s, "results": table, "proved": proved,
                               "seconds": round(seconds, 3),
                               **(written or {"range_certificate": None, "bytes": None,
                                              "sha256": None})}), said)
        return
    lines = [summary_line(s)]
    if written:
        where = "written to standard output" if written["range_certificate"] == "-" else \
            output.printable(written["range_certificate"])
        lines.append(f"  range certificate {where} ({written['bytes']:,} bytes)\n"
                     f"  sha256 {written['sha256']}")
    else:
        lines.append(f"  no range certificate: {s['unknown']:,} deals unknown; rerun with a "
                     f"bigger budget and --retry-unknown")
    output.say("\n".join(lines), said)
    if not args.quiet:
        rate = f", {proved / seconds:,.1f} deals/s" if proved and seconds > 0 else ""
        line = f"  {proved:,} deals proved in this run in {seconds:.1f} s{rate}"
        where = f"results in {output.printable(table)}"
        fits = len(line) + 2 + len(where) <= WIDTH
        print(f"{line}; {where}" if fits else f"{line}\n  {where}", file=sys.stderr)


def listed(numbers, most=20):
    if not numbers:
        return ""
    shown = ", ".join(str(n) for n in numbers[:most])
    more = f", and {len(numbers) - most:,} more" if len(numbers) > most else ""
    return f" ({shown}{more})"


WIDTH = 80  # columns a summary's lines fit in


def summary_line(s):
    """The counts on one line, the deals that are not won listed in it when it fits in WIDTH
    columns; else listed on lines of their own below it."""
    head = f"{s['deals']:,} deal{'' if s['deals'] == 1 else 's'}"
    line = (f"{head}: {s['won']:,} won, {s['no_win']:,} no win"
            f"{listed(s['no_win_deals'])}, {s['unknown']:,} unknown{listed(s['unknown_deals'])}")
    if len(line) <= WIDTH:
        return line
    import textwrap
    lines = [f"{head}: {s['won']:,} won, {s['no_win']:,} no win, {s['unknown']:,} unknown"]
    for what, numbers in (("no win", s["no_win_deals"]), ("unknown", s["unknown_deals"])):
        if numbers:
            lines += textwrap.wrap(f"{what}: {listed(numbers)[2:-1]}", WIDTH,
                                   initial_indent="  ", subsequent_indent="    ")
    return "\n".join(lines)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        return run_census(argv)
    except (Usage, output.OutputError) as e:
        print(f"certify: {output.printable(e)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("\ncertify: interrupted; run the same command again to resume", file=sys.stderr)
        return EXIT_INTERRUPTED
