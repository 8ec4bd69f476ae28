"""The exhaustive search on disk: its memory a budget, not the size of the problem.

The in-memory engine (certify/engine/search.c) holds every position it has found in a hash set,
about 40 bytes a position; a deal of a billion positions does not fit. This search holds a
part of one bucket of positions (below: its foundation groups, one or as many as fit) and a
buffer of successors in memory, within --memory, and keeps the rest in sorted files in a work
folder, so that the disk bounds the problem. The positions it finds are exactly the set the
in-memory engine finds (the closure of the start under every move, or under rules.autoplay
every move then safe moves home, from the autoplayed start), so the certificate is the same,
byte for byte, whatever --memory: tests/test_external.py holds it to that.

How (the classical design: breadth-first layers with delayed duplicate detection, Korf's
external-memory search):

- Without foundation moves (the default rules) no move lowers the number of cards home: a
  move raises it by at most one, and the safe moves home autoplay makes after it (under
  rules.autoplay) by as many more as it makes. So the positions fall into buckets by cards
  home, 0..52, and a bucket can be finished, then never read again but for the certificate,
  before a later one starts: bucket s needs only its own positions to tell which of its
  successors are new, and its successors with more cards home are kept as pending runs, one run
  a bucket at each spill (a key's first 2 bytes say its cards home). The next bucket is the
  fewest cards home with pending runs (those between may have no position: skipped): every
  bucket that could still send it positions has fewer cards home, and is done.
  (With foundation moves a card can go back, so every position is in one bucket, bucket 0, and
  each layer is checked against all that was found: the same algorithm, slower; autoplay is
  never on there.)
- Inside a bucket, the positions with different foundations never reach each other: a move
  that sends no card home changes no foundation, and one that sends a card home (or the safe
  moves home after it) changes the bucket. So a bucket is the disjoint union of independent
  groups, one for each foundation vector (a key's first 2 bytes), each closed alone. The
  bucket's start keys (its pending runs merged: a sorted file, `first`) list the groups one
  after another, in ascending order of foundations, and so do the groups' sorted files, taken
  in that order: one after another (concatenated, block by block: no merge), they are the
  bucket's sorted file. A hard deal's largest bucket may be several groups (2901685480's
  bucket 5 home, 175,260,672 positions, is two of 87,630,336), so that a bucket far past
  --memory may still be closed in memory, a group at a time.
  (With foundation moves a card can come back: the whole bucket is one group.)
- The groups are closed in memory, as the in-memory engine closes a search: a hash set and a
  stack, each successor looked up once (Expander.source/explore/dump). explore() holds the
  next group's start keys (all to expand) whenever the set has none left to expand, so the set
  holds the groups closed so far and the one under way. When it would outgrow its share of
  --memory, the groups closed beside the one under way are written out, sorted, as the
  bucket's next part, and that group goes on alone (held again from its saved keys, or, if its
  start keys were still going in, from them). With every group closed, the set's keys are the
  last part. A bucket that fits is so closed in one set, as before the groups; the set is saved
  (all its keys, those still to expand, and where the groups not yet begun start in `first`)
  every few minutes so that a resume loses no more. A group that outgrows the set alone is
  saved the same way and goes on on disk, layer by layer, as a bucket of its own (it is closed:
  nothing outside it is met), its files merged into one, the bucket's next part, when it is
  done; the groups after it are held in memory again:
- the frontier (the positions still to expand, a sorted file) is expanded into a buffer of
  successors; when the buffer fills, it is sorted, its repeats dropped, and written as a run. At
  the layer's end the runs are merged, less the group's positions found before, into the next
  frontier. Those positions are the visited file and the fresh files (each a sorted file, no
  position in two): a layer's new positions, its frontier, are kept as one more fresh file, not
  merged into the visited file, so that no layer rewrites all the group has found; the fresh
  files are merged into the visited file once they outweigh it, or the newest into one once they
  are many (_settle), so a position is rewritten a few times in a group, not once a layer. An empty
  frontier closes the group (its files merged into one).
- Runs do not pile up (delayed duplicate detection within them, as Korf's search and Freecell
  Solver's disk queue do it): once a few wait, or the later ones outweigh the first, they are
  merged into one, repeats dropped, and a layer's runs less the bucket's files as well
  (_compact). Most successors are positions met before or made twice, so what waits on disk
  stays near the distinct new positions rather than the successors made.
- A group's last layers are small (a frontier of thousands at the end of a group of hundreds of
  millions), yet a merge less the group's files reads all of them: each such layer would cost
  what a layer of millions does. So when a layer's successors are few beside the group's files
  (LOOK_UP_BELOW), they are looked up in them instead: each file's block index (its blocks'
  first keys, read once a file and kept while the file is named: about 40 bytes a block of
  8,192 keys, 5 MB for a group of a billion) says which block could hold a successor, and only
  those blocks are read. The frontier written is the same file, so the rest of the search, and
  the certificate, cannot tell which way it was made.
- Two cores or more (--threads, work_folder.Disk.threads): the sorts of a spill or a save split
  the keys into bins by their first differing bytes, sorted by several threads at once; a large
  merge (merge, merge_looked) is split by key range, each range read from every file at its
  first key (found by the files' block headers and a few of their blocks' first keys) and
  merged by a thread of its own into a file of its own, the ranges' files then joined in order.
  A range's reader stops at the first key at or past the range's end, which must be where the
  next range begins: a run is checked to be in order across the ranges as one merge checks it.
  The keys written are those one thread writes, in the same order (only the blocks' bounds
  differ), so the positions, and the certificate, are the same bytes whatever the threads; a
  work folder resumes with any --threads. The expansion stays on one thread (it numbers the
  columns as it meets them, and the files sort by those numbers); profiled on 7484159 with
  foundation moves in layers it is about a tenth of the search, the merges half and the sorts a
  third.
- Every key file is front-coded and zstd-compressed in blocks of 8,192 keys (external.c gives
  the layout): sorted keys share most of their bytes with their neighbours, so a key costs about
  2 bytes on disk, not its 22 in memory; a reader skips to a key by the blocks' headers.
- The certificate's records are the keys renumbered (column ids by content, as the format asks)
  and sorted. The keys with the same foundations and cells lie together in one bucket's file,
  in the order their records take (external.c says why), so the certificate is streamed out of
  a merge of the bucket files, a (foundations, cells) group at a time, with no sort on disk.

Resuming, and the work folder's layout: certify/engine/work_folder.py.

A won position met by this search makes it stop, UNKNOWN: it keeps no parents, so it has no
line to give (the solver had its chance before the search began).
"""

import os
import time

from ..outcome import NO_WIN, UNKNOWN, Outcome, budget_reason, size_text
from ..game.rules import autoplay
from .work_folder import (FORMAT, LOCK, STATE, SUFFIXES, VERSION, WorkFolderError, begun,
                          disk_words, identity, read_state, usable_folder)

FANIN = 64  # runs one merge reads at most at once (each a reader in memory: fanin())
MERGE_AT = 8  # runs waiting for one merge that are merged into one at once (see _compact)
SLICE = 0.25  # seconds between looks at the clock, the progress display and Ctrl-C
CHECKPOINT_EVERY = 300  # seconds between saves of a bucket held in memory (or 5 saves' time)
CONCAT_AT_ONCE = 1000  # a bucket's parts one concatenation reads (external.c's MOST_INPUTS)
# Successors are looked up in the group's files, a block at a time, rather than merged with them
# when they are at most this fraction of the files' keys: below it the blocks a lookup reads are
# the fewer, and above it a merge reads each block once anyway, without the index to build.
LOOK_UP_BELOW = 1 / 16


def _native():
    from . import _external
    return _external


def available():
    """Whether the compiled disk search is built (it has no Python twin: the reference for its
    positions is certify/engine/reference/search.py, which it is tested against)."""
    try:
        _native()
        return True
    except ImportError:
        return False


def buffer_bytes(memory):
    """The successor buffer's share of --memory: a quarter (the rest is the set of a bucket
    held in memory, beside the merges' read blocks)."""
    return max(memory // 4, 1 << 16)


def held_bytes(memory, threads=1):
    """What the set of a bucket held in memory may take: --memory less the buffer and the
    readers of a merge, each thread's (a merge on several threads reads each key range with
    readers of its own)."""
    return max(memory - buffer_bytes(memory) - threads * (fanin(memory) + 3) * READER_BYTES,
               1 << 16)


def fanin(memory):
    """Runs one merge reads at once: as many readers as an eighth of --memory holds, 4 to
    FANIN (a merge of more goes in passes)."""
    return max(4, min(FANIN, memory // 8 // READER_BYTES))


READER_BYTES = 1 << 19  # a key file's reader in memory: a block, compressed and decoded


class DiskSearch:
    """The search from `position` under `rules` in the work folder `disk.folder`, within
    `memory` bytes. run() as the other engines' Search.run (max_positions, time_limit,
    progress) -> Outcome; a NO_WIN's `store` is this object (write_certificate(), or table()
    and records() for the records themselves), and after the certificate is written, remove()
    clears the folder."""

    on_disk = True  # (proved() writes its certificate with write_certificate)

    def __init__(self, position, rules, disk, memory, narrow=1 << 16, split_at=None):
        self.x = _native()
        self.narrow = narrow  # (smaller only in tests: the ids widen early)
        # Merges and sorts of fewer keys than this are done on one thread (None: external.c's
        # thresholds, below which a split does not pay for itself); smaller only in tests, which
        # split small ones that way.
        self.split = {} if split_at is None else {"split_at": split_at}
        self.rules, self.disk, self.memory = rules, disk, memory
        self.folder = disk.folder
        self.position = position
        self.seconds = 0.0
        self.holding = False  # the current bucket is held in memory (step "memory")
        self.dumped = time.monotonic()  # when it was last saved
        self.dump_seconds = 0.0  # how long that took
        self.signalled = None  # the signal that asked the search to stop
        self.fanin = fanin(memory)
        self.threads = disk.threads
        self.indexes = {}  # a key file's name -> (its identity on disk, its block index)
        usable_folder(self.folder)
        if not os.path.isdir(self.folder):
            os.makedirs(self.folder)
        self.lock = self._lock()
        self.state = self._load()
        if self.state is None:
            self.state = self._fresh()
        self._tidy()
        self.expander = self._expander()
        disk.started = True

    # ---- the folder's state ------------------------------------------------------------

    def _lock(self):
        """The folder's lock, held while this search lives: a second certify on the same folder
        (the same deal run twice with --resume) is refused rather than let two processes write
        the same files."""
        import fcntl
        fd = os.open(self._path(LOCK), os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise WorkFolderError(f"the work folder {self.folder} is in use by another certify "
                                  f"(its search is under way)") from None
        return fd

    def _path(self, name):
        return os.path.join(self.folder, name)

    def _load(self):
        if not os.path.exists(self._path(STATE)):
            return None
        return read_state(self.folder, self.position, self.rules, self.disk.resume)

    def _fresh(self):
        state = {"format": FORMAT, "version": VERSION,
                 "identity": identity(self.position, self.rules),
                 "idw": 2, "columns": None, "ncolumns": 0, "seq": 0,
                 "bucket": 0, "layer": 0, "step": "memory",
                 "done": [], "visited": None, "fresh": [], "frontier": None, "offset": 0,
                 "runs": [], "pending": [], "positions": 0, "most_home": 0, "won": False,
                 "seconds": 0.0, **begun(None)}
        self.state = state
        self.expander = self._expander(columns=[])
        found, cells, cols = autoplay(self.position)[0] if self.rules.autoplay else self.position
        name = self._name("start")
        self.expander.start(self._b(name), bytes(found), bytes(sorted(cells)),
                            tuple(bytes(c) for c in cols))
        home = sum(found)
        state["bucket"] = 0 if self.rules.foundation_moves else home
        state["visited"] = state["frontier"] = None
        state["first"] = [name, 1]
        state["positions"] = 1
        state["most_home"] = home
        state["won"] = home == 52
        self._checkpoint()
        return state

    def _name(self, what):
        self.state["seq"] += 1
        return f"{self.state['seq']:06d}-{what}.keys"

    def _b(self, name):
        return os.fsencode(self._path(name))

    def _named(self):
        """The files the state names."""
        s = self.state
        names = {s["columns"]} if s["columns"] else set()
        for entry in s["done"]:
            names.add(entry[1])
        for entry in [s["visited"], s["frontier"], s["first"]] + s["fresh"] + s["parts"]:
            if entry:
                names.add(entry[0])
        names.update(r[0] for r in s["runs"])
        names.update(r[0] for r in s["pending"])
        return names

    def _tidy(self):
        """Remove our files that the state does not name (what a run cut short left)."""
        keep = self._named() | {STATE, LOCK}
        for name in os.listdir(self.folder):
            if name not in keep and name.endswith(SUFFIXES):
                try:
                    os.unlink(self._path(name))
                except OSError:
                    pass

    def _expander(self, columns=None):
        if columns is None:
            columns = self._read_columns()
        return self.x.Expander(self.rules, self.state["idw"], columns, buffer_bytes(self.memory),
                               self.narrow, self.threads, **self.split)

    def _read_columns(self):
        name = self.state["columns"]
        if not name:
            return []
        with open(self._path(name), "rb") as f:
            data = f.read()
        out, at = [], 0
        while at < len(data):
            n = data[at]
            out.append(data[at + 1:at + 1 + n])
            at += 1 + n
        if at != len(data) or len(out) != self.state["ncolumns"]:
            raise WorkFolderError(f"the work folder's column table {name} is cut short")
        return out

    def _checkpoint(self):
        """Save the column table (if it grew) and the state, each written whole before it is
        named: a kill at any moment leaves the last checkpoint whole."""
        s = self.state
        n = self.expander.ncolumns
        if n != s["ncolumns"] or s["columns"] is None:
            s["seq"] += 1
            name = f"{s['seq']:06d}.columns"
            data = b"".join(bytes((len(c),)) + c for c in self.expander.columns())
            self._write(name, data)
            old, s["columns"], s["ncolumns"] = s["columns"], name, n
        else:
            old = None
        s["most_home"] = max(s["most_home"], self.expander.most_home)
        s["positions"] = self.positions
        s["won"] = s["won"] or self.expander.won
        s["seconds"] = self.seconds
        s["memory"] = self.memory
        import json
        self._write(STATE + ".tmp", json.dumps(s, indent=1).encode())
        os.replace(self._path(STATE + ".tmp"), self._path(STATE))
        if old:
            self._remove(old)
        self._tidy()  # (what the state no longer names: merged runs, an old save of a bucket)
        named = self._named()
        for name in [n for n in self.indexes if n not in named]:
            del self.indexes[name]

    def _write(self, name, data):
        with open(self._path(name), "wb") as f:
            f.write(data)

    def _remove(self, name):
        try:
            os.unlink(self._path(name))
        except FileNotFoundError:
            pass

    # ---- figures -------------------------------------------------------------------------

    @property
    def positions(self):
        """Distinct positions found so far: the closed buckets', and this one's (its closed
        parts, the groups held or in layers, and the start keys of the groups not yet begun)."""
        s, x = self.state, self.expander
        done = sum(e[2] for e in s["done"]) + sum(e[1] for e in s["parts"])
        waiting = s["first"][1] if s["first"] else 0
        if self.holding:
            return done + x.held + waiting - x.next
        return done + (sum(e[1] for e in self._parts()) if s["visited"] else 0) + waiting - \
            s["next"]

    @property
    def most_home(self):
        return max(self.state["most_home"], self.expander.most_home)

    def disk_bytes(self):
        """Bytes the folder's files take now (what a merge under way has written too)."""
        total = 0
        with os.scandir(self.folder) as entries:
            for entry in entries:
                try:
                    total += entry.stat().st_size
                except OSError:  # (removed meanwhile)
                    pass
        return total

    def where(self):
        """Where the search is, in words for the progress line."""
        s = self.state
        at = "all positions" if self.rules.foundation_moves else f"bucket {s['bucket']} home"
        group = self.holding and self.expander.group or s["group"]
        if group is not None and not self.rules.foundation_moves:
            at += f", group {'/'.join(map(str, group))}"
        step = s["step"]
        how = f"{self.expander.held:,} held in memory, {self.expander.open:,} to expand" \
            if self.holding else f"layer {s['layer']} on disk" if step in ("expand", "merge") \
            else "closed" if step == "done" else "to be held in memory"
        pending = sum(r[1] for r in s["pending"])
        later = f", {pending:,} successors for later buckets" if pending else ""
        return f"{at}: {how}{later}; {size_text(self.disk_bytes())} of disk"

    # ---- the search ------------------------------------------------------------------------

    def run(self, max_positions=None, time_limit=None, progress=None):
        import signal
        import threading
        asked = {}
        if threading.current_thread() is threading.main_thread():
            for number in (signal.SIGINT, signal.SIGTERM):
                # An ignored signal stays ignored (nohup, a shell's background job: ^C is not ours).
                if signal.getsignal(number) is not signal.SIG_IGN:
                    asked[number] = signal.signal(number, self._on_signal)
        try:
            return self._run(max_positions, time_limit, progress)
        finally:
            for number, handler in asked.items():
                signal.signal(number, handler)
            self.x.stop(False)

    def _on_signal(self, number, frame):
        """SIGINT or SIGTERM: the search stops at its next look (the C loops look a few times a
        second), and the folder is left as its last checkpoint wrote it."""
        self.signalled = self.disk.signalled = number
        self.x.stop(True)

    def _run(self, max_positions, time_limit, progress):
        t0 = time.monotonic()
        self.seconds = self.state.get("seconds", 0.0)
        started = self.seconds
        reason = ""
        try:
            while self.state["step"] != "done" and not self.state["won"] and \
                    not self.signalled:
                step = self.state["step"]
                if step == "memory":
                    self._memory_slice()
                elif step == "expand":
                    self._expand_slice()
                elif step == "merge":
                    self._merge_step()
                else:
                    self._next_bucket()
                self.seconds = started + time.monotonic() - t0
                if progress is not None:
                    if hasattr(progress, "note"):
                        progress.note(self.where())
                    progress.update(self.positions, self.most_home)
                if max_positions is not None and self.positions >= max_positions \
                        and self.state["step"] != "done":
                    reason = budget_reason(max_positions)
                    break
                if time_limit is not None and time.monotonic() - t0 > time_limit:
                    reason = budget_reason(time_limit=time_limit)
                    break
        except self.x.Stopped:  # (its files half-written, named by no state: a resume removes them)
            reason = self._signal_words()
        except OSError as e:
            self._tidy_as_saved()
            reason = self._stopped(disk_words(e, self.folder))
        except MemoryError:
            self._tidy_as_saved()
            reason = self._stopped("the system would give no more memory")
        except WorkFolderError as e:  # (a limit of the folder's search, met on the way)
            reason = f"{e} (after {self.positions:,} positions on disk)"
        else:
            if self.signalled:
                reason = self._signal_words()
            elif reason:
                self._checkpoint_quietly()
                reason = self._signal_words() if self.signalled else self._stopped(reason)
        self.seconds = started + time.monotonic() - t0
        if not reason and self.state["won"]:
            reason = self._stopped(
                "the search on disk reached a won position, but it keeps no line to show it (the "
                "solver found none within its budget)", resumable=False)
        common = dict(seconds=self.seconds, width=self.state["idw"])
        if reason:
            return Outcome(UNKNOWN, self.positions, most_home=self.most_home, reason=reason,
                           limit="disk", **common)
        return Outcome(NO_WIN, self.positions, most_home=self.most_home, store=self, **common)

    def _tidy_as_saved(self):
        """Our files the saved state does not name removed (a step cut short may have moved the
        state in memory past the one saved, which is what a resume goes on from)."""
        import json
        try:
            with open(self._path(STATE)) as f:
                self.state = json.load(f)
        except (OSError, ValueError):
            return
        self._tidy()

    def _checkpoint_quietly(self):
        try:
            if self.state["step"] == "memory" and self.holding:
                self._spill()  # (the successors its expanded keys gave the next bucket)
                self._dump()
            elif self.state["step"] == "expand" and self.expander.buffered:
                self._spill()
            self._checkpoint()
        except (OSError, self.x.Stopped):  # (a signal meanwhile: the last checkpoint stands)
            pass

    def _signal_words(self):
        import signal
        name = signal.Signals(self.signalled).name if self.signalled else "a request"
        return self._stopped(f"stopped by {name}")

    def _stopped(self, why, resumable=True):
        words = f"{why} after {self.positions:,} positions on disk"
        if resumable:
            words += f"; the work is kept in {self.folder}"
            if self.disk.command:
                words += f": go on with `{self.disk.command}`"
        return words

    def _memory_slice(self):
        """A slice of the bucket held in memory, its foundation groups one after another (see
        the module's docstring): the set loaded (its keys found so far, those to expand marked)
        if it is not yet, then explored, the groups not yet begun held as it needs them. Past the
        set's budget, the groups closed beside the one under way are written out, sorted (a part
        of the bucket), and it goes on alone; a group alone past the budget is saved for the
        layers on disk to go on with. With every group closed, the bucket is its parts, one after
        another."""
        s, x = self.state, self.expander
        if not self.holding and not self._hold():
            return
        status = x.explore(SLICE)
        if status == self.x.SLICE_OVER:
            if time.monotonic() - self.dumped > max(CHECKPOINT_EVERY, 5 * self.dump_seconds):
                self._spill()
                self._dump()
                self._checkpoint()
                self._compact()
            return
        if status == self.x.NO_MEMORY:
            raise MemoryError
        self._spill()
        if status == self.x.NEXT_FULL:
            # (its runs are named at the next checkpoint, with the set they came from; or at a
            # merge of them, before: a resume then expands again what made some of them, and
            # the merges drop the repeats that gives)
            self._compact()
            return
        if status == self.x.SET_FULL and x.closed:
            self._part()
            self._checkpoint()
            return
        if status == self.x.SET_FULL and x.loading:  # (its start keys alone do not fit)
            group, at = x.group, x.group_start
            self._let_go("expand")
            name = self._name("group")
            n = self.x.copy_group(self._b(s["first"][0]), x.keylen, at, s["first"][1],
                                  self._b(name), self.rules.foundation_moves)
            s["visited"] = s["frontier"] = [name, n]
            s.update(next=at + n, closed=0, group=group, unsorted=False, offset=0, layer=0)
            self._checkpoint()
            return
        if status == self.x.CLOSED and not x.held:  # (every group in parts already)
            self._let_go("memory")
            self._close_bucket()
            return
        self._dump(keep=False)
        if status == self.x.CLOSED:
            s["parts"].append(s["visited"])
            s["visited"] = s["frontier"] = None
            self._let_go("memory")
            self._close_bucket()
            return
        if status == self.x.SET_FULL:  # (the group alone: its layers on disk are the bucket's)
            s["closed"] = s["layer"] = 0
            self._let_go("expand")
        self._checkpoint()
        if status == self.x.COLUMNS_FULL:
            self._let_go("memory")
            self._widen()

    def _hold(self):
        """The bucket's set loaded from its save (if any) and its start keys named as the groups'
        source: whether it fits (else the saved files go on in layers on disk)."""
        s, x = self.state, self.expander
        budget = held_bytes(self.memory, self.threads)
        self.holding = True
        fits = True
        if s["visited"]:
            fits = x.hold(self._b(s["visited"][0]), s["visited"][1], False, budget) and \
                (not s["frontier"][1] or
                 x.hold(self._b(s["frontier"][0]), s["frontier"][1], True, budget))
        first = s["first"]
        x.source(self._b(first[0]) if first else None, s["next"], first[1] if first else 0,
                 s["closed"] if fits else 0, budget)
        self.dumped = time.monotonic()
        if not fits and s.get("unsorted"):
            raise WorkFolderError(
                f"the bucket saved in {self.folder} was held in memory and does not fit in "
                f"--memory {size_text(self.memory)}: resume with the --memory it had, "
                f"{size_text(s['memory'])}")
        if not fits:  # (the files stay as they are: the layers begin from them)
            if s["closed"]:  # (groups closed with it, when the set was saved: in the layers too)
                s["closed"], s["group"] = 0, None
            s["layer"] = 0
            self._let_go("expand")
            self._checkpoint()
        return fits

    def _part(self):
        """The set full, with groups closed beside the one under way: those written out, sorted,
        as the bucket's next part; the one under way saved, sorted, to be held alone (or, if its
        start keys were still going in, begun again from them)."""
        s, x = self.state, self.expander
        loading, at, later, group = x.loading, x.group_start, x.next, x.group
        part, visited, still = self._name("part"), self._name("held"), self._name("open")
        n, m, c = x.dump(self._b(visited), self._b(still), False, self._b(part))
        self.holding = False
        s["parts"].append([part, c])
        if loading:
            s["visited"] = s["frontier"] = None
        else:
            s["visited"] = [visited, n]
            s["frontier"] = [still, m] if m else [visited, 0]
        s.update(next=at if loading else later, closed=0, group=group, unsorted=False, offset=0)

    def _close_bucket(self):
        """Every group of the bucket closed: its parts, one after another, are its sorted file
        (concatenated: no merge), and the bucket is done."""
        s = self.state
        parts = s["parts"]
        while len(parts) > 1:
            out = self._name("bucket")
            n = self.x.concat([self._b(e[0]) for e in parts[:CONCAT_AT_ONCE]],
                              self.expander.keylen, self._b(out))
            parts[:CONCAT_AT_ONCE] = [[out, n]]
            if len(parts) > 1:
                self._checkpoint()
        s["done"].append([s["bucket"], parts[0][0], parts[0][1]])
        s["layer"] += 1
        s.update(begun(None))
        s["step"] = "next"
        self._checkpoint()

    def _dump(self, keep=True):
        """Save the held bucket: all its keys, and those still to expand; kept in memory to go
        on with, or (keep=False) let go of. The groups not yet begun are the source's from
        `next` on (a save is made between groups' loading, never in one)."""
        s, x = self.state, self.expander
        t0 = time.monotonic()
        s.update(next=x.next, closed=x.closed, group=x.group or s["group"])
        visited, still = self._name("held"), self._name("open")
        n, m = x.dump(self._b(visited), self._b(still), keep)
        self.holding = keep
        s["unsorted"] = keep  # (a save of a bucket in memory: only hold() reads it)
        s["visited"] = [visited, n]
        s["frontier"] = [still, m] if m else [visited, 0]
        s["offset"] = 0
        self.dumped = time.monotonic()
        self.dump_seconds = self.dumped - t0  # (the old files go at the next checkpoint)

    def _let_go(self, step):
        self.expander.release()
        self.holding = False
        self.state["step"] = step

    def _expand_slice(self):
        s = self.state
        name, count = s["frontier"]
        status, offset = self.expander.expand(self._b(name), s["offset"], count, SLICE)
        s["offset"] = offset
        x = self.x
        if status == x.SLICE_OVER:
            return
        if status == x.NO_MEMORY:
            raise MemoryError
        self._spill()
        if status == x.EXHAUSTED:
            s["step"] = "merge"
        self._checkpoint()
        if status == x.COLUMNS_FULL:
            self._widen()
        self._compact()

    def _compact(self):
        """Runs waiting for a merge kept few and small: once MERGE_AT of a kind wait, or the later
        ones outweigh the first (which is what such merges made), they are merged into one
        (fanin() at most at once), repeats dropped, and this layer's runs less the bucket's
        visited keys too, once they weigh half as much as those (so that reading them is paid
        for); then checkpointed. So their bytes stay near the distinct new positions among them,
        not the successors made (mostly positions met before, or made twice), and a key is
        rewritten a few times in all (each such merge at least doubles the first). Pending runs
        are merged a bucket at a time (a run holds one bucket's keys)."""
        s = self.state
        if s["step"] == "expand":  # (at a layer's end its merge takes the runs: none before)
            merged = self._compacted(s["runs"], self._parts())
            if merged is not None:
                s["runs"] = merged
                self._checkpoint()
        for bucket in sorted({r[2] for r in s["pending"]}):
            runs = [r for r in s["pending"] if r[2] == bucket]
            merged = self._compacted(runs, [])
            if merged is not None:
                s["pending"] = [r for r in s["pending"] if r[2] != bucket] + \
                    [merged[0] + [bucket]] + merged[1:]
                self._checkpoint()

    def _compacted(self, runs, less):
        """`runs` with their first fanin() merged into one less the files `less`, if _compact
        says they should be; else None."""
        if len(runs) < 2:
            return None
        sizes = [os.path.getsize(self._path(r[0])) for r in runs]
        least = max([sizes[0]] + [os.path.getsize(self._path(e[0])) // 2 for e in less])
        if len(runs) < MERGE_AT and sum(sizes[1:]) < least:
            return None
        return [self._merge(runs[:self.fanin], less)] + runs[self.fanin:]

    def _spill(self):
        """The buffer written: this bucket's successors as a run of the layer, each later
        bucket's as a pending run of that bucket ([name, keys, bucket])."""
        s = self.state
        same = self._name("run")
        later = {h: self._name(f"pending{h:02d}") for h in self.expander.ahead}
        a, written = self.expander.spill(self._b(same),
                                         {h: self._b(name) for h, name in later.items()})
        if a:
            s["runs"].append([same, a])
        for h, count in sorted(written.items()):
            s["pending"].append([later[h], count, h])

    def _widen(self):
        """Past 65,536 columns: every file rewritten with 3-byte ids (the order kept)."""
        s = self.state
        if s["idw"] == 3:
            raise WorkFolderError("more than 16,777,216 distinct columns")
        renamed = {}
        for name in sorted(self._named() - {s["columns"]}):
            wide = self._name("wide")
            self.x.widen(self._b(name), self._b(wide), self.rules.ncells)
            renamed[name] = wide

        def new(entry):
            return [renamed[entry[0]]] + entry[1:]
        s["done"] = [[e[0], renamed[e[1]], e[2]] for e in s["done"]]
        s["visited"] = new(s["visited"]) if s["visited"] else None
        s["frontier"] = new(s["frontier"]) if s["frontier"] else None
        s["first"] = new(s["first"]) if s["first"] else None
        s["parts"] = [new(e) for e in s["parts"]]
        s["fresh"] = [new(e) for e in s["fresh"]]
        s["runs"] = [new(r) for r in s["runs"]]
        s["pending"] = [new(r) for r in s["pending"]]
        s["idw"] = 3
        columns = self.expander.columns()
        self.expander = self._expander(columns)
        self._checkpoint()
        for name in renamed:
            self._remove(name)

    def _merge(self, runs, less=(), what="merged"):
        """The keys of `runs` (sorted files) less those of the files `less`, into one new file:
        [its name, its keys]; those of `less` looked up by their block index when the runs are
        few beside them (the module's docstring), else read through. (The callers keep to
        fanin() runs at once, in passes if need be, each checkpointed.)"""
        out = self._name(what)
        inputs, w = [self._b(r[0]) for r in runs], self.expander.keylen
        files = [self._b(e[0]) for e in less]
        if less and sum(r[1] for r in runs) <= LOOK_UP_BELOW * sum(e[1] for e in less):
            new = self.x.merge_looked(inputs, w, self._b(out), files,
                                      [self._index(e[0]) for e in less], self.threads,
                                      **self.split)
        else:
            new = self.x.merge(inputs, w, self._b(out), files, self.threads, **self.split)
        return [out, new]

    def _index(self, name):
        """The block index of the key file `name` (external.c's index()), read once while the
        file is named: a file's name is never used again for other keys, and its identity on
        disk (inode, size, time) guards against one replaced meanwhile all the same."""
        st = os.stat(self._path(name))
        seen = (st.st_ino, st.st_size, st.st_mtime_ns)
        kept = self.indexes.get(name)
        if kept is None or kept[0] != seen:
            kept = self.indexes[name] = (seen, self.x.index(self._b(name), self.expander.keylen))
        return kept[1]

    def _parts(self):
        """The files of the bucket's positions found so far: the visited file and the fresh
        ones (no key in two of them)."""
        return [self.state["visited"]] + self.state["fresh"]

    def _merge_step(self):
        """The layer's runs merged: fanin() of them into one (a pass), or all of them, less the
        group's positions found before, into the next frontier, which is also the group's
        newest fresh file. With nothing new the group is closed: its files merged into one, the
        bucket's next part; the groups after it are held in memory again."""
        s = self.state
        if len(s["runs"]) > self.fanin:
            self._pass("runs")
            return
        frontier = self._merge(s["runs"], self._parts(), "frontier") if s["runs"] else None
        s["runs"], s["offset"] = [], 0
        s["layer"] += 1
        if frontier is not None and frontier[1]:
            s["frontier"] = frontier
            s["fresh"].append(list(frontier))
            s["step"] = "expand"
            self._checkpoint()  # (what the state no longer names goes: the runs, the old frontier)
            self._settle()
            return
        parts = self._parts()
        whole = self._merge(parts, (), "part") if len(parts) > 1 else s["visited"]
        s["parts"].append(whole)
        s["frontier"] = s["visited"] = None
        s["fresh"], s["group"] = [], None
        s["step"] = "memory"
        self._checkpoint()

    def _settle(self):
        """The bucket's fresh files kept few: the positions each layer found are kept as they
        came (no layer rewrites the visited file, as a single file of the bucket's positions
        would need), until they outweigh the visited file, when all are merged into it (so that
        a key is rewritten a few times in a bucket, not once a layer), or until they are many,
        when the newest are merged into one, back to the first that outweighs all newer ones
        together, left as it is with those before it (at a group's end, the large files of its
        middle layers are not rewritten for every few small layers). Checkpointed."""
        s = self.state
        fresh = s["fresh"]
        most = max(2, min(MERGE_AT, self.fanin - 1))
        if len(fresh) < 2:
            return
        sizes = [os.path.getsize(self._path(e[0])) for e in fresh]
        if sum(sizes) >= os.path.getsize(self._path(s["visited"][0])):
            s["visited"], s["fresh"] = self._merge(self._parts(), (), "visited"), []
        elif len(fresh) >= most:
            at = len(fresh) - 2
            while at and sizes[at - 1] <= sum(sizes[at:]):
                at -= 1
            s["fresh"] = fresh[:at] + [self._merge(fresh[at:], (), "fresh")]
        else:
            return
        self._checkpoint()

    def _pass(self, which):
        """fanin() of the state's `which` runs merged into one, checkpointed."""
        s = self.state
        gone = s[which][:self.fanin]
        s[which] = [self._merge(gone)] + s[which][self.fanin:]
        self._checkpoint()

    def _next_bucket(self):
        """The next bucket begun, the one of fewest cards home with pending runs (every bucket
        that could send it more is done): its runs merged into its first frontier (which is also
        all it has visited), fanin() at a time; or, with none, the search is over."""
        s = self.state
        if not s["pending"]:
            s["step"] = "done"
            self._checkpoint()
            return
        bucket = min(r[2] for r in s["pending"])
        runs = [r for r in s["pending"] if r[2] == bucket]
        others = [r for r in s["pending"] if r[2] != bucket]
        if len(runs) > self.fanin:
            s["pending"] = others + [self._merge(runs[:self.fanin]) + [bucket]] + \
                runs[self.fanin:]
            self._checkpoint()
            return
        first = self._merge(runs)
        s["pending"] = others
        s["bucket"] = bucket
        s["layer"] = 0
        s["visited"], s["frontier"], s["fresh"] = None, None, []
        s.update(begun(first))
        s["step"] = "memory"
        self._checkpoint()

    # ---- the certificate ---------------------------------------------------------------

    def table(self):
        """(the certificate's column table, the search's id -> its id as bytes, id width)."""
        s = self.state
        columns = self.expander.columns()
        used = bytearray(len(columns))
        for _, name, _ in s["done"]:
            self.x.mark_used(self._b(name), self.rules.ncells, s["idw"], used)
        order = sorted((i for i in range(len(columns)) if used[i]), key=columns.__getitem__)
        renumber = [0] * len(columns)
        for new, old in enumerate(order):
            renumber[old] = new
        import array
        ids = array.array("I", renumber)
        width = 2 if len(order) <= 1 << 16 else 3 if len(order) <= 1 << 24 else 4
        return [columns[i] for i in order], ids.tobytes(), width

    def records(self, table_ids=None, block=1 << 20):
        """The certificate's records, in its order: an iterator of bytes, each whole records."""
        s = self.state
        table, ids, width = table_ids or self.table()
        finisher = self.x.Finisher([self._b(name) for _, name, _ in s["done"]], self.rules,
                                   s["idw"], ids, width)
        while True:
            rows = finisher.next(block)
            if not rows:
                break
            yield rows
        if finisher.emitted != self.positions:
            raise AssertionError(f"{finisher.emitted} records of {self.positions} positions")

    def close(self):
        """Let go of the folder's lock (at the latest when this object goes)."""
        if getattr(self, "lock", None) is not None:
            os.close(self.lock)
            self.lock = None

    __del__ = close

    def full_disk(self, e):
        """The words of an UNKNOWN for an OSError met writing the certificate, if it is a full
        disk (the search is kept: a resume writes it again), else None."""
        import errno
        if e.errno not in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
            return None
        return self._stopped("the disk is full under the certificate being written")

    def write_certificate(self, out, deal, board):
        """Write the no-win certificate to `out` (a path output.target settled, or '-') as the
        records stream out of the work folder into writer.NowinWriter, in memory about a
        chunk's: (its size, its SHA-256). The same bytes as the in-memory engine's writer."""
        from ..format.writer import NowinWriter
        table, ids, width = self.table()
        with NowinWriter(out, table, self.rules, deal=deal, board=board) as w:
            for rows in self.records((table, ids, width)):
                w.add(rows)
            return w.close()

    def remove(self):
        """Clear the work folder (the certificate is written): our files, then the folder if
        it is empty."""
        for name in os.listdir(self.folder):
            if name == STATE or name.endswith(SUFFIXES):
                self._remove(name)
        self.close()
        try:
            os.rmdir(self.folder)
        except OSError:
            pass
