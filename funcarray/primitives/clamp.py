"""The ``clamp`` primitive, with all its rules: ``clamp(lo, x, hi)`` is
``min(max(x, lo), hi)``, where ``lo`` and ``hi`` have ``x``'s dtype and are scalars or have its
shape; ``max``/``min`` propagate NaN, and complex values are ordered lexicographically by
(real, imag), as ``max``/``min`` order them.

Rules: the tangent is the operand's that gives the result (JAX's convention: at a tie, none).
Lowered to ``stablehlo.clamp`` with scalar bounds broadcast first (XLA wants one shape);
complex operands are clamped by the comparisons of ``max``/``min``, which XLA's complex clamp
does not follow.

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray.primitives.clamp import clamp_p
    >>> clamp_p.bind(fnp.float32(0), fnp.array([-1.0, 0.5, 2.0]), fnp.float32(1))
    Array([0. , 0.5, 1. ], dtype=float32)
"""

from __future__ import annotations

import numpy as np

from funcarray.base import dtypes
from funcarray.base.array import Array
from funcarray.primitives.elementwise import _complex_max_or_min, _const, _select, and_p, gt_p, lt_p
from funcarray.primitives.select_n import _batched_per_member_scalar, _broadcast_to_result
from funcarray.primitives.shape import broadcast_in_dim_p
from funcarray.transforms import support
from funcarray.transforms.core import Primitive, ShapedArray
from funcarray.transforms.jvp import (
    defjvp,
)
from funcarray.transforms.vmap import move_to_front, not_mapped

__all__ = ["clamp_p"]


# clamp(lo, x, hi) = min(max(x, lo), hi); lo and hi are scalars or have x's shape.
clamp_p = Primitive("clamp")
clamp_p.impl = lambda lo, x, hi: Array(np.minimum(np.maximum(x._value, lo._value), hi._value),
                                       x._weak)


@clamp_p.def_abstract_eval
def _clamp_abstract_eval(lo, x, hi):
    for bound in (lo, hi):
        if bound.dtype != x.dtype or bound.shape not in ((), x.shape):
            raise TypeError(f"clamp: bounds must be scalars or {x.str_short()}, "
                            f"got {lo.str_short()} and {hi.str_short()}")
    return ShapedArray(x.shape, x.dtype, x.weak_type)


@clamp_p.def_lower
def _clamp_lower(ctx, lo, x, hi):
    lo, hi = _broadcast_to_result(ctx, lo), _broadcast_to_result(ctx, hi)
    if dtypes.is_complex(ctx.avals_in[1].dtype):  # XLA's complex clamp ignores the spec
        return [_complex_max_or_min(ctx, _complex_max_or_min(ctx, x, lo, "GT"), hi, "LT")]
    return ctx.op("stablehlo.clamp", lo, x, hi)



def _broadcast_bound(bound, x):
    """A scalar clamp bound broadcast to ``x``'s shape (the comparisons are strict)."""
    if bound.shape == x.shape:
        return bound
    return broadcast_in_dim_p.bind(bound, shape=tuple(x.shape), broadcast_dimensions=())


def _clamp_tangent(where_active):
    """The tangent of one clamp operand: its own tangent where it is the result, else 0."""
    def tangent_fn(t, lo, x, hi):
        lo, hi = _broadcast_bound(lo, x), _broadcast_bound(hi, x)
        t = _broadcast_bound(t, x)
        return _select(where_active(lo, x, hi), _const(t, 0), t)
    return tangent_fn


# JAX's convention: at a tie (x == lo or x == hi) no operand gets the tangent.
defjvp(clamp_p,
       _clamp_tangent(lambda lo, x, hi: and_p.bind(gt_p.bind(lo, x), lt_p.bind(lo, hi))),
       _clamp_tangent(lambda lo, x, hi: and_p.bind(gt_p.bind(x, lo), lt_p.bind(x, hi))),
       _clamp_tangent(lambda lo, x, hi: lt_p.bind(hi, x)))


@clamp_p.def_batch
def _clamp_batch(vals, dims):
    lo, x, hi = vals
    lo_dim, x_dim, hi_dim = dims
    size = next(v.shape[d] for v, d in zip(vals, dims) if d is not not_mapped)
    x = move_to_front(x, x_dim, size)

    def bound(b, bdim):
        if bdim is not_mapped:
            return b if b.ndim == 0 else support.ops.broadcast_batch(b, size, 0)
        b = move_to_front(b, bdim, size)
        if b.ndim == 1 and x.ndim > 1:  # one scalar bound per batch member
            return _batched_per_member_scalar(b, x.shape, 0)
        return b

    return clamp_p.bind(bound(lo, lo_dim), x, bound(hi, hi_dim)), 0
