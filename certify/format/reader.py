"""Reading certificate files (docs/certificate-format.md) of every version certify reads.

    load(path) -> Certificate       the one reader, for every version
    peek_header(path)               a file's header alone, unchecked: what it claims
    read(path), read_bytes(data)    (header, body): the file's header and what follows it

Every reader inside certify (explain, the exports, the index of certificates/) reads a file
with load(path) -> Certificate, which checks the header and the start position once, for all
of them. A body of an old version is read by format/legacy.py, through its one dispatch. Reading
does not check the claim: that is check/'s job, which shares none of this.
"""

import io
import os
import stat

import msgpack
import xxhash
import zstandard

from .. import output
from ..outcome import NO_WIN, WIN
from . import legacy, spec
from .spec import CertificateError, CutShort, EmptyFile


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
    try:  # the body: the values after the header, or (an old version's, legacy.py) one bin
        if isinstance(head, dict) and head.get("version") == spec.VERSION:
            body = bytes(memoryview(content)[unpacker.tell():])
            extra = False
        else:
            body = unpacker.unpack()
            extra = unpacker.tell() != len(content)
    except msgpack.OutOfData:  # whole frames, but the data ends inside a value
        raise CutShort("the body") from None
    except Exception as e:
        raise CertificateError(f"not msgpack: {e}") from None
    if extra or not isinstance(head, dict) or head.get("format") != spec.FORMAT:
        raise CertificateError("not a freecell certificate")
    if head.get("version") not in spec.VERSIONS:
        raise CertificateError(f"unsupported version {head.get('version')!r}")
    if not isinstance(body, bytes) or xxhash.xxh3_64_hexdigest(body) != head.get("xxh3_64"):
        if head.get("version") == spec.VERSION and head.get("claim") == NO_WIN:
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
        chunks = -(-count // spec.CHUNK) if isinstance(count, int) and count > 0 else 0
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
    width = spec.record_width(ncells, len(table))
    sizes = [min(spec.CHUNK, count - i) for i in range(0, count, spec.CHUNK)]
    if len(chunks) != len(sizes) or any(not isinstance(c, bytes) or len(c) != n * width
                                        for c, n in zip(chunks, sizes)):
        raise CertificateError(f"the records are not {len(sizes)} chunks of {count:,} "
                               f"records of {width} bytes in all")
    return table, chunks


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
    if isinstance(head, dict) and head.get("format") == spec.FORMAT:
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
        self.rules = spec.rules_of(header)
        self.count = header.get("count")
        if type(self.count) is not int or self.count < 0:
            raise CertificateError("the header's count is not a number of positions")
        self.deal, self.board = header.get("deal"), header.get("board")
        self.start = spec.start_of(self.deal, self.board, self.rules.ncells)

    def line(self):
        """A win's single-card moves: (card, destination) pairs, as many as the header says
        (whether they are legal is for the reader to replay; a version 3 line, whose moves
        are indices among the legal ones, is legal move by move once it is read)."""
        if self.claim != WIN:
            raise CertificateError("not a win certificate")
        if self.version in legacy.VERSIONS:
            return legacy.read_body(self.version, WIN, self.body, self.count, self.rules.ncells)
        parts = unpack_values(self.body)
        if len(parts) != 1 or not isinstance(parts[0], bytes) or len(parts[0]) != self.count:
            raise CertificateError(f"a win's body is one bin of {self.count} move indices")
        return line_of(self.start, parts[0], self.rules)

    def records(self):
        """A no-win's (column table, records, bytes per column id): the records as bytes of
        4 foundation counts, the cells, and 8 ids into the table; as many as the header says."""
        if self.claim != NO_WIN:
            raise CertificateError("not a no-win certificate")
        ncells = self.rules.ncells
        if self.version in legacy.VERSIONS:
            return legacy.read_body(self.version, NO_WIN, self.body, self.count, ncells)
        table, chunks = nowin_parts(self.body, self.count, ncells)
        width = spec.record_width(ncells, len(table))
        found = [r for c in chunks for r in spec.from_planes(c, len(c) // width, width)]
        return table, found, spec.id_width(len(table))

    def positions(self):
        """A no-win's positions, (foundations, cells, columns) triples, each checked to hold
        the 52 cards in 8 columns."""
        table, found, width = self.records()
        ncells = self.rules.ncells
        out = []
        for r in found:
            ids = [int.from_bytes(r[k:k + width], "big") for k in range(4 + ncells, len(r), width)]
            if max(ids) >= len(table):
                raise CertificateError(f"a column id {max(ids)} outside the table of "
                                       f"{len(table)}")
            position = r[:4], r[4:4 + ncells].rstrip(b"\xff"), tuple(table[i] for i in ids)
            if not spec.well_formed(position, ncells):
                raise CertificateError("a position does not hold the 52 cards in 8 columns")
            out.append(position)
        return out


def line_of(position, indices, rules):
    """The (card, dest) moves that move indices name from `position`; CertificateError at an
    index that names no legal move."""
    line = []
    for k, i in enumerate(indices):
        legal = spec.ordered_moves(position, rules)
        if i >= len(legal):
            raise CertificateError(f"move {k + 1} (index {i}) is not a legal move: only "
                                   f"{len(legal)} moves are legal there")
        card, dest, position = legal[i]
        line.append((card, dest))
    return line
