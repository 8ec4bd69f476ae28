"""Verify FreeCell certificates (*.msgpack.zst), independently: the rules are docs/certificate-format.md.

VERIFIED exits 0; REJECTED (the content fails the check; the first failure is named) 1; UNREADABLE (not a
certificate) 2, as does bad usage. Records and moves count from 1, columns 1..8. Several files or a folder
exit 0 only if every certificate verifies, with one line each and a summary."""
# Read top to bottom: cards and the deal, positions and their moves, the file, the two kinds of
# certificate, the command line. "§n" is section n of the format document. Every line is trusted.
import argparse, functools, hashlib, json, pathlib, re, time

import msgpack, xxhash, zstandard

CELL, FOUNDATION = 8, 9      # destination codes of a win body (§3); 0..7 are columns 1..8
HEADER_ZONE = 64 * 1024      # the header must decode from the first 64 KiB (§3)
CEILING = 4 * 1024 ** 3      # this checker refuses a file that decompresses to more (§5)
CHUNK = 1024                 # compressed bytes per step: zstd inflates 4 bytes to 128 KiB at most
KEYS = {'format', 'version', 'claim', 'deal', 'board', 'cells', 'foundation_moves', 'symmetry', 'count', 'xxh3_64'}


class Unreadable(Exception): pass   # not a readable certificate: exit 2
class Rejected(Exception): pass     # a readable certificate whose content fails the check: exit 1


def integer(x, low, high): return type(x) is int and low <= x <= high   # type(True) is bool, not int


def need(ok, reason, failure=Rejected):
    if not ok:
        raise failure(reason)


# ---- Cards and the deal (§1, §2) ----

def name(card): return 'A23456789TJQK'[card // 4] + 'CDHS'[card % 4]
def red(card): return card % 4 in (1, 2)   # diamonds, hearts


# The two cards each card may go onto: one rank higher, in the other colour (a red 7 on a black 8).
# (A king's would be the non-cards 52..55.)
ONTO = [{(card // 4 + 1) * 4 + suit for suit in range(4) if red(suit) != red(card)} for card in range(52)]


# The eight columns of deal n, bottom card first (§2).
def deal(n):
    # The state starts as n, or n - 2**32 when n >= 2**32: that is n % 2**32.
    state, deck, cols = n % 2**32, list(range(52)), [bytearray() for _ in range(8)]
    for i in range(52):
        state = (state * 214013 + 2531011) % 2**32
        if n < 2**31: r = (state >> 16) & 0x7fff
        elif n < 2**32: r = ((state >> 16) & 0x7fff) | 0x8000
        else: r = ((state >> 16) & 0xffff) + 1
        j = r % len(deck)
        deck[j], deck[-1] = deck[-1], deck[j]   # take deck[j]; the last card fills its place
        cols[i % 8].append(deck.pop())
    return [bytes(col) for col in cols]


# ---- Positions and moves (§1) ----
# A position is (foundations, cells, columns): four counts for C D H S, the cards in the free
# cells, and the eight columns as bytes, bottom card first.

# The cards that foundations with these counts do not hold, ascending.
@functools.lru_cache(maxsize=None)
def off_foundation(found):
    return [card for card in range(52) if card // 4 >= found[card % 4]]


# Why these parts are not a well-formed position (§3, step 4), or None.
def problem(found, cellbytes, cols):
    free = cellbytes.rstrip(b'\xff')
    if max(found) > 13: return 'a foundation count is above 13'
    if b'\xff' in free or list(free) != sorted(set(free)): return 'the cells are not ascending cards, then 0xFF'
    if sorted(free + b''.join(cols)) != off_foundation(bytes(found)): return 'the 52 cards are not each in one place'


# Every legal move from pos, as (card, source, destination) coded like a win body (§1).
def moves(pos, cells, foundation_moves):
    found, free, cols = pos
    # The sources: the top card of a non-empty column, a card in a free cell, and, only if the
    # rules allow it, the top card of a non-empty foundation.
    sources = [(col[-1], c) for c, col in enumerate(cols) if col] + [(card, CELL) for card in free]
    if foundation_moves:
        sources += [((found[s] - 1) * 4 + s, FOUNDATION) for s in range(4) if found[s]]
    for card, source in sources:
        rank, suit = divmod(card, 4)
        # Its foundation, when that holds exactly the ranks below it (not from the foundation).
        if source != FOUNDATION and found[suit] == rank:
            yield card, source, FOUNDATION
        # Another column: an empty one, or one topped by the next rank up in the other colour.
        for c, col in enumerate(cols):
            if c != source and (not col or col[-1] in ONTO[card]):
                yield card, source, c
        # An empty free cell, only from a column (the cells are a set: no cell-to-cell moves).
        if source < 8 and len(free) < cells:
            yield card, source, CELL


# The position after moving card from source to dest.
def play(pos, card, source, dest):
    found, free, cols = list(pos[0]), list(pos[1]), list(pos[2])
    if source < 8: cols[source] = cols[source][:-1]
    elif source == CELL: free.remove(card)
    else: found[card % 4] -= 1
    if dest < 8: cols[dest] += bytes((card,))
    elif dest == CELL: free.append(card)
    else: found[card % 4] += 1
    return found, free, cols


def won(pos): return list(pos[0]) == [13] * 4
def place(code): return {CELL: 'a free cell', FOUNDATION: 'its foundation'}.get(code, f'column {code + 1}')


# A position in words: foundation top cards, cell cards, columns 1..8 bottom to top.
def show(pos):
    found, free, cols = pos
    tops = ' '.join(name((n - 1) * 4 + s) if n else '--' for s, n in enumerate(found))
    columns = ' | '.join(' '.join(map(name, col)) or '-' for col in cols)
    return f'foundations {tops}; cells {" ".join(map(name, sorted(free))) or "-"}; columns {columns}'


# In words, why moving card to dest is not one of moves(pos).
def why_illegal(pos, card, dest, foundation_moves):
    found, free, cols = pos
    rank, suit = divmod(card, 4)
    on_top = [c for c, col in enumerate(cols) if col[-1:] == bytes((card,))]
    source = on_top[0] if on_top else CELL if card in free else FOUNDATION if found[suit] == rank + 1 else None
    if source is None or source == FOUNDATION and not foundation_moves: return f'{name(card)} is not free to move'
    if dest == FOUNDATION: return 'it is on it' if source == FOUNDATION else f'that needs {name(found[suit] * 4 + suit)}'
    if dest == CELL: return 'no free cell is empty' if source < 8 else 'only a column card may go to a free cell'
    return 'it is there' if dest == source else f'column {dest + 1} ends in {name(cols[dest][-1])}'


# ---- The file (§3, §5) ----

# Decompress more of the zstd frame into out, until it holds more than upto bytes or ends.
def inflate(f, d, out, upto):
    while len(out) <= upto and not d.eof:
        chunk = f.read(CHUNK)
        need(chunk, 'the file is empty or its zstd frame is cut short', Unreadable)
        out += d.decompress(chunk)   # a zstandard.ZstdError is caught in verify()


# decode(), with msgpack's errors (format, limits, nesting depth) as one-line reasons.
def unpack(decode, what, failure):
    try:
        return decode()
    except (msgpack.OutOfData, ValueError) as e:   # msgpack's errors: format, limits, nesting, extra data
        why = {msgpack.OutOfData: 'is cut short', msgpack.ExtraData: 'has data after it',
               msgpack.StackError: 'is nested too deeply'}.get(type(e), f'is not valid msgpack ({e})')
        raise failure(f'{what} {why}') from None


# A msgpack map as a dict, refusing repeated keys (a dict would silently keep the last).
def strict_map(pairs):
    need(len({key for key, _ in pairs}) == len(pairs), 'a msgpack map repeats a key', Unreadable)
    return dict(pairs)


# The header map, checked against the table in §3.
def header(h):
    need(type(h) is dict, 'the file does not start with a msgpack map: not a certificate', Unreadable)
    need(set(h) == KEYS, f'the header keys are not exactly: {", ".join(sorted(KEYS))}', Unreadable)
    for key, ok in [('format', h['format'] == 'freecell-certificate'), ('version', integer(h['version'], 1, 1)),
                    ('claim', h['claim'] in ('no-win', 'win')), ('board', h['board'] is None or type(h['board']) is bytes),
                    ('deal', h['deal'] is None or integer(h['deal'], 1, 2**33 - 1)), ('cells', integer(h['cells'], 0, 8)),
                    ('foundation_moves', type(h['foundation_moves']) is bool), ('count', integer(h['count'], 0, 2**32)),
                    ('symmetry', h['symmetry'] in ('columns', 'none')),
                    ('xxh3_64', type(h['xxh3_64']) is str and re.fullmatch('[0-9a-f]{16}', h['xxh3_64']))]:
        need(ok, f'header {key} = {repr(h[key])[:40]} is not allowed (format version 1)', Unreadable)
    need((h['deal'] is None) != (h['board'] is None), 'the header must have exactly one of deal and board', Unreadable)
    return h


# (header, body bytes) of a certificate file, inflating no more than the header allows (§5).
def read(f):
    d, out = zstandard.ZstdDecompressor().decompressobj(), bytearray()
    inflate(f, d, out, HEADER_ZONE)
    unpacker = msgpack.Unpacker(max_buffer_size=HEADER_ZONE, max_array_len=16, max_map_len=16, object_pairs_hook=strict_map)
    unpacker.feed(bytes(out[:HEADER_ZONE]))
    h = header(unpack(unpacker.unpack, 'the header (in the first 64 KiB)', Unreadable))
    # The most body bytes an honest certificate with this header has (§5); W with the widest ids.
    cap = 2 * h['count'] if h['claim'] == 'win' else 64 + h['count'] * (4 + h['cells'] + 8 * 3 + 1 + 8 * 55)
    limit = min(unpacker.tell() + 5 + cap, CEILING)   # 5: the body's own msgpack bin framing
    inflate(f, d, out, limit)
    need(len(out) <= limit, f'the data decompresses to more than {limit} bytes, the most its header allows', Unreadable)
    need(not d.unused_data and not f.read(1), 'there are bytes after the zstd frame', Unreadable)
    body = unpack(lambda: msgpack.unpackb(memoryview(out)[unpacker.tell():], max_bin_len=limit), 'the body', Unreadable)
    need(type(body) is bytes, 'the body is not a msgpack bin', Unreadable)
    return h, body


# ---- The certificates (§2, §3) ----

# The starting position: the numbered deal, or the custom board, checked like a record.
def start(h):
    if h['deal'] is not None:
        return bytes(4), b'', deal(h['deal'])
    board, cells = h['board'], h['cells']
    found, cellbytes, cols = board[:4], board[4:4 + cells], board[4 + cells:].split(b'\xff')
    need(len(board) >= 4 + cells and len(cols) == 9 and not cols.pop(),
         'the board is not four counts, the cells and eight columns each ended by 0xFF')
    need(not problem(found, cellbytes, cols), f'the board is not a position: {problem(found, cellbytes, cols)}')
    return found, cellbytes.rstrip(b'\xff'), cols


# Replay the moves from the start: each must be legal, the last position won (§3).
def check_win(h, body, pos):
    count, foundation_moves = h['count'], h['foundation_moves']
    need(h['symmetry'] == 'none', 'a win certificate must have symmetry "none"')
    need(len(body) == 2 * count, f'the body has {len(body)} bytes, not 2 x count = {2 * count}')
    for n in range(count):
        card, dest = body[2 * n], body[2 * n + 1]
        need(card < 52 and dest < 10, f'move {n + 1}: bytes {card}, {dest} are not a card and a destination')
        legal = {(c, d): s for c, s, d in moves(pos, h['cells'], foundation_moves)}
        if (card, dest) not in legal:
            raise Rejected(f'move {n + 1} ({name(card)} to {place(dest)}) is illegal: '
                           f'{why_illegal(pos, card, dest, foundation_moves)}; before it: {show(pos)}')
        pos = play(pos, card, legal[card, dest], dest)
    need(won(pos), f'after all {count} moves the position is not won: {show(pos)}')


# The count front-coded records of data, strictly ascending, no bytes left over (§3).
def unfront(data, count, W):
    records, prev, i = [], b'', 0
    while i < len(data):
        n, p = len(records) + 1, data[i]
        need(p < W and (n > 1 or p == 0), f'records: record {n} says it shares {p} bytes with the one before')
        rec = prev[:p] + data[i + 1:i + 1 + W - p]
        need(len(rec) == W, f'records: record {n} is cut short')
        need(n == 1 or rec > prev, f'records: record {n} does not sort strictly after record {n - 1}')
        # p is the whole shared prefix, so the byte after it differs (the writer is deterministic).
        need(n == 1 or rec[p] != prev[p], f'records: record {n} shares more than its stated {p} bytes with the one before')
        records.append(rec)
        prev, i = rec, i + 1 + W - p
    need(len(records) == count, f'records: there are {len(records)} records, not count = {count}')
    return records


# Steps 2 to 7 of "What a checker verifies (no-win)" (§3).
def check_nowin(h, body, begin):
    cells, foundation_moves, sort_ids = h['cells'], h['foundation_moves'], h['symmetry'] == 'columns'
    # An honest table has at most 2**24 entries (3-byte ids), each at least one body byte.
    value = unpack(lambda: msgpack.unpackb(body, max_bin_len=len(body), max_array_len=min(len(body), 2**24),
                                           max_str_len=0, max_map_len=0, max_ext_len=0), 'the body', Rejected)
    need(type(value) is list and len(value) == 2 and type(value[0]) is list and type(value[1]) is bytes
         and all(type(col) is bytes for col in value[0]), 'the body is not [column table, records]: bins, then a bin')
    table, data = value
    for i, col in enumerate(table):                                                          # step 2
        need(len(col) <= 52 and max(col, default=0) < 52, f'column table entry {i} ({col.hex()}) is not cards')
        need(i == 0 or table[i - 1] < col, f'column table entry {i} ({col.hex()}) does not sort after entry {i - 1}')
    w = 2 if len(table) <= 65536 else 3
    W = 4 + cells + 8 * w
    records = unfront(data, h['count'], W)                                                   # step 3
    known, index = set(records), {col: i.to_bytes(w, 'big') for i, col in enumerate(table)}

    def encode(found, free, cols):   # the canonical record; None if a column is not in the table
        ids = [index.get(col) for col in cols]
        if None not in ids:   # fixed-width big-endian ids sort like their numbers
            return bytes(found) + bytes(sorted(free)) + b'\xff' * (cells - len(free)) + b''.join(
                sorted(ids) if sort_ids else ids)

    need(encode(*begin) in known, f'the starting position ({show(begin)}) is not one of the records')  # step 5
    # Steps 4, 6 and 7 in one pass: a position lives only while its record is checked, so the
    # memory needed is the records themselves. (Membership needs only the bytes in `known`.)
    used = set()
    for n, rec in enumerate(records, 1):
        ids = [int.from_bytes(rec[i:i + w], 'big') for i in range(4 + cells, W, w)]                    # step 4
        cols = [table[i] for i in ids] if max(ids) < len(table) else None
        why = ('a column id is beyond the table' if cols is None else
               'its column ids are not ascending' if sort_ids and ids != sorted(ids) else
               problem(rec[:4], rec[4:4 + cells], cols))
        if why:
            raise Rejected(f'record {n} ({rec.hex()}) is not a well-formed position: {why}')
        used.update(ids)
        pos = (rec[:4], rec[4:4 + cells].rstrip(b'\xff'), cols)
        if won(pos):                                                                                    # step 6
            raise Rejected(f'record {n} ({show(pos)}) is won')
        for card, source, dest in moves(pos, cells, foundation_moves):                                  # step 7
            if encode(*play(pos, card, source, dest)) not in known:
                raise Rejected(f'record {n} ({show(pos)}): moving {name(card)} from {place(source)}'
                               f' to {place(dest)} gives a position not in the certificate')
    # Stricter than soundness needs, for one certificate per theorem: the table holds no unused column.
    need(len(used) == len(table), f'column table entry {min(set(range(len(table))) - used, default=0)} is unused')


# (verdict, header or {}, the theorem or the reason it fails, sha256 of the file).
def verify(path):
    h, digest = {}, None
    try:
        with open(path, 'rb') as f:
            digest = hashlib.file_digest(f, 'sha256').hexdigest()
            f.seek(0)
            h, body = read(f)
        need(xxhash.xxh3_64_hexdigest(body) == h['xxh3_64'], 'the body does not match its xxh3_64: the file is corrupt')
        (check_win if h['claim'] == 'win' else check_nowin)(h, body, start(h))
        return 'verified', h, theorem(h, path), digest
    except (Rejected, Unreadable) as e:
        return ('rejected' if type(e) is Rejected else 'unreadable'), h, str(e), digest
    except zstandard.ZstdError as e:
        return 'unreadable', h, f'not a valid zstd frame ({e})', digest
    except OSError as e:
        return 'unreadable', h, f'cannot read {path}: {e.strerror or e}', digest


# ---- The command line ----

def theorem(h, path):
    who = f'Microsoft FreeCell deal {h["deal"]}' if h['deal'] is not None else f'the layout in {path}'
    off = 'moves off foundations allowed' if h['foundation_moves'] else 'no moves off foundations'
    return (f'{who} ({h["cells"]} free cell{"" if h["cells"] == 1 else "s"}, single-card moves, {off}) ' +
            (f'can be won: {h["count"]} single-card moves replay to a won position' if h['claim'] == 'win' else
             f'cannot be won: {h["count"]} positions closed under every legal move, none won'))


def main(argv=None):
    parser = argparse.ArgumentParser('check', description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('paths', nargs='+', type=pathlib.Path, help='certificates, or folders: each *.msgpack.zst in them')
    parser.add_argument('--json', action='store_true', help='print one JSON object per certificate')
    parser.add_argument('-q', '--quiet', action='store_true', help='print only failures')
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:      # --help and usage errors: argparse has printed; 0 or 2
        return e.code
    paths = [f for p in args.paths for f in (sorted(p.glob('*.msgpack.zst')) if p.is_dir() else [p])]
    several, verdicts = len(args.paths) > 1 or any(p.is_dir() for p in args.paths), []
    for path in paths:
        began = time.perf_counter()
        try:
            verdict, h, text, digest = verify(path)
        except Exception as e:   # the last guard: an unforeseen failure is a one-line verdict, not a traceback
            verdict, h, text, digest = 'unreadable', {}, f'internal error: {type(e).__name__}: {e}', None
        verdicts.append(verdict)
        if args.json:
            fields = {k: h.get(k) for k in ('claim', 'deal', 'cells', 'foundation_moves', 'symmetry', 'count')}
            print(json.dumps({'path': str(path), 'verdict': verdict, **fields, 'sha256': digest, 'seconds':
                              round(time.perf_counter() - began, 3), 'reason': None if verdict == 'verified' else text}))
        elif verdict != 'verified' or not args.quiet:
            line = f'{verdict.upper()}: {text}' + (f'. sha256 {digest}' if verdict == 'verified' else '')
            print(f'{path.name}: {line}' if several else line)
    n, ok, bad = len(verdicts), verdicts.count('verified'), verdicts.count('unreadable')
    if several and not args.json and not args.quiet:
        print(f'{n} certificates: {ok} verified, {n - ok} rejected' + (f' ({bad} unreadable)' if bad else ''))
    return 0 if n and ok == n else 1 if n and not bad else 2   # 2 also for folders without certificates
