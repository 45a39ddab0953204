"""The eager float-to-integer conversion against XLA's (jax.lax.convert_element_type): values
strictly inside the integer range are cast directly, whether the array is small enough for
its range to be taken in Python or large enough for NumPy's reductions; NaN, infinities and
values beyond the range saturate as XLA does."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import funcarray.numpy as fnp
from funcarray import lax
from funcarray.primitives.conversions import convert_kernel

jax.config.update("jax_enable_x64", True)

_FLOATS = (np.float16, np.float32, np.float64)
# (those beyond a float dtype's range are left out for it: NumPy refuses to make them)
_EDGES = (np.nan, np.inf, -np.inf, -0.0, 127.9, 128.0, -129.0, 2.0**31, -2.0**31, 2.0**63,
          2.0**64, 65535.5, -1.0)
_INTS = (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)


@st.composite
def _float_arrays(draw, dtype):
    """Values inside every integer range, with up to two edges (NaN, infinities, values at
    or beyond a range's ends) at drawn positions; sizes on both sides of the listed-range
    threshold (32 elements)."""
    shape = draw(st.one_of(hnp.array_shapes(min_dims=0, max_dims=1, max_side=64),
                           hnp.array_shapes(min_dims=2, max_dims=2, max_side=8)))
    x = draw(hnp.arrays(dtype, shape, elements=st.floats(-100, 100, width=np.finfo(dtype).bits)))
    largest = float(np.finfo(dtype).max)
    edges = [e for e in _EDGES if not math.isfinite(e) or abs(e) <= largest]
    flat = x.reshape(-1)
    if flat.size:
        for _ in range(draw(st.integers(0, 2))):
            flat[draw(st.integers(0, flat.size - 1))] = draw(st.sampled_from(edges))
    return x


@settings(max_examples=50, deadline=None)
@given(st.sampled_from(_FLOATS).flatmap(_float_arrays), st.sampled_from(_INTS))
def test_float_to_int_matches_xla(x, new_dtype):
    expected = np.asarray(jax.lax.convert_element_type(jnp.asarray(x), new_dtype))
    got = convert_kernel(x, new_dtype)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(np.asarray(fnp.astype(fnp.asarray(x), new_dtype)), expected)
    np.testing.assert_array_equal(np.asarray(lax.convert_element_type(fnp.asarray(x),
                                                                      new_dtype)), expected)


@pytest.mark.parametrize("dtype", _FLOATS, ids=lambda t: np.dtype(t).name)
def test_each_edge_at_each_position_matches_xla(dtype):
    """One edge value among values inside the range, at the start, middle or end of arrays
    just below, at and above the listed-range threshold."""
    largest = float(np.finfo(dtype).max)
    for size in (1, 4, 32, 33):
        for edge in (e for e in _EDGES if not math.isfinite(e) or abs(e) <= largest):
            for position in {0, size // 2, size - 1}:
                x = np.linspace(-50, 50, size).astype(dtype)
                x[position] = edge
                for new_dtype in (np.int8, np.uint8, np.int32, np.uint64):
                    expected = np.asarray(jax.lax.convert_element_type(x, new_dtype))
                    np.testing.assert_array_equal(convert_kernel(x, new_dtype), expected,
                                                  err_msg=f"{x} to {np.dtype(new_dtype)}")
