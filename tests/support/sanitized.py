"""The compiled engine under a sanitizer of gcc's (tests/test_engine_asan.py: AddressSanitizer,
tests/test_engine_tsan.py: ThreadSanitizer): every C file of the three extensions (SOURCES:
setup.py's lists) built with -fsanitize=KIND into a scratch copy of the certify package, and
certify, or a script, run there in a child process with the sanitizer's runtime preloaded
(Python itself is not built with it). The sanitizer writes what it finds to files in the copy's
folder, which every run here reads: a run with a report fails, showing it."""
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
SOURCES = {"_search": ["search.c", "writer.c", "replay.c"], "_solver": ["solver.c"],
           "_external": ["external.c"]}   # (setup.py's lists)
RUNTIMES = {"address": ("libasan.so", "ASAN_OPTIONS"), "thread": ("libtsan.so", "TSAN_OPTIONS")}
LOG = "sanitizer"   # the reports' files in the copy's folder: sanitizer.<pid>


def runtime(kind):
    """gcc's runtime library of the sanitizer `kind`, or None where gcc or the library is
    missing (gcc then prints the bare name back)."""
    try:
        path = subprocess.run(["gcc", f"-print-file-name={RUNTIMES[kind][0]}"],
                              capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return path if os.path.isabs(path) and os.path.exists(path) else None


class Sanitized:
    """A scratch copy of the certify package in `top` whose engine is built with the sanitizer
    `kind`, run with its runtime options `options` (a colon-separated list)."""

    def __init__(self, top, kind, options):
        library = runtime(kind)
        if library is None:
            pytest.skip(f"gcc has no {RUNTIMES[kind][0]} (its {kind} sanitizer's runtime) here")
        self.top, self.variable = top, RUNTIMES[kind][1]
        shutil.copytree(ROOT / "certify", top / "certify",
                        ignore=shutil.ignore_patterns("*.so", "__pycache__"))
        engine = top / "certify" / "engine"
        include, suffix = sysconfig.get_paths()["include"], sysconfig.get_config_var("EXT_SUFFIX")
        for name, sources in SOURCES.items():
            subprocess.run(["gcc", "-shared", "-fPIC", f"-fsanitize={kind}",
                            "-fno-omit-frame-pointer", "-g", "-O1", "-std=c99", f"-I{include}",
                            *(str(engine / source) for source in sources),
                            *(["-lzstd"] if name == "_external" else []),  # (its work files)
                            "-o", str(engine / (name + suffix))], check=True, timeout=300)
        self.env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(top), str(ROOT / "tests")]),
                    "LD_PRELOAD": library, "CERTIFY_ENGINE": "native",
                    self.variable: f"{options}:log_path={top / LOG}"}
        # the copy's engine is the one a run loads (not the package installed from ROOT)
        where = self.child(["-c", "from certify.engine import _search, _solver, _external as x\n"
                                  "print(_search.__file__, _solver.__file__, x.__file__)"])
        said = self.reports()
        fatal = [line for line in "\n".join([where.stderr, *said]).splitlines()
                 if line.startswith("FATAL: ")]
        if where.returncode and fatal and not where.stdout:
            # A runtime that cannot start at all is this machine's limit, not the engine's fault
            # (ThreadSanitizer's, where the kernel maps memory where it does not expect it):
            # skipped, saying why.
            for path in self.top.glob(LOG + ".*"):
                path.unlink()
            pytest.skip(f"the {kind} sanitizer's runtime does not start here: {fatal[0]}")
        assert where.returncode == 0 and not said, (said or [where.stderr])[0][-3000:]
        assert all(path.startswith(str(top)) for path in where.stdout.split()), where.stdout

    def reports(self):
        """What the sanitizer reported, but for AddressSanitizer's warnings that an allocation
        was refused (what allocator_may_return_null asks for), whose files are taken away."""
        reports = []
        for path in self.top.glob(LOG + ".*"):
            text = path.read_text()
            if all("failed to allocate" in line for line in text.splitlines() if line.strip()):
                path.unlink()
            else:
                reports.append(text)
        return reports

    def child(self, args, options=""):
        """Python with `args` in the copy's folder, the sanitizer's `options` added to those
        given: the completed process."""
        env = dict(self.env, **{self.variable: f"{self.env[self.variable]}:{options}"}) \
            if options else self.env
        return subprocess.run([sys.executable, *map(str, args)], cwd=self.top, env=env,
                              capture_output=True, text=True, timeout=900)

    def run(self, args, options=""):
        """child(args, options), once the sanitizer is seen to have reported nothing."""
        done = self.child(args, options)
        reports = self.reports()
        assert not reports, reports[0][:6000]
        return done

    def certify(self, *args, exit_code=0, options=""):
        """certify's output for the command line `args`, which must end with `exit_code`."""
        done = self.run(["-m", "certify", *args], options)
        assert done.returncode == exit_code, done.stderr[-2000:]
        assert "Traceback" not in done.stderr, done.stderr[-2000:]
        return done.stdout

    def script(self, text, *args):
        """Run the Python program `text` with the arguments `args`: it must print "ok" alone."""
        done = self.run(["-c", text, *args])
        assert done.returncode == 0 and done.stdout == "ok\n", done.stderr[-2000:]
