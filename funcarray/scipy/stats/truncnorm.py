"""The normal distribution truncated to ``[a, b]`` in standard units
(``jax.scipy.stats.truncnorm``): the support is ``[loc + a scale, loc + b scale]``.

The normaliser ``log(ndtr(b) - ndtr(a))`` is computed from the tail that keeps it accurate:
both bounds in one tail use the difference of ``log_ndtr``s (reflected into the left tail),
bounds on either side of 0 use ``log1p(-ndtr(a) - ndtr(-b))``. Results are NaN where
``a >= b``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

import funcarray.numpy as fnp
from funcarray.base.errors import api_boundary
from funcarray.nn import logsumexp
from funcarray.scipy import special
from funcarray.scipy.stats import norm
from funcarray.scipy.stats._common import promote_args_inexact

if TYPE_CHECKING:
    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]


def _log_diff(x, y):
    """``log(exp(x) - exp(y))`` without overflow (NaN where ``y > x``)."""
    return logsumexp(fnp.stack([x, y]), b=fnp.stack([fnp.ones_like(x), -fnp.ones_like(y)]),
                     axis=0)


def _log_gauss_mass(a, b):
    """``log(P(a <= Z <= b))`` for a standard normal ``Z``."""
    a, b = fnp.broadcast_arrays(a, b)
    left = b <= 0
    right = a > 0
    central = ~(left | right)
    # Right-tail intervals are mirrored into the left tail, where log_ndtr is accurate.
    a_tail = fnp.where(right, -b, a)
    b_tail = fnp.where(right, -a, b)
    mass_tail = _log_diff(special.log_ndtr(b_tail), special.log_ndtr(a_tail))
    mass_central = fnp.log1p(-special.ndtr(a) - special.ndtr(-b))
    return fnp.where(central, mass_central, mass_tail)


@api_boundary
def logpdf(x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0,
           scale: ArrayLike = 1) -> Array:
    """Log density ``norm.logpdf(x, loc, scale) - log(P(a <= Z <= b))`` inside the support,
    ``-inf`` outside.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import truncnorm
        >>> truncnorm.logpdf(fnp.asarray([-2.0, 0.0, 0.5]), -1.0, 1.0).round(4)
        Array([   -inf, -0.5372, -0.6622], dtype=float32)
    """
    x, a, b, loc, scale = promote_args_inexact("truncnorm.logpdf", x, a, b, loc, scale)
    value = norm.logpdf(x, loc, scale) - _log_gauss_mass(a, b)
    z = (x - loc) / scale
    value = fnp.where((z < a) | (z > b), -np.inf, value)
    return fnp.where(a >= b, np.nan, value)


@api_boundary
def pdf(x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0,
        scale: ArrayLike = 1) -> Array:
    """The density ``exp(logpdf(x, a, b, loc, scale))``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import truncnorm
        >>> truncnorm.pdf(fnp.asarray([0.0, 0.5]), -1.0, 1.0).round(4)
        Array([0.5844, 0.5157], dtype=float32)
    """
    return fnp.exp(logpdf(x, a, b, loc, scale))


@api_boundary
def logcdf(x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0,
           scale: ArrayLike = 1) -> Array:
    """``log(P(X <= x))``: 0 above the support, ``-inf`` below it.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import truncnorm
        >>> truncnorm.logcdf(fnp.asarray([-2.0, 0.0, 2.0]), -1.0, 1.0).round(4)
        Array([   -inf, -0.6931,  0.    ], dtype=float32)
    """
    x, a, b, loc, scale = promote_args_inexact("truncnorm.logcdf", x, a, b, loc, scale)
    z = (x - loc) / scale
    log_mass = _log_gauss_mass(a, b)
    log_cdf = _log_gauss_mass(a, z) - log_mass
    log_sf = _log_gauss_mass(z, b) - log_mass
    # Near 1 the cdf is better computed from the survival mass (no cancellation).
    value = fnp.select([z >= b, z <= a, log_cdf > -0.1, z > a],
                       [fnp.zeros_like(z), fnp.full_like(z, -np.inf),
                        fnp.log1p(-fnp.exp(log_sf)), log_cdf])
    return fnp.where(a >= b, np.nan, value)


@api_boundary
def cdf(x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0,
        scale: ArrayLike = 1) -> Array:
    """``exp(logcdf(x, a, b, loc, scale))``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import truncnorm
        >>> truncnorm.cdf(fnp.asarray([-2.0, 0.0, 2.0]), -1.0, 1.0).round(4)
        Array([0. , 0.5, 1. ], dtype=float32)
    """
    return fnp.exp(logcdf(x, a, b, loc, scale))


@api_boundary
def logsf(x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0,
          scale: ArrayLike = 1) -> Array:
    """``log(P(X > x))``, by the mirror image ``logcdf(-x, -b, -a, -loc, scale)``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import truncnorm
        >>> truncnorm.logsf(fnp.asarray([-2.0, 0.0, 2.0]), -1.0, 1.0).round(4)
        Array([ 0.    , -0.6931,    -inf], dtype=float32)
    """
    x, a, b, loc, scale = promote_args_inexact("truncnorm.logsf", x, a, b, loc, scale)
    return logcdf(-x, -b, -a, -loc, scale)


@api_boundary
def sf(x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The survival function ``exp(logsf(x, a, b, loc, scale))``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import truncnorm
        >>> truncnorm.sf(fnp.asarray([-2.0, 0.0, 2.0]), -1.0, 1.0).round(4)
        Array([1. , 0.5, 0. ], dtype=float32)
    """
    return fnp.exp(logsf(x, a, b, loc, scale))
