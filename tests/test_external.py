"""The search on disk (certify/engine/on_disk.py, certify/engine/external.c) against the in-memory
engine and the pure-Python reference: the same positions, the same certificate bytes, whatever
the memory budget (a tiny one spills at every few thousand successors and merges in passes),
the symmetry, the cells, the foundation moves, the closure (every move, or every move then safe
autoplay, whose successors may land buckets ahead); a resume after a stop or a kill gives the
same bytes; a full disk or an unusable work folder is an UNKNOWN or one line, never a
traceback."""

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from certify import engine
from certify.engine import on_disk, work_folder
from certify.game.deals import deal
from certify.outcome import NO_WIN, UNKNOWN
from certify.game.rules import Rules, start
from certify.engine.reference.search import Search as Reference
from support.key_files import key_file, keys_of, merge_case
from support.position_counts import known_count

pytestmark = pytest.mark.skipif(not on_disk.available(), reason="the disk search is not built")

ROOT = Path(__file__).resolve().parent.parent


def records_of(outcome, rules):
    """(column table, records in order) of a finished in-memory search, worked out here from its
    keys and columns as the format says: ids renumbered by content, re-sorted under symmetry."""
    keys, columns = list(outcome.keys), outcome.columns
    at = 4 + rules.ncells
    width = (len(keys[0]) - at) // 8
    old = [[int.from_bytes(k[j:j + width], "big") for j in range(at, len(k), width)]
           for k in keys]
    used = sorted(set().union(*old), key=columns.__getitem__)
    renumber = {o: n for n, o in enumerate(used)}
    w = 2 if len(used) <= 1 << 16 else 3
    records = []
    for k, ids in zip(keys, old):
        ids = [renumber[i] for i in ids]
        if not rules.fixed_columns:
            ids.sort()
        records.append(k[:at] + b"".join(i.to_bytes(w, "big") for i in ids))
    return [columns[i] for i in used], sorted(records)


def disk_records(position, rules, folder, memory, narrow=1 << 16):
    """(column table, records in order, the search) of the search on disk."""
    search = on_disk.DiskSearch(position, rules, work_folder.Disk(folder), memory, narrow)
    outcome = search.run()
    assert outcome.verdict == NO_WIN, outcome.reason
    table, ids, width = search.table()
    rows = b"".join(search.records())
    w = 4 + rules.ncells + 8 * width
    return table, [rows[i:i + w] for i in range(0, len(rows), w)], search


def autoplay(ncells, fixed_columns=False):
    return Rules(ncells, fixed_columns, autoplay=True)


def case_id(number, rules):
    return (f"{number}-{rules.ncells}{'-fixed' if rules.fixed_columns else ''}"
            f"{'-fm' if rules.foundation_moves else ''}{'-autoplay' if rules.autoplay else ''}")


CASES = [(11982, Rules(4)), (11982, Rules(3)), (11982, Rules(4, True)),
         (7484159, Rules(3)), (1, Rules(2)), (617, Rules(3, False, True)),
         (7484159, Rules(3, True, True)),
         (11982, autoplay(4)), (11982, autoplay(3)), (11982, autoplay(4, True)),
         (146692, autoplay(4)), (1, autoplay(2)), (52, autoplay(1))]


@pytest.mark.parametrize("number,rules", CASES, ids=[case_id(n, r) for n, r in CASES])
def test_the_same_records_as_the_in_memory_engine(tmp_path, number, rules):
    position = start(deal(number))
    memory = engine.search(position, rules)
    assert memory.verdict == NO_WIN
    table, records, search = disk_records(position, rules, tmp_path / "work", 200_000)
    assert search.positions == memory.positions == len(records)
    assert (table, records) == records_of(memory, rules)
    assert search.most_home == memory.most_home


@pytest.mark.parametrize("memory", [64 << 20, 1 << 20, 1 << 16],
                         ids=["buckets-in-memory", "some-on-disk", "layers-on-disk"])
@pytest.mark.parametrize("rules", [Rules(2), autoplay(2)], ids=["moves", "autoplay"])
def test_the_same_records_whether_buckets_are_held_in_memory_or_not(tmp_path, memory, rules):
    position = start(deal(1))
    table, records, _ = disk_records(position, rules, tmp_path / "work", memory)
    assert (table, records) == records_of(engine.search(position, rules), rules)


class Ahead(on_disk.DiskSearch):
    """A search that keeps, over its spills, the most buckets ahead of the one under way that a
    successor in the buffer was."""

    furthest = 0

    def _spill(self):
        ahead = self.expander.ahead
        if ahead:
            type(self).furthest = max(type(self).furthest, ahead[-1] - self.state["bucket"])
        super()._spill()


@pytest.mark.parametrize("memory", [64 << 20, 1 << 16], ids=["held", "layers"])
def test_autoplay_sends_successors_buckets_ahead_and_the_records_are_the_same(tmp_path,
                                                                             monkeypatch,
                                                                             memory):
    """Deal 146692: a move, then the safe moves home after it, takes some positions 3 buckets
    on (3 more cards home), each spilled to its own bucket's run; the same records."""
    monkeypatch.setattr(Ahead, "furthest", 0)
    position, rules = start(deal(146692)), autoplay(4)
    search = Ahead(position, rules, work_folder.Disk(tmp_path / "work"), memory)
    assert search.run().verdict == NO_WIN
    assert Ahead.furthest >= 3
    assert table_and_records(search, rules) == records_of(engine.search(position, rules), rules)


def test_autoplay_stopped_and_resumed_again_and_again_in_layers(tmp_path, monkeypatch):
    """Deal 146692 on disk in layers, stopped by a time limit every few slices and resumed from
    the folder each time, pending runs of several buckets ahead waiting: the same records."""
    monkeypatch.setattr(on_disk, "SLICE", 0.002)
    monkeypatch.setattr(Ahead, "furthest", 0)
    position, rules = start(deal(146692)), autoplay(4)
    disk = work_folder.Disk(tmp_path / "work", resume=True)
    stops, waiting = 0, set()
    while True:
        search = Ahead(position, rules, disk, 1 << 16)
        waiting.add(len({r[2] for r in search.state["pending"]}))
        outcome = search.run(time_limit=0.01)
        if outcome.verdict == NO_WIN:
            break
        assert outcome.verdict == UNKNOWN and "kept in" in outcome.reason
        search.close()
        stops += 1
    assert stops > 3 and max(waiting) >= 2 and Ahead.furthest >= 3
    assert table_and_records(search, rules) == records_of(engine.search(position, rules), rules)


@pytest.mark.parametrize("memory", [64 << 20, 1 << 16], ids=["held", "layers"])
def test_autoplay_skips_buckets_that_no_position_falls_in(tmp_path, memory):
    """Deal 52 with one free cell: positions with 0 and 3..10 cards home, none with 1 or 2 (the
    safe moves home go three at once there, such as the AS, then the AH under it, then the 2H
    on a column's top): no bucket of theirs, the same records."""
    position, rules = start(deal(52)), autoplay(1)
    search = on_disk.DiskSearch(position, rules, work_folder.Disk(tmp_path / "work"), memory)
    assert search.run().verdict == NO_WIN
    assert [e[0] for e in search.state["done"]] == [0, *range(3, 11)]
    assert table_and_records(search, rules) == records_of(engine.search(position, rules), rules)


def table_and_records(search, rules):
    """(column table, records in order) of a finished search on disk."""
    table, ids, width = search.table()
    rows = b"".join(search.records())
    w = 4 + rules.ncells + 8 * width
    return table, [rows[i:i + w] for i in range(0, len(rows), w)]


def test_7484159_under_autoplay_spilled_is_the_in_memory_engines(tmp_path):
    """545,504 positions in 8 buckets: at 8 MiB the smaller ones held in memory, the larger ones
    in layers on disk."""
    position, rules = start(deal(7484159)), autoplay(4)
    memory = engine.search(position, rules)
    assert memory.positions == 545_504
    table, records, search = disk_records(position, rules, tmp_path / "work", 8 << 20)
    assert search.positions == memory.positions
    assert (table, records) == records_of(memory, rules)


@pytest.mark.parametrize("rules", [Rules(4), autoplay(4)], ids=["moves", "autoplay"])
def test_a_bucket_held_in_memory_saved_and_resumed_midway(tmp_path, monkeypatch, rules):
    """Saved at every slice (CHECKPOINT_EVERY 0), stopped after each by a time limit, resumed
    from the folder each time: the same records."""
    monkeypatch.setattr(on_disk, "CHECKPOINT_EVERY", 0)
    monkeypatch.setattr(on_disk, "SLICE", 0.002)
    position = start(deal(11982))
    disk = work_folder.Disk(tmp_path / "work", resume=True)
    stops = 0
    while True:
        search = on_disk.DiskSearch(position, rules, disk, 64 << 20)
        outcome = search.run(time_limit=0.01)
        if outcome.verdict == NO_WIN:
            break
        assert outcome.verdict == UNKNOWN and "kept in" in outcome.reason
        search.close()  # (as the process that stopped would, exiting)
        stops += 1
    assert stops > 3
    table, ids, width = search.table()
    rows = b"".join(search.records())
    w = 4 + rules.ncells + 8 * width
    assert (table, [rows[i:i + w] for i in range(0, len(rows), w)]) == \
        records_of(engine.search(position, rules), rules)
    search.remove()
    # a bucket saved from memory is resumed in memory: a smaller --memory is told so (stopped
    # inside bucket 0, 51,037 positions, 39,573 under autoplay, whatever the machine's speed)
    first = on_disk.DiskSearch(position, rules, disk, 64 << 20)
    assert first.run(max_positions=20_000).verdict == UNKNOWN
    assert first.state["step"] == "memory" and first.state["unsorted"]
    first.close()
    smaller = on_disk.DiskSearch(position, rules, disk, 1 << 16).run()
    assert smaller.verdict == UNKNOWN and "resume with the --memory it had, 64M" in \
        smaller.reason


def test_the_same_records_as_the_python_reference(tmp_path):
    position, rules = start(deal(11982)), Rules(3)
    reference = Reference(position, rules).run()
    table, records, _ = disk_records(position, rules, tmp_path / "work", 1 << 16)
    assert (table, records) == records_of(reference, rules)


@pytest.mark.parametrize("memory", [64 << 20, 1 << 16], ids=["held", "layers"])
@pytest.mark.parametrize("number,rules", [(11982, Rules(3)), (146692, autoplay(4))],
                         ids=["moves", "autoplay"])
def test_ids_widened_to_3_bytes_midway(tmp_path, memory, number, rules):
    """Past the columns 2-byte ids name (early here: narrow=64), every file is rewritten with
    3-byte ids and the search goes on: the same records. (Under autoplay a column that does not
    fit may be met in the safe moves home after a move, as well as in the move.)"""
    position = start(deal(number))
    table, records, search = disk_records(position, rules, tmp_path / "work", memory, 64)
    assert search.state["idw"] == 3
    assert (table, records) == records_of(engine.search(position, rules), rules)


def test_successors_looked_up_by_block_index_are_the_merge_s(tmp_path):
    """merge_looked (a layer's successors looked up in the group's files, only the blocks that
    could hold them read) writes the file merge writes: successors below the files' first key,
    above their last, on a block's first or last key, between two blocks, in either file, in
    two runs at once; and with a file of no keys or none at all."""
    import random
    x = on_disk._native()
    rng, w = random.Random(5), 6
    every = sorted({bytes([rng.randrange(3), rng.randrange(4)]) + rng.randbytes(4)
                    for _ in range(60_000)})
    known = every[1:-1]
    a = sorted(rng.sample(known, 30_000))
    b = sorted(set(rng.sample(known, 20_000)) - set(a))
    firsts = [a[i] for i in range(0, len(a), 8192)]
    edges = firsts + [a[i - 1] for i in range(8192, len(a), 8192)] + [a[-1], b[0], b[-1]]
    runs = [sorted(set(rng.sample(known, 400) + edges + [every[0]])),
            sorted(set(rng.sample(known, 300) + edges[:3] + [every[-1]]))]
    files = [key_file(tmp_path / "a.keys", a, w), key_file(tmp_path / "b.keys", b, w),
             key_file(tmp_path / "none.keys", [], w)]
    inputs = [key_file(tmp_path / f"run{i}.keys", r, w) for i, r in enumerate(runs)]
    indexes = [x.index(f, w) for f in files]
    assert [len(i) // (w + 8) for i in indexes] == [4, 2, 0]
    asked = set(runs[0]) | set(runs[1])
    for chosen in ([0, 1, 2], [0], [1, 0], [2], []):
        less = [files[i] for i in chosen]
        merged, looked = tmp_path / "merged.keys", tmp_path / "looked.keys"
        n = x.merge(inputs, w, os.fsencode(merged), less)
        assert x.merge_looked(inputs, w, os.fsencode(looked), less,
                              [indexes[i] for i in chosen]) == n
        assert looked.read_bytes() == merged.read_bytes()
        gone = set(a if 0 in chosen else []) | set(b if 1 in chosen else [])
        assert n == len(asked - gone)
        merged.unlink()
        looked.unlink()


def test_a_lookup_by_an_index_not_the_file_s_is_an_error_never_a_wrong_file(tmp_path):
    """An index that is not the file's (the file changed since) is an error, as keys out of
    order are for merge; a file cut short is an OSError."""
    x = on_disk._native()
    w = 4
    a = [i.to_bytes(4, "big") for i in range(0, 60_000, 2)]
    b = [i.to_bytes(4, "big") for i in range(1, 60_000, 2)]
    fa, fb = key_file(tmp_path / "a.keys", a, w), key_file(tmp_path / "b.keys", b, w)
    run = key_file(tmp_path / "run.keys", [i.to_bytes(4, "big") for i in (5, 20_000, 50_001)], w)
    with pytest.raises(ValueError, match="out of order"):
        x.merge_looked([run], w, os.fsencode(tmp_path / "o1.keys"), [fa], [x.index(fb, w)])
    index = x.index(fa, w)
    data = Path(os.fsdecode(fa)).read_bytes()
    Path(os.fsdecode(fa)).write_bytes(data[:len(data) - 100])
    with pytest.raises(OSError):
        x.merge_looked([run], w, os.fsencode(tmp_path / "o2.keys"), [fa], [index])
    with pytest.raises(OSError):
        x.index(fa, w)


class Tail(on_disk.DiskSearch):
    """A search that counts its layers' merges less the group's files made by looking the
    successors up (`looked`) or by reading the files through (`read`), and its settles of fresh
    files that left older ones as they were."""

    merges = Counter()

    def _merge(self, runs, less=(), what="merged"):
        if less:
            few = sum(r[1] for r in runs) <= on_disk.LOOK_UP_BELOW * sum(e[1] for e in less)
            self.merges["looked" if few else "read"] += 1
        return super()._merge(runs, less, what)

    def _settle(self):
        before = list(self.state["fresh"])
        super()._settle()
        after = self.state["fresh"]
        if len(after) > 1 and after != before and after[:-1] == before[:len(after) - 1]:
            self.merges["settled-newest"] += 1


@pytest.mark.parametrize("rules", [
    pytest.param(Rules(2), marks=pytest.mark.slow), autoplay(2),
    pytest.param(Rules(2, False, True), marks=pytest.mark.slow)],
    ids=["moves", "autoplay", "foundation-moves"])
def test_a_group_s_last_layers_looked_up_give_the_same_records(tmp_path, monkeypatch, rules):
    """Deal 1 with 2 cells in layers on disk (64 KB): the groups' last layers, whose successors
    are few beside the group's files, are looked up in them, the middle ones merged with them,
    and settles merge the newest fresh files alone: the records are the in-memory engine's
    (with foundation moves, 1,171,238 positions in one group: the largest tail here)."""
    monkeypatch.setattr(Tail, "merges", Counter())
    position = start(deal(1))
    memory = 1 << 16 if not rules.foundation_moves else 4 << 20
    search = Tail(position, rules, work_folder.Disk(tmp_path / "work"), memory)
    assert search.run().verdict == NO_WIN
    assert Tail.merges["looked"] and Tail.merges["read"] and Tail.merges["settled-newest"], \
        Tail.merges
    assert table_and_records(search, rules) == records_of(engine.search(position, rules), rules)


class Watched(on_disk.DiskSearch):
    """A search that notes, at every checkpoint, the most runs of each kind waiting (pending runs
    a bucket; and fresh files of a bucket), and how many merges of waiting runs it made;
    `kill_at`, the merge of waiting runs at which it is killed (Killed)."""

    most = {"runs": 0, "pending": 0, "fresh": 0}
    compacted = 0
    compacting = False
    kill_at = None

    def _checkpoint(self):
        for which in self.most:
            waiting = self.state[which]
            if which == "pending":
                waiting = max(Counter(r[2] for r in waiting).values(), default=0)
            else:
                waiting = len(waiting)
            self.most[which] = max(self.most[which], waiting)
        super()._checkpoint()

    def _compact(self):
        self.compacting = True
        try:
            super()._compact()
        finally:
            self.compacting = False

    def _merge(self, runs, less=(), what="merged"):
        out = super()._merge(runs, less, what)
        if self.compacting:
            type(self).compacted += 1
            if type(self).compacted == self.kill_at:
                name = self._path(out[0])
                with open(name, "r+b") as f:   # (cut short, as a kill mid-write leaves it)
                    f.truncate(os.path.getsize(name) // 2)
                raise Killed
        return out


class Killed(BaseException):
    """A kill -9 in the middle of a merge, as the folder sees it: the output half-written, no
    checkpoint after it."""


@pytest.mark.parametrize("number,rules,memory", [(1, Rules(2), 1 << 16), (11982, Rules(4), 1 << 16),
                                                 (11982, Rules(4), 64 << 20),
                                                 (146692, autoplay(4), 1 << 16),
                                                 (1387739, autoplay(4), 64 << 20)],
                         ids=["layers-on-disk", "11982", "held-buckets", "autoplay-layers",
                              "autoplay-held"])
def test_waiting_runs_merged_as_they_come_give_the_same_records(tmp_path, monkeypatch, number,
                                                                  rules, memory):
    """With MERGE_AT 3, waiting runs (a layer's, less the bucket's keys, and each later bucket's)
    are merged into one every few spills, and a bucket's fresh files (a layer's new keys each)
    every few layers: never more than 3 wait (of a bucket), and the records are the same.
    (A buffer of 16 KiB: a bucket held in memory fills it with the next one's many times.)"""
    monkeypatch.setattr(on_disk, "MERGE_AT", 3)
    monkeypatch.setattr(on_disk, "buffer_bytes", lambda memory: 1 << 14)
    monkeypatch.setattr(Watched, "most", {"runs": 0, "pending": 0, "fresh": 0})
    monkeypatch.setattr(Watched, "compacted", 0)
    position = start(deal(number))
    search = Watched(position, rules, work_folder.Disk(tmp_path / "work"), memory)
    assert search.run().verdict == NO_WIN
    assert Watched.compacted > 3
    assert max(Watched.most.values()) <= 3, Watched.most
    assert Watched.most["fresh"] == (3 if memory == 1 << 16 else 0)  # (a layer's new keys kept)
    table, ids, width = search.table()
    rows = b"".join(search.records())
    w = 4 + rules.ncells + 8 * width
    assert (table, [rows[i:i + w] for i in range(0, len(rows), w)]) == \
        records_of(engine.search(position, rules), rules)
    # the keys on disk: front-coded and compressed, a fraction of their 22 bytes each
    kept = sum((tmp_path / "work" / name).stat().st_size for _, name, _ in search.state["done"])
    assert kept < 6 * search.positions, kept / search.positions


def test_a_search_killed_in_a_merge_of_waiting_runs_resumes_to_the_same_records(tmp_path,
                                                                                 monkeypatch):
    monkeypatch.setattr(on_disk, "MERGE_AT", 2)
    position, rules = start(deal(1)), Rules(2)
    disk = work_folder.Disk(tmp_path / "work", resume=True)
    kills = 0
    for kill_at in (1, 4, 9, 20):
        monkeypatch.setattr(Watched, "compacted", 0)
        monkeypatch.setattr(Watched, "kill_at", kill_at)
        search = Watched(position, rules, disk, 1 << 16)
        try:
            outcome = search.run()
        except Killed:
            kills += 1
            search.close()
            continue
        break
    else:
        monkeypatch.setattr(Watched, "kill_at", None)
        search = Watched(position, rules, disk, 1 << 16)
        outcome = search.run()
    assert kills >= 3 and outcome.verdict == NO_WIN
    table, ids, width = search.table()
    rows = b"".join(search.records())
    w = 4 + rules.ncells + 8 * width
    assert (table, [rows[i:i + w] for i in range(0, len(rows), w)]) == \
        records_of(engine.search(position, rules), rules)


def test_a_stop_asked_stops_a_merge_in_c(tmp_path):
    """stop(True) (what the SIGINT handler asks) makes a merge raise Stopped at its next look,
    its output left for a resume to remove; stop(False) and it merges."""
    search = on_disk.DiskSearch(start(deal(11982)), Rules(4), work_folder.Disk(tmp_path / "w"),
                                 1 << 16)
    assert search.run().verdict == NO_WIN
    x = search.x
    biggest = max(search.state["done"], key=lambda e: e[2])
    inputs = [os.fsencode(search._path(biggest[1]))] * (70_000 // biggest[2] + 1)
    x.stop(True)
    try:
        with pytest.raises(x.Stopped):
            x.merge(inputs, search.expander.keylen, os.fsencode(tmp_path / "a.keys"))
    finally:
        x.stop(False)
    assert x.merge(inputs, search.expander.keylen, os.fsencode(tmp_path / "b.keys")) == biggest[2]
    assert x.count(os.fsencode(tmp_path / "b.keys"), search.expander.keylen) == biggest[2]


def test_a_stop_asked_stops_a_bucket_held_in_memory_in_c(tmp_path):
    """stop(True) makes explore() (a bucket held in memory) raise Stopped at its next look, the
    keys it had not expanded still to expand, not return CLOSED as if the bucket were done;
    stop(False) and it closes the bucket."""
    x = on_disk._native()
    found, cells, cols = start(deal(11982))
    expander = x.Expander(Rules(4), 2, [], 1 << 24)
    path = os.fsencode(tmp_path / "start.keys")
    expander.start(path, bytes(found), bytes(sorted(cells)), tuple(bytes(c) for c in cols))
    assert expander.hold(path, 1, True, 1 << 28)
    x.stop(True)
    try:
        with pytest.raises(x.Stopped):
            expander.explore(600.0)
    finally:
        x.stop(False)
    assert expander.open > 0
    assert expander.explore(600.0) == x.CLOSED
    assert expander.open == 0 and expander.held > 256


def test_sigint_in_process_stops_within_seconds(tmp_path):
    """SIGINT while the search runs (mostly in C, without the GIL): UNKNOWN, said as stopped by
    SIGINT, soon after; the folder goes on to the same records."""
    import threading
    position, rules = start(deal(7484159)), Rules(4)
    disk = work_folder.Disk(tmp_path / "work", resume=True)
    search = on_disk.DiskSearch(position, rules, disk, 1 << 20)
    sent = []

    def interrupt():
        sent.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)

    # As in a terminal (a run in the background, such as CI's, may have SIGINT ignored).
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        timer = threading.Timer(1.0, interrupt)
        timer.start()
        outcome = search.run()
        answered = time.monotonic()
        timer.join()
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # (put back)
    finally:
        signal.signal(signal.SIGINT, before)
    assert outcome.verdict == UNKNOWN and "stopped by SIGINT" in outcome.reason, outcome.reason
    assert answered - sent[0] < 10
    search.close()


def test_an_ignored_sigint_stays_ignored(tmp_path):
    """Run under nohup or as a shell's background job, SIGINT is ignored: the search leaves it so
    (and still takes SIGTERM)."""
    position, rules = start(deal(11982)), Rules(4)
    search = on_disk.DiskSearch(position, rules, work_folder.Disk(tmp_path / "work"), 1 << 20)
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    seen = []
    real = signal.signal

    def watch(number, handler):
        seen.append(number)
        return real(number, handler)

    try:
        signal.signal = watch
        outcome = search.run()
    finally:
        signal.signal = real
        signal.signal(signal.SIGINT, before)
    assert outcome.verdict == NO_WIN
    assert signal.SIGINT not in seen and signal.SIGTERM in seen
    search.close()


def test_sigint_and_sigterm_exit_128_plus_the_signal_with_a_folder_that_resumes(tmp_path):
    """Ctrl-C is exit 130 wherever the search is, in memory or on disk (README's exit codes);
    SIGTERM 143. The UNKNOWN line says how to go on."""
    args = [1, "--cells", "2", "--on-disk", "--memory", "1M", "-o", "a.zst"]
    state = tmp_path / "a.zst.work" / "search.json"
    for number in (signal.SIGINT, signal.SIGTERM):
        again = ["--resume"] if state.exists() else []
        # (SIGINT as in a terminal: a background run, such as CI's, may have it ignored)
        child = subprocess.Popen([sys.executable, "-m", "certify", *map(str, args + again)],
                                 cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True, preexec_fn=lambda: signal.signal(signal.SIGINT,
                                                                             signal.SIG_DFL))
        seen = saved_positions(state)
        for _ in range(5000):  # until a checkpoint further on than the last
            if child.poll() is not None or saved_positions(state) > max(seen, 1):
                break
            time.sleep(0.002)
        child.send_signal(number)
        out, err = child.communicate(timeout=60)
        assert child.returncode == 128 + number, (out, err)
        line = out.strip()
        assert "\n" not in line and line.startswith("UNKNOWN: deal 1") and "Traceback" not in err
        assert f"stopped by {signal.Signals(number).name}" in line
        assert "go on with `certify 1 --cells 2 --on-disk --memory 1M -o a.zst --resume`" in line
        assert state.exists() and not (tmp_path / "a.zst").exists()
    resumed = run_certify(*args, "-q", "--resume", cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    whole = run_certify(1, "-q", "--cells", "2", "--no-spill", "-o", "b.zst", cwd=tmp_path)
    assert (tmp_path / "a.zst").read_bytes() == (tmp_path / "b.zst").read_bytes()


def test_a_folder_of_another_layout_is_refused_in_one_line(tmp_path):
    stopped = run_certify(11982, "-q", "--on-disk", "--memory", "1M", "--time-limit", "0.2",
                          "--work-dir", "w", "-o", "a.zst", cwd=tmp_path)
    assert stopped.returncode == 3
    path = tmp_path / "w" / "search.json"
    state = json.loads(path.read_text())
    state["version"] = 1
    path.write_text(json.dumps(state))
    old = run_certify(11982, "--resume", "--work-dir", "w", "-o", "a.zst", cwd=tmp_path)
    assert old.returncode == 2 and old.stderr.count("\n") == 1 and "Traceback" not in old.stderr
    assert "cannot be resumed: remove it to start again" in old.stderr, old.stderr
    assert path.exists() and not (tmp_path / "a.zst").exists()


def test_a_folder_of_one_closure_is_not_resumed_under_the_other(tmp_path):
    """Its positions would be another set: refused in one line (as another deal's would be),
    and the folder still goes on under its own closure."""
    position = start(deal(11982))
    for first, then in ((Rules(4), autoplay(4)), (autoplay(4), Rules(4))):
        folder = tmp_path / f"{first.autoplay}"
        begun = on_disk.DiskSearch(position, first, work_folder.Disk(folder), 1 << 20)
        assert begun.run(max_positions=5000).verdict == UNKNOWN
        begun.close()
        with pytest.raises(work_folder.WorkFolderError, match=r"other rules \(or closure"):
            on_disk.DiskSearch(position, then, work_folder.Disk(folder, resume=True), 1 << 20)
        again = on_disk.DiskSearch(position, first, work_folder.Disk(folder, resume=True), 1 << 20)
        assert again.run().verdict == NO_WIN
        again.close()


def as_version_4(state):
    """A state of this version as version 4 wrote it, which held a bucket whole: its fields of a
    bucket's foundation groups dropped, which must say one group (bucket 0 has one: nothing
    home), its start keys not begun (4's visited and frontier both), or begun whole."""
    first, parts, closed = state.pop("first"), state.pop("parts"), state.pop("closed")
    begun, group = state.pop("next"), state.pop("group")
    assert first and not parts and not closed and group in (None, [0, 0, 0, 0])
    if state["visited"] is None:
        assert state["step"] == "memory" and begun == 0
        state["visited"], state["frontier"] = first, list(first)
    else:
        assert begun == first[1]
    state["version"] = 4
    return state


def test_a_version_3_folder_resumes_to_the_same_records(tmp_path):
    """A folder of the layout before pending runs named their bucket (all were the next
    bucket's), stopped with some pending: read as such, and it goes on to the same records."""
    position, rules = start(deal(11982)), Rules(4)
    disk = work_folder.Disk(tmp_path / "work", resume=True)
    begun = on_disk.DiskSearch(position, rules, disk, 1 << 16)
    assert begun.run(max_positions=30_000).verdict == UNKNOWN
    begun.close()
    path = tmp_path / "work" / "search.json"
    state = as_version_4(json.loads(path.read_text()))
    assert state["pending"] and {r[2] for r in state["pending"]} == {state["bucket"] + 1}
    state["version"] = 3
    state["pending"] = [r[:2] for r in state["pending"]]
    path.write_text(json.dumps(state))
    search = on_disk.DiskSearch(position, rules, disk, 1 << 16)
    assert search.run().verdict == NO_WIN and search.state["version"] == work_folder.VERSION
    assert table_and_records(search, rules) == records_of(engine.search(position, rules), rules)


class Begun(BaseException):
    """A kill -9 just after a bucket's start keys were saved, before any of it was held."""


class StoppedAtABucket(on_disk.DiskSearch):
    """A search killed (Begun) once bucket `at` has begun."""

    at = None

    def _next_bucket(self):
        super()._next_bucket()
        if self.state["step"] == "memory" and self.state["bucket"] == self.at:
            raise Begun


@pytest.mark.parametrize("where", ["held", "layers", "a-bucket-begun"])
def test_a_version_4_folder_resumes_to_the_same_records(tmp_path, monkeypatch, where):
    """A folder of the layout that held a bucket whole: stopped in bucket 0 of 11982 held in
    memory (a save of it) or in layers, or just as bucket 6 of deal 1 began (4's start keys
    were its visited and frontier both): read as this version's (one group, the whole bucket;
    or the start keys, held a group at a time), and it goes on to the same records."""
    monkeypatch.setattr(on_disk, "SLICE", 0.002)
    number, rules = (1, Rules(2)) if where == "a-bucket-begun" else (11982, Rules(4))
    position = start(deal(number))
    disk = work_folder.Disk(tmp_path / "work", resume=True)
    memory = 1 << 16 if where == "layers" else 64 << 20
    if where == "a-bucket-begun":
        begun = StoppedAtABucket(position, rules, disk, memory)
        begun.at = 6
        with pytest.raises(Begun):
            begun.run()
    else:
        begun = on_disk.DiskSearch(position, rules, disk, memory)
        assert begun.run(max_positions=20_000).verdict == UNKNOWN
    begun.close()
    path = tmp_path / "work" / "search.json"
    state = as_version_4(json.loads(path.read_text()))
    assert state["bucket"] == (6 if where == "a-bucket-begun" else 0)
    assert state["step"] == {"held": "memory", "layers": "expand"}.get(where, "memory")
    path.write_text(json.dumps(state))
    search = on_disk.DiskSearch(position, rules, disk, memory)
    assert search.run().verdict == NO_WIN and search.state["version"] == work_folder.VERSION
    assert table_and_records(search, rules) == records_of(engine.search(position, rules), rules)


class Grouped(on_disk.DiskSearch):
    """A search that counts the ways it leaves memory (a part written, of groups closed beside
    the one under way, `part`; or of them beside a group whose start keys were going in,
    `part-loading`; a group alone to layers on disk, `layers`, or from its start keys,
    `layers-loading`) and keeps the progress display's words."""

    events = Counter()
    words = set()

    def _part(self):
        self.events["part-loading" if self.expander.loading else "part"] += 1
        super()._part()

    def _let_go(self, step):
        if step == "expand":
            self.events["layers-loading" if self.expander.loading else "layers"] += 1
        super()._let_go(step)

    def where(self):
        words = super().where()
        self.words.add(words)
        return words


class Progress:
    def note(self, words):
        pass

    def update(self, positions, most_home):
        pass


@pytest.mark.parametrize("rules,memory,ways", [
    (Rules(2), 5_000_000, {"part", "part-loading", "layers", "layers-loading"}),
    (autoplay(2), 7_000_000, {"part"})], ids=["every-way", "groups-in-memory"])
def test_a_bucket_held_a_foundation_group_at_a_time(tmp_path, monkeypatch, rules, memory, ways):
    """Deal 1 with 2 cells, whose buckets hold up to 4 foundation groups (bucket 4 of the plain
    closure: 37,334, 5,652, 305 and 12 positions): with a set of 80 KB, groups closed beside
    the one under way are written out when it fills, whether they were being explored or their
    start keys going in, and groups too large alone go to layers on disk, from their saved set
    or their start keys; under autoplay with a set of 1.6 MB, bucket 6 (34,186 positions, more
    than fit) is closed in memory as its two groups (26,502 and 7,684), no layers. The same
    records as the in-memory engine's, and the progress display names the group."""
    monkeypatch.setattr(Grouped, "events", Counter())
    monkeypatch.setattr(Grouped, "words", set())
    position = start(deal(1))
    search = Grouped(position, rules, work_folder.Disk(tmp_path / "work"), memory)
    assert search.run(progress=Progress()).verdict == NO_WIN
    assert set(Grouped.events) == ways, Grouped.events
    assert table_and_records(search, rules) == records_of(engine.search(position, rules), rules)
    import re
    assert any(re.match(r"bucket \d+ home, group \d+/\d+/\d+/\d+: ", w) for w in Grouped.words)


def test_a_bucket_of_groups_stopped_and_resumed_midway(tmp_path, monkeypatch):
    """Deal 1 with 2 cells in a set of 80 KB (every way of leaving memory, as above), saved at
    every slice (CHECKPOINT_EVERY 0), stopped by a time limit after a few and resumed from the
    folder each time, among them stops with a group under way and parts of its bucket written:
    the same records."""
    monkeypatch.setattr(on_disk, "CHECKPOINT_EVERY", 0)
    monkeypatch.setattr(on_disk, "SLICE", 0.002)
    position, rules = start(deal(1)), Rules(2)
    disk = work_folder.Disk(tmp_path / "work", resume=True)
    stops, midway = 0, 0
    while True:
        search = on_disk.DiskSearch(position, rules, disk, 5_000_000)
        outcome = search.run(time_limit=0.02)
        if outcome.verdict == NO_WIN:
            break
        assert outcome.verdict == UNKNOWN and "kept in" in outcome.reason
        s = search.state
        midway += bool(s["parts"] and s["first"] and (s["visited"] or s["next"] < s["first"][1]))
        search.close()
        stops += 1
    assert stops > 3 and midway > 0, (stops, midway)
    assert table_and_records(search, rules) == records_of(engine.search(position, rules), rules)


def run_certify(*args, cwd, env=None, **kwargs):
    return subprocess.run([sys.executable, "-m", "certify", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=900,
                          env=dict(os.environ, **(env or {})), **kwargs)


@pytest.mark.parametrize("closure", [[], ["--no-autoplay"]], ids=["autoplay", "moves"])
def test_certify_spills_past_its_memory_and_writes_the_same_bytes(tmp_path, closure):
    spilled = run_certify(11982, "-q", *closure, "--memory", "1M", "-o", "a.zst", cwd=tmp_path)
    assert spilled.returncode == 0, spilled.stderr
    whole = run_certify(11982, "-q", *closure, "--no-spill", "-o", "b.zst", cwd=tmp_path)
    assert whole.returncode == 0, whole.stderr
    assert (tmp_path / "a.zst").read_bytes() == (tmp_path / "b.zst").read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.zst", "b.zst"]  # work folder gone
    on_disk = run_certify(11982, "-q", *closure, "--on-disk", "--memory", "4M", "--work-dir",
                          "w", "-o", "c.zst", cwd=tmp_path)
    assert on_disk.returncode == 0, on_disk.stderr
    assert (tmp_path / "c.zst").read_bytes() == (tmp_path / "b.zst").read_bytes()


def test_a_custom_board_with_foundation_moves_spilled_is_the_same_file(tmp_path):
    board = run_certify("show", 617, cwd=tmp_path).stdout
    (tmp_path / "617.board").write_text(board.replace("Freecells: - - - -", "Freecells: - - -"))
    common = ["--board", "617.board", "--cells", "3", "--foundation-moves", "-q"]
    spilled = run_certify(*common, "--memory", "1M", "-o", "a.zst", cwd=tmp_path)
    whole = run_certify(*common, "--no-spill", "-o", "b.zst", cwd=tmp_path)
    assert spilled.returncode == whole.returncode == 0, spilled.stderr + whole.stderr
    assert (tmp_path / "a.zst").read_bytes() == (tmp_path / "b.zst").read_bytes()


def test_a_stopped_search_resumes_to_the_same_bytes(tmp_path):
    """Stopped by --time-limit (exit 3, the folder kept, the resume command said), with junk a
    kill would leave beside it; --resume goes on and writes the in-memory engine's bytes."""
    stopped = run_certify(11982, "--on-disk", "--memory", "1M", "--time-limit", "0.3",
                          "-o", "a.zst", cwd=tmp_path)
    assert stopped.returncode == 3, stopped.stderr
    line = stopped.stdout.strip()
    assert "\n" not in line and line.startswith("UNKNOWN: deal 11982")
    assert "go on with `certify 11982 --on-disk --memory 1M --time-limit 0.3 -o a.zst --resume`" \
        in line
    work = tmp_path / "a.zst.work"
    assert (work / "search.json").exists() and not (tmp_path / "a.zst").exists()
    (work / "999999-run.keys").write_bytes(b"cut short")
    resumed = run_certify(11982, "-q", "--memory", "1M", "--resume", "-o", "a.zst",
                          cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    whole = run_certify(11982, "-q", "--no-spill", "-o", "b.zst", cwd=tmp_path)
    assert (tmp_path / "a.zst").read_bytes() == (tmp_path / "b.zst").read_bytes()
    assert not work.exists()


def saved_positions(state):
    try:
        return json.loads(state.read_text()).get("positions", 0)
    except (OSError, ValueError):  # (not there yet, or caught between write and rename)
        return 0


def test_a_killed_search_resumes_to_the_same_bytes(tmp_path):
    """kill -9 at some moment of a spilling search, then --resume, as often as it takes."""
    args = [1, "-q", "--cells", "2", "--on-disk", "--memory", "1M", "-o", "a.zst"]
    child = subprocess.Popen([sys.executable, "-m", "certify", *map(str, args)], cwd=tmp_path,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    state = tmp_path / "a.zst.work" / "search.json"
    for _ in range(5000):  # until the state says a step is done: the search is under way
        if child.poll() is not None or saved_positions(state) > 1:
            break
        time.sleep(0.002)
    child.send_signal(signal.SIGKILL)
    assert child.wait() == -signal.SIGKILL  # (killed midway, not finished)
    assert state.exists() and not (tmp_path / "a.zst").exists()
    resumed = run_certify(*args, "--resume", cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    whole = run_certify(1, "-q", "--cells", "2", "--no-spill", "-o", "b.zst", cwd=tmp_path)
    assert (tmp_path / "a.zst").read_bytes() == (tmp_path / "b.zst").read_bytes()


def test_a_full_disk_is_an_unknown_with_the_resume_command(tmp_path):
    """Files capped at 64 KiB (RLIMIT_FSIZE: a write past it fails as a full disk would):
    exit 3, one line naming the disk and how to go on, no certificate."""
    import resource

    def cap():
        resource.setrlimit(resource.RLIMIT_FSIZE, (64 << 10, 64 << 10))

    done = run_certify(11982, "--on-disk", "--memory", "4M", "-o", "a.zst", cwd=tmp_path,
                       preexec_fn=cap)
    assert done.returncode == 3, done.stderr
    assert "Traceback" not in done.stderr
    line = done.stdout.strip()
    assert "\n" not in line and "is full after" in line and "--resume" in line
    assert not (tmp_path / "a.zst").exists()


def test_an_unusable_work_folder_is_one_line_before_any_work(tmp_path):
    (tmp_path / "file").write_text("x")
    (tmp_path / "theirs").mkdir()
    (tmp_path / "theirs" / "notes.txt").write_text("x")
    for folder, words in (("file", "is not a folder"), ("file/sub", "cannot make the work folder"),
                          ("theirs", "holds files that are not a search's")):
        done = run_certify(11982, "--work-dir", folder, "-o", "a.zst", cwd=tmp_path)
        assert done.returncode == 2 and done.stderr.count("\n") == 1 and words in done.stderr, \
            done.stderr
    assert (tmp_path / "theirs" / "notes.txt").read_text() == "x"
    # a folder of another deal's search, and one begun before without --resume
    stopped = run_certify(11982, "-q", "--on-disk", "--memory", "1M", "--time-limit", "0.2",
                          "--work-dir", "w", "-o", "a.zst", cwd=tmp_path)
    assert stopped.returncode == 3
    other = run_certify(617, "--resume", "--work-dir", "w", "-o", "b.zst", cwd=tmp_path)
    assert other.returncode == 2 and "another deal" in other.stderr
    again = run_certify(11982, "--on-disk", "--work-dir", "w", "-o", "a.zst", cwd=tmp_path)
    assert again.returncode == 2 and "--resume to go on" in again.stderr
    victim = max((tmp_path / "w").glob("*.keys"), key=lambda p: p.stat().st_size)
    victim.write_bytes(victim.read_bytes()[:-1])   # (as a crash of the system might leave it)
    damaged = run_certify(11982, "--resume", "--work-dir", "w", "-o", "a.zst", cwd=tmp_path)
    assert damaged.returncode == 2 and "is damaged" in damaged.stderr and \
        damaged.stderr.count("\n") == 1, damaged.stderr
    both = run_certify(11982, "--no-spill", "--resume", cwd=tmp_path)
    assert both.returncode == 2 and both.stderr.count("\n") == 1


def test_resume_with_nothing_to_resume_is_one_line_and_no_search(tmp_path):
    """--resume skips the solver and goes on on disk: with no stopped search in the folder (617
    is won in a moment by the solver) it would start an unbounded search nobody asked for."""
    for where in ([], ["--work-dir", "empty"]):
        if where:
            (tmp_path / "empty").mkdir()
        done = run_certify(617, "--resume", *where, "-o", "x.zst", cwd=tmp_path)
        folder = "empty" if where else "x.zst.work"
        assert done.returncode == 2 and done.stderr == (
            f"certify: nothing to resume at {folder}: no stopped search is there (run without "
            f"--resume)\n")
        assert not (tmp_path / "x.zst").exists() and not (tmp_path / "x.zst.work").exists()


def test_a_work_folder_in_use_is_refused(tmp_path):
    first = on_disk.DiskSearch(start(deal(11982)), Rules(4), work_folder.Disk(tmp_path / "w"),
                                1 << 20)
    assert first.run(time_limit=0.05).verdict == UNKNOWN
    with pytest.raises(work_folder.WorkFolderError, match="in use by another certify"):
        on_disk.DiskSearch(start(deal(11982)), Rules(4),
                            work_folder.Disk(tmp_path / "w", resume=True), 1 << 20)
    first.close()
    again = on_disk.DiskSearch(start(deal(11982)), Rules(4),
                                work_folder.Disk(tmp_path / "w", resume=True), 1 << 20)
    assert again.run().verdict == NO_WIN


@pytest.mark.slow
def test_foundation_moves_in_one_bucket_of_a_million_positions(tmp_path):
    position, rules = start(deal(1)), Rules(2, False, True)
    table, records, _ = disk_records(position, rules, tmp_path / "work", 4 << 20)
    assert (table, records) == records_of(engine.search(position, rules), rules)


@pytest.mark.slow
@pytest.mark.parametrize("rules", [Rules(4), Rules(4, True)], ids=["symmetry", "fixed"])
def test_7484159_spilled_is_the_in_memory_engines(tmp_path, rules):
    position = start(deal(7484159))
    memory = engine.search(position, rules)
    table, records, _ = disk_records(position, rules, tmp_path / "work", 8 << 20)
    assert (table, records) == records_of(memory, rules)


@pytest.mark.slow
def test_certify_7484159_spilled_writes_the_in_memory_engines_bytes(tmp_path):
    done = run_certify(7484159, "-q", "--memory", "16M", "-o", "a.zst", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    whole = run_certify(7484159, "-q", "--no-spill", "-o", "b.zst", cwd=tmp_path)
    assert (tmp_path / "a.zst").read_bytes() == (tmp_path / "b.zst").read_bytes()


def test_a_full_disk_under_the_certificate_keeps_the_search(tmp_path, monkeypatch):
    """The disk fills while the certificate is written: UNKNOWN with the resume command, the
    search kept; the resume writes it."""
    import errno
    from certify.run.prove import SEARCH_ALONE, proved

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    position, rules = start(deal(11982)), Rules(4)
    out = tmp_path / "a.zst"
    monkeypatch.setattr(on_disk.DiskSearch, "write_certificate", full)
    disk = work_folder.Disk(tmp_path / "w", at_once=True, argv=["11982", "--on-disk"])
    result = proved(position, rules, 11982, out=out, plan=SEARCH_ALONE, memory=1 << 20, disk=disk)
    assert result.verdict == UNKNOWN and "the disk is full" in result.reason
    assert "go on with `certify 11982 --on-disk --resume`" in result.reason
    assert not out.exists() and (tmp_path / "w" / "search.json").exists()
    monkeypatch.undo()
    resumed = proved(position, rules, 11982, out=out, plan=SEARCH_ALONE, memory=1 << 20,
                    disk=work_folder.Disk(tmp_path / "w", resume=True))
    assert resumed.verdict == NO_WIN and resumed.positions == known_count(11982) and out.exists()
    assert not (tmp_path / "w").exists()


# ---- several threads -------------------------------------------------------------------------

THREADED = [(11982, Rules(4), 200_000), (1, Rules(2), 1 << 16), (11982, autoplay(4), 1 << 16),
            (7484159, Rules(3, True, True), 1 << 20), (1, autoplay(2), 7_000_000)]


@pytest.mark.parametrize("number,rules,memory", THREADED,
                         ids=[f"{case_id(n, r)}-{m}" for n, r, m in THREADED])
def test_several_threads_give_the_in_memory_engine_s_records(tmp_path, number, rules, memory):
    """Sorts and merges split across threads (every one of them here, however small: split_at
    1), in layers, in memory and in a bucket's foundation groups: the same records as the
    in-memory engine, as one thread gives."""
    position = start(deal(number))
    for threads in (2, 3):
        folder = tmp_path / f"work{threads}"
        search = on_disk.DiskSearch(position, rules, work_folder.Disk(folder, threads=threads),
                                    memory, split_at=1)
        assert search.run().verdict == NO_WIN
        table, ids, width = search.table()
        rows = b"".join(search.records())
        w = 4 + rules.ncells + 8 * width
        assert (table, [rows[i:i + w] for i in range(0, len(rows), w)]) == \
            records_of(engine.search(position, rules), rules)
        search.remove()


def test_a_merge_split_by_key_range_writes_the_keys_one_thread_writes(tmp_path):
    """merge and merge_looked on 2 to 64 threads (each file begun at its range's first key, the
    ranges' files joined): the keys one thread writes, in order, whatever the ranges' ends fall
    on (a block's first key, a key in no file); no range's file is left behind."""
    x, w = on_disk._native(), 6
    files, inputs, union, new = merge_case(tmp_path, w)
    indexes = [x.index(f, w) for f in files]
    made = set(os.listdir(tmp_path))
    for threads in (1, 2, 3, 8, 64):
        for split_at in (1, 1 << 20):
            out = os.fsencode(tmp_path / "out.keys")
            assert x.merge(inputs, w, out, files, threads, split_at=split_at) == len(new)
            assert keys_of(out, w) == new and x.count(out, w) == len(new)
            os.unlink(out)
            assert x.merge_looked(inputs, w, out, files, indexes, threads,
                                  split_at=split_at) == len(new)
            assert keys_of(out, w) == new
            os.unlink(out)
            assert x.merge(inputs, w, out, [], threads, split_at=split_at) == len(union)
            assert keys_of(out, w) == union
            os.unlink(out)
    assert set(os.listdir(tmp_path)) == made
    with pytest.raises(ValueError, match="threads"):
        x.merge(inputs, w, os.fsencode(tmp_path / "o.keys"), files, 65)


def test_a_range_s_output_that_fails_is_an_error_naming_the_merge_s_output(tmp_path):
    """A merge whose output, or a range's, cannot be made (here: it is there already): an
    OSError naming the merge's output, on one thread or three (the ranges' own names are gone
    with the call: tests/test_engine_asan.py and test_engine_tsan.py see none is read after)."""
    x = on_disk._native()
    w = 4
    a = key_file(tmp_path / "a.keys", [i.to_bytes(4, "big") for i in range(0, 100_000, 2)], w)
    b = key_file(tmp_path / "b.keys", [i.to_bytes(4, "big") for i in range(1, 100_000, 2)], w)
    out = os.fsencode(tmp_path / "o.keys")
    for there, threads in ((out, 1), (out, 3), (out + b".1.keys", 3)):
        open(there, "wb").close()
        with pytest.raises(FileExistsError) as e:
            x.merge([a, b], w, out, [], threads, split_at=1)
        assert os.fsencode(e.value.filename) == out
        os.unlink(out)
    assert sorted(os.listdir(tmp_path)) == ["a.keys", "b.keys"]


def test_keys_out_of_order_across_ranges_are_an_error_on_any_thread_count(tmp_path):
    """A run whose keys go back across where a range ends (one range stops at the first key not
    below its end, the next begins elsewhere): out of order, as on one thread, never a file
    with a key lost or doubled."""
    x = on_disk._native()
    w = 4
    keys = [i.to_bytes(4, "big") for i in range(0, 200_000, 2)]
    swapped = keys[:50_000] + [keys[10]] + keys[50_000:]   # (a key again, far past its place)
    run = key_file(tmp_path / "run.keys", swapped, w)
    other = key_file(tmp_path / "b.keys", [i.to_bytes(4, "big") for i in range(1, 200_000, 2)], w)
    for threads in (1, 2, 4):
        with pytest.raises(ValueError, match="out of order"):
            x.merge([run, other], w, os.fsencode(tmp_path / f"o{threads}.keys"), [], threads,
                    split_at=1)
    assert not [n for n in os.listdir(tmp_path) if n.startswith("o") and ".keys." in n]


def test_a_stop_asked_stops_a_merge_on_several_threads(tmp_path):
    """stop(True) stops a merge split across threads (Stopped), no range's file left; stop(False)
    and it merges."""
    x = on_disk._native()
    w = 4
    a = key_file(tmp_path / "a.keys", [i.to_bytes(4, "big") for i in range(0, 300_000, 3)], w)
    b = key_file(tmp_path / "b.keys", [i.to_bytes(4, "big") for i in range(1, 300_000, 3)], w)
    x.stop(True)
    try:
        with pytest.raises(x.Stopped):
            x.merge([a, b] * 8, w, os.fsencode(tmp_path / "o.keys"), [], 2, split_at=1)
    finally:
        x.stop(False)
    assert x.merge([a, b], w, os.fsencode(tmp_path / "p.keys"), [], 2, split_at=1) == 200_000
    assert not [n for n in os.listdir(tmp_path) if ".keys." in n]   # (o.keys: left, or not begun)


def test_certify_with_one_thread_or_two_writes_the_same_bytes(tmp_path):
    """certify --threads 1 and --threads 2, spilling at a tiny --memory: the same certificate,
    the in-memory engine's."""
    made = []
    for threads in ("1", "2"):
        out = tmp_path / f"t{threads}.zst"
        done = run_certify("11982", "--cells", "3", "--on-disk", "--memory", "1M", "--threads",
                           threads, "-q", "-o", str(out), cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        made.append(out.read_bytes())
    done = run_certify("11982", "--cells", "3", "--no-spill", "-q", "-o",
                       str(tmp_path / "whole.zst"), cwd=tmp_path)
    assert done.returncode == 0
    assert made[0] == made[1] == (tmp_path / "whole.zst").read_bytes()
    bad = run_certify("11982", "--threads", "0", cwd=tmp_path)
    assert bad.returncode == 2 and "--threads" in bad.stderr
