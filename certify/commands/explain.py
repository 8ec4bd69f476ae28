"""`certify explain`: why a deal cannot be won, or how well it can, in a few plain facts.

For a deal that cannot be won, from the set of all reachable positions (searched afresh, or read
from a certificate file, whose header then gives the rules):

- **Most home**: the most cards on the foundations in any reachable position.

- **Cards that never move.** A card is *in its starting place* in a position when it lies in a
  column whose cards, from the bottom up to and including it, are exactly the cards it was dealt
  on, bottom up. With columns up to permutation (the default) it does not matter which of the
  eight columns that is, only what lies beneath the card; with --fixed-columns it must also be
  the column it was dealt to. A card *never moves* when it is in its starting place in every
  reachable position. The reachable set is closed under moves, so this says that no move ever
  takes the card anywhere else. (The one move that leaves a card in its starting place, a lone
  bottom card moved to an empty column, is no move at all up to column order; with fixed
  columns it does count as moving.) If a card never moves, neither does any card beneath it, so
  the frozen cards of a column are a run from its bottom. We also call them *frozen*.

- **The frozen card closest to moving.** Only the top card of a frozen run can ever be
  uncovered (the top card of its column). The closest to moving is the frozen card with the
  fewest cards ever above it in a reachable position; ties go to the one that has that fewest in
  more positions, then to the lower card number. For it: in how many positions it is uncovered
  (zero if the fewest is more than zero), and in how many of those every free cell is full.

Positions are counted as the certificate counts them: up to column order unless the rules fix
the columns, so a count with --fixed-columns can be larger.

For a deal that can be won: the length, in single-card moves, of the line `certify` writes (the
fast solver's if it finds one, else the exhaustive search's; not necessarily the shortest), and
the fewest free cells with which it is still winnable. A line with k cells is also a line with
more, so winnability only grows with the cells: we try k-1, k-2, ... and stop at the first
no-win (then the answer is exact) or the first search whose budget runs out (then it is only an
upper bound, and we say so). For a deal that cannot be won we likewise try k+1, k+2, ... up to 8
for the fewest free cells that make it winnable. Each try asks the solver first (a line it finds
is replayed by the readable rules) and then searches, within the budget.

Reading a certificate does not check it (that is `check`'s job): the facts are about the
positions the file lists.
"""

import json
import os
import struct
import sys
from dataclasses import dataclass, field

from ..format import reader, spec
from .. import output
from ..game.board import write_board
from ..game.cards import name, parse
from .inputs import board_label, input_name, regular_file, starting_point
from ..format.names import BOARD_MARK, CERTIFICATE_SUFFIX
from .options import (EXIT_OK, EXIT_UNKNOWN, Parser, Usage, cells_count, count_or_zero, is_number,
                      positive_count, seconds, with_old_verdict)
from ..engine import search  # the engine in use (certify/engine/)
from ..outcome import NO_WIN, UNKNOWN, WIN, stopped
from ..run.progress import phase, phases
from ..game.rules import Rules, replays_to_win, stacks_on, start
from .svg import deal_svg, label

DEFAULT_CELL_BUDGET = 2_000_000  # positions per extra search for the fewest free cells
DEFAULT_CELL_TIME = 120.0  # seconds per extra search


class ExplainError(ValueError):
    """Input explain cannot use: one line saying what is wrong."""


@dataclass
class Closest:
    card: int
    column: int  # the column it was dealt to, 0..7
    beneath: int  # the card it lies on, or -1 for a column's bottom card
    fewest_above: int  # fewest cards ever above it
    positions: int  # positions with that fewest
    cells_full: int  # ... of which every free cell is full

    @property
    def uncovered(self):
        return self.positions if self.fewest_above == 0 else 0

    @property
    def uncovered_cells_full(self):
        return self.cells_full if self.fewest_above == 0 else 0


@dataclass
class Stuck:
    positions: int
    most_home: int
    frozen: list  # per dealt column, its cards that never move, bottom first
    tops: list = field(default_factory=list)  # a Closest for each column's top frozen card
    closest: Closest = None  # the closest to moving among `tops`; None when no card is frozen
    column_sets: dict = field(default=None, repr=False)  # ids part -> per-column (depth, height)

    def frozen_cards(self):
        return [c for run in self.frozen for c in run]


def stuck(start_columns, table, records, ncells, width, fixed_columns):
    """The facts above, from records of 4 foundation counts, `ncells` cell bytes and 8 column
    ids of `width` bytes each into `table` (column contents, bottom first).

    Records with the same columns differ only in foundations and cells, so the per-column work
    is done once per distinct set of column ids, and each record costs a dict look-up.
    """
    start_columns = [bytes(c) for c in start_columns]
    off = 4 + ncells
    n_ids = 8 * width
    groups = {}  # the ids part -> [positions, positions with every free cell full]
    most = 0
    count = 0
    for r in records:
        if len(r) != off + n_ids:
            raise ExplainError(f"a record of {len(r)} bytes, not {off + n_ids}")
        count += 1
        home = r[0] + r[1] + r[2] + r[3]
        if home > most:
            most = home
        g = groups.get(r[off:])
        if g is None:
            g = groups[r[off:]] = [0, 0]
        g[0] += 1
        if ncells == 0 or r[off - 1] != 0xFF:  # cells ascending then padding: last one full
            g[1] += 1
    if not count:
        raise ExplainError("no positions")

    dealt_on = {col[0]: j for j, col in enumerate(start_columns) if col}
    places = {}

    def place(i):
        # (dealt column j, how many of its dealt cards this column still holds, height), or None.
        p = places.get(i, 0)
        if p == 0:
            if i >= len(table):
                raise ExplainError(f"column id {i} is outside the table of {len(table)}")
            col = table[i]
            j = dealt_on.get(col[0]) if col else None
            if j is None:
                p = None
            else:
                dealt = start_columns[j]
                k = 0
                while k < len(col) and k < len(dealt) and col[k] == dealt[k]:
                    k += 1
                p = (j, k, len(col))
            places[i] = p
        return p

    unpack = struct.Struct(">8H").unpack if width == 2 else \
        (lambda b: [int.from_bytes(b[k:k + width], "big") for k in range(0, n_ids, width)])
    column_sets = {}
    for ids_part in groups:
        depth = [0] * 8  # per dealt column: how many of its cards are in their starting place
        height = [0] * 8  # ... and how tall the column holding them is
        for where, i in enumerate(unpack(ids_part)):
            p = place(i)
            if p is not None and (not fixed_columns or p[0] == where):
                depth[p[0]], height[p[0]] = p[1], p[2]
        column_sets[ids_part] = (depth, height)

    runs = [min(d[j] for d, _ in column_sets.values()) for j in range(8)]
    frozen = [list(start_columns[j][:runs[j]]) for j in range(8)]
    candidates = []
    for j in range(8):
        if runs[j] == 0:
            continue
        fewest = min(h[j] - runs[j] for _, h in column_sets.values())
        at = [groups[k] for k, (_, h) in column_sets.items() if h[j] - runs[j] == fewest]
        card = start_columns[j][runs[j] - 1]
        beneath = start_columns[j][runs[j] - 2] if runs[j] >= 2 else -1
        candidates.append(Closest(card, j, beneath, fewest, sum(g[0] for g in at),
                                  sum(g[1] for g in at)))
    closest = min(candidates, key=lambda c: (c.fewest_above, -c.positions, c.card), default=None)
    return Stuck(count, most, frozen, candidates, closest, column_sets)


def uncovered_positions(start_columns, table, records, ncells, width, fixed_columns, facts):
    """The positions in which the closest-to-moving card is the top of its column."""
    c = facts.closest
    if c is None or c.fewest_above:
        return []
    run = len(facts.frozen[c.column])
    off = 4 + ncells
    wanted = {k for k, (_, h) in facts.column_sets.items() if h[c.column] == run}
    return [decode_record(r, ncells, width, table) for r in records if r[off:] in wanted]


def in_picture_order(position, start_columns):
    """A position up to column order with its columns where the picture and the report number
    them: a column whose bottom card was dealt at the bottom of column j is put j-th, the
    others (and the empty ones) in the places left, in order. The same position, as the rules
    see it; only its printing changes."""
    found, cells, cols = position
    slot_of = {bytes(c)[:1]: j for j, c in enumerate(start_columns) if c}
    placed = [None] * 8
    rest = []
    for col in cols:
        j = slot_of.get(bytes(col)[:1]) if col else None
        if j is not None and placed[j] is None:
            placed[j] = col
        else:
            rest.append(col)
    rest = iter(rest)
    return found, cells, tuple(c if c is not None else next(rest) for c in placed)


def held_back(card, positions, ncells):
    """Why `card`, the top of its column in each of `positions` (reachable, and it never moves),
    goes nowhere in any of them: a dict of what blocks each way it could go, counted over the
    positions. Its foundation: the card below it is not home. A free cell: none is empty. An
    empty column: none there (or only the move that leaves it in place, up to column order).
    The cards it could lie on (one rank higher, the other colour): where they are instead of
    at the top of a column -- home, in a free cell, or under other cards."""
    onto = [t for t in range(52) if stacks_on(card, t)]
    where = {name(t): {} for t in onto}
    cells_full = empty = 0
    for found, cells, cols in positions:
        cells_full += len(cells) == ncells
        empty += any(not c for c in cols)
        for t in onto:
            if found[t & 3] > t >> 2:
                place = "home"
            elif t in cells:
                place = "in a free cell"
            else:
                col = next(c for c in cols if t in c)
                place = "under other cards" if col[-1] != t else "at the top of a column"
            counts = where[name(t)]
            counts[place] = counts.get(place, 0) + 1
    return {"positions": len(positions), "home_needs": name(card - 4) if card >= 4 else None,
            "free_cells_full": cells_full, "with_an_empty_column": empty, "onto": where}


def decode_record(r, ncells, width, table):
    off = 4 + ncells
    ids = [int.from_bytes(r[k:k + width], "big") for k in range(off, len(r), width)]
    return r[:4], r[4:off].rstrip(b"\xff"), tuple(table[i] for i in ids)


# ---- Where the positions come from: a fresh search, or a certificate file ----------------

@dataclass
class Source:
    """A deal (or layout) under some rules, with what is known of its reachable positions."""
    deal: int  # or None for a custom layout
    board: str  # the layout's file name, or None
    start: tuple  # the start position
    rules: Rules
    verdict: str
    positions: int = None
    moves: list = None  # WIN from a search: the line; from a certificate: None
    move_count: int = None
    table: list = None  # NO_WIN: column contents by id
    records: object = None  # NO_WIN: the records (bytes) over `table`
    width: int = 2
    reason: str = ""
    path: str = None  # the certificate read, if any


def solved(position, rules):
    """A winning line from certify's fast solver, checked by the readable rules, or None."""
    from ..engine import solve
    line = solve(position, rules)
    return line if line is not None and replays_to_win(position, line, rules) else None


def searched(deal, board, position, rules, max_positions=None, time_limit=None, progress=None,
             use_solver=True):
    """Like `certify`: the fast solver first (so a win's line is the one certify would write),
    then the exhaustive search, which alone can say no-win."""
    phase(progress, "solving")
    line = solved(position, rules) if use_solver else None
    if line is not None:
        return Source(deal, board, position, rules, WIN, moves=line, move_count=len(line))
    phase(progress, "searching")
    outcome = search(position, rules, max_positions, time_limit, progress)
    src = Source(deal, board, position, rules, outcome.verdict, outcome.positions,
                 reason=outcome.reason)
    if outcome.verdict == WIN:
        from ..run.prove import moves_along
        src.moves = moves_along(position, outcome.path, rules.ncells, outcome.columns, rules)
        src.move_count = len(src.moves)
    elif outcome.verdict == NO_WIN:
        src.table, src.records, src.width = outcome.columns, outcome.keys, outcome.width
    return src


def from_certificate(path):
    """A Source read from a certificate file; ExplainError names what is wrong with it."""
    try:
        cert = reader.load(path)
        src = Source(cert.deal, None, cert.start, cert.rules, cert.claim, path=path)
        if cert.claim == WIN:
            src.move_count = cert.count
        else:
            src.table, src.records, src.width = cert.records()
            src.positions = cert.count
    except spec.CertificateError as e:
        raise ExplainError(spec.said(path, e)) from None
    return src


# ---- The fewest free cells ---------------------------------------------------------------

def fewest_cells(src, budget, time_limit, use_solver=True, progress=None):
    """(fewest, exact, attempts): the fewest free cells with which the deal is winnable.

    fewest None and exact: not winnable with any number of cells up to 8. exact False: a
    search ran out of budget, so fewest is only an upper bound (win) or unknown (None).
    attempts: (cells, verdict, positions) of each extra search, in order.
    """
    r = src.rules
    attempts = []

    def attempt(cells):
        # Winnability does not depend on whether columns are taken up to order, so the searches
        # take them so (fewer positions); the solver, if it finds a line, settles a win at once.
        rules = Rules(cells, False, r.foundation_moves, r.autoplay)
        phase(progress, f"solving with {cells} free cells")
        if use_solver and solved(src.start, rules) is not None:
            attempts.append((cells, WIN, None))
            return WIN
        phase(progress, f"searching with {cells} free cells")
        o = search(src.start, rules, budget, time_limit, progress)
        attempts.append((cells, o.verdict, o.positions))
        return o.verdict

    if src.verdict == WIN:
        fewest = r.ncells
        for cells in range(r.ncells - 1, -1, -1):
            verdict = attempt(cells)
            if verdict != WIN:
                return fewest, verdict == NO_WIN, attempts
            fewest = cells
        return fewest, True, attempts
    for cells in range(r.ncells + 1, 9):
        verdict = attempt(cells)
        if verdict == WIN:
            return cells, True, attempts
        if verdict == UNKNOWN:
            return None, False, attempts
    return None, True, attempts


# ---- The report --------------------------------------------------------------------------

def explain(src, cell_budget=DEFAULT_CELL_BUDGET, cell_time=DEFAULT_CELL_TIME, use_solver=True,
            progress=None):
    """Everything `certify explain` reports, as a dict (the --json output)."""
    r = src.rules
    out = {
        "deal": src.deal,
        "board": src.board,
        "certificate": src.path,
        "cells": r.ncells,
        "foundation_moves": r.foundation_moves,
        "symmetry": "none" if r.fixed_columns else "columns",
        "claim": src.verdict,
        "positions": src.positions,
    }
    if src.verdict == UNKNOWN:
        out["reason"] = src.reason
        return out
    if src.verdict == NO_WIN:
        facts = stuck(src.start[2], src.table, src.records, r.ncells, src.width, r.fixed_columns)
        out["most_home"] = facts.most_home
        out["frozen"] = [[name(c) for c in run] for run in facts.frozen]
        out["frozen_count"] = len(facts.frozen_cards())
        out["tops"] = [closest_json(c) for c in facts.tops]
        out["closest"] = None if facts.closest is None else closest_json(facts.closest)
        if facts.closest is not None and facts.closest.uncovered:
            shown = uncovered_positions(src.start[2], src.table, src.records, r.ncells,
                                        src.width, r.fixed_columns, facts)
            out["closest"]["held_back"] = held_back(facts.closest.card, shown, r.ncells)
            out["_uncovered"] = shown  # for --positions; dropped from the JSON
        out["_facts"] = facts  # for --positions and --svg; dropped from the JSON
        out["closure"] = "autoplay" if r.autoplay else "moves"
        out["summary"] = summary(out)
    else:
        out["moves"] = src.move_count
    if cell_budget > 0:
        fewest, exact, attempts = fewest_cells(src, cell_budget, cell_time, use_solver, progress)
        out["fewest_cells_to_win"] = fewest
        out["fewest_cells_exact"] = exact
        out["cell_searches"] = [{"cells": c, "claim": v, "positions": p}
                                for c, v, p in attempts]
    return out


def closest_json(c):
    return {"card": name(c.card), "column": c.column + 1,
            "beneath": name(c.beneath) if c.beneath >= 0 else None,
            "fewest_above": c.fewest_above, "positions_at_fewest": c.positions,
            "cells_full_at_fewest": c.cells_full,
            "uncovered": c.uncovered, "uncovered_cells_full": c.uncovered_cells_full}


def closest_text(c):
    on = f"on {c['beneath']}" if c["beneath"] else "at the bottom"
    head = f"{c['card']} (column {c['column']}, {on}): "
    if c["uncovered"]:
        return head + (f"uncovered in {c['uncovered']:,} positions, "
                       f"{c['uncovered_cells_full']:,} of them with every free cell full")
    return head + (f"never uncovered; at least {c['fewest_above']} cards above it, in "
                   f"{c['positions_at_fewest']:,} positions ({c['cells_full_at_fewest']:,} "
                   "with every free cell full)")


def held_back_text(c, card_name=str):
    """Why the closest card never moves, where it is uncovered, in a sentence or two; cards
    named by `card_name` of their names (the picture draws suits as symbols)."""
    why = c["held_back"]
    n = why["positions"]
    every = f"in all {n:,}" if n > 1 else "there"
    cells = "every free cell is full" if why["free_cells_full"] == n else \
        f"every free cell is full in {why['free_cells_full']:,}"
    empty = "no column is empty" if not why["with_an_empty_column"] else \
        (f"the empty column of {why['with_an_empty_column']:,} would leave it where it is "
         "(columns are taken up to their order)")
    parts = [f"{card_name(c['card'])} never moves from there: {every}, {cells} and {empty}"]
    if why["home_needs"]:
        parts.append(f"{card_name(why['home_needs'])} is not home")
    onto = why["onto"]
    if onto:
        places = "; ".join(f"{card_name(card)} "
                           f"{', '.join(f'{p} in {k:,}' for p, k in counts.items())}"
                           for card, counts in onto.items())
        parts.append(f"and {' and '.join(map(card_name, onto))}, the cards it could lie on, "
                     f"are never at the top of a column ({places})")
    return "; ".join(parts) + "."


SUITS = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}


def listed(words):
    words = list(words)
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def summary(report):
    """A no-win's short answer, the one sentence a person wants first: the aces that can never
    move, and so the suits that never go home; else how many cards never move and how far the
    foundations get."""
    aces = [card for run in report["frozen"] for card in run if card[0] == "A"]
    home = report["most_home"]
    if aces:
        return (f"{listed(aces)} can never move, so {listed(SUITS[a[1]] for a in aces)} "
                f"never go home.")
    reach = ("no card ever reaches a foundation" if home == 0 else
             "only one card ever reaches a foundation" if home == 1 else
             f"at most {home} cards ever reach the foundations")
    frozen = report["frozen_count"]
    if frozen:
        return f"{frozen} card{'s' * (frozen != 1)} can never move, and {reach}."
    return reach[0].upper() + reach[1:] + "."


def wrapped(sentence, indent, width=80):
    import textwrap
    return textwrap.wrap(sentence, width, initial_indent=indent, subsequent_indent=indent,
                         break_on_hyphens=False)


def report_rules(report):
    """The rules a report is under, as the report's header fields say them."""
    return Rules(report["cells"], report["symmetry"] == "none", report["foundation_moves"])


def text(report):
    """The report as lines of text."""
    what = f"deal {report['deal']}" if report["deal"] is not None else \
        f"the layout {'on' if report['board'] == '-' else 'in'} " \
        f"{input_name(report['board'] or report['certificate'])}"
    setting = report_rules(report).words()
    if report["claim"] == UNKNOWN:
        return [f"UNKNOWN: {what} ({setting}): {stopped(report['positions'])} "
                f"({report['reason']})"]
    lines = []
    if report["claim"] == WIN:
        lines.append(f"WIN: {what} ({setting}) is won in {report['moves']} single-card moves "
                     "(the line certify writes; not necessarily the shortest)")
    else:
        order = "with columns fixed" if report["symmetry"] == "none" else "up to column order"
        lines.append(f"NO WIN: {what} ({setting}) cannot be won. {report['summary']}")
        closed = ("positions closed under every move then safe moves home"
                  if report["closure"] == "autoplay" else "reachable positions")
        lines.append(f"  {report['positions']:,} {closed} ({order})")
        lines.append(f"  most cards ever on the foundations: {report['most_home']}")
        lines.append(f"  cards that never move: {report['frozen_count']}")
        for j, run in enumerate(report["frozen"]):
            if run:
                lines.append(f"    column {j + 1}: {' '.join(run)}")
        if report["tops"]:
            lines.append("  the top frozen card of each column:")
            lines += ["    " + closest_text(c) for c in report["tops"]]
            lines.append("  closest to moving: " + closest_text(report["closest"]))
            if "held_back" in report["closest"]:
                lines += wrapped(held_back_text(report["closest"]), "    ")
    if "fewest_cells_to_win" in report:
        for a in report["cell_searches"]:
            how = "line found by the solver" if a["positions"] is None else \
                f"{a['positions']:,} positions searched"
            cells = f"{a['cells']} free cell" + ("" if a["cells"] == 1 else "s")
            lines.append(f"  with {cells}: {a['claim']} ({how})")
        fewest, exact = report["fewest_cells_to_win"], report["fewest_cells_exact"]
        if fewest is not None and exact:
            lines.append(f"  fewest free cells to win: {fewest}")
        elif fewest is not None:
            lines.append(f"  fewest free cells to win: at most {fewest} (one fewer is unknown: "
                         "budget ran out)")
        elif exact:
            lines.append("  not winnable with any number of free cells up to 8")
        else:
            lines.append("  fewest free cells to win: unknown (budget ran out)")
    return lines


def explain_parser():
    p = Parser(
        prog="certify explain",
        description="Why a deal cannot be won (most cards home, the cards that never move, the "
                    "frozen card closest to moving), or for a winnable one the solution length "
                    "and the fewest free cells that still win. DEAL may also be a certificate "
                    "file, whose header then gives the rules.",
        epilog="Exit codes: 0 a definite verdict, 3 unknown (a budget ran out), 2 bad input.")
    p.add_argument("deal", nargs="?", metavar="DEAL|CERT",
                   help="Microsoft deal number, or a certificate file (.msgpack.zst)")
    p.add_argument("--board", metavar="FILE", help="a layout in Freecell Solver's format")
    p.add_argument("--cells", type=cells_count, default=None, metavar="N",
                   help="number of free cells, 0..8 (default 4)")
    p.add_argument("--fixed-columns", action="store_true", default=None,
                   help="columns in fixed places: positions (and counts) are not taken up to "
                        "column order")
    p.add_argument("--foundation-moves", action="store_true", default=None,
                   help="allow a foundation's top card back onto a column (a variant)")
    p.add_argument("--no-autoplay", action="store_true", default=None,
                   help="search every position reachable, not the set closed under every move "
                        "then safe moves home (the default, as certify's)")
    p.add_argument("--svg", metavar="FILE",
                   help="draw the deal, frozen cards outlined and the one closest to moving "
                        "marked: a file, a folder (DEAL.svg inside it), or - for standard "
                        "output (the report then goes to stderr)")
    p.add_argument("--positions", action="store_true",
                   help="print every position in which the closest-to-moving card is uncovered")
    p.add_argument("--cell-budget", type=count_or_zero, default=DEFAULT_CELL_BUDGET, metavar="N",
                   help="positions per extra search for the fewest free cells (0: skip those "
                        f"searches; default {DEFAULT_CELL_BUDGET:,})")
    p.add_argument("--cell-time", type=seconds, default=DEFAULT_CELL_TIME, metavar="SECONDS",
                   help=f"seconds per extra search (default {DEFAULT_CELL_TIME:g})")
    p.add_argument("--no-solver", action="store_true",
                   help="skip the fast solver (certify/engine/reference/solver.py) and search "
                        "exhaustively only")
    p.add_argument("--max-positions", type=positive_count, metavar="N",
                   help="give up (unknown) after N positions in the main search")
    p.add_argument("--time-limit", type=seconds, metavar="SECONDS",
                   help="give up (unknown) after this many seconds in the main search")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    return p


def source_from_args(args, progress=None):
    rule_given = (args.cells is not None or args.fixed_columns or args.foundation_moves
                  or args.no_autoplay)
    if args.board is None and args.deal is not None and not is_number(args.deal):
        if rule_given:
            raise Usage("rule options do not go with a certificate: its header gives the rules")
        regular_file(args.deal)  # not a FIFO, which would block, nor a device
        try:
            return from_certificate(args.deal)
        except ExplainError as e:
            raise Usage(str(e)) from None
    rules = Rules(4 if args.cells is None else args.cells, bool(args.fixed_columns),
                  bool(args.foundation_moves), autoplay=not args.no_autoplay)
    deal, position, _ = starting_point(
        args.deal, args.board, rules.ncells,
        "give a deal number, a certificate file, or --board FILE (one of them)")
    return searched(deal, args.board, position, rules, args.max_positions, args.time_limit,
                    progress, not args.no_solver)


def run(argv):
    args = explain_parser().parse_args(argv)
    svg_path = None
    if args.svg is not None:  # refused now, not after the search, if it cannot be written
        svg_path = output.target(args.svg, picture_name(args), binary=False)
    progress = phases(args.quiet or args.json)
    try:
        src = source_from_args(args, progress)
        report = explain(src, args.cell_budget, args.cell_time, not args.no_solver, progress)
    finally:
        if progress is not None:
            progress.close()
    facts = report.pop("_facts", None)
    uncovered = report.pop("_uncovered", [])
    boards = []
    if args.positions:
        r = src.rules
        boards = [write_board(p if r.fixed_columns else in_picture_order(p, src.start[2]),
                              r.ncells) for p in uncovered]
    drawn = svg_path is not None and src.verdict != UNKNOWN
    if drawn:  # before the report, so that a reader who stops early (| head) loses nothing
        frozen = facts.frozen_cards() if facts is not None else []
        closest = facts.closest.card if facts is not None and facts.closest else None
        data = deal_svg(src.start, frozen, caption(report), src.rules.ncells, closest).encode()
        try:
            output.write_atomic(svg_path, data)
        except OSError as e:
            raise Usage(f"cannot write {svg_path}: {e.strerror or e}") from None
    said = sys.stderr if svg_path == "-" else sys.stdout
    if args.json:
        if args.positions:
            report["uncovered_positions"] = boards
        if drawn:
            report["svg"] = svg_path
        if "cell_searches" in report:
            report["cell_searches"] = [with_old_verdict(a) for a in report["cell_searches"]]
        output.say(json.dumps(with_old_verdict(report)), said)
    else:
        lines = text(report)
        if drawn:
            lines.append("  picture: " + ("written to standard output" if svg_path == "-"
                                          else output.printable(svg_path)))
        output.say("\n".join(lines), said)
        for k, board in enumerate(boards, 1):
            output.say(f"\n# position {k} (columns 1 to 8 as in the picture)\n{board}"
                       .rstrip("\n"), said)
    return EXIT_UNKNOWN if src.verdict == UNKNOWN else EXIT_OK


def picture_name(args):
    """The picture's default name (for --svg FOLDER): after the deal, board or certificate."""
    if args.board is not None:
        return board_label(args.board) + BOARD_MARK + ".svg"
    given = args.deal or "deal"
    if not is_number(given):
        given = os.path.basename(os.path.normpath(given))
        given = given[:-len(CERTIFICATE_SUFFIX)] if given.endswith(CERTIFICATE_SUFFIX) else \
            os.path.splitext(given)[0]
    return f"{given or 'deal'}.svg"


def caption(report):
    """The picture's caption, for people: what the deal is, then what the marks mean."""
    what = f"Deal {report['deal']}" if report["deal"] is not None else "The layout"
    setting = report_rules(report).words()
    if report["claim"] == WIN:
        return [f"{what} ({setting}) can be won, in {report['moves']} single-card moves."]
    lines = [f"{what} ({setting}) cannot be won: {report['summary']}"]
    frozen = report["frozen_count"]
    if frozen:
        lines.append(f"Orange: the {frozen} card{'' if frozen == 1 else 's'} that never move"
                     f"{'s' if frozen == 1 else ''}, whatever is played.")
    c = report["closest"]
    if c is not None:
        card = label(parse(c["card"]))
        how = (f"uncovered in {c['uncovered']:,} positions, every free cell full in "
               + ("all of them" if c["uncovered_cells_full"] == c["uncovered"] else
                  f"{c['uncovered_cells_full']:,}")
               if c["uncovered"] else
               f"never uncovered: always at least {c['fewest_above']} cards above it")
        lines.append(f"Blue \u2191: {card}, the frozen card closest to moving ({how}).")
    return lines


__all__ = ["stuck", "explain", "from_certificate", "searched", "fewest_cells", "run",
           "ExplainError", "Stuck", "Closest"]
