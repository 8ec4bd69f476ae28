"""The census's working state: chunk files of finished deals, one per block of deal numbers.

Deal numbers fall into blocks of `size` (1,000 by default): block k is deals k*size ..
k*size + size - 1. Everything finished in a block lives in one chunk file,
DIR/chunks/LO-HI.chunk.zst (LO..HI the block), written whole or not at all and fsynced, so a
census of a million deals is a thousand files, and a `kill -9` loses only the blocks in
flight. A chunk file is the only record of a finished deal; the results table and the range
certificate are both rebuilt from the chunk files.

A chunk file is one zstd frame holding three msgpack values:

    header    {"format": "freecell-census-chunk", "version": 1, "first": LO, "last": HI,
               "settings": the census's settings (census.json), "deals": [...],
               "verdicts": [...]}      the deals held, ascending, and their verdicts
    rows      [str, ...]               each deal's row of the results table (JSON text)
    entries   [bin, ...]               for each deal with a verdict (win or no-win), in order,
                                       its range certificate entry, packed as it will stand in
                                       the range file (certify/format/ranges.py)

A chunk may hold only some of its block's deals (a census of 5-20 in blocks of 1,000 holds
5..20 in block 0); a later census of more deals, or one that retries the unknown ones, adds
to it by rewriting it whole.
"""

import operator
import os
import re

import msgpack
import zstandard

from ...game import deals
from ... import output
from ...outcome import UNKNOWN, VERDICTS

FORMAT, VERSION = "freecell-census-chunk", 1
FOLDER = "chunks"
LEVEL = 3  # working files: fast to write and read; the range certificate is compressed harder
NAME = re.compile(r"^([0-9]+)-([0-9]+)\.chunk\.zst$")
HEADER_LIMIT = 1 << 20  # a header of 1,000 deals is ~10 KB; the largest block size allowed fits
MAX_SIZE = 100_000  # deals in a block (a chunk file's rows are held in memory at once)


class ChunkError(ValueError):
    """A chunk file that is not what this census wrote: the folder is damaged."""


def block(deal, size):
    return deal // size


def block_span(k, size):
    """The deal numbers of block k (the first block starts at deal 1: there is no deal 0)."""
    return range(max(1, k * size), min(deals.MAX_DEAL, k * size + size - 1) + 1)


def blocks(span, size):
    """The blocks a range of deals touches, in order."""
    return range(block(span.start, size), block(span.stop - 1, size) + 1)


def path_of(folder, k, size):
    b = block_span(k, size)
    return os.path.join(folder, FOLDER, f"{b.start}-{b.stop - 1}.chunk.zst")


def existing(folder, size):
    """{block: path} of the chunk files in the folder (every file there must be one)."""
    where = os.path.join(folder, FOLDER)
    found = {}
    for name in os.listdir(where):
        m = NAME.match(name)
        k = block(int(m[1]), size) if m else None
        if m is None or path_of(folder, k, size) != os.path.join(where, name):
            raise ChunkError(f"{FOLDER}/{name} is not a chunk file of this census "
                             f"(blocks of {size:,} deals)")
        found[k] = os.path.join(where, name)
    return found


class Item:
    """One finished deal: its verdict, its row of the table, its entry (None if unknown)."""

    __slots__ = ("deal", "verdict", "row", "entry")

    def __init__(self, deal, verdict, row, entry):
        self.deal, self.verdict, self.row, self.entry = deal, verdict, row, entry


def write(folder, k, size, settings, items):
    """Write block k's chunk file from its items (any order; one per deal), atomically."""
    items = sorted(items, key=lambda i: i.deal)
    span = block_span(k, size)
    head = {"format": FORMAT, "version": VERSION, "first": span.start, "last": span.stop - 1,
            "settings": settings, "deals": [i.deal for i in items],
            "verdicts": [i.verdict for i in items]}
    pack = msgpack.Packer(use_bin_type=True)
    data = (pack.pack(head) + pack.pack([i.row for i in items])
            + pack.pack([i.entry for i in items if i.verdict != UNKNOWN]))
    path = path_of(folder, k, size)
    output.write_atomic(path, zstandard.ZstdCompressor(level=LEVEL).compress(data))
    # The rename is durable once the folder is on disk too (a power cut, not just a kill -9).
    fd = os.open(os.path.dirname(path), os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class Reader:
    """A chunk file read front to back: header(), then rows(), then entries()."""

    def __init__(self, path, k, size, settings):
        self.path, self.k, self.size, self.settings = path, k, size, settings
        self.f = open(path, "rb")
        self.stream = zstandard.ZstdDecompressor().stream_reader(self.f, read_across_frames=True)
        self.unpacker = msgpack.Unpacker(raw=False, max_buffer_size=(1 << 32) - 1)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.f.close()

    def fault(self, what):
        return ChunkError(f"{FOLDER}/{os.path.basename(self.path)}: {what}")

    def next_value(self, limit=None, take=None):
        """The next msgpack value (or what `take` reads), reading the stream as far as needed."""
        take = take or self.unpacker.unpack
        read = 0
        while True:
            try:
                return take()
            except msgpack.OutOfData:
                pass
            except Exception as e:  # msgpack raises several unrelated types
                raise self.fault(f"not msgpack ({e})") from None
            try:
                data = self.stream.read(1 << 16)
            except zstandard.ZstdError as e:
                raise self.fault(f"not zstd ({e})") from None
            read += len(data)
            if not data or (limit is not None and read > limit):
                raise self.fault("cut short")
            self.unpacker.feed(data)

    def header(self):
        head = self.next_value(HEADER_LIMIT)
        span = block_span(self.k, self.size)
        if not (isinstance(head, dict) and head.get("format") == FORMAT
                and head.get("version") == VERSION):
            raise self.fault("not a census chunk file")
        if (head.get("first"), head.get("last")) != (span.start, span.stop - 1):
            raise self.fault(f"holds block {head.get('first')}-{head.get('last')}, "
                             f"not {span.start}-{span.stop - 1}")
        if head.get("settings") != self.settings:
            raise self.fault(f"written under other settings ({head.get('settings')})")
        numbers, verdicts = head.get("deals"), head.get("verdicts")
        # (Written for speed: a census reads each header several times.)
        if not (isinstance(numbers, list) and isinstance(verdicts, list)
                and len(numbers) == len(verdicts) and set(verdicts) <= set(VERDICTS)
                and set(map(type, numbers)) <= {int}
                and (not numbers or (numbers[0] in span and numbers[-1] in span))
                and all(map(operator.lt, numbers, numbers[1:]))):
            raise self.fault("its list of deals and verdicts is malformed")
        self.head = head
        return head

    def rows(self):
        rows = self.next_value()
        if not (isinstance(rows, list) and len(rows) == len(self.head["deals"])
                and all(isinstance(r, str) for r in rows)):
            raise self.fault("its rows do not match its deals")
        return rows

    def entries(self):
        """The packed entries, as the range certificate writer wants them: read as one list
        (a block's are some 100 KB; one at a time, each cost more to read than to write)."""
        want = len(self.head["verdicts"]) - self.head["verdicts"].count(UNKNOWN)
        entries = self.next_value()
        if not isinstance(entries, list):
            raise self.fault("its entries are not a list")
        if len(entries) != want:
            raise self.fault(f"holds {len(entries)} entries for {want} decided deals")
        if not all(isinstance(entry, bytes) for entry in entries):
            raise self.fault("an entry is not bytes")
        return entries


def index(path, k, size, settings):
    """(deals, verdicts) held by a chunk file: only its header is read."""
    with Reader(path, k, size, settings) as r:
        head = r.header()
        return head["deals"], head["verdicts"]


def rows(path, k, size, settings):
    """(deals, rows) of a chunk file: its header and rows, not its entries."""
    with Reader(path, k, size, settings) as r:
        return r.header()["deals"], r.rows()


def items(path, k, size, settings):
    """Every item of a chunk file (to rewrite it with more deals)."""
    with Reader(path, k, size, settings) as r:
        head = r.header()
        rows = r.rows()
        entries = iter(r.entries())
        return [Item(d, v, row, None if v == UNKNOWN else next(entries))
                for d, v, row in zip(head["deals"], head["verdicts"], rows)]
