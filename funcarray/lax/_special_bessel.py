"""Modified Bessel functions of orders 0 and 1: the implementations behind
``lax.bessel_i0e`` and ``lax.bessel_i1e``, and ``i0`` (``funcarray.numpy.i0`` and
``funcarray.scipy.special.i0``, as jax.numpy builds it on ``bessel_i0e``).

Computed our own way (XLA uses Cephes' Chebyshev fits): below ``|x| = 25`` the power series
``I_v(x) = (x/2)^v sum_k (x^2/4)^k / (k! (k+v)!)``, whose terms are all positive (no
cancellation; 75 terms reach float64 precision at 25), then scaled by ``exp(-|x|)``; beyond,
Hankel's asymptotic series ``I_v(x) e^-x = (2 pi x)^(-1/2) sum_k (-1)^k a_k(v) / x^k``, which
at ``x >= 25`` is accurate to float64 precision after 20 terms. The unscaled ``i0``/``i1``
are ``exp(|x|)`` times the scaled ones, as in JAX. Derivatives are JAX's closed forms
(``custom_jvp``): ``i0e' = i1e - sign(x) i0e`` and ``i1e' = i0e - i1e (sign(x) + 1/x)``
(1/2 at 0). float16/bfloat16 compute in float32.

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray.lax._special_bessel import i1e_impl
    >>> i1e_impl(fnp.asarray([-2.0, 30.0])).round(5)
    Array([-0.21527,  0.07192], dtype=float32)
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from funcarray.api.custom_derivatives import custom_jvp
from funcarray.base import dtypes
from funcarray.base.array import Array
from funcarray.lax._ops_binary import add, div, le, mul, select, sub
from funcarray.lax._ops_shape import full_like
from funcarray.lax._ops_unary import abs as absolute
from funcarray.lax._ops_unary import exp, sign
from funcarray.lax._special_dtypes import float_arg, in_float32, weak_result
from funcarray.lax._special_host_ops import LAX_OPS, evaluate_on_numpy, select_lazily
from funcarray.transforms.host_shortcuts import host_shortcut, host_value

if TYPE_CHECKING:
    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike

__all__ = ["i0e_impl", "i1e_impl", "i0", "scaled_bessel", "i0_of_numpy"]

_SWITCH = 25.0
_SERIES_TERMS = 75
_ASYMPTOTIC_TERMS = 20


# The series' divisors k (k + order), innermost first, and the asymptotic series'
# coefficients prod_j -(4 order^2 - (2j - 1)^2) / (8j), for orders 0 and 1 (computed once).
_SERIES_DIVISORS = tuple(tuple(float(k * (k + order)) for k in range(_SERIES_TERMS, 0, -1))
                         for order in (0, 1))


def _asymptotic_coefficients(order):
    mu, coefficient, out = 4 * order * order, 1.0, []
    for k in range(1, _ASYMPTOTIC_TERMS + 1):
        coefficient *= -(mu - (2 * k - 1) ** 2) / (k * 8)
        out.append(coefficient)
    return tuple(out)


_ASYMPTOTIC_COEFFICIENTS = tuple(_asymptotic_coefficients(order) for order in (0, 1))


def _series(x, order, ops):
    """``I_order(x) / (x/2)^order`` by the power series (Horner form, innermost term first)."""
    q = ops.mul(ops.mul(0.25, x), x)
    total = ops.full_like(x, 1)
    for divisor in _SERIES_DIVISORS[order]:
        total = ops.add(1.0, ops.div(ops.mul(total, q), divisor))
    return ops.div(total, float(math.factorial(order)))


def _asymptotic(ax, order, ops):
    """``I_order(ax) exp(-ax) sqrt(2 pi ax)`` for large ``ax > 0``."""
    inv = ops.div(1.0, ax)
    total = ops.full_like(ax, 1)
    power = ops.full_like(ax, 1)
    for coefficient in _ASYMPTOTIC_COEFFICIENTS[order]:
        power = ops.mul(power, inv)
        total = ops.add(total, ops.mul(coefficient, power))
    return total


def scaled_bessel(x, order, ops=LAX_OPS):
    """``exp(-|x|) I_order(x)`` for order 0 or 1, of a float32 or float64 ``x``, computed
    with ``ops`` (``_special_host_ops``: lax's operations, or their kernels on NumPy)."""
    ax = ops.abs(x)
    large = ops.gt(ax, _SWITCH)

    def small_value():
        small_x = ops.select(large, ops.full_like(x, 1), x)
        value = ops.mul(ops.exp(ops.neg(ops.abs(small_x))), _series(small_x, order, ops))
        if order == 1:
            value = ops.mul(value, ops.mul(0.5, small_x))
        return value

    def big_value():
        big = ops.select(large, ax, ops.full_like(ax, 2 * _SWITCH))
        # sqrt(2 pi) sqrt(|x|), not sqrt(2 pi |x|): the product overflows float32 above
        # 5.4e37.
        value = ops.div(_asymptotic(big, order, ops),
                        ops.mul(math.sqrt(2 * math.pi), ops.sqrt(big)))
        if order == 1:
            value = ops.select(ops.lt(x, 0.0), ops.neg(value), value)
        return value

    out = select_lazily(ops, large, big_value, small_value)
    # |x| = inf: the limit is 0 (NaN stays NaN through the series).
    return ops.select(ops.eq(ops.abs(x), np.inf), ops.full_like(x, 0), out)


@custom_jvp
@in_float32
def i0e_impl(x: ArrayLike) -> Array:
    """``exp(-|x|) I0(x)`` of a float array (``lax.bessel_i0e`` after its checks)."""
    return scaled_bessel(x, 0)


@custom_jvp
@in_float32
def i1e_impl(x: ArrayLike) -> Array:
    """``exp(-|x|) I1(x)`` of a float array (``lax.bessel_i1e`` after its checks)."""
    return scaled_bessel(x, 1)


# JAX's derivatives (the composition's would differ at 0, where |x| has a kink).
i0e_impl.defjvps(lambda t, y, x: mul(t, sub(i1e_impl(x), mul(sign(x), y))))


def _i1e_derivative(t, y, x):
    tiny = le(absolute(x), float(dtypes.finfo(x.dtype).eps))
    safe_x = select(tiny, full_like(x, 1), x)
    slope = sub(i0e_impl(safe_x), mul(y, add(sign(safe_x), div(1.0, safe_x))))
    return mul(t, select(tiny, full_like(x, 0.5), slope))


i1e_impl.defjvps(_i1e_derivative)


def _i0_formula(x, ops):
    return ops.mul(ops.exp(ops.abs(x)), scaled_bessel(x, 0, ops))


def i0_of_numpy(x: np.ndarray) -> np.ndarray:
    """``i0`` of a float32 or float64 NumPy array with the NumPy kernels: the general
    path's bits (``exp(|x|) i0e(x)``, the same kernels in the same order).

    Example:
        >>> i0_of_numpy(np.float32([0.0, 1.0]))
        array([1.       , 1.2660658], dtype=float32)
    """
    return evaluate_on_numpy(_i0_formula, [x])


_FLOAT32_64 = (np.dtype(np.float32), np.dtype(np.float64))


def _i0_on_host(x):
    # A concrete float32/float64 array: its formula on the NumPy kernels (other dtypes
    # convert first: the general path).
    value = host_value(x)
    if value is None or value.dtype not in _FLOAT32_64:
        return NotImplemented
    return Array(i0_of_numpy(value), x._weak)


@host_shortcut(_i0_on_host)
def i0(x: ArrayLike) -> Array:
    """The modified Bessel function of order 0, ``I0(x) = exp(|x|) i0e(x)``; integer and
    bool inputs compute as floats, complex ones are refused.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.lax._special_bessel import i0
        >>> i0(fnp.asarray([0.0, -1.0])).round(4)
        Array([1.       , 1.2660999], dtype=float32)
    """
    return weak_result(lambda x: mul(exp(absolute(x)), i0e_impl(x)), [float_arg("i0", x)])
