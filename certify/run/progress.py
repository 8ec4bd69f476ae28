"""What a long run is doing, shown on stderr.

Two displays, one behaviour:

    display = phases(quiet)                for one proof (proved(), the searches, explain):
    display.phase(name)                    a new phase begins: "solving", "searching", "writing"
    display.update(positions, most_home)   figures so far in this phase, as often as convenient
    display.note(text)                     where in the phase it is (the search on disk's bucket,
                                           layer and disk in use), shown after the figures
    display.close()                        the run is over: leave the terminal tidy

    display = counter(total, done, quiet)  for a census over `total` deals, `done` already done:
    display.advance(n=1, note="")          n more done; `note` says how they came out so far
    display.close()
    counter(..., read=f)                   or: f() -> (done, note) is read at every redraw (a
                                           census's workers count in shared memory)

`phases` and `counter` give None when quiet; callers skip a None display (phase(display,
name) does that for a new phase). Nothing is printed
for a run shorter than half a second (on a terminal) or five seconds (in a log).

On a terminal (stderr is a tty) the display is one line drawn by tqdm: fitted to the terminal's
width each time it is drawn (never wrapping), drawn over whole so no stale digits remain, and
cleared at close. A clock redraws it twice a second, so its time runs on even through a phase
that reports nothing (the solver's attempt, writing the certificate).

Elsewhere (a log file, a pipe) a plain line is written every few seconds, so a logged run
shows life without filling the log.
"""

import os
import sys
import threading
import time

TERMINAL_TICK = 0.5  # seconds between redraws on a terminal
LOG_EVERY = 5.0  # seconds between lines in a log


def _new_bar(**kwargs):
    """A tqdm line. tqdm is imported here, when a line is first drawn on a terminal, not with
    this module: its import costs 20-50 ms, a fifth of a whole `certify 11982`, and most runs
    (quiet, logged, or shorter than half a second) never draw one."""
    from tqdm import tqdm

    class Bar(tqdm):
        monitor_interval = 0  # tqdm's monitor thread adjusts miniters; we draw by clock

    return Bar(**kwargs)


# Every display draws holding this lock, and a fork waits for it: a child process (a census
# worker) must not be born while our clock thread holds stderr's lock mid-write.
_DRAWING = threading.Lock()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=_DRAWING.acquire, after_in_parent=_DRAWING.release,
                        after_in_child=_DRAWING.release)


def clock(seconds):
    """12.3 s, 4m05s, 1h02m: a duration as people read it."""
    if seconds < 60:
        return f"{seconds:.1f} s"
    seconds = int(seconds)
    h, m, s = seconds // 3600, seconds // 60 % 60, seconds % 60
    return f"{h}h{m:02d}m" if h else f"{m}m{s:02d}s"


class Live:
    """One status line, redrawn by a clock. Subclasses say what the line is (`text`, and for a
    bar `fraction`)."""

    bar_format = "{desc}"

    def __init__(self, stream=None, terminal=None, every=LOG_EVERY, now=time.monotonic,
                 clock_thread=True):
        self.stream = sys.stderr if stream is None else stream
        self.terminal = self.stream.isatty() if terminal is None else terminal
        self.every = every
        self.now = now
        self.started = self.logged = now()
        self.bar = None
        self.closed = False
        self._stop = threading.Event()
        if clock_thread:
            threading.Thread(target=self._run, name="progress", daemon=True).start()

    def text(self, now):
        raise NotImplementedError

    def fraction(self):
        return None

    def poll(self):
        """Fetch figures kept elsewhere, just before each redraw (none by default)."""

    def _run(self):
        tick = TERMINAL_TICK if self.terminal else min(1.0, self.every)
        while not self._stop.wait(tick):
            self.tick()

    def tick(self):
        """Redraw (terminal), or write a line if one is due (log). The clock thread calls this;
        tests call it with a made-up clock."""
        with _DRAWING:
            if self.closed:
                return
            self.poll()
            now = self.now()
            if self.terminal:
                if now - self.started >= TERMINAL_TICK:
                    self._draw(now)
            elif now - self.logged >= self.every:
                self.logged = now
                print(f"[{clock(now - self.started)}] {self.text(now)}", file=self.stream,
                      flush=True)

    def _draw(self, now):
        fraction = self.fraction()
        if self.bar is None:  # tqdm draws as it is made
            self.bar = _new_bar(desc=self.text(now), total=None if fraction is None else 1000,
                                initial=0 if fraction is None else round(1000 * fraction),
                                file=self.stream, dynamic_ncols=True, leave=False,
                                mininterval=0, bar_format=self.bar_format,
                                position=0)  # one line, ours alone
            return
        if fraction is not None:
            self.bar.n = round(1000 * fraction)
        self.bar.set_description_str(self.text(now), refresh=False)
        self.bar.refresh()

    def close(self):
        """Stop the clock and clear the line (terminal); write nothing more."""
        self._stop.set()
        with _DRAWING:
            if self.closed:
                return
            self.closed = True
            if self.bar is not None:
                self.bar.close()
                self.bar = None
            self.stream.flush()


class Phases(Live):
    """The display of one proof: its phase, the positions so far, the most cards home."""

    def __init__(self, **kwargs):
        self.name, self.positions, self.most_home, self.where = "starting", None, None, ""
        super().__init__(**kwargs)
        self.phase_started = self.started

    def phase(self, name):
        with _DRAWING:
            self.name, self.positions, self.most_home, self.where = name, None, None, ""
            self.phase_started = self.now()

    def note(self, text):
        with _DRAWING:
            self.where = text

    def update(self, positions, most_home):
        with _DRAWING:
            self.positions, self.most_home = positions, most_home

    def text(self, now):
        spent = now - self.phase_started
        if self.positions is None:
            return f"{self.name} ... {clock(spent)}"
        rate = f", {self.positions / spent:,.0f}/s" if spent > 0 else ""
        where = f" | {self.where}" if self.where else ""   # last: what a narrow line drops
        return (f"{self.name}: {self.positions:,} positions{rate}, most home {self.most_home}"
                f" ... {clock(spent)}{where}")


class Counter(Live):
    """The display of a census: a bar, how many deals are done, the rate, the time left."""

    bar_format = "{desc} |{bar}|"

    def __init__(self, total, done=0, unit="deals", read=None, **kwargs):
        self.total, self.done, self.done_before, self.unit = total, done, done, unit
        self.note = ""
        self.read = read
        super().__init__(**kwargs)

    def poll(self):
        if self.read is not None:
            self.done, self.note = self.read()

    def advance(self, n=1, note=""):
        with _DRAWING:
            self.done += n
            if note:
                self.note = note

    def fraction(self):
        return self.done / self.total if self.total else 1.0

    def text(self, now):
        spent = now - self.started
        rate = (self.done - self.done_before) / spent if spent > 0 else 0.0
        left = clock((self.total - self.done) / rate) if rate else "?"
        note = f" | {self.note}" if self.note else ""
        return (f"{self.done:,}/{self.total:,} {self.unit} {100 * self.fraction():.0f}%, "
                f"{rate:,.1f}/s, {left} left{note}")


def phase(display, name):
    """display.phase(name), where the display may be None (quiet)."""
    if display is not None:
        display.phase(name)


def phases(quiet=False, stream=None):
    """The display for one proof's progress on stderr, or None when quiet."""
    return None if quiet else Phases(stream=stream)


def counter(total, done=0, quiet=False, unit="deals", stream=None, read=None):
    """The display for a census's progress on stderr, or None when quiet."""
    return None if quiet else Counter(total, done, unit, read, stream=stream)

