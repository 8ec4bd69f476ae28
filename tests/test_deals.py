"""The deal generator against published layouts, and its edges."""

import random
import re
from pathlib import Path

import pytest
from pysol_cards.cards import CardRenderer
from pysol_cards.deal_game import Game
from pysol_cards.random import RandomBase

from certify.game.cards import name, parse
from certify.game.deals import MAX_DEAL, deal, rows
from check import checker
from support import certgen
from support import oracle

LAYOUTS = Path(__file__).parent / "data" / "published-layouts.txt"


def published():
    games, current = {}, None
    for line in LAYOUTS.read_text().splitlines():
        m = re.match(r"Game #(\d+)", line)
        if m:
            current = games.setdefault(int(m.group(1)), [])
        elif line.strip() and not line.startswith("#") and current is not None:
            current.append(line.strip())
    return games


@pytest.mark.parametrize("number", [1, 617, 11982])
def test_published_layouts(number):
    assert rows(deal(number)) == published()[number]


def test_deal_1_first_row():
    assert rows(deal(1))[0] == "JD 2D 9H JC 5D 7H 7C 5H"


@pytest.mark.parametrize("number", [1, 2**31 - 1, 2**31, 2**32 - 1, 2**32, MAX_DEAL])
def test_every_deal_is_a_full_deck_in_eight_columns(number):
    columns = deal(number)
    assert [len(c) for c in columns] == [7, 7, 7, 7, 6, 6, 6, 6]
    assert sorted(c for col in columns for c in col) == list(range(52))


def test_the_three_ranges_draw_differently():
    # Deals n and n + 2**31 share a seed but not a draw; n + 2**32 uses a different draw again.
    assert len({deal(5), deal(5 + 2**31), deal(5 + 2**32)}) == 3


@pytest.mark.parametrize("bad", [0, -1, 2**33, 2**33 + 1, 1.0, "7", True, None])
def test_bad_deal_numbers(bad):
    with pytest.raises(ValueError):
        deal(bad)


def test_the_last_deal_is_2_to_the_33_minus_1():
    assert MAX_DEAL == 2**33 - 1 and deal(2**33 - 1)


def test_card_names_round_trip():
    assert [name(c) for c in range(4)] == ["AC", "AD", "AH", "AS"]
    assert name(51) == "KS"
    for c in range(52):
        assert parse(name(c)) == c
    assert parse("10h") == parse("TH")
    with pytest.raises(ValueError):
        parse("1H")


# ---- every range of FreeCell Pro's numbering, against an outside implementation ----
# pysol_cards (by Freecell Solver's author) deals the same numbers with its own code. Our three
# readings of the document (certify, check, the test side's certgen and oracle) must all agree
# with it: at the edges of each range and on a fixed sample inside each.

RANGES = [(1, 2**31 - 1), (2**31, 2**32 - 1), (2**32, 2**33 - 1)]
EDGES = sorted({n for low, high in RANGES for n in (low, low + 1, low + 7, high - 1, high)})


def inside(low, high, k=12):
    rng = random.Random(low)   # a fixed sample, the same on every run
    return [rng.randrange(low, high + 1) for _ in range(k)]


SAMPLE = sorted(n for low, high in RANGES for n in inside(low, high))


def pysol_deal(n):
    """Deal n by pysol_cards, as columns of our card numbers (rank * 4 + suit, suits C D H S)."""
    game = Game("freecell", n, RandomBase.DEALS_MS)
    lines = game.calc_layout_string(CardRenderer(True)).splitlines()
    return tuple(tuple(parse(card) for card in line.split()) for line in lines)


def test_the_sample_covers_each_range():
    for low, high in RANGES:
        assert sum(low <= n <= high for n in SAMPLE) >= 12
        assert {low, high} <= set(EDGES)


@pytest.mark.parametrize("number", EDGES + SAMPLE)
def test_every_reading_deals_as_pysol_cards_does(number):
    expected = pysol_deal(number)
    assert len(expected) == 8 and sorted(c for col in expected for c in col) == list(range(52))
    assert deal(number) == expected                                       # certify
    assert tuple(tuple(col) for col in checker.deal(number)) == expected   # check
    assert tuple(tuple(col) for col in certgen.ms_deal(number)) == expected
    assert oracle.deal(number) == expected


def test_pysol_cards_agrees_with_the_published_layouts():
    for number, layout in published().items():
        assert rows(pysol_deal(number)) == layout
