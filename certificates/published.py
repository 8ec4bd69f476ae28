"""What the scripts of certificates/ share: the published files' names, the deal list, the tables.

    regenerate.py  ->  index.py  ->  ranges.py, prove_coq.py  ->  published.py  ->  certify

Each script imports only those to its right, so none imports another that imports it back.
A file's name says its rules as `certify DEAL` names it by default (certify/format/names.py); the
tables are tab-separated files here (generation-times.tsv, coq-results.tsv, large-ranges.tsv)
with '#' comment lines.
"""

import hashlib
import os
import re

from certify.format.names import CERTIFICATE_SUFFIX as SUFFIX, certificate_name
from certify.output import write_atomic
from certify.game.rules import DEFAULT_CELLS, Rules

HERE = os.path.dirname(os.path.abspath(__file__))
DEALS = os.path.join(HERE, "deals.txt")
TIMES = os.path.join(HERE, "generation-times.tsv")
PLAIN_COUNTS = os.path.join(HERE, "plain-counts.tsv")


def read_deals(path=DEALS):
    """The deal numbers in a list file: one a line, '#' starts a comment."""
    with open(path, encoding="utf-8") as f:
        return [int(line.split("#")[0]) for line in f if line.split("#")[0].strip()]


def file_name(deal, cells=DEFAULT_CELLS, foundation_moves=False):
    """'11982.msgpack.zst' under the default rules; '11982-cells5-fm.msgpack.zst' otherwise:
    the name `certify DEAL` gives the file by default (certify/format/names.py)."""
    return certificate_name(deal, Rules(cells, False, foundation_moves))


NAME = re.compile(r"^([0-9]+)(?:-cells([0-8]))?(-fm)?" + re.escape(SUFFIX) + "$")


def parse_name(name):
    """(deal, cells, foundation_moves) from a file name made by file_name, or None."""
    m = NAME.match(name)
    if not m or file_name(int(m[1]), int(m[2] or DEFAULT_CELLS), bool(m[3])) != name:
        return None
    return int(m[1]), int(m[2] or DEFAULT_CELLS), bool(m[3])


def certify_args(deal, cells, foundation_moves):
    """The arguments of `certify` (after the program name) that make this deal's file."""
    args = [str(deal)]
    if cells != DEFAULT_CELLS:
        args += ["--cells", str(cells)]
    if foundation_moves:
        args.append("--foundation-moves")
    return args


def command_line(deal, cells=DEFAULT_CELLS, foundation_moves=False):
    """The command, run from the repository root, that regenerates the file byte for byte."""
    out = "certificates/" + file_name(deal, cells, foundation_moves)
    return " ".join(["certify"] + certify_args(deal, cells, foundation_moves) + ["-o", out])


def sha256_of(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def read_table(path):
    """The rows of a tab-separated table in certificates/ as lists of fields: lines starting
    with '#' are comments, blank lines are skipped; a missing file has no rows."""
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n").split("\t") for line in f if line.strip() and not line.startswith("#")]


def read_times(path=TIMES):
    """{file name: (verdict, positions, seconds, bytes)} from the generation log."""
    return {name: (verdict, int(positions), float(seconds), int(size))
            for name, verdict, positions, seconds, size in read_table(path)}


def write_times(rows, path=TIMES):
    lines = ["# file\tverdict\tpositions\tseconds\tbytes  (one run of certify on the machine "
             "that wrote the files; seconds are wall time of the whole command)\n"]
    for name in sorted(rows, key=sort_key):
        verdict, positions, seconds, size = rows[name]
        lines.append(f"{name}\t{verdict}\t{positions}\t{seconds:.1f}\t{size}\n")
    write_atomic(path, "".join(lines).encode())


def sort_key(name):
    parsed = parse_name(name)
    return parsed if parsed else (float("inf"), 0, False)


def published_files(folder=HERE):
    """The single certificates in `folder` (named by file_name), in deal order."""
    return sorted((n for n in os.listdir(folder) if parse_name(n)), key=sort_key)


def read_plain_counts(path=PLAIN_COUNTS):
    """{(deal, cells, foundation_moves): positions} of plain-counts.tsv: each no-win's count
    under the plain closure (every position reachable), beside the autoplay closure's."""
    with open(path, encoding="utf-8") as f:
        lines = [line.rstrip("\n").split("\t") for line in f if not line.startswith("#")]
    assert lines[0] == ["deal", "cells", "foundation_moves", "positions"], lines[0]
    return {(int(d), int(c), fm == "yes"): int(n) for d, c, fm, n in lines[1:]}
