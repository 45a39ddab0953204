"""``qr_pivoted``: QR with column pivoting (JAX's ``qr_p`` with ``pivoting=True``).

``qr_pivoted(a, *, full_matrices) -> [q, r, p]``: ``a`` is ``(..., m, n)`` float32/float64/
complex64/complex128 (leading axes are batch axes); ``a[..., :, p] = q @ r`` with ``q``'s
columns orthonormal, ``r`` upper triangular with non-increasing ``|r[j, j]|``, and ``p``
(int32, ``(..., n)``) the column order LAPACK ``geqp3`` chooses (each step takes the remaining
column of largest norm). Shapes as ``qr``'s: with ``k = min(m, n)``, ``q`` is ``(..., m, k)``
and ``r`` ``(..., k, n)``, or ``(..., m, m)`` and ``(..., m, n)`` when ``full_matrices``.
Rules:

* eager: ``geqp3`` + ``orgqr``/``ungqr`` through jaxlib, by compiling this primitive's
  one-equation IR for the CPU (``_native_kernel.native_cpu_kernel``): NumPy has no pivoted QR,
  and the pivot order is discrete, so eager, jit and JAX must make the very same choices;
* JVP: JAX's: the permutation is piecewise constant, so ``(dq, dr)`` are the unpivoted QR's
  tangents for ``da[..., :, p]`` (``orthogonal_decompositions.qr_tangents``: ``m >= n``, and
  ``full_matrices`` only when square, as funcarray's ``qr``);
* batching: the batch axis moves to the front;
* lowering: ``geqp3`` + ``orgqr`` where ``runtime.native_linalg`` offers them (CPU);
  otherwise a host callback into the eager kernel (GPU), and NotImplementedError for a
  backend-neutral lowering.

Example:
    >>> import funcarray.numpy as fnp
    >>> q, r, p = qr_pivoted_p.bind(fnp.asarray([[1.0, 3.0], [0.0, 4.0]]), full_matrices=False)
    >>> p
    Array([1, 0], dtype=int32)
"""

from __future__ import annotations

import functools

import numpy as np

from funcarray.lowering import runtime
from funcarray.lowering.stablehlo import lower_inline
from funcarray.primitives import bind_ops as ops
from funcarray.primitives._define import wrap_kernel
from funcarray.primitives._native_kernel import lower_native_or_host, native_cpu_kernel
from funcarray.primitives.decompositions import (
    FACTORISABLE_DTYPES,
    checked_impl,
    emit_native_call,
)
from funcarray.primitives.orthogonal_decompositions import qr_tangents
from funcarray.transforms.core import Primitive, ShapedArray
from funcarray.transforms.jvp import Zero, tangent_aval
from funcarray.transforms.staging import stage_flat
from funcarray.transforms.vmap import move_to_front

__all__ = ["qr_pivoted_p"]

qr_pivoted_p = Primitive("qr_pivoted", multiple_results=True)


def _rows_of_r(m: int, n: int, full_matrices: bool) -> int:
    return m if full_matrices else min(m, n)


@qr_pivoted_p.def_abstract_eval
def _qr_pivoted_abstract_eval(a, *, full_matrices):
    if a.ndim < 2:
        raise TypeError(f"qr_pivoted: expected an array of matrices (ndim >= 2), got "
                        f"{a.str_short()}")
    if np.dtype(a.dtype) not in FACTORISABLE_DTYPES:
        raise TypeError(f"qr_pivoted: expected float32/float64/complex64/complex128 matrices, "
                        f"got {a.str_short()}; convert with .astype(float32) first")
    *batch, m, n = a.shape
    k = _rows_of_r(m, n, full_matrices)
    return [ShapedArray((*batch, m, k), a.dtype), ShapedArray((*batch, k, n), a.dtype),
            ShapedArray((*batch, n), np.int32)]


qr_pivoted_p.kernel = native_cpu_kernel(qr_pivoted_p)
qr_pivoted_p.impl = checked_impl(qr_pivoted_p,
                                 wrap_kernel(qr_pivoted_p.kernel, multiple_results=True))


@qr_pivoted_p.def_jvp
def _qr_pivoted_jvp(primals, tangents, *, full_matrices):
    (a,), (da,) = primals, tangents
    q, r, p = outs = qr_pivoted_p.bind(a, full_matrices=full_matrices)
    int_zero = Zero(tangent_aval(p.aval))
    if type(da) is Zero:
        return outs, [Zero(tangent_aval(q.aval)), Zero(tangent_aval(r.aval)), int_zero]
    m, n = a.shape[-2:]
    if m < n or (full_matrices and m != n):
        raise NotImplementedError(
            f"qr with pivoting: the derivative needs a matrix with at least as many rows as "
            f"columns (and full matrices only when square), got shape {a.shape} with "
            f"full_matrices={full_matrices}; use mode='economic' on a tall matrix")
    columns = ops.broadcast_to(ops.expand_dims(p, p.ndim - 1), da.shape)
    permuted = ops.take_along_axis(da, columns, da.ndim - 1)
    dq, dr = qr_tangents(q, r, permuted)
    return outs, [dq, dr, int_zero]


@qr_pivoted_p.def_batch
def _qr_pivoted_batch(vals, dims, *, full_matrices):
    (a,), (d,) = vals, dims
    outs = qr_pivoted_p.bind(move_to_front(a, d, a.shape[d]), full_matrices=full_matrices)
    return outs, [0, 0, 0]


@functools.lru_cache(maxsize=64)
def _finish_ir(r_aval, pivots_aval, full_matrices: bool):
    """geqp3's packed output -> (the reflectors in the shape orgqr expands into q, r, the
    0-based column order)."""
    m, n = r_aval.shape[-2:]
    k = _rows_of_r(m, n, full_matrices)

    def finish(packed, pivots):
        last = packed.ndim - 1
        if m < n:  # q is m x m: the first m columns hold every reflector
            reflectors = ops.slice_in_dim(packed, 0, m, 1, last)
        elif full_matrices and m > n:  # q is m x m: orgqr fills the extra columns
            pad = [(0, 0, 0)] * last + [(0, m - n, 0)]
            reflectors = ops.pad(packed, ops.scalar(0, packed.dtype), pad)
        else:
            reflectors = packed
        r = ops.triangle(ops.slice_in_dim(packed, 0, k, 1, last - 1), 0, lower=False)
        return [reflectors, r, ops.sub(pivots, ops.full_like(pivots, 1))]

    return stage_flat(finish, [r_aval, pivots_aval])


def _emit_geqp3(ctx, natives, a, aval, full_matrices: bool) -> list:
    geqp3, orgqr = natives
    batch, (m, n) = aval.shape[:-2], aval.shape[-2:]
    pivots_aval = ShapedArray((*batch, n), np.int32)
    taus_aval = ShapedArray((*batch, min(m, n)), aval.dtype)
    free = ctx.constant(0, pivots_aval)  # jpvt = 0: every column may be pivoted
    packed, pivots, taus = emit_native_call(ctx, geqp3, [a, free],
                                            [aval, pivots_aval, taus_aval],
                                            (True, False, False), matrix_operands=(True, False))
    reflectors, r, p = lower_inline(ctx, _finish_ir(aval, pivots_aval, full_matrices),
                                    packed, pivots)
    q_aval = ctx.avals_out[0]
    (q,) = emit_native_call(ctx, orgqr, [reflectors, taus], [q_aval], (True,),
                            matrix_operands=(True, False))
    return [q, r, p]


@functools.lru_cache(maxsize=64)
def _empty_ir(aval, full_matrices: bool):
    """JAX's result for an empty matrix (LAPACK would divide by zero): ``q`` the identity's
    first columns, ``r`` zeros and ``p`` zeros."""
    def empty(a):
        q_aval, r_aval, p_aval = _qr_pivoted_abstract_eval(aval, full_matrices=full_matrices)
        m, k = q_aval.shape[-2:]
        q = ops.broadcast_to(ops.eye(m, a.dtype, k), q_aval.shape)
        return [q, ops.full(r_aval.shape, 0, a.dtype), ops.full(p_aval.shape, 0, np.int32)]

    return stage_flat(empty, [aval])


@qr_pivoted_p.def_lower
def _qr_pivoted_lower(ctx, a, *, full_matrices):
    aval = ctx.avals_in[0]
    if 0 in aval.shape[-2:]:
        return lower_inline(ctx, _empty_ir(aval, full_matrices), a)
    natives = (runtime.native_linalg(ctx.platform, "qr_pivoted", aval.dtype),
               runtime.native_linalg(ctx.platform, "householder_product", aval.dtype))
    return lower_native_or_host(
        ctx, qr_pivoted_p, [a], {"full_matrices": full_matrices},
        None if None in natives else natives,
        lambda ctx, natives: _emit_geqp3(ctx, natives, a, aval, full_matrices))
