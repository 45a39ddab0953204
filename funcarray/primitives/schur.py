"""``schur``: the Schur decomposition of general square matrices (JAX's ``schur_p``).

``schur(a, *, compute_schur_vectors) -> [t, z]`` (``[t]`` without vectors): ``a`` is
``(..., n, n)`` float32/float64/complex64/complex128 (leading axes are batch axes), and
``a = z @ t @ z^H`` with ``z`` unitary. For complex ``a``, ``t`` is upper triangular (the
eigenvalues on its diagonal); for real ``a`` it is the real Schur form: quasi upper
triangular, each complex-conjugate eigenvalue pair a 2 x 2 block on the diagonal (standardised
as LAPACK does: equal diagonal entries, off-diagonal entries of opposite signs). ``t`` and
``z`` are LAPACK ``gees``'s (no eigenvalue sorting), as in JAX, which implements schur on CPU
only; a matrix for which the QR iteration fails gives NaN. Rules:

* eager: LAPACK ``gees`` through jaxlib, by compiling this primitive's one-equation IR for the
  CPU (``_native_kernel.native_cpu_kernel``): NumPy has no Schur decomposition, and a NumPy
  algorithm of our own would order the eigenvalues differently from jit and JAX;
* JVP: none (JAX has none: the Schur form is not a differentiable function of the matrix where
  eigenvalues are repeated, and its ordering is the algorithm's); a nonzero tangent raises;
* batching: the batch axis moves to the front;
* lowering: ``gees`` where ``runtime.native_linalg(platform, "schur", ...)`` offers it (CPU);
  otherwise, on GPU, a host callback into the eager kernel; a backend-neutral lowering raises
  NotImplementedError (StableHLO has no such operation).

Example:
    >>> import funcarray.numpy as fnp
    >>> t, z = schur_p.bind(fnp.asarray([[0.0, 1.0], [-1.0, 0.0]]), compute_schur_vectors=True)
    >>> t
    Array([[ 0.,  1.],
           [-1.,  0.]], dtype=float32)
"""

from __future__ import annotations

import numpy as np

from funcarray.lowering import runtime
from funcarray.primitives._define import wrap_kernel
from funcarray.primitives._native_kernel import lower_native_or_host, native_cpu_kernel
from funcarray.primitives.decompositions import (
    FACTORISABLE_DTYPES,
    checked_impl,
    emit_native_call,
    failed_matrices,
    failure_nan,
)
from funcarray.transforms.core import Primitive, ShapedArray
from funcarray.transforms.jvp import Zero, tangent_aval
from funcarray.transforms.vmap import move_to_front

__all__ = ["schur_p"]

schur_p = Primitive("schur", multiple_results=True)


@schur_p.def_abstract_eval
def _schur_abstract_eval(a, *, compute_schur_vectors):
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise TypeError(f"schur: expected square matrices (..., n, n), got {a.str_short()}")
    if np.dtype(a.dtype) not in FACTORISABLE_DTYPES:
        raise TypeError(f"schur: expected float32/float64/complex64/complex128 matrices, got "
                        f"{a.str_short()}; convert with .astype(float32) first")
    out = ShapedArray(a.shape, a.dtype)
    return [out, out] if compute_schur_vectors else [out]


schur_p.kernel = native_cpu_kernel(schur_p)
schur_p.impl = checked_impl(schur_p, wrap_kernel(schur_p.kernel, multiple_results=True))


@schur_p.def_jvp
def _schur_jvp(primals, tangents, *, compute_schur_vectors):
    (a,), (da,) = primals, tangents
    outs = schur_p.bind(a, compute_schur_vectors=compute_schur_vectors)
    if type(da) is not Zero:
        raise NotImplementedError(
            "schur has no derivative (as in JAX): the Schur form depends on the order in which "
            "the algorithm finds the eigenvalues, so scipy.linalg.sqrtm and funm, built on it, "
            "have none either. Differentiate eigenvalues with linalg.eigvals; expm has a "
            "derivative")
    return outs, [Zero(tangent_aval(o.aval)) for o in outs]


@schur_p.def_batch
def _schur_batch(vals, dims, *, compute_schur_vectors):
    (a,), (d,) = vals, dims
    outs = schur_p.bind(move_to_front(a, d, a.shape[d]),
                        compute_schur_vectors=compute_schur_vectors)
    return outs, [0] * len(outs)


def _emit_gees(ctx, native, a, aval, compute_schur_vectors: bool) -> list:
    batch, n = aval.shape[:-2], aval.shape[-1]
    eigvals = ShapedArray((*batch, n), aval.dtype)
    status = ShapedArray(batch, np.int32)
    # gees's results: t, z (declared even when not computed), the eigenvalues (wr, wi for real
    # input), sdim (the number of sorted eigenvalues: unused) and info.
    real = np.dtype(aval.dtype).kind == "f"
    results = [aval, aval] + ([eigvals, eigvals] if real else [eigvals]) + [status, status]
    matrix = (True, True) + (False,) * (len(results) - 2)
    outs = emit_native_call(ctx, native, a, results, matrix)
    failed = failed_matrices(ctx, outs[-1], aval.shape)
    nan = ctx.constant(failure_nan(aval.dtype), aval)
    kept = outs[:2] if compute_schur_vectors else outs[:1]
    return [ctx.op("stablehlo.select", failed, nan, x, results=[aval])[0] for x in kept]


@schur_p.def_lower
def _schur_lower(ctx, a, *, compute_schur_vectors):
    aval = ctx.avals_in[0]
    native = runtime.native_linalg(ctx.platform, "schur", aval.dtype,
                                   compute_schur_vectors=compute_schur_vectors)
    return lower_native_or_host(
        ctx, schur_p, [a], {"compute_schur_vectors": compute_schur_vectors}, native,
        lambda ctx, native: _emit_gees(ctx, native, a, aval, compute_schur_vectors))
