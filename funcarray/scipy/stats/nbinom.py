"""The negative binomial distribution (``jax.scipy.stats.nbinom``): ``k`` failures before
the ``n``-th success, each trial succeeding with probability ``p``."""

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
def logpmf(k: ArrayLike, n: ArrayLike, p: ArrayLike, loc: ArrayLike = 0) -> Array:
    """``gammaln(y + n) - gammaln(n) - gammaln(y + 1) + xlogy(n, p) + xlogy(y, 1 - p)`` for
    ``y = k - loc``; ``-inf`` below ``loc``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import nbinom
        >>> nbinom.logpmf(fnp.asarray([-1, 0, 2]), 3, 0.5).round(4)
        Array([      -inf, -2.0794   , -1.6739999], dtype=float32)
    """
    k_arg = k
    k, n, p, loc = promote_args_inexact("nbinom.logpmf", k, n, p, loc)
    y = k - loc
    one = const_like(k, 1, k_arg)  # (as in JAX: strong for array arguments, see const_like)
    comb = special.gammaln(y + n) - special.gammaln(n) - special.gammaln(y + one)
    log_probs = comb + special.xlogy(n, p) + special.xlogy(y, one - p)
    return fnp.where(k < loc, -np.inf, log_probs)


@api_boundary
def pmf(k: ArrayLike, n: ArrayLike, p: ArrayLike, loc: ArrayLike = 0) -> Array:
    """The probability ``exp(logpmf(k, n, p, loc))``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import nbinom
        >>> nbinom.pmf(fnp.asarray([0, 1, 2]), 3, 0.5).round(4)
        Array([0.125 , 0.1875, 0.1875], dtype=float32)
    """
    return fnp.exp(logpmf(k, n, p, loc))
