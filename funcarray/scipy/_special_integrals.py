"""The Fresnel integrals ``fresnel`` and the sine and cosine integrals ``sici``.

Our own compositions (JAX ports Cephes' rational fits), for real inputs:

* ``sici``: for ``|x| <= 3`` the power series ``Si = sum_k (-1)^k x^(2k+1) / ((2k+1) (2k+1)!)``
  and ``Ci = gamma + log x + sum_(k>=1) (-1)^k x^(2k) / (2k (2k)!)`` (20 terms, Horner form);
  beyond, ``E1(ix) = -Ci(x) + i (Si(x) - pi/2)`` by the continued fraction
  ``e^-z / (z + 1 - 1/(z + 3 - 4/(z + 5 - ...)))`` at ``z = ix``, evaluated bottom-up at depth
  64 in real arithmetic (error < 1e-15 at ``x = 3``, less beyond); above ``1e9`` its leading
  terms ``Si = pi/2 - cos x / x``, ``Ci = sin x / x``. ``Si`` is odd; ``Ci(x)`` for negative
  ``x`` is ``Ci(|x|)`` (the real part, as scipy and JAX), NaN at ``-inf``.
* ``fresnel``: for ``|x| <= 1.5`` the power series in ``x^4``; beyond,
  ``C + iS = (1+i)/2 (1 - e^(i pi x^2 / 2) w(zeta))`` with the Faddeeva function ``w`` at
  ``zeta = sqrt(pi)/2 (1+i) x`` by Laplace's continued fraction ``i / (sqrt(pi) (z - (1/2) /
  (z - 1/(z - (3/2)/(z - ...)))))`` at depth 100 (error ~ 5e-16 at the switch), and above
  ``1e5`` its leading terms. ``pi x^2 / 2`` is reduced modulo ``2 pi`` exactly (below), so
  large ``x`` keep full accuracy (scipy's and JAX's lose ``eps x^2`` there).

Derivatives are JAX's closed forms (``custom_jvp``): ``Si' = sin x / x``, ``Ci' = cos x / x``,
``S' = sin(pi x^2 / 2)``, ``C' = cos(pi x^2 / 2)``. float16/bfloat16 compute in float32.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from funcarray import numpy as fnp
from funcarray.api.arguments import convert
from funcarray.api.custom_derivatives import custom_jvp
from funcarray.base.errors import api_boundary
from funcarray.lax._special_dtypes import float_arg

if TYPE_CHECKING:
    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike

__all__ = ["fresnel", "sici"]

_EULER_GAMMA = 0.57721566490153286061
_SICI_SWITCH = 3.0
_SICI_TERMS = 20
_SICI_FRACTION_DEPTH = 64
_SICI_ASYMPTOTIC = 1e9
_FRESNEL_SWITCH = 1.5
_FRESNEL_TERMS = 16
_FRESNEL_FRACTION_DEPTH = 100
_FRESNEL_ASYMPTOTIC = 1e5


def _fori(lower, upper, body, init):
    from funcarray import lax  # funcarray.lax imports this package's modules: import late

    return lax.fori_loop(lower, upper, body, init)


def _upcast(fn, x):
    """``fn(x)`` computed in float32 for 16-bit floats (outputs cast back), as JAX."""
    if np.dtype(x.dtype).itemsize < 4:
        return tuple(out.astype(x.dtype) for out in fn(x.astype(np.float32)))
    return fn(x)


def _horner(coefficients, t):
    """``sum_k coefficients[k] t^k``."""
    total = fnp.zeros_like(t)
    for c in reversed(coefficients):
        total = total * t + c
    return total


def _weak_like(outputs, x):
    """The outputs weakly typed when ``x`` is (as JAX's elementwise results)."""
    return tuple(convert(out, out.dtype, True) if x.weak_type and not out.weak_type else out
                 for out in outputs)


# --------------------------------------------------------------------------------------------
# sici
# --------------------------------------------------------------------------------------------

_SI_SERIES = tuple((-1) ** k / ((2 * k + 1) * math.factorial(2 * k + 1))
                   for k in range(_SICI_TERMS))
_CI_SERIES = tuple((-1) ** k / (2 * k * math.factorial(2 * k)) for k in range(1, _SICI_TERMS))


def _e1_imaginary(x):
    """``(Re, Im)`` of ``1 / t`` where ``E1(ix) = e^(-ix) / t`` (the continued fraction)."""
    def step(i, carry):
        tr, ti = carry
        k = (_SICI_FRACTION_DEPTH - i).astype(x.dtype)
        scale = (k * k) / (tr * tr + ti * ti)
        return (2 * k - 1) - scale * tr, x + scale * ti

    tr, ti = _fori(0, _SICI_FRACTION_DEPTH, step,
                   (fnp.full_like(x, 2 * _SICI_FRACTION_DEPTH + 1), x))
    norm = tr * tr + ti * ti
    return tr / norm, -ti / norm


def _sici_values(x):
    ax = fnp.abs(x)
    small = ax <= _SICI_SWITCH
    xs = fnp.where(small, ax, 1.0)
    t = xs * xs
    si_small = xs * _horner(_SI_SERIES, t)
    ci_small = _EULER_GAMMA + fnp.log(xs) + t * _horner(_CI_SERIES, t)
    huge = ax > _SICI_ASYMPTOTIC
    xf = fnp.where(small | huge, 2 * _SICI_SWITCH, ax)
    ur, ui = _e1_imaginary(xf)  # E1(ix) = (cos x - i sin x)(ur + i ui)
    s, c = fnp.sin(xf), fnp.cos(xf)
    si_mid = math.pi / 2 + (c * ui - s * ur)
    ci_mid = -(c * ur + s * ui)
    xh = fnp.where(huge & fnp.isfinite(ax), ax, 1.0)
    si_big = math.pi / 2 - fnp.cos(xh) / xh
    ci_big = fnp.sin(xh) / xh
    si = fnp.where(small, si_small, fnp.where(huge, si_big, si_mid))
    ci = fnp.where(small, ci_small, fnp.where(huge, ci_big, ci_mid))
    si = fnp.where(ax == np.inf, math.pi / 2, fnp.where(ax == 0, 0.0, si))
    ci = fnp.where(ax == np.inf, 0.0, fnp.where(ax == 0, -np.inf, ci))
    ci = fnp.where(x == -np.inf, np.nan, ci)
    # Si is odd (copysign keeps -0.0 for -0.0, as JAX); NaN stays NaN.
    si = fnp.where(fnp.isnan(x), x, fnp.copysign(si, x))
    return si, fnp.where(fnp.isnan(x), x, ci)


@custom_jvp
def _sici(x):
    return _upcast(_sici_values, x)


@_sici.defjvp
def _sici_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    si, ci = _sici(x)
    at_zero = x == 0
    safe = fnp.where(at_zero, 1.0, x)
    sin_ratio = fnp.where(at_zero, 1.0, fnp.sin(safe) / safe)
    cos_ratio = fnp.where(at_zero, np.inf, fnp.cos(safe) / safe)
    return (si, ci), (t * sin_ratio, t * cos_ratio)


@api_boundary
def sici(x: ArrayLike) -> Array:
    """The sine and cosine integrals ``(Si(x), Ci(x))``: ``Si(x) = integral_0^x sin(t)/t dt``
    and ``Ci(x) = gamma + log|x| + integral_0^|x| (cos(t) - 1)/t dt`` (the real part for
    negative ``x``; ``-inf`` at 0).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import sici
        >>> si, ci = sici(fnp.asarray([0.5, 1.0, 10.0]))
        >>> si.round(4)
        Array([0.4931   , 0.9461   , 1.6582999], dtype=float32)
        >>> ci.round(4)
        Array([-0.1778,  0.3374, -0.0455], dtype=float32)
    """
    x = float_arg("sici", x)
    return _weak_like(_sici(x), x)


# --------------------------------------------------------------------------------------------
# fresnel
# --------------------------------------------------------------------------------------------

_C_SERIES = tuple((-1) ** k * (math.pi / 2) ** (2 * k) / (math.factorial(2 * k) * (4 * k + 1))
                  for k in range(_FRESNEL_TERMS))
_S_SERIES = tuple((-1) ** k * (math.pi / 2) ** (2 * k + 1)
                  / (math.factorial(2 * k + 1) * (4 * k + 3)) for k in range(_FRESNEL_TERMS))


def _sincos_half_pi_square(ax):
    """``(sin, cos)`` of ``pi ax^2 / 2`` for ``ax >= 0``, reducing ``ax^2 / 2`` modulo 2 with an
    error of ``eps ax`` instead of ``eps ax^2``: with ``s = ax mod 2`` and ``y = ax - s`` (an
    even integer, both exact), ``ax^2 / 2 = y^2 / 2 + s y + s^2 / 2`` and ``y^2 / 2`` is a
    multiple of 2."""
    s = fnp.fmod(ax, 2.0)
    y = ax - s
    r = fnp.fmod(fnp.fmod(s * y, 2.0) + 0.5 * s * s, 2.0)
    angle = math.pi * r
    return fnp.sin(angle), fnp.cos(angle)


def _faddeeva_diagonal(a):
    """``(Re, Im)`` of ``w(a (1 + i))`` for ``a > 1`` (Laplace's continued fraction)."""
    def step(i, carry):
        tr, ti = carry
        half_k = 0.5 * (_FRESNEL_FRACTION_DEPTH - i).astype(a.dtype)
        scale = half_k / (tr * tr + ti * ti)
        return a - scale * tr, a + scale * ti

    tr, ti = _fori(0, _FRESNEL_FRACTION_DEPTH, step, (a, a))
    # w = i / (sqrt(pi) t)
    scale = 1 / (math.sqrt(math.pi) * (tr * tr + ti * ti))
    return ti * scale, tr * scale


def _fresnel_values(x):
    ax = fnp.abs(x)
    small = ax <= _FRESNEL_SWITCH
    xs = fnp.where(small, ax, 1.0)
    t = (xs * xs) * (xs * xs)
    c_small = xs * _horner(_C_SERIES, t)
    s_small = xs * xs * xs * _horner(_S_SERIES, t)
    finite = fnp.isfinite(ax)
    huge = ax > _FRESNEL_ASYMPTOTIC
    sin_q, cos_q = _sincos_half_pi_square(fnp.where(finite & ~small, ax, 2.0))
    xf = fnp.where(small | huge, 2 * _FRESNEL_SWITCH, ax)
    wr, wi = _faddeeva_diagonal((math.sqrt(math.pi) / 2) * xf)
    ur, ui = 0.5 * (wr - wi), 0.5 * (wr + wi)  # (1+i)/2 w
    c_mid = 0.5 - (cos_q * ur - sin_q * ui)
    s_mid = 0.5 - (sin_q * ur + cos_q * ui)
    xh = fnp.where(huge & finite, ax, 1.0)
    f = 1 / (math.pi * xh)
    g = f / (math.pi * xh * xh)
    c_big = 0.5 + f * sin_q - g * cos_q
    s_big = 0.5 - f * cos_q - g * sin_q
    c = fnp.where(small, c_small, fnp.where(huge, c_big, c_mid))
    s = fnp.where(small, s_small, fnp.where(huge, s_big, s_mid))
    c = fnp.where(ax == np.inf, 0.5, c)
    s = fnp.where(ax == np.inf, 0.5, s)
    # Both are odd; NaN stays NaN.
    s = fnp.where(fnp.isnan(x), x, fnp.copysign(s, x))
    c = fnp.where(fnp.isnan(x), x, fnp.copysign(c, x))
    return s, c


@custom_jvp
def _fresnel(x):
    return _upcast(_fresnel_values, x)


@_fresnel.defjvp
def _fresnel_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    s, c = _fresnel(x)
    ax = fnp.abs(x)
    sin_q, cos_q = _upcast(_sincos_half_pi_square, fnp.where(fnp.isfinite(ax), ax, np.nan))
    return (s, c), (t * sin_q, t * cos_q)


@api_boundary
def fresnel(x: ArrayLike) -> Array:
    """The Fresnel integrals ``(S(x), C(x))``: ``S(x) = integral_0^x sin(pi t^2 / 2) dt`` and
    ``C(x) = integral_0^x cos(pi t^2 / 2) dt`` (real ``x``).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import fresnel
        >>> s, c = fresnel(fnp.asarray([0.5, 1.0, 3.0]))
        >>> s.round(4)
        Array([0.0647    , 0.43829998, 0.49629998], dtype=float32)
        >>> c.round(4)
        Array([0.49229997, 0.77989995, 0.60569996], dtype=float32)
    """
    x = float_arg("fresnel", x)
    return _weak_like(_fresnel(x), x)
