"""``funcarray.scipy.linalg.qr_multiply``: a QR decomposition and a product with its ``Q``.

JAX applies the Householder reflectors to ``c`` (LAPACK ``ormqr``) without forming ``Q``; here
the economic ``Q`` of the ``qr`` primitive (or of ``qr_pivoted``) is multiplied, which gives
the same values (``Q @ c`` for ``c`` padded with zero rows equals ``Q[:, :k] @ c``, and
``(c @ Q)[:, :k]`` equals ``c @ Q[:, :k]``). Built on primitives with derivative, batching and
lowering rules, so it differentiates (as ``qr`` does: ``m >= n``), vmaps and jits.

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray.scipy.linalg import qr_multiply, solve_triangular
    >>> a = fnp.asarray([[1.0, 1.0], [1.0, 2.0], [1.0, 3.0], [1.0, 4.0]])
    >>> qtb, r = qr_multiply(a, fnp.asarray([2.0, 4.0, 5.0, 4.0]))
    >>> solve_triangular(r, qtb).round(4)  # the least-squares line
    Array([2. , 0.7], dtype=float32)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

import funcarray.numpy as fnp
from funcarray.api.arguments import asarray_arg, convert, to_inexact_dtype
from funcarray.base import dtypes
from funcarray.base.errors import api_boundary, op_type_error, op_value_error
from funcarray.primitives.decompositions import FACTORISABLE_DTYPES
from funcarray.primitives.orthogonal_decompositions import qr_p
from funcarray.primitives.qr_pivoted import qr_pivoted_p

if TYPE_CHECKING:
    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike

__all__ = ["qr_multiply"]


@api_boundary
def qr_multiply(a: ArrayLike, c: ArrayLike, mode: str = "right", pivoting: bool = False,
                conjugate: bool = False, overwrite_a: bool = False,
                overwrite_c: bool = False) -> tuple[Array, ...]:
    """The QR decomposition of ``a`` (``(..., m, n)``, ``k = min(m, n)``) and ``Q`` times
    ``c``: ``mode='right'`` gives ``(c @ Q, R)`` for ``c`` of shape ``(..., p, m)`` (result
    ``(..., p, k)``), ``mode='left'`` ``(Q @ c, R)`` for ``c`` of shape ``(..., k, p)``
    (result ``(..., m, p)``); ``Q`` is the economic ``(m, k)`` factor and ``R`` the ``(k, n)``
    one. A 1-d ``c`` is a row (right) or column (left) and the product is raveled.
    ``conjugate`` uses ``conj(Q)``; ``pivoting`` also returns the column order ``p``
    (``a[..., :, p] = Q @ R``). Batch axes of ``a`` and ``c`` broadcast; ``overwrite_*`` are
    ignored, as in JAX.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.linalg import qr_multiply
        >>> cq, r = qr_multiply(fnp.asarray([[3.0, 0.0], [4.0, 5.0]]), fnp.eye(2))
        >>> fnp.allclose(cq @ r, fnp.asarray([[3.0, 0.0], [4.0, 5.0]]), atol=1e-6).item()
        True
    """
    op = "scipy.linalg.qr_multiply"
    if mode not in ("right", "left"):
        raise op_value_error(op, f"mode must be 'right' or 'left', got {mode!r}")
    a, c = asarray_arg(op, a), asarray_arg(op, c)
    try:
        dtype = to_inexact_dtype(dtypes.result_type(a, c))
    except TypeError as exc:
        raise op_type_error(op, str(exc)) from None
    if dtype not in FACTORISABLE_DTYPES:
        raise op_type_error(op, f"a and c promote to {dtype}; only float32, float64, complex64 "
                                f"and complex128 matrices can be factorised: convert with "
                                f".astype(fnp.float32)")
    a, c = convert(a, dtype), convert(c, dtype)
    if a.ndim < 2:
        raise op_value_error(op, f"a must be a matrix or a stack of them, got shape "
                                 f"{tuple(a.shape)}")
    if c.ndim == 0:
        raise op_value_error(op, "c must be a vector or a matrix, got a scalar")
    vector = c.ndim == 1
    if vector:
        c = c[:, None] if mode == "left" else c[None, :]
    m, n = a.shape[-2:]
    k = min(m, n)
    if mode == "left" and c.shape[-2] != k:
        raise op_value_error(op, f"for Q @ c, c must have {k} rows (a has shape "
                                 f"{tuple(a.shape)}, so Q has {k} columns), got c of shape "
                                 f"{tuple(c.shape)}")
    if mode == "right" and c.shape[-1] != m:
        raise op_value_error(op, f"for c @ Q, c must have {m} columns (a has shape "
                                 f"{tuple(a.shape)}, so Q has {m} rows), got c of shape "
                                 f"{tuple(c.shape)}")
    batch = np.broadcast_shapes(a.shape[:-2], c.shape[:-2])
    a = fnp.broadcast_to(a, (*batch, m, n))
    c = fnp.broadcast_to(c, (*batch, *c.shape[-2:]))
    if pivoting:
        q, r, p = qr_pivoted_p.bind(a, full_matrices=False)
    else:
        q, r = qr_p.bind(a, full_matrices=False)
    if conjugate:
        q = fnp.conj(q)
    product = fnp.matmul(q, c) if mode == "left" else fnp.matmul(c, q)
    if vector:
        product = fnp.ravel(product)
    return (product, r, p) if pivoting else (product, r)
