"""The rules, three times over: certify/game/rules.py and check/checker.py against tests/support/oracle.py, a
reading of docs/certificate-format.md that imports neither (and asks "is this a move?" of every
free card and destination, where both of them generate moves from each source)."""
from pathlib import Path

from hypothesis import given, strategies as st

from certify.game import rules
from check import checker
from support import oracle


@st.composite
def positions(draw, max_cells=8):
    """Any legal position: foundation counts, some cards in the cells, the rest anywhere in the
    columns (not only as the rules could build them, which the rules must handle all the same)."""
    ncells = draw(st.integers(0, max_cells))
    found = [draw(st.integers(0, 13)) for _ in range(4)]
    left = draw(st.permutations([r * 4 + s for s in range(4) for r in range(found[s], 13)]))
    k = draw(st.integers(0, min(ncells, len(left))))
    columns = [[] for _ in range(8)]
    for card in left[k:]:
        columns[draw(st.integers(0, 7))].append(card)
    return oracle.start(columns, found, left[:k]), ncells


def as_certify(pos):
    found, cells, cols = pos
    return bytes(found), bytes(cells), tuple(bytes(c) for c in cols)


def as_oracle(pos):
    found, cells, cols = pos
    return tuple(found), tuple(sorted(cells)), tuple(tuple(c) for c in cols)


def test_the_oracle_by_hand():
    # Deal 1 (section 2): bottoms JD 2D 9H JC 5D 7H 7C 5H; tops 6S 9C 2H 6H 6C 3D 8C TC, none of
    # which goes home or onto another: each may only go to a free cell.
    columns = oracle.deal(1)
    assert [c[0] for c in columns] == [41, 5, 34, 40, 17, 26, 24, 18]
    assert [c[-1] for c in columns] == [23, 32, 6, 22, 20, 9, 28, 36]
    pos = oracle.start(columns)
    assert [(card, dest) for card, dest, _ in oracle.moves(pos, 4)] == sorted((c[-1], oracle.CELL) for c in columns)
    assert oracle.moves(pos, 0) == []
    # KS alone in column 1, the rest home, one cell: home, the cell, or any of the seven empty columns.
    ks = oracle.start([[51]] + [[]] * 7, (13, 13, 13, 12))
    assert [(c, d) for c, d, _ in oracle.moves(ks, 1)] == [(51, d) for d in range(1, 10)]
    assert oracle.is_won(oracle.moves(ks, 1)[-1][2]) and not oracle.is_won(ks)
    # With foundation moves KC KD KH and QS may also come down, onto the empty columns only.
    down = [(c, d) for c, d, _ in oracle.moves(ks, 1, True) if c != 51]
    assert down == [(c, d) for c in (47, 48, 49, 50) for d in range(1, 8)]
    # 7H onto the black 8C, not onto the red 8D nor the black 9C; onto the empty columns 5 to 7;
    # home; into the cell only when one is empty. KS in a cell never goes to another cell.
    found = (7, 7, 6, 7)
    rest = [c for s in range(4) for c in range(found[s] * 4 + s, 52, 4) if c not in (28, 29, 32, 26, 51, 49)] + [49]
    seven = oracle.start([[28], [29], [32], [26], [], [], [], rest], found, cells=[51])
    assert oracle.is_position(seven, 1)
    assert {(c, d) for c, d, _ in oracle.moves(seven, 1) if c == 26} == {(26, 0), (26, 4), (26, 5), (26, 6), (26, 9)}
    assert {(c, d) for c, d, _ in oracle.moves(seven, 2) if c == 26} == {(26, 0), (26, 4), (26, 5), (26, 6), (26, 8), (26, 9)}
    assert {d for c, d, _ in oracle.moves(seven, 2) if c == 51} == {4, 5, 6}


def test_won_is_all_four_foundations_full():
    # The position one king short, for each suit in turn, is not won; all four full is.
    for suit in range(4):
        found = [13] * 4
        found[suit] = 12
        pos = oracle.start([[48 + suit]] + [[]] * 7, found)
        assert oracle.is_position(pos, 0) and not oracle.is_won(pos)
        assert not rules.is_won(as_certify(pos)) and as_certify(pos)[0] != checker.WON
        done = oracle.moves(pos, 0)[-1][2]
        assert oracle.is_won(done) and rules.is_won(as_certify(done)) and as_certify(done)[0] == checker.WON


@given(positions(), st.booleans())
def test_certify_generates_exactly_the_oracles_moves(case, foundation_moves):
    pos, ncells = case
    assert oracle.is_position(pos, ncells)
    expected = sorted((card, dest, nxt) for card, dest, nxt in oracle.moves(pos, ncells, foundation_moves))
    got = sorted((card, dest, as_oracle(nxt)) for card, dest, nxt in rules.moves(as_certify(pos), rules.Rules(ncells, foundation_moves=foundation_moves)))
    assert got == expected
    assert rules.is_won(as_certify(pos)) == oracle.is_won(pos)


@given(positions(), st.booleans())
def test_check_generates_exactly_the_oracles_moves(case, foundation_moves):
    pos, ncells = case
    found, cells, cols = as_certify(pos)
    ours = (found, cells, [bytes(c) for c in cols])
    expected = sorted((card, dest, nxt) for card, dest, nxt in oracle.moves(pos, ncells, foundation_moves))
    got = sorted((card, dest, as_oracle(checker.after(*ours, card, source, dest)))
                 for card, source, dest in checker.moves(*ours, ncells, foundation_moves))
    assert got == expected
    assert (found == checker.WON) == oracle.is_won(pos)


# ---- certify's canonical keys ----

@given(positions(), st.permutations(range(8)))
def test_certify_encode_is_canonical(case, order):
    pos, ncells = case
    found, cells, cols = pos
    moved = (found, cells, tuple(cols[i] for i in order))
    for fixed in (False, True):
        key, other = rules.encode(as_certify(pos), ncells, fixed), rules.encode(as_certify(moved), ncells, fixed)
        # the same key exactly when the oracle calls the positions the same
        symmetry = 'none' if fixed else 'columns'
        assert (key == other) == (oracle.canonical(pos, symmetry) == oracle.canonical(moved, symmetry))
        back = rules.decode(key, ncells)
        assert oracle.canonical(as_oracle(back), symmetry) == oracle.canonical(pos, symmetry)


@given(positions())
def test_certify_encode_keeps_fixed_columns_in_place_and_sorts_the_others_ascending(case):
    pos, ncells = case
    assert as_oracle(rules.decode(rules.encode(as_certify(pos), ncells, True), ncells)) == pos
    sorted_back = rules.decode(rules.encode(as_certify(pos), ncells, False), ncells)[2]
    # ascending as the encoding's column chunks (cards, then 0xFF): the empty column last
    chunks = [bytes(c) + b'\xff' for c in sorted_back]
    assert chunks == sorted(chunks)


@given(positions(), positions())
def test_certify_encode_tells_positions_apart(a, b):
    (p, n), (q, _) = a, b
    for fixed in (False, True):
        symmetry = 'none' if fixed else 'columns'
        same = oracle.canonical(p, symmetry) == oracle.canonical(q, symmetry)
        assert (rules.encode(as_certify(p), n, fixed) == rules.encode(as_certify(q), n, fixed)) == same
