"""Spectral decompositions for ``funcarray.numpy.linalg``: ``qr``, ``eigh``, ``svd`` and what
is built on them (``eigvalsh``, ``svdvals``, ``matrix_rank``, ``pinv``, ``lstsq``, ``cond``).

The factorisations are the primitives of
``funcarray/primitives/orthogonal_decompositions.py``; the functions here check and promote
their inputs (integers become floats, as in jax.numpy) and compose the
rest from ordinary funcarray operations, so everything differentiates, vectorises and jits.
``qr``, ``svd``, ``svdvals``, ``matrix_rank`` and ``cond`` take complex matrices too; the
others real float32/float64 ones only (complex and half-precision inputs raise a TypeError).

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray.numpy import linalg
    >>> linalg.eigvalsh(fnp.asarray([[2.0, 1.0], [1.0, 2.0]]))
    Array([1., 3.], dtype=float32)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple, overload

import numpy as np

from funcarray.api.arguments import asarray_arg, convert, to_inexact_dtype
from funcarray.api.custom_derivatives import custom_jvp
from funcarray.base import dtypes
from funcarray.base.errors import op_type_error, op_value_error
from funcarray.lax.linalg import hermitian_part
from funcarray.numpy import (
    _creation,
    _elementwise,
    _index_routines,
    _linalg,
    _reductions,
    _shape,
    _sort_and_nonzero,
)
from funcarray.primitives.orthogonal_decompositions import eigh_p, qr_p, svd_p

if TYPE_CHECKING:
    from typing import Literal

    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike

__all__ = ["QRResult", "EighResult", "SVDResult", "qr", "eigh", "eigvalsh", "svd", "svdvals",
           "matrix_rank", "pinv", "lstsq", "cond"]


class QRResult(NamedTuple):
    Q: Array
    R: Array


class EighResult(NamedTuple):
    eigenvalues: Array
    eigenvectors: Array


class SVDResult(NamedTuple):
    U: Array
    S: Array
    Vh: Array


def _mT(x):
    return _shape.swapaxes(x, -1, -2)


def _mH(x):
    """The conjugate transpose of ``x``'s matrices (the transpose for real ones)."""
    return _mT(x.conj() if dtypes.is_complex(x.dtype) else x)


def _float_matrix(op: str, a, *, square: bool = False, min_ndim: int = 2,
                  complex_ok: bool = False):
    """``a`` as a float32/float64 (or, with ``complex_ok``, complex64/complex128) array with at
    least ``min_ndim`` dimensions (integers and bools promoted as jax.numpy does), or a clear
    error naming ``op``."""
    a = asarray_arg(op, a)
    if not dtypes.is_complex(a.dtype):
        a = convert(a, to_inexact_dtype(a.dtype))
    elif not complex_ok:
        raise op_type_error(op, f"complex matrices are not supported yet (got {a.dtype}); "
                                f"decompose a real matrix (e.g. the real 2n x 2n embedding "
                                f"[[re, -im], [im, re]]) instead")
    if a.dtype not in (dtypes.float32, dtypes.float64, dtypes.complex64, dtypes.complex128):
        raise op_type_error(op, f"{a.dtype} matrices are not supported; convert with "
                                f"a.astype(fnp.float32) first")
    if a.ndim < min_ndim:
        raise op_value_error(op, f"expected an array of matrices (at least {min_ndim} "
                                 f"dimensions, the last two the matrix), got shape {a.shape}")
    if square and a.shape[-1] != a.shape[-2]:
        raise op_value_error(op, f"expected square matrices (the last two dimensions equal), "
                                 f"got shape {a.shape}")
    return a


@overload
def qr(a: ArrayLike, mode: Literal["reduced", "complete"] = "reduced") -> QRResult: ...
@overload
def qr(a: ArrayLike, mode: Literal["r"]) -> Array: ...
@overload
def qr(a: ArrayLike, mode: str = "reduced") -> Array | QRResult: ...
def qr(a, mode: str = "reduced"):
    """QR decomposition ``a = Q @ R`` (jax.numpy.linalg.qr): ``mode`` is ``"reduced"``
    (``Q`` is ``(..., m, k)``, ``k = min(m, n)``), ``"complete"`` (``Q`` square) or ``"r"``
    (``R`` only).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.numpy import linalg
        >>> q, r = linalg.qr(fnp.asarray([[3.0, 1.0], [4.0, 2.0]]))
        >>> fnp.allclose(q @ r, fnp.asarray([[3.0, 1.0], [4.0, 2.0]])).item()
        True
    """
    if mode not in ("reduced", "complete", "r"):
        hint = " ('raw' is not supported)" if mode == "raw" else ""
        raise op_value_error("qr", f"mode must be 'reduced', 'complete' or 'r', got "
                                   f"{mode!r}{hint}")
    a = _float_matrix("qr", a, complex_ok=True)
    q, r = qr_p.bind(a, full_matrices=mode == "complete")
    return r if mode == "r" else QRResult(q, r)


def _symmetrize(a):
    return (a + _mH(a)) / 2


def eigh(a: ArrayLike, UPLO: str | None = None, symmetrize_input: bool = True
         ) -> EighResult:
    """Eigenvalues (ascending, real) and eigenvectors of symmetric or Hermitian matrices
    (jax.numpy.linalg.eigh). ``UPLO`` ("L", the default, or "U") is the triangle read when
    ``symmetrize_input`` is False; by default ``(a + a^H) / 2`` is decomposed, which gives
    symmetric gradients.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.numpy import linalg
        >>> w, v = linalg.eigh(fnp.asarray([[2.0, 1.0], [1.0, 2.0]]))
        >>> w
        Array([1., 3.], dtype=float32)
    """
    if UPLO not in (None, "L", "U"):
        raise op_value_error("eigh", f"UPLO must be None, 'L' or 'U', got {UPLO!r}")
    a = _float_matrix("eigh", a, square=True, complex_ok=True)
    if symmetrize_input:
        a = hermitian_part(a)
    v, w = eigh_p.bind(a, lower=UPLO != "U")
    return EighResult(w, v)


def eigvalsh(a: ArrayLike, UPLO: str | None = "L", *, symmetrize_input: bool = True) -> Array:
    """Eigenvalues of symmetric matrices, ascending (jax.numpy.linalg.eigvalsh).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.numpy import linalg
        >>> linalg.eigvalsh(fnp.asarray([[1.0, 0.0], [0.0, -1.0]]))
        Array([-1.,  1.], dtype=float32)
    """
    return eigh(a, UPLO, symmetrize_input=symmetrize_input).eigenvalues


def _hermitian_svd(a, compute_uv: bool):
    """The SVD of a symmetric matrix from its eigendecomposition: ``s = |w|``, the left
    vectors are the eigenvectors and the right ones carry the eigenvalues' signs."""
    w, v = eigh(a)
    order = _sort_and_nonzero.argsort(-_elementwise.abs(w), axis=-1)
    w = _index_routines.take_along_axis(w, order, axis=-1)
    s = _elementwise.abs(w)
    if not compute_uv:
        return s
    u = _index_routines.take_along_axis(v, order[..., None, :], axis=-1)
    signs = _elementwise.where(w < 0, -1, 1).astype(a.dtype)
    return SVDResult(u, s, _mH(u * signs[..., None, :]))


@overload
def svd(a: ArrayLike, full_matrices: bool = True, compute_uv: Literal[True] = True,
        hermitian: bool = False) -> SVDResult: ...
@overload
def svd(a: ArrayLike, full_matrices: bool, compute_uv: Literal[False],
        hermitian: bool = False) -> Array: ...
@overload
def svd(a: ArrayLike, full_matrices: bool = True, *, compute_uv: Literal[False],
        hermitian: bool = False) -> Array: ...
@overload
def svd(a: ArrayLike, full_matrices: bool = True, compute_uv: bool = True,
        hermitian: bool = False) -> Array | SVDResult: ...
def svd(a, full_matrices: bool = True, compute_uv: bool = True, hermitian: bool = False):
    """Singular value decomposition ``a = U @ diag(S) @ Vh`` (jax.numpy.linalg.svd),
    singular values descending; ``S`` only when ``compute_uv`` is False. ``hermitian``
    computes it from ``eigh`` (the matrix must then be square and is symmetrised).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.numpy import linalg
        >>> linalg.svd(fnp.asarray([[3.0, 0.0], [0.0, -4.0]]), compute_uv=False)
        Array([4., 3.], dtype=float32)
    """
    a = _float_matrix("svd", a, square=hermitian, complex_ok=True)
    if hermitian:
        return _hermitian_svd(a, compute_uv)
    outs = svd_p.bind(a, full_matrices=bool(full_matrices), compute_uv=bool(compute_uv))
    if not compute_uv:
        return outs[0]
    s, u, vh = outs
    return SVDResult(u, s, vh)


def svdvals(x: ArrayLike, /) -> Array:
    """Singular values, descending (jax.numpy.linalg.svdvals).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.numpy import linalg
        >>> linalg.svdvals(fnp.asarray([[0.0, 2.0], [1.0, 0.0]]))
        Array([2., 1.], dtype=float32)
    """
    return svd(x, compute_uv=False)


def matrix_rank(M: ArrayLike, rtol: ArrayLike | None = None, *, hermitian: bool = False,
                tol: ArrayLike | None = None) -> Array:
    """The number of singular values above ``rtol * max(S)`` (jax.numpy.linalg.matrix_rank,
    as its documentation, NumPy and the Array API standard define ``rtol``; the default
    ``rtol`` is ``max(m, n) * eps``). ``tol``, its older name, is an absolute cutoff, as
    NumPy's ``tol`` and as jax applies either.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.numpy import linalg
        >>> linalg.matrix_rank(fnp.asarray([[1.0, 2.0], [2.0, 4.0]]))
        Array(1, dtype=int32)
        >>> linalg.matrix_rank(fnp.asarray([[10.0, 0.0], [0.0, 0.5]]), rtol=0.1)
        Array(1, dtype=int32)
    """
    if tol is not None and rtol is not None:
        raise op_value_error("matrix_rank", "give only one of tol and rtol")
    M = _float_matrix("matrix_rank", M, min_ndim=0, complex_ok=True)
    if M.ndim < 2:  # a vector or scalar has rank 1 unless it is all zeros (as NumPy)
        return _reductions.any(M != 0).astype(np.int32)
    s = svd(M, compute_uv=False, hermitian=hermitian)
    if tol is not None:
        cutoff = asarray_arg("matrix_rank", tol)
    else:
        if rtol is None:
            rtol = max(M.shape[-2:]) * _eps(s.dtype)
        cutoff = asarray_arg("matrix_rank", rtol) * _reductions.max(s, axis=-1)
    return _reductions.sum(s > _shape.expand_dims(cutoff, -1), axis=-1).astype(np.int32)


def _eps(dtype) -> float:
    return float(np.finfo(np.dtype(dtype)).eps)


def _pinv_impl(a, rtol, hermitian):
    m, n = a.shape[-2:]
    if m == 0 or n == 0:
        return _creation.zeros((*a.shape[:-2], n, m), a.dtype)
    if rtol is None:
        rtol = 10.0 * max(m, n) * _eps(a.dtype)
    u, s, vh = svd(a, full_matrices=False, hermitian=hermitian)
    rtol = asarray_arg("pinv", rtol).astype(s.dtype)
    cutoff = _shape.expand_dims(rtol, -1) * s[..., :1]
    # Singular values at or below the cutoff count as zero: 1/inf drops their directions.
    s = _elementwise.where(s > cutoff, s, np.inf)
    return _linalg.matmul(_mH(vh), _mH(u) / s[..., :, None])


def _pinv_primal(a, rtol, hermitian):
    return _pinv_impl(a, rtol, hermitian)


_pinv = custom_jvp(_pinv_primal, nondiff_argnums=(1, 2))


@_pinv.defjvp
def _pinv_jvp(rtol, hermitian, primals, tangents):
    # Golub & Pereyra (1973): the derivative of the pseudo-inverse, valid at constant rank,
    # so unlike the SVD's it needs no distinct singular values.
    (a,), (da,) = primals, tangents
    p = _pinv(a, rtol, hermitian)
    if hermitian:
        a, da = _symmetrize(a), _symmetrize(da)
    mm = _linalg.matmul
    pp_h = mm(p, _mH(p))
    ph_p = mm(_mH(p), p)
    dp = (-mm(mm(p, da), p) + mm(pp_h, _mH(da)) - mm(mm(pp_h, _mH(da)), mm(a, p))
          + mm(_mH(da), ph_p) - mm(mm(p, a), mm(_mH(da), ph_p)))
    return p, dp


def pinv(a: ArrayLike, rtol: ArrayLike | None = None, hermitian: bool = False, *,
         rcond: ArrayLike | None = None) -> Array:
    """Moore-Penrose pseudo-inverse from the SVD (jax.numpy.linalg.pinv): singular values
    at or below ``rtol * max(S)`` (default ``10 * max(m, n) * eps``) count as zero. Complex
    matrices are inverted with conjugate transposes.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.numpy import linalg
        >>> linalg.pinv(fnp.asarray([[2.0, 0.0], [0.0, 0.0]]))
        Array([[0.5, 0. ],
               [0. , 0. ]], dtype=float32)
    """
    if rcond is not None:
        if rtol is not None:
            raise op_value_error("pinv", "give only one of rtol and rcond")
        rtol = rcond
    a = _float_matrix("pinv", a, square=hermitian, complex_ok=True)
    if rtol is not None and not isinstance(rtol, (int, float)):
        rtol = asarray_arg("pinv", rtol)
    return _pinv(a, rtol, bool(hermitian))


def lstsq(a: ArrayLike, b: ArrayLike, rcond: float | None = None, *, numpy_resid: bool = False
          ) -> tuple[Array, Array, Array, Array]:
    """Least-squares solution of ``a @ x = b`` from the SVD (jax.numpy.linalg.lstsq):
    returns ``(x, residuals, rank, s)``; singular values below ``rcond * max(S)`` (default
    ``max(m, n) * eps``) count as zero. ``residuals`` (squared norms of ``b - a @ x`` per
    column) are always computed unless ``numpy_resid`` asks for NumPy's empty ones when the
    rank is deficient or ``m <= n``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.numpy import linalg
        >>> a = fnp.asarray([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])
        >>> x, resid, rank, s = linalg.lstsq(a, fnp.asarray([1.0, 2.0, 3.0]))
        >>> x, resid, rank
        (Array([1., 2.], dtype=float32), Array([9.], dtype=float32), Array(2, dtype=int32))
    """
    a = _float_matrix("lstsq", a, complex_ok=True)
    b = asarray_arg("lstsq", b)
    if a.ndim != 2:
        raise op_value_error("lstsq", f"a must be one matrix (2 dimensions), got shape "
                                      f"{a.shape}; use vmap for a batch")
    if b.ndim not in (1, 2):
        raise op_value_error("lstsq", f"b must be a vector or a matrix, got shape {b.shape}")
    if b.shape[0] != a.shape[0]:
        raise op_value_error("lstsq", f"a and b must have the same number of rows, got "
                                      f"shapes {a.shape} and {b.shape}")
    dtype = dtypes.result_type(a, b)
    a, b = a.astype(dtype), _float_matrix("lstsq", b, min_ndim=1, complex_ok=True).astype(dtype)
    vector = b.ndim == 1
    if vector:
        b = b[:, None]
    m, n = a.shape
    real = np.finfo(dtype).dtype  # (singular values and residuals are real)
    if a.size == 0:
        s = _creation.zeros((0,), real)
        rank = _creation.asarray(0, np.int32)
        x = _creation.zeros((n, b.shape[1]), dtype)
    else:
        eps = _eps(dtype)
        cutoff = eps * max(m, n) if rcond is None else _elementwise.where(
            asarray_arg("lstsq", rcond) < 0, eps, rcond)
        u, s, vh = svd(a, full_matrices=False)
        keep = (s > 0) & (s >= _creation.asarray(cutoff).astype(real) * s[0])
        rank = _reductions.sum(keep).astype(np.int32)
        s_inv = _elementwise.where(keep, 1 / _elementwise.where(keep, s, 1), 0)
        s_inv = s_inv.astype(dtype)
        x = _linalg.matmul(_mH(vh), s_inv[:, None] * _linalg.matmul(_mH(u), b))
    if numpy_resid and (int(rank) < n or m <= n):
        resid = _creation.zeros((0,), real)
    else:
        r = b - _linalg.matmul(a, x)
        resid = _reductions.sum((r * r.conj()).real if
                                dtypes.is_complex(dtype) else r * r, axis=0)
    if vector:
        x = x[:, 0]
    return x, resid, rank, s


def lstsq_solution_on_host(a, b, rcond: float):
    """``lstsq(a, b, rcond)[0]`` for NumPy values: a real float32/float64 matrix ``a`` with
    rows and columns and ``b`` (1-D or 2-D) of its dtype, by the general path's formula with
    the kernels (the SVD's, the comparisons' and divisions' ufuncs, NumPy's ``dot`` as
    matmul's) for a host shortcut."""
    vector = b.ndim == 1
    if vector:
        b = b[:, None]
    s, u, vh = svd_p.kernel(a, full_matrices=False, compute_uv=True)
    one, zero = a.dtype.type(1), a.dtype.type(0)
    # (rcond reaches the cutoff as a weak float32, converted to the singular values' dtype)
    cutoff = np.multiply(a.dtype.type(np.float32(rcond)), s[0])
    keep = np.logical_and(np.greater(s, zero), np.greater_equal(s, cutoff))
    s_inv = np.where(keep, np.divide(one, np.where(keep, s, one)), zero)
    x = np.dot(vh.T, np.multiply(s_inv[:, None], np.dot(u.T, b)))
    return x[:, 0] if vector else x


def cond(x: ArrayLike, p: int | float | str | None = None) -> Array:
    """Condition number in the 2-norm, ``max(S) / min(S)`` (jax.numpy.linalg.cond; ``p``
    may be None, 2 or -2 (``min(S) / max(S)``)).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.numpy import linalg
        >>> linalg.cond(fnp.asarray([[4.0, 0.0], [0.0, 0.5]]))
        Array(8., dtype=float32)
    """
    if p not in (None, 2, -2):
        raise op_value_error("cond", f"only p=None, 2 or -2 are supported, got p={p!r}; "
                                     f"for other norms use norm(x, p) * norm(inv(x), p)")
    x = _float_matrix("cond", x, complex_ok=True)
    if x.shape[-1] == 0 or x.shape[-2] == 0:
        raise op_value_error("cond", f"the matrices must not be empty, got shape {x.shape}")
    s = svd(x, compute_uv=False)
    return s[..., -1] / s[..., 0] if p == -2 else s[..., 0] / s[..., -1]
