"""`certify import`: a win written in the players' notation, made into a win certificate.

    certify import FILE --deal N [--cells K] [-o CERT]

FILE holds a line in standard notation (certify/game/notation.py), for instance what Freecell Solver
prints with `fc-solve -m -snx` (its lines around the moves are skipped). Every move is checked
as it is read; a multi-card move becomes single-card moves through the free cells and empty
columns. The certificate holds those single-card moves, so `check` verifies it as usual and
trusts nothing here. An illegal move is reported by its number and text, and nothing is written.
"""

import hashlib
import sys

from ..format import spec
from ..game import notation
from .. import output
from .inputs import NOTATION_LIMIT, input_name, keep_other_claims, read_text, starting_point
from ..format.names import certificate_name
from .options import EXIT_OK, Parser, Usage, cells_count
from ..run.prove import win_certificate
from ..game.rules import Rules, replays_to_win


def parser():
    p = Parser(
        prog="certify import",
        description="Read a winning line in standard notation (columns 1-8, free cells a-d, "
                    "h the foundation; 47vb = 11 cards onto an empty column, as fc-solve -snx "
                    "writes) and write a win certificate of single-card moves for `check`.",
        epilog="Foundation moves must be written out unless --autoplay is given. Where a plain "
               "move onto an empty column does not say how many cards it carries, every count "
               "is tried. Exit codes: 0 written, 2 bad input or an illegal line (nothing "
               "written).")
    p.add_argument("file", metavar="FILE", help="the line in notation ('-' for standard input)")
    p.add_argument("--deal", metavar="N", help="Microsoft deal number the line plays")
    p.add_argument("--board", metavar="BOARD",
                   help="instead of --deal, a layout in Freecell Solver's board format")
    p.add_argument("--cells", type=cells_count, default=4, metavar="K",
                   help="number of free cells, 0..8 (default 4): cells a-d, or a-g and k for 8")
    p.add_argument("--autoplay", action="store_true",
                   help="the line leaves safe foundation moves unwritten: before every move and "
                        "at the end, send home every card that can go and that no card could "
                        "still want to lie on (an ace or a two, or both other-colour cards one "
                        "rank lower are home)")
    p.add_argument("-o", "--output", metavar="CERT",
                   help="where to write the certificate: a file, a folder (the default name "
                        "inside it) or - for standard output (default ./N.msgpack.zst, "
                        "N-cells5.msgpack.zst with --cells 5, BOARD.board.msgpack.zst with "
                        "--board)")
    return p


def run_import(argv):
    args = parser().parse_args(argv)
    rules = Rules(args.cells)
    deal, position, label = starting_point(args.deal, args.board, rules.ncells,
                                           "give --deal N or --board FILE (not both)")
    if args.file == "-" and args.board == "-":
        raise Usage("the line and the board cannot both come from standard input")
    out = output.target(args.output, certificate_name(label, rules, deal is None))
    keep_other_claims(out, args.output, deal, position, rules)
    text = read_text(args.file, NOTATION_LIMIT)
    try:
        moves = notation.parse(text, rules.ncells)
        line = notation.read(position, moves, rules.ncells, autoplay=args.autoplay)
    except notation.NotationError as e:
        raise Usage(f"{args.file}: {e}; nothing written") from None
    # The reader built the line by its own rules; the readable rules replay it before we write.
    if not replays_to_win(position, line, rules):
        raise AssertionError("the notation reader made a line the rules do not accept")
    board = None if deal is not None else spec.board_bytes(position, rules.ncells)
    data, _ = win_certificate(line, deal, board, rules)
    try:
        output.write_atomic(out, data)
    except OSError as e:
        raise Usage(f"cannot write {out}: {e.strerror or e}") from None
    what = f"deal {deal}" if deal is not None else \
        f"the layout {'on' if args.board == '-' else 'in'} {input_name(args.board)}"
    where = "written to standard output" if out == "-" else output.printable(out)
    output.say(f"WIN: {what} ({rules.ncells} free cells): {len(moves)} notation moves read as "
               f"{len(line)} single-card moves\n  certificate {where} ({len(data):,} bytes)\n"
               f"  sha256 {hashlib.sha256(data).hexdigest()}",
               sys.stderr if out == "-" else sys.stdout)
    return EXIT_OK
