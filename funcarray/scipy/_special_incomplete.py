"""Regularized incomplete gamma and beta functions with scipy's names: ``gammainc``,
``gammaincc`` and ``betainc``, which promote their arguments (``float_args``) and call
``lax.igamma``, ``lax.igammac`` and ``lax.betainc`` (algorithms and derivatives in
``funcarray/lax/_special_incomplete.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from funcarray import lax
from funcarray.base.errors import api_boundary
from funcarray.lax._special_dtypes import weak_result
from funcarray.scipy._special_arguments import float_args

if TYPE_CHECKING:
    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike

__all__ = ["gammainc", "gammaincc", "betainc"]


@api_boundary
def gammainc(a: ArrayLike, x: ArrayLike) -> Array:
    """The regularized lower incomplete gamma function ``P(a, x)``; NaN for ``a < 0`` or
    ``x < 0``. Differentiable in both arguments.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import gammainc
        >>> gammainc(fnp.asarray([1.0, 2.0, 0.5]), fnp.asarray([1.0, 3.0, 0.0])).round(5)
        Array([0.63212, 0.80085, 0.     ], dtype=float32)
    """
    return weak_result(lax.igamma, float_args("gammainc", a, x))


@api_boundary
def gammaincc(a: ArrayLike, x: ArrayLike) -> Array:
    """The regularized upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)``, accurate
    where it is tiny.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import gammaincc
        >>> gammaincc(fnp.asarray([1.0, 2.0]), fnp.asarray([1.0, 30.0]))
        Array([3.6787942e-01, 2.9008631e-12], dtype=float32)
    """
    return weak_result(lax.igammac, float_args("gammaincc", a, x))


@api_boundary
def betainc(a: ArrayLike, b: ArrayLike, x: ArrayLike) -> Array:
    """The regularized incomplete beta function ``I_x(a, b)``; differentiable in ``x``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import betainc
        >>> betainc(2.0, 3.0, fnp.asarray([0.0, 0.25, 0.5, 1.0])).round(5)
        Array([0.     , 0.26172, 0.6875 , 1.     ], dtype=float32)
    """
    return weak_result(lax.betainc, float_args("betainc", a, b, x))
