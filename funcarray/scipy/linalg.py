"""``funcarray.scipy.linalg``: jax.scipy.linalg's factor-and-solve functions.

Built on the factorisation primitives (``funcarray.primitives.decompositions``) and on
``funcarray.numpy.linalg``; SciPy's ``overwrite_*``/``check_finite`` arguments are accepted
and ignored, as in JAX (arrays are immutable, and nothing is checked for finiteness).

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray.scipy import linalg
    >>> c = linalg.cho_factor(fnp.asarray([[4.0, 2.0], [2.0, 5.0]]))
    >>> linalg.cho_solve(c, fnp.asarray([4.0, 2.0]))
    Array([1., 0.], dtype=float32)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

import funcarray.numpy as fnp
from funcarray.base.errors import api_boundary, op_value_error
from funcarray.numpy import linalg as _np_linalg
from funcarray.numpy._linalg_solve import _factorisable, solve_operands
from funcarray.primitives.decompositions import lu_p, permutation_from_pivots, triangular_solve_p
from funcarray.primitives.qr_pivoted import qr_pivoted_p
from funcarray.scipy._linalg_hessenberg import hessenberg
from funcarray.scipy._linalg_matfuncs import *  # noqa: F403
from funcarray.scipy._linalg_matfuncs import __all__ as _matfunc_names
from funcarray.scipy._linalg_qr_multiply import qr_multiply
from funcarray.scipy._linalg_schur import funm, rsf2csf, schur, sqrtm
from funcarray.scipy._linalg_special_matrices import *  # noqa: F403
from funcarray.scipy._linalg_special_matrices import __all__ as _special_matrix_names
from funcarray.scipy._linalg_tridiagonal import eigh_tridiagonal

if TYPE_CHECKING:
    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike

__all__ = ["cholesky", "cho_factor", "cho_solve", "solve_triangular", "lu", "lu_factor",
           "lu_solve", "solve", "inv", "det", "eigh", "qr", "svd", "hessenberg", *_matfunc_names,
           *_special_matrix_names, "schur", "rsf2csf", "sqrtm", "funm", "qr_multiply",
           "eigh_tridiagonal"]


def _trans_flags(op: str, trans):
    flags = {0: (False, False), "N": (False, False), 1: (True, False), "T": (True, False),
             2: (True, True), "C": (True, True)}
    if trans not in flags:
        raise op_value_error(op, f"trans={trans!r} must be 0/'N', 1/'T' or 2/'C'")
    return flags[trans]


def _solve(a, b, *, lower, transpose, conjugate, unit_diagonal=False):
    return triangular_solve_p.bind(a, b, left_side=True, lower=lower, transpose_a=transpose,
                                   conjugate_a=conjugate, unit_diagonal=unit_diagonal)


@api_boundary
def solve_triangular(a: ArrayLike, b: ArrayLike, trans: int | str = 0, lower: bool = False,
                     unit_diagonal: bool = False, overwrite_b: bool = False,
                     debug: None = None, check_finite: bool = True) -> Array:
    """Solve ``op(a) x = b`` for triangular ``a`` (``trans``: 0 ``a``, 1 ``a^T``, 2 ``a^H``);
    only the triangle ``lower`` names is read.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.linalg import solve_triangular
        >>> solve_triangular(fnp.asarray([[2.0, 0.0], [1.0, 1.0]]), fnp.asarray([2.0, 3.0]),
        ...                  lower=True)
        Array([1., 2.], dtype=float32)
    """
    op = "scipy.linalg.solve_triangular"
    transpose, conjugate = _trans_flags(op, trans)
    a, b, vector = solve_operands(op, a, b)
    x = _solve(a, b, lower=lower, transpose=transpose, conjugate=conjugate,
               unit_diagonal=unit_diagonal)
    return x[..., 0] if vector else x


@api_boundary
def cholesky(a: ArrayLike, lower: bool = False, overwrite_a: bool = False,
             check_finite: bool = True) -> Array:
    """The Cholesky factor: upper ``U`` with ``a = U^H U`` (SciPy's default), or lower.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.linalg import cholesky
        >>> cholesky(fnp.asarray([[4.0, 2.0], [2.0, 5.0]]))
        Array([[2., 1.],
               [0., 2.]], dtype=float32)
    """
    return _np_linalg.cholesky(a, upper=not lower)


@api_boundary
def cho_factor(a: ArrayLike, lower: bool = False, overwrite_a: bool = False,
               check_finite: bool = True) -> tuple[Array, bool]:
    """``(c, lower)`` for ``cho_solve``: the Cholesky factor and which triangle it is in.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.linalg import cho_factor
        >>> cho_factor(fnp.asarray([[4.0, 0.0], [0.0, 9.0]]), lower=True)[0]
        Array([[2., 0.],
               [0., 3.]], dtype=float32)
    """
    return _np_linalg.cholesky(a, upper=not lower), lower


@api_boundary
def cho_solve(c_and_lower: tuple[ArrayLike, bool], b: ArrayLike, overwrite_b: bool = False,
              check_finite: bool = True) -> Array:
    """Solve ``a x = b`` from ``cho_factor(a)``: two triangular solves.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.linalg import cho_factor, cho_solve
        >>> cho_solve(cho_factor(fnp.asarray([[4.0, 0.0], [0.0, 9.0]])), fnp.asarray([4.0, 9.0]))
        Array([1., 1.], dtype=float32)
    """
    c, lower = c_and_lower
    c, b, vector = solve_operands("scipy.linalg.cho_solve", c, b)
    # a = L L^H: solve L y = b, then L^H x = y (with U = L^H: U^H y = b, then U x = y).
    y = _solve(c, b, lower=lower, transpose=not lower, conjugate=not lower)
    x = _solve(c, y, lower=lower, transpose=lower, conjugate=lower)
    return x[..., 0] if vector else x


@api_boundary
def lu_factor(a: ArrayLike, overwrite_a: bool = False,
              check_finite: bool = True) -> tuple[Array, Array]:
    """``(lu, piv)``: the packed LU factors and 0-based pivots (LAPACK ``getrf``).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.linalg import lu_factor
        >>> lu_factor(fnp.asarray([[1.0, 2.0], [4.0, 4.0]]))[1]
        Array([1, 1], dtype=int32)
    """
    a = _factorisable("scipy.linalg.lu_factor", a)
    lu_, pivots, _ = lu_p.bind(a)
    return lu_, pivots


@api_boundary
def lu_solve(lu_and_piv: tuple[ArrayLike, ArrayLike], b: ArrayLike, trans: int | str = 0,
             overwrite_b: bool = False, check_finite: bool = True) -> Array:
    """Solve ``op(a) x = b`` from ``lu_factor(a)`` (``trans``: 0 ``a``, 1 ``a^T``, 2 ``a^H``).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.linalg import lu_factor, lu_solve
        >>> lu_solve(lu_factor(fnp.asarray([[0.0, 2.0], [4.0, 0.0]])), fnp.asarray([2.0, 4.0]))
        Array([1., 1.], dtype=float32)
    """
    op = "scipy.linalg.lu_solve"
    transpose, conjugate = _trans_flags(op, trans)
    lu_, pivots = lu_and_piv
    lu_, b, vector = solve_operands(op, lu_, b)
    permutation = permutation_from_pivots(fnp.asarray(pivots), lu_.shape[-1])
    if not transpose:  # P a = L U: x = U^-1 L^-1 P b
        rows = fnp.take_along_axis(b, permutation[..., :, None], axis=-2)
        y = _solve(lu_, rows, lower=True, transpose=False, conjugate=False, unit_diagonal=True)
        x = _solve(lu_, y, lower=False, transpose=False, conjugate=False)
    else:  # op(a) = op(U) op(L) P: x = P^T op(L)^-1 op(U)^-1 b
        y = _solve(lu_, b, lower=False, transpose=True, conjugate=conjugate)
        z = _solve(lu_, y, lower=True, transpose=True, conjugate=conjugate, unit_diagonal=True)
        inverse = fnp.argsort(permutation, axis=-1)
        x = fnp.take_along_axis(z, inverse[..., :, None], axis=-2)
    return x[..., 0] if vector else x


@api_boundary
def lu(a: ArrayLike, permute_l: bool = False, overwrite_a: bool = False,
       check_finite: bool = True) -> tuple[Array, Array, Array] | tuple[Array, Array]:
    """``(p, l, u)`` with ``a = p @ l @ u`` (``permute_l``: ``(p @ l, u)``).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.linalg import lu
        >>> p, l, u = lu(fnp.asarray([[1.0, 2.0], [4.0, 4.0]]))
        >>> p @ l @ u
        Array([[1., 2.],
               [4., 4.]], dtype=float32)
    """
    a = _factorisable("scipy.linalg.lu", a)
    lu_, _, permutation = lu_p.bind(a)
    m, n = a.shape[-2:]
    k = min(m, n)
    lower = fnp.tril(lu_[..., :, :k], -1) + fnp.eye(m, k, dtype=a.dtype)
    upper = fnp.triu(lu_[..., :k, :])
    # p[permutation[i], i] = 1, so that p @ (l @ u) puts row i of l @ u back at permutation[i]
    # (p is real even for complex a, as in JAX)
    p = (permutation[..., None, :] == fnp.arange(m)[:, None]).astype(np.finfo(a.dtype).dtype)
    return (fnp.matmul(p.astype(a.dtype), lower), upper) if permute_l else (p, lower, upper)


@api_boundary
def solve(a: ArrayLike, b: ArrayLike, lower: bool = False, overwrite_a: bool = False,
          overwrite_b: bool = False, debug: bool = False, check_finite: bool = True,
          assume_a: str = "gen") -> Array:
    """Solve ``a x = b``; ``assume_a`` may be 'gen' (LU), or 'sym'/'her'/'pos' (Cholesky for
    'pos'; the others use LU, which is exact for them too).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.linalg import solve
        >>> solve(fnp.asarray([[4.0, 0.0], [0.0, 2.0]]), fnp.asarray([4.0, 2.0]), assume_a="pos")
        Array([1., 1.], dtype=float32)
    """
    if assume_a not in ("gen", "sym", "her", "pos"):
        raise op_value_error("scipy.linalg.solve", f"assume_a={assume_a!r} must be 'gen', "
                                                   f"'sym', 'her' or 'pos'")
    if assume_a == "pos":
        return cho_solve(cho_factor(a, lower=lower), b)
    return _np_linalg.solve(a, b)


@api_boundary
def inv(a: ArrayLike, overwrite_a: bool = False, check_finite: bool = True) -> Array:
    """The inverse of a square matrix.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.linalg import inv
        >>> inv(fnp.asarray([[2.0, 0.0], [0.0, 4.0]]))
        Array([[0.5 , 0.  ],
               [0.  , 0.25]], dtype=float32)
    """
    return _np_linalg.inv(a)


@api_boundary
def det(a: ArrayLike, overwrite_a: bool = False, check_finite: bool = True) -> Array:
    """The determinant of a square matrix.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.linalg import det
        >>> det(fnp.asarray([[0.0, 2.0], [4.0, 1.0]]))
        Array(-8., dtype=float32)
    """
    return _np_linalg.det(a)


@api_boundary
def eigh(a: ArrayLike, b: ArrayLike | None = None, lower: bool = True, eigvals_only: bool = False,
         overwrite_a: bool = False, overwrite_b: bool = False, turbo: bool = True,
         eigvals: None = None, type: int = 1,
         check_finite: bool = True) -> Array | tuple[Array, Array]:
    """Eigenvalues (ascending) and eigenvectors ``(w, v)`` of a symmetric matrix (SciPy's
    signature; ``w`` alone when ``eigvals_only``). ``lower`` names the triangle of interest;
    the input is symmetrised, as in JAX. The generalised problem (``b``), ``eigvals`` subsets
    and ``type`` other than 1 raise NotImplementedError, as in JAX.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.linalg import eigh
        >>> eigh(fnp.asarray([[2.0, 1.0], [1.0, 2.0]]), eigvals_only=True)
        Array([1., 3.], dtype=float32)
    """
    if b is not None:
        raise NotImplementedError("scipy.linalg.eigh: only b=None (the standard eigenproblem) "
                                  "is implemented; for positive definite b, solve with "
                                  "L = cholesky(b): eigh(inv(L) @ a @ inv(L).T)")
    if type != 1:
        raise NotImplementedError(f"scipy.linalg.eigh: only type=1 is implemented, got {type}")
    if eigvals is not None:
        raise NotImplementedError("scipy.linalg.eigh: only eigvals=None is implemented; "
                                  "slice the sorted eigenvalues instead")
    w, v = _np_linalg.eigh(a, UPLO="L" if lower else "U")
    return w if eigvals_only else (w, v)


@api_boundary
def qr(a: ArrayLike, overwrite_a: bool = False, lwork: None = None, mode: str = "full",
       pivoting: bool = False, check_finite: bool = True) -> tuple[Array, ...]:
    """QR decomposition with SciPy's modes: 'full' (``(q, r)``, ``q`` square), 'economic'
    (``q`` is m x min(m, n)) or 'r' (the 1-tuple ``(r,)``, full-size ``r``). ``pivoting``
    adds the column order ``p`` (LAPACK ``geqp3``, as JAX and SciPy) with
    ``a[..., :, p] = q @ r`` and ``|diag(r)|`` non-increasing: ``(q, r, p)``, or ``(r, p)``
    for mode 'r'.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.linalg import qr
        >>> q, r = qr(fnp.asarray([[3.0], [4.0]]))
        >>> q.shape, r.shape
        ((2, 2), (2, 1))
        >>> qr(fnp.asarray([[1.0, 3.0], [0.0, 4.0]]), pivoting=True)[2]
        Array([1, 0], dtype=int32)
    """
    op = "scipy.linalg.qr"
    if mode not in ("full", "economic", "r"):
        raise op_value_error(op, f"mode must be 'full', 'economic' or 'r', got {mode!r}")
    if pivoting:
        x = _factorisable(op, a)
        if x.ndim < 2:
            raise op_value_error(op, f"a must be a matrix or a stack of them, got shape "
                                     f"{tuple(x.shape)}")
        q, r, p = qr_pivoted_p.bind(x, full_matrices=mode != "economic")
        return (r, p) if mode == "r" else (q, r, p)
    q, r = _np_linalg.qr(a, mode="reduced" if mode == "economic" else "complete")
    return (r,) if mode == "r" else (q, r)


@api_boundary
def svd(a: ArrayLike, full_matrices: bool = True, compute_uv: bool = True,
        overwrite_a: bool = False, check_finite: bool = True,
        lapack_driver: str = "gesdd") -> Array | tuple[Array, Array, Array]:
    """Singular value decomposition ``(u, s, vh)`` with ``a = u @ diag(s) @ vh`` (SciPy's
    signature; ``s`` alone, descending, when ``compute_uv`` is False). ``lapack_driver`` is
    accepted and ignored, as in JAX.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.linalg import svd
        >>> svd(fnp.asarray([[0.0, 2.0], [1.0, 0.0]]), compute_uv=False)
        Array([2., 1.], dtype=float32)
    """
    out = _np_linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv)
    return tuple(out) if compute_uv else out
