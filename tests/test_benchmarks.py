"""The benchmarks' machine-readable output: benchmarks/report.py writes each figure as one JSON
object a line with the fields the README names, and every benchmark that uses it takes --help and
--json. Nothing here is timed (figures are benchmarks' business, not tests')."""

import importlib.util
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
REPORTING = ["bench_census.py", "bench_certify.py", "bench_check.py", "bench_closure.py",
             "bench_coq.py", "bench_counts.py",
             "bench_engine.py", "bench_external.py", "bench_generator.py", "bench_solver.py",
             "bench_vcheck.py"]


def load_report():
    spec = importlib.util.spec_from_file_location("report", BENCHMARKS / "report.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


report = load_report()


def printed(as_json, *lines):
    out = io.StringIO()
    r = report.Report("bench_x", as_json, out)
    for text, figures in lines:
        r.line(text, *figures)
    return out.getvalue().splitlines()


def test_human_lines_are_printed_as_given_and_nothing_else():
    f = report.figure("search", 0.5, "s", "engine.search(...)", 7)
    assert printed(False, ("search  median 0.500 s", [f]), ("a heading", [])) == \
        ["search  median 0.500 s", "a heading"]


def test_each_figure_is_one_json_line_with_the_fields():
    alone = report.figure("search", 0.123456789, "s", "engine.search(...)", 7, deal=11982)
    beside = report.figure("whole process wall", 0.078, "s", "certify 11982 -q -o X", 21,
                           versus="fc-solve -to 01ABCDE -sel 11982.board", versus_value=0.081,
                           ratio=0.96)
    lines = printed(True, ("heading without figures", []), ("two figures", [alone, beside]),
                    ("a peak", [report.figure("peak", 23, "MiB", "certify 11982", 1)]))
    records = [json.loads(line) for line in lines]
    assert len(records) == 3   # the heading printed nothing
    for record in records:
        assert set(report.FIELDS) <= set(record), record
        assert record["benchmark"] == "bench_x"
        assert isinstance(record["load"], float) and record["at"].endswith("Z")
    first, second, third = records
    assert first["value"] == 0.123457 and first["runs"] == 7 and first["statistic"] == "median"
    assert first["deal"] == 11982 and "versus" not in first and "ratio" not in first
    assert (second["versus"], second["versus_value"], second["ratio"]) == \
        ("fc-solve -to 01ABCDE -sel 11982.board", 0.081, 0.96)
    assert third["statistic"] == "single" and third["value"] == 23


def test_json_refuses_what_is_not_a_number():
    r = report.Report("bench_x", True, io.StringIO())
    with pytest.raises(ValueError):
        r.line("", report.figure("ratio", float("nan"), "x", "a / b"))


@pytest.mark.parametrize("script", REPORTING)
def test_help_names_json(script):
    done = subprocess.run([sys.executable, str(BENCHMARKS / script), "--help"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "--json" in done.stdout


def test_a_benchmark_prints_only_figures_with_json():
    """bench_census --synthetic on a small folder (about a second): every line a figure."""
    done = subprocess.run([sys.executable, str(BENCHMARKS / "bench_census.py"), "--synthetic",
                           "300", "--json"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in done.stdout.splitlines()]
    assert {r["measure"] for r in records} == {"range writer", "range writer peak memory",
                                               "range file", "extract the last deal"}
    assert all(r["benchmark"] == "bench_census" and set(report.FIELDS) <= set(r)
               for r in records)


def test_the_solver_benchmark_prints_the_same_figures_either_way():
    """bench_solver on three deals and its flares on 11982 (about a second each): with --json
    every line a figure, without it the human lines, and the two name the same results."""
    def run(*argv):
        done = subprocess.run([sys.executable, str(BENCHMARKS / "bench_solver.py"), *argv],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        return done.stdout.splitlines()

    human = run("3", "--engine", "native")
    assert human[0] == "deals 1..3, 4 free cells, budget 1,000,000 positions"
    assert human[3] == "          solved 3, gave up on 0"
    records = [json.loads(line) for line in run("3", "--engine", "native", "--json")]
    assert all(r["benchmark"] == "bench_solver" and set(report.FIELDS) <= set(r)
               for r in records)
    assert {r["measure"] for r in records} == {"CPU a deal", "CPU of all deals", "line length",
                                               "deals solved", "deals given up"}
    assert all((r["engine"], r["first"], r["last"]) == ("native", 1, 3) for r in records)
    solved = {r["measure"]: r["value"] for r in records if r["unit"] == "deals"}
    assert solved == {"deals solved": 3, "deals given up": 0}
    longest = [r["value"] for r in records
               if r["measure"] == "line length" and r["statistic"] == "max"]
    assert human[2].startswith("          lines: mean") and f"longest {longest[0]})" in human[2]

    flares = [json.loads(line) for line in run("--flares", "11982", "--json")]
    assert [(r["measure"], r.get("deal"), r.get("won_by")) for r in flares] == [
        ("main attempt CPU", 11982, "nothing"), ("flares CPU", 11982, "nothing"),
        ("main attempt and flares CPU", None, None), ("main attempt and flares CPU", None, None),
        ("main attempt and flares CPU", None, None)]
