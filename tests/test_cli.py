"""The certify command line: verdicts, exit codes, JSON, and what it refuses."""

import json
import subprocess
import sys

import pytest

from certify.cli import main


def certify(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "certify", *args], capture_output=True,
                          text=True, cwd=cwd)


def test_11982_json_and_determinism(tmp_path):
    out = certify("11982", "--json", "-o", str(tmp_path / "a.msgpack.zst"))
    assert out.returncode == 0, out.stderr
    row = json.loads(out.stdout)
    assert {"deal", "verdict", "positions", "path", "sha256"} <= set(row)
    assert (row["deal"], row["verdict"], row["positions"]) == (11982, "no-win", 83239)
    again = json.loads(certify("11982", "--json", "-o", str(tmp_path / "b.msgpack.zst")).stdout)
    assert again["sha256"] == row["sha256"]
    assert (tmp_path / "a.msgpack.zst").read_bytes() == (tmp_path / "b.msgpack.zst").read_bytes()


def test_default_output_name(tmp_path):
    out = certify("11982", "-q", cwd=tmp_path)
    assert out.returncode == 0
    assert "NO WIN" in out.stdout and "sha256" in out.stdout
    assert [p.name for p in tmp_path.iterdir()] == ["11982.msgpack.zst"]


@pytest.mark.parametrize("args", [["0"], ["-5"], ["8589934592"], ["eleven"], ["1.5"], [],
                                  ["1", "--cells", "9"], ["1", "--board", "x"]])
def test_bad_input_exits_2_with_one_line(args, tmp_path):
    out = certify(*args, cwd=tmp_path)
    assert out.returncode == 2
    assert len(out.stderr.strip().splitlines()) <= 2  # argparse adds a usage line
    assert list(tmp_path.iterdir()) == []


def test_budget_exits_3_and_writes_nothing(tmp_path):
    out = certify("11982", "--max-positions", "2000", "--json", cwd=tmp_path)
    assert out.returncode == 3
    assert json.loads(out.stdout)["verdict"] == "unknown"
    assert list(tmp_path.iterdir()) == []


def test_board_file(tmp_path):
    board = tmp_path / "endgame.txt"
    board.write_text("Foundations: H-K C-K D-Q S-Q\nFreecells: -\n: KS KD\n")
    out = certify("--board", str(board), "--cells", "1", "--json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    row = json.loads(out.stdout)
    assert row["verdict"] == "win" and (tmp_path / "endgame.msgpack.zst").exists()
    bad = tmp_path / "bad.txt"
    bad.write_text("Foundations: H-K C-K D-Q S-Q\n: KS KD KD\n")
    out = certify("--board", str(bad), cwd=tmp_path)
    assert out.returncode == 2 and "KD appears twice" in out.stderr


def test_show_rows(capsys):
    assert main(["show", "11982", "--rows"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "KC 8D 2S 3S"
