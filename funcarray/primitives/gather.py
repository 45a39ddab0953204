"""The ``gather`` primitive, with all its rules.

Contract (StableHLO semantics; JAX's primitive name and parameters):
``gather(x, indices, dimension_numbers, slice_sizes, indices_are_sorted, unique_indices, mode,
fill_value)`` is StableHLO ``gather`` with ``index_vector_dim`` the last dimension of
``indices`` and ``dimension_numbers`` a :class:`GatherDimensionNumbers`. For each batch
position ``b`` (every index of ``indices.shape[:-1]``) the start of a window of size
``slice_sizes`` is ``indices[b]`` scattered into the dimensions ``start_index_map`` (and the
batch coordinate itself into ``operand_batching_dims``). The windows' dimensions named in
``collapsed_slice_dims`` / ``operand_batching_dims`` (of size 1) are dropped; the others
become the result dimensions ``offset_dims``, and the batch dimensions fill the remaining
result positions in order. ``mode="clip"`` clamps each start so the window fits (what
StableHLO does); ``mode="fill"`` returns ``fill_value`` for a whole window whose start does
not fit (``None`` means NaN for inexact dtypes, the minimum of signed integers, the maximum
of unsigned integers and True for bool, as jax.numpy does).

Rules: ``gather`` is linear in its operand and transposes to ``scatter_add`` into zeros (a
gather's "fill" windows are a scatter's "drop" windows, "clip" stays "clip"); the indices are
never differentiated. Batching: a batch axis of the operand becomes an
``operand_batching_dims`` dimension, a batch axis of the indices a batching dimension. Lowered
to StableHLO ``gather``; with ``mode="fill"`` (StableHLO clamps) an in-bounds mask over the
index vectors (a bound past the index dtype's range holds for every value) selects the fill
value.

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray.primitives.gather import gather
    >>> from funcarray.primitives.gather_scatter_dims import GatherDimensionNumbers
    >>> dn = GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,),
    ...                             start_index_map=(0,))
    >>> gather(fnp.arange(5.0), fnp.array([[4], [0]]), dn, (1,))
    Array([4., 0.], dtype=float32)
"""

from __future__ import annotations

import numpy as np

from funcarray.base import dtypes
from funcarray.lowering.stablehlo import i64_array_attribute
from funcarray.primitives._define import wrap_kernel
from funcarray.primitives.gather_scatter_dims import (
    _GATHER_MODES,
    GatherDimensionNumbers,
    _as_int_tuples,
    _check_dims,
    _check_integer_indices,
    _dimension_numbers_attr,
    _fail,
    _full_starts,
    _scatter_dn_of_gather,
    _scatter_mode_of_gather,
    _shifted,
    _window_grids,
    _windows_in_bounds,
)
from funcarray.primitives.region_lowering import _bool_attr, _select_op
from funcarray.transforms import support
from funcarray.transforms.core import Primitive, ShapedArray
from funcarray.transforms.jvp import Zero, tangent_aval
from funcarray.transforms.vmap import move_to_front, not_mapped

__all__ = ["gather_p", "gather", "gather_fill_value"]


def gather_fill_value(dtype):
    """jax.numpy's default out-of-bounds value: NaN, the int minimum, the uint maximum, True."""
    dtype = np.dtype(dtype)
    if dtypes.is_inexact(dtype):
        return np.nan
    if dtype == np.bool_:
        return True
    if dtype.kind == "u":
        return dtypes.iinfo(dtype).max
    return dtypes.iinfo(dtype).min


def _gather_kernel(operand, indices, *, dimension_numbers, slice_sizes, indices_are_sorted,
                   unique_indices, mode, fill_value):
    operand, indices = np.asarray(operand), np.asarray(indices)
    dn = dimension_numbers
    batch_shape = indices.shape[:-1]
    starts = _full_starts(indices, operand.ndim, dn.start_index_map, dn.operand_batching_dims,
                          dn.start_indices_batching_dims)
    upper = np.array(operand.shape, np.int64) - np.array(slice_sizes, np.int64)
    in_bounds = np.all((starts >= 0) & (starts <= upper), axis=1)
    starts = np.clip(starts, 0, upper)
    if operand.ndim:
        windows = operand[tuple(_window_grids(starts, slice_sizes))]
    else:
        windows = np.broadcast_to(operand, starts.shape[:1]).copy()
    if mode == "fill" and not in_bounds.all():
        fill = gather_fill_value(operand.dtype) if fill_value is None else fill_value
        windows[~in_bounds] = np.asarray(fill).astype(operand.dtype)
    dropped = set(dn.collapsed_slice_dims) | set(dn.operand_batching_dims)
    offset_sizes = tuple(n for d, n in enumerate(slice_sizes) if d not in dropped)
    out = windows.reshape(batch_shape + offset_sizes)
    first_offset = len(batch_shape)
    return np.moveaxis(out, range(first_offset, out.ndim), dn.offset_dims)


gather_p = Primitive("gather")
gather_p.kernel = _gather_kernel
gather_p.impl = wrap_kernel(_gather_kernel, keep_weak=True)


@gather_p.def_abstract_eval
def _gather_abstract_eval(operand, indices, *, dimension_numbers, slice_sizes,
                          indices_are_sorted, unique_indices, mode, fill_value):
    name = "gather"
    dn = dimension_numbers
    if not isinstance(dn, GatherDimensionNumbers):
        _fail(name, f"dimension_numbers must be a GatherDimensionNumbers, got {dn!r}")
    if mode not in _GATHER_MODES:
        _fail(name, f"mode must be one of {_GATHER_MODES}, got {mode!r}")
    _check_integer_indices(name, indices)
    batch_shape = indices.shape[:-1]
    if len(slice_sizes) != operand.ndim:
        _fail(name, f"slice_sizes={tuple(slice_sizes)} needs one size per dimension of the "
                    f"operand {operand.str_short()}")
    if any(not 0 <= n <= d for n, d in zip(slice_sizes, operand.shape)):
        _fail(name, f"slice_sizes={tuple(slice_sizes)} must lie in [0, dim] for the operand "
                    f"{operand.str_short()}")
    _check_dims(name, "collapsed_slice_dims", dn.collapsed_slice_dims, operand.ndim)
    _check_dims(name, "operand_batching_dims", dn.operand_batching_dims, operand.ndim)
    _check_dims(name, "start_index_map", dn.start_index_map, operand.ndim, sorted_=False)
    _check_dims(name, "start_indices_batching_dims", dn.start_indices_batching_dims,
                len(batch_shape), sorted_=False)
    if set(dn.collapsed_slice_dims) & set(dn.operand_batching_dims):
        _fail(name, "collapsed_slice_dims and operand_batching_dims must be disjoint")
    if set(dn.start_index_map) & set(dn.operand_batching_dims):
        _fail(name, "start_index_map and operand_batching_dims must be disjoint")
    # A dropped window dimension holds exactly one element, so every result element is read
    # from the operand (as JAX requires); only an empty batching dimension has a 0 window.
    for d in dn.collapsed_slice_dims:
        if slice_sizes[d] != 1:
            _fail(name, f"slice_sizes[{d}]={slice_sizes[d]} must be 1 for the collapsed "
                        f"dimension {d} of the operand {operand.str_short()}")
    for d in dn.operand_batching_dims:
        if slice_sizes[d] != min(operand.shape[d], 1):
            _fail(name, f"slice_sizes[{d}]={slice_sizes[d]} must be 1 (0 if the dimension is "
                        f"empty) for the batching dimension {d} of the operand "
                        f"{operand.str_short()}")
    if len(dn.operand_batching_dims) != len(dn.start_indices_batching_dims):
        _fail(name, "operand_batching_dims and start_indices_batching_dims need equal lengths")
    for od, idim in zip(dn.operand_batching_dims, dn.start_indices_batching_dims):
        if operand.shape[od] != batch_shape[idim]:
            _fail(name, f"batching dimension {od} of the operand {operand.str_short()} and "
                        f"{idim} of the indices {indices.str_short()} differ in size")
    if indices.shape[-1] != len(dn.start_index_map):
        _fail(name, f"the last dimension of the indices {indices.str_short()} must equal "
                    f"len(start_index_map)={len(dn.start_index_map)}")
    dropped = set(dn.collapsed_slice_dims) | set(dn.operand_batching_dims)
    offset_sizes = [n for d, n in enumerate(slice_sizes) if d not in dropped]
    rank = len(batch_shape) + len(offset_sizes)
    if len(dn.offset_dims) != len(offset_sizes):
        _fail(name, f"offset_dims={dn.offset_dims} needs one entry per window dimension that "
                    f"is not collapsed ({len(offset_sizes)})")
    _check_dims(name, "offset_dims", dn.offset_dims, rank)
    shape = [None] * rank
    for d, n in zip(dn.offset_dims, offset_sizes):
        shape[d] = n
    batch = iter(batch_shape)
    shape = [next(batch) if n is None else n for n in shape]
    return ShapedArray(shape, operand.dtype, operand.weak_type)


@gather_p.def_lower
def _gather_lower(ctx, operand, indices, *, dimension_numbers, slice_sizes, indices_are_sorted,
                  unique_indices, mode, fill_value):
    dn = dimension_numbers
    indices_aval = ctx.type_of(indices)
    attr = _dimension_numbers_attr("gather", (
        ("offset_dims", dn.offset_dims), ("collapsed_slice_dims", dn.collapsed_slice_dims),
        ("operand_batching_dims", dn.operand_batching_dims),
        ("start_indices_batching_dims", dn.start_indices_batching_dims),
        ("start_index_map", dn.start_index_map)), indices_aval.ndim - 1)
    # StableHLO clamps each start so its window fits: "clip" (and "promise_in_bounds").
    (out,) = ctx.op("stablehlo.gather", operand, indices, attributes={
        "dimension_numbers": attr, "indices_are_sorted": _bool_attr(indices_are_sorted),
        "slice_sizes": i64_array_attribute(slice_sizes)})
    if mode != "fill" or not dn.start_index_map:
        return [out]
    # "fill": a window whose start does not fit takes the fill value instead.
    operand_shape = ctx.type_of(operand).shape
    upper = [operand_shape[d] - slice_sizes[d] for d in dn.start_index_map]
    in_bounds = _windows_in_bounds(ctx, indices, upper)
    out_aval = ctx.avals_out[0]
    batch_dims = [d for d in range(len(out_aval.shape)) if d not in dn.offset_dims]
    mask = ctx.op("stablehlo.broadcast_in_dim", in_bounds,
                  results=[ShapedArray(out_aval.shape, np.dtype(np.bool_))],
                  attributes={"broadcast_dimensions": i64_array_attribute(batch_dims)})[0]
    fill = gather_fill_value(out_aval.dtype) if fill_value is None else fill_value
    fill = ctx.constant(np.asarray(fill).astype(out_aval.dtype), out_aval)
    return [_select_op(ctx, mask, out, fill)]


@gather_p.def_jvp
def _gather_jvp(primals, tangents, *, dimension_numbers, slice_sizes, indices_are_sorted,
                unique_indices, mode, fill_value):
    params = dict(dimension_numbers=dimension_numbers, slice_sizes=slice_sizes,
                  indices_are_sorted=indices_are_sorted, unique_indices=unique_indices, mode=mode)
    out = gather_p.bind(*primals, **params, fill_value=fill_value)
    t = tangents[0]
    if type(t) is Zero:
        return out, Zero(tangent_aval(out.aval))
    # A filled (out-of-bounds) window does not depend on the operand: its tangent is 0.
    return out, gather_p.bind(t, primals[1], **params, fill_value=0 if mode == "fill" else None)


@gather_p.def_transpose
def _gather_transpose(ct, operand, indices, *, dimension_numbers, slice_sizes,
                      indices_are_sorted, unique_indices, mode, fill_value):
    # (imported here: scatter.py imports this module for the gathers of its own rules)
    from funcarray.primitives.scatter import scatter_add_p

    zeros = support.ops.zeros(operand.aval)
    ct_operand = scatter_add_p.bind(
        zeros, indices, ct, dimension_numbers=_scatter_dn_of_gather(dimension_numbers),
        indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
        mode=_scatter_mode_of_gather(mode))
    return [ct_operand, None]


@gather_p.def_batch
def _gather_batch(vals, dims, *, dimension_numbers, slice_sizes, **params):
    operand, indices = vals
    operand_dim, indices_dim = dims
    dn = dimension_numbers
    size = next(v.shape[d] for v, d in zip(vals, dims) if d is not not_mapped)
    if indices_dim is not_mapped:
        # Every member reads the same windows: widen each window to the whole batch axis,
        # which becomes the result's first (offset) dimension.
        operand = move_to_front(operand, operand_dim, size)
        dn = GatherDimensionNumbers(
            offset_dims=(0, *_shifted(dn.offset_dims)),
            collapsed_slice_dims=_shifted(dn.collapsed_slice_dims),
            start_index_map=_shifted(dn.start_index_map),
            operand_batching_dims=_shifted(dn.operand_batching_dims),
            start_indices_batching_dims=dn.start_indices_batching_dims)
        slice_sizes = (size, *slice_sizes)
    elif operand_dim is not_mapped:
        # The batch axis becomes the indices' first batch dimension, hence the result's first
        # non-offset dimension.
        indices = move_to_front(indices, indices_dim, size)
        dn = dn._replace(offset_dims=_shifted(dn.offset_dims),
                         start_indices_batching_dims=_shifted(dn.start_indices_batching_dims))
    else:
        # Member b reads from operand b: a batching dimension shared by operand and indices.
        operand = move_to_front(operand, operand_dim, size)
        indices = move_to_front(indices, indices_dim, size)
        dn = GatherDimensionNumbers(
            offset_dims=_shifted(dn.offset_dims),
            collapsed_slice_dims=_shifted(dn.collapsed_slice_dims),
            start_index_map=_shifted(dn.start_index_map),
            operand_batching_dims=(0, *_shifted(dn.operand_batching_dims)),
            start_indices_batching_dims=(0, *_shifted(dn.start_indices_batching_dims)))
        slice_sizes = (1, *slice_sizes)
    out = gather_p.bind(operand, indices, dimension_numbers=dn, slice_sizes=tuple(slice_sizes),
                        **params)
    return out, 0


def gather(operand, indices, dimension_numbers, slice_sizes, *, mode="clip", fill_value=None,
           indices_are_sorted=False, unique_indices=False):
    """Bind ``gather`` (see the module docstring for the semantics)."""
    return gather_p.bind(
        operand, indices, dimension_numbers=_as_int_tuples(dimension_numbers),
        slice_sizes=tuple(int(n) for n in slice_sizes), indices_are_sorted=bool(indices_are_sorted),
        unique_indices=bool(unique_indices), mode=mode, fill_value=fill_value)
