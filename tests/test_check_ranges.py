"""check/ on byte-plane records (version 2), range certificates (section 6), the limits, inputs that
are not regular files, names that would redraw a terminal, folders, and the command line. Every file is written by tests/support/certgen.py from the format document;
every brute-forced claim is the test's own (certgen's rules, not check's)."""
import functools
import json
import os
import subprocess
import sys
from pathlib import Path

import msgpack
import pytest
import zstandard
from support import certgen as g
import test_check as t  # (the boards, their positions and the check() helper)
from check import checker

ROOT = Path(__file__).parent.parent
check, rejected = t.check, t.rejected


@pytest.fixture(scope='module')
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp('v2')


def run(*args, cwd=None, timeout=60):
    """`python -m check ARGS` in a fresh process: (exit code, stdout, stderr). A hang fails the test."""
    done = subprocess.run([sys.executable, '-m', 'check', *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, cwd=cwd or ROOT)
    return done.returncode, done.stdout, done.stderr


# ---- version 2 single certificates: records as byte planes ----

@pytest.mark.parametrize('name', list(t.NOWIN))
def test_version_2_nowin_verifies(workdir, name):
    start, cells, fm, symmetry, deal = t.NOWIN[name]
    blob = g.nowin_file(start, cells, t.positions(name), fm, symmetry, deal, version=2)
    verdict, text = check(workdir, blob)
    assert verdict == 'verified', text
    n = len(t.positions(name))
    assert text.endswith(f'cannot be won: {n:,} position{"s" * (n != 1)} closed under every legal move, none won')


def test_version_2_win_verifies(workdir):
    start, cells, _ = t.WIN['win1']
    assert check(workdir, g.win_file(start, cells, t.path('win1'), version=2))[0] == 'verified'


def v2(name, recs=None, table=None, raw=None, **changes):
    """A version 2 no-win certificate for NOWIN[name] from other records/table/records bytes."""
    start, cells, fm, symmetry, deal = t.NOWIN[name]
    table0, recs0 = t.parts(name)
    records = raw if raw is not None else g.plane_code(recs0 if recs is None else recs)
    body = msgpack.packb([table0 if table is None else table, records], use_bin_type=True)
    blob = g.nowin_file(start, cells, t.positions(name), fm, symmetry, deal, version=2)
    return g.rebuild(blob, body=body, **changes)


def test_the_planes_are_exactly_count_times_w_bytes(workdir):
    table, recs = t.parts('board1')
    planes = g.plane_code(recs)
    W = len(recs[0])
    assert check(workdir, v2('board1', raw=planes))[0] == 'verified'
    for raw in (planes[:-1], planes + b'\x00', planes[:-W], b''):
        rejected(workdir, v2('board1', raw=raw), f'records: {len(raw)} bytes for {len(recs)}')
    # The same records front-coded (version 1's layout) under a version 2 header, and the planes under version 1.
    rejected(workdir, v2('board1', raw=g.front_code(recs)), 'records: ')
    rejected(workdir, v2('board1', version=1), 'record')


def test_the_planes_are_columns_of_the_record_table(workdir):
    # Records written row by row (not as planes) are other bytes: record 1 is then no position.
    table, recs = t.parts('board1')
    rejected(workdir, v2('board1', raw=b''.join(recs)), 'record 1 (')
    # Planes in another order (byte 1's plane first) scramble every record the same way.
    planes, n = g.plane_code(recs), len(recs)
    swapped = planes[n:2 * n] + planes[:n] + planes[2 * n:]
    rejected(workdir, v2('board1', raw=swapped), 'record')


def test_version_2_records_are_checked_like_version_1(workdir):
    table, recs = t.parts('board1')
    swapped = list(recs)
    swapped[10], swapped[11] = swapped[11], swapped[10]
    rejected(workdir, v2('board1', recs=swapped), 'records: record 12 does not sort after the last')
    rejected(workdir, v2('board1', recs=recs[:5] + [recs[4]] + recs[5:], count=len(recs) + 1),
             'records: record 6 does not sort after the last')
    rejected(workdir, v2('board1', recs=recs[1:], count=len(recs) - 1), 'not in the certificate')
    rejected(workdir, v2('board1', table=table + [b'\x33\x33']), f'column table entry {len(table)} is unused')


def test_version_2_with_3_byte_ids_verifies(workdir):
    table, recs = g.nowin_parts(t.big_table(65537), 0, 'columns')
    start, cells, fm, symmetry, deal = t.NOWIN['board0']
    blob = g.nowin_file(start, cells, parts=(table, recs), version=2)
    assert check(workdir, blob)[0] == 'verified'


# ---- range certificates (section 6) ----

WINS = {int(n): bytes.fromhex(body) for n, body in
        (line.split() for line in (ROOT / 'tests/data/wins-1cell.txt').read_text().splitlines() if line[:1].isdigit())}


@functools.lru_cache(maxsize=None)
def honest_entry(n, cells):
    """The entry for deal n: a stored win (replayed here first), or its brute-forced closed set."""
    if n in WINS and cells == 1:
        moves = list(zip(WINS[n][::2], WINS[n][1::2]))
        assert g.replay_wins(g.deal_start(n), cells, False, moves)
        return g.entry(n, 'win', len(moves), WINS[n])
    positions = g.explore(g.deal_start(n), cells)
    assert not any(g.is_won(p) for p in positions), f'deal {n} can be won with {cells} cells'
    parts = g.nowin_parts(positions, cells, 'columns')
    return g.entry(n, 'no-win', len(parts[1]), g.nowin_body(parts, version=2))


def entries(first, last, cells=1):
    return [honest_entry(n, cells) for n in range(first, last + 1)]


def test_a_range_verifies_and_names_the_deals_that_cannot_be_won(workdir, capsys):
    p = workdir / '1-6.msgpack.zst'
    p.write_bytes(g.range_file(1, entries(1, 6), cells=1))
    assert checker.main([str(p)]) == 0
    assert capsys.readouterr().out.startswith(
        'VERIFIED: of Microsoft FreeCell deals 1..6 (1 free cell, single-card moves, no moves off foundations) '
        'exactly 4 cannot be won: 1, 3, 4, 6; each of the other 2 is won by a line that replays\n  sha256 ')
    assert checker.main(['--json', str(p)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report['claim'] == 'range' and (report['first'], report['last'], report['count']) == (1, 6, 6)
    assert report['unwinnable'] == [1, 3, 4, 6] and report['verdict'] == 'verified'


def test_ranges_of_other_rules_and_numbers(workdir):
    verdict, text = check(workdir, g.range_file(1, entries(1, 12, cells=0), cells=0))
    assert verdict == 'verified' and 'of Microsoft FreeCell deals 1..12 (0 free cells,' in text, text
    assert 'exactly 12 cannot be won: 1, 2, 3,' in text and 'each of the other 0 is won' in text
    verdict, text = check(workdir, g.range_file(2**31, entries(2**31, 2**31 + 2, cells=0), cells=0))
    assert verdict == 'verified', text
    assert text.startswith("of FreeCell Pro's extended deals 2,147,483,648..2,147,483,650 (0 free cells,")
    verdict, text = check(workdir, g.range_file(2**31 - 1, entries(2**31 - 1, 2**31, cells=0), cells=0))
    assert verdict == 'verified' and text.startswith("of FreeCell Pro's deals 2,147,483,647..2,147,483,648"), text


def with_entry(i, blob_entry, first=1, last=6, cells=1, **changes):
    """The 1..6 range with entry i (from 0) replaced by these entry bytes."""
    es = entries(first, last, cells)
    return g.range_file(first, es[:i] + [blob_entry] + es[i + 1:], cells=cells, **changes)


def test_a_gap_a_repeat_or_a_wrong_deal_is_rejected(workdir):
    es = entries(1, 6)
    rejected(workdir, g.range_file(1, es[:2] + es[3:4] + es[3:], cells=1),
             'entry 3 (deal 3): the entry is for deal 4')                       # a gap: 1 2 4 4 5 6
    rejected(workdir, g.range_file(1, es[:2] + es[1:2] + es[3:], cells=1),
             'entry 3 (deal 3): the entry is for deal 2')                       # a repeat
    rejected(workdir, g.range_file(2, es[:5], cells=1), 'entry 1 (deal 2): the entry is for deal 1')


def test_a_missing_or_an_extra_entry_or_a_wrong_count_is_rejected(workdir):
    es = entries(1, 6)
    rejected(workdir, g.range_file(1, es[:5], cells=1, last=6, count=6), 'entry 6 (deal 6): the entry is cut short')
    rejected(workdir, g.range_file(1, es + es[:1], cells=1, last=6, count=6), 'the range has data after it')
    rejected(workdir, g.range_file(1, es, cells=1, count=7), 'count = 7, not last - first + 1')
    rejected(workdir, g.range_file(1, es, cells=1, count=5), 'count = 5, not last - first + 1')


def test_an_entry_is_checked_as_its_single_certificate(workdir):
    win_body = WINS[2]
    rejected(workdir, with_entry(1, g.entry(2, 'win', len(win_body) // 2 + 1, win_body)),
             f'entry 2 (deal 2): the body has {len(win_body)} bytes, not 2 x count')
    bad_line = win_body[:2] + win_body[4:]   # the second move left out
    assert not g.replay_wins(g.deal_start(2), 1, False, zip(bad_line[::2], bad_line[1::2]))
    rejected(workdir, with_entry(1, g.entry(2, 'win', len(bad_line) // 2, bad_line)), 'entry 2 (deal 2): move ')
    # An unwinnable deal listed without its closed set: no body, an empty one, or only its start.
    rejected(workdir, with_entry(0, g.entry(1, 'no-win', 0, b'')), 'entry 1 (deal 1): the body ends inside the body')
    start_only = g.nowin_parts([g.canon(g.deal_start(1), 'columns')], 1, 'columns')
    rejected(workdir, with_entry(0, g.entry(1, 'no-win', 1, g.nowin_body(start_only, version=2))),
             'entry 1 (deal 1): record 1 (')
    rejected(workdir, with_entry(0, g.entry(1, 'win', 0, b'')), 'entry 1 (deal 1): after all 0 moves the position is not won')
    # A winnable deal claimed unwinnable with a set that is not closed.
    two = g.nowin_parts([g.canon(g.deal_start(2), 'columns')], 1, 'columns')
    rejected(workdir, with_entry(1, g.entry(2, 'no-win', 1, g.nowin_body(two, version=2))), 'entry 2 (deal 2): record 1 (')
    # Version 1 records are not allowed in a range.
    positions = g.explore(g.deal_start(1), 1)
    parts = g.nowin_parts(positions, 1, 'columns')
    rejected(workdir, with_entry(0, g.entry(1, 'no-win', len(parts[1]), g.nowin_body(parts, version=1))),
             'entry 1 (deal 1): records: ')


def test_an_entry_that_is_not_an_entry_is_rejected(workdir):
    es = entries(1, 6)
    for bad, phrase in [(msgpack.packb([1, 'no-win', 3]), 'the entry is not [deal, claim, count, body]'),
                        (msgpack.packb({'deal': 1}), 'the entry is not a msgpack array'),
                        (msgpack.packb([1, 'lose', 0, b'']), "its claim 'lose' is not"),
                        (msgpack.packb([1, 'no-win-at-all', 0, b'']), "its claim 'no-win-' is not"),
                        (msgpack.packb([1, b'win', 0, b'']), 'its claim is not a msgpack str'),
                        (msgpack.packb([-1, 'win', 0, b'']), 'the entry is for deal -1'),
                        (msgpack.packb([1, 'win', -1, b'']), 'its count -1 is negative'),
                        (msgpack.packb([1, 'win', 1.5, b'']), 'its count is not a msgpack int'),
                        (msgpack.packb([1, 'win', 0, 'text']), 'its body is not a msgpack bin')]:
        rejected(workdir, g.range_file(1, [bad] + es[1:], cells=1), f'entry 1 (deal 1): {phrase}')


def test_a_range_hash_covers_every_entry(workdir):
    es = entries(1, 6)
    h = g.range_header(1, 6, es, cells=1)
    changed = bytearray(b''.join(es))
    changed[-3] ^= 1   # the last win's last destination, 9 (its foundation) to 8 (a free cell)
    data = msgpack.packb(h) + bytes(changed)
    blob = zstandard.ZstdCompressor(level=3, write_content_size=True).compress(data)
    verdict, text = check(workdir, blob)
    assert verdict == 'rejected', text
    rejected(workdir, g.range_file(1, es, cells=1, xxh3_64='0' * 16), 'the range does not match its xxh3_64')


@pytest.mark.parametrize('changes, phrase', [
    ({'version': 1}, 'header version = 1'), ({'first': 0}, 'header first = 0'), ({'last': 2**33}, 'header last = '),
    ({'first': 7}, 'header last = 6'), ({'cells': 9}, 'header cells = 9'), ({'symmetry': 'rows'}, 'header symmetry'),
    ({'deal': 1}, 'the header keys are not exactly'), ({'first': True}, 'header first = True'),
])
def test_range_headers(workdir, changes, phrase):
    rejected(workdir, g.range_file(1, entries(1, 6), **{'cells': 1, **changes}), phrase, 'unreadable')


def test_range_rules_apply_to_every_entry(workdir):
    # Deal 3's closed set under 1 cell is not closed under 2, nor with foundation moves.
    rejected(workdir, g.range_file(1, entries(1, 6), cells=2), 'entry 1 (deal 1): records: ')   # W is one byte longer
    rejected(workdir, g.range_file(1, entries(1, 6), cells=1, foundation_moves=True), 'from its foundation to')
    # Columns in fixed places for the no-win entries: their records (sorted ids) are not the canonical ones.
    rejected(workdir, g.range_file(1, entries(1, 6), cells=1, symmetry='none'), 'entry 1 (deal 1): the starting position')


def test_range_limits_are_per_entry(workdir):
    p = workdir / 'limits.msgpack.zst'
    p.write_bytes(g.range_file(1, entries(1, 6), cells=1))
    count3 = msgpack.unpackb(honest_entry(3, 1))[2]
    verdict, _, text, _ = checker.verify(p, {**checker.LIMITS, 'positions': count3 - 1})
    assert verdict == 'unreadable' and text.startswith(f'entry 3 (deal 3): {count3:,} positions: more than --max-positions')
    verdict, _, text, _ = checker.verify(p, {**checker.LIMITS, 'moves': 111})
    assert verdict == 'unreadable' and text.startswith('entry 2 (deal 2): 112 moves: more than --max-moves 111'), text
    assert checker.verify(p, {**checker.LIMITS, 'positions': 448, 'moves': 177})[0] == 'verified'


def test_a_cut_range_is_unreadable(workdir):
    blob = g.range_file(1, entries(1, 6), cells=1)
    for n in (len(blob) // 3, len(blob) - 1):
        rejected(workdir, blob[:n], 'cut short', 'unreadable')


# ---- limits: work no honest certificate asks for (section 5) ----

def test_a_legal_but_endless_win_is_refused_at_once(workdir):
    # WIN0's king of spades moved to column 5 and back 60,000 times, then the real win: every move legal.
    start, cells, _ = t.WIN['win0']
    ks = g.card('KS')
    moves = [(ks, 4), (ks, 3)] * 60_000 + list(t.path('win0'))
    blob = g.win_file(start, cells, moves)
    assert len(blob) < 10_000
    rejected(workdir, blob, f'{len(moves):,} moves: more than --max-moves 100,000', 'unreadable')
    p = workdir / 'endless.msgpack.zst'
    p.write_bytes(blob)
    assert checker.verify(p, {**checker.LIMITS, 'moves': len(moves)})[0] == 'verified'


@pytest.mark.parametrize('count', [10_000_000, 40_000_000])
def test_a_record_bomb_is_refused_from_its_header(workdir, count):
    # A few bytes declaring millions of records: refused before the body is read.
    h = g.header('no-win', count, b'', deal=1)
    blob = t.frame(msgpack.packb(h) + b'\xc6\xff\xff\xff\xff' + b'\x92\x90\xc6\xff\xff\xff\xff')
    rejected(workdir, blob, f'{count:,} positions: more than --max-positions 4,000,000', 'unreadable')


def test_a_column_table_bomb_is_refused_from_its_length(workdir):
    h = g.header('no-win', 1000, b'', deal=1)
    blob = t.frame(msgpack.packb(h) + b'\xc6\x00\x10\x00\x00' + b'\x92\xdd\x00\x0f\x42\x41')   # 1,000,001 entries
    rejected(workdir, blob, '1,000,001 columns: more than --max-columns 1,000,000', 'unreadable')


def test_junk_records_are_refused_as_they_are_read(workdir):
    # 200,000 records of zeros within the limits: record 2 is not after record 1, refused at once.
    count, W = 200_000, 4 + 4 + 16
    h = g.header('no-win', count, b'', deal=1, version=2)
    body = msgpack.packb([[b''], bytes(count * W)])
    blob = t.frame(msgpack.packb({**h, 'xxh3_64': g.xxhash.xxh3_64_hexdigest(body)}) + msgpack.packb(body))
    rejected(workdir, blob, 'record 1 (')


def test_limits_on_the_command_line(workdir, capsys):
    p = workdir / 'board1.msgpack.zst'
    p.write_bytes(t.nowin('board1'))
    n = len(t.positions('board1'))
    assert checker.main([str(p), '--max-positions', str(n - 1)]) == 2
    assert capsys.readouterr().out == f'UNREADABLE: {n} positions: more than --max-positions {n - 1}\n'
    assert checker.main([str(p), '--max-positions', str(n)]) == 0
    with pytest.raises(SystemExit) as stop:
        checker.main([str(p), '--max-moves', '-1'])
    assert stop.value.code == 2 and capsys.readouterr().err.startswith('usage: check')
    assert '--max-positions' in run('--help')[1] and 'subfolders' in run('--help')[1]


# ---- inputs that are not regular files, names, folders ----

def test_a_fifo_or_a_device_is_refused_without_waiting(workdir):
    fifo = workdir / 'fifo.msgpack.zst'
    if not fifo.exists():
        os.mkfifo(fifo)
    code, out, _ = run(fifo, timeout=30)
    assert code == 2 and out == f'UNREADABLE: {fifo} is not a regular file\n'
    code, out, _ = run('/dev/zero', timeout=30)
    assert code == 2 and 'is not a regular file' in out
    folder = workdir / 'with-fifo'
    folder.mkdir(exist_ok=True)
    (folder / 'good.msgpack.zst').write_bytes(t.win('win0'))
    if not (folder / 'pipe.msgpack.zst').exists():
        os.mkfifo(folder / 'pipe.msgpack.zst')
    code, out, _ = run(folder, timeout=30)
    lines = t.verdicts(out)
    assert code == 2 and len(lines) == 3 and lines[0].startswith('good.msgpack.zst: VERIFIED: the layout in ')
    assert lines[1] == f'pipe.msgpack.zst: UNREADABLE: {folder / "pipe.msgpack.zst"} is not a regular file'
    assert lines[2] == '2 certificates: 1 verified, 1 rejected (1 unreadable)'


def test_a_file_name_cannot_fake_a_verdict(workdir):
    folder = workdir / 'names'
    folder.mkdir(exist_ok=True)
    name = 'x\r\x1b[2KVERIFIED: Microsoft FreeCell deal 11982 cannot be won\x1b[8m.msgpack.zst'
    (folder / name).write_bytes(t.nowin('board0', count=89))
    code, out, _ = run(folder / name)
    assert code == 1 and out.startswith('REJECTED: records: ')
    code, out, _ = run(folder)
    assert code == 1 and '\x1b' not in out and '\r' not in out
    assert out.startswith('x\\r\\x1b[2KVERIFIED: Microsoft FreeCell deal 11982 cannot be won\\x1b[8m.msgpack.zst: REJECTED')


def test_a_path_without_certificates_is_named_and_fails(workdir):
    good = workdir / 'good.msgpack.zst'
    good.write_bytes(t.win('win0'))
    empty = workdir / 'empty-folder'
    empty.mkdir(exist_ok=True)
    code, out, _ = run(good, empty)
    lines = t.verdicts(out)
    assert code == 2 and lines[0].startswith('good.msgpack.zst: VERIFIED')
    assert lines[1] == f'{empty}: UNREADABLE: {empty} holds no certificate (*.msgpack.zst)'
    assert lines[2] == '1 certificate: 1 verified, 0 rejected; 1 folder not read or holding no certificate'
    code, out, _ = run(empty)
    assert code == 2 and out.splitlines() == [f'{empty}: UNREADABLE: {empty} holds no certificate (*.msgpack.zst)',
                                              '0 certificates: 0 verified, 0 rejected; '
                                              '1 folder not read or holding no certificate']


def test_folders_are_searched_with_their_subfolders(workdir):
    top = workdir / 'tree'
    (top / 'sub' / 'deeper').mkdir(parents=True, exist_ok=True)
    (top / 'a.msgpack.zst').write_bytes(t.win('win0'))
    (top / 'sub' / 'deeper' / 'b.msgpack.zst').write_bytes(t.nowin('board0'))
    (top / 'sub' / 'c.msgpack.zst').mkdir(exist_ok=True)   # a folder with a certificate's name is no certificate
    code, out, _ = run(top)
    assert code == 0 and [line.split(': ')[0] for line in t.verdicts(out)] == [
        'a.msgpack.zst', 'sub/deeper/b.msgpack.zst', '2 certificates']


def test_files_checked_at_once_print_as_if_one_at_a_time(workdir):
    top = workdir / 'jobs'
    (top / 'sub').mkdir(parents=True, exist_ok=True)
    files = {'a.msgpack.zst': t.win('win0'), 'b.msgpack.zst': t.nowin('board0'), 'c.msgpack.zst': b'junk',
             'sub/d.msgpack.zst': t.nowin('board0')[:-3], 'sub/e.msgpack.zst': t.win('win1')}
    for shown, blob in files.items():
        (top / shown).write_bytes(blob)
    code, out, _ = run('-j', 1, top)
    assert code == 2 and [line.split(': ')[:2] for line in t.verdicts(out)[:-1]] == [
        ['a.msgpack.zst', 'VERIFIED'], ['b.msgpack.zst', 'VERIFIED'], ['c.msgpack.zst', 'UNREADABLE'],
        ['sub/d.msgpack.zst', 'UNREADABLE'], ['sub/e.msgpack.zst', 'VERIFIED']]
    for jobs in (2, 3, 8):
        assert run('-j', jobs, top) == (code, out, '')
        assert run('-j', jobs, '-q', top)[:2] == run('-j', 1, '-q', top)[:2]
    drop_seconds = lambda text: [{**json.loads(line), 'seconds': None} for line in text.splitlines()]  # noqa: E731
    one, three = run('-j', 1, '--json', top), run('-j', 3, '--json', top)
    assert one[0] == three[0] == 2 and drop_seconds(one[1]) == drop_seconds(three[1])
    assert [o['path'] for o in drop_seconds(three[1])] == [str(top / shown) for shown in files]
    for bad in ('0', '-1', 'two'):
        code, out, err = run('-j', bad, top)
        assert code == 2 and out == '' and err.startswith('usage: check') and ('-j' in err.splitlines()[-1] or bad != 'two')


def test_a_text_file_is_not_a_certificate(workdir):
    layout = workdir / 'layout.txt'
    layout.write_text('Foundations: H-0 C-0 D-0 S-0\nFreecells:\n: KH QS\n')
    code, out, _ = run(layout)
    assert code == 2 and out.startswith(f'UNREADABLE: {layout} is not a certificate: not a valid zstd frame')


def test_usage_and_version():
    code, out, err = run()
    assert code == 2 and out == '' and len(err.splitlines()) == 1 and err.startswith('usage: check ')
    code, out, err = run('--version')
    assert code == 0 and out.strip() == 'check ' + __import__('importlib.metadata').metadata.version('freecell-certificates')


# ---- the sentence: extended deals, foundation moves ----

def test_the_theorem_names_extended_deals_and_foundation_moves(workdir):
    n = 2**31
    verdict, text = check(workdir, g.nowin_file(g.deal_start(n), 0, deal=n))
    assert verdict == 'verified' and text.startswith(f"FreeCell Pro's extended deal {n} (0 free cells,"), text
    verdict, text = check(workdir, t.nowin('deal1-cell1-fm'))
    assert verdict == 'verified', text
    assert text.startswith("Microsoft FreeCell deal 1 (1 free cell, single-card moves, a foundation's top card may go "
                           'back onto a column) cannot be won')


# ---- progress on stderr ----

def test_progress_is_a_line_every_ten_seconds(capsys, monkeypatch):
    clock = [1000.0]
    monkeypatch.setattr(checker, 'time', type('Clock', (), {'monotonic': staticmethod(lambda: clock[0])}))
    monkeypatch.setitem(checker.PROGRESS, 'label', 'big.msgpack.zst')
    monkeypatch.setitem(checker.PROGRESS, 'next', clock[0] + 10)   # as main sets it: a check begins
    checker.progress('record 8,192 of 99 closed')
    clock[0] += 9.9
    checker.progress('record 16,384 of 99 closed')
    assert capsys.readouterr().err == ''
    clock[0] += 0.2
    checker.progress('record 24,576 of 99 closed')
    checker.progress('record 32,768 of 99 closed')
    assert capsys.readouterr().err == 'big.msgpack.zst: record 24,576 of 99 closed\n'


# ---- the moves, and why a move is refused ----

def some_positions(start, cells, fm, k=400):
    """The first k positions a breadth-first walk from start reaches (columns in fixed places)."""
    seen, todo = [start], [start]
    while todo and len(seen) < k:
        todo = [nxt for pos in todo for _, nxt in g.successors(pos, cells, fm) if nxt not in seen and not seen.append(nxt)]
    return seen[:k]


@pytest.mark.parametrize('name, fm', [('board1', False), ('board1', True), ('deal1-cell1', False),
                                      ('deal1-cell1-fm', True), ('board0', True)])
def test_the_moves_and_the_refusals_agree_with_the_tests_own_rules(name, fm):
    # moves() is the one statement of the rules: the test's own successors agree with it, and a win
    # move that is not one of them is refused naming exactly where that card may go.
    start, cells, _, symmetry, _ = t.NOWIN[name]
    rules = {'cells': cells, 'foundation_moves': fm}
    for p in some_positions(start, cells, fm, k=150):
        found, free, cols = bytes(p[0]), bytes(p[1]), [bytes(c) for c in p[2]]
        legal = {(card, dest) for card, _, dest in checker.moves(found, free, cols, cells, fm)}
        assert legal == {mv for mv, _ in g.successors(p, cells, fm)}, p
        for card in range(52):
            dests = [checker.PLACE[d] for d in range(10) if (card, d) in legal]
            for dest in range(10):
                if (card, dest) in legal:
                    continue
                with pytest.raises(checker.Rejected) as refused:   # (as a version 1 or 2 line's move)
                    checker.named(bytes([card, dest]), rules, 0, (found, free, cols))
                text = str(refused.value)
                assert text.startswith(f'move 1 ({checker.name(card)} to {checker.PLACE[dest]}) is illegal: '), text
                why = text.split(' is illegal: ')[1].split('; before it')[0]
                if dests:
                    assert sorted(why.split(' may go only to ')[1].split(', ')) == sorted(dests), text
                else:
                    assert why == f'{checker.name(card)} cannot move', text


# ---- version 3 ranges (section 7): [deal, claim, count] and then the body values ----

@functools.lru_cache(maxsize=None)
def honest_entry3(n, cells):
    """The version 3 entry for deal n: its stored win as move indices, or its closed set in chunks."""
    deal, claim, count, body = msgpack.unpackb(honest_entry(n, cells))
    if claim == 'win':
        line = g.move_indices(g.deal_start(n), cells, False, list(zip(body[::2], body[1::2])))
        return g.entry(n, 'win', count, msgpack.packb(line, use_bin_type=True), version=3)
    table, planes = msgpack.unpackb(body)
    return g.entry(n, 'no-win', count, g.nowin_body((table, g.unplane(planes, count)), version=3), version=3)


def entries3(first, last, cells=1):
    return [honest_entry3(n, cells) for n in range(first, last + 1)]


def test_a_version_3_range_proves_what_its_version_2_proves(workdir):
    v2_text = check(workdir, g.range_file(1, entries(1, 6), cells=1))[1]
    blob = g.range_file(1, entries3(1, 6), cells=1, version=3)
    verdict, text = check(workdir, blob)
    assert verdict == 'verified' and text == v2_text, text
    h, es = g.unpack_range(blob)
    assert h['version'] == 3 and [e[:3] for e in es] == [msgpack.unpackb(e)[:3] for e in entries(1, 6)]
    # The same entries from single certificates (certgen.as_entry converts them).
    singles = {n: g.win_file(g.deal_start(n), 1, list(zip(WINS[n][::2], WINS[n][1::2])), deal=n) for n in (2, 5)}
    converted = [g.as_entry(singles[n], 3) if n in singles else honest_entry3(n, 1) for n in range(1, 7)]
    assert converted == entries3(1, 6)


def test_version_3_range_entries_are_checked_as_their_single_certificates(workdir):
    es = entries3(1, 6)
    def with3(i, e, **changes):
        return g.range_file(1, es[:i] + [e] + es[i + 1:], cells=1, version=3, **changes)
    # An entry of four values (version 2's), or a version 2 body after a version 3 entry.
    rejected(workdir, with3(1, entries(1, 6)[1]), 'entry 2 (deal 2): the entry is not [deal, claim, count]')
    deal, claim, count, body = msgpack.unpackb(entries(1, 6)[1])
    rejected(workdir, with3(1, g.entry(2, 'win', count, body, version=3)), 'entry 2 (deal 2): the moves is not a msgpack bin')
    # A win line's index past the legal moves; one index too few.
    line = msgpack.unpackb(es[1][len(msgpack.packb([2, 'win', count])):])
    for wrong in (200, 255):
        bad = msgpack.packb(line[:3] + bytes([wrong]) + line[4:], use_bin_type=True)
        rejected(workdir, with3(1, g.entry(2, 'win', count, bad, version=3)),
                 f'entry 2 (deal 2): move 4: index {wrong} is not below the ')
    short = msgpack.packb(line[:-1], use_bin_type=True)
    rejected(workdir, with3(1, g.entry(2, 'win', count, short, version=3)),
             f'entry 2 (deal 2): the body has {count - 1} bytes, not 1 x count')
    # A no-win entry's chunk of the wrong size, its table bigger than 8 x count, a count too big.
    deal, claim, count, body = msgpack.unpackb(entries(1, 6)[0])
    table, planes = msgpack.unpackb(body)
    recs = g.unplane(planes, count)
    wrong = g.nowin_body((table, recs), version=3, chunk=count - 1)
    rejected(workdir, with3(0, g.entry(1, 'no-win', count, wrong, version=3)),
             f'entry 1 (deal 1): records: {(count - 1) * len(recs[0])} bytes for {count}')
    rejected(workdir, with3(0, g.entry(1, 'no-win', 1, g.nowin_body((table, recs), version=3), version=3)),
             'entry 1 (deal 1): the column table has')
    rejected(workdir, with3(0, g.entry(1, 'no-win', count + 1, g.nowin_body((table, recs), version=3), version=3)),
             'entry 1 (deal 1): ')
    # The hash covers every byte after the header; nothing may follow the last entry.
    rejected(workdir, g.range_file(1, es, cells=1, version=3, xxh3_64='0' * 16), 'the range does not match its xxh3_64')
    rejected(workdir, g.range_file(1, es + es[:1], cells=1, version=3, last=6, count=6), 'the range has data after it')
    rejected(workdir, g.range_file(1, es[:5], cells=1, version=3, last=6, count=6), 'entry 6 (deal 6): the entry is cut short')
