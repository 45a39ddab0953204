"""The uniform distribution on ``[loc, loc + scale]`` (``jax.scipy.stats.uniform``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

import funcarray.numpy as fnp
from funcarray.base.errors import api_boundary
from funcarray.scipy.stats._common import promote_args_inexact

if TYPE_CHECKING:
    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike

__all__ = ["logpdf", "pdf", "cdf", "ppf"]


@api_boundary
def logpdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """``-log(scale)`` on ``[loc, loc + scale]``, ``-inf`` outside.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import uniform
        >>> uniform.logpdf(fnp.asarray([-1.0, 0.5, 2.0]), 0.0, 2.0).round(4)
        Array([   -inf, -0.6931, -0.6931], dtype=float32)
    """
    x, loc, scale = promote_args_inexact("uniform.logpdf", x, loc, scale)
    outside = (x < loc) | (x > loc + scale)
    return fnp.where(outside, -np.inf, -fnp.log(scale))


@api_boundary
def pdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """``1 / scale`` on ``[loc, loc + scale]``, 0 outside.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import uniform
        >>> uniform.pdf(fnp.asarray([-1.0, 0.5, 2.0]), 0.0, 2.0)
        Array([0. , 0.5, 0.5], dtype=float32)
    """
    return fnp.exp(logpdf(x, loc, scale))


@api_boundary
def cdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """``(x - loc) / scale`` clipped to [0, 1].

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import uniform
        >>> uniform.cdf(fnp.asarray([-1.0, 0.5, 3.0]), 0.0, 2.0)
        Array([0.  , 0.25, 1.  ], dtype=float32)
    """
    x, loc, scale = promote_args_inexact("uniform.cdf", x, loc, scale)
    inside = (x >= loc) & (x <= loc + scale)
    # Strong 0-d constants, as JAX's (jnp.array(0, x.dtype)): the result is never weak.
    zero, one = fnp.asarray(0, x.dtype), fnp.asarray(1, x.dtype)
    return fnp.select([x < loc, x > loc + scale, inside], [zero, one, (x - loc) / scale])


@api_boundary
def ppf(q: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The quantile ``loc + scale * q``; NaN for ``q`` outside [0, 1].

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import uniform
        >>> uniform.ppf(fnp.asarray([0.0, 0.25, 1.5]), 1.0, 2.0)
        Array([1. , 1.5, nan], dtype=float32)
    """
    q, loc, scale = promote_args_inexact("uniform.ppf", q, loc, scale)
    return fnp.where(fnp.isnan(q) | (q < 0) | (q > 1), np.nan, loc + scale * q)
