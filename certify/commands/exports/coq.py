"""A certificate as one self-contained Coq file (Coq 8.16, standard library only).

The Coq text lives in real .v files in templates/, which a Coq reader can open and compile on
their own (tests/test_export_coq.py does); this module only joins them and fills in what
changes from file to file. A line that ends with TEMPLATE_ONLY (the imports that let a
template compile alone) is dropped.

  Rules.v     what a reader must trust: cards, the deal, positions, moves, Reachable, Won
              (written for deal 11982 under the default rules; the header comment, the deal
              number, free_cells and foundation_moves are replaced, and for a custom layout the
              deal gives way to Board.v)
  Equality.v  boolean equality of positions and [won], with their lemmas
  NoWin.v     moves commute with permuting the columns; a canonical order of columns; a set
              of positions (a trie); an autoplay file leaves out the permuting, which only
              Search.v's proof uses (REORDERING_CUTS)
  Search.v    the search the kernel runs and why its answer proves the theorem (a plain
              closure: every move)
  Autoplay.v  in Search.v's place for a certificate closed under every move then safe
              autoplay (header key closure): why such a set covers every reachable
              position, and the search that autoplays each position it finds (where a
              move may have left a safe card)
  Final.v     the seeds (empty, or the certificate's positions), the computation, the theorem
  Win.v       for a win: the line of positions, the check, the theorem

No-win files come in two methods, both ending in `forall s, Reachable s -> ~ Won s` through
the same search (NoWin.v): "search" gives it no data, so the kernel's virtual machine finds
the positions itself from the start; "data" seeds it with the certificate's positions, and
the check is that it finds nothing more. Either way the count it must end with is the
certificate's (positions up to column order). benchmarks/bench_coq.py measures both.

The theorem is the same for both closures: Rules.v, and so what a reader trusts, does not
change. A plain certificate's file is Search.v's, byte for byte what it was before autoplay
existed; an autoplay certificate's swaps in Autoplay.v, which proves once, by induction, that
its smaller set still covers every position reachable by single-card moves, so the kernel
searches fewer positions (deal 11982: 61,643 against 83,239).
"""

import textwrap
from pathlib import Path
from string import Template

from ...game.board import describe

TEMPLATES = Path(__file__).with_name("templates")
TEMPLATE_ONLY = "(* template only *)"
METHODS = ("search", "data")

# What the templates say for deal 11982 under the default rules, replaced in each file.
DEAL_LINE = "Definition deal_number : N := 11982."
CELLS_LINE = "Definition free_cells : nat := 4."
BACK_LINE = "Definition foundation_moves : bool := false."
DEAL_FIRST = "(** * The deal, regenerated from its number"
DEAL_LAST = "Definition start : position := Position (Home 0 0 0 0) [] (deal deal_number)."
SEEDS_LINE = "Definition seeds : list position := []."
LINE_LINE = "Definition line : list position := []."
SAMPLE_RESULT = "(1%N, 83239%N)"
SAMPLE_THEOREM = "deal_11982_unwinnable"
SAMPLE_WIN_THEOREM = "deal_11982_winnable"

PART_SIZE = 1000  # positions per definition in the data

# What an autoplay file leaves out of NoWin.v: the theory of reordered columns, which only
# Search.v's proof uses (Autoplay.v takes columns as a multiset, with Permutation), so that
# coqc need not check it. Each cut runs from its first text up to (not including) its second.
REORDERING_HEAD = "(** * Columns by number, and the rules' moves spelled out *)\n\n"
REORDERING_CUTS = [
    ("(** * The rules never look at the order of the columns", "Lemma set_column_0 "),
    ("Lemma eqb_injective ", "(** Membership in [pickups], [putdowns] and [moves]"),
    ("(** A card picked up from column [i] of a position", "(** * The same moves, computed faster"),
    ("Lemma same_up_to_order_canonical ", "(** * A set of positions: a trie"),
]


class TemplateError(AssertionError):
    """A template no longer has the text this module fills in (a bug here, not bad input)."""


def template(name):
    text = (TEMPLATES / name).read_text(encoding="utf-8")
    return "".join(line for line in text.splitlines(keepends=True)
                   if not line.rstrip().endswith(TEMPLATE_ONLY))


def replace(text, old, new, count=1, where=""):
    if text.count(old) != count:
        raise TemplateError(f"{where}: expected {old!r} {count} time(s), found {text.count(old)}")
    return text.replace(old, new)


def without_reordering(text):
    """NoWin.v for an autoplay file: without REORDERING_CUTS, under REORDERING_HEAD."""
    for i, (first, last) in enumerate(REORDERING_CUTS):
        a, b = text.find(first), text.find(last)
        if a < 0 or b < a or text.count(first) != 1:
            raise TemplateError(f"NoWin.v: no {first!r} ... {last!r} to leave out")
        text = text[:a] + (REORDERING_HEAD if i == 0 else "") + text[b:]
    return text


def header_comment(title, filename, start_what, untrusted, note):
    paragraphs = [
        f"Written by certify export --coq for Coq 8.16 (Debian's coq package), standard "
        f"library only.  Check it with:  coqc {filename}",
        f"What a reader must trust is the first part of this file, up to the line that says "
        f"nothing below it needs to be trusted: the cards, {start_what}, positions, [moves] "
        f"(the rules), [Reachable], [Won], and the statement of the final theorem; and Coq's "
        f"kernel with its virtual machine, which runs the computation at the end.",
        untrusted + "  Print Assumptions at the end shows that the theorem depends on no axiom.",
        note, TRUSTED_LINES]
    body = "\n\n".join(textwrap.fill(p, 92, initial_indent="    ", subsequent_indent="    ",
                                      break_on_hyphens=False)
                        for p in paragraphs)
    return f"(** {title}\n\n{body} *)"


TRUSTED_LINES = "Trusted: lines @A-@B, and the statement of the theorem on line @C."
DIVIDER = "    Nothing below this line needs to be trusted, only the final theorem's statement."


def number_trusted_lines(text, theorem):
    """Fill in TRUSTED_LINES: from the first line after the header to the divider's comment,
    and the final theorem's statement. Its paragraph is one short line, so the numbers never
    change how the header wraps."""
    lines = text.split("\n")
    first = next(i for i, line in enumerate(lines) if line.startswith("From Coq Require")) + 1
    last = lines.index(DIVIDER) + 2  # the divider comment's last line
    statement = next(i for i, line in enumerate(lines) if line.startswith(f"Theorem {theorem} ")) + 1
    return text.replace("@A", str(first), 1).replace("@B", str(last), 1).replace("@C", str(statement), 1)


def theorem_name(deal, claim="no-win"):
    what = f"deal_{deal}" if deal is not None else "board"
    return f"{what}_unwinnable" if claim == "no-win" else f"{what}_winnable"


def numbers(cards, sep="; "):
    return sep.join(str(c) for c in cards)


def board_start(start):
    found, cells, cols = start
    return Template(template("Board.v")).substitute(
        board_text=describe(start, "      "), home=" ".join(str(n) for n in found),
        cells=numbers(cells), columns=";\n       ".join(f"[{numbers(col)}]" for col in cols))


def rules_section(head, start, title, filename, untrusted, note):
    """Rules.v for this file: its header, its start, its rules."""
    deal = head["deal"]
    setting = (f"{head['cells']} free cells, single-card moves" +
               (", foundation moves allowed" if head["foundation_moves"] else ""))
    start_what = ("the deal (regenerated from its number)" if deal is not None else
                  "the start position")
    text = template("Rules.v")
    if not text.startswith("(**"):
        raise TemplateError("Rules.v: does not open with its comment")
    text = header_comment(f"{title}  ({setting})", filename, start_what, untrusted, note) + \
        text[text.index("*)") + 2:]
    text = replace(text, CELLS_LINE, f"Definition free_cells : nat := {head['cells']}.",
                   where="Rules.v")
    text = replace(text, BACK_LINE, "Definition foundation_moves : bool := "
                   f"{'true' if head['foundation_moves'] else 'false'}.", where="Rules.v")
    if deal is not None:
        return replace(text, DEAL_LINE, f"Definition deal_number : N := {deal}.", where="Rules.v")
    first, last = text.find(DEAL_FIRST), text.find(DEAL_LAST)
    if first < 0 or last < first:
        raise TemplateError("Rules.v: no deal section to replace with the layout")
    return text[:first] + board_start(start).strip() + text[last + len(DEAL_LAST):]


def top_card(col):
    return col[-1] if col else -1


def canonical(position):
    """The position with its columns in NoWin.v's canonical order: by top card, empty first."""
    found, cells, cols = position
    return bytes(found), bytes(cells), tuple(sorted((bytes(c) for c in cols), key=top_card))


def column_definitions(columns):
    """Name every column (top card first), building each on a named column below it if any."""
    names = {}
    lines = []
    for col in sorted(columns, key=lambda c: (len(c), c)):  # what lies below is named first
        name_ = names[col] = f"k{len(names)}"
        depth = next((d for d in range(1, len(col)) if col[:-d] in names), len(col))
        below = names[col[:-depth]] if depth < len(col) else "[]"
        lines.append(f"Definition {name_} : list card := "
                     f"{''.join(f'c{c} :: ' for c in reversed(col[-depth:]))}{below}.")
    return names, lines


def data_section(positions):
    """The seeds as Coq definitions: cards, columns, (foundations, free cells) pairs and halves
    (columns 1-4 and 5-8) each named once, then the positions in parts of PART_SIZE."""
    columns = {c for p in positions for c in p[2]}
    col_names, lines = column_definitions(columns)
    cards = sorted({c for col in columns for c in col} | {c for p in positions for c in p[1]})
    lines[:0] = [f"Definition c{c} : card := Card {c >> 2} "
                 f"{('Clubs', 'Diamonds', 'Hearts', 'Spades')[c & 3]}." for c in cards]
    groups, halves = {}, [{}, {}]
    texts = []
    for found, cells, cols in positions:
        g = groups.setdefault((found, cells), f"g{len(groups)}")
        a = halves[0].setdefault(cols[:4], f"a{len(halves[0])}")
        b = halves[1].setdefault(cols[4:], f"b{len(halves[1])}")
        texts.append(f"P {g} {a} {b}")
    for (found, cells), g in groups.items():
        lines.append(f"Definition {g} := Position (Home {' '.join(map(str, found))}) "
                     f"[{'; '.join(f'c{c}' for c in cells)}].")
    for h in range(2):
        for part, n in halves[h].items():
            lines.append(f"Definition {n} := [{'; '.join(col_names[c] for c in part)}].")
    parts = []
    for i in range(0, len(texts), PART_SIZE):
        parts.append(f"part{len(parts)}")
        lines.append(f"Definition {parts[-1]} : list position :=\n  [" +
                     ";\n   ".join(texts[i:i + PART_SIZE]) + "].")
    lines.append(f"Definition seeds : list position := concat [{'; '.join(parts)}].")
    return DATA_HEAD.substitute(part_size=PART_SIZE) + "\n".join(lines)


DATA_HEAD = Template("""(** * The certificate's positions

    Data, not to be read: the search starts from these.  Cards as [c] and their number (see
    [card_of_number]); each column named once, top card first; each (foundations, free cells)
    pair named once as a partial [Position]; each half (columns 1-4 and 5-8) of a position's
    columns named once; then the positions, columns in their canonical order, in parts of at
    most $part_size. *)

Definition P (g : list (list card) -> position) (a b : list (list card)) : position := g (a ++ b).

""")


def coq_file(head, start, positions, note, filename, method="search"):
    """The text of a Coq file proving that no position reachable from `start` is won.

    `positions`: the certificate's, as (foundations, cells, columns bottom to top); up to
    column order they must be every position reachable from `start`, which Coq checks.
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, not {method!r}")
    deal = head["deal"]
    autoplay = head.get("closure") == "autoplay"
    if autoplay and head["foundation_moves"]:
        raise ValueError("closure autoplay is unsound with foundation moves")
    canon = sorted({canonical(p) for p in positions})
    count = len(canon)
    title = (f"FreeCell deal {deal} cannot be won." if deal is not None else
             "This FreeCell layout cannot be won.")
    searched = ("the search itself, which the kernel runs with its virtual machine (the engine "
                "of vm_compute) from the start") if method == "search" else (
                f"the certificate's {count:,} positions (columns in a canonical order) as data, "
                f"and the search, which the kernel runs with its virtual machine (the engine of "
                f"vm_compute) from the start and those positions")
    lemmas = ("that [moves] commutes with permuting the columns and that the search's answer "
              "proves the theorem") if not autoplay else (
              "that [moves] commutes with permuting the columns, that a set of positions closed "
              "under every move followed by safe autoplay (Horne's rule) covers every position "
              "reachable by single-card moves, and that the search's answer proves the theorem")
    found = "positions up to the order of columns" if not autoplay else (
        "positions, each autoplayed, up to the order of columns")
    untrusted = (
        f"The second part need not be trusted: lemmas, proved by induction, {lemmas}; and "
        f"{searched}.  It must end with no won position, having found exactly {count:,} "
        f"{found}, the certificate's count" +
        (", none of them beyond the certificate's." if method == "data" else "."))
    rules = rules_section(head, start, title, filename, untrusted, note)
    final = template("Final.v")
    if method == "data":
        final = replace(final, SEEDS_LINE, data_section(canon), where="Final.v")
    else:
        final = replace(final, SEEDS_LINE, SEEDS_LINE, where="Final.v")
    first = count if method == "data" else 1
    final = replace(final, SAMPLE_RESULT, f"({first}%N, {count}%N)", count=3, where="Final.v")
    final = replace(final, SAMPLE_THEOREM, theorem_name(deal), count=2, where="Final.v")
    text = "\n".join(part.strip("\n") + "\n" for part in
                     (rules, template("Equality.v"),
                      without_reordering(template("NoWin.v")) if autoplay else template("NoWin.v"),
                      template("Autoplay.v" if autoplay else "Search.v"), final))
    return number_trusted_lines(text, theorem_name(deal))


def coq_position(position):
    found, cells, cols = position
    columns = "; ".join(f"[{numbers(reversed(col))}]" for col in cols)
    return f"pos (Home {' '.join(map(str, found))}) [{numbers(cells)}] [{columns}]"


def coq_win_file(head, start, line, note, filename):
    """The text of the Coq file proving that a won position is reachable from `start`.

    `line`: the positions after each move (columns bottom to top), the last one won.
    """
    deal = head["deal"]
    title = (f"FreeCell deal {deal} can be won." if deal is not None else
             "This FreeCell layout can be won.")
    untrusted = (
        f"The second part need not be trusted: the {len(line)} positions after each move of "
        f"the certificate's line as data, and a boolean [follows] that the kernel computes; "
        f"the lemma that turns its result into the theorem is proved by induction, so wrong "
        f"data could only make the check fail.")
    rules = rules_section(head, start, title, filename, untrusted, note)
    win = replace(template("Win.v"), LINE_LINE, "Definition line : list position := [\n  " +
                  ";\n  ".join(coq_position(p) for p in line) + "].", where="Win.v")
    win = replace(win, SAMPLE_WIN_THEOREM, theorem_name(deal, "win"), count=2, where="Win.v")
    text = "\n".join(part.strip("\n") + "\n" for part in (rules, template("Equality.v"), win))
    return number_trusted_lines(text, theorem_name(deal, "win"))
