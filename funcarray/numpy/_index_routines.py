"""Indexing routines of ``funcarray.numpy``: ``take``, ``take_along_axis``, ``compress``,
``extract`` and ``select``.

``take`` and ``take_along_axis`` bind one ``gather``, with NumPy's and JAX's index modes
(out-of-bounds entries clamped, wrapped or filled); ``compress`` and ``extract`` need a
concrete condition, since their result's size depends on its values.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from funcarray.api.arguments import (
    asarray_arg,
    broadcast_shapes,
    broadcast_to_shape,
    canonicalize_axis,
    convert,
)
from funcarray.base import dtypes
from funcarray.base.array import Array
from funcarray.base.errors import index_error, op_type_error, op_value_error
from funcarray.numpy._elementwise import where
from funcarray.numpy._index_parsing import (
    _const,
    _index_dtype,
    _normalize_negative,
    _ravel,
    _reshape,
)
from funcarray.numpy._index_routines_on_host import (
    compress_on_host,
    extract_on_host,
    take_along_axis_on_host,
    take_on_host,
)
from funcarray.numpy._indexing import _fill_scalar, _gather_mode
from funcarray.numpy._promotion import promote_args
from funcarray.numpy._sort_and_nonzero import concrete_count, nonzero
from funcarray.primitives import elementwise as ew
from funcarray.primitives.gather import gather_p
from funcarray.primitives.gather_scatter_dims import GatherDimensionNumbers
from funcarray.primitives.select_n import select_n_p
from funcarray.transforms.core import Tracer
from funcarray.transforms.host_shortcuts import host_shortcut

if TYPE_CHECKING:
    from collections.abc import Sequence

    from funcarray.base.typing import ArrayLike


__all__ = ["compress", "extract", "select", "take", "take_along_axis"]


def _integer_indices(op, indices):
    indices = asarray_arg(op, indices)
    if indices.dtype.kind not in "iu":
        raise op_type_error(op, f"indices must be integers, got dtype {indices.dtype}")
    return indices


def _wrap_indices(indices, size):
    """``indices mod size`` with a non-negative result (NumPy's mode="wrap")."""
    shape = indices.shape
    n = _const(size, indices.dtype, shape)
    rem = ew.rem_p.bind(indices, n)
    if indices.dtype.kind == "u":
        return rem
    return _normalize_negative(rem, size)


def _take_mode(op, mode):
    if mode is None:
        return "fill"
    if mode in ("fill", "clip", "wrap"):
        return mode
    if mode == "raise":
        raise op_value_error(op, "mode='raise' cannot be supported: funcarray never raises on "
                                 "values (they may be traced). Use 'fill', 'clip' or 'wrap'.")
    raise op_value_error(op, f"mode must be 'fill', 'clip' or 'wrap', got {mode!r}")


@host_shortcut(take_on_host)
def take(a: ArrayLike, indices: ArrayLike, axis: int | None = None, out: None = None,
         mode: str | None = None, unique_indices: bool = False,
         indices_are_sorted: bool = False, fill_value: ArrayLike | None = None) -> Array:
    """Elements of ``a`` at ``indices`` along ``axis`` (the flattened array when None).
    ``out`` must be None (arrays are immutable).

    ``mode`` (jax.numpy's default is "fill"): "fill" returns ``fill_value`` (NaN for floats)
    for indices out of ``[-n, n)``; "clip" clamps to ``[0, n - 1]`` (negative indices are
    clamped, as NumPy does); "wrap" takes indices modulo ``n``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.take(fnp.arange(5.0), fnp.array([-1, 7]))
        Array([ 4., nan], dtype=float32)
        >>> fnp.take(fnp.arange(6).reshape(2, 3), fnp.array([2, 0]), axis=1)
        Array([[2, 0],
               [5, 3]], dtype=int32)
    """
    op = "take"
    if out is not None:
        raise op_value_error(op, "out= is not supported: funcarray arrays are immutable")
    a = asarray_arg(op, a)
    indices = _integer_indices(op, indices)
    mode = _take_mode(op, mode)
    if axis is None:
        a, axis = _ravel(a), 0
    axis = canonicalize_axis(op, axis, a.ndim)
    size = a.shape[axis]
    indices = convert(indices, _index_dtype(indices.dtype))
    if mode == "wrap" and size:
        indices = _wrap_indices(indices, size)
    elif mode == "fill":
        indices = _normalize_negative(indices, size)
    gather_mode = "fill" if mode == "fill" else "clip"
    out_shape = (*a.shape[:axis], *indices.shape, *a.shape[axis + 1:])
    if size == 0:
        if indices.size:  # (in every mode, as jax: there is no element to clamp to)
            raise index_error(op, f"cannot take {indices.size} elements from axis {axis} of "
                                  f"size 0; check that the array is not empty")
        return broadcast_to_shape(_const(_fill_scalar(a.dtype, fill_value), a.dtype), out_shape)
    n_idx = indices.ndim
    offset_dims = (*range(axis), *range(axis + n_idx, len(out_shape)))
    dn = GatherDimensionNumbers(offset_dims=offset_dims, collapsed_slice_dims=(axis,),
                                start_index_map=(axis,))
    slice_sizes = tuple(1 if d == axis else n for d, n in enumerate(a.shape))
    return gather_p.bind(a, _reshape(indices, (*indices.shape, 1)), dimension_numbers=dn,
                         slice_sizes=slice_sizes, indices_are_sorted=bool(indices_are_sorted),
                         unique_indices=bool(unique_indices), mode=gather_mode,
                         fill_value=fill_value)


@host_shortcut(take_along_axis_on_host)
def take_along_axis(arr: ArrayLike, indices: ArrayLike, axis: int | None = -1,
                    mode: str | None = None, fill_value: ArrayLike | None = None, *,
                    wrap_negative_indices: bool | None = None) -> Array:
    """``arr`` indexed along ``axis`` by ``indices`` of the same rank (other dimensions
    broadcast), as ``numpy.take_along_axis``. Out-of-bounds indices give ``fill_value``
    (mode "fill" or "drop", the default; NaN for floats) or are clamped ("clip",
    "promise_in_bounds"). With ``wrap_negative_indices`` negative indices count from the end,
    else they are out of bounds; None (jax's default) wraps them unless the mode is
    "promise_in_bounds".

    Example:
        >>> import funcarray.numpy as fnp
        >>> x = fnp.array([[10, 30, 20], [60, 40, 50]])
        >>> fnp.take_along_axis(x, fnp.argsort(x, axis=1), axis=1)
        Array([[10, 20, 30],
               [40, 50, 60]], dtype=int32)
        >>> fnp.take_along_axis(fnp.arange(3.0), fnp.array([-1, 5]), axis=0)
        Array([ 2., nan], dtype=float32)
        >>> fnp.take_along_axis(fnp.arange(3.0), fnp.array([-1, 5]), axis=0, mode="clip",
        ...                     wrap_negative_indices=False)
        Array([0., 2.], dtype=float32)
    """
    op = "take_along_axis"
    arr = asarray_arg(op, arr)
    indices = _integer_indices(op, indices)
    if axis is None:
        if indices.ndim != 1:
            raise op_value_error(op, f"with axis=None the indices must be 1-D, got shape "
                                     f"{tuple(indices.shape)}")
        arr, axis = _ravel(arr), 0
    if indices.ndim != arr.ndim:
        raise op_value_error(op, f"indices {tuple(indices.shape)} and array "
                                 f"{tuple(arr.shape)} must have the same number of dimensions")
    axis = canonicalize_axis(op, axis, arr.ndim)
    gather_mode = _gather_mode(op, "fill" if mode is None else mode)
    size = arr.shape[axis]
    others = [d for d in range(arr.ndim) if d != axis]
    batch = broadcast_shapes(op, tuple(arr.shape[d] for d in others),
                             tuple(indices.shape[d] for d in others))
    arr = broadcast_to_shape(arr, _with_axis(batch, axis, size))
    indices = convert(indices, _index_dtype(indices.dtype))
    indices = broadcast_to_shape(indices, _with_axis(batch, axis, indices.shape[axis]))
    out_shape = indices.shape
    if size == 0 or not indices.size:  # (an empty batch dimension has no slice to gather)
        if indices.size and gather_mode != "fill":
            raise index_error(op, f"cannot take from axis {axis} of size 0")
        return broadcast_to_shape(_const(_fill_scalar(arr.dtype, fill_value), arr.dtype),
                                  out_shape)
    if wrap_negative_indices is None:
        wrap_negative_indices = mode != "promise_in_bounds"
    if wrap_negative_indices:
        indices = _normalize_negative(indices, size)
    dn = GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(axis,),
                                start_index_map=(axis,), operand_batching_dims=tuple(others),
                                start_indices_batching_dims=tuple(others))
    return gather_p.bind(arr, _reshape(indices, (*out_shape, 1)), dimension_numbers=dn,
                         slice_sizes=(1,) * arr.ndim, indices_are_sorted=False,
                         unique_indices=False, mode=gather_mode, fill_value=fill_value)


def _with_axis(batch, axis, size):
    shape = list(batch)
    shape.insert(axis, size)
    return tuple(shape)


@host_shortcut(compress_on_host)
def compress(condition: ArrayLike, a: ArrayLike, axis: int | None = None, *,
             size: int | None = None, fill_value: ArrayLike = 0) -> Array:
    """The slices of ``a`` along ``axis`` where the 1-D ``condition`` is true (``a`` is
    flattened when ``axis`` is None). ``condition`` must be concrete unless ``size`` is given;
    a shorter ``condition`` counts as False beyond its end, as in NumPy.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.compress(fnp.array([True, False, True]), fnp.arange(6).reshape(3, 2), axis=0)
        Array([[0, 1],
               [4, 5]], dtype=int32)
    """
    op = "compress"
    condition = asarray_arg(op, condition)
    a = asarray_arg(op, a)
    if condition.ndim != 1:
        raise op_value_error(op, f"condition must be 1-D, got shape {tuple(condition.shape)}")
    if axis is None:
        a, axis = _ravel(a), 0
    axis = canonicalize_axis(op, axis, a.ndim)
    if condition.shape[0] > a.shape[axis]:
        # Entries past the axis may be given if they are false, as in NumPy and jax.numpy
        # (a traced condition is cut at the axis unchecked, as jax.numpy's with size=).
        past = condition[a.shape[axis]:]
        if (not isinstance(past, Tracer) or past.to_concrete_value() is not None) and (
                concrete_count(op, past, "whether condition is true past the axis")):
            raise op_value_error(op, f"condition of length {condition.shape[0]} is true past "
                                     f"the end of axis {axis} (size {a.shape[axis]})")
        condition = condition[:a.shape[axis]]
    (positions,) = nonzero(condition, size=size, fill_value=-1)
    taken = take(a, positions, axis=axis, mode="fill")
    if size is None:
        return taken
    keep = ew.ge_p.bind(positions, _const(0, dtypes.int32, positions.shape))
    keep = _reshape(keep, tuple(len(positions) if d == axis else 1 for d in range(a.ndim)))
    return where(keep, taken, convert(_const(fill_value, a.dtype), a.dtype, True))


@host_shortcut(extract_on_host)
def extract(condition: ArrayLike, arr: ArrayLike, *, size: int | None = None,
            fill_value: ArrayLike = 0) -> Array:
    """The elements of ``arr`` where ``condition`` is true, flattened.

    Example:
        >>> import funcarray.numpy as fnp
        >>> x = fnp.arange(6)
        >>> fnp.extract(x % 2 == 0, x)
        Array([0, 2, 4], dtype=int32)
    """
    condition = asarray_arg("extract", condition)
    arr = asarray_arg("extract", arr)
    return compress(_ravel(condition), _ravel(arr), size=size, fill_value=fill_value)


def select(condlist: Sequence[ArrayLike], choicelist: Sequence[ArrayLike],
           default: ArrayLike = 0) -> Array:
    """Elementwise, the choice of the first true condition (``default`` where none is).

    Example:
        >>> import funcarray.numpy as fnp
        >>> x = fnp.arange(5)
        >>> fnp.select([x < 2, x > 3], [x, x * 10], default=-1)
        Array([ 0,  1, -1, -1, 40], dtype=int32)
    """
    op = "select"
    condlist, choicelist = list(condlist), list(choicelist)
    if len(condlist) != len(choicelist):
        raise op_value_error(op, f"condlist and choicelist need the same length, got "
                                 f"{len(condlist)} and {len(choicelist)}")
    if not condlist:
        raise op_value_error(op, "condlist must not be empty")
    conds = [asarray_arg(op, c) for c in condlist]
    for i, c in enumerate(conds):
        if c.dtype != dtypes.bool_:
            raise op_type_error(op, f"condlist[{i}] must be a boolean array, got dtype "
                                    f"{c.dtype}")
    *choices, default = promote_args(op, *choicelist, default)
    shape = broadcast_shapes(op, default.shape, *(c.shape for c in conds))
    out = broadcast_to_shape(default, shape)
    for cond, choice in zip(reversed(conds), reversed(choices)):
        out = select_n_p.bind(broadcast_to_shape(cond, shape), out,
                                 broadcast_to_shape(choice, shape))
    return out
