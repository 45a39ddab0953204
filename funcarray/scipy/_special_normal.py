"""The normal distribution's and the error function's relatives: ``ndtr``, ``ndtri``,
``log_ndtr``, Owen's T function ``owens_t``, the scaled ``erfcx`` and the Faddeeva function
``wofz``.

``ndtr`` uses ``erf`` near 0 and ``erfc`` in the tails (each where it keeps its relative
precision). ``log_ndtr`` follows JAX: ``log(ndtr(x))`` in the middle, ``-ndtr(-x)`` above an
upper threshold and the asymptotic series of ``log(ndtr)`` (``series_order`` terms) below a
lower one (thresholds per dtype). ``ndtri`` is computed our own way: a rational start
(Abramowitz & Stegun 26.2.23, error < 4.5e-4) refined by Newton steps on
``log_ndtr(x) = log(p)`` in the lower half (which converge quadratically to working
precision in three steps and keep the relative precision of tiny ``p``), and the symmetry
``ndtri(p) = -ndtri(1 - p)`` in the upper half; its derivative is the closed form
``sqrt(2 pi) exp(ndtri(p)^2 / 2)`` (``custom_jvp``).

* ``wofz(z) = exp(-z^2) erfc(-iz)`` for complex ``z`` (real inputs are promoted, as in JAX):
  in the upper half-plane Weideman's rational approximation (SIAM J. Numer. Anal. 31, 1994)
  with ``N = 32`` terms, ``w = 2 p(Z) / (L - iz)^2 + 1 / (sqrt(pi) (L - iz))`` with
  ``Z = (L + iz) / (L - iz)`` and ``L = sqrt(N / sqrt 2)``; the coefficients of the
  polynomial ``p`` are computed here at import by an FFT of
  ``exp(-t^2) (L^2 + t^2)`` at ``t = L tan(theta / 2)`` (relative error ~3e-13 in ``|w|``).
  Below the real axis ``w(z) = 2 exp(-z^2) - w(-z)``. ``w -> 0`` as ``|z| -> inf`` in the
  closed upper half-plane (scipy's value; JAX gives NaN at infinities).
  ``w' = -2 z w + 2i / sqrt(pi)`` (``custom_jvp``, as JAX).
* ``owens_t(h, a) = 1/(2 pi) integral_0^a exp(-h^2 (1 + u^2) / 2) / (1 + u^2) du``: for
  ``|a| <= 1`` Gauss-Legendre quadrature (24 nodes) over ``[0, min(|a|, 9 / |h|)]`` (beyond
  ``u = 9 / |h|`` the integrand is below ``e^-40`` of its peak), which resolves the Gaussian
  for large ``h`` (relative error ~1e-15, where scipy and JAX lose digits for ``h > 5``); for
  ``|a| > 1`` the reflection ``T(h, a) = (Phi(h) + Phi(ah)) / 2 - Phi(h) Phi(ah) - T(ah, 1/a)``
  (in ``erf`` or ``erfc`` form, whichever does not cancel), for ``h >= 0``. ``T`` is even in
  ``h`` and odd in ``a``. Derivatives are JAX's closed forms (``custom_jvp``):
  ``dT/dh = -exp(-h^2/2) erf(ah / sqrt 2) / (2 sqrt(2 pi))`` and
  ``dT/da = exp(-(1 + a^2) h^2 / 2) / (2 pi (1 + a^2))``.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from funcarray import numpy as fnp
from funcarray.api.arguments import asarray_arg, convert, to_inexact_dtype
from funcarray.api.custom_derivatives import custom_jvp
from funcarray.base import dtypes
from funcarray.base.errors import api_boundary, op_type_error
from funcarray.lax._special_dtypes import float_arg, weak_result
from funcarray.primitives.special import erf_p, erfc_p
from funcarray.scipy._special_arguments import finfo, float_args

if TYPE_CHECKING:
    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike

__all__ = ["ndtr", "ndtri", "log_ndtr", "erfcx", "owens_t", "wofz"]

_HALF_SQRT2 = 0.5 * math.sqrt(2.0)
_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


def _ndtr(x):
    w = x * _HALF_SQRT2
    z = fnp.abs(w)
    tail = fnp.where(w > 0, 2 - erfc_p.bind(z), erfc_p.bind(z))
    return 0.5 * fnp.where(z < _HALF_SQRT2, 1 + erf_p.bind(w), tail)


@api_boundary
def ndtr(x: ArrayLike) -> Array:
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
def log_ndtr(x: ArrayLike, series_order: int = 3) -> Array:
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
def ndtri(p: ArrayLike) -> Array:
    """The inverse of ``ndtr``: ``x`` with ``ndtr(x) = p``; ``-inf``/``inf`` at 0/1, NaN
    outside [0, 1].

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import ndtri
        >>> ndtri(fnp.asarray([1e-30, 0.5, 0.975])).round(4)
        Array([-11.464    ,   0.       ,   1.9599999], dtype=float32)
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
def erfcx(x: ArrayLike) -> Array:
    """The scaled complementary error function ``exp(x^2) erfc(x)``, finite for large ``x``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import erfcx
        >>> erfcx(fnp.asarray([0.0, 1.0, 100.0])).round(5)
        Array([1.     , 0.42758, 0.00564], dtype=float32)
    """
    return weak_result(lambda x: _upcast(_erfcx, x), [float_arg("erfcx", x)])


# --------------------------------------------------------------------------------------------
# wofz
# --------------------------------------------------------------------------------------------

_WEIDEMAN_N = 32
_WEIDEMAN_L = math.sqrt(_WEIDEMAN_N / math.sqrt(2))


def _weideman_coefficients(n, length):
    """The coefficients of Weideman's polynomial, highest degree first: the Fourier
    coefficients of ``exp(-t^2) (L^2 + t^2)`` sampled at ``t = L tan(theta / 2)``."""
    m = 2 * n
    k = np.arange(-m + 1, m)
    t = length * np.tan(k * np.pi / (2 * m))
    samples = np.concatenate([[0.0], np.exp(-t * t) * (length * length + t * t)])
    spectrum = np.real(np.fft.fft(np.fft.fftshift(samples))) / (2 * m)
    return tuple(float(c) for c in spectrum[1:n + 1][::-1])


_WEIDEMAN_COEFFICIENTS = _weideman_coefficients(_WEIDEMAN_N, _WEIDEMAN_L)


def _wofz_upper(z):
    """``w(z)`` for ``Im z >= 0``."""
    iz = z * 1j
    denominator = _WEIDEMAN_L - iz
    big_z = (_WEIDEMAN_L + iz) / denominator
    p = fnp.zeros_like(z)
    for c in _WEIDEMAN_COEFFICIENTS:
        p = p * big_z + c
    return 2 * p / (denominator * denominator) + (1 / math.sqrt(math.pi)) / denominator


def _wofz_value(z):
    re, im = fnp.real(z), fnp.imag(z)
    upper = im >= 0
    w_reflected = _wofz_upper(fnp.where(upper, z, -z))
    w = fnp.where(upper, w_reflected, 2 * fnp.exp(-(z * z)) - w_reflected)
    at_infinity = upper & (fnp.isinf(re) | fnp.isinf(im)) & ~fnp.isnan(re) & ~fnp.isnan(im)
    return fnp.where(at_infinity, fnp.zeros_like(z), w)


@custom_jvp
def _wofz(z):
    return _wofz_value(z)


_wofz.defjvps(lambda t, w, z: t * (-2 * z * w + 2j / math.sqrt(math.pi)))


def _complex_arg(op, z):
    z = asarray_arg(op, z)
    if z.dtype.kind == "c":
        return z
    real = to_inexact_dtype(z.dtype) if not dtypes.is_inexact(z.dtype) else np.dtype(z.dtype)
    complex_dtype = np.complex128 if np.dtype(real).itemsize == 8 else np.complex64
    return convert(z, complex_dtype, z.weak_type)


@api_boundary
def wofz(z: ArrayLike) -> Array:
    """The Faddeeva function ``w(z) = exp(-z^2) erfc(-iz)``; real inputs are promoted to
    complex (float64 to complex128, others to complex64).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import wofz
        >>> wofz(fnp.asarray([0.0, 1.0 + 1.0j, 2.0j])).round(4)
        Array([1.    +0.j    , 0.3047+0.2082j, 0.2554+0.j    ], dtype=complex64)
    """
    return weak_result(_wofz, [_complex_arg("wofz", z)])


# --------------------------------------------------------------------------------------------
# owens_t
# --------------------------------------------------------------------------------------------

_OWENS_NODES, _OWENS_WEIGHTS = np.polynomial.legendre.leggauss(24)
_OWENS_CUTOFF = 9.0  # exp(-81/2) ~ 2.6e-18: the Gaussian's tail beyond h u = 9 is negligible
_SQRT_HALF = math.sqrt(0.5)


def _owens_t_unit(h, a):
    """``T(h, a)`` for ``h >= 0`` and ``0 <= a <= 1`` (finite ``h``)."""
    reach = fnp.where(h * a > _OWENS_CUTOFF, _OWENS_CUTOFF / fnp.where(h > 0, h, 1.0), a)
    nodes = fnp.asarray(0.5 * (1 + _OWENS_NODES), dtype=h.dtype)
    weights = fnp.asarray(0.5 * _OWENS_WEIGHTS, dtype=h.dtype)
    u = reach[..., None] * nodes
    u2 = u * u
    hh = (h * h)[..., None]
    integrand = fnp.exp(-0.5 * hh * u2) / (1 + u2)
    integral = reach * fnp.sum(integrand * weights, axis=-1)
    return fnp.exp(-0.5 * h * h) * integral / (2 * math.pi)


def _owens_t_value(h, a):
    ah_sign = fnp.sign(a)
    h, a = fnp.abs(h), fnp.abs(a)
    wide = a > 1
    # a h, with 0 * inf = 0 (T(0, inf) = 1/4).
    ah = fnp.where(h == 0, 0.0, a * h)
    inner_h = fnp.where(wide, ah, h)
    inner_a = fnp.where(wide, 1 / a, a)
    finite = fnp.isfinite(inner_h)
    inner = _owens_t_unit(fnp.where(finite, inner_h, 0.0), inner_a)
    inner = fnp.where(finite, inner, 0.0)
    # (Phi(h) + Phi(ah))/2 - Phi(h) Phi(ah) = (1 - erf(h/r2) erf(ah/r2)) / 4
    #                                       = (e1 + e2 - e1 e2) / 4 with e = erfc(./r2).
    erf_product = erf_p.bind(h * _SQRT_HALF) * erf_p.bind(ah * _SQRT_HALF)
    e1, e2 = erfc_p.bind(h * _SQRT_HALF), erfc_p.bind(ah * _SQRT_HALF)
    tails = fnp.where(erf_product < 0.5, 0.25 * (1 - erf_product), 0.25 * (e1 + e2 - e1 * e2))
    value = fnp.where(wide, tails - inner, inner)
    value = fnp.where(h == np.inf, 0.0, value)
    value = ah_sign * value
    return fnp.where(fnp.isnan(h) | fnp.isnan(a), np.nan, value)


@custom_jvp
def _owens_t(h, a):
    return _owens_t_value(h, a)


def _owens_t_jvp(primals, tangents):
    (h, a), (th, ta) = primals, tangents
    out = _owens_t(h, a)
    d_h = (-fnp.exp(-0.5 * h * h) * erf_p.bind(a * h * _SQRT_HALF)
           / (2 * math.sqrt(2 * math.pi)))
    a2 = a * a
    d_a = fnp.exp(-0.5 * (1 + a2) * h * h) / (2 * math.pi * (1 + a2))
    return out, d_h * th + d_a * ta


_owens_t.defjvp(_owens_t_jvp)


@api_boundary
def owens_t(h: ArrayLike, a: ArrayLike) -> Array:
    """Owen's T function ``T(h, a) = 1/(2 pi) integral_0^a exp(-h^2 (1 + x^2) / 2) / (1 + x^2)
    dx``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import owens_t
        >>> owens_t(fnp.asarray([0.0, 0.5, 2.0]), fnp.asarray([1.0, 0.5, 3.0])).round(5)
        Array([0.125  , 0.06449, 0.01138], dtype=float32)
    """
    return weak_result(_owens_t, float_args("owens_t", h, a))
