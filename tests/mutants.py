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
    'check': ['tests/test_check.py', 'tests/test_check_ranges.py', 'tests/test_check_closure.py', 'tests/test_oracle.py', 'tests/test_deals.py',
              'tests/test_certify_checked.py'],
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
    # (Retargeted to the rewritten checker: each keeps its name, the semantic change, on the new text.)
    M('check', 'deal: the first range ends one deal late (2^31 drawn as 15 bits)', CHECKER,
      '0x8000 * (n >= 2**31)', '0x8000 * (n > 2**31)'),
    M('check', 'deal: the second range ends one deal late (2^32 drawn as the second range)', CHECKER,
      '+ 1 if n >= 2**32 else', '+ 1 if n > 2**32 else'),
    M('check', 'deal: the second range without its high bit 0x8000', CHECKER,
      ' | 0x8000 * (n >= 2**31)', ''),
    M('check', 'deal: the third range without its + 1', CHECKER,
      '(((state >> 16) & 0xffff) + 1 if', '(((state >> 16) & 0xffff) if'),
    M('check', 'deal: the third range with 15 bits, not 16', CHECKER,
      '(((state >> 16) & 0xffff) + 1 if', '(((state >> 16) & 0x7fff) + 1 if'),
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
      'if card > 3 and red(suit) != red(card)]', 'if card > 3 and red(suit) == red(card)]'),
    M('check', 'stacking: onto either colour', CHECKER,
      'if card > 3 and red(suit) != red(card)]', 'if card > 3]'),
    M('check', 'stacking: onto two ranks higher', CHECKER,
      'GOES_ON = [[card - 4 - card % 4 + suit', 'GOES_ON = [[card - 8 - card % 4 + suit'),
    M('check', 'stacking: onto one rank lower', CHECKER,
      'GOES_ON = [[card - 4 - card % 4 + suit for suit in range(4) if card > 3',
      'GOES_ON = [[card + 4 - card % 4 + suit for suit in range(4) if card < 48'),
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
      'source = {col[-1]: c for c, col', 'source = {col[0]: c for c, col'),
    M('check', 'moves: cards in free cells never move', CHECKER, ' | dict.fromkeys(free, CELL)', ''),
    M('check', 'foundation moves: never, even when the header allows them', CHECKER,
      '    if foundation_moves: source.update(', '    if False: source.update('),
    M('check', 'foundation moves: always, even when the header forbids them', CHECKER,
      '    if foundation_moves: source.update(', '    if True: source.update('),
    M('check', 'foundation moves: the card above the top moves (rank count, not count - 1)', CHECKER,
      'source.update(((n - 1) * 4 + suit, FOUNDATION)', 'source.update((n * 4 + suit, FOUNDATION)'),
    M('check', 'goes home: onto a foundation holding the rank or more', CHECKER,
      'for card in [n * 4 + suit for suit, n in enumerate(found)]',
      'for card in [m * 4 + suit for suit, n in enumerate(found) for m in range(n, 13)]',
      equivalent='moves() only sees well-formed positions (records and boards are checked first), where a '
                 'card in play has a rank of at least its foundation count'),
    M('check', 'goes home: onto a foundation one short (rank - 1 held)', CHECKER,
      'for card in [n * 4 + suit for suit, n in enumerate(found)]',
      'for card in [(n + 1) * 4 + suit for suit, n in enumerate(found) if n < 12]'),
    M('check', 'goes home: a foundation card onto its own foundation', CHECKER,
      '             if source.get(card, FOUNDATION) != FOUNDATION] +', '             if card in source] +',
      equivalent='the card tried is the next one of its suit, n * 4 + suit; the only foundation cards in source are '
                 'tops, (n - 1) * 4 + suit, so the next card is never a foundation card and the two tests agree'),
    M('check', 'goes home: never from a free cell', CHECKER,
      '             if source.get(card, FOUNDATION) != FOUNDATION] +', '             if source.get(card, FOUNDATION) < 8] +'),
    M('check', 'columns: no move onto an empty column', CHECKER,
      '(GOES_ON[col[-1]] if col else source)', '(GOES_ON[col[-1]] if col else ())'),
    M('check', 'columns: a card onto any column', CHECKER,
      '(GOES_ON[col[-1]] if col else source)', 'source'),
    M('check', 'columns: a card onto its own column', CHECKER,
      '             if card in source] +', '             if card in source] + [(col[-1], c, c) for c, col in enumerate(cols) if col] +',
      equivalent='a top card moved onto its own column gives the same position, which is in the set: no closure '
                 'changes (a win moving a card to where it is is the predicate mutant below)'),
    M('check', 'cells: cell to cell allowed (any source but a foundation)', CHECKER,
      'if place < 8 and len(free) < cells])', 'if place != FOUNDATION and len(free) < cells])'),
    M('check', 'cells: foundation to cell allowed (any source but a cell)', CHECKER,
      'if place < 8 and len(free) < cells])', 'if place != CELL and len(free) < cells])'),
    M('check', 'cells: one cell more than the header says', CHECKER,
      'if place < 8 and len(free) < cells])', 'if place < 8 and len(free) <= cells])'),
    M('check', 'play: a column loses its bottom card, not its top', CHECKER,
      'if source < 8: cols[source] = cols[source][:-1]', 'if source < 8: cols[source] = cols[source][1:]'),
    M('check', 'play: a card from a cell stays in the cell too', CHECKER,
      "elif source == CELL: free = free.replace(BYTE[card], b'')", 'elif source == CELL: pass'),
    M('check', 'play: a card off a foundation leaves the count as it was', CHECKER,
      '    else: found = found[:suit] + BYTE[found[suit] - 1] + found[suit + 1:]\n    if dest < 8: cols[dest] +=',
      '    else: pass\n    if dest < 8: cols[dest] +='),
    M('check', 'won: three full foundations are enough', CHECKER,
      'bytes([13] * 4)', 'bytes([13] * 3)'),
    M('check', 'won: never', CHECKER, 'bytes([13] * 4)', 'bytes([14] * 4)'),

    # ---- check/checker.py: the legality predicate a win is replayed with (section 1) ----
    M('check', 'predicate: a buried column card is free to move', CHECKER,
      'if not (cols[source][-1] == card if source < 8 else', 'if not (True if source < 8 else'),
    M('check', 'predicate: a foundation top card moves without the rule allowing it', CHECKER,
      'source == CELL or foundation_moves and found[suit] == rank + 1)', 'source == CELL or found[suit] == rank + 1)'),
    M('check', 'predicate: a card below a foundation top moves off it', CHECKER,
      'foundation_moves and found[suit] == rank + 1)', 'foundation_moves and found[suit] >= rank + 1)'),
    M('check', 'predicate: cell to cell, or foundation to cell, allowed', CHECKER,
      "    if dest == CELL and source >= 8: return 'only a column card may go to a free cell'", '    pass'),
    M('check', 'predicate: a card may "move" to where it is', CHECKER,
      "    if dest == source: return 'it is on it' if dest == FOUNDATION else 'it is there'", '    pass'),
    M('check', 'predicate: to its foundation whatever the foundation holds', CHECKER,
      "if dest == FOUNDATION and found[suit] != rank:", 'if False:'),
    M('check', 'predicate: to a free cell when none is empty', CHECKER,
      "if dest == CELL and len(free) >= cells:", 'if dest == CELL and len(free) > cells:'),
    M('check', 'predicate: onto any column', CHECKER,
      "if dest < 8 and cols[dest] and card not in GOES_ON[cols[dest][-1]]:", 'if False:'),
    M('check', 'predicate: not onto an empty column', CHECKER,
      "if dest < 8 and cols[dest] and card not in GOES_ON[cols[dest][-1]]:",
      'if dest < 8 and (not cols[dest] or card not in GOES_ON[cols[dest][-1]]):'),
    M('check', 'replay: where a moved card is, not updated', CHECKER,
      '(found, free, cols), where[card] = after(found, free, cols, card, source, dest), dest',
      '(found, free, cols), where[52] = after(found, free, cols, card, source, dest), dest'),
    M('check', 'replay: a card starts in its column even when it is in a cell', CHECKER,
      'for c, cards in [(CELL, free)] + list(enumerate(cols))', 'for c, cards in list(enumerate(cols))'),

    # ---- check/checker.py: the header and the file (sections 3, 5, 6) ----
    M('check', 'header: bool accepted where an int is required', CHECKER,
      'def integer(x, low, high): return type(x) is int and', 'def integer(x, low, high): return isinstance(x, int) and'),
    M('check', 'header: extra keys accepted', CHECKER, 'need(set(h) == keys,', 'need(set(h) >= keys,'),
    M('check', 'header: a repeated key accepted (the last one wins)', CHECKER,
      "need(len(dict(pairs)) == len(pairs),", "need(True,"),
    M('check', 'header: deal 0 accepted', CHECKER,
      "integer(h['deal'], 1, 2**33 - 1)", "integer(h['deal'], 0, 2**33 - 1)"),
    M('check', 'header: deal 2^33 accepted', CHECKER,
      "integer(h['deal'], 1, 2**33 - 1)", "integer(h['deal'], 1, 2**33)"),
    M('check', 'header: nine free cells accepted', CHECKER,
      "integer(h['cells'], 0, 8)", "integer(h['cells'], 0, 9)"),
    M('check', 'header: count above 2^32 accepted', CHECKER,
      "integer(h['count'], 0, 2**(32 + ranged))", "integer(h['count'], 0, 2**33)"),
    M('check', 'header: foundation_moves 0 or 1 accepted as a bool', CHECKER,
      "type(h['foundation_moves']) is bool", "h['foundation_moves'] in (0, 1)"),
    M('check', 'header: an unknown symmetry read as fixed columns', CHECKER,
      "('symmetry', h['symmetry'] in ('columns', 'none'))", "('symmetry', True)"),
    M('check', 'header: both deal and board (or neither) accepted', CHECKER,
      "(type(h['board']) is bytes if h['deal'] is None else h['board'] is None)", "True"),
    M('check', 'header: version 3 accepted', CHECKER,
      "integer(h['version'], 1 + ranged, 2)", "integer(h['version'], 1 + ranged, 3)"),
    M('check', 'header: a range of version 1 accepted', CHECKER,
      "integer(h['version'], 1 + ranged, 2)", "integer(h['version'], 1, 2)"),
    M('check', 'header: a range whose last deal is before its first accepted', CHECKER,
      "and h['first'] <= h['last'])", ")"),
    M('check', 'header: a header longer than 64 KiB accepted', CHECKER,
      'max_buffer_size=65536, max_array_len=16, max_map_len=16, object_pairs_hook=strict_map)\n'
      '    unpacker.feed(bytes(s.buf[:65536]))',
      'max_buffer_size=131072, max_array_len=16, max_map_len=16, object_pairs_hook=strict_map)\n'
      '    unpacker.feed(bytes(s.buf[:131072]))'),
    M('check', 'file: whatever follows the first frame ignored', CHECKER,
      "if self.d.eof: self.d, self.begun = zstandard.ZstdDecompressor().decompressobj(read_across_frames=False), self.taken + len(self.buf)",
      "if self.d.eof: return False"),
    M('check', "file: the bytes a frame leaves after its end dropped (the next frame's start)", CHECKER,
      "if not (chunk := self.d.unused_data or self.f.read(1024)):", "if not (chunk := self.f.read(1024)):"),
    M('check', 'file: a frame that holds no data accepted', CHECKER,
      "need(not self.d.eof or self.taken + len(self.buf) > self.begun,", "need(True,"),
    M('check', "file: a frame's data counted from the file's start, not the frame's", CHECKER,
      "self.d, self.begun = zstandard.ZstdDecompressor().decompressobj(read_across_frames=False), self.taken + len(self.buf)",
      "self.d, self.begun = zstandard.ZstdDecompressor().decompressobj(read_across_frames=False), 0"),
    M('check', 'file: a last frame cut short, its data all there, accepted', CHECKER,
      "return need(self.d.eof, 'the file is empty or its zstd frame is cut short'",
      "return need(True, 'the file is empty or its zstd frame is cut short'"),
    M('check', 'file: data after the body, inside the frame, accepted', CHECKER,
      "need(not self.fill(1), f'{what} has data after it", "need(True, f'{what} has data after it"),
    M('check', 'file: the xxh3_64 of the body not compared', CHECKER,
      "need(self.hash.hexdigest() == xxh3_64,", "need(True,"),
    M('check', "file: the body's bin header counted in its hash", CHECKER,
      "length, s.hash = expect(s, 'bin', 'the body', Unreadable), xxhash.xxh3_64()",
      "s.hash = xxhash.xxh3_64(); length = expect(s, 'bin', 'the body', Unreadable)"),
    M('check', 'file: a FIFO or a device opened and read', CHECKER,
      "need(stat.S_ISREG((st := os.fstat(f.fileno())).st_mode) and st.st_size <= CEILING,", "need(True,"),
    M('check', 'streaming: a piece may reach past the end of its body', CHECKER,
      "need(self.taken + n <= self.end, f'the body is not valid msgpack: {what} is cut short')", "pass"),
    M('check', 'streaming: the 4 GiB ceiling not enforced', CHECKER,
      "need(self.taken + n <= CEILING, f'the data decompresses", "need(True, f'the data decompresses"),
    M('check', 'streaming: a msgpack value of another kind taken as the one wanted', CHECKER,
      "need(got == kind, f'{what} is not a msgpack {kind}', failure)", "pass"),
    M('check', 'streaming: a 2-byte length read as 1 byte', CHECKER,
      "0xc5: ('bin', 2)", "0xc5: ('bin', 1)"),
    M('check', 'custom board: a ninth column (more 0xFF) accepted', CHECKER,
      "len(board) >= 4 + cells and len(cols) == 9 and not cols.pop()",
      "len(board) >= 4 + cells and len(cols) >= 9 and not cols.pop()"),
    M('check', 'custom board: not checked to be a position', CHECKER,
      "need(not problem(found, cellbytes, cols),", "need(True,"),

    # ---- check/checker.py: limits (section 5) ----
    M('check', 'limits: the moves of a win not limited', CHECKER,
      "within(count := rules['count'], 'moves', limits)", "count = rules['count']"),
    M('check', 'limits: the positions of a no-win not limited', CHECKER,
      "within(count := rules['count'], 'positions', limits)", "count = rules['count']"),
    M('check', 'limits: the column table not limited', CHECKER,
      "within(columns := expect(s, 'array', 'the column table'), 'columns', limits)",
      "columns = expect(s, 'array', 'the column table')"),
    M('check', 'limits: one over the limit allowed', CHECKER, 'need(n <= limits[key],', 'need(n <= limits[key] + 1,'),

    # ---- check/checker.py: win certificates (section 3) ----
    M('check', 'win: trailing body bytes accepted (body at least 2 x count)', CHECKER,
      'need(size == 2 * count,', 'need(size >= 2 * count,'),
    M('check', 'win: symmetry "columns" accepted', CHECKER,
      "need(h['claim'] == 'no-win' or h['symmetry'] == 'none',", "need(True,"),
    M('check', 'win: the last position need not be won', CHECKER,
      "need(found == WON, f'after all", "need(True, f'after all"),
    M('check', 'win: the cards after the last move are not checked against 52', CHECKER,
      'if card >= 52 or dest >= 10:', 'if card >= 52 or dest >= 11:'),
    M('check', 'win: a move the predicate calls illegal is played anyway', CHECKER,
      "        if why := illegal(", "        if None and (why := illegal("),
    M('check', 'win: replayed from the deal even for a custom board', CHECKER,
      "    if h['deal'] is not None: return bytes(4), b'', deal(h['deal'])",
      "    if h['deal'] is not None or h['claim'] == 'win': return bytes(4), b'', deal(h['deal'] or 1)"),

    # ---- check/checker.py: no-win certificates (section 3) ----
    M('check', 'column table: duplicates allowed (not strictly ascending)', CHECKER,
      'need(i == 0 or table[-2] < col,', 'need(i == 0 or table[-2] <= col,'),
    M('check', 'column table: byte 52 counted as a card', CHECKER,
      'max(col, default=0) < 52,', 'max(col, default=0) <= 52,'),
    M('check', 'column table: an entry of 53 cards allowed', CHECKER,
      'need(len(col) <= 52 and max', 'need(len(col) <= 53 and max'),
    M('check', 'id width: 3 bytes from 65,536 entries (< instead of <=)', CHECKER,
      '(w := 2 if columns <= 65536 else 3)', '(w := 2 if columns < 65536 else 3)'),
    M('check', 'id width: never 3 bytes', CHECKER,
      '(w := 2 if columns <= 65536 else 3)', '(w := 2)'),
    M('check', 'id width: 3 bytes only from 65,538 entries', CHECKER,
      '(w := 2 if columns <= 65536 else 3)', '(w := 2 if columns <= 65537 else 3)'),
    M('check', 'front coding: the first record may claim a shared prefix', CHECKER,
      'if p >= W or n == 1 and p:', 'if p >= W:'),
    M('check', 'front coding: a prefix of the whole record allowed', CHECKER,
      'if p >= W or n == 1 and p:', 'if p > W or n == 1 and p:'),
    M('check', 'front coding: the stated prefix need not be the whole shared prefix', CHECKER,
      'if n > 1 and rec > prev and rec[p] == prev[p]:', 'if False:'),
    M('check', 'byte planes: not exactly count x W bytes (one byte more allowed)', CHECKER,
      "need(nbytes == count * W if rules['version'] > 1", "need(nbytes in (count * W, count * W + 1) if rules['version'] > 1"),
    M('check', 'byte planes: read as rows, not planes', CHECKER,
      "for j in range(W): rows[j::W] = s.take(count, 'the records')",
      "for j in range(W): rows[j * count:(j + 1) * count] = s.take(count, 'the records')"),
    M('check', 'byte planes: the last plane ignored', CHECKER,
      "for j in range(W): rows[j::W] = s.take(count, 'the records')",
      "for j in range(W): rows[j::W] = s.take(count, 'the records') if j < W - 1 else bytes(count)"),
    M('check', 'versions: front-coded records read in a version 2 body', CHECKER,
      "    if rules['version'] == 2:   # byte planes", "    if rules['version'] == 3:   # byte planes"),
    M('check', 'records: duplicates allowed (not strictly ascending)', CHECKER,
      'if n > 1 and rec <= records[-1]:', 'if n > 1 and rec < records[-1]:'),
    M('check', 'records: order not checked', CHECKER, 'if n > 1 and rec <= records[-1]:', 'if False:'),
    M('check', 'records: a cut-short last record accepted', CHECKER,
      "if len(rec) != W: raise Rejected(f'records: record {n} is cut short')", 'pass'),
    M('check', 'count: more records than count accepted', CHECKER,
      'need(len(records) == count,', 'need(len(records) >= count,'),
    M('check', 'count: fewer records than count accepted', CHECKER,
      'need(len(records) == count,', 'need(len(records) <= count,'),
    M('check', 'step 5: the start need not be a record', CHECKER,
      "need(record(begin[0], begin[1], [index.get(col) for col in begin[2]]) in known,", "need(True,"),
    M('check', 'encode: cells not sorted (the order cards entered them)', CHECKER,
      "elif dest == CELL: after_free = bytes(sorted(free + BYTE[card]))", "elif dest == CELL: after_free = free + BYTE[card]"),
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
      'else problem(found, cellbytes, cols))', 'else None)'),
    M('check', 'step 4: a column id beyond the table read as the empty column', CHECKER,
      'cols = [column.get(i) for i in ids]', "cols = [column.get(i, b'') for i in ids]"),
    M('check', 'step 6: a won record accepted', CHECKER, '        if why or found == WON:', '        if why:'),
    M('check', 'step 7: no closure check at all', CHECKER,
      'if record(after_found, after_free, after_ids) not in known:', 'if False:'),
    M('check', 'step 7: closure skipped for the first record', CHECKER,
      "for card, source, dest in moves(found, free, cols, cells, rules['foundation_moves']):",
      "for card, source, dest in (moves(found, free, cols, cells, rules['foundation_moves']) if n > 1 else ()):"),
    M('check', 'step 7: closure skipped for the last record', CHECKER,
      "for card, source, dest in moves(found, free, cols, cells, rules['foundation_moves']):",
      "for card, source, dest in (moves(found, free, cols, cells, rules['foundation_moves']) if n < count else ()):"),
    M('check', 'step 7: closure checks only the first move from each record', CHECKER,
      "                               f' to {place(dest)} gives a position not in the certificate')",
      "                               f' to {place(dest)} gives a position not in the certificate')\n"
      "            break"),
    M('check', 'step 7: a move from a column leaves the column as it was', CHECKER,
      'if source < 8: after_ids[source] = index.get(cols[source][:-1])', 'if source < 8: pass'),
    M('check', 'step 7: a move onto a column leaves it as it was', CHECKER,
      'if dest < 8: after_ids[dest] = index.get(cols[dest] + BYTE[card])', 'if dest < 8: pass'),
    M('check', 'step 7: a card to its foundation leaves the count as it was', CHECKER,
      '            else: after_found = found[:suit] + BYTE[found[suit] + 1] + found[suit + 1:]', '            else: pass'),
    M('check', 'step 7: a position with a column outside the table counted as a record', CHECKER,
      'return None if None in ids else', 'return None if False else'),
    M('check', 'unused table entries accepted', CHECKER, "need(not unused,", "need(True,"),

    M('check', 'win: each move read as its destination, then its card', CHECKER,
      'zip(body[::2], body[1::2])', 'zip(body[1::2], body[::2])'),
    M('check', 'several files: each verdict printed beside another file', CHECKER,
      'zip(targets, (pool.map', 'zip(targets[::-1], (pool.map'),

    # ---- check/checker.py: range certificates (section 6) ----
    M('check', 'range: the header count not compared with first..last', CHECKER,
      "need(h['count'] == h['last'] - h['first'] + 1,", "need(True,"),
    M('check', 'range: an entry for another deal accepted (gaps, repeats)', CHECKER,
      "need((got := expect(s, 'int', 'its deal')) == number,", "need((got := expect(s, 'int', 'its deal')) or True,"),
    M('check', 'range: an entry may hold more or fewer than four values', CHECKER,
      "need(expect(s, 'array', 'the entry') == 4,", "need(expect(s, 'array', 'the entry') >= 0,"),
    M('check', 'range: any claim read as a no-win', CHECKER,
      "need(claim in ('win', 'no-win'),", "need(True,"),
    M('check', 'range: entries after the last accepted', CHECKER,
      "s.finish('the range', h['xxh3_64'], Rejected)", "s.fill(0) or need(s.hash.hexdigest() == h['xxh3_64'], 'hash')"),
    M('check', 'range: the entries not hashed', CHECKER,
      "    s.hash, unwinnable = xxhash.xxh3_64(), []\n", "    s.hash, unwinnable = xxhash.xxh3_64(), []\n    h = {**h, 'xxh3_64': None}\n"),
    M('check', 'range: a no-win entry not counted among the deals that cannot be won', CHECKER,
      "unwinnable += [number] * (claim == 'no-win')", "unwinnable += [number] * (claim == 'no-win' and number > h['first'])"),
    M('check', 'range: an entry replayed with the range header\'s own deal (none)', CHECKER,
      "rules = {**h, 'deal': number, 'board': None,", "rules = {**h, 'deal': h['first'], 'board': None,"),
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
