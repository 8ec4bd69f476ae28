"""A third reading of the rules, for tests only: written from docs/certificate-format.md alone.

It imports neither certify/ nor check/, and it is written the other way round from both: they
generate moves from each source, this asks of every free card and every destination "is this a
move?" by the words of section 1 (`is_move`), and lists the ones that are. It is slow and plain
on purpose; the tests use it as the reference the fast code is compared against.

A position here is (foundations, cells, columns): a tuple of four counts for C D H S, a sorted
tuple of the cards in the free cells, and a tuple of eight tuples, each column bottom card first.
A destination is 0..7 (columns 1..8), CELL or FOUNDATION, as in a win certificate's body.
"""
from collections import deque

CELL, FOUNDATION = 8, 9


def rank(card): return card // 4
def suit(card): return card % 4
def is_red(card): return suit(card) in (1, 2)      # diamonds and hearts


# ---- the deal (section 2) ----

def deal(n):
    """The eight columns of deal n (1 <= n <= 2^33 - 1), bottom card first."""
    assert 1 <= n < 2**33
    mask = 2**32 - 1
    state = n if n < 2**32 else n - 2**32
    deck, columns = list(range(52)), [[] for _ in range(8)]
    for i in range(52):
        state = (state * 214013 + 2531011) & mask
        high = state >> 16
        if n < 2**31:
            r = high & 0x7fff
        elif n < 2**32:
            r = (high & 0x7fff) | 0x8000
        else:
            r = (high & 0xffff) + 1
        j = r % len(deck)
        card = deck[j]
        deck[j] = deck[-1]
        deck.pop()
        columns[i % 8].append(card)
    return tuple(tuple(c) for c in columns)


def start(columns, foundations=(0, 0, 0, 0), cells=()):
    return tuple(foundations), tuple(sorted(cells)), tuple(tuple(c) for c in columns)


# ---- moves (section 1) ----

def where(position, card, foundation_moves):
    """Where the card is free to move from: a column index, CELL, FOUNDATION, or None."""
    found, cells, cols = position
    for i, col in enumerate(cols):
        if col and col[-1] == card:
            return i
    if card in cells:
        return CELL
    if foundation_moves and found[suit(card)] == rank(card) + 1:   # the top card of its foundation
        return FOUNDATION
    return None


def is_move(position, card, dest, ncells, foundation_moves):
    """Is moving this card to dest a single-card move, word for word as section 1 says?"""
    source = where(position, card, foundation_moves)
    return source is not None and allowed(position, card, source, dest, ncells)


def allowed(position, card, source, dest, ncells):
    """May the card, free to move from source, go to dest?"""
    found, cells, cols = position
    if dest == FOUNDATION:   # its own, holding exactly the ranks below it; not from a foundation
        return source != FOUNDATION and found[suit(card)] == rank(card)
    if dest == CELL:         # an empty one, only from a column
        return source not in (CELL, FOUNDATION) and len(cells) < ncells
    if dest == source:
        return False
    target = cols[dest]      # another column: empty, or one rank higher in the other colour
    return not target or (rank(target[-1]) == rank(card) + 1 and is_red(target[-1]) != is_red(card))


def after(position, card, source, dest):
    """The position once the card has moved from source to dest (the move is taken to be legal)."""
    found, cells, cols = list(position[0]), list(position[1]), [list(c) for c in position[2]]
    if source == CELL:
        cells.remove(card)
    elif source == FOUNDATION:
        found[suit(card)] -= 1
    else:
        cols[source].pop()
    if dest == CELL:
        cells.append(card)
    elif dest == FOUNDATION:
        found[suit(card)] += 1
    else:
        cols[dest].append(card)
    return start(cols, found, cells)


def moves(position, ncells, foundation_moves=False):
    """[(card, dest, next position)] for every single-card move, cards ascending, then dest."""
    found, cells, cols = position
    free = {col[-1] for col in cols if col} | set(cells)
    if foundation_moves:
        free |= {(n - 1) * 4 + s for s, n in enumerate(found) if n}
    out = []
    for card in sorted(free):
        source = where(position, card, foundation_moves)
        out += [(card, dest, after(position, card, source, dest))
                for dest in range(10) if allowed(position, card, source, dest, ncells)]
    return out


def is_won(position):
    return tuple(position[0]) == (13, 13, 13, 13)


def is_position(position, ncells):
    """Every card once: on its foundation (below the count), in a cell or in a column."""
    found, cells, cols = position
    home = [r * 4 + s for s in range(4) for r in range(found[s])]
    return (all(0 <= n <= 13 for n in found) and len(cells) <= ncells
            and sorted(home + list(cells) + [c for col in cols for c in col]) == list(range(52)))


# ---- safe autoplay (section 8) ----

def is_safe(position, card):
    """Horne's rule, word for word: the card may go home, each foundation of the other colour holds
    at least rank - 1 cards and the other foundation of its own colour at least rank - 2."""
    found = position[0]
    if found[suit(card)] != rank(card):
        return False
    for other in range(4):
        if other == suit(card):
            continue
        least = rank(card) - 1 if is_red(other) != is_red(card) else rank(card) - 2
        if found[other] < least:
            return False
    return True


def autoplay(position):
    """The position once every safe card on a column's top or in a free cell has gone home, one at a
    time, until none is left (the order does not matter, section 8; here: lowest card first)."""
    while True:
        found, cells, cols = position
        free = sorted({col[-1] for col in cols if col} | set(cells))
        home = [card for card in free if is_safe(position, card)]
        if not home:
            return position
        card = home[0]
        position = after(position, card, where(position, card, False), FOUNDATION)


# ---- canonical form and records (section 3) ----

def canonical(position, symmetry):
    """The position with columns sorted when they are taken up to permutation ('columns')."""
    found, cells, cols = position
    return tuple(found), tuple(sorted(cells)), tuple(sorted(cols)) if symmetry == 'columns' else tuple(cols)


def column_table(positions):
    """The column table of a no-win body for these positions: distinct columns, ascending as bytes."""
    return sorted({bytes(col) for p in positions for col in p[2]})


def record(position, table, ncells, symmetry):
    """The record of section 3: counts, cells ascending then 0xFF, eight ids of w bytes."""
    found, cells, cols = position
    width = 2 if len(table) <= 65536 else 3
    ids = [table.index(bytes(col)) for col in cols]
    if symmetry == 'columns':
        ids.sort()
    return (bytes(found) + bytes(sorted(cells)) + bytes([0xFF] * (ncells - len(cells)))
            + b''.join(i.to_bytes(width, 'big') for i in ids))


# ---- everything reachable ----

def reachable(position, ncells, foundation_moves=False, symmetry='columns', limit=None,
              closure='moves'):
    """{canonical form: a position of that form} for every position reachable from `position`
    (breadth-first). With a limit, stops once more than `limit` are found. With closure='autoplay'
    the start and every move's result are autoplayed (section 8)."""
    settle = autoplay if closure == 'autoplay' else (lambda p: p)
    first = canonical(settle(position), symmetry)
    seen, queue = {first: first}, deque([first])
    while queue and (limit is None or len(seen) <= limit):
        for _, _, nxt in moves(queue.popleft(), ncells, foundation_moves):
            key = canonical(settle(nxt), symmetry)
            if key not in seen:
                seen[key] = key
                queue.append(key)
    return seen


def can_be_won(position, ncells, foundation_moves=False, limit=None):
    return any(is_won(p) for p in reachable(position, ncells, foundation_moves, limit=limit))


def closed(positions, start_position, ncells, symmetry='columns', closure='moves'):
    """Section 3's steps 5 to 7 (section 8's with closure='autoplay') for a set of canonical
    positions, foundation moves off: the (autoplayed) start is in it, none is won, and every move
    from each, (autoplayed,) leads into it."""
    settle = autoplay if closure == 'autoplay' else (lambda p: p)
    members = {canonical(p, symmetry) for p in positions}
    return (canonical(settle(start_position), symmetry) in members
            and not any(is_won(p) for p in members)
            and all(canonical(settle(nxt), symmetry) in members
                    for p in members for _, _, nxt in moves(p, ncells)))
