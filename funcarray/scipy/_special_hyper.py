"""Confluent hypergeometric function ``hyp1f1(a, b, x)`` and the loops shared with
``hyp2f1`` (``_special_hyp2f1.py``).

The series are ``funcarray.lax.while_loop`` compositions over whole arrays: each element
stops adding terms once they fall below ``eps`` of its sum (past the terms where a negative
parameter may still change their sign or size), and the loop ends when all have, or after
2000 terms. Real inputs only, as in JAX.

``1F1(a; b; x) = sum_k (a)_k / (b)_k x^k / k!``:

* ``x >= 0``: the series up to ``x = 100``, beyond it the asymptotic expansion
  ``Gamma(b) / Gamma(a) e^x x^(a-b) sum_k (b-a)_k (1-a)_k / k! x^-k``, summed up to its
  smallest term (JAX's choices, with the prefactor in logarithms so it does not overflow
  before the result does).
* ``x < 0``: Kummer's transformation ``e^x 1F1(b - a; b; -x)``, whose series has no
  cancellation (the direct series, which JAX sums, loses ``|x| / ln 10`` digits: it returns
  wrong values from ``x ~ -20``); its first term is ``e^(x/2)`` and the sum is scaled by
  ``e^(x/2)`` again, so neither over- nor underflows; beyond ``|x| = 100`` the asymptotic
  ``Gamma(b) / Gamma(b-a) (-x)^-a sum_k (a)_k (1+a-b)_k / k! (-x)^-k`` (JAX: NaN there).
* A terminating series (``a``, or ``b - a`` for ``x < 0``, a non-positive integer) is summed
  exactly at any ``x`` (JAX: NaN beyond 100).

Special values are JAX's: 1 for ``a == 0`` (also ``a == b == 0``, where scipy gives inf),
``exp(x)`` for ``a == b``, and ``inf`` for ``b == 0``; also ``inf`` for a negative integer
``b`` unless the series terminates first (scipy's value; JAX sums through the pole). At
``x = +-inf`` the limits, NaN for infinite ``a`` or ``b`` and a terminating series (scipy's).

Derivatives (``custom_jvp``, as JAX): ``d/dx = a/b 1F1(a+1; b+1; x)``; in ``a`` and ``b`` the
series of the term-wise derivatives, ``sum_k t_k (psi(a+k) - psi(a))`` and
``-sum_k t_k (psi(b+k) - psi(b))`` (the digamma differences as running harmonic sums),
through Kummer's transformation for ``x < 0``. Like JAX's, they are series in ``x``: slow and
eventually inaccurate for ``|x|`` in the hundreds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from funcarray import numpy as fnp
from funcarray.api.custom_derivatives import SymbolicZero, custom_jvp
from funcarray.base.errors import api_boundary
from funcarray.lax._special_dtypes import weak_result
from funcarray.primitives.special import lgamma_p
from funcarray.scipy._special_arguments import finfo, float_args
from funcarray.scipy._special_gamma import _gammasgn

if TYPE_CHECKING:
    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike

__all__ = ["hyp1f1"]

MAX_TERMS = 2000
_ASYMPTOTIC_SWITCH = 100.0


def _while(cond, body, init):
    from funcarray import lax  # funcarray.lax imports this package's modules: import late

    return lax.while_loop(cond, body, init)


def materialize(*arrays):
    """The arrays, computed once: ``lgamma``/``digamma`` lower to long expressions that XLA
    would otherwise fuse (and duplicate) into each consumer, which made compiles of
    ``hyp2f1`` several times slower."""
    from funcarray import lax

    return lax.optimization_barrier(arrays)


def nonpositive_integer(v):
    return (v <= 0) & (v == fnp.floor(v))


def converge(step, active, state):
    """Run ``state = step(k, state) -> (done, state)`` for ``k = 0, 1, ...`` while any element
    is ``active`` and not done; a done element's state freezes."""
    def cond(carry):
        running, k, _ = carry
        return fnp.any(running) & (k < MAX_TERMS)

    def body(carry):
        running, k, values = carry
        done, new_values = step(k, values)
        values = tuple(fnp.where(running, new, old) for new, old in zip(new_values, values))
        return running & ~done, k + 1, values

    init = (active, fnp.asarray(0, "int32"), tuple(state))
    return _while(cond, body, init)[2]


def series_done(k, term, new_term, total, past):
    """Whether a series may stop after adding ``term`` (the next is ``new_term``): the next
    term is below ``eps`` of the sum, no larger than this one, and the index is ``past`` the
    terms whose size a negative parameter can still change (or the series terminated)."""
    eps = float(finfo(total).eps)
    small = (fnp.abs(new_term) <= eps * fnp.abs(total)) & (fnp.abs(new_term) <= fnp.abs(term))
    kf = k.astype(total.dtype)
    return (small & (kf >= past)) | (new_term == 0) | ~fnp.isfinite(total)


def hypergeometric_series(numerators, denominators, z, first, active):
    """``sum_k t_k`` with ``t_0 = first`` and ``t_(k+1) = t_k prod(p + k) / prod(q + k) z /
    (k + 1)`` over ``numerators`` p and ``denominators`` q (arrays of one shape)."""
    past = fnp.zeros_like(z)
    for p in (*numerators, *denominators):
        past = fnp.maximum(past, -p)

    def step(k, values):
        term, total = values
        kf = k.astype(z.dtype)
        total = total + term
        ratio = z / (kf + 1)
        for p in numerators:
            ratio = ratio * (p + kf)
        for q in denominators:
            ratio = ratio / (q + kf)
        new_term = term * ratio
        return series_done(k, term, new_term, total, past), (new_term, total)

    return converge(step, active, (first, fnp.zeros_like(z)))[1]


def gamma_ratios(arguments, ratios):
    """``(sign, log|.|)`` of each ``prod Gamma(p) / prod Gamma(q)`` in ``ratios`` (pairs of
    index lists into ``arguments``), with one ``lgamma`` over all the arguments stacked (one
    lowering instead of many keeps XLA's compiles shorter). A pole among the ``q`` gives sign
    0 (the ratio vanishes); poles among the ``p`` are the caller's to mask."""
    stacked = fnp.stack(arguments)
    pole = nonpositive_integer(stacked)
    safe = fnp.where(pole, 1.0, stacked)
    signs = _gammasgn(safe)
    signs, denominator_signs, logs = materialize(signs, fnp.where(pole, 0.0, signs),
                                                 lgamma_p.bind(safe))
    out = []
    for numerators, denominators in ratios:
        sign, log = 1.0, 0.0
        for i in numerators:
            sign, log = sign * signs[i], log + logs[i]
        for i in denominators:
            sign, log = sign * denominator_signs[i], log - logs[i]
        out.append((sign, log))
    return out


# --------------------------------------------------------------------------------------------
# hyp1f1
# --------------------------------------------------------------------------------------------

def _kummer(a, b, x):
    """``(A, y, half)``: ``1F1(a; b; x) = e^(2 half) 1F1(A; b; y)`` with ``y = |x| >= 0``."""
    positive = x >= 0
    return fnp.where(positive, a, b - a), fnp.abs(x), fnp.where(positive, 0.0, 0.5 * x)


def _asymptotic(big_a, b, y, positive, active):
    """``1F1(A; b; y) e^(-y)`` for ``x < 0``, itself for ``x >= 0``, at large ``y``."""
    eps = float(finfo(y).eps)

    def step(k, values):
        term, total = values
        kf = k.astype(y.dtype)
        new_term = term * (b - big_a + kf) * (1 - big_a + kf) / ((kf + 1) * y)
        growing = fnp.abs(new_term) > fnp.abs(term)
        total = fnp.where(growing, total, total + new_term)
        done = growing | (fnp.abs(new_term) <= eps * fnp.abs(total)) | (new_term == 0)
        return done, (new_term, total)

    one = fnp.ones_like(y)
    total = converge(step, active, (one, one))[1]
    ((sign, log),) = gamma_ratios([b, big_a], [([0], [1])])
    log = log + (big_a - b) * fnp.log(y) + fnp.where(positive, y, 0.0)
    return sign * fnp.exp(log) * total


def _hyp1f1_value(a, b, x):
    big_a, y, half = _kummer(a, b, x)
    finite = fnp.isfinite(a) & fnp.isfinite(b) & fnp.isfinite(x)
    terminating = nonpositive_integer(big_a)
    use_series = (y < _ASYMPTOTIC_SWITCH) | terminating
    scale = fnp.exp(half)
    series = hypergeometric_series([big_a], [b], y, scale, finite & use_series) * scale
    asymptotic = _asymptotic(big_a, b, fnp.where(use_series, 2 * _ASYMPTOTIC_SWITCH, y),
                             x >= 0, finite & ~use_series)
    value = fnp.where(use_series, series, asymptotic)
    # The limits at x = +-inf (scipy's values; NaN where the series terminates, as scipy).
    at_plus_inf = _gammasgn(b) * _gammasgn(a) * np.inf
    vanishes = (a > 0) | nonpositive_integer(b - a)
    at_minus_inf = fnp.where(vanishes, 0.0, _gammasgn(b) * _gammasgn(b - a) * np.inf)
    value = fnp.where(x == np.inf, at_plus_inf, fnp.where(x == -np.inf, at_minus_inf, value))
    value = fnp.where(nonpositive_integer(a) & fnp.isinf(x), np.nan, value)
    value = fnp.where(fnp.isfinite(a) & fnp.isfinite(b) & ~fnp.isnan(x), value, np.nan)
    # b a pole of the series (a negative integer) unless a terminates it first (a > b).
    b_pole = nonpositive_integer(b) & ~(nonpositive_integer(a) & (a > b))
    value = fnp.where(b_pole, np.inf, value)
    value = fnp.where(a == b, fnp.exp(x), value)
    return fnp.where(a == 0, 1.0, value)


def _hyp1f1_parameter_derivatives(a, b, x):
    """``(d/da, d/db)`` of 1F1 by the series of term-wise derivatives (in Kummer's form)."""
    big_a, y, half = _kummer(a, b, x)
    finite = fnp.isfinite(a) & fnp.isfinite(b) & fnp.isfinite(x)
    past = fnp.maximum(fnp.maximum(-big_a, -b), 0.0)

    def step(k, values):
        term, total, harmonic_a, harmonic_b, sum_a, sum_b = values
        kf = k.astype(y.dtype)
        total = total + term
        sum_a = sum_a + term * harmonic_a
        sum_b = sum_b - term * harmonic_b
        harmonic_a = harmonic_a + 1 / (big_a + kf)
        harmonic_b = harmonic_b + 1 / (b + kf)
        new_term = term * (big_a + kf) / (b + kf) * y / (kf + 1)
        # The derivative terms are t_k times harmonic sums (growing like log k): stop when
        # those, not only t_k, are negligible.
        weight = 1 + fnp.abs(harmonic_a) + fnp.abs(harmonic_b)
        done = series_done(k, term * weight, new_term * weight, total, past)
        return done, (new_term, total, harmonic_a, harmonic_b, sum_a, sum_b)

    scale = fnp.exp(half)
    zero = fnp.zeros_like(y)
    _, _, _, _, d_big_a, d_b = converge(step, finite, (scale, zero, zero, zero, zero, zero))
    d_big_a, d_b = d_big_a * scale, d_b * scale
    positive = x >= 0
    # e^x F(b - a; b; -x): d/da = -dF/dA, d/db = dF/dA + dF/db.
    return fnp.where(positive, d_big_a, -d_big_a), fnp.where(positive, d_b, d_big_a + d_b)


def upcast(fn, *args):
    """``fn(*args)`` computed in float32 for 16-bit floats (each output cast back)."""
    if np.dtype(args[0].dtype).itemsize >= 4:
        return fn(*args)
    out = fn(*(v.astype(np.float32) for v in args))
    if isinstance(out, tuple):
        return tuple(o.astype(args[0].dtype) for o in out)
    return out.astype(args[0].dtype)


@custom_jvp
def _hyp1f1(a, b, x):
    return upcast(_hyp1f1_value, a, b, x)


def _hyp1f1_jvp(primals, tangents):
    (a, b, x), (ta, tb, tx) = primals, tangents
    out = _hyp1f1(a, b, x)
    tangent = fnp.zeros_like(out)
    if not isinstance(tx, SymbolicZero):
        tangent = tangent + tx * (a / b) * _hyp1f1(a + 1, b + 1, x)
    if not (isinstance(ta, SymbolicZero) and isinstance(tb, SymbolicZero)):
        d_a, d_b = upcast(_hyp1f1_parameter_derivatives, a, b, x)
        if not isinstance(ta, SymbolicZero):
            tangent = tangent + ta * d_a
        if not isinstance(tb, SymbolicZero):
            tangent = tangent + tb * d_b
    return out, tangent


_hyp1f1.defjvp(_hyp1f1_jvp, symbolic_zeros=True)


@api_boundary
def hyp1f1(a: ArrayLike, b: ArrayLike, x: ArrayLike) -> Array:
    """Kummer's confluent hypergeometric function
    ``1F1(a; b; x) = sum_k (a)_k / (b)_k x^k / k!`` (real arguments).

    The convention for ``a == b == 0`` is 1 (as JAX; scipy gives inf).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import hyp1f1
        >>> hyp1f1(fnp.asarray([0.5, 1.0, 2.0]), fnp.asarray([1.5, 2.0, 3.0]),
        ...        fnp.asarray([2.0, -3.0, 1.0])).round(4)
        Array([2.3645    , 0.31669998, 2.        ], dtype=float32)
    """
    return weak_result(_hyp1f1, float_args("hyp1f1", a, b, x))
