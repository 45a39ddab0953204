"""The normal distribution (``jax.scipy.stats.norm``): ``loc`` is the mean, ``scale`` the
standard deviation.

The cdf family goes through ``special.ndtr``/``log_ndtr``/``ndtri``, which stay accurate deep
in the tails where ``1 - cdf`` or ``log(cdf)`` computed naively would round to 0 or -inf.
"""

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

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"]


@api_boundary
@strong_like_jax
def logpdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """Log of the normal density ``-((x - loc) / scale)**2 / 2 - log(sqrt(2 pi) scale)``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import norm
        >>> norm.logpdf(fnp.asarray([-1.0, 0.0, 2.0])).round(4)
        Array([-1.4189    , -0.91889995, -2.9189    ], dtype=float32)
    """
    x, loc, scale = promote_args_inexact("norm.logpdf", x, loc, scale)
    variance = scale * scale
    return (fnp.log(2 * np.pi * variance) + (x - loc) ** 2 / variance) / -2


@api_boundary
@strong_like_jax
def pdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The normal density ``exp(logpdf(x, loc, scale))``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import norm
        >>> norm.pdf(fnp.asarray([0.0, 1.0]), loc=1.0, scale=2.0).round(4)
        Array([0.176 , 0.1995], dtype=float32)
    """
    return fnp.exp(logpdf(x, loc, scale))


@api_boundary
@strong_like_jax(example="always")
def cdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The normal cumulative distribution function ``P(X <= x)``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import norm
        >>> norm.cdf(fnp.asarray([-1.0, 0.0, 1.0])).round(4)
        Array([0.15869999, 0.5       , 0.84129995], dtype=float32)
    """
    x, loc, scale = promote_args_inexact("norm.cdf", x, loc, scale)
    return special.ndtr((x - loc) / scale)


@api_boundary
@strong_like_jax(example="always")
def logcdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """``log(cdf(x, loc, scale))``, accurate far in the left tail.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import norm
        >>> norm.logcdf(fnp.asarray([-20.0, 0.0])).round(4)
        Array([-203.91719,   -0.6931 ], dtype=float32)
    """
    x, loc, scale = promote_args_inexact("norm.logcdf", x, loc, scale)
    return special.log_ndtr((x - loc) / scale)


@api_boundary
@strong_like_jax(example="always")
def sf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The survival function ``1 - cdf(x, loc, scale)``, accurate where it is tiny.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import norm
        >>> norm.sf(fnp.asarray([0.0, 1.0])).round(4)
        Array([0.5       , 0.15869999], dtype=float32)
    """
    x, loc, scale = promote_args_inexact("norm.sf", x, loc, scale)
    return cdf(-x, -loc, scale)


@api_boundary
@strong_like_jax(example="always")
def logsf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """``log(sf(x, loc, scale))``, accurate far in the right tail.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import norm
        >>> norm.logsf(fnp.asarray([0.0, 20.0])).round(4)
        Array([  -0.6931 , -203.91719], dtype=float32)
    """
    x, loc, scale = promote_args_inexact("norm.logsf", x, loc, scale)
    return logcdf(-x, -loc, scale)


@api_boundary
@strong_like_jax(example="always")
def ppf(q: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The quantile function (inverse cdf); NaN outside [0, 1], ``-+inf`` at 0 and 1.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import norm
        >>> norm.ppf(fnp.asarray([0.025, 0.5, 1.0])).round(4)
        Array([-1.9599999,  0.       ,        inf], dtype=float32)
    """
    q, loc, scale = promote_args_inexact("norm.ppf", q, loc, scale)
    return special.ndtri(q) * scale + loc


@api_boundary
@strong_like_jax(example="always")
def isf(q: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The inverse survival function ``ppf(1 - q, loc, scale)``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import norm
        >>> norm.isf(fnp.asarray([0.025, 0.5])).round(4)
        Array([1.9599999, 0.       ], dtype=float32)
    """
    q, loc, scale = promote_args_inexact("norm.isf", q, loc, scale)
    return ppf(1 - q, loc, scale)
