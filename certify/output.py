"""Writing files the user asked for, and only those, without harming anything else.

    out = target(args.output, "11982.msgpack.zst")   # before any long work: refuse a bad path
    ...
    write_atomic(out, data)                          # at the end: write it whole

`target` settles where an output goes, up front: '-' is standard output; an existing folder
gets the default name inside it; a missing folder, a folder we cannot create files in, a block
device, a socket or a folder in the default name's place is an OutputError (one line, exit 2)
before any search starts. Symbolic links are followed, so a link stays a link.

`write_atomic` writes a regular file whole or not at all: a temporary file in the same folder,
then a rename over the target, so an interrupted run never leaves a partial certificate. A
rename would *replace* anything, so it is used only where the path is a regular file or
nothing: a character device (/dev/null) or a FIFO that the user named is written to directly,
and anything else is refused. Standard output ('-') is written directly too, every byte of it
or BrokenPipeError (StandardOutput).
"""

import os
import stat
import sys
from contextlib import contextmanager

TEMPORARY_PREFIX = ".tmp-"  # what an interrupted write can leave behind in the target's folder


class OutputError(OSError):
    """An output that cannot or must not be written; its message is one line naming it."""


def file_kind(mode):
    """What a file that is not regular is, in words."""
    for test, words in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                        (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                        (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return words
    return "not a regular file"


def _mode(path):
    """The mode of what `path` names (links followed), or None if there is nothing there."""
    try:
        return os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):  # nothing there (its folder says why)
        return None
    except OSError as e:
        raise OutputError(f"cannot write {path}: {e.strerror}") from None


def written_directly(mode):
    """Whether an existing file of this mode is written to in place rather than replaced."""
    return stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)


def target(path, default_name, stdout_ok=True, binary=True):
    """Where to write: `path` (None: `default_name` here; a folder: `default_name` in it; '-':
    standard output, if `stdout_ok`, else refused), checked now so that a bad path is refused
    before any work. Returns the path to give `write_atomic`.

    A binary output is not sent to standard output when that is a terminal."""
    if path is None:
        path = default_name
    elif path == "-" and not stdout_ok:
        raise OutputError("this command writes a file, not standard output: name a file")
    elif path == "-":
        if sys.stdout is None:
            raise Undeliverable("standard output is closed: name a file with -o, or give "
                                "certify an open standard output")
        if binary and sys.stdout.isatty():
            raise OutputError("standard output is a terminal: redirect it (> FILE) or name a "
                              "file with -o")
        return "-"
    mode = _mode(path)
    if mode is not None and stat.S_ISDIR(mode):
        path = os.path.join(path, default_name)
        mode = _mode(path)
    if mode is None and path.endswith(os.sep):  # meant as a folder, and there is none
        raise OutputError(f"cannot write {path}: there is no folder {path.rstrip(os.sep)}")
    if mode is None or stat.S_ISREG(mode):
        _can_create_in(path)
    elif not written_directly(mode):
        raise OutputError(f"cannot write {path}: it is {file_kind(mode)}; name a file")
    elif not os.access(path, os.W_OK):
        raise OutputError(f"cannot write {path}: permission denied")
    return path


def _can_create_in(path):
    """Refuse `path` unless a file can be made in its folder: try it (os.access is no help as
    root, or in /proc)."""
    folder = os.path.dirname(os.path.realpath(path))
    shown = os.path.dirname(path) or "."
    mode = _mode(folder)
    if mode is None:
        raise OutputError(f"cannot write {path}: there is no folder {shown}")
    if not stat.S_ISDIR(mode):
        raise OutputError(f"cannot write {path}: {shown} is not a folder")
    try:
        fd, probe = new_temporary(folder)
    except OSError as e:
        raise OutputError(f"cannot write {path}: cannot create files in {shown} "
                          f"({e.strerror})") from None
    os.close(fd)
    os.unlink(probe)


def new_temporary(folder):
    """(fd, path) of a new, empty file of ours in `folder`, open for writing: a random name made
    with O_EXCL, so it cannot be anything that was there, and no link is followed (as
    tempfile.mkstemp does; importing tempfile costs every certify run ~10 ms)."""
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) \
        | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    for _ in range(100):
        path = os.path.join(folder, TEMPORARY_PREFIX + os.urandom(8).hex())
        try:
            return os.open(path, flags, 0o600), path
        except FileExistsError:  # a name already taken: draw another
            continue
    raise FileExistsError(f"no free temporary name in {folder}")


def write_atomic(path, data):
    """Write `data` (bytes) to `path`, a path `target` settled: see the module's docstring."""
    with atomic_file(path) as f:
        f.write(data)


@contextmanager
def atomic_file(path):
    """write_atomic for a stream: `with atomic_file(path) as f: f.write(...)`. A regular file is
    left whole (renamed into place once on disk) or untouched, whatever stops the writing; a
    device or FIFO the user named is written in place; '-' is standard output."""
    if path == "-":
        out = StandardOutput()
        try:
            yield out
            out.flush()
        except BaseException:
            # Once the reader has gone, what stops the writing (zstd's "Src size is incorrect"
            # when a frame is closed short, say) is that the pipe broke.
            if out.broken is not None:
                raise out.broken from None
            raise
        return
    real = os.path.realpath(path)  # replace a link's target, not the link
    mode = _mode(real)
    if mode is not None and not stat.S_ISREG(mode):
        if not written_directly(mode):
            raise OutputError(f"cannot write {path}: it is {file_kind(mode)}; name a file")
        # never created, never replaced: opened as it is
        with open(os.open(real, os.O_WRONLY | getattr(os, "O_NOCTTY", 0)), "wb") as f:
            yield f
        return
    fd, tmp = new_temporary(os.path.dirname(real))
    umask = os.umask(0)
    os.umask(umask)
    try:
        os.fchmod(fd, 0o666 & ~umask)  # 0600 until it is whole; a certificate is public
        with os.fdopen(fd, "wb") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, real)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


class Undeliverable(OutputError):
    """Standard output cannot take what was asked to go there: exit 1, as when it breaks."""


class StandardOutput:
    """Standard output as a binary file that takes every byte or raises: a pipe whose reader
    goes away takes what fits in it, and a plain write then returns short without an error
    (65,536 of 90,835 bytes), so each write is repeated until every byte is taken; the next
    one raises BrokenPipeError, which is kept in `broken`, and the bytes written until then
    in the module's `cut_short`, for the top level to say: written into the pipe, not read
    (`certify 11982 -o - | head -c 100` writes 65,536 of them, and head takes 100)."""

    def __init__(self):
        if sys.stdout is None:
            raise Undeliverable("standard output is closed: nothing can be written to it")
        sys.stdout.flush()  # text printed before comes first
        sys.stdout.buffer.flush()
        try:  # the descriptor itself: a buffered writer that breaks midway hides what it took
            fd = sys.stdout.fileno()
            self.put = lambda view: os.write(fd, view)
        except (AttributeError, OSError, ValueError):  # not a file (a test's capture)
            self.put = sys.stdout.buffer.write
        self.broken = None
        self.taken = 0

    def write(self, data):
        view = memoryview(data).cast("B")
        try:
            while view:
                taken = self.put(view)
                taken = len(view) if taken is None else taken
                self.taken += taken
                view = view[taken:]
        except BrokenPipeError as e:
            self._broke(e)
            raise
        return len(data)

    def flush(self):
        try:
            sys.stdout.buffer.flush()
        except BrokenPipeError as e:
            self._broke(e)
            raise

    def _broke(self, e):
        global cut_short
        self.broken = e
        cut_short = self.taken


cut_short = None  # bytes of a file written to standard output before its reader went away


# ---- Text for the user's screen -----------------------------------------------------------

def printable(text):
    """`text` with control characters escaped (\\r, \\x1b...), so that a hostile file name
    cannot redraw the line it is printed on."""
    text = str(text)
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def say(text, stream=None):
    """Print a line of output, now. If the reader has gone (`certify ... | head -3`),
    BrokenPipeError goes up to the command's top level (cli.main), which says so and exits 1:
    what was not delivered is never reported as done."""
    print(text, file=sys.stdout if stream is None else stream, flush=True)


def silence(stream):
    """Send the rest of what goes to `stream` (stdout or stderr) nowhere."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # AttributeError: a stream that was None
        pass
