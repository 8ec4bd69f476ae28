"""`certify export --coq`: the exported file is a proof that coqc accepts, about the right rules.

These tests need Coq's `coqc` (Debian's coq package; .ci/run installs it). Without it they fail,
never skip: the Coq check is the point of the export. They compile the proofs of the eight
published deals below one million (closed under every move then safe autoplay, as certify
writes them by default; 11982, compiled once, the largest share; under 600 MB each), the sanity
lemmas against deal 11982's, the templates on their own, and small boards with both methods
and both closures. The plain closure's proof of 11982 is only written, not compiled: its text
is the template's as it was, which the small boards compile.
"""

import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import xxhash

from certify.format import reader, spec, writer
from certify.game.board import read_board
from certify.commands.cli import main
from certify.game.deals import deal
from certify.commands.exports.coq import METHODS, TEMPLATES, coq_file
from certify.engine import decode_key, search
from certify.outcome import NO_WIN
from certify.run.prove import proved
from certify.game.rules import Rules, moves, start
from support.position_counts import known_count

PUBLISHED = Path(__file__).resolve().parent.parent / "certificates"
BELOW_A_MILLION = [11982, 146692, 186216, 455889, 495505, 512118, 517776, 781948]

# A layout with no free cell that cannot be won (231 positions).
NO_CELLS = """Foundations: H-5 C-8 D-6 S-8
: 9H 9S 7D 7H
: JC TH TD QS TC
: KC
: KS JD QC
: 9D 6H JS 8D QH
: QD KH
: 9C 8H TS
: KD JH
"""

# One free cell, already full, and foundation moves allowed: cannot be won (432 positions).
ONE_CELL_BACK = """Foundations: H-6 C-4 D-6 S-4
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

BOARDS = [(NO_CELLS, Rules(0)), (ONE_CELL_BACK, Rules(1, False, True)),
          (ONE_CELL_BACK, Rules(1, True, True))]  # the last certificate has symmetry "none"


def coqc(path, *options):
    """Run coqc on `path` in its folder; a missing coqc is a failure, not a skip."""
    assert shutil.which("coqc"), "coqc is not installed (Debian: apt-get install coq)"
    return subprocess.run(["coqc", *options, path.name], cwd=path.parent, capture_output=True,
                          text=True, timeout=900)


def export(cert, out, *flags):
    return main(["export", "--coq", str(cert), "-o", str(out), *flags])


def board_certificate(tmp_path, text, rules, label):
    position = read_board(text, rules.ncells)
    cert = tmp_path / f"{label}.msgpack.zst"
    assert proved(position, rules, None, out=cert).verdict == NO_WIN
    return cert, position


def assert_proved(result):
    assert result.returncode == 0, (result.stdout + result.stderr)[-2000:]
    assert "Closed under the global context" in result.stdout


@pytest.fixture(scope="module")
def deal_11982(tmp_path_factory):
    """The export of the published certificate of 11982, compiled: (folder, text, coqc's result)."""
    folder = tmp_path_factory.mktemp("coq11982")
    out = folder / "FreeCell11982.v"
    assert export(PUBLISHED / "11982.msgpack.zst", out) == 0
    return folder, out.read_text(), coqc(out)


def test_coq_proves_deal_11982(deal_11982):
    _, text, result = deal_11982
    lines = [line for line in text.splitlines() if line.strip()]
    assert "Theorem deal_11982_unwinnable : forall s, Reachable s -> ~ Won s." in lines
    assert [line for line in lines if line.startswith(("Theorem", "Lemma"))][-1] == \
        "Theorem deal_11982_unwinnable : forall s, Reachable s -> ~ Won s."
    assert lines[-1] == "Print Assumptions deal_11982_unwinnable."
    assert "Definition deal_number : N := 11982." in lines
    count = known_count(11982, closure="autoplay")
    assert count == 61643
    assert f"Lemma search_ok : search_result 40 seeds = Some (1%N, {count}%N)." in lines
    assert "(** * Closing the set under every move, then safe autoplay" in lines
    assert len(text) < 150_000  # the search needs no data (the data would be megabytes)
    assert not re.search(r"\b(Admitted|admit|Axiom|Parameter)\b", text)
    assert_proved(result)


def test_trusted_lines_are_named_and_are_the_rules_template(deal_11982):
    _, text, _ = deal_11982
    lines = text.splitlines()
    a, b, c = map(int, re.search(r"Trusted: lines (\d+)-(\d+), and the statement of the "
                                 r"theorem on line (\d+)\.", text).groups())
    assert lines[a - 1] == "From Coq Require Import Bool Arith List NArith."
    assert "Nothing below this line needs to be trusted" in lines[b - 2]
    assert lines[c - 1] == "Theorem deal_11982_unwinnable : forall s, Reachable s -> ~ Won s."
    # For 11982 under the default rules the trusted lines are Rules.v's, word for word.
    rules = (TEMPLATES / "Rules.v").read_text().splitlines()
    first = rules.index("From Coq Require Import Bool Arith List NArith.")
    end = a - 1 + len(rules) - first
    assert lines[a - 1:end] == rules[first:]
    assert lines[end:b] == [""] + (TEMPLATES / "Equality.v").read_text().splitlines()[:3]


def test_sanity_lemmas_hold_for_deal_11982(deal_11982):
    folder, _, result = deal_11982
    assert result.returncode == 0
    shutil.copy(TEMPLATES / "Sanity11982.v", folder)
    sanity = coqc(folder / "Sanity11982.v")
    assert sanity.returncode == 0, (sanity.stdout + sanity.stderr)[-2000:]


@pytest.mark.parametrize("number", BELOW_A_MILLION[1:])
def test_coq_proves_the_published_deals_below_a_million(tmp_path, number):
    out = tmp_path / f"FreeCell{number}.v"
    assert export(PUBLISHED / f"{number}.msgpack.zst", out) == 0
    assert f"Theorem deal_{number}_unwinnable : forall s, Reachable s -> ~ Won s." in \
        out.read_text().splitlines()
    assert_proved(coqc(out))


def test_plain_export_of_11982_is_the_plain_search(tmp_path):
    """A certificate without the closure key gets the plain search (Search.v), and none of
    Autoplay.v; the count it must end with is every reachable position's."""
    cert = tmp_path / "11982.msgpack.zst"
    assert main(["11982", "--no-autoplay", "-o", str(cert)]) == 0
    out = tmp_path / "FreeCell11982.v"
    assert export(cert, out) == 0
    text = out.read_text()
    assert f"Some (1%N, {known_count(11982)}%N)" in text
    assert template_text("Search.v") in text
    assert "autoplay" not in text.lower()


def template_text(name):
    """A template as the exporter joins it: without its lines for compiling it alone."""
    return "".join(line for line in (TEMPLATES / name).read_text().splitlines(keepends=True)
                   if not line.rstrip().endswith("(* template only *)")).strip("\n")


def test_templates_compile_on_their_own(tmp_path):
    for name in ("Rules.v", "Equality.v", "NoWin.v", "Search.v", "Autoplay.v"):
        shutil.copy(TEMPLATES / name, tmp_path)
        result = coqc(tmp_path / name, "-Q", ".", "FreeCell")
        assert result.returncode == 0, (name, (result.stdout + result.stderr)[-2000:])


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("text, rules", BOARDS)
def test_coq_proves_small_boards(tmp_path, text, rules, method):
    cert, position = board_certificate(tmp_path, text, rules, "board")
    out = tmp_path / "Board.v"
    assert export(cert, out, "--method", method) == 0
    exported = out.read_text()
    assert "Theorem board_unwinnable : forall s, Reachable s -> ~ Won s." in exported
    assert f"Definition free_cells : nat := {rules.ncells}." in exported
    assert f"Definition foundation_moves : bool := {str(rules.foundation_moves).lower()}." \
        in exported
    assert ("Definition seeds : list position := [].") in exported.splitlines() or \
        method == "data"
    assert_proved(coqc(out))


@pytest.mark.parametrize("text, rules, method", [(NO_CELLS, Rules(0, autoplay=True), "data"),
                                                 (ONE_CELL_BACK, Rules(1, autoplay=True), "search")])
def test_coq_proves_small_boards_closed_under_autoplay(tmp_path, text, rules, method):
    cert, position = board_certificate(tmp_path, text, rules, "board")
    assert reader.load(cert).header["closure"] == "autoplay"
    out = tmp_path / "Board.v"
    assert export(cert, out, "--method", method) == 0
    exported = out.read_text()
    assert "Theorem board_unwinnable : forall s, Reachable s -> ~ Won s." in exported
    assert template_text("Autoplay.v") in exported and "Lemma search_ok" in exported
    assert_proved(coqc(out))


def test_coq_rejects_a_certificate_with_a_position_missing(tmp_path):
    cert, _ = board_certificate(tmp_path, NO_CELLS, Rules(0), "board")
    out = tmp_path / "Board.v"
    assert export(cert, out, "--method", "data") == 0
    lines = out.read_text().splitlines()
    data = [i for i, line in enumerate(lines) if line.startswith("   P ") and line.endswith(";")]
    del lines[data[len(data) // 2]]  # the search finds it again: (230, 231), not (231, 231)
    out.write_text("\n".join(lines) + "\n")
    result = coqc(out)
    assert result.returncode != 0
    assert "Closed under the global context" not in result.stdout


def test_coq_rejects_a_wrong_count(tmp_path):
    cert, _ = board_certificate(tmp_path, NO_CELLS, Rules(0), "board")
    out = tmp_path / "Board.v"
    assert export(cert, out) == 0
    text = out.read_text()
    assert text.count("(1%N, 231%N)") == 3
    out.write_text(text.replace("(1%N, 231%N)", "(1%N, 230%N)"))
    result = coqc(out)
    assert result.returncode != 0
    assert "Closed under the global context" not in result.stdout


def coq_position(position):
    found, cells, cols = position
    columns = "; ".join("[" + "; ".join(map(str, col)) + "]" for col in cols)
    return (f"(mk (Home {' '.join(map(str, found))}) [{'; '.join(map(str, cells))}] "
            f"[{columns}])")


AT = ("Definition mk (f : foundations) (cs : list nat) (cols : list (list nat)) : position :=\n"
      "  Position f (map card_of_number cs) (map (fun col => rev (map card_of_number col)) cols).\n")


def trusted_part(head, first):
    """The part of an export a reader must trust (no data), with the rules for `head`."""
    text = coq_file(head, first, [first], "(test)", "Rules.v")
    return text[:text.index("(** ----")]


def conformance_file(tmp_path, head, first, positions):
    """A Coq file stating, for each position, that Coq's [moves] is Python's rules.moves."""
    examples = []
    for k, p in enumerate(positions):
        expected = [q for _, _, q in moves(p, Rules(head["cells"], foundation_moves=head["foundation_moves"]))]
        examples.append(f"Example moves_{k} : moves {coq_position(p)} =\n  "
                        f"[{'; '.join(coq_position(q) for q in expected)}].\n"
                        "Proof. vm_compute. reflexivity. Qed.\n")
    path = tmp_path / "Rules.v"
    path.write_text(trusted_part(head, first) + AT + "\n".join(examples))
    return path


def sample(positions, k, seed=0):
    return random.Random(seed).sample(sorted(positions), min(k, len(positions)))


@pytest.mark.parametrize("text, rules", BOARDS[:2])
def test_coq_moves_are_the_rules_on_boards(tmp_path, text, rules):
    position = read_board(text, rules.ncells)
    outcome = search(position, Rules(rules.ncells, True, rules.foundation_moves))
    positions = [decode_key(k, rules.ncells, outcome.columns) for k in outcome.keys]
    head = {"deal": None, "cells": rules.ncells, "foundation_moves": rules.foundation_moves}
    result = coqc(conformance_file(tmp_path, head, position, sample(positions, 30) + [position]))
    assert result.returncode == 0, result.stderr[-2000:]


def test_coq_moves_are_the_rules_on_deal_11982(tmp_path):
    first = start(deal(11982))
    outcome = search(first, Rules(4, True))
    positions = [decode_key(k, 4, outcome.columns) for k in outcome.keys]
    busy = [p for p in positions if len(p[1]) >= 3]  # several free cells taken: insertion order
    head = {"deal": 11982, "cells": 4, "foundation_moves": False}
    chosen = sample(positions, 20) + sample(busy, 15) + [first]
    result = coqc(conformance_file(tmp_path, head, first, chosen))
    assert result.returncode == 0, result.stderr[-2000:]


def test_coq_deals_are_the_deals(tmp_path):
    numbers = [1, 617, 11982, 2**31 - 1, 2**31, 3_000_000_000, 2**32, 2**32 + 11982, 2**33 - 1]
    examples = []
    for n in numbers:
        columns = "; ".join("[" + "; ".join(map(str, col)) + "]" for col in deal(n))
        examples.append(f"Example deal_{n} : deal {n}%N =\n  map (fun col => rev (map "
                        f"card_of_number col)) [{columns}].\nProof. vm_compute. reflexivity. Qed.\n")
    head = {"deal": 1, "cells": 4, "foundation_moves": False}
    path = tmp_path / "Deals.v"
    path.write_text(trusted_part(head, start(deal(1))) + "\n".join(examples))
    result = coqc(path)
    assert result.returncode == 0, result.stderr[-2000:]


@pytest.mark.parametrize("method", METHODS)
def test_export_is_deterministic_and_follows_the_certificate(tmp_path, method):
    cert, _ = board_certificate(tmp_path, ONE_CELL_BACK, Rules(1, True, True), "fixed")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first, second = tmp_path / "a" / "Board.v", tmp_path / "b" / "Board.v"  # the name is in it
    assert export(cert, first, "--method", method) == 0
    assert export(cert, second, "--method", method) == 0
    assert first.read_bytes() == second.read_bytes()
    text = " ".join(first.read_text().split())
    head, body = reader.read(cert)
    canonical = {(p[0], p[1], tuple(sorted(p[2], key=lambda c: c[-1] if c else -1)))
                 for p in reader.Certificate(head, body).positions()}
    assert f"having found exactly {len(canonical):,} positions up to the order of columns" in text
    assert f"the certificate holds {head['count']:,} positions with columns in fixed places" in text


def test_coq_proves_a_win(tmp_path):
    cert = tmp_path / "win.msgpack.zst"
    position = read_board(NO_CELLS, 1)  # with one free cell, this layout can be won
    result = proved(position, Rules(1), None, out=cert)
    assert result.verdict == "win"
    out = tmp_path / "Win.v"
    assert export(cert, out) == 0
    lines = [line for line in out.read_text().splitlines() if line.strip()]
    assert "Theorem board_winnable : exists s, Reachable s /\\ Won s." in lines
    assert lines[-1] == "Print Assumptions board_winnable."
    result = coqc(out)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "Closed under the global context" in result.stdout


def test_export_refuses_a_win_with_an_illegal_move(tmp_path, capsys):
    cert = tmp_path / "win.msgpack.zst"
    proved(read_board(NO_CELLS, 1), Rules(1), None, out=cert)
    head, body = reader.read(cert)
    forged = tmp_path / "forged.msgpack.zst"
    assert body[0] == 0xC4   # a bin of the move indices
    body = body[:3] + bytes([250]) + body[4:]  # move 2: an index beyond the moves there are
    head["xxh3_64"] = xxhash.xxh3_64_hexdigest(body)
    forged.write_bytes(writer.encode_values(head, body))
    assert export(forged, tmp_path / "Forged.v") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and ("not a legal move" in err or "home" in err)
    assert not (tmp_path / "Forged.v").exists()


@pytest.mark.parametrize("content", [b"", b"not a certificate", b"\x28\xb5\x2f\xfd garbage"])
def test_export_refuses_files_that_are_not_certificates(tmp_path, capsys, content):
    cert = tmp_path / "bad.msgpack.zst"
    cert.write_bytes(content)
    out = tmp_path / "Bad.v"
    assert export(cert, out) == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert not out.exists()


@pytest.mark.parametrize("kind, words", [("fifo", "a FIFO (named pipe), not a regular file"),
                                         ("folder", "a folder, not a regular file")])
def test_export_refuses_what_is_not_a_regular_file_without_opening_it(tmp_path, capsys, kind,
                                                                      words):
    """A FIFO with no writer would hold the export at open() for ever; it is refused at once."""
    cert = tmp_path / kind
    if kind == "fifo":
        os.mkfifo(cert)
    else:
        cert.mkdir()
    out = tmp_path / "Bad.v"
    assert export(cert, out) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err
    assert not out.exists()


def test_export_refuses_a_file_name_coqc_cannot_compile(tmp_path, capsys):
    cert, _ = board_certificate(tmp_path, NO_CELLS, Rules(0), "board")
    for name in ("11982.v", "free-cell.v", "Board.txt"):
        assert export(cert, tmp_path / name) == 2
        assert not (tmp_path / name).exists()
    assert export(cert, tmp_path / "missing" / "FreeCellBoard.v") == 2
    assert export(cert, "-") == 2  # a file, not standard output


def test_export_writes_only_what_it_was_asked_to(tmp_path, capsys):
    """certify/output.py's rules: a folder gets the default name inside it; a link is written
    through and stays a link; a character device is written in place, never replaced."""
    cert, _ = board_certificate(tmp_path, NO_CELLS, Rules(0), "board")
    (tmp_path / "Folder.v").mkdir()
    assert export(cert, tmp_path / "Folder.v") == 0
    assert (tmp_path / "Folder.v").is_dir() and (tmp_path / "Folder.v" / "FreeCellBoard.v").is_file()
    (tmp_path / "Link.v").symlink_to(tmp_path / "Elsewhere.v")
    assert export(cert, tmp_path / "Link.v") == 0
    assert (tmp_path / "Link.v").is_symlink() and (tmp_path / "Elsewhere.v").is_file()
    assert main(["export", "--lean", str(cert), "-o", "/dev/null"]) == 0
    assert Path("/dev/null").is_char_device()
    assert main(["export", str(cert)]) == 2  # neither --coq nor --lean
    assert main(["export", "--coq", str(cert), "--lean", str(cert)]) == 2
    assert main(["export", "--coq", str(tmp_path / "missing.msgpack.zst")]) == 2


# NO_CELLS with the top cards of columns 1 and 3 swapped: another layout that cannot be won.
SWAPPED = NO_CELLS.replace(": 9H 9S 7D 7H", ": 9H 9S 7D KC").replace(": KC\n", ": 7H\n")


@pytest.mark.parametrize("fixed", [False, True])
def test_export_refuses_a_certificate_for_another_start(tmp_path, capsys, fixed):
    cert, _ = board_certificate(tmp_path, NO_CELLS, Rules(0, fixed), "board")
    head, body = reader.read(cert)
    head["board"] = spec.board_bytes(read_board(SWAPPED, 0), 0)
    forged = tmp_path / "forged.msgpack.zst"
    forged.write_bytes(writer.encode_file(head, body))
    out = tmp_path / "Forged.v"
    assert export(forged, out) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and ("missing" in err or "not one of" in err)
    assert not out.exists()


def test_readme_names_the_trusted_lines_of_the_11982_file(deal_11982):
    """README's section on what a reader trusts gives line numbers in FreeCell11982.v."""
    _, text, _ = deal_11982
    lines = text.splitlines()
    readme = " ".join((Path(__file__).resolve().parent.parent / "README.md").read_text().split())
    said = re.search(r"in FreeCell11982\.v, lines (\d+)-(\d+) \(the cards from line (\d+), "
                     r"positions and `Won` from (\d+), the deal from (\d+), the rules `moves` "
                     r"and their parts from (\d+), `Reachable` at (\d+)\) and the theorem's "
                     r"statement on line (\d+)\.", readme)
    assert said, "README no longer names the trusted lines"
    a, b, cards, pos, deal_, rules, reach, thm = map(int, said.groups())
    assert f"Trusted: lines {a}-{b}, and the statement of the theorem on line {thm}." in text
    assert lines[cards - 1] == "(** * Cards *)"
    assert lines[pos - 1] == "(** * Positions *)"
    assert lines[deal_ - 1] == "(** * The deal, regenerated from its number"
    assert lines[rules - 1] == "(** * The rules: single-card moves *)"
    assert lines[reach - 1] == "Inductive Reachable : position -> Prop :="


def test_prove_coq_resumes_and_the_index_shows_its_result(tmp_path):
    """certificates/prove_coq.py --all runs only the deals its table lacks (here the smallest,
    2607073) or has for another certificate (6768658, the next smallest but one), keeps the
    other rows as they are, and the index's Coq column shows the result."""
    import index
    import prove_coq
    import published
    results = tmp_path / "coq-results.tsv"

    def recorded(d, digest):
        return dict(zip(prove_coq.COLUMNS, [d, 1, "search", "proved", "1.0", "1", "1.0", 1,
                                            "0" * 64, "8.16.1", digest]))
    earlier = {d: recorded(d, published.sha256_of(PUBLISHED / published.file_name(d)))
               for d in published.read_deals() if d not in (2607073, 6768658)}
    prove_coq.write_results(earlier | {6768658: recorded(6768658, "0" * 64)}, results)
    done = subprocess.run([sys.executable, str(PUBLISHED / "prove_coq.py"), "--all",
                           "--results", str(results), "--nice", "0", "--work", str(tmp_path)],
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 deal(s)" in done.stdout
    rows = prove_coq.read_results(results)
    assert sorted(rows) == published.read_deals()
    assert all(rows[d] == {k: str(v) for k, v in earlier[d].items()} for d in earlier)
    for number in (2607073, 6768658):  # the count up to column order: the certificate's
        row = rows[number]
        count = str(reader.load(PUBLISHED / published.file_name(number)).count)
        assert (row["positions"], row["method"], row["result"]) == (count, "search", "proved")
        assert float(row["cpu_seconds"]) > 0 and float(row["peak_mb"]) > 0
        assert len(row["v_sha256"]) == 64 and int(row["v_bytes"]) > 0
        assert row["certificate_sha256"] == \
            published.sha256_of(PUBLISHED / published.file_name(number))
    cpu, digest = float(rows[2607073]["cpu_seconds"]), rows[2607073]["certificate_sha256"]
    fact = {"deal": 2607073, "cells": 4, "fm": False, "sha256": digest}
    assert index.coq_text(fact, rows) == f"proved, {cpu:.0f} s"
    assert index.coq_text({**fact, "cells": 5}, rows) == "–"
    assert index.coq_text(fact, {}) == "not yet compiled"
    # a proof of the deal's earlier certificate is not a proof of this one
    assert index.coq_text({**fact, "sha256": "1" * 64}, rows) == "not yet compiled"
    assert index.coq_text({"deal": 1, "cells": 4, "fm": False, "claim": "win"}, {}) == "–"
    facts = [{**fact, "claim": "no-win"},
             {"deal": 6768658, "cells": 4, "fm": False, "claim": "no-win",
              "sha256": rows[6768658]["certificate_sha256"]},
             {"deal": 9999999, "cells": 4, "fm": False, "claim": "no-win", "sha256": "2" * 64},
             {"deal": 1, "cells": 4, "fm": False, "claim": "win"}]
    stopped = {"result": "stopped after 1 s", "certificate_sha256": "2" * 64}
    assert index.coq_summary(facts, rows | {9999999: stopped})[0] == (
        "Coq: 2 of the 3 no-win certificates for 4 free cells proved by coqc, 0 not yet "
        "compiled, 1 not proved (the Coq column).")
    assert not list(tmp_path.glob("FreeCell*"))  # the scratch files are removed


def test_prove_coq_says_when_a_proof_misses_its_target():
    """The Coq targets (prove_coq.TARGETS): a proof over one is recorded as proved and over,
    with the figure, and the index says so; within its target, or with none, it is plainly
    proved."""
    import index
    import prove_coq
    assert prove_coq.over_target(11982, 14.9, 599) == ""
    assert prove_coq.over_target(11982, 16.2, 610) == \
        ", over its target: 16.2 s CPU > 15 s, 610 MB > 600 MB"
    assert prove_coq.over_target(7484159, 1300, 8000) == ", over its target: 1300.0 s CPU > 1200 s"
    assert prove_coq.over_target(146692, 1e6, 1e6) == ""
    fact = {"deal": 11982, "cells": 4, "fm": False, "sha256": "3" * 64}
    row = {"result": "proved, over its target: 16.2 s CPU > 15 s", "cpu_seconds": "16.2",
           "certificate_sha256": "3" * 64}
    assert index.coq_text(fact, {11982: row}) == "proved, 16 s, over its target"
    row = {"result": "stopped after 14400 s", "cpu_seconds": "14000", "certificate_sha256": "3" * 64}
    assert index.coq_text(fact, {11982: row}) == "not proved (coq-results.tsv says why)"


def test_sanity_layout_is_the_published_one():
    """The rows Sanity11982.v states are those of tests/data/published-layouts.txt."""
    text = (TEMPLATES / "Sanity11982.v").read_text()
    example = text[text.index("Example deal_11982_is_the_published_layout"):]
    example = example[:example.index("Proof.")]
    rows = [" ".join(re.findall(r'"(\w\w)"', line))
            for line in example.splitlines() if line.strip().startswith("[\"")]
    layouts = (Path(__file__).parent / "data" / "published-layouts.txt").read_text()
    block = layouts[layouts.index("Game #11982"):].splitlines()[1:]
    published = []
    for line in block:
        if not line.strip() or line.startswith(("Game", "#", "--")):
            break
        published.append(line.strip())
    assert rows == published and len(rows) == 7
