"""``eig``: eigenvalues (and right eigenvectors) of general square matrices.

``eig(a, *, compute_right) -> [w]`` or ``[w, v]``: ``a`` is ``(..., n, n)`` float32/float64/
complex64/complex128 (leading axes are batch axes); ``w`` ``(..., n)`` and ``v``
``(..., n, n)`` are complex (complex64 for 32-bit inputs), with ``a @ v = v * w``. As LAPACK
``geev`` (which JAX calls, on CPU only): each eigenvector has unit 2-norm and its
largest-magnitude component real; the order of the eigenvalues is unspecified. A matrix with
inf/NaN entries, or for which the iteration fails, gives NaN, as in JAX. Rules:

* eager: NumPy's ``geev`` (``numpy.linalg.eig``/``eigvals``), results made complex;
* JVP: eigenvalues only (JAX's rule: ``dw = diag(v^-1 da v)``, with ``v`` from a second
  ``eig`` and ``v^-1 da`` an LU solve); the eigenvectors' derivative raises
  NotImplementedError, as JAX's does by default (it is only valid under conditions that
  cannot be checked: distinct eigenvalues...);
* batching: the batch axis moves to the front;
* lowering: the platform's native kernel where ``runtime.native_linalg(platform, "eig", ...)``
  offers one (LAPACK ``geev`` through jaxlib's ``lapack_?geev_ffi`` on CPU, emitted here);
  otherwise, on CPU and GPU, a host callback into the eager kernel (pure_callback's custom
  call, with row-major layouts pinned), so ``jit`` works there too; a backend-neutral
  lowering (no platform) raises NotImplementedError (StableHLO has no such operation).

Example:
    >>> import funcarray.numpy as fnp
    >>> eig_p.bind(fnp.asarray([[2.0, 0.0], [0.0, 3.0]]), compute_right=False)
    [Array([2.+0.j, 3.+0.j], dtype=complex64)]
"""

from __future__ import annotations

import functools

import numpy as np

from funcarray.lowering import runtime
from funcarray.primitives import bind_ops as ops
from funcarray.primitives._define import wrap_kernel
from funcarray.primitives.callbacks import HostCallback, lower_host_callback
from funcarray.primitives.decompositions import (
    checked_impl,
    emit_native_call,
    failed_matrices,
    lu_p,
    triangular_solve_p,
)
from funcarray.transforms.core import Primitive, ShapedArray
from funcarray.transforms.jvp import Zero, tangent_aval
from funcarray.transforms.vmap import move_to_front

__all__ = ["eig_p", "EIG_DTYPES"]

EIG_DTYPES = tuple(np.dtype(d) for d in (np.float32, np.float64, np.complex64, np.complex128))

eig_p = Primitive("eig", multiple_results=True)


def _complex_dtype(dtype) -> np.dtype:
    return np.result_type(np.dtype(dtype), np.complex64)


@eig_p.def_abstract_eval
def _eig_abstract_eval(a, *, compute_right):
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise TypeError(f"eig: expected square matrices (..., n, n), got {a.str_short()}")
    if np.dtype(a.dtype) not in EIG_DTYPES:
        raise TypeError(f"eig: expected float32/float64/complex64/complex128 matrices, got "
                        f"{a.str_short()}; convert with .astype(float32) first")
    dtype = _complex_dtype(a.dtype)
    w = ShapedArray(a.shape[:-1], dtype)
    return [w, ShapedArray(a.shape, dtype)] if compute_right else [w]


# --------------------------------------------------------------------------------------------
# Eager kernel
# --------------------------------------------------------------------------------------------

def _eig_one(matrix: np.ndarray, compute_right: bool):
    if compute_right:
        return np.linalg.eig(matrix)
    return np.linalg.eigvals(matrix), None


def _eig_kernel(a, *, compute_right):
    dtype = _complex_dtype(a.dtype)
    n = a.shape[-1]
    flat = a.reshape(int(np.prod(a.shape[:-2])), n, n)
    # (NaN where no result lands; the imaginary part NaN too, as JAX's failed matrices)
    w = np.full((flat.shape[0], n), complex(np.nan, np.nan), dtype)
    v = np.full(flat.shape, complex(np.nan, np.nan), dtype) if compute_right else None
    # LAPACK refuses inf/NaN entries (NumPy raises); JAX returns NaN for those matrices.
    finite = np.isfinite(flat).all(axis=(-2, -1)) if n else np.ones(flat.shape[0], bool)
    if n and finite.any():
        try:
            ws, vs = _eig_one(flat[finite], compute_right)
            w[finite] = ws
            if compute_right:
                v[finite] = vs
        except np.linalg.LinAlgError:  # some matrix did not converge: NaN for that one only
            for k in np.flatnonzero(finite):
                try:
                    ws, vs = _eig_one(flat[k], compute_right)
                except np.linalg.LinAlgError:
                    continue
                w[k] = ws
                if compute_right:
                    v[k] = vs
    outs = [w.reshape(a.shape[:-1])]
    if compute_right:
        outs.append(v.reshape(a.shape))
    return outs


eig_p.kernel = _eig_kernel
eig_p.impl = checked_impl(eig_p, wrap_kernel(_eig_kernel, multiple_results=True))


# --------------------------------------------------------------------------------------------
# JVP and batching
# --------------------------------------------------------------------------------------------

@eig_p.def_jvp
def _eig_jvp(primals, tangents, *, compute_right):
    (a,), (da,) = primals, tangents
    if type(da) is Zero:
        outs = eig_p.bind(a, compute_right=compute_right)
        return outs, [Zero(tangent_aval(o.aval)) for o in outs]
    if compute_right:
        raise NotImplementedError(
            "eig: the derivative of non-symmetric eigenvectors is only valid under conditions "
            "on the input that cannot be checked (distinct eigenvalues, no tie for the "
            "largest component), so it is not implemented (as in JAX's default); "
            "differentiate linalg.eigvals instead, or use eigh for symmetric matrices")
    w, v = eig_p.bind(a, compute_right=True)
    da = ops.convert(da, v.dtype)
    # dw_i = (v^-1 da v)_ii = sum_k (v^-1 da)_ik v_ki
    dw = ops.reduce_sum(ops.mul(_solve(v, da), ops.matrix_transpose(v)), (v.ndim - 1,))
    return [w], [dw]


def _solve(a, b):
    """``a^-1 b`` for square ``a`` and ``b`` of one shape: LU with partial pivoting, then the
    two triangular solves."""
    lu, _, permutation = lu_p.bind(a)
    rows = ops.broadcast_to(ops.expand_dims(permutation, permutation.ndim), b.shape)
    y = triangular_solve_p.bind(lu, ops.take_along_axis(b, rows, b.ndim - 2), left_side=True,
                                lower=True, transpose_a=False, conjugate_a=False,
                                unit_diagonal=True)
    return triangular_solve_p.bind(lu, y, left_side=True, lower=False, transpose_a=False,
                                   conjugate_a=False, unit_diagonal=False)


@eig_p.def_batch
def _eig_batch(vals, dims, *, compute_right):
    (a,), (d,) = vals, dims
    outs = eig_p.bind(move_to_front(a, d, a.shape[d]), compute_right=compute_right)
    return outs, [0] * len(outs)


# --------------------------------------------------------------------------------------------
# Lowering
# --------------------------------------------------------------------------------------------

def _native_geev(platform, dtype, compute_right: bool):
    """The platform's geev kernel (a ``runtime.NativeCall``), or None. Its flags are
    ``compute_left``/``compute_right`` as ui8 ASCII codes ('N' 78, 'V' 86), as jaxlib's
    handler takes them."""
    return runtime.native_linalg(platform, "eig", dtype, compute_right=compute_right)


@functools.lru_cache(maxsize=128)
def _host_eig(aval: ShapedArray, compute_right: bool) -> HostCallback:
    """One host callback per signature (the executable cache keys on the callback)."""
    out_avals = _eig_abstract_eval(aval, compute_right=compute_right)
    return HostCallback(lambda a: _eig_kernel(np.asarray(a), compute_right=compute_right),
                        tuple(out_avals), "eig")


def _emit_geev(ctx, native, a, aval, compute_right: bool) -> list:
    batch, n = aval.shape[:-2], aval.shape[-1]
    complex_dtype = _complex_dtype(aval.dtype)
    real = not np.issubdtype(np.dtype(aval.dtype), np.complexfloating)
    w_part = ShapedArray((*batch, n), aval.dtype)
    vectors = ShapedArray(aval.shape, complex_dtype)
    info = ShapedArray(batch, np.int32)
    # geev's results: real input wr, wi (complex input: w), then vl, vr (always declared
    # full size, even when not computed) and info.
    results = ([w_part, w_part] if real else [w_part]) + [vectors, vectors, info]
    matrix = [False] * (len(results) - 3) + [True, True, False]
    outs = emit_native_call(ctx, native, a, results, tuple(matrix))
    w_aval = ShapedArray((*batch, n), complex_dtype)
    if real:
        w = ctx.op("stablehlo.complex", outs[0], outs[1], results=[w_aval])[0]
    else:
        w = outs[0]
    values = [(w, w_aval)] + ([(outs[-2], vectors)] if compute_right else [])
    # A failed decomposition (info != 0) gives NaN + NaN j, as in JAX.
    return [ctx.op("stablehlo.select", failed_matrices(ctx, outs[-1], x_aval.shape),
                   ctx.constant(complex(np.nan, np.nan), x_aval), x, results=[x_aval])[0]
            for x, x_aval in values]


@eig_p.def_lower
def _eig_lower(ctx, a, *, compute_right):
    aval = ctx.avals_in[0]
    native = _native_geev(ctx.platform, aval.dtype, compute_right)
    if native is not None:
        return _emit_geev(ctx, native, a, aval, compute_right)
    if runtime.host_callback_target(ctx.platform) is None:
        raise NotImplementedError(
            f"eig has no StableHLO operation and no native kernel for platform "
            f"{ctx.platform!r}; compute it eagerly (outside jit) or on CPU")
    return lower_host_callback(ctx, a, callback=_host_eig(aval, compute_right),
                               side_effect=False)
