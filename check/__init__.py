"""The small, independent, trusted checker of FreeCell certificates (see check/checker.py)."""
