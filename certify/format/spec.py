"""What docs/certificate-format.md fixes, shared by the writer, the reader and the old versions'
read paths: the format's name and versions, the sizes of a no-win's records, the move order of a
win's move indices (section 7), and the checks of a header's rules and start position.

It is the reference the compiled engine follows too (certify/engine/writer.c and replay.c give
the same bytes). Nothing here reads or writes a file: format/writer.py writes one,
format/reader.py reads one of any version (format/legacy.py for the old ones).
"""

import hashlib

from ..game import deals
from ..outcome import WIN
from ..game.rules import CELL, HOME, Rules, moves, start

FORMAT = "freecell-certificate"
VERSION = 3  # what certify writes (format/writer.py)
VERSIONS = (1, 2, 3)  # what format/reader.py reads: VERSION and legacy.VERSIONS
AUTOPLAY = "autoplay"  # the header's closure key's one value (docs/certificate-format.md, section 8)
CHUNK = 1 << 20  # records in each chunk of a version 3 no-win body, but the last


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


def from_planes(data, count, width):
    """The records held in byte planes (for readers inside certify; check/ has its own)."""
    if len(data) != count * width:
        raise CertificateError(f"records are {len(data)} bytes, not {count} x {width}")
    rows = bytearray(len(data))
    for j in range(width):
        rows[j::width] = data[j * count:(j + 1) * count]
    return [bytes(rows[i:i + width]) for i in range(0, len(rows), width)]


def move_rank(card, dest):
    """Where a move stands in section 7's move order: to a foundation first, then to columns
    1..8, then to a free cell; within one destination by ascending card."""
    return (0 if dest == HOME else 9 if dest == CELL else 1 + dest), card


def ordered_moves(position, rules):
    """The legal moves of a position in the move order: [(card, dest, next position), ...]."""
    return sorted(moves(position, rules),
                  key=lambda m: move_rank(m[0], m[1]))


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
