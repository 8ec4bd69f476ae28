"""The words every part of certify shares for what a run found: the vocabulary, in one home.

Three verdicts, never blurred: WIN (with its line), NO_WIN (with every reachable position),
UNKNOWN (a budget ran out, or memory, or the certificate format's room; nothing is claimed).
An Outcome is what a search found (either engine's, certify/engine/ and
certify/engine/reference/search.py); a Result is what a run claims and the certificate it wrote
(certify/run/prove.py). The words of an UNKNOWN are made here, so that every engine and every
command says the same thing for the same stop.

This module imports nothing of certify's: the engines, the writer, the census and the commands
all import it, and it imports none of them.
"""

WIN, NO_WIN, UNKNOWN = "win", "no-win", "unknown"
VERDICTS = (WIN, NO_WIN, UNKNOWN)  # the order the census counts them in

# The limits of a search itself (Outcome.limit): its ids, its --memory budget, the memory the
# system would give, and the certificate format's room.
COLUMNS, MEMORY, SYSTEM_MEMORY, FORMAT = LIMITS = ("columns", "memory", "system memory", "format")
MOST_COLUMNS = 1 << 24  # 3-byte ids, the format's widest
TOO_MANY_COLUMNS = f"more than {MOST_COLUMNS:,} distinct columns"
# The in-memory engines index their positions with 32 bits, and their hash table keeps 32 bits of
# each key's hash, which spread over at most 2^32 slots: so at most 2^31 positions, the table then
# 70% full at most (the format, version 3, has no limit of its own; version 2's one-bin body held
# 4 GiB of records). A search that meets more stops there (UNKNOWN, limit FORMAT), and certify
# goes on on disk (certify/engine/on_disk.py), or says UNKNOWN with --no-spill. Memory (--memory,
# about 40 bytes a position) stops a search on this machine long before.
SEARCH_CAPACITY = 1 << 31


def format_full(capacity):
    """The words of an UNKNOWN for an in-memory search that met more positions than it holds."""
    return f"more positions than the search in memory holds ({capacity:,})"


def size_text(n):
    """A number of bytes as --memory reads it back: 500M, 8G, 1.5G (powers of 1024)."""
    for unit, power in (("T", 4), ("G", 3), ("M", 2), ("K", 1)):
        if n >= 1024 ** power:
            value = n / 1024 ** power
            return f"{value:.1f}".rstrip("0").rstrip(".") + unit
    return f"{n}B"


def out_of_memory(positions, memory=None):
    """The words of an UNKNOWN for a search that ran out of memory: of its --memory budget
    (bytes), or (None) of what the system would give."""
    positions = f"{positions:,} position{'' if positions == 1 else 's'}"
    if memory is not None:
        return (f"not enough memory after {positions}: the search's tables would "
                f"outgrow --memory {size_text(memory)}; give a larger --memory SIZE if this "
                f"machine has it, or stop sooner with --max-positions N")
    return (f"not enough memory after {positions}: the system would give no more; "
            f"free some, set --memory SIZE below what is free, or stop sooner with "
            f"--max-positions N")


def stopped(positions, solver_positions=0):
    """How far an UNKNOWN got, in words that cannot pass for a closure's size: `positions` is
    what --max-positions counts, the search's distinct positions found before it stopped
    unfinished, and `solver_positions` of it the budgets of the solver's attempts."""
    searched = positions - solver_positions
    found = f"{searched:,} distinct position{'' if searched == 1 else 's'} found by the search"
    if not solver_positions:
        return f"stopped unfinished after {found}"
    attempts = f"the solver's attempts (budgets of {solver_positions:,} positions in all)"
    if not searched:
        return f"stopped unfinished after {attempts}, before the search found any position"
    return (f"stopped unfinished after {attempts} and {found} ({positions:,} in all, as "
            f"--max-positions counts them)")


def budget_reason(max_positions=None, time_limit=None):
    """The words an UNKNOWN gives for the budget that ran out (the same for every engine)."""
    if max_positions is not None:
        return f"--max-positions {max_positions} reached"
    return f"--time-limit {time_limit:g} s reached"


class Outcome:
    """What a search found. (A plain class, not a dataclass: `certify N` imports this module,
    and dataclasses costs its start-up ~10 ms.)"""

    def __init__(self, verdict, positions, seconds=0.0, most_home=0, path=None, keys=None,
                 columns=None, reason="", width=2, store=None, limit=""):
        self.verdict = verdict
        self.positions = positions  # distinct positions found
        self.seconds = seconds
        self.most_home = most_home  # most cards ever on the foundations
        self.path = path if path is not None else []  # WIN: the keys from the start to a won one
        self.keys = keys  # NO_WIN: every reachable position's key (iterable, with len)
        self.columns = columns if columns is not None else []  # the interned columns, by id
        self.reason = reason  # UNKNOWN: which budget ran out
        self.width = width  # bytes per column id in the keys
        self.store = store  # the compiled engine's key set (for its certificate writer), or None
        # UNKNOWN at a limit of the search itself, not of a budget (running it again would
        # stop there again): one of LIMITS, or ""
        self.limit = limit

    @property
    def final(self):
        return bool(self.limit)

    def __repr__(self):
        return f"Outcome({self.verdict!r}, {self.positions}, reason={self.reason!r})"


class Result:
    """What a run claims, and the certificate it wrote. (A plain class: see Outcome.)"""

    FIELDS = ("verdict", "positions", "seconds", "most_home", "path", "sha256", "size", "moves",
              "reason", "body")

    def __init__(self, verdict, positions, seconds, most_home, path=None, sha256=None,
                 size=None, moves=None, reason="", body=None, solver_positions=0):
        self.verdict = verdict
        # WIN: the positions of the line; NO_WIN: the closure's; UNKNOWN: what --max-positions
        # counts, the search's distinct positions found before it stopped (not the closure:
        # it was not finished) and the solver's attempts' budgets, `solver_positions`
        self.positions = positions
        self.solver_positions = solver_positions
        self.seconds = seconds
        self.most_home = most_home
        self.path = path  # the certificate written, if any
        self.sha256 = sha256
        self.size = size
        self._moves = moves
        self.reason = reason  # UNKNOWN: why
        self.body = body  # the certificate's body (what a range certificate's entry carries)

    @property
    def moves(self):
        """WIN: the single-card moves [(card, dest), ...], read from the body when first asked
        for (a census, which keeps only the body, never asks)."""
        if self._moves is None and self.verdict == WIN and self.body is not None:
            self._moves = list(zip(self.body[0::2], self.body[1::2]))
        return self._moves

    @moves.setter
    def moves(self, moves):
        self._moves = moves

    def __eq__(self, other):
        return isinstance(other, Result) and all(
            getattr(self, f) == getattr(other, f) for f in self.FIELDS)

    def __repr__(self):
        shown = ", ".join(f"{f}={getattr(self, f)!r}" for f in self.FIELDS if f != "body")
        return f"Result({shown})"

    def as_json(self, deal):
        return {
            "deal": deal,
            "verdict": self.verdict,
            "positions": self.positions,
            "path": self.path,
            "sha256": self.sha256,
            "bytes": self.size,
            "seconds": round(self.seconds, 3),
            "most_home": self.most_home,
            "moves": len(self.moves) if self.moves is not None else None,
            "reason": self.reason or None,
        }

