"""How fast the win solver finds wins, and how long its lines are: the C engine
(certify.engine._solver), the Python reference (certify/engine/reference/solver.py), and Freecell Solver.

    python3 benchmarks/bench_solver.py [N] [--first F] [--engine native|python|both]
                                       [--runs R] [--vs-fc-solve] [--rounds R] [--cells K]
                                       [--budget B] [--profile] [--json]
    python3 benchmarks/bench_solver.py --flares [DEAL ...] [--json]

Solves deals F..F+N-1 (default 1..1000) one after another on one core, with each engine, and
prints the CPU time per deal (median, mean, worst), the mean line length in single-card moves
and in notation moves, and the deals given up (proved() would then search them exhaustively).
Every line is replayed under the readable rules (rules.replays_to_win). With both engines
(the default when the extension is built) it also says on how many deals their lines differ:
they must not. (The reference takes some 25 ms a deal: for long ranges, --engine native.)
With --runs R the C engine solves the deals R times and the median of the runs' CPU times is
printed beside the fastest and the slowest (the machine may be shared: one run is noise).
With --vs-fc-solve, Freecell Solver's range solver runs on the same deals in the same run,
`freecell-solver-range-parallel-solve F L 1000 -l lg` (one thread), taking turns with the C
engine R times (--rounds, default 3); the median CPU time of each and the median of the
ratios of the pairs are printed. Pinning the run to one core (taskset -c 1) keeps the two
engines on the same footing.
This script installs nothing; Freecell Solver comes with `apt-get install freecell-solver-bin`.
With --profile, where the Python reference spends its time.
With --flares, the solver's flares (solver.FLARES) on deals its main attempt misses (default:
those below ten million, and the no-win deals 11982 and 7484159, which pay for every flare
before their search): for each deal the C engine's main attempt, then each flare in turn
until one wins, the CPU time of each, and the line's length in single-card and notation moves.
With --json, one JSON object a line per figure instead (benchmarks/report.py).
"""

import argparse
import cProfile
import os
import pstats
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from report import Report, add_json_option, figure  # noqa: E402

from certify.game import deals, notation
from certify.engine.reference import solver  # noqa: E402
from certify.game.rules import Rules, replays_to_win, start  # noqa: E402

try:
    from certify.engine import _solver
except ImportError:  # not built: the reference alone
    _solver = None

FC_SOLVE = "freecell-solver-range-parallel-solve"


# What each engine's timed call is, as a figure's command.
CALLS = {"native": "certify.engine._solver.solve(found, cells, cols, Rules({ncells}), {budget})",
         "python": "certify.engine.reference.solver.solve(position, Rules({ncells}), {budget})"}


def call(engine, rules, budget):
    return CALLS[engine].format(ncells=rules.ncells, budget=budget)


def native_solve(position, rules, budget):
    """The C engine's answer as it gives it: 2 bytes a move, or None."""
    found, cells, cols = position
    return _solver.solve(found, cells, cols, rules, budget)


def native_line(answer):
    return None if answer is None else list(zip(answer[::2], answer[1::2]))


def python_solve(position, rules, budget):
    return solver.solve(position, rules, budget)


# name -> (the solve that is timed, what turns its answer into [(card, dest)] or None)
ENGINES = {"native": (native_solve, native_line), "python": (python_solve, lambda line: line)}


def timed_lines(engine, positions, rules, budget):
    """Each deal's line (or None) and the CPU seconds its solve took (the solve alone)."""
    solve, line_of = ENGINES[engine]
    answers, seconds = [], []
    for position in positions:
        t0 = time.process_time()  # CPU time: the machine may be shared
        answers.append(solve(position, rules, budget))
        seconds.append(time.process_time() - t0)
    return [line_of(a) for a in answers], seconds


def engine_figures(report, name, first, positions, lines, seconds, rules, budget):
    """Print one engine's figures; a line that does not replay stops the benchmark."""
    single, written, gave_up = [], [], []
    for i, (position, line) in enumerate(zip(positions, lines)):
        if line is None:
            gave_up.append(first + i)
            continue
        if not replays_to_win(position, line, rules):
            raise SystemExit(f"{name}: deal {first + i}: the line does not replay to a win")
        single.append(len(line))
        written.append(len(notation.to_notation(position, line, rules.ncells)))
    ms = sorted(t * 1000 for t in seconds)
    slowest = first + max(range(len(seconds)), key=seconds.__getitem__)
    n, solve = len(seconds), call(name, rules, budget)
    span = {"engine": name, "first": first, "last": first + len(positions) - 1}
    report.line(f"  {name:6}  CPU per deal: median {statistics.median(ms):.3f} ms, "
                f"mean {statistics.mean(ms):.3f} ms, worst {ms[-1]:.1f} ms (deal {slowest}); "
                f"total {sum(seconds):.2f} s",
                figure("CPU a deal", statistics.median(ms), "ms", solve, n, **span),
                figure("CPU a deal", statistics.mean(ms), "ms", solve, n, "mean", **span),
                figure("CPU a deal", ms[-1], "ms", solve, n, "max", deal=slowest, **span),
                figure("CPU of all deals", sum(seconds), "s", solve, n, "sum", **span))
    if single:
        won = len(single)
        report.line(f"          lines: mean {statistics.mean(written):.2f} notation moves "
                    f"(median {statistics.median(written):g}, longest {max(written)}), "
                    f"mean {statistics.mean(single):.2f} single-card moves",
                    figure("line length", statistics.mean(written), "notation moves", solve,
                           won, "mean", **span),
                    figure("line length", statistics.median(written), "notation moves", solve,
                           won, **span),
                    figure("line length", max(written), "notation moves", solve, won, "max",
                           **span),
                    figure("line length", statistics.mean(single), "single-card moves", solve,
                           won, "mean", **span))
    report.line(f"          solved {len(single)}, gave up on {len(gave_up)}"
                + (f": {' '.join(map(str, gave_up[:20]))}{' ...' if len(gave_up) > 20 else ''}"
                   if gave_up else ""),
                figure("deals solved", len(single), "deals", solve, **span),
                figure("deals given up", len(gave_up), "deals", solve, given_up=gave_up, **span))


def fc_solve_seconds(first, last):
    """CPU seconds of one run of Freecell Solver's range solver over deals first..last."""
    before = os.times()
    subprocess.run([FC_SOLVE, str(first), str(last), "1000", "-l", "lg"], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = os.times()
    return (after.children_user - before.children_user
            + after.children_system - before.children_system)


def repeated_runs(report, first, positions, rules, budget, runs):
    """The C engine over the deals `runs` times: the median, fastest and slowest ms a deal."""
    totals = sorted(sum(timed_lines("native", positions, rules, budget)[1])
                    for _ in range(runs))
    per_deal = [t / len(positions) * 1000 for t in totals]
    last, solve = first + len(positions) - 1, call("native", rules, budget)
    span = {"engine": "native", "first": first, "last": last}
    report.line(f"  native  {runs} runs over deals {first}..{last}: CPU per deal "
                f"median {statistics.median(per_deal):.4f} ms (fastest {per_deal[0]:.4f}, "
                f"slowest {per_deal[-1]:.4f})",
                figure("CPU a deal, runs over the deals", statistics.median(per_deal), "ms",
                       solve, runs, **span),
                figure("CPU a deal, runs over the deals", per_deal[0], "ms", solve, runs, "best",
                       **span),
                figure("CPU a deal, runs over the deals", per_deal[-1], "ms", solve, runs, "max",
                       **span))


def versus_fc_solve(report, first, positions, rules, budget, rounds):
    """The C engine and Freecell Solver in turns on the same deals: medians and ratios."""
    last = first + len(positions) - 1
    ours, theirs = [], []
    for _ in range(rounds):
        ours.append(sum(timed_lines("native", positions, rules, budget)[1]))
        theirs.append(fc_solve_seconds(first, last))
    if not all(theirs):   # (CPU times come in clock ticks: a few deals can take none)
        raise SystemExit(f"{FC_SOLVE} took no measurable CPU on deals {first}..{last}: "
                         "time more deals")
    ratios = sorted(a / b for a, b in zip(ours, theirs))
    solve, range_solver = call("native", rules, budget), f"{FC_SOLVE} {first} {last} 1000 -l lg"
    span, med, n = {"first": first, "last": last}, statistics.median, len(positions)
    report.text(f"  side by side, deals {first}..{last}, {rounds} rounds in turn, CPU seconds:")
    report.line(f"    certify.engine._solver (in process): median {med(ours):.3f} s "
                f"({med(ours) / n * 1000:.3f} ms a deal)",
                figure("CPU of the deals", med(ours), "s", solve, rounds, versus=range_solver,
                       versus_value=med(theirs), ratio=med(ratios), engine="native", **span),
                figure("CPU a deal", med(ours) / n * 1000, "ms", solve, rounds,
                       engine="native", **span))
    report.line(f"    {range_solver} (whole process): "
                f"median {med(theirs):.3f} s "
                f"({med(theirs) / n * 1000:.3f} ms a deal)",
                figure("CPU of the deals", med(theirs), "s", range_solver, rounds,
                       engine="fc-solve", **span),
                figure("CPU a deal", med(theirs) / n * 1000, "ms", range_solver, rounds,
                       engine="fc-solve", **span))
    pairs = f"{solve} / {range_solver}, round by round"
    report.line(f"    ratio ours / Freecell Solver: median {med(ratios):.2f} "
                f"(min {ratios[0]:.2f}, max {ratios[-1]:.2f})",
                *[figure("CPU ratio ours / Freecell Solver", value, "x", pairs, rounds, statistic,
                         **span)
                  for value, statistic in ((med(ratios), "median"), (ratios[0], "best"),
                                           (ratios[-1], "max"))])


# The winnable deals below ten million the main attempt misses, and two no-win deals.
MISSED = (1341197, 1463800, 2898418, 3867127, 4177272, 4306977, 4380750, 5405189, 6295822,
          6961408, 6987992, 7899699, 7435626)
NO_WIN = (11982, 7484159)


def flares(report, numbers, rules, budget):
    """The main attempt and the flares in turn on each deal: CPU and lines."""
    report.text(f"{len(numbers)} deals, {rules.ncells} free cells: the main attempt (budget "
                f"{budget:,}), then the flares in turn until one wins")
    report.text(f"  {'deal':>8}  {'main s':>7}  {'flares s':>8}  {'won by':>16}  {'moves':>5}  "
                f"{'notation':>8}")
    main_call = call("native", rules, budget)
    flare_call = ("certify.engine._solver.solve(found, cells, cols, Rules(ncells), size, styles) "
                  "for each of solver.FLARES in turn until one wins")
    total = []
    for deal in numbers:
        position = start(deals.deal(deal))
        t0 = time.process_time()
        line = native_line(native_solve(position, rules, budget))
        main = time.process_time() - t0
        won_by, t1 = "main" if line is not None else "nothing", time.process_time()
        for i, (*styles, size) in enumerate(solver.FLARES if line is None else ()):
            found, cells, cols = position
            line = native_line(_solver.solve(found, cells, cols, rules, size,
                                             tuple(styles)))
            if line is not None:
                won_by = f"flare {i} {styles[0][0]}"
                break
        spent = time.process_time() - t1
        total.append(main + spent)
        if line is not None and not replays_to_win(position, line, rules):
            raise SystemExit(f"deal {deal}: the line does not replay to a win")
        written = "" if line is None else len(notation.to_notation(position, line, rules.ncells))
        lengths = [] if line is None else [
            figure("line length", len(line), "single-card moves", main_call, deal=deal,
                   won_by=won_by),
            figure("line length", written, "notation moves", main_call, deal=deal,
                   won_by=won_by)]
        report.line(f"  {deal:>8}  {main:7.3f}  {spent:8.3f}  {won_by:>16}  "
                    f"{'' if line is None else len(line):>5}  {written:>8}",
                    figure("main attempt CPU", main, "s", main_call, deal=deal, won_by=won_by),
                    figure("flares CPU", spent, "s", flare_call, deal=deal, won_by=won_by),
                    *lengths)
    both = f"{main_call}, then the flares"
    report.line(f"  CPU of main attempt and flares: {sum(total):.2f} s in all, "
                f"median {statistics.median(total):.2f} s a deal, worst {max(total):.2f} s",
                figure("main attempt and flares CPU", sum(total), "s", both, len(total), "sum"),
                figure("main attempt and flares CPU", statistics.median(total), "s", both,
                       len(total)),
                figure("main attempt and flares CPU", max(total), "s", both, len(total), "max"))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("n", nargs="?", type=int, default=1000, help="how many deals (default 1000)")
    p.add_argument("--first", type=int, default=1, help="first deal (default 1)")
    p.add_argument("--engine", choices=("native", "python", "both"),
                   default="both" if _solver else "python",
                   help="which solver (default: both when the extension is built)")
    p.add_argument("--runs", type=int, default=1,
                   help="solve the deals this many times with the C engine (default 1)")
    p.add_argument("--vs-fc-solve", action="store_true",
                   help=f"also time {FC_SOLVE} on the same deals, in turn with the C engine")
    p.add_argument("--rounds", type=int, default=3, help="turns for --vs-fc-solve (default 3)")
    p.add_argument("--cells", type=int, default=4, help="free cells (default 4)")
    p.add_argument("--budget", type=int, default=solver.BUDGET,
                   help=f"positions the solver may expand (default {solver.BUDGET:,})")
    p.add_argument("--profile", action="store_true",
                   help="print where the Python reference spends its time")
    p.add_argument("--flares", nargs="*", type=int, metavar="DEAL",
                   help="time the main attempt and the flares on these deals (default: the "
                        "winnable deals below ten million the main attempt misses, and "
                        "11982 and 7484159)")
    add_json_option(p)
    args = p.parse_args()
    report = Report("bench_solver", args.json)
    if args.flares is not None:
        if _solver is None:
            raise SystemExit("certify.engine._solver is not built (pip install -e . builds it)")
        flares(report, args.flares or MISSED + NO_WIN, Rules(args.cells), args.budget)
        return
    if _solver is None and (args.engine != "python" or args.vs_fc_solve or args.runs > 1):
        raise SystemExit("certify.engine._solver is not built (pip install -e . builds it)")
    if args.vs_fc_solve and shutil.which(FC_SOLVE) is None:
        raise SystemExit(f"{FC_SOLVE} not found: apt-get install freecell-solver-bin")
    rules = Rules(args.cells)
    positions = [start(deals.deal(d)) for d in range(args.first, args.first + args.n)]
    report.text(f"deals {args.first}..{args.first + args.n - 1}, {args.cells} free cells, "
                f"budget {args.budget:,} positions")
    names = ["native", "python"] if args.engine == "both" else [args.engine]
    found = {}
    for name in names:
        profile = cProfile.Profile() if args.profile and name == "python" else None
        if profile:
            profile.enable()
        found[name] = timed_lines(name, positions, rules, args.budget)
        if profile:
            profile.disable()
        engine_figures(report, name, args.first, positions, *found[name], rules, args.budget)
        if profile:   # (with --json on stderr, so that stdout holds only figures)
            stream = sys.stderr if args.json else sys.stdout
            pstats.Stats(profile, stream=stream).sort_stats("tottime").print_stats(12)
    if len(found) == 2:
        native_lines, python_lines = found["native"][0], found["python"][0]
        differ = [args.first + i for i, (a, b) in enumerate(zip(native_lines, python_lines))
                  if a != b]
        native_cpu, python_cpu = sum(found["native"][1]), sum(found["python"][1])
        ratio = python_cpu / max(native_cpu, 1e-9)
        span = {"first": args.first, "last": args.first + args.n - 1}
        native_call, python_call = (call(name, rules, args.budget) for name in names)
        report.line(f"  lines differ between the engines on {len(differ)} deals"
                    + (f": {' '.join(map(str, differ[:20]))}" if differ else "")
                    + f"; the C engine takes 1/{ratio:.0f} of the reference's CPU time",
                    figure("deals whose lines differ between the engines", len(differ), "deals",
                           f"{native_call} beside {python_call}", differ=differ, **span),
                    figure("CPU of all deals", native_cpu, "s", native_call, args.n, "sum",
                           versus=python_call, versus_value=python_cpu,
                           ratio=native_cpu / python_cpu if python_cpu else None, **span))
    if args.runs > 1:
        repeated_runs(report, args.first, positions, rules, args.budget, args.runs)
    if args.vs_fc_solve:
        versus_fc_solve(report, args.first, positions, rules, args.budget, args.rounds)


if __name__ == "__main__":
    main()
