"""The range certificate of a census (certify A-B): its entries, the same bytes however it was
run (one process or several, any chunk size, resumed after kill -9, on Dask), and
`certify extract` giving back each deal's own certificate.

The entries are read back with certify's own readers (certify/format/ranges.py, and
certify/format/writer.py and reader.py for the bodies, whatever body version certify writes);
check/ has its own tests of range certificates.
"""

import hashlib
import json
import os
import signal
import subprocess
import sys
import time

import msgpack
import pytest
import xxhash
import zstandard

from certify.format import ranges, reader, spec, writer
from certify.commands import cli
from certify.commands.census import chunks
from certify.game.deals import deal
from certify.format.names import range_name
from certify.game.rules import Rules, encode, replays_to_win, start
from support.census_runs import run, table, timeless
from support.position_counts import known_count

RANGE = "11975-11990"  # sixteen deals around 11982, the one below 32,000 that cannot be won
FIRST, LAST = 11975, 11990
NAME = "11975-11990.msgpack.zst"
RUN_CLI = "import sys; from certify.commands.cli import main; sys.exit(main(sys.argv[1:]))"


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """An uninterrupted census in one process, in one chunk: what every other run must match."""
    folder = tmp_path_factory.mktemp("reference") / "census"
    assert cli.main([RANGE, "-j", "1", "-q", "--out", str(folder)]) == 0
    return folder


def test_the_census_writes_one_range_certificate(reference, tmp_path, capsys):
    assert sorted(os.listdir(reference)) == [NAME, "census.json", "chunks", "results.jsonl"]
    assert os.listdir(reference / "chunks") == ["11000-11999.chunk.zst"]  # one block of 1,000
    # Done already: the same command proves nothing and writes the same file again.
    before = (reference / NAME).read_bytes()
    os.unlink(reference / NAME)
    code, out, err = run(capsys, RANGE, "--out", reference)
    assert code == 0
    assert out.splitlines()[0] == "16 deals: 15 won, 1 no win (11982), 0 unknown"
    assert out.splitlines()[1] == f"  range certificate {reference / NAME} ({len(before):,} bytes)"
    assert out.splitlines()[2] == f"  sha256 {hashlib.sha256(before).hexdigest()}"
    assert "0 deals proved in this run" in err
    assert (reference / NAME).read_bytes() == before


def test_entries_are_the_deals_in_order_with_their_proofs(reference):
    rows = {r["deal"]: r for r in table(reference)}
    head, entries = ranges.read(reference / NAME)
    assert head == {"format": "freecell-certificate", "version": 3, "claim": "range",
                    "first": FIRST, "last": LAST, "cells": 4, "foundation_moves": False,
                    "symmetry": "columns", "closure": "autoplay", "count": 16,
                    "xxh3_64": head["xxh3_64"]}
    seen = []
    for number, claim, count, body in entries:
        seen.append(number)
        row = rows[number]
        assert claim == row["claim"]
        single = ranges.single_certificate(head, number, claim, count, body)
        # A no-win's row has the digest of the single certificate certify made when it proved
        # the deal; a win's row none (the census hashes no file it does not write).
        if claim == "no-win":
            assert hashlib.sha256(single).hexdigest() == row["sha256"]
            assert len(single) == row["bytes"]
        else:
            assert row["sha256"] is None and row["bytes"] is None
        single_head, single_body = reader.read_bytes(single)
        assert single_body == body and single_head["count"] == count
        if claim == "win":   # (one bin of a move index a byte)
            assert count == row["moves"] and body == spec.bin_header(count) + body[-count:]
            line = reader.Certificate(single_head, single_body).line()
            assert len(line) == count and replays_to_win(start(deal(number)), line, Rules(4))
        else:
            assert number == 11982 and count == row["positions"] == \
                known_count(11982, closure="autoplay")
            held = reader.Certificate(single_head, single_body).positions()
            assert len(held) == count
            codes = {encode(p, 4) for p in held}
            assert encode(start(deal(11982)), 4) in codes
    assert seen == list(range(FIRST, LAST + 1))


def test_the_file_is_one_frame_whose_digest_covers_the_entries(reference):
    data = zstandard.ZstdDecompressor().decompress((reference / NAME).read_bytes())
    unpacker = msgpack.Unpacker(raw=False)
    unpacker.feed(data)
    head = unpacker.unpack()
    assert xxhash.xxh3_64_hexdigest(data[unpacker.tell():]) == head["xxh3_64"]
    values = list(unpacker)   # 16 entries: [deal, claim, count], then the body values
    assert [v[0] for v in values if isinstance(v, list) and len(v) == 3 and
            isinstance(v[0], int)] == list(range(FIRST, LAST + 1))
    assert len(values) == 15 * 2 + 1 + 2   # a win's line; 11982's table and one chunk


def test_parallel_and_small_chunks_give_the_same_bytes(reference, tmp_path, capsys):
    code, out, err = run(capsys, RANGE, "-j", 2, "--chunk", 4, "-q", "--out", tmp_path / "c")
    assert code == 0, err
    assert (tmp_path / "c" / NAME).read_bytes() == (reference / NAME).read_bytes()
    assert timeless(table(tmp_path / "c")) == timeless(table(reference))
    assert sorted(os.listdir(tmp_path / "c" / "chunks")) == [
        "11972-11975.chunk.zst", "11976-11979.chunk.zst", "11980-11983.chunk.zst",
        "11984-11987.chunk.zst", "11988-11991.chunk.zst"]


def test_kill_9_then_resume_gives_the_same_bytes(reference, tmp_path, capsys):
    """Kill the census (the parent, as `kill -9 PID` would) once its first chunk is written,
    while 11982 (seconds of search) is in flight; its workers must die with it, and a rerun
    must end with the file and table of an uninterrupted run."""
    folder = tmp_path / "c"
    argv = [sys.executable, "-c", RUN_CLI, RANGE, "-j", "2", "--chunk", "4", "-q",
            "--out", str(folder)]
    proc = subprocess.Popen(argv, start_new_session=True, stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if (folder / "chunks").is_dir() and finished_chunks(folder):
                break
            assert proc.poll() is None, "the census ended before it could be killed"
            time.sleep(0.01)
        assert proc.poll() is None, "the census ended before it could be killed"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        written = finished_chunks(folder)
        assert 1 <= len(written) < 5 and not (folder / NAME).exists()
        # The orphaned workers notice and exit (within a second or so).
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and group_alive(proc.pid):
            time.sleep(0.1)
        assert not group_alive(proc.pid), "worker processes outlived the killed census"
    finally:
        if group_alive(proc.pid):
            os.killpg(proc.pid, signal.SIGKILL)
    done = sum(len(chunks.index(folder / "chunks" / n, int(n.split("-")[0]) // 4, 4,
                                json.loads((folder / "census.json").read_text()))[0])
               for n in written)
    code, out, err = run(capsys, RANGE, "-j", 2, "--out", folder)
    assert code == 0, err
    assert f"{16 - done} deals proved in this run" in err
    assert (folder / NAME).read_bytes() == (reference / NAME).read_bytes()
    assert timeless(table(folder)) == timeless(table(reference))
    leftovers = [n for where in (folder, folder / "chunks") for n in os.listdir(where)
                 if n.startswith(".tmp-")]
    assert not leftovers


def finished_chunks(folder):
    return [n for n in os.listdir(folder / "chunks") if not n.startswith(".tmp-")]


def group_alive(pgid):
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def test_dask_gives_the_same_bytes(reference, tmp_path, capsys):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        code, out, err = run(capsys, RANGE, "--scheduler", cluster.scheduler_address,
                             "--chunk", 3, "-q", "--out", tmp_path / "c")
    assert code == 0, err
    assert out.splitlines()[0] == "16 deals: 15 won, 1 no win (11982), 0 unknown"
    assert (tmp_path / "c" / NAME).read_bytes() == (reference / NAME).read_bytes()
    assert timeless(table(tmp_path / "c")) == timeless(table(reference))


def test_extract_gives_what_certify_deal_writes(reference, tmp_path, capsys):
    for number in (11977, 11982):
        mine, theirs = tmp_path / f"x{number}", tmp_path / f"c{number}"
        code, out, err = run(capsys, "extract", reference / NAME, number, "-o", mine)
        assert code == 0, err
        assert out.splitlines()[1] == f"  certificate {mine} ({mine.stat().st_size:,} bytes)"
        assert run(capsys, number, "-q", "-o", theirs)[0] == 0
        assert mine.read_bytes() == theirs.read_bytes()


def test_extract_json_and_default_name(reference, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "extract", reference / NAME, 11990, "--json")
    assert code == 0
    shown = json.loads(out)
    row = table(reference)[-1]
    data = (tmp_path / "11990.msgpack.zst").read_bytes()
    assert shown == {"deal": 11990, "claim": "win", "verdict": "win", "count": row["moves"],
                     "path": "11990.msgpack.zst", "sha256": hashlib.sha256(data).hexdigest(),
                     "bytes": len(data)}   # (verdict: claim's old name, for one release)


@pytest.mark.parametrize("argv, complaint", [
    (["11974"], "deal 11974 is not in"),
    (["11991"], "deal 11991 is not in"),
    (["x"], "not a deal number"),
    (["11980", "-o", "/nonexistent/folder/x.msgpack.zst"], "there is no folder"),
    (["11980", "-o", "/proc/nope"], "cannot create files in /proc"),
])
def test_extract_bad_input_exits_2_and_writes_nothing(reference, tmp_path, monkeypatch, capsys,
                                                      argv, complaint):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "extract", reference / NAME, *argv)
    assert code == 2 and out == "" and complaint in err and err.count("\n") == 1
    assert os.listdir(tmp_path) == []


def damaged(reference, tmp_path, change):
    """A copy of the range file with its decompressed content changed by `change`."""
    content = zstandard.ZstdDecompressor().decompress((reference / NAME).read_bytes())
    path = tmp_path / "damaged.msgpack.zst"
    path.write_bytes(zstandard.ZstdCompressor().compress(change(content)))
    return path


def repacked(reference, change_entries):
    """The range file's content with its entries changed (and a digest that matches them).
    `change_entries` is given the entries as lists: [deal, claim, count], then its values."""
    def change(content):
        unpacker = msgpack.Unpacker(raw=False)
        unpacker.feed(content)
        head = unpacker.unpack()
        entries = []
        for value in unpacker:
            if isinstance(value, list) and len(value) == 3 and isinstance(value[0], int):
                entries.append([value])
            else:
                entries[-1].append(value)
        entries = change_entries(entries)
        data = b"".join(msgpack.packb(v, use_bin_type=True) for e in entries for v in e)
        head["xxh3_64"] = xxhash.xxh3_64_hexdigest(data)
        return msgpack.packb(head, use_bin_type=True) + data
    return change


@pytest.mark.parametrize("change, complaint", [
    (lambda c: c[:-1], "ends after 15 of 16 entries"),  # the last entry cut short
    (lambda c: c[:-40] + bytes([c[-40] ^ 1]) + c[-39:], "xxh3_64"),  # one bit of a move
    (lambda c: c + b"\x00", "bytes after the last entry"),
    (lambda c: c[:10], "no header"),
])
def test_a_damaged_range_file_is_refused(reference, tmp_path, capsys, change, complaint):
    path = damaged(reference, tmp_path, change)
    code, out, err = run(capsys, "extract", path, 11980, "-o", tmp_path / "x")
    assert code == 2 and out == "" and complaint in err and err.count("\n") == 1
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("change, complaint", [
    # the compressed file cut short: check's words, and the entry where its data ends
    (lambda d: d[:len(d) // 2], ": entry for deal 11982: its zstd frame is cut short"),
    (lambda d: d + d, "bytes after the last entry"),  # two frames
    (lambda d: d + b"junk", "not a valid zstd frame"),
    (lambda d: b"", "damaged.msgpack.zst is empty"),  # as check says it
])
def test_a_damaged_file_is_refused(reference, tmp_path, capsys, change, complaint):
    path = tmp_path / "damaged.msgpack.zst"
    path.write_bytes(change((reference / NAME).read_bytes()))
    code, out, err = run(capsys, "extract", path, 11975, "-o", tmp_path / "x")
    assert code == 2 and out == "" and complaint in err and err.count("\n") == 1
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("change_entries, complaint", [
    (lambda es: es[:5] + [es[6], es[5]] + es[7:], "is for deal 11981, not 11980"),
    (lambda es: es[:-1], "ends after 15 of 16 entries"),
    (lambda es: es[:3] + [[es[3][0][:2]] + es[3][1:]] + es[4:], "is not [deal, claim, count]"),
    (lambda es: es[:3] + [[[es[3][0][0], "maybe", es[3][0][2]]] + es[3][1:]] + es[4:],
     "bad claim 'maybe'"),
    (lambda es: es[:3] + [es[3][:1] + [es[3][1][:-1]]] + es[4:], "is not a bin of"),
])
def test_entries_out_of_place_are_refused(reference, tmp_path, capsys, change_entries,
                                          complaint):
    path = damaged(reference, tmp_path, repacked(reference, change_entries))
    with pytest.raises(ranges.RangeError, match=complaint.replace("[", r"\[")):
        head, entries = ranges.read(path)
        for _ in entries:
            pass


def test_the_writer_refuses_entries_that_do_not_make_the_range(tmp_path):
    def entries(numbers):
        return lambda: (ranges.pack_entry(n, "win", 0, b"") for n in numbers)
    path = tmp_path / "r.msgpack.zst"
    for numbers, complaint in (([1, 2, 4], "entry for deal 4 where deal 3 belongs"),
                               ([1, 2], "entries end at deal 2, not 3"),
                               ([2, 3], "entry for deal 2 where deal 1 belongs")):
        with pytest.raises(ranges.RangeError, match=complaint):
            ranges.write(path, 1, 3, Rules(4), entries(numbers))
        assert os.listdir(tmp_path) == []


@pytest.mark.false_certificates   # its entries are made up: one move each
def test_the_writer_streams(tmp_path):
    """Entries are taken one at a time from a generator, made twice (hash, then compress)."""
    made = []

    def entries():
        made.append(0)
        for n in range(5, 3005):
            made[-1] += 1
            yield ranges.pack_entry(n, "win", 1, bytes([0xC4, 1, n % 7]))

    size, sha = ranges.write(tmp_path / "r", 5, 3004, Rules(3, True, True), entries)
    assert made == [3000, 3000]
    data = (tmp_path / "r").read_bytes()
    assert (size, sha) == (len(data), hashlib.sha256(data).hexdigest())
    head, read = ranges.read(tmp_path / "r")
    assert (head["cells"], head["symmetry"], head["foundation_moves"]) == (3, "none", True)
    assert [e[0] for e in read] == list(range(5, 3005))


def test_names_carry_the_rules():
    name = range_name
    assert name(1, 32000, Rules(4)) == "1-32000.msgpack.zst"
    assert name(1, 32000, Rules(3, True, True)) == "1-32000-cells3-fm-fixed.msgpack.zst"


def test_the_writer_reads_any_deal_number_from_a_packed_entry():
    for number in (1, 127, 128, 255, 256, 65535, 65536, 2**32 - 1, 2**32, 2**33 - 1):
        entry = ranges.pack_entry(number, "win", 3, b"\x00\x09" * 3)
        assert ranges._entry_deal(entry) == number


# ---- The published range certificate (certificates/1-32000.msgpack.zst) --------------------

CERTIFICATES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                            "certificates")
import ranges as range_script  # (certificates/ranges.py)

PUBLISHED = os.path.join(CERTIFICATES, "1-32000.msgpack.zst")


def test_range_names_and_commands():
    assert range_script.file_name(1, 32000) == "1-32000.msgpack.zst"
    assert range_script.parse_name("1-32000.msgpack.zst") == (1, 32000, 4, False)
    assert range_script.parse_name("1-32000-cells3-fm.msgpack.zst") == (1, 32000, 3, True)
    for name in ("11982.msgpack.zst", "11982-cells3.msgpack.zst", "5-3.msgpack.zst",
                 "01-3.msgpack.zst", "1-3-cells4.msgpack.zst", "1-3-fm-cells3.msgpack.zst"):
        assert range_script.parse_name(name) is None, name
    assert range_script.command_line(1, 32000) == \
        "certify 1-32000 -j 2 --out census-1-32000 -o certificates/1-32000.msgpack.zst"
    assert range_script.command_line(1, 9, 3, True) == ("certify 1-9 -j 2 --out census-1-9-cells3-fm "
                                                  "-o certificates/1-9-cells3-fm.msgpack.zst "
                                                  "--cells 3 --foundation-moves")
    # The census names its file as certificates/ does.
    assert range_name(1, 9, Rules(3, False, True)) == range_script.file_name(1, 9, 3, True)


@pytest.mark.skipif(not os.path.exists(PUBLISHED), reason="certificates/1-32000.msgpack.zst not made")
def test_the_published_range_names_11982_alone(tmp_path, capsys):
    head, entries = ranges.read(PUBLISHED)
    assert (head["first"], head["last"], head["cells"], head["foundation_moves"]) == \
        (1, 32000, 4, False)
    no_win = [number for number, claim, _, _ in entries if claim == "no-win"]
    assert no_win == [11982]
    # Its entry, extracted, is what `certify 11982` writes now (version 3, while the published
    # files are of version 2 until certificates/ is remade), and holds the published single
    # certificate's records.
    assert run(capsys, "extract", PUBLISHED, 11982, "-o", tmp_path / "x")[0] == 0
    assert run(capsys, "11982", "-q", "-o", tmp_path / "y")[0] == 0
    assert (tmp_path / "x").read_bytes() == (tmp_path / "y").read_bytes()
    extracted = reader.load(tmp_path / "x")
    single = reader.load(os.path.join(CERTIFICATES, "11982.msgpack.zst"))
    assert extracted.version == 3 and extracted.records()[:2] == single.records()[:2]
    sums = open(os.path.join(CERTIFICATES, "SHA256SUMS")).read()
    with open(PUBLISHED, "rb") as f:
        assert f"{hashlib.sha256(f.read()).hexdigest()}  1-32000.msgpack.zst" in sums
    readme = open(os.path.join(CERTIFICATES, "README.md"), encoding="utf-8").read()
    assert f"`{range_script.command_line(1, 32000)}`" in readme


def test_the_million_deal_run_is_recorded_as_the_shared_list_says():
    """certificates/large-ranges.tsv (the runs too large to commit): its million-deal row names
    exactly the deals below 1,000,000 of the shared list of unwinnable deals, and the README shows it."""
    rows = {r["file"]: r for r in range_script.large_runs(CERTIFICATES)}
    row = rows["1-1000000.msgpack.zst"]
    shared = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "..", "shared",
                          "data", "unsolvable-below-10M.txt")
    if os.path.exists(shared):
        with open(shared) as f:
            listed = [int(line) for line in f if line.strip() and not line.startswith("#")]
        below = [d for d in listed if d <= 1_000_000]
    else:
        below = [11982, 146692, 186216, 455889, 495505, 512118, 517776, 781948]
    count, deals = row["cannot_be_won"].split(": ")
    assert int(count) == len(below) == 8 and [int(d) for d in deals.split(", ")] == below
    assert len(row["sha256"]) == 64 and int(row["sha256"], 16) >= 0 and int(row["bytes"]) > 50_000_000
    assert row["command"].startswith(f"certify 1-1000000 -j {range_script.JOBS} --out ")
    readme = open(os.path.join(CERTIFICATES, "README.md"), encoding="utf-8").read()
    assert "\n".join(range_script.large_section([row])) in readme


def test_large_runs_refuses_a_table_with_other_columns(tmp_path):
    (tmp_path / range_script.LARGE).write_text("# a comment\nfile\tdeals\n1-2.msgpack.zst\t1..2\n")
    with pytest.raises(ValueError, match="not the columns"):
        range_script.large_runs(tmp_path)
    (tmp_path / "empty").mkdir()
    assert range_script.large_runs(tmp_path / "empty") == []   # no table: no section


@pytest.mark.false_certificates   # chunks of 1,000 records: not the format's 2^20
def test_a_no_win_entry_of_several_chunks_reads_back(monkeypatch, tmp_path):
    """The reader takes a no-win entry's table and as many chunks as its count asks for (made
    small here, so that a deal of a testable size has several), then the next entry."""
    from certify import engine
    monkeypatch.setattr(spec, "CHUNK", 1000)
    rules = Rules(4)
    outcome = engine.search(start(deal(11982)), rules)
    keys, columns = list(outcome.keys), outcome.columns
    values = writer.no_win_body(keys, columns, 4, False)
    line = engine.solve_line(start(deal(11983)), rules)
    win = writer.body_values("win", line, 11983, None, rules)
    packed = [ranges.pack_entry(11982, "no-win", len(keys), values),
              ranges.pack_entry(11983, "win", len(line) // 2, win)]
    ranges.write(tmp_path / "r", 11982, 11983, rules, lambda: iter(packed))
    head, entries = ranges.read(tmp_path / "r")
    assert [tuple(e) for e in entries] == [(11982, "no-win", len(keys), values),
                                           (11983, "win", len(line) // 2, win)]
    assert len(reader.nowin_parts(values, len(keys), 4)[1]) == -(-len(keys) // 1000)
