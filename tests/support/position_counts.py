"""The known position counts (tests/data/position-counts.tsv): every position reachable from a
deal that cannot be won, under given rules, closed under every move ('moves') or under every move
then safe moves home ('autoplay'). tests/test_position_counts.py holds the C engine, the reference
search, check/ and the oracle to each; other tests that meet a count read it here rather than
writing the number again."""
from pathlib import Path

TABLE = Path(__file__).parent.parent / "data" / "position-counts.tsv"


def known_counts():
    """(deal, cells, foundation_moves, symmetry, closure, positions) for each row of the table."""
    lines = [line for line in TABLE.read_text().splitlines() if not line.startswith("#")]
    heading, rows = lines[0].split("\t"), [dict(zip(lines[0].split("\t"), line.split("\t")))
                                          for line in lines[1:]]
    assert heading == ["deal", "cells", "foundation_moves", "symmetry", "closure", "positions"]
    return [(int(r["deal"]), int(r["cells"]), {"yes": True, "no": False}[r["foundation_moves"]],
             r["symmetry"], r["closure"], int(r["positions"])) for r in rows]


COUNTS = known_counts()


def known_count(deal, cells=4, foundation_moves=False, symmetry="columns", closure="moves"):
    """The table's count for this deal and these rules (the defaults: the standard game, every
    position reachable; closure="autoplay" for what certify's no-wins hold by default)."""
    found = [n for d, c, fm, sym, cl, n in COUNTS
             if (d, c, fm, sym, cl) == (deal, cells, foundation_moves, symmetry, closure)]
    assert len(found) == 1, (deal, cells, foundation_moves, symmetry, closure)
    return found[0]
