"""The von Mises distribution (``jax.scipy.stats.vonmises``) with concentration ``kappa``:
density ``exp(kappa cos(x)) / (2 pi I0(kappa))``."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

import funcarray.numpy as fnp
from funcarray.base.errors import api_boundary
from funcarray.scipy import special
from funcarray.scipy.stats._common import promote_args_inexact

if TYPE_CHECKING:
    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike

__all__ = ["logpdf", "pdf"]


@api_boundary
def logpdf(x: ArrayLike, kappa: ArrayLike) -> Array:
    """Log density ``kappa (cos(x) - 1) - log(2 pi i0e(kappa))`` (the scaled Bessel function
    keeps large ``kappa`` from overflowing); NaN unless ``kappa > 0``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import vonmises
        >>> vonmises.logpdf(fnp.asarray([-1.0, 0.0, 2.0]), 2.0).round(4)
        Array([-1.5812999, -0.6619   , -3.4942   ], dtype=float32)
    """
    x, kappa = promote_args_inexact("vonmises.logpdf", x, kappa)
    return fnp.where(kappa > 0, _log_density(x, kappa), np.nan)


def _log_density(x: Array, kappa: Array) -> Array:
    """``logpdf`` of promoted arguments, before the NaN for ``kappa <= 0``."""
    return kappa * (fnp.cos(x) - 1) - fnp.log(2 * np.pi * special.i0e(kappa))


@api_boundary
def pdf(x: ArrayLike, kappa: ArrayLike) -> Array:
    """The density ``exp(logpdf(x, kappa))``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import vonmises
        >>> vonmises.pdf(fnp.asarray([0.0, 3.0]), 2.0).round(4)
        Array([0.5159, 0.0096], dtype=float32)
    """
    x, kappa = promote_args_inexact("vonmises.pdf", x, kappa)
    # Select after exp: XLA's CPU exp of a select with a NaN constant returns garbage under
    # jit (docs/decisions.md); NaN-free lanes are the same either way.
    return fnp.where(kappa > 0, fnp.exp(_log_density(x, kappa)), np.nan)
