"""The web page's checker under Node, in the quick tier: web/checker.js as web/build.sh leaves it
(.ci/run builds it before the tests) on 11982 and two bad certificates, each line and exit code
as vcheck's (vcheck/_build/vcheck, which .ci/run also builds). tests/test_web.py, in the full
tier, builds the page afresh and compares it with vcheck on every published, bad and hostile
file it tries, and in headless Chromium."""

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
WEB = ROOT / "web"
VCHECK = ROOT / "vcheck" / "_build" / "vcheck"


@pytest.fixture(scope="module")
def built():
    if shutil.which("node") is None:
        pytest.skip("the page's checker runs under Node here (.ci/run installs nodejs)")
    checker = WEB / "checker.js"
    if not checker.exists() or not VCHECK.exists():
        pytest.skip("web/checker.js or vcheck/_build/vcheck is not built (vcheck/build.sh, then "
                    "web/build.sh; .ci/run runs both)")
    sources = [*WEB.glob("src/*"), *WEB.glob("vendor/*"), *WEB.glob("coq/*.v"),
               *(ROOT / "vcheck" / "ocaml").glob("*.ml")]
    if any(p.stat().st_mtime > checker.stat().st_mtime for p in sources):
        pytest.skip("web/checker.js is older than web/'s sources: rerun web/build.sh")
    return checker


@pytest.mark.parametrize("path", [
    ROOT / "certificates" / "11982.msgpack.zst",
    ROOT / "tests" / "bad-certificates" / "win-illegal-move.msgpack.zst",
    ROOT / "tests" / "bad-certificates" / "not-zstd.msgpack.zst"], ids=lambda p: p.name)
def test_the_pages_checker_prints_vcheck_lines(built, path):
    # (vcheck is given the file's name, in its folder, as the page is given a file)
    page = subprocess.run(["node", str(WEB / "node-check.js"), path.name], capture_output=True,
                          text=True, cwd=path.parent)
    native = subprocess.run([str(VCHECK), path.name], capture_output=True, text=True,
                            cwd=path.parent)
    assert page.stdout, page.stderr
    assert (page.returncode, page.stdout) == (native.returncode, native.stdout)
    assert page.returncode == (0 if path.parent.name == "certificates" else
                               1 if path.name.startswith("win-") else 2)
