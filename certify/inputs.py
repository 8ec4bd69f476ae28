"""Reading what a user names on the command line: a deal number or a board file, and text files.

A text input must be a regular file (or '-', standard input, where a command offers it): a FIFO
would block, /dev/zero would never end. It is opened without blocking, checked by the open file
(so nothing can be swapped in between looking and reading), and read up to a size cap, past
which it is refused rather than read on.
"""

import os
import stat
import sys

from . import deals
from .board import BoardError, read_board
from .options import Usage, deal_number
from .output import file_kind
from .rules import start

BOARD_LIMIT = 1 << 16  # a board is under 300 bytes; room for comments
NOTATION_LIMIT = 1 << 24  # a line of a few hundred moves, and whatever a solver prints around it


def read_text(path, limit, stdin_ok=True):
    """The UTF-8 text of the file at `path` ('-': standard input, if `stdin_ok`), at most `limit`
    bytes; anything else is Usage naming the file and the problem."""
    if path == "-" and stdin_ok:
        data = sys.stdin.buffer.read(limit + 1)
    else:
        data = read_regular(path, limit)
    if len(data) > limit:
        raise Usage(f"{path}: more than {limit:,} bytes; not read further")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise Usage(f"{path}: not UTF-8 text (byte {e.start})") from None


def regular_file(path):
    """Refuse (Usage) a path that is not a regular file, before anything opens it."""
    try:
        mode = os.stat(path).st_mode
    except OSError as e:
        raise Usage(f"cannot read {path}: {e.strerror}") from None
    if not stat.S_ISREG(mode):
        raise Usage(f"{path}: {file_kind(mode)}, not a regular file; not read")


def read_regular(path, limit):
    """Up to limit + 1 bytes of a regular file (one more than allowed shows it is too big).

    Looked at before opening (opening some devices does something) and again once open."""
    regular_file(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except OSError as e:
        raise Usage(f"cannot read {path}: {e.strerror}") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise Usage(f"{path}: {file_kind(mode)}, not a regular file; not read")
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, limit + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)
    except OSError as e:
        raise Usage(f"cannot read {path}: {e.strerror}") from None
    finally:
        os.close(fd)


def board_file(path, ncells):
    """The position in a board file; any problem with it is bad input."""
    try:
        return read_board(read_text(path, BOARD_LIMIT), ncells)
    except BoardError as e:
        raise Usage(f"{path}: {e}") from None


def board_label(path):
    """A board file's base name, for the default certificate name: 'endgame' for x/endgame.txt."""
    if path == "-":
        return "board"
    return os.path.splitext(os.path.basename(os.path.normpath(path)))[0] or "board"


def starting_point(deal_text, board_path, ncells, neither_or_both):
    """(deal number or None, start position, label for file names) from a deal number or a
    board file: exactly one of them must be given, else Usage(neither_or_both)."""
    if (deal_text is None) == (board_path is None):
        raise Usage(neither_or_both)
    if board_path is not None:
        return None, board_file(board_path, ncells), board_label(board_path)
    deal = deal_number(deal_text)
    return deal, start(deals.deal(deal)), str(deal)
