"""The right-skewed Gumbel distribution (``jax.scipy.stats.gumbel_r``): cdf
``exp(-exp(-z))``, ``z = (x - loc) / scale``. Results are NaN unless ``scale > 0``."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

import funcarray.numpy as fnp
from funcarray.base.errors import api_boundary
from funcarray.nn import log1mexp
from funcarray.scipy.stats._common import promote_args_inexact, strong_like_jax

if TYPE_CHECKING:
    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"]


@api_boundary
def logpdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """Log density ``-log(scale) - z - exp(-z)``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import gumbel_r
        >>> gumbel_r.logpdf(fnp.asarray([-1.0, 0.0, 2.0])).round(4)
        Array([-1.7183, -1.    , -2.1353], dtype=float32)
    """
    x, loc, scale = promote_args_inexact("gumbel_r.logpdf", x, loc, scale)
    return fnp.where(scale > 0, _log_density(x, loc, scale), np.nan)


def _log_density(x: Array, loc: Array, scale: Array) -> Array:
    """``logpdf`` of promoted arguments, before the NaN for ``scale <= 0``."""
    z = (x - loc) / scale
    return -fnp.log(scale) - (z + fnp.exp(-z))


@api_boundary
def pdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The density ``exp(logpdf(x, loc, scale))``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import gumbel_r
        >>> gumbel_r.pdf(fnp.asarray([0.0, 1.0])).round(4)
        Array([0.36789998, 0.2546    ], dtype=float32)
    """
    x, loc, scale = promote_args_inexact("gumbel_r.pdf", x, loc, scale)
    # Select after exp: XLA's CPU exp of a select with a NaN constant returns garbage under
    # jit (docs/decisions.md); NaN-free lanes are the same either way.
    return fnp.where(scale > 0, fnp.exp(_log_density(x, loc, scale)), np.nan)


@api_boundary
def logcdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """``-exp(-z)``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import gumbel_r
        >>> gumbel_r.logcdf(fnp.asarray([-1.0, 0.0])).round(4)
        Array([-2.7182999, -1.       ], dtype=float32)
    """
    x, loc, scale = promote_args_inexact("gumbel_r.logcdf", x, loc, scale)
    return fnp.where(scale > 0, -fnp.exp(-((x - loc) / scale)), np.nan)


@api_boundary
def cdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """``exp(-exp(-z))``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import gumbel_r
        >>> gumbel_r.cdf(fnp.asarray([-1.0, 0.0, 1.0])).round(4)
        Array([0.066     , 0.36789998, 0.6922    ], dtype=float32)
    """
    x, loc, scale = promote_args_inexact("gumbel_r.cdf", x, loc, scale)
    # Select after exp: XLA's CPU exp of a select with a NaN constant returns garbage under
    # jit (docs/decisions.md); NaN-free lanes are the same either way.
    return fnp.where(scale > 0, fnp.exp(-fnp.exp(-((x - loc) / scale))), np.nan)


@api_boundary
@strong_like_jax
def sf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The survival function ``1 - exp(-exp(-z))``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import gumbel_r
        >>> gumbel_r.sf(fnp.asarray([-1.0, 1.0])).round(4)
        Array([0.93399996, 0.3078    ], dtype=float32)
    """
    x, loc, scale = promote_args_inexact("gumbel_r.sf", x, loc, scale)
    value = 1 - fnp.exp(-fnp.exp((loc - x) / scale))
    return fnp.where(scale > 0, value, np.nan)


@api_boundary
def logsf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """``log1mexp(exp(-z))``, accurate in both tails.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import gumbel_r
        >>> gumbel_r.logsf(fnp.asarray([-1.0, 10.0])).round(4)
        Array([ -0.0683, -10.    ], dtype=float32)
    """
    x, loc, scale = promote_args_inexact("gumbel_r.logsf", x, loc, scale)
    value = log1mexp(fnp.exp((loc - x) / scale))
    return fnp.where(scale > 0, value, np.nan)


@api_boundary
def ppf(p: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The quantile ``loc - scale log(-log(p))``; NaN unless ``0 < p < 1``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import gumbel_r
        >>> gumbel_r.ppf(fnp.asarray([0.0, 0.25, 0.5])).round(4)
        Array([    nan, -0.3266,  0.3665], dtype=float32)
    """
    p, loc, scale = promote_args_inexact("gumbel_r.ppf", p, loc, scale)
    value = loc - scale * fnp.log(-fnp.log(p))
    return fnp.where((p > 0) & (p < 1), value, np.nan)
