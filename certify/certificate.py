"""Writing and reading certificate files (docs/certificate-format.md).

Encoding is deterministic (everything sorted, fixed compression settings, zstd frames cut by a
rule of the data alone, no timestamps), so the same deal and rules give the same bytes everywhere,
on any number of processors. Files are written by certify/output.py.

certify writes version 2 (no-win records as byte planes) and reads versions 1 and 2. The writer
here is the reference; the compiled engine's (certify/engine/search.c) gives the same bytes
without a Python object per position, and prove() uses whichever engine runs.

Every reader inside certify (explain, the exports, the index of certificates/) reads a file
with load(path) -> Certificate, which checks the header and the start position once, for all
of them. Reading does not check the claim: that is check/'s job, which shares none of this.
"""

import hashlib
import os
import threading

import msgpack
import xxhash
import zstandard

from . import deals
from .outcome import MOST_RECORD_BYTES, NO_WIN, WIN, FormatFull, too_large
from .rules import Rules, start

FORMAT = "freecell-certificate"
VERSION = 2  # what certify writes; read() reads VERSIONS
VERSIONS = (1, 2)
# zstd's settings, spelled out rather than as a level (what a level means may move between
# zstd releases; these do not): the fastest found that keeps deal 11982 within 1.1 bytes a
# position. A small window suits the byte planes, whose matches are near: measured
# on 11982's content (2,000,014 bytes), CPU of one compress by a new compressor (as `certify
# DEAL` has), median of 9, beside level 15 (1.097 B/pos, certify's level until these):
#   these (btlazy2, window 2^18): 1.095 B/pos, 0.70x level 15's time
#   search_log 7: 1.085, 0.86x     min_match 5: 1.103, 0.67x     window 2^17, chain 2^16: 1.104
#   level 14: 1.106, 0.92x         btlazy2 window 2^21, search 5: 1.107, 0.64x
# All 133 published certificates: 16.2 MB (15.7 at level 15, 15.0 for version 1 at 19).
# Multi-threaded zstd (nbWorkers >= 1, jobs of 512 KiB) gave the same bytes for 1, 2, 4 and 8
# workers but no shorter wall time on this shared 2-core machine, so it is not used.
# (benchmarks/bench_engine.py --levels prints these figures again.)
ZSTD_SETTINGS = dict(strategy=zstandard.STRATEGY_BTLAZY2, window_log=18, chain_log=17,
                     hash_log=16, search_log=6, min_match=4, target_length=16)
# A no-win certificate whose records take at least this many bytes is written in frames, one for
# each byte plane of its records (frame_pieces(); measured on 11982's 2,000,014 bytes, two processors:
# 22 ms against 40 for one frame, and 1.091 bytes a position against 1.095).
FRAMED = 1 << 20
# What check/ reads of a file's decompressed data at most (docs §5): certify writes no more.
MOST_CONTENT = 1 << 32


class CertificateError(ValueError):
    """A file that is not a readable certificate."""


def digest(data):
    """The SHA-256 of a certificate file's bytes, in hex: what certify prints and publishes."""
    return hashlib.sha256(data).hexdigest()


def header(claim, deal, board, rules, count, body):
    return {
        "format": FORMAT,
        "version": VERSION,
        "claim": claim,
        "deal": deal,
        "board": board,
        "cells": rules.ncells,
        "foundation_moves": rules.foundation_moves,
        "symmetry": "none" if claim == "win" or rules.fixed_columns else "columns",
        "count": count,
        "xxh3_64": xxhash.xxh3_64_hexdigest(body),
    }


def board_bytes(position, ncells):
    """A custom start position as the header's `board` field: columns spelled out, in order."""
    found, cells, cols = position
    return (bytes(found) + bytes(sorted(cells)) + b"\xff" * (ncells - len(cells))
            + b"".join(bytes(c) + b"\xff" for c in cols))


def no_win_body(keys, columns, ncells, fixed_columns, most=MOST_RECORD_BYTES):
    """The body of a no-win certificate (version 2) from the search's keys and its columns.

    The search numbers columns in the order it met them; the file numbers them in sorted
    order, so every key is renumbered (and its ids re-sorted under symmetry), then the
    records are sorted and laid out as byte planes. (The compiled engine's writer,
    certify/engine/search.c, does the same without a Python object per position; the two
    give the same bytes.) A body of more than `most` bytes (smaller only in tests) raises
    FormatFull: the file holds it in one msgpack bin, whose length has 32 bits.
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
    width = 2 if len(table) <= 65536 else 3
    size = body_size([len(c) for c in table], len(keys), ids_at + 8 * width)
    if size > most:   # (before the records are made: the compiled writer refuses there too)
        raise FormatFull(too_large(len(keys), size, most))
    records = []
    for k, olds in zip(keys, old_ids):
        ids = [renumber[i] for i in olds]
        if not fixed_columns:
            ids.sort()
        records.append(k[:ids_at] + b"".join(i.to_bytes(width, "big") for i in ids))
    records.sort()
    return msgpack.packb([table, byte_planes(records, ids_at + 8 * width)],
                         use_bin_type=True)


def body_size(column_lengths, count, width):
    """The bytes of a version 2 no-win body: msgpack [table, records of `width` bytes]."""
    def array_head(n):
        return 1 if n <= 15 else 3 if n <= 0xFFFF else 5

    def bin_head(n):
        return 2 if n <= 0xFF else 3 if n <= 0xFFFF else 5
    return (1 + array_head(len(column_lengths)) + sum(bin_head(n) + n for n in column_lengths)
            + bin_head(count * width) + count * width)


def byte_planes(records, width):
    """Records of `width` bytes as version 2 lays them out: byte j of record k at
    j * len(records) + k."""
    rows = b"".join(records)
    return b"".join(rows[j::width] for j in range(width))


def from_planes(data, count, width):
    """The records held in byte planes (for readers inside certify; check/ has its own)."""
    if len(data) != count * width:
        raise CertificateError(f"records are {len(data)} bytes, not {count} x {width}")
    rows = bytearray(len(data))
    for j in range(width):
        rows[j::width] = data[j * count:(j + 1) * count]
    return [bytes(rows[i:i + width]) for i in range(0, len(rows), width)]


def records(head, data, width):
    """The records of a no-win body's `data`, for either version of the format."""
    if head.get("version") == 1:
        return front_decode(data, width)
    count = head.get("count")
    if type(count) is not int or count < 0:
        raise CertificateError("the header's count is not a number of positions")
    return from_planes(data, count, width)


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


def win_body(moves):
    """The body of a win certificate: card and destination of each move. A line that is bytes
    already (the engine's solve_line) is its own body."""
    if isinstance(moves, bytes):
        return moves
    return bytes(b for card, dest in moves for b in (card, dest))


def encode_file(head, body, level=None, fresh=False):
    """The certificate file: zstd (ZSTD_SETTINGS, or a plain zstd `level` for tests) of the
    msgpack header then the body, in the frames frame_pieces() cuts them into. fresh: new
    compressors, as the one file of `certify DEAL` has (for benchmarks); else each thread's own,
    kept."""
    # msgpack's packb(body) would copy the body once more (a large one is ~60 MB): its bin
    # header is written here instead, the same bytes (tests/test_engine.py).
    before = msgpack.packb(head, use_bin_type=True) + bin_header(len(body))
    if len(before) + len(body) > MOST_CONTENT:
        raise FormatFull(too_large(head.get("count", 0), len(before) + len(body), MOST_CONTENT))
    pieces = frame_pieces(before, head, body)
    try:
        if len(pieces) == 1:
            return (new_compressor(level) if fresh else compressor(level)).compress(pieces[0])
        return b"".join(compress_each(pieces, level, fresh))
    except zstandard.ZstdError as e:
        # zstd fails on our own content only where it could not allocate its tables: that is
        # running out of memory (an honest unknown), not a fault of the certificate.
        if "memory" in str(e).lower() or "alloc" in str(e).lower():
            raise MemoryError(str(e)) from None
        raise


def frame_pieces(before, head, body):
    """The file's content (`before` the body, then the body) cut where its zstd frames begin and
    end (§3): one frame, except for a no-win certificate whose records take FRAMED bytes or more.
    That one has a frame for all that comes before the records, then one for each of their byte
    planes, so that the planes are compressed on several processors at once (compress_each;
    the bytes are the same for any number). [content] or [bytes, memoryview, ...], in order."""
    count = head.get("count")
    if head.get("claim") != "no-win" or head.get("version") != 2 or \
            count * (4 + head["cells"] + 16) < FRAMED:   # (records are at least that wide)
        return [before + body]
    header = msgpack.Unpacker()   # [table, records]: the table's length sets the ids' width
    header.feed(body[:16])
    header.read_array_header()
    width = 4 + head["cells"] + 8 * (2 if header.read_array_header() <= 65536 else 3)
    view, first = memoryview(body), len(body) - count * width   # (the body ends with the records)
    return [before + body[:first]] + [view[first + j * count:first + (j + 1) * count]
                                      for j in range(width)]


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
    """The msgpack header of a bin of n bytes, in its shortest form (as packb writes it);
    FormatFull past a bin's 32-bit length (a body the format cannot hold)."""
    if n <= 0xFF:
        return bytes((0xC4, n))
    if n <= 0xFFFF:
        return b"\xc5" + n.to_bytes(2, "big")
    if n <= MOST_RECORD_BYTES:
        return b"\xc6" + n.to_bytes(4, "big")
    raise FormatFull(f"more positions than certificate format version 2 can hold (a body of "
                     f"{n:,} bytes, over {MOST_RECORD_BYTES:,})")


def read(path, max_size=1 << 32):
    """(header, body) of a certificate file; raises CertificateError on anything malformed."""
    try:
        with open(path, "rb") as f:
            content = zstandard.ZstdDecompressor().stream_reader(
                f, read_across_frames=True).read(max_size + 1)
    except (OSError, zstandard.ZstdError) as e:
        raise CertificateError(f"cannot read {path}: {e}") from None
    return _parse(content, max_size)


def read_bytes(data, max_size=1 << 32):
    """(header, body) of a certificate held in memory (compressed bytes)."""
    try:
        content = zstandard.ZstdDecompressor().stream_reader(
            data, read_across_frames=True).read(max_size + 1)
    except zstandard.ZstdError as e:
        raise CertificateError(f"not zstd: {e}") from None
    return _parse(content, max_size)


def _parse(content, max_size):
    if len(content) > max_size:
        raise CertificateError("decompressed size over the limit")
    try:
        unpacker = msgpack.Unpacker(raw=False, max_buffer_size=len(content) + 1)
        unpacker.feed(content)
        head = unpacker.unpack()
        body = unpacker.unpack()
        extra = unpacker.tell() != len(content)
    except Exception as e:  # msgpack raises several unrelated types
        raise CertificateError(f"not msgpack: {e}") from None
    if extra or not isinstance(head, dict) or head.get("format") != FORMAT:
        raise CertificateError("not a freecell certificate")
    if head.get("version") not in VERSIONS:
        raise CertificateError(f"unsupported version {head.get('version')!r}")
    if not isinstance(body, bytes) or xxhash.xxh3_64_hexdigest(body) != head.get("xxh3_64"):
        raise CertificateError("body digest does not match the header")
    return head, body


# Reading a certificate whole: one Certificate for every reader.

def load(path):
    """The certificate at `path`, its header and start position checked; CertificateError
    (one line, without the path) on anything a reader could not use."""
    return Certificate(*read(path), path=path)


class Certificate:
    """A certificate file as its readers use it.

    claim, deal (or None), board (the header's bytes, or None), rules, count, header, body:
    what the file says; start: the position it starts from (the deal's, or the board's);
    line(): a win's moves [(card, dest), ...]; records(): a no-win's (table, records, width);
    positions(): a no-win's positions, each holding the 52 cards.
    """

    def __init__(self, header, body, path=None):
        self.header, self.body, self.path = header, body, path
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
        (whether they are legal is for the reader to replay)."""
        if self.claim != WIN:
            raise CertificateError("not a win certificate")
        if len(self.body) % 2 or len(self.body) // 2 != self.count:
            raise CertificateError(f"a win's body is {self.count} pairs of bytes (card, "
                                   f"destination), not {len(self.body)} bytes")
        return list(zip(self.body[0::2], self.body[1::2]))

    def records(self):
        """A no-win's (column table, records, bytes per column id): the records as bytes of
        4 foundation counts, the cells, and 8 ids into the table; as many as the header says."""
        if self.claim != NO_WIN:
            raise CertificateError("not a no-win certificate")
        try:
            table, data = msgpack.unpackb(self.body, raw=False)
            ok = isinstance(table, list) and all(isinstance(c, bytes) for c in table) \
                and isinstance(data, bytes)
        except (ValueError, TypeError, msgpack.UnpackException):
            ok = False
        if not ok:
            raise CertificateError("the body is not [column table, records]")
        width = 2 if len(table) <= 65536 else 3
        found = records(self.header, data, 4 + self.rules.ncells + 8 * width)
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
    cells, back, symmetry = head.get("cells"), head.get("foundation_moves"), head.get("symmetry")
    if type(cells) is not int or not 0 <= cells <= 8:
        raise CertificateError(f"cells must be 0..8, not {cells!r}")
    if type(back) is not bool:
        raise CertificateError(f"foundation_moves must be true or false, not {back!r}")
    if symmetry not in ("none", "columns"):
        raise CertificateError(f"unknown symmetry {symmetry!r}")
    return Rules(cells, symmetry == "none", back)


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
