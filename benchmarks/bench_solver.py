"""How fast the solver (certify/solver.py) finds wins, and how long its lines are.

    python3 benchmarks/bench_solver.py [N] [--first F] [--cells K] [--budget B] [--profile]

Solves deals F..F+N-1 (default 1..1000) one after another on one core and prints the time per
deal (median, mean, 90th percentile, worst), the mean line length in single-card moves and in
notation moves, and the deals the solver gave up on (prove() would then search them
exhaustively). Each line is replayed by the readable rules (prove.replays_to_win). With
--profile, the functions that take the time.
"""

import argparse
import cProfile
import pstats
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from certify import deals, notation, solver  # noqa: E402
from certify.prove import replays_to_win  # noqa: E402
from certify.rules import Rules, start  # noqa: E402


def bench(first, n, rules, budget):
    times, single, written, gave_up = [], [], [], []
    for deal in range(first, first + n):
        position = start(deals.deal(deal))
        t0 = time.process_time()  # CPU time: the machine may be shared
        line = solver.solve(position, rules, budget)
        times.append(time.process_time() - t0)
        if line is None:
            gave_up.append(deal)
            continue
        if not replays_to_win(position, line, rules):
            raise SystemExit(f"deal {deal}: the solver's line does not replay to a win")
        single.append(len(line))
        written.append(len(notation.to_notation(position, line, rules.ncells)))
    return times, single, written, gave_up


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("n", nargs="?", type=int, default=1000, help="how many deals (default 1000)")
    p.add_argument("--first", type=int, default=1, help="first deal (default 1)")
    p.add_argument("--cells", type=int, default=4, help="free cells (default 4)")
    p.add_argument("--budget", type=int, default=solver.BUDGET,
                   help=f"positions the solver may expand (default {solver.BUDGET:,})")
    p.add_argument("--profile", action="store_true", help="also print where the time goes")
    args = p.parse_args()
    rules = Rules(args.cells)
    profile = cProfile.Profile() if args.profile else None
    t0, cpu0 = time.perf_counter(), time.process_time()
    if profile:
        profile.enable()
    times, single, written, gave_up = bench(args.first, args.n, rules, args.budget)
    if profile:
        profile.disable()
    wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    ms = sorted(t * 1000 for t in times)
    print(f"deals {args.first}..{args.first + args.n - 1}, {args.cells} free cells, "
          f"budget {args.budget:,} positions")
    slowest = args.first + max(range(len(times)), key=times.__getitem__)
    print(f"  CPU time per deal: median {statistics.median(ms):.1f} ms, "
          f"mean {statistics.mean(ms):.1f} ms, 90% {ms[int(0.9 * (len(ms) - 1))]:.1f} ms, "
          f"worst {ms[-1]:.0f} ms (deal {slowest})")
    if single:
        print(f"  line length: mean {statistics.mean(single):.1f} single-card moves, "
              f"{statistics.mean(written):.1f} notation moves "
              f"(notation: median {statistics.median(written):g}, longest {max(written)})")
    print(f"  solved {len(single)}, gave up on {len(gave_up)}"
          + (f": {' '.join(map(str, gave_up[:20]))}{' ...' if len(gave_up) > 20 else ''}"
             if gave_up else ""))
    print(f"  total {cpu:.1f} s CPU, {wall:.1f} s wall (with replaying and notation); "
          f"{len(times) / cpu:.1f} deals per CPU second")
    if profile:
        pstats.Stats(profile).sort_stats("tottime").print_stats(12)


if __name__ == "__main__":
    main()
