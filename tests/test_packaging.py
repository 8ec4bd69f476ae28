"""A plain `pip install .` (README's first command) must carry every package: pyproject.toml
lists them by hand, so a new folder under certify/ that is not listed would work in the editable
checkout the tests use and be missing from a plain install (certify.commands.census once was)."""
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_package_folder_is_listed_in_pyproject():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for top in ("certify", "check")
             for p in (ROOT / top).rglob("__init__.py")}
    assert found == listed


def scratch_copy(tmp_path):
    """The sources a build needs, without the compiled engine of this checkout."""
    for name in ("setup.py", "pyproject.toml"):
        shutil.copy(ROOT / name, tmp_path / name)
    for top in ("certify", "check"):
        shutil.copytree(ROOT / top, tmp_path / top,
                        ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__"))
    return tmp_path


def test_without_a_c_compiler_the_build_succeeds_and_version_says_why(tmp_path):
    src = scratch_copy(tmp_path)
    env = {**os.environ, "CC": str(tmp_path / "no-such-compiler")}
    env.pop("CERTIFY_ENGINE", None)
    build = subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--inplace"],
                           cwd=src, env=env, capture_output=True, text=True, timeout=300)
    assert build.returncode == 0, build.stderr
    for name in ("_search", "_solver"):
        assert f'building extension "certify.engine.{name}" failed' in build.stderr
    assert not list((src / "certify" / "engine").glob("*.so"))
    shown = subprocess.run([sys.executable, "-m", "certify", "--version"], cwd=src, env=env,
                           capture_output=True, text=True, timeout=60)
    assert shown.returncode == 0
    lines = shown.stdout.splitlines()
    assert re.fullmatch(r"certify \S+ \(engine: python\)", lines[0])
    assert lines[1].startswith("  the compiled engine is not built: ")
    assert "C compiler" in lines[2] and all(len(line) <= 80 for line in lines)
