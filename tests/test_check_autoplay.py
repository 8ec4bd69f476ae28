"""check/ on closure under safe autoplay (format section 8): a version 3 no-win or range whose header
says `closure: "autoplay"` is closed under every legal move then safe autoplay home, and proves the
same claim as the plain closure. Certificates are written by tests/support/certgen.py; the sets
are brute-forced there and judged again by tests/support/oracle.py, each with its own autoplay
written from the document (never from certify/ or check/).
"""
import functools
import json
import re

import pytest
from support import certgen as g
from support import oracle as o
from check import checker
import test_check_ranges as r  # (the stored win lines of deals with one cell)

AUTO = 'autoplay'
PLACE = r'(column [1-8]|a free cell|its foundation)'
CLOSURE = re.compile(rf'record (\d+) \(.*\): moving (\w\w) from {PLACE} to {PLACE} then autoplay '
                     r'gives a position not in the certificate$')
# name -> (start, cells, deal): small starts that cannot be won, where autoplay matters: NOWIN0's
# start itself autoplays; deals 1 and 3 with one cell autoplay after some moves; in cell-safe the
# 5S in the cell is not safe (clubs lag) until 2C, freed, goes home: then it goes home from the
# cell (clubs buried under higher clubs keep it from being won).
BOARDS = {
    'board0': (g.NOWIN0, 0, None),
    'deal1-cell1': (g.deal_start(1), 1, 1),
    'deal3-cell1': (g.deal_start(3), 1, 3),
    'cell-safe': (g.board((1, 13, 13, 4), ['KS 2C 3C', '4C 7C 6C 5C', '6S 9S 8S 7S', '8C 9C', 'TC JC',
                                          'QC KC', 'TS JS', 'QS'], cells=['5S']), 1, None),
}
SYMMETRIES = ['columns', 'none']


@pytest.fixture(scope='module')
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp('autoplay')


def check(workdir, blob, name='cert.msgpack.zst'):
    """(verdict, reason) from check's verify() for these file bytes."""
    path = workdir / name
    path.write_bytes(blob)
    verdict, _, text, _ = checker.verify(path)
    return verdict, text


@functools.lru_cache(maxsize=None)
def closure(name, symmetry='columns', kind=AUTO):
    """certgen's set for BOARDS[name]: closed under move then autoplay (or under moves alone)."""
    start, cells, _ = BOARDS[name]
    found = g.explore(start, cells, symmetry=symmetry, closure=kind if kind == AUTO else None)
    assert not any(g.is_won(p) for p in found)
    return frozenset(found)


def certificate(name, positions=None, symmetry='columns', closure_key=AUTO, version=3, **changes):
    start, cells, deal = BOARDS[name]
    positions = closure(name, symmetry) if positions is None else positions
    return g.nowin_file(start, cells, set(positions), symmetry=symmetry, deal=deal, version=version,
                        closure=closure_key, **changes)


def as_oracle(position):
    return o.start(position[2], position[0], position[1])


# ---- the two test-side readings of section 8 agree, and the boards exercise it ----

@pytest.mark.parametrize('symmetry', SYMMETRIES)
@pytest.mark.parametrize('name', list(BOARDS))
def test_certgen_and_the_oracle_autoplay_alike(name, symmetry):
    start, cells, _ = BOARDS[name]
    theirs = o.reachable(as_oracle(start), cells, symmetry=symmetry, closure=AUTO)
    assert set(theirs) == closure(name, symmetry)
    assert o.closed(closure(name, symmetry), as_oracle(start), cells, symmetry, AUTO)
    # Autoplay matters here: the set is not closed under moves alone.
    assert not o.closed(closure(name, symmetry), as_oracle(start), cells, symmetry)


def test_the_boards_autoplay_from_untouched_columns_and_from_a_cell():
    """Some move's autoplay takes a card home from a column the move did not touch (a checker that
    looked up only the move's two columns would miss it), some from a free cell."""
    def autoplayed(name):
        _, cells, _ = BOARDS[name]
        for p in closure(name):
            for (card, dest), nxt in g.successors(p, cells, False):
                source = next((i for i, col in enumerate(p[2]) if col and col[-1] == card), None)
                after = g.autoplay(nxt)
                yield [i for i in range(8) if after[2][i] != nxt[2][i] and i not in (source, dest)], \
                    set(nxt[1]) - set(after[1])
    assert any(columns for columns, _ in autoplayed('deal3-cell1'))
    assert any(cells for _, cells in autoplayed('cell-safe'))
    assert g.autoplay(g.NOWIN0) != g.NOWIN0   # NOWIN0's start autoplays at once


def test_safe_is_horne_s_rule():
    """Other-colour foundations at least rank - 1, the same colour's other at least rank - 2."""
    five_c, five_d = g.card('5C'), g.card('5D')
    assert g.safe_home((0, 0, 0, 0)) == [0, 1, 2, 3]                 # aces always
    assert g.card('2D') in g.safe_home((0, 1, 0, 0))                 # twos always
    assert five_c in g.safe_home((4, 3, 3, 2))
    assert five_c not in g.safe_home((4, 3, 3, 1)) and five_c not in g.safe_home((4, 2, 3, 2))
    assert five_d in g.safe_home((3, 4, 2, 3))
    assert five_d not in g.safe_home((3, 4, 1, 3)) and five_d not in g.safe_home((2, 4, 2, 3))
    for found in [(0, 0, 0, 0), (1, 2, 2, 1), (4, 3, 3, 2), (4, 3, 3, 1), (3, 4, 1, 3), (5, 4, 6, 3),
                  (12, 11, 12, 13), (13, 13, 13, 12)]:
        position = (found, (), ((),) * 8)
        assert sorted(g.safe_home(found)) == [c for c in range(52) if o.is_safe(position, c)], found


# ---- true certificates verify, with the sentence of section 8 ----

@pytest.mark.parametrize('symmetry', SYMMETRIES)
@pytest.mark.parametrize('name', list(BOARDS))
def test_a_true_autoplay_nowin_verifies(workdir, name, symmetry):
    verdict, text = check(workdir, certificate(name, symmetry=symmetry))
    n = len(closure(name, symmetry))
    assert verdict == 'verified', text
    assert text.endswith(f'cannot be won: {n:,} positions closed under every legal move then safe '
                         'autoplay, none won'), text


def test_the_sentence_on_the_command_line_and_in_json(workdir, capsys):
    path = workdir / 'board0.msgpack.zst'
    path.write_bytes(certificate('board0'))
    assert checker.main([str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == (f'VERIFIED: the layout in {path} (0 free cells, single-card moves, no moves off '
                      'foundations) cannot be won: 38 positions closed under every legal move then '
                      'safe autoplay, none won')
    assert checker.main(['--json', str(path)]) == 0
    assert json.loads(capsys.readouterr().out)['closure'] == 'autoplay'
    plain = workdir / 'plain.msgpack.zst'
    plain.write_bytes(certificate('board0', closure('board0', kind='moves'), closure_key=None))
    assert checker.main(['--json', str(plain)]) == 0
    assert json.loads(capsys.readouterr().out)['closure'] == 'moves'


def test_the_closure_pin(workdir, capsys):
    auto, plain = workdir / 'auto.msgpack.zst', workdir / 'plain.msgpack.zst'
    auto.write_bytes(certificate('board0'))
    plain.write_bytes(certificate('board0', closure('board0', kind='moves'), closure_key=None))
    assert checker.main(['--closure', 'autoplay', str(auto)]) == 0
    assert checker.main(['--closure', 'moves', str(plain)]) == 0
    capsys.readouterr()
    assert checker.main(['--closure', 'moves', str(auto)]) == 1
    assert capsys.readouterr().out == ("REJECTED: the file does not prove what was asked: its closure "
                                       "is 'autoplay', not 'moves' (--closure)\n")
    assert checker.main(['--closure', 'autoplay', str(plain)]) == 1
    assert "its closure is 'moves', not 'autoplay' (--closure)" in capsys.readouterr().out


@functools.lru_cache(maxsize=None)
def deal_11982():
    return frozenset(g.explore(g.deal_start(11982), 4, closure=AUTO))


def test_deal_11982_has_61643_positions_under_autoplay(workdir, capsys):
    """Freecell Solver's count for deal 11982 with four cells: 61,643 (83,239 under moves alone).
    Checked in one process and split across two (the records from 8,192 on)."""
    assert len(deal_11982()) == 61643
    blob = g.nowin_file(g.deal_start(11982), 4, deal_11982(), deal=11982, version=3, closure=AUTO)
    verdict, text = check(workdir, blob)
    assert verdict == 'verified', text
    assert text == ('Microsoft FreeCell deal 11982 (4 free cells, single-card moves, no moves off '
                    'foundations) cannot be won: 61,643 positions closed under every legal move then '
                    'safe autoplay, none won')
    path = workdir / '11982.msgpack.zst'
    path.write_bytes(g.nowin_file(g.deal_start(11982), 4, deal_11982() - {max(deal_11982())},
                                  deal=11982, version=3, closure=AUTO))
    assert checker.main(['-j', '2', '--closure', 'autoplay', str(path)]) == 1
    assert CLOSURE.search(capsys.readouterr().out.strip())


@pytest.mark.slow
def test_the_oracle_counts_61643_for_deal_11982_too():
    found = o.reachable(o.start(o.deal(11982)), 4, closure=AUTO)
    assert len(found) == 61643 and set(found) == deal_11982()


# ---- what the closure must hold ----

@pytest.mark.parametrize('name', ['board0', 'deal1-cell1'])
def test_a_set_closed_under_moves_alone_labelled_autoplay(workdir, name):
    """A set closed under every move, with the start, is closed under move then autoplay too
    (autoplay's moves are moves): it verifies, as the oracle says; the autoplay set labelled as
    the plain closure does not."""
    start, cells, _ = BOARDS[name]
    plain, auto = closure(name, kind='moves'), closure(name)
    assert o.closed(plain, as_oracle(start), cells, closure=AUTO)
    verdict, text = check(workdir, certificate(name, plain))
    assert verdict == 'verified', text
    assert f'{len(plain):,} positions closed under every legal move then safe autoplay' in text
    assert not o.closed(auto, as_oracle(start), cells)
    verdict, text = check(workdir, certificate(name, auto, closure_key=None))
    assert verdict == 'rejected', text   # (board0: its start is not a record; deal 1: a move leaves)
    assert 'gives a position not in the certificate' in text or 'the starting position (' in text


def looser(lag):
    """Horne's rule loosened: a card goes home when every other foundation is within `lag` ranks."""
    return lambda found: [r * 4 + s for s, r in enumerate(found)
                          if r < 13 and all(found[t] >= r - lag for t in range(4) if t != s)]


@pytest.mark.parametrize('lag', [2, 13])
def test_a_set_closed_under_a_looser_autoplay_is_rejected(workdir, monkeypatch, lag):
    """Sets closed under move then a looser autoplay (more cards sent home): check's verdict is the
    oracle's (section 8's rule), and some of them it rejects."""
    verdicts = []
    for name in ('deal3-cell1', 'cell-safe'):
        start, cells, _ = BOARDS[name]
        with monkeypatch.context() as m:
            m.setattr(g, 'safe_home', looser(lag))
            loose = g.explore(start, cells, closure=AUTO)
        ok = o.closed(loose, as_oracle(start), cells, closure=AUTO)
        verdict, text = check(workdir, certificate(name, loose))
        assert verdict == ('verified' if ok else 'rejected'), (name, text)
        verdicts.append(verdict)
    assert 'rejected' in verdicts


@pytest.mark.parametrize('symmetry', SYMMETRIES)
@pytest.mark.parametrize('name', ['board0', 'deal1-cell1'])
def test_a_missing_autoplayed_successor_is_rejected_naming_its_record(workdir, name, symmetry):
    start, cells, _ = BOARDS[name]
    auto = closure(name, symmetry)
    first = o.canonical(o.autoplay(as_oracle(start)), symmetry)
    for gone in sorted(auto - {first})[::max(1, len(auto) // 8)]:   # (eight or so of them)
        kept = auto - {gone}
        verdict, text = check(workdir, certificate(name, kept, symmetry))
        m = CLOSURE.search(text)
        assert verdict == 'rejected' and m, text
        # Record N is a position of the set, the move is legal there, and the position after it
        # and autoplay is the one left out.
        table, recs = g.nowin_parts(kept, cells, symmetry)
        q = next(p for p in kept if g.record(p, table, cells, symmetry) == recs[int(m[1]) - 1])
        card = g.card(m[2])
        dest = {'a free cell': o.CELL, 'its foundation': o.FOUNDATION}.get(m[4]) or int(m[4][7:]) - 1
        source = o.where(q, card, False)
        assert o.allowed(q, card, source, dest, cells), text
        assert o.canonical(o.autoplay(o.after(q, card, source, dest)), symmetry) == gone, text


@pytest.mark.parametrize('symmetry', SYMMETRIES)
def test_the_start_must_be_autoplayed(workdir, symmetry):
    """The start is a record but the autoplayed start is not: step 5 fails."""
    start = BOARDS['board0'][0]
    first = g.canon(g.autoplay(start), symmetry)
    positions = closure('board0', symmetry) - {first} | {g.canon(start, symmetry)}
    verdict, text = check(workdir, certificate('board0', positions, symmetry))
    assert verdict == 'rejected' and text.startswith('the starting position after autoplay ('), text
    assert text.endswith(') is not one of the records'), text
    # Under moves alone the same start is found.
    verdict, text = check(workdir, certificate('board0', positions, symmetry, closure_key=None))
    assert not text.startswith('the starting position'), text


def test_a_won_record_is_rejected(workdir):
    won = g.make((13, 13, 13, 13), (), [()] * 8)
    verdict, text = check(workdir, certificate('board0', closure('board0') | {won}))
    assert verdict == 'rejected' and text.endswith(') is won'), text
    # A start that can be won: its autoplay closure holds the won position.
    winnable = g.explore(g.WIN1, 1, closure=AUTO)
    assert any(g.is_won(p) for p in winnable)
    blob = g.nowin_file(g.WIN1, 1, winnable, version=3, closure=AUTO)
    verdict, text = check(workdir, blob)
    assert verdict == 'rejected' and text.endswith(') is won'), text


# ---- the header key ----

def refused(workdir, capsys, blob, line):
    path = workdir / 'refused.msgpack.zst'
    path.write_bytes(blob)
    assert checker.main([str(path)]) == 2
    assert capsys.readouterr().out == f'UNREADABLE: {line}\n'


@pytest.mark.parametrize('value', ['moves', 'Autoplay', 'autoplay ', None, 1, True, b'autoplay',
                                   ['autoplay']])
def test_a_closure_other_than_autoplay_is_refused(workdir, capsys, value):
    blob = g.rebuild(certificate('board0'), closure=value)
    refused(workdir, capsys, blob, f'header closure = {value!r} is not allowed')


def test_closure_autoplay_is_refused_where_section_8_refuses_it(workdir, capsys):
    line = "header closure = 'autoplay' is not allowed"
    for version in (1, 2):   # only version 3
        refused(workdir, capsys, certificate('board0', version=version), line)
    path = g.win_path(g.WIN1, 1)
    win = g.win_file(g.WIN1, 1, path, version=3)
    refused(workdir, capsys, g.rebuild(win, closure=AUTO), line)        # not in a win
    refused(workdir, capsys, certificate('board0', foundation_moves=True), line)
    es = [g.as_entry(range_entry_file(n), version=3) for n in (1, 2)]
    for changes in ({'version': 2}, {'foundation_moves': True}):
        rules = {'cells': 1, 'version': 3, 'closure': AUTO, **changes}
        refused(workdir, capsys, g.range_file(1, es, **rules), line)
    # Without the key every one of these reads as before (the plain no-win of board0 verifies).
    plain = certificate('board0', closure('board0', kind='moves'), closure_key=None, version=2)
    assert check(workdir, plain)[0] == 'verified'


# ---- range certificates (version 3) ----

@functools.lru_cache(maxsize=None)
def range_entry_file(n):
    """A version 3 single certificate for deal n with one cell: its autoplay closure if it cannot be
    won (deals 1, 3, 4, 6), else its stored line (tests/data/wins-1cell.txt)."""
    start = g.deal_start(n)
    if n in r.WINS:
        line = r.WINS[n]
        return g.win_file(start, 1, list(zip(line[::2], line[1::2])), deal=n, version=3)
    positions = g.explore(start, 1, closure=AUTO)
    assert not any(g.is_won(p) for p in positions)
    return g.nowin_file(start, 1, positions, deal=n, version=3, closure=AUTO)


def test_an_autoplay_range_verifies(workdir, capsys):
    es = [g.as_entry(range_entry_file(n), version=3) for n in range(1, 7)]
    blob = g.range_file(1, es, cells=1, version=3, closure=AUTO)
    path = workdir / 'range.msgpack.zst'
    path.write_bytes(blob)
    assert checker.main([str(path)]) == 0
    assert capsys.readouterr().out.startswith(
        'VERIFIED: of Microsoft FreeCell deals 1..6 (1 free cell, single-card moves, no moves off '
        'foundations) exactly 4 cannot be won: 1, 3, 4, 6; each of the other 2 is won by a line '
        'that replays\n')
    # The same entries under the plain closure: deal 1's autoplay set is not closed under moves.
    verdict, text = check(workdir, g.range_file(1, es, cells=1, version=3))
    assert verdict == 'rejected' and text.startswith('entry 1 (deal 1): record '), text
    # A no-win entry that misses an autoplayed successor is rejected, naming the entry and record.
    start = g.deal_start(3)
    auto = g.explore(start, 1, closure=AUTO)
    kept = auto - {sorted(auto - {g.canon(g.autoplay(start), 'columns')})[0]}
    bad = g.as_entry(g.nowin_file(start, 1, kept, deal=3, version=3, closure=AUTO), version=3)
    verdict, text = check(workdir, g.range_file(1, es[:2] + [bad] + es[3:], cells=1, version=3,
                                                closure=AUTO))
    assert verdict == 'rejected' and CLOSURE.search(text), text
    assert text.startswith('entry 3 (deal 3): record '), text
