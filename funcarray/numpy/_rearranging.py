"""Rearranging functions of ``funcarray.numpy``: flipping and rotating (``flip``,
``fliplr``, ``flipud``, ``rot90``, ``roll``) and tiling (``tile``, ``repeat``).

As in ``_shape``, everything that decides a result's shape (shifts, repeat counts, axes) must
be concrete; the array operands may be traced. Results keep the operand's weak type, as in
JAX.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from funcarray.api.arguments import (
    _axis,
    _broadcast_along,
    _concatenate,
    _concrete_int,
    _int_tuple,
    _is_single_int,
    _reshape,
    _rev,
    _transpose,
    asarray_arg,
    broadcast_to_shape,
    convert,
)
from funcarray.base import dtypes
from funcarray.base.array import Array
from funcarray.base.errors import op_type_error, op_value_error
from funcarray.numpy._elementwise import minimum
from funcarray.numpy._index_routines import take
from funcarray.numpy._rearranging_on_host import (
    flip_on_host,
    fliplr_on_host,
    flipud_on_host,
    repeat_on_host,
    roll_on_host,
    tile_on_host,
)
from funcarray.numpy._reductions import cumsum
from funcarray.numpy._search import searchsorted
from funcarray.numpy._shape import _axes
from funcarray.primitives._axis_slice import slice_axis as _slice_axis
from funcarray.primitives.shape import broadcast_in_dim_p, iota_p
from funcarray.transforms.core import Tracer
from funcarray.transforms.host_shortcuts import host_shortcut

if TYPE_CHECKING:
    from collections.abc import Sequence

    from funcarray.base.typing import ArrayLike, Axis


__all__ = ["flip", "fliplr", "flipud", "repeat", "roll", "rot90", "tile"]


# --------------------------------------------------------------------------------------------
# Flipping, rotating, rolling
# --------------------------------------------------------------------------------------------

@host_shortcut(flip_on_host)
def flip(m: ArrayLike, axis: Axis = None) -> Array:
    """Reverse the order of elements along ``axis`` (all axes by default).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.flip(fnp.arange(3))
        Array([2, 1, 0], dtype=int32)
    """
    m = asarray_arg("flip", m)
    axes = tuple(range(m.ndim)) if axis is None else _axes("flip", axis, m.shape)
    return _rev(m, axes)


def _flip_min_ndim(op: str, m, min_ndim: int, axis: int):
    m = asarray_arg(op, m)
    if m.ndim < min_ndim:
        raise op_value_error(op, f"needs an array of at least {min_ndim} dimension(s), got "
                                 f"shape {m.shape}")
    return _rev(m, (axis,))


@host_shortcut(fliplr_on_host)
def fliplr(m: ArrayLike) -> Array:
    """Reverse the columns (axis 1) of an array of at least 2 dimensions.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.fliplr(fnp.arange(4).reshape(2, 2))
        Array([[1, 0],
               [3, 2]], dtype=int32)
    """
    return _flip_min_ndim("fliplr", m, 2, 1)


@host_shortcut(flipud_on_host)
def flipud(m: ArrayLike) -> Array:
    """Reverse the rows (axis 0) of an array of at least 1 dimension.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.flipud(fnp.arange(3))
        Array([2, 1, 0], dtype=int32)
    """
    return _flip_min_ndim("flipud", m, 1, 0)


def rot90(m: ArrayLike, k: int = 1, axes: tuple[int, int] = (0, 1)) -> Array:
    """Rotate by 90 degrees ``k`` times in the plane of ``axes``, from the first axis toward
    the second.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.rot90(fnp.arange(4).reshape(2, 2))
        Array([[1, 3],
               [0, 2]], dtype=int32)
    """
    m = asarray_arg("rot90", m)
    axes = _int_tuple("rot90", axes, "axes")
    if len(axes) != 2 or m.ndim < 2:
        raise op_value_error("rot90", f"needs two axes of an array of at least 2 dimensions, "
                                      f"got axes={axes} for shape {m.shape}")
    first, second = _axes("rot90", axes, m.shape)
    k = _concrete_int("rot90", k, "k") % 4
    if k == 0:
        return m
    if k == 2:
        return _rev(m, (first, second))
    perm = list(range(m.ndim))
    perm[first], perm[second] = second, first
    if k == 1:
        return _transpose(_rev(m, (second,)), tuple(perm))
    return _rev(_transpose(m, tuple(perm)), (second,))


@host_shortcut(roll_on_host)
def roll(a: ArrayLike, shift: ArrayLike | Sequence[int], axis: Axis = None) -> Array:
    """Shift elements cyclically along ``axis`` (of the flattened array when None).

    ``shift`` and ``axis`` may be tuples (broadcast against each other); shifts must be
    concrete.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.roll(fnp.arange(5), 2)
        Array([3, 4, 0, 1, 2], dtype=int32)
    """
    a = asarray_arg("roll", a)
    if axis is None:
        return _reshape(roll(_reshape(a, (a.size,)), shift, 0), a.shape)
    shifts = _int_tuple("roll", shift, "shift")
    axes = tuple(_axis("roll", ax, a.shape) for ax in _int_tuple("roll", axis, "axis"))
    if len(shifts) != len(axes) and 1 not in (len(shifts), len(axes)):
        raise op_value_error("roll", f"shift {shifts} and axis {axes} must have the same "
                                     f"length (or one of them length 1)")
    count = max(len(shifts), len(axes))
    total = [0] * a.ndim
    for s, ax in zip(shifts * (count // len(shifts)), axes * (count // len(axes))):
        total[ax] += s
    for ax, s in enumerate(total):
        size = a.shape[ax]
        if size and s % size:
            cut = size - s % size
            a = _concatenate([_slice_axis(a, ax, cut, size), _slice_axis(a, ax, 0, cut)], ax)
    return a


# --------------------------------------------------------------------------------------------
# Tiling
# --------------------------------------------------------------------------------------------

@host_shortcut(tile_on_host)
def tile(A: ArrayLike, reps: int | Sequence[int]) -> Array:
    """Repeat the whole array ``reps`` times along each axis.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.tile(fnp.arange(2), (2, 2))
        Array([[0, 1, 0, 1],
               [0, 1, 0, 1]], dtype=int32)
    """
    A = asarray_arg("tile", A)
    reps = _int_tuple("tile", reps, "reps")
    if any(r < 0 for r in reps):
        raise op_value_error("tile", f"reps must not be negative, got {reps}")
    ndim = max(len(reps), A.ndim)
    shape = (1,) * (ndim - A.ndim) + A.shape
    reps = (1,) * (ndim - len(reps)) + reps
    # Broadcast to (r0, s0, r1, s1, ...) and merge each pair of axes: one copy per repeat.
    interleaved = tuple(n for pair in zip(reps, shape) for n in pair)
    tiled = broadcast_in_dim_p.bind(_reshape(A, shape), shape=interleaved,
                                    broadcast_dimensions=tuple(range(1, 2 * ndim, 2)))
    return _reshape(tiled, tuple(r * s for r, s in zip(reps, shape)))


def _repeat_traced(a, axis: int, repeats, total: int):
    """``repeat`` with counts known only when the program runs (a traced ``repeats``) and the
    result's length fixed by ``total_repeat_length``, as jax allows: output position ``j``
    takes the element whose block of repeats holds ``j``, the last element past the blocks."""
    size = a.shape[axis]
    if size == 0 and total:
        raise op_value_error("repeat", f"cannot fill total_repeat_length={total} from an empty "
                                       f"axis {axis} of shape {a.shape}")
    if not size or not total:
        return _slice_axis(a, axis, 0, 0)
    counts = convert(repeats, dtypes.int32)
    if counts.shape not in ((), (1,), (size,)):
        raise op_value_error("repeat", f"repeats of shape {counts.shape} do not match an axis "
                                       f"of size {size}")
    if counts.shape != (size,):
        counts = broadcast_to_shape(_reshape(counts, ()), (size,))
    block_ends = cumsum(counts)
    positions = iota_p.bind(dtype=dtypes.int32, shape=(total,), dimension=0)
    owners = searchsorted(block_ends, positions, side="right")
    return take(a, minimum(owners, size - 1), axis=axis)


def _repeat_counts(repeats, size: int):
    """Repeat counts as an int (one for every element) or a list of ``size`` ints."""
    if isinstance(repeats, Tracer):
        raise op_type_error(
            "repeat", f"repeats must be concrete (the result's size depends on them), got a "
                      f"traced array {repeats.aval}; or give total_repeat_length, the result's "
                      f"length")
    if _is_single_int(repeats):
        counts = _concrete_int("repeat", repeats, "repeats")
    else:
        counts = list(_int_tuple("repeat", repeats, "repeats"))
        if len(counts) == 1:
            counts = counts[0]
        elif len(counts) != size:
            raise op_value_error("repeat", f"{len(counts)} repeat counts do not match an axis "
                                           f"of size {size}")
    if min(counts if isinstance(counts, list) else [counts], default=0) < 0:
        raise op_value_error("repeat", f"repeats must not be negative, got {repeats!r}")
    return counts


def _repeat_each(x, axis: int, count: int):
    """Every element along ``axis`` repeated ``count`` times, in place."""
    spread = list(x.shape)
    spread.insert(axis + 1, count)
    dims = tuple(d if d <= axis else d + 1 for d in range(x.ndim))
    out = broadcast_in_dim_p.bind(x, shape=tuple(spread), broadcast_dimensions=dims)
    merged = list(x.shape)
    merged[axis] *= count
    return _reshape(out, tuple(merged))


@host_shortcut(repeat_on_host)
def repeat(a: ArrayLike, repeats: ArrayLike, axis: int | None = None, *,
           total_repeat_length: int | None = None) -> Array:
    """Repeat each element ``repeats`` times along ``axis`` (of the flattened array when
    None).

    ``repeats`` is an int, or one concrete count per element. ``total_repeat_length``, as in
    JAX, cuts the result to that length or extends it by repeating the last element.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.repeat(fnp.arange(3), [1, 0, 2])
        Array([0, 2, 2], dtype=int32)
    """
    a = asarray_arg("repeat", a)
    if axis is None or a.ndim == 0:  # (a 0-d array repeats as a 1-d one, as in NumPy)
        if a.ndim == 0 and axis is not None:
            _axis("repeat", axis, (1,))
        a, axis = _reshape(a, (a.size,)), 0
    axis = _axis("repeat", axis, a.shape)
    size = a.shape[axis]
    if isinstance(repeats, Tracer) and total_repeat_length is not None:
        return _repeat_traced(a, axis, repeats, _concrete_int(
            "repeat", total_repeat_length, "total_repeat_length"))
    counts = _repeat_counts(repeats, size)
    if total_repeat_length is not None:
        total = _concrete_int("repeat", total_repeat_length, "total_repeat_length")
        counts = [counts] * size if isinstance(counts, int) else counts
        if counts and sum(counts) < total:
            counts[-1] += total - sum(counts)
    if isinstance(counts, int):
        return _repeat_each(a, axis, counts)
    if len(set(counts)) == 1:
        out = _repeat_each(a, axis, counts[0])
    else:
        pieces = [_broadcast_along(_slice_axis(a, axis, i, i + 1), axis, c)
                  for i, c in enumerate(counts) if c]
        out = _concatenate(pieces, axis) if pieces else _slice_axis(a, axis, 0, 0)
    if total_repeat_length is not None and out.shape[axis] > total:
        out = _slice_axis(out, axis, 0, total)
    return out
