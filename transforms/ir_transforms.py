"""Transforming an IR into another IR: what higher-order primitives' rules are made of.

A higher-order primitive (``jit``, ``checkpoint``, and the control-flow primitives) carries
its body as an IR in its params. Its rules do not run the body; they build a new body and bind
the primitive again:

* ``jvp_ir(ir, nonzero)`` -- the body's JVP: takes primals then the nonzero tangents, returns
  primal outputs then the nonzero output tangents;
* ``batch_ir(ir, dims, axis_size)`` -- the body vectorised over inputs batched along
  ``dims`` (``None``: unbatched), with the batch axis of each output reported;
* ``transpose_ir(ir, linear, ct_nonzero)`` -- the body's transpose with respect to its
  ``linear`` inputs (the others are known residuals).

Each stages a function that *evaluates* the body under the corresponding trace (``eval_ir``
binds every equation, so each primitive's own rule does the work), then turns the staged
ClosedIR into call form (``closed_call``): consts become leading inputs, so the new IR is a
pure function and the primitive's operands are ``consts + args``. Results are memoised per
(IR, signature): rules run again at every call of an eager transform of a jitted function.

Example:
    >>> import numpy as np
    >>> import funcarray.numpy as fnp
    >>> from funcarray.transforms.core import ShapedArray
    >>> from funcarray.transforms.staging import stage_flat
    >>> body = stage_flat(lambda x: [fnp.sin(x)], [ShapedArray((), np.float32)]).ir
    >>> print(jvp_ir(body, (True,))[0])
    { lambda ; a:f32[] b:f32[]. let
        c:f32[] = sin a
        d:f32[] = cos a
        e:f32[] = mul b d
      in (c, e) }
"""

from __future__ import annotations

from funcarray.base.lru_cache import LRUCache
from funcarray.transforms.core import set_current_trace
from funcarray.transforms.ir import IR, ClosedIR, eval_ir
from funcarray.transforms.jvp import JVPTrace, JVPTracer, Zero, tangent_aval
from funcarray.transforms.staging import StagingTrace
from funcarray.transforms.transpose import backward_pass
from funcarray.transforms.vmap import axis_env, rule_axis_name, vmap_flat

__all__ = ["CallForm", "closed_call", "jvp_ir", "batch_ir", "transpose_ir", "stage_call",
           "memoized", "check_operands", "axis_names_used"]

# (kind, ids of the IRs, signature) -> (IRs, result): the IRs are kept alive with the entry,
# so their ids stay unique while it exists (IRs hash by identity, without weak references).
_memo = LRUCache(4096)


def memoized(kind: str, irs, signature, build):
    """``build()``, computed once per (``kind``, IR objects, hashable ``signature``).

    ``irs`` is one IR or a sequence of them (the bodies a derived IR is made from). Every
    higher-order primitive's rules use this one cache, which ``funcarray.clear_caches``
    empties. The named vmap axes in scope are part of the key.
    """
    irs = (irs,) if isinstance(irs, IR) else tuple(irs)
    # (the named vmap axes in scope are part of every key: a body vectorised inside a named
    # axis's batch rule resolves the collectives over that axis, one outside does not)
    key = (kind, tuple(map(id, irs)), signature, rule_axis_name(), axis_env())
    entry = _memo.get(key)
    if entry is None or any(a is not b for a, b in zip(entry[0], irs)):
        entry = (irs, build())
        _memo.put(key, entry)
    return entry[1]


def axis_names_used(ir: IR) -> frozenset:
    """The vmap axis names the collectives in ``ir`` (nested bodies included) reduce over:
    a higher-order primitive whose body has one varies over that axis even with unbatched
    operands (``vmap.NamedBatchTrace``)."""
    def build():
        from funcarray.transforms.vmap import _irs_in

        names = set()
        for eqn in ir.eqns:
            if eqn.prim.named_axis_rule is not None:
                names.update(eqn.params["axis_name"])
            for body in _irs_in(eqn.params.values()):
                names.update(axis_names_used(body))
        return frozenset(names)
    return memoized("axis_names", ir, (), build)


def check_operands(what: str, avals, binders) -> None:
    """Raise a TypeError unless ``avals`` match ``binders`` (an IR's inputs) in shape and
    dtype: checked before running a body, since XLA would reinterpret a wrong dtype's bits."""
    if len(avals) != len(binders) or any(
            a.shape != v.aval.shape or a.dtype != v.aval.dtype for a, v in zip(avals, binders)):
        got = ", ".join(a.str_short() for a in avals)
        want = ", ".join(v.aval.str_short() for v in binders)
        raise TypeError(f"{what}: called with operands ({got}) but its body was staged for "
                        f"({want})")


class CallForm(tuple):
    """``(ir, consts)``: an IR without const binders and the values for its leading inputs."""

    __slots__ = ()

    @property
    def ir(self) -> IR:
        return self[0]

    @property
    def consts(self) -> tuple:
        return self[1]

    def __str__(self):
        return str(self[0])


def closed_call(closed: ClosedIR) -> CallForm:
    """Call form of a ClosedIR: its const binders become the first in_binders."""
    ir = closed.ir
    if not ir.const_binders:
        return CallForm((ir, ()))
    return CallForm((IR((), ir.const_binders + ir.in_binders, ir.eqns, ir.outs),
                     tuple(closed.consts)))


def stage_call(fun, in_avals) -> CallForm:
    """Stage ``fun(*args) -> list`` on ``in_avals`` at top level, in call form.

    The staging trace's parent is the eager trace, whatever trace is current: the body of a
    higher-order primitive must not capture the caller's tracers (everything it needs is an
    operand).
    """
    from funcarray.transforms.core import EVAL_TRACE

    trace = StagingTrace(EVAL_TRACE)
    args = [trace.new_arg(aval) for aval in in_avals]
    with set_current_trace(trace):
        outs = fun(*args)
    return closed_call(trace.to_closed_ir(list(outs)))


def jvp_ir(ir: IR, nonzero: tuple):
    """``(CallForm, out_nonzero)``: the JVP of ``ir`` taking primals then the tangents of
    the inputs with ``nonzero[i]``; returns primal outputs then the nonzero output tangents
    (``out_nonzero`` says which outputs have one)."""
    return memoized("jvp", ir, nonzero, lambda: _build_jvp(ir, nonzero))


def _build_jvp(ir: IR, nonzero: tuple):
    in_avals = [v.aval for v in ir.in_binders]
    tangent_avals = [tangent_aval(a) for a, nz in zip(in_avals, nonzero) if nz]
    out_nonzero = []

    def fun(*args):
        primals, tangents = args[:len(in_avals)], iter(args[len(in_avals):])
        trace = JVPTrace(_current())
        tracers = [JVPTracer(trace, p, next(tangents)) if nz else p
                   for p, nz in zip(primals, nonzero)]
        with set_current_trace(trace):
            outs = eval_ir(ir, (), tracers)
        pairs = [trace._split(o) for o in outs]
        out_nonzero.extend(type(t) is not Zero for _, t in pairs)
        return [p for p, _ in pairs] + [t for _, t in pairs if type(t) is not Zero]

    call = stage_call(fun, in_avals + tangent_avals)
    return call, tuple(out_nonzero)


def batch_ir(ir: IR, dims: tuple, axis_size: int):
    """``(CallForm, out_dims)``: ``ir`` vectorised over inputs batched along ``dims`` (over
    the named axis whose rule is running, if any: see ``vmap.rule_axis_name``)."""
    return memoized("batch", ir, (dims, axis_size), lambda: _build_batch(ir, dims, axis_size))


def _build_batch(ir: IR, dims: tuple, axis_size: int):
    in_avals = []
    for v, d in zip(ir.in_binders, dims):
        aval = v.aval
        if d is not None:
            aval = aval.update(shape=aval.shape[:d] + (axis_size,) + aval.shape[d:])
        in_avals.append(aval)
    out_dims = []

    def fun(*args):
        outs, odims = vmap_flat(lambda *xs: eval_ir(ir, (), xs), args, dims, axis_size)
        out_dims.extend(odims)
        return outs

    call = stage_call(fun, in_avals)
    return call, tuple(out_dims)


def transpose_ir(ir: IR, linear: tuple, ct_nonzero: tuple) -> CallForm:
    """The transpose of ``ir`` in its ``linear`` inputs: takes the known (non-linear) inputs
    then the nonzero output cotangents; returns one cotangent per linear input."""
    return memoized("transpose", ir, (linear, ct_nonzero),
                     lambda: _build_transpose(ir, linear, ct_nonzero))


def _build_transpose(ir: IR, linear: tuple, ct_nonzero: tuple) -> CallForm:
    known_vars = tuple(v for v, lin in zip(ir.in_binders, linear) if not lin)
    linear_vars = tuple(v for v, lin in zip(ir.in_binders, linear) if lin)
    # backward_pass treats const binders as known and in_binders as linear.
    view = IR(known_vars, linear_vars, ir.eqns, ir.outs)
    ct_avals = [x.aval for x, nz in zip(ir.outs, ct_nonzero) if nz]

    def fun(*args):
        known, cts = args[:len(known_vars)], iter(args[len(known_vars):])
        cts_out = [next(cts) if nz else Zero(x.aval) for x, nz in zip(ir.outs, ct_nonzero)]
        return backward_pass(view, known, cts_out)

    return stage_call(fun, [v.aval for v in known_vars] + ct_avals)


def _current():
    from funcarray.transforms.core import current_trace

    return current_trace()
