"""``shard_map``: a staged body run once per device on its block of each operand, lowered to
Shardy's ``sdy.manual_computation`` (the public wrapper is ``api/shard_map.py``).

``shard_map_p.bind(*operands, ir=IR, mesh=Mesh, in_specs=(P, ...), out_specs=(P, ...),
check_vma=bool, manual_axes=(name, ...))`` applies ``ir`` (call form, staged at the
per-device block shapes) on every device of ``mesh``; ``in_specs``/``out_specs`` give one
PartitionSpec per operand and per result, naming ``manual_axes`` only (all of the mesh's, or
those of ``shard_map(axis_names=)``: the other axes stay automatic, the body's values are
whole along them and XLA's partitioner splits them). Collectives in ``ir`` name mesh axes;
while the body is lowered, ``manual_mesh()`` returns the mesh (``manual_axes()`` its manual
axes), so their lowering rules (``collectives_lowering.py``) emit XLA collectives with
replica groups over the mesh's partitions.

Rules, after jit's (``jit_call.py``): jvp binds shard_map on the body's JVP (tangents split
like their primals); batch binds it on the vectorised body, the batch axis unsplit (or split over
``vmap(spmd_axis_name=)``'s mesh axes);
transpose binds it on the transposed body, as JAX does without ``check_vma``: output
cotangents are divided by the size of the mesh axes their spec does not mention, and input
cotangents summed (psum) over the axes their spec does not mention, since psum transposes
to psum. Partial evaluation (linearize, grad) splits it in two as jit's does, passing the
residuals with one row per device. There is no eager kernel here: ``api/shard_map.py`` runs
it under jit.

Example:
    >>> import funcarray as fa
    >>> import funcarray.numpy as fnp
    >>> mesh = fa.make_mesh((1,), ("i",))
    >>> fa.shard_map(lambda x: fa.lax.psum(x, "i"), mesh=mesh, in_specs=fa.P("i"),
    ...              out_specs=fa.P())(fnp.arange(3.0))
    Array([0., 1., 2.], dtype=float32)
"""

from __future__ import annotations

import contextlib
import contextvars
import math

from funcarray.base.mesh import PartitionSpec
from funcarray.lowering.stablehlo import lower_inline, sharding_attribute, tensor_type, use_mesh
from funcarray.primitives import bind_ops as ops
from funcarray.primitives.collectives import psum_p
from funcarray.transforms.core import Primitive, set_current_trace
from funcarray.transforms.ir import Eqn, Var
from funcarray.transforms.ir_transforms import batch_ir, check_operands, jvp_ir, transpose_ir
from funcarray.transforms.jvp import Zero, tangent_aval
from funcarray.transforms.partial_eval import partial_eval_ir
from funcarray.transforms.transpose import is_undefined
from funcarray.transforms.vmap import rule_spmd_axis_name

__all__ = ["shard_map_p", "manual_mesh", "manual_axes", "block_shape", "global_shape",
           "unmentioned_axes"]

shard_map_p = Primitive("shard_map", multiple_results=True)

_MANUAL = contextvars.ContextVar("funcarray_manual_mesh", default=None)


def manual_mesh():
    """The mesh of the ``sdy.manual_computation`` being lowered, or None outside one."""
    found = _MANUAL.get()
    return None if found is None else found[0]


def manual_axes() -> tuple:
    """The mesh axes the ``sdy.manual_computation`` being lowered is manual over (all of its
    mesh's, or those of ``shard_map(axis_names=)``), or () outside one."""
    found = _MANUAL.get()
    return () if found is None else found[1]


@contextlib.contextmanager
def _manual(mesh, axes):
    token = _MANUAL.set((mesh, axes))
    try:
        yield
    finally:
        _MANUAL.reset(token)


def _split_count(mesh, spec, dim: int) -> int:
    return math.prod(mesh.shape[a] for a in spec.axes_of(dim)) if dim < len(spec) else 1


def block_shape(mesh, spec, shape, what: str) -> tuple:
    """The per-device block of a global ``shape`` split by ``spec`` over ``mesh`` (JAX's
    ValueError when ``spec`` is longer than the rank or a dimension does not divide)."""
    if len(spec) > len(shape):
        raise ValueError(f"shard_map: {what} has spec {spec!r} of length {len(spec)}, but its "
                         f"value has rank {len(shape)}")
    out = []
    for k, size in enumerate(shape):
        n = _split_count(mesh, spec, k)
        if size % n:
            raise ValueError(f"shard_map: {what} of shape {tuple(shape)} has dimension {k} of "
                             f"size {size}, not divisible by {n} (the mesh axes "
                             f"{spec.axes_of(k)} of spec {spec!r})")
        out.append(size // n)
    return tuple(out)


def global_shape(mesh, spec, shape) -> tuple:
    """The global shape of results whose per-device blocks are ``shape``."""
    return tuple(size * _split_count(mesh, spec, k) for k, size in enumerate(shape))


def unmentioned_axes(manual_axes, spec) -> tuple:
    """The manual mesh axes ``spec`` does not split over (the value is replicated over
    them)."""
    used = {a for k in range(len(spec)) for a in spec.axes_of(k)}
    return tuple(a for a in manual_axes if a not in used)


@shard_map_p.def_abstract_eval
def _abstract_eval(*avals, ir, mesh, in_specs, out_specs, check_vma, manual_axes):
    blocks = [a.update(shape=block_shape(mesh, s, a.shape, f"argument {k}"))
              for k, (a, s) in enumerate(zip(avals, in_specs))]
    check_operands("shard_map", blocks, ir.in_binders)
    return [x.aval.update(shape=global_shape(mesh, s, x.aval.shape))
            for x, s in zip(ir.outs, out_specs)]


def _params(mesh, check_vma, manual_axes, **specs):
    return dict(mesh=mesh, check_vma=check_vma, manual_axes=manual_axes, **specs)


@shard_map_p.def_jvp
def _jvp(primals, tangents, *, ir, mesh, in_specs, out_specs, check_vma, manual_axes):
    nonzero = tuple(type(t) is not Zero for t in tangents)
    call, out_nonzero = jvp_ir(ir, nonzero)
    consts = tuple(call.consts)
    specs_in = ((PartitionSpec(),) * len(consts) + tuple(in_specs)
                + tuple(s for s, nz in zip(in_specs, nonzero) if nz))
    specs_out = (tuple(out_specs)
                 + tuple(s for s, nz in zip(out_specs, out_nonzero) if nz))
    operands = [*consts, *primals, *(t for t in tangents if type(t) is not Zero)]
    outs = shard_map_p.bind(*operands, ir=call.ir, in_specs=specs_in, out_specs=specs_out,
                            **_params(mesh, check_vma, manual_axes))
    n = len(ir.outs)
    primals_out, nonzero_tangents = outs[:n], iter(outs[n:])
    tangents_out = [next(nonzero_tangents) if nz else Zero(tangent_aval(o.aval))
                    for o, nz in zip(primals_out, out_nonzero)]
    return primals_out, tangents_out


@shard_map_p.def_transpose
def _transpose(cts, *invals, ir, mesh, in_specs, out_specs, check_vma, manual_axes):
    linear = tuple(is_undefined(x) for x in invals)
    # An output replicated over some mesh axes holds one value per device of those axes and
    # the body's psum transposes to psum: divide, so that the copies count once (JAX's rule
    # without check_vma).
    scaled = []
    for ct, spec in zip(cts, out_specs):
        n = math.prod(mesh.shape[a] for a in unmentioned_axes(manual_axes, spec))
        if type(ct) is not Zero and n > 1:
            ct = ops.div(ct, ops.full_like(ct, n))
        scaled.append(ct)
    ct_nonzero = tuple(type(ct) is not Zero for ct in scaled)
    call = transpose_ir(ir, linear, ct_nonzero)
    consts = tuple(call.consts)
    known = [x for x in invals if not is_undefined(x)]
    specs_in = ((PartitionSpec(),) * len(consts)
                + tuple(s for s, lin in zip(in_specs, linear) if not lin)
                + tuple(s for s, nz in zip(out_specs, ct_nonzero) if nz))
    lin_specs = tuple(s for s, lin in zip(in_specs, linear) if lin)
    summed = _sum_replicas(call.ir, manual_axes, lin_specs)
    outs = iter(shard_map_p.bind(*consts, *known, *(c for c in scaled if type(c) is not Zero),
                                 ir=summed, in_specs=specs_in, out_specs=lin_specs,
                                 **_params(mesh, check_vma, manual_axes)))
    return [next(outs) if lin else None for lin in linear]


def _sum_replicas(ir, manual_axes, specs):
    """``ir`` followed by a psum of each output over the mesh axes its spec leaves out (a
    replicated input's cotangent is the sum of every device's)."""
    from funcarray.transforms.ir import eval_ir
    from funcarray.transforms.ir_transforms import stage_call

    if all(not unmentioned_axes(manual_axes, s) for s in specs):
        return ir

    def fun(*args):
        outs = eval_ir(ir, (), args)
        return [psum_p.bind(o, axis_name=unmentioned_axes(manual_axes, s))
                if unmentioned_axes(manual_axes, s) and type(o) is not Zero else o
                for o, s in zip(outs, specs)]

    call = stage_call(fun, [v.aval for v in ir.in_binders])
    assert not call.consts
    return call.ir


@shard_map_p.def_batch
def _batch(vals, dims, *, ir, mesh, in_specs, out_specs, check_vma, manual_axes):
    # The batch axis is not split over the mesh, unless vmap(spmd_axis_name=) names mesh
    # axes: then each device runs its part of the batch (the body is batched at that size).
    spmd = rule_spmd_axis_name()
    axis_size = next(v.shape[d] for v, d in zip(vals, dims) if d is not None)
    entry = None
    if spmd is not None:
        for a in spmd:
            if a not in manual_axes:
                raise ValueError(f"vmap: spmd_axis_name {a!r} is not a manual axis "
                                 f"{manual_axes} of the shard_map inside (over mesh {mesh})")
        split = math.prod(mesh.shape[a] for a in spmd)
        if axis_size % split:
            raise ValueError(f"vmap: the batch of {axis_size} does not divide over "
                             f"spmd_axis_name {spmd} ({split} devices)")
        axis_size //= split
        entry = spmd[0] if len(spmd) == 1 else spmd
        used = {a for s in (*in_specs, *out_specs) for k in range(len(s)) for a in s.axes_of(k)}
        if used & set(spmd):
            raise ValueError(f"vmap: spmd_axis_name {spmd} is already used by the specs of "
                             f"the shard_map inside")
    call, out_dims = batch_ir(ir, tuple(dims), axis_size)
    specs_in = (PartitionSpec(),) * len(call.consts) + tuple(
        s if d is None else _insert(s, d, entry) for s, d in zip(in_specs, dims))
    specs_out = tuple(s if d is None else _insert(s, d, entry)
                      for s, d in zip(out_specs, out_dims))
    outs = shard_map_p.bind(*call.consts, *vals, ir=call.ir, in_specs=specs_in,
                            out_specs=specs_out, **_params(mesh, check_vma, manual_axes))
    return outs, list(out_dims)


def _insert(spec, dim: int, entry):
    parts = list(spec) + [None] * max(0, dim - len(spec))
    parts.insert(dim, entry)
    return PartitionSpec(*parts)


@shard_map_p.def_lower
def _lower(ctx, *operands, ir, mesh, in_specs, out_specs, check_vma, manual_axes):
    from funcarray.base.sharding import NamedSharding

    use_mesh(ctx._builder, mesh)

    partial = len(manual_axes) < len(mesh.axis_names)

    def attr(spec, ndim):
        if partial:  # every dimension open to the automatic axes, as jax writes it
            dims = ", ".join("{" + "".join(f'"{a}", ' for a in spec.axes_of(k)) + "?}"
                             for k in range(ndim))
            return f"<@mesh, [{dims}]>"
        text = sharding_attribute(NamedSharding(mesh, spec), ndim)
        return text[len("#sdy.sharding"):]  # '<@mesh, [...]>'

    ins = ", ".join(attr(s, a.ndim) for s, a in zip(in_specs, ctx.avals_in))
    outs = ", ".join(attr(s, a.ndim) for s, a in zip(out_specs, ctx.avals_out))
    axes = ", ".join(f'"{a}"' for a in manual_axes)
    names = [ctx.fresh(a) for a in ctx.avals_out]
    in_types = ", ".join(tensor_type(ctx.type_of(x)) for x in operands)
    out_types = ", ".join(tensor_type(a) for a in ctx.avals_out)
    lhs = f"{', '.join(names)} = " if names else ""
    ctx.emit(f'{lhs}"sdy.manual_computation"({", ".join(operands)}) ({{')
    builder = ctx._builder
    saved = builder.indent
    builder.indent = saved + "  "
    args = [ctx.fresh(v.aval) for v in ir.in_binders]
    ctx.emit("^bb0(" + ", ".join(f"{a}: {tensor_type(v.aval)}" for a, v in
                                  zip(args, ir.in_binders)) + "):")
    builder.indent = saved + "    "
    try:
        with _manual(mesh, manual_axes):
            results = lower_inline(ctx, ir, *args)
        types = ", ".join(tensor_type(x.aval) for x in ir.outs)
        ctx.emit(f'"sdy.return"({", ".join(results)}) : ({types}) -> ()')
    finally:
        builder.indent = saved
    ctx.emit(f"}}) {{in_shardings = #sdy.sharding_per_value<[{ins}]>, manual_axes = "
             f"#sdy<manual_axes{{{axes}}}>, out_shardings = #sdy.sharding_per_value<[{outs}]>}}"
             f" : ({in_types}) -> ({out_types})")
    return names


# --- partial evaluation (linearize, grad) ------------------------------------------------------
# As jit's, split into a known shard_map (run now) and an unknown one (staged). Residuals are
# per-device values: the known half returns each with a leading axis of size 1 split over every
# mesh axis (one row per device) and the unknown half takes them back the same way, as JAX does.


def _residual_spec(manual_axes) -> PartitionSpec:
    return PartitionSpec(tuple(manual_axes))


def _restaged(ir, fun, n_lifted: int = 0):
    """``fun(eval_ir, args)`` staged on ``ir``'s inputs, the first ``n_lifted`` of them with a
    leading axis of size 1."""
    from funcarray.transforms.ir import eval_ir
    from funcarray.transforms.ir_transforms import stage_call

    avals = [v.aval.update(shape=(1, *v.aval.shape)) if k < n_lifted else v.aval
             for k, v in enumerate(ir.in_binders)]
    call = stage_call(lambda *args: fun(eval_ir, args), avals)
    assert not call.consts
    return call.ir


def _split(ir, unknowns, manual_axes, in_specs, out_specs):
    """``(known_ir, known_in_specs, known_out_specs, unknown_ir, unknown_in_specs,
    unknown_out_specs, out_unknowns, n_residuals)``."""
    split = partial_eval_ir(ir, unknowns)
    n_res = split.num_residuals
    n_known_outs = len(split.known.outs) - n_res

    def expand(eval_ir, args):
        outs = eval_ir(split.known, (), args)
        return list(outs[:n_known_outs]) + [ops.reshape(r, (1, *r.shape))
                                             for r in outs[n_known_outs:]]

    def squeeze(eval_ir, args):
        res = [ops.reshape(r, r.shape[1:]) for r in args[:n_res]]
        return eval_ir(split.unknown, (), [*res, *args[n_res:]])

    res_spec = _residual_spec(manual_axes)
    known_outs = tuple(s for s, u in zip(out_specs, split.out_unknowns) if not u)
    unknown_outs = tuple(s for s, u in zip(out_specs, split.out_unknowns) if u)
    return (_restaged(split.known, expand),
            tuple(s for s, u in zip(in_specs, unknowns) if not u),
            known_outs + (res_spec,) * n_res,
            _restaged(split.unknown, squeeze, n_res),
            (res_spec,) * n_res + tuple(s for s, u in zip(in_specs, unknowns) if u),
            unknown_outs, split.out_unknowns, n_res)


def _partial_eval(trace, args, params):
    mesh, check_vma, manual_axes = params["mesh"], params["check_vma"], params["manual_axes"]
    unknowns = [not trace.is_known(x) for x in args]
    (known_ir, k_in, k_out, unknown_ir, u_in, u_out, out_unknowns,
     n_res) = _split(params["ir"], unknowns, params["manual_axes"], params["in_specs"],
            params["out_specs"])
    known_args = [x for x, u in zip(args, unknowns) if not u]
    with set_current_trace(trace.parent):
        known_outs = shard_map_p.bind(*known_args, ir=known_ir, in_specs=k_in, out_specs=k_out,
                                      **_params(mesh, check_vma, manual_axes))
    n_known = len(known_outs) - n_res
    residuals = known_outs[n_known:]
    unknown_args = [x for x, u in zip(args, unknowns) if u]
    staged = trace.record(shard_map_p, [*residuals, *unknown_args],
                          dict(ir=unknown_ir, in_specs=u_in, out_specs=u_out,
                               **_params(mesh, check_vma, manual_axes)))
    known_iter, staged_iter = iter(known_outs[:n_known]), iter(staged)
    return [next(staged_iter) if u else next(known_iter) for u in out_unknowns]


shard_map_p.partial_eval_rule = _partial_eval


def _partial_eval_eqn(eqn, unknowns):
    params = eqn.params
    mesh = params["mesh"]
    (known_ir, k_in, k_out, unknown_ir, u_in, u_out, out_unknowns,
     n_res) = _split(params["ir"], unknowns, params["manual_axes"], params["in_specs"],
            params["out_specs"])
    # (the residual variables hold global values: one row per device)
    local = known_ir.outs[len(known_ir.outs) - n_res:]
    residuals = [Var(v.aval.update(shape=global_shape(mesh, s, v.aval.shape)))
                 for s, v in zip(k_out[len(k_out) - n_res:], local)]
    known_outs = [v for v, u in zip(eqn.outs, out_unknowns) if not u]
    unknown_outs = [v for v, u in zip(eqn.outs, out_unknowns) if u]
    known = Eqn(shard_map_p, tuple(x for x, u in zip(eqn.inputs, unknowns) if not u),
                {**params, "ir": known_ir, "in_specs": k_in, "out_specs": k_out},
                tuple(known_outs + residuals))
    unknown = Eqn(shard_map_p,
                  tuple(residuals) + tuple(x for x, u in zip(eqn.inputs, unknowns) if u),
                  {**params, "ir": unknown_ir, "in_specs": u_in, "out_specs": u_out},
                  tuple(unknown_outs))
    return known, (unknown if unknown_outs else None)


shard_map_p.partial_eval_eqn_rule = _partial_eval_eqn
