"""A solver that finds wins fast, with lines short enough for a person to follow.

    solve(position, rules, budget, styles) -> [(card, dest), ...] or None
                                                    (engine.solve_line, without the C)

Best-first search over positions, moving as players do: supermoves (several cards from column to
column through the free cells and empty columns, notation.supermove), single cards to and from
the cells, and safe foundation moves made automatically after every move (notation.is_safe_home).
Positions are compared up to the order of the columns. No one way of weighing the moves made
against an estimate of the moves to go is fast on every deal, so a few searches of different
STYLES take turns. The win found is then shortened (`shortcut`) and spelled out as single-card
moves, every foundation move written out, so the line replays under the plain rules with no
automatic moves; engine.solve_line replays it (rules.replays_to_win) before it is believed.

The solver only ever claims a win. It gives up (returns None) when its budget of positions runs
out or when its own graph is exhausted (supermoves and automatic foundation moves make it
smaller than the exhaustive one); proved() then tries its FLARES (other styles, each within its
own budget), and then falls back to the exhaustive search, which alone may say that a deal
cannot be won. It keeps to rules.ncells and never moves a card off a
foundation, so its lines are legal whether or not the rules allow that.

This is the reference. certify/engine/solver.c does the same, function by function, in C, and
must find exactly the same line for the same position, free cells and budget (whole-number
priorities, ties to the earlier push), so that both engines write the same certificates:
tests/test_solver_native.py holds it to that. A change here is a change there.
"""

import heapq
from itertools import chain, count

from ...game.notation import is_safe_home, play, run_length, supermove
from ...game.rules import CELL, HOME, WON, stacks_on

# Positions expanded, in all, before giving up. A deal the solver gives up on goes to the exhaustive
# search, whose depth-first lines run to 10^5 moves and beyond. 60,000 left 6 of deals 1-32000 to
# it; 250,000 none of 1-32000, but 14 of 1-1,000,000, whose lines had 1,179 to 436,657 moves (the
# last, deal 658469, past check's default --max-moves; deal 581546 took the search 322 s and 6.7 GB).
# At 1,000,000 the compiled solver wins each of the 13 that were tried in under 0.5 s, in 118 to
# 176 moves; giving up there costs it 0.6 s and 118 MB (deal 7484159).
BUDGET = 1_000_000
# Estimates and weights count in twentieths of a move (UNIT), so that priorities are whole
# numbers: exact, and the same in the C engine (certify/engine/solver.c) as here.
UNIT = 20
# Search styles: (weight of a move made, weight of a card lying in sequence in `disorder`), in
# UNITs, against the estimate of moves to go. No one style is fast on every deal; the first is
# fast on most, the others on most of the deals where it is slow (tuned on deals 1-1000; the
# first style's 12 rather than 10 costs 8% more positions for lines a notation move shorter:
# 89.2 notation moves on average over deals 1-32000 instead of 90.2).
STYLES = ((12, 5), (6, 20), (6, 5), (16, 5))
HEAD_START = 1000  # positions the first style expands alone
TURN = 500  # then the styles take turns of this many positions

# Flares: when the main attempt (STYLES within BUDGET) gives up, further searches tried in
# turn, each (styles, head start, turn, budget), before proved() goes on to the exhaustive
# search (as Freecell Solver's `-l lg` preset runs scans of other move orders and budgets). A
# deal the main attempt misses is one it leads astray: a search that weighs the moves made
# otherwise often wins at once. The three below were chosen by measurement on the winnable
# deals below ten million the main attempt misses (bench_solver.py --flares), one style each:
# one that weighs the moves made heavily, one hardly at all, one between; between them they
# win all of those deals, in 79 to 200 single-card moves, each within its budget with room to
# spare (the positions the winning flare's first win came at, in thousands: 6, 11, 21, 35, 98,
# 99, 107, 191, 195, 214, 269, 281, 298). Of deals they were not chosen on, the 22 winnable deals of
# 1..32,000 that the main attempt misses within 32,000 positions, the first flare wins every
# one, in 91 to 125 moves. A deal none of them wins costs their budgets, 1,000,000 positions in
# all: as much as the main attempt.
FLARES = (
    (((20, 20),), HEAD_START, TURN, 300_000),
    (((2, 0),), HEAD_START, TURN, 300_000),
    (((12, 0),), HEAD_START, TURN, 400_000),
)


def solve(position, rules, budget=BUDGET, styles=None):
    """A winning line of single-card moves [(card, dest)] from `position`, or None. `styles`:
    a flare's (styles, head start, turn), as FLARES has them (None: the main attempt's)."""
    ncells = rules.ncells
    for memo in (RUN_MOVES, SAFE, *DISORDER.values()):  # memory stays bounded over a long
        if len(memo) > 200_000:                          # census; they refill in a moment
            memo.clear()
    styles, head_start, turn = (STYLES, HEAD_START, TURN) if styles is None else styles
    path = search_in_turns(position, ncells, budget, styles, head_start, turn)
    if path is None:
        return None
    return single_card_moves(position, shortcut(path, ncells), ncells)


# ---- the search --------------------------------------------------------------------------

def search_in_turns(start, ncells, budget, styles=STYLES, head_start=HEAD_START, turn=TURN):
    """Run the searches of every style in turns until one wins, one runs out of positions (all
    search the same graph, so there is no win in it) or the budget is spent."""
    searches = [best_first(start, ncells, *style) for style in styles]
    try:
        for search in searches:
            next(search)  # up to its first turn
    except StopIteration as end:  # the start is won already
        return end.value
    turns = chain([(0, head_start)], ((i % len(styles), turn) for i in count(1)))
    for which, size in turns:
        size = min(size, budget)
        if size <= 0:
            return None
        budget -= size
        try:
            searches[which].send(size)
        except StopIteration as end:
            return end.value


def best_first(start, ncells, weight, sequenced):
    """A search, as a generator: send it how many positions to expand next; it returns the
    positions along a win from `start` (after its safe foundation moves), or None when there
    is no position left to expand.

    Always expands the position with the least estimate + weight * moves made; positions are
    taken up to the order of the columns, each met once.
    """
    disorder = DISORDER[sequenced]
    root = autoplay(start)[1]
    nodes = {key(root): (root, None, 0)}  # key -> (position, parent's key, moves from root)
    if root[0] == WON:
        return [root]
    heap = [(estimate(root, disorder), 0, key(root))]
    pushed = 0
    allowed = yield
    while heap:
        if allowed <= 0:
            allowed = yield
        allowed -= 1
        _, _, k = heapq.heappop(heap)
        position, _, g = nodes[k]
        for move in player_moves(position, ncells):
            child = successor(position, move)
            ck = key(child)
            if ck in nodes:
                continue
            nodes[ck] = (child, k, g + 1)
            if child[0] == WON:
                return path_to(ck, nodes)
            pushed += 1
            heapq.heappush(heap, (estimate(child, disorder) + weight * (g + 1), pushed, ck))
    return None


def path_to(k, nodes):
    path = []
    while k is not None:
        position, k, _ = nodes[k]
        path.append(position)
    return path[::-1]


def estimate(position, disorder):
    """A guess at how many moves are still needed, in UNITs: a move home for every card not
    home, more for the cards lying on lower cards (`disorder`), and one for every occupied cell.
    (Weights tuned on deals 1-1000 for few positions and short lines: see
    benchmarks/bench_solver.py.)"""
    found, cells, cols = position
    return (UNIT * (52 - found[0] - found[1] - found[2] - found[3] + CELL_COST * len(cells))
            + sum(map(disorder.__getitem__, cols)))


class Memo(dict):
    """A dict that computes a missing value with its function (so that look-ups stay in C)."""

    def __init__(self, function):
        super().__init__()
        self.function = function

    def __missing__(self, k):
        v = self[k] = self.function(k)
        return v


CELL_COST = 1


def disorder(col, sequenced):
    """How many cards of a column lie above a card of lower rank (they must get out of the
    way before it can go home), in UNITs, a card that lies in sequence on the one below counting
    only `sequenced`: it can leave with a supermove, and it is on its way to being in order."""
    n, low, below = 0, 99, None
    for c in col:
        r = c >> 2
        if r > low:
            n += sequenced if below is not None and stacks_on(c, below) else UNIT
        else:
            low = r
        below = c
    return n


# sequenced -> column -> disorder(column, sequenced), memoised
DISORDER = Memo(lambda w: Memo(lambda col: disorder(col, w)))


def shortcut(path, ncells):
    """Player moves from path[0] to the win at path[-1], jumping ahead wherever one move
    reaches a position further along the path."""
    index = {key(p): i for i, p in enumerate(path)}
    position, i, moves = path[0], 0, []
    while i < len(path) - 1:
        best = None
        for move in player_moves(position, ncells):
            child = successor(position, move)
            j = index.get(key(child), -1)
            if best is None or j > best[0]:
                best = (j, move, child)
        i, move, position = best
        moves.append(move)
    return moves


def single_card_moves(start, moves, ncells):
    """The line of single-card moves for player moves from `start`, safe foundation moves
    (made before the first move and after each) written out."""
    line, position = autoplay(start)
    for move in moves:
        card, dest, k, source = move
        found, cells, cols = position
        if k == 1:
            steps = [(card, dest)]
        else:
            empties = [x for x in range(8) if not cols[x] and x != dest]
            steps = supermove(cols[source][-k:], source, dest, ncells - len(cells), empties)
        for c, d in steps:
            position = play(position, c, d)
        more, position = autoplay(position)
        line += steps + more
    return line


# ---- moves as players make them ----------------------------------------------------------

def player_moves(position, ncells):
    """Every move a player would consider, as (card, dest, k, source): move `card` (with the
    k-1 cards on top of it, for a supermove) from column `source` (-1: a free cell) to `dest`
    (a column, CELL or HOME). Moves that only shift a whole column into an empty one are left
    out, and of several empty columns only the first is a destination."""
    found, cells, cols = position
    free = ncells - len(cells)
    where = {col[-1]: j for j, col in enumerate(cols) if col}  # top card -> its column
    empty = 8 - len(where)
    first_empty = cols.index(b"") if empty else -1
    room = (free + 1) << empty  # most cards onto a non-empty column
    room_empty = (free + 1) << (empty - 1) if empty else 0  # ... onto an empty one
    out = []
    for card in cells:
        if found[card & 3] == card >> 2:
            out.append((card, HOME, 1, -1))
    for card, s in where.items():
        if found[card & 3] == card >> 2:
            out.append((card, HOME, 1, s))
    for s, col in enumerate(cols):
        if not col:
            continue
        onto, alone = RUN_MOVES[col]
        for parent, card, k in onto:
            d = where.get(parent)
            if d is not None and k <= room:
                out.append((card, d, k, s))
        if empty:
            for card, k in alone:
                if k <= room_empty:
                    out.append((card, first_empty, k, s))
        if free:
            out.append((col[-1], CELL, 1, s))
    for card in cells:
        for parent in PARENTS[card]:
            d = where.get(parent)
            if d is not None:
                out.append((card, d, 1, -1))
        if empty:
            out.append((card, first_empty, 1, -1))
    return out


def run_moves(col):
    """The supermoves a column offers, whatever the rest of the position: (onto, alone) where
    onto lists (parent, card, k): its top k cards, from `card` up, may go onto `parent`; and
    alone lists (card, k), the most cards first: they may go onto an empty column (never the
    whole column)."""
    run = run_length(col)
    onto = tuple((parent, col[-k], k) for k in range(1, run + 1) for parent in PARENTS[col[-k]])
    alone = tuple((col[-k], k) for k in range(min(run, len(col) - 1), 0, -1))
    return onto, alone


PARENTS = [tuple(p for p in range(52) if stacks_on(c, p)) for c in range(52)]
RUN_MOVES = Memo(run_moves)


def successor(position, move):
    """The position after a player move and the safe foundation moves it allows, from a
    position that has none left: unless the move went home, only the card it uncovered may
    now go home safely."""
    child = after(position, move)
    card, dest, k, source = move
    if dest == HOME:
        return autoplay(child)[1]
    if source >= 0:
        rest = child[2][source]
        if rest and rest[-1] in SAFE[child[0]]:
            return autoplay(child)[1]
    return child


def after(position, move):
    """The position after a player move (before any automatic foundation moves)."""
    card, dest, k, source = move
    found, cells, cols = position
    if source < 0:
        cells = cells.replace(bytes((card,)), b"")
        moved = bytes((card,))
    else:
        moved = cols[source][-k:]
        cols = cols[:source] + (cols[source][:-k],) + cols[source + 1:]
    if dest == HOME:
        s = card & 3
        found = found[:s] + bytes((found[s] + 1,)) + found[s + 1:]
    elif dest == CELL:
        cells = bytes(sorted(cells + moved))
    else:
        cols = cols[:dest] + (cols[dest] + moved,) + cols[dest + 1:]
    return found, cells, cols


def autoplay(position):
    """Safe foundation moves, one after another until none is left: (moves, position)."""
    line = []
    found, cells, cols = position
    while True:
        safe = SAFE[found]
        card = next((c for c in cells if c in safe), None)
        if card is not None:
            cells = cells.replace(bytes((card,)), b"")
        else:
            for s, col in enumerate(cols):
                if col and col[-1] in safe:
                    card = col[-1]
                    cols = cols[:s] + (col[:-1],) + cols[s + 1:]
                    break
            else:
                return line, (found, cells, cols)
        line.append((card, HOME))
        suit = card & 3
        found = found[:suit] + bytes((found[suit] + 1,)) + found[suit + 1:]


# foundations -> the cards that may go home safely
SAFE = Memo(lambda found: frozenset(c for c in range(52) if is_safe_home(c, found)))


def key(position):
    """Positions are the same for the search up to the order of the columns."""
    found, cells, cols = position
    return found + cells + b"\xff" + b"\xfe".join(sorted(cols))
