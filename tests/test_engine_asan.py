"""The compiled engine under AddressSanitizer: a use-after-free or an overflow in search.c or
solver.c fails here at its first bad access, where in a normal build it only corrupts the heap and
may crash a census worker much later (a realloc'd column table written through a stale pointer
once crashed deal 180,000-odd of a million-deal census and passed every other test).

The two C files are built with -fsanitize=address into a scratch copy of the package, and certify
runs there in a child process with the sanitizer's runtime preloaded: a no-win deal (the exhaustive
search and its writer) and a small census (the solver, many times). Skipped where gcc has no
AddressSanitizer runtime."""
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SOURCES = {"_search": "search.c", "_solver": "solver.c"}


def asan_runtime():
    try:
        path = subprocess.run(["gcc", "-print-file-name=libasan.so"], capture_output=True, text=True,
                              timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return path if os.path.isabs(path) and os.path.exists(path) else None


@pytest.fixture(scope="module")
def sanitized(tmp_path_factory):
    """A copy of the certify package whose engine is built with AddressSanitizer."""
    runtime = asan_runtime()
    if runtime is None:
        pytest.skip("gcc has no AddressSanitizer runtime here")
    top = tmp_path_factory.mktemp("asan")
    shutil.copytree(ROOT / "certify", top / "certify",
                    ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    engine = top / "certify" / "engine"
    include, suffix = sysconfig.get_paths()["include"], sysconfig.get_config_var("EXT_SUFFIX")
    for name, source in SOURCES.items():
        subprocess.run(["gcc", "-shared", "-fPIC", "-fsanitize=address", "-fno-omit-frame-pointer",
                        "-g", "-O1", "-std=c99", f"-I{include}", str(engine / source),
                        "-o", str(engine / (name + suffix))], check=True, timeout=300)
    env = {**os.environ, "PYTHONPATH": str(top), "LD_PRELOAD": runtime, "CERTIFY_ENGINE": "native",
           "ASAN_OPTIONS": f"detect_leaks=0:log_path={top / 'asan'}"}
    return top, env


def certify_in(sanitized, *args):
    top, env = sanitized
    done = subprocess.run([sys.executable, "-m", "certify", *map(str, args)], cwd=top, env=env,
                          capture_output=True, text=True, timeout=600)
    reports = [p.read_text() for p in top.glob("asan*")]
    assert not reports, reports[0][:3000]
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_the_sanitized_engine_is_the_one_running(sanitized):
    top, env = sanitized
    where = subprocess.run([sys.executable, "-c", "import certify.engine._search as s; print(s.__file__)"],
                           cwd=top, env=env, capture_output=True, text=True, timeout=60).stdout
    assert where.startswith(str(top))


def test_exhaustive_search_and_writer_under_asan(sanitized, tmp_path):
    out = certify_in(sanitized, 11982, "-o", tmp_path / "11982.msgpack.zst")
    assert "cannot be won" in out
    assert (tmp_path / "11982.msgpack.zst").read_bytes() == (ROOT / "certificates" / "11982.msgpack.zst").read_bytes()


def test_solver_under_asan(sanitized, tmp_path):
    out = certify_in(sanitized, "1-300", "-j", 1, "--out", tmp_path / "census")
    assert "300 won" in out
