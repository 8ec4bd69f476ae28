"""Membership in a no-win's records is exact: a hash picks where a lookup starts, the bytes decide.
Every record is made to hash alike here, so that each lookup walks past every other record and only
the comparison of bytes can tell a record from its neighbours (a lookup that ignored a byte, a
column id, or trusted the hash would be caught)."""
from pathlib import Path

import pytest
import test_check as t
from check import checker


@pytest.fixture
def one_hash(monkeypatch):
    monkeypatch.setattr(checker, 'hash', lambda record: 0, raising=False)   # (shadows the builtin there)


def records(recs):
    """Records holding recs, put in their slots as the reader puts them when every hash is 0."""
    W = len(recs[0])
    slots = memoryview(bytearray(4 * (len(recs) + len(recs) // 2 + 1))).cast('I')
    for n in range(len(recs)):
        slots[n] = n + 1   # (from slot 0 on, the first free one)
    layout = checker.struct.Struct(f'4s{W - 20}s' + '2s' * 8)   # (2-byte ids: W - 20 cell bytes)
    return checker.Records(bytearray(b''.join(recs)), W, len(recs), slots, layout)


def test_a_lookup_compares_every_byte(one_hash):
    _, recs = t.parts('board1')
    held = records(recs[::2])   # every other record
    for k, rec in enumerate(recs):
        assert (rec in held) == (k % 2 == 0), k
        for i in range(len(rec)):   # each byte: foundations, cells, each column id's high and low byte
            changed = rec[:i] + bytes([rec[i] ^ 1]) + rec[i + 1:]
            assert (changed in held) == (changed in recs[::2]), (k, i)


def test_the_hash_only_picks_where_to_start():
    _, recs = t.parts('board0')
    held = records(recs[:10])   # (slots filled as if every hash were 0; looked up with the real hash)
    assert sum(rec in held for rec in recs[:10]) <= 10 and not any(rec in held for rec in recs[10:])


@pytest.mark.parametrize('name', ['board0', 'board1', 'board0-fixed'])
def test_certificates_are_judged_alike_when_every_record_hashes_alike(one_hash, name, tmp_path):
    p = tmp_path / 'alike.msgpack.zst'
    p.write_bytes(t.nowin(name))
    verdict, _, text, _ = checker.verify(p)
    assert verdict == 'verified', text
    for index in (0, 7, -1):
        p.write_bytes(t.drop(name, index)[0])
        assert checker.verify(p)[0] == 'rejected'
