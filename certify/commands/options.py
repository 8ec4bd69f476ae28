"""What every certify command shares: exit codes, usage errors, the rule and budget options,
deal numbers (the default certificate file names are certify/format/names.py's).

`certify DEAL`, the census (`certify A-B`), explain and import all import this module and none
of them imports another for these, so the options mean the same everywhere.

Numbers typed by a user are read as ASCII digits only: Python's int() would also take `1_000`
and other scripts' digits (`٣`), which no one means as a deal number.
"""

import argparse
import math
import os
import re
import sys

from ..game import deals
from ..game.rules import DEFAULT_CELLS, Rules

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT, EXIT_UNKNOWN, EXIT_INTERRUPTED = 0, 1, 2, 3, 130

DIGITS = re.compile(r"[0-9]+")
# Patterns that `certify DEAL` does not use, compiled (and cached by re) on first use: every
# pattern compiled at import is start-up time of every run.
DECIMAL = r"[0-9]+(?:\.[0-9]*)?|\.[0-9]+"


class Usage(Exception):
    """Bad input: one line to stderr, exit 2."""


def terminal_columns():
    """shutil.get_terminal_size().columns, without importing shutil: argparse makes a
    formatter for every option it adds, and shutil (with zlib, bz2 and lzma) is a few
    milliseconds of every run's start."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class HelpFormatter(argparse.HelpFormatter):
    """argparse's help, but at most 80 columns wide (less on a narrower terminal), its lines
    broken only at spaces: a name such as DEAL-cells5-fm-fixed.msgpack.zst is never cut at a
    hyphen."""

    def __init__(self, prog, indent_increment=2, max_help_position=24, width=None):
        if width is None:
            width = min(terminal_columns(), 80) - 2
        super().__init__(prog, indent_increment, max_help_position, width)

    def _split_lines(self, text, width):
        import textwrap
        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False,
                             break_long_words=False)

    def _fill_text(self, text, width, indent):
        import textwrap
        return textwrap.fill(" ".join(text.split()), width, initial_indent=indent,
                             subsequent_indent=indent, break_on_hyphens=False,
                             break_long_words=False)


class RawDescriptionHelpFormatter(HelpFormatter):
    """HelpFormatter, with the description and epilog printed as written."""

    def _fill_text(self, text, width, indent):
        return "".join(indent + line for line in text.splitlines(keepends=True))


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (and exit 2) like every other bad input, and
    the help is HelpFormatter's."""

    def __init__(self, *args, formatter_class=HelpFormatter, **kwargs):
        super().__init__(*args, formatter_class=formatter_class, **kwargs)

    def error(self, message):
        raise Usage(f"{message} (see {self.prog} --help)")


def is_number(text):
    """Whether `text` is a whole number written in ASCII digits."""
    return isinstance(text, str) and DIGITS.fullmatch(text) is not None


def deal_number(text):
    """A deal number from the command line: ASCII digits, 1 .. 2^33-1; else Usage."""
    if not is_number(text):
        raise Usage(f"not a deal number: {text!r} (deals are 1 to {deals.MAX_DEAL})")
    n = int(text)
    if not 1 <= n <= deals.MAX_DEAL:
        raise Usage(f"deal {n} is out of range: deals are 1 to {deals.MAX_DEAL}")
    return n


RANGE = r"([0-9]+)-([0-9]+)"


def looks_like_range(text):
    """Whether a first argument is meant as a range of deals (A-B) rather than a deal."""
    return isinstance(text, str) and text[:1] in tuple("0123456789") and "-" in text


def deal_range(text):
    """'A-B' -> range(A, B + 1), A and B ASCII digits, 1 <= A <= B <= 2^33-1; else Usage."""
    m = re.fullmatch(RANGE, text)
    if not m:
        raise Usage(f"not a range of deals: {text!r} (write A-B, e.g. 1-32000)")
    a, b = int(m[1]), int(m[2])
    if not 1 <= a <= b <= deals.MAX_DEAL:
        raise Usage(f"bad range {text}: need 1 <= A <= B <= {deals.MAX_DEAL}")
    return range(a, b + 1)


# Types for argparse: each turns the option's text into a value or says in a few words why not
# (argparse then names the option, and Parser makes that one line, exit 2).

def cells_count(text):
    if not is_number(text):
        raise argparse.ArgumentTypeError(f"not a number of cells: {text!r}")
    n = int(text)
    if not 0 <= n <= 8:
        raise argparse.ArgumentTypeError("free cells must be 0..8")
    return n


def whole_number(text, least):
    if not is_number(text):
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}")
    n = int(text)
    if n < least:
        raise argparse.ArgumentTypeError(f"must be at least {least}, not {n}")
    return n


def positive_count(text):
    return whole_number(text, 1)


def count_or_zero(text):
    return whole_number(text, 0)


def seconds(text):
    """A positive, finite number of seconds, such as 2 or 0.5."""
    if not isinstance(text, str) or re.fullmatch(DECIMAL, text) is None:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}")
    value = float(text)
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"must be more than 0 seconds, not {text}")
    return value


SIZE = r"([0-9]+(?:\.[0-9]*)?|\.[0-9]+)([KMGT])(?:i?B)?"  # (any case)
UNITS = "KMGT"  # powers of 1024, as free(1) and /proc/meminfo count


def memory_size(text):
    """A number of bytes written with its unit, such as 500M, 8G or 1.5GiB (a bare number is
    refused: no one can tell whether 8 means bytes or gigabytes)."""
    m = re.fullmatch(SIZE, text, re.IGNORECASE) if isinstance(text, str) else None
    if m is None:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (write it with its unit: 500M, "
                                         f"8G, 1.5G)")
    size = int(float(m[1]) * 1024 ** (UNITS.index(m[2].upper()) + 1))
    if size < 1:
        raise argparse.ArgumentTypeError(f"must be more than 0, not {text}")
    return size


def machine_memory():
    """The bytes of memory this process may use: the machine's, or its control group's limit
    where that is less (a container's); None where neither can be read."""
    try:
        total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        total = None
    try:
        with open("/sys/fs/cgroup/memory.max") as f:
            limit = f.read().strip()
        if DIGITS.fullmatch(limit) and (total is None or int(limit) < total):
            total = int(limit)
    except OSError:
        pass
    return total if total and total > 0 else None


def default_memory():
    """--memory's default: three quarters of machine_memory(), leaving the rest to the system
    and to what certify holds beside the search's tables; None (no budget) where unknown."""
    total = machine_memory()
    return None if total is None else total * 3 // 4


def add_memory_option(p, spills=False):
    """--memory SIZE: what the exhaustive search's tables may take (default_memory()).
    `spills`: the command's search goes on on disk past it (add_disk_options)."""
    from ..outcome import size_text
    default = default_memory()
    shown = f"three quarters of this machine's memory, {size_text(default)} here" \
        if default is not None else "none, as this machine's memory cannot be read"
    then = ("Past it the search goes on on disk, in --work-dir, its memory bounded by this "
            "budget" if spills else
            "Nothing spills to disk: the search stops at this budget (verdict unknown, nothing "
            "written), as it does if the system gives it less")
    p.add_argument("--memory", type=memory_size, default=default, metavar="SIZE",
                   help=f"the memory the exhaustive search's tables may take, such as 500M or "
                        f"8G (default: {shown}). {then}")


def add_disk_options(p):
    """--work-dir DIR, --resume, --on-disk, --no-spill: the search on disk
    (certify/engine/on_disk.py)."""
    p.add_argument("--work-dir", metavar="DIR",
                   help="the folder the search spills to when it outgrows --memory (default: "
                        "beside the certificate, its name with .work); kept when the search "
                        "stops short, removed once the certificate is written")
    p.add_argument("--resume", action="store_true",
                   help="go on with the search on disk kept in the work folder (after running "
                        "out of time, disk or memory, or being interrupted or killed)")
    p.add_argument("--on-disk", action="store_true",
                   help="search on disk from the start (after the solver's attempts), without "
                        "trying in memory first: for a deal known not to fit")
    p.add_argument("--no-spill", action="store_true",
                   help="never search on disk: stop at --memory (verdict unknown)")
    p.add_argument("--threads", type=thread_count, default=default_threads(), metavar="N",
                   help="threads the search on disk sorts and merges with (its large merges "
                        "split by key range; default: the cores this process may use, "
                        f"{default_threads()} here); the certificate is the same bytes "
                        "whatever N")


def default_threads():
    """--threads' default: the cores this process may run on (at most 64)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, min(cores, 64))


def thread_count(text):
    """A number of threads, 1 to 64."""
    if not isinstance(text, str) or not text.isdigit() or not 1 <= int(text) <= 64:
        raise argparse.ArgumentTypeError(f"not a number of threads from 1 to 64: {text!r}")
    return int(text)


def add_rule_options(p):
    p.add_argument("--cells", type=cells_count, default=DEFAULT_CELLS, metavar="N",
                   help=f"number of free cells, 0..8 (default {DEFAULT_CELLS})")
    p.add_argument("--fixed-columns", action="store_true",
                   help="keep columns in fixed places instead of taking them up to permutation")
    p.add_argument("--foundation-moves", action="store_true",
                   help="allow a foundation's top card to move back onto a column (a variant; "
                        "its no-win is closed under every move alone)")
    p.add_argument("--no-autoplay", action="store_true",
                   help="close a no-win under every move alone, not under every move then safe "
                        "moves home (the default: the same claim in fewer positions, the ones "
                        "Freecell Solver counts; docs/certificate-format.md, section 8)")


def rules_of(args):
    """The Rules that add_rule_options' options ask for."""
    return Rules(args.cells, args.fixed_columns, args.foundation_moves,
                 autoplay=not args.no_autoplay)


def add_budget_options(p, scope="the whole run, the solver's attempt included"):
    """--max-positions N and --time-limit SECONDS, both positive (zero or less is bad input).
    `scope` says in the help what the budget bounds."""
    p.add_argument("--max-positions", type=positive_count, metavar="N",
                   help=f"give up (verdict unknown) after N positions; bounds {scope}")
    p.add_argument("--time-limit", type=seconds, metavar="SECONDS",
                   help=f"give up (verdict unknown) after this many seconds; bounds {scope}")


def result_json(result, deal):
    """A proof's result as certify prints it in JSON (certify DEAL --json, a census's rows):
    outcome.Result's fields, with its outcome under "claim" ("win", "no-win", or "unknown" when a
    budget ran out), the word check's JSON also uses for what a certificate claims."""
    return {("claim" if k == "verdict" else k): v for k, v in result.as_json(deal).items()}


def with_old_verdict(shown):
    """`shown` (a JSON object, as a dict) with "verdict" beside "claim", the same value: the
    name certify's JSON gave the outcome before "claim", kept for one release so that scripts
    that read it keep working meanwhile (docs/json.md marks it deprecated)."""
    out = {}
    for key, value in shown.items():
        out[key] = value
        if key == "claim":
            out["verdict"] = value
    return out
