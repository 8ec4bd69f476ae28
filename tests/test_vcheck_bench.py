"""benchmarks/bench_vcheck.py runs with every option but --published (every published file:
minutes of CPU) on small files of each version, and each copy it writes in the other version
gets the same verdict from each checker. Nothing here is timed: the figures are the
benchmark's business."""

import json
import subprocess
import sys
from pathlib import Path

import msgpack

from support import certgen
from test_vcheck import build  # noqa: F401  (the session's vcheck build, a pytest fixture)

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benchmarks" / "bench_vcheck.py"


def run_bench(*argv):
    done = subprocess.run([sys.executable, str(BENCH), *map(str, argv)], capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def small_files(folder):
    """A version 2 no-win, a version 1 win, a version 3 no-win and a version 3 range (deals
    1..3 of the published range), each a few KB."""
    nowin2 = folder / "nowin1-v2.msgpack.zst"
    nowin2.write_bytes(certgen.nowin_file(certgen.NOWIN1, 1, version=2))
    win1 = folder / "win1-v1.msgpack.zst"
    win1.write_bytes(certgen.win_file(certgen.WIN1, 1, certgen.win_path(certgen.WIN1, 1)))
    nowin3 = folder / "nowin0-v3.msgpack.zst"
    nowin3.write_bytes(certgen.nowin_file(certgen.NOWIN0, 0, version=3))
    range3 = folder / "range-v3.msgpack.zst"
    h, entries = certgen.unpack_range((ROOT / "certificates" / "1-32000.msgpack.zst").read_bytes())
    assert h["version"] == 3
    range3.write_bytes(certgen.range_file(1, [
        certgen.entry(deal, claim, count, b"".join(msgpack.packb(v) for v in values), version=3)
        for deal, claim, count, values in entries[:3]], version=3))
    return [nowin2, win1, nowin3, range3]


def test_every_option_but_published_runs(build, tmp_path):  # noqa: F811
    files = small_files(tmp_path)
    lines = run_bench("--build", build, "--no-build", "--version2", "--version3", "--packed",
                      "--runs", "1", "--json", *files)
    records = [json.loads(line) for line in lines]
    assert all(r["benchmark"] == "bench_vcheck" for r in records)
    seen = {(r["file"], r["checker"]): r["verdict"] for r in records}
    rewritten = {"v3-nowin1-v2.msgpack.zst", "v3-win1-v1.msgpack.zst",
                 "v2-nowin0-v3.msgpack.zst", "v2-range-v3.msgpack.zst"}
    assert {f for f, _ in seen} == {f.name for f in files} | rewritten
    assert {c for _, c in seen} == {"vcheck", "packed", "check"}
    assert set(seen.values()) == {"verified"}, seen
    assert len(seen) == 3 * 8
    rates = [r for r in records if r["measure"] == "positions a CPU second"]
    assert {r["file"] for r in rates} <= {"nowin1-v2.msgpack.zst", "nowin0-v3.msgpack.zst",
                                          "v3-nowin1-v2.msgpack.zst", "v2-nowin0-v3.msgpack.zst"}


def test_files_already_in_the_asked_version_are_said_so(build, tmp_path):  # noqa: F811
    files = small_files(tmp_path)
    lines = run_bench("--build", build, "--no-build", "--version3", "--no-check", files[2],
                      files[3])
    assert lines[0] == "nowin0-v3.msgpack.zst: a version 3 file, checked as it is"
    assert lines[1] == "range-v3.msgpack.zst: a version 3 range, checked as it is"
    rows = [line.split()[:3] for line in lines[3:]]
    assert rows == [["nowin0-v3.msgpack.zst", "vcheck", "verified"],
                    ["range-v3.msgpack.zst", "vcheck", "verified"]]


def test_a_baseline_build_runs_in_turn_and_gets_its_ratio(build, tmp_path):  # noqa: F811
    nowin3 = small_files(tmp_path)[2]
    lines = run_bench("--build", build, "--no-build", "--no-check", "--packed", "--baseline",
                      build / "vcheck", "--runs", "2", "--json", nowin3)
    records = [json.loads(line) for line in lines]
    seen = {(r["checker"], r["measure"]) for r in records}
    assert {("vcheck", "CPU"), ("baseline", "CPU"), ("base-packed", "CPU"),
            ("baseline", "positions a CPU second"), ("ratio", "CPU against the baseline"),
            ("ratio packed", "CPU against the baseline")} <= seen
    for name in ("ratio", "ratio packed"):
        ratio, = [r for r in records if r["checker"] == name]
        assert ratio["runs"] == 2 and ratio["versus_value"] > 0
        # (each figure is rounded to a few digits as it is printed)
        assert abs(ratio["ratio"] - ratio["versus_value"] / ratio["value"]) < 0.01 * ratio["ratio"]
    assert {r["verdict"] for r in records if "verdict" in r} == {"verified"}
