"""The left-skewed Gumbel distribution (``jax.scipy.stats.gumbel_l``): survival function
``exp(-exp(z))``, ``z = (x - loc) / scale``. Results are NaN unless ``scale > 0``."""

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
    """Log density ``-log(scale) + z - exp(z)``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import gumbel_l
        >>> gumbel_l.logpdf(fnp.asarray([-1.0, 0.0, 2.0])).round(4)
        Array([-1.3679, -1.    , -5.3891], dtype=float32)
    """
    x, loc, scale = promote_args_inexact("gumbel_l.logpdf", x, loc, scale)
    return fnp.where(scale > 0, _log_density(x, loc, scale), np.nan)


def _log_density(x: Array, loc: Array, scale: Array) -> Array:
    """``logpdf`` of promoted arguments, before the NaN for ``scale <= 0``."""
    z = (x - loc) / scale
    return -fnp.log(scale) + (z - fnp.exp(z))


@api_boundary
def pdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The density ``exp(logpdf(x, loc, scale))``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import gumbel_l
        >>> gumbel_l.pdf(fnp.asarray([0.0, 1.0])).round(4)
        Array([0.36789998, 0.1794    ], dtype=float32)
    """
    x, loc, scale = promote_args_inexact("gumbel_l.pdf", x, loc, scale)
    # Select after exp: XLA's CPU exp of a select with a NaN constant returns garbage under
    # jit (docs/decisions.md); NaN-free lanes are the same either way.
    return fnp.where(scale > 0, fnp.exp(_log_density(x, loc, scale)), np.nan)


@api_boundary
def logcdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """``log(1 - exp(-exp(z)))`` (by ``expm1``).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import gumbel_l
        >>> gumbel_l.logcdf(fnp.asarray([-1.0, 0.0])).round(4)
        Array([-1.1783, -0.4587], dtype=float32)
    """
    x, loc, scale = promote_args_inexact("gumbel_l.logcdf", x, loc, scale)
    return fnp.where(scale > 0, fnp.log(_cdf(x, loc, scale)), np.nan)


def _cdf(x: Array, loc: Array, scale: Array) -> Array:
    """``exp(logcdf)`` of promoted arguments, before the NaN for ``scale <= 0``."""
    return -fnp.expm1(-fnp.exp((x - loc) / scale))


@api_boundary
def cdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """``1 - exp(-exp(z))``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import gumbel_l
        >>> gumbel_l.cdf(fnp.asarray([-1.0, 0.0, 1.0])).round(4)
        Array([0.3078    , 0.6321    , 0.93399996], dtype=float32)
    """
    x, loc, scale = promote_args_inexact("gumbel_l.cdf", x, loc, scale)
    # Select after exp: XLA's CPU exp of a select with a NaN constant returns garbage under
    # jit (docs/decisions.md); NaN-free lanes are the same either way.
    return fnp.where(scale > 0, fnp.exp(fnp.log(_cdf(x, loc, scale))), np.nan)


@api_boundary
def logsf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """``-exp(z)``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import gumbel_l
        >>> gumbel_l.logsf(fnp.asarray([-1.0, 0.0])).round(4)
        Array([-0.36789998, -1.        ], dtype=float32)
    """
    x, loc, scale = promote_args_inexact("gumbel_l.logsf", x, loc, scale)
    return fnp.where(scale > 0, -fnp.exp((x - loc) / scale), np.nan)


@api_boundary
def sf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The survival function ``exp(-exp(z))``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import gumbel_l
        >>> gumbel_l.sf(fnp.asarray([-1.0, 1.0])).round(4)
        Array([0.6922, 0.066 ], dtype=float32)
    """
    x, loc, scale = promote_args_inexact("gumbel_l.sf", x, loc, scale)
    # Select after exp: XLA's CPU exp of a select with a NaN constant returns garbage under
    # jit (docs/decisions.md); NaN-free lanes are the same either way.
    return fnp.where(scale > 0, fnp.exp(-fnp.exp((x - loc) / scale)), np.nan)


@api_boundary
def ppf(p: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The quantile ``loc + scale log(-log1p(-p))``; NaN unless ``0 < p < 1``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import gumbel_l
        >>> gumbel_l.ppf(fnp.asarray([0.25, 0.5, 1.0])).round(4)
        Array([-1.2458999, -0.3665   ,        nan], dtype=float32)
    """
    p, loc, scale = promote_args_inexact("gumbel_l.ppf", p, loc, scale)
    value = loc + scale * fnp.log(-fnp.log1p(-p))
    return fnp.where((p > 0) & (p < 1), value, np.nan)
