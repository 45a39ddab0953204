"""Multivariate samplers: ``multivariate_normal``, ``ball`` (uniform in the unit p-norm
ball) and ``orthogonal`` (Haar-distributed orthogonal/unitary matrices), with JAX's
constructions, so the same key gives JAX's samples to within float rounding.
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING

from funcarray import numpy as fnp
from funcarray.api.arguments import asarray_arg, broadcast_shapes, convert
from funcarray.base import dtypes
from funcarray.base.array import Array
from funcarray.base.errors import api_boundary, op_type_error, op_value_error
from funcarray.random._continuous import _draw_exponential
from funcarray.random._gamma import _generalized_normal
from funcarray.random._prng import canonical_shape, check_key
from funcarray.random._sampling import (
    _check_shape,
    _float_dtype,
    _keys_pair,
    _normal,
    _promoted,
    _shape_of,
)

if TYPE_CHECKING:
    from funcarray.base.typing import ArrayLike, DTypeLike, ShapeLike
    from funcarray.random._keys import KeyArrayLike

__all__ = ["multivariate_normal", "ball", "orthogonal"]


def _cholesky(a):
    """Lower Cholesky factor of symmetric positive-definite ``a`` (..., n, n), column by column
    (NaN where ``a`` is not positive definite, like ``jnp.linalg.cholesky``)."""
    a = (a + fnp.swapaxes(a, -1, -2)) / 2.0
    n = a.shape[-1]
    rows = fnp.arange(n)
    columns = []
    for j in range(n):
        v = a[..., :, j]
        if columns:
            done = fnp.stack(columns, axis=-1)          # (..., n, j)
            v = v - fnp.sum(done * done[..., j:j + 1, :], axis=-1)
        pivot = fnp.sqrt(v[..., j:j + 1])
        columns.append(fnp.where(rows >= j, v / pivot, 0.0))
    return fnp.stack(columns, axis=-1)


@api_boundary
def multivariate_normal(key: KeyArrayLike, mean: ArrayLike, cov: ArrayLike,
                        shape: ShapeLike | None = None, dtype: DTypeLike | None = None,
                        method: str = "cholesky") -> Array:
    """Multivariate normal samples with ``mean`` (..., n) and covariance ``cov`` (..., n, n).

    The result has shape ``shape + (n,)`` (``shape`` defaults to the broadcast batch shape of
    ``mean`` and ``cov``). Only ``method="cholesky"`` (JAX's default) is available.

    Example:
        >>> import funcarray.random as fr
        >>> x = fr.multivariate_normal(fr.key(0), [0.0, 1.0], [[1.0, 0.5], [0.5, 2.0]], (5,))
        >>> x.shape
        (5, 2)
    """
    key = check_key("multivariate_normal", key)
    if method != "cholesky":
        raise op_value_error("multivariate_normal",
                             f"only method='cholesky' is implemented, got {method!r}")
    mean, cov = asarray_arg("multivariate_normal", mean), asarray_arg("multivariate_normal", cov)
    common = dtypes.result_type(mean, cov)
    common = common if dtypes.is_inexact(common) else dtypes.default_float
    dtype = common if dtype is None else _float_dtype("multivariate_normal", dtype)
    mean, cov = convert(mean, common), convert(cov, common)
    if mean.ndim < 1:
        raise op_value_error("multivariate_normal", "mean must have at least one dimension")
    n = mean.shape[-1]
    if cov.ndim < 2 or cov.shape[-2:] != (n, n):
        raise op_value_error(
            "multivariate_normal", f"cov must have shape (..., {n}, {n}) to match mean of shape "
                                   f"{mean.shape}, got {cov.shape}")
    if shape is None:
        shape = broadcast_shapes("multivariate_normal", mean.shape[:-1], cov.shape[:-2])
    else:
        shape = canonical_shape("multivariate_normal", shape)
        _check_shape("multivariate_normal", shape, mean.shape[:-1], cov.shape[:-2])
    factor = _cholesky(cov)
    samples = _normal(key, shape + (n,), dtype)
    return mean + fnp.matmul(factor, samples[..., None])[..., 0]


@api_boundary
def ball(key: KeyArrayLike, d: int, p: float = 2, shape: ShapeLike = (),
         dtype: DTypeLike | None = None) -> Array:
    """Uniform samples from the unit Lp ball in ``d`` dimensions (shape ``shape + (d,)``),
    by Barthe-Guedon-Mendelson-Naor: generalized normals scaled by an exponential draw.

    Example:
        >>> import funcarray.random as fr
        >>> x = fr.ball(fr.key(0), 3, shape=(100,))
        >>> x.shape, bool(((x * x).sum(-1) <= 1).all())
        ((100, 3), True)
    """
    key = check_key("ball", key)
    shape = canonical_shape("ball", shape)
    dtype = _float_dtype("ball", dtype)
    d = _concrete_size("ball", "d", d)
    p = _promoted("ball", p)
    if _shape_of(p):
        raise op_value_error("ball", f"p must be a scalar, got shape {p.shape}")
    key_g, key_e = _keys_pair(key)
    g = _generalized_normal(key_g, p, shape + (d,), dtype)
    e = _draw_exponential(key_e, shape, dtype)
    radius = (fnp.sum(fnp.abs(g) ** p, axis=-1) + e) ** (1.0 / p)
    return g / radius[..., None]


def _concrete_size(op: str, name: str, n) -> int:

    try:
        n = operator.index(n)
    except TypeError:
        raise op_type_error(
            op, f"{name} must be a concrete non-negative integer (it fixes the result shape), "
                f"got {type(n).__name__}") from None
    if n < 0:
        raise op_value_error(op, f"{name} must be non-negative, got {n}")
    return n


@api_boundary
def orthogonal(key: KeyArrayLike, n: int, shape: ShapeLike = (), dtype: DTypeLike | None = None,
               m: int | None = None) -> Array:
    """Uniform samples from the orthogonal group O(n), shape ``shape + (n, m)``; ``m != n``
    gives semi-orthogonal matrices. (JAX's complex dtypes, for the unitary group, need a
    complex QR, which ``funcarray.numpy.linalg`` does not have yet.)

    The QR factorisation of a normal matrix, with the columns' signs fixed by ``R``'s
    diagonal (Mezzadri 2007), as in JAX.

    Example:
        >>> import funcarray.numpy as fnp
        >>> import funcarray.random as fr
        >>> q = fr.orthogonal(fr.key(0), 3)
        >>> bool(fnp.allclose(q @ q.T, fnp.eye(3), atol=1e-5))
        True
    """
    key = check_key("orthogonal", key)
    shape = canonical_shape("orthogonal", shape)
    dtype = _float_dtype("orthogonal", dtype)
    n = _concrete_size("orthogonal", "n", n)
    m = n if m is None else _concrete_size("orthogonal", "m", m)
    z = _normal(key, (*shape, max(n, m), min(n, m)), dtype)
    q, r = fnp.linalg.qr(z)
    signs = fnp.sign(fnp.diagonal(r, axis1=-2, axis2=-1))
    x = q * signs[..., None, :]
    return fnp.swapaxes(x, -1, -2) if n < m else x
