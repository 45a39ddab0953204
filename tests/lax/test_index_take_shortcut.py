"""``lax.index_take``'s shortcut along the first axis gives the general path's outcome
(``tests/shortcut_oracle.py``): indices in range (NumPy's indexing as it is) or not (the
wrapping modulo), up to 16 of them or more, and index dtypes too narrow for the general
path's wrapping arithmetic (``2 n - 1`` beyond the dtype: the general path decides)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from shortcut_oracle import assert_same_outcome

import funcarray as fa
import funcarray.numpy as fnp
from funcarray import lax


@settings(max_examples=60, deadline=None)
@given(n=st.sampled_from([1, 3, 63, 64, 65, 100, 200]),
       indices=st.lists(st.integers(-300, 300), min_size=0, max_size=20),
       index_dtype=st.sampled_from([np.int8, np.uint8, np.int16, np.int32, np.uint32,
                                    np.int64]),
       device=st.booleans())
def test_index_take_along_the_first_axis_matches_general_path(n, indices, index_dtype,
                                                             device):
    x = fnp.asarray(np.arange(n * 2, dtype=np.float32).reshape(n, 2))
    info = np.iinfo(index_dtype)
    idx = fnp.asarray(np.array([min(max(i, info.min), info.max) for i in indices],
                               index_dtype))
    if device:
        x, idx = fa.device_put(x), fa.device_put(idx)
    assert_same_outcome(lambda: lax.index_take(x, (idx,), (0,)))
    assert_same_outcome(lambda: lax.index_take(x, [idx], [0]))


@pytest.mark.parametrize("index", [np.array([50, 3], np.int8), np.array([1, 2], np.int32)])
def test_index_take_with_narrow_indices_of_a_long_axis(index):
    x = fnp.arange(100.0)
    assert_same_outcome(lambda: lax.index_take(x, (fnp.asarray(index),), (0,)))
