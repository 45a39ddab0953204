"""Modified Bessel functions of orders 0 and 1 with scipy's names: ``i0``, ``i0e``, ``i1``,
``i1e``. ``i0e`` and ``i1e`` are ``lax.bessel_i0e`` and ``lax.bessel_i1e`` of the argument as
a float, ``i0`` is lax's (which ``funcarray.numpy.i0`` is too), and ``i1`` is
``exp(|x|) i1e(x)``, as in JAX (algorithms and derivatives in
``funcarray/lax/_special_bessel.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from funcarray import lax
from funcarray import numpy as fnp
from funcarray.base.errors import api_boundary
from funcarray.lax._special_bessel import i0 as bessel_i0
from funcarray.lax._special_dtypes import float_arg, weak_result

if TYPE_CHECKING:
    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike

__all__ = ["i0", "i0e", "i1", "i1e"]


@api_boundary
def i0e(x: ArrayLike) -> Array:
    """The exponentially scaled modified Bessel function of order 0, ``exp(-|x|) I0(x)``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import i0e
        >>> i0e(fnp.asarray([0.0, 1.0, 100.0])).round(5)
        Array([1.     , 0.46576, 0.03994], dtype=float32)
    """
    return weak_result(lax.bessel_i0e, [float_arg("i0e", x)])


@api_boundary
def i1e(x: ArrayLike) -> Array:
    """The exponentially scaled modified Bessel function of order 1, ``exp(-|x|) I1(x)``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import i1e
        >>> i1e(fnp.asarray([0.0, 1.0, -100.0])).round(5)
        Array([ 0.     ,  0.20791, -0.03974], dtype=float32)
    """
    return weak_result(lax.bessel_i1e, [float_arg("i1e", x)])


@api_boundary
def i0(x: ArrayLike) -> Array:
    """The modified Bessel function of order 0, ``I0(x)``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import i0
        >>> i0(fnp.asarray([0.0, 1.0, 3.0])).round(4)
        Array([1.       , 1.2660999, 4.8808   ], dtype=float32)
    """
    return bessel_i0(x)


@api_boundary
def i1(x: ArrayLike) -> Array:
    """The modified Bessel function of order 1, ``I1(x)``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import i1
        >>> i1(fnp.asarray([0.0, 1.0, -3.0])).round(4)
        Array([ 0.    ,  0.5652, -3.9534], dtype=float32)
    """
    return weak_result(lambda x: fnp.exp(fnp.abs(x)) * lax.bessel_i1e(x),
                       [float_arg("i1", x)])
