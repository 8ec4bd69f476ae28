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

    python tests/mutants.py                  # every mutant, its own test subset, one at a time
    python tests/mutants.py --only check -j 2     # or --only rules, --only writer
    python tests/mutants.py --list           # the mutants and whether each still applies
    python tests/mutants.py -k closure --tests tests    # some mutants, against the whole default run

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
CHECKER, RULES, CARDS, DEALS = 'check/checker.py', 'certify/rules.py', 'certify/cards.py', 'certify/deals.py'
WRITER = 'certify/certificate.py'

# The tests each group is run against (--tests replaces them): those that read the rules through
# check/ or certify/ and are quick, so that a mutant takes seconds, not minutes.
SUBSETS = {
    'check': ['tests/test_check.py', 'tests/test_oracle.py', 'tests/test_deals.py', 'tests/test_certify_checked.py'],
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
MUTANTS = [
    # ---- check/checker.py: the deal (section 2) ----
    M('check', 'deal: the first range ends one deal late (2^31 drawn as 15 bits)', CHECKER,
      'if n < 2**31: r =', 'if n <= 2**31: r ='),
    M('check', 'deal: the second range ends one deal late (2^32 drawn as the second range)', CHECKER,
      'elif n < 2**32: r =', 'elif n <= 2**32: r ='),
    M('check', 'deal: the second range without its high bit 0x8000', CHECKER,
      '& 0x7fff) | 0x8000', '& 0x7fff)'),
    M('check', 'deal: the third range without its + 1', CHECKER,
      "r = ((state >> 16) & 0xffff) + 1", "r = ((state >> 16) & 0xffff)"),
    M('check', 'deal: the third range with 15 bits, not 16', CHECKER,
      "r = ((state >> 16) & 0xffff) + 1", "r = ((state >> 16) & 0x7fff) + 1"),
    M('check', 'deal: the seed is n mod 2^31, not n or n - 2^32', CHECKER,
      'state, deck, cols = n % 2**32,', 'state, deck, cols = n % 2**31,'),
    M('check', 'deal: the third range seeded with n - 2^32 + 1', CHECKER,
      'state, deck, cols = n % 2**32,', 'state, deck, cols = n % 2**32 + (n >= 2**32),'),
    M('check', 'deal: the LCG increment off by one', CHECKER, '+ 2531011)', '+ 2531012)'),
    M('check', 'deal: the drawn card is taken without the last card filling its place', CHECKER,
      'deck[j], deck[-1] = deck[-1], deck[j]', 'deck.append(deck.pop(j))'),
    M('check', 'deal: the cards dealt to columns in blocks, not round-robin', CHECKER,
      'cols[i % 8].append', 'cols[i * 8 // 52].append'),

    # ---- check/checker.py: cards, positions, moves (section 1) ----
    M('check', 'RED table: clubs red, hearts black', CHECKER,
      'def red(card): return card % 4 in (1, 2)', 'def red(card): return card % 4 in (0, 1)'),
    M('check', 'stacking: onto the same colour', CHECKER,
      'if red(suit) != red(card)}', 'if red(suit) == red(card)}'),
    M('check', 'stacking: onto either colour', CHECKER,
      'if red(suit) != red(card)}', '}'),
    M('check', 'stacking: onto two ranks higher', CHECKER,
      'ONTO = [{(card // 4 + 1) * 4', 'ONTO = [{(card // 4 + 2) * 4'),
    M('check', 'stacking: onto one rank lower', CHECKER,
      'ONTO = [{(card // 4 + 1) * 4', 'ONTO = [{(card // 4 - 1) * 4'),
    M('check', 'a well-formed position: foundation counts up to 14', CHECKER,
      'if max(found) > 13:', 'if max(found) > 14:'),
    M('check', 'a well-formed position: a card may be in the cells twice', CHECKER,
      'list(free) != sorted(set(free))', 'list(free) != sorted(free)'),
    M('check', 'a well-formed position: 0xFF may stand between cell cards', CHECKER,
      "if b'\\xff' in free or list(free)", 'if list(free)',
      equivalent='free has its trailing 0xFF stripped, so a 0xFF left in it stands before a card and the '
                 'ascending test fails anyway'),
    M('check', 'a well-formed position: the 52 cards compared as a set (a card twice passes)', CHECKER,
      'if sorted(free + b\'\'.join(cols)) != off_foundation(bytes(found)):',
      'if set(free + b\'\'.join(cols)) != set(off_foundation(bytes(found))):'),
    M('check', 'a well-formed position: the cards in play are not checked at all', CHECKER,
      "if sorted(free + b''.join(cols)) != off_foundation(bytes(found)): return", 'if False: return'),
    M('check', 'moves: the bottom card of a column moves, not the top', CHECKER,
      'sources = [(col[-1], c) for c, col', 'sources = [(col[0], c) for c, col'),
    M('check', 'moves: cards in free cells never move', CHECKER,
      ' + [(card, CELL) for card in free]', ''),
    M('check', 'foundation moves: never, even when the header allows them', CHECKER,
      '    if foundation_moves:\n        sources +=', '    if False:\n        sources +='),
    M('check', 'foundation moves: always, even when the header forbids them', CHECKER,
      '    if foundation_moves:\n        sources +=', '    if True:\n        sources +='),
    M('check', 'foundation moves: the card above the top moves (rank count, not count - 1)', CHECKER,
      'sources += [((found[s] - 1) * 4 + s, FOUNDATION)', 'sources += [(found[s] * 4 + s, FOUNDATION)'),
    M('check', 'goes home: onto a foundation holding the rank or more', CHECKER,
      'if source != FOUNDATION and found[suit] == rank:', 'if source != FOUNDATION and found[suit] >= rank:',
      equivalent='moves() only sees well-formed positions (records and boards are checked first), where a '
                 'card in play has a rank of at least its foundation count'),
    M('check', 'goes home: onto a foundation one short (rank - 1 held)', CHECKER,
      'if source != FOUNDATION and found[suit] == rank:', 'if source != FOUNDATION and found[suit] == rank - 1:'),
    M('check', 'goes home: a foundation card onto its own foundation', CHECKER,
      'if source != FOUNDATION and found[suit] == rank:', 'if found[suit] in (rank, rank + 1):'),
    M('check', 'goes home: never from a free cell', CHECKER,
      'if source != FOUNDATION and found[suit] == rank:', 'if source < 8 and found[suit] == rank:'),
    M('check', 'columns: no move onto an empty column', CHECKER,
      'if c != source and (not col or col[-1] in ONTO[card]):', 'if c != source and (col and col[-1] in ONTO[card]):'),
    M('check', 'columns: a card onto any column', CHECKER,
      'if c != source and (not col or col[-1] in ONTO[card]):', 'if c != source:'),
    M('check', 'columns: a card onto its own column', CHECKER,
      'if c != source and (not col or col[-1] in ONTO[card]):', 'if (not col or col[-1] in ONTO[card]):',
      equivalent='its own column is topped by the card itself, which is not in ONTO[card]: no new move'),
    M('check', 'cells: cell to cell allowed (any source but a foundation)', CHECKER,
      'if source < 8 and len(free) < cells:', 'if source != FOUNDATION and len(free) < cells:'),
    M('check', 'cells: foundation to cell allowed (any source but a cell)', CHECKER,
      'if source < 8 and len(free) < cells:', 'if source != CELL and len(free) < cells:'),
    M('check', 'cells: one cell more than the header says', CHECKER,
      'if source < 8 and len(free) < cells:', 'if source < 8 and len(free) <= cells:'),
    M('check', 'play: a column loses its bottom card, not its top', CHECKER,
      'if source < 8: cols[source] = cols[source][:-1]', 'if source < 8: cols[source] = cols[source][1:]'),
    M('check', 'play: a card from a cell stays in the cell too', CHECKER,
      'elif source == CELL: free.remove(card)', 'elif source == CELL: pass'),
    M('check', 'play: a card off a foundation leaves the count as it was', CHECKER,
      'else: found[card % 4] -= 1', 'else: pass'),
    M('check', 'won: three full foundations are enough', CHECKER,
      'def won(pos): return list(pos[0]) == [13] * 4', 'def won(pos): return list(pos[0])[:3] == [13] * 3'),
    M('check', 'won: never', CHECKER,
      'def won(pos): return list(pos[0]) == [13] * 4', 'def won(pos): return False'),

    # ---- check/checker.py: the header and the file (sections 3, 5) ----
    M('check', 'header: bool accepted where an int is required', CHECKER,
      'def integer(x, low, high): return type(x) is int and', 'def integer(x, low, high): return isinstance(x, int) and'),
    M('check', 'header: extra keys accepted', CHECKER, 'need(set(h) == KEYS,', 'need(set(h) >= KEYS,'),
    M('check', 'header: a repeated key accepted (the last one wins)', CHECKER,
      "need(len({key for key, _ in pairs}) == len(pairs),", "need(True,"),
    M('check', 'header: deal 0 accepted', CHECKER,
      "integer(h['deal'], 1, 2**33 - 1)", "integer(h['deal'], 0, 2**33 - 1)"),
    M('check', 'header: deal 2^33 accepted', CHECKER,
      "integer(h['deal'], 1, 2**33 - 1)", "integer(h['deal'], 1, 2**33)"),
    M('check', 'header: nine free cells accepted', CHECKER,
      "integer(h['cells'], 0, 8)", "integer(h['cells'], 0, 9)"),
    M('check', 'header: count above 2^32 accepted', CHECKER,
      "integer(h['count'], 0, 2**32)", "integer(h['count'], 0, 2**33)"),
    M('check', 'header: foundation_moves 0 or 1 accepted as a bool', CHECKER,
      "type(h['foundation_moves']) is bool", "h['foundation_moves'] in (0, 1)"),
    M('check', 'header: an unknown symmetry read as fixed columns', CHECKER,
      "('symmetry', h['symmetry'] in ('columns', 'none'))", "('symmetry', True)"),
    M('check', 'header: both deal and board (or neither) accepted', CHECKER,
      "need((h['deal'] is None) != (h['board'] is None),", "need(True,"),
    M('check', 'file: bytes after the zstd frame accepted', CHECKER,
      "need(not d.unused_data and not f.read(1),", "need(True,"),
    M('check', 'file: the xxh3_64 of the body not compared', CHECKER,
      "need(xxhash.xxh3_64_hexdigest(body) == h['xxh3_64'],", "need(True,"),
    M('check', 'custom board: a ninth column (more 0xFF) accepted', CHECKER,
      "len(board) >= 4 + cells and len(cols) == 9 and not cols.pop()",
      "len(board) >= 4 + cells and len(cols) >= 9 and not cols.pop()"),
    M('check', 'custom board: not checked to be a position', CHECKER,
      "need(not problem(found, cellbytes, cols),", "need(True,"),

    # ---- check/checker.py: win certificates (section 3) ----
    M('check', 'win: trailing body bytes accepted (body at least 2 x count)', CHECKER,
      'need(len(body) == 2 * count,', 'need(len(body) >= 2 * count,'),
    M('check', 'win: symmetry "columns" accepted', CHECKER,
      "need(h['symmetry'] == 'none', 'a win", "need(True, 'a win"),
    M('check', 'win: the last position need not be won', CHECKER,
      'need(won(pos), f\'after all', 'need(True, f\'after all'),
    M('check', 'win: the cards after the last move are not checked against 52', CHECKER,
      'need(card < 52 and dest < 10,', 'need(card < 52 and dest < 11,'),

    # ---- check/checker.py: no-win certificates (section 3) ----
    M('check', 'column table: duplicates allowed (not strictly ascending)', CHECKER,
      'need(i == 0 or table[i - 1] < col,', 'need(i == 0 or table[i - 1] <= col,'),
    M('check', 'column table: byte 52 counted as a card', CHECKER,
      'max(col, default=0) < 52,', 'max(col, default=0) <= 52,'),
    M('check', 'column table: an entry of 53 cards allowed', CHECKER,
      'need(len(col) <= 52 and max', 'need(len(col) <= 53 and max'),
    M('check', 'id width: 3 bytes from 65,536 entries (< instead of <=)', CHECKER,
      'w = 2 if len(table) <= 65536 else 3', 'w = 2 if len(table) < 65536 else 3'),
    M('check', 'id width: never 3 bytes', CHECKER,
      'w = 2 if len(table) <= 65536 else 3', 'w = 2'),
    M('check', 'id width: 3 bytes only from 65,538 entries', CHECKER,
      'w = 2 if len(table) <= 65536 else 3', 'w = 2 if len(table) <= 65537 else 3'),
    M('check', 'front coding: the first record may claim a shared prefix', CHECKER,
      'need(p < W and (n > 1 or p == 0),', 'need(p < W,'),
    M('check', 'front coding: a prefix of the whole record allowed', CHECKER,
      'need(p < W and (n > 1 or p == 0),', 'need(p <= W and (n > 1 or p == 0),'),
    M('check', 'front coding: the stated prefix need not be the whole shared prefix', CHECKER,
      'need(n == 1 or rec[p] != prev[p],', 'need(True,'),
    M('check', 'records: duplicates allowed (not strictly ascending)', CHECKER,
      'need(n == 1 or rec > prev,', 'need(n == 1 or rec >= prev,'),
    M('check', 'records: order not checked', CHECKER, 'need(n == 1 or rec > prev,', 'need(True,'),
    M('check', 'records: a cut-short last record accepted', CHECKER,
      "need(len(rec) == W, f'records: record {n} is cut short')", 'pass'),
    M('check', 'count: more records than count accepted', CHECKER,
      'need(len(records) == count,', 'need(len(records) >= count,'),
    M('check', 'count: fewer records than count accepted', CHECKER,
      'need(len(records) == count,', 'need(len(records) <= count,'),
    M('check', 'step 5: the start need not be a record', CHECKER,
      'need(encode(*begin) in known,', 'need(True,'),
    M('check', 'encode: cells not sorted (the order cards entered them)', CHECKER,
      "return bytes(found) + bytes(sorted(free)) + b'\\xff'", "return bytes(found) + bytes(free) + b'\\xff'"),
    M('check', 'symmetry sort: column ids always sorted, even for fixed columns', CHECKER,
      'sorted(ids) if sort_ids else ids)', 'sorted(ids))'),
    M('check', 'symmetry sort: column ids never sorted', CHECKER,
      'sorted(ids) if sort_ids else ids)', 'ids)'),
    M('check', 'symmetry sort: column ids sorted descending', CHECKER,
      'sorted(ids) if sort_ids else ids)', 'sorted(ids, reverse=True) if sort_ids else ids)'),
    M('check', 'step 4: column ids in a record need not be ascending', CHECKER,
      "'its column ids are not ascending' if sort_ids and ids != sorted(ids) else",
      "'its column ids are not ascending' if False else"),
    M('check', 'step 4: records not checked to be positions', CHECKER,
      'problem(rec[:4], rec[4:4 + cells], cols))', 'None)'),
    M('check', 'step 6: a won record accepted', CHECKER, '        if won(pos):', '        if False:'),
    M('check', 'step 7: no closure check at all', CHECKER,
      'if encode(*play(pos, card, source, dest)) not in known:', 'if False:'),
    M('check', 'step 7: closure skipped for the first record', CHECKER,
      'for card, source, dest in moves(pos, cells, foundation_moves):                                  # step 7',
      'for card, source, dest in (moves(pos, cells, foundation_moves) if n > 1 else ()):'),
    M('check', 'step 7: closure skipped for the last record', CHECKER,
      'for card, source, dest in moves(pos, cells, foundation_moves):                                  # step 7',
      'for card, source, dest in (moves(pos, cells, foundation_moves) if n < len(records) else ()):'),
    M('check', 'step 7: closure checks only the first move from each record', CHECKER,
      "                               f' to {place(dest)} gives a position not in the certificate')",
      "                               f' to {place(dest)} gives a position not in the certificate')\n"
      "            break"),
    M('check', 'unused table entries accepted', CHECKER, "need(len(used) == len(table),", "need(True,"),

    # ---- certify/rules.py, certify/cards.py, certify/deals.py: the readable rules ----
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

    # ---- certify/certificate.py: the writer (whose output check must verify) ----
    M('writer', 'id width: 3 bytes from 65,536 entries (< instead of <=)', WRITER,
      '    width = 2 if len(table) <= 65536 else 3\n    records = []', '    width = 2 if len(table) < 65536 else 3\n    records = []'),
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
    args = parser.parse_args(argv)
    chosen = [m for m in MUTANTS if (not args.only or m.group == args.only) and (not args.k or any(k in m.name for k in args.k))]
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
