"""From a start position to a certificate: solve or search, then write what was found.

This is the one place that decides what a run claims. WIN and NO_WIN come only with their
evidence; anything else is UNKNOWN and writes nothing: a budget that ran out, and so memory
that ran out (of --memory's budget, or a MemoryError anywhere in the run: the solver, the
search, the writer), or a no-win too large for the certificate format. The work itself is done
by the engine (certify/engine/: compiled, or the Python reference); the order of the work, and
the budgets that bound all of it, are decided here, the same for every engine, so that every
engine writes the same certificate.
"""

import os
import time

from . import output
from .outcome import (MEMORY, NO_WIN, SYSTEM_MEMORY, UNKNOWN, WIN, FormatFull, Result,
                      budget_reason, out_of_memory)
from .progress import phase
from .engine import decode_key
from .rules import encode, is_won, moves

# The writer's modules (certificate.py with msgpack, zstandard and xxhash; hashlib) are imported
# where they are used, not above: ~10 ms of imports, which `certify DEAL` does on its main thread
# while the search finishes on the other (load_writer) rather than before the search starts. A
# search that is not overlapped so loads them before it starts: after it, memory may have run
# short, and a module that cannot be mapped then fails as an ImportError, not as out of memory.


def moves_along(start, keys, ncells, columns, rules):
    """The real single-card moves that follow a path of search keys from `start`.

    Under symmetry the keys do not say which column is which, so at each step we pick the first
    legal move (by rules.moves, the readable rules) whose result is the next key's position.
    """
    line = []
    position = start
    for k in keys[1:]:
        target = encode(decode_key(k, ncells, columns), ncells, rules.fixed_columns)
        for card, dest, after in moves(position, ncells, rules.foundation_moves):
            if encode(after, ncells, rules.fixed_columns) == target:
                line.append((card, dest))
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
    from . import certificate
    body = certificate.win_body(moves_line)
    head = certificate.header("win", deal, board, rules, len(body) // 2, body)
    return certificate.encode_file(head, body), body


# The order of work (issue 9 section 3), chosen by measurement (benchmarks/bench_engine.py
# --order; the compiled engine): a deal that can be won is nearly always won by the solver's
# first attempt -- of deals 1..2000, 1,816 within 1,000 positions, 1,956 within 4,000, all
# within 32,000 --, and one that cannot is mostly settled by a bounded exhaustive search (104 of
# the 130 deals below ten million have at most 200,000 positions). Only the rest pay for the
# solver's full budget before the search goes on to the end. A first attempt of 2,000 made 4.6%
# of winnable deals pay for the bounded search too (1..1000: 3.2 s of CPU, against 0.95 s with
# 16,000 and 0.68 s with 32,000); 32,000 costs an unwinnable deal ~25 ms more than 2,000.
# The search is resumed, not restarted: its outcome is that of one uninterrupted search.
SOLVER_FIRST = 32_000  # positions the solver expands in its first attempt
SEARCH_FIRST = 200_000  # positions the exhaustive search may find before the solver's full try
SOLVER_STEP = 2_000  # under a time limit, the solver's attempts grow from this, fourfold
ENGINE = "engine"  # prove(solver=ENGINE): the engine's solver, in the order above


def prove(start, rules, deal=None, out=None, max_positions=None, time_limit=None,
          progress=None, solver=ENGINE, together=False, memory=None):
    """Prove `start` won or not; write the certificate to `out` unless the outcome is UNKNOWN.

    solver: ENGINE (the engine's solver, tried in the order above), None (the exhaustive search
    alone), or a function start -> list of single-card moves or None, tried once, first.
    A solver's line is replayed before it is believed: by the readable rules in the reference
    engine, in C by the compiled one (tests/test_engine.py holds the two to the same answers). The budgets bound the whole run: `time_limit` the
    seconds of everything, `max_positions` the positions of the solver's attempts (their
    budgets, charged in full) and of the search together. `progress` (certify/progress.py)
    hears each phase and the search's figures. `together`: the solver's first attempt and
    the bounded search run at once on two threads (engine.solve_and_search; without a time
    limit only, where the attempt is one piece): the same result, sooner on an idle second
    core. `certify DEAL` asks for it; a census, which keeps both cores busy already, does not.
    `memory`: the bytes the search's tables may take (None: no budget); past them it stops,
    UNKNOWN. Running out of memory anywhere is UNKNOWN too, with nothing written.
    """
    t0 = time.monotonic()
    budget = Budget(t0, max_positions, time_limit, memory)
    try:
        return _prove(start, rules, deal, out, budget, progress, solver, together, memory)
    except MemoryError:
        pass  # (out of this block, the traceback lets go of the frames and their tables)
    positions, most_home = budget.reached()
    budget.searching = None
    return Result(UNKNOWN, positions, time.monotonic() - t0, most_home,
                  reason=out_of_memory(positions))


def _prove(start, rules, deal, out, budget, progress, solver, together, memory):
    from . import engine
    board = None
    if deal is None:
        from . import certificate
        board = certificate.board_bytes(start, rules.ncells)
    t0, max_positions, time_limit = budget.t0, budget.max_positions, budget.time_limit

    def won_by(line):
        # line: [(card, dest), ...], or its bytes (engine.solve_line), kept as bytes to the file
        if line is None or not engine.replays_to_win(start, line, rules):
            return None
        data, body = win_certificate(line, deal, board, rules)
        line = engine.moves_of(body)
        # positions: the replayed line's, the only ones this result vouches for
        return _written(Result(WIN, len(line) + 1, time.monotonic() - t0, 52, moves=line,
                               body=body), data, out)

    def solved(planned, tried):
        # An attempt cannot be stopped midway, so under a time limit it grows fourfold at a time
        # from the last one, looking at the clock in between. The solver's line for a budget is
        # the first win within it, so the growing attempts find the same line as one attempt.
        size = budget.solver(planned, tried)
        while size > tried:
            step = size if time_limit is None else min(size, max(4 * tried, SOLVER_STEP))
            phase(progress, "solving")
            found = won_by(engine.solve_line(start, rules, step))
            if found is not None or budget.out_of_time():
                return found
            tried = step
        return None

    if callable(solver):
        phase(progress, "solving")
        found = won_by(solver(start))
        if found is not None:
            return found
    elif solver is not None and solver != ENGINE:
        raise ValueError(f"solver must be ENGINE, None or a function, not {solver!r}")
    search = outcome = None
    if solver == ENGINE and together and time_limit is None:
        phase(progress, "solving and searching")
        search = budget.searching = engine.Search(start, rules, memory)
        size = budget.solver(SOLVER_FIRST, 0)
        line, outcome = engine.solve_and_search(start, rules, size, search,
                                                budget.search(SEARCH_FIRST)[0], load_writer)
        found = won_by(line)
        if found is not None:
            return found
    elif solver == ENGINE:
        found = solved(SOLVER_FIRST, 0)
        if found is not None:
            return found
    if search is None:
        search = budget.searching = engine.Search(start, rules, memory)
    if outcome is None:  # not run yet, or stopped when the solver's line came (run on)
        load_writer()
        phase(progress, "searching")
        outcome = search.run(*budget.search(SEARCH_FIRST if solver == ENGINE else None),
                             progress)
    if solver == ENGINE and outcome.verdict != NO_WIN and not budget.spent(outcome):
        # Not settled: the solver's full attempt (its line is shorter than a search path's
        # even when the search has a win), then the search to the end.
        from .solver import BUDGET
        found = solved(BUDGET, SOLVER_FIRST)
        if found is not None:
            return found
        if outcome.verdict == UNKNOWN:
            load_writer()
            phase(progress, "searching")
            outcome = search.run(*budget.search(None), progress)
    # seconds: the whole run, the solver's attempts included
    result = Result(outcome.verdict, budget.positions(outcome), time.monotonic() - t0,
                    outcome.most_home)
    if outcome.verdict == UNKNOWN:
        result.reason = budget.reason(outcome)
        return result
    phase(progress, "writing")
    budget.searching, budget.found = None, (result.positions, result.most_home)
    if outcome.verdict == WIN:
        result.moves = moves_along(start, outcome.path, rules.ncells, outcome.columns, rules)
        data, result.body = win_certificate(result.moves, deal, board, rules)
    else:
        assert outcome.verdict == NO_WIN
        from . import certificate
        try:
            result.body = engine.no_win_body(outcome, rules)
            del outcome, search  # the key set: the file is written without it
            head = certificate.header("no-win", deal, board, rules, result.positions,
                                      result.body)
            data = certificate.encode_file(head, result.body)
        except FormatFull as e:  # (the search stops sooner, where the records alone are over)
            result.verdict, result.reason, result.body = UNKNOWN, str(e), None
            return result
    result.seconds = time.monotonic() - t0
    return _written(result, data, out)


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
        `tried` positions of an earlier attempt (which this one repeats): charged in full."""
        if self.out_of_time():
            return 0
        size = planned
        if self.max_positions is not None:
            size = min(size, self.max_positions - self.charged + tried - 1)
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
        if outcome.limit in (MEMORY, SYSTEM_MEMORY):  # counted as the whole run's positions
            return out_of_memory(self.positions(outcome),
                                 self.memory if outcome.limit == MEMORY else None)
        if outcome.final:
            return outcome.reason
        if self.out_of_positions(outcome):
            return budget_reason(self.max_positions)
        return budget_reason(time_limit=self.time_limit)

    def positions(self, outcome):
        return outcome.positions + (self.charged if outcome.verdict == UNKNOWN else 0)


def load_writer():
    """Import the modules that writing a certificate needs (see the imports above)."""
    import hashlib  # noqa: F401
    from . import certificate  # noqa: F401


def _written(result, data, out):
    import hashlib
    result.sha256 = hashlib.sha256(data).hexdigest()
    result.size = len(data)
    if out is not None:
        output.write_atomic(out, data)
        result.path = os.fspath(out)
    return result


__all__ = ["prove", "win_certificate", "moves_along"]
