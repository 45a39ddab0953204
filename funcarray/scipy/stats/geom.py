"""The geometric distribution (``jax.scipy.stats.geom``): the trial ``k >= 1`` of the first
success, each trial succeeding with probability ``p``."""

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
def logpmf(k: ArrayLike, p: ArrayLike, loc: ArrayLike = 0) -> Array:
    """``xlog1py(y - 1, -p) + log(p)`` for ``y = k - loc``; ``-inf`` for ``y <= 0``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import geom
        >>> geom.logpmf(fnp.asarray([0, 1, 3]), 0.5).round(4)
        Array([   -inf, -0.6931, -2.0794], dtype=float32)
    """
    k_arg = k
    k, p, loc = promote_args_inexact("geom.logpmf", k, p, loc)
    y = k - loc
    # (one as in JAX: strong for array arguments, see const_like)
    log_probs = special.xlog1py(y - const_like(k, 1, k_arg), -p) + fnp.log(p)
    return fnp.where(y <= 0, -np.inf, log_probs)


@api_boundary
def pmf(k: ArrayLike, p: ArrayLike, loc: ArrayLike = 0) -> Array:
    """The probability ``exp(logpmf(k, p, loc))``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import geom
        >>> geom.pmf(fnp.asarray([0, 1, 3]), 0.5)
        Array([0.   , 0.5  , 0.125], dtype=float32)
    """
    return fnp.exp(logpmf(k, p, loc))
