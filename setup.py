"""The build: the pure-Python package, plus three optional C extensions (the compiled engine).

    certify.engine._search    certify/engine/search.c    exhaustive search (and its binding)
                              certify/engine/writer.c    the no-win certificate's body
                              certify/engine/replay.c    a line's replay and move indices
    certify.engine._solver    certify/engine/solver.c    best-first win solver
    certify.engine._external  certify/engine/external.c  the exhaustive search on disk's loops

All are optional (setuptools' Extension(optional=True)): if a source is missing or the compiler
fails or is absent, the install still succeeds, with setuptools' warning that the extension
failed, and certify runs the reference engine in Python (certify/engine/__init__.py says so,
and `certify --version` says why); without _external the search stops at --memory instead of
going on on disk (certify/engine/on_disk.py). Everything else about the package is in pyproject.toml.
"""

import os

from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))
FLAGS = ["-O2", "-std=c99", "-Wall"] if os.name != "nt" else []
# The solver is a census deal's cost, and -O3 (loop unrolling and vectorising of its per-child
# work) runs it in about 5% fewer instructions with the same lines; the other two were not
# measured to gain.
FAST = {"_solver": ["-O3"]} if os.name != "nt" else {}


# Included by the C files (and so carried by an sdist, and a change to one rebuilds them).
HEADERS = ["certify/engine/cards.h", "certify/engine/columns.h", "certify/engine/ids.h",
           "certify/engine/zeroed.h", "certify/engine/move_order.h", "certify/engine/writer.h",
           "certify/engine/replay.h", "certify/engine/rules.h", "certify/engine/successors.h"]

# Each extension's C files, its module's first (tests/support/sanitized.py builds the same lists).
SOURCES = {"_search": ["certify/engine/search.c", "certify/engine/writer.c",
                       "certify/engine/replay.c"],
           "_solver": ["certify/engine/solver.c"],
           "_external": ["certify/engine/external.c"]}


def extension(name, sources):
    return Extension(f"certify.engine.{name}", sources, depends=HEADERS,
                     extra_compile_args=FLAGS + FAST.get(name, []), optional=True,
                     libraries=["zstd"] if name == "_external" else [])  # (its work files)


EXTENSIONS = [extension(name, sources) for name, sources in SOURCES.items()
              if all(os.path.exists(os.path.join(HERE, src)) for src in sources)]

setup(ext_modules=EXTENSIONS)
