"""``funcarray.lax.linalg``: jax.lax.linalg's factorisations, the primitives themselves.

Thin validated wrappers with JAX's signatures and output orders over the primitives in
``funcarray.primitives.decompositions`` and
``funcarray.primitives.orthogonal_decompositions``; no dtype promotion (jax.lax's strictness:
pass float32/float64 or complex arrays; the functions of
``funcarray.numpy.linalg`` promote for you).

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray.lax import linalg
    >>> lu, pivots, permutation = linalg.lu(fnp.asarray([[1.0, 2.0], [4.0, 4.0]]))
    >>> permutation
    Array([1, 0], dtype=int32)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from funcarray.api.arguments import asarray_arg
from funcarray.base.array import Array, DeviceArray
from funcarray.base.errors import api_boundary, op_value_error
from funcarray.primitives.decompositions import (
    FACTORISABLE_DTYPES,
    cholesky_p,
    lu_p,
    permutation_from_pivots,
    triangular_solve_p,
)
from funcarray.primitives.elementwise import div_p
from funcarray.primitives.orthogonal_decompositions import eigh_p, qr_p, svd_p
from funcarray.primitives.qr_pivoted import qr_pivoted_p
from funcarray.primitives.schur import schur_p
from funcarray.transforms.host_shortcuts import host_shortcut

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from funcarray.base.typing import ArrayLike

__all__ = ["cholesky", "triangular_solve", "lu", "lu_pivots_to_permutation", "qr", "eigh",
           "svd", "schur"]


def _hermitian_part_on_host(a):
    """``hermitian_part`` of a host or device array of a dtype LAPACK factorises, in one
    NumPy expression: the four eager ops of the general path cost more than a 16 x 16
    factorisation."""
    if type(a) is not Array and type(a) is not DeviceArray:
        return NotImplemented
    v = a._value
    if v.dtype not in FACTORISABLE_DTYPES or v.ndim < 2:
        return NotImplemented
    # (halved by the division primitive's kernel, as the general path: a complex infinity
    # over 2 is NaN in NumPy, infinite in XLA)
    return Array(div_p.kernel(v + np.conj(np.swapaxes(v, -1, -2)), np.asarray(2, v.dtype)),
                 a._weak)


@host_shortcut(_hermitian_part_on_host)
def hermitian_part(a: ArrayLike) -> Array:
    """``(a + a^H) / 2``: what ``cholesky`` and ``eigh`` factor by default (symmetric
    gradients, as in JAX).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.lax import linalg
        >>> linalg.hermitian_part(fnp.asarray([[1.0, 2.0], [0.0, 1.0]]))
        Array([[1., 1.],
               [1., 1.]], dtype=float32)
    """
    return (a + a.conj().swapaxes(-1, -2)) / 2


def _operand(op: str, x):
    return asarray_arg(op, x)


@api_boundary
def cholesky(x: ArrayLike, *, symmetrize_input: bool = True) -> Array:
    """The lower Cholesky factor of Hermitian positive-definite matrices (NaN if not).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.lax import linalg
        >>> linalg.cholesky(fnp.asarray([[4.0, 2.0], [2.0, 5.0]]))
        Array([[2., 0.],
               [1., 2.]], dtype=float32)
    """
    x = _operand("lax.linalg.cholesky", x)
    if symmetrize_input:
        x = hermitian_part(x)
    return cholesky_p.bind(x)


@api_boundary
def triangular_solve(a: ArrayLike, b: ArrayLike, *, left_side: bool = False, lower: bool = False,
                     transpose_a: bool = False, conjugate_a: bool = False,
                     unit_diagonal: bool = False) -> Array:
    """Solve ``op(a) x = b`` (``left_side``) or ``x op(a) = b`` for triangular ``a``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.lax import linalg
        >>> a = fnp.asarray([[2.0, 0.0], [1.0, 1.0]])
        >>> linalg.triangular_solve(a, fnp.asarray([[2.0], [3.0]]), left_side=True, lower=True)
        Array([[1.],
               [2.]], dtype=float32)
    """
    op = "lax.linalg.triangular_solve"
    return triangular_solve_p.bind(_operand(op, a), _operand(op, b), left_side=left_side,
                                   lower=lower, transpose_a=transpose_a,
                                   conjugate_a=conjugate_a, unit_diagonal=unit_diagonal)


@api_boundary
def lu(x: ArrayLike) -> tuple[Array, Array, Array]:
    """``(lu, pivots, permutation)``: LU with partial pivoting (LAPACK ``getrf``).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.lax import linalg
        >>> linalg.lu(fnp.asarray([[1.0, 2.0], [4.0, 4.0]]))[1]
        Array([1, 1], dtype=int32)
    """
    return tuple(lu_p.bind(_operand("lax.linalg.lu", x)))


@api_boundary
def lu_pivots_to_permutation(pivots: ArrayLike, permutation_size: int) -> Array:
    """The row order that LAPACK's row swaps ``pivots`` produce on ``range(permutation_size)``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.lax import linalg
        >>> linalg.lu_pivots_to_permutation(fnp.asarray([2, 2, 2], dtype=fnp.int32), 3)
        Array([2, 0, 1], dtype=int32)
    """
    pivots = _operand("lax.linalg.lu_pivots_to_permutation", pivots)
    if pivots.shape[-1] > permutation_size:
        raise op_value_error("lax.linalg.lu_pivots_to_permutation",
                             f"{pivots.shape[-1]} pivots do not fit a permutation of size "
                             f"{permutation_size}")
    return permutation_from_pivots(pivots, permutation_size)


@api_boundary
def qr(x: ArrayLike, *, pivoting: bool = False, full_matrices: bool = True,
       use_magma: bool | None = None) -> tuple[Array, ...]:
    """``(q, r)`` with ``x = q @ r`` (``full_matrices``: q square, as jax.lax.linalg); with
    ``pivoting``, ``(q, r, p)`` with ``x[..., :, p] = q @ r`` (LAPACK ``geqp3``'s column
    order, int32). ``use_magma`` is accepted and ignored, as on JAX's CPU.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.lax import linalg
        >>> q, r = linalg.qr(fnp.asarray([[3.0, 0.0], [4.0, 5.0]]))
        >>> fnp.round(q @ r, 5)
        Array([[3., 0.],
               [4., 5.]], dtype=float32)
        >>> linalg.qr(fnp.asarray([[1.0, 3.0], [0.0, 4.0]]), pivoting=True)[2]
        Array([1, 0], dtype=int32)
    """
    x = _operand("lax.linalg.qr", x)
    if pivoting:
        return tuple(qr_pivoted_p.bind(x, full_matrices=full_matrices))
    return tuple(qr_p.bind(x, full_matrices=full_matrices))


@api_boundary
def eigh(x: ArrayLike, *, lower: bool = True, symmetrize_input: bool = True,
         sort_eigenvalues: bool = True, subset_by_index: tuple[int, int] | None = None
         ) -> tuple[Array, Array]:
    """``(v, w)``: eigenvectors (columns) and ascending eigenvalues of symmetric matrices.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.lax import linalg
        >>> linalg.eigh(fnp.asarray([[2.0, 1.0], [1.0, 2.0]]))[1]
        Array([1., 3.], dtype=float32)
    """
    op = "lax.linalg.eigh"
    if subset_by_index is not None:
        raise op_value_error(op, "subset_by_index is not supported yet; slice the result")
    x = _operand(op, x)
    if symmetrize_input:
        x = hermitian_part(x)
    return tuple(eigh_p.bind(x, lower=lower))


@api_boundary
def svd(x: ArrayLike, *, full_matrices: bool = True, compute_uv: bool = True,
        subset_by_index: tuple[int, int] | None = None, algorithm: Any = None
        ) -> Array | tuple[Array, Array, Array]:
    """``(u, s, vh)`` (or ``s`` alone without ``compute_uv``), singular values descending.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.lax import linalg
        >>> linalg.svd(fnp.asarray([[3.0, 0.0], [0.0, -4.0]]), compute_uv=False)
        Array([4., 3.], dtype=float32)
    """
    op = "lax.linalg.svd"
    if subset_by_index is not None:
        raise op_value_error(op, "subset_by_index is not supported yet; slice the result")
    outs = svd_p.bind(_operand(op, x), full_matrices=full_matrices, compute_uv=compute_uv)
    if not compute_uv:
        return outs[0]
    s, u, vh = outs
    return u, s, vh


@api_boundary
def schur(x: ArrayLike, *, compute_schur_vectors: bool = True, sort_eig_vals: bool = False,
          select_callable: Callable[..., Any] | None = None) -> list[Array]:
    """``[t, q]`` with ``x = q @ t @ q^H`` (``[t]`` without ``compute_schur_vectors``):
    LAPACK ``gees``'s Schur form, upper triangular for complex ``x`` and quasi upper
    triangular (2 x 2 blocks for complex eigenvalue pairs) for real ``x``. ``sort_eig_vals``
    is not implemented and ``select_callable`` is ignored, as in JAX.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.lax import linalg
        >>> t, q = linalg.schur(fnp.asarray([[2.0, 1.0], [0.0, 3.0]]))
        >>> t
        Array([[2., 1.],
               [0., 3.]], dtype=float32)
    """
    if sort_eig_vals:
        raise NotImplementedError("lax.linalg.schur: sort_eig_vals=True (LAPACK gees's "
                                  "eigenvalue sorting) is not implemented, as in JAX")
    # (a list, ``[t]`` without vectors: what jax.lax.linalg.schur returns)
    return list(schur_p.bind(_operand("lax.linalg.schur", x),
                             compute_schur_vectors=bool(compute_schur_vectors)))
