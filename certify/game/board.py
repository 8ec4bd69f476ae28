"""Freecell Solver's board text: reading it strictly, and writing it.

    Foundations: H-0 C-0 D-0 S-0
    Freecells: - - - -
    : JD KD 2S 4C 3S 6D 6S
    ...

Eight column lines, bottom card first, each optionally starting with ':'. Ranks A23456789TJQK
(10 accepted), suits HSDC. `Freecells:` (or `FC:`) lists the cells, '-' for an empty one, no
more slots than there are cells. `Foundations:` (or `Foundation:`, `Founds:`) gives each suit's
top rank, 0 for none. Each of those lines at most once; only ASCII.
"""

from .cards import RANKS, SUITS, name, parse


class BoardError(ValueError):
    pass


# The labels Freecell Solver and others write, lower-cased, and what each line gives.
FOUNDATIONS = dict.fromkeys(("foundations", "foundation", "founds"), "foundations")
FREECELLS = dict.fromkeys(("freecells", "freecell", "fc"), "free cells")


def _card(text, where):
    try:
        return parse(text)
    except ValueError:
        raise BoardError(f"{where}: {text!r} is not a card") from None


def read_board(text, ncells=4):
    """(foundations, cells, columns) from board text; BoardError names the first problem."""
    found = [0, 0, 0, 0]
    cells = []
    columns = []
    seen_lines = {}  # "foundations" or "free cells" -> the line that gave them
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        where = f"line {number}"
        if not line or line.startswith("#"):
            continue
        if not line.isascii():  # str.upper() would make the long s 'ſ' an S, for one
            raise BoardError(f"{where}: not ASCII: {line!r}")
        label, _, rest = line.partition(":")
        label = label.strip().lower()
        kind = FOUNDATIONS.get(label) or FREECELLS.get(label)
        if kind in seen_lines:
            raise BoardError(f"{where}: a second {kind} line (the first is line "
                             f"{seen_lines[kind]})")
        if kind:
            seen_lines[kind] = number
        if kind == "foundations":
            suits_given = set()
            for item in rest.split():
                suit, dash, rank = item.upper().partition("-")
                if not dash or suit not in SUITS:
                    raise BoardError(f"{where}: {item!r} is not a foundation like H-5")
                rank = "T" if rank == "10" else rank
                if rank == "0":
                    count = 0
                elif len(rank) == 1 and rank in RANKS:
                    count = RANKS.index(rank) + 1
                else:
                    raise BoardError(f"{where}: {item!r} has no rank 0, A..K")
                if suit in suits_given:
                    raise BoardError(f"{where}: two foundations for {suit}")
                suits_given.add(suit)
                found[SUITS.index(suit)] = count
        elif kind == "free cells":
            slots = rest.split()
            if len(slots) > ncells:
                raise BoardError(f"{where}: {len(slots)} free-cell slots, but only {ncells} "
                                 f"free cell{'' if ncells == 1 else 's'} (--cells {ncells})")
            cells += [_card(item, where) for item in slots if item != "-"]
        else:
            cards = line[1:] if line.startswith(":") else line
            columns.append(tuple(_card(t, where) for t in cards.split()))
    if len(columns) > 8:
        raise BoardError(f"{len(columns)} columns; FreeCell has 8")
    columns += [()] * (8 - len(columns))
    seen = {}
    for s in range(4):
        for r in range(found[s]):
            seen[r * 4 + s] = "the foundations"
    for card, place in [(c, "the free cells") for c in cells] + \
            [(c, f"column {i + 1}") for i, col in enumerate(columns) for c in col]:
        if card in seen:
            where = f" in {place}" if seen[card] == place else \
                f": in {seen[card]} and in {place}"
            raise BoardError(f"{name(card)} appears twice{where}")
        seen[card] = place
    missing = [name(c) for c in range(52) if c not in seen]
    if missing:
        raise BoardError(f"missing cards: {' '.join(missing)}")
    return bytes(found), bytes(sorted(cells)), tuple(bytes(c) for c in columns)


def write_board(position, ncells=4):
    found, cells, cols = position
    lines = ["Foundations: " + " ".join(
        f"{SUITS[s]}-{RANKS[found[s] - 1] if found[s] else '0'}" for s in (2, 0, 1, 3))]
    shown = [name(c) for c in cells] + ["-"] * (ncells - len(cells))
    lines.append("Freecells: " + " ".join(shown) if shown else "Freecells:")
    lines += [(": " + " ".join(name(c) for c in col)).rstrip() for col in cols]
    return "\n".join(lines) + "\n"


def describe(position, indent):
    """The position in words, one line per column then the foundations and cells: for comments
    in exported proof files."""
    found, cells, cols = position
    lines = [f"{i + 1}: {' '.join(name(c) for c in col) or '(empty)'}" for i, col in enumerate(cols)]
    lines.append("foundations: " + " ".join(f"{suit} {count}" for suit, count in zip(SUITS, found)))
    if cells:
        lines.append(f"free cells: {' '.join(name(c) for c in cells)}")
    return "\n".join(indent + line for line in lines)
