"""Host shortcuts of the order statistics (``funcarray.transforms.host_shortcuts``):
``quantile``, ``percentile``, ``median`` and their NaN-skipping forms, computed on a host
array's NumPy value at once.

The general path (``_statistics._quantile``) is a formula of some twenty operations: merge the
reduced axes into the last, make NaN slices NaN (or count the non-NaN entries), sort, then
interpolate between the two neighbouring order statistics. Each operation is an elementwise
NumPy ufunc on the working dtype (float32 or float64: the kernels of ``add``, ``multiply``,
``floor``... are exactly these ufuncs), so the shortcut evaluates the same formula with the same
ufuncs in the same order, and sorts with the fast kernels that give the ``sort`` primitive's
bits (``lax/_sort_on_host.py``). It takes a host operand of a real dtype, a Python scalar or
host array ``q`` (0-d or 1-d) for ``quantile``, a Python scalar ``q`` for ``percentile``,
and ``axis`` None, an int or a tuple of ints; anything else (and every bad argument) takes the
general path, which raises.

Example:
    >>> import funcarray.numpy as fnp
    >>> _quantile_on_host("quantile", fnp.arange(5.0), 0.25, None, "linear", False, False)
    Array(1., dtype=float32)
"""

from __future__ import annotations

import builtins
import math

import numpy as np

from funcarray.api.arguments import asarray_arg, convert_arg, to_inexact_dtype
from funcarray.base import dtypes
from funcarray.base.array import Array, DeviceArray
from funcarray.lax._sort_on_host import sorted_last
from funcarray.numpy._shape_on_host import host_sorted_axes
from funcarray.primitives import reduce as red
from funcarray.primitives.conversions import convert_kernel

__all__ = ["_quantile_on_host", "_quantile_shortcut", "_percentile_shortcut",
           "_median_shortcut"]

_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_METHODS = ("linear", "lower", "higher", "midpoint", "nearest")


def _work_dtypes(op, a, x, q):
    """``(x as inexact, its dtype (the result's), the working dtype, q in it, q's shape)``
    as the general path finds them, or None when it would raise or a q is not handled."""
    tq = type(q)
    if tq is float and not a._weak and (x.dtype == _F32 or x.dtype == _F64):
        return x, x.dtype, x.dtype, x.dtype.type(q), ()  # (the common case, directly)
    if tq is not int and tq is not float and tq is not Array and tq is not DeviceArray:
        return None  # (lists, NumPy values, tracers: the general path converts them)
    qa = asarray_arg(op, q)
    if dtypes.is_complex(x.dtype) or dtypes.is_complex(qa.dtype) or qa.ndim > 1:
        return None
    if dtypes.is_inexact(x.dtype):
        inexact = a
    else:
        inexact = Array(convert_kernel(x, to_inexact_dtype(x.dtype)), False)
    work = dtypes.result_type(inexact, qa if dtypes.is_inexact(qa.dtype) else inexact)
    if dtypes.is_half_precision(work):
        work = dtypes.float32
    work = np.dtype(work)
    return inexact._value, inexact.dtype, work, convert_arg(op, q, work)._value, qa.shape


def _scalar_position(qv, n: int, work):
    """``q * (n - 1)`` in the working dtype for one q, when it is finite, else None."""
    pos = qv.reshape(-1)[0] * (work.type(n) - work.type(1))  # (as the general path rounds)
    return pos if math.isfinite(pos) else None


def _quantile_on_host(op, a, q, axis, method, keepdims, skip_nan):
    t = type(a)
    if (t is not Array and t is not DeviceArray) or method not in _METHODS or (
            keepdims is not True and keepdims is not False):
        return NotImplemented
    found = _work_dtypes(op, a, a._value, q)
    if found is None:
        return NotImplemented
    x, out_dtype, work, qv, q_shape = found
    axes = host_sorted_axes(axis, x.ndim)
    if axes is None:
        return NotImplemented
    x = convert_kernel(x, work)

    # The reduced axes last, merged into one (as the general path's transpose and reshape).
    kept = [d for d in range(x.ndim) if d not in axes]
    kept_shape = tuple(x.shape[d] for d in kept)
    keep_shape = tuple(1 if d in axes else x.shape[d] for d in range(x.ndim))
    n = math.prod(x.shape[d] for d in axes)
    if not n:
        return NotImplemented  # (gathers out of bounds: the general path's fill)
    if kept:
        x = np.transpose(x, (*kept, *axes))
    x = sorted_last(x.reshape((*kept_shape, n)))  # NaNs last
    one = work.type(1)
    k = qv.size
    qv = qv.reshape((1,) * len(kept_shape) + (k,))
    if skip_nan:
        nan = np.isnan(x)
        count = red.reduce_sum_p.kernel(convert_kernel(~nan, work), axes=(x.ndim - 1,))
        count = count.reshape((*kept_shape, 1))
    else:
        count = work.type(n)
    pos = _scalar_position(qv, n, work) if not skip_nan and k == 1 else None
    if pos is not None:
        # One finite position for every slice: the same IEEE operations on scalars (no NaN
        # can arise, whose sign might differ), the positions clipped to [0, n - 1].
        low, high = np.floor(pos), np.ceil(pos)
        high_weight = pos - low
        low_weight = one - high_weight
        low, high = (np.array([builtins.max(builtins.min(int(i), n - 1), 0)]) for i in (low, high))
    else:
        pos = qv * (count - one)
        low, high = np.floor(pos), np.ceil(pos)
        high_weight = pos - low
        low_weight = one - high_weight
        last = count - one
        low, high = (np.maximum(np.where(i <= last, i, last), work.type(0)).astype(np.int32)
                     for i in (low, high))
    if skip_nan and kept_shape:  # (positions per row)
        shape = (*kept_shape, k)
        low_value = np.take_along_axis(x, np.broadcast_to(low, shape), axis=-1)
        high_value = np.take_along_axis(x, np.broadcast_to(high, shape), axis=-1)
    else:  # (one position for every row)
        low_value, high_value = x[..., low.reshape(k)], x[..., high.reshape(k)]
    if not skip_nan:
        # The general path makes a slice with a NaN all NaN before sorting: here, after.
        nan_row = np.isnan(x[..., -1:])
        if nan_row.any():
            low_value = np.where(nan_row, work.type(np.nan), low_value)
            high_value = np.where(nan_row, work.type(np.nan), high_value)
    if method == "linear":
        result = low_value * low_weight + high_value * high_weight
    elif method == "lower":
        result = low_value
    elif method == "higher":
        result = high_value
    elif method == "nearest":
        result = np.where(high_weight <= work.type(0.5), low_value, high_value)
    else:  # midpoint
        result = (low_value + high_value) * work.type(0.5)
    if k != 1:  # (q's axis first; a length-1 axis moves by reshaping alone)
        result = np.moveaxis(result, -1, 0)
    result = result.reshape((*q_shape, *(keep_shape if keepdims else kept_shape)))
    return Array(convert_kernel(result, out_dtype), False)


def _plain(out, overwrite_input, weights) -> bool:
    """No ``out=``, ``overwrite_input=`` or ``weights=`` (the general path refuses them)."""
    return out is None and overwrite_input is False and weights is None


def _quantile_shortcut(op: str, skip_nan: bool):
    """The shortcut of ``quantile`` (``op``) or ``nanquantile``."""
    def rule(a, q, axis=None, out=None, overwrite_input=False, method="linear",
             keepdims=False, *, weights=None):
        if not _plain(out, overwrite_input, weights):
            return NotImplemented
        return _quantile_on_host(op, a, q, axis, method, keepdims, skip_nan)

    return rule


def _percentile_shortcut(op: str, skip_nan: bool):
    """The shortcut of ``percentile`` (``op``) or ``nanpercentile``, for a Python scalar
    ``q`` (divided by 100 in double precision, as the general path does)."""
    def rule(a, q, axis=None, out=None, overwrite_input=False, method="linear",
             keepdims=False, *, weights=None):
        if not _plain(out, overwrite_input, weights) or (type(q) is not int
                                                         and type(q) is not float):
            return NotImplemented
        return _quantile_on_host(op, a, q / 100, axis, method, keepdims, skip_nan)

    return rule


def _median_shortcut(op: str, skip_nan: bool):
    """The shortcut of ``median`` (``op``) or ``nanmedian``: the 0.5 quantile, midpoint."""
    def rule(a, axis=None, out=None, overwrite_input=False, keepdims=False):
        if not _plain(out, overwrite_input, None):
            return NotImplemented
        return _quantile_on_host(op, a, 0.5, axis, "midpoint", keepdims, skip_nan)

    return rule
