"""The ``sort`` primitive, with all its rules.

Contract: ``sort(*operands, dimension, is_stable, num_keys)`` sorts all operands (one shape)
along ``dimension`` by the lexicographic order of the first ``num_keys`` of them; NaNs sort
last and ``-0.0 == 0.0`` (NumPy's and jax.numpy's order). Results keep their operands' avals.

Rules: the tangents follow the permutation, got by sorting an iota along (a ``gather``
applies it). Lowered to StableHLO ``sort`` with a comparator region that orders floats as
NumPy does (-0.0 made 0.0 and every NaN the same positive NaN, then a TOTALORDER compare),
complex by (real, imag), and the first ``num_keys`` operands lexicographically. A 0-d sort
returns its operands. With ``is_stable=False`` the order of equal keys is unspecified (the
kernel is always stable).

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray.primitives.sort import sort
    >>> sort([fnp.array([3, 1, 2]), fnp.array([0.0, 1.0, 2.0])])
    [Array([1, 2, 3], dtype=int32), Array([1., 2., 0.], dtype=float32)]
"""

from __future__ import annotations

import numpy as np

from funcarray.base import dtypes
from funcarray.base.array import Array
from funcarray.lowering.stablehlo import compare
from funcarray.primitives.gather import gather_p
from funcarray.primitives.gather_scatter_dims import GatherDimensionNumbers, _fail
from funcarray.primitives.region_lowering import (
    _bool_attr,
    _emit_region_op,
    _same_type_op,
    _scalar_aval,
    _select_op,
)
from funcarray.primitives.shape import iota_p, reshape_p
from funcarray.transforms.core import Primitive, ShapedArray
from funcarray.transforms.jvp import Zero
from funcarray.transforms.vmap import move_to_front, not_mapped

__all__ = ["sort_p", "sort"]


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


def sort(operands, *, dimension=-1, is_stable=True, num_keys=1):
    """Bind ``sort`` on a sequence of operands; returns a list of sorted arrays."""
    operands = tuple(operands)
    ndim = operands[0].ndim if operands else 0
    if ndim and dimension < 0:
        dimension += ndim
    return sort_p.bind(*operands, dimension=int(dimension), is_stable=bool(is_stable),
                       num_keys=int(num_keys))
