"""How every benchmark here prints what it measured: lines for a reader, or JSON lines.

A benchmark names its figures and hands each human line with the figures it shows to
`Report.line`; without --json the line is printed as it is, with --json each figure instead
becomes one JSON object on a line of its own:

    {"benchmark": "bench_engine", "measure": "whole process wall", "value": 0.078, "unit": "s",
     "command": "certify 11982 -q -o X", "runs": 21, "statistic": "median",
     "versus": "fc-solve -to 01ABCDE -sel 11982.board", "versus_value": 0.081, "ratio": 0.96,
     "load": 5.8, "at": "2026-12-02T04:50:00Z"}

`versus`, `versus_value` and `ratio` are there only for a figure compared with another
program's (the ratio as the benchmark takes it, e.g. the median of pairwise ratios, which is
not always value / versus_value); any other keyword (the deal, the zstd level) is kept as a
field. Lines that carry no figure (headings, verdict lines) are left out of the JSON, so every
JSON line is a figure that can be collected and compared across runs. The load average and
the time go with each figure: this machine is shared, and a figure means little without them.
"""

import json
import math
import os
import sys
import time

FIELDS = ("benchmark", "measure", "value", "unit", "command", "runs", "statistic")


def add_json_option(parser):
    """--json on an argparse parser."""
    parser.add_argument("--json", action="store_true",
                        help="print one JSON object a line per figure instead of the human lines")
    return parser


def figure(measure, value, unit, command, runs=1, statistic="median", versus=None,
           versus_value=None, ratio=None, **context):
    """One measured figure. `statistic` says how `value` came from the runs (median, best,
    max, single for one run, or total); `command` is what was run (a command line, or the
    call made in process)."""
    if runs == 1 and statistic == "median":
        statistic = "single"   # (the median of one run is that run)
    found = {"measure": measure, "value": value, "unit": unit, "command": command,
             "runs": runs, "statistic": statistic}
    if versus is not None:
        found.update(versus=versus, versus_value=versus_value, ratio=ratio)
    found.update(context)
    return found


class Report:
    """Where one benchmark's figures go: human lines on `out`, or (as_json) JSON lines."""

    def __init__(self, benchmark, as_json=False, out=None):
        self.benchmark, self.as_json = benchmark, as_json
        self.out = out if out is not None else sys.stdout

    def line(self, text, *figures):
        """Print `text` for a reader, or each of `figures` as a JSON line."""
        if not self.as_json:
            print(text, file=self.out, flush=True)
            return
        for found in figures:
            record = {"benchmark": self.benchmark,
                      **{key: rounded(value) for key, value in found.items()},
                      "load": round(os.getloadavg()[0], 2),
                      "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
            print(json.dumps(record, default=plain, allow_nan=False), file=self.out, flush=True)

    def text(self, text):
        """A line with no figure: a heading or a verdict, for the reader only."""
        self.line(text)


def plain(value):
    """JSON for what json cannot write itself (paths, sets, tuples)."""
    if isinstance(value, (set, frozenset, tuple)):
        return sorted(value) if isinstance(value, (set, frozenset)) else list(value)
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    raise TypeError(f"not a JSON value: {value!r}")


def ratio(a, b):
    """a / b, or None where b is 0 (a figure too small to compare)."""
    return a / b if b else None


def rounded(value, digits=6):
    """A float cut to `digits` significant digits, so the JSON says what was measured and not
    the float's noise; None, ints and the rest as they are."""
    if isinstance(value, float) and math.isfinite(value) and value:
        return round(value, digits - 1 - int(math.floor(math.log10(abs(value)))))
    return value
