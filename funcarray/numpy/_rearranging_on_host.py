"""Host shortcuts (``transforms/host_shortcuts.py``) of ``flip``, ``flipud``, ``fliplr``,
``repeat``, ``roll`` and ``tile``: NumPy's functions of those names on the values of
concrete arrays, instead of argument parsing and a bind per primitive. They only move
elements, so the bits are the general path's; as there, a flip of axes of at most one
element is the operand itself (a roll that moves nothing is left to the general path).

Each rule returns ``NotImplemented`` for what it does not take (tracers, lists, repeat counts
that are arrays, ``total_repeat_length``), handing the call to the general path and its
result or error.

Example:
    >>> import funcarray.numpy as fnp
    >>> repeat_on_host(fnp.arange(3), 2)
    Array([0, 0, 1, 1, 2, 2], dtype=int32)
"""

from __future__ import annotations

import numpy as np

from funcarray.base.array import Array, new_array
from funcarray.numpy._shape_on_host import host_axes
from funcarray.transforms.host_shortcuts import host_value

__all__ = ["flip_on_host", "flipud_on_host", "fliplr_on_host", "repeat_on_host", "roll_on_host",
           "tile_on_host"]


_REVERSED = slice(None, None, -1)
_ALL = slice(None)


def _flipped(m, value, axes):
    """``value`` reversed along ``axes`` (in range, distinct), or ``m`` itself where each
    has at most one element (the general path's ``_rev``)."""
    shape = value.shape
    box = None
    for a in axes:
        if shape[a] > 1:
            if box is None:
                box = [_ALL] * len(shape)
            box[a] = _REVERSED
    # (np.flip's view, indexed directly: faster)
    return m if box is None else new_array(value[tuple(box)], m._weak)


def flip_on_host(m, axis=None):
    """``flip``'s shortcut, or NotImplemented."""
    value = host_value(m)
    if value is None:
        return NotImplemented
    if axis is None:
        return _flipped(m, value, range(value.ndim))
    axes = host_axes(axis, value.ndim)
    return NotImplemented if axes is None else _flipped(m, value, axes)


def flipud_on_host(m):
    """``flipud``'s shortcut, or NotImplemented."""
    value = host_value(m)
    if value is None or value.ndim < 1:
        return NotImplemented
    # (one axis indexed directly: _flipped's general axis handling costs as much as NumPy)
    return m if value.shape[0] <= 1 else new_array(value[_REVERSED], m._weak)


def fliplr_on_host(m):
    """``fliplr``'s shortcut, or NotImplemented."""
    value = host_value(m)
    if value is None or value.ndim < 2:
        return NotImplemented
    return m if value.shape[1] <= 1 else new_array(value[_ALL, _REVERSED], m._weak)


def repeat_on_host(a, repeats, axis=None, *, total_repeat_length=None):
    """``repeat``'s shortcut (an int count, or a list or tuple of ints), or NotImplemented."""
    value = host_value(a)
    if value is None or total_repeat_length is not None:
        return NotImplemented
    if axis is None or value.ndim == 0:
        if axis is not None and (type(axis) is not int or axis not in (0, -1)):
            return NotImplemented
        value, axis = value.reshape(-1), 0
    elif type(axis) is not int or not -value.ndim <= axis < value.ndim:
        return NotImplemented
    if type(repeats) is int:
        if repeats < 0:
            return NotImplemented
    elif type(repeats) is list or type(repeats) is tuple:
        if not all(type(r) is int and r >= 0 for r in repeats):
            return NotImplemented
        if len(repeats) not in (1, value.shape[axis]):
            return NotImplemented
    else:
        return NotImplemented
    return Array(np.repeat(value, repeats, axis), a._weak)


def _int_list(values):
    """An int or a tuple/list of Python ints as a tuple, or None."""
    if type(values) is int:
        return (values,)
    if (type(values) is tuple or type(values) is list) and all(type(v) is int
                                                                 for v in values):
        return tuple(values)
    return None


def roll_on_host(a, shift, axis=None):
    """``roll``'s shortcut (static shifts that move elements), or NotImplemented."""
    value = host_value(a)
    shifts = _int_list(shift)
    if value is None or shifts is None or not value.size:
        return NotImplemented
    if axis is None:
        if len(shifts) != 1 or not shifts[0] % value.size:
            return NotImplemented
        return Array(np.roll(value, shifts[0]), a._weak)
    axes = _int_list(axis)
    ndim = value.ndim
    if axes is None or not all(-ndim <= d < ndim for d in axes) or (
            len(shifts) != len(axes) and 1 not in (len(shifts), len(axes))):
        return NotImplemented
    count = max(len(shifts), len(axes))
    total = [0] * ndim
    for s, d in zip(shifts * (count // len(shifts)), axes * (count // len(axes))):
        total[d] += s
    if not any(t % n for t, n in zip(total, value.shape)):
        return NotImplemented
    return Array(np.roll(value, shifts, axes), a._weak)


def tile_on_host(A, reps):
    """``tile``'s shortcut, or NotImplemented."""
    value = host_value(A)
    reps = _int_list(reps)
    if value is None or reps is None or any(r < 0 for r in reps):
        return NotImplemented
    return Array(np.tile(value, reps), A._weak)
