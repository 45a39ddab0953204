"""Regularized incomplete gamma and beta functions: the implementations behind
``lax.igamma``, ``lax.igammac``, ``lax.igamma_grad_a``, ``lax.random_gamma_grad`` and
``lax.betainc`` (and so ``funcarray.scipy.special``'s ``gammainc``, ``gammaincc``,
``betainc``).

The algorithms are the classical ones XLA uses too, written as ``while_loop`` compositions
over whole arrays (each element stops updating once converged; the loop ends when all have,
or after a cap), so they run eagerly and under jit and vmap:

* ``P(a, x)`` by its power series ``x^a e^-x / Gamma(a + 1) sum_n x^n / (a+1)...(a+n)``
  where ``x < 1`` or ``x <= a``, and ``Q(a, x) = 1 - P`` by Legendre's continued fraction
  (Cephes' recurrences, rescaled to avoid overflow) elsewhere. Both loops can carry the
  derivative of their sum in ``a`` as well: ``igamma_grad_a`` and ``random_gamma_grad``
  (the derivative of a Gamma(a) sample in ``a``, ``-dP/da / dP/dx``) are built from it.
* ``I_x(a, b)`` by the continued fraction of DLMF 8.17.22 (modified Lentz), on the side of
  ``x < (a + 1) / (a + b + 2)`` where it converges fast, and ``1 - I_{1-x}(b, a)`` beyond.

Derivatives are JAX's, given by ``custom_jvp`` (the loops themselves are never
differentiated): ``dP/dx = x^(a-1) e^-x / Gamma(a)``, ``dP/da = igamma_grad_a``,
``dI/dx = x^(a-1) (1-x)^(b-1) / B(a, b)``; ``betainc``'s derivatives in ``a`` and ``b``
raise, as in JAX. float16/bfloat16 compute in float32. The operands are float arrays of one
dtype and shape (the public functions check them).

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray.lax._special_incomplete import igamma_impl
    >>> igamma_impl(fnp.asarray([1.0, 2.0]), fnp.asarray([1.0, 3.0])).round(5)
    Array([0.63212, 0.80085], dtype=float32)
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import numpy as np

from funcarray.api.custom_derivatives import SymbolicZero, custom_jvp
from funcarray.base import dtypes
from funcarray.lax._control_flow import while_loop
from funcarray.lax._ops_binary import (
    add,
    bitwise_and,
    bitwise_or,
    div,
    eq,
    ge,
    gt,
    le,
    lt,
    mul,
    ne,
    select,
    sub,
)
from funcarray.lax._ops_reduce import reduce_or
from funcarray.lax._ops_shape import full, full_like
from funcarray.lax._ops_unary import abs as absolute
from funcarray.lax._ops_unary import bitwise_not, digamma, exp, lgamma, log, log1p, neg
from funcarray.lax._special_dtypes import in_float32
from funcarray.lax._special_gamma import log_beta

if TYPE_CHECKING:
    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike

__all__ = ["igamma_impl", "igammac_impl", "igamma_grad_a_impl", "random_gamma_grad_impl",
           "betainc_impl"]

_MAX_ITERATIONS = 2000
_VALUE, _DERIVATIVE, _SAMPLE_DERIVATIVE = "value", "derivative", "sample_derivative"


def _any(*masks):
    """The elementwise or of boolean arrays, left to right."""
    return functools.reduce(bitwise_or, masks)


def _is_nan(x):
    return ne(x, x)


def _eps(x) -> float:
    return float(dtypes.finfo(x.dtype).eps)


def _loop(step, enabled, state):
    """Run ``step(state) -> (still_active, new_state)`` while any element is active; an
    element's state freezes once it is inactive."""
    def cond(carry):
        active, count, _ = carry
        return bitwise_and(reduce_or(active, tuple(range(active.ndim))),
                           lt(count, _MAX_ITERATIONS))

    def body(carry):
        active, count, values = carry
        keep_going, new_values = step(values)
        return (bitwise_and(active, keep_going), add(count, 1),
                tuple(select(active, n, o) for n, o in zip(new_values, values)))

    return while_loop(cond, body, (enabled, full((), 0, np.int32), tuple(state)))[2]


def _igamma_series(ax, x, a, enabled, mode):
    """``P(a, x)`` (or its derivatives) by the power series, for the ``enabled`` elements."""
    eps = _eps(x)

    def step(values):
        r, c, total, dc, dtotal = values
        r = add(r, 1.0)
        dc = sub(mul(dc, div(x, r)), div(mul(c, x), mul(r, r)))
        dtotal = add(dtotal, dc)
        c = mul(c, div(x, r))
        total = add(total, c)
        if mode == _VALUE:
            going = gt(div(c, total), eps)
        else:
            going = gt(absolute(div(dc, dtotal)), eps)
        return going, (r, c, total, dc, dtotal)

    one, zero = full_like(a, 1), full_like(a, 0)
    _, _, total, _, dtotal = _loop(step, enabled, (a, one, one, zero, zero))
    if mode == _VALUE:
        return div(mul(total, ax), a)
    dlogax = sub(log(x), digamma(add(a, 1.0)))
    if mode == _DERIVATIVE:
        return div(mul(ax, add(mul(total, dlogax), dtotal)), a)
    return div(mul(neg(add(dtotal, mul(total, dlogax))), x), a)


def _igammac_fraction(ax, x, a, enabled, mode):
    """``Q(a, x)`` (or its derivatives) by the continued fraction, for ``enabled`` ones.

    The recurrences ``p_k, q_k`` (and, for the derivative modes only, their derivatives in
    ``a``) are carried two deep; the value mode carries no derivative (a smaller loop body
    compiles several times faster)."""
    eps = _eps(x)
    big = 1 / eps
    value_mode = mode == _VALUE

    def step(values):
        total, y, z, c, pkm1, qkm1, pkm2, qkm2, *derivatives = values
        c = add(c, 1.0)
        y = add(y, 1.0)
        z = add(z, 2.0)
        yc = mul(y, c)
        pk = sub(mul(pkm1, z), mul(pkm2, yc))
        qk = sub(mul(qkm1, z), mul(qkm2, yc))
        nonzero = ne(qk, 0.0)
        safe_qk = select(nonzero, qk, full_like(qk, 1.0))
        ratio = div(pk, safe_qk)
        change = select(nonzero, absolute(div(sub(total, ratio), ratio)), full_like(ratio, 1.0))
        total = select(nonzero, ratio, total)
        # Rescale the recurrences before they overflow (only their ratio matters).
        rescale = gt(absolute(pk), big)
        scale = select(rescale, full_like(pk, eps), full_like(pk, 1.0))
        if value_mode:
            return gt(change, eps), (total, y, z, c, mul(pk, scale), mul(qk, scale),
                                     mul(pkm1, scale), mul(qkm1, scale))
        dpkm2, dqkm2, dpkm1, dqkm1, dtotal = derivatives
        dpk = add(sub(sub(mul(dpkm1, z), pkm1), mul(dpkm2, yc)), mul(pkm2, c))
        dqk = add(sub(sub(mul(dqkm1, z), qkm1), mul(dqkm2, yc)), mul(qkm2, c))
        new_dtotal = select(nonzero, div(sub(dpk, mul(total, dqk)), safe_qk), dtotal)
        dchange = select(nonzero, absolute(sub(new_dtotal, dtotal)), full_like(dtotal, 1.0))
        return gt(dchange, eps), (total, y, z, c, mul(pk, scale), mul(qk, scale),
                                  mul(pkm1, scale), mul(qkm1, scale), mul(dpkm1, scale),
                                  mul(dqkm1, scale), mul(dpk, scale), mul(dqk, scale),
                                  new_dtotal)

    y = sub(1.0, a)
    z = add(add(x, y), 1.0)
    pkm1 = add(x, 1.0)
    qkm1 = mul(z, x)
    total = div(pkm1, qkm1)
    zero = full_like(x, 0)
    state = [total, y, z, zero, pkm1, qkm1, full_like(x, 1), x]
    if not value_mode:
        dqkm1 = neg(x)
        state += [zero, zero, zero, dqkm1, div(neg(mul(total, dqkm1)), qkm1)]
    out = _loop(step, enabled, state)
    total = out[0]
    if value_mode:
        return mul(total, ax)
    dtotal = out[-1]
    dlogax = sub(log(x), digamma(a))
    if mode == _DERIVATIVE:
        return mul(ax, add(mul(total, dlogax), dtotal))
    return mul(neg(add(dtotal, mul(total, dlogax))), x)


def _log_ax(a, x):
    """``(x^a e^-x / Gamma(a), underflow)``, where underflow marks the negligible ones."""
    log_ax = sub(sub(mul(a, log(x)), x), lgamma(a))
    underflow = lt(log_ax, -float(np.log(dtypes.finfo(x.dtype).max)))
    return exp(log_ax), underflow


@in_float32
def _igamma_value(a, x):
    is_nan = bitwise_or(_is_nan(a), _is_nan(x))
    x_inf = eq(x, np.inf)
    x_zero = eq(x, 0.0)
    domain_error = _any(lt(x, 0.0), lt(a, 0.0), bitwise_and(eq(a, 0.0), x_zero), is_nan)
    use_fraction = bitwise_and(ge(x, 1.0), gt(x, a))
    ax, underflow = _log_ax(a, x)
    enabled = bitwise_not(_any(x_zero, domain_error, underflow, x_inf))
    out = select(use_fraction,
                 sub(1.0, _igammac_fraction(ax, x, a, bitwise_and(enabled, use_fraction),
                                            _VALUE)),
                 _igamma_series(ax, x, a, bitwise_and(enabled, bitwise_not(use_fraction)),
                                _VALUE))
    out = select(x_zero, full_like(out, 0), out)
    out = select(x_inf, full_like(out, 1), out)
    return select(domain_error, full_like(out, np.nan), out)


@in_float32
def _igammac_value(a, x):
    is_nan = bitwise_or(_is_nan(a), _is_nan(x))
    x_inf = eq(x, np.inf)
    a_zero = eq(a, 0.0)
    domain_error = _any(lt(x, 0.0), lt(a, 0.0), bitwise_and(a_zero, eq(x, 0.0)), is_nan)
    use_series = bitwise_or(lt(x, 1.0), lt(x, a))
    ax, underflow = _log_ax(a, x)
    enabled = bitwise_not(_any(domain_error, underflow, x_inf, a_zero))
    out = select(use_series,
                 sub(1.0, _igamma_series(ax, x, a, bitwise_and(enabled, use_series), _VALUE)),
                 _igammac_fraction(ax, x, a, bitwise_and(enabled, bitwise_not(use_series)),
                                   _VALUE))
    out = select(bitwise_or(x_inf, a_zero), full_like(out, 0), out)
    return select(domain_error, full_like(out, np.nan), out)


def _igamma_derivative(a, x, mode):
    """``igamma_grad_a`` (mode _DERIVATIVE) or ``random_gamma_grad`` (_SAMPLE_DERIVATIVE)."""
    is_nan = bitwise_or(_is_nan(a), _is_nan(x))
    x_zero = eq(x, 0.0)
    domain_error = bitwise_or(lt(x, 0.0), le(a, 0.0))
    use_fraction = bitwise_and(gt(x, 1.0), gt(x, a))
    ax, underflow = _log_ax(a, x)
    enabled = bitwise_not(_any(x_zero, domain_error, underflow, is_nan))
    out = select(use_fraction,
                 neg(_igammac_fraction(ax, x, a, bitwise_and(enabled, use_fraction), mode)),
                 _igamma_series(ax, x, a, bitwise_and(enabled, bitwise_not(use_fraction)),
                                mode))
    out = select(x_zero, full_like(out, 0), out)
    return select(bitwise_or(domain_error, is_nan), full_like(out, np.nan), out)


@in_float32
def igamma_grad_a_impl(a: ArrayLike, x: ArrayLike) -> Array:
    """The derivative of ``igamma(a, x)`` in ``a`` (``lax.igamma_grad_a`` after its checks)."""
    return _igamma_derivative(a, x, _DERIVATIVE)


@in_float32
def random_gamma_grad_impl(a: ArrayLike, x: ArrayLike) -> Array:
    """The derivative of a Gamma(a, 1) sample ``x`` in ``a`` (``lax.random_gamma_grad``
    after its checks)."""
    return _igamma_derivative(a, x, _SAMPLE_DERIVATIVE)


def _igamma_dx(a, x):
    return exp(sub(add(neg(x), mul(sub(a, 1.0), log(x))), lgamma(a)))


@custom_jvp
def igamma_impl(a: ArrayLike, x: ArrayLike) -> Array:
    """``P(a, x)`` (``lax.igamma`` after its checks)."""
    return _igamma_value(a, x)


def _igamma_jvp(primals, tangents):
    (a, x), (ta, tx) = primals, tangents
    return igamma_impl(a, x), add(mul(ta, igamma_grad_a_impl(a, x)), mul(tx, _igamma_dx(a, x)))


igamma_impl.defjvp(_igamma_jvp)


@custom_jvp
def igammac_impl(a: ArrayLike, x: ArrayLike) -> Array:
    """``Q(a, x) = 1 - P(a, x)`` (``lax.igammac`` after its checks)."""
    return _igammac_value(a, x)


def _igammac_jvp(primals, tangents):
    (a, x), (ta, tx) = primals, tangents
    return igammac_impl(a, x), neg(add(mul(ta, igamma_grad_a_impl(a, x)),
                                       mul(tx, _igamma_dx(a, x))))


igammac_impl.defjvp(_igammac_jvp)


# --- betainc ---------------------------------------------------------------------------------

def _beta_fraction(a, b, x, enabled):
    """The continued fraction of ``I_x(a, b) a B(a, b) / (x^a (1-x)^b)`` (modified Lentz),
    two partial fractions (an even and an odd one) per iteration."""
    tiny = float(dtypes.finfo(x.dtype).tiny) * 1e3
    eps = _eps(x)

    def clamp(v):
        return select(lt(absolute(v), tiny), full_like(v, tiny), v)

    def step(values):
        m, c, d, h = values
        m = add(m, 1.0)
        two_m = mul(2.0, m)
        even = div(mul(mul(m, sub(b, m)), x), mul(sub(add(a, two_m), 1.0), add(a, two_m)))
        d = div(1.0, clamp(add(1.0, mul(even, d))))
        c = clamp(add(1.0, div(even, c)))
        h = mul(mul(h, d), c)
        odd = div(mul(mul(neg(add(a, m)), add(add(a, b), m)), x),
                  mul(add(a, two_m), add(add(a, two_m), 1.0)))
        d = div(1.0, clamp(add(1.0, mul(odd, d))))
        c = clamp(add(1.0, div(odd, c)))
        delta = mul(d, c)
        h = mul(h, delta)
        return gt(absolute(sub(delta, 1.0)), eps), (m, c, d, h)

    d = div(1.0, clamp(sub(1.0, div(mul(add(a, b), x), add(a, 1.0)))))
    state = (full_like(x, 0), full_like(x, 1), d, d)
    return _loop(step, enabled, state)[3]


@in_float32
def _betainc_value(a, b, x):
    a_zero = bitwise_or(eq(a, 0.0), eq(b, np.inf))
    b_zero = bitwise_or(eq(b, 0.0), eq(a, np.inf))
    x_zero, x_one = eq(x, 0.0), eq(x, 1.0)
    is_nan = _any(_is_nan(a), _is_nan(b), _is_nan(x))
    zero_result = bitwise_or(bitwise_and(b_zero, bitwise_not(x_one)), bitwise_and(a_zero, x_zero))
    one_result = bitwise_or(bitwise_and(a_zero, bitwise_not(x_zero)), bitwise_and(b_zero, x_one))
    nan_result = _any(lt(a, 0.0), lt(b, 0.0), lt(x, 0.0), gt(x, 1.0), bitwise_and(a_zero, b_zero),
                      is_nan)
    special = _any(zero_result, one_result, nan_result)
    # The fraction converges fast below (a + 1) / (a + b + 2); beyond, use the symmetry
    # I_x(a, b) = 1 - I_{1-x}(b, a).
    direct = lt(x, div(add(a, 1.0), add(add(a, b), 2.0)))
    aa = select(direct, a, b)
    bb = select(direct, b, a)
    xx = select(direct, x, sub(1.0, x))
    # Harmless values in the special lanes keep the loop and logs finite there.
    aa = select(special, full_like(aa, 1), aa)
    bb = select(special, full_like(bb, 1), bb)
    xx = select(_any(special, le(xx, 0.0), ge(xx, 1.0)), full_like(xx, 0.5), xx)
    fraction = _beta_fraction(aa, bb, xx, bitwise_not(special))
    very_small = float(dtypes.finfo(x.dtype).tiny) * 2
    # For tiny a, a B(a, b) -> Gamma(b) / Gamma(a + b) * Gamma(a + 1) ~ that ratio.
    factor = select(
        lt(aa, very_small),
        exp(sub(mul(bb, log1p(neg(xx))), sub(lgamma(bb), lgamma(add(aa, bb))))),
        div(exp(sub(add(mul(aa, log(xx)), mul(bb, log1p(neg(xx)))), log_beta(aa, bb))), aa))
    out = mul(fraction, factor)
    out = select(direct, out, sub(1.0, out))
    out = select(bitwise_or(zero_result, x_zero), full_like(out, 0), out)
    out = select(x_one, full_like(out, 1), out)
    out = select(one_result, full_like(out, 1), out)
    return select(nan_result, full_like(out, np.nan), out)


@custom_jvp
def betainc_impl(a: ArrayLike, b: ArrayLike, x: ArrayLike) -> Array:
    """``I_x(a, b)`` (``lax.betainc`` after its checks)."""
    return _betainc_value(a, b, x)


def _betainc_jvp(primals, tangents):
    (a, b, x), (ta, tb, tx) = primals, tangents
    if not (isinstance(ta, SymbolicZero) and isinstance(tb, SymbolicZero)):
        raise ValueError("betainc: the derivative with respect to a and b is not supported "
                         "(as in JAX); differentiate with respect to x only")
    out = betainc_impl(a, b, x)
    if isinstance(tx, SymbolicZero):
        return out, SymbolicZero(out.aval) if hasattr(out, "aval") else full_like(out, 0)
    dx = exp(sub(add(mul(sub(b, 1.0), log1p(neg(x))), mul(sub(a, 1.0), log(x))),
                 log_beta(a, b)))
    return out, mul(tx, dx)


betainc_impl.defjvp(_betainc_jvp, symbolic_zeros=True)
