"""The Poisson distribution (``jax.scipy.stats.poisson``) with mean ``mu``, shifted by
``loc``. Non-integer ``k`` has probability 0."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

import funcarray.numpy as fnp
from funcarray.base.errors import api_boundary
from funcarray.scipy import special
from funcarray.scipy.stats._common import (
    const_like,
    promote_args_inexact,
    promote_dtypes_inexact,
)

if TYPE_CHECKING:
    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike

__all__ = ["logpmf", "pmf", "cdf", "entropy"]


@api_boundary
def logpmf(k: ArrayLike, mu: ArrayLike, loc: ArrayLike = 0) -> Array:
    """``xlogy(k - loc, mu) - gammaln(k - loc + 1) - mu``; ``-inf`` below ``loc`` and at
    non-integer ``k``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import poisson
        >>> poisson.logpmf(fnp.asarray([-1.0, 0.0, 2.0, 2.5]), 3.0).round(4)
        Array([      -inf, -3.       , -1.4958999,       -inf], dtype=float32)
    """
    k, mu, loc = promote_args_inexact("poisson.logpmf", k, mu, loc)
    y = k - loc
    log_probs = special.xlogy(y, mu) - special.gammaln(y + 1) - mu
    return fnp.where((y < 0) | (fnp.round(k) != k), -np.inf, log_probs)


@api_boundary
def pmf(k: ArrayLike, mu: ArrayLike, loc: ArrayLike = 0) -> Array:
    """The probability ``exp(logpmf(k, mu, loc))``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import poisson
        >>> poisson.pmf(fnp.asarray([0, 1, 2]), 2.0).round(4)
        Array([0.1353, 0.2707, 0.2707], dtype=float32, weak_type=True)
    """
    return fnp.exp(logpmf(k, mu, loc))


@api_boundary
def cdf(k: ArrayLike, mu: ArrayLike, loc: ArrayLike = 0) -> Array:
    """``P(K <= k) = gammaincc(floor(k - loc) + 1, mu)``; 0 below ``loc``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import poisson
        >>> poisson.cdf(fnp.asarray([-1.0, 0.0, 2.0, 2.5]), 2.0).round(4)
        Array([0.    , 0.1353, 0.6767, 0.6767], dtype=float32)
    """
    k_arg = k
    k, mu, loc = promote_args_inexact("poisson.cdf", k, mu, loc)
    y = k - loc
    # (zero as in JAX: strong for array arguments, see const_like)
    return fnp.where(y < 0, const_like(k, 0, k_arg), special.gammaincc(fnp.floor(1 + y), mu))


def _entr(p):
    return fnp.where(p > 0, -p * fnp.log(fnp.where(p > 0, p, 1)), fnp.zeros_like(p))


def _entropy_by_sum(mu, max_k, upper):
    """``-sum(p log p)`` over ``k < upper`` (a static ``max_k`` bounds it, for jit)."""
    k = fnp.arange(max_k, dtype=mu.dtype)[:, None]
    probs = pmf(k, mu)
    return fnp.sum(_entr(fnp.where(k < upper[None, :], probs, 0)), axis=0)


@api_boundary
def entropy(mu: ArrayLike, loc: ArrayLike = 0) -> Array:
    """The entropy ``-sum(pmf log pmf)`` (shift invariant, so ``loc`` only broadcasts):
    summed exactly for ``mu < 100``, by the asymptotic ``log(2 pi e mu)/2 - 1/(12 mu)`` above.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import poisson
        >>> poisson.entropy(fnp.asarray([0.0, 1.0, 50.0, 1000.0])).round(4)
        Array([0.       , 1.3047999, 3.3732998, 4.8726997], dtype=float32)
    """
    mu, loc = promote_dtypes_inexact("poisson.entropy", mu, loc)
    shape = np.broadcast_shapes(mu.shape, loc.shape)
    flat = fnp.ravel(mu)
    small = _entropy_by_sum(flat, 35, fnp.ceil(flat + 20))
    medium = _entropy_by_sum(flat, 250, fnp.ceil(flat + 10 * fnp.sqrt(flat) + 20))
    large = 0.5 * fnp.log(2 * np.pi * np.e * flat) - 1 / (12 * flat)
    result = fnp.where(flat == 0, fnp.zeros_like(flat),
                       fnp.where(flat < 10, small, fnp.where(flat < 100, medium, large)))
    return fnp.broadcast_to(fnp.reshape(result, mu.shape), shape)
