"""A won record is refused whatever the rules leave in it (format section 3, step 6), and quick tests
for checker mutants that the longer tests used to catch only after minutes (tools/mutants.py).

Without foundation moves a won position has no moves, so a set of records that holds one is closed at
it: the won test alone stands between a winnable layout's reachable set and a VERIFIED no-win. With 0
free cells a record has no cell bytes (a mutant that refused a won record only when it had some
verified WIN0's 36 reachable positions, won in 5 moves), so the won record is tried with 0, 1 and 8
cells, with foundation moves, under the autoplay closure (section 8) and in ranges.

Every case is a file and the verdict (with a phrase of the reason) the format calls for, and each is
run through every reader in READERS: a function from a file's path to (verdict, reason). To run
vcheck over the same files, add it there, e.g. `READERS['vcheck'] = lambda path: ...` running
`vcheck --json PATH` (built as tests/test_vcheck.py builds it) and returning its verdict and reason.
"""
import functools
from pathlib import Path

import pytest
from support import certgen as g
from check import checker

ROOT = Path(__file__).parent.parent
WON, WON_SHOWN = g.WON, g.WON_SHOWN
WIN0 = g.WIN0   # foundations C=J, D=Q, H=Q, S=Q; columns QC KD | KC | KH | KS; 0 cells; won in 5 moves


def won(n):
    return f'record {n} ({WON_SHOWN}) is won'


def check(path):
    verdict, _, text, _ = checker.verify(path)
    return verdict, text


def check_one_hash(path):
    """check with every record hashing alike (as tests/test_check_membership.py does): each lookup then
    walks past every record, so only the comparison of bytes can tell a record from another."""
    checker.hash = lambda record: 0   # (shadows the builtin in check/checker.py)
    try:
        return check(path)
    finally:
        del checker.hash


READERS = {'check': check, 'check, one hash': check_one_hash}


# ---- the won record: 0, 1 and 8 cells, foundation moves, autoplay, ranges ----

def nowin_with(start, cells, positions, **options):
    """A no-win file of these positions; the case's reason: its last record (the won one) is won."""
    return g.nowin_file(start, cells, positions, **options), 'rejected', won(len(positions))


def reachable(start, cells, **options):
    return g.explore(start, cells, **options)


def won_entry(n, cells, version=2, closure=None):
    """The range entry of deal n: its closed set (brute-forced here) and the won position."""
    positions = g.explore(g.deal_start(n), cells, closure=closure)
    assert not any(g.is_won(p) for p in positions)
    parts = g.nowin_parts(positions | ({WON} if n == 3 else set()), cells, 'columns')
    return g.entry(n, 'no-win', len(parts[1]), g.nowin_body(parts, version=version), version=version)


def won_cases():
    # The five of the bad-certificates corpus, made afresh; the won record is the last, so its number is the count.
    cases = {name: (blob, verdict, won(g.unpack_file(blob)[0]['count']))
             for name, (blob, verdict, _) in g.won_corpus().items()}
    reach0 = reachable(WIN0, 0)
    assert len(reach0) == 36 and WON in reach0 and len(g.win_path(WIN0, 0)) == 5
    for version in (2, 3):
        cases[f'winnable-0-cells-claimed-no-win-v{version}'] = nowin_with(WIN0, 0, reach0, version=version)
    cases['winnable-1-cell-claimed-no-win'] = nowin_with(WIN0, 1, reachable(WIN0, 1))
    cases['winnable-8-cells-claimed-no-win-v3'] = nowin_with(WIN0, 8, reachable(WIN0, 8), version=3)
    cases['won-start-fixed-columns'] = nowin_with(WON, 0, {WON}, symmetry='none')
    cases['won-start-8-cells'] = nowin_with(WON, 8, {WON}, version=3)
    # Foundation moves: a set closed under them that holds a won position holds the game played
    # backwards (far too many positions); here a deal's closed set and the won position beside it.
    fm1 = reachable(g.deal_start(3), 1, fmoves=True) | {WON}
    cases['won-record-foundation-moves-1-cell'] = nowin_with(g.deal_start(3), 1, fm1, fmoves=True, deal=3)
    # Safe autoplay: the won layout, WIN0 with 1 and 8 cells (each autoplays home at once), NOWIN0's set.
    for cells in (0, 1, 8):
        start = WON if cells == 0 else WIN0
        assert reachable(start, cells, closure='autoplay') == {WON}
        cases[f'autoplay-won-start-{cells}-cells'] = nowin_with(start, cells, {WON}, version=3, closure='autoplay')
    auto0 = reachable(g.NOWIN0, 0, closure='autoplay') | {WON}
    cases['autoplay-won-record-0-cells'] = nowin_with(g.NOWIN0, 0, auto0, version=3, closure='autoplay')
    # Ranges: deal 3's entry (0 cells) with the won position among its records.
    n3 = len(g.explore(g.deal_start(3), 0)) + 1
    cases['range-won-record'] = (g.range_file(1, [won_entry(n, 0) for n in (1, 2, 3)], cells=0), 'rejected',
                                 f'entry 3 (deal 3): {won(n3)}')
    n3 = len(g.explore(g.deal_start(3), 0, closure='autoplay')) + 1
    cases['range-won-record-autoplay'] = (
        g.range_file(1, [won_entry(n, 0, 3, 'autoplay') for n in (1, 2, 3)], cells=0, version=3, closure='autoplay'),
        'rejected', f'entry 3 (deal 3): {won(n3)}')
    # And the honest files of the same layouts verify.
    cases['win0-line'] = (g.win_file(WIN0, 0, g.win_path(WIN0, 0)), 'verified', 'can be won: 5 single-card moves')
    cases['deal-3-fm'] = (g.nowin_file(g.deal_start(3), 0, fmoves=True, deal=3), 'verified',
                          'cannot be won: 12 positions closed under every legal move, none won')
    return cases


# ---- quick tests for other mutants (each named in tools/mutants.py) ----

def membership_cases():
    """Membership compares every byte, the last one too. Layout A (0 cells, foundations empty, black
    tops but column 1's KH) has one move, QC onto KH, to P, which has none. The file holds A and Q: P
    with the cards under the top of its bytewise-largest column swapped, so that Q's record is P's
    but for the low byte of its last column id. A lookup that ignored the last byte would take Q for P
    (when the hash leads it there: the reader 'check, one hash' makes every lookup walk past Q)."""
    tops = ['QC', 'QS', 'KC', 'KS', 'JC', 'JS', 'TC', 'TS']   # P's tops: black, none an ace
    below = [c for c in range(52) if g.card_name(c) not in tops + ['KH', 'KD']]
    cols = [[g.card('KD')] if i == 2 else [] for i in range(8)]   # column 3 the largest: KD at its bottom
    for k, c in enumerate(below):
        cols[k % 8].append(c)
    cols[0].append(g.card('KH'))
    p_cols = [col + [g.card(top)] for col, top in zip(cols, tops)]
    a_cols = [p_cols[0][:-1], p_cols[1] + [g.card('QC')]] + p_cols[2:]
    q_cols = [list(col) for col in p_cols]
    q_cols[2][1], q_cols[2][2] = q_cols[2][2], q_cols[2][1]
    a, p, q = (g.make((0, 0, 0, 0), (), c) for c in (a_cols, p_cols, q_cols))
    assert reachable(a, 0) == {g.canon(a, 'columns'), g.canon(p, 'columns')}
    assert reachable(q, 0) == {g.canon(q, 'columns')}   # (Q has no move: the set {A, Q} is closed but for P)
    table, recs = g.nowin_parts({a, q}, 0, 'columns')
    assert g.record(p, table, 0, 'columns')[:-1] in {r[:-1] for r in recs}
    return {'membership-last-byte': (g.nowin_file(a, 0, {a, q}), 'rejected',
                                     'moving QC from column 2 to column 1 gives a position not in the certificate'),
            'membership-honest': (g.nowin_file(a, 0), 'verified', 'cannot be won: 2 positions')}


def stacking_cases():
    """An ace goes onto a two of the other colour. A win whose first move is AH onto 2C, and a layout
    whose reachable set is three positions, one of them made by AH onto 2C, without it."""
    clubs, hearts = 'KC QC JC TC 9C 8C 7C 6C 5C 4C 3C 2C', 'KH QH JH TH 9H 8H 7H 6H 5H 4H 3H 2H AH'
    start = g.board((1, 13, 0, 13), [clubs, hearts, '', '', '', '', '', ''])
    line = [(g.card('AH'), 0), (g.card('AH'), g.FOUNDATION)] + [
        (g.card(r + s), g.FOUNDATION) for r in '23456789TJQK' for s in 'HC']
    assert g.replay_wins(start, 0, False, line)
    stuck = g.board((0, 13, 0, 13), ['KC QC JC TC 9C 8C 7C 6C 5C 4C 3C AC 2C', '2H KH AH', '3H QH', '4H JH',
                                     '5H TH', '6H 9H', '8H', '7H'])
    everything = reachable(stuck, 0, symmetry='none')
    onto_two = g.make(stuck[0], (), [stuck[2][0] + (g.card('AH'),), stuck[2][1][:-1], *stuck[2][2:]])
    assert len(everything) == 3 and onto_two in everything
    return {'ace-onto-two-win': (g.win_file(start, 0, line), 'verified', 'can be won: 26 single-card moves'),
            'ace-onto-two-win-v3': (g.win_file(start, 0, line, version=3), 'verified', 'can be won: 26'),
            'ace-onto-two-left-out': (g.nowin_file(stuck, 0, everything - {onto_two}, symmetry='none'), 'rejected',
                                      'moving AH from column 2 to column 1 gives a position not in the certificate'),
            'ace-onto-two-honest': (g.nowin_file(stuck, 0, everything, symmetry='none'), 'verified',
                                    'cannot be won: 3 positions')}


WINS = {int(n): bytes.fromhex(body) for n, body in
        (line.split() for line in (ROOT / 'tests/data/wins-1cell.txt').read_text().splitlines() if line[:1].isdigit())}


def nowin_entry(n, cells):
    parts = g.nowin_parts(g.explore(g.deal_start(n), cells), cells, 'columns')
    return g.entry(n, 'no-win', len(parts[1]), g.nowin_body(parts, version=2))


def range_cases():
    """The deals a range names as unwinnable, the first one too, wherever it is; the header's count."""
    win2 = g.entry(2, 'win', len(WINS[2]) // 2, WINS[2])
    zero = [nowin_entry(1, 0), nowin_entry(2, 0)]
    return {'range-first-no-win-second': (g.range_file(2, [win2, nowin_entry(3, 1)], cells=1), 'verified',
                                          'exactly 1 cannot be won: 3; each of the other 1 is won'),
            'range-first-no-win-first': (g.range_file(1, zero, cells=0), 'verified',
                                         'exactly 2 cannot be won: 1, 2; each of the other 0 is won'),
            'range-count-3': (g.range_file(1, zero, cells=0, count=3), 'rejected', 'count = 3, not last - first + 1'),
            'range-count-1': (g.range_file(1, zero, cells=0, count=1), 'rejected', 'count = 1, not last - first + 1'),
            # A single no-win's count: one short of its records, and one over (version 1, front-coded).
            'count-one-short': (g.nowin_file(g.deal_start(3), 0, deal=3, count=11), 'rejected',
                                'records: there are 12+, not count = 11'),
            'count-one-over': (g.nowin_file(g.deal_start(3), 0, deal=3, count=13), 'rejected',
                               'records: there are 12, not count = 13')}


@functools.lru_cache(maxsize=None)
def cases():
    """name -> (file bytes, verdict, phrase of the reason), built once."""
    return {**won_cases(), **membership_cases(), **stacking_cases(), **range_cases()}


NAMES = ['winnable-0-cells-claimed-no-win', 'winnable-0-cells-claimed-no-win-v2', 'winnable-0-cells-claimed-no-win-v3',
         'winnable-1-cell-claimed-no-win', 'winnable-8-cells-claimed-no-win', 'winnable-8-cells-claimed-no-win-v3',
         'won-start-claimed-no-win', 'won-start-fixed-columns', 'won-start-8-cells', 'won-record-foundation-moves',
         'won-record-foundation-moves-1-cell', 'autoplay-winnable-claimed-no-win', 'autoplay-won-start-0-cells',
         'autoplay-won-start-1-cells', 'autoplay-won-start-8-cells', 'autoplay-won-record-0-cells',
         'range-won-record', 'range-won-record-autoplay', 'win0-line', 'deal-3-fm',
         'membership-last-byte', 'membership-honest', 'ace-onto-two-win', 'ace-onto-two-win-v3',
         'ace-onto-two-left-out', 'ace-onto-two-honest', 'range-first-no-win-second', 'range-first-no-win-first',
         'range-count-3', 'range-count-1', 'count-one-short', 'count-one-over']


def test_the_cases_are_named():
    assert sorted(cases()) == sorted(NAMES)


@pytest.mark.parametrize('reader', list(READERS))
@pytest.mark.parametrize('name', NAMES)
def test_each_file_gets_its_verdict(tmp_path, reader, name):
    blob, verdict, phrase = cases()[name]
    path = tmp_path / f'{name}.msgpack.zst'
    path.write_bytes(blob)
    got, text = READERS[reader](path)
    assert got == verdict and phrase in text, (name, got, text)


def test_the_issue_s_layout_is_refused_naming_its_won_record(tmp_path):
    # WIN0's 36 reachable positions (0 cells) as a no-win: the won record is the 36th, and the reason
    # is the whole line (the reader sees which record and why).
    path = tmp_path / 'win0.msgpack.zst'
    path.write_bytes(g.nowin_file(WIN0, 0, reachable(WIN0, 0)))
    assert check(path) == ('rejected', won(36))
