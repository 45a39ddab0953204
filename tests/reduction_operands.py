"""Operands for the shortcut tests of reductions, sorts, statistics and set operations: drawn
values full of ties that differ in their bits (``-0.0`` beside ``0.0``, NaNs of both signs
and another payload), infinities, subnormals and the integer limits, and the ways a caller
gives an operand (Array, weak Array, device array, NumPy array, list, Python scalar).

Example:
    >>> as_input(np.zeros(2, np.float32), "list")
    [0.0, 0.0]
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

import funcarray as fa
import funcarray.numpy as fnp
from funcarray.base.array import Array

__all__ = ["FLOATS", "KINDS", "PAYLOAD_NAN", "SHAPES", "tie_values", "as_input"]

PAYLOAD_NAN = float(np.uint32(0x7FC00001).view(np.float32))
FLOATS = [0.0, -0.0, 0.0, 1.0, -1.0, 1.0, 0.5, -7.5, np.inf, -np.inf, np.nan, -np.nan,
          PAYLOAD_NAN, 1e-40, 65504.0]
KINDS = ("array", "weak", "device", "numpy", "list", "scalar")
# (rows longer than 16 take the sorts' other kernels)
SHAPES = st.sampled_from([(), (0,), (1,), (4,), (2, 3), (3, 0), (2, 20), (3, 2, 17)])
_MAKERS = {"array": fnp.asarray, "weak": lambda v: Array(v.copy(), True),
           "device": lambda v: fa.device_put(fnp.asarray(v)), "numpy": lambda v: v,
           "list": np.ndarray.tolist}


def tie_values(draw, dtype, shape) -> np.ndarray:
    """A NumPy array of ``dtype`` and ``shape`` drawn from the special values."""
    dtype = np.dtype(dtype)
    n = int(np.prod(shape))
    if dtype == np.bool_:
        pool = [0, 1]
    elif dtype.kind in "iu":
        info = np.iinfo(dtype)
        pool = [int(info.min), int(info.min) + 1, 0, 1, 2, 7, int(info.max)]
    else:
        pool = FLOATS
    drawn = draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n))
    with np.errstate(all="ignore"):
        if dtype.kind in "biu":
            return np.asarray(drawn, object).astype(dtype).reshape(shape)
        values = np.asarray(drawn, np.float64)
        if dtype.kind == "c":
            out = np.empty(n, dtype)
            out.real, out.imag = values, values[::-1]
            return out.reshape(shape)
        return values.astype(dtype).reshape(shape)


def as_input(value: np.ndarray, kind: str):
    """``value`` given as ``kind`` (a Python scalar only for 0-d integers and floats)."""
    if kind != "scalar":
        return _MAKERS[kind](value)
    return value.item() if value.ndim == 0 and value.dtype.kind in "iuf" else value
