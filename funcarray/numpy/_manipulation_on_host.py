"""Host shortcuts of ``_manipulation.py``'s functions: ``resize``, ``rollaxis``,
``unstack``, ``insert``, ``choose``, ``put_along_axis`` and ``fill_diagonal`` on concrete
arrays, each one NumPy computation instead of the gathers and scatters the general path
binds one by one (``insert`` binds about 20 primitives, ``unstack`` one slice per row).

Each rule computes exactly what the general path computes (the same positions, the same
values converted the same way: only indices and copies are computed here, never new
numbers), and returns ``NotImplemented`` for any input it does not handle (a tracer, an
unusual dtype, a value that must raise, duplicate positions whose winning write the
general path's scatter decides): the general path then runs (``host_shortcut``). They are
held to the general path by ``tests/numpy/test_manipulation_shortcuts.py``.

Example:
    >>> import funcarray.numpy as fnp
    >>> _insert_on_host(fnp.arange(4), 1, 9)
    Array([0, 9, 1, 2, 3], dtype=int32)
"""

from __future__ import annotations

import functools
import math

import numpy as np

from funcarray.api.arguments import (
    _axis,
    _int_tuple,
    convert,
    convert_arg,
)
from funcarray.base.array import Array, new_array
from funcarray.base.host_values import scalar_to_array
from funcarray.numpy._shape_on_host import host_axis
from funcarray.transforms.host_shortcuts import host_value

__all__ = ["_resize_on_host", "_rollaxis_on_host", "_unstack_on_host", "_insert_on_host",
           "_choose_on_host", "_put_along_axis_on_host", "_fill_diagonal_on_host"]

# Index dtypes whose position arithmetic (``i + n``, a clip to ``[0, n]``) cannot wrap, so
# that it may be done in int64 here.
_WIDE_INDEX = (np.dtype(np.int32), np.dtype(np.int64))


def _resize_on_host(a, new_shape):
    value = host_value(a)
    if value is None:
        return NotImplemented
    new_shape = _int_tuple("resize", new_shape, "new_shape")
    if any(d < 0 for d in new_shape):
        return NotImplemented  # (the general path's error)
    flat = value.ravel()
    size = math.prod(new_shape)
    if not flat.size or not size:
        return Array(np.zeros(new_shape, value.dtype), a._weak)
    reps = -(-size // flat.size)
    return Array((np.tile(flat, reps) if reps > 1 else flat)[:size].reshape(new_shape),
                 a._weak)


def _rollaxis_on_host(a, axis, start=0):
    value = host_value(a)
    if value is None or type(axis) is not int or type(start) is not int:
        return NotImplemented
    ndim = value.ndim
    if not (-ndim <= axis < ndim and -ndim <= start <= ndim):
        return NotImplemented
    axis %= ndim
    if start < 0:
        start += ndim
    if start > axis:
        start -= 1
    order = list(range(ndim))
    order.insert(start, order.pop(axis))  # (np.moveaxis's permutation, without its checks)
    return Array(value.transpose(order), a._weak)


def _unstack_on_host(x, /, *, axis=0):
    value = host_value(x)
    if value is None or not value.ndim:
        return NotImplemented
    moved = np.moveaxis(value, _axis("unstack", axis, value.shape), 0)
    weak = x._weak
    return tuple([Array(row, weak) for row in moved])


def _insert_on_host(arr, obj, values, axis=None):
    # The general path's algorithm on NumPy values: the inserted values' positions, the
    # positions left for the input, two writes into zeros.
    a = host_value(arr)
    if a is None or type(obj) is bool:
        return NotImplemented
    if axis is None:
        a, axis = a.ravel(), 0
    else:
        axis = _axis("insert", axis, a.shape)
    if type(obj) is int:
        if not -2**31 <= obj < 2**31:
            return NotImplemented
        index = np.asarray(obj)
    else:
        index = host_value(obj)
        if index is None or index.dtype not in _WIDE_INDEX or index.ndim > 1:
            return NotImplemented
    if not index.size:
        return NotImplemented
    vals = np.array(convert_arg("insert", values, a.dtype)._value, ndmin=a.ndim)
    n_input = a.shape[axis]
    if index.ndim == 0:
        # One position: the values, as a block of the input's shape with ``k`` entries
        # along the axis, between the input's two parts (what the general path's writes give).
        vals = np.moveaxis(vals, 0, axis)
        p = int(index)
        p = min(max(p + n_input if p < 0 else p, 0), n_input)
        shape = list(a.shape)
        shape[axis] = vals.shape[axis]
        if np.broadcast_shapes(vals.shape, shape) != tuple(shape):
            return NotImplemented
        head = (slice(None),) * axis
        return Array(np.concatenate([a[(*head, slice(0, p))], np.broadcast_to(vals, shape),
                                     a[(*head, slice(p, None))]], axis))
    if index.size == 1:
        if index.ndim == 0:
            vals = np.moveaxis(vals, 0, axis)
        positions = np.full(vals.shape[axis], int(index.ravel()[0]), np.int64)
    else:
        positions = index.astype(np.int64)
    n_insert = np.broadcast_shapes(positions.shape, (vals.shape[axis],))[0]
    positions = np.clip(np.where(positions < 0, positions + n_input, positions), 0, n_input)
    values_at = positions.copy()
    values_at[np.argsort(positions, kind="stable")] += np.arange(n_insert)
    keep = np.ones(n_input + n_insert, bool)
    keep[values_at] = False
    arr_at = np.flatnonzero(keep)
    out_shape = list(a.shape)
    out_shape[axis] += n_insert
    out = np.zeros(out_shape, a.dtype)
    head = (slice(None),) * axis
    target = out[(*head, values_at)].shape
    if np.broadcast_shapes(vals.shape, target) != target:
        return NotImplemented  # (NumPy would drop leading unit axes the general path keeps)
    out[(*head, values_at)] = vals
    out[(*head, arr_at)] = a
    return Array(out)


def _choose_on_host(a, choices, out=None, mode="raise"):
    # (only the index values matter: a NumPy index array or scalar is taken as it is)
    index = np.asarray(a) if isinstance(a, (np.ndarray, np.generic)) else host_value(a)
    if index is None or out is not None or index.dtype.kind not in "iu" or not (
            isinstance(choices, (list, tuple)) and 0 < len(choices) <= 32):
        return NotImplemented
    values = [host_value(c) for c in choices]
    first = choices[0]
    if values[0] is None:
        return NotImplemented
    dtype, weak = values[0].dtype, first._weak
    for c, v in zip(choices, values):
        # (one dtype and weak type: no promotion to reproduce)
        if v is None or v.dtype != dtype or c._weak != weak:
            return NotImplemented
    n = len(values)
    if mode == "raise":
        if index.size and (index.min() < 0 or index.max() >= n):
            return NotImplemented
    elif mode == "wrap":
        index = np.mod(index, n)
    elif mode == "clip":
        index = np.clip(index, 0, n - 1)
    else:
        return NotImplemented
    return Array(np.choose(index, values), weak)


def _put_along_axis_on_host(arr, indices, values, axis, inplace=True, *, mode=None):
    value, index = host_value(arr), host_value(indices)
    if (inplace is not False or value is None or index is None or mode is not None
            or index.dtype.kind not in "iu"):
        return NotImplemented
    axis = host_axis(axis, value.ndim)
    if axis is None or value.ndim != index.ndim or not index.size:
        return NotImplemented
    shape = index.shape
    for d, (i, v) in enumerate(zip(shape, value.shape)):
        if i != v and d != axis:
            return NotImplemented  # (the general path writes only the lanes that indices span)
    vals = _values_like(values, value, arr._weak)
    if vals is None:
        return NotImplemented
    positions = index if shape[axis] == 1 else _distinct_positions(index, axis, value.shape[axis])
    if positions is None:
        return NotImplemented
    # (one position a lane: NumPy's indexing takes -n <= i < n as the general path does, and
    # raises for the others, which declines)
    before, after = _lanes(shape, axis)
    out = value.copy()
    if vals.ndim and vals.shape != shape:  # (NumPy's assignment would take more shapes)
        vals = np.broadcast_to(vals, shape)
    out[before + (positions,) + after] = vals
    return new_array(out, arr._weak)


def _distinct_positions(index, axis, n):
    """``index`` (in ``[-n, n)``) as non-negative positions, or None where it is out of range
    or repeats a position along ``axis`` in a lane (writes that overlap)."""
    low = index.min()
    if low < -n or index.max() >= n:
        return None
    positions = np.where(index < 0, index + n, index) if low < 0 else index
    if (np.diff(np.sort(positions, axis=axis), axis=axis) == 0).any():
        return None
    return positions


@functools.lru_cache(maxsize=64)
def _lanes(shape, axis):
    """The index arrays before and after ``axis`` that, with positions along ``axis``, address
    every lane of an array of ``shape`` (aranges shaped to broadcast; read-only)."""
    lanes = []
    for k, d in enumerate(shape):
        lane = np.arange(d).reshape([-1 if e == k else 1 for e in range(len(shape))])
        lane.flags.writeable = False
        lanes.append(lane)
    return tuple(lanes[:axis]), tuple(lanes[axis + 1:])


def _values_like(values, target, weak):
    """``values`` (a host array or a Python scalar) as the general path writes them into
    ``target``: an array first (a Python float is a weak float32), then converted by the
    ``convert_element_type`` kernel; None for anything else."""
    t = type(values)
    if t is float or t is int or t is bool:
        values = scalar_to_array("put_along_axis", values)  # (asarray_arg's conversion)
    elif host_value(values) is None:
        return None
    if values.dtype == target.dtype:  # (only the weak type would change: not the bits)
        return values._value
    return convert(values, target.dtype, weak)._value


def _fill_diagonal_on_host(a, val, wrap=False, *, inplace=True):
    value = host_value(a)
    if inplace is not False or wrap or value is None or value.ndim < 2:
        return NotImplemented
    if value.ndim > 2 and any(d != value.shape[0] for d in value.shape[1:]):
        return NotImplemented
    fill = convert_arg("fill_diagonal", val, value.dtype, a._weak)._value
    n = min(value.shape)
    if fill.ndim:
        fill = fill.ravel()
        if not fill.size:
            return NotImplemented
        reps = -(-n // fill.size)
        fill = (np.tile(fill, reps) if reps > 1 else fill)[:n]
    out = value.copy()
    diagonal = np.arange(n)
    out[(diagonal,) * value.ndim] = fill
    return Array(out, a._weak)
