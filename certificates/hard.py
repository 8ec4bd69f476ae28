"""The hardest known deals (../shared/data/hard-deals.tsv): the runs that proved them, for the index.

Each row of hard-deals.tsv is one run of `certify DEAL` on a deal that Freecell Solver's DBM
solver needed a 256 GB machine for, with its checks: the position count beside the DBM solver's
(the same closure: every move, then safe moves home), the search's wall and CPU seconds and peak
memory, the certificate's bytes and SHA-256, each checker's verdict and cost, the commit and the
command that remakes the file byte for byte. The certificates themselves are in hard-deals/ at
the repository's root, apart from certificates/, so that `check certificates/` stays a matter of
minutes (a hard deal's closure is hundreds of millions of positions). A deal not yet proved has
a row saying how far its run got, or none.
"""

import os

from published import read_table

TABLE = "hard-deals.tsv"
COLUMNS = ("deal", "verdict", "positions", "dbm_states", "search_wall_s", "search_cpu_s",
           "peak_mb", "disk_mb", "bytes", "sha256", "check", "check_wall_s", "check_cpu_s",
           "vcheck", "vcheck_wall_s", "vcheck_cpu_s", "vcheck_peak_mb", "commit", "when",
           "command")


def runs(folder):
    """The rows of hard-deals.tsv, as dicts."""
    if not (lines := read_table(os.path.join(folder, TABLE))):
        return []
    if tuple(lines[0]) != COLUMNS or any(len(row) != len(COLUMNS) for row in lines):
        raise ValueError(f"{TABLE}: not the columns {', '.join(COLUMNS)}")
    return [dict(zip(COLUMNS, row)) for row in lines[1:]]


def number(text):
    """A figure as the table shows it: thousands separated, '–' where there is none."""
    return f"{int(text):,}" if text.isdigit() else (text or "–")


def section(rows):
    """The README's section on the hard deals, as lines."""
    if not rows:
        return []
    lines = ["", "## The hardest deals", "",
             "Deals that every solver of Theodore Pringle's 2016 scan of FreeCell Pro's 8,589,934,591 "
             "deals ran out of resources on, later settled by Freecell Solver's DBM solver on a "
             "256 GB machine (../shared/data/hard-deals.tsv). Here each is proved on 2 cores and "
             "24 GB: *positions* closed under every move then safe moves home, the count the DBM "
             "solver published beside it (*DBM*); the search's wall and CPU seconds and peak "
             "memory (`/usr/bin/time -v`), and each checker's verdict and cost (`vcheck -j 2 "
             "--max-positions 2000000000 FILE`, or `-j 1` where its log says so, beside other work on the same two cores: its "
             "wall is a shared machine's). The files are in hard-deals/ with each run's log, but "
             "for those over 50 MB, which are recorded here by size and SHA-256 and not "
             "committed; the command remakes each byte for byte. The table is certificates/hard-deals.tsv; "
             "a deal without a row has not been run under this closure yet.",
             "",
             "| deal | verdict | positions | DBM | search wall s | search cpu s | peak MiB | "
             "disk MiB | bytes | SHA-256 | check | check wall s | check cpu s | vcheck | "
             "vcheck wall s | vcheck cpu s | vcheck peak MiB | commit | when | command |",
             "|---:|---|---:|---:|---:|---:|---:|---:|---:|---|---|---:|---:|---|---:|---:|---:"
             "|---|---|---|"]
    for r in rows:
        lines.append("| " + " | ".join([
            r["deal"], r["verdict"], number(r["positions"]), number(r["dbm_states"]),
            r["search_wall_s"], r["search_cpu_s"], number(r["peak_mb"]), number(r["disk_mb"]),
            number(r["bytes"]), f"`{r['sha256']}`" if r["sha256"] != "–" else "–",
            r["check"], r["check_wall_s"], r["check_cpu_s"], r["vcheck"], r["vcheck_wall_s"],
            r["vcheck_cpu_s"], number(r["vcheck_peak_mb"]), r["commit"], r["when"],
            f"`{r['command']}`"]) + " |")
    return lines
