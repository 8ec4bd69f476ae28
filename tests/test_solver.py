"""The fast solver: its wins replay under the plain rules, are short, and `check` accepts them."""

import json
import os
import shutil
import subprocess
import sys

import pytest
from hypothesis import given

from certify.commands import cli
from certify.game import deals, notation
from certify.game.board import write_board
from certify.outcome import WIN
from certify.game.rules import HOME, Rules, replays_to_win, start
from certify.engine.reference.search import search
from certify.engine.reference.solver import autoplay, search_in_turns, solve
from support.boards import small_boards


def check(path):
    """Run the trusted checker on a certificate, as a user would."""
    command = [shutil.which("check")] if shutil.which("check") else [sys.executable, "-m", "check"]
    return subprocess.run(command + [str(path)], capture_output=True, text=True)


@pytest.mark.parametrize("deal", [1, 2, 3, 617, 1941, 31465])
def test_solver_wins_replay_to_a_won_position(deal):
    position, rules = start(deals.deal(deal)), Rules(4)
    line = solve(position, rules)
    assert line is not None
    assert replays_to_win(position, line, rules)
    # Short enough to follow: established solvers need about 100-130 notation moves.
    assert len(notation.to_notation(position, line, 4)) <= 130


def test_deal_1_is_won_in_a_line_a_person_can_follow():
    position = start(deals.deal(1))
    line = solve(position, Rules(4))
    written = notation.to_notation(position, line, 4)
    assert len(line) < 150 and len(written) <= 110
    assert sum(1 for _, dest in line if dest == HOME) == 52


@pytest.mark.parametrize("ncells", [2, 3, 5, 8])
def test_solver_keeps_to_the_number_of_free_cells(ncells):
    position = start(deals.deal(3))
    for rules in (Rules(ncells), Rules(ncells, foundation_moves=True)):
        line = solve(position, rules)
        # the replay allows a card into a cell only while fewer than ncells are full
        assert line is not None and replays_to_win(position, line, rules)


SOLVE_IN_A_FRESH_PROCESS = """
from certify.game import deals
from certify.game.rules import Rules, start
from certify.engine.reference.solver import solve
for deal, cells in ((25, 4), (3, 2), (2**31 + 25, 4)):
    print(deal, cells, solve(start(deals.deal(deal)), Rules(cells)))
"""


def test_solver_is_deterministic_across_processes():
    # Two fresh interpreters with different hash seeds (set and dict order change with them):
    # the same lines, and the same as in this process.
    runs = [subprocess.run([sys.executable, "-c", SOLVE_IN_A_FRESH_PROCESS], capture_output=True, text=True,
                           env={**os.environ, "PYTHONHASHSEED": seed}) for seed in ("1", "2")]
    assert [r.returncode for r in runs] == [0, 0], runs[0].stderr + runs[1].stderr
    assert runs[0].stdout == runs[1].stdout
    here = "".join(f"{d} {c} {solve(start(deals.deal(d)), Rules(c))}\n" for d, c in ((25, 4), (3, 2), (2**31 + 25, 4)))
    assert runs[0].stdout == here and "None" not in here


def test_solver_gives_up_on_an_unwinnable_deal():
    # (How fast it gives up is benchmarks/bench_solver.py's to measure, not a test's.)
    assert solve(start(deals.deal(11982)), Rules(4), budget=2000) is None
    # With no free cells its graph is small enough to exhaust: it gives up.
    assert search_in_turns(start(deals.deal(1)), 0, 10**6) is None


@given(small_boards())
def test_solver_finds_a_win_whenever_there_is_one(board):
    """Supermoves, one empty column standing for all and safe automatic foundation moves lose
    no wins: on small boards the solver wins exactly when the exhaustive search can."""
    position, ncells = board
    rules = Rules(ncells)
    line = solve(position, rules)
    assert (line is not None) == (search(position, rules).verdict == WIN)
    if line is not None:
        assert replays_to_win(position, line, rules)


def test_autoplay_only_makes_safe_moves():
    # AH and 2H are home-bound at once; 3H waits while a black two (2C, 2S) is out.
    found = bytes([0, 13, 0, 0])
    cols = (bytes([2]), bytes([6]), bytes([10]), b"", b"", b"", b"", b"")
    line, after = autoplay((found, b"", cols))
    assert line == [(2, HOME), (6, HOME)]
    assert after[0] == bytes([0, 13, 2, 0])


# ---- the command line ---------------------------------------------------------------------

def run_certify(argv, capsys):
    code = cli.main(argv)
    return code, capsys.readouterr().out


def test_certify_uses_the_solver_and_check_verifies(tmp_path, capsys):
    out = tmp_path / "1.msgpack.zst"
    code, text = run_certify(["1", "-q", "--json", "--notation", "-o", str(out)], capsys)
    assert code == 0
    shown = json.loads(text)
    assert shown["claim"] == "win" and shown["positions"] == shown["moves"] + 1  # the line only
    assert shown["moves"] < 150
    moves = shown["notation"].split()
    assert 52 < len(moves) <= 110 and all(len(m) == 2 for m in moves)
    checked = check(out)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    # the same run writes the same bytes
    again = tmp_path / "again.msgpack.zst"
    run_certify(["1", "-q", "-o", str(again)], capsys)
    assert again.read_bytes() == out.read_bytes()


def test_notation_is_printed_ten_moves_a_line(tmp_path, capsys):
    code, text = run_certify(["2", "-q", "--notation", "-o", str(tmp_path / "2.zst")], capsys)
    assert code == 0
    head, _, rest = text.partition("In standard notation, ")
    lines = rest.splitlines()[1:]
    assert lines and all(len(line.split()) == 10 for line in lines[:-1])
    assert 1 <= len(lines[-1].split()) <= 10


def test_no_solver_searches_exhaustively(tmp_path, capsys):
    # A board close to the end, so that the exhaustive search is quick (with every move: safe
    # autoplay would win it before the search makes a move).
    found, cells, cols = bytes([11, 11, 13, 13]), b"", [b""] * 8
    cols[0] = bytes([12 * 4, 11 * 4 + 1, 11 * 4])  # KC QD QC
    cols[1] = bytes([12 * 4 + 1])  # KD
    board = tmp_path / "end.txt"
    board.write_text(write_board((found, cells, tuple(cols))))
    code, text = run_certify(["--board", str(board), "-q", "--json", "--no-solver",
                              "--no-autoplay", "-o", str(tmp_path / "a.zst")], capsys)
    exhaustive = json.loads(text)
    assert code == 0 and exhaustive["positions"] > exhaustive["moves"] + 1
    code, text = run_certify(["--board", str(board), "-q", "--json", "--no-autoplay",
                              "-o", str(tmp_path / "b.zst")], capsys)
    solved = json.loads(text)
    assert code == 0 and solved["positions"] == solved["moves"] + 1  # the solver's line only
    for name in ("a.zst", "b.zst"):
        assert check(tmp_path / name).returncode == 0


def test_no_win_has_no_notation(tmp_path, capsys):
    code, text = run_certify(["11982", "-q", "--json", "--notation",
                              "-o", str(tmp_path / "11982.zst")], capsys)
    assert code == 0
    shown = json.loads(text)
    assert shown["claim"] == "no-win" and shown["notation"] is None


@pytest.mark.slow
def test_solver_wins_the_first_thousand_deals():
    rules = Rules(4)
    for deal in range(1, 1001):
        position = start(deals.deal(deal))
        line = solve(position, rules)
        assert line is not None and replays_to_win(position, line, rules), deal
