"""Gamma-family functions of ``funcarray.scipy.special``: ``gamma``, ``gammasgn``,
``loggamma``, ``betaln``, ``beta``, ``factorial``, ``comb``, ``poch``, ``multigammaln``,
``zeta`` and ``polygamma``.

All are compositions over the ``lgamma``/``digamma`` primitives and ``funcarray.numpy``
(so their derivatives come from autodiff), or calls of lax's functions: ``zeta`` and
``polygamma`` are ``lax.zeta`` and ``lax.polygamma``, and ``betaln`` is lax's ``log_beta``
(``funcarray/lax/_special_gamma.py``, which explains their algorithms).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from funcarray import lax
from funcarray import numpy as fnp
from funcarray.api.arguments import asarray_arg
from funcarray.base import dtypes
from funcarray.base.errors import api_boundary, op_type_error
from funcarray.lax._special_dtypes import float_arg, weak_result
from funcarray.lax._special_gamma import log_beta
from funcarray.primitives.special import lgamma_p
from funcarray.scipy._special_arguments import float_args

if TYPE_CHECKING:
    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike

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
def gammasgn(x: ArrayLike) -> Array:
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
def gamma(x: ArrayLike) -> Array:
    """The gamma function ``Gamma(x)`` (``gammasgn(x) * exp(gammaln(x))``).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import gamma
        >>> gamma(fnp.asarray([0.5, 5.0, -1.5])).round(4)
        Array([ 1.7724999, 24.       ,  2.3632998], dtype=float32)
    """
    return weak_result(lambda x: _gammasgn(x) * fnp.exp(_lgamma(x)), [float_arg("gamma", x)])


@api_boundary
def loggamma(x: ArrayLike) -> Array:
    """The principal branch of ``log(Gamma(x))`` for real ``x``: NaN for ``x <= 0``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import loggamma
        >>> loggamma(fnp.asarray([0.5, 3.0, -0.5])).round(4)
        Array([0.5724, 0.6931,    nan], dtype=float32)
    """
    return weak_result(lambda x: fnp.where(x > 0, _lgamma(x), np.nan),
                       [float_arg("loggamma", x)])


@api_boundary
def betaln(a: ArrayLike, b: ArrayLike) -> Array:
    """``log|B(a, b)|``, the log of the beta function, accurate for large ``a`` and ``b``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import betaln
        >>> betaln(fnp.asarray([1.0, 1e5]), fnp.asarray([2.0, 1e5])).round(2)
        Array([-6.9000000e-01, -1.3863394e+05], dtype=float32)
    """
    return weak_result(log_beta, float_args("betaln", a, b))


@api_boundary
def beta(a: ArrayLike, b: ArrayLike) -> Array:
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
    return sign * fnp.exp(log_beta(a, b))


@api_boundary
def factorial(n: ArrayLike, exact: bool = False) -> Array:
    """``n!`` as ``Gamma(n + 1)`` (0 for negative ``n``); ``exact=True`` is not supported.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import factorial
        >>> factorial(fnp.asarray([0, 3, 5, -1])).round(3)
        Array([  1.       ,   6.0000005, 120.00001  ,   0.       ], dtype=float32)
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
def comb(N: ArrayLike, k: ArrayLike, *, repetition: bool = False) -> Array:
    """The number of combinations ``N choose k`` (0 if ``N < 0``, ``k < 0`` or ``k > N``);
    with ``repetition=True``, ``(N + k - 1) choose k``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import comb
        >>> comb(fnp.asarray([5.0, 10.0, 3.0]), fnp.asarray([2.0, 3.0, 4.0])).round(3)
        Array([ 10.     , 120.00001,   0.     ], dtype=float32)
    """
    if repetition:
        return weak_result(lambda N, k: fnp.where((k == 0) & (N >= 0), 1.0, _comb(N + k - 1, k)),
                           float_args("comb", N, k))
    return weak_result(_comb, float_args("comb", N, k))


@api_boundary
def poch(z: ArrayLike, m: ArrayLike) -> Array:
    """The Pochhammer symbol (rising factorial) ``Gamma(z + m) / Gamma(z)``; 1 where
    ``m == 0``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import poch
        >>> poch(fnp.asarray([2.0, 3.0, 1.0]), fnp.asarray([3.0, 0.0, 0.5])).round(4)
        Array([24.        ,  1.        ,  0.88619995], dtype=float32)
    """
    return weak_result(_poch, float_args("poch", z, m))


def _poch(z, m):
    ratio = (_gammasgn(z + m) * _gammasgn(z)) * fnp.exp(_lgamma(z + m) - _lgamma(z))
    return fnp.where(m == 0, 1.0, ratio)


@api_boundary
def multigammaln(a: ArrayLike, d: ArrayLike) -> Array:
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


@api_boundary
def zeta(x: ArrayLike, q: ArrayLike | None = None) -> Array:
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
    return weak_result(lax.zeta, float_args("zeta", x, q))


@api_boundary
def polygamma(n: ArrayLike, x: ArrayLike) -> Array:
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
    return weak_result(lax.polygamma, float_args("polygamma", n_arr, x))
