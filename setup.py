"""The build: the pure-Python package, plus three optional C extensions (the compiled engine).

    certify.engine._search    certify/engine/search.c    exhaustive search and certificate writer
    certify.engine._solver    certify/engine/solver.c    best-first win solver
    certify.engine._external  certify/engine/external.c  the exhaustive search on disk's loops

All are optional (setuptools' Extension(optional=True)): if a source is missing or the compiler
fails or is absent, the install still succeeds, with setuptools' warning that the extension
failed, and certify runs the reference engine in Python (certify/engine/__init__.py says so,
and `certify --version` says why); without _external the search stops at --memory instead of
going on on disk (certify/external.py). Everything else about the package is in pyproject.toml.
"""

import os

from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))
FLAGS = ["-O2", "-std=c99", "-Wall"] if os.name != "nt" else []


# Included by the C files (and so carried by an sdist, and a change to one rebuilds them).
HEADERS = ["certify/engine/cards.h", "certify/engine/columns.h", "certify/engine/zeroed.h",
           "certify/engine/move_order.h"]


def extension(name, source):
    return Extension(f"certify.engine.{name}", [source], depends=HEADERS,
                     extra_compile_args=FLAGS, optional=True,
                     libraries=["zstd"] if name == "_external" else [])  # (its work files)


SOURCES = {"_search": "certify/engine/search.c", "_solver": "certify/engine/solver.c",
           "_external": "certify/engine/external.c"}
EXTENSIONS = [extension(name, src) for name, src in SOURCES.items()
              if os.path.exists(os.path.join(HERE, src))]

setup(ext_modules=EXTENSIONS)
