"""README.md's examples, run: what they are quoted as printing is what the program prints, so
that the page cannot go stale. Only quick commands are run (a few seconds in all)."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
BIN = Path(sys.executable).parent  # the environment's `certify` and `check`
TIME = re.compile(r"\[[0-9]+\.[0-9]+ s\]")  # a run's wall time, which no page can quote


def run(command, cwd):
    """Run a README command line (`certify ...` or `check ...`) in `cwd`: its stdout + stderr."""
    words = command.split()
    done = subprocess.run([str(BIN / words[0]), *words[1:]], capture_output=True, text=True,
                          cwd=cwd, timeout=120)
    assert done.returncode == 0, (command, done.stderr)
    return done.stdout + done.stderr


def code_block_after(marker):
    """The lines of the first indented block after the paragraph holding `marker`."""
    lines = README[README.index(marker):].splitlines()
    start = next(k for k, line in enumerate(lines) if line.startswith("    "))
    block = []
    for line in lines[start:]:
        if not line.startswith("    ") and line.strip():
            break
        block.append(line[4:])
    return [line for line in block if line.strip()]


def commands():
    """{command: comment} of README's list of commands."""
    listed = {}
    for line in code_block_after("## Commands"):
        command, _, comment = line.partition("#")
        listed[" ".join(command.split())] = comment.strip()
    return listed


def matches(quoted, printed):
    """Whether the quoted lines are the printed ones, a quoted '...' standing for any lines
    (none or more) and times [N s] for any time."""
    pattern = "".join(r"(?:.*\n)*?" if line == "..." else
                      TIME.pattern.join(map(re.escape, TIME.split(line))) + r"\n"
                      for line in quoted)
    return re.match(pattern + r"(?:.*\n)*\Z", printed) is not None


def test_the_notation_example_is_what_certify_prints(tmp_path):
    quoted = code_block_after("`certify 1 --notation` prints the win")
    printed = run("certify 1 --notation", tmp_path)
    assert matches(quoted, printed), f"README quotes:\n{chr(10).join(quoted)}\nprinted:\n{printed}"
    # And the line the list of commands begins for it.
    begun = re.search(r"\(([0-9a-h ]+) \.\.\.\)", commands()["certify 1 --notation"])[1]
    notation = printed[printed.index("In standard notation"):].split("\n", 1)[1]
    assert " ".join(notation.split()).startswith(begun)


@pytest.mark.parametrize("command", ["certify 11982", "certify 11982 --cells 5",
                                     "certify 1 --notation"])
def test_the_list_of_commands_says_what_they_print(command, tmp_path):
    comment = commands()[command]
    printed = run(command, tmp_path)
    claim = re.match(r"(NO WIN|WIN):", comment)
    if claim:
        assert printed.startswith(claim[0])
    # Every figure and file name the comment gives is in what the command prints.
    facts = [w.strip(",;()") for w in comment.split() if re.search(r"[0-9]", w)]
    facts = [f for f in facts if not re.fullmatch(r"[0-9][a-h]", f)]  # moves: tested above
    assert all(f in printed for f in facts), (facts, printed)
    for name in re.findall(r"[0-9A-Za-z-]+\.msgpack\.zst", comment):
        assert (tmp_path / name).exists()


def test_check_is_quoted_as_it_speaks(tmp_path):
    run("certify 11982 -q", tmp_path)
    quoted = commands()["check 11982.msgpack.zst"]
    printed = run("check 11982.msgpack.zst", tmp_path)
    assert re.match(re.escape(quoted).replace(r"\.\.\.", ".*"), printed, re.S), printed


def test_the_default_names_of_boards_are_those_quoted(tmp_path):
    (tmp_path / "endgame.txt").write_text(run("certify show 11982", tmp_path))
    pairs = re.findall(r"`(\S+\.board\.msgpack\.zst)` for\s+`(?:--board )?(\S+)`", README)
    assert {name for name, _ in pairs} == {"endgame.board.msgpack.zst", "stdin.board.msgpack.zst"}
    for name, given in pairs:
        board = tmp_path / "endgame.txt"
        subprocess.run([str(BIN / "certify"), "--board", "-" if given == "-" else str(board),
                        "-q"], stdin=board.open(), capture_output=True, cwd=tmp_path, check=True)
        assert (tmp_path / name).exists(), name


def test_the_dask_example_listens_on_loopback_only():
    lines = code_block_after("### A census on a Dask cluster")
    dask = [line for line in lines if line.startswith("dask ")]
    assert [line.split()[1] for line in dask] == ["scheduler", "worker"]
    for line in dask:
        assert "--host 127.0.0.1" in line and "--dashboard-address 127.0.0.1:" in line, line
    assert "Open it to a cluster only on purpose" in " ".join(README.split())


def test_the_test_commands_are_the_tiers_ci_runs():
    """README's test command is the quick tier and .ci/run runs it exactly, then the full tier;
    no hand-written count or time that goes stale (each run prints its slowest tests)."""
    words = " ".join(README.split())
    quick = "python3 -m venv .venv && .venv/bin/pip install -q -e '.[test,dask]' && " \
            ".venv/bin/python -m pytest -q -m 'not slow and not full'"
    full = ".venv/bin/python -m pytest -q -m 'full and not slow'"
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert f"    {quick}" in README.splitlines()   # (a code block of its own)
    assert ci.index(quick) < ci.index(full) and full in words
    assert not re.search(r"take about \d+ minutes|\d[\d,]* tests in \d+ s", words)
    assert "The Coq tests need `coqc`" in words and "they fail rather than skip" in words


def test_every_option_of_check_is_in_the_readme():
    """README's paragraph on check names every option `check --help` lists (--byte-moves and
    --byte-positions were once missing): an option added to check must be added there."""
    shown = subprocess.run([str(BIN / "check"), "--help"], capture_output=True, text=True,
                           check=True).stdout
    options = set(re.findall(r"(?<![\w-])(--?[a-z][a-z-]*)", shown.split("options:", 1)[1]))
    assert {"--byte-moves", "--byte-positions", "--deal", "-j", "--jobs"} <= options
    paragraph = README[README.index("`check` is a second"):README.index("A verified file's line")]
    missing = {o for o in options - {"-h", "--help", "--jobs", "--quiet"}   # (-j, -q named)
               if not re.search(rf"(?<![\w-]){re.escape(o)}(?![\w-])", paragraph)}
    assert not missing, f"README does not name check's {sorted(missing)}"


def test_no_hand_written_test_count_or_time():
    """A test run's count or time written by hand goes stale: the runs print their own
    (--durations). No sentence of README.md or benchmarks/README.md about the tests gives one."""
    pages = [README, (ROOT / "benchmarks" / "README.md").read_text(encoding="utf-8")]
    for page in pages:
        for sentence in re.split(r"(?<=[.;])\s", " ".join(page.split())):
            if re.search(r"\b(pytest|tests?|test run|test suite)\b", sentence):
                assert not re.search(r"\b\d[\d,.]*\s?(s|min|minutes|seconds|hours?)\b"
                                     r"|\b\d[\d,]* tests\b", sentence), sentence
