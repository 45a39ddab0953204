"""The multivariate normal distribution (``jax.scipy.stats.multivariate_normal``).

``mean`` has shape (..., n) and ``cov`` (..., n, n); a scalar ``cov`` means ``cov * I`` and a
scalar ``mean`` the univariate case. Batch axes of ``x``, ``mean`` and ``cov`` broadcast. The
covariance is factorised by Cholesky, so it must be positive definite (JAX's behaviour: a
singular one gives NaN, and ``allow_singular`` is not supported).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

import funcarray.numpy as fnp
from funcarray.base.errors import api_boundary, op_value_error
from funcarray.scipy.linalg import solve_triangular
from funcarray.scipy.stats._common import promote_dtypes_inexact

if TYPE_CHECKING:
    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike

__all__ = ["logpdf", "pdf"]

_LOG_2PI = float(np.log(2 * np.pi))


@api_boundary
def logpdf(x: ArrayLike, mean: ArrayLike, cov: ArrayLike,
           allow_singular: None = None) -> Array:
    """Log density ``-|L^-1 (x - mean)|**2 / 2 - n log(2 pi) / 2 - sum(log(diag(L)))``
    with ``cov = L L^T``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import multivariate_normal
        >>> cov = fnp.asarray([[2.0, 0.5], [0.5, 1.0]])
        >>> multivariate_normal.logpdf(fnp.asarray([[0.0, 0.0], [1.0, -1.0]]),
        ...                            fnp.zeros(2), cov).round(4)
        Array([-2.1176999, -3.2605   ], dtype=float32)
    """
    op = "multivariate_normal.logpdf"
    if allow_singular is not None:
        raise NotImplementedError(
            f"{op}: allow_singular is not supported (as in JAX); pass allow_singular=None "
            "and a positive definite covariance")
    x, mean, cov = promote_dtypes_inexact(op, x, mean, cov)
    if mean.ndim == 0:
        return -0.5 * fnp.square(x - mean) / cov - 0.5 * (_LOG_2PI + fnp.log(cov))
    n = mean.shape[-1]
    y = x - mean
    if cov.ndim == 0:
        return -0.5 * fnp.sum(y * y, axis=-1) / cov - n / 2 * (_LOG_2PI + fnp.log(cov))
    if cov.ndim < 2 or cov.shape[-2:] != (n, n):
        raise op_value_error(
            op, f"cov must have shape (..., {n}, {n}) to match mean of shape "
                f"{tuple(mean.shape)}, got {tuple(cov.shape)}; pass a scalar for cov * I")
    chol = fnp.linalg.cholesky(cov)
    whitened = solve_triangular(chol, y[..., None], lower=True)[..., 0]
    log_det_half = fnp.sum(fnp.log(fnp.diagonal(chol, axis1=-2, axis2=-1)), axis=-1)
    return -0.5 * fnp.sum(whitened * whitened, axis=-1) - n / 2 * _LOG_2PI - log_det_half


@api_boundary
def pdf(x: ArrayLike, mean: ArrayLike, cov: ArrayLike) -> Array:
    """The density ``exp(logpdf(x, mean, cov))``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import multivariate_normal
        >>> multivariate_normal.pdf(fnp.asarray([0.0, 1.0]), fnp.zeros(2), fnp.eye(2)).round(4)
        Array(0.09649999, dtype=float32)
    """
    return fnp.exp(logpdf(x, mean, cov))
