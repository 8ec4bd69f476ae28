"""vcheck's Rules.v, derived from the Coq export's template (certify/exports/templates/Rules.v).

The template states the rules once, for the export and for vcheck. The export fills in three
per-file constants; vcheck proves its theorems for every value of them, so here the three
Definitions become Variables of a Section that spans the file, and nothing else changes: after
the Section closes, [start], [moves] and [Reachable] take the deal number, the number of free
cells and the foundation-moves rule as arguments. tests/test_vcheck.py checks that the output
differs from the template in exactly these lines.

Usage: python3 derive_rules.py TEMPLATE OUTPUT
"""

import sys

# What the template says, and what each line becomes.
PARAMETERS = {
    "Definition deal_number : N := 11982.": "Variable deal_number : N.",
    "Definition free_cells : nat := 4.": "Variable free_cells : nat.",
    "Definition foundation_moves : bool := false.": "Variable foundation_moves : bool.",
}
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


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: derive_rules.py TEMPLATE OUTPUT")
    try:
        with open(argv[1], encoding="utf-8") as f:
            out = derive(f.read())
    except (OSError, DeriveError) as e:
        sys.exit(f"derive_rules.py: {e}")
    with open(argv[2], "w", encoding="utf-8") as f:
        f.write(out)


if __name__ == "__main__":
    main(sys.argv)
