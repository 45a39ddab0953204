"""Index grids and flat/multi-index conversion: ``meshgrid``, ``indices``, ``tri``,
``tril_indices``, ``triu_indices``, ``unravel_index`` and ``ravel_multi_index``.

Shapes, sizes and diagonal offsets must be static Python ints (they decide result shapes);
index arrays may be traced. Indices are int32, as with jax.numpy's default settings.

Example:
    >>> import funcarray.numpy as fnp
    >>> fnp.unravel_index(fnp.array([0, 5]), (2, 3))
    (Array([0, 1], dtype=int32), Array([0, 2], dtype=int32))
"""

from __future__ import annotations

import builtins
import math

import numpy as np

from funcarray import dtypes
from funcarray._errors import op_type_error, op_value_error
from funcarray.array import Array
from funcarray.numpy._elementwise import (
    add,
    clip,
    divmod,
    greater,
    greater_equal,
    less,
    logical_or,
    mod,
    multiply,
    where,
)
from funcarray.numpy._reductions import any as reduce_any
from funcarray.numpy._shape import _concrete_int, stack
from funcarray.numpy._util import asarray_arg, convert
from funcarray.primitives.shape import broadcast_in_dim_p, iota_p
from funcarray.transforms.core import Tracer

__all__ = ["meshgrid", "indices", "tri", "tril_indices", "triu_indices", "unravel_index",
           "ravel_multi_index"]


def _user_dtype(op, dtype, default):
    if dtype is None:
        return np.dtype(default)
    try:
        return dtypes.canonicalize_dtype(dtype)
    except TypeError as exc:
        raise op_type_error(op, str(exc)) from None


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    """Coordinate grids from 1-D coordinate arrays, as a list of arrays.

    ``indexing="xy"`` (default) gives shape ``(len(x2), len(x1), len(x3), ...)``, "ij" gives
    ``(len(x1), len(x2), ...)``; ``sparse=True`` keeps each output broadcastable instead of
    full. As in jax.numpy the inputs must be 1-D.

    Example:
        >>> import funcarray.numpy as fnp
        >>> xs, ys = fnp.meshgrid(fnp.array([1, 2, 3]), fnp.array([10, 20]))
        >>> xs
        Array([[1, 2, 3],
               [1, 2, 3]], dtype=int32)
        >>> ys.shape
        (2, 3)
    """
    op = "meshgrid"
    if not copy:
        raise op_value_error(op, "copy=False is not supported (as in jax.numpy); leave it True")
    if indexing not in ("xy", "ij"):
        raise op_value_error(op, f"indexing must be 'xy' or 'ij', got {indexing!r}")
    args = [asarray_arg(op, x) for x in xi]
    if builtins.any(a.ndim != 1 for a in args):
        raise op_value_error(op, f"every input must be 1-D, got shapes "
                                 f"{[tuple(a.shape) for a in args]}; ravel them first")
    swap = indexing == "xy" and len(args) >= 2
    if swap:
        args[0], args[1] = args[1], args[0]
    sizes = [a.shape[0] for a in args]
    out = []
    for i, a in enumerate(args):
        shape = [1] * len(args) if sparse else list(sizes)
        shape[i] = sizes[i]
        out.append(broadcast_in_dim_p.bind(a, shape=tuple(shape), broadcast_dimensions=(i,)))
    if swap:
        out[0], out[1] = out[1], out[0]
    return out


def indices(dimensions, dtype=None, sparse=False):
    """An array of index grids for an array of shape ``dimensions``: stacked (shape
    ``(len(dimensions), *dimensions)``), or, with ``sparse=True``, a tuple of broadcastable
    arrays.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.indices((2, 3))
        Array([[[0, 0, 0],
                [1, 1, 1]],
        <BLANKLINE>
               [[0, 1, 2],
                [0, 1, 2]]], dtype=int32)
    """
    op = "indices"
    dtype = _user_dtype(op, dtype, dtypes.default_int)
    try:
        dims = tuple(_concrete_int(op, d, "dimensions") for d in dimensions)
    except TypeError:
        raise op_type_error(op, f"dimensions must be a sequence of ints, got "
                                f"{dimensions!r}") from None
    n = len(dims)
    if sparse:
        return tuple(iota_p.bind(dtype=dtype, shape=(1,) * i + (d,) + (1,) * (n - i - 1),
                                 dimension=i) for i, d in enumerate(dims))
    if not dims:
        return Array(np.zeros((0,), dtype))
    return stack([iota_p.bind(dtype=dtype, shape=dims, dimension=i) for i in range(n)])


def tri(N, M=None, k=0, dtype=None):
    """An ``N`` x ``M`` array with ones at and below the ``k``-th diagonal (float32 unless
    ``dtype`` is given).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.tri(2, 3, k=1, dtype=int)
        Array([[1, 1, 0],
               [1, 1, 1]], dtype=int32)
    """
    op = "tri"
    N = _concrete_int(op, N, "N")
    M = N if M is None else _concrete_int(op, M, "M")
    k = _concrete_int(op, k, "k")
    if N < 0 or M < 0:
        raise op_value_error(op, f"N and M must be non-negative, got N={N}, M={M}")
    dtype = _user_dtype(op, dtype, dtypes.float32)
    rows = iota_p.bind(dtype=dtypes.int32, shape=(N, M), dimension=0)
    cols = iota_p.bind(dtype=dtypes.int32, shape=(N, M), dimension=1)
    return convert(greater_equal(add(rows, k), cols), dtype)


def _triangle_indices(op, lower, n, k, m):
    n = _concrete_int(op, n, "n")
    k = _concrete_int(op, k, "k")
    m = n if m is None else _concrete_int(op, m, "m")
    if n < 0 or m < 0:
        raise op_value_error(op, f"n and m must be non-negative, got n={n}, m={m}")
    rows, cols = (np.tril_indices if lower else np.triu_indices)(n, k, m)
    return (Array(rows.astype(dtypes.default_int)), Array(cols.astype(dtypes.default_int)))


def tril_indices(n, k=0, m=None):
    """The (row, column) indices of the lower triangle (at and below diagonal ``k``) of an
    ``n`` x ``m`` array, in row-major order.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.tril_indices(3)
        (Array([0, 1, 1, 2, 2, 2], dtype=int32), Array([0, 0, 1, 0, 1, 2], dtype=int32))
    """
    return _triangle_indices("tril_indices", True, n, k, m)


def triu_indices(n, k=0, m=None):
    """The (row, column) indices of the upper triangle (at and above diagonal ``k``) of an
    ``n`` x ``m`` array, in row-major order.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.triu_indices(3, k=1)
        (Array([0, 0, 1], dtype=int32), Array([1, 2, 2], dtype=int32))
    """
    return _triangle_indices("triu_indices", False, n, k, m)


def _shape_tuple(op, shape):
    try:
        items = list(shape)
    except TypeError:
        items = [shape]
    return tuple(_concrete_int(op, s, "shape") for s in items)


def unravel_index(indices, shape):
    """The multi-index (one array per dimension) of each flat index into an array of
    ``shape``.

    As in jax.numpy, out-of-range indices are clamped (to the first or last element) instead
    of raising, and an index of -1 means the last element.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.unravel_index(fnp.array([1, 7, -1]), (2, 4))
        (Array([0, 1, 1], dtype=int32), Array([1, 3, 3], dtype=int32))
    """
    op = "unravel_index"
    indices = asarray_arg(op, indices)
    if indices.dtype.kind not in "iu":
        raise op_type_error(op, f"indices must be integers, got dtype {indices.dtype}")
    shape = _shape_tuple(op, shape)
    if builtins.any(s < 0 for s in shape):
        raise op_value_error(op, f"shape must be non-negative, got {shape}")
    out = [None] * len(shape)
    rest = indices
    for i in reversed(range(len(shape))):
        rest, out[i] = divmod(rest, shape[i]) if shape[i] else (rest, rest)
    too_big = greater(rest, 0)
    too_small = less(rest, -1) if indices.dtype.kind == "i" else None
    result = []
    for s, i in zip(shape, out):
        if too_small is not None:
            i = where(too_small, 0, i)
        result.append(where(too_big, s - 1, i))
    return tuple(result)


_RAVEL_MODES = ("raise", "wrap", "clip", "ignore")


def ravel_multi_index(multi_index, dims, mode="raise", order="C", *, dtype=None):
    """The flat index into an array of shape ``dims`` of each multi-index (one integer array
    per dimension, broadcast together).

    ``mode``: "raise" (default; needs concrete indices, so under ``jit`` use another mode),
    "wrap" (modulo each dimension), "clip" (clamp) or "ignore" (no check). ``order`` is "C"
    (row-major) or "F".

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.ravel_multi_index((fnp.array([0, 1]), fnp.array([2, 3])), (2, 4))
        Array([2, 7], dtype=int32)
    """
    op = "ravel_multi_index"
    try:
        multi_index = list(multi_index)
    except TypeError:
        raise op_type_error(op, "multi_index must be a sequence of integer arrays, one per "
                                "dimension") from None
    dims = _shape_tuple(op, dims)
    if len(multi_index) != len(dims):
        raise op_value_error(op, f"got {len(multi_index)} index arrays for {len(dims)} "
                                 f"dimensions {dims}: pass one per dimension")
    if mode not in _RAVEL_MODES:
        raise op_value_error(op, f"mode must be one of {', '.join(map(repr, _RAVEL_MODES))}, "
                                 f"got {mode!r}")
    if order not in ("C", "F"):
        raise op_value_error(op, f"order must be 'C' or 'F', got {order!r}")
    index = [asarray_arg(op, i) for i in multi_index]
    for i in index:
        if i.dtype.kind not in "iu":
            raise op_type_error(op, f"indices must be integers, got dtype {i.dtype}")
    if dtype is None:
        dtype = dtypes.result_type(*index)
    else:
        dtype = _user_dtype(op, dtype, None)
    if not dtypes.is_integer(dtype):
        raise op_type_error(op, f"dtype must be an integer type, got {dtype}")
    if math.prod(dims) - 1 > dtypes.iinfo(dtype).max:
        raise op_value_error(op, f"dtype {dtype} cannot hold flat indices into {dims}; pass a "
                                 f"wider dtype=, e.g. dtype=fnp.int64")
    if mode == "raise":
        for i, d in zip(index, dims):
            if isinstance(i, Tracer):
                raise op_type_error(op, f"mode='raise' needs concrete indices, got a traced "
                                        f"{i.aval}; use mode='clip' or mode='wrap' under "
                                        f"jit/vmap/grad")
            if bool(reduce_any(logical_or(less(i, 0), greater_equal(i, d)))):
                raise op_value_error(op, f"an index is out of bounds for a dimension of size "
                                         f"{d}; use mode='clip' or 'wrap' to allow it")
    elif mode == "clip":
        index = [clip(i, 0, d - 1) for i, d in zip(index, dims)]
    elif mode == "wrap":
        index = [mod(i, d) for i, d in zip(index, dims)]
    sizes = dims if order == "C" else dims[::-1]
    index = index if order == "C" else index[::-1]
    strides = [math.prod(sizes[j + 1:]) for j in range(len(sizes))]
    result = Array(np.zeros((), dtype))
    for i, s in zip(index, strides):
        result = add(result, multiply(convert(i, dtype), s))
    return result
