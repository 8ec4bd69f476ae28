"""certify/output.py: outputs settled up front, and written without harming anything.

A character device made in a temporary folder (a copy of /dev/null's device numbers) stands in
for /dev/null, which an earlier writer replaced with a regular file when run as root.
"""

import io
import os
import socket
import stat
import sys
import threading
import time

import pytest

from certify import output
from certify.output import OutputError, printable, target, write_atomic


@pytest.fixture
def null_device(tmp_path):
    """A character device in tmp_path that behaves as /dev/null (needs root, as CI runs)."""
    path = tmp_path / "null"
    devnull = os.stat("/dev/null")
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, devnull.st_rdev)
    except PermissionError:
        pytest.skip("making a device node needs root")
    return path


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return path


def read_fifo_in_background(path):
    """Start a reader of the FIFO (so a writer's open does not wait forever); returns a
    function giving what it read."""
    got = []
    reader = threading.Thread(target=lambda: got.append(open(path, "rb").read()), daemon=True)
    reader.start()

    def result():
        reader.join(30)
        assert not reader.is_alive(), "the FIFO's reader never finished"
        return got[0]
    return result


# ---- target: where an output goes, settled before the work ------------------------------

def test_default_name_here_and_inside_a_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert target(None, "1.msgpack.zst") == "1.msgpack.zst"
    (tmp_path / "out").mkdir()
    assert target("out", "1.msgpack.zst") == os.path.join("out", "1.msgpack.zst")
    assert target("x.msgpack.zst", "1.msgpack.zst") == "x.msgpack.zst"
    assert os.listdir(tmp_path / "out") == []  # checking a folder leaves nothing in it
    assert sorted(os.listdir(tmp_path)) == ["out"]


@pytest.mark.parametrize("path, words", [
    ("missing/dir/x.msgpack.zst", "there is no folder missing/dir"),
    ("/proc/nope", "cannot create files in /proc"),
    ("afile/x.msgpack.zst", "afile is not a folder"),
])
def test_a_path_that_cannot_be_written_is_refused(path, words, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("")
    with pytest.raises(OutputError) as e:
        target(path, "1.msgpack.zst")
    assert words in str(e.value) and "\n" not in str(e.value)


def test_a_folder_in_the_default_names_place_is_refused(tmp_path):
    (tmp_path / "1.msgpack.zst").mkdir()
    with pytest.raises(OutputError, match="is a folder"):
        target(str(tmp_path), "1.msgpack.zst")


def test_a_socket_is_refused(tmp_path):
    path = tmp_path / "sock"
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(path))
        with pytest.raises(OutputError, match="is a socket"):
            target(str(path), "x")
        with pytest.raises(OutputError, match="is a socket"):
            write_atomic(str(path), b"data")
    assert stat.S_ISSOCK(os.lstat(path).st_mode)


def test_devices_and_fifos_are_accepted_as_they_are(null_device, fifo):
    assert target(str(null_device), "x") == str(null_device)
    assert target(str(fifo), "x") == str(fifo)


def test_standard_output(monkeypatch):
    assert target("-", "x", binary=False) == "-"
    with pytest.raises(OutputError, match="not standard output"):
        target("-", "x", stdout_ok=False)
    monkeypatch.setattr(sys, "stdout", FakeTerminal())
    with pytest.raises(OutputError, match="standard output is a terminal"):
        target("-", "x")  # a binary certificate is not for a terminal's screen
    assert target("-", "x", binary=False) == "-"  # an SVG is text


class FakeTerminal(io.StringIO):
    def isatty(self):
        return True


# ---- write_atomic: whole or nothing, never over what is not ours --------------------------

def test_a_regular_file_is_replaced_whole(tmp_path):
    path = tmp_path / "c.msgpack.zst"
    path.write_bytes(b"old")
    write_atomic(str(path), b"new contents")
    assert path.read_bytes() == b"new contents"
    assert os.listdir(tmp_path) == ["c.msgpack.zst"]  # no temporary left behind
    assert stat.S_IMODE(path.stat().st_mode) & 0o444 == 0o444  # readable: a public file


def test_a_device_is_written_to_not_replaced(null_device):
    write_atomic(str(null_device), b"x" * 100_000)
    assert stat.S_ISCHR(os.lstat(null_device).st_mode)  # still the device, not a file


def test_a_fifo_is_written_to_not_replaced(fifo):
    received = read_fifo_in_background(fifo)
    write_atomic(str(fifo), b"certificate bytes" * 10_000)
    assert received() == b"certificate bytes" * 10_000
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_a_link_stays_a_link(tmp_path):
    real, link = tmp_path / "real.msgpack.zst", tmp_path / "link.msgpack.zst"
    real.write_bytes(b"old")
    link.symlink_to(real.name)
    write_atomic(str(target(str(link), "x")), b"new")
    assert link.is_symlink() and real.read_bytes() == b"new"


def test_a_folder_is_never_replaced(tmp_path):
    (tmp_path / "d").mkdir()
    with pytest.raises(OutputError, match="is a folder"):
        write_atomic(str(tmp_path / "d"), b"data")
    assert (tmp_path / "d").is_dir()


def test_dash_writes_standard_output(capfdbinary):
    write_atomic("-", b"\x28\xb5\x2f\xfd binary")
    assert capfdbinary.readouterr().out == b"\x28\xb5\x2f\xfd binary"


# ---- Text for the screen -------------------------------------------------------------------

def test_control_characters_are_shown_escaped():
    hostile = "x\r\x1b[2KVERIFIED: deal 1 cannot be won\x1b[8m.msgpack.zst"
    shown = printable(hostile)
    assert shown.isprintable() and "\\r" in shown and "\\x1b" in shown
    assert printable("plain 11982.msgpack.zst") == "plain 11982.msgpack.zst"


def test_say_to_a_closed_pipe_goes_up_to_the_top_level():
    read_end, write_end = os.pipe()
    os.close(read_end)
    stream = os.fdopen(write_end, "w")
    with pytest.raises(BrokenPipeError):  # for cli.main to exit 1: nothing claims success
        output.say("nobody is reading", stream)
    output.silence(stream)
    stream.close()


def test_standard_output_takes_every_byte_or_raises(monkeypatch):
    # A reader that takes a little and goes: the pipe takes what fits, a plain write returns
    # short, and the rest must not be reported as written.
    read_end, write_end = os.pipe()
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(os.fdopen(write_end, "wb")))
    monkeypatch.setattr(output, "cut_short", None)

    def take_a_little():
        os.read(read_end, 1000)
        time.sleep(0.2)  # the writer is blocked on a full pipe by now
        os.close(read_end)

    reader = threading.Thread(target=take_a_little)
    reader.start()
    data = b"x" * 1_000_000
    with pytest.raises(BrokenPipeError):
        write_atomic("-", data)
    reader.join()
    assert output.cut_short is not None and 1000 <= output.cut_short < len(data)
    output.silence(sys.stdout)


def test_a_stream_broken_midway_is_said_as_broken_whatever_stopped_the_writer(monkeypatch):
    read_end, write_end = os.pipe()
    os.close(read_end)
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(os.fdopen(write_end, "wb")))
    with pytest.raises(BrokenPipeError):
        with output.atomic_file("-") as f:
            try:
                f.write(b"data")
            except BrokenPipeError:
                raise ValueError("what a compressor says when its frame is cut")
    output.silence(sys.stdout)


def test_a_closed_standard_output_is_undeliverable(monkeypatch):
    monkeypatch.setattr(sys, "stdout", None)
    with pytest.raises(output.Undeliverable, match="standard output is closed"):
        target("-", "x")
