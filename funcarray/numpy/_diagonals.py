"""Triangles and diagonals in ``funcarray.numpy``: ``tril``, ``triu``, ``diagonal``, ``trace``
and ``diag``.

Offsets and axes must be concrete (they decide the result's shape); the array operands may be
traced, so every function works eagerly and under every transform.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from funcarray.api.arguments import (
    _axis,
    _concrete_int,
    _reshape,
    _transpose,
    asarray_arg,
    broadcast_to_shape,
)
from funcarray.base import dtypes
from funcarray.base.array import Array
from funcarray.base.errors import op_value_error
from funcarray.numpy._diagonals_on_host import (
    diag_on_host,
    diagonal_on_host,
    trace_on_host,
    tril_on_host,
    triu_on_host,
)
from funcarray.numpy._reductions import sum as reduce_sum
from funcarray.numpy._shape import _scalar
from funcarray.primitives import elementwise as ew
from funcarray.primitives.select_n import select_n_p
from funcarray.primitives.shape import broadcast_in_dim_p, iota_p, pad_p, slice_p
from funcarray.transforms.host_shortcuts import host_shortcut

if TYPE_CHECKING:
    from funcarray.base.typing import ArrayLike, DTypeLike


__all__ = ["diag", "diagonal", "trace", "tril", "triu"]


def _triangle(op: str, m, k, lower: bool):
    m = asarray_arg(op, m)
    if m.ndim < 2:
        raise op_value_error(op, f"needs an array of at least 2 dimensions, got shape "
                                 f"{m.shape}")
    rows_n, cols_n = m.shape[-2:]
    # Clamping k keeps the int32 arithmetic exact without changing the mask.
    k = min(max(_concrete_int(op, k, "k"), -rows_n - 1), cols_n + 1)
    rows = iota_p.bind(dtype=dtypes.int32, shape=(rows_n, cols_n), dimension=0)
    cols = iota_p.bind(dtype=dtypes.int32, shape=(rows_n, cols_n), dimension=1)
    shifted = ew.add_p.bind(rows, broadcast_to_shape(_scalar(k, dtypes.int32, False),
                                                     rows.shape))
    # Keep element (i, j) where j - i <= k (lower) or j - i >= k (upper).
    keep = ew.le_p.bind(cols, shifted) if lower else ew.ge_p.bind(cols, shifted)
    keep = broadcast_in_dim_p.bind(keep, shape=m.shape,
                                   broadcast_dimensions=(m.ndim - 2, m.ndim - 1))
    zeros = broadcast_to_shape(_scalar(0, m.dtype, m.weak_type), m.shape)
    return select_n_p.bind(keep, zeros, m)


@host_shortcut(tril_on_host)
def tril(m: ArrayLike, k: int = 0) -> Array:
    """The lower triangle of the last two axes: elements above the ``k``-th diagonal are 0.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.tril(fnp.ones((2, 2)))
        Array([[1., 0.],
               [1., 1.]], dtype=float32)
    """
    return _triangle("tril", m, k, lower=True)


@host_shortcut(triu_on_host)
def triu(m: ArrayLike, k: int = 0) -> Array:
    """The upper triangle of the last two axes: elements below the ``k``-th diagonal are 0.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.triu(fnp.ones((2, 2)))
        Array([[1., 1.],
               [0., 1.]], dtype=float32)
    """
    return _triangle("triu", m, k, lower=False)


@host_shortcut(diagonal_on_host)
def diagonal(a: ArrayLike, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Array:
    """The ``offset``-th diagonal of the ``(axis1, axis2)`` planes, as the last axis.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.diagonal(fnp.arange(6).reshape(2, 3), offset=1)
        Array([1, 5], dtype=int32)
    """
    a = asarray_arg("diagonal", a)
    if a.ndim < 2:
        raise op_value_error("diagonal", f"needs an array of at least 2 dimensions, got shape "
                                         f"{a.shape}")
    first, second = _axis("diagonal", axis1, a.shape), _axis("diagonal", axis2, a.shape)
    if first == second:
        raise op_value_error("diagonal", f"axis1 and axis2 must differ, both are {first} "
                                         f"(array shape {a.shape})")
    offset = _concrete_int("diagonal", offset, "offset")
    rows, cols = a.shape[first], a.shape[second]
    row0, col0 = min(max(-offset, 0), rows), min(max(offset, 0), cols)
    length = max(0, min(rows - row0, cols - col0))
    x = _transpose(a, (*(d for d in range(a.ndim) if d not in (first, second)), first, second))
    batch = x.shape[:-2]
    # The diagonal of an L x L block is every (L + 1)-th element of the block, flattened.
    block = slice_p.bind(x, start_indices=(0,) * len(batch) + (row0, col0),
                         limit_indices=batch + (row0 + length, col0 + length), strides=None)
    flat = _reshape(block, batch + (length * length,))
    return slice_p.bind(flat, start_indices=(0,) * (len(batch) + 1),
                        limit_indices=flat.shape, strides=(1,) * len(batch) + (length + 1,))


@host_shortcut(trace_on_host)
def trace(a: ArrayLike, offset: int = 0, axis1: int = 0, axis2: int = 1,
          dtype: DTypeLike | None = None, out: None = None) -> Array:
    """The sum along the ``offset``-th diagonal (dtype rules of ``sum``).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.trace(fnp.arange(4).reshape(2, 2))
        Array(3, dtype=int32)
    """
    # Imported here: the reductions module is written beside this one and imports it.
    if out is not None:
        raise op_value_error("trace", "out= is not supported: funcarray arrays are immutable")
    return reduce_sum(diagonal(a, offset, axis1, axis2), axis=-1, dtype=dtype)


@host_shortcut(diag_on_host)
def diag(v: ArrayLike, k: int = 0) -> Array:
    """The ``k``-th diagonal of a 2-d array, or a 2-d array with 1-d ``v`` on its ``k``-th
    diagonal.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.diag(fnp.array([1, 2]), k=1)
        Array([[0, 1, 0],
               [0, 0, 2],
               [0, 0, 0]], dtype=int32)
    """
    v = asarray_arg("diag", v)
    k = _concrete_int("diag", k, "k")
    if v.ndim == 2:
        return diagonal(v, k)
    if v.ndim != 1:
        raise op_value_error("diag", f"needs a 1-d or 2-d array, got shape {v.shape}")
    n = v.shape[0]
    size = n + abs(k)
    # Flattened, the result holds v[i] at i * (size + 1) + start: pad v with `size` zeros
    # between elements and the rest at the ends.
    start = k if k >= 0 else -k * size
    end = size * size - start - (n + max(n - 1, 0) * size)
    zero = _scalar(0, v.dtype, v.weak_type)
    flat = pad_p.bind(v, zero, padding_config=((start, end, size),))
    return _reshape(flat, (size, size))
