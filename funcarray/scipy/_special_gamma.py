"""Gamma-family functions of ``funcarray.scipy.special``: ``gamma``, ``gammasgn``,
``loggamma``, ``betaln``, ``beta``, ``factorial``, ``comb``, ``poch``, ``multigammaln``,
``zeta`` and ``polygamma``.

All are compositions over the ``lgamma``/``digamma`` primitives and ``funcarray.numpy``
(so their derivatives come from autodiff). Two choices of our own:

* ``betaln`` for large arguments uses Stirling's series for the three log-gammas, with the
  large terms combined analytically, instead of ``lgamma(a) + lgamma(b) - lgamma(a + b)``,
  which cancels catastrophically (JAX uses TOMS 708's algorithm to the same end).
* ``zeta(x, q)`` (Hurwitz) is the Euler-Maclaurin sum: ``N`` terms directly, the integral,
  and ``M`` Bernoulli correction terms (coefficients computed exactly at import), with XLA's
  special values: ``inf`` at ``x == 1``, NaN for ``x < 1`` and ``x = inf``, and for
  ``q <= 0``: a pole (``inf`` for even ``x``, NaN for odd) at integer ``q``, NaN for a
  non-integer ``x``. ``polygamma(n, x) = (-1)^(n+1) n! zeta(n + 1, x)`` (digamma for 0); its
  derivative is ``polygamma(n + 1, x)`` (``custom_jvp``; in ``n`` it raises, as in JAX).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from funcarray import numpy as fnp
from funcarray.api.arguments import asarray_arg
from funcarray.api.custom_derivatives import SymbolicZero, custom_jvp
from funcarray.base import dtypes
from funcarray.base.errors import api_boundary, op_type_error
from funcarray.primitives.special import digamma_p, lgamma_p
from funcarray.scipy._special_arguments import float_arg, float_args, weak_result

__all__ = ["gamma", "gammasgn", "loggamma", "betaln", "beta", "factorial", "comb", "poch",
           "multigammaln", "zeta", "polygamma"]


def _lgamma(x):
    return lgamma_p.bind(x)


def _gammasgn(x):
    floor_x = fnp.floor(x)
    negative = x < 0
    is_nan = (negative & (x == floor_x)) | fnp.isnan(x)
    is_negative = (negative & (fnp.fmod(floor_x, 2) != 0)) | ((x == 0) & fnp.signbit(x))
    return fnp.where(is_nan, fnp.full_like(x, np.nan),
                     fnp.where(is_negative, fnp.full_like(x, -1), fnp.ones_like(x)))


@api_boundary
def gammasgn(x):
    """The sign of the gamma function: NaN at the poles (negative integers) and ``-inf``,
    ``-1`` at ``-0.0``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import gammasgn
        >>> gammasgn(fnp.asarray([-1.5, -0.5, 0.5, -2.0]))
        Array([ 1., -1.,  1., nan], dtype=float32)
    """
    return weak_result(_gammasgn, [float_arg("gammasgn", x)])


@api_boundary
def gamma(x):
    """The gamma function ``Gamma(x)`` (``gammasgn(x) * exp(gammaln(x))``).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import gamma
        >>> gamma(fnp.asarray([0.5, 5.0, -1.5])).round(4)
        Array([ 1.7725, 24.    ,  2.3633], dtype=float32)
    """
    return weak_result(lambda x: _gammasgn(x) * fnp.exp(_lgamma(x)), [float_arg("gamma", x)])


@api_boundary
def loggamma(x):
    """The principal branch of ``log(Gamma(x))`` for real ``x``: NaN for ``x <= 0``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import loggamma
        >>> loggamma(fnp.asarray([0.5, 3.0, -0.5])).round(4)
        Array([0.5724, 0.6931,    nan], dtype=float32)
    """
    return weak_result(lambda x: fnp.where(x > 0, _lgamma(x), np.nan),
                       [float_arg("loggamma", x)])


# Stirling's series of lgamma(x) - ((x - 1/2) log x - x + log(2 pi) / 2), in powers of 1/x^2:
# B_2k / (2k (2k - 1)), accurate to float64 precision for x >= 8.
_STIRLING = (1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188, -691 / 360360, 1 / 156)
_STIRLING_FROM = 8.0


def _stirling_correction(x):
    inv = 1 / x
    inv2 = inv * inv
    total = fnp.full_like(x, _STIRLING[-1])
    for c in reversed(_STIRLING[:-1]):
        total = total * inv2 + c
    return total * inv


def _betaln(a, b):
    small, large = fnp.minimum(a, b), fnp.maximum(a, b)
    s = small + large
    # Both large: the log terms combined so that nothing large cancels.
    safe_small = fnp.where(small >= _STIRLING_FROM, small, fnp.full_like(small, _STIRLING_FROM))
    safe_large = fnp.where(large >= _STIRLING_FROM, large, fnp.full_like(large, _STIRLING_FROM))
    safe_s = safe_small + safe_large
    both = (0.5 * math.log(2 * math.pi) - 0.5 * fnp.log(safe_large)
            + (safe_small - 0.5) * fnp.log(safe_small / safe_s)
            + safe_large * fnp.log1p(-safe_small / safe_s)
            + _stirling_correction(safe_small) + _stirling_correction(safe_large)
            - _stirling_correction(safe_s))
    # Only the larger one large: lgamma(small) + [lgamma(large) - lgamma(s)] with the bracket
    # from Stirling's series.
    safe_s1 = small + safe_large
    one = (_lgamma(small) + (safe_large - 0.5) * fnp.log1p(-small / safe_s1)
           - small * fnp.log(safe_s1) + small
           + _stirling_correction(safe_large) - _stirling_correction(safe_s1))
    direct = _lgamma(small) + _lgamma(large) - _lgamma(s)
    use_both = small >= _STIRLING_FROM
    use_one = (large >= _STIRLING_FROM) & (small > 0) & ~use_both
    return fnp.where(use_both, both, fnp.where(use_one, one, direct))


@api_boundary
def betaln(a, b):
    """``log|B(a, b)|``, the log of the beta function, accurate for large ``a`` and ``b``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import betaln
        >>> betaln(fnp.asarray([1.0, 1e5]), fnp.asarray([2.0, 1e5])).round(2)
        Array([-6.9000000e-01, -1.3863394e+05], dtype=float32)
    """
    return weak_result(_betaln, float_args("betaln", a, b))


@api_boundary
def beta(a, b):
    """The beta function ``B(a, b) = Gamma(a) Gamma(b) / Gamma(a + b)``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import beta
        >>> beta(fnp.asarray([1.0, 0.5]), fnp.asarray([2.0, 0.5])).round(4)
        Array([0.5   , 3.1416], dtype=float32)
    """
    return weak_result(_beta, float_args("beta", a, b))


def _beta(a, b):
    sign = _gammasgn(a) * _gammasgn(b) * _gammasgn(a + b)
    return sign * fnp.exp(_betaln(a, b))


@api_boundary
def factorial(n, exact=False):
    """``n!`` as ``Gamma(n + 1)`` (0 for negative ``n``); ``exact=True`` is not supported.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import factorial
        >>> factorial(fnp.asarray([0, 3, 5, -1])).round(3)
        Array([  1.,   6., 120.,   0.], dtype=float32)
    """
    if exact:
        raise NotImplementedError("factorial with exact=True: funcarray has no arbitrary-"
                                  "precision integers; use exact=False (a float result)")
    return weak_result(lambda n: fnp.where(n < 0, 0.0, fnp.exp(_lgamma(n + 1))),
                       [float_arg("factorial", n)])


def _comb(N, k):
    ok = (k <= N) & (N >= 0) & (k >= 0)
    safe_n = fnp.where(ok, N, fnp.zeros_like(N))
    safe_k = fnp.where(ok, k, fnp.zeros_like(k))
    value = fnp.exp(_lgamma(safe_n + 1) - _lgamma(safe_k + 1) - _lgamma(safe_n - safe_k + 1))
    return fnp.where(ok, value, fnp.zeros_like(value))


@api_boundary
def comb(N, k, *, repetition=False):
    """The number of combinations ``N choose k`` (0 if ``N < 0``, ``k < 0`` or ``k > N``);
    with ``repetition=True``, ``(N + k - 1) choose k``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import comb
        >>> comb(fnp.asarray([5.0, 10.0, 3.0]), fnp.asarray([2.0, 3.0, 4.0])).round(3)
        Array([ 10., 120.,   0.], dtype=float32)
    """
    if repetition:
        return weak_result(lambda N, k: fnp.where((k == 0) & (N >= 0), 1.0, _comb(N + k - 1, k)),
                           float_args("comb", N, k))
    return weak_result(_comb, float_args("comb", N, k))


@api_boundary
def poch(z, m):
    """The Pochhammer symbol (rising factorial) ``Gamma(z + m) / Gamma(z)``; 1 where
    ``m == 0``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import poch
        >>> poch(fnp.asarray([2.0, 3.0, 1.0]), fnp.asarray([3.0, 0.0, 0.5])).round(4)
        Array([24.    ,  1.    ,  0.8862], dtype=float32)
    """
    return weak_result(_poch, float_args("poch", z, m))


def _poch(z, m):
    ratio = (_gammasgn(z + m) * _gammasgn(z)) * fnp.exp(_lgamma(z + m) - _lgamma(z))
    return fnp.where(m == 0, 1.0, ratio)


@api_boundary
def multigammaln(a, d):
    """The log of the multivariate gamma function of dimension ``d`` (a Python int):
    ``d (d - 1) / 4 log(pi) + sum_j gammaln(a - j / 2)`` for ``j < d``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import multigammaln
        >>> multigammaln(fnp.asarray([2.0, 5.0]), 3).round(4)
        Array([1.5963, 9.1406], dtype=float32)
    """
    if not isinstance(d, (int, np.integer)) or isinstance(d, bool):
        raise op_type_error("multigammaln", f"d must be a concrete Python int (the dimension), "
                                            f"got {type(d).__name__}")
    d = int(d)
    if d < 1:
        raise ValueError(f"multigammaln: d must be at least 1, got {d}")
    def multigammaln_of(a):
        total = _lgamma(a) + 0.25 * d * (d - 1) * math.log(math.pi)
        for j in range(1, d):
            total = total + _lgamma(a - j / 2)
        return total

    return weak_result(multigammaln_of, [float_arg("multigammaln", a)])


# --- zeta and polygamma ---------------------------------------------------------------------

def _bernoulli_over_factorial(count):
    """``B_2j / (2j)!`` for j = 1..count, exact (Akiyama-Tanigawa algorithm for B_n)."""
    n_max = 2 * count
    bernoulli = []
    row = [Fraction(0)] * (n_max + 1)
    for m in range(n_max + 1):
        row[m] = Fraction(1, m + 1)
        for j in range(m, 0, -1):
            row[j - 1] = j * (row[j - 1] - row[j])
        bernoulli.append(row[0])
    return tuple(float(bernoulli[2 * j] / math.factorial(2 * j)) for j in range(1, count + 1))


_ZETA_DIRECT_TERMS = 10
_ZETA_CORRECTIONS = _bernoulli_over_factorial(12)


def _zeta_sum(s, q):
    """Euler-Maclaurin for ``sum_k (q + k)^-s`` (s > 1, q + N > 0)."""
    n = _ZETA_DIRECT_TERMS
    total = fnp.zeros_like(q)
    for k in range(n):
        total = total + fnp.power(q + k, -s)
    w = q + n
    w_pow = fnp.power(w, -s)
    total = total + w * w_pow / (s - 1) + 0.5 * w_pow
    factor = s / w
    inv_w2 = 1 / (w * w)
    for j, c in enumerate(_ZETA_CORRECTIONS, start=1):
        if j > 1:
            factor = factor * (s + (2 * j - 3)) * (s + (2 * j - 2)) * inv_w2
        total = total + c * w_pow * factor
    return total


def _zeta(x, q):
    q_nonpositive = q <= 0
    q_integer = q == fnp.floor(q)
    x_integer = x == fnp.floor(x)
    pole = q_nonpositive & q_integer
    x_even = fnp.fmod(x, 2) == 0
    nan_mask = (x < 1) | fnp.isnan(x) | fnp.isnan(q) | (x == np.inf) | (
        q_nonpositive & ~x_integer) | (pole & ~x_even)
    inf_mask = (x == 1) | pole
    bad = nan_mask | inf_mask
    # Harmless arguments where the result is a special value, so that no NaN or inf reaches
    # the derivative of the discarded branch.
    safe_x = fnp.where(bad, fnp.full_like(x, 2), x)
    safe_q = fnp.where(bad, fnp.ones_like(q), q)
    value = _zeta_sum(safe_x, safe_q)
    return fnp.where(nan_mask, fnp.full_like(x, np.nan),
                     fnp.where(inf_mask, fnp.full_like(x, np.inf), value))


@api_boundary
def zeta(x, q=None):
    """The Hurwitz zeta function ``sum_k (k + q)^-x``; ``q`` is required (JAX has no
    Riemann zeta either: pass ``q=1`` for it).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import zeta
        >>> zeta(fnp.asarray([2.0, 4.0]), 1.0).round(5)
        Array([1.64493, 1.08232], dtype=float32)
    """
    if q is None:
        raise NotImplementedError("zeta: the Riemann zeta function (q=None) is not "
                                  "implemented; pass q=1.0 for it")
    return weak_result(_zeta, float_args("zeta", x, q))


def _polygamma_value(n, x):
    valid_n = (n == fnp.floor(n)) & (n >= 0)
    first = n == 0
    safe_n = fnp.where(first | ~valid_n, fnp.ones_like(n), n)
    sign = fnp.where(fnp.fmod(safe_n, 2) == 0, -fnp.ones_like(n), fnp.ones_like(n))
    higher = sign * fnp.exp(_lgamma(safe_n + 1)) * _zeta(safe_n + 1, x)
    value = fnp.where(first, digamma_p.bind(x), higher)
    return fnp.where(valid_n, value, fnp.full_like(value, np.nan))


@custom_jvp
def _polygamma(n, x):
    return _polygamma_value(n, x)


def _polygamma_jvp(primals, tangents):
    (n, x), (tn, tx) = primals, tangents
    if not isinstance(tn, SymbolicZero):
        raise ValueError("polygamma: the derivative with respect to n is not supported (as in "
                         "JAX); differentiate with respect to x only")
    out = _polygamma(n, x)
    if isinstance(tx, SymbolicZero):
        return out, fnp.zeros_like(out)
    return out, tx * _polygamma(n + 1, x)


_polygamma.defjvp(_polygamma_jvp, symbolic_zeros=True)


@api_boundary
def polygamma(n, x):
    """The ``n``-th derivative of the digamma function; ``n`` must have an integer dtype.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import polygamma
        >>> polygamma(fnp.asarray([0, 1, 2]), 1.0).round(4)
        Array([-0.5772,  1.6449, -2.4041], dtype=float32, weak_type=True)
    """
    n_arr = asarray_arg("polygamma", n)
    if not dtypes.is_integer(n_arr.dtype):
        raise op_type_error("polygamma", f"n must have an integer dtype, got {n_arr.dtype}; "
                                         "pass integers (e.g. fnp.asarray(n, 'int32'))")
    return weak_result(_polygamma, float_args("polygamma", n_arr, x))
