"""certify/run/progress.py: a line that fits the terminal and is drawn over whole, a plain line
every few seconds in a log, every phase shown, and nothing at all when quiet.

Terminals are pseudo-terminals with a set width; a made-up clock stands in for time, except in
the two tests that watch the real clock thread redraw a phase that reports nothing.
"""

import fcntl
import io
import os
import re
import struct
import subprocess
import sys
import termios
import threading
import time

import pytest

from certify.run import progress
from certify.run.progress import Counter, Phases


class Clock:
    def __init__(self):
        self.t = 1000.0

    def __call__(self):
        return self.t


def pty_of_width(columns):
    """(master fd, slave stream) of a pseudo-terminal `columns` wide."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    return master, os.fdopen(slave, "w", encoding="utf-8")


def drain(master):
    """What the terminal has been sent so far."""
    chunks = []
    os.set_blocking(master, False)
    while True:
        try:
            chunk = os.read(master, 65536)
        except (BlockingIOError, OSError):
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks).decode("utf-8", "replace")


CSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


class Screen:
    """Just enough of a terminal to see what a one-line display leaves: carriage return,
    newline, characters overwriting, escape sequences ignored; and the longest line drawn."""

    def __init__(self, columns):
        self.columns, self.lines, self.line, self.x, self.widest = columns, [], [], 0, 0

    def feed(self, text):
        for c in CSI.sub("", text):
            if c == "\r":
                self.x = 0
            elif c == "\n":
                self.lines.append(self.current())
                self.line, self.x = [], 0
            else:
                if self.x == len(self.line):
                    self.line.append(c)
                else:
                    self.line[self.x] = c
                self.x += 1
                self.widest = max(self.widest, self.x)
        return self

    def current(self):
        return "".join(self.line).rstrip()


# ---- In a log: a plain line every few seconds -------------------------------------------

def test_a_log_gets_a_line_every_few_seconds_naming_the_phase():
    clock, log = Clock(), io.StringIO()
    shown = Phases(stream=log, terminal=False, every=5.0, now=clock, clock_thread=False)
    shown.phase("solving")
    clock.t += 4.0
    shown.tick()
    assert log.getvalue() == ""  # a short run says nothing
    clock.t += 1.0
    shown.tick()
    assert log.getvalue().splitlines() == ["[5.0 s] solving ... 5.0 s"]
    shown.phase("searching")
    clock.t += 1.0
    shown.update(1_234_567, 12)
    clock.t += 4.0
    shown.tick()
    assert log.getvalue().splitlines()[-1] == \
        "[10.0 s] searching: 1,234,567 positions, 246,913/s, most home 12 ... 5.0 s"
    shown.phase("writing")  # no figures carried over from the search
    clock.t += 5.0
    shown.tick()
    assert log.getvalue().splitlines()[-1] == "[15.0 s] writing ... 5.0 s"
    shown.close()
    clock.t += 60.0
    shown.tick()
    assert len(log.getvalue().splitlines()) == 3


def test_a_census_log_line():
    clock, log = Clock(), io.StringIO()
    shown = Counter(32000, 2000, stream=log, terminal=False, now=clock, clock_thread=False)
    clock.t += 10.0
    shown.advance(500, "2,499 won, 1 no win, 0 unknown")
    shown.tick()
    assert log.getvalue() == \
        "[10.0 s] 2,500/32,000 deals 8%, 50.0/s, 9m50s left | 2,499 won, 1 no win, 0 unknown\n"


def test_quiet_means_no_display():
    assert progress.phases(quiet=True) is None
    assert progress.counter(10, quiet=True) is None


# ---- On a terminal: one line, fitted and drawn whole --------------------------------------

@pytest.mark.parametrize("columns", [40, 80])
def test_a_terminal_line_fits_its_width_and_leaves_nothing_stale(columns):
    master, tty = pty_of_width(columns)
    clock = Clock()
    shown = Counter(32000, 0, stream=tty, terminal=True, now=clock, clock_thread=False)
    screen = Screen(columns)
    for k in range(1, 40):
        clock.t += 1.0
        shown.advance(7, f"{7 * k - 1:,} won, 1 no win, {k:,} unknown ({'x' * 3 * k})")
        shown.tick()
        tty.flush()
        screen.feed(drain(master))
        assert screen.widest <= columns  # never wraps onto a new line
        assert screen.lines == []
    assert shown.text(clock.t).startswith(screen.current())
    shown.close()
    tty.flush()
    assert screen.feed(drain(master)).current() == ""  # cleared at the end
    tty.close()
    os.close(master)


def test_a_shorter_line_leaves_no_digits_of_the_longer_one():
    master, tty = pty_of_width(100)
    clock = Clock()
    shown = Phases(stream=tty, terminal=True, now=clock, clock_thread=False)
    screen = Screen(100)
    shown.phase("searching")
    shown.update(2_444_304, 17)
    clock.t += 1.0
    shown.tick()
    shown.phase("writing")  # shorter: "most home 17" must not survive as "most home 77"
    clock.t += 1.0
    shown.tick()
    tty.flush()
    assert screen.feed(drain(master)).current() == "writing ... 1.0 s"
    shown.close()
    tty.close()
    os.close(master)


def test_the_clock_redraws_a_phase_that_reports_nothing():
    """The solver's attempt sends no figures: the time on the line must still move."""
    master, tty = pty_of_width(80)
    shown = Phases(stream=tty, terminal=True)
    shown.phase("solving")
    seen, deadline = "", time.monotonic() + 20
    try:
        while len(set(re.findall(r"solving \.\.\. [0-9.]+ s", seen))) < 2:
            assert time.monotonic() < deadline, f"the line was not redrawn: {seen!r}"
            time.sleep(0.2)
            tty.flush()
            seen += drain(master)
    finally:
        shown.close()
        tty.close()
        os.close(master)


@pytest.mark.parametrize("columns", [80])
def test_certify_on_a_terminal_keeps_to_one_line_that_fits(columns, tmp_path):
    """The whole command, its stderr on a terminal: every phase drawn within the width, on
    one line that is cleared before the verdict is printed."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    run = subprocess.Popen([sys.executable, "-m", "certify", "11982", "--no-solver", "-o",
                            str(tmp_path)],
                           stdout=subprocess.PIPE, stderr=slave, text=True)
    os.close(slave)
    sent = []

    def read():
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the child closed the terminal
                return
            if not chunk:
                return
            sent.append(chunk)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    out, _ = run.communicate(timeout=600)
    reader.join(10)
    os.close(master)
    assert run.returncode == 0 and out.startswith("NO WIN: deal 11982")
    screen = Screen(columns).feed(b"".join(sent).decode("utf-8", "replace"))
    assert screen.widest <= columns
    assert screen.lines == [] and screen.current() == ""  # no line left behind on stderr
