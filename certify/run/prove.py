"""From a start position to a certificate: find, encode, deliver.

This is the one place that decides what a run claims. WIN and NO_WIN come only with their
evidence; anything else is UNKNOWN and writes nothing: a budget that ran out, and so memory
that ran out (of --memory's budget, or a MemoryError anywhere in the run: the solver, the
search, the writer), or a no-win too large for the certificate format. The work itself is done
by the engine (certify/engine/: compiled, or the Python reference); the order of the work (a
plan: PLAN below), and the budgets that bound all of it, are decided here, the same for every
engine, so that every engine writes the same certificate.

    find(start, rules, budget, plan, ...)  -> Found: a solver's line, or a search's Outcome
    encode(found, start, rules, deal, ...) -> (Result with its SHA-256, the file's bytes)
    deliver(result, data, out)             -> the Result, its file written to `out`

proved() runs the three (deliver only when given a file to write: a census, which keeps its
certificates in a range file, writes nothing per deal), and a census runs before it
at_once(deal, rules), the same proof's solver attempts in one call.
"""

import os
import time

from .. import engine, output
from ..format import spec
from ..outcome import (FORMAT, MEMORY, NO_WIN, SYSTEM_MEMORY, UNKNOWN, WIN, Result, budget_reason,
                       out_of_memory)
from .progress import phase
from ..game.rules import HOME, autoplay, encode as canonical, is_won, successors


def load_writer():
    """The certificate writer (certify/format/writer.py), imported here and nowhere else in
    this module: with msgpack, zstandard and xxhash, ~10 ms of imports, which `certify
    DEAL` makes on its main thread while the search finishes on the other rather than before
    the search starts. A search that is not overlapped loads them before it starts: after it,
    memory may have run short, and a module that cannot be mapped then fails as an
    ImportError, not as out of memory."""
    from ..format import writer
    return writer


def moves_along(start, keys, ncells, columns, rules):
    """The real single-card moves that follow a path of search keys from `start`.

    Under symmetry the keys do not say which column is which, so at each step we pick the first
    legal move (by rules.moves, the readable rules) whose result is the next key's position.
    Under autoplay each step is a move and then the safe moves home it led to, each one of the
    line too, as is the autoplay of the start.
    """
    line = []
    position = start
    if rules.autoplay:
        position, homed = autoplay(start)
        line.extend((card, HOME) for card in homed)
    for k in keys[1:]:
        target = canonical(engine.decode_key(k, ncells, columns), ncells, rules.fixed_columns)
        for card, dest, homed, after in successors(position, rules):
            if canonical(after, ncells, rules.fixed_columns) == target:
                line.append((card, dest))
                line.extend((c, HOME) for c in homed)
                position = after
                break
        else:
            raise AssertionError("search path does not follow the rules")  # a bug, not input
    if not is_won(position):
        raise AssertionError("search path does not end won")
    return line


def win_certificate(moves_line, deal, board, rules):
    """(file bytes, body) of the win certificate for a line of single-card moves (a list of
    pairs, or its bytes as the engine's solve_line gives)."""
    writer = load_writer()
    body = writer.win_body(moves_line)
    head = writer.header("win", deal, board, rules, len(body) // 2, body)
    return writer.encode_file(head, body), body


# The plan: what find() tries, in order, each step a solver's attempt (Solve) or a run of the
# exhaustive search (Search), which is resumed, not restarted, so that its outcome is that of
# one uninterrupted search. A deal that can be won is nearly always won by the solver's first
# short attempt, and one that cannot is mostly settled by a bounded exhaustive search; only the
# rest pay for the solver's full budget before the search goes on to the end (benchmarks/
# README.md, "The order of work in proved()", has the figures; bench_engine.py --order). The few
# winnable deals the full attempt misses go to the solver's flares (solver.FLARES) before the
# search, whose depth-first lines for them run to thousands of moves, or do not end.
SOLVER_FIRST = 32_000  # positions the solver expands in its first attempt
SEARCH_FIRST = 200_000  # positions the exhaustive search may find before the solver's full try
SOLVER_STEP = 2_000  # under a time limit, the solver's attempts grow from this, fourfold


class Solve:
    """A step of a plan: the engine's solver, expanding at most `size` positions (None: its
    full budget, engine.solver_budget()); or `solver`, a function start -> [(card, dest), ...]
    or None, tried once (its line replayed by the rules before it is believed)."""

    def __init__(self, size=None, solver=None):
        self.size, self.solver = size, solver

    def __repr__(self):
        return f"Solve({self.size if self.solver is None else self.solver!r})"


class Flares:
    """A step of a plan: the engine's solver flares (solver.FLARES), tried in turn, each
    within its own budget, until one wins."""

    def __repr__(self):
        return "Flares()"


class Search:
    """A step of a plan: the exhaustive search, run on until it has found `size` positions in
    all (None: to the end)."""

    def __init__(self, size=None):
        self.size = size

    def __repr__(self):
        return f"Search({self.size})"


PLAN = (Solve(SOLVER_FIRST), Search(SEARCH_FIRST), Solve(), Flares(), Search())
# at_once() stands for the first four steps with one solver call: it holds only for these.
assert [(type(step), getattr(step, "size", None)) for step in PLAN[:4]] == \
    [(Solve, SOLVER_FIRST), (Search, SEARCH_FIRST), (Solve, None), (Flares, None)]
SEARCH_ALONE = (Search(),)  # certify --no-solver


class Found:
    """What find() found: a solver's `line` (bytes, replayed), or the search's `outcome`."""

    def __init__(self, line=None, outcome=None):
        self.line, self.outcome = line, outcome


def proved(start, rules, deal=None, max_positions=None, time_limit=None, progress=None,
           plan=PLAN, together=False, memory=None, out=None, disk=None, failed=0):
    """Prove `start` won or not: find and encode, the Result with the certificate's body,
    SHA-256 and size; and write the certificate to `out` (a path as output.target() settles
    it), unless `out` is None (what a census keeps of each deal) or the outcome is UNKNOWN.

    plan: the steps tried in turn (PLAN, or SEARCH_ALONE, or any sequence of Solve, Flares and
    Search). The plan ends once a search has settled the deal (NO_WIN), or at a Solve or
    Flares after a search that spent a budget of the run; a Search after the search found a
    win is skipped (a Solve still runs: a solver's line is shorter than a search path). The
    budgets bound the whole run:
    `time_limit` the seconds of everything, `max_positions` the positions of the solver's
    attempts (their budgets, charged in full) and of the search together. `progress`
    (certify/run/progress.py) hears each phase and the search's figures. `together`: a plan's
    first Solve and first Search run at once on two threads (engine.Background; without a time limit
    only, where the attempt is one piece): the same result, sooner on an idle second core.
    `certify DEAL` asks for it; a census, which keeps both cores busy already, does not.
    `memory`: the bytes the search's tables may take (None: no budget); past them it stops,
    UNKNOWN. Running out of memory anywhere is UNKNOWN too, with nothing written.
    `disk` (work_folder.Disk, or None): where the search spills when it outgrows `memory` (or
    its certificate format's room): the search on disk (certify/engine/on_disk.py) then runs
    from the start within the same budget, its work folder kept for a resume if it stops short; with
    disk.at_once it runs at once, after the solver (with disk.resume, without it).
    `failed`: positions within which the engine's solver is known to find no win from `start`
    (at_once's attempt): the plan's attempts within them are charged as ever, not made.
    """
    t0 = time.monotonic()
    budget = Budget(t0, max_positions, time_limit, memory)
    try:
        found = find(start, rules, budget, plan, progress, together, memory, disk, failed)
        result, data = encode(found, start, rules, deal, budget, progress, out)
        if data is not None:
            deliver(result, data, out)
        return result
    except MemoryError:
        pass  # (out of this block, the traceback lets go of the frames and their tables)
    positions, most_home = budget.reached()
    budget.searching = None
    charged = 0 if budget.found is not None else budget.charged
    return Result(UNKNOWN, positions, time.monotonic() - t0, most_home,
                  reason=out_of_memory(positions - charged), solver_positions=charged)


# A bounded search of SEARCH_FIRST positions takes some 15 MiB (deals 6240, 8436 and 29138:
# keys of at most 36 bytes, their slots, parents and stack, the tables doubling as they grow),
# so a --memory of SURE_MEMORY or more cannot stop it.
SURE_MEMORY = 256 << 20


def at_once(deal, rules, max_positions=None, time_limit=None, memory=None):
    """(positions tried, move indices or None): the engine's solver run once, on deal number
    `deal`, for as many positions as PLAN's solver attempts may come to, where what it finds
    is what proved() finds; the indices (format version 3's win body) of its line if it wins.
    What a census proves nearly every deal by: the compiled solver deals the cards, solves and
    writes the indices in one call, so that Python makes no position, line or list for it.

    A solver's line for a budget is the first win within it. So where nothing can stop the plan
    between its first attempt and its full one (no time limit, a --max-positions the attempts
    and the bounded search fit in, a --memory the bounded search fits in), one attempt of the
    full budget finds the plan's line: the first attempt's if that wins; else the deal can be
    won, the bounded search cannot settle it as no win, and the full attempt's line comes
    before the search's. That saves a winnable deal the first attempt's miss the bounded search
    (SEARCH_FIRST positions). Where only the first attempt fits, it alone is made; under a time
    limit (solved() grows its attempts looking at the clock) or without the compiled solver,
    none: (0, None). When no win is found, proved(..., failed=positions tried) runs the plan
    without making those attempts again. A MemoryError is raised (proved() says what it comes
    to)."""
    solver = engine._solver  # (None: the reference engine, which has no such call)
    if solver is None or time_limit is not None:
        return 0, None
    full = engine.solver_budget()
    if (max_positions is None or max_positions > SOLVER_FIRST + SEARCH_FIRST + full) and \
            (memory is None or memory >= SURE_MEMORY):
        size = full
    elif max_positions is None or max_positions > SOLVER_FIRST:
        size = SOLVER_FIRST
    else:
        return 0, None
    return size, solver.solve_deal(deal, rules, size)


def find(start, rules, budget, plan, progress=None, together=False, memory=None, disk=None,
         failed=0):
    """Work through the plan until a step settles it: a Found. With `disk`, a search that
    stopped at the memory budget or the format's room is done again on disk. `failed`: as
    for proved()."""
    steps = list(plan)
    if disk is not None and disk.at_once:
        steps = [] if disk.resume else [s for s in steps if isinstance(s, (Solve, Flares))]
        together = False
    search = outcome = None
    tried = 0  # positions of the last engine solver attempt (a larger one repeats it)
    if together and budget.time_limit is None and len(steps) >= 2 and \
            isinstance(steps[0], Solve) and steps[0].solver is None and \
            isinstance(steps[1], Search):
        phase(progress, "solving and searching")
        size = budget.solver(steps[0].size, 0)  # (before the search holds its start)
        search = budget.searching = engine.Search(start, rules, memory)
        line, outcome = None, None
        if size <= 0:
            outcome = search.run(budget.search(steps[1].size)[0])
        else:
            running = engine.Background(search, budget.search(steps[1].size)[0])
            try:
                line = None if size <= failed else engine.solve_line(start, rules, size)
            except BaseException:  # Ctrl-C, MemoryError: the search is not needed either
                running.stop()
                raise
            if line is not None:
                running.stop()
                return Found(line=line)
            load_writer()  # while the search may still be running
            outcome = running.outcome()
        tried = steps[0].size
        steps = steps[2:]
    for step in steps:
        if outcome is not None and outcome.verdict == NO_WIN:
            break
        if isinstance(step, Flares):
            if outcome is not None and budget.spent(outcome):
                break
            line = flared(start, rules, budget, progress)
            if line is not None:
                return Found(line=line)
        elif isinstance(step, Solve):
            if outcome is not None and budget.spent(outcome):
                break  # (and so is every step after it)
            if step.solver is not None:
                phase(progress, "solving")
                line = step.solver(start)
                if line is not None and engine.replays_to_win(start, line, rules):
                    return Found(line=bytes(b for move in line for b in move))
                continue
            size = engine.solver_budget() if step.size is None else step.size
            line = solved(start, rules, budget, progress, size, tried, failed)
            tried = size
            if line is not None:
                return Found(line=line)
        elif outcome is None or outcome.verdict == UNKNOWN:
            if search is None:
                search = budget.searching = engine.Search(start, rules, memory)
            load_writer()
            phase(progress, "searching")
            outcome = search.run(*budget.search(step.size), progress)
    if disk is not None and (disk.at_once or (outcome is not None and outcome.verdict == UNKNOWN
                                              and outcome.limit in (MEMORY, FORMAT))):
        from ..engine.on_disk import available
        if available():  # (else the search's stop stands, as without a disk)
            search = running = budget.searching = outcome = None  # (its tables let go of)
            outcome = on_disk(start, rules, budget, progress, memory, disk)
    return Found(outcome=outcome)


def on_disk(start, rules, budget, progress, memory, disk):
    """The search on disk (certify/engine/on_disk.py), within what is left of the run's budgets."""
    from ..engine.on_disk import DiskSearch
    load_writer()
    phase(progress, "searching on disk")
    search = budget.searching = DiskSearch(start, rules, disk, memory or disk.memory)
    return search.run(*budget.search(None), progress)


def solved(start, rules, budget, progress, planned, tried, failed=0):
    """The engine solver's line within `planned` positions, or None. An attempt cannot be
    stopped midway, so under a time limit it grows fourfold at a time from the last one,
    looking at the clock in between. The solver's line for a budget is the first win within
    it, so the growing attempts find the same line as one attempt (and one within the
    `failed` positions known to hold none needs not be made)."""
    size = budget.solver(planned, tried)
    while size > tried:
        step = size if budget.time_limit is None else min(size, max(4 * tried, SOLVER_STEP))
        phase(progress, "solving")
        line = None if step <= failed else engine.solve_line(start, rules, step)
        if line is not None or budget.out_of_time():
            return line
        tried = step
    return None


def flared(start, rules, budget, progress):
    """The first line of the engine solver's flares (solver.FLARES), tried in turn, or None.
    Each is charged in full; under a time limit none is begun once the time is up (a flare,
    like an attempt, cannot be stopped midway: each is bounded by its own budget)."""
    from ..engine.reference.solver import FLARES
    for *styles, planned in FLARES:
        size = budget.solver(planned, 0)
        if size <= 0:
            return None
        phase(progress, "solving")
        line = engine.solve_line(start, rules, size, tuple(styles))
        if line is not None:
            return line
    return None


def encode(found, start, rules, deal, budget, progress=None, out=None):
    """(Result, the certificate file's bytes) for what find() found; (Result, None) for an
    UNKNOWN, which has no certificate. The Result has the file's SHA-256 and size. A search
    on disk writes its certificate to `out` itself, as its records stream out of the work
    folder (then cleared): (Result, None)."""
    t0 = budget.t0
    board = None
    if deal is None:
        board = spec.board_bytes(start, rules.ncells)
    if found.line is not None:
        data, body = win_certificate(found.line, deal, board, rules)
        # positions: the replayed line's, the only ones this result vouches for
        result = Result(WIN, len(body) // 2 + 1, time.monotonic() - t0, 52, body=body)
        return digested(result, data), data
    outcome = found.outcome
    # seconds: the whole run, the solver's attempts included
    result = Result(outcome.verdict, budget.positions(outcome), time.monotonic() - t0,
                    outcome.most_home)
    if outcome.verdict == UNKNOWN:
        result.reason = budget.reason(outcome)
        result.solver_positions = budget.charged
        return result, None
    phase(progress, "writing")
    budget.searching, budget.found = None, (result.positions, result.most_home)
    writer = load_writer()
    if outcome.verdict == NO_WIN and getattr(outcome.store, "on_disk", False):
        store = outcome.store
        del outcome, found
        try:
            result.size, result.sha256 = store.write_certificate(out, deal, board)
        except OSError as e:
            words = store.full_disk(e)
            if words is None:
                raise
            result.verdict, result.reason = UNKNOWN, words
            return result, None
        result.path = os.fspath(out)
        store.remove()
        result.seconds = time.monotonic() - t0
        return result, None
    if outcome.verdict == WIN:
        line = moves_along(start, outcome.path, rules.ncells, outcome.columns, rules)
        data, result.body = win_certificate(line, deal, board, rules)
    else:
        assert outcome.verdict == NO_WIN
        result.body = engine.no_win_body(outcome, rules)
        del outcome, found  # the key set: the file is written without it
        head = writer.header("no-win", deal, board, rules, result.positions, result.body)
        data = writer.encode_file(head, result.body)
    result.seconds = time.monotonic() - t0
    return digested(result, data), data


def digested(result, data):
    result.sha256 = spec.digest(data)
    result.size = len(data)
    return result


def deliver(result, data, out):
    """Write the certificate's bytes to `out` (a path, or "-"; None: nowhere): the Result."""
    if out is not None:
        output.write_atomic(out, data)
        result.path = os.fspath(out)
    return result


class Budget:
    """What is left of --max-positions and --time-limit, shared by the solver and the search."""

    def __init__(self, t0, max_positions, time_limit, memory=None):
        self.t0 = t0
        self.memory = memory
        self.max_positions = max_positions
        self.time_limit = time_limit
        self.charged = 0  # positions of the solver's failed attempts, charged in full
        self.searching = None  # the search under way, for reached()
        self.found = None  # (positions, most home) of the outcome being written

    def reached(self):
        """(positions, most cards home) reached so far: what a run that ran out of memory
        says it got to."""
        if self.found is not None:
            return self.found
        if self.searching is None:
            return self.charged, 0
        return self.charged + self.searching.positions, self.searching.most_home

    def solver(self, planned, tried):
        """How far a solver attempt that would like `planned` positions may go, counting the
        `tried` positions of an earlier attempt (which this one repeats): charged in full.
        The positions the search has found so far count too, so that the run's total (what
        an UNKNOWN reports) never passes --max-positions."""
        if self.out_of_time():
            return 0
        size = planned
        if self.max_positions is not None:
            found = self.searching.positions if self.searching is not None else 0
            size = min(size, self.max_positions - self.charged - found + tried - 1)
        self.charged += max(size - tried, 0)
        return size

    def search(self, planned):
        """(max_positions, time_limit) for the search's run: `planned` positions in all (None:
        to the end), within the run's budgets."""
        limit = planned
        if self.max_positions is not None:
            left = self.max_positions - self.charged
            limit = left if limit is None else min(limit, left)
        seconds = None
        if self.time_limit is not None:
            seconds = max(0.0, self.t0 + self.time_limit - time.monotonic())
        return limit, seconds

    def spent(self, outcome):
        """Whether the search stopped for good: a budget of the whole run ran out, or the
        engine's own limit (not merely the planned size of this run)."""
        return outcome.verdict == UNKNOWN and (outcome.final or self.out_of_time()
                                               or self.out_of_positions(outcome))

    def out_of_time(self):
        return self.time_limit is not None and time.monotonic() - self.t0 >= self.time_limit

    def out_of_positions(self, outcome):
        return self.max_positions is not None and \
            outcome.positions + self.charged >= self.max_positions

    def reason(self, outcome):
        """The words of an UNKNOWN: which of the run's budgets ran out, or which limit of the
        search itself it met."""
        if outcome.limit in (MEMORY, SYSTEM_MEMORY):  # the search's own positions
            return out_of_memory(outcome.positions,
                                 self.memory if outcome.limit == MEMORY else None)
        if outcome.final:
            return outcome.reason
        if self.out_of_positions(outcome):
            return budget_reason(self.max_positions)
        return budget_reason(time_limit=self.time_limit)

    def positions(self, outcome):
        return outcome.positions + (self.charged if outcome.verdict == UNKNOWN else 0)


__all__ = ["proved", "at_once", "find", "encode", "deliver", "PLAN", "SEARCH_ALONE", "Solve",
           "Flares", "Search", "win_certificate", "moves_along"]
