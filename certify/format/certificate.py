"""Writing and reading certificate files (docs/certificate-format.md).

Encoding is deterministic (everything sorted, fixed compression settings, zstd frames cut by a
rule of the data alone, no timestamps), so the same deal and rules give the same bytes everywhere,
on any number of processors. Files are written by certify/output.py.

certify writes version 3 (section 7: the body as msgpack values after the header, a no-win's
records in chunks of 2^20 laid out as byte planes, a win as one move index a byte) and reads
versions 1, 2 and 3. The writer here is the reference; the compiled engine's
(certify/engine/writer.c) gives the same bytes without a Python object per position, and proved()
uses whichever engine runs.

Inside certify a certificate's **body** is what its writers hand around: for a win, its line,
two bytes a move (card, destination), as the solver gives it and Result.moves reads it; for a
no-win, its **body values**, the bytes that follow the header in the file (the column table,
then the chunks). A win's line becomes its body value (move indices) here, in win_values().

    header(claim, deal, board, rules, count, body)  the header of a single certificate
    encode_file(head, body)                         the file's bytes, all in memory
    NowinWriter(out, columns, rules, deal, board)   a no-win written as its records stream in,
                                                    in memory bounded by a chunk (a search on
                                                    disk writes this way; the same bytes)
    load(path) -> Certificate                       the one reader, for every version

Every reader inside certify (explain, the exports, the index of certificates/) reads a file
with load(path) -> Certificate, which checks the header and the start position once, for all
of them. Reading does not check the claim: that is check/'s job, which shares none of this.
"""

import hashlib
import io
import itertools
import operator
import os
import stat
import threading

import msgpack
import xxhash
import zstandard

from ..game import deals
from .. import output
from ..outcome import NO_WIN, WIN
from ..game.rules import CELL, HOME, Rules, moves, start

FORMAT = "freecell-certificate"
VERSION = 3  # what certify writes; read() reads VERSIONS
VERSIONS = (1, 2, 3)
AUTOPLAY = "autoplay"  # the header's closure key's one value (docs/certificate-format.md, section 8)
CHUNK = 1 << 20  # records in each chunk of a version 3 no-win body, but the last
# zstd's settings, spelled out rather than as a level (what a level means may move between
# zstd releases; these do not), because the bytes must not change: the fastest found that keeps
# deal 11982 within 1.1 bytes a position. A small window suits the byte planes, whose matches
# are near. Multi-threaded zstd gave the same bytes but no shorter wall time, so it is not used.
# (The measurements: benchmarks/README.md, "zstd's settings"; bench_engine.py --levels.)
ZSTD_SETTINGS = dict(strategy=zstandard.STRATEGY_BTLAZY2, window_log=18, chain_log=17,
                     hash_log=16, search_log=6, min_match=4, target_length=16)
# A chunk whose records take at least this many bytes is written in frames, one for each of its
# byte planes (chunk_pieces()), so that they compress on every processor at once; below it, one
# frame costs less than starting the others (benchmarks/README.md, "zstd's settings").
FRAMED = 1 << 20


class CertificateError(ValueError):
    """A file that is not a readable certificate."""


class EmptyFile(CertificateError):
    """A file with no byte at all: said as check says it, "PATH is empty"."""


class CutShort(CertificateError):
    """Whole frames whose data ends inside a part of the certificate: said as check says it,
    "PART is cut short: the data of PATH ends early"."""

    def __init__(self, part):
        super().__init__(f"{part} is cut short: the data ends early")
        self.part = part


def said(path, error):
    """The line that names what is wrong with the file at path, in check's words."""
    if isinstance(error, CutShort):
        return f"{error.part} is cut short: the data of {path} ends early"
    return f"{path} {error}" if isinstance(error, EmptyFile) else f"{path}: {error}"


def digest(data):
    """The SHA-256 of a certificate file's bytes, in hex: what certify prints and publishes."""
    return hashlib.sha256(data).hexdigest()


def header(claim, deal, board, rules, count, body):
    """The header of a single certificate whose body (a win's line, a no-win's body values:
    the module's docstring) is `body`."""
    values = body_values(claim, body, deal, board, rules)
    return values_header(claim, deal, board, rules, count, xxhash.xxh3_64_hexdigest(values))


def values_header(claim, deal, board, rules, count, xxh3):
    """The header, given the xxh3_64 (hex) of the body values that follow it."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "claim": claim,
        "deal": deal,
        "board": board,
        **rules.header(claim),
        "count": count,
        "xxh3_64": xxh3,
    }


def board_bytes(position, ncells):
    """A custom start position as the header's `board` field: columns spelled out, in order."""
    found, cells, cols = position
    return (bytes(found) + bytes(sorted(cells)) + b"\xff" * (ncells - len(cells))
            + b"".join(bytes(c) + b"\xff" for c in cols))


def id_width(columns):
    """Bytes per column id for a table of `columns` entries (section 7): 2, 3 or 4."""
    return 2 if columns <= 1 << 16 else 3 if columns <= 1 << 24 else 4


def record_width(ncells, columns):
    """W, the bytes of a record, for a table of `columns` entries."""
    return 4 + ncells + 8 * id_width(columns)


# ---- No-win bodies --------------------------------------------------------------------------

def no_win_body(keys, columns, ncells, fixed_columns):
    """The body values of a no-win certificate (version 3) from the search's keys and columns.

    The search numbers columns in the order it met them; the file numbers them in sorted
    order, so every key is renumbered (and its ids re-sorted under symmetry), then the
    records are sorted and laid out in chunks of byte planes (nowin_values). (The compiled
    engine's writer, certify/engine/writer.c, does the same without a Python object per
    position; the two give the same bytes.)
    """
    ids_at = 4 + ncells
    keys = list(keys)
    if not keys:
        raise ValueError("no positions")
    search_width = (len(keys[0]) - ids_at) // 8  # the search's ids: 2 bytes, or 3 past 65,536
    old_ids = [[int.from_bytes(k[j:j + search_width], "big")
                for j in range(ids_at, len(k), search_width)] for k in keys]
    # The search also interns columns it only looked at; the table holds just those used.
    order = sorted(set().union(*old_ids), key=columns.__getitem__)
    table = [columns[i] for i in order]
    renumber = [0] * len(columns)
    for new, old in enumerate(order):
        renumber[old] = new
    width = id_width(len(table))
    records = []
    for k, olds in zip(keys, old_ids):
        ids = [renumber[i] for i in olds]
        if not fixed_columns:
            ids.sort()
        records.append(k[:ids_at] + b"".join(i.to_bytes(width, "big") for i in ids))
    records.sort()
    return nowin_values(table, records, ids_at + 8 * width)


def nowin_values(table, records, width):
    """A no-win's body values from its column table and its sorted records of `width` bytes:
    the table (a msgpack array of bin), then each chunk of CHUNK records as a bin of its byte
    planes (chunk_value)."""
    out = [msgpack.packb(table, use_bin_type=True)]
    for i in range(0, len(records), CHUNK):
        out.append(chunk_value(b"".join(records[i:i + CHUNK]), width))
    return b"".join(out)


def chunk_value(rows, width):
    """A chunk's value in the file, from its records one after another (`rows`, a whole number
    of `width`-byte records): its bin header, then byte j of every record for j = 0, 1, ..."""
    return bin_header(len(rows)) + byte_planes(rows, width)


def byte_planes(rows, width):
    """Records of `width` bytes, given one after another, as byte planes: byte j of record k
    at j * (number of records) + k. (`rows` may also be a list of records.)"""
    if not isinstance(rows, (bytes, bytearray, memoryview)):
        rows = b"".join(rows)
    return b"".join(rows[j::width] for j in range(width))


def from_planes(data, count, width):
    """The records held in byte planes (for readers inside certify; check/ has its own)."""
    if len(data) != count * width:
        raise CertificateError(f"records are {len(data)} bytes, not {count} x {width}")
    rows = bytearray(len(data))
    for j in range(width):
        rows[j::width] = data[j * count:(j + 1) * count]
    return [bytes(rows[i:i + width]) for i in range(0, len(rows), width)]


def front_code(records):
    out = bytearray()
    previous = b""
    for r in records:
        p = len(os.path.commonprefix((previous, r)))
        out.append(p)
        out += r[p:]
        previous = r
    return bytes(out)


def front_decode(data, width):
    """The records of a front-coded body (for readers inside certify; check/ has its own)."""
    records = []
    previous = b""
    i = 0
    while i < len(data):
        p = data[i]
        n = width - p
        r = previous[:p] + data[i + 1:i + 1 + n]
        if p >= width or len(r) != width:
            raise CertificateError("records are not a whole number of front-coded records")
        records.append(r)
        previous = r
        i += 1 + n
    return records


# ---- Win bodies -----------------------------------------------------------------------------

def win_body(moves):
    """The body of a win certificate inside certify: its line, card and destination of each
    move. A line that is bytes already (the engine's solve_line) is its own body, and keeps
    what it carries (its move indices, worked out by the compiled engine)."""
    if isinstance(moves, (bytes, bytearray)):
        return moves
    return bytes(b for card, dest in moves for b in (card, dest))


def move_rank(card, dest):
    """Where a move stands in section 7's move order: to a foundation first, then to columns
    1..8, then to a free cell; within one destination by ascending card."""
    return (0 if dest == HOME else 9 if dest == CELL else 1 + dest), card


def ordered_moves(position, rules):
    """The legal moves of a position in the move order: [(card, dest, next position), ...]."""
    return sorted(moves(position, rules),
                  key=lambda m: move_rank(m[0], m[1]))


def move_indices(position, line, rules):
    """A line (bytes: card, destination, ...) from `position` as move indices (section 7),
    one byte a move; ValueError if a move is not legal where it is made. The reference: the
    compiled engine's twin (certify/engine/replay.c, move_indices) gives the same bytes."""
    out = bytearray()
    for m in range(0, len(line), 2):
        wanted = line[m], line[m + 1]
        for i, (card, dest, after) in enumerate(ordered_moves(position, rules)):
            if (card, dest) == wanted:
                out.append(i)
                position = after
                break
        else:
            raise ValueError(f"move {m // 2 + 1} of the line ({wanted}) is not legal")
    return bytes(out)


def line_of(position, indices, rules):
    """The (card, dest) moves that move indices name from `position`; CertificateError at an
    index that names no legal move."""
    line = []
    for k, i in enumerate(indices):
        legal = ordered_moves(position, rules)
        if i >= len(legal):
            raise CertificateError(f"move {k + 1} (index {i}) is not a legal move: only "
                                   f"{len(legal)} moves are legal there")
        card, dest, position = legal[i]
        line.append((card, dest))
    return line


_last_win = (None, None)  # (what a win's values were made from, the values): header, file


def win_values(line, deal, board, rules):
    """A win's body value: one bin of its move indices. `line` is its body inside certify (the
    card, destination bytes; it may carry its `indices` already). The last one made is kept,
    since header() and encode_file() both ask for it."""
    global _last_win
    key = (bytes(line), deal, board, rules.ncells, rules.foundation_moves)
    made, values = _last_win
    if made == key:
        return values
    indices = getattr(line, "indices", None)
    if indices is None:
        indices = move_indices(start_of(deal, board, rules.ncells), key[0], rules)
    values = bin_header(len(indices)) + indices
    _last_win = key, values
    return values


def body_values(claim, body, deal, board, rules):
    """The bytes that follow the header in the file, for a body inside certify."""
    if claim == WIN:
        return win_values(body, deal, board, rules)
    return body


# ---- The file -------------------------------------------------------------------------------

def encode_file(head, body, level=None, fresh=False):
    """The certificate file of `head` and its body (as inside certify: a win's line, a
    no-win's body values): encode_values()."""
    rules = rules_of(head)
    values = body_values(head["claim"], body, head["deal"], head["board"], rules)
    return encode_values(head, values, level, fresh)


def encode_values(head, values, level=None, fresh=False):
    """The certificate file: zstd (ZSTD_SETTINGS, or a plain zstd `level` for tests) of the
    msgpack header then the body values, in the frames frame_pieces() cuts them into. fresh:
    new compressors, as the one file of `certify DEAL` has (for benchmarks); else each
    thread's own, kept."""
    pieces = frame_pieces(msgpack.packb(head, use_bin_type=True), head, values)
    try:
        if len(pieces) == 1:
            return (new_compressor(level) if fresh else compressor(level)).compress(pieces[0])
        return b"".join(compress_each(pieces, level, fresh))
    except zstandard.ZstdError as e:
        raise as_memory_error(e) from None


def as_memory_error(e):
    """zstd fails on our own content only where it could not allocate its tables: that is
    running out of memory (an honest unknown), not a fault of the certificate."""
    if "memory" in str(e).lower() or "alloc" in str(e).lower():
        return MemoryError(str(e))
    return e


def frame_pieces(before, head, values):
    """The file's content (`before` the body values: the packed header, then the values) cut
    where its zstd frames begin and end (section 7): a win in one frame; a no-win's header and
    column table in one, then each chunk's (chunk_pieces). [bytes or memoryview, ...]."""
    if head.get("claim") != NO_WIN:
        return [before + values]
    count = head["count"]
    # The table's extent is read from the values whatever wrote them: the same bodies come back
    # from range certificates (certify extract), where no writer ran, so this is its one home
    # (a walk over the table's entries: under a millisecond for the published certificates).
    table, first = table_end(values)
    width = record_width(head["cells"], table)
    pieces = [before + values[:first]]
    view, at = memoryview(values), first
    for i in range(0, count, CHUNK):
        n = min(CHUNK, count - i)
        at += len(bin_header(n * width))
        pieces += chunk_pieces(view[at:at + n * width], n, width)
        at += n * width
    if at != len(values):
        raise ValueError("the body values are not the table and the chunks of the header's count")
    return pieces


def chunk_pieces(planes, n, width):
    """The frames' contents for one chunk of `n` records (`planes`: its n x width bytes as byte
    planes): the chunk's bin header and its first plane, then each other plane, when its records
    take FRAMED bytes or more (so that planes are compressed on several processors at once,
    compress_each: the same bytes for any number); else the whole chunk in one."""
    head = bin_header(n * width)
    if n * width < FRAMED:
        return [head + bytes(planes)]
    view = memoryview(planes)
    return [head + bytes(view[:n])] + [view[j * n:(j + 1) * n] for j in range(1, width)]


def table_end(values):
    """(entries, the offset where it ends) of the column table that begins a no-win's values."""
    tag = values[0]
    if 0x90 <= tag <= 0x9F:
        entries, at = tag & 0x0F, 1
    elif tag in (0xDC, 0xDD):
        size = 2 if tag == 0xDC else 4
        entries, at = int.from_bytes(values[1:1 + size], "big"), 1 + size
    else:
        raise ValueError("the body values do not begin with the column table")
    for _ in range(entries):
        size = {0xC4: 1, 0xC5: 2, 0xC6: 4}[values[at]]
        at += 1 + size + int.from_bytes(values[at + 1:at + 1 + size], "big")
    return entries, at


def compress_each(pieces, level=None, fresh=False):
    """Each piece compressed as a zstd frame of its own, on as many threads as this process
    has processors (zstd leaves the GIL while it works): [frame, ...], in the pieces' order."""
    compressed = [None] * len(pieces)
    todo = iter(range(len(pieces)))   # shared: next() hands each index to one thread
    failed = []

    def work():
        try:
            zstd = new_compressor(level) if fresh else compressor(level)
            for i in todo:
                compressed[i] = zstd.compress(pieces[i])
        except BaseException as e:  # MemoryError, Ctrl-C: raised again below, once all stop
            failed.append(e)

    helpers = []
    for _ in range(min(len(pieces), processors()) - 1):
        helper = threading.Thread(target=work, name="zstd", daemon=True)
        try:
            helper.start()
        except RuntimeError:  # no thread to be had (short of memory): fewer, the same bytes
            break
        helpers.append(helper)
    work()
    for helper in helpers:
        helper.join()
    if failed:
        raise failed[0]
    return compressed


def processors():
    """The processors this process may run on (os.cpu_count() where that cannot be asked)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


_compressors = threading.local()


def compressor(level=None):
    """This thread's zstd compressor (for ZSTD_SETTINGS, or `level`), made once: making one
    costs more than compressing a win certificate, and a census writes thousands a second.
    (Its output depends only on its settings and the input: tests/test_engine.py.)"""
    made = getattr(_compressors, "made", None)
    if made is None:
        made = _compressors.made = {}
    if level not in made:
        made[level] = new_compressor(level)
    return made[level]


def new_compressor(level=None):
    if level is not None:
        return zstandard.ZstdCompressor(level=level, write_checksum=False,
                                        write_content_size=True)
    return zstandard.ZstdCompressor(compression_params=zstandard.ZstdCompressionParameters(
        write_content_size=True, write_checksum=False, **ZSTD_SETTINGS))


def bin_header(n):
    """The msgpack header of a bin of n bytes, in its shortest form (as packb writes it). A bin
    holds at most 2^32 - 1 bytes: a chunk is far less, and a win line of more moves than that
    is not a line anyone has."""
    if n <= 0xFF:
        return bytes((0xC4, n))
    if n <= 0xFFFF:
        return b"\xc5" + n.to_bytes(2, "big")
    if n <= 0xFFFFFFFF:
        return b"\xc6" + n.to_bytes(4, "big")
    raise ValueError(f"a msgpack bin of {n:,} bytes (at most 2^32 - 1)")


# ---- Writing a no-win as its records stream in ---------------------------------------------

class NowinWriter:
    """A no-win certificate written as its records arrive, in memory bounded by one chunk:
    the same bytes as encode_file(header(...), no_win_body(...)) for the same records.

        with NowinWriter(out, columns, rules, deal=N) as w:   # or board=board_bytes(...)
            for rows in sorted_runs:       # record-major: whole records of w.width bytes,
                w.add(rows)                # strictly ascending across all the calls
            size, sha256 = w.close()

    `out` is a path as output.target() settles it (a file, a device or FIFO the user named, or
    '-'); `columns` the column table (ascending bytes, every entry used by some record: the
    caller's to keep); w.id_width and w.width are the ids' and the records' bytes. add() takes
    any number of whole records (bytes-like), refusing (ValueError) a piece that is not whole
    records or not above what came before (checked as each chunk fills); after any failure
    the writer is closed and writes nothing.

    The header comes first in the file but holds the count and the xxh3_64 of everything
    after it, known only at the end. So the chunks' frames go, as each chunk fills, to a
    spool file of ours (a temporary in `spool`, by default the output's folder, else TMPDIR);
    close() writes the header's frame, then copies the spool after it, into the output
    (output.atomic_file: a temporary renamed into place, so nothing is ever half-written), and
    removes the spool. Disk: the compressed certificate twice at the end, for a moment.
    Memory: a chunk of records, its planes and their frames (at most ~3 x 44 MiB).
    abort() (or leaving the `with` by an exception) removes the spool and writes nothing.
    """

    def __init__(self, out, columns, rules, deal=None, board=None, spool=None, level=None):
        if any(a >= b for a, b in zip(columns, columns[1:])):
            raise ValueError("the column table is not strictly ascending")
        self.out, self.rules, self.deal, self.board, self.level = out, rules, deal, board, level
        start_of(deal, board, rules.ncells)   # (a bad header is refused before any work)
        self.id_width = id_width(len(columns))
        self.width = 4 + rules.ncells + 8 * self.id_width
        self.table = msgpack.packb(list(columns), use_bin_type=True)
        self.hash = xxhash.xxh3_64(self.table)
        self.count = 0
        self.pending = bytearray()
        self.last = b""
        fd, self.spool_path = output.new_temporary(spool or spool_folder(out))
        self.spool = os.fdopen(fd, "w+b")

    def __enter__(self):
        return self

    def __exit__(self, kind, value, traceback):
        if kind is not None:
            self.abort()

    def add(self, rows):
        if self.spool is None:
            raise ValueError("this writer is closed")
        view = memoryview(rows).cast("B")
        if len(view) % self.width:
            self.abort()
            raise ValueError(f"{len(view)} bytes are not whole records of {self.width}")
        room = CHUNK * self.width
        while view:
            take = room - len(self.pending)
            self.pending += view[:take]
            view = view[take:]
            if len(self.pending) == room:
                self._write_chunk()

    def _write_chunk(self):
        try:
            self._write_records()
        except BaseException:   # (a writer that failed once writes nothing more)
            self.abort()
            raise

    def _write_records(self):
        rows, w = bytes(self.pending), self.width
        self.pending = bytearray()
        n = len(rows) // w
        last = self.last
        for at in range(0, n, 1 << 16):   # (in pieces: a list of a whole chunk's records is big)
            records = [rows[i:i + w] for i in range(at * w, min(n, at + (1 << 16)) * w, w)]
            if not (last < records[0] and all(map(operator.lt, records,
                                                  itertools.islice(records, 1, None)))):
                raise ValueError("records not strictly ascending")
            last = records[-1]
        pieces = chunk_pieces(byte_planes(rows, w), n, w)
        for piece in pieces:
            self.hash.update(piece)
        try:
            frames = compress_each(pieces, self.level)
        except zstandard.ZstdError as e:
            raise as_memory_error(e) from None
        for frame in frames:
            self.spool.write(frame)
        self.count += n
        self.last = last

    def close(self):
        """Write the certificate: (its size in bytes, its SHA-256 in hex)."""
        if self.spool is None:
            raise ValueError("this writer is closed")
        try:
            if self.pending:
                self._write_chunk()
            if not self.count:
                raise ValueError("no positions")
            head = values_header(NO_WIN, self.deal, self.board, self.rules, self.count,
                                 self.hash.hexdigest())
            first = compressor(self.level).compress(msgpack.packb(head, use_bin_type=True)
                                                    + self.table)
            sha, size = hashlib.sha256(first), len(first)
            self.spool.flush()
            self.spool.seek(0)
            with output.atomic_file(self.out) as f:
                f.write(first)
                while True:
                    block = self.spool.read(1 << 20)
                    if not block:
                        break
                    f.write(block)
                    sha.update(block)
                    size += len(block)
        finally:
            self.abort()
        return size, sha.hexdigest()

    def abort(self):
        """Let go of the spool: nothing is written (after close(), nothing more to do)."""
        if self.spool is not None:
            self.spool.close()
            self.spool = None
            try:
                os.unlink(self.spool_path)
            except OSError:
                pass


def spool_folder(out):
    """Where NowinWriter spools by default: beside a regular file the output will be, else
    (standard output, a device, a FIFO) the temporary folder."""
    if out != "-":
        real = os.path.realpath(out)
        try:
            regular = not os.path.exists(real) or os.path.isfile(real)
        except OSError:
            regular = False
        if regular:
            return os.path.dirname(real)
    return os.environ.get("TMPDIR") or "/tmp"


# ---- Reading --------------------------------------------------------------------------------

def read(path, max_size=1 << 32):
    """(header, body) of a certificate file: for versions 1 and 2 the body bin, for version 3
    the body values (everything after the header); raises CertificateError on anything
    malformed. Only a regular file is opened: opening a FIFO waits for a writer, and a device
    may do something when opened."""
    try:
        mode = os.stat(path).st_mode
        if not stat.S_ISREG(mode):
            raise CertificateError(f"cannot read {path}: {output.file_kind(mode)}, "
                                   f"not a regular file")
        with open(path, "rb") as f:
            content = Frames(f).whole(max_size)
    except OSError as e:
        raise CertificateError(f"cannot read {path}: {e}") from None
    return _parse(content, max_size)


def read_bytes(data, max_size=1 << 32):
    """(header, body) of a certificate held in memory (compressed bytes)."""
    return _parse(Frames(io.BytesIO(data)).whole(max_size), max_size)


class Frames:
    """The data of a file's zstd frames, one after another (section 3), read as it is needed.

    A file that ends inside a frame (cut short: even an empty file, which has not begun its
    first) or holds bytes that are not a zstd frame raises CertificateError, in check's words, so
    that the same file gets the same words from certify and check; a stream reader across
    frames would hand back a cut frame's data as if it were whole."""

    STEP = 1 << 12  # compressed bytes a step: zstd inflates 4 bytes to 128 KiB at most

    def __init__(self, f):
        self.f, self.d, self.buf, self.out, self.begun = f, None, bytearray(), 0, False
        self.cut = False  # the file has ended inside a frame

    def read(self, n):
        """Up to n bytes of data, fewer only where the data ends. Where the file ends inside a
        frame, the bytes before the cut, then CertificateError on the next read (so that a
        reader of values can say which one the cut fell in)."""
        while len(self.buf) < n and self._step():
            pass
        if self.cut and not self.buf:
            raise self._cut()
        if len(self.buf) <= n:
            piece, self.buf = bytes(self.buf), bytearray()
        else:
            piece = bytes(memoryview(self.buf)[:n])
            del self.buf[:n]
        self.out += len(piece)
        return piece

    def whole(self, limit):
        """All the data, as a bytearray (not copied: a certificate's data may be gigabytes), or
        CertificateError: cut short, not zstd, or more than `limit` bytes."""
        while len(self.buf) <= limit and self._step():
            pass
        if self.cut:
            raise self._cut()
        if len(self.buf) > limit:
            raise CertificateError("decompressed size over the limit")
        data, self.buf = self.buf, bytearray()
        self.out += len(data)
        return data

    def _cut(self):
        """The error of a file that ended inside a frame, or before its first."""
        return CertificateError("its zstd frame is cut short") if self.begun else \
            EmptyFile("is empty")

    def _step(self):
        """One step of compressed bytes decompressed into buf; False where the file has ended
        (after a whole frame, or inside one: then cut)."""
        chunk = b""
        if self.d is not None and self.d.eof:  # the bytes after an ended frame: the next one's
            chunk, self.d = self.d.unused_data, None
        if not chunk:
            chunk = self.f.read(self.STEP)
            if not chunk:
                self.cut = self.d is not None or not self.begun
                return False
        if self.d is None:
            self.d = zstandard.ZstdDecompressor().decompressobj(read_across_frames=False)
            self.begun = True
        try:
            self.buf += self.d.decompress(chunk)
        except zstandard.ZstdError as e:
            raise CertificateError(f"not a certificate: not a valid zstd frame ({e})") from None
        return True

    def tell(self):
        """The bytes of data read so far."""
        return self.out


def _parse(content, max_size):
    if len(content) > max_size:
        raise CertificateError("decompressed size over the limit")
    unpacker = msgpack.Unpacker(raw=False, max_buffer_size=len(content) + 1)
    unpacker.feed(content)
    try:
        head = unpacker.unpack()
    except msgpack.OutOfData:  # (check's words)
        raise CertificateError("the header (in the first 64 KiB) is cut short") from None
    except Exception as e:  # msgpack raises several unrelated types
        raise CertificateError(f"not msgpack: {e}") from None
    try:
        if isinstance(head, dict) and head.get("version") == 3:
            body = bytes(memoryview(content)[unpacker.tell():])
            extra = False
        else:
            body = unpacker.unpack()
            extra = unpacker.tell() != len(content)
    except msgpack.OutOfData:  # whole frames, but the data ends inside a value
        raise CutShort("the body") from None
    except Exception as e:
        raise CertificateError(f"not msgpack: {e}") from None
    if extra or not isinstance(head, dict) or head.get("format") != FORMAT:
        raise CertificateError("not a freecell certificate")
    if head.get("version") not in VERSIONS:
        raise CertificateError(f"unsupported version {head.get('version')!r}")
    if not isinstance(body, bytes) or xxhash.xxh3_64_hexdigest(body) != head.get("xxh3_64"):
        if head.get("version") == 3 and head.get("claim") == "no-win":
            part = _nowin_cut(body, head.get("count"))
            if part:
                raise CutShort(part)
        raise CertificateError("body digest does not match the header")
    return head, body


def _nowin_cut(values, count):
    """The part of a version 3 no-win's body values in which the data ends, named as check
    names it ("column table entry 3", "column 3", "the records"), or None if the values end
    whole. A file cut at a frame boundary is whole zstd but short data: check, which reads the
    values before it can know the digest, says where they end, so certify says the same."""
    at = 0

    def length(what, kinds):  # the length of the next array or bin, or None: not one (or cut)
        nonlocal at
        if at >= len(values):
            raise CutShort(what)
        first = values[at]
        if 0x90 <= first <= 0x9f and "array" in kinds:
            at += 1
            return first & 0x0f
        sizes = {0xc4: 1, 0xc5: 2, 0xc6: 4} if "bin" in kinds else {0xdc: 2, 0xdd: 4}
        if first not in sizes:
            return None
        n = sizes[first]
        if at + 1 + n > len(values):
            raise CutShort(what)
        at += 1 + n
        return int.from_bytes(values[at - n:at], "big")

    def skip(n, what):
        nonlocal at
        if at + n > len(values):
            raise CutShort(what)
        at += n

    try:
        columns = length("the column table", ("array",))
        for i in range(columns or 0):
            n = length(f"column table entry {i}", ("bin",))
            if n is None:
                return None
            skip(min(n, 53), f"column {i}")
        chunks = -(-count // CHUNK) if isinstance(count, int) and count > 0 else 0
        for _ in range(chunks):
            n = length("the records", ("bin",))
            if n is None:
                return None
            skip(n, "the records")
    except CutShort as e:
        return e.part
    return None


def unpack_values(values):
    """The msgpack values of a version 3 body, in order; CertificateError if they are not."""
    try:
        unpacker = msgpack.Unpacker(raw=False, max_buffer_size=len(values) + 1)
        unpacker.feed(values)
        return list(unpacker)
    except Exception as e:  # msgpack raises several unrelated types
        raise CertificateError(f"the body is not msgpack values: {e}") from None


def nowin_parts(values, count, ncells):
    """(column table, [chunk, ...]) of a version 3 no-win's body values, each chunk's size
    checked against `count`; CertificateError otherwise."""
    parts = unpack_values(values)
    table, chunks = (parts[0], parts[1:]) if parts else (None, [])
    if not (isinstance(table, list) and all(isinstance(c, bytes) for c in table)):
        raise CertificateError("the body does not begin with a column table")
    width = record_width(ncells, len(table))
    sizes = [min(CHUNK, count - i) for i in range(0, count, CHUNK)]
    if len(chunks) != len(sizes) or any(not isinstance(c, bytes) or len(c) != n * width
                                        for c, n in zip(chunks, sizes)):
        raise CertificateError(f"the records are not {len(sizes)} chunks of {count:,} "
                               f"records of {width} bytes in all")
    return table, chunks


def v3_from_v2(body, count, ncells):
    """A version 2 no-win body's [table, byte planes] as version 3 body values (certify
    extract of an older range certificate writes what certify writes now)."""
    try:
        table, data = msgpack.unpackb(body, raw=False)
    except (ValueError, TypeError, msgpack.UnpackException):
        raise CertificateError("the body is not [column table, records]") from None
    width = record_width(ncells, len(table))
    return nowin_values(table, from_planes(data, count, width), width)


# Reading a certificate's header alone: what claim a file holds, before a run may replace it.

HEADER_READ = 1 << 16  # a certificate's header is its first msgpack value, ~200 bytes


def peek_header(path):
    """The header of the certificate (or range certificate) at `path`, read from its first bytes
    only and not checked, or None if the file is not one (or is not a regular file, or cannot be
    read): enough to say what a file claims, never to believe it (load() does that)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        with open(path, "rb") as f:
            first = zstandard.ZstdDecompressor().stream_reader(
                f, read_across_frames=True).read(HEADER_READ)
        unpacker = msgpack.Unpacker(raw=False, max_buffer_size=HEADER_READ)
        unpacker.feed(first)
        head = unpacker.unpack()
    except Exception:  # unreadable, not zstd, not msgpack: not a certificate, whatever it is
        return None
    if isinstance(head, dict) and head.get("format") == FORMAT:
        return head
    return None


# Reading a certificate whole: one Certificate for every reader.

def load(path):
    """The certificate at `path`, its header and start position checked; CertificateError
    (one line, without the path) on anything a reader could not use."""
    return Certificate(*read(path), path=path)


class Certificate:
    """A certificate file as its readers use it, whatever its version.

    claim, deal (or None), board (the header's bytes, or None), rules, count, header, body:
    what the file says; start: the position it starts from (the deal's, or the board's);
    line(): a win's moves [(card, dest), ...]; records(): a no-win's (table, records, width);
    positions(): a no-win's positions, each holding the 52 cards.
    """

    def __init__(self, header, body, path=None):
        self.header, self.body, self.path = header, body, path
        self.version = header.get("version")
        self.claim = header.get("claim")
        if self.claim not in (WIN, NO_WIN):
            raise CertificateError(f"unknown claim {self.claim!r}")
        self.rules = rules_of(header)
        self.count = header.get("count")
        if type(self.count) is not int or self.count < 0:
            raise CertificateError("the header's count is not a number of positions")
        self.deal, self.board = header.get("deal"), header.get("board")
        self.start = start_of(self.deal, self.board, self.rules.ncells)

    def line(self):
        """A win's single-card moves: (card, destination) pairs, as many as the header says
        (whether they are legal is for the reader to replay; a version 3 line, whose moves
        are indices among the legal ones, is legal move by move once it is read)."""
        if self.claim != WIN:
            raise CertificateError("not a win certificate")
        if self.version == 3:
            parts = unpack_values(self.body)
            if len(parts) != 1 or not isinstance(parts[0], bytes) or \
                    len(parts[0]) != self.count:
                raise CertificateError(f"a win's body is one bin of {self.count} move indices")
            return line_of(self.start, parts[0], self.rules)
        if len(self.body) % 2 or len(self.body) // 2 != self.count:
            raise CertificateError(f"a win's body is {self.count} pairs of bytes (card, "
                                   f"destination), not {len(self.body)} bytes")
        return list(zip(self.body[0::2], self.body[1::2]))

    def records(self):
        """A no-win's (column table, records, bytes per column id): the records as bytes of
        4 foundation counts, the cells, and 8 ids into the table; as many as the header says."""
        if self.claim != NO_WIN:
            raise CertificateError("not a no-win certificate")
        ncells = self.rules.ncells
        if self.version == 3:
            table, chunks = nowin_parts(self.body, self.count, ncells)
            width = record_width(ncells, len(table))
            found = [r for i, c in enumerate(chunks)
                     for r in from_planes(c, len(c) // width, width)]
            return table, found, id_width(len(table))
        try:
            table, data = msgpack.unpackb(self.body, raw=False)
            ok = isinstance(table, list) and all(isinstance(c, bytes) for c in table) \
                and isinstance(data, bytes)
        except (ValueError, TypeError, msgpack.UnpackException):
            ok = False
        if not ok:
            raise CertificateError("the body is not [column table, records]")
        width = 2 if len(table) <= 65536 else 3
        if self.version == 1:
            found = front_decode(data, 4 + ncells + 8 * width)
        else:
            found = from_planes(data, self.count, 4 + ncells + 8 * width)
        if len(found) != self.count:
            raise CertificateError(f"{len(found)} records, but the header says {self.count}")
        return table, found, width

    def positions(self):
        """A no-win's positions, (foundations, cells, columns) triples, each checked to hold
        the 52 cards in 8 columns."""
        table, found, width = self.records()
        ncells = self.rules.ncells
        out = []
        for r in found:
            ids = [int.from_bytes(r[k:k + width], "big") for k in range(4 + ncells, len(r), width)]
            if max(ids) >= len(table):
                raise CertificateError(f"a column id {max(ids)} outside the table of {len(table)}")
            position = r[:4], r[4:4 + ncells].rstrip(b"\xff"), tuple(table[i] for i in ids)
            if not well_formed(position, ncells):
                raise CertificateError("a position does not hold the 52 cards in 8 columns")
            out.append(position)
        return out


def rules_of(head):
    """The Rules a header (a single certificate's or a range's) states, or CertificateError
    naming the field that is not one: cells 0..8, foundation_moves true or false, symmetry
    "none" (columns in fixed places) or "columns"."""
    cells, foundation_moves = head.get("cells"), head.get("foundation_moves")
    symmetry = head.get("symmetry")
    if type(cells) is not int or not 0 <= cells <= 8:
        raise CertificateError(f"cells must be 0..8, not {cells!r}")
    if type(foundation_moves) is not bool:
        raise CertificateError(f"foundation_moves must be true or false, not "
                               f"{foundation_moves!r}")
    if symmetry not in ("none", "columns"):
        raise CertificateError(f"unknown symmetry {symmetry!r}")
    autoplay = "closure" in head
    if autoplay and (head["closure"] != AUTOPLAY or head.get("version") != 3 or foundation_moves
                     or head.get("claim") == WIN):
        raise CertificateError(f"closure {head['closure']!r} is not allowed here: only "
                               f'"autoplay", in a version 3 no-win or range without foundation '
                               f"moves")
    return Rules(cells, symmetry == "none", foundation_moves, autoplay)


def start_of(deal, board, ncells):
    """The start position a header names: its deal's, or its board's (board_bytes' layout),
    exactly one of the two; CertificateError if it is neither."""
    if (deal is None) == (board is None):
        raise CertificateError("the header needs a deal number or a board, and not both")
    if deal is not None:
        if type(deal) is not int or not 1 <= deal <= deals.MAX_DEAL:
            raise CertificateError(f"deal {deal!r} is not a deal number 1 .. {deals.MAX_DEAL}")
        return start(deals.deal(deal))
    if not isinstance(board, bytes) or len(board) < 4 + ncells + 8:
        raise CertificateError("the header's board is not a layout")
    found, cells = board[:4], board[4:4 + ncells].rstrip(b"\xff")
    columns = board[4 + ncells:].split(b"\xff")
    position = found, cells, tuple(columns[:8])
    if len(columns) != 9 or columns[8] or not well_formed(position, ncells):
        raise CertificateError("the header's board is not a layout of the 52 cards in 8 columns")
    return position


def well_formed(position, ncells):
    """Foundation counts 0..13, at most `ncells` cells in ascending order, 8 columns, and each
    of the 52 cards exactly once."""
    found, cells, cols = position
    if len(found) != 4 or max(found) > 13 or len(cols) != 8 or len(cells) > ncells:
        return False
    if list(cells) != sorted(set(cells)):
        return False
    cards = [r * 4 + s for s in range(4) for r in range(found[s])]
    cards += list(cells) + [c for col in cols for c in col]
    return sorted(cards) == list(range(52))
