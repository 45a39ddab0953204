"""``convolve`` and ``correlate`` of 1-d arrays (NumPy's, as ``jax.numpy`` computes them: one
``lax.conv_general_dilated``, so they differentiate, vectorise and compile).

Example:
    >>> import funcarray.numpy as fnp
    >>> fnp.convolve(fnp.asarray([1.0, 2.0, 3.0]), fnp.asarray([0.0, 1.0, 0.5]))
    Array([0. , 1. , 2.5, 4. , 1.5], dtype=float32)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from funcarray.api.arguments import asarray_arg, convert, to_inexact_dtype
from funcarray.base import dtypes
from funcarray.base.errors import op_value_error
from funcarray.numpy._math_functions import conj
from funcarray.numpy._rearranging import flip

if TYPE_CHECKING:
    from typing import Any

    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike, DTypeLike

__all__ = ["convolve", "correlate"]

_MODES = ("full", "same", "valid")


def _conv1d(op: str, a, v, mode: str, precision, preferred_element_type):
    from funcarray import lax

    a, v = asarray_arg(op, a), asarray_arg(op, v)
    if a.ndim != 1 or v.ndim != 1:
        raise op_value_error(op, f"takes 1-d arrays, got shapes {tuple(a.shape)} and "
                                 f"{tuple(v.shape)}")
    if a.shape[0] == 0 or v.shape[0] == 0:
        raise op_value_error(op, f"inputs cannot be empty, got shapes {tuple(a.shape)} and "
                                 f"{tuple(v.shape)}")
    if mode not in _MODES:
        raise op_value_error(op, f"mode must be one of {list(_MODES)}, got {mode!r}")
    dtype = dtypes.result_type(a, v)
    if preferred_element_type is None:  # NumPy computes convolutions in an inexact dtype
        dtype = to_inexact_dtype(dtype)
    a, v = convert(a, dtype), convert(v, dtype)
    reverse = False
    if op == "correlate":
        v = conj(v)
        if a.shape[0] < v.shape[0]:  # NumPy's rule: the longer one slides, result reversed
            a, v, reverse = v, a, True
    else:
        if a.shape[0] < v.shape[0]:
            a, v = v, a
        v = flip(v)
    k = v.shape[0]
    padding = {"valid": (0, 0), "same": (k // 2, k - k // 2 - 1), "full": (k - 1, k - 1)}[mode]
    out = lax.conv_general_dilated(a[None, None, :], v[None, None, :], (1,), [padding],
                                   precision=precision,
                                   preferred_element_type=preferred_element_type)[0, 0]
    return out[::-1] if reverse else out


def convolve(a: ArrayLike, v: ArrayLike, mode: str = "full", *, precision: Any = None,
             preferred_element_type: DTypeLike | None = None) -> Array:
    """The discrete convolution of two 1-d arrays (``mode``: ``"full"``, ``"same"`` or
    ``"valid"``, as ``numpy.convolve``).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.convolve(fnp.asarray([1.0, 2.0, 3.0]), fnp.asarray([1.0, 1.0]), mode="valid")
        Array([3., 5.], dtype=float32)
    """
    return _conv1d("convolve", a, v, mode, precision, preferred_element_type)


def correlate(a: ArrayLike, v: ArrayLike, mode: str = "valid", *, precision: Any = None,
              preferred_element_type: DTypeLike | None = None) -> Array:
    """The cross-correlation of two 1-d arrays (``v`` conjugated, as ``numpy.correlate``).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.correlate(fnp.asarray([1.0, 2.0, 3.0]), fnp.asarray([0.0, 1.0, 0.5]))
        Array([3.5], dtype=float32)
    """
    return _conv1d("correlate", a, v, mode, precision, preferred_element_type)
