"""Reading what a user names on the command line: a deal number or a board file, and text files.

A text input must be a regular file (or '-', standard input, where a command offers it): a FIFO
would block, /dev/zero would never end. It is opened without blocking, checked by the open file
(so nothing can be swapped in between looking and reading), and read up to a size cap, past
which it is refused rather than read on.
"""

import os
import stat
import sys

from ..game import deals
from ..game.board import BoardError, read_board
from .options import Usage, deal_number
from ..output import file_kind
from ..game.rules import Rules, start

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


STANDARD_INPUT = "standard input"  # how '-' is named in what certify says


def board_label(path):
    """A board file's base name without its extension, for default file names: 'endgame' for
    x/endgame.txt, 'stdin' for '-'. The names made from it carry names.BOARD_MARK too, so
    that `--board 1.board` never takes deal 1's name."""
    if path == "-":
        return "stdin"
    return os.path.splitext(os.path.basename(os.path.normpath(path)))[0] or "layout"


def input_name(path):
    """A file named on the command line, as certify says it ('-' is standard input)."""
    from ..output import printable
    return STANDARD_INPUT if path == "-" else printable(path)


def starting_point(deal_text, board_path, ncells, neither_or_both):
    """(deal number or None, start position, label for file names) from a deal number or a
    board file: exactly one of them must be given, else Usage(neither_or_both). A board's label
    is board_label's."""
    if (deal_text is None) == (board_path is None):
        raise Usage(neither_or_both)
    if board_path is not None:
        return None, board_file(board_path, ncells), board_label(board_path)
    deal = deal_number(deal_text)
    return deal, start(deals.deal(deal)), str(deal)


def keep_other_claims(out, given, deal, position, rules):
    """Refuse (Usage, before any search) to let a default name replace what is not this run's
    certificate: `out` is the target settled from `given` (-o, or None); a path the user named
    is theirs to replace. The file there may be a certificate of the same deal (or layout) under
    the same rules, which the run writes again; anything else is kept."""
    if out == "-" or (given is not None and out == given):
        return
    try:
        if not stat.S_ISREG(os.stat(out).st_mode):
            return  # nothing there, or a device or FIFO, written to as it is
    except OSError:
        return
    from ..format.reader import peek_header
    from ..format.spec import board_bytes
    head = peek_header(out)
    if head is None:
        raise Usage(f"{out} exists and is not a certificate; not replaced: name the output "
                    f"with -o")
    board = None if deal is not None else board_bytes(position, rules.ncells)
    symmetry = "none" if rules.fixed_columns else "columns"
    if (head.get("deal") == deal and head.get("board") == board
            and head.get("cells") == rules.ncells
            and head.get("foundation_moves") is rules.foundation_moves
            and (head.get("claim") == "win" or head.get("symmetry") == symmetry)):
        return
    raise Usage(f"{out} holds a certificate of {claimed(head)}; not replaced: name the output "
                f"with -o")


def claimed(head):
    """What a certificate's header says it proves, in a few words."""
    what = f"deal {head.get('deal')}" if head.get("deal") is not None else "another layout"
    rules = Rules(head.get("cells"), head.get("claim") != "win" and head.get("symmetry") == "none",
                  bool(head.get("foundation_moves")))
    return f"{what} ({rules.words()}, {head.get('claim')})"
