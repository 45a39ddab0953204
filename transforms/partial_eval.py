"""Partial evaluation of IR: split a computation into the part computable now and the rest.

Reverse mode needs it for higher-order primitives (jit, checkpoint, control flow). ``linearize``
runs the function under a JVP trace over a *folding* staging trace: equations whose operands
are all known (no tangent involved) run right away; equations touching a tangent are staged.
A higher-order primitive sees both at once: a ``jit`` of the JVP'd function takes known primals
and staged tangents. Its ``partial_eval_rule`` splits its IR with ``partial_eval_ir``: the known
part runs now (so primal outputs stay concrete: ``if loss > 0`` keeps working under ``grad``),
and only the unknown part, fed the *residuals* (known values it uses), is staged.

Example:
    >>> import numpy as np
    >>> import funcarray.numpy as fnp
    >>> from funcarray.transforms.core import ShapedArray
    >>> from funcarray.transforms.staging import stage_flat
    >>> f32 = ShapedArray((), np.float32)
    >>> closed = stage_flat(lambda x, t: [fnp.sin(x), fnp.cos(x) * t], [f32, f32])
    >>> split = partial_eval_ir(closed.ir, [False, True])
    >>> print(split.known)
    { lambda ; a:f32[]. let
        b:f32[] = sin a
        c:f32[] = cos a
      in (b, c) }
    >>> print(split.unknown)
    { lambda ; a:f32[] b:f32[]. let
        c:f32[] = mul a b
      in (c) }
    >>> split.out_unknowns, split.num_residuals
    ([False, True], 1)
"""

from __future__ import annotations

from dataclasses import dataclass

from funcarray.transforms.ir import IR, Lit, dce

__all__ = ["PartialEvalSplit", "partial_eval_ir"]


@dataclass(frozen=True)
class PartialEvalSplit:
    """The two halves of an IR.

    ``known`` takes the known inputs (the IR's const binders first, then its known
    in_binders) and returns the known outputs followed by ``num_residuals`` residuals;
    ``unknown`` takes the residuals followed by the unknown inputs and returns the unknown
    outputs. ``out_unknowns[i]`` says which half computes output ``i``.
    """

    known: IR
    unknown: IR
    out_unknowns: list
    num_residuals: int


def partial_eval_ir(ir: IR, unknowns, *, instantiate=False, saveable=None) -> PartialEvalSplit:
    """Split ``ir`` given which of its inputs (``in_binders``) are unknown.

    An equation is unknown when any of its operands is; everything else is known, except that
    a higher-order equation with both kinds of operands is itself split by its primitive's
    ``partial_eval_eqn_rule(eqn, unknowns) -> (known_eqn, unknown_eqn)`` (either may be None;
    the known one's extra outputs are the residuals the unknown one reads; ``known_eqn`` may
    be a tuple of equations run in order). With
    ``instantiate=True`` every output is computed by the unknown half (known ones are passed
    through as residuals), for callers that need all outputs staged.

    ``saveable(eqn) -> bool`` (checkpoint's policies) limits what may be a residual: a value
    the unknown half reads that a known equation computed is a residual only when
    ``saveable`` says so for that equation; otherwise the equation is *recomputed*: it runs
    in the known half (when a known output needs it) and again at the start of the unknown
    half, and its own operands are needed instead. Inputs are always residuals. Without
    ``saveable`` every known value may be a residual (plain reverse mode).
    """
    unknown_vars = {v for v, u in zip(ir.in_binders, unknowns) if u}
    known_eqns, unknown_eqns = [], []
    for eqn in ir.eqns:
        eqn_unknowns = [type(x) is not Lit and x in unknown_vars for x in eqn.inputs]
        if not any(eqn_unknowns):
            known_eqns.append(eqn)
        elif all(eqn_unknowns) or eqn.prim.partial_eval_eqn_rule is None:
            unknown_vars.update(eqn.outs)
            unknown_eqns.append(eqn)
        else:
            # A higher-order equation with some known operands (a jit of a JVP, say): split
            # it too, or its known outputs would turn everything downstream unknown.
            known_eqn, unknown_eqn = eqn.prim.partial_eval_eqn_rule(eqn, eqn_unknowns)
            if type(known_eqn) is tuple:  # several known equations, in order
                known_eqns.extend(known_eqn)
            elif known_eqn is not None:
                known_eqns.append(known_eqn)
            if unknown_eqn is not None:
                unknown_vars.update(unknown_eqn.outs)
                unknown_eqns.append(unknown_eqn)

    def is_unknown(atom) -> bool:
        return type(atom) is not Lit and atom in unknown_vars

    out_unknowns = [instantiate or is_unknown(x) for x in ir.outs]
    if saveable is not None:
        replayed = _recomputed(known_eqns, unknown_eqns, unknown_vars,
                               [x for x, u in zip(ir.outs, out_unknowns) if u], saveable)
        unknown_eqns = replayed + unknown_eqns
        unknown_vars = unknown_vars | {v for eqn in replayed for v in eqn.outs}
    # Residuals: known variables the unknown half reads (operands of its equations, and
    # outputs it must return), in first-use order, each once.
    residuals: list = []
    seen: set = set()

    def need(atom):
        if type(atom) is not Lit and atom not in unknown_vars and atom not in seen:
            seen.add(atom)
            residuals.append(atom)

    for eqn in unknown_eqns:
        for x in eqn.inputs:
            need(x)
    for x, u in zip(ir.outs, out_unknowns):
        if u:
            need(x)

    known_outs = tuple(x for x, u in zip(ir.outs, out_unknowns) if not u)
    known = IR(ir.const_binders, tuple(v for v, u in zip(ir.in_binders, unknowns) if not u),
               tuple(known_eqns), known_outs + tuple(residuals))
    unknown = IR((), tuple(residuals) + tuple(v for v, u in zip(ir.in_binders, unknowns) if u),
                 tuple(unknown_eqns), tuple(x for x, u in zip(ir.outs, out_unknowns) if u))
    return PartialEvalSplit(dce(known), dce(unknown), out_unknowns, len(residuals))


def _recomputed(known_eqns, unknown_eqns, unknown_vars, unknown_outs, saveable) -> list:
    """The known equations the unknown half must run again (in order) so that it reads only
    inputs and values of equations ``saveable`` accepts (see ``partial_eval_ir``)."""
    producer = {v: eqn for eqn in known_eqns for v in eqn.outs}
    replay: set = set()
    saved: set = set()  # (the policy is asked once per equation)
    pending = [x for eqn in unknown_eqns for x in eqn.inputs]
    pending.extend(unknown_outs)
    while pending:
        atom = pending.pop()
        if type(atom) is Lit or atom in unknown_vars:
            continue
        eqn = producer.get(atom)
        if eqn is None or eqn in replay or eqn in saved:
            continue  # an input, or decided already
        if saveable(eqn):
            saved.add(eqn)
            continue
        replay.add(eqn)
        pending.extend(eqn.inputs)
    return [eqn for eqn in known_eqns if eqn in replay]
