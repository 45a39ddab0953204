"""The ``jit`` primitive: a call of a staged function, compiled as one XLA executable.

``jit_p.bind(*consts, *args, ir=IR, name=str, device=...)`` applies ``ir`` (an IR in call
form: no const binders, its closed-over values are the leading operands) to its operands.
A jit with XLA ``compiler_options`` also has that parameter (``(name, value)`` pairs; absent
when empty, so most printed IR does not show it); the rules pass it on to the jits they bind,
and a jit inlined into an enclosing one compiles with the enclosing one's options, as in JAX.
``funcarray.jit`` stages the user's function once per signature and binds this primitive, so
``jit`` is a primitive like any other and composes with every transform by its rules:

* impl -- compile ``ir`` once (cached per IR and device) and run it on the operands;
* abstract_eval -- the avals of ``ir``'s outputs;
* jvp -- bind jit again on the body's JVP (``jvp_ir``), so ``jvp(jit(f))`` stays compiled;
* batch -- bind jit on the vectorised body (``batch_ir``): ``vmap(jit(f))`` is one executable;
* partial_eval -- under ``linearize``/``grad``: run the known (primal) half now, compiled,
  and stage the tangent half as another jit (``transforms/partial_eval.py``);
* transpose -- bind jit on the transposed body (``transpose_ir``);
* lower -- a jit inside a jit is inlined into the enclosing module.

Example:
    >>> import funcarray as fa
    >>> import funcarray.numpy as fnp
    >>> print(fa.make_ir(fa.jit(lambda x: fnp.sin(x) * 2.0))(fnp.ones(2)))
    { lambda ; a:f32[2]. let
        b:f32[2] = jit[
          device=None
          ir={ lambda ; a:f32[2]. let
              b:f32[2] = sin a
              c:f32[2] = broadcast_in_dim[ broadcast_dimensions=() shape=(2,) ] 2.0:f32[]
              d:f32[2] = mul b c
            in (d) }
          name=<lambda>
        ] a
      in (b) }
"""

from __future__ import annotations

from funcarray.lowering.executor import execute_ir
from funcarray.lowering.stablehlo import lower_inline
from funcarray.transforms.core import Primitive, set_current_trace
from funcarray.transforms.ir import Eqn, Var
from funcarray.transforms.ir_transforms import batch_ir, check_operands, jvp_ir, transpose_ir
from funcarray.transforms.jvp import Zero
from funcarray.transforms.partial_eval import partial_eval_ir
from funcarray.transforms.transpose import is_undefined

__all__ = ["jit_p"]

jit_p = Primitive("jit", multiple_results=True)


def _options(compiler_options) -> dict:
    """The optional ``compiler_options`` parameter, for a rule's own ``jit_p.bind``."""
    return {"compiler_options": compiler_options} if compiler_options else {}


@jit_p.def_impl
def _jit_impl(*args, ir, name, device, compiler_options=()):
    # XLA would reinterpret the bits of a same-size wrong dtype: check before running.
    _check_operands(name, [x.aval for x in args], ir)
    return execute_ir(ir, args, device, compiler_options)


@jit_p.def_abstract_eval
def _jit_abstract_eval(*avals, ir, name, device, compiler_options=()):
    _check_operands(name, avals, ir)
    return [x.aval for x in ir.outs]


def _check_operands(name, avals, ir) -> None:
    check_operands(f"jit '{name}'", avals, ir.in_binders)


@jit_p.def_jvp
def _jit_jvp(primals, tangents, *, ir, name, device, compiler_options=()):
    nonzero = tuple(type(t) is not Zero for t in tangents)
    call, out_nonzero = jvp_ir(ir, nonzero)
    operands = [*call.consts, *primals, *(t for t in tangents if type(t) is not Zero)]
    outs = jit_p.bind(*operands, ir=call.ir, name=f"jvp({name})", device=device,
                      **_options(compiler_options))
    n = len(ir.outs)
    primals_out, nonzero_tangents = outs[:n], iter(outs[n:])
    tangents_out = [next(nonzero_tangents) if nz else Zero(_tangent_aval(x.aval))
                    for x, nz in zip(ir.outs, out_nonzero)]
    return primals_out, tangents_out


def _tangent_aval(aval):
    from funcarray.transforms.jvp import tangent_aval

    return tangent_aval(aval)


@jit_p.def_batch
def _jit_batch(vals, dims, *, ir, name, device, compiler_options=()):
    axis_size = next(v.shape[d] for v, d in zip(vals, dims) if d is not None)
    call, out_dims = batch_ir(ir, tuple(dims), axis_size)
    outs = jit_p.bind(*call.consts, *vals, ir=call.ir, name=f"vmap({name})", device=device,
                      **_options(compiler_options))
    return outs, list(out_dims)


@jit_p.def_transpose
def _jit_transpose(cts, *invals, ir, name, device, compiler_options=()):
    linear = tuple(is_undefined(x) for x in invals)
    ct_nonzero = tuple(type(ct) is not Zero for ct in cts)
    call = transpose_ir(ir, linear, ct_nonzero)
    known = [x for x in invals if not is_undefined(x)]
    nonzero_cts = [ct for ct in cts if type(ct) is not Zero]
    outs = iter(jit_p.bind(*call.consts, *known, *nonzero_cts, ir=call.ir,
                           name=f"transpose({name})", device=device,
                           **_options(compiler_options)))
    return [next(outs) if lin else None for lin in linear]


def _jit_partial_eval(trace, args, params):
    ir, name, device = params["ir"], params["name"], params["device"]
    options = _options(params.get("compiler_options"))
    unknowns = [not trace.is_known(x) for x in args]
    split = partial_eval_ir(ir, unknowns)
    known_args = [x for x, u in zip(args, unknowns) if not u]
    with set_current_trace(trace.parent):
        known_outs = jit_p.bind(*known_args, ir=split.known, name=name, device=device,
                                **options)
    n_known = len(known_outs) - split.num_residuals
    residuals = known_outs[n_known:]
    unknown_args = [x for x, u in zip(args, unknowns) if u]
    staged = trace.record(jit_p, [*residuals, *unknown_args],
                          dict(ir=split.unknown, name=name, device=device, **options))
    known_iter, staged_iter = iter(known_outs[:n_known]), iter(staged)
    return [next(staged_iter) if u else next(known_iter) for u in split.out_unknowns]


jit_p.partial_eval_rule = _jit_partial_eval


def _jit_partial_eval_eqn(eqn, unknowns):
    params = eqn.params
    split = partial_eval_ir(params["ir"], unknowns)
    n_known = len(split.known.outs) - split.num_residuals
    residuals = [Var(x.aval) for x in split.known.outs[n_known:]]
    known_outs = [v for v, u in zip(eqn.outs, split.out_unknowns) if not u]
    unknown_outs = [v for v, u in zip(eqn.outs, split.out_unknowns) if u]
    known = Eqn(jit_p, tuple(x for x, u in zip(eqn.inputs, unknowns) if not u),
                {**params, "ir": split.known}, tuple(known_outs + residuals))
    unknown = Eqn(jit_p, tuple(residuals) + tuple(x for x, u in zip(eqn.inputs, unknowns) if u),
                  {**params, "ir": split.unknown}, tuple(unknown_outs))
    return known, (unknown if unknown_outs else None)


jit_p.partial_eval_eqn_rule = _jit_partial_eval_eqn


@jit_p.def_lower
def _jit_lower(ctx, *operands, ir, name, device, compiler_options=()):
    return lower_inline(ctx, ir, *operands)
