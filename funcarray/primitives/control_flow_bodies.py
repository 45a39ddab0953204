"""The IRs of the control-flow primitives' bodies (``cond``'s branches, ``while``'s and
``scan``'s bodies), in call form: joining calls with different consts into one signature,
converting outputs, and the shapes of batched and partially evaluated bodies that ``cond.py``
and ``control_flow.py`` share.

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray.primitives.control_flow_bodies import batched_aval
    >>> from funcarray.transforms.core import ShapedArray
    >>> batched_aval(ShapedArray((2, 3), fnp.float32), 1, 5).shape
    (2, 5, 3)
"""

from __future__ import annotations

from funcarray.primitives.conversions import convert_element_type_p
from funcarray.transforms.ir import IR, Eqn, Var
from funcarray.transforms.jvp import Zero
from funcarray.transforms.partial_eval import PartialEvalSplit

__all__ = ["fresh_vars", "join_calls", "convert_outputs", "batched_aval", "axis_size",
           "nonzero_flags", "split_forced"]


def fresh_vars(avals) -> tuple:
    """A new IR variable for each aval (binders a body takes and ignores)."""
    return tuple(Var(a) for a in avals)


def join_calls(calls) -> tuple:
    """``(irs, consts)``: CallForms with different consts as IRs of one signature.

    Each IR takes every call's consts (in order) then the common arguments, and ignores the
    consts of the others: the branches of a cond must all accept the same operands.
    """
    consts = tuple(c for call in calls for c in call.consts)
    irs = []
    for k, call in enumerate(calls):
        binders = []
        for j, other in enumerate(calls):
            n = len(other.consts)
            binders.extend(call.ir.in_binders[:n] if j == k
                           else fresh_vars(v.aval for v in other.ir.in_binders[:n]))
        binders.extend(call.ir.in_binders[len(call.consts):])
        irs.append(IR((), tuple(binders), call.ir.eqns, call.ir.outs))
    return tuple(irs), consts


def convert_outputs(ir: IR, targets) -> IR:
    """``ir`` with each output converted to the aval in ``targets`` (dtype and weak type)
    where it differs."""
    eqns, outs = list(ir.eqns), []
    for x, target in zip(ir.outs, targets):
        if x.aval == target:
            outs.append(x)
            continue
        var = Var(target)
        eqns.append(Eqn(convert_element_type_p, (x,),
                        dict(new_dtype=target.dtype, weak_type=target.weak_type), (var,)))
        outs.append(var)
    return IR(ir.const_binders, ir.in_binders, tuple(eqns), tuple(outs))


def batched_aval(aval, dim, size):
    """``aval`` with a batch axis of ``size`` at ``dim`` (``None``: unbatched, unchanged)."""
    if dim is None:
        return aval
    return aval.update(shape=aval.shape[:dim] + (size,) + aval.shape[dim:])


def axis_size(vals, dims) -> int:
    """The batch size: the size of the first batched value's batch axis."""
    return next(v.shape[d] for v, d in zip(vals, dims) if d is not None)


def nonzero_flags(tangents) -> tuple:
    """For each tangent, whether it is not a symbolic ``Zero``."""
    return tuple(type(t) is not Zero for t in tangents)


def split_forced(split: PartialEvalSplit, force) -> PartialEvalSplit:
    """``split`` with the outputs in ``force`` computed by the unknown half too (the known
    half passes them through as extra residuals)."""
    forced = [f and not u for f, u in zip(force, split.out_unknowns)]
    if not any(forced):
        return split
    known, unknown, n_res = split.known, split.unknown, split.num_residuals
    n_known = len(known.outs) - n_res
    kept, extra, known_iter = [], [], iter(known.outs[:n_known])
    for u, f in zip(split.out_unknowns, forced):
        if not u:
            (extra if f else kept).append(next(known_iter))
    new_known = IR(known.const_binders, known.in_binders, known.eqns,
                   tuple(kept) + known.outs[n_known:] + tuple(extra))
    extra_vars = fresh_vars(x.aval for x in extra)
    outs, unknown_iter, extra_iter = [], iter(unknown.outs), iter(extra_vars)
    for u, f in zip(split.out_unknowns, forced):
        if u:
            outs.append(next(unknown_iter))
        elif f:
            outs.append(next(extra_iter))
    new_unknown = IR((), unknown.in_binders[:n_res] + extra_vars + unknown.in_binders[n_res:],
                     unknown.eqns, tuple(outs))
    return PartialEvalSplit(new_known, new_unknown,
                            [u or f for u, f in zip(split.out_unknowns, forced)],
                            n_res + len(extra))
