"""Set operations on flattened arrays: ``intersect1d``, ``union1d``, ``setdiff1d``,
``setxor1d`` and the Array API's ``unique_all``, ``unique_counts``, ``unique_inverse`` and
``unique_values``.

Each is one stable sort (of both inputs together for the two-array operations) followed by
scatters over the runs of equal values, so every result is sorted. The number of results
depends on the values: eagerly it is read off the concrete mask; under ``jit``/``vmap`` pass a
static ``size=`` (as in jax.numpy): the first ``size`` results are returned, padded with
``fill_value`` (default: the smallest result, 0 for ``setdiff1d``, as in jax.numpy). The
Array API functions and the two-array operations treat every NaN as distinct; ``union1d``
merges NaNs, as ``jax.numpy.unique`` does. Indices are int32. ``assume_unique`` is accepted
and ignored: the result is the same whenever the assumption holds.

Example:
    >>> import funcarray.numpy as fnp
    >>> fnp.intersect1d(fnp.array([1, 2, 3, 4]), fnp.array([3, 4, 5]))
    Array([3, 4], dtype=int32)
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, NamedTuple, overload

from funcarray.base import dtypes
from funcarray.base.array import Array
from funcarray.base.errors import op_type_error, op_value_error
from funcarray.numpy._array_ops import diff
from funcarray.numpy._creation import arange, asarray, full, ones, zeros
from funcarray.numpy._elementwise import isnan, not_equal, where
from funcarray.numpy._index_routines import take
from funcarray.numpy._reductions import cumsum
from funcarray.numpy._reductions import max as _max
from funcarray.numpy._reductions import min as _min
from funcarray.numpy._shape import concatenate
from funcarray.transforms.core import Tracer

if TYPE_CHECKING:
    from typing import Literal

    from funcarray.base.typing import ArrayLike

__all__ = ["intersect1d", "union1d", "setdiff1d", "setxor1d", "unique_all", "unique_counts",
           "unique_inverse", "unique_values"]


class _UniqueAllResult(NamedTuple):
    """What ``unique_all`` returns."""
    values: Array
    indices: Array
    inverse_indices: Array
    counts: Array


class _UniqueCountsResult(NamedTuple):
    """What ``unique_counts`` returns."""
    values: Array
    counts: Array


class _UniqueInverseResult(NamedTuple):
    """What ``unique_inverse`` returns."""
    values: Array
    inverse_indices: Array




def _flat(op, *arrays):
    """The arguments flattened and promoted to one dtype."""
    from funcarray.api.arguments import asarray_arg, convert
    arrays = [asarray_arg(op, a) for a in arrays]
    try:
        dt, weak = dtypes.result_type(*arrays, return_weak_type=True)
    except TypeError as exc:
        raise op_type_error(op, str(exc)) from None
    return [convert(a, dt, weak).reshape(-1) for a in arrays]


def _result_size(op, size, mask):
    """``size`` as an int, or the number of True entries of a concrete ``mask``."""
    import numpy as np
    if size is not None:
        if isinstance(size, Tracer):
            raise op_type_error(op, f"size must be a static Python int, got a traced {size.aval}")
        try:
            size = operator.index(size)
        except TypeError:
            raise op_type_error(op, f"size must be an int, got {size!r}") from None
        if size < 0:
            raise op_value_error(op, f"size must be non-negative, got {size}")
        return size
    if isinstance(mask, Tracer):
        raise op_type_error(
            op, f"the number of results depends on the values of the traced input (here "
                f"{mask.shape[0]} candidates). Pass a static size= (and fill_value=) to fix "
                f"it, e.g. fnp.{op}(..., size={mask.shape[0]})")
    return int(np.count_nonzero(np.asarray(mask)))


def _sorted_runs(x, equal_nan):
    """(sorted values, permutation, mask of the first element of each run of equal values)."""
    from funcarray import lax
    n = x.shape[0]
    iota = arange(n, dtype=dtypes.int32)
    aux, perm = lax.sort((x, iota), num_keys=1, is_stable=True)
    different = not_equal(aux[1:], aux[:-1])
    if equal_nan and dtypes.is_inexact(x.dtype):
        different = different & ~(isnan(aux[1:]) & isnan(aux[:-1]))
    mask = concatenate([ones((min(n, 1),), dtypes.bool_), different])
    return aux, perm, mask


def _first_true(mask, size, fill):
    """Positions of the first ``size`` True entries of ``mask`` (padded with ``fill``), and
    whether each slot holds a real hit."""
    n = mask.shape[0]
    # Each True entry's rank among the True entries is its slot; a scatter (no sort) puts
    # its position there, and slots past the last hit keep ``fill``.
    rank = cumsum(mask, dtype=dtypes.int32) - 1
    slot = where(mask, rank, size)
    positions = full((size,), fill, dtypes.int32).at[slot].set(
        arange(n, dtype=dtypes.int32), mode="drop")
    total = rank[-1] + 1 if n else 0
    valid = arange(size, dtype=dtypes.int32) < total
    return positions, valid


def _fill(values, valid, fill_value):
    if fill_value is None:
        return values
    fill = asarray(fill_value).astype(values.dtype)
    return where(valid, values, fill)


def _default_fill_min(values, valid):
    """jax.numpy's default padding: the smallest valid result (0 when there is none)."""
    if values.shape[0] == 0:
        return values
    values = where(valid, values, _max(values))
    return where(valid, values, _min(values))


def _unique(op, x, *, size, fill_value, equal_nan=False, indices=False, inverse=False,
            counts=False):
    """``unique`` of a 1-D ``x``: (values, first indices, inverse, counts), the ones not
    asked for None."""
    n = x.shape[0]
    if n == 0:
        if size and fill_value is None:
            raise op_value_error(op, "an empty input with a nonzero size= needs a fill_value=")
        size = 0 if size is None else _result_size(op, size, None)
        empty_index = zeros((size,), dtypes.int32)
        return (full((size,), 0 if fill_value is None else fill_value, x.dtype),
                empty_index, zeros((0,), dtypes.int32), empty_index)
    aux, perm, mask = _sorted_runs(x, equal_nan)
    size = _result_size(op, size, mask)
    positions, valid = _first_true(mask, size, 0)
    # Padding slots point at position 0: the smallest value (jax.numpy's default fill).
    values = _fill(take(aux, positions), valid, fill_value)
    first_indices = take(perm, positions) if indices else None
    inverse_indices = None
    if inverse:
        inverse_indices = zeros((n,), dtypes.int32).at[perm].set(
            cumsum(mask, dtype=dtypes.int32) - 1)
    run_lengths = None
    if counts:
        # The next run's start (n after the last run) minus this run's start; 0 for padding.
        starts, started = _first_true(mask, size + 1, 0)
        run_lengths = diff(where(started, starts, n))
    return values, first_indices, inverse_indices, run_lengths


def unique_values(x: ArrayLike, /, *, size: int | None = None,
                  fill_value: ArrayLike | None = None) -> Array:
    """The sorted unique values of ``x`` (flattened), every NaN counted as distinct.

    Under a transform pass a static ``size=``: results beyond it are dropped, missing ones
    padded with ``fill_value`` (default: the smallest unique value).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.unique_values(fnp.array([3, 1, 3, 2]))
        Array([1, 2, 3], dtype=int32)
        >>> fnp.unique_values(fnp.array([3, 1, 3]), size=4, fill_value=-1)
        Array([ 1,  3, -1, -1], dtype=int32)
    """
    (x,) = _flat("unique_values", x)
    return _unique("unique_values", x, size=size, fill_value=fill_value)[0]


def unique_counts(x: ArrayLike, /, *, size: int | None = None,
                  fill_value: ArrayLike | None = None) -> _UniqueCountsResult:
    """The sorted unique values of ``x`` and how often each occurs: ``(values, counts)``
    (padding slots count 0).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.unique_counts(fnp.array([3, 1, 3, 2]))
        _UniqueCountsResult(values=Array([1, 2, 3], dtype=int32), counts=Array([1, 1, 2], dtype=int32))
    """  # noqa: E501
    (x,) = _flat("unique_counts", x)
    values, _, _, counts = _unique("unique_counts", x, size=size, fill_value=fill_value,
                                   counts=True)
    return _UniqueCountsResult(values, counts)


def unique_inverse(x: ArrayLike, /, *, size: int | None = None,
                   fill_value: ArrayLike | None = None) -> _UniqueInverseResult:
    """The sorted unique values of ``x`` and, for each element of ``x``, the index of its
    value among them: ``(values, inverse_indices)``, the latter of ``x``'s shape.

    Example:
        >>> import funcarray.numpy as fnp
        >>> values, inverse = fnp.unique_inverse(fnp.array([3, 1, 3, 2]))
        >>> inverse
        Array([2, 0, 2, 1], dtype=int32)
    """
    from funcarray.api.arguments import asarray_arg
    shape = asarray_arg("unique_inverse", x).shape
    (x,) = _flat("unique_inverse", x)
    values, _, inverse, _ = _unique("unique_inverse", x, size=size, fill_value=fill_value,
                                    inverse=True)
    return _UniqueInverseResult(values, inverse.reshape(shape))


def unique_all(x: ArrayLike, /, *, size: int | None = None,
               fill_value: ArrayLike | None = None) -> _UniqueAllResult:
    """``(values, indices, inverse_indices, counts)``: the sorted unique values of ``x``,
    the flat index of each one's first occurrence, the index of each element's value, and
    how often each occurs.

    Example:
        >>> import funcarray.numpy as fnp
        >>> result = fnp.unique_all(fnp.array([3, 1, 3, 2]))
        >>> result.values, result.indices, result.counts
        (Array([1, 2, 3], dtype=int32), Array([1, 3, 0], dtype=int32), Array([1, 1, 2], dtype=int32))
    """  # noqa: E501
    from funcarray.api.arguments import asarray_arg
    shape = asarray_arg("unique_all", x).shape
    (x,) = _flat("unique_all", x)
    values, indices, inverse, counts = _unique("unique_all", x, size=size,
                                               fill_value=fill_value, indices=True,
                                               inverse=True, counts=True)
    return _UniqueAllResult(values, indices, inverse.reshape(shape), counts)


def union1d(ar1: ArrayLike, ar2: ArrayLike, *, size: int | None = None,
            fill_value: ArrayLike | None = None) -> Array:
    """The sorted unique values found in either array (both flattened).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.union1d(fnp.array([1, 2, 3]), fnp.array([2, 5]))
        Array([1, 2, 3, 5], dtype=int32)
    """
    op = "union1d"
    ar1, ar2 = _flat(op, ar1, ar2)
    x = concatenate([ar1, ar2])
    return _unique(op, x, size=size, fill_value=fill_value, equal_nan=True)[0]


def _merged_runs(ar1, ar2):
    """One stable sort of ``ar1`` and ``ar2`` together, grouped into runs of equal values.

    Returns (run values, run starts in the sort, whether each run exists, how many of each
    run's elements come from ``ar1``, run lengths, the sort's permutation), all indexed by
    run (``n1 + n2`` slots, runs first). A run's ``ar1`` elements come first, in order, so
    its first element is the value's first occurrence in ``ar1`` and the element after
    them its first occurrence in ``ar2``. NaNs are all distinct, as in NumPy's set
    operations.
    """
    n1 = ar1.shape[0]
    aux, perm, mask = _sorted_runs(concatenate([ar1, ar2]), equal_nan=False)
    n = aux.shape[0]
    run = cumsum(mask, dtype=dtypes.int32) - 1
    from_first = (perm < n1).astype(dtypes.int32)
    count1 = zeros((n,), dtypes.int32).at[run].add(from_first)
    length = zeros((n,), dtypes.int32).at[run].add(1)
    starts, is_run = _first_true(mask, n, 0)
    return take(aux, starts), starts, is_run, count1, length, perm


def _pick(values, mask, size, fill_value):
    """The entries of ``values`` where ``mask`` holds, the first ``size`` of them, padded
    (with the smallest picked value when ``fill_value`` is None, as jax.numpy does)."""
    positions, valid = _first_true(mask, size, values.shape[0])
    picked = values.at[positions].get(mode="fill", fill_value=0)
    if fill_value is None:
        return _default_fill_min(picked, valid), positions, valid
    return _fill(picked, valid, fill_value), positions, valid


def _set_operation(op, ar1, ar2, select, size, fill_value):
    """The run values that ``select(count1, length)`` keeps, padded to ``size``."""
    ar1, ar2 = _flat(op, ar1, ar2)
    n1, n2 = ar1.shape[0], ar2.shape[0]
    if n1 + n2 == 0:
        size = 0 if size is None else _result_size(op, size, None)
        empty = full((size,), 0 if fill_value is None else fill_value, ar1.dtype)
        return empty, None
    runs = _merged_runs(ar1, ar2)
    values, _, is_run, count1, length, _ = runs
    keep = is_run & select(count1, length)
    size = _result_size(op, size, keep)
    picked, positions, valid = _pick(values, keep, size, fill_value)
    return picked, (runs, positions, valid, n1, n2)


@overload
def intersect1d(ar1: ArrayLike, ar2: ArrayLike, assume_unique: bool = False,
                return_indices: Literal[False] = False, *, size: int | None = None,
                fill_value: ArrayLike | None = None) -> Array: ...
@overload
def intersect1d(ar1: ArrayLike, ar2: ArrayLike, assume_unique: bool = False, *,
                return_indices: Literal[True], size: int | None = None,
                fill_value: ArrayLike | None = None) -> tuple[Array, Array, Array]: ...
@overload
def intersect1d(ar1: ArrayLike, ar2: ArrayLike, assume_unique: bool = False,
                return_indices: bool = False, *, size: int | None = None,
                fill_value: ArrayLike | None = None
                ) -> Array | tuple[Array, Array, Array]: ...
def intersect1d(ar1, ar2, assume_unique=False, return_indices=False, *, size=None,
                fill_value=None):
    """The sorted unique values found in both arrays (both flattened).

    ``return_indices=True`` also returns the flat indices of their first occurrences in
    ``ar1`` and ``ar2`` (padding slots get ``ar1.size`` / ``ar2.size``). ``assume_unique``
    is accepted for compatibility; the result is the same either way.

    Example:
        >>> import funcarray.numpy as fnp
        >>> vals, i1, i2 = fnp.intersect1d(fnp.array([4, 1, 3]), fnp.array([3, 4, 7]),
        ...                                return_indices=True)
        >>> vals, i1, i2
        (Array([3, 4], dtype=int32), Array([2, 0], dtype=int32), Array([0, 1], dtype=int32))
    """
    values, extra = _set_operation("intersect1d", ar1, ar2,
                                   lambda count1, length: (count1 > 0) & (count1 < length),
                                   size, fill_value)
    if not return_indices:
        return values
    if extra is None:
        empty = zeros(values.shape, dtypes.int32)
        return values, empty, empty
    (_, starts, _, count1, _, perm), positions, valid, n1, n2 = extra
    start = starts.at[positions].get(mode="fill", fill_value=0)
    in_first = count1.at[positions].get(mode="fill", fill_value=0)
    first = where(valid, take(perm, start), n1)
    second = where(valid, take(perm, start + in_first, mode="clip") - n1, n2)
    return values, first, second


def setdiff1d(ar1: ArrayLike, ar2: ArrayLike, assume_unique: bool = False, *,
              size: int | None = None, fill_value: ArrayLike | None = None) -> Array:
    """The sorted unique values of ``ar1`` that are not in ``ar2`` (both flattened).

    Padding (under ``size=``) defaults to 0, as in jax.numpy.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.setdiff1d(fnp.array([1, 2, 3, 2]), fnp.array([2, 5]))
        Array([1, 3], dtype=int32)
    """
    fill = 0 if fill_value is None else fill_value
    return _set_operation("setdiff1d", ar1, ar2,
                          lambda count1, length: (count1 > 0) & (count1 == length),
                          size, fill)[0]


def setxor1d(ar1: ArrayLike, ar2: ArrayLike, assume_unique: bool = False, *,
             size: int | None = None, fill_value: ArrayLike | None = None) -> Array:
    """The sorted values found in exactly one of the arrays (both flattened).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.setxor1d(fnp.array([1, 2, 3]), fnp.array([2, 3, 4]))
        Array([1, 4], dtype=int32)
    """
    return _set_operation("setxor1d", ar1, ar2,
                          lambda count1, length: (count1 == 0) | (count1 == length),
                          size, fill_value)[0]
