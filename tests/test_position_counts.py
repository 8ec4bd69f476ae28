"""Known position counts (tests/data/position-counts.tsv), perft-style: the C engine, the reference
search, check/'s moves and the oracle each count every position reachable from a deal that cannot be won, and
each must give the table's number. A move missed or invented anywhere in a generator changes a
count; four independent readings of the rules agreeing on 217 counts leaves little room. Rows of
the autoplay closure are counted by the engine, the reference search and the readable rules
(rules.successors) too."""
import pytest

from support import oracle
from support.position_counts import COUNTS
from certify import engine
from certify.engine.reference import search
from check import checker
from certify.game.deals import deal
from certify.outcome import NO_WIN
from certify.game.rules import Rules, autoplay, encode, start, successors


PLAIN = [row for row in COUNTS if row[4] == "moves"]
AUTOPLAY = [row for row in COUNTS if row[4] == "autoplay"]


def named(row):
    n, cells, fm, symmetry, closure, _ = row
    return f"{n}-cells{cells}-{'fm' if fm else 'nofm'}-{symmetry}-{closure}"


def rules_of(cells, fm, symmetry, closure="moves"):
    return Rules(cells, fixed_columns=symmetry == "none", foundation_moves=fm,
                 autoplay=closure == "autoplay")


def test_the_table_is_what_it_says():
    assert len(COUNTS) == len(set(row[:5] for row in COUNTS)) == 217   # (no row twice)
    assert all(symmetry in ("columns", "none") and closure in ("moves", "autoplay")
               and positions >= 1 for _, _, _, symmetry, closure, positions in COUNTS)
    # Autoplay: a row for each row without foundation moves, never more positions.
    plain = {row[:4]: row[5] for row in PLAIN}
    assert {row[:4] for row in AUTOPLAY} == {key for key in plain if not key[2]}
    assert all(row[5] <= plain[row[:4]] for row in AUTOPLAY)
    # 11982 as published: its certificates' counts, the Lean 4 proof's 84,767 fixed columns, and
    # under autoplay the 61,643 that the deal's write-ups quote.
    published = {row[:5]: row[5] for row in COUNTS if row[0] == 11982}
    assert published == {
        (11982, 3, False, "columns", "moves"): 5297, (11982, 4, False, "columns", "moves"): 83239,
        (11982, 4, False, "none", "moves"): 84767, (11982, 4, True, "columns", "moves"): 93323,
        (11982, 3, False, "columns", "autoplay"): 5265,
        (11982, 4, False, "columns", "autoplay"): 61643,
        (11982, 4, False, "none", "autoplay"): 63171}


@pytest.mark.parametrize("row", COUNTS, ids=named)
def test_the_engine_counts(row):
    n, cells, fm, symmetry, closure, positions = row
    found = engine.search(start(deal(n)), rules_of(cells, fm, symmetry, closure))
    assert (found.verdict, found.positions) == (NO_WIN, positions)


@pytest.mark.parametrize("row", [row for row in COUNTS if row[5] <= 20_000], ids=named)
def test_the_reference_search_counts(row):
    n, cells, fm, symmetry, closure, positions = row
    found = search.search(start(deal(n)), rules_of(cells, fm, symmetry, closure))
    assert (found.verdict, found.positions) == (NO_WIN, positions)


@pytest.mark.parametrize("row", [row for row in AUTOPLAY if row[5] <= 20_000], ids=named)
def test_the_readable_rules_count_the_autoplay_closure(row):
    """rules.successors (rules.moves, then rules.autoplay) breadth-first from the autoplayed
    start: the set the search's own settle() closes, counted without it."""
    n, cells, fm, symmetry, closure, positions = row
    rules = rules_of(cells, fm, symmetry, closure)
    first = autoplay(start(deal(n)))[0]
    seen, todo = {encode(first, cells, rules.fixed_columns)}, [first]
    while todo:
        for _, _, _, after in successors(todo.pop(), rules):
            key = encode(after, cells, rules.fixed_columns)
            assert key[:4] != bytes([13] * 4)
            if key not in seen:
                seen.add(key)
                todo.append(after)
    assert len(seen) == positions


@pytest.mark.parametrize("row", [row for row in PLAIN if row[5] <= 2_000], ids=named)
def test_the_oracle_counts(row):
    n, cells, fm, symmetry, _, positions = row
    seen = oracle.reachable(oracle.start(oracle.deal(n)), cells, fm, symmetry)
    assert len(seen) == positions and not any(map(oracle.is_won, seen))


def reachable_by_check(n, cells, fm, symmetry):
    """Every position reachable from deal n by check/'s own moves() and after(), breadth-first,
    each up to the order of its columns when the symmetry says so."""
    def canonical(found, free, cols):
        return found, free, tuple(sorted(cols) if symmetry == "columns" else cols)
    first = canonical(bytes(4), b"", checker.deal(n))
    seen, todo = {first}, [first]
    while todo:
        found, free, cols = todo.pop()
        for move in checker.moves(found, free, cols, cells, fm):
            position = canonical(*checker.after(found, free, list(cols), *move))
            if position not in seen:
                seen.add(position)
                todo.append(position)
    return seen


@pytest.mark.parametrize("row", [row for row in PLAIN if row[5] <= 20_000], ids=named)
def test_the_checker_counts(row):
    n, cells, fm, symmetry, _, positions = row
    seen = reachable_by_check(n, cells, fm, symmetry)
    assert len(seen) == positions and all(found != checker.WON for found, _, _ in seen)
