"""Index grids and flat/multi-index conversion: ``meshgrid``, ``indices``, ``tri``,
``tril_indices``, ``triu_indices``, ``unravel_index`` and ``ravel_multi_index``; NumPy's index
tricks ``r_``, ``c_``, ``s_``, ``index_exp``, ``mgrid``, ``ogrid``, ``ix_``; and the
``diag_indices``/``*_indices_from``/``mask_indices`` family.

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
from typing import TYPE_CHECKING, overload

import numpy as np

from funcarray.api.arguments import _concrete_int, asarray_arg, convert
from funcarray.api.closure_conversion import ensure_compile_time_eval
from funcarray.base import dtypes
from funcarray.base.array import Array
from funcarray.base.errors import op_type_error, op_value_error
from funcarray.numpy._creation import arange, array, linspace, ones
from funcarray.numpy._elementwise import (
    add,
    clip,
    greater,
    greater_equal,
    less,
    logical_or,
    multiply,
    where,
)
from funcarray.numpy._index_tricks_on_host import (
    diag_indices_on_host,
    indices_on_host,
    ravel_multi_index_on_host,
    tri_on_host,
    unravel_index_on_host,
)
from funcarray.numpy._reductions import any as reduce_any
from funcarray.numpy._rounding_and_division import divmod, mod
from funcarray.numpy._shape import concatenate, expand_dims, stack, transpose
from funcarray.numpy._sort_and_nonzero import nonzero
from funcarray.primitives.shape import broadcast_in_dim_p, iota_p
from funcarray.transforms.core import Tracer
from funcarray.transforms.host_shortcuts import host_shortcut, shortcuts_run_now

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Literal

    from funcarray.base.typing import ArrayLike, DTypeLike, ShapeLike

__all__ = ["meshgrid", "indices", "tri", "tril_indices", "triu_indices", "unravel_index",
           "ravel_multi_index", "r_", "c_", "s_", "index_exp", "mgrid", "ogrid", "ix_",
           "diag_indices", "diag_indices_from", "tril_indices_from", "triu_indices_from",
           "mask_indices"]


def _user_dtype(op, dtype, default):
    if dtype is None:
        return np.dtype(default)
    try:
        return dtypes.canonicalize_dtype(dtype)
    except TypeError as exc:
        raise op_type_error(op, str(exc)) from None


def meshgrid(*xi: ArrayLike, copy: bool = True, sparse: bool = False, indexing: str = "xy"
             ) -> tuple[Array, ...]:
    """Coordinate grids from 1-D coordinate arrays, as a tuple of arrays (the Array API's
    return type; jax.numpy returns a list).

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
    return tuple(out)


@overload
def indices(dimensions: Sequence[int], dtype: DTypeLike | None = None,
            sparse: Literal[False] = False) -> Array: ...
@overload
def indices(dimensions: Sequence[int], dtype: DTypeLike | None = None, *,
            sparse: Literal[True]) -> tuple[Array, ...]: ...
@overload
def indices(dimensions: Sequence[int], dtype: DTypeLike | None = None,
            sparse: bool = False) -> Array | tuple[Array, ...]: ...
@host_shortcut(indices_on_host)
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


@host_shortcut(tri_on_host)
def tri(N: int, M: int | None = None, k: int = 0, dtype: DTypeLike | None = None) -> Array:
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


def tril_indices(n: int, k: int = 0, m: int | None = None) -> tuple[Array, Array]:
    """The (row, column) indices of the lower triangle (at and below diagonal ``k``) of an
    ``n`` x ``m`` array, in row-major order.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.tril_indices(3)
        (Array([0, 1, 1, 2, 2, 2], dtype=int32), Array([0, 0, 1, 0, 1, 2], dtype=int32))
    """
    return _triangle_indices("tril_indices", True, n, k, m)


def triu_indices(n: int, k: int = 0, m: int | None = None) -> tuple[Array, Array]:
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


@host_shortcut(unravel_index_on_host)
def unravel_index(indices: ArrayLike, shape: ShapeLike) -> tuple[Array, ...]:
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
        result.append(where(too_big, builtins.max(s - 1, 0), i))  # (no index fits 0)
    return tuple(result)


_RAVEL_MODES = ("raise", "wrap", "clip", "ignore")


@host_shortcut(ravel_multi_index_on_host)
def ravel_multi_index(multi_index: Sequence[ArrayLike], dims: ShapeLike, mode: str = "raise",
                      order: str = "C", *, dtype: DTypeLike | None = None) -> Array:
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


# --------------------------------------------------------------------------------------------
# Index tricks: r_, c_, s_, index_exp, mgrid, ogrid, ix_
# --------------------------------------------------------------------------------------------

s_ = np.s_
index_exp = np.index_exp


def _grid_from_slice(op, s):
    """``start:stop:step`` as ``arange``; an imaginary step ``Nj`` as ``linspace`` of N
    points (stop included), as NumPy's index tricks read slices."""
    for bound in (s.start, s.stop, s.step):
        if isinstance(bound, Tracer):
            raise bound._concretization_error(f"{op}: slice bounds decide the result's shape")
    start = 0 if s.start is None else s.start
    step = 1 if s.step is None else s.step
    if isinstance(step, complex) or np.iscomplexobj(step):
        if s.stop is None:
            raise op_type_error(op, f"the slice {s} counts points (an imaginary step) and "
                                "needs a stop to end them at")
        return linspace(start, s.stop, int(abs(step)))
    return arange(start, s.stop, step)  # no stop: ``start`` is the stop (NumPy's reading)


def _promoted_grids(op, key):
    grids = [_grid_from_slice(op, k) for k in key]
    if len(grids) < 2:
        return grids
    dtype = dtypes.result_type(*grids)
    return [convert(g, dtype, g.weak_type) for g in grids]


_INT32_RANGE = range(-(1 << 31), 1 << 31)


def _int_grids_on_host(key):
    """The host shortcut's grids (``funcarray.transforms.host_shortcuts``): for a tuple of
    slices of Python ints in int32's range (stop given, step not 0), their ``arange`` values
    in the default int, which are exactly the general path's integers; None otherwise."""
    if type(key) is not tuple or not key or not shortcuts_run_now():
        return None
    grids = []
    for s in key:
        if type(s) is not slice:
            return None
        start = 0 if s.start is None else s.start
        step = 1 if s.step is None else s.step
        for bound in (start, s.stop, step):
            if type(bound) is not int or bound not in _INT32_RANGE:
                return None
        if step == 0:
            return None
        grids.append(np.arange(start, s.stop, step, dtype=dtypes.default_int))
    return grids


class _Mgrid:
    """``mgrid[start:stop:step, ...]``: dense coordinate grids stacked on a new first axis
    (an imaginary step ``Nj`` means N points with the stop included).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.mgrid[0:2, 0:3]
        Array([[[0, 0, 0],
                [1, 1, 1]],
        <BLANKLINE>
               [[0, 1, 2],
                [0, 1, 2]]], dtype=int32)
    """

    def __getitem__(self, key):
        if isinstance(key, slice):
            return _grid_from_slice("mgrid", key)
        host = _int_grids_on_host(key)
        if host is not None:
            return Array(np.stack(np.meshgrid(*host, indexing="ij"), 0))
        grids = _promoted_grids("mgrid", key)
        if not grids:
            return arange(0)
        return stack(meshgrid(*grids, indexing="ij"), 0)


class _Ogrid:
    """``ogrid[start:stop:step, ...]``: open (broadcastable) coordinate grids, a list.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.ogrid[0:2, 0:3]
        [Array([[0],
               [1]], dtype=int32), Array([[0, 1, 2]], dtype=int32)]
    """

    def __getitem__(self, key):
        if isinstance(key, slice):
            return _grid_from_slice("ogrid", key)
        host = _int_grids_on_host(key)
        if host is not None:
            return [Array(g) for g in np.meshgrid(*host, indexing="ij", sparse=True)]
        return list(meshgrid(*_promoted_grids("ogrid", key), indexing="ij", sparse=True))


mgrid = _Mgrid()
ogrid = _Ogrid()


class _AxisConcatenator:
    """Shared by ``r_`` and ``c_``: join slices (read as ``arange``/``linspace``), scalars and
    arrays along an axis; a leading string directive ``"axis,ndmin,trans1d"`` (or "r"/"c",
    which make a 1-D result a row/column) overrides the defaults."""

    def __init__(self, op, axis, ndmin, trans1d):
        self.op, self.axis, self.ndmin, self.trans1d = op, axis, ndmin, trans1d

    def __len__(self):
        return 0

    def _directive(self, directive, params):
        if directive == "r":
            params[3] = 0
        elif directive == "c":
            params[3] = 1
        else:
            fields = directive.split(",")
            fields = fields + params[len(fields):] if len(fields) < 4 else (
                fields[:3] + [params[3]])
            try:
                params = [int(f) for f in fields]
            except ValueError:
                raise op_value_error(self.op, f"could not understand the directive "
                                              f"{directive!r}; write 'axis,ndmin,trans1d' "
                                              f"(ints), 'r' or 'c'") from None
        return params

    def __getitem__(self, key):
        items = key if isinstance(key, tuple) else (key,)
        params = [self.axis, self.ndmin, self.trans1d, -1]
        if items and isinstance(items[0], str):
            params = self._directive(items[0], params)
            items = items[1:]
        axis, ndmin, trans1d, matrix = params
        parts = []
        for item in items:
            if isinstance(item, slice):
                part, item_ndim = _grid_from_slice(self.op, item), 0
            elif isinstance(item, str):
                raise op_value_error(self.op, f"the string directive {item!r} must come first")
            else:
                part = asarray_arg(self.op, item)
                item_ndim = part.ndim
            part = array(part, ndmin=ndmin)
            if trans1d != -1 and ndmin - item_ndim > 0:
                # Move the item's own axes to position trans1d of the ndmin-d result.
                shifts = ndmin - abs(ndmin + trans1d + 1) % ndmin
                order = tuple(range(ndmin))
                part = transpose(part, order[shifts:] + order[:shifts])
            parts.append(part)
        if not parts:
            raise op_value_error(self.op, "nothing to join: give at least one item")
        out = concatenate(parts, axis=axis)
        if matrix != -1 and out.ndim == 1:
            out = expand_dims(out, matrix)
        return out


class _RClass(_AxisConcatenator):
    """``r_[...]``: join slices, scalars and arrays along the first axis.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.r_[0:3, 7, fnp.array([8, 9])]
        Array([0, 1, 2, 7, 8, 9], dtype=int32)
        >>> fnp.r_["0,2", [1, 2], [3, 4]]
        Array([[1, 2],
               [3, 4]], dtype=int32)
    """

    def __init__(self):
        super().__init__("r_", axis=0, ndmin=1, trans1d=-1)


class _CClass(_AxisConcatenator):
    """``c_[...]``: join along the last axis, 1-D items becoming columns.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.c_[fnp.array([1, 2]), fnp.array([3, 4])]
        Array([[1, 3],
               [2, 4]], dtype=int32)
    """

    def __init__(self):
        super().__init__("c_", axis=-1, ndmin=2, trans1d=0)


r_ = _RClass()
c_ = _CClass()


def ix_(*args: ArrayLike) -> tuple[Array, ...]:
    """Open index grids from 1-D integer sequences: ``x[ix_(rows, cols)]`` picks the cross
    product (boolean sequences are refused, as in jax.numpy).

    Example:
        >>> import funcarray.numpy as fnp
        >>> x = fnp.arange(12).reshape(3, 4)
        >>> x[fnp.ix_(fnp.array([0, 2]), fnp.array([1, 3]))]
        Array([[ 1,  3],
               [ 9, 11]], dtype=int32)
    """
    op = "ix_"
    arrays = [asarray_arg(op, a) for a in args]
    out = []
    for i, a in enumerate(arrays):
        if a.ndim != 1:
            raise op_value_error(op, f"every argument must be 1-D, got shape "
                                     f"{tuple(a.shape)} for argument {i}")
        if a.dtype == dtypes.bool_:
            raise op_type_error(op, "boolean arguments are not supported (as in jax.numpy); "
                                    "pass fnp.nonzero(mask)[0] instead")
        shape = [1] * len(arrays)
        shape[i] = a.shape[0]
        if a.shape[0] == 0:
            # NumPy gives empty index arrays an integer type (here the default int32, as
            # jax.numpy's without x64).
            out.append(Array(np.zeros(shape, dtypes.default_int)))
        else:
            out.append(broadcast_in_dim_p.bind(a, shape=tuple(shape), broadcast_dimensions=(i,)))
    return tuple(out)


# --------------------------------------------------------------------------------------------
# diag_indices, diag_indices_from, tril/triu_indices_from, mask_indices
# --------------------------------------------------------------------------------------------

@host_shortcut(diag_indices_on_host)
def diag_indices(n: int, ndim: int = 2) -> tuple[Array, ...]:
    """Indices of the main diagonal of an ``ndim``-d array with every dimension ``n``: the
    same ``arange(n)`` for each dimension.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.diag_indices(3)
        (Array([0, 1, 2], dtype=int32), Array([0, 1, 2], dtype=int32))
    """
    op = "diag_indices"
    n = _concrete_int(op, n, "n")
    ndim = _concrete_int(op, ndim, "ndim")
    if n < 0 or ndim < 0:
        raise op_value_error(op, f"n and ndim must be non-negative, got n={n}, ndim={ndim}")
    return (iota_p.bind(dtype=dtypes.default_int, shape=(n,), dimension=0),) * ndim


def diag_indices_from(arr: ArrayLike) -> tuple[Array, ...]:
    """``diag_indices`` for the shape of ``arr`` (at least 2-D, all dimensions equal).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.diag_indices_from(fnp.zeros((2, 2)))
        (Array([0, 1], dtype=int32), Array([0, 1], dtype=int32))
    """
    op = "diag_indices_from"
    shape = tuple(asarray_arg(op, arr).shape)
    if len(shape) < 2:
        raise op_value_error(op, f"arr must be at least 2-D, got shape {shape}")
    if len(set(shape)) != 1:
        raise op_value_error(op, f"all dimensions of arr must be equal, got shape {shape}")
    return diag_indices(shape[0], len(shape))


def _shape_2d(op, arr):
    shape = tuple(arr.shape) if hasattr(arr, "shape") else np.shape(arr)
    if len(shape) != 2:
        raise op_value_error(op, f"arr must be 2-D, got shape {shape}")
    return shape


def tril_indices_from(arr: ArrayLike, k: int = 0) -> tuple[Array, Array]:
    """``tril_indices`` for the shape of the 2-D ``arr``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.tril_indices_from(fnp.zeros((2, 3)), k=-1)
        (Array([1], dtype=int32), Array([0], dtype=int32))
    """
    n, m = _shape_2d("tril_indices_from", arr)
    return tril_indices(n, k=k, m=m)


def triu_indices_from(arr: ArrayLike, k: int = 0) -> tuple[Array, Array]:
    """``triu_indices`` for the shape of the 2-D ``arr``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.triu_indices_from(fnp.zeros((2, 3)), k=1)
        (Array([0, 0, 1], dtype=int32), Array([1, 2, 2], dtype=int32))
    """
    n, m = _shape_2d("triu_indices_from", arr)
    return triu_indices(n, k=k, m=m)


def mask_indices(n: int, mask_func: Callable[[Array, int], Array], k: int = 0, *,
                 size: int | None = None) -> tuple[Array, Array]:
    """(row, column) indices of the nonzero entries of ``mask_func(ones((n, n)), k)``
    (e.g. ``fnp.triu``); ``size`` pads or cuts the result to a static length.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.mask_indices(3, fnp.triu, 1)
        (Array([0, 0, 1], dtype=int32), Array([1, 2, 2], dtype=int32))
    """
    n = _concrete_int("mask_indices", n, "n")
    # The mask depends on n and k alone: computed while tracing, so that jit needs no size=
    # (as in jax.numpy); a mask_func closing over traced values is staged as usual.
    with ensure_compile_time_eval():
        rows, cols = nonzero(mask_func(ones((n, n)), k), size=size)
    return rows, cols
