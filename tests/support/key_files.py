"""Key files of the search on disk (certify/engine/external.c's layout: an 8-byte header, then
blocks of 8,192 keys front-coded in a zstd frame each), written and read here from the layout's
description, so that a test gives external.c files it did not write and reads what it wrote
with code of its own (tests/test_external.py, tests/test_engine_tsan.py)."""
import os
import struct
from pathlib import Path

import zstandard


def key_file(path, keys, width):
    """The sorted `keys` (bytes of `width`) written to `path` as a key file: its path as bytes."""
    z = zstandard.ZstdCompressor(level=1, write_checksum=True)
    out = [b"FCDK" + bytes((2, width, 0, 0))]
    for at in range(0, len(keys), 8192):
        block, last = bytearray(), None
        for k in keys[at:at + 8192]:
            p = 0
            while last is not None and p < width and k[p] == last[p]:
                p += 1
            block += bytes((p,)) + k[p:]
            last = k
        frame = z.compress(bytes(block))
        out.append(struct.pack("<II", len(keys[at:at + 8192]), len(frame)) + frame)
    Path(path).write_bytes(b"".join(out))
    return os.fsencode(path)


def keys_of(path, width):
    """The keys of a key file, in its order."""
    data, at, keys = Path(os.fsdecode(path)).read_bytes(), 8, []
    while at < len(data):
        n, size = struct.unpack_from("<II", data, at)
        block = zstandard.ZstdDecompressor().decompress(data[at + 8:at + 8 + size],
                                                        max_output_size=8192 * (width + 1))
        at += 8 + size
        p, last = 0, b""
        for _ in range(n):
            s = block[p]
            last = last[:s] + block[p + 1:p + 1 + width - s]
            keys.append(last)
            p += 1 + width - s
    return keys


def merge_case(folder, width=6, seed=7):
    """A merge's inputs of random keys whose first two bytes repeat often: two files already on
    disk and five runs (one tiny, one empty), written into folder. Returns the files' paths, the
    runs' paths, the runs' keys together, and those of them in neither file."""
    import random
    rng = random.Random(seed)
    every = sorted({bytes([rng.randrange(3), rng.randrange(4)]) + rng.randbytes(width - 2)
                    for _ in range(200_000)})
    a = sorted(rng.sample(every, 80_000))
    b = sorted(set(rng.sample(every, 60_000)) - set(a))
    runs = [sorted(rng.sample(every, n)) for n in (50_000, 30_000, 10, 0, 70_000)]
    files = [key_file(os.path.join(folder, n), k, width) for n, k in (("a.keys", a),
                                                                       ("b.keys", b))]
    inputs = [key_file(os.path.join(folder, f"run{i}.keys"), r, width)
              for i, r in enumerate(runs)]
    union = sorted(set().union(*map(set, runs)))
    return files, inputs, union, sorted(set(union) - set(a) - set(b))
