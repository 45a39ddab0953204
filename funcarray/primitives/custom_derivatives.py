"""Custom derivative rules and rematerialisation, as higher-order primitives.

The public wrappers live in ``funcarray/api/custom_derivatives.py``; this module holds the
primitives and all their rules. Each primitive carries its body as an IR in *call form* (no
const binders: the values the function closed over are its leading operands, ``num_consts`` of
them), so the body composes with every transform through ``transforms/ir_transforms.py``.

``custom_jvp_call(*consts, *args, call, jvp, num_consts, symbolic_zeros)``
    Applies the body ``call``. Its jvp rule calls ``jvp(primals, tangents)``, a *flat rule*
    (``_custom.py`` wraps the user's rule: pytrees, zero instantiation, checks), one level
    down, and the primitive disappears: under ``linearize`` the user's rule is what gets
    staged, so no transpose rule is needed. The batch rule moves every batch axis to the front
    (broadcasting unbatched operands), vectorises the body, and wraps the rule in ``vmap``.
    Lowering inlines the body. A closed-over value with a nonzero tangent is an error (the
    custom rule only knows the explicit arguments), as in JAX.

``custom_vjp_call(*consts, *args, call, rule, num_consts)``
    Applies the body. Its jvp rule (reached by ``linearize``/``grad``) runs ``rule.fwd`` on
    the primals -- concrete values under an eager ``grad`` -- and binds
    ``custom_vjp_linear(*residuals, *nonzero_tangents)``, whose transpose rule calls
    ``rule.bwd(residuals, cotangents)``. The linear primitive has no eager, batching or
    lowering rule, only an error: reaching one means forward-mode differentiation
    (``jvp``/``jacfwd``/``linearize`` evaluated forwards) of a custom_vjp function, which JAX
    refuses too. The batch rule works like custom_jvp's, wrapping ``fwd`` and ``bwd`` in vmap.

``checkpoint(*consts, *args, call, prevent_cse, policy, name)``
    Rematerialisation (``remat``). jvp rule: the body's JVP (``jvp_ir``). When the JVP is being
    *staged* (linearize's folding trace, or a jit body being differentiated) it emits two
    equations: ``checkpoint(primals)`` for the primal outputs, which is known and computed
    now, and ``checkpoint(primals, tangents)`` computing only the tangent outputs from the
    whole JVP body. The second keeps the primal inputs as its only residuals, so when
    ``backward_pass`` transposes it (``transpose_ir`` evaluates the known sub-computations
    forwards inside the transposed body) the primal is recomputed in the backward pass: that
    is the rematerialisation. ``partial_eval_rule`` handles a checkpoint equation that mixes
    known and unknown outputs the same way (known outputs computed now by binding the known
    half without residuals, unknown ones staged from all the inputs). Policies: ``None``
    (= ``nothing_saveable``) and ``"everything_saveable"`` (no rematerialisation: the JVP body
    is evaluated inline, residuals saved as for plain code). Lowering inlines the body, behind
    a ``stablehlo.optimization_barrier`` on its operands when ``prevent_cse`` (so XLA does not
    merge the recomputation with the forward computation).

Example:
    >>> import funcarray as fa
    >>> import funcarray.numpy as fnp
    >>> print(fa.make_ir(fa.checkpoint(fnp.sin))(fnp.ones(2)))
    { lambda ; a:f32[2]. let
        b:f32[2] = checkpoint[
          call={ lambda ; a:f32[2]. let
              b:f32[2] = sin a
            in (b) }
          name=sin
          policy=None
          prevent_cse=True
        ] a
      in (b) }
"""

from __future__ import annotations

from funcarray.lowering.stablehlo import lower_inline
from funcarray.primitives.remat_policies import equation_saveable, everything_saveable
from funcarray.transforms.core import (
    Primitive,
    UnexpectedTracerError,
    current_trace,
    set_current_trace,
)
from funcarray.transforms.ir import IR, dce, eval_ir
from funcarray.transforms.ir_transforms import (
    batch_ir,
    check_operands,
    jvp_ir,
    memoized,
    stage_call,
    transpose_ir,
)
from funcarray.transforms.jvp import Zero, instantiate, tangent_aval
from funcarray.transforms.partial_eval import partial_eval_ir
from funcarray.transforms.staging import StagingTrace
from funcarray.transforms.transpose import is_undefined
from funcarray.transforms.vmap import bdim_at_front, move_batch_axes, vmap_flat

__all__ = ["custom_jvp_call_p", "custom_vjp_call_p", "custom_vjp_linear_p", "checkpoint_p",
           "BatchedJVPRule", "BatchedVJPRule", "FORWARD_MODE_ERROR"]

FORWARD_MODE_ERROR = (
    "can't apply forward-mode autodiff (jvp, jacfwd, linearize's forward map) to a custom_vjp "
    "function '{name}'. A custom_vjp function has a reverse-mode rule only: use grad, vjp or "
    "jacrev, or define the function with custom_jvp instead.")



# --------------------------------------------------------------------------------------------
# Shared pieces
# --------------------------------------------------------------------------------------------

def _check_operands(what: str, avals, ir: IR) -> None:
    check_operands(what, avals, ir.in_binders)


def _body_abstract_eval(what):
    def abstract_eval(*avals, call, **params):
        _check_operands(what, avals, call)
        return [x.aval for x in call.outs]
    return abstract_eval


def _body_impl(*args, call, **params):
    return eval_ir(call, (), args)


def _body_lower(ctx, *operands, call, **params):
    return lower_inline(ctx, call, *operands)


def _axis_size(vals, dims) -> int:
    return next(v.shape[d] for v, d in zip(vals, dims) if d is not None)


def _batch_body(ir: IR, axis_size: int, in_dims=None):
    """``ir`` vectorised with every output batched along axis 0 (call form), and every input
    too unless ``in_dims`` says otherwise (0 or None per input).

    Custom rules are vmapped with the same layout, so the primitive's outputs and the rule's
    outputs always agree on where the batch axis is.
    """
    in_dims = (0,) * len(ir.in_binders) if in_dims is None else tuple(in_dims)

    def build():
        n_out = len(ir.outs)

        def fun(*args):
            outs, dims = vmap_flat(lambda *xs: eval_ir(ir, (), xs), args, list(in_dims),
                                   axis_size)
            return move_batch_axes(outs, dims, [0] * n_out, axis_size)

        avals = [v.aval if d is None else v.aval.update(shape=(axis_size, *v.aval.shape))
                 for v, d in zip(ir.in_binders, in_dims)]
        return stage_call(fun, avals)

    return memoized("batch_front", ir, (axis_size, in_dims), build)


def _unbatched(aval):
    return aval.update(shape=aval.shape[1:])


def _vmap_front(fun, args, axis_size: int) -> list:
    """``fun(*args)`` mapped over axis 0 of every arg, every output batched along axis 0."""
    outs, dims = vmap_flat(fun, list(args), [0] * len(args), axis_size)
    return move_batch_axes(outs, dims, [0] * len(outs), axis_size)


def check_closure_tangents(kind: str, name: str, const_tangents) -> None:
    """Custom rules see only the explicit arguments: a closed-over value being differentiated
    would silently get a wrong derivative, so it is an error (as in JAX)."""
    for t in const_tangents:
        if type(t) is not Zero:
            raise UnexpectedTracerError(
                f"The {kind} function '{name}' closes over a value that is being "
                f"differentiated (a traced {t.aval.str_short()} with a nonzero tangent) by "
                f"the same transform as its arguments. Its custom rule only sees the "
                f"function's explicit arguments, so that derivative would be wrong. Pass the "
                f"value as an explicit argument instead (or wrap it "
                f"in funcarray.stop_gradient if it should not be differentiated).")


# --------------------------------------------------------------------------------------------
# custom_jvp_call
# --------------------------------------------------------------------------------------------

custom_jvp_call_p = Primitive("custom_jvp_call", multiple_results=True)
custom_jvp_call_p.def_impl(_body_impl)
custom_jvp_call_p.def_abstract_eval(_body_abstract_eval("custom_jvp_call"))
custom_jvp_call_p.def_lower(_body_lower)


@custom_jvp_call_p.def_jvp
def _custom_jvp_call_jvp(primals, tangents, *, call, jvp, num_consts, symbolic_zeros):
    if _only_closure_differentiated(tangents, num_consts):
        return _closure_jvp(custom_jvp_call_p, primals, tangents, call,
                            dict(jvp=jvp, num_consts=num_consts, symbolic_zeros=symbolic_zeros))
    check_closure_tangents("custom_jvp", jvp.name, tangents[:num_consts])
    return jvp(list(primals), list(tangents))


def _only_closure_differentiated(tangents, num_consts) -> bool:
    return (any(type(t) is not Zero for t in tangents[:num_consts])
            and all(type(t) is Zero for t in tangents[num_consts:]))


def _outputs_ir(ir: IR, keep) -> IR:
    """``ir`` returning only the outputs with ``keep[i]`` (equations not needed dropped)."""
    return memoized("outputs", ir, tuple(keep), lambda: dce(IR(
        ir.const_binders, ir.in_binders, ir.eqns,
        tuple(x for x, k in zip(ir.outs, keep) if k))))


def _closure_jvp(prim, primals, tangents, call, params):
    """Only closed-over values carry tangents (an outer transform differentiates what the
    function closes over): the custom rule, which is about the explicit arguments, has
    nothing to say, so the tangents come from the body's own JVP. The primal output is the
    primitive again, so transforms further out still see the custom rule."""
    nonzero = tuple(type(t) is not Zero for t in tangents)
    jcall, out_nonzero = jvp_ir(call, nonzero)
    n = len(call.outs)
    tangents_only = _outputs_ir(jcall.ir, [False] * n + [True] * (len(jcall.ir.outs) - n))
    nz_touts = iter(eval_ir(tangents_only, (), [
        *jcall.consts, *primals, *(t for t in tangents if type(t) is not Zero)]))
    primals_out = prim.bind(*primals, call=call, **params)
    return primals_out, [next(nz_touts) if nz else Zero(tangent_aval(x.aval))
                         for x, nz in zip(call.outs, out_nonzero)]


@custom_jvp_call_p.def_batch
def _custom_jvp_call_batch(vals, dims, *, call, jvp, num_consts, symbolic_zeros):
    size = _axis_size(vals, dims)
    body = _batch_body(call, size)
    n_extra = len(body.consts)
    outs = custom_jvp_call_p.bind(
        *body.consts, *bdim_at_front(vals, dims), call=body.ir,
        jvp=BatchedJVPRule(jvp, size, n_extra), num_consts=num_consts + n_extra,
        symbolic_zeros=symbolic_zeros)
    return outs, [0] * len(outs)


@custom_jvp_call_p.def_transpose
def _custom_jvp_call_transpose(cts, *invals, call, jvp, num_consts, symbolic_zeros):
    # Reached only when the custom function is applied to tangents inside another rule: the
    # body is then linear in them and is transposed as plain code.
    return _transpose_body(cts, invals, call, lambda tcall, operands: eval_ir(
        tcall.ir, (), operands))


def _transpose_body(cts, invals, call, apply) -> list:
    linear = tuple(is_undefined(x) for x in invals)
    ct_nonzero = tuple(type(ct) is not Zero for ct in cts)
    tcall = transpose_ir(call, linear, ct_nonzero)
    known = [x for x in invals if not is_undefined(x)]
    nonzero_cts = [ct for ct in cts if type(ct) is not Zero]
    outs = iter(apply(tcall, [*tcall.consts, *known, *nonzero_cts]))
    return [next(outs) if lin else None for lin in linear]


class BatchedJVPRule:
    """A flat jvp rule for the vectorised primitive: ``inner`` mapped over axis 0.

    Operands: ``n_extra`` constants of the batched body (never differentiated), then the
    original operands, all batched along axis 0 (as are their tangents).
    """

    def __init__(self, inner, axis_size: int, n_extra: int):
        self.inner = inner
        self.axis_size = axis_size
        self.n_extra = n_extra
        self.name = inner.name

    def __repr__(self):
        return f"vmap({self.inner!r})"

    def __call__(self, primals, tangents):
        primals, tangents = primals[self.n_extra:], tangents[self.n_extra:]
        nonzero = [type(t) is not Zero for t in tangents]
        n = len(primals)
        record = {}

        def per_example(*xs):
            ts = iter(xs[n:])
            inner_tangents = [next(ts) if nz else Zero(_unbatched(t.aval))
                              for t, nz in zip(tangents, nonzero)]
            outs, touts = self.inner(list(xs[:n]), inner_tangents)
            record["out_nonzero"] = [type(t) is not Zero for t in touts]
            return [*outs, *(t for t in touts if type(t) is not Zero)]

        vals = _vmap_front(per_example, [*primals, *(t for t in tangents if type(t) is not Zero)],
                           self.axis_size)
        out_nonzero = record["out_nonzero"]
        primals_out, nz_touts = vals[:len(out_nonzero)], iter(vals[len(out_nonzero):])
        tangents_out = [next(nz_touts) if nz else Zero(tangent_aval(p.aval))
                        for p, nz in zip(primals_out, out_nonzero)]
        return primals_out, tangents_out


# --------------------------------------------------------------------------------------------
# custom_vjp_call and custom_vjp_linear
# --------------------------------------------------------------------------------------------

custom_vjp_call_p = Primitive("custom_vjp_call", multiple_results=True)
custom_vjp_call_p.def_impl(_body_impl)
custom_vjp_call_p.def_abstract_eval(_body_abstract_eval("custom_vjp_call"))
custom_vjp_call_p.def_lower(_body_lower)


@custom_vjp_call_p.def_jvp
def _custom_vjp_call_jvp(primals, tangents, *, call, rule, num_consts):
    if _only_closure_differentiated(tangents, num_consts):
        return _closure_jvp(custom_vjp_call_p, primals, tangents, call,
                            dict(rule=rule, num_consts=num_consts))
    check_closure_tangents("custom_vjp", rule.name, tangents[:num_consts])
    return custom_vjp_rule_jvp(rule, primals, tangents, tuple(x.aval for x in call.outs))


def custom_vjp_rule_jvp(rule, primals, tangents, out_avals=None):
    """The jvp of a custom_vjp call through its rule: ``rule.fwd`` on the primals, the
    tangents through ``custom_vjp_linear`` (transposed by ``bwd``). Also used by
    ``custom_vjp`` itself when a JVP trace meets the call unstaged: ``out_avals`` None, read
    from ``rule.out_avals`` once ``fwd`` has set them."""
    primals_out, residuals = rule.fwd(list(primals))
    mask = tuple(type(t) is not Zero for t in tangents)
    out_avals = tuple(rule.out_avals) if out_avals is None else out_avals
    linear_outs = custom_vjp_linear_p.bind(
        *residuals, *(t for t in tangents if type(t) is not Zero), rule=rule,
        num_res=len(residuals), tangent_mask=mask, out_avals=out_avals)
    tangents_out = [t if _differentiable(a) else Zero(tangent_aval(a))
                    for t, a in zip(linear_outs, out_avals)]
    return primals_out, tangents_out


def _differentiable(aval) -> bool:
    from funcarray.base.dtypes import is_inexact

    return is_inexact(aval.dtype)


@custom_vjp_call_p.def_batch
def _custom_vjp_call_batch(vals, dims, *, call, rule, num_consts):
    size = _axis_size(vals, dims)
    body = _batch_body(call, size)
    n_extra = len(body.consts)
    outs = custom_vjp_call_p.bind(
        *body.consts, *bdim_at_front(vals, dims), call=body.ir,
        rule=BatchedVJPRule(rule, size, n_extra), num_consts=num_consts + n_extra)
    return outs, [0] * len(outs)


class BatchedVJPRule:
    """``fwd``/``bwd`` of the vectorised primitive: ``inner``'s mapped over axis 0 (operands,
    outputs, residuals and cotangents all batched along axis 0)."""

    def __init__(self, inner, axis_size: int, n_extra: int):
        self.inner = inner
        self.axis_size = axis_size
        self.n_extra = n_extra
        self.name = inner.name

    def __repr__(self):
        return f"vmap({self.inner!r})"

    def fwd(self, operands):
        record = {}

        def per_example(*xs):
            outs, res = self.inner.fwd(list(xs))
            record["n_out"] = len(outs)
            return [*outs, *res]

        vals = _vmap_front(per_example, operands[self.n_extra:], self.axis_size)
        return vals[:record["n_out"]], vals[record["n_out"]:]

    def bwd(self, residuals, cts):
        record = {}
        n_res = len(residuals)

        def per_example(*xs):
            cts_in = self.inner.bwd(list(xs[:n_res]), list(xs[n_res:]))
            record["n_in"] = len(cts_in)
            record["present"] = [i for i, c in enumerate(cts_in) if c is not None]
            return [cts_in[i] for i in record["present"]]

        vals = _vmap_front(per_example, [*residuals, *cts], self.axis_size)
        result = [None] * (self.n_extra + record["n_in"])
        for i, v in zip(record["present"], vals):
            result[self.n_extra + i] = v
        return result


custom_vjp_linear_p = Primitive("custom_vjp_linear", multiple_results=True)


@custom_vjp_linear_p.def_abstract_eval
def _custom_vjp_linear_abstract_eval(*avals, rule, num_res, tangent_mask, out_avals):
    return [tangent_aval(a) for a in out_avals]


def _forward_mode_error(*args, rule, **params):
    raise TypeError(FORWARD_MODE_ERROR.format(name=rule.name))


custom_vjp_linear_p.def_impl(_forward_mode_error)
custom_vjp_linear_p.def_lower(lambda ctx, *operands, **params: _forward_mode_error(**params))
custom_vjp_linear_p.def_batch(lambda vals, dims, **params: _forward_mode_error(**params))
custom_vjp_linear_p.def_jvp(lambda primals, tangents, **params: _forward_mode_error(**params))


@custom_vjp_linear_p.def_transpose
def _custom_vjp_linear_transpose(cts, *invals, rule, num_res, tangent_mask, out_avals):
    residuals = list(invals[:num_res])
    cts = [instantiate(ct) for ct in cts]
    cts_in = rule.bwd(residuals, cts)  # one per operand of custom_vjp_call (None: zero)
    tangent_cts = [ct for ct, m in zip(cts_in, tangent_mask) if m]
    result = [None] * num_res
    for x, ct in zip(invals[num_res:], tangent_cts):
        result.append(ct if is_undefined(x) else None)
    return result


# --------------------------------------------------------------------------------------------
# checkpoint (remat)
# --------------------------------------------------------------------------------------------

checkpoint_p = Primitive("checkpoint", multiple_results=True)
checkpoint_p.def_impl(_body_impl)
checkpoint_p.def_abstract_eval(_body_abstract_eval("checkpoint"))


def _policy_split(call: IR, unknowns: tuple, policy):
    """``partial_eval_ir`` of ``call`` where only what ``policy`` accepts may be a residual
    (None, i.e. nothing_saveable: only the inputs)."""
    def build():
        saveable = _never_saveable if policy is None else equation_saveable(policy)
        return partial_eval_ir(call, unknowns, saveable=saveable)
    return memoized("checkpoint_split", call, (unknowns, policy), build)


def _never_saveable(eqn) -> bool:
    return False


def _bind_split(split, known_args, unknown_args, params, stage_unknown):
    """Run ``split``'s known half on ``known_args`` as a checkpoint (computed now when they
    are concrete), then ``stage_unknown(operands, unknown_params)`` on the residuals and
    ``unknown_args``; the outputs in the original order."""
    n_known_outs = len(split.known.outs) - split.num_residuals
    if split.known.eqns:
        known_results = checkpoint_p.bind(*known_args, **{**params, "call": split.known})
    else:  # only inputs pass through: nothing to compute
        known_results = eval_ir(split.known, (), known_args)
    known_outs = iter(known_results[:n_known_outs])
    unknown_outs = iter(())
    if any(split.out_unknowns):
        residuals = known_results[n_known_outs:]
        unknown_outs = iter(stage_unknown([*residuals, *unknown_args],
                                          {**params, "call": split.unknown}))
    return [next(unknown_outs) if u else next(known_outs) for u in split.out_unknowns]


@checkpoint_p.def_jvp
def _checkpoint_jvp(primals, tangents, *, call, prevent_cse, policy, name):
    nonzero = tuple(type(t) is not Zero for t in tangents)
    jcall, out_nonzero = jvp_ir(call, nonzero)
    known = [*jcall.consts, *primals]
    nonzero_tangents = [t for t in tangents if type(t) is not Zero]
    params = dict(prevent_cse=prevent_cse, policy=policy, name=name)
    n = len(call.outs)
    if policy is everything_saveable:  # no rematerialisation: differentiate as plain code
        outs = eval_ir(jcall.ir, (), [*known, *nonzero_tangents])
    elif isinstance(current_trace(), StagingTrace) and any(out_nonzero):
        # The JVP is being staged (linearize, or a jit body being differentiated): a
        # checkpoint computing the primal outputs and the residuals the policy saves (known:
        # computed now), and one computing the tangents from those residuals and the tangent
        # inputs, recomputing every other value it needs. The backward pass transposes the
        # second (``transpose_ir`` evaluates its known equations forwards inside the
        # transposed body): that is the rematerialisation.
        unknowns = (False,) * len(known) + (True,) * len(nonzero_tangents)
        split = _policy_split(jcall.ir, unknowns, policy)
        outs = _bind_split(split, known, nonzero_tangents, params,
                           lambda operands, ps: checkpoint_p.bind(*operands, **ps))
    else:
        outs = checkpoint_p.bind(*known, *nonzero_tangents, call=jcall.ir, **params)
    nz_touts = iter(outs[n:])
    tangents_out = [next(nz_touts) if nz else Zero(tangent_aval(x.aval))
                    for x, nz in zip(call.outs, out_nonzero)]
    return outs[:n], tangents_out


def _checkpoint_partial_eval(trace, args, params):
    """Known outputs and the residuals the policy saves, now; unknown outputs staged from
    those residuals and the unknown inputs (recomputing everything else)."""
    unknowns = tuple(not trace.is_known(x) for x in args)
    split = _policy_split(params["call"], unknowns, params["policy"])
    known_args = [x for x, u in zip(args, unknowns) if not u]
    unknown_args = [x for x, u in zip(args, unknowns) if u]
    with set_current_trace(trace.parent):
        return _bind_split(split, known_args, unknown_args, params,
                           lambda operands, ps: trace.record(checkpoint_p, operands, ps))


checkpoint_p.partial_eval_rule = _checkpoint_partial_eval


@checkpoint_p.def_batch
def _checkpoint_batch(vals, dims, *, call, prevent_cse, policy, name):
    bcall, out_dims = batch_ir(call, tuple(dims), _axis_size(vals, dims))
    outs = checkpoint_p.bind(*bcall.consts, *vals, call=bcall.ir, prevent_cse=prevent_cse,
                             policy=policy, name=name)
    return outs, list(out_dims)


@checkpoint_p.def_transpose
def _checkpoint_transpose(cts, *invals, call, prevent_cse, policy, name):
    # The transposed body evaluates the known (primal) equations forwards: binding it as a
    # checkpoint keeps that recomputation inside the backward pass.
    def apply(tcall, operands):
        return checkpoint_p.bind(*operands, call=tcall.ir, prevent_cse=prevent_cse,
                                 policy=policy, name=name)
    return _transpose_body(cts, invals, call, apply)


@checkpoint_p.def_lower
def _checkpoint_lower(ctx, *operands, call, prevent_cse, policy, name):
    if prevent_cse and operands:
        operands = ctx.op("stablehlo.optimization_barrier", *operands,
                          results=[ctx.type_of(x) for x in operands])
    return lower_inline(ctx, call, *operands)
