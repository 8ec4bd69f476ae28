"""Export each published no-win certificate as a Coq proof, compile it, and record the result.

    python3 certificates/prove_coq.py --all           every deal in deals.txt not yet recorded
                                                      (or recorded for another certificate)
    python3 certificates/prove_coq.py 11982 146692     these deals (again, if recorded)
    python3 certificates/prove_coq.py --all --redo     every deal, recorded or not

One deal at a time, smallest certificate first: `certify export --coq` writes the .v file into
a scratch folder (--work; the files are not kept, they can be remade), then coqc compiles it
under `nice`, and the CPU time (user + system) and peak resident memory of coqc are read from
the operating system's accounting of the finished child (os.wait4). Each result is written
into coq-results.tsv as soon as it is known, so an interrupted run loses at most the deal it
was on and picks up where it stopped when run again. certificates/index.py reads the table for
the Coq column of certificates/README.md.

A deal is "proved" when coqc exits 0 and prints "Closed under the global context" for its
theorem; anything else is recorded with what went wrong (exit status, a time limit, the last
line coqc printed). Two deals have targets for coqc (TARGETS); a proof that misses its
target says so in its result ("proved, over its target: ..."). Each row names the certificate
it was proved from (its SHA-256), and --all proves again a deal whose certificate has changed
since. Exit status 0 when every deal asked for was proved, 1 otherwise, 2 for bad
arguments.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import published  # noqa: E402  (certificates/published.py: the deal list and file names)

RESULTS = os.path.join(HERE, "coq-results.tsv")
COLUMNS = ["deal", "positions", "method", "result", "cpu_seconds", "peak_mb", "wall_seconds",
           "v_bytes", "v_sha256", "coqc", "certificate_sha256"]
# The targets for coqc: deal -> (CPU seconds, peak MB), at most.
TARGETS = {11982: (15, 600), 7484159: (20 * 60, 8 * 1024)}
HEAD = ("# The Coq proofs of the published no-win certificates: certificates/prove_coq.py "
        "(nice -n 19 python3 certificates/prove_coq.py --all).\n"
        "# cpu_seconds: coqc's user + system time; peak_mb: its peak resident memory; both from "
        "the operating system's accounting of the finished coqc (os.wait4), on the machine "
        "that ran it (2 shared cores).\n")


def read_results(path=RESULTS):
    """{deal: row dict} from the results table (missing file: empty)."""
    rows = [dict.fromkeys(COLUMNS, "") | dict(zip(COLUMNS, fields))
            for fields in published.read_table(path) if fields[0] != "deal"]
    return {int(row["deal"]): row for row in rows}


def write_results(rows, path=RESULTS):
    from certify.output import write_atomic
    lines = [HEAD, "\t".join(COLUMNS) + "\n"]
    lines += ["\t".join(str(rows[d].get(c, "")) for c in COLUMNS) + "\n" for d in sorted(rows)]
    write_atomic(path, "".join(lines).encode())


def coq_version():
    done = subprocess.run(["coqc", "--version"], capture_output=True, text=True)
    match = re.search(r"version (\S+)", done.stdout)
    return match.group(1) if match else "?"


def export(cert, out, method):
    """Run `certify export --coq` in a subprocess; (ok, message, positions up to column order)."""
    code = "import sys; from certify.commands.cli import main; sys.exit(main())"
    done = subprocess.run([sys.executable, "-c", code, "export", "--coq", cert, "-o", out,
                           "--method", method], capture_output=True, text=True)
    if done.returncode != 0:
        return False, (done.stderr.strip().splitlines() or ["no message"])[-1], None
    count = re.search(r"([\d,]+) up to column order", done.stdout)
    return True, "", int(count.group(1).replace(",", "")) if count else None


def compile_coq(path, time_limit, niceness):
    """coqc on `path` in its folder: (exit status, stdout, CPU s, peak MB, wall s, timed out)."""
    t0 = time.monotonic()
    log = tempfile.TemporaryFile()
    child = subprocess.Popen(["nice", "-n", str(niceness), "coqc", os.path.basename(path)],
                             cwd=os.path.dirname(path), stdout=log, stderr=subprocess.STDOUT)
    timed_out = False
    while True:
        pid, status, usage = os.wait4(child.pid, os.WNOHANG)
        if pid:
            break
        if time_limit and time.monotonic() - t0 > time_limit:
            child.kill()
            pid, status, usage = os.wait4(child.pid, 0)
            timed_out = True
            break
        time.sleep(0.5)
    child.returncode = os.waitstatus_to_exitcode(status)
    wall = time.monotonic() - t0
    log.seek(0)
    output = log.read().decode("utf-8", "replace")
    log.close()
    cpu = usage.ru_utime + usage.ru_stime
    return child.returncode, output, cpu, usage.ru_maxrss / 1024, wall, timed_out


def prove(deal, work, method, time_limit, niceness, log):
    name = published.file_name(deal)
    cert = os.path.join(HERE, name)
    row = {"deal": deal, "positions": "", "method": method, "result": "", "cpu_seconds": "",
           "peak_mb": "", "wall_seconds": "", "v_bytes": "", "v_sha256": "",
           "coqc": coq_version(), "certificate_sha256": ""}
    if not os.path.exists(cert):
        row["result"] = "no certificate"
        return row
    row["certificate_sha256"] = published.sha256_of(cert)
    out = os.path.join(work, f"FreeCell{deal}.v")
    ok, message, count = export(cert, out, method)
    if not ok:
        row["result"] = f"export failed: {message}"
        return row
    row["positions"] = count
    row["v_bytes"] = os.path.getsize(out)
    row["v_sha256"] = published.sha256_of(out)
    log(f"{deal}: {count:,} positions, coqc {os.path.basename(out)} ...")
    code, output, cpu, peak, wall, timed_out = compile_coq(out, time_limit, niceness)
    row.update(cpu_seconds=f"{cpu:.1f}", peak_mb=f"{peak:.0f}", wall_seconds=f"{wall:.1f}")
    if timed_out:
        row["result"] = f"stopped after {time_limit} s"
    elif code == 0 and "Closed under the global context" in output:
        row["result"] = "proved" + over_target(deal, cpu, peak)
    else:
        last = [line for line in output.strip().splitlines() if line.strip()][-1:] or [""]
        row["result"] = f"failed (exit {code}): {last[0][:200]}"
    for suffix in (".v", ".vo", ".vok", ".vos", ".glob"):
        path = out[:-2] + suffix
        if os.path.exists(path):
            os.unlink(path)
    aux = os.path.join(work, f".FreeCell{deal}.aux")
    if os.path.exists(aux):
        os.unlink(aux)
    return row


def over_target(deal, cpu, peak_mb):
    """', over its target: ...' when a deal with a target in TARGETS misses it, else ''."""
    if deal not in TARGETS:
        return ""
    most_cpu, most_mb = TARGETS[deal]
    missed = ([f"{cpu:.1f} s CPU > {most_cpu} s"] if cpu > most_cpu else []) + \
        ([f"{peak_mb:.0f} MB > {most_mb} MB"] if peak_mb > most_mb else [])
    return f", over its target: {', '.join(missed)}" if missed else ""


def stale(deal, row, method):
    """Whether a recorded row is not a result for today's certificate of `deal` by `method`."""
    path = os.path.join(HERE, published.file_name(deal))
    current = published.sha256_of(path) if os.path.exists(path) else ""
    return row["method"] != method or row["certificate_sha256"] != current


def certificate_size(deal):
    path = os.path.join(HERE, published.file_name(deal))
    return os.path.getsize(path) if os.path.exists(path) else 0


def main(argv=None):
    p = argparse.ArgumentParser(prog="prove_coq.py", description=__doc__.split("\n")[0])
    p.add_argument("deals", nargs="*", type=int, help="deal numbers (default rules)")
    p.add_argument("--all", action="store_true", help="every deal in certificates/deals.txt")
    p.add_argument("--redo", action="store_true", help="with --all: also the deals recorded")
    p.add_argument("--method", choices=("search", "data"), default="search",
                   help="certify export --coq --method (default search)")
    p.add_argument("--work", help="scratch folder for the .v files (default: a new temporary one)")
    p.add_argument("--time-limit", type=float, default=4 * 3600, metavar="SECONDS",
                   help="stop coqc after this long, wall clock (default 4 hours; 0: none)")
    p.add_argument("--nice", type=int, default=19, help="niceness of coqc (default 19)")
    p.add_argument("--results", default=RESULTS, help="the table (default certificates/"
                   "coq-results.tsv)")
    args = p.parse_args(argv)
    if args.all == bool(args.deals):
        p.error("name deals, or give --all")
    if not shutil.which("coqc"):
        p.error("coqc is not installed (Debian: apt-get install coq)")
    if args.work and not os.path.isdir(args.work):
        p.error(f"no such folder: {args.work}")
    rows = read_results(args.results)
    if args.all:
        deals = [d for d in published.read_deals() if args.redo or d not in rows
                 or stale(d, rows[d], args.method)]
        deals.sort(key=lambda d: (certificate_size(d), d))
    else:
        deals = args.deals
    work = args.work or tempfile.mkdtemp(prefix="prove-coq-")
    log = lambda text: print(text, flush=True)  # noqa: E731
    log(f"prove_coq: {len(deals)} deal(s), method {args.method}, work in {work}")
    failed = 0
    try:
        for k, deal in enumerate(deals, 1):
            row = prove(deal, work, args.method, args.time_limit, args.nice, log)
            failed += row["result"] != "proved"
            rows[deal] = row
            write_results(rows, args.results)
            log(f"[{k}/{len(deals)}] {deal}: {row['result']}, {row['cpu_seconds'] or '-'} s CPU, "
                f"{row['peak_mb'] or '-'} MB")
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
