"""Regularized incomplete gamma and beta functions: ``gammainc``, ``gammaincc``,
``betainc`` (scipy names) and the implementations behind jax.lax's ``igamma``, ``igammac``,
``igamma_grad_a``, ``random_gamma_grad`` and ``betainc`` (``funcarray/lax/_special.py``).

The algorithms are the classical ones XLA uses too, written as ``funcarray.lax.while_loop``
compositions over whole arrays (each element stops updating once converged; the loop ends
when all have, or after a cap), so they run eagerly and under jit and vmap:

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
raise, as in JAX. float16/bfloat16 compute in float32.
"""

from __future__ import annotations

import numpy as np

from funcarray import numpy as fnp
from funcarray.api.custom_derivatives import SymbolicZero, custom_jvp
from funcarray.base.errors import api_boundary
from funcarray.primitives.special import digamma_p, lgamma_p
from funcarray.scipy._special_arguments import finfo, float_args, weak_result
from funcarray.scipy._special_gamma import _betaln

__all__ = ["gammainc", "gammaincc", "betainc"]

_MAX_ITERATIONS = 2000
_VALUE, _DERIVATIVE, _SAMPLE_DERIVATIVE = "value", "derivative", "sample_derivative"


def _while(cond, body, init):
    from funcarray import lax  # funcarray.lax imports this package's modules: import late

    return lax.while_loop(cond, body, init)


def _select_all(mask, new, old):
    return tuple(fnp.where(mask, n, o) for n, o in zip(new, old))


def _loop(step, enabled, state):
    """Run ``step(state) -> (still_active, new_state)`` while any element is active; an
    element's state freezes once it is inactive."""
    def cond(carry):
        active, count, _ = carry
        return fnp.any(active) & (count < _MAX_ITERATIONS)

    def body(carry):
        active, count, values = carry
        keep_going, new_values = step(values)
        return active & keep_going, count + 1, _select_all(active, new_values, values)

    return _while(cond, body, (enabled, fnp.asarray(0, "int32"), tuple(state)))[2]


def _igamma_series(ax, x, a, enabled, mode):
    """``P(a, x)`` (or its derivatives) by the power series, for the ``enabled`` elements."""
    eps = float(finfo(x).eps)

    def step(values):
        r, c, total, dc, dtotal = values
        r = r + 1
        dc = dc * (x / r) - (c * x) / (r * r)
        dtotal = dtotal + dc
        c = c * (x / r)
        total = total + c
        if mode == _VALUE:
            going = c / total > eps
        else:
            going = fnp.abs(dc / dtotal) > eps
        return going, (r, c, total, dc, dtotal)

    one, zero = fnp.ones_like(a), fnp.zeros_like(a)
    _, _, total, _, dtotal = _loop(step, enabled, (a, one, one, zero, zero))
    if mode == _VALUE:
        return total * ax / a
    dlogax = fnp.log(x) - digamma_p.bind(a + 1)
    if mode == _DERIVATIVE:
        return ax * (total * dlogax + dtotal) / a
    return -(dtotal + total * dlogax) * x / a


def _igammac_fraction(ax, x, a, enabled, mode):
    """``Q(a, x)`` (or its derivatives) by the continued fraction, for ``enabled`` ones.

    The recurrences ``p_k, q_k`` (and, for the derivative modes only, their derivatives in
    ``a``) are carried two deep; the value mode carries no derivative (a smaller loop body
    compiles several times faster)."""
    eps = float(finfo(x).eps)
    big = 1 / eps
    value_mode = mode == _VALUE

    def step(values):
        total, y, z, c, pkm1, qkm1, pkm2, qkm2, *derivatives = values
        c = c + 1
        y = y + 1
        z = z + 2
        yc = y * c
        pk = pkm1 * z - pkm2 * yc
        qk = qkm1 * z - qkm2 * yc
        nonzero = qk != 0
        safe_qk = fnp.where(nonzero, qk, 1.0)
        ratio = pk / safe_qk
        change = fnp.where(nonzero, fnp.abs((total - ratio) / ratio), 1.0)
        total = fnp.where(nonzero, ratio, total)
        # Rescale the recurrences before they overflow (only their ratio matters).
        rescale = fnp.abs(pk) > big
        scale = fnp.where(rescale, eps, 1.0)
        if value_mode:
            return change > eps, (total, y, z, c, pk * scale, qk * scale, pkm1 * scale,
                                  qkm1 * scale)
        dpkm2, dqkm2, dpkm1, dqkm1, dtotal = derivatives
        dpk = dpkm1 * z - pkm1 - dpkm2 * yc + pkm2 * c
        dqk = dqkm1 * z - qkm1 - dqkm2 * yc + qkm2 * c
        new_dtotal = fnp.where(nonzero, (dpk - total * dqk) / safe_qk, dtotal)
        dchange = fnp.where(nonzero, fnp.abs(new_dtotal - dtotal), 1.0)
        return dchange > eps, (total, y, z, c, pk * scale, qk * scale, pkm1 * scale,
                               qkm1 * scale, dpkm1 * scale, dqkm1 * scale, dpk * scale,
                               dqk * scale, new_dtotal)

    y = 1 - a
    z = x + y + 1
    pkm1 = x + 1
    qkm1 = z * x
    total = pkm1 / qkm1
    zero = fnp.zeros_like(x)
    state = [total, y, z, zero, pkm1, qkm1, fnp.ones_like(x), x]
    if not value_mode:
        dqkm1 = -x
        state += [zero, zero, zero, dqkm1, -(total * dqkm1) / qkm1]
    out = _loop(step, enabled, state)
    total = out[0]
    if value_mode:
        return total * ax
    dtotal = out[-1]
    dlogax = fnp.log(x) - digamma_p.bind(a)
    if mode == _DERIVATIVE:
        return ax * (total * dlogax + dtotal)
    return -(dtotal + total * dlogax) * x


def _log_ax(a, x):
    """``(x^a e^-x / Gamma(a), underflow)``, where underflow marks the negligible ones."""
    log_ax = a * fnp.log(x) - x - lgamma_p.bind(a)
    underflow = log_ax < -float(np.log(finfo(x).max))
    return fnp.exp(log_ax), underflow


def _nan_like(x):
    return fnp.full_like(x, np.nan)


def _igamma_value(a, x):
    is_nan = fnp.isnan(a) | fnp.isnan(x)
    x_inf = x == np.inf
    x_zero = x == 0
    domain_error = (x < 0) | (a < 0) | ((a == 0) & x_zero) | is_nan
    use_fraction = (x >= 1) & (x > a)
    ax, underflow = _log_ax(a, x)
    enabled = ~(x_zero | domain_error | underflow | x_inf)
    out = fnp.where(use_fraction,
                    1 - _igammac_fraction(ax, x, a, enabled & use_fraction, _VALUE),
                    _igamma_series(ax, x, a, enabled & ~use_fraction, _VALUE))
    out = fnp.where(x_zero, fnp.zeros_like(out), out)
    out = fnp.where(x_inf, fnp.ones_like(out), out)
    return fnp.where(domain_error, _nan_like(out), out)


def _igammac_value(a, x):
    is_nan = fnp.isnan(a) | fnp.isnan(x)
    x_inf = x == np.inf
    a_zero = a == 0
    domain_error = (x < 0) | (a < 0) | (a_zero & (x == 0)) | is_nan
    use_series = (x < 1) | (x < a)
    ax, underflow = _log_ax(a, x)
    enabled = ~(domain_error | underflow | x_inf | a_zero)
    out = fnp.where(use_series,
                    1 - _igamma_series(ax, x, a, enabled & use_series, _VALUE),
                    _igammac_fraction(ax, x, a, enabled & ~use_series, _VALUE))
    out = fnp.where(x_inf | a_zero, fnp.zeros_like(out), out)
    return fnp.where(domain_error, _nan_like(out), out)


def _igamma_derivative(a, x, mode):
    """``igamma_grad_a`` (mode _DERIVATIVE) or ``random_gamma_grad`` (_SAMPLE_DERIVATIVE)."""
    is_nan = fnp.isnan(a) | fnp.isnan(x)
    x_zero = x == 0
    domain_error = (x < 0) | (a <= 0)
    use_fraction = (x > 1) & (x > a)
    ax, underflow = _log_ax(a, x)
    enabled = ~(x_zero | domain_error | underflow | is_nan)
    out = fnp.where(use_fraction,
                    -_igammac_fraction(ax, x, a, enabled & use_fraction, mode),
                    _igamma_series(ax, x, a, enabled & ~use_fraction, mode))
    out = fnp.where(x_zero, fnp.zeros_like(out), out)
    return fnp.where(domain_error | is_nan, _nan_like(out), out)


def _upcast(fn):
    """Compute float16/bfloat16 in float32, as XLA does."""
    def wrapped(*args):
        dtype = args[0].dtype
        if np.dtype(dtype).itemsize < 4:
            return fn(*(x.astype(np.float32) for x in args)).astype(dtype)
        return fn(*args)
    wrapped.__name__ = fn.__name__
    return wrapped


igamma_grad_a_impl = _upcast(lambda a, x: _igamma_derivative(a, x, _DERIVATIVE))
random_gamma_grad_impl = _upcast(lambda a, x: _igamma_derivative(a, x, _SAMPLE_DERIVATIVE))


def _igamma_dx(a, x):
    return fnp.exp(-x + (a - 1) * fnp.log(x) - lgamma_p.bind(a))


@custom_jvp
def igamma_impl(a, x):
    return _upcast(_igamma_value)(a, x)


@igamma_impl.defjvp
def _igamma_jvp(primals, tangents):
    (a, x), (ta, tx) = primals, tangents
    return igamma_impl(a, x), ta * igamma_grad_a_impl(a, x) + tx * _igamma_dx(a, x)


@custom_jvp
def igammac_impl(a, x):
    return _upcast(_igammac_value)(a, x)


@igammac_impl.defjvp
def _igammac_jvp(primals, tangents):
    (a, x), (ta, tx) = primals, tangents
    return igammac_impl(a, x), -(ta * igamma_grad_a_impl(a, x) + tx * _igamma_dx(a, x))


# --- betainc ---------------------------------------------------------------------------------

def _beta_fraction(a, b, x, enabled):
    """The continued fraction of ``I_x(a, b) a B(a, b) / (x^a (1-x)^b)`` (modified Lentz),
    two partial fractions (an even and an odd one) per iteration."""
    tiny = float(finfo(x).tiny) * 1e3
    eps = float(finfo(x).eps)

    def clamp(v):
        return fnp.where(fnp.abs(v) < tiny, fnp.full_like(v, tiny), v)

    def step(values):
        m, c, d, h = values
        m = m + 1
        two_m = 2 * m
        even = m * (b - m) * x / ((a + two_m - 1) * (a + two_m))
        d = 1 / clamp(1 + even * d)
        c = clamp(1 + even / c)
        h = h * d * c
        odd = -(a + m) * (a + b + m) * x / ((a + two_m) * (a + two_m + 1))
        d = 1 / clamp(1 + odd * d)
        c = clamp(1 + odd / c)
        delta = d * c
        h = h * delta
        return fnp.abs(delta - 1) > eps, (m, c, d, h)

    d = 1 / clamp(1 - (a + b) * x / (a + 1))
    state = (fnp.zeros_like(x), fnp.ones_like(x), d, d)
    return _loop(step, enabled, state)[3]


def _betainc_value(a, b, x):
    a_zero = (a == 0) | (b == np.inf)
    b_zero = (b == 0) | (a == np.inf)
    x_zero, x_one = x == 0, x == 1
    is_nan = fnp.isnan(a) | fnp.isnan(b) | fnp.isnan(x)
    zero_result = (b_zero & ~x_one) | (a_zero & x_zero)
    one_result = (a_zero & ~x_zero) | (b_zero & x_one)
    nan_result = (a < 0) | (b < 0) | (x < 0) | (x > 1) | (a_zero & b_zero) | is_nan
    special = zero_result | one_result | nan_result
    # The fraction converges fast below (a + 1) / (a + b + 2); beyond, use the symmetry
    # I_x(a, b) = 1 - I_{1-x}(b, a).
    direct = x < (a + 1) / (a + b + 2)
    aa = fnp.where(direct, a, b)
    bb = fnp.where(direct, b, a)
    xx = fnp.where(direct, x, 1 - x)
    # Harmless values in the special lanes keep the loop and logs finite there.
    aa = fnp.where(special, fnp.ones_like(aa), aa)
    bb = fnp.where(special, fnp.ones_like(bb), bb)
    xx = fnp.where(special | (xx <= 0) | (xx >= 1), fnp.full_like(xx, 0.5), xx)
    fraction = _beta_fraction(aa, bb, xx, ~special)
    very_small = float(finfo(x).tiny) * 2
    # For tiny a, a B(a, b) -> Gamma(b) / Gamma(a + b) * Gamma(a + 1) ~ that ratio.
    factor = fnp.where(
        aa < very_small,
        fnp.exp(bb * fnp.log1p(-xx) - (lgamma_p.bind(bb) - lgamma_p.bind(aa + bb))),
        fnp.exp(aa * fnp.log(xx) + bb * fnp.log1p(-xx) - _betaln(aa, bb)) / aa)
    out = fraction * factor
    out = fnp.where(direct, out, 1 - out)
    out = fnp.where(zero_result | x_zero, fnp.zeros_like(out), out)
    out = fnp.where(x_one, fnp.ones_like(out), out)
    out = fnp.where(one_result, fnp.ones_like(out), out)
    return fnp.where(nan_result, _nan_like(out), out)


@custom_jvp
def betainc_impl(a, b, x):
    return _upcast(_betainc_value)(a, b, x)


@betainc_impl.defjvp
def _betainc_jvp(primals, tangents):
    (a, b, x), (ta, tb, tx) = primals, tangents
    if not (isinstance(ta, SymbolicZero) and isinstance(tb, SymbolicZero)):
        raise ValueError("betainc: the derivative with respect to a and b is not supported "
                         "(as in JAX); differentiate with respect to x only")
    out = betainc_impl(a, b, x)
    if isinstance(tx, SymbolicZero):
        return out, SymbolicZero(out.aval) if hasattr(out, "aval") else fnp.zeros_like(out)
    dx = fnp.exp((b - 1) * fnp.log1p(-x) + (a - 1) * fnp.log(x) - _betaln(a, b))
    return out, tx * dx


betainc_impl.defjvp(_betainc_jvp, symbolic_zeros=True)


@api_boundary
def gammainc(a, x):
    """The regularized lower incomplete gamma function ``P(a, x)``; NaN for ``a < 0`` or
    ``x < 0``. Differentiable in both arguments.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import gammainc
        >>> gammainc(fnp.asarray([1.0, 2.0, 0.5]), fnp.asarray([1.0, 3.0, 0.0])).round(5)
        Array([0.63212, 0.80085, 0.     ], dtype=float32)
    """
    return weak_result(igamma_impl, float_args("gammainc", a, x))


@api_boundary
def gammaincc(a, x):
    """The regularized upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)``, accurate
    where it is tiny.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import gammaincc
        >>> gammaincc(fnp.asarray([1.0, 2.0]), fnp.asarray([1.0, 30.0]))
        Array([3.6787942e-01, 2.9008631e-12], dtype=float32)
    """
    return weak_result(igammac_impl, float_args("gammaincc", a, x))


@api_boundary
def betainc(a, b, x):
    """The regularized incomplete beta function ``I_x(a, b)``; differentiable in ``x``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.scipy.special import betainc
        >>> betainc(2.0, 3.0, fnp.asarray([0.0, 0.25, 0.5, 1.0])).round(5)
        Array([0.     , 0.26172, 0.6875 , 1.     ], dtype=float32)
    """
    return weak_result(betainc_impl, float_args("betainc", a, b, x))
