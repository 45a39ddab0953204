"""More shape and update functions of ``funcarray.numpy``, as in jax.numpy: ``block``,
``resize``, ``rollaxis``, ``trim_zeros``, ``insert``, ``delete``, ``unstack``,
``apply_along_axis``, ``apply_over_axes``, ``piecewise``, ``choose`` and the functional
updates ``put``, ``put_along_axis``, ``fill_diagonal``, ``place``.

Everything is composed from existing funcarray operations (concatenate, gather/scatter through
``x.at[]``, vmap), so each function works eagerly and under jit, grad and vmap wherever its
result shape is static. The four updates keep jax.numpy's signature: arrays are immutable, so
the default ``inplace=True`` is refused and ``inplace=False`` returns an updated copy.

Example:
    >>> import funcarray.numpy as fnp
    >>> fnp.insert(fnp.arange(4), 1, 9)
    Array([0, 9, 1, 2, 3], dtype=int32)
"""

from __future__ import annotations

import builtins
import math
import operator
from typing import TYPE_CHECKING

import numpy as np

from funcarray.api.arguments import (
    _axis,
    _concrete_int,
    _int_tuple,
    asarray_arg,
    convert_arg,
    is_array,
)
from funcarray.base import dtypes
from funcarray.base.array import Array, DeviceArray
from funcarray.base.errors import op_type_error, op_value_error
from funcarray.numpy._creation import arange, array, asarray, full, ones, zeros, zeros_like
from funcarray.numpy._elementwise import clip, where
from funcarray.numpy._index_tricks import indices as _indices
from funcarray.numpy._index_tricks import unravel_index
from funcarray.numpy._manipulation_on_host import (
    _choose_on_host,
    _fill_diagonal_on_host,
    _insert_on_host,
    _put_along_axis_on_host,
    _resize_on_host,
    _rollaxis_on_host,
    _unstack_on_host,
)
from funcarray.numpy._rearranging import tile
from funcarray.numpy._reductions import sum as _sum
from funcarray.numpy._shape import (
    broadcast_arrays,
    broadcast_to,
    concatenate,
    expand_dims,
    moveaxis,
    ravel,
    reshape,
    stack,
)
from funcarray.numpy._sort_and_nonzero import argsort, nonzero, sort
from funcarray.transforms.core import Tracer
from funcarray.transforms.host_shortcuts import host_shortcut

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

    from funcarray.base.typing import ArrayLike, Axis, ShapeLike

__all__ = [
    "block", "resize", "rollaxis", "trim_zeros", "insert", "delete", "unstack",
    "apply_along_axis", "apply_over_axes", "piecewise", "choose", "put", "put_along_axis",
    "fill_diagonal", "place",
]


def _refuse_inplace(op, inplace):
    if inplace:
        raise op_value_error(op, "funcarray arrays are immutable, so they cannot be updated in "
                                 "place; pass inplace=False to get an updated copy")


def _tile_to_size(x, size):
    """The 1-D ``x`` repeated (or cut) to ``size`` elements, as NumPy's put/place cycle
    through their values."""
    if x.shape[0] == size:
        return x
    reps = -(-size // x.shape[0])
    return tile(x, reps)[:size] if reps > 1 else x[:size]


def _atleast_nd(x, ndim):
    return reshape(x, (1,) * (ndim - x.ndim) + tuple(x.shape)) if x.ndim < ndim else x


# --------------------------------------------------------------------------------------------
# block, resize, rollaxis, trim_zeros, unstack
# --------------------------------------------------------------------------------------------

def _block(op, xs):
    """(array, list depth) of a nested list of arrays, joined innermost lists first."""
    if isinstance(xs, tuple):
        raise op_type_error(op, f"tuples are not allowed (NumPy refuses them too); use lists, "
                                f"got {xs!r}")
    if not isinstance(xs, list):
        return asarray_arg(op, xs), 1
    if not xs:
        raise op_value_error(op, "empty lists are not allowed")
    parts, depths = zip(*(_block(op, x) for x in xs))
    if builtins.any(d != depths[0] for d in depths):
        raise op_value_error(op, f"mismatched list depths {list(depths)}: every list at one "
                                 f"level must nest equally deep")
    rank = builtins.max(depths[0], *(p.ndim for p in parts))
    parts = [_atleast_nd(p, rank) for p in parts]
    return concatenate(parts, axis=-depths[0]), depths[0] + 1


def block(arrays: ArrayLike | Sequence[Any]) -> Array:
    """Assemble an array from nested lists of blocks: the innermost lists join along the last
    axis, the next ones along the second-to-last, and so on (blocks get leading unit axes up
    to the nesting depth).

    Example:
        >>> import funcarray.numpy as fnp
        >>> a = fnp.eye(2, dtype=int)
        >>> fnp.block([[a, fnp.zeros((2, 1), dtype=int)], [fnp.ones((1, 3), dtype=int)]])
        Array([[1, 0, 0],
               [0, 1, 0],
               [1, 1, 1]], dtype=int32)
    """
    return _block("block", arrays)[0]


@host_shortcut(_resize_on_host)
def resize(a: ArrayLike, new_shape: ShapeLike) -> Array:
    """An array of ``new_shape`` filled with the elements of ``a`` in order, repeated as often
    as needed (zeros when ``a`` is empty).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.resize(fnp.array([1, 2, 3]), (2, 4))
        Array([[1, 2, 3, 1],
               [2, 3, 1, 2]], dtype=int32)
    """
    op = "resize"
    a = asarray_arg(op, a)
    new_shape = _int_tuple(op, new_shape, "new_shape")
    if builtins.any(d < 0 for d in new_shape):
        raise op_value_error(op, f"every element of new_shape must be non-negative, got "
                                 f"{new_shape}")
    flat = ravel(a)
    size = math.prod(new_shape)
    if flat.shape[0] == 0 or size == 0:
        return zeros_like(flat, shape=new_shape)
    return reshape(_tile_to_size(flat, size), new_shape)


@host_shortcut(_rollaxis_on_host)
def rollaxis(a: ArrayLike, axis: int, start: int = 0) -> Array:
    """Move ``axis`` so that it comes before position ``start`` (NumPy's older form of
    ``moveaxis``).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.rollaxis(fnp.zeros((2, 3, 4)), 2).shape
        (4, 2, 3)
    """
    op = "rollaxis"
    a = asarray_arg(op, a)
    start = _concrete_int(op, start, "start")
    axis = _axis(op, axis, a.shape)
    if not -a.ndim <= start <= a.ndim:
        raise op_value_error(op, f"start={start} must satisfy {-a.ndim} <= start <= {a.ndim} "
                                 f"for an array of shape {tuple(a.shape)}")
    if start < 0:
        start += a.ndim
    if start > axis:
        start -= 1
    return moveaxis(a, axis, start)


def trim_zeros(filt: ArrayLike, trim: str = "fb", axis: Axis = None) -> Array:
    """``filt`` without its leading ("f") and/or trailing ("b") zeros along ``axis`` (every
    axis when None; a slice along an axis is trimmed when all of it is zero). ``filt`` must be
    concrete: the result's shape depends on its values.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.trim_zeros(fnp.array([0, 0, 1, 0, 2, 0]))
        Array([1, 0, 2], dtype=int32)
        >>> fnp.trim_zeros(fnp.array([0, 1, 0]), trim="b")
        Array([0, 1], dtype=int32)
    """
    op = "trim_zeros"
    filt = asarray_arg(op, filt)
    if isinstance(filt, Tracer):
        raise filt._concretization_error(
            f"{op}: the result's shape depends on the values of filt, so filt must be "
            f"concrete (not traced by jit/vmap/grad)")
    if not isinstance(trim, str):
        raise op_type_error(op, f"trim must be a string of 'f' and/or 'b', got {trim!r}")
    trim = trim.lower()
    axes = set(range(filt.ndim)) if axis is None else {
        _axis(op, ax, filt.shape) for ax in _int_tuple(op, axis, "axis")}
    if not axes or ("f" not in trim and "b" not in trim):
        return filt
    value = np.asarray(filt)
    index = []
    for ax in range(filt.ndim):
        if ax not in axes:
            index.append(slice(None))
            continue
        hits = np.flatnonzero(np.any(value != 0, axis=tuple(d for d in range(filt.ndim)
                                                               if d != ax)))
        if hits.size == 0:
            index.append(slice(0, 0))
            continue
        index.append(slice(int(hits[0]) if "f" in trim else None,
                           int(hits[-1]) + 1 if "b" in trim else None))
    return filt[tuple(index)]


@host_shortcut(_unstack_on_host)
def unstack(x: ArrayLike, /, *, axis: int = 0) -> tuple[Array, ...]:
    """The slices of ``x`` along ``axis``, as a tuple (the inverse of ``stack``).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.unstack(fnp.arange(4).reshape(2, 2), axis=1)
        (Array([0, 2], dtype=int32), Array([1, 3], dtype=int32))
    """
    op = "unstack"
    x = asarray_arg(op, x)
    if x.ndim == 0:
        raise op_value_error(op, "x must have at least one dimension, got a 0-d array")
    axis = _axis(op, axis, x.shape)
    moved = moveaxis(x, axis, 0)
    return tuple(moved[i] for i in range(moved.shape[0]))


# --------------------------------------------------------------------------------------------
# insert, delete
# --------------------------------------------------------------------------------------------

def _axis_or_flat(op, a, axis):
    if axis is None:
        return ravel(a), 0
    return a, _axis(op, axis, a.shape)


def _along(axis, index):
    return (slice(None),) * axis + (index,)


@host_shortcut(_insert_on_host)
def insert(arr: ArrayLike, obj: Any, values: ArrayLike, axis: int | None = None) -> Array:
    """``arr`` with ``values`` inserted before the positions ``obj`` (an int, a 1-D integer
    array or a slice) along ``axis`` (the flattened array when None). ``obj`` may be traced;
    out-of-range positions are clamped to the ends, as in jax.numpy.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.insert(fnp.arange(4), fnp.array([1, 3]), fnp.array([10, 30]))
        Array([ 0, 10,  1,  2, 30,  3], dtype=int32)
        >>> fnp.insert(fnp.zeros((2, 2), dtype=int), 1, 5, axis=1)
        Array([[0, 5, 0],
               [0, 5, 0]], dtype=int32)
    """
    op = "insert"
    a, axis = _axis_or_flat(op, asarray_arg(op, arr), axis)
    if isinstance(obj, slice):
        indices = arange(*obj.indices(a.shape[axis]))
    else:
        indices = asarray_arg(op, obj)
    if indices.ndim > 1:
        raise op_value_error(op, f"obj must be a slice, a 1-D array or a scalar, got shape "
                                 f"{tuple(indices.shape)}")
    if indices.dtype.kind not in "iu":
        if indices.size == 0 and not is_array(obj):
            indices = asarray(indices, dtype=dtypes.default_int)
        else:
            raise op_type_error(op, f"obj must hold integers, got dtype {indices.dtype}")
    values = array(convert_arg(op, values, a.dtype), ndmin=a.ndim)
    if indices.size == 1:
        index = ravel(indices)[0]
        if indices.ndim == 0:
            values = moveaxis(values, 0, axis)
        indices = full(values.shape[axis], index)
    n_input = a.shape[axis]
    try:
        n_insert = np.broadcast_shapes(indices.shape, (values.shape[axis],))[0]
    except ValueError:
        raise op_value_error(op, f"{indices.shape[0]} positions but {values.shape[axis]} "
                                 f"values along axis {axis}: give one value per position") \
            from None
    out_shape = list(a.shape)
    out_shape[axis] += n_insert
    indices = clip(where(indices < 0, indices + n_input, indices), 0, n_input)
    # Each value lands after the values inserted before it (ties keep their order).
    values_at = indices.at[argsort(indices)].add(arange(n_insert,
                                                                 dtype=indices.dtype))
    keep = ones(n_input + n_insert, dtype=bool).at[values_at].set(False)
    (arr_at,) = nonzero(keep, size=n_input)
    out = zeros(tuple(out_shape), dtype=a.dtype)
    out = out.at[_along(axis, values_at)].set(values)
    return out.at[_along(axis, arr_at)].set(a)


def delete(arr: ArrayLike, obj: Any, axis: int | None = None, *,
           assume_unique_indices: bool = False) -> Array:
    """``arr`` without the entries ``obj`` (an int, a slice, integer indices or a boolean
    mask) along ``axis`` (the flattened array when None).

    Integer-array indices must be concrete unless ``assume_unique_indices=True`` promises
    that they have no duplicates; then they may be traced (jit), as in jax.numpy.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.delete(fnp.arange(5), fnp.array([0, 3]))
        Array([1, 2, 4], dtype=int32)
        >>> fnp.delete(fnp.arange(6).reshape(2, 3), 1, axis=1)
        Array([[0, 2],
               [3, 5]], dtype=int32)
    """
    op = "delete"
    a, axis = _axis_or_flat(op, asarray_arg(op, arr), axis)
    size = a.shape[axis]
    if isinstance(obj, (int, np.integer)) and not isinstance(obj, (bool, np.bool_)):
        index = operator.index(obj)
        if not -size <= index < size:
            raise op_value_error(op, f"index {index} is out of bounds for axis {axis} of size "
                                     f"{size}")
        index %= size
        return concatenate([a[_along(axis, slice(0, index))],
                                a[_along(axis, slice(index + 1, None))]], axis=axis)
    if isinstance(obj, slice):
        obj = np.arange(size)[obj]
        assume_unique_indices = True
    obj = asarray_arg(op, obj)
    if obj.dtype.kind in "iu" and assume_unique_indices:
        positions = ravel(obj)
        positions = sort(clip(where(positions < 0, positions + size, positions),
                                      0, size))
        positions = positions - arange(positions.shape[0], dtype=positions.dtype)
        kept = arange(size - positions.shape[0], dtype=positions.dtype)
        # The k-th kept entry skips every deleted position at or before it.
        kept = kept + _sum(kept[None, :] >= positions[:, None], axis=0,
                              dtype=positions.dtype)
        return a[_along(axis, kept)]
    if isinstance(obj, Tracer):
        raise obj._concretization_error(
            f"{op}: traced indices need assume_unique_indices=True (the result's size "
            f"depends on duplicates otherwise)")
    value = np.asarray(obj)
    if value.dtype.kind in "iu":
        if value.size and (value.min() < -size or value.max() >= size):
            raise op_value_error(op, f"an index in {value.tolist()} is out of bounds for "
                                     f"axis {axis} of size {size}")
        mask = np.ones(size, dtype=bool)
        mask[value] = False
    elif value.dtype == np.bool_:
        if value.shape != (size,):
            raise op_value_error(op, f"a boolean obj must be 1-D with the length of axis "
                                     f"{axis} ({size}), got shape {value.shape}")
        mask = ~value
    else:
        raise op_type_error(op, f"obj must be integers or booleans, got dtype {value.dtype}")
    return a[_along(axis, np.flatnonzero(mask).astype(np.int32))]


# --------------------------------------------------------------------------------------------
# apply_along_axis, apply_over_axes, piecewise, choose
# --------------------------------------------------------------------------------------------

def apply_along_axis(func1d: Callable[..., Any], axis: int, arr: ArrayLike, *args: Any,
                     **kwargs: Any) -> Array:
    """``func1d`` applied to each 1-D slice of ``arr`` along ``axis`` (through ``vmap``, so
    ``func1d`` sees traced 1-D arrays); its output dimensions replace ``axis``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> x = fnp.array([[3, 1, 2], [6, 5, 4]])
        >>> fnp.apply_along_axis(fnp.sort, 1, x)
        Array([[1, 2, 3],
               [4, 5, 6]], dtype=int32)
    """
    from funcarray.api.vectorization import vmap
    op = "apply_along_axis"
    arr = asarray_arg(op, arr)
    axis = _axis(op, axis, arr.shape)

    def func(x):
        return func1d(x, *args, **kwargs)
    for i in range(1, arr.ndim - axis):
        func = vmap(func, in_axes=i, out_axes=-1)
    for _ in range(axis):
        func = vmap(func, in_axes=0, out_axes=0)
    return func(arr)


def apply_over_axes(func: Callable[[Array, int], ArrayLike], a: ArrayLike,
                    axes: int | Sequence[int]) -> Array:
    """``func(a, axis)`` applied for each axis in turn; a result with one dimension fewer gets
    it back as a unit axis, so the rank stays that of ``a``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.apply_over_axes(fnp.sum, fnp.arange(6).reshape(2, 3), [0, 1])
        Array([[15]], dtype=int32)
    """
    op = "apply_over_axes"
    a = asarray_arg(op, a)
    for axis in _int_tuple(op, axes, "axes"):
        b = asarray(func(a, axis))
        if b.ndim == a.ndim - 1:
            b = expand_dims(b, axis)
        elif b.ndim != a.ndim:
            raise op_value_error(op, f"func returned shape {tuple(b.shape)} for an input of "
                                     f"shape {tuple(a.shape)} and axis {axis}: it must keep "
                                     f"the rank or drop the one axis")
        a = b
    return a


def _piecewise_parts(x, condlist, funclist, args, kw):
    """piecewise's operand, its branches (as functions of one element, returning ``x``'s
    dtype) and the flat branch number of each element."""
    op = "piecewise"
    x = asarray_arg(op, x)
    if is_array(condlist) or isinstance(condlist, np.ndarray):
        conds = asarray_arg(op, condlist)
        if conds.ndim == x.ndim:
            conds = conds[None]
        conds = list(conds)
    else:
        conds = [asarray_arg(op, c) for c in condlist]
    funclist = list(funclist)
    nc, nf = len(conds), len(funclist)
    if nf == nc + 1:
        funclist = funclist[-1:] + funclist[:-1]
    elif nf == nc:
        funclist = [0] + funclist
    else:
        raise op_value_error(op, f"with {nc} condition(s), give {nc} or {nc + 1} functions, "
                                 f"got {nf}")
    dtype = x.dtype
    branches = [(lambda f: lambda v: asarray(f(v, *args, **kw)).astype(dtype))(f)
                if callable(f) else (lambda c: lambda v: asarray(c, dtype=dtype))(f)
                for f in funclist]
    conds = [broadcast_to(asarray(c, dtype=bool), x.shape) for c in conds]
    # The branch of an element is the number of the last true condition (0: none).
    which = zeros(x.shape, dtype=dtypes.int32)
    for i, c in enumerate(conds):
        which = where(c, i + 1, which)
    return x, branches, ravel(which)


def _piecewise_on_host(x, condlist, funclist, *args, **kw):
    # What the general path's vmap of a switch with a batched index computes (every branch
    # on every element, then a select by branch number: see cond's batching rule), with
    # each branch vmapped on its own instead of staged and batched as a switch.
    from funcarray.primitives.select_n import select_n_p
    from funcarray.transforms.vmap import move_batch_axes, vmap_flat
    x, branches, which = _piecewise_parts(x, condlist, funclist, args, kw)
    flat = ravel(x)
    if not flat.size:
        return NotImplemented
    size = flat.shape[0]
    cases = []
    for branch in branches:
        outs, dims = vmap_flat(lambda v, branch=branch: [branch(v)], [flat], [0], size)
        cases += move_batch_axes(outs, dims, [0], size)
    for case in cases:
        if type(case) is not Array or case.shape != flat.shape or case.dtype != flat.dtype:
            return NotImplemented
    if len(cases) == 1:
        return reshape(cases[0], x.shape)
    return reshape(select_n_p.bind(which, *cases), x.shape)


@host_shortcut(_piecewise_on_host)
def piecewise(x: ArrayLike, condlist: Any, funclist: Sequence[Any], *args: Any,
              **kw: Any) -> Array:
    """Elementwise, ``funclist[i](x, *args, **kw)`` (or the constant ``funclist[i]``) where
    ``condlist[i]`` is true, the last true condition winning; where none is, the extra last
    entry of ``funclist`` (or 0). Functions are applied to scalars through ``vmap``, so every
    branch runs on every element (as in jax.numpy).

    Example:
        >>> import funcarray.numpy as fnp
        >>> x = fnp.array([-2.0, 0.5, 3.0])
        >>> fnp.piecewise(x, [x < 0, x > 1], [lambda v: -v, lambda v: v ** 2, 7.0])
        Array([2., 7., 9.], dtype=float32)
    """
    from funcarray.api.vectorization import vmap
    from funcarray.lax import switch
    x, branches, which = _piecewise_parts(x, condlist, funclist, args, kw)
    flat = ravel(x)
    out = vmap(lambda i, v: switch(i, branches, v))(which, flat) if flat.size else flat
    return reshape(out, x.shape)


@host_shortcut(_choose_on_host)
def choose(a: ArrayLike, choices: Sequence[ArrayLike], out: None = None, mode: str = "raise"
           ) -> Array:
    """Elementwise, ``choices[a]``: the entry of choice array number ``a`` (all broadcast
    together). ``mode``: "raise" (needs a concrete ``a``), "wrap" or "clip".

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.choose(fnp.array([0, 1, 1]), [fnp.array([1, 2, 3]), fnp.array([10, 20, 30])])
        Array([ 1, 20, 30], dtype=int32)
    """
    op = "choose"
    if out is not None:
        raise op_value_error(op, "out= is not supported: funcarray arrays are immutable")
    a = asarray_arg(op, a)
    choices = [asarray_arg(op, c) for c in choices]
    if a.dtype.kind not in "iu":
        raise op_type_error(op, f"a must be an integer array, got dtype {a.dtype}")
    n = len(choices)
    if n == 0:
        raise op_value_error(op, "choices must not be empty")
    if mode == "raise":
        if isinstance(a, Tracer):
            raise a._concretization_error(f"{op}: mode='raise' checks the values of a; use "
                                          f"mode='wrap' or mode='clip' under jit/vmap/grad")
        value = np.asarray(a)
        if value.size and (value.min() < 0 or value.max() >= n):
            raise op_value_error(op, f"an entry of a is out of range for {n} choices; use "
                                     f"mode='wrap' or mode='clip' to allow it")
    elif mode == "wrap":
        a = a % n
    elif mode == "clip":
        a = clip(a, 0, n - 1)
    else:
        raise op_value_error(op, f"mode must be 'raise', 'wrap' or 'clip', got {mode!r}")
    a, *choices = broadcast_arrays(a, *choices)
    return stack(choices)[(a,) + _indices(a.shape, sparse=True)]


# --------------------------------------------------------------------------------------------
# put, put_along_axis, fill_diagonal, place
# --------------------------------------------------------------------------------------------

_HOST_ARRAYS = (Array, DeviceArray)
_PUT_VALUES = (Array, DeviceArray, bool, int, float, list, tuple)


def _host_operand(op, x):
    """``x`` as a host Array where it is one or a list/tuple (of numbers), else None."""
    t = type(x)
    if t is Array or t is DeviceArray:
        return x
    if (t is list or t is tuple) and x and all(
            type(e) is int and -2**31 <= e < 2**31 for e in x):
        return Array(np.asarray(x, np.int32))  # (what asarray_arg makes of it, directly)
    return asarray_arg(op, x) if t is list or t is tuple else None


_DOUBLE_ROUNDED = (np.dtype(np.float32), np.dtype(np.float64))


def _host_values(op, v, dtype, weak):
    """The NumPy value of ``convert_arg(op, v, dtype, weak)``. A list of Python floats is
    rounded once from double precision either way: to float32 or float64 directly."""
    t = type(v)
    if (t is list or t is tuple) and v and dtype in _DOUBLE_ROUNDED and all(
            type(e) is float for e in v):
        return np.asarray(v, dtype)
    return convert_arg(op, v, dtype, weak)._value


def _distinct(positions, size: int | None = None) -> bool:
    """Whether ``positions`` holds no position twice (and, given ``size``, only positions
    in ``[0, size)``)."""
    if positions.size <= 16:  # (np.unique or a reduction costs ~1 us even for two)
        listed = positions.tolist()
        if size is not None and (min(listed) < 0 or max(listed) >= size):
            return False
        return len(set(listed)) == len(listed)
    if size is not None and (positions.min() < 0 or positions.max() >= size):
        return False
    return np.unique(positions).size == positions.size


def _put_on_host(a, ind, v, mode=None, *, inplace=True):
    # Host arrays (ind also a list, v also a Python scalar or list), inplace=False, positions
    # without duplicates and (mode None) in range: NumPy's put on a copy. Duplicates and
    # dropped positions take the general path, whose scatter decides which write wins.
    if inplace is not False or type(a) not in _HOST_ARRAYS or (
            type(v) not in _PUT_VALUES) or (mode is not None and mode != "clip"
                                            and mode != "wrap"):
        return NotImplemented
    ind = _host_operand("put", ind)
    if ind is None:
        return NotImplemented
    value, positions = a._value, ind._value.ravel()
    if positions.dtype.kind not in "iu" or not value.size or not positions.size:
        return NotImplemented
    values = _host_values("put", v, value.dtype, a._weak).ravel()
    if not values.size:
        return NotImplemented
    size = value.size
    if mode == "clip":
        positions = np.clip(positions, 0, size - 1)
    elif mode == "wrap":
        positions = np.mod(positions, size)
    if not _distinct(positions, None if mode else size):
        return NotImplemented
    out = value.copy()
    out.put(positions, values)  # (the method: np.put's Python wrapper costs ~1.5 us)
    return Array(out, a._weak)


@host_shortcut(_put_on_host)
def put(a: ArrayLike, ind: ArrayLike, v: ArrayLike, mode: str | None = None, *,
        inplace: bool = True) -> Array:
    """``a`` with the flat positions ``ind`` set to ``v`` (cycled to the length of ``ind``),
    as a new array: pass ``inplace=False``. ``mode``: None drops out-of-range positions,
    "clip" clamps them, "wrap" takes them modulo ``a.size``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.put(fnp.zeros(5, dtype=int), fnp.array([0, 2, 4]), 7, inplace=False)
        Array([7, 0, 7, 0, 7], dtype=int32)
    """
    op = "put"
    _refuse_inplace(op, inplace)
    a = asarray_arg(op, a)
    ind = ravel(asarray_arg(op, ind))
    v = ravel(convert_arg(op, v, a.dtype, a.weak_type))
    if ind.dtype.kind not in "iu":
        raise op_type_error(op, f"ind must be integers, got dtype {ind.dtype}")
    if not a.size or not ind.size or not v.size:
        return a
    v = _tile_to_size(v, ind.shape[0])
    if mode is None:
        scatter_mode = "drop"
    elif mode == "clip":
        ind, scatter_mode = clip(ind, 0, a.size - 1), "promise_in_bounds"
    elif mode == "wrap":
        ind, scatter_mode = ind % a.size, "promise_in_bounds"
    elif mode == "raise":
        raise op_value_error(op, "mode='raise' is not supported (as in jax.numpy); use None, "
                                 "'clip' or 'wrap'")
    else:
        raise op_value_error(op, f"mode must be None, 'clip' or 'wrap', got {mode!r}")
    return a.at[unravel_index(ind, a.shape)].set(v, mode=scatter_mode)


@host_shortcut(_put_along_axis_on_host)
def put_along_axis(arr: ArrayLike, indices: ArrayLike, values: ArrayLike, axis: int | None,
                   inplace: bool = True, *, mode: str | None = None) -> Array:
    """``arr`` with ``values`` written at ``indices`` along ``axis`` (the inverse of
    ``take_along_axis``), as a new array: pass ``inplace=False``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> x = fnp.zeros((2, 3), dtype=int)
        >>> fnp.put_along_axis(x, fnp.array([[2], [0]]), 5, axis=1, inplace=False)
        Array([[0, 0, 5],
               [5, 0, 0]], dtype=int32)
    """
    op = "put_along_axis"
    _refuse_inplace(op, inplace)
    arr = asarray_arg(op, arr)
    indices = asarray_arg(op, indices)
    values = asarray_arg(op, values)
    if indices.dtype.kind not in "iu":
        raise op_type_error(op, f"indices must be integers, got dtype {indices.dtype}")
    shape = tuple(arr.shape)
    if axis is None:
        arr, axis = ravel(arr), 0
    if arr.ndim != indices.ndim:
        raise op_value_error(op, f"arr {tuple(arr.shape)} and indices {tuple(indices.shape)} "
                                 f"must have the same number of dimensions")
    axis = _axis(op, axis, arr.shape)
    try:
        values = broadcast_to(values, indices.shape)
    except ValueError:
        raise op_value_error(op, f"values of shape {tuple(values.shape)} must broadcast to "
                                 f"the shape of indices {tuple(indices.shape)}") from None
    index = []
    for d in range(arr.ndim):
        if d == axis:
            index.append(indices)
        else:
            # Other dimensions: an iota along d, broadcast against the indices.
            index.append(arange(indices.shape[d]).reshape(
                tuple(-1 if e == d else 1 for e in range(arr.ndim))))
    return reshape(arr.at[tuple(index)].set(values, mode=mode), shape)


@host_shortcut(_fill_diagonal_on_host)
def fill_diagonal(a: ArrayLike, val: ArrayLike, wrap: bool = False, *, inplace: bool = True
                  ) -> Array:
    """``a`` with its main diagonal set to ``val`` (a scalar, or values cycled along the
    diagonal), as a new array: pass ``inplace=False``. Arrays of more than 2 dimensions must
    have equal dimensions.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.fill_diagonal(fnp.zeros((2, 3), dtype=int), 4, inplace=False)
        Array([[4, 0, 0],
               [0, 4, 0]], dtype=int32)
    """
    op = "fill_diagonal"
    _refuse_inplace(op, inplace)
    if wrap:
        raise op_value_error(op, "wrap=True is not supported (as in jax.numpy); leave it False")
    a = asarray_arg(op, a)
    val = convert_arg(op, val, a.dtype, a.weak_type)
    if a.ndim < 2:
        raise op_value_error(op, f"a must be at least 2-D, got shape {tuple(a.shape)}")
    if a.ndim > 2 and builtins.any(n != a.shape[0] for n in a.shape[1:]):
        raise op_value_error(op, f"an array of more than 2 dimensions must have equal "
                                 f"dimensions, got shape {tuple(a.shape)}")
    n = builtins.min(a.shape)
    index = (arange(n),) * a.ndim
    return a.at[index].set(val if val.ndim == 0 else _tile_to_size(ravel(val), n))


def _place_on_host(arr, mask, vals, *, inplace=True):
    # Host arrays (mask also a list, vals also a Python scalar or list), inplace=False,
    # non-empty: NumPy's place on a copy, with the general path's truth test of the mask
    # (``mask != 0``).
    if inplace is not False or type(arr) not in _HOST_ARRAYS or type(vals) not in _PUT_VALUES:
        return NotImplemented
    mask = _host_operand("place", mask)
    if mask is None:
        return NotImplemented
    value, which = arr._value, mask._value
    if value.size != which.size or not value.size:
        return NotImplemented
    values = _host_values("place", vals, value.dtype, arr._weak).ravel()
    if not values.size:
        return NotImplemented
    out = value.copy()
    np.place(out, (which if which.dtype == np.bool_ else which != 0).reshape(value.shape),
             values)
    return Array(out, arr._weak)


@host_shortcut(_place_on_host)
def place(arr: ArrayLike, mask: ArrayLike, vals: ArrayLike, *, inplace: bool = True) -> Array:
    """``arr`` with the positions where ``mask`` is true set to ``vals`` in order (cycled), as
    a new array: pass ``inplace=False``. ``mask`` may be traced.

    Example:
        >>> import funcarray.numpy as fnp
        >>> x = fnp.arange(5)
        >>> fnp.place(x, x % 2 == 1, fnp.array([10, 20]), inplace=False)
        Array([ 0, 10,  2, 20,  4], dtype=int32)
    """
    op = "place"
    arr = asarray_arg(op, arr)
    mask = asarray_arg(op, mask)
    vals = ravel(convert_arg(op, vals, arr.dtype, arr.weak_type))
    _refuse_inplace(op, inplace)
    if arr.size != mask.size:
        raise op_value_error(op, f"arr {tuple(arr.shape)} and mask {tuple(mask.shape)} must "
                                 f"have the same size")
    if not vals.size:
        raise op_value_error(op, "vals must not be empty")
    if not arr.size:
        return arr
    (positions,) = nonzero(ravel(mask), size=mask.size, fill_value=mask.size)
    vals = _tile_to_size(vals, positions.shape[0])
    return ravel(arr).at[positions].set(vals, mode="drop").reshape(arr.shape)
