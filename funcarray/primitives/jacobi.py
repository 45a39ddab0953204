"""Jacobi eigenvalue and singular value decompositions as loops of primitives: the portable
lowerings of ``eigh`` (two-sided Jacobi) and real ``svd`` (one-sided, Hestenes), where the
platform has no native kernel.

Both run parallel-order (round-robin) sweeps: each round rotates disjoint index pairs at
once, and each pair meets once per sweep. Sweeps run until the off-diagonal part is at
rounding level, at most ``MAX_SWEEPS``. The SVD's left singular vectors are completed by a
Householder QR of ``a @ v``.

Example:
    >>> import numpy as np
    >>> from funcarray.base.array import Array
    >>> v, w = jacobi_eigh(Array(np.array([[2.0, 1.0], [1.0, 2.0]], np.float32)), True)
    >>> np.asarray(w).round(4)
    array([1., 3.], dtype=float32)
"""

from __future__ import annotations

import functools

import numpy as np

from funcarray.base.array import Array
from funcarray.primitives import bind_ops as ops
from funcarray.primitives.householder_qr import householder_qr
from funcarray.primitives.loops import fori_loop, while_loop

__all__ = ["jacobi_eigh", "jacobi_svd", "MAX_SWEEPS"]

# Jacobi converges quadratically: float64 needs ~6-10 sweeps; the cap only stops a stall.
MAX_SWEEPS = 40


def _eps(dtype) -> float:
    return float(np.finfo(np.dtype(dtype)).eps)


def _bmul(x, y):
    return ops.mul(*ops.broadcast_arrays(x, y))


def _last_two(x):
    return (x.ndim - 2, x.ndim - 1)


def _all(pred):
    return ops.reduce_all(pred, range(pred.ndim))


@functools.cache
def _round_robin(n: int):
    """Index pairs ``(p, q)``, each ``(rounds, pairs)``, of the round-robin schedule. An odd
    ``n`` gets a dummy player ``n``, whose one-hot selector is zero (its rotations are the
    identity)."""
    players = list(range(n + n % 2))
    rounds = []
    for _ in range(len(players) - 1):
        half = len(players) // 2
        rounds.append([(players[i], players[-1 - i]) for i in range(half)])
        players = [players[0], players[-1], *players[1:-1]]
    pairs = np.array(rounds, dtype=np.int32).reshape(len(rounds), -1, 2)
    return pairs[..., 0], pairs[..., 1]


def _jacobi_rotation(app, aqq, apq):
    """``(c, s)`` such that ``J.T @ [[app, apq], [apq, aqq]] @ J`` is diagonal, with
    ``J = [[c, s], [-s, c]]`` (the symmetric Schur decomposition, smaller angle)."""
    zero, one = ops.zeros_like(apq), ops.full_like(apq, 1)
    nonzero = ops.ne(apq, zero)
    tau = ops.div(ops.sub(aqq, app),
                  ops.mul(ops.full_like(apq, 2), ops.select(nonzero, apq, one)))
    sign = ops.select(ops.ge(tau, zero), one, ops.full_like(tau, -1))
    t = ops.div(sign, ops.add(ops.absolute(tau), ops.hypot(one, tau)))
    t = ops.select(nonzero, t, zero)
    c = ops.div(one, ops.sqrt(ops.add(one, ops.mul(t, t))))
    return c, ops.mul(t, c)


def _round_matrix(p, q, c, s):
    """The n x n rotation of one round: identity but for rows/columns p[k], q[k]."""
    n = p.shape[-1]
    pt, qt = ops.transpose(p, (1, 0)), ops.transpose(q, (1, 0))

    def spread(left, weights, right):  # left.T @ diag(weights) @ right, batched weights
        return ops.matmul(_bmul(left, ops.expand_dims(weights, weights.ndim - 1)), right)

    c1 = ops.sub(c, ops.full_like(c, 1))
    eye = ops.eye(n, c.dtype)
    total = ops.add(*ops.broadcast_arrays(eye, spread(pt, c1, p)))
    total = ops.add(total, spread(qt, c1, q))
    total = ops.add(total, spread(pt, s, q))
    return ops.sub(total, spread(qt, s, p))


def _pick(select, x, other):
    """``x[..., p_k, q_k]`` for the one-hot rows of ``select`` and ``other``."""
    product = ops.matmul(select, x)
    return ops.reduce_sum(_bmul(product, other), (product.ndim - 1,))


def _jacobi_sweeps(state, n, gram, apply, converged):
    """Round-robin Jacobi sweeps until ``converged(state)`` (or ``MAX_SWEEPS``)."""
    # Small integer tables, made one-hot per round: dense selectors would be O(n^3)
    # constants in the module text, and XLA's compile time grows with them.
    p_all, q_all = (Array(t) for t in _round_robin(n))
    players = ops.arange(n, np.int32)
    dtype = state[0].dtype

    def one_hot(table, i):
        row = ops.expand_dims(ops.dynamic_index_in_dim(table, i, 0), 1)  # (pairs, 1)
        return ops.convert(ops.eq(*ops.broadcast_arrays(row, players)), dtype)

    def one_round(i, state):
        p, q = one_hot(p_all, i), one_hot(q_all, i)
        g = gram(state)
        c, s = _jacobi_rotation(_pick(p, g, p), _pick(q, g, q), _pick(p, g, q))
        return apply(state, _round_matrix(p, q, c, s))

    def sweep(carry):
        count, state = carry
        return (ops.add(count, ops.full_like(count, 1)),
                fori_loop(0, p_all.shape[0], one_round, state))

    def keep_going(carry):
        count, state = carry
        return ops.logical_and(ops.lt(count, ops.full_like(count, MAX_SWEEPS)),
                               ops.logical_not(converged(state)))

    return while_loop(keep_going, sweep, (ops.scalar(0, np.int32), state))[1]


def _take_columns(x, order):
    """``x[..., :, order]`` for a per-matrix ``order`` (``(..., n)``)."""
    columns = ops.broadcast_to(ops.expand_dims(order, order.ndim - 1), x.shape)
    return ops.take_along_axis(x, columns, x.ndim - 1)


def jacobi_eigh(a, lower: bool):
    """Two-sided Jacobi: rotate ``a`` (its ``lower`` or upper triangle, mirrored) to diagonal
    form, accumulating the rotations: ``(v, w)``, ``w`` ascending."""
    n = a.shape[-1]
    tri = ops.triangle(a, 0, lower)
    mirrored = ops.triangle(a, -1, True) if lower else ops.triangle(a, 1, False)
    sym = ops.add(tri, ops.matrix_transpose(mirrored))
    eye = ops.eye(n, a.dtype)
    vecs = ops.broadcast_to(eye, a.shape)
    if n > 1:
        tol = _eps(a.dtype) * n
        off_mask = ops.sub(ops.full_like(eye, 1), eye)

        def converged(state):
            mat = state[0]
            off = ops.reduce_sum(ops.integer_pow(_bmul(mat, off_mask), 2), _last_two(mat))
            total = ops.reduce_sum(ops.mul(mat, mat), _last_two(mat))
            return _all(ops.le(off, ops.mul(ops.full_like(total, tol * tol), total)))

        def apply(state, rot):
            mat, vecs = state
            mat = ops.matmul(ops.matrix_transpose(rot), ops.matmul(mat, rot))
            mat = ops.div(ops.add(mat, ops.matrix_transpose(mat)), ops.full_like(mat, 2))
            return mat, ops.matmul(vecs, rot)

        sym, vecs = _jacobi_sweeps((sym, vecs), n, lambda state: state[0], apply, converged)
    w = ops.diagonal(sym)
    order = ops.argsort(w, w.ndim - 1)  # ascending, as LAPACK
    return _take_columns(vecs, order), ops.take_along_axis(w, order, w.ndim - 1)


def _jacobi_svd_tall(a, full_matrices: bool, compute_uv: bool):
    """One-sided Jacobi for ``m >= n``: rotate the columns of ``a`` until orthogonal."""
    m, n = a.shape[-2:]
    eye = ops.eye(n, a.dtype)
    vecs = ops.broadcast_to(eye, (*a.shape[:-2], n, n))
    if n > 1:
        tol = _eps(a.dtype) * m
        off_mask = ops.sub(ops.full_like(eye, 1), eye)

        def gram(state):
            return ops.matmul(ops.matrix_transpose(state[0]), state[0])

        def converged(state):
            g = gram(state)
            norms = ops.sqrt(ops.diagonal(g))
            scale = _bmul(ops.expand_dims(norms, norms.ndim), ops.expand_dims(norms,
                                                                              norms.ndim - 1))
            off = _bmul(ops.absolute(g), off_mask)
            return _all(ops.le(off, ops.mul(ops.full_like(scale, tol), scale)))

        def apply(state, rot):
            return ops.matmul(state[0], rot), ops.matmul(state[1], rot)

        a, vecs = _jacobi_sweeps((a, vecs), n, gram, apply, converged)
    s = ops.sqrt(ops.reduce_sum(ops.mul(a, a), (a.ndim - 2,)))
    order = ops.argsort(ops.neg(s), s.ndim - 1)  # descending
    s, v = ops.take_along_axis(s, order, s.ndim - 1), _take_columns(vecs, order)
    if not compute_uv:
        return [s]
    # The rotated a (= a @ v) has orthogonal columns s_j u_j; QR normalises them and completes
    # the basis (zero singular values, full_matrices) with orthonormal columns.
    q, r = householder_qr(_take_columns(a, order), True)
    r_diag = ops.diagonal(r)
    signs = ops.select(ops.lt(r_diag, ops.zeros_like(r_diag)), ops.full_like(r_diag, -1),
                       ops.full_like(r_diag, 1))
    last = q.ndim - 1
    head = _bmul(ops.slice_in_dim(q, 0, n, 1, last), ops.expand_dims(signs, signs.ndim - 1))
    u = ops.concatenate([head, ops.slice_in_dim(q, n, m, 1, last)], last)
    if not full_matrices:
        u = ops.slice_in_dim(u, 0, n, 1, last)
    return [s, u, ops.matrix_transpose(v)]


def jacobi_svd(a, full_matrices: bool, compute_uv: bool):
    """``[s, u, vh]`` (``[s]`` without ``compute_uv``) of a real ``a`` of any shape: a wide
    matrix is the transpose of a tall one."""
    m, n = a.shape[-2:]
    if m >= n:
        return _jacobi_svd_tall(a, full_matrices, compute_uv)
    outs = _jacobi_svd_tall(ops.matrix_transpose(a), full_matrices, compute_uv)
    if not compute_uv:
        return outs
    s, u, vh = outs  # a.T = u s vh, so a = vh.T s u.T
    return [s, ops.matrix_transpose(vh), ops.matrix_transpose(u)]
