"""The published certificates (certificates/): one for every listed deal, each as its index says,
verified by `check`, and remade byte for byte by the command the index gives.

The default run checks every file's header and digest against the index, and verifies and
regenerates a few (11982 among them); `-m slow` verifies all of them with `check` and
regenerates all of them.
"""

import hashlib
import re
import subprocess
import sys
from pathlib import Path

import msgpack
import pytest
import zstandard

from certify.commands.explain import from_certificate, stuck

FOLDER = Path(__file__).resolve().parent.parent / "certificates"
import index  # (certificates/index.py)
import prove_coq  # (certificates/prove_coq.py)
import published  # (certificates/published.py)
import ranges  # (certificates/ranges.py)
import regenerate  # (certificates/regenerate.py)

SHARED_LIST = FOLDER.parent.parent / "shared" / "data" / "unsolvable-below-10M.txt"
FEW = [11982, 781948, 2607073]  # a famous one and the two smallest
BELOW_ONE_MILLION = [11982, 146692, 186216, 455889, 495505, 512118, 517776, 781948]


def header(path):
    """A certificate's header, from the first 64 KiB of its content alone (no full read)."""
    with open(path, "rb") as f:
        start = zstandard.ZstdDecompressor().stream_reader(f).read(1 << 16)
    unpacker = msgpack.Unpacker(raw=False)
    unpacker.feed(start)
    return unpacker.unpack()


def index_rows():
    """{file name: cells of its row} from certificates/README.md."""
    rows = {}
    for line in (FOLDER / "README.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| ") and cells[0].isdigit():
            command = cells[-1].strip("`")
            if command.split()[-1].startswith("certificates/"):   # (not a hard deal's row)
                rows[command.split()[-1].split("/")[-1]] = cells
    return rows


def check(*paths):
    return subprocess.run([sys.executable, "-m", "check", *map(str, paths)],
                          capture_output=True, text=True)


# ---- Every file, cheaply -----------------------------------------------------------------

def test_the_list_is_the_public_one():
    deals = published.read_deals()
    assert len(deals) == len(set(deals)) == 130 and deals == sorted(deals)
    assert [d for d in deals if d < 1_000_000] == BELOW_ONE_MILLION
    assert all(d < 10_000_000 for d in deals)
    if SHARED_LIST.exists():  # the copy is the shared list, number for number
        assert published.read_deals(SHARED_LIST) == deals


def test_every_listed_deal_has_a_no_win_certificate():
    for deal in published.read_deals():
        path = FOLDER / published.file_name(deal)
        assert path.exists(), f"no certificate for deal {deal}"
        h = header(path)
        assert (h["claim"], h["deal"], h["board"], h["cells"], h["foundation_moves"],
                h["symmetry"]) == ("no-win", deal, None, 4, False, "columns"), deal


def test_every_file_records_the_rules_its_name_gives():
    names = published.published_files()
    assert len(names) >= 130
    for name in names:
        deal, cells, fm = published.parse_name(name)
        h = header(FOLDER / name)
        assert (h["deal"], h["cells"], h["foundation_moves"]) == (deal, cells, fm), name
        assert h["symmetry"] == ("none" if h["claim"] == "win" else "columns"), name
        # every no-win is closed under safe autoplay but where foundation moves forbid it
        assert h.get("closure") == ("autoplay" if h["claim"] == "no-win" and not fm else None)


def test_index_and_sums_match_the_files():
    rows, coq = index_rows(), prove_coq.read_results()
    plain = published.read_plain_counts()
    names = published.published_files()
    assert sorted(rows) == sorted(names)  # every file has a row, every row a file
    sums = dict(line.split()[::-1] for line in
                (FOLDER / "SHA256SUMS").read_text().splitlines())
    assert sorted(sums) == sorted(names + ranges.published(FOLDER))  # and the range files
    for name in names:
        data = (FOLDER / name).read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        row = rows[name]
        assert sums[name] == digest and row[12] == f"`{digest}`", name
        assert row[9] == f"{len(data):,}", name
        deal, cells, fm = published.parse_name(name)
        assert row[-1] == f"`{published.command_line(deal, cells, fm)}`"
        assert (row[0], row[1], row[2]) == (str(deal), str(cells), "yes" if fm else "no")
        h = header(FOLDER / name)
        assert row[3] == h["claim"]
        assert row[4] == (f"{h['count']:,}" if h["claim"] == "no-win" else f"{h['count']} moves")
        # beside it, the plain closure's count (plain-counts.tsv), never fewer positions
        every = plain.get((deal, cells, fm))
        assert row[5] == ("–" if every is None else f"{every:,}"), name
        assert h["claim"] == "win" or every >= h["count"], name
        # the Coq column: coq-results.tsv's result for this very file (its digest), or none
        fact = {"deal": deal, "cells": cells, "fm": fm, "claim": h["claim"], "sha256": digest}
        assert row[13] == index.coq_text(fact, coq), name


@pytest.mark.parametrize("deal", FEW)
def test_index_row_says_what_explain_finds(deal):
    name = published.file_name(deal)
    src = from_certificate(str(FOLDER / name))
    facts = stuck(src.start[2], src.table, src.records, 4, src.width, False)
    import index  # certificates/index.py
    row = index_rows()[name]
    assert row[6] == str(facts.most_home)
    assert row[7] == index.frozen_text(facts.frozen)
    assert row[8] == index.closest_text(facts.closest)


def test_names_and_commands():
    assert published.file_name(11982) == "11982.msgpack.zst"
    assert published.file_name(11982, 5, True) == "11982-cells5-fm.msgpack.zst"
    assert published.command_line(11982, 0, True) == \
        "certify 11982 --cells 0 --foundation-moves -o certificates/11982-cells0-fm.msgpack.zst"
    for name in ["11982-cells4.msgpack.zst", "011982.msgpack.zst", "11982-fm-cells5.msgpack.zst",
                 "11982.msgpack", "x.msgpack.zst", "11982-cells9.msgpack.zst"]:
        assert published.parse_name(name) is None, name
    for deal, cells, fm in [(1, 0, False), (11982, 8, True), (9917279, 4, True)]:
        assert published.parse_name(published.file_name(deal, cells, fm)) == (deal, cells, fm)


# ---- A few, fully ------------------------------------------------------------------------

def test_a_few_are_verified_by_check():
    done = check(*(FOLDER / published.file_name(d) for d in FEW))
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("VERIFIED") == len(FEW)


def test_regenerating_a_few_reproduces_their_digests(tmp_path):
    """Byte for byte once certificates/ is of the version certify writes; until it is remade
    (its files are of version 2, certify writes 3), certify still makes the same claims with the
    same column tables and records, laid out as the new version lays them out."""
    from certify.format import reader, spec
    older = [d for d in FEW if header(FOLDER / published.file_name(d))["version"] !=
             spec.VERSION]
    if not older:
        done = subprocess.run([sys.executable, str(FOLDER / "regenerate.py"), *map(str, FEW)],
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr
        assert done.stdout.count("\tsame\t") == len(FEW)
        return
    for deal in older:
        fresh = tmp_path / published.file_name(deal)
        done = subprocess.run([sys.executable, "-m", "certify", str(deal), "-q", "-o", str(fresh)],
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        made, before = (reader.load(p) for p in (fresh, FOLDER / fresh.name))
        assert made.version == spec.VERSION
        assert (made.claim, made.count) == (before.claim, before.count)
        assert made.records()[:2] == before.records()[:2]


def test_a_different_file_is_caught(tmp_path):
    # A published file that is not what the command makes: the script says so and exits 1.
    name = published.file_name(2607073)
    data = bytearray((FOLDER / name).read_bytes())
    data[-1] ^= 1
    (tmp_path / name).write_bytes(bytes(data))
    done = subprocess.run([sys.executable, str(FOLDER / "regenerate.py"), "2607073", "781948",
                           "--folder", str(tmp_path)], capture_output=True, text=True)
    assert done.returncode == 1
    assert re.search(r"2607073\.msgpack\.zst\tDIFFERENT", done.stdout)
    assert re.search(r"781948\.msgpack\.zst\tMISSING", done.stdout)


# ---- All of them (slow) ------------------------------------------------------------------

@pytest.mark.slow
def test_check_verifies_every_published_certificate():
    done = check(FOLDER)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert done.stdout.count("VERIFIED") == \
        len(published.published_files()) + len(ranges.published(FOLDER))


@pytest.mark.slow
def test_regenerating_every_certificate_reproduces_its_digest():
    # About as long as writing them: see generation-times.tsv (on 2 shared cores, ~30-60 min).
    done = subprocess.run([sys.executable, str(FOLDER / "regenerate.py"), "--all"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert done.stdout.count("\tsame\t") == len(regenerate.all_targets())
