"""The Bernoulli distribution (``jax.scipy.stats.bernoulli``): ``P(k = 1) = p``."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

import funcarray.numpy as fnp
from funcarray.base.errors import api_boundary
from funcarray.scipy import special
from funcarray.scipy.stats._common import const_like, promote_args_inexact

if TYPE_CHECKING:
    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike

__all__ = ["logpmf", "pmf", "cdf", "ppf"]


@api_boundary
def logpmf(k: ArrayLike, p: ArrayLike, loc: ArrayLike = 0) -> Array:
    """``xlogy(y, p) + xlog1py(1 - y, -p)`` for ``y = k - loc``; ``-inf`` outside [0, 1].

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import bernoulli
        >>> bernoulli.logpmf(fnp.asarray([-1, 0, 1]), 0.25).round(4)
        Array([   -inf, -0.2877, -1.3863], dtype=float32)
    """
    k_arg = k
    k, p, loc = promote_args_inexact("bernoulli.logpmf", k, p, loc)
    y = k - loc
    # (one as in JAX: strong for array arguments, see const_like)
    log_probs = special.xlogy(y, p) + special.xlog1py(const_like(k, 1, k_arg) - y, -p)
    return fnp.where((y < 0) | (y > 1), -np.inf, log_probs)


@api_boundary
def pmf(k: ArrayLike, p: ArrayLike, loc: ArrayLike = 0) -> Array:
    """The probability ``exp(logpmf(k, p, loc))``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import bernoulli
        >>> bernoulli.pmf(fnp.asarray([0, 1, 2]), 0.25)
        Array([0.75, 0.25, 0.  ], dtype=float32)
    """
    return fnp.exp(logpmf(k, p, loc))


@api_boundary
def cdf(k: ArrayLike, p: ArrayLike) -> Array:
    """``P(K <= k)``: 0 below 0, ``1 - p`` on [0, 1), 1 from 1; NaN for NaN or ``p``
    outside [0, 1].

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import bernoulli
        >>> bernoulli.cdf(fnp.asarray([-1.0, 0.5, 1.0]), 0.25)
        Array([0.  , 0.75, 1.  ], dtype=float32)
    """
    k_arg = k
    k, p = promote_args_inexact("bernoulli.cdf", k, p)
    invalid = fnp.isnan(k) | fnp.isnan(p) | (p < 0) | (p > 1)
    zero, one = const_like(k, 0, k_arg), const_like(k, 1, k_arg)  # (as in JAX, see const_like)
    return fnp.select([invalid, k < 0, (k >= 0) & (k < 1), k >= 1],
                      [fnp.full_like(k, np.nan), zero, one - p, one])


@api_boundary
def ppf(q: ArrayLike, p: ArrayLike) -> Array:
    """The quantile: 0 for ``q <= 1 - p``, else 1; NaN for NaN or arguments outside [0, 1].

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import bernoulli
        >>> bernoulli.ppf(fnp.asarray([0.5, 0.9, 2.0]), 0.25)
        Array([ 0.,  1., nan], dtype=float32)
    """
    q_arg = q
    q, p = promote_args_inexact("bernoulli.ppf", q, p)
    invalid = (fnp.isnan(q) | fnp.isnan(p) | (p < 0) | (p > 1) | (q < 0) | (q > 1))
    zero, one = const_like(q, 0, q_arg), const_like(q, 1, q_arg)  # (as in JAX, see const_like)
    return fnp.where(invalid, np.nan, fnp.where(q <= one - p, zero, one))
