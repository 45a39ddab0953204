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
from funcarray.lax._ops_binary import (
    add,
    bitwise_and,
    bitwise_or,
    eq,
    gt,
    le,
    lt,
    mul,
    select,
    sub,
)
from funcarray.lax._ops_shape import full_like
from funcarray.lax._ops_unary import bitwise_not, exp, lgamma, log, log1p, neg
from funcarray.lax._special_dtypes import in_float32
from funcarray.lax._special_gamma import log_beta
from funcarray.lax._special_host_ops import LAX_OPS, SCALAR_OPS, select_lazily

if TYPE_CHECKING:
    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike

__all__ = ["igamma_impl", "igammac_impl", "igamma_grad_a_impl", "random_gamma_grad_impl",
           "betainc_impl"]

_MAX_ITERATIONS = 2000
_VALUE, _DERIVATIVE, _SAMPLE_DERIVATIVE = "value", "derivative", "sample_derivative"


def _any(*masks, ops=LAX_OPS):
    """The elementwise or of boolean arrays, left to right."""
    return functools.reduce(ops.bitwise_or, masks)


def _is_nan(x, ops=LAX_OPS):
    return ops.ne(x, x)


@functools.cache
def _limits(dtype) -> tuple[float, float, float]:
    """``(eps, log(max), tiny)`` of a float dtype, derived once per dtype (finfo is slow)."""
    info = dtypes.finfo(dtype)
    return float(info.eps), float(np.log(info.max)), float(info.tiny)


def _eps(x) -> float:
    return _limits(x.dtype)[0]


def _loop(step, enabled, state, ops):
    """Run ``step(state) -> (still_active, new_state)`` while any element is active; an
    element's state freezes once it is inactive."""
    if ops is SCALAR_OPS:
        return _loop_of_one_element(step, enabled, state)

    def cond(carry):
        active, count, _ = carry
        return ops.bitwise_and(ops.reduce_or(active, tuple(range(active.ndim))),
                               ops.lt(count, _MAX_ITERATIONS))

    def body(carry):
        active, count, values = carry
        keep_going, new_values = step(values)
        return (ops.bitwise_and(active, keep_going), ops.add(count, 1),
                tuple(ops.select(active, n, o) for n, o in zip(new_values, values)))

    return ops.while_loop(cond, body, (enabled, ops.full((), 0, np.int32), tuple(state)))[2]


def _loop_of_one_element(step, enabled, state):
    """``_loop`` of one element (NumPy scalars): the steps while it is active, without the
    selects that freeze the inactive elements of an array (it has no other element)."""
    state = tuple(state)
    if not enabled:
        return state
    for _ in range(_MAX_ITERATIONS):
        keep_going, state = step(state)
        if not keep_going:
            break
    return state


def _igamma_series(ax, x, a, enabled, mode, ops=LAX_OPS):
    """``P(a, x)`` (or its derivatives) by the power series, for the ``enabled`` elements."""
    eps = _eps(x)

    def step(values):
        r, c, total, dc, dtotal = values
        r = ops.add(r, 1.0)
        dc = ops.sub(ops.mul(dc, ops.div(x, r)), ops.div(ops.mul(c, x), ops.mul(r, r)))
        dtotal = ops.add(dtotal, dc)
        c = ops.mul(c, ops.div(x, r))
        total = ops.add(total, c)
        if mode == _VALUE:
            going = ops.gt(ops.div(c, total), eps)
        else:
            going = ops.gt(ops.abs(ops.div(dc, dtotal)), eps)
        return going, (r, c, total, dc, dtotal)

    one, zero = ops.full_like(a, 1), ops.full_like(a, 0)
    _, _, total, _, dtotal = _loop(step, enabled, (a, one, one, zero, zero), ops)
    if mode == _VALUE:
        return ops.div(ops.mul(total, ax), a)
    dlogax = ops.sub(ops.log(x), ops.digamma(ops.add(a, 1.0)))
    if mode == _DERIVATIVE:
        return ops.div(ops.mul(ax, ops.add(ops.mul(total, dlogax), dtotal)), a)
    return ops.div(ops.mul(ops.neg(ops.add(dtotal, ops.mul(total, dlogax))), x), a)


def _igammac_fraction(ax, x, a, enabled, mode, ops=LAX_OPS):
    """``Q(a, x)`` (or its derivatives) by the continued fraction, for ``enabled`` ones.

    The recurrences ``p_k, q_k`` (and, for the derivative modes only, their derivatives in
    ``a``) are carried two deep; the value mode carries no derivative (a smaller loop body
    compiles several times faster)."""
    eps = _eps(x)
    big = 1 / eps
    value_mode = mode == _VALUE

    def step(values):
        total, y, z, c, pkm1, qkm1, pkm2, qkm2, *derivatives = values
        c = ops.add(c, 1.0)
        y = ops.add(y, 1.0)
        z = ops.add(z, 2.0)
        yc = ops.mul(y, c)
        pk = ops.sub(ops.mul(pkm1, z), ops.mul(pkm2, yc))
        qk = ops.sub(ops.mul(qkm1, z), ops.mul(qkm2, yc))
        nonzero = ops.ne(qk, 0.0)
        safe_qk = ops.select(nonzero, qk, ops.full_like(qk, 1.0))
        ratio = ops.div(pk, safe_qk)
        change = ops.select(nonzero, ops.abs(ops.div(ops.sub(total, ratio), ratio)),
                            ops.full_like(ratio, 1.0))
        total = ops.select(nonzero, ratio, total)
        # Rescale the recurrences before they overflow (only their ratio matters).
        rescale = ops.gt(ops.abs(pk), big)
        scale = ops.select(rescale, ops.full_like(pk, eps), ops.full_like(pk, 1.0))
        if value_mode:
            return ops.gt(change, eps), (total, y, z, c, ops.mul(pk, scale),
                                         ops.mul(qk, scale), ops.mul(pkm1, scale),
                                         ops.mul(qkm1, scale))
        dpkm2, dqkm2, dpkm1, dqkm1, dtotal = derivatives
        dpk = ops.add(ops.sub(ops.sub(ops.mul(dpkm1, z), pkm1), ops.mul(dpkm2, yc)),
                      ops.mul(pkm2, c))
        dqk = ops.add(ops.sub(ops.sub(ops.mul(dqkm1, z), qkm1), ops.mul(dqkm2, yc)),
                      ops.mul(qkm2, c))
        new_dtotal = ops.select(nonzero, ops.div(ops.sub(dpk, ops.mul(total, dqk)), safe_qk),
                                dtotal)
        dchange = ops.select(nonzero, ops.abs(ops.sub(new_dtotal, dtotal)),
                             ops.full_like(dtotal, 1.0))
        return ops.gt(dchange, eps), (total, y, z, c, ops.mul(pk, scale), ops.mul(qk, scale),
                                      ops.mul(pkm1, scale), ops.mul(qkm1, scale),
                                      ops.mul(dpkm1, scale), ops.mul(dqkm1, scale),
                                      ops.mul(dpk, scale), ops.mul(dqk, scale), new_dtotal)

    y = ops.sub(1.0, a)
    z = ops.add(ops.add(x, y), 1.0)
    pkm1 = ops.add(x, 1.0)
    qkm1 = ops.mul(z, x)
    total = ops.div(pkm1, qkm1)
    zero = ops.full_like(x, 0)
    state = [total, y, z, zero, pkm1, qkm1, ops.full_like(x, 1), x]
    if not value_mode:
        dqkm1 = ops.neg(x)
        state += [zero, zero, zero, dqkm1, ops.div(ops.neg(ops.mul(total, dqkm1)), qkm1)]
    out = _loop(step, enabled, state, ops)
    total = out[0]
    if value_mode:
        return ops.mul(total, ax)
    dtotal = out[-1]
    dlogax = ops.sub(ops.log(x), ops.digamma(a))
    if mode == _DERIVATIVE:
        return ops.mul(ax, ops.add(ops.mul(total, dlogax), dtotal))
    return ops.mul(ops.neg(ops.add(dtotal, ops.mul(total, dlogax))), x)


def _log_ax(a, x, ops=LAX_OPS):
    """``(x^a e^-x / Gamma(a), underflow)``, where underflow marks the negligible ones."""
    log_ax = ops.sub(ops.sub(ops.mul(a, ops.log(x)), x), ops.lgamma(a))
    underflow = ops.lt(log_ax, -_limits(x.dtype)[1])
    return ops.exp(log_ax), underflow


def igamma_formula(a, x, ops=LAX_OPS):
    """``P(a, x)`` of float32 or float64 arrays of one shape, computed with ``ops``
    (``_special_host_ops``: lax's operations, or their kernels on NumPy)."""
    is_nan = ops.bitwise_or(_is_nan(a, ops), _is_nan(x, ops))
    x_inf = ops.eq(x, np.inf)
    x_zero = ops.eq(x, 0.0)
    domain_error = _any(ops.lt(x, 0.0), ops.lt(a, 0.0), ops.bitwise_and(ops.eq(a, 0.0), x_zero),
                        is_nan, ops=ops)
    use_fraction = ops.bitwise_and(ops.ge(x, 1.0), ops.gt(x, a))
    ax, underflow = _log_ax(a, x, ops)
    enabled = ops.bitwise_not(_any(x_zero, domain_error, underflow, x_inf, ops=ops))
    fraction_on = ops.bitwise_and(enabled, use_fraction)
    series_on = ops.bitwise_and(enabled, ops.bitwise_not(use_fraction))
    out = select_lazily(
        ops, use_fraction,
        lambda: ops.sub(1.0, _igammac_fraction(ax, x, a, fraction_on, _VALUE, ops)),
        lambda: _igamma_series(ax, x, a, series_on, _VALUE, ops))
    out = ops.select(x_zero, ops.full_like(out, 0), out)
    out = ops.select(x_inf, ops.full_like(out, 1), out)
    return ops.select(domain_error, ops.full_like(out, np.nan), out)


def igammac_formula(a, x, ops=LAX_OPS):
    """``Q(a, x) = 1 - P(a, x)`` of float32 or float64 arrays of one shape, computed with
    ``ops`` (as ``igamma_formula``)."""
    is_nan = ops.bitwise_or(_is_nan(a, ops), _is_nan(x, ops))
    x_inf = ops.eq(x, np.inf)
    a_zero = ops.eq(a, 0.0)
    domain_error = _any(ops.lt(x, 0.0), ops.lt(a, 0.0), ops.bitwise_and(a_zero, ops.eq(x, 0.0)),
                        is_nan, ops=ops)
    use_series = ops.bitwise_or(ops.lt(x, 1.0), ops.lt(x, a))
    ax, underflow = _log_ax(a, x, ops)
    enabled = ops.bitwise_not(_any(domain_error, underflow, x_inf, a_zero, ops=ops))
    series_on = ops.bitwise_and(enabled, use_series)
    fraction_on = ops.bitwise_and(enabled, ops.bitwise_not(use_series))
    out = select_lazily(
        ops, use_series,
        lambda: ops.sub(1.0, _igamma_series(ax, x, a, series_on, _VALUE, ops)),
        lambda: _igammac_fraction(ax, x, a, fraction_on, _VALUE, ops))
    out = ops.select(ops.bitwise_or(x_inf, a_zero), ops.full_like(out, 0), out)
    return ops.select(domain_error, ops.full_like(out, np.nan), out)


_igamma_value = in_float32(igamma_formula)
_igammac_value = in_float32(igammac_formula)


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

def _beta_fraction(a, b, x, enabled, ops):
    """The continued fraction of ``I_x(a, b) a B(a, b) / (x^a (1-x)^b)`` (modified Lentz),
    two partial fractions (an even and an odd one) per iteration."""
    tiny = _limits(x.dtype)[2] * 1e3
    eps = _eps(x)

    def clamp(v):
        return ops.select(ops.lt(ops.abs(v), tiny), ops.full_like(v, tiny), v)

    def step(values):
        m, c, d, h = values
        m = ops.add(m, 1.0)
        two_m = ops.mul(2.0, m)
        even = ops.div(ops.mul(ops.mul(m, ops.sub(b, m)), x),
                       ops.mul(ops.sub(ops.add(a, two_m), 1.0), ops.add(a, two_m)))
        d = ops.div(1.0, clamp(ops.add(1.0, ops.mul(even, d))))
        c = clamp(ops.add(1.0, ops.div(even, c)))
        h = ops.mul(ops.mul(h, d), c)
        odd = ops.div(ops.mul(ops.mul(ops.neg(ops.add(a, m)), ops.add(ops.add(a, b), m)), x),
                      ops.mul(ops.add(a, two_m), ops.add(ops.add(a, two_m), 1.0)))
        d = ops.div(1.0, clamp(ops.add(1.0, ops.mul(odd, d))))
        c = clamp(ops.add(1.0, ops.div(odd, c)))
        delta = ops.mul(d, c)
        h = ops.mul(h, delta)
        return ops.gt(ops.abs(ops.sub(delta, 1.0)), eps), (m, c, d, h)

    d = ops.div(1.0, clamp(ops.sub(1.0, ops.div(ops.mul(ops.add(a, b), x), ops.add(a, 1.0)))))
    state = (ops.full_like(x, 0), ops.full_like(x, 1), d, d)
    return _loop(step, enabled, state, ops)[3]


def betainc_formula(a, b, x, ops=LAX_OPS):
    """``I_x(a, b)`` of float32 or float64 arrays of one shape, computed with ``ops``
    (``_special_host_ops``: lax's operations, or their kernels on NumPy)."""
    a_zero = ops.bitwise_or(ops.eq(a, 0.0), ops.eq(b, np.inf))
    b_zero = ops.bitwise_or(ops.eq(b, 0.0), ops.eq(a, np.inf))
    x_zero, x_one = ops.eq(x, 0.0), ops.eq(x, 1.0)
    is_nan = _any(_is_nan(a, ops), _is_nan(b, ops), _is_nan(x, ops), ops=ops)
    zero_result = ops.bitwise_or(ops.bitwise_and(b_zero, ops.bitwise_not(x_one)),
                                 ops.bitwise_and(a_zero, x_zero))
    one_result = ops.bitwise_or(ops.bitwise_and(a_zero, ops.bitwise_not(x_zero)),
                                ops.bitwise_and(b_zero, x_one))
    nan_result = _any(ops.lt(a, 0.0), ops.lt(b, 0.0), ops.lt(x, 0.0), ops.gt(x, 1.0),
                      ops.bitwise_and(a_zero, b_zero), is_nan, ops=ops)
    special = _any(zero_result, one_result, nan_result, ops=ops)
    # The fraction converges fast below (a + 1) / (a + b + 2); beyond, use the symmetry
    # I_x(a, b) = 1 - I_{1-x}(b, a).
    direct = ops.lt(x, ops.div(ops.add(a, 1.0), ops.add(ops.add(a, b), 2.0)))
    aa = ops.select(direct, a, b)
    bb = ops.select(direct, b, a)
    xx = ops.select(direct, x, ops.sub(1.0, x))
    # Harmless values in the special lanes keep the loop and logs finite there.
    aa = ops.select(special, ops.full_like(aa, 1), aa)
    bb = ops.select(special, ops.full_like(bb, 1), bb)
    xx = ops.select(_any(special, ops.le(xx, 0.0), ops.ge(xx, 1.0), ops=ops),
                    ops.full_like(xx, 0.5), xx)
    fraction = _beta_fraction(aa, bb, xx, ops.bitwise_not(special), ops)
    very_small = _limits(x.dtype)[2] * 2
    # For tiny a, a B(a, b) -> Gamma(b) / Gamma(a + b) * Gamma(a + 1) ~ that ratio.
    log_1mx = ops.log1p(ops.neg(xx))
    factor = select_lazily(
        ops, ops.lt(aa, very_small),
        lambda: ops.exp(ops.sub(ops.mul(bb, log_1mx),
                                ops.sub(ops.lgamma(bb), ops.lgamma(ops.add(aa, bb))))),
        lambda: ops.div(ops.exp(ops.sub(ops.add(ops.mul(aa, ops.log(xx)), ops.mul(bb, log_1mx)),
                                        log_beta(aa, bb, ops))), aa))
    out = ops.mul(fraction, factor)
    out = ops.select(direct, out, ops.sub(1.0, out))
    out = ops.select(ops.bitwise_or(zero_result, x_zero), ops.full_like(out, 0), out)
    out = ops.select(x_one, ops.full_like(out, 1), out)
    out = ops.select(one_result, ops.full_like(out, 1), out)
    return ops.select(nan_result, ops.full_like(out, np.nan), out)


_betainc_value = in_float32(betainc_formula)


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
