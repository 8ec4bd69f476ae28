"""Every kind of certificate certify writes passes through check: each rule variant (cells 0..8,
fixed columns, foundation moves), numbered deals and custom boards, wins and no-wins.

(tests/conftest.py also has check verify every certificate that any test has certify write.)
Here each variant is proved by certify and checked by check, and the claim and count are compared
with the test side's own brute force (tests/support/certgen.py), which shares no code with either.
"""
from pathlib import Path

import msgpack
import pytest

from certify.format import reader, spec, writer
from certify.outcome import NO_WIN, WIN
from certify.run.prove import Search as SearchStep, Solve, proved
from certify.game.rules import Rules
from certify.engine.reference.solver import solve
from check import checker
from support import certgen as g


def ours(pos):
    """A test-side position as certify's (foundations, cells, columns) bytes."""
    found, cells, cols = pos
    return bytes(found), bytes(cells), tuple(bytes(c) for c in cols)


def stuck(ncells, diamonds_home=0):
    """A board that cannot be won with ncells free cells: one cell empty (if any), the others and the
    eight column tops held by black cards, which never stack on black and cannot go home (the aces are
    buried). The one empty cell takes any top card, and then nothing moves; with diamonds home, 9D
    may also come back down onto TC or TS where foundation moves are allowed."""
    tops = [g.card(c) for c in ('KC', 'KS', 'QC', 'QS', 'JC', 'JS', 'TC', 'TS')]
    under = [g.card(c) for c in ('9C', '9S', '8C', '8S', '7C', '7S', '6C', '6S')]
    held = [g.card(c) for c in ('5C', '5S', '4C', '4S', '3C', '3S', '2C')][:max(ncells - 1, 0)]
    home = [r * 4 + 1 for r in range(diamonds_home)]
    rest = [c for c in range(52) if c not in tops + under + held + home]
    cols = [rest[i::8] + [under[i], tops[i]] for i in range(8)]
    return g.make((0, diamonds_home, 0, 0), held, cols)


# label -> (start, cells, fixed columns, foundation moves, deal number or None)
NOWIN = {
    'board, 0 cells': (g.NOWIN0, 0, False, False, None),
    'board, 0 cells, fixed columns': (g.NOWIN0, 0, True, False, None),
    'board, 1 cell': (g.NOWIN1, 1, False, False, None),
    'board, 1 cell, fixed columns': (g.NOWIN1, 1, True, False, None),
    'deal 1, 0 cells': (g.deal_start(1), 0, False, False, 1),
    'deal 1, 1 cell': (g.deal_start(1), 1, False, False, 1),
    'deal 1, 1 cell, fixed columns': (g.deal_start(1), 1, True, False, 1),
    'deal 1, 1 cell, foundation moves': (g.deal_start(1), 1, False, True, 1),
    'deal 1, 1 cell, fixed columns, foundation moves': (g.deal_start(1), 1, True, True, 1),
    **{f'stuck board, {k} cells': (stuck(k), k, False, False, None) for k in range(2, 9)},
    'stuck board, 8 cells, fixed columns': (stuck(8), 8, True, False, None),
    'stuck board, 3 cells, 9D home, foundation moves': (stuck(3, 9), 3, False, True, None),
    'stuck board, 3 cells, 9D home, fixed columns, foundation moves': (stuck(3, 9), 3, True, True, None),
}
# label -> (start, cells, foundation moves, deal number or None)
WINS = {
    'board, 0 cells': (g.WIN0, 0, False, None),
    'board, 0 cells, foundation moves': (g.WIN0, 0, True, None),
    **{f'board, {k} cells': (g.WIN1, k, False, None) for k in range(1, 9)},
    'board, 2 cells, foundation moves': (g.WIN3, 2, True, None),
    'deal 1, 4 cells': (g.deal_start(1), 4, False, 1),
    'deal 2, 3 cells, foundation moves': (g.deal_start(2), 3, True, 2),
    'deal 2^31 + 1, 4 cells': (g.deal_start(2**31 + 1), 4, False, 2**31 + 1),
    'deal 2^33 - 1, 4 cells': (g.deal_start(2**33 - 1), 4, False, 2**33 - 1),
}


def proved_and_checked(tmp_path, pos, cells, fixed, fm, number, solver=False):
    rules = Rules(cells, fixed, fm)
    path = tmp_path / 'cert.msgpack.zst'
    # as `certify` does, wins are found by the solver (the exhaustive search may wander for long
    # with foundation moves), and its line is replayed by the readable rules before it is written
    result = proved(ours(pos), rules, deal=number, out=path, plan=((Solve(solver=lambda p: solve(p, rules)),) if solver else ()) + (SearchStep(),))
    verdict, head, text, _ = checker.verify(path)
    assert verdict == 'verified', text
    assert (head['deal'], head['cells'], head['foundation_moves']) == (number, cells, fm)
    assert (head['board'] is None) == (number is not None)
    return result, head, text


@pytest.mark.parametrize('label', list(NOWIN))
def test_no_win_certificates_of_every_variant_are_verified(tmp_path, label):
    pos, cells, fixed, fm, number = NOWIN[label]
    symmetry = 'none' if fixed else 'columns'
    reachable = g.explore(pos, cells, fm, symmetry)
    assert not any(g.is_won(p) for p in reachable)
    result, head, text = proved_and_checked(tmp_path, pos, cells, fixed, fm, number)
    assert result.verdict == NO_WIN and head['claim'] == 'no-win' and head['symmetry'] == symmetry
    assert head['count'] == result.positions == len(reachable)
    positions = f"{len(reachable):,} position{'s' if len(reachable) != 1 else ''}"
    assert text.endswith(f'cannot be won: {positions} closed under every legal move, none won')


def test_the_stuck_boards_are_what_they_say():
    for k in range(9):
        reachable = g.explore(stuck(k), k)
        assert len(reachable) == (1 if k == 0 else 9) and not any(g.is_won(p) for p in reachable)
    assert len(g.explore(stuck(3, 9), 3, True)) > len(g.explore(stuck(3, 9), 3))


@pytest.mark.parametrize('label', list(WINS))
def test_win_certificates_of_every_variant_are_verified(tmp_path, label):
    pos, cells, fm, number = WINS[label]
    result, head, text = proved_and_checked(tmp_path, pos, cells, False, fm, number, solver=True)
    assert result.verdict == WIN and head['claim'] == 'win' and head['symmetry'] == 'none'
    assert head['count'] == len(result.moves)
    assert g.replay_wins(pos, cells, fm, result.moves)   # the test side's own replay agrees


# ---- certify's writer at the id-width switch ----

@pytest.mark.parametrize('fixed', [False, True])
def test_certifys_writer_at_65536_columns_is_verified(tmp_path, fixed):
    """certify's search numbers columns in 2 bytes, so its tables stop at 65,536 entries: the
    writer's largest table, written from search-style keys, must still have 2-byte ids."""
    symmetry = 'none' if fixed else 'columns'
    positions = g.with_columns(g.explore(g.NOWIN0, 0, symmetry=symmetry), 0, 65536)
    columns = sorted({bytes(c) for p in positions for c in p[2]}, key=lambda c: (len(c), c))  # any numbering
    number = {c: i for i, c in enumerate(columns)}
    keys = [bytes(p[0]) + b''.join(number[bytes(c)].to_bytes(2, 'big') for c in p[2]) for p in positions]
    body = writer.no_win_body(keys, columns, 0, fixed)
    rules = Rules(0, fixed)
    head = writer.header('no-win', None, spec.board_bytes(ours(g.NOWIN0), 0), rules, len(keys), body)
    path = tmp_path / 'wide.msgpack.zst'
    path.write_bytes(writer.encode_file(head, body, level=1))
    table, records = g.body_values(g.unpack_file(path.read_bytes())[1])   # (one chunk)
    assert len(table) == 65536
    assert len(records) == len(keys) * (4 + 8 * 2)   # 2-byte ids
    verdict, _, text, _ = checker.verify(path)
    assert verdict == 'verified', text
    read_back = reader.load(path).positions()
    assert {ours(g.canon(p, symmetry)) for p in positions} == set(read_back)
