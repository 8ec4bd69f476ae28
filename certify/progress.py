"""What a long run is doing, shown on stderr.

The protocol every long-running part speaks (prove(), the searches, explain):

    progress.phase(name)                   a new phase begins: "solving", "searching", "writing"
    progress.update(positions, most_home)  figures so far in this phase, as often as convenient
    progress.close()                       the run is over: leave the terminal tidy

`progress` may also be None: nothing is shown. `for_stderr(quiet)` gives the display to use.
"""

import sys
import time


class LineProgress:
    """One line on a terminal, redrawn in place at most a few times a second."""

    def __init__(self, stream=sys.stderr):
        self.stream = stream
        self.name = ""
        self.t0 = self.drawn = time.monotonic()
        self.width = 0

    def phase(self, name):
        self.name = name
        self.t0 = time.monotonic()
        self._draw(f"{name} ...")

    def update(self, positions, most_home):
        now = time.monotonic()
        if now - self.drawn < 0.2:
            return
        rate = positions / (now - self.t0) if now > self.t0 else 0.0
        self._draw(f"{self.name}: {positions:,} positions, {rate:,.0f}/s, most home {most_home}")

    def close(self):
        if self.width:
            print(file=self.stream, flush=True)
            self.width = 0

    def _draw(self, text):
        self.drawn = time.monotonic()
        # Pad over what the last line left, so no stale digits remain on screen.
        print("\r  " + text.ljust(self.width), end="", file=self.stream, flush=True)
        self.width = max(self.width, len(text))


def for_stderr(quiet=False):
    """The display for a command's progress: none when quiet or when stderr is not a terminal."""
    return None if quiet or not sys.stderr.isatty() else LineProgress()
