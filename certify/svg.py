"""A deal drawn as SVG: eight columns of cards, some of them outlined.

Each card is a rounded rectangle showing its rank and suit symbol in the top-left corner (the
part that stays visible when cards overlap), red for diamonds and hearts, black for clubs and
spades. An outlined card gets a thick orange border and a tinted face. Each card is a group
`<g class="card" data-card="QC">` (class "card outlined" when outlined) so that programs (and the
tests) can read the picture back. The output depends only on its arguments: same input, same
bytes.
"""

from xml.sax.saxutils import escape

from .cards import RANKS, RED, name

SYMBOLS = "\u2663\u2666\u2665\u2660"  # clubs, diamonds, hearts, spades, in card-number order
CARD_W, CARD_H = 64, 90
STEP = 30  # how much of each covered card shows
GAP = 12
MARGIN = 20
LINE = 22  # caption line height
INK = {False: "#111111", True: "#c8102e"}  # black suits, red suits
OUTLINE = "#e8590c"


def label(card):
    rank = RANKS[card >> 2]
    return ("10" if rank == "T" else rank) + SYMBOLS[card & 3]


def card_svg(card, x, y, outlined, face_up):
    ink = INK[RED[card & 3]]
    cls = "card outlined" if outlined else "card"
    stroke, width, fill = (OUTLINE, 4, "#fff1e0") if outlined else ("#777777", 1, "#ffffff")
    parts = [f'<g class="{cls}" data-card="{name(card)}">',
             f'<rect x="{x}" y="{y}" width="{CARD_W}" height="{CARD_H}" rx="6" '
             f'fill="{fill}" stroke="{stroke}" stroke-width="{width}"/>',
             f'<text x="{x + 6}" y="{y + 22}" font-size="20" font-weight="bold" '
             f'fill="{ink}">{label(card)}</text>']
    if face_up:  # the top card of a column shows its suit large
        parts.append(f'<text x="{x + CARD_W // 2}" y="{y + 70}" font-size="34" '
                     f'text-anchor="middle" fill="{ink}">{SYMBOLS[card & 3]}</text>')
    parts.append("</g>")
    return "".join(parts)


def deal_svg(position, outlined=(), caption=()):
    """SVG text of a position's columns (bottom card at the top of the picture), the cards in
    `outlined` drawn outlined, under the lines of `caption`. Free cells and foundations, if not
    empty, are listed below the columns."""
    found, cells, columns = position
    outlined = set(outlined)
    tallest = max((len(c) for c in columns), default=0)
    width = 2 * MARGIN + 8 * CARD_W + 7 * GAP
    top = MARGIN + LINE * len(caption) + 24  # room for the caption and the column numbers
    bottom = top + (tallest - 1) * STEP + CARD_H if tallest else top
    notes = []
    if cells:
        notes.append("free cells: " + " ".join(label(c) for c in cells))
    if any(found):
        notes.append("foundations: " + " ".join(
            label((found[s] - 1) * 4 + s) for s in range(4) if found[s]))
    height = bottom + MARGIN + 24 * len(notes)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Arial, sans-serif">',
           f'<rect width="{width}" height="{height}" fill="#2e7d32"/>']
    for k, line in enumerate(caption):
        out.append(f'<text x="{MARGIN}" y="{MARGIN + 12 + LINE * k}" font-size="16" '
                   f'fill="#ffffff">{escape(line)}</text>')
    for j, column in enumerate(columns):
        x = MARGIN + j * (CARD_W + GAP)
        out.append(f'<text x="{x + CARD_W // 2}" y="{top - 8}" font-size="13" '
                   f'text-anchor="middle" fill="#ffffff">{j + 1}</text>')
        for k, card in enumerate(column):
            out.append(card_svg(card, x, top + k * STEP, card in outlined, k == len(column) - 1))
    for k, note in enumerate(notes):
        out.append(f'<text x="{MARGIN}" y="{bottom + 24 * (k + 1)}" font-size="16" '
                   f'fill="#ffffff">{escape(note)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


__all__ = ["deal_svg"]
