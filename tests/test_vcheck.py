"""vcheck: the checker proved in Coq, run natively.

Builds it once per source version (cached in the temp folder, keyed by the sources' hash), then
checks that its Rules.v is the export's template with only the three constants made
parameters, that every theorem is closed, that a checker changed to skip a record's closure no
longer proves, and that it agrees with check/ on published certificates and on every file of
the bad-certificate corpus: the same lines (the sha256 line too), the same --json vocabulary,
standard input as `-`, progress on standard error, and a range's entries split with -j N.
"""

import difflib
import fcntl
import functools
import hashlib
import json
import os
import pty
import re
import resource
import struct
import shutil
import subprocess
import sys
import tempfile
import termios
import threading
from pathlib import Path

import pytest
from support import certgen

ROOT = Path(__file__).resolve().parent.parent
VCHECK = ROOT / "vcheck"
TEMPLATE = ROOT / "certify" / "commands" / "exports" / "templates" / "Rules.v"
CERTS = ROOT / "certificates"
import derive_rules
from support.position_counts import known_count

SOURCES = sorted([*VCHECK.glob("coq/*.v"), *VCHECK.glob("ocaml/*"), VCHECK / "build.sh",
                  VCHECK / "derive_rules.py", TEMPLATE])
TOOLS = ("coqc", "ocamlfind", "python3")


def source_digest():
    h = hashlib.sha256()
    for path in SOURCES:
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:16]


@pytest.fixture(scope="session")
def build():
    """The build folder (vcheck, assumptions.txt, the compiled Coq), built once per source."""
    missing = [t for t in TOOLS if shutil.which(t) is None]
    if missing:
        pytest.skip(f"vcheck needs {', '.join(missing)} (.ci/run installs them)")
    folder = Path(tempfile.gettempdir()) / f"vcheck-build-{source_digest()}"
    if not (folder / "vcheck").exists():
        work = Path(tempfile.mkdtemp(prefix="vcheck-building-"))
        run = subprocess.run(["bash", str(VCHECK / "build.sh"), str(work)],
                             capture_output=True, text=True)
        assert run.returncode == 0, run.stdout + run.stderr
        try:
            work.rename(folder)
        except OSError:   # built meanwhile by another session
            shutil.rmtree(work, ignore_errors=True)
    return folder


def vcheck(build, *args, **options):
    return subprocess.run([str(build / "vcheck"), *map(str, args)], capture_output=True,
                          text=True, **options)


def verdicts(command, paths):
    """path -> verdict, from a checker's --json output."""
    run = subprocess.run([*command, "--json", *map(str, paths)], capture_output=True, text=True)
    out = {}
    for line in run.stdout.splitlines():
        item = json.loads(line)
        out[Path(item["path"]).name] = item["verdict"]
    return out


CHECK = [sys.executable, "-m", "check"]


def check(*args, **options):
    return subprocess.run([*CHECK, *map(str, args)], capture_output=True, text=True, **options)


# ---- The shared statement of the rules ----

def test_rules_is_the_template_with_three_parameters():
    template = TEMPLATE.read_text(encoding="utf-8")
    derived = derive_rules.derive(template)
    removed, added = [], []
    for line in difflib.ndiff(template.rstrip("\n").split("\n"), derived.rstrip("\n").split("\n")):
        if line.startswith("- "):
            removed.append(line[2:])
        elif line.startswith("+ "):
            added.append(line[2:])
    assert removed == list(derive_rules.PARAMETERS)
    assert sorted(added) == sorted([*derive_rules.PARAMETERS.values(), "Section Rules.",
                                    "End Rules."])


def test_board_rules_replace_only_the_deal_section():
    """For a start given as data, the deal's section (what the export replaces for a custom
    layout) becomes one Variable; the rest is as in the numbered form."""
    derived = derive_rules.derive(TEMPLATE.read_text(encoding="utf-8"))
    board = derive_rules.derive_board(TEMPLATE.read_text(encoding="utf-8"))
    first = derived.index(derive_rules.DEAL_FIRST)
    last = derived.index(derive_rules.DEAL_LAST) + len(derive_rules.DEAL_LAST)
    assert board == derived[:first] + derive_rules.START_VARIABLE + derived[last:]


def test_board_extraction_has_no_deal():
    """A custom layout has no deal: its extraction neither loads Deal.v nor realises its
    generator, and everything else of Extract.v is kept."""
    numbered = (VCHECK / "coq" / "Extract.v").read_text(encoding="utf-8")
    board = derive_rules.board_variant(numbered)
    assert "Deal" in numbered and "Require Deal" not in board
    assert "Extract Constant" not in board and 'Extraction "vcheck_board.ml"' in board
    assert board.count("Extract Inlined Constant") == numbered.count("Extract Inlined Constant")


def test_derive_refuses_a_changed_template():
    with pytest.raises(derive_rules.DeriveError):
        derive_rules.derive(TEMPLATE.read_text(encoding="utf-8").replace(
            "Definition free_cells : nat := 4.", "Definition free_cells : nat := 5."))


def test_no_axioms_or_admitted_in_the_sources():
    for path in VCHECK.glob("coq/*.v"):
        words = path.read_text(encoding="utf-8").replace("(", " ").replace(".", " ").split()
        for bad in ("Admitted", "admit", "Axiom", "Axioms", "Parameter", "Parameters",
                    "Conjecture", "Hypothesis"):
            assert bad not in words, f"{path.name} uses {bad}"


# The lemmas shipped with the rules (coq/Lemmas.v, Supermove.v, Sentences.v), printed once.
LEMMAS = ["deck_cards", "deal_cards", "moves_keep_cards", "moves_keep_each_card_once",
          "reachable_each_card_once", "supermove_steps", "supermoves_add_nothing",
          "won_with_supermoves", "win_sentence_inj", "nowin_sentence_inj", "win_nowin_differ",
          "range_sentence_inj", "range_deal_differ"]


def test_every_theorem_is_closed(build):
    text = (build / "assumptions.txt").read_text()
    # 7 main theorems for a deal, 6 for a custom layout (a range has none), the lemmas once
    assert text.count("Closed under the global context") == 13 + len(LEMMAS), text
    assert "Axiom" not in text
    listed = (VCHECK / "coq" / "Assumptions.v").read_text(encoding="utf-8")
    for name in LEMMAS:
        assert f"Print Assumptions {name}.\n" in listed, name
        assert name not in derive_rules.board_variant(listed), name


def test_a_supermove_past_the_bound_does_not_prove(build, tmp_path):
    """One card more than (free cells + 1) * 2 ^ (empty columns) allows: the proof that the
    supermove is single-card moves must break, so the bound is the one the moves need."""
    source = (VCHECK / "coq" / "Supermove.v").read_text(encoding="utf-8")
    old = "length (pre ++ [x])\n        <= (fc - length (cells s) + 1)"
    assert source.count(old) == 1
    for name in ("Rules.vo", "Rules.glob"):   # what Supermove.v requires
        shutil.copy(build / name, tmp_path / name)
    (tmp_path / "Supermove.v").write_text(source.replace(old, old.replace("<=", "<= 1 +")),
                                          encoding="utf-8")
    run = subprocess.run(["coqc", "-q", "-Q", ".", "VCheck", "Supermove.v"], cwd=tmp_path,
                         capture_output=True, text=True)
    assert run.returncode != 0, "a supermove one card too long still proves"
    said = run.stdout + run.stderr
    assert "Error" in said and "physical path" not in said and "Unable to locate" not in said


def test_a_checker_that_skips_a_record_does_not_prove(build, tmp_path):
    """Record 0's closure left out of the check: the proof of the theorem must break."""
    check = (VCHECK / "coq" / "Check.v").read_text(encoding="utf-8")
    for old, new in [("slice_closed T R sorted fc fm 64 0 (count R)",
                      "slice_closed T R sorted fc fm 64 1 (count R)"),
                     ("&& landings_held f others c ids) (picks cs)", ") (picks cs)")]:
        assert check.count(old) == 1, old
        for name in ("Rules.vo", "Rules.glob", "Deal.vo", "Deal.glob"):   # what Check.v requires
            shutil.copy(build / name, tmp_path / name)
        (tmp_path / "Check.v").write_text(check.replace(old, new), encoding="utf-8")
        run = subprocess.run(["coqc", "-q", "-Q", ".", "VCheck", "Check.v"], cwd=tmp_path,
                             capture_output=True, text=True)
        assert run.returncode != 0, f"the mutant {new!r} still proves"
        said = run.stdout + run.stderr
        assert "Error" in said
        assert "physical path" not in said and "Unable to locate" not in said, said  # a proof fails


# ---- Certificates ----

PUBLISHED = ["11982.msgpack.zst", "11982-cells3.msgpack.zst", "11982-cells5.msgpack.zst",
             "11982-fm.msgpack.zst"]


def test_published_certificates_agree_with_check(build):
    paths = [CERTS / name for name in PUBLISHED]
    mine = verdicts([str(build / "vcheck")], paths)
    assert mine == {name: "verified" for name in PUBLISHED}
    assert verdicts(CHECK, paths) == mine
    assert verdicts([str(build / "vcheck"), "-j", "2"], paths) == mine


def test_theorem_sentence(build):
    run = vcheck(build, CERTS / "11982-cells3.msgpack.zst")
    assert run.returncode == 0
    assert run.stdout.startswith("VERIFIED: Microsoft FreeCell deal 11982 (3 free cells, "
                                 "single-card moves, no moves off foundations) cannot be won: ")
    run = vcheck(build, CERTS / "11982-cells5.msgpack.zst")
    assert run.returncode == 0 and "can be won: " in run.stdout


def test_bad_corpus_agrees_with_check(build, tmp_path):
    certgen.write_corpus(tmp_path)
    expected = {f"{name}.msgpack.zst": verdict for name, (_, verdict, _) in
                certgen.bad_corpus().items()}
    paths = sorted(tmp_path.iterdir())
    mine = verdicts([str(build / "vcheck")], paths)
    assert mine == expected
    assert verdicts(CHECK, paths) == mine
    assert verdicts([str(build / "vcheck"), "-j", "2"], paths) == mine   # records in slices
    for path in paths:   # one line each, never a trace
        run = vcheck(build, path)
        assert run.returncode == {"rejected": 1, "unreadable": 2}[expected[path.name]]
        assert len(run.stdout.splitlines()) == 1 and run.stderr == ""


@pytest.mark.parametrize("version", [1, 2])
@pytest.mark.parametrize("symmetry", ["columns", "none"])
def test_written_certificates_verify(build, tmp_path, version, symmetry):
    """Custom boards, both record layouts, both symmetries (11982-fm is the foundation-moves
    rule)."""
    files = {
        "nowin1": certgen.nowin_file(certgen.NOWIN1, 1, symmetry=symmetry, version=version),
        "nowin0": certgen.nowin_file(certgen.NOWIN0, 0, symmetry=symmetry, version=version),
        "win1": certgen.win_file(certgen.WIN1, 1, certgen.win_path(certgen.WIN1, 1),
                                 version=version),
    }
    for name, blob in files.items():
        (tmp_path / f"{name}.msgpack.zst").write_bytes(blob)
    paths = sorted(tmp_path.iterdir())
    mine = verdicts([str(build / "vcheck")], paths)
    assert mine == verdicts(CHECK, paths)
    assert set(mine.values()) == {"verified"}, mine


def test_range_certificate(build, tmp_path):
    """Deals 11982..11984 (one no-win, two wins), taken from the published range."""
    path = tmp_path / "range.msgpack.zst"
    path.write_bytes(certgen.range_file(11982, [certgen.entry(*e)
                                                for e in published_entries(11981, 11984)]))
    run = vcheck(build, path)
    assert verdicts(CHECK, [path]) == {path.name: "verified"}
    assert run.returncode == 0, run.stdout
    assert "11,982..11,984" in run.stdout
    assert "exactly 1 cannot be won: 11982; each of the other 2 is won" in run.stdout


@pytest.mark.parametrize("deals", ["2147483646-2147483649", "4294967294-4294967297",
                                   "8589934589-8589934591"])
def test_deals_across_freecell_pros_boundaries(build, tmp_path, deals):
    """The deal generator's three ranges (below 2^31, below 2^32, above), which vcheck deals
    with the realised step and draw of coq/Deal.v: each side of both boundaries and the last
    deal. The census's lines are proved against pysol_cards' deals (test_deals.py); a deal
    that vcheck dealt otherwise would not replay its line."""
    first, last = (int(n) for n in deals.split("-"))
    census = subprocess.run([sys.executable, "-m", "certify", deals, "-j", "1", "-q",
                             "--out", str(tmp_path)], capture_output=True, text=True)
    assert census.returncode == 0, census.stdout + census.stderr
    path = tmp_path / f"{deals}.msgpack.zst"
    run = vcheck(build, path)
    assert run.returncode == 0, run.stdout
    assert f" deals {first:,}..{last:,} " in run.stdout, run.stdout
    assert run.stdout == check(path).stdout


def test_usage(build):
    assert vcheck(build).returncode == 2
    assert vcheck(build, "--help").returncode == 0
    assert vcheck(build, "--version").returncode == 0
    run = vcheck(build, "/nonexistent/file.msgpack.zst")
    assert run.returncode == 2 and run.stdout.startswith("UNREADABLE: ")


def test_several_files_at_once_keep_their_order(build, tmp_path):
    paths = [CERTS / name for name in PUBLISHED] + [tmp_path / "missing.msgpack.zst"]
    one = vcheck(build, "--json", *paths)
    two = vcheck(build, "--json", "-j", "2", *paths)
    assert one.returncode == two.returncode == 2
    strip = lambda out: [{k: v for k, v in json.loads(line).items() if k != "seconds"}
                         for line in out.splitlines()]
    assert strip(one.stdout) == strip(two.stdout)
    assert [item["verdict"] for item in strip(two.stdout)] == ["verified"] * 4 + ["unreadable"]


# ---- The command line beside check's ----

def test_folders_are_read_to_the_bottom(build, tmp_path):
    """A folder's certificates in its subfolders too, named from the folder down, as check names
    them; a folder holding none is unreadable, and counted apart in the last line."""
    (tmp_path / "tree" / "a" / "b").mkdir(parents=True)
    (tmp_path / "tree" / "empty").mkdir()
    (tmp_path / "tree" / "notes.txt").write_text("not a certificate")
    for name, where in (("11982-cells3", "tree"), ("11982-fm", "tree/a"),
                        ("11982-cells5", "tree/a/b")):
        shutil.copy(CERTS / f"{name}.msgpack.zst", tmp_path / where)
    for args in (["tree"], ["tree", "tree/empty"], ["-j", "2", "tree", "tree/empty"]):
        mine, theirs = (vcheck(build, *args, cwd=tmp_path),
                        check(*args, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)}))
        assert mine.stdout == theirs.stdout and mine.returncode == theirs.returncode, mine.stdout
    lines = vcheck(build, "tree", "tree/empty", cwd=tmp_path).stdout.splitlines()
    assert [line.split(":")[0] for line in lines if ": " in line][:4] == [
        "11982-cells3.msgpack.zst", "a/11982-fm.msgpack.zst", "a/b/11982-cells5.msgpack.zst",
        "tree/empty"]
    assert lines[-1].endswith("; 1 folder not read or holding no certificate")


def test_lines_are_checks_lines(build):
    """The VERIFIED line and the sha256 line after it, one file and several, as check prints."""
    one = [CERTS / "11982.msgpack.zst"]
    several = [CERTS / name for name in PUBLISHED]
    for paths in (one, several):
        mine, theirs = vcheck(build, *paths), check(*paths)
        assert mine.returncode == theirs.returncode == 0
        assert mine.stdout == theirs.stdout
    digest = hashlib.sha256((CERTS / "11982.msgpack.zst").read_bytes()).hexdigest()
    assert vcheck(build, *one).stdout.splitlines()[1] == f"  sha256 {digest}"
    assert vcheck(build, "-q", *several).stdout == ""


def test_standard_input(build):
    """`-` reads the certificate from standard input, a pipe or a file, named `-` as by check."""
    path = CERTS / "11982-cells3.msgpack.zst"
    blob = path.read_bytes()
    piped = subprocess.run([str(build / "vcheck"), "-"], input=blob, capture_output=True)
    with open(path, "rb") as f:
        redirected = subprocess.run([str(build / "vcheck"), "-"], stdin=f, capture_output=True)
    assert piped.returncode == redirected.returncode == 0
    assert piped.stdout == redirected.stdout == vcheck(build, path).stdout.encode()
    mine = json.loads(subprocess.run([str(build / "vcheck"), "--json", "-"], input=blob,
                                     capture_output=True).stdout)
    theirs = json.loads(subprocess.run([*CHECK, "--json", "-"], input=blob,
                                       capture_output=True).stdout)
    assert mine["path"] == theirs["path"] == "-"
    assert mine["sha256"] == theirs["sha256"] == hashlib.sha256(blob).hexdigest()
    bad = subprocess.run([str(build / "vcheck"), "-"], input=b"not a certificate",
                         capture_output=True, text=False)
    assert bad.returncode == 2 and bad.stdout.startswith(b"UNREADABLE: ")
    assert len(bad.stdout.splitlines()) == 1
    with open(os.devnull, "rb") as f:   # a device, not a file or a pipe
        assert vcheck(build, "-", stdin=f).returncode == 2
    assert "-: a certificate on standard input" in vcheck(build, "--help").stdout


def test_sha256_of_every_padding(build):
    """The file's SHA-256 (vcheck's own code) at the lengths where its padding changes shape."""
    for n in (0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 128, 4151):
        blob = bytes((7 * i + n) % 256 for i in range(n))
        run = subprocess.run([str(build / "vcheck"), "--json", "-"], input=blob,
                             capture_output=True)
        item = json.loads(run.stdout)
        assert item["verdict"] == "unreadable"
        assert item["sha256"] == hashlib.sha256(blob).hexdigest(), n


def test_json_speaks_checks_vocabulary(build, tmp_path):
    """Every field check's --json has, the same values but the seconds and the reason's words,
    on published files and on the bad-certificate corpus (verified, rejected, unreadable; win, no-win, range)."""
    certgen.write_corpus(tmp_path)
    (tmp_path / "range.msgpack.zst").write_bytes(
        certgen.range_file(11982, [certgen.entry(*e) for e in published_entries(11981, 11984)]))
    paths = [*(CERTS / name for name in PUBLISHED), *sorted(tmp_path.iterdir())]
    parse = lambda out: {Path(item["path"]).name: item
                         for item in map(json.loads, out.splitlines())}
    mine = parse(vcheck(build, "--json", *paths).stdout)
    theirs = parse(check("--json", *paths).stdout)
    assert mine.keys() == theirs.keys() and len(mine) == len(paths)
    seen = set()
    for name, item in theirs.items():
        for key, value in item.items():
            # (each says why in its own words; check names a refused file's digest only when it
            # read the file to its end before refusing it, vcheck always reads it whole first)
            if key not in ("seconds", "reason") and (key != "sha256" or value is not None):
                assert mine[name][key] == value, (name, key, mine[name][key], value)
        assert (mine[name]["theorem"] is None) == (item["verdict"] != "verified"), name
        seen |= {item["verdict"], item["claim"]}
    assert {"verified", "rejected", "unreadable", "win", "no-win", "range"} <= seen


PROGRESS = re.compile(r"^(.*): (record [\d,]+ of [\d,]+ closed"
                      r"|deal [\d,]+ \([\d,]+ of [\d,]+\))$")


def test_progress_on_standard_error(build, tmp_path):
    """With a short interval: lines naming the file and how far the check is, one process or
    two; none under -q, and none on standard output."""
    path = CERTS / "11982.msgpack.zst"
    for jobs in ("1", "2"):
        run = vcheck(build, "--progress-every", "0", "-j", jobs, path)
        lines = run.stderr.splitlines()
        # (how many lines depends on how the work fell between the processes and the clock)
        assert run.returncode == 0 and lines, run.stderr
        for line in lines:
            label, what = PROGRESS.match(line).groups()
            assert label == str(path) and what.endswith(
                f"of {known_count(11982, closure='autoplay'):,} closed")
        assert len(run.stdout.splitlines()) == 2
    assert vcheck(build, "-q", "--progress-every", "0", path).stderr == ""
    assert vcheck(build, path).stderr == ""   # a check of under 10 s says nothing
    ranged = tmp_path / "range.msgpack.zst"
    chosen = [certgen.entry(*e) for e in published_entries(11980, 11986)]
    ranged.write_bytes(certgen.range_file(11981, chosen))
    run = vcheck(build, "--progress-every", "0", ranged)
    assert run.stderr.splitlines()[:2] == [f"{ranged}: deal 11,981 (1 of 6)",
                                           f"{ranged}: deal 11,982 (2 of 6)"]
    run = vcheck(build, "--progress-every", "0", "-j", "2", ranged)
    assert run.returncode == 0 and all(PROGRESS.match(line) for line in run.stderr.splitlines())


def test_progress_fits_the_terminal(build, tmp_path):
    """On a terminal of 40 columns each line is cut to 39; in a log (above) it is whole."""
    long = tmp_path / ("a-long-folder-name-" * 4)
    long.mkdir()
    path = long / "11982.msgpack.zst"
    shutil.copy(CERTS / "11982.msgpack.zst", path)
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 40, 0, 0))
    run = subprocess.run([str(build / "vcheck"), "--progress-every", "0", path],
                         stdout=subprocess.PIPE, stderr=follower)
    os.close(follower)
    shown = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:
            break
        if not chunk:
            break
        shown += chunk
    os.close(leader)
    lines = shown.decode().splitlines()
    assert run.returncode == 0 and len(lines) >= 3
    assert all(len(line) == 39 and str(path).startswith(line) for line in lines), lines


def test_range_split_across_processes(build, tmp_path):
    """-j 2 checks a range's entries in two processes: the same verdict and the same line as
    one process, for a true range and for one whose third and fifth entries are false (each
    process meets one: the first in the file is named)."""
    chosen = published_entries(11980, 11986)
    good = tmp_path / "good.msgpack.zst"
    good.write_bytes(certgen.range_file(11981, [certgen.entry(*e) for e in chosen]))
    for i in (2, 4):   # a win whose first move is changed: no longer a legal line
        assert chosen[i][1] == "win"
        body = bytearray(chosen[i][3])
        body[0] = (body[0] + 1) % 52
        chosen[i][3] = bytes(body)
    bad = tmp_path / "bad.msgpack.zst"
    bad.write_bytes(certgen.range_file(11981, [certgen.entry(*e) for e in chosen]))
    for path, code in ((good, 0), (bad, 1)):
        one, two, three = (vcheck(build, "-j", j, path) for j in ("1", "2", "3"))
        assert one.returncode == two.returncode == three.returncode == code, one.stdout
        assert one.stdout == two.stdout == three.stdout
        assert verdicts(CHECK, [path]) == {path.name: ["verified", "rejected"][code]}
    assert vcheck(build, bad).stdout == check(bad).stdout
    assert vcheck(build, bad).stdout.startswith("REJECTED: entry 3 (deal 11983): move 1 (")


def test_ocaml_lines_fit_the_house_style():
    """At most 100 columns."""
    for path in [*VCHECK.glob("ocaml/*"), VCHECK / "build.sh"]:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            assert len(line) <= 100, f"{path.name}:{number} has {len(line)} columns"


def ocaml_code(text):
    """An OCaml file's lines of code: its comments (nested, as OCaml nests them) and blank lines
    left out. (The trusted module has no string holding a comment's brackets.)"""
    kept, depth, i = [], 0, 0
    while i < len(text):
        if text.startswith("(*", i):
            depth, i = depth + 1, i + 2
        elif depth and text.startswith("*)", i):
            depth, i = depth - 1, i + 2
        else:
            if not depth or text[i] == "\n":
                kept.append(text[i])
            i += 1
    return [line for line in "".join(kept).splitlines() if line.strip()]


def test_the_trusted_lines_are_one_small_module():
    """What vcheck trusts beyond the proofs is ocaml/trusted.ml, at most 80 lines of code: no
    other module forks, marshals a result or calls a proved function but through it."""
    trusted = (VCHECK / "ocaml" / "trusted.ml").read_text(encoding="utf-8")
    assert "'(*'" not in trusted and '"(*"' not in trusted
    assert len(ocaml_code(trusted)) <= 80, len(ocaml_code(trusted))
    assert "Unix.fork" in trusted and "Vcheck_core.range_verdict" in trusted
    proved = re.compile(r"\b(Vcheck_core|Vcheck_board|Numbered|Custom|C)\."
                        r"(verdict|slice_ok|entry_result|range_verdict)\b")
    for path in VCHECK.glob("ocaml/*.ml"):
        if path.name == "trusted.ml":
            continue
        text = path.read_text(encoding="utf-8")
        assert "Unix.fork" not in text and "Marshal." not in text, path.name
        assert not proved.search(text), (path.name, proved.search(text))
        assert "TRUSTED" not in text, path.name
    listed = (VCHECK / "README.md").read_text(encoding="utf-8")
    assert "ocaml/trusted.ml" in listed


@pytest.mark.slow
def test_every_published_certificate(build):
    run = vcheck(build, "-q", "-j", "2", CERTS)
    assert run.returncode == 0, run.stdout[-2000:]


# ---- Version 3 (docs/certificate-format.md, section 7): files from certgen's writer ----

def start_of(h):
    return (certgen.deal_start(h["deal"]) if h["deal"] is not None
            else certgen.parse_board(h["board"], h["cells"]))


def records_of(blob):
    """(header, column table, records) of a no-win file of any version."""
    h, body = certgen.unpack_file(blob)
    if h["version"] == 3:
        table, *chunks = certgen.body_values(body)
        W = 4 + h["cells"] + 8 * certgen.id_width(len(table), 3)
        return h, table, [r for c in chunks for r in certgen.unplane(c, len(c) // W)]
    table, data = certgen.msgpack.unpackb(body)
    W = 4 + h["cells"] + 8 * certgen.id_width(len(table))
    return h, table, (certgen.unplane(data, h["count"]) if h["version"] == 2
                      else certgen.unfront(data, W))


def closed_under_autoplay(blob):
    """Whether a single file's records are closed under autoplay (which version 2 cannot say)."""
    return certgen.unpack_file(blob)[0].get("closure") == "autoplay"


def both_versions(blob):
    """(version 2, version 3) of the proof a single file holds, whichever version it is (not
    for a file closed under autoplay)."""
    h, body = certgen.unpack_file(blob)
    if h["version"] != 3:
        return blob, certgen.as_version3(blob)
    start, cells, fm = start_of(h), h["cells"], h["foundation_moves"]
    if h["claim"] == "win":
        (line,) = certgen.body_values(body)
        moves = certgen.index_moves(start, cells, fm, line)
        return certgen.win_file(start, cells, moves, fm, h["deal"], version=2), blob
    _, table, recs = records_of(blob)
    return certgen.nowin_file(start, cells, fmoves=fm, symmetry=h["symmetry"], deal=h["deal"],
                              parts=(table, recs), version=2), blob


@functools.lru_cache(maxsize=None)
def plain_nowin(deal):
    """(count, version 2 body) of the deal's positions closed under every move (certgen's
    explorer), the standard rules."""
    parts = certgen.nowin_parts(certgen.explore(certgen.deal_start(deal), 4), 4, "columns")
    return len(parts[1]), certgen.nowin_body(parts, version=2)


def published_entries(lo, hi):
    """Entries lo..hi - 1 (from 0) of the published range 1..32,000, as version 2 entries
    [deal, claim, count, body], whichever version the file is; a no-win of a range closed under
    autoplay (which version 2 cannot say) as its positions closed under every move."""
    h, entries = certgen.unpack_range((CERTS / "1-32000.msgpack.zst").read_bytes())
    if h["version"] != 3:
        return [list(e) for e in entries[lo:hi]]
    out = []
    for deal, claim, count, values in entries[lo:hi]:
        if claim == "win":
            moves = certgen.index_moves(certgen.deal_start(deal), 4, False, values[0])
            out.append([deal, claim, count, bytes(b for mv in moves for b in mv)])
        elif h.get("closure") == "autoplay":
            out.append([deal, claim, *plain_nowin(deal)])
        else:
            table, *chunks = values
            W = 4 + 4 + 8 * certgen.id_width(len(table), 3)
            recs = [r for c in chunks for r in certgen.unplane(c, len(c) // W)]
            out.append([deal, claim, count, certgen.nowin_body((table, recs), version=2)])
    return out


def outcome(build, path, *options):
    """(exit code, the verdict line without the file's name) of vcheck on one file."""
    run = vcheck(build, *options, path)
    assert run.stderr == "" or "-j" in options, run.stderr
    return run.returncode, run.stdout.splitlines()


def single_v3(h, table, recs, **changes):
    """A version 3 no-win of deal h['deal'] with these records, through certgen's writer."""
    return certgen.nowin_file(certgen.deal_start(h["deal"]), h["cells"], deal=h["deal"],
                              symmetry=h["symmetry"], parts=(table, recs), version=3, **changes)


def range_v3(first, v2_entries, **changes):
    """The version 3 range of these version 2 entries ([deal, claim, count, body])."""
    entries = []
    for deal, claim, count, body in v2_entries:
        start = certgen.deal_start(deal)
        if claim == "win":
            blob = certgen.win_file(start, 4, list(zip(body[::2], body[1::2])), deal=deal,
                                    version=3)
        else:
            table, data = certgen.msgpack.unpackb(body)
            recs = certgen.unplane(data, count)
            blob = certgen.nowin_file(start, 4, deal=deal, parts=(table, recs), version=3)
        entries.append(certgen.as_entry(blob, version=3))
    return certgen.range_file(first, entries, version=3, **changes)


def test_version3_true_claims(build, tmp_path):
    """Published certificates, the written boards (both symmetries, a win with foundation moves)
    and a range, each as version 3: verified, with the theorem of the same proof in version 2."""
    pairs = [both_versions(blob) for blob in ((CERTS / name).read_bytes() for name in PUBLISHED)
             if not closed_under_autoplay(blob)]
    moves = certgen.win_path(certgen.WIN1, 1)
    for symmetry in ("columns", "none"):
        for start, cells in ((certgen.NOWIN1, 1), (certgen.NOWIN0, 0)):
            pairs.append(tuple(certgen.nowin_file(start, cells, symmetry=symmetry, version=v)
                               for v in (2, 3)))
    for fm in (False, True):
        pairs.append(tuple(certgen.win_file(certgen.WIN1, 1, moves, fmoves=fm, version=v)
                           for v in (2, 3)))
    chosen = published_entries(11980, 11986)
    pairs.append((certgen.range_file(11981, [certgen.entry(*e) for e in chosen]),
                  range_v3(11981, chosen)))
    (tmp_path / "2").mkdir()
    (tmp_path / "3").mkdir()
    for i, (old, new) in enumerate(pairs):   # (the same name: a custom layout's theorem says it)
        (tmp_path / "2" / f"{i}.msgpack.zst").write_bytes(old)
        (tmp_path / "3" / f"{i}.msgpack.zst").write_bytes(new)
        assert certgen.unpack_file(new)[0]["version"] == 3
        two, three = (outcome(build, tmp_path / v / f"{i}.msgpack.zst") for v in ("2", "3"))
        assert two[0] == three[0] == 0, (i, three)
        assert three[1][0] == two[1][0].replace("/2/", "/3/"), i
        assert three[1][0].startswith("VERIFIED: ")
    ranged = tmp_path / "3" / f"{len(pairs) - 1}.msgpack.zst"
    assert outcome(build, ranged, "-j", "2")[1] == outcome(build, ranged)[1]


def test_version3_column_ids_of_three_bytes(build, tmp_path):
    """A table of more than 65,536 columns: ids of 3 bytes in version 3 as in version 2."""
    positions = certgen.with_columns(certgen.explore(certgen.NOWIN0, 0), 0, 70_000)
    path = tmp_path / "wide.msgpack.zst"
    path.write_bytes(certgen.nowin_file(certgen.NOWIN0, 0, positions, version=3))
    code, lines = outcome(build, path)
    assert code == 0 and "cannot be won" in lines[0], lines


def hostile_single_v3():
    """name -> (file, words of the reason): version 3 files that must be refused."""
    moves = certgen.win_path(certgen.WIN1, 1)
    indices = bytearray(certgen.move_indices(certgen.WIN1, 1, False, moves))
    pos = certgen.WIN1
    for mv in moves[:3]:
        pos = dict(certgen.successors(pos, 1, False))[tuple(mv)]
    past = bytearray(indices)
    past[3] = len(certgen.move_order(pos, 1, False))    # one past the last legal move there
    other = bytearray(indices)
    other[-1] = (other[-1] + 1) % len(certgen.move_order(certgen.WIN1, 1, False))
    win = certgen.win_file(certgen.WIN1, 1, moves, version=3)
    nowin = certgen.nowin_file(certgen.NOWIN1, 1, version=3)
    h, body = certgen.unpack_file(win)
    positions = certgen.explore(certgen.NOWIN1, 1)
    return {
        "index-past-the-moves": (certgen.win_file(certgen.WIN1, 1, moves, version=3,
                                                  indices=past), "move 4: index"),
        "index-of-another-move": (certgen.win_file(certgen.WIN1, 1, moves, version=3,
                                                   indices=other), "the position is not won"),
        "win-count-too-big": (certgen.rebuild(win, count=len(moves) + 1), "not 1 x count"),
        "win-trailing-bytes": (certgen.rebuild(win, body + b"\x00"), "the body has data after it"),
        "nowin-trailing-bytes": (certgen.rebuild(nowin, certgen.unpack_file(nowin)[1] + b"\xc0"),
                                 "data after"),
        "nowin-ids-too-wide": (certgen.nowin_file(certgen.NOWIN1, 1, positions, version=3,
                                                  width=3), "bytes for"),
        "wrong-xxh3": (certgen.rebuild(nowin, xxh3_64="0123456789abcdef"), "xxh3_64"),
        "cut-short": (nowin[:len(nowin) // 2], "cut short"),
        "frames-then-garbage": (nowin + b"\x00" * 8, "not a valid zstd frame"),
        "win-wrong-xxh3": (certgen.rebuild(win, xxh3_64="0123456789abcdef"), "xxh3_64"),
    }


def test_version3_hostile_files(build, tmp_path):
    """Each refused in one line, with a non-zero exit and nothing on standard error."""
    for name, (blob, words) in hostile_single_v3().items():
        path = tmp_path / f"{name}.msgpack.zst"
        path.write_bytes(blob)
        code, lines = outcome(build, path)
        assert code in (1, 2) and len(lines) == 1 and words in lines[0], (name, lines)
        assert lines == check(path).stdout.splitlines(), name   # check's line


def test_version3_hostile_ranges(build, tmp_path):
    """A range's entries in version 3: an index past the legal moves in one win, a wrong deal,
    trailing bytes; refused in one line, in one process or two."""
    chosen = published_entries(11980, 11984)
    _, data = certgen.unpack_file(range_v3(11981, chosen))

    def ranged(blob_entries):
        h = certgen.range_header(11981, 11984, blob_entries, version=3)
        return certgen.zstandard.ZstdCompressor(level=3).compress(
            certgen.msgpack.packb(h, use_bin_type=True) + b"".join(blob_entries))

    deal, claim, count, body = chosen[2]
    assert claim == "win"
    indices = bytearray(certgen.move_indices(certgen.deal_start(deal), 4, False,
                                             list(zip(body[::2], body[1::2]))))
    indices[0] = 199
    bad_win = certgen.entry(deal, claim, count, certgen.msgpack.packb(bytes(indices)), version=3)
    _, kept = certgen.unpack_file(range_v3(11981, chosen[:2]))
    _, after = certgen.unpack_file(range_v3(11984, chosen[3:]))
    wrong = [list(e) for e in chosen]
    wrong[1][0] = 11981
    files = {"trailing": (ranged([data + b"\xc0"]), "the range has data after it"),
             "wrong-deal": (ranged([certgen.unpack_file(range_v3(11981, wrong))[1]]),
                            "the entry is for deal 11981"),
             "index-past-the-moves": (ranged([kept, bad_win, after]),
                                      "(deal 11983): move 1: index 199")}
    for name, (blob, words) in files.items():
        path = tmp_path / f"{name}.msgpack.zst"
        path.write_bytes(blob)
        for jobs in ("1", "2"):
            code, lines = outcome(build, path, "-j", jobs)
            assert code in (1, 2) and len(lines) == 1 and words in lines[0], (name, lines)
            assert lines == check(path).stdout.splitlines(), name   # check's line


def test_version3_chunks(build, tmp_path):
    """Deal 9771903's 1,146,143 positions reachable (the plain closure: the published file, under
    autoplay, holds 397,329): two chunks (2^20 records, then the rest), verified; chunks of the
    wrong size, one missing, one too many, and records descending from one chunk to the next are
    refused, each in one line."""
    plain = tmp_path / "9771903-plain.msgpack.zst"
    subprocess.run([sys.executable, "-m", "certify", "9771903", "--no-autoplay", "-q", "-o",
                    str(plain)], check=True)
    h, table, recs = records_of(plain.read_bytes())
    chunk = certgen.CHUNK
    assert chunk < len(recs) < 2 * chunk
    good = single_v3(h, table, recs)
    planes = [certgen.msgpack.packb(certgen.plane_code(part), use_bin_type=True)
              for part in (recs[:chunk], recs[chunk:])]
    values = certgen.msgpack.packb(table, use_bin_type=True)

    def written(body_values):
        head = certgen.header("no-win", len(recs), body_values, deal=h["deal"], version=3)
        return certgen.pack(head, body_values)

    descending = list(recs)
    descending[chunk - 1], descending[chunk] = descending[chunk], descending[chunk - 1]
    files = {
        "good": (good, "VERIFIED: Microsoft FreeCell deal 9771903"),
        "chunk-too-big": (single_v3(h, table, recs, chunk=chunk + 1), "(chunk 1)"),
        "chunk-missing": (written(values + planes[0]), "the records is cut short"),
        "chunk-extra": (written(values + planes[0] + planes[1] + planes[1]), "data after"),
        "descending": (single_v3(h, table, descending),
                       f"records: record {chunk + 1} does not sort after the last"),
    }
    for name, (blob, words) in files.items():
        path = tmp_path / f"{name}.msgpack.zst"
        path.write_bytes(blob)
        code, lines = outcome(build, path, "-j", "2")
        assert (code == 0) == (name == "good") and words in lines[0], (name, lines)
        assert len(lines) == (2 if name == "good" else 1)


def test_packed_records_give_the_same_verdicts(build, tmp_path):
    """Past --memory the records are packed (front-coded blocks, a binary search): every verdict
    the same as flat, in one process and in two, on published files (version 2 and as version 3)
    and on the bad-certificate corpus."""
    certgen.write_corpus(tmp_path)
    written = {"v3-nowin1.msgpack.zst"}
    for name in PUBLISHED:
        blob = (CERTS / name).read_bytes()
        both = [(3, blob)] if closed_under_autoplay(blob) else zip((2, 3), both_versions(blob))
        for v, data in both:
            (tmp_path / f"v{v}-{name}").write_bytes(data)
            written.add(f"v{v}-{name}")
    last = certgen.nowin_file(certgen.NOWIN1, 1, version=3, symmetry="none")
    (tmp_path / "v3-nowin1.msgpack.zst").write_bytes(last)
    paths = [*(CERTS / name for name in PUBLISHED), *sorted(tmp_path.iterdir())]
    flat = verdicts([str(build / "vcheck")], paths)
    assert {name for name, v in flat.items() if v == "verified"} >= {*PUBLISHED, *written}
    for jobs in ("1", "2"):
        assert verdicts([str(build / "vcheck"), "--memory", "1", "-j", jobs], paths) == flat
    assert vcheck(build, "--memory", "lots", paths[0]).returncode == 2


# ---- Closure under safe autoplay (docs/certificate-format.md, section 8) ----

@pytest.fixture(scope="session")
def autoplay_11982():
    """Deal 11982's positions closed under every move then safe autoplay (certgen's explorer),
    and the version 3 no-win that holds them."""
    start = certgen.deal_start(11982)
    positions = certgen.explore(start, 4, closure="autoplay")
    return positions, certgen.nowin_file(start, 4, positions=positions, deal=11982, version=3,
                                         closure="autoplay")


def test_autoplay_nowin_verified_with_checks_line(build, tmp_path, autoplay_11982):
    """Deal 11982 closed under autoplay (61,643 positions), custom layouts, and a range with an
    autoplay no-win among its wins: verified, in one process and in two, with check's lines.
    Deal 186216 has a move that puts a card on a column from which autoplay then sends it
    home, and NOWIN0's start sends a card home: columns no record holds, which the driver's
    column tree answers all the same."""
    positions, blob = autoplay_11982
    assert len(positions) == 61_643
    chosen = published_entries(11980, 11984)
    assert [e[1] for e in chosen] == ["win", "no-win", "win", "win"]
    entries = [certgen.as_entry(blob, version=3) if claim == "no-win" else
               certgen.unpack_file(range_v3(deal, [[deal, claim, count, body]]))[1]
               for deal, claim, count, body in chosen]
    files = {
        "11982": blob,
        "board": certgen.nowin_file(certgen.NOWIN1, 1, version=3, closure="autoplay"),
        "board0": certgen.nowin_file(certgen.NOWIN0, 0, version=3, closure="autoplay"),
        "186216": certgen.nowin_file(certgen.deal_start(186216), 4, deal=186216, version=3,
                                     closure="autoplay"),
        "range": certgen.range_file(11981, entries, version=3, closure="autoplay"),
    }
    for name, data in files.items():
        (tmp_path / f"{name}.msgpack.zst").write_bytes(data)
    paths = sorted(tmp_path.iterdir())
    theirs = check(*paths)
    assert theirs.returncode == 0, theirs.stdout
    for jobs in ("1", "2"):
        mine = vcheck(build, "-j", jobs, *paths)
        assert mine.returncode == 0 and mine.stdout == theirs.stdout, mine.stdout
    line = vcheck(build, tmp_path / "11982.msgpack.zst").stdout.splitlines()[0]
    assert line == ("VERIFIED: Microsoft FreeCell deal 11982 (4 free cells, single-card moves, "
                    "no moves off foundations) cannot be won: 61,643 positions closed under "
                    "every legal move then safe autoplay, none won")
    assert "exactly 1 cannot be won: 11982" in mine.stdout
    item = json.loads(vcheck(build, "--json", tmp_path / "11982.msgpack.zst").stdout)
    assert item["closure"] == "autoplay" and item["verdict"] == "verified"


def test_autoplay_nowin_with_a_successor_missing_is_rejected(build, tmp_path, autoplay_11982):
    """A record left out (another's move, autoplayed, leads to it), the closure key left out (the
    records are not closed under every move alone), the start's autoplay left out: rejected, as
    check rejects them, in one process and in two."""
    positions, blob = autoplay_11982
    start = certgen.deal_start(11982)
    dropped = next(p for p in sorted(positions) if p != certgen.canon(start, "columns"))
    board = certgen.NOWIN0   # (whose start autoplays a card: 11982's does not)
    first, raw = certgen.canon(certgen.autoplay(board), "columns"), certgen.canon(board, "columns")
    assert first != raw
    files = {
        "missing": certgen.nowin_file(start, 4, positions=[p for p in positions if p != dropped],
                                      deal=11982, version=3, closure="autoplay"),
        "no-key": blob,
        "start-not-autoplayed": certgen.nowin_file(
            board, 0, positions=[raw if p == first else p
                                 for p in certgen.explore(board, 0, closure="autoplay")],
            version=3, closure="autoplay"),
    }
    for name, data in files.items():
        path = tmp_path / f"{name}.msgpack.zst"
        if name == "no-key":   # (the key removed from the header, not set to None)
            h, body = certgen.unpack_file(blob)
            del h["closure"]
            data = certgen.pack(h, body)
        path.write_bytes(data)
        assert verdicts(CHECK, [path]) == {path.name: "rejected"}, name
        for jobs in ("1", "2"):
            code, lines = outcome(build, path, "-j", jobs)
            assert code == 1 and len(lines) == 1 and lines[0].startswith("REJECTED: "), (name,
                                                                                        lines)


def test_bad_closure_keys_are_refused_as_check_refuses_them(build, tmp_path):
    """closure only "autoplay", only in version 3, never in a win, never with foundation moves:
    each other one refused as check refuses it (the same line, exit 2)."""
    nowin = lambda **o: certgen.nowin_file(certgen.NOWIN1, 1, **o)
    win = certgen.win_file(certgen.WIN1, 1, certgen.win_path(certgen.WIN1, 1), version=3)
    entry = certgen.as_entry(nowin(version=3), version=3)
    files = {
        "moves": nowin(version=3, closure="moves"),
        "empty": nowin(version=3, closure=""),
        "long": nowin(version=3, closure="autoplay, and then some more autoplay"),
        "a-number": nowin(version=3, closure=1),
        "nil": nowin(version=3, closure=None),
        "version-2": nowin(version=2, closure="autoplay"),
        "a-win": certgen.rebuild(win, closure="autoplay"),
        "foundation-moves": certgen.nowin_file(   # (refused before its records are read)
            certgen.NOWIN1, 1, positions=certgen.explore(certgen.NOWIN1, 1), fmoves=True,
            version=3, closure="autoplay"),
        "range-other": certgen.range_file(1, [entry], version=3, closure="Autoplay"),
        "range-version-2": certgen.range_file(1, [certgen.as_entry(nowin(version=2))],
                                              version=2, closure="autoplay"),
    }
    for name, data in files.items():
        path = tmp_path / f"{name}.msgpack.zst"
        if name == "nil":   # (a key whose value is nil: not the same as no key)
            h, body = certgen.unpack_file(data)
            h["closure"] = None
            data = certgen.pack(h, body)
        path.write_bytes(data)
        theirs, mine = check(path), vcheck(build, path)
        assert theirs.returncode == mine.returncode == 2, (name, theirs.stdout, mine.stdout)
        assert "header closure = " in mine.stdout and "is not allowed" in mine.stdout, name
        assert mine.stdout == theirs.stdout, (name, mine.stdout, theirs.stdout)


def test_an_autoplay_that_is_not_safe_does_not_prove(build, tmp_path):
    """Autoplay.v changed to take any card that may go home (not only safe ones), to forget that
    foundation moves are refused, or to let a record be won: the proof must break."""
    source = (VCHECK / "coq" / "Autoplay.v").read_text(encoding="utf-8")
    for old, new in [("if safe f c && (n =? depth T (parent T a))",
                      "if can_home f c && (n =? depth T (parent T a))"),
                     ("      if safe f c then Some (c, rest)",
                      "      if can_home f c then Some (c, rest)"),
                     ("negb fm && columns_match T ids", "columns_match T ids"),
                     ("negb (full f) && column_moves_held_ap", "column_moves_held_ap")]:
        assert source.count(old) == 1, old
        for name in ("Rules", "Deal", "Check"):   # what Autoplay.v requires
            for ext in (".vo", ".glob"):
                shutil.copy(build / (name + ext), tmp_path / (name + ext))
        (tmp_path / "Autoplay.v").write_text(source.replace(old, new), encoding="utf-8")
        run = subprocess.run(["coqc", "-q", "-Q", ".", "VCheck", "Autoplay.v"], cwd=tmp_path,
                             capture_output=True, text=True)
        assert run.returncode != 0, f"the mutant {new!r} still proves"
        said = run.stdout + run.stderr
        assert "Error" in said
        assert "physical path" not in said and "Unable to locate" not in said, said


# ---- Hostile files: bounded time and memory ----

def run_bounded(build, *args, memory=400 << 20):
    """(exit code, output lines) of one vcheck process given at most [memory] bytes of address
    space, killed after two minutes (a guard: these take seconds)."""
    limit = lambda: resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    child = subprocess.Popen([str(build / "vcheck"), *map(str, args)], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True, preexec_fn=limit)
    try:
        out, _ = child.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        child.kill()
        child.communicate()
        raise
    return child.returncode, out.splitlines()


UNKEYED = 0x100000001b3     # the multiplier of the unkeyed FNV-style hash vcheck once used


def unkeyed_slot(data, mask):
    """Where that hash put a record in a table of mask + 1 slots (OCaml's 63-bit arithmetic)."""
    h = 0
    for b in data:
        h = (h * UNKEYED % 2**63) ^ b
    return (h ^ (h >> 29)) & mask


def crowding_certificate():
    """A true no-win (a custom layout, no free cell) whose records were chosen so that under the
    unkeyed hash most of them start their probes in 30 blocks of 256 of the 2^19 slots of its
    table: linear probing then builds one cluster of some 200,000 records, and each insertion
    walks it. Every record is stuck (no free cell; the tops are black tens to kings, none an ace,
    none onto another), so each is closed with no successor, and none is won."""
    import itertools
    tops = certgen.STUCK_TOPS
    pool = [c for c in range(52) if c not in tops]
    fixed = [bytes(pool[4 * i:4 * i + 4] + [tops[i]]) for i in range(6)]
    seventh = [bytes([*p, tops[6]]) for p in
               itertools.islice(itertools.permutations(pool[24:34]), 4000)]
    eighth = [bytes([*p, tops[7]]) for p in
              itertools.islice(itertools.permutations(pool[34:44]), 4000)]
    table = sorted({*fixed, *seventh, *eighth})
    ids = {col: i for i, col in enumerate(table)}
    prefix = bytes(4) + b"".join(ids[c].to_bytes(2, "big") for c in fixed)
    mask = 2**19 - 1
    # The last id's low byte changes only the low 8 bits of the hash: all 256 ids with one high
    # byte share a block of 256 slots, so a block is found by one hash a (record, high byte).
    by_high = {}
    for y in eighth:
        by_high.setdefault(ids[y] >> 8, []).append(y)
    pairs = set()
    for x in seventh:
        head = prefix + ids[x].to_bytes(2, "big")
        for high, ys in by_high.items():
            if unkeyed_slot(head + bytes([high, 0]), mask) >> 8 < 30:
                pairs.update((x, y) for y in ys)
    used_x, used_y = {x for x, _ in pairs}, {y for _, y in pairs}
    pairs |= {(x, eighth[0]) for x in seventh if x not in used_x}
    pairs |= {(seventh[0], y) for y in eighth if y not in used_y}
    pairs.add((seventh[0], eighth[0]))
    recs = sorted(prefix + ids[x].to_bytes(2, "big") + ids[y].to_bytes(2, "big")
                  for x, y in pairs)
    assert 2**17 < len(recs) <= 2**18          # so that the table has 2^19 slots
    crowded = sum(unkeyed_slot(r, mask) < 30 * 256 for r in recs)
    start = certgen.make((0, 0, 0, 0), (), [list(c) for c in fixed] +
                         [list(seventh[0]), list(eighth[0])])
    blob = certgen.nowin_file(start, 0, symmetry="none", parts=(table, recs), version=3)
    return blob, len(recs), crowded


def test_records_chosen_against_a_known_hash_do_not_slow_the_check(build, tmp_path):
    """Records crowded into one stretch of the lookup table by a hash anyone can compute took
    quadratic time to insert; under a key drawn each run, this file is as quick as any other of
    its size (the guard in run_bounded is two minutes; it takes about a second)."""
    blob, count, crowded = crowding_certificate()
    assert crowded > count // 2
    path = tmp_path / "crowded.msgpack.zst"
    path.write_bytes(blob)
    code, lines = run_bounded(build, path)
    assert code == 0 and f"{count:,} positions closed" in lines[0], lines


def bomb(*pieces):
    """One zstd frame of these pieces, each bytes or a number of zero bytes (compressed a piece at
    a time: the data is never held whole here)."""
    z = certgen.zstandard.ZstdCompressor(level=1).compressobj()
    out = []
    for piece in pieces:
        if isinstance(piece, int):
            block = bytes(1 << 24)
            for at in range(0, piece, len(block)):
                out.append(z.compress(block[:min(len(block), piece - at)]))
        else:
            out.append(z.compress(piece))
    out.append(z.flush())
    return b"".join(out)


def test_decompression_is_bounded_by_what_the_header_says(build, tmp_path):
    """Files of a few KB that decompress to half a GiB: zeros after a win's moves (version 3 and
    2), after a range's last entry, and a version 2 no-win whose records bin says it holds half a
    GiB. Each refused in one line, as check refuses it, within 400 MB of address space (the
    header allows no more than a few KB here)."""
    big = 1 << 29
    packb = lambda v: certgen.msgpack.packb(v, use_bin_type=True)
    files = {}
    for version in (2, 3):
        win = certgen.win_file(certgen.WIN1, 1, certgen.win_path(certgen.WIN1, 1), version=version)
        h, body = certgen.unpack_file(win)
        files[f"win{version}-then-zeros"] = (bomb(packb(h), body if version == 3 else packb(body),
                                                  big), "unreadable", "the body has data after it")
    entries = [certgen.entry(*e) for e in published_entries(11981, 11983)]
    h = certgen.range_header(11982, 11983, entries)
    files["range-then-zeros"] = (bomb(packb(h), b"".join(entries), big), "rejected",
                                 "the range has data after it")
    nowin = certgen.nowin_file(certgen.NOWIN0, 0, version=2)
    h, body = certgen.unpack_file(nowin)
    table, _ = certgen.msgpack.unpackb(body)
    inner = b"\x92" + packb(table) + b"\xc6" + big.to_bytes(4, "big")
    files["nowin2-records-too-big"] = (
        bomb(packb(h), b"\xc6" + (len(inner) + big).to_bytes(4, "big"), inner, big), "rejected",
        "records: ")
    for name, (blob, verdict, words) in files.items():
        assert len(blob) < 1 << 20, name
        path = tmp_path / f"{name}.msgpack.zst"
        path.write_bytes(blob)
        code, lines = run_bounded(build, path)
        assert code == {"rejected": 1, "unreadable": 2}[verdict] and len(lines) == 1, (name, lines)
        assert words in lines[0], (name, lines)
        assert lines == check(path).stdout.splitlines(), name   # check's line


def test_a_value_of_the_wrong_kind_is_refused_before_it_is_read(build, tmp_path):
    """Where a range's entry should hold a bin (version 2's body, version 3's moves) or a
    column table, an array of 50 million numbers: refused from its first byte, in one line, as
    check refuses it, within 100 MB of address space (read as values, it would take GBs)."""
    packb = lambda v: certgen.msgpack.packb(v, use_bin_type=True)
    huge = b"\xdd" + (50_000_000).to_bytes(4, "big") + bytes(50_000_000)
    files = {
        "v2-body-an-array": (2, b"\x94" + packb(1) + packb("win") + packb(100) + huge,
                             "rejected", "entry 1 (deal 1): its body is not a msgpack bin"),
        "v3-moves-an-array": (3, b"\x93" + packb(1) + packb("win") + packb(100) + huge,
                              "rejected", "entry 1 (deal 1): the moves is not a msgpack bin"),
        "v3-table-an-array": (3, b"\x93" + packb(1) + packb("no-win") + packb(100) + huge,
                              "unreadable", "more than --max-columns"),
    }
    for name, (version, entries, verdict, words) in files.items():
        h = certgen.range_header(1, 1, [entries], version=version)
        path = tmp_path / f"{name}.msgpack.zst"
        path.write_bytes(certgen.zstandard.ZstdCompressor(level=1).compress(packb(h) + entries))
        code, lines = run_bounded(build, path, memory=100 << 20)
        assert code == {"rejected": 1, "unreadable": 2}[verdict] and len(lines) == 1, (name, lines)
        assert words in lines[0], (name, lines)
        assert lines == check(path).stdout.splitlines(), name   # check's line


def test_the_won_record_cases_get_checks_verdict_and_line(build, tmp_path):
    """tests/test_check_won.py's files (a won record under every rule, with 0, 1 and 8 cells, in
    ranges, under autoplay; the quick kills of check's mutants) through vcheck: check's exit
    code and check's very line on each (a rejection's words are the driver's, found once the
    proved function has said no; a range whose count is not last - first + 1 is REJECTED by
    both, as the format's section 5 says)."""
    import test_check_won as won
    for name in won.NAMES:
        blob, verdict, phrase = won.cases()[name]
        path = tmp_path / f"{name}.msgpack.zst"
        path.write_bytes(blob)
        mine, theirs = vcheck(build, path), check(path)
        assert (mine.returncode, mine.stdout) == (theirs.returncode, theirs.stdout), name
        assert phrase in mine.stdout, name


# ---- One verdict, one line, one exit code: vcheck's whole output is check's ----

BAD = ROOT / "tests" / "bad-certificates"


def both(build, *args, cwd=None):
    """(check's, vcheck's) (exit code, standard output) on the same arguments; for bad usage, the
    last line of standard error after the program's name (argparse's words, in both)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = []
    for command, name in ((CHECK, "check: "), ([str(build / "vcheck")], "vcheck: ")):
        run = subprocess.run([*command, *map(str, args)], capture_output=True, text=True,
                             cwd=cwd, env=env)
        said = run.stdout if run.stdout or run.returncode != 2 else (
            run.stderr.splitlines() or [""])[-1].removeprefix(name)
        out.append((run.returncode, said))
    return tuple(out)


@pytest.fixture
def same(build):
    """Assert that check and vcheck print the same and exit alike on these arguments."""
    def agree(*args, cwd=None):
        theirs, mine = both(build, *args, cwd=cwd)
        assert mine == theirs, (args, theirs, mine)
        return mine
    return agree


def test_the_whole_output_is_checks_on_every_file_of_the_corpus(same):
    """Every known-bad file, alone (its line, its exit code), and the folder with -j 1 and -j 2:
    the same verdict, class and words in both (the format's section 5, "Verdicts")."""
    names = sorted(p.name for p in BAD.glob("*.msgpack.zst"))
    assert len(names) == 54
    for name in names:
        code, out = same(BAD / name)
        assert code in (1, 2) and len(out.splitlines()) == 1, (name, out)
    for jobs in ("1", "2"):
        assert same("-j", jobs, "bad-certificates", cwd=ROOT / "tests")[0] == 1


def test_the_whole_output_is_checks_on_published_certificates(same):
    for name in PUBLISHED:
        assert same(CERTS / name)[0] == 0
    code, out = same("-j", "2", *[CERTS / name for name in PUBLISHED])
    assert code == 0 and out.splitlines()[-1] == "4 certificates: 4 verified, 0 rejected"


@pytest.mark.slow
def test_the_whole_output_is_checks_on_every_published_certificate(same):
    # (slow: check/ takes minutes of CPU over all of certificates/; the full tier compares the
    # two checkers' whole output on a sample of them, test_..._on_published_certificates)
    assert same("-j", "2", CERTS)[0] == 0


def verified_line_files():
    """Files whose VERIFIED lines test the singular and the commas (also the page's test): a
    win of 1,500 moves, a win of one move, a no-win of one position, a range of two; and the
    long win's moves."""
    one_move = certgen.board((13, 13, 13, 12), ["KS", "", "", "", "", "", "", ""])
    padded = certgen.padded_indices(1, 4, win_lines(1)[1], 1500)
    start = certgen.deal_start(1)
    return {
        "long": certgen.win_file(start, 4, certgen.index_moves(start, 4, False, padded), deal=1,
                                 version=3),
        "one-move": certgen.win_file(one_move, 0, [(certgen.card("KS"), certgen.FOUNDATION)]),
        "one-position": certgen.nowin_file(certgen.stuck_positions(8)[0], 0,
                                           certgen.stuck_positions(8)[:1]),
        "1-2": certgen.range_file(1, [certgen.entry(*e) for e in published_entries(0, 2)]),
    }, padded


def test_verified_lines_in_the_singular_and_with_commas(same, tmp_path):
    """A win of one move ('1 single-card move replays'), a no-win of one position ('1 position
    closed'), and counts past 999 with commas, as check writes them."""
    files, padded = verified_line_files()
    for name, blob in files.items():
        (tmp_path / f"{name}.msgpack.zst").write_bytes(blob)
    assert " 1 single-card move replays to a won position" in same(tmp_path / "one-move.msgpack.zst")[1]
    assert ": 1 position closed under every legal move, none won" in same(
        tmp_path / "one-position.msgpack.zst")[1]
    assert same(tmp_path / "1-2.msgpack.zst")[0] == 0
    assert f": {len(padded):,} single-card moves replay" in same(tmp_path / "long.msgpack.zst")[1]
    assert len(padded) >= 1000


# The same pins through both checkers: what the file must prove (REJECTED when it does not), a pin
# no file can meet (bad usage, exit 2), an option's value of the wrong kind (argparse's words).
PINS = [["--deal", "1", "--claim", "no-win", "--cells", "1", "--no-foundation-moves",
         "--symmetry", "columns", "--closure", "moves"],
        ["--deal", "617"], ["--claim", "win"], ["--claim", "range"], ["--cells", "4"],
        ["--foundation-moves"], ["--symmetry", "none"], ["--closure", "autoplay"],
        ["--range", "1-6"], ["--range", "1-7"], ["--range", "2-6", "--claim", "range"],
        ["--deal", "3"], ["--deal", "0"], ["--deal", "8589934592"], ["--range", "5-1"],
        ["--range", "0-3"], ["--cells", "9"], ["--cells", "-1"], ["--claim", "lost"],
        ["--deal", "five"], ["--range", "5"], ["-j", "0"], ["--max-moves", "-1"],
        ["--symmetry"], ["--no-such-option"]]


@pytest.mark.parametrize("pins", PINS, ids=" ".join)
def test_pins_through_both_checkers(same, tmp_path_factory, pins):
    folder = tmp_path_factory.getbasetemp() / "pinned"
    if not folder.exists():
        folder.mkdir()
        nowin = certgen.nowin_file(certgen.deal_start(1), 1, deal=1)
        (folder / "deal1.msgpack.zst").write_bytes(nowin)
        (folder / "board.msgpack.zst").write_bytes(
            certgen.win_file(certgen.WIN1, 1, certgen.win_path(certgen.WIN1, 1)))
        (folder / "range.msgpack.zst").write_bytes(certgen.range_file(
            1, [certgen.entry(*e) for e in published_entries(0, 6)]))
    for name in ("deal1", "board", "range"):
        code, out = same(*pins, folder / f"{name}.msgpack.zst")
        assert code in (0, 1, 2) and out


def test_signed_ints_are_ints_in_both(same, tmp_path):
    """msgpack's signed forms (int 8, 16, 32, 64) of a non-negative value mean that value (the
    format's section 3): a true range whose entries write their deal and count so is verified by
    both, as is a header whose count is an int 32; a negative count is refused by both."""
    def signed(n, code):   # n in msgpack's int form `code` (0xd0..0xd3)
        size = {0xd0: 1, 0xd1: 2, 0xd2: 4, 0xd3: 8}[code]
        return bytes([code]) + n.to_bytes(size, "big", signed=True)

    lines = {d: v[0] for d, c, n, v in certgen.unpack_range(
        (CERTS / "1-32000.msgpack.zst").read_bytes())[1][:4]}
    for code in (0xd1, 0xd2, 0xd3):
        es = [b"\x93" + signed(d, code) + certgen.msgpack.packb("win") + signed(len(line), code)
              + certgen.msgpack.packb(line) for d, line in lines.items()]
        path = tmp_path / f"signed-{code:x}.msgpack.zst"
        path.write_bytes(certgen.range_file(1, es, version=3))
        assert same(path)[0] == 0
    blob = certgen.win_file(certgen.WIN1, 1, certgen.win_path(certgen.WIN1, 1), version=3)
    data = zstandard_data(blob)
    h = certgen.msgpack.packb(certgen.unpack_file(blob)[0])
    count = certgen.unpack_file(blob)[0]["count"]
    changed = h.replace(b"\xa5count" + bytes([count]), b"\xa5count" + signed(count, 0xd2))
    assert changed != h
    path = tmp_path / "header-int32.msgpack.zst"
    path.write_bytes(certgen.zstandard.ZstdCompressor().compress(changed + data[len(h):]))
    assert same(path)[0] == 0


def header_values(blob, extra=b"", **raw):
    """The certificate with header values replaced by raw msgpack bytes (key -> bytes), and
    one more pair if [extra] (raw), the body as it stands."""
    h = certgen.unpack_file(blob)[0]
    data = zstandard_data(blob)
    old = certgen.msgpack.packb(h)
    assert data.startswith(old)
    new = bytes([0x80 | len(h) + bool(extra)]) + b"".join(
        certgen.msgpack.packb(k) + raw.get(k, certgen.msgpack.packb(v)) for k, v in h.items())
    return certgen.zstandard.ZstdCompressor().compress(new + extra + data[len(old):])


def test_floats_and_big_ints_in_a_header_alike(same, build, tmp_path):
    """A header value that is a float (msgpack's float 32 or 64) or an ext (a timestamp, an
    ExtType) is refused with Python's repr of it, a key that is not a str, or a bad timestamp,
    with msgpack's own words, and an int past OCaml's (2 ^ 62 or more, below -2 ^ 62) is read as
    the number it is: a count up to 2 ^ 64 - 1 is allowed and then past --max-positions (or a
    range's last - first + 1), in both, in lines and in --json."""
    nowin = certgen.nowin_file(certgen.NOWIN1, 1)
    win = certgen.win_file(certgen.WIN1, 1, certgen.win_path(certgen.WIN1, 1))
    one = certgen.range_file(1, [certgen.entry(*e) for e in published_entries(0, 1)])
    f64 = lambda x: b"\xcb" + struct.pack(">d", x)
    f32 = lambda x: b"\xca" + struct.pack(">f", x)
    u64 = lambda n: b"\xcf" + n.to_bytes(8, "big")
    i64 = lambda n: b"\xd3" + n.to_bytes(8, "big", signed=True)
    cases = {
        "count-float": header_values(nowin, count=f64(258.0)),
        "cells-float32": header_values(nowin, cells=f32(0.1)),
        "cells-tenth": header_values(nowin, cells=f64(0.1)),
        "cells-1e16": header_values(nowin, cells=f64(1e16)),
        "cells-small": header_values(nowin, cells=f64(1.5e-5)),
        "cells-fixed": header_values(nowin, cells=f64(-123456.75)),
        "cells-2-53": header_values(nowin, cells=f64(2.0 ** 53)),
        "cells-tiny": header_values(nowin, cells=f64(5e-324)),
        "cells-big": header_values(nowin, cells=f64(1.7976931348623157e308)),
        "cells-third": header_values(nowin, cells=f64(1 / 3)),
        "count-nan": header_values(nowin, count=f64(float("nan"))),
        "count-inf": header_values(nowin, count=f64(float("-inf"))),
        "format-zero": header_values(nowin, format=f64(-0.0)),
        "count-2-62": header_values(nowin, count=u64(2 ** 62)),
        "count-2-64": header_values(win, count=u64(2 ** 64 - 1)),
        "range-count-2-63": header_values(one, count=u64(2 ** 63)),
        "count-low": header_values(nowin, count=i64(-2 ** 63)),
        "deal-2-63": header_values(nowin, deal=u64(2 ** 63)),
        "cells-below": header_values(nowin, cells=i64(-2 ** 62 - 1)),
        "key-float": header_values(nowin, extra=f64(1.5) + b"\x01"),
        "key-int": header_values(nowin, extra=b"\x07\x01"),
        "key-nil": header_values(nowin, extra=b"\xc0\x01"),
        "inner-key": header_values(nowin, board=b"\x81\x91\x01\x01"),
        "inner-repeat": header_values(nowin, board=b"\x82\xa1a\x01\xa1a\x02"),
        "bin-keys-repeat": header_values(nowin, board=b"\x82\xc4\x01a\x01\xc4\x01a\x02"),
        "ext": header_values(nowin, cells=b"\xc7\x20\x05" + bytes(range(32))),
        "ext-key": header_values(nowin, extra=b"\xd4\x01\x02\x01"),
        "timestamp-4": header_values(nowin, cells=b"\xd6\xff\x00\x00\x00\x01"),
        "timestamp-8": header_values(nowin, cells=b"\xd7\xff\x00\x00\x00\x04\x00\x00\x00\x01"),
        "timestamp-12": header_values(nowin, cells=b"\xc7\x0c\xff" + bytes(4) + b"\xff" * 8),
        "timestamp-2": header_values(nowin, cells=b"\xd5\xff\x00\x01"),
        "timestamp-nanos": header_values(nowin, cells=b"\xd7\xff" + b"\xff" * 4 + bytes(3) + b"\x01"),
        "reserved": header_values(nowin, cells=b"\xc1"),
    }
    for name, blob in cases.items():
        (tmp_path / f"{name}.msgpack.zst").write_bytes(blob)
    code, out = same(tmp_path)   # (one run of each over the folder: the files in turn)
    lines = dict(line.split(".msgpack.zst: ", 1) for line in out.splitlines()[:-1])
    assert code == 1 and len(lines) == len(cases), out   # (one is rejected)
    assert lines["cells-tenth"] == "UNREADABLE: header cells = 0.1 is not allowed"
    assert lines["cells-float32"] == "UNREADABLE: header cells = 0.10000000149011612 is not allowed"
    assert lines["count-2-64"] == (
        "UNREADABLE: 18,446,744,073,709,551,615 moves: more than --max-moves 100,000")
    assert lines["range-count-2-63"] == (
        "REJECTED: count = 9223372036854775808, not last - first + 1")
    assert lines["key-float"].endswith(
        "(ValueError('float is not allowed for map key when strict_map_key=True'))")
    assert all(line.startswith("UNREADABLE: ") for name, line in lines.items()
               if not name.startswith("range")), out
    theirs, mine = ([json.loads(line) for line in out.splitlines()]
                    for _, out in both(build, "--json", tmp_path))
    for o in theirs + mine:
        del o["seconds"]
        o.pop("theorem", None)
    assert mine == theirs


def test_big_ints_in_a_range_entry_alike(same, tmp_path):
    """An entry's deal or count past OCaml's ints: the deal named as it is, a count past every
    bound, a count below -2 ^ 62 negative, in both."""
    line = win_lines(1)[1]
    tail = certgen.msgpack.packb(line)
    cases = {
        "deal": b"\x93\xcf" + (2 ** 64 - 1).to_bytes(8, "big") + certgen.msgpack.packb("win")
                + certgen.msgpack.packb(len(line)) + tail,
        "count": b"\x93\x01" + certgen.msgpack.packb("win") + b"\xcf" + (2 ** 62).to_bytes(8, "big")
                 + tail,
        "negative": b"\x93\x01" + certgen.msgpack.packb("no-win") + b"\xd3"
                    + (-2 ** 63).to_bytes(8, "big", signed=True) + tail,
    }
    for name, entry in cases.items():
        path = tmp_path / f"entry-{name}.msgpack.zst"
        path.write_bytes(certgen.range_file(1, [entry], version=3))
        code, out = same(path)
        assert code in (1, 2) and out.startswith(("REJECTED: entry 1 (deal 1): ",
                                                  "UNREADABLE: entry 1 (deal 1): ")), (name, out)


def test_a_file_past_4_gib_is_refused_unread(build, tmp_path):
    """vcheck holds a file whole, up to 4 GiB (vcheck/README.md, "Where the two checkers still
    differ"): a sparse file of 64 GiB is refused by its size, at once and in a few MB, never
    read (check reads it as it goes and refuses its header)."""
    path = tmp_path / "sparse.msgpack.zst"
    with open(path, "wb") as f:
        f.write(certgen.rebuild(certgen.win_file(certgen.WIN1, 1, certgen.win_path(certgen.WIN1, 1)),
                                version=4))
        f.truncate(64 << 30)
    assert run_bounded(build, path, memory=100 << 20) == (
        2, [f"UNREADABLE: {path} holds more than 4 GiB"])


def zstandard_data(blob):
    return certgen.zstandard.ZstdDecompressor().stream_reader(blob, read_across_frames=True).read()


# ---- Costly files: the range bounds (section 5) and the column tree ----

@functools.lru_cache(maxsize=None)
def win_lines(n):
    """The move indices of deals 1..n's wins in the published range (version 3)."""
    h, es = certgen.unpack_range((CERTS / "1-32000.msgpack.zst").read_bytes())
    assert h["version"] == 3
    return {d: v[0] for d, claim, _, v in es[:n] if claim == "win"}


@pytest.mark.parametrize("limits", [
    [], ["--max-moves", "1000"], ["--max-moves", "1000", "--range-moves", "100000"],
    ["--max-moves", "1000", "--range-moves", "100000", "--byte-moves", "5"],
    ["--max-moves", "1000", "--range-moves", "100000", "--byte-moves", "10"],
    ["--byte-moves", "100", "--range-moves", "100000", "--max-moves", "100"]], ids=" ".join)
def test_a_padded_range_is_bounded_alike(same, tmp_path_factory, limits):
    """True wins of deals 1..300, each padded to 1,000 moves with a two-move cycle (a true range
    of 300,000 moves in about 20 KB): both checkers bound its moves by its deals and by the
    bytes read so far (counted a KiB at a time, as check reads them: the refusals name the same
    bytes, mid-file), with the same options, line and exit code."""
    path = tmp_path_factory.getbasetemp() / "padded-300.msgpack.zst"
    if not path.exists():
        path.write_bytes(certgen.padded_range(win_lines(300), 1000))
    code, out = same("-q", *limits, path)
    if limits[-2:] == ["--byte-moves", "5"]:
        assert code == 2 and "moves in its first 9,216 bytes: --byte-moves a byte" in out, out


@pytest.mark.full
def test_the_reviews_padded_range_is_refused_at_once(same, tmp_path):
    """Deals 1..1,000, each true line padded to 100,000 moves (114 KB): refused at its second
    entry by its bytes, in both (vcheck once verified it after 9 minutes of CPU)."""
    path = tmp_path / "padded-1000.msgpack.zst"
    path.write_bytes(certgen.padded_range(win_lines(1000), 100_000))
    code, out = same(path)
    assert code == 2 and out.startswith("UNREADABLE: entry 2 (deal 2): the range holds more than "
                                        "104,096 moves in its first 1,024 bytes"), out


def test_a_column_tree_shares_prefixes(same, build, tmp_path):
    """A false no-win of deal 1 whose 40,320 columns are every order of 8 cards under the same 44
    (1.8 million distinct prefixes in 40,320 chains that never branch): check's line in both,
    and vcheck within 48 MB of address space (the tree held every prefix as a string of its
    own: 390 MB resident; then every prefix as a node of 14 bytes: 47 MB resident)."""
    path = tmp_path / "permuted-8.msgpack.zst"
    path.write_bytes(certgen.permuted_columns(1, 8))
    code, out = same(path)
    assert code == 1 and "the starting position (" in out
    assert run_bounded(build, path, memory=48 << 20) == (1, out.splitlines())


@pytest.mark.full
def test_the_reviews_column_table_is_bounded(same, build, tmp_path):
    """The review's file: every order of 9 cards under the same 43 (362,880 columns, about 16
    million distinct prefixes, 250 KB): refused in both, vcheck within 150 MB of address space,
    below check's 183 MB resident (it took 3 GiB, then 298 MB)."""
    path = tmp_path / "permuted-9.msgpack.zst"
    path.write_bytes(certgen.permuted_columns(1, 9))
    code, out = same(path)
    assert code == 1 and "the starting position (" in out
    assert run_bounded(build, path, memory=150 << 20) == (1, out.splitlines())
