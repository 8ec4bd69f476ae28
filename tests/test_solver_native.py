"""The solver in C (certify.engine._solver) against the reference (certify/engine/reference/solver.py).

Both must give the very same line, byte for byte, or both None, for the same position, free
cells and budget: that is what lets the two engines write identical win certificates. Every
line must also replay under the readable rules (rules.py) to a won position.
"""

import random
import subprocess
import sys
import threading

import pytest
from hypothesis import given
from hypothesis import strategies as st

from certify.format import writer
from certify.game import deals
from certify.engine.reference import solver
from certify.engine import _solver
from certify.game.rules import HOME, Rules, moves, replays_to_win, start
from support.boards import small_boards


def native(position, ncells, budget=solver.BUDGET):
    """The C solver's line as the reference gives it: [(card, dest)] or None."""
    found, cells, cols = position
    line = _solver.solve(found, cells, cols, Rules(ncells), budget)
    assert line is None or (isinstance(line, bytes) and len(line) % 2 == 0)
    return None if line is None else list(zip(line[::2], line[1::2]))


def reference(position, ncells, budget=solver.BUDGET):
    return solver.solve(position, Rules(ncells), budget)


def assert_same(position, ncells, budget=solver.BUDGET):
    """Both engines agree; a line replays to a win. Returns the line."""
    ours, theirs = native(position, ncells, budget), reference(position, ncells, budget)
    assert ours == theirs
    if ours is not None:
        assert replays_to_win(position, ours, Rules(ncells))
    return ours


def played(position, ncells, rng, count):
    """The position after `count` random legal single-card moves (fewer if stuck)."""
    for _ in range(count):
        options = [after for _, _, after in moves(position, Rules(ncells))]
        if not options:
            break
        position = rng.choice(options)
    return position


def test_the_engines_are_tuned_alike():
    assert _solver.STYLES == solver.STYLES
    assert (_solver.UNIT, _solver.CELL_COST, _solver.HEAD_START, _solver.TURN) == \
        (solver.UNIT, solver.CELL_COST, solver.HEAD_START, solver.TURN)


# ---- deals -----------------------------------------------------------------------------

@pytest.mark.parametrize("first", range(1, 41, 10))
def test_the_same_lines_for_deals(first):
    for deal in range(first, first + 10):
        assert assert_same(start(deals.deal(deal)), 4) is not None, deal


def test_the_same_lines_for_deals_up_to_ten_million():
    rng = random.Random(9)
    for deal in sorted(rng.sample(range(1, 10_000_000), 12)):
        assert_same(start(deals.deal(deal)), 4)


@pytest.mark.parametrize("ncells", range(0, 9))
def test_the_same_lines_for_any_number_of_free_cells(ncells):
    for deal in (1, 617):
        assert_same(start(deals.deal(deal)), ncells, budget=3000)


def test_the_same_at_every_budget_around_the_first_that_wins():
    """The budget counts positions expanded over the styles' turns (1000 for the first, then
    500 each): just below the least budget that wins, both give up; at it, both win."""
    for deal in (44, 9, 96):  # won in the turns of styles 1, 3 and 0 again
        position = start(deals.deal(deal))
        low, high = 0, solver.BUDGET  # native(low) is None, native(high) is a line
        assert native(position, 4, high) is not None
        while high - low > 1:
            middle = (low + high) // 2
            if native(position, 4, middle) is None:
                low = middle
            else:
                high = middle
        assert high > 1000, "the deal should need more than the first style's head start"
        assert reference(position, 4, low) is None
        assert assert_same(position, 4, high) is not None


def test_small_budgets_give_up_alike():
    position = start(deals.deal(11982))
    for budget in (-5, 0, 1, 999, 1000, 1001, 2500):
        assert native(position, 4, budget) is None
        assert reference(position, 4, budget) is None


def test_an_unwinnable_deal_exhausts_the_graph():
    # 11982's graph of supermoves is exhausted long before the budget: None, not a line.
    assert native(start(deals.deal(11982)), 4, 10**12) is None
    # With no free cells deal 1 is stuck quickly too.
    assert native(start(deals.deal(1)), 0, 10**30) is None  # a budget past 64 bits is fine


# ---- random boards -------------------------------------------------------------------------

@given(small_boards(max_left=10, max_cells=3))
def test_the_same_lines_on_small_boards(board):
    position, ncells = board
    assert_same(position, ncells)


@given(st.integers(1, 10_000_000), st.integers(0, 6), st.floats(0, 1), st.integers(0, 12),
       st.randoms(), st.sampled_from([0, 50, 700, 1600, 4000]))
def test_the_same_lines_in_the_middle_of_a_game(deal, ncells, along, extra, rng, budget):
    """Positions with cards home, cells taken and columns empty: part of the way along a
    winning line (of 4 cells, so with fewer cells some cells hold too many cards to go on
    with), then random moves; small budgets, so that many give up (and must give up alike)."""
    position = start(deals.deal(deal))
    line = native(position, 4) or []
    for card, dest in line[:int(along * len(line))]:
        position = next(after for c, d, after in moves(position, Rules(4)) if (c, d) == (card, dest))
    if len(position[1]) > ncells:
        ncells = len(position[1])
    position = played(position, ncells, rng, extra)
    assert_same(position, ncells, budget)


def test_a_won_position_and_one_autoplay_wins():
    won = (bytes([13] * 4), b"", (b"",) * 8)
    assert native(won, 4, 0) == reference(won, 4, 0) == []
    # Kings only, one in a cell: the safe foundation moves alone win, whatever the budget.
    kings = (bytes([12] * 4), bytes([48]), (bytes([49]), bytes([50]), bytes([51])) + (b"",) * 5)
    line = native(kings, 1, 0)
    assert line == reference(kings, 1, 0) and [d for _, d in line] == [HOME] * 4


def test_lines_are_written_as_single_card_moves():
    position = start(deals.deal(1))
    line = _solver.solve(*position, Rules(4), solver.BUDGET)
    pairs = list(zip(line[::2], line[1::2]))
    assert all(card < 52 and dest <= HOME for card, dest in pairs)
    assert sum(1 for _, dest in pairs if dest == HOME) == 52


def test_a_solve_is_the_same_whatever_was_solved_before():
    """The solver keeps its memory from one solve to the next (sets emptied by counting an epoch
    on, all their slots cleared once in 255 epochs): no solve may see what an earlier one left.
    Deals in one order, then after hundreds of searches begun and given up (the epochs go round
    more than once), a large search, other free cells and a won position, in another order."""
    deals_ = list(range(1, 41))
    first = {d: native(start(deals.deal(d)), 4) for d in deals_}
    for i in range(600):  # each begins a search (a new epoch) and gives up at once
        assert native(start(deals.deal(1000 + i % 50)), 4, 1) is None
    assert native(start(deals.deal(1136)), 4) is not None  # its sets grow past the first size
    assert native(start(deals.deal(617)), 2, 3000) == reference(start(deals.deal(617)), 2, 3000)
    assert native((bytes([13] * 4), b"", (b"",) * 8), 4, 0) == []
    for d in reversed(deals_):
        assert native(start(deals.deal(d)), 4) == first[d], d
    for d in (1, 2, 3):
        assert_same(start(deals.deal(d)), 4)


def test_threads_get_their_own_answers():
    """The search runs without the GIL: threads at once each get the line they ask for."""
    positions = [start(deals.deal(d)) for d in range(100, 108)]
    expected = [native(p, 4) for p in positions]
    got = [None] * len(positions)

    def work(i):
        got[i] = native(positions[i], 4)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(positions))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == expected


# ---- bad input ------------------------------------------------------------------------------

GOOD = start(deals.deal(1))


@pytest.mark.parametrize("args, error, says", [
    ((b"\0\0\0", b"", GOOD[2], 4, 10), ValueError, "found"),
    ((bytes([14, 0, 0, 0]), b"", GOOD[2], 4, 10), ValueError, "above 13"),
    ((GOOD[0], b"", GOOD[2][:7], 4, 10), TypeError, "columns"),
    ((GOOD[0], b"", GOOD[2][:7] + ("x",), 4, 10), TypeError, "columns"),
    ((GOOD[0], b"", list(GOOD[2]), 4, 10), TypeError, "columns"),
    ((GOOD[0], b"", GOOD[2], 9, 10), ValueError, "ncells"),
    ((GOOD[0], b"", GOOD[2], -1, 10), ValueError, "ncells"),
    ((GOOD[0], b"", GOOD[2], 4, 1.5), TypeError, "int"),
    ((GOOD[0], b"", (GOOD[2][0] + b"\x00",) + GOOD[2][1:], 4, 10), ValueError, "more than one"),
    ((GOOD[0], b"", (b"",) + GOOD[2][1:], 4, 10), ValueError, "missing"),
    ((GOOD[0], b"", (b"\x34",) + GOOD[2][1:], 4, 10), ValueError, "0..51"),
    ((bytes([1, 0, 0, 0]), b"", GOOD[2], 4, 10), ValueError, "more than one"),
])
def test_bad_input_is_refused_with_a_reason(args, error, says):
    with pytest.raises(error, match=says):
        _solver.solve(*args[:3], Rules(args[3]), *args[4:])


def test_cells_must_be_ascending_and_fit():
    found, _, cols = GOOD
    # take two cards out of column 0 and put them in the cells
    top2 = cols[0][-2:]
    rest = (cols[0][:-2],) + cols[1:]
    assert _solver.solve(found, bytes(sorted(top2)), rest, Rules(4), 0) is None
    with pytest.raises(ValueError, match="ascending"):
        _solver.solve(found, bytes(sorted(top2, reverse=True)), rest, Rules(4), 0)
    with pytest.raises(ValueError, match="more cards than free cells"):
        _solver.solve(found, bytes(sorted(top2)), rest, Rules(1), 0)


# ---- a deal by its number (a census's one call a deal) ---------------------------------------

def indices_by_reference(number, ncells, back, budget):
    """The reference's line for a deal, from deals.deal, as writer.move_indices writes it."""
    position = start(deals.deal(number))
    line = solver.solve(position, Rules(ncells), budget)
    if line is None:
        return None
    return writer.move_indices(position, bytes(b for m in line for b in m),
                               Rules(ncells, False, back))


@pytest.mark.parametrize("number", [1, 2, 3, 617, 2 ** 31 - 1, 2 ** 31, 2 ** 31 + 1, 2 ** 32 - 1,
                                    2 ** 32, 2 ** 32 + 1, 6_000_000_001, 2 ** 33 - 1])
def test_a_deal_by_number_gives_the_references_move_indices(number):
    """solve_deal deals the cards (deals.deal, whose numbering changes at 2^31 and 2^32),
    solves and writes the move indices (writer.move_indices) as the reference does."""
    for ncells, back in ((4, False), (4, True), (3, True)):
        assert _solver.solve_deal(number, Rules(ncells, False, back), 32_000) == \
            indices_by_reference(number, ncells, back, 32_000)


def test_a_deal_by_number_gives_up_as_solve_does():
    assert _solver.solve_deal(11982, Rules(4), 32_000) is None  # cannot be won
    assert _solver.solve_deal(1, Rules(4), 10) is None  # too small a budget
    assert _solver.solve_deal(deal=1, rules=Rules(4), budget=10 ** 30)


@pytest.mark.parametrize("args, error, says", [
    ((0, 4, False, 10), ValueError, "deal number from 1 to 8589934591"),
    ((2 ** 33, 4, False, 10), ValueError, "deal number"),
    ((-1, 4, False, 10), ValueError, "deal number"),
    ((2 ** 70, 4, False, 10), ValueError, "deal number"),
    ((1.0, 4, False, 10), TypeError, "int"),
    ((1, 9, False, 10), ValueError, "ncells"),
    ((1, -1, False, 10), ValueError, "ncells"),
    ((1, 4, False, 1.5), TypeError, "int"),
])
def test_a_bad_deal_call_is_refused_with_a_reason(args, error, says):
    with pytest.raises(error, match=says):
        _solver.solve_deal(args[0], Rules(*args[1:3]), args[3])


# ---- the long sweep -----------------------------------------------------------------------------

@pytest.mark.slow
def test_the_same_lines_for_the_first_three_thousand_deals_and_a_sample_to_ten_million():
    for deal in range(1, 3001):
        assert assert_same(start(deals.deal(deal)), 4) is not None, deal
    rng = random.Random(2026)
    for deal in rng.sample(range(1, 10_000_000), 300):
        assert_same(start(deals.deal(deal)), 4)


@pytest.mark.slow
def test_memory_stays_bounded_over_many_solves():
    """A census calls the solver a million times: what one call takes, it gives back, or keeps
    for the next call (a few Solvers of bounded size)."""
    def resident_mib():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * 4096 / 2**20

    positions = [start(deals.deal(d)) for d in range(1, 501)]
    for p in positions:  # the allocator's pools settle
        native(p, 4)
    before = resident_mib()
    for _ in range(6):
        for p in positions:
            native(p, 4)
    assert resident_mib() - before < 8


def test_out_of_memory_is_a_memory_error_and_the_next_solve_works():
    """Wherever an allocation fails (the nodes, the hash set, the columns, the queues), the solve
    says MemoryError and the next solve, with memory again, gives the same line as ever. Run in a
    child process under an address-space limit that rises step by step, so that the failure
    falls in many places."""
    code = """
import resource, sys
from certify.game import deals
from certify.engine import _solver
from certify.game.rules import Rules, start
def vm_bytes():
    with open('/proc/self/statm') as f:
        return int(f.read().split()[0]) * 4096
found, cells, cols = start(deals.deal(11982))   # no win: the solver meets every position it may
first, failures = _solver.solve_deal(1, Rules(4), 10**6), 0
for extra in range(0, 64 << 20, 2 << 20):
    resource.setrlimit(resource.RLIMIT_AS, (vm_bytes() + extra, resource.RLIM_INFINITY))
    try:
        _solver.solve(found, cells, cols, Rules(4), 10**7)
    except MemoryError:
        failures += 1
    resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    assert _solver.solve_deal(1, Rules(4), 10**6) == first
print(failures)
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert int(done.stdout) >= 10, done.stdout
