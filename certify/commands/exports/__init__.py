"""`certify export`: a certificate as a theorem that a proof assistant's kernel checks.

    certify export --coq CERT [-o FreeCell11982.v] [--method search|data]   Coq 8.16, coqc
    certify export --lean CERT [-o FreeCell11982.lean]   Lean 4 (not compiled in CI)

A no-win certificate becomes `forall s, Reachable s -> ~ Won s`. The Coq file proves that
`moves` commutes with permuting the columns, so it works with positions up to column order,
the certificate's own (exports/coq.py says how): with --method search (the default, faster
and smaller) the kernel's virtual machine finds them itself from the start; with --method data
the file holds them and the same search must find nothing more. Either way Coq checks that
there are exactly the certificate's number. A certificate closed under every move then safe
autoplay (header key closure) gets the same theorem, by a search that autoplays each position
it finds and a lemma that such a set covers every reachable position (templates/Autoplay.v).
The Lean file is given positions with columns in
fixed places (a fresh search here, checked against the certificate), so its proof needs no
lemma about permutations. Foundation moves (the variant) are part of the exported rules when
the header says so.

A win certificate becomes, for Coq only, `exists s, Reachable s /\\ Won s`, from the positions
after each of its moves (replayed here by the readable rules); the Lean export refuses it (exit 2).
"""

import hashlib
import os
import re

from ...format import reader, spec
from ... import output
from ...engine import decode_key, search
from ..options import EXIT_OK, Parser, Usage
from ...outcome import NO_WIN, WIN
from ...game.rules import Rules, autoplay, encode, is_won, moves
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
    cert = read_certificate(path)
    label = "Board" if cert.deal is None else str(cert.deal)
    out = output.target(args.output, f"FreeCell{label}{'.v' if args.coq else '.lean'}",
                        stdout_ok=False)
    filename = os.path.basename(out)
    if args.coq and not (filename.endswith(".v") and COQ_MODULE.match(filename[:-2])):
        raise Usage(f"{out}: coqc needs a file named like FreeCell{label}.v "
                    "(a letter, then letters, digits or _, then .v)")
    if cert.claim == WIN and args.lean:
        raise Usage(f"{path} is a win certificate; only no-win certificates are exported to "
                    "Lean (--coq exports a win too)")
    render = win_file if cert.claim == WIN else coq_file if args.coq else lean_file
    if args.method != "search" and (args.lean or cert.claim == WIN):
        raise Usage("--method is for Coq no-win exports only")
    try:
        text, summary = render(cert, filename, args.method)
    except spec.CertificateError as e:
        raise Usage(spec.said(path, e)) from None
    try:
        output.write_atomic(out, text.encode("utf-8"))
    except output.OutputError:
        raise  # already one line naming the path
    except OSError as e:
        raise Usage(f"cannot write {out}: {e.strerror or e}") from None
    output.say(f"wrote {output.printable(out)}: {summary}; check it with: "
               f"{'coqc' if args.coq else 'lean'} {output.printable(filename)}")
    return EXIT_OK


def what(cert):
    return f"deal {cert.deal}" if cert.deal is not None else "the layout"


def coq_file(cert, filename, method):
    first, positions = cert.start, cert.positions()
    canonical = {coq.canonical(p) for p in positions}
    closed = cert.rules.autoplay
    if coq.canonical(autoplay(first)[0] if closed else first) not in canonical:
        raise Usage(f"{cert.path}: the start position{', autoplayed,' if closed else ''} is not "
                    f"one of the certificate's")
    note = provenance(cert.path) + (
        f"Positions are taken up to the order of the columns, which the rules never look at "
        f"(the second part proves it); the certificate holds {len(positions):,} positions "
        f"{'with columns in fixed places' if cert.rules.fixed_columns else 'in that sense'}" +
        (", closed under every move then safe autoplay." if closed else "."))
    found = "the positions found by Coq" if method == "search" else "the positions in the file"
    return (coq.coq_file(cert.header, first, positions, note, filename, method),
            f"a Coq proof that {what(cert)} cannot be won ({method}: {found}, "
            f"{len(canonical):,} up to column order)")


def lean_file(cert, filename, method):
    first, positions, note = fixed_positions(cert)
    return (lean.lean_file(cert.header, first, positions, note, filename),
            f"a Lean 4 proof that {what(cert)} cannot be won, from {len(positions):,} positions "
            "with columns in fixed places")


def win_file(cert, filename, method):
    line = replayed(cert)
    note = provenance(cert.path) + ("A win is a line of single-card moves with columns in "
                                    "their fixed places, replayed here as the positions after "
                                    "each move; nothing about permuting columns is needed.")
    return (coq.coq_win_file(cert.header, cert.start, line, note, filename),
            f"a Coq proof that {what(cert)} can be won, in {len(line)} moves")


def read_certificate(path):
    """reader.load(path), or Usage naming what is wrong (a range certificate: which
    command writes one deal's own)."""
    try:
        return reader.load(path)
    except spec.CertificateError as e:
        whole = reader.peek_header(path) or {}
        if whole.get("claim") == "range":
            raise Usage(f"{path} is a range certificate (deals {whole.get('first')}.."
                        f"{whole.get('last')}): export one deal's own, written by "
                        f"certify extract {path} DEAL") from None
        raise Usage(spec.said(path, e)) from None


def provenance(path):
    with open(path, "rb") as f:
        return f"From the certificate with SHA-256 {hashlib.sha256(f.read()).hexdigest()}. "


def replayed(cert):
    """The positions after each move of a win certificate, checked move by move."""
    position, line = cert.start, []
    rules = cert.rules
    for k, (card, dest) in enumerate(cert.line()):
        after = [q for c, d, q in moves(position, rules)
                 if (c, d) == (card, dest)]
        if not after:
            raise Usage(f"{cert.path}: move {k + 1} ({card}, {dest}) is not a legal move")
        position = after[0]
        line.append(position)
    if not is_won(position):
        raise Usage(f"{cert.path}: the moves do not end with every card home")
    return line


def fixed_positions(cert):
    """(start, positions with columns in fixed places, the note that says where they came from)."""
    first, path = cert.start, cert.path
    ncells = cert.rules.ncells
    positions = cert.positions()
    source = provenance(path)
    if cert.rules.autoplay:
        # The Lean proof closes under every move alone, which the certificate's fewer positions
        # (closed under every move then safe autoplay) are not: its data is the plain closure,
        # found afresh, which Lean checks itself; the claim is the certificate's.
        rules = Rules(ncells, True, cert.rules.foundation_moves)
        outcome = search(first, rules)
        if outcome.verdict != NO_WIN:
            raise Usage(f"{path}: a search with fixed columns finds a win, so the certificate "
                        f"is wrong")
        fixed = [decode_key(k, ncells, outcome.columns) for k in outcome.keys]
        return first, fixed, source + (
            f"Closure: the certificate holds {len(positions):,} positions closed under every "
            f"move then safe moves home; this proof's rules close under every move alone, so "
            f"its data is the exporter's own search with columns in fixed places (certify "
            f"--fixed-columns --no-autoplay) from the same start and rules: every one of the "
            f"{len(fixed):,} positions reachable, each checked below, so the proof needs no "
            f"lemma about permutations or autoplay.")
    if cert.rules.fixed_columns:
        if encode(first, ncells, True) not in {encode(p, ncells, True) for p in positions}:
            raise Usage(f"{path}: the start position is not one of the certificate's")
        return first, positions, source + (
            f"Symmetry: it keeps columns in fixed places (symmetry none), so its "
            f"{len(positions):,} positions are the data below as they are, and the proof needs "
            f"no lemma about permuting columns.")
    rules = Rules(ncells, True, cert.rules.foundation_moves)
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
