"""certify explain: the stuck facts against a plain reading of their definitions, the published
analysis of 11982, wins and the fewest free cells, the picture, and what it refuses."""

import json
import xml.etree.ElementTree as ET

import pytest
from hypothesis import HealthCheck, assume, given, settings

from support.boards import reachable, small_boards
from certify.format import reader
from certify.game import deals
from certify.game.board import read_board
from certify.commands.cli import main
from certify.commands.explain import explain, from_certificate, searched, stuck
from certify.engine import decode_key
from certify.run.prove import proved
from certify.game.rules import Rules, encode, replays_to_win, start
from support.position_counts import known_count

# Winnable with one free cell, not with none (found by search; the test checks both claims).
ONE_CELL_BOARD = """\
Foundations: H-8 C-8 D-8 S-8
Freecells: - -
: KC
: QD QC KD 9D
: QS KS
: TC
: JH 9C JS
: QH JD KH
: 9H TD 9S TS
: JC TH
"""


def run_json(capsys, *argv):
    code = main(["explain", *argv, "--json", "-q"])
    return code, json.loads(capsys.readouterr().out)


# ---- The facts, against plain definitions ------------------------------------------------

def plain_facts(start_columns, positions, ncells, fixed_columns):
    """The definitions of explain.py read literally, position by position, card by card."""
    dealt = {}  # card -> (its column, the cards from that column's bottom up to it)
    for j, col in enumerate(start_columns):
        for k, card in enumerate(col):
            dealt[card] = j, bytes(col[:k + 1])

    def in_place(card, position):
        j, run = dealt[card]
        cols = [position[2][j]] if fixed_columns else position[2]
        return any(col[:len(run)] == run for col in cols)

    frozen = set(dealt)
    for p in positions:  # a card stays frozen while it is in place in every position so far
        frozen = {c for c in frozen if in_place(c, p)}
    uncovered = {}  # top frozen card -> (positions where it is a column's top, ... cells full)
    for col in start_columns:
        run = [c for c in col if c in frozen]
        if run:
            top = run[-1]
            hits = [p for p in positions if any(c and c[-1] == top for c in p[2])]
            full = [p for p in hits if len(p[1]) == ncells]
            uncovered[top] = (len(hits), len(full))
    return frozen, uncovered, max(sum(p[0]) for p in positions)


def as_records(positions, ncells):
    """Positions as records over a column table, the way a certificate holds them."""
    table = sorted({c for p in positions for c in p[2]})
    ids = {c: i for i, c in enumerate(table)}
    records = [p[0] + p[1] + b"\xff" * (ncells - len(p[1])) +
               b"".join(ids[c].to_bytes(2, "big") for c in p[2]) for p in positions]
    return table, records


LIMIT = 600


def check_against_plain(position, ncells, positions, fixed_columns):
    table, records = as_records(positions, ncells)
    facts = stuck(position[2], table, records, ncells, 2, fixed_columns)
    frozen, uncovered, most = plain_facts(position[2], positions, ncells, fixed_columns)
    assert set(facts.frozen_cards()) == frozen
    assert facts.most_home == most and facts.positions == len(positions)
    assert {t.card: (t.uncovered, t.uncovered_cells_full) for t in facts.tops} == uncovered
    if facts.closest is not None:  # the closest: fewest above, then most positions
        assert facts.closest in facts.tops
        assert all((facts.closest.fewest_above, -facts.closest.positions) <=
                   (t.fewest_above, -t.positions) for t in facts.tops)


@settings(suppress_health_check=[HealthCheck.filter_too_much])
@given(small_boards(max_left=8))
def test_facts_match_their_definitions_on_small_boards(board):
    position, ncells = board
    fixed = reachable(position, ncells, fixed_columns=True, limit=LIMIT)
    assume(len(fixed) <= LIMIT)
    check_against_plain(position, ncells, list(fixed.values()), fixed_columns=True)
    # Every arrangement reachable with fixed columns, taken up to column order, is the set
    # reachable up to column order (a line of moves is a line of moves either way).
    classes = {encode(p, ncells): p for p in fixed.values()}
    check_against_plain(position, ncells, list(classes.values()), fixed_columns=False)


def test_facts_match_their_definitions_on_a_deal():
    # 781948: 7,736 positions; the full definitions, position by position, on a real deal.
    position = start(deals.deal(781948))
    src = searched(781948, None, position, Rules(4))
    assert src.verdict == "no-win"
    facts = stuck(position[2], src.table, src.records, 4, 2, False)
    positions = [decode_key(k, 4, src.table) for k in src.records]
    frozen, uncovered, most = plain_facts(position[2], positions, 4, False)
    assert set(facts.frozen_cards()) == frozen and facts.most_home == most
    assert {t.card: (t.uncovered, t.uncovered_cells_full) for t in facts.tops} == uncovered


# ---- 11982 and the published analysis ----------------------------------------------------

@pytest.fixture(scope="module")
def report_11982():
    src = searched(11982, None, start(deals.deal(11982)), Rules(4))
    report = explain(src, cell_budget=1_000_000)
    report.pop("_facts")
    report.pop("_uncovered")
    return report


@pytest.fixture(scope="module")
def cert_11982(tmp_path_factory):
    cert = tmp_path_factory.mktemp("cert") / "11982.msgpack.zst"
    proved(start(deals.deal(11982)), Rules(4), 11982, out=cert)
    return str(cert)


@pytest.fixture(scope="module")
def cert_781948(tmp_path_factory):
    cert = tmp_path_factory.mktemp("cert") / "781948.msgpack.zst"
    proved(start(deals.deal(781948)), Rules(4), 781948, out=cert)
    return cert


def test_11982_as_published(report_11982):
    r = report_11982
    assert (r["claim"], r["positions"]) == ("no-win", known_count(11982))
    assert ["AC", "QC"] in r["frozen"]  # the QC on the AC never moves ...
    qc = next(t for t in r["tops"] if t["card"] == "QC")
    assert (qc["beneath"], qc["uncovered"], qc["uncovered_cells_full"]) == ("AC", 8, 8)
    # ... and a fifth free cell makes the deal winnable.
    assert r["cell_searches"][0]["cells"] == 5 and r["cell_searches"][0]["claim"] == "win"
    assert (r["fewest_cells_to_win"], r["fewest_cells_exact"]) == (5, True)
    assert r["frozen_count"] == sum(len(run) for run in r["frozen"])


def test_11982_fixed_columns_count(capsys):
    # The published 8 counts positions with columns in place; ours agree in both countings.
    code, r = run_json(capsys, "11982", "--fixed-columns", "--no-autoplay", "--cell-budget", "0")
    assert code == 0 and r["symmetry"] == "none" and r["positions"] == known_count(11982, symmetry="none")
    qc = next(t for t in r["tops"] if t["card"] == "QC")
    assert (qc["uncovered"], qc["uncovered_cells_full"]) == (8, 8)


def test_certificate_gives_the_same_facts_as_a_search(cert_11982, report_11982, capsys):
    code, r = run_json(capsys, cert_11982, "--cell-budget", "0")
    assert code == 0 and r["certificate"] == cert_11982
    cell_search = ("fewest_cells_to_win", "fewest_cells_exact", "cell_searches")
    assert r.pop("verdict") == r["claim"]   # (claim's old name in the JSON, for one release)
    assert {**r, "certificate": None} == \
        {k: v for k, v in report_11982.items() if k not in cell_search}


def test_positions_lists_the_uncovered_ones(cert_11982, capsys):
    code, r = run_json(capsys, cert_11982, "--positions", "--cell-budget", "0")
    boards = r["uncovered_positions"]
    assert code == 0 and len(boards) == r["closest"]["uncovered"]
    top = r["closest"]["card"]
    for board in boards:
        columns = [line.split()[1:] for line in board.splitlines() if line.startswith(":")]
        assert any(col and col[-1] == top for col in columns)


def test_positions_number_the_columns_as_the_picture_does(cert_11982, capsys):
    code, r = run_json(capsys, cert_11982, "--positions", "--cell-budget", "0")
    closest = r["closest"]
    src = from_certificate(cert_11982)
    shown = {encode(read_board(b), 4) for b in r["uncovered_positions"]}
    table, records = src.table, src.records
    facts = stuck(src.start[2], table, records, 4, src.width, False)
    from certify.commands.explain import uncovered_positions
    assert shown == {encode(p, 4) for p in uncovered_positions(src.start[2], table, records, 4,
                                                               src.width, False, facts)}
    for board in r["uncovered_positions"]:
        columns = [line.split()[1:] for line in board.splitlines() if line.startswith(":")]
        # The picture's column (the report's "column 2") is the board's second column line,
        # and every frozen run lies in the column it was dealt to.
        assert columns[closest["column"] - 1][-1] == closest["card"]
        for j, run in enumerate(r["frozen"]):
            assert columns[j][:len(run)] == run
    code = main(["explain", cert_11982, "--positions", "--cell-budget", "0", "-q"])
    out = capsys.readouterr().out
    assert code == 0 and "# position 1 (columns 1 to 8 as in the picture)\n" in out


def test_why_the_closest_card_never_moves(report_11982, cert_11982, capsys):
    why = report_11982["closest"]["held_back"]
    assert why == {"positions": 12, "home_needs": "5H", "free_cells_full": 12,
                   "with_an_empty_column": 0,
                   "onto": {"7C": {"under other cards": 12}, "7S": {"under other cards": 12}}}
    # What it says is what the rules say: in each of those positions the card has no move.
    src = from_certificate(cert_11982)
    facts = stuck(src.start[2], src.table, src.records, 4, src.width, False)
    from certify.commands.explain import uncovered_positions
    from certify.game.rules import Rules, moves
    card = next(t.card for t in facts.tops if t is facts.closest)
    for p in uncovered_positions(src.start[2], src.table, src.records, 4, src.width, False,
                                 facts):
        assert [m for m in moves(p, Rules(4)) if m[0] == card] == []
    code = main(["explain", cert_11982, "--cell-budget", "0", "-q"])
    out = capsys.readouterr().out
    said = " ".join(out.split())
    assert code == 0 and ("6H never moves from there: in all 12, every free cell is full and no "
                          "column is empty; 5H is not home; and 7C and 7S, the cards it could "
                          "lie on, are never at the top of a column") in said
    lines = out.splitlines()
    after = next(k for k, line in enumerate(lines) if line.startswith("  closest to moving:"))
    why = [line for line in lines[after + 1:] if line.startswith("    ")]
    assert why and all(len(line) <= 80 for line in why)


# ---- Wins, the fewest free cells, variants -----------------------------------------------

def test_win_gives_length_and_fewest_cells(tmp_path, capsys):
    board = tmp_path / "b.txt"
    board.write_text(ONE_CELL_BOARD)
    code, r = run_json(capsys, "--board", str(board), "--cells", "2")
    assert code == 0 and r["claim"] == "win" and r["moves"] > 0
    assert (r["fewest_cells_to_win"], r["fewest_cells_exact"]) == (1, True)
    assert [(a["cells"], a["claim"]) for a in r["cell_searches"]] == [(1, "win"), (0, "no-win")]
    # The length is that of the line certify writes, and that line wins.
    cert = tmp_path / "w.msgpack.zst"
    assert main(["--board", str(board), "--cells", "2", "-q", "-o", str(cert)]) == 0
    line = reader.load(cert).line()
    position = read_board(ONE_CELL_BOARD, 2)
    assert len(line) == r["moves"] and replays_to_win(position, line, Rules(2))
    src = from_certificate(str(cert))
    assert (src.verdict, src.move_count, src.start) == ("win", r["moves"], position)


def test_budget_running_out_is_reported_as_such(cert_11982, capsys):
    code, r = run_json(capsys, cert_11982, "--cell-budget", "1000", "--no-solver")
    assert code == 0 and r["fewest_cells_to_win"] is None and r["fewest_cells_exact"] is False
    assert r["cell_searches"] == [{"cells": 5, "claim": "unknown", "verdict": "unknown",
                                   "positions": r["cell_searches"][0]["positions"]}]


@pytest.mark.parametrize("options, cells, fm, verdict", [
    (["--cells", "0"], 0, False, "no-win"), (["--cells", "3"], 3, False, "no-win"),
    (["--foundation-moves"], 4, True, "no-win"), (["--cells", "6"], 6, False, "win")])
def test_variants_flow_through(options, cells, fm, verdict, tmp_path, capsys):
    code, r = run_json(capsys, "781948", *options, "--cell-budget", "0")
    assert code == 0 and (r["cells"], r["foundation_moves"], r["claim"]) == (cells, fm, verdict)
    cert = tmp_path / "v.msgpack.zst"
    assert main(["781948", *options, "-q", "-o", str(cert)]) == 0
    capsys.readouterr()
    code, again = run_json(capsys, str(cert), "--cell-budget", "0")
    if verdict == "win":  # a win certificate holds the line (columns in place), no positions
        r["positions"], r["symmetry"] = None, "none"
    assert {**again, "certificate": None} == r
    if cells == 0:  # no free cell and no move at all: every card is frozen
        assert (r["positions"], r["frozen_count"]) == (1, 52)


def test_unknown_exits_3_and_draws_nothing(tmp_path, capsys):
    svg = tmp_path / "x.svg"
    code, r = run_json(capsys, "11982", "--no-solver", "--max-positions", "2000", "--svg",
                       str(svg))
    assert code == 3 and r["claim"] == "unknown" and not svg.exists()


# ---- The picture -------------------------------------------------------------------------

SVG = "{http://www.w3.org/2000/svg}"


def picture(path):
    """(cards by name -> their group, slots by place, caption text) of an SVG file."""
    root = ET.parse(path).getroot()  # it parses
    groups = list(root.iter(SVG + "g"))
    cards = {g.get("data-card"): g for g in groups if "card" in g.get("class").split()}
    slots = {g.get("data-place"): g for g in groups if g.get("class") == "slot"}
    caption = " ".join(t.text for t in root.iter(SVG + "text") if t.get("class") == "caption")
    return cards, slots, caption


def classes(group):
    return set(group.get("class").split())


def test_svg_holds_what_the_report_says(tmp_path, cert_11982, capsys):
    svg = tmp_path / "stuck.svg"
    code, r = run_json(capsys, "11982", "--svg", str(svg), "--cell-budget", "0")
    assert code == 0 and r["svg"] == str(svg)
    cards, slots, caption = picture(svg)
    assert len(cards) == 52  # every card once, all in the columns at the deal's start
    assert all(g.get("data-place").startswith("column ") for g in cards.values())
    frozen = {c for run in r["frozen"] for c in run}
    assert {c for c, g in cards.items() if "outlined" in classes(g)} == frozen
    assert [c for c, g in cards.items() if "closest" in classes(g)] == [r["closest"]["card"]]
    # Free cells and foundations are drawn as slots, empty at the start.
    assert sorted(slots) == ["foundation C", "foundation D", "foundation H", "foundation S",
                             "free cell 1", "free cell 2", "free cell 3", "free cell 4"]
    # The caption says the short answer first, in words for people, and what the marks mean;
    # the long why of the closest card is the text's, not the picture's.
    assert r["summary"] == "AS and AC can never move, so spades and clubs never go home."
    assert caption.startswith(f"Deal 11982 (4 free cells) cannot be won: {r['summary']}")
    assert f"the {r['frozen_count']} cards that never move" in caption
    assert "6\u2665, the frozen card closest to moving (uncovered in 12 positions" in caption
    assert "never moves from there" not in caption and len(caption) < 300
    assert "ever home" not in caption
    # Columns drawn as dealt, bottom card first; suits in colour.
    assert cards["QC"].get("data-place") == "column 4" and "AC" in r["frozen"][3]
    ink = {t.text: t.get("fill") for t in ET.parse(svg).getroot().iter(SVG + "text")}
    assert (ink["Q\u2663"], ink["6\u2665"]) == ("#111111", "#c8102e")
    again = tmp_path / "again.svg"  # the same picture, whether searched or read from a file
    run_json(capsys, cert_11982, "--svg", str(again), "--cell-budget", "0")
    assert svg.read_bytes() == again.read_bytes()


def test_marks_stay_inside_their_cards_edges(tmp_path, cert_11982, capsys):
    """A frozen card's thick border once stuck out beside the cards lying over it."""
    svg = tmp_path / "stuck.svg"
    run_json(capsys, cert_11982, "--svg", str(svg), "--cell-budget", "0")
    cards, _, _ = picture(svg)
    marked = [g for g in cards.values() if classes(g) & {"outlined", "closest"}]
    assert marked
    for g in marked:
        face, mark = g.findall(SVG + "rect")[:2]
        x, y, w, h = (float(face.get(k)) for k in ("x", "y", "width", "height"))
        mx, my, mw, mh = (float(mark.get(k)) for k in ("x", "y", "width", "height"))
        half = float(mark.get("stroke-width")) / 2  # a stroke straddles its line
        assert x <= mx - half and mx + mw + half <= x + w
        assert y <= my - half and my + mh + half <= y + h


def test_a_deal_that_frees_nothing_is_captioned_in_words():
    from certify.commands.explain import caption, summary
    report = {"deal": 5, "cells": 0, "foundation_moves": False, "symmetry": "columns",
              "claim": "no-win", "most_home": 0, "frozen_count": 52, "closest": None,
              "frozen": [["2C"], [], [], [], [], [], [], []]}
    report["summary"] = summary(report)
    lines = caption(report)
    assert lines[0] == ("Deal 5 (0 free cells) cannot be won: 52 cards can never move, and no "
                        "card ever reaches a foundation.")
    assert "the 52 cards that never move" in lines[1]


@pytest.mark.parametrize("frozen, most_home, said", [
    ([["AS", "3H"], [], ["AC"]], 2, "AS and AC can never move, so spades and clubs never go home."),
    ([["AD"]], 3, "AD can never move, so diamonds never go home."),
    ([["AD", "AH", "AS"]], 0,
     "AD, AH and AS can never move, so diamonds, hearts and spades never go home."),
    ([["KS"]], 7, "1 card can never move, and at most 7 cards ever reach the foundations."),
    ([[]], 1, "Only one card ever reaches a foundation.")])
def test_the_short_answer_comes_first(frozen, most_home, said):
    from certify.commands.explain import summary
    report = {"frozen": frozen, "frozen_count": sum(map(len, frozen)), "most_home": most_home}
    assert summary(report) == said


def test_svg_of_a_win_draws_the_cells_and_foundations(tmp_path, capsys):
    board, svg = tmp_path / "b.txt", tmp_path / "w.svg"
    board.write_text(ONE_CELL_BOARD)
    code, _ = run_json(capsys, "--board", str(board), "--cells", "2", "--svg", str(svg),
                       "--cell-budget", "0")
    cards, slots, caption = picture(svg)
    assert code == 0 and not any(classes(g) & {"outlined", "closest"} for g in cards.values())
    in_columns = [c for c, g in cards.items() if g.get("data-place").startswith("column ")]
    on_foundations = sorted(c for c, g in cards.items() if g.get("data-place") == "foundation")
    assert len(in_columns) == 20 and on_foundations == ["8C", "8D", "8H", "8S"]
    assert sorted(slots) == ["free cell 1", "free cell 2"]
    assert caption.startswith("The layout (2 free cells) can be won, in ")


def test_svg_into_a_folder_or_to_standard_output(tmp_path, cert_11982, capsys, monkeypatch):
    (tmp_path / "pictures").mkdir()
    assert main(["explain", cert_11982, "--cell-budget", "0", "--svg",
                 str(tmp_path / "pictures")]) == 0
    said = capsys.readouterr().out
    written = tmp_path / "pictures" / "11982.svg"
    assert said.splitlines()[-1] == f"  picture: {written}" and picture(written)[0]
    # (-q: no progress line on stderr, however slow the machine)
    assert main(["explain", cert_11982, "-q", "--cell-budget", "0", "--svg", "-"]) == 0
    out, err = capsys.readouterr()
    assert out == written.read_text()  # the picture alone on stdout ...
    assert err.startswith("NO WIN: deal 11982")  # ... and the words on stderr


# ---- Bad input ---------------------------------------------------------------------------

@pytest.mark.parametrize("argv, complaint", [
    (["0"], "out of range"),
    (["nowhere.msgpack.zst"], "cannot read"),
    (["GARBAGE"], "zstd"),
    (["CERT", "--cells", "3"], "rule options"),
    (["11982", "--svg", "no/such/folder/x.svg"], "there is no folder no/such/folder"),
    (["11982", "--svg", "/proc/x.svg"], "cannot create files in /proc"),
    (["11982", "--cell-budget", "-1"], "--cell-budget"),
    (["11982", "--max-positions", "0"], "must be at least 1"),
    (["11982", "--time-limit", "0"], "more than 0 seconds"),
    (["11982", "--cell-time", "-2"], "--cell-time"),
    ([], "give a deal number"),
    (["11982", "--board", "b.txt"], "one of them"),
])
def test_bad_input_exits_2_with_one_line(argv, complaint, cert_781948, tmp_path, monkeypatch,
                                        capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "GARBAGE").write_bytes(b"not a certificate at all")
    (tmp_path / "CERT").write_bytes(cert_781948.read_bytes())
    before = sorted(p.name for p in tmp_path.iterdir())
    assert main(["explain", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and complaint in err[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_truncated_certificate_is_refused(cert_781948, tmp_path, capsys):
    cert = tmp_path / "c.msgpack.zst"
    cert.write_bytes(cert_781948.read_bytes()[:-100])
    assert main(["explain", str(cert)]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
