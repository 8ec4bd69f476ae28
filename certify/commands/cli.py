"""The `certify` command line: `certify DEAL` here, and the other commands by name.

    certify DEAL                 prove deal DEAL winnable or not, write DEAL.msgpack.zst
    certify --board FILE         the same for a layout in Freecell Solver's board format
    certify A-B                  a census over a range of deals (certify/commands/census.py)
    certify show|explain|import|export ...   (certify/commands/explain.py, importer.py, exports/)

Exit codes: 0 a definite verdict, 3 unknown (a budget ran out), 2 bad input, 1 the
certificate could not be delivered, 130 interrupted.
"""

import argparse
import importlib
import sys
import time
import warnings

from ..game import deals
from .. import output
from ..game.board import write_board
from .inputs import input_name, keep_other_claims, starting_point
from .options import (EXIT_BAD_INPUT, EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, EXIT_UNKNOWN, Parser,
                      RawDescriptionHelpFormatter, Usage, add_budget_options, add_disk_options,
                      add_memory_option, add_rule_options, deal_number, rules_of, deal_range,
                      looks_like_range, result_json, with_old_verdict)
from ..format.names import certificate_name
from ..outcome import UNKNOWN, stopped
from ..game.rules import Rules, start

STARTED = time.monotonic()  # about when the command started: its wall time is counted from here

USAGE = """
  certify DEAL [--cells N] [--fixed-columns] [--foundation-moves] [-o PATH|-]
               [--max-positions N] [--time-limit SECONDS] [--no-solver]
               [--notation] [--memory SIZE] [--json] [-q]
               [--work-dir DIR] [--resume] [--on-disk] [--no-spill]
               [--threads N]
  certify --board FILE|- [the same options]
  certify A-B [-j N] [--out DIR] [--scheduler ADDRESS] [-o PATH|-]
              [rule and budget options]
  certify extract RANGEFILE DEAL [-o PATH] [--json]
  certify show DEAL [--rows]
  certify explain DEAL|CERT [--svg FILE|-] [--positions] [--cell-budget N]
                  [--json]
  certify import FILE|- --deal N|--board FILE [--cells K] [--autoplay]
                 [-o CERT]
  certify export --coq|--lean CERT [-o PATH]
  certify --version"""

DESCRIPTION = """\
Find a win for a FreeCell deal with a fast solver, or else search it
exhaustively, and write a certificate that it can, or cannot, be won; `check
CERT` then verifies it on its own. A-B proves every deal in a range (resumable;
on a Dask cluster with --scheduler); extract writes one deal's certificate from
a range's."""

EPILOG = """\
Each command has its own --help: certify A-B --help, certify explain --help, ...

Exit codes:
  certify DEAL, --board  0 a definite verdict (win or no-win, certificate
                         written); 3 unknown (a budget ran out; nothing
                         written); 2 bad input (nothing written); 1 the
                         certificate could not be delivered; 130 interrupted
  certify A-B            0 every deal won or not winnable; 3 some deal unknown;
                         2 bad input; 1 a worker failed, or the range
                         certificate could not be delivered (rerun to resume);
                         130 interrupted
  certify explain        0 a definite verdict; 3 unknown; 2 bad input
  certify show, import, export, extract   0 done; 2 bad input (nothing written)
Any command exits 1, never 0, when the reader of its standard output goes away
before it has taken everything."""


def version():
    """'certify 0.1.0 (engine: native)': the package's version and the search engine in use;
    with the Python engine, a second line says why (not built, and what the build lacked; or
    chosen by CERTIFY_ENGINE)."""
    try:
        from importlib.metadata import PackageNotFoundError, version as installed
        number = installed("freecell-certificates")
    except PackageNotFoundError:
        number = "(not installed)"
    name = engine_name()
    text = f"certify {number} (engine: {name})"
    if name == "python":
        described = getattr(sys.modules.get("certify.engine"), "describe", lambda: "")()
        why = described.partition("(")[2].rstrip(")")
        if why:
            text += f"\n  {why}"
        if "not built" in why:
            text += "\n  (install again where a C compiler works, for the faster engine)"
    return text


def engine_name():
    """certify.engine.NAME where the compiled engine's package exists, else the reference's."""
    try:
        engine = importlib.import_module("certify.engine")
    except ModuleNotFoundError as e:
        if e.name == "certify.engine":
            return "python"
        raise Usage(f"the engine cannot be loaded: {e}") from None
    except ImportError as e:
        raise Usage(f"the engine cannot be loaded: {e}") from None
    return getattr(engine, "NAME", "python")


class Version(argparse.Action):
    def __init__(self, option_strings, dest, **kwargs):
        super().__init__(option_strings, dest, nargs=0, help="print the version and the engine")

    def __call__(self, parser, namespace, values, option_string=None):
        output.say(version())
        raise SystemExit(EXIT_OK)


def certify_parser():
    p = Parser(
        prog="certify", usage=USAGE, epilog=EPILOG,
        formatter_class=RawDescriptionHelpFormatter,
        description=DESCRIPTION)
    p.add_argument("deal", nargs="?", help="Microsoft deal number, 1 .. 2^33-1")
    p.add_argument("--board", metavar="FILE", help="prove a layout in Freecell Solver's format")
    add_rule_options(p)
    p.add_argument("-o", "--output", metavar="PATH",
                   help="where to write the certificate: a file, a folder (the default name "
                        "inside it), or - for standard output (default ./DEAL.msgpack.zst, "
                        "with the rules in the name when not the defaults: "
                        "DEAL-cells5-fm-fixed.msgpack.zst)")
    add_budget_options(p)
    add_memory_option(p, spills=True)
    add_disk_options(p)
    p.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    p.add_argument("--no-solver", action="store_true",
                   help="skip the fast solver (certify/engine/reference/solver.py) and search "
                        "exhaustively only")
    p.add_argument("--notation", action="store_true",
                   help="after a win, print the line in standard notation (columns 1-8, free "
                        "cells a-d, h the foundation; a supermove is one move), every foundation "
                        "move written out (none is left to autoplay)")
    p.add_argument("--version", action=Version)
    return p


def run_certify(argv):
    args = certify_parser().parse_args(argv)
    rules = rules_of(args)
    deal, position, label = starting_point(args.deal, args.board, rules.ncells,
                                           "give a deal number or --board FILE (not both)")
    name = certificate_name(label, rules, deal is None)
    out = output.target(args.output, name)
    keep_other_claims(out, args.output, deal, position, rules)
    disk = spilling(args, argv, out, name, position, rules)
    folder_error = disk.error if disk is not None else ()
    # With the certificate on standard output, everything said goes to stderr.
    said = sys.stderr if out == "-" else sys.stdout
    from ..run.progress import phases
    from ..run.prove import PLAN, SEARCH_ALONE, proved
    from .. import engine
    if not (args.quiet or args.json):
        engine.warn_if_slow()
    progress = phases(args.quiet or args.json)
    try:
        result = proved(position, rules, deal, args.max_positions, args.time_limit, progress,
                        plan=SEARCH_ALONE if args.no_solver else PLAN, together=True,
                        memory=args.memory, out=out, disk=disk)
    except BrokenPipeError:  # said once, by main
        raise
    except folder_error as e:  # (a work folder found unusable once the search began)
        raise Usage(str(e)) from None
    except KeyboardInterrupt:
        if disk is None or not disk.started:
            raise
        if progress is not None:
            progress.close()
        print(f"\ncertify: interrupted; nothing written; the search on disk is kept in "
              f"{output.printable(disk.folder)}: go on with `{disk.command}`", file=sys.stderr)
        return EXIT_INTERRUPTED
    except OSError as e:
        shown = "standard output" if out == "-" else out
        print(f"certify: cannot write {output.printable(shown)}: {e.strerror or e}",
              file=sys.stderr)
        return EXIT_FAILED
    finally:
        if progress is not None:
            progress.close()
    result.seconds = time.monotonic() - STARTED  # the whole run's wall time
    written = winning_notation(position, result, rules) if args.notation else None
    if args.json:
        shown = with_old_verdict(result_json(result, deal if deal is not None else args.board))
        if written is not None:
            shown["notation"] = " ".join(written) or None
        import json  # here, not above: most runs print text, and every import is start-up time
        output.say(json.dumps(shown), said)
    else:
        output.say(describe(result, deal, args.board, rules, written), said)
    if result.verdict == UNKNOWN and disk is not None and disk.signalled:
        # Interrupted, whichever search was running: 130 for Ctrl-C (128 + the signal, as a
        # shell reports it), the resume line said all the same.
        return 128 + disk.signalled
    return EXIT_UNKNOWN if result.verdict == UNKNOWN else EXIT_OK


def spilling(args, argv, out, name, position, rules):
    """The search on disk's settings (work_folder.Disk), its work folder checked now, before any
    long work; None with --no-spill. Where the disk search is not built, --resume, --on-disk
    and --work-dir are refused, and without them the search stops at --memory as before."""
    from ..engine import work_folder
    asked = args.resume or args.on_disk or args.work_dir is not None
    if args.no_spill:
        if asked:
            raise Usage("--no-spill does not go with --resume, --on-disk or --work-dir")
        return None
    if asked and not disk_search_built():
        raise Usage("the search on disk is not built (certify.engine._external); reinstall "
                    "with a C compiler (pip install -e .)")
    folder = args.work_dir if args.work_dir is not None else work_folder.default_folder(out, name)
    disk = work_folder.Disk(folder, resume=args.resume, at_once=args.on_disk, argv=list(argv),
                            threads=args.threads)
    try:
        disk.check(position, rules)
    except work_folder.WorkFolderError as e:
        raise Usage(str(e)) from None
    return disk


def disk_search_built():
    # Imported only here and where the disk search runs: a search that fits in memory, nearly
    # every one, does not pay for loading it.
    from ..engine import on_disk
    return on_disk.available()


def winning_notation(position, result, rules):
    """The win in standard notation (a list of moves), or [] when there is none to show."""
    from ..game.notation import NotationError, to_notation
    try:
        return to_notation(position, result.moves, rules.ncells) if result.verdict == "win" else []
    except NotationError as e:  # a move off a foundation (--foundation-moves --no-solver)
        print(f"certify: no notation for this line: {e}", file=sys.stderr)
        return []


def describe(result, deal, board, rules, notation=None):
    what = f"deal {deal}" if deal is not None else \
        f"the layout {'on' if board == '-' else 'in'} {input_name(board)}"
    setting = rules.words()
    if result.verdict == UNKNOWN:
        return (f"UNKNOWN: {what} ({setting}): "
                f"{stopped(result.positions, result.solver_positions)}, "
                f"{result.seconds:.1f} s ({result.reason}); no certificate written")
    if result.verdict == "win":
        claim = f"WIN: {what} ({setting}) is won in {len(result.moves)} single-card moves"
    else:
        home = "no card ever reaches a foundation" if result.most_home == 0 else \
            f"at most {result.most_home} cards ever reach the foundations"
        closed = "reachable, each with its safe moves home made" if rules.autoplay else \
            "reachable"
        claim = (f"NO WIN: {what} ({setting}) cannot be won: {result.positions:,} positions "
                 f"{closed}, {home}")
    where = "written to standard output" if result.path == "-" else \
        output.printable(result.path)
    text = (f"{claim} [{result.seconds:.2f} s]\n"
            f"  certificate {where} ({result.size:,} bytes)\n  sha256 {result.sha256}")
    if notation:
        from ..game.notation import lines_of
        text += f"\nIn standard notation, {len(notation)} moves:\n{lines_of(notation)}"
    return text


def run_show(argv):
    p = Parser(prog="certify show", description="Print a deal's layout.")
    p.add_argument("deal", metavar="DEAL",
                   help="Microsoft deal number, 1 .. 2^33-1 (Windows' 1 .. 32,000, and "
                        "FreeCell Pro's numbers beyond), e.g. 11982: its cards as dealt, in "
                        "Freecell Solver's board format (what --board reads) unless --rows")
    p.add_argument("--rows", action="store_true",
                   help="rows of dealing (as on Rosetta Code) instead of Freecell Solver's format")
    args = p.parse_args(argv)
    columns = deals.deal(deal_number(args.deal))
    if args.rows:
        output.say("\n".join(deals.rows(columns)))
    else:
        output.say(write_board(start(columns)).rstrip("\n"))
    return EXIT_OK


def later(module, function):
    """A subcommand imported only when it runs."""
    def run(argv):
        return getattr(importlib.import_module(module), function)(argv)
    return run


COMMANDS = {"show": run_show,
            "explain": later("certify.commands.explain", "run"),
            "import": later("certify.commands.importer", "run_import"),
            "export": later("certify.commands.exports", "run_export"),
            "extract": later("certify.commands.extract", "run_extract")}



def unknown_command(word):
    import difflib
    close = difflib.get_close_matches(word, COMMANDS, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return (f"unknown command {word!r}{hint} (commands: {', '.join(COMMANDS)}; or a deal "
            "number, a range A-B, or --board FILE; see certify --help)")


def dispatch(argv):
    if not argv:
        raise Usage("give a deal number, a range A-B, --board FILE or a command: "
                    f"{', '.join(COMMANDS)} (see certify --help)")
    first = argv[0]
    if looks_like_range(first):  # A-B: a census (certify/commands/census.py)
        deal_range(first)  # ASCII digits only, refused here with the same words as the census
        from . import census
        return census.main(argv)
    if first in COMMANDS:
        return COMMANDS[first](argv[1:])
    if first[:1].isascii() and first[:1].isalpha():  # a word (a mistyped command)
        raise Usage(unknown_command(first))
    return run_certify(argv)


def warning_line(message, category, filename, lineno, line=None):
    """A warning as the rest of certify speaks: one line, without Python's file and line."""
    return f"certify: {message}\n"


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    warnings.formatwarning = warning_line
    try:
        code = dispatch(argv)
        if sys.stdout is not None:
            sys.stdout.flush()  # here, where a broken pipe is caught, not at the exit
        return code
    except output.Undeliverable as e:
        print(f"certify: {output.printable(e)}", file=sys.stderr)
        return EXIT_FAILED
    except (Usage, output.OutputError) as e:
        print(f"certify: {output.printable(e)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        # The reader of standard output went away: what was to go there was not delivered,
        # whatever else was done (files are written before the words about them), so the exit
        # is 1, never 0. As Python's documentation of SIGPIPE advises, the rest of standard
        # output goes to /dev/null, so that the exit does not fail again flushing it. Words cut
        # short (`certify 11982 | head -1`) are what the reader chose; a file is said.
        output.silence(sys.stdout)
        if output.cut_short is not None:
            try:
                print(f"certify: not delivered: the reader of standard output went away; "
                      f"{output.cut_short:,} bytes of the file had been written to it "
                      f"(written, not read: a pipe holds what its reader never took)",
                      file=sys.stderr)
            except OSError:  # stderr has gone too
                pass
        return EXIT_FAILED
    except KeyboardInterrupt:
        print("\ncertify: interrupted; nothing written", file=sys.stderr)
        return EXIT_INTERRUPTED
