"""The Cauchy distribution (``jax.scipy.stats.cauchy``): density
``1 / (pi scale (1 + z**2))``, ``z = (x - loc) / scale``."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

import funcarray.numpy as fnp
from funcarray.base.errors import api_boundary
from funcarray.scipy.stats._common import (
    promote_args_inexact,
    promote_dtypes_inexact,
    strong_like_jax,
)

if TYPE_CHECKING:
    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"]


@api_boundary
@strong_like_jax
def logpdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """Log density ``-log(pi scale) - log1p(z**2)``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import cauchy
        >>> cauchy.logpdf(fnp.asarray([-1.0, 0.0, 2.0])).round(4)
        Array([-1.8378999, -1.1446999, -2.7542   ], dtype=float32)
    """
    x, loc, scale = promote_args_inexact("cauchy.logpdf", x, loc, scale)
    z = (x - loc) / scale
    return -(fnp.log(np.pi * scale) + fnp.log1p(z * z))


@api_boundary
@strong_like_jax
def pdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The density ``exp(logpdf(x, loc, scale))``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import cauchy
        >>> cauchy.pdf(fnp.asarray([0.0, 1.0])).round(4)
        Array([0.31829998, 0.1592    ], dtype=float32)
    """
    return fnp.exp(logpdf(x, loc, scale))


@api_boundary
@strong_like_jax
def cdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """``1/2 + arctan(z) / pi``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import cauchy
        >>> cauchy.cdf(fnp.asarray([-1.0, 0.0, 1.0])).round(4)
        Array([0.25, 0.5 , 0.75], dtype=float32)
    """
    x, loc, scale = promote_args_inexact("cauchy.cdf", x, loc, scale)
    return 0.5 + fnp.arctan((x - loc) / scale) / np.pi


@api_boundary
@strong_like_jax
def logcdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """``log(cdf(x, loc, scale))``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import cauchy
        >>> cauchy.logcdf(fnp.asarray([-1.0, 0.0])).round(4)
        Array([-1.3863, -0.6931], dtype=float32)
    """
    return fnp.log(cdf(x, loc, scale))


@api_boundary
@strong_like_jax
def sf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The survival function ``cdf(-x, -loc, scale)``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import cauchy
        >>> cauchy.sf(fnp.asarray([-1.0, 1.0])).round(4)
        Array([0.75, 0.25], dtype=float32)
    """
    x, loc, scale = promote_dtypes_inexact("cauchy.sf", x, loc, scale)
    return cdf(-x, -loc, scale)


@api_boundary
@strong_like_jax
def logsf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """``log(sf(x, loc, scale))``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import cauchy
        >>> cauchy.logsf(fnp.asarray([0.0, 1.0])).round(4)
        Array([-0.6931, -1.3863], dtype=float32)
    """
    x, loc, scale = promote_dtypes_inexact("cauchy.logsf", x, loc, scale)
    return logcdf(-x, -loc, scale)


@api_boundary
@strong_like_jax
def ppf(q: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The quantile ``loc + scale * tan(pi (q - 1/2))``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import cauchy
        >>> cauchy.ppf(fnp.asarray([0.25, 0.5, 0.75])).round(4)
        Array([-1.,  0.,  1.], dtype=float32)
    """
    q, loc, scale = promote_args_inexact("cauchy.ppf", q, loc, scale)
    return fnp.tan(np.pi * q - np.pi / 2) * scale + loc


@api_boundary
@strong_like_jax
def isf(q: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The inverse survival function ``loc + scale * tan(pi (1/2 - q))``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import cauchy
        >>> cauchy.isf(fnp.asarray([0.25, 0.75])).round(4)
        Array([ 1., -1.], dtype=float32)
    """
    q, loc, scale = promote_args_inexact("cauchy.isf", q, loc, scale)
    return fnp.tan(np.pi / 2 - np.pi * q) * scale + loc
