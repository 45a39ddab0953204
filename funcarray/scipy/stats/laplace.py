"""The Laplace distribution (``jax.scipy.stats.laplace``): density
``exp(-|x - loc| / scale) / (2 scale)``."""

from __future__ import annotations

from typing import TYPE_CHECKING

import funcarray.numpy as fnp
from funcarray.base.errors import api_boundary
from funcarray.scipy.stats._common import promote_args_inexact, strong_like_jax

if TYPE_CHECKING:
    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike

__all__ = ["logpdf", "pdf", "cdf"]


@api_boundary
@strong_like_jax
def logpdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """Log density ``-|x - loc| / scale - log(2 scale)``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import laplace
        >>> laplace.logpdf(fnp.asarray([-1.0, 0.0, 2.0])).round(4)
        Array([-1.6931, -0.6931, -2.6931], dtype=float32)
    """
    x, loc, scale = promote_args_inexact("laplace.logpdf", x, loc, scale)
    return -(fnp.abs(x - loc) / scale + fnp.log(2 * scale))


@api_boundary
@strong_like_jax
def pdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The density ``exp(logpdf(x, loc, scale))``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import laplace
        >>> laplace.pdf(fnp.asarray([0.0, 1.0])).round(4)
        Array([0.5   , 0.1839], dtype=float32)
    """
    return fnp.exp(logpdf(x, loc, scale))


@api_boundary
@strong_like_jax
def cdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """``exp(z) / 2`` for ``z = (x - loc) / scale <= 0``, ``1 - exp(-z) / 2`` above.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import laplace
        >>> laplace.cdf(fnp.asarray([-1.0, 0.0, 1.0])).round(4)
        Array([0.1839, 0.5   , 0.8161], dtype=float32)
    """
    x, loc, scale = promote_args_inexact("laplace.cdf", x, loc, scale)
    z = (x - loc) / scale
    return fnp.where(z <= 0, 0.5 * fnp.exp(z), 1 - 0.5 * fnp.exp(-z))
