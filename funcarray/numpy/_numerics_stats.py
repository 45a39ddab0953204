"""The statistical half of ``funcarray.numpy``'s numerical helpers: binning (``digitize``,
``histogram_bin_edges``, ``histogram2d``, ``histogramdd``), ``cov``/``corrcoef`` and the
window functions (see ``_numerics``'s docstring for the design).

Example:
    >>> import funcarray.numpy as fnp
    >>> fnp.digitize(fnp.array([0.2, 1.5]), fnp.array([0.0, 1.0, 2.0]))
    Array([1, 2], dtype=int32)
"""

from __future__ import annotations

import builtins
import math
from typing import TYPE_CHECKING

import numpy as np

from funcarray.api.arguments import _concrete_int
from funcarray.base import dtypes
from funcarray.base.array import Array, DeviceArray
from funcarray.base.errors import op_type_error, op_value_error
from funcarray.numpy._array_ops import diff
from funcarray.numpy._creation import arange, full, ones, zeros
from funcarray.numpy._diagonals import diagonal
from funcarray.numpy._elementwise import abs as _abs
from funcarray.numpy._elementwise import clip, divide, where
from funcarray.numpy._index_tricks import ravel_multi_index
from funcarray.numpy._math_functions import conj, cos, imag, real, sqrt
from funcarray.numpy._numerics import _check_real_float, _promote
from funcarray.numpy._reductions import average
from funcarray.numpy._reductions import sum as _sum
from funcarray.numpy._search import (
    _bin_edges,  # (histogram's own rule)
    bincount,
    searchsorted,
)
from funcarray.numpy._shape import atleast_2d, concatenate, squeeze, stack
from funcarray.primitives.conversions import convert_kernel
from funcarray.primitives.elementwise import div_p
from funcarray.primitives.reduce import reduce_max_p, reduce_min_p, reduce_sum_p
from funcarray.transforms.host_shortcuts import host_shortcut, host_value

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from funcarray.base.typing import ArrayLike, DTypeLike

__all__ = ["digitize", "histogram_bin_edges", "histogram2d", "histogramdd", "cov", "corrcoef",
           "bartlett", "blackman", "hamming", "hanning", "kaiser", "i0"]


# --------------------------------------------------------------------------------------------
# Binning
# --------------------------------------------------------------------------------------------

def _digitize_on_host(x, bins, right=False, *, method=None):
    # Host arrays of one integer or float dtype, 1-D non-empty ordered edges: the general
    # path's formula (a search of the edges, or of them reversed when decreasing) with NumPy's
    # searchsorted, which places values (NaN last) as the general path's search does.
    if (type(x) is not Array and type(x) is not DeviceArray) or (
            type(bins) is not Array and type(bins) is not DeviceArray) or method is not None or (
            right is not False and right is not True):
        return NotImplemented
    values, edges = x._value, bins._value
    if edges.ndim != 1 or not edges.shape[0] or edges.dtype != values.dtype or (
            values.dtype.kind not in "iuf"):
        return NotImplemented
    # Unordered edges (NaN edges among them) take the general path: a search of them gives
    # what that search's steps give, not NumPy's.
    side = "left" if right else "right"
    if edges[-1] >= edges[0]:  # (the general path's choice of direction)
        if not (edges[1:] >= edges[:-1]).all():
            return NotImplemented
        index = np.searchsorted(edges, values, side=side)
    else:
        if not (edges[1:] <= edges[:-1]).all():
            return NotImplemented
        index = edges.shape[0] - np.searchsorted(edges[::-1], values, side=side)
    return Array(np.asarray(index, np.int32), False)


@host_shortcut(_digitize_on_host)
def digitize(x: ArrayLike, bins: ArrayLike, right: bool = False, *,
             method: str | None = None) -> Array:
    """The index of the bin each value of ``x`` falls in, for monotonic (increasing or
    decreasing) 1-D ``bins`` edges; ``right`` puts values equal to an edge in the bin on its
    left. int32.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.digitize(fnp.array([0.5, 1.0, 2.5, 9.0]), fnp.array([1.0, 2.0, 3.0]))
        Array([0, 1, 2, 3], dtype=int32)
    """
    op = "digitize"
    from funcarray.api.arguments import asarray_arg
    x, bins = asarray_arg(op, x), asarray_arg(op, bins)
    if bins.ndim != 1:
        raise op_value_error(op, f"bins must be a 1-D array of edges, got shape "
                                 f"{tuple(bins.shape)}")
    if bins.shape[0] == 0:
        return zeros(x.shape, dtypes.int32)
    side = "left" if right else "right"
    kwargs = {} if method is None else {"method": method}
    increasing = searchsorted(bins, x, side=side, **kwargs)
    decreasing = bins.shape[0] - searchsorted(bins[::-1], x, side=side, **kwargs)
    return where(bins[-1] >= bins[0], increasing, decreasing).astype(dtypes.int32)


def _histogram_bin_edges_on_host(a, bins=10, range=None, weights=None):  # noqa: A002
    """A host array and a Python-int number of bins over its own range: the general path's
    kernels (conversion, min and max reductions, the widening of an empty range by 0.5)
    and linspace's formula (``logspace``'s shortcut computes it too)."""
    from funcarray.api.arguments import to_inexact_dtype
    from funcarray.numpy._vectorize_and_constructors import _linspace_values
    v = host_value(a)
    if v is None or type(bins) is not int or bins < 1 or range is not None:
        return NotImplemented
    dt = to_inexact_dtype(v.dtype)
    v = convert_kernel(v, dt)
    if v.size == 0:
        lo, hi = np.zeros((), dt), np.ones((), dt)
    else:
        axes = tuple(builtins.range(v.ndim))
        lo, hi = reduce_min_p.kernel(v, axes=axes), reduce_max_p.kernel(v, axes=axes)
    same, half = np.equal(lo, hi), np.asarray(0.5, dt)
    lo, hi = np.where(same, np.subtract(lo, half), lo), np.where(same, np.add(hi, half), hi)
    return Array(_linspace_values(lo, hi, bins + 1, True, dt))


@host_shortcut(_histogram_bin_edges_on_host)
def histogram_bin_edges(a: ArrayLike, bins: ArrayLike = 10,  # noqa: A002
                        range: Sequence[ArrayLike] | None = None,
                        weights: ArrayLike | None = None) -> Array:
    """The edges ``histogram`` would use: ``bins`` equal bins over ``range`` (default
    ``a``'s min and max, widened by 0.5 each side when they are equal), or ``bins`` itself
    when it is 1-D. ``weights`` is ignored.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.histogram_bin_edges(fnp.array([1.0, 2.0, 5.0]), bins=4)
        Array([1., 2., 3., 4., 5.], dtype=float32)
    """
    from funcarray.api.arguments import asarray_arg, convert, to_inexact_dtype

    a = asarray_arg("histogram_bin_edges", a)
    return _bin_edges("histogram_bin_edges", convert(a, to_inexact_dtype(a.dtype)), bins, range)


def histogramdd(sample: ArrayLike, bins: ArrayLike | Sequence[ArrayLike] = 10,  # noqa: A002
                range: Sequence[Any] | None = None, weights: ArrayLike | None = None,
                density: bool | None = None) -> tuple[Array, list[Array]]:
    """The histogram of ``N`` points in ``D`` dimensions (``sample`` of shape ``(N, D)``):
    ``(counts, [edges per dimension])``. ``bins`` and ``range`` are as in ``histogram``, for
    all dimensions or one per dimension. Counts are int32 without ``weights`` (as in
    jax.numpy), floats with them or with ``density``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> points = fnp.array([[0.0, 0.0], [1.0, 1.0], [1.0, 0.0]])
        >>> counts, edges = fnp.histogramdd(points, bins=2)
        >>> counts
        Array([[1, 0],
               [1, 1]], dtype=int32)
    """
    op = "histogramdd"
    if weights is None:
        (sample,) = _promote(op, sample, inexact=True)
    else:
        sample, weights = _promote(op, sample, weights, inexact=True)
        if weights.shape != sample.shape[:1]:
            raise op_value_error(op, f"weights needs one weight per sample "
                                     f"({sample.shape[0]}), got shape {tuple(weights.shape)}")
    if sample.ndim != 2:
        raise op_value_error(op, f"sample must have shape (N, D), got {tuple(sample.shape)}")
    _check_real_float(op, sample, "sample")
    n_dims = sample.shape[1]
    if range is not None and (len(range) != n_dims or builtins.any(
            r is not None and np.shape(r)[0] != 2 for r in range)):
        raise op_value_error(op, f"for sample of shape {tuple(sample.shape)}, range must be a "
                                 f"sequence of {n_dims} pairs or Nones, got {range!r}")
    try:
        per_dim = list(bins)
    except TypeError:
        per_dim = [bins] * n_dims
    if len(per_dim) != n_dims:
        raise op_value_error(op, f"bins needs one entry per dimension ({n_dims}), got "
                                 f"{len(per_dim)}")
    indices, edges = [], []
    for d in builtins.range(n_dims):
        column = sample[:, d]
        edge = histogram_bin_edges(column, per_dim[d], None if range is None else range[d])
        index = searchsorted(edge, column, side="right")
        # Values on the last edge belong to the last bin.
        indices.append(where(column == edge[-1], index - 1, index))
        edges.append(edge)
    # Bin 0 and bin len(edges) hold the values outside; they are sliced off at the end.
    shape = tuple(e.shape[0] + 1 for e in edges)
    flat = ravel_multi_index(tuple(indices), shape, mode="clip")
    hist = bincount(flat, weights, length=math.prod(shape)).reshape(shape)
    hist = hist[(slice(1, -1),) * n_dims]
    if density:
        hist = hist.astype(sample.dtype)
        hist = hist / _sum(hist)
        for d, edge in enumerate(edges):
            width = diff(edge).reshape(tuple(-1 if i == d else 1
                                                 for i in builtins.range(n_dims)))
            hist = hist / width
    return hist, edges


def histogram2d(x: ArrayLike, y: ArrayLike, bins: ArrayLike | Sequence[ArrayLike] = 10,  # noqa: A002
                range: Sequence[Any] | None = None, weights: ArrayLike | None = None,
                density: bool | None = None) -> tuple[Array, Array, Array]:
    """The 2-D histogram of the points ``(x, y)``: ``(counts, x_edges, y_edges)``. ``bins``
    is one number or edge array for both, or a pair.

    Example:
        >>> import funcarray.numpy as fnp
        >>> counts, xe, ye = fnp.histogram2d(fnp.array([0.0, 1.0, 1.0]),
        ...                                  fnp.array([0.0, 1.0, 0.0]), bins=2)
        >>> counts
        Array([[1, 0],
               [1, 1]], dtype=int32)
    """
    op = "histogram2d"
    from funcarray.api.arguments import asarray_arg
    x, y = asarray_arg(op, x), asarray_arg(op, y)
    if x.ndim != 1 or x.shape != y.shape:
        raise op_value_error(op, f"x and y must be 1-D of one length, got shapes "
                                 f"{tuple(x.shape)} and {tuple(y.shape)}")
    try:
        count = len(bins)
    except TypeError:
        count = 1
    if count not in (1, 2):
        bins = [bins, bins]
    hist, edges = histogramdd(stack([x, y], axis=1), bins, range, weights, density)
    return hist, edges[0], edges[1]


# --------------------------------------------------------------------------------------------
# Statistics
# --------------------------------------------------------------------------------------------

def _check_dtype(op, dtype):
    if dtype is not None and not dtypes.is_inexact(np.dtype(dtype)):
        raise op_value_error(op, f"dtype must be a float or complex dtype, got {dtype}")


def _weights(op, w, n, kind):
    from funcarray.api.arguments import asarray_arg
    w = asarray_arg(op, w)
    if w.ndim != 1 or w.shape[0] != n:
        raise op_value_error(op, f"{kind} must be 1-D with one weight per observation ({n}), "
                                 f"got shape {tuple(w.shape)}")
    if kind == "fweights" and not dtypes.is_integer(w.dtype):
        raise op_type_error(op, f"fweights must be integers (repeat counts), got {w.dtype}")
    return _abs(w)


_REAL_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _cov_value(m, y, rowvar, bias, ddof, fweights, aweights, dtype):
    """The covariance matrix (before its squeeze) of the common form: a strong float32/
    float64 host array of 1 or 2 dimensions with observations, nothing else; None
    otherwise. The general path's kernels in its order: ``average``'s sum and division by
    the count, the centring subtraction, the matrix product (NumPy's dot, as for the general
    path's ``x @ x.T``) and the division by the Python-int ``N - ddof`` converted to the
    dtype."""
    v = host_value(m)
    if (v is None or m._weak or v.dtype not in _REAL_FLOATS or not 1 <= v.ndim <= 2
            or y is not None or rowvar is not True or bias is not False
            or not (ddof is None or type(ddof) is int) or fweights is not None
            or aweights is not None or dtype is not None):
        return None
    x = v.reshape(1, -1) if v.ndim == 1 else v
    if x.shape[0] == 0 or x.shape[1] == 0:
        return None
    factor = x.shape[1] - (1 if ddof is None else ddof)
    # average without weights: the sum kernel over the observations, divided by their count
    # (made in the dtype: exact below 2**24 observations, so declined above)
    if x.shape[1] >= 1 << 24:
        return None
    total = reduce_sum_p.kernel(x, axes=(1,))
    avg = div_p.kernel(total, np.full(total.shape, x.shape[1], x.dtype))
    x = np.subtract(x, avg[:, None])
    return np.divide(np.dot(x, x.T), np.asarray(factor, x.dtype))


def _cov_on_host(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None,
                 aweights=None, dtype=None):
    c = _cov_value(m, y, rowvar, bias, ddof, fweights, aweights, dtype)
    return NotImplemented if c is None else Array(np.squeeze(c))


def _corrcoef_on_host(x, y=None, rowvar=True, dtype=None):
    """``cov``'s shortcut, then the general path's kernels: the square roots of the
    diagonal, two divisions and the clip to [-1, 1] (a maximum, then a minimum)."""
    c = _cov_value(x, y, rowvar, False, None, None, None, dtype)
    if c is None:
        return NotImplemented
    c = np.squeeze(c)
    if c.ndim == 0:
        return Array(np.divide(c, c))
    std = np.sqrt(np.diagonal(c))
    c = np.divide(np.divide(c, std[:, None]), std[None, :])
    return Array(np.minimum(np.maximum(c, np.asarray(-1, c.dtype)), np.asarray(1, c.dtype)))


@host_shortcut(_cov_on_host)
def cov(m: ArrayLike, y: ArrayLike | None = None, rowvar: bool = True, bias: bool = False,
        ddof: int | None = None, fweights: ArrayLike | None = None,
        aweights: ArrayLike | None = None, dtype: DTypeLike | None = None) -> Array:
    """The covariance matrix of the variables in the rows of ``m`` (columns if not
    ``rowvar``), with ``y``'s variables appended; normalised by ``N - 1`` (``N`` with
    ``bias``, or ``N - ddof``). ``fweights`` repeat observations, ``aweights`` weigh them.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.cov(fnp.array([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]]))
        Array([[ 1., -1.],
               [-1.,  1.]], dtype=float32)
    """
    op = "cov"
    _check_dtype(op, dtype)
    if y is not None:
        m, y = _promote(op, m, y, inexact=True)
        if y.ndim > 2:
            raise op_value_error(op, f"y has more than 2 dimensions: shape {tuple(y.shape)}")
    else:
        (m,) = _promote(op, m, inexact=True)
    if m.ndim > 2:
        raise op_value_error(op, f"m has more than 2 dimensions: shape {tuple(m.shape)}")
    x = atleast_2d(m)
    if not rowvar and m.ndim != 1:
        x = x.T
    if x.shape[0] == 0:
        return zeros((0, 0), x.dtype)
    if y is not None:
        y = atleast_2d(y)
        if not rowvar and y.shape[0] != 1:
            y = y.T
        if y.shape[1] != x.shape[1]:
            raise op_value_error(op, f"m and y need the same number of observations, got "
                                     f"{x.shape[1]} and {y.shape[1]}")
        x = concatenate([x, y], axis=0)
    if x.shape[1] == 0:
        return full(() if x.shape[0] == 1 else (x.shape[0],) * 2, np.nan, x.dtype)
    if ddof is None:
        ddof = 0 if bias else 1
    w = None
    if fweights is not None:
        w = _weights(op, fweights, x.shape[1], "fweights")
    if aweights is not None:
        aweights = _weights(op, aweights, x.shape[1], "aweights")
        w = aweights if w is None else w * aweights
    if dtype is not None:
        x = x.astype(dtype)
        w = None if w is None else w.astype(dtype)
    avg, w_sum = average(x, axis=1, weights=w, returned=True)
    w_sum = w_sum[0]
    if w is None:
        factor = x.shape[1] - ddof
    elif ddof == 0:
        factor = w_sum
    elif aweights is None:
        factor = w_sum - ddof
    else:
        factor = w_sum - ddof * _sum(w * aweights) / w_sum
    x = x - avg[:, None]
    x_t = x.T if w is None else (x * w[None, :]).T
    return squeeze(divide(x @ conj(x_t), factor))


@host_shortcut(_corrcoef_on_host)
def corrcoef(x: ArrayLike, y: ArrayLike | None = None, rowvar: bool = True,
             dtype: DTypeLike | None = None) -> Array:
    """The Pearson correlation coefficients: ``cov`` normalised by the standard deviations
    (clipped to [-1, 1]).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.corrcoef(fnp.array([1.0, 2.0, 3.0]), fnp.array([1.0, 5.0, 3.0]))
        Array([[1. , 0.5],
               [0.5, 1. ]], dtype=float32)
    """
    op = "corrcoef"
    _check_dtype(op, dtype)
    c = cov(x, y, rowvar, dtype=dtype)
    if c.ndim == 0:
        return c / c
    std = sqrt(real(diagonal(c))).astype(c.dtype)
    c = c / std[:, None] / std[None, :]
    if dtypes.is_complex(c.dtype):
        from funcarray import lax
        return lax.complex(clip(real(c), -1, 1), clip(imag(c), -1, 1))
    return clip(c, -1, 1)


# --------------------------------------------------------------------------------------------
# Windows
# --------------------------------------------------------------------------------------------

def _window(op, M, formula):
    M = _concrete_int(op, M, "M")
    dt = dtypes.default_float
    if M <= 1:
        return ones((builtins.max(M, 0),), dt)
    return formula(arange(M, dtype=dt), M)


# The formulas take their cos and abs: funcarray's on the general path, and on the host path
# the NumPy kernels of those primitives on NumPy values, where NumPy 2's promotion converts each
# Python scalar to the array's float dtype, as funcarray's weak scalars are: the same
# operations in the same order, so the same bits.
def _bartlett(n, M, cos, abs):  # noqa: A002 (the formula's own names)
    return 1 - abs(2 * n + 1 - M) / (M - 1)


def _blackman(n, M, cos, abs):  # noqa: A002
    return 0.42 - 0.5 * cos(2 * np.pi * n / (M - 1)) + 0.08 * cos(4 * np.pi * n / (M - 1))


def _hamming(n, M, cos, abs):  # noqa: A002
    return 0.54 - 0.46 * cos(2 * np.pi * n / (M - 1))


def _hanning(n, M, cos, abs):  # noqa: A002
    return 0.5 * (1 - cos(2 * np.pi * n / (M - 1)))


def _window_on_host(M, formula):
    """A window of a Python-int ``M`` whose sample indices are exact in the default float."""
    if type(M) is not int or M > 1 << 24:
        return NotImplemented
    dt = dtypes.default_float
    if M <= 1:
        return Array(np.ones((builtins.max(M, 0),), dt))
    return Array(formula(np.arange(M, dtype=dt), M, np.cos, np.abs))


@host_shortcut(lambda M: _window_on_host(M, _bartlett))
def bartlett(M: int) -> Array:
    """The Bartlett (triangular) window of ``M`` points.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.bartlett(5)
        Array([0. , 0.5, 1. , 0.5, 0. ], dtype=float32)
    """
    return _window("bartlett", M, lambda n, M: _bartlett(n, M, cos, _abs))


@host_shortcut(lambda M: _window_on_host(M, _blackman))
def blackman(M: int) -> Array:
    """The Blackman window of ``M`` points.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.blackman(3).round(4)
        Array([-0.,  1., -0.], dtype=float32)
    """
    return _window("blackman", M, lambda n, M: _blackman(n, M, cos, _abs))


@host_shortcut(lambda M: _window_on_host(M, _hamming))
def hamming(M: int) -> Array:
    """The Hamming window of ``M`` points.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.hamming(3).round(4)
        Array([0.08, 1.  , 0.08], dtype=float32)
    """
    return _window("hamming", M, lambda n, M: _hamming(n, M, cos, _abs))


@host_shortcut(lambda M: _window_on_host(M, _hanning))
def hanning(M: int) -> Array:
    """The Hann window of ``M`` points.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.hanning(3)
        Array([0., 1., 0.], dtype=float32)
    """
    return _window("hanning", M, lambda n, M: _hanning(n, M, cos, _abs))


def i0(x: ArrayLike) -> Array:
    """The modified Bessel function of the first kind, order 0 (``funcarray.scipy.special.i0``,
    as jax.numpy has it too).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.i0(fnp.asarray([0.0, 1.0])).round(4)
        Array([1.       , 1.2660999], dtype=float32)
    """
    from funcarray.lax._special_bessel import i0 as special_i0

    return special_i0(x)


def _kaiser_on_host(M, beta):
    # A Python int M and number beta: the general path's formula (below) on the NumPy
    # kernels, each operation in the window's dtype as the weak Python numbers meet it.
    from funcarray.lax._special_bessel import i0_of_numpy

    dt = np.dtype(dtypes.default_float)
    if (type(M) is not int or type(beta) not in (int, float) or not 1 < M <= 2 ** 24
            or dt not in (np.float32, np.float64)):
        return NotImplemented
    n = np.arange(M, dtype=dt)
    alpha = dt.type((M - 1) / 2.0)
    ratio = (n - alpha) / alpha
    window = dt.type(beta) * np.sqrt(dt.type(1) - ratio * ratio)
    return Array(i0_of_numpy(window) / i0_of_numpy(np.asarray(beta, dt)))


@host_shortcut(_kaiser_on_host)
def kaiser(M: int, beta: ArrayLike) -> Array:
    """The Kaiser window of ``M`` points with shape parameter ``beta``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.kaiser(4, 5.0).round(4)
        Array([0.0367    , 0.77529997, 0.77529997, 0.0367    ], dtype=float32)
    """
    def formula(n, M):
        # The samples in beta's precision when it is wider (float64 beta: float64 samples,
        # as jax's under x64), and the normalising i0(beta) in the window's dtype, not the
        # samples': a float32 i0(beta) under a float64 window leaves it 1e-8 off.
        n, b = _promote("kaiser", n, beta, inexact=True)
        alpha = (M - 1) / 2.0
        ratio = (n - alpha) / alpha
        return i0(b * sqrt(1 - ratio * ratio)) / i0(b)

    return _window("kaiser", M, formula)
