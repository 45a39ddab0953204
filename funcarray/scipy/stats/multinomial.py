"""The multinomial distribution (``jax.scipy.stats.multinomial``): counts ``x`` (last axis
the categories) of ``n`` draws with category probabilities ``p``."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

import funcarray.numpy as fnp
from funcarray.api.arguments import asarray_arg, convert
from funcarray.base import dtypes
from funcarray.base.errors import api_boundary, op_type_error
from funcarray.scipy import special
from funcarray.scipy.stats._common import promote_dtypes_inexact

if TYPE_CHECKING:
    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike

__all__ = ["logpmf", "pmf"]


@api_boundary
def logpmf(x: ArrayLike, n: ArrayLike, p: ArrayLike) -> Array:
    """``gammaln(n + 1) + sum(xlogy(x, p) - gammaln(x + 1))`` over the last axis; ``-inf``
    unless the counts sum to ``n``. ``x`` and ``n`` must be integers.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import multinomial
        >>> multinomial.logpmf(fnp.asarray([1, 2, 0]), 3, fnp.asarray([0.2, 0.5, 0.3])).round(4)
        Array(-1.8971, dtype=float32)
    """
    op = "multinomial.logpmf"
    (p,) = promote_dtypes_inexact(op, p)
    x, n = asarray_arg(op, x), asarray_arg(op, n)
    for name, value in (("x", x), ("n", n)):
        if not dtypes.is_integer(value.dtype):
            raise op_type_error(op, f"{name} must be an integer array (counts), got dtype "
                                    f"{value.dtype}; convert it with .astype(int)")
    x, n = convert(x, p.dtype), convert(n, p.dtype)
    log_probs = special.gammaln(n + 1) + fnp.sum(special.xlogy(x, p) - special.gammaln(x + 1),
                                                 axis=-1)
    # (JAX compares the total over all of x, not per row; kept for identical results.)
    return fnp.where(fnp.sum(x) == n, log_probs, -np.inf)


@api_boundary
def pmf(x: ArrayLike, n: ArrayLike, p: ArrayLike) -> Array:
    """The probability ``exp(logpmf(x, n, p))``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.stats import multinomial
        >>> multinomial.pmf(fnp.asarray([1, 1]), 2, fnp.asarray([0.5, 0.5])).round(4)
        Array(0.5, dtype=float32)
    """
    return fnp.exp(logpmf(x, n, p))
