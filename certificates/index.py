"""The index of the published certificates: README.md and SHA256SUMS, built from the files.

Everything in the index is read back from the certificate files themselves (header, positions,
digest), with `certify explain`'s analysis (certify/commands/explain.py) for the cards that never move;
only the seconds come from generation-times.tsv, the log of the run that wrote the files. So the
index says what the files hold, and rebuilding it from the same files gives the same bytes.
Run it through `python3 certificates/regenerate.py --index`.
"""

import os

from certify.game.cards import name
from certify.output import write_atomic
from certify.commands.explain import from_certificate, stuck

import hard
import published
import ranges
from prove_coq import read_results as read_coq_results  # certificates/coq-results.tsv


def facts(folder, file):
    """One row of the index, as a dict."""
    path = os.path.join(folder, file)
    src = from_certificate(path)
    deal, cells, fm = published.parse_name(file)
    if (src.deal, src.rules.ncells, src.rules.foundation_moves) != (deal, cells, fm):
        raise ValueError(f"{file}: its header says deal {src.deal}, {src.rules.ncells} cells, "
                         f"foundation moves {src.rules.foundation_moves}: not its name")
    row = {"file": file, "deal": deal, "cells": cells, "fm": fm, "claim": src.verdict,
           "symmetry": "none" if src.rules.fixed_columns else "columns",
           "bytes": os.path.getsize(path), "sha256": published.sha256_of(path),
           "command": published.command_line(deal, cells, fm)}
    if src.verdict == "win":
        row["moves"] = src.move_count
        return row
    r = src.rules
    f = stuck(src.start[2], src.table, src.records, r.ncells, src.width, r.fixed_columns)
    row.update(positions=f.positions, most_home=f.most_home, frozen=f.frozen, closest=f.closest)
    return row


def frozen_text(frozen):
    runs = [" ".join(name(c) for c in run) for run in frozen if run]
    count = sum(len(run) for run in frozen)
    return f"{count}: " + " · ".join(runs) if count else "0"


def closest_text(c):
    if c is None:
        return "–"
    if c.fewest_above == 0:
        return f"{name(c.card)} uncovered in {c.positions:,} ({c.cells_full:,} cells full)"
    return f"{name(c.card)} never uncovered (≥ {c.fewest_above} above)"


def coq_text(row, coq):
    """The Coq column: 'proved, N s' (coqc's CPU seconds) for a deal of the default rules. A
    result recorded for another certificate of the deal (another SHA-256) is not this one's."""
    if (row["cells"], row["fm"]) != (4, False) or row.get("claim", "no-win") != "no-win":
        return "–"
    result = coq.get(row["deal"])
    if result is None or result["certificate_sha256"] != row["sha256"]:
        return "not yet compiled"
    if result["result"].startswith("proved"):
        over = ", over its target" if "over its target" in result["result"] else ""
        return f"proved, {float(result['cpu_seconds']):.0f} s{over}"
    return "not proved (coq-results.tsv says why)"


def coq_summary(rows, coq):
    """One line: how many of the default rules' no-win certificates have a Coq proof."""
    texts = [coq_text(r, coq) for r in rows
             if (r["cells"], r["fm"], r["claim"]) == (4, False, "no-win")]
    proved = sum(t.startswith("proved") for t in texts)
    waiting = texts.count("not yet compiled")
    rest = len(texts) - proved - waiting
    return [f"Coq: {proved} of the {len(texts)} no-win certificates for 4 free cells proved "
            f"by coqc, {waiting} not yet compiled, {rest} not proved (the Coq column).", ""]


def table(rows, times, coq=None, plain=None):
    coq, plain = coq or {}, plain or {}
    lines = ["| deal | cells | fm | claim | positions or moves | plain positions | most home | "
             "cards that never move (by column, bottom first) | closest to moving | bytes | "
             "bytes/position | seconds | SHA-256 | Coq | regenerate (from the repository root) |",
             "|---:|---:|:-:|:-:|---:|---:|---:|---|---|---:|---:|---:|---|---|---|"]
    for r in rows:
        seconds = times.get(r["file"], (None, None, None))[2]
        seconds = f"{seconds:.1f}" if seconds is not None else "–"
        if r["claim"] == "win":
            size = f"{r['moves']} moves"
            rest = ["–", "52", "–", "–", f"{r['bytes']:,}", "–"]
        else:
            size = f"{r['positions']:,}"
            every = plain.get((r["deal"], r["cells"], r["fm"]))
            rest = [f"{every:,}" if every is not None else "–", str(r["most_home"]), frozen_text(r["frozen"]), closest_text(r["closest"]),
                    f"{r['bytes']:,}", f"{r['bytes'] / r['positions']:.2f}"]
        lines.append("| " + " | ".join(
            [str(r["deal"]), str(r["cells"]), "yes" if r["fm"] else "no", r["claim"], size] +
            rest + [seconds, f"`{r['sha256']}`", coq_text(r, coq), f"`{r['command']}`"]) + " |")
    return lines


HEAD = """# Published certificates

Each `.msgpack.zst` file here is a certificate (docs/certificate-format.md) that one Microsoft
FreeCell deal cannot be won, made by `certify` and verified by `check`. The main set is every
deal below 10,000,000 that cannot be won with four free cells: the {listed} deals in
[deals.txt](deals.txt) (a copy of the public list; see its comment lines), under the default
rules (4 free cells, single-card moves, no foundation moves, positions up to column order).
Files for other rules (free cells 0..8, foundation moves) carry them in their name
(`DEAL-cellsN-fm.msgpack.zst`), in their header, and in the index below.

Check them all, or one:

    check certificates/
    check certificates/11982.msgpack.zst

Regenerate one byte for byte with the command in its row, or compare digests with the script:

    python3 certificates/regenerate.py 11982          # remake in a scratch folder, compare SHA-256
    python3 certificates/regenerate.py --all          # the same for every file here
    python3 certificates/regenerate.py --write --all  # rewrite the files (and generation-times.tsv)
    python3 certificates/regenerate.py --write --cells 5 11982   # a file for other rules
    python3 certificates/regenerate.py --index        # rebuild this README and SHA256SUMS

The script runs `certify` once per file, two at a time (`-j N` to change it); writing or
comparing them all takes about half as long as the seconds column adds up to.

`sha256sum -c SHA256SUMS` (in this folder) checks the digests without regenerating. The same
zstandard library version gives the same bytes (docs/certificate-format.md, section 4).

Columns: *positions*, the certificate's (closed under every move then safe moves home, up to
column order: docs/certificate-format.md, section 8), or the *moves* of a win; *plain positions*,
every position reachable by single-card moves (what `certify DEAL --no-autoplay` holds, from
[plain-counts.tsv](plain-counts.tsv)); *most home*, the
most cards ever on the foundations; the cards that *never move* in any reachable position and
the frozen card *closest to moving* with the number of positions in which it is uncovered (and
how many of those have every free cell full), both as defined by `certify explain`
(certify/commands/explain.py); *seconds*, the wall time of the command on the machine that wrote the
files (2 shared cores); *Coq*, the result of compiling the deal's Coq proof (`certify export
--coq`, then `coqc`) and coqc's CPU seconds, from [coq-results.tsv](coq-results.tsv) (with
the peak memory and the reason for any deal not proved), which this command writes, one deal
at a time, resuming where it stopped (the table's figures were measured this way, coqc under
`nice -n 19` on the 2 shared cores):

    nice -n 19 python3 certificates/prove_coq.py --all

"""


def summary(rows, listed, plain):
    claims = {r["deal"]: r["claim"] for r in rows if r["cells"] == 4 and not r["fm"]}
    listed_rows = [r for r in rows if (r["cells"], r["fm"], r["claim"]) == (4, False, "no-win")
                   and r["deal"] in set(listed)]
    lines = [f"Files: {len(rows)}, {sum(r['bytes'] for r in rows):,} bytes in all; "
             f"{sum(r.get('positions', 0) for r in rows):,} positions in the no-win files.", "",
             f"The {len(listed_rows)} listed deals' no-wins hold "
             f"{sum(r['positions'] for r in listed_rows):,} positions closed under every move "
             f"then safe autoplay, against "
             f"{sum(plain.get((r['deal'], 4, False), 0) for r in listed_rows):,} reachable by "
             f"single-card moves (plain-counts.tsv: the files made before autoplay).", ""]
    won = [d for d in listed if claims.get(d) == "win"]
    missing = [d for d in listed if d not in claims]
    if won:
        lines += ["**Listed as unwinnable, but won under these rules** (a win certificate "
                  "here): " + ", ".join(map(str, won)), ""]
    if missing:
        lines += ["**Listed deals with no certificate here**: " + ", ".join(map(str, missing)),
                  ""]
    if not won and not missing:
        lines += [f"Every one of the {len(listed)} listed deals has its no-win certificate.", ""]
    others = [r for r in rows if (r["cells"], r["fm"]) != (4, False)]
    if others:
        lines += ["Files for other rules: " + ", ".join(
            f"{r['file']} ({r['claim']})" for r in others) + ".", ""]
    largest = sorted(rows, key=lambda r: (-r["bytes"], r["file"]))[:5]
    lines += ["Largest files: " + ", ".join(f"{r['file']} ({r['bytes']:,} bytes)"
                                            for r in largest) + ".", ""]
    return lines


def write_index(folder, files, times, listed):
    rows = [facts(folder, f) for f in files]
    coq = read_coq_results(os.path.join(folder, "coq-results.tsv"))
    # The range certificates (certify A-B) have a section of their own: certificates/ranges.py.
    spans = [ranges.facts(folder, f) for f in ranges.published(folder)]
    plain = published.read_plain_counts(os.path.join(folder, "plain-counts.tsv"))
    text = HEAD.format(listed=len(listed)) + "\n".join(
        summary(rows, listed, plain) + coq_summary(rows, coq) + table(rows, times, coq, plain) +
        ranges.section(spans, times) + ranges.large_section(ranges.large_runs(folder)) +
        hard.section(hard.runs(folder)))
    write_atomic(os.path.join(folder, "README.md"), (text + "\n").encode())
    sums = "".join(f"{r['sha256']}  {r['file']}\n" for r in rows + spans)
    write_atomic(os.path.join(folder, "SHA256SUMS"), sums.encode())
    return rows
