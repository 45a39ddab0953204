"""Reverse mode: linearize (JVP + online partial evaluation), then transpose.

``linearize_flat`` runs the function once under a ``JVPTrace`` whose parent is a
``StagingTrace`` with constant folding:

* primal computations (in the function and inside jvp rules) touch no tangent, so the staging
  trace folds them: they run right away on the enclosing trace, with concrete values when the
  enclosing trace is the eager one. Python control flow on primal values, ``print`` and
  ``pdb`` therefore work inside ``grad``, as they do eagerly;
* tangent computations are recorded as IR: a linear function of the input tangents whose
  constants (the residuals) are primal values.

``vjp_flat`` transposes that linear IR with ``backward_pass``. Every step binds primitives
through the current trace, so all of this nests: ``grad(grad(f))`` differentiates the first
grad's primal and backward computations with the second.

Example:
    >>> import funcarray.numpy as fnp
    >>> out, f_vjp = vjp_flat(lambda x: [fnp.sin(x)], [fnp.zeros(2)])
    >>> f_vjp([fnp.ones(2)])
    [Array([1., 1.], dtype=float32)]
"""

from __future__ import annotations

from funcarray.transforms.core import current_trace, set_current_trace
from funcarray.transforms.ir import ClosedIR
from funcarray.transforms.jvp import JVPTrace, JVPTracer, Zero, instantiate, tangent_aval
from funcarray.transforms.staging import StagingTrace
from funcarray.transforms.transpose import backward_pass

__all__ = ["linearize_flat", "vjp_flat", "vjp_flat_residuals", "is_differentiable"]


def is_differentiable(x) -> bool:
    """Float and complex values have tangents; integer and bool values do not."""
    kind = x.dtype.kind
    return kind in "fc" or x.dtype.name in ("bfloat16",) or x.dtype.name.startswith("float")


def linearize_flat(fun, primals):
    """Run ``fun`` on ``primals`` and stage its linearisation.

    Returns ``(primals_out, linear, mask)``: the outputs, a ``ClosedIR`` mapping the tangents
    of the differentiable inputs (``mask[i]`` True) to the output tangents, and the mask.
    """
    stage = StagingTrace(current_trace(), fold_constants=True)
    jvp_trace = JVPTrace(stage)
    mask = [is_differentiable(p) for p in primals]
    tracers = [JVPTracer(jvp_trace, p, stage.new_arg(tangent_aval(p.aval))) if m else p
               for p, m in zip(primals, mask)]
    with set_current_trace(jvp_trace):
        outs = fun(*tracers)
    primals_out, tangents_out = [], []
    for out in outs:
        p, t = jvp_trace._split(out)
        primals_out.append(p)
        tangents_out.append(t)
    with set_current_trace(stage):
        tangents_out = [instantiate(t) for t in tangents_out]
    linear: ClosedIR = stage.to_closed_ir(tangents_out)
    return primals_out, linear, mask


def vjp_flat(fun, primals):
    """``(primals_out, f_vjp)`` where ``f_vjp(cotangents_out)`` returns one cotangent per
    primal (zeros of the primal's dtype for integer and bool primals)."""
    primals_out, pullback, residuals = vjp_flat_residuals(fun, primals)
    return primals_out, lambda cotangents_out: pullback(residuals, cotangents_out)


def vjp_flat_residuals(fun, primals):
    """``vjp_flat`` with the residuals apart: ``(primals_out, pullback, residuals)`` where
    ``pullback(residuals, cotangents_out)`` returns one cotangent per primal (those of the
    integer and bool primals as ``Zero`` objects with ``instantiate_zeros=False``). ``residuals``
    (a tuple of arrays) is everything the backward pass reads of the forward one, so
    ``fa.vjp`` can return its function as a pytree whose leaves are the residuals (JAX's
    ``Partial``): it can then cross ``jit`` or be a ``custom_vjp`` residual itself."""
    primals_out, linear, mask = linearize_flat(fun, primals)
    out_avals = [p.aval for p in primals_out]

    def pullback(residuals, cotangents_out, instantiate_zeros=True):
        if len(cotangents_out) != len(out_avals):
            raise TypeError(f"vjp: expected {len(out_avals)} cotangents, got "
                            f"{len(cotangents_out)}")
        for i, (ct, aval) in enumerate(zip(cotangents_out, out_avals)):
            if type(ct) is not Zero and (ct.shape != aval.shape or ct.dtype != aval.dtype):
                raise TypeError(
                    f"vjp: cotangent {i} has type {ct.aval.str_short()} but the output it "
                    f"belongs to is {aval.str_short()}; cotangents must match the outputs' "
                    f"shapes and dtypes")
        cts = iter(backward_pass(linear.ir, residuals, cotangents_out))
        if not instantiate_zeros:  # (fa.vjp shows these as float0 arrays)
            return [next(cts) if m else Zero(tangent_aval(p.aval))
                    for p, m in zip(primals, mask)]
        return [next(cts) if m else instantiate(Zero(tangent_aval(p.aval)))
                for p, m in zip(primals, mask)]

    return primals_out, pullback, tuple(linear.consts)
