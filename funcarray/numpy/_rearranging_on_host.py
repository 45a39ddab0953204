"""Host shortcuts (``transforms/host_shortcuts.py``) of ``flip``, ``flipud``, ``fliplr``
and ``repeat``: NumPy's functions of those names on the values of concrete arrays, instead of
argument parsing and a bind per primitive. They only move elements, so the bits are the
general path's; as there, a flip of axes of at most one element is the operand itself.

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

from funcarray.base.array import Array
from funcarray.numpy._shape_on_host import host_axes
from funcarray.transforms.host_shortcuts import host_value

__all__ = ["flip_on_host", "flipud_on_host", "fliplr_on_host", "repeat_on_host"]


def _flipped(m, value, axes):
    """``value`` reversed along ``axes`` (in range, distinct), or ``m`` itself where each
    has at most one element (the general path's ``_rev``)."""
    shape = value.shape
    axes = tuple(a for a in axes if shape[a] > 1)
    if not axes:
        return m
    reverse = slice(None, None, -1)
    box = tuple(reverse if d in axes else slice(None) for d in range(max(axes) + 1))
    return Array(value[box], m._weak)  # (np.flip's view, indexed directly: faster)


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
    return _flipped(m, value, (0,))


def fliplr_on_host(m):
    """``fliplr``'s shortcut, or NotImplemented."""
    value = host_value(m)
    if value is None or value.ndim < 2:
        return NotImplemented
    return _flipped(m, value, (1,))


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
