"""Exhaustive search over every position reachable by single-card moves: the reference engine.

The rules live in rules.py, written to be read. This module applies the same rules at speed:
columns are interned (each distinct column content gets a small id, and 'take the top card' and
'put a card on top' become table look-ups), and a position is the bytes
foundations + cells + ids, which is the record of docs/certificate-format.md up to the
renumbering of ids done when the certificate is written. tests/test_search.py checks that the
two agree move for move.

Ids are 2 bytes (big-endian) while the search has met at most 65,536 distinct columns; the
search that meets one more widens every key to 3-byte ids (the format's other width) and goes
on where it was, so the order of exploration never depends on the width.

Three outcomes, never blurred (certify/outcome.py): WIN (with the path), NO_WIN (with every
reachable position), UNKNOWN (a budget ran out, or memory, or the certificate format's room).

The compiled engine (certify/engine/search.c) explores in exactly this order -- the same
depth-first search, the same successor order, the same budget checks at the same points -- so
that both engines give the same outcome, position for position; tests/test_engine.py holds
them to it. A `Search` can be run again after an UNKNOWN with a larger budget and goes on
exactly as if it had never stopped (proved() uses that to try the solver in between).
"""

import struct
import time

from ...game.cards import RED
from ...outcome import (COLUMNS, FORMAT, MEMORY, MOST_COLUMNS, NO_WIN, SYSTEM_MEMORY,
                        TOO_MANY_COLUMNS, UNKNOWN, WIN, Outcome, budget_reason, SEARCH_CAPACITY,
                        format_full, out_of_memory)
from ...game.rules import WON, autoplay, is_safe, with_home

# The cards a given card may be stacked on: one rank higher, other colour.
PARENTS = [
    tuple(p for p in range(52) if (p >> 2) == (c >> 2) + 1 and RED[p & 3] != RED[c & 3])
    for c in range(52)
]
IDS = struct.Struct(">8H")  # eight 2-byte column ids
NARROW_COLUMNS = 1 << 16  # ids that fit in 2 bytes
CHECK_EVERY = 1024  # expansions between looks at the clock (and the progress display)
# What the reference holds a position in at most, its writer's lists included (deal 7484159:
# a peak of 1.27 GiB for 2,449,032 positions, 551 bytes each), so that --memory bounds it too.
REFERENCE_BYTES = 600


class ColumnsFull(Exception):
    """The column ids have run out at this width: the keys must be widened."""


class Columns:
    """Interned column contents, with memoised pop and push."""

    def __init__(self):
        self.ids = {}
        self.content = []
        self.top = []  # top card of each column, or -1 if empty
        self.popped = []  # id after removing the top card, or -1 until needed
        self.pushed = {}  # (id << 6 | card) -> id after putting card on top
        self.limit = NARROW_COLUMNS  # ids the keys' width can hold

    def id(self, col):
        i = self.ids.get(col)
        if i is None:
            i = len(self.content)
            if i == self.limit:
                raise ColumnsFull()
            self.ids[col] = i
            self.content.append(col)
            self.top.append(col[-1] if col else -1)
            self.popped.append(-1)
        return i

    def pop(self, i):
        j = self.popped[i]
        if j < 0:
            j = self.popped[i] = self.id(self.content[i][:-1])
        return j

    def push(self, i, card):
        k = i << 6 | card
        j = self.pushed.get(k)
        if j is None:
            j = self.pushed[k] = self.id(self.content[i] + bytes((card,)))
        return j


def pack_wide(*ids):
    return b"".join(i.to_bytes(3, "big") for i in ids)


def unpack_wide(k, at):
    return [int.from_bytes(k[j:j + 3], "big") for j in range(at, at + 24, 3)]


def id_packing(width):
    """(pack(*ids) -> bytes, unpack(key, offset) -> ids) for ids of `width` bytes."""
    return (IDS.pack, IDS.unpack_from) if width == 2 else (pack_wide, unpack_wide)


def make_expander(rules, columns, width=2):
    """A function key -> list of successor keys, for the given rules and column table."""
    F = rules.ncells
    fixed_columns = rules.fixed_columns
    foundation_moves = rules.foundation_moves
    pad = [b"\xff" * k for k in range(F + 1)]
    pack, unpack = id_packing(width)
    top, pop, push = columns.top, columns.pop, columns.push
    settle = make_autoplay(columns) if rules.autoplay else None

    def key(found, occupied, ids):
        if settle is not None:
            found, occupied = settle(found, occupied, ids)
        if not fixed_columns:
            ids.sort()
        return found + occupied + pad[F - len(occupied)] + pack(*ids)

    def expand(k):
        found = k[:4]
        occupied = k[4:4 + F].rstrip(b"\xff")
        ids = list(unpack(k, 4 + F))
        tops = [top[i] for i in ids]
        where = {t: j for j, t in enumerate(tops) if t >= 0}
        empty = tops.index(-1) if -1 in tops else -1
        out = []
        room = len(occupied) < F

        def land(card, source, found, occupied, ids):
            # Every column `card` may land on, from `source` (a column index or -1).
            for p in PARENTS[card]:
                j = where.get(p)
                if j is not None and j != source:
                    new = ids[:]
                    new[j] = push(ids[j], card)
                    out.append(key(found, occupied, new))
            if empty >= 0:
                targets = ([j for j in range(8) if tops[j] < 0 and j != source]
                           if fixed_columns else ([empty] if empty != source else []))
                for j in targets:
                    new = ids[:]
                    new[j] = push(ids[j], card)
                    out.append(key(found, occupied, new))

        for i in range(8):
            card = tops[i]
            if card < 0:
                continue
            rest = ids[:]
            rest[i] = pop(ids[i])
            s, r = card & 3, card >> 2
            if found[s] == r:
                out.append(key(found[:s] + bytes((r + 1,)) + found[s + 1:], occupied, rest[:]))
            land(card, i, found, occupied, rest)
            if room:
                out.append(key(found, bytes(sorted(occupied + bytes((card,)))), rest))

        for c in range(len(occupied)):
            card = occupied[c]
            left = occupied[:c] + occupied[c + 1:]
            s, r = card & 3, card >> 2
            if found[s] == r:
                out.append(key(found[:s] + bytes((r + 1,)) + found[s + 1:], left, ids[:]))
            land(card, -1, found, left, ids)

        if foundation_moves:
            for s in range(4):
                r = found[s]
                if r:
                    lowered = found[:s] + bytes((r - 1,)) + found[s + 1:]
                    land((r - 1) * 4 + s, -1, lowered, occupied, ids)
        return out

    return expand


def make_autoplay(columns):
    """settle(found, occupied, ids) -> (found, occupied): rules.autoplay on a key's parts, in
    its order, the ids changed in place (the columns' pops interned as it goes)."""
    top, pop = columns.top, columns.pop

    def settle(found, occupied, ids):
        while True:
            for j in range(8):
                card = top[ids[j]]
                if card >= 0 and is_safe(card, found):
                    ids[j] = pop(ids[j])
                    break
            else:
                for card in occupied:
                    if is_safe(card, found):
                        occupied = occupied.replace(bytes((card,)), b"")
                        break
                else:
                    return found, occupied
            found = with_home(found, card)

    return settle


def start_key(position, rules, columns, width=2):
    if rules.autoplay:
        position = autoplay(position)[0]
    found, cells, cols = position
    ids = [columns.id(bytes(c)) for c in cols]
    if not rules.fixed_columns:
        ids.sort()
    pack = id_packing(width)[0]
    return bytes(found) + bytes(sorted(cells)) + b"\xff" * (rules.ncells - len(cells)) + pack(*ids)


def home_count(k):
    return k[0] + k[1] + k[2] + k[3]


class Search:
    """A depth-first search from `position`, run in one go or in budgeted steps.

    run(max_positions, time_limit, progress) explores until every reachable position is found
    (NO_WIN), a won one is found (WIN), or a budget is reached (UNKNOWN): `max_positions`
    bounds the positions found in all (a position beyond it is never added: the search stops
    with exactly that many), `time_limit` the seconds of this call. After an UNKNOWN, run()
    again goes on from where it stopped.
    """

    def __init__(self, position, rules, narrow=NARROW_COLUMNS, memory=None, capacity=None):
        self.rules = rules
        # The search stops for good (UNKNOWN) rather than hold more positions than a certificate
        # can (`capacity`, smaller only in tests), or than --memory's bytes leave room for.
        self.capacity = SEARCH_CAPACITY if capacity is None else capacity
        self.memory = memory
        self.room = None if memory is None else memory // REFERENCE_BYTES
        self.columns = Columns()
        self.columns.limit = narrow  # (tests widen early with a smaller one)
        self.width = 2
        try:
            first = start_key(position, rules, self.columns)
        except ColumnsFull:  # cannot happen (8 columns), but keep the one code path
            raise AssertionError("8 columns overflowed the id table") from None
        self.expand = make_expander(rules, self.columns)
        self.parent = {first: None}
        self.stack = [first]
        self.most = home_count(first)
        self.won = first if first[:4] == WON else None
        self.seconds = 0.0
        self.failed = ""  # the words of a limit of the search itself, met: final
        self.limit = ""  # ... and which (LIMITS)

    def run(self, max_positions=None, time_limit=None, progress=None):
        t0 = time.monotonic()
        try:
            while True:
                try:
                    reason = self._explore(t0, max_positions, time_limit, progress)
                    break
                except ColumnsFull:
                    if self.width == 3:
                        self.failed = reason = TOO_MANY_COLUMNS
                        self.limit = COLUMNS
                        break
                    self._widen()
        except MemoryError:
            # The set may be half updated (a key added, not yet stacked): final, like the rest.
            self.failed = reason = out_of_memory(len(self.parent))
            self.limit = SYSTEM_MEMORY
        self.seconds += time.monotonic() - t0
        return self._outcome(reason)

    @property
    def positions(self):
        """Distinct positions found so far."""
        return len(self.parent)

    @property
    def most_home(self):
        """Most cards on the foundations in any position found so far."""
        return self.most

    def _explore(self, t0, max_positions, time_limit, progress):
        """Expand positions until done or a budget is reached; the budget's words, or ""."""
        if self.failed:
            return self.failed
        parent, stack, expand = self.parent, self.stack, self.expand
        most = self.most
        stop = min(n for n in (max_positions, self.capacity, self.room) if n is not None)
        expanded = 0
        next_report = t0 + 0.25
        reason = ""
        try:
            while stack and self.won is None:
                k = stack.pop()
                try:
                    successors = expand(k)
                except ColumnsFull:
                    stack.append(k)  # expanded again, from the start, once the keys are wider
                    raise
                for n in successors:
                    if n not in parent:
                        if len(parent) >= stop:
                            # Not added: k goes back, and expanding it again after a larger
                            # budget adds exactly the successors this expansion did not.
                            stack.append(k)
                            return self._stopped(len(parent), max_positions)
                        parent[n] = k
                        stack.append(n)
                        h = n[0] + n[1] + n[2] + n[3]
                        if h > most:
                            most = self.most = h
                            if h == 52:
                                self.won = n
                                break
                expanded += 1
                if expanded % CHECK_EVERY == 0:
                    now = time.monotonic()
                    if time_limit is not None and now - t0 > time_limit:
                        return budget_reason(time_limit=time_limit)
                    if progress is not None and now >= next_report:
                        progress.update(len(parent), most)
                        next_report = now + 0.25
        finally:
            self.most = most
        return reason

    def _stopped(self, n, max_positions):
        """The words of a stop at n positions, the run's budget's first (the compiled engine
        weighs them in the same order); a limit of the search itself is final."""
        if max_positions is not None and n >= max_positions:
            return budget_reason(max_positions)
        if n >= self.capacity:
            self.failed, self.limit = format_full(self.capacity), FORMAT
        else:
            self.failed, self.limit = out_of_memory(n, self.memory), MEMORY
        return self.failed

    def _widen(self):
        """Re-key every position with 3-byte ids (order kept: only the spelling changes)."""
        at = 4 + self.rules.ncells

        def wide(k):
            return None if k is None else k[:at] + pack_wide(*IDS.unpack_from(k, at))

        self.parent = {wide(k): wide(p) for k, p in self.parent.items()}
        self.stack = [wide(k) for k in self.stack]
        self.won = wide(self.won)
        self.width = 3
        self.columns.limit = MOST_COLUMNS
        self.expand = make_expander(self.rules, self.columns, 3)

    def _outcome(self, reason):
        n, cols = len(self.parent), self.columns.content
        common = dict(seconds=self.seconds, columns=cols, width=self.width)
        if self.won is not None:
            path = []
            k = self.won
            while k is not None:
                path.append(k)
                k = self.parent[k]
            path.reverse()
            return Outcome(WIN, n, most_home=52, path=path, **common)
        if reason or self.stack:
            return Outcome(UNKNOWN, n, most_home=self.most, reason=reason,
                           limit=self.limit, **common)
        return Outcome(NO_WIN, n, most_home=self.most, keys=self.parent.keys(), **common)


def search(position, rules, max_positions=None, time_limit=None, progress=None):
    """Explore everything reachable from `position`. Stops at the first won position found."""
    return Search(position, rules).run(max_positions, time_limit, progress)


def decode_key(k, ncells, columns):
    """The position (foundations, cells, columns) a search key stands for (2- or 3-byte ids)."""
    at = 4 + ncells
    ids = IDS.unpack_from(k, at) if len(k) == at + 16 else unpack_wide(k, at)
    return k[:4], k[4:4 + ncells].rstrip(b"\xff"), tuple(columns[i] for i in ids)
