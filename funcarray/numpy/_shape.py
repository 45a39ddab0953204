"""Shape functions of ``funcarray.numpy``: reshaping, transposing, broadcasting, joining,
splitting. Flipping and tiling live in ``_rearranging``, padding in ``_padding``; triangles
and diagonals in ``_diagonals``.

NumPy's semantics (negative axes, ``-1`` in shapes, Python slicing rules in ``split``, the pad
modes) are resolved here, in Python, into the strict shape primitives of
``funcarray.primitives.shape``. Everything that decides a result's shape (shapes, axes,
section counts, pad widths, shifts, repeat counts) must be concrete; the array operands may be
traced, so every function works eagerly and under every transform.

Results keep the operand's weak type, as in JAX: ``fnp.flip(fnp.full(3, 1.0))`` is still
weak-typed. Functions that join several arrays promote them to one dtype first.
"""

from __future__ import annotations

import builtins
import math
from typing import TYPE_CHECKING, overload

import numpy as np

from funcarray.api.arguments import (
    _axis,
    _broadcast_to_checked,
    _concatenate_arrays,
    _concrete_int,
    _int_tuple,
    _is_single_int,
    _moveaxes,
    _reshape,
    _stack_arrays,
    _transpose,
    _unstack,
    asarray_arg,
    broadcast_to_shape,
    convert,
    is_array,
)
from funcarray.api.arguments import broadcast_shapes as _broadcast_shapes
from funcarray.base import dtypes
from funcarray.base.array import Array
from funcarray.base.errors import op_value_error
from funcarray.lax._utilities import broadcast_shapes
from funcarray.numpy._extended_arrays import (
    any_extended,
    extended_broadcast,
    extended_expand_dims,
    extended_join,
    is_extended,
)
from funcarray.numpy._shape_on_host import (
    _atleast_1d_on_host,
    _atleast_2d_on_host,
    _atleast_3d_on_host,
    _column_stack_on_host,
    _concat_on_host,
    _concatenate_on_host,
    _dstack_on_host,
    _expand_dims_on_host,
    _hstack_on_host,
    _matrix_transpose_on_host,
    _moveaxis_on_host,
    _permute_dims_on_host,
    _ravel_on_host,
    _reshape_on_host,
    _squeeze_on_host,
    _stack_on_host,
    _swapaxes_on_host,
    _transpose_on_host,
    _vstack_on_host,
    at_least_1d_shape,
    at_least_2d_shape,
    at_least_3d_shape,
)
from funcarray.primitives._axis_slice import slice_axis as _slice_axis
from funcarray.primitives.shape import (
    broadcast_in_dim_p,
    squeeze_p,
)
from funcarray.transforms.host_shortcuts import host_shortcut

if TYPE_CHECKING:
    from collections.abc import Sequence

    from funcarray.base.typing import ArrayLike, Axis, DTypeLike, ShapeLike

__all__ = [
    "reshape", "ravel", "transpose", "permute_dims", "matrix_transpose", "moveaxis",
    "swapaxes", "expand_dims", "squeeze", "broadcast_to", "broadcast_arrays",
    "broadcast_shapes", "atleast_1d", "atleast_2d", "atleast_3d", "concatenate", "concat",
    "stack", "vstack", "hstack", "dstack", "column_stack", "split", "array_split", "vsplit",
    "hsplit", "dsplit",
]


# --------------------------------------------------------------------------------------------
# Concrete arguments: ints, shapes, axes
# --------------------------------------------------------------------------------------------

def _axes(op: str, axes, shape, ndim: int | None = None) -> tuple:
    """An int or a sequence of ints as a tuple of unique non-negative axes, in given order."""
    out = tuple(_axis(op, a, shape, ndim) for a in _int_tuple(op, axes, "axis"))
    if len(set(out)) != len(out):
        raise op_value_error(op, f"repeated axis in {axes} for an array of shape "
                                 f"{tuple(shape)}")
    return out


def _scalar(value, dtype, weak: bool) -> Array:
    return Array(np.asarray(value, dtype), weak)



# --------------------------------------------------------------------------------------------
# Reshaping
# --------------------------------------------------------------------------------------------

def _resolve_shape(op: str, size: int, old_shape, shape: tuple) -> tuple:
    """Fill in a ``-1`` entry of ``shape`` and check the element count."""
    unknown = [i for i, d in enumerate(shape) if d == -1]
    if len(unknown) > 1 or any(d < -1 for d in shape):
        raise op_value_error(op, f"invalid shape {shape}: give non-negative sizes and at most "
                                 f"one -1 (an inferred size)")
    known = math.prod(d for d in shape if d != -1)
    if unknown:
        if known == 0 or size % known:
            raise op_value_error(op, f"cannot reshape an array of shape {tuple(old_shape)} "
                                     f"({size} elements) into shape {shape}")
        shape = tuple(size // known if d == -1 else d for d in shape)
    elif known != size:
        raise op_value_error(op, f"cannot reshape an array of shape {tuple(old_shape)} "
                                 f"({size} elements) into shape {shape} ({known} elements)")
    return shape


def _reshape_in_order(op: str, a, shape, order: str):
    a = asarray_arg(op, a)
    shape = _resolve_shape(op, a.size, a.shape, _int_tuple(op, shape, "shape"))
    if order == "C":
        return _reshape(a, shape)
    if order == "F":
        # Column-major reshape = reverse the axes, reshape row-major, reverse back.
        reversed_a = _transpose(a, tuple(reversed(range(a.ndim))))
        out = _reshape(reversed_a, shape[::-1])
        return _transpose(out, tuple(reversed(range(len(shape)))))
    raise op_value_error(op, f"order must be 'C' or 'F', got {order!r}")


@host_shortcut(_reshape_on_host)
def reshape(a: ArrayLike, shape: ShapeLike, order: str = "C", *,
            copy: bool | None = None) -> Array:
    """Give ``a`` a new shape with the same number of elements; one size may be ``-1``.

    ``order="F"`` reads and writes the elements in column-major order. ``copy`` (the Array
    API's keyword) changes nothing, as in jax.numpy: arrays are immutable, so whether the
    result shares memory with ``a`` cannot be observed.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.reshape(fnp.arange(6), (2, -1))
        Array([[0, 1, 2],
               [3, 4, 5]], dtype=int32)
    """
    return _reshape_in_order("reshape", a, shape, order)


@host_shortcut(_ravel_on_host)
def ravel(a: ArrayLike, order: str = "C") -> Array:
    """The elements of ``a`` as a 1-d array (row-major, or column-major with ``order="F"``).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.ravel(fnp.arange(4).reshape(2, 2), order="F")
        Array([0, 2, 1, 3], dtype=int32)
    """
    return _reshape_in_order("ravel", a, (-1,), order)


def _permute(op: str, a, axes):
    a = asarray_arg(op, a)
    if axes is None:
        return _transpose(a, tuple(reversed(range(a.ndim))))
    axes = _int_tuple(op, axes, "axes")
    if len(axes) != a.ndim:
        raise op_value_error(op, f"axes {axes} must list each of the {a.ndim} axes of the "
                                 f"array of shape {a.shape} once")
    return _transpose(a, _axes(op, axes, a.shape))


@host_shortcut(_transpose_on_host)
def transpose(a: ArrayLike, axes: Sequence[int] | None = None) -> Array:
    """Permute the axes of ``a``: reverse them by default, or put axis ``axes[i]`` at ``i``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.transpose(fnp.zeros((2, 3, 4)), (1, 0, -1)).shape
        (3, 2, 4)
    """
    return _permute("transpose", a, axes)


@host_shortcut(_permute_dims_on_host)
def permute_dims(a: ArrayLike, /, axes: Sequence[int]) -> Array:
    """Array API name of ``transpose(a, axes)``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.permute_dims(fnp.zeros((2, 3)), (1, 0)).shape
        (3, 2)
    """
    return _permute("permute_dims", a, axes)


@host_shortcut(_matrix_transpose_on_host)
def matrix_transpose(x: ArrayLike, /) -> Array:
    """Swap the last two axes (a stack of matrices transposed); ``x.mT`` calls this.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.matrix_transpose(fnp.zeros((5, 2, 3))).shape
        (5, 3, 2)
    """
    x = asarray_arg("matrix_transpose", x)
    if x.ndim < 2:
        raise op_value_error("matrix_transpose", f"needs an array of at least 2 dimensions, "
                                                 f"got shape {x.shape}")
    perm = (*range(x.ndim - 2), x.ndim - 1, x.ndim - 2)
    return _transpose(x, perm)


@host_shortcut(_moveaxis_on_host)
def moveaxis(a: ArrayLike, source: int | Sequence[int],
             destination: int | Sequence[int]) -> Array:
    """Move axes ``source`` to positions ``destination``; the other axes keep their order.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.moveaxis(fnp.zeros((2, 3, 4)), 0, -1).shape
        (3, 4, 2)
    """
    a = asarray_arg("moveaxis", a)
    source = _axes("moveaxis", source, a.shape)
    destination = _axes("moveaxis", destination, a.shape)
    if len(source) != len(destination):
        raise op_value_error("moveaxis", f"source {source} and destination {destination} must "
                                         f"have the same number of axes")
    return _moveaxes(a, source, destination)


@host_shortcut(_swapaxes_on_host)
def swapaxes(a: ArrayLike, axis1: int, axis2: int) -> Array:
    """Exchange two axes of ``a``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.swapaxes(fnp.zeros((2, 3, 4)), 0, 2).shape
        (4, 3, 2)
    """
    a = asarray_arg("swapaxes", a)
    perm = list(range(a.ndim))
    i, j = _axis("swapaxes", axis1, a.shape), _axis("swapaxes", axis2, a.shape)
    perm[i], perm[j] = perm[j], perm[i]
    return _transpose(a, tuple(perm))


@host_shortcut(_expand_dims_on_host)
def expand_dims(a: ArrayLike, axis: int | Sequence[int]) -> Array:
    """Insert axes of size 1 at positions ``axis`` (an int or a tuple) of the result.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.expand_dims(fnp.zeros((2, 3)), (0, -1)).shape
        (1, 2, 3, 1)
    """
    if is_extended(a):
        return extended_expand_dims(a, axis, expand_dims)
    a = asarray_arg("expand_dims", a)
    requested = _int_tuple("expand_dims", axis, "axis")
    out_ndim = a.ndim + len(requested)
    new_axes = _axes("expand_dims", requested, a.shape, out_ndim)
    if not new_axes:
        return a
    kept = tuple(d for d in range(out_ndim) if d not in new_axes)
    shape = [1] * out_ndim
    for operand_dim, result_dim in enumerate(kept):
        shape[result_dim] = a.shape[operand_dim]
    return broadcast_in_dim_p.bind(a, shape=tuple(shape), broadcast_dimensions=kept)


@host_shortcut(_squeeze_on_host)
def squeeze(a: ArrayLike, axis: Axis = None) -> Array:
    """Remove axes of size 1: all of them, or only those in ``axis`` (which must be size 1).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.squeeze(fnp.zeros((1, 3, 1)), axis=0).shape
        (3, 1)
    """
    a = asarray_arg("squeeze", a)
    if axis is None:
        axes = tuple(d for d, size in enumerate(a.shape) if size == 1)
    else:
        axes = _axes("squeeze", axis, a.shape)
        for d in axes:
            if a.shape[d] != 1:
                raise op_value_error(
                    "squeeze", f"cannot remove axis {d} of an array of shape {a.shape}: it has "
                               f"size {a.shape[d]}, not 1")
    return squeeze_p.bind(a, dimensions=tuple(sorted(axes))) if axes else a


# --------------------------------------------------------------------------------------------
# Broadcasting
# --------------------------------------------------------------------------------------------

def broadcast_to(array: ArrayLike, shape: ShapeLike) -> Array:
    """Broadcast ``array`` to ``shape`` (NumPy's rules: trailing axes match or are 1).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.broadcast_to(fnp.arange(3), (2, 3))
        Array([[0, 1, 2],
               [0, 1, 2]], dtype=int32)
    """
    if is_extended(array):
        return extended_broadcast(array, _int_tuple("broadcast_to", shape, "shape"), broadcast_to)
    array = asarray_arg("broadcast_to", array)
    return _broadcast_to_checked("broadcast_to", array, _int_tuple("broadcast_to", shape, "shape"))


def broadcast_arrays(*args: ArrayLike) -> tuple[Array, ...]:
    """Broadcast all arguments to their common shape; returns a tuple (the Array API's return
    type; jax.numpy returns a list).

    Example:
        >>> import funcarray.numpy as fnp
        >>> [x.shape for x in fnp.broadcast_arrays(fnp.zeros(3), fnp.zeros((2, 1)))]
        [(2, 3), (2, 3)]
    """
    arrays = [asarray_arg("broadcast_arrays", a) for a in args]
    if not arrays:
        return ()
    shape = _broadcast_shapes("broadcast_arrays", *(a.shape for a in arrays))
    return tuple(broadcast_to_shape(a, shape) for a in arrays)


def _at_least(op: str, arys, lift):
    outs = [lift(asarray_arg(op, a)) for a in arys]
    return outs[0] if len(outs) == 1 else outs


def _lifted(x, lifted_shape):
    shape = lifted_shape(x.shape)
    return x if shape is None else _reshape(x, shape)


def _to_1d(x):
    return _lifted(x, at_least_1d_shape)


def _to_2d(x):
    return _lifted(x, at_least_2d_shape)


def _to_3d(x):
    return _lifted(x, at_least_3d_shape)


@overload
def atleast_1d(x: ArrayLike, /) -> Array: ...
@overload
def atleast_1d(*arys: ArrayLike) -> list[Array]: ...
@host_shortcut(_atleast_1d_on_host)
def atleast_1d(*arys):
    """View each argument with at least one dimension (a list when given several).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.atleast_1d(3.0)
        Array([3.], dtype=float32, weak_type=True)
    """
    return _at_least("atleast_1d", arys, _to_1d)


@overload
def atleast_2d(x: ArrayLike, /) -> Array: ...
@overload
def atleast_2d(*arys: ArrayLike) -> list[Array]: ...
@host_shortcut(_atleast_2d_on_host)
def atleast_2d(*arys):
    """View each argument with at least two dimensions: ``(N,)`` becomes ``(1, N)``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.atleast_2d(fnp.arange(3)).shape
        (1, 3)
    """
    return _at_least("atleast_2d", arys, _to_2d)


@overload
def atleast_3d(x: ArrayLike, /) -> Array: ...
@overload
def atleast_3d(*arys: ArrayLike) -> list[Array]: ...
@host_shortcut(_atleast_3d_on_host)
def atleast_3d(*arys):
    """View each argument with at least three dimensions: ``(N,)`` becomes ``(1, N, 1)`` and
    ``(M, N)`` becomes ``(M, N, 1)``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.atleast_3d(fnp.zeros((2, 3))).shape
        (2, 3, 1)
    """
    return _at_least("atleast_3d", arys, _to_3d)


# --------------------------------------------------------------------------------------------
# Joining
# --------------------------------------------------------------------------------------------

def _is_array_like(x) -> bool:
    return is_array(x) or isinstance(x, np.ndarray)


def _join_array(op: str, a, axis, dtype, joiner):
    """``concatenate``/``stack`` of an array: join its sub-arrays along the first axis."""
    a = asarray_arg(op, a)
    if dtype is not None:
        a = convert(a, dtypes.canonicalize_dtype(dtype))
    if a.ndim == 0:
        raise op_value_error(op, "needs a sequence of arrays; got a 0-d array")
    return joiner(_unstack(a), axis)


@host_shortcut(_concatenate_on_host)
def concatenate(arrays: np.ndarray | Array | Sequence[ArrayLike], axis: int | None = 0,
                dtype: DTypeLike | None = None) -> Array:
    """Join arrays along an existing axis (``axis=None`` flattens them first).

    The arrays are promoted to one dtype (or converted to ``dtype``).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.concatenate([fnp.arange(2), fnp.array([2.5])])
        Array([0. , 1. , 2.5], dtype=float32)
    """
    if dtype is None and any_extended(arrays):
        return extended_join("concatenate", arrays, axis, False, concatenate)
    if _is_array_like(arrays):
        return _join_array("concatenate", arrays, axis, dtype,
                           lambda parts, ax: _concatenate_arrays("concatenate", parts, ax))
    return _concatenate_arrays("concatenate", arrays, axis, dtype)


@host_shortcut(_concat_on_host)
def concat(arrays: Sequence[ArrayLike], /, *, axis: int | None = 0) -> Array:
    """Array API name of ``concatenate``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.concat([fnp.zeros((1, 2)), fnp.ones((1, 2))], axis=1).shape
        (1, 4)
    """
    return _concatenate_arrays("concat", arrays, axis)


@host_shortcut(_stack_on_host)
def stack(arrays: np.ndarray | Array | Sequence[ArrayLike], axis: int = 0, out: None = None,
          dtype: DTypeLike | None = None) -> Array:
    """Join arrays of one shape along a new axis (promoting them to one dtype).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.stack([fnp.arange(3), fnp.arange(3)], axis=1).shape
        (3, 2)
    """
    if out is not None:
        raise op_value_error("stack", "out= is not supported: funcarray arrays are immutable")
    if dtype is None and any_extended(arrays):
        return extended_join("stack", arrays, axis, True, stack)
    if _is_array_like(arrays):
        return _join_array("stack", arrays, axis, dtype,
                           lambda parts, ax: _stack_arrays("stack", parts, ax))
    return _stack_arrays("stack", arrays, axis, dtype)


def _sequence(op: str, tup) -> list:
    return _unstack(asarray_arg(op, tup)) if _is_array_like(tup) else list(tup)


@host_shortcut(_vstack_on_host)
def vstack(tup: np.ndarray | Array | Sequence[ArrayLike],
           dtype: DTypeLike | None = None) -> Array:
    """Stack arrays vertically: 1-d arrays become rows, then join along axis 0.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.vstack([fnp.arange(2), fnp.arange(2)])
        Array([[0, 1],
               [0, 1]], dtype=int32)
    """
    arrays = [_to_2d(asarray_arg("vstack", a)) for a in _sequence("vstack", tup)]
    return _concatenate_arrays("vstack", arrays, 0, dtype)


@host_shortcut(_hstack_on_host)
def hstack(tup: np.ndarray | Array | Sequence[ArrayLike],
           dtype: DTypeLike | None = None) -> Array:
    """Stack arrays horizontally: along axis 0 for 1-d arrays, else along axis 1.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.hstack([fnp.arange(2), fnp.arange(3)])
        Array([0, 1, 0, 1, 2], dtype=int32)
    """
    arrays = [_to_1d(asarray_arg("hstack", a)) for a in _sequence("hstack", tup)]
    axis = 0 if arrays and arrays[0].ndim == 1 else 1
    return _concatenate_arrays("hstack", arrays, axis, dtype)


@host_shortcut(_dstack_on_host)
def dstack(tup: np.ndarray | Array | Sequence[ArrayLike],
           dtype: DTypeLike | None = None) -> Array:
    """Stack arrays along the third axis (after making them at least 3-d).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.dstack([fnp.zeros((2, 3)), fnp.ones((2, 3))]).shape
        (2, 3, 2)
    """
    arrays = [_to_3d(asarray_arg("dstack", a)) for a in _sequence("dstack", tup)]
    return _concatenate_arrays("dstack", arrays, 2, dtype)


@host_shortcut(_column_stack_on_host)
def column_stack(tup: np.ndarray | Array | Sequence[ArrayLike]) -> Array:
    """Stack 1-d arrays as columns of a 2-d array (2-d arrays are joined as they are).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.column_stack([fnp.arange(2), fnp.arange(2)])
        Array([[0, 0],
               [1, 1]], dtype=int32)
    """
    arrays = [asarray_arg("column_stack", a) for a in _sequence("column_stack", tup)]
    arrays = [_reshape(a, (a.size, 1)) if a.ndim < 2 else a for a in arrays]
    return _concatenate_arrays("column_stack", arrays, 1)


# --------------------------------------------------------------------------------------------
# Splitting
# --------------------------------------------------------------------------------------------

def _split(op: str, ary, indices_or_sections, axis, equal: bool):
    ary = asarray_arg(op, ary)
    axis = _axis(op, axis, ary.shape)
    size = ary.shape[axis]
    if _is_single_int(indices_or_sections):
        sections = _concrete_int(op, indices_or_sections, "the number of sections")
        if sections <= 0:
            raise op_value_error(op, f"the number of sections must be positive, got {sections}")
        if equal and size % sections:
            raise op_value_error(
                op, f"an axis of size {size} (array shape {ary.shape}, axis {axis}) cannot be "
                    f"split into {sections} equal sections; use array_split for unequal ones")
        each, extra = divmod(size, sections)
        sizes = [each + 1] * extra + [each] * (sections - extra)
        bounds = np.cumsum([0, *sizes]).tolist()
        pieces = zip(bounds[:-1], bounds[1:])
    else:
        points = [0, *_int_tuple(op, indices_or_sections, "indices_or_sections"), size]
        # NumPy splits with Python slicing: negative indices count from the end, and
        # out-of-range or decreasing indices give empty pieces.
        pieces = []
        for start, stop in zip(points[:-1], points[1:]):
            start, stop, _ = builtins.slice(start, stop).indices(size)
            pieces.append((start, max(start, stop)))
    return [_slice_axis(ary, axis, start, stop) for start, stop in pieces]


def split(ary: ArrayLike, indices_or_sections: int | Sequence[int] | ArrayLike,
          axis: int = 0) -> list[Array]:
    """Split into equal sections (an int) or at the given indices along ``axis``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.split(fnp.arange(5), [1, 3])
        [Array([0], dtype=int32), Array([1, 2], dtype=int32), Array([3, 4], dtype=int32)]
    """
    return _split("split", ary, indices_or_sections, axis, equal=True)


def array_split(ary: ArrayLike, indices_or_sections: int | Sequence[int] | ArrayLike,
                axis: int = 0) -> list[Array]:
    """Like ``split``, but ``n`` sections need not be equal: the first ones are one longer.

    Example:
        >>> import funcarray.numpy as fnp
        >>> [x.shape for x in fnp.array_split(fnp.arange(5), 3)]
        [(2,), (2,), (1,)]
    """
    return _split("array_split", ary, indices_or_sections, axis, equal=False)


def _split_min_ndim(op: str, ary, indices_or_sections, min_ndim: int, axis: int):
    ary = asarray_arg(op, ary)
    if ary.ndim < min_ndim:
        raise op_value_error(op, f"needs an array of at least {min_ndim} dimensions, got shape "
                                 f"{ary.shape}")
    return _split(op, ary, indices_or_sections, axis, equal=True)


def vsplit(ary: ArrayLike, indices_or_sections: int | Sequence[int] | ArrayLike
           ) -> list[Array]:
    """``split`` along axis 0 of an array of at least 2 dimensions.

    Example:
        >>> import funcarray.numpy as fnp
        >>> [x.shape for x in fnp.vsplit(fnp.zeros((4, 2)), 2)]
        [(2, 2), (2, 2)]
    """
    return _split_min_ndim("vsplit", ary, indices_or_sections, 2, 0)


def hsplit(ary: ArrayLike, indices_or_sections: int | Sequence[int] | ArrayLike
           ) -> list[Array]:
    """``split`` along axis 1 (axis 0 for 1-d arrays).

    Example:
        >>> import funcarray.numpy as fnp
        >>> [x.shape for x in fnp.hsplit(fnp.zeros((2, 4)), 2)]
        [(2, 2), (2, 2)]
    """
    ary = asarray_arg("hsplit", ary)
    return _split_min_ndim("hsplit", ary, indices_or_sections, 1, 0 if ary.ndim == 1 else 1)


def dsplit(ary: ArrayLike, indices_or_sections: int | Sequence[int] | ArrayLike
           ) -> list[Array]:
    """``split`` along axis 2 of an array of at least 3 dimensions.

    Example:
        >>> import funcarray.numpy as fnp
        >>> [x.shape for x in fnp.dsplit(fnp.zeros((1, 1, 4)), 2)]
        [(1, 1, 2), (1, 1, 2)]
    """
    return _split_min_ndim("dsplit", ary, indices_or_sections, 3, 2)
