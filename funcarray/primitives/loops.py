"""Bind-level loops for composite rules: ``fori_loop``, ``while_loop`` and ``map``.

A composite rule (a lowering written as a loop, a batch rule that maps a primitive over the
members) stages its Python body into a closed IR and binds ``scan_p`` or ``while_p``
directly, as ``funcarray.lax``'s loops do under a transform, but always (also outside every
transform: the loop primitives' eager rules then run the body) and without ``lax``'s
argument checks and conversions. Carries are pytrees of arrays whose body outputs must have
the carry's shapes and dtypes (the rules state their conversions); weak types are made the
carry's. The values a body closes over become leading operands of the loop.

Example:
    >>> import numpy as np
    >>> from funcarray.primitives import bind_ops as ops
    >>> from funcarray.primitives import loops
    >>> loops.fori_loop(0, 3, lambda i, x: ops.add(x, ops.convert(i, np.float32)),
    ...                 ops.scalar(0.5, np.float32))
    Array(3.5, dtype=float32)
"""

from __future__ import annotations

import numpy as np

from funcarray.base import pytrees as fa_tree
from funcarray.base.array import Array
from funcarray.primitives import elementwise as ew
from funcarray.primitives.control_flow import scan_p, while_p
from funcarray.primitives.control_flow_bodies import convert_outputs
from funcarray.transforms.core import current_trace, set_current_trace
from funcarray.transforms.ir_transforms import CallForm, closed_call
from funcarray.transforms.staging import StagingTrace

__all__ = ["fori_loop", "while_loop", "map"]


def _stage(flat_fun, avals) -> CallForm:
    """``flat_fun(*tracers) -> list`` staged under the current trace, in call form (what it
    closes over becomes the leading operands)."""
    trace = StagingTrace(current_trace())
    args = [trace.new_arg(a) for a in avals]
    with set_current_trace(trace):
        outs = flat_fun(*args)
    return closed_call(trace.to_closed_ir(list(outs)))


def _check_carry(what: str, carry_avals, out_avals) -> None:
    if len(out_avals) != len(carry_avals) or any(
            a.shape != b.shape or a.dtype != b.dtype for a, b in zip(carry_avals, out_avals)):
        raise TypeError(f"{what}: the body returns "
                        f"({', '.join(a.str_short() for a in out_avals)}) for a carry of "
                        f"({', '.join(a.str_short() for a in carry_avals)})")


def _flat_body(body, tree, out_tree_store):
    def flat(*xs):
        leaves, out_tree_store["tree"] = fa_tree.flatten(body(fa_tree.unflatten(tree, xs)))
        return leaves

    return flat


def fori_loop(lower: int, upper: int, body, init):
    """``val = init; for i in range(lower, upper): val = body(i, val)``, as one ``scan`` of
    ``upper - lower`` steps whose counter ``i`` is an int32 scalar carried first."""
    leaves, tree = fa_tree.flatten(init)
    counter = Array(np.asarray(lower, np.int32))
    one = Array(np.asarray(1, np.int32))

    def step(i, *xs):
        out = body(i, fa_tree.unflatten(tree, xs))
        out_leaves, out_tree = fa_tree.flatten(out)
        if out_tree != tree:
            raise TypeError(f"fori_loop: the body returns {out_tree} for a carry of {tree}")
        return [ew.add_p.bind(i, one), *out_leaves]

    avals = [counter.aval, *(x.aval for x in leaves)]
    call = _stage(step, avals)
    _check_carry("fori_loop", avals, call.ir.out_avals)
    body_ir = convert_outputs(call.ir, avals)
    outs = scan_p.bind(*call.consts, counter, *leaves, body=body_ir,
                       length=max(upper - lower, 0), reverse=False,
                       num_consts=len(call.consts), num_carry=len(avals))
    return fa_tree.unflatten(tree, outs[1:])


def while_loop(cond, body, init):
    """``val = init; while cond(val): val = body(val)`` as one ``while``; ``cond`` returns
    a bool scalar."""
    leaves, tree = fa_tree.flatten(init)
    avals = [x.aval for x in leaves]
    store = {}
    body_call = _stage(_flat_body(body, tree, store), avals)
    if store["tree"] != tree:
        raise TypeError(f"while_loop: the body returns {store['tree']} for a carry of {tree}")
    _check_carry("while_loop", avals, body_call.ir.out_avals)
    body_ir = convert_outputs(body_call.ir, avals)
    cond_call = _stage(lambda *xs: [cond(fa_tree.unflatten(tree, xs))], avals)
    outs = while_p.bind(*cond_call.consts, *body_call.consts, *leaves, cond_ir=cond_call.ir,
                        body_ir=body_ir, cond_nconsts=len(cond_call.consts),
                        body_nconsts=len(body_call.consts))
    return fa_tree.unflatten(tree, outs)


def map(f, xs):  # noqa: A001 (lax.map's name)
    """``f`` applied to each slice of ``xs`` (a pytree of arrays with one leading length)
    along its leading axis, the results stacked: one ``scan`` without a carry."""
    x_leaves, x_tree = fa_tree.flatten(xs)
    length = x_leaves[0].shape[0]
    slice_avals = [x.aval.update(shape=x.shape[1:]) for x in x_leaves]
    store = {}
    call = _stage(_flat_body(f, x_tree, store), slice_avals)
    outs = scan_p.bind(*call.consts, *x_leaves, body=call.ir, length=length, reverse=False,
                       num_consts=len(call.consts), num_carry=0)
    return fa_tree.unflatten(store["tree"], outs)
