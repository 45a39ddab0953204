"""The Dirichlet distribution (``jax.scipy.stats.dirichlet``) over the simplex.

``x`` has the categories on its first axis (shape (k, ...) for ``alpha`` of shape (k,)); with
``k - 1`` entries the last one is implied as ``1 - sum``. Points off the simplex (an entry
``<= 0`` or a sum more than 1e-6 from 1) have density 0.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

import funcarray.numpy as fnp
from funcarray.base.errors import api_boundary, op_value_error
from funcarray.scipy import special
from funcarray.scipy.stats._common import promote_dtypes_inexact

if TYPE_CHECKING:
    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike

__all__ = ["logpdf", "pdf"]


@api_boundary
def logpdf(x: ArrayLike, alpha: ArrayLike) -> Array:
    """Log density ``sum((alpha - 1) log(x)) - (sum(gammaln(alpha)) - gammaln(sum(alpha)))``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import dirichlet
        >>> dirichlet.logpdf(fnp.asarray([0.2, 0.3, 0.5]), fnp.asarray([1.0, 2.0, 3.0])).round(4)
        Array(1.5041, dtype=float32)
    """
    op = "dirichlet.logpdf"
    x, alpha = promote_dtypes_inexact(op, x, alpha)
    if alpha.ndim != 1:
        raise op_value_error(op, f"alpha must be one-dimensional, got shape {tuple(alpha.shape)}")
    k = alpha.shape[0]
    if x.ndim == 0 or x.shape[0] not in (k, k - 1):
        raise op_value_error(
            op, f"x must have {k} (or {k - 1}) entries on its first axis to match alpha of "
                f"shape {tuple(alpha.shape)}, got x of shape {tuple(x.shape)}")
    if x.shape[0] != k:
        x = fnp.concatenate([x, 1 - fnp.sum(x, axis=0, keepdims=True)], axis=0)
    normalizer = fnp.sum(special.gammaln(alpha)) - special.gammaln(fnp.sum(alpha))
    alpha = fnp.reshape(alpha, (k,) + (1,) * (x.ndim - 1))
    log_probs = fnp.sum(special.xlogy(alpha - 1, x), axis=0) - normalizer
    on_simplex = fnp.all(x > 0, axis=0) & (fnp.abs(fnp.sum(x, axis=0) - 1) < 1e-6)
    return fnp.where(on_simplex, log_probs, -np.inf)


@api_boundary
def pdf(x: ArrayLike, alpha: ArrayLike) -> Array:
    """The density ``exp(logpdf(x, alpha))``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import dirichlet
        >>> dirichlet.pdf(fnp.asarray([0.2, 0.3]), fnp.asarray([1.0, 2.0, 3.0])).round(4)
        Array(4.5, dtype=float32)
    """
    return fnp.exp(logpdf(x, alpha))
