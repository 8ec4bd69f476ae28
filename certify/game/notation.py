"""Multi-card moves and the players' standard notation.

Players write a FreeCell solution two characters a move, ten moves a line:

    3a  column 3's top card to free cell a      a4  the card in cell a onto column 4
    5h  column 5's top card to its foundation   ah  the card in cell a to its foundation
    36  the top cards of column 3 that go onto column 6's top card (a 'supermove')

Columns are 1-8, free cells a-d, h the foundation; with more than four cells, a-g and then 'k'
for an eighth, as Freecell Solver writes them ('h' is taken). A free cell is named by its
place, so to read or write notation we keep track of which cell each card sits in, though a
certificate treats the cells as a set; a card goes into the first empty cell when we write.

A column-to-column move carries k cards: the top k cards of the source, which must be an
alternating run (each one rank below the card under it, other colour), with
k <= (empty free cells + 1) * 2 ** (empty columns, not counting an empty destination). It
stands for single-card moves through the free cells and empty columns (`supermove`). Onto a
non-empty column k is fixed by the destination's top card; onto an empty one the plain
notation does not say. Freecell Solver's extended form (-snx) appends 'v' and k in hex
(47vb = 11 cards; no suffix = one card), and is read exactly; a plain line is read by trying
every k, the most first, and backtracking until some reading is legal and ends won.

Foundation moves: the notation written here (`to_notation`) has every foundation move in it,
so a line replays without any automatic moves. `read` takes such lines; with autoplay=True it
also takes lines that leave safe foundation moves unwritten (`is_safe_home` says which).
"""

import re

from .cards import RED, name
from .rules import CELL, HOME, WON, goes_home, stacks_on

HEX = re.compile(r"[0-9a-f]+")
CELL_LETTERS = "abcdefgk"  # Freecell Solver skips 'h' (the foundation) for an eighth cell
COLUMN_DIGITS = "12345678"
MOVES_PER_LINE = 10


class NotationError(ValueError):
    """A line that cannot be read: says which move (1-based) and why."""

    def __init__(self, number, text, reason):
        super().__init__(f"move {number} ({text}): {reason}" if number else reason)
        self.number, self.text, self.reason = number, text, reason


# ---- multi-card moves --------------------------------------------------------------------

def capacity(free_cells, empty_columns):
    """How many cards one supermove may carry: (free cells + 1) * 2 ** empty columns."""
    return (free_cells + 1) << empty_columns


def run_length(column):
    """How many cards at the top of a column form an alternating run."""
    n = 1 if column else 0
    while n < len(column) and stacks_on(column[-n], column[-n - 1]):
        n += 1
    return n


def supermove(cards, source, dest, free_cells, empties):
    """The single-card moves that carry `cards` (bottom to top) from column `source` to `dest`.

    Uses `free_cells` empty cells and the empty columns `empties` (neither source nor dest) as
    temporary places; needs len(cards) <= capacity(free_cells, len(empties)). The classic
    recursion: park the upper part on an empty column, move the rest, bring the upper part over.
    """
    k = len(cards)
    if k <= free_cells + 1:
        upper = cards[1:]
        return ([(c, CELL) for c in reversed(upper)] + [(cards[0], dest)]
                + [(c, dest) for c in upper])
    spare, rest = empties[0], empties[1:]
    fit = capacity(free_cells, len(rest))
    if k <= fit:  # this empty column is not needed
        return supermove(cards, source, dest, free_cells, rest)
    upper, lower = cards[k - fit:], cards[:k - fit]
    return (supermove(upper, source, spare, free_cells, rest)
            + supermove(lower, source, dest, free_cells, rest)
            + supermove(upper, spare, dest, free_cells, rest))


def is_safe_home(card, found):
    """May `card` go home without ever being missed? Yes when it can go and no card could
    still want to lie on it: it is an ace or a two, or both other-colour cards one rank lower
    are home. (Moving such a card home never turns a won game into a lost one.)"""
    r, s = card >> 2, card & 3
    if found[s] != r:
        return False
    if r <= 1:
        return True
    red = RED[s]
    return all(found[o] >= r for o in range(4) if RED[o] != red)


def play(position, card, dest):
    """The position after the single-card move (card, dest), which the caller knows is legal."""
    found, cells, cols = position
    if card in cells:
        cells = cells.replace(bytes((card,)), b"")
    else:
        s = next(i for i, c in enumerate(cols) if c and c[-1] == card)
        cols = cols[:s] + (cols[s][:-1],) + cols[s + 1:]
    if dest == HOME:
        suit = card & 3
        found = found[:suit] + bytes((found[suit] + 1,)) + found[suit + 1:]
    elif dest == CELL:
        cells = bytes(sorted(cells + bytes((card,))))
    else:
        cols = cols[:dest] + (cols[dest] + bytes((card,)),) + cols[dest + 1:]
    return found, cells, cols


def safe_home_moves(position, slots=None):
    """Every safe foundation move, made one after another until none is left:
    (the moves, the position after them, the cell places after them)."""
    slots = list(slots) if slots is not None else None
    line = []
    while True:
        found, cells, cols = position
        tops = list(cells) + [c[-1] for c in cols if c]
        card = next((c for c in tops if is_safe_home(c, found)), None)
        if card is None:
            return line, position, slots
        if slots is not None and card in cells:
            slots[slots.index(card)] = None
        line.append((card, HOME))
        position = play(position, card, HOME)


def first_places(position, ncells):
    """Which cell each card sits in at the start: a position knows only which cards are in
    the cells, so we take them to be in cells a, b, ... in ascending order."""
    cells = position[1]
    return tuple(cells) + (None,) * (ncells - len(cells))


# ---- writing notation -----------------------------------------------------------------------

def to_notation(start, line, ncells, extended=False):
    """The notation moves (strings) for a legal line of single-card moves from `start`.
    (NotationError if the line moves a card off a foundation: the notation cannot say that.)

    Consecutive single-card moves whose net effect is moving the top k cards of one column onto
    another, within the supermove rules, become one move (as a supermove is written); every
    other move is written as it is, foundation moves included. With `extended`, a move of
    k > 1 cards onto an empty column gets Freecell Solver's 'v' suffix (k in hex).
    """
    position, slots, out, i = start, list(first_places(start, ncells)), [], 0
    while i < len(line):
        card, dest = line[i]
        source = next((s for s, col in enumerate(position[2]) if col and col[-1] == card), None)
        if source is None and card not in position[1]:
            raise NotationError(i + 1, name(card), "the notation has no moves off a foundation")
        group = _supermove_at(position, line, i, source, ncells) if source is not None else None
        if group is not None:
            j, k, d = group
            text = COLUMN_DIGITS[source] + COLUMN_DIGITS[d]
            if extended and k > 1 and not position[2][d]:
                text += f"v{k:x}"
            for card, dest in line[i:j + 1]:
                position = play(position, card, dest)
            out.append(text)
            i = j + 1
            continue
        text = COLUMN_DIGITS[source] if source is not None else CELL_LETTERS[slots.index(card)]
        if source is None:
            slots[slots.index(card)] = None
        if dest == HOME:
            text += "h"
        elif dest == CELL:
            place = slots.index(None)
            slots[place] = card
            text += CELL_LETTERS[place]
        else:
            text += COLUMN_DIGITS[dest]
        position = play(position, card, dest)
        out.append(text)
        i += 1
    return out


def _supermove_at(position, line, i, source, ncells):
    """The longest run of moves line[i..j] that together move the top k cards of column
    `source` onto one other column d, legally as one supermove: (j, k, d), or None."""
    found, cells, cols = position
    column = cols[source]
    run = set(column[-run_length(column):])
    free = ncells - len(cells)
    best = None
    p = position
    for j in range(i, min(len(line), i + 256)):
        card, dest = line[j]
        if card not in run or dest == HOME:
            break
        p = play(p, card, dest)
        if p[1] != cells:
            continue
        changed = [x for x in range(8) if p[2][x] != cols[x]]
        if len(changed) != 2 or source not in changed:
            continue
        d = changed[0] if changed[1] == source else changed[1]
        k = len(column) - len(p[2][source])
        empties = sum(1 for x in range(8) if not cols[x] and x != d)
        if (0 < k <= capacity(free, empties) and p[2][source] == column[:-k]
                and p[2][d] == cols[d] + column[-k:]):
            best = (j, k, d)
    return best


def lines_of(moves, per_line=MOVES_PER_LINE):
    """Notation moves as text, ten to a line."""
    return "\n".join(" ".join(moves[i:i + per_line]) for i in range(0, len(moves), per_line))


# ---- reading notation -----------------------------------------------------------------------

# Lines Freecell Solver prints around its moves (fc-solve -m -sn); they carry no moves.
SOLVER_CHATTER = ("-=-=-", "This game is solveable.", "Total number of states checked is",
                  "This scan generated")


def parse(text, ncells):
    """The moves of a notation text: a list of (number, text, source, dest, count).

    source: ('column', 0..7) or ('cell', 0..ncells-1); dest: the same or ('home', None);
    count: the 'v' suffix's number of cards, or None. Blank lines, '#' comments and Freecell
    Solver's own lines around the moves are skipped; anything else that is not a move is an error.
    """
    moves = []
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line or line.startswith(SOLVER_CHATTER):
            continue
        for word in line.split():
            number = len(moves) + 1
            moves.append((number, word) + _parse_move(number, word, ncells))
    return moves


def _parse_move(number, word, ncells):
    def place(ch, may_be_home):
        if ch in COLUMN_DIGITS:
            return "column", COLUMN_DIGITS.index(ch)
        if ch == "h" and may_be_home:
            return "home", None
        if ch in CELL_LETTERS[:ncells]:
            return "cell", CELL_LETTERS.index(ch)
        if ch in CELL_LETTERS:
            raise NotationError(number, word, f"there is no free cell {ch!r} with {ncells} cells")
        raise NotationError(number, word, f"{ch!r} is not a column 1-8, a free cell "
                                          f"{CELL_LETTERS[:ncells] or '(none)'} or h")

    if not word.isascii():  # str.lower() would make the Kelvin sign a 'k'
        raise NotationError(number, word, "not a move: moves are written in ASCII")
    w = word.lower()
    if len(w) < 2 or (len(w) > 2 and (w[2] != "v" or len(w) == 3)):
        raise NotationError(number, word, "not a move: two characters, or 'v' and a count")
    if w[0] == "h":
        raise NotationError(number, word, "the notation has no moves from a foundation")
    source, dest = place(w[0], False), place(w[1], True)
    count = None
    if len(w) > 2:
        if HEX.fullmatch(w[3:]) is None:  # int(_, 16) would also take '1_0' and other digits
            raise NotationError(number, word, f"{w[3:]!r} is not a hexadecimal count")
        count = int(w[3:], 16)
        if count < 1 or source[0] != "column" or dest[0] != "column":
            raise NotationError(number, word, "a 'v' count belongs on a column-to-column move")
    if source == dest:
        raise NotationError(number, word, "a move must go somewhere else")
    return source, dest, count


def read(start, moves, ncells, autoplay=False, ends=None, extended=None, max_steps=1_000_000):
    """The single-card moves that a parsed notation line stands for, from `start`.

    In the extended form (extended=True, or None and some move has a 'v' count) a move onto an
    empty column without a count carries one card. In the plain form, where a line does not
    say how many cards go onto an empty column, every count is tried, the most first,
    backtracking until some reading is legal throughout and ends won (or, if given, in a
    position for which ends(position) is true). With autoplay, safe foundation
    moves (is_safe_home) are made before every move and at the end, as a program that plays
    them automatically leaves them unwritten.
    Raises NotationError naming the move no reading gets past.
    """
    if extended is None:
        extended = any(move[4] is not None for move in moves)
    furthest = (-1, None)  # (index of the move, reason) where the best reading stopped
    seen = set()
    # Depth-first over readings; a trail is (single-card moves, previous trail), so that a
    # long line is not copied at every step.
    stack = [(0, start, first_places(start, ncells), None)]
    steps = 0
    while stack:
        i, position, slots, trail = stack.pop()
        steps += 1
        if steps > max_steps:
            raise NotationError(0, "", f"no legal reading found in {max_steps:,} steps")
        if autoplay:
            more, position, slots = safe_home_moves(position, slots)
            slots = tuple(slots)
            if more:
                trail = (more, trail)
        key = (i, position, slots)
        if key in seen:
            continue
        seen.add(key)
        if i == len(moves):
            if position[0] == WON if ends is None else ends(position):
                return _unwound(trail)
            what = "the game is not won" if ends is None else "not in the expected position"
            furthest = (i, f"after the last move ({i}: {moves[-1][1] if moves else '-'}) "
                           f"{what}: {sum(position[0])} of 52 cards are home")
            continue
        try:
            readings = move_readings(position, slots, moves[i], ncells, extended)
        except NotationError as e:
            if i > furthest[0]:
                furthest = (i, e)
            continue
        for line, after in reversed(readings):  # so that the first reading is tried first
            p = position
            for card, dest in line:
                p = play(p, card, dest)
            stack.append((i + 1, p, after, (line, trail)))
    reason = furthest[1]
    if isinstance(reason, NotationError):
        raise reason
    raise NotationError(0, "", reason or "there are no moves")


def _unwound(trail):
    parts = []
    while trail is not None:
        line, trail = trail
        parts.append(line)
    return [move for line in reversed(parts) for move in line]


def move_readings(position, slots, move, ncells, extended=False):
    """The ways to carry out one parsed notation move from `position` with the cards in the
    cells at places `slots` (a tuple, None for an empty cell): a list of (single-card moves,
    cell places after them), most cards first. `extended`: a move onto an empty column that
    gives no count carries one card. Raises NotationError saying why there is none."""
    number, word, (skind, s), (dkind, d), count = move
    found, cells, cols = position

    def fail(reason):
        raise NotationError(number, word, reason)

    if skind == "cell":
        card = slots[s]
        if card is None:
            fail(f"free cell {CELL_LETTERS[s]} is empty")
        after = list(slots)
        after[s] = None
        if dkind == "cell":
            fail("a move from a free cell to a free cell")
        if count not in (None, 1):
            fail("a free cell holds one card")
    else:
        if not cols[s]:
            fail(f"column {s + 1} is empty")
        card, after = cols[s][-1], list(slots)
    if dkind == "home":
        if not goes_home(card, found):
            fail(f"{name(card)} cannot go to its foundation")
        return [([(card, HOME)], tuple(after))]
    if dkind == "cell":
        if slots[d] is not None:
            fail(f"free cell {CELL_LETTERS[d]} holds {name(slots[d])}")
        after[d] = card
        return [([(card, CELL)], tuple(after))]
    target = cols[d]
    if skind == "cell":
        if target and not stacks_on(card, target[-1]):
            fail(f"{name(card)} cannot go onto {name(target[-1])}")
        return [([(card, d)], tuple(after))]
    # column to column: a supermove of k cards
    column = cols[s]
    run = run_length(column)
    free = ncells - len(cells)
    empties = [x for x in range(8) if not cols[x] and x != d]
    room = capacity(free, len(empties))
    if target:
        k = (target[-1] >> 2) - (card >> 2)
        if not (1 <= k <= run and stacks_on(column[-k], target[-1])):
            fail(f"no card of the run {_names(column[-run:])} goes onto {name(target[-1])}")
        counts = [k]
    else:
        counts = ([count] if count is not None else [1] if extended
                  else list(range(min(run, room), 0, -1)))
    if count is not None and count != counts[0]:
        fail(f"the move carries {counts[0]} cards, not {count}")
    if counts[0] > run:
        fail(f"the top {counts[0]} cards of column {s + 1} are not an alternating run")
    if counts[0] > room:
        fail(f"{counts[0]} cards is more than {free} free cells and {len(empties)} empty "
             f"columns can carry ({room})")
    return [(supermove(column[-k:], s, d, free, empties), tuple(after)) for k in counts]


def _names(cards):
    return " ".join(name(c) for c in cards)
