"""Set operations on flattened arrays: ``unique``, ``intersect1d``, ``union1d``,
``setdiff1d``, ``setxor1d`` and the Array API's ``unique_all``, ``unique_counts``,
``unique_inverse`` and ``unique_values``.

Each is one stable sort (of both inputs together for the two-array operations; of whole rows
for ``unique(axis=)``) followed by scatters over the runs of equal values, so every result is
sorted. The number of results depends on the values: eagerly it is read off the concrete
mask; under ``jit``/``vmap`` pass a static ``size=`` (as in jax.numpy): the first ``size``
results are returned, padded with ``fill_value`` (default: the smallest result, 0 for
``setdiff1d``, as in jax.numpy). ``unique`` and ``union1d`` merge NaNs (``unique`` unless
``equal_nan=False``); the Array API functions treat every NaN as distinct; the other
two-array operations, as jax.numpy's, merge an input's NaNs but never match one NaN with
the other input's. Indices are int32. ``assume_unique`` is accepted and ignored: the
result is the same whenever the assumption holds. Without ``size=``, host arrays take host
shortcuts that run the same stable sort and runs on their NumPy values.

Example:
    >>> import funcarray.numpy as fnp
    >>> fnp.intersect1d(fnp.array([1, 2, 3, 4]), fnp.array([3, 4, 5]))
    Array([3, 4], dtype=int32)
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, NamedTuple, overload

import numpy as np

from funcarray.api.arguments import asarray_arg, canonicalize_axis, convert
from funcarray.base import dtypes
from funcarray.base.array import Array, DeviceArray
from funcarray.base.errors import op_value_error
from funcarray.lax._sort_on_host import order_last, sorted_last
from funcarray.numpy._array_ops import diff
from funcarray.numpy._creation import arange, asarray, full, ones, zeros
from funcarray.numpy._elementwise import isnan, not_equal, where
from funcarray.numpy._index_routines import take
from funcarray.numpy._promotion import promote_args_unbroadcast
from funcarray.numpy._reductions import any as _any
from funcarray.numpy._reductions import cumsum
from funcarray.numpy._reductions import max as _max
from funcarray.numpy._reductions import min as _min
from funcarray.numpy._shape import broadcast_to, concatenate, expand_dims, moveaxis, reshape
from funcarray.numpy._sort_and_nonzero import concrete_count, size_needed_error, static_size
from funcarray.primitives.conversions import convert_kernel
from funcarray.transforms.core import Tracer
from funcarray.transforms.host_shortcuts import host_shortcut, host_value

if TYPE_CHECKING:
    from typing import Literal

    from funcarray.base.typing import ArrayLike

__all__ = ["unique", "intersect1d", "union1d", "setdiff1d", "setxor1d", "unique_all",
           "unique_counts", "unique_inverse", "unique_values"]


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
    """The arguments flattened and promoted to one dtype (a Python scalar converted straight
    to it: a Python complex next to a complex128 array keeps its precision)."""
    return [a.reshape(-1) for a in promote_args_unbroadcast(op, *arrays)]


def _result_size(op, size, mask):
    """``size`` as an int, or the number of True entries of a concrete ``mask``."""
    if size is not None:
        return static_size(op, size)
    return concrete_count(op, mask, "the number of results")


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


def _concrete_input(op, x, what):
    """``x``'s value: without size= the input must be concrete, and jax.numpy then works on
    the value alone (under grad no gradient flows through the result)."""
    if not isinstance(x, Tracer):
        return x
    value = x.to_concrete_value()
    if value is None:
        raise size_needed_error(op, x, what)
    return Array(np.asarray(value), x.weak_type)


def _sorted_rows(x, equal_nan):
    """``x`` (the unique axis first) sorted by whole rows, with the permutation and the mask
    of each run's first row, as jax.numpy builds them (an input whose rows are empty sorts
    as one row)."""
    from funcarray import lax
    if dtypes.is_complex(x.dtype):
        # A NaN in either part makes the whole value NaN: they sort last and merge.
        x = where(isnan(x), asarray(complex(np.nan, 0), x.dtype), x)
    n, width = x.shape[0], math.prod(x.shape[1:])
    if width == 0:
        return zeros((1, *x.shape[1:]), x.dtype), zeros((1,), dtypes.bool_), zeros(
            (1,), dtypes.int32)
    rows = reshape(x, (n, width))
    # Sorting the columns as keys, the first one most significant, orders whole rows.
    *_, perm = lax.sort((*(rows[:, j] for j in range(width)), arange(n, dtype=dtypes.int32)),
                        num_keys=width, is_stable=True)
    aux = take(x, perm, axis=0)
    if n == 0:
        return aux, zeros((0,), dtypes.bool_), perm
    different = not_equal(aux[1:], aux[:-1])
    if equal_nan and dtypes.is_inexact(x.dtype):
        different = different & ~(isnan(aux[1:]) & isnan(aux[:-1]))
    if different.ndim > 1:
        different = _any(different, axis=tuple(range(1, different.ndim)))
    return aux, concatenate([ones((1,), dtypes.bool_), different]), perm


def _unique(op, ar, axis, *, return_index=False, return_inverse=False, return_counts=False,
            equal_nan=True, size=None, fill_value=None):
    """jax.numpy's ``unique`` along ``axis`` of ``ar``: the values (the axis kept in place),
    then the first indices, inverse and counts asked for."""
    n = ar.shape[axis]
    padded = size is not None and fill_value is not None  # (fill_value serves size= alone)
    if size is not None:
        size = static_size(op, size)
        if n == 0 and size and fill_value is None:
            raise op_value_error(op, f"the input is empty, so padding to size={size} needs a "
                                     f"fill_value= (there is no smallest value to pad with)")
    else:
        ar = _concrete_input(op, ar, "the number of unique values")
    aux, mask, perm = _sorted_rows(moveaxis(ar, axis, 0), equal_nan)
    if size is None:
        size = concrete_count(op, mask, "the number of unique values")
    # Each run's first position; slots past the last run point at 0: the smallest value,
    # jax.numpy's default fill.
    positions, valid = _first_true(mask, size, 0)
    values = take(aux, positions, axis=0) if aux.size else aux
    if padded:
        fill = convert(asarray_arg(op, fill_value), values.dtype)
        if values.shape[0]:
            values = where(expand_dims(valid, tuple(range(1, values.ndim))), values, fill)
        else:
            values = broadcast_to(fill, (size, *values.shape[1:]))
    results = [moveaxis(values, 0, axis)]
    if return_index:
        results.append(take(perm, positions) if aux.size else perm)
    if return_inverse:
        if aux.size:
            results.append(zeros(mask.shape, dtypes.int32).at[perm].set(
                cumsum(mask, dtype=dtypes.int32) - 1))
        else:
            results.append(zeros((n,), dtypes.int32))
    if return_counts:
        if aux.size:
            # The next run's start (the length after the last run) minus this run's start;
            # 0 for padding.
            starts, started = _first_true(mask, size + 1, 0)
            results.append(diff(where(started, starts, mask.shape[0])))
        else:
            results.append(full((1,) if n else (0,), n, dtypes.int32))
    return results


def _run_starts(aux, equal_nan, same_nan=None, end=False):
    """Where each run of equal values of the sorted ``aux`` starts (NaNs one run when
    ``equal_nan``, or where ``same_nan`` says so), as the general path marks them; with
    ``end``, one more True after the last entry."""
    n = aux.size
    mask = np.empty(n + end, np.bool_)
    mask[:1] = True
    mask[n:] = True
    inner = mask[1:n]
    np.not_equal(aux[1:], aux[:-1], out=inner)
    if equal_nan and aux.dtype.kind == "f":
        nan = np.isnan(aux)
        both = nan[1:] & nan[:-1]
        inner &= ~(both if same_nan is None else both & same_nan)
    return mask


def _unique_on_host(ar, return_index=False, return_inverse=False, return_counts=False,
                    axis=None, *, equal_nan=True, size=None, fill_value=None, sorted=True):
    # The common form (a non-empty real host array, flattened, no size=): the stable sort
    # (``lax/_sort_on_host.py``), then the general path's runs (equal zeros keep their first
    # one, as there).
    t = type(ar)
    if (t is not Array and t is not DeviceArray) or size is not None or (
            axis is not None and ar.ndim != 1):
        return NotImplemented
    value = ar._value.reshape(-1)
    if value.size == 0 or value.dtype.kind not in "biuf" or type(axis) not in (int, type(None)):
        return NotImplemented
    if axis is not None and axis not in (0, -1):
        return NotImplemented
    if return_index or return_inverse:
        perm = order_last(value).astype(np.int32)  # (the stable order: first occurrences)
        aux = value[perm]
    else:
        aux = sorted_last(value)  # (the stable sort's values, from a faster sort)
    mask = _run_starts(aux, equal_nan)
    values = Array(aux[mask], ar.weak_type)
    if not (return_index or return_inverse or return_counts):
        return values
    results = [values]
    if return_index:
        results.append(Array(perm[mask]))
    if return_inverse:
        inverse = np.empty(value.size, np.int32)
        inverse[perm] = np.cumsum(mask, dtype=np.int32) - 1
        results.append(Array(inverse.reshape(ar.shape) if axis is None else inverse))
    if return_counts:
        starts = np.append(np.flatnonzero(mask), value.size).astype(np.int32)
        results.append(Array(np.diff(starts)))
    return tuple(results)


@overload
def unique(ar: ArrayLike, return_index: Literal[False] = False,
           return_inverse: Literal[False] = False, return_counts: Literal[False] = False,
           axis: int | None = None, *, equal_nan: bool = True, size: int | None = None,
           fill_value: ArrayLike | None = None, sorted: bool = True) -> Array: ...
@overload
def unique(ar: ArrayLike, return_index: bool = False, return_inverse: bool = False,
           return_counts: bool = False, axis: int | None = None, *, equal_nan: bool = True,
           size: int | None = None, fill_value: ArrayLike | None = None,
           sorted: bool = True) -> Array | tuple[Array, ...]: ...
@host_shortcut(_unique_on_host)
def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *,
           equal_nan=True, size=None, fill_value=None, sorted=True):  # noqa: A002
    """The sorted unique values of ``ar`` (flattened, or the unique slices along ``axis``),
    as jax.numpy.unique; indices are int32.

    ``return_index``/``return_inverse``/``return_counts`` add the flat index of each
    value's first occurrence, each element's position among the values (``ar``'s shape when
    ``axis`` is None) and how often each occurs. NaNs merge unless ``equal_nan=False``.
    The number of values depends on the data, so under a transform pass a static ``size``:
    the first ``size`` values are returned, padded with ``fill_value`` (default: the
    smallest value; padding indices point at its first occurrence, padding counts are 0).
    ``sorted`` is accepted and ignored, as in JAX: the values are always sorted.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.unique(fnp.array([3, 1, 1, 2]))
        Array([1, 2, 3], dtype=int32)
        >>> fnp.unique(fnp.array([3, 1, 1]), return_counts=True, size=4, fill_value=0)
        (Array([1, 3, 0, 0], dtype=int32), Array([2, 1, 0, 0], dtype=int32))
    """
    op = "unique"
    ar = asarray_arg(op, ar)
    shape = ar.shape
    if axis is None:
        ar, axis = reshape(ar, (ar.size,)), 0
    else:
        axis = canonicalize_axis(op, axis, ar.ndim)
        shape = None
    results = _unique(op, ar, axis, return_index=return_index,
                      return_inverse=return_inverse, return_counts=return_counts,
                      equal_nan=equal_nan, size=size, fill_value=fill_value)
    if return_inverse and shape is not None:
        at = 2 if return_index else 1
        results[at] = reshape(results[at], shape)
    return results[0] if len(results) == 1 else tuple(results)


def _array_api_unique_on_host(result_type, **flags):
    """The host shortcut of an Array API ``unique_*`` function: ``unique``'s, NaNs distinct,
    its results in ``result_type`` (None: the values alone)."""
    def shortcut(x, /, *, size=None, fill_value=None):
        out = _unique_on_host(x, equal_nan=False, size=size, **flags)
        if out is NotImplemented or result_type is None:
            return out
        return result_type(*out)
    return shortcut


@host_shortcut(_array_api_unique_on_host(None))
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
    x = asarray_arg("unique_values", x)
    return _unique("unique_values", reshape(x, (x.size,)), 0, equal_nan=False, size=size,
                   fill_value=fill_value)[0]


@host_shortcut(_array_api_unique_on_host(_UniqueCountsResult, return_counts=True))
def unique_counts(x: ArrayLike, /, *, size: int | None = None,
                  fill_value: ArrayLike | None = None) -> _UniqueCountsResult:
    """The sorted unique values of ``x`` and how often each occurs: ``(values, counts)``
    (padding slots count 0).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.unique_counts(fnp.array([3, 1, 3, 2]))
        _UniqueCountsResult(values=Array([1, 2, 3], dtype=int32), counts=Array([1, 1, 2], dtype=int32))
    """  # noqa: E501
    x = asarray_arg("unique_counts", x)
    values, counts = _unique("unique_counts", reshape(x, (x.size,)), 0, return_counts=True,
                             equal_nan=False, size=size, fill_value=fill_value)
    return _UniqueCountsResult(values, counts)


@host_shortcut(_array_api_unique_on_host(_UniqueInverseResult, return_inverse=True))
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
    x = asarray_arg("unique_inverse", x)
    values, inverse = _unique("unique_inverse", reshape(x, (x.size,)), 0,
                              return_inverse=True, equal_nan=False, size=size,
                              fill_value=fill_value)
    return _UniqueInverseResult(values, reshape(inverse, x.shape))


@host_shortcut(_array_api_unique_on_host(_UniqueAllResult, return_index=True,
                                         return_inverse=True, return_counts=True))
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
    x = asarray_arg("unique_all", x)
    values, indices, inverse, counts = _unique(
        "unique_all", reshape(x, (x.size,)), 0, return_index=True, return_inverse=True,
        return_counts=True, equal_nan=False, size=size, fill_value=fill_value)
    return _UniqueAllResult(values, indices, reshape(inverse, x.shape), counts)


def _flat_on_host(ar1, ar2):
    """Both operands' values flattened in their promoted dtype (strong, real, not both
    empty), or None."""
    v1, v2 = host_value(ar1), host_value(ar2)
    if v1 is None or v2 is None or not v1.size + v2.size:
        return None
    if v1.dtype == v2.dtype and not (ar1._weak or ar2._weak):
        dt = v1.dtype  # (one strong dtype: nothing to promote)
    else:
        dt, weak = dtypes.result_type(ar1, ar2, return_weak_type=True)
        if weak:
            return None
        dt = np.dtype(dt)
        v1, v2 = convert_kernel(v1, dt), convert_kernel(v2, dt)
    if dt.kind not in "biuf":
        return None
    return v1.reshape(-1), v2.reshape(-1)


def _union1d_on_host(ar1, ar2, *, size=None, fill_value=None):
    # The unique values of both together (NaNs merged): ``unique``'s shortcut.
    values = _flat_on_host(ar1, ar2) if size is None and fill_value is None else None
    if values is None:
        return NotImplemented
    return _unique_on_host(Array(np.concatenate(values), False))


def _merged_runs_on_host(v1, v2):
    """``_merged_runs`` on host values: (the stable sort's permutation, the run starts in
    the sort, how many of each run's elements come from ``v1``, the run lengths), with each
    input's NaNs one run, apart from the other input's."""
    x = np.concatenate([v1, v2])
    perm = order_last(x)
    aux = x[perm]
    in_first = perm < v1.size
    mask = _run_starts(aux, True, in_first[1:] == in_first[:-1], end=True)
    bounds = np.flatnonzero(mask)  # (each run's start, and the end)
    starts = bounds[:-1]
    count1 = np.add.reduceat(in_first.astype(np.int32), starts)
    return aux, perm, starts, count1, bounds[1:] - starts


def _set_operation_on_host(select, ar1, ar2, size, fill_value):
    """The run values ``select(count1, length)`` keeps, and the runs, or None."""
    values = _flat_on_host(ar1, ar2) if size is None else None
    if values is None:
        return None
    aux, perm, starts, count1, length = _merged_runs_on_host(*values)
    keep = select(count1, length)
    return Array(aux[starts[keep]], False), (perm, starts[keep], count1[keep],
                                            values[0].size)


def _intersect1d_on_host(ar1, ar2, assume_unique=False, return_indices=False, *, size=None,
                         fill_value=None):
    if type(return_indices) is not bool:
        return NotImplemented
    found = _set_operation_on_host(lambda c, n: (c > 0) & (c < n), ar1, ar2, size, fill_value)
    if found is None:
        return NotImplemented
    values, (perm, start, in_first, n1) = found
    if not return_indices:
        return values
    return (values, Array(perm[start].astype(np.int32), False),
            Array((perm[start + in_first] - n1).astype(np.int32), False))


def _setdiff1d_on_host(ar1, ar2, assume_unique=False, *, size=None, fill_value=None):
    found = _set_operation_on_host(lambda c, n: (c > 0) & (c == n), ar1, ar2, size,
                                   fill_value)
    if found is None:
        return NotImplemented
    _, (perm, start, _, _) = found
    # (each kept run's first element is in ar1: its value there, in ar1's own dtype)
    return Array(host_value(ar1).reshape(-1)[perm[start]], False)


def _setxor1d_on_host(ar1, ar2, assume_unique=False, *, size=None, fill_value=None):
    found = _set_operation_on_host(lambda c, n: (c == 0) | (c == n), ar1, ar2, size,
                                   fill_value)
    return NotImplemented if found is None else found[0]


@host_shortcut(_union1d_on_host)
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
    return _unique(op, concatenate([ar1, ar2]), 0, size=size, fill_value=fill_value)[0]


def _merged_runs(ar1, ar2):
    """One stable sort of ``ar1`` and ``ar2`` together, grouped into runs of equal values.

    Returns (run values, run starts in the sort, whether each run exists, how many of each
    run's elements come from ``ar1``, run lengths, the sort's permutation), all indexed by
    run (``n1 + n2`` slots, runs first). A run's ``ar1`` elements come first, in order, so
    its first element is the value's first occurrence in ``ar1`` and the element after
    them its first occurrence in ``ar2``. As jax.numpy takes the unique values of each
    input first, an input's NaNs are one run, distinct from the other input's.
    """
    from funcarray import lax
    n1 = ar1.shape[0]
    x = concatenate([ar1, ar2])
    n = x.shape[0]
    aux, perm = lax.sort((x, arange(n, dtype=dtypes.int32)), num_keys=1, is_stable=True)
    in_first = perm < n1
    different = not_equal(aux[1:], aux[:-1])
    if dtypes.is_inexact(x.dtype):
        # (NaNs sort last, the first input's before the second's)
        same_nan = isnan(aux[1:]) & isnan(aux[:-1]) & (in_first[1:] == in_first[:-1])
        different = different & ~same_nan
    mask = concatenate([ones((1,), dtypes.bool_), different])
    run = cumsum(mask, dtype=dtypes.int32) - 1
    from_first = in_first.astype(dtypes.int32)
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
    if size is None:
        ar1, ar2 = (_concrete_input(op, a, "the number of results") for a in (ar1, ar2))
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
@host_shortcut(_intersect1d_on_host)
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


@host_shortcut(_setdiff1d_on_host)
def setdiff1d(ar1: ArrayLike, ar2: ArrayLike, assume_unique: bool = False, *,
              size: int | None = None, fill_value: ArrayLike | None = None) -> Array:
    """The sorted unique values of ``ar1`` that are not in ``ar2`` (both flattened).

    Padding (under ``size=``) defaults to 0, as in jax.numpy.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.setdiff1d(fnp.array([1, 2, 3, 2]), fnp.array([2, 5]))
        Array([1, 3], dtype=int32)
    """
    op = "setdiff1d"
    own = asarray_arg(op, ar1)
    fill = 0 if fill_value is None else fill_value
    values, extra = _set_operation(op, ar1, ar2,
                                   lambda count1, length: (count1 > 0) & (count1 == length),
                                   size, fill)
    # The result is ar1's values in ar1's dtype (jax, NumPy): compared in the promoted dtype,
    # each kept run's first element is taken from ar1 itself, the padding converted.
    padding = convert(values, own.dtype, own.weak_type)
    if extra is None:
        return padding
    (_, starts, _, _, _, perm), positions, valid, _, _ = extra
    first = take(perm, starts.at[positions].get(mode="fill", fill_value=0))
    return where(valid, take(own.reshape(-1), first, mode="clip"), padding)


@host_shortcut(_setxor1d_on_host)
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
