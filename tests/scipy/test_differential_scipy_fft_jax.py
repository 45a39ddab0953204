"""Differential test of ``funcarray.scipy.fft`` (the discrete cosine transforms) against
``jax.scipy.fft``: funcarray eager, funcarray jit and jax on the same operand and parameters
must agree on whether they raise, and otherwise on shape, dtype, weak type and values.

Operands of every dtype, 0-d to three axes, empty, with an infinity or a NaN; parameters
``type`` (2, and the types 1, 3, 4 that both refuse, and an invalid one), ``n``/``s``
cropping and padding (zero and negative lengths included), ``axis``/``axes`` in and out of
range and repeated, every ``norm`` and an invalid one (``differential_fft``). A DCT of ``N``
points is one complex FFT of ``N`` points and a rotation, so the FFT's bound applies.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.fft
from differential_compare import Case
from differential_fft import FftOp, cases, check_case
from hypothesis import given, settings
from hypothesis import strategies as st

import funcarray.scipy.fft as fsf

# Each example compiles a funcarray program and a jax one: 12 examples for each of the four
# transforms keeps the file within about 10 s on 2 idle cores (the thorough profile scales
# the count, conftest.py).
_EXAMPLES = settings(max_examples=12)

_TYPES = st.sampled_from((2, 2, 2, 1, 3, 4, 5))
_NORMS = st.sampled_from((None, "backward", "ortho", "forward", "sideways"))
_ONE_AXIS = {"type": _TYPES, "n": st.sampled_from((None, None, 1, 3, 4, 8, 0, -1)),
             "axis": st.sampled_from((-1, -1, 0, 1, -2, 3)), "norm": _NORMS}
_N_AXES = {"type": _TYPES, "s": st.sampled_from((None, None, (3,), (2, 2), (4, 4, 4), (0,))),
           "axes": st.sampled_from((None, None, (0,), (-1,), (0, 1), (1, 0), (0, 0), (5,))),
           "norm": _NORMS}

SCIPY_FFT_OPS = (
    FftOp("dct", _ONE_AXIS, namespace="scipy.fft"),
    FftOp("idct", _ONE_AXIS, namespace="scipy.fft"),
    FftOp("dctn", _N_AXES, namespace="scipy.fft"),
    FftOp("idctn", _N_AXES, namespace="scipy.fft"),
)


def test_every_scipy_fft_function_is_in_the_table():
    """A function added to funcarray.scipy.fft later must join SCIPY_FFT_OPS or this fails."""
    assert set(fsf.__all__) == {op.name for op in SCIPY_FFT_OPS}


@pytest.mark.parametrize("op", SCIPY_FFT_OPS, ids=lambda op: op.id)
@_EXAMPLES
@given(data=st.data())
def test_eager_and_jit_match_jax(op, data):
    check_case(op, data.draw(cases(op), label="case"))


@pytest.mark.parametrize("name", ["dctn", "idctn"])
@pytest.mark.parametrize("operand", [np.True_, np.int8(3), np.float16(2.5)])
def test_transform_over_no_axes_keeps_the_operand(name, operand):
    """dctn/idctn of a 0-d operand transform no axes: jax returns the operand in its own
    dtype and weak type (funcarray converted it to a float)."""
    op = next(op for op in SCIPY_FFT_OPS if op.name == name)
    check_case(op, Case(np.asarray(operand), {}))


@pytest.mark.parametrize("name", ["dct", "idct"])
def test_half_precision_transform_is_computed_in_float32(name):
    """A float16 operand's DCT is SciPy's float64 transform rounded to float32 (jax's
    rounds in float16 on the way: differential_fft.jax_dct_rounds_in_half_precision)."""
    x = np.array([0.5029296875, -0.5283203125, 2.5625, 0.419677734375], np.float16)
    got = getattr(fsf, name)(x)
    assert got.dtype == np.float32
    want = getattr(scipy.fft, name)(x.astype(np.float64))
    np.testing.assert_allclose(np.asarray(got), want, rtol=4e-7, atol=4e-7)
