"""vcheck: the checker proved in Coq, run natively.

Builds it once per source version (cached in the temp folder, keyed by the sources' hash), then
checks that its Rules.v is the export's template with only the three constants made
parameters, that every theorem is closed, that a checker changed to skip a record's closure no
longer proves, and that it agrees with check/ on published certificates and on every file of
the bad-certificate corpus.
"""

import difflib
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import certgen  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
VCHECK = ROOT / "vcheck"
TEMPLATE = ROOT / "certify" / "exports" / "templates" / "Rules.v"
CERTS = ROOT / "certificates"
sys.path.insert(0, str(VCHECK))
import derive_rules  # noqa: E402

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


def vcheck(build, *args):
    return subprocess.run([str(build / "vcheck"), *map(str, args)], capture_output=True, text=True)


def verdicts(command, paths):
    """path -> verdict, from a checker's --json output."""
    run = subprocess.run([*command, "--json", *map(str, paths)], capture_output=True, text=True)
    out = {}
    for line in run.stdout.splitlines():
        item = json.loads(line)
        out[Path(item["path"]).name] = item["verdict"]
    return out


CHECK = [sys.executable, "-m", "check"]


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


def test_every_theorem_is_closed(build):
    text = (build / "assumptions.txt").read_text()
    assert text.count("Closed under the global context") == 6, text
    assert "Axiom" not in text


def test_a_checker_that_skips_a_record_does_not_prove(build, tmp_path):
    """Record 0's closure left out of the check: the proof of the theorem must break."""
    check = (VCHECK / "coq" / "Check.v").read_text(encoding="utf-8")
    for old, new in [("slice_closed T R sorted fc fm 64 0 (count R)",
                      "slice_closed T R sorted fc fm 64 1 (count R)"),
                     ("&& landings_held f others c ids) (picks cs)", ") (picks cs)")]:
        assert check.count(old) == 1, old
        for name in ("Rules.vo", "Rules.glob"):
            shutil.copy(build / name, tmp_path / name)
        (tmp_path / "Check.v").write_text(check.replace(old, new), encoding="utf-8")
        run = subprocess.run(["coqc", "-q", "-Q", ".", "VCheck", "Check.v"], cwd=tmp_path,
                             capture_output=True, text=True)
        assert run.returncode != 0, f"the mutant {new!r} still proves"
        assert "Error" in run.stdout + run.stderr


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
    """Custom boards, both record layouts, both symmetries (11982-fm is the foundation-moves rule)."""
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
    _, entries = certgen.unpack_range((CERTS / "1-32000.msgpack.zst").read_bytes())
    path = tmp_path / "range.msgpack.zst"
    path.write_bytes(certgen.range_file(11982, [certgen.entry(*e) for e in entries[11981:11984]]))
    run = vcheck(build, path)
    assert verdicts(CHECK, [path]) == {path.name: "verified"}
    assert run.returncode == 0, run.stdout
    assert "11,982..11,984" in run.stdout
    assert "exactly 1 cannot be won: 11982; each of the other 2 is won" in run.stdout


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
    strip = lambda out: [{k: v for k, v in json.loads(line).items()} for line in out.splitlines()]
    assert strip(one.stdout) == strip(two.stdout)
    assert [item["verdict"] for item in strip(two.stdout)] == ["verified"] * 4 + ["unreadable"]


@pytest.mark.slow
def test_every_published_certificate(build):
    run = vcheck(build, "-q", "-j", "2", CERTS)
    assert run.returncode == 0, run.stdout[-2000:]
