"""The generalized normal distribution (``jax.scipy.stats.gennorm``) with shape ``beta``:
density ``beta / (2 Gamma(1/beta)) exp(-|x|**beta)``."""

from __future__ import annotations

from typing import TYPE_CHECKING

import funcarray.numpy as fnp
from funcarray.base.errors import api_boundary
from funcarray.scipy import special
from funcarray.scipy.stats._common import promote_args_inexact

if TYPE_CHECKING:
    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike

__all__ = ["logpdf", "pdf", "cdf"]


@api_boundary
def logpdf(x: ArrayLike, beta: ArrayLike) -> Array:
    """Log density ``log(beta / 2) - lgamma(1 / beta) - |x|**beta``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import gennorm
        >>> gennorm.logpdf(fnp.asarray([-1.0, 0.0, 2.0]), 2.0).round(4)
        Array([-1.5724, -0.5724, -4.5724], dtype=float32)
    """
    x, beta = promote_args_inexact("gennorm.logpdf", x, beta)
    return fnp.log(0.5 * beta) - special.gammaln(1 / beta) - fnp.abs(x) ** beta


@api_boundary
def pdf(x: ArrayLike, beta: ArrayLike) -> Array:
    """The density ``exp(logpdf(x, beta))``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import gennorm
        >>> gennorm.pdf(fnp.asarray([0.0, 1.0]), 1.0).round(4)
        Array([0.5   , 0.1839], dtype=float32)
    """
    return fnp.exp(logpdf(x, beta))


@api_boundary
def cdf(x: ArrayLike, beta: ArrayLike) -> Array:
    """``(1 + sign(x) gammainc(1/beta, |x|**beta)) / 2``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import gennorm
        >>> gennorm.cdf(fnp.asarray([-1.0, 0.0, 1.0]), 2.0).round(4)
        Array([0.0786    , 0.5       , 0.92139995], dtype=float32)
    """
    x, beta = promote_args_inexact("gennorm.cdf", x, beta)
    return 0.5 * (1 + fnp.sign(x) * special.gammainc(1 / beta, fnp.abs(x) ** beta))
