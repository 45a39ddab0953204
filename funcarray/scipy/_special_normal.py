"""The normal distribution's special functions: ``ndtr``, ``ndtri``, ``log_ndtr``, and
``erfcx``.

``ndtr`` uses ``erf`` near 0 and ``erfc`` in the tails (each where it keeps its relative
precision). ``log_ndtr`` follows JAX: ``log(ndtr(x))`` in the middle, ``-ndtr(-x)`` above an
upper threshold and the asymptotic series of ``log(ndtr)`` (``series_order`` terms) below a
lower one (thresholds per dtype). ``ndtri`` is computed our own way: a rational start
(Abramowitz & Stegun 26.2.23, error < 4.5e-4) refined by Newton steps on
``log_ndtr(x) = log(p)`` in the lower half (which converge quadratically to working
precision in three steps and keep the relative precision of tiny ``p``), and the symmetry
``ndtri(p) = -ndtri(1 - p)`` in the upper half; its derivative is the closed form
``sqrt(2 pi) exp(ndtri(p)^2 / 2)`` (``custom_jvp``).
"""

from __future__ import annotations

import math

import numpy as np

from funcarray import numpy as fnp
from funcarray._custom import custom_jvp
from funcarray._errors import api_boundary, op_type_error
from funcarray.primitives.special import erf_p, erfc_p
from funcarray.scipy._special_util import finfo, float_arg, weak_result

__all__ = ["ndtr", "ndtri", "log_ndtr", "erfcx"]

_HALF_SQRT2 = 0.5 * math.sqrt(2.0)
_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


def _ndtr(x):
    w = x * _HALF_SQRT2
    z = fnp.abs(w)
    tail = fnp.where(w > 0, 2 - erfc_p.bind(z), erfc_p.bind(z))
    return 0.5 * fnp.where(z < _HALF_SQRT2, 1 + erf_p.bind(w), tail)


@api_boundary
def ndtr(x):
    """The standard normal CDF ``(1 + erf(x / sqrt(2))) / 2``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import ndtr
        >>> ndtr(fnp.asarray([-10.0, 0.0, 1.0]))
        Array([7.619854e-24, 5.000000e-01, 8.413447e-01], dtype=float32)
    """
    return weak_result(_ndtr, [float_arg("ndtr", x)])


# (lower, upper) thresholds of log_ndtr's three regions, per dtype (JAX's).
_LOG_NDTR_SEGMENTS = {np.dtype(np.float64): (-20.0, 8.0), np.dtype(np.float32): (-10.0, 5.0)}


def _log_ndtr_lower(x, series_order):
    """log(ndtr(x)) for x << -1: ``-x^2/2 - log(-x) - log(sqrt(2 pi)) + log(1 + series)``
    with the asymptotic series ``sum_n (-1)^n (2n-1)!! / x^(2n)``."""
    x2 = x * x
    total = fnp.ones_like(x)
    power = x2
    for n in range(1, series_order + 1):
        term = float(np.prod(np.arange(2 * n - 1, 0, -2))) / power
        total = total - term if n % 2 else total + term
        power = power * x2
    return -0.5 * x2 - fnp.log(-x) - _LOG_SQRT_2PI + fnp.log(total)


def _log_ndtr_value(x, series_order):
    lower, upper = _LOG_NDTR_SEGMENTS[np.dtype(x.dtype)]
    above = x > upper
    # Clamped arguments keep the unused branches finite (their derivatives would give NaN).
    ndtr_value = _ndtr(fnp.where(above, -x, fnp.maximum(x, lower)))
    middle = fnp.log(ndtr_value)
    return fnp.where(above, -ndtr_value,
                     fnp.where(x > lower, middle,
                               _log_ndtr_lower(fnp.minimum(x, lower), series_order)))


def _norm_logpdf(x):
    return -0.5 * (x * x) - _LOG_SQRT_2PI


@custom_jvp
def _log_ndtr(x, series_order):
    return _log_ndtr_value(x, series_order)


def _log_ndtr_jvp(series_order, primals, tangents):
    (x,), (t,) = primals, tangents
    out = _log_ndtr(x, series_order)
    return out, t * fnp.exp(_norm_logpdf(x) - out)


_log_ndtr = custom_jvp(_log_ndtr.fun, nondiff_argnums=(1,))
_log_ndtr.defjvp(_log_ndtr_jvp)


@api_boundary
def log_ndtr(x, series_order=3):
    """``log(ndtr(x))``, accurate far into both tails.

    ``series_order`` (0 to 30) is the number of terms of the asymptotic series used for very
    negative ``x``. float16/bfloat16 are computed in float32.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import log_ndtr
        >>> log_ndtr(fnp.asarray([-50.0, 0.0, 10.0]))
        Array([-1.2548313e+03, -6.9314718e-01, -7.6198536e-24], dtype=float32)
    """
    if not isinstance(series_order, (int, np.integer)) or isinstance(series_order, bool):
        raise op_type_error("log_ndtr", f"series_order must be a Python int, got "
                                        f"{type(series_order).__name__}")
    if not 0 <= series_order <= 30:
        raise ValueError(f"log_ndtr: series_order must be in [0, 30], got {series_order}")
    return weak_result(lambda x: _upcast(lambda v: _log_ndtr(v, int(series_order)), x),
                       [float_arg("log_ndtr", x)])


def _upcast(fn, x):
    """float16/bfloat16 computed in float32 (as XLA does), then rounded."""
    if np.dtype(x.dtype).itemsize < 4:
        return fn(x.astype(np.float32)).astype(x.dtype)
    return fn(x)


_NEWTON_STEPS = 3


def _ndtri_lower(q):
    """``ndtri(q)`` for ``0 < q <= 1/2``: A&S 26.2.23, then Newton on log_ndtr."""
    t = fnp.sqrt(-2 * fnp.log(q))
    numerator = 2.515517 + t * (0.802853 + t * 0.010328)
    denominator = 1 + t * (1.432788 + t * (0.189269 + t * 0.001308))
    x = numerator / denominator - t
    log_q = fnp.log(q)
    for _ in range(_NEWTON_STEPS):
        log_cdf = _log_ndtr_value(x, 3)
        # f(x) = log_ndtr(x) - log q, f'(x) = pdf(x) / ndtr(x) = exp(logpdf - log_ndtr).
        x = x - (log_cdf - log_q) * fnp.exp(log_cdf - _norm_logpdf(x))
    return x


@custom_jvp
def _ndtri(p):
    upper = p > 0.5
    q = fnp.where(upper, 1 - p, p)
    inside = (q > 0) & (q <= 0.5)
    x = _ndtri_lower(fnp.where(inside, q, fnp.full_like(q, 0.25)))
    x = fnp.where(upper, -x, x)
    x = fnp.where(p == 0, fnp.full_like(p, -np.inf), x)
    x = fnp.where(p == 1, fnp.full_like(p, np.inf), x)
    x = fnp.where(p == 0.5, fnp.zeros_like(p), x)
    return fnp.where((p < 0) | (p > 1) | fnp.isnan(p), fnp.full_like(p, np.nan), x)


@_ndtri.defjvp
def _ndtri_jvp(primals, tangents):
    (p,), (t,) = primals, tangents
    x = _ndtri(p)
    return x, t * fnp.exp(-_norm_logpdf(x))


@api_boundary
def ndtri(p):
    """The inverse of ``ndtr``: ``x`` with ``ndtr(x) = p``; ``-inf``/``inf`` at 0/1, NaN
    outside [0, 1].

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import ndtri
        >>> ndtri(fnp.asarray([1e-30, 0.5, 0.975])).round(4)
        Array([-11.464,   0.   ,   1.96 ], dtype=float32)
    """
    return weak_result(lambda p: _upcast(_ndtri, p), [float_arg("ndtri", p)])


_ERFCX_SERIES = (1.0, -0.5, 0.75, -1.875, 6.5625, -29.53125, 162.421875, -1055.7421875,
                 7918.06640625)


@custom_jvp
def _erfcx(x):
    # exp(x^2) erfc(x) until exp(x^2) would overflow, then the asymptotic series
    # 1/(sqrt(pi) x) sum_k (-1)^k (2k-1)!! / (2 x^2)^k, with terms to working precision.
    terms = 9 if np.dtype(x.dtype) == np.float64 else 5
    threshold = math.sqrt(math.log(float(finfo(x).max)))
    large = x > threshold
    safe_x = fnp.where(large, fnp.ones_like(x), x)
    direct = fnp.exp(safe_x * safe_x) * erfc_p.bind(safe_x)
    big_x = fnp.where(large, x, fnp.full_like(x, threshold))
    t = 1 / (big_x * big_x)
    series = fnp.full_like(x, _ERFCX_SERIES[terms - 1])
    for c in reversed(_ERFCX_SERIES[:terms - 1]):
        series = series * t + c
    return fnp.where(large, series / (big_x * math.sqrt(math.pi)), direct)


_erfcx.defjvps(lambda t, out, x: t * (2 * x * out - 2 / math.sqrt(math.pi)))


@api_boundary
def erfcx(x):
    """The scaled complementary error function ``exp(x^2) erfc(x)``, finite for large ``x``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import erfcx
        >>> erfcx(fnp.asarray([0.0, 1.0, 100.0])).round(5)
        Array([1.     , 0.42758, 0.00564], dtype=float32)
    """
    return weak_result(lambda x: _upcast(_erfcx, x), [float_arg("erfcx", x)])
