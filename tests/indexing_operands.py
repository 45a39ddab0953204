"""Operands for the differential tests of the indexing shortcuts (lax's slicing, gather and
scatter; numpy's take family, index tricks, diagonals and rearrangements): values of every
dtype with the edge values that tell copies from computations (signed zeros, NaN,
infinities, subnormals, the integer limits), given as every kind of argument.

Example:
    >>> value = np.zeros((2, 3), np.float32)
    >>> as_kind(value, "weak").weak_type
    True
"""

import numpy as np
from hypothesis import strategies as st
from op_table import ALL_DTYPES

import funcarray as fa
import funcarray.numpy as fnp
from funcarray.base.array import Array

__all__ = ["KINDS", "SHAPES", "INDEX_DTYPES", "as_kind", "edge_values", "operands"]

SHAPES = [(), (0,), (1,), (4,), (2, 3), (3, 0), (2, 1, 3)]
# (int32 twice: the common index dtype is drawn more often)
INDEX_DTYPES = (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint32, np.uint64,
                np.int32)
# (the kinds the shortcuts take are drawn more often than those they leave to the general path)
KINDS = ("array", "array", "weak", "device", "device", "numpy", "list")
_FORMS = {
    "array": fnp.asarray,
    "weak": lambda value: Array(value.copy(), True),
    "device": lambda value: fa.device_put(fnp.asarray(value)),
    "numpy": lambda value: value,
    "list": np.ndarray.tolist,
}


def as_kind(value: np.ndarray, kind: str):
    """``value`` given as an argument of ``kind`` (a key of ``_FORMS``)."""
    return _FORMS[kind](value)


def edge_values(draw, dtype, shape) -> np.ndarray:
    """A NumPy value of ``dtype`` and ``shape`` drawn from the edge values."""
    dtype = np.dtype(dtype)
    n = int(np.prod(shape))
    if dtype.kind == "b":
        return np.asarray(draw(st.lists(st.booleans(), min_size=n, max_size=n)),
                          dtype).reshape(shape)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        pool = [int(info.min), 0, 1, 7, int(info.max)] + ([-1] if dtype.kind == "i" else [])
        return np.asarray(draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n)),
                          dtype).reshape(shape)
    pool = [0.0, -0.0, 1.5, -2.25, np.inf, -np.inf, np.nan, 1e-40]
    values = np.asarray(draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n)),
                        np.float64).reshape(shape)
    with np.errstate(over="ignore", invalid="ignore"):
        return values.astype(dtype)


@st.composite
def operands(draw, shapes=SHAPES, kinds=KINDS):
    """``(operand, its NumPy value)``: any dtype and shape, given as any kind."""
    dtype = np.dtype(fnp.dtype(draw(st.sampled_from(ALL_DTYPES))))
    value = edge_values(draw, dtype, draw(st.sampled_from(shapes)))
    return as_kind(value, draw(st.sampled_from(kinds))), value
