"""Spectral decompositions: ``qr``, ``eigh`` and ``svd`` (multiple-results primitives).

Contract (operands are float32/float64 arrays of shape ``(..., m, n)``, and complex64/
complex128 ones for ``qr`` and ``svd``; every leading dimension is a batch dimension, as in
NumPy; ``funcarray.numpy.linalg`` promotes integers to floats and checks shapes first, so a
direct ``bind`` of anything else raises a TypeError):

* ``qr(a, *, full_matrices) -> [q, r]``: ``a = q @ r``, ``q`` with orthonormal columns and
  ``r`` upper triangular. With ``k = min(m, n)``: ``q`` is ``(..., m, k)`` and ``r``
  ``(..., k, n)``, or ``(..., m, m)`` and ``(..., m, n)`` when ``full_matrices``. Signs follow
  LAPACK's Householder convention (``r[j, j] = -sign(re(alpha)) * norm``, real also for
  complex matrices).
* ``eigh(a, *, lower) -> [v, w]``: the symmetric matrix whose lower (``lower=True``) or upper
  triangle is ``a``'s: ``a = v @ diag(w) @ v.T``, eigenvalues ``w`` ascending.
* ``svd(a, *, full_matrices, compute_uv) -> [s, u, vh]`` (``[s]`` without ``compute_uv``):
  ``a = u[..., :k] @ diag(s) @ vh[..., :k, :]``, singular values descending (real, also for a
  complex ``a``).

The signs of eigenvectors and singular vectors are not specified (LAPACK's on the eager path).

Transformation rules:

* jvp: the standard formulas, JAX's for complex matrices (they treat the tangent of
  ``eigh``'s operand as symmetric, as JAX does; ``funcarray.numpy.linalg.eigh`` symmetrises its
  input). ``qr``'s needs ``m >= n``
  and no extra columns (``full_matrices`` only when square); ``svd``'s singular vectors need
  ``full_matrices=False`` unless square. The formulas are written with primitives, so they
  differentiate again (Hessians). Repeated eigenvalues or singular values have no derivative
  for their vectors (the formulas then give inf/nan, as JAX's do).
* batching: every operand takes leading batch dimensions, so the batch axis moves to the
  front.
* lowering: ``eigh`` and ``svd`` emit the platform's native kernel where
  ``runtime.native_linalg`` offers one (LAPACK ``syevd``/``gesdd`` on CPU). Otherwise (and
  always for ``qr``: StableHLO has no such operations) each primitive lowers to a composite
  algorithm staged with funcarray's own operations and inlined: Householder QR (real or
  complex),
  parallel-order (round-robin) two-sided Jacobi for ``eigh`` and one-sided (Hestenes) Jacobi
  for ``svd``, whose left singular vectors are completed by a Householder QR of ``a @ v``.
  Jacobi sweeps run until the off-diagonal part is at rounding level (at most
  ``_MAX_SWEEPS``). The Jacobi composites are real: a complex ``svd`` without a native kernel
  runs the eager kernel through a host callback (GPU) or raises NotImplementedError
  (backend-neutral lowering).

Example:
    >>> import funcarray.numpy as fnp
    >>> v, w = eigh_p.bind(fnp.asarray([[2.0, 1.0], [1.0, 2.0]]), lower=True)
    >>> w
    Array([1., 3.], dtype=float32)
"""

from __future__ import annotations

import functools

import numpy as np

from funcarray.lowering import runtime
from funcarray.lowering.stablehlo import lower_inline
from funcarray.primitives._define import wrap_kernel
from funcarray.primitives._native_kernel import lower_native_or_host
from funcarray.primitives.decompositions import (
    checked_impl,
    emit_native_call,
    failed_matrices,
    triangular_solve_p,
)
from funcarray.transforms.core import Primitive, ShapedArray
from funcarray.transforms.jvp import Zero, tangent_aval
from funcarray.transforms.staging import stage_flat
from funcarray.transforms.vmap import move_to_front

__all__ = ["qr_p", "eigh_p", "svd_p", "qr_tangents"]

# Jacobi converges quadratically: float64 needs ~6-10 sweeps; the cap only stops a stall.
_MAX_SWEEPS = 40
_SUPPORTED = (np.dtype(np.float32), np.dtype(np.float64))
_COMPLEX = (np.dtype(np.complex64), np.dtype(np.complex128))


# --------------------------------------------------------------------------------------------
# Shape rules
# --------------------------------------------------------------------------------------------

def _check_matrix(name: str, aval, *, square: bool = False, complex_ok: bool = False):
    """Reject what the kernels cannot take, naming the primitive, the operand and the fix."""
    if aval.ndim < 2:
        raise TypeError(f"{name}: expected an array of matrices (ndim >= 2), got "
                        f"{aval.str_short()}")
    if square and aval.shape[-1] != aval.shape[-2]:
        raise TypeError(f"{name}: expected square matrices, got {aval.str_short()}")
    dtype = np.dtype(aval.dtype)
    if dtype in _COMPLEX and complex_ok:
        return
    if dtype not in _SUPPORTED:
        kinds = "float32, float64, complex64 or complex128" if complex_ok else (
            "float32 or float64")
        unsupported = "half-precision" if complex_ok else "complex and half-precision"
        raise TypeError(f"{name}: expected {kinds} matrices, got "
                        f"{aval.str_short()}; convert with .astype(float32/float64) first "
                        f"({unsupported} matrices are not supported)")


def _real_dtype(dtype) -> np.dtype:
    return np.finfo(np.dtype(dtype)).dtype


def _qr_shapes(shape, full_matrices):
    *batch, m, n = shape
    k = m if full_matrices else min(m, n)
    return (*batch, m, k), (*batch, k, n)


def _svd_shapes(shape, full_matrices):
    *batch, m, n = shape
    k = min(m, n)
    u_cols, vh_rows = (m, n) if full_matrices else (k, k)
    return (*batch, k), (*batch, m, u_cols), (*batch, vh_rows, n)


qr_p = Primitive("qr", multiple_results=True)
eigh_p = Primitive("eigh", multiple_results=True)
svd_p = Primitive("svd", multiple_results=True)


@qr_p.def_abstract_eval
def _qr_abstract_eval(a, *, full_matrices):
    _check_matrix("qr", a, complex_ok=True)
    q_shape, r_shape = _qr_shapes(a.shape, full_matrices)
    return [ShapedArray(q_shape, a.dtype), ShapedArray(r_shape, a.dtype)]


@eigh_p.def_abstract_eval
def _eigh_abstract_eval(a, *, lower):
    _check_matrix("eigh", a, square=True)
    return [ShapedArray(a.shape, a.dtype), ShapedArray(a.shape[:-1], a.dtype)]


@svd_p.def_abstract_eval
def _svd_abstract_eval(a, *, full_matrices, compute_uv):
    _check_matrix("svd", a, complex_ok=True)
    s_shape, u_shape, vh_shape = _svd_shapes(a.shape, full_matrices)
    s = ShapedArray(s_shape, _real_dtype(a.dtype))
    if not compute_uv:
        return [s]
    return [s, ShapedArray(u_shape, a.dtype), ShapedArray(vh_shape, a.dtype)]


# --------------------------------------------------------------------------------------------
# Eager kernels (LAPACK through NumPy; they take leading batch dimensions)
# --------------------------------------------------------------------------------------------

def _qr_kernel(a, *, full_matrices):
    q, r = np.linalg.qr(a, mode="complete" if full_matrices else "reduced")
    return [q.astype(a.dtype, copy=False), r.astype(a.dtype, copy=False)]


def _eigh_kernel(a, *, lower):
    w, v = np.linalg.eigh(a, UPLO="L" if lower else "U")
    return [v.astype(a.dtype, copy=False), w.astype(a.dtype, copy=False)]


def _svd_kernel(a, *, full_matrices, compute_uv):
    real = _real_dtype(a.dtype)
    if not compute_uv:
        return [np.linalg.svd(a, compute_uv=False).astype(real, copy=False)]
    u, s, vh = np.linalg.svd(a, full_matrices=full_matrices)
    return [s.astype(real, copy=False), u.astype(a.dtype, copy=False),
            vh.astype(a.dtype, copy=False)]


qr_p.kernel, eigh_p.kernel, svd_p.kernel = _qr_kernel, _eigh_kernel, _svd_kernel
# (the shape rule first: a clear error instead of LAPACK's)
for _prim in (qr_p, eigh_p, svd_p):
    _prim.impl = checked_impl(_prim, wrap_kernel(_prim.kernel, multiple_results=True))


# --------------------------------------------------------------------------------------------
# Batching: every leading dimension is a batch dimension already
# --------------------------------------------------------------------------------------------

def _front_batch_rule(prim):
    def rule(vals, dims, **params):
        (a,), (d,) = vals, dims
        outs = prim.bind(move_to_front(a, d, a.shape[d]), **params)
        return outs, [0] * len(outs)

    return rule


qr_p.batch_rule = _front_batch_rule(qr_p)
eigh_p.batch_rule = _front_batch_rule(eigh_p)
svd_p.batch_rule = _front_batch_rule(svd_p)


# --------------------------------------------------------------------------------------------
# JVP rules (written with funcarray.numpy, imported late: it imports this module's users)
# --------------------------------------------------------------------------------------------

def _mT(x):
    import funcarray.numpy as fnp
    return fnp.swapaxes(x, -1, -2)


def _H(x):
    """The conjugate transpose (the transpose for real ``x``)."""
    import funcarray.numpy as fnp
    x = fnp.swapaxes(x, -1, -2)
    return fnp.conj(x) if np.dtype(x.dtype).kind == "c" else x


def _solve_upper_right(b, r):
    """``b @ inv(r)`` for upper-triangular ``r`` (..., n, n): one triangular solve."""
    return triangular_solve_p.bind(r, b, left_side=False, lower=False, transpose_a=False,
                                   conjugate_a=False, unit_diagonal=False)


@qr_p.def_jvp
def _qr_jvp(primals, tangents, *, full_matrices):
    (a,), (da,) = primals, tangents
    q, r = qr_p.bind(a, full_matrices=full_matrices)
    if type(da) is Zero:
        return [q, r], [Zero(tangent_aval(q.aval)), Zero(tangent_aval(r.aval))]
    m, n = a.shape[-2:]
    if m < n or (full_matrices and m != n):
        raise NotImplementedError(
            f"qr: the derivative needs a matrix with at least as many rows as columns (and "
            f"full_matrices only when square), got shape {a.shape} with "
            f"full_matrices={full_matrices}; use mode='reduced' on a tall matrix, or transpose")
    return [q, r], list(qr_tangents(q, r, da))


def qr_tangents(q, r, da):
    """``(dq, dr)`` of the thin QR ``a = q @ r`` (``m >= n``, ``r`` square) for the tangent
    ``da`` (shared with the column-pivoted QR, which passes ``da``'s permuted columns)."""
    import funcarray.numpy as fnp
    da_rinv = _solve_upper_right(da, r)
    qt_da_rinv = fnp.matmul(_H(q), da_rinv)
    low = fnp.tril(qt_da_rinv, -1)
    skew = low - _H(low)  # q^H @ dq: skew-Hermitian, as q^H @ q = I
    if np.dtype(q.dtype).kind == "c":
        # the diagonal of q^H dq is imaginary; r's real diagonal fixes it to i Im(diag)
        eye = fnp.eye(r.shape[-1], dtype=q.dtype)
        skew = skew + eye * (qt_da_rinv - fnp.real(qt_da_rinv).astype(q.dtype))
    dq = fnp.matmul(q, skew - qt_da_rinv) + da_rinv
    dr = fnp.matmul(qt_da_rinv - skew, r)
    return dq, dr


def _inverse_gaps(w):
    """``F[i, j] = 1 / (w[j] - w[i])`` off the diagonal and 0 on it."""
    import funcarray.numpy as fnp
    eye = fnp.eye(w.shape[-1], dtype=w.dtype)
    return 1 / (w[..., None, :] - w[..., :, None] + eye) - eye


@eigh_p.def_jvp
def _eigh_jvp(primals, tangents, *, lower):
    (a,), (da,) = primals, tangents
    v, w = eigh_p.bind(a, lower=lower)
    if type(da) is Zero:
        return [v, w], [Zero(tangent_aval(v.aval)), Zero(tangent_aval(w.aval))]
    import funcarray.numpy as fnp
    vt_da_v = fnp.matmul(_mT(v), fnp.matmul(da, v))
    dw = fnp.diagonal(vt_da_v, axis1=-2, axis2=-1)
    dv = fnp.matmul(v, _inverse_gaps(w) * vt_da_v)
    return [v, w], [dv, dw]


def _safe_reciprocal(x):
    """``1 / x``, with 0 where ``x`` is 0 (a zero singular value has no direction to move)."""
    import funcarray.numpy as fnp
    zero = x == 0
    return fnp.where(zero, 0, 1 / fnp.where(zero, 1, x))


@svd_p.def_jvp
def _svd_jvp(primals, tangents, *, full_matrices, compute_uv):
    (a,), (da,) = primals, tangents
    outs = svd_p.bind(a, full_matrices=full_matrices, compute_uv=compute_uv)
    if type(da) is Zero:
        return outs, [Zero(tangent_aval(o.aval)) for o in outs]
    m, n = a.shape[-2:]
    if compute_uv and full_matrices and m != n:
        raise NotImplementedError(
            f"svd: the derivative of the singular vectors of a non-square matrix (shape "
            f"{a.shape}) needs full_matrices=False")
    import funcarray.numpy as fnp
    s, u, vh = outs if compute_uv and not full_matrices else svd_p.bind(
        a, full_matrices=False, compute_uv=True)
    v = _H(vh)
    complex_ = np.dtype(a.dtype).kind == "c"
    ds_mat = fnp.matmul(_H(u), fnp.matmul(da, v))  # u^H da v: (..., k, k)
    ds = fnp.diagonal(fnp.real(ds_mat) if complex_ else ds_mat, axis1=-2, axis2=-1)
    if not compute_uv:
        return outs, [ds]
    s_row = s[..., None, :]
    s_col = s[..., :, None]
    eye = fnp.eye(s.shape[-1], dtype=s.dtype)
    # F[i, j] = 1 / (s_j^2 - s_i^2) off the diagonal, 0 on it.
    gaps = 1 / ((s_row + s_col) * (s_row - s_col) + eye) - eye
    ds_s = ds_mat * s_row  # ds_mat @ diag(s)
    s_ds = s_col * ds_mat  # diag(s) @ ds_mat
    du = fnp.matmul(u, gaps * (ds_s + _H(ds_s)))
    dv = fnp.matmul(v, gaps * (s_ds + _H(s_ds)))
    inv_s = _safe_reciprocal(s)
    if complex_:
        # The phases of u's and v's columns: the imaginary diagonal of u^H da v goes to du
        # (JAX's choice; the pairs (u_j e^it, v_j e^it) are all singular vectors).
        du = du + fnp.matmul(u, 0.5 * (ds_mat - _H(ds_mat)) * (eye * inv_s[..., None, :]))
    if m > n:  # the part of da's columns outside span(u)
        da_v = fnp.matmul(da, v)
        du = du + (da_v - fnp.matmul(u, fnp.matmul(_H(u), da_v))) * inv_s[..., None, :]
    if n > m:
        dah_u = fnp.matmul(_H(da), u)
        dv = dv + (dah_u - fnp.matmul(v, fnp.matmul(vh, dah_u))) * inv_s[..., None, :]
    return outs, [ds, du, _H(dv)]


# --------------------------------------------------------------------------------------------
# Lowering: composite algorithms, staged once per signature and inlined
# --------------------------------------------------------------------------------------------

def _eps(dtype) -> float:
    return float(np.finfo(np.dtype(dtype)).eps)


def _householder_qr(a, full_matrices: bool):
    """Householder QR with LAPACK's sign convention (?geqrf + ?orgqr/?ungqr): ``(q, r)``."""
    import funcarray.numpy as fnp
    from funcarray import lax
    m, n = a.shape[-2:]
    rows, cols = fnp.arange(m), fnp.arange(n)
    q0 = fnp.broadcast_to(fnp.eye(m, dtype=a.dtype), (*a.shape[:-2], m, m))
    complex_ = np.dtype(a.dtype).kind == "c"

    def step(j, carry):
        q, r = carry
        x = fnp.sum(fnp.where(cols == j, r, 0), axis=-1)  # column j: (..., m)
        alpha = fnp.sum(fnp.where(rows == j, x, 0), axis=-1)
        below = fnp.where(rows > j, x, 0)
        if complex_:  # zlarfg: beta is real, so a complex alpha alone is still reflected
            below2 = fnp.sum(fnp.real(below * fnp.conj(below)), axis=-1)
            reflect = (below2 > 0) | (fnp.imag(alpha) != 0)
            norm = fnp.sqrt(fnp.real(alpha) ** 2 + fnp.imag(alpha) ** 2 + below2)
            beta = (-fnp.copysign(norm, fnp.real(alpha))).astype(a.dtype)
        else:
            sigma = fnp.sqrt(fnp.sum(below * below, axis=-1))
            # No reflection when nothing sits below the diagonal (dlarfg's tau = 0).
            reflect = sigma > 0
            beta = -fnp.copysign(fnp.hypot(alpha, sigma), alpha)
        tau = fnp.where(reflect, (beta - alpha) / fnp.where(reflect, beta, 1), 0)
        scale = 1 / fnp.where(reflect, alpha - beta, 1)
        v = fnp.where(rows == j, 1, below * scale[..., None])
        tau = tau[..., None, None]
        vh = fnp.conj(v) if complex_ else v
        # r <- H^H r and q <- q H, with H = I - tau v v^H
        r = r - (fnp.conj(tau) if complex_ else tau) * v[..., :, None] * fnp.matmul(
            vh[..., None, :], r)
        q = q - tau * fnp.matmul(q, v[..., :, None]) * vh[..., None, :]
        return q, r

    q, r = lax.fori_loop(0, min(m, n), step, (q0, a))
    r = fnp.triu(r)  # the annihilated entries hold rounding noise
    if not full_matrices:
        k = min(m, n)
        q, r = q[..., :, :k], r[..., :k, :]
    return q, r


@functools.cache
def _round_robin(n: int):
    """Index pairs ``(p, q)``, each ``(rounds, pairs)``, of the round-robin schedule: every
    round rotates disjoint index pairs, and each pair meets once per sweep. An odd ``n`` gets
    a dummy player ``n``, whose one-hot selector is zero (its rotations are the identity)."""
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
    import funcarray.numpy as fnp
    nonzero = apq != 0
    tau = (aqq - app) / (2 * fnp.where(nonzero, apq, 1))
    t = fnp.where(tau >= 0, 1, -1) / (fnp.abs(tau) + fnp.hypot(1, tau))
    t = fnp.where(nonzero, t, 0)
    c = 1 / fnp.sqrt(1 + t * t)
    return c, t * c


def _round_matrix(p, q, c, s):
    """The n x n rotation of one round: identity but for rows/columns p[k], q[k]."""
    import funcarray.numpy as fnp
    n = p.shape[-1]
    pt, qt = fnp.swapaxes(p, 0, 1), fnp.swapaxes(q, 0, 1)

    def spread(left, weights, right):  # left.T @ diag(weights) @ right, batched weights
        return fnp.matmul(left * weights[..., None, :], right)

    return (fnp.eye(n, dtype=c.dtype) + spread(pt, c - 1, p) + spread(qt, c - 1, q)
            + spread(pt, s, q) - spread(qt, s, p))


def _pick(select, x, other):
    """``x[..., p_k, q_k]`` for the one-hot rows of ``select`` and ``other``."""
    import funcarray.numpy as fnp
    return fnp.sum(fnp.matmul(select, x) * other, axis=-1)


def _jacobi_sweeps(state, n, gram, apply, converged):
    """Round-robin Jacobi sweeps until ``converged(state)`` (or ``_MAX_SWEEPS``)."""
    import funcarray.numpy as fnp
    from funcarray import lax
    # Small integer tables, made one-hot per round: dense selectors would be O(n^3)
    # constants in the module text, and XLA's compile time grows with them.
    p_all, q_all = (fnp.asarray(t) for t in _round_robin(n))
    players = fnp.arange(n, dtype=np.int32)
    dtype = state[0].dtype

    def one_round(i, state):
        p, q = ((lax.dynamic_index_in_dim(t, i, 0, keepdims=False)[:, None] == players)
                .astype(dtype) for t in (p_all, q_all))
        g = gram(state)
        c, s = _jacobi_rotation(_pick(p, g, p), _pick(q, g, q), _pick(p, g, q))
        return apply(state, _round_matrix(p, q, c, s))

    def sweep(carry):
        count, state = carry
        return count + 1, lax.fori_loop(0, p_all.shape[0], one_round, state)

    def keep_going(carry):
        count, state = carry
        return (count < _MAX_SWEEPS) & ~converged(state)

    return lax.while_loop(keep_going, sweep, (fnp.asarray(0, np.int32), state))[1]


def _ascending(values, vectors):
    """Eigenvalues ascending (LAPACK's order), with their eigenvector columns."""
    import funcarray.numpy as fnp
    order = fnp.argsort(values, axis=-1)
    return (fnp.take_along_axis(values, order, axis=-1),
            fnp.take_along_axis(vectors, order[..., None, :], axis=-1))


def _jacobi_eigh(a, lower: bool):
    """Two-sided Jacobi: rotate ``a`` to diagonal form, accumulating the rotations."""
    import funcarray.numpy as fnp
    n = a.shape[-1]
    tri = fnp.tril(a) if lower else fnp.triu(a)
    sym = tri + _mT(fnp.tril(a, -1) if lower else fnp.triu(a, 1))
    eye = fnp.eye(n, dtype=a.dtype)
    vecs = fnp.broadcast_to(eye, a.shape)
    if n > 1:
        tol = _eps(a.dtype) * n

        def converged(state):
            mat = state[0]
            off = fnp.sum((mat * (1 - eye)) ** 2, axis=(-2, -1))
            return fnp.all(off <= (tol * tol) * fnp.sum(mat * mat, axis=(-2, -1)))

        def apply(state, rot):
            mat, vecs = state
            mat = fnp.matmul(_mT(rot), fnp.matmul(mat, rot))
            return (mat + _mT(mat)) / 2, fnp.matmul(vecs, rot)

        sym, vecs = _jacobi_sweeps((sym, vecs), n, lambda state: state[0], apply, converged)
    w, v = _ascending(fnp.diagonal(sym, axis1=-2, axis2=-1), vecs)
    return v, w


def _jacobi_svd_tall(a, full_matrices: bool, compute_uv: bool):
    """One-sided Jacobi for ``m >= n``: rotate the columns of ``a`` until orthogonal."""
    import funcarray.numpy as fnp
    m, n = a.shape[-2:]
    vecs = fnp.broadcast_to(fnp.eye(n, dtype=a.dtype), (*a.shape[:-2], n, n))
    if n > 1:
        tol = _eps(a.dtype) * m
        eye = fnp.eye(n, dtype=a.dtype)

        def gram(state):
            return fnp.matmul(_mT(state[0]), state[0])

        def converged(state):
            g = gram(state)
            norms = fnp.sqrt(fnp.diagonal(g, axis1=-2, axis2=-1))
            scale = norms[..., :, None] * norms[..., None, :]
            return fnp.all(fnp.abs(g) * (1 - eye) <= tol * scale)

        def apply(state, rot):
            return fnp.matmul(state[0], rot), fnp.matmul(state[1], rot)

        a, vecs = _jacobi_sweeps((a, vecs), n, gram, apply, converged)
    s = fnp.sqrt(fnp.sum(a * a, axis=-2))
    order = fnp.argsort(-s, axis=-1)
    s = fnp.take_along_axis(s, order, axis=-1)
    v = fnp.take_along_axis(vecs, order[..., None, :], axis=-1)
    if not compute_uv:
        return [s]
    # The rotated a (= a @ v) has orthogonal columns s_j u_j; QR normalises them and completes
    # the basis (zero singular values, full_matrices) with orthonormal columns.
    q, r = _householder_qr(fnp.take_along_axis(a, order[..., None, :], axis=-1), True)
    signs = fnp.where(fnp.diagonal(r, axis1=-2, axis2=-1) < 0, -1, 1).astype(a.dtype)
    u = fnp.concatenate([q[..., :, :n] * signs[..., None, :], q[..., :, n:]], axis=-1)
    if not full_matrices:
        u = u[..., :, :n]
    return [s, u, _mT(v)]


def _jacobi_svd(a, full_matrices: bool, compute_uv: bool):
    """The SVD of any shape: a wide matrix is the transpose of a tall one."""
    m, n = a.shape[-2:]
    if m >= n:
        return _jacobi_svd_tall(a, full_matrices, compute_uv)
    outs = _jacobi_svd_tall(_mT(a), full_matrices, compute_uv)
    if not compute_uv:
        return outs
    s, u, vh = outs  # a.T = u s vh, so a = vh.T s u.T
    return [s, _mT(vh), _mT(u)]


@functools.lru_cache(maxsize=256)
def _composite_ir(name: str, aval, params: tuple):
    composite = {"qr": lambda a, **p: list(_householder_qr(a, **p)),
                 "eigh": lambda a, **p: list(_jacobi_eigh(a, **p)),
                 "svd": _jacobi_svd}[name]
    return stage_flat(lambda a: composite(a, **dict(params)), [aval])


def _composite_lowering(name: str):
    def lower(ctx, a, **params):
        aval = ctx.avals_in[0]
        return lower_inline(ctx, _composite_ir(name, aval, tuple(sorted(params.items()))), a)

    return lower


def _eigh_lower(ctx, a, *, lower):
    # The platform's native kernel when the runtime has one (LAPACK syevd on CPU: the
    # Jacobi composite is ~100x slower there), else the portable composite.
    aval = ctx.avals_in[0]
    native = runtime.native_linalg(ctx.platform, "eigh", aval.dtype, lower=lower)
    if native is None:
        return _composite_lowering("eigh")(ctx, a, lower=lower)
    v_aval, w_aval = ctx.avals_out
    v, w, info = emit_native_call(ctx, native, a, [v_aval, w_aval, ShapedArray(
        aval.shape[:-2], np.int32)], (True, False, False))
    # A failed decomposition (info != 0) gives NaNs, as in JAX.
    return [ctx.op("stablehlo.select", failed_matrices(ctx, info, x_aval.shape),
                   ctx.constant(np.nan, x_aval), x, results=[x_aval])[0]
            for x, x_aval in ((v, v_aval), (w, w_aval))]


@functools.lru_cache(maxsize=64)
def _empty_svd_ir(aval, full_matrices: bool, compute_uv: bool):
    """The SVD of empty matrices, as NumPy and JAX: no singular values, identity blocks for
    the complete bases and empty arrays otherwise."""
    import funcarray.numpy as fnp

    def empty(a):
        outs = _svd_abstract_eval(aval, full_matrices=full_matrices, compute_uv=compute_uv)
        return [fnp.broadcast_to(fnp.eye(*o.shape[-2:], dtype=o.dtype), o.shape)
                if o.ndim == aval.ndim else fnp.zeros(o.shape, o.dtype) for o in outs]

    return stage_flat(empty, [aval])


def _svd_lower(ctx, a, *, full_matrices, compute_uv):
    # LAPACK gesdd on CPU (the one-sided Jacobi composite is ~400x slower there), else the
    # portable composite (real matrices; complex ones call the eager kernel back on GPU).
    aval = ctx.avals_in[0]
    if 0 in aval.shape[-2:]:  # (gesdd rejects empty matrices)
        return lower_inline(ctx, _empty_svd_ir(aval, full_matrices, compute_uv), a)
    native = runtime.native_linalg(ctx.platform, "svd", aval.dtype,
                                   full_matrices=full_matrices, compute_uv=compute_uv)
    if native is None and np.dtype(aval.dtype).kind == "c":
        return lower_native_or_host(ctx, svd_p, [a], dict(full_matrices=full_matrices,
                                                          compute_uv=compute_uv), None, None)
    if native is None:
        return _composite_lowering("svd")(ctx, a, full_matrices=full_matrices,
                                          compute_uv=compute_uv)
    batch, (m, n) = aval.shape[:-2], aval.shape[-2:]
    k = min(m, n)
    full = full_matrices or not compute_uv  # gesdd's 'N' mode still declares full shapes
    u_aval = ShapedArray((*batch, m, m if full else k), aval.dtype)
    vt_aval = ShapedArray((*batch, n if full else k, n), aval.dtype)
    s_aval = ctx.avals_out[0]
    _, s, u, vt, info = emit_native_call(
        ctx, native, a, [aval, s_aval, u_aval, vt_aval, ShapedArray(batch, np.int32)],
        (True, False, True, True, False))
    outs = [(s, s_aval)] + ([(u, u_aval), (vt, vt_aval)] if compute_uv else [])
    # A failed decomposition (info != 0) gives NaNs, as in JAX.
    return [ctx.op("stablehlo.select", failed_matrices(ctx, info, x_aval.shape),
                   ctx.constant(np.nan, x_aval), x, results=[x_aval])[0]
            for x, x_aval in outs]


qr_p.lower_rule = _composite_lowering("qr")
eigh_p.lower_rule = _eigh_lower
svd_p.lower_rule = _svd_lower
