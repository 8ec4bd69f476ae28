"""Writing certificate files (docs/certificate-format.md): the version certify writes (VERSION).

Encoding is deterministic (everything sorted, fixed compression settings, zstd frames cut by a
rule of the data alone, no timestamps), so the same deal and rules give the same bytes everywhere,
on any number of processors. Files are written by certify/output.py.

Version 3 (section 7): the body as msgpack values after the header, a no-win's records in chunks
of 2^20 laid out as byte planes, a win as one move index a byte. The writer here is the
reference; the compiled engine's (certify/engine/writer.c) gives the same bytes without a Python
object per position, and proved() uses whichever engine runs.

Inside certify a certificate's **body** is what its writers hand around: for a win, its line,
two bytes a move (card, destination), as the solver gives it and Result.moves reads it; for a
no-win, its **body values**, the bytes that follow the header in the file (the column table,
then the chunks). A win's line becomes its body value (move indices) here, in win_values().

    header(claim, deal, board, rules, count, body)  the header of a single certificate
    encode_file(head, body)                         the file's bytes, all in memory
    NowinWriter(out, columns, rules, deal, board)   a no-win written as its records stream in,
                                                    in memory bounded by a chunk (a search on
                                                    disk writes this way; the same bytes)
"""

import hashlib
import itertools
import operator
import os
import threading

import msgpack
import xxhash
import zstandard

from .. import output
from ..outcome import NO_WIN, WIN
from . import spec

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


def header(claim, deal, board, rules, count, body):
    """The header of a single certificate whose body (a win's line, a no-win's body values:
    the module's docstring) is `body`."""
    values = body_values(claim, body, deal, board, rules)
    return values_header(claim, deal, board, rules, count, xxhash.xxh3_64_hexdigest(values))


def values_header(claim, deal, board, rules, count, xxh3):
    """The header, given the xxh3_64 (hex) of the body values that follow it."""
    return {
        "format": spec.FORMAT,
        "version": spec.VERSION,
        "claim": claim,
        "deal": deal,
        "board": board,
        **rules.header(claim),
        "count": count,
        "xxh3_64": xxh3,
    }


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
    width = spec.id_width(len(table))
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
    for i in range(0, len(records), spec.CHUNK):
        out.append(chunk_value(b"".join(records[i:i + spec.CHUNK]), width))
    return b"".join(out)


def chunk_value(rows, width):
    """A chunk's value in the file, from its records one after another (`rows`, a whole number
    of `width`-byte records): its bin header, then byte j of every record for j = 0, 1, ..."""
    return spec.bin_header(len(rows)) + byte_planes(rows, width)


def byte_planes(rows, width):
    """Records of `width` bytes, given one after another, as byte planes: byte j of record k
    at j * (number of records) + k. (`rows` may also be a list of records.)"""
    if not isinstance(rows, (bytes, bytearray, memoryview)):
        rows = b"".join(rows)
    return b"".join(rows[j::width] for j in range(width))


# ---- Win bodies -----------------------------------------------------------------------------


def win_body(moves):
    """The body of a win certificate inside certify: its line, card and destination of each
    move. A line that is bytes already (the engine's solve_line) is its own body, and keeps
    what it carries (its move indices, worked out by the compiled engine)."""
    if isinstance(moves, (bytes, bytearray)):
        return moves
    return bytes(b for card, dest in moves for b in (card, dest))


def move_indices(position, line, rules):
    """A line (bytes: card, destination, ...) from `position` as move indices (section 7),
    one byte a move; ValueError if a move is not legal where it is made. The reference: the
    compiled engine's twin (certify/engine/replay.c, move_indices) gives the same bytes."""
    out = bytearray()
    for m in range(0, len(line), 2):
        wanted = line[m], line[m + 1]
        for i, (card, dest, after) in enumerate(spec.ordered_moves(position, rules)):
            if (card, dest) == wanted:
                out.append(i)
                position = after
                break
        else:
            raise ValueError(f"move {m // 2 + 1} of the line ({wanted}) is not legal")
    return bytes(out)


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
        indices = move_indices(spec.start_of(deal, board, rules.ncells), key[0], rules)
    values = spec.bin_header(len(indices)) + indices
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
    rules = spec.rules_of(head)
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
    width = spec.record_width(head["cells"], table)
    pieces = [before + values[:first]]
    view, at = memoryview(values), first
    for i in range(0, count, spec.CHUNK):
        n = min(spec.CHUNK, count - i)
        at += len(spec.bin_header(n * width))
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
    head = spec.bin_header(n * width)
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
        spec.start_of(deal, board, rules.ncells)   # (a bad header is refused before any work)
        self.id_width = spec.id_width(len(columns))
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
        room = spec.CHUNK * self.width
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
