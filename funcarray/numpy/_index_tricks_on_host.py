"""Host shortcuts (``transforms/host_shortcuts.py``) of ``tri``, ``indices``,
``diag_indices``, ``unravel_index`` and ``ravel_multi_index``: NumPy's functions of those
names, instead of iotas, comparisons and divisions bound one primitive at a time.

They give the general path's values: the grids are the iota kernel's ``arange`` in the
requested dtype, ``tri``'s mask is converted by the conversion kernel, and the index
conversions take the in-bounds indices NumPy takes (NumPy raises on the others; then
``unravel_index`` clamps as the general path does: a negative index in ``[-size, 0)`` counts
from the end, the others go to the first or last element; ``ravel_multi_index`` declines).
Each rule returns ``NotImplemented`` for what it does not take (tracers, lists, NumPy
integers, weak or mixed index dtypes, ``dtype=``), handing the call to the general path and
its result or error.

Example:
    >>> import funcarray.numpy as fnp
    >>> unravel_index_on_host(fnp.array([5, -1, 99]), (2, 3))
    (Array([1, 1, 1], dtype=int32), Array([2, 2, 2], dtype=int32))
"""

from __future__ import annotations

import math

import numpy as np

from funcarray.base import dtypes
from funcarray.base.array import Array
from funcarray.numpy._promotion import strong_host_values
from funcarray.numpy._shape_on_host import host_shape
from funcarray.primitives.conversions import convert_kernel
from funcarray.transforms.host_shortcuts import host_value

__all__ = ["tri_on_host", "indices_on_host", "diag_indices_on_host", "unravel_index_on_host",
           "ravel_multi_index_on_host"]

# The index dtypes the shortcuts take, and their largest values.
_INDEX_LIMITS = {np.dtype(np.int32): 2**31 - 1, np.dtype(np.int64): 2**63 - 1}
_INT32_SPAN = 2**31


def _dtype(dtype, default):
    return np.dtype(default) if dtype is None else dtypes.canonicalize_dtype(dtype)


def tri_on_host(N, M=None, k=0, dtype=None):
    """``tri``'s shortcut, or NotImplemented."""
    M = N if M is None else M
    if type(N) is not int or type(M) is not int or type(k) is not int or N < 0 or M < 0:
        return NotImplemented
    if abs(k) + max(N, M) >= _INT32_SPAN:  # (the general path's int32 sum may wrap)
        return NotImplemented
    mask = np.tri(N, M, k, dtype=bool)
    return Array(convert_kernel(mask, _dtype(dtype, np.float32)))


def indices_on_host(dimensions, dtype=None, sparse=False):
    """``indices``' shortcut, or NotImplemented."""
    dims = None if type(dimensions) is int else host_shape(dimensions)
    if dims is None or type(sparse) is not bool or any(d < 0 for d in dims):
        return NotImplemented
    dtype = _dtype(dtype, dtypes.default_int)
    if dtype.kind not in "iuf":
        return NotImplemented
    if sparse:
        return tuple(Array(a) for a in np.indices(dims, dtype, sparse=True))
    return Array(np.indices(dims, dtype))


def diag_indices_on_host(n, ndim=2):
    """``diag_indices``' shortcut, or NotImplemented."""
    if type(n) is not int or type(ndim) is not int or n < 0 or ndim < 0:
        return NotImplemented
    return (Array(np.arange(n, dtype=dtypes.default_int)),) * ndim


def _shape(shape):
    """A shape given as an int or a tuple/list of ints, as a tuple of positive ints, or
    None."""
    dims = host_shape(shape)
    return dims if dims is not None and min(dims, default=1) > 0 else None


def unravel_index_on_host(indices, shape):
    """``unravel_index``'s shortcut, or NotImplemented."""
    value = host_value(indices)
    dims = _shape(shape)
    if value is None or dims is None:
        return NotImplemented
    size, limit = math.prod(dims), _INDEX_LIMITS.get(value.dtype)
    if limit is None or size > limit:
        return NotImplemented
    try:
        out = np.unravel_index(value, dims)
    except ValueError:  # out of bounds: clamped as the general path does
        wide = value.astype(np.int64)
        wide = np.clip(np.where(wide < 0, wide + size, wide), 0, size - 1)
        out = np.unravel_index(wide, dims)
    weak, dtype = indices._weak, value.dtype
    # (NumPy's results are intp, and NumPy scalars for a 0-d operand)
    if value.ndim:
        return tuple([Array(o.astype(dtype, copy=False), weak) for o in out])
    return tuple([Array(np.asarray(o, dtype), weak) for o in out])


def ravel_multi_index_on_host(multi_index, dims, mode="raise", order="C", *, dtype=None):
    """``ravel_multi_index``'s shortcut (modes "raise" with indices in bounds, "wrap" and
    "clip"), or NotImplemented."""
    if (type(multi_index) is not tuple and type(multi_index) is not list) or dtype is not None:
        return NotImplemented
    if mode not in ("raise", "wrap", "clip") or order not in ("C", "F"):
        return NotImplemented
    shape = _shape(dims)
    if shape is None or not multi_index or len(multi_index) != len(shape):
        return NotImplemented
    values = strong_host_values(*multi_index, kinds="i")
    if values is None:
        return NotImplemented
    index_dtype = values[0].dtype
    limit = _INDEX_LIMITS.get(index_dtype)
    if limit is None or math.prod(shape) - 1 > limit:
        return NotImplemented
    # (NumPy raises on an index out of bounds in mode "raise": the general path's error)
    flat = np.ravel_multi_index(values, shape, mode=mode, order=order)
    return Array(np.asarray(flat, index_dtype))
