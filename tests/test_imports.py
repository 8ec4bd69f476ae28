"""certify's import graph, read from the sources (tools/import_graph.py): no circle, no import
from a layer (a folder of certify/) into a later one (README's Layout), nothing importing the
command line but certify.__main__, and the reference search imported only by the engine."""

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
    assert "engine" in rows["run.prove"] and "format.certificate*" in rows["run.prove"]  # lazily
    assert not any("commands.cli" in targets for m, targets in rows.items() if m != "__main__")
    assert not any(t.startswith(("commands", "run")) for m, targets in rows.items()
                   if m.startswith(("game", "format", "engine")) for t in targets)
