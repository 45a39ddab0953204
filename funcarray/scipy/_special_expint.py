"""Exponential integrals ``exp1`` and ``expi``, the dilogarithm ``spence``, Dawson's integral
``dawsn``, and the Bernoulli numbers ``bernoulli``.

Our own compositions (fixed term counts, so every transform works):

* ``exp1(x) = E1(x)`` for ``x > 0``: the series ``-gamma - log x - sum_k (-x)^k / (k k!)`` up
  to ``x = 1`` (25 terms; the alternating sum loses under one digit there), and beyond, the
  continued fraction ``e^-x / (x + 1 - 1/(x + 3 - 4/(x + 5 - ...)))`` evaluated bottom-up at
  depth 100 (error ~ exp(-4 sqrt(100 x)) < 1e-17). ``inf`` at 0, NaN for ``x < 0``.
* ``expi(x) = Ei(x)``: for ``0 < x <= 40`` the positive series ``gamma + log x + sum_k x^k /
  (k k!)`` (120 terms), beyond the asymptotic ``e^x / x sum_k k! / x^k`` (38 terms, error
  < 1e-16), and ``Ei(x) = -E1(-x)`` for ``x < 0``; ``-inf`` at 0.

* ``expn(n, x) = E_n(x)`` (integer ``n >= 0``, ``x >= 0``): ``e^-x / x`` for ``n = 0``; for
  ``x <= 1`` and ``n <= 20`` the series ``(-x)^(n-1) / (n-1)! (psi(n) - log x) - sum_(k != n-1)
  (-x)^k / ((k - n + 1) k!)`` (40 terms), elsewhere the continued fraction
  ``e^-x / (x + n - n/(x + n + 2 - 2(n+1)/(x + n + 4 - ...)))`` at depth 100; ``1/(n-1)`` at
  ``x = 0`` (scipy's value; jax gives 0.5 for every n). ``expn' = -E_(n-1)`` in ``x``.
* ``spence(x) = Li2(1 - x)`` for ``x >= 0`` (NaN below): ``Li2(z) = sum_n B_n u^(n+1) / (n+1)!``
  with ``u = -log(1 - z)`` (25 terms; ``|u| <= log 2``), reached by the reflection
  ``Li2(z) + Li2(1-z) = pi^2/6 - log z log(1-z)`` for ``x < 1/2`` and the inversion
  ``Li2(z) = -pi^2/6 - log(-z)^2 / 2 - Li2(1/z)`` for ``x > 2``.

* ``dawsn(x) = e^-x^2 integral_0^x e^t^2 dt`` by Rybicki's sum
  ``pi^-1/2 sum_(n odd) e^-(x - n h)^2 / n`` with ``h = 1/4`` (error ~ exp(-(pi / 2h)^2) ~ 1e-17)
  over the 52 odd ``n`` nearest ``x / h``; its Taylor series below ``|x| = 1/2`` (where the
  sum cancels) and ``1/(2x) (1 + 1/(2x^2))`` beyond ``|x| = 1e6``.

The limits at the ends follow scipy (``exp1(inf) = 0``, ``expi(0) = -inf``,
``expi(+-inf) = inf, 0``), where jax.scipy.special returns NaN. Derivatives are the closed
forms (``custom_jvp``): ``E1' = -e^-x / x``, ``Ei' = e^x / x``,
``spence' = log x / (1 - x)``, ``dawsn' = 1 - 2 x dawsn``.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

from funcarray import numpy as fnp
from funcarray.api.custom_derivatives import SymbolicZero, custom_jvp
from funcarray.base.errors import api_boundary, op_type_error
from funcarray.lax._special_dtypes import float_arg, weak_result
from funcarray.primitives.special import digamma_p
from funcarray.scipy._special_arguments import float_args

if TYPE_CHECKING:
    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike

__all__ = ["bernoulli", "dawsn", "exp1", "expi", "expn", "spence"]

_EULER_GAMMA = 0.57721566490153286061
_E1_SWITCH = 1.0
_E1_SERIES_TERMS = 25
_E1_FRACTION_DEPTH = 100
_EI_SWITCH = 40.0
_EI_SERIES_TERMS = 120
_EI_ASYMPTOTIC_TERMS = 38


def _upcast(fn, x):
    if np.dtype(x.dtype).itemsize < 4:
        return fn(x.astype(np.float32)).astype(x.dtype)
    return fn(x)


def _e1_positive(x):
    """E1 for x > 0 (other lanes: any finite value)."""
    small = x <= _E1_SWITCH
    xs = fnp.where(small, x, 1.0)
    # sum_k (-1)^(k+1) x^k / (k k!), with term = (-x)^k / k!.
    term = fnp.ones_like(xs)
    series = fnp.zeros_like(xs)
    for k in range(1, _E1_SERIES_TERMS + 1):
        term = term * (-xs / k)
        series = series - term / k
    small_value = -_EULER_GAMMA - fnp.log(xs) + series
    xl = fnp.where(small, 2 * _E1_SWITCH, x)
    t = xl + (2 * _E1_FRACTION_DEPTH + 1)
    for k in range(_E1_FRACTION_DEPTH, 0, -1):
        t = xl + (2 * k - 1) - (k * k) / t
    large_value = fnp.exp(-xl) / t
    return fnp.where(small, small_value, large_value)


def _exp1_value(x):
    positive = x > 0
    value = _e1_positive(fnp.where(positive, x, 1.0))
    value = fnp.where(x == np.inf, 0.0, value)
    return fnp.where(positive, value, fnp.where(x == 0, np.inf, np.nan))


@custom_jvp
def _exp1(x):
    return _upcast(_exp1_value, x)


_exp1.defjvps(lambda t, out, x: -t * fnp.exp(-x) / x)


@api_boundary
def exp1(x: ArrayLike) -> Array:
    """The exponential integral ``E1(x) = integral_x^inf e^-t / t dt`` for ``x > 0``
    (``inf`` at 0, NaN for negative ``x``).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import exp1
        >>> exp1(fnp.asarray([0.5, 1.0, 10.0])).round(6)
        Array([5.59774e-01, 2.19384e-01, 4.00000e-06], dtype=float32)
    """
    return weak_result(_exp1, [float_arg("exp1", x)])


def _ei_positive(x):
    """Ei for x > 0 (other lanes: any finite value)."""
    small = x <= _EI_SWITCH
    xs = fnp.where(small, x, 1.0)
    term = fnp.ones_like(xs)
    series = fnp.zeros_like(xs)
    for k in range(1, _EI_SERIES_TERMS + 1):
        term = term * (xs / k)
        series = series + term / k
    small_value = _EULER_GAMMA + fnp.log(xs) + series
    xl = fnp.where(small, 2 * _EI_SWITCH, x)
    inv = 1 / xl
    total = fnp.ones_like(xl)
    term = fnp.ones_like(xl)
    for k in range(1, _EI_ASYMPTOTIC_TERMS + 1):
        term = term * (k * inv)
        total = total + term
    large_value = fnp.exp(xl) * inv * total
    return fnp.where(small, small_value, large_value)


def _expi_value(x):
    positive = x > 0
    negative = x < 0
    pos = _ei_positive(fnp.where(positive, x, 1.0))
    neg = -_e1_positive(fnp.where(negative, -x, 1.0))
    value = fnp.where(positive, pos, neg)
    value = fnp.where(x == np.inf, np.inf, fnp.where(x == -np.inf, 0.0, value))
    return fnp.where(x == 0, -np.inf, fnp.where(fnp.isnan(x), x, value))


@custom_jvp
def _expi(x):
    return _upcast(_expi_value, x)


_expi.defjvps(lambda t, out, x: t * fnp.exp(x) / x)


@api_boundary
def expi(x: ArrayLike) -> Array:
    """The exponential integral ``Ei(x) = PV integral_-inf^x e^t / t dt`` (``-inf`` at 0).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import expi
        >>> expi(fnp.asarray([-1.0, 0.5, 2.0])).round(5)
        Array([-0.21937999,  0.45422   ,  4.95423   ], dtype=float32)
    """
    return weak_result(_expi, [float_arg("expi", x)])


def _li2_series(u):
    """``Li2(z)`` from ``u = -log(1 - z)``, for ``|u| <= log 2``."""
    total = fnp.zeros_like(u)
    for b, k in reversed(_LI2_COEFFICIENTS):
        total = (total + b) * u if k else total
    return total


_PI2_6 = math.pi ** 2 / 6


def _spence_value(x):
    ok = x >= 0
    safe = fnp.where(ok & (x > 0) & fnp.isfinite(x), x, 1.0)
    low = safe < 0.5
    high = safe > 2.0
    mid_value = _li2_series(-fnp.log(safe))
    # x < 1/2: Li2(1-x) = pi^2/6 - log(x) log(1-x) - Li2(x).
    xl = fnp.where(low, safe, 0.25)
    low_value = _PI2_6 - fnp.log(xl) * fnp.log1p(-xl) - _li2_series(-fnp.log1p(-xl))
    # x > 2: z = 1 - x < -1, Li2(z) = -pi^2/6 - log(x-1)^2 / 2 - Li2(1 / (1 - x)).
    xh = fnp.where(high, safe, 4.0)
    log_xm1 = fnp.log(xh - 1)
    high_value = -_PI2_6 - 0.5 * log_xm1 * log_xm1 - _li2_series(fnp.log(xh - 1) - fnp.log(xh))
    value = fnp.where(low, low_value, fnp.where(high, high_value, mid_value))
    value = fnp.where(x == 0, _PI2_6, fnp.where(x == np.inf, np.nan, value))  # scipy: NaN
    return fnp.where(ok, value, np.nan)


@custom_jvp
def _spence(x):
    return _upcast(_spence_value, x)


def _spence_derivative(t, out, x):
    at_one = x == 1
    safe = fnp.where(at_one, 2.0, x)
    return t * fnp.where(at_one, -1.0, fnp.log(safe) / (1 - safe))


_spence.defjvps(_spence_derivative)


@api_boundary
def spence(x: ArrayLike) -> Array:
    """Spence's function (scipy's convention) ``integral_1^x log(t) / (1 - t) dt = Li2(1 - x)``
    for ``x >= 0``; NaN for negative ``x``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import spence
        >>> spence(fnp.asarray([0.0, 0.5, 1.0, 3.0])).round(5)
        Array([ 1.64493  ,  0.58224  , -0.       , -1.4367499], dtype=float32)
    """
    return weak_result(_spence, [float_arg("spence", x)])


_DAWSN_H = 0.25
_DAWSN_HALF_WINDOW = 26
_DAWSN_ASYMPTOTIC = 1e6
_DAWSN_SERIES_BELOW = 0.5
_DAWSN_SERIES_TERMS = 20


def _dawsn_value(x):
    huge = fnp.abs(x) > _DAWSN_ASYMPTOTIC
    xs = fnp.where(huge | fnp.isnan(x), 0.0, x)
    # The odd n nearest x / h: n0 even, n = n0 + 2k + 1.
    n0 = 2 * fnp.round(xs / (2 * _DAWSN_H))
    total = fnp.zeros_like(xs)
    for k in range(-_DAWSN_HALF_WINDOW, _DAWSN_HALF_WINDOW):
        n = n0 + (2 * k + 1)
        d = xs - n * _DAWSN_H
        total = total + fnp.exp(-(d * d)) / n
    value = total / math.sqrt(math.pi)
    xh = fnp.where(huge, x, 1.0)
    asymptotic = (0.5 / xh) * (1 + 0.5 / (xh * xh))
    value = fnp.where(huge, fnp.where(fnp.isinf(x), 0.0, asymptotic), value)
    # Near 0 the sum cancels to an absolute (not relative) precision: Taylor series there,
    # sum_k (-2 x^2)^k x / (2k+1)!!.
    small = fnp.abs(x) < _DAWSN_SERIES_BELOW
    xt = fnp.where(small, x, 0.0)
    term, series = xt, xt
    for k in range(1, _DAWSN_SERIES_TERMS + 1):
        term = term * (-2 * xt * xt) / (2 * k + 1)
        series = series + term
    value = fnp.where(small, series, value)
    return fnp.where(fnp.isnan(x), x, value)


@custom_jvp
def _dawsn(x):
    return _upcast(_dawsn_value, x)


_dawsn.defjvps(lambda t, out, x: t * (1 - 2 * x * out))


@api_boundary
def dawsn(x: ArrayLike) -> Array:
    """Dawson's integral ``exp(-x^2) integral_0^x exp(t^2) dt``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import dawsn
        >>> dawsn(fnp.asarray([0.0, 0.5, 1.0, 10.0])).round(5)
        Array([0.     , 0.42444, 0.53808, 0.05025], dtype=float32)
    """
    return weak_result(_dawsn, [float_arg("dawsn", x)])


_EXPN_SERIES_TERMS = 40
_EXPN_SERIES_MAX_N = 20
_EXPN_FRACTION_DEPTH = 100


def _expn_value(n, x):
    valid = (n >= 0) & (n == fnp.floor(n)) & (x >= 0)
    inside = valid & (x > 0) & (x < np.inf)
    xp = fnp.where(inside, x, 1.0)
    nn = fnp.where(valid, n, 1.0)
    zero_order = fnp.exp(-xp) / xp
    use_series = (xp <= 1) & (nn <= _EXPN_SERIES_MAX_N) & (nn >= 1)
    xs = fnp.where(use_series, xp, 0.5)
    ns = fnp.where(use_series, nn, 1.0)
    term = fnp.ones_like(xs)  # (-x)^k / k!
    series = fnp.zeros_like(xs)
    log_part = fnp.zeros_like(xs)
    for k in range(_EXPN_SERIES_TERMS):
        if k:
            term = term * (-xs / k)
        on_pole = ns == k + 1
        log_part = fnp.where(on_pole, term, log_part)
        series = series - fnp.where(on_pole, 0.0, term / fnp.where(on_pole, 1.0, k + 1 - ns))
    series_value = log_part * (digamma_p.bind(ns) - fnp.log(xs)) + series
    xf = fnp.where(use_series, 2.0, xp)
    nf = fnp.where(use_series, 1.0, nn)
    t = xf + nf + 2 * _EXPN_FRACTION_DEPTH
    for i in range(_EXPN_FRACTION_DEPTH, 0, -1):
        t = xf + nf + 2 * (i - 1) - i * (nf + i - 1) / t
    fraction_value = fnp.exp(-xf) / t
    value = fnp.where(nn == 0, zero_order, fnp.where(use_series, series_value, fraction_value))
    at_zero = fnp.where(nn > 1, 1 / fnp.maximum(nn - 1, 1.0), np.inf)
    value = fnp.where(x == 0, at_zero, fnp.where(x == np.inf, 0.0, value))
    return fnp.where(valid, value, np.nan)


@custom_jvp
def _expn(n, x):
    return _expn_value(n, x)


def _expn_jvp(primals, tangents):
    (n, x), (tn, tx) = primals, tangents
    if not isinstance(tn, SymbolicZero):
        raise ValueError("expn: the derivative with respect to n is not supported; "
                         "differentiate with respect to x only")
    out = _expn(n, x)
    if isinstance(tx, SymbolicZero):
        return out, fnp.zeros_like(out)
    return out, -tx * _expn(n - 1, x)


_expn.defjvp(_expn_jvp, symbolic_zeros=True)


@api_boundary
def expn(n: ArrayLike, x: ArrayLike) -> Array:
    """The generalized exponential integral ``E_n(x) = integral_1^inf e^(-x t) / t^n dt``
    for integer ``n >= 0`` and ``x >= 0`` (NaN otherwise).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import expn
        >>> expn(fnp.asarray([0, 1, 2, 5]), fnp.asarray([1.0, 1.0, 0.5, 2.0])).round(5)
        Array([0.36788   , 0.21937999, 0.32663998, 0.02132   ], dtype=float32)
    """
    return weak_result(lambda n, x: _upcast(lambda v: _expn(n.astype(v.dtype), v), x),
                       float_args("expn", n, x))


def _bernoulli_numbers(n):
    """B_0..B_n exactly (Akiyama-Tanigawa gives B_1 = +1/2; scipy's convention is -1/2)."""
    row = [Fraction(0)] * (n + 1)
    out = []
    for m in range(n + 1):
        row[m] = Fraction(1, m + 1)
        for j in range(m, 0, -1):
            row[j - 1] = j * (row[j - 1] - row[j])
        out.append(row[0])
    if n >= 1:
        out[1] = -out[1]
    return out


@api_boundary
def bernoulli(n: ArrayLike) -> Array:
    """The Bernoulli numbers ``B_0, ..., B_n`` (with ``B_1 = -1/2``) as a float32 array;
    ``n`` is a Python int.

    Example:
        >>> from funcarray.scipy.special import bernoulli
        >>> bernoulli(6).round(4)
        Array([ 1.        , -0.5       ,  0.16669999,  0.        ,
               -0.0333    ,  0.        ,  0.0238    ], dtype=float32)
    """
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
        raise op_type_error("bernoulli", f"n must be a concrete Python int, got "
                                         f"{type(n).__name__}")
    if n < 0:
        raise ValueError(f"bernoulli: n must be non-negative, got {n}")
    values = [float(b) if abs(b) < 3.4e38 else math.copysign(math.inf, b)
              for b in _bernoulli_numbers(int(n))]
    return fnp.asarray(np.asarray(values, np.float64).astype(np.float32))


# (B_n / (n+1)!, n + 1) for Li2's series in u, n = 0..24 (odd n > 1 vanish).
_LI2_COEFFICIENTS = tuple((float(b / math.factorial(n + 1)), n + 1)
                          for n, b in enumerate(_bernoulli_numbers(24)))
