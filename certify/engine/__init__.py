"""The engine: the compiled one when it is built, else the Python reference.

    NAME                 "native" (certify/engine/search.c, and solver.c when built) or "python"
    describe()           one line: which engine runs, and why
    Search(position, rules, memory).run(max_positions, time_limit, progress) -> outcome.Outcome
    search(position, rules, max_positions, time_limit, progress)     -> outcome.Outcome
    Background(search, max_positions)    a search's run on a thread of its own: .stop(), .outcome()
    solve(position, rules, budget)       -> a winning line [(card, dest), ...] or None
    solve_line(position, rules, budget)  -> the same line as bytes (card, dest, ...) or None,
                                            replayed once by the rules before it is given
                                            (from the compiled solver, a Line: with its
                                            move indices)
    replays_to_win(position, line, rules) -> whether the line is legal and ends won
    decode_key(key, ncells, columns)     -> the position a search key (an Outcome's) stands for
    no_win_body(outcome, rules)          -> the body values of the no-win certificate of a search
    move_indices(position, line, rules)  -> a line as format version 3's move indices

The reference is certify/engine/reference/search.py, certify/engine/reference/solver.py and the
writer in certify/format/writer.py, written to be read; the compiled engine does exactly
what they do, faster, and tests/test_engine.py holds it to the same answers byte for byte. Set CERTIFY_ENGINE=python to run
the reference, CERTIFY_ENGINE=native to insist on the compiled engine (one line and exit 2 if it
is not built). Without either, a missing compiled engine is a RuntimeWarning that a command gives
once (warn_if_slow), not under -q.
"""

import os
import sys
import time
import warnings

from ..outcome import (COLUMNS, FORMAT, MEMORY, NO_WIN, SYSTEM_MEMORY, TOO_MANY_COLUMNS, UNKNOWN,
                       WIN, Outcome, budget_reason, SEARCH_CAPACITY, format_full, out_of_memory)
from ..game.rules import autoplay
from .reference.search import decode_key  # a search key's position: both engines spell keys alike

HERE = os.path.dirname(os.path.abspath(__file__))
SLICE = 0.25  # seconds the compiled search runs between looks at progress and Ctrl-C
STOP_SLICE = 0.004  # ... and between looks at a `stop` (Background)


def _load(name):
    """The compiled module certify.engine.<name>, or (None, why it is missing)."""
    try:
        import importlib
        return importlib.import_module(f"certify.engine.{name}"), ""
    except ImportError as e:
        return None, str(e)


def _choose():
    wanted = os.environ.get("CERTIFY_ENGINE", "")
    if wanted not in ("", "native", "python"):
        print(f"certify: CERTIFY_ENGINE must be 'native' or 'python', not {wanted!r}",
              file=sys.stderr)
        raise SystemExit(2)
    if wanted == "python":
        return None, None, "python (the reference, chosen by CERTIFY_ENGINE=python)"
    searcher, why = _load("_search")
    solver, why_solver = _load("_solver")
    # The solver's source may not be in this tree yet; only a source that is there and did not
    # build counts as missing.
    solver_expected = os.path.exists(os.path.join(HERE, "solver.c"))
    if wanted == "native" and (searcher is None or (solver is None and solver_expected)):
        missing = "_search" if searcher is None else "_solver"
        print(f"certify: CERTIFY_ENGINE=native, but certify.engine.{missing} is not built "
              f"({why if searcher is None else why_solver}); reinstall with a C compiler "
              f"(pip install -e .)", file=sys.stderr)
        raise SystemExit(2)
    if searcher is None:
        return None, None, f"python (the compiled engine is not built: {why})"
    solved_by = "compiled solver" if solver is not None else "Python solver"
    return searcher, solver, f"native (compiled search and certificate writer, {solved_by})"


_search, _solver, _description = _choose()
NAME = "native" if _search is not None else "python"


def warn_if_slow():
    """Warn (a RuntimeWarning, which Python shows once per place it is given) that the slower
    Python engine runs because the compiled one is not built. Not said at import, so that a
    command can keep quiet under -q; `certify --version` says why in words."""
    if _search is None and "not built" in _description:
        warnings.warn("the compiled engine is not built; running the slower Python engine",
                      RuntimeWarning, stacklevel=2)


def describe():
    """One line: which engine runs, and why."""
    return _description


class Keys:
    """The keys of a finished compiled search, read out in blocks: iterable, with len."""

    def __init__(self, native):
        self.native = native

    def __len__(self):
        return self.native.positions

    def __iter__(self):
        block = 1 << 16
        for start in range(0, len(self), block):
            yield from self.native.keys(start, block)


class NativeSearch:
    """search.Search with the compiled engine: the same runs, the same outcomes (but for where
    --memory stops it: each engine counts its own bytes)."""

    def __init__(self, position, rules, narrow=1 << 16, memory=None, capacity=None):
        if rules.autoplay:
            position = autoplay(position)[0]
        found, cells, cols = position
        self.memory = memory
        self.capacity = SEARCH_CAPACITY if capacity is None else capacity
        self.native = _search.Search(bytes(found), bytes(sorted(cells)),
                                     tuple(bytes(c) for c in cols), rules, narrow,
                                     memory or 0, self.capacity)
        self.seconds = 0.0

    @property
    def positions(self):
        """Distinct positions found so far."""
        return self.native.positions

    @property
    def most_home(self):
        """Most cards on the foundations in any position found so far."""
        return self.native.most_home

    def run(self, max_positions=None, time_limit=None, progress=None, stop=None):
        """As search.Search.run; `stop` (a threading.Event) set by another thread ends the run
        within a few milliseconds, with None: the search can then be run on, as after any
        budget stop."""
        t0 = time.monotonic()
        limit = -1 if max_positions is None else max_positions
        native = self.native
        piece = SLICE if stop is None else STOP_SLICE
        while True:
            left = piece if time_limit is None else min(piece, t0 + time_limit - time.monotonic())
            status = native.run(limit, max(left, 0.0))
            if status != _search.OUT_OF_TIME:
                break
            if time_limit is not None and time.monotonic() - t0 > time_limit:
                break
            if stop is not None and stop.is_set():
                self.seconds += time.monotonic() - t0
                return None
            if progress is not None:
                progress.update(native.positions, native.most_home)
        self.seconds += time.monotonic() - t0
        common = dict(seconds=self.seconds, width=native.width)
        n = native.positions
        if status == _search.WON:
            return Outcome(WIN, n, most_home=52, path=native.path(), columns=native.columns(),
                           **common)
        if status == _search.DONE:
            return Outcome(NO_WIN, n, most_home=native.most_home, keys=Keys(native),
                           columns=native.columns(), store=native, **common)
        limit = ""
        if status == _search.MAX_POSITIONS:
            reason = budget_reason(max_positions)
        elif status == _search.OUT_OF_TIME:
            reason = budget_reason(time_limit=time_limit)
        else:
            limit, reason = {
                _search.TOO_MANY_COLUMNS: (COLUMNS, TOO_MANY_COLUMNS),
                _search.OUT_OF_MEMORY: (SYSTEM_MEMORY, out_of_memory(n)),
                _search.MEMORY_BUDGET: (MEMORY, out_of_memory(n, self.memory)),
                _search.FORMAT_FULL: (FORMAT, format_full(self.capacity))}[status]
        return Outcome(UNKNOWN, n, most_home=native.most_home, reason=reason,
                       columns=native.columns(), limit=limit, **common)


def Search(position, rules, memory=None):
    """A resumable exhaustive search from `position` with the engine in use, whose tables stop
    it (UNKNOWN) rather than outgrow `memory` bytes (None: no budget)."""
    if _search is not None:
        return NativeSearch(position, rules, memory=memory)
    from .reference.search import Search as Reference
    return Reference(position, rules, memory=memory)


def search(position, rules, max_positions=None, time_limit=None, progress=None, memory=None):
    """Explore everything reachable from `position` (search.search, with the engine in use)."""
    return Search(position, rules, memory).run(max_positions, time_limit, progress)


def solve(position, rules, budget=None):
    """A winning line [(card, dest), ...] from the solver in use, or None (solver.solve)."""
    line = solve_line(position, rules, budget)
    return None if line is None else moves_of(line)


def solver_budget():
    """The positions the solver expands in its full attempt (solver.BUDGET), looked up once:
    certify/engine/reference/solver.py is imported only when asked for (it is the reference
    solver, which a compiled engine does not run), and a census asks once a deal."""
    global _budget
    if _budget is None:
        from .reference.solver import BUDGET
        _budget = BUDGET
    return _budget


_budget = None


def solve_line(position, rules, budget=None, styles=None):
    """solve()'s line as bytes, card and destination for each move (a win certificate's
    body), or None: what the compiled solver gives, kept as it is (a census proves
    thousands of deals a second, and a list of pairs per deal costs more than the C).
    `styles`: a flare's, as solver.FLARES has them without the budget (None: the main
    attempt's).

    Every line given has been replayed once, move by move, by plain single-card rules: the
    compiled solver's by solver.c before it returns it (a line that does not replay is a bug
    there, raised as RuntimeError), the reference solver's here by rules.replays_to_win."""
    if budget is None:
        budget = solver_budget()
    if _solver is None:
        from ..game.rules import replays_to_win
        from .reference.solver import solve as reference
        line = reference(position, rules, budget, styles)
        if line is None:
            return None
        if not replays_to_win(position, line, rules):
            raise RuntimeError("certify.engine.reference.solver: the line found does not replay "
                               "(a bug)")
        return bytes(b for move in line for b in move)
    found, cells, cols = position
    line = _solver.solve(bytes(found), bytes(sorted(cells)), tuple(bytes(c) for c in cols),
                         rules, budget, styles)
    return None if line is None else Line(line, move_indices(position, line, rules))


class Line(bytes):
    """A solver's line, card and destination for each move, with its move `indices` from the
    position it was found from (certificate format version 3's win body, which the writer
    would otherwise work out again in Python, slowly)."""

    def __new__(cls, line, indices=None):   # (None: as pickle remakes one, then its state)
        made = super().__new__(cls, line)
        made.indices = indices
        return made


def move_indices(position, line, rules):
    """A line's bytes (card, dest, ...) from `position` as one move index a byte, in format
    version 3's move order (writer.move_indices, in C when the engine is compiled);
    ValueError at a move that is not legal."""
    if _search is None:
        from ..format.writer import move_indices as reference
        return reference(position, line, rules)
    found, cells, cols = position
    return _search.move_indices(bytes(found), bytes(sorted(cells)),
                                tuple(bytes(c) for c in cols), rules, bytes(line))


def moves_of(line):
    """[(card, dest), ...] of a line held as bytes."""
    return list(zip(line[0::2], line[1::2]))


class Background:
    """A search's run(max_positions) on a thread of its own, beside whatever this thread does
    (both engines' compiled parts leave the GIL); with the reference engine, or where no thread
    can be had, it runs when its outcome is asked for instead, with the same outcome.

    stop() ends the run within a few milliseconds: the search is left as after a budget stop,
    to be run on. outcome() waits for the run and gives its Outcome, or None if it was stopped
    (an error in the run, MemoryError say, is raised here again).
    """

    def __init__(self, search, max_positions):
        self.search, self.max_positions = search, max_positions
        self.ran, self.worker, self.stopped = {}, None, None
        if _search is None or _solver is None:
            return  # in turn: nothing to overlap with
        import threading
        self.stopped = threading.Event()
        worker = threading.Thread(target=self._run, name="search", daemon=True)
        try:
            worker.start()
        except RuntimeError:  # no thread to be had (short of memory): in turn, the same result
            return
        self.worker = worker

    def _run(self):
        try:
            self.ran["outcome"] = self.search.run(self.max_positions, stop=self.stopped)
        except BaseException as e:  # MemoryError...: raised again in the caller's thread
            self.ran["error"] = e

    def stop(self):
        if self.worker is not None:
            self.stopped.set()
            self.worker.join()
        self.ran.setdefault("outcome", None)

    def outcome(self):
        if self.worker is not None:
            self.worker.join()
        elif "outcome" not in self.ran:
            self.ran["outcome"] = self.search.run(self.max_positions)
        if "error" in self.ran:
            raise self.ran["error"]
        return self.ran["outcome"]


def replays_to_win(position, line, rules):
    """Whether a line of (card, dest) moves (or its bytes, as solve_line gives) is legal move by
    move and ends won (rules.replays_to_win, in C when the engine is compiled)."""
    if _search is None:
        from ..game.rules import replays_to_win as reference
        return reference(position, moves_of(line) if isinstance(line, bytes) else line, rules)
    found, cells, cols = position
    return _search.replays(bytes(found), bytes(sorted(cells)), tuple(bytes(c) for c in cols),
                           rules, line if isinstance(line, bytes) else
                           bytes(b for move in line for b in move))


def no_win_body(outcome, rules):
    """The no-win certificate's body values (version 3) for a finished search's outcome.

    The compiled writer turns the key set into records where it lies (the outcome's keys are
    used up); the reference is writer.no_win_body, and both give the same bytes.
    """
    assert outcome.verdict == NO_WIN
    if outcome.store is not None:
        return outcome.store.write_body()
    from ..format.writer import no_win_body as reference
    return reference(outcome.keys, outcome.columns, rules.ncells, rules.fixed_columns)


__all__ = ["NAME", "describe", "Search", "search", "solve", "solve_line", "solver_budget",
           "Background", "moves_of", "replays_to_win", "no_win_body", "move_indices", "Line",
           "decode_key"]
