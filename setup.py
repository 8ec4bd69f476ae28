"""The build: the pure-Python package, plus two optional C extensions (the compiled engine).

    certify.engine._search  certify/engine/search.c  exhaustive search and certificate writer
    certify.engine._solver  certify/engine/solver.c  best-first win solver

Both are optional: if a source is missing or the compiler fails, the install still succeeds
with a warning, and certify runs the reference engine in Python (certify/engine/__init__.py
says so once on stderr). Everything else about the package is in pyproject.toml.
"""

import os
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
FLAGS = ["-O2", "-std=c99", "-Wall"] if os.name != "nt" else []


def extension(name, source):
    return Extension(f"certify.engine.{name}", [source], depends=["certify/engine/zeroed.h"],
                     extra_compile_args=FLAGS)


SOURCES = {"_search": "certify/engine/search.c", "_solver": "certify/engine/solver.c"}
EXTENSIONS = [extension(name, src) for name, src in SOURCES.items()
              if os.path.exists(os.path.join(HERE, src))]


class OptionalBuildExt(build_ext):
    """build_ext that warns, instead of failing the install, when an extension cannot be built."""

    def run(self):
        try:
            super().run()
        except Exception as e:  # no compiler at all, missing headers, ...
            self.warn_slow(f"the compiled engine cannot be built ({e})")

    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except Exception as e:
            self.warn_slow(f"{ext.name} was not built ({e})")

    @staticmethod
    def warn_slow(message):
        print(f"WARNING: {message}; certify will run its slower Python engine.", file=sys.stderr)


setup(ext_modules=EXTENSIONS, cmdclass={"build_ext": OptionalBuildExt})
