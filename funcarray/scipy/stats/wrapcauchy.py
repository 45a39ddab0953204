"""The wrapped Cauchy distribution on ``[0, 2 pi]`` (``jax.scipy.stats.wrapcauchy``) with
concentration ``0 < c < 1``."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

import funcarray.numpy as fnp
from funcarray.base.errors import api_boundary
from funcarray.scipy.stats._common import promote_args_inexact

if TYPE_CHECKING:
    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike

__all__ = ["logpdf", "pdf"]


@api_boundary
def logpdf(x: ArrayLike, c: ArrayLike) -> Array:
    """Log density ``log(1 - c**2) - log(2 pi) - log(1 + c**2 - 2 c cos(x))``; ``-inf``
    outside ``[0, 2 pi]``, NaN unless ``0 < c < 1``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import wrapcauchy
        >>> wrapcauchy.logpdf(fnp.asarray([-1.0, 0.0, 2.0]), 0.5).round(4)
        Array([       -inf, -0.73929995, -2.6360998 ], dtype=float32)
    """
    x, c = promote_args_inexact("wrapcauchy.logpdf", x, c)
    return fnp.where((c > 0) & (c < 1), _log_density(x, c), np.nan)


def _log_density(x: Array, c: Array) -> Array:
    """``logpdf`` of promoted arguments, before the NaN for ``c`` outside ``(0, 1)``."""
    value = (fnp.log(1 - c * c) - float(np.log(2 * np.pi))
             - fnp.log(1 + c * c - 2 * c * fnp.cos(x)))
    return fnp.where((x >= 0) & (x <= 2 * np.pi), value, -np.inf)


@api_boundary
def pdf(x: ArrayLike, c: ArrayLike) -> Array:
    """The density ``exp(logpdf(x, c))``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import wrapcauchy
        >>> wrapcauchy.pdf(fnp.asarray([0.0, 3.0]), 0.5).round(4)
        Array([0.4775, 0.0533], dtype=float32)
    """
    x, c = promote_args_inexact("wrapcauchy.pdf", x, c)
    # Select after exp: XLA's CPU exp of a select with a NaN constant returns garbage under
    # jit (docs/decisions.md); NaN-free lanes are the same either way.
    return fnp.where((c > 0) & (c < 1), fnp.exp(_log_density(x, c)), np.nan)
