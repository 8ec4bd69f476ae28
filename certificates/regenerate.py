"""Regenerate the published certificates and compare their SHA-256 digests; rebuild the index.

    python3 certificates/regenerate.py 11982 146692   regenerate these in a scratch folder and
                                                      compare digests with the published files
    python3 certificates/regenerate.py --all          the same for every deal in deals.txt, and
                                                      every file here for other rules
    python3 certificates/regenerate.py --write --all  (re)write the published files themselves
    python3 certificates/regenerate.py --write --cells 5 11982   a file for other rules
    python3 certificates/regenerate.py --index        rebuild README.md and SHA256SUMS from them
    python3 certificates/regenerate.py --range 1-32000          remake a range certificate (one
                                                      census, certificates/ranges.py), compare
    ... -j N                                          N runs at once (default 2, one per core)

Every file is made by the one command the index shows for it, `certify DEAL -o FILE` with the
file's rules (default: 4 free cells, columns up to permutation, no foundation moves), run as a
subprocess exactly as a reader would run it. The rules of a deal other than the defaults are
spelled out in its file name (published.py's `file_name`), so a file says how to remake it.

Exit status: 0 when every digest matched (or everything was written); 1 when one did not, a
file was missing, a run failed, or a deal under the default rules (the list is of deals that
cannot be won) came out other than no-win; 2 for bad arguments.
"""

import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile
import time

import ranges  # certificates/ranges.py, next to this script
from index import write_index  # certificates/index.py
from published import (DEFAULT_CELLS, HERE, TIMES, certify_args, file_name, parse_name,
                       published_files, read_deals, read_times, sha256_of, write_times)

JOBS = 2  # certify runs at once (each is one process on one core)


def run_certify(deal, cells, foundation_moves, out):
    """Run `certify` in a subprocess; its --json summary plus the wall time."""
    code = "import sys; from certify.commands.cli import main; sys.exit(main())"
    argv = [sys.executable, "-c", code] + certify_args(deal, cells, foundation_moves) + \
        ["-o", out, "--json"]
    t0 = time.monotonic()
    done = subprocess.run(argv, capture_output=True, text=True)
    wall = time.monotonic() - t0
    if done.returncode not in (0, 3):
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        return {"deal": deal, "claim": "error", "reason": last, "wall": wall}
    summary = json.loads(done.stdout)
    summary["wall"] = wall
    return summary


def in_parallel(work, items, jobs):
    """work(item) for each item, `jobs` at a time; the results in the order of the items."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        yield from pool.map(work, items)


def write_all(targets, folder=HERE, log=print, jobs=JOBS):
    """Write each (deal, cells, fm) file into the folder; record what each run took.

    Counts as bad (exit 1) any deal of the default rules that is not a no-win: the list is of
    deals that cannot be won, so a win or an unknown there must be looked at.
    """
    times = os.path.join(folder, os.path.basename(TIMES))
    rows = read_times(times)
    bad = 0

    def run(target):
        deal, cells, fm = target
        return target, run_certify(deal, cells, fm, os.path.join(folder, file_name(*target)))

    for (deal, cells, fm), s in in_parallel(run, targets, jobs):
        name = file_name(deal, cells, fm)
        default = (cells, fm) == (DEFAULT_CELLS, False)
        if s["claim"] not in ("win", "no-win") or (default and s["claim"] != "no-win"):
            bad += 1
        if s["claim"] in ("win", "no-win"):
            rows[name] = (s["claim"], s["positions"], s["wall"], s["bytes"])
            write_times(rows, times)
        log(f"{name}\t{s['claim']}\t{s.get('positions')}\t{s['wall']:.1f} s\t"
            f"{s.get('bytes')} bytes\t{s.get('reason') or ''}")
    return bad


def compare_all(targets, folder=HERE, log=print, jobs=JOBS):
    """Regenerate each file in a scratch folder; compare its digest with the published one."""
    bad = 0
    with tempfile.TemporaryDirectory() as scratch:
        def run(target):
            name = file_name(*target)
            published = os.path.join(folder, name)
            if not os.path.exists(published):
                return name, None, False
            fresh = os.path.join(scratch, name)
            s = run_certify(*target, fresh)
            same = s["claim"] in ("win", "no-win") and sha256_of(fresh) == sha256_of(published)
            if os.path.exists(fresh):
                os.unlink(fresh)
            return name, s, same

        for name, s, same in in_parallel(run, targets, jobs):
            if s is None:
                log(f"{name}\tMISSING from certificates/")
                bad += 1
                continue
            bad += not same
            log(f"{name}\t{'same' if same else 'DIFFERENT'}\t{s['claim']}\t{s['wall']:.1f} s")
    return bad


def all_targets(folder=HERE):
    """Every deal in deals.txt under the default rules, and every other file in the folder."""
    listed = {(d, DEFAULT_CELLS, False) for d in read_deals()}
    return sorted(listed | {parse_name(n) for n in published_files(folder)})


def main(argv=None):
    p = argparse.ArgumentParser(prog="regenerate.py", description=__doc__.split("\n")[0])
    p.add_argument("deals", nargs="*", type=int, help="deal numbers (default rules)")
    p.add_argument("--all", action="store_true",
                   help="every deal in certificates/deals.txt, and every file for other rules")
    p.add_argument("--cells", type=int, default=DEFAULT_CELLS, choices=range(9), metavar="N",
                   help="free cells for the deals named (default 4)")
    p.add_argument("--foundation-moves", action="store_true",
                   help="the foundation-moves variant for the deals named")
    p.add_argument("--write", action="store_true",
                   help="write the published files instead of comparing digests")
    p.add_argument("--range", action="append", default=[], metavar="A-B",
                   help="the range certificate A-B.msgpack.zst (certify A-B, with --cells and "
                        "--foundation-moves as given): compare, or with --write write it")
    p.add_argument("--index", action="store_true",
                   help="rebuild README.md and SHA256SUMS from the files in certificates/")
    p.add_argument("-j", "--jobs", type=int, default=JOBS, metavar="N",
                   help=f"certify runs at once (default {JOBS})")
    p.add_argument("--folder", default=HERE,
                   help="where the files are (default: this script's folder, certificates/)")
    args = p.parse_args(argv)
    if not os.path.isdir(args.folder):
        p.error(f"no such folder: {args.folder}")
    if args.all and args.deals:
        p.error("name deals or give --all, not both")
    if args.all:
        targets = all_targets(args.folder)
    else:
        targets = [(d, args.cells, args.foundation_moves) for d in args.deals]
    try:
        spans = [ranges.parse_range(r) + (args.cells, args.foundation_moves) for r in args.range]
    except ValueError as e:
        p.error(str(e))
    if not targets and not spans and not args.index:
        p.error("name deals, or --all, or --range A-B, or --index")
    bad = 0
    if targets:
        work = write_all if args.write else compare_all
        bad = work(targets, args.folder, jobs=args.jobs)
    for span in spans:  # certificates/ranges.py: one census per range certificate
        bad += ranges.regenerate(span, args.folder, args.write)
    if args.index:
        write_index(args.folder, published_files(args.folder),
                    read_times(os.path.join(args.folder, os.path.basename(TIMES))), read_deals())
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
