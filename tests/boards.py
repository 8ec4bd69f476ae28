"""Small synthetic boards for exhaustive tests, and a brute-force reference built on rules.moves."""

from collections import deque

from hypothesis import strategies as st

from certify.rules import encode, is_won, moves


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


def reachable(position, ncells, fixed_columns=False, foundation_moves=False, limit=None):
    """Every position reachable from `position`, as canonical keys: plain BFS over rules.moves.

    With a limit, stops (returning what it has) once more than `limit` positions are found.
    """
    first = encode(position, ncells, fixed_columns)
    seen = {first: position}
    queue = deque([position])
    while queue:
        p = queue.popleft()
        for _, _, q in moves(p, ncells, foundation_moves):
            k = encode(q, ncells, fixed_columns)
            if k not in seen:
                seen[k] = q
                queue.append(q)
        if limit is not None and len(seen) > limit:
            break
    return seen


def any_won(positions):
    return any(is_won(p) for p in positions.values())
