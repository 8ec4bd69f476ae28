"""Ranges in FreeCell Pro's numbering: deals from 2^31 on (the generator sets the high bit) and from
2^32 on (its seed and its 16-bit draws change), in one census, locally and on a Dask cluster of
two local workers, give the same range certificate, which check verifies and whose entries are
the deals' own certificates.

The deals are the ones each side of both boundaries, so that an off-by-one in where the
numbering changes (on the census's side, Dask's pickling of big deal numbers, or the
checker's) changes an entry.
"""

import hashlib

import pytest

from certify.commands import cli
from support.census_runs import run, table, timeless
from check import checker

RANGES = ["2147483646-2147483649", "4294967294-4294967297"]


@pytest.fixture(scope="module")
def local(tmp_path_factory):
    """Each range's census in one local process: what the Dask run must match."""
    made = {}
    for deals in RANGES:
        folder = tmp_path_factory.mktemp("local") / "census"
        assert cli.main([deals, "-j", "1", "-q", "--out", str(folder)]) == 0
        made[deals] = folder
    return made


def certificate_of(folder, deals):
    return folder / f"{deals}.msgpack.zst"


@pytest.mark.parametrize("deals", RANGES)
def test_check_verifies_the_range(local, deals, capsys):
    first, last = (int(n) for n in deals.split("-"))
    assert checker.main([str(certificate_of(local[deals], deals))]) == 0
    out = capsys.readouterr().out
    assert out.startswith("VERIFIED: of ") and f" deals {first:,}..{last:,} " in out, out
    assert [row["deal"] for row in table(local[deals])] == list(range(first, last + 1))


@pytest.mark.parametrize("deals", RANGES)
def test_entries_are_the_deals_own_certificates(local, deals, tmp_path, capsys):
    first, last = (int(n) for n in deals.split("-"))
    for number in range(first, last + 1):
        mine, theirs = tmp_path / f"x{number}", tmp_path / f"c{number}"
        code, _, err = run(capsys, "extract", certificate_of(local[deals], deals), number,
                           "-o", mine)
        assert code == 0, err
        assert run(capsys, number, "-q", "-o", theirs)[0] == 0
        assert mine.read_bytes() == theirs.read_bytes(), number


def test_dask_gives_the_same_bytes_beyond_2_to_the_32(local, tmp_path, capsys):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None) as cluster:
        for deals in RANGES:
            folder = tmp_path / deals
            code, out, err = run(capsys, deals, "--scheduler", cluster.scheduler_address,
                                 "--chunk", 1, "-q", "--out", folder)
            assert code == 0, err
            assert out.splitlines()[0].startswith("4 deals: ")
            ours = certificate_of(folder, deals).read_bytes()
            theirs = certificate_of(local[deals], deals).read_bytes()
            assert hashlib.sha256(ours).digest() == hashlib.sha256(theirs).digest(), deals
            assert timeless(table(folder)) == timeless(table(local[deals]))
