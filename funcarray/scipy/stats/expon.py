"""The exponential distribution (``jax.scipy.stats.expon``): density
``exp(-(x - loc) / scale) / scale`` for ``x >= loc``."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

import funcarray.numpy as fnp
from funcarray.base.errors import api_boundary
from funcarray.scipy.stats._common import promote_args_inexact

if TYPE_CHECKING:
    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"]


@api_boundary
def logpdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """Log density ``-(x - loc) / scale - log(scale)``; ``-inf`` below ``loc``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import expon
        >>> expon.logpdf(fnp.asarray([-1.0, 0.0, 2.0]), scale=2.0).round(4)
        Array([   -inf, -0.6931, -1.6931], dtype=float32)
    """
    x, loc, scale = promote_args_inexact("expon.logpdf", x, loc, scale)
    log_probs = -((x - loc) / scale + fnp.log(scale))
    return fnp.where(x < loc, -np.inf, log_probs)


@api_boundary
def pdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The density ``exp(logpdf(x, loc, scale))``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import expon
        >>> expon.pdf(fnp.asarray([-1.0, 0.0, 1.0])).round(4)
        Array([0.        , 1.        , 0.36789998], dtype=float32)
    """
    return fnp.exp(logpdf(x, loc, scale))


@api_boundary
def cdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """``1 - exp(-(x - loc) / scale)`` (by ``expm1``, exact near ``loc``); 0 below ``loc``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import expon
        >>> expon.cdf(fnp.asarray([-1.0, 0.0, 1.0])).round(4)
        Array([ 0.    , -0.    ,  0.6321], dtype=float32)
    """
    x, loc, scale = promote_args_inexact("expon.cdf", x, loc, scale)
    neg_scaled = (loc - x) / scale
    return fnp.where(x < loc, fnp.zeros_like(neg_scaled), -fnp.expm1(neg_scaled))


@api_boundary
def logsf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """``log(sf) = -(x - loc) / scale``; 0 below ``loc``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import expon
        >>> expon.logsf(fnp.asarray([-1.0, 3.0]))
        Array([ 0., -3.], dtype=float32)
    """
    x, loc, scale = promote_args_inexact("expon.logsf", x, loc, scale)
    neg_scaled = (loc - x) / scale
    return fnp.where(x < loc, fnp.zeros_like(neg_scaled), neg_scaled)


@api_boundary
def sf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The survival function ``exp(-(x - loc) / scale)``; 1 below ``loc``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import expon
        >>> expon.sf(fnp.asarray([-1.0, 1.0])).round(4)
        Array([1.        , 0.36789998], dtype=float32)
    """
    return fnp.exp(logsf(x, loc, scale))


@api_boundary
def logcdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """``log(cdf) = log1p(-sf)``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import expon
        >>> expon.logcdf(fnp.asarray([-1.0, 1.0])).round(4)
        Array([   -inf, -0.4587], dtype=float32)
    """
    return fnp.log1p(-sf(x, loc, scale))


@api_boundary
def ppf(q: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The quantile ``loc - scale * log1p(-q)``; NaN for ``q`` outside [0, 1].

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import expon
        >>> expon.ppf(fnp.asarray([0.0, 0.5, 1.0])).round(4)
        Array([0.    , 0.6931,    inf], dtype=float32)
    """
    q, loc, scale = promote_args_inexact("expon.ppf", q, loc, scale)
    return fnp.where(fnp.isnan(q) | (q < 0) | (q > 1), np.nan,
                     loc - scale * fnp.log1p(-q))
