"""`certify export`: a certificate as a theorem that a proof assistant's kernel checks.

    certify export --coq CERT [-o FreeCell11982.v] [--method search|data]   Coq 8.16, coqc
    certify export --lean CERT [-o FreeCell11982.lean]   Lean 4 (not compiled in CI)

A no-win certificate becomes `forall s, Reachable s -> ~ Won s`. The Coq file proves that
`moves` commutes with permuting the columns, so it works with positions up to column order,
the certificate's own (exports/coq.py says how): with --method search (the default, faster
and smaller) the kernel's virtual machine finds them itself from the start; with --method data
the file holds them and the same search must find nothing more. Either way Coq checks that
there are exactly the certificate's number. The Lean file is given positions with columns in
fixed places (a fresh search here, checked against the certificate), so its proof needs no
lemma about permutations. Foundation moves (the variant) are part of the exported rules when
the header says so.

A win certificate becomes, for Coq only, `exists s, Reachable s /\\ Won s`, from the positions
after each of its moves (replayed here by the readable rules); the Lean export refuses it (exit 2).
"""

import hashlib
import os
import re

from .. import certificate, deals, output
from ..engine import decode_key, search
from ..options import EXIT_OK, Parser, Usage
from ..outcome import NO_WIN
from ..rules import Rules, decode, encode, is_won, moves, start
from . import coq, lean

COQ_MODULE = re.compile(r"[A-Za-z_][A-Za-z0-9_']*\Z")  # coqc names a module after its file


def parser():
    p = Parser(prog="certify export",
               description="Write a certificate as one self-contained proof file: for Coq "
                           "(checked with coqc), a no-win or a win; for Lean 4, a no-win.")
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--coq", metavar="CERT", help="write a Coq 8.16 file (.v)")
    which.add_argument("--lean", metavar="CERT", help="write a Lean 4 file (.lean)")
    p.add_argument("-o", "--output", metavar="PATH",
                   help="where to write (default FreeCell<DEAL>.v or .lean in this folder)")
    p.add_argument("--method", choices=coq.METHODS, default="search",
                   help="Coq, no-win: 'search' (default) lets Coq's virtual machine find the "
                        "positions from the start; 'data' writes the certificate's positions "
                        "into the file and Coq checks that they are closed")
    return p


def run_export(argv):
    if not any(a in ("--coq", "--lean", "-h", "--help") or a.startswith(("--coq=", "--lean="))
               for a in argv):
        named = next((a for a in argv if not a.startswith("-")), "CERT")
        raise Usage(f"say which proof assistant: certify export --coq {named} (a Coq file) "
                    f"or --lean {named} (a Lean 4 file)")
    args = parser().parse_args(argv)
    path = args.coq or args.lean
    head, body = read_certificate(path)
    label = "Board" if head["deal"] is None else str(head["deal"])
    out = output.target(args.output, f"FreeCell{label}{'.v' if args.coq else '.lean'}",
                        stdout_ok=False)
    filename = os.path.basename(out)
    if args.coq and not (filename.endswith(".v") and COQ_MODULE.match(filename[:-2])):
        raise Usage(f"{out}: coqc needs a file named like FreeCell{label}.v "
                    "(a letter, then letters, digits or _, then .v)")
    if head["claim"] == "win" and args.lean:
        raise Usage(f"{path} is a win certificate; only no-win certificates are exported to "
                    "Lean (--coq exports a win too)")
    render = win_file if head["claim"] == "win" else coq_file if args.coq else lean_file
    if args.method != "search" and (args.lean or head["claim"] == "win"):
        raise Usage("--method is for Coq no-win exports only")
    text, summary = render(head, body, path, filename, args.method)
    try:
        output.write_atomic(out, text.encode("utf-8"))
    except output.OutputError:
        raise  # already one line naming the path
    except OSError as e:
        raise Usage(f"cannot write {out}: {e.strerror or e}") from None
    output.say(f"wrote {output.printable(out)}: {summary}; check it with: "
               f"{'coqc' if args.coq else 'lean'} {output.printable(filename)}")
    return EXIT_OK


def what(head):
    return f"deal {head['deal']}" if head["deal"] is not None else "the layout"


def coq_file(head, body, path, filename, method):
    first, positions = start_position(head, path), certificate_positions(head, body, path)
    canonical = {coq.canonical(p) for p in positions}
    if coq.canonical(first) not in canonical:
        raise Usage(f"{path}: the start position is not one of the certificate's")
    note = provenance(path) + (
        f"Positions are taken up to the order of the columns, which the rules never look at "
        f"(the second part proves it); the certificate holds {len(positions):,} positions "
        f"{'in that sense' if head['symmetry'] == 'columns' else 'with columns in fixed places'}.")
    found = "the positions found by Coq" if method == "search" else "the positions in the file"
    return (coq.coq_file(head, first, positions, note, filename, method),
            f"a Coq proof that {what(head)} cannot be won ({method}: {found}, "
            f"{len(canonical):,} up to column order)")


def lean_file(head, body, path, filename, method):
    first, positions, note = fixed_positions(head, body, path)
    return (lean.lean_file(head, first, positions, note, filename),
            f"a Lean 4 proof that {what(head)} cannot be won, from {len(positions):,} positions "
            "with columns in fixed places")


def win_file(head, body, path, filename, method):
    first = start_position(head, path)
    line = replayed(first, head, body, path)
    note = provenance(path) + ("A win is a line of single-card moves with columns in their "
                               "fixed places, replayed here as the positions after each move; "
                               "nothing about permuting columns is needed.")
    return (coq.coq_win_file(head, first, line, note, filename),
            f"a Coq proof that {what(head)} can be won, in {len(line)} moves")


def read_certificate(path):
    try:
        head, body = certificate.read(path)
    except certificate.CertificateError as e:
        from ..inputs import certificate_header
        whole = certificate_header(path) or {}
        if whole.get("claim") == "range":
            raise Usage(f"{path} is a range certificate (deals {whole.get('first')}.."
                        f"{whole.get('last')}): export one deal's own, written by "
                        f"certify extract {path} DEAL") from None
        raise Usage(f"{path}: {e}") from None
    missing = {"claim", "deal", "board", "cells", "foundation_moves", "symmetry"} - head.keys()
    if missing:
        raise Usage(f"{path}: the header has no {', '.join(sorted(missing))}")
    if head["claim"] not in ("win", "no-win"):
        raise Usage(f"{path}: unknown claim {head['claim']!r}")
    cells, back = head["cells"], head["foundation_moves"]
    if isinstance(cells, bool) or not isinstance(cells, int) or not 0 <= cells <= 8:
        raise Usage(f"{path}: cells must be 0..8, not {cells!r}")
    if not isinstance(back, bool):
        raise Usage(f"{path}: foundation_moves must be true or false, not {back!r}")
    if head["symmetry"] not in ("none", "columns"):
        raise Usage(f"{path}: unknown symmetry {head['symmetry']!r}")
    return head, body


def provenance(path):
    with open(path, "rb") as f:
        return f"From the certificate with SHA-256 {hashlib.sha256(f.read()).hexdigest()}. "


def replayed(first, head, body, path):
    """The positions after each move of a win certificate, checked move by move."""
    if len(body) % 2:
        raise Usage(f"{path}: a win's body is pairs of bytes (card, destination)")
    position, line = first, []
    for k in range(0, len(body), 2):
        card, dest = body[k], body[k + 1]
        after = [q for c, d, q in moves(position, head["cells"], head["foundation_moves"])
                 if (c, d) == (card, dest)]
        if not after:
            raise Usage(f"{path}: move {k // 2 + 1} ({card}, {dest}) is not a legal move")
        position = after[0]
        line.append(position)
    if not is_won(position):
        raise Usage(f"{path}: the moves do not end with every card home")
    return line


def start_position(head, path):
    """The start: the numbered deal, or the header's custom board (checked, as bad input)."""
    n, board, cells = head.get("deal"), head.get("board"), head["cells"]
    if n is not None:
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= deals.MAX_DEAL:
            raise Usage(f"{path}: deal {n!r} is not a deal number 1 .. {deals.MAX_DEAL}")
        if board is not None:
            raise Usage(f"{path}: has both a deal number and a board")
        return start(deals.deal(n))
    if not isinstance(board, bytes) or len(board) < 4 + cells:
        raise Usage(f"{path}: a custom layout needs its board")
    position = decode(board, cells)
    columns = board[4 + cells:].split(b"\xff")
    if len(columns) != 9 or columns[-1] or not well_formed(position, cells):
        raise Usage(f"{path}: the board is not a layout of the 52 cards in 8 columns")
    return position


def well_formed(position, ncells):
    """Foundation counts 0..13, cells ascending, and each of the 52 cards exactly once."""
    found, cells, cols = position
    if len(found) != 4 or max(found) > 13 or len(cols) != 8 or len(cells) > ncells:
        return False
    if list(cells) != sorted(set(cells)):
        return False
    cards = [r * 4 + s for s in range(4) for r in range(found[s])]
    cards += list(cells) + [c for col in cols for c in col]
    return sorted(cards) == list(range(52))


def certificate_positions(head, body, path):
    """The positions of a no-win certificate, each checked to hold the 52 cards."""
    try:
        positions = certificate.positions(head, body)
    except Exception as e:  # a body that is not [table, records] in any of several ways
        raise Usage(f"{path}: cannot read the positions: {e}") from None
    if not all(well_formed(p, head["cells"]) for p in positions):
        raise Usage(f"{path}: a position does not hold the 52 cards in 8 columns")
    return positions


def fixed_positions(head, body, path):
    """(start, positions with columns in fixed places, the note that says where they came from)."""
    first = start_position(head, path)
    ncells = head["cells"]
    positions = certificate_positions(head, body, path)
    source = provenance(path)
    if head["symmetry"] == "none":
        if encode(first, ncells, True) not in {encode(p, ncells, True) for p in positions}:
            raise Usage(f"{path}: the start position is not one of the certificate's")
        return first, positions, source + (
            f"Symmetry: it keeps columns in fixed places (symmetry none), so its "
            f"{len(positions):,} positions are the data below as they are, and the proof needs "
            f"no lemma about permuting columns.")
    rules = Rules(ncells, True, head["foundation_moves"])
    outcome = search(first, rules)
    if outcome.verdict != NO_WIN:
        raise Usage(f"{path}: a search with fixed columns finds a win, so the certificate is wrong")
    fixed = [decode_key(k, ncells, outcome.columns) for k in outcome.keys]
    claimed = {encode(p, ncells) for p in positions}
    if any(encode(p, ncells) not in claimed for p in fixed):
        raise Usage(f"{path}: a position reachable from the start is missing from the certificate")
    return first, fixed, source + (
        f"Symmetry: it takes positions up to permutation of the columns. Rather than prove that "
        f"moves commute with permuting columns, the exporter re-ran the search with columns in "
        f"fixed places (certify --fixed-columns) from the same start and rules, and checked "
        f"that each of the {len(fixed):,} positions it found is, up to column permutation, one "
        f"of the certificate's. Those positions are the data below, so the proof needs no lemma "
        f"about permutations.")
