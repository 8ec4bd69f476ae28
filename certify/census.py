"""A census: prove every deal in a range, one after another or many at once.

    certify A-B [-j N] [--out DIR] [--scheduler ADDRESS] ...

Each deal gets its certificate DIR/N.msgpack.zst and one row in DIR/results.jsonl: the keys of
`certify --json`, with `path` relative to DIR (so the folder can move), `seconds` the deal's
wall time (solver, search and writing) and `moves` its solution length in single-card moves.

Only this process writes the table, one flushed line per finished deal, so a `kill -9` loses
at most the deals in flight; rerunning the same command reads the table back (cutting away a
torn last line), skips what is done and proves the rest. At the end the table is rewritten in
deal order, so a finished census has the same table bytes whatever -j, the backend or the
interruptions, except for `seconds` (and for verdicts that depend on --time-limit).

DIR/census.json records the rules; a census folder is never resumed under other rules.
"""

import fcntl
import json
import os
import re
import signal
import sys
import tempfile
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass
from itertools import islice

from . import deals, output
from .cli import EXIT_BAD_INPUT, EXIT_OK, EXIT_UNKNOWN, Parser, Usage, add_rule_options
from .prove import NO_WIN, UNKNOWN, WIN, Result, prove
from .rules import Rules, start
from .engine import solve  # the engine in use (certify/engine/)

RANGE = re.compile(r"^(\d+)-(\d+)$")
TABLE, SETTINGS = "results.jsonl", "census.json"
EXIT_FAILED, EXIT_INTERRUPTED = 1, 130


def deal_range(text):
    """'A-B' -> range(A, B + 1), every deal a valid deal number."""
    m = RANGE.match(text)
    if not m:
        raise Usage(f"not a range of deals: {text!r} (write A-B, e.g. 1-32000)")
    a, b = int(m[1]), int(m[2])
    if not 1 <= a <= b <= deals.MAX_DEAL:
        raise Usage(f"bad range {text}: need 1 <= A <= B <= {deals.MAX_DEAL}")
    return range(a, b + 1)


def certificate_name(deal):
    return f"{deal}.msgpack.zst"


# The work of one deal. These run in worker processes (local or Dask), so they take and
# return only plain, picklable values.

@dataclass(frozen=True)
class Settings:
    cells: int
    fixed_columns: bool
    foundation_moves: bool
    max_positions: int = None
    time_limit: float = None

    def rules(self):
        return Rules(self.cells, self.fixed_columns, self.foundation_moves)

    def recorded(self):
        """What census.json keeps: the rules, which a census must not change midway.
        The budgets may change from run to run (they only decide what stays unknown)."""
        return {"cells": self.cells, "fixed_columns": self.fixed_columns,
                "foundation_moves": self.foundation_moves}


def prove_deal(deal, settings, folder):
    """Prove one deal, writing its certificate into `folder`; its row of the results table."""
    t0 = time.monotonic()
    rules = settings.rules()
    out = os.path.join(folder, certificate_name(deal))
    try:
        result = prove(start(deals.deal(deal)), rules, deal, out, settings.max_positions,
                       settings.time_limit, solver=lambda position: solve(position, rules))
    except (OverflowError, MemoryError, RecursionError) as e:  # out of room: no verdict, say why
        result = Result(UNKNOWN, 0, 0.0, 0, reason=f"{type(e).__name__}: {e}")
    except Exception as e:  # a bug: stop the census (its parent says which deal)
        raise DealFailed(f"deal {deal}: {type(e).__name__}: {e}") from e
    row = result.as_json(deal)
    row["path"] = certificate_name(deal) if result.path else None
    row["seconds"] = round(time.monotonic() - t0, 3)
    return row


class DealFailed(RuntimeError):
    pass


def prove_deal_remote(deal, settings):
    """For a Dask worker, which need not share our disk: (row, certificate bytes or None)."""
    with tempfile.TemporaryDirectory(prefix="census-") as scratch:
        row = prove_deal(deal, settings, scratch)
        if row["path"] is None:
            return row, None
        with open(os.path.join(scratch, row["path"]), "rb") as f:
            return row, f.read()


def worker_setup():
    """Workers leave Ctrl-C to the parent, and die with it (even after a kill -9): otherwise an
    orphan would go on proving a deal nobody waits for, then wait for work forever."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = os.getppid()

    def watch():
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


# Backends: each yields (row, certificate bytes or None) in the order deals finish.
# Only a few deals per worker are queued at a time, so a range of millions costs nothing.

def in_process(todo, settings, folder):
    for deal in todo:
        yield prove_deal(deal, settings, folder), None


def process_pool(todo, settings, folder, jobs):
    todo = iter(todo)
    pool = ProcessPoolExecutor(jobs, initializer=worker_setup)
    try:
        pending = {pool.submit(prove_deal, d, settings, folder) for d in islice(todo, 2 * jobs)}
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                yield future.result(), None
            pending |= {pool.submit(prove_deal, d, settings, folder)
                        for d in islice(todo, len(done))}
        pool.shutdown()
    except BaseException:
        # Interrupted or a worker died: stop the others now rather than let them finish.
        stop = getattr(pool, "terminate_workers", None)  # Python 3.14+
        if stop is not None:
            stop()
        else:
            for process in list((getattr(pool, "_processes", None) or {}).values()):
                process.terminate()
        pool.shutdown(wait=True, cancel_futures=True)
        raise


def dask_client(address):
    try:
        import distributed
    except ImportError:
        raise Usage("--scheduler needs Dask: pip install '.[dask]'") from None
    try:
        # How long to try is Dask's setting distributed.comm.timeouts.connect (30 s).
        return distributed.Client(address, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as e:
        raise Usage(f"cannot reach the Dask scheduler at {address}: {e}") from None


def on_dask(todo, settings, client):
    from distributed import as_completed
    todo = iter(todo)
    # Enough queued for every worker, including workers that join later; the scheduler need
    # not hold a million tasks at once.
    width = max(256, 4 * sum(client.nthreads().values()))

    def submit(deal):
        return client.submit(prove_deal_remote, deal, settings, pure=False)

    running = as_completed([submit(d) for d in islice(todo, width)], loop=client.loop)
    for future in running:
        row, data = future.result()
        future.release()
        yield row, data
        for d in islice(todo, 1):
            running.add(submit(d))


# The census folder and its results table.

def open_folder(folder, settings):
    """Create or reopen a census folder; hold its lock while the census runs.

    Returns the open, locked census.json: one census at a time may write a folder."""
    if os.path.exists(folder) and not os.path.isdir(folder):
        raise Usage(f"--out {folder} exists and is not a folder")
    settings_path = os.path.join(folder, SETTINGS)
    wanted = settings.recorded()
    if os.path.isfile(settings_path):
        try:
            with open(settings_path, encoding="utf-8") as f:
                recorded = json.load(f)
        except (OSError, ValueError) as e:
            raise Usage(f"cannot read {settings_path}: {e}") from None
        if recorded != wanted:
            raise Usage(f"{folder} holds a census under other rules ({describe_rules(recorded)}); "
                        f"use another --out")
    elif os.path.isdir(folder) and os.listdir(folder):
        raise Usage(f"--out {folder} is not empty and holds no census ({SETTINGS} is missing)")
    else:
        os.makedirs(folder, exist_ok=True)
        text = json.dumps(wanted, sort_keys=True, indent=1) + "\n"
        output.write_atomic(settings_path, text.encode())
    lock = open(settings_path, "rb")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        lock.close()
        raise Usage(f"another census is writing to {folder}") from None
    # What a worker killed mid-write leaves behind (output.write_atomic's temporaries).
    for name in os.listdir(folder):
        if name.startswith(".tmp-"):
            os.unlink(os.path.join(folder, name))
    return lock


def describe_rules(recorded):
    try:
        return (f"{recorded['cells']} free cells"
                + (", fixed columns" if recorded["fixed_columns"] else "")
                + (", foundation moves" if recorded["foundation_moves"] else ""))
    except (TypeError, KeyError):
        return "unreadable"


def read_table(path):
    """The rows of a results table by deal, cutting away a torn last line.

    Only the last line can be torn (rows are appended whole, one write each); anything wrong
    before it means the table is not ours, and that is an error, not something to repair."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return {}
    whole, _, torn = data.rpartition(b"\n")  # `torn`: what follows the last newline
    lines = whole.split(b"\n") if whole else []
    rows = {}
    keep = 0  # bytes of whole, good rows
    for number, line in enumerate(lines, 1):
        try:
            row = json.loads(line)
            if not (isinstance(row, dict) and type(row.get("deal")) is int
                    and row.get("verdict") in (WIN, NO_WIN, UNKNOWN)):
                raise ValueError("not a result row")
        except ValueError:
            if number == len(lines) and not torn:  # a last line garbled by a crash
                break
            raise Usage(f"{path} line {number} is not a result row; not resuming") from None
        if row["deal"] in rows:
            raise Usage(f"{path} has two rows for deal {row['deal']} (line {number})")
        rows[row["deal"]] = row
        keep += len(line) + 1
    if keep < len(data):
        with open(path, "r+b") as f:
            f.truncate(keep)
    return rows


def table_line(row):
    return json.dumps(row) + "\n"


def write_sorted(path, rows):
    output.write_atomic(path, "".join(table_line(rows[d]) for d in sorted(rows)).encode())


# Progress and summary.

class Progress:
    """One line on stderr, redrawn at most a few times a second."""

    def __init__(self, total, counts, enabled):
        self.total, self.counts, self.enabled = total, counts, enabled
        self.done_before = sum(counts.values())
        self.t0 = self.drawn = time.monotonic()

    def update(self):
        now = time.monotonic()
        if self.enabled and now - self.drawn >= 0.2:
            self.draw(now)

    def draw(self, now):
        self.drawn = now
        done = sum(self.counts.values())
        rate = (done - self.done_before) / (now - self.t0) if now > self.t0 else 0.0
        eta = clock((self.total - done) / rate) if rate else "?"
        c = self.counts
        bar = "#" * (20 * done // self.total)
        print(f"\r  [{bar:20}] {done:,}/{self.total:,} {100 * done / self.total:5.1f}%  "
              f"{rate:,.1f} deals/s  ETA {eta}  | {c[WIN]:,} won, {c[NO_WIN]:,} no win, "
              f"{c[UNKNOWN]:,} unknown ", end="", file=sys.stderr, flush=True)

    def close(self):
        if self.enabled:
            self.draw(time.monotonic())
            print(file=sys.stderr)


def clock(seconds):
    seconds = int(seconds)
    h, m, s = seconds // 3600, seconds // 60 % 60, seconds % 60
    return f"{h}h{m:02d}m" if h else f"{m}m{s:02d}s"


def listed(numbers, most=20):
    if not numbers:
        return ""
    shown = ", ".join(str(n) for n in numbers[:most])
    more = f", and {len(numbers) - most:,} more" if len(numbers) > most else ""
    return f" ({shown}{more})"


def summary(span, rows):
    got = [rows[d] for d in span if d in rows]
    by = {v: [r["deal"] for r in got if r["verdict"] == v] for v in (WIN, NO_WIN, UNKNOWN)}
    return {"deals": len(span), "done": len(got), "won": len(by[WIN]),
            "no_win": len(by[NO_WIN]), "unknown": len(by[UNKNOWN]),
            "no_win_deals": by[NO_WIN], "unknown_deals": by[UNKNOWN]}


def summary_line(s):
    head = f"{s['deals']:,} deal{'' if s['deals'] == 1 else 's'}"
    return (f"{head}: {s['won']:,} won, {s['no_win']:,} no win"
            f"{listed(s['no_win_deals'])}, {s['unknown']:,} unknown{listed(s['unknown_deals'])}")


# The command.

def census_parser():
    p = Parser(
        prog="certify A-B",
        description="Prove every deal from A to B: a certificate for each in DIR and one row "
                    f"per deal in DIR/{TABLE}. Rerun the same command to resume.",
        epilog="Exit codes: 0 every deal won or not winnable, 3 some deal unknown (a budget ran "
               "out), 2 bad input, 1 a worker failed (rerun to resume), 130 interrupted.")
    p.add_argument("range", metavar="A-B", help="deals A to B, e.g. 1-32000")
    p.add_argument("-j", "--jobs", type=int, metavar="N",
                   help="worker processes (default: one per core)")
    p.add_argument("--out", metavar="DIR", help="census folder (default census-A-B)")
    add_rule_options(p)
    p.add_argument("--max-positions", type=int, metavar="N",
                   help="per deal: give up (verdict unknown) after N positions")
    p.add_argument("--time-limit", type=float, metavar="SECONDS",
                   help="per deal: give up (verdict unknown) after this many seconds of search")
    p.add_argument("--retry-unknown", action="store_true",
                   help="prove again the deals that the table has as unknown "
                        "(e.g. with a bigger budget)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="run on the Dask cluster whose scheduler is at ADDRESS "
                        "(pip install '.[dask]')")
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    return p


def run_census(argv):
    args = census_parser().parse_args(argv)
    span = deal_range(args.range)
    if args.jobs is not None and args.jobs < 1:
        raise Usage(f"-j {args.jobs}: need at least one worker")
    if args.jobs is not None and args.scheduler:
        raise Usage("-j and --scheduler do not go together: the Dask cluster has its own workers")
    if args.max_positions is not None and args.max_positions < 1:
        raise Usage("--max-positions must be at least 1")
    if args.time_limit is not None and not args.time_limit > 0:
        raise Usage("--time-limit must be positive")
    settings = Settings(args.cells, args.fixed_columns, args.foundation_moves,
                        args.max_positions, args.time_limit)
    folder = args.out or f"census-{span.start}-{span.stop - 1}"
    client = dask_client(args.scheduler) if args.scheduler else None
    try:
        lock = open_folder(folder, settings)
        try:
            return run(span, settings, folder, args, client)
        finally:
            lock.close()
    finally:
        if client is not None:
            client.close()


def run(span, settings, folder, args, client):
    t0 = time.monotonic()
    path = os.path.join(folder, TABLE)
    rows = read_table(path)
    if args.retry_unknown:
        rows = {d: r for d, r in rows.items() if not (d in span and r["verdict"] == UNKNOWN)}
        write_sorted(path, rows)
    todo = (d for d in span if d not in rows)
    counts = {v: 0 for v in (WIN, NO_WIN, UNKNOWN)}
    for d in span:
        if d in rows:
            counts[rows[d]["verdict"]] += 1
    jobs = args.jobs or len(os.sched_getaffinity(0))
    if client is not None:
        finished = on_dask(todo, settings, client)
    elif jobs == 1:
        finished = in_process(todo, settings, folder)
    else:
        finished = process_pool(todo, settings, folder, jobs)
    progress = Progress(len(span), counts, not args.quiet and sys.stderr.isatty())
    proved = 0
    try:
        with open(path, "a", encoding="utf-8") as table:
            for row, data in finished:
                if data is not None:  # from a Dask worker: we write the certificate here
                    output.write_atomic(os.path.join(folder, row["path"]), data)
                table.write(table_line(row))
                table.flush()
                rows[row["deal"]] = row
                counts[row["verdict"]] += 1
                proved += 1
                progress.update()
    except KeyboardInterrupt:
        progress.close()
        print(f"certify: interrupted; {proved:,} deals proved in this run are in {path}; "
              f"run the same command again to resume", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as e:  # a deal failed, a worker died, the disk is full...: keep what is done
        progress.close()
        why = str(e) if isinstance(e, DealFailed) else f"{type(e).__name__}: {e}"
        print(f"certify: census stopped: {why}; the {len(rows):,} rows in {path} are kept; "
              f"run the same command again to resume", file=sys.stderr)
        return EXIT_FAILED
    progress.close()
    write_sorted(path, rows)
    s = summary(span, rows)
    seconds = time.monotonic() - t0
    if args.json:
        print(json.dumps({**s, "results": path, "proved": proved, "seconds": round(seconds, 3)}))
    else:
        print(summary_line(s))
        if not args.quiet:
            rate = f", {proved / seconds:,.1f} deals/s" if proved and seconds > 0 else ""
            print(f"  {proved:,} deals proved in this run in {seconds:.1f} s{rate}; "
                  f"results in {path}", file=sys.stderr)
    return EXIT_UNKNOWN if s["unknown"] else EXIT_OK


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        return run_census(argv)
    except Usage as e:
        print(f"certify: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("\ncertify: interrupted; run the same command again to resume", file=sys.stderr)
        return EXIT_INTERRUPTED
