"""check's command line as a script uses it: what the file must prove (--deal, --claim, --cells, the
other rules, --range), exit codes when files disagree, standard input, one file's closure (or a range's
replays) split across processes, and output that fits 80 columns. Files are written by tests/support/certgen.py."""
import functools
import json
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
run = r.run


@pytest.fixture(scope='module')
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp('cli')
    made = {'deal1': t.nowin('deal1-cell1'), 'board': t.win('win1'), 'forged': t.nowin('board0', count=89),
            'range': g.range_file(1, r.entries(1, 6), cells=1), 'fm': t.nowin('deal1-cell1-fm'),
            'fixed': t.nowin('deal1-cell1-fixed')}
    paths = {}
    for name, blob in made.items():
        paths[name] = folder / f'{name}.msgpack.zst'
        paths[name].write_bytes(blob)
    paths['missing'] = folder / 'missing.msgpack.zst'
    return paths


# ---- exit 0 means: this file proves exactly what was asked ----

@pytest.mark.parametrize('name, asked, why', [
    ('deal1', ['--deal', '1', '--claim', 'no-win', '--cells', '1', '--no-foundation-moves', '--symmetry', 'columns'],
     None),
    ('deal1', ['--deal', '617'], 'it is deal 1, not deal 617 (--deal)'),
    ('deal1', ['--claim', 'win'], "its claim is 'no-win', not 'win' (--claim)"),
    ('deal1', ['--cells', '4'], 'its cells is 1, not 4 (--cells)'),
    ('deal1', ['--foundation-moves'], 'its foundation_moves is False, not True (--foundation-moves)'),
    ('fm', ['--no-foundation-moves'], 'its foundation_moves is True, not False (--foundation-moves)'),
    ('fm', ['--foundation-moves', '--deal', '1'], None),
    ('fixed', ['--symmetry', 'columns'], "its symmetry is 'none', not 'columns' (--symmetry)"),
    ('board', ['--deal', '1'], 'it is a custom layout, not deal 1 (--deal)'),
    ('board', ['--claim', 'win', '--cells', '1'], None),
    ('range', ['--range', '1-6', '--claim', 'range', '--cells', '1'], None),
    ('range', ['--range', '1-7'], 'it is a range, deals 1..6, not deals 1..7 (--range)'),
    ('range', ['--deal', '3'], 'it is a range, deals 1..6, not deal 3 (--deal)'),
    ('deal1', ['--range', '1-6'], 'it is deal 1, not deals 1..6 (--range)'),
    ('deal1', ['--claim', 'range'], "its claim is 'no-win', not 'range' (--claim)"),
])
def test_what_the_file_must_prove(files, capsys, name, asked, why):
    code = checker.main([*asked, str(files[name])])
    out = capsys.readouterr().out
    if why is None:
        assert code == 0 and out.startswith('VERIFIED: '), out
    else:
        assert code == 1 and out == f'REJECTED: the file does not prove what was asked: {why}\n', out


def test_a_copied_proof_is_not_the_proof_of_another_deal(files, tmp_path):
    copy = tmp_path / '617.msgpack.zst'
    copy.write_bytes(files['deal1'].read_bytes())
    code, out, _ = run('--deal', 617, copy)
    assert code == 1 and 'not deal 617 (--deal)' in out
    assert run('--deal', 1, copy)[0] == 0


# ---- exit codes when several files disagree ----

@pytest.mark.parametrize('names, code', [
    (['deal1', 'board'], 0), (['deal1', 'forged'], 1), (['deal1', 'missing'], 2),
    (['deal1', 'forged', 'missing'], 1), (['missing', 'forged'], 1),
])
def test_a_rejection_is_never_masked_by_an_unreadable_file(files, capsys, names, code):
    assert checker.main(['-q', *map(str, (files[n] for n in names))]) == code
    capsys.readouterr()


def test_jobs_must_be_at_least_one_and_the_reason_is_given(files):
    for bad in ('0', '-2'):
        code, out, err = run('-j', bad, files['deal1'])
        assert code == 2 and out == '' and err.startswith('usage: check')
        assert err.splitlines()[-1] == f'check: error: -j {bad}: at least one process is needed'


@pytest.mark.parametrize('asked, why', [
    (['--deal', '0'], '--deal 0: no deal has that number (1..8,589,934,591)'),
    (['--deal', '8589934592'], '--deal 8589934592: no deal has that number (1..8,589,934,591)'),
    (['--range', '5-1'], '--range 5-1: no range is that (1 <= A <= B <= 8,589,934,591)'),
    (['--range', '0-3'], '--range 0-3: no range is that (1 <= A <= B <= 8,589,934,591)'),
    (['--cells', '9'], '--cells 9: no rules have that many free cells (0..8)'),
])
def test_a_pin_no_file_can_meet_is_bad_usage(files, asked, why):
    """Not a REJECTED file: no file could meet it, so the command line is wrong (exit 2, nothing read)."""
    code, out, err = run(*asked, files['deal1'])
    assert code == 2 and out == '' and err.splitlines()[-1] == f'check: error: {why}', err


def test_an_empty_file_or_input_says_it_is_empty(tmp_path):
    empty = tmp_path / 'empty.msgpack.zst'
    empty.write_bytes(b'')
    assert run(empty)[:2] == (2, f'UNREADABLE: {empty} is empty\n')
    for stdin in (subprocess.DEVNULL, None):   # /dev/null, and an empty pipe
        done = subprocess.run([sys.executable, '-m', 'check', '-'], stdin=stdin, input=None if stdin else b'',
                              capture_output=True, cwd=ROOT)
        assert (done.returncode, done.stdout) == (2, b'UNREADABLE: standard input is empty\n')


def test_a_cut_short_file_names_itself(files, tmp_path):
    cut = tmp_path / 'cut.msgpack.zst'
    cut.write_bytes(files['deal1'].read_bytes()[:-7])
    code, out, _ = run(cut)
    assert code == 2 and out.startswith(f'UNREADABLE: {cut}: its zstd frame is cut short')
    whole_frames = t.frame(t.content(files['deal1'].read_bytes())[:-40])
    cut.write_bytes(whole_frames)
    code, out, _ = run(cut)
    assert code == 1 and f'the data of {cut} ends early' in out


# ---- standard input ----

def test_a_dash_reads_standard_input(files):
    data = files['deal1'].read_bytes()
    for how in ('pipe', 'file'):
        if how == 'pipe':
            done = subprocess.run([sys.executable, '-m', 'check', '-'], input=data, capture_output=True, cwd=ROOT)
        else:
            with open(files['deal1'], 'rb') as f:
                done = subprocess.run([sys.executable, '-m', 'check', '-'], stdin=f, capture_output=True, cwd=ROOT)
        out = done.stdout.decode()
        assert done.returncode == 0 and out.startswith('VERIFIED: Microsoft FreeCell deal 1 (1 free cell'), out
        assert out.splitlines()[1] == f'  sha256 {__import__("hashlib").sha256(data).hexdigest()}'
    done = subprocess.run([sys.executable, '-m', 'check', '--json', '-'], input=b'junk', capture_output=True, cwd=ROOT)
    report = json.loads(done.stdout)
    assert done.returncode == 2 and report['verdict'] == 'unreadable' and report['path'] == '-'
    assert report['reason'].startswith('standard input is not a certificate')


# ---- one file's closure check across processes ----

def test_one_file_split_across_processes_gives_the_same_verdict(monkeypatch, tmp_path):
    # (The split begins at 8,192 records; here at 2, so the small boards are split too.)
    monkeypatch.setattr(checker, 'SPLIT', 2)
    p = tmp_path / 'split.msgpack.zst'
    for name in ('board1', 'deal1-cell1', 'board2-fixed'):
        for index in (None, 0, -1, 5):
            blob = t.nowin(name) if index is None else t.drop(name, index)[0]
            p.write_bytes(blob)
            one = checker.verify(p, {**checker.LIMITS, 'jobs': 1})
            for jobs in (2, 3, 5):
                assert checker.verify(p, {**checker.LIMITS, 'jobs': jobs}) == one, (name, index, jobs)


def test_a_checking_process_that_dies_is_unreadable(monkeypatch, tmp_path):
    monkeypatch.setattr(checker, 'SPLIT', 2)
    p = tmp_path / 'dies.msgpack.zst'
    p.write_bytes(t.nowin('board1'))

    def dies(*args):
        import os
        os._exit(9)

    monkeypatch.setattr(checker, 'close', dies)
    assert checker.verify(p, {**checker.LIMITS, 'jobs': 2})[:3:2] == ('unreadable', 'a checking process ended early')


# ---- one range's wins replayed across processes ----

@functools.lru_cache(maxsize=None)
def published_lines(last):
    """(deal, line) of deals 1..last (all won) from the published 1..32,000 range: each line its
    moves' indices (version 3)."""
    h, es = g.unpack_range((ROOT / 'certificates' / '1-32000.msgpack.zst').read_bytes())
    assert h['version'] == 3 and h['cells'] == 4 and all(e[1] == 'win' for e in es[:last])
    return tuple((deal, body[0]) for deal, claim, count, body in es[:last])


def win_range(lines, wrong=(), **changes):
    """The version 3 range of these lines, the fourth move of each deal in `wrong` an index past
    every legal move; `changes` for the header, or `entry_for` (entry number: other entry bytes)."""
    others = changes.pop('entry_for', {})
    es = [others.get(deal) or g.entry(deal, 'win', len(line), msgpack.packb(
          line[:3] + bytes([250]) + line[4:] if deal in wrong else line, use_bin_type=True),
          version=3) for deal, line in lines]
    return g.range_file(lines[0][0], es, cells=4, version=3, **changes)


def test_a_range_split_across_processes_gives_the_same_verdict(monkeypatch, tmp_path):
    """A range's wins wait and replay in batches across the processes. Whatever the batch and the
    number of processes the verdict is the same line, and a failure is the first in entry order:
    a bad line before a bad entry after it, a bad hash or data after the last entry."""
    lines, p = published_lines(60), tmp_path / 'range.msgpack.zst'
    later_entry = g.entry(46, 'win', len(lines[45][1]), msgpack.packb(lines[45][1]), version=3)
    cases = [({}, None),
             (dict(wrong={40}), 'entry 40 (deal 40): move 4: index 250 is not below the '),
             (dict(wrong={41, 40}), 'entry 40 (deal 40): move 4: '),
             (dict(wrong={50, 30}), 'entry 30 (deal 30): move 4: '),
             (dict(wrong={60}), 'entry 60 (deal 60): move 4: '),
             (dict(entry_for={45: later_entry}), 'entry 45 (deal 45): the entry is for deal 46'),
             (dict(wrong={43}, entry_for={45: later_entry}), 'entry 43 (deal 43): move 4: '),
             (dict(wrong={59}, xxh3_64='0' * 16), 'entry 59 (deal 59): move 4: '),
             (dict(xxh3_64='0' * 16), 'the range does not match its xxh3_64'),
             (dict(wrong={59}, last=59, count=59), 'entry 59 (deal 59): move 4: '),
             (dict(last=59, count=59), 'the range has data after it')]
    for changes, failure in cases:
        p.write_bytes(win_range(lines, **changes))
        for split in (4, 8192):
            monkeypatch.setattr(checker, 'SPLIT', split)
            one = checker.verify(p, {**checker.LIMITS, 'jobs': 1})
            assert one[0] == ('verified' if failure is None else 'rejected'), (changes, one)
            assert failure is None or one[2].startswith(failure), (changes, split, one[2])
            for jobs in (2, 3):
                assert checker.verify(p, {**checker.LIMITS, 'jobs': jobs}) == one, (changes, jobs)


def test_a_range_with_no_wins_and_wins_split_gives_the_same_verdict(monkeypatch, tmp_path):
    """Ranges that hold no-wins between the wins (deals 1..6 with one cell), whole and with an entry
    dropped, replayed in batches of two across the processes."""
    monkeypatch.setattr(checker, 'SPLIT', 2)
    es, p = r.entries3(1, 6), tmp_path / 'mixed.msgpack.zst'
    for blob, verdict in ((g.range_file(1, es, cells=1, version=3), 'verified'),
                          (g.range_file(1, es[:2] + es[3:], cells=1, version=3, last=6, count=6),
                           'rejected')):
        p.write_bytes(blob)
        one = checker.verify(p, {**checker.LIMITS, 'jobs': 1})
        assert one[0] == verdict and checker.verify(p, {**checker.LIMITS, 'jobs': 2}) == one, one


def test_a_range_replays_its_wins_in_several_processes(monkeypatch, tmp_path):
    monkeypatch.setattr(checker, 'SPLIT', 4)
    p, pids = tmp_path / 'range.msgpack.zst', tmp_path / 'pids'
    p.write_bytes(win_range(published_lines(40)))
    replay = checker.replay

    def noted(*args):   # each replay writes its process id to the file
        with open(pids, 'a') as f: f.write(f'{os.getpid()}\n')
        return replay(*args)

    monkeypatch.setattr(checker, 'replay', noted)
    assert checker.verify(p, {**checker.LIMITS, 'jobs': 2})[0] == 'verified'
    seen = pids.read_text().split()
    assert len(seen) == 40 and str(os.getpid()) not in seen and len(set(seen)) >= 2


def test_a_replaying_process_that_dies_is_unreadable(monkeypatch, tmp_path):
    monkeypatch.setattr(checker, 'SPLIT', 2)
    p = tmp_path / 'dies.msgpack.zst'
    p.write_bytes(win_range(published_lines(6)))
    monkeypatch.setattr(checker, 'replay', lambda *args: os._exit(9))
    assert checker.verify(p, {**checker.LIMITS, 'jobs': 2})[:3:2] == ('unreadable', 'a checking process ended early')


# ---- 80 columns ----

def test_help_fits_80_columns():
    code, out, _ = run('--help')
    assert code == 0 and max(map(len, out.splitlines())) <= 80, [x for x in out.splitlines() if len(x) > 80]
    for option in ('--deal', '--claim', '--cells', '--foundation-moves', '--symmetry', '--range', '--memory',
                   '--max-positions', '--range-moves', '--range-positions', 'standard input'):
        assert option in out, option


def test_the_verdict_is_one_line_and_the_digest_another(files):
    code, out, _ = run(files['deal1'])
    lines = out.splitlines()
    assert code == 0 and len(lines) == 2 and lines[0].startswith('VERIFIED: ') and len(lines[1]) == 73


def test_jobs_are_at_most_the_cores(files, monkeypatch, capsys):
    # -j asks for processes; more than the cores this process may run on would only take turns.
    asked = []
    monkeypatch.setattr(checker, 'in_parts', lambda work, shared, count, jobs: asked.append(jobs))
    assert checker.main(['-q', '-j', str(checker.CORES + 5), str(files['deal1'])]) == 0
    assert asked == [checker.CORES]
    started = []
    real = checker.concurrent.futures.ProcessPoolExecutor

    def pool(jobs, *args, **kwargs):
        started.append(jobs)
        return real(jobs, *args, **kwargs)
    monkeypatch.setattr(checker.concurrent.futures, 'ProcessPoolExecutor', pool)
    several = [str(files[name]) for name in ('deal1', 'board', 'fixed', 'fm')]
    assert checker.main(['-q', '-j', str(checker.CORES + 5), *several]) == 0
    assert started in ([], [min(checker.CORES, 4)]) and max(started, default=1) <= checker.CORES
    capsys.readouterr()


def test_a_file_refused_early_is_not_read_on(tmp_path):
    # A sparse file of 64 GiB whose header is refused: one line at once, no digest, not 64 GiB read.
    p = tmp_path / 'sparse.msgpack.zst'
    blob = g.rebuild(t.win('win1'), version=4)
    with open(p, 'wb') as f:
        f.write(blob)
        f.truncate(64 << 30)
    began = __import__('time').monotonic()
    verdict, _, text, digest = checker.verify(p)
    assert (verdict, digest) == ('unreadable', None), text   # (the zeros after the frame: not zstd)
    assert __import__('time').monotonic() - began < 5


def test_quiet_means_quiet_even_for_a_long_check(capsys, monkeypatch):
    """-q prints failures only: no progress line on stderr, however long the check takes (a
    clock that moves on 20 s at each look makes every look a time to print)."""
    from check import checker
    cert = str(ROOT / "certificates" / "11982.msgpack.zst")
    clock = iter(range(0, 1 << 40, 20))
    monkeypatch.setattr(checker.time, "monotonic", lambda: next(clock))
    assert checker.main(["-q", "-j", "1", cert]) == 0
    assert capsys.readouterr() == ("", "")
    assert checker.main(["-j", "1", cert]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("VERIFIED") and "of 61,643 closed" in err
