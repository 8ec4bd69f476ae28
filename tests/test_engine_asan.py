"""The compiled engine under AddressSanitizer: a use-after-free or an overflow in the engine's C
files fails here at its first bad access, where in a normal build it only corrupts the heap and
may crash a census worker much later (a realloc'd column table written through a stale pointer
once crashed deal 180,000-odd of a million-deal census and passed every other test).

Every C file of the three extensions is built with -fsanitize=address into a scratch copy of the
package, and certify runs there in a child process with the sanitizer's runtime preloaded
(tests/support/sanitized.py): a no-win deal (the exhaustive search and its writer) and a small
census (the solver, many times). Skipped where gcc has no AddressSanitizer runtime."""
import subprocess
import sys

import pytest

from support.sanitized import ROOT, Sanitized


@pytest.fixture(scope="module")
def sanitized(tmp_path_factory):
    """A copy of the certify package whose engine is built with AddressSanitizer."""
    return Sanitized(tmp_path_factory.mktemp("asan"), "address", "detect_leaks=0")


def test_exhaustive_search_and_writer_under_asan(sanitized, tmp_path):
    out = sanitized.certify(11982, "-o", tmp_path / "11982.msgpack.zst")
    assert "cannot be won" in out
    # the bytes the regular build writes (the published file, once certificates/ is remade)
    plain = subprocess.run([sys.executable, "-m", "certify", "11982", "-q", "-o", str(tmp_path / "plain")],
                           cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert plain.returncode == 0, plain.stderr[-2000:]
    assert (tmp_path / "11982.msgpack.zst").read_bytes() == (tmp_path / "plain").read_bytes()


def test_solver_under_asan(sanitized, tmp_path):
    out = sanitized.certify("1-300", "-j", 1, "--out", tmp_path / "census")
    assert "300 won" in out


def test_memory_budget_and_malloc_failing_under_asan(sanitized, tmp_path):
    """The search's stops for memory: its budget (the tables' sizes worked out before they grow),
    and malloc returning NULL (AddressSanitizer refuses any one allocation over 16 MiB, as a
    system out of memory would), each an UNKNOWN with nothing written."""
    out = tmp_path / "x.msgpack.zst"
    said = sanitized.certify(7484159, "-q", "--memory", "20M", "--no-spill", "-o", out,
                             exit_code=3)
    assert "would outgrow --memory 20M" in said
    for solver in ([], ["--no-solver"]):   # (with the solver, its full attempt is refused)
        said = sanitized.certify(7484159, "-q", *solver, "-o", out, exit_code=3,
                                 options="allocator_may_return_null=1:max_allocation_size_mb=16")
        assert "not enough memory after" in said and "the system would give no more" in said
        assert not out.exists()


def test_the_search_on_disk_under_asan(sanitized, tmp_path):
    """external.c: spilling, merging in passes, widening the ids, a resume, a bucket held a
    foundation group at a time, sorts and merges on several threads, the records streamed out, under both closures (certify's default, autoplay; and every move alone); the same file
    as the in-memory engine's."""
    out = tmp_path / "11982.msgpack.zst"
    sanitized.certify(11982, "-q", "--on-disk", "--memory", "1M", "--time-limit", "0.5",
                      "-o", out, exit_code=3)
    sanitized.certify(11982, "-q", "--memory", "1M", "--resume", "-o", out)
    sanitized.certify(11982, "-q", "--no-spill", "-o", tmp_path / "whole.zst")
    assert out.read_bytes() == (tmp_path / "whole.zst").read_bytes()
    sanitized.script(WIDENED, tmp_path / "work")


WIDENED = """
import os
import shutil
import sys
from certify.engine import on_disk, work_folder
from certify.game.deals import deal
from certify.game.rules import Rules, start
for rules in (Rules(3), Rules(3, autoplay=True)):
    for memory in (1 << 16, 64 << 20):   # buckets on disk in layers, and held in memory
        s = on_disk.DiskSearch(start(deal(11982)), rules, work_folder.Disk(sys.argv[1]), memory,
                               64)
        assert s.run().verdict == "no-win" and s.state["idw"] == 3
        assert sum(len(r) for r in s.records()) == s.positions * (4 + 3 + 16)
        s.remove()
# a bucket's foundation groups: parts written, groups to layers (tests/test_external.py's sets)
for rules, memory in ((Rules(2), 5_000_000), (Rules(2, autoplay=True), 7_000_000)):
    s = on_disk.DiskSearch(start(deal(1)), rules, work_folder.Disk(sys.argv[1]), memory)
    assert s.run().verdict == "no-win"
    assert sum(len(r) for r in s.records()) == s.positions * (4 + 2 + 16)
    s.remove()
# sorts and merges on several threads, every one split (split_at 1): the sorts' bins (the merges'
# files here are too small to be split by key range: tests/test_engine_tsan.py's are not)
for rules in (Rules(3), Rules(3, autoplay=True)):
    s = on_disk.DiskSearch(start(deal(11982)), rules, work_folder.Disk(sys.argv[1], threads=3),
                           1 << 16, split_at=1)
    assert s.run().verdict == "no-win"
    assert sum(len(r) for r in s.records()) == s.positions * (4 + 3 + 16)
    s.remove()
# successors looked up by block index (a group's last layers): a stale index and a cut file are
# errors, never a bad read
s = on_disk.DiskSearch(start(deal(11982)), Rules(3), work_folder.Disk(sys.argv[1]), 1 << 16)
assert s.run().verdict == "no-win"
x, w = s.x, s.expander.keylen
a, b = sorted(s.state["done"], key=lambda e: -e[2])[:2]
fa, fb, ca, cb = s._b(a[1]), s._b(b[1]), s._b("a.keys"), s._b("b.keys")
assert x.merge([fa], w, ca) == a[2] and x.merge([fb], w, cb) == b[2]
ia, ib = x.index(fa, w), x.index(fb, w)
assert x.merge_looked([ca], w, s._b("o1.keys"), [fa], [ia]) == 0
for call, error in ((lambda: shutil.copyfile(fb, fa), None),   # (a file changed since indexed)
                    (lambda: x.merge_looked([ca], w, s._b("o2.keys"), [fa], [ia]), ValueError),
                    (lambda: os.truncate(fb, os.path.getsize(fb) // 2), None),
                    (lambda: x.index(fb, w), OSError),
                    (lambda: x.merge_looked([cb], w, s._b("o3.keys"), [fb], [ib]), OSError)):
    try:
        call()
    except Exception as e:
        assert error and isinstance(e, error), e
    else:
        assert error is None, call
# a merge whose output cannot be made (o1.keys is there): the error names it, read from no string
# the merge has freed
for threads in (1, 3):
    try:
        x.merge([ca], w, s._b("o1.keys"), [], threads, split_at=1)
    except FileExistsError as e:
        assert os.fsencode(e.filename) == s._b("o1.keys"), e
    else:
        raise AssertionError("no error")
print("ok")
"""


LIMITS = """
from certify import engine, outcome
from certify.format import reader, writer
from certify.engine import _search as native
from certify.game.deals import deal
from certify.game.rules import Rules, start
position, rules = start(deal(11982)), Rules(4)
# the format's room, then a run on after it (final)
s = engine.NativeSearch(position, rules, capacity=5000)
assert s.run().limit == outcome.FORMAT and s.run().positions == 5000
# a budget met as the keys widen to 3-byte ids (early: 8 columns), and as the tables grow
for memory in (100 << 10, 1 << 20, 3 << 20):
    o = engine.NativeSearch(position, rules, narrow=8, memory=memory).run()
    assert o.limit == outcome.MEMORY, o
# the writer, and the move indices of a line, each held to the reference
o = engine.search(position, rules)
body = o.store.write_body()
table, chunks = reader.nowin_parts(body, o.positions, 4)
assert len(chunks) == 1 and len(chunks[0]) == 24 * o.positions
line = engine.solve_line(start(deal(1)), rules)
assert line.indices == writer.move_indices(start(deal(1)), bytes(line), rules)
print("ok")
"""


def test_the_searchs_limits_under_asan(sanitized):
    sanitized.script(LIMITS)
