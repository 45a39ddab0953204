"""The ops XLA's CPU computes through its float32 exp polynomial give NaN under jit where a
NaN constant reaches them (``lowering.stablehlo.EXP_POLYNOMIAL_OPS``): LLVM folds the
polynomial of a constant NaN to poison, so without funcarray's select ``exp(where(s > 0, x,
nan))`` stores garbage (jax's jit does). NumPy, computing in float32 for the narrow floats as
the eager kernels do, is the oracle."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import funcarray as fa
import funcarray.numpy as fnp
from funcarray import nn
from funcarray.lowering.stablehlo import EXP_POLYNOMIAL_OPS

# Each function of EXP_POLYNOMIAL_OPS's ops, and its NumPy oracle.
FUNCTIONS = {
    "exp": (fnp.exp, np.exp),
    "expm1": (fnp.expm1, np.expm1),
    "cosh": (fnp.cosh, np.cosh),
    "sigmoid": (nn.sigmoid, lambda v: 1 / (1 + np.exp(-v))),
}
DTYPES = (np.float32, np.float16, ml_dtypes.bfloat16, np.float64, np.complex64,
          np.complex128)


def test_every_exp_polynomial_op_is_checked():
    assert len(FUNCTIONS) == len(EXP_POLYNOMIAL_OPS)


def _oracle(numpy_fn, x, dtype):
    work = np.float32 if np.dtype(dtype).itemsize < 4 else dtype
    with np.errstate(all="ignore"):
        return numpy_fn(np.asarray(x, work)).astype(dtype)


@settings(max_examples=40, deadline=None)
@given(name=st.sampled_from(sorted(FUNCTIONS)), dtype=st.sampled_from(DTYPES),
       size=st.integers(1, 20), valid=st.booleans(),
       x=st.floats(-10, 10, width=16, allow_subnormal=False))
def test_nan_selected_into_an_exp_polynomial_op_under_jit(name, dtype, size, valid, x):
    if name == "sigmoid" and np.dtype(dtype).kind == "c":
        dtype = np.float32  # funcarray.nn.sigmoid takes real arrays only
    fn, numpy_fn = FUNCTIONS[name]
    values = np.full(size, x, dtype)
    got = fa.jit(lambda v, s: fn(fnp.where(s > 0, v, np.nan)))(
        fnp.asarray(values), fnp.asarray(1.0 if valid else 0.0, np.float32))
    want = _oracle(numpy_fn, values if valid else np.full(size, np.nan, dtype), dtype)
    np.testing.assert_allclose(np.asarray(got).astype(np.complex128),
                               want.astype(np.complex128), rtol=1e-2, equal_nan=True)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, ml_dtypes.bfloat16])
def test_nan_constant_times_an_array_under_jit(dtype):
    got = fa.jit(lambda v: fnp.exp(v * np.nan))(fnp.zeros(8, dtype))
    assert np.isnan(np.asarray(got).astype(np.float32)).all(), got


@pytest.mark.parametrize("name", ["exp", "expm1", "cosh"])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, ml_dtypes.bfloat16])
def test_nan_constant_converted_to_complex_under_jit(name, dtype):
    # The complex formulas compute exp/expm1 of the real part, a NaN constant here.
    fn, numpy_fn = FUNCTIONS[name]
    got = fa.jit(lambda v, s: fn(fnp.where(s > 0, v, np.nan).astype(np.complex64)))(
        fnp.zeros(8, dtype), fnp.asarray(0.0, np.float32))
    want = _oracle(numpy_fn, np.full(8, np.nan, np.complex64), np.complex64)
    np.testing.assert_allclose(np.asarray(got), want, equal_nan=True)
