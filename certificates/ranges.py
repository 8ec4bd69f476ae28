"""The published range certificates (certify A-B): their names, commands and index section.

A range certificate here is named as the census names it, `A-B.msgpack.zst` with the rules
other than the defaults after it (`1-32000-cells3.msgpack.zst`), and is remade byte for byte
by one census command (`command_line`), whose working folder is a scratch folder of its own.
regenerate.py uses this module for `--range A-B`, index.py for the README section; everything
in the section is read back from the files themselves but the seconds, which come from
generation-times.tsv like those of the single certificates.
"""

import os
import re

from certify.format import ranges
from certify.format.names import range_name
from certify.game.rules import Rules
from published import DEFAULT_CELLS, SUFFIX, TIMES, read_table, read_times, sha256_of, write_times

NAME = re.compile(r"^([0-9]+)-([0-9]+)(?:-cells([0-8]))?(-fm)?" + re.escape(SUFFIX) + "$")
JOBS = 2


def file_name(first, last, cells=DEFAULT_CELLS, foundation_moves=False):
    """'1-32000.msgpack.zst', '1-32000-cells3-fm.msgpack.zst': as the census names it."""
    return range_name(first, last, Rules(cells, False, foundation_moves))


def parse_name(name):
    """(first, last, cells, foundation_moves) from a name made by file_name, or None."""
    m = NAME.match(name)
    if not m:
        return None
    parsed = int(m[1]), int(m[2]), int(m[3] or DEFAULT_CELLS), bool(m[4])
    return parsed if file_name(*parsed) == name and parsed[0] <= parsed[1] else None


def parse_range(text):
    m = re.match(r"^([0-9]+)-([0-9]+)$", text)
    if not m or not 1 <= int(m[1]) <= int(m[2]):
        raise ValueError(f"not a range of deals: {text!r} (write A-B)")
    return int(m[1]), int(m[2])


def certify_args(first, last, cells, foundation_moves, out, work):
    """The arguments of `certify` that make the file `out`, working in the folder `work`."""
    args = [f"{first}-{last}", "-j", str(JOBS), "--out", work, "-o", out]
    if cells != DEFAULT_CELLS:
        args += ["--cells", str(cells)]
    if foundation_moves:
        args.append("--foundation-moves")
    return args


def command_line(first, last, cells=DEFAULT_CELLS, foundation_moves=False):
    """The command, run from the repository root, that regenerates the file byte for byte."""
    name = file_name(first, last, cells, foundation_moves)
    work = "census-" + name[:-len(SUFFIX)]
    return " ".join(["certify"] + certify_args(first, last, cells, foundation_moves,
                                               "certificates/" + name, work))


def published(folder):
    return sorted((n for n in os.listdir(folder) if parse_name(n)), key=parse_name)


def facts(folder, file):
    """One row of the section, read from the range certificate itself."""
    path = os.path.join(folder, file)
    head, entries = ranges.read(path)
    no_win, positions, moves = [], 0, 0
    for deal, claim, count, _ in entries:
        if claim == "no-win":
            no_win.append(deal)
            positions += count
        else:
            moves += count
    first, last, cells, fm = parse_name(file)
    if (head["first"], head["last"], head["cells"], head["foundation_moves"],
            head["symmetry"]) != (first, last, cells, fm, "columns"):
        raise ValueError(f"{file}: its header does not say what its name does")
    return {"file": file, "first": first, "last": last, "cells": cells, "fm": fm,
            "no_win": no_win, "positions": positions, "moves": moves,
            "bytes": os.path.getsize(path), "sha256": sha256_of(path),
            "command": command_line(first, last, cells, fm)}


def no_win_text(deals, most=20):
    if not deals:
        return "none"
    more = ", …" if len(deals) > most else ""
    return f"{len(deals):,}: " + ", ".join(map(str, deals[:most])) + more


def section(rows, times):
    """The README's section on the range certificates, as lines."""
    if not rows:
        return []
    lines = ["", "## Range certificates: one file for a census", "",
             "Each of these is one range certificate (docs/certificate-format.md, section 6): "
             "for every deal of its range, in order, the win line or the complete no-win "
             "certificate. `check FILE` verifies every entry; `certify extract FILE DEAL` "
             "writes one deal's own certificate, byte for byte what `certify DEAL` writes. "
             "The command remakes the file byte for byte (its folder `census-…` holds the "
             "census's chunk files and results table; rerun it to resume after an "
             "interruption); *seconds* is its wall time on the machine that wrote the file.",
             "",
             "| file | deals | cells | fm | cannot be won | positions in those | moves in the "
             "wins | bytes | seconds | SHA-256 | regenerate (from the repository root) |",
             "|---|---:|---:|:-:|---|---:|---:|---:|---:|---|---|"]
    for r in rows:
        seconds = times.get(r["file"], (None, None, None))[2]
        lines.append("| " + " | ".join([
            f"`{r['file']}`", f"{r['first']:,}..{r['last']:,}", str(r["cells"]),
            "yes" if r["fm"] else "no",
            no_win_text(r["no_win"]),
            f"{r['positions']:,}", f"{r['moves']:,}", f"{r['bytes']:,}",
            f"{seconds:.0f}" if seconds is not None else "–",
            f"`{r['sha256']}`", f"`{r['command']}`"]) + " |")
    return lines


# Ranges whose certificate is too large to commit (over 50 MB): the run that made it, one row each,
# written by hand from the census's --json summary and the checkers' (`check`, `vcheck`), in
# large-ranges.tsv.
LARGE = "large-ranges.tsv"
LARGE_COLUMNS = ("file", "deals", "cannot_be_won", "bytes", "sha256", "census_wall_s", "census_cpu_s",
                 "peak_mb", "check_wall_s", "check_cpu_s", "vcheck_wall_s", "vcheck_cpu_s", "when",
                 "command")


def large_runs(folder):
    """The rows of large-ranges.tsv (lines starting with # are comments), as dicts."""
    if not (lines := read_table(os.path.join(folder, LARGE))):
        return []
    if tuple(lines[0]) != LARGE_COLUMNS or any(len(row) != len(LARGE_COLUMNS) for row in lines):
        raise ValueError(f"{LARGE}: not the columns {', '.join(LARGE_COLUMNS)}")
    return [dict(zip(LARGE_COLUMNS, row)) for row in lines[1:]]


def large_section(rows):
    """The README's section on range certificates made but not committed, as lines."""
    if not rows:
        return []
    lines = ["", "## Range certificates too large to commit", "",
             "These files are larger than 50 MB, so they are not in the repository; the command "
             "remakes each one byte for byte (check its SHA-256 against this table), and `check` "
             "verifies it in one run, as does `vcheck` (the checker proved in Coq, vcheck/) where "
             "its columns have figures. The times are those of the run that wrote or checked the "
             "file, on a 2-core machine, from `/usr/bin/time -v`; *cpu* is user + system seconds "
             "of the whole process tree. The table is certificates/large-ranges.tsv.",
             "",
             "| file | deals | cannot be won | bytes | SHA-256 | census wall s | census cpu s | "
             "peak MiB | check wall s | check cpu s | vcheck wall s | vcheck cpu s | when | command |",
             "|---|---:|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---|---|"]
    for r in rows:
        lines.append("| " + " | ".join([
            f"`{r['file']}`", r["deals"], r["cannot_be_won"], f"{int(r['bytes']):,}", f"`{r['sha256']}`",
            r["census_wall_s"], r["census_cpu_s"], r["peak_mb"], r["check_wall_s"], r["check_cpu_s"],
            r["vcheck_wall_s"], r["vcheck_cpu_s"], r["when"], f"`{r['command']}`"]) + " |")
    return lines


def run_census(first, last, cells, foundation_moves, out, work):
    """Run the census command in a subprocess; its --json summary plus the wall time."""
    import json
    import subprocess
    import sys
    import time
    code = "import sys; from certify.commands.cli import main; sys.exit(main())"
    argv = [sys.executable, "-c", code, *certify_args(first, last, cells, foundation_moves,
                                                      out, work), "-q", "--json"]
    t0 = time.monotonic()
    done = subprocess.run(argv, capture_output=True, text=True)
    wall = time.monotonic() - t0
    if done.returncode != 0:
        last_line = (done.stderr.strip().splitlines() or ["no message"])[-1]
        return {"error": f"exit {done.returncode}: {last_line}", "wall": wall}
    summary = json.loads(done.stdout)
    summary["wall"] = wall
    return summary


def regenerate(target, folder, write, log=print):
    """Remake one range certificate (first, last, cells, fm): into `folder` if `write`, else in
    a scratch folder to compare digests with the published file. 1 if it went wrong, else 0."""
    import tempfile
    name = file_name(*target)
    published_path = os.path.join(folder, name)
    if not write and not os.path.exists(published_path):
        log(f"{name}\tMISSING from certificates/")
        return 1
    with tempfile.TemporaryDirectory() as scratch:
        out = published_path if write else os.path.join(scratch, name)
        s = run_census(*target, out, os.path.join(scratch, "census"))
        if "error" in s:
            log(f"{name}\tFAILED\t{s['error']}")
            return 1
        if write:
            times_path = os.path.join(folder, os.path.basename(TIMES))
            times = read_times(times_path)
            times[name] = ("range", s["deals"], s["wall"], s["bytes"])
            write_times(times, times_path)
            log(f"{name}\twritten\t{s['deals']:,} deals, {s['no_win']} no win "
                f"{s['no_win_deals']}\t{s['wall']:.1f} s\t{s['bytes']:,} bytes")
            return 0
        same = sha256_of(out) == sha256_of(published_path)
        log(f"{name}\t{'same' if same else 'DIFFERENT'}\t{s['wall']:.1f} s")
        return 0 if same else 1
