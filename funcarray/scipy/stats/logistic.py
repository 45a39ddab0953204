"""The logistic distribution (``jax.scipy.stats.logistic``): cdf
``expit((x - loc) / scale)``."""

from __future__ import annotations

from typing import TYPE_CHECKING

import funcarray.numpy as fnp
from funcarray import lax
from funcarray.base.errors import api_boundary
from funcarray.scipy.stats._common import promote_args_inexact, strong_like_jax

if TYPE_CHECKING:
    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike

__all__ = ["logpdf", "pdf", "cdf", "sf", "ppf", "isf"]


def _logit(q):
    return fnp.log(q / (1 - q))


@api_boundary
@strong_like_jax(example="any")
def logpdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """Log density ``-2 logaddexp(z / 2, -z / 2) - log(scale)``, ``z = (x - loc) / scale``
    (symmetric, so it neither overflows nor cancels for large ``|z|``).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import logistic
        >>> logistic.logpdf(fnp.asarray([-1.0, 0.0, 50.0])).round(4)
        Array([ -1.6265,  -1.3863, -50.    ], dtype=float32)
    """
    x, loc, scale = promote_args_inexact("logistic.logpdf", x, loc, scale)
    half_z = (x - loc) / scale / 2
    return -2 * fnp.logaddexp(half_z, -half_z) - fnp.log(scale)


@api_boundary
@strong_like_jax(example="any")
def pdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The density ``exp(logpdf(x, loc, scale))``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import logistic
        >>> logistic.pdf(fnp.asarray([0.0, 1.0])).round(4)
        Array([0.25      , 0.19659999], dtype=float32)
    """
    return fnp.exp(logpdf(x, loc, scale))


@api_boundary
def cdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """``expit((x - loc) / scale)``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import logistic
        >>> logistic.cdf(fnp.asarray([-1.0, 0.0, 1.0])).round(4)
        Array([0.2689    , 0.5       , 0.73109996], dtype=float32)
    """
    x, loc, scale = promote_args_inexact("logistic.cdf", x, loc, scale)
    return lax.logistic((x - loc) / scale)


@api_boundary
def sf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """``expit(-(x - loc) / scale)``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import logistic
        >>> logistic.sf(fnp.asarray([-1.0, 0.0, 1.0])).round(4)
        Array([0.73109996, 0.5       , 0.2689    ], dtype=float32)
    """
    x, loc, scale = promote_args_inexact("logistic.sf", x, loc, scale)
    return lax.logistic(-(x - loc) / scale)


@api_boundary
@strong_like_jax
def ppf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The quantile ``logit(x) * scale + loc``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import logistic
        >>> logistic.ppf(fnp.asarray([0.25, 0.5, 1.0])).round(4)
        Array([-1.0986,  0.    ,     inf], dtype=float32)
    """
    x, loc, scale = promote_args_inexact("logistic.ppf", x, loc, scale)
    return _logit(x) * scale + loc


@api_boundary
@strong_like_jax
def isf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The inverse survival function ``-logit(x) * scale + loc``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import logistic
        >>> logistic.isf(fnp.asarray([0.25, 0.5])).round(4)
        Array([1.0986, 0.    ], dtype=float32)
    """
    x, loc, scale = promote_args_inexact("logistic.isf", x, loc, scale)
    return -_logit(x) * scale + loc
