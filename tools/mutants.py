"""Mutation testing: would the tests notice if the checker or the rules were wrong?

Each mutant below is one semantic change, said in words, made by one text substitution (old ->
new) in one file. For each, the file is copied with the substitution into a scratch copy of the
project, the mutant's test subset runs against that copy, and the mutant is *killed* if a test
fails (or the run times out), *survives* if every test passes. A substitution whose old text is no
longer in the file exactly once is *stale* (the file was rewritten): it is reported, never counted
as killed; retarget it by writing the same change against the new text.

Some mutants change no behaviour a certificate can show (say, letting a card "move" onto its own
column, which the stacking rule already forbids); they carry `equivalent=` with the reason, still
run, and are scored apart.

    python tools/mutants.py                  # every mutant, its own test subset, one at a time
    python tools/mutants.py --only check -j 1     # or --only rules, --only writer
    python tools/mutants.py --list           # the mutants and whether each still applies
    python tools/mutants.py -k closure --tests tests    # some mutants, against the whole default run
    python tools/mutants.py --only check --skip 40 -j 2  # go on after the 40 a cut-short run printed

Not part of the pytest run: it takes minutes. Exit 0 when every live mutant that is not listed as
equivalent is killed, 1 otherwise.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHECKER, RULES, CARDS, DEALS = 'check/checker.py', 'certify/game/rules.py', 'certify/game/cards.py', 'certify/game/deals.py'
WRITER, SPEC = 'certify/format/writer.py', 'certify/format/spec.py'

# The tests each group is run against (--tests replaces them): those that read the rules through
# check/ or certify/ and are quick, so that a mutant takes seconds, not minutes.
SUBSETS = {
    # (check's, but not tests/test_check_source.py: a mutant that adds a line would fail its size, not
    # its meaning)
    # (tests/test_check_won.py first: its files are small and each mutant it kills dies in seconds)
    'check': ['tests/test_check_won.py',
              'tests/test_check.py', 'tests/test_check_ranges.py', 'tests/test_check_closure.py',
              'tests/test_check_hostile.py', 'tests/test_check_cli.py', 'tests/test_check_membership.py',
              'tests/test_check_autoplay.py',
              'tests/test_oracle.py',
              'tests/test_deals.py', 'tests/test_certify_checked.py'],
    'rules': ['tests/test_oracle.py', 'tests/test_deals.py', 'tests/test_certify_checked.py',
              'tests/test_search.py::test_successors_match_the_readable_rules',
              'tests/test_search.py::test_search_finds_exactly_the_reachable_set',
              'tests/test_search.py::test_certificates_hold_the_reachable_set_or_a_winning_line',
              'tests/test_search.py::test_same_input_same_bytes_across_processes',
              'tests/test_search.py::test_moves_name_their_destinations',
              'tests/test_solver.py::test_solver_finds_a_win_whenever_there_is_one'],
    'writer': ['tests/test_certify_checked.py'],
}


def subset(group):
    return [t for t in SUBSETS[group] if (ROOT / t.split('::')[0]).exists()]


@dataclass
class Mutant:
    group: str          # 'check' (the trusted checker), 'rules' (certify's readable rules, cards, deals), 'writer'
    name: str           # the semantic change, in words
    file: str
    old: str
    new: str
    equivalent: str = ''   # why no certificate or test can tell it from the original, if so


M = Mutant
# The three parts of check's moves(), in the move order, for the mutants that reorder them.
HOME = ("    # To its foundation: the next card of its suit, if it is free (a foundation's top card is not\n"
        "    # the next card of its suit, so it never goes back onto its own foundation).\n"
        '    for card in sorted([found[0] * 4, found[1] * 4 + 1, found[2] * 4 + 2, found[3] * 4 + 3]):\n'
        '        if card in source: yield card, source[card], FOUNDATION\n')
ONTO = ('    # Onto a column: any free card if it is empty, else a card that goes on its top card.\n'
        '    for dest, col in enumerate(cols):\n'
        '        for card in GOES_ON[col[-1]] if col else sorted(source):\n'
        '            if card in source: yield card, source[card], dest\n')
CELLS = ('    # To an empty free cell: only from a column (the cells are a set: no cell-to-cell moves).\n'
         '    for card in sorted(source):\n'
         '        if source[card] < 8 and len(free) < cells: yield card, source[card], CELL\n')
MUTANTS = [
    # ---- check/checker.py: the deal (section 2) ----
    M('check', 'deal: the first range ends one deal late (2^31 drawn as 15 bits)', CHECKER,
      '0x7fff if n < 2**31 else', '0x7fff if n <= 2**31 else'),
    M('check', 'deal: the second range ends one deal late (2^32 drawn as the second range)', CHECKER,
      '| 0x8000 if n < 2**32', '| 0x8000 if n <= 2**32'),
    M('check', 'deal: the second range without its high bit 0x8000', CHECKER,
      '((state >> 16) & 0x7fff) | 0x8000 if', '((state >> 16) & 0x7fff) if'),
    M('check', 'deal: the third range without its + 1', CHECKER,
      "else ((state >> 16) & 0xffff) + 1)", "else ((state >> 16) & 0xffff))"),
    M('check', 'deal: the third range with 15 bits, not 16', CHECKER,
      "else ((state >> 16) & 0xffff) + 1)", "else ((state >> 16) & 0x7fff) + 1)"),
    M('check', 'deal: the seed is n mod 2^31, not n or n - 2^32', CHECKER,
      'state, deck, cols = n % 2**32,', 'state, deck, cols = n % 2**31,'),
    M('check', 'deal: the third range seeded with n - 2^32 + 1', CHECKER,
      'state, deck, cols = n % 2**32,', 'state, deck, cols = n % 2**32 + (n >= 2**32),'),
    M('check', 'deal: the LCG increment off by one', CHECKER, '+ 2531011)', '+ 2531012)'),
    M('check', 'deal: the drawn card is taken without the last card filling its place', CHECKER,
      "        deck[j] = deck[-1]   # the last card fills the place of the one taken\n        deck.pop()",
      "        deck.pop(j)"),
    M('check', 'deal: the cards dealt to columns in blocks, not round-robin', CHECKER,
      'cols[i % 8].append', 'cols[i * 8 // 52].append'),

    # ---- check/checker.py: cards and the stacking table (section 1) ----
    M('check', 'RED table: clubs red, hearts black', CHECKER,
      'RED = (False, True, True, False)', 'RED = (True, True, False, False)'),
    M('check', 'stacking: onto the same colour', CHECKER,
      'if card > 3 and RED[suit] != RED[card % 4]]', 'if card > 3 and RED[suit] == RED[card % 4]]'),
    M('check', 'stacking: onto either colour', CHECKER,
      'if card > 3 and RED[suit] != RED[card % 4]]', 'if card > 3]'),
    M('check', 'stacking: onto two ranks higher', CHECKER,
      'GOES_ON = [[card - 4 - card % 4 + suit', 'GOES_ON = [[card - 8 - card % 4 + suit'),
    M('check', 'stacking: onto one rank lower', CHECKER,
      'GOES_ON = [[card - 4 - card % 4 + suit for suit in range(4)\n            if card > 3 and',
      'GOES_ON = [[card + 4 - card % 4 + suit for suit in range(4)\n            if card < 48 and'),
    M('check', 'stacking: the red aces dropped from the 2 of clubs (nothing goes onto it)', CHECKER,
      'if card > 3 and RED[suit] != RED[card % 4]] for card in range(52)]',
      'if card > 3 and RED[suit] != RED[card % 4] and card != 4] for card in range(52)]'),
    M('check', 'stacking: the red kings dropped from nothing, the black queens never go on them', CHECKER,
      'if card > 3 and RED[suit] != RED[card % 4]] for card in range(52)]',
      'if card > 3 and RED[suit] != RED[card % 4] and card not in (49, 50)] for card in range(52)]'),
    M('check', 'stacking: nothing goes on a two (no ace onto a two of the other colour)', CHECKER,
      'if card > 3 and RED[suit] != RED[card % 4]]', 'if card > 7 and RED[suit] != RED[card % 4]]'),

    # ---- check/checker.py: moves (section 1) ----
    M('check', 'moves: the bottom card of a column moves, not the top', CHECKER,
      'if col: source[col[-1]] = c', 'if col: source[col[0]] = c'),
    M('check', 'moves: cards in free cells never move', CHECKER,
      '    source = dict.fromkeys(free, CELL)\n', '    source = {}\n'),
    M('check', 'foundation moves: never, even when the header allows them', CHECKER,
      '    if foundation_moves:\n        source.update(', '    if False:\n        source.update('),
    M('check', 'foundation moves: always, even when the header forbids them', CHECKER,
      '    if foundation_moves:\n        source.update(', '    if True:\n        source.update('),
    M('check', 'foundation moves: the card above the top moves (rank count, not count - 1)', CHECKER,
      'source.update({(n - 1) * 4 + suit: FOUNDATION', 'source.update({n * 4 + suit: FOUNDATION'),
    M('check', 'goes home: onto a foundation one short (rank - 1 held)', CHECKER,
      'for card in sorted([found[0] * 4, found[1] * 4 + 1, found[2] * 4 + 2, found[3] * 4 + 3])',
      'for card in sorted([n * 4 + 4 + suit for suit, n in enumerate(found) if n < 12])'),
    M('check', 'goes home: a foundation card onto its own foundation', CHECKER,
      '        if card in source: yield card, source[card], FOUNDATION',
      '        if source.get(card, FOUNDATION) != FOUNDATION: yield card, source[card], FOUNDATION',
      equivalent='the card tried is the next one of its suit, n * 4 + suit; the only foundation cards in source '
                 'are tops, (n - 1) * 4 + suit, so the next card is never a foundation card'),
    M('check', 'goes home: never from a free cell', CHECKER,
      '        if card in source: yield card, source[card], FOUNDATION',
      '        if source.get(card, FOUNDATION) < 8: yield card, source[card], FOUNDATION'),
    M('check', 'goes home: never', CHECKER,
      '        if card in source: yield card, source[card], FOUNDATION', '        pass'),
    M('check', 'columns: no move onto an empty column', CHECKER,
      'GOES_ON[col[-1]] if col else sorted(source):', 'GOES_ON[col[-1]] if col else ():'),
    M('check', 'columns: a card onto any column', CHECKER,
      'GOES_ON[col[-1]] if col else sorted(source):', 'sorted(source):'),
    M('check', 'columns: only a column card onto an empty column (not from a cell)', CHECKER,
      'GOES_ON[col[-1]] if col else sorted(source):', 'GOES_ON[col[-1]] if col else [k for k in sorted(source) if source[k] < 8]:'),
    M('check', 'cells: cell to cell allowed (any source but a foundation)', CHECKER,
      'if source[card] < 8 and len(free) < cells:', 'if source[card] != FOUNDATION and len(free) < cells:'),
    M('check', 'cells: foundation to cell allowed (any source but a cell)', CHECKER,
      'if source[card] < 8 and len(free) < cells:', 'if source[card] != CELL and len(free) < cells:'),
    M('check', 'cells: one cell more than the header says', CHECKER,
      'if source[card] < 8 and len(free) < cells:', 'if source[card] < 8 and len(free) <= cells:'),
    M('check', 'cells: no move into a cell at all', CHECKER,
      'if source[card] < 8 and len(free) < cells:', 'if False:'),

    # ---- check/checker.py: the effect of a move ----
    M('check', 'play: a column loses its bottom card, not its top', CHECKER,
      'if source < 8: cols[source] = cols[source][:-1]', 'if source < 8: cols[source] = cols[source][1:]'),
    M('check', 'play: a card from a cell stays in the cell too', CHECKER,
      "elif source == CELL: free = free.replace(BYTE[card], b'')", 'elif source == CELL: pass'),
    M('check', 'play: a card off a foundation leaves the count as it was', CHECKER,
      '    else: found = found[:suit] + BYTE[found[suit] - 1] + found[suit + 1:]', '    else: pass'),
    M('check', 'play: a card placed under a column, not on top', CHECKER,
      'if dest < 8: cols[dest] = cols[dest] + BYTE[card]', 'if dest < 8: cols[dest] = BYTE[card] + cols[dest]'),
    M('check', 'play: cells not kept sorted after a card goes in', CHECKER,
      'elif dest == CELL: free = bytes(sorted(free + BYTE[card]))', 'elif dest == CELL: free = free + BYTE[card]'),
    M('check', 'play: a card home raises the next suit\'s count', CHECKER,
      '    cols, suit = list(cols), card % 4', '    cols, suit = list(cols), (card + 1) % 4'),
    M('check', 'won: three full foundations are enough', CHECKER, 'WON = bytes([13] * 4)', 'WON = bytes([13] * 3)'),
    M('check', 'won: never', CHECKER, 'WON = bytes([13] * 4)', 'WON = bytes([14] * 4)'),

    # ---- check/checker.py: exact membership ----
    M('check', 'membership: the last byte of a record ignored', CHECKER,
      'rows[(slots[i] - 1) * W:slots[i] * W] != record', 'rows[(slots[i] - 1) * W:slots[i] * W - 1] != record[:-1]'),
    M('check', 'membership: the first column id ignored', CHECKER,
      'rows[(slots[i] - 1) * W:slots[i] * W] != record',
      'rows[(slots[i] - 1) * W:slots[i] * W][:W - 16] + rows[(slots[i] - 1) * W:slots[i] * W][W - 14:] != '
      'record[:W - 16] + record[W - 14:]'),
    M('check', 'membership: by hash alone (the slot of the hash is taken as the record)', CHECKER,
      '        return slots[i] != 0', '        return True'),
    M('check', 'membership: the probe stops at the first slot', CHECKER,
      'while slots[i] and rows[(slots[i] - 1) * W:slots[i] * W] != record: i = (i + 1) % len(slots)',
      'i = i'),

    # ---- check/checker.py: the closure loop (step 7) ----
    M('check', 'step 7: no closure check at all', CHECKER,
      "        for card, source, dest in moves(found, free, cols, cells, rules['foundation_moves']):",
      "        for card, source, dest in []:"),
    M('check', 'step 7: closure skipped for the first record', CHECKER,
      '    for n in range(lo, hi):\n        found, cellbytes, *ids = records.layout.unpack(rows[n * W:(n + 1) * W])',
      '    for n in range(max(lo, 1), hi):\n        found, cellbytes, *ids = records.layout.unpack(rows[n * W:(n + 1) * W])'),
    M('check', 'step 7: closure skipped for the last record', CHECKER,
      '    for n in range(lo, hi):\n        found, cellbytes, *ids = records.layout.unpack(rows[n * W:(n + 1) * W])',
      '    for n in range(lo, min(hi, records.count - 1)):\n        found, cellbytes, *ids = records.layout.unpack(rows[n * W:(n + 1) * W])'),
    M('check', 'step 7: only the first move from each record', CHECKER,
      "                raise Rejected(leaves(n, found, free, cols, card, source, dest, auto))\n        if (n + 1) % 8192",
      "                raise Rejected(leaves(n, found, free, cols, card, source, dest, auto))\n            break\n        if (n + 1) % 8192"),
    M('check', 'step 7: moves out of a free cell skipped', CHECKER,
      "            to_found, to_free, to_cols = after(", "            if source == CELL: continue\n            to_found, to_free, to_cols = after("),
    M('check', 'step 7: moves from a column skipped', CHECKER,
      "            to_found, to_free, to_cols = after(", "            if source < 8: continue\n            to_found, to_free, to_cols = after("),
    M('check', 'step 7: moves off a foundation skipped', CHECKER,
      "            to_found, to_free, to_cols = after(", "            if source == FOUNDATION: continue\n            to_found, to_free, to_cols = after("),
    M('check', 'step 7: moves onto a column skipped', CHECKER,
      "            to_found, to_free, to_cols = after(", "            if dest < 8: continue\n            to_found, to_free, to_cols = after("),
    M('check', 'step 7: moves onto an empty column skipped', CHECKER,
      "            to_found, to_free, to_cols = after(", "            if dest < 8 and not cols[dest]: continue\n            to_found, to_free, to_cols = after("),
    M('check', 'step 7: moves to a free cell skipped', CHECKER,
      "            to_found, to_free, to_cols = after(", "            if dest == CELL: continue\n            to_found, to_free, to_cols = after("),
    M('check', 'step 7: moves to a foundation skipped', CHECKER,
      "            to_found, to_free, to_cols = after(", "            if dest == FOUNDATION: continue\n            to_found, to_free, to_cols = after("),
    M('check', 'step 7: a move from a column leaves its id as it was', CHECKER,
      "if source < 8: to_ids[source] = index.get(to_cols[source], b'')", 'if source < 8: pass'),
    M('check', 'step 7: a move onto a column leaves its id as it was', CHECKER,
      "if dest < 8: to_ids[dest] = index.get(to_cols[dest], b'')", 'if dest < 8: pass'),
    M('check', 'step 7: a position with a column outside the table passes', CHECKER,
      "            if to_found + to_free + pad[cells - len(to_free)] + b''.join(to_ids) not in records:",
      "            if b'' not in to_ids and to_found + to_free + pad[cells - len(to_free)] + b''.join(to_ids) not in records:"),
    M('check', 'step 7: a column outside the table read as the column it was', CHECKER,
      "if dest < 8: to_ids[dest] = index.get(to_cols[dest], b'')",
      "if dest < 8: to_ids[dest] = index.get(to_cols[dest], ids[dest])",
      equivalent='the card moved is then on no column: a position of 51 cards, which no record is '
                 '(every record holds the 52 cards, step 4)'),
    M('check', 'step 7: a column outside the table an id of None (a TypeError: UNREADABLE, not REJECTED)', CHECKER,
      "if source < 8: to_ids[source] = index.get(to_cols[source], b'')",
      "if source < 8: to_ids[source] = index.get(to_cols[source])"),
    M('check', 'symmetry sort: column ids always sorted, even for fixed columns', CHECKER,
      '            if sort_ids: to_ids.sort()', '            to_ids.sort()'),
    M('check', 'symmetry sort: column ids never sorted', CHECKER,
      '            if sort_ids: to_ids.sort()', '            pass'),
    M('check', 'symmetry sort: column ids sorted descending', CHECKER,
      '            if sort_ids: to_ids.sort()', '            if sort_ids: to_ids.sort(reverse=True)'),
    M('check', 'encode: an empty cell not padded', CHECKER,
      'to_found + to_free + pad[cells - len(to_free)] +', 'to_found + to_free +'),

    # ---- check/checker.py: the replay of a win ----
    M('check', 'replay: a move need not be one of the legal moves', CHECKER,
      "    need(card < 52 and dest < 10, f'move {n + 1}: bytes {card}, {dest} are not a move')",
      '    return 0'),
    M('check', 'replay: a move matched by its card alone (any destination)', CHECKER,
      '        if (c, d) == (card, dest): return i', '        if c == card: return i'),
    M('check', 'replay: a move matched by its destination alone', CHECKER,
      '        if (c, d) == (card, dest): return i', '        if d == dest: return i'),
    M('check', 'replay: a move played from the rules without foundation moves', CHECKER,
      "                        rules['foundation_moves']))", "                        False))"),
    M('check', 'replay: a move played with one free cell more', CHECKER,
      "*start(rules), rules['cells'],\n", "*start(rules), rules['cells'] + 1,\n"),
    M('check', 'replay: each move read as its destination, then its card', CHECKER,
      'card, dest, cells_fm = body[2 * n], body[2 * n + 1],',
      'dest, card, cells_fm = body[2 * n], body[2 * n + 1],'),
    M('check', 'replay: the last move not played', CHECKER,
      '    for n in range(steps):\n        i = pick(',
      '    for n in range(steps - 1):\n        i = pick('),
    M('check', 'replay: the last position need not be won', CHECKER,
      "    if found != WON: raise Rejected(f'after all {steps:,}",
      "    if False: raise Rejected(f'after all {steps:,}"),
    M('check', 'replay: from the deal even for a custom board', CHECKER,
      "    if h['deal'] is not None: return bytes(4), b'', deal(h['deal'])",
      "    if h['deal'] is not None or h['claim'] == 'win': return bytes(4), b'', deal(h['deal'] or 1)"),

    M('check', 'version 1/2 lines: a move named by its card alone', CHECKER,
      "        if (c, d) == (card, dest): return i", "        if c == card: return i"),
    M('check', 'version 1/2 lines: the move after the one named', CHECKER,
      "        if (c, d) == (card, dest): return i", "        if (c, d) == (card, dest): return i + 1"),
    M('check', 'places: a free cell and the foundation named each as the other', CHECKER,
      "['a free cell', 'its foundation']", "['its foundation', 'a free cell']"),
    M('check', '--json: the count of a certificate not shown', CHECKER,
      "foundation_moves symmetry closure count'.split()", "foundation_moves symmetry closure'.split()"),
    M('check', '--json: the closure not shown', CHECKER,
      "foundation_moves symmetry closure count'.split()", "foundation_moves symmetry count'.split()"),

    # ---- check/checker.py: the sentence printed ----
    M('check', 'sentence: a range names its unwinnable deals but the first', CHECKER,
      "else \"FreeCell Pro's deals\"), h['unwinnable']", "else \"FreeCell Pro's deals\"), h['unwinnable'][1:]"),
    M('check', 'sentence: extended deals called Microsoft deals', CHECKER,
      "if h['deal'] >= 2**31", "if h['deal'] >= 2**32"),
    M('check', 'sentence: foundation moves never said', CHECKER,
      "(\"a foundation's top card may go back onto a column\" if h['foundation_moves']",
      "(\"a foundation's top card may go back onto a column\" if False"),

    # ---- check/checker.py: the last guard ----
    M('check', 'last guard: an internal error printed as VERIFIED', CHECKER,
      "        return 'unreadable', {}, f'internal error: {type(e).__name__}: {e}', None",
      "        return 'verified', {}, f'internal error: {type(e).__name__}: {e}', None"),
    M('check', 'last guard: a worker that failed counted as verified', CHECKER,
      "    verdict, h, text, digest, seconds = 'unreadable', {}, why, None, 0.0",
      "    verdict, h, text, digest, seconds = 'verified' if why is None else 'unreadable', {}, why, None, 0.0"),

    # ---- check/checker.py: the header and the file (sections 3, 5, 6) ----
    M('check', 'header: bool accepted where an int is required', CHECKER,
      'def integer(x, low, high): return type(x) is int and', 'def integer(x, low, high): return isinstance(x, int) and'),
    M('check', 'header: extra keys accepted', CHECKER, "need(set(h) - {'closure'} == keys,",
      "need(set(h) - {'closure'} >= keys,"),
    M('check', 'header: a repeated key accepted (the last one wins)', CHECKER,
      "need(len(dict(pairs)) == len(pairs),", "need(True,"),
    M('check', 'header: deal 0 accepted', CHECKER,
      "integer(h['deal'], 1, 2**33 - 1)", "integer(h['deal'], 0, 2**33 - 1)"),
    M('check', 'header: deal 2^33 accepted', CHECKER,
      "integer(h['deal'], 1, 2**33 - 1)", "integer(h['deal'], 1, 2**33)"),
    M('check', 'header: nine free cells accepted', CHECKER,
      "integer(h['cells'], 0, 8)", "integer(h['cells'], 0, 9)"),
    M('check', 'header: foundation_moves 0 or 1 accepted as a bool', CHECKER,
      "type(h['foundation_moves']) is bool", "h['foundation_moves'] in (0, 1)"),
    M('check', 'header: an unknown symmetry read as fixed columns', CHECKER,
      "('symmetry', lambda: h['symmetry'] in ('columns', 'none'))", "('symmetry', lambda: True)"),
    M('check', 'header: both deal and board (or neither) accepted', CHECKER,
      "('board', lambda: type(h['board']) is (bytes if h['deal'] is None else type(None)))",
      "('board', lambda: True)"),
    M('check', 'header: a range of version 1 accepted', CHECKER,
      "integer(h['version'], 1 + ranged, 3)",
      "integer(h['version'], 1, 3)"),
    M('check', 'header: a range whose last deal is before its first accepted', CHECKER,
      "integer(h['last'], h['first'], 2**33 - 1)", "integer(h['last'], 1, 2**33 - 1)"),
    M('check', "header: xxh3_64's type not checked (a nested value reaches the hash compare)", CHECKER,
      "('xxh3_64', lambda: type(h['xxh3_64']) is str   # 16 lowercase hex digits\n"
      "              and re.fullmatch('[0-9a-f]{16}', h['xxh3_64']))",
      "('xxh3_64', lambda: True)"),
    M('check', "header: first's type checked after last is compared with it", CHECKER,
      "        [('first', lambda: integer(h['first'], 1, 2**33 - 1)),\n"
      "         ('last', lambda: integer(h['last'], h['first'], 2**33 - 1))] if ranged else",
      "        [('last', lambda: integer(h['last'], h['first'], 2**33 - 1)),\n"
      "         ('first', lambda: integer(h['first'], 1, 2**33 - 1))] if ranged else"),
    M('check', 'header: a header longer than 64 KiB accepted', CHECKER,
      '    s.fill(65536)\n    unpacker = msgpack.Unpacker(max_buffer_size=65536, max_array_len=16, max_map_len=16,\n                                object_pairs_hook=strict_map)\n    unpacker.feed(bytes(s.buf[:65536]))',
      '    s.fill(131072)\n    unpacker = msgpack.Unpacker(max_buffer_size=131072, max_array_len=16, max_map_len=16,\n                                object_pairs_hook=strict_map)\n    unpacker.feed(bytes(s.buf[:131072]))'),
    M('check', 'file: whatever follows the first frame ignored', CHECKER,
      "            if self.d.eof:\n                self.d = zstandard", "            if self.d.eof: return False\n            if self.d.eof:\n                self.d = zstandard"),
    M('check', "file: the bytes a frame leaves after its end dropped (the next frame's start)", CHECKER,
      '            chunk = self.d.unused_data\n',
      "            chunk = b''\n"),
    M('check', 'file: a frame that holds no data accepted', CHECKER,
      "need(not self.d.eof or self.taken + len(self.buf) > self.begun,", "need(True,"),
    M('check', 'file: a last frame cut short, its data all there, accepted', CHECKER,
      "need(chunk or self.d.eof,", "need(True,"),
    M('check', 'file: data after the body, inside the frame, accepted', CHECKER,
      "need(not self.fill(1), f'{what} has data after it", "need(True, f'{what} has data after it"),
    M('check', 'file: the xxh3_64 of the body not compared', CHECKER,
      "        need(self.hash.hexdigest() == xxh3_64,", "        need(True,"),
    M('check', 'file: more bytes than its size said accepted (/proc files never end)', CHECKER,
      "need(self.size is None or self.got <= self.size,", "need(True,"),
    M('check', 'file: the digest of the bytes read, not of the whole file', CHECKER,
      '    def digest(self): return self.sha.hexdigest() if self.ended else None',
      '    def digest(self): return self.sha.hexdigest()'),
    M('check', 'file: a FIFO or a device opened and read', CHECKER,
      "        need(regular or str(path) == '-' and stat.S_ISFIFO(st.st_mode) or stat.S_ISCHR(",
      "        need(True or str(path) == '-' and stat.S_ISFIFO(st.st_mode) or stat.S_ISCHR("),
    M('check', 'streaming: a piece may reach past the end of its body', CHECKER,
      "need(self.end is None or self.taken + n <= self.end,", "need(True,"),
    M('check', 'streaming: a msgpack value of another kind taken as the one wanted', CHECKER,
      "need(got == kind, f'{what} is not a msgpack {kind}', failure)", "pass"),
    M('check', 'streaming: a 2-byte length read as 1 byte', CHECKER, "0xc5: ('bin', 2)", "0xc5: ('bin', 1)"),
    M('check', 'custom board: a ninth column (more 0xFF) accepted', CHECKER,
      "len(board) >= 4 + cells and len(cols) == 9 and not cols[8]", "len(board) >= 4 + cells and len(cols) >= 9"),
    M('check', 'custom board: not checked to be a position', CHECKER,
      "    need(not problem(found, cellbytes, cols[:8]),", "    need(True,"),
    M('check', 'what was asked: --deal not compared', CHECKER,
      "        if key in KEYS | {'first', 'last', 'closure'} and asked is not None and h.get(key) != asked:",
      "        if key in KEYS - {'deal'} | {'first', 'last', 'closure'} and asked is not None and h.get(key) != asked:"),
    M('check', 'what was asked: the rules not compared', CHECKER,
      "        if key in KEYS | {'first', 'last', 'closure'} and asked is not None and h.get(key) != asked:",
      "        if key in {'deal', 'claim', 'first', 'last', 'closure'} and asked is not None and h.get(key) != asked:"),
    M('check', 'what was asked: --range not compared', CHECKER,
      "    first, last = want.get('range') or (None, None)",
      '    first, last = None, None'),
    M('check', 'exit codes: an unreadable file masks a rejection', CHECKER,
      "    return 1 if 'rejected' in verdicts else 2 if bad or empty else 0",
      "    return 2 if bad or empty else 1 if 'rejected' in verdicts else 0"),
    M('check', 'several files: each verdict printed beside another file', CHECKER,
      '                    for target, answer in zip(todo, answers)]',
      '                    for target, answer in zip(todo, answers[::-1])]'),

    # ---- check/checker.py: limits (section 5) ----
    M('check', 'limits: the moves of a win not limited', CHECKER,
      "    within(count, 'moves', limits)\n",
      ''),
    M('check', 'limits: the positions of a no-win not limited', CHECKER,
      "    within(count, 'positions', limits)\n", ""),
    M('check', 'limits: the column table not limited', CHECKER,
      "within(columns := expect(s, 'array', 'the column table'), 'columns', limits)",
      "(columns := expect(s, 'array', 'the column table'))"),
    M('check', 'limits: one over the limit allowed', CHECKER, 'need(n <= limits[key],', 'need(n <= limits[key] + 1,'),
    M('check', "limits: a range's moves in all not bounded", CHECKER,
      "need(spent[kind] <= (most := limits[f'{per}-{kind}'] * n + limits[kind]),",
      "need((most := limits[f'{per}-{kind}'] * n + limits[kind]) or True,"),
    M('check', "limits: a range's work not bounded by its deals", CHECKER,
      "(('range', h['count'], 'deal', 'in all'),", "(('range', 2**64, 'deal', 'in all'),"),
    M('check', "limits: a range's work not bounded by its bytes", CHECKER,
      "('byte', s.got, 'byte',", "('byte', 2**64, 'byte',"),
    M('check', "limits: a range's bound without one certificate's worth more", CHECKER,
      "* n + limits[kind]),", "* n),"),
    M('check', "limits: a range's bound counted per deal, not in all", CHECKER,
      "spent[kind := 'moves' if claim == 'win' else 'positions'] += rules['count']",
      "spent[kind := 'moves' if claim == 'win' else 'positions'] = rules['count']"),

    # ---- check/checker.py: win certificates (section 3) ----
    M('check', 'win: trailing body bytes accepted (body at least 2 x count)', CHECKER,
      'need(size == (2 - v3) * count,',
      'need(size >= (2 - v3) * count,'),
    M('check', 'win: symmetry "columns" accepted', CHECKER,
      "need(h['claim'] == 'no-win' or h['symmetry'] == 'none',", "need(True,"),

    # ---- check/checker.py: no-win certificates (section 3) ----
    M('check', 'column table: duplicates allowed (not strictly ascending)', CHECKER,
      'need(not table or table[-1] < col,',
      'need(not table or table[-1] <= col,'),
    M('check', 'column table: byte 52 counted as a card', CHECKER,
      'max(col, default=0) < 52,', 'max(col, default=0) <= 52,'),
    M('check', 'column table: an entry of 53 cards allowed', CHECKER,
      'need(len(col) <= 52 and max', 'need(len(col) <= 53 and max'),
    M('check', 'id width: 3 bytes from 65,536 entries (< instead of <=)', CHECKER,
      'w := 2 if columns <= 65536 else 3', 'w := 2 if columns < 65536 else 3'),
    M('check', 'id width: never 3 bytes', CHECKER,
      'w := 2 if columns <= 65536 else 3 if columns <= 2**24 or version < 3\n'
      '                         else 4)', 'w := 2)'),
    M('check', 'front coding: a prefix of the whole record allowed', CHECKER,
      'if p >= W: raise',
      'if p > W: raise'),
    M('check', 'front coding: the stated prefix need not be the whole shared prefix', CHECKER,
      'if n > 1 and rec > prev and rec[p] == prev[p]:', 'if False:'),
    M('check', 'front coding: a cut-short last record accepted', CHECKER,
      "if len(rec) != W: raise Rejected(f'records: record {n} is cut short')", 'pass'),
    M('check', 'byte planes: not exactly count x W bytes (one byte more allowed)', CHECKER,
      'need(nbytes == n * W,',
      'need(nbytes in (n * W, n * W + 1),'),
    M('check', 'byte planes: read as rows, not planes', CHECKER,
      "        for j in range(W): rows[lo * W + j:(lo + n) * W:W] = s.take(n, 'the records')",
      "        rows[lo * W:(lo + n) * W] = b''.join(s.take(n, 'the records') for j in range(W))"),
    M('check', 'byte planes: the last plane ignored', CHECKER,
      "        for j in range(W): rows[lo * W + j:(lo + n) * W:W] = s.take(n, 'the records')",
      "        for j in range(W): rows[lo * W + j:(lo + n) * W:W] = (s.take(n, 'the records'), bytes(n))[j == W - 1]"),
    M('check', 'versions: front-coded records read in a version 2 body', CHECKER,
      "        produced = (unfront(s.take(nbytes, 'the records'), W) if version == 1 else",
      "        produced = (unfront(s.take(expect(s, 'bin', 'the records') if version == 2 else nbytes, 'the records'), W) if version < 3 else"),
    M('check', 'records: duplicates allowed (not strictly ascending)', CHECKER,
      'if rec <= previous: raise Rejected(',
      'if rec < previous: raise Rejected('),
    M('check', 'records: order not checked', CHECKER,
      'if rec <= previous: raise Rejected(',
      'if False: raise Rejected('),
    M('check', 'count: more records than count accepted', CHECKER,
      "need(n == count, f'records: there are", "need(n >= count, f'records: there are"),
    M('check', 'count: fewer records than count accepted', CHECKER,
      "need(n == count, f'records: there are", "need(n <= count, f'records: there are"),
    M('check', "count: a no-win's count not compared with its records at all", CHECKER,
      "need(n == count, f'records: there are", "need(True, f'records: there are"),
    M('check', 'version 1: a record not written into its row', CHECKER,
      "        if rules['version'] == 1: rows[(n - 1) * W:n * W] = rec\n", ""),
    M('check', 'lookup table: a record not put in it', CHECKER,
      '        slots[i], previous = n, rec\n',
      '        slots[i], previous = n if n > 1 else 0, rec\n'),
    M('check', 'step 5: the start need not be a record', CHECKER,
      "    if b'' in ids or found + free + pad + b''.join(ids) not in records:",
      "    if False:"),
    M('check', 'step 5: the start sorted even for fixed columns', CHECKER,
      "    if rules['symmetry'] == 'columns': ids.sort()", "    ids.sort()"),
    M('check', 'step 5: the start not autoplayed under autoplay', CHECKER,
      "    if auto: found, free, cols = autoplay(found, free, cols)", "    pass"),
    M('check', 'step 5: a column outside the table passes', CHECKER,
      "    if b'' in ids or found + free", "    if found + free",
      equivalent='a column outside the table has the id b\'\': the bytes looked up are then shorter '
                 'than a record, so they are none of the records (as in step 7)'),

    # ---- check/checker.py: safe autoplay (section 8) ----
    M('check', 'autoplay: never after a move', CHECKER,
      "            if auto and (played := autoplay(", "            if False and (played := autoplay("),
    M('check', 'autoplay: after a move, only the two columns of the move looked up', CHECKER,
      "                to_ids = [i if new == old else index.get(new, b'')\n"
      "                          for i, old, new in zip(ids, cols, to_cols)]\n",
      "                to_ids = [index.get(new, b'') if c in (source, dest) else i\n"
      "                          for c, (i, new) in enumerate(zip(ids, to_cols))]\n"),
    M('check', 'autoplay: a safe card in a free cell stays there', CHECKER,
      "        if card in free or BYTE[card] in tops:", "        if BYTE[card] in tops:"),
    M('check', 'autoplay: a safe card on a column stays there', CHECKER,
      "        if card in free or BYTE[card] in tops:", "        if card in free:"),
    M('check', 'autoplay: one card home, not again until none is safe', CHECKER,
      "            return autoplay(*after(found, free, cols, card, source, FOUNDATION))",
      "            return after(found, free, cols, card, source, FOUNDATION)"),
    M('check', 'safe: the other colour may lag by two', CHECKER,
      "found[other] >= n - 1 - (RED[other] == RED[suit])", "found[other] >= n - 2"),
    M('check', 'safe: the same colour must keep up within one', CHECKER,
      "found[other] >= n - 1 - (RED[other] == RED[suit])", "found[other] >= n - 1"),
    M('check', 'safe: a card of the other colour may lag by two, the same colour by one', CHECKER,
      "found[other] >= n - 1 - (RED[other] == RED[suit])", "found[other] >= n - 1 - (RED[other] != RED[suit])"),
    M('check', 'header: closure autoplay accepted in a win', CHECKER,
      "          and h['claim'] != 'win' and not h['foundation_moves'])]",
      "          and not h['foundation_moves'])]"),
    M('check', 'header: closure autoplay accepted with foundation moves', CHECKER,
      "          and h['claim'] != 'win' and not h['foundation_moves'])]",
      "          and h['claim'] != 'win')]"),
    M('check', 'header: closure autoplay accepted in version 2', CHECKER,
      "h['closure'] == 'autoplay' and h['version'] == 3", "h['closure'] == 'autoplay' and h['version'] >= 2"),
    M('check', 'header: any closure accepted', CHECKER,
      "h['closure'] == 'autoplay' and h['version'] == 3", "h['version'] == 3"),
    M('check', 'sentence: the autoplay closure not named', CHECKER,
      """f'legal move{" then safe autoplay" * (h["closure"] == "autoplay")}, none won')""",
      """f'legal move, none won')"""),
    M('check', 'what was asked: --closure not compared', CHECKER,
      "KEYS | {'first', 'last', 'closure'} and", "KEYS | {'first', 'last'} and"),
    M('check', 'step 4: column ids in a record need not be ascending', CHECKER,
      "'ascending' if sort_ids and ids != sorted(ids)",
      "'ascending' if False"),
    M('check', 'step 4: records not checked to be positions', CHECKER,
      'else problem(found, cellbytes, cols))',
      'else None)'),
    M('check', 'step 4: a column id beyond the table read as the empty column', CHECKER,
      "cols = [column.get(i) for i in ids]", "cols = [column.get(i, b'') for i in ids]"),
    M('check', 'step 6: a won record accepted', CHECKER,
      "        if found == WON: raise Rejected(", "        if False: raise Rejected("),
    M('check', 'step 6: a won record refused only when it has cell bytes (never with 0 cells)', CHECKER,
      "        if found == WON: raise Rejected(", "        if found == WON and cellbytes: raise Rejected("),
    M('check', 'a well-formed position: foundation counts up to 14', CHECKER,
      'if max(found) > 13:', 'if max(found) > 14:'),
    M('check', 'a well-formed position: a card may be in the cells twice', CHECKER,
      'list(free) != sorted(set(free))', 'list(free) != sorted(free)'),
    M('check', 'a well-formed position: the 52 cards compared as a set (a card twice passes)', CHECKER,
      "if sorted(free + b''.join(cols)) != off_foundation(bytes(found)):",
      "if set(free + b''.join(cols)) != set(off_foundation(bytes(found))):"),
    M('check', 'unused table entries accepted', CHECKER, "need(not unused,", "need(True,"),
    M('check', 'one file split: a share left unclosed', CHECKER,
      "            list(pool.map(share, [count * k // jobs for k in range(jobs)],",
      "            list(pool.map(share, [count * k // jobs for k in range(jobs - 1)],"),
    M('check', 'one file split: a failure in a later share lost', CHECKER,
      "            list(pool.map(share,", "            next(pool.map(share,"),

    # ---- check/checker.py: version 3 (section 7) ----
    M('check', 'move order: by card first, not by destination', CHECKER,
      "        legal = list(itertools.islice(moves(found, free, cols, cells, foundation_moves), i + 1))",
      "        legal = sorted(moves(found, free, cols, cells, foundation_moves))[:i + 1]"),
    M('check', 'move order: the free cell first, not last', CHECKER, HOME + ONTO + CELLS, CELLS + HOME + ONTO),
    M('check', 'move order: columns before the foundation', CHECKER, HOME + ONTO + CELLS, ONTO + HOME + CELLS),
    M('check', 'move order: columns 8..1, not 1..8', CHECKER,
      "    for dest, col in enumerate(cols):\n        for card in GOES_ON",
      "    for dest, col in reversed(list(enumerate(cols))):\n        for card in GOES_ON"),
    M('check', 'move order: cards descending onto an empty column', CHECKER,
      "GOES_ON[col[-1]] if col else sorted(source):", "GOES_ON[col[-1]] if col else sorted(source)[::-1]:"),
    M('check', 'move order: cards descending onto a card', CHECKER,
      "for card in GOES_ON[col[-1]] if col", "for card in GOES_ON[col[-1]][::-1] if col"),
    M('check', 'move order: the foundation moves by suit, not by card', CHECKER,
      "for card in sorted([found[0] * 4, found[1] * 4 + 1, found[2] * 4 + 2, found[3] * 4 + 3])",
      "for card in [found[0] * 4, found[1] * 4 + 1, found[2] * 4 + 2, found[3] * 4 + 3]"),
    M('check', 'move order: the free-cell moves by column, not by card', CHECKER,
      "    for card in sorted(source):\n        if source[card] < 8 and", "    for card in source:\n        if source[card] < 8 and"),
    M('check', 'move indices: an index past the legal moves taken modulo their number', CHECKER,
      "        legal = list(itertools.islice(moves(found, free, cols, cells, foundation_moves), i + 1))",
      "        legal = list(moves(found, free, cols, cells, foundation_moves))\n        i %= len(legal) or 1"),
    M('check', 'move indices: an index equal to the number of legal moves let through', CHECKER,
      "        if len(legal) <= i: raise", "        if len(legal) < i: raise"),
    M('check', 'move indices: only the moves before the index listed (the move itself never played)', CHECKER,
      "foundation_moves), i + 1))", "foundation_moves), i))"),
    M('check', 'move indices: each read one byte late', CHECKER,
      "(lambda n, position: body[n])", "(lambda n, position: body[min(n + 1, len(body) - 1)])"),
    M('check', 'version 3 win: a bin of count + 1 bytes accepted', CHECKER,
      "need(size == (2 - v3) * count,", "need(size in ((2 - v3) * count, (2 - v3) * count + v3),"),
    M('check', 'version 3 win: the moves read as version 2 pairs', CHECKER,
      "(lambda n, position: body[n]) if v3 else",
      "functools.partial(named, body * 2, rules) if v3 else"),
    M('check', 'chunks: of 2^19 records, not 2^20', CHECKER, "CHUNK = 2**20", "CHUNK = 2**19"),
    M('check', 'chunks: the last one must be full', CHECKER,
      "        n, nbytes = min(chunk, count - lo), expect(s, 'bin', 'the records')",
      "        n, nbytes = chunk if chunk < count else count - lo, expect(s, 'bin', 'the records')"),
    M('check', "chunks: a chunk's size not checked", CHECKER,
      "need(nbytes == n * W, f'records: {nbytes} bytes for {n}' +", "need(True, f'records: {nbytes} bytes for {n}' +"),
    M('check', 'chunks: records before a chunk boundary not compared with those after', CHECKER,
      "if rec <= previous: raise Rejected(", "if rec <= previous and (n - 1) % CHUNK: raise Rejected("),
    M('check', 'version 3: the column table allowed more than 8 x count entries', CHECKER,
      "need(columns <= 8 * count,", "need(True,"),
    M('check', 'version 3: a body bin read before the body values', CHECKER,
      "if h['version'] < 3: s.end = expect(s, 'bin', 'the body', Unreadable) + s.taken",
      "if h['version'] < 4: s.end = expect(s, 'bin', 'the body', Unreadable) + s.taken"),
    M('check', 'version 3 range: an entry of four values, its body a bin', CHECKER,
      "if h['version'] < 3: s.end = expect(s, 'bin', 'its body') + s.taken",
      "if h['version'] < 4: s.end = expect(s, 'bin', 'its body') + s.taken"),
    M('check', 'version 3 range: an entry of four values accepted', CHECKER,
      "need(expect(s, 'array', 'the entry') == 4 - (h['version'] == 3),", "need(expect(s, 'array', 'the entry') == 4,"),
    M('check', 'header: version 4 accepted', CHECKER,
      "integer(h['version'], 1 + ranged, 3)", "integer(h['version'], 1 + ranged, 4)"),
    M('check', 'id width: 4 bytes never', CHECKER,
      "w := 2 if columns <= 65536 else 3 if columns <= 2**24 or version < 3\n"
      "                         else 4)",
      "w := 2 if columns <= 65536 else 3)",
      equivalent='untestable here rather than equivalent: a table of more than 2^24 entries (and a '
                 'certificate that uses them all) is beyond what a test can build'),
    M('check', 'id width: 4 bytes from 2^24 entries (< instead of <=)', CHECKER,
      "3 if columns <= 2**24 or version < 3", "3 if columns < 2**24 or version < 3",
      equivalent='untestable here rather than equivalent: a table of 2^24 entries is beyond what a test '
                 'can build'),
    # ---- check/checker.py: what a refused file costs, processes, words ----
    M('check', 'digest: a file refused early read on to its end for it', CHECKER,
      "    def digest(self): return self.sha.hexdigest() if self.ended else None",
      "    def digest(self):\n        while self.f.read(1 << 20): pass\n        return self.sha.hexdigest()"),
    M('check', 'digest: none even for a verified file', CHECKER,
      "    def digest(self): return self.sha.hexdigest() if self.ended else None",
      "    def digest(self): return None"),
    M('check', '-j: more processes than cores for one file', CHECKER,
      "    limits['jobs'] = 1 if jobs > 1 else min(args.jobs, CORES)",
      "    limits['jobs'] = 1 if jobs > 1 else args.jobs"),
    M('check', '-j: more files at once than cores', CHECKER,
      "    jobs = min(args.jobs, CORES, sum(why is None for *_, why in todo))",
      "    jobs = min(args.jobs, sum(why is None for *_, why in todo))"),
    M('check', 'plural: "1 positions"', CHECKER,
      """def plural(n, word): return f'{n:,} {word}{"s" * (n != 1)}'""",
      """def plural(n, word): return f'{n:,} {word}s'"""),

    # ---- check/checker.py: range certificates (section 6) ----
    M('check', 'range: the header count not compared with first..last', CHECKER,
      "need(h['count'] == h['last'] - h['first'] + 1,", "need(True,"),
    M('check', 'range: an entry for another deal accepted (gaps, repeats)', CHECKER,
      "need((got := expect(s, 'int', 'its deal')) == number,", "need((got := expect(s, 'int', 'its deal')) or True,"),
    M('check', 'range: an entry may hold more or fewer than four values', CHECKER,
      "need(expect(s, 'array', 'the entry') == 4 - (h['version'] == 3),",
      "need(expect(s, 'array', 'the entry') >= 0,"),
    M('check', 'range: any claim read as a no-win', CHECKER,
      "need(claim in ('win', 'no-win'),", "need(True,"),
    M('check', 'range: entries after the last accepted', CHECKER,
      "    s.finish('the range', h['xxh3_64'], Rejected)", "    need(s.hash.hexdigest() == h['xxh3_64'], 'hash')"),
    M('check', 'range: the entries not hashed', CHECKER,
      "    s.hash, unwinnable, spent, later = xxhash.xxh3_64(), [], {'moves': 0, 'positions': 0}, []\n",
      "    s.hash, unwinnable, spent, later = xxhash.xxh3_64(), [], {'moves': 0, 'positions': 0}, []\n"
      "    h = {**h, 'xxh3_64': None}\n"),
    M('check', "range: a failure raised before the wins read before it replay", CHECKER,
      "            in_parts(replay_some, (later,), len(later), limits.get('jobs', 1))\n            raise",
      "            raise"),
    M('check', "range: the last batch of wins never replayed", CHECKER,
      "if len(later) == SPLIT or number == h['last']:", "if len(later) == SPLIT:"),
    M('check', "range: a batch of wins kept after it replays (so replayed again with the next)",
      CHECKER,
      "            later.clear()\n", ""),
    M('check', "range: a replayed win's failure names the entry before it", CHECKER,
      "raise Rejected(f'entry {i + 1} (deal {number}): {e}')", "raise Rejected(f'entry {i} (deal {number}): {e}')"),
    M('check', "range: each share's last win not replayed", CHECKER,
      "for i, number, line in later[lo:hi]:", "for i, number, line in later[lo:hi - 1]:"),
    M('check', 'range: the first no-win entry left out of the deals that cannot be won, whichever deal it is',
      CHECKER, "    return {**h, 'unwinnable': unwinnable}", "    return {**h, 'unwinnable': unwinnable[1:]}"),
    M('check', 'range: a no-win entry not counted among the deals that cannot be won', CHECKER,
      "        if claim == 'no-win': unwinnable.append(number)", "        if claim == 'no-win' and number > h['first']: unwinnable.append(number)"),
    M('check', "range: an entry replayed with the range header's first deal", CHECKER,
      "rules = {**h, 'deal': number, 'board': None,", "rules = {**h, 'deal': h['first'], 'board': None,"),
    # ---- certify/game/rules.py, certify/game/cards.py, certify/game/deals.py: the readable rules ----
    M('rules', 'RED table: clubs red, hearts black', CARDS,
      'RED = (False, True, True, False)', 'RED = (True, True, False, False)'),
    M('rules', 'stacks_on: onto the same colour', RULES,
      'and RED[onto & 3] != RED[card & 3]', 'and RED[onto & 3] == RED[card & 3]'),
    M('rules', 'stacks_on: onto either colour', RULES, 'and RED[onto & 3] != RED[card & 3]', ''),
    M('rules', 'stacks_on: onto one rank lower', RULES,
      'return (onto >> 2) == (card >> 2) + 1', 'return (onto >> 2) == (card >> 2) - 1'),
    M('rules', 'goes_home: onto a foundation holding the rank or more', RULES,
      'return foundations[card & 3] == card >> 2', 'return foundations[card & 3] >= card >> 2',
      equivalent='in a well-formed position a card in play has a rank of at least its foundation count'),
    M('rules', 'goes_home: onto the next suit\'s foundation', RULES,
      'return foundations[card & 3] == card >> 2', 'return foundations[(card + 1) & 3] == card >> 2'),
    M('rules', 'moves: no move onto an empty column', RULES,
      'if j != source and (not col or stacks_on(card, col[-1])):',
      'if j != source and (col and stacks_on(card, col[-1])):'),
    M('rules', 'moves: a card onto its own column', RULES,
      'if j != source and (not col or stacks_on(card, col[-1])):', 'if (not col or stacks_on(card, col[-1])):',
      equivalent='its own column is topped by the card itself, which does not stack on itself'),
    M('rules', 'moves: one free cell more than the rules say', RULES,
      'if len(cells) < ncells:  # ... into a free cell', 'if len(cells) <= ncells:  # ... into a free cell'),
    M('rules', 'moves: cells not kept sorted after a card goes in', RULES,
      'bytes(sorted(cells + bytes([card])))', 'cells + bytes([card])'),
    M('rules', 'moves: a card from a cell never goes home', RULES,
      "        if goes_home(card, found):  # ... to its foundation\n            yield card, HOME, (with_home(found, card), left, cols)",
      "        if False:\n            yield card, HOME, (with_home(found, card), left, cols)"),
    M('rules', 'moves: a card from a cell never goes onto a column', RULES,
      'for j in landings(card, None):  # ... onto a column', 'for j in ():  # ... onto a column'),
    M('rules', 'moves: cell to cell allowed', RULES,
      "        for j in landings(card, None):  # ... onto a column\n",
      "        if len(cells) < ncells:\n            yield card, CELL, (found, cells, cols)\n"
      "        for j in landings(card, None):  # ... onto a column\n"),
    M('rules', 'moves: the column below a lifted card keeps its bottom, not its top', RULES,
      'lifted = cols[:i] + (col[:-1],) + cols[i + 1:]', 'lifted = cols[:i] + (col[1:],) + cols[i + 1:]'),
    M('rules', 'moves: a placed card goes under the column, not on top', RULES,
      'return columns[:j] + (columns[j] + bytes([card]),) + columns[j + 1:]',
      'return columns[:j] + (bytes([card]) + columns[j],) + columns[j + 1:]'),
    M('rules', 'foundation moves: never', RULES,
      'if foundation_moves:  # the top card', 'if False:  # the top card'),
    M('rules', 'foundation moves: always', RULES,
      'if foundation_moves:  # the top card', 'if True:  # the top card'),
    M('rules', 'foundation moves: the card above the top comes down', RULES,
      'card = (found[suit] - 1) * 4 + suit', 'card = found[suit] * 4 + suit'),
    M('rules', 'foundation moves: a foundation card may go to a free cell too', RULES,
      "                for j in landings(card, None):\n                    yield card, j, (lowered, cells, placed(cols, j, card))",
      "                for j in landings(card, None):\n                    yield card, j, (lowered, cells, placed(cols, j, card))\n"
      "                if len(cells) < ncells:\n"
      "                    yield card, CELL, (lowered, bytes(sorted(cells + bytes([card]))), cols)"),
    M('rules', 'with_home: the wrong suit counts up', RULES,
      '    s = card & 3\n    return found[:s]', '    s = (card >> 2) & 3\n    return found[:s]'),
    M('rules', 'is_won: three full foundations are enough', RULES,
      'return position[0] == WON', 'return position[0][:3] == WON[:3]'),
    M('rules', 'encode: fixed columns sorted anyway', RULES, '    if not fixed_columns:\n        chunks.sort()',
      '    chunks.sort()'),
    M('rules', 'encode: columns sorted descending', RULES, '        chunks.sort()', '        chunks.sort(reverse=True)'),
    M('rules', 'encode: columns not separated (0xFF dropped)', RULES,
      'chunks = [c + b"\\xff" for c in cols]', 'chunks = [bytes(c) for c in cols]'),
    M('rules', 'encode: an empty cell not padded', RULES,
      'return found + cells + b"\\xff" * (ncells - len(cells)) + b"".join(chunks)',
      'return found + cells + b"".join(chunks)'),
    M('rules', 'deal: the first range ends one deal late', DEALS,
      'high = 0x8000 if n >= 2**31 else 0', 'high = 0x8000 if n > 2**31 else 0'),
    M('rules', 'deal: the second range ends one deal late', DEALS, '    if n < 2**32:\n        state = n',
      '    if n <= 2**32:\n        state = n'),
    M('rules', 'deal: the third range without its + 1', DEALS,
      'yield ((state >> 16) & 0xFFFF) + 1', 'yield ((state >> 16) & 0xFFFF)'),
    M('rules', 'deal: the third range with 15 bits', DEALS,
      'yield ((state >> 16) & 0xFFFF) + 1', 'yield ((state >> 16) & 0x7FFF) + 1'),
    M('rules', 'deal: the third range seeded with n - 2^32 + 1', DEALS,
      'state = n - 2**32\n', 'state = n - 2**32 + 1\n'),
    M('rules', 'deal: the last deal number 2^33 accepted', DEALS, 'MAX_DEAL = 2**33 - 1', 'MAX_DEAL = 2**33'),
    M('rules', 'deal: deal 0 accepted', DEALS, 'not 1 <= n <= MAX_DEAL', 'not 0 <= n <= MAX_DEAL'),
    M('rules', 'deal: the drawn card is taken without the last card filling its place', DEALS,
      '        deck[j] = deck[-1]\n        deck.pop()', '        deck.pop(j)'),

    # ---- certify/format/: the writer, the record sizes and the move order (check must verify
    # what they write) ----
    M('writer', 'id width: 3 bytes from 65,536 entries (< instead of <=)', SPEC,
      'return 2 if columns <= 1 << 16 else', 'return 2 if columns < 1 << 16 else'),
    M('writer', 'move order: free cells before the foundation', SPEC,
      'return (0 if dest == HOME else 9 if dest == CELL else 1 + dest), card',
      'return (9 if dest == HOME else 0 if dest == CELL else 1 + dest), card'),
    M('writer', 'move order: by card alone within all destinations', SPEC,
      'return (0 if dest == HOME else 9 if dest == CELL else 1 + dest), card',
      'return card, (0 if dest == HOME else 9 if dest == CELL else 1 + dest)'),
    M('writer', 'column ids not sorted under symmetry', WRITER,
      '        if not fixed_columns:\n            ids.sort()', '        if False:\n            ids.sort()'),
    M('writer', 'column ids sorted for fixed columns too', WRITER,
      '        if not fixed_columns:\n            ids.sort()', '        if True:\n            ids.sort()'),
    M('writer', 'records not sorted', WRITER, '    records.sort()\n', ''),
    M('writer', 'the column table in the order the search met the columns', WRITER,
      'order = sorted(set().union(*old_ids), key=columns.__getitem__)', 'order = sorted(set().union(*old_ids))'),
]


def apply(mutant, root=ROOT):
    """The mutated text of the mutant's file, or None if the substitution is stale."""
    text = (root / mutant.file).read_text()
    if text.count(mutant.old) != 1:
        return None
    return text.replace(mutant.old, mutant.new)


def scratch_copy(mutant, text):
    """A scratch copy of the project (sources copied, data linked) with the mutated file."""
    where = Path(tempfile.mkdtemp(prefix='mutant-'))
    for name in ('check', 'certify', 'tests'):
        shutil.copytree(ROOT / name, where / name, ignore=shutil.ignore_patterns('__pycache__', '.hypothesis'))
    for name in ('pyproject.toml', 'README.md'):
        shutil.copy(ROOT / name, where / name)
    for name in ('docs', 'certificates', 'benchmarks'):
        (where / name).symlink_to(ROOT / name)
    (where / mutant.file).write_text(text)
    return where


def run_tests(where, tests, timeout):
    """'passed', 'failed' or 'timeout' for the tests run in the copy `where`."""
    env = dict(os.environ, PYTHONPATH=str(where), PYTHONDONTWRITEBYTECODE='1',
               PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ.get('PATH', ''))
    command = [sys.executable, '-m', 'pytest', '-x', '-q', '-p', 'no:cacheprovider', *tests]
    try:
        done = subprocess.run(command, cwd=where, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return 'timeout', ''
    return ('passed' if done.returncode == 0 else 'failed'), done.stdout


def run_mutant(mutant, tests, timeout):
    text = apply(mutant)
    if text is None:
        return 'stale', 0.0, ''
    where = scratch_copy(mutant, text)
    began = time.monotonic()
    try:
        outcome, out = run_tests(where, tests or subset(mutant.group), timeout)
    finally:
        shutil.rmtree(where, ignore_errors=True)
    failed = [line for line in out.splitlines() if line.startswith(('FAILED', 'ERROR'))]
    return ('survived' if outcome == 'passed' else 'killed'), time.monotonic() - began, (failed or [outcome])[0]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--only', choices=sorted(SUBSETS), help='only the mutants of check/ or of the rules')
    parser.add_argument('-k', metavar='TEXT', action='append', help='only the mutants whose name contains TEXT (repeatable)')
    parser.add_argument('-j', type=int, default=1, metavar='N', help='mutants run at once (default 1)')
    parser.add_argument('--tests', nargs='+', metavar='PATH', help="test files to run instead of each group's subset")
    parser.add_argument('--timeout', type=float, default=900, help='seconds a mutant may take before it counts as killed')
    parser.add_argument('--list', action='store_true', help='list the mutants and whether each applies; run nothing')
    parser.add_argument('--skip', type=int, default=0, metavar='N',
                        help='leave out the first N mutants chosen (to go on where a run that printed N stopped)')
    args = parser.parse_args(argv)
    chosen = [m for m in MUTANTS if (not args.only or m.group == args.only) and (not args.k or any(k in m.name for k in args.k))]
    chosen = chosen[max(0, args.skip):]
    if args.list:
        for m in chosen:
            print(f"{'stale' if apply(m) is None else 'live':5}  {m.group:5}  {m.name}" +
                  (f'  [equivalent: {m.equivalent}]' if m.equivalent else ''))
        return 0

    groups = sorted({m.group for m in chosen})
    for group in groups:   # the unmutated tests must pass, or every mutant would look killed
        where = scratch_copy(Mutant(group, 'none', CHECKER, '', ''), (ROOT / CHECKER).read_text())
        try:
            outcome, out = run_tests(where, args.tests or subset(group), args.timeout)
        finally:
            shutil.rmtree(where, ignore_errors=True)
        if outcome != 'passed':
            print(f'the unmutated tests of {group} do not pass ({outcome}); nothing to measure\n{out[-2000:]}')
            return 2

    results = {}
    with ThreadPoolExecutor(max(1, args.j)) as pool:
        futures = {m.name + m.group: pool.submit(run_mutant, m, args.tests, args.timeout) for m in chosen}
        for m in chosen:
            verdict, seconds, why = results[m.name + m.group] = futures[m.name + m.group].result()
            note = f'  [listed as equivalent: {m.equivalent}]' if m.equivalent else ''
            print(f'{verdict:8}  {m.group:5}  {m.name}  ({seconds:.0f} s{", " + why if verdict == "killed" else ""}){note}',
                  flush=True)

    live = [m for m in chosen if results[m.name + m.group][0] != 'stale']
    counted = [m for m in live if not m.equivalent]
    killed = [m for m in counted if results[m.name + m.group][0] == 'killed']
    survivors = [m for m in counted if results[m.name + m.group][0] == 'survived']
    equivalent = [m for m in live if m.equivalent]
    stale = [m for m in chosen if results[m.name + m.group][0] == 'stale']
    print(f'\nscore: {len(killed)}/{len(counted)} mutants killed'
          f' ({len(equivalent)} listed as equivalent, {len(stale)} stale, of {len(chosen)})')
    for title, group in (('survivors', survivors), ('stale (retarget them)', stale)):
        if group:
            print(f'{title}:')
            for m in group:
                print(f'  {m.group}: {m.name} ({m.file})')
    for m in equivalent:
        print(f'equivalent: {m.group}: {m.name} -- {m.equivalent} ({results[m.name + m.group][0]})')
    return 1 if survivors else 0


if __name__ == '__main__':
    sys.exit(main())
