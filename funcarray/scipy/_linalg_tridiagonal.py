"""``funcarray.scipy.linalg.eigh_tridiagonal``: eigenvalues (and vectors) of a symmetric (or
Hermitian) tridiagonal matrix.

Eigenvalues: JAX's algorithm, bisection on Sturm sequence counts for all the selected
eigenvalues at once: start from the Gershgorin interval (slightly widened), and halve every
interval until the widest is below ``eps * ||T||`` (or ``tol``), at most ``nmant + 1``
times; the count of eigenvalues below ``x`` is the number of negative pivots of the LDL^T
factorisation of ``T - x I``, with pivots kept away from zero (``pivmin``). A ``while_loop``
of ``scan``s over whole arrays, so it runs eagerly, jits and vmaps; the values are JAX's.

Eigenvectors: JAX finds them by inverse iteration from random vectors (its ``key``). Here a
dense ``eigh`` of the matrix gives them instead (any orthonormal eigenbasis is one, and the
sign of each vector is arbitrary in both): a Hermitian tridiagonal matrix is ``D T_r D^H``
with ``T_r`` the real one with off-diagonal ``|e|`` and ``D`` a diagonal of phases, so the
vectors are ``D`` times ``T_r``'s. ``key`` is accepted for JAX's signature and not used.

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray.scipy.linalg import eigh_tridiagonal
    >>> d, e = fnp.asarray([1.0, 2.0, 3.0, 4.0]), fnp.asarray([1.0, 1.0, 1.0])
    >>> eigh_tridiagonal(d, e, eigvals_only=True).round(4)
    Array([0.2547   , 1.8226999, 3.1773   , 4.7453   ], dtype=float32)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

import funcarray.numpy as fnp
from funcarray.api.arguments import asarray_arg
from funcarray.base import dtypes
from funcarray.base.errors import api_boundary, op_type_error, op_value_error
from funcarray.lax import scan, while_loop

if TYPE_CHECKING:
    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike

__all__ = ["eigh_tridiagonal"]

_OP = "scipy.linalg.eigh_tridiagonal"


def _negative_pivots(alpha, beta_sq, pivmin, first_pivot_if_zero, x):
    """How many eigenvalues of the tridiagonal matrix lie below each entry of ``x``: the
    negative pivots of ``T - x I`` (a pivot in ``[-pivmin, pivmin]`` counts as negative and is
    replaced by ``-pivmin``, so none is ever zero)."""
    pivot = alpha[0] - x
    count = (pivot < 0).astype(np.int32)
    pivot = fnp.where(alpha[0] == x, first_pivot_if_zero, pivot)

    def step(carry, column):
        pivot, count = carry
        a, b2 = column
        pivot = a - b2 / pivot - x
        negative = pivot <= pivmin
        count = fnp.where(negative, count + 1, count)
        pivot = fnp.where(negative, fnp.minimum(pivot, -pivmin), pivot)
        return (pivot, count), None

    (_, count), _ = scan(step, (pivot, count), (alpha[1:], beta_sq))
    return count


def _bisect(alpha, beta_abs, beta_sq, targets, tol):
    """The ``targets``-th smallest eigenvalues (0-based int32 indices), by bisection."""
    n = alpha.shape[0]
    info = np.finfo(alpha.dtype)
    # Gershgorin bounds on the spectrum, and on the 2-norm
    row_sums = fnp.concatenate([beta_abs[:1], beta_abs[:-1] + beta_abs[1:], beta_abs[-1:]])
    top = fnp.max(alpha + row_sums)
    bottom = fnp.min(alpha - row_sums)
    norm = fnp.maximum(fnp.abs(bottom), fnp.abs(top))
    one = np.ones((), alpha.dtype)
    safemin = np.maximum(one / info.max, (one + info.eps) * info.tiny)
    pivmin = safemin * fnp.maximum(1, fnp.max(beta_sq))
    first_pivot_if_zero = (info.eps * beta_abs[0]) ** 2
    abs_tol = info.eps * norm
    if tol is not None:
        abs_tol = fnp.maximum(tol, abs_tol)
    # widen the interval a little: the bounds must hold after rounding too
    fudge = 2.1
    slack = fnp.asarray(n, alpha.dtype) * fudge * info.eps * norm
    shape = targets.shape
    lower = fnp.broadcast_to(bottom - slack - 2 * fudge * pivmin, shape)
    upper = fnp.broadcast_to(top + slack + fudge * pivmin, shape)
    mid = 0.5 * (upper + lower)
    pivmin = fnp.broadcast_to(pivmin, shape)
    first_pivot_if_zero = fnp.broadcast_to(first_pivot_if_zero, shape)
    steps = info.nmant + 1  # enough halvings for every mantissa bit

    def unfinished(state):
        i, lower, _, upper = state
        return (i < steps) & (abs_tol < fnp.max(upper - lower))

    def halve(state):
        i, lower, mid, upper = state
        below = _negative_pivots(alpha, beta_sq, pivmin, first_pivot_if_zero, mid)
        lower = fnp.where(below <= targets, mid, lower)
        upper = fnp.where(below > targets, mid, upper)
        return i + 1, lower, 0.5 * (lower + upper), upper

    start = (fnp.asarray(0, np.int32), lower, mid, upper)
    return while_loop(unfinished, halve, start)[2]


def _eigenvectors(alpha, beta, beta_abs, targets, complex_: bool):
    """Orthonormal eigenvectors (columns) for the ``targets``-th eigenvalues."""
    off = beta_abs if complex_ else beta
    _, vectors = fnp.linalg.eigh(fnp.diag(alpha) + fnp.diag(off, 1) + fnp.diag(off, -1))
    vectors = fnp.take(vectors, targets, axis=1)
    if not complex_:
        return vectors
    # T = D T_r D^H with d[i + 1] = d[i] conj(e[i]) / |e[i]|, d[0] = 1
    safe = fnp.where(beta_abs == 0, 1, beta_abs).astype(beta.dtype)
    phases = fnp.where(beta_abs == 0, 1, fnp.conj(beta) / safe)
    d = fnp.concatenate([fnp.ones(1, beta.dtype), fnp.cumprod(phases)])
    return vectors.astype(beta.dtype) * d[:, None]


@api_boundary
def eigh_tridiagonal(d: ArrayLike, e: ArrayLike, *, eigvals_only: bool = False, select: str = "a",
                     select_range: ArrayLike | None = None, tol: ArrayLike | None = None,
                     key: ArrayLike | None = None) -> Array | tuple[Array, Array]:
    """Eigenvalues (ascending) of the symmetric tridiagonal matrix with diagonal ``d``
    (``(n,)``) and off-diagonal ``e`` (``(n - 1,)``; complex: the Hermitian matrix with ``e``
    above the diagonal), and without ``eigvals_only`` the eigenvectors as columns
    ``(n, k)``. ``select='a'`` gives all of them, ``'i'`` those of indices
    ``select_range[0]`` to ``select_range[1]`` (inclusive); ``'v'`` is not implemented, as in
    JAX. ``tol`` is the absolute tolerance of the bisection (at least ``eps * ||T||``). The
    eigenvalues are JAX's (bisection); the eigenvectors come from a dense ``eigh`` (JAX uses
    inverse iteration from random vectors), so ``key`` is not used.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.linalg import eigh_tridiagonal
        >>> w, v = eigh_tridiagonal(fnp.asarray([2.0, 2.0]), fnp.asarray([1.0]))
        >>> w.round(4), fnp.abs(v).round(4)
        (Array([1., 3.], dtype=float32), Array([[0.7071, 0.7071],
               [0.7071, 0.7071]], dtype=float32))
    """
    alpha, beta = asarray_arg(_OP, d), asarray_arg(_OP, e)
    if alpha.dtype != beta.dtype:
        raise op_type_error(_OP, f"d and e must have the same dtype, got {alpha.dtype} and "
                                 f"{beta.dtype}")
    if alpha.dtype not in (dtypes.float32, dtypes.float64, dtypes.complex64, dtypes.complex128):
        raise op_type_error(_OP, f"d and e must be float32/float64 (or complex64/complex128), "
                                 f"got {alpha.dtype}; convert with .astype(fnp.float32)")
    if alpha.ndim != 1 or beta.shape != (max(alpha.shape[0] - 1, 0),):
        raise op_value_error(_OP, f"d must be a vector (n,) and e a vector (n - 1,), got "
                                  f"shapes {tuple(alpha.shape)} and {tuple(beta.shape)}")
    n = alpha.shape[0]
    if n <= 1:  # before select is read, as in JAX: the one eigenvalue whatever is selected
        w = fnp.real(alpha)
        return w if eigvals_only else (w, fnp.eye(n, dtype=alpha.dtype))
    if select == "a":
        targets = np.arange(n, dtype=np.int32)
    elif select == "i":
        if select_range is None:
            raise op_value_error(_OP, "select='i' needs select_range=(first, last) indices")
        first, last = (int(i) for i in select_range)
        if first > last:
            raise op_value_error(_OP, f"select_range={tuple(select_range)} is an empty range "
                                      f"(first > last)")
        targets = np.arange(first, last + 1, dtype=np.int32)
    elif select == "v":
        raise NotImplementedError(f"{_OP}: select='v' (eigenvalues in a value range) is not "
                                  f"implemented, as in JAX: its result's size depends on the "
                                  f"values; use select='i' or 'a' and filter")
    else:
        raise op_value_error(_OP, f"select must be 'a', 'i' or 'v', got {select!r}")
    complex_ = dtypes.is_complex(alpha.dtype)
    if complex_:
        alpha = fnp.real(alpha)
        beta_sq = fnp.real(beta * fnp.conj(beta))
        beta_abs = fnp.sqrt(beta_sq)
    else:
        beta_abs, beta_sq = fnp.abs(beta), beta * beta
    w = _bisect(alpha, beta_abs, beta_sq, fnp.asarray(targets), tol)
    if eigvals_only:
        return w
    return w, _eigenvectors(alpha, beta, beta_abs, fnp.asarray(targets), complex_)
