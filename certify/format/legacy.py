"""The old versions' read paths, behind one dispatch (as zstd keeps its lib/legacy/): versions
1 and 2 of docs/certificate-format.md, which certify no longer writes but still reads, so that
every file once published stays readable. format/reader.py hands a body here when its header's
version is one of VERSIONS; nothing else of the reader knows an old version's layout.

In both, the body is one msgpack bin after the header: a win's line as two bytes a move (card,
destination); a no-win's [column table, records], each column id 2 bytes (3 past 65,536
entries), the records front-coded in version 1 and laid out as byte planes in version 2.

    read_body(version, claim, body, count, ncells)  a win's line, or a no-win's records
"""

import os

import msgpack

from ..outcome import WIN
from .spec import CertificateError, from_planes

VERSIONS = (1, 2)


def read_body(version, claim, body, count, ncells):
    """The body of a version 1 or 2 certificate of `count` moves or positions, read: a win's
    single-card moves [(card, destination), ...], or a no-win's (column table, records, bytes
    per column id), the records as bytes of 4 foundation counts, the cells and 8 ids into the
    table; CertificateError if the body is not that."""
    if version not in VERSIONS:
        raise ValueError(f"version {version!r} is not one of the old versions {VERSIONS}")
    if claim == WIN:
        return _line(body, count)
    return _records(version, body, count, ncells)


def _line(body, count):
    if len(body) % 2 or len(body) // 2 != count:
        raise CertificateError(f"a win's body is {count} pairs of bytes (card, "
                               f"destination), not {len(body)} bytes")
    return list(zip(body[0::2], body[1::2]))


def _records(version, body, count, ncells):
    try:
        table, data = msgpack.unpackb(body, raw=False)
        ok = isinstance(table, list) and all(isinstance(c, bytes) for c in table) \
            and isinstance(data, bytes)
    except (ValueError, TypeError, msgpack.UnpackException):
        ok = False
    if not ok:
        raise CertificateError("the body is not [column table, records]")
    width = 2 if len(table) <= 65536 else 3
    if version == 1:
        found = front_decode(data, 4 + ncells + 8 * width)
    else:
        found = from_planes(data, count, 4 + ncells + 8 * width)
    if len(found) != count:
        raise CertificateError(f"{len(found)} records, but the header says {count}")
    return table, found, width


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


def front_code(records):
    """Records front-coded as version 1 held them: each as the length of the prefix it shares
    with the one before, then the rest (the inverse of front_decode, for tests that make a
    version 1 file)."""
    out = bytearray()
    previous = b""
    for r in records:
        p = len(os.path.commonprefix((previous, r)))
        out.append(p)
        out += r[p:]
        previous = r
    return bytes(out)
