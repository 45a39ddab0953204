"""The dimension numbers of ``gather`` and ``scatter`` (JAX's field names), their checks, the
index-window arithmetic of the eager kernels, and the StableHLO attributes and index-vector
masks their lowerings share.

A gather and the scatter that is its transpose mirror each other: each maps index vectors
through its dimension numbers to windows of the operand, and ``_gather_dn_of_scatter`` /
``_scatter_dn_of_gather`` turn one's numbers into the other's.

Example:
    >>> from funcarray.primitives.gather_scatter_dims import ScatterDimensionNumbers
    >>> ScatterDimensionNumbers((), (0,), (0,)).scatter_dims_to_operand_dims
    (0,)
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from funcarray.base import dtypes
from funcarray.lowering.stablehlo import compare, i64_array_attribute
from funcarray.primitives.region_lowering import _bool_reduce_and, _same_type_op
from funcarray.transforms.core import ShapedArray

__all__ = ["GatherDimensionNumbers", "ScatterDimensionNumbers"]


_GATHER_MODES = ("clip", "fill", "promise_in_bounds")
_SCATTER_MODES = ("drop", "clip", "promise_in_bounds")


class GatherDimensionNumbers(NamedTuple):
    """How ``gather`` maps indices to windows of the operand (JAX's field names)."""

    offset_dims: tuple
    collapsed_slice_dims: tuple
    start_index_map: tuple
    operand_batching_dims: tuple = ()
    start_indices_batching_dims: tuple = ()


class ScatterDimensionNumbers(NamedTuple):
    """How ``scatter`` maps indices and update windows into the operand (JAX's field names)."""

    update_window_dims: tuple
    inserted_window_dims: tuple
    scatter_dims_to_operand_dims: tuple
    operand_batching_dims: tuple = ()
    scatter_indices_batching_dims: tuple = ()


def _as_int_tuples(dn):
    """The same dimension numbers with every field a tuple of Python ints (hashable params)."""
    return type(dn)(*(tuple(int(d) for d in field) for field in dn))


# --------------------------------------------------------------------------------------------
# Shared validation and index arithmetic
# --------------------------------------------------------------------------------------------

def _fail(prim: str, message: str):
    raise TypeError(f"{prim}: {message}")


def _check_dims(prim: str, what: str, dims, bound: int, *, sorted_: bool = True):
    if any(not 0 <= d < bound for d in dims):
        _fail(prim, f"{what}={dims} must lie in [0, {bound})")
    if len(set(dims)) != len(dims):
        _fail(prim, f"{what}={dims} has repeated dimensions")
    if sorted_ and list(dims) != sorted(dims):
        _fail(prim, f"{what}={dims} must be sorted")


def _check_integer_indices(prim: str, indices: ShapedArray):
    if not dtypes.is_integer(indices.dtype):
        _fail(prim, f"indices must have an integer dtype, got {indices.str_short()}")
    if indices.ndim < 1:
        _fail(prim, "indices need at least one dimension (the last one holds the index vector)")


def _batch_coordinates(batch_shape) -> np.ndarray:
    """(len(batch_shape), prod(batch_shape)) array: the coordinates of each batch position."""
    return np.indices(batch_shape, dtype=np.int64).reshape(len(batch_shape), -1)


def _full_starts(indices, ndim, index_map, batching_dims, indices_batching_dims):
    """(B, ndim) int64 window starts: index vectors placed into their operand dimensions."""
    batch_shape = indices.shape[:-1]
    nb = math.prod(batch_shape)
    starts = np.zeros((nb, ndim), np.int64)
    if indices.dtype == np.uint64:  # past int64's range is out of bounds anyway: no wrapping
        indices = np.minimum(indices, np.iinfo(np.int64).max)
    if index_map:
        starts[:, list(index_map)] = indices.reshape(nb, len(index_map))
    if batching_dims:
        coords = _batch_coordinates(batch_shape)
        for operand_dim, indices_dim in zip(batching_dims, indices_batching_dims):
            starts[:, operand_dim] = coords[indices_dim]
    return starts


def _window_grids(starts, window):
    """Per-dimension index arrays of shape (B, *window): start + offset inside the window."""
    nb, ndim = starts.shape
    grids = []
    for d in range(ndim):
        view = [1] * (ndim + 1)
        view[d + 1] = window[d]
        offsets = np.arange(window[d], dtype=np.int64).reshape(view)
        grids.append(starts[:, d].reshape((nb,) + (1,) * ndim) + offsets)
    return grids


def _index_bounds(indices_aval, upper) -> np.ndarray:
    """Per-component upper bounds for index vectors, in the indices' dtype (a bound past the
    dtype's range is every value of it)."""
    info = dtypes.iinfo(indices_aval.dtype)
    return np.array([min(max(int(u), int(info.min)), int(info.max)) for u in upper],
                    indices_aval.dtype)


def _index_vector_constant(ctx, values, indices_aval) -> str:
    """``values`` (one per index-vector component) broadcast to the indices' shape."""
    k = indices_aval.shape[-1]
    vector = ctx.constant(np.asarray(values, indices_aval.dtype),
                          ShapedArray((k,), indices_aval.dtype))
    return ctx.op("stablehlo.broadcast_in_dim", vector, results=[indices_aval],
                  attributes={"broadcast_dimensions": i64_array_attribute(
                      [indices_aval.ndim - 1])})[0]


def _windows_in_bounds(ctx, indices, upper) -> str:
    """Bool over the indices' batch positions: every component ``i`` of the index vector lies
    in ``[0, upper[i]]``."""
    aval = ctx.type_of(indices)
    high = _index_vector_constant(ctx, _index_bounds(aval, upper), aval)
    ok = compare(ctx, indices, high, "LE")
    if np.dtype(aval.dtype).kind == "i":
        zero = ctx.constant(0, aval)
        ok = _same_type_op(ctx, "stablehlo.and", ok, compare(ctx, indices, zero, "GE"))
    return _bool_reduce_and(ctx, ok, aval.ndim - 1)


def _clamp_indices(ctx, indices, upper) -> str:
    """The index vectors with component ``i`` clamped to ``[0, upper[i]]``."""
    aval = ctx.type_of(indices)
    low = ctx.constant(0, aval)
    high = _index_vector_constant(ctx, _index_bounds(aval, upper), aval)
    return _same_type_op(ctx, "stablehlo.clamp", low, indices, high)


def _dims_attr(name, dims) -> str:
    return f"{name} = [{', '.join(str(int(d)) for d in dims)}]"


def _dimension_numbers_attr(kind: str, fields, index_vector_dim: int) -> str:
    """``#stablehlo.gather<...>`` / ``#stablehlo.scatter<...>``: the non-empty fields in the
    order StableHLO prints them, then ``index_vector_dim``."""
    parts = [_dims_attr(name, dims) for name, dims in fields if dims]
    parts.append(f"index_vector_dim = {int(index_vector_dim)}")
    return f"#stablehlo.{kind}<{', '.join(parts)}>"


def _shifted(dims) -> tuple:
    """``dims`` after a new dimension 0 is inserted."""
    return tuple(d + 1 for d in dims)


def _gather_dn_of_scatter(dn: ScatterDimensionNumbers) -> GatherDimensionNumbers:
    """The gather that reads back, for each update element, the operand element it lands on."""
    return GatherDimensionNumbers(
        offset_dims=dn.update_window_dims, collapsed_slice_dims=dn.inserted_window_dims,
        start_index_map=dn.scatter_dims_to_operand_dims,
        operand_batching_dims=dn.operand_batching_dims,
        start_indices_batching_dims=dn.scatter_indices_batching_dims)


def _scatter_dn_of_gather(dn: GatherDimensionNumbers) -> ScatterDimensionNumbers:
    """The scatter that sends each gathered element back where the gather read it."""
    return ScatterDimensionNumbers(
        update_window_dims=dn.offset_dims, inserted_window_dims=dn.collapsed_slice_dims,
        scatter_dims_to_operand_dims=dn.start_index_map,
        operand_batching_dims=dn.operand_batching_dims,
        scatter_indices_batching_dims=dn.start_indices_batching_dims)


# A gather and the scatter that is its transpose must treat out-of-bounds windows alike: the
# gather clamps ("clip", and "promise_in_bounds" in the kernel) exactly where the scatter clamps
# ("clip"), and it fills a window exactly where the scatter drops it ("drop" and
# "promise_in_bounds" in the kernel).
def _scatter_mode_of_gather(mode: str) -> str:
    return "drop" if mode == "fill" else "clip"


def _gather_mode_of_scatter(mode: str) -> str:
    return "clip" if mode == "clip" else "fill"
