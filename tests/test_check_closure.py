"""check/ must hold a no-win certificate to every legal move, and to exact membership.

Each certificate here is closed under every legal move but one defect the tests' own oracle
(tests/support/oracle.py) was asked to find (tests/support/closure_cases.py): a position missing that only one kind
of move reaches, a same-card twin standing in for a position, one byte of one record changed, one
stacking pair that leads out of the set. A checker that skipped that kind of move, compared records
in part, or lost a line of its stacking table would verify the file; check must reject it, and say
which move leaves the set. The files are written by tests/support/certgen.py, never by certify/.
"""
import functools
import itertools
import re
from pathlib import Path

import pytest
from support import certgen as g
from support import closure_cases as cases
from support import oracle as o
from check import checker

CELL, FOUNDATION = o.CELL, o.FOUNDATION
PLACE = r'(column [1-8]|a free cell|its foundation)'
CLOSURE = re.compile(rf'record (\d+) \(.*\): moving (\w\w) from {PLACE} to {PLACE} '
                     r'gives a position not in the certificate$')
SYMMETRIES = ['columns', 'none']


@pytest.fixture(scope='module')
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp('closure')


def check(workdir, blob):
    """check's (verdict, reason) for these file bytes, through its public verify()."""
    path = workdir / 'cert.msgpack.zst'
    path.write_bytes(blob)
    verdict, _, text, _ = checker.verify(path)
    return verdict, text


def certificate(name, positions, symmetry, version):
    start, cells, fm = cases.BOARDS[name]
    return g.nowin_file(start, cells, set(positions), fm, symmetry, version=version)


def place(words):
    return {'a free cell': CELL, 'its foundation': FOUNDATION}.get(words) or int(words[7:]) - 1


def named_move(text, kept, cells, fm, symmetry):
    """The move a closure failure names, checked against the oracle: record N of the file is a
    position of `kept` with that card free at that source, the move is legal, and its result is
    not in `kept`. Returns (position, card, source, destination, canonical result)."""
    m = CLOSURE.search(text)
    assert m, text
    q = cases.in_record_order(kept, cells, symmetry)[int(m[1]) - 1]
    card, source, dest = g.card(m[2]), place(m[3]), place(m[4])
    assert o.where(q, card, fm) == source, (text, q)
    assert o.allowed(q, card, source, dest, cells), (text, q)
    result = o.canonical(o.after(q, card, source, dest), symmetry)
    assert result not in kept, text
    return q, card, source, dest, result


# ---- a position only one kind of move reaches ----

@pytest.mark.parametrize('version', [1, 2])
@pytest.mark.parametrize('symmetry', SYMMETRIES)
@pytest.mark.parametrize('move_kind', cases.KINDS, ids=' to '.join)
def test_a_position_only_one_kind_of_move_reaches_must_be_in_the_set(workdir, move_kind, symmetry,
                                                                     version):
    name, gone = cases.sole_kind_case(move_kind, symmetry)
    _, cells, fm = cases.BOARDS[name]
    kept = cases.reach(name, symmetry) - {gone}
    # Closed but for the moves into the missing position, and every one of those is of this kind.
    into = {cases.kind(q, card, dest, fm) for q in kept for card, dest, nxt in o.moves(q, cells, fm)
            if o.canonical(nxt, symmetry) not in kept}
    assert into == {move_kind}
    verdict, text = check(workdir, certificate(name, kept, symmetry, version))
    assert verdict == 'rejected', text
    q, card, source, dest, result = named_move(text, kept, cells, fm, symmetry)
    assert result == gone and cases.kind(q, card, dest, fm) == move_kind, text


def test_the_full_sets_verify(workdir):
    # The sets the removals are made from are themselves certificates (so a rejection above is the
    # missing position's doing).
    for move_kind in cases.KINDS:
        for symmetry in SYMMETRIES:
            name, _ = cases.sole_kind_case(move_kind, symmetry)
            verdict, text = check(workdir, certificate(name, cases.reach(name, symmetry), symmetry, 2))
            assert verdict == 'verified', (name, text)


# ---- exact membership: a same-card twin never stands in for a position ----

TWINS = [(name, symmetry, where) for name in ('cell-home', 'nowin1') for symmetry in SYMMETRIES
         for where in ('last byte', 'first id', 'anywhere')]


@pytest.mark.parametrize('version', [1, 2])
@pytest.mark.parametrize('name, symmetry, where', TWINS)
def test_a_same_card_twin_does_not_stand_in_for_a_position(workdir, name, symmetry, where, version):
    _, cells, fm = cases.BOARDS[name]
    gone, twin, kept = cases.twin_case(name, symmetry, where)
    assert twin in kept and gone not in kept
    assert twin[:2] == gone[:2] and sorted(map(sorted, twin[2])) == sorted(map(sorted, gone[2]))
    verdict, text = check(workdir, certificate(name, kept, symmetry, version))
    assert verdict == 'rejected', text
    assert named_move(text, kept, cells, fm, symmetry)[4] == gone, text
    # The same set with the position back in is a certificate.
    assert check(workdir, certificate(name, kept | {gone}, symmetry, version))[0] == 'verified'


@pytest.mark.parametrize('version', [1, 2])
@pytest.mark.parametrize('symmetry', SYMMETRIES)
@pytest.mark.parametrize('where', ['last byte', 'first id', 'anywhere'])
def test_the_starts_twin_does_not_stand_in_for_the_start(workdir, where, symmetry, version):
    start, twin, kept = cases.twin_case('cell-home', symmetry, where, of_start=True)
    assert start == cases.start_of('cell-home', symmetry) and twin in kept and start not in kept
    verdict, text = check(workdir, certificate('cell-home', kept, symmetry, version))
    assert verdict == 'rejected' and 'the starting position' in text, text
    assert 'is not one of the records' in text, text


# ---- exact membership: one byte of one record changed ----

def byte_classes(cells):
    """(name, byte index) for every byte of a record with 2-byte ids."""
    out = [(f'foundation {"CDHS"[s]}', s) for s in range(4)]
    out += [(f'cell {k + 1}', 4 + k) for k in range(cells)]
    for k in range(8):
        out += [(f'id {k + 1} high', 4 + cells + 2 * k), (f'id {k + 1} low', 4 + cells + 2 * k + 1)]
    return out


def well_formed(record, table, cells, symmetry, held):
    """How far a record is from a position the parser must take: 0 an id beyond the table (or not
    ascending when the columns are taken up to order); 1 ids in the table; 2 a well-formed position,
    not won; 3 that, with every table entry still used by the records `held`."""
    ids = [int.from_bytes(record[k:k + 2], 'big') for k in range(4 + cells, len(record), 2)]
    if max(ids) >= len(table) or symmetry == 'columns' and ids != sorted(ids):
        return 0
    free = [c for c in record[4:4 + cells] if c != 0xFF]
    position = (tuple(record[:4]), tuple(free), tuple(tuple(table[i]) for i in ids))
    if (record[4:4 + cells] != bytes(sorted(free)) + b'\xff' * (cells - len(free))
            or not o.is_position(position, cells) or o.is_won(position)):
        return 1
    used = {int.from_bytes(x[k:k + 2], 'big') for x in held
            for k in range(4 + cells, len(record), 2)}
    return 2 + (len(used) == len(table))


# The sets whose records are changed: name -> (board, symmetry, positions). Each is a certificate.
# 'twins': a board's closed set with a twin's closed set added, so that its column table holds
# columns with the same cards in another order and a changed id's low byte can still spell a
# well-formed position; 'wide': a board with no free cell and, beside its closed set, positions
# without a move, so that the table has more than 512 entries and a changed high byte can stay
# within it.
def byte_change_set(kind, symmetry):
    if kind == 'twins':
        gone, _, kept = cases.twin_case('cell-home', symmetry, 'last byte')
        return 'cell-home', kept | {gone}
    return 'nowin0', frozenset(g.with_columns(cases.reach('nowin0', symmetry), 0, 600))


@functools.lru_cache(maxsize=None)
def byte_change(kind, symmetry, j):
    """(table, records, old record, new record, score): the first record (of the first 60, or of
    all for a high byte) and value of byte j that score highest by well_formed(), so that only
    membership and closure can catch the change where that is possible at all."""
    name, positions = byte_change_set(kind, symmetry)
    cells = cases.BOARDS[name][1]
    table, recs = g.nowin_parts(positions, cells, symmetry)
    held, best = set(recs), (-1,)
    # The values to try: foundation counts (and one beyond), cards and 0xFF, any id byte, a high
    # byte up to one past the table's.
    high = j >= 4 + cells and (j - 4 - cells) % 2 == 0
    values = (range(15) if j < 4 else [*range(52), 0xFF] if j < 4 + cells else
              range(len(table) // 256 + 2) if high else range(256))
    for r, v in itertools.product(recs if high else recs[:60], values):
        changed = r[:j] + bytes([v]) + r[j + 1:]
        if changed in held:
            continue
        if (score := well_formed(changed, table, cells, symmetry, held - {r} | {changed})) > best[0]:
            best = score, r, changed
        if best[0] == 3:
            break
    return table, recs, best[1], best[2], best[0]


BYTE_CASES = [(kind, what, j) for kind, cells in (('twins', 2), ('wide', 0))
              for what, j in byte_classes(cells) if kind == 'twins' or what.endswith('high')]


@pytest.mark.parametrize('version', [1, 2])
@pytest.mark.parametrize('symmetry', SYMMETRIES)
@pytest.mark.parametrize('kind, what, j', BYTE_CASES, ids=[f'{k}-{w}' for k, w, _ in BYTE_CASES])
def test_one_byte_of_one_record_changed_is_rejected(workdir, kind, what, j, symmetry, version):
    name, positions = byte_change_set(kind, symmetry)
    start, cells, fm = cases.BOARDS[name]
    table, recs, old, new, score = byte_change(kind, symmetry, j)
    assert cases.differing_bytes(old, new) == {j}
    assert check(workdir, certificate(name, positions, symmetry, version))[0] == 'verified'
    blob = g.nowin_file(start, cells, parts=(table, sorted(set(recs) - {old} | {new})), fmoves=fm,
                        symmetry=symmetry, version=version)
    verdict, text = check(workdir, blob)
    assert verdict == 'rejected', text
    if score == 3:   # a well-formed position, every column used: only membership and closure can tell
        assert CLOSURE.search(text) or 'the starting position' in text, text


@pytest.mark.parametrize('symmetry', SYMMETRIES)
def test_which_byte_changes_keep_a_record_well_formed(symmetry):
    # A changed id's low byte can spell a same-card column, and a high byte stay within a wide
    # table; a foundation or a cell byte never keeps the 52 cards each in one place (so a checker
    # blind to one of those bytes at lookup time could not be fooled by a well-formed record).
    scores = {(kind, what): byte_change(kind, symmetry, j)[4] for kind, what, j in BYTE_CASES}
    assert any(s == 3 for (kind, what), s in scores.items() if what.endswith('low')), scores
    # (With columns taken up to order the ids must also stay ascending: not every id can grow.)
    wide = [s for (kind, _), s in scores.items() if kind == 'wide']
    assert (all if symmetry == 'none' else any)(s >= 1 for s in wide), scores
    assert all(s <= 1 for (_, what), s in scores.items() if what.startswith(('foundation', 'cell'))), scores


# ---- every line of the stacking table ----

def test_the_stacking_pairs():
    # Every card but the aces takes exactly two cards, of the other colour, one rank lower.
    assert len(cases.PAIRS) == 96
    for y in range(52):
        onto = [x for x, b in cases.PAIRS if b == y]
        assert len(onto) == (2 if y >= 4 else 0) and all(o.is_red(x) != o.is_red(y) for x in onto)


@pytest.mark.parametrize('x, y', cases.PAIRS, ids=[f'{g.card_name(x)}-onto-{g.card_name(y)}'
                                                   for x, y in cases.PAIRS])
def test_each_stacking_pair_is_a_move(workdir, x, y):
    k = cases.PAIRS.index((x, y))
    symmetry, version = SYMMETRIES[k % 2], 1 + k // 2 % 2
    start, kept = cases.stacking_case(x, y, symmetry)
    # Closed under every move but x onto y, and at least one of those leads out.
    out = {(card, q[2][dest][-1]) for q in kept for card, dest, nxt in o.moves(q, 0)
           if o.canonical(nxt, symmetry) not in kept}
    assert out == {(x, y)}
    blob = g.nowin_file(start, 0, set(kept), symmetry=symmetry, version=version)
    verdict, text = check(workdir, blob)
    assert verdict == 'rejected', text
    q, card, _, dest, _ = named_move(text, kept, 0, False, symmetry)
    assert card == x and dest < 8 and q[2][dest][-1] == y, text


# ---- position counts: check's accepted sets are the oracle's reachable sets ----

# (board, symmetry) -> the number of positions reachable from its start (the oracle's count,
# and certgen's), the count check's theorem names when it verifies the set.
PERFT = {
    ('nowin0', 'columns'): 90, ('nowin0', 'none'): 980,
    ('nowin1', 'columns'): 257, ('nowin1', 'none'): 2494,
    ('nowin2', 'columns'): 60, ('nowin2', 'none'): 360,
    ('cell-home', 'columns'): 144, ('cell-home', 'none'): 144,
    ('cell-onto', 'columns'): 47, ('cell-onto', 'none'): 47,
    ('nowin2-fm', 'columns'): 96, ('nowin2-fm', 'none'): 576,
    ('foundation-onto', 'columns'): 3, ('foundation-onto', 'none'): 3,
    ('deal1-cell1', 'columns'): 107, ('deal1-cell1', 'none'): 107,
}


@pytest.mark.parametrize('name, symmetry', list(PERFT))
def test_position_counts(workdir, name, symmetry):
    start, cells, fm = cases.BOARDS[name]
    count = PERFT[name, symmetry]
    assert len(cases.reach(name, symmetry)) == count
    assert len(g.explore(start, cells, fm, symmetry)) == count
    for version in (1, 2):
        verdict, text = check(workdir, certificate(name, cases.reach(name, symmetry), symmetry, version))
        assert verdict == 'verified', text
        said = re.search(r'cannot be won: ([\d,]+) positions closed under every legal move', text)
        assert said and int(said[1].replace(',', '')) == count, text   # (thousands commas or none)
