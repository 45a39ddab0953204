"""Functions composed from ``lgamma`` and ``digamma``: the implementations behind
``lax.zeta`` and ``lax.polygamma``, and ``log_beta`` (``log|B(a, b)|``: ``lax.betainc``'s
prefactor and ``funcarray.scipy.special.betaln``).

Two choices of our own:

* ``log_beta`` for large arguments uses Stirling's series for the three log-gammas, with the
  large terms combined analytically, instead of ``lgamma(a) + lgamma(b) - lgamma(a + b)``,
  which cancels catastrophically (JAX uses TOMS 708's algorithm to the same end).
* ``zeta(x, q)`` (Hurwitz) is the Euler-Maclaurin sum: ``N`` terms directly, the integral,
  and ``M`` Bernoulli correction terms (coefficients computed exactly at import), with XLA's
  special values: ``inf`` at ``x == 1``, NaN for ``x < 1`` and ``x = inf``, and for
  ``q <= 0``: a pole (``inf`` for even ``x``, NaN for odd) at integer ``q``, NaN for a
  non-integer ``x``. ``polygamma(n, x) = (-1)^(n+1) n! zeta(n + 1, x)`` (digamma for 0); its
  derivative is ``polygamma(n + 1, x)`` (``custom_jvp``; in ``n`` it raises, as in JAX).

The operands are float arrays of one dtype and shape (the public functions check them);
the other derivatives come from autodiff of the composition.

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray.lax._special_gamma import log_beta
    >>> log_beta(fnp.asarray([1.0, 1e5]), fnp.asarray([2.0, 1e5])).round(2)
    Array([-6.9000000e-01, -1.3863394e+05], dtype=float32)
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

from funcarray.api.custom_derivatives import SymbolicZero, custom_jvp
from funcarray.lax._ops_binary import (
    add,
    mul,
)
from funcarray.lax._ops_shape import full_like
from funcarray.lax._special_dtypes import in_float32
from funcarray.lax._special_host_ops import LAX_OPS, SCALAR_OPS, select_lazily

if TYPE_CHECKING:
    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike

__all__ = ["log_beta", "zeta_formula", "zeta_impl", "polygamma_formula", "polygamma_impl"]

# Stirling's series of lgamma(x) - ((x - 1/2) log x - x + log(2 pi) / 2), in powers of 1/x^2:
# B_2k / (2k (2k - 1)), accurate to float64 precision for x >= 8.
_STIRLING = (1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188, -691 / 360360, 1 / 156)
_STIRLING_FROM = 8.0


def _stirling_correction(x, ops=LAX_OPS):
    inv = ops.div(1.0, x)
    inv2 = ops.mul(inv, inv)
    total = ops.full_like(x, _STIRLING[-1])
    for c in reversed(_STIRLING[:-1]):
        total = ops.add(ops.mul(total, inv2), c)
    return ops.mul(total, inv)


def log_beta(a: ArrayLike, b: ArrayLike, ops=LAX_OPS) -> Array:
    """``log|B(a, b)|``, the log of the beta function, accurate for large ``a`` and ``b``
    (computed with ``ops``: see ``_special_host_ops``)."""
    small, large = ops.min(a, b), ops.max(a, b)
    s = ops.add(small, large)
    stirling_from = ops.full_like(small, _STIRLING_FROM)
    safe_large = ops.select(ops.ge(large, _STIRLING_FROM), large, stirling_from)

    def both_large():
        # Both large: the log terms combined so that nothing large cancels.
        safe_small = ops.select(ops.ge(small, _STIRLING_FROM), small, stirling_from)
        safe_s = ops.add(safe_small, safe_large)
        both = ops.sub(0.5 * math.log(2 * math.pi), ops.mul(0.5, ops.log(safe_large)))
        both = ops.add(both, ops.mul(ops.sub(safe_small, 0.5),
                                     ops.log(ops.div(safe_small, safe_s))))
        both = ops.add(both, ops.mul(safe_large,
                                     ops.log1p(ops.div(ops.neg(safe_small), safe_s))))
        both = ops.add(ops.add(both, _stirling_correction(safe_small, ops)),
                       _stirling_correction(safe_large, ops))
        return ops.sub(both, _stirling_correction(safe_s, ops))

    def one_large():
        # Only the larger one large: lgamma(small) + [lgamma(large) - lgamma(s)] with the
        # bracket from Stirling's series.
        safe_s1 = ops.add(small, safe_large)
        one = ops.add(ops.lgamma(small), ops.mul(ops.sub(safe_large, 0.5),
                                                 ops.log1p(ops.div(ops.neg(small), safe_s1))))
        one = ops.add(ops.sub(one, ops.mul(small, ops.log(safe_s1))), small)
        return ops.sub(ops.add(one, _stirling_correction(safe_large, ops)),
                       _stirling_correction(safe_s1, ops))

    def direct():
        return ops.sub(ops.add(ops.lgamma(small), ops.lgamma(large)), ops.lgamma(s))

    use_both = ops.ge(small, _STIRLING_FROM)
    use_one = ops.bitwise_and(ops.bitwise_and(ops.ge(large, _STIRLING_FROM), ops.gt(small, 0.0)),
                              ops.bitwise_not(use_both))
    return select_lazily(ops, use_both, both_large,
                         lambda: select_lazily(ops, use_one, one_large, direct))


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
_ZETA_OFFSETS = tuple(float(k) for k in range(_ZETA_DIRECT_TERMS))
# The j-th correction's factor gains (s + 2j - 3)(s + 2j - 2) / w^2 (j from 1).
_ZETA_FACTOR_SHIFTS = tuple((float(2 * j - 3), float(2 * j - 2))
                            for j in range(1, len(_ZETA_CORRECTIONS) + 1))


def _zeta_sum(s, q, ops):
    """Euler-Maclaurin for ``sum_k (q + k)^-s`` (s > 1, q + N > 0)."""
    total = ops.full_like(q, 0)
    neg_s = ops.neg(s)  # (negation is exact: computed once)
    w = ops.add(q, float(_ZETA_DIRECT_TERMS))
    if ops is SCALAR_OPS:
        # One element: its eleven powers in one np.power call (~1 us for a call on two
        # scalars): the same loop on the same values, so the same bits.
        *powers, w_pow = np.power(np.array([ops.add(q, k) for k in _ZETA_OFFSETS] + [w]),
                                  neg_s)
    else:
        powers = (ops.pow(ops.add(q, k), neg_s) for k in _ZETA_OFFSETS)
    for power in powers:
        total = ops.add(total, power)
    if ops is not SCALAR_OPS:
        w_pow = ops.pow(w, neg_s)
    total = ops.add(ops.add(total, ops.div(ops.mul(w, w_pow), ops.sub(s, 1.0))),
                    ops.mul(0.5, w_pow))
    factor = ops.div(s, w)
    inv_w2 = ops.div(1.0, ops.mul(w, w))
    for j, c in enumerate(_ZETA_CORRECTIONS):
        if j:
            first, second = _ZETA_FACTOR_SHIFTS[j]
            factor = ops.mul(ops.mul(ops.mul(factor, ops.add(s, first)), ops.add(s, second)),
                             inv_w2)
        total = ops.add(total, ops.mul(ops.mul(c, w_pow), factor))
    return total


def _is_nan(x, ops=LAX_OPS):
    return ops.ne(x, x)


def _any(*masks, ops=LAX_OPS):
    """The elementwise or of boolean arrays, left to right."""
    return functools.reduce(ops.bitwise_or, masks)


def zeta_formula(x, q, ops=LAX_OPS):
    """The Hurwitz zeta function of float32 or float64 arrays of one shape, computed with
    ``ops`` (``_special_host_ops``: lax's operations, or their kernels on NumPy)."""
    q_nonpositive = ops.le(q, 0.0)
    q_integer = ops.eq(q, ops.floor(q))
    x_integer = ops.eq(x, ops.floor(x))
    pole = ops.bitwise_and(q_nonpositive, q_integer)
    x_even = ops.eq(ops.rem(x, 2.0), 0.0)
    nan_mask = _any(ops.lt(x, 1.0), _is_nan(x, ops), _is_nan(q, ops), ops.eq(x, np.inf),
                    ops.bitwise_and(q_nonpositive, ops.bitwise_not(x_integer)),
                    ops.bitwise_and(pole, ops.bitwise_not(x_even)), ops=ops)
    x_one = ops.eq(x, 1.0)
    inf_mask = ops.bitwise_or(x_one, pole)
    bad = ops.bitwise_or(nan_mask, inf_mask)
    # Harmless arguments where the result is a special value, so that no NaN or inf reaches
    # the derivative of the discarded branch.
    safe_x = ops.select(bad, ops.full_like(x, 2), x)
    safe_q = ops.select(bad, ops.full_like(q, 1), q)
    value = _zeta_sum(safe_x, safe_q, ops)
    special = ops.select(nan_mask, ops.full_like(x, np.nan),
                         ops.select(inf_mask, ops.full_like(x, np.inf), value))
    # x = 1 is the pole of every q, a NaN or a non-positive integer q included (jax, SciPy)
    return ops.select(x_one, ops.full_like(x, np.inf), special)


def zeta_impl(x: ArrayLike, q: ArrayLike) -> Array:
    """The Hurwitz zeta function ``sum_k (k + q)^-x`` (``lax.zeta`` after its checks);
    float16 and bfloat16 in float32, as XLA (their range overflows the sum's terms)."""
    return in_float32(zeta_formula)(x, q)


def polygamma_formula(n, x, ops=LAX_OPS):
    """``polygamma(n, x)`` of float32 or float64 arrays of one shape, computed with ``ops``
    (``_special_host_ops``: lax's operations, or their kernels on NumPy)."""
    valid_n = ops.bitwise_and(ops.eq(n, ops.floor(n)), ops.ge(n, 0.0))
    first = ops.eq(n, 0.0)
    safe_n = ops.select(ops.bitwise_or(first, ops.bitwise_not(valid_n)), ops.full_like(n, 1), n)
    sign = ops.select(ops.eq(ops.rem(safe_n, 2.0), 0.0), ops.neg(ops.full_like(n, 1)),
                      ops.full_like(n, 1))
    def higher():
        return ops.mul(ops.mul(sign, ops.exp(ops.lgamma(ops.add(safe_n, 1.0)))),
                       zeta_formula(ops.add(safe_n, 1.0), x, ops))

    value = select_lazily(ops, first, lambda: ops.digamma(x), higher)
    return ops.select(valid_n, value, ops.full_like(value, np.nan))


@custom_jvp
def polygamma_impl(n: ArrayLike, x: ArrayLike) -> Array:
    """The ``n``-th derivative of digamma, ``n`` a float holding an integer
    (``lax.polygamma`` after its checks); float16 and bfloat16 in float32, as XLA."""
    return in_float32(polygamma_formula)(n, x)


def _polygamma_jvp(primals, tangents):
    (n, x), (tn, tx) = primals, tangents
    if not isinstance(tn, SymbolicZero):
        raise ValueError("polygamma: the derivative with respect to n is not supported (as in "
                         "JAX); differentiate with respect to x only")
    out = polygamma_impl(n, x)
    if isinstance(tx, SymbolicZero):
        return out, full_like(out, 0)
    return out, mul(tx, polygamma_impl(add(n, 1.0), x))


polygamma_impl.defjvp(_polygamma_jvp, symbolic_zeros=True)
