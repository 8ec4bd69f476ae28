"""Verify FreeCell certificates (*.msgpack.zst), independently of the program
that wrote them: the rules are docs/certificate-format.md.

Exit 0: every certificate VERIFIED (and, with --deal, --claim, --cells, ...,
each proves exactly what was asked); 1: some certificate REJECTED, its first
failure named; 2: none rejected, but some file unreadable (not a certificate,
or more work than a limit allows). Records, moves and entries count from 1,
columns 1..8. Several files or folders: a line each, then a summary.
"""
# The trusted core comes first, between the two marker lines: the cards and the deal, the moves and
# their effect, the record encoding and its exact lookup, the closure loop, the replay of a win, the
# won test, and the sentence the verdict prints from the header. Everything after the core (reading
# the file, the well-formedness of records, the limits, the command line) can only reject: it raises
# Rejected or Unreadable, or hands the core the data as it stands in the file. Whatever set of
# records reaches the core, the core's own checks (the start is one of them, every move from each
# leads to one of them, none is won) prove the sentence printed; a reader that mangled the records
# could only make those checks fail. "§n" is section n of the format document.
import argparse
import array
import concurrent.futures
import contextlib
import functools
import hashlib
import importlib.metadata
import json
import mmap
import os
import shutil
import stat
import struct
import sys
import tempfile
import time

import msgpack
import xxhash
import zstandard

# ---- trusted core: begin ----

CELL, FOUNDATION = 8, 9   # the destination codes of a win body (§3); 0..7 are columns 1..8
WON = bytes([13] * 4)     # the foundations of a won position: all 52 cards on them


class Rejected(Exception):   # a readable certificate whose content fails the check: exit 1
    pass


def name(card):
    return 'A23456789TJQK'[card // 4] + 'CDHS'[card % 4]


def red(card):
    return card % 4 in (1, 2)   # diamonds, hearts


# The two cards that may go onto each card: one rank lower, of the other colour (a red 7 on a black 8).
GOES_ON = [[card - 4 - card % 4 + suit for suit in range(4) if card > 3 and red(suit) != red(card)]
           for card in range(52)]


def deal(n):
    """The eight columns of deal n, bottom card first (§2)."""
    state = n % 2**32   # n, or n - 2**32 from 2**32 on
    deck = list(range(52))
    cols = [bytearray() for _ in range(8)]
    for i in range(52):
        state = (state * 214013 + 2531011) % 2**32
        if n < 2**31:
            r = (state >> 16) & 0x7fff
        elif n < 2**32:
            r = ((state >> 16) & 0x7fff) | 0x8000
        else:
            r = ((state >> 16) & 0xffff) + 1
        j = r % len(deck)
        cols[i % 8].append(deck[j])
        deck[j] = deck[-1]   # the last card fills the place of the one taken
        deck.pop()
    return [bytes(col) for col in cols]


# A position is four foundation counts for C D H S, the cards in the free cells ascending, and the
# eight columns, bottom card first (all bytes).
def moves(found, free, cols, cells, foundation_moves):
    """Every legal move from a position, as (card, source, destination) coded like a win body (§1)."""
    # The cards free to move, and where each is: the top card of a non-empty column, a card in a free
    # cell, and, only if the rules allow it, the top card of a non-empty foundation.
    source = {col[-1]: c for c, col in enumerate(cols) if col}
    source.update(dict.fromkeys(free, CELL))
    if foundation_moves:
        source.update({(n - 1) * 4 + suit: FOUNDATION for suit, n in enumerate(found) if n})
    # To its foundation: the next card of its suit, if it is free (and not on that foundation already).
    home = [(card, source[card], FOUNDATION) for card in [n * 4 + suit for suit, n in enumerate(found)]
            if source.get(card, FOUNDATION) != FOUNDATION]
    # Onto a column: any free card if it is empty, else a card that goes on its top card.
    onto = [(card, source[card], dest) for dest, col in enumerate(cols)
            for card in (GOES_ON[col[-1]] if col else source) if card in source]
    # To an empty free cell: only from a column (the cells are a set: no cell-to-cell moves).
    if len(free) >= cells:
        return home + onto
    return home + onto + [(card, place, CELL) for card, place in source.items() if place < 8]


BYTE = [bytes([b]) for b in range(256)]   # (one byte as bytes, made once)


def after(found, free, cols, card, source, dest):
    """The position after moving card from source to dest: only the two places it touches change."""
    cols, suit = list(cols), card % 4
    if source < 8:
        cols[source] = cols[source][:-1]
    elif source == CELL:
        free = free.replace(BYTE[card], b'')
    else:
        found = found[:suit] + BYTE[found[suit] - 1] + found[suit + 1:]
    if dest < 8:
        cols[dest] = cols[dest] + BYTE[card]
    elif dest == CELL:
        free = bytes(sorted(free + BYTE[card]))
    else:
        found = found[:suit] + BYTE[found[suit] + 1] + found[suit + 1:]
    return found, free, cols


class Records:
    """The records of a no-win, held flat (record k is rows[k*W:(k+1)*W]), and found by exact
    comparison: the hash of a record only picks the slot to start looking from (open addressing)."""

    def __init__(self, rows, W, count, slots):
        self.rows, self.W, self.count, self.slots, self.size = rows, W, count, slots, len(slots)

    def add(self, k, record):   # record k (from 0), as it stands in rows
        i = hash(record) % self.size
        while self.slots[i]:
            i = (i + 1) % self.size
        self.slots[i] = k + 1   # (0 marks an empty slot)

    def __contains__(self, record):
        rows, W, slots, size = self.rows, self.W, self.slots, self.size
        i = hash(record) % size
        k = slots[i]
        while k:
            if rows[(k - 1) * W:k * W] == record:
                return True
            i = (i + 1) % size
            k = slots[i]
        return False


def close(records, lo, hi, column, index, rules):
    """Records lo..hi-1 are closed: every legal move from each leads to one of the records (§3, step 7)."""
    cells, sort_ids, w = rules['cells'], rules['symmetry'] == 'columns', 2 if len(column) <= 65536 else 3
    layout, pad = struct.Struct(f'4s{cells}s' + f'{w}s' * 8), [b'\xff' * k for k in range(cells + 1)]
    rows, W, slots, size = records.rows, records.W, records.slots, records.size
    for n in range(lo, hi):
        found, cellbytes, *ids = layout.unpack(rows[n * W:(n + 1) * W])
        free, cols = cellbytes.rstrip(b'\xff'), [column[i] for i in ids]
        for card, source, dest in moves(found, free, cols, cells, rules['foundation_moves']):
            # The position after() makes, by its column ids: only the (at most two) columns it changes.
            to_found, to_free, to_cols = after(found, free, cols, card, source, dest)
            to_ids = ids.copy()
            if source < 8:
                to_ids[source] = index.get(to_cols[source])
            if dest < 8:
                to_ids[dest] = index.get(to_cols[dest])
            if None in to_ids:   # a column not in the table: the position is not one of the records
                raise Rejected(leaves(n, found, free, cols, card, source, dest))
            if sort_ids:   # the canonical record (§3); fixed-width big-endian ids sort like their numbers
                to_ids.sort()
            record = to_found + to_free + pad[cells - len(to_free)] + b''.join(to_ids)
            i = hash(record) % size   # exact lookup (as Records.__contains__), inline for speed
            k = slots[i]
            while k and rows[(k - 1) * W:k * W] != record:
                i = (i + 1) % size
                k = slots[i]
            if not k:
                raise Rejected(leaves(n, found, free, cols, card, source, dest))
        if n % 8192 == 0:
            progress(f'record {n + 1:,} of {records.count:,} closed')


def replay(body, found, free, cols, rules):
    """A win's moves, each one of moves() from the position it is played in; the last position won."""
    for n in range(len(body) // 2):
        card, dest = body[2 * n], body[2 * n + 1]
        legal = [m for m in moves(found, free, cols, rules['cells'], rules['foundation_moves'])
                 if m[0] == card and m[2] == dest]
        if not legal:
            raise Rejected(refusal(n, card, dest, found, free, cols, rules))
        found, free, cols = after(found, free, cols, card, legal[0][1], dest)
    if found != WON:
        raise Rejected(f'after all {len(body) // 2:,} moves the position is not won: {show(found, free, cols)}')


def theorem(h, path):
    """What a verified certificate proves, from the header values the check used."""
    rules = (f'{h["cells"]} free cell{"s" * (h["cells"] != 1)}, single-card moves, ' +
             ("a foundation's top card may go back onto a column" if h['foundation_moves']
              else 'no moves off foundations'))
    if h['claim'] == 'range':   # (FreeCell Pro's numbers extend Microsoft's 1..2**31 - 1)
        lost = h['unwinnable']
        if h['last'] < 2**31:
            who = 'Microsoft FreeCell deals'
        elif h['first'] >= 2**31:
            who = "FreeCell Pro's extended deals"
        else:
            who = "FreeCell Pro's deals"
        return (f'of {who} {h["first"]:,}..{h["last"]:,} ({rules}) exactly {len(lost):,} cannot be won'
                f'{": " * bool(lost)}{", ".join(map(str, lost))}; each of the other '
                f'{h["count"] - len(lost):,} is won by a line that replays')
    if h['deal'] is None:
        who = f'the layout in {path}'
    elif h['deal'] >= 2**31:
        who = f"FreeCell Pro's extended deal {h['deal']}"
    else:
        who = f'Microsoft FreeCell deal {h["deal"]}'
    if h['claim'] == 'win':
        return f'{who} ({rules}) can be won: {h["count"]:,} single-card moves replay to a won position'
    return f'{who} ({rules}) cannot be won: {h["count"]:,} positions closed under every legal move, none won'

# ---- trusted core: end ----
# Below: reading, well-formedness, limits and the command line. They reject; they never accept.


class Unreadable(Exception):   # not a readable certificate, or more work than the limits allow: exit 2
    pass


def need(ok, reason, failure=Rejected):
    if not ok:
        raise failure(reason)


def integer(x, low, high):
    return type(x) is int and low <= x <= high   # (type(True) is bool, not int)


# The default limits on one certificate, or one entry of a range, and on a range in all (§5). The
# largest published no-win has 2,449,032 positions and a column table of 844 entries; the longest
# win line of deals 1..1,000,000 has 235 moves.
LIMITS = {'positions': 4_000_000, 'columns': 1_000_000, 'moves': 100_000,
          'range-moves': 1_000, 'range-positions': 100_000, 'memory': None}
KEYS = {'format', 'version', 'claim', 'deal', 'board', 'cells', 'foundation_moves', 'symmetry', 'count',
        'xxh3_64'}
RANGE_KEYS = KEYS - {'deal', 'board'} | {'first', 'last'}


def within(n, key, limits):
    need(n <= limits[key], f'{n:,} {key}: more than --max-{key} {limits[key]:,}', Unreadable)


def illegal(found, free, cols, card, dest, rules):
    """Why moving card to dest is not a move (§1), or None: the rules as one test, only to explain
    why a win is rejected (the replay accepts a move only if moves() lists it)."""
    rank, suit = card // 4, card % 4
    in_column = [c for c, col in enumerate(cols) if card in col]
    if card in free:
        source = CELL
    elif in_column and cols[in_column[0]][-1] == card:
        source = in_column[0]
    elif not in_column and rules['foundation_moves'] and found[suit] == rank + 1:
        source = FOUNDATION
    else:
        return f'{name(card)} is not free to move'
    if dest == CELL and source >= 8:
        return 'only a column card may go to a free cell'   # (the cells are a set)
    if dest == source:
        return 'it is on it' if dest == FOUNDATION else 'it is there'
    if dest == FOUNDATION and found[suit] != rank:
        return f'that needs {name(found[suit] * 4 + suit)}'
    if dest == CELL and len(free) >= rules['cells']:
        return 'no free cell is empty'
    if dest < 8 and cols[dest] and card not in GOES_ON[cols[dest][-1]]:
        return f'column {dest + 1} ends in {name(cols[dest][-1])}'
    return None


def refusal(n, card, dest, found, free, cols, rules):
    """Why move n + 1 of a win, not one of the legal moves, is refused."""
    if card >= 52 or dest >= 10:
        return f'move {n + 1}: bytes {card}, {dest} are not a card and a destination'
    why = illegal(found, free, cols, card, dest, rules) or 'it is not one of the legal moves'
    return f'move {n + 1} ({name(card)} to {place(dest)}) is illegal: {why}; before it: {show(found, free, cols)}'


def leaves(n, found, free, cols, card, source, dest):
    """The reason record n + 1 is not closed: this move leads out of the records."""
    return (f'record {n + 1} ({show(found, free, cols)}): moving {name(card)} from {place(source)} to '
            f'{place(dest)} gives a position not in the certificate')


def place(code):
    return {CELL: 'a free cell', FOUNDATION: 'its foundation'}.get(code, f'column {code + 1}')


def show(found, free, cols):
    """A position in words: foundation top cards, cell cards, columns 1..8 bottom to top."""
    tops = ' '.join(name((n - 1) * 4 + s) if n else '--' for s, n in enumerate(found))
    columns = ' | '.join(' '.join(map(name, col)) or '-' for col in cols)
    return f'foundations {tops}; cells {" ".join(map(name, sorted(free))) or "-"}; columns {columns}'


@functools.lru_cache(maxsize=None)
def off_foundation(found):
    """The cards that foundations with these counts do not hold, ascending."""
    return [card for card in range(52) if card // 4 >= found[card % 4]]


def problem(found, cellbytes, cols):
    """Why these parts are not a well-formed position (§3, step 4), or None."""
    free = cellbytes.rstrip(b'\xff')
    if max(found) > 13:
        return 'a foundation count is above 13'
    if b'\xff' in free or list(free) != sorted(set(free)):
        return 'the cells are not ascending cards, then 0xFF'
    if sorted(free + b''.join(cols)) != off_foundation(bytes(found)):
        return 'the 52 cards are not each in one place'
    return None


# ---- The file (§3, §5, §6) ----

class Source:
    """The file's bytes as they are read, each hashed (SHA-256) once; never more than its size said."""

    def __init__(self, f, shown, size):
        self.f, self.shown, self.size, self.got, self.sha = f, shown, size, 0, hashlib.sha256()

    def read(self, n):
        chunk = self.f.read(n)
        self.got += len(chunk)
        if self.size is not None:
            need(self.got <= self.size, f'{self.shown} yields more bytes than its size ({self.size:,})',
                 Unreadable)
        self.sha.update(chunk)
        return chunk

    def digest(self):   # the whole file's (read to its end); None for a pipe left unread
        if self.size is None and self.f.read(1):
            return None
        while self.read(1 << 20):
            pass
        return self.sha.hexdigest()


class Stream:
    """The decompressed bytes of the file's zstd frames (one after another, §3), in order, each held
    once: a taken piece leaves the buffer. A piece must end by `end` (the end of the body being read);
    once `hash` is set, that xxh3 hasher sees every byte taken."""

    def __init__(self, source):
        self.source, self.buf, self.taken, self.end, self.hash = source, bytearray(), 0, None, None
        self.d = zstandard.ZstdDecompressor().decompressobj(read_across_frames=False)
        self.begun = 0   # the bytes out when this frame began

    def fill(self, n):
        """Decompress until n bytes wait or the file ends; whether they wait."""
        while len(self.buf) < n:
            # 1 KiB of compressed bytes a step: zstd inflates 4 bytes to 128 KiB at most. A frame that has
            # ended leaves the bytes after it (unused_data, empty until then): the next frame, or nothing.
            chunk = self.d.unused_data or self.source.read(1024)
            if not chunk:
                need(self.d.eof, f'{self.source.shown}: the file is empty or its zstd frame is cut short',
                     Unreadable)
                return False
            if self.d.eof:
                self.d = zstandard.ZstdDecompressor().decompressobj(read_across_frames=False)
                self.begun = self.taken + len(self.buf)
            self.buf += self.d.decompress(chunk)   # (a zstandard.ZstdError is caught in verify())
            # Every frame holds data (§3), so frames cannot outnumber the bytes, nor empty ones make
            # work without end.
            need(not self.d.eof or self.taken + len(self.buf) > self.begun, 'a zstd frame holds no data',
                 Unreadable)
        return True

    def take(self, n, what):
        need(self.end is None or self.taken + n <= self.end,
             f'the body is not valid msgpack: {what} is cut short')
        need(self.fill(n), f'{what} is cut short: the data of {self.source.shown} ends early')
        piece = bytes(memoryview(self.buf)[:n])
        self.taken += n
        del self.buf[:n]
        if self.hash:
            self.hash.update(piece)
        return piece

    def finish(self, what, xxh3_64, failure=Unreadable):
        """Nothing may follow, in any frame; the hash."""
        need(not self.fill(1), f'{what} has data after it: the data decompresses to more than it holds',
             failure)
        need(self.hash.hexdigest() == xxh3_64, f'{what} does not match its xxh3_64: the file is corrupt')


def strict_map(pairs):
    """A msgpack map as a dict, refusing repeated keys (a dict would silently keep the last)."""
    need(len(dict(pairs)) == len(pairs), 'a msgpack map repeats a key', Unreadable)
    return dict(pairs)


def shown(value):   # a header value in a reason: a scalar as it is, a list or a map by its kind only
    return repr(value)[:40] if type(value) in (int, str, bytes, bool, float, type(None)) else type(value).__name__


def header(s):
    """The header map (msgpack's errors as one-line reasons), each value's type checked before it is
    used, against the tables of §3 and §6."""
    s.fill(65536)   # the header must decode from the first 64 KiB (§3)
    unpacker = msgpack.Unpacker(max_buffer_size=65536, max_array_len=16, max_map_len=16,
                                object_pairs_hook=strict_map)
    unpacker.feed(bytes(s.buf[:65536]))
    try:
        h = unpacker.unpack()
    except msgpack.OutOfData:
        raise Unreadable('the header (in the first 64 KiB) is cut short') from None
    except msgpack.StackError:
        raise Unreadable('the header (in the first 64 KiB) is nested too deeply') from None
    except ValueError as e:   # msgpack's other errors: format, limits
        raise Unreadable(f'the header (in the first 64 KiB) is not valid msgpack ({e})') from None
    s.take(unpacker.tell(), 'the header')
    need(type(h) is dict, 'the file does not start with a msgpack map: not a certificate', Unreadable)
    ranged = h.get('claim') == 'range'
    keys = RANGE_KEYS if ranged else KEYS
    need(set(h) == keys, f'the header keys are not exactly: {", ".join(sorted(keys))}', Unreadable)
    tests = [('format', lambda: h['format'] == 'freecell-certificate'),
             ('version', lambda: integer(h['version'], 1 + ranged, 2)),
             ('claim', lambda: ranged or h['claim'] in ('no-win', 'win')),
             ('cells', lambda: integer(h['cells'], 0, 8)),
             ('foundation_moves', lambda: type(h['foundation_moves']) is bool),
             ('symmetry', lambda: h['symmetry'] in ('columns', 'none')),
             ('count', lambda: integer(h['count'], 0, 2**64)),
             ('xxh3_64', lambda: type(h['xxh3_64']) is str)]
    if ranged:   # first's type is refused before last is compared with it
        tests += [('first', lambda: integer(h['first'], 1, 2**33 - 1)),
                  ('last', lambda: integer(h['last'], h['first'], 2**33 - 1))]
    else:   # a deal, or else a board
        tests += [('deal', lambda: h['deal'] is None or integer(h['deal'], 1, 2**33 - 1)),
                  ('board', lambda: type(h['board']) is bytes if h['deal'] is None else h['board'] is None)]
    for key, ok in tests:
        need(ok(), f'header {key} = {shown(h[key])} is not allowed (format versions 1 and 2)', Unreadable)
    return h


# The msgpack formats of the values after the header (all of msgpack a body or an entry needs): the
# kind, and its value or length, in the first byte or in the 1, 2, 4 or 8 big-endian bytes after it.
FIXED = {b: ('int', b) if b < 128 else ('array', b - 144) if b < 160 else ('str', b - 160)
         for b in range(192) if b >> 4 != 8}
SIZED = {0xc4: ('bin', 1), 0xc5: ('bin', 2), 0xc6: ('bin', 4), 0xcc: ('int', 1), 0xcd: ('int', 2),
         0xce: ('int', 4), 0xcf: ('int', 8), 0xd9: ('str', 1), 0xda: ('str', 2), 0xdb: ('str', 4),
         0xdc: ('array', 2), 0xdd: ('array', 4)}


def expect(s, kind, what, failure=Rejected):
    """The value (an int) or the length (an array, bin or str) of the next msgpack value, of this kind."""
    first = s.take(1, what)[0]
    got, n = FIXED.get(first) or SIZED.get(first, (None, 0))
    need(got == kind, f'{what} is not a msgpack {kind}', failure)
    return int.from_bytes(s.take(n, what), 'big') if first in SIZED else n


# ---- The certificates (§2, §3, §6) ----

def start(h):
    """The starting position: the numbered deal, or the custom board, checked like a record."""
    if h['deal'] is not None:
        return bytes(4), b'', deal(h['deal'])
    board, cells = h['board'], h['cells']
    found, cellbytes, cols = board[:4], board[4:4 + cells], board[4 + cells:].split(b'\xff')
    need(len(board) >= 4 + cells and len(cols) == 9 and not cols[8],
         'the board is not four counts, the cells and eight columns each ended by 0xFF')
    why = problem(found, cellbytes, cols[:8])
    need(not why, f'the board is not a position: {why}')
    return found, cellbytes.rstrip(b'\xff'), cols[:8]


def check_win(s, rules, size, limits, read):
    """A win certificate's body (§3), size bytes of the stream. read() runs once the body is read (for a
    single certificate: nothing may follow it, and its hash must match)."""
    count = rules['count']
    within(count, 'moves', limits)
    need(size == 2 * count, f'the body has {size} bytes, not 2 x count = {2 * count}')
    body = s.take(size, 'the body')
    read()
    replay(body, *start(rules), rules)


def space(nbytes, spill):
    """nbytes of zeros: in memory, or (spill) in a memory-mapped temporary file."""
    if not spill:
        return bytearray(nbytes)
    with tempfile.TemporaryFile() as f:
        f.truncate(max(nbytes, 1))
        return memoryview(mmap.mmap(f.fileno(), max(nbytes, 1)))[:nbytes]


def slots(count, spill):
    """The empty slots of the records' lookup table: half as many again as there are records."""
    typecode = 'I' if count < 2**32 - 1 else 'Q'
    n = count + count // 2 + 1
    if not spill:
        return array.array(typecode, bytes(n * array.array(typecode).itemsize))
    return space(n * array.array(typecode).itemsize, True).cast(typecode)


def check_nowin(s, rules, size, limits, read):
    """A no-win certificate's body (§3), size bytes of the stream: the column table and the records are
    checked as they are read (steps 2, 3, 4 and 6), the limits and the sizes that follow from count
    (§5) before anything large is read; then read() runs (as for a win); then steps 5 and 7."""
    count, cells = rules['count'], rules['cells']
    within(count, 'positions', limits)
    s.end = s.taken + size
    need(expect(s, 'array', 'the body') == 2, 'the body is not [column table, records]')
    columns = expect(s, 'array', 'the column table')
    within(columns, 'columns', limits)
    table = []
    for i in range(columns):   # (an entry of more than 52 bytes is refused on its first 53)   # step 2
        col = s.take(min(expect(s, 'bin', f'column table entry {i}'), 53), f'column table entry {i}')
        need(len(col) <= 52 and max(col, default=0) < 52, f'column table entry {i} ({col.hex()}) is not cards')
        need(i == 0 or table[-1] < col, f'column table entry {i} ({col.hex()}) does not sort after entry {i - 1}')
        table.append(col)
    w = 2 if columns <= 65536 else 3   # the bytes of a column id
    W, nbytes = 4 + cells + 8 * w, expect(s, 'bin', 'the records')
    # Version 2: exactly count x W bytes; version 1: at most count x (W + 1), one byte more a record.
    if rules['version'] == 2:
        need(nbytes == count * W, f'records: {nbytes} bytes for {count}')
    else:
        need(nbytes <= count * (W + 1), f'records: {nbytes} bytes for {count}')
    # Past the --memory budget, the records and their lookup table go to memory-mapped temporary files.
    spill = limits['memory'] is not None and count * (W + 6) > limits['memory']
    try:
        rows = space(count * W, spill)
        if rules['version'] == 2:   # byte planes: byte j of record k is records[j * count + k]
            for j in range(W):
                rows[j::W] = s.take(count, 'the records')
            produced = (bytes(rows[k * W:(k + 1) * W]) for k in range(count))
        else:   # front-coded: each record is written into rows as it is checked
            produced = unfront(s.take(nbytes, 'the records'), W)
        need(s.taken == s.end, 'the body has data after it')
        s.end = None
        records = Records(rows, W, count, slots(count, spill))
        well_formed(records, produced, table, rules)
        read()
    except MemoryError:
        raise Unreadable(f'not enough memory for {count:,} positions: --max-positions / --memory') from None
    index = {col: i.to_bytes(w, 'big') for i, col in enumerate(table)}
    column = {i: col for col, i in index.items()}
    found, free, cols = start(rules)
    begin = [index.get(col) for col in cols]
    if rules['symmetry'] == 'columns' and None not in begin:
        begin.sort()
    need(None not in begin and found + free + b'\xff' * (cells - len(free)) + b''.join(begin) in records,
         f'the starting position ({show(found, free, cols)}) is not one of the records')   # step 5
    in_parts(lambda lo, hi: close(records, lo, hi, column, index, rules), count, limits.get('jobs', 1))


def well_formed(records, produced, table, rules):
    """Steps 3, 4 and 6: the records produced, count of them, ascending, each a position, none won;
    every column of the table used. Each is put in its row (if not there) and its lookup slot."""
    rows, count, W = records.rows, records.count, records.W
    cells, sort_ids, w = rules['cells'], rules['symmetry'] == 'columns', 2 if len(table) <= 65536 else 3
    used, layout = set(), struct.Struct(f'4s{cells}s' + f'{w}s' * 8)
    column = {i.to_bytes(w, 'big'): col for i, col in enumerate(table)}
    n, previous = 0, b''
    for n, rec in enumerate(produced, 1):
        if n > 1 and rec <= previous:
            raise Rejected(f'records: record {n} does not sort strictly after record {n - 1}')
        found, cellbytes, *ids = layout.unpack(rec)   # a record's parts: foundations, cells, column ids
        cols = [column.get(i) for i in ids]
        if None in cols:
            why = 'a column id is beyond the table'
        elif sort_ids and ids != sorted(ids):
            why = 'its column ids are not ascending'
        else:
            why = problem(found, cellbytes, cols)
        if why:
            raise Rejected(f'record {n} ({rec.hex()}) is not a well-formed position: {why}')
        if found == WON:
            raise Rejected(f'record {n} ({show(found, b"", cols)}) is won')
        if n > count:
            break
        if rules['version'] == 1:
            rows[(n - 1) * W:n * W] = rec
        used.update(ids)
        records.add(n - 1, rec)
        previous = rec
        if n % 65536 == 0:
            progress(f'record {n:,} of {count:,} read')
    need(n == count, f'records: there are {n}{"+" * (n > count)}, not count = {count}')
    # Stricter than soundness needs, for one certificate per theorem: the table holds no unused column.
    unused = set(column) - used
    need(not unused, f'column table entry {int.from_bytes(min(unused, default=bytes(w)), "big")} is unused')


def unfront(data, W):
    """The records of a version 1 body, front-coded: each is p bytes of the one before, then W - p new."""
    prev, i, n = b'', 0, 0
    while i < len(data):
        n, p = n + 1, data[i]
        rec = prev[:p] + data[i + 1:i + 1 + W - p]
        need(p < W and not (n == 1 and p), f'records: record {n} says it shares {p} bytes with the one before')
        need(len(rec) == W, f'records: record {n} is cut short')
        # p is the whole shared prefix: the byte after it differs. (A record not after the one before is
        # refused later.)
        need(n == 1 or rec <= prev or rec[p] != prev[p],
             f'records: record {n} shares more than its stated {p} bytes with the one before')
        yield rec
        prev, i = rec, i + 1 + W - p


SPLIT = 65536   # records from which one file's closure check is split across processes (-j)


def in_parts(work, count, jobs):
    """work(lo, hi) for the records 0..count-1: here, or in `jobs` processes forked now (the records
    shared, read-only), each on its share. The first failure in record order is the one reported."""
    if jobs <= 1 or count < SPLIT:
        return work(0, count)
    bounds = [count * k // jobs for k in range(jobs + 1)]
    children = []
    for lo, hi in zip(bounds, bounds[1:]):
        reader, writer = os.pipe()
        pid = os.fork()
        if pid == 0:   # the child: its share, then a letter (nothing, R, U, X) and the reason
            os.close(reader)
            if lo:   # (progress from the first share only)
                PROGRESS['next'] = float('inf')
            try:
                work(lo, hi)
                said = ''
            except Rejected as e:
                said = f'R{e}'
            except Unreadable as e:
                said = f'U{e}'
            except MemoryError:
                said = f'Unot enough memory for {count:,} positions: --max-positions / --memory'
            except BaseException as e:
                said = f'X{type(e).__name__}: {e}'
            os.write(writer, said.encode()[:60000])
            os._exit(0)
        os.close(writer)
        children.append((pid, reader))
    heard = []
    for pid, reader in children:
        with os.fdopen(reader, 'rb') as f:
            said = f.read().decode()
        _, status = os.waitpid(pid, 0)
        heard.append(said if os.waitstatus_to_exitcode(status) == 0 else 'Ua closing process ended early')
    for said in heard:
        failure = {'R': Rejected, 'U': Unreadable, 'X': RuntimeError}.get(said[:1])
        if failure:
            raise failure(said[1:])


def check_range(h, s, limits):
    """The entries of a range certificate (§6), each checked as it streams in, exactly as the single
    certificate of its deal would be; the work of the whole range bounded by its number of deals."""
    need(h['count'] == h['last'] - h['first'] + 1, f'count = {h["count"]}, not last - first + 1')
    s.hash, unwinnable, spent = xxhash.xxh3_64(), [], {'moves': 0, 'positions': 0}
    for i, number in enumerate(range(h['first'], h['last'] + 1)):
        try:
            need(expect(s, 'array', 'the entry') == 4, 'the entry is not [deal, claim, count, body]')
            got = expect(s, 'int', 'its deal')
            need(got == number, f'the entry is for deal {got}, not {number}')
            claim = s.take(min(expect(s, 'str', 'its claim'), 7), 'its claim').decode(errors='replace')
            need(claim in ('win', 'no-win'), f'its claim {claim!r} is not "win" or "no-win"')
            rules = {**h, 'deal': number, 'board': None, 'claim': claim, 'count': expect(s, 'int', 'its count')}
            kind = 'moves' if claim == 'win' else 'positions'
            spent[kind] += rules['count']
            most = limits[f'range-{kind}'] * h['count']
            need(spent[kind] <= most, f'the range holds more than {most:,} {kind} in all: more than '
                                      f'--range-{kind} {limits[f"range-{kind}"]:,} a deal', Unreadable)
            if claim == 'win':
                check_win(s, rules, expect(s, 'bin', 'its body'), limits, lambda: None)
            else:
                check_nowin(s, rules, expect(s, 'bin', 'its body'), limits, lambda: None)
        except (Rejected, Unreadable) as e:
            raise type(e)(f'entry {i + 1} (deal {number}): {e}') from None
        if claim == 'no-win':
            unwinnable.append(number)
        progress(f'deal {number:,} ({i + 1:,} of {h["count"]:,})')
    s.finish('the range', h['xxh3_64'], Rejected)
    return {**h, 'unwinnable': unwinnable}


def differs(h, want):
    """Where the header says something other than what the command line asked, or None."""
    if want.get('range') and h['claim'] != 'range':
        return f'it is not a range certificate, not of deals {want["range"][0]}..{want["range"][1]} (--range)'
    if want.get('range') and (h['first'], h['last']) != want['range']:
        return f'it is about deals {h["first"]}..{h["last"]}, not {want["range"][0]}..{want["range"][1]} (--range)'
    if want.get('deal') is not None and h.get('deal') != want['deal']:
        about = ('a range' if h['claim'] == 'range' else 'a custom layout' if h['deal'] is None
                 else f'deal {h["deal"]}')
        return f'it is about {about}, not deal {want["deal"]} (--deal)'
    for key, option in [('claim', '--claim'), ('cells', '--cells'), ('foundation_moves', '--foundation-moves'),
                        ('symmetry', '--symmetry')]:
        if want.get(key) is not None and h[key] != want[key]:
            return f'its {key} is {h[key]!r}, not {want[key]!r} ({option})'
    return None


def judge(source, path, limits, want, seen):
    """The header, once the certificate it starts is checked (else Rejected or Unreadable); seen holds
    the header as soon as it is read."""
    s = Stream(source)
    h = header(s)
    seen.update(h)
    mismatch = differs(h, want or {})
    need(not mismatch, f'the file does not prove what was asked: {mismatch}')
    if h['claim'] == 'range':
        return check_range(h, s, limits)
    # The hash covers the body bin's bytes, and is checked before what they say.
    need(h['claim'] == 'no-win' or h['symmetry'] == 'none', 'a win certificate must have symmetry "none"')
    length = expect(s, 'bin', 'the body', Unreadable)
    s.hash = xxhash.xxh3_64()
    check = check_win if h['claim'] == 'win' else check_nowin
    check(s, h, length, limits, lambda: s.finish('the body', h['xxh3_64']))
    return h


def verify(path, limits=LIMITS, want=None):
    """(verdict, header or {}, the theorem or the reason it fails, sha256 of the file or None)."""
    shown_path = 'standard input' if str(path) == '-' else str(path)
    try:
        try:
            if str(path) == '-':
                f = open(os.dup(0), 'rb')
            else:   # a FIFO opens at once, to be refused
                f = open(os.open(path, os.O_RDONLY | os.O_NONBLOCK), 'rb')
        except OSError as e:
            return 'unreadable', {}, f'cannot read {shown_path}: {e.strerror or e}', None
        with f:
            return judged(f, path, shown_path, limits, want)
    except Exception as e:   # the last guard: an unforeseen failure is one line, never a verdict
        return 'unreadable', {}, f'internal error: {type(e).__name__}: {e}', None


def judged(f, path, shown_path, limits, want):
    """verify() on an open file: read as it is judged, hashed as it is read."""
    st = os.fstat(f.fileno())
    if not (stat.S_ISREG(st.st_mode) or str(path) == '-' and stat.S_ISFIFO(st.st_mode)):
        return 'unreadable', {}, f'{shown_path} is not a regular file', None
    source, h = Source(f, shown_path, st.st_size if stat.S_ISREG(st.st_mode) else None), {}
    try:
        h = judge(source, path, limits, want, h)
        verdict, text = 'verified', theorem(h, path)
    except (Rejected, Unreadable) as e:
        verdict, text = type(e).__name__.lower(), str(e)
    except zstandard.ZstdError as e:
        verdict, text = 'unreadable', f'{shown_path} is not a certificate: not a valid zstd frame ({e})'
    except OSError as e:
        verdict, text = 'unreadable', f'cannot read {shown_path}: {e.strerror or e}'
    try:
        digest = source.digest()
    except (Unreadable, OSError):
        digest = None
    return verdict, h, text, digest


# ---- The command line ----

def printable(text):
    """Text with control and other unprintable characters escaped, so a name cannot redraw the screen."""
    return ''.join(c if c.isprintable() else ascii(c)[1:-1] for c in text)


# Progress of a long check: a line on stderr every 10 seconds, for a terminal and a log alike.
PROGRESS = {'label': '', 'next': time.monotonic() + 10}


def progress(text):
    if time.monotonic() >= PROGRESS['next']:
        line = printable(f'{PROGRESS["label"]}: {text}')
        print(line[:shutil.get_terminal_size().columns - 1], file=sys.stderr)
        PROGRESS['next'] = time.monotonic() + 10


def timed_verify(shown_name, path, limits, want):
    """verify(), with the progress label and the seconds it took (in a worker when several are checked)."""
    began = time.perf_counter()
    PROGRESS['label'], PROGRESS['next'] = str(shown_name), time.monotonic() + 10
    return *verify(path, limits, want), round(time.perf_counter() - began, 3)


def targets(paths):
    """(the name to print, the path, a reason it is not a certificate or None) for each argument: a
    file as it is, a folder as each *.msgpack.zst in it and its subfolders."""
    found = []
    for p in paths:
        if p == '-' or not os.path.isdir(p):
            found.append((p if p == '-' else os.path.basename(p), p, None))
            continue
        inside, unread, todo = [], [], [p]
        while todo:   # a folder at a time, without recursion (a tree may be nested thousands deep)
            folder = todo.pop()
            try:
                with os.scandir(folder) as entries:
                    for entry in entries:
                        if entry.is_dir(follow_symlinks=False):
                            todo.append(entry.path)
                        elif entry.name.endswith('.msgpack.zst'):
                            inside.append(entry.path)
            except OSError as e:
                unread.append((folder, f'cannot read the folder {folder}: {e.strerror or e}'))
        found += [(os.path.relpath(f, p), f, None) for f in sorted(inside)]
        found += [(folder, folder, why) for folder, why in sorted(unread)]
        if not inside and not unread:
            found.append((p, p, f'{p} holds no certificate (*.msgpack.zst)'))
    return found


def size(text):   # 500M, 2G, 100000: a number of bytes
    units = {'K': 2**10, 'M': 2**20, 'G': 2**30, 'T': 2**40}
    return int(text[:-1]) * units[text[-1].upper()] if text[-1:].upper() in units else int(text)


def deals(text):   # A-B: a range of deal numbers
    first, _, last = text.partition('-')
    return int(first), int(last)


def parser():
    p = argparse.ArgumentParser('check', description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('paths', nargs='*', help='certificates, or folders: each *.msgpack.zst in them and in their '
                                            'subfolders; - for standard input')
    p.add_argument('--json', action='store_true', help='print one JSON object per certificate')
    p.add_argument('-q', '--quiet', action='store_true', help='print only failures')
    p.add_argument('-j', '--jobs', type=int, default=len(os.sched_getaffinity(0)),
                   help='processes: several files at once, or one file\'s closure check split (%(default)s)')
    asked = p.add_argument_group('what the certificate must prove (else it is rejected)')
    asked.add_argument('--deal', type=int, metavar='N', help='this numbered deal')
    asked.add_argument('--range', type=deals, metavar='A-B', help='a range certificate of deals A..B')
    asked.add_argument('--claim', choices=['no-win', 'win', 'range'])
    asked.add_argument('--cells', type=int, metavar='K', help='K free cells')
    asked.add_argument('--foundation-moves', action=argparse.BooleanOptionalAction,
                       help="whether a foundation's top card may move back onto a column")
    asked.add_argument('--symmetry', choices=['columns', 'none'])
    limits = p.add_argument_group('limits (past one: UNREADABLE, exit 2)')
    limits.add_argument('--max-positions', type=int, metavar='N', default=LIMITS['positions'],
                        help='positions of a no-win (%(default)s)')
    limits.add_argument('--max-columns', type=int, metavar='N', default=LIMITS['columns'],
                        help='entries of a column table (%(default)s)')
    limits.add_argument('--max-moves', type=int, metavar='N', default=LIMITS['moves'],
                        help='moves of a win (%(default)s)')
    limits.add_argument('--range-moves', type=int, metavar='N', default=LIMITS['range-moves'],
                        help="a range's moves in all, N times its deals (%(default)s)")
    limits.add_argument('--range-positions', type=int, metavar='N', default=LIMITS['range-positions'],
                        help="a range's positions in all, N times its deals (%(default)s)")
    limits.add_argument('--memory', type=size, metavar='SIZE',
                        help='records past SIZE bytes (500M, 2G) go to a memory-mapped temporary file')
    p.add_argument('--version', action='version', version='check ' + importlib.metadata.version('freecell-certificates'))
    return p


def main(argv=None):
    p = parser()
    args = p.parse_args(argv)   # --help, --version and bad usage exit here: 0 or 2
    if not args.paths:
        p.exit(2, 'usage: check [options] CERTIFICATE|FOLDER|- ... (see check --help)\n')
    if args.jobs < 1:
        p.error(f'-j {args.jobs}: at least one process is needed')
    limits = {'positions': args.max_positions, 'columns': args.max_columns, 'moves': args.max_moves,
              'range-moves': args.range_moves, 'range-positions': args.range_positions, 'memory': args.memory}
    if min(v for v in limits.values() if v is not None) < 0:
        p.error('a limit cannot be negative')
    want = {'deal': args.deal, 'range': args.range, 'claim': args.claim, 'cells': args.cells,
            'foundation_moves': args.foundation_moves, 'symmetry': args.symmetry}
    todo = targets(args.paths)
    several = len(todo) > 1 or any(path != '-' and os.path.isdir(path) for path in args.paths)
    certificates = [(name_, path) for name_, path, why in todo if why is None]
    jobs = min(args.jobs, len(certificates))
    # One file: its closure check split across the processes; several: as many files at once.
    limits['jobs'] = args.jobs if len(certificates) == 1 else 1
    results = {}
    with concurrent.futures.ProcessPoolExecutor(jobs) if jobs > 1 else contextlib.nullcontext() as pool:
        for name_, path in certificates:
            if pool:
                results[name_, path] = pool.submit(timed_verify, name_, path, limits, want)
            else:
                results[name_, path] = timed_verify(name_, path, limits, want)
        verdicts = [report(name_, path, why, results.get((name_, path)), args, several) for name_, path, why in todo]
    n, ok = len(certificates), verdicts.count('verified')
    bad, rejected = verdicts.count('unreadable'), verdicts.count('rejected')
    if several and not args.json and not args.quiet:
        empty = len(todo) - n
        print(f'{n:,} certificate{"s" * (n != 1)}: {ok:,} verified, {n - ok:,} rejected' +
              f' ({bad - empty:,} unreadable)' * bool(bad - empty) +
              f'; {empty:,} folder{"s" * (empty != 1)} not read or holding no certificate' * bool(empty))
    return 1 if rejected else 2 if bad else 0


def report(shown_name, path, why, result, args, several):
    """Print one file's line (or JSON object); its verdict."""
    if why is not None:
        verdict, h, text, digest, seconds = 'unreadable', {}, why, None, 0.0
    else:
        try:
            verdict, h, text, digest, seconds = result.result() if hasattr(result, 'result') else result
        except Exception as e:   # a worker that died or could not send its answer: one line, the run goes on
            verdict, h, text, digest, seconds = 'unreadable', {}, f'internal error: {type(e).__name__}: {e}', None, 0.0
    if args.json:
        keys = ('claim', 'deal', 'first', 'last', 'unwinnable', 'cells', 'foundation_moves', 'symmetry', 'count')
        print(json.dumps({'path': str(path), 'verdict': verdict, **{k: h.get(k) for k in keys}, 'sha256': digest,
                          'seconds': seconds, 'reason': None if verdict == 'verified' else text}), flush=True)
    elif verdict != 'verified' or not args.quiet:
        line = f'{verdict.upper()}: {text}'
        print(printable(f'{shown_name}: {line}' if several else line), flush=True)
        if verdict == 'verified':
            print(f'  sha256 {digest}', flush=True)
    return verdict
