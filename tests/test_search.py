"""The fast search agrees with the readable rules, position for position."""

import hashlib
from collections import deque
import os
import subprocess
import sys

from hypothesis import HealthCheck, assume, given, settings, strategies as st

from certify.game.deals import deal
from certify.outcome import NO_WIN, UNKNOWN, WIN
from certify.run.prove import Search as SearchStep, Solve, proved
from certify.game.rules import (CELL, HOME, Rules, decode, encode, is_won, moves, replays_to_win,
                                start)
from certify.engine.reference.search import Columns, decode_key, make_expander, search, start_key
from certify.engine.reference.solver import solve
from check import checker
from support import boards
from support.boards import any_won, key, reachable, small_boards, unwinnable_boards
from support import certgen as g
from support.position_counts import known_count

variants = st.sampled_from([(False, False), (True, False)])
LIMIT = 3000
boards_and_variants = st.tuples(small_boards(), variants)
# Half the boards drawn for whole-set comparisons are known to be unwinnable (tests/support/boards.py), so
# that the no-win branch, where the whole reachable set is compared, runs about as often as the
# win branch (six runs of 60 gave 19 to 29 no-wins); the tests assert that each ran at least
# a sixth of the time.
whole_set_cases = st.one_of(boards_and_variants, unwinnable_boards())
# With foundation moves cards come back down and a small board opens up to most of the deck, so
# whole-set comparisons for that variant run on unwinnable boards and on deal 11982 (below).
successor_cases = st.one_of(boards_and_variants, st.tuples(
    small_boards(max_left=9, max_cells=1, full_columns=True),
    st.sampled_from([(False, True), (True, True)])))


@given(successor_cases)
def test_successors_match_the_readable_rules(case):
    (position, ncells), (fixed, back) = case
    rules = Rules(ncells, fixed, back)
    columns = Columns()
    expand = make_expander(rules, columns)
    for p in list(reachable(position, ncells, fixed, back, limit=200).values()):
        fast = {encode(decode_key(k, ncells, columns.content), ncells, fixed)
                for k in expand(start_key(p, rules, columns))}
        slow = {encode(q, ncells, fixed) for _, _, q in moves(p, Rules(ncells, foundation_moves=back))}
        assert fast == slow


def each_drawn(strategy, test):
    """Run test(case) on the cases hypothesis draws; the list of what it returned for each."""
    said = []

    @settings(suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
    @given(strategy)
    def run(case):
        said.append(test(case))
    run()
    return said


def test_search_finds_exactly_the_reachable_set():
    def one(case):
        (position, ncells), (fixed, back) = case
        reference = reachable(position, ncells, fixed, back, limit=LIMIT)   # the oracle's
        assume(len(reference) <= LIMIT)
        outcome = search(position, Rules(ncells, fixed, back))
        if any_won(reference):
            assert outcome.verdict == WIN
        else:
            assert outcome.verdict == NO_WIN
            found = {key(decode_key(k, ncells, outcome.columns), fixed) for k in outcome.keys}
            assert found == set(reference)
            assert outcome.positions == len(reference)
        return outcome.verdict
    verdicts = each_drawn(whole_set_cases, one)
    assert verdicts.count(NO_WIN) >= len(verdicts) // 6 and verdicts.count(WIN) >= len(verdicts) // 6, verdicts


def test_certificates_hold_the_reachable_set_or_a_winning_line(tmp_path):
    def one(case):
        (position, ncells), (fixed, back) = case
        reference = reachable(position, ncells, fixed, back, limit=LIMIT)
        assume(len(reference) <= LIMIT)
        rules = Rules(ncells, fixed, back)
        path = tmp_path / "cert.msgpack.zst"
        result = proved(position, rules, out=path)
        verdict, head, text, _ = checker.verify(path)    # check, not certify's own reader
        assert verdict == "verified", text
        if result.verdict == WIN:
            assert any_won(reference) and replays_to_win(position, result.moves, rules)
            assert g.replay_wins(boards.as_oracle(position), ncells, back, result.moves)
        else:
            assert head["count"] == len(reference)
            got = {key(p, fixed) for p in g.nowin_positions(path.read_bytes())}   # the test side's reader
            assert got == set(reference)
        return result.verdict
    verdicts = each_drawn(whole_set_cases, one)
    assert verdicts.count(NO_WIN) >= len(verdicts) // 6 and verdicts.count(WIN) >= len(verdicts) // 6, verdicts


WRITE_IN_A_FRESH_PROCESS = """
import sys
from certify.game.deals import deal
from certify.run.prove import Search as SearchStep, Solve, proved
from certify.game.rules import Rules, start
from certify.engine.reference.solver import solve
for n, cells, fixed, back in CASES:
    rules = Rules(cells, fixed, back)
    proved(start(deal(n)), rules, n, out=f"{sys.argv[1]}/{n}-{cells}-{fixed}-{back}.msgpack.zst",
           plan=(Solve(solver=lambda p: solve(p, rules)), SearchStep()))
"""
# deal 1 cannot be won with one cell or none (no-win certificates), can with four (a win)
DETERMINISM_CASES = [(1, 1, False, False), (1, 1, True, False), (1, 1, False, True), (1, 1, True, True),
                     (1, 0, False, False), (1, 4, False, False), (2**32 + 1, 4, False, True)]


def test_same_input_same_bytes_across_processes(tmp_path):
    """Two fresh interpreters with different hash seeds (set and dict order change with them)
    write the same certificate bytes, and the same as this process."""
    script = WRITE_IN_A_FRESH_PROCESS.replace("CASES", repr(DETERMINISM_CASES))
    for seed in ("1", "2"):
        (tmp_path / seed).mkdir()
        run = subprocess.run([sys.executable, "-c", script, str(tmp_path / seed)], capture_output=True,
                             text=True, env={**os.environ, "PYTHONHASHSEED": seed})
        assert run.returncode == 0, run.stderr
    for n, cells, fixed, back in DETERMINISM_CASES:
        name = f"{n}-{cells}-{fixed}-{back}.msgpack.zst"
        rules = Rules(cells, fixed, back)
        here = proved(start(deal(n)), rules, n, plan=(Solve(solver=lambda p: solve(p, rules)), SearchStep()))
        first, second = (tmp_path / "1" / name).read_bytes(), (tmp_path / "2" / name).read_bytes()
        assert first == second and hashlib.sha256(first).hexdigest() == here.sha256, name
        assert here.verdict == (WIN if cells == 4 else NO_WIN)


def test_deal_11982_published_facts():
    # 84,767 positions with columns in fixed places (the published Lean 4 proof's count).
    fixed = search(start(deal(11982)), Rules(4, fixed_columns=True))
    assert (fixed.verdict, fixed.positions, fixed.most_home) == (NO_WIN, known_count(11982, symmetry="none"), 2)
    up_to_permutation = search(start(deal(11982)), Rules(4))
    assert (up_to_permutation.verdict, up_to_permutation.positions) == (NO_WIN, known_count(11982))
    # AS 3H 6H 4H QS AC QC 6S never move: in every position each sits on the same cards as dealt.
    frozen = {"AS", "3H", "6H", "4H", "QS", "AC", "QC", "6S"}
    from certify.game.cards import name
    dealt = {col[:i + 1] for col in map(bytes, deal(11982)) for i in range(len(col))}
    for k in fixed.keys:
        _, _, cols = decode_key(k, 4, fixed.columns)
        for col in cols:
            for i, card in enumerate(col):
                if name(card) in frozen:
                    assert col[:i + 1] in dealt


def test_foundation_moves_on_11982_match_the_readable_rules():
    # Too big for the oracle's slow reading: the search against a plain breadth-first search over
    # rules.moves (which tests/test_oracle.py compares with the oracle, move for move).
    position = start(deal(11982))
    reference, queue = {encode(position, 4)}, deque([position])
    while queue:
        for _, _, q in moves(queue.popleft(), Rules(4, foundation_moves=True)):
            if encode(q, 4) not in reference:
                reference.add(encode(q, 4))
                queue.append(q)
    outcome = search(position, Rules(4, foundation_moves=True))
    assert outcome.verdict == NO_WIN and not any(is_won(decode(k, 4)) for k in reference)
    found = {encode(decode_key(k, 4, outcome.columns), 4) for k in outcome.keys}
    assert found == reference and len(found) == known_count(11982, foundation_moves=True)


def test_five_cells_win_11982_and_the_line_replays():
    result = proved(start(deal(11982)), Rules(5))
    assert result.verdict == WIN
    assert replays_to_win(start(deal(11982)), result.moves, Rules(5))


def test_budget_gives_unknown_and_writes_nothing(tmp_path):
    out = tmp_path / "x.msgpack.zst"
    result = proved(start(deal(11982)), Rules(4), out=out, max_positions=5000)
    assert result.verdict == UNKNOWN and "max-positions" in result.reason
    assert list(tmp_path.iterdir()) == []


def test_moves_name_their_destinations():
    position = (bytes([13, 13, 13, 12]), b"", (bytes([51]),) + (b"",) * 7)
    listed = {(card, dest) for card, dest, _ in moves(position, Rules(1))}
    assert (51, HOME) in listed and (51, CELL) in listed
    assert all(dest != 0 for _, dest in listed - {(51, HOME), (51, CELL)})
    won = [q for c, d, q in moves(position, Rules(1)) if d == HOME][0]
    assert is_won(won)


def test_the_unwinnable_boards_cannot_be_won():
    # Each under each variant it is drawn with, by the oracle's brute force.
    for found, cells, columns, ncells, variants in boards.UNWINNABLE:
        position = (bytes(found), bytes(cells), tuple(bytes(c) for c in columns))
        for fixed, back in variants:
            reference = reachable(position, ncells, fixed, back, limit=LIMIT)
            assert len(reference) <= LIMIT and not any_won(reference), (found, cells, fixed, back)


# ---- The search's own limits: the format's room, memory --------------------------------------

def test_the_search_capacity_is_what_32_bit_indices_and_hashes_can_hold():
    from certify.engine import _search as native
    from certify.outcome import SEARCH_CAPACITY
    # An index (and index + 1 in a slot) fits 32 bits, and the hash table, at most 70% full,
    # needs no more than 2^32 slots, the most a 32-bit stored hash spreads over.
    assert SEARCH_CAPACITY == 2 ** 31 == native.SEARCH_CAPACITY
    assert SEARCH_CAPACITY * 10 <= 2 ** 32 * 7 and SEARCH_CAPACITY + 1 < 2 ** 32


def test_the_reference_stops_for_good_where_a_certificate_could_not_hold_the_positions():
    from certify.outcome import FORMAT
    from certify.engine.reference.search import Search
    position, rules = start(deal(11982)), Rules(4)
    s = Search(position, rules, capacity=5000)
    outcome = s.run()
    assert (outcome.verdict, outcome.positions, outcome.limit) == (UNKNOWN, 5000, FORMAT)
    assert outcome.final and outcome.reason == \
        "more positions than the search in memory holds (5,000)"
    again = s.run(max_positions=10_000)
    assert (again.positions, again.reason) == (5000, outcome.reason)
    # The run's own budget, where both are met, is named first (and is not final).
    budget = Search(position, rules, capacity=5000).run(max_positions=5000)
    assert budget.reason == "--max-positions 5000 reached" and not budget.final
    # A search that fits ends as before.
    assert Search(position, rules, capacity=known_count(11982)).run().verdict == NO_WIN


def test_a_memory_error_in_the_reference_search_is_a_final_unknown():
    from certify.outcome import SYSTEM_MEMORY
    from certify.engine.reference.search import Search
    position, rules = start(deal(11982)), Rules(4)
    s = Search(position, rules)
    expand, calls = s.expand, []

    def failing(k):
        calls.append(k)
        if len(calls) > 300:
            raise MemoryError
        return expand(k)

    s.expand = failing
    outcome = s.run()
    assert (outcome.verdict, outcome.limit) == (UNKNOWN, SYSTEM_MEMORY) and outcome.final
    assert outcome.reason.startswith(f"not enough memory after {outcome.positions:,} positions")
    assert "--memory" in outcome.reason and "--max-positions" in outcome.reason
    assert s.run().reason == outcome.reason  # final: no half-updated set is run on


def test_the_reference_holds_to_a_memory_budget():
    from certify.outcome import MEMORY, size_text
    from certify.engine.reference.search import REFERENCE_BYTES, Search
    position, rules = start(deal(11982)), Rules(4)
    outcome = Search(position, rules, memory=20_000 * REFERENCE_BYTES).run()
    assert (outcome.verdict, outcome.positions, outcome.limit) == (UNKNOWN, 20_000, MEMORY)
    assert f"--memory {size_text(20_000 * REFERENCE_BYTES)};" in outcome.reason
    whole = Search(position, rules, memory=known_count(11982) * REFERENCE_BYTES).run()
    assert whole.verdict == NO_WIN and whole.positions == known_count(11982)
