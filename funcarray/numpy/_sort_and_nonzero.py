"""Sorting and nonzero in ``funcarray.numpy``: ``sort``, ``argsort``, ``nonzero``,
``flatnonzero`` and ``argwhere``.

``sort`` and ``argsort`` bind the ``sort`` primitive (NaNs last, stable by default). The
result sizes of ``nonzero``, ``flatnonzero`` and ``argwhere`` depend on the values: they need
a concrete array or, under a transform, a static ``size=`` (``size_needed_error`` words the
error for them and for the set operations).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from funcarray.api.arguments import (
    _concrete_int,
    asarray_arg,
    broadcast_to_shape,
    canonicalize_axis,
    convert,
)
from funcarray.base import dtypes
from funcarray.base.array import Array, DeviceArray
from funcarray.base.errors import op_type_error, op_value_error, user_location
from funcarray.lax._sort_on_host import along_last, order_last, sorted_last
from funcarray.numpy._index_parsing import _const, _ravel, _reshape
from funcarray.numpy._promotion import promote_args, promote_args_unbroadcast
from funcarray.primitives import elementwise as ew
from funcarray.primitives.gather_scatter_dims import ScatterDimensionNumbers
from funcarray.primitives.reduce import cumsum_p
from funcarray.primitives.scatter import scatter_p
from funcarray.primitives.select_n import select_n_p
from funcarray.primitives.shape import concatenate_p, iota_p, rev_p, slice_p
from funcarray.primitives.sort import sort_p
from funcarray.transforms.core import ConcretizationTypeError, Tracer
from funcarray.transforms.host_shortcuts import host_shortcut, host_value, shortcuts_run_now

if TYPE_CHECKING:
    from funcarray.base.typing import ArrayLike


__all__ = ["argsort", "argwhere", "flatnonzero", "nonzero", "sort"]


# --------------------------------------------------------------------------------------------
# nonzero, flatnonzero, argwhere
# --------------------------------------------------------------------------------------------

def _as_mask(x):
    if x.dtype == dtypes.bool_:
        return x
    return ew.ne_p.bind(x, _const(0, x.dtype, x.shape))


def _traced_value_error(op: str, traced, message: str) -> ConcretizationTypeError:
    detail = traced._concretization_detail()  # (which argument it comes from, under jit)
    message = f"{op}: {message}" + (f"\n{detail}" if detail else "")
    where = user_location()
    return ConcretizationTypeError(f"{message}\n  (at {where})" if where else message)


def size_needed_error(op: str, traced, what: str) -> ConcretizationTypeError:
    """The error of an operation whose result size (``what``) depends on the values of the
    traced array ``traced``: under a transform the caller must pass a static ``size=``."""
    return _traced_value_error(
        op, traced, f"{what} depends on the values of the traced array {traced.aval}, so the "
                    f"result's shape is not known under a transform. Pass a static size= (a "
                    f"Python int; results past it are dropped, missing ones padded with "
                    f"fill_value=), e.g. fnp.{op}(..., size={traced.size}).")


def static_size(op: str, size) -> int:
    """``size=`` as a non-negative Python int (a traced size raises ConcretizationTypeError)."""
    if isinstance(size, Tracer) and size.to_concrete_value() is None:
        raise _traced_value_error(
            op, size, f"size= must be static (a Python int), got a traced {size.aval}. Pass "
                      f"it as a static argument (jit's static_argnames) or a constant.")
    size = _concrete_int(op, size, "size")
    if size < 0:
        raise op_type_error(op, f"size must be non-negative, got {size}")
    return size


def concrete_count(op: str, mask, what: str) -> int:
    """The number of True entries of ``mask``, which must be concrete (an eager array or a
    tracer whose value is known, such as grad's)."""
    if isinstance(mask, Tracer):
        value = mask.to_concrete_value()
        if value is None:
            raise size_needed_error(op, mask, what)
        mask = value
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
    """One fill value per dimension: a scalar for all of them or a tuple of ``ndim``
    scalars, as jax.numpy.nonzero takes them."""
    fills = fill_value if isinstance(fill_value, tuple) else (fill_value,) * ndim
    if len(fills) != ndim or any(np.shape(f) != () for f in fills):
        raise op_value_error(op, f"fill_value must be a scalar or a tuple of length {ndim} "
                                 f"(one scalar per dimension); got {fill_value!r}")
    return fills


def _nonzero_on_host(a, *, size=None, fill_value=None):
    # The common form (a host array of at least one dimension, no size=/fill_value=): NumPy's
    # nonzero of the general path's mask (``a != 0``), as int32 coordinates.
    if (type(a) is not Array and type(a) is not DeviceArray) or size is not None or (
            fill_value is not None):
        return NotImplemented
    value = a._value
    if value.ndim == 0:
        return NotImplemented
    return tuple(Array(i.astype(np.int32), False) for i in np.nonzero(_nonzero_mask(value)))


def _nonzero_mask(value):
    """The general path's mask of a host value (``a != 0``, by the comparison's kernel)."""
    return value if value.dtype == np.bool_ else ew.ne_p.kernel(value, value.dtype.type(0))


@host_shortcut(_nonzero_on_host)
def nonzero(a: ArrayLike, *, size: int | None = None,
            fill_value: ArrayLike | tuple[ArrayLike, ...] | None = None
            ) -> tuple[Array, ...]:
    """The indices of the nonzero elements of ``a``, one int32 array per dimension.

    The number of results depends on the values, so a traced ``a`` needs a static ``size``:
    the first ``size`` indices are returned, padded with ``fill_value`` (default 0): a scalar
    or one per dimension, joining the indices by promotion as in ``jnp.where`` (an empty
    ``a`` pads with 0).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.nonzero(fnp.array([0, 3, 0, 4]))
        (Array([1, 3], dtype=int32),)
        >>> fnp.nonzero(fnp.array([0, 3]), size=3, fill_value=-1)
        (Array([ 1, -1, -1], dtype=int32),)
        >>> fnp.nonzero(fnp.array([[0, 3]]), size=2, fill_value=(7, 8))
        (Array([0, 7], dtype=int32), Array([1, 8], dtype=int32))
    """
    return _nonzero("nonzero", a, size, fill_value)


def nonzero_for(op: str, a, size=None, fill_value=None) -> tuple[Array, ...]:
    """``nonzero`` on behalf of ``op`` (``where``, ``argwhere``...): its errors name ``op``."""
    if shortcuts_run_now():
        out = _nonzero_on_host(a, size=size, fill_value=fill_value)
        if out is not NotImplemented:
            return out
    return _nonzero(op, a, size, fill_value)


def _nonzero(op, a, size, fill_value):
    a = asarray_arg(op, a)
    if a.ndim == 0:
        raise op_value_error(op, "nonzero of a 0-d array is not allowed; use "
                                 "fnp.nonzero(fnp.atleast_1d(a)) or a.reshape(1)")
    if size is None:
        size = concrete_count(op, _as_mask(a), "the number of nonzero elements")
    size = static_size(op, size)
    if a.size == 0 or size == 0:  # (jax.numpy ignores fill_value here, even a wrong one)
        return tuple(_const(0, dtypes.int32, (size,)) for _ in range(a.ndim))
    fills = None if fill_value is None else _fill_values(op, fill_value, a.ndim)
    positions, valid = _nonzero_flat_positions(op, a, size)
    out = []
    for d in range(a.ndim):
        stride = math.prod(a.shape[d + 1:])
        coord = ew.div_p.bind(positions, _const(stride, dtypes.int32, (size,)))
        coord = ew.rem_p.bind(coord, _const(a.shape[d], dtypes.int32, (size,)))
        if fills is not None:
            # The fill joins the int32 coordinates by promotion, as in jnp.where: a float
            # fill gives float coordinates; a traced fill is fine.
            fill, coord = promote_args(op, fills[d], coord)
            coord = select_n_p.bind(valid, fill, coord)
        out.append(coord)
    return tuple(out)


def _flatnonzero_on_host(a, *, size=None, fill_value=None):
    # ``nonzero``'s shortcut on the flattened value (a 0-d array included, as ravel gives).
    x = host_value(a)
    if x is None or size is not None or fill_value is not None:
        return NotImplemented
    return _nonzero_on_host(Array(x.reshape(-1), a._weak))[0]


@host_shortcut(_flatnonzero_on_host)
def flatnonzero(a: ArrayLike, *, size: int | None = None,
                fill_value: ArrayLike | tuple[ArrayLike, ...] | None = None) -> Array:
    """Indices of the nonzero elements of ``ravel(a)``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.flatnonzero(fnp.array([[0, 1], [1, 0]]))
        Array([1, 2], dtype=int32)
        >>> fnp.flatnonzero(fnp.array([[0, 1], [1, 0]]), size=3, fill_value=-1)
        Array([ 1,  2, -1], dtype=int32)
    """
    a = asarray_arg("flatnonzero", a)
    return nonzero_for("flatnonzero", _ravel(a), size, fill_value)[0]


def _argwhere_on_host(a, *, size=None, fill_value=None):
    # The common form (a host array, no size=/fill_value=): NumPy's argwhere of the general
    # path's mask, as int32 coordinates ((N, 0) for a 0-d array, as the general path's).
    if (type(a) is not Array and type(a) is not DeviceArray) or size is not None or (
            fill_value is not None):
        return NotImplemented
    return Array(np.argwhere(_nonzero_mask(a._value)).astype(np.int32), False)


@host_shortcut(_argwhere_on_host)
def argwhere(a: ArrayLike, *, size: int | None = None,
             fill_value: ArrayLike | tuple[ArrayLike, ...] | None = None) -> Array:
    """Indices of the nonzero elements as an ``(N, a.ndim)`` array.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.argwhere(fnp.array([[0, 1], [1, 0]]))
        Array([[0, 1],
               [1, 0]], dtype=int32)
        >>> fnp.argwhere(fnp.array([0, 1]), size=2, fill_value=9)
        Array([[1],
               [9]], dtype=int32)
    """
    a = asarray_arg("argwhere", a)
    columns = nonzero_for("argwhere", _reshape(a, (1,)) if a.ndim == 0 else a, size,
                          fill_value)
    if a.ndim == 0:
        return _const(0, columns[0].dtype, (columns[0].shape[0], 0))
    # (a tuple fill_value of mixed kinds gives columns of different dtypes: promoted)
    columns = promote_args_unbroadcast("argwhere", *columns)
    columns = [_reshape(c, (c.shape[0], 1)) for c in columns]
    return columns[0] if len(columns) == 1 else concatenate_p.bind(*columns, dimension=1)


# --------------------------------------------------------------------------------------------
# sort, argsort
# --------------------------------------------------------------------------------------------

def _sort_axis(op, a, axis):
    if axis is None:
        return _ravel(a), 0
    return a, canonicalize_axis(op, axis, a.ndim)


def _check_sort_args(op, order):
    if order is not None:
        raise op_value_error(op, "order= (sorting structured arrays) is not supported")


def _host_sort_operand(a, axis, kind, order, stable, descending):
    """``(value, axis)`` of a ``sort``/``argsort`` call the shortcuts take (a host array,
    an int or None axis, the default keywords), or None."""
    x = host_value(a)
    if (x is None or kind is not None or order is not None or type(stable) is not bool
            or type(descending) is not bool):
        return None
    if axis is None:
        return x.reshape(-1), 0
    ndim = x.ndim
    if type(axis) is not int or not -ndim <= axis < ndim:
        return None
    return x, axis % ndim


def _sort_on_host(a, axis=-1, *, kind=None, order=None, stable=True, descending=False):
    # The sort primitive's bits from the fast kernels of ``lax/_sort_on_host.py``; reversed
    # (a view, as rev's kernel) when descending.
    operand = _host_sort_operand(a, axis, kind, order, stable, descending)
    if operand is None:
        return NotImplemented
    x, axis = operand
    out = along_last(sorted_last, x, axis)
    return Array(np.flip(out, axis) if descending else out, a._weak)


def _argsort_on_host(a, axis=-1, *, kind=None, order=None, stable=True, descending=False):
    # The stable order as int32, computed on the reversed array and mapped back when
    # descending, as the general path does.
    operand = _host_sort_operand(a, axis, kind, order, stable, descending)
    if operand is None:
        return NotImplemented
    x, axis = operand
    if descending:
        x = np.flip(x, axis)
    out = along_last(order_last, x, axis).astype(np.int32)
    if descending:
        out = np.flip(out, axis)
        out = ew.sub_p.kernel(np.full(out.shape, x.shape[axis] - 1, np.int32), out)
    return Array(out, False)


@host_shortcut(_sort_on_host)
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


@host_shortcut(_argsort_on_host)
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
