"""Matrices for the differential tests of linear algebra against jax (``numpy.linalg``,
``scipy.linalg``): stacks of every dtype whose values are well conditioned, singular, zero,
or hold an infinity or a NaN, and the condition numbers that scale the comparison bounds.

Example:
    >>> from hypothesis import given, strategies as st
    >>> @given(st.data())
    ... def check(data):
    ...     x = data.draw(matrices(np.float32, (2, 3, 3), "singular"))
    ...     assert x.dtype == np.float32 and np.isinf(condition(x)).all()
    >>> check()
"""

from __future__ import annotations

import numpy as np
from differential_compare import BITS_64, Raised
from hypothesis import strategies as st
from op_table import kind_of

from funcarray import dtypes

__all__ = ["KINDS_OF_VALUES", "condition", "half_precision_lapack", "hermitian_positive_definite",
           "inexact_of", "matrices", "wide"]

# Well conditioned three times out of seven: the values compared most often.
KINDS_OF_VALUES = ("regular", "regular", "regular", "singular", "zero", "inf", "nan")


def hermitian_positive_definite(a):
    """``a a^H + n I``: Hermitian, positive definite, condition number modest."""
    n = a.shape[-1]
    return a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)


@st.composite
def matrices(draw, dtype, shape, values, hermitian=False):
    """A NumPy array of ``dtype`` and ``shape`` (a stack of matrices) with entries uniform
    in [-4, 4] (small integers for integer dtypes, nonzero-ness for bool), then made
    Hermitian positive definite (``hermitian``) and given its kind of ``values``: a repeated
    row ("singular"; the column too when Hermitian, which keeps it Hermitian), all zeros, or
    one infinity or NaN (inexact dtypes only)."""
    rng = np.random.default_rng(draw(st.integers(0, 2**16), label="seed"))
    a = rng.uniform(-4, 4, shape)
    if kind_of(dtype) == "c":
        a = a + 1j * rng.uniform(-4, 4, shape)
    if kind_of(dtype) in "biu":  # small integers (and bools) that the dtype holds
        a = np.round(a) if kind_of(dtype) == "i" else np.abs(np.round(a))
    if hermitian and a.size:
        a = hermitian_positive_definite(a)
    if values == "singular" and len(shape) >= 2 and shape[-2] > 1:
        a[..., -1, :] = a[..., 0, :]
        if hermitian:
            a[..., :, -1] = a[..., :, 0]
    elif values == "zero":
        a = np.zeros_like(a)
    elif values in ("inf", "nan") and a.size and kind_of(dtype) in "fc":
        a.reshape(-1)[draw(st.integers(0, a.size - 1))] = np.inf if values == "inf" else np.nan
    with np.errstate(all="ignore"):
        if kind_of(dtype) == "b":
            return a != 0
        real = a if kind_of(dtype) == "c" else a.real
        return np.asarray(real).astype(dtype)


def wide(x) -> np.ndarray:
    """``x`` in float64 or complex128, for computing bounds and reference products."""
    x = np.asarray(x)
    return x.astype(np.complex128 if np.iscomplexobj(x) else np.float64)


def condition(x) -> np.ndarray:
    """The 2-norm condition number of each matrix of the stack ``x``, in float64 (inf where
    singular or not finite; 1 for empty matrices)."""
    a = wide(x)
    if a.size == 0:
        return np.ones(a.shape[:-2])
    if not np.isfinite(a).all():
        return np.full(a.shape[:-2], np.inf)
    s = np.linalg.svd(a, compute_uv=False)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(s[..., -1] > s[..., 0] * 1e-12, s[..., 0] / s[..., -1], np.inf)


def inexact_of(dtype):
    """The dtype LAPACK computes an operand of ``dtype`` in (float32 for half precision,
    float64 for 64-bit integers)."""
    dtype = np.dtype(dtype)
    if kind_of(dtype) in "fc":
        return np.float32 if dtypes.is_half_precision(dtype) else dtype
    return np.float64 if dtype in BITS_64 else np.float32


def half_precision_lapack(dtype, got, want) -> bool:
    """A float16/bfloat16 operand: jax's LAPACK refuses it (but for empty matrices, where
    it has nothing to factorise); funcarray computes determinants in float32 and refuses
    the other decompositions whatever the size. One raising is allowed."""
    return (dtypes.is_half_precision(dtype)
            and isinstance(got, Raised) != isinstance(want, Raised))
