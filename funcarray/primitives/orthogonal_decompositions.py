"""Decompositions with orthogonal (unitary) factors: ``qr``, ``eigh`` and ``svd``.

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
  algorithm written with bind-level operations, staged and inlined: Householder QR (real or
  complex, ``householder_qr.py``), parallel-order (round-robin) two-sided Jacobi for ``eigh``
  and one-sided (Hestenes) Jacobi for ``svd`` (``jacobi.py``), whose left singular vectors
  are completed by a Householder QR of ``a @ v``. The Jacobi composites are real: a complex
  ``svd`` without a native kernel runs the eager kernel through a host callback (GPU) or
  raises NotImplementedError (backend-neutral lowering).

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
from funcarray.primitives import bind_ops as ops
from funcarray.primitives._define import wrap_kernel
from funcarray.primitives._native_kernel import lower_native_or_host
from funcarray.primitives.decompositions import (
    checked_impl,
    emit_native_call,
    failed_matrices,
    failure_nan,
    nan_where_lapack_fails,
    triangular_solve_p,
)
from funcarray.primitives.householder_qr import householder_qr
from funcarray.primitives.jacobi import jacobi_eigh, jacobi_svd
from funcarray.transforms.core import Primitive, ShapedArray
from funcarray.transforms.jvp import Zero, tangent_aval
from funcarray.transforms.staging import stage_flat
from funcarray.transforms.vmap import move_to_front

__all__ = ["qr_p", "eigh_p", "svd_p", "qr_tangents"]

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
    _check_matrix("eigh", a, square=True, complex_ok=True)
    # (a Hermitian matrix's eigenvalues are real)
    return [ShapedArray(a.shape, a.dtype), ShapedArray(a.shape[:-1], _real_dtype(a.dtype))]


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
    def eigh(matrices):
        w, v = np.linalg.eigh(matrices, UPLO="L" if lower else "U")
        return [v.astype(a.dtype, copy=False), w.astype(_real_dtype(a.dtype), copy=False)]

    return nan_where_lapack_fails(eigh, a, _eigh_abstract_eval(
        ShapedArray(a.shape, a.dtype), lower=lower))


def _svd_kernel(a, *, full_matrices, compute_uv):
    def svd(matrices):
        real = _real_dtype(a.dtype)
        if not compute_uv:
            return [np.linalg.svd(matrices, compute_uv=False).astype(real, copy=False)]
        u, s, vh = np.linalg.svd(matrices, full_matrices=full_matrices)
        return [s.astype(real, copy=False), u.astype(a.dtype, copy=False),
                vh.astype(a.dtype, copy=False)]

    return nan_where_lapack_fails(svd, a, _svd_abstract_eval(
        ShapedArray(a.shape, a.dtype), full_matrices=full_matrices, compute_uv=compute_uv))


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
# JVP rules (written with bind_ops, so that they differentiate again)
# --------------------------------------------------------------------------------------------

def _bmul(x, y):
    return ops.mul(*ops.broadcast_arrays(x, y))


def _as(x, dtype):
    """``x`` in ``dtype`` (a real factor of a complex product is made complex, as NumPy's
    promotion does)."""
    return ops.convert(x, dtype)


def _row(x):
    """``x[..., None, :]``."""
    return ops.expand_dims(x, x.ndim - 1)


def _col(x):
    """``x[..., :, None]``."""
    return ops.expand_dims(x, x.ndim)


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
    da_rinv = _solve_upper_right(da, r)
    qt_da_rinv = ops.matmul(ops.adjoint(q), da_rinv)
    low = ops.triangle(qt_da_rinv, -1, lower=True)
    skew = ops.sub(low, ops.adjoint(low))  # q^H @ dq: skew-Hermitian, as q^H @ q = I
    if np.dtype(q.dtype).kind == "c":
        # the diagonal of q^H dq is imaginary; r's real diagonal fixes it to i Im(diag)
        eye = ops.eye(r.shape[-1], q.dtype)
        imaginary = ops.sub(qt_da_rinv, _as(ops.real(qt_da_rinv), q.dtype))
        skew = ops.add(skew, _bmul(eye, imaginary))
    dq = ops.add(ops.matmul(q, ops.sub(skew, qt_da_rinv)), da_rinv)
    dr = ops.matmul(ops.sub(qt_da_rinv, skew), r)
    return dq, dr


def _inverse_gaps(w):
    """``F[i, j] = 1 / (w[j] - w[i])`` off the diagonal and 0 on it."""
    eye = ops.eye(w.shape[-1], w.dtype)
    gaps = ops.add(*ops.broadcast_arrays(ops.sub(*ops.broadcast_arrays(_row(w), _col(w))), eye))
    return ops.sub(*ops.broadcast_arrays(ops.div(ops.full_like(gaps, 1), gaps), eye))


@eigh_p.def_jvp
def _eigh_jvp(primals, tangents, *, lower):
    (a,), (da,) = primals, tangents
    v, w = eigh_p.bind(a, lower=lower)
    if type(da) is Zero:
        return [v, w], [Zero(tangent_aval(v.aval)), Zero(tangent_aval(w.aval))]
    # v^H da v: its real diagonal moves the eigenvalues, the rest (scaled by the inverse gaps)
    # rotates the eigenvectors (JAX's rule; the phase of each complex eigenvector is kept).
    vh_da_v = ops.matmul(ops.adjoint(v), ops.matmul(da, v))
    complex_ = np.dtype(a.dtype).kind == "c"
    dw = ops.diagonal(ops.real(vh_da_v) if complex_ else vh_da_v)
    dv = ops.matmul(v, _bmul(_as(_inverse_gaps(w), a.dtype), vh_da_v))
    return [v, w], [dv, dw]


def _safe_reciprocal(x):
    """``1 / x``, with 0 where ``x`` is 0 (a zero singular value has no direction to move)."""
    zero, one = ops.zeros_like(x), ops.full_like(x, 1)
    is_zero = ops.eq(x, zero)
    return ops.select(is_zero, zero, ops.div(one, ops.select(is_zero, one, x)))


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
    s, u, vh = outs if compute_uv and not full_matrices else svd_p.bind(
        a, full_matrices=False, compute_uv=True)
    dtype = a.dtype
    v = ops.adjoint(vh)
    complex_ = np.dtype(dtype).kind == "c"
    ds_mat = ops.matmul(ops.adjoint(u), ops.matmul(da, v))  # u^H da v: (..., k, k)
    ds = ops.diagonal(ops.real(ds_mat) if complex_ else ds_mat)
    if not compute_uv:
        return outs, [ds]
    s_row, s_col = _row(s), _col(s)
    eye = ops.eye(s.shape[-1], s.dtype)
    # F[i, j] = 1 / (s_j^2 - s_i^2) off the diagonal, 0 on it.
    gaps = ops.add(*ops.broadcast_arrays(
        _bmul(ops.add(*ops.broadcast_arrays(s_row, s_col)),
              ops.sub(*ops.broadcast_arrays(s_row, s_col))), eye))
    gaps = ops.sub(*ops.broadcast_arrays(ops.div(ops.full_like(gaps, 1), gaps), eye))
    ds_s = _bmul(ds_mat, _as(s_row, dtype))  # ds_mat @ diag(s)
    s_ds = _bmul(_as(s_col, dtype), ds_mat)  # diag(s) @ ds_mat
    gaps = _as(gaps, dtype)
    du = ops.matmul(u, _bmul(gaps, ops.add(ds_s, ops.adjoint(ds_s))))
    dv = ops.matmul(v, _bmul(gaps, ops.add(s_ds, ops.adjoint(s_ds))))
    inv_s = _safe_reciprocal(s)
    if complex_:
        # The phases of u's and v's columns: the imaginary diagonal of u^H da v goes to du
        # (JAX's choice; the pairs (u_j e^it, v_j e^it) are all singular vectors).
        half = ops.full_like(ds_mat, 0.5)
        phases = ops.mul(half, ops.sub(ds_mat, ops.adjoint(ds_mat)))
        du = ops.add(du, ops.matmul(u, _bmul(phases, _as(_bmul(eye, _row(inv_s)), dtype))))
    if m > n:  # the part of da's columns outside span(u)
        da_v = ops.matmul(da, v)
        outside = ops.sub(da_v, ops.matmul(u, ops.matmul(ops.adjoint(u), da_v)))
        du = ops.add(du, _bmul(outside, _as(_row(inv_s), dtype)))
    if n > m:
        dah_u = ops.matmul(ops.adjoint(da), u)
        outside = ops.sub(dah_u, ops.matmul(v, ops.matmul(vh, dah_u)))
        dv = ops.add(dv, _bmul(outside, _as(_row(inv_s), dtype)))
    return outs, [ds, du, ops.adjoint(dv)]


# --------------------------------------------------------------------------------------------
# Lowering: composite algorithms (householder_qr.py, jacobi.py), staged once per signature
# and inlined
# --------------------------------------------------------------------------------------------

@functools.lru_cache(maxsize=256)
def _composite_ir(name: str, aval, params: tuple):
    composite = {"qr": lambda a, **p: list(householder_qr(a, **p)),
                 "eigh": lambda a, **p: list(jacobi_eigh(a, **p)),
                 "svd": jacobi_svd}[name]
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
    if native is None and np.dtype(aval.dtype).kind == "c":  # (the composite is real only)
        return lower_native_or_host(ctx, eigh_p, [a], dict(lower=lower), None, None)
    if native is None:
        return _composite_lowering("eigh")(ctx, a, lower=lower)
    v_aval, w_aval = ctx.avals_out
    v, w, info = emit_native_call(ctx, native, a, [v_aval, w_aval, ShapedArray(
        aval.shape[:-2], np.int32)], (True, False, False))
    # A failed decomposition (info != 0) gives NaNs, as in JAX.
    return [ctx.op("stablehlo.select", failed_matrices(ctx, info, x_aval.shape),
                   ctx.constant(failure_nan(x_aval.dtype), x_aval), x, results=[x_aval])[0]
            for x, x_aval in ((v, v_aval), (w, w_aval))]


@functools.lru_cache(maxsize=64)
def _empty_svd_ir(aval, full_matrices: bool, compute_uv: bool):
    """The SVD of empty matrices, as NumPy and JAX: no singular values, identity blocks for
    the complete bases and empty arrays otherwise."""
    def empty(a):
        outs = _svd_abstract_eval(aval, full_matrices=full_matrices, compute_uv=compute_uv)
        return [ops.broadcast_to(ops.eye(o.shape[-2], o.dtype, o.shape[-1]), o.shape)
                if o.ndim == aval.ndim else ops.full(o.shape, 0, o.dtype) for o in outs]

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
                   ctx.constant(failure_nan(x_aval.dtype), x_aval), x, results=[x_aval])[0]
            for x, x_aval in outs]


qr_p.lower_rule = _composite_lowering("qr")
eigh_p.lower_rule = _eigh_lower
svd_p.lower_rule = _svd_lower
