"""Range certificates (docs/certificate-format.md, sections 6 and 7): one file for every deal A..B.

The file (zstd, one frame as written here, at LEVEL) holds a header and then one entry per deal,
in deal order: in version 3, which certify writes, `[deal, claim, count]` followed by exactly
the body values of that deal's single certificate (a win's move indices; a no-win's column
table and chunks); in version 2, which certify still reads, `[deal, claim, count, body]`. Both ways
through the file stream: `write` takes its entries from an iterable made twice (once to hash
them, since the header that comes first carries their digest, once to compress them), and
`read` hands back entries one at a time as they come out of the decompressor. Either way the
memory needed is that of the largest entry, not of the range.

This is certify's reader, for `certify extract` and for tests; it is not the trusted checker
(check/ verifies range certificates on its own), but a damaged file still gets a one-line
RangeError rather than a traceback or a wrong answer.
"""

import hashlib

import msgpack
import xxhash
import zstandard

from . import legacy, reader, spec, writer
from .. import output

FORMAT = spec.FORMAT
VERSION = 3  # what certify writes
VERSIONS = (2, 3)  # what it reads: range certificates exist from version 2 on
CLAIM = "range"
# zstd level for the whole file: win lines, nearly all of a range's bytes, are already a byte a
# move, so the levels past this one save a few per cent for many times the time
# (benchmarks/README.md, "A range certificate's zstd level"; bench_census.py --levels).
LEVEL = 9
HEADER_LIMIT = 1 << 16  # the header must decode from the first 64 KiB
MAX_ENTRY = (1 << 32) - 1  # our reader's bound on one entry, as for a single certificate
CLAIMS = ("win", "no-win")
KEYS = {"format", "version", "claim", "first", "last", "cells", "foundation_moves", "symmetry",
        "count", "xxh3_64"}


class RangeError(ValueError):
    """A file that is not a readable range certificate (or entries that cannot make one)."""


class EmptyRange(RangeError, spec.EmptyFile):
    """A range file with no byte at all (spec.said says it as check does)."""


def pack_entry(deal, claim, count, values):
    """One entry's bytes, exactly as they stand in the file (msgpack's shortest forms): its
    [deal, claim, count], then the body values of its single certificate (for a body as
    certify holds it, writer.body_values gives them)."""
    return msgpack.packb([deal, claim, count], use_bin_type=True) + values


def header(first, last, rules, digest):
    return {
        "format": FORMAT,
        "version": VERSION,
        "claim": CLAIM,
        "first": first,
        "last": last,
        **rules.header(CLAIM),
        "count": last - first + 1,
        "xxh3_64": digest,
    }


def rules_of(head):
    """The Rules a range header states (spec.rules_of: one reading of the fields)."""
    try:
        return spec.rules_of(head)
    except spec.CertificateError as e:
        raise RangeError(str(e)) from None


# Writing.

def write(path, first, last, rules, entries, level=LEVEL):
    """Write the range certificate for deals first..last to `path`, whole or not at all.

    `entries()` gives the packed entries (pack_entry) in deal order; it is called twice and must
    give the same bytes both times. Returns (size in bytes, SHA-256 hex digest) of the file.
    """
    digest, length = _digest(entries(), first, last)
    head = msgpack.packb(header(first, last, rules, digest), use_bin_type=True)
    compressor = zstandard.ZstdCompressor(level=level, write_checksum=False,
                                          write_content_size=True)
    with output.atomic_file(path) as f:
        sha = hashlib.sha256()
        sink = _Tee(f, sha)
        with compressor.stream_writer(sink, size=len(head) + length, closefd=False) as z:
            z.write(head)
            again = xxhash.xxh3_64()
            for entry in entries():
                again.update(entry)
                z.write(entry)
        if again.hexdigest() != digest:
            raise RangeError("the entries changed while the file was written")
        return sink.size, sha.hexdigest()


def _digest(entries, first, last):
    """(xxh3_64 hex, total bytes) of the packed entries, checking they are deals first..last."""
    h = xxhash.xxh3_64()
    length = 0
    expected = first
    for entry in entries:
        deal = _entry_deal(entry)
        if deal != expected:
            raise RangeError(f"entry for deal {deal} where deal {expected} belongs")
        expected += 1
        h.update(entry)
        length += len(entry)
    if expected != last + 1:
        raise RangeError(f"entries end at deal {expected - 1}, not {last}")
    return h.hexdigest(), length


# msgpack's tags for an unsigned int that follows in 1, 2, 4 or 8 bytes (a smaller one is the
# tag byte itself, below 0x80); 0x93 is an array of three.
UINT_WIDTH = {0xcc: 1, 0xcd: 2, 0xce: 4, 0xcf: 8}


def _entry_deal(entry):
    """The deal number at the head of a packed entry, read without unpacking its body."""
    if entry[:1] != b"\x93":
        raise RangeError("an entry does not begin with [deal, claim, count]")
    tag = entry[1]
    if tag < 0x80:
        return tag
    if tag not in UINT_WIDTH:
        raise RangeError("an entry's deal is not a number")
    return int.from_bytes(entry[2:2 + UINT_WIDTH[tag]], "big")


class _Tee:
    """A file-like sink that also counts and hashes what passes through it."""

    def __init__(self, f, sha):
        self.f, self.sha, self.size = f, sha, 0

    def write(self, data):
        self.f.write(data)
        self.sha.update(data)
        self.size += len(data)
        return len(data)

    def flush(self):
        self.f.flush()


# Reading.

def read(path):
    """(header, entries) of a range certificate; entries yields (deal, claim, count, body),
    body as the single certificate of that version holds it: version 2's body bin, or
    version 3's body values (as they stand in the file, in msgpack's shortest forms).

    Everything is checked as it streams: the header's keys and types, each entry's shape and
    deal number, and, once the last entry is out, that nothing follows and the digest matches.
    Any fault raises RangeError (from the generator, for what lies past the header).
    """
    try:
        f = open(path, "rb")
    except OSError as e:
        raise RangeError(f"cannot read {path}: {e.strerror or e}") from None
    try:
        stream = reader.Frames(f)
        unpacker = msgpack.Unpacker(raw=False, max_buffer_size=MAX_ENTRY, strict_map_key=True)
        first = _read_some(stream, HEADER_LIMIT)
        unpacker.feed(first)
        try:
            head = unpacker.unpack()
        except msgpack.OutOfData:
            if stream.cut:
                raise RangeError("its zstd frame is cut short") from None
            raise RangeError("no header in the first 64 KiB: not a range certificate") from None
        except Exception as e:  # msgpack raises several unrelated types
            raise RangeError(f"not msgpack: {e}") from None
        _check_header(head)
        digest = xxhash.xxh3_64()
        digest.update(first[unpacker.tell():])
    except BaseException:
        f.close()
        raise
    return head, _entries(f, _Values(stream, unpacker, digest), head)


def _read_some(stream, n, deal=None):
    try:
        return stream.read(n)
    except spec.EmptyFile as e:
        raise EmptyRange(str(e)) from None
    except spec.CertificateError as e:  # (a cut frame, or not zstd: in check's words)
        raise RangeError(str(e) if deal is None else f"entry for deal {deal}: {e}") from None


def _check_header(head):
    if not isinstance(head, dict) or head.get("format") != FORMAT:
        raise RangeError("not a freecell certificate")
    if head.get("claim") != CLAIM:
        raise RangeError(f"not a range certificate (claim {head.get('claim')!r})")
    if head.get("version") not in VERSIONS:
        raise RangeError(f"unsupported version {head.get('version')!r}")
    if set(head) - {"closure"} != KEYS:
        raise RangeError("header keys are not those of a range certificate")
    first, last = head["first"], head["last"]
    if not (_int(first) and _int(last) and 1 <= first <= last <= 2**33 - 1):
        raise RangeError(f"bad range first={first!r} last={last!r}")
    rules_of(head)
    if head["count"] != last - first + 1 or not _int(head["count"]):
        raise RangeError(f"count {head['count']!r} is not last - first + 1")
    if not (isinstance(head["xxh3_64"], str) and len(head["xxh3_64"]) == 16):
        raise RangeError("xxh3_64 is not 16 hex digits")


def _int(x):
    return type(x) is int


class _Values:
    """The msgpack values after the header, one at a time, fed from the decompressor as they
    are needed, every byte fed also hashed."""

    def __init__(self, stream, unpacker, digest):
        self.stream, self.unpacker, self.digest = stream, unpacker, digest

    def next(self, deal, inside=True):
        """The next value; at the end of the data, _END where an entry may begin (`inside`
        false), else _Cut."""
        while True:
            try:
                return self.unpacker.unpack()
            except msgpack.OutOfData:
                pass
            except Exception as e:  # msgpack's errors for malformed data
                raise RangeError(f"entry for deal {deal}: not msgpack: {e}") from None
            data = _read_some(self.stream, 1 << 20, deal)
            if not data:
                if inside or self.unpacker.tell() != self.stream.tell():
                    raise _Cut
                return _END
            self.digest.update(data)
            self.unpacker.feed(data)


_END = object()


class _Cut(Exception):
    """The data ends inside an entry."""


def _entries(f, values, head):
    with f:
        deal, last = head["first"], head["last"]
        try:
            while True:
                entry = values.next(deal, inside=False)
                if entry is _END:
                    break
                if deal > last:
                    raise RangeError(f"more than {head['count']:,} entries: bytes after the "
                                     f"last entry")
                if head["version"] == 2:
                    yield _checked_entry(entry, deal, head, 4)
                else:
                    number, claim, count = _checked_entry(entry, deal, head, 3)
                    yield number, claim, count, _body_values(values, deal, claim, count, head)
                deal += 1
        except _Cut:
            pass
        if deal != last + 1:
            raise RangeError(f"the file ends after {deal - head['first']:,} of "
                             f"{head['count']:,} entries")
        if values.digest.hexdigest() != head["xxh3_64"]:
            raise RangeError("the entries do not match the header's xxh3_64: the file is corrupt")


def _checked_entry(entry, deal, head, size):
    shape = "[deal, claim, count, body]" if size == 4 else "[deal, claim, count]"
    if not (isinstance(entry, list) and len(entry) == size):
        raise RangeError(f"entry for deal {deal} is not {shape}")
    number, claim, count = entry[:3]
    if number != deal or not _int(number):
        raise RangeError(f"entry {deal - head['first']:,} is for deal {number!r}, not {deal}")
    if claim not in CLAIMS:
        raise RangeError(f"entry for deal {deal}: bad claim {claim!r}")
    if not (_int(count) and 0 <= count <= (MAX_ENTRY if size == 4 else 2**64 - 1)):
        raise RangeError(f"entry for deal {deal}: bad count {count!r}")
    if size == 4 and not isinstance(entry[3], bytes):
        raise RangeError(f"entry for deal {deal}: body is not bytes")
    return tuple(entry)


def _body_values(values, deal, claim, count, head):
    """A version 3 entry's body values, read and checked for their shape, as bytes."""
    def bins(n, what):
        value = values.next(deal)
        if not isinstance(value, bytes) or len(value) != n:
            raise RangeError(f"entry for deal {deal}: {what} is not a bin of {n:,} bytes")
        return spec.bin_header(n) + value
    if claim == "win":
        return bins(count, "its line of move indices")
    table = values.next(deal)
    if not (isinstance(table, list) and all(isinstance(c, bytes) for c in table)):
        raise RangeError(f"entry for deal {deal}: no column table")
    if count < 1:
        raise RangeError(f"entry for deal {deal}: a no-win of no positions")
    width = spec.record_width(head["cells"], len(table))
    out = [msgpack.packb(table, use_bin_type=True)]
    for i in range(0, count, spec.CHUNK):
        n = min(spec.CHUNK, count - i)
        out.append(bins(n * width, f"chunk {i // spec.CHUNK}"))
    return b"".join(out)


def single_certificate(head, deal, claim, count, body):
    """The single certificate of one entry (of either version): the file `certify DEAL` writes
    under these rules, of the version certify writes."""
    rules = rules_of(head)
    try:
        if head["version"] == 2:
            if claim == "win":   # a version 2 win's body is its line, as certify holds one
                single = writer.header(claim, deal, None, rules, count, body)
                return writer.encode_file(single, body)
            table, records, _ = legacy.read_body(2, claim, body, count, rules.ncells)
            body = writer.nowin_values(table, records,
                                       spec.record_width(rules.ncells, len(table)))
        single = writer.values_header(claim, deal, None, rules, count,
                                      xxhash.xxh3_64_hexdigest(body))
        return writer.encode_values(single, body)
    except (spec.CertificateError, ValueError) as e:
        raise RangeError(f"entry for deal {deal}: {e}") from None
