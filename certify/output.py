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
and anything else is refused. Standard output ('-') is written directly too.
"""

import os
import stat
import sys
import tempfile
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
        fd, probe = tempfile.mkstemp(prefix=TEMPORARY_PREFIX, dir=folder)
    except OSError as e:
        raise OutputError(f"cannot write {path}: cannot create files in {shown} "
                          f"({e.strerror})") from None
    os.close(fd)
    os.unlink(probe)


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
        sys.stdout.flush()
        yield sys.stdout.buffer
        sys.stdout.buffer.flush()
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
    fd, tmp = tempfile.mkstemp(prefix=TEMPORARY_PREFIX, dir=os.path.dirname(real))
    umask = os.umask(0)
    os.umask(umask)
    try:
        os.fchmod(fd, 0o666 & ~umask)  # mkstemp's 0600 is for secrets; a certificate is public
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


# ---- Text for the user's screen -----------------------------------------------------------

def printable(text):
    """`text` with control characters escaped (\\r, \\x1b...), so that a hostile file name
    cannot redraw the line it is printed on."""
    text = str(text)
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def say(text, stream=None):
    """Print a line of output. If the reader has gone (`certify ... | head -3`), stop printing
    quietly and let the run finish its work (files it writes are still written)."""
    stream = sys.stdout if stream is None else stream
    try:
        print(text, file=stream, flush=True)
    except BrokenPipeError:
        silence(stream)


def silence(stream):
    """Send the rest of what goes to `stream` (stdout or stderr) nowhere."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass
