"""Order statistics and NaN-skipping scans of ``funcarray.numpy``: ``quantile``,
``percentile``, ``median``, their NaN-skipping forms, ``nancumsum`` and ``nancumprod``.

Quantiles sort along the reduced axes and gather the two neighbouring order statistics, so
they work under every transform and are differentiable (the gradient flows to the one or two
elements interpolated between). Integer inputs give float results (float64 for 64-bit
integers); any NaN in a slice makes its quantile NaN, except in the ``nan*`` forms. On host
arrays the quantiles take the host shortcut of ``_quantiles_on_host.py`` and the scans
``cumsum``'s and ``cumprod``'s own.

Example:
    >>> import funcarray.numpy as fnp
    >>> fnp.median(fnp.array([[1.0, 3.0, 2.0], [4.0, 6.0, 8.0]]), axis=1)
    Array([2., 6.], dtype=float32)
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from funcarray.api.arguments import (
    asarray_arg,
    canonicalize_axes,
    convert,
    convert_arg,
    to_inexact_dtype,
)
from funcarray.base import dtypes
from funcarray.base.array import Array
from funcarray.base.errors import op_type_error, op_value_error
from funcarray.numpy._elementwise import (
    add,
    clip,
    divide,
    isnan,
    less_equal,
    multiply,
    subtract,
    where,
)
from funcarray.numpy._index_routines import take_along_axis
from funcarray.numpy._predicates_and_bits import logical_not
from funcarray.numpy._quantiles_on_host import (
    _median_shortcut,
    _percentile_shortcut,
    _quantile_shortcut,
)
from funcarray.numpy._reductions import any, cumprod, cumsum, sum
from funcarray.numpy._reductions_on_host import _cumprod_on_host, _cumsum_on_host
from funcarray.numpy._rounding_and_division import ceil, floor
from funcarray.numpy._shape import moveaxis, reshape, transpose
from funcarray.numpy._sort_and_nonzero import sort
from funcarray.transforms.host_shortcuts import host_shortcut, host_value

if TYPE_CHECKING:
    from funcarray.base.typing import ArrayLike, Axis, DTypeLike

__all__ = ["quantile", "percentile", "median", "nanquantile", "nanpercentile", "nanmedian",
           "nancumsum", "nancumprod"]

_QUANTILE_METHODS = ("linear", "lower", "higher", "midpoint", "nearest", "inverted_cdf")


def _check_unsupported(op, out, overwrite_input, weights):
    if out is not None:
        raise op_type_error(op, "out= is not supported: funcarray arrays are immutable; use "
                                f"the returned array (result = fnp.{op}(...))")
    if overwrite_input:
        raise op_value_error(op, "overwrite_input=True is not supported: funcarray arrays are "
                                 "immutable (leave it False)")
    if weights is not None:
        raise op_value_error(op, "weights= (method='inverted_cdf') is not supported yet")


def _quantile(op, a, q, axis, method, keepdims, skip_nan):
    if method not in _QUANTILE_METHODS:
        raise op_value_error(op, f"method must be one of "
                                 f"{', '.join(map(repr, _QUANTILE_METHODS))}, got {method!r}")
    a, q_arg, q = asarray_arg(op, a), q, asarray_arg(op, q)
    if dtypes.is_complex(a.dtype) or dtypes.is_complex(q.dtype):
        raise op_type_error(op, f"a and q must be real (a quantile of complex numbers is not "
                                f"defined), got dtypes {a.dtype} and {q.dtype}")
    if q.ndim > 1:
        raise op_value_error(op, f"q must be a scalar or 1-D, got shape {tuple(q.shape)}")
    if not dtypes.is_inexact(a.dtype):
        a = convert(a, to_inexact_dtype(a.dtype))
    out_dtype = a.dtype
    # Positions are computed in q's dtype promoted with a's, at least float32.
    work = dtypes.result_type(a, q if dtypes.is_inexact(q.dtype) else a)
    if dtypes.is_half_precision(work):
        work = dtypes.float32
    # (From q_arg: a Python float q keeps float64's precision when work is float64.)
    q, a = convert_arg(op, q_arg, work), convert(a, work)

    # Move the reduced axes last and merge them into one.
    axes = canonicalize_axes(op, axis, a.ndim)
    kept = [d for d in range(a.ndim) if d not in axes]
    kept_shape = tuple(a.shape[d] for d in kept)
    keep_shape = tuple(1 if d in axes else a.shape[d] for d in range(a.ndim))
    a = reshape(transpose(a, (*kept, *axes)), (*kept_shape, math.prod(a.shape[d] for d in axes)))
    n = a.shape[-1]

    if not skip_nan:  # one NaN makes the whole slice NaN
        a = where(any(isnan(a), axis=-1, keepdims=True), float("nan"), a)
    a = sort(a, axis=-1)  # NaNs last
    if skip_nan:
        count = sum(logical_not(isnan(a)), axis=-1, keepdims=True, dtype=work)
    else:
        count = convert_arg(op, float(n), work)
    q_row = reshape(q, (1,) * len(kept_shape) + (q.size,))
    pos = multiply(q_row, subtract(count, 1))
    low, high = floor(pos), ceil(pos)
    high_weight = subtract(pos, low)
    low_weight = subtract(1, high_weight)
    last = subtract(count, 1)
    # The inverted CDF's position: the first element whose cumulative count reaches q * n.
    first = subtract(ceil(multiply(q_row, count)), 1)
    low, high, first = (convert(clip(where(less_equal(i, last), i, last), 0), dtypes.int32)
                        for i in (low, high, first))
    low_value = take_along_axis(a, low, axis=-1)  # (*kept_shape, k); NaN when n == 0
    high_value = take_along_axis(a, high, axis=-1)
    if method == "inverted_cdf":
        result = take_along_axis(a, first, axis=-1)
    elif method == "linear":
        result = add(multiply(low_value, low_weight), multiply(high_value, high_weight))
    elif method == "lower":
        result = low_value
    elif method == "higher":
        result = high_value
    elif method == "nearest":
        result = where(less_equal(high_weight, 0.5), low_value, high_value)
    else:  # midpoint
        result = multiply(add(low_value, high_value), 0.5)

    # result: (*kept_shape, k); wanted: q.shape + (keep_shape if keepdims else kept_shape).
    result = moveaxis(result, -1, 0)
    result = reshape(result, (*q.shape, *(keep_shape if keepdims else kept_shape)))
    return convert(result, out_dtype)


@host_shortcut(_quantile_shortcut("quantile", False))
def quantile(a: ArrayLike, q: ArrayLike, axis: Axis = None, out: None = None,
             overwrite_input: bool = False, method: str = "linear", keepdims: bool = False,
             *, weights: ArrayLike | None = None) -> Array:
    """The ``q``-th quantiles (``0 <= q <= 1``; a scalar or 1-D ``q``) of ``a`` along
    ``axis`` (all axes when None; an int or a tuple). ``q``'s dimension comes first.

    ``method``: "linear" (default), "lower", "higher", "midpoint" or "nearest", as in
    jax.numpy. Any NaN in a slice makes its quantile NaN (see ``nanquantile``).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.quantile(fnp.arange(5.0), fnp.array([0.1, 0.5]))
        Array([0.4, 2. ], dtype=float32)
        >>> fnp.quantile(fnp.arange(4), 0.5, method="lower")
        Array(1., dtype=float32)
    """
    _check_unsupported("quantile", out, overwrite_input, weights)
    return _quantile("quantile", a, q, axis, method, keepdims, skip_nan=False)


@host_shortcut(_quantile_shortcut("nanquantile", True))
def nanquantile(a: ArrayLike, q: ArrayLike, axis: Axis = None, out: None = None,
                overwrite_input: bool = False, method: str = "linear",
                keepdims: bool = False, *, weights: ArrayLike | None = None) -> Array:
    """``quantile`` of the non-NaN elements (NaN where a slice has none).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.nanquantile(fnp.array([1.0, fnp.nan, 3.0]), 0.5)
        Array(2., dtype=float32)
    """
    _check_unsupported("nanquantile", out, overwrite_input, weights)
    return _quantile("nanquantile", a, q, axis, method, keepdims, skip_nan=True)


def _percent(op, q):
    if type(q) in (int, float):
        return q / 100  # a Python float, converted to the working dtype in one rounding
    q = asarray_arg(op, q)
    if not dtypes.is_inexact(q.dtype):
        q = convert(q, to_inexact_dtype(q.dtype), q.weak_type)
    # The barrier keeps XLA from folding the division into the constant position factor
    # (q / 100 * 5 -> q * 0.05 rounds 100 to 4.9999995: the 100th percentile would miss the
    # maximum under jit).
    from funcarray.primitives.compiler_hints import optimization_barrier_p

    return optimization_barrier_p.bind(divide(q, 100))[0]


@host_shortcut(_percentile_shortcut("percentile", False))
def percentile(a: ArrayLike, q: ArrayLike, axis: Axis = None, out: None = None,
               overwrite_input: bool = False, method: str = "linear",
               keepdims: bool = False, *, weights: ArrayLike | None = None) -> Array:
    """The ``q``-th percentiles (``0 <= q <= 100``) of ``a``: ``quantile(a, q / 100, ...)``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.percentile(fnp.array([1.0, 2.0, 3.0, 4.0]), 50)
        Array(2.5, dtype=float32)
    """
    op = "percentile"
    _check_unsupported(op, out, overwrite_input, weights)
    return _quantile(op, a, _percent(op, q), axis, method, keepdims, skip_nan=False)


@host_shortcut(_percentile_shortcut("nanpercentile", True))
def nanpercentile(a: ArrayLike, q: ArrayLike, axis: Axis = None, out: None = None,
                  overwrite_input: bool = False, method: str = "linear",
                  keepdims: bool = False, *, weights: ArrayLike | None = None) -> Array:
    """``percentile`` of the non-NaN elements.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.nanpercentile(fnp.array([1.0, fnp.nan, 3.0]), 100)
        Array(3., dtype=float32)
    """
    op = "nanpercentile"
    _check_unsupported(op, out, overwrite_input, weights)
    return _quantile(op, a, _percent(op, q), axis, method, keepdims, skip_nan=True)


@host_shortcut(_median_shortcut("median", False))
def median(a: ArrayLike, axis: Axis = None, out: None = None, overwrite_input: bool = False,
           keepdims: bool = False) -> Array:
    """The median of ``a`` along ``axis`` (the mean of the two middle values for an even
    count); NaN if the slice has a NaN.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.median(fnp.array([3, 1, 4, 2]))
        Array(2.5, dtype=float32)
    """
    _check_unsupported("median", out, overwrite_input, None)
    return _quantile("median", a, 0.5, axis, "midpoint", keepdims, skip_nan=False)


@host_shortcut(_median_shortcut("nanmedian", True))
def nanmedian(a: ArrayLike, axis: Axis = None, out: None = None,
              overwrite_input: bool = False, keepdims: bool = False) -> Array:
    """The median of the non-NaN elements of ``a`` along ``axis``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.nanmedian(fnp.array([3.0, fnp.nan, 1.0]))
        Array(2., dtype=float32)
    """
    _check_unsupported("nanmedian", out, overwrite_input, None)
    return _quantile("nanmedian", a, 0.5, axis, "midpoint", keepdims, skip_nan=True)


def _nan_filled(op, a, fill):
    a = asarray_arg(op, a)
    if dtypes.is_inexact(a.dtype):
        a = where(isnan(a), convert(asarray_arg(op, fill), a.dtype, True), a)
    return a


def _nan_cumulative_on_host(scan, fill):
    """The shortcut of ``nancumsum``/``nancumprod``: NaNs replaced by ``fill`` (the general
    path's select), then ``cumsum``'s/``cumprod``'s own shortcut ``scan``."""
    def rule(a, axis=None, dtype=None, out=None):
        x = host_value(a)
        if x is None:
            return NotImplemented
        if dtypes.is_inexact(x.dtype):
            a = Array(np.where(np.isnan(x), np.asarray(fill, x.dtype), x), a._weak)
        return scan(a, axis, dtype, out)

    return rule


@host_shortcut(_nan_cumulative_on_host(_cumsum_on_host, 0))
def nancumsum(a: ArrayLike, axis: int | None = None, dtype: DTypeLike | None = None,
              out: None = None) -> Array:
    """``cumsum`` that treats NaN as zero.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.nancumsum(fnp.array([1.0, fnp.nan, 2.0]))
        Array([1., 1., 3.], dtype=float32)
    """
    return cumsum(_nan_filled("nancumsum", a, 0), axis=axis, dtype=dtype, out=out)


@host_shortcut(_nan_cumulative_on_host(_cumprod_on_host, 1))
def nancumprod(a: ArrayLike, axis: int | None = None, dtype: DTypeLike | None = None,
               out: None = None) -> Array:
    """``cumprod`` that treats NaN as one.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.nancumprod(fnp.array([2.0, fnp.nan, 3.0]))
        Array([2., 2., 6.], dtype=float32)
    """
    return cumprod(_nan_filled("nancumprod", a, 1), axis=axis, dtype=dtype, out=out)
