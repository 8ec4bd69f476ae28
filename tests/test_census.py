"""The census's working state (certify A-B): chunk files and the results table, resuming and
extending a census, unknown deals and retrying them, damaged folders, bad input, progress.

The range certificate itself, and runs on several processes, after kill -9 and on Dask, are
tested in tests/test_range.py.
"""

import fcntl
import hashlib
import io
import json
import os
import subprocess
import sys

import pytest

from certify.commands import cli
from certify import engine
from certify.run import progress
from certify.format import ranges
from certify.commands.census import chunks, command, work
from certify.commands.census.folder import current as current_row
from certify.game.deals import deal
from certify.commands.options import result_json, with_old_verdict
from certify.outcome import Result
from certify.run.prove import SOLVER_FIRST, SURE_MEMORY, at_once, proved
from certify.game.rules import Rules, start
from support.census_runs import run, table, timeless
from support.position_counts import known_count

SMALL = "1-4"  # a few quick deals
NAME = "1-4.msgpack.zst"


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """An uninterrupted census in one process: what every other run of SMALL must match."""
    folder = tmp_path_factory.mktemp("reference") / "census"
    assert cli.main([SMALL, "-j", "1", "-q", "--out", str(folder)]) == 0
    return folder


def test_the_folder_holds_settings_chunks_table_and_range_certificate(reference):
    assert sorted(os.listdir(reference)) == [NAME, "census.json", "chunks", "results.jsonl"]
    assert os.listdir(reference / "chunks") == ["1-999.chunk.zst"]
    settings = json.loads((reference / "census.json").read_text())
    assert settings == work.Settings(4, False, False, autoplay=True).recorded()
    assert settings["chunk"] == 1000


def test_rows_are_those_of_certify_json_a_wins_without_a_file_digest(reference, tmp_path):
    rows = table(reference)
    assert [r["deal"] for r in rows] == [1, 2, 3, 4]
    keys = list(with_old_verdict(result_json(Result("win", 0, 0.0, 52, moves=[]), 1)))
    assert keys[:3] == ["deal", "claim", "verdict"]   # (verdict: claim's old name, a release)
    for r in rows:
        assert list(r) == keys  # the keys of `certify --json`, in the same order
        assert r["claim"] == "win" and r["reason"] is None and r["path"] is None
        assert r["moves"] > 0 and r["seconds"] >= 0
    # A won deal's row names no digest or size of a file: none is written (`certify extract`
    # rebuilds the file `certify 3` writes, and says its digest); the line is the same.
    result = proved(start(deal(3)), Rules(4), 3, out=tmp_path / "3.msgpack.zst")
    assert rows[2]["sha256"] is None and rows[2]["bytes"] is None
    assert result.sha256 is not None and rows[2]["moves"] == len(result.moves)


def test_a_chunk_file_holds_index_rows_and_entries(reference):
    settings = json.loads((reference / "census.json").read_text())
    path = reference / "chunks" / "1-999.chunk.zst"
    assert chunks.index(path, 0, 1000, settings) == ([1, 2, 3, 4], ["win"] * 4)
    numbers, rows = chunks.rows(path, 0, 1000, settings)
    # (the table's rows add "verdict", claim's old name, as they are written out)
    assert [json.loads(current_row(r)) for r in rows] == table(reference)
    assert all('"verdict"' not in r for r in rows)
    items = chunks.items(path, 0, 1000, settings)
    head, entries = ranges.read(reference / NAME)
    assert [i.entry for i in items] == [ranges.pack_entry(*e) for e in entries]


# Deals on both sides of 2^31 and 2^32, where FreeCell Pro's numbering changes, and the last.
ACROSS_THE_NUMBERING = (1, 2, 3, 617, 2 ** 31 - 1, 2 ** 31, 2 ** 31 + 1, 2 ** 32 - 1, 2 ** 32,
                        2 ** 32 + 1, 2 ** 33 - 1)


def same_items(ours, theirs):
    assert [i.deal for i in ours] == [i.deal for i in theirs]
    assert [i.verdict for i in ours] == [i.verdict for i in theirs]
    assert [i.entry for i in ours] == [i.entry for i in theirs]
    assert timeless(map(json.loads, (i.row for i in ours))) == \
        timeless(map(json.loads, (i.row for i in theirs)))
    assert [list(json.loads(i.row)) for i in ours] == [list(json.loads(i.row)) for i in theirs]


# Deals of the default rules whose solver's first attempt finds no win: won by its full attempt
# (2502: a bounded search would find a win too; 6240: it would not), and 11982, not winnable.
PAST_THE_FIRST_ATTEMPT = (2502, 6240, 11982)


def as_the_whole_proof(monkeypatch, numbers, settings):
    """The Items of the deals as the plan makes them with no attempt made at once."""
    monkeypatch.setattr(work, "attempted", lambda deal, settings: (0.0, 0, None))
    items = [work.prove_deal(n, settings) for n in numbers]
    monkeypatch.undo()
    return items


@pytest.mark.parametrize("cells, fixed, back", [(4, False, False), (4, False, True),
                                                (3, True, False), (3, False, True)])
def test_a_deal_solved_at_once_gives_the_item_of_the_whole_proof(monkeypatch, cells, fixed, back):
    """The census's one C call a deal (prove.at_once) makes the row and entry that the whole
    proof (as `certify DEAL` runs it) makes, byte for byte, whatever the rules."""
    settings = work.Settings(cells, fixed, back)
    at_once = [n for n in ACROSS_THE_NUMBERING if work.attempted(n, settings)[2] is not None]
    assert len(at_once) > len(ACROSS_THE_NUMBERING) // 2  # (the others need the plan)
    ours = [work.prove_deal(n, settings) for n in ACROSS_THE_NUMBERING]
    same_items(ours, as_the_whole_proof(monkeypatch, ACROSS_THE_NUMBERING, settings))


def test_past_the_first_attempt_too(monkeypatch):
    """A deal won only by the solver's full attempt is won by it at once, without the bounded
    search between the two attempts; one not won goes on to the plan's search, the attempts
    not made again: the same items."""
    settings = work.Settings(4, False, False)
    assert [work.attempted(n, settings)[2] is None for n in PAST_THE_FIRST_ATTEMPT] == \
        [False, False, True]
    ours = [work.prove_deal(n, settings) for n in PAST_THE_FIRST_ATTEMPT]
    assert [i.verdict for i in ours] == ["win", "win", "no-win"]
    same_items(ours, as_the_whole_proof(monkeypatch, PAST_THE_FIRST_ATTEMPT, settings))


def test_a_deal_solved_at_once_gives_the_item_of_the_python_engine(monkeypatch):
    """... and that of the reference engine, in Python from the deal to the entry."""
    settings = work.Settings(4, False, True)
    ours = [work.prove_deal(n, settings) for n in ACROSS_THE_NUMBERING]
    monkeypatch.setattr(engine, "_search", None)
    monkeypatch.setattr(engine, "_solver", None)
    assert work.attempted(1, settings)[1:] == (0, None)
    same_items(ours, [work.prove_deal(n, settings) for n in ACROSS_THE_NUMBERING])


def test_the_solver_runs_at_once_only_as_far_as_it_stands_for_the_plan():
    """The full attempt where nothing can stop the plan before it; the first attempt alone
    where the budgets leave room for it only; none under a time limit (the plan's attempts
    grow and look at the clock)."""
    rules = Rules(4)
    full, line = at_once(1, rules)
    assert full == engine.solver_budget() and line is not None
    assert at_once(1, rules, max_positions=SOLVER_FIRST + 1) == (SOLVER_FIRST, line)
    assert at_once(1, rules, memory=SURE_MEMORY - 1) == (SOLVER_FIRST, line)
    assert at_once(1, rules, memory=SURE_MEMORY) == (full, line)
    assert at_once(1, rules, max_positions=SOLVER_FIRST) == (0, None)
    assert at_once(1, rules, time_limit=60.0) == (0, None)
    assert at_once(11982, rules) == (full, None)  # no win: the plan's search says so


def test_summary_and_json(reference, capsys):
    code, out, _ = run(capsys, SMALL, "--json", "--out", reference)  # all done: nothing to prove
    assert code == 0
    s = json.loads(out)
    assert (s["deals"], s["done"], s["won"], s["no_win"], s["unknown"], s["proved"]) == \
        (4, 4, 4, 0, 0, 0)
    assert s["no_win_deals"] == [] and s["unknown_deals"] == []
    assert s["range_certificate"] == str(reference / NAME)
    data = (reference / NAME).read_bytes()
    assert (s["bytes"], s["sha256"]) == (len(data), hashlib.sha256(data).hexdigest())
    assert s["results"] == str(reference / "results.jsonl")


def test_one_chunk_per_deal_and_two_workers_give_the_same_result(reference, tmp_path, capsys):
    code, _, _ = run(capsys, SMALL, "-j", 2, "--chunk", 1, "-q", "--out", tmp_path / "c")
    assert code == 0
    assert len(os.listdir(tmp_path / "c" / "chunks")) == 4
    assert timeless(table(tmp_path / "c")) == timeless(table(reference))
    assert (tmp_path / "c" / NAME).read_bytes() == (reference / NAME).read_bytes()


def test_a_longer_range_resumes_without_duplicates(reference, tmp_path, capsys):
    folder = tmp_path / "c"
    assert run(capsys, "1-2", "-q", "-j", 1, "--out", folder)[0] == 0
    code, out, err = run(capsys, SMALL, "-j", 2, "--out", folder)  # block 0 gains deals 3, 4
    assert code == 0 and out.splitlines()[0] == "4 deals: 4 won, 0 no win, 0 unknown"
    assert "2 deals proved in this run" in err
    assert timeless(table(folder)) == timeless(table(reference))
    assert (folder / NAME).read_bytes() == (reference / NAME).read_bytes()
    assert (folder / "1-2.msgpack.zst").exists()  # the first run's, left as it was
    # Once more: nothing to do, nothing changes.
    before = (folder / "results.jsonl").read_bytes()
    assert run(capsys, SMALL, "-q", "--out", folder)[0] == 0
    assert (folder / "results.jsonl").read_bytes() == before


def test_the_table_is_rebuilt_from_the_chunks(reference, tmp_path, capsys):
    folder = tmp_path / "c"
    assert run(capsys, SMALL, "-q", "-j", 1, "--out", folder)[0] == 0
    path = folder / "results.jsonl"
    good = path.read_bytes()
    for bad in (good[:len(good) - 25], b"not json\n" + good, good + good, b""):
        path.write_bytes(bad)  # torn by a crash, garbled, doubled, emptied
        assert run(capsys, SMALL, "-q", "--out", folder)[0] == 0
        assert path.read_bytes() == good


@pytest.mark.parametrize("damage, complaint", [
    (lambda p: p.write_bytes(p.read_bytes()[:-3]), "1-999.chunk.zst: cut short"),
    (lambda p: p.write_bytes(b"junk"), "1-999.chunk.zst: not zstd"),
    (lambda p: (p.parent / "notes.txt").write_text("mine"), "notes.txt is not a chunk file"),
    (lambda p: (p.parent / "0-9.chunk.zst").write_text(""), "0-9.chunk.zst is not a chunk file"),
    (lambda p: os.rename(p, p.parent / "1000-1999.chunk.zst"), "holds block 1-999, not 1000-1999"),
])
def test_a_damaged_folder_is_refused(tmp_path, capsys, damage, complaint):
    folder = tmp_path / "c"
    assert run(capsys, "1-2", "-q", "-j", 1, "--out", folder)[0] == 0
    damage(folder / "chunks" / "1-999.chunk.zst")
    code, out, err = run(capsys, "1-2", "-q", "--out", folder)
    assert code == 2 and out == "" and "is damaged" in err and complaint in err
    assert err.count("\n") == 1


def test_unknown_exits_3_writes_no_range_certificate_and_can_be_retried(tmp_path, capsys):
    folder = tmp_path / "c"
    code, out, _ = run(capsys, "11982-11982", "--max-positions", 1000, "-q", "--out", folder)
    assert code == 3
    assert out == ("1 deal: 0 won, 0 no win, 1 unknown (11982)\n"
                   "  no range certificate: 1 deals unknown; rerun with a bigger budget and "
                   "--retry-unknown\n")
    [row] = table(folder)
    assert row["claim"] == "unknown" and row["path"] is None and "max-positions" in row["reason"]
    assert not list(folder.glob("*.msgpack.zst"))
    assert run(capsys, "11982-11982", "-q", "--out", folder)[0] == 3  # done is done ...
    code, out, _ = run(capsys, "11982-11982", "--retry-unknown", "-q", "--out", folder)
    assert code == 0 and out.startswith("1 deal: 0 won, 1 no win (11982), 0 unknown\n")  # ... unless asked
    [row] = table(folder)
    assert row["claim"] == "no-win" and row["positions"] == known_count(11982, closure="autoplay")
    head, entries = ranges.read(folder / "11982-11982.msgpack.zst")
    assert [(d, c, n) for d, c, n, _ in entries] == [(11982, "no-win", known_count(11982, closure="autoplay"))]


def test_each_deals_search_keeps_to_the_memory_budget(tmp_path, capsys):
    folder = tmp_path / "c"
    code, _, _ = run(capsys, "11982-11982", "--memory", "1M", "-q", "--out", folder)
    assert code == 3
    [row] = table(folder)
    assert row["claim"] == "unknown" and "--memory 1" in row["reason"]
    code, _, _ = run(capsys, "11982-11982", "--memory", "200M", "--retry-unknown", "-q",
                     "--out", folder)
    assert code == 0 and table(folder)[0]["positions"] == known_count(11982, closure="autoplay")


def test_the_default_memory_budget_is_shared_among_the_local_workers(monkeypatch):
    monkeypatch.setattr(command, "default_memory", lambda: 8 * 2**30)
    assert command.memory_budget(None, 4, None) == 2 * 2**30
    assert command.memory_budget(None, 1, None) == 8 * 2**30
    assert command.memory_budget(2**20, 4, None) == 2**20
    assert command.memory_budget(None, 4, "127.0.0.1:8786") is None
    monkeypatch.setattr(command, "default_memory", lambda: None)
    assert command.memory_budget(None, 4, None) is None


def test_rules_go_in_the_names_and_the_header(tmp_path, capsys):
    code, out, _ = run(capsys, "1-2", "--cells", 3, "--foundation-moves", "-q", "--out",
                       tmp_path / "c")
    assert code == 0
    path = tmp_path / "c" / "1-2-cells3-fm.msgpack.zst"
    head, _ = ranges.read(path)
    assert (head["cells"], head["foundation_moves"], head["symmetry"]) == (3, True, "columns")
    code, _, _ = run(capsys, "extract", path, 2, "-o", tmp_path)
    assert code == 0 and (tmp_path / "2-cells3-fm.msgpack.zst").exists()


def test_output_elsewhere(reference, tmp_path, capsys):
    code, out, _ = run(capsys, SMALL, "-q", "--out", reference, "-o", tmp_path / "r.zst")
    assert code == 0 and (tmp_path / "r.zst").read_bytes() == (reference / NAME).read_bytes()
    code, out, _ = run(capsys, SMALL, "-q", "--out", reference, "-o", tmp_path)
    assert code == 0 and (tmp_path / NAME).read_bytes() == (reference / NAME).read_bytes()


@pytest.mark.parametrize("argv, complaint", [
    (["5-3"], "bad range 5-3"),
    (["0-10"], "bad range 0-10"),
    (["1-8589934592"], "bad range"),
    (["1-"], "not a range of deals"),
    (["1-4", "-j", "0"], "must be at least 1"),
    (["1-4", "--max-positions", "0"], "--max-positions"),
    (["1-4", "--time-limit", "-1"], "--time-limit"),
    (["1-4", "--chunk", "0"], "--chunk must be 1 to"),
    (["1-4", "-o", "no/such/folder/r.msgpack.zst"], "there is no folder"),
    (["1-4", "-j", "2", "--scheduler", "tcp://127.0.0.1:1"], "do not go together"),
    (["1-4", "--bogus"], "unrecognized arguments: --bogus"),
    (["1-4", "-j", "two"], "not a whole number: 'two'"),
])
def test_bad_input_exits_2_and_writes_nothing(tmp_path, monkeypatch, capsys, argv, complaint):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith("certify: ") and complaint in err and err.count("\n") == 1
    assert os.listdir(tmp_path) == []


def test_folder_of_other_settings_or_other_things_is_refused(reference, tmp_path, capsys):
    code, _, err = run(capsys, SMALL, "--cells", 3, "-q", "--out", reference)
    assert code == 2 and "under other rules (4 free cells, autoplay)" in err
    code, _, err = run(capsys, SMALL, "--chunk", 10, "-q", "--out", reference)
    assert code == 2 and "in chunks of 1000 deals, not 10" in err
    (tmp_path / "old").mkdir()
    settings = work.Settings(4, False, False).recorded()
    # A census begun by a certify that wrote version 2 bodies is refused, not mixed or upgraded.
    (tmp_path / "old" / "census.json").write_text(json.dumps({**settings, "body_version": 2}))
    code, _, err = run(capsys, SMALL, "-q", "--out", tmp_path / "old")
    assert code == 2 and err.count("\n") == 1
    assert "with certificate bodies of format version 2 (this certify writes version 3); " \
           "use another --out" in err
    (tmp_path / "older").mkdir()
    (tmp_path / "older" / "census.json").write_text(
        json.dumps({"cells": 4, "fixed_columns": False, "foundation_moves": False}))
    code, _, err = run(capsys, SMALL, "-q", "--out", tmp_path / "older")
    assert code == 2 and "of an earlier layout (a certificate file per deal)" in err
    (tmp_path / "notes.txt").write_text("mine")
    code, _, err = run(capsys, SMALL, "-q", "--out", tmp_path)
    assert code == 2 and "holds no census" in err
    code, _, err = run(capsys, SMALL, "-q", "--out", tmp_path / "notes.txt")
    assert code == 2 and "not a folder" in err


def test_one_census_per_folder_at_a_time(reference, capsys):
    with open(reference / "census.json", "rb") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        code, _, err = run(capsys, SMALL, "-q", "--out", reference)
    assert code == 2 and "another census is writing" in err


def test_progress_reads_the_workers_counts_at_each_redraw():
    log = io.StringIO()
    tally = [0, 0, 0]
    now = [0.0]
    shown = progress.Counter(10, 2, read=lambda: command.tallied([2, 0, 0], tally), stream=log,
                             terminal=False, every=5.0, now=lambda: now[0], clock_thread=False)
    tally[:] = [3, 1, 0]  # the workers finish four deals
    now[0] = 6.0
    shown.tick()
    shown.close()
    assert log.getvalue() == "[6.0 s] 6/10 deals 60%, 0.7/s, 6.0 s left | 1 no win, 0 unknown\n"


def test_a_failing_deal_stops_the_census_and_keeps_finished_chunks(tmp_path, monkeypatch, capsys):
    real = work.at_once  # what a census deal's proof calls first

    def solve(number, *args):
        if number == 3:
            raise ZeroDivisionError("a bug")
        return real(number, *args)

    monkeypatch.setattr(work, "at_once", solve)
    folder = tmp_path / "c"
    code, out, err = run(capsys, SMALL, "-j", 1, "--chunk", 1, "-q", "--out", folder)
    assert code == 1 and out == ""
    assert "census stopped: deal 3: ZeroDivisionError: a bug" in err
    assert [r["deal"] for r in table(folder)] == [1, 2]
    monkeypatch.setattr(work, "at_once", real)
    assert run(capsys, SMALL, "-q", "--out", folder)[0] == 0
    assert [r["deal"] for r in table(folder)] == [1, 2, 3, 4]


def test_scheduler_without_dask_is_bad_input(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if not installed
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, SMALL, "--scheduler", "tcp://127.0.0.1:8786", "-q")
    assert code == 2 and "--scheduler needs Dask: pip install '.[dask]'" in err
    assert os.listdir(tmp_path) == []


def test_unreachable_scheduler_is_bad_input(tmp_path, monkeypatch, capsys):
    dask = pytest.importorskip("dask")
    pytest.importorskip("distributed")
    monkeypatch.chdir(tmp_path)
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        code, _, err = run(capsys, SMALL, "--scheduler", "tcp://127.0.0.1:9", "-q")
    assert code == 2 and "cannot reach the Dask scheduler" in err
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("address", ["127.0.0.1", "tcp://127.0.0.1", "nonsense"])
def test_a_scheduler_address_without_a_port_is_refused_at_once(address, tmp_path):
    pytest.importorskip("distributed")
    # In a process of its own: Dask's Client, given such an address, left a thread that kept
    # the process from ever exiting.
    run = subprocess.run([sys.executable, "-m", "certify", "1-4", "--scheduler", address,
                          "--out", "c", "-q"], capture_output=True, text=True, cwd=tmp_path,
                         timeout=60)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.count("\n") == 1
    assert run.stderr.startswith(f"certify: --scheduler {address}: not an address with a port")
    assert os.listdir(tmp_path) == []


def test_rows_of_a_folder_begun_before_claim_was_the_word_are_rewritten():
    # The table's rows have "claim", and "verdict" beside it for one release (docs/json.md),
    # whether their chunk file was written with the one or the other.
    old = json.dumps({"deal": 7, "verdict": "win", "positions": 90, "reason": None})
    assert list(json.loads(current_row(old)).items()) == [
        ("deal", 7), ("claim", "win"), ("verdict", "win"), ("positions", 90), ("reason", None)]
    for claim in ("win", "no-win", "unknown"):
        new = json.dumps({"deal": 7, "claim": claim, "reason": "verdict: , x"})
        assert json.loads(current_row(new)) == {"deal": 7, "claim": claim, "verdict": claim,
                                                "reason": "verdict: , x"}


def test_an_interrupted_census_keeps_every_task_that_came_back(tmp_path, monkeypatch, capsys):
    # Tasks of 2 deals in a block of 1,000: deals 1-4 came back in two tasks when deal 6 was
    # interrupted, and their block was not finished; they were once dropped all the same.
    real = work.prove_deal

    def prove_deal(number, settings, attempt=None):
        if number == 6:
            raise KeyboardInterrupt
        return real(number, settings, attempt)

    monkeypatch.setattr(work, "prove_deal", prove_deal)
    folder = tmp_path / "c"
    code, out, err = run(capsys, "1-8", "-j", 1, "-q", "--out", folder)
    assert code == 130 and out == ""
    assert ("interrupted; 4 deals proved in this run are kept (1 more, proved by tasks still "
            f"running, is not) in {folder}; run the same command again to resume") in err
    assert [r["deal"] for r in table(folder)] == [1, 2, 3, 4]
    monkeypatch.setattr(work, "prove_deal", real)
    code, _, _ = run(capsys, "1-8", "-j", 1, "-q", "--out", folder)
    assert code == 0 and [r["deal"] for r in table(folder)] == list(range(1, 9))


def test_the_summary_fits_80_columns():
    # The million-deal census: eight deals cannot be won.
    eight = [11982, 146692, 186216, 455889, 495505, 512118, 517776, 781948]
    s = {"deals": 1_000_000, "done": 1_000_000, "won": 999_992, "no_win": 8, "unknown": 0,
         "no_win_deals": eight, "unknown_deals": []}
    lines = command.summary_line(s).splitlines()
    assert lines[0] == "1,000,000 deals: 999,992 won, 8 no win, 0 unknown"
    assert " ".join(lines[1:]).split() == ["no", "win:"] + [f"{n}," for n in eight[:-1]] + \
        [str(eight[-1])]
    assert all(len(line) <= 80 for line in lines)
    many = {**s, "no_win": 30, "no_win_deals": list(range(1_000_000, 1_000_030)),
            "unknown": 3, "unknown_deals": [5, 6, 7]}
    lines = command.summary_line(many).splitlines()
    assert all(len(line) <= 80 for line in lines) and "and 10 more" in lines[-2]
    assert lines[-1] == "  unknown: 5, 6, 7"
    short = {**s, "deals": 16, "won": 15, "no_win": 1, "no_win_deals": [11982]}
    assert command.summary_line(short) == "16 deals: 15 won, 1 no win (11982), 0 unknown"
