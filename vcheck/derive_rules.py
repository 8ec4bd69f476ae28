"""vcheck's Rules.v, derived from the Coq export's template (certify/commands/exports/templates/Rules.v).

The template states the rules once, for the export and for vcheck. The export fills in three
per-file constants; vcheck proves its theorems for every value of them, so here the three
Definitions become Variables of a Section that spans the file, and nothing else changes: after
the Section closes, [start], [moves] and [Reachable] take the deal number, the number of free
cells and the foundation-moves rule as arguments. tests/test_vcheck.py checks that the output
differs from the template in exactly these lines.

For a custom layout the export puts the start position in place of the deal's section; here
the same section becomes one Variable, the start position ([derive_board]), and the checker's
own files are derived for it by replacing the deal number with that position
([board_variant]).

Usage: python3 derive_rules.py TEMPLATE OUTDIR CHECK.v EXTRACT.v ASSUMPTIONS.v [MORE.v ...]
  writes OUTDIR/Rules.v, RulesBoard.v, CheckBoard.v, ExtractBoard.v, AssumptionsBoard.v (and
  MOREBoard.v for each further file, such as Autoplay.v)
"""

import sys

# What the template says, and what each line becomes.
PARAMETERS = {
    "Definition deal_number : N := 11982.": "Variable deal_number : N.",
    "Definition free_cells : nat := 4.": "Variable free_cells : nat.",
    "Definition foundation_moves : bool := false.": "Variable foundation_moves : bool.",
}
DEAL_FIRST = "(** * The deal, regenerated from its number"
DEAL_LAST = "Definition start : position := Position (Home 0 0 0 0) [] (deal deal_number)."
START_VARIABLE = "Variable start : position."
OPEN_AFTER = "Import ListNotations."
SECTION_OPEN = "Section Rules."
SECTION_CLOSE = "End Rules."


class DeriveError(Exception):
    """The template no longer has the text this transformation replaces."""


def derive(text):
    lines = text.split("\n")
    for old, new in PARAMETERS.items():
        if lines.count(old) != 1:
            raise DeriveError(f"expected the line {old!r} once, found it {lines.count(old)} times")
        lines[lines.index(old)] = new
    if lines.count(OPEN_AFTER) != 1:
        raise DeriveError(f"expected the line {OPEN_AFTER!r} once")
    lines.insert(lines.index(OPEN_AFTER) + 1, SECTION_OPEN)
    while lines and lines[-1] == "":
        lines.pop()
    return "\n".join(lines + [SECTION_CLOSE, ""])


def derive_board(text):
    """Rules for a start position given as data: the deal's section becomes [start]."""
    first, last = text.find(DEAL_FIRST), text.find(DEAL_LAST)
    if first < 0 or last < first or text.count(DEAL_LAST) != 1:
        raise DeriveError("no deal section to replace with the start position")
    text = text[:first] + START_VARIABLE + text[last + len(DEAL_LAST):]
    lines = text.split("\n")
    for old, new in PARAMETERS.items():
        if old.startswith("Definition deal_number"):
            continue
        if lines.count(old) != 1:
            raise DeriveError(f"expected the line {old!r} once, found it {lines.count(old)} times")
        lines[lines.index(old)] = new
    lines.insert(lines.index(OPEN_AFTER) + 1, SECTION_OPEN)
    while lines and lines[-1] == "":
        lines.pop()
    return "\n".join(lines + [SECTION_CLOSE, ""])


# How vcheck's own files become those of a start position given as data.
BOARD_EDITS = [
    # Verdict.v's name of the start: a custom layout is named by its file.
    ("""Definition who (deal_number : N) (name : String.string) : String.string :=
  if deal_number <? 2147483648 then "Microsoft FreeCell deal " ++ decimal deal_number
  else "FreeCell Pro's extended deal " ++ decimal deal_number.""",
     """Definition who (deal_number : position) (name : String.string) : String.string :=
  "the layout in " ++ name."""),
    ("From VCheck Require Import Verdict.", "From VCheck Require Import VerdictBoard."),
    # A range is of numbered deals: a custom layout's build has none.
    ("From VCheck Require Import Range.\n", ""),
    ("Print Assumptions range_verdict_sound.\n", ""),
    (" Range.entry_result Range.range_verdict", ""),
    ("From VCheck Require Import Rules Check.", "From VCheck Require Import RulesBoard CheckBoard."),
    ("From VCheck Require Import Rules.", "From VCheck Require Import RulesBoard."),
    ("From VCheck Require Import Check.", "From VCheck Require Import CheckBoard."),
    ("From VCheck Require Import Autoplay.", "From VCheck Require Import AutoplayBoard."),
    ("From VCheck Require Import Deal.\n", ""),   # (the numbered deal's faster start)
    ("  rewrite <- start_of_eq.\n", ""),
    ("  rewrite start_of_eq in H.\n", ""),
    ("start_of deal_number", "deal_number"),
    ("start deal_number", "deal_number"),
    ("Variable deal_number : N.", "Variable deal_number : position."),
    ("(deal_number : N)", "(deal_number : position)"),
    ('Extraction "vcheck_core.ml"', 'Extraction "vcheck_board.ml"'),
]


# Extract.v's realisers of the numbered deal's generator: a custom layout has no deal, so its
# extraction loads neither Deal.v nor them. The block runs from this line to the blank line.
DEAL_REALISERS = "From VCheck Require Deal.\n"


# Assumptions.v's last block: the lemmas shipped with the rules (coq/Lemmas.v, Supermove.v,
# Sentences.v), about Rules.v's deal and moves and the numbered deals' sentences. RulesBoard.v
# has no deal and states the same moves, and a layout's sentence names its file: a custom
# layout's list leaves them out. The block runs from this line to the end.
LEMMAS = "From VCheck Require Import Lemmas.\n"


def board_variant(text):
    for old, new in BOARD_EDITS:
        text = text.replace(old, new)
    if (first := text.find(DEAL_REALISERS)) >= 0:
        text = text[:first] + text[text.index("\n\n", first) + 2:]
    if (first := text.find(LEMMAS)) >= 0:
        text = text[:first]
    return text


def main(argv):
    if len(argv) < 6:
        sys.exit("usage: derive_rules.py TEMPLATE OUTDIR CHECK.v EXTRACT.v ASSUMPTIONS.v "
                 "[MORE.v ...]")
    template, outdir, *own = argv[1:]
    try:
        with open(template, encoding="utf-8") as f:
            rules = f.read()
        outputs = {"Rules.v": derive(rules), "RulesBoard.v": derive_board(rules)}
        for path in own:
            with open(path, encoding="utf-8") as f:
                name = path.rsplit("/", 1)[-1].replace(".v", "Board.v")
                outputs[name] = board_variant(f.read())
    except (OSError, DeriveError) as e:
        sys.exit(f"derive_rules.py: {e}")
    for name, text in outputs.items():
        with open(f"{outdir}/{name}", "w", encoding="utf-8") as f:
            f.write(text)


if __name__ == "__main__":
    main(sys.argv)
