"""The ``dynamic_slice`` and ``dynamic_update_slice`` primitives, with all their rules.

Contracts (StableHLO semantics; JAX's primitive names and parameters):

* ``dynamic_slice(x, *start_indices, slice_sizes)``: one scalar integer start per dimension
  (all of one dtype). Each start is clamped to ``[0, x.shape[d] - slice_sizes[d]]`` so the slice
  always lies inside ``x``; the result has shape ``slice_sizes``.
* ``dynamic_update_slice(x, update, *start_indices)``: ``x`` with the box at the (clamped, as
  above, with ``update.shape`` as the sizes) starts replaced by ``update``.

Rules: ``dynamic_slice`` is linear and transposes to ``dynamic_update_slice`` into zeros;
``dynamic_update_slice`` is linear in (operand, update) together. The start indices are never
differentiated (zero tangents, ``None`` cotangents). With batched starts, a ``dynamic_slice``
becomes a ``gather`` and a ``dynamic_update_slice`` a ``scatter``. Each lowers to its one
StableHLO op, which clamps the starts as the kernels do.

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray.primitives.dynamic_slice import dynamic_slice
    >>> dynamic_slice(fnp.arange(5), [fnp.int32(4)], (3,))  # the start is clamped to 2
    Array([2, 3, 4], dtype=int32)
"""

from __future__ import annotations

import numpy as np

from funcarray.base import dtypes
from funcarray.base.array import Array
from funcarray.lowering.stablehlo import i64_array_attribute
from funcarray.primitives._define import wrap_kernel
from funcarray.primitives.gather import gather_p
from funcarray.primitives.gather_scatter_dims import (
    GatherDimensionNumbers,
    ScatterDimensionNumbers,
    _fail,
)
from funcarray.primitives.scatter import scatter_p
from funcarray.primitives.shape import broadcast_in_dim_p, concatenate_p
from funcarray.transforms import support
from funcarray.transforms.core import Primitive, ShapedArray
from funcarray.transforms.jvp import Zero, instantiate, tangent_aval
from funcarray.transforms.transpose import is_undefined
from funcarray.transforms.vmap import move_to_front, not_mapped

__all__ = ["dynamic_slice_p", "dynamic_update_slice_p", "dynamic_slice", "dynamic_update_slice"]


def _stack_starts(starts, dims, size: int):
    """``(size, len(starts))`` start indices, one row per batch member, from scalar starts of
    which some are batched (1-D, ``dims[i] == 0``) and the others are shared."""
    columns = [broadcast_in_dim_p.bind(move_to_front(s, d, size), shape=(size, 1),
                                       broadcast_dimensions=(0,))
               for s, d in zip(starts, dims)]
    return columns[0] if len(columns) == 1 else concatenate_p.bind(*columns, dimension=1)


def _clamped_starts(starts, shape, sizes):
    return tuple(int(min(max(int(s), 0), dim - size)) for s, dim, size in zip(starts, shape, sizes))


def _box(starts, sizes):
    return tuple(slice(s, s + n) for s, n in zip(starts, sizes))


def _dynamic_slice_kernel(x, *start_indices, slice_sizes):
    x = np.asarray(x)
    starts = _clamped_starts(start_indices, x.shape, slice_sizes)
    return x[_box(starts, slice_sizes)].copy()


def _check_starts(prim: str, x: ShapedArray, starts):
    if len(starts) != x.ndim:
        _fail(prim, f"needs one start index per dimension of {x.str_short()}, got {len(starts)}")
    for s in starts:
        if s.ndim != 0 or not dtypes.is_integer(s.dtype):
            _fail(prim, f"start indices must be integer scalars, got {s.str_short()}")
    if len({s.dtype for s in starts}) > 1:
        _fail(prim, "start indices must share one dtype, got "
              + ", ".join(s.str_short() for s in starts))


dynamic_slice_p = Primitive("dynamic_slice")
dynamic_slice_p.kernel = _dynamic_slice_kernel
dynamic_slice_p.impl = wrap_kernel(_dynamic_slice_kernel, keep_weak=True)


# StableHLO clamps the starts exactly as the kernel does: one op each.
@dynamic_slice_p.def_lower
def _dynamic_slice_lower(ctx, x, *start_indices, slice_sizes):
    return ctx.op("stablehlo.dynamic_slice", x, *start_indices,
                  attributes={"slice_sizes": i64_array_attribute(slice_sizes)})


@dynamic_slice_p.def_abstract_eval
def _dynamic_slice_abstract_eval(x, *start_indices, slice_sizes):
    _check_starts("dynamic_slice", x, start_indices)
    if len(slice_sizes) != x.ndim or any(
            not 0 <= n <= dim for n, dim in zip(slice_sizes, x.shape)):
        _fail("dynamic_slice", f"slice_sizes={tuple(slice_sizes)} must give one size in "
                               f"[0, dim] per dimension of {x.str_short()}")
    return ShapedArray(slice_sizes, x.dtype, x.weak_type)


def _dynamic_update_slice_kernel(x, update, *start_indices):
    out = np.array(x, copy=True)
    starts = _clamped_starts(start_indices, out.shape, update.shape)
    out[_box(starts, update.shape)] = update
    return out


dynamic_update_slice_p = Primitive("dynamic_update_slice")
dynamic_update_slice_p.kernel = _dynamic_update_slice_kernel
dynamic_update_slice_p.impl = wrap_kernel(_dynamic_update_slice_kernel, keep_weak=True)


dynamic_update_slice_p.lower_rule = lambda ctx, x, update, *starts: ctx.op(
    "stablehlo.dynamic_update_slice", x, update, *starts)


@dynamic_update_slice_p.def_abstract_eval
def _dynamic_update_slice_abstract_eval(x, update, *start_indices):
    _check_starts("dynamic_update_slice", x, start_indices)
    if update.dtype != x.dtype:
        _fail("dynamic_update_slice",
              f"update {update.str_short()} must have the dtype of the operand {x.str_short()}")
    if update.ndim != x.ndim or any(u > d for u, d in zip(update.shape, x.shape)):
        _fail("dynamic_update_slice",
              f"update {update.str_short()} must have the rank of the operand {x.str_short()} "
              f"and fit inside it")
    return ShapedArray(x.shape, x.dtype, x.weak_type)


def _start_zero(starts):
    """A 0 start of the starts' dtype (int32 when there are none): the start of a new axis."""
    return Array(np.zeros((), starts[0].dtype if starts else np.int32))


@dynamic_slice_p.def_jvp
def _dynamic_slice_jvp(primals, tangents, *, slice_sizes):
    out = dynamic_slice_p.bind(*primals, slice_sizes=slice_sizes)
    t = tangents[0]
    if type(t) is Zero:
        return out, Zero(tangent_aval(out.aval))
    return out, dynamic_slice_p.bind(t, *primals[1:], slice_sizes=slice_sizes)


@dynamic_slice_p.def_transpose
def _dynamic_slice_transpose(ct, x, *start_indices, slice_sizes):
    # The slice's cotangent goes back into the (same, clamped) box of zeros.
    zeros = support.ops.zeros(x.aval)
    return [dynamic_update_slice_p.bind(zeros, ct, *start_indices),
            *(None for _ in start_indices)]


@dynamic_slice_p.def_batch
def _dynamic_slice_batch(vals, dims, *, slice_sizes):
    x, *starts = vals
    x_dim, *start_dims = dims
    size = next(v.shape[d] for v, d in zip(vals, dims) if d is not not_mapped)
    if all(d is not_mapped for d in start_dims):
        # One slice for all members: take the whole batch axis as one more dimension.
        starts.insert(x_dim, _start_zero(starts))
        sizes = (*slice_sizes[:x_dim], size, *slice_sizes[x_dim:])
        return dynamic_slice_p.bind(x, *starts, slice_sizes=sizes), x_dim
    # Each member slices at its own start: a gather with one index vector per member.
    indices = _stack_starts(starts, start_dims, size)
    n = len(starts)
    if x_dim is not_mapped:
        dn = GatherDimensionNumbers(offset_dims=tuple(range(1, n + 1)), collapsed_slice_dims=(),
                                    start_index_map=tuple(range(n)))
    else:
        x = move_to_front(x, x_dim, size)
        dn = GatherDimensionNumbers(offset_dims=tuple(range(1, n + 1)), collapsed_slice_dims=(),
                                    start_index_map=tuple(range(1, n + 1)),
                                    operand_batching_dims=(0,), start_indices_batching_dims=(0,))
        slice_sizes = (1, *slice_sizes)
    out = gather_p.bind(x, indices, dimension_numbers=dn, slice_sizes=tuple(slice_sizes),
                        indices_are_sorted=False, unique_indices=False, mode="clip",
                        fill_value=None)
    return out, 0


@dynamic_update_slice_p.def_jvp
def _dynamic_update_slice_jvp(primals, tangents):
    x, update, *starts = primals
    t_x, t_update = tangents[:2]
    out = dynamic_update_slice_p.bind(*primals)
    if type(t_x) is Zero and type(t_update) is Zero:
        return out, Zero(tangent_aval(out.aval))
    return out, dynamic_update_slice_p.bind(instantiate(t_x), instantiate(t_update), *starts)


@dynamic_update_slice_p.def_transpose
def _dynamic_update_slice_transpose(ct, x, update, *start_indices):
    ct_x = ct_update = None
    if is_undefined(x):  # the box was overwritten: nothing flows back from it
        ct_x = dynamic_update_slice_p.bind(ct, support.ops.zeros(update.aval), *start_indices)
    if is_undefined(update):
        ct_update = dynamic_slice_p.bind(ct, *start_indices, slice_sizes=update.aval.shape)
    return [ct_x, ct_update, *(None for _ in start_indices)]


@dynamic_update_slice_p.def_batch
def _dynamic_update_slice_batch(vals, dims):
    x, update, *starts = vals
    x_dim, update_dim, *start_dims = dims
    size = next(v.shape[d] for v, d in zip(vals, dims) if d is not not_mapped)
    x, update = move_to_front(x, x_dim, size), move_to_front(update, update_dim, size)
    if all(d is not_mapped for d in start_dims):
        return dynamic_update_slice_p.bind(x, update, _start_zero(starts), *starts), 0
    # Each member updates at its own start: a scatter of one window per member (so the
    # indices are unique), clamped like dynamic_update_slice.
    indices = _stack_starts(starts, start_dims, size)
    window = tuple(range(1, len(starts) + 1))
    dn = ScatterDimensionNumbers(update_window_dims=window, inserted_window_dims=(),
                                 scatter_dims_to_operand_dims=window, operand_batching_dims=(0,),
                                 scatter_indices_batching_dims=(0,))
    out = scatter_p.bind(x, indices, update, dimension_numbers=dn, indices_are_sorted=True,
                         unique_indices=True, mode="clip")
    return out, 0


def dynamic_slice(x, start_indices, slice_sizes):
    """Bind ``dynamic_slice`` with one start (scalar integer array) per dimension."""
    return dynamic_slice_p.bind(x, *start_indices,
                                slice_sizes=tuple(int(n) for n in slice_sizes))


def dynamic_update_slice(x, update, start_indices):
    """Bind ``dynamic_update_slice`` with one start (scalar integer array) per dimension."""
    return dynamic_update_slice_p.bind(x, update, *start_indices)
