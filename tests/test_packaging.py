"""A plain `pip install .` (README's first command) must carry every package: pyproject.toml
lists them by hand, so a new folder under certify/ that is not listed would work in the editable
checkout the tests use and be missing from a plain install (certify.census once was)."""
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_package_folder_is_listed_in_pyproject():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for top in ("certify", "check")
             for p in (ROOT / top).rglob("__init__.py")}
    assert found == listed
