"""A census folder: its settings and lock, its results table, and the range certificate, all
made from the chunk files (certify/commands/census/chunks.py).

    DIR/census.json          the settings (rules, block size, body version); held locked while
                             a census runs, so one census at a time writes the folder
    DIR/chunks/*.chunk.zst   the finished deals, a block of them per file
    DIR/results.jsonl        one row per finished deal, in deal order at the end of a run
    DIR/A-B.msgpack.zst      the range certificate, once every deal of A-B has a verdict

The table is rebuilt from the chunk files when a run starts and when it ends (rows of the
deals finished in between are appended as their chunk is written), so it never holds a row
twice nor loses one, whatever interrupted the last run. Every rebuild streams: memory stays
that of one chunk.
"""

import fcntl
import json
import os

from ... import output
from ...format import ranges
from ...game.rules import Rules
from ...outcome import NO_WIN, UNKNOWN, WIN
from . import chunks

TABLE, SETTINGS = "results.jsonl", "census.json"


class FolderError(ValueError):
    """A folder we cannot use as this census's: one line for the user."""


def open_folder(folder, wanted, chunk_given):
    """Create or reopen a census folder and lock it; (lock, settings as recorded).

    `wanted` is Settings.recorded() with the block size asked for; a reopened folder keeps the
    block size it was made with unless another is asked for, which is refused.
    """
    if os.path.exists(folder) and not os.path.isdir(folder):
        raise FolderError(f"--out {folder} exists and is not a folder")
    settings_path = os.path.join(folder, SETTINGS)
    if os.path.isfile(settings_path):
        try:
            with open(settings_path, encoding="utf-8") as f:
                recorded = json.load(f)
        except (OSError, ValueError) as e:
            raise FolderError(f"cannot read {settings_path}: {e}") from None
        if not isinstance(recorded, dict):
            raise FolderError(f"{settings_path} is not a census's settings")
        if not chunk_given and "chunk" in recorded:
            wanted = {**wanted, "chunk": recorded["chunk"]}
        if recorded != wanted:
            raise FolderError(f"{folder} holds a census {difference(recorded, wanted)}; "
                              f"use another --out")
    elif os.path.isdir(folder) and os.listdir(folder):
        raise FolderError(f"--out {folder} is not empty and holds no census "
                          f"({SETTINGS} is missing)")
    else:
        os.makedirs(folder, exist_ok=True)
        text = json.dumps(wanted, sort_keys=True, indent=1) + "\n"
        output.write_atomic(settings_path, text.encode())
    lock = open(settings_path, "rb")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        lock.close()
        raise FolderError(f"another census is writing to {folder}") from None
    os.makedirs(os.path.join(folder, chunks.FOLDER), exist_ok=True)
    # What a run killed mid-write leaves behind (the atomic writers' temporaries).
    for where in (folder, os.path.join(folder, chunks.FOLDER)):
        for name in os.listdir(where):
            if name.startswith(".tmp-"):
                os.unlink(os.path.join(where, name))
    return lock, wanted


def difference(recorded, wanted):
    """How a folder's settings differ from those asked for, in words."""
    try:
        if "chunk" not in recorded:
            return "of an earlier layout (a certificate file per deal)"
        if recorded.get("body_version") != wanted["body_version"]:
            return (f"with certificate bodies of format version {recorded.get('body_version')} "
                    f"(this certify writes version {wanted['body_version']})")
        rules = [k for k in ("cells", "fixed_columns", "foundation_moves", "autoplay")
                 if recorded.get(k, False) != wanted.get(k, False)]
        if rules:
            return f"under other rules ({describe_rules(recorded)})"
        if recorded.get("chunk") != wanted["chunk"]:
            return f"in chunks of {recorded.get('chunk')} deals, not {wanted['chunk']}"
    except (TypeError, AttributeError):
        pass
    return "under other settings"


def describe_rules(recorded):
    try:
        rules = Rules(recorded["cells"], recorded["fixed_columns"], recorded["foundation_moves"])
        return rules.words() + (", autoplay" if recorded.get("autoplay") else "")
    except (TypeError, KeyError):
        return "unreadable"


class Census:
    """The chunk files of an open census folder, and what is made from them."""

    def __init__(self, folder, settings):
        self.folder, self.settings = folder, settings
        self.size = settings["chunk"]
        self.files = chunks.existing(folder, self.size)
        self.table_path = os.path.join(folder, TABLE)

    def index(self, k):
        """(deals, verdicts) finished in block k."""
        if k not in self.files:
            return [], []
        return chunks.index(self.files[k], k, self.size, self.settings)

    def verdicts(self, span):
        """(deal, verdict) of every finished deal in the span, in order."""
        for k in chunks.blocks(span, self.size):
            for deal, verdict in zip(*self.index(k)):
                if deal in span:
                    yield deal, verdict

    def todo(self, span, retry_unknown):
        """(block, deals to prove) for every block of the span with deals to prove."""
        for k in chunks.blocks(span, self.size):
            done = {d for d, v in zip(*self.index(k)) if not (retry_unknown and v == UNKNOWN)}
            numbers = [d for d in chunks.block_span(k, self.size) if d in span and d not in done]
            if numbers:
                yield k, numbers

    def commit(self, k, items, table):
        """Add a task's items to block k's chunk file, then their rows to the open table."""
        fresh = sorted(items, key=lambda i: i.deal)
        merged = fresh
        if k in self.files:  # more deals of a block begun before, or unknown ones retried
            new = {i.deal for i in fresh}
            old = chunks.items(self.files[k], k, self.size, self.settings)
            merged = [i for i in old if i.deal not in new] + fresh
        chunks.write(self.folder, k, self.size, self.settings, merged)
        self.files[k] = chunks.path_of(self.folder, k, self.size)
        table.write("".join(i.row + "\n" for i in fresh))
        table.flush()

    def rebuild_table(self, leave_out=()):
        """Rewrite the results table from the chunk files, in deal order (but for the deals in
        `leave_out`, about to be proved again)."""
        with output.atomic_file(self.table_path) as f:
            for k in sorted(self.files):
                numbers, rows = chunks.rows(self.files[k], k, self.size, self.settings)
                f.write("".join(current(row) + "\n" for deal, row in zip(numbers, rows)
                                if deal not in leave_out).encode())

    def entries(self, span):
        """The packed range certificate entries of the span's deals, in order."""
        for k in chunks.blocks(span, self.size):
            if k not in self.files:
                return
            with chunks.Reader(self.files[k], k, self.size, self.settings) as r:
                head = r.header()
                r.rows()
                decided = [d for d, v in zip(head["deals"], head["verdicts"]) if v != UNKNOWN]
                for deal, entry in zip(decided, r.entries()):
                    if deal in span:
                        yield entry

    def write_range(self, span, rules, path):
        """Write the range certificate of the span (every deal must have its verdict)."""
        return ranges.write(path, span.start, span.stop - 1, rules,
                                       lambda: self.entries(span))


def current(row):
    """A row of the results table as this certify writes it: the outcome under "claim" (as
    in check's JSON), and under "verdict" beside it, its name before, kept for one release
    (docs/json.md marks it deprecated). A chunk file holds its rows with "claim" alone, the
    first key after the deal, or "verdict" alone if it was written before "claim"."""
    if '"verdict": ' in row[:40]:
        row = row.replace('"verdict": ', '"claim": ', 1)
    if '"claim": ' not in row:  # (a row with no outcome, as a benchmark's made-up one)
        return row
    value = row.index('"claim": ') + 9
    end = row.index(",", value)  # (the claim is a word: win, no-win, unknown)
    return f'{row[:end]}, "verdict": {row[value:end]}{row[end:]}'


def summary(verdicts, span):
    """Counts and lists of a span's verdicts, from (deal, verdict) pairs."""
    by = {WIN: 0, NO_WIN: [], UNKNOWN: []}
    for deal, verdict in verdicts:
        if verdict == WIN:
            by[WIN] += 1
        else:
            by[verdict].append(deal)
    done = by[WIN] + len(by[NO_WIN]) + len(by[UNKNOWN])
    return {"deals": len(span), "done": done, "won": by[WIN], "no_win": len(by[NO_WIN]),
            "unknown": len(by[UNKNOWN]), "no_win_deals": by[NO_WIN],
            "unknown_deals": by[UNKNOWN]}
