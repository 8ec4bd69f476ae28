"""The census's work: proving a chunk of deals, in this process, a process pool or on Dask.

A task is one block's deals still to prove (up to 1,000; fewer when the range is short, so
that every worker has some), so the cost of handing out a task is spread over many deals.
Tasks run in worker processes (local or Dask) and take and return only plain, picklable
values; only the parent writes files. Each backend yields (block, items) in the order tasks
finish, keeping only a few tasks per worker queued, so a range of millions costs nothing to
schedule.
"""

import json
import os
import signal
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass
from itertools import islice

from ...format import spec, writer
from ...game import deals
from ..options import result_json
from ...outcome import UNKNOWN, VERDICTS, WIN, Result
from ...run.prove import at_once, proved
from ...format.ranges import pack_entry
from ...game.rules import Rules, start
from .chunks import Item


@dataclass(frozen=True)
class Settings:
    cells: int
    fixed_columns: bool
    foundation_moves: bool
    chunk: int = 1000
    max_positions: int = None
    time_limit: float = None
    memory: int = None   # bytes each deal's search may take (None: no budget)
    autoplay: bool = False   # the no-wins' closure: every move, then safe moves home

    def rules(self):
        """The rules, made once (a census asks for them several times a deal)."""
        made = self.__dict__.get("_rules")
        if made is None:
            made = Rules(self.cells, self.fixed_columns, self.foundation_moves, self.autoplay)
            object.__setattr__(self, "_rules", made)  # (frozen: not a field, not compared)
        return made

    def recorded(self):
        """What census.json and every chunk file keep, which a census must not change midway:
        the rules, the block size, and the certificate body version of the entries. The
        budgets may change from run to run (they only decide what stays unknown)."""
        return {"cells": self.cells, "fixed_columns": self.fixed_columns,
                "foundation_moves": self.foundation_moves, "chunk": self.chunk,
                "body_version": spec.VERSION,
                # (named only when on: a folder of the plain closure reads as it always has)
                **({"autoplay": True} if self.rules().autoplay else {})}


class DealFailed(RuntimeError):
    """A bug while proving a deal: the census stops (and says which deal)."""


def prove_deal(deal, settings, attempt=None):
    """Prove one deal: its Item (row of the results table, range certificate entry).
    `attempt`: what attempted(deal, settings) gave, if it was called already."""
    spent, tried, indices = attempted(deal, settings) if attempt is None else attempt
    t0 = time.monotonic() - spent
    try:
        result = None if indices is not None else as_certify_does(deal, settings, tried)
    except (OverflowError, MemoryError, RecursionError) as e:  # out of room: no verdict, say why
        result = Result(UNKNOWN, 0, 0.0, 0, reason=f"{type(e).__name__}: {e}")
    except Exception as e:
        raise DealFailed(f"deal {deal}: {type(e).__name__}: {e}") from e
    if result is None:
        return won_item(deal, indices, t0, settings.rules())
    row = result_json(result, deal)
    # No file per deal: `certify extract` rebuilds it from the range certificate. A no-win's
    # row keeps that file's SHA-256 and size; a win's names none (won_item() says why).
    row["path"] = None
    if result.verdict == WIN:
        row["sha256"] = row["bytes"] = None
    row["seconds"] = round(time.monotonic() - t0, 3)
    entry = None
    if result.verdict != UNKNOWN:
        count = len(result.body) // 2 if result.verdict == WIN else result.positions
        values = writer.body_values(result.verdict, result.body, deal, None, settings.rules())
        entry = pack_entry(deal, result.verdict, count, values)
    return Item(deal, result.verdict, json.dumps(row), entry)


def attempted(deal, settings):
    """(seconds, positions the solver tried, the move indices of its win or None): the whole
    proof's solver attempts in one call (prove.at_once). Out of room there, (seconds, 0,
    None): then the whole proof runs, and says what running out of memory comes to."""
    t0 = time.monotonic()
    try:
        tried, indices = at_once(deal, settings.rules(), settings.max_positions,
                                 settings.time_limit, settings.memory)
    except (OverflowError, MemoryError, RecursionError):
        tried, indices = 0, None
    except Exception as e:
        raise DealFailed(f"deal {deal}: {type(e).__name__}: {e}") from e
    return time.monotonic() - t0, tried, indices


def won_item(deal, indices, t0, rules):
    """The Item of a deal won by the line of these move indices: the row and the entry that
    as_certify_does() gives for it (tests/test_census.py holds the two to the same bytes), made
    straight from the indices. The row names no SHA-256 or size of the deal's own certificate:
    that file is never written, compressing it only to hash it was a tenth of a census's CPU,
    and `certify extract` rebuilds it and prints both."""
    values = spec.bin_header(len(indices)) + indices
    moves = len(indices)
    # json.dumps of {"deal": deal, "claim": WIN, "positions": moves + 1, "path": None,
    # "sha256": None, "bytes": None, "seconds": ..., "most_home": 52, "moves": moves,
    # "reason": None}, written out (json.dumps costs a tenth of a deal's Python): ints and a
    # float as json writes them (repr).
    row = (f'{{"deal": {deal:d}, "claim": {_WIN_JSON}, "positions": {moves + 1:d}, '
           f'"path": null, "sha256": null, "bytes": null, '
           f'"seconds": {round(time.monotonic() - t0, 3)!r}, "most_home": 52, '
           f'"moves": {moves:d}, "reason": null}}')
    return Item(deal, WIN, row, pack_entry(deal, WIN, moves, values))


_WIN_JSON = json.dumps(WIN)


def as_certify_does(deal, settings, failed=0):
    """proved()'s find and encode as `certify DEAL` runs them (certify/commands/cli.py,
    run_certify), so that a deal's entry is the body of the very certificate `certify DEAL`
    writes; tests/test_range.py holds the two to the same bytes. Nothing is written.
    `failed`: positions within which the solver is known to find no win (attempted()'s
    attempt), not tried again."""
    rules = settings.rules()
    return proved(start(deals.deal(deal)), rules, deal, settings.max_positions,
                  settings.time_limit, memory=settings.memory, failed=failed)


def prove_chunk(numbers, settings, tick=None):
    """Prove a list of deals; their Items. `tick(verdict)` hears of each as it finishes.

    The solver's attempts are made for every deal first, then the Items are made: the solver
    and the Python that frames its lines then keep their memory in the processor's caches in
    turn, not each evicting the other at every deal (made deal by deal, the same deals cost
    about a tenth more)."""
    attempts = [attempted(deal, settings) for deal in numbers]
    items = []
    for deal, attempt in zip(numbers, attempts):
        items.append(prove_deal(deal, settings, attempt))
        if tick is not None:
            tick(items[-1].verdict)
    return items


# A pool worker counts its finished deals in an array shared with the parent, which shows
# progress from it between tasks.
_tally = None


def worker_setup(tally):
    """Workers leave Ctrl-C to the parent, and die with it (even after a kill -9): otherwise an
    orphan would go on proving deals nobody waits for, then wait for work forever."""
    global _tally
    _tally = tally
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = os.getppid()

    def watch():
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


def count_in(tally, verdict):
    with tally.get_lock():
        tally[VERDICTS.index(verdict)] += 1


def prove_chunk_in_pool(numbers, settings):
    return prove_chunk(numbers, settings, tick=lambda v: count_in(_tally, v))


def task_size(deals_in_range, chunk, workers):
    """Deals per task: a whole block, unless the range is too short to give every worker
    several tasks (16 deals on 2 workers: tasks of 2)."""
    return max(1, min(chunk, -(-deals_in_range // (4 * workers))))


def tasks(todo, size, open_blocks):
    """Split each (block, deals) of `todo` into tasks of `size` deals, noting in
    open_blocks[block] how many tasks the block has out (its chunk file is written when the
    last one is back)."""
    for k, numbers in todo:
        pieces = [numbers[i:i + size] for i in range(0, len(numbers), size)]
        open_blocks[k] = [len(pieces), []]
        for piece in pieces:
            yield k, piece


# Backends. `todo` yields (block, deals); `tally` counts the deals proved in this run by
# verdict, for the progress display.

def in_process(todo, settings, tally):
    def tick(verdict):
        tally[VERDICTS.index(verdict)] += 1
    for k, numbers in todo:
        yield k, prove_chunk(numbers, settings, tick)


def process_pool(todo, settings, tally, jobs):
    todo = iter(todo)
    pool = ProcessPoolExecutor(jobs, initializer=worker_setup, initargs=(tally,))
    try:
        def submit(task):
            k, numbers = task
            future = pool.submit(prove_chunk_in_pool, numbers, settings)
            future.block = k
            return future

        pending = {submit(t) for t in islice(todo, 2 * jobs)}
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in sorted(done, key=lambda f: f.block):
                yield future.block, future.result()
            pending |= {submit(t) for t in islice(todo, len(done))}
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


def on_dask(todo, settings, tally, client):
    from distributed import as_completed
    todo = iter(todo)
    # Two tasks per worker thread: enough that none waits, few enough that a kill loses little.
    width = max(4, 2 * sum(client.nthreads().values()))
    blocks = {}

    def submit(task):
        k, numbers = task
        future = client.submit(prove_chunk, numbers, settings, pure=False)
        blocks[future.key] = k
        return future

    running = as_completed([submit(t) for t in islice(todo, width)], loop=client.loop)
    for future in running:
        items = future.result()
        k = blocks.pop(future.key)
        future.release()
        for item in items:
            tally[VERDICTS.index(item.verdict)] += 1
        yield k, items
        for t in islice(todo, 1):
            running.add(submit(t))
