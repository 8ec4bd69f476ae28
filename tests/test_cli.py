"""The certify command line: verdicts, exit codes, JSON, and what it refuses; where
certificates go, their default names, and input that must never hang or grow without bound."""

import hashlib
import importlib.util
import json
import os
import pathlib
import re
import stat
import subprocess
import sys
import threading
import time

import pytest
import zstandard

from certify.format import reader
from certify.commands import cli
from certify.game import deals
from certify.run import prove as certify_prove
from certify.game.board import write_board
from certify.commands.cli import certify_parser, main
from certify.format.names import certificate_name
from certify.game.rules import Rules, start
from support.position_counts import known_count

REPO = pathlib.Path(__file__).resolve().parent.parent


def certify(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "certify", *args], capture_output=True,
                          text=True, cwd=cwd)


def test_11982_json_and_determinism(tmp_path):
    out = certify("11982", "--no-solver", "--json", "-o", str(tmp_path / "a.msgpack.zst"))
    assert out.returncode == 0, out.stderr
    row = json.loads(out.stdout)
    # "verdict", the outcome's name before "claim", is kept beside it for one release
    assert {"deal", "claim", "positions", "path", "sha256"} <= set(row)
    assert row["verdict"] == row["claim"]
    assert (row["deal"], row["claim"], row["positions"]) == (11982, "no-win",
                                                           known_count(11982, closure="autoplay"))
    again = json.loads(certify("11982", "--no-solver", "--json", "-o",
                               str(tmp_path / "b.msgpack.zst")).stdout)
    assert again["sha256"] == row["sha256"]
    assert (tmp_path / "a.msgpack.zst").read_bytes() == (tmp_path / "b.msgpack.zst").read_bytes()


def test_default_output_name(tmp_path):
    out = certify("11982", "-q", "--no-solver", cwd=tmp_path)
    assert out.returncode == 0
    assert "NO WIN" in out.stdout and "sha256" in out.stdout
    assert [p.name for p in tmp_path.iterdir()] == ["11982.msgpack.zst"]


@pytest.mark.parametrize("args", [["0"], ["-5"], ["8589934592"], ["eleven"], ["1.5"], [],
                                  ["1", "--cells", "9"], ["1", "--board", "x"]])
def test_bad_input_exits_2_with_one_line(args, tmp_path):
    out = certify(*args, cwd=tmp_path)
    assert out.returncode == 2
    assert len(out.stderr.strip().splitlines()) <= 2  # argparse adds a usage line
    assert list(tmp_path.iterdir()) == []


def test_budget_exits_3_and_writes_nothing(tmp_path):
    out = certify("11982", "--no-solver", "--max-positions", "2000", "--json", cwd=tmp_path)
    assert out.returncode == 3
    assert json.loads(out.stdout)["claim"] == "unknown"
    assert list(tmp_path.iterdir()) == []


def test_board_file(tmp_path):
    board = tmp_path / "endgame.txt"
    board.write_text("Foundations: H-K C-K D-Q S-Q\nFreecells: -\n: KS KD\n")
    out = certify("--board", str(board), "--cells", "1", "--json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    row = json.loads(out.stdout)
    assert row["claim"] == "win" and (tmp_path / "endgame-cells1.board.msgpack.zst").exists()
    bad = tmp_path / "bad.txt"
    bad.write_text("Foundations: H-K C-K D-Q S-Q\n: KS KD KD\n")
    out = certify("--board", str(bad), cwd=tmp_path)
    assert out.returncode == 2 and "KD appears twice" in out.stderr


def test_show_rows(capsys):
    assert main(["show", "11982", "--rows"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "KC 8D 2S 3S"


# ---- Output that never does harm ----------------------------------------------------------

def make_null_device(path):
    """A character device at `path` that behaves as /dev/null (root only; CI runs as root)."""
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.stat("/dev/null").st_rdev)
    except PermissionError:
        pytest.skip("making a device node needs root")


def test_a_device_named_by_o_is_written_to_not_replaced(tmp_path):
    null = tmp_path / "null"
    make_null_device(null)
    out = certify("1", "-q", "-o", str(null), cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert stat.S_ISCHR(os.lstat(null).st_mode)  # still a device (was replaced by a file)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["null"]


def test_a_fifo_named_by_o_gets_the_certificate(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    drain = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    drain.start()
    out = certify("1", "-q", "--json", "-o", str(fifo), cwd=tmp_path)
    drain.join(60)
    assert out.returncode == 0, out.stderr
    assert hashlib.sha256(got[0]).hexdigest() == json.loads(out.stdout)["sha256"]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_dash_writes_the_certificate_to_stdout_and_words_to_stderr(tmp_path):
    run = subprocess.run([sys.executable, "-m", "certify", "1", "-q", "-o", "-"],
                         capture_output=True, cwd=tmp_path)
    assert run.returncode == 0
    said = run.stderr.decode()
    assert said.startswith("WIN: deal 1") and "written to standard output" in said
    assert hashlib.sha256(run.stdout).hexdigest() in said
    assert list(tmp_path.iterdir()) == []


def test_a_folder_gets_the_default_name_inside(tmp_path):
    (tmp_path / "certs").mkdir()
    out = certify("1", "-q", "--cells", "5", "-o", "certs", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert [p.name for p in (tmp_path / "certs").iterdir()] == ["1-cells5.msgpack.zst"]


@pytest.mark.parametrize("args, words", [
    (["-o", "missing/dir/x.msgpack.zst"], "there is no folder missing/dir"),
    (["--out", "/proc/nope"], "cannot create files in /proc"),
    (["--board", "b.txt", "-o", "missing/"], "there is no folder missing"),
])
def test_a_bad_output_path_is_refused_before_any_search(args, words, tmp_path, monkeypatch,
                                                        capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "b.txt").write_text(write_board(start(deals.deal(11982))))
    monkeypatch.setattr(certify_prove, "proved", refuse_to_search)
    deal = [] if "--board" in args else ["11982"]
    assert main(deal + args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and words in err[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.txt"]


def refuse_to_search(*args, **kwargs):
    raise AssertionError("searched before checking where the certificate goes")


@pytest.mark.parametrize("args, name", [
    (["11982"], "11982.msgpack.zst"),
    (["11982", "--cells", "5"], "11982-cells5.msgpack.zst"),
    (["11982", "--foundation-moves"], "11982-fm.msgpack.zst"),
    (["11982", "--cells", "3", "--foundation-moves", "--fixed-columns"],
     "11982-cells3-fm-fixed.msgpack.zst"),
    (["--board", "x/endgame.txt", "--cells", "2"], "endgame-cells2.board.msgpack.zst"),
])
def test_the_default_name_says_which_rules_it_holds(args, name):
    p = certify_parser().parse_args(args)
    label = "endgame" if p.board else p.deal
    rules = Rules(p.cells, p.fixed_columns, p.foundation_moves)
    assert certificate_name(label, rules, p.board is not None) == name


def test_a_boards_default_name_is_never_a_deals(tmp_path):
    # `certify show 1 > 1.board; certify 1; certify --board 1.board` once replaced deal 1's
    # certificate with the board's, which check then called "the layout in 1.msgpack.zst".
    (tmp_path / "1.board").write_text(certify("show", "1").stdout)
    assert certify("1", "-q", cwd=tmp_path).returncode == 0
    deal_1 = (tmp_path / "1.msgpack.zst").read_bytes()
    run = certify("--board", "1.board", "-q", cwd=tmp_path)
    assert run.returncode == 0 and "the layout in 1.board" in run.stdout
    assert (tmp_path / "1.msgpack.zst").read_bytes() == deal_1
    assert reader.read(str(tmp_path / "1.board.msgpack.zst"))[0]["deal"] is None
    board = (tmp_path / "1.board").read_bytes()
    run = subprocess.run([sys.executable, "-m", "certify", "--board", "-", "-q"], input=board,
                         capture_output=True, cwd=tmp_path)
    assert run.returncode == 0 and b"the layout on standard input" in run.stdout
    assert (tmp_path / "stdin.board.msgpack.zst").exists()
    assert (tmp_path / "1.msgpack.zst").read_bytes() == deal_1


def test_a_default_name_never_replaces_another_claims_certificate(tmp_path, monkeypatch,
                                                                 capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(certify_prove, "proved", refuse_to_search)
    (tmp_path / "1.board").write_text(certify("show", "2").stdout)
    assert certify("--board", "1.board", "-q", cwd=tmp_path).returncode == 0
    os.rename("1.board.msgpack.zst", "1.msgpack.zst")  # a layout's proof under deal 1's name
    os.mkdir("certs")
    pathlib.Path("certs/1.msgpack.zst").write_bytes(b"my notes")
    for argv, name, what in [(["1"], "1.msgpack.zst", "of another layout (4 free cells, win)"),
                             (["1", "-o", "certs"], "certs/1.msgpack.zst", "is not a certificate")]:
        before = pathlib.Path(name).read_bytes()
        assert main([*argv, "-q"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith(f"certify: {name} ")
        assert what in err and "not replaced: name the output with -o" in err
        assert pathlib.Path(name).read_bytes() == before


def test_a_default_name_is_proved_again_and_a_named_file_replaced(tmp_path):
    assert certify("1", "-q", cwd=tmp_path).returncode == 0
    assert certify("1", "-q", cwd=tmp_path).returncode == 0  # the same claim, written again
    (tmp_path / "x.msgpack.zst").write_bytes(b"old")
    assert certify("1", "-q", "-o", "x.msgpack.zst", cwd=tmp_path).returncode == 0
    assert (tmp_path / "x.msgpack.zst").read_bytes() == (tmp_path / "1.msgpack.zst").read_bytes()


def test_a_variants_certificate_does_not_overwrite_the_four_cell_proof(tmp_path):
    """README's commands in order: `certify 11982`, then `certify 11982 --cells 5`; then
    `check 11982.msgpack.zst` must still be the no-win proof."""
    assert certify("11982", "-q", "--no-solver", cwd=tmp_path).returncode == 0
    assert certify("11982", "-q", "--cells", "5", cwd=tmp_path).returncode == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == \
        ["11982-cells5.msgpack.zst", "11982.msgpack.zst"]
    checked = subprocess.run([sys.executable, "-c", "import sys; from check.checker import "
                              "main; sys.exit(main())", "11982.msgpack.zst"],
                             capture_output=True, text=True, cwd=tmp_path)
    assert checked.returncode == 0 and "cannot be won" in checked.stdout


def load_published():
    spec = importlib.util.spec_from_file_location("published", REPO / "certificates" /
                                                  "published.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_default_names_agree_with_the_published_certificates():
    scripts = load_published()
    for cells in range(9):
        for fm in (False, True):
            assert scripts.file_name(11982, cells, fm) == \
                certificate_name("11982", Rules(cells, False, fm))
    published = sorted((REPO / "certificates").glob("*.msgpack.zst"))
    singles = [path for path in published if not re.match(r"[0-9]+-[0-9]+", path.name)]
    assert len(singles) >= 130 and len(published) > len(singles)  # and the range certificates
    for path in singles:
        head, _ = reader.read(str(path))
        # (a win's line is in fixed columns whatever the option said: its header says "none")
        fixed = head["symmetry"] == "none" and head["claim"] == "no-win"
        rules = Rules(head["cells"], fixed, head["foundation_moves"])
        assert certificate_name(str(head["deal"]), rules) == path.name


def test_the_time_printed_is_the_whole_runs(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(cli, "STARTED", time.monotonic() - 1000.0)  # a command begun long ago
    assert main(["1", "-q", "--json", "-o", str(tmp_path)]) == 0
    assert json.loads(capsys.readouterr().out)["seconds"] >= 1000.0
    assert main(["1", "-q", "-o", str(tmp_path)]) == 0
    assert re.search(r"\[10[0-9][0-9]\.[0-9]+ s\]", capsys.readouterr().out)


def reader_gone(*argv, cwd):
    """Run certify with its standard output a pipe whose reader has already gone."""
    run = subprocess.Popen([sys.executable, "-m", "certify", *argv], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, cwd=cwd)
    run.stdout.close()
    err = run.stderr.read().decode()
    return run.wait(), err


def test_a_closed_pipe_still_gets_the_file_written_quietly(tmp_path):
    # The words were not delivered, so the exit is 1 (never 0), but the files are written first
    # and nothing is said: the reader chose to stop reading.
    cert = REPO / "certificates" / "11982.msgpack.zst"
    code, err = reader_gone("explain", str(cert), "--cell-budget", "0", "--svg", "s.svg",
                            cwd=tmp_path)
    assert (code, err) == (1, "")
    assert (tmp_path / "s.svg").read_text().startswith("<svg")
    code, err = reader_gone("1", "-q", cwd=tmp_path)
    assert (code, err) == (1, "") and (tmp_path / "1.msgpack.zst").exists()
    run = subprocess.run(f"{sys.executable} -m certify explain {cert} --cell-budget 0 "
                         "--svg t.svg | head -3", shell=True, capture_output=True, text=True,
                         cwd=tmp_path)
    assert len(run.stdout.splitlines()) == 3 and run.stderr == ""
    assert (tmp_path / "t.svg").exists()


# The bytes said are those written into the pipe, and said to be: `head -c 100` takes 100 of
# the 65,536 a pipe holds, and a count that read as taken would mislead.
NOT_DELIVERED = re.compile(r"certify: not delivered: the reader of standard output went away; "
                           r"[0-9,]+ bytes of the file had been written to it \(written, not "
                           r"read: a pipe holds what its reader never took\)\n")


def test_a_certificate_nobody_reads_is_a_failure_said_in_one_line(tmp_path):
    code, err = reader_gone("1", "-q", "-o", "-", cwd=tmp_path)
    assert code == 1 and NOT_DELIVERED.fullmatch(err), err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("argv", [["11982", "-q", "-o", "-"],
                                  ["11982-11983", "--out", "census", "-j", "1", "-q", "-o", "-"]])
def test_a_reader_that_takes_part_of_the_certificate_is_no_success(argv, tmp_path):
    # The reader takes what fits in the pipe (64 KiB), then goes: a plain write returns short
    # without an error, and was once reported as the whole certificate written.
    run = subprocess.run(f"{sys.executable} -m certify {' '.join(argv)} | (sleep 1; true); "
                         "exit ${PIPESTATUS[0]}", shell=True, executable="/bin/bash",
                         capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert run.returncode == 1 and NOT_DELIVERED.fullmatch(run.stderr), run.stderr
    assert "Traceback" not in run.stderr and "written to standard output" not in run.stderr
    assert not (tmp_path / "11982.msgpack.zst").exists()


def test_a_closed_standard_output_is_refused_before_the_search(tmp_path):
    run = subprocess.run(f"{sys.executable} -m certify 11982 -q -o - >&-", shell=True,
                         capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert run.returncode == 1
    assert run.stderr == ("certify: standard output is closed: name a file with -o, or give "
                          "certify an open standard output\n")
    assert list(tmp_path.iterdir()) == []


# ---- Budgets, numbers, commands -------------------------------------------------------------

@pytest.mark.parametrize("args, words", [
    (["--max-positions", "0"], "must be at least 1"),
    (["--max-positions", "-5"], "--max-positions"),
    (["--max-positions", "1_000"], "not a whole number"),
    (["--time-limit", "0"], "more than 0 seconds"),
    (["--time-limit", "-1"], "--time-limit"),
    (["--time-limit", "nan"], "not a number of seconds"),
    (["--time-limit", "inf"], "not a number of seconds"),
    (["--cells", "\u0663"], "not a number of cells"),
])
def test_budgets_and_counts_must_be_positive_ascii_numbers(args, words, capsys):
    assert main(["11982", *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and words in err[0]


@pytest.mark.parametrize("argv", [["1_000"], ["\u0663"], ["\uff11"], [" 1"], ["+1"],
                                  ["show", "1_000"], ["show", "\u0663"], ["1-\u0663"],
                                  ["1_0-20"], ["import", "-", "--deal", "\u0661"]])
def test_deal_numbers_are_ascii_digits_only(argv, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and ("deal" in err[0] or "range" in err[0])


def test_an_unknown_command_is_named_with_the_list(capsys):
    assert main(["sho", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert "unknown command 'sho'" in err[0] and "did you mean 'show'" in err[0]
    assert all(c in err[0] for c in ("show", "explain", "import", "export"))


def test_help_shows_every_form():
    run = certify("--help")
    assert run.returncode == 0
    for form in ("certify DEAL", "certify --board FILE", "certify A-B", "-j N", "--out DIR",
                 "--scheduler ADDRESS", "certify show", "certify explain", "certify import",
                 "certify export", "certify extract RANGEFILE DEAL", "--version",
                 "Exit codes"):
        assert form in run.stdout, form


@pytest.mark.parametrize("argv", [["--help"], ["1-2", "--help"], ["show", "--help"],
                                  ["explain", "--help"], ["import", "--help"],
                                  ["export", "--help"], ["extract", "--help"]])
@pytest.mark.parametrize("columns", ["200", "80"])
def test_help_fits_80_columns_and_never_cuts_a_name(argv, columns):
    run = subprocess.run([sys.executable, "-m", "certify", *argv], capture_output=True,
                         text=True, env={**os.environ, "COLUMNS": columns})
    assert run.returncode == 0 and run.stderr == ""
    assert max(map(len, run.stdout.splitlines())) <= 80
    if argv == ["--help"]:
        assert "DEAL-cells5-fm-fixed.msgpack.zst" in run.stdout


def test_version_names_the_engine():
    run = certify("--version")
    assert run.returncode == 0 and run.stderr == ""
    engine = "python"
    try:
        import certify.engine as e
        engine = getattr(e, "NAME", "python")
    except ImportError:
        pass
    assert re.fullmatch(rf"certify \S+ \(engine: {re.escape(engine)}\)\n", run.stdout)


# ---- Input that must never hang or grow -----------------------------------------------------

def make_zero_device(path):
    try:
        os.mknod(path, stat.S_IFCHR | 0o444, os.stat("/dev/zero").st_rdev)
    except PermissionError:
        pytest.skip("making a device node needs root")


@pytest.fixture
def hostile(tmp_path):
    """A FIFO, a device that never ends, a huge (sparse) file and a folder."""
    os.mkfifo(tmp_path / "fifo")
    make_zero_device(tmp_path / "zero")
    with open(tmp_path / "huge.txt", "wb") as f:
        f.truncate(3 << 30)
    (tmp_path / "folder").mkdir()
    return tmp_path


@pytest.mark.parametrize("name, words", [("fifo", "a FIFO (named pipe), not a regular file"),
                                         ("zero", "a character device, not a regular file"),
                                         ("huge.txt", "more than 65,536 bytes"),
                                         ("folder", "a folder, not a regular file")])
def test_board_files_that_are_not_boards_are_refused_at_once(name, words, hostile):
    out = subprocess.run([sys.executable, "-m", "certify", "--board", name], cwd=hostile,
                         capture_output=True, text=True, timeout=120)  # a hang fails here
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and words in out.stderr
    out = subprocess.run([sys.executable, "-m", "certify", "explain", "--board", name],
                         cwd=hostile, capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and words in out.stderr


@pytest.mark.parametrize("name, words", [("fifo", "a FIFO (named pipe), not a regular file"),
                                         ("zero", "a character device, not a regular file"),
                                         ("huge.txt", "more than 16,777,216 bytes")])
def test_import_files_that_are_not_lines_are_refused_at_once(name, words, hostile):
    out = subprocess.run([sys.executable, "-m", "certify", "import", name, "--deal", "1"],
                         cwd=hostile, capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and words in out.stderr
    assert not (hostile / "1.msgpack.zst").exists()


def test_standard_input_is_read_with_a_cap(hostile):
    with open(hostile / "zero", "rb") as endless:
        out = subprocess.run([sys.executable, "-m", "certify", "import", "-", "--deal", "1"],
                             stdin=endless, cwd=hostile, capture_output=True, text=True,
                             timeout=120)
    assert out.returncode == 2 and "-: more than 16,777,216 bytes" in out.stderr


def test_a_certificate_to_explain_must_be_a_regular_file(hostile):
    out = subprocess.run([sys.executable, "-m", "certify", "explain", "fifo"], cwd=hostile,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and "a FIFO (named pipe), not a regular file" in out.stderr


def test_more_free_cell_slots_than_cells_is_refused(tmp_path):
    board = write_board(start(deals.deal(1))).replace("Freecells: - - - -",
                                                      "Freecells: - - - - KH")
    (tmp_path / "b.txt").write_text(board.replace("KH", "KH", 1))
    out = certify("--board", "b.txt", "--cells", "4", cwd=tmp_path)
    assert out.returncode == 2 and "5 free-cell slots, but only 4 free cells" in out.stderr


def test_names_are_printed_with_control_characters_escaped(tmp_path):
    name = "x\r\x1b[2KWIN: fake\x1b[8m.txt"
    (tmp_path / name).write_text("not a board\n")
    out = certify("--board", name, cwd=tmp_path)
    assert out.returncode == 2 and "\x1b" not in out.stderr and "\r" not in out.stderr
    assert "\\x1b[2KWIN" in out.stderr


def test_export_asks_which_proof_assistant(capsys):
    cert = str(REPO / "certificates" / "11982.msgpack.zst")
    assert main(["export", cert]) == 2
    err = capsys.readouterr().err
    assert err == (f"certify: say which proof assistant: certify export --coq {cert} (a Coq "
                   f"file) or --lean {cert} (a Lean 4 file)\n")


def test_export_of_a_range_certificate_names_extract(tmp_path, capsys):
    cert = str(REPO / "certificates" / "1-32000.msgpack.zst")
    assert main(["export", "--coq", cert, "-o", str(tmp_path / "F.v")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is a range certificate (deals 1..32000)" in err
    assert f"certify extract {cert} DEAL" in err and list(tmp_path.iterdir()) == []


def test_extract_speaks_of_the_claim_in_json(tmp_path, capsys):
    cert = str(REPO / "certificates" / "1-32000.msgpack.zst")
    assert main(["extract", cert, "11982", "-o", str(tmp_path), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert (shown["claim"], shown["count"]) == ("no-win", known_count(11982, closure="autoplay")) \
        and shown["verdict"] == "no-win"   # (its old name, kept for one release: docs/json.md)


def test_extract_keeps_what_is_not_its_deals_certificate(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    cert = str(REPO / "certificates" / "1-32000.msgpack.zst")
    (tmp_path / "11982.msgpack.zst").write_bytes(b"my notes")
    assert main(["extract", cert, "11982"]) == 2
    err = capsys.readouterr().err
    assert err == ("certify: 11982.msgpack.zst exists and is not a certificate; not replaced: "
                   "name the output with -o\n")
    assert (tmp_path / "11982.msgpack.zst").read_bytes() == b"my notes"
    (tmp_path / "11982.msgpack.zst").unlink()
    assert main(["extract", cert, "11982"]) == 0 and main(["extract", cert, "11982"]) == 0


# Run certify's main twice in one process, as if the compiled engine had not been built.
WITHOUT_COMPILED_ENGINE = """
import sys
sys.modules['certify.engine._search'] = None
from certify.commands import cli
for out in sys.argv[1:]:
    cli.main(["1", "--max-positions", "50", "--no-solver", "-o", out, *QUIET])
"""


@pytest.mark.parametrize("quiet", [False, True])
def test_a_missing_compiled_engine_is_said_once_and_never_under_quiet(tmp_path, quiet):
    script = WITHOUT_COMPILED_ENGINE.replace("*QUIET", "*['-q']" if quiet else "")
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path / "a.msgpack.zst"),
                           str(tmp_path / "b.msgpack.zst")],
                          capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, CERTIFY_ENGINE=""))
    said = [line for line in done.stderr.splitlines() if "compiled engine is not built" in line]
    assert said == ([] if quiet else
                    ["certify: the compiled engine is not built; running the slower Python engine"])
    assert "Traceback" not in done.stderr and "Warning" not in done.stderr


# ---- The same words for the same thing ---------------------------------------------------

def damaged(tmp_path):
    """Certificates damaged as a download or a full disk leaves them, each in a file."""
    whole = (REPO / "certificates" / "11982.msgpack.zst").read_bytes()
    framed = (REPO / "certificates" / "7484159.msgpack.zst").read_bytes()  # several zstd frames
    made = {"cut.msgpack.zst": whole[:len(whole) // 3], "empty.msgpack.zst": b"",
            "cut-framed.msgpack.zst": framed[:len(framed) // 2],
            "junk.msgpack.zst": b"not a certificate at all"}
    for name, data in made.items():
        (tmp_path / name).write_bytes(data)
    bad = REPO / "tests" / "bad-certificates"
    return [tmp_path / name for name in made] + \
        [bad / f"{name}.msgpack.zst" for name in ("truncated", "not-zstd", "trailing-bytes")]


def test_a_damaged_file_gets_checks_words_from_explain_and_export(tmp_path, capsys):
    # A file cut short was "not msgpack: No more data to unpack" in certify, "its zstd frame is
    # cut short" in check: one file, two stories. Now the words after the file's name are check's.
    from check import checker
    for path in damaged(tmp_path):
        verdict, _, said, _ = checker.verify(str(path))
        assert verdict == "unreadable", (path, said)
        capsys.readouterr()  # (check's progress, on stderr when it is slow)
        said = said.replace(f"{path} is not a certificate: ", f"{path}: not a certificate: ")
        assert said == f"{path} is empty" if path.stat().st_size == 0 else \
            said.startswith(f"{path}: ") and ("cut short" in said or "zstd" in said), said
        for argv in (["explain", str(path)], ["export", "--coq", str(path), "-o",
                                              str(tmp_path / "x.v")]):
            assert main(argv) == 2
            assert capsys.readouterr().err == f"certify: {said}\n", (argv, said)
    assert not (tmp_path / "x.v").exists()


def frame_ends(data):
    """The offsets at which each zstd frame of data ends."""
    ends, at = [], 0
    while at < len(data):
        rest = zstandard.ZstdDecompressor().decompressobj()
        rest.decompress(data[at:])
        at = len(data) - len(rest.unused_data)
        ends.append(at)
    return ends


def test_a_certificate_cut_between_frames_is_said_as_check_says_it(tmp_path, capsys):
    # Cut where a frame ends, the file is whole zstd with short data: check names the part where
    # the data ends ("the records is cut short: ..."), and so does certify, not the digest.
    from check import checker
    framed = (REPO / "certificates" / "7484159.msgpack.zst").read_bytes()
    ends = frame_ends(framed)
    assert len(ends) > 3
    for end in (ends[0], ends[1], ends[-2]):
        path = tmp_path / f"cut{end}.msgpack.zst"
        path.write_bytes(framed[:end])
        verdict, _, said, _ = checker.verify(str(path))
        assert verdict == "rejected" and " is cut short: the data of " in said, said
        capsys.readouterr()  # (check's progress, on stderr when it is slow)
        for argv in (["explain", str(path)], ["export", "--coq", str(path), "-o",
                                              str(tmp_path / "x.v")]):
            assert main(argv) == 2
            assert capsys.readouterr().err == f"certify: {said}\n", (argv, said)


def test_a_range_certificate_cut_short_is_said_as_check_says_it(tmp_path, capsys):
    from check import checker
    whole = (REPO / "certificates" / "1-32000.msgpack.zst").read_bytes()
    for size in (100, 60_000):   # in the header, among the entries (past the first block)
        path = tmp_path / f"cut{size}.msgpack.zst"
        path.write_bytes(whole[:size])
        _, _, said, _ = checker.verify(str(path))
        capsys.readouterr()  # (check's progress, on stderr when it is slow)
        assert main(["extract", str(path), "1", "-o", str(tmp_path / "x")]) == 2
        err = capsys.readouterr().err
        assert said.endswith(f"{path}: its zstd frame is cut short"), said
        assert err.endswith(": its zstd frame is cut short\n") and err.count("\n") == 1, err
        # the entry where the data ends, the same for both
        entry = re.match(r"entry ([0-9]+) \(deal ([0-9]+)\)", said)
        assert (entry is None) == (size == 100)
        if entry:
            assert err == f"certify: {path}: entry for deal {entry[2]}: its zstd frame is cut " \
                          "short\n"


def test_an_unknown_says_what_it_counted_apart_from_any_closure(tmp_path, capsys):
    # "search stopped after 4,147,480 positions" of a deal whose closure has 2,449,032: the
    # count was --max-positions', the solver's budgets with the search's positions. Now the two
    # are said apart, and the search's as found by a search that did not finish.
    assert main(["11982", "--no-autoplay", "--max-positions", "100000", "-o",
                 str(tmp_path / "x")]) == 3
    out = capsys.readouterr().out
    said = re.fullmatch(r"UNKNOWN: deal 11982 \(4 free cells\): stopped unfinished after the "
                        r"solver's attempts \(budgets of ([0-9,]+) positions in all\) and "
                        r"([0-9,]+) distinct positions found by the search \(([0-9,]+) in all, "
                        r"as --max-positions counts them\), [0-9.]+ s \(--max-positions 100000 "
                        r"reached\); no certificate written\n", out)
    assert said, out
    solver, search, total = (int(n.replace(",", "")) for n in said.groups())
    assert solver + search == total == 100_000 and search < known_count(11982)
    # Without the solver, the search's count alone; explain says it in the same words.
    assert main(["11982", "--no-solver", "--max-positions", "5000", "-o",
                 str(tmp_path / "x")]) == 3
    assert "): stopped unfinished after 5,000 distinct positions found by the search, " in \
        capsys.readouterr().out
    assert main(["explain", "11982", "--max-positions", "5000", "-q"]) == 3
    assert capsys.readouterr().out == ("UNKNOWN: deal 11982 (4 free cells): stopped unfinished "
                                       "after 5,000 distinct positions found by the search "
                                       "(--max-positions 5000 reached)\n")
    assert not (tmp_path / "x").exists()


def test_a_reader_that_takes_100_bytes_is_not_said_to_have_taken_more(tmp_path):
    # `certify 11982 -o - | head -c 100` was "closed after 65,536 bytes": bytes the pipe took,
    # not head. The line says they were written, not read.
    run = subprocess.run(f"{sys.executable} -m certify 11982 -q -o - | head -c 100 > got; "
                         "exit ${PIPESTATUS[0]}", shell=True, executable="/bin/bash",
                         capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert run.returncode == 1 and NOT_DELIVERED.fullmatch(run.stderr), run.stderr
    written = int(re.search(r"; ([0-9,]+) bytes", run.stderr)[1].replace(",", ""))
    assert (tmp_path / "got").stat().st_size == 100 < written
    assert "written, not read" in run.stderr


def test_show_help_says_what_deal_is():
    run = certify("show", "--help")
    assert run.returncode == 0
    words = " ".join(run.stdout.split())
    assert "usage: certify show [-h] [--rows] DEAL" in words
    assert "DEAL Microsoft deal number, 1 .. 2^33-1" in words and "e.g. 11982" in words
