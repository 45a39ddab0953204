"""The ``cond`` primitive (``switch`` and ``cond`` of ``funcarray/lax/_branches.py`` bind
it), with all its rules. Its branches are IRs in *call form* (no const binders: the values
a branch closes over are leading operands).

``cond(index, *operands, branches)``
    ``branches[index](*operands)``. ``index`` is an int32 scalar in ``[0, len(branches))``
    (the public ``switch`` clamps it); every branch takes all the operands (each ignores the
    closed-over values of the others) and returns outputs of the same types.
    jvp: the branches' JVPs, zero tangents instantiated where another branch has a nonzero
    one. batch: with an unbatched index, the vectorised branches (outputs batched along axis
    0 where any branch batches them); with a batched index, every branch runs and
    ``select_n`` picks each member's result. partial eval: each branch split with the same
    unknown operands, an output unknown in one branch is made unknown in all, and the known
    cond returns every branch's residuals (zeros for the branches not taken). transpose: the
    branches' transposes. Lowered to ``stablehlo.case``.

Example:
    >>> import funcarray as fa
    >>> import funcarray.numpy as fnp
    >>> from funcarray import lax
    >>> print(fa.make_ir(lambda p, x: lax.cond(p, fnp.sin, fnp.cos, x))(True, fnp.ones(2)))
    { lambda ; a:bool[] b:f32[2]. let
        c:i32[] = convert_element_type[ new_dtype=int32 weak_type=False ] a
        d:f32[2] = cond[
          branches=(
            { lambda ; a:f32[2]. let
                b:f32[2] = cos a
              in (b) }
            { lambda ; a:f32[2]. let
                b:f32[2] = sin a
              in (b) }
          )
        ] c b
      in (d) }
"""

from __future__ import annotations

import numpy as np

from funcarray.base.array import Array
from funcarray.lowering.regions import Region, region_op
from funcarray.lowering.stablehlo import lower_inline
from funcarray.primitives.control_flow_bodies import (
    axis_size,
    batched_aval,
    fresh_vars,
    join_calls,
    nonzero_flags,
    split_forced,
)
from funcarray.primitives.select_n import select_n_p
from funcarray.primitives.shape import broadcast_in_dim_p
from funcarray.transforms import support
from funcarray.transforms.core import Primitive, ShapedArray, set_current_trace
from funcarray.transforms.ir import IR, Eqn, Lit, Var, eval_ir
from funcarray.transforms.ir_transforms import batch_ir, jvp_ir, stage_call, transpose_ir
from funcarray.transforms.ir_transforms import check_operands as _check_operands
from funcarray.transforms.ir_transforms import memoized as _memoized
from funcarray.transforms.jvp import Zero, tangent_aval
from funcarray.transforms.partial_eval import partial_eval_ir
from funcarray.transforms.transpose import is_undefined
from funcarray.transforms.vmap import move_batch_axes, move_to_front, vmap_flat

__all__ = ["cond_p"]


def _zeros_atom(aval) -> tuple:
    """``(atom, eqns)`` computing zeros of ``aval`` inside an IR."""
    scalar = ShapedArray((), aval.dtype, aval.weak_type)
    lit = Lit(Array(np.zeros((), aval.dtype), aval.weak_type), scalar)
    if not aval.shape:
        return lit, []
    out = Var(aval)
    return out, [Eqn(broadcast_in_dim_p, (lit,),
                     dict(shape=tuple(aval.shape), broadcast_dimensions=()), (out,))]


cond_p = Primitive("cond", multiple_results=True)


@cond_p.def_impl
def _cond_impl(index, *operands, branches):
    k = int(np.clip(np.asarray(index._value), 0, len(branches) - 1))
    return eval_ir(branches[k], (), operands)


@cond_p.def_abstract_eval
def _cond_abstract_eval(index, *operands, branches):
    if index.shape != () or index.dtype != np.int32:
        raise TypeError(f"cond: the branch index must be an int32 scalar, got "
                        f"{index.str_short()}")
    if not branches:
        raise TypeError("cond: needs at least one branch")
    for k, branch in enumerate(branches):
        _check_operands(f"cond branch {k}", operands, branch.in_binders)
    first = branches[0].out_avals
    for k, branch in enumerate(branches[1:], 1):
        avals = branch.out_avals
        if len(avals) != len(first) or any(
                a.shape != b.shape or a.dtype != b.dtype for a, b in zip(avals, first)):
            raise TypeError(
                f"cond: branch {k} returns ({', '.join(a.str_short() for a in avals)}) but "
                f"branch 0 returns ({', '.join(a.str_short() for a in first)})")
    return [a.update(weak_type=all(b.out_avals[i].weak_type for b in branches))
            for i, a in enumerate(first)]


@cond_p.def_jvp
def _cond_jvp(primals, tangents, *, branches):
    index, operands = primals[0], primals[1:]
    irs, consts, out_nonzero = _cond_jvp_branches(branches, nonzero_flags(tangents[1:]))
    nonzero_tangents = [t for t in tangents[1:] if type(t) is not Zero]
    outs = cond_p.bind(index, *consts, *operands, *nonzero_tangents, branches=irs)
    n = len(branches[0].outs)
    touts = iter(outs[n:])
    return outs[:n], [next(touts) if nz else Zero(tangent_aval(x.aval))
                      for x, nz in zip(branches[0].outs, out_nonzero)]


def _cond_jvp_branches(branches, nonzero):
    def build():
        jvps = [jvp_ir(branch, nonzero) for branch in branches]
        out_nonzero = tuple(any(col) for col in zip(*(nz for _, nz in jvps)))
        calls = [_instantiate_tangents(call, nz, out_nonzero, branch.out_avals)
                 for (call, nz), branch in zip(jvps, branches)]
        irs, consts = join_calls(calls)
        return irs, consts, out_nonzero
    return _memoized("cond_jvp", branches, nonzero, build)


def _instantiate_tangents(call, have, want, out_avals):
    """A JVP body (primal outputs, then the nonzero tangents ``have``) returning the tangents
    ``want`` instead (zeros where it had none)."""
    if tuple(have) == tuple(want):
        return call
    n = len(out_avals)
    arg_avals = [v.aval for v in call.ir.in_binders[len(call.consts):]]

    def fun(*args):
        outs = eval_ir(call.ir, (), [*call.consts, *args])
        touts, result = iter(outs[n:]), list(outs[:n])
        for h, w, aval in zip(have, want, out_avals):
            t = next(touts) if h else None
            if w:
                result.append(t if h else support.ops.zeros(tangent_aval(aval)))
        return result

    return stage_call(fun, arg_avals)


@cond_p.def_batch
def _cond_batch(vals, dims, *, branches):
    index, operands = vals[0], vals[1:]
    size = axis_size(vals, dims)
    if dims[0] is None:
        irs, consts, out_dims = _cond_batch_branches(branches, tuple(dims[1:]), size)
        return cond_p.bind(index, *consts, *operands, branches=irs), list(out_dims)
    # A batched predicate: every member may take another branch. Run them all and select.
    index = move_to_front(index, dims[0], size)
    per_branch = []
    for branch in branches:
        outs, odims = vmap_flat(lambda *xs, b=branch: eval_ir(b, (), xs), list(operands),
                                list(dims[1:]), size)
        per_branch.append(move_batch_axes(outs, odims, [0] * len(outs), size))
    outs = []
    for cases in zip(*per_branch):
        which = broadcast_in_dim_p.bind(index, shape=tuple(cases[0].shape),
                                        broadcast_dimensions=(0,))
        outs.append(select_n_p.bind(which, *cases))
    return outs, [0] * len(outs)


def _cond_batch_branches(branches, dims, size):
    def build():
        per = [batch_ir(branch, dims, size)[1] for branch in branches]
        want = tuple(0 if any(d is not None for d in col) else None for col in zip(*per))
        in_avals = [batched_aval(v.aval, d, size)
                    for v, d in zip(branches[0].in_binders, dims)]
        calls = []
        for branch in branches:
            def fun(*args, branch=branch):
                outs, odims = vmap_flat(lambda *xs: eval_ir(branch, (), xs), list(args),
                                        list(dims), size)
                return move_batch_axes(outs, odims, want, size)
            calls.append(stage_call(fun, in_avals))
        irs, consts = join_calls(calls)
        return irs, consts, want
    return _memoized("cond_batch", branches, (dims, size), build)


@cond_p.def_transpose
def _cond_transpose(cts, index, *operands, branches):
    linear = tuple(is_undefined(x) for x in operands)
    ct_nonzero = nonzero_flags(cts)
    irs, consts = _memoized("cond_transpose", branches, (linear, ct_nonzero), lambda: join_calls(
        [transpose_ir(branch, linear, ct_nonzero) for branch in branches]))
    known = [x for x in operands if not is_undefined(x)]
    nonzero_cts = [ct for ct in cts if type(ct) is not Zero]
    outs = iter(cond_p.bind(index, *consts, *known, *nonzero_cts, branches=irs))
    return [None] + [next(outs) if lin else None for lin in linear]


def _cond_split(branches, unknowns):
    """The known and unknown conds for operands with ``unknowns``: ``(known_irs,
    unknown_irs, out_unknowns, residual_avals)``."""
    def build():
        splits = [partial_eval_ir(branch, unknowns) for branch in branches]
        out_uk = [any(col) for col in zip(*(s.out_unknowns for s in splits))]
        splits = [split_forced(s, out_uk) for s in splits]
        res_avals = [[x.aval for x in s.known.outs[len(s.known.outs) - s.num_residuals:]]
                     for s in splits]
        all_res = [a for avals in res_avals for a in avals]
        known_irs, unknown_irs = [], []
        for k, s in enumerate(splits):
            n_known = len(s.known.outs) - s.num_residuals
            eqns, res_atoms = list(s.known.eqns), []
            for j, avals in enumerate(res_avals):
                if j == k:
                    res_atoms.extend(s.known.outs[n_known:])
                    continue
                for aval in avals:
                    atom, zero_eqns = _zeros_atom(aval)
                    eqns.extend(zero_eqns)
                    res_atoms.append(atom)
            known_irs.append(IR((), s.known.in_binders, tuple(eqns),
                                s.known.outs[:n_known] + tuple(res_atoms)))
            binders = []
            for j, avals in enumerate(res_avals):
                binders.extend(s.unknown.in_binders[:s.num_residuals] if j == k
                               else fresh_vars(avals))
            unknown_irs.append(IR((), tuple(binders) + s.unknown.in_binders[s.num_residuals:],
                                  s.unknown.eqns, s.unknown.outs))
        return tuple(known_irs), tuple(unknown_irs), out_uk, all_res
    return _memoized("cond_split", branches, tuple(unknowns), build)


def _cond_partial_eval(trace, args, params):
    unknowns = [not trace.is_known(x) for x in args]
    if unknowns[0]:
        return trace.record(cond_p, list(args), params)
    known_irs, unknown_irs, out_uk, res_avals = _cond_split(params["branches"],
                                                            tuple(unknowns[1:]))
    operands = args[1:]
    known_ops = [x for x, u in zip(operands, unknowns[1:]) if not u]
    with set_current_trace(trace.parent):
        known_outs = cond_p.bind(args[0], *known_ops, branches=known_irs)
    n_known = len(known_outs) - len(res_avals)
    staged = iter(())
    if any(out_uk):
        unknown_ops = [x for x, u in zip(operands, unknowns[1:]) if u]
        staged = iter(trace.record(cond_p, [args[0], *known_outs[n_known:], *unknown_ops],
                                   dict(branches=unknown_irs)))
    known_iter = iter(known_outs[:n_known])
    return [next(staged) if u else next(known_iter) for u in out_uk]


def _cond_partial_eval_eqn(eqn, unknowns):
    if unknowns[0]:
        return None, eqn
    known_irs, unknown_irs, out_uk, res_avals = _cond_split(eqn.params["branches"],
                                                            tuple(unknowns[1:]))
    operands = eqn.inputs[1:]
    res_vars = fresh_vars(res_avals)
    known = Eqn(cond_p, (eqn.inputs[0], *(x for x, u in zip(operands, unknowns[1:]) if not u)),
                dict(branches=known_irs),
                tuple(v for v, u in zip(eqn.outs, out_uk) if not u) + res_vars)
    if not any(out_uk):
        return known, None
    unknown = Eqn(cond_p, (eqn.inputs[0], *res_vars,
                           *(x for x, u in zip(operands, unknowns[1:]) if u)),
                  dict(branches=unknown_irs), tuple(v for v, u in zip(eqn.outs, out_uk) if u))
    return known, unknown


cond_p.partial_eval_rule = _cond_partial_eval
cond_p.partial_eval_eqn_rule = _cond_partial_eval_eqn


@cond_p.def_lower
def _cond_lower(ctx, index, *operands, branches):
    # stablehlo.case regions take no arguments: they capture the operands from outside.
    regions = [Region((), lambda rctx, b=branch: lower_inline(rctx, b, *operands),
                      ctx.avals_out) for branch in branches]
    return region_op(ctx, "stablehlo.case", [index], regions)

