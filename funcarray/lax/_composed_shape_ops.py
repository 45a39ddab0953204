"""More of ``jax.lax``'s shape operations: ``tile``, ``stack``, ``unstack``, ``split``,
``empty``, ``broadcast_to_rank`` and ``index_take``.

Each is composed from funcarray's shape primitives (``broadcast_in_dim``, ``reshape``,
``slice``, ``concatenate``, ``gather``), so eager, jit, grad and vmap come from their rules;
the wrappers only check their arguments with jax.lax's strictness (one dtype, no promotion).

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray import lax
    >>> lax.tile(fnp.array([1, 2]), (3,))
    Array([1, 2, 1, 2, 1, 2], dtype=int32)
"""

from __future__ import annotations

from itertools import repeat
from typing import TYPE_CHECKING

import numpy as np

from funcarray.api.arguments import _int_tuple
from funcarray.base import dtypes
from funcarray.base.array import Array, DeviceArray
from funcarray.base.errors import axis_error, op_type_error, op_value_error
from funcarray.lax._ops_common import (
    _dtype_arg,
    _int,
    _operand,
    _plain_ints,
    _same_dtype_operands,
    _short,
)
from funcarray.transforms.host_shortcuts import host_shortcut, host_value

if TYPE_CHECKING:
    from collections.abc import Sequence

    from funcarray.base.typing import ArrayLike, DTypeLike, Shape

__all__ = ["tile", "stack", "unstack", "split", "empty", "broadcast_to_rank", "index_take"]


def _canonical_axis(op: str, axis, ndim: int) -> int:
    axis = _int(op, "axis", axis)
    if not -ndim <= axis < ndim:
        raise axis_error(op, axis, ndim)
    return axis % ndim


# Host shortcuts (transforms/host_shortcuts.py): a concrete operand and plain int arguments
# that pass the general path's checks give the result's NumPy value at once (views where the
# general path's kernels give them: values are never mutated).
def _axis_on_host(axis, ndim: int) -> int | None:
    """``axis`` (a Python int, negative allowed) as a non-negative axis, or None."""
    if type(axis) is not int or not -ndim <= axis < ndim:
        return None
    return axis % ndim


def _tile_on_host(operand, reps):
    v, reps = host_value(operand), _plain_ints(reps)
    if v is None or reps is None or len(reps) != v.ndim or any(r < 0 for r in reps):
        return NotImplemented
    if not reps:
        return operand
    return Array(np.tile(v, reps), operand._weak)


@host_shortcut(_tile_on_host)
def tile(operand: ArrayLike, reps: Sequence[int]) -> Array:
    """Repeat ``operand`` ``reps[i]`` times along each axis ``i`` (one entry per axis).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.tile(fnp.array([[1, 2], [3, 4]]), (2, 3))
        Array([[1, 2, 1, 2, 1, 2],
               [3, 4, 3, 4, 3, 4],
               [1, 2, 1, 2, 1, 2],
               [3, 4, 3, 4, 3, 4]], dtype=int32)
    """
    from funcarray import lax

    op = "lax.tile"
    x = _operand(op, operand)
    reps = _int_tuple(op, reps, "reps", sequence_only=True)
    if len(reps) != x.ndim:
        raise op_type_error(op, f"reps length must be equal to the ndim of x, got "
                                f"len(reps)={len(reps)} for {_short(x)}; give one count per "
                                f"axis (funcarray.numpy.tile pads shorter reps)")
    if any(r < 0 for r in reps):
        raise op_value_error(op, f"reps={reps} must be non-negative")
    # (r0, s0, r1, s1, ...) then merge each pair: the copies of each axis lie outside it.
    shape = tuple(d for r, s in zip(reps, x.shape) for d in (r, s))
    wide = lax.broadcast_in_dim(x, shape, tuple(range(1, 2 * x.ndim, 2)))
    return lax.reshape(wide, tuple(r * s for r, s in zip(reps, x.shape)))


def _stack_on_host(operands, axis=0):
    """``np.stack`` of host arrays of one shape, dtype and weak type (anything else, and a
    non-int axis, takes the general path)."""
    if (type(operands) is not list and type(operands) is not tuple) or not operands:
        return NotImplemented
    first = operands[0]
    for a in operands:
        if type(a) is not Array and type(a) is not DeviceArray:
            return NotImplemented
        if a.dtype != first.dtype or a._weak != first._weak or a.shape != first.shape:
            return NotImplemented
    if type(axis) is not int or not -first.ndim - 1 <= axis <= first.ndim:
        return NotImplemented
    return Array(np.stack([a._value for a in operands], axis=axis), first._weak)


@host_shortcut(_stack_on_host)
def stack(operands: Sequence[ArrayLike], axis: int = 0) -> Array:
    """Stack arrays of one shape and dtype along a new axis ``axis``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.stack([fnp.array([1, 2]), fnp.array([3, 4])], axis=1)
        Array([[1, 3],
               [2, 4]], dtype=int32)
    """
    from funcarray import lax

    op = "lax.stack"
    if isinstance(operands, (str, bytes)) or not hasattr(operands, "__len__"):
        raise op_type_error(op, f"operands must be a sequence of arrays, got "
                                f"{type(operands).__name__}")
    if len(operands) == 0:
        raise op_value_error(op, "needs at least one array to stack")
    arrays = _same_dtype_operands(op, list(operands), equivalent="stack")
    shapes = {tuple(a.shape) for a in arrays}
    if len(shapes) > 1:
        raise op_value_error(op, f"all input arrays must have the same shape, got "
                                 f"{', '.join(str(tuple(a.shape)) for a in arrays)}")
    axis = _canonical_axis(op, axis, arrays[0].ndim + 1)
    return lax.concatenate([lax.expand_dims(a, (axis,)) for a in arrays], axis)


def _unstack_on_host(x, axis=0):
    v = host_value(x)
    if v is None or not v.ndim:
        return NotImplemented
    axis = _axis_on_host(axis, v.ndim)
    if axis is None:
        return NotImplemented
    weak = x._weak
    if v.ndim == 1:  # (iterating would give NumPy scalars: 0-d views instead)
        return tuple(Array(v[i, ...], weak) for i in range(v.shape[0]))
    return tuple(map(Array, np.moveaxis(v, axis, 0) if axis else v, repeat(weak)))


@host_shortcut(_unstack_on_host)
def unstack(x: ArrayLike, axis: int = 0) -> tuple[Array, ...]:
    """The slices of ``x`` along ``axis``, as a tuple (``axis`` removed from each).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.unstack(fnp.array([[1, 2], [3, 4]]), axis=1)
        (Array([1, 3], dtype=int32), Array([2, 4], dtype=int32))
    """
    from funcarray import lax

    op = "lax.unstack"
    x = _operand(op, x)
    if x.ndim == 0:
        raise op_value_error(op, "cannot unstack a 0-d array: it has no axis")
    axis = _canonical_axis(op, axis, x.ndim)
    return tuple(lax.index_in_dim(x, i, axis, keepdims=False) for i in range(x.shape[axis]))


def _split_on_host(operand, sizes, axis=0):
    v, sizes = host_value(operand), _plain_ints(sizes)
    if v is None or sizes is None or not v.ndim:
        return NotImplemented
    axis = _axis_on_host(axis, v.ndim)
    if axis is None or any(s < 0 for s in sizes) or sum(sizes) != v.shape[axis]:
        return NotImplemented
    lead, weak, out, start = (slice(None),) * axis, operand._weak, [], 0
    for size in sizes:
        out.append(Array(v[(*lead, slice(start, start + size))], weak))
        start += size
    return out


@host_shortcut(_split_on_host)
def split(operand: ArrayLike, sizes: Sequence[int], axis: int = 0) -> list[Array]:
    """Split ``operand`` along ``axis`` into pieces of ``sizes`` (which sum to its length);
    returns a list.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.split(fnp.arange(5), (2, 3))
        [Array([0, 1], dtype=int32), Array([2, 3, 4], dtype=int32)]
    """
    from funcarray import lax

    op = "lax.split"
    x = _operand(op, operand)
    sizes = _int_tuple(op, sizes, "sizes", sequence_only=True)
    if x.ndim == 0:
        raise op_value_error(op, "cannot split a 0-d array: it has no axis")
    axis = _canonical_axis(op, axis, x.ndim)
    if any(s < 0 for s in sizes):
        raise op_value_error(op, f"sizes={sizes} must be non-negative")
    if sum(sizes) != x.shape[axis]:
        raise op_value_error(op, f"sum of sizes {sum(sizes)} must be equal to dimension {axis} "
                                 f"of the operand {_short(x)}")
    starts = np.cumsum((0,) + sizes)
    return [lax.slice_in_dim(x, int(lo), int(hi), axis=axis)
            for lo, hi in zip(starts[:-1], starts[1:])]


def _empty_on_host(shape, dtype, *, out_sharding=None):
    shape = (shape,) if type(shape) is int else _plain_ints(shape)
    if shape is None or out_sharding is not None or any(d < 0 for d in shape):
        return NotImplemented
    return Array(np.zeros(shape, dtypes.canonicalize_dtype(dtype)))


@host_shortcut(_empty_on_host)
def empty(shape: Shape, dtype: DTypeLike, *, out_sharding: None = None) -> Array:
    """An array of ``shape`` and ``dtype`` whose contents are unspecified (XLA allocates
    it uninitialised; funcarray fills it with zeros).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.empty((2, 3), fnp.float32).shape
        (2, 3)
    """
    from funcarray import lax

    op = "lax.empty"
    if out_sharding is not None:
        raise op_value_error(op, "out_sharding is not supported (funcarray has one device "
                                 "per computation); leave it None")
    if isinstance(shape, (int, np.integer)):
        shape = (int(shape),)
    dtype = _dtype_arg(op, dtype)
    return lax.full(shape, np.zeros((), dtype), dtype)


def _broadcast_to_rank_on_host(x, rank):
    v = host_value(x)
    if v is None or type(rank) is not int or rank < v.ndim:
        return NotImplemented
    if rank == v.ndim:
        return x
    return Array(v.reshape((1,) * (rank - v.ndim) + v.shape), x._weak)


@host_shortcut(_broadcast_to_rank_on_host)
def broadcast_to_rank(x: ArrayLike, rank: int) -> Array:
    """``x`` with leading axes of size 1 added until it has ``rank`` dimensions.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.broadcast_to_rank(fnp.arange(3), 3).shape
        (1, 1, 3)
    """
    from funcarray import lax

    op = "lax.broadcast_to_rank"
    x = _operand(op, x)
    rank = _int(op, "rank", rank)
    if rank <= x.ndim:  # jax.lax's: an operand of that rank or more is returned as it is
        return x
    return lax.broadcast(x, (1,) * (rank - x.ndim))


def _listed_within(indices, n: int) -> bool:
    """Whether a few ``indices`` (16 at most, listed in Python: ~0.2 us where the modulo
    costs ~0.7 us) all lie in ``[0, n)``, where the wrapping modulo changes none."""
    if indices.size > 16:
        return False
    for i in indices.reshape(-1).tolist():
        if not 0 <= i < n:
            return False
    return True


def _take_first_axis(src, v, index):
    """The common form, indices along the first axis: NumPy's indexing where the indices are
    a host integer array of at most 16 values all in range, else None."""
    i = host_value(index)
    if i is None or i.dtype.kind not in "iu" or not v.ndim:
        return None
    n = v.shape[0]
    # (where 2 n - 1 does not fit the index dtype, the general path's wrapping overflows)
    if not 0 < 2 * n - 1 <= dtypes.iinfo(i.dtype).max or not _listed_within(i, n):
        return None
    return Array(v[i], src._weak)


def _index_take_on_host(src, idxs, axes):
    """NumPy's indexing with the indices wrapped by a floor modulo (the general path's
    ``rem(rem(i, n) + n, n)``, where ``2 n - 1`` fits the index dtype: otherwise, or for an
    axis of size 0, the general path) then clipped in range by the gather, a no-op."""
    v = host_value(src)
    if axes == (0,) and type(idxs) in (list, tuple) and len(idxs) == 1 and v is not None:
        taken = _take_first_axis(src, v, idxs[0])
        if taken is not None:
            return taken
    axes = _plain_ints(axes)
    if (v is None or axes is None or not axes or (type(idxs) is not list and type(idxs) is
                                                     not tuple) or len(idxs) != len(axes)
            or len(set(axes)) != len(axes) or any(not 0 <= a < v.ndim for a in axes)):
        return NotImplemented
    indices = [host_value(i) for i in idxs]
    first = indices[0]
    if first is None or first.dtype.kind not in "iu":
        return NotImplemented
    limit = dtypes.iinfo(first.dtype).max
    for i in indices:
        if i is None or i.dtype != first.dtype or i.shape != first.shape:
            return NotImplemented
    sizes = [v.shape[a] for a in axes]
    if any(not 0 < 2 * n - 1 <= limit for n in sizes):
        return NotImplemented
    if axes == (0,):  # (the common form: no axes to move)
        n = sizes[0]
        return Array(v[first if _listed_within(first, n) else np.mod(first, n)], src._weak)
    moved = np.moveaxis(v, axes, range(len(axes)))
    return Array(moved[tuple(np.mod(i, n) for i, n in zip(indices, sizes))], src._weak)


@host_shortcut(_index_take_on_host)
def index_take(src: ArrayLike, idxs: ArrayLike, axes: Sequence[int]) -> Array:
    """``src`` indexed at the points ``(idxs[0][j], idxs[1][j], ...)`` along ``axes`` (other
    axes kept); indices wrap around modulo each axis's size, as in jax.lax.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> x = fnp.arange(12).reshape(3, 4)
        >>> lax.index_take(x, (fnp.array([0, 2, -1]), fnp.array([1, 5, 3])), (0, 1))
        Array([ 1,  9, 11], dtype=int32)
    """
    from funcarray import lax
    from funcarray.lax._ops_slicing import GatherDimensionNumbers

    op = "lax.index_take"
    x = _operand(op, src, "src")
    axes = _int_tuple(op, axes, "axes", sequence_only=True)
    if isinstance(idxs, (str, bytes)) or not hasattr(idxs, "__len__"):
        raise op_type_error(op, f"idxs must be a sequence of index arrays (one per axis), "
                                f"got {type(idxs).__name__}")
    idxs = [_operand(op, i, "idxs") for i in idxs]
    if len(idxs) != len(axes) or not axes:
        raise op_value_error(op, f"needs one index array per axis and at least one: got "
                                 f"{len(idxs)} index arrays for axes={axes}")
    if len(set(axes)) != len(axes) or any(not 0 <= a < x.ndim for a in axes):
        raise op_value_error(op, f"axes={axes} must be distinct axes of {_short(x)} in "
                                 f"[0, {x.ndim})")
    for i in idxs:
        if i.dtype.kind not in "iu":
            raise op_type_error(op, f"index arrays must be integers, got {_short(i)}")
    idxs = _same_dtype_operands(op, idxs)
    if len({tuple(i.shape) for i in idxs}) > 1:
        raise op_value_error(op, f"index arrays must have one shape, got "
                                 f"{', '.join(_short(i) for i in idxs)}")
    indices = lax.concatenate([lax.expand_dims(i, (i.ndim,)) for i in idxs], idxs[0].ndim)
    bounds = lax.broadcast_in_dim(np.asarray([x.shape[a] for a in axes], indices.dtype),
                                  indices.shape, (indices.ndim - 1,))
    indices = lax.rem(lax.add(lax.rem(indices, bounds), bounds), bounds)  # (floor modulo)
    sizes = tuple(1 if a in axes else d for a, d in enumerate(x.shape))
    dn = GatherDimensionNumbers(
        offset_dims=tuple(range(indices.ndim - 1, indices.ndim - 1 + x.ndim - len(axes))),
        collapsed_slice_dims=tuple(sorted(axes)), start_index_map=axes)
    return lax.gather(x, indices, dn, sizes)
