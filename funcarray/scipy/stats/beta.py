"""The beta distribution (``jax.scipy.stats.beta``) on ``[loc, loc + scale]``: density
``y**(a-1) (1-y)**(b-1) / (B(a, b) scale)``, ``y = (x - loc) / scale``."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

import funcarray.numpy as fnp
from funcarray.base.errors import api_boundary
from funcarray.scipy import special
from funcarray.scipy.stats._common import promote_args_inexact, strong_like_jax

if TYPE_CHECKING:
    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]


@api_boundary
@strong_like_jax
def logpdf(x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0,
           scale: ArrayLike = 1) -> Array:
    """Log density; ``-inf`` outside ``[loc, loc + scale]``, NaN unless ``a, b, scale > 0``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import beta
        >>> beta.logpdf(fnp.asarray([-0.5, 0.25, 0.5]), 2.0, 3.0).round(4)
        Array([  -inf, 0.5232, 0.4055], dtype=float32)
    """
    x, a, b, loc, scale = promote_args_inexact("beta.logpdf", x, a, b, loc, scale)
    y = (x - loc) / scale
    log_linear = special.xlogy(a - 1, y) + special.xlog1py(b - 1, -y)
    log_probs = log_linear - special.betaln(a, b) - fnp.log(scale)
    result = fnp.where((x > loc + scale) | (x < loc), -np.inf, log_probs)
    return fnp.where((a <= 0) | (b <= 0) | (scale <= 0), np.nan, result)


@api_boundary
@strong_like_jax
def pdf(x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0,
        scale: ArrayLike = 1) -> Array:
    """The density ``exp(logpdf(x, a, b, loc, scale))``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import beta
        >>> beta.pdf(fnp.asarray([0.25, 0.5]), 2.0, 3.0).round(4)
        Array([1.6875, 1.5   ], dtype=float32)
    """
    return fnp.exp(logpdf(x, a, b, loc, scale))


@api_boundary
@strong_like_jax
def cdf(x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0,
        scale: ArrayLike = 1) -> Array:
    """The regularized incomplete beta ``betainc(a, b, y)``, ``y`` clipped to [0, 1].

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import beta
        >>> beta.cdf(fnp.asarray([-1.0, 0.25, 0.5, 2.0]), 2.0, 3.0).round(4)
        Array([0.    , 0.2617, 0.6875, 1.    ], dtype=float32)
    """
    x, a, b, loc, scale = promote_args_inexact("beta.cdf", x, a, b, loc, scale)
    return special.betainc(a, b, fnp.clip((x - loc) / scale, 0, 1))


@api_boundary
@strong_like_jax
def logcdf(x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0,
           scale: ArrayLike = 1) -> Array:
    """``log(cdf(x, a, b, loc, scale))``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import beta
        >>> beta.logcdf(fnp.asarray([0.25, 0.5]), 2.0, 3.0).round(4)
        Array([-1.3405    , -0.37469998], dtype=float32)
    """
    return fnp.log(cdf(x, a, b, loc, scale))


@api_boundary
@strong_like_jax
def sf(x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The survival function ``betainc(b, a, 1 - y)``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import beta
        >>> beta.sf(fnp.asarray([-1.0, 0.25, 0.5]), 2.0, 3.0).round(4)
        Array([1.        , 0.73829997, 0.3125    ], dtype=float32)
    """
    x, a, b, loc, scale = promote_args_inexact("beta.sf", x, a, b, loc, scale)
    return special.betainc(b, a, 1 - fnp.clip((x - loc) / scale, 0, 1))


@api_boundary
@strong_like_jax
def logsf(x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0,
          scale: ArrayLike = 1) -> Array:
    """``log(sf(x, a, b, loc, scale))``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import beta
        >>> beta.logsf(fnp.asarray([0.25, 0.5]), 2.0, 3.0).round(4)
        Array([-0.30339998, -1.1632    ], dtype=float32)
    """
    return fnp.log(sf(x, a, b, loc, scale))
