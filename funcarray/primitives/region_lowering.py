"""StableHLO text for the lowering rules of ``scatter`` and ``sort``: an op with one
single-block region (a scatter's update computation, a sort's comparator, a boolean
``reduce``) in MLIR's generic form, and the small typed ops those regions emit.
"""

from __future__ import annotations

import numpy as np

from funcarray.lowering.stablehlo import i64_array_attribute, tensor_type
from funcarray.transforms.core import ShapedArray


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


def _bool_attr(value) -> str:
    return "true" if value else "false"
