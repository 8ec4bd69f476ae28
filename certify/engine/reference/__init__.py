"""The reference engine in Python: search.py the exhaustive search, solver.py the best-first
solver. The compiled engine is held to them; only certify/engine/__init__.py, the one face of
both, imports search.py."""
