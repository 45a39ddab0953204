"""Statistics over samples with ``jax.scipy.stats``'s names: ``mode``, ``rankdata``, ``sem``.

``mode`` and ``rankdata`` work on sorted copies: runs of equal values (NaNs count as equal,
as in ``jnp.unique``) are found by comparing neighbours, and each run's first and last
positions are spread over it with a cumulative max/min, so no data-dependent shapes arise and
both compile and batch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

import funcarray.numpy as fnp
from funcarray import lax
from funcarray.api.arguments import asarray_arg, canonicalize_axis
from funcarray.base import dtypes
from funcarray.base.errors import api_boundary, op_value_error
from funcarray.scipy.stats._common import promote_args_inexact

if TYPE_CHECKING:
    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike

__all__ = ["ModeResult", "mode", "rankdata", "sem"]

_RANK_METHODS = ("average", "min", "max", "dense", "ordinal")


class ModeResult(NamedTuple):
    """``mode``'s result: the most common value and how often it occurs."""
    mode: object
    count: object


def _check_nan_policy(op, nan_policy, supported=("propagate",)):
    if nan_policy not in ("propagate", "omit", "raise"):
        raise op_value_error(op, f"illegal nan_policy {nan_policy!r}; expected one of "
                                 "'propagate', 'omit', 'raise'")
    if nan_policy not in supported:
        raise NotImplementedError(
            f"{op}: nan_policy={nan_policy!r} is not supported (as in JAX); check for NaNs "
            "before the call and use nan_policy='propagate'")


def _same(a, b):
    """Elementwise equality where NaN equals NaN."""
    return (a == b) | (fnp.isnan(a) & fnp.isnan(b)) if dtypes.is_inexact(a.dtype) else a == b


def _runs(sorted_x):
    """For values sorted along axis 0: the first and last index of each element's run of
    equal values, and whether each element starts a run."""
    n = sorted_x.shape[0]
    index = fnp.reshape(fnp.arange(n), (n,) + (1,) * (sorted_x.ndim - 1))
    index = fnp.broadcast_to(index, sorted_x.shape)
    same_as_previous = _same(sorted_x[1:], sorted_x[:-1])
    no = fnp.zeros((1,) + sorted_x.shape[1:], bool)
    starts = fnp.logical_not(fnp.concatenate([no, same_as_previous], axis=0))
    ends = fnp.logical_not(fnp.concatenate([same_as_previous, no], axis=0))
    first = lax.cummax(fnp.where(starts, index, 0), axis=0)
    last = lax.cummin(fnp.where(ends, index, n - 1), axis=0, reverse=True)
    return first, last, starts


@api_boundary
def mode(a: ArrayLike, axis: int = 0, nan_policy: str = "propagate",
         keepdims: bool = False) -> ModeResult:
    """The most common value along ``axis`` (the smallest of tied ones) and its count.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import mode
        >>> mode(fnp.asarray([[1, 2, 2], [3, 2, 1], [3, 1, 1]]))
        ModeResult(mode=Array([3, 2, 1], dtype=int32), count=Array([2, 2, 2], dtype=int32))
    """
    op = "mode"
    _check_nan_policy(op, nan_policy)
    x = fnp.atleast_1d(asarray_arg(op, a))
    if axis is None:
        out_shape = (1,) * x.ndim if keepdims else ()
        x = fnp.ravel(x)
        axis = 0
    else:
        axis = canonicalize_axis(op, axis, x.ndim)
        out_shape = tuple(1 if i == axis else s for i, s in enumerate(x.shape) if keepdims or
                          i != axis)
    x = fnp.moveaxis(x, axis, 0)
    x = fnp.reshape(x, (x.shape[0], -1))
    if x.shape[0] == 0:
        nan = fnp.full(x.shape[1:], np.nan, dtypes.default_float)
        return ModeResult(fnp.reshape(nan, out_shape),
                          fnp.reshape(fnp.zeros_like(nan), out_shape))
    sorted_x = fnp.sort(x, axis=0)
    first, last, _ = _runs(sorted_x)
    counts = last - first + 1
    best = fnp.argmax(counts, axis=0)   # the first (smallest) value of the longest run
    values = fnp.take_along_axis(sorted_x, best[None], axis=0)[0]
    return ModeResult(fnp.reshape(values, out_shape),
                      fnp.reshape(fnp.max(counts, axis=0), out_shape))


@api_boundary
def rankdata(a: ArrayLike, method: str = "average", *, axis: int | None = None,
             nan_policy: str = "propagate") -> Array:
    """Ranks (from 1) of the values, ties resolved by ``method`` (``"average"``, ``"min"``,
    ``"max"``, ``"dense"``, ``"ordinal"``); a slice containing NaN ranks as all NaN.
    ``axis=None`` ranks the flattened array.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import rankdata
        >>> rankdata(fnp.asarray([3.0, 1.0, 3.0, 2.0]))
        Array([3.5, 1. , 3.5, 2. ], dtype=float32)
        >>> rankdata(fnp.asarray([3.0, 1.0, 3.0, 2.0]), "dense")
        Array([3., 1., 3., 2.], dtype=float32)
    """
    op = "rankdata"
    _check_nan_policy(op, nan_policy)
    if method not in _RANK_METHODS:
        raise op_value_error(op, f"unknown method {method!r}; expected one of {_RANK_METHODS}")
    x = asarray_arg(op, a)
    if axis is None:
        x = fnp.ravel(x)[None]
        axis, out_shape = 1, (x.size,)
    else:
        axis = canonicalize_axis(op, axis, x.ndim)
        out_shape = None
    x = fnp.moveaxis(x, axis, 0)
    ranks = _rank_along_first_axis(x, method)
    if dtypes.is_inexact(x.dtype):
        ranks = fnp.where(fnp.any(fnp.isnan(x), axis=0, keepdims=True), np.nan, ranks)
    ranks = fnp.moveaxis(ranks, 0, axis)
    return ranks if out_shape is None else fnp.reshape(ranks, out_shape)


def _rank_along_first_axis(x, method):
    out = dtypes.default_float
    n = x.shape[0]
    order = fnp.argsort(x, axis=0, stable=True)
    inverse = fnp.argsort(order, axis=0, stable=True)   # the inverse permutation
    if method == "ordinal":
        return (inverse + 1).astype(out)
    sorted_x = fnp.take_along_axis(x, order, axis=0)
    first, last, starts = _runs(sorted_x)
    if method == "dense":
        sorted_ranks = fnp.cumsum(starts.astype(out), axis=0) if n else first.astype(out)
    elif method == "min":
        sorted_ranks = (first + 1).astype(out)
    elif method == "max":
        sorted_ranks = (last + 1).astype(out)
    else:
        sorted_ranks = 0.5 * (first + last).astype(out) + 1
    return fnp.take_along_axis(sorted_ranks, inverse, axis=0)


@api_boundary
def sem(a: ArrayLike, axis: int = 0, ddof: int = 1, nan_policy: str = "propagate", *,
        keepdims: bool = False) -> Array:
    """The standard error of the mean ``std(a, ddof=ddof) / sqrt(n)`` along ``axis``
    (``nan_policy="omit"`` ignores NaNs).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import sem
        >>> sem(fnp.asarray([1.0, 2.0, 4.0, 7.0])).round(4)
        Array(1.3228999, dtype=float32)
    """
    op = "sem"
    (b,) = promote_args_inexact(op, a)
    if nan_policy == "propagate":
        size = b.size if axis is None else b.shape[canonicalize_axis(op, axis, b.ndim)]
        return fnp.std(b, axis, ddof=ddof, keepdims=keepdims) / float(np.sqrt(size))
    if nan_policy == "omit":
        # (Counted in b's dtype: an int32 count's sqrt would be float32.)
        count = fnp.sum(fnp.logical_not(fnp.isnan(b)), axis, keepdims=keepdims, dtype=b.dtype)
        return fnp.nanstd(b, axis, ddof=ddof, keepdims=keepdims) / fnp.sqrt(count)
    raise op_value_error(op, f"nan_policy={nan_policy!r} is not supported; use 'propagate' "
                             "or 'omit'")
