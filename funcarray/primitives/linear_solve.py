"""``custom_linear_solve``: a linear solve whose derivatives are solves again (the public
wrapper is ``lax/_linear_solve.py``).

``custom_linear_solve(*consts, *b, matvec, vecmat, solve, transpose_solve, const_counts,
num_aux)`` computes ``x = solve(b)`` with ``matvec(x) = b``; each body is an IR in call form
whose leading inputs are its constants (``const_counts`` gives how many for matvec, vecmat,
solve and transpose_solve, in that order, at the front of the operands), and ``solve``
returns ``num_aux`` auxiliary outputs after ``x``. ``vecmat``/``transpose_solve`` may be None
(forward mode only). Rules, as in JAX:

* JVP: ``x_dot = solve(b_dot - matvec_dot(x))``, where ``matvec_dot`` is the derivative of
  the matrix with respect to matvec's constants, the same primitive applied to the new right
  side, so it stays transposable. Derivatives through the solvers' own constants are not
  taken (a solver is assumed to invert ``matvec`` exactly); aux outputs get zero tangents.
* Transpose (it is linear in ``b``): ``b_ct = transpose_solve(x_ct)``, the primitive with the
  roles swapped (matvec <-> vecmat, solve <-> transpose_solve).
* Batching: every batched operand's axis moves to the front and ``b`` is batched along it;
  each body is vectorised over the constants' own batch axes (an unbatched matrix stays
  unbatched), its outputs at the front.
* Eager and lowering: ``solve`` evaluated / inlined.

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray import lax
    >>> a = fnp.asarray([[4.0, 1.0], [1.0, 3.0]])
    >>> lax.custom_linear_solve(lambda x: a @ x, fnp.asarray([1.0, 2.0]),
    ...                         solve=lambda mv, b: fnp.linalg.solve(a, b), symmetric=True)
    Array([0.09090909, 0.6363636 ], dtype=float32)
"""

from __future__ import annotations

from funcarray.lowering.stablehlo import lower_inline
from funcarray.primitives.custom_derivatives import _batch_body
from funcarray.transforms.core import Primitive
from funcarray.transforms.ir import eval_ir
from funcarray.transforms.ir_transforms import check_operands, jvp_ir
from funcarray.transforms.jvp import Zero, instantiate, tangent_aval
from funcarray.transforms.transpose import is_undefined
from funcarray.transforms.vmap import move_to_front

__all__ = ["custom_linear_solve_p"]

custom_linear_solve_p = Primitive("custom_linear_solve", multiple_results=True)

_ROLES = ("matvec", "vecmat", "solve", "transpose_solve")


def _groups(operands, const_counts):
    """``(consts per role, b)``: the operands split by ``const_counts``."""
    groups, start = [], 0
    for n in const_counts:
        groups.append(list(operands[start:start + n]))
        start += n
    return groups, list(operands[start:])


@custom_linear_solve_p.def_impl
def _impl(*operands, matvec, vecmat, solve, transpose_solve, const_counts, num_aux):
    (_, _, solve_consts, _), b = _groups(operands, const_counts)
    return eval_ir(solve, (), [*solve_consts, *b])


@custom_linear_solve_p.def_abstract_eval
def _abstract_eval(*avals, matvec, vecmat, solve, transpose_solve, const_counts, num_aux):
    (_, _, solve_consts, _), b = _groups(avals, const_counts)
    check_operands("custom_linear_solve", [*solve_consts, *b], solve.in_binders)
    return [x.aval for x in solve.outs]


@custom_linear_solve_p.def_lower
def _lower(ctx, *operands, matvec, vecmat, solve, transpose_solve, const_counts, num_aux):
    (_, _, solve_consts, _), b = _groups(operands, const_counts)
    return lower_inline(ctx, solve, *solve_consts, *b)


@custom_linear_solve_p.def_jvp
def _jvp(primals, tangents, **params):
    const_counts, num_aux = params["const_counts"], params["num_aux"]
    outs = custom_linear_solve_p.bind(*primals, **params)
    n_b = len(outs) - num_aux
    x = outs[:n_b]
    (mv_consts, _, _, _), _ = _groups(primals, const_counts)
    (mv_dots, _, _, _), b_dots = _groups(tangents, const_counts)
    rhs = list(b_dots)
    if any(type(t) is not Zero for t in mv_dots):
        # matvec_dot(x): the tangent of matvec(x) with respect to its constants alone
        nonzero = tuple(type(t) is not Zero for t in mv_dots) + (False,) * n_b
        jcall, out_nonzero = jvp_ir(params["matvec"], nonzero)
        results = eval_ir(jcall.ir, (), [*jcall.consts, *mv_consts, *x,
                                         *(t for t in mv_dots if type(t) is not Zero)])
        ax_dots = iter(results[n_b:])
        rhs = [r if not nz else (-next(ax_dots) if type(r) is Zero else r - next(ax_dots))
               for r, nz in zip(rhs, out_nonzero)]
    aux_zeros = [Zero(tangent_aval(a.aval)) for a in outs[n_b:]]
    if all(type(r) is Zero for r in rhs):
        return outs, [Zero(tangent_aval(v.aval)) for v in x] + aux_zeros
    rhs = [instantiate(r) for r in rhs]
    consts = primals[:len(primals) - n_b]
    x_dot = custom_linear_solve_p.bind(*consts, *rhs, **params)[:n_b]
    return outs, list(x_dot) + aux_zeros


@custom_linear_solve_p.def_transpose
def _transpose(cts, *operands, matvec, vecmat, solve, transpose_solve, const_counts,
               num_aux):
    groups, b = _groups(operands, const_counts)
    if any(is_undefined(c) for group in groups for c in group):
        raise TypeError("custom_linear_solve: the solve is linear in b only; its matrix "
                        "(matvec's constants) cannot be a linear input of the transpose")
    if transpose_solve is None:
        raise TypeError(
            "custom_linear_solve: reverse-mode differentiation (grad, vjp, jacrev) needs "
            "transpose_solve (or symmetric=True when matvec is symmetric)")
    n_b = len(b)
    x_cts = [instantiate(ct) for ct in cts[:n_b]]
    mv, vm, sv, tsv = groups
    b_cts = custom_linear_solve_p.bind(
        *vm, *mv, *tsv, *sv, *x_cts, matvec=vecmat, vecmat=matvec, solve=transpose_solve,
        transpose_solve=solve, const_counts=(len(vm), len(mv), len(tsv), len(sv)),
        num_aux=len(transpose_solve.outs) - n_b)[:n_b]
    return [None] * sum(const_counts) + [ct if is_undefined(x) else None
                                          for ct, x in zip(b_cts, b)]


@custom_linear_solve_p.def_batch
def _batch(vals, dims, **params):
    const_counts = params["const_counts"]
    n_consts = sum(const_counts)
    size = next(v.shape[d] for v, d in zip(vals, dims) if d is not None)
    # b (and so x) batched at the front; a constant keeps no batch axis if it has none
    moved = [move_to_front(v, d, size) if d is not None or k >= n_consts else v
             for k, (v, d) in enumerate(zip(vals, dims))]
    groups, b = _groups(moved, const_counts)
    group_dims, _ = _groups([None if d is None else 0 for d in dims], const_counts)
    new, operands, counts = dict(params), [], []
    for role, group, role_dims in zip(_ROLES, groups, group_dims):
        ir = params[role]
        if ir is None:
            counts.append(len(group))
            operands += group
            continue
        body = _batch_body(ir, size, (*role_dims, *(0,) * (len(ir.in_binders) - len(group))))
        new[role] = body.ir
        operands += [*body.consts, *group]
        counts.append(len(body.consts) + len(group))
    new["const_counts"] = tuple(counts)
    outs = custom_linear_solve_p.bind(*operands, *b, **new)
    return outs, [0] * len(outs)
