"""Benchmark the compiled move generator (certify/engine/successors.h) by instructions counted.

    python benchmarks/bench_generator.py [--deal 7484159] [--disk-deal 11982]
                                         [--tree DIR ...] [--only memory|disk|census]
                                         [--closure autoplay|every-move]
    python benchmarks/bench_generator.py --only census --census 1-500 [--census-cells 1]
    ... --json                           one JSON object a line per figure

Counts instructions with valgrind's callgrind, which, unlike a clock, gives the same figure
run after run on a shared machine, so that a change of a fraction of a percent can be seen.
Each tree is a checkout with its C extensions built in place (`python setup.py build_ext
--inplace`; default: this one), run with PYTHONPATH set to it, one process a case:

    memory   engine.search(start(deal(D)), Rules(4, autoplay=A)): `Search_run`'s instructions
             (inclusive: what it calls counts), the search in memory (search.c)
    disk     on_disk.DiskSearch(start(deal(D)), Rules(4, autoplay=A), Disk(FOLDER), 64 MiB,
             narrow=65536).run(): `Expander_explore` and `Expander_expand`, the search on disk's
             loops that call the generator (external.c)
    census   `certify A-B -j 1 -q --out DIR --cells N` (-j 1: in this process): the whole
             process, and of it `solve_deal` (the solver, which proves the census's wins) and
             `Search_run` (the no-wins' searches: none in 1-500 with 4 cells, 382 with 1)

each with autoplay (the default closure) and with every move (autoplay off). With more than
one tree, each figure is also given as a change against the first tree's. Without valgrind
it says so and exits 0: nothing is measured.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from report import Report, add_json_option, figure

ROOT = Path(__file__).resolve().parent.parent

MEMORY = ("from certify import engine; from certify.game.deals import deal; "
          "from certify.game.rules import Rules, start; "
          "o = engine.search(start(deal({deal})), Rules(4, autoplay={autoplay})); "
          "print(o.verdict, o.positions)")
DISK = ("from certify.engine import on_disk, work_folder; from certify.game.deals import deal; "
        "from certify.game.rules import Rules, start; "
        "o = on_disk.DiskSearch(start(deal({deal})), Rules(4, autoplay={autoplay}), "
        "work_folder.Disk({folder!r}), 64 << 20, 1 << 16).run(); print(o.verdict, o.positions)")
CENSUS = "import sys; from certify.commands.cli import main; sys.exit(main(sys.argv[1:]))"


def callgrind(argv, tree, collect, scratch):
    """Run argv under callgrind with PYTHONPATH=tree: (instructions within each function of
    `collect`, inclusive, as a dict; the whole process's; the command's output)."""
    out = os.path.join(scratch, "callgrind.out")
    env = dict(os.environ, PYTHONPATH=str(tree))
    done = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                           *argv], env=env, capture_output=True, text=True, cwd=scratch)
    if done.returncode != 0:
        raise SystemExit(f"bench_generator: {' '.join(argv)} failed in {tree}:\n"
                         f"{done.stderr[-2000:]}")
    whole = totals(out)
    # Inclusive counts from one run's profile, rather than a run per function under
    # --toggle-collect: the same figure, for one run's cost.
    annotated = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", out],
                               capture_output=True, text=True, check=True).stdout
    inside = {name: function_total(annotated, name) for name in collect}
    os.remove(out)
    return inside, whole, done.stdout.strip()


def totals(path):
    with open(path) as f:
        for line in f:
            if line.startswith("totals:") or line.startswith("summary:"):
                return int(line.split()[1])
    raise SystemExit(f"bench_generator: no totals in {path}")


def function_total(annotated, name):
    """The inclusive count of function `name` in callgrind_annotate's listing (0 if absent:
    the run never called it)."""
    pattern = re.compile(r"^\s*([\d,]+)\s+\(.*?\)\s+\S*:" + re.escape(name) + r"\b"
                         r"|^\s*([\d,]+)\s+\S*:" + re.escape(name) + r"\b"
                         r"|^\s*([\d,]+)\s+\(.*?\)\s+" + re.escape(name) + r"\b"
                         r"|^\s*([\d,]+)\s+" + re.escape(name) + r"\b")
    for line in annotated.splitlines():
        m = pattern.match(line)
        if m:
            return int(next(g for g in m.groups() if g).replace(",", ""))
    return 0


def cases(args):
    """(case name, argv, functions, label) for each measured run."""
    made = []
    for autoplay in (True, False):
        if args.closure and args.closure != ("autoplay" if autoplay else "every-move"):
            continue
        closure = "autoplay" if autoplay else "every move"
        if args.only in (None, "memory"):
            code = MEMORY.format(deal=args.deal, autoplay=autoplay)
            made.append((f"in memory, deal {args.deal}, {closure}", [sys.executable, "-c", code],
                         ["Search_run"], code))
        if args.only in (None, "disk"):
            code = DISK.format(deal=args.disk_deal, autoplay=autoplay, folder="work")
            made.append((f"on disk, deal {args.disk_deal}, {closure}",
                         [sys.executable, "-c", code],
                         ["Expander_explore", "Expander_expand"], code))
        if args.only in (None, "census"):
            flags = [] if autoplay else ["--no-autoplay"]
            argv = [args.census, "-j", "1", "-q", "--out", "census", "--cells",
                    str(args.census_cells), *flags]
            made.append((f"census {args.census}, {args.census_cells} cells, {closure}",
                         [sys.executable, "-c", CENSUS, *argv], ["solve_deal", "Search_run"],
                         "certify " + " ".join(argv)))
    return made


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--deal", type=int, default=7484159, help="in memory (default 7484159)")
    p.add_argument("--disk-deal", type=int, default=11982, help="on disk (default 11982)")
    p.add_argument("--census", default="1-500", help="census range (default 1-500)")
    p.add_argument("--census-cells", type=int, default=4,
                   help="the census's free cells (default 4; with fewer, more deals are "
                        "no-wins, searched exhaustively)")
    p.add_argument("--closure", choices=("autoplay", "every-move"), help="one closure only")
    p.add_argument("--tree", action="append", type=Path,
                   help="a checkout with its extensions built in place (repeat; default: this)")
    p.add_argument("--only", choices=("memory", "disk", "census"), help="one kind of case")
    add_json_option(p)
    args = p.parse_args()
    report = Report("bench_generator", args.json)
    if shutil.which("valgrind") is None or shutil.which("callgrind_annotate") is None:
        print("bench_generator: needs valgrind (callgrind and callgrind_annotate); "
              "nothing measured")
        return 0
    trees = [t.resolve() for t in (args.tree or [ROOT])]
    for case, argv, functions, command in cases(args):
        first = None
        for tree in trees:
            scratch = tempfile.mkdtemp(prefix="bench-generator-")
            try:
                inside, whole, said = callgrind(argv, tree, functions, scratch)
            finally:
                shutil.rmtree(scratch, ignore_errors=True)
            counts = [sum(inside.values()), whole]
            changes = ("" if first is None else
                       " (" + ", ".join(f"{(c - b) / b:+.2%}" for c, b in zip(counts, first)
                                       if b) + ")")
            first = first or counts
            about = dict(case=case, tree=str(tree), output=said)
            parts = ", ".join(f"{name} {n:,}" for name, n in inside.items())
            report.line(f"{case} [{tree.name}]: {parts}; whole process {whole:,}{changes}",
                        figure("instructions in " + " + ".join(functions), counts[0],
                               "instructions", command, **about),
                        figure("instructions, whole process", whole, "instructions", command,
                               **about))
    return 0


if __name__ == "__main__":
    sys.exit(main())
