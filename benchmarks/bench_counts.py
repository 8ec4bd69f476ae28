"""Benchmark: our position counts beside Freecell Solver's, deal by deal, in one run.

    python benchmarks/bench_counts.py [--all] [--json]

For each unwinnable row of tests/data/position-counts.tsv with columns up to order and no
foundation moves (the rules fc-solve plays; --all: every such row, else those of at most 100,000
positions), prints:

- plain: our count of every position reachable, and fc-solve's atomic scan's
  (`fc-solve -to 01ABCDE -sel --freecells-num N`): equal, or the row says so;
- autoplay: our closure under every move then safe moves home (what a certificate holds by
  default), our count of the same closure with the prune made when a position is expanded, not
  when it is made (every position a move makes is kept, and a position with a safe card has one
  successor: it with every safe card home), and fc-solve's atomic scan with Horne's prune
  (`--set-pruning r:tf`), which prunes that way. The last two must be equal; the difference
  between the first two is the positions a move makes before its safe moves home.

Installs nothing: fc-solve comes from Debian (`apt-get install freecell-solver-bin`); without it
only our counts are printed.
"""

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from report import Report, add_json_option, figure  # noqa: E402
from support.position_counts import COUNTS  # noqa: E402

from certify import engine  # noqa: E402
from certify.game.board import write_board  # noqa: E402
from certify.game.deals import deal  # noqa: E402
from certify.game.rules import Rules, autoplay, encode, moves, start  # noqa: E402

FC_SOLVE = "fc-solve"


def pruned_on_expansion(position, ncells):
    """The count of Freecell Solver's atomic scan with Horne's prune, by our rules: every
    position a move makes is kept; one that has a safe card has for its only successor the
    position with every safe card home."""
    seen = {encode(position, ncells)}
    todo = [position]
    while todo:
        p = todo.pop()
        settled, homed = autoplay(p)
        nexts = [settled] if homed else [after for _, _, after in moves(p, Rules(ncells))]
        for q in nexts:
            k = encode(q, ncells)
            if k not in seen:
                seen.add(k)
                todo.append(q)
    return len(seen)


def fc_count(board, ncells, prune):
    argv = [FC_SOLVE, "-to", "01ABCDE", "-sel", "--freecells-num", str(ncells)]
    argv += ["--set-pruning", "r:tf"] if prune else []
    out = subprocess.run(argv + [board], capture_output=True, text=True, check=True).stdout
    return int(re.search(r"This scan generated (\d+) states", out).group(1))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--all", action="store_true", help="every row, the largest too")
    add_json_option(p)
    args = p.parse_args()
    report = Report("bench_counts", args.json)
    have_fc = shutil.which(FC_SOLVE) is not None
    if not have_fc:
        report.text("no fc-solve here (apt-get install freecell-solver-bin): our counts only")
    plain = {row[:4]: row[5] for row in COUNTS if row[4] == "moves"}
    rows = [row for row in COUNTS if row[4] == "autoplay" and row[3] == "columns"
            and (args.all or plain[row[:4]] <= 100_000)]
    agree = 0
    with tempfile.TemporaryDirectory() as tmp:
        for n, cells, _, _, _, closure in rows:
            position = start(deal(n))
            ours = plain[(n, cells, False, "columns")]
            assert engine.search(position, Rules(cells, autoplay=True)).positions == closure
            expanded = pruned_on_expansion(position, cells)
            line = (f"deal {n:>8} cells {cells}: plain {ours:>9,}  autoplay {closure:>9,}  "
                    f"pruned on expansion {expanded:>9,}")
            fields = dict(deal=n, cells=cells, plain=ours, autoplay=closure, expanded=expanded)
            if have_fc:
                board = Path(tmp) / f"{n}.board"
                board.write_text(write_board(position))
                theirs, pruned = fc_count(str(board), cells, False), fc_count(str(board), cells, True)
                same = theirs == ours and pruned == expanded
                agree += same
                line += f"   fc-solve {theirs:>9,} / r:tf {pruned:>9,}  {'equal' if same else 'DIFFERENT'}"
                fields.update(fc_plain=theirs, fc_pruned=pruned)
            report.line(line, figure(f"counts of deal {n}, {cells} cells", closure, "positions",
                                     "engine.search autoplay", 1, **fields))
    if have_fc:
        report.text(f"{agree} of {len(rows)} rows equal to fc-solve's counts, both ways")


if __name__ == "__main__":
    main()
