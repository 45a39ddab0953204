"""Host shortcuts (``transforms/host_shortcuts.py``) of ``take``, ``take_along_axis``,
``compress`` and ``extract``: NumPy's own ``take``/``take_along_axis``/``compress`` on the
values of concrete arrays, instead of argument parsing, index normalization and a ``gather``
bind.

The general path (``_index_routines.py``) binds one ``gather`` whose out-of-bounds rule these
reproduce: in mode "fill" (the default) indices in ``[-n, n)`` count from the end when
negative, as NumPy's do, and the others give the fill value (NumPy raises on them, so they
cost only then); "clip" clamps, "wrap" takes the index modulo ``n`` (NumPy's modes of those
names). Gathering copies elements, so the bits are the general path's. Each rule returns
``NotImplemented`` for what it does not take (tracers, lists, uint64 indices, empty axes,
``size=``), handing the call to the general path and its result or error.

Example:
    >>> import funcarray.numpy as fnp
    >>> take_on_host(fnp.arange(4.0), fnp.array([3, -1, 4]))
    Array([ 3.,  3., nan], dtype=float32)
"""

from __future__ import annotations

import numpy as np

from funcarray.base.array import Array
from funcarray.primitives.gather import gather_fill_value
from funcarray.transforms.host_shortcuts import host_value

__all__ = ["take_on_host", "take_along_axis_on_host", "compress_on_host", "extract_on_host"]


def _indices_value(indices):
    """The value of integer ``indices`` (an array; uint64 excluded, whose values past int64
    the general path wraps), or None."""
    v = host_value(indices)
    if v is None:
        return None
    kind = v.dtype.kind
    if kind == "i" or (kind == "u" and v.dtype.itemsize < 8):
        return v
    return None


def _fill(dtype, fill_value):
    """The value the general path's gather writes out of bounds, or None to decline."""
    if fill_value is None:
        return np.asarray(gather_fill_value(dtype)).astype(dtype)
    if type(fill_value) in (int, float, bool):
        return np.asarray(fill_value).astype(dtype)
    return None


def _clamped(indices, size, wrap):
    """``(indices clamped into [0, size), where they were outside)``, negatives counted from
    the end first when ``wrap``."""
    wide = indices.astype(np.int64)
    if wrap:
        wide = np.where(wide < 0, wide + size, wide)
    return np.clip(wide, 0, size - 1), (wide < 0) | (wide >= size)


def _along(value, axis):
    """``(value, axis)`` with ``axis=None`` meaning the flattened value, and the size along
    the axis; None for an axis the general path rejects or an empty one (its own case)."""
    if axis is None:
        value, axis = value.reshape(-1), 0
    elif type(axis) is not int or not -value.ndim <= axis < value.ndim:
        return None
    size = value.shape[axis]
    return None if size == 0 else (value, axis, size)


def take_on_host(a, indices, axis=None, out=None, mode=None, unique_indices=False,
                 indices_are_sorted=False, fill_value=None):
    """``take``'s shortcut, or NotImplemented."""
    value = host_value(a)
    iv = _indices_value(indices)
    if value is None or iv is None or out is not None or mode not in (None, "fill", "clip",
                                                                      "wrap"):
        return NotImplemented
    along = _along(value, axis)
    if along is None:
        return NotImplemented
    value, axis, size = along
    if mode == "clip" or mode == "wrap":
        return Array(np.take(value, iv, axis, mode=mode), a._weak)
    try:
        return Array(np.take(value, iv, axis), a._weak)
    except IndexError:  # entries out of [-size, size): filled
        pass
    fill = _fill(value.dtype, fill_value)
    if fill is None:
        return NotImplemented
    clamped, outside = _clamped(iv, size, True)
    taken = np.take(value, clamped, axis)
    taken[(slice(None),) * (axis % value.ndim) + (outside,)] = fill
    return Array(taken, a._weak)


def take_along_axis_on_host(arr, indices, axis=-1, mode=None, fill_value=None, *,
                            wrap_negative_indices=None):
    """``take_along_axis``'s shortcut, or NotImplemented."""
    value = host_value(arr)
    iv = _indices_value(indices)
    if value is None or iv is None or mode not in (None, "fill", "drop", "clip",
                                                   "promise_in_bounds"):
        return NotImplemented
    if axis is None:
        if iv.ndim != 1:
            return NotImplemented
        value, axis = value.reshape(-1), 0
    if type(axis) is not int or iv.ndim != value.ndim or not -value.ndim <= axis < value.ndim:
        return NotImplemented
    size = value.shape[axis]
    if size == 0 or not iv.size or not value.size:
        return NotImplemented
    if wrap_negative_indices is None:
        wrap_negative_indices = mode != "promise_in_bounds"
    elif type(wrap_negative_indices) is not bool:
        return NotImplemented
    fill_mode = mode in (None, "fill", "drop")
    if fill_mode and wrap_negative_indices:
        try:  # NumPy's rule exactly, unless an entry is out of [-size, size)
            return Array(np.take_along_axis(value, iv, axis), arr._weak)
        except IndexError:
            pass
    clamped, outside = _clamped(iv, size, wrap_negative_indices)
    out = np.take_along_axis(value, clamped, axis)
    if fill_mode and outside.any():
        fill = _fill(value.dtype, fill_value)
        if fill is None:
            return NotImplemented
        out[np.broadcast_to(outside, out.shape)] = fill
    return Array(out, arr._weak)


def _condition_value(condition):
    """The value of a ``condition`` array (any dtype: read as truth values), or of a NumPy
    boolean array; None for anything else (the general path converts lists and scalars)."""
    v = host_value(condition)
    if v is None and type(condition) is np.ndarray and condition.dtype == np.bool_:
        return condition
    return v


def compress_on_host(condition, a, axis=None, *, size=None, fill_value=0):
    """``compress``'s shortcut (no ``size``), or NotImplemented."""
    value = host_value(a)
    cond = _condition_value(condition)
    if value is None or cond is None or size is not None or cond.ndim != 1:
        return NotImplemented
    along = _along(value, axis)
    if along is None or cond.shape[0] > along[2]:
        return NotImplemented
    value, axis, _ = along
    return Array(np.compress(cond, value, axis), a._weak)


def extract_on_host(condition, arr, *, size=None, fill_value=0):
    """``extract``'s shortcut (no ``size``), or NotImplemented."""
    cond = _condition_value(condition)
    if cond is None or host_value(arr) is None:
        return NotImplemented
    return compress_on_host(Array(cond.reshape(-1)), arr, size=size)
