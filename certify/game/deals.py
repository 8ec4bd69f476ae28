"""Microsoft FreeCell deals: deal numbers 1 .. 2**33-1, as numbered by FreeCell Pro.

The number seeds the Microsoft C runtime rand(); a draw-and-backfill shuffle of the
52 cards then deals them round-robin onto eight columns, the first eight at the bottom.

This is the reference: certify/engine/solver.c deals the same way (deal_board) for a census,
which gives it deal numbers, and tests/test_solver_native.py holds the two to the same
deals, on both sides of 2^31 and 2^32.
"""

from .cards import name

MAX_DEAL = 2**33 - 1


def ms_rand(n):
    """The stream of rand() values that deal number n draws from."""
    if n < 2**32:
        state = n
        high = 0x8000 if n >= 2**31 else 0  # FreeCell Pro's extension past 2**31
        while True:
            state = (state * 214013 + 2531011) & 0xFFFFFFFF
            yield ((state >> 16) & 0x7FFF) | high
    else:
        state = n - 2**32
        while True:
            state = (state * 214013 + 2531011) & 0xFFFFFFFF
            yield ((state >> 16) & 0xFFFF) + 1


def check_deal_number(n):
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_DEAL:
        raise ValueError(f"deal number must be a whole number from 1 to {MAX_DEAL}, not {n!r}")


def deal(n):
    """The eight columns of deal n, each a tuple of cards from bottom to top."""
    check_deal_number(n)
    deck = list(range(52))
    columns = [[] for _ in range(8)]
    rand = ms_rand(n)
    for i in range(52):
        j = next(rand) % len(deck)
        columns[i % 8].append(deck[j])
        deck[j] = deck[-1]
        deck.pop()
    return tuple(tuple(c) for c in columns)


def rows(columns):
    """The layout as rows of card names, row k holding the k-th card of each column."""
    height = max(len(c) for c in columns)
    return [" ".join(name(c[k]) for c in columns if k < len(c)) for k in range(height)]
