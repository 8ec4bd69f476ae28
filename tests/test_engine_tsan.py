"""The search on disk's threads under ThreadSanitizer: a data race in external.c's crews (the
sorts of a spill or a save spread into bins that helper threads sort, the merges split by key
range, each range merged by a thread into a file of its own; certify --threads N) fails here
with the sanitizer's report of the two accesses, where in a normal build it would at most
corrupt a certificate now and then.

The engine is built with -fsanitize=thread into a scratch copy of the package and run there in a
child process with libtsan preloaded (tests/support/sanitized.py; Python itself is not built
with it, so only the engine's own accesses, and the locks and calls of libc that the runtime
intercepts, are watched). No report is suppressed: any report fails the test. The sanitizer sees
only the races of the interleavings that happen, so every case runs on two threads and on three,
with every sort and merge split however small (split_at 1), and the merges of files of 8,192-key
blocks large enough for their ranges to run at once. Skipped where gcc has no ThreadSanitizer
runtime, or where it cannot start. In the slow tier (-m slow): it takes minutes, and the
search on disk's tests in the full tier already run the same code on several threads."""
import subprocess
import sys

import pytest

from support.sanitized import ROOT, Sanitized

pytestmark = pytest.mark.slow

# halt_on_error: the first report ends the run (exit 66, its own code), and its file is shown
OPTIONS = "halt_on_error=1:exitcode=66:second_deadlock_stack=1"


@pytest.fixture(scope="module")
def sanitized(tmp_path_factory):
    """A copy of the certify package whose engine is built with ThreadSanitizer."""
    return Sanitized(tmp_path_factory.mktemp("tsan"), "thread", OPTIONS)


SEARCH = """
import os
import sys
from certify.engine import on_disk, work_folder
from certify.game.deals import deal
from certify.game.rules import Rules, start
folder = sys.argv[1]
for threads in (2, 3):
    # 64 KiB: every bucket in layers on disk (spills sorted, runs merged, successors looked up);
    # 64 MiB: the buckets held in memory, saved sorted
    for memory in (1 << 16, 64 << 20):
        s = on_disk.DiskSearch(start(deal(11982)), Rules(4, autoplay=True),
                               work_folder.Disk(os.path.join(folder, "work"), threads=threads),
                               memory, split_at=1)
        assert s.run().verdict == "no-win"
        s.write_certificate(os.path.join(folder, f"{threads}-{memory}.zst"), 11982, None)
        s.remove()
print("ok")
"""


def test_the_search_on_disk_on_two_and_three_threads_under_tsan(sanitized, tmp_path):
    """certify's rules (4 cells, autoplay) on 11982, 61,643 positions: a search in layers on
    disk (its spills' sorts in bins, its merges in two or three key ranges) and one held in
    memory (its saves' sorts in bins); the certificate each writes is the in-memory engine's,
    byte for byte."""
    sanitized.script(SEARCH, tmp_path)
    whole = tmp_path / "whole.zst"
    plain = subprocess.run([sys.executable, "-m", "certify", "11982", "-q", "--no-spill", "-o",
                            str(whole)], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert plain.returncode == 0, plain.stderr[-2000:]
    made = sorted(tmp_path.glob("[23]-*.zst"))
    assert [p.name for p in made] == ["2-65536.zst", "2-67108864.zst", "3-65536.zst",
                                      "3-67108864.zst"]
    for path in made:
        assert path.read_bytes() == whole.read_bytes(), path.name


MERGES = """
import os
import signal
import sys
import threading
import time
from certify.engine import on_disk
from support.key_files import keys_of, merge_case
x, folder, w = on_disk._native(), sys.argv[1], 6
files, inputs, union, new = merge_case(folder, w)
indexes = [x.index(f, w) for f in files]
out = os.fsencode(os.path.join(folder, "out.keys"))
for threads in (2, 3, 8):
    for merged, keys in ((lambda: x.merge(inputs, w, out, files, threads, split_at=1), new),
                         (lambda: x.merge_looked(inputs, w, out, files, indexes, threads,
                                                 split_at=1), new),
                         (lambda: x.merge(inputs, w, out, [], threads, split_at=1), union)):
        assert merged() == len(keys) and keys_of(out, w) == keys
        os.unlink(out)
    # a range that fails (its file is there already) stops the others: the merge's error names
    # the merge's output
    open(out + b".1.keys", "wb").close()
    try:
        x.merge(inputs, w, out, files, threads, split_at=1)
    except FileExistsError as e:
        assert os.fsencode(e.filename) == out, e
    else:
        raise AssertionError("no error")
    os.unlink(out)


# stopped midway, on three threads, once its ranges are being merged (range 1's file made): by a
# signal, whose handler runs in the calling thread (the helpers block signals) and raises there,
# the helpers told by the crew's abort; and by stop(True) from another thread
class Alarm(Exception):
    pass


def alarm(number, frame):
    raise Alarm


def when_merging(act):
    def watch():
        while not os.path.exists(out + b".1.keys"):
            time.sleep(0.01)
        act()
    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    return watcher


signal.signal(signal.SIGALRM, alarm)
main = threading.main_thread().ident
for act, stopped in ((lambda: signal.pthread_kill(main, signal.SIGALRM), Alarm),
                     (lambda: x.stop(True), x.Stopped)):
    watcher = when_merging(act)
    try:
        x.merge((inputs + files) * 4, w, out, [], 3, split_at=1)
    except stopped:
        pass
    else:
        raise AssertionError("not stopped")
    finally:
        x.stop(False)
    watcher.join()
    assert not [n for n in os.listdir(folder) if ".keys." in n]   # (no range's file left)
    os.unlink(out)   # (range 0's, cut short: on_disk.py's state never names it)
print("ok")
"""


def test_merges_split_by_key_range_under_tsan(sanitized, tmp_path):
    """merge and merge_looked of files of 200,000 keys on 2, 3 and 8 threads: the keys one thread
    writes; a range that fails; and a merge on three threads stopped midway, by a signal's
    handler and by stop()."""
    sanitized.script(MERGES, tmp_path)
