"""Ops that carry regions (reduce, reduce_window, sort, scatter, while...), in generic form.

A StableHLO region is a block of ops with its own arguments, ended by ``stablehlo.return``:
the reduction body of ``stablehlo.reduce``, the comparator of ``stablehlo.sort``, the update
computation of ``stablehlo.scatter``. Here a region is a ``Region``: the avals of its block
arguments (0-d tensors for reduction bodies and comparators) and a Python ``body`` that emits
the block's ops through an ordinary ``LoweringContext`` (so ``ctx.op``, ``ctx.constant`` and
``stablehlo.compare`` work inside it) and returns the SSA names the block returns.

* ``region_op(ctx, name, operands, regions, results=..., attributes=...)`` writes any op with
  regions; the region lines are indented inside it. SSA names are unique across the whole
  function, regions included, so a body can never shadow an outer value.
* ``reduce(ctx, operands, inits, dimensions, combine)`` and
  ``reduce_window(ctx, operands, inits, combine, window_dimensions=..., padding=...)`` build
  the (variadic) reductions, computing their result types. ``combine`` is a ``stablehlo.*``
  op name applied pairwise, or ``combine(ctx, lhs, rhs) -> list`` where ``lhs``/``rhs`` are
  the lists of the two sides' 0-d block arguments (StableHLO's order: all accumulators, then
  all the values they are combined with).
* ``binary_region(combine, dtypes)`` is that reduction body as a ``Region`` (for other ops
  with the same body shape, such as ``scatter``'s update computation), and ``scalar(dtype)``
  the aval of a 0-d tensor.

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray.lowering.stablehlo import lower_ir
    >>> from funcarray.primitives.reduce import reduce_max_p
    >>> from funcarray.transforms.staging import make_ir
    >>> text = lower_ir(make_ir(lambda x: reduce_max_p.bind(x, axes=(0,)))(fnp.ones((2, 3))))
    >>> print(text.split("\\n", 3)[3])  # the function body
        %0 = "stablehlo.constant"() {value = dense<0xFF800000> : tensor<f32>} : () -> tensor<f32>
        %1 = "stablehlo.reduce"(%arg0, %0) ({
          ^bb0(%2: tensor<f32>, %3: tensor<f32>):
            %4 = "stablehlo.maximum"(%2, %3) : (tensor<f32>, tensor<f32>) -> tensor<f32>
            "stablehlo.return"(%4) : (tensor<f32>) -> ()
        }) {dimensions = array<i64: 0>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<3xf32>
        "func.return"(%1) : (tensor<3xf32>) -> ()
      }
    }
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from funcarray.lowering.stablehlo import LoweringContext, i64_array_attribute, tensor_type
from funcarray.transforms.core import ShapedArray

__all__ = [
    "Region", "region_op", "binary_region", "reduce", "reduce_window", "scalar",
    "pairwise_combine",
]



def scalar(dtype) -> ShapedArray:
    """The aval of a 0-d tensor of ``dtype`` (the block arguments of reduction bodies)."""
    return ShapedArray((), np.dtype(dtype))


@dataclass(frozen=True)
class Region:
    """One region: block arguments of types ``arg_avals`` and a ``body`` emitting its ops.

    ``body(ctx, *arg_names) -> list of SSA names`` runs with a ``LoweringContext`` whose
    ``avals_in`` are ``arg_avals`` and whose ``avals_out`` are ``out_avals`` (the default
    result types of ``ctx.op`` inside the body; pass ``results=`` to ``ctx.op`` otherwise).
    What the body returns is returned by the block's ``stablehlo.return``.
    """

    arg_avals: tuple
    body: Callable
    out_avals: tuple = ()


@contextmanager
def _indented(ctx: LoweringContext, extra: str = "  "):
    builder = ctx._builder
    saved = builder.indent
    builder.indent = saved + extra
    try:
        yield
    finally:
        builder.indent = saved


def _emit_region(ctx: LoweringContext, region: Region) -> None:
    args = [ctx.fresh(aval) for aval in region.arg_avals]
    with _indented(ctx):
        if args:
            ctx.emit("^bb0(" + ", ".join(f"{a}: {tensor_type(ctx.type_of(a))}" for a in args)
                     + "):")
        with _indented(ctx):
            inner = LoweringContext(tuple(region.arg_avals), tuple(region.out_avals),
                                    ctx._builder)
            returned = list(region.body(inner, *args))
            types = ", ".join(tensor_type(ctx.type_of(r)) for r in returned)
            ctx.emit(f'"stablehlo.return"({", ".join(returned)}) : ({types}) -> ()')


def region_op(ctx: LoweringContext, name: str, operands: Sequence[str],
              regions: Sequence[Region], *, results=None, attributes=None) -> list:
    """Emit op ``name`` on ``operands`` with ``regions``; returns its result names.

    ``results`` are the result avals (default: the equation's ``avals_out``); ``attributes``
    maps attribute names to their MLIR text, printed in the given order (keep it fixed: the
    text is a cache key).
    """
    results = ctx.avals_out if results is None else tuple(results)
    names = [ctx.fresh(aval) for aval in results]
    lhs = f"{', '.join(names)} = " if names else ""
    ctx.emit(f'{lhs}"{name}"({", ".join(operands)}) ({{')
    for k, region in enumerate(regions):
        if k:
            ctx.emit("}, {")
        _emit_region(ctx, region)
    attrs = ""
    if attributes:
        attrs = " {" + ", ".join(f"{k} = {v}" for k, v in attributes.items()) + "}"
    in_types = ", ".join(tensor_type(ctx.type_of(x)) for x in operands)
    out_types = ", ".join(tensor_type(aval) for aval in results)
    if len(results) != 1:
        out_types = f"({out_types})"
    ctx.emit(f"}}){attrs} : ({in_types}) -> {out_types}")
    return names


def pairwise_combine(hlo_op: str) -> Callable:
    """A ``combine(ctx, lhs, rhs)`` applying the elementwise ``hlo_op`` to each pair."""
    def combine(ctx, lhs, rhs):
        return [ctx.op(hlo_op, a, b, results=[ctx.type_of(a)])[0] for a, b in zip(lhs, rhs)]

    return combine


def binary_region(combine: str | Callable, dtypes: Sequence) -> Region:
    """The body of a (variadic) reduction over operands of ``dtypes``: block arguments
    ``(lhs_0, ..., lhs_n-1, rhs_0, ..., rhs_n-1)``, all 0-d, returning ``combine(lhs, rhs)``.

    ``combine`` is a ``stablehlo.*`` op name (applied to each pair) or
    ``combine(ctx, lhs_names, rhs_names) -> list of names``.
    """
    if isinstance(combine, str):
        combine = pairwise_combine(combine)
    avals = tuple(scalar(dt) for dt in dtypes)
    n = len(avals)

    def body(ctx, *args):
        return combine(ctx, list(args[:n]), list(args[n:]))

    return Region(avals + avals, body, avals)


def _init_dtypes(ctx: LoweringContext, operands, inits) -> list:
    if len(operands) != len(inits) or not operands:
        raise ValueError(f"a reduction needs one init value per operand, got "
                         f"{len(operands)} operands and {len(inits)} inits")
    return [ctx.type_of(init).dtype for init in inits]


def reduce(ctx: LoweringContext, operands: Sequence[str], inits: Sequence[str],
           dimensions: Sequence[int], combine: str | Callable) -> list:
    """Emit ``stablehlo.reduce`` of ``operands`` (same shape) over ``dimensions``, starting
    from the 0-d ``inits``; returns one result name per operand (its shape without
    ``dimensions``, its init's dtype)."""
    dts = _init_dtypes(ctx, operands, inits)
    shape = ctx.type_of(operands[0]).shape
    reduced = set(dimensions)
    kept = tuple(d for i, d in enumerate(shape) if i not in reduced)
    results = [ShapedArray(kept, dt) for dt in dts]
    return region_op(ctx, "stablehlo.reduce", [*operands, *inits], [binary_region(combine, dts)],
                     results=results,
                     attributes={"dimensions": i64_array_attribute(dimensions)})


def _window_output_size(size, window, stride, lo, hi, base_dilation, window_dilation) -> int:
    dilated_base = (size - 1) * base_dilation + 1 if size else 0
    padded = dilated_base + lo + hi
    dilated_window = (window - 1) * window_dilation + 1
    return 0 if padded < dilated_window else (padded - dilated_window) // stride + 1


def reduce_window(ctx: LoweringContext, operands: Sequence[str], inits: Sequence[str],
                  combine: str | Callable, *, window_dimensions: Sequence[int],
                  window_strides=None, padding=None, base_dilations=None,
                  window_dilations=None) -> list:
    """Emit ``stablehlo.reduce_window``; returns one result name per operand.

    ``padding`` is a sequence of ``(low, high)`` pairs, one per dimension (padded with the
    init values); omitted strides, dilations and padding are StableHLO's defaults (1, 1, 0)
    and are not printed.
    """
    dts = _init_dtypes(ctx, operands, inits)
    shape = ctx.type_of(operands[0]).shape
    rank = len(shape)
    ones = (1,) * rank
    strides = tuple(window_strides or ones)
    pads = tuple(tuple(p) for p in (padding or ((0, 0),) * rank))
    base = tuple(base_dilations or ones)
    wdil = tuple(window_dilations or ones)
    out_shape = tuple(_window_output_size(*args) for args in zip(
        shape, window_dimensions, strides, *zip(*pads), base, wdil)) if rank else ()
    attributes = {"window_dimensions": i64_array_attribute(window_dimensions)}
    if strides != ones:
        attributes["window_strides"] = i64_array_attribute(strides)
    if base != ones:
        attributes["base_dilations"] = i64_array_attribute(base)
    if wdil != ones:
        attributes["window_dilations"] = i64_array_attribute(wdil)
    if any(any(p) for p in pads):
        rows = ", ".join(f"[{int(lo)}, {int(hi)}]" for lo, hi in pads)
        attributes["padding"] = f"dense<[{rows}]> : tensor<{rank}x2xi64>"
    results = [ShapedArray(out_shape, dt) for dt in dts]
    return region_op(ctx, "stablehlo.reduce_window", [*operands, *inits],
                     [binary_region(combine, dts)], results=results, attributes=attributes)
