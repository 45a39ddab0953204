"""The chi-squared distribution (``jax.scipy.stats.chi2``) with ``df`` degrees of freedom:
a gamma distribution of shape ``df / 2`` and scale ``2 scale``."""

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
def logpdf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """Log density ``(df/2 - 1) log(y) - y/2 - lgamma(df/2) - df log(2)/2 - log(scale)``;
    ``-inf`` below ``loc``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import chi2
        >>> chi2.logpdf(fnp.asarray([-1.0, 0.5, 2.0]), 3.0).round(4)
        Array([   -inf, -1.5155, -1.5724], dtype=float32)
    """
    x, df, loc, scale = promote_args_inexact("chi2.logpdf", x, df, loc, scale)
    y = (x - loc) / scale
    half_df = df / 2
    kernel = (half_df - 1) * fnp.log(y) - y / 2
    normalizer = -(special.gammaln(half_df) + float(np.log(2.0)) * df / 2)
    log_probs = normalizer - fnp.log(scale) + kernel
    return fnp.where(x < loc, -np.inf, log_probs)


@api_boundary
@strong_like_jax
def pdf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The density ``exp(logpdf(x, df, loc, scale))``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import chi2
        >>> chi2.pdf(fnp.asarray([0.5, 2.0]), 3.0).round(4)
        Array([0.2197, 0.2076], dtype=float32)
    """
    return fnp.exp(logpdf(x, df, loc, scale))


def _half_scaled(x, loc, scale):
    return fnp.clip((x - loc) / (scale * 2), 0, np.inf)


@api_boundary
@strong_like_jax(example="any")
def cdf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """``gammainc(df / 2, y / 2)``; 0 below ``loc``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import chi2
        >>> chi2.cdf(fnp.asarray([-1.0, 1.0, 4.0]), 3.0).round(4)
        Array([0.    , 0.1987, 0.7385], dtype=float32)
    """
    x, df, loc, scale = promote_args_inexact("chi2.cdf", x, df, loc, scale)
    return special.gammainc(df / 2, _half_scaled(x, loc, scale))


@api_boundary
@strong_like_jax(example="any")
def logcdf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """``log(cdf(x, df, loc, scale))``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import chi2
        >>> chi2.logcdf(fnp.asarray([1.0, 4.0]), 3.0).round(4)
        Array([-1.6157, -0.3031], dtype=float32)
    """
    return fnp.log(cdf(x, df, loc, scale))


@api_boundary
@strong_like_jax(example="any")
def sf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The survival function ``gammaincc(df / 2, y / 2)``; 1 below ``loc``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import chi2
        >>> chi2.sf(fnp.asarray([-1.0, 1.0, 4.0]), 3.0).round(4)
        Array([1.    , 0.8013, 0.2615], dtype=float32)
    """
    x, df, loc, scale = promote_args_inexact("chi2.sf", x, df, loc, scale)
    return special.gammaincc(df / 2, _half_scaled(x, loc, scale))


@api_boundary
@strong_like_jax(example="any")
def logsf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """``log(sf(x, df, loc, scale))``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import chi2
        >>> chi2.logsf(fnp.asarray([1.0, 4.0]), 3.0).round(4)
        Array([-0.2216   , -1.3414999], dtype=float32)
    """
    return fnp.log(sf(x, df, loc, scale))
