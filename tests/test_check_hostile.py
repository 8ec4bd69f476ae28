"""check/ on inputs built to hang it, crash it or make it work without end: files that yield more than
their size, header values of every wrong type, folders too deep to recurse into or that cannot be read,
ranges whose work would grow faster than their deals, more positions than memory holds, and an
internal failure forced from inside. Each gets one line and a non-zero exit, never a traceback and
never VERIFIED. Files are written by tests/support/certgen.py."""
import os
import subprocess
import sys
from pathlib import Path

import msgpack
import pytest
from support import certgen as g
import test_check as t
import test_check_ranges as r
from check import checker

ROOT = Path(__file__).parent.parent
run, check, rejected = r.run, t.check, t.rejected


@pytest.fixture(scope='module')
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp('hostile')


# ---- what is read is what is hashed, and never more than the file's size ----

@pytest.mark.skipif(not os.path.exists('/proc/self/pagemap'), reason='needs /proc/self/pagemap')
def test_a_file_that_yields_more_than_its_size_is_refused_at_once(workdir):
    # /proc/self/pagemap says it is a regular file of 0 bytes, and yields gigabytes.
    code, out, _ = run('/proc/self/pagemap', timeout=30)
    assert code == 2 and out == 'UNREADABLE: /proc/self/pagemap yields more bytes than its size (0)\n'
    folder = workdir / 'with-pagemap'
    folder.mkdir()
    (folder / 'x.msgpack.zst').symlink_to('/proc/self/pagemap')
    (folder / 'good.msgpack.zst').write_bytes(t.win('win0'))
    code, out, _ = run(folder, timeout=30)
    lines = t.verdicts(out)
    assert code == 2 and len(lines) == 3 and lines[0].startswith('good.msgpack.zst: VERIFIED')
    assert lines[1] == f'x.msgpack.zst: UNREADABLE: {folder / "x.msgpack.zst"} yields more bytes than its size (0)'
    assert lines[2] == '2 certificates: 1 verified, 1 rejected (1 unreadable)'


def test_the_digest_is_of_the_whole_file_or_none(workdir):
    for blob in (t.win('win1'), t.nowin('board0', count=89), b'junk' * 1000, t.nowin('board1')[:-5]):
        p = workdir / 'digest.msgpack.zst'
        p.write_bytes(blob)
        verdict, _, _, digest = checker.verify(p)   # (None: refused before its end, not read on)
        assert digest == __import__('hashlib').sha256(blob).hexdigest() or verdict != 'verified' and digest is None


# ---- every header value's type is checked before anything uses it ----

def nested(depth):
    value = []
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize('key, value', [
    ('xxh3_64', nested(500)), ('xxh3_64', {'a': 1}), ('count', nested(100)), ('cells', [1]), ('deal', 'one'),
    ('board', nested(50)), ('claim', ['win']), ('foundation_moves', {}), ('version', '2'),
])
def test_a_header_value_of_another_type_is_refused_by_name(workdir, key, value):
    text = rejected(workdir, g.rebuild(t.win('win1'), **{key: value}), f'header {key} = ', 'unreadable')
    assert len(text) < 200 and 'internal error' not in text


@pytest.mark.parametrize('value', ['1', b'1', None, [1], {'a': 1}, nested(300), 1.5, True])
def test_a_range_first_of_another_type_is_refused_by_name(workdir, value):
    blob = g.range_file(1, r.entries(1, 2), cells=1, first=value)
    text = rejected(workdir, blob, 'header first = ', 'unreadable')
    assert 'internal error' not in text


@pytest.mark.parametrize('value', ['6', None, [6], 0, 2**33])
def test_a_range_last_of_another_type_or_out_of_range_is_refused_by_name(workdir, value):
    rejected(workdir, g.range_file(1, r.entries(1, 2), cells=1, last=value), 'header last = ', 'unreadable')


def test_a_deeply_nested_header_value_under_jobs_is_one_line(workdir):
    bad = workdir / 'nested.msgpack.zst'
    bad.write_bytes(g.rebuild(t.win('win1'), xxh3_64=nested(500)))
    good = ROOT / 'certificates' / '11982-cells5.msgpack.zst'
    after = workdir / 'after.msgpack.zst'
    after.write_bytes(t.win('win0'))
    code, out, err = run('-j', 2, good, bad, after)
    lines = t.verdicts(out)
    assert code == 2 and 'Traceback' not in err, err
    assert lines[0].startswith('11982-cells5.msgpack.zst: VERIFIED')
    assert lines[1].startswith('nested.msgpack.zst: UNREADABLE: header xxh3_64 = [[[[[[[...]]]]]]] is not allowed')
    assert lines[2].startswith('after.msgpack.zst: VERIFIED') and lines[3].startswith('3 certificates')


def test_a_check_that_fails_unforeseen_is_one_line_and_the_run_goes_on(workdir, capsys, monkeypatch):
    # A failure no file should cause (here: the header reader breaks on a's file): its file gets a
    # line, the others theirs (files are checked one at a time; -j splits each one's closure).
    for name in ('a', 'b'):
        (workdir / f'{name}.msgpack.zst').write_bytes(t.win('win0'))
    real = checker.header

    def breaks_on_a(s):
        if s.shown.endswith('a.msgpack.zst'):
            raise RuntimeError('broken')
        return real(s)

    monkeypatch.setattr(checker, 'header', breaks_on_a)
    code = checker.main(['-j', '2', str(workdir / 'a.msgpack.zst'), str(workdir / 'b.msgpack.zst')])
    lines = t.verdicts(capsys.readouterr().out)
    assert code == 2 and lines[0].startswith('a.msgpack.zst: UNREADABLE: internal error: ')
    assert len(lines) == 3 and lines[2].startswith('2 certificates')


def test_a_worker_that_fails_is_one_line_and_the_run_goes_on(workdir, capsys, monkeypatch):
    # A worker whose answer cannot come back (here: it dies): its file gets a line, the others theirs.
    for name in ('a', 'b'):
        (workdir / f'{name}.msgpack.zst').write_bytes(t.win('win0'))
    real = checker.timed_verify

    def dies_on_a(shown, path, limits, want):
        if shown == 'a.msgpack.zst':
            os._exit(3)
        return real(shown, path, limits, want)

    monkeypatch.setattr(checker, 'timed_verify', dies_on_a)
    code = checker.main(['-j', '2', str(workdir / 'a.msgpack.zst'), str(workdir / 'b.msgpack.zst')])
    lines = t.verdicts(capsys.readouterr().out)
    assert code == 2 and lines[0].startswith('a.msgpack.zst: UNREADABLE: internal error: ')
    assert len(lines) == 3 and lines[2].startswith('2 certificates')


# ---- the last guard: reached by no file, and never a verdict ----

def test_an_internal_error_is_unreadable_never_verified(workdir, monkeypatch, capsys):
    p = workdir / 'fine.msgpack.zst'
    p.write_bytes(t.nowin('board0'))
    assert checker.main([str(p)]) == 0
    capsys.readouterr()

    def broken(*args):
        raise KeyError('forced')

    monkeypatch.setattr(checker, 'moves', broken)
    assert checker.main([str(p)]) == 2
    out = capsys.readouterr().out
    assert out == "UNREADABLE: internal error: KeyError: 'forced'\n" and 'VERIFIED' not in out
    assert checker.verify(p)[:3] == ('unreadable', {}, "internal error: KeyError: 'forced'")


# ---- folders ----

def test_a_folder_nested_too_deep_to_recurse_into_is_walked(workdir):
    top = workdir / 'deep'
    path = str(top)
    os.mkdir(path)
    for _ in range(1100):   # (os.makedirs recurses too)
        path += '/d'
        os.mkdir(path)
    path = Path(path)
    (path / 'w.msgpack.zst').write_bytes(t.win('win0'))
    try:
        code, out, err = run(top, timeout=60)
    finally:   # (removed here, from the bottom up: pytest's own clean-up recurses, and would fail)
        (path / 'w.msgpack.zst').unlink()
        while path != top.parent:
            path.rmdir()
            path = path.parent
    lines = t.verdicts(out)
    assert code == 0 and 'Traceback' not in err and len(lines) == 2, (out, err[-500:])
    assert lines[0].startswith('d/' * 1100 + 'w.msgpack.zst: VERIFIED')


@pytest.mark.skipif(os.geteuid() == 0, reason='root reads every folder')
def test_a_folder_that_cannot_be_read_is_named(workdir):
    top = workdir / 'locked-tree'
    (top / 'locked').mkdir(parents=True)
    (top / 'a.msgpack.zst').write_bytes(t.win('win0'))
    (top / 'locked').chmod(0)
    try:
        code, out, _ = run(top)
    finally:
        (top / 'locked').chmod(0o755)
    assert code == 2 and f'UNREADABLE: cannot read the folder {top / "locked"}: Permission denied' in out


def test_a_folder_that_cannot_be_read_is_named_in_any_case(workdir, monkeypatch, capsys):
    top = workdir / 'tree-unread'
    (top / 'sub').mkdir(parents=True)
    (top / 'a.msgpack.zst').write_bytes(t.win('win0'))
    real = os.scandir

    def refuses_sub(path):
        if str(path).endswith('sub'):
            raise PermissionError(13, 'Permission denied', str(path))
        return real(path)

    monkeypatch.setattr(checker.os, 'scandir', refuses_sub)
    assert checker.main([str(top)]) == 2
    lines = t.verdicts(capsys.readouterr().out)
    assert lines[0].startswith('a.msgpack.zst: VERIFIED')
    assert lines[1] == f'{top / "sub"}: UNREADABLE: cannot read the folder {top / "sub"}: Permission denied'
    assert lines[2] == '1 certificate: 1 verified, 0 rejected; 1 folder not read or holding no certificate'


# ---- a range's work is bounded by its number of deals ----

def padded(n, cells, extra):
    """Deal n's stored win with `extra` more legal moves: before the last move, its card to an empty
    column and back, again and again (the position is the same each time round)."""
    body = r.WINS[n]
    moves = list(zip(body[::2], body[1::2]))
    found, free, cols = bytes(4), b'', checker.deal(n)
    for card, dest in moves[:-1]:
        source = [s for c, s, d in checker.moves(found, free, cols, cells, False) if (c, d) == (card, dest)][0]
        found, free, cols = checker.after(found, free, cols, card, source, dest)
    card = moves[-1][0]
    home = CELL if card in free else [c for c, col in enumerate(cols) if col and col[-1] == card][0]
    away = [c for c, col in enumerate(cols) if not col and c != home][0]
    cycle = [(card, away), (card, home)] * (extra // 2)
    line = moves[:-1] + cycle + moves[-1:]
    assert g.replay_wins(g.deal_start(n), cells, False, line)
    return g.entry(n, 'win', len(line), bytes(b for mv in line for b in mv))


CELL = checker.CELL


def test_a_range_of_padded_wins_is_refused_from_its_totals(workdir):
    # True wins, each padded within the per-win limit: the range's moves in all are past 250 a deal
    # and one win's worth (here 2,500) more.
    es = r.entries(1, 6)
    es[1], es[4] = padded(2, 1, 2300), padded(5, 1, 2300)
    blob = g.range_file(1, es, cells=1)
    p = workdir / 'padded.msgpack.zst'
    p.write_bytes(blob)
    limits = {**checker.LIMITS, 'moves': 2500}
    verdict, _, text, _ = checker.verify(p, limits)
    assert (verdict, text) == ('unreadable', 'entry 5 (deal 5): the range holds more than 4,000 moves in all: '
                                             '--range-moves a deal, and --max-moves more'), text
    assert checker.verify(p, {**limits, 'range-moves': 500})[0] == 'verified'
    code, out, _ = run(p, '--max-moves', 2500, '--range-moves', 500)
    assert code == 0 and out.startswith('VERIFIED: ')
    assert run(p, '--max-moves', 2500)[:2] == (2, 'UNREADABLE: ' + text + '\n')


def test_a_range_of_no_wins_is_bounded_in_all(workdir):
    p = workdir / 'nowins.msgpack.zst'
    p.write_bytes(g.range_file(1, r.entries(1, 6), cells=1))
    verdict, _, text, _ = checker.verify(p, {**checker.LIMITS, 'range-positions': 10, 'positions': 200})
    assert verdict == 'unreadable' and 'the range holds more than 260 positions in all' in text, text
    assert checker.verify(p)[0] == 'verified'


def test_a_range_is_bounded_by_its_bytes_too(workdir):
    # A line padded with moves in a circle is all but free in compressed bytes: the moves of a
    # range in all are held to --byte-moves a byte of the file read so far (and --max-moves more),
    # whatever its deals allow.
    es = r.entries(1, 6)
    es[1], es[4] = padded(2, 1, 4000), padded(5, 1, 4000)
    p = workdir / 'padded-bytes.msgpack.zst'
    p.write_bytes(g.range_file(1, es, level=19, cells=1))
    size = p.stat().st_size   # (read whole with the header: a small file)
    wins = sum(msgpack.unpackb(e)[2] for e in es if msgpack.unpackb(e)[1] == 'win')
    assert size + 4200 < wins <= 2 * size + 4200
    limits = {**checker.LIMITS, 'moves': 4200, 'range-moves': 10**6, 'byte-moves': 1}
    verdict, _, text, _ = checker.verify(p, limits)
    assert verdict == 'unreadable', text
    assert text == (f'entry 5 (deal 5): the range holds more than {size + 4200:,} moves in its '
                    f'first {size:,} bytes: --byte-moves a byte, and --max-moves more'), text
    assert checker.verify(p, {**limits, 'byte-moves': 2})[0] == 'verified'
    options = ['--max-moves', 4200, '--range-moves', 10**6]
    assert run(p, *options, '--byte-moves', 1)[:2] == (2, 'UNREADABLE: ' + text + '\n')
    code, out, _ = run(p, *options, '--byte-moves', 2)
    assert code == 0 and out.startswith('VERIFIED: ')


def test_a_range_of_no_wins_is_bounded_by_its_bytes_too(workdir):
    p = workdir / 'nowins-bytes.msgpack.zst'
    p.write_bytes(g.range_file(1, r.entries(1, 6), cells=1))
    limits = {**checker.LIMITS, 'positions': 500, 'byte-positions': 0}
    verdict, _, text, _ = checker.verify(p, limits)
    assert verdict == 'unreadable' and text.startswith('entry 3 (deal 3): the range holds more than 500 positions in its first '), text
    assert text.endswith(' bytes: --byte-positions a byte, and --max-positions more'), text
    assert checker.verify(p, {**limits, 'byte-positions': 1})[0] == 'verified'


def test_the_default_bounds_leave_honest_ranges_a_wide_margin():
    # The published range, as certify writes it: its moves a byte, and its positions a byte, are
    # far below the defaults (and deal 7484159's no-win, the densest published, as an entry).
    blob = (ROOT / 'certificates' / '1-32000.msgpack.zst').read_bytes()
    _, es = g.unpack_range(blob)
    moves = sum(count for _, claim, count, _ in es if claim == 'win')
    assert moves / len(blob) * 1.75 < checker.LIMITS['byte-moves']
    dense = ROOT / 'certificates' / '7484159.msgpack.zst'
    positions = g.unpack_file(dense.read_bytes())[0]['count']
    assert positions / dense.stat().st_size * 3 < checker.LIMITS['byte-positions']


def test_the_byte_bounds_are_in_the_help():
    out = run('--help')[1]
    assert '--byte-moves' in out and '--byte-positions' in out and 'a byte' in out


# ---- memory ----

def test_out_of_memory_is_one_line_naming_the_options(workdir, monkeypatch):
    p = workdir / 'memory.msgpack.zst'
    p.write_bytes(t.nowin('board1'))

    def no_memory(*args):
        raise MemoryError

    monkeypatch.setattr(checker, 'space', no_memory)
    n = len(t.positions('board1'))
    assert checker.verify(p)[:3:2] == ('unreadable', f'not enough memory for {n:,} positions: '
                                                     '--max-positions / --memory')


@pytest.mark.parametrize('name', ['board1', 'deal1-cell1', 'board2-fixed'])
def test_records_past_the_memory_budget_go_to_a_mapped_file_with_the_same_verdict(workdir, name):
    p = workdir / 'budget.msgpack.zst'
    for blob in (t.nowin(name), t.nowin(name, t.positions(name) - {sorted(t.positions(name))[3]})):
        p.write_bytes(blob)
        assert checker.verify(p, {**checker.LIMITS, 'memory': 1000}) == checker.verify(p)
    code, out, _ = run(p, '--memory', '1K')
    assert code == 1 and out.startswith('REJECTED: ')


def test_the_memory_option_reads_units():
    assert [checker.size(s) for s in ('100', '1K', '2m', '3G')] == [100, 1024, 2 << 20, 3 << 30]
    code, _, err = run('--memory', 'lots', 'x')
    assert code == 2 and '--memory' in err


def test_no_room_for_the_memory_budgets_file_is_one_line_not_a_crash(workdir, monkeypatch):
    # A full disk must be an error when the temporary file is made, not a SIGBUS at the first
    # write into a page of a sparse file (its room is taken at once, with posix_fallocate).
    p = workdir / 'no-room.msgpack.zst'
    p.write_bytes(t.nowin('board1'))

    def full(fd, offset, length):
        raise OSError(28, 'No space left on device')

    monkeypatch.setattr(checker.os, 'posix_fallocate', full)
    verdict, _, text, _ = checker.verify(p, {**checker.LIMITS, 'memory': 0})
    assert verdict == 'unreadable' and text.endswith('No space left on device')


def test_the_records_of_a_split_check_are_not_kept_after_it(workdir, monkeypatch):
    monkeypatch.setattr(checker, 'SPLIT', 2)
    p = workdir / 'kept.msgpack.zst'
    p.write_bytes(t.nowin('board1'))
    assert checker.verify(p, {**checker.LIMITS, 'jobs': 2})[0] == 'verified'
    assert checker.share.job is None


def test_a_reader_that_goes_away_ends_the_run_quietly(workdir):
    p = workdir / 'many.msgpack.zst'
    p.write_bytes(t.win('win0'))
    done = subprocess.run(f'{sys.executable} -m check -j 1 {" ".join([str(p)] * 50)} | true',
                          shell=True, capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert 'Traceback' not in done.stderr and 'Error' not in done.stderr


@pytest.mark.parametrize('asked', ['3', '1-', '-5', '1-2-3', 'a-b'])
def test_a_range_that_is_not_a_to_b_is_bad_usage(workdir, asked):
    p = workdir / 'range-usage.msgpack.zst'
    p.write_bytes(t.win('win0'))
    code, out, err = run('--range', asked, p)
    assert code == 2 and out == '' and '--range' in err and 'internal error' not in err
