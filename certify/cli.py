"""The `certify` command line.

    certify DEAL                 prove deal DEAL winnable or not, write DEAL.msgpack.zst
    certify --board FILE         the same for a layout in Freecell Solver's board format
    certify show DEAL [--rows]   print a deal's layout

Exit codes: 0 a definite verdict, 3 unknown (a budget ran out), 2 bad input.
"""

import argparse
import importlib
import json
import os
import sys

from . import deals
from .board import BoardError, read_board, write_board
from .rules import Rules, start
from .progress import for_stderr
from .search import UNKNOWN

EXIT_OK, EXIT_BAD_INPUT, EXIT_UNKNOWN = 0, 2, 3


class Usage(Exception):
    """Bad input: one line to stderr, exit 2."""


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (and exit 2) like every other bad input."""

    def error(self, message):
        raise Usage(f"{message} (see {self.prog} --help)")


def deal_number(text):
    try:
        n = int(text, 10)
    except (TypeError, ValueError):
        raise Usage(f"not a deal number: {text!r} (deals are 1 to {deals.MAX_DEAL})") from None
    if not 1 <= n <= deals.MAX_DEAL:
        raise Usage(f"deal {n} is out of range: deals are 1 to {deals.MAX_DEAL}")
    return n


def cells_count(text):
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of cells: {text!r}") from None
    if not 0 <= n <= 8:
        raise argparse.ArgumentTypeError("free cells must be 0..8")
    return n


def add_rule_options(p):
    p.add_argument("--cells", type=cells_count, default=4, metavar="N",
                   help="number of free cells, 0..8 (default 4)")
    p.add_argument("--fixed-columns", action="store_true",
                   help="keep columns in fixed places instead of taking them up to permutation")
    p.add_argument("--foundation-moves", action="store_true",
                   help="allow a foundation's top card to move back onto a column (a variant)")


def certify_parser():
    p = Parser(
        prog="certify",
        description="Find a win for a FreeCell deal with a fast solver, or else search it "
                    "exhaustively, and write a certificate that it can, or cannot, be won. "
                    "Other commands: certify show DEAL; certify explain DEAL; "
                    "certify export --coq|--lean CERT; certify import FILE --deal N.",
        epilog="Exit codes: 0 a definite verdict (win or no-win), 3 unknown (a budget ran out; "
               "nothing is written), 2 bad input.")
    p.add_argument("deal", nargs="?", help="Microsoft deal number, 1 .. 2^33-1")
    p.add_argument("--board", metavar="FILE", help="prove a layout in Freecell Solver's format")
    add_rule_options(p)
    p.add_argument("-o", "--output", metavar="PATH",
                   help="where to write the certificate (default ./DEAL.msgpack.zst)")
    p.add_argument("--max-positions", type=int, metavar="N",
                   help="give up (verdict unknown) after N positions")
    p.add_argument("--time-limit", type=float, metavar="SECONDS",
                   help="give up (verdict unknown) after this many seconds")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    p.add_argument("--no-solver", action="store_true",
                   help="skip the fast solver (certify/solver.py) and search exhaustively only")
    p.add_argument("--notation", action="store_true",
                   help="after a win, print the line in standard notation (columns 1-8, free "
                        "cells a-d, h the foundation; a supermove is one move), every foundation "
                        "move written out (none is left to autoplay)")
    return p


def read_text(path):
    """A text file's contents ('-': standard input); an unreadable file is bad input."""
    try:
        if path == "-":
            return sys.stdin.read()
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise Usage(f"cannot read {path}: {e}") from None


def board_file(path, ncells):
    """The position in a board file; any problem with it is bad input."""
    try:
        return read_board(read_text(path), ncells)
    except BoardError as e:
        raise Usage(f"{path}: {e}") from None


def starting_point(deal_text, board_path, ncells, neither_or_both):
    """(deal number or None, start position, name for files) from a deal number or a board file."""
    if (deal_text is None) == (board_path is None):
        raise Usage(neither_or_both)
    if board_path is not None:
        label = os.path.splitext(os.path.basename(board_path))[0]
        return None, board_file(board_path, ncells), label
    deal = deal_number(deal_text)
    return deal, start(deals.deal(deal)), str(deal)


def run_certify(argv):
    args = certify_parser().parse_args(argv)
    rules = Rules(args.cells, args.fixed_columns, args.foundation_moves)
    deal, position, label = starting_point(args.deal, args.board, rules.ncells,
                                           "give a deal number or --board FILE (not both)")
    out = args.output or f"{label}.msgpack.zst"
    progress = for_stderr(args.quiet or args.json)
    from .prove import prove
    from .solver import solve
    solver = None if args.no_solver else (lambda p: solve(p, rules))
    result = prove(position, rules, deal, out, args.max_positions, args.time_limit, progress,
                   solver=solver)
    if progress is not None:
        progress.close()
    written = winning_notation(position, result, rules) if args.notation else None
    if args.json:
        shown = result.as_json(deal if deal is not None else args.board)
        if written is not None:
            shown["notation"] = " ".join(written) or None
        print(json.dumps(shown))
    else:
        print(describe(result, deal, args.board, rules, written))
    return EXIT_UNKNOWN if result.verdict == UNKNOWN else EXIT_OK


def winning_notation(position, result, rules):
    """The win in standard notation (a list of moves), or [] when there is none to show."""
    from .notation import NotationError, to_notation
    try:
        return to_notation(position, result.moves, rules.ncells) if result.verdict == "win" else []
    except NotationError as e:  # a move off a foundation (--foundation-moves --no-solver)
        print(f"certify: no notation for this line: {e}", file=sys.stderr)
        return []


def describe(result, deal, board, rules, notation=None):
    what = f"deal {deal}" if deal is not None else f"the layout in {board}"
    setting = f"{rules.ncells} free cells" + (", foundation moves" if rules.foundation_moves else "")
    if result.verdict == UNKNOWN:
        return (f"UNKNOWN: {what} ({setting}): search stopped after {result.positions:,} positions, "
                f"{result.seconds:.1f} s ({result.reason}); no certificate written")
    if result.verdict == "win":
        claim = f"WIN: {what} ({setting}) is won in {len(result.moves)} single-card moves"
    else:
        claim = (f"NO WIN: {what} ({setting}) cannot be won: {result.positions:,} positions "
                 f"reachable, at most {result.most_home} cards ever home")
    text = (f"{claim} [{result.seconds:.2f} s]\n"
            f"  certificate {result.path} ({result.size:,} bytes)\n  sha256 {result.sha256}")
    if notation:
        from .notation import lines_of
        text += f"\nIn standard notation, {len(notation)} moves:\n{lines_of(notation)}"
    return text


def run_show(argv):
    p = Parser(prog="certify show", description="Print a deal's layout.")
    p.add_argument("deal")
    p.add_argument("--rows", action="store_true",
                   help="rows of dealing (as on Rosetta Code) instead of Freecell Solver's format")
    args = p.parse_args(argv)
    columns = deals.deal(deal_number(args.deal))
    if args.rows:
        print("\n".join(deals.rows(columns)))
    else:
        print(write_board(start(columns)), end="")
    return EXIT_OK


def later(module, function):
    """A subcommand imported only when it runs (its module imports this one)."""
    def run(argv):
        return getattr(importlib.import_module(f"certify.{module}"), function)(argv)
    return run


COMMANDS = {"show": run_show,
            "import": later("importer", "run_import"),
            "explain": later("explain", "run"),
            "export": later("exports", "run_export")}


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0][:1].isdigit() and "-" in argv[0]:  # A-B: a census (certify/census.py)
        from . import census
        return census.main(argv)
    command = COMMANDS.get(argv[0]) if argv else None
    try:
        return command(argv[1:]) if command else run_certify(argv)
    except Usage as e:
        print(f"certify: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:  # `certify ... | head`: the reader has gone, nothing to say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:
        print("\ncertify: interrupted; nothing written", file=sys.stderr)
        return 130
