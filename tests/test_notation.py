"""The players' notation: supermoves, writing and reading lines, and `certify import`."""

import shutil
import subprocess
import sys

import pytest
from hypothesis import given, strategies as st

from certify.commands import cli
from certify.game import deals, notation
from certify.game.board import write_board
from certify.game.cards import parse as card
from certify.game.notation import (NotationError, capacity, move_readings, read, supermove,
                                   to_notation)
from certify.game.rules import CELL, HOME, Rules, is_won, moves, replays_to_win, start
from certify.engine.reference.solver import solve

# Freecell Solver 5.0 (`fc-solve -m -snx`) on deal 1 and deal 4, the moves only.
FCS_DEAL_1 = """
5a 5b 5c 5d 5h b2 8b a8 7a b7 58 6b 65 6h 5h 6h 76 b5 81 5b a5 85 8a 8h a2 7a 7h 3h 8h ch
8h 4h 3c b3 4b 48 d4 b7 28 2d 2b a2 b4 31 3a 3b c3 b6 d6 7c 7b 73 34 53 2d 27 25 d7 2d 2h
1h 7h a2 62 32 36 1a 1h 13 71 18 17 1h 8h 8h 2h 2h 4h 6h 4h 1h 7h ah c1 8a 8c 8h c4 a4 6c
6h 6a 67 6h a1 2a 2h c2 a2 4c 4h 2a 2h 8h 1h 46 4h 48 4h bh 4b 4h 3h 4h 7h ch ah 6h 2h 8h
1h 5h dh 1c 1h bh ch
"""
FCS_DEAL_4 = """
4h 4h 3a 3b 3c 3h 4d c4 83 1c 81 c1 57 5c 51 c7 5c 5h a5 d5 8a 8d c8 a8 d1 3c 3a 3d 3h 63
6h 5h 31 a3 c3 8a 8h 6c 6h 81 8h 5h c5 4c 48 a4 c8 4a 4h 5c 5h 46 25 42 56 24v2 25 2h 54 25
2h 53 a5 18 5a c5 32 5c d5 35 72 7d c7 d5 7c 7h 7d 73 7h 1h 87 8h 2h 2h 36 83 8h 2h 4h 5h
dh 5d 5h 31 62 d6 18v5 1d 1h 1h 1h ah ch 7h 2h 8h 2h 8h 2h 8h 2h 8h 2h 2h 4h 4h 6h 6h 1h dh
8h 2h bh
"""
PLAIN_DEAL_4 = FCS_DEAL_4.replace("v2", "").replace("v5", "")


def check(path):
    command = [shutil.which("check")] if shutil.which("check") else [sys.executable, "-m", "check"]
    return subprocess.run(command + [str(path)], capture_output=True, text=True)


def replay(position, line, ncells):
    """Replay single-card moves by the readable rules; the final position (AssertionError if
    a move is illegal)."""
    for card_, dest in line:
        position = next((after for c, d, after in moves(position, Rules(ncells))
                         if (c, d) == (card_, dest)), None)
        assert position is not None, f"illegal move {card_, dest}"
    return position


# ---- supermoves -----------------------------------------------------------------------------

RUN = [card(c) for c in "KS QH JC TD 9S 8H 7C 6D 5S 4H 3C 2D AS".split()]  # bottom to top


def board_with_run(free, empties, ncells=4, target=None):
    """A position with the 13-card run RUN in column 1, `target` (a card, else some card that
    the run does not fit on) alone in column 2, `free` empty cells of `ncells`, exactly
    `empties` empty columns, among 3..8, and every other card spread over the others."""
    others = [c for c in range(52) if c not in RUN and c != target]
    if target is None:
        target = others.pop()  # KD: nothing of the run goes onto it
    cells = bytes(sorted(others[:ncells - free]))
    others = others[ncells - free:]
    filled = 6 - empties
    cols = [bytes(RUN), bytes([target])]
    cols += [bytes(others[i::filled]) for i in range(filled)] + [b""] * empties
    return bytes(4), cells, tuple(cols)


def parent_of(k):
    """A card not in RUN on which the top k cards of RUN may be moved."""
    moving = RUN[-k]
    return next(p for p in range(52) if p not in RUN and notation.stacks_on(moving, p))


@given(st.integers(0, 4), st.integers(0, 3), st.data())
def test_supermove_is_legal_single_card_moves(free, empties, data):
    k = data.draw(st.integers(1, min(12, capacity(free, empties))))  # KS has no parent
    target = parent_of(k)
    position = board_with_run(free, empties, target=target)
    free_columns = [j for j in range(8) if not position[2][j]]
    line = supermove(bytes(RUN[-k:]), 0, 1, free, free_columns)
    after = replay(position, line, 4)
    assert after[2][0] == bytes(RUN[:-k]) and after[2][1] == bytes([target] + RUN[-k:])
    assert after[1] == position[1] and after[2][2:] == position[2][2:]


@pytest.mark.parametrize("free,empties", [(0, 0), (1, 0), (3, 0), (4, 0), (0, 1), (1, 1),
                                          (2, 1), (4, 1), (0, 3), (1, 2)])
def test_supermove_capacity_at_the_boundary(free, empties):
    most = capacity(free, empties)
    assert most == (free + 1) * 2 ** empties
    for k, legal in ((most, True), (most + 1, False)):
        position = board_with_run(free, empties, target=parent_of(k))
        move = notation.parse("12", 4)[0]
        if legal:
            [(line, _)] = move_readings(position, (None,) * 4, move, 4)
            assert len(line) >= 2 * k - 1
            replay(position, line, 4)
        else:
            with pytest.raises(NotationError, match="more than"):
                move_readings(position, (None,) * 4, move, 4)


@pytest.mark.parametrize("free,empties", [(0, 1), (1, 1), (2, 2), (1, 3)])
def test_onto_an_empty_column_the_destination_does_not_count(free, empties):
    position = board_with_run(free, empties)
    dest = next(j for j in range(8) if not position[2][j])
    most = capacity(free, empties - 1)
    text = f"1{dest + 1}"
    plain = move_readings(position, (None,) * 4, notation.parse(text, 4)[0], 4)
    assert [sum(1 for _, d in line if d == dest) for line, _ in plain] == \
        list(range(most, 0, -1))  # every count, the most first
    exact = notation.parse(f"{text}v{most:x}", 4)[0]
    [(line, _)] = move_readings(position, (None,) * 4, exact, 4)
    replay(position, line, 4)
    with pytest.raises(NotationError, match="more than"):
        move_readings(position, (None,) * 4, notation.parse(f"{text}v{most + 1:x}", 4)[0], 4)


# ---- reading and writing ---------------------------------------------------------------------

def test_parse_reads_moves_and_skips_solver_chatter():
    text = ("-=-=-=-=-=-=-=-=-=-=-=-\n\n3a a4 5h # a comment\n47vb 12\n"
            "This game is solveable.\nTotal number of states checked is 123.\n")
    parsed = notation.parse(text, 4)
    assert [(n, t) for n, t, *_ in parsed] == [(1, "3a"), (2, "a4"), (3, "5h"), (4, "47vb"),
                                               (5, "12")]
    assert parsed[0][2:] == (("column", 2), ("cell", 0), None)
    assert parsed[2][3] == ("home", None)
    assert parsed[3][4] == 11


@pytest.mark.parametrize("text,ncells,reason", [
    ("3a 4x", 4, "move 2 (4x): 'x' is not a column"),
    ("3a 3e", 4, "move 2 (3e): there is no free cell 'e' with 4 cells"),
    ("h3", 4, "move 1 (h3): the notation has no moves from a foundation"),
    ("33", 4, "move 1 (33): a move must go somewhere else"),
    ("3av2", 4, "move 1 (3av2): a 'v' count belongs on a column-to-column move"),
    ("34vz", 4, "move 1 (34vz): 'z' is not a hexadecimal count"),
    ("345", 4, "move 1 (345): not a move"),
])
def test_parse_names_the_bad_move(text, ncells, reason):
    with pytest.raises(NotationError) as e:
        notation.parse(text, ncells)
    assert str(e.value).startswith(reason)


def test_eight_cells_are_a_to_g_and_k():
    position = start(deals.deal(1))
    line = solve(position, Rules(8))
    written = to_notation(position, line, 8)
    used = {m[1] for m in written} | {m[0] for m in written}
    assert "h" in used and used <= set("12345678abcdefgkh")
    assert replays_to_win(position, read(position, notation.parse(" ".join(written), 8), 8),
                          Rules(8))


def test_freecell_solver_lines_are_read_and_checked(tmp_path, capsys):
    for text, deal in ((FCS_DEAL_1, 1), (FCS_DEAL_4, 4), (PLAIN_DEAL_4, 4)):
        position = start(deals.deal(deal))
        line = read(position, notation.parse(text, 4), 4)
        assert replays_to_win(position, line, Rules(4))
    path, out = tmp_path / "4.txt", tmp_path / "4.msgpack.zst"
    path.write_text("-=-=-=-=-=-=-=-=-=-=-=-\n\n" + FCS_DEAL_4 + "\nThis game is solveable.\n")
    assert cli.main(["import", str(path), "--deal", "4", "-o", str(out)]) == 0
    assert "WIN: deal 4" in capsys.readouterr().out
    checked = check(out)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_neither_one_card_nor_the_longest_run_reads_real_solver_output():
    """Freecell Solver's plain lines need the backtracking: deal 1 moves one card where two
    could go onto an empty column, deal 4 moves the longest run (2 and 5 cards)."""
    def wins_reading(text, deal, most):  # always the most cards, or always one card
        position, slots = start(deals.deal(deal)), (None,) * 4
        try:
            for move in notation.parse(text, 4):
                line, slots = move_readings(position, slots, move, 4, extended=not most)[0]
                position = replay(position, line, 4)
        except NotationError:
            return False
        return is_won(position)

    assert not wins_reading(FCS_DEAL_1, 1, most=True) and wins_reading(FCS_DEAL_1, 1, most=False)
    assert not wins_reading(PLAIN_DEAL_4, 4, most=False)
    assert wins_reading(PLAIN_DEAL_4, 4, most=True)
    for deal, text in ((1, FCS_DEAL_1), (4, PLAIN_DEAL_4)):
        assert is_won(replay(start(deals.deal(deal)),
                             read(start(deals.deal(deal)), notation.parse(text, 4), 4), 4))
    # In the extended form (deal 4's line has 'v' counts) a move onto an empty column without a
    # count is one card: read the line move by move, and it is the line `read` gives.
    position, slots, line, onto_empty = start(deals.deal(4)), (None,) * 4, [], 0
    for move in notation.parse(FCS_DEAL_4, 4):
        (_, _, _, (dkind, d), count) = move
        part, slots = move_readings(position, slots, move, 4, extended=True)[0]
        if dkind == "column" and not position[2][d] and count is None:
            assert len(part) == 1, move
            onto_empty += 1
        position = replay(position, part, 4)
        line += part
    assert is_won(position) and onto_empty > 0
    assert read(start(deals.deal(4)), notation.parse(FCS_DEAL_4, 4), 4) == line


# The hand-made case: column 1 holds KS and the run 9S 8H 7C; only two of the run's cards may
# go onto the empty column 2, so that 7C and 8H go home from there and 9S from column 1.
ENDGAME_LINE = "12 2h 2h 1h 3h 3h 3h 3h 3h 3h 4h 4h 4h 4h 4h 5h 5h 5h 1h"


def endgame():
    found = bytes([6, 13, 7, 8])  # C to 6, all diamonds, H to 7, S to 8
    cols = ["KS 9S 8H 7C", "", "KC QC JC TC 9C 8C", "KH QH JH TH 9H", "QS JS TS", "", "", ""]
    return found, b"", tuple(bytes(card(c) for c in col.split()) for col in cols)


def test_plain_reading_backtracks_past_one_card_and_the_longest_run():
    position = endgame()
    for count, legal in ((1, False), (2, True), (3, False)):
        text = ENDGAME_LINE.replace("12", f"12v{count}", 1)
        if legal:
            assert replays_to_win(position, read(position, notation.parse(text, 4), 4), Rules(4))
        else:
            with pytest.raises(NotationError):
                read(position, notation.parse(text, 4), 4)
    line = read(position, notation.parse(ENDGAME_LINE, 4), 4)
    assert replays_to_win(position, line, Rules(4))
    assert line[:3] == [(card("7C"), 8), (card("8H"), 1), (card("7C"), 1)]


def test_import_a_custom_board(tmp_path, capsys):
    board, moves_file, out = tmp_path / "end.txt", tmp_path / "line.txt", tmp_path / "end.zst"
    board.write_text(write_board(endgame()))
    moves_file.write_text(ENDGAME_LINE + "\n")
    assert cli.main(["import", str(moves_file), "--board", str(board), "-o", str(out)]) == 0
    assert check(out).returncode == 0


def test_an_illegal_move_is_named_and_nothing_is_written(tmp_path, capsys):
    position = start(deals.deal(1))
    written = to_notation(position, solve(position, Rules(4)), 4)
    # Move 21 becomes a foundation move that is illegal there.
    before = read(position, notation.parse(" ".join(written[:20]), 4), 4, ends=lambda q: True)
    p = replay(position, before, 4)
    column = next(j for j, col in enumerate(p[2]) if col and p[0][col[-1] & 3] != col[-1] >> 2)
    bad = list(written)
    bad[20] = f"{column + 1}h"
    path, out = tmp_path / "line.txt", tmp_path / "1.msgpack.zst"
    path.write_text(" ".join(bad))
    assert cli.main(["import", str(path), "--deal", "1", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"move 21 ({bad[20]}): " in err and "nothing written" in err
    assert not out.exists() and list(tmp_path.iterdir()) == [path]
    # a line that stops short is not a win either
    path.write_text(" ".join(written[:-1]))
    assert cli.main(["import", str(path), "--deal", "1", "-o", str(out)]) == 2
    assert "the game is not won" in capsys.readouterr().err and not out.exists()


@pytest.mark.parametrize("argv,message", [
    (["import", "nofile.txt", "--deal", "1"], "cannot read nofile.txt"),
    (["import", "x.txt"], "give --deal N or --board FILE"),
    (["import", "x.txt", "--deal", "0"], "deal 0 is out of range"),
])
def test_import_rejects_bad_arguments(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert cli.main(argv) == 2
    assert message in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


# ---- round trips -----------------------------------------------------------------------------

@pytest.mark.parametrize("deal", [1, 2, 7, 100])
def test_solver_line_round_trips_through_notation_and_import(deal, tmp_path, capsys):
    position = start(deals.deal(deal))
    line = solve(position, Rules(4))
    written = to_notation(position, line, 4)
    assert all(len(m) == 2 for m in written)
    path = tmp_path / "line.txt"
    path.write_text(notation.lines_of(written) + "\n")
    assert all(len(row.split()) <= 10 for row in path.read_text().splitlines())
    out = tmp_path / "cert.zst"
    assert cli.main(["import", str(path), "--deal", str(deal), "-o", str(out)]) == 0
    assert check(out).returncode == 0
    back = read(position, notation.parse(path.read_text(), 4), 4)
    assert replays_to_win(position, back, Rules(4))


@given(st.integers(1, 32000), st.integers(1, 4), st.booleans(), st.data())
def test_any_legal_line_round_trips(deal, ncells, extended, data):
    """Any legal walk, written in notation and read back, reaches the same position."""
    position = start(deals.deal(deal))
    line, p = [], position
    for _ in range(data.draw(st.integers(0, 60))):
        options = list(moves(p, Rules(ncells)))
        if not options:
            break
        c, d, p = options[data.draw(st.integers(0, len(options) - 1))]
        line.append((c, d))
    written = to_notation(position, line, ncells, extended=extended)
    assert all(len(m) == 2 for m in written) or extended
    back = read(position, notation.parse(" ".join(written), ncells), ncells,
                ends=lambda q: q == p)
    assert replay(position, back, ncells) == p


def test_lines_that_leave_safe_foundation_moves_implied(tmp_path, capsys):
    position = start(deals.deal(5))
    line = solve(position, Rules(4))
    written = to_notation(position, line, 4, extended=True)
    # Drop every foundation move that autoplay would make, walking the line move by move.
    kept, p, slots = [], position, (None,) * 4
    for move in notation.parse(" ".join(written), 4):
        steps, slots = move_readings(p, slots, move, 4, extended=True)[0]
        if not (steps[0][1] == HOME and notation.is_safe_home(steps[0][0], p[0])):
            kept.append(move[1])
        p = replay(p, steps, 4)
    assert len(kept) < len(written) - 30
    text = " ".join(kept)
    assert replays_to_win(position, read(position, notation.parse(text, 4), 4, autoplay=True),
                          Rules(4))
    with pytest.raises(NotationError):
        read(position, notation.parse(text, 4), 4)
    path, out = tmp_path / "auto.txt", tmp_path / "5.zst"
    path.write_text(text)
    assert cli.main(["import", str(path), "--deal", "5", "--autoplay", "-o", str(out)]) == 0
    assert check(out).returncode == 0


def test_printed_notation_writes_each_foundation_move():
    position = start(deals.deal(1))
    line = solve(position, Rules(4))
    written = to_notation(position, line, 4)
    assert sum(1 for m in written if m[1] == "h") == 52
    assert sum(1 for _, d in line if d == CELL) >= sum(1 for m in written if m[1] in "abcd")


def test_cards_in_the_cells_at_the_start_sit_in_a_b_and_so_on():
    found, _, cols = endgame()
    cols = (cols[0][:-1],) + cols[1:]  # 7C and KD start in the cells
    position = found[:1] + bytes([12]) + found[2:], bytes(sorted([card("7C"), card("KD")])), cols
    written = to_notation(position, solve(position, Rules(4)), 4)
    assert written[0] == "ah"  # 7C, the lower card, is in cell a
    assert replays_to_win(position, read(position, notation.parse(" ".join(written), 4), 4),
                          Rules(4))
