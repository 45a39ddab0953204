"""Gauss's hypergeometric function ``hyp2f1(a, b, c, x)`` for real arguments.

``2F1(a, b; c; x) = sum_k (a)_k (b)_k / (c)_k x^k / k!`` on ``x < 1``, by the series where
it converges well and transformations elsewhere (the series loops are ``_special_hyper.py``'s;
float32 keeps ~1e-3 relative accuracy within ``sqrt(eps)`` of an integer ``d`` near
``z = 1``, where the two methods there meet):

* ``x < 0``: Pfaff's transformation ``(1 - x)^-a 2F1(a, c - b; c; x / (x - 1))``, whose
  argument is in ``(0, 1)`` (JAX sums the series directly, which diverges below -1).
* ``z <= 3/4``, or a terminating series (``a`` or ``b`` a non-positive integer: a polynomial,
  summed directly at any ``x``): the series.
* ``z <= 0.95`` when ``d = c - a - b`` is within 0.1 of an integer: the series too (the
  connection formula below would lose ``log10(1 / |d - m|)`` digits to cancellation).
* further out: the ``1 - z`` connection formula (Abramowitz & Stegun 15.3.6),
  ``Gamma(c) Gamma(d) / (Gamma(c-a) Gamma(c-b)) 2F1(a, b; 1-d; 1-z) + (1-z)^d Gamma(c)
  Gamma(-d) / (Gamma(a) Gamma(b)) 2F1(c-a, c-b; 1+d; 1-z)`` with ``d = c - a - b``; where
  ``d`` is within ``sqrt(eps)`` of an integer ``m`` its limit form (A&S 15.3.10/15.3.11, the
  digamma series), after Euler's transformation ``(1-z)^d 2F1(c-a, c-b; c; z)`` when
  ``m < 0``. (JAX sums the series for ``x > 0.9`` with at most 250 terms: 1e-3 errors near
  1.)

Special values are JAX's: 1 where ``x == 0`` or ``a`` or ``b`` is 0 (``c != 0``); ``inf`` for
``c`` a non-positive integer, for ``x > 1``, and at ``x == 1`` when ``c - a - b <= 0``;
Gauss's ``Gamma(c) Gamma(c-a-b) / (Gamma(c-a) Gamma(c-b))`` at ``x == 1``;
``(1-x)^-a`` when ``b == c`` and ``(1-x)^-b`` when ``a == c``. NaN for infinite ``a``,
``b``, ``c`` and at ``x = -inf`` (scipy's values).

Derivatives (``custom_jvp``, as JAX): ``d/dx = ab/c 2F1(a+1, b+1; c+1; x)``; in ``a``, ``b``,
``c`` the series of term-wise derivatives (digamma differences as running harmonic sums),
through Pfaff's transformation for ``x < 0``; they converge slowly as ``|x / (x-1)| -> 1``
and are NaN at non-positive integer ``a`` or ``b`` (JAX: the same series, NaN there too).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from funcarray import numpy as fnp
from funcarray.api.custom_derivatives import SymbolicZero, custom_jvp
from funcarray.base.errors import api_boundary
from funcarray.lax._special_dtypes import weak_result
from funcarray.primitives.special import digamma_p
from funcarray.scipy._special_arguments import finfo, float_args
from funcarray.scipy._special_hyper import (
    converge,
    gamma_ratios,
    hypergeometric_series,
    materialize,
    nonpositive_integer,
    series_done,
    upcast,
)

if TYPE_CHECKING:
    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike

__all__ = ["hyp2f1"]

_SERIES_BELOW = 0.75
_SERIES_NEAR_GAP_BELOW = 0.95
_GAP_BAND = 0.1
_EULER_GAMMA = 0.57721566490153286061


def _pfaff(a, b, c, x):
    """``(b', z, log_prefactor, reflected)`` with ``2F1(a, b; c; x) = e^log_prefactor
    2F1(a, b'; c; z)`` and ``0 <= z < 1`` unless the series terminates (then ``z = x``)."""
    reflect = (x < 0) & ~(nonpositive_integer(a) | nonpositive_integer(b))
    xr = fnp.where(reflect, x, -1.0)
    z = fnp.where(reflect, xr / (xr - 1), x)
    return (fnp.where(reflect, c - b, b), z,
            fnp.where(reflect, -a * fnp.log1p(-xr), 0.0), reflect)


def _gap_sums(p, q, m, w, psi, inverse_m_factorial, active):
    """A&S 15.3.11's two sums for ``2F1(p, q; p+q+m; 1-w)``, ``m`` a non-negative integer, in
    one loop: ``sum_(n<m) (p)_n (q)_n / (n! (1-m)_n) w^n`` and ``sum_n (p+m)_n (q+m)_n /
    (n! (n+m)!) w^n [log w - psi(n+1) - psi(n+m+1) + psi(p+n+m) + psi(q+n+m)]``; ``psi`` is
    ``(psi(m+1), psi(p+m), psi(q+m))``."""
    log_w = fnp.log(w)
    past = fnp.maximum(fnp.maximum(-(p + m), -(q + m)), m - 1)

    def step(k, values):
        term_f, total_f, term, total, psi_n, psi_nm, psi_p, psi_q = values
        kf = k.astype(w.dtype)
        in_finite = kf < m
        total_f = total_f + fnp.where(in_finite, term_f, 0.0)
        denominator = fnp.where(kf + 1 < m, (kf + 1) * (1 - m + kf), 1.0)
        term_f = term_f * (p + kf) * (q + kf) / denominator * w
        bracket = log_w - psi_n - psi_nm + psi_p + psi_q
        total = total + term * bracket
        new_term = term * (p + m + kf) * (q + m + kf) / ((kf + 1) * (kf + m + 1)) * w
        weight = 1 + fnp.abs(bracket)
        done = series_done(k, term * weight, new_term * weight, total, past)
        return done, (term_f, total_f, new_term, total, psi_n + 1 / (kf + 1),
                      psi_nm + 1 / (kf + m + 1), psi_p + 1 / (p + m + kf),
                      psi_q + 1 / (q + m + kf))

    zero = fnp.zeros_like(w)
    init = (fnp.ones_like(w), zero, inverse_m_factorial, zero, fnp.full_like(w, -_EULER_GAMMA),
            *psi)
    out = converge(step, active, init)
    return out[1], out[3]


def _hyp2f1_value(a, b, c, x):
    finite = fnp.isfinite(a) & fnp.isfinite(b) & fnp.isfinite(c) & fnp.isfinite(x)
    inside = finite & (x < 1)
    pb, z, log_prefactor, _ = _pfaff(a, b, c, fnp.where(inside, x, 0.0))
    # Below: 2F1(a, pb; c; z) for 0 <= z < 1 (any z if it terminates).
    polynomial = nonpositive_integer(a) | nonpositive_integer(pb)
    d = c - a - pb
    m = fnp.round(d)
    near_integer = fnp.abs(d - m) <= float(np.sqrt(finfo(z).eps)) * fnp.maximum(1.0,
                                                                                 fnp.abs(d))
    # Near an integer gap the connection formula cancels (its Gammas grow like 1/|d - m|):
    # there the series is summed further out (slower, but without cancellation).
    series_reach = fnp.where(fnp.abs(d - m) < _GAP_BAND, _SERIES_NEAR_GAP_BELOW, _SERIES_BELOW)
    far = (z > series_reach) & ~polynomial
    # A gap m < 0: Euler's transformation (1-z)^d 2F1(c-a, c-pb; c; z) has the gap -m >= 0;
    # if that series terminates, its polynomial is summed directly.
    euler = m < 0
    p = fnp.where(euler, c - a, a)
    q = fnp.where(euler, c - pb, pb)
    euler_polynomial = far & near_integer & euler & (nonpositive_integer(p)
                                                     | nonpositive_integer(q))
    direct = ~far | euler_polynomial
    zf = fnp.where(far, z, 0.75)
    w = 1 - zf
    euler_factor = fnp.where(euler, fnp.exp(d * fnp.log(w)), 1.0)
    gap_lanes = inside & far & near_integer & ~euler_polynomial
    connection_lanes = inside & far & ~near_integer
    # Other lanes get harmless parameters, so no pole is evaluated there.
    pg, qg = fnp.where(gap_lanes, p, 0.5), fnp.where(gap_lanes, q, 0.5)
    mg = fnp.where(gap_lanes, fnp.abs(m), 0.0)
    ak, bk = fnp.where(connection_lanes, a, 0.25), fnp.where(connection_lanes, pb, 0.5)
    ck = fnp.where(connection_lanes, c, 1.5)
    dk = ck - ak - bk

    # The direct series and the two of the connection formula (A&S 15.3.6), in one loop.
    sa = fnp.where(euler_polynomial, p, a)
    sb = fnp.where(euler_polynomial, q, pb)
    sums = hypergeometric_series(
        [fnp.stack([sa, ak, ck - ak]), fnp.stack([sb, bk, ck - bk])],
        [fnp.stack([c, 1 - dk, 1 + dk])], fnp.stack([z, w, w]),
        fnp.ones((3, *z.shape), z.dtype),
        fnp.stack([inside & direct, connection_lanes, connection_lanes]))
    series = fnp.where(euler_polynomial, euler_factor * sums[0], sums[0])

    dpos = fnp.where(d > 0, c - a - b, 1.0)
    gammas = gamma_ratios(
        [ck, dk, -dk, ck - ak, ck - bk, ak, bk,
         pg + qg + mg, fnp.maximum(mg, 1.0), pg + mg, qg + mg, pg, qg, mg + 1,
         c, dpos, c - a, c - b],
        [([0, 1], [3, 4]), ([0, 2], [5, 6]), ([7, 8], [9, 10]), ([7], [11, 12]), ([], [13]),
         ([14, 15], [16, 17])])
    (s1, l1), (s2, l2), (s_fin, l_fin), (s_log, l_log), (_, l_inv_fact), (s_at1, l_at1) = gammas
    connected = (s1 * fnp.exp(l1) * sums[1] + s2 * fnp.exp(l2 + dk * fnp.log(w)) * sums[2])

    (psi,) = materialize(digamma_p.bind(fnp.stack([mg + 1, pg + mg, qg + mg])))
    finite_sum, log_sum = _gap_sums(pg, qg, mg, w, (psi[0], psi[1], psi[2]),
                                    fnp.exp(l_inv_fact), gap_lanes)
    parity = fnp.where(fnp.fmod(mg, 2.0) == 1, -1.0, 1.0)
    gap = (fnp.where(mg >= 1, s_fin * fnp.exp(l_fin) * finite_sum, 0.0)
           - parity * s_log * fnp.exp(l_log + mg * fnp.log(w)) * log_sum)
    value = fnp.where(direct, series,
                      fnp.where(near_integer, euler_factor * gap, connected))
    value = fnp.exp(log_prefactor) * value

    at_one = fnp.where(d > 0, s_at1 * fnp.exp(l_at1), np.inf)
    value = fnp.where(x == 1, at_one, fnp.where(x > 1, np.inf, value))
    value = fnp.where((x < 1) & (a == c), fnp.power(1 - x, -b), value)
    value = fnp.where((x < 1) & (b == c), fnp.power(1 - x, -a), value)
    value = fnp.where(nonpositive_integer(c), np.inf, value)
    # NaN for infinite parameters and at x = -inf (but for a or b equal to c, whose
    # (1 - x)^-b has its limit there, as scipy and jax); 1 at x = 0 and for a or b zero
    # (c not), whatever the other operands, NaN or infinite ones included (scipy and jax).
    closed_form = (a == c) | (b == c)
    undefined = (~(fnp.isfinite(a) & fnp.isfinite(b) & fnp.isfinite(c))
                 | ((x == -np.inf) & ~closed_form))
    unit = (x == 0) | (((a == 0) | (b == 0)) & (c != 0))
    return fnp.where(unit, 1.0, fnp.where(undefined | fnp.isnan(x), np.nan, value))


def _parameter_derivatives(a, b, c, x):
    """``(d/da, d/db, d/dc)`` of 2F1 by the series of term-wise derivatives, at Pfaff's
    argument for ``x < 0``."""
    finite = fnp.isfinite(a) & fnp.isfinite(b) & fnp.isfinite(c) & fnp.isfinite(x) & (x < 1)
    pb, z, log_prefactor, reflected = _pfaff(a, b, c, fnp.where(finite, x, 0.0))
    past = fnp.maximum(fnp.maximum(fnp.maximum(-a, -pb), -c), 0.0)

    def step(k, values):
        term, total, h_a, h_b, h_c, s_a, s_b, s_c = values
        kf = k.astype(z.dtype)
        total = total + term
        s_a, s_b, s_c = s_a + term * h_a, s_b + term * h_b, s_c - term * h_c
        h_a, h_b, h_c = h_a + 1 / (a + kf), h_b + 1 / (pb + kf), h_c + 1 / (c + kf)
        new_term = term * (a + kf) * (pb + kf) / ((c + kf) * (kf + 1)) * z
        weight = 1 + fnp.abs(h_a) + fnp.abs(h_b) + fnp.abs(h_c)
        done = series_done(k, term * weight, new_term * weight, total, past)
        return done, (new_term, total, h_a, h_b, h_c, s_a, s_b, s_c)

    zero = fnp.zeros_like(z)
    init = (fnp.ones_like(z), zero, zero, zero, zero, zero, zero, zero)
    _, total, _, _, _, d_a, d_pb, d_c = converge(step, finite, init)
    scale = fnp.exp(log_prefactor)
    # F = (1-x)^-a G(a, c-b; c; z): dF/da = -log(1-x) F + ..., dF/db = -dG/db',
    # dF/dc = dG/db' + dG/dc.
    d_a = scale * (d_a - fnp.where(reflected, fnp.log1p(-fnp.where(reflected, x, 0.0)),
                                   0.0) * total)
    d_b = scale * fnp.where(reflected, -d_pb, d_pb)
    d_c = scale * fnp.where(reflected, d_pb + d_c, d_c)
    return d_a, d_b, d_c


@custom_jvp
def _hyp2f1(a, b, c, x):
    return upcast(_hyp2f1_value, a, b, c, x)


def _hyp2f1_jvp(primals, tangents):
    (a, b, c, x), (ta, tb, tc, tx) = primals, tangents
    out = _hyp2f1(a, b, c, x)
    tangent = fnp.zeros_like(out)
    if not isinstance(tx, SymbolicZero):
        tangent = tangent + tx * (a * b / c) * _hyp2f1(a + 1, b + 1, c + 1, x)
    parameter_tangents = (ta, tb, tc)
    if not all(isinstance(t, SymbolicZero) for t in parameter_tangents):
        derivatives = upcast(_parameter_derivatives, a, b, c, x)
        for t, derivative in zip(parameter_tangents, derivatives):
            if not isinstance(t, SymbolicZero):
                tangent = tangent + t * derivative
    return out, tangent


_hyp2f1.defjvp(_hyp2f1_jvp, symbolic_zeros=True)


@api_boundary
def hyp2f1(a: ArrayLike, b: ArrayLike, c: ArrayLike, x: ArrayLike) -> Array:
    """Gauss's hypergeometric function
    ``2F1(a, b; c; x) = sum_k (a)_k (b)_k / (c)_k x^k / k!`` (real arguments; ``inf`` for
    ``x > 1``).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import hyp2f1
        >>> hyp2f1(1.0, 1.0, 2.0, fnp.asarray([0.5, -3.0, 0.99])).round(4)
        Array([1.3863, 0.4621, 4.6517], dtype=float32)
    """
    return weak_result(_hyp2f1, float_args("hyp2f1", a, b, c, x))

