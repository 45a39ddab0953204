"""The Pareto distribution (``jax.scipy.stats.pareto``) with shape ``b``: density
``b / (scale y**(b+1))`` for ``y = (x - loc) / scale >= 1``."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

import funcarray.numpy as fnp
from funcarray.base.errors import api_boundary
from funcarray.scipy.stats._common import const_like, promote_args_inexact, strong_like_jax

if TYPE_CHECKING:
    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"]


@api_boundary
def logpdf(x: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """Log density ``log(b / scale) - (b + 1) log(y)``; ``-inf`` below ``loc + scale``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import pareto
        >>> pareto.logpdf(fnp.asarray([0.5, 1.0, 2.0]), 3.0).round(4)
        Array([      -inf,  1.0986   , -1.6739999], dtype=float32)
    """
    x_arg = x
    x, b, loc, scale = promote_args_inexact("pareto.logpdf", x, b, loc, scale)
    one = const_like(x, 1, x_arg)  # (as in JAX, see const_like)
    log_probs = -(fnp.log(scale / b) + (b + one) * fnp.log((x - loc) / scale))
    return fnp.where(x < loc + scale, -np.inf, log_probs)


@api_boundary
def pdf(x: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The density ``exp(logpdf(x, b, loc, scale))``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import pareto
        >>> pareto.pdf(fnp.asarray([0.5, 2.0]), 3.0).round(4)
        Array([0.    , 0.1875], dtype=float32)
    """
    return fnp.exp(logpdf(x, b, loc, scale))


@api_boundary
@strong_like_jax
def cdf(x: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """``1 - y**-b``; 0 below ``loc + scale``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import pareto
        >>> pareto.cdf(fnp.asarray([0.5, 2.0]), 3.0).round(4)
        Array([0.   , 0.875], dtype=float32)
    """
    x, b, loc, scale = promote_args_inexact("pareto.cdf", x, b, loc, scale)
    value = 1 - fnp.power((x - loc) / scale, -b)
    return fnp.where(x < loc + scale, fnp.zeros_like(x), value)


@api_boundary
def logcdf(x: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """``log1p(-y**-b)``; ``-inf`` below ``loc + scale``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import pareto
        >>> pareto.logcdf(fnp.asarray([0.5, 2.0]), 3.0).round(4)
        Array([   -inf, -0.1335], dtype=float32)
    """
    x, b, loc, scale = promote_args_inexact("pareto.logcdf", x, b, loc, scale)
    value = fnp.log1p(-fnp.power((x - loc) / scale, -b))
    return fnp.where(x < loc + scale, -np.inf, value)


@api_boundary
def logsf(x: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """``-b log(y)``; 0 below ``loc + scale``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import pareto
        >>> pareto.logsf(fnp.asarray([0.5, 2.0]), 3.0).round(4)
        Array([ 0.    , -2.0794], dtype=float32)
    """
    x_arg = x
    x, b, loc, scale = promote_args_inexact("pareto.logsf", x, b, loc, scale)
    value = -(b * fnp.log((x - loc) / scale))
    return fnp.where(x < loc + scale, const_like(x, 0, x_arg), value)  # (as in JAX)


@api_boundary
def sf(x: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The survival function ``y**-b``; 1 below ``loc + scale``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import pareto
        >>> pareto.sf(fnp.asarray([0.5, 2.0]), 3.0).round(4)
        Array([1.   , 0.125], dtype=float32)
    """
    return fnp.exp(logsf(x, b, loc, scale))


@api_boundary
@strong_like_jax
def ppf(q: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The quantile ``loc + scale (1 - q)**(-1/b)``; NaN for ``q`` outside [0, 1].

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import pareto
        >>> pareto.ppf(fnp.asarray([0.0, 0.5, 2.0]), 3.0).round(4)
        Array([1.    , 1.2599,    nan], dtype=float32)
    """
    q, b, loc, scale = promote_args_inexact("pareto.ppf", q, b, loc, scale)
    value = loc + scale * fnp.power(1 - q, -(1 / b))
    return fnp.where(fnp.isnan(q) | (q < 0) | (q > 1), np.nan, value)
