"""check/ must say yes to correct certificates and no, with the right reason, to everything else.

Certificates are written by tests/support/certgen.py, a test-side writer built from the format document
(not from certify/), from positions brute-forced here.
"""
import contextlib
import functools
import hashlib
import json
import random
import re
import subprocess
import sys
from pathlib import Path

import msgpack
import pytest
import zstandard
from hypothesis import HealthCheck, given, settings, strategies as st
from support import certgen as g
from check import checker

BAD = Path(__file__).parent / 'bad-certificates'

# Small custom boards (most cards already on the foundations), found by brute force.
NOWIN0, NOWIN1, WIN0, WIN1, WIN3 = g.NOWIN0, g.NOWIN1, g.WIN0, g.WIN1, g.WIN3

# name -> (start, cells, foundation_moves, symmetry, deal)
NOWIN = {
    'board0': (NOWIN0, 0, False, 'columns', None),
    'board0-fixed': (NOWIN0, 0, False, 'none', None),
    'board1': (NOWIN1, 1, False, 'columns', None),
    'deal1-cell1': (g.deal_start(1), 1, False, 'columns', 1),
    'deal1-cell1-fixed': (g.deal_start(1), 1, False, 'none', 1),
    'deal1-cell0': (g.deal_start(1), 0, False, 'columns', 1),
    'deal1-cell1-fm': (g.deal_start(1), 1, True, 'columns', 1),
    'board1-fixed': (NOWIN1, 1, False, 'none', None),
    'board2': (g.NOWIN2, 2, False, 'columns', None),         # a card may enter a cell below one there
    'board2-fixed': (g.NOWIN2, 2, False, 'none', None),
}
# name -> (start, cells, deal)
# win1-cell: WIN1 with its QH starting in the free cell, so the line moves a card out of a cell it was dealt into
WIN1_CELL = g.board((10, 11, 11, 11), ['KH JC', 'QC KD', 'QD KC', 'KS', 'QS', '', '', ''], cells=['QH'])
WIN = {'win0': (WIN0, 0, None), 'win1': (WIN1, 1, None), 'win3': (WIN3, 1, None), 'win1-cell': (WIN1_CELL, 1, None)}


@functools.lru_cache(maxsize=None)
def positions(name):
    start, cells, fm, symmetry, _ = NOWIN[name]
    found = g.explore(start, cells, fm, symmetry)
    assert not any(g.is_won(p) for p in found), 'the brute force says this start can be won'
    return frozenset(found)


def nowin(name, positions_=None, parts=None, **changes):
    """The no-win certificate for NOWIN[name], from other positions/parts or with header changes."""
    start, cells, fm, symmetry, deal = NOWIN[name]
    blob = g.nowin_file(start, cells, positions_ or positions(name), fm, symmetry, deal, parts)
    return g.rebuild(blob, **changes) if changes else blob


def parts(name):
    start, cells, fm, symmetry, _ = NOWIN[name]
    return g.nowin_parts(positions(name), cells, symmetry)


@functools.lru_cache(maxsize=None)
def path(name):
    start, cells, _ = WIN[name]
    return tuple(g.win_path(start, cells))


def win(name, moves=None, **changes):
    start, cells, deal = WIN[name]
    blob = g.win_file(start, cells, path(name) if moves is None else moves, deal=deal)
    return g.rebuild(blob, **changes) if changes else blob


@pytest.fixture(scope='module')
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp('certs')


def check(workdir, blob, name='cert.msgpack.zst'):
    """(verdict, reason) from the checker for these file bytes. A traceback fails the test."""
    p = workdir / name
    p.write_bytes(blob)
    verdict, _, text, digest = checker.verify(p)
    # The file's SHA-256 when it was read to its end (always when verified): a file refused early
    # is not read on for a digest.
    assert digest == hashlib.sha256(blob).hexdigest() or verdict != 'verified' and digest is None
    return verdict, text


def rejected(workdir, blob, phrase, verdict='rejected'):
    got, text = check(workdir, blob)
    assert got == verdict and phrase in text, (got, text)
    return text


# ---- the deal ----

def test_deal_1_column_bottoms():
    assert ' '.join(checker.name(col[0]) for col in checker.deal(1)) == 'JD 2D 9H JC 5D 7H 7C 5H'


@pytest.mark.parametrize('n', [1, 2, 617, 11982, 2**31 - 1, 2**31, 2**31 + 7, 2**32 - 1, 2**32, 2**32 + 5, 2**33 - 1])
def test_deal_agrees_with_test_side_generator(n):
    assert [list(col) for col in checker.deal(n)] == g.ms_deal(n)


# ---- correct certificates verify ----

@pytest.mark.parametrize('name', list(NOWIN))
def test_nowin_verifies(workdir, name):
    verdict, text = check(workdir, nowin(name))
    assert verdict == 'verified', text
    n = len(positions(name))
    assert text.endswith(f'cannot be won: {n:,} position{"s" * (n != 1)} closed under every legal move, none won')


@pytest.mark.parametrize('name', list(WIN))
def test_win_verifies(workdir, name):
    start, cells, _ = WIN[name]
    assert g.replay_wins(start, cells, False, path(name))
    assert check(workdir, win(name))[0] == 'verified'
    if name == 'win1-cell':   # the line does take the QH out of the cell it starts in
        assert any(card == g.card('QH') for card, _ in path(name))


def test_win_with_a_move_off_a_foundation(workdir):
    # WIN0: QC goes up, comes back down to an empty column, goes up again.
    moves = list(path('win0'))
    k = moves.index((g.card('QC'), 9)) + 1
    moves[k:k] = [(g.card('QC'), 7), (g.card('QC'), 9)]
    assert check(workdir, win('win0', moves, foundation_moves=True))[0] == 'verified'
    rejected(workdir, win('win0', moves), f'move {k + 1} (QC to column 8) is illegal: QC cannot move')


def test_deal_1_win_and_the_theorem_line(workdir, capsys):
    start = g.deal_start(1)
    moves = g.win_path(start, 4)
    p = workdir / 'deal1-win.msgpack.zst'
    p.write_bytes(g.win_file(start, 4, moves, deal=1))
    assert checker.main([str(p)]) == 0
    assert capsys.readouterr().out == (
        f'VERIFIED: Microsoft FreeCell deal 1 (4 free cells, single-card moves, no moves off foundations) can be '
        f'won: {len(moves):,} single-card moves replay to a won position\n'
        f'  sha256 {hashlib.sha256(p.read_bytes()).hexdigest()}\n')


def test_nowin_theorem_line(workdir, capsys):
    p = workdir / 'deal1.msgpack.zst'
    p.write_bytes(nowin('deal1-cell1'))
    assert checker.main([str(p)]) == 0
    assert capsys.readouterr().out.startswith(
        'VERIFIED: Microsoft FreeCell deal 1 (1 free cell, single-card moves, no moves off foundations) cannot be '
        f'won: {len(positions("deal1-cell1")):,} positions closed under every legal move, none won\n  sha256 ')
    p.write_bytes(nowin('board1'))
    assert checker.main([str(p)]) == 0
    assert f'VERIFIED: the layout in {p} (1 free cell,' in capsys.readouterr().out


# ---- no-win certificates: mutations are rejected, for the right reason ----

def drop(name, index):
    """The certificate without the position whose record sorts at index; the reason it must fail."""
    start, cells, fm, symmetry, _ = NOWIN[name]
    table, _ = parts(name)
    gone = sorted(positions(name), key=lambda p: g.record(p, table, cells, symmetry))[index]
    why = 'the starting position' if gone == g.canon(start, symmetry) else 'gives a position not in the certificate'
    return nowin(name, positions(name) - {gone}), why


@pytest.mark.parametrize('name', ['board1', 'deal1-cell1', 'board0-fixed'])
@pytest.mark.parametrize('index', [0, -1, 'random'])
def test_removing_a_record_is_rejected(workdir, name, index):
    i = random.Random(name).randrange(len(positions(name))) if index == 'random' else index
    blob, why = drop(name, i)
    rejected(workdir, blob, why)


def in_record_order(name):
    start, cells, fm, symmetry, _ = NOWIN[name]
    table, _ = parts(name)
    return sorted(positions(name), key=lambda p: g.record(p, table, cells, symmetry))


# The closure of the first and of the last record is checked like any other's. Keep only what the
# start reaches without ever moving from the boundary record: every other record stays closed,
# and some successor of the boundary record is missing, so that record alone fails (each board
# was chosen so that such successors exist). A checker that skipped that one record would pass.
@pytest.mark.parametrize('name, which', [('board0', 'first'), ('deal1-cell1', 'first'),
                                         ('deal1-cell1-fixed', 'first'), ('board1-fixed', 'last')])
def test_the_first_and_the_last_records_closure_is_checked(workdir, name, which):
    start, cells, fm, symmetry, _ = NOWIN[name]
    boundary = in_record_order(name)[0 if which == 'first' else -1]
    kept = g.explore(start, cells, fm, symmetry, unexpanded={boundary})
    assert boundary in kept and kept < positions(name)
    table, recs = g.nowin_parts(kept, cells, symmetry)
    n = 1 if which == 'first' else len(recs)
    assert g.record(boundary, table, cells, symmetry) == recs[n - 1]
    text = rejected(workdir, nowin(name, kept), f'record {n} (')
    moved = re.fullmatch(r'record \d+ \(.*\): moving (\w\w) from (.+) to (.+) gives a position not in the '
                         r'certificate', text)
    assert moved, text
    # The move named is one that leaves the kept set.
    leaving = {g.card_name(c) for (c, _), q in g.successors(boundary, cells, fm) if g.canon(q, symmetry) not in kept}
    assert moved[1] in leaving, (text, leaving)


# A no-win certificate holding just the start of a winnable board: its one record is both the
# first and the last, and its moves lead out of the set.
@pytest.mark.parametrize('start, cells, deal, symmetry', [(WIN1, 1, None, 'columns'), (WIN1, 1, None, 'none'),
                                                          (WIN3, 1, None, 'columns'), (g.deal_start(1), 4, 1, 'columns')])
def test_the_start_alone_is_rejected_for_a_winnable_board(workdir, start, cells, deal, symmetry):
    blob = g.nowin_file(start, cells, {g.canon(start, symmetry)}, symmetry=symmetry, deal=deal)
    text = rejected(workdir, blob, 'record 1 (')
    assert text.endswith('gives a position not in the certificate'), text


def test_removing_the_start_is_rejected(workdir):
    start, _, _, symmetry, _ = NOWIN['board1']
    rejected(workdir, nowin('board1', positions('board1') - {g.canon(start, symmetry)}), 'the starting position (')


@pytest.mark.parametrize('name', ['board1', 'deal1-cell1-fixed'])
def test_adding_a_won_position_is_rejected(workdir, name):
    won = g.make((13, 13, 13, 13), (), [()] * 8)
    text = rejected(workdir, nowin(name, positions(name) | {won}), f'record {len(positions(name)) + 1} (')
    assert text.endswith('foundations KC KD KH KS; cells -; columns - | - | - | - | - | - | - | -) is won')


def test_changing_one_card_of_one_position_is_rejected(workdir):
    # Swap the top cards of two columns in one (non-start) position: a well-formed position,
    # but the original is now missing.
    start, cells, _, symmetry, _ = NOWIN['board1']
    rng, tried = random.Random(1), 0
    for p in rng.sample(sorted(positions('board1') - {g.canon(start, symmetry)}), 5):
        cols = [list(c) for c in p[2]]
        a, b = [i for i, c in enumerate(cols) if c][:2]
        cols[a][-1], cols[b][-1] = cols[b][-1], cols[a][-1]
        changed = g.canon(g.make(p[0], p[1], cols), symmetry)
        if changed in positions('board1'):
            continue
        rejected(workdir, nowin('board1', positions('board1') - {p} | {changed}), 'not in the certificate')
        tried += 1
    assert tried


def test_a_changed_copy_of_a_record_is_rejected(workdir):
    # Changed copies are added (the originals stay) so that the copy itself is what fails.
    table, recs = parts('board1')
    more_clubs = bytes([recs[7][0] + 1]) + recs[7][1:]          # one more club on the foundation, still in play
    rejected(workdir, nowin('board1', parts=(table, sorted(recs + [more_clubs]))),
             f'({more_clubs.hex()}) is not a well-formed position: the 52 cards are not each in one place')
    cell = [r for r in recs if r[4] == 0xFF][3]
    ks_twice = cell[:4] + b'\x33' + cell[5:]                     # KS in the cell as well as in a column
    rejected(workdir, nowin('board1', parts=(table, sorted(recs + [ks_twice]))),
             f'({ks_twice.hex()}) is not a well-formed position: the 52 cards are not each in one place')
    descending = recs[5][:5] + b''.join(reversed([recs[5][i:i + 2] for i in range(5, 21, 2)]))
    rejected(workdir, nowin('board1', parts=(table, sorted(recs + [descending]))),
             f'({descending.hex()}) is not a well-formed position: its column ids are not ascending')


def test_header_changes_are_caught_by_the_semantic_check(workdir):
    rejected(workdir, nowin('deal1-cell1', deal=2), 'the starting position (foundations -- -- -- --; cells -;')
    # With another cell count the records have another width W: read as W-byte records they are not positions.
    rejected(workdir, nowin('deal1-cell1', cells=2), 'record 1 (')
    rejected(workdir, nowin('deal1-cell1', cells=0), 'record 1 (')
    rejected(workdir, nowin('deal1-cell1', symmetry='none'), 'the starting position')
    rejected(workdir, nowin('deal1-cell1-fixed', symmetry='columns'), 'its column ids are not ascending')
    rejected(workdir, nowin('board1', foundation_moves=True), 'from its foundation to')
    rejected(workdir, nowin('board0', count=91), 'records: there are 90, not count = 91')
    rejected(workdir, nowin('board0', count=89), 'records: there are 90+, not count = 89')   # (read no further)
    # Claimed as a win, the body is not 2 x count bytes: refused from the body's length, before it is read.
    rejected(workdir, nowin('board0-fixed', claim='win'), 'the body has')
    rejected(workdir, nowin('board0', claim='win', count=10**4), 'a win must have symmetry none')
    rejected(workdir, nowin('board0-fixed', claim='win', count=10**4), 'the body has')
    # With one cell the board still reads as a position (TH in the cell), but no record does.
    rejected(workdir, nowin('board0', cells=1), 'record 1 (')
    rejected(workdir, nowin('board0', xxh3_64='0' * 16), 'does not match its xxh3_64')


def test_record_order_and_duplicates_are_rejected(workdir):
    table, recs = parts('board1')
    swapped = list(recs)
    swapped[10], swapped[11] = swapped[11], swapped[10]
    rejected(workdir, nowin('board1', parts=(table, swapped)),
             'records: record 12 does not sort after the last')
    rejected(workdir, nowin('board1', parts=(table, list(recs[:5]) + [recs[4]] + list(recs[5:]))),
             'records: record 6 does not sort after the last')
    rejected(workdir, nowin('board1', parts=(table, list(reversed(recs)))), 'records: record 2 does not sort after the last')


def test_front_coding_is_exact(workdir):
    table, recs = parts('board0')
    body = g.front_code(recs)
    W = len(recs[0])
    # Record 2 stated with one byte less of shared prefix than it has.
    p = body[W + 1]
    assert p > 0
    loose = body[:W + 1] + bytes([p - 1]) + recs[1][p - 1:] + body[W + 1 + 1 + W - p:]
    blob = g.rebuild(nowin('board0'), msgpack.packb([table, loose]))
    rejected(workdir, blob, 'records: record 2 shares more than its stated')
    for bad, phrase in [(bytes([W]) + body[1:], 'records: record 1 says it shares'),
                        (bytes([1]) + body[1:], 'records: record 1 is cut short'),
                        (body + bytes([W]), f'records: record 91 says it shares {W} bytes'),
                        (body + b'\x00', 'records: record 91 is cut short'),
                        (body[:-1], 'records: record 90 is cut short'),
                        (body + bytes([W - 1]) + recs[-1][-1:], 'does not sort after the last')]:
        rejected(workdir, g.rebuild(nowin('board0'), msgpack.packb([table, bad])), phrase)


def test_column_table_rules(workdir):
    table, recs = parts('board0')
    blob = nowin('board0')
    for bad, phrase in [(table[1:2] + table[0:1] + table[2:], 'column table entry 1 ('),
                        (table + [b'\x34'], 'is not cards'),
                        (table + [bytes(range(53))], 'is not cards'),
                        (table + [b'\x33\x33\x33'], f'column table entry {len(table)} is unused'),
                        (table[:2] + table[1:2] + table[2:], 'column table entry 2 ('),   # a repeated entry
                        (table + [b'\x33' * 53], f'column table entry {len(table)} ({"33" * 53}) is not cards')]:
        rejected(workdir, g.rebuild(blob, msgpack.packb([bad, g.front_code(recs)])), phrase)
    w = 2
    beyond = recs[-1][:-w] + (len(table)).to_bytes(w, 'big')
    rejected(workdir, nowin('board0', parts=(table, sorted(recs + [beyond]))), 'a column id is beyond the table')


def test_cells_must_be_ascending_then_ff(workdir):
    table, recs = parts('board1')
    bad = [r for r in recs if r[4] != 0xFF][0]
    rejected(workdir, nowin('board1', parts=(table, sorted(set(recs) - {bad} | {bad[:4] + b'\xfe' + bad[5:]}))),
             'the 52 cards are not each in one place')
    cols = [bytes(c) for c in NOWIN0[2]]
    found = bytes(NOWIN0[0])
    assert checker.problem(found, b'', cols) is None
    moved = cols[:6] + [b''] + cols[7:]   # KS off its column and into a cell, spelled several ways
    assert checker.problem(found, b'\x33', moved) is None
    assert checker.problem(found, b'\x33\xff', moved) is None
    for cells in (b'\xff\x33', b'\x33\x33', b'\xff\x33\xff'):
        assert checker.problem(found, cells, moved) == 'the cells are not ascending cards, then 0xFF'


@pytest.mark.parametrize('body, phrase', [
    (b'', 'the body ends inside the body'),
    (msgpack.packb([]), 'the body is not [columns, records]'),
    (msgpack.packb([[], b'', b'']), 'the body is not [columns, records]'),
    (msgpack.packb([['x'], b'']), 'column table entry 0 is not a msgpack bin'),
    (msgpack.packb([[1], b'']), 'column table entry 0 is not a msgpack bin'),
    (msgpack.packb({'a': 1}), 'the body is not a msgpack array'),
    (b'\xdd\xff\xff\xff\xff', 'the body is not [columns, records]'),       # array32 of 2**32 - 1
    (b'\x92\xdd\x00\x01\x00\x00', 'the column table has 65,536 entries: more than 8 x count'),  # 65536, no data
    (b'\x92\xdc\x00\x10', 'the body ends inside column table entry 0'),  # 16, no data
    (msgpack.packb([[], b'']), 'records: there are 0, not count'),
    (msgpack.packb([[], b'']) + b'\x00', 'records: there are 0, not count'),   # (the records are read first)
    (msgpack.packb([[], b'\x00' * 3000]), 'records: 3000 bytes for 90'),
])
def test_nowin_body_structure(workdir, body, phrase):
    rejected(workdir, g.rebuild(nowin('board0'), body), phrase)


def test_flipping_any_byte_never_verifies(workdir):
    blob = nowin('board0')
    for i in range(len(blob)):
        bit = 1 << (i % 8)
        bad = blob[:i] + bytes([blob[i] ^ bit]) + blob[i + 1:]
        verdict, text = check(workdir, bad)
        assert verdict != 'verified' or sound(bad, blob), (i, bit, text)


def test_truncating_never_verifies(workdir):
    blob = nowin('board0')
    for n in range(len(blob)):
        verdict, text = check(workdir, blob[:n])
        assert verdict == 'unreadable', (n, text)


def sound(bad, blob):
    """A mutant may verify only if it says the same as the original, or (a header bit that
    weakens the rules, say) if the test's own brute force agrees with what it claims."""
    try:
        if g.unpack_file(bad) == g.unpack_file(blob):
            return True
    except Exception:
        pass
    return g.claim_holds(bad)


# ---- win certificates: every single change is judged exactly as the test's own replay judges it ----

@pytest.mark.parametrize('name', ['win1', 'win3'])
def test_changing_or_dropping_any_move(workdir, name):
    start, cells, _ = WIN[name]
    moves, verdicts = list(path(name)), []
    for i in range(len(moves)):
        variants = [moves[:i] + moves[i + 1:]]
        variants += [moves[:i] + [(moves[i][0], d)] + moves[i + 1:] for d in range(10) if d != moves[i][1]]
        variants += [moves[:i] + [((moves[i][0] + k) % 52, moves[i][1])] + moves[i + 1:] for k in (1, 4, 13)]
        for variant in variants:
            verdict, text = check(workdir, win(name, variant))
            assert verdict == ('verified' if g.replay_wins(start, cells, False, variant) else 'rejected'), text
            assert verdict == 'verified' or re.search(r'move \d+ \(|is not won', text), text
            verdicts.append(verdict)
    assert verdicts.count('rejected') > 0.9 * len(verdicts)


def test_win_rejections_name_the_move(workdir):
    moves = list(path('win1'))
    first = moves[0]
    rejected(workdir, win('win1', moves[:-1]), f'after all {len(moves) - 1} moves the position is not won: foundations')
    rejected(workdir, win('win1', [(g.card('AC'), 9)] + moves), 'move 1 (AC to its foundation) is illegal: AC cannot move')
    rejected(workdir, win('win1', [(g.card('KH'), 9)] + moves), 'move 1 (KH to its foundation) is illegal: KH cannot move')
    # A card free to move is refused with where it may go (all of the legal moves of that card).
    rejected(workdir, win('win1', [(g.card('KC'), 9)] + moves), 'move 1 (KC to its foundation) is illegal: KC may go only to column 7, column 8, a free cell')
    rejected(workdir, win('win1', [(g.card('JC'), 1)] + moves), 'move 1 (JC to column 2) is illegal: JC may go only to ')
    rejected(workdir, win('win1', [(g.card('JC'), 0)] + moves), 'move 1 (JC to column 1) is illegal: JC may go only to ')
    rejected(workdir, win('win1', [(g.card('JC'), 8), (g.card('KS'), 8)] + moves), 'move 2 (KS to a free cell) is '
             'illegal: KS may go only to column 7, column 8; before it: foundations TC JD JH JS; cells JC; '
             'columns KH | QC KD')
    rejected(workdir, win('win1', [(g.card('JC'), 8), (g.card('JC'), 8)] + moves), 'move 2 (JC to a free cell) is '
             'illegal: JC may go only to its foundation, column 6')
    rejected(workdir, win('win1', [(60, 1)] + moves), 'move 1: bytes 60, 1 are not a move')
    rejected(workdir, win('win1', [(first[0], 10)] + moves), 'are not a move')
    rejected(workdir, win('win1', symmetry='columns'), 'a win must have symmetry none')
    rejected(workdir, g.rebuild(win('win1'), bytes(b for m in moves for b in m)[:-1]),
             f'the body has {2 * len(moves) - 1} bytes, not')
    rejected(workdir, win('win1', count=len(moves) + 1), f'the body has {2 * len(moves)} bytes, not')
    rejected(workdir, win('win1', cells=0), 'the board is not four counts')
    rejected(workdir, g.rebuild(win('win1'), board=g.board_bytes(WIN0, 1)), 'move 1 (')
    assert check(workdir, win('win1', moves, cells=2, board=g.board_bytes(WIN1, 2)))[0] == 'verified'


# Moves that look like no-ops are still not moves (section 1): a card in a cell going to another
# free cell, a foundation's top card going to a free cell or onto its own foundation.

def test_no_move_from_a_cell_to_a_cell(workdir):
    # WIN1's line puts KC in the cell at move 6; with two cells the other one is still empty.
    moves = list(path('win1'))
    k = moves.index((g.card('KC'), g.CELL)) + 1
    variant = moves[:k] + [(g.card('KC'), g.CELL)] + moves[k:]
    two = dict(cells=2, board=g.board_bytes(WIN1, 2))
    assert check(workdir, win('win1', moves, **two))[0] == 'verified'
    assert not g.replay_wins(WIN1, 2, False, variant)
    for fm in (False, True):
        rejected(workdir, win('win1', variant, foundation_moves=fm, **two),
                 f'move {k + 1} (KC to a free cell) is illegal: KC may go only to')


@pytest.mark.parametrize('dest, why', [(g.CELL, 'QH may go only to column 3, column 4, column 6, column 7, column 8;'),
                                       (g.FOUNDATION, 'QH may go only to column 3, column 4, column 6, column 7, column 8;')])
def test_no_move_from_a_foundation_but_onto_a_column(workdir, dest, why):
    # Move 1 puts QH home; the cell is empty, and foundation moves are on.
    moves = list(path('win1'))
    assert moves[0] == (g.card('QH'), g.FOUNDATION)
    assert check(workdir, win('win1', moves, foundation_moves=True))[0] == 'verified'
    down = moves[:1] + [(g.card('QH'), 7), (g.card('QH'), g.FOUNDATION)] + moves[1:]   # onto the empty column 8
    assert g.replay_wins(WIN1, 1, True, down) and check(workdir, win('win1', down, foundation_moves=True))[0] == 'verified'
    variant = moves[:1] + [(g.card('QH'), dest)] + moves[1:]
    assert not g.replay_wins(WIN1, 1, True, variant)
    rejected(workdir, win('win1', variant, foundation_moves=True), f'move 2 (QH to {checker.PLACE[dest]}) is illegal: {why}')
    rejected(workdir, win('win1', variant), 'move 2 (QH to')


@pytest.mark.parametrize('extra', [b'\x00', b'\x0a\x09', b'\x0a\x09\x0a', bytes(8), bytes(1000)])
def test_a_win_body_is_exactly_two_bytes_a_move(workdir, extra):
    # Bytes after the last move: the line still wins, but the body is not 2 x count bytes (section 3).
    moves = list(path('win1'))
    body = bytes(b for m in moves for b in m) + extra
    verdict, text = check(workdir, g.rebuild(win('win1'), body))
    assert verdict in ('rejected', 'unreadable') and 'bytes' in text, (verdict, text)
    if len(extra) <= 3:   # within the msgpack framing's allowance the content check names it
        assert verdict == 'rejected' and f'the body has {len(body)} bytes, not 2 x count' in text


# ---- column tables at the id-width switch: 2-byte ids up to 65,536 entries, 3-byte above ----
# A real closed set (board0, 90 positions) plus positions that have no move at all (tests/support/certgen.py)
# until the table has the size wanted: still closed, so still VERIFIED, and the 3-byte ids of the
# real positions (whose columns sort last, ids up to 65,536) must be read and re-encoded right.

@functools.lru_cache(maxsize=None)
def big_table(columns):
    return frozenset(g.with_columns(positions('board0'), 0, columns))


@pytest.mark.parametrize('columns, width', [(65536, 2), (65537, 3)])
def test_the_id_width_switches_above_65536_columns(workdir, columns, width):
    everything = big_table(columns)
    table, recs = g.nowin_parts(everything, 0, 'columns')
    assert len(table) == columns and {len(r) for r in recs} == {4 + 8 * width}
    ids = {int.from_bytes(r[i:i + width], 'big') for r in recs for i in range(4, len(r), width)}
    assert max(ids) == columns - 1 and min(ids) == 0
    verdict, text = check(workdir, nowin('board0', parts=(table, recs)))
    assert verdict == 'verified', text
    assert text.endswith(f'cannot be won: {len(everything):,} positions closed under every legal move, none won')
    # The same positions with ids of the other width do not decode as records of this table.
    wrong = g.nowin_parts(everything, 0, 'columns', width=5 - width)
    rejected(workdir, nowin('board0', parts=wrong), 'record')   # (the records' framing, or record 1 as a position)


def test_a_3_byte_id_beyond_the_table_is_refused(workdir):
    table, recs = g.nowin_parts(big_table(65537), 0, 'columns')
    beyond = recs[-1][:-3] + (65537).to_bytes(3, 'big')
    assert beyond > recs[-1]
    rejected(workdir, nowin('board0', parts=(table, recs + [beyond])),
             f'record {len(recs) + 1} ({beyond.hex()}) is not a well-formed position: a column id is beyond the table')


# ---- hostile files: one-line reasons, bounded memory, never a traceback ----

def frame(data):
    return zstandard.ZstdCompressor(level=3, write_content_size=True).compress(data)


def raw_header(**changes):
    h = g.header('win', 3, b'\x00' * 6, board=g.board_bytes(WIN0, 0), cells=0, symmetry='none')
    h.update(changes)
    return msgpack.packb(h)


@pytest.mark.parametrize('blob, phrase', [
    (b'', 'cert.msgpack.zst is empty'),
    (b'not a zstd frame at all', 'not a valid zstd frame'),
    (frame(b'\xc1' * 100), 'the header (in the first 64 KiB) is not valid msgpack'),
    (frame(bytes(range(256)) * 8), 'does not start with a msgpack map'),
    (frame(b''), 'a zstd frame holds no data'),
    (frame(msgpack.packb([1, 2, 3])), 'does not start with a msgpack map'),
    (frame(b'\xdf\xff\xff\xff\xff'), 'the header (in the first 64 KiB) is not valid msgpack'),   # map32 of 2**32-1
    (frame(b'\x91' * 5000 + b'\xc0'), 'StackError'),
    (frame(raw_header() + msgpack.packb('text!!')), 'the body is not a msgpack bin'),
    (frame(raw_header() + msgpack.packb(b'\x00' * 6) + b'\x00'), 'the body has data after it'),
    (frame(raw_header() + msgpack.packb(b'\x00' * 6)) + frame(b'x')[:5], 'its zstd frame is cut short'),
    (frame(raw_header() + msgpack.packb(b'\x00' * 6)) + b'junk', 'not a valid zstd frame'),
    (frame(raw_header() + msgpack.packb(b'\x00' * 6)) + frame(b'x'), 'the body has data after it'),
    (frame(raw_header() + msgpack.packb(b'\x00' * 6))[:-3], 'cut short'),
    (frame(raw_header() + b'\x00' * 65536), 'the body is not a msgpack bin'),
    (frame(b'\x00' * 65536 + raw_header()), 'does not start with a msgpack map'),
])
def test_hostile_files_are_unreadable(workdir, blob, phrase):
    rejected(workdir, blob, phrase, 'unreadable')


# ---- several zstd frames (§5): one file, whose data is theirs one after another ----

def frames(data, cuts, last=None):
    """`data` as a zstd frame for each piece between the cuts (the last piece by the compressor `last`)."""
    bounds = [0, *cuts, len(data)]
    pieces = [data[a:b] for a, b in zip(bounds, bounds[1:])]
    return b''.join(frame(p) for p in pieces[:-1]) + (last or zstandard.ZstdCompressor(level=3)).compress(pieces[-1])


def content(blob):
    return zstandard.ZstdDecompressor().stream_reader(blob, read_across_frames=True).read()


# A skippable frame (RFC 8878 section 3.1.2): zstd readers pass over it; it holds none of the data.
SKIPPABLE = (0x184D2A50).to_bytes(4, 'little') + (3).to_bytes(4, 'little') + b'abc'


@pytest.mark.parametrize('blob', [win('win1'), win('win3'), nowin('board1'), nowin('deal1-cell1'), nowin('board2-fixed')],
                         ids=['win1', 'win3', 'board1', 'deal1-cell1', 'board2-fixed'])
def test_a_certificate_in_several_frames_is_the_certificate_of_their_data(workdir, blob):
    """Wherever the frames are cut (in the header, in a msgpack value, between values, every few bytes),
    the file verifies as the single frame does, and only then. A frame must hold some of the data: an
    empty or a skippable one, anywhere, is refused (else a file of them would make work without end)."""
    data, (verdict, text) = content(blob), check(workdir, blob)
    assert verdict == 'verified'
    n = len(data)
    for cuts in ([1], [n // 2], [n - 1], list(range(5, n, 7)), list(range(1, n))):
        assert check(workdir, frames(data, cuts)) == (verdict, text), cuts
    for nothing in (frame(b''), SKIPPABLE):
        for file in (nothing + blob, frames(data, [n // 3])[:len(frame(data[:n // 3]))] + nothing +
                     frame(data[n // 3:]), blob + nothing):
            rejected(workdir, file, 'a zstd frame holds no data', 'unreadable')
    # cut short: in the last frame, or a whole last frame missing (the data ends early)
    assert rejected(workdir, frames(data, [n // 2])[:-2], 'cut short', 'unreadable')
    assert rejected(workdir, frames(data, [n - 1])[:len(frame(data[:n - 1]))], 'is cut short')
    # After the last frame: nothing but another frame, and that one holds nothing.
    rejected(workdir, frames(data, [n // 2]) + b'junk', 'not a valid zstd frame', 'unreadable')
    rejected(workdir, frames(data, [n // 2]) + frame(b'\x00'), 'has data after it', 'unreadable')
    # A frame whose checksum is missing is cut short, even with all of its data decompressed before it.
    whole = frames(data, [n // 2], last=zstandard.ZstdCompressor(level=3, write_checksum=True))
    assert check(workdir, whole) == (verdict, text)
    rejected(workdir, whole[:-4], 'its zstd frame is cut short', 'unreadable')


@pytest.mark.parametrize('blob, phrase', [
    # A whole zstd frame whose data ends before the body does: readable, and short of what it claims.
    (frame(raw_header()), 'the body is cut short'),
    (frame(raw_header() + b'\xc5\x00\x06'), 'the body is cut short'),
    # A body far longer than a 3-move win: refused from its length, before it is read.
    (frame(raw_header() + b'\xc6\xff\xff\xff\xff' + b'\x00' * 6), 'the body has 4294967295 bytes, not 2 x count'),
])
def test_short_or_overlong_bodies_are_rejected(workdir, blob, phrase):
    rejected(workdir, blob, phrase)


@pytest.mark.parametrize('key, value', [
    ('format', 'freecell'), ('format', b'freecell-certificate'), ('version', 0), ('version', True), ('version', '1'),
    ('version', 1.0), ('claim', 'lose'), ('claim', None), ('deal', 0), ('deal', 2**33), ('deal', -1), ('deal', True),
    ('board', 'text'), ('board', [1]), ('cells', 9), ('cells', -1), ('cells', True), ('cells', 4.0),
    ('foundation_moves', 0), ('foundation_moves', None), ('symmetry', 'rows'), ('symmetry', 1), ('count', -1),
    ('count', False), ('count', 'many'), ('version', 4), ('xxh3_64', 12), ('xxh3_64', None), ('xxh3_64', b'0' * 16),
    ('xxh3_64', [[[1]]]), ('symmetry', ['columns']), ('format', {'a': 1}),
])
def test_header_types_and_ranges(workdir, key, value):
    blob = g.rebuild(win('win1'), **{key: value})
    rejected(workdir, blob, f'header {key} = ', 'unreadable')


@pytest.mark.parametrize('value', ['ABCDEF0123456789', '0' * 15, '0' * 16 + '\n', ''])
def test_a_hash_not_written_as_16_lowercase_hex_digits_is_unreadable(workdir, value):
    # A header value outside its table (section 3: 16 lowercase hex digits), as a value of another
    # type is (above); the body's own hash in capitals too.
    rejected(workdir, g.rebuild(win('win1'), xxh3_64=value), 'header xxh3_64 = ', 'unreadable')
    own = g.unpack_file(win('win1'))[0]['xxh3_64']
    rejected(workdir, g.rebuild(win('win1'), xxh3_64=own.upper()), f"header xxh3_64 = '{own.upper()}' is not allowed",
             'unreadable')


def test_a_hash_that_is_not_the_bodys_is_rejected(workdir):
    rejected(workdir, g.rebuild(win('win1'), xxh3_64='0123456789abcdef'), 'does not match its xxh3_64: it is corrupt')


def test_header_shape(workdir):
    h, body = g.unpack_file(win('win1'))
    bin_body = msgpack.packb(body)
    for changed, phrase in [({**h, 'extra': 1}, 'the header keys are not exactly'),
                            ({k: v for k, v in h.items() if k != 'count'}, 'the header keys are not exactly'),
                            ({**h, 'deal': 1}, 'header board = '),      # a board needs deal nil
                            ({**h, 'board': None}, 'header board = ')]:  # no deal needs a board
        rejected(workdir, frame(msgpack.packb(changed) + bin_body), phrase, 'unreadable')
    # A repeated key: a map of eleven entries, 'cells' twice.
    items = b''.join(msgpack.packb(k) + msgpack.packb(v) for k, v in h.items())
    repeated = b'\xde\x00\x0b' + items + msgpack.packb('cells') + msgpack.packb(h['cells'])
    rejected(workdir, frame(repeated + bin_body), 'a msgpack map repeats a key', 'unreadable')
    assert check(workdir, frame(b'\xde\x00\x0a' + items + bin_body))[0] == 'verified'  # the same, as map16
    big = msgpack.packb({**h, 'format': 'x' * 70000})
    rejected(workdir, frame(big + bin_body), 'the header (in the first 64 KiB)', 'unreadable')


def test_custom_board_validation(workdir):
    h, body = g.unpack_file(win('win1'))
    board = h['board']
    for bad, phrase in [(board[:-1], 'the board is not four counts'), (board + b'\xff', 'the board is not four counts'),
                        (board[:3], 'the board is not four counts'), (b'', 'the board is not four counts'),
                        (bytes([14]) + board[1:], 'a foundation count is above 13'),
                        (board.replace(bytes([g.card('KH')]), bytes([g.card('KD')])), 'the 52 cards are not each'),
                        (board.replace(bytes([g.card('KH')]), b'\x40'), 'the 52 cards are not each'),
                        (board[:4] + bytes([g.card('KH')]) + board[5:], 'the 52 cards are not each')]:
        rejected(workdir, g.rebuild(win('win1'), board=bad), phrase)


def bomb(head, size, chunk=b'\x00' * (1 << 20)):
    """A zstd frame of head followed by size bytes of a repeated chunk, built by streaming."""
    out = zstandard.ZstdCompressor(level=1).compressobj(size=len(head) + size)
    parts = [out.compress(head)]
    for _ in range(size // len(chunk)):
        parts.append(out.compress(chunk))
    parts.append(out.flush())
    return b''.join(parts)


def test_zstd_bomb_stops_at_the_cap_from_the_header(workdir):
    # 5 GiB of zeros after a header that allows a six-byte body: refused before any of it is decompressed.
    blob = bomb(raw_header() + b'\xc6\x40\x00\x00\x00', 5 << 30)
    assert len(blob) < 1 << 20
    rejected(workdir, blob, 'the body has 1073741824 bytes, not 2 x count')
    # The six bytes, then 5 GiB more: refused at the first byte after the body.
    rejected(workdir, bomb(raw_header() + msgpack.packb(bytes(6)), 5 << 30), 'the data decompresses to more than it holds',
             'unreadable')
    rejected(workdir, bomb(b'', 5 << 30), 'does not start with a msgpack map', 'unreadable')


def test_a_count_beyond_memory_is_refused_in_one_line(workdir):
    # A version 1 body whose records claim 2 GiB for 2**32 positions: refused by the limit, and with the
    # limit raised, by the memory it would take (said in one line), not by a traceback.
    head = msgpack.packb({**g.header('no-win', 2**32, b'', deal=1), 'symmetry': 'columns'})
    p = workdir / 'beyond.msgpack.zst'
    p.write_bytes(bomb(head + b'\xc6\xff\xff\xff\xff' + b'\x92\x90\xc6\x7f\xff\xff\xff', 64 << 20))
    rejected(workdir, p.read_bytes(), '4,294,967,296 positions: more than --max-positions 4,000,000', 'unreadable')
    verdict, _, text, _ = checker.verify(p, {**checker.LIMITS, 'positions': 2**40})
    assert (verdict, text) == ('unreadable', 'not enough memory for 4,294,967,296 positions: --max-positions / --memory')


def test_a_count_beyond_2_to_the_32_is_a_limit_not_a_format_error(workdir):
    rejected(workdir, g.rebuild(win('win1'), count=2**32 + 1), '4,294,967,297 moves: more than --max-moves', 'unreadable')


def test_empty_win_body(workdir):
    rejected(workdir, win('win1', []), 'after all 0 moves the position is not won')
    done = g.make((13, 13, 13, 13), (), [()] * 8)
    assert check(workdir, g.win_file(done, 0, []))[0] == 'verified'


# ---- fuzzing ----

def mutate(blob, data):
    kind = data.draw(st.sampled_from(['flip', 'flips', 'truncate', 'insert', 'delete']))
    b = bytearray(blob)
    if kind in ('flip', 'flips'):
        for _ in range(1 if kind == 'flip' else data.draw(st.integers(2, 8))):
            i = data.draw(st.integers(0, len(b) - 1))
            b[i] ^= data.draw(st.integers(1, 255))
    elif kind == 'truncate':
        del b[data.draw(st.integers(0, len(b) - 1)):]
    elif kind == 'insert':
        i = data.draw(st.integers(0, len(b)))
        b[i:i] = data.draw(st.binary(min_size=1, max_size=16))
    else:
        i = data.draw(st.integers(0, len(b) - 1))
        del b[i:i + data.draw(st.integers(1, 16))]
    return bytes(b)


def fuzz_once(workdir, data):
    name = data.draw(st.sampled_from(['board0', 'deal1-cell1', 'win1']))
    blob = win(name) if name in WIN else nowin(name)
    bad = mutate(blob, data)
    verdict, text = check(workdir, bad, 'fuzz.msgpack.zst')
    assert verdict != 'verified' or sound(bad, blob), text
    assert '\n' not in text and 'internal error' not in text


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_fuzz(workdir, data):
    fuzz_once(workdir, data)


@pytest.mark.slow
@settings(max_examples=5000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_fuzz_long(workdir, data):
    fuzz_once(workdir, data)


# ---- the corpus of known-bad files ----

def corpus_table():
    rows = re.findall(r'^\| `([^`]+)` \| (\w+) \| (.+?) \|$', (BAD / 'README.md').read_text(), re.M)
    assert rows
    return rows


def test_the_corpus_is_what_certgen_writes():
    # `python tests/support/certgen.py` rewrites the files; they must be exactly what it writes now.
    made = g.bad_corpus()
    assert {f'{name}.msgpack.zst' for name in made} == {p.name for p in BAD.glob('*.msgpack.zst')}
    for name, (blob, verdict, phrase) in made.items():
        assert (BAD / f'{name}.msgpack.zst').read_bytes() == blob, name
    assert {(f'{name}.msgpack.zst', verdict, phrase) for name, (_, verdict, phrase) in made.items()} == \
        {(f, v, p.strip('`')) for f, v, p in corpus_table()}


def test_bad_certificates_corpus():
    rows = corpus_table()
    assert {f for f, _, _ in rows} == {p.name for p in BAD.glob('*.msgpack.zst')}
    for file, verdict, phrase in rows:
        got, _, text, _ = checker.verify(BAD / file)
        assert got == verdict and phrase.strip('`') in text, (file, got, text)


# ---- the command line ----

def verdicts(out):
    """The lines of check's output but the digests printed under each VERIFIED line."""
    return [line for line in out.splitlines() if not line.startswith('  sha256 ')]


def test_command_line(workdir, capsys):
    folder = workdir / 'folder'
    folder.mkdir()
    (folder / 'a.msgpack.zst').write_bytes(nowin('board0'))
    (folder / 'b.msgpack.zst').write_bytes(win('win0'))
    (folder / 'ignored.txt').write_bytes(b'not a certificate')
    assert checker.main([str(folder)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith('a.msgpack.zst: VERIFIED: the layout in') and out[2].startswith('b.msgpack.zst: VERIFIED')
    digest = hashlib.sha256((folder / 'a.msgpack.zst').read_bytes()).hexdigest()
    assert out[1] == f'  sha256 {digest}' and out[3].startswith('  sha256 ') and len(out[3]) == 73
    assert out[4] == '2 certificates: 2 verified, 0 rejected'
    assert checker.main(['-q', str(folder)]) == 0 and capsys.readouterr().out == ''

    (folder / 'c.msgpack.zst').write_bytes(nowin('board0', count=89))
    assert checker.main([str(folder)]) == 1
    out = verdicts(capsys.readouterr().out)
    assert out[2].startswith('c.msgpack.zst: REJECTED: records:') and out[3] == '3 certificates: 2 verified, 1 rejected'
    assert checker.main(['-q', str(folder)]) == 1
    assert capsys.readouterr().out.startswith('c.msgpack.zst: REJECTED: records:')

    (folder / 'd.msgpack.zst').write_bytes(b'junk')
    assert checker.main([str(folder)]) == 1   # a rejection is the worst outcome, whatever else is unreadable
    assert capsys.readouterr().out.splitlines()[-1] == '4 certificates: 2 verified, 2 rejected (1 unreadable)'
    assert checker.main([str(folder / 'd.msgpack.zst')]) == 2
    assert capsys.readouterr().out.startswith(f'UNREADABLE: {folder / "d.msgpack.zst"} is not a certificate: not a valid zstd')

    assert checker.main(['--json', str(folder)]) == 1
    objects = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [o['verdict'] for o in objects] == ['verified', 'verified', 'rejected', 'unreadable']
    assert objects[0]['claim'] == 'no-win' and objects[0]['count'] == 90 and objects[0]['reason'] is None
    assert objects[0]['deal'] is None and objects[0]['cells'] == 0 and objects[0]['symmetry'] == 'columns'
    assert objects[1]['claim'] == 'win' and objects[1]['foundation_moves'] is False
    assert objects[2]['reason'].startswith('records:') and objects[3]['claim'] is None
    for o in objects:   # (a file refused before its end is not read on for its digest)
        assert o['sha256'] in (hashlib.sha256(Path(o['path']).read_bytes()).hexdigest(), None)
        assert o['sha256'] or o['verdict'] != 'verified'
        assert isinstance(o['seconds'], float)

    assert checker.main([str(folder / 'a.msgpack.zst'), str(folder / 'c.msgpack.zst')]) == 1
    out = verdicts(capsys.readouterr().out)
    assert out[0].startswith('a.msgpack.zst: VERIFIED') and out[1].startswith('c.msgpack.zst: REJECTED')
    assert out[2] == '2 certificates: 1 verified, 1 rejected'

    empty = workdir / 'empty'
    empty.mkdir()
    assert checker.main([str(empty)]) == 2
    assert checker.main([str(workdir / 'missing.msgpack.zst')]) == 2
    assert 'UNREADABLE: cannot read' in capsys.readouterr().out
    for argv, code in [(['--help'], 0), ([], 2), (['--bogus', 'x'], 2)]:
        with pytest.raises(SystemExit) as stop:
            checker.main(argv)
        assert stop.value.code == code, argv
    assert 'exit' in capsys.readouterr().out


def test_python_dash_m(workdir):
    (workdir / 'm.msgpack.zst').write_bytes(win('win0'))
    run = subprocess.run([sys.executable, '-m', 'check', str(workdir / 'm.msgpack.zst')], capture_output=True,
                         text=True, cwd=Path(__file__).parent.parent)
    assert run.returncode == 0 and run.stdout.startswith('VERIFIED: the layout in') and run.stderr == ''


# ---- version 3 (section 7): move indices, the column table and chunks after the header ----

def v3_win(name, indices=None, **changes):
    start, cells, deal = WIN[name]
    blob = g.win_file(start, cells, path(name), deal=deal, version=3, indices=indices)
    return g.rebuild(blob, **changes) if changes else blob


def v3_nowin(name, parts_=None, chunk=None, raw=None, **changes):
    """The version 3 no-win certificate of NOWIN[name] (from other parts, chunked otherwise, or with
    raw body values), the header's hash that of what is written unless changed."""
    start, cells, fm, symmetry, deal = NOWIN[name]
    blob = g.nowin_file(start, cells, None, fm, symmetry, deal, parts_ or parts(name), version=3,
                        chunk=chunk)
    return g.rebuild(blob, body=raw, **changes) if raw is not None or changes else blob


@pytest.mark.parametrize('name', list(NOWIN))
def test_v3_nowin_verifies_as_its_v2_does(workdir, name):
    verdict, text = check(workdir, v3_nowin(name))
    assert verdict == 'verified', text
    assert text == check(workdir, g.as_version3(nowin(name)))[1] == check(workdir, nowin(name))[1]


@pytest.mark.parametrize('name', list(WIN))
def test_v3_win_verifies_as_its_v2_does(workdir, name):
    blob = v3_win(name)
    assert g.claim_holds(blob)
    verdict, text = check(workdir, blob)
    assert verdict == 'verified' and text == check(workdir, win(name))[1], text
    assert len(g.unpack_file(blob)[1]) == len(path(name)) + 2   # a byte a move, after a bin8 header


def test_the_move_order_is_the_documents():
    # replay() lists the legal moves of each position in the move order of section 7; the test's
    # own order (certgen.move_order) is the same list, position by position.
    for name, fm in (('board1', False), ('board1', True), ('board2', False), ('board0', True)):
        cells = NOWIN[name][1]   # (its positions, with or without foundation moves)
        for p in sorted(positions(name), key=repr)[:150]:
            found, free, cols = bytes(p[0]), bytes(p[1]), [bytes(c) for c in p[2]]
            listed = [(card, dest) for card, _, dest in checker.moves(found, free, cols, cells, fm)]
            assert listed == [mv for mv, _ in g.move_order(p, cells, fm)], p
            # and replay() plays the move of the index it is given, from that list: the position
            # after it is the one it shows (as not won) or won.
            for i, (_, q) in enumerate(g.move_order(p, cells, fm)):
                seen = []

                def pick(n, position):
                    seen.append((n, position))
                    return i
                try:
                    checker.replay(1, pick, found, free, cols, cells, fm)
                    assert g.is_won(q)
                except checker.Rejected as e:
                    shown = checker.show(bytes(q[0]), bytes(q[1]), [bytes(c) for c in q[2]])
                    assert str(e).endswith(f'is not won: {shown}'), (str(e), shown)
                assert seen == [(0, (found, free, cols))]


@pytest.mark.parametrize('name', list(WIN))
def test_v3_an_index_past_the_legal_moves_is_refused(workdir, name):
    start, cells, _ = WIN[name]
    line = g.move_indices(start, cells, False, path(name))
    for k in range(len(line)):
        legal = g.move_order(replay_to(start, cells, line[:k]), cells, False)
        for wrong in (len(legal), 255):
            bad = line[:k] + bytes([wrong]) + line[k + 1:]
            rejected(workdir, v3_win(name, bad),
                     f'move {k + 1}: index {wrong} is not below the {len(legal)} legal moves')
            assert not g.claim_holds(v3_win(name, bad))


def replay_to(start, cells, indices):
    pos = start
    for i in indices:
        pos = g.move_order(pos, cells, False)[i][1]
    return pos


def test_v3_win_body_rules(workdir):
    line = g.move_indices(WIN1, 1, False, path('win1'))
    rejected(workdir, v3_win('win1', line[:-1]), 'the body has 9 bytes, not 1 x count')
    rejected(workdir, v3_win('win1', line + b'\x00'), 'the body has 11 bytes, not 1 x count')
    rejected(workdir, v3_win('win1', line[:-1], count=9), 'after all 9 moves the position is not won')
    raw = msgpack.packb(line, use_bin_type=True)
    rejected(workdir, g.rebuild(v3_win('win1'), body=raw + b'\xc0'), 'has data after it', 'unreadable')
    rejected(workdir, g.rebuild(v3_win('win1'), body=msgpack.packb(list(line))), 'the moves is not a msgpack bin')
    rejected(workdir, v3_win('win1', xxh3_64='0123456789abcdef'), 'does not match its xxh3_64')
    rejected(workdir, g.rebuild(v3_win('win1'), body=raw[:-2]), 'ends early')
    rejected(workdir, v3_win('win1', count=2**64 - 1), f'{2**64 - 1:,} moves: more than --max-moves', 'unreadable')


@pytest.fixture
def small_chunks(monkeypatch):
    """Chunks of 16 records in check (the format's 2^20 made small, so that boards have several)."""
    monkeypatch.setattr(checker, 'CHUNK', 16)
    return 16


@pytest.mark.parametrize('name', ['board1', 'board0', 'deal1-cell1-fixed', 'board2'])
def test_v3_chunks_are_read_and_checked_across_their_boundaries(workdir, small_chunks, name):
    table, recs = parts(name)
    assert len(recs) > 2 * small_chunks
    assert check(workdir, v3_nowin(name, chunk=16))[0] == 'verified'
    # Records descending, or repeated, across a chunk boundary (each chunk itself ascending).
    for k in (15, 31):
        swapped = recs[:k] + [recs[k + 1], recs[k]] + recs[k + 2:]
        chunks = [swapped[i:i + 16] for i in range(0, len(recs), 16)]
        if chunks[k // 16] == sorted(chunks[k // 16]) and chunks[k // 16 + 1] == sorted(chunks[k // 16 + 1]):
            rejected(workdir, v3_nowin(name, (table, swapped), chunk=16),
                     f'records: record {k + 2} does not sort after the last')
        rejected(workdir, v3_nowin(name, (table, recs[:k + 1] + recs[k:-1]), chunk=16),
                 f'records: record {k + 2} does not sort after the last')
    # A chunk of the wrong size: the writer's chunks of 15 or 17, or one of all the records.
    for chunk in (15, 17, len(recs)):
        rejected(workdir, v3_nowin(name, chunk=chunk),
                 f'records: {min(chunk, len(recs)) * (len(recs[0]))} bytes for 16 (chunk 1)')
    # The wrong number of chunks: one too many (an empty one after), or the last left out.
    good = g.unpack_file(v3_nowin(name, chunk=16))[1]
    rejected(workdir, g.rebuild(v3_nowin(name), body=good + b'\xc4\x00'), 'has data after it', 'unreadable')
    last = len(msgpack.packb(g.plane_code(recs[len(recs) // 16 * 16:] or recs[-16:]), use_bin_type=True))
    rejected(workdir, g.rebuild(v3_nowin(name), body=good[:-last]), 'the records is cut short')


def test_v3_one_chunk_of_the_formats_size(workdir):
    # At the format's own 2^20, a board's records are one chunk, the last, of all of them.
    assert checker.CHUNK == g.CHUNK == 2**20
    table, recs = parts('board1')
    assert check(workdir, v3_nowin('board1'))[0] == 'verified'
    rejected(workdir, v3_nowin('board1', chunk=100), f'records: {100 * len(recs[0])} bytes for {len(recs)}')


def test_v3_nowin_body_rules(workdir):
    table, recs = parts('board0')
    W, count = len(recs[0]), len(recs)
    head = msgpack.packb(table, use_bin_type=True)
    planes = msgpack.packb(g.plane_code(recs), use_bin_type=True)
    assert check(workdir, v3_nowin('board0', raw=head + planes))[0] == 'verified'
    rejected(workdir, v3_nowin('board0', raw=head + planes + b'\x00'), 'has data after it', 'unreadable')
    rejected(workdir, v3_nowin('board0', raw=head + planes, xxh3_64='0123456789abcdef'), 'does not match its xxh3_64')
    rejected(workdir, v3_nowin('board0', raw=head + planes[:-1]), 'the records is cut short')
    rejected(workdir, v3_nowin('board0', raw=head), 'the records is cut short')
    rejected(workdir, v3_nowin('board0', raw=msgpack.packb([table, g.plane_code(recs)], use_bin_type=True)),
             'column table entry 0 is not a msgpack bin')   # (version 2's body in a version 3 file)
    rows = b''.join(recs)   # rows, not planes: the first record read is the first W bytes of plane 0
    rejected(workdir, v3_nowin('board0', raw=head + msgpack.packb(rows, use_bin_type=True)), 'record')
    # More table entries than 8 x count: refused from the array's header, before any entry is read.
    rejected(workdir, v3_nowin('board0', raw=b'\xdd' + (8 * count + 1).to_bytes(4, 'big')),
             f'the column table has {8 * count + 1:,} entries: more than 8 x count')
    assert check(workdir, v3_nowin('board0', count=count))[0] == 'verified'
    rejected(workdir, v3_nowin('board0', count=2**64 - 1), 'positions: more than --max-positions', 'unreadable')
    rejected(workdir, v3_nowin('board0', count=0), 'the column table has')


def test_v3_ids_are_3_bytes_above_65536_columns(workdir):
    positions_ = g.with_columns(positions('board0'), 0, 65537)
    blob = g.nowin_file(NOWIN0, 0, positions_, version=3)
    verdict, text = check(workdir, blob)
    assert verdict == 'verified', text
    assert len(g.nowin_positions(blob)) == len(positions_)
