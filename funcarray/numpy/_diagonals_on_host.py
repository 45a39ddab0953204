"""Host shortcuts (``transforms/host_shortcuts.py``) of ``tril``, ``triu``, ``diagonal``,
``trace`` and ``diag``: NumPy's functions of those names on the values of concrete arrays,
instead of building masks and slices from iotas with one bind per primitive.

They copy or select elements (the triangles keep each element or write ``+0``, as the general
path's ``select_n`` with zeros does), so the bits are the general path's; ``trace`` sums the
diagonal with funcarray's ``sum`` itself (its dtype rules and its kernel). Each rule returns
``NotImplemented`` for what it does not take (tracers, lists, non-int offsets, too few
dimensions), handing the call to the general path and its result or error.

Example:
    >>> import funcarray.numpy as fnp
    >>> diagonal_on_host(fnp.arange(6).reshape(2, 3), 1)
    Array([1, 5], dtype=int32)
"""

from __future__ import annotations

import numpy as np

from funcarray.base.array import Array
from funcarray.numpy._reductions import sum as reduce_sum
from funcarray.transforms.host_shortcuts import host_value

__all__ = ["tril_on_host", "triu_on_host", "diagonal_on_host", "trace_on_host",
           "diag_on_host"]


def _triangle(m, k, triangle):
    value = host_value(m)
    if value is None or value.ndim < 2 or type(k) is not int:
        return NotImplemented
    return Array(triangle(value, k), m._weak)


def tril_on_host(m, k=0):
    """``tril``'s shortcut, or NotImplemented."""
    return _triangle(m, k, np.tril)


def triu_on_host(m, k=0):
    """``triu``'s shortcut, or NotImplemented."""
    return _triangle(m, k, np.triu)


def _axis(axis, ndim):
    if type(axis) is not int or not -ndim <= axis < ndim:
        return None
    return axis % ndim


def _diagonal(value, offset, axis1, axis2):
    """NumPy's diagonal (a read-only view) where the general path takes the arguments, else
    None."""
    if value.ndim < 2 or type(offset) is not int:
        return None
    first, second = _axis(axis1, value.ndim), _axis(axis2, value.ndim)
    if first is None or second is None or first == second:
        return None
    return np.diagonal(value, offset, first, second)


def diagonal_on_host(a, offset=0, axis1=0, axis2=1):
    """``diagonal``'s shortcut, or NotImplemented."""
    value = host_value(a)
    out = None if value is None else _diagonal(value, offset, axis1, axis2)
    return NotImplemented if out is None else Array(out, a._weak)


def trace_on_host(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """``trace``'s shortcut (the general path's ``sum`` of the diagonal), or
    NotImplemented."""
    value = host_value(a)
    diag = None if value is None or out is not None else _diagonal(value, offset, axis1, axis2)
    if diag is None:
        return NotImplemented
    return reduce_sum(Array(diag, a._weak), axis=-1, dtype=dtype)


def diag_on_host(v, k=0):
    """``diag``'s shortcut, or NotImplemented."""
    value = host_value(v)
    if value is None or type(k) is not int:
        return NotImplemented
    if value.ndim == 2:
        return Array(np.diagonal(value, k), v._weak)
    if value.ndim != 1:
        return NotImplemented
    return Array(np.diag(value, k), v._weak)
