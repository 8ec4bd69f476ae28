"""Known position counts (tests/data/position-counts.tsv), perft-style: the C engine, the reference
search, check/'s moves and the oracle each count every position reachable from a deal that cannot be won, and
each must give the table's number. A move missed or invented anywhere in a generator changes a
count; four independent readings of the rules agreeing on 143 counts leaves little room."""
import pytest

from support import oracle
from support.position_counts import COUNTS
from certify import engine, search
from check import checker
from certify.deals import deal
from certify.outcome import NO_WIN
from certify.rules import Rules, start


def named(row):
    n, cells, fm, symmetry, _ = row
    return f"{n}-cells{cells}-{'fm' if fm else 'nofm'}-{symmetry}"


def rules_of(cells, fm, symmetry):
    return Rules(cells, fixed_columns=symmetry == "none", foundation_moves=fm)


def test_the_table_is_what_it_says():
    assert len(COUNTS) == len(set(row[:4] for row in COUNTS)) == 143   # (no row twice)
    assert all(symmetry in ("columns", "none") and positions >= 1
               for _, _, _, symmetry, positions in COUNTS)
    # 11982 as published: its certificates' counts, and the Lean 4 proof's 84,767 fixed columns.
    published = {row[:4]: row[4] for row in COUNTS if row[0] == 11982}
    assert published == {(11982, 3, False, "columns"): 5297, (11982, 4, False, "columns"): 83239,
                         (11982, 4, False, "none"): 84767, (11982, 4, True, "columns"): 93323}


@pytest.mark.parametrize("row", COUNTS, ids=named)
def test_the_engine_counts(row):
    n, cells, fm, symmetry, positions = row
    found = engine.search(start(deal(n)), rules_of(cells, fm, symmetry))
    assert (found.verdict, found.positions) == (NO_WIN, positions)


@pytest.mark.parametrize("row", [row for row in COUNTS if row[4] <= 20_000], ids=named)
def test_the_reference_search_counts(row):
    n, cells, fm, symmetry, positions = row
    found = search.search(start(deal(n)), rules_of(cells, fm, symmetry))
    assert (found.verdict, found.positions) == (NO_WIN, positions)


@pytest.mark.parametrize("row", [row for row in COUNTS if row[4] <= 2_000], ids=named)
def test_the_oracle_counts(row):
    n, cells, fm, symmetry, positions = row
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


@pytest.mark.parametrize("row", [row for row in COUNTS if row[4] <= 20_000], ids=named)
def test_the_checker_counts(row):
    n, cells, fm, symmetry, positions = row
    seen = reachable_by_check(n, cells, fm, symmetry)
    assert len(seen) == positions and all(found != checker.WON for found, _, _ in seen)
