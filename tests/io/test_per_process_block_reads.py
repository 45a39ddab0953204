"""A per-process checkpoint is read block by block: the part of an array a device holds
comes from the blocks that meet it only (funcarray.io._per_process.BlockReader), equal to
the same slice of the whole array, for every box of a random block grid and every part."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from funcarray.io._per_process import BlockReader


def _cuts(n, draw):
    inner = sorted(set(draw(st.lists(st.integers(1, max(n - 1, 1)), max_size=3))))
    return [0, *[c for c in inner if 0 < c < n], n]


@st.composite
def _grids(draw):
    shape = tuple(draw(st.lists(st.integers(1, 7), min_size=0, max_size=3)))
    cuts = [_cuts(n, draw) for n in shape]
    whole = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    blocks, stored = [], {}
    for k, corner in enumerate(np.ndindex(*[len(c) - 1 for c in cuts])):
        box = [[c[i], c[i + 1]] for c, i in zip(cuts, corner)]
        key = f"w/{k}"
        blocks.append({"file": f"p{k % 2}.safetensors", "key": key, "box": box})
        stored[key] = whole[tuple(slice(a, b) for a, b in box)].copy()
    index = {"arrays": {"w": {"shape": list(shape), "dtype": "float32", "blocks": blocks}}}
    part = tuple(slice(*sorted(draw(st.tuples(st.integers(0, n), st.integers(0, n)))))
                 for n in shape[:draw(st.integers(0, len(shape)))])
    return whole, index, stored, part


@given(_grids())
def test_a_part_reads_only_the_blocks_that_meet_it(grid):
    whole, index, stored, part = grid
    read = []

    def read_key(path, key):
        read.append(key)
        return stored[key]

    reader = BlockReader(index, "/checkpoints", read_key)
    assert reader.specs == {"w": (whole.shape, np.dtype(np.float32))}
    got = reader.part("w", part)
    np.testing.assert_array_equal(got, whole[part])
    wanted = [s.indices(n)[:2] for s, n in zip(part, whole.shape)]
    wanted += [(0, n) for n in whole.shape[len(part):]]
    meeting = {b["key"] for b in index["arrays"]["w"]["blocks"]
               if all(max(a, c) < min(b_, d) for (a, b_), (c, d) in zip(wanted, b["box"]))}
    assert set(read) == meeting and len(read) == len(set(read))
    np.testing.assert_array_equal(reader.whole("w"), whole)
    assert len(read) == len(set(read))  # blocks already read are not read again
