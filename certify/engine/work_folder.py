"""The search on disk's work folder (certify/engine/on_disk.py's): where it is, whether it may be
used, and the state it keeps there for a resume; the bucket algorithm is on_disk.py's.

Resuming: the folder's state (search.json) is replaced, atomically (a rename), at every run
written, at every merge, at every part of a bucket written and at every save of the set held in
memory (with `next`, the first of the bucket's start keys whose group is not yet begun, and
`closed`, how many held keys are of groups closed: a resume holds the set again and goes on
in the same group): the files it names are whole before it names them, and anything else in
the folder with our names is what a run cut short left, removed on resume. So a process
killed at any moment (Ctrl-C, kill -9, the system's out-of-memory killer) goes on from its last
checkpoint, losing the work since (a buffer's worth of expansion, one merge, or at most
on_disk.CHECKPOINT_EVERY seconds of a bucket in memory). The column table the keys' ids refer
to is saved with the state. Nothing is fsync'd (on this machine the syncs doubled a spilling
search's time): a crash of the whole system can leave the files short of what the state says,
which a resume finds (every file's blocks are counted against the state's count; every block
read is checked by its zstd checksum) and says in one line, rather than go on from damaged
files.

SIGINT and SIGTERM stop the search within a fraction of a second, even inside a long merge or
sort in C (its loops look for the request a few times a second): UNKNOWN, the folder as its
last checkpoint left it, and the command that resumes. The work since that checkpoint is lost
(a stop by --time-limit saves it first; a signal is answered now instead).

The folder's layout has a version (VERSION, in its state), so that a search of days survives
an upgrade of certify: a folder of an older layout whose files this one still reads (versions
3 and 4) is read and goes on as this version (read_state says how each is carried over); one
whose files it does not read (1 and 2) is refused in one line and never read, since starting
again costs less than converting it. The folder's identity names the closure (`closure`, as a
certificate's header does: absent for every move alone, so an older folder, of the plain
closure, is still its own search's): a folder of one closure is not resumed under the other.
"""

import os

STATE = "search.json"
LOCK = "search.lock"
FORMAT = "certify-disk-search"
VERSION = 5  # (3 and 4 are read and carried over, 1 and 2 refused: above)
SUFFIXES = (".keys", ".columns", ".tmp", ".lock")  # our files: only these are ever removed


class WorkFolderError(Exception):
    """A work folder that cannot be used: one line (bad input, exit 2)."""


class Disk:
    """Where and how a search spills: the work folder, whether to go on from it (`resume`), the
    command that resumes (said when the search stops short), and the threads it may use."""

    error = WorkFolderError  # (what a command catches, without importing this module itself)

    memory = 1 << 30  # the buffer's bytes where the run gives no --memory

    def __init__(self, folder, resume=False, at_once=False, argv=None, threads=1):
        self.folder = os.fspath(folder)
        self.resume = resume
        self.at_once = at_once or resume
        self.threads = threads  # its sorts' and merges' (on_disk.py): the same keys whatever
        self.argv = argv  # the command's arguments, for the command that resumes
        self.started = False  # a DiskSearch has begun in the folder
        self.signalled = None  # the signal that stopped it, if one did: the command exits 128 + it

    @property
    def command(self):
        """`certify ARGS --resume`, as a shell reads it (None without the arguments)."""
        if self.argv is None:
            return None
        import shlex
        again = ["certify", *self.argv] + ([] if "--resume" in self.argv else ["--resume"])
        return " ".join(shlex.quote(a) for a in again)

    def check(self, position, rules):
        """Refuse now, before any long work, a folder that could not be used: WorkFolderError."""
        usable_folder(self.folder)
        if os.path.exists(os.path.join(self.folder, STATE)):
            read_state(self.folder, position, rules, self.resume)
        elif self.resume:
            # --resume goes on from a stopped search, skipping the solver: with nothing to go on
            # from, it would start an unbounded search on disk that nobody asked for.
            raise WorkFolderError(f"nothing to resume at {self.folder}: no stopped search is "
                                  f"there (run without --resume)")


def usable_folder(folder):
    """A work folder is usable if it is ours (it holds our state), or empty, or can be made; and
    we can write in it. WorkFolderError otherwise."""
    if os.path.lexists(folder) and not os.path.isdir(folder):
        raise WorkFolderError(f"the work folder {folder} is not a folder")
    if os.path.isdir(folder):
        names = os.listdir(folder)
        if any(n != STATE and not n.endswith(SUFFIXES) for n in names):
            raise WorkFolderError(f"the work folder {folder} holds files that are not a search's; "
                                  f"name an empty or new folder with --work-dir")
        if not os.access(folder, os.W_OK | os.X_OK):
            raise WorkFolderError(f"cannot write in the work folder {folder}")
        return
    parent = os.path.dirname(os.path.abspath(folder))
    if not os.path.isdir(parent) or not os.access(parent, os.W_OK | os.X_OK):
        raise WorkFolderError(f"cannot make the work folder {folder}: cannot write in {parent}")


def default_folder(out, label):
    """The work folder beside the output: OUT.work; LABEL.work here for standard output, or
    for an output that is not a regular file (a device or FIFO the user named: nothing of ours
    goes beside /dev/null)."""
    if out is None or out == "-" or not os.path.basename(os.fspath(out)):
        return f"{label}.work"
    real = os.fspath(out)
    if os.path.exists(real) and not os.path.isfile(real):
        return f"{label}.work"
    return real + ".work"


def identity(position, rules):
    """What a work folder's search is of: the start position, the rules and the closure."""
    found, cells, cols = position
    return {"found": bytes(found).hex(), "cells": bytes(sorted(cells)).hex(),
            "columns": [bytes(c).hex() for c in cols], "ncells": rules.ncells,
            "fixed_columns": rules.fixed_columns, "foundation_moves": rules.foundation_moves,
            **({"closure": "autoplay"} if rules.autoplay else {})}


def begun(first):
    """The state's fields of a bucket's groups when it begins with the start keys `first`."""
    return {"first": first, "next": 0, "parts": [], "closed": 0, "group": None}


def read_state(folder, position, rules, resume):
    """The state of the search in `folder` (a version 3 or 4 state read as this version's), if
    it is of this position, rules and closure and a resume was asked for; else WorkFolderError."""
    import json
    path = os.path.join(folder, STATE)
    try:
        with open(path) as f:
            state = json.load(f)
    except (OSError, ValueError) as e:
        raise WorkFolderError(f"{path} cannot be read: {e}") from None
    if not isinstance(state, dict) or state.get("format") != FORMAT:
        raise WorkFolderError(f"{path} is not the state of a search on disk")
    if state.get("version") == 3 and isinstance(state.get("pending"), list):
        # (3 did not name a pending run's bucket: they were all the next bucket's, as a move's
        # successors are; 4 names it)
        state["pending"] = [r[:2] + [state["bucket"] + 1] for r in state["pending"]]
        state["version"] = 4
    if state.get("version") == 4 and "first" not in state:
        # (4 held a bucket whole, not a foundation group at a time: its set, layers or start
        # keys are one group, the whole bucket; its key files are this version's)
        state.update(begun(None))
        if state.get("step") == "memory" and state.get("visited") and \
                state["visited"] == state.get("frontier"):  # (a bucket's start: every key)
            state["first"], state["visited"], state["frontier"] = state["visited"], None, None
        state["version"] = VERSION
    if state.get("version") != VERSION:
        raise WorkFolderError(f"the work folder {folder} is of another certify's search on disk "
                              f"(its layout {state.get('version')!r}, this one's {VERSION}) and "
                              f"cannot be resumed: remove it to start again")
    if state.get("identity") != identity(position, rules):
        raise WorkFolderError(f"the work folder {folder} holds the search of another deal or "
                              f"other rules (or closure: --no-autoplay); name another with "
                              f"--work-dir")
    if not resume:
        raise WorkFolderError(f"the work folder {folder} holds a search begun before: --resume "
                              f"to go on with it, or remove it to start again")
    width = 2 + rules.ncells + 8 * state["idw"]
    from ._external import count as count_keys
    for name, count in named_counts(state).items():
        if count_keys(os.fsencode(os.path.join(folder, name)), width) != count:
            raise WorkFolderError(f"the work folder {folder} is damaged ({name} is not "
                                  f"{count:,} positions); remove it to start again")
    return state


def named_counts(state):
    """{file: keys} of the key files a state names."""
    counts = {e[1]: e[2] for e in state["done"]}
    for entry in [state["visited"], state["frontier"], state["first"]] + state["fresh"] + \
            state["parts"] + state["runs"] + state["pending"]:
        if entry:  # (a frontier of none may name the visited file, with 0)
            counts[entry[0]] = max(entry[1], counts.get(entry[0], 0))
    return counts


def disk_words(e, folder):
    """An OSError of the search's files, in words."""
    import errno
    if e.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
        return f"the disk under {folder} is full"
    return f"cannot use the work folder {folder} ({e.strerror or e})"
