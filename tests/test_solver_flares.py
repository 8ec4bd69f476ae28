"""The solver's flares (solver.FLARES): the winnable deals its main attempt misses are won with
lines a person can follow, before the exhaustive search, the same in C as in Python, the same
in every process.

The deals below ten million that the main attempt (STYLES within BUDGET) does not win: the
exhaustive search's depth-first lines for them ran to 3,439..928,635 moves, and 7435626 it did
not finish (135M positions).
"""

import os
import shutil
import subprocess
import sys

import pytest

from certify.format import reader, spec, writer
from certify.commands import cli
from certify.game import deals
from certify import engine
from certify.run import prove
from certify.engine.reference import solver
from certify.engine import _solver
from certify.outcome import NO_WIN, WIN
from certify.game.rules import Rules, replays_to_win, start

MISSED = (1341197, 1463800, 2898418, 3867127, 4177272, 4306977, 4380750, 5405189, 6295822,
          6961408, 6987992, 7899699, 7435626)
FASTEST = (1341197, 5405189)  # of MISSED, the two the whole plan wins soonest
SHORT = 300  # single-card moves: a line of a few hundred at most (today's: 79 to 200)


def check(path):
    """The trusted checker on a certificate, as a user runs it."""
    command = [shutil.which("check")] if shutil.which("check") else [sys.executable, "-m", "check"]
    return subprocess.run(command + [str(path)], capture_output=True, text=True)


def native(position, ncells, budget, styles=None):
    found, cells, cols = position
    line = _solver.solve(found, cells, cols, Rules(ncells), budget, styles)
    return None if line is None else list(zip(line[::2], line[1::2]))


def won_by_certify(deal, tmp_path, capsys):
    """`certify DEAL -o FILE` (the whole plan), then `check FILE`: the line in the file."""
    out = tmp_path / f"{deal}.msgpack.zst"
    assert cli.main([str(deal), "-q", "-o", str(out)]) == 0
    capsys.readouterr()
    checked = check(out)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    read = reader.load(out)
    assert read.claim == WIN and read.deal == deal
    return read.line(), out


# ---- the plan ----------------------------------------------------------------------------

def test_the_plan_tries_the_flares_after_the_full_attempt_and_before_the_whole_search():
    steps = [(type(step).__name__, getattr(step, "size", None)) for step in prove.PLAN]
    assert steps == [("Solve", prove.SOLVER_FIRST), ("Search", prove.SEARCH_FIRST),
                     ("Solve", None), ("Flares", None), ("Search", None)]


def test_the_flares_are_bounded():
    """Each flare has its own budget, and a deal none of them wins costs no more positions
    than the main attempt: what a no-win deal pays for them before its search."""
    assert solver.FLARES and all(0 < budget <= solver.BUDGET for *_, budget in solver.FLARES)
    assert sum(budget for *_, budget in solver.FLARES) <= solver.BUDGET


def test_the_main_attempt_misses_these_deals():
    """(So that the flares have something to win; the main attempt over them is 0.5-1 s a
    deal: two of them.)"""
    for deal in FASTEST:
        assert prove.at_once(deal, Rules(4)) == (engine.solver_budget(), None)


def test_a_flare_is_charged_in_full_and_not_begun_out_of_positions():
    """The flares within --max-positions: each charged its budget; none begun once the
    positions are spent (the plan then says UNKNOWN)."""
    budget = prove.Budget(0.0, max_positions=10, time_limit=None)
    budget.charged = 9
    assert prove.flared(start(deals.deal(1)), Rules(4), budget, None) is None
    assert budget.charged == 9


# ---- the same line in C as in Python -------------------------------------------------------

@pytest.mark.parametrize("flare", range(len(solver.FLARES)))
def test_a_flare_finds_the_references_line(flare):
    """The C solver under a flare's styles finds exactly the reference's line (or neither
    finds one), as under the main attempt's."""
    *styles, _ = solver.FLARES[flare]
    styles = tuple(styles)
    for deal in (1, 2, 617):
        position = start(deals.deal(deal))
        for budget in (300, 3000):
            ours = native(position, 4, budget, styles)
            theirs = solver.solve(position, Rules(4), budget, styles)
            assert ours == theirs, (deal, budget)
            assert ours is None or replays_to_win(position, ours, Rules(4))


def test_styles_of_several_searches_in_turn_are_the_references_too():
    styles = (((3, 0), (20, 20)), 200, 100)
    position = start(deals.deal(5))
    assert native(position, 4, 4000, styles) == solver.solve(position, Rules(4), 4000, styles)
    main = (solver.STYLES, solver.HEAD_START, solver.TURN)
    assert native(position, 4, 4000, main) == native(position, 4, 4000)


@pytest.mark.parametrize("styles", [
    (), ((),), (((12, 5),), 1000), (((12, 5),), 1000, 500, 1), (((0, 5),), 1000, 500),
    (((12, -1),), 1000, 500), (((12, 5),), 0, 500), (((12, 5),), 1000, "500"),
    ((((12, 5),) * 5), 1000, 500), (((12,),), 1000, 500), [((12, 5),), 1000, 500]])
def test_bad_styles_are_refused(styles):
    found, cells, cols = start(deals.deal(1))
    with pytest.raises(ValueError):
        _solver.solve(found, cells, cols, Rules(4), 1000, styles)


# ---- the deals the main attempt misses ------------------------------------------------------

@pytest.mark.parametrize("deal", FASTEST)
def test_a_deal_the_main_attempt_misses_is_won_with_a_short_line(deal, tmp_path, capsys):
    line, _ = won_by_certify(deal, tmp_path, capsys)
    assert len(line) <= SHORT
    assert replays_to_win(start(deals.deal(deal)), line, Rules(4))


@pytest.mark.slow
@pytest.mark.parametrize("deal", MISSED)
def test_every_deal_the_main_attempt_misses_is_won_with_a_short_line(deal, tmp_path, capsys):
    line, _ = won_by_certify(deal, tmp_path, capsys)
    assert len(line) <= SHORT
    assert replays_to_win(start(deals.deal(deal)), line, Rules(4))


def test_a_census_of_such_a_deal_holds_the_certificate_of_certify(tmp_path, capsys):
    """The census proves a deal its at-once attempt misses by the plan, flares and all: the
    entry's line is `certify DEAL`'s."""
    from certify.commands.census import work
    deal = FASTEST[0]
    settings = work.Settings(4, False, False)
    item = work.prove_deal(deal, settings)
    assert item.verdict == WIN
    result = prove.proved(start(deals.deal(deal)), Rules(4), deal)
    line, _ = won_by_certify(deal, tmp_path, capsys)
    assert result.body == writer.win_body(line)


def test_a_no_win_deal_pays_the_flares_and_is_still_no_win():
    """11982's bounded search settles it before the flares; with the bounded search left out
    of the plan, the flares are made (and win nothing) and the whole search says no win."""
    plan = (prove.Solve(prove.SOLVER_FIRST), prove.Flares(), prove.Search())
    result = prove.proved(start(deals.deal(11982)), Rules(4), 11982, plan=plan)
    assert result.verdict == NO_WIN


SOLVED_IN_A_FRESH_PROCESS = """
import sys
from certify.game import deals
from certify.run import prove
from certify.game.rules import Rules, start
deal = int(sys.argv[1])
print(prove.proved(start(deals.deal(deal)), Rules(4), deal).sha256)
"""


def test_a_flares_line_is_the_same_in_every_process(tmp_path, capsys):
    """Two fresh interpreters with other hash seeds, and `certify DEAL` here (its attempt and
    its search on two threads): the same certificate, byte for byte."""
    deal = FASTEST[0]
    runs = [subprocess.run([sys.executable, "-c", SOLVED_IN_A_FRESH_PROCESS, str(deal)],
                           capture_output=True, text=True,
                           env={**os.environ, "PYTHONHASHSEED": seed}) for seed in ("1", "2")]
    assert [r.returncode for r in runs] == [0, 0], runs[0].stderr + runs[1].stderr
    _, out = won_by_certify(deal, tmp_path, capsys)
    assert runs[0].stdout == runs[1].stdout == spec.digest(out.read_bytes()) + "\n"
