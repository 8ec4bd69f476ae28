"""The deal generator against published layouts, and its edges."""

import re
from pathlib import Path

import pytest

from certify.cards import name, parse
from certify.deals import MAX_DEAL, deal, rows

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


@pytest.mark.parametrize("bad", [0, -1, MAX_DEAL + 1, 1.0, "7", True, None])
def test_bad_deal_numbers(bad):
    with pytest.raises(ValueError):
        deal(bad)


def test_card_names_round_trip():
    assert [name(c) for c in range(4)] == ["AC", "AD", "AH", "AS"]
    assert name(51) == "KS"
    for c in range(52):
        assert parse(name(c)) == c
    assert parse("10h") == parse("TH")
    with pytest.raises(ValueError):
        parse("1H")
