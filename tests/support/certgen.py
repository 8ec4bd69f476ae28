"""A small test-side writer of FreeCell certificates, written from docs/certificate-format.md only.

It brute-forces the positions reachable from a start and writes certificate bytes. It is kept
apart from check/ on purpose (its own deal, moves, encoding and replay), so the tests compare two
readings of the document. It trusts its input and is not meant to be hostile-proof.
"""
from collections import deque

import msgpack
import xxhash
import zstandard

RANKS, SUITS = 'A23456789TJQK', 'CDHS'
CELL, FOUNDATION = 8, 9
CHUNK = 2**20   # the records of a version 3 chunk (section 7), the last chunk holding the rest


def card(text):
    return RANKS.index(text[0]) * 4 + SUITS.index(text[1])


def card_name(c):
    return RANKS[c // 4] + SUITS[c % 4]


def ms_deal(n):
    """Columns (lists, bottom first) of Microsoft deal n, per section 2."""
    state = n if n < 2**32 else n - 2**32
    deck, cols = list(range(52)), [[] for _ in range(8)]
    for i in range(52):
        state = (state * 214013 + 2531011) & 0xFFFFFFFF
        if n < 2**31:
            r = (state >> 16) & 0x7FFF
        elif n < 2**32:
            r = ((state >> 16) & 0x7FFF) | 0x8000
        else:
            r = ((state >> 16) & 0xFFFF) + 1
        j = r % len(deck)
        c = deck[j]
        deck[j] = deck[len(deck) - 1]
        deck.pop()
        cols[i % 8].append(c)
    return cols


# A position here is (found: tuple of 4, cells: sorted tuple, cols: tuple of 8 tuples).

def make(found, cells, cols):
    return tuple(found), tuple(sorted(cells)), tuple(tuple(c) for c in cols)


def board(found, cols, cells=()):
    """A position from foundation counts and columns written as card names ('KH JC' bottom first)."""
    pos = make(found, [card(c) for c in cells], [[card(c) for c in col.split()] for col in cols])
    held = [r * 4 + s for s in range(4) for r in range(found[s])] + list(pos[1]) + [c for col in pos[2] for c in col]
    assert sorted(held) == list(range(52)), 'not a valid board'
    return pos


def deal_start(n):
    return make((0, 0, 0, 0), (), ms_deal(n))


def is_red(c):
    return c % 4 in (1, 2)


def successors(pos, ncells, fmoves):
    """Yield ((card, dest), new position) for each legal single-card move; dest 0..7, 8 cell, 9 foundation."""
    found, cells, cols = pos
    srcs = [('col', i, col[-1]) for i, col in enumerate(cols) if col]
    srcs += [('cell', None, c) for c in cells]
    if fmoves:
        srcs += [('found', None, (found[s] - 1) * 4 + s) for s in range(4) if found[s] > 0]
    for kind, i, c in srcs:
        r, s = c // 4, c % 4

        def lift():
            f, ce, co = list(found), list(cells), [list(x) for x in cols]
            if kind == 'col':
                co[i].pop()
            elif kind == 'cell':
                ce.remove(c)
            else:
                f[s] -= 1
            return f, ce, co

        if kind != 'found' and found[s] == r:
            f, ce, co = lift()
            f[s] += 1
            yield (c, FOUNDATION), make(f, ce, co)
        for j, col in enumerate(cols):
            if kind == 'col' and j == i:
                continue
            if not col or (col[-1] // 4 == r + 1 and is_red(col[-1]) != is_red(c)):
                f, ce, co = lift()
                co[j].append(c)
                yield (c, j), make(f, ce, co)
        if kind == 'col' and len(cells) < ncells:
            f, ce, co = lift()
            ce.append(c)
            yield (c, CELL), make(f, ce, co)


def is_won(pos):
    return pos[0] == (13, 13, 13, 13)


def safe_home(found):
    """The cards Horne's rule (section 8) lets go home with these foundations: for each suit its next
    card, when both foundations of the other colour hold at least its rank - 1 cards and the other
    one of its colour at least its rank - 2."""
    out = []
    for s in range(4):
        r = found[s]
        mate = {0: 3, 3: 0, 1: 2, 2: 1}[s]              # the other suit of the same colour
        others = [t for t in range(4) if is_red(t) != is_red(s)]
        if r < 13 and found[mate] >= r - 2 and min(found[t] for t in others) >= r - 1:
            out.append(r * 4 + s)
    return out


def autoplay(pos):
    """pos after safe autoplay (section 8): a safe card on a column's top or in a free cell goes
    home, again and again, until there is none (here: suits in order C D H S, then round again)."""
    found, cells, cols = list(pos[0]), list(pos[1]), [list(c) for c in pos[2]]
    moved = True
    while moved:
        moved = False
        for c in safe_home(found):
            if c in cells:
                cells.remove(c)
            elif any(col and col[-1] == c for col in cols):
                next(col for col in cols if col and col[-1] == c).pop()
            else:
                continue
            found[c % 4] += 1
            moved = True
    return make(found, cells, cols)


def canon(pos, symmetry):
    return (pos[0], pos[1], tuple(sorted(pos[2]))) if symmetry == 'columns' else pos


def explore(start, ncells, fmoves=False, symmetry='columns', limit=2_000_000, unexpanded=(), closure=None):
    """All positions reachable from start, canonical under the symmetry (breadth-first); the
    moves from a position in `unexpanded` are not followed (its successors may be left out). With
    closure='autoplay' (section 8) the start and every move's result are autoplayed first."""
    settle = autoplay if closure == 'autoplay' else (lambda p: p)
    seen, todo = {canon(settle(start), symmetry)}, deque([canon(settle(start), symmetry)])
    while todo:
        pos = todo.popleft()
        if pos in unexpanded:
            continue
        for _, nxt in successors(pos, ncells, fmoves):
            k = canon(settle(nxt), symmetry)
            if k not in seen:
                seen.add(k)
                todo.append(k)
                assert len(seen) <= limit, 'too many positions'
    return seen


def win_path(start, ncells, fmoves=False):
    """A winning move list from start with columns in fixed places (depth-first), or None."""
    parent, todo = {start: None}, [start]
    while todo:
        pos = todo.pop()
        if is_won(pos):
            path = []
            while parent[pos] is not None:
                mv, pos = parent[pos]
                path.append(mv)
            return path[::-1]

        # Try foundation moves first, then onto cards, then cells, then empty columns: short paths.
        def order(item):
            (_, d), _ = item
            return 0 if d == FOUNDATION else 2 if d == CELL else 3 if not pos[2][d] else 1
        for mv, nxt in sorted(successors(pos, ncells, fmoves), key=order, reverse=True):
            if nxt not in parent:
                parent[nxt] = (mv, pos)
                todo.append(nxt)
    return None


def move_order(pos, ncells, fmoves):
    """The ((card, dest), position after) of every legal move from pos, in version 3's move order
    (section 7): to the foundation, then to columns 1..8, then to a free cell; by card within each."""
    def key(item):
        (c, d), _ = item
        return (0 if d == FOUNDATION else 9 if d == CELL else 1 + d), c
    return sorted(successors(pos, ncells, fmoves), key=key)


def move_indices(start, ncells, fmoves, moves):
    """The version 3 body of a line: each move's index among the legal moves, in the move order."""
    pos, out = start, []
    for mv in moves:
        legal = move_order(pos, ncells, fmoves)
        out.append([m for m, _ in legal].index(tuple(mv)))
        pos = legal[out[-1]][1]
    return bytes(out)


def index_moves(start, ncells, fmoves, indices):
    """The (card, dest) moves that version 3 indices name, or None at an index past the legal moves."""
    pos, out = start, []
    for i in indices:
        legal = move_order(pos, ncells, fmoves)
        if i >= len(legal):
            return None
        out.append(legal[i][0])
        pos = legal[i][1]
    return out


def replay_wins(start, ncells, fmoves, moves):
    """The test's own oracle: do these (card, dest) moves replay legally to a won position?"""
    pos = start
    for mv in moves:
        nxt = dict(successors(pos, ncells, fmoves)).get(tuple(mv))
        if nxt is None:
            return False
        pos = nxt
    return is_won(pos)


def board_bytes(pos, ncells):
    found, cells, cols = pos
    out = bytes(found) + bytes(sorted(cells)) + b'\xff' * (ncells - len(cells))
    for col in cols:
        out += bytes(col) + b'\xff'
    return out


def record(pos, table, ncells, symmetry):
    """The canonical record of pos given the column table, per section 3."""
    found, cells, cols = pos
    w = 2 if len(table) <= 65536 else 3
    colids = [table.index(bytes(c)) for c in cols]
    if symmetry == 'columns':
        colids.sort()
    rec = bytes(found) + bytes(sorted(cells)) + b'\xff' * (ncells - len(cells))
    return rec + b''.join(i.to_bytes(w, 'big') for i in colids)


def nowin_parts(positions, ncells, symmetry, width=None):
    """(column table, sorted records) for these positions, per section 3; width forces the id
    width (2 or 3 bytes) instead of the one the table's size calls for, to write a wrong file."""
    table = sorted({bytes(col) for p in positions for col in p[2]})
    w = width or (2 if len(table) <= 65536 else 3)
    ids = {col: i for i, col in enumerate(table)}
    recs = []
    for found, cells, cols in positions:
        colids = [ids[bytes(c)] for c in cols]
        if symmetry == 'columns':
            colids.sort()
        rec = bytes(found) + bytes(sorted(cells)) + b'\xff' * (ncells - len(cells))
        # A forced width too narrow keeps each id's low bytes (a writer that never uses 3 bytes).
        recs.append(rec + b''.join((i % 256**w).to_bytes(w, 'big') for i in colids))
    return table, sorted(recs)


def id_width(entries, version=2):
    """The bytes of a column id for a table of this many entries (4 only from version 3)."""
    return 2 if entries <= 65536 else 3 if entries <= 2**24 or version < 3 else 4


def body_values(data):
    """The msgpack values of a version 3 body (after the header), in order (trusting them)."""
    u = msgpack.Unpacker(raw=False, max_buffer_size=1 << 31)
    u.feed(data)
    return list(u)


def parse_board(board, ncells):
    """The start position a custom board holds; AssertionError if it is not well-formed."""
    found, cells = board[:4], [c for c in board[4:4 + ncells] if c != 0xFF]
    parts = board[4 + ncells:].split(b'\xff')
    assert len(found) == 4 and max(found) <= 13 and len(parts) == 9 and parts[8] == b''
    assert board[4:4 + ncells] == bytes(sorted(cells)) + b'\xff' * (ncells - len(cells))
    held = [r * 4 + s for s in range(4) for r in range(found[s])] + cells + [c for col in parts for c in col]
    assert sorted(held) == list(range(52))
    return make(found, cells, parts[:8])


def claim_holds(blob, limit=20000):
    """The test's own oracle for a (possibly mutated) certificate file: is its stated claim true?
    False when the file does not even decode the way the test side reads it."""
    try:
        h, body = unpack_file(blob)
        ncells, fm = h['cells'], h['foundation_moves']
        start = deal_start(h['deal']) if h['deal'] is not None else parse_board(h['board'], ncells)
        if h['claim'] == 'win' and h['version'] == 3:
            (line,) = body_values(body)
            moves = index_moves(start, ncells, fm, line)
            return moves is not None and replay_wins(start, ncells, fm, moves)
        if h['claim'] == 'win':
            return replay_wins(start, ncells, fm, zip(body[::2], body[1::2]))
        return not any(is_won(p) for p in explore(start, ncells, fm, limit=limit))
    except Exception:
        return False


def nowin_positions(blob):
    """The positions of a no-win certificate file (version 1 or 2), read the test side's way: each
    as (foundations, cells, columns in record order)."""
    h, body = unpack_file(blob)
    ncells = h['cells']
    if h['version'] == 3:
        table, *chunks = body_values(body)
        w = id_width(len(table), 3)
        recs = [r for c in chunks for r in unplane(c, len(c) // (4 + ncells + 8 * w))]
    else:
        table, data = msgpack.unpackb(body)
        w = id_width(len(table))
        recs = unplane(data, h['count']) if h['version'] == 2 else unfront(data, 4 + ncells + 8 * w)
    W = 4 + ncells + 8 * w
    out = []
    for rec in recs:
        ids = [int.from_bytes(rec[k:k + w], 'big') for k in range(4 + ncells, W, w)]
        out.append(make(rec[:4], [c for c in rec[4:4 + ncells] if c != 0xFF], [table[k] for k in ids]))
    assert len(out) == h['count']
    return out


def front_code(recs):
    out, prev = bytearray(), b''
    for r in recs:
        p = 0
        while p < len(prev) and p < len(r) - 1 and prev[p] == r[p]:
            p += 1
        out.append(p)
        out += r[p:]
        prev = r
    return bytes(out)


def unfront(data, W):
    """The records of a version 1 records bin (the inverse of front_code)."""
    recs, prev, i = [], b'', 0
    while i < len(data):
        p = data[i]
        prev = prev[:p] + data[i + 1:i + 1 + W - p]
        recs.append(prev)
        i += 1 + W - p
    return recs


def plane_code(recs):
    """Version 2 records: the records as a table stored column by column (byte j of record k at j * count + k)."""
    return bytes(r[j] for j in range(len(recs[0])) for r in recs) if recs else b''


def unplane(data, count):
    """The records of a version 2 records bin (the inverse of plane_code)."""
    W = len(data) // count if count else 0
    return [bytes(data[j * count + k] for j in range(W)) for k in range(count)]


def header(claim, count, body, deal=None, board=None, cells=4, foundation_moves=False, symmetry='columns', version=1,
           closure=None):
    """The header map; closure (section 8) is written after symmetry when given, left out when None."""
    return {'format': 'freecell-certificate', 'version': version, 'claim': claim, 'deal': deal, 'board': board,
            'cells': cells, 'foundation_moves': foundation_moves, 'symmetry': symmetry,
            **({} if closure is None else {'closure': closure}), 'count': count,
            'xxh3_64': xxhash.xxh3_64_hexdigest(body)}


def pack(h, body, raw_body=None, level=3):
    """A certificate file: one zstd frame of header then body (a bin), or raw_body bytes if given."""
    data = msgpack.packb(h, use_bin_type=True)
    if raw_body is None and h.get('version') == 3:   # version 3: the body values as they stand
        raw_body = body
    data += raw_body if raw_body is not None else msgpack.packb(body, use_bin_type=True)
    return zstandard.ZstdCompressor(level=level, write_content_size=True).compress(data)


def finish(h, body, changes):
    """Apply header changes, re-hashing the body unless xxh3_64 itself is changed."""
    h.update(changes)
    if 'xxh3_64' not in changes:
        h['xxh3_64'] = xxhash.xxh3_64_hexdigest(body)
    return pack(h, body)


def nowin_body(parts, version=1, chunk=None):
    """The body bytes of a no-win certificate: [column table, records], front-coded (1) or as byte planes (2);
    for version 3 the body values: the column table, then the records in chunks of `chunk` records (the
    format's CHUNK unless a test writes a wrong file), each as byte planes."""
    table, recs = parts
    if version == 3:
        chunk = chunk or CHUNK
        return msgpack.packb(table, use_bin_type=True) + b''.join(
            msgpack.packb(plane_code(recs[i:i + chunk]), use_bin_type=True) for i in range(0, len(recs), chunk))
    return msgpack.packb([table, front_code(recs) if version == 1 else plane_code(recs)], use_bin_type=True)


def nowin_file(start, ncells, positions=None, fmoves=False, symmetry='columns', deal=None, parts=None,
               version=1, width=None, chunk=None, closure=None, **changes):
    """A no-win certificate file (correct unless positions/parts/width/chunk/changes make it otherwise);
    closure='autoplay' writes that header key (section 8) and, without positions, explores under it."""
    if parts is None:
        if positions is None:
            positions = explore(start, ncells, fmoves, symmetry, closure=closure)
        parts = nowin_parts(positions, ncells, symmetry, width)
    body = nowin_body(parts, version, chunk)
    h = header('no-win', len(parts[1]), body, deal=deal, board=None if deal else board_bytes(start, ncells),
               cells=ncells, foundation_moves=fmoves, symmetry=symmetry, version=version, closure=closure)
    return finish(h, body, changes)


def win_file(start, ncells, path, fmoves=False, deal=None, version=1, indices=None, **changes):
    """A win certificate file for the (card, dest) moves of path; version 3 writes each move's index in
    the move order (or the given indices instead, to write a wrong file)."""
    if version == 3:
        if indices is None:
            indices = move_indices(start, ncells, fmoves, path)
        body = msgpack.packb(bytes(indices), use_bin_type=True)
    else:
        body = bytes(b for mv in path for b in mv)
    h = header('win', len(path), body, deal=deal, board=None if deal else board_bytes(start, ncells),
               cells=ncells, foundation_moves=fmoves, symmetry='none', version=version)
    return finish(h, body, changes)


# ---- Range certificates (section 6) ----

def entry(deal, claim, count, body, version=2):
    """One entry of a range certificate: [deal, claim, count, body]; version 3: [deal, claim, count]
    and then the body values (body: their bytes, as a single version 3 file holds them)."""
    if version == 3:
        return msgpack.packb([deal, claim, count], use_bin_type=True) + body
    return msgpack.packb([deal, claim, count, body], use_bin_type=True)


def range_header(first, last, entries, cells=4, foundation_moves=False, symmetry='columns', version=2,
                 closure=None):
    return {'format': 'freecell-certificate', 'version': version, 'claim': 'range', 'first': first, 'last': last,
            'cells': cells, 'foundation_moves': foundation_moves, 'symmetry': symmetry,
            **({} if closure is None else {'closure': closure}), 'count': last - first + 1,
            'xxh3_64': xxhash.xxh3_64_hexdigest(b''.join(entries))}


def range_file(start, entries, level=3, **changes):
    """A range certificate for deals start.. from entry bytes (see entry()); the rules (cells, foundation_moves,
    symmetry) given, and then other header changes (the entries' hash is not redone for those)."""
    h = range_header(start, start + len(entries) - 1, entries, **{k: changes.pop(k) for k in
                                                                 ('cells', 'foundation_moves', 'symmetry', 'version',
                                                                  'closure')
                                                                 if k in changes})
    h.update(changes)
    data = msgpack.packb(h, use_bin_type=True) + b''.join(entries)
    return zstandard.ZstdCompressor(level=level, write_content_size=True).compress(data)


def as_entry(blob, version=2):
    """The range entry that holds the same proof as a single certificate file (version 1, 2 or 3), in that
    version (2 or 3) of the range format."""
    if version == 3:
        h, body = unpack_file(blob if unpack_file(blob)[0]['version'] == 3 else as_version3(blob))
        return entry(h['deal'], h['claim'], h['count'], body, version=3)
    h, body = unpack_file(blob)
    if h['claim'] == 'no-win' and h['version'] == 1:
        table, data = msgpack.unpackb(body)
        recs = unfront(data, 4 + h['cells'] + 8 * (2 if len(table) <= 65536 else 3))
        body = nowin_body((table, recs), version=2)
    return entry(h['deal'], h['claim'], h['count'], body)


def unpack_range(blob):
    """(header, [[deal, claim, count, body], ...]) of a range certificate (trusting it); for version 3
    each entry's body is the list of its body values."""
    data = zstandard.ZstdDecompressor().stream_reader(blob, read_across_frames=True).read()
    u = msgpack.Unpacker(raw=False, max_buffer_size=1 << 31)
    u.feed(data)
    h = next(u)
    if h['version'] != 3:
        return h, list(u)
    out = []
    for deal, claim, count in u:
        if claim == 'win':
            out.append([deal, claim, count, [next(u)]])
        else:
            table = next(u)
            out.append([deal, claim, count, [table] + [next(u) for _ in range(-(-count // CHUNK))]])
    return h, out


def unpack_file(blob):
    """(header dict, body bytes) of a certificate file (trusting it); for version 3 the body is every
    byte after the header (the body values, as the header's xxh3_64 covers them)."""
    data = zstandard.ZstdDecompressor().stream_reader(blob, read_across_frames=True).read()
    u = msgpack.Unpacker(raw=False, max_buffer_size=1 << 31)
    u.feed(data)
    h = next(u)
    return (h, data[u.tell():]) if h.get('version') == 3 else (h, next(u))


def as_version3(blob, chunk=None):
    """The version 3 file that holds the same proof as a single certificate file of version 1 or 2."""
    h, body = unpack_file(blob)
    start = deal_start(h['deal']) if h['deal'] is not None else parse_board(h['board'], h['cells'])
    if h['claim'] == 'win':
        moves = list(zip(body[::2], body[1::2]))
        return win_file(start, h['cells'], moves, h['foundation_moves'], h['deal'], version=3)
    table, data = msgpack.unpackb(body)
    W = 4 + h['cells'] + 8 * id_width(len(table))
    recs = unplane(data, h['count']) if h['version'] == 2 else unfront(data, W)
    return nowin_file(start, h['cells'], fmoves=h['foundation_moves'], symmetry=h['symmetry'], deal=h['deal'],
                      parts=(table, recs), version=3, chunk=chunk)


def rebuild(blob, body=None, **changes):
    """Re-pack a certificate with header changes and/or a new body, re-hashing the body."""
    h, old = unpack_file(blob)
    return finish(h, old if body is None else body, changes)


# ---- Boards used by the tests, found by brute force: most cards already on the foundations ----

NOWIN0 = board((13, 6, 6, 10), ['TH 7D', 'JS 9D KH', '7H QH 8D KD', 'QD', 'JD 8H QS', 'JH 9H', 'KS', 'TD'])  # 0 cells
NOWIN1 = board((10, 4, 6, 9), ['TD TS 5D 7H KD JH TH', 'JS QH KH', '8H', 'QD KC QS 9D', 'QC JD 8D', '6D JC',
                               '7D KS', '9H'])                                                       # 1 cell
NOWIN2 = board((5, 13, 13, 5), ['KS 7C', 'QS JS', '6S TS TC', '8C', '6C KC 9C', 'JC', '8S', '9S QC'],
               cells=['7S'])                                                                         # 2 cells
WIN0 = board((11, 12, 12, 12), ['QC KD', 'KC', 'KH', 'KS', '', '', '', ''])                         # 0 cells
WIN1 = board((10, 11, 11, 11), ['KH JC', 'QC KD', 'QD KC', 'KS', 'QS', 'QH', '', ''])               # 1 cell
WIN3 = board((9, 10, 11, 11), ['KH JC', 'QC KD', 'QD KC TC', 'KS QH', 'QS', 'JD', '', ''])          # 1 cell


# ---- Positions without a single legal move, to make column tables of any size ----
# With no free cell, no empty column, no ace on top and eight black tops (black never stacks on
# black), nothing can move: each such position is a closed set on its own. Added to a real closed
# set they keep it closed, and its claim true, while adding columns: these are the column tables
# of more than 65,536 entries that no real search reaches at a size a test can afford.

STUCK_TOPS = [card(c) for c in ('KC', 'KS', 'QC', 'QS', 'JC', 'JS', 'TC', 'TS')]
STUCK_LOW = [c for c in range(24)]                                    # the bottom cards: A..6
STUCK_REST = [c for c in range(24, 52) if c not in STUCK_TOPS]


def stuck_positions(columns, seed=0):
    """Positions (0 cells, foundations empty) with no legal move, bringing exactly `columns` distinct
    columns between them. Their columns start with a card below 7, so they sort before the columns of
    a board whose lower cards are home."""
    from itertools import permutations
    rng, out, seen = __import__('random').Random(seed), [], set()
    while columns - len(seen) >= 8:   # eight new columns a position
        low, rest = rng.sample(STUCK_LOW, len(STUCK_LOW)), rng.sample(STUCK_REST, len(STUCK_REST))
        middle = low[8:] + rest
        rng.shuffle(middle)
        cols = [[low[i]] + middle[i::8] + [STUCK_TOPS[i]] for i in range(8)]
        if not seen & {bytes(c) for c in cols}:
            out.append(make((0, 0, 0, 0), (), cols))
            seen |= {bytes(c) for c in cols}
    last = [list(c) for c in out[-1][2]] if out else [[c] for c in STUCK_LOW[:7]] + [STUCK_LOW[7:24] + [STUCK_TOPS[7]]]
    for order in permutations(last[7][1:-1]):   # then one new column a position: column 8 reordered
        if len(seen) == columns:
            break
        col = bytes([last[7][0], *order, last[7][-1]])
        if col not in seen:
            out.append(make((0, 0, 0, 0), (), last[:7] + [list(col)]))
            seen |= {bytes(c) for c in out[-1][2]}
    assert len(seen) == columns
    return out


def with_columns(positions, ncells, columns):
    """positions plus positions with no move, so that the column table has exactly `columns` entries."""
    assert ncells == 0, 'the stuck positions have no free cell'
    own = {bytes(col) for p in positions for col in p[2]}
    assert all(col[:1] >= bytes([24]) for col in own if col), 'the columns would interleave'
    return set(positions) | set(stuck_positions(columns - len(own)))


def bad_corpus():
    """name -> (file bytes, verdict, reason phrase): the known-bad files of tests/bad-certificates/."""
    positions = explore(NOWIN1, 1)
    good = nowin_file(NOWIN1, 1, positions)
    table, recs = nowin_parts(positions, 1, 'columns')
    won = make((13, 13, 13, 13), (), [()] * 8)
    moves = win_path(WIN1, 1)
    head = msgpack.packb(header('win', 3, bytes(6), board=board_bytes(WIN0, 0), cells=0, symmetry='none'))
    out = {
        'not-zstd': (b'FreeCell certificate, honest\n', 'unreadable', 'not a valid zstd frame'),
        'truncated': (good[:len(good) // 2], 'unreadable', 'cut short'),
        'trailing-bytes': (good + b'\x00', 'unreadable', 'not a valid zstd frame'),
        'bomb': (zstandard.ZstdCompressor(level=19).compress(head + b'\xc4\x06' + bytes(6) + bytes(1 << 24)),
                 'unreadable', 'the data decompresses to more than'),
        'version-4': (rebuild(good, version=4), 'unreadable', 'header version = 4'),
        'cells-9': (rebuild(good, cells=9), 'unreadable', 'header cells = 9'),
        'count-is-bool': (rebuild(good, count=True), 'unreadable', 'header count = True'),
        'extra-key': (rebuild(good, comment='trust me'), 'unreadable', 'the header keys are not exactly'),
        'hash-mismatch': (rebuild(good, xxh3_64='0123456789abcdef'), 'rejected', 'does not match its xxh3_64'),
        'missing-record': (nowin_file(NOWIN1, 1, set(positions) - {sorted(positions)[100]}), 'rejected',
                           'gives a position not in the certificate'),
        'missing-start': (nowin_file(NOWIN1, 1, set(positions) - {canon(NOWIN1, 'columns')}), 'rejected',
                          'the starting position'),
        'won-record': (nowin_file(NOWIN1, 1, set(positions) | {won}), 'rejected', 'is won'),
        'duplicate-record': (nowin_file(NOWIN1, 1, parts=(table, recs[:9] + recs[8:])), 'rejected',
                             'records: record 10 does not sort after the last'),
        'count-too-big': (rebuild(good, count=len(recs) + 1), 'rejected', 'records: there are'),
        'winnable-claimed-no-win': (nowin_file(WIN1, 1, explore(WIN1, 1)), 'rejected', 'is won'),
        'other-deal': (rebuild(nowin_file(deal_start(1), 1, deal=1), deal=11982), 'rejected', 'the starting position'),
        'foundation-moves-true': (rebuild(good, foundation_moves=True), 'rejected', 'from its foundation to'),
        'win-illegal-move': (win_file(WIN1, 1, [(card('KC'), FOUNDATION)] + moves), 'rejected',
                             'move 1 (KC to its foundation) is illegal: KC may go only to column 7, column 8, a free cell'),
        'win-not-won': (win_file(WIN1, 1, moves[:-1]), 'rejected', 'moves the position is not won'),
        'win-symmetry-columns': (win_file(WIN1, 1, moves, symmetry='columns'), 'rejected',
                                 'a win must have symmetry none'),
        'board-duplicate-card': (rebuild(good, board=board_bytes(NOWIN1, 1).replace(b'\x33', b'\x32')), 'rejected',
                                 'the board is not a position: the 52 cards are not each in one place'),
        # Checker mutants (tools/mutants.py): each of these verified under one of them.
        'start-only-winnable': (nowin_file(WIN1, 1, {canon(WIN1, 'columns')}), 'rejected', 'record 1 ('),
        'last-record-not-closed': (last_record_not_closed(), 'rejected', 'record 2490 ('),
        'win-trailing-bytes': (rebuild(win_file(WIN1, 1, moves), bytes(b for mv in moves for b in mv) + b'\x09\x09'),
                               'rejected', 'the body has 22 bytes, not 2 x count'),
        'win-cell-to-cell': (win_file(WIN1, 2, moves[:6] + [(card('KC'), CELL)] + moves[6:]), 'rejected',
                             'move 7 (KC to a free cell) is illegal: KC may go only to'),
        'win-foundation-to-cell': (win_file(WIN1, 1, moves[:1] + [(card('QH'), CELL)] + moves[1:], fmoves=True),
                                   'rejected', 'move 2 (QH to a free cell) is illegal'),
        'win-foundation-to-foundation': (win_file(WIN1, 1, moves[:1] + [(card('QH'), FOUNDATION)] + moves[1:],
                                                  fmoves=True), 'rejected', 'move 2 (QH to its foundation) is illegal'),
        # Version 3 (section 7): a move's index past the legal moves, a chunk of the wrong size, data
        # after the last chunk, a hash that is not of the body values.
        'v3-index-past-moves': (win_file(WIN1, 1, moves, version=3, indices=move_indices(WIN1, 1, False, moves)[:-1]
                                         + b'\xff'), 'rejected', 'move 10: index 255 is not below the 9 legal moves'),
        'v3-chunk-wrong-size': (nowin_file(NOWIN1, 1, parts=(table, recs), version=3, chunk=len(recs) - 1), 'rejected',
                                f'records: {(len(recs) - 1) * len(recs[0])} bytes for {len(recs)}'),
        'v3-trailing-data': (rebuild(v3 := nowin_file(NOWIN1, 1, parts=(table, recs), version=3),
                                     unpack_file(v3)[1] + b'\xc4\x00'), 'unreadable', 'the body has data after it'),
        'v3-hash-mismatch': (rebuild(v3, xxh3_64='0123456789abcdef'), 'rejected', 'does not match its xxh3_64'),
    }
    # Closure under safe autoplay (section 8), on NOWIN0 (0 cells), whose start autoplays at once:
    # a successor after autoplay left out, the start present but not autoplayed, a won record, the
    # autoplay set without the key; the key with another value, in version 2, in a win, with
    # foundation moves.
    auto = explore(NOWIN0, 0, closure='autoplay')
    first = canon(autoplay(NOWIN0), 'columns')
    gone = sorted(auto - {first})[len(auto) // 2]
    v3_auto = nowin_file(NOWIN0, 0, auto, version=3, closure='autoplay')
    not_allowed = "header closure = 'autoplay' is not allowed"
    out.update({
        'autoplay-missing-successor': (nowin_file(NOWIN0, 0, auto - {gone}, version=3, closure='autoplay'),
                                       'rejected', 'then autoplay gives a position not in the certificate'),
        'autoplay-start-not-autoplayed': (nowin_file(NOWIN0, 0, auto - {first} | {canon(NOWIN0, 'columns')},
                                                     version=3, closure='autoplay'), 'rejected',
                                          'the starting position after autoplay ('),
        'autoplay-won-record': (nowin_file(NOWIN0, 0, auto | {won}, version=3, closure='autoplay'), 'rejected',
                                'is won'),
        'autoplay-without-key': (nowin_file(NOWIN0, 0, auto, version=3), 'rejected', 'the starting position ('),
        'closure-moves': (rebuild(v3_auto, closure='moves'), 'unreadable', "header closure = 'moves' is not allowed"),
        'closure-version-2': (nowin_file(NOWIN0, 0, auto, version=2, closure='autoplay'), 'unreadable',
                              not_allowed),
        'closure-in-win': (rebuild(win_file(WIN1, 1, moves, version=3), closure='autoplay'), 'unreadable',
                           not_allowed),
        'closure-foundation-moves': (rebuild(v3_auto, foundation_moves=True), 'unreadable', not_allowed),
    })
    out.update(won_corpus())
    out.update(verdict_corpus(good, moves))
    return out


def verdict_corpus(good, moves):
    """The bad_corpus() files whose failure's class (UNREADABLE or REJECTED, format section 5's
    "Verdicts") the two checkers once gave differently: a hash not written as 16 lowercase hex
    digits, a range's count that is not last - first + 1, data that ends inside a body, a chunk or
    a move list, a no-win relabelled as a win with symmetry columns, an empty file, an entry whose
    count is negative."""
    h, body = unpack_file(good)
    win3 = win_file(WIN1, 1, moves, version=3)
    nowin3 = nowin_file(NOWIN1, 1, version=3)
    two = [entry(1, 'win', 1, msgpack.packb(b'\x00'), version=3)]

    def cut(blob, drop):   # the data, less its last `drop` bytes, in one whole zstd frame
        data = zstandard.ZstdDecompressor().stream_reader(blob, read_across_frames=True).read()
        return zstandard.ZstdCompressor(level=3, write_content_size=True).compress(data[:-drop])

    rejected, unreadable = 'rejected', 'unreadable'
    return {
        'xxh3-capitals': (rebuild(good, xxh3_64=h['xxh3_64'].upper()), unreadable,
                          f"header xxh3_64 = '{h['xxh3_64'].upper()}' is not allowed"),
        'xxh3-short': (rebuild(good, xxh3_64=h['xxh3_64'][:15]), unreadable,
                       f"header xxh3_64 = '{h['xxh3_64'][:15]}' is not allowed"),
        'range-count-wrong': (range_file(1, two, version=3, count=2), rejected,
                              'count = 2, not last - first + 1'),
        'body-cut-short': (cut(good, 40), rejected, 'the records is cut short: the data of'),
        'chunk-cut-short': (cut(nowin3, 40), rejected, 'the records is cut short: the data of'),
        'moves-cut-short': (cut(win3, 3), rejected, 'the body is cut short: the data of'),
        'win-body-cut-short': (cut(win_file(WIN1, 1, moves), 3), rejected,
                               'the body is cut short: the data of'),
        'nowin-as-win-columns': (rebuild(good, claim='win'), rejected,
                                 'a win must have symmetry none'),
        'empty': (b'', unreadable, 'is empty'),
        'entry-count-negative': (range_file(1, [msgpack.packb([1, 'win', -1]) + msgpack.packb(b'')],
                                            version=3), rejected,
                                 'entry 1 (deal 1): its count -1 is negative'),
    }


WON = board((13, 13, 13, 13), [''] * 8)   # every card home: the won position, as a layout
WON_SHOWN = 'foundations KC KD KH KS; cells -; columns - | - | - | - | - | - | - | -'   # as check shows it


def won_corpus():
    """The bad_corpus() files with a won record where the rules leave a record no cell bytes or add moves
    (step 6 of section 3): a won position sorts after every other, so it is the last record. Without
    foundation moves a won position has no moves, so a set that holds one is closed at it: with 0 cells
    WIN0's 36 reachable positions (won in 5 moves) are closed, and only the won test refuses them."""
    # Each is refused naming its last record: f'record {count} ({WON_SHOWN}) is won' (the table's phrase: is won).
    won = 'rejected', 'is won'
    reach_fm = explore(deal_start(3), 0, True) | {WON}
    return {
        'winnable-0-cells-claimed-no-win': (nowin_file(WIN0, 0, explore(WIN0, 0)), *won),
        'winnable-8-cells-claimed-no-win': (nowin_file(WIN0, 8, explore(WIN0, 8)), *won),
        'won-start-claimed-no-win': (nowin_file(WON, 0, {WON}), *won),
        'won-record-foundation-moves': (nowin_file(deal_start(3), 0, reach_fm, fmoves=True, deal=3), *won),
        # Under safe autoplay (section 8) WIN0's start goes home at once: its one record is won.
        'autoplay-winnable-claimed-no-win': (nowin_file(WIN0, 0, version=3, closure='autoplay'), *won),
    }


def last_record_not_closed():
    """NOWIN1 with columns in fixed places, less what only moves from its last record reach: that
    record's closure alone fails (a checker that skipped the last record would verify it)."""
    everything = explore(NOWIN1, 1, symmetry='none')
    table, _ = nowin_parts(everything, 1, 'none')
    last = max(everything, key=lambda p: record(p, table, 1, 'none'))
    return nowin_file(NOWIN1, 1, explore(NOWIN1, 1, symmetry='none', unexpanded={last}), symmetry='none')


def write_corpus(folder):
    """(Re)write the files of tests/bad-certificates/ (their table is its README.md)."""
    for name, (blob, _, _) in bad_corpus().items():
        (folder / f'{name}.msgpack.zst').write_bytes(blob)


if __name__ == '__main__':   # python tests/support/certgen.py: rewrite tests/bad-certificates/
    from pathlib import Path
    write_corpus(Path(__file__).parent.parent / 'bad-certificates')


# ---- Costly files (docs/certificate-format.md section 5): work or memory out of proportion ----

def cycle_at(pos, ncells):
    """Two moves from pos that come back to it, or None: a column's top card to a free cell and
    back (it goes back onto the card below it, or into its column left empty)."""
    found, cells, cols = pos
    for i, col in enumerate(cols):
        if len(cells) < ncells and col and (len(col) == 1 or (
                col[-2] // 4 == col[-1] // 4 + 1 and is_red(col[-2]) != is_red(col[-1]))):
            return [(col[-1], CELL), (col[-1], i)]
    return None


def padded_indices(deal, ncells, indices, total):
    """A deal's version 3 win line (move indices), padded to `total` moves (or one fewer) by a
    two-move cycle repeated at the first position of the line that has one: a true line, and
    almost nothing more in bytes."""
    pos = deal_start(deal)
    for k, i in enumerate(indices):
        cycle = cycle_at(pos, ncells)
        if cycle:
            twice = move_indices(pos, ncells, False, cycle)
            return bytes(indices[:k]) + twice * ((total - len(indices)) // 2) + bytes(indices[k:])
        pos = move_order(pos, ncells, False)[i][1]
    raise ValueError(f'deal {deal}: no two-move cycle on its line')


def padded_range(lines, total, level=3):
    """A version 3 range of wins ({deal: move indices}, consecutive deals), each padded to `total`
    moves with a two-move cycle."""
    first = min(lines)
    es = []
    for deal in range(first, first + len(lines)):
        body = padded_indices(deal, 4, lines[deal], total)
        es.append(entry(deal, 'win', len(body), msgpack.packb(body), version=3))
    return range_file(first, es, level=level, version=3)


def permuted_columns(deal, k, version=3):
    """A false no-win of a deal whose column table is every order of k cards at the bottom of a
    column with the same 52 - k cards above them (k! columns of 52 cards, and the empty column):
    each record is one such column and seven empty ones. Every prefix of every column differs
    from the others' but the shortest, so a column tree that holds prefixes as nodes of their own
    holds about k! x (52 - k) of them; its start is none of the records."""
    from itertools import permutations
    rest = bytes(range(k, 52))
    table = [b''] + sorted(bytes(order) + rest for order in permutations(range(k)))
    w = id_width(len(table), version)
    head = bytes(4) + b'\xff' * 4 + bytes(7 * w)
    recs = [head + i.to_bytes(w, 'big') for i in range(1, len(table))]
    return nowin_file(deal_start(deal), 4, deal=deal, parts=(table, recs), version=version)
