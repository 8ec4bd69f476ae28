"""Small synthetic boards for exhaustive tests, and a brute-force reference built on tests/support/oracle.py
(a reading of the format document that shares no code with certify/ or check/)."""

from pathlib import Path

from hypothesis import strategies as st
from . import oracle


@st.composite
def small_boards(draw, max_left=6, max_cells=2, full_columns=False):
    """A legal position with only a few cards left to play (the rest already home).

    With full_columns every column starts with a card: boards for the foundation-moves variant,
    where cards may also come back down and an empty board would let the whole deck out again.
    """
    ncells = draw(st.integers(0, max_cells))
    home = [draw(st.integers(13 - max_left // 4 - 1, 13)) for _ in range(4)]
    while 52 - sum(home) > max_left:
        home[home.index(min(home))] += 1
    left = [r * 4 + s for s in range(4) for r in range(home[s], 13)]
    left = draw(st.permutations(left))
    in_cells = draw(st.integers(0, min(ncells, len(left))))
    cells, rest = sorted(left[:in_cells]), left[in_cells:]
    columns = [[] for _ in range(8)]
    if full_columns:
        columns, rest = [[c] for c in rest[:8]], rest[8:]
        columns += [[] for _ in range(8 - len(columns))]
    for card in rest:
        columns[draw(st.integers(0, 7))].append(card)
    position = bytes(home), bytes(cells), tuple(bytes(c) for c in columns)
    return position, ncells


# Boards that cannot be won, found by a seeded random search over boards with mostly black cards
# left (black on black never stacks, so they jam easily), and each checked by the oracle in
# tests/test_search.py. (foundations, cells, columns, free cells, the variants drawn: (fixed
# columns, foundation moves) pairs under which it stays unwinnable and small.)
COLUMNS, FIXED, BACK, BOTH = (False, False), (True, False), (False, True), (True, True)
UNWINNABLE = [
    ((4, 13, 13, 4), (), [[44, 39, 51], [20, 48], [23, 43], [19, 27, 31], [28], [40, 36], [16, 47, 24], [35, 32]], 1,
     (COLUMNS, FIXED, BACK, BOTH)),
    ((5, 13, 13, 5), (27,), [[51, 24], [47, 43], [23, 39, 36], [28], [20, 48, 32], [40], [31], [35, 44]], 2,
     (COLUMNS, FIXED, BACK, BOTH)),
    ((5, 13, 13, 4), (), [[48, 28], [39], [20, 32, 43, 47], [27], [19, 24], [23, 44, 40], [36, 51, 31], [35]], 1,
     (COLUMNS, FIXED, BACK)),
    ((5, 13, 13, 5), (), [[31, 35, 43], [27, 39, 44], [48, 47], [51], [28, 23], [24, 32, 36], [40], [20]], 0,
     (COLUMNS, FIXED)),
    ((4, 13, 13, 4), (), [[31, 39], [51, 28], [44, 35, 36, 47], [20, 43], [48], [16, 24, 23], [19, 32, 27], [40]], 1,
     (COLUMNS, FIXED)),
    ((4, 11, 13, 6), (), [[47, 24], [35, 49], [39, 44, 40], [51], [43, 28], [32, 45], [31, 20], [36, 27, 16, 48]], 0,
     (COLUMNS, FIXED)),
    ((4, 13, 13, 4), (40,), [[32], [27, 51], [43, 31], [35, 16, 19], [28], [48, 36], [47, 23, 44], [20, 24, 39]], 2,
     (COLUMNS, FIXED)),
    ((4, 13, 13, 4), (), [[20, 43], [44], [19, 32, 24, 51], [16, 47, 36], [23, 35, 48, 27], [28, 31], [40], [39]], 1,
     (COLUMNS, FIXED)),
    ((5, 13, 12, 4), (19, 51), [[50, 40], [31], [36], [44], [23, 47, 39, 27, 24], [48], [28], [20, 35, 43, 32]], 2,
     (COLUMNS,)),
    ((4, 12, 13, 5), (), [[40], [35], [20, 32, 47], [24, 49], [48, 44, 51], [27, 28, 31, 39], [43, 16], [36, 23]], 1,
     (COLUMNS,)),
    ((5, 13, 13, 4), (39,), [[32, 44], [47], [48, 24], [35, 31], [20], [28, 43, 23], [19, 51, 27], [40, 36]], 1,
     (COLUMNS, FIXED)),
    ((4, 13, 13, 7), (), [[43, 24, 51], [32], [48, 35], [36, 39], [16, 40, 47], [31], [20, 44], [28]], 0,
     (COLUMNS, FIXED)),
]


def relabel(card, swap_black, swap_red):
    """The card with clubs and spades (and/or diamonds and hearts) swapped: same colour, same rank."""
    suit = card % 4
    if swap_black and suit in (0, 3):
        suit = 3 - suit
    if swap_red and suit in (1, 2):
        suit = 3 - suit
    return card - card % 4 + suit


@st.composite
def unwinnable_boards(draw):
    """((position, free cells), (fixed columns, foundation moves)): one of UNWINNABLE, under one of
    its variants, its columns in another order and its suits perhaps swapped within a colour: the
    same game under other names, so it cannot be won either."""
    found, cells, columns, ncells, variants = draw(st.sampled_from(UNWINNABLE))
    swap_black, swap_red = draw(st.booleans()), draw(st.booleans())
    order = draw(st.permutations(range(8)))

    def new(card):
        return relabel(card, swap_black, swap_red)
    found = [found[relabel(s, swap_black, swap_red)] for s in range(4)]   # a swap is its own inverse
    position = (bytes(found), bytes(sorted(map(new, cells))), tuple(bytes(map(new, columns[i])) for i in order))
    return (position, ncells), draw(st.sampled_from(variants))


def as_oracle(position):
    found, cells, cols = position
    return tuple(found), tuple(sorted(cells)), tuple(tuple(c) for c in cols)


def as_certify(position):
    found, cells, cols = position
    return bytes(found), bytes(cells), tuple(bytes(c) for c in cols)


def key(position, fixed_columns=False):
    """The oracle's canonical form of a position (certify's or the oracle's)."""
    return oracle.canonical(as_oracle(position), 'none' if fixed_columns else 'columns')


def reachable(position, ncells, fixed_columns=False, foundation_moves=False, limit=None):
    """Every position reachable from `position`: {oracle canonical form: position as certify
    writes it}, by the oracle's breadth-first search. With a limit, stops (returning what it
    has) once more than `limit` positions are found."""
    found = oracle.reachable(as_oracle(position), ncells, foundation_moves,
                             'none' if fixed_columns else 'columns', limit)
    return {k: as_certify(p) for k, p in found.items()}


def any_won(positions):
    return any(oracle.is_won(as_oracle(p)) for p in positions.values())
