"""Cases for tests/test_check_closure.py, found by search with the tests' own oracle (tests/support/oracle.py).

Each case is a set of positions that is closed under every legal move except for a defect the
search was asked for: one position missing that only one kind of move reaches, one position
standing in for a same-card twin, one stacking pair (card X onto card Y) that leads out of the set.
Nothing here comes from certify/ or check/; the file bytes are written by tests/support/certgen.py.
"""
import functools
import itertools
import random

from . import certgen as g
from . import oracle as o

CELL, FOUNDATION = o.CELL, o.FOUNDATION

# Small layouts that cannot be won (the oracle confirms it), each with some cards still in play:
# name -> (start, cells, foundation_moves). The first three come from certgen; the others were
# written for their moves: a card in a free cell whose only way out is its foundation (cell-home),
# or onto one king (cell-onto), and, with foundation moves, a foundation's top card that may go
# onto one black nine and nowhere else (foundation-onto). Black cards never stack on black cards,
# and clubs buried under three higher clubs need more free places than the layout ever has.
BOARDS = {
    'nowin0': (g.NOWIN0, 0, False),
    'nowin1': (g.NOWIN1, 1, False),
    'nowin2': (g.NOWIN2, 2, False),
    'cell-home': (g.board((1, 13, 13, 4), ['2C 5C 4C 3C', '6S 9S 8S 7S', '6C 7C', '8C 9C', 'TC JC',
                                           'QC KC', 'TS JS', 'QS KS'], cells=['5S']), 2, False),
    'cell-onto': (g.board((1, 13, 11, 5), ['2C 5C 4C 3C', '6S 9S 8S 7S', '6C 7C', '8C 9C', 'KH TC JC',
                                           'QC KC', 'TS JS', 'KS QS'], cells=['QH']), 1, False),
    'nowin2-fm': (g.NOWIN2, 2, True),
    'foundation-onto': (g.board((1, 13, 8, 8), ['2C 5C 4C 3C', 'TS KS QS JS', '9S 9C', '9H KC', 'TH QC',
                                                'JH JC', 'QH TC', 'KH 6C 7C 8C']), 0, True),
    'deal1-cell1': (o.start(o.deal(1)), 1, False),
}

# A move's kind: (where the card comes from, where it goes), in the words of section 1.
KINDS = [('column', 'card'), ('column', 'empty column'), ('column', 'cell'), ('column', 'foundation'),
         ('cell', 'card'), ('cell', 'empty column'), ('cell', 'foundation'),
         ('foundation', 'card'), ('foundation', 'empty column')]


def kind(position, card, dest, foundation_moves):
    source = o.where(position, card, foundation_moves)
    src = 'cell' if source == CELL else 'foundation' if source == FOUNDATION else 'column'
    dst = ('cell' if dest == CELL else 'foundation' if dest == FOUNDATION else
           'card' if position[2][dest] else 'empty column')
    return src, dst


def start_of(name, symmetry):
    return o.canonical(BOARDS[name][0], symmetry)


@functools.lru_cache(maxsize=None)
def reach(name, symmetry):
    """Every position reachable from the board's start (canonical); none of them is won."""
    start, cells, fm = BOARDS[name]
    found = o.reachable(start, cells, fm, symmetry, limit=20000)
    assert len(found) <= 20000 and not any(o.is_won(p) for p in found), name
    return frozenset(found)


@functools.lru_cache(maxsize=None)
def predecessors(name, symmetry):
    """{position: {kind of move}} over the moves between positions of reach(name, symmetry)."""
    _, cells, fm = BOARDS[name]
    into = {}
    for q in reach(name, symmetry):
        for card, dest, nxt in o.moves(q, cells, fm):
            into.setdefault(o.canonical(nxt, symmetry), set()).add(kind(q, card, dest, fm))
    return into


def in_record_order(positions, cells, symmetry):
    table = o.column_table(positions)
    return sorted(positions, key=lambda p: o.record(p, table, cells, symmetry))


@functools.lru_cache(maxsize=None)
def sole_kind_case(move_kind, symmetry):
    """(board name, position): a position, not the start, of a board's closed set that every move
    into it from inside the set reaches by this kind of move; the first board and position found."""
    for name, (_, cells, fm) in BOARDS.items():
        if (move_kind[0] == 'foundation') != fm:
            continue
        into, first = predecessors(name, symmetry), start_of(name, symmetry)
        for p in in_record_order(reach(name, symmetry), cells, symmetry):
            if p != first and into.get(p) == {move_kind}:
                return name, p
    raise AssertionError(f'no board has a position reached only by {move_kind}')


# ---- Same-card twins ----

def twins(position, symmetry):
    """Positions with the same cards as this one but one column's cards in another order."""
    found, cells, cols = position
    for k, col in enumerate(cols):
        for order in sorted(set(itertools.permutations(col)) - {col}):
            yield o.canonical((found, cells, cols[:k] + (order,) + cols[k + 1:]), symmetry)


def differing_bytes(a, b):
    return {i for i, (x, y) in enumerate(zip(a, b)) if x != y}


@functools.lru_cache(maxsize=None)
def twin_case(name, symmetry, where, of_start=False):
    """(position p, its twin, the set): the twin p2 is not reachable from the start, the set is
    the start's closed set and p2's, less p, and in that set's column table p's record and p2's
    differ only in the bytes `where` names ('last byte', 'first id', or 'anywhere'). Every move
    of the set stays in it except the moves into p. A checker that compared records without those
    bytes would find p2 where it looks for p. With of_start, p is the start."""
    _, cells, fm = BOARDS[name]
    every, w = reach(name, symmetry), 2
    width = 4 + cells + 8 * w
    allowed = {'last byte': {width - 1}, 'first id': {4 + cells, 4 + cells + 1}}.get(where)
    first, columns = start_of(name, symmetry), set(o.column_table(every))
    candidates = [first] if of_start else [p for p in in_record_order(every, cells, symmetry)
                                           if p != first]
    for p in candidates:
        for p2 in twins(p, symmetry):
            if p2 in every:
                continue
            table = sorted(columns | {bytes(col) for col in p2[2]})
            if allowed and not differing_bytes(o.record(p, table, cells, symmetry),
                                               o.record(p2, table, cells, symmetry)) <= allowed:
                continue
            more = o.reachable(p2, cells, fm, symmetry, limit=3000)
            if len(more) > 3000 or p in more or any(o.is_won(q) for q in more):
                continue
            kept = (every | set(more)) - {p}
            table = o.column_table(kept)
            if not all(bytes(col) in table for col in p[2]):
                continue   # p's record could not even be spelled in the table: no lookup to fool
            diff = differing_bytes(o.record(p, table, cells, symmetry),
                                   o.record(p2, table, cells, symmetry))
            if diff and (not allowed or diff <= allowed):
                return p, p2, frozenset(kept)
    raise AssertionError(f'no twin of {name} differs {where}')


# ---- Stacking pairs ----

def goes_on(x, y):
    """Section 1's stacking rule, read once more: x is one rank below y, in the other colour."""
    return o.rank(y) == o.rank(x) + 1 and o.is_red(x) != o.is_red(y)


PAIRS = [(x, y) for x in range(52) for y in range(52) if goes_on(x, y)]


def moves_but(position, x, y):
    """Every move from position (no free cell, no foundation moves) but x onto a column ending in y."""
    return [(card, dest, nxt) for card, dest, nxt in o.moves(position, 0)
            if not (card == x and dest < 8 and position[2][dest] and position[2][dest][-1] == y)]


@functools.lru_cache(maxsize=None)
def stacking_case(x, y, symmetry):
    """(start, the set): a layout of all 52 cards in the columns, x and y on top of two of them,
    no free cell, and the positions it reaches by every move but x onto y. The set holds no won
    position and is closed under every other move; from some position of it x can go onto y,
    out of the set. (Found by a seeded search over the cards beneath and beside x and y.)"""
    rng = random.Random(x * 52 + y)
    for _ in range(1000):
        others = [c for c in range(4, 52) if c not in (x, y)]   # no ace on top but x
        tops = [x, y] + rng.sample(others, 6)
        if any(goes_on(a, b) for a in tops for b in tops if (a, b) != (x, y)):
            continue
        rest = [c for c in range(52) if c not in tops]
        rng.shuffle(rest)
        cols = [rest[k::8] + [tops[k]] for k in range(8)]
        first = o.canonical(o.start(cols), symmetry)
        seen, todo = {first}, [first]
        while todo and len(seen) <= 200:
            for _, _, nxt in moves_but(todo.pop(), x, y):
                if (key := o.canonical(nxt, symmetry)) not in seen:
                    seen.add(key)
                    todo.append(key)
        if len(seen) > 200 or any(o.is_won(p) for p in seen):
            continue
        leaving = [p for p in seen for card, dest, nxt in o.moves(p, 0)
                   if o.canonical(nxt, symmetry) not in seen]   # (only x onto y can leave)
        if leaving:
            return o.start(cols), frozenset(seen)
    raise AssertionError(f'no layout puts {g.card_name(x)} onto {g.card_name(y)}')
