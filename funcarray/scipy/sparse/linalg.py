"""Iterative linear solvers, as in ``jax.scipy.sparse.linalg``: ``cg`` (conjugate gradients
for symmetric positive definite operators).

The operator ``A`` is a matrix or a function ``x -> A x``, and ``b`` may be any pytree of
arrays (``x`` has its structure). The iteration is a ``lax.while_loop`` inside
``lax.custom_linear_solve``, so derivatives never go through the iterations: the gradient
with respect to ``b`` (or to values ``A`` closes over) is another CG solve.

Example:
    >>> import funcarray as fa, funcarray.numpy as fnp
    >>> from funcarray.scipy.sparse.linalg import cg
    >>> a = fnp.asarray([[4.0, 1.0], [1.0, 3.0]])
    >>> fa.grad(lambda b: cg(a, b)[0].sum())(fnp.asarray([1.0, 2.0])).round(4)
    Array([0.1818    , 0.27269998], dtype=float32)
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from funcarray import lax
from funcarray.api.arguments import asarray_arg
from funcarray.base import dtypes
from funcarray.base import pytrees as fa_tree
from funcarray.base.errors import op_type_error

if TYPE_CHECKING:
    from collections.abc import Callable

    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike

__all__ = ["cg"]


def _vdot_real(a, b):
    """The real part of the inner product of two pytrees of the same structure."""
    import funcarray.numpy as fnp

    total = 0.0
    for x, y in zip(fa_tree.leaves(a), fa_tree.leaves(b)):
        total = total + fnp.real(fnp.vdot(x, y))
    return total


def _as_operator(what: str, op):
    if callable(op):
        return op
    matrix = asarray_arg(f"cg's {what}", op)
    if matrix.ndim != 2:
        raise TypeError(f"cg: {what} must be a function or a 2-d matrix, got an array of "
                        f"shape {tuple(matrix.shape)}")
    return lambda x: fa_tree.map(lambda leaf: matrix @ leaf, x)


def _cg_solve(A, b, x0, *, maxiter, tol, atol, M):
    tree_add = functools.partial(fa_tree.map, lambda u, v: u + v)
    tree_sub = functools.partial(fa_tree.map, lambda u, v: u - v)

    def scale(c, x):
        return fa_tree.map(lambda leaf: (c * leaf).astype(leaf.dtype), x)

    import funcarray.numpy as fnp

    # stop at |r| <= max(tol |b|, atol), compared squared
    threshold = fnp.maximum(tol ** 2 * _vdot_real(b, b), atol ** 2)

    def cond(state):
        _, r, gamma, _, k = state
        residual = gamma if M is None else _vdot_real(r, r)
        return (residual > threshold) & (k < maxiter)

    def body(state):
        x, r, gamma, p, k = state
        ap = A(p)
        alpha = gamma / _vdot_real(p, ap)
        x = tree_add(x, scale(alpha, p))
        r = tree_sub(r, scale(alpha, ap))
        z = r if M is None else M(r)
        gamma_new = _vdot_real(r, z)
        p = tree_add(z, scale(gamma_new / gamma, p))
        return x, r, gamma_new, p, k + 1

    r0 = tree_sub(b, A(x0))
    z0 = r0 if M is None else M(r0)
    state = (x0, r0, _vdot_real(r0, z0), z0, 0)
    return lax.while_loop(cond, body, state)[0]


def cg(A: ArrayLike | Callable[[Array], Array], b: ArrayLike, x0: ArrayLike | None = None, *,
       tol: float = 1e-5, atol: float = 0.0, maxiter: int | None = None,
       M: ArrayLike | Callable[[Array], Array] | None = None) -> tuple[Array, None]:
    """Solve ``A x = b`` by conjugate gradients (``A`` symmetric positive definite), as
    ``jax.scipy.sparse.linalg.cg``: returns ``(x, None)``. Stops when the residual norm is
    at most ``max(tol * |b|, atol)`` or after ``maxiter`` steps (default 10 times the size of
    ``b``). ``M`` is a preconditioner (a matrix or function approximating ``A^-1``).

    Example:
        >>> import funcarray.numpy as fnp
        >>> x, info = cg(fnp.asarray([[4.0, 1.0], [1.0, 3.0]]), fnp.asarray([1.0, 2.0]))
        >>> x.round(4)
        Array([0.0909, 0.6364], dtype=float32)
    """
    A = _as_operator("A", A)
    M = None if M is None else _as_operator("M", M)
    b = fa_tree.map(lambda leaf: asarray_arg("cg's b", leaf), b)
    for leaf in fa_tree.leaves(b):
        # The steps are fractions: integer iterates would truncate them into a wrong answer
        # (JAX raises too, from its loop's carry types).
        if not (dtypes.is_float(leaf.dtype) or dtypes.is_complex(leaf.dtype)):
            raise op_type_error("scipy.sparse.linalg.cg", f"b must be floating-point or "
                                                          f"complex, got dtype {leaf.dtype}; "
                                                          f"convert with .astype(fnp.float32)")
    if x0 is None:
        x0 = fa_tree.map(lambda leaf: leaf * 0, b)
    else:
        x0 = fa_tree.map(lambda leaf: asarray_arg("cg's x0", leaf), x0)
        if fa_tree.structure(x0) != fa_tree.structure(b):
            raise ValueError(f"cg: x0 and b must have the same tree structure, got "
                             f"{fa_tree.structure(x0)} and {fa_tree.structure(b)}")
        for u, v in zip(fa_tree.leaves(x0), fa_tree.leaves(b)):
            if u.shape != v.shape:
                raise ValueError(f"cg: x0 and b must have matching shapes, got "
                                 f"{tuple(u.shape)} and {tuple(v.shape)}")
    if maxiter is None:
        maxiter = 10 * sum(leaf.size for leaf in fa_tree.leaves(b))
    solve = functools.partial(_cg_solve, x0=x0, maxiter=maxiter, tol=tol, atol=atol, M=M)
    x = lax.custom_linear_solve(A, b, solve=solve, transpose_solve=solve, symmetric=True)
    return x, None
