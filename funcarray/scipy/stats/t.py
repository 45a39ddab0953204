"""Student's t distribution (``jax.scipy.stats.t``) with ``df`` degrees of freedom."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

import funcarray.numpy as fnp
from funcarray.base.errors import api_boundary
from funcarray.scipy import special
from funcarray.scipy.stats._common import promote_args_inexact, strong_like_jax

if TYPE_CHECKING:
    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike

__all__ = ["logpdf", "pdf"]


@api_boundary
@strong_like_jax
def logpdf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """Log density ``lgamma((df+1)/2) - lgamma(df/2) - log(pi df scale**2)/2
    - (df+1)/2 log1p(z**2 / df)``, ``z = (x - loc) / scale``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import t
        >>> t.logpdf(fnp.asarray([-1.0, 0.0, 2.0]), 3.0).round(4)
        Array([-1.5762999, -1.0009   , -2.6955   ], dtype=float32)
    """
    x, df, loc, scale = promote_args_inexact("t.logpdf", x, df, loc, scale)
    z = (x - loc) / scale
    half_df = df / 2
    half_df_plus_half = half_df + 0.5
    normalizer = (special.gammaln(half_df) + fnp.log(scale * scale * np.pi * df) / 2
                  - special.gammaln(half_df_plus_half))
    return -(normalizer + half_df_plus_half * fnp.log1p(z * z / df))


@api_boundary
@strong_like_jax
def pdf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The density ``exp(logpdf(x, df, loc, scale))``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import t
        >>> t.pdf(fnp.asarray([0.0, 1.0]), 1.0).round(4)
        Array([0.31829998, 0.1592    ], dtype=float32)
    """
    return fnp.exp(logpdf(x, df, loc, scale))
