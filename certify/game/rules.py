"""The rules of FreeCell with single-card moves, and the one canonical byte encoding of a position.

A position is a triple (foundations, cells, columns):
  foundations  bytes of 4: how many cards of each suit (C, D, H, S) are home, 0..13
  cells        bytes: the cards in the free cells, in ascending order (the cells are a set)
  columns      tuple of 8 bytes: each column's cards from bottom to top

A move is (card, destination): destination 0..7 is a column, CELL a free cell, HOME the foundation.
The card says where the move starts: it is the top card of a column, a card in a cell, or
(only where foundation moves are allowed) the top card of a foundation.
"""

from .cards import RED

CELL, HOME = 8, 9
EMPTY = 0xFF  # an empty free cell, and the end of a column, in the encoding
WON = bytes([13, 13, 13, 13])
DEFAULT_CELLS = 4


class Rules:
    """Which game: how many free cells, whether columns keep fixed places (or are taken up to
    permutation, which the rules never distinguish), and whether a foundation's top card may
    come back onto a column (a variant). And which closure a no-win proves its claim with:
    `autoplay`, every move then safe moves home (autoplay() below), or every move alone. The
    claim is the same either way; autoplay is unsound with foundation moves, so it is off there
    whatever is asked.

    A value: two Rules with the same fields are equal and hash alike. It is what moves() and
    both engines take (the compiled engine reads these four fields in one place,
    certify/engine/rules.h), and it says itself the three ways the rest of certify spells it:
    words() in every line certify prints, suffix() in default file names, and header() in a
    certificate's header (docs/certificate-format.md).

    A plain class, not a dataclass: `certify N` imports this module, and dataclasses costs its
    start-up ~10 ms (as outcome.Outcome says)."""

    __slots__ = ("ncells", "fixed_columns", "foundation_moves", "autoplay")

    def __init__(self, ncells=DEFAULT_CELLS, fixed_columns=False, foundation_moves=False,
                 autoplay=False):
        # Autoplay is unsound with foundation moves: off there whatever is asked.
        fields = (ncells, fixed_columns, foundation_moves, autoplay and not foundation_moves)
        for name, value in zip(self.__slots__, fields):
            object.__setattr__(self, name, value)

    def __setattr__(self, name, value):
        raise AttributeError(f"Rules is a value: its {name} cannot change")

    __delattr__ = __setattr__

    def _fields(self):
        return (self.ncells, self.fixed_columns, self.foundation_moves, self.autoplay)

    def __eq__(self, other):
        return (self._fields() == other._fields() if type(other) is Rules
                else NotImplemented)

    def __hash__(self):
        return hash(self._fields())

    def __repr__(self):
        return ("Rules(" + ", ".join(f"{name}={value!r}" for name, value
                                     in zip(self.__slots__, self._fields())) + ")")

    def __reduce__(self):
        # Rules cross process boundaries (the range's workers, Dask) by pickle.
        return Rules, self._fields()

    def words(self):
        """The rules as every line of certify's says them (and check's, which it shares no code
        with): '4 free cells', '1 free cell, foundation moves, columns fixed'."""
        return (f"{self.ncells} free cell{'' if self.ncells == 1 else 's'}"
                + (", foundation moves" if self.foundation_moves else "")
                + (", columns fixed" if self.fixed_columns else ""))

    def suffix(self):
        """'' under the default rules; otherwise what differs, as default file names spell it:
        '-cells5', '-fm' (foundation moves), '-fixed' (columns in fixed places)."""
        return ((f"-cells{self.ncells}" if self.ncells != DEFAULT_CELLS else "")
                + ("-fm" if self.foundation_moves else "") + ("-fixed" if self.fixed_columns
                                                              else ""))

    def header(self, claim):
        """The header's fields for these rules under `claim` (the format's words: `symmetry`
        "none" is fixed columns, and a win's line is always in fixed columns; `closure`
        "autoplay" only in a no-win or a range, and absent for every move alone)."""
        return {"cells": self.ncells, "foundation_moves": self.foundation_moves,
                "symmetry": "none" if claim == "win" or self.fixed_columns else "columns",
                **({"closure": "autoplay"} if claim != "win" and self.autoplay else {})}


def start(columns):
    """The position before the first move: every card in the columns."""
    return bytes(4), b"", tuple(bytes(c) for c in columns)


def is_won(position):
    return position[0] == WON


def stacks_on(card, onto):
    """May `card` lie on `onto` in a column? One rank lower and the other colour."""
    return (onto >> 2) == (card >> 2) + 1 and RED[onto & 3] != RED[card & 3]


def goes_home(card, foundations):
    """May `card` go to its foundation? Only when that foundation holds exactly the ranks below it."""
    return foundations[card & 3] == card >> 2


def moves(position, rules):
    """Every legal single-card move under `rules`: yields (card, destination, next position)."""
    found, cells, cols = position
    ncells, foundation_moves = rules.ncells, rules.foundation_moves

    def landings(card, source):
        # Columns a card may land on: an empty one, or one whose top it stacks on.
        for j, col in enumerate(cols):
            if j != source and (not col or stacks_on(card, col[-1])):
                yield j

    def placed(columns, j, card):
        return columns[:j] + (columns[j] + bytes([card]),) + columns[j + 1:]

    for i, col in enumerate(cols):  # the top card of a column ...
        if not col:
            continue
        card = col[-1]
        lifted = cols[:i] + (col[:-1],) + cols[i + 1:]
        if goes_home(card, found):  # ... to its foundation
            yield card, HOME, (with_home(found, card), cells, lifted)
        for j in landings(card, i):  # ... onto another column
            yield card, j, (found, cells, placed(lifted, j, card))
        if len(cells) < ncells:  # ... into a free cell
            yield card, CELL, (found, bytes(sorted(cells + bytes([card]))), lifted)

    for k, card in enumerate(cells):  # a card in a free cell ...
        left = cells[:k] + cells[k + 1:]
        if goes_home(card, found):  # ... to its foundation
            yield card, HOME, (with_home(found, card), left, cols)
        for j in landings(card, None):  # ... onto a column
            yield card, j, (found, left, placed(cols, j, card))

    if foundation_moves:  # the top card of a foundation back onto a column (a variant)
        for suit in range(4):
            if found[suit]:
                card = (found[suit] - 1) * 4 + suit
                lowered = found[:suit] + bytes([found[suit] - 1]) + found[suit + 1:]
                for j in landings(card, None):
                    yield card, j, (lowered, cells, placed(cols, j, card))


def replays_to_win(position, line, rules):
    """Whether a line of (card, destination) moves is legal move by move, by moves() above,
    and ends with every card home."""
    for card, dest in line:
        for c, d, after in moves(position, rules):
            if (c, d) == (card, dest):
                position = after
                break
        else:
            return False
    return is_won(position)


# The suits of the other colour, and the other suit of the same colour (C D H S: D and H red).
OTHER_COLOUR = ((1, 2), (0, 3), (0, 3), (1, 2))
SAME_COLOUR = (3, 2, 1, 0)


def is_safe(card, found):
    """May `card` go home automatically (Horne's rule, as Freecell Solver applies it)? When it
    may go home, both foundations of the other colour hold at least its rank - 1 cards and the
    other one of its colour at least rank - 2: then no card still out could ever need to lie on
    it (docs/certificate-format.md, section 8)."""
    rank, suit = card >> 2, card & 3
    a, b = OTHER_COLOUR[suit]
    return (found[suit] == rank and found[a] >= rank - 1 and found[b] >= rank - 1
            and found[SAME_COLOUR[suit]] >= rank - 2)


def autoplay(position):
    """The position after safe moves home until no card is safe, and the cards moved, in the
    order moved: a column's top card first (columns in order), else a free cell's (ascending),
    looking again from the start after each. Every order moves the same cards (a safe card
    stays safe as others go home), so the position does not depend on this one."""
    found, cells, cols = bytes(position[0]), bytes(position[1]), tuple(map(bytes, position[2]))
    moved = []
    while True:
        for i, col in enumerate(cols):
            if col and is_safe(col[-1], found):
                card = col[-1]
                cols = cols[:i] + (col[:-1],) + cols[i + 1:]
                break
        else:
            for card in cells:
                if is_safe(card, found):
                    cells = cells.replace(bytes((card,)), b"")
                    break
            else:
                return (found, cells, cols), moved
        found = with_home(found, card)
        moved.append(card)


def successors(position, rules):
    """Every legal move and where the closure goes from it: yields (card, destination, the
    cards autoplay then moves home, next position); with the plain closure none are moved."""
    for card, dest, after in moves(position, rules):
        if rules.autoplay:
            after, homed = autoplay(after)
            yield card, dest, homed, after
        else:
            yield card, dest, [], after


def with_home(found, card):
    s = card & 3
    return found[:s] + bytes([found[s] + 1]) + found[s + 1:]


def encode(position, ncells, fixed_columns=False):
    """The canonical bytes of a position (docs/certificate-format.md, 'Positions').

    4 foundation counts; ncells cell bytes, cards ascending then EMPTY; then each column's
    cards followed by EMPTY, the eight column chunks in ascending byte order unless the
    columns are fixed in place.
    """
    found, cells, cols = position
    chunks = [c + b"\xff" for c in cols]
    if not fixed_columns:
        chunks.sort()
    return found + cells + b"\xff" * (ncells - len(cells)) + b"".join(chunks)


def decode(key, ncells):
    """The position a canonical key stands for (columns in the key's order)."""
    cells = key[4:4 + ncells].rstrip(b"\xff")
    cols = key[4 + ncells:].split(b"\xff")
    return key[:4], cells, tuple(cols[:-1])
