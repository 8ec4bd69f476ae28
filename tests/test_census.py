"""The census (certify A-B): rows, certificates, resuming after a kill -9, torn lines, Dask."""

import fcntl
import hashlib
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from certify import census, cli
from certify.deals import deal
from certify.prove import Result, prove
from certify.rules import Rules, start
from certify.solver import solve

SMALL = "1-4"  # a few quick deals
NO_WIN_RANGE = "11980-11984"  # around 11982, the one deal below 32,000 that cannot be won
RUN_CLI = "import sys; from certify.cli import main; sys.exit(main(sys.argv[1:]))"


def run(capsys, *argv):
    """(exit code, stdout, stderr) of `certify ARGV...`."""
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def table(folder):
    with open(folder / census.TABLE, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def timeless(rows):
    """Rows without `seconds`, the one field that differs from run to run."""
    return [{k: v for k, v in r.items() if k != "seconds"} for r in rows]


def certificates(folder):
    return {p.name: p.read_bytes() for p in sorted(folder.glob("*.msgpack.zst"))}


def reference_run(tmp_path_factory, span):
    """An uninterrupted census in one process: the table every other run of `span` must match."""
    folder = tmp_path_factory.mktemp("reference") / "census"
    assert census.main([span, "-j", "1", "-q", "--out", str(folder)]) == 0
    return folder


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    return reference_run(tmp_path_factory, SMALL)


@pytest.fixture(scope="module")
def reference_no_win(tmp_path_factory):
    return reference_run(tmp_path_factory, NO_WIN_RANGE)


def test_rows_and_certificates(reference):
    rows = table(reference)
    assert [r["deal"] for r in rows] == [1, 2, 3, 4]
    keys = list(Result("win", 0, 0.0, 52, moves=[]).as_json(1))
    for r in rows:
        assert list(r) == keys  # the keys of `certify --json`, in the same order
        assert r["verdict"] == "win" and r["reason"] is None
        assert r["moves"] > 0 and r["seconds"] >= 0
        data = (reference / r["path"]).read_bytes()
        assert r["path"] == f"{r['deal']}.msgpack.zst"
        assert hashlib.sha256(data).hexdigest() == r["sha256"] and len(data) == r["bytes"]
    assert sorted(os.listdir(reference)) == sorted(
        [census.TABLE, census.SETTINGS] + [f"{d}.msgpack.zst" for d in range(1, 5)])


def test_certificates_are_those_of_prove_with_the_solver(reference, tmp_path):
    rules = Rules(4)
    result = prove(start(deal(3)), rules, 3, tmp_path / "3.msgpack.zst",
                   solver=lambda position: solve(position, rules))
    assert (tmp_path / "3.msgpack.zst").read_bytes() == (reference / "3.msgpack.zst").read_bytes()
    row = table(reference)[2]
    assert row["sha256"] == result.sha256 and row["moves"] == len(result.moves)


def test_summary_line_and_exit_code(reference_no_win, tmp_path, capsys):
    code, out, _ = run(capsys, NO_WIN_RANGE, "-j", 2, "-q", "--out", tmp_path / "c")
    assert code == 0
    assert out == "5 deals: 4 won, 1 no win (11982), 0 unknown\n"
    verdicts = {r["deal"]: r["verdict"] for r in table(tmp_path / "c")}
    assert verdicts == {11980: "win", 11981: "win", 11982: "no-win", 11983: "win", 11984: "win"}
    assert timeless(table(tmp_path / "c")) == timeless(table(reference_no_win))
    assert certificates(tmp_path / "c") == certificates(reference_no_win)


def test_json_summary(reference, capsys):
    code, out, _ = run(capsys, SMALL, "--json", "--out", reference)  # all done: nothing to prove
    assert code == 0
    s = json.loads(out)
    assert (s["deals"], s["won"], s["no_win"], s["unknown"], s["proved"]) == (4, 4, 0, 0, 0)
    assert s["no_win_deals"] == [] and s["unknown_deals"] == []


def test_parallel_run_gives_the_same_table(reference, tmp_path, capsys):
    code, _, _ = run(capsys, SMALL, "-j", 2, "-q", "--out", tmp_path / "c")
    assert code == 0
    assert timeless(table(tmp_path / "c")) == timeless(table(reference))
    assert certificates(tmp_path / "c") == certificates(reference)


def test_rerun_resumes_without_duplicates(reference, tmp_path, capsys):
    folder = tmp_path / "c"
    assert run(capsys, "1-2", "-q", "-j", 1, "--out", folder)[0] == 0
    first = (folder / census.TABLE).read_text()
    code, out, err = run(capsys, SMALL, "-j", 2, "--out", folder)
    assert code == 0 and out == "4 deals: 4 won, 0 no win, 0 unknown\n"
    assert "2 deals proved in this run" in err
    assert (folder / census.TABLE).read_text().startswith(first)  # rows 1, 2 kept as they were
    assert timeless(table(folder)) == timeless(table(reference))
    # Once more: nothing to do, nothing changes.
    before = (folder / census.TABLE).read_bytes()
    assert run(capsys, SMALL, "-q", "--out", folder)[0] == 0
    assert (folder / census.TABLE).read_bytes() == before


def test_torn_last_line_is_cut_away(reference, tmp_path, capsys):
    folder = tmp_path / "c"
    assert run(capsys, SMALL, "-q", "-j", 1, "--out", folder)[0] == 0
    path = folder / census.TABLE
    data = path.read_bytes()
    start_of_last = data.rindex(b"\n", 0, len(data) - 1) + 1
    path.write_bytes(data[:start_of_last + 25])  # deal 4's row, cut short by a crash
    assert run(capsys, SMALL, "-q", "--out", folder)[0] == 0
    assert timeless(table(folder)) == timeless(table(reference))


def test_garbled_table_is_refused(tmp_path, capsys):
    folder = tmp_path / "c"
    assert run(capsys, "3-4", "-q", "-j", 1, "--out", folder)[0] == 0
    path = folder / census.TABLE
    path.write_text("not json\n" + path.read_text())
    before = path.read_bytes()
    code, out, err = run(capsys, "3-4", "-q", "--out", folder)
    assert code == 2 and out == "" and "line 1 is not a result row" in err
    assert path.read_bytes() == before
    path.write_text(2 * path.read_text().splitlines(keepends=True)[-1])
    code, _, err = run(capsys, "3-4", "-q", "--out", folder)
    assert code == 2 and "two rows for deal 4" in err


def test_kill_9_loses_nothing_and_duplicates_nothing(reference_no_win, tmp_path, capsys):
    """Kill the census (the parent, as `kill -9 PID` would) after its first row, while 11982
    (seconds of search) is in flight; its workers must die with it, and a rerun must end with
    the table of an uninterrupted run."""
    folder = tmp_path / "c"
    argv = [sys.executable, "-c", RUN_CLI, NO_WIN_RANGE, "-j", "2", "-q", "--out", str(folder)]
    proc = subprocess.Popen(argv, start_new_session=True, stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            path = folder / census.TABLE
            if path.exists() and path.read_bytes().count(b"\n") >= 1:
                break
            assert proc.poll() is None, "the census ended before it could be killed"
            time.sleep(0.01)
        assert proc.poll() is None, "the census ended before it could be killed"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        killed_rows = len(table(folder))
        assert 1 <= killed_rows < 5
        # The orphaned workers notice and exit (within a second or so).
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and group_alive(proc.pid):
            time.sleep(0.1)
        assert not group_alive(proc.pid), "worker processes outlived the killed census"
    finally:
        if group_alive(proc.pid):
            os.killpg(proc.pid, signal.SIGKILL)
    code, out, err = run(capsys, NO_WIN_RANGE, "-j", 2, "--out", folder)
    assert code == 0, err
    assert f"{5 - killed_rows} deals proved in this run" in err
    assert timeless(table(folder)) == timeless(table(reference_no_win))
    assert certificates(folder) == certificates(reference_no_win)
    assert not [n for n in os.listdir(folder) if n.startswith(".tmp-")]


def group_alive(pgid):
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def test_unknown_exits_3_and_can_be_retried(tmp_path, capsys):
    folder = tmp_path / "c"
    code, out, _ = run(capsys, "11982-11982", "--max-positions", 1000, "-q", "--out", folder)
    assert code == 3 and out == "1 deal: 0 won, 0 no win, 1 unknown (11982)\n"
    [row] = table(folder)
    assert row["verdict"] == "unknown" and row["path"] is None and "max-positions" in row["reason"]
    assert not certificates(folder)
    assert run(capsys, "11982-11982", "-q", "--out", folder)[0] == 3  # done is done ...
    code, out, _ = run(capsys, "11982-11982", "--retry-unknown", "-q", "--out", folder)
    assert code == 0 and out == "1 deal: 0 won, 1 no win (11982), 0 unknown\n"  # ... unless asked
    [row] = table(folder)
    assert row["verdict"] == "no-win" and list(certificates(folder)) == ["11982.msgpack.zst"]


@pytest.mark.parametrize("argv, complaint", [
    (["5-3"], "bad range 5-3"),
    (["0-10"], "bad range 0-10"),
    (["1-8589934592"], "bad range"),
    (["1-"], "not a range of deals"),
    (["1-4", "-j", "0"], "at least one worker"),
    (["1-4", "--max-positions", "0"], "--max-positions"),
    (["1-4", "--time-limit", "-1"], "--time-limit"),
    (["1-4", "-j", "2", "--scheduler", "tcp://127.0.0.1:1"], "do not go together"),
    (["1-4", "--bogus"], "unrecognized arguments: --bogus"),
    (["1-4", "-j", "two"], "invalid int value: 'two'"),
])
def test_bad_input_exits_2_and_writes_nothing(tmp_path, monkeypatch, capsys, argv, complaint):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith("certify: ") and complaint in err and err.count("\n") == 1
    assert os.listdir(tmp_path) == []


def test_folder_of_other_rules_or_other_things_is_refused(reference, tmp_path, capsys):
    code, _, err = run(capsys, SMALL, "--cells", 3, "-q", "--out", reference)
    assert code == 2 and "under other rules (4 free cells)" in err
    (tmp_path / "notes.txt").write_text("mine")
    code, _, err = run(capsys, SMALL, "-q", "--out", tmp_path)
    assert code == 2 and "holds no census" in err
    code, _, err = run(capsys, SMALL, "-q", "--out", tmp_path / "notes.txt")
    assert code == 2 and "not a folder" in err


def test_one_census_per_folder_at_a_time(reference, capsys):
    with open(reference / census.SETTINGS, "rb") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        code, _, err = run(capsys, SMALL, "-q", "--out", reference)
    assert code == 2 and "another census is writing" in err


def test_progress_line(capsys):
    counts = {"win": 5, "no-win": 1, "unknown": 0}
    progress = census.Progress(32000, counts, enabled=True)
    counts["win"] += 4
    progress.draw(progress.t0 + 2.0)   # 4 deals in 2 s: 31,990 to go at 2 a second
    err = capsys.readouterr().err
    assert err.startswith("\r  [                    ] 10/32,000   0.0%  2.0 deals/s  ETA 4h26m")
    assert err.endswith("| 9 won, 1 no win, 0 unknown ")


def test_a_failing_deal_stops_the_census_and_keeps_the_rows(tmp_path, monkeypatch, capsys):
    real = census.solve

    def solve(position, rules):
        if position == start(deal(3)):
            raise ZeroDivisionError("a bug")
        return real(position, rules)

    monkeypatch.setattr(census, "solve", solve)
    folder = tmp_path / "c"
    code, out, err = run(capsys, SMALL, "-j", 1, "-q", "--out", folder)
    assert code == 1 and out == ""
    assert "census stopped: deal 3: ZeroDivisionError: a bug" in err
    assert [r["deal"] for r in table(folder)] == [1, 2]
    monkeypatch.setattr(census, "solve", real)
    assert run(capsys, SMALL, "-q", "--out", folder)[0] == 0
    assert [r["deal"] for r in table(folder)] == [1, 2, 3, 4]


def test_scheduler_without_dask_is_bad_input(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if not installed
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, SMALL, "--scheduler", "tcp://127.0.0.1:8786", "-q")
    assert code == 2 and "--scheduler needs Dask: pip install '.[dask]'" in err
    assert os.listdir(tmp_path) == []


def test_dask_gives_the_same_table(reference_no_win, tmp_path, capsys):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        code, out, err = run(capsys, NO_WIN_RANGE, "--scheduler", cluster.scheduler_address, "-q",
                             "--out", tmp_path / "c")
    assert code == 0, err
    assert out == "5 deals: 4 won, 1 no win (11982), 0 unknown\n"
    assert timeless(table(tmp_path / "c")) == timeless(table(reference_no_win))
    assert certificates(tmp_path / "c") == certificates(reference_no_win)


def test_unreachable_scheduler_is_bad_input(tmp_path, monkeypatch, capsys):
    dask = pytest.importorskip("dask")
    pytest.importorskip("distributed")
    monkeypatch.chdir(tmp_path)
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        code, _, err = run(capsys, SMALL, "--scheduler", "tcp://127.0.0.1:9", "-q")
    assert code == 2 and "cannot reach the Dask scheduler" in err
    assert os.listdir(tmp_path) == []
