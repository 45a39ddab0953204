"""The binomial distribution (``jax.scipy.stats.binom``): ``k`` successes in ``n`` trials of
probability ``p``, shifted by ``loc``."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

import funcarray.numpy as fnp
from funcarray.base.errors import api_boundary
from funcarray.scipy import special
from funcarray.scipy.stats._common import promote_args_inexact

if TYPE_CHECKING:
    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike

__all__ = ["logpmf", "pmf"]


@api_boundary
def logpmf(k: ArrayLike, n: ArrayLike, p: ArrayLike, loc: ArrayLike = 0) -> Array:
    """``log C(n, y) + xlogy(y, p) + xlog1py(n - y, -p)`` for ``y = k - loc``; ``-inf``
    outside ``[loc, loc + n]``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import binom
        >>> binom.logpmf(fnp.asarray([-1, 0, 2, 5]), 4, 0.5).round(4)
        Array([   -inf, -2.7726, -0.9808,    -inf], dtype=float32, weak_type=True)
    """
    k, n, p, loc = promote_args_inexact("binom.logpmf", k, n, p, loc)
    y = k - loc
    comb = special.gammaln(n + 1) - (special.gammaln(y + 1) + special.gammaln(n - y + 1))
    log_linear = special.xlogy(y, p) + special.xlog1py(n - y, -p)
    # Degenerate cases (n = 0, or p at 0 or 1 with the matching y) are exactly certain.
    certain = ((y == 0) & (n == 0)) | (log_linear == 0)
    log_probs = fnp.where(certain, fnp.zeros_like(y), comb + log_linear)
    return fnp.where((k >= loc) & (k < loc + n + 1), log_probs, -np.inf)


@api_boundary
def pmf(k: ArrayLike, n: ArrayLike, p: ArrayLike, loc: ArrayLike = 0) -> Array:
    """The probability ``exp(logpmf(k, n, p, loc))``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import binom
        >>> binom.pmf(fnp.asarray([0, 1, 2]), 2, 0.5).round(4)
        Array([0.25, 0.5 , 0.25], dtype=float32, weak_type=True)
    """
    return fnp.exp(logpmf(k, n, p, loc))
