"""The beta-binomial distribution (``jax.scipy.stats.betabinom``): a binomial with ``n``
trials whose success probability is Beta(``a``, ``b``) distributed."""

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

__all__ = ["logpmf", "pmf"]


@api_boundary
def logpmf(k: ArrayLike, n: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0) -> Array:
    """``-log1p(n) - betaln(n - y + 1, y + 1) + betaln(y + a, n - y + b) - betaln(a, b)``
    for ``y = floor(k) - loc``; ``-inf`` outside the support, NaN unless ``n >= 0`` and
    ``a, b > 0``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import betabinom
        >>> betabinom.logpmf(fnp.asarray([-1, 0, 2, 5]), 4, 2.0, 3.0).round(4)
        Array([      -inf, -1.5403999, -1.3580999,       -inf], dtype=float32)
    """
    k_arg, loc_arg = k, loc
    k, n, a, b, loc = promote_args_inexact("betabinom.logpmf", k, n, a, b, loc)
    y = fnp.floor(k) - loc
    one = const_like(y, 1, k_arg, loc_arg)  # (as in JAX: strong for array arguments)
    log_comb = -(fnp.log1p(n) + special.betaln(n - y + one, y + one))
    log_probs = log_comb + special.betaln(y + a, n - y + b) - special.betaln(a, b)
    log_probs = fnp.where((y == 0) & (n == 0), fnp.zeros_like(y), log_probs)
    outside = (y < -loc) | (y > n) | (y + a <= 0)
    log_probs = fnp.where(outside, -np.inf, log_probs)
    return fnp.where((n < 0) | (a <= 0) | (b <= 0), np.nan, log_probs)


@api_boundary
def pmf(k: ArrayLike, n: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0) -> Array:
    """The probability ``exp(logpmf(k, n, a, b, loc))``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import betabinom
        >>> betabinom.pmf(fnp.asarray([0, 1, 2]), 2, 1.0, 1.0).round(4)
        Array([0.3333, 0.3333, 0.3333], dtype=float32)
    """
    return fnp.exp(logpmf(k, n, a, b, loc))
