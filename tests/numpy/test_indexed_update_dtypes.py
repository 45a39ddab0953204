"""``x.at[idx]`` updates whose values have another dtype than ``x``: the update is computed in
the promoted dtype and cast back to ``x``'s, as jax does (jax is the oracle)."""

from __future__ import annotations

import hypothesis.strategies as st
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from helpers import assert_array_equal_typed
from hypothesis import given

import funcarray as fa
import funcarray.numpy as fnp
from funcarray import dtypes

METHODS = ["add", "subtract", "multiply", "min", "max", "divide", "power", "set"]
# Indices: a static box (dynamic_update_slice), a strided slice and repeated array entries
# (scatter).
INDICES = [(slice(None),), (0,), (slice(None, None, 2),), (np.array([0, 2, 0]),)]
DTYPES_32 = [np.bool_, np.int8, np.int32, np.uint8, np.uint32, np.float16, dtypes.bfloat16,
             np.float32, np.complex64]
DTYPES_64 = [*DTYPES_32, np.int64, np.uint64, np.float64, np.complex128]


def _operand(dtype, seed):
    n = np.array([-8, -6, 2, 5, 3], np.int64) * (seed + 1)
    if np.dtype(dtype) == np.bool_:
        return n > 0
    if np.dtype(dtype).kind == "u":
        n = np.abs(n)
    return n.astype(dtype)


def _jax_index(idx):
    return tuple(jnp.asarray(i) if isinstance(i, np.ndarray) else i for i in idx)


def _fa_index(idx):
    return tuple(fnp.asarray(i) if isinstance(i, np.ndarray) else i for i in idx)


def _check(x, method, idx, value, fa_value):
    try:
        want = getattr(jnp.asarray(x).at[_jax_index(idx)], method)(value)
    except (TypeError, ValueError, OverflowError):  # what jax refuses is not compared
        return
    want = np.asarray(want)
    got = getattr(fnp.asarray(x).at[_fa_index(idx)], method)(fa_value)
    # Float results may differ in the last place where the promoted dtype's arithmetic does
    # (power, divide); integer results are exact.
    rtol = 0 if method not in ("divide", "power") else None
    assert_array_equal_typed(got, want, rtol=rtol)
    jitted = fa.jit(lambda a: getattr(a.at[_fa_index(idx)], method)(fa_value))(fnp.asarray(x))
    assert_array_equal_typed(jitted, want, rtol=rtol)


@pytest.mark.filterwarnings("ignore::FutureWarning")  # jax: "cannot safely cast"
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@given(dtype=st.sampled_from(DTYPES_32), method=st.sampled_from(METHODS),
       idx=st.sampled_from(INDICES), seed=st.integers(0, 3),
       value=st.one_of(st.integers(-300, 300), st.sampled_from([1.5, -1.2558, 1e10, -0.5])))
def test_at_update_with_python_scalar_matches_jax(dtype, method, idx, seed, value):
    # Python scalars: jax's 32-bit defaults are funcarray's.
    with jax.enable_x64(False):
        x = _operand(dtype, seed)
        if isinstance(value, int) and np.dtype(dtype).kind in "iu" and not (
                np.iinfo(dtype).min <= value <= np.iinfo(dtype).max):
            return  # funcarray refuses a Python int out of the dtype's range
        _check(x, method, idx, value, value)


@pytest.mark.filterwarnings("ignore::FutureWarning")
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@given(dtype=st.sampled_from(DTYPES_64), value_dtype=st.sampled_from(DTYPES_64),
       method=st.sampled_from(METHODS), idx=st.sampled_from(INDICES), seed=st.integers(0, 3))
def test_at_update_with_typed_values_matches_jax(dtype, value_dtype, method, idx, seed):
    x = _operand(dtype, seed)
    values = np.array([-4.7, 1.5, 2.2], np.float64)
    values = (values > 0) if np.dtype(value_dtype) == np.bool_ else values.astype(value_dtype)
    if idx is INDICES[1]:
        values = values[:1]
    elif idx is INDICES[0]:
        values = np.resize(values, 5)
    _check(x, method, idx, values, fnp.asarray(values))


@pytest.mark.filterwarnings("ignore::FutureWarning")
@pytest.mark.parametrize("x, method, idx, value, expected", [
    (np.array([-8, -6, 2], np.int32), "add", slice(None), 1.5, [-6, -4, 3]),
    (np.array([5, 3], np.int64), "multiply", 0, -1.2558, [-6, 3]),
    (np.array([-2, 4], np.int32), "multiply", slice(None), 1e10, [-2**31, 2**31 - 1]),
    (np.array([1, 7], np.uint32), "min", slice(None), np.int8(-4), [2**32 - 4] * 2),
    (np.array([1, 7], np.uint8), "subtract", 0, 3, [254, 7]),
])
def test_at_update_computes_in_promoted_dtype(x, method, idx, value, expected):
    expected = np.array(expected, x.dtype)
    got = getattr(fnp.asarray(x).at[idx], method)(value)
    assert_array_equal_typed(got, expected)
    jitted = fa.jit(lambda a: getattr(a.at[idx], method)(value))(fnp.asarray(x))
    assert_array_equal_typed(jitted, expected)
    assert_array_equal_typed(got, np.asarray(getattr(jnp.asarray(x).at[idx], method)(value)))
