"""The loop primitives, ``while`` and ``scan``, with all their rules (``cond`` is in
``cond.py``).

Each is a higher-order primitive whose bodies are IRs in *call form* (no const binders: the
values a body closes over are leading operands). The public functions are in
``funcarray/lax/_control_flow.py``; they stage the user's Python functions and bind these.

``while(*cond_consts, *body_consts, *carry, cond_ir, body_ir, cond_nconsts, body_nconsts)``
    ``while cond_ir(cond_consts, carry): carry = body_ir(body_consts, carry)``.
    jvp: a loop over (primal, tangent) carries. batch: with a batched predicate the loop runs
    while any member is active and finished members keep their carry (``select_n``).
    partial eval: the known carries are computed by a known loop; the whole loop is staged
    for the rest, and its transpose raises an error pointing at ``max_steps`` (a loop with
    an unknown trip count has no reverse mode). Lowered to ``stablehlo.while``.

``scan(*consts, *init, *xs, body, length, reverse, num_consts, num_carry)``
    ``body(consts, carry, x) -> (carry, y)`` over the leading axis of every ``xs`` (length
    ``length``, last to first when ``reverse``); returns the final carry and the stacked ys.
    jvp: the scan of the body's JVP. batch: carries batched along axis 0, xs and ys along
    axis 1. partial eval: the known scan also returns the per-iteration residuals, stacked
    (residuals that are consts or xs of the body are passed through unstacked, and those
    computed from consts alone are computed once before the loop); transpose: a
    scan of the body's transpose in the opposite direction, accumulating the consts'
    cotangents in its carry. Lowered to ``stablehlo.while`` with ``dynamic_slice`` /
    ``dynamic_update_slice`` on the stacked xs and ys.

Example:
    >>> import funcarray as fa
    >>> import funcarray.numpy as fnp
    >>> from funcarray import lax
    >>> print(fa.make_ir(lambda x: lax.scan(lambda c, v: (c + v, c), 0.0, x))(fnp.ones(3)))
    { lambda ; a:f32[3]. let
        b:f32[] = convert_element_type[ new_dtype=float32 weak_type=False ] 0.0:f32[]{weak}
        c:f32[] d:f32[3] = scan[
          body={ lambda ; a:f32[] b:f32[]. let
              c:f32[] = add a b
            in (c, a) }
          length=3
          num_carry=1
          num_consts=0
          reverse=False
        ] b a
      in (c, d) }
"""

from __future__ import annotations

import numpy as np

from funcarray.base.array import Array
from funcarray.lowering.regions import Region, region_op
from funcarray.lowering.stablehlo import compare, i64_array_attribute, lower_inline
from funcarray.primitives.control_flow_bodies import (
    axis_size,
    batched_aval,
    fresh_vars,
    nonzero_flags,
    split_forced,
)
from funcarray.primitives.jit_call import jit_p
from funcarray.primitives.reduce import reduce_or_p
from funcarray.primitives.select_n import select_n_p
from funcarray.primitives.shape import broadcast_in_dim_p
from funcarray.transforms import support
from funcarray.transforms.core import Primitive, ShapedArray, set_current_trace
from funcarray.transforms.ir import IR, Eqn, Lit, Var, dce, eval_ir
from funcarray.transforms.ir_transforms import batch_ir, jvp_ir, stage_call, transpose_ir
from funcarray.transforms.ir_transforms import check_operands as _check_operands
from funcarray.transforms.ir_transforms import memoized as _memoized
from funcarray.transforms.jvp import Zero, instantiate, tangent_aval
from funcarray.transforms.partial_eval import PartialEvalSplit, partial_eval_ir
from funcarray.transforms.transpose import is_undefined
from funcarray.transforms.vmap import move_batch_axes, move_to_front, vmap_flat

__all__ = ["while_p", "scan_p", "WHILE_REVERSE_MODE_ERROR"]

WHILE_REVERSE_MODE_ERROR = (
    "Reverse-mode differentiation (grad, vjp, jacrev) does not work through "
    "funcarray.lax.while_loop: its trip count is unknown, so the values of every iteration "
    "cannot be saved for the backward pass. Pass max_steps=N to while_loop (a bound on the "
    "number of iterations; the loop becomes a differentiable scan of N masked steps), or use "
    "fori_loop with static bounds or scan. Forward mode (jvp, jacfwd) works without a bound.")


def _known_outputs_only(split: PartialEvalSplit) -> IR:
    known = split.known
    n_known = len(known.outs) - split.num_residuals
    return dce(IR(known.const_binders, known.in_binders, known.eqns, known.outs[:n_known]))



# --------------------------------------------------------------------------------------------
# while
# --------------------------------------------------------------------------------------------

while_p = Primitive("while", multiple_results=True)


def _while_parts(args, cond_nconsts, body_nconsts):
    nc, nb = cond_nconsts, body_nconsts
    return list(args[:nc]), list(args[nc:nc + nb]), list(args[nc + nb:])


@while_p.def_impl
def _while_impl(*args, cond_ir, body_ir, cond_nconsts, body_nconsts):
    cconsts, bconsts, carry = _while_parts(args, cond_nconsts, body_nconsts)
    while bool(np.asarray(eval_ir(cond_ir, (), [*cconsts, *carry])[0]._value)):
        carry = eval_ir(body_ir, (), [*bconsts, *carry])
    return carry


@while_p.def_abstract_eval
def _while_abstract_eval(*avals, cond_ir, body_ir, cond_nconsts, body_nconsts):
    cconsts, bconsts, carry = _while_parts(avals, cond_nconsts, body_nconsts)
    _check_operands("while_loop cond", [*cconsts, *carry], cond_ir.in_binders)
    _check_operands("while_loop body", [*bconsts, *carry], body_ir.in_binders)
    pred = cond_ir.out_avals
    if len(pred) != 1 or pred[0].shape != () or pred[0].dtype != np.bool_:
        raise TypeError(f"while_loop: cond must return one bool scalar, got "
                        f"({', '.join(a.str_short() for a in pred)})")
    outs = body_ir.out_avals
    if len(outs) != len(carry) or any(
            a.shape != b.shape or a.dtype != b.dtype for a, b in zip(outs, carry)):
        raise TypeError(f"while_loop: body returns ({', '.join(a.str_short() for a in outs)}) "
                        f"for a carry of ({', '.join(a.str_short() for a in carry)})")
    return list(carry)


def _with_unused_inputs(ir: IR, avals) -> IR:
    return IR(ir.const_binders, ir.in_binders + fresh_vars(avals), ir.eqns, ir.outs)


@while_p.def_jvp
def _while_jvp(primals, tangents, *, cond_ir, body_ir, cond_nconsts, body_nconsts):
    cconsts, bconsts, carry = _while_parts(primals, cond_nconsts, body_nconsts)
    _, bconst_t, carry_t = _while_parts(tangents, cond_nconsts, body_nconsts)
    body, carry_nz = _while_jvp_body(body_ir, nonzero_flags(bconst_t), nonzero_flags(carry_t))
    tangent_avals = [tangent_aval(x.aval) for x, nz in zip(carry, carry_nz) if nz]
    cond = _memoized("while_jvp_cond", [cond_ir], tuple(carry_nz),
                     lambda: _with_unused_inputs(cond_ir, tangent_avals))
    bconst_t = [t for t in bconst_t if type(t) is not Zero]
    carry_t = [instantiate(t) for t, nz in zip(carry_t, carry_nz) if nz]
    outs = while_p.bind(*cconsts, *body.consts, *bconsts, *bconst_t, *carry, *carry_t,
                        cond_ir=cond, body_ir=body.ir, cond_nconsts=cond_nconsts,
                        body_nconsts=len(body.consts) + len(bconsts) + len(bconst_t))
    n = len(carry)
    touts = iter(outs[n:])
    return outs[:n], [next(touts) if nz else Zero(tangent_aval(x.aval))
                      for x, nz in zip(carry, carry_nz)]


def _carry_fixpoint(step, carry_flags):
    """Smallest flags containing ``carry_flags`` that ``step(flags)`` (the body's output
    flags for the carry) does not add to."""
    flags = tuple(carry_flags)
    while True:
        new = tuple(a or b for a, b in zip(flags, step(flags)))
        if new == flags:
            return flags
        flags = new


def _while_jvp_body(body_ir, bconst_nz, carry_nz):
    def build():
        nc = len(bconst_nz)
        nz = _carry_fixpoint(lambda f: jvp_ir(body_ir, bconst_nz + f)[1], carry_nz)
        call, out_nz = jvp_ir(body_ir, bconst_nz + nz)
        in_avals = [v.aval for v in body_ir.in_binders]
        consts_avals, carry_avals = in_avals[:nc], in_avals[nc:]
        n_ct, n = sum(bconst_nz), len(carry_avals)
        avals = (consts_avals + [tangent_aval(a) for a, z in zip(consts_avals, bconst_nz) if z]
                 + carry_avals + [tangent_aval(a) for a, z in zip(carry_avals, nz) if z])

        def fun(*args):
            consts, consts_t = args[:nc], args[nc:nc + n_ct]
            carry, carry_t = args[nc + n_ct:nc + n_ct + n], args[nc + n_ct + n:]
            outs = eval_ir(call.ir, (), [*call.consts, *consts, *carry, *consts_t, *carry_t])
            touts, result = iter(outs[n:]), list(outs[:n])
            for have, want, aval in zip(out_nz, nz, carry_avals):
                t = next(touts) if have else None
                if want:
                    result.append(t if have else support.ops.zeros(tangent_aval(aval)))
            return result

        return stage_call(fun, avals), nz
    return _memoized("while_jvp", [body_ir], (bconst_nz, carry_nz), build)


@while_p.def_batch
def _while_batch(vals, dims, *, cond_ir, body_ir, cond_nconsts, body_nconsts):
    size = axis_size(vals, dims)
    cconsts, bconsts, carry = _while_parts(vals, cond_nconsts, body_nconsts)
    cdims, bdims, carry_dims = (tuple(d) for d in _while_parts(dims, cond_nconsts,
                                                               body_nconsts))
    cond, body, carry_batched, pred_batched = _while_batch_irs(
        cond_ir, body_ir, cdims, bdims, tuple(d is not None for d in carry_dims), size)
    carry = [move_to_front(x, d, size) if b else x
             for x, d, b in zip(carry, carry_dims, carry_batched)]
    body_consts = [*cconsts, *bconsts] if pred_batched else bconsts
    outs = while_p.bind(*cond.consts, *cconsts, *body.consts, *body_consts, *carry,
                        cond_ir=cond.ir, body_ir=body.ir,
                        cond_nconsts=len(cond.consts) + len(cconsts),
                        body_nconsts=len(body.consts) + len(body_consts))
    return outs, [0 if b else None for b in carry_batched]


def _while_batch_irs(cond_ir, body_ir, cdims, bdims, carry_batched, size):
    def build():
        def step(flags):
            dims = bdims + tuple(0 if f else None for f in flags)
            return tuple(d is not None for d in batch_ir(body_ir, dims, size)[1])
        flags = _carry_fixpoint(step, carry_batched)
        carry_dims = tuple(0 if f else None for f in flags)
        pred_dim = batch_ir(cond_ir, cdims + carry_dims, size)[1][0]
        if pred_dim is not None:  # a batched predicate: every carry is batched
            carry_dims = (0,) * len(flags)
        nb = len(bdims)
        cond_avals = [batched_aval(v.aval, d, size)
                      for v, d in zip(cond_ir.in_binders, cdims + carry_dims)]
        body_avals = [batched_aval(v.aval, d, size)
                      for v, d in zip(body_ir.in_binders, bdims + carry_dims)]

        def run(ir, args, dims, want):
            outs, odims = vmap_flat(lambda *xs: eval_ir(ir, (), xs), list(args), list(dims),
                                    size)
            return move_batch_axes(outs, odims, list(want), size)

        if pred_dim is None:
            cond = batch_ir(cond_ir, cdims + carry_dims, size)[0]
            body = stage_call(lambda *args: run(body_ir, args, bdims + carry_dims, carry_dims),
                              body_avals)
            return cond, body, tuple(d is not None for d in carry_dims), False
        nc = len(cdims)

        def any_active(*args):
            (pred,) = run(cond_ir, args, cdims + carry_dims, (0,))
            return [reduce_or_p.bind(pred, axes=(0,))]

        def masked_body(*args):
            cconsts, bconsts, carry = args[:nc], args[nc:nc + nb], args[nc + nb:]
            (pred,) = run(cond_ir, [*cconsts, *carry], cdims + carry_dims, (0,))
            new = run(body_ir, [*bconsts, *carry], bdims + carry_dims, carry_dims)
            # Finished members keep their carry while the others go on.
            return [select_n_p.bind(broadcast_in_dim_p.bind(
                        pred, shape=tuple(x.shape), broadcast_dimensions=(0,)), old, x)
                    for old, x in zip(carry, new)]

        cond = stage_call(any_active, cond_avals)
        body = stage_call(masked_body, cond_avals[:nc] + body_avals)
        return cond, body, (True,) * len(flags), True
    return _memoized("while_batch", [cond_ir, body_ir], (cdims, bdims, carry_batched, size),
                     build)


def _while_split(cond_ir, body_ir, cond_nconsts, body_nconsts, unknowns):
    """``(known_cond, known_body, carry_unknowns)`` or None when the loop cannot be split
    (its predicate depends on an unknown value)."""
    def build():
        cuk, buk, carry_uk = _while_parts(unknowns, cond_nconsts, body_nconsts)
        if any(cuk):
            return None
        flags = _carry_fixpoint(
            lambda f: tuple(partial_eval_ir(body_ir, [*buk, *f]).out_unknowns), carry_uk)
        cond_split = partial_eval_ir(cond_ir, [*cuk, *flags])
        if cond_split.out_unknowns[0]:
            return None
        split = split_forced(partial_eval_ir(body_ir, [*buk, *flags]), flags)
        return _known_outputs_only(cond_split), _known_outputs_only(split), flags
    return _memoized("while_split", [cond_ir, body_ir], tuple(unknowns), build)


def _while_known_params(params, known_cond, known_body, unknowns):
    cuk, buk, _ = _while_parts(unknowns, params["cond_nconsts"], params["body_nconsts"])
    return dict(cond_ir=known_cond, body_ir=known_body, cond_nconsts=len(cuk),
                body_nconsts=sum(not u for u in buk))


def _while_partial_eval(trace, args, params):
    unknowns = tuple(not trace.is_known(x) for x in args)
    split = _while_split(params["cond_ir"], params["body_ir"], params["cond_nconsts"],
                         params["body_nconsts"], unknowns)
    if split is None:
        return trace.record(while_p, list(args), params)
    known_cond, known_body, carry_uk = split
    n_carry = len(carry_uk)
    known_args = [x for x, u in zip(args, unknowns[:-n_carry] + carry_uk) if not u]
    with set_current_trace(trace.parent):
        known = iter(while_p.bind(*known_args, **_while_known_params(
            params, known_cond, known_body, unknowns)))
    # The unknown carries need every iteration: the whole loop is staged (its transpose is
    # the error pointing at max_steps; forward evaluation of the linear map still works).
    staged = trace.record(while_p, list(args), params)
    return [s if u else next(known) for s, u in zip(staged, carry_uk)]


def _while_partial_eval_eqn(eqn, unknowns):
    params = eqn.params
    split = _while_split(params["cond_ir"], params["body_ir"], params["cond_nconsts"],
                         params["body_nconsts"], tuple(unknowns))
    if split is None:
        return None, eqn
    known_cond, known_body, carry_uk = split
    n_carry = len(carry_uk)
    flags = list(unknowns[:-n_carry]) + list(carry_uk)
    known_outs = tuple(v for v, u in zip(eqn.outs, carry_uk) if not u)
    known = Eqn(while_p, tuple(x for x, u in zip(eqn.inputs, flags) if not u),
                _while_known_params(params, known_cond, known_body, unknowns), known_outs)
    # The unknown equation recomputes the known carries; their values are unused.
    outs = tuple(Var(v.aval) if not u else v for v, u in zip(eqn.outs, carry_uk))
    return known, Eqn(while_p, eqn.inputs, params, outs)


while_p.partial_eval_rule = _while_partial_eval
while_p.partial_eval_eqn_rule = _while_partial_eval_eqn


@while_p.def_transpose
def _while_transpose(cts, *args, **params):
    raise TypeError(WHILE_REVERSE_MODE_ERROR)


@while_p.def_lower
def _while_lower(ctx, *operands, cond_ir, body_ir, cond_nconsts, body_nconsts):
    avals = tuple(ctx.type_of(x) for x in operands)
    nc, nb = cond_nconsts, body_nconsts

    def cond(rctx, *args):
        return lower_inline(rctx, cond_ir, *args[:nc], *args[nc + nb:])

    def body(rctx, *args):
        return [*args[:nc + nb], *lower_inline(rctx, body_ir, *args[nc:])]

    pred = (ShapedArray((), np.bool_),)
    results = region_op(ctx, "stablehlo.while", operands,
                        [Region(avals, cond, pred), Region(avals, body, avals)], results=avals)
    return results[nc + nb:]


# --------------------------------------------------------------------------------------------
# scan
# --------------------------------------------------------------------------------------------

scan_p = Primitive("scan", multiple_results=True)


def _scan_parts(args, num_consts, num_carry):
    return (list(args[:num_consts]), list(args[num_consts:num_consts + num_carry]),
            list(args[num_consts + num_carry:]))


@scan_p.def_impl
def _scan_impl(*args, body, length, reverse, num_consts, num_carry):
    consts, carry, xs = _scan_parts(args, num_consts, num_carry)
    steps = []
    for i in (range(length - 1, -1, -1) if reverse else range(length)):
        outs = eval_ir(body, (), [*consts, *carry,
                                  *(Array(np.asarray(x._value)[i], x._weak) for x in xs)])
        carry = outs[:num_carry]
        steps.append([np.asarray(y._value) for y in outs[num_carry:]])
    if reverse:
        steps.reverse()
    ys = []
    for j, aval in enumerate(body.out_avals[num_carry:]):
        stacked = (np.stack([s[j] for s in steps]) if steps
                   else np.zeros((0, *aval.shape), aval.dtype))
        ys.append(Array(stacked.astype(aval.dtype, copy=False), aval.weak_type))
    return [*carry, *ys]


@scan_p.def_abstract_eval
def _scan_abstract_eval(*avals, body, length, reverse, num_consts, num_carry):
    consts, carry, xs = _scan_parts(avals, num_consts, num_carry)
    for x in xs:
        if not x.shape or x.shape[0] != length:
            raise TypeError(f"scan: every xs must have a leading axis of length {length}, "
                            f"got {x.str_short()}")
    slices = [x.update(shape=x.shape[1:]) for x in xs]
    _check_operands("scan body", [*consts, *carry, *slices], body.in_binders)
    outs = body.out_avals
    if len(outs) < num_carry or any(
            a.shape != b.shape or a.dtype != b.dtype for a, b in zip(outs, carry)):
        raise TypeError(f"scan: body returns ({', '.join(a.str_short() for a in outs)}) for "
                        f"a carry of ({', '.join(a.str_short() for a in carry)})")
    return [*carry, *(y.update(shape=(length, *y.shape)) for y in outs[num_carry:])]


@scan_p.def_jvp
def _scan_jvp(primals, tangents, *, body, length, reverse, num_consts, num_carry):
    consts, carry, xs = _scan_parts(primals, num_consts, num_carry)
    consts_t, carry_t, xs_t = _scan_parts(tangents, num_consts, num_carry)
    call, carry_nz, ys_nz = _scan_jvp_body(body, num_consts, num_carry, nonzero_flags(consts_t),
                                           nonzero_flags(carry_t), nonzero_flags(xs_t))
    consts_t = [t for t in consts_t if type(t) is not Zero]
    carry_t = [instantiate(t) for t, nz in zip(carry_t, carry_nz) if nz]
    xs_t = [t for t in xs_t if type(t) is not Zero]
    outs = scan_p.bind(*call.consts, *consts, *consts_t, *carry, *carry_t, *xs, *xs_t,
                       body=call.ir, length=length, reverse=reverse,
                       num_consts=len(call.consts) + len(consts) + len(consts_t),
                       num_carry=len(carry) + len(carry_t))
    n_carry_t = len(carry_t)
    carry_out = outs[:num_carry]
    carry_t_out = iter(outs[num_carry:num_carry + n_carry_t])
    rest = outs[num_carry + n_carry_t:]
    n_ys = len(ys_nz)
    ys, ys_t = rest[:n_ys], iter(rest[n_ys:])
    primals_out = [*carry_out, *ys]
    tangents_out = [next(carry_t_out) if nz else Zero(tangent_aval(x.aval))
                    for x, nz in zip(carry_out, carry_nz)]
    tangents_out += [next(ys_t) if nz else Zero(tangent_aval(y.aval)) for y, nz in zip(ys, ys_nz)]
    return primals_out, tangents_out


def _scan_jvp_body(body, num_consts, num_carry, consts_nz, carry_nz, xs_nz):
    def build():
        def step(flags):
            return jvp_ir(body, consts_nz + flags + xs_nz)[1][:num_carry]
        nz = _carry_fixpoint(step, carry_nz)
        call, out_nz = jvp_ir(body, consts_nz + nz + xs_nz)
        in_avals = [v.aval for v in body.in_binders]
        c_av, k_av, x_av = _scan_parts(in_avals, num_consts, num_carry)
        out_avals = body.out_avals
        ys_nz = tuple(out_nz[num_carry:])

        def tangents_of(avals, flags):
            return [tangent_aval(a) for a, f in zip(avals, flags) if f]

        groups = [c_av, tangents_of(c_av, consts_nz), k_av, tangents_of(k_av, nz),
                  x_av, tangents_of(x_av, xs_nz)]
        sizes = [len(g) for g in groups]

        def fun(*args):
            parts, start = [], 0
            for size in sizes:
                parts.append(args[start:start + size])
                start += size
            c, ct, k, kt, x, xt = parts
            outs = eval_ir(call.ir, (), [*call.consts, *c, *k, *x, *ct, *kt, *xt])
            n = len(out_avals)
            touts = iter(outs[n:])
            carry_t, ys_t = [], []
            for i, (have, aval) in enumerate(zip(out_nz, out_avals)):
                t = next(touts) if have else None
                if i < num_carry:
                    if nz[i]:
                        carry_t.append(t if have else support.ops.zeros(tangent_aval(aval)))
                elif have:
                    ys_t.append(t)
            return [*outs[:num_carry], *carry_t, *outs[num_carry:n], *ys_t]

        return stage_call(fun, [a for g in groups for a in g]), nz, ys_nz
    return _memoized("scan_jvp", [body], (num_consts, num_carry, consts_nz, carry_nz, xs_nz),
                     build)


@scan_p.def_batch
def _scan_batch(vals, dims, *, body, length, reverse, num_consts, num_carry):
    size = axis_size(vals, dims)
    consts, carry, xs = _scan_parts(vals, num_consts, num_carry)
    cdims, kdims, xdims = _scan_parts(dims, num_consts, num_carry)
    # xs carry their batch axis at 1 (axis 0 is scanned over); their slices at 0.
    xs = [x if d is None else support.ops.moveaxis(x, d, 1) for x, d in zip(xs, xdims)]
    slice_dims = tuple(None if d is None else 0 for d in xdims)
    call, carry_batched, ys_batched = _scan_batch_body(
        body, num_carry, tuple(cdims), tuple(d is not None for d in kdims), slice_dims, size)
    carry = [move_to_front(x, d, size) if b else x
             for x, d, b in zip(carry, kdims, carry_batched)]
    outs = scan_p.bind(*call.consts, *consts, *carry, *xs, body=call.ir, length=length,
                       reverse=reverse, num_consts=len(call.consts) + num_consts,
                       num_carry=num_carry)
    out_dims = [0 if b else None for b in carry_batched] + [1 if b else None
                                                            for b in ys_batched]
    return outs, out_dims


def _scan_batch_body(body, num_carry, cdims, carry_batched, slice_dims, size):
    def build():
        def dims_for(flags):
            return cdims + tuple(0 if f else None for f in flags) + slice_dims

        def step(flags):
            return tuple(d is not None for d in batch_ir(body, dims_for(flags), size)[1]
                         [:num_carry])
        flags = _carry_fixpoint(step, carry_batched)
        dims = dims_for(flags)
        out_dims = batch_ir(body, dims, size)[1]
        ys_batched = tuple(d is not None for d in out_dims[num_carry:])
        want = [0 if f else None for f in flags] + [0 if b else None for b in ys_batched]
        avals = [batched_aval(v.aval, d, size) for v, d in zip(body.in_binders, dims)]

        def fun(*args):
            outs, odims = vmap_flat(lambda *xs: eval_ir(body, (), xs), list(args), list(dims),
                                    size)
            return move_batch_axes(outs, odims, want, size)

        return stage_call(fun, avals), flags, ys_batched
    return _memoized("scan_batch", [body], (num_carry, cdims, carry_batched, slice_dims, size),
                     build)


def _scan_split(body, num_consts, num_carry, unknowns):
    """Split a scan for operands with ``unknowns``. Returns a dict describing the known scan
    (body, operand mask, residual handling) and the unknown scan."""
    def build():
        cuk, kuk, xuk = _scan_parts(unknowns, num_consts, num_carry)
        flags = _carry_fixpoint(
            lambda f: tuple(partial_eval_ir(body, [*cuk, *f, *xuk]).out_unknowns[:num_carry]),
            tuple(kuk))
        n_ys = len(body.outs) - num_carry
        split = split_forced(partial_eval_ir(body, [*cuk, *flags, *xuk]),
                              list(flags) + [False] * n_ys)
        known, unknown, n_res = split.known, split.unknown, split.num_residuals
        n_known = len(known.outs) - n_res
        residuals = known.outs[n_known:]
        const_pos = {v: j for j, v in enumerate(body.in_binders[:num_consts])}
        xs_pos = {v: j for j, v in enumerate(body.in_binders[num_consts + num_carry:])}
        # Residuals that are consts or xs of the body are the scan's own operands: pass
        # them through instead of stacking a copy per iteration.
        res_const = [i for i, r in enumerate(residuals) if r in const_pos]
        res_xs = [i for i, r in enumerate(residuals) if r in xs_pos and i not in res_const]
        # Residuals that are ys of the known scan (an RNN's hidden states) are stacked by
        # it already: the unknown scan reads those ys instead of a second stacked copy.
        n_kc = sum(not f for f in flags)
        ys_pos = {v: n_kc + j for j, v in enumerate(known.outs[n_kc:n_known])
                  if isinstance(v, Var)}
        res_ys = [i for i, r in enumerate(residuals) if isinstance(r, Var) and r in ys_pos
                  and i not in res_const and i not in res_xs]
        res_rest = [i for i in range(n_res)
                    if i not in res_const and i not in res_xs and i not in res_ys]
        # Residuals computed from the consts alone (``w.T`` of a closed-over weight) are the
        # same at every iteration: computed once before the loop by ``invariant_ir`` and
        # passed to the unknown scan as consts, instead of stacked ``length`` times.
        n_kconsts = num_consts - sum(cuk)
        invariant = _const_only_vars(known, n_kconsts)
        res_inv = [i for i in res_rest if residuals[i] in invariant]
        res_stacked = [i for i in res_rest if residuals[i] not in invariant]
        invariant_ir = dce(IR((), known.in_binders[:n_kconsts], known.eqns,
                              tuple(residuals[i] for i in res_inv))) if res_inv else None
        known_body = dce(IR((), known.in_binders, known.eqns,
                            known.outs[:n_known] + tuple(residuals[i] for i in res_stacked)))
        res_binders = unknown.in_binders[:n_res]
        unknown_ins = unknown.in_binders[n_res:]
        n_uc, n_uk = sum(cuk), sum(flags)
        unknown_body = IR((), tuple(res_binders[i] for i in res_const + res_inv)
                          + unknown_ins[:n_uc] + unknown_ins[n_uc:n_uc + n_uk]
                          + tuple(res_binders[i] for i in res_stacked + res_ys)
                          + tuple(res_binders[i] for i in res_xs) + unknown_ins[n_uc + n_uk:],
                          unknown.eqns, unknown.outs)
        known_carry = tuple(not f for f in flags)
        return dict(
            flags=flags, out_unknowns=split.out_unknowns, known_body=known_body,
            known_num_consts=num_consts - sum(cuk), known_num_carry=sum(known_carry),
            stacked_avals=[residuals[i].aval for i in res_stacked],
            ys_outputs=[ys_pos[residuals[i]] for i in res_ys],
            const_operands=[const_pos[residuals[i]] for i in res_const],
            xs_operands=[xs_pos[residuals[i]] for i in res_xs], invariant_ir=invariant_ir,
            unknown_body=unknown_body, unknown_num_consts=len(res_const) + len(res_inv) + n_uc,
            unknown_num_carry=n_uk)
    return _memoized("scan_split", [body], (num_consts, num_carry, tuple(unknowns)), build)


def _const_only_vars(ir: IR, num_consts: int) -> set:
    """The variables of a scan body computed from its first ``num_consts`` binders (and
    literals) alone: loop-invariant values."""
    invariant = set(ir.in_binders[:num_consts])
    for eqn in ir.eqns:
        if all(type(x) is Lit or x in invariant for x in eqn.inputs):
            invariant.update(eqn.outs)
    return invariant


def _scan_split_operands(args, unknowns, info, num_consts, num_carry):
    """The known scan's operands, and a function of its stacked residuals and the
    loop-invariant residuals giving the unknown scan's operands."""
    consts, carry, xs = _scan_parts(args, num_consts, num_carry)
    cuk, _, xuk = _scan_parts(unknowns, num_consts, num_carry)
    flags = info["flags"]
    known_ops = ([x for x, u in zip(consts, cuk) if not u]
                 + [x for x, f in zip(carry, flags) if not f]
                 + [x for x, u in zip(xs, xuk) if not u])

    def unknown_ops(stacked, invariants):
        return ([consts[j] for j in info["const_operands"]] + list(invariants)
                + [x for x, u in zip(consts, cuk) if u]
                + [x for x, f in zip(carry, flags) if f]
                + list(stacked) + [xs[j] for j in info["xs_operands"]]
                + [x for x, u in zip(xs, xuk) if u])
    return known_ops, unknown_ops


def _scan_partial_eval(trace, args, params):
    nc, nk = params["num_consts"], params["num_carry"]
    unknowns = tuple(not trace.is_known(x) for x in args)
    info = _scan_split(params["body"], nc, nk, unknowns)
    known_ops, unknown_ops = _scan_split_operands(args, unknowns, info, nc, nk)
    invariants = ()
    with set_current_trace(trace.parent):
        if info["invariant_ir"] is not None:
            invariants = eval_ir(info["invariant_ir"], [],
                                 known_ops[:info["known_num_consts"]])
        known_outs = scan_p.bind(*known_ops, body=info["known_body"], length=params["length"],
                                 reverse=params["reverse"],
                                 num_consts=info["known_num_consts"],
                                 num_carry=info["known_num_carry"])
    n_stacked = len(info["stacked_avals"])
    known_iter = iter(known_outs[:len(known_outs) - n_stacked])
    stacked = (list(known_outs[len(known_outs) - n_stacked:])
               + [known_outs[k] for k in info["ys_outputs"]])
    staged = iter(trace.record(scan_p, unknown_ops(stacked, invariants), dict(
        params, body=info["unknown_body"], num_consts=info["unknown_num_consts"],
        num_carry=info["unknown_num_carry"])))
    return [next(staged) if u else next(known_iter) for u in info["out_unknowns"]]


def _scan_partial_eval_eqn(eqn, unknowns):
    params = eqn.params
    nc, nk, length = params["num_consts"], params["num_carry"], params["length"]
    info = _scan_split(params["body"], nc, nk, tuple(unknowns))
    known_ops, unknown_ops = _scan_split_operands(eqn.inputs, unknowns, info, nc, nk)
    stacked = fresh_vars(a.update(shape=(length, *a.shape)) for a in info["stacked_avals"])
    out_uk = info["out_unknowns"]
    known_outs = tuple(v for v, u in zip(eqn.outs, out_uk) if not u)
    known = Eqn(scan_p, tuple(known_ops), dict(
        params, body=info["known_body"], num_consts=info["known_num_consts"],
        num_carry=info["known_num_carry"]), known_outs + stacked)
    if not any(out_uk):
        return known, None
    stacked += tuple(known_outs[k] for k in info["ys_outputs"])
    invariant_ir, invariants = info["invariant_ir"], ()
    if invariant_ir is not None:  # computed before the loop, by a call equation
        invariants = tuple(Var(x.aval) for x in invariant_ir.outs)
        known = (Eqn(jit_p, tuple(known_ops[:info["known_num_consts"]]),
                     {"ir": invariant_ir, "name": "scan_invariants", "device": None},
                     invariants), known)
    unknown = Eqn(scan_p, tuple(unknown_ops(stacked, invariants)), dict(
        params, body=info["unknown_body"], num_consts=info["unknown_num_consts"],
        num_carry=info["unknown_num_carry"]), tuple(v for v, u in zip(eqn.outs, out_uk) if u))
    return known, unknown


scan_p.partial_eval_rule = _scan_partial_eval
scan_p.partial_eval_eqn_rule = _scan_partial_eval_eqn


@scan_p.def_transpose
def _scan_transpose(cts, *args, body, length, reverse, num_consts, num_carry):
    consts, carry, xs = _scan_parts(args, num_consts, num_carry)
    consts_lin = tuple(is_undefined(x) for x in consts)
    xs_lin = tuple(is_undefined(x) for x in xs)
    ct_carry = [instantiate(ct) for ct in cts[:num_carry]]
    ct_ys = cts[num_carry:]
    ys_nz = nonzero_flags(ct_ys)
    call = _scan_transpose_body(body, num_consts, num_carry, consts_lin, xs_lin, ys_nz)
    known_consts = [x for x in consts if not is_undefined(x)]
    known_xs = [x for x in xs if not is_undefined(x)]
    acc = [support.ops.zeros(tangent_aval(x.aval)) for x in consts if is_undefined(x)]
    outs = scan_p.bind(*call.consts, *known_consts, *acc, *ct_carry,
                       *(ct for ct in ct_ys if type(ct) is not Zero), *known_xs,
                       body=call.ir, length=length, reverse=not reverse,
                       num_consts=len(call.consts) + len(known_consts),
                       num_carry=len(acc) + num_carry)
    ct_consts = iter(outs[:len(acc)])
    ct_init = outs[len(acc):len(acc) + num_carry]
    ct_xs = iter(outs[len(acc) + num_carry:])
    return ([next(ct_consts) if lin else None for lin in consts_lin]
            + [ct if is_undefined(x) else None for x, ct in zip(carry, ct_init)]
            + [next(ct_xs) if lin else None for lin in xs_lin])


def _scan_transpose_body(body, num_consts, num_carry, consts_lin, xs_lin, ys_nz):
    def build():
        # Every carry is treated as linear: a known carry of a linear scan only shifts it.
        linear = consts_lin + (True,) * num_carry + xs_lin
        tcall = transpose_ir(body, linear, (True,) * num_carry + ys_nz)
        c_av, k_av, x_av = _scan_parts([v.aval for v in body.in_binders], num_consts,
                                       num_carry)
        y_av = body.out_avals[num_carry:]
        known_c = [a for a, lin in zip(c_av, consts_lin) if not lin]
        lin_c = [tangent_aval(a) for a, lin in zip(c_av, consts_lin) if lin]
        known_x = [a for a, lin in zip(x_av, xs_lin) if not lin]
        ct_y = [tangent_aval(a) for a, nz in zip(y_av, ys_nz) if nz]
        groups = [known_c, lin_c, [tangent_aval(a) for a in k_av], ct_y, known_x]
        sizes = [len(g) for g in groups]

        def fun(*args):
            parts, start = [], 0
            for size in sizes:
                parts.append(args[start:start + size])
                start += size
            kc, acc, ct_carry, cty, kx = parts
            outs = eval_ir(tcall.ir, (), [*tcall.consts, *kc, *kx, *ct_carry, *cty])
            n_lc = len(acc)
            return ([support.ops.add(a, c) for a, c in zip(acc, outs[:n_lc])]
                    + list(outs[n_lc:]))

        return stage_call(fun, [a for g in groups for a in g])
    return _memoized("scan_transpose", [body],
                     (num_consts, num_carry, consts_lin, xs_lin, ys_nz), build)


@scan_p.def_lower
def _scan_lower(ctx, *operands, body, length, reverse, num_consts, num_carry):
    consts, carry, xs = _scan_parts(operands, num_consts, num_carry)
    i32 = ShapedArray((), np.int32)
    ys_avals = ctx.avals_out[num_carry:]
    ys_init = [ctx.constant(0, aval) for aval in ys_avals]
    if length == 0:  # no iteration (and no slice of the empty xs to type)
        return [*carry, *ys_init]
    state = [ctx.constant(0, i32), *consts, *carry, *xs, *ys_init]
    avals = tuple(ctx.type_of(x) for x in state)
    nc, nk, nx = len(consts), len(carry), len(xs)

    def cond(rctx, i, *rest):
        return [compare(rctx, i, rctx.constant(length, i32), "LT")]

    def step(rctx, i, *rest):
        c, k = rest[:nc], rest[nc:nc + nk]
        x, ys = rest[nc + nk:nc + nk + nx], rest[nc + nk + nx:]
        idx = i
        if reverse:
            idx = rctx.op("stablehlo.subtract", rctx.constant(length - 1, i32), i,
                          results=[i32])[0]
        slices = []
        for xv in x:
            aval = rctx.type_of(xv)
            zeros = [rctx.constant(0, i32) for _ in aval.shape[1:]]
            one = ShapedArray((1, *aval.shape[1:]), aval.dtype)
            piece = rctx.op("stablehlo.dynamic_slice", xv, idx, *zeros, results=[one],
                            attributes={"slice_sizes": i64_array_attribute(one.shape)})[0]
            slices.append(rctx.op("stablehlo.reshape", piece, results=[
                ShapedArray(aval.shape[1:], aval.dtype)])[0])
        outs = lower_inline(rctx, body, *c, *k, *slices)
        new_ys = []
        for acc, y in zip(ys, outs[nk:]):
            yaval = rctx.type_of(y)
            y1 = rctx.op("stablehlo.reshape", y, results=[
                ShapedArray((1, *yaval.shape), yaval.dtype)])[0]
            zeros = [rctx.constant(0, i32) for _ in yaval.shape]
            new_ys.append(rctx.op("stablehlo.dynamic_update_slice", acc, y1, idx, *zeros,
                                  results=[rctx.type_of(acc)])[0])
        i_next = rctx.op("stablehlo.add", i, rctx.constant(1, i32), results=[i32])[0]
        return [i_next, *c, *outs[:nk], *x, *new_ys]

    pred = (ShapedArray((), np.bool_),)
    results = region_op(ctx, "stablehlo.while", state,
                        [Region(avals, cond, pred), Region(avals, step, avals)], results=avals)
    return results[1 + nc:1 + nc + nk] + results[1 + nc + nk + nx:]
