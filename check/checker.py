"""Verify FreeCell certificates (*.msgpack.zst), format versions 1 to 3. Exit 0: all VERIFIED (and
proving what --deal, ... ask); 1: some REJECTED; 2: none rejected, some UNREADABLE (or too big)."""
# Records, moves and entries count from 1, columns 1..8. Several files or folders: a line each,
# then a summary.
# The trusted core comes first, between the two marker lines: the cards and the deal, the moves and
# their effect, safe autoplay, the record encoding and its exact lookup, the start's test and the
# closure loop, the replay of a win, the won test, and the sentence the verdict prints from the
# header. Everything after the core (reading the file, the well-formedness of records, the limits,
# the command line) can only reject: it raises Rejected or Unreadable, or hands the core the data
# as it stands in the file. Whatever set of records reaches the core, the core's own checks (the
# start is one of them, every move from each leads to one of them, none is won) prove the sentence
# printed; a reader that mangled the records could only make those checks fail. Likewise a win's
# line reaches the core as a choice among the legal moves the core lists, so every move it plays is
# legal whatever the reader chose.
# "§n" is section n of the format document.
import argparse, concurrent.futures, contextlib, functools, hashlib, importlib.metadata, itertools
import json, mmap, multiprocessing, os, re, reprlib, select, shutil, signal, stat, struct, sys, \
    tempfile, time

import msgpack, xxhash, zstandard

# ---- trusted core: begin ----

CELL, FOUNDATION = 8, 9   # the destination codes of a move (§3, §7); 0..7 are columns 1..8
WON = bytes([13] * 4)     # the foundations of a won position: all 52 cards on them
BYTE = [bytes([b]) for b in range(256)]   # (one byte as bytes, made once)
RED = (False, True, True, False)          # diamonds and hearts


class Rejected(Exception): pass   # a readable certificate whose content fails the check: exit 1


def name(card): return 'A23456789TJQK'[card // 4] + 'CDHS'[card % 4]


def plural(n, word): return f'{n:,} {word}{"s" * (n != 1)}'


# The two cards that may go onto each card: one rank lower, of the other colour (a red 7 on a
# black 8).
GOES_ON = [[card - 4 - card % 4 + suit for suit in range(4)
            if card > 3 and RED[suit] != RED[card % 4]] for card in range(52)]


# The eight columns of deal n, bottom card first (§2).
def deal(n):
    # The state starts as n, or n - 2**32 from 2**32 on: that is n % 2**32.
    state, deck, cols = n % 2**32, list(range(52)), [bytearray() for _ in range(8)]
    for i in range(52):
        state = (state * 214013 + 2531011) % 2**32
        # 15 bits below 2**31; the same with the high bit set below 2**32; 16 bits, plus one, above.
        j = ((state >> 16) & 0x7fff if n < 2**31 else ((state >> 16) & 0x7fff) | 0x8000 if n < 2**32
             else ((state >> 16) & 0xffff) + 1) % len(deck)
        cols[i % 8].append(deck[j])
        deck[j] = deck[-1]   # the last card fills the place of the one taken
        deck.pop()
    return [bytes(col) for col in cols]


# Every legal move from a position (four foundation counts for C D H S, the cards in the free cells
# ascending, the eight columns bottom card first: all bytes), as (card, source, destination)
# coded like a win body (§1), one at a time in the move order (§7): to the foundation, onto
# columns 1..8, to a free cell, by ascending card within each (GOES_ON's lists ascend; the others
# are sorted).
# One at a time, so that a replay stops at the move it plays: most are among the first few.
def moves(found, free, cols, cells, foundation_moves):
    # The cards free to move, and where each is: the top card of a non-empty column, a card in a
    # free cell, and, only if the rules allow it, the top card of a non-empty foundation.
    source = dict.fromkeys(free, CELL)
    for c, col in enumerate(cols):
        if col: source[col[-1]] = c
    if foundation_moves:
        source.update({(n - 1) * 4 + suit: FOUNDATION for suit, n in enumerate(found) if n})
    # To its foundation: the next card of its suit, if it is free (a foundation's top card is not
    # the next card of its suit, so it never goes back onto its own foundation).
    for card in sorted([found[0] * 4, found[1] * 4 + 1, found[2] * 4 + 2, found[3] * 4 + 3]):
        if card in source: yield card, source[card], FOUNDATION
    # Onto a column: any free card if it is empty, else a card that goes on its top card.
    for dest, col in enumerate(cols):
        for card in GOES_ON[col[-1]] if col else sorted(source):
            if card in source: yield card, source[card], dest
    # To an empty free cell: only from a column (the cells are a set: no cell-to-cell moves).
    for card in sorted(source):
        if source[card] < 8 and len(free) < cells: yield card, source[card], CELL


# The position after moving card from source to dest: only the two places it touches change.
def after(found, free, cols, card, source, dest):
    cols, suit = list(cols), card % 4
    if source < 8: cols[source] = cols[source][:-1]
    elif source == CELL: free = free.replace(BYTE[card], b'')
    else: found = found[:suit] + BYTE[found[suit] - 1] + found[suit + 1:]
    if dest < 8: cols[dest] = cols[dest] + BYTE[card]
    elif dest == CELL: free = bytes(sorted(free + BYTE[card]))
    else: found = found[:suit] + BYTE[found[suit] + 1] + found[suit + 1:]
    return found, free, cols


# The cards that may go home and are safe there by Horne's rule (§8), given the foundations alone:
# a card of rank r whose other-colour foundations hold at least r - 1 cards and the other one of
# its colour at least r - 2 (so aces and twos always).
@functools.lru_cache(maxsize=None)
def safe(found): return [n * 4 + suit for suit, n in enumerate(found) if n < 13 and all(
    found[other] >= n - 1 - (RED[other] == RED[suit]) for other in range(4) if other != suit)]


# Safe autoplay (§8): a safe card on a column's top or in a free cell goes home, again until none
# is (in any order: a safe card stays safe as the foundations grow).
# Why records closed under "every move, then autoplay" prove that no position reachable by single
# moves is won: say Q covers P when Q is P with some cards moved home, each of them safe in Q. If a
# move takes P to P', then Q covers P' already (the card is home in Q), or Q can make the same move,
# or (the card goes onto one Q has sent home) Q sends the card home instead; the result, autoplayed,
# covers P'. The autoplayed start covers the start, so by induction a record covers every
# reachable position; a won position is covered only by a won one, and no record is won. A card
# taken back from a foundation would break the cover: autoplay is refused with foundation moves.
def autoplay(found, free, cols):
    tops = [col[-1:] for col in cols]   # (b'' for an empty column)
    for card in safe(found):
        if card in free or BYTE[card] in tops:
            source = CELL if card in free else tops.index(BYTE[card])
            return autoplay(*after(found, free, cols, card, source, FOUNDATION))
    return found, free, cols


# The records of a no-win, held flat (record k is rows[k*W:(k+1)*W]) and found by exact
# comparison: the hash of a record only picks the slot of the lookup table to start looking from.
# layout splits a record into its foundations, its cells and its eight column ids.
class Records:
    # The lookup table's slots hold record numbers from 1; 0 is a free slot.
    def __init__(self, *fields): self.rows, self.W, self.count, self.slots, self.layout = fields

    def __contains__(self, record):
        rows, W, slots, i = self.rows, self.W, self.slots, hash(record) % len(self.slots)
        while slots[i] and rows[(slots[i] - 1) * W:slots[i] * W] != record: i = (i + 1) % len(slots)
        return slots[i] != 0


# Step 5: the starting position (after autoplay, if the records are closed under it: §8) is one of
# the records.
def begins(records, index, rules, found, free, cols):
    auto = rules['closure'] == 'autoplay'
    if auto: found, free, cols = autoplay(found, free, cols)
    ids = [index.get(col, b'') for col in cols]   # (b'': a column not in the table)
    if rules['symmetry'] == 'columns': ids.sort()
    pad = b'\xff' * (rules['cells'] - len(free))
    if b'' in ids or found + free + pad + b''.join(ids) not in records:
        raise Rejected(f'the starting position{" after autoplay" * auto} '
                       f'({show(found, free, cols)}) is not one of the records')


# Records lo..hi-1 are closed: every legal move from each leads to one of the records (§3, step 7),
# after autoplay if the header says so (§8).
def close(records, column, index, rules, lo, hi):
    cells, sort_ids = rules['cells'], rules['symmetry'] == 'columns'
    auto = rules['closure'] == 'autoplay'
    rows, W, pad = records.rows, records.W, [b'\xff' * k for k in range(cells + 1)]
    for n in range(lo, hi):
        found, cellbytes, *ids = records.layout.unpack(rows[n * W:(n + 1) * W])
        free, cols = cellbytes.rstrip(b'\xff'), [column[i] for i in ids]
        for card, source, dest in moves(found, free, cols, cells, rules['foundation_moves']):
            # The position after() makes, by its column ids: only the (at most two) columns it
            # changes are looked up.
            to_found, to_free, to_cols = after(found, free, cols, card, source, dest)
            # A column not in the table has the id b'': the position's bytes are then too short to
            # be any record's, so it is not one of the records.
            to_ids = ids.copy()
            if source < 8: to_ids[source] = index.get(to_cols[source], b'')
            if dest < 8: to_ids[dest] = index.get(to_cols[dest], b'')
            if auto and (played := autoplay(to_found, to_free, to_cols))[0] != to_found:
                # Cards went home, from any columns: every column that differs is looked up.
                to_found, to_free, to_cols = played
                to_ids = [i if new == old else index.get(new, b'')
                          for i, old, new in zip(ids, cols, to_cols)]
            if sort_ids: to_ids.sort()   # canonical (§3): big-endian ids sort like their numbers
            if to_found + to_free + pad[cells - len(to_free)] + b''.join(to_ids) not in records:
                raise Rejected(leaves(n, found, free, cols, card, source, dest, auto))
        if (n + 1) % 8192 == 0: progress(f'record {n + 1:,} of {records.count:,} closed')


# A win's line of `steps` moves: before each, pick(n, position) gives the index of the move to play
# among the legal moves that moves() lists, in the move order (§7); the core plays that move. The
# last position must be won.
def replay(steps, pick, found, free, cols, cells, foundation_moves):
    for n in range(steps):
        i = pick(n, (found, free, cols))
        # The legal moves up to the one of index i: all of them, if there are not so many.
        legal = list(itertools.islice(moves(found, free, cols, cells, foundation_moves), i + 1))
        if len(legal) <= i: raise Rejected(f'move {n + 1}: index {i} is not below the '
                                           f'{len(legal)} legal moves')
        found, free, cols = after(found, free, cols, *legal[i])
    if found != WON: raise Rejected(f'after all {steps:,} moves the position is not won: '
                                    f'{show(found, free, cols)}')


# What a verified certificate proves, from the header values the check used.
def theorem(h, path):
    rules = (f'{plural(h["cells"], "free cell")}, single-card moves, ' +
             ("a foundation's top card may go back onto a column" if h['foundation_moves']
              else 'no moves off foundations'))
    if h['claim'] == 'range':   # (FreeCell Pro's numbers extend Microsoft's 1..2**31 - 1)
        who, lost = ('Microsoft FreeCell deals' if h['last'] < 2**31
                     else "FreeCell Pro's extended deals" if h['first'] >= 2**31
                     else "FreeCell Pro's deals"), h['unwinnable']
        return (f'of {who} {h["first"]:,}..{h["last"]:,} ({rules}) exactly {len(lost):,} cannot be '
                f'won{": " * bool(lost)}{", ".join(map(str, lost))}; each of the other '
                f'{h["count"] - len(lost):,} is won by a line that replays')
    who = (f'the layout in {path}' if h['deal'] is None else f"FreeCell Pro's extended deal "
           f"{h['deal']}" if h['deal'] >= 2**31 else f'Microsoft FreeCell deal {h["deal"]}')
    if h['claim'] == 'win':
        return (f'{who} ({rules}) can be won: {plural(h["count"], "single-card move")} '
                f'replay{"s" * (h["count"] == 1)} to a won position')
    return (f'{who} ({rules}) cannot be won: {plural(h["count"], "position")} closed under every '
            f'legal move{" then safe autoplay" * (h["closure"] == "autoplay")}, none won')

# ---- trusted core: end ----
# Below: reading, well-formedness, limits and the command line. They reject; they never accept.


class Unreadable(Exception): pass   # not a certificate, or more work than the limits allow: exit 2


def need(ok, reason, failure=Rejected):
    if not ok: raise failure(reason)


def within(n, key, limits): need(n <= limits[key], f'{n:,} {key}: more than --max-{key} '
                                                   f'{limits[key]:,}', Unreadable)


def integer(x, low, high): return type(x) is int and low <= x <= high   # (type(True) is bool)


# The default limits on one certificate, or one entry of a range, and on a range in all (§5): N a
# deal and N a byte of the file read, each with one certificate's worth more. The largest published
# no-win has 2,449,032 positions (4.0 a byte of its file) and a column table of 844 entries; the
# longest win line of deals 1..1,000,000 has 235 moves, and the wins of 1..32,000 have 121 on
# average, 2.1 a byte of their range. Bytes bound what deals cannot: a line padded with moves in a
# circle costs almost no bytes, and the deals' budget lets it ask twice an honest line of each.
LIMITS = {'positions': 4_000_000, 'columns': 1_000_000, 'moves': 100_000, 'memory': None,
          'range-moves': 250, 'range-positions': 10_000, 'byte-moves': 4, 'byte-positions': 16}
KEYS = set('format version claim deal board cells foundation_moves symmetry count xxh3_64'.split())
# The header's values that --json shows (closure: 'moves' when the key is absent).
SHOWN = 'claim deal first last unwinnable cells foundation_moves symmetry closure count'.split()
SPLIT = 8192     # records (or a range's wins) from which the check is split across processes (-j)
CHUNK = 2**20    # the records of a version 3 chunk (§7); the last chunk holds the rest


# replay()'s choice for a version 1 or 2 line (with body and rules given): the index of the legal
# move of move n's card and destination bytes; else why not, with where the card may go instead.
def named(body, rules, n, position):
    card, dest, cells_fm = body[2 * n], body[2 * n + 1], (rules['cells'], rules['foundation_moves'])
    # The moves listed only up to the one named (the replay lists them again up to its index).
    for i, (c, _, d) in enumerate(moves(*position, *cells_fm)):
        if (c, d) == (card, dest): return i
    need(card < 52 and dest < 10, f'move {n + 1}: bytes {card}, {dest} are not a move')
    could = ', '.join(PLACE[d] for c, _, d in moves(*position, *cells_fm) if c == card)
    raise Rejected(f'move {n + 1} ({name(card)} to {PLACE[dest]}) is illegal: {name(card)} '
                   f'{"may go only to " + could if could else "cannot move"}; before it: '
                   f'{show(*position)}')


# Why record n + 1 is not closed.
def leaves(n, found, free, cols, card, source, dest, auto): return (
    f'record {n + 1} ({show(found, free, cols)}): moving {name(card)} from {PLACE[source]} to '
    f'{PLACE[dest]}{" then autoplay" * auto} gives a position not in the certificate')


PLACE = [f'column {c + 1}' for c in range(8)] + ['a free cell', 'its foundation']   # by code


# A position in words: foundation top cards, cell cards, columns 1..8 bottom to top.
def show(found, free, cols):
    tops = ' '.join(name((n - 1) * 4 + s) if n else '--' for s, n in enumerate(found))
    return (f'foundations {tops}; cells {" ".join(map(name, sorted(free))) or "-"}; '
            f'columns {" | ".join(" ".join(map(name, col)) or "-" for col in cols)}')


# The cards that foundations with these counts do not hold, ascending.
@functools.lru_cache(maxsize=None)
def off_foundation(found): return [card for card in range(52) if card // 4 >= found[card % 4]]


# Why these parts are not a well-formed position (§3, step 4), or None.
def problem(found, cellbytes, cols):
    free = cellbytes.rstrip(b'\xff')
    if max(found) > 13: return 'a foundation count is above 13'
    if b'\xff' in free or list(free) != sorted(set(free)):
        return 'the cells are not ascending cards, then 0xFF'
    if sorted(free + b''.join(cols)) != off_foundation(bytes(found)):
        return 'the 52 cards are not each in one place'


# ---- The file (§3, §5, §6, §7) ----

# The decompressed bytes of the file's zstd frames (one after another, §3), in order, each held
# once: a taken piece leaves the buffer. A piece must end by `end` (the end of the body being read,
# if set); once `hash` is set, that xxh3 hasher sees every byte taken. The file's own bytes are
# hashed (SHA-256) as they are read, and never more are read than its size said (a file in /proc
# says 0 and never ends). A file refused before its end is not read on: it has no digest.
class Stream:
    def __init__(self, f, shown, size):
        self.f, self.shown, self.size, self.got, self.sha = f, shown, size, 0, hashlib.sha256()
        self.buf, self.taken, self.end, self.hash, self.begun = bytearray(), 0, None, None, 0
        self.d, self.ended = zstandard.ZstdDecompressor().decompressobj(read_across_frames=False), 0

    def digest(self): return self.sha.hexdigest() if self.ended else None   # (read to its end)

    def fill(self, n):   # decompress until n bytes wait or the file ends; whether they wait
        while len(self.buf) < n:
            # 1 KiB of compressed bytes a step: zstd inflates 4 bytes to 128 KiB at most. A frame
            # that has ended leaves the bytes after it (unused_data, empty until then): the next.
            chunk = self.d.unused_data
            if not chunk:   # (what is read is what is hashed, and never more than the size said)
                self.sha.update(chunk := self.f.read(1024))
                self.got, self.ended = self.got + len(chunk), not chunk
                need(self.size is None or self.got <= self.size, f'{self.shown} yields more bytes '
                     f'than its size ({self.size or 0:,})', Unreadable)
            need(chunk or self.d.eof, f'{self.shown} is empty' if not self.got else
                 f'{self.shown}: its zstd frame is cut short', Unreadable)
            if not chunk: return False
            if self.d.eof:
                self.d = zstandard.ZstdDecompressor().decompressobj(read_across_frames=False)
                self.begun = self.taken + len(self.buf)   # the bytes out when this frame began
            self.buf += self.d.decompress(chunk)   # (a zstandard.ZstdError is caught in verify())
            # Every frame holds data (§3): frames cannot outnumber the bytes, nor work forever.
            need(not self.d.eof or self.taken + len(self.buf) > self.begun,
                 'a zstd frame holds no data', Unreadable)
        return True

    def take(self, n, what):
        need(self.end is None or self.taken + n <= self.end, f'the body ends inside {what}')
        need(self.fill(n), f'{what} is cut short: the data of {self.shown} ends early')
        piece = bytes(memoryview(self.buf)[:n])
        self.taken += n
        del self.buf[:n]
        if self.hash: self.hash.update(piece)
        return piece

    def finish(self, what, xxh3_64, failure=Unreadable):   # nothing may follow in any frame; hash
        need(not self.fill(1), f'{what} has data after it: the data decompresses to more than it '
                               'holds', failure)
        need(self.hash.hexdigest() == xxh3_64, f'{what} does not match its xxh3_64: it is corrupt')


# A msgpack map as a dict, refusing repeated keys (a dict would silently keep the last).
def strict_map(pairs):
    need(len(dict(pairs)) == len(pairs), 'a msgpack map repeats a key', Unreadable)
    return dict(pairs)


# The header map (msgpack's errors as one-line reasons), each value's type checked before any
# use, against the tables of §3 and §6. It must decode from the first 64 KiB (§3).
def header(s):
    s.fill(65536)
    unpacker = msgpack.Unpacker(max_buffer_size=65536, max_array_len=16, max_map_len=16,
                                object_pairs_hook=strict_map)
    unpacker.feed(bytes(s.buf[:65536]))
    try: h = unpacker.unpack()
    except (msgpack.OutOfData, ValueError) as e:   # msgpack's errors: format, limits, nesting
        why = 'is cut short' if type(e) is msgpack.OutOfData else f'is not valid msgpack ({e!r})'
        raise Unreadable(f'the header (in the first 64 KiB) {why}') from None
    s.take(unpacker.tell(), 'the header')
    need(type(h) is dict, 'the file does not start with a msgpack map', Unreadable)
    keys = (KEYS - {'deal', 'board'} | {'first', 'last'} if (ranged := h.get('claim') == 'range')
            else KEYS)
    need(set(h) - {'closure'} == keys,   # (closure is optional: §8)
         f'the header keys are not exactly: {", ".join(sorted(keys))}', Unreadable)
    # Each test runs only once those before it have passed (first's type before last >= first).
    tests = [('format', lambda: h['format'] == 'freecell-certificate'),
             ('version', lambda: integer(h['version'], 1 + ranged, 3)),
             ('claim', lambda: ranged or h['claim'] in ('no-win', 'win')),
             ('cells', lambda: integer(h['cells'], 0, 8)),
             ('foundation_moves', lambda: type(h['foundation_moves']) is bool),
             ('symmetry', lambda: h['symmetry'] in ('columns', 'none')),
             ('count', lambda: integer(h['count'], 0, 2**64 - 1)),
             ('xxh3_64', lambda: type(h['xxh3_64']) is str   # 16 lowercase hex digits
              and re.fullmatch('[0-9a-f]{16}', h['xxh3_64']))] + (
        [('first', lambda: integer(h['first'], 1, 2**33 - 1)),
         ('last', lambda: integer(h['last'], h['first'], 2**33 - 1))] if ranged else
        [('deal', lambda: h['deal'] is None or integer(h['deal'], 1, 2**33 - 1)),   # or board
         ('board', lambda: type(h['board']) is (bytes if h['deal'] is None else type(None)))]) + (
        [('closure', lambda: h['closure'] == 'autoplay' and h['version'] == 3   # only so (§8)
          and h['claim'] != 'win' and not h['foundation_moves'])] if 'closure' in h else [])
    for key, ok in tests: need(ok(), f'header {key} = {reprlib.repr(h[key])} is not allowed',
                               Unreadable)   # (reprlib: a few characters, however long or deep)
    h.setdefault('closure', 'moves')   # without the key: closed under every legal move alone
    return h


# The msgpack formats of the values after the header (all of msgpack a body or an entry needs):
# the kind, and its value or length, in the first byte or in the 1, 2, 4 or 8 big-endian bytes
# after it. An int may be in any of msgpack's forms, the signed ones too (§3).
FIXED = {b: ('int', b) if b < 128 else ('array', b - 144) if b < 160 else ('str', b - 160)
         if b < 192 else ('int', b - 256) for b in range(256) if b >> 4 != 8 and b >> 5 != 6}
SIZED = {0xc4: ('bin', 1), 0xc5: ('bin', 2), 0xc6: ('bin', 4), 0xcc: ('int', 1), 0xcd: ('int', 2),
         0xce: ('int', 4), 0xcf: ('int', 8), 0xd0: ('int', 1), 0xd1: ('int', 2),
         0xd2: ('int', 4), 0xd3: ('int', 8), 0xd9: ('str', 1), 0xda: ('str', 2), 0xdb: ('str', 4),
         0xdc: ('array', 2), 0xdd: ('array', 4)}


# The value (an int) or the length (an array, bin or str) of the next msgpack value, of this kind.
def expect(s, kind, what, failure=Rejected):
    first = s.take(1, what)[0]
    got, n = FIXED.get(first) or SIZED.get(first, (None, 0))
    need(got == kind, f'{what} is not a msgpack {kind}', failure)
    return (int.from_bytes(s.take(n, what), 'big', signed=0xd0 <= first <= 0xd3) if first in SIZED
            else n)


# ---- The certificates (§2, §3, §6, §7) ----

# The starting position: the numbered deal, or the custom board, checked like a record.
def start(h):
    if h['deal'] is not None: return bytes(4), b'', deal(h['deal'])
    board, cells = h['board'], h['cells']
    found, cellbytes, cols = board[:4], board[4:4 + cells], board[4 + cells:].split(b'\xff')
    need(len(board) >= 4 + cells and len(cols) == 9 and not cols[8],
         'the board is not four counts, the cells and eight columns each ended by 0xFF')
    need(not problem(found, cellbytes, cols[:8]),
         f'the board is not a position: {problem(found, cellbytes, cols[:8])}')
    return found, cellbytes.rstrip(b'\xff'), cols[:8]


# A win's body: versions 1 and 2, the body bin (ending at s.end) of a card and a destination a move
# (§3); version 3, a bin of a move's index a move (§7). read() runs once the body is read (for a
# single certificate: nothing may follow it, and its hash must match).
# play() is given the replay itself, to run at once or (in a range) later with other entries'.
def check_win(s, rules, limits, read=lambda: None, play=lambda line: line()):
    count, v3 = rules['count'], rules['version'] == 3
    within(count, 'moves', limits)
    size = expect(s, 'bin', 'the moves') if v3 else s.end - s.taken
    need(size == (2 - v3) * count, f'the body has {size} bytes, not {2 - v3} x count')
    body, s.end = s.take(size, 'the body'), None
    read()
    play(lambda: replay(count, (lambda n, position: body[n]) if v3 else
                        functools.partial(named, body, rules), *start(rules), rules['cells'],
                        rules['foundation_moves']))


# nbytes of zeros: in memory, or (past the --memory budget) in a memory-mapped temporary file.
def space(nbytes, spill):
    if not spill: return bytearray(nbytes)
    with tempfile.TemporaryFile() as f:   # (its room taken now: a full disk is an OSError here,
        os.posix_fallocate(f.fileno(), 0, max(nbytes, 1))   # not a SIGBUS at a page's first write)
        return memoryview(mmap.mmap(f.fileno(), max(nbytes, 1)))[:nbytes]


# A no-win's body: versions 1 and 2, [column table, records] in the body bin (ending at s.end);
# version 3, the table and then the chunks. The table and the records are checked as they are read
# (steps 2, 3, 4 and 6), the limits and the sizes that follow from count (§5, §7) before anything
# large is read; then read() runs (as for a win); then steps 5 and 7.
def check_nowin(s, rules, limits, read=lambda: None):
    count, cells, version, table = rules['count'], rules['cells'], rules['version'], []
    within(count, 'positions', limits)
    need(version == 3 or expect(s, 'array', 'the body') == 2, 'the body is not [columns, records]')
    within(columns := expect(s, 'array', 'the column table'), 'columns', limits)
    need(columns <= 8 * count, f'the column table has {columns:,} entries: more than 8 x count')
    for i in range(columns):   # step 2 (an entry of more than 52 bytes is refused on its first 53)
        col = s.take(min(expect(s, 'bin', f'column table entry {i}'), 53), f'column {i}')
        entry = f'column table entry {i} ({col.hex()})'
        need(len(col) <= 52 and max(col, default=0) < 52, f'{entry} is not cards')
        need(not table or table[-1] < col, f'{entry} is not sorted')
        table.append(col)
    W = 4 + cells + 8 * (w := 2 if columns <= 65536 else 3 if columns <= 2**24 or version < 3
                         else 4)   # (w: an id's bytes)
    if version == 1:   # front-coded: at most count x (W + 1) bytes, a byte more a record
        nbytes = expect(s, 'bin', 'the records')
        need(nbytes <= count * (W + 1), f'records: {nbytes} bytes for {count}')
    # Past the --memory budget, the records and their lookup table go to memory-mapped files.
    spill = limits['memory'] is not None and count * (W + 6) > limits['memory']
    try:
        rows = space(count * W, spill)
        produced = (unfront(s.take(nbytes, 'the records'), W) if version == 1 else
                    planes(s, rows, W, count, CHUNK if version == 3 else max(count, 1)))
        # The lookup table: half as many slots again as records, each a record's number.
        slots = space((count + count // 2 + 1) * (4 if count < 2**32 - 1 else 8), spill)
        records = Records(rows, W, count, memoryview(slots).cast('I' if count < 2**32 - 1 else 'Q'),
                          struct.Struct(f'4s{cells}s' + f'{w}s' * 8))
        index = {col: i.to_bytes(w, 'big') for i, col in enumerate(table)}
        column = {i: col for col, i in index.items()}
        well_formed(records, produced, column, rules)
        need(s.end in (None, s.taken), 'the body has data after it')
        s.end = read()   # (None: nothing more of this body)
        begins(records, index, rules, *start(rules))   # step 5
        in_parts(close, (records, column, index, rules), count, limits.get('jobs', 1))   # step 7
    except MemoryError:
        raise Unreadable(f'not enough memory for {count:,} positions: --max-positions / --memory')


# The records as byte planes, into rows, each yielded once its chunk is in: chunks of `chunk`
# records (the last holding the rest), each a bin of exactly its n records x W bytes, byte j of its
# record k at j x n + k. Version 2 is one chunk of them all; version 3 has chunks of CHUNK (§7).
def planes(s, rows, W, count, chunk):
    for lo in range(0, count, chunk):
        n, nbytes = min(chunk, count - lo), expect(s, 'bin', 'the records')
        need(nbytes == n * W, f'records: {nbytes} bytes for {n}' +
             f' (chunk {lo // chunk + 1})' * (chunk < count))
        for j in range(W): rows[lo * W + j:(lo + n) * W:W] = s.take(n, 'the records')
        yield from (bytes(rows[k * W:(k + 1) * W]) for k in range(lo, lo + n))


# Steps 3, 4 and 6: the records produced, count of them, ascending, each a position, none won;
# every column of the table used. Each is put in its row (version 1) and in the lookup table
# (where it is put only decides where a lookup starts: membership is the row's bytes, compared in
# Records). In the loop a reason is built only when it is raised: an `if`, not need().
def well_formed(records, produced, column, rules):
    rows, count, W, slots = records.rows, records.count, records.W, records.slots
    used, n, previous, sort_ids = set(), 0, b'', rules['symmetry'] == 'columns'
    for n, rec in enumerate(produced, 1):
        if rec <= previous: raise Rejected(f'records: record {n} does not sort after the last')
        found, cellbytes, *ids = records.layout.unpack(rec)   # its foundations, cells, column ids
        cols = [column.get(i) for i in ids]
        why = ('a column id is beyond the table' if None in cols else 'its column ids are not '
               'ascending' if sort_ids and ids != sorted(ids) else problem(found, cellbytes, cols))
        if why: raise Rejected(f'record {n} ({rec.hex()}) is not a well-formed position: {why}')
        if found == WON: raise Rejected(f'record {n} ({show(found, b"", cols)}) is won')
        if n > count: break
        if rules['version'] == 1: rows[(n - 1) * W:n * W] = rec
        used.update(ids)
        i = hash(rec) % len(slots)   # its slot: the first free one from its hash on
        while slots[i]: i = (i + 1) % len(slots)
        slots[i], previous = n, rec
        if n % 65536 == 0: progress(f'record {n:,} of {count:,} read')
    need(n == count, f'records: there are {n}{"+" * (n > count)}, not count = {count}')
    # Stricter than soundness needs, for one certificate per theorem: no unused column in the table.
    unused = [int.from_bytes(i, 'big') for i in set(column) - used]
    need(not unused, f'column table entry {min(unused, default=0)} is unused')


# The records of a version 1 body, front-coded: each is p bytes of the one before, then W - p new;
# p is the whole shared prefix, so the byte after it differs (the order is checked by the reader).
def unfront(data, W):
    prev, i, n = b'', 0, 0
    while i < len(data):
        n, p = n + 1, data[i]
        rec = prev[:p] + data[i + 1:i + 1 + W - p]
        if p >= W: raise Rejected(f'records: record {n} says it shares {p} bytes')
        if len(rec) != W: raise Rejected(f'records: record {n} is cut short')
        if n > 1 and rec > prev and rec[p] == prev[p]:
            raise Rejected(f'records: record {n} shares more than its stated {p} bytes')
        yield rec
        prev, i = rec, i + 1 + W - p


# work(*shared, lo, hi) for the records 0..count-1: here, or in `jobs` processes forked now (the
# records shared, read-only, not copied), each on its share; the first failure in record order
# is the one raised (by list()). The forked processes inherit share.job, what share() runs; it is
# let go after (the records are not kept alive after their check).
def in_parts(work, shared, count, jobs):
    if jobs <= 1 or count < SPLIT: return work(*shared, 0, count)
    share.job, fork = (work, shared), multiprocessing.get_context('fork')
    try:
        with concurrent.futures.ProcessPoolExecutor(jobs, mp_context=fork) as pool:
            list(pool.map(share, [count * k // jobs for k in range(jobs)],
                          [count * (k + 1) // jobs for k in range(jobs)]))
    except concurrent.futures.process.BrokenProcessPool:
        raise Unreadable('a checking process ended early') from None
    finally: share.job = None


def share(lo, hi):
    if lo: PROGRESS['next'] = float('inf')   # (progress from the first share only)
    share.job[0](*share.job[1], lo, hi)


# The replays lo..hi-1 of a range's wins waiting in `later`, (entry, deal, replay) each.
def replay_some(later, lo, hi):
    for i, number, line in later[lo:hi]:
        try: line()
        except Rejected as e: raise Rejected(f'entry {i + 1} (deal {number}): {e}') from None


# The entries of a range certificate (§6, §7), each checked as it streams in, exactly as the
# single certificate of its deal would be; the work of the whole range bounded by its deals and by
# the bytes read so far (so by the file's size).
# Version 3: an entry is [deal, claim, count] and then its body values, not a body bin.
# The wins wait in `later` and replay SPLIT at a time, split across the processes (in_parts) while
# reading waits; what fails first in entry order is what is raised (so before a failure is raised
# the wins read before it replay).
def check_range(h, s, limits):
    need(h['count'] == h['last'] - h['first'] + 1, f'count = {h["count"]}, not last - first + 1')
    s.hash, unwinnable, spent, later = xxhash.xxh3_64(), [], {'moves': 0, 'positions': 0}, []
    for i, number in enumerate(range(h['first'], h['last'] + 1)):
        try:
            need(expect(s, 'array', 'the entry') == 4 - (h['version'] == 3),
                 'the entry is not [deal, claim, count' + ', body' * (h['version'] < 3) + ']')
            need((got := expect(s, 'int', 'its deal')) == number, f'the entry is for deal {got}')
            claim = s.take(min(expect(s, 'str', 'its claim'), 7), 'its claim').decode('latin-1')
            need(claim in ('win', 'no-win'), f'its claim {claim!r} is not "win" or "no-win"')
            rules = {**h, 'deal': number, 'board': None, 'claim': claim,
                     'count': (count := expect(s, 'int', 'its count'))}
            need(count >= 0, f'its count {count} is negative')
            spent[kind := 'moves' if claim == 'win' else 'positions'] += rules['count']
            for per, n, unit, where in (('range', h['count'], 'deal', 'in all'),
                                        ('byte', s.got, 'byte', f'in its first {s.got:,} bytes')):
                need(spent[kind] <= (most := limits[f'{per}-{kind}'] * n + limits[kind]),
                     f'the range holds more than {most:,} {kind} {where}: --{per}-{kind} a {unit}, '
                     f'and --max-{kind} more', Unreadable)
            if h['version'] < 3: s.end = expect(s, 'bin', 'its body') + s.taken   # (taken after)
            if claim == 'no-win': check_nowin(s, rules, limits)
            else: check_win(s, rules, limits, play=lambda line: later.append((i, number, line)))
        except (Rejected, Unreadable) as e:
            in_parts(replay_some, (later,), len(later), limits.get('jobs', 1))
            raise type(e)(f'entry {i + 1} (deal {number}): {e}') from None
        if claim == 'no-win': unwinnable.append(number)
        if len(later) == SPLIT or number == h['last']:
            in_parts(replay_some, (later,), len(later), limits.get('jobs', 1))
            later.clear()
        progress(f'deal {number:,} ({i + 1:,} of {h["count"]:,})')
    s.finish('the range', h['xxh3_64'], Rejected)
    return {**h, 'unwinnable': unwinnable}


# Where the header says something other than what the command line asked (--deal, --claim, ...;
# --range A-B asks first and last), or None. What the file is about is said in words.
def differs(h, want):
    first, last = want.get('range') or (None, None)
    about = (f'a range, deals {h.get("first")}..{h.get("last")}' if h['claim'] == 'range' else
             f'deal {h["deal"]}' if h['deal'] else 'a custom layout')
    for key, asked in {**want, 'first': first, 'last': last}.items():
        if key in KEYS | {'first', 'last', 'closure'} and asked is not None and h.get(key) != asked:
            option = 'range' if key in ('first', 'last') else key.replace('_', '-')
            return (f'it is {about}, not ' + (f'deal {asked}' if key == 'deal' else
                                              f'deals {first}..{last}') + f' (--{option})'
                    if key in ('deal', 'first', 'last') else
                    f'its {key} is {h.get(key)!r}, not {asked!r} (--{option})')


# (verdict, header or {}, the theorem or the reason it fails, sha256 of the file or None). The file
# is opened without waiting: a FIFO is refused, not read; - is standard input (a pipe too).
def verify(path, limits=LIMITS, want=None):
    shown_path, h, s, f = 'standard input' if str(path) == '-' else str(path), {}, None, None
    try:
        f = open(os.dup(0) if str(path) == '-' else os.open(path, os.O_RDONLY | os.O_NONBLOCK),
                 'rb')
        regular = stat.S_ISREG((st := os.fstat(f.fileno())).st_mode)
        # (A device with nothing to read at once, such as /dev/null, is read: it is empty.)
        need(regular or str(path) == '-' and stat.S_ISFIFO(st.st_mode) or stat.S_ISCHR(
            st.st_mode) and select.select([f], [], [], 0)[0] and not f.read(1),
             f'{shown_path} is not a regular file', Unreadable)
        s = Stream(f, shown_path, st.st_size if regular else None)
        h = header(s)
        need(not (mismatch := differs(h, want or {})),
             f'the file does not prove what was asked: {mismatch}')
        if h['claim'] == 'range': h = check_range(h, s, limits)
        else:   # the hash covers the body bin's bytes (version 3: all after the header)
            need(h['claim'] == 'no-win' or h['symmetry'] == 'none', 'a win must have symmetry none')
            if h['version'] < 3: s.end = expect(s, 'bin', 'the body', Unreadable) + s.taken
            s.hash = xxhash.xxh3_64()
            (check_win if h['claim'] == 'win' else check_nowin)(
                s, h, limits, lambda: s.finish('the body', h['xxh3_64']))
        return 'verified', h, theorem(h, path), s.digest()
    except (Rejected, Unreadable) as e:
        return type(e).__name__.lower(), h, str(e), s.digest() if s else None
    except (zstandard.ZstdError, OSError) as e:   # (OSError: also no room for --memory's files)
        return 'unreadable', h, (
            f'cannot read {shown_path}: {e.strerror or e}' if isinstance(e, OSError) else
            f'{shown_path} is not a certificate: not a valid zstd frame ({e})'), (
            s.digest() if s else None)
    except Exception as e:   # the last guard: an unforeseen failure is one line, never a verdict
        return 'unreadable', {}, f'internal error: {type(e).__name__}: {e}', None
    finally:
        if f: f.close()


# ---- The command line ----

# Text with control and other unprintable characters escaped, so a name cannot redraw the screen.
def printable(text): return ''.join(c if c.isprintable() else ascii(c)[1:-1] for c in text)


# Progress of a long check: a line on stderr every 10 seconds, for a terminal and a log alike.
PROGRESS = {'label': '', 'next': time.monotonic() + 10}


def progress(text):
    if time.monotonic() < PROGRESS['next']: return
    print(printable(f'{PROGRESS["label"]}: {text}')[:shutil.get_terminal_size().columns - 1],
          file=sys.stderr)
    PROGRESS['next'] = time.monotonic() + 10


# (the name to print, the path, a reason it is not a certificate or None) for each argument: a
# file as it is, a folder as each *.msgpack.zst in it and its subfolders, a folder at a time,
# without recursion (a tree may be nested thousands deep).
def targets(paths):
    found = []
    for p in paths:
        folder = p != '-' and os.path.isdir(p)
        if not folder: found.append((p if p == '-' else os.path.basename(p), p, None))
        inside, unread, todo = [], [], [p] if folder else []
        while todo:
            where = todo.pop()
            try: entries = list(os.scandir(where))
            except OSError as e: unread.append((where, where, f'cannot read the folder {where}: '
                                                              f'{e.strerror or e}'))
            else:
                todo += (folders := [e.path for e in entries if e.is_dir(follow_symlinks=False)])
                inside += [e.path for e in entries
                           if e.name.endswith('.msgpack.zst') and e.path not in folders]
        found += [(os.path.relpath(f, p), f, None) for f in sorted(inside)] + sorted(unread)
        if folder and not inside and not unread:
            found.append((p, p, f'{p} holds no certificate (*.msgpack.zst)'))
    return found


def size(text): return (   # 500M, 2G, 100000: a number of bytes
    int(text[:-1]) << 10 * ('KMGT'.index(text[-1].upper()) + 1)
    if text[-1:].upper() in ('K', 'M', 'G', 'T') else int(text))


CORES = len(os.sched_getaffinity(0))   # the processors this process may run on
N = dict(type=int, metavar='N')
# The options: what the certificate must prove (else it is REJECTED), the limits (past one, a
# file is UNREADABLE; their defaults are LIMITS), the rest.
OPTIONS = [
    (['paths'], dict(nargs='*', help='files, folders and subfolders, - for standard input')),
    (['--deal'], dict(N, help='what the file must prove (else it is REJECTED): its deal N, ...')),
    (['--range'], dict(type=lambda text: tuple(map(int, text.partition('-')[::2])), metavar='A-B')),
    (['--claim'], dict(choices=['no-win', 'win', 'range'])),
    (['--cells'], N),
    (['--foundation-moves'], dict(action=argparse.BooleanOptionalAction)),
    (['--symmetry'], dict(choices=['columns', 'none'])),
    (['--closure'], dict(choices=['moves', 'autoplay'])),
    (['--max-positions'], dict(N, dest='positions', help='limits (past one a file is UNREADABLE): '
                                                         'positions of a no-win (%(default)s)')),
    (['--max-moves'], dict(N, dest='moves', help='moves of a win (%(default)s)')),
    (['--max-columns'], dict(N, dest='columns', help='entries of a column table (%(default)s)')),
    (['--range-moves'], dict(N, help="a range's moves in all, N a deal (%(default)s)")),
    (['--range-positions'], dict(N, help="a range's positions in all, N a deal (%(default)s)")),
    (['--byte-moves'], dict(N, help="a range's moves in all, N a byte of it read (%(default)s)")),
    (['--byte-positions'], dict(N, help="and its positions, N a byte (%(default)s)")),
    (['--memory'], dict(type=size, metavar='SIZE', help='past SIZE (2G), records go to disk')),
    (['--json'], dict(action='store_true', help='print one JSON object per certificate')),
    (['-q', '--quiet'], dict(action='store_true', help='print only failures')),
    (['-j', '--jobs'], dict(N, default=CORES, help="processes: files at once, or one file's "
                                                   'closure split (%(default)s)')),
    (['--version'], dict(action='version', version='check ' +
                         importlib.metadata.version('freecell-certificates'))),
]


def main(argv=None):
    p = argparse.ArgumentParser('check', description=__doc__)
    for flags, settings in OPTIONS: p.add_argument(*flags, **settings)
    p.set_defaults(**{key.replace('-', '_'): value for key, value in LIMITS.items()})
    args = p.parse_args(argv)   # --help, --version and bad usage exit here: 0 or 2
    # Run as a program (not called with arguments): a reader gone ends it quietly, as cat does.
    if argv is None: signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    if not args.paths: p.exit(2, 'usage: check [options] CERTIFICATE|FOLDER|- ... (see --help)\n')
    limits, (first, last) = {key: getattr(args, key.replace('-', '_')) for key in LIMITS}, (
        args.range or (1, 1))
    # Bad usage (exit 2), as is a pin that no file can meet.
    for bad, why in ((args.jobs < 1, f'-j {args.jobs}: at least one process is needed'),
                     (min(v for v in limits.values() if v is not None) < 0,
                      'a limit cannot be negative'),
                     (args.deal is not None and not 1 <= args.deal < 2**33,
                      f'--deal {args.deal}: no deal has that number (1..8,589,934,591)'),
                     (not 1 <= first <= last < 2**33,
                      f'--range {first}-{last}: no range is that (1 <= A <= B <= 8,589,934,591)'),
                     (not 0 <= (args.cells or 0) <= 8,
                      f'--cells {args.cells}: no rules have that many free cells (0..8)')):
        if bad: p.error(why)
    todo = targets(args.paths)
    several = len(todo) > 1 or any(path != '-' and os.path.isdir(path) for path in args.paths)
    # One file: its closure check split across the processes; several: as many files at once, each
    # in a process of its own. More processes than cores would only take turns.
    jobs = min(args.jobs, CORES, sum(why is None for *_, why in todo))
    limits['jobs'] = 1 if jobs > 1 else min(args.jobs, CORES)
    with (concurrent.futures.ProcessPoolExecutor(jobs) if jobs > 1
          else contextlib.nullcontext()) as pool:   # (each line printed in order, once it is done)
        answers = [pool.submit(timed_verify, *target[:2], limits, vars(args))
                   if pool and not target[2] else None for target in todo]
        verdicts = [report(*target, answer, args, several, limits)
                    for target, answer in zip(todo, answers)]
    n, ok = sum(why is None for *_, why in todo), verdicts.count('verified')
    bad = verdicts.count('unreadable') - (empty := len(todo) - n)   # (folders apart)
    if several and not args.json and not args.quiet:
        print(f'{plural(n, "certificate")}: {ok:,} verified, {n - ok:,} rejected' +
              f' ({bad:,} unreadable)' * bool(bad) +
              f'; {plural(empty, "folder")} not read or holding no certificate' * bool(empty))
    return 1 if 'rejected' in verdicts else 2 if bad or empty else 0


# verify(), with the progress label and the seconds it took (in a worker when several are checked);
# -q (want['quiet']) prints failures only, so no progress either.
def timed_verify(shown, path, limits, want):
    began = time.perf_counter()
    PROGRESS.update(label=str(shown), next=float('inf') if want['quiet'] else time.monotonic() + 10)
    return *verify(path, limits, want), round(time.perf_counter() - began, 3)


# Print one file's line (or JSON object): its answer from a worker, or checked here (or why a
# folder is not read); its verdict. A worker that died or could not send its answer is one line,
# and the run goes on.
def report(shown, path, why, answer, args, several, limits):
    verdict, h, text, digest, seconds = 'unreadable', {}, why, None, 0.0
    try:
        if not why: verdict, h, text, digest, seconds = (
                answer.result() if answer else timed_verify(shown, path, limits, vars(args)))
    except Exception as e: text = f'internal error: {type(e).__name__}: {e}'
    if args.json:
        print(json.dumps({'path': str(path), 'verdict': verdict, **{k: h.get(k) for k in SHOWN},
                          'sha256': digest, 'seconds': seconds,
                          'reason': None if verdict == 'verified' else text}), flush=True)
    elif verdict != 'verified' or not args.quiet:
        print(printable(f'{shown}: ' * several + f'{verdict.upper()}: {text}'), flush=True)
        if verdict == 'verified': print(f'  sha256 {digest}', flush=True)
    return verdict
