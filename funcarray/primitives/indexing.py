"""Indexing primitives: dynamic_slice, dynamic_update_slice, gather, the scatters, and sort.

Contracts (StableHLO semantics; JAX's primitive names and parameters):

* ``dynamic_slice(x, *start_indices, slice_sizes)``: one scalar integer start per dimension
  (all of one dtype). Each start is clamped to ``[0, x.shape[d] - slice_sizes[d]]`` so the slice
  always lies inside ``x``; the result has shape ``slice_sizes``.
* ``dynamic_update_slice(x, update, *start_indices)``: ``x`` with the box at the (clamped, as
  above, with ``update.shape`` as the sizes) starts replaced by ``update``.
* ``gather(x, indices, dimension_numbers, slice_sizes, indices_are_sorted, unique_indices, mode,
  fill_value)``: StableHLO ``gather`` with ``index_vector_dim`` the last dimension of
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
* ``scatter``, ``scatter_add``, ``scatter_mul``, ``scatter_min``, ``scatter_max``
  ``(x, indices, updates, dimension_numbers, indices_are_sorted, unique_indices, mode)``:
  StableHLO ``scatter`` with a :class:`ScatterDimensionNumbers`: the update dimensions not in
  ``update_window_dims`` are the scatter (batch) dimensions and match ``indices.shape[:-1]``;
  each update window lands at the start given by ``indices`` through
  ``scatter_dims_to_operand_dims`` (``inserted_window_dims`` / ``operand_batching_dims`` are size
  1 in the operand's window). Repeated indices combine with add / multiply / min / max;
  ``scatter`` (replace) keeps one of them (which one is unspecified, as in XLA).
  ``mode="drop"`` skips a window that does not fit entirely (XLA's behaviour;
  ``"promise_in_bounds"`` is the same here); ``mode="clip"`` clamps its start first.
* ``sort(*operands, dimension, is_stable, num_keys)``: sorts all operands (one shape) along
  ``dimension`` by the lexicographic order of the first ``num_keys`` of them; NaNs sort last
  and ``-0.0 == 0.0`` (NumPy's and jax.numpy's order). Results keep their operands' avals.

Transformation rules (beside each primitive below). Index operands are never differentiated:
their tangents are symbolic zeros and their cotangents None.

* Linear rules and their transposes: ``dynamic_slice`` <-> ``dynamic_update_slice`` into zeros;
  ``gather`` <-> ``scatter_add`` into zeros (a gather's "fill" windows are a scatter's "drop"
  windows, "clip" stays "clip"); ``dynamic_update_slice``, ``scatter_add`` and ``scatter`` are
  linear in (operand, updates) together. ``scatter`` with repeated indices finds the update
  that won by scattering an id per update and reading the ids back (JAX's scheme), so its
  derivatives agree with its result; ``unique_indices=True`` skips that work.
* ``scatter_mul`` is linear in its operand; its derivative in the updates needs
  ``unique_indices=True`` (as in JAX; NotImplementedError otherwise). ``scatter_min/max``:
  where several values tie for a result, its tangent is their average (JAX's rule).
* ``sort``: the tangents follow the permutation, got by sorting an iota along.
* Batching: a batch axis of the operand becomes a window (or ``operand_batching_dims``)
  dimension of the gather/scatter, a batch axis of the indices a batching dimension; a
  ``dynamic_slice``/``dynamic_update_slice`` with batched starts becomes a gather/scatter.

Lowering rules (StableHLO): one op each (``dynamic_slice``, ``dynamic_update_slice``,
``gather``, ``scatter`` with an update-computation region, ``sort`` with a comparator region),
plus, where StableHLO's behaviour differs from the contract, a short commented sequence:

* ``gather`` ``mode="fill"``: StableHLO clamps, so an in-bounds mask over the index vectors
  (a bound past the index dtype's range holds for every value) selects the fill value.
* scatters: ``"drop"``/``"promise_in_bounds"`` are XLA's own behaviour (windows that do not fit
  are skipped); ``"clip"`` clamps the index vectors first. Boolean add/max are ``or``,
  mul/min ``and``; complex min/max keep NumPy's NaN propagation. Two XLA defects are avoided:
  a 0-d operand is scattered as shape (1,), and an empty index vector is given one explicit 0
  component (XLA otherwise misplaces the updates).
* ``sort``: the comparator orders floats as NumPy does (-0.0 made 0.0 and every NaN the same
  positive NaN, then a TOTALORDER compare), complex by (real, imag), and the first
  ``num_keys`` operands lexicographically. A 0-d sort returns its operands. With
  ``is_stable=False`` the order of equal keys is unspecified (the kernel is always stable).

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray.primitives.indexing import gather, GatherDimensionNumbers
    >>> dn = GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,),
    ...                             start_index_map=(0,))
    >>> gather(fnp.arange(5.0), fnp.array([[4], [0]]), dn, (1,))
    Array([4., 0.], dtype=float32)
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from funcarray.base import dtypes
from funcarray.base.array import Array
from funcarray.lowering.stablehlo import compare, i64_array_attribute, tensor_type
from funcarray.primitives import elementwise as ew
from funcarray.primitives._define import wrap_kernel
from funcarray.primitives.shape import broadcast_in_dim_p, concatenate_p, iota_p, reshape_p
from funcarray.transforms import support
from funcarray.transforms.core import Primitive, ShapedArray
from funcarray.transforms.jvp import Zero, instantiate, tangent_aval
from funcarray.transforms.transpose import is_undefined
from funcarray.transforms.vmap import move_to_front, not_mapped

__all__ = [
    "GatherDimensionNumbers", "ScatterDimensionNumbers",
    "dynamic_slice_p", "dynamic_update_slice_p", "gather_p", "scatter_p", "scatter_add_p",
    "scatter_mul_p", "scatter_min_p", "scatter_max_p", "sort_p",
    "dynamic_slice", "dynamic_update_slice", "gather", "scatter", "scatter_add", "scatter_mul",
    "scatter_min", "scatter_max", "sort", "gather_fill_value",
]

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


# --------------------------------------------------------------------------------------------
# Helpers for the lowering rules (StableHLO text through the LoweringContext). The region
# helpers are private here; they would fit a shared ``lowering/regions.py`` as well.
# --------------------------------------------------------------------------------------------

def _scalar_aval(dtype) -> ShapedArray:
    return ShapedArray((), np.dtype(dtype))


def _emit_region_op(ctx, name, operands, results, attributes, block_avals, body) -> list:
    """Emit ``name`` on ``operands`` with one single-block region, in MLIR's generic form.

    The block takes arguments of ``block_avals``; ``body(*block_args)`` emits the region's ops
    through ``ctx`` and returns the SSA names its ``stablehlo.return`` yields. ``attributes``
    (name -> MLIR text) follow the region, as the generic form orders them. Returns the names
    of the op's results (of avals ``results``).
    """
    names = [ctx.fresh(aval) for aval in results]
    args = [ctx.fresh(aval) for aval in block_avals]
    ctx.emit(f'{", ".join(names)} = "{name}"({", ".join(operands)}) ({{')
    ctx.emit("^bb0(" + ", ".join(f"{a}: {tensor_type(ctx.type_of(a))}" for a in args) + "):")
    returned = body(*args)
    returned_types = ", ".join(tensor_type(ctx.type_of(r)) for r in returned)
    ctx.emit(f'"stablehlo.return"({", ".join(returned)}) : ({returned_types}) -> ()')
    attrs = ", ".join(f"{k} = {v}" for k, v in attributes.items())
    in_types = ", ".join(tensor_type(ctx.type_of(x)) for x in operands)
    out_types = ", ".join(tensor_type(aval) for aval in results)
    if len(results) != 1:
        out_types = f"({out_types})"
    ctx.emit(f"}}) {{{attrs}}} : ({in_types}) -> {out_types}")
    return names


def _select_op(ctx, pred, on_true, on_false) -> str:
    return ctx.op("stablehlo.select", pred, on_true, on_false,
                  results=[ctx.type_of(on_true)])[0]


def _same_type_op(ctx, name, *operands) -> str:
    """An elementwise op whose result has its first operand's type (and/or/clamp/...)."""
    return ctx.op(name, *operands, results=[ctx.type_of(operands[0])])[0]


def _bool_reduce_and(ctx, x, dimension: int) -> str:
    """``x`` (bool) reduced with logical and over ``dimension``."""
    aval = ctx.type_of(x)
    shape = tuple(n for d, n in enumerate(aval.shape) if d != dimension)
    out = ShapedArray(shape, np.dtype(np.bool_))
    true = ctx.constant(True, _scalar_aval(np.bool_))
    return _emit_region_op(
        ctx, "stablehlo.reduce", [x, true], [out],
        {"dimensions": i64_array_attribute([dimension])},
        [_scalar_aval(np.bool_)] * 2, lambda a, b: [_same_type_op(ctx, "stablehlo.and", a, b)])[0]


def _index_bounds(indices_aval, upper) -> np.ndarray:
    """Per-component upper bounds for index vectors, in the indices' dtype (a bound past the
    dtype's range is every value of it)."""
    info = np.iinfo(indices_aval.dtype)
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


def _bool_attr(value) -> str:
    return "true" if value else "false"


# --------------------------------------------------------------------------------------------
# Helpers for the transformation rules. Rules compute with primitives' bind only, so they run
# on tracers of any enclosing transform. Index operands are never differentiated: their
# tangents are symbolic zeros and their cotangents None.
# --------------------------------------------------------------------------------------------

def _full(value, dtype, shape):
    """A constant of ``dtype`` and ``shape`` (a broadcast scalar: one small op when traced)."""
    scalar = Array(np.array(value, dtype))
    return broadcast_in_dim_p.bind(scalar, shape=tuple(shape), broadcast_dimensions=())


def _zeros_like(x):
    """Zeros with ``x``'s shape, dtype and weak_type."""
    scalar = Array(np.zeros((), x.dtype), x.weak_type)
    return broadcast_in_dim_p.bind(scalar, shape=tuple(x.shape), broadcast_dimensions=())


def _select(pred, on_true, on_false):
    return ew.select_n_p.bind(pred, on_false, on_true)


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


def _gather_back(x, indices, updates_shape, dn, mode, indices_are_sorted, unique_indices):
    """For each element of a scatter's updates, the element of ``x`` (operand-shaped) at the
    position it is scattered to; 0 for the elements the scatter drops."""
    window = [updates_shape[d] for d in dn.update_window_dims]
    gather_mode = _gather_mode_of_scatter(mode)
    return gather_p.bind(
        x, indices, dimension_numbers=_gather_dn_of_scatter(dn),
        slice_sizes=_operand_window(x.ndim, dn, window), indices_are_sorted=indices_are_sorted,
        unique_indices=unique_indices, mode=gather_mode,
        fill_value=0 if gather_mode == "fill" else None)


def _stack_starts(starts, dims, size: int):
    """``(size, len(starts))`` start indices, one row per batch member, from scalar starts of
    which some are batched (1-D, ``dims[i] == 0``) and the others are shared."""
    columns = [broadcast_in_dim_p.bind(move_to_front(s, d, size), shape=(size, 1),
                                       broadcast_dimensions=(0,))
               for s, d in zip(starts, dims)]
    return columns[0] if len(columns) == 1 else concatenate_p.bind(*columns, dimension=1)


# --------------------------------------------------------------------------------------------
# dynamic_slice / dynamic_update_slice
# --------------------------------------------------------------------------------------------

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


# --------------------------------------------------------------------------------------------
# gather
# --------------------------------------------------------------------------------------------

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


# --------------------------------------------------------------------------------------------
# scatter family
# --------------------------------------------------------------------------------------------

def _replace_at(out, flat_indices, values):
    out[flat_indices] = values


_COMBINERS = {
    "scatter": _replace_at, "scatter_add": np.add.at, "scatter_mul": np.multiply.at,
    "scatter_min": np.minimum.at, "scatter_max": np.maximum.at,
}


def _operand_window(operand_ndim, dn, window_shape):
    """The update window's size along each operand dimension (1 where a dim is inserted)."""
    full = [1] * operand_ndim
    skipped = set(dn.inserted_window_dims) | set(dn.operand_batching_dims)
    for d, n in zip((d for d in range(operand_ndim) if d not in skipped), window_shape):
        full[d] = n
    return tuple(full)


def _make_scatter_kernel(name):
    combine = _COMBINERS[name]

    def kernel(operand, indices, updates, *, dimension_numbers, indices_are_sorted,
               unique_indices, mode):
        operand, indices, updates = map(np.asarray, (operand, indices, updates))
        dn = dimension_numbers
        n_scatter = updates.ndim - len(dn.update_window_dims)
        # Scatter (batch) dimensions first, in order, then the window dimensions.
        updates = np.moveaxis(updates, dn.update_window_dims, range(n_scatter, updates.ndim))
        window = _operand_window(operand.ndim, dn, updates.shape[n_scatter:])
        starts = _full_starts(indices, operand.ndim, dn.scatter_dims_to_operand_dims,
                              dn.operand_batching_dims, dn.scatter_indices_batching_dims)
        updates = updates.reshape((starts.shape[0],) + window)
        upper = np.array(operand.shape, np.int64) - np.array(window, np.int64)
        if mode == "clip" and (upper >= 0).all():
            starts = np.clip(starts, 0, upper)
        else:  # XLA skips every window that does not fit entirely
            keep = np.all((starts >= 0) & (starts <= upper), axis=1)
            starts, updates = starts[keep], updates[keep]
        strides = np.array([math.prod(operand.shape[d + 1:]) for d in range(operand.ndim)],
                           np.int64)
        flat = np.zeros((starts.shape[0],) + window, np.int64)
        for d, grid in enumerate(_window_grids(starts, window)):
            flat = flat + grid * strides[d]
        out = np.array(operand, copy=True).reshape(-1)
        combine(out, flat.reshape(-1), updates.reshape(-1))
        return out.reshape(operand.shape)

    kernel.__name__ = f"_{name}_kernel"
    return kernel


def _make_scatter_abstract_eval(name):
    def abstract_eval(operand, indices, updates, *, dimension_numbers, indices_are_sorted,
                      unique_indices, mode):
        dn = dimension_numbers
        if not isinstance(dn, ScatterDimensionNumbers):
            _fail(name, f"dimension_numbers must be a ScatterDimensionNumbers, got {dn!r}")
        if mode not in _SCATTER_MODES:
            _fail(name, f"mode must be one of {_SCATTER_MODES}, got {mode!r}")
        _check_integer_indices(name, indices)
        if updates.dtype != operand.dtype:
            _fail(name, f"updates {updates.str_short()} must have the dtype of the operand "
                        f"{operand.str_short()}")
        batch_shape = indices.shape[:-1]
        _check_dims(name, "update_window_dims", dn.update_window_dims, updates.ndim)
        _check_dims(name, "inserted_window_dims", dn.inserted_window_dims, operand.ndim)
        _check_dims(name, "operand_batching_dims", dn.operand_batching_dims, operand.ndim)
        _check_dims(name, "scatter_dims_to_operand_dims", dn.scatter_dims_to_operand_dims,
                    operand.ndim, sorted_=False)
        _check_dims(name, "scatter_indices_batching_dims", dn.scatter_indices_batching_dims,
                    len(batch_shape), sorted_=False)
        if set(dn.inserted_window_dims) & set(dn.operand_batching_dims):
            _fail(name, "inserted_window_dims and operand_batching_dims must be disjoint")
        if set(dn.scatter_dims_to_operand_dims) & set(dn.operand_batching_dims):
            _fail(name, "scatter_dims_to_operand_dims and operand_batching_dims must be "
                        "disjoint")
        if len(dn.operand_batching_dims) != len(dn.scatter_indices_batching_dims):
            _fail(name, "operand_batching_dims and scatter_indices_batching_dims need equal "
                        "lengths")
        if indices.shape[-1] != len(dn.scatter_dims_to_operand_dims):
            _fail(name, f"the last dimension of the indices {indices.str_short()} must equal "
                        f"len(scatter_dims_to_operand_dims)="
                        f"{len(dn.scatter_dims_to_operand_dims)}")
        n_window = len(dn.update_window_dims)
        if n_window + len(dn.inserted_window_dims) + len(dn.operand_batching_dims) \
                != operand.ndim:
            _fail(name, f"update_window_dims, inserted_window_dims and operand_batching_dims "
                        f"must account for every dimension of the operand {operand.str_short()}")
        scatter_sizes = tuple(n for d, n in enumerate(updates.shape)
                              if d not in dn.update_window_dims)
        if scatter_sizes != batch_shape:
            _fail(name, f"the scatter dimensions of the updates {updates.str_short()} must "
                        f"match the batch dimensions of the indices {indices.str_short()}")
        window = tuple(updates.shape[d] for d in dn.update_window_dims)
        skipped = set(dn.inserted_window_dims) | set(dn.operand_batching_dims)
        bounds = [n for d, n in enumerate(operand.shape) if d not in skipped]
        if any(w > d for w, d in zip(window, bounds)):
            _fail(name, f"the update window {window} of {updates.str_short()} does not fit "
                        f"in the operand {operand.str_short()}")
        for od, idim in zip(dn.operand_batching_dims, dn.scatter_indices_batching_dims):
            if operand.shape[od] != batch_shape[idim]:
                _fail(name, f"batching dimension {od} of the operand {operand.str_short()} "
                            f"and {idim} of the indices {indices.str_short()} differ in size")
        return ShapedArray(operand.shape, operand.dtype, operand.weak_type)

    return abstract_eval


def _scatter_primitive(name):
    prim = Primitive(name)
    prim.kernel = _make_scatter_kernel(name)
    prim.impl = wrap_kernel(prim.kernel, keep_weak=True)
    prim.abstract_eval = _make_scatter_abstract_eval(name)
    return prim


scatter_p = _scatter_primitive("scatter")
scatter_add_p = _scatter_primitive("scatter_add")
scatter_mul_p = _scatter_primitive("scatter_mul")
scatter_min_p = _scatter_primitive("scatter_min")
scatter_max_p = _scatter_primitive("scatter_max")


# --- scatter lowering ----------------------------------------------------------------------

# The update computation of each scatter: how an update combines with the operand's element.
# On booleans StableHLO has no arithmetic: add/max are "or", mul/min are "and" (as NumPy).
_SCATTER_COMBINE = {
    "scatter_add": ("stablehlo.add", "stablehlo.or"),
    "scatter_mul": ("stablehlo.multiply", "stablehlo.and"),
    "scatter_min": ("stablehlo.minimum", "stablehlo.and"),
    "scatter_max": ("stablehlo.maximum", "stablehlo.or"),
}


def _scatter_into_scalar(ctx, lower, operand, indices, updates, **params) -> list:
    """A scatter into a 0-d operand, as one into its reshape to shape (1,) (every update lands
    on the one element): XLA's scatter simplifier rejects 0-d operands."""
    aval = ctx.type_of(operand)
    vector = ShapedArray((1,), aval.dtype)
    operand = ctx.op("stablehlo.reshape", operand, results=[vector])[0]
    dn = ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                 scatter_dims_to_operand_dims=())
    (out,) = lower(ctx, operand, indices, updates, dimension_numbers=dn, **params)
    return ctx.op("stablehlo.reshape", out)


def _scatter_lowering(name):
    def lower(ctx, operand, indices, updates, *, dimension_numbers, indices_are_sorted,
              unique_indices, mode):
        dn = dimension_numbers
        operand_aval, indices_aval = ctx.type_of(operand), ctx.type_of(indices)
        if not operand_aval.shape:
            return _scatter_into_scalar(ctx, lower, operand, indices, updates,
                                        indices_are_sorted=indices_are_sorted,
                                        unique_indices=unique_indices, mode=mode)
        free = [d for d in range(operand_aval.ndim) if d not in dn.operand_batching_dims]
        if not dn.scatter_dims_to_operand_dims and free:
            # XLA mis-scatters with empty index vectors (updates land at their scatter
            # position, not at 0): spell out the start 0 of one dimension instead.
            indices_aval = ShapedArray((*indices_aval.shape[:-1], 1), indices_aval.dtype)
            indices = ctx.constant(0, indices_aval)
            dn = dn._replace(scatter_dims_to_operand_dims=(free[0],))
        if mode == "clip" and dn.scatter_dims_to_operand_dims:
            # StableHLO skips windows that do not fit ("drop"): clamp their starts first.
            updates_shape = ctx.type_of(updates).shape
            window = _operand_window(operand_aval.ndim, dn,
                                     [updates_shape[d] for d in dn.update_window_dims])
            upper = [operand_aval.shape[d] - window[d] for d in dn.scatter_dims_to_operand_dims]
            indices = _clamp_indices(ctx, indices, upper)
        attr = _dimension_numbers_attr("scatter", (
            ("update_window_dims", dn.update_window_dims),
            ("inserted_window_dims", dn.inserted_window_dims),
            ("input_batching_dims", dn.operand_batching_dims),
            ("scatter_indices_batching_dims", dn.scatter_indices_batching_dims),
            ("scatter_dims_to_operand_dims", dn.scatter_dims_to_operand_dims)),
            indices_aval.ndim - 1)
        element = _scalar_aval(operand_aval.dtype)

        def combine(old, new):
            if name == "scatter":  # replace
                return [new]
            arithmetic, logical = _SCATTER_COMBINE[name]
            hlo = logical if element.dtype == np.bool_ else arithmetic
            out = _same_type_op(ctx, hlo, old, new)
            if element.dtype.kind == "c" and name in ("scatter_min", "scatter_max"):
                # XLA's complex min/max compare lexicographically and drop NaNs; NumPy's
                # (the contract) return the first operand holding a NaN.
                out = _select_op(ctx, compare(ctx, new, new, "NE"), new, out)
                out = _select_op(ctx, compare(ctx, old, old, "NE"), old, out)
            return [out]

        return _emit_region_op(
            ctx, "stablehlo.scatter", [operand, indices, updates],
            [ShapedArray(operand_aval.shape, operand_aval.dtype)],
            {"indices_are_sorted": _bool_attr(indices_are_sorted),
             "scatter_dimension_numbers": attr, "unique_indices": _bool_attr(unique_indices)},
            [element, element], combine)

    lower.__qualname__ = f"_{name}_lower"
    return lower


# --- scatter rules -------------------------------------------------------------------------

def _scatter_batch_rule(prim):
    """Batch rule shared by the scatters: operand and updates get the batch axis first; it is
    a window dimension when the indices are shared, else a batching dimension."""
    def rule(vals, dims, *, dimension_numbers, **params):
        operand, indices, updates = vals
        operand_dim, indices_dim, updates_dim = dims
        dn = dimension_numbers
        size = next(v.shape[d] for v, d in zip(vals, dims) if d is not not_mapped)
        operand = move_to_front(operand, operand_dim, size)
        updates = move_to_front(updates, updates_dim, size)
        common = dict(inserted_window_dims=_shifted(dn.inserted_window_dims),
                      scatter_dims_to_operand_dims=_shifted(dn.scatter_dims_to_operand_dims))
        if indices_dim is not_mapped:
            dn = ScatterDimensionNumbers(
                update_window_dims=(0, *_shifted(dn.update_window_dims)), **common,
                operand_batching_dims=_shifted(dn.operand_batching_dims),
                scatter_indices_batching_dims=dn.scatter_indices_batching_dims)
        else:
            indices = move_to_front(indices, indices_dim, size)
            dn = ScatterDimensionNumbers(
                update_window_dims=_shifted(dn.update_window_dims), **common,
                operand_batching_dims=(0, *_shifted(dn.operand_batching_dims)),
                scatter_indices_batching_dims=(0, *_shifted(dn.scatter_indices_batching_dims)))
        return prim.bind(operand, indices, updates, dimension_numbers=dn, **params), 0

    return rule


for _prim in (scatter_p, scatter_add_p, scatter_mul_p, scatter_min_p, scatter_max_p):
    _prim.batch_rule = _scatter_batch_rule(_prim)
    _prim.lower_rule = _scatter_lowering(_prim.name)
del _prim


def _zero_out_like(out):
    return Zero(tangent_aval(out.aval))


@scatter_add_p.def_jvp
def _scatter_add_jvp(primals, tangents, **params):
    operand, indices, updates = primals
    t_operand, _, t_updates = tangents
    out = scatter_add_p.bind(operand, indices, updates, **params)
    if type(t_operand) is Zero and type(t_updates) is Zero:
        return out, _zero_out_like(out)
    return out, scatter_add_p.bind(instantiate(t_operand), indices, instantiate(t_updates),
                                   **params)


@scatter_add_p.def_transpose
def _scatter_add_transpose(ct, operand, indices, updates, *, dimension_numbers, mode,
                           indices_are_sorted, unique_indices):
    ct_operand = ct if is_undefined(operand) else None
    ct_updates = None
    if is_undefined(updates):
        ct_updates = _gather_back(ct, indices, updates.aval.shape, dimension_numbers, mode,
                                  indices_are_sorted, unique_indices)
    return [ct_operand, None, ct_updates]


def _winning_updates(operand_aval, indices, updates_aval, dn, mode, indices_are_sorted,
                     unique_indices):
    """Which update elements a (replacing) ``scatter`` keeps, and which operand positions it
    leaves alone. Repeated indices keep one update, unspecified which; scattering a distinct id
    per update window and reading the ids back finds the one that won, so the derivative rules
    agree with the primal result whatever the backend picks (JAX's scheme).

    Returns ``(untouched, won)``: bool masks shaped like the operand and the updates.
    """
    ids_shape = tuple(1 if d in dn.update_window_dims else n
                      for d, n in enumerate(updates_aval.shape))
    count = math.prod(ids_shape)
    id_dtype = np.dtype(np.uint32 if count < 2**32 - 1 else np.uint64)
    ids = iota_p.bind(dtype=id_dtype, shape=(count,), dimension=0)
    ids = ew.add_p.bind(ids, _full(1, id_dtype, (count,)))  # 0 means "no update landed"
    ids = broadcast_in_dim_p.bind(reshape_p.bind(ids, new_sizes=ids_shape),
                                  shape=updates_aval.shape,
                                  broadcast_dimensions=tuple(range(len(ids_shape))))
    params = dict(indices_are_sorted=indices_are_sorted, unique_indices=unique_indices)
    scattered = scatter_p.bind(_full(0, id_dtype, operand_aval.shape), indices, ids,
                               dimension_numbers=dn, mode=mode, **params)
    read_back = _gather_back(scattered, indices, updates_aval.shape, dn, mode, **params)
    untouched = ew.eq_p.bind(scattered, _full(0, id_dtype, operand_aval.shape))
    return untouched, ew.eq_p.bind(read_back, ids)


@scatter_p.def_jvp
def _scatter_jvp(primals, tangents, *, dimension_numbers, indices_are_sorted, unique_indices,
                 mode):
    operand, indices, updates = primals
    t_operand, _, t_updates = tangents
    params = dict(dimension_numbers=dimension_numbers, indices_are_sorted=indices_are_sorted,
                  unique_indices=unique_indices, mode=mode)
    if type(t_operand) is Zero and type(t_updates) is Zero:
        out = scatter_p.bind(operand, indices, updates, **params)
        return out, _zero_out_like(out)
    t_operand, t_updates = instantiate(t_operand), instantiate(t_updates)
    if unique_indices:  # the caller promises no two updates overlap: scatter is linear
        return (scatter_p.bind(operand, indices, updates, **params),
                scatter_p.bind(t_operand, indices, t_updates, **params))
    # Mask the losers out, then add: the primal and tangent are computed the same way, so they
    # agree on which update won.
    untouched, won = _winning_updates(operand.aval, indices, updates.aval, dimension_numbers,
                                      mode, indices_are_sorted, unique_indices)

    def masked_scatter(x, u):
        x = _select(untouched, x, _zeros_like(x))
        u = _select(won, u, _zeros_like(u))
        return scatter_add_p.bind(x, indices, u, **params)

    return masked_scatter(operand, updates), masked_scatter(t_operand, t_updates)


@scatter_p.def_transpose
def _scatter_transpose(ct, operand, indices, updates, *, dimension_numbers, indices_are_sorted,
                       unique_indices, mode):
    params = dict(indices_are_sorted=indices_are_sorted, unique_indices=unique_indices)
    ct_operand = ct_updates = None
    if is_undefined(operand):  # overwritten positions get nothing back
        ct_operand = scatter_p.bind(ct, indices, support.ops.zeros(updates.aval),
                                    dimension_numbers=dimension_numbers, mode=mode, **params)
    if is_undefined(updates):
        ct_updates = _gather_back(ct, indices, updates.aval.shape, dimension_numbers, mode,
                                  **params)
        if not unique_indices:  # only the updates that won receive a cotangent
            _, won = _winning_updates(ct.aval, indices, updates.aval, dimension_numbers, mode,
                                      **params)
            ct_updates = _select(won, ct_updates, support.ops.zeros(ct_updates.aval))
    return [ct_operand, None, ct_updates]


@scatter_mul_p.def_jvp
def _scatter_mul_jvp(primals, tangents, *, dimension_numbers, indices_are_sorted,
                     unique_indices, mode):
    operand, indices, updates = primals
    t_operand, _, t_updates = tangents
    params = dict(dimension_numbers=dimension_numbers, indices_are_sorted=indices_are_sorted,
                  unique_indices=unique_indices, mode=mode)
    out = scatter_mul_p.bind(operand, indices, updates, **params)
    tangent = None
    if type(t_operand) is not Zero:  # linear in the operand for any indices
        tangent = scatter_mul_p.bind(t_operand, indices, updates, **params)
    if type(t_updates) is not Zero:
        if not unique_indices:
            raise NotImplementedError(
                "scatter_mul (x.at[idx].multiply(values)): the derivative with respect to the "
                "values is only implemented when the indices are unique, as in JAX. If no "
                "position is updated twice, pass unique_indices=True; otherwise multiply the "
                "values per position first (e.g. with a segment product) and scatter once.")
        # Each position is multiplied by one value at most: d out = operand * scattered dv.
        spread = scatter_add_p.bind(support.ops.zeros(operand.aval), indices, t_updates,
                                    **params)
        from_updates = ew.mul_p.bind(operand, spread)
        tangent = from_updates if tangent is None else ew.add_p.bind(tangent, from_updates)
    return out, (_zero_out_like(out) if tangent is None else tangent)


@scatter_mul_p.def_transpose
def _scatter_mul_transpose(ct, operand, indices, updates, **params):
    if is_undefined(updates):
        raise NotImplementedError(
            "scatter_mul is not linear in its updates, so it cannot be transposed with respect "
            "to them (its jvp never produces that case)")
    ct_operand = scatter_mul_p.bind(ct, indices, updates, **params) \
        if is_undefined(operand) else None
    return [ct_operand, None, None]


def _scatter_extremum_jvp(prim):
    """jvp of scatter_min/scatter_max, as JAX defines it: where several values tie for the
    result (operand and updates alike), the tangent is the average of theirs."""
    def rule(primals, tangents, *, dimension_numbers, indices_are_sorted, unique_indices,
             mode):
        operand, indices, updates = primals
        t_operand, _, t_updates = tangents
        params = dict(dimension_numbers=dimension_numbers,
                      indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
                      mode=mode)
        out = prim.bind(operand, indices, updates, **params)
        if type(t_operand) is Zero and type(t_updates) is Zero:
            return out, _zero_out_like(out)
        t_operand, t_updates = instantiate(t_operand), instantiate(t_updates)
        dtype, shape = updates.dtype, updates.shape

        def back(x):  # operand-shaped -> updates-shaped, at the positions each update hits
            return _gather_back(x, indices, shape, dimension_numbers, mode,
                                indices_are_sorted, unique_indices)

        def count(per_update):  # per position: the sum of ``per_update`` over its updates
            total = scatter_add_p.bind(support.ops.zeros(out.aval),
                                       indices, per_update, **params)
            return back(total)

        ones, zeros = _full(1, dtype, shape), _full(0, dtype, shape)
        result = back(out)
        won = ew.eq_p.bind(updates, result)  # this update value reached the result
        kept = ew.eq_p.bind(back(operand), result)  # the operand's value is still there
        num_won = count(_select(won, ones, zeros))
        num_refs = count(ones)
        num_won_and_kept = ew.add_p.bind(num_won, ones)
        share = _select(kept, ew.div_p.bind(ones, num_won_and_kept),
                        ew.div_p.bind(ones, num_won))
        update_coef = _select(won, share, zeros)
        operand_share = _select(kept, ew.div_p.bind(ones, num_won_and_kept), zeros)
        # The operand's tangent is added once per update at its position by the scatter_add
        # below (and once more as its own operand): scale it to ``operand_share`` in total.
        operand_coef = ew.div_p.bind(ew.sub_p.bind(operand_share, ones), num_refs)
        tangent_updates = ew.add_p.bind(ew.mul_p.bind(back(t_operand), operand_coef),
                                        ew.mul_p.bind(t_updates, update_coef))
        return out, scatter_add_p.bind(t_operand, indices, tangent_updates, **params)

    return rule


scatter_min_p.jvp_rule = _scatter_extremum_jvp(scatter_min_p)
scatter_max_p.jvp_rule = _scatter_extremum_jvp(scatter_max_p)


# --------------------------------------------------------------------------------------------
# sort
# --------------------------------------------------------------------------------------------

def _sort_keys(x):
    """NumPy keys with the order jax.numpy uses (NaN last, -0.0 == 0.0); lexsort wants the
    primary key last."""
    if x.dtype.isbuiltin == 2 and dtypes.is_float(x.dtype):  # bfloat16, float8 (ml_dtypes)
        x = x.astype(np.float32)  # exact, and NumPy sorts NaNs of native floats last
    if x.dtype.kind == "c":
        return [x.imag, x.real]
    return [x]


def _sort_kernel(*operands, dimension, is_stable, num_keys):
    operands = [np.asarray(x) for x in operands]
    if not operands[0].ndim:
        return [x.copy() for x in operands]
    operands = [np.moveaxis(x, dimension, -1) for x in operands]
    keys = []
    for x in reversed(operands[:num_keys]):
        keys.extend(_sort_keys(x))
    order = np.lexsort(keys, axis=-1)  # stable, whatever is_stable says
    return [np.moveaxis(np.take_along_axis(x, order, axis=-1), -1, dimension)
            for x in operands]


sort_p = Primitive("sort", multiple_results=True)
sort_p.kernel = _sort_kernel


@sort_p.def_impl
def _sort_impl(*operands, dimension, is_stable, num_keys):
    outs = _sort_kernel(*(x._value for x in operands), dimension=dimension,
                        is_stable=is_stable, num_keys=num_keys)
    return [Array(out, x._weak) for out, x in zip(outs, operands)]


@sort_p.def_abstract_eval
def _sort_abstract_eval(*operands, dimension, is_stable, num_keys):
    if not operands:
        _fail("sort", "needs at least one operand")
    shape = operands[0].shape
    if any(x.shape != shape for x in operands):
        _fail("sort", "operands must share one shape, got "
              + ", ".join(x.str_short() for x in operands))
    if not 1 <= num_keys <= len(operands):
        _fail("sort", f"num_keys={num_keys} must lie in [1, {len(operands)}]")
    if shape and not 0 <= dimension < len(shape):
        _fail("sort", f"dimension {dimension} is out of range for shape {shape}")
    return [ShapedArray(x.shape, x.dtype, x.weak_type) for x in operands]


def _total_order_key(ctx, x) -> list:
    """The scalar(s) whose TOTALORDER comparison gives the kernel's order of ``x``: floats with
    -0.0 made 0.0 and every NaN the positive quiet NaN (so NaNs sort last and tie, as in
    NumPy), complex as (real, imag)."""
    aval = ctx.type_of(x)
    if np.dtype(aval.dtype).kind == "c":
        part = _scalar_aval(np.float32 if aval.dtype == np.complex64 else np.float64)
        return [_total_order_key(ctx, ctx.op(hlo, x, results=[part])[0])[0]
                for hlo in ("stablehlo.real", "stablehlo.imag")]
    if not dtypes.is_inexact(aval.dtype):
        return [x]
    x = _select_op(ctx, compare(ctx, x, ctx.constant(0, aval), "EQ"), ctx.constant(0, aval), x)
    return [_select_op(ctx, compare(ctx, x, x, "NE"), ctx.constant(np.nan, aval), x)]


def _key_compare(ctx, x, y, direction: str) -> str:
    """``compare`` in the order of ``_total_order_key`` (TOTALORDER for floats)."""
    if not dtypes.is_inexact(ctx.type_of(x).dtype):
        return compare(ctx, x, y, direction)
    return ctx.op("stablehlo.compare", x, y, results=[_scalar_aval(np.bool_)], attributes={
        "comparison_direction": f"#stablehlo<comparison_direction {direction}>",
        "compare_type": "#stablehlo<comparison_type TOTALORDER>"})[0]


def _lexicographic_less(ctx, lhs_keys, rhs_keys) -> str:
    """``lhs < rhs`` comparing key by key: less on the first key that differs."""
    pairs = [(a, b) for lhs, rhs in zip(lhs_keys, rhs_keys)
             for a, b in zip(_total_order_key(ctx, lhs), _total_order_key(ctx, rhs))]
    *firsts, (a, b) = pairs
    less = _key_compare(ctx, a, b, "LT")
    for a, b in reversed(firsts):
        tie_then_less = _same_type_op(ctx, "stablehlo.and", _key_compare(ctx, a, b, "EQ"), less)
        less = _same_type_op(ctx, "stablehlo.or", _key_compare(ctx, a, b, "LT"), tie_then_less)
    return less


@sort_p.def_lower
def _sort_lower(ctx, *operands, dimension, is_stable, num_keys):
    if not ctx.avals_out[0].shape:  # a 0-d array is sorted already (StableHLO needs rank >= 1)
        return list(operands)
    block_avals = [_scalar_aval(ctx.type_of(x).dtype) for x in operands for _ in range(2)]

    def comparator(*args):
        lhs, rhs = args[0::2][:num_keys], args[1::2][:num_keys]
        return [_lexicographic_less(ctx, lhs, rhs)]

    # With is_stable=False, XLA may order equal keys (and their other operands) differently
    # from the kernel, which is always stable: that order is unspecified.
    return _emit_region_op(ctx, "stablehlo.sort", list(operands), ctx.avals_out,
                           {"dimension": f"{int(dimension)} : i64",
                            "is_stable": _bool_attr(is_stable)},
                           block_avals, comparator)


def _take_along(x, order, dimension: int):
    """``x`` permuted along ``dimension`` by the integer array ``order`` of ``x``'s shape: a
    gather whose other dimensions are batching dimensions (take_along_axis)."""
    others = tuple(d for d in range(x.ndim) if d != dimension)
    dn = GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(dimension,),
                                start_index_map=(dimension,), operand_batching_dims=others,
                                start_indices_batching_dims=others)
    indices = reshape_p.bind(order, new_sizes=(*order.shape, 1))
    return gather_p.bind(x, indices, dimension_numbers=dn, slice_sizes=(1,) * x.ndim,
                         indices_are_sorted=False, unique_indices=True, mode="clip",
                         fill_value=None)


@sort_p.def_jvp
def _sort_jvp(primals, tangents, *, dimension, is_stable, num_keys):
    params = dict(dimension=dimension, is_stable=is_stable, num_keys=num_keys)
    shape = primals[0].shape
    if not shape:  # sorting a 0-d array changes nothing
        return sort_p.bind(*primals, **params), list(tangents)
    # Sort positions along with the operands (not a key): the permutation the sort applied.
    index_dtype = np.int32 if shape[dimension] < 2**31 else np.int64
    positions = iota_p.bind(dtype=np.dtype(index_dtype), shape=shape, dimension=dimension)
    *outs, order = sort_p.bind(*primals, positions, **params)
    tangents_out = [t if type(t) is Zero else _take_along(t, order, dimension)
                    for t in tangents]
    return outs, tangents_out


@sort_p.def_batch
def _sort_batch(vals, dims, *, dimension, is_stable, num_keys):
    size = next(v.shape[d] for v, d in zip(vals, dims) if d is not not_mapped)
    if not vals[0].ndim - (dims[0] is not not_mapped):  # 0-d members: nothing to sort
        return list(vals), list(dims)
    # Every operand gets the batch axis first (the keys decide the order of all of them).
    vals = [move_to_front(v, d, size) for v, d in zip(vals, dims)]
    outs = sort_p.bind(*vals, dimension=dimension + 1, is_stable=is_stable, num_keys=num_keys)
    return outs, [0] * len(outs)


# --------------------------------------------------------------------------------------------
# Binding helpers (lax-style signatures; they only normalise parameters to hashable values)
# --------------------------------------------------------------------------------------------

def dynamic_slice(x, start_indices, slice_sizes):
    """Bind ``dynamic_slice`` with one start (scalar integer array) per dimension."""
    return dynamic_slice_p.bind(x, *start_indices,
                                slice_sizes=tuple(int(n) for n in slice_sizes))


def dynamic_update_slice(x, update, start_indices):
    """Bind ``dynamic_update_slice`` with one start (scalar integer array) per dimension."""
    return dynamic_update_slice_p.bind(x, update, *start_indices)


def gather(operand, indices, dimension_numbers, slice_sizes, *, mode="clip", fill_value=None,
           indices_are_sorted=False, unique_indices=False):
    """Bind ``gather`` (see the module docstring for the semantics)."""
    return gather_p.bind(
        operand, indices, dimension_numbers=_as_int_tuples(dimension_numbers),
        slice_sizes=tuple(int(n) for n in slice_sizes), indices_are_sorted=bool(indices_are_sorted),
        unique_indices=bool(unique_indices), mode=mode, fill_value=fill_value)


def _scatter_binder(prim):
    def bind(operand, indices, updates, dimension_numbers, *, mode="drop",
             indices_are_sorted=False, unique_indices=False):
        return prim.bind(
            operand, indices, updates, dimension_numbers=_as_int_tuples(dimension_numbers),
            indices_are_sorted=bool(indices_are_sorted), unique_indices=bool(unique_indices),
            mode=mode)
    bind.__name__ = bind.__qualname__ = prim.name
    bind.__doc__ = f"Bind ``{prim.name}`` (see the module docstring for the semantics)."
    return bind


scatter = _scatter_binder(scatter_p)
scatter_add = _scatter_binder(scatter_add_p)
scatter_mul = _scatter_binder(scatter_mul_p)
scatter_min = _scatter_binder(scatter_min_p)
scatter_max = _scatter_binder(scatter_max_p)


def sort(operands, *, dimension=-1, is_stable=True, num_keys=1):
    """Bind ``sort`` on a sequence of operands; returns a list of sorted arrays."""
    operands = tuple(operands)
    ndim = operands[0].ndim if operands else 0
    if ndim and dimension < 0:
        dimension += ndim
    return sort_p.bind(*operands, dimension=int(dimension), is_stable=bool(is_stable),
                       num_keys=int(num_keys))
