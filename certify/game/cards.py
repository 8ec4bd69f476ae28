"""Cards as numbers: card = rank*4 + suit, ranks A..K as 0..12, suits in the order C D H S."""

RANKS = "A23456789TJQK"
SUITS = "CDHS"
RED = (False, True, True, False)  # diamonds and hearts are red


def name(card):
    """The two-character name of a card, e.g. 'TS' for the ten of spades."""
    return RANKS[card >> 2] + SUITS[card & 3]


def parse(text):
    """A card from its name: 'TS', '10S', 'ah' (case does not matter)."""
    t = text.strip().upper()
    if t.startswith("10"):
        t = "T" + t[2:]
    if len(t) != 2 or t[0] not in RANKS or t[1] not in SUITS:
        raise ValueError(f"not a card: {text!r}")
    return RANKS.index(t[0]) * 4 + SUITS.index(t[1])
