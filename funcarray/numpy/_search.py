"""Searching sorted arrays and binning: ``searchsorted``, ``interp``, ``bincount`` and
``histogram``.

Shapes never depend on values, as in jax.numpy: ``searchsorted`` returns one int32 index per
query, ``bincount`` needs a static ``length=`` under a transform, and ``histogram``'s number of
bins (or its edges' shape) is static. NaN sorts after every number, as in ``sort``.
On host arrays each takes a host shortcut (``transforms/host_shortcuts.py``) in its common
forms: the same formula with NumPy's kernels, its binary search where the pivots are sorted.

Example:
    >>> import funcarray.numpy as fnp
    >>> fnp.searchsorted(fnp.array([1.0, 2.0, 3.0]), fnp.array([0.5, 2.0, 9.0]))
    Array([0, 1, 3], dtype=int32)
"""

from __future__ import annotations

import builtins
from bisect import bisect_right
from typing import TYPE_CHECKING

import numpy as np

from funcarray.api.arguments import _concrete_int, asarray_arg, convert, to_inexact_dtype
from funcarray.base import dtypes
from funcarray.base.array import Array, DeviceArray, new_array
from funcarray.base.errors import op_type_error, op_value_error
from funcarray.numpy._creation import linspace, ones_like, zeros
from funcarray.numpy._elementwise import (
    abs,
    add,
    clip,
    divide,
    equal,
    greater,
    isnan,
    less,
    less_equal,
    logical_and,
    logical_or,
    multiply,
    subtract,
    where,
)
from funcarray.numpy._index_routines import take
from funcarray.numpy._math_functions import imag, real
from funcarray.numpy._predicates_and_bits import logical_not
from funcarray.numpy._promotion import promote_args, promote_args_unbroadcast
from funcarray.numpy._reductions import max, min, sum
from funcarray.numpy._rounding_and_division import floor_divide, mod
from funcarray.numpy._shape import concatenate, reshape
from funcarray.numpy._sort_and_nonzero import argsort
from funcarray.primitives import reduce as red
from funcarray.primitives.conversions import convert_kernel
from funcarray.transforms.core import Tracer
from funcarray.transforms.host_shortcuts import host_shortcut, host_value

if TYPE_CHECKING:
    from collections.abc import Sequence

    from funcarray.base.typing import ArrayLike

__all__ = ["searchsorted", "interp", "bincount", "histogram"]

_SIDES = ("left", "right")
_METHODS = ("scan", "scan_unrolled", "sort", "compare_all")


def _sort_lt(x, y):
    """``x < y`` in ``sort``'s order: NaN after every number (complex: lexicographic)."""
    if dtypes.is_complex(x.dtype):
        rx, ry, ix, iy = real(x), real(y), imag(x), imag(y)
        return logical_or(_sort_lt(rx, ry), logical_and(equal(rx, ry), _sort_lt(ix, iy)))
    if not dtypes.is_inexact(x.dtype):
        return less(x, y)
    return logical_or(less(x, y), logical_and(isnan(y), logical_not(isnan(x))))


def _goes_right(side, pivot, v):
    """Whether query ``v`` belongs after ``pivot`` (left: pivot < v; right: pivot <= v)."""
    return _sort_lt(pivot, v) if side == "left" else logical_not(_sort_lt(v, pivot))


def _search_scan(a, v, side):
    n = a.shape[0]
    lo = zeros(v.shape, dtypes.int32)
    hi = convert(Array(np.full(v.shape, n, np.int32)), dtypes.int32)
    for _ in range(n.bit_length()):  # the interval at least halves each step
        mid = floor_divide(add(lo, hi), 2)
        active = less(lo, hi)
        right = logical_and(active, _goes_right(side, take(a, mid, mode="clip"), v))
        lo = where(right, add(mid, 1), lo)
        hi = where(logical_and(active, logical_not(right)), mid, hi)
    return lo


def _search_compare_all(a, v, side):
    pivots = reshape(a, (1,) * v.ndim + (a.shape[0],))
    return sum(_goes_right(side, pivots, v[..., None]), axis=-1, dtype=dtypes.int32)


def _search_sort(a, v, side):
    # The rank of each query among queries and pivots together, less its rank among the
    # queries alone, is the number of pivots sorted before it (a stable sort puts a query
    # before equal pivots when it comes first: side="left").
    def rank(x):
        order = argsort(x)
        iota = Array(np.arange(x.shape[0], dtype=np.int32))
        return zeros(x.shape, dtypes.int32).at[order].set(iota)
    flat = reshape(v, (-1,))
    if side == "left":
        index = rank(concatenate([flat, a]))[:flat.shape[0]]
    else:
        index = rank(concatenate([a, flat]))[a.shape[0]:]
    return reshape(subtract(index, rank(flat)), v.shape)


# Up to this many pivots, their order is checked on their Python numbers (~0.3 us against
# ~1.5 us for a comparison and a reduction).
_FEW_PIVOTS = 16


def _ascending(values) -> bool:
    """Whether a 1-D host array is sorted ascending, with no NaN (NumPy's binary search and
    the general path's agree on such arrays; on others each gives its own answer)."""
    if values.shape[0] <= _FEW_PIVOTS:
        items = values.tolist()
        total = builtins.sum(items)  # (this module's sum is funcarray's)
        if total == total:  # (no NaN: a NaN, or inf beside -inf, makes the sum NaN)
            return items == sorted(items)
    if values.shape[0] < 2:
        return not (values.dtype.kind == "f" and np.isnan(values).any())
    return bool((values[:-1] <= values[1:]).all())  # (False beside any NaN)


def _searchsorted_on_host(a, v, side="left", sorter=None, *, method="scan"):
    """NumPy's binary search of a sorted host array (every ``method`` gives its result)."""
    if (sorter is not None or side not in _SIDES or method not in _METHODS
            or type(a) not in _HOST_ARRAYS or type(v) not in _HOST_QUERIES):
        return NotImplemented
    pivots, queries = a._value, host_value(v)
    if queries is not None and pivots.dtype == queries.dtype and not (a._weak or v._weak):
        dt = pivots.dtype  # (one strong dtype: nothing to promote)
    else:
        a, v = asarray_arg("searchsorted", a), asarray_arg("searchsorted", v)
        dt = dtypes.result_type(a, v)
        pivots, queries = convert_kernel(a._value, dt), convert_kernel(v._value, dt)
    if pivots.ndim != 1 or dt.kind not in "biuf" or dt.isbuiltin != 1:
        return NotImplemented  # (not complex, not ml_dtypes' types)
    if not _ascending(pivots):
        return NotImplemented
    # (the method: np.searchsorted's dispatch costs ~1 us)
    return new_array(np.asarray(pivots.searchsorted(queries, side), dtype=np.int32))


_HOST_ARRAYS = (Array, DeviceArray)
_HOST_QUERIES = (Array, DeviceArray, bool, int, float)


@host_shortcut(_searchsorted_on_host)
def searchsorted(a: ArrayLike, v: ArrayLike, side: str = "left",
                 sorter: ArrayLike | None = None, *, method: str = "scan") -> Array:
    """Where the values ``v`` would go in the sorted 1-D ``a`` to keep it sorted (int32).

    ``side="left"`` gives the first suitable position, "right" the last; ``sorter`` holds
    indices that sort ``a``. Every ``method`` gives the same result: "scan"/"scan_unrolled"
    (binary search, ``log2(len(a))`` gathers), "compare_all" (``a.size * v.size`` compares),
    "sort" (one sort of ``a`` and ``v`` together).

    Example:
        >>> import funcarray.numpy as fnp
        >>> a = fnp.array([1, 2, 2, 3])
        >>> fnp.searchsorted(a, 2), fnp.searchsorted(a, 2, side="right")
        (Array(1, dtype=int32), Array(3, dtype=int32))
    """
    op = "searchsorted"
    if side not in _SIDES:
        raise op_value_error(op, f"side must be 'left' or 'right', got {side!r}")
    if method not in _METHODS:
        raise op_value_error(op, f"method must be one of {', '.join(map(repr, _METHODS))}, "
                                 f"got {method!r}")
    a, v = asarray_arg(op, a), asarray_arg(op, v)
    if a.ndim != 1:
        raise op_value_error(op, f"the sorted array a must be 1-D, got shape {tuple(a.shape)}; "
                                 f"search each row with fa.vmap, or ravel it first")
    if sorter is not None:
        sorter = asarray_arg(op, sorter)
        if sorter.shape != a.shape or sorter.dtype.kind not in "iu":
            raise op_value_error(op, f"sorter must be integer indices of a's shape "
                                     f"{tuple(a.shape)}, got {sorter.dtype} {tuple(sorter.shape)}")
        a = take(a, sorter)
    try:
        dt = dtypes.result_type(a, v)
    except TypeError as exc:
        raise op_type_error(op, str(exc)) from None
    a, v = convert(a, dt), convert(v, dt)
    if a.shape[0] == 0:
        return zeros(v.shape, dtypes.int32)
    if method == "compare_all":
        return _search_compare_all(a, v, side)
    if method == "sort":
        return _search_sort(a, v, side)
    return _search_scan(a, v, side)


def _extrapolate(op, name, value):
    if isinstance(value, str):
        if value != "extrapolate":
            raise op_value_error(op, f"the only string {name}= accepts is 'extrapolate', "
                                     f"got {value!r}")
        return True
    return False


_REAL_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))

# Up to this many points interp runs point by point on scalars: ~0.5 us a point (float64) or
# ~1.5 us (float32), against ~30 us for the array formula's twenty-odd ufunc calls.
_FEW_POINTS = 32
_FLOAT64 = np.dtype(np.float64)
# The general path's bound below which a step of xp counts as zero (numpy.spacing(eps)).
_TINY_STEP = {dt: dt.type(float(dtypes.finfo(dt).eps) ** 2) for dt in _REAL_FLOATS}


def _interp_on_host(x, xp, fp, left=None, right=None, period=None):
    # The common form (three strong host float arrays, fp of the dtype x and xp promote to,
    # xp ascending without NaN, no left/right/period): the general path's formula, its
    # search by NumPy's binary search or bisect (they agree with it on such xp).
    xv, xpv, fpv = host_value(x), host_value(xp), host_value(fp)
    if (xv is None or xpv is None or fpv is None or left is not None or right is not None
            or period is not None or x._weak or xp._weak or fp._weak):
        return NotImplemented
    dt = xv.dtype
    if xpv.dtype != dt:  # (two strong floats: the wider, as the general path promotes them)
        if dt not in _REAL_FLOATS or xpv.dtype not in _REAL_FLOATS:
            return NotImplemented
        dt = _FLOAT64
    if (dt not in _REAL_FLOATS or fpv.dtype != dt or xpv.ndim != 1
            or fpv.shape != xpv.shape or not xpv.shape[0]):
        return NotImplemented
    if xv.size <= _FEW_POINTS and xpv.shape[0] <= _FEW_POINTS:
        f = _interp_point_by_point(xv, xpv, fpv, dt)
        if f is not None:
            return Array(f, False)
    xv, xpv = xv.astype(dt, copy=False), xpv.astype(dt, copy=False)  # (exact)
    if not _ascending(xpv):
        return NotImplemented
    return Array(_interp_arrays(xv, xpv, fpv, _TINY_STEP[dt]), False)


def _interp_point_by_point(xv, xpv, fpv, dt):
    """The general path's formula on each point's scalars: Python floats for float64, NumPy
    float32 scalars for float32 (each operation rounds as the float32 kernels do), compared
    as Python floats (exact). None where xp is not plainly ascending or a result is NaN (its
    sign may differ from the ufunc loops'): the array formula decides those."""
    keys, pivots = xv.ravel().tolist(), xpv.tolist()  # (float32 values are exact doubles)
    total = builtins.sum(pivots)
    if total != total or pivots != sorted(pivots):  # (a NaN, or inf beside -inf, in xp)
        return None
    if dt == _FLOAT64:
        points, xps, fps, tiny_step = keys, pivots, fpv.tolist(), float(_TINY_STEP[dt])
    else:
        points, xps, fps, tiny_step = list(xv.ravel()), list(xpv), list(fpv), _TINY_STEP[dt]
    last = len(pivots) - 1
    top = builtins.max(last, 1)
    out = []
    for key, v in zip(keys, points):
        if key < pivots[0]:
            out.append(fps[0])
        elif key > pivots[last]:
            out.append(fps[last])
        else:
            # the segment the general path picks: searchsorted "right", at most top
            i = bisect_right(pivots, key)
            i = top if i > top else i
            lo, hi = i - 1, (i if i < last else last)
            f_lo, x_lo, dx = fps[lo], xps[lo], xps[hi] - xps[lo]
            if builtins.abs(dx) <= tiny_step:
                out.append(f_lo)
            else:
                out.append(f_lo + ((v - x_lo) / dx) * (fps[hi] - f_lo))
    total = builtins.sum(out)
    if total != total and builtins.any(v != v for v in out):  # (inf beside -inf sums to NaN)
        return None
    f = np.array(out, dt)
    return f if xv.ndim == 1 else f.reshape(xv.shape)


def _interp_arrays(xv, xpv, fpv, tiny_step):
    """The general path's formula with its ufuncs, in place. Each segment's operands
    (``x_lo``, ``f_lo``, the steps) are computed once per segment and gathered: the same
    values as gathering the ends and subtracting per point."""
    n = xpv.shape[0]
    # Tables indexed by searchsorted's answer s in [0, n]; the segment is s clipped to
    # [1, max(n - 1, 1)], its ends lo = segment - 1 and hi = min(segment, n - 1).
    segment = np.arange(n + 1)
    segment[0], segment[n] = 1, builtins.max(n - 1, 1)
    lo = segment - 1
    hi = segment if n > 1 else lo
    x_lo, f_lo = xpv[lo], fpv[lo]
    df, dx = np.subtract(fpv[hi], f_lo), np.subtract(xpv[hi], x_lo)
    flat = np.less_equal(np.abs(dx), tiny_step)  # (the general path's dx0: f is f_lo)
    step = np.where(flat, xpv.dtype.type(1), dx)
    # Points left of xp[0] (s == 0, as x < xp[0] for every non-NaN x) get f_lo = fp[0] too.
    flat[0] = True
    s = np.searchsorted(xpv, xv, "right").ravel()
    f_lo_s = f_lo.take(s)
    f = np.subtract(xv.ravel(), x_lo.take(s))
    np.divide(f, step.take(s), out=f)  # (div_p's kernel for floats)
    np.multiply(f, df.take(s), out=f)
    np.add(f_lo_s, f, out=f)
    np.putmask(f, flat.take(s), f_lo_s)
    np.putmask(f, np.greater(xv.ravel(), xpv[-1]), fpv[-1])
    return f.reshape(xv.shape)


@host_shortcut(_interp_on_host)
def interp(x: ArrayLike, xp: ArrayLike, fp: ArrayLike, left: ArrayLike | str | None = None,
           right: ArrayLike | str | None = None, period: ArrayLike | None = None) -> Array:
    """Piecewise-linear interpolation of the points ``(xp, fp)`` (``xp`` increasing) at ``x``.

    Outside ``[xp[0], xp[-1]]`` the result is ``left``/``right`` (default ``fp[0]``/
    ``fp[-1]``), or the end segment extended when they are ``"extrapolate"``. With ``period``
    the points repeat with that period. Differentiable in ``x``, ``xp`` and ``fp``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.interp(fnp.array([0.5, 1.5, 9.0]), fnp.array([0.0, 1.0, 2.0]),
        ...            fnp.array([0.0, 10.0, 0.0]))
        Array([5., 5., 0.], dtype=float32)
    """
    op = "interp"
    x_arg = x  # (a Python float is promoted with xp as itself: float64 keeps its precision)
    x, xp, fp = asarray_arg(op, x), asarray_arg(op, xp), asarray_arg(op, fp)
    if xp.ndim != 1 or fp.shape != xp.shape:
        raise op_value_error(op, f"xp and fp must be 1-D arrays of one length, got shapes "
                                 f"{tuple(xp.shape)} and {tuple(fp.shape)}")
    if xp.shape[0] == 0:
        raise op_value_error(op, "xp and fp must not be empty")
    extrapolate_left = _extrapolate(op, "left", left)
    extrapolate_right = _extrapolate(op, "right", right)
    if dtypes.is_complex(x.dtype) or dtypes.is_complex(xp.dtype):
        raise op_type_error(op, f"x and xp must be real, got dtypes {x.dtype} and {xp.dtype}")
    x, xp = promote_args_unbroadcast(
        op, x_arg if isinstance(x_arg, (int, float)) else x, xp)
    if not dtypes.is_inexact(x.dtype):
        dt = to_inexact_dtype(x.dtype)
        x, xp = convert(x, dt, x.weak_type), convert(xp, dt, xp.weak_type)
    if not dtypes.is_inexact(fp.dtype):
        fp = convert(fp, to_inexact_dtype(fp.dtype), fp.weak_type)
    if period is not None:
        period_shape = asarray_arg(op, period).shape
        if period_shape:
            raise op_value_error(op, f"period must be a scalar, got shape {period_shape}")
        # (A Python number stays one, so float64 points meet it at float64's precision.)
        period = builtins.abs(period) if isinstance(period, (int, float)) else abs(
            asarray_arg(op, period))
        x, xp = mod(x, period), mod(xp, period)
        order = argsort(xp)
        xp, fp = take(xp, order), take(fp, order)
        xp = concatenate([subtract(xp[-1:], period), xp, add(xp[:1], period)])
        fp = concatenate([fp[-1:], fp, fp[:1]])
    n = xp.shape[0]
    i = clip(searchsorted(xp, x, side="right"), 1, builtins.max(n - 1, 1))
    lo, hi = subtract(i, 1), i  # hi clamps to lo when n == 1 (then dx == 0)
    f_lo, x_lo = take(fp, lo, mode="clip"), take(xp, lo, mode="clip")
    df, dx = subtract(take(fp, hi, mode="clip"), f_lo), subtract(take(xp, hi, mode="clip"), x_lo)
    eps = float(dtypes.finfo(xp.dtype).eps) ** 2  # numpy.spacing(eps): no NaN gradients
    dx0 = less_equal(abs(dx), eps)
    f = where(dx0, f_lo, add(f_lo, multiply(divide(subtract(x, x_lo), where(dx0, 1, dx)), df)))
    if period is None:
        if not extrapolate_left:
            f = where(less(x, xp[0]), fp[0] if left is None else left, f)
        if not extrapolate_right:
            f = where(greater(x, xp[-1]), fp[-1] if right is None else right, f)
    return f


def _bincount_on_host(x, weights=None, minlength=0, *, length=None):
    """NumPy's count of a host integer vector without weights (exact, as the general path's
    integer scatter-add), with jax's bins: negatives in bin 0, values >= length dropped."""
    if (weights is not None or type(x) not in _HOST_ARRAYS or type(minlength) is not int
            or minlength < 0 or not (length is None or (type(length) is int and length >= 0))):
        return NotImplemented
    values = x._value
    # (uint64 and weak operands take the general path, whose clip and scatter treat them
    # their own way: a uint64 above 2**63 wraps to a negative position there)
    if values.ndim != 1 or values.dtype.kind not in "biu" or values.dtype == np.uint64 or (
            x._weak):
        return NotImplemented
    if length is None:
        try:
            # Without a negative value, NumPy's own length is jax's: max(minlength, max + 1).
            return Array(np.bincount(values, minlength=minlength).astype(dtypes.default_int))
        except ValueError:  # (a negative value)
            pass
        length = builtins.max(minlength, int(values.max()) + 1 if values.size else 0)
        # (no value reaches length: negatives alone need moving, to bin 0)
        bins = np.maximum(values, values.dtype.type(0)) if values.dtype.kind == "i" else values
        return Array(np.bincount(bins, minlength=length)[:length].astype(dtypes.default_int))
    # Values past length go to bin length, cut off below: a huge value never sizes the count.
    bins = np.clip(values.astype(np.int64), 0, length)
    counts = np.bincount(bins, minlength=length + 1)[:length]
    return Array(counts.astype(dtypes.default_int))


@host_shortcut(_bincount_on_host)
def bincount(x: ArrayLike, weights: ArrayLike | None = None, minlength: int = 0, *,
             length: int | None = None) -> Array:
    """How often each value ``0, 1, ..., length - 1`` occurs in the 1-D integer ``x`` (summing
    ``weights`` instead of ones when given).

    As in jax.numpy, negative values count in bin 0 and values ``>= length`` are dropped.
    ``length`` defaults to ``max(minlength, x.max() + 1)``, which needs a concrete ``x``:
    under ``jit``/``vmap``/``grad`` pass ``length=``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.bincount(fnp.array([0, 1, 1, 3]))
        Array([1, 2, 0, 1], dtype=int32)
        >>> fnp.bincount(fnp.array([0, 1, 1]), weights=fnp.array([0.5, 1.0, 2.0]), length=3)
        Array([0.5, 3. , 0. ], dtype=float32)
    """
    op = "bincount"
    x = asarray_arg(op, x)
    if x.dtype == dtypes.bool_:
        x = convert(x, dtypes.int32)
    if not dtypes.is_integer(x.dtype):
        raise op_type_error(op, f"x must be an integer array, got dtype {x.dtype}; convert "
                                f"it first, e.g. x.astype(fnp.int32)")
    if x.ndim != 1:
        raise op_value_error(op, f"x must be 1-D, got shape {tuple(x.shape)}; ravel it first")
    minlength = _concrete_int(op, minlength, "minlength")
    if minlength < 0:
        raise op_value_error(op, f"minlength must be non-negative, got {minlength}")
    if length is None:
        if isinstance(x, Tracer):
            raise op_type_error(
                op, f"the number of bins depends on the values of the traced {x.aval}; pass a "
                    f"static length=, e.g. fnp.bincount(x, length=10)")
        values = np.asarray(x)
        length = builtins.max(minlength, int(values.max()) + 1 if values.size else 0)
    else:
        length = _concrete_int(op, length, "length")
        if length < 0:
            raise op_value_error(op, f"length must be non-negative, got {length}")
    if weights is None:
        weights = Array(np.ones((), dtypes.default_int))
    else:
        weights = asarray_arg(op, weights)
        if weights.dtype == dtypes.bool_:  # (summed: bools have no sum, as in jax.numpy)
            raise op_type_error(op, "weights must be numbers, got dtype bool; convert them "
                                    "first, e.g. weights.astype(fnp.int32)")
        if weights.shape != x.shape:
            raise op_value_error(op, f"weights must have x's shape {tuple(x.shape)}, got "
                                     f"{tuple(weights.shape)}")
    return zeros(length, weights.dtype).at[clip(x, 0)].add(weights, mode="drop")


def _bin_edges(op, a, bins, range):
    dt = a.dtype
    if isinstance(bins, str):
        raise op_value_error(op, f"string bins ({bins!r}) are not supported; pass a number of "
                                 f"bins or the bin edges")
    if np.ndim(bins) == 1:
        edges = asarray_arg(op, bins, dt)
        if edges.shape[0] < 1:  # (one edge: no bins, as in NumPy and jax.numpy)
            raise op_value_error(op, f"bins needs at least 1 edge, got {edges.shape[0]}")
        return edges
    if np.ndim(bins) != 0:
        raise op_value_error(op, f"bins must be an int or 1-D edges, got shape {np.shape(bins)}")
    count = _concrete_int(op, bins, "bins")
    if count < 1:
        raise op_value_error(op, f"bins must be positive, got {count}")
    if range is None:
        if a.size == 0:
            lo, hi = Array(np.zeros((), dt)), Array(np.ones((), dt))
        else:
            lo, hi = min(a), max(a)
    else:
        if np.shape(range) != (2,):
            raise op_value_error(op, f"range must be a pair (low, high), got {range!r}")
        lo, hi = (asarray_arg(op, r, dt) for r in range)
    same = equal(lo, hi)
    lo, hi = where(same, subtract(lo, 0.5), lo), where(same, add(hi, 0.5), hi)
    return linspace(lo, hi, count + 1, dtype=dt)


def _histogram_on_host(a, bins=10, range=None, weights=None, density=None):  # noqa: A002
    # The common form (a strong real host array, a number of bins, no range/weights/
    # density): the general path's edges (its min, max and linspace), and its scatter-add of
    # ones as a count (exact: float32/float64 counts below 2**24).
    x = host_value(a)
    if (x is None or a._weak or type(bins) is not int or bins < 1 or range is not None
            or weights is not None or density is not None and density is not False
            or x.dtype.kind not in "biuf" or x.size >= 2**24):
        return NotImplemented
    dt = np.dtype(to_inexact_dtype(x.dtype))
    if dt not in _REAL_FLOATS:
        return NotImplemented
    x = convert_kernel(x, dt).reshape(-1)
    if x.size:
        lo, hi = red.reduce_min_p.kernel(x, axes=(0,)), red.reduce_max_p.kernel(x, axes=(0,))
    else:
        lo, hi = np.zeros((), dt), np.ones((), dt)
    same = np.equal(lo, hi)
    lo = np.where(same, np.subtract(lo, dt.type(0.5)), lo)
    hi = np.where(same, np.add(hi, dt.type(0.5)), hi)
    edges = linspace(Array(lo), Array(hi), bins + 1, dtype=dt)
    ev = edges._value
    if not _ascending(ev):
        return NotImplemented
    n = ev.shape[0]
    index = np.where(np.equal(x, ev[-1]), n - 1, np.searchsorted(ev, x, "right"))
    counts = np.bincount(index, minlength=n + 1)[1:n].astype(dt)
    return Array(counts, False), edges


@host_shortcut(_histogram_on_host)
def histogram(a: ArrayLike, bins: ArrayLike = 10, range: Sequence[ArrayLike] | None = None,  # noqa: A002
              weights: ArrayLike | None = None, density: bool | None = None
              ) -> tuple[Array, Array]:
    """Counts of the values of ``a`` (flattened) in ``bins`` and the bin edges.

    ``bins`` is a static number of equal bins over ``range`` (default: ``a``'s min and max)
    or the 1-D edges. Bins are half-open except the last, which includes its right edge;
    values outside are not counted. Counts are floats (``weights``' dtype), as in jax.numpy;
    ``density=True`` normalises them to integrate to 1.

    Example:
        >>> import funcarray.numpy as fnp
        >>> counts, edges = fnp.histogram(fnp.array([1.0, 2.0, 2.0, 4.0]), bins=3)
        >>> counts
        Array([1., 2., 1.], dtype=float32)
        >>> edges
        Array([1., 2., 3., 4.], dtype=float32)
    """
    op = "histogram"
    a = asarray_arg(op, a)
    if dtypes.is_complex(a.dtype):
        raise op_type_error(op, f"a must be real, got dtype {a.dtype}")
    if weights is None:
        a = convert(a, to_inexact_dtype(a.dtype), a.weak_type)
        weights = ones_like(a)
    else:
        weights = asarray_arg(op, weights)
        if weights.shape != a.shape:
            raise op_value_error(op, f"weights must have a's shape {tuple(a.shape)}, got "
                                     f"{tuple(weights.shape)}")
        a, weights = promote_args(op, a, weights)
        if not dtypes.is_inexact(a.dtype):
            dt = to_inexact_dtype(a.dtype)
            a, weights = convert(a, dt, a.weak_type), convert(weights, dt, weights.weak_type)
    edges = _bin_edges(op, a, bins, range)
    a, weights = reshape(a, (-1,)), reshape(weights, (-1,))
    n = edges.shape[0]
    index = where(equal(a, edges[-1]), n - 1, searchsorted(edges, a, side="right"))
    counts = zeros(n, weights.dtype).at[index].add(weights, mode="drop")[1:]
    if density:
        widths = subtract(edges[1:], edges[:-1])
        counts = divide(divide(counts, widths), sum(counts))
    return counts, edges
