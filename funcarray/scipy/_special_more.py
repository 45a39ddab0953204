"""The Faddeeva function ``wofz`` and Owen's T function ``owens_t``.

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

import numpy as np

from funcarray import dtypes
from funcarray import numpy as fnp
from funcarray._arguments import asarray_arg, convert, to_inexact_dtype
from funcarray._custom import custom_jvp
from funcarray._errors import api_boundary
from funcarray.primitives.special import erf_p, erfc_p
from funcarray.scipy._special_util import float_args, weak_result

__all__ = ["owens_t", "wofz"]


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
def wofz(z):
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
def owens_t(h, a):
    """Owen's T function ``T(h, a) = 1/(2 pi) integral_0^a exp(-h^2 (1 + x^2) / 2) / (1 + x^2)
    dx``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import owens_t
        >>> owens_t(fnp.asarray([0.0, 0.5, 2.0]), fnp.asarray([1.0, 0.5, 3.0])).round(5)
        Array([0.125  , 0.06449, 0.01138], dtype=float32)
    """
    return weak_result(_owens_t, float_args("owens_t", h, a))
