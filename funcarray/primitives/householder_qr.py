"""Householder QR as a loop of primitives: ``qr``'s portable lowering (StableHLO has no QR
operation) and the completion of the one-sided Jacobi SVD's left singular vectors.

One reflection per column in a ``fori_loop``, each a masked whole-matrix update vectorised
over the batch, with LAPACK's sign convention (``?geqrf`` + ``?orgqr``/``?ungqr``):
``r[j, j] = -sign(re(alpha)) * norm``, real also for complex matrices.

Example:
    >>> import numpy as np
    >>> from funcarray.base.array import Array
    >>> q, r = householder_qr(Array(np.array([[3.0, 1.0], [4.0, 2.0]], np.float32)), False)
    >>> np.asarray(r).round(4)
    array([[-5. , -2.2],
           [ 0. ,  0.4]], dtype=float32)
"""

from __future__ import annotations

import numpy as np

from funcarray.primitives import bind_ops as ops
from funcarray.primitives.loops import fori_loop

__all__ = ["householder_qr"]


def _reflector(x, j, rows, dtype):
    """``(v, tau)`` of the reflection ``H = I - tau v v^H`` that zeroes column ``x``
    (``(..., m)``) below row ``j`` (dlarfg / zlarfg): ``v[j] = 1``, ``v`` zero above ``j``."""
    complex_ = np.dtype(dtype).kind == "c"
    at_j, below_j = ops.eq(rows, ops.broadcast_to(j, rows.shape)), ops.gt(
        rows, ops.broadcast_to(j, rows.shape))
    last = x.ndim - 1
    alpha = ops.reduce_sum(ops.where(at_j, x, ops.zeros_like(x)), (last,))
    below = ops.where(below_j, x, ops.zeros_like(x))
    if complex_:  # zlarfg: beta is real, so a complex alpha alone is still reflected
        below2 = ops.reduce_sum(ops.real(ops.mul(below, ops.conj(below))), (last,))
        re, im = ops.real(alpha), ops.imag(alpha)
        reflect = ops.logical_or(ops.gt(below2, ops.zeros_like(below2)),
                                 ops.ne(im, ops.zeros_like(im)))
        norm = ops.sqrt(ops.add(ops.add(ops.integer_pow(re, 2), ops.integer_pow(im, 2)),
                                below2))
        beta = ops.convert(ops.neg(ops.copysign(norm, re)), dtype)
    else:
        sigma = ops.sqrt(ops.reduce_sum(ops.mul(below, below), (last,)))
        # No reflection when nothing sits below the diagonal (dlarfg's tau = 0).
        reflect = ops.gt(sigma, ops.zeros_like(sigma))
        beta = ops.neg(ops.copysign(ops.hypot(alpha, sigma), alpha))
    one, zero = ops.full_like(alpha, 1), ops.zeros_like(alpha)
    tau = ops.select(reflect, ops.div(ops.sub(beta, alpha), ops.select(reflect, beta, one)),
                     zero)
    scale = ops.div(one, ops.select(reflect, ops.sub(alpha, beta), one))
    scaled = ops.mul(below, ops.broadcast_to(ops.expand_dims(scale, last), below.shape))
    v = ops.where(at_j, ops.full_like(scaled, 1), scaled)
    return v, tau


def householder_qr(a, full_matrices: bool):
    """``(q, r)`` of ``a`` (``(..., m, n)``, real or complex), ``q`` ``(..., m, m)`` and ``r``
    ``(..., m, n)`` when ``full_matrices``, else ``(..., m, k)`` and ``(..., k, n)``."""
    m, n = a.shape[-2:]
    batch = tuple(a.shape[:-2])
    nd = a.ndim
    rows, cols = ops.arange(m), ops.arange(n)
    q0 = ops.broadcast_to(ops.eye(m, a.dtype), (*batch, m, m))
    complex_ = np.dtype(a.dtype).kind == "c"

    def step(j, carry):
        q, r = carry
        at_col = ops.broadcast_to(ops.eq(cols, ops.broadcast_to(j, cols.shape)), r.shape)
        x = ops.reduce_sum(ops.select(at_col, r, ops.zeros_like(r)), (nd - 1,))  # (..., m)
        v, tau = _reflector(x, j, rows, a.dtype)
        tau = ops.reshape(tau, (*batch, 1, 1))
        vh = ops.conj(v) if complex_ else v
        v_col, vh_row = ops.expand_dims(v, nd - 1), ops.expand_dims(vh, nd - 2)
        # r <- H^H r and q <- q H, with H = I - tau v v^H
        tau_v = ops.mul(*ops.broadcast_arrays(ops.conj(tau) if complex_ else tau, v_col))
        r = ops.sub(r, ops.mul(*ops.broadcast_arrays(tau_v, ops.matmul(vh_row, r))))
        tau_qv = ops.mul(*ops.broadcast_arrays(tau, ops.matmul(q, v_col)))
        q = ops.sub(q, ops.mul(*ops.broadcast_arrays(tau_qv, vh_row)))
        return q, r

    q, r = fori_loop(0, min(m, n), step, (q0, a))
    r = ops.triangle(r, 0, lower=False)  # the annihilated entries hold rounding noise
    if not full_matrices:
        k = min(m, n)
        q, r = ops.slice_in_dim(q, 0, k, 1, nd - 1), ops.slice_in_dim(r, 0, k, 1, nd - 2)
    return q, r
