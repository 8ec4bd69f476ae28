"""A census: prove every deal in a range, and write one range certificate for them all.

    certify A-B [-j N] [--out DIR] [-o FILE] [--scheduler ADDRESS] ...

The modules, one job each: chunks.py (the working state, a chunk file per block of deals),
work.py (proving a chunk, in this process, a process pool or on Dask), folder.py (the census
folder: settings, lock, results table, range certificate), command.py (the command line,
its progress drawn by certify/run/progress.py). The range certificate's format is
certify/format/ranges.py.
"""

from .command import main

__all__ = ["main"]
