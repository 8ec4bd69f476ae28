"""The compiled engine against the Python reference: the same answers, byte for byte.

On random small boards and on published deals, native and reference agree on the verdict, on
the reachable set (key for key, in the order found), on the positions counted when a budget
stops them, on the columns they intern, and on the certificate bytes; every WIN line replays
under rules.py. CI builds the extension from a clean clone, so a missing one fails here rather
than skipping.
"""

import importlib.util
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from certify.format import legacy, reader, spec, writer
from certify import engine
from certify.run import prove as prove_module
from certify.engine.reference import search as reference
from certify.game.deals import deal
from certify.engine import decode_key
from certify.outcome import (FORMAT, MEMORY, SEARCH_CAPACITY, NO_WIN, UNKNOWN, WIN, out_of_memory,
                             size_text)
from certify.run.prove import proved
from certify.game.rules import Rules, autoplay, encode, moves, replays_to_win, start, successors
from support.boards import reachable, small_boards
from support.position_counts import known_count

ROOT = Path(__file__).resolve().parent.parent
if os.environ.get("CERTIFY_ENGINE") == "python":
    pytest.skip("the comparison needs both engines", allow_module_level=True)
from certify.engine import _search as native  # (not built: fail, never skip)

rules_variants = st.builds(Rules, st.just(0), st.booleans(), st.booleans(), st.booleans())


@st.composite
def boards_and_rules(draw, max_left=7):
    position, ncells = draw(small_boards(max_left=max_left, max_cells=3))
    fixed, back, autoplay = draw(st.booleans()), draw(st.booleans()), draw(st.booleans())
    return position, Rules(ncells, fixed, back, autoplay)


def native_search(position, rules, narrow=1 << 16):
    return engine.NativeSearch(position, rules, narrow)


def same_outcome(a, b):
    """Everything an outcome says, compared: verdict, counts, keys in order, path, columns."""
    assert (a.verdict, a.positions, a.most_home, a.reason, a.width) == \
        (b.verdict, b.positions, b.most_home, b.reason, b.width)
    assert a.columns == b.columns
    if a.verdict == NO_WIN:
        assert list(a.keys) == list(b.keys)
    if a.verdict == WIN:
        assert a.path == b.path


# ---- The search --------------------------------------------------------------------------

def test_the_compiled_engine_is_built_and_chosen():
    assert engine.NAME == "native", engine.describe()
    assert engine.describe().startswith("native") and "\n" not in engine.describe()


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(boards_and_rules(), st.sampled_from([1 << 16, 8, 12]))
def test_native_explores_exactly_as_the_reference(case, narrow):
    position, rules = case
    a = native_search(position, rules, narrow).run(max_positions=3000)
    b = reference.Search(position, rules, narrow).run(max_positions=3000)
    same_outcome(a, b)
    if a.verdict == NO_WIN:
        assert engine.no_win_body(a, rules) == \
            writer.no_win_body(b.keys, b.columns, rules.ncells, rules.fixed_columns)


@settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(boards_and_rules(max_left=6))
def test_the_reachable_set_is_the_readable_rules_one(case):
    position, rules = case
    if rules.autoplay:
        expected = closed_by_readable_rules(position, rules, limit=5000)
    else:
        expected = reachable(position, rules.ncells, rules.fixed_columns, rules.foundation_moves,
                             limit=5000)
    outcome = native_search(position, rules).run(max_positions=20_000)
    if any(p[0] == bytes([13] * 4) for p in expected.values()):
        # (with foundation moves a small board can open up to the deck: no win found in time)
        assert outcome.verdict == WIN or (rules.foundation_moves and outcome.verdict == UNKNOWN)
        return
    if len(expected) > 5000:
        return
    assert outcome.verdict == NO_WIN
    got = {encode(decode_key(k, rules.ncells, outcome.columns), rules.ncells,
                  rules.fixed_columns) for k in outcome.keys}
    assert got == set(expected)


def closed_by_readable_rules(position, rules, limit):
    """The autoplay closure by rules.successors: {canonical key: position}, from the autoplayed
    start, stopping once more than `limit` are found."""
    first = autoplay(position)[0]
    found = {encode(first, rules.ncells, rules.fixed_columns): first}
    todo = [first]
    while todo and len(found) <= limit:
        for _, _, _, after in successors(todo.pop(), rules):
            key = encode(after, rules.ncells, rules.fixed_columns)
            if key not in found:
                found[key] = after
                todo.append(after)
    return found


@settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(boards_and_rules(), st.lists(st.integers(1, 400), min_size=1, max_size=6))
def test_budgeted_steps_end_as_one_run(case, steps):
    """Stopped at any budget and resumed, both engines stop at the same count and end exactly
    where one uninterrupted run ends."""
    position, rules = case
    a, b = native_search(position, rules), reference.Search(position, rules)
    total = 0
    for step in steps:
        total += step
        x, y = a.run(max_positions=total), b.run(max_positions=total)
        assert (x.verdict, x.positions, x.most_home) == (y.verdict, y.positions, y.most_home)
        if x.verdict == UNKNOWN:
            assert x.positions == total and x.reason == f"--max-positions {total} reached"
    end = total + 3000  # (with foundation moves a small board can open up to the deck)
    same_outcome(a.run(end), b.run(end))
    same_outcome(b.run(end), reference.search(position, rules, end))


@pytest.mark.parametrize("rules", [Rules(4), Rules(3), Rules(4, autoplay=True),
                                   Rules(4, fixed_columns=True, autoplay=True),
                                   pytest.param(Rules(4, fixed_columns=True), marks=pytest.mark.slow),
                                   pytest.param(Rules(4, foundation_moves=True),
                                                marks=pytest.mark.slow)],
                         ids=["default", "cells3", "autoplay", "autoplay-fixed", "fixed",
                              "foundation-moves"])
def test_deal_11982_both_engines(rules):
    position = start(deal(11982))
    a, b = engine.search(position, rules), reference.search(position, rules)
    same_outcome(a, b)
    assert engine.no_win_body(a, rules) == \
        writer.no_win_body(b.keys, b.columns, rules.ncells, rules.fixed_columns)


def test_a_win_by_search_is_the_same_path_and_replays():
    position, rules = start(deal(11982)), Rules(5)
    a, b = engine.search(position, rules), reference.search(position, rules)
    same_outcome(a, b)
    line = prove_module.moves_along(position, a.path, 5, a.columns, rules)
    assert replays_to_win(position, line, rules)


@pytest.mark.parametrize("number, cells", [(11982, 5), (617, 4), (2, 2)])
def test_a_win_by_search_under_autoplay_is_the_same_path_and_replays_move_by_move(number, cells):
    """The search's path steps from an autoplayed position to the next; its line is each step's
    move and the safe moves home after it, every one a single-card move that rules.py allows."""
    position, rules = start(deal(number)), Rules(cells, autoplay=True)
    a, b = engine.search(position, rules), reference.search(position, rules)
    same_outcome(a, b)
    assert a.verdict == WIN
    line = prove_module.moves_along(position, a.path, cells, a.columns, rules)
    assert replays_to_win(position, line, Rules(cells)) and len(line) >= len(a.path) - 1


def test_unknown_counts_agree_on_a_published_deal():
    position, rules = start(deal(7484159)), Rules(4)
    for limit in (1, 2, 1000, 12_345):
        a = engine.search(position, rules, max_positions=limit)
        b = reference.search(position, rules, max_positions=limit)
        assert (a.verdict, a.positions, a.most_home) == (UNKNOWN, max(limit, 1), b.most_home)
        assert b.positions == a.positions


def test_widened_keys_spell_the_same_positions():
    position, rules = start(deal(11982)), Rules(3)
    narrow, wide = native_search(position, rules).run(), native_search(position, rules, 8).run()
    assert (narrow.width, wide.width) == (2, 3)
    assert [decode_key(k, 3, narrow.columns) for k in narrow.keys] == \
        [decode_key(k, 3, wide.columns) for k in wide.keys]
    assert engine.no_win_body(narrow, rules) == engine.no_win_body(wide, rules)


def test_bad_start_positions_are_refused():
    found, cells, cols = start(deal(1))
    for bad in [(found[:3], cells, cols, 4), (found, cells, cols[:7], 4),
                (found, b"\x00", cols, 4), (bytes([14, 0, 0, 0]), cells, cols, 4),
                (found, cells, cols, 9), (found, cells, (cols[0] + b"\x63",) + cols[1:], 4)]:
        with pytest.raises((ValueError, TypeError)):
            native.Search(*bad[:3], Rules(bad[3]))


def test_a_used_search_refuses_more():
    position, rules = start(deal(11982)), Rules(3)
    outcome = engine.search(position, rules)
    engine.no_win_body(outcome, rules)
    with pytest.raises(RuntimeError):
        outcome.store.run(-1, -1.0)
    with pytest.raises(RuntimeError):
        list(outcome.keys)


@st.composite
def lines(draw):
    """A position and a line from it: legal moves (by rules.moves), maybe one changed."""
    position, rules = draw(boards_and_rules(max_left=9))
    line, p = [], position
    for _ in range(draw(st.integers(0, 30))):
        options = list(moves(p, rules))
        if not options:
            break
        card, dest, p = options[draw(st.integers(0, len(options) - 1))]
        line.append((card, dest))
    if line and draw(st.booleans()):
        k = draw(st.integers(0, len(line) - 1))
        line[k] = (draw(st.integers(0, 51)), draw(st.integers(0, 9)))
    return position, rules, line


@settings(max_examples=300)
@given(lines())
def test_native_replay_judges_lines_as_the_readable_rules_do(case):
    position, rules, line = case
    assert engine.replays_to_win(position, line, rules) == replays_to_win(position, line, rules)


def test_native_replay_accepts_real_wins_and_refuses_their_mutants():
    position, rules = start(deal(11982)), Rules(5)
    line = proved(position, rules).moves
    assert engine.replays_to_win(position, line, rules)
    assert not engine.replays_to_win(position, line[:-1], rules)
    for k in range(0, len(line), 7):
        card, dest = line[k]
        for other in range(10):
            if other != dest:
                bad = line[:k] + [(card, other)] + line[k + 1:]
                assert engine.replays_to_win(position, bad, rules) == \
                    replays_to_win(position, bad, rules)


# ---- Certificates ------------------------------------------------------------------------

def certificate_of(position, rules, tmp_path, name, **budgets):
    out = tmp_path / name
    result = proved(position, rules, out=out, **budgets)
    return result, (out.read_bytes() if out.exists() else None)


@settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow,
                                                  HealthCheck.function_scoped_fixture])
@given(boards_and_rules(max_left=6))
def test_prove_writes_the_same_bytes_with_either_engine(tmp_path_factory, case):
    position, rules = case
    tmp = tmp_path_factory.mktemp("c")
    a, data_a = certificate_of(position, rules, tmp, "native.zst")
    mp = pytest.MonkeyPatch()
    try:
        mp.setattr(engine, "_search", None)
        mp.setattr(engine, "_solver", None)
        b, data_b = certificate_of(position, rules, tmp, "python.zst")
    finally:
        mp.undo()
    assert (a.verdict, a.positions, a.sha256) == (b.verdict, b.positions, b.sha256)
    assert data_a == data_b
    if a.verdict == WIN:
        assert replays_to_win(position, a.moves, rules)
    else:
        head, body = reader.read_bytes(data_a)
        assert head["version"] == 2 and head["count"] == a.positions
        got = {encode(p, rules.ncells, rules.fixed_columns)
               for p in reader.Certificate(head, body).positions()}
        assert got == set(reachable(position, rules.ncells, rules.fixed_columns,
                                    rules.foundation_moves))


def test_budgets_bound_the_whole_run(tmp_path):
    position, rules = start(deal(7484159)), Rules(4)
    # 300,000: the solver's full attempt comes after the bounded search's 200,000 positions,
    # which it must leave room for (it was given 299,999 and the run came to 499,999).
    for limit in (100, 1000, 5000, 300_000):
        result = proved(position, rules, out=tmp_path / "x", max_positions=limit)
        assert (result.verdict, result.positions) == (UNKNOWN, limit)
        assert result.reason == f"--max-positions {limit} reached"
        assert 0 < result.solver_positions < limit
    result = proved(position, rules, out=tmp_path / "x", time_limit=0.5)
    assert result.verdict == UNKNOWN and result.reason == "--time-limit 0.5 s reached"
    # The solver's attempt in hand when time runs out may overrun: bounded, loosely (a shared
    # machine): the attempts grow fourfold from 2,000 positions under a time limit.
    assert result.seconds < 0.5 + 5.0
    assert list(tmp_path.iterdir()) == []
    # The solver's first attempt (32,000) is charged; 11982's search needs its count more.
    assert proved(start(deal(11982)), rules, max_positions=115_239).verdict == NO_WIN
    assert proved(start(deal(11982)), rules, max_positions=115_238).verdict == UNKNOWN


def claims(result):
    """What a Result says and wrote, its timing left out."""
    return (result.verdict, result.positions, result.most_home, result.sha256, result.size,
            result.moves, result.reason, result.body)


@pytest.mark.parametrize("number, rules, max_positions", [
    (1, Rules(4), None), (617, Rules(4), None), (11982, Rules(4), None),
    (11982, Rules(3), None), (11982, Rules(4, False, True), None), (1, Rules(0), None),
    (11982, Rules(4), 1), (11982, Rules(4), 40_000), (11982, Rules(4), 115_239),
    (11982, Rules(4), 115_238), (1, Rules(4), 50), (7484159, Rules(4), 240_000),
])
def test_the_solver_and_the_search_together_claim_what_they_claim_in_turn(
        number, rules, max_positions):
    """certify DEAL runs the solver's first attempt and the bounded search at once: the same
    result, byte for byte, as proved()'s documented order one after the other."""
    position = start(deal(number))
    alone = proved(position, rules, number, max_positions=max_positions)
    together = proved(position, rules, number, max_positions=max_positions, together=True)
    assert claims(together) == claims(alone)


def test_a_search_stopped_by_the_solvers_line_runs_on_as_if_never_stopped():
    """proved() runs the bounded search in the Background while the solver tries, and stops it
    when a line comes: the search goes on from there to the outcome of one uninterrupted run."""
    position, rules = start(deal(1)), Rules(4)
    search = engine.Search(position, rules)
    running = engine.Background(search, 150_000)
    line = engine.solve_line(position, rules, 32_000)
    running.stop()
    assert running.outcome() is None
    assert engine.moves_of(line) == engine.solve(position, rules, 32_000)
    same_outcome(search.run(150_000), engine.Search(position, rules).run(150_000))
    # Not stopped: the search's own outcome.
    search = engine.Search(position, rules)
    assert engine.solve_line(position, rules, 50) is None
    same_outcome(engine.Background(search, 3_000).outcome(),
                 engine.Search(position, rules).run(3_000))


@pytest.mark.parametrize("compiled", [True, False])
def test_a_background_search_gives_what_it_gives_alone(monkeypatch, compiled):
    """engine.Background (on a thread with the compiled engine, in turn with the reference):
    its outcome is the search's own, and a stopped one runs on as if it had never stopped."""
    if not compiled:
        monkeypatch.setattr(engine, "_search", None)
        monkeypatch.setattr(engine, "_solver", None)
    position, rules = start(deal(11982)), Rules(4)
    for max_positions in (3_000, None):
        running = engine.Background(engine.Search(position, rules), max_positions)
        same_outcome(running.outcome(), engine.Search(position, rules).run(max_positions))
    search = engine.Search(position, rules)
    running = engine.Background(search, None)
    running.stop()  # (a thread may finish before it hears: then the outcome is the whole one)
    stopped = running.outcome()
    same_outcome(search.run() if stopped is None else stopped,
                 engine.Search(position, rules).run())


def test_progress_hears_every_phase(tmp_path):
    class Heard:
        def __init__(self):
            self.phases, self.updates = [], 0

        def phase(self, name):
            self.phases.append(name)

        def update(self, positions, most_home):
            self.updates += 1

    heard = Heard()
    proved(start(deal(11982)), Rules(4), out=tmp_path / "x", progress=heard)
    assert heard.phases == ["solving", "searching", "writing"]
    heard = Heard()
    proved(start(deal(1)), Rules(4), progress=heard)
    assert heard.phases == ["solving"]
    heard = Heard()
    proved(start(deal(11982)), Rules(4), progress=heard, together=True)
    assert heard.phases == ["solving and searching", "writing"]


def test_the_solver_finds_the_same_line_with_a_larger_budget():
    """proved() grows solver attempts under a time limit: that must not change the line."""
    for n in (1, 2, 3, 617):
        line = engine.solve(start(deal(n)), Rules(4), 2000)
        if line is not None:
            assert engine.solve(start(deal(n)), Rules(4), 8000) == line


def test_files_of_every_version_read_alike(tmp_path):
    """certify explain and export read published files, of versions 1 and 2, and what certify
    writes now, version 3: the same positions from each."""
    import msgpack
    import xxhash
    import zstandard
    position, rules = start(deal(11982)), Rules(3)
    outcome = reference.search(position, rules)
    values = writer.no_win_body(outcome.keys, outcome.columns, 3, False)
    width = 4 + 3 + 16
    table, chunk = msgpack.Unpacker(), None
    table.feed(values)
    table, chunk = list(table)
    records = spec.from_planes(chunk, outcome.positions, width)
    assert records == sorted(records)
    body1 = msgpack.packb([table, legacy.front_code(records)])
    body2 = msgpack.packb([table, writer.byte_planes(records, width)])
    expected = {encode(decode_key(k, 3, outcome.columns), 3) for k in outcome.keys}
    for version, body in ((1, body1), (2, body2), (3, values)):
        head = writer.header("no-win", 11982, None, rules, outcome.positions, body)
        head["version"] = version
        if version == 3:
            data = writer.encode_file(head, body)
        else:   # (as certify wrote them: the header and the body bin, one frame)
            head["xxh3_64"] = xxhash.xxh3_64_hexdigest(body)
            data = zstandard.ZstdCompressor().compress(msgpack.packb(head) + msgpack.packb(body))
        path = tmp_path / f"v{version}.zst"
        path.write_bytes(data)
        h, b = reader.read(path)
        assert h["version"] == version
        assert {encode(p, 3) for p in reader.Certificate(h, b).positions()} == expected
    line = engine.solve_line(start(deal(1)), Rules(4))
    for version in (2, 3):
        head = writer.header("win", 1, None, Rules(4), len(line) // 2, line)
        if version == 3:
            data = writer.encode_file(head, line)
        else:
            head.update(version=2, xxh3_64=xxhash.xxh3_64_hexdigest(bytes(line)))
            data = zstandard.ZstdCompressor().compress(msgpack.packb(head) +
                                                       msgpack.packb(bytes(line)))
        assert reader.Certificate(*reader.read_bytes(data)).line() == \
            engine.moves_of(line)


def test_bin_headers_are_msgpacks():
    import msgpack
    for n in (0, 1, 255, 256, 65535, 65536, 70000):
        assert msgpack.packb(b"x" * n, use_bin_type=True) == spec.bin_header(n) + b"x" * n


def test_planes_of_the_wrong_size_are_refused():
    with pytest.raises(spec.CertificateError):
        spec.from_planes(b"\x00" * 23, 1, 24)


# ---- The command line --------------------------------------------------------------------

def run_certify(args, engine_name, cwd):
    env = dict(os.environ, CERTIFY_ENGINE=engine_name)
    return subprocess.run([sys.executable, "-m", "certify", *args], capture_output=True,
                          text=True, cwd=cwd, env=env)


def test_the_command_line_writes_the_same_file_with_either_engine(tmp_path):
    for name in ("native", "python"):
        done = run_certify(["11982", "--cells", "3", "-o", f"{name}.zst", "--json"], name,
                           tmp_path)
        assert done.returncode == 0, done.stderr
    assert (tmp_path / "native.zst").read_bytes() == (tmp_path / "python.zst").read_bytes()


def test_engine_choice_from_the_environment(tmp_path):
    code = "from certify import engine; print(engine.NAME, '|', engine.describe())"

    def run(env, before=""):
        return subprocess.run([sys.executable, "-c", before + code], capture_output=True,
                              text=True, env=dict(os.environ, **env), cwd=ROOT)

    assert run({"CERTIFY_ENGINE": "python"}).stdout.startswith("python |")
    assert run({"CERTIFY_ENGINE": "native"}).stdout.startswith("native |")
    bad = run({"CERTIFY_ENGINE": "fast"})
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "CERTIFY_ENGINE" in bad.stderr
    # As if the extension had not been built:
    hide = "import sys; sys.modules['certify.engine._search'] = None; "
    missing = run({"CERTIFY_ENGINE": "native"}, hide)
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1
    assert "not built" in missing.stderr and "Traceback" not in missing.stderr
    fallback = run({"CERTIFY_ENGINE": ""}, hide)
    assert fallback.returncode == 0 and fallback.stdout.startswith("python |")
    # Said by the command that searches (engine.warn_if_slow, tests/test_cli.py), not on import:
    assert fallback.stderr == ""


def test_a_reused_compressor_writes_what_a_fresh_one_writes():
    """encode_file keeps one zstd compressor per thread: its output must not depend on what it
    compressed before (a large no-win body, then small win bodies, then the large one again)."""
    import zstandard
    import msgpack
    position, rules = start(deal(11982)), Rules(4)
    big = engine.no_win_body(engine.search(position, rules), rules)
    bodies = [big, bytes(3), engine.solve_line(start(deal(1)), rules).indices, big[:70_000], big]
    for body in bodies:   # (any bytes, as one frame: a win's header)
        head = writer.values_header("win", 11982, None, rules, 1, "0" * 16)
        content = writer.encode_values(head, body)
        fresh = zstandard.ZstdCompressor(compression_params=zstandard.ZstdCompressionParameters(
            write_content_size=True, write_checksum=False, **writer.ZSTD_SETTINGS))
        assert content == fresh.compress(msgpack.packb(head) + body)
        assert content == writer.encode_values(head, body, fresh=True)
    # and within 1.1 bytes a position on deal 11982 (the size the format's layout was chosen for)
    head = writer.header("no-win", 11982, None, rules, known_count(11982), big)
    assert len(writer.encode_file(head, big)) <= 1.1 * known_count(11982)


@pytest.mark.parametrize("number", [11982, 146692])
def test_a_large_no_win_is_written_a_frame_a_plane_the_same_on_any_number_of_processors(
        monkeypatch, number):
    """A frame for the header and the column table; then, for a chunk whose records take 1 MiB
    or more (11982's are 1,997,736 bytes), one for each byte plane (the first with the chunk's
    bin header), each as a fresh compressor writes it alone, whatever the number of threads
    that compressed them; a smaller chunk (146692's, 466,032) in one frame."""
    import msgpack
    import zstandard
    position, rules = start(deal(number)), Rules(4)
    outcome = engine.search(position, rules)
    n, body = outcome.positions, engine.no_win_body(outcome, rules)
    head = writer.header("no-win", number, None, rules, n, body)
    data, content = writer.encode_file(head, body), msgpack.packb(head) + body

    def alone(piece):
        return zstandard.ZstdCompressor(compression_params=zstandard.ZstdCompressionParameters(
            write_content_size=True, write_checksum=False, **writer.ZSTD_SETTINGS)).compress(piece)

    W = 4 + rules.ncells + 8 * 2
    records = len(content) - W * n   # (one chunk: where its planes begin)
    table = records - len(spec.bin_header(W * n))
    if W * n >= writer.FRAMED:
        assert data == alone(content[:table]) + alone(content[table:records + n]) + b"".join(
            alone(content[records + j * n:records + (j + 1) * n]) for j in range(1, W))
    else:
        assert data == alone(content[:table]) + alone(content[table:])
    for processors in (1, 3):
        monkeypatch.setattr(writer, "processors", lambda: processors)
        assert writer.encode_file(head, body) == data
        assert writer.encode_file(head, body, fresh=True) == data
    assert reader.read_bytes(data) == (head, body)
    assert number != 11982 or len(data) <= 1.1 * n   # (the 1.1 bytes a position bound)


@pytest.fixture(scope="module")
def with_hooks(tmp_path_factory):
    """certify.engine._search built again with SEARCH_TEST_HOOKS, which adds Search.load (a
    finished search of given keys): the production build has no such door."""
    include, suffix = sysconfig.get_paths()["include"], sysconfig.get_config_var("EXT_SUFFIX")
    built = tmp_path_factory.mktemp("hooks") / ("_search" + suffix)
    try:
        subprocess.run(["gcc", "-shared", "-fPIC", "-O2", "-std=c99", "-DSEARCH_TEST_HOOKS",
                        f"-I{include}",
                        *(str(ROOT / "certify" / "engine" / name)  # (setup.py's list for _search)
                          for name in ("search.c", "writer.c", "replay.c")),
                        "-o", str(built)], check=True, timeout=300)
    except FileNotFoundError:
        pytest.skip("no gcc to build the search with its test hooks")
    spec = importlib.util.spec_from_file_location("certify.engine._search", built)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_production_build_has_no_test_hooks():
    """setup.py's build (the one certify runs) cannot be made a search it did not run."""
    assert not hasattr(native.Search, "load")


@pytest.mark.parametrize("fixed", [False, True])
def test_the_writer_past_65536_columns_agrees_in_both_engines_and_with_certgen(fixed, with_hooks,
                                                                              monkeypatch):
    """Over 65,536 columns the file's ids take 3 bytes. No board of a testable size has that
    many, so the outcome is made up: the real closed set of a small board plus positions with
    no legal move (tests/support/certgen.py), as search keys with the columns in a scrambled order.
    Both engines' writers give the same bytes, and the table and records of certgen's own
    writer, written from the format document."""
    from support import certgen as g
    symmetry = "none" if fixed else "columns"
    positions = sorted(g.with_columns(g.explore(g.NOWIN0, 0, symmetry=symmetry), 0, 70_000))
    columns = sorted({bytes(c) for p in positions for c in p[2]}, key=lambda c: (len(c), c[::-1]))
    index = {c: i for i, c in enumerate(columns)}
    keys = [bytes(p[0]) + b"".join(index[bytes(c)].to_bytes(3, "big") for c in p[2])
            for p in positions]
    rules = Rules(0, fixed, False)
    reference_body = writer.no_win_body(keys, columns, 0, fixed)
    monkeypatch.setattr(engine, "_search", with_hooks)
    search = engine.NativeSearch(g.NOWIN0, rules)
    search.native.load(columns, keys)
    assert search.native.positions == len(keys)
    native_body = search.native.write_body()
    assert native_body == reference_body
    table, chunks = reader.nowin_parts(native_body, len(keys), 0)
    assert len(table) > 65536 and len(chunks) == 1
    expected_table, expected_records = g.nowin_parts(positions, 0, symmetry)
    assert table == expected_table
    assert spec.from_planes(chunks[0], len(keys), 4 + 8 * 3) == expected_records


def test_load_wants_a_search_that_has_not_run(with_hooks, monkeypatch):
    monkeypatch.setattr(engine, "_search", with_hooks)
    search = native_search(start(deal(1)), Rules(4))
    search.run(10)
    with pytest.raises(RuntimeError, match="not run"):
        search.native.load([b""], [bytes(8 + 24)])
    fresh = native_search(start(deal(1)), Rules(4))
    with pytest.raises(ValueError, match="not in the list"):
        fresh.native.load([b""], [bytes(8) + b"\x00\x00\x01" * 8])
    with pytest.raises(RuntimeError):  # half loaded: used no more
        fresh.native.write_body()


# ---- The search's own limits: the format's room, memory ------------------------------------

@pytest.mark.parametrize("capacity", [1, 2, 1000, known_count(11982) - 1, known_count(11982)])
def test_both_engines_stop_for_good_where_a_certificate_could_not_hold_the_positions(capacity):
    position, rules = start(deal(11982)), Rules(4)
    a = engine.NativeSearch(position, rules, capacity=capacity)
    b = reference.Search(position, rules, capacity=capacity)
    x, y = a.run(), b.run()
    same_outcome(x, y)
    if capacity < known_count(11982):
        assert (x.verdict, x.positions, x.limit) == (UNKNOWN, capacity, FORMAT)
        assert x.reason == f"more positions than the search in memory holds " \
                           f"({capacity:,})"
        same_outcome(a.run(), x)  # final
    else:
        assert x.verdict == NO_WIN
    # Both budgets met at once: the run's own is named, and the search may run on.
    z = engine.NativeSearch(position, rules, capacity=capacity).run(max_positions=capacity)
    assert z.reason == f"--max-positions {capacity} reached" or z.verdict == NO_WIN
    assert not z.final


def test_the_capacity_a_compiled_search_takes_is_checked():
    found, cells, cols = start(deal(1))
    for bad in (2 ** 32 - 1, 2 ** 32):
        with pytest.raises((ValueError, OverflowError)):
            native.Search(found, cells, cols, Rules(4), 1 << 16, 0, bad)
    # (its default is outcome.SEARCH_CAPACITY)
    assert native.SEARCH_CAPACITY == SEARCH_CAPACITY


def test_a_memory_budget_stops_the_compiled_search_for_good():
    position, rules = start(deal(7484159)), Rules(4)
    search = engine.NativeSearch(position, rules, memory=20 << 20)
    outcome = search.run()
    assert (outcome.verdict, outcome.limit) == (UNKNOWN, MEMORY) and outcome.final
    # It stopped before its tables' next doubling would pass 20 MiB: they take 40 bytes and
    # more a position (keys, parents, the stack and slots at 70 % load; the writer's 48), and a
    # doubling at most about doubles that.
    assert (20 << 20) // 100 < outcome.positions <= (20 << 20) // 40
    assert outcome.reason == (
        f"not enough memory after {outcome.positions:,} positions: the search's tables would "
        f"outgrow --memory 20M; give a larger --memory SIZE if this machine has it, or stop "
        f"sooner with --max-positions N")
    same_outcome(search.run(), outcome)
    # The same positions, in the same order, as far as it went.
    same_outcome(engine.NativeSearch(position, rules).run(outcome.positions), engine.NativeSearch(
        position, rules, memory=20 << 20).run(outcome.positions))


@pytest.mark.parametrize("number, rules", [(11982, Rules(4)), (11982, Rules(3)),
                                           (7484159, Rules(4)), (1, Rules(4)),
                                           (7484159, Rules(4, autoplay=True))])
def test_a_certificate_found_within_a_memory_budget_is_the_same_bytes(number, rules):
    """(The bytes compared by their SHA-256, as proved() gives it: the files need not be made.)"""
    position = start(deal(number))
    without = proved(position, rules, number, together=True)
    # a budget just over what the tables take (7484159: 165 MiB), and one far over
    for memory in (170 << 20 if number == 7484159 else 16 << 20, 1 << 40):
        assert claims(proved(position, rules, number, memory=memory, together=True)) == \
            claims(without)
    if number == 7484159 and not rules.autoplay:
        # 2,449,032 positions: three chunks, and a budget short of the tables is an unknown.
        table, chunks = reader.nowin_parts(without.body, without.positions, 4)
        assert len(chunks) == 3
        short = proved(position, rules, number, memory=150 << 20)
        assert short.verdict == UNKNOWN and "--memory 150M" in short.reason
    if number == 7484159 and rules.autoplay:
        # The published file's records are these (certify's default closure).
        published = reader.load(ROOT / "certificates" / "7484159.msgpack.zst")
        table, chunks = reader.nowin_parts(without.body, without.positions, 4)
        assert published.records()[0] == table and len(chunks) == 1
        assert b"".join(writer.byte_planes(r, 24) for r in batched(
            published.records()[1], spec.CHUNK)) == b"".join(chunks)


def batched(items, n):
    return [items[i:i + n] for i in range(0, len(items), n)]


@pytest.mark.slow   # (check verifies the 2,449,032 positions it writes: a CPU minute and more)
def test_a_no_win_of_several_chunks_is_the_same_bytes_from_the_streaming_writer(tmp_path):
    """7484159's 2,449,032 positions are three chunks (2^20, 2^20 and the rest): the compiled
    writer's body, as encode_file writes it, is byte for byte the file NowinWriter streams from
    the same records, fed in pieces that do not fall on chunk boundaries."""
    position, rules = start(deal(7484159)), Rules(4)
    outcome = engine.search(position, rules)
    n, body = outcome.positions, engine.no_win_body(outcome, rules)
    data = writer.encode_file(writer.header("no-win", 7484159, None, rules, n, body), body)
    table, chunks = reader.nowin_parts(body, n, 4)
    assert [len(c) // 24 for c in chunks] == [1 << 20, 1 << 20, n - (2 << 20)]
    out = tmp_path / "streamed.zst"
    with writer.NowinWriter(str(out), table, rules, deal=7484159) as w:
        assert (w.id_width, w.width) == (2, 24)
        for chunk in chunks:
            records = spec.from_planes(chunk, len(chunk) // 24, 24)
            for piece in batched(records, 300_007):
                w.add(b"".join(piece))
        size, sha256 = w.close()
    assert out.read_bytes() == data and (size, sha256) == (len(data), spec.digest(data))
    assert [p.name for p in tmp_path.iterdir()] == ["streamed.zst"]   # (the spool is gone)


def test_the_streaming_writer_is_the_in_memory_one_at_any_chunk_size(monkeypatch, capfdbinary):
    """The same rule with chunks of a few records (spec.CHUNK made small): the reference
    writer's file and NowinWriter's, the same bytes; and the file reads back. (Written to
    standard output: a file of chunks other than 2^20 records is not one check verifies.)"""
    position, rules = start(deal(11982)), Rules(3)
    ref = reference.search(position, rules)
    for chunk in (1, 7, 4096, 1 << 20):
        monkeypatch.setattr(spec, "CHUNK", chunk)
        values = writer.no_win_body(ref.keys, ref.columns, 3, False)
        head = writer.header("no-win", 11982, None, rules, ref.positions, values)
        data = writer.encode_file(head, values)
        cert = reader.Certificate(*reader.read_bytes(data))
        table, records, _ = cert.records()
        assert len(records) == ref.positions
        capfdbinary.readouterr()
        with writer.NowinWriter("-", table, rules, deal=11982) as w:
            for piece in batched(records, 1000):
                w.add(b"".join(piece))
            w.close()
        assert capfdbinary.readouterr().out == data


def test_the_streaming_writer_refuses_what_is_not_sorted_whole_records(tmp_path):
    rules = Rules(4)
    with pytest.raises(ValueError, match="ascending"):
        writer.NowinWriter(str(tmp_path / "x"), [b"\x01", b"\x00"], rules, deal=1)
    record = bytes(24)
    for pieces, words in (([record[:-1]], "whole records"), ([record, record], "ascending"),
                          ([b"\x01" + record[1:], record], "ascending"), ([], "no positions")):
        w = writer.NowinWriter(str(tmp_path / "x"), [b""], rules, deal=1)
        with pytest.raises(ValueError, match=words):
            for piece in pieces:
                w.add(piece)
            w.close()
        with pytest.raises(ValueError, match="closed"):   # a failed writer writes nothing more
            w.close()
    assert list(tmp_path.iterdir()) == []   # nothing written, no spool left


def test_counts_have_64_bits():
    """Nothing in version 3 stops at 32 bits: a header's count past 2^32 is a msgpack uint64,
    and a bin holds up to 2^32 - 1 bytes (a chunk is far less)."""
    import msgpack
    head = writer.values_header("no-win", 1, None, Rules(4), 2 ** 40 + 1, "0" * 16)
    assert msgpack.unpackb(msgpack.packb(head))["count"] == 2 ** 40 + 1
    assert spec.bin_header(2 ** 32 - 1) == b"\xc6\xff\xff\xff\xff"
    with pytest.raises(ValueError):
        spec.bin_header(2 ** 32)


def test_move_indices_agree_in_both_engines():
    """The compiled move_indices and the reference, on solver lines under every variant, and the
    reader turns the indices back into the line."""
    for cells in (0, 1, 2, 4):
        for back in (False, True):
            rules = Rules(cells, False, back)
            for n in range(1, 40):
                position = start(deal(n))
                line = engine.solve_line(position, rules, 4000)
                if line is None:
                    continue
                indices = writer.move_indices(position, bytes(line), rules)
                assert line.indices == indices == engine.move_indices(position, line, rules)
                assert reader.line_of(position, indices, rules) == engine.moves_of(line)
    tops = [col[-1] for col in start(deal(1))[2]]
    buried = next(c for c in range(52) if c not in tops)
    for bad in (bytes((buried, 8)), bytes((tops[0], 10)), b"\x34\x00"):   # at deal 1's start
        for convert in (writer.move_indices, engine.move_indices):
            with pytest.raises(ValueError, match="not legal"):
                convert(start(deal(1)), bad, Rules(4))


@pytest.mark.parametrize("where", ["solver", "search", "writer", "zstd", "file"])
@pytest.mark.parametrize("compiled", [True, False])
def test_running_out_of_memory_anywhere_is_an_honest_unknown(monkeypatch, tmp_path, where,
                                                            compiled):
    """A MemoryError wherever it comes from: UNKNOWN, the positions reached, nothing written."""
    if not compiled:
        monkeypatch.setattr(engine, "_search", None)
        monkeypatch.setattr(engine, "_solver", None)

    def no_memory(*args, **kwargs):
        raise MemoryError

    position = start(deal(11982))
    if where == "solver":
        monkeypatch.setattr(engine, "solve_line", no_memory)
    elif where == "search":
        monkeypatch.setattr(engine.NativeSearch if compiled else reference.Search, "run",
                            no_memory)
    elif where == "writer":
        monkeypatch.setattr(engine, "no_win_body", no_memory)
    elif where == "zstd":
        monkeypatch.setattr(writer, "compress_each", no_memory)
    else:
        monkeypatch.setattr(prove_module.output, "write_atomic", no_memory)
    out = tmp_path / "x.zst"
    for together in (False, True):
        result = proved(position, Rules(4), out=out, together=together)
        assert result.verdict == UNKNOWN and result.sha256 is None
        # (the search's own positions: a solver's budget takes no memory of the search's)
        assert result.reason == out_of_memory(result.positions - result.solver_positions)
        if where in ("writer", "zstd", "file"):
            assert result.positions == known_count(11982)
        assert list(tmp_path.iterdir()) == []


def test_the_words_of_running_out_of_memory():
    assert out_of_memory(1_234_567) == (
        "not enough memory after 1,234,567 positions: the system would give no more; free some, "
        "set --memory SIZE below what is free, or stop sooner with --max-positions N")
    assert "--memory 1.5G;" in out_of_memory(10, 3 << 29)
    assert [size_text(n) for n in (1, 1024, 500 << 20, 8 << 30, 3 << 39)] == \
        ["1B", "1K", "500M", "8G", "1.5T"]


# ---- Out of memory, from the command line ----------------------------------------------------

def certify_capped(args, megabytes, cwd, engine_name="native"):
    """certify in a child process whose address space is capped (RLIMIT_AS)."""
    import resource

    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (megabytes << 20, megabytes << 20))

    env = dict(os.environ, CERTIFY_ENGINE=engine_name)
    return subprocess.run([sys.executable, "-m", "certify", *map(str, args)], capture_output=True,
                          text=True, cwd=cwd, env=env, preexec_fn=cap, timeout=600)


def assert_honest_unknown(done, folder, budget=None):
    assert done.returncode == 3, (done.returncode, done.stdout, done.stderr[-2000:])
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    line = done.stdout.strip()
    assert "\n" not in line and line.startswith("UNKNOWN: deal 7484159 ")
    assert "not enough memory after " in line and "no certificate written" in line
    assert "--memory SIZE" in line and "--max-positions N" in line
    if budget is not None:
        assert f"--memory {budget}" in line
    assert list(folder.iterdir()) == []  # nothing written, no temporary file left


CAP = 120  # MiB of address space: 11982 is proved within it, 7484159's tables take 165 (plain)


@pytest.mark.parametrize("options", [[], ["--no-solver"]], ids=["solver", "no-solver"])
def test_certify_out_of_memory_is_unknown_exit_3_and_nothing_written(tmp_path, options):
    """Under an address-space cap that the search outgrows, malloc fails in search.c (or in
    solver.c or Python: whichever asks first): one line, exit 3, no file. --memory far over the
    cap, so that it is the system that says no."""
    folder = tmp_path / "out"
    folder.mkdir()
    done = certify_capped(["7484159", "-q", "--no-autoplay", "--memory", "64G", "-o",
                           folder / "x.zst", *options], CAP, tmp_path)
    assert_honest_unknown(done, folder)
    # (not a cap too small for certify to run at all)
    fits = certify_capped(["11982", "-q", "--memory", "64G", "-o", folder / "y.zst", *options],
                          CAP, tmp_path)
    assert fits.returncode == 0, fits.stderr[-2000:]


@pytest.mark.slow
def test_certify_out_of_memory_in_the_reference_engine(tmp_path):
    folder = tmp_path / "out"
    folder.mkdir()
    done = certify_capped(["7484159", "-q", "--no-solver", "--no-autoplay", "--memory", "64G", "-o",
                           folder / "x.zst"], CAP, tmp_path, "python")
    assert_honest_unknown(done, folder)


def test_certify_stops_at_its_memory_budget(tmp_path):
    folder = tmp_path / "out"
    folder.mkdir()
    done = run_certify(["7484159", "-q", "--no-autoplay", "--memory", "20M", "--no-spill", "-o",
                        str(folder / "x.zst")],
                       "native", tmp_path)
    assert_honest_unknown(done, folder, "20M")
    done = run_certify(["11982", "-q", "--memory", "20M", "-o", str(folder / "x.zst")],
                       "native", tmp_path)
    assert done.returncode == 0
    unbounded = run_certify(["11982", "-q", "-o", str(folder / "y.zst")], "native", tmp_path)
    assert unbounded.returncode == 0
    assert (folder / "x.zst").read_bytes() == (folder / "y.zst").read_bytes()


def test_memory_sizes_are_read_with_their_units():
    import argparse
    from certify.commands import options
    assert [options.memory_size(t) for t in ("500M", "8G", "8g", "1.5G", "2GiB", "512KB", "1T")] \
        == [500 << 20, 8 << 30, 8 << 30, 3 << 29, 2 << 30, 512 << 10, 1 << 40]
    for bad in ("8", "0M", "-1G", "8X", "", "G", "1e3M", "８G", "1_000M"):
        with pytest.raises(argparse.ArgumentTypeError):
            options.memory_size(bad)
    total = options.machine_memory()
    assert total is None or options.default_memory() == total * 3 // 4


def test_the_help_says_the_memory_default_and_that_nothing_spills(tmp_path):
    from certify.commands import options
    done = run_certify(["--help"], "native", tmp_path)
    text = " ".join(done.stdout.split())
    default = options.default_memory()
    assert f"three quarters of this machine's memory, {size_text(default)} here" in text
    assert "Past it the search goes on on disk, in --work-dir" in text   # (--no-spill: not)
    bad = run_certify(["1", "--memory", "8"], "native", tmp_path)
    assert bad.returncode == 2 and "--memory" in bad.stderr and bad.stderr.count("\n") == 1
