"""The host shortcuts of ``full`` and ``full_like`` with a Python float fill and a dtype give
the general path's outcome (``tests/shortcut_oracle.py``): the float converted at double
precision by the conversion kernel (rounding to a narrower float, overflowing it, truncating
and saturating to an integer, NaN to an integer or a bool), for every dtype, dtype given as
a type, a NumPy dtype or a name, and ``a`` given as an Array, a weak array or a device
array. The last test checks that the shortcuts take the common forms themselves."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from op_table import ALL_DTYPES
from shortcut_oracle import assert_same_outcome

import funcarray as fa
import funcarray.numpy as fnp
from funcarray.base.array import Array
from funcarray.numpy import _creation

# Floats that round differently at float32 and float16 from double, overflow them, sit half
# way between two float32s, truncate toward zero, and fall outside the integer ranges.
_FILLS = [0.1, -0.0, 1.5, 1 + 2.0**-24, 1 + 3 * 2.0**-24, 65520.0, 65504.0, 1e39, -1e39,
          3.4028235e38, 1e-46, 2.7, -2.7, 300.5, -129.9, 2.0**31, 2.0**63, 2.0**64, float("nan"),
          float("inf"), float("-inf")]
_DTYPES = st.sampled_from([*ALL_DTYPES, None, "float32", np.dtype(np.int8), "bad"])


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(_FILLS), _DTYPES, st.sampled_from([(), 3, (2, 2), (0,)]))
def test_full_with_a_float_fill_matches_general_path(fill, dtype, shape):
    assert_same_outcome(lambda: fnp.full(shape, fill, dtype))


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(_FILLS), _DTYPES, st.sampled_from(ALL_DTYPES),
       st.sampled_from(["array", "weak", "device"]), st.sampled_from([None, (2,), ()]))
def test_full_like_with_a_float_fill_matches_general_path(fill, dtype, a_dtype, kind, shape):
    value = np.zeros((3,), np.dtype(fnp.dtype(a_dtype)))
    a = {"array": fnp.asarray, "weak": lambda v: Array(v, True),
         "device": lambda v: fa.device_put(fnp.asarray(v))}[kind](value)
    assert_same_outcome(lambda: fnp.full_like(a, fill, dtype, shape))


def test_shortcuts_take_the_common_forms():
    x = fa.device_put(fnp.asarray(np.zeros(4, np.float32)))
    for out in (_creation._full_like_on_host(x, 1.5), _creation._full_on_host(3, 0.1, "float16"),
                _creation._full_on_host((2,), 2.7, np.int8)):
        assert type(out) is Array
