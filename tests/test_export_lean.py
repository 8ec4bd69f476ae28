"""`certify export --lean`: structure of the Lean 4 file, and its data read back independently.

No Lean toolchain is installed here, so the file is not compiled (the README says so). These
tests check that it has the shape it is meant to have and, with a reading of the data written
here from the encoding's description (not from certify/commands/exports/lean.py), that it holds exactly
the positions exported: the certificate's, or for a certificate taken up to column
permutation, those of a search with fixed columns.
"""

import re

import pytest

from certify.format import reader
from certify.game.board import read_board
from certify.commands.cli import main
from certify.game.deals import deal
from certify.outcome import NO_WIN
from certify.run.prove import proved
from certify.game.rules import Rules, encode, start
from support.position_counts import known_count

LAYOUT = """Foundations: H-6 C-4 D-6 S-4
Freecells: KD
: TH 5S KC 8H TS
: 9D 7S
: 8D 9H 8S 5C
: KS JC
: TD KH
: QH QS TC QC
: JH 8C JS 6C 7H QD
: 7D 9S 9C JD 7C 6S
"""


def card_of_letter(ch):
    return ord(ch) - ord("A") if "A" <= ch <= "Z" else ord(ch) - ord("a") + 26


def string_constant(text, name):
    match = re.search(rf'^def {name} : String :=\n  "([^"\\]*)"$', text, re.M)
    assert match, f"no string constant {name}"
    return match.group(1)


def read_back(text):
    """The positions a Lean file holds, as (foundations, cells, columns bottom to top)."""
    table = [bytes(card_of_letter(ch) for ch in word if ch != "-")
             for word in string_constant(text, "columnData").split(" ")]
    width = int(re.search(r"^def idWidth : Nat := (\d+)$", text, re.M).group(1))
    positions = []
    for record in string_constant(text, "stateData").split(" "):
        head, ids = record.split(".")
        columns = []
        for k in range(8):
            n = 0
            for ch in ids[k * width:(k + 1) * width]:
                n = n * 52 + card_of_letter(ch)
            columns.append(table[n])
        assert len(ids) == 8 * width
        positions.append((bytes(card_of_letter(ch) for ch in head[:4]),
                          bytes(card_of_letter(ch) for ch in head[4:]), tuple(columns)))
    return positions


def export(cert, out):
    assert main(["export", "--lean", str(cert), "-o", str(out)]) == 0
    return out.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def deal_11982(tmp_path_factory):
    """The Lean export of 11982's certificate (up to column permutation), and the certificates
    of 11982 with and without column symmetry."""
    folder = tmp_path_factory.mktemp("lean")
    symmetric, fixed = folder / "11982.msgpack.zst", folder / "11982-fixed.msgpack.zst"
    proved(start(deal(11982)), Rules(4), 11982, out=symmetric)
    proved(start(deal(11982)), Rules(4, True), 11982, out=fixed)
    return export(symmetric, folder / "FreeCell11982.lean"), symmetric, fixed


def test_lean_file_has_the_published_shape(deal_11982):
    text = deal_11982[0]
    for line in ["import Std.Data.HashSet",
                 "structure State where",
                 "  deriving DecidableEq, Hashable",
                 "def canStack (c onto : Card) : Bool :=",
                 "def canHome (home : List Nat) (c : Card) : Bool :=",
                 "def moves (s : State) : List State :=",
                 "inductive Reachable : State → Prop where",
                 "def Won (s : State) : Prop := s.home = [13, 13, 13, 13]",
                 "def certSet : Std.HashSet State := Std.HashSet.ofList certStates",
                 "def checkCert : Bool := certSet.contains start && certStates.all closedAt",
                 "theorem checkCert_ok : checkCert = true := by decide +native",
                 "theorem deal_11982_unwinnable : ∀ s, Reachable s → ¬ Won s :=",
                 "#print axioms deal_11982_unwinnable",
                 "def start : State := ⟨[0, 0, 0, 0], [], deal 11982⟩"]:
        assert any(have.startswith(line) for have in text.splitlines()), line
    assert re.search(r"^theorem cert_sound \(h : checkCert = true\)", text, re.M)
    assert "induction hs with" in text
    assert re.search(r"for Lean 4 \(v4\.\d+\.\d+\)", text)  # names the version it targets
    assert "not compiled by the project's CI" in " ".join(text.split())
    assert "deriving BEq" not in text
    assert "mem_of_elem_eq_true" not in text  # deprecated in Lean core
    assert not re.search(r"\bsorry\b|\badmit\b|^axiom\b", text, re.M)
    lines = [line for line in text.splitlines() if line.strip() and not line.startswith("  ")]
    code = [line for line in lines if not line.startswith(('def columnData', 'def stateData'))]
    assert len(code) < 200  # minimal: the rules, the check and the proofs, then the data


def test_lean_data_reads_back_as_the_fixed_column_positions(deal_11982):
    text, symmetric, fixed = deal_11982
    got = read_back(text)
    assert len(got) == len(set(got)) == known_count(11982, symmetry="none")
    assert set(got) == set(reader.load(fixed).positions())
    symmetric = reader.load(symmetric).positions()  # up to column permutation: the same
    assert {encode(p, 4) for p in got} == {encode(p, 4) for p in symmetric}


@pytest.mark.parametrize("fixed", [True, False])
def test_lean_data_reads_back_for_a_layout(tmp_path, fixed):
    rules = Rules(1, fixed, True)
    position = read_board(LAYOUT, 1)
    cert = tmp_path / "board.msgpack.zst"
    assert proved(position, rules, None, out=cert).verdict == NO_WIN
    text = export(cert, tmp_path / "Board.lean")
    head, body = reader.read(cert)
    claimed = reader.Certificate(head, body).positions()
    got = read_back(text)
    if fixed:
        assert sorted(got) == sorted(claimed)
    else:
        assert {encode(p, 1) for p in got} == {encode(p, 1) for p in claimed}
    assert "theorem board_unwinnable : ∀ s, Reachable s → ¬ Won s :=" in text.splitlines()
    assert "def freeCells : Nat := 1" in text.splitlines()
    assert "def foundationMoves : Bool := true" in text.splitlines()
    # The start is spelled out: foundations, free cells, and columns bottom to top.
    start_text = text[text.index("def start : State :="):text.index("/-! ## The rules")]
    numbers = [list(map(int, re.findall(r"\d+", part)))
               for part in re.findall(r"\[([\d, ]*)\]", start_text)]
    found, cells, cols = position
    assert numbers == [list(found), list(cells)] + [list(c) for c in cols]


def test_lean_export_refuses_win_certificates(tmp_path, capsys):
    cert = tmp_path / "win.msgpack.zst"
    proved(read_board("Foundations: H-K C-K D-K S-Q\n: KS\n", 4), Rules(4), None, out=cert)
    assert main(["export", "--lean", str(cert), "-o", str(tmp_path / "Win.lean")]) == 2
    assert "win certificate" in capsys.readouterr().err
    assert not (tmp_path / "Win.lean").exists()
