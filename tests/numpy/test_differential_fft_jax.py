"""Differential test of ``funcarray.numpy.fft`` and ``funcarray.lax.fft`` against jax:
funcarray eager, funcarray jit and ``jax.numpy.fft`` / ``jax.lax.fft`` on the same operand and
parameters must agree on whether they raise, and otherwise on shape, dtype, weak type and
values.

The operand is an array of any dtype (0-d, empty, one to three axes, lengths that are and are
not powers of two), with values from a normal distribution, sometimes holding an infinity or
a NaN; the parameters are drawn per function (``n``/``s`` cropping and padding, zero and
negative lengths, ``axis``/``axes`` in and out of range and repeated, every ``norm`` and an
invalid one). jax runs with x64 on only when the operand is 64-bit.

Finite results are compared within ``16 * eps * log2(2N) * max(|x| N, |jax|)`` (an FFT of
``N`` points sums ``N`` terms through ``log2 N`` rounding stages; ``|x| N`` bounds the
unnormalised result) scaled by the norm's factor; with a non-finite operand the values are
open (which elements become NaN or inf depends on the FFT's algorithm) and only the kind of
answer is compared. The index functions (fftfreq, fftshift) are compared exactly.
"""

from __future__ import annotations

import numpy as np
import pytest
from differential_fft import FftOp, cases, check_case
from hypothesis import given, settings
from hypothesis import strategies as st

import funcarray.numpy as fnp

# Each example compiles a funcarray program and a jax one: 10 examples for each of the ~20
# functions keeps the file within about 30 s on 2 idle cores (the thorough profile scales the
# count, conftest.py).
_EXAMPLES = settings(max_examples=10)

_NORMS = (None, "backward", "ortho", "forward", "sideways")

_ONE_AXIS = {"n": st.sampled_from((None, None, 1, 3, 4, 8, 0, -1)),
             "axis": st.sampled_from((-1, -1, 0, 1, -2, 3)),
             "norm": st.sampled_from(_NORMS)}
_TWO_AXES = {"s": st.sampled_from((None, None, (2, 3), (4, 4), (1, 5), (3,), (0, 2))),
             "axes": st.sampled_from(((-2, -1), (-2, -1), (0, 1), (1, 0), (-1,), (0, 0),
                                      (0, 3))),
             "norm": st.sampled_from(_NORMS)}
_N_AXES = {"s": st.sampled_from((None, None, (3,), (2, 2), (4, 4, 4), (0,))),
           "axes": st.sampled_from((None, None, (0,), (-1,), (0, 1), (1, 0), (0, 0), (5,))),
           "norm": st.sampled_from(_NORMS)}
_FREQ = {"n": st.sampled_from((0, 1, 4, 5, 8)),
         "d": st.sampled_from((1.0, 0.1, 2, -3.0)),
         "dtype": st.sampled_from((None, None, np.float32, np.float64, np.float16,
                                   np.complex64, np.int32))}
_SHIFT = {"axes": st.sampled_from((None, 0, -1, (0, 1), (1,), 2))}
_LAX = {"fft_type": st.sampled_from(("FFT", "IFFT", "RFFT", "IRFFT")),
        "fft_lengths": st.sampled_from(((4,), (3,), (2, 3), (5,), (1,)))}

FFT_OPS = (
    *(FftOp(name, _ONE_AXIS) for name in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")),
    *(FftOp(name, _TWO_AXES) for name in ("fft2", "ifft2", "rfft2", "irfft2")),
    *(FftOp(name, _N_AXES) for name in ("fftn", "ifftn", "rfftn", "irfftn")),
    FftOp("fftfreq", _FREQ, check="exact", operand=False),
    FftOp("rfftfreq", _FREQ, check="exact", operand=False),
    FftOp("fftshift", _SHIFT, check="exact"),
    FftOp("ifftshift", _SHIFT, check="exact"),
    FftOp("fft", _LAX, namespace="lax"),
)


def test_every_fft_function_is_in_the_table():
    """A function added to funcarray.numpy.fft later must join FFT_OPS or this fails."""
    tested = {op.name for op in FFT_OPS if op.namespace == "fft"}
    assert set(fnp.fft.__all__) == tested


@pytest.mark.parametrize("op", FFT_OPS, ids=lambda op: op.id)
@_EXAMPLES
@given(data=st.data())
def test_eager_and_jit_match_jax(op, data):
    check_case(op, data.draw(cases(op), label="case"))
