"""Schur-based functions of ``funcarray.scipy.linalg``: ``schur``, ``rsf2csf``, ``sqrtm`` and
``funm``.

``schur`` binds the ``schur`` primitive (LAPACK ``gees``, as JAX: eager, jit and JAX give the
same Schur form on CPU). The others are JAX's algorithms composed from funcarray operations
(masked whole-matrix updates in ``fori_loop``s, vectorised over leading batch axes), so they
jit and vmap; they have no derivative, as in JAX, because ``schur`` has none:

* ``rsf2csf``: Givens rotations that split each 2 x 2 block of the real Schur form, from the
  bottom up, the rotation built from the block's first eigenvalue (``eigvals``, LAPACK
  ``geev``'s order, as JAX);
* ``sqrtm``: the complex Schur form, then Bjorck & Hammarling's recurrence for the square root
  of a triangular matrix, one superdiagonal per step (an entry whose numerator is exactly 0 is
  0, as JAX: the square root of a nilpotent block stays finite);
* ``funm``: the complex Schur form, ``func`` on its diagonal and Parlett's recurrence (Golub &
  Van Loan, Algorithm 11.1.1) one superdiagonal per step, with JAX's error estimate.

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray.scipy.linalg import sqrtm
    >>> sqrtm(fnp.asarray([[4.0, 0.0], [0.0, 9.0]])).real
    Array([[2., 0.],
           [0., 3.]], dtype=float32)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

import funcarray.numpy as fnp
from funcarray.api.arguments import asarray_arg, convert, to_inexact_dtype
from funcarray.base import dtypes
from funcarray.base.errors import api_boundary, op_type_error, op_value_error
from funcarray.lax import dynamic_slice_in_dim, dynamic_update_slice_in_dim, fori_loop
from funcarray.primitives.decompositions import FACTORISABLE_DTYPES
from funcarray.primitives.schur import schur_p

if TYPE_CHECKING:
    from collections.abc import Callable

    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike

__all__ = ["schur", "rsf2csf", "sqrtm", "funm"]


def _square_matrices(op: str, x, name: str = "a"):
    x = asarray_arg(op, x)
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise op_value_error(op, f"{name} must be a square matrix or a stack of them (shape "
                                 f"(..., n, n)), got shape {tuple(x.shape)}")
    return x


def _complex_dtype(dtype) -> np.dtype:
    """float32/ints -> complex64, float64 -> complex128 (complex dtypes unchanged)."""
    return np.result_type(to_inexact_dtype(dtype), np.complex64)


def _mH(x):
    return fnp.conj(fnp.swapaxes(x, -1, -2))


def _diagonal(x):
    return fnp.diagonal(x, axis1=-2, axis2=-1)


@api_boundary
def schur(a: ArrayLike, output: str = "real") -> tuple[Array, Array]:
    """The Schur decomposition ``(T, Z)`` with ``a = Z @ T @ Z^H`` and ``Z`` unitary.

    ``output="real"`` (a real ``a``): ``T`` is quasi upper triangular, a 2 x 2 diagonal block
    per complex eigenvalue pair; ``"complex"``: ``a`` is made complex first and ``T`` is upper
    triangular. LAPACK ``gees``'s factors (no sorting), as JAX, which computes them on CPU
    only; leading axes are batch axes. No derivative (JAX has none).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.linalg import schur
        >>> a = fnp.asarray([[1.0, 2.0, 3.0], [1.0, 4.0, 2.0], [3.0, 2.0, 1.0]])
        >>> t, z = schur(a)
        >>> fnp.allclose(z @ t @ z.T, a, atol=1e-5).item(), float(t[2, 0])
        (True, 0.0)
    """
    return _schur("scipy.linalg.schur", a, output)


def _schur(op: str, a, output: str, name: str = "a"):
    if output not in ("real", "complex"):
        raise op_value_error(op, f"output must be 'real' or 'complex', got {output!r}")
    x = _square_matrices(op, a, name)
    if output == "complex":
        x = convert(x, _complex_dtype(x.dtype))
    elif x.dtype not in FACTORISABLE_DTYPES:
        raise op_type_error(op, f"the matrix has dtype {x.dtype}; only float32, float64, "
                                f"complex64 and complex128 matrices have a Schur decomposition "
                                f"(as in JAX): convert with .astype(fnp.float32)"
                                + (", or pass output='complex'" if op.endswith("schur") else ""))
    t, z = schur_p.bind(x, compute_schur_vectors=True)
    return t, z


def _split_block(m, t, z, eps):
    """rsf2csf's step at row ``m``: rotate rows/columns ``m - 1, m`` so that ``t[m, m - 1]``
    vanishes, where it is not negligible already."""
    n = t.shape[-1]
    sub = t[..., m, m - 1]
    negligible = fnp.abs(sub) <= eps * (fnp.abs(t[..., m - 1, m - 1]) + fnp.abs(t[..., m, m]))
    block = dynamic_slice_in_dim(dynamic_slice_in_dim(t, m - 1, 2, axis=-2), m - 1, 2, axis=-1)
    mu = fnp.linalg.eigvals(block)[..., 0] - t[..., m, m]
    r = fnp.sqrt(fnp.abs(mu) ** 2 + fnp.abs(sub) ** 2)
    r = fnp.where(negligible, 1, r).astype(t.dtype)
    c, s = mu / r, sub / r
    g = fnp.stack([fnp.stack([fnp.conj(c), s], axis=-1), fnp.stack([-s, c], axis=-1)], axis=-2)
    index = fnp.arange(n)
    rows = dynamic_slice_in_dim(t, m - 1, 2, axis=-2)  # (..., 2, n): G @ rows, columns >= m-1
    rows = fnp.where(index >= m - 1, fnp.matmul(g, rows), rows)
    rotated = dynamic_update_slice_in_dim(t, rows, m - 1, axis=-2)
    cols = dynamic_slice_in_dim(rotated, m - 1, 2, axis=-1)  # (..., n, 2): cols @ G^H
    cols = fnp.where(index[:, None] < m + 1, fnp.matmul(cols, _mH(g)), cols)
    rotated = dynamic_update_slice_in_dim(rotated, cols, m - 1, axis=-1)
    z_cols = fnp.matmul(dynamic_slice_in_dim(z, m - 1, 2, axis=-1), _mH(g))
    z_rotated = dynamic_update_slice_in_dim(z, z_cols, m - 1, axis=-1)
    keep = negligible[..., None, None]
    t = fnp.where(keep, t, rotated)
    z = fnp.where(keep, z, z_rotated)
    # the subdiagonal entry is zero (or negligible, and dropped)
    return fnp.where((index[:, None] == m) & (index == m - 1), 0, t), z


@api_boundary
def rsf2csf(T: ArrayLike, Z: ArrayLike, check_finite: bool = True) -> tuple[Array, Array]:
    """Convert a real Schur form ``(T, Z)`` to the complex one: ``T`` upper triangular, with
    ``Z @ T @ Z^H`` unchanged (JAX's Givens rotations; leading axes of ``T`` and ``Z`` are
    batch axes and broadcast). ``check_finite`` is ignored, as in JAX.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.linalg import rsf2csf, schur
        >>> a = fnp.asarray([[0.0, 3.0, 3.0], [0.0, 1.0, 2.0], [2.0, 0.0, 1.0]])
        >>> t, z = rsf2csf(*schur(a))
        >>> t.dtype, bool(t[2, 1] == 0), fnp.allclose(z @ t @ z.conj().T, a, atol=1e-5).item()
        (dtype('complex64'), True, True)
    """
    op = "scipy.linalg.rsf2csf"
    t, z = _square_matrices(op, T, "T"), _square_matrices(op, Z, "Z")
    if t.shape[-1] != z.shape[-1]:
        raise op_value_error(op, f"T and Z must have the same matrix size, got shapes "
                                 f"{tuple(t.shape)} and {tuple(z.shape)}")
    try:
        dtype = _complex_dtype(dtypes.result_type(t, z))
    except TypeError as exc:
        raise op_type_error(op, str(exc)) from None
    batch = np.broadcast_shapes(t.shape[:-2], z.shape[:-2])
    t = fnp.broadcast_to(convert(t, dtype), (*batch, *t.shape[-2:]))
    z = fnp.broadcast_to(convert(z, dtype), (*batch, *z.shape[-2:]))
    n = t.shape[-1]
    if n <= 1:
        return t, z
    eps = float(np.finfo(dtype).eps)
    # from the bottom block up: m = n - 1, ..., 1
    return fori_loop(1, n, lambda i, tz: _split_block(n - i, *tz, eps), (t, z))


def _sqrtm_triangular(t):
    """The principal square root ``u`` of upper-triangular ``t`` (``u @ u = t``): the
    diagonal's square roots, then ``u[i, j] = (t[i, j] - sum_k u[i, k] u[k, j]) / (u[i, i] +
    u[j, j])`` one superdiagonal ``j - i`` at a time (its sum over ``i < k < j`` only reads
    nearer diagonals: one product of the strictly upper part)."""
    n = t.shape[-1]
    root = fnp.sqrt(_diagonal(t))
    u = fnp.eye(n, dtype=t.dtype) * root[..., None, :]
    offset = fnp.arange(n) - fnp.arange(n)[:, None]  # j - i
    denominator = root[..., :, None] + root[..., None, :]

    def superdiagonal(k, u):
        strict = fnp.where(offset > 0, u, 0)
        numerator = t - fnp.matmul(strict, strict)
        exact = numerator == 0  # (JAX's rule: t[i, j] equal to the sum gives 0, even 0 / 0)
        value = fnp.where(exact, 0, numerator / fnp.where(exact, 1, denominator))
        return fnp.where(offset == k, value, u)

    return fori_loop(1, n, superdiagonal, u)


@api_boundary
def sqrtm(A: ArrayLike, blocksize: int = 1) -> Array:
    """The principal matrix square root (complex, as in JAX): the complex Schur form ``T``,
    the square root of the triangular ``T`` (Bjorck & Hammarling) and back,
    ``Z @ sqrt(T) @ Z^H``. Leading axes are batch axes; ``blocksize`` > 1 is not implemented,
    as in JAX. No derivative (``schur`` has none).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.linalg import sqrtm
        >>> a = fnp.asarray([[1.0, 2.0, 3.0], [2.0, 4.0, 2.0], [3.0, 2.0, 1.0]])
        >>> r = sqrtm(a)
        >>> r.dtype, fnp.allclose(r @ r, a, atol=1e-5).item()
        (dtype('complex64'), True)
    """
    if blocksize > 1:
        raise NotImplementedError("scipy.linalg.sqrtm: blocksize > 1 (the blocked algorithm) "
                                  "is not implemented, as in JAX; use blocksize=1")
    t, z = _schur("scipy.linalg.sqrtm", A, "complex", "A")
    return fnp.matmul(fnp.matmul(z, _sqrtm_triangular(t)), _mH(z))


def _parlett(f, t):
    """Fill the strictly upper part of ``f`` (``func`` of ``t``'s diagonal on its diagonal)
    so that ``f`` commutes with the upper-triangular ``t``: Parlett's recurrence, one
    superdiagonal at a time (Golub & Van Loan, Algorithm 11.1.1)."""
    n = t.shape[-1]
    offset = fnp.arange(n) - fnp.arange(n)[:, None]
    t_strict = fnp.where(offset > 0, t, 0)
    diag_t, diag_f = _diagonal(t), _diagonal(f)
    # t[i, j] (f[j, j] - f[i, i]), and the divisor t[j, j] - t[i, i]
    first = t * (diag_f[..., None, :] - diag_f[..., :, None])
    gaps = diag_t[..., None, :] - diag_t[..., :, None]
    usable = gaps != 0

    def superdiagonal(k, f):
        f_strict = fnp.where(offset > 0, f, 0)
        s = first + fnp.matmul(t_strict, f_strict) - fnp.matmul(f_strict, t_strict)
        value = fnp.where(usable, s / fnp.where(usable, gaps, 1), s)
        return fnp.where(offset == k, value, f)

    f = fori_loop(1, n, superdiagonal, f)
    # JAX's smallest divisor: |t[0, 0]| and every |t[j, j] - t[i, i]|, i < j
    smallest = fnp.min(fnp.where(offset > 0, fnp.abs(gaps), np.inf), axis=(-2, -1))
    return f, fnp.minimum(fnp.abs(t[..., 0, 0]), smallest)


@api_boundary
def funm(A: ArrayLike, func: Callable[[Array], Array],
         disp: bool = True) -> Array | tuple[Array, Array]:
    """The matrix function ``func(A)``: ``func`` (a function of an array of scalars) on the
    eigenvalues of ``A``'s complex Schur form, extended to the triangle by Parlett's
    recurrence (JAX's algorithm; the result is complex). With ``disp=False``, also JAX's
    error estimate ``err``. Repeated or close eigenvalues make Parlett's recurrence
    inaccurate (``err`` then grows). Leading axes are batch axes; integer matrices are
    refused, as in JAX (``schur`` needs a float or complex matrix).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.linalg import expm, funm
        >>> a = fnp.asarray([[1.0, 2.0], [3.0, 4.0]])
        >>> fnp.allclose(funm(a, fnp.exp), expm(a), rtol=1e-4).item()
        True
    """
    op = "scipy.linalg.funm"
    t, z = rsf2csf(*_schur(op, A, "real", "A"))
    diag = fnp.asarray(func(_diagonal(t))).astype(t.dtype)
    f = fnp.eye(t.shape[-1], dtype=t.dtype) * diag[..., None, :]
    f, smallest = _parlett(f, t)
    f = fnp.matmul(fnp.matmul(z, f), _mH(z))
    if disp:
        return f
    tol = float(np.finfo(np.float32 if t.dtype == np.complex64 else np.float64).eps)
    smallest = fnp.where(smallest == 0, tol, smallest)
    spread = fnp.max(fnp.sum(fnp.abs(fnp.triu(t, 1)), axis=-2), axis=-1)  # ||triu(t, 1)||_1
    err = fnp.minimum(1, fnp.maximum(tol, (tol / smallest) * spread))
    return f, fnp.where(fnp.any(fnp.isinf(f), axis=(-2, -1)), np.inf, err)
