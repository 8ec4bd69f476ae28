"""Exhaustive search over every position reachable by single-card moves.

The rules live in rules.py, written to be read. This module applies the same rules at speed:
columns are interned (each distinct column content gets a small id, and 'take the top card' and
'put a card on top' become table look-ups), and a position is the bytes
foundations + cells + ids, which is the record of docs/certificate-format.md up to the
renumbering of ids done when the certificate is written. tests/test_search.py checks that the
two agree move for move.

Three outcomes, never blurred: WIN (with the path), NO_WIN (with every reachable position),
UNKNOWN (a budget ran out; nothing is claimed).
"""

import struct
import time
from dataclasses import dataclass, field

from .cards import RED
from .rules import WON

WIN, NO_WIN, UNKNOWN = "win", "no-win", "unknown"

# The cards a given card may be stacked on: one rank higher, other colour.
PARENTS = [
    tuple(p for p in range(52) if (p >> 2) == (c >> 2) + 1 and RED[p & 3] != RED[c & 3])
    for c in range(52)
]
IDS = struct.Struct(">8H")  # eight column ids; the search's own numbering, at most 65,536


@dataclass
class Outcome:
    verdict: str
    positions: int  # distinct positions found
    seconds: float
    most_home: int  # most cards ever on the foundations
    path: list = field(default_factory=list)  # WIN: the positions from the start to a won one
    keys: object = None  # NO_WIN: every reachable position's key
    columns: list = field(default_factory=list)  # the interned columns, by id
    reason: str = ""  # UNKNOWN: which budget ran out


class Columns:
    """Interned column contents, with memoised pop and push."""

    def __init__(self):
        self.ids = {}
        self.content = []
        self.top = []  # top card of each column, or -1 if empty
        self.popped = []  # id after removing the top card, or -1 until needed
        self.pushed = {}  # (id << 6 | card) -> id after putting card on top

    def id(self, col):
        i = self.ids.get(col)
        if i is None:
            i = self.ids[col] = len(self.content)
            if i >= 65536:
                raise OverflowError("more than 65,536 distinct columns")
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


def make_expander(rules, columns):
    """A function key -> list of successor keys, for the given rules and column table."""
    F = rules.ncells
    fixed = rules.fixed_columns
    back = rules.foundation_moves
    pad = [b"\xff" * k for k in range(F + 1)]
    pack = IDS.pack
    unpack = IDS.unpack_from
    top, pop, push = columns.top, columns.pop, columns.push

    def key(found, occupied, ids):
        if not fixed:
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
                targets = [j for j in range(8) if tops[j] < 0 and j != source] if fixed else \
                          ([empty] if empty != source else [])
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

        if back:
            for s in range(4):
                r = found[s]
                if r:
                    lowered = found[:s] + bytes((r - 1,)) + found[s + 1:]
                    land((r - 1) * 4 + s, -1, lowered, occupied, ids)
        return out

    return expand


def start_key(position, rules, columns):
    found, cells, cols = position
    ids = [columns.id(bytes(c)) for c in cols]
    if not rules.fixed_columns:
        ids.sort()
    return bytes(found) + bytes(sorted(cells)) + b"\xff" * (rules.ncells - len(cells)) + IDS.pack(*ids)


def home_count(k):
    return k[0] + k[1] + k[2] + k[3]


def search(position, rules, max_positions=None, time_limit=None, progress=None):
    """Explore everything reachable from `position`. Stops at the first won position found."""
    t0 = time.monotonic()
    columns = Columns()
    expand = make_expander(rules, columns)
    first = start_key(position, rules, columns)
    parent = {first: None}
    stack = [first]
    most = home_count(first)
    won = first if first[:4] == WON else None
    expanded = 0
    reason = ""
    next_report = t0 + 0.25
    while stack and won is None:
        k = stack.pop()
        for n in expand(k):
            if n not in parent:
                parent[n] = k
                stack.append(n)
                h = n[0] + n[1] + n[2] + n[3]
                if h > most:
                    most = h
                    if h == 52:
                        won = n
                        break
        expanded += 1
        if expanded & 1023 == 0:
            now = time.monotonic()
            if max_positions is not None and len(parent) > max_positions:
                reason = f"--max-positions {max_positions} reached"
                break
            if time_limit is not None and now - t0 > time_limit:
                reason = f"--time-limit {time_limit:g} s reached"
                break
            if progress is not None and now >= next_report:
                progress.update(len(parent), most)
                next_report = now + 0.25
    seconds = time.monotonic() - t0
    if won is not None:
        path = []
        while won is not None:
            path.append(won)
            won = parent[won]
        path.reverse()
        return Outcome(WIN, len(parent), seconds, 52, path=path, columns=columns.content)
    if stack or reason:
        return Outcome(UNKNOWN, len(parent), seconds, most, reason=reason, columns=columns.content)
    return Outcome(NO_WIN, len(parent), seconds, most, keys=parent.keys(), columns=columns.content)


def decode_key(k, ncells, columns):
    """The position (foundations, cells, columns) a search key stands for."""
    ids = IDS.unpack_from(k, 4 + ncells)
    return k[:4], k[4:4 + ncells].rstrip(b"\xff"), tuple(columns[i] for i in ids)
