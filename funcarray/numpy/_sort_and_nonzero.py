"""Sorting and nonzero in ``funcarray.numpy``: ``sort``, ``argsort``, ``unique``, ``nonzero``,
``flatnonzero`` and ``argwhere``.

``sort`` and ``argsort`` bind the ``sort`` primitive (NaNs last, stable by default). The
result sizes of ``nonzero``, ``flatnonzero``, ``argwhere`` and ``unique`` depend on the
values: they need a concrete array, or (``nonzero``, ``argwhere``) a static ``size=``.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, overload

import numpy as np

from funcarray.api.arguments import (
    asarray_arg,
    broadcast_to_shape,
    canonicalize_axis,
    convert,
)
from funcarray.base import dtypes
from funcarray.base.array import Array, DeviceArray
from funcarray.base.errors import op_error, op_value_error
from funcarray.numpy._index_parsing import _const, _is_tracer, _ravel, _reshape
from funcarray.primitives import elementwise as ew
from funcarray.primitives.gather_scatter_dims import ScatterDimensionNumbers
from funcarray.primitives.reduce import cumsum_p
from funcarray.primitives.scatter import scatter_p
from funcarray.primitives.select_n import select_n_p
from funcarray.primitives.shape import concatenate_p, iota_p, rev_p, slice_p
from funcarray.primitives.sort import sort_p
from funcarray.transforms.core import ConcretizationTypeError
from funcarray.transforms.host_shortcuts import host_shortcut

if TYPE_CHECKING:
    from typing import Literal

    from funcarray.base.typing import ArrayLike


__all__ = ["argsort", "argwhere", "flatnonzero", "nonzero", "sort", "unique"]


# --------------------------------------------------------------------------------------------
# nonzero, flatnonzero, argwhere
# --------------------------------------------------------------------------------------------

def _as_mask(x):
    if x.dtype == dtypes.bool_:
        return x
    return ew.ne_p.bind(x, _const(0, x.dtype, x.shape))


def _concrete_count(op, mask, what="the number of nonzero elements"):
    if _is_tracer(mask):
        raise op_error(
            ConcretizationTypeError,
            op, f"the result's size is {what}, which is not known for a traced "
                f"{mask.aval}. Pass a static size= (and fill_value=) to fix it.")
    return int(np.count_nonzero(np.asarray(mask)))


def _nonzero_flat_positions(op, a, size):
    """(positions, valid): the flat positions of the first ``size`` nonzeros of ``a``
    (padded with 0) and whether each is a real hit."""
    mask = _ravel(_as_mask(a))
    n = mask.shape[0]
    # Each nonzero's rank among the nonzeros (a cumulative sum) is its output slot, and one
    # scatter puts its position there: O(n), where sorting on "is zero" was O(n log n). The
    # zeros (and nonzeros past ``size``) aim at slot ``size``, out of bounds, and are dropped.
    count = cumsum_p.bind(convert(mask, dtypes.int32), axis=0, reverse=False)
    rank = ew.sub_p.bind(count, _const(1, dtypes.int32, (n,)))
    slot = select_n_p.bind(mask, _const(size, dtypes.int32, (n,)), rank)
    dn = ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                 scatter_dims_to_operand_dims=(0,))
    positions = scatter_p.bind(
        _const(0, dtypes.int32, (size,)), _reshape(slot, (n, 1)),
        iota_p.bind(dtype=dtypes.int32, shape=(n,), dimension=0), dimension_numbers=dn,
        indices_are_sorted=False, unique_indices=False, mode="drop")
    total = slice_p.bind(count, start_indices=(n - 1,), limit_indices=(n,), strides=None)
    valid = ew.lt_p.bind(iota_p.bind(dtype=dtypes.int32, shape=(size,), dimension=0),
                         broadcast_to_shape(_reshape(total, ()), (size,)))
    return positions, valid


def _fill_values(op, fill_value, ndim):
    if fill_value is None:
        return (0,) * ndim
    if isinstance(fill_value, (tuple, list)):
        if len(fill_value) != ndim:
            raise op_value_error(op, f"fill_value needs one entry per dimension ({ndim}), got "
                                     f"{len(fill_value)}")
        return tuple(fill_value)
    return (fill_value,) * ndim


def _nonzero_on_host(a, *, size=None, fill_value=None):
    # The common form (a host array of at least one dimension, no size=/fill_value=): NumPy's
    # nonzero of the general path's mask (``a != 0``), as int32 coordinates.
    if (type(a) is not Array and type(a) is not DeviceArray) or size is not None or (
            fill_value is not None):
        return NotImplemented
    value = a._value
    if value.ndim == 0:
        return NotImplemented
    mask = value if value.dtype == np.bool_ else ew.ne_p.kernel(value, value.dtype.type(0))
    return tuple(Array(i.astype(np.int32), False) for i in np.nonzero(mask))


@host_shortcut(_nonzero_on_host)
def nonzero(a: ArrayLike, *, size: int | None = None,
            fill_value: ArrayLike | tuple[ArrayLike, ...] | None = None
            ) -> tuple[Array, ...]:
    """The indices of the nonzero elements of ``a``, one int32 array per dimension.

    The number of results depends on the values, so a traced ``a`` needs a static ``size``:
    the first ``size`` indices are returned, padded with ``fill_value`` (default 0).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.nonzero(fnp.array([0, 3, 0, 4]))
        (Array([1, 3], dtype=int32),)
        >>> fnp.nonzero(fnp.array([0, 3]), size=3, fill_value=-1)
        (Array([ 1, -1, -1], dtype=int32),)
    """
    op = "nonzero"
    a = asarray_arg(op, a)
    if a.ndim == 0:
        raise op_value_error(op, "nonzero of a 0-d array is not allowed; use "
                                 "fnp.nonzero(fnp.atleast_1d(a)) or a.reshape(1)")
    if size is None:
        size = _concrete_count(op, a)
    size = int(size)
    fills = _fill_values(op, fill_value, a.ndim)
    if a.size == 0 or size == 0:
        return tuple(_const(f, dtypes.int32, (size,)) for f in fills)
    positions, valid = _nonzero_flat_positions(op, a, size)
    out = []
    for d, fill in enumerate(fills):
        stride = math.prod(a.shape[d + 1:])
        coord = ew.div_p.bind(positions, _const(stride, dtypes.int32, (size,)))
        coord = ew.rem_p.bind(coord, _const(a.shape[d], dtypes.int32, (size,)))
        out.append(select_n_p.bind(valid, _const(fill, dtypes.int32, (size,)), coord))
    return tuple(out)


def flatnonzero(a: ArrayLike, *, size: int | None = None,
                fill_value: ArrayLike | tuple[ArrayLike, ...] | None = None) -> Array:
    """Indices of the nonzero elements of ``ravel(a)``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.flatnonzero(fnp.array([[0, 1], [1, 0]]))
        Array([1, 2], dtype=int32)
    """
    a = asarray_arg("flatnonzero", a)
    return nonzero(_ravel(a), size=size, fill_value=fill_value)[0]


def argwhere(a: ArrayLike, *, size: int | None = None,
             fill_value: ArrayLike | tuple[ArrayLike, ...] | None = None) -> Array:
    """Indices of the nonzero elements as an ``(N, a.ndim)`` array.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.argwhere(fnp.array([[0, 1], [1, 0]]))
        Array([[0, 1],
               [1, 0]], dtype=int32)
    """
    a = asarray_arg("argwhere", a)
    if a.ndim == 0:
        count = nonzero(_reshape(a, (1,)), size=size, fill_value=fill_value)[0].shape[0]
        return _const(0, dtypes.int32, (count, 0))
    columns = nonzero(a, size=size, fill_value=fill_value)
    columns = [_reshape(c, (c.shape[0], 1)) for c in columns]
    return columns[0] if len(columns) == 1 else concatenate_p.bind(*columns, dimension=1)


# --------------------------------------------------------------------------------------------
# sort, argsort, unique
# --------------------------------------------------------------------------------------------

def _sort_axis(op, a, axis):
    if axis is None:
        return _ravel(a), 0
    return a, canonicalize_axis(op, axis, a.ndim)


def _check_sort_args(op, order):
    if order is not None:
        raise op_value_error(op, "order= (sorting structured arrays) is not supported")


def sort(a: ArrayLike, axis: int | None = -1, *, kind: None = None, order: None = None,
         stable: bool = True, descending: bool = False) -> Array:
    """A sorted copy of ``a`` along ``axis`` (flattened when None); NaNs sort last.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.sort(fnp.array([3.0, fnp.nan, 1.0]))
        Array([ 1.,  3., nan], dtype=float32)
        >>> fnp.sort(fnp.array([1, 3, 2]), descending=True)
        Array([3, 2, 1], dtype=int32)
    """
    op = "sort"
    _check_sort_args(op, order)
    a, axis = _sort_axis(op, asarray_arg(op, a), axis)
    (out,) = sort_p.bind(a, dimension=axis, is_stable=bool(stable), num_keys=1)
    return rev_p.bind(out, dimensions=(axis,)) if descending else out


def argsort(a: ArrayLike, axis: int | None = -1, *, kind: None = None, order: None = None,
            stable: bool = True, descending: bool = False) -> Array:
    """The int32 indices that sort ``a`` along ``axis`` (stable: ties keep their order, also
    when ``descending``).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.argsort(fnp.array([3.0, 1.0, 2.0]))
        Array([1, 2, 0], dtype=int32)
    """
    op = "argsort"
    _check_sort_args(op, order)
    a, axis = _sort_axis(op, asarray_arg(op, a), axis)
    if descending:
        # Sorting the reversed array keeps equal keys in their original order once the
        # result is reversed back.
        a = rev_p.bind(a, dimensions=(axis,))
    iota = iota_p.bind(dtype=dtypes.int32, shape=a.shape, dimension=axis)
    _, order_ = sort_p.bind(a, iota, dimension=axis, is_stable=bool(stable), num_keys=1)
    if not descending:
        return order_
    order_ = rev_p.bind(order_, dimensions=(axis,))
    last = _const(a.shape[axis] - 1, dtypes.int32, a.shape)
    return ew.sub_p.bind(last, order_)


@overload
def unique(ar: ArrayLike, return_index: Literal[False] = False,
           return_inverse: Literal[False] = False, return_counts: Literal[False] = False,
           axis: int | None = None, *, equal_nan: bool = True, size: int | None = None,
           fill_value: ArrayLike | None = None) -> Array: ...
@overload
def unique(ar: ArrayLike, return_index: bool = False, return_inverse: bool = False,
           return_counts: bool = False, axis: int | None = None, *, equal_nan: bool = True,
           size: int | None = None, fill_value: ArrayLike | None = None
           ) -> Array | tuple[Array, ...]: ...
def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *,
           equal_nan=True, size=None, fill_value=None):
    """The sorted unique values of a concrete ``ar`` (as ``numpy.unique``; indices int32).

    Only eager: the result's size depends on the values, so a traced ``ar`` raises.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.unique(fnp.array([3, 1, 1, 2]))
        Array([1, 2, 3], dtype=int32)
    """
    op = "unique"
    ar = asarray_arg(op, ar)
    if _is_tracer(ar):
        raise op_error(ConcretizationTypeError, op, f"needs a concrete array, got a traced "
                                                    f"{ar.aval}: the number "
                                f"of unique values depends on the values")
    if size is not None:
        raise op_value_error(op, "size= is not supported yet")
    value = np.asarray(ar)
    if axis is not None:
        axis = canonicalize_axis(op, axis, value.ndim)
    results = np.unique(value, return_index=return_index, return_inverse=return_inverse,
                        return_counts=return_counts, axis=axis, equal_nan=equal_nan)
    if not isinstance(results, tuple):
        return Array(np.array(results, copy=True), ar.weak_type)
    first, *rest = results
    return (Array(np.array(first, copy=True), ar.weak_type),
            *(Array(np.asarray(r, dtype=np.int32)) for r in rest))
