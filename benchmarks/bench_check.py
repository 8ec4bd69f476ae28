"""Benchmark check/ on hostile files, on version 2 copies of the published certificates, and on ranges.

    python3 benchmarks/bench_check.py hostile             # each hostile file of the hardening review: verdict, seconds, peak MiB
    python3 benchmarks/bench_check.py published [FILE...] # certificates/ (or FILEs) as they are, then rebuilt as
                                                          # version 2; each with -j 1 and with check's default
    python3 benchmarks/bench_check.py range FOLDER A B    # a range certificate (version 3) of deals A..B built
                                                          # from FOLDER's single certificates A.msgpack.zst to
                                                          # B.msgpack.zst, then checked
    python3 benchmarks/bench_check.py compare [--runs N] [--before COMMIT] FILE...
                                                          # check/ of today beside check/ of COMMIT (c311067,
                                                          # before the records were held flat), each run N
                                                          # times (5) alternately on each FILE: medians of
                                                          # wall and CPU seconds and of peak MiB, -j 1 and
                                                          # -j 2 for today's (one file split in two); a
                                                          # version 3 FILE (a range too) is rebuilt as
                                                          # version 2 for all, and today's -j 1 also
                                                          # checks it as it is
    python3 benchmarks/bench_check.py padded-range [--before COMMIT] [N]
                                                          # the first N (17,500: under 1 MB) deals of
                                                          # 1-32000.msgpack.zst, each true win padded with
                                                          # moves in a circle, to the range's default total
                                                          # by its deals and to just under its total by its
                                                          # bytes: size, verdict, time (and COMMIT's check)
    python3 benchmarks/bench_check.py --json ...          # any of these: one JSON object a line per figure
                                                          # (benchmarks/report.py) instead of the lines

Every check runs as its own process (`python -m check`); its seconds are wall time and its peak is the
process's own maximum resident set (os.wait4), so the figures need nothing else installed. The files are
written by tests/support/certgen.py (the test-side writer) into a scratch folder and removed afterwards. The
targets (the hardening review): every hostile file refused within 10 s and 500 MB, without a traceback.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / 'tests'))
from support import certgen as g  # noqa: E402  (tests/support/certgen.py)
import msgpack  # noqa: E402
import zstandard  # noqa: E402
from report import Report, figure  # noqa: E402


def run_child(*args, command=None):
    """(exit code, wall seconds, peak MiB, first output line) of `python -m check ARGS` (or of `command ARGS`)
    in its own process; os.wait4 gives that process's own peak resident memory."""
    return run_measured(*args, command=command)[:4]


def run_measured(*args, command=None):
    """run_child's figures, and the CPU seconds (user + system) of the process and the children it waited for
    (os.wait4 reports the process's own; the children it forks are added from RUSAGE_CHILDREN's growth)."""
    began, before = time.monotonic(), __import__('resource').getrusage(__import__('resource').RUSAGE_CHILDREN)
    child = subprocess.Popen([*(command or [sys.executable, '-m', 'check']), *map(str, args)], cwd=ROOT,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    output = child.stdout.read().decode(errors='replace')
    _, status, usage = os.wait4(child.pid, 0)
    code = os.waitstatus_to_exitcode(status)
    after = __import__('resource').getrusage(__import__('resource').RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return (code, time.monotonic() - began, usage.ru_maxrss / 1024, output.splitlines()[0][:150] if output else '',
            cpu)


def compare(argv, report):
    """check/ of today beside check/ of an earlier commit, run alternately on each file: medians."""
    import statistics
    runs, before, files = 5, 'c311067', []
    while argv:
        arg = argv.pop(0)
        if arg == '--runs':
            runs = int(argv.pop(0))
        elif arg == '--before':
            before = argv.pop(0)
        else:
            files.append(Path(arg))
    old = Path(tempfile.mkdtemp(prefix='bench-check-before-'))
    try:
        (old / 'old_checker.py').write_text(subprocess.run(['git', 'show', f'{before}:check/checker.py'], cwd=ROOT,
                                                           capture_output=True, text=True, check=True).stdout)
        old_command = [sys.executable, '-c', f'import sys; sys.path.insert(0, {str(old)!r}); import old_checker; '
                                             'sys.exit(old_checker.main(sys.argv[1:]))']
        kinds = [(f'check of {before}, -j 1', old_command, ['-j', 1]), ('check of today, -j 1', None, ['-j', 1]),
                 ('check of today, -j 2', None, ['-j', 2])]
        published = 'check of today, -j 1, as published (version 3)'
        options_of = {label: options for label, _, options in kinds} | {published: ['-j', 1]}
        report.text(f'{runs} runs of each, alternately; load average {os.getloadavg()[0]:.1f} at the start')
        for f in files or [ROOT / 'certificates' / '11982.msgpack.zst', ROOT / 'certificates' / '7484159.msgpack.zst']:
            here = [(label, command, options, f) for label, command, options in kinds]
            if g.unpack_file(f.read_bytes())[0]['version'] == 3:   # (older checkers read versions 1 and 2 only)
                copy = old / f.name
                copy.write_bytes(as_version2(f.read_bytes()))
                report.text(f'{f.name}: version 3, rebuilt as version 2 for every checker (the same proof), '
                            'and checked as published (version 3) by today\'s')
                here = [(label, command, options, copy) for label, command, options, _ in here]
                here.append((published, None, ['-j', 1], f))
            figures = {label: [] for label, *_ in here}
            for _ in range(runs):
                for label, command, options, path in here:
                    code, seconds, peak, line, cpu = run_measured('-q', *options, path, command=command)
                    assert code == 0, (label, path, line)
                    figures[label].append((seconds, cpu, peak))
            medians = {label: [statistics.median(x[i] for x in got) for i in range(3)]
                       for label, got in figures.items()}
            earlier = kinds[0][0]
            for label, got in figures.items():
                wall, cpu, peak = medians[label]
                said = f'{label}: check -q {" ".join(map(str, options_of[label]))} {f.name}'

                def beside(i):   # today's figure beside the earlier commit's (which has none itself)
                    if label == earlier:
                        return {}
                    return dict(versus=f'{earlier}: check -q -j 1 {f.name}', versus_value=medians[earlier][i],
                                ratio=medians[label][i] / medians[earlier][i])
                report.line(f'{f.name}: {label}: median {wall:.2f} s wall, {cpu:.2f} s CPU, peak {peak:.0f} MiB '
                            f'(wall {min(x[0] for x in got):.2f}..{max(x[0] for x in got):.2f})',
                            figure('check wall', wall, 's', said, runs, file=f.name, **beside(0)),
                            figure('check CPU', cpu, 's', said, runs, file=f.name, **beside(1)),
                            figure('check peak memory', peak, 'MiB', said, runs, file=f.name, **beside(2)))
    finally:
        shutil.rmtree(old, ignore_errors=True)


def padded_range(argv, report):
    """The first N (17,500) entries of certificates/1-32000.msgpack.zst (version 3), each true win line
    padded before its last move with its card going to an empty column and back: to the range's default
    total by its deals (250 a deal), and to just under its default total by its bytes (--byte-moves a
    byte); each checked by check/ as it is and, with --before COMMIT, by check/ of that commit."""
    sys.path.insert(0, str(ROOT))
    from check import checker
    before, rest = None, []
    while argv:
        arg = argv.pop(0)
        if arg == '--before':
            before = argv.pop(0)
        else:
            rest.append(arg)
    n = int(rest[0]) if rest else 17500
    _, entries = g.unpack_range((ROOT / 'certificates' / '1-32000.msgpack.zst').read_bytes())
    entries = entries[:n]
    folder = Path(tempfile.mkdtemp(prefix='bench-check-padded-'))
    commands = [('check of today', None)]
    if before:
        (folder / 'old_checker.py').write_text(subprocess.run(['git', 'show', f'{before}:check/checker.py'], cwd=ROOT,
                                                              capture_output=True, text=True, check=True).stdout)
        commands.append((f'check of {before}', [sys.executable, '-c', f'import sys; sys.path.insert(0, {str(folder)!r}); '
                                                'import old_checker; sys.exit(old_checker.main(sys.argv[1:]))']))
    try:
        wins = sum(e[1] == 'win' for e in entries)
        lines = {e[0]: e[3][0] for e in entries if e[1] == 'win'}
        by_deals = checker.LIMITS['range-moves'] * n + checker.LIMITS['moves']
        honest = g.range_file(1, [g.entry(d, c, k, b''.join(msgpack.packb(v) for v in body), version=3)
                                  for d, c, k, body in entries], level=19, version=3)
        # (the padding costs a few bytes a deal: the padded file is about 4% larger than the honest one)
        by_bytes = int(checker.LIMITS['byte-moves'] * len(honest) * 1.035)
        for label, most in (('padded to 250 a deal', by_deals), ('padded to just under 4 a byte', by_bytes)):
            spare = most - sum(e[2] for e in entries if e[1] == 'win')
            built = []
            for deal, claim, count, body in entries:
                values = b''.join(msgpack.packb(v) for v in body)
                if claim == 'win':
                    add = max(0, min(spare, most // wins - count, checker.LIMITS['moves'] - count)) // 2 * 2
                    line = padded_indices(checker, deal, lines[deal], add)
                    spare -= len(line) - count
                    count, values = len(line), msgpack.packb(line)
                built.append(g.entry(deal, claim, count, values, version=3))
            path = folder / f'padded-{n}.msgpack.zst'
            path.write_bytes(g.range_file(1, built, level=19, version=3))
            moves = most - spare
            size = path.stat().st_size
            report.line(f'{label}: {n:,} deals, {moves:,} moves ({moves / n:.0f} a deal, {moves / size:.1f} '
                        f'a byte), {size:,} bytes',
                        figure('padded range', size, 'bytes', f'tests/support/certgen.py range_file ({label})', deals=n,
                               moves=moves, padding=label))
            for name, command in commands:
                code, seconds, peak, line, cpu = run_measured('-j', 1, path, command=command)
                said = f'{name}: check -j 1 {path.name} ({label})'
                about = dict(deals=n, padding=label, exit=code)
                report.line(f'  {name}: exit {code}, {seconds:.2f} s wall, {cpu:.2f} s CPU, peak {peak:.0f} MiB\n'
                            f'    {line[:150]}',
                            figure('check wall', seconds, 's', said, **about),
                            figure('check CPU', cpu, 's', said, **about),
                            figure('check peak memory', peak, 'MiB', said, **about))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def padded_indices(checker, deal, line, extra):
    """Deal's version 3 win line (move indices) with `extra` (even) more legal moves: before its last
    move, its card goes to an empty column and back, again and again (the same two positions each time
    round). Unchanged if no column is empty there."""
    found, free, cols = bytes(4), b'', checker.deal(deal)
    for i in line[:-1]:
        found, free, cols = checker.after(found, free, cols, *list(checker.moves(found, free, cols, 4, False))[i])
    legal = list(checker.moves(found, free, cols, 4, False))
    card, home, _ = legal[line[-1]]
    away = [c for c, col in enumerate(cols) if not col and c != home]
    if not away or extra == 0:
        return bytes(line)
    there = [k for k, (c, _, d) in enumerate(legal) if (c, d) == (card, away[0])][0]
    moved = checker.after(found, free, cols, card, home, away[0])
    back = [k for k, (c, _, d) in enumerate(checker.moves(*moved, 4, False)) if (c, d) == (card, home)][0]
    return bytes(line[:-1]) + bytes([there, back]) * (extra // 2) + bytes(line[-1:])


def frame(data, level=3):
    return zstandard.ZstdCompressor(level=level, write_content_size=True).compress(data)


def streamed(head, size, pattern=b'\x00', tail=b''):
    """A zstd frame of head, then size bytes of a repeated pattern, then tail, compressed as it is built."""
    out = zstandard.ZstdCompressor(level=3).compressobj(size=len(head) + size + len(tail))
    chunk = pattern * ((1 << 20) // len(pattern))
    parts = [out.compress(head)]
    for _ in range(size // len(chunk)):
        parts.append(out.compress(chunk))
    parts.append(out.compress((pattern * (size % len(chunk) // len(pattern) + 1))[:size % len(chunk)]))
    parts.append(out.compress(tail))
    parts.append(out.flush())
    return b''.join(parts)


def closed_junk():
    """3,932,160 distinct, ascending, well-formed records (every card in a column, none on a foundation), every
    column of the table used, not closed under the moves and not holding the deal: the most a file within the
    default limits can make the checker read before it refuses it."""
    import itertools
    deck = list(range(52))
    slots = [deck[i * 6:(i + 1) * 6] for i in range(7)] + [deck[42:]]   # eight card sets (the last of 10)
    orders = [sorted(bytes(p) for p in itertools.islice(itertools.permutations(cards), k))
              for cards, k in zip(slots, (8, 8, 8, 8, 8, 8, 5, 3))]
    table = sorted(c for slot in orders for c in slot)
    index = {c: i.to_bytes(2, 'big') for i, c in enumerate(table)}
    head = bytes(4) + b'\xff' * 4
    recs = sorted(head + b''.join(sorted(index[c] for c in choice)) for choice in itertools.product(*orders))
    return table, recs


def hostile(folder):
    """name -> (path, what it is): the hostile files of the hardening review, and the worst a file within the limits asks."""
    files = {}

    def put(name, blob, what):
        (folder / name).write_bytes(blob)
        files[name] = (folder / name, what)

    win_head = g.header('win', 3, b'\x00' * 6, board=g.board_bytes(g.WIN0, 0), cells=0, symmetry='none')
    for count in (10_000_000, 40_000_000):
        h = g.header('no-win', count, b'', deal=1)
        body = b'\xc6\x00\x10\x00\x00\x92\x90\xc6\x00\x10\x00\x00' + bytes(4096)
        put(f'record-bomb-{count // 10**6}M.msgpack.zst', frame(msgpack.packb(h) + body, 19),
            f'declares {count:,} front-coded records (finding 1)')
    put('zstd-bomb-1GiB.msgpack.zst', streamed(msgpack.packb(win_head) + b'\xc6\x40\x00\x00\x00', 1 << 30),
        'a 3-move win whose body is 1 GiB of zeros (finding 2)')
    put('zstd-bomb-after-body.msgpack.zst', streamed(msgpack.packb(win_head) + msgpack.packb(bytes(6)), 1 << 30),
        'a 6-byte body, then 1 GiB more (finding 2)')
    count = 4_000_000
    h = g.header('no-win', count, b'', deal=1, version=2)
    put('planes-of-zeros-4M.msgpack.zst', streamed(msgpack.packb(h) + b'\xc6' + (count * 24 + 9).to_bytes(4, 'big') +
                                                   b'\x92\x91\xc4\x00\xc6' + (count * 24).to_bytes(4, 'big'), count * 24),
        'version 2, 4,000,000 records (the limit) of zeros, within every size bound (finding 2)')
    h = g.header('no-win', count, b'', deal=1)
    put('front-coded-zeros-4M.msgpack.zst', streamed(msgpack.packb(h) + b'\xc6' + (count * 25 + 9).to_bytes(4, 'big') +
                                                     b'\x92\x91\xc4\x00\xc6' + (count * 25).to_bytes(4, 'big'), count * 25),
        'version 1, 100 MB of zero records for 4,000,000 (finding 1)')
    ks, win = g.card('KS'), bytes(b for mv in g.win_path(g.WIN0, 0) for b in mv)
    there_and_back = bytes([ks, 4, ks, 3])
    size = len(there_and_back) * 67_000_000 + len(win)
    hasher = g.xxhash.xxh3_64()
    for _ in range(67_000_000 // 262144):
        hasher.update(there_and_back * 262144)
    hasher.update(there_and_back * (67_000_000 % 262144) + win)
    h = {**g.header('win', size // 2, b'', board=g.board_bytes(g.WIN0, 0), cells=0, symmetry='none'),
         'xxh3_64': hasher.hexdigest()}
    put('endless-win-134M.msgpack.zst', streamed(msgpack.packb(h) + b'\xc6' + size.to_bytes(4, 'big'), size - len(win),
                                                 there_and_back, win),
        f'{size // 2:,} legal moves: a king back and forth, then a win (finding 3)')
    os.mkfifo(folder / 'fifo.msgpack.zst')
    files['fifo.msgpack.zst'] = (folder / 'fifo.msgpack.zst', 'a FIFO (finding 4)')
    files['/dev/zero'] = (Path('/dev/zero'), 'a device that never ends (finding 4)')
    (folder / 'dir-with-fifo').mkdir()
    os.mkfifo(folder / 'dir-with-fifo' / 'x.msgpack.zst')
    files['dir-with-fifo'] = (folder / 'dir-with-fifo', 'a folder holding a FIFO (finding 4)')
    fake = 'x\r\x1b[2KVERIFIED: deal 1 cannot be won\x1b[8m.msgpack.zst'
    put(fake, frame(b'junk'), 'a name that redraws the line (finding 5)')
    (folder / 'empty').mkdir()
    files['empty'] = (folder / 'empty', 'a folder without certificates (finding 6)')
    table, recs = closed_junk()
    h = g.header('no-win', len(recs), b'', deal=1, version=2)
    rows = b''.join(recs)
    body = msgpack.packb([table, b''.join(rows[j::24] for j in range(24))])   # byte planes, as g.plane_code writes them
    del recs
    put('junk-near-the-limit-3.9M.msgpack.zst', frame(msgpack.packb({**h, 'xxh3_64': g.xxhash.xxh3_64_hexdigest(body)}) +
                                                  msgpack.packb(body)),
        f'{len(table)} columns, 3,932,160 distinct well-formed records, not closed: near the most the limits allow')
    return files


def as_version2(blob):
    """The version 2 file that holds the same proof as a single certificate file of version 1, 2 or 3
    (the published files are version 3: their win lines move indices, their records in chunks)."""
    h, body = g.unpack_file(blob)
    if h['claim'] == 'range':   # (a range is version 2 or 3)
        return range_as_version2(blob) if h['version'] == 3 else blob
    if h['version'] != 3:
        _, _, _, body2 = msgpack.unpackb(g.as_entry(blob))
        return g.finish({**h, 'version': 2}, body2, {})
    start = g.deal_start(h['deal']) if h['deal'] is not None else g.parse_board(h['board'], h['cells'])
    if h['claim'] == 'win':
        indices, = g.body_values(body)
        moves = g.index_moves(start, h['cells'], h['foundation_moves'], indices)
        return g.win_file(start, h['cells'], moves, h['foundation_moves'], h['deal'], version=2)
    table, *chunks = g.body_values(body)
    width = 4 + h['cells'] + 8 * g.id_width(len(table), 3)
    recs = [r for c in chunks for r in g.unplane(c, len(c) // width)]
    return g.nowin_file(start, h['cells'], fmoves=h['foundation_moves'], symmetry=h['symmetry'], deal=h['deal'],
                        parts=(table, recs), version=2)


def range_as_version2(blob):
    """The version 2 range certificate of the same proofs as a version 3 one: each win line as its
    (card, destination) moves, each no-win's records as one bin of byte planes."""
    sys.path.insert(0, str(ROOT))   # (check's move order names the moves: far faster than certgen's oracle,
    from check import checker       # and the checker of the earlier commit replays them again as its own)
    h, entries = g.unpack_range(blob)
    rules = dict(cells=h['cells'], foundation_moves=h['foundation_moves'], symmetry=h['symmetry'])
    out = []
    for deal, claim, count, values in entries:
        if claim == 'win':
            position, body = (bytes(4), b'', checker.deal(deal)), bytearray()
            for i in values[0]:
                card, source, dest = list(checker.moves(*position, h['cells'], h['foundation_moves']))[i]
                position = checker.after(*position, card, source, dest)
                body += bytes([card, dest])
        else:
            table, *chunks = values
            width = 4 + h['cells'] + 8 * g.id_width(len(table), 3)
            recs = [r for c in chunks for r in g.unplane(c, len(c) // width)]
            body = g.nowin_body((table, recs), version=2)
        out.append(g.entry(deal, claim, count, bytes(body), version=2))
    return g.range_file(h['first'], out, level=9, version=2, **rules)


def build(what, folder, args):
    """Write the files of one benchmark into folder: (name, path, what it is) for each."""
    if what == 'hostile':
        return [(name, str(path), about) for name, (path, about) in hostile(folder).items()]
    if what == 'published':   # the same proofs as version 2 single certificates
        out = []
        for f in [Path(a) for a in args] or sorted((ROOT / 'certificates').glob('*.msgpack.zst')):
            (folder / f.name).write_bytes(as_version2(f.read_bytes()))
            out.append((f.name, str(f), 'as published'))
        return out
    if what == 'range':
        census, first, last = Path(args[0]), int(args[1]), int(args[2])
        entries = [g.as_entry((census / f'{n}.msgpack.zst').read_bytes(), version=3) for n in range(first, last + 1)]
        path = folder / f'{first}-{last}.msgpack.zst'
        path.write_bytes(g.range_file(first, entries, level=19, version=3))
        return [(path.name, str(path), f'deals {first}..{last}')]
    sys.exit(__doc__)


def main(argv):
    if {'-h', '--help'} & set(argv):
        print(__doc__)
        return
    report = Report('bench_check', '--json' in argv)
    argv = [arg for arg in argv if arg != '--json']
    what, args = (argv[0] if argv else 'hostile'), argv[1:]
    if what not in ('hostile', 'published', 'range', 'compare', 'padded-range', 'build'):
        print(f'bench_check: no benchmark {what!r}\n{__doc__}', file=sys.stderr)
        sys.exit(2)
    if what == 'compare':
        return compare(args, report)
    if what == 'padded-range':
        return padded_range(args, report)
    if what == 'build':   # (run in a process of its own, so that each check forks from a small process)
        print(json.dumps(build(args[0], Path(args[1]), args[2:])))
        return
    scratch = Path(tempfile.mkdtemp(prefix='bench-check-'))
    try:
        built = json.loads(subprocess.run([sys.executable, __file__, 'build', what, scratch, *args], capture_output=True,
                                          text=True, check=True).stdout)
        if what == 'hostile':
            for name, path, about in built:
                code, seconds, peak, line = run_child(path)
                said = f'check {name}'
                report.line(f'{name[:40]!r:44} exit {code}  {seconds:6.2f} s  {peak:7.1f} MiB  {about}\n      {line}',
                            figure('refused in', seconds, 's', said, file=name, exit=code, what=about),
                            figure('peak memory', peak, 'MiB', said, file=name, exit=code, what=about))
        elif what == 'published':
            for label, targets in (('as published', [path for _, path, _ in built] if args else [ROOT / 'certificates']),
                                   ('rebuilt as version 2', [scratch])):
                for jobs in (1, len(os.sched_getaffinity(0))):   # one file at a time, then check's default
                    code, seconds, peak, line = run_child('-j', jobs, *targets)
                    said = f'check -j {jobs} ({label}: {len(built)} files)'
                    about = dict(files=len(built), exit=code, jobs=jobs, copy=label)
                    report.line(f'{label}, check -j {jobs}: {len(built)} files, exit {code}, {seconds:.1f} s, '
                                f'peak {peak:.0f} MiB (its largest process)',
                                figure('check wall', seconds, 's', said, **about),
                                figure('check peak memory', peak, 'MiB', said, **about))
        else:
            (name, path, about), = built
            first, last = int(args[1]), int(args[2])
            code, seconds, peak, line = run_child(path)
            size, deals = Path(path).stat().st_size, last - first + 1
            said = f'check {first}-{last}.msgpack.zst'
            about = dict(first=first, last=last, exit=code)
            report.line(f'range {first}..{last}: {size:,} bytes, exit {code}, {seconds:.2f} s, peak {peak:.0f} MiB,'
                        f' {seconds / deals * 1000:.3f} ms a deal\n  {line[:140]}',
                        figure('range file', size, 'bytes', 'tests/support/certgen.py range_file', **about),
                        figure('check wall', seconds, 's', said, **about),
                        figure('check a deal', seconds / deals * 1000, 'ms', said, **about),
                        figure('check peak memory', peak, 'MiB', said, **about))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == '__main__':
    main(sys.argv[1:])
