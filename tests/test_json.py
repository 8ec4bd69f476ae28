"""docs/json.md against the commands: each command run with --json, in each case the page
names, prints exactly the fields the page lists for that case, each of the type it says, so that
the JSON scripts read cannot change without the page (nor the page without the JSON)."""

import json
import re
import subprocess
from pathlib import Path

import pytest

from certify.commands.cli import main
from check import checker
from test_vcheck import build  # noqa: F401 (the fixture: vcheck built once per source version)

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "docs" / "json.md").read_text(encoding="utf-8")
CERTS = ROOT / "certificates"
TYPES = {"integer": lambda v: type(v) is int, "number": lambda v: type(v) in (int, float),
         "string": lambda v: type(v) is str, "boolean": lambda v: type(v) is bool,
         "list": lambda v: type(v) is list, "object": lambda v: type(v) is dict,
         "map": lambda v: type(v) is dict, "null": lambda v: v is None}


def sections():
    """{section title: {field: (types, cases)}} of docs/json.md's tables."""
    found = {}
    for part in re.split(r"^## ", DOC, flags=re.M)[1:]:
        title, _, body = part.partition("\n")
        fields = {}
        for line in body.splitlines():
            if not line.startswith("| `"):
                continue
            name, kind, when, what = [c.strip() for c in line.strip("|").split(" | ", 3)]
            types = kind.split(" or ")
            assert set(types) <= TYPES.keys(), (title, name, kind)
            assert what, (title, name)
            fields[name.strip("`")] = (types, {w.strip().strip("`") for w in when.split(",")})
        found[title.strip()] = fields
    return found


SECTIONS = sections()


def flattened(obj, doc, prefix=""):
    """{field: value} of a printed object, with the fields of the objects inside it (outer.inner,
    outer[].inner for a list's objects; a map's keys are data, not fields)."""
    out = {}
    for key, value in obj.items():
        name = prefix + key
        out[name] = value
        kind = doc.get(name, ((), ()))[0]
        if "map" in kind:
            continue
        if type(value) is dict:
            out.update(flattened(value, doc, name + "."))
        elif type(value) is list and value and all(type(v) is dict for v in value):
            for item in value:
                out.update(flattened(item, doc, name + "[]."))
    return out


def parent(name):
    return re.sub(r"(\[\])?\.[^.]+$", "", name) if "." in name else None


def holds_to_the_page(title, printed, cases):
    """The printed object has exactly the fields the page lists for these cases (and whose
    outer object was printed), each of its documented type."""
    doc = SECTIONS[title]
    got = flattened(printed, doc)
    wanted = {name for name, (_, when) in doc.items() if "always" in when or when & set(cases)}
    wanted = {name for name in wanted if parent(name) is None or parent(name) in got
              and got[parent(name)] not in (None, [])}
    assert set(got) == wanted, (title, cases, "printed but not on the page:",
                                set(got) - wanted, "on the page but not printed:",
                                wanted - set(got))
    for name, value in got.items():
        types = doc[name][0]
        if "[]." not in name:
            assert any(TYPES[t](value) for t in types), (title, name, value, types)
    if "verdict" in printed and "claim" in printed and title != "`check --json`" and \
            title != "`vcheck --json`":   # certify's old name, beside the new, the same
        assert printed["verdict"] == printed["claim"]
    return got


# Where certify printed its outcome as "verdict" before it was "claim" (check's word): there
# the old name is printed beside the new one for a release, and the page says it is deprecated.
OLD_NAMES = {"`certify DEAL --json`": {"verdict"}, "`certify A-B` results table": {"verdict"},
             "`certify extract RANGEFILE DEAL --json`": {"verdict"},
             "`certify explain --json`": {"verdict", "cell_searches[].verdict"}}


def test_the_page_names_its_cases_and_marks_the_old_name():
    cases = {title: set().union(*(when for _, when in doc.values()))
             for title, doc in SECTIONS.items()}
    assert cases == {
        "`certify DEAL --json`": {"always", "--notation"},
        "`certify A-B --json`": {"always"},
        "`certify A-B` results table": {"always"},
        "`certify extract RANGEFILE DEAL --json`": {"always"},
        "`certify explain --json`": {"always", "win", "no-win", "unknown", "cell searches",
                                     "uncovered", "--positions", "--svg"},
        "`check --json`": {"always"},
        "`vcheck --json`": {"always"},
    }
    # The one deprecated field is certify's old name of its outcome, wherever it printed it.
    for title, doc in SECTIONS.items():
        rows = [line for line in DOC.split(f"## {title}\n", 1)[1].split("\n## ")[0].splitlines()
                if line.startswith("| `")]
        deprecated = {line.split("`")[1] for line in rows if "**Deprecated**" in line}
        assert deprecated == OLD_NAMES.get(title, set()), title
    assert "[docs/json.md](docs/json.md)" in (ROOT / "README.md").read_text(encoding="utf-8")


def run_json(capsys, *argv, code=0):
    assert main([str(a) for a in argv]) == code
    return json.loads(capsys.readouterr().out)


# Small layouts, so that every case runs in a moment: with no free cell, a no-win of two
# positions whose closest card is uncovered (and it is won with one cell); with two cells, a win.
NO_CELL_BOARD = """\
Foundations: H-8 C-8 D-8 S-8
Freecells:
: KC
: QD QC KD 9D
: QS KS
: TC
: JH 9C JS
: QH JD KH
: 9H TD 9S TS
: JC TH
"""
TWO_CELL_BOARD = NO_CELL_BOARD.replace("Freecells:", "Freecells: - -")


@pytest.fixture
def boards(tmp_path):
    (tmp_path / "lost.txt").write_text(NO_CELL_BOARD)
    (tmp_path / "won.txt").write_text(TWO_CELL_BOARD)
    return tmp_path / "lost.txt", tmp_path / "won.txt"


def test_certify_deal(tmp_path, capsys, boards):
    title = "`certify DEAL --json`"
    won = run_json(capsys, "1", "--json", "--notation", "-o", tmp_path / "1.zst")
    holds_to_the_page(title, won, {"--notation"})
    assert (won["deal"], won["claim"], won["moves"]) == (1, "win", 137)
    assert won["notation"].startswith("6a 6b")
    lost = run_json(capsys, "--board", boards[0], "--cells", "0", "--json", "-o",
                    tmp_path / "lost.zst")
    holds_to_the_page(title, lost, set())
    assert (lost["deal"], lost["claim"], lost["positions"]) == (str(boards[0]), "no-win", 2)
    unknown = run_json(capsys, "11982", "--json", "--max-positions", "1000", code=3)
    holds_to_the_page(title, unknown, set())
    assert unknown["claim"] == "unknown" and unknown["path"] is None


def test_census_and_extract(tmp_path, capsys):
    folder = tmp_path / "census"
    summary = run_json(capsys, "11980-11981", "-j", "1", "--out", folder, "--json", "-q")
    holds_to_the_page("`certify A-B --json`", summary, set())
    assert summary["won"] == 2 and summary["range_certificate"]
    rows = [json.loads(line) for line in Path(summary["results"]).read_text().splitlines()]
    assert [row["deal"] for row in rows] == [11980, 11981]
    for row in rows:
        holds_to_the_page("`certify A-B` results table", row, set())
    # A deal unknown: its row, and a summary without a range certificate.
    other = tmp_path / "unknown"
    summary = run_json(capsys, "11982-11982", "--max-positions", "1000", "--out", other,
                       "-j", "1", "--json", "-q", code=3)
    holds_to_the_page("`certify A-B --json`", summary, set())
    assert summary["unknown_deals"] == [11982] and summary["range_certificate"] is None
    row = json.loads((other / "results.jsonl").read_text())
    holds_to_the_page("`certify A-B` results table", row, set())
    assert row["claim"] == "unknown"
    shown = run_json(capsys, "extract", folder / "11980-11981.msgpack.zst", 11981,
                     "-o", tmp_path / "11981.zst", "--json")
    holds_to_the_page("`certify extract RANGEFILE DEAL --json`", shown, set())
    assert (shown["deal"], shown["claim"]) == (11981, "win")


@pytest.mark.parametrize("argv, cases, code", [
    (["LOST", "--cells", "0"], {"no-win", "cell searches", "uncovered"}, 0),
    (["LOST", "--cells", "0", "--cell-budget", "0", "--positions", "--svg", "SVG"],
     {"no-win", "uncovered", "--positions", "--svg"}, 0),
    (["WON", "--cells", "2"], {"win", "cell searches"}, 0),
    (["WON", "--cells", "2", "--cell-budget", "0", "--no-solver", "--svg", "SVG"],
     {"win", "--svg"}, 0),
    (["11982", "--max-positions", "1000", "--positions"], {"unknown", "--positions"}, 3),
    (["CERT", "--cell-budget", "0"], {"no-win", "uncovered"}, 0),
])
def test_explain(argv, cases, code, tmp_path, capsys, boards):
    cert = tmp_path / "lost.msgpack.zst"
    assert main(["--board", str(boards[0]), "--cells", "0", "-q", "-o", str(cert)]) == 0
    capsys.readouterr()
    given = {"LOST": ["--board", boards[0]], "WON": ["--board", boards[1]], "CERT": [cert],
             "SVG": [tmp_path / "x.svg"]}
    argv = [b for a in argv for b in given.get(a, [a])]
    shown = run_json(capsys, "explain", *argv, "--json", "-q", code=code)
    got = holds_to_the_page("`certify explain --json`", shown, cases)
    if "uncovered" in cases:
        assert got["closest.uncovered"] > 0
    if "cell searches" in cases:
        assert all(s["verdict"] == s["claim"] for s in shown["cell_searches"])


def checked_files(tmp_path, boards):
    """A file of each kind, and check's verdict on it: a win, a no-win and a range verified, a
    false claim, a file past a limit (its header read), one cut short, and one not zstd."""
    win, lost, cut = (tmp_path / f"{n}.msgpack.zst" for n in ("win", "lost", "cut"))
    assert main(["1", "-q", "-o", str(win)]) == 0
    assert main(["--board", str(boards[0]), "--cells", "0", "-q", "-o", str(lost)]) == 0
    assert main(["11980-11981", "-j", "1", "-q", "--out", str(tmp_path / "c")]) == 0
    whole = (CERTS / "11982.msgpack.zst").read_bytes()
    cut.write_bytes(whole[:len(whole) // 2])
    bad = ROOT / "tests" / "bad-certificates"
    return {win: "verified", lost: "verified",
            tmp_path / "c" / "11980-11981.msgpack.zst": "verified",
            bad / "autoplay-winnable-claimed-no-win.msgpack.zst": "rejected",
            CERTS / "7484159.msgpack.zst": "unreadable",   # (past --max-positions, below)
            cut: "unreadable", bad / "not-zstd.msgpack.zst": "unreadable"}


LIMIT = ["--max-positions", "500000"]   # 7484159 has more (545,504); the others fewer


def test_check(tmp_path, capsys, boards):
    files = checked_files(tmp_path, boards)
    capsys.readouterr()
    checker.main(["--json", "-j", "1", *LIMIT, *map(str, files)])
    shown = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [item["verdict"] for item in shown] == list(files.values())
    for item in shown:
        holds_to_the_page("`check --json`", item, set())
    assert shown[2]["unwinnable"] == [] and shown[4]["deal"] == 7484159


@pytest.mark.full   # (vcheck is built with Coq: once per source version, by tests/test_vcheck.py)
def test_vcheck(build, tmp_path, boards):
    files = checked_files(tmp_path, boards)
    run = subprocess.run([str(build / "vcheck"), "--json", *LIMIT, *map(str, files)],
                         capture_output=True, text=True)
    shown = [json.loads(line) for line in run.stdout.splitlines()]
    assert [item["verdict"] for item in shown] == list(files.values())
    for item in shown:
        holds_to_the_page("`vcheck --json`", item, set())
    # vcheck's fields are check's and its theorem: the page lists them so.
    assert SECTIONS["`vcheck --json`"].keys() - SECTIONS["`check --json`"].keys() == {"theorem"}
    assert SECTIONS["`check --json`"].keys() <= SECTIONS["`vcheck --json`"].keys()
