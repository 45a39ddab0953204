"""Host shortcuts of the reductions (``funcarray.transforms.host_shortcuts``): ``sum``,
``prod``, ``max``, ``min``, ``argmax``, ``argmin``, ``mean``, ``all``, ``any``, ``ptp``,
``count_nonzero``, ``nanmax``, ``nanmin``, ``cumsum``, ``cumprod``, ``cumulative_sum`` and
``cumulative_prod`` computed on a host array's NumPy value at once, and the accumulation
dtypes they share with the general path (``_reductions``).

A shortcut handles the common forms: an ``Array`` or ``DeviceArray`` operand, ``axis`` None,
a Python int or a tuple/list of them, ``keepdims`` True or False, ``dtype=`` for ``sum``,
``prod`` and ``mean``. It declines (returns ``NotImplemented``) ``out=``, ``where=``,
``initial=``, invalid axes and empty ``max``/``argmax`` reductions, so the general path runs
and raises. It runs the primitives' own NumPy kernels on the values the general path would
give them, so the results carry the same dtype and bits (float16 sums accumulate in float32,
bool and narrow integers in int32); reductions are never weak-typed.

Example:
    >>> import funcarray.numpy as fnp
    >>> _sum_on_host(fnp.ones((2, 3), fnp.int8), axis=-1)
    Array([3, 3], dtype=int32)
    >>> _max_on_host(fnp.ones((0,)))  # empty: the general path raises
    NotImplemented
"""

from __future__ import annotations

import math

import numpy as np

from funcarray.api.arguments import to_inexact_dtype
from funcarray.base import dtypes
from funcarray.base.array import Array, DeviceArray
from funcarray.numpy._shape_on_host import host_axis, host_sorted_axes
from funcarray.primitives import elementwise as ew
from funcarray.primitives import reduce as red
from funcarray.primitives._define import LOW_PRECISION_FLOATS
from funcarray.primitives.conversions import convert_kernel
from funcarray.transforms.host_shortcuts import host_value

__all__ = [
    "promote_integer", "upcast_f16", "_sum_on_host", "_prod_on_host", "_max_on_host",
    "_min_on_host", "_argmax_on_host", "_argmin_on_host", "_mean_on_host", "_all_on_host",
    "_any_on_host", "_ptp_on_host", "_count_nonzero_on_host", "_nanmax_on_host",
    "_nanmin_on_host", "_cumsum_on_host", "_cumprod_on_host", "_cumulative_sum_on_host",
    "_cumulative_prod_on_host", "_var_on_host", "_std_on_host",
    "_nansum_on_host", "_nanprod_on_host", "_nanargmax_on_host", "_nanargmin_on_host",
]

_INT32 = dtypes.int32
_BOOL = dtypes.bool_


def promote_integer(dt) -> np.dtype:
    """bool and narrow integers accumulate in the default 32-bit integers (as in JAX)."""
    if dt == _BOOL:
        return _INT32
    if dtypes.is_integer(dt) and np.dtype(dt).itemsize < 4:
        return dtypes.uint32 if np.dtype(dt).kind == "u" else _INT32
    return np.dtype(dt)


def upcast_f16(dt) -> np.dtype:
    """float16/bfloat16 are summed (and divided) in float32, then rounded once."""
    return dtypes.float32 if dtypes.is_half_precision(dt) else np.dtype(dt)


def _host_reduction(a, axis, keepdims, *unsupported):
    """``(value, sorted axes)`` of a reduction the shortcuts handle (none of the
    ``unsupported`` arguments given), or None."""
    t = type(a)
    if (t is not Array and t is not DeviceArray) or (keepdims is not False
                                                     and keepdims is not True):
        return None
    for arg in unsupported:
        if arg is not None:
            return None
    x = a._value
    axes = host_sorted_axes(axis, x.ndim)
    return None if axes is None else (x, axes)


def _kept(result, shape, axes, keepdims) -> Array:
    """The strong result, with the reduced axes back as size-1 axes when ``keepdims``."""
    if keepdims and axes:
        result = result.reshape(tuple(1 if i in axes else d for i, d in enumerate(shape)))
    return Array(result, False)


# --------------------------------------------------------------------------------------------
# sum, prod
# --------------------------------------------------------------------------------------------

def _sum_like_on_host(prim, bool_prim, a, axis, dtype, out, keepdims, initial, where,
                      promote_integers):
    if promote_integers is not True and promote_integers is not False:
        return NotImplemented
    operand = _host_reduction(a, axis, keepdims, out, initial, where)
    if operand is None:
        return NotImplemented
    x, axes = operand
    if dtype is not None:
        dt = dtypes.canonicalize_dtype(dtype)
    else:
        dt = promote_integer(x.dtype) if promote_integers else x.dtype
    kernel = bool_prim.kernel if dt == _BOOL else prim.kernel
    return _kept(kernel(convert_kernel(x, dt), axes=axes), x.shape, axes, keepdims)


def _sum_on_host(a, axis=None, dtype=None, out=None, keepdims=False, initial=None,
                 where=None, promote_integers=True):
    return _sum_like_on_host(red.reduce_sum_p, red.reduce_or_p, a, axis, dtype, out, keepdims,
                             initial, where, promote_integers)


def _prod_on_host(a, axis=None, dtype=None, out=None, keepdims=False, initial=None,
                  where=None, promote_integers=True):
    return _sum_like_on_host(red.reduce_prod_p, red.reduce_and_p, a, axis, dtype, out,
                             keepdims, initial, where, promote_integers)


def _nan_replaced(a, fill):
    """A host array of a NumPy float or complex dtype with its NaNs replaced by ``fill``, as
    the general path's select does (``x != x`` picks them); None for the low-precision
    floats (the general path's); any other operand as it is (no NaN to replace)."""
    x = host_value(a)
    if x is None:
        return a
    if x.dtype.kind not in "fc":
        return None if dtypes.is_inexact(x.dtype) else a
    return Array(np.where(x != x, x.dtype.type(fill), x), a._weak)


def _nan_filled(reduction_on_host, fill):
    """The shortcut of ``nansum`` (``sum``'s shortcut, fill 0) or ``nanprod`` (``prod``'s,
    fill 1): the reduction of the operand with its NaNs replaced by ``fill``."""
    def on_host(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
        a = _nan_replaced(a, fill)
        if a is None:
            return NotImplemented
        return reduction_on_host(a, axis, dtype, out, keepdims, initial, where)
    return on_host


_nansum_on_host = _nan_filled(_sum_on_host, 0)
_nanprod_on_host = _nan_filled(_prod_on_host, 1)


# --------------------------------------------------------------------------------------------
# max, min, argmax, argmin
# --------------------------------------------------------------------------------------------

def _nonempty_reduction(a, axis, keepdims, *unsupported):
    """``_host_reduction``'s ``(value, axes)`` when no reduced axis is empty (an empty
    max/min needs initial=: the general path says so), else None."""
    operand = _host_reduction(a, axis, keepdims, *unsupported)
    if operand is None:
        return None
    shape = operand[0].shape
    for i in operand[1]:
        if not shape[i]:
            return None
    return operand


def _extremum_on_host(prim, a, axis, out, keepdims, initial, where):
    operand = _nonempty_reduction(a, axis, keepdims, out, initial, where)
    if operand is None:
        return NotImplemented
    x, axes = operand
    return _kept(prim.kernel(x, axes=axes), x.shape, axes, keepdims)


def _max_on_host(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    return _extremum_on_host(red.reduce_max_p, a, axis, out, keepdims, initial, where)


def _min_on_host(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    return _extremum_on_host(red.reduce_min_p, a, axis, out, keepdims, initial, where)


def _ptp_on_host(a, axis=None, out=None, keepdims=False):
    operand = _nonempty_reduction(a, axis, keepdims, out)
    if operand is None or operand[0].dtype == _BOOL:
        return NotImplemented
    x, axes = operand
    hi = _kept(red.reduce_max_p.kernel(x, axes=axes), x.shape, axes, keepdims)._value
    lo = _kept(red.reduce_min_p.kernel(x, axes=axes), x.shape, axes, keepdims)._value
    return Array(ew.sub_p.kernel(hi, lo), False)


def _nan_extremum_on_host(prim, identity, a, axis, out, keepdims, initial, where):
    # NaNs become the identity, and the result NaN again where all were NaN (the general
    # path's select, reduction and all()).
    operand = _nonempty_reduction(a, axis, keepdims, out, initial, where)
    if operand is None:
        return NotImplemented
    x, axes = operand
    if not dtypes.is_inexact(x.dtype):
        return _kept(prim.kernel(x, axes=axes), x.shape, axes, keepdims)
    nan = ew.ne_p.kernel(x, x)
    result = prim.kernel(np.where(nan, identity(x.dtype), x), axes=axes)
    all_nan = red.reduce_and_p.kernel(nan, axes=axes)
    if keepdims and axes:
        kept = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
        result, all_nan = result.reshape(kept), all_nan.reshape(kept)
    return Array(np.where(all_nan, np.asarray(np.nan, x.dtype), result), False)


def _nanmax_on_host(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    return _nan_extremum_on_host(red.reduce_max_p, red.max_identity, a, axis, out, keepdims,
                                 initial, where)


def _nanmin_on_host(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    return _nan_extremum_on_host(red.reduce_min_p, red.min_identity, a, axis, out, keepdims,
                                 initial, where)


def _arg_extremum_on_host(prim, method, a, axis, out, keepdims):
    t = type(a)
    if (t is not Array and t is not DeviceArray) or out is not None or (
            keepdims is not None and keepdims is not False and keepdims is not True):
        return NotImplemented
    x = a._value
    if x.dtype.kind == "c":
        return NotImplemented  # complex numbers have no order: the general path says
    shape = x.shape
    if axis is None:
        flat = x.reshape(-1)
        if not flat.shape[0]:
            return NotImplemented
        if x.dtype in LOW_PRECISION_FLOATS:
            result = prim.kernel(flat, axes=(0,), index_dtype=_INT32)
        else:  # the kernel's NumPy call on a whole 1-d array, as an int32 scalar
            result = _INT32.type(method(flat))
        return Array(result.reshape((1,) * len(shape)) if keepdims else result, False)
    ax = host_axis(axis, x.ndim)
    if ax is None or not shape[ax]:
        return NotImplemented
    result = prim.kernel(x, axes=(ax,), index_dtype=_INT32)
    return _kept(result, shape, (ax,), keepdims)


def _argmax_on_host(a, axis=None, out=None, keepdims=None):
    return _arg_extremum_on_host(red.argmax_p, np.ndarray.argmax, a, axis, out, keepdims)


def _argmin_on_host(a, axis=None, out=None, keepdims=None):
    return _arg_extremum_on_host(red.argmin_p, np.ndarray.argmin, a, axis, out, keepdims)


def _nan_arg_extremum_on_host(arg_on_host, identity, a, axis, out, keepdims):
    """The general path's steps for a NumPy float host array: NaNs replaced by the
    reduction's identity, the arg reduction's shortcut, then -1 where every value is NaN."""
    x = host_value(a)
    if x is None or x.dtype.kind != "f":
        return NotImplemented
    nan = x != x
    index = arg_on_host(Array(np.where(nan, identity(x.dtype), x)), axis, out, keepdims)
    if index is NotImplemented:
        return NotImplemented
    all_nan = np.logical_and.reduce(nan, axis=axis, keepdims=bool(keepdims))
    return Array(np.where(all_nan, np.int32(-1), index._value), False)


def _nanargmax_on_host(a, axis=None, out=None, keepdims=None):
    return _nan_arg_extremum_on_host(_argmax_on_host, red.max_identity, a, axis, out, keepdims)


def _nanargmin_on_host(a, axis=None, out=None, keepdims=None):
    return _nan_arg_extremum_on_host(_argmin_on_host, red.min_identity, a, axis, out, keepdims)


# --------------------------------------------------------------------------------------------
# mean, all, any
# --------------------------------------------------------------------------------------------

def _mean_on_host(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    operand = _host_reduction(a, axis, keepdims, out, where)
    if operand is None:
        return NotImplemented
    x, axes = operand
    if dtype is None:
        result_dtype = to_inexact_dtype(x.dtype)
        computation = upcast_f16(result_dtype)
    else:
        result_dtype = computation = dtypes.canonicalize_dtype(dtype)
    if computation == _BOOL:
        return NotImplemented  # (a bool mean: the general path's or-sum and division)
    total = red.reduce_sum_p.kernel(convert_kernel(x, computation), axes=axes)
    count = np.asarray(math.prod(x.shape[i] for i in axes), computation)
    if keepdims and axes:
        total = total.reshape(tuple(1 if i in axes else d for i, d in enumerate(x.shape)))
    # (the count broadcast to the total's shape, as the general path divides)
    quotient = ew.div_p.kernel(total, np.broadcast_to(count, total.shape))
    return Array(convert_kernel(quotient, result_dtype), False)


_FLOAT32_64 = (np.dtype(np.float32), np.dtype(np.float64))


def _variance_of_floats(a, axis, dtype, out, ddof, keepdims, where, mean, correction):
    """``var``'s general path on NumPy values, step for step with its kernels, for a
    float32/float64 host array and a Python-number ``ddof`` (no ``dtype``, ``where``,
    ``mean``, ``correction``: those take the general path); None to decline."""
    operand = _host_reduction(a, axis, keepdims, dtype, out, where, mean, correction)
    t = type(ddof)
    if operand is None or (t is not int and t is not float):
        return None
    x, axes = operand
    dt = x.dtype
    if dt not in _FLOAT32_64:
        return None
    kept = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
    n = math.prod(x.shape[i] for i in axes)
    sum_kernel, div_kernel = red.reduce_sum_p.kernel, ew.div_p.kernel
    total = sum_kernel(x, axes=axes)
    if axes:
        total = total.reshape(kept)
    centre = div_kernel(total, np.broadcast_to(np.asarray(n, dt), total.shape))
    centred = ew.sub_p.kernel(x, np.broadcast_to(centre, x.shape))
    squares = sum_kernel(ew.mul_p.kernel(centred, centred), axes=axes)
    if keepdims and axes:
        squares = squares.reshape(kept)
    dof = n - ddof
    if dof <= 0:
        return np.full(squares.shape, np.nan, dt)
    return div_kernel(squares, np.broadcast_to(np.asarray(dof, dt), squares.shape))


def _var_on_host(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None,
                 mean=None, correction=None):
    variance = _variance_of_floats(a, axis, dtype, out, ddof, keepdims, where, mean,
                                   correction)
    return NotImplemented if variance is None else Array(variance, False)


def _std_on_host(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None,
                 mean=None, correction=None):
    variance = _variance_of_floats(a, axis, dtype, out, ddof, keepdims, where, mean,
                                   correction)
    return NotImplemented if variance is None else Array(ew.sqrt_p.kernel(variance), False)


def _logical_on_host(prim, a, axis, out, keepdims, where):
    operand = _host_reduction(a, axis, keepdims, out, where)
    if operand is None:
        return NotImplemented
    x, axes = operand
    truth = x if x.dtype == _BOOL else ew.ne_p.kernel(x, np.zeros((), x.dtype))
    return _kept(prim.kernel(truth, axes=axes), x.shape, axes, keepdims)


def _count_nonzero_on_host(a, axis=None, keepdims=False):
    x = host_value(a)
    if axis is None and keepdims is False and x is not None and x.dtype.isbuiltin == 1:
        # The whole count at once (NumPy's truth: NaN counts, -0.0 does not, as ``!= 0``).
        return Array(_INT32.type(np.count_nonzero(x)), False)
    operand = _host_reduction(a, axis, keepdims)
    if operand is None:
        return NotImplemented
    x, axes = operand
    truth = x if x.dtype == _BOOL else ew.ne_p.kernel(x, np.zeros((), x.dtype))
    counts = red.reduce_sum_p.kernel(convert_kernel(truth, _INT32), axes=axes)
    return _kept(counts, x.shape, axes, keepdims)


def _all_on_host(a, axis=None, out=None, keepdims=False, *, where=None):
    return _logical_on_host(red.reduce_and_p, a, axis, out, keepdims, where)


def _any_on_host(a, axis=None, out=None, keepdims=False, *, where=None):
    return _logical_on_host(red.reduce_or_p, a, axis, out, keepdims, where)


# --------------------------------------------------------------------------------------------
# cumsum, cumprod
# --------------------------------------------------------------------------------------------

def _cumulative_on_host(prim, a, axis, dtype, out, promote_integers=False):
    # The common form: no dtype= (the result keeps the operand's dtype, or with
    # ``promote_integers`` narrow integers accumulate in 32 bits; bools count in int32), axis
    # None (flattened) or an int.
    t = type(a)
    if (t is not Array and t is not DeviceArray) or dtype is not None or out is not None:
        return NotImplemented
    x = a._value
    if axis is None:
        x, ax = x.reshape(-1), 0
    else:
        ax = host_axis(axis, x.ndim)
        if ax is None:
            return NotImplemented
    if x.dtype.kind != "f":  # (floats, the common case, keep their dtype: one cheap test)
        if promote_integers:
            x = convert_kernel(x, promote_integer(x.dtype))
        elif x.dtype == _BOOL:
            x = convert_kernel(x, _INT32)
    return Array(prim.kernel(x, axis=ax, reverse=False), False)


def _cumsum_on_host(a, axis=None, dtype=None, out=None):
    return _cumulative_on_host(red.cumsum_p, a, axis, dtype, out)


def _cumprod_on_host(a, axis=None, dtype=None, out=None):
    return _cumulative_on_host(red.cumprod_p, a, axis, dtype, out)


def _array_api_cumulative_on_host(prim, x, axis, dtype, include_initial):
    # The common form of ``cumulative_sum``/``cumulative_prod``: an array of at least one
    # dimension, ``axis`` given unless it has only one, no ``include_initial``.
    value = host_value(x)
    if (value is None or include_initial is not False or value.ndim == 0
            or (axis is None and value.ndim > 1)):
        return NotImplemented
    return _cumulative_on_host(prim, x, axis, dtype, None, promote_integers=True)


def _cumulative_sum_on_host(x, /, *, axis=None, dtype=None, include_initial=False):
    return _array_api_cumulative_on_host(red.cumsum_p, x, axis, dtype, include_initial)


def _cumulative_prod_on_host(x, /, *, axis=None, dtype=None, include_initial=False):
    return _array_api_cumulative_on_host(red.cumprod_p, x, axis, dtype, include_initial)
