"""Freecell Solver board text: strict reading, faithful writing."""

import pytest
from hypothesis import given

from certify.game.board import BoardError, read_board, write_board
from certify.game.deals import deal
from certify.game.rules import start
from support.boards import small_boards


def test_deal_round_trips():
    position = start(deal(617))
    assert read_board(write_board(position)) == position


@given(small_boards())
def test_any_legal_board_round_trips(board):
    position, ncells = board
    assert read_board(write_board(position, ncells), ncells) == position


def test_written_form():
    text = write_board(start(deal(1)))
    lines = text.splitlines()
    assert lines[0] == "Foundations: H-0 C-0 D-0 S-0"
    assert lines[1] == "Freecells: - - - -"
    assert lines[2] == ": JD KD 2S 4C 3S 6D 6S"
    assert len(lines) == 10


def test_accepts_the_usual_variants():
    text = write_board(start(deal(1))).replace("Foundations", "Founds").replace("Freecells", "FC")
    lines = text.replace("TD", "10D").splitlines()
    text = "\n".join(lines[:2] + [line.lstrip(": ") for line in lines[2:5]] + lines[5:])
    assert read_board(text) == start(deal(1))


def almost_won(extra=""):
    return "Foundations: H-K C-K D-K S-Q\nFreecells: -\n" + extra


def test_cards_home_in_cells_and_columns():
    found, cells, cols = read_board(almost_won(": KS\n"), 1)
    assert found == bytes([13, 13, 13, 12]) and cells == b"" and cols[0] == bytes([51])
    found, cells, cols = read_board("Foundations: H-K C-K D-K S-Q\nFreecells: KS\n", 1)
    assert cells == bytes([51]) and cols == (b"",) * 8


@pytest.mark.parametrize("text, ncells, problem", [
    (almost_won(), 1, "missing cards: KS"),
    (almost_won(": KS KS\n"), 1, "KS appears twice"),
    (almost_won(": KS\n: QS\n"), 1, "QS appears twice: in the foundations and in column 2"),
    (almost_won(": XS\n"), 1, "'XS' is not a card"),
    ("Foundations: H-K C-K D-K S-J\nFreecells: KS QS\n", 1,
     "2 free-cell slots, but only 1 free cell"),
    ("Foundations: H-K C-K D-K X-Q\n: KS\n", 1, "not a foundation"),
    ("Foundations: H-K C-K D-K S-Z\n: KS\n", 1, "no rank"),
    (almost_won(":\n" * 8 + ": KS\n"), 1, "9 columns"),
    ("Foundations: H-K C-K D-K S-Q\nFreecells: - - - - KS\n", 4,
     "line 2: 5 free-cell slots, but only 4 free cells"),
    ("Foundations: H-K C-K D-K S-Q\nFreecells: -\n", 0, "1 free-cell slots, but only 0"),
    ("Foundations: H-K C-K D-K S-Q\nFoundations: S-K\n", 1, "line 2: a second foundations line"),
    ("Foundations: H-K C-K D-K S-Q\nFC: -\nFreecells: KS\n", 1,
     "line 3: a second free cells line (the first is line 2)"),
    ("Foundations: H-K C-K D-K S-Q S-K\n", 1, "two foundations for S"),
    (almost_won(": K\u017f\n"), 1, "line 3: not ASCII"),  # 'ſ'.upper() == 'S'
    ("Foundations: H-K C-K D-K S-J\n: QS KS QS\n", 1, "QS appears twice in column 1"),
])
def test_strict_errors_name_the_problem(text, ncells, problem):
    with pytest.raises(BoardError) as e:
        read_board(text, ncells)
    assert problem in str(e.value)


def test_one_repeat_is_reported_once_with_its_place():
    text = almost_won(": KS KS\n")
    with pytest.raises(BoardError) as e:
        read_board(text, 1)
    assert str(e.value) == "KS appears twice in column 1"


def test_foundation_singular_and_fewer_slots_than_cells():
    text = write_board(start(deal(1))).replace("Foundations:", "Foundation:")
    assert read_board(text) == start(deal(1))
    one_slot = text.replace("Freecells: - - - -", "Freecells: -")
    assert read_board(one_slot, 4) == start(deal(1))  # slots left out are empty cells
