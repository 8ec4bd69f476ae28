"""A position drawn as SVG: the free cells and foundations as slots above eight columns.

Each card is a rounded rectangle showing its rank and suit symbol in the top-left corner (the
part that stays visible when cards overlap), red for diamonds and hearts, black for clubs and
spades. Marks are drawn inside a card's edge, so a marked card covered by others shows its mark
only where it is itself visible: an *outlined* card (the cards that never move) gets a thick
orange border and a tinted face; the *closest* card (the frozen card closest to moving) a blue
border and a blue badge. Empty slots are dashed outlines; an empty foundation shows its suit.

Programs (and the tests) can read the picture back: each card is a group
`<g class="card" data-card="QC" data-place="column 4">` (class "card outlined", "card outlined
closest"; place "column N", "free cell N" or "foundation"), each empty slot a group
`<g class="slot">` with data-place "free cell N", "foundation S" or (an empty column) "column N";
the caption's lines are `<text class="caption">`. The output depends only on the arguments:
same input, same bytes.
"""

import textwrap
from xml.sax.saxutils import escape

from ..game.cards import RANKS, RED, SUITS, name

SYMBOLS = "\u2663\u2666\u2665\u2660"  # clubs, diamonds, hearts, spades, in card-number order
CARD_W, CARD_H = 64, 90
STEP = 30  # how much of each covered card shows
GAP = 12
PITCH = CARD_W + GAP
MARGIN = 20
CAPTION_SIZE = 15
LINE = 21  # caption line height
CHAR_W = 0.53 * CAPTION_SIZE  # a caption character's width, on average, in DejaVu Sans
INK = {False: "#111111", True: "#c8102e"}  # black suits, red suits
OUTLINE, OUTLINE_FACE = "#e8590c", "#fff1e0"
CLOSEST = "#1565c0"
MARK = 4  # width of a mark's border, drawn inside the card's edge
FELT, SLOT_LINE = "#2e7d32", "#a5d6a7"


def label(card):
    rank = RANKS[card >> 2]
    return ("10" if rank == "T" else rank) + SYMBOLS[card & 3]


def card_svg(card, x, y, place, outlined=False, closest=False, face_up=True):
    ink = INK[RED[card & 3]]
    cls = "card" + (" outlined" if outlined else "") + (" closest" if closest else "")
    fill = OUTLINE_FACE if outlined else "#ffffff"
    parts = [f'<g class="{cls}" data-card="{name(card)}" data-place="{place}">',
             f'<rect x="{x}" y="{y}" width="{CARD_W}" height="{CARD_H}" rx="6" '
             f'fill="{fill}" stroke="#777777" stroke-width="1"/>']
    if outlined or closest:
        h = MARK / 2  # the stroke straddles its line: inset by half its width to stay inside
        parts.append(f'<rect x="{x + h}" y="{y + h}" width="{CARD_W - MARK}" '
                     f'height="{CARD_H - MARK}" rx="5" fill="none" '
                     f'stroke="{CLOSEST if closest else OUTLINE}" stroke-width="{MARK}"/>')
    parts.append(f'<text x="{x + 7}" y="{y + 22}" font-size="20" font-weight="bold" '
                 f'fill="{ink}">{label(card)}</text>')
    if closest:  # a badge in the visible strip, so it shows even when the card is covered
        parts.append(f'<circle cx="{x + CARD_W - 15}" cy="{y + 15}" r="9" fill="{CLOSEST}"/>'
                     f'<text x="{x + CARD_W - 15}" y="{y + 20}" font-size="13" '
                     f'font-weight="bold" text-anchor="middle" fill="#ffffff">\u2191</text>')
    if face_up:  # a card nothing covers shows its suit large
        parts.append(f'<text x="{x + CARD_W // 2}" y="{y + 70}" font-size="34" '
                     f'text-anchor="middle" fill="{ink}">{SYMBOLS[card & 3]}</text>')
    parts.append("</g>")
    return "".join(parts)


def slot_svg(x, y, place, hint=""):
    parts = [f'<g class="slot" data-place="{place}">',
             f'<rect x="{x}" y="{y}" width="{CARD_W}" height="{CARD_H}" rx="6" fill="none" '
             f'stroke="{SLOT_LINE}" stroke-width="1.5" stroke-dasharray="5 4"/>']
    if hint:
        parts.append(f'<text x="{x + CARD_W // 2}" y="{y + 58}" font-size="30" '
                     f'text-anchor="middle" fill="{SLOT_LINE}">{hint}</text>')
    parts.append("</g>")
    return "".join(parts)


def deal_svg(position, outlined=(), caption=(), ncells=4, closest=None):
    """SVG text of a position: `caption`'s lines (wrapped to the picture's width), then a row
    of `ncells` free-cell slots and the four foundations, then the eight columns (bottom card at
    the top of the picture). Cards in `outlined` are outlined; `closest`, if given, is marked."""
    found, cells, columns = position
    outlined = set(outlined)
    slots_across = max(8, ncells + 4)
    width = 2 * MARGIN + slots_across * PITCH - GAP
    lines = [piece for line in caption
             for piece in textwrap.wrap(line, int((width - 2 * MARGIN) / CHAR_W)) or [""]]
    slots_top = MARGIN + LINE * len(lines) + 22  # room for the slot labels
    top = slots_top + CARD_H + 34  # room for the column numbers
    tallest = max((len(c) for c in columns), default=0)
    height = top + max(tallest - 1, 0) * STEP + CARD_H + MARGIN
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Arial, sans-serif">',
           f'<rect width="{width}" height="{height}" fill="{FELT}"/>']
    for k, line in enumerate(lines):
        out.append(f'<text class="caption" x="{MARGIN}" y="{MARGIN + 12 + LINE * k}" '
                   f'font-size="{CAPTION_SIZE}" fill="#ffffff">{escape(line)}</text>')

    def group_label(x, text):
        out.append(f'<text x="{x}" y="{slots_top - 7}" font-size="12" fill="#ffffff">'
                   f'{text}</text>')

    if ncells:
        group_label(MARGIN, "free cells")
    for i in range(ncells):
        x = MARGIN + i * PITCH
        if i < len(cells):
            out.append(card_svg(cells[i], x, slots_top, f"free cell {i + 1}"))
        else:
            out.append(slot_svg(x, slots_top, f"free cell {i + 1}"))
    first = slots_across - 4
    group_label(MARGIN + first * PITCH, "foundations")
    for k, s in enumerate((2, 0, 1, 3)):  # hearts, clubs, diamonds, spades, as boards list them
        x = MARGIN + (first + k) * PITCH
        if found[s]:
            out.append(card_svg((found[s] - 1) * 4 + s, x, slots_top, "foundation"))
        else:
            out.append(slot_svg(x, slots_top, f"foundation {SUITS[s]}", SYMBOLS[s]))

    left = MARGIN + (slots_across - 8) * PITCH // 2  # the columns centred under the slots
    for j, column in enumerate(columns):
        x = left + j * PITCH
        out.append(f'<text x="{x + CARD_W // 2}" y="{top - 8}" font-size="13" '
                   f'text-anchor="middle" fill="#ffffff">{j + 1}</text>')
        if not column:
            out.append(slot_svg(x, top, f"column {j + 1}"))
        for k, card in enumerate(column):
            out.append(card_svg(card, x, top + k * STEP, f"column {j + 1}", card in outlined,
                                card == closest, k == len(column) - 1))
    out.append("</svg>")
    return "\n".join(out) + "\n"


__all__ = ["deal_svg", "label"]
