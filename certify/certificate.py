"""Writing and reading certificate files (docs/certificate-format.md).

Encoding is deterministic (everything sorted, fixed compression level, no timestamps), so the
same deal and rules give the same bytes everywhere. Files are written by certify/output.py.

certify writes version 2 (no-win records as byte planes) and reads versions 1 and 2. The writer
here is the reference; the compiled engine's (certify/engine/search.c) gives the same bytes
without a Python object per position, and prove() uses whichever engine runs.
"""

import os

import msgpack
import xxhash
import zstandard

FORMAT = "freecell-certificate"
VERSION = 2  # what certify writes; read() reads VERSIONS
VERSIONS = (1, 2)
# The zstd level: the fastest that keeps deal 11982 within 1.1 bytes a position (issue 9).
# Measured on 11982's version 2 content (2,000,014 bytes), CPU time of one compress, median of 9:
#   level 12: 1.117 B/pos, 24 ms   level 14: 1.106, 53 ms   level 15: 1.097, 68 ms
#   level 16: 1.038, 111 ms        level 17: 1.016, 115 ms
#   (btopt with a smaller search: 1.088 in 80 ms; version 1's front coding at 19: 1.06, 0.2-0.4 s)
# (benchmarks/bench_engine.py --levels prints these again.)
LEVEL = 15
HOME, CELL = 9, 8


class CertificateError(ValueError):
    """A file that is not a readable certificate."""


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


def no_win_body(keys, columns, ncells, fixed_columns):
    """The body of a no-win certificate (version 2) from the search's keys and its columns.

    The search numbers columns in the order it met them; the file numbers them in sorted
    order, so every key is renumbered (and its ids re-sorted under symmetry), then the
    records are sorted and laid out as byte planes. (The compiled engine's writer,
    certify/engine/search.c, does the same without a Python object per position; the two
    give the same bytes.)
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
    records = []
    for k, olds in zip(keys, old_ids):
        ids = [renumber[i] for i in olds]
        if not fixed_columns:
            ids.sort()
        records.append(k[:ids_at] + b"".join(i.to_bytes(width, "big") for i in ids))
    records.sort()
    return msgpack.packb([table, byte_planes(records, ids_at + 8 * width)],
                         use_bin_type=True)


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
    return bytes(b for card, dest in moves for b in (card, dest))


def encode_file(head, body, level=LEVEL):
    # msgpack's packb(body) would copy the body once more (a large one is ~60 MB): its bin
    # header is written here instead, the same bytes (tests/test_engine.py).
    content = b"".join((msgpack.packb(head, use_bin_type=True), bin_header(len(body)), body))
    return zstandard.ZstdCompressor(level=level, write_checksum=False,
                                    write_content_size=True).compress(content)


def bin_header(n):
    """The msgpack header of a bin of n bytes, in its shortest form (as packb writes it)."""
    if n <= 0xFF:
        return bytes((0xC4, n))
    if n <= 0xFFFF:
        return b"\xc5" + n.to_bytes(2, "big")
    return b"\xc6" + n.to_bytes(4, "big")


def read(path, max_size=1 << 32):
    """(header, body) of a certificate file; raises CertificateError on anything malformed."""
    try:
        with open(path, "rb") as f:
            content = zstandard.ZstdDecompressor().stream_reader(f).read(max_size + 1)
    except (OSError, zstandard.ZstdError) as e:
        raise CertificateError(f"cannot read {path}: {e}") from None
    return _parse(content, max_size)


def read_bytes(data, max_size=1 << 32):
    """(header, body) of a certificate held in memory (compressed bytes)."""
    try:
        content = zstandard.ZstdDecompressor().stream_reader(data).read(max_size + 1)
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


def positions(head, body):
    """The decoded positions of a no-win certificate: (foundations, cells, columns) triples."""
    table, data = msgpack.unpackb(body, raw=False)
    ncells = head["cells"]
    width = 2 if len(table) <= 65536 else 3
    out = []
    for r in records(head, data, 4 + ncells + 8 * width):
        ids = [int.from_bytes(r[k:k + width], "big") for k in range(4 + ncells, len(r), width)]
        out.append((r[:4], r[4:4 + ncells].rstrip(b"\xff"), tuple(table[i] for i in ids)))
    return out
