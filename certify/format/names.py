"""The default names of certificate files: one rule, for a deal's, a board's and a range's.

    11982.msgpack.zst                    deal 11982 under the default rules
    11982-cells5-fm-fixed.msgpack.zst    ... with the rules that differ spelled out
    endgame-cells1.board.msgpack.zst     a board file's (BOARD_MARK: never a deal's name)
    1-32000-cells3.msgpack.zst           a range certificate's (certify A-B)

The command line (certify/commands/options.py and its commands), the census, and the scripts that
publish certificates (certificates/) all name files through this module, so that a file made
one way is found by the others.
"""

CERTIFICATE_SUFFIX = ".msgpack.zst"
BOARD_MARK = ".board"  # in every default name made for a board, which a deal's never holds


def certificate_name(label, rules, board=False):
    """The default certificate file name: '11982.msgpack.zst', '11982-cells5.msgpack.zst', ...
    `label` is the deal number, or for a board file (`board`) its base name, and then the name
    says so ('endgame-cells1.board.msgpack.zst'), so that no board takes a deal's name."""
    return f"{label}{rules.suffix()}{BOARD_MARK if board else ''}{CERTIFICATE_SUFFIX}"


def range_name(first, last, rules):
    """A range certificate's default name: '1-32000.msgpack.zst', '1-32000-cells3.msgpack.zst'."""
    return certificate_name(f"{first}-{last}", rules)
