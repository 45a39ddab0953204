"""The gamma distribution (``jax.scipy.stats.gamma``) with shape ``a``: density
``y**(a-1) exp(-y) / (Gamma(a) scale)``, ``y = (x - loc) / scale >= 0``."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

import funcarray.numpy as fnp
from funcarray.base.errors import api_boundary
from funcarray.scipy import special
from funcarray.scipy.stats._common import const_like, promote_args_inexact, strong_like_jax

if TYPE_CHECKING:
    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]


@api_boundary
def logpdf(x: ArrayLike, a: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """Log density ``xlogy(a - 1, y) - y - gammaln(a) - log(scale)``; ``-inf`` below ``loc``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import gamma
        >>> gamma.logpdf(fnp.asarray([-1.0, 0.5, 2.0]), 2.0).round(4)
        Array([   -inf, -1.1931, -1.3069], dtype=float32)
    """
    x_arg = x
    x, a, loc, scale = promote_args_inexact("gamma.logpdf", x, a, loc, scale)
    ok = x >= loc
    one = const_like(x, 1, x_arg)  # (as in JAX, see const_like)
    # Out of support, y = 1 keeps the formula (and its gradient) finite before the mask.
    y = fnp.where(ok, (x - loc) / scale, one)
    log_probs = special.xlogy(a - one, y) - y - (special.gammaln(a) + fnp.log(scale))
    return fnp.where(ok, log_probs, -np.inf)


@api_boundary
def pdf(x: ArrayLike, a: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The density ``exp(logpdf(x, a, loc, scale))``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import gamma
        >>> gamma.pdf(fnp.asarray([0.5, 2.0]), 2.0).round(4)
        Array([0.3033, 0.2707], dtype=float32)
    """
    return fnp.exp(logpdf(x, a, loc, scale))


@api_boundary
@strong_like_jax
def cdf(x: ArrayLike, a: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The regularized lower incomplete gamma ``gammainc(a, max(y, 0))``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import gamma
        >>> gamma.cdf(fnp.asarray([-1.0, 1.0, 4.0]), 2.0).round(4)
        Array([0.    , 0.2642, 0.9084], dtype=float32)
    """
    x, a, loc, scale = promote_args_inexact("gamma.cdf", x, a, loc, scale)
    return special.gammainc(a, fnp.clip((x - loc) / scale, 0, np.inf))


@api_boundary
@strong_like_jax
def logcdf(x: ArrayLike, a: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """``log(cdf(x, a, loc, scale))``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import gamma
        >>> gamma.logcdf(fnp.asarray([1.0, 4.0]), 2.0).round(4)
        Array([-1.3309, -0.096 ], dtype=float32)
    """
    return fnp.log(cdf(x, a, loc, scale))


@api_boundary
def sf(x: ArrayLike, a: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The survival function ``gammaincc(a, y)``; 1 below ``loc``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import gamma
        >>> gamma.sf(fnp.asarray([-1.0, 1.0, 4.0]), 2.0).round(4)
        Array([1.        , 0.73579997, 0.0916    ], dtype=float32)
    """
    x, a, loc, scale = promote_args_inexact("gamma.sf", x, a, loc, scale)
    y = (x - loc) / scale
    return fnp.where(y < 0, fnp.ones_like(y), special.gammaincc(a, y))


@api_boundary
def logsf(x: ArrayLike, a: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """``log(sf(x, a, loc, scale))``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import gamma
        >>> gamma.logsf(fnp.asarray([1.0, 4.0]), 2.0).round(4)
        Array([-0.3069, -2.3906], dtype=float32)
    """
    return fnp.log(sf(x, a, loc, scale))
