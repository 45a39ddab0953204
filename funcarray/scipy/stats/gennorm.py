"""The generalized normal distribution (``jax.scipy.stats.gennorm``) with shape ``beta``:
density ``beta / (2 Gamma(1/beta)) exp(-|x|**beta)``."""

from __future__ import annotations

import funcarray.numpy as fnp
from funcarray.base.errors import api_boundary
from funcarray.scipy import special
from funcarray.scipy.stats._common import promote_args_inexact

__all__ = ["logpdf", "pdf", "cdf"]


@api_boundary
def logpdf(x, beta):
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
def pdf(x, beta):
    """The density ``exp(logpdf(x, beta))``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import gennorm
        >>> gennorm.pdf(fnp.asarray([0.0, 1.0]), 1.0).round(4)
        Array([0.5   , 0.1839], dtype=float32)
    """
    return fnp.exp(logpdf(x, beta))


@api_boundary
def cdf(x, beta):
    """``(1 + sign(x) gammainc(1/beta, |x|**beta)) / 2``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import gennorm
        >>> gennorm.cdf(fnp.asarray([-1.0, 0.0, 1.0]), 2.0).round(4)
        Array([0.0786, 0.5   , 0.9214], dtype=float32)
    """
    x, beta = promote_args_inexact("gennorm.cdf", x, beta)
    return 0.5 * (1 + fnp.sign(x) * special.gammainc(1 / beta, fnp.abs(x) ** beta))
