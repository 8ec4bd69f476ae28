"""certify's import graph, read from the sources (tools/import_graph.py): no circle, no import
from a layer (a folder of certify/) into a later one (README's Layout), nothing importing the
command line but certify.__main__, and the reference search imported only by the engine."""

import importlib.util
import subprocess
import sys
from pathlib import Path

TOOL = Path(__file__).resolve().parent.parent / "tools" / "import_graph.py"


def test_the_import_graph_has_no_circle_and_nothing_upward():
    done = subprocess.run([sys.executable, str(TOOL), "--check"], capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("no circle")


def test_the_graph_shows_what_each_module_imports():
    done = subprocess.run([sys.executable, str(TOOL)], capture_output=True, text=True,
                          check=True)
    rows = {line.split()[0]: line.split("->")[1].split() for line in done.stdout.splitlines()
            if "->" in line}
    assert rows["__main__"] == ["commands.cli"]
    assert "outcome" not in rows  # the vocabulary imports nothing of certify's
    assert "engine" in rows["run.prove"] and "format.writer*" in rows["run.prove"]  # lazily
    assert not any("commands.cli" in targets for m, targets in rows.items() if m != "__main__")
    assert not any(t.startswith(("commands", "run")) for m, targets in rows.items()
                   if m.startswith(("game", "format", "engine")) for t in targets)


def test_inside_the_format_the_writer_and_the_reader_stay_apart():
    """The format's own order (INSIDE): an import of the same step or a later one is a fault, as
    is a module in none of its steps; the order as it stands is kept."""
    spec = importlib.util.spec_from_file_location("import_graph", TOOL)
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    f = "certify.format."
    edges = {f + "writer": {f + "reader", f + "spec"}, f + "reader": {f + "legacy"},
             f + "legacy": {f + "names"}, f + "names": set(), f + "spec": {f + "legacy"},
             f + "stray": set()}
    found = tool.faults(edges)   # (reader -> legacy and legacy -> names are in order)
    assert f"inside format/: {f}writer imports {f}reader, of its own step (INSIDE)" in found
    assert f"inside format/: {f}spec imports {f}legacy, of a later step (INSIDE)" in found
    assert f"{f}stray is in none of the steps of its folder (INSIDE)" in found
    assert len(found) == 3
    rows = {m: targets for m, targets in tool.graph().items() if m.startswith(f)}
    assert set(rows) == {f + m for m in ("legacy", "names", "ranges", "reader", "spec", "writer")}
    assert f + "legacy" in rows[f + "reader"] and f + "legacy" not in rows[f + "writer"]
