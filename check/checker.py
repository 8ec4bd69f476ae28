"""Verify FreeCell certificates (*.msgpack.zst), independently: the rules are docs/certificate-format.md.

VERIFIED exits 0, REJECTED 1 (its first failure named), UNREADABLE 2: not a certificate, or more work than a limit
allows. Records, moves, entries count from 1, columns 1..8. Several files or folders: a line each, a summary."""
# Read top to bottom: cards and the deal, positions and their moves, the file, the certificates, the
# command line. "§n" is section n of the format document. Every line is trusted.
import argparse, concurrent.futures, contextlib, functools, hashlib, importlib.metadata, itertools, json, os, pathlib, shutil, stat, struct, sys, time

import msgpack, xxhash, zstandard

CELL, FOUNDATION = 8, 9      # destination codes of a win body (§3); 0..7 are columns 1..8
CEILING = 4 * 1024 ** 3      # this checker refuses a file that is, or decompresses to, more (§5)
# The default limits on one certificate, or one entry of a range (§5): the largest published no-win has
# 2,449,032 positions and a column table of 844 entries; honest wins have a few hundred moves.
LIMITS = {'positions': 4_000_000, 'columns': 1_000_000, 'moves': 100_000}
KEYS = {'format', 'version', 'claim', 'deal', 'board', 'cells', 'foundation_moves', 'symmetry', 'count', 'xxh3_64'}
RANGE_KEYS = KEYS - {'deal', 'board'} | {'first', 'last'}


class Unreadable(Exception): pass   # not a readable certificate, or more work than the limits allow: exit 2
class Rejected(Exception): pass     # a readable certificate whose content fails the check: exit 1


def integer(x, low, high): return type(x) is int and low <= x <= high   # type(True) is bool, not int


def need(ok, reason, failure=Rejected):   # (returns None, so `need(...) or x` is x)
    if not ok: raise failure(reason)


def within(n, key, limits): need(n <= limits[key], f'{n:,} {key}: more than --max-{key} {limits[key]:,}', Unreadable)


# ---- Cards and the deal (§1, §2) ----

def name(card): return 'A23456789TJQK'[card // 4] + 'CDHS'[card % 4]
def red(card): return card % 4 in (1, 2)   # diamonds, hearts


# The two cards that may go onto each card: one rank lower, in the other colour (a red 7 on a black 8).
GOES_ON = [[card - 4 - card % 4 + suit for suit in range(4) if card > 3 and red(suit) != red(card)] for card in range(52)]
# PAD: a record's empty cells; WON: the foundations of a won position, all 52 cards on them.
BYTE, PAD, WON = [bytes((b,)) for b in range(256)], [b'\xff' * n for n in range(9)], bytes([13] * 4)


# The eight columns of deal n, bottom card first (§2).
def deal(n):
    # The state starts as n, or n - 2**32 when n >= 2**32: that is n % 2**32.
    state, deck, cols = n % 2**32, list(range(52)), [bytearray() for _ in range(8)]
    for i in range(52):
        state = (state * 214013 + 2531011) % 2**32
        j = (((state >> 16) & 0xffff) + 1 if n >= 2**32 else ((state >> 16) & 0x7fff) | 0x8000 * (n >= 2**31)) % len(deck)
        deck[j], deck[-1] = deck[-1], deck[j]   # take deck[j]; the last card fills its place
        cols[i % 8].append(deck.pop())
    return [bytes(col) for col in cols]


# ---- Positions and moves (§1) ----
# A position is four foundation counts for C D H S, the cards in the free cells, and the eight
# columns, bottom card first (all bytes).

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


# Every legal move from a position, as (card, source, destination) coded like a win body (§1).
def moves(found, free, cols, cells, foundation_moves):
    # The cards free to move, and where each is: the top card of a non-empty column, a card in a free
    # cell, and, only if the rules allow it, the top card of a non-empty foundation.
    source = {col[-1]: c for c, col in enumerate(cols) if col} | dict.fromkeys(free, CELL)
    if foundation_moves: source.update(((n - 1) * 4 + suit, FOUNDATION) for suit, n in enumerate(found) if n)
    # To its foundation: the next card of each suit, if it is free (and not on that foundation already).
    # Onto a column: any free card if it is empty, else a card that goes on its top card. (Never from the
    # column itself: its top card does not go on itself.) To an empty free cell: only from a column (the
    # cells are a set: no cell-to-cell moves).
    return ([(card, source[card], FOUNDATION) for card in [n * 4 + suit for suit, n in enumerate(found)]
             if source.get(card, FOUNDATION) != FOUNDATION] +
            [(card, source[card], dest) for dest, col in enumerate(cols) for card in (GOES_ON[col[-1]] if col else source)
             if card in source] +
            [(card, place, CELL) for card, place in source.items() if place < 8 and len(free) < cells])


# Why moving card from source (the place it is in) to dest is not a legal move (§1), or None: the rules as
# one test, for replaying a win.
def illegal(found, free, cols, card, source, dest, rules):
    # Free to move: the top card of a column, a card in a cell, or (if the rules allow it) a foundation's top card.
    rank, suit, cells, foundation_moves = card // 4, card % 4, rules['cells'], rules['foundation_moves']
    if not (cols[source][-1] == card if source < 8 else source == CELL or foundation_moves and found[suit] == rank + 1):
        return f'{name(card)} is not free to move'
    if dest == CELL and source >= 8: return 'only a column card may go to a free cell'   # (the cells are a set)
    if dest == source: return 'it is on it' if dest == FOUNDATION else 'it is there'
    if dest == FOUNDATION and found[suit] != rank: return f'that needs {name(found[suit] * 4 + suit)}'
    if dest == CELL and len(free) >= cells: return 'no free cell is empty'
    if dest < 8 and cols[dest] and card not in GOES_ON[cols[dest][-1]]:
        return f'column {dest + 1} ends in {name(cols[dest][-1])}'


# The position after moving card from source to dest: only the two places it touches change (§1).
def after(found, free, cols, card, source, dest):
    cols, suit = list(cols), card % 4
    if source < 8: cols[source] = cols[source][:-1]
    elif source == CELL: free = free.replace(BYTE[card], b'')
    else: found = found[:suit] + BYTE[found[suit] - 1] + found[suit + 1:]
    if dest < 8: cols[dest] += BYTE[card]
    elif dest == CELL: free = bytes(sorted(free + BYTE[card]))
    else: found = found[:suit] + BYTE[found[suit] + 1] + found[suit + 1:]
    return found, free, cols


def place(code): return {CELL: 'a free cell', FOUNDATION: 'its foundation'}.get(code, f'column {code + 1}')


# A position in words: foundation top cards, cell cards, columns 1..8 bottom to top.
def show(found, free, cols, *_):
    tops = ' '.join(name((n - 1) * 4 + s) if n else '--' for s, n in enumerate(found))
    columns = ' | '.join(' '.join(map(name, col)) or '-' for col in cols)
    return f'foundations {tops}; cells {" ".join(map(name, sorted(free))) or "-"}; columns {columns}'


# ---- The file (§3, §5, §6) ----

# The decompressed bytes of the file's zstd frames (one after another, §3), taken in order and each held
# once: a taken piece leaves the buffer. A piece must end by `end` (the end of the body being read); once
# `hash` is set, that xxh3 hasher sees every byte taken.
class Stream:
    def __init__(self, f):
        self.f, self.d, self.buf = f, zstandard.ZstdDecompressor().decompressobj(read_across_frames=False), bytearray()
        self.taken, self.end, self.hash, self.begun = 0, CEILING, None, 0   # begun: the bytes out when this frame began

    def fill(self, n):   # decompress until n bytes wait or the file ends; whether they wait
        while len(self.buf) < n:
            # 1 KiB of compressed bytes a step: zstd inflates 4 bytes to 128 KiB at most. A frame that has ended
            # leaves the bytes after it (unused_data, empty until then): the next frame, or the file's end.
            if not (chunk := self.d.unused_data or self.f.read(1024)):
                return need(self.d.eof, 'the file is empty or its zstd frame is cut short', Unreadable) or False
            if self.d.eof: self.d, self.begun = zstandard.ZstdDecompressor().decompressobj(read_across_frames=False), self.taken + len(self.buf)
            self.buf += self.d.decompress(chunk)   # a zstandard.ZstdError is caught in verify()
            # Every frame holds data (§3), so frames cannot outnumber the bytes, nor empty ones make work without end.
            need(not self.d.eof or self.taken + len(self.buf) > self.begun, 'a zstd frame holds no data', Unreadable)
        return True

    def take(self, n, what):
        need(self.taken + n <= CEILING, f'the data decompresses to more than {CEILING} bytes', Unreadable)
        need(self.taken + n <= self.end, f'the body is not valid msgpack: {what} is cut short')
        need(self.fill(n), f'{what} is cut short')   # (in a whole frame; a cut frame is refused by fill())
        piece, self.taken = bytes(memoryview(self.buf)[:n]), self.taken + n
        del self.buf[:n]
        if self.hash: self.hash.update(piece)
        return piece

    def finish(self, what, xxh3_64, failure=Unreadable):   # nothing may follow, in any frame; the hash
        need(not self.fill(1), f'{what} has data after it: the data decompresses to more than it holds', failure)
        need(self.hash.hexdigest() == xxh3_64, f'{what} does not match its xxh3_64: the file is corrupt')


# A msgpack map as a dict, refusing repeated keys (a dict would silently keep the last).
def strict_map(pairs): return need(len(dict(pairs)) == len(pairs), 'a msgpack map repeats a key', Unreadable) or dict(pairs)


# The header map (msgpack's errors as one-line reasons), checked against the tables of §3 and §6.
def header(s):
    s.fill(65536)   # the header must decode from the first 64 KiB (§3)
    unpacker = msgpack.Unpacker(max_buffer_size=65536, max_array_len=16, max_map_len=16, object_pairs_hook=strict_map)
    unpacker.feed(bytes(s.buf[:65536]))
    try:
        h = unpacker.unpack()
    except (msgpack.OutOfData, ValueError) as e:   # msgpack's errors: format, limits, nesting
        raise Unreadable('the header (in the first 64 KiB) ' + {msgpack.OutOfData: 'is cut short', msgpack.StackError:
                         'is nested too deeply'}.get(type(e), f'is not valid msgpack ({e})')) from None
    s.take(unpacker.tell(), 'the header')
    need(type(h) is dict, 'the file does not start with a msgpack map: not a certificate', Unreadable)
    keys = RANGE_KEYS if (ranged := h.get('claim') == 'range') else KEYS
    need(set(h) == keys, f'the header keys are not exactly: {", ".join(sorted(keys))}', Unreadable)
    for key, ok in [('format', h['format'] == 'freecell-certificate'), ('version', integer(h['version'], 1 + ranged, 2)),
                    ('claim', ranged or h['claim'] in ('no-win', 'win')), ('cells', integer(h['cells'], 0, 8)),
                    ('foundation_moves', type(h['foundation_moves']) is bool),
                    ('symmetry', h['symmetry'] in ('columns', 'none')), ('count', integer(h['count'], 0, 2**(32 + ranged))),
                    ('first', not ranged or integer(h['first'], 1, 2**33 - 1)),   # and first <= last:
                    ('last', not ranged or integer(h['last'], 1, 2**33 - 1) and h['first'] <= h['last']),
                    ('deal', ranged or h['deal'] is None or integer(h['deal'], 1, 2**33 - 1)),   # and a board if no deal:
                    ('board', ranged or (type(h['board']) is bytes if h['deal'] is None else h['board'] is None))]:
        need(ok, f'header {key} = {repr(h.get(key))[:40]} is not allowed (format versions 1 and 2)', Unreadable)
    return h


# The msgpack formats of the values after the header (all of msgpack a body or an entry needs): the kind,
# and its value or length, in the first byte or in the 1, 2, 4 or 8 big-endian bytes after it.
FIXED = {b: ('int', b) if b < 128 else ('array', b - 144) if b < 160 else ('str', b - 160)
         for b in range(192) if b >> 4 != 8}
SIZED = {0xc4: ('bin', 1), 0xc5: ('bin', 2), 0xc6: ('bin', 4), 0xcc: ('int', 1), 0xcd: ('int', 2), 0xce: ('int', 4),
         0xcf: ('int', 8), 0xd9: ('str', 1), 0xda: ('str', 2), 0xdb: ('str', 4), 0xdc: ('array', 2), 0xdd: ('array', 4)}


# The value (an int) or the length (an array, bin or str) of the next msgpack value, which must be this kind.
def expect(s, kind, what, failure=Rejected):
    got, n = FIXED.get(first := s.take(1, what)[0]) or SIZED.get(first, (None, 0))
    need(got == kind, f'{what} is not a msgpack {kind}', failure)
    return int.from_bytes(s.take(n, what), 'big') if first in SIZED else n


# ---- The certificates (§2, §3, §6) ----

# The starting position: the numbered deal, or the custom board, checked like a record.
def start(h):
    if h['deal'] is not None: return bytes(4), b'', deal(h['deal'])
    found, cellbytes, cols = (board := h['board'])[:4], board[4:4 + (cells := h['cells'])], board[4 + cells:].split(b'\xff')
    need(len(board) >= 4 + cells and len(cols) == 9 and not cols.pop(), 'the board is not four counts, the cells and eight columns each ended by 0xFF')
    need(not problem(found, cellbytes, cols), f'the board is not a position: {problem(found, cellbytes, cols)}')
    return found, cellbytes.rstrip(b'\xff'), cols


# A win certificate's body (§3), size bytes of the stream: the moves, replayed from the start with columns
# in their dealt places, each legal and the last position won. read() runs once the body is read (for a
# single certificate: nothing may follow it, and its hash must match).
def check_win(s, rules, size, limits, read):
    within(count := rules['count'], 'moves', limits)
    need(size == 2 * count, f'the body has {size} bytes, not 2 x count = {2 * count}')
    body, (found, free, cols) = s.take(size, 'the body'), read() or start(rules)
    where = {card: c for c, cards in [(CELL, free)] + list(enumerate(cols)) for card in cards}
    # where: each card's place, a column 0..7 or CELL; a card not in it is on its foundation
    for n, (card, dest) in enumerate(zip(body[::2], body[1::2])):   # (the moves: pairs of bytes)
        if card >= 52 or dest >= 10: raise Rejected(f'move {n + 1}: bytes {card}, {dest} are not a card and a destination')
        if why := illegal(found, free, cols, card, source := where.get(card, FOUNDATION), dest, rules):
            raise Rejected(f'move {n + 1} ({name(card)} to {place(dest)}) is illegal: {why}; '
                           f'before it: {show(found, free, cols)}')
        (found, free, cols), where[card] = after(found, free, cols, card, source, dest), dest
    need(found == WON, f'after all {count} moves the position is not won: {show(found, free, cols)}')


# A no-win certificate's body (§3), size bytes of the stream. The column table and the records are checked
# as they are read (steps 2, 3, 4 and 6), the limits and the sizes that follow from count (§5) before
# anything large is read; then read() runs (as for a win); then steps 5 and 7.
def check_nowin(s, rules, size, limits, read):
    within(count := rules['count'], 'positions', limits)
    cells, sort_ids, table, s.end = rules['cells'], rules['symmetry'] == 'columns', [], s.taken + size   # (the body's end)
    need(expect(s, 'array', 'the body') == 2, 'the body is not [column table, records]')
    within(columns := expect(s, 'array', 'the column table'), 'columns', limits)
    for i in range(columns):   # (an entry of more than 52 bytes is refused on its first 53)                # step 2
        table.append(col := s.take(min(expect(s, 'bin', f'column table entry {i}'), 53), f'column table entry {i}'))
        need(len(col) <= 52 and max(col, default=0) < 52, f'column table entry {i} ({col.hex()}) is not cards')
        need(i == 0 or table[-2] < col, f'column table entry {i} ({col.hex()}) does not sort after entry {i - 1}')
    W, nbytes = 4 + cells + 8 * (w := 2 if columns <= 65536 else 3), expect(s, 'bin', 'the records')   # (w: bytes an id)
    # Version 2: exactly count x W bytes; version 1: at most count x (W + 1), one byte more per record.
    need(nbytes == count * W if rules['version'] > 1 else nbytes <= count * (W + 1), f'records: {nbytes} bytes for {count}')
    if rules['version'] == 2:   # byte planes: byte j of record k is records[j * count + k]
        rows = bytearray(nbytes)
        for j in range(W): rows[j::W] = s.take(count, 'the records')
        produced = (bytes(rows[k:k + W]) for k in range(0, nbytes, W))
    else:
        produced = itertools.islice(unfront(s.take(nbytes, 'the records'), W), count + 1)
    need(s.taken == s.end, 'the body has data after it')
    index, s.end, records, used = {col: i.to_bytes(w, 'big') for i, col in enumerate(table)}, CEILING, [], set()
    column, layout = {i: col for col, i in index.items()}, struct.Struct(f'4s{cells}s' + f'{w}s' * 8)
    for n, rec in enumerate(produced, 1):                                                       # steps 3, 4, 6
        if n > 1 and rec <= records[-1]:
            raise Rejected(f'records: record {n} does not sort strictly after record {n - 1}')
        found, cellbytes, *ids = layout.unpack(rec)   # a record's parts: foundations, cells, column ids
        cols = [column.get(i) for i in ids]
        why = ('a column id is beyond the table' if None in cols else
               'its column ids are not ascending' if sort_ids and ids != sorted(ids) else problem(found, cellbytes, cols))
        if why or found == WON:   # (a conditional expression builds only the message it picks)
            raise Rejected(f'record {n} ({rec.hex()}) is not a well-formed position: {why}' if why else
                           f'record {n} ({show(found, b"", cols)}) is won')
        records.append(rec)
        used.update(ids)
    produced = rows = None   # (the decompressed records, freed before the set of them is built)
    need(len(records) == count, f'records: there are {len(records)}{"+" * (len(records) > count)}, not count = {count}')
    # Stricter than soundness needs, for one certificate per theorem: the table holds no unused column.
    unused = set(range(columns)) - {int.from_bytes(i, 'big') for i in used}
    need(not unused, f'column table entry {min(unused, default=0)} is unused')
    begin, known = read() or start(rules), set(records)

    # The canonical record; None if a column is not in the table. (Fixed-width big-endian ids sort like their numbers.)
    def record(found, free, ids):
        return None if None in ids else found + free + PAD[cells - len(free)] + b''.join(sorted(ids) if sort_ids else ids)

    need(record(begin[0], begin[1], [index.get(col) for col in begin[2]]) in known,
         f'the starting position ({show(*begin)}) is not one of the records')                                # step 5
    for n, rec in enumerate(records, 1):                                                                      # step 7
        found, cellbytes, *ids = layout.unpack(rec)
        free, cols = cellbytes.rstrip(b'\xff'), [column[i] for i in ids]
        for card, source, dest in moves(found, free, cols, cells, rules['foundation_moves']):
            # The position after the move, as after() makes it, but by the ids of the (at most two) columns it changes.
            after_found, after_free, after_ids, suit = found, free, ids.copy(), card % 4
            if source < 8: after_ids[source] = index.get(cols[source][:-1])
            elif source == CELL: after_free = free.replace(BYTE[card], b'')
            else: after_found = found[:suit] + BYTE[found[suit] - 1] + found[suit + 1:]
            if dest < 8: after_ids[dest] = index.get(cols[dest] + BYTE[card])
            elif dest == CELL: after_free = bytes(sorted(free + BYTE[card]))
            else: after_found = found[:suit] + BYTE[found[suit] + 1] + found[suit + 1:]
            if record(after_found, after_free, after_ids) not in known:
                raise Rejected(f'record {n} ({show(found, free, cols)}): moving {name(card)} from {place(source)}'
                               f' to {place(dest)} gives a position not in the certificate')
        if n % 8192 == 0: progress(f'record {n:,} of {count:,} closed')


# The records of a version 1 body, front-coded: each is p bytes of the one before, then W - p new bytes.
def unfront(data, W):
    prev, i, n = b'', 0, 0
    while i < len(data):
        n, p = n + 1, data[i]
        rec = prev[:p] + data[i + 1:i + 1 + W - p]
        if p >= W or n == 1 and p: raise Rejected(f'records: record {n} says it shares {p} bytes with the one before')
        if len(rec) != W: raise Rejected(f'records: record {n} is cut short')
        # p is the whole shared prefix: the byte after it differs. (A record not after the one before is refused later.)
        if n > 1 and rec > prev and rec[p] == prev[p]:
            raise Rejected(f'records: record {n} shares more than its stated {p} bytes with the one before')
        yield rec
        prev, i = rec, i + 1 + W - p


# The entries of a range certificate (§6), each checked as it streams in, exactly as the single
# certificate of its deal would be: the header with the deals that cannot be won.
def check_range(h, s, limits):
    need(h['count'] == h['last'] - h['first'] + 1, f'count = {h["count"]}, not last - first + 1')
    s.hash, unwinnable = xxhash.xxh3_64(), []
    for i, number in enumerate(range(h['first'], h['last'] + 1)):
        try:
            need(expect(s, 'array', 'the entry') == 4, 'the entry is not [deal, claim, count, body]')
            need((got := expect(s, 'int', 'its deal')) == number, f'the entry is for deal {got}, not {number}')
            claim = s.take(min(expect(s, 'str', 'its claim'), 7), 'its claim').decode(errors='replace')
            need(claim in ('win', 'no-win'), f'its claim {claim!r} is not "win" or "no-win"')
            rules = {**h, 'deal': number, 'board': None, 'claim': claim, 'count': expect(s, 'int', 'its count')}
            (check_win if claim == 'win' else check_nowin)(s, rules, expect(s, 'bin', 'its body'), limits, lambda: None)
        except (Rejected, Unreadable) as e:
            raise type(e)(f'entry {i + 1} (deal {number}): {e}') from None
        unwinnable += [number] * (claim == 'no-win')
        progress(f'deal {number:,} ({i + 1:,} of {h["count"]:,})')
    s.finish('the range', h['xxh3_64'], Rejected)
    return {**h, 'unwinnable': unwinnable}


# (verdict, header or {}, the theorem or the reason it fails, sha256 of the file).
def verify(path, limits=LIMITS):
    h, digest = {}, None
    try:
        with open(os.open(path, os.O_RDONLY | os.O_NONBLOCK), 'rb') as f:   # a FIFO opens at once, to be refused
            need(stat.S_ISREG((st := os.fstat(f.fileno())).st_mode) and st.st_size <= CEILING, f'{path} is not a regular file of at most 4 GiB', Unreadable)
            digest, _ = hashlib.file_digest(f, 'sha256').hexdigest(), f.seek(0)   # the whole file's, then read it
            if (h := header(s := Stream(f)))['claim'] == 'range':
                h = check_range(h, s, limits)
            else:   # the hash covers the body bin's bytes, and is checked before what they say
                need(h['claim'] == 'no-win' or h['symmetry'] == 'none', 'a win certificate must have symmetry "none"')
                length, s.hash = expect(s, 'bin', 'the body', Unreadable), xxhash.xxh3_64()
                (check_win if h['claim'] == 'win' else check_nowin)(s, h, length, limits, lambda: s.finish('the body', h['xxh3_64']))
        return 'verified', h, theorem(h, path), digest
    except (Rejected, Unreadable) as e:
        return type(e).__name__.lower(), h, str(e), digest
    except (zstandard.ZstdError, OSError) as e:   # (a folder is checked only when it holds no certificate: see main)
        return 'unreadable', h, (f'{path} is a folder without certificates' if type(e) is IsADirectoryError else
                                 f'cannot read {path}: {e.strerror or e}' if isinstance(e, OSError) else
                                 f'{path} is not a certificate: not a valid zstd frame ({e})'), digest
    except Exception as e:   # the last guard: an unforeseen failure is a one-line verdict, not a traceback
        return 'unreadable', h, f'internal error: {type(e).__name__}: {e}', digest


# ---- The command line ----

def theorem(h, path):
    rules = (f'{h["cells"]} free cell{"s" * (h["cells"] != 1)}, single-card moves, ' +
             ("a foundation's top card may go back onto a column" if h['foundation_moves'] else 'no moves off foundations'))
    if h['claim'] == 'range':   # (FreeCell Pro's numbers extend Microsoft's 1..2**31 - 1)
        lost, who = h['unwinnable'], ('Microsoft FreeCell deals' if h['last'] < 2**31 else
                                      "FreeCell Pro's extended deals" if h['first'] >= 2**31 else "FreeCell Pro's deals")
        return (f'of {who} {h["first"]:,}..{h["last"]:,} ({rules}) exactly {len(lost):,} cannot be won{": " * bool(lost)}'
                f'{", ".join(map(str, lost))}; each of the other {h["count"] - len(lost):,} is won by a line that replays')
    who = (f'the layout in {path}' if h['deal'] is None else f"FreeCell Pro's extended deal {h['deal']}"
           if h['deal'] >= 2**31 else f'Microsoft FreeCell deal {h["deal"]}')
    return f'{who} ({rules}) ' + (f'can be won: {h["count"]} single-card moves replay to a won position'
                                  if h['claim'] == 'win' else
                                  f'cannot be won: {h["count"]} positions closed under every legal move, none won')


# Text with control and other unprintable characters escaped, so a file name cannot redraw the screen.
def printable(text): return ''.join(c if c.isprintable() else ascii(c)[1:-1] for c in text)


# Progress of a long check: a line on stderr every 10 seconds, for a terminal and a log alike.
PROGRESS = {'label': '', 'next': time.monotonic() + 10}


def progress(text):
    if time.monotonic() >= PROGRESS['next']:
        print(printable(f'{PROGRESS["label"]}: {text}')[:shutil.get_terminal_size().columns - 1], file=sys.stderr)
        PROGRESS['next'] = time.monotonic() + 10


# verify(), with the progress label and the seconds it took (in a worker process when several files are checked).
def timed_verify(shown, path, limits):
    began, PROGRESS['label'], PROGRESS['next'] = time.perf_counter(), str(shown), time.monotonic() + 10
    return *verify(path, limits), round(time.perf_counter() - began, 3)


def main(argv=None):
    parser = argparse.ArgumentParser('check', description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('paths', nargs='*', type=pathlib.Path,
                        help='certificates, or folders: each *.msgpack.zst in them and (always) in their subfolders')
    parser.add_argument('--json', action='store_true', help='print one JSON object per certificate')
    parser.add_argument('-q', '--quiet', action='store_true', help='print only failures')
    parser.add_argument('-j', '--jobs', type=int, default=len(os.sched_getaffinity(0)), help='files at once (%(default)s)')
    for key in LIMITS:   # (columns: entries of a column table)
        parser.add_argument(f'--max-{key}', type=int, default=LIMITS[key], help=f'at most this many {key} (%(default)s)')
    parser.add_argument('--version', action='version', version='check ' + importlib.metadata.version('freecell-certificates'))
    args = parser.parse_args(argv)   # --help, --version and bad usage exit here: 0 or 2
    if not args.paths or args.jobs < 1 or min((limits := {key: getattr(args, 'max_' + key) for key in LIMITS}).values()) < 0:
        parser.exit(2, 'usage: check [-h] [--json] [-q] [-j JOBS] [--max-positions N] ... CERTIFICATE|FOLDER ... (see --help)\n')
    # (the name to print, the path) of each certificate; a folder without any stands for itself
    targets = [t for p in args.paths for t in [(f.relative_to(p), f) for f in sorted(p.rglob('*.msgpack.zst') if p.is_dir()
                                               else []) if not f.is_dir()] or [(p if p.is_dir() else p.name, p)]]
    several, verdicts, jobs = len(targets) > 1 or any(p.is_dir() for p in args.paths), [], min(args.jobs, len(targets))
    # Several files are checked at once in worker processes, each whole by verify(); the lines keep the files' order.
    with concurrent.futures.ProcessPoolExecutor(jobs) if jobs > 1 else contextlib.nullcontext() as pool:
        for (shown, path), (verdict, h, text, digest, seconds) in zip(targets, (pool.map if pool else map)(
                timed_verify, *zip(*targets), itertools.repeat(limits))):
            verdicts.append(verdict)
            if args.json:
                keys = ('claim', 'deal', 'first', 'last', 'unwinnable', 'cells', 'foundation_moves', 'symmetry', 'count')
                print(json.dumps({'path': str(path), 'verdict': verdict, **{k: h.get(k) for k in keys}, 'sha256': digest,
                                  'seconds': seconds, 'reason': None if verdict == 'verified' else text}), flush=True)
            elif verdict != 'verified' or not args.quiet:
                line = f'{verdict.upper()}: {text}' + (f'. sha256 {digest}' if verdict == 'verified' else '')
                print(printable(f'{shown}: {line}' if several else line), flush=True)
    n, ok, bad = len(verdicts), verdicts.count('verified'), verdicts.count('unreadable')
    if several and not args.json and not args.quiet:
        print(f'{n} certificate{"s" * (n != 1)}: {ok} verified, {n - ok} rejected' + f' ({bad} unreadable)' * bool(bad))
    return 0 if ok == n else 2 if bad else 1
