"""The census's progress on stderr: a line redrawn in place on a terminal, fitted to its width;
a plain line every few seconds when stderr is a log file or a pipe.

It runs on its own thread and reads the counts it is given (a shared array, filled by the
workers as each deal finishes), so it shows life between tasks of a thousand deals and while
this process is itself busy proving.
"""

import shutil
import sys
import threading
import time

REDRAW, LOG_EVERY = 0.25, 5.0  # seconds between redraws on a terminal, between logged lines


class Progress:
    def __init__(self, total, before, tally, stream=None, terminal=None):
        """`before`: [won, no win, unknown] already done when the run began; `tally`: the same
        counts for this run, updated by others while we run."""
        self.total, self.before, self.tally = total, before, tally
        self.stream = stream or sys.stderr
        self.terminal = self.stream.isatty() if terminal is None else terminal
        self.t0 = time.monotonic()
        self.width = 0
        self.stop = threading.Event()
        self.thread = None

    def start(self):
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()
        return self

    def run(self):
        while not self.stop.wait(REDRAW if self.terminal else LOG_EVERY):
            self.draw()

    def counts(self):
        return [b + self.tally[i] for i, b in enumerate(self.before)]

    def text(self, now=None):
        now = time.monotonic() if now is None else now
        won, no_win, unknown = self.counts()
        done = won + no_win + unknown
        new = done - sum(self.before)
        rate = new / (now - self.t0) if now > self.t0 else 0.0
        eta = clock((self.total - done) / rate) if rate else "?"
        return (f"{done:,}/{self.total:,} deals {100 * done / self.total:.1f}%  "
                f"{rate:,.1f}/s  ETA {eta}  | {no_win:,} no win, {unknown:,} unknown")

    def draw(self, now=None):
        text = self.text(now)
        if not self.terminal:
            print(f"census: {text}", file=self.stream, flush=True)
            return
        columns = shutil.get_terminal_size((80, 24)).columns
        room = max(columns - 3, 0)
        text = text[:room]
        # Pad over what the last line left, so no stale digits remain on screen.
        print("\r  " + text.ljust(min(self.width, room)), end="", file=self.stream, flush=True)
        self.width = len(text)

    def close(self):
        """Stop redrawing; leave a last line with the final figures."""
        if self.thread is not None:
            self.stop.set()
            self.thread.join()
            self.thread = None
            self.draw()
            if self.terminal:
                print(file=self.stream, flush=True)


def clock(seconds):
    seconds = int(seconds)
    h, m, s = seconds // 3600, seconds // 60 % 60, seconds % 60
    return f"{h}h{m:02d}m" if h else f"{m}m{s:02d}s"
