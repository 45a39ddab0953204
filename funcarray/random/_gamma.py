"""``gamma`` (Marsaglia-Tsang) and the samplers made from gamma draws: ``loggamma``,
``beta``, ``dirichlet``, ``chisquare``, ``f``, ``t``, ``generalized_normal``.

The rejection rounds run as ``_rejection_loop`` (a Python loop on concrete values,
``lax.while_loop`` under a trace). ``gamma`` is differentiable in its shape parameter along the
sample path through JAX's implicit derivative (the loop itself only decides which normal draw
is accepted), and so is every sampler here built on it.
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING

from funcarray import numpy as fnp
from funcarray.api.autodiff import stop_gradient
from funcarray.api.custom_derivatives import custom_jvp
from funcarray.base import dtypes
from funcarray.base.array import Array
from funcarray.base.errors import api_boundary, op_value_error
from funcarray.random._continuous import _draw_exponential
from funcarray.random._prng import _split, canonical_shape, check_key
from funcarray.random._sampling import (
    _cast_param,
    _check_shape,
    _float_dtype,
    _keys_pair,
    _normal,
    _param,
    _promoted,
    _rademacher_signs,
    _rejection_loop,
    _result_shape,
    _shape_of,
    _uniform,
)

if TYPE_CHECKING:
    from funcarray.base.typing import ArrayLike, DTypeLike, ShapeLike
    from funcarray.random._keys import KeyArrayLike

__all__ = ["gamma", "loggamma", "beta", "dirichlet", "chisquare", "f", "t", "generalized_normal"]


# Rounds run under a trace. A normal draw is retried while v = 1 + c x <= 0, which happens with
# probability below 0.0072 (at alpha = 1); a candidate is accepted with probability above 0.95.
def _where_keys(mask, new, old):
    return fnp.where(mask[..., None], new, old)


def _gamma_candidate(keys, c, active, dtype):
    """One Marsaglia-Tsang proposal per key: a normal draw ``x`` with ``1 + c x > 0``, redrawn
    (each time from a fresh split of the key) while ``1 + c x <= 0``."""
    def body(state):
        keys, x, retry = state
        pair = _split(keys, (2,))
        draw = _normal(pair[..., 1, :], (), dtype)
        keys = _where_keys(retry, pair[..., 0, :], keys)
        x = fnp.where(retry, draw, x)
        return keys, x, retry & (1.0 + x * c <= 0)

    init = (keys, fnp.zeros(c.shape, dtype), active)
    return _rejection_loop(lambda state: fnp.any(state[2]), body, init)[1]


def _gamma_one(keys, alpha, log_space: bool):
    """Marsaglia-Tsang gamma samples, one per key (``keys``: (n, 2), ``alpha``: (n,))."""

    dtype = alpha.dtype
    # alpha < 1 samples Gamma(alpha + 1) * U**(1 / alpha).
    boosted = alpha >= 1.0
    shape_param = fnp.where(boosted, alpha, alpha + 1.0)
    d = shape_param - 1.0 / 3.0
    c = (1.0 / 3.0) / fnp.sqrt(d)
    pair = _split(keys, (2,))
    keys, boost_keys = pair[..., 0, :], pair[..., 1, :]
    # The loop only chooses the accepted normal draw x; the sample d (1 + c x)^3 is computed
    # from it afterwards, so its derivative in alpha flows outside the loop.
    d_loop, c_loop = stop_gradient(d), stop_gradient(c)

    def body(state):
        keys, x, u, active = state
        triple = _split(keys, (3,))
        draw = _gamma_candidate(triple[..., 1, :], c_loop, active, dtype)
        new_u = _uniform(triple[..., 2, :], (), dtype)
        keys = _where_keys(active, triple[..., 0, :], keys)
        x = fnp.where(active, draw, x)
        u = fnp.where(active, new_u, u)
        big_x, big_v = x * x, _cube(1.0 + x * c_loop)
        squeeze_rejects = u >= 1.0 - 0.0331 * (big_x * big_x)
        log_rejects = fnp.log(u) >= big_x * 0.5 + d_loop * (1.0 - big_v + fnp.log(big_v))
        return keys, x, u, active & ((squeeze_rejects & log_rejects) | (big_v <= 0))

    # Start from a state the acceptance test rejects: X = 0, U = 2.
    init = (keys, fnp.zeros(alpha.shape, dtype), fnp.full(alpha.shape, 2.0, dtype),
            fnp.ones(alpha.shape, dtypes.bool_))
    x = _rejection_loop(lambda state: fnp.any(state[3]), body, init)[1]
    big_v = _cube(1.0 + x * c)
    if log_space:
        log_u = -_draw_exponential(boost_keys, (), dtype)
        log_boost = fnp.where(boosted | (log_u == 0), 0.0, log_u * (1.0 / alpha))
        return fnp.log(d) + fnp.log(big_v) + log_boost
    boost = fnp.where(boosted, 1.0, (1.0 - _uniform(boost_keys, (), dtype)) ** (1.0 / alpha))
    return d * big_v * boost


def _cube(v):
    return v * v * v


def _gamma(key, a, shape, dtype, log_space):
    a = fnp.broadcast_to(a, shape)
    n = math.prod(shape)
    keys = _split(key, (n,))
    samples = _gamma_one(keys, fnp.reshape(a, (n,)), log_space)
    return fnp.reshape(samples, shape)


@functools.partial(custom_jvp, nondiff_argnums=(0, 1, 2))
def _implicit_gamma(shape, dtype, log_space, key, a):
    """``_gamma`` with JAX's derivative in ``a``: the implicit reparameterisation gradient
    ``dx/da = -(dF(x; a)/da) / f(x; a)`` (``lax.random_gamma_grad``), not the derivative of
    the sampler's arithmetic along the accepted draw (which ignores how the acceptance
    region moves with ``a``, a biased estimate), so that every gamma-based sampler (gamma,
    loggamma, beta, dirichlet, chisquare, f, t, ...) has jax.grad's gradients."""
    return _gamma(key, a, shape, dtype, log_space)


@_implicit_gamma.defjvp
def _implicit_gamma_jvp(shape, dtype, log_space, primals, tangents):
    from funcarray.lax import random_gamma_grad

    key, a = primals
    a_dot = tangents[1]
    sample = _implicit_gamma(shape, dtype, log_space, key, a)
    a = fnp.broadcast_to(a, shape)
    if log_space:
        # d log(x) = dx / x; exp(log x) may underflow to 0: use the smallest normal instead.
        x = fnp.exp(sample)
        x = fnp.where(x == 0, _param("loggamma", float(dtypes.finfo(dtype).tiny), dtype), x)
        derivative = random_gamma_grad(a, x) / x
    else:
        derivative = random_gamma_grad(a, sample)
    return sample, fnp.broadcast_to(a_dot, shape) * derivative


def _gamma_public(op, key, a, shape, dtype, log_space):
    key = check_key(op, key)
    dtype = _float_dtype(op, dtype)
    a = _param(op, a, dtype)
    shape = _result_shape(op, shape, a)
    return _implicit_gamma(shape, dtype, log_space, key, a)


@api_boundary
def gamma(key: KeyArrayLike, a: ArrayLike, shape: ShapeLike | None = None,
          dtype: DTypeLike | None = None) -> Array:
    """Standard gamma samples with shape parameter ``a > 0`` (density ``x^(a-1) e^-x``).

    Each element has its own key (``split(key, size)``) and its own Marsaglia-Tsang rejection
    loop, as in JAX; see the module docstring for the loop under ``jit``.

    Example:
        >>> import funcarray.random as fr
        >>> x = fr.gamma(fr.key(0), 3.0, (2000,))
        >>> abs(float(x.mean()) - 3.0) < 0.2
        True
    """
    return _gamma_public("gamma", key, a, shape, dtype, log_space=False)


@api_boundary
def loggamma(key: KeyArrayLike, a: ArrayLike, shape: ShapeLike | None = None,
             dtype: DTypeLike | None = None) -> Array:
    """``log`` of gamma samples, computed in log space (accurate for small ``a``).

    Example:
        >>> import funcarray.random as fr
        >>> fr.loggamma(fr.key(0), 0.01, (3,)).shape
        (3,)
    """
    return _gamma_public("loggamma", key, a, shape, dtype, log_space=True)


@api_boundary
def beta(key: KeyArrayLike, a: ArrayLike, b: ArrayLike, shape: ShapeLike | None = None,
         dtype: DTypeLike | None = None) -> Array:
    """Beta(a, b) samples in [0, 1], from two log-space gamma samples.

    Example:
        >>> import funcarray.random as fr
        >>> x = fr.beta(fr.key(0), 2.0, 5.0, (2000,))
        >>> abs(float(x.mean()) - 2 / 7) < 0.02
        True
    """
    key = check_key("beta", key)
    dtype = _float_dtype("beta", dtype)
    a, b = _param("beta", a, dtype), _param("beta", b, dtype)
    shape = _result_shape("beta", shape, a, b)
    key_a, key_b = _split(key, (2,))
    log_a = _implicit_gamma(shape, dtype, True, key_a, a)
    log_b = _implicit_gamma(shape, dtype, True, key_b, b)
    # a / (a + b) from logs, scaled by the larger one so that neither underflows.
    log_max = fnp.maximum(log_a, log_b)
    scaled_a, scaled_b = fnp.exp(log_a - log_max), fnp.exp(log_b - log_max)
    return scaled_a / (scaled_a + scaled_b)


@api_boundary
def dirichlet(key: KeyArrayLike, alpha: ArrayLike, shape: ShapeLike | None = None,
              dtype: DTypeLike | None = None) -> Array:
    """Dirichlet samples for concentrations ``alpha`` of shape ``(..., n)``: the softmax of
    log-gamma samples, so each sample sums to 1 along the last axis.

    Example:
        >>> import funcarray.random as fr
        >>> x = fr.dirichlet(fr.key(0), [1.0, 2.0, 3.0], (4,))
        >>> x.shape, bool(abs(x.sum(-1) - 1).max() < 1e-5)
        ((4, 3), True)
    """
    key = check_key("dirichlet", key)
    dtype = _float_dtype("dirichlet", dtype)
    alpha = _param("dirichlet", alpha, dtype)
    if alpha.ndim < 1:
        raise op_value_error("dirichlet", "alpha must have at least one dimension, got a scalar")
    batch = alpha.shape[:-1] if shape is None else canonical_shape("dirichlet", shape)
    _check_shape("dirichlet", batch, alpha.shape[:-1])
    logs = _implicit_gamma(batch + alpha.shape[-1:], dtype, True, key, alpha)
    unnormalized = fnp.exp(logs - stop_gradient(fnp.max(logs, axis=-1, keepdims=True)))
    return unnormalized / fnp.sum(unnormalized, axis=-1, keepdims=True)


def _chisquare(key, df, shape, dtype):
    half_df = df / 2.0
    return fnp.exp(_implicit_gamma(shape, dtype, True, key, half_df)) * 2.0


@api_boundary
def chisquare(key: KeyArrayLike, df: ArrayLike, shape: ShapeLike | None = None,
              dtype: DTypeLike | None = None) -> Array:
    """Chi-square samples with ``df > 0`` degrees of freedom: ``2 * exp(loggamma(df / 2))``.

    Example:
        >>> import funcarray.random as fr
        >>> x = fr.chisquare(fr.key(0), 4.0, (2000,))
        >>> abs(float(x.mean()) - 4.0) < 0.3
        True
    """
    key = check_key("chisquare", key)
    dtype = _float_dtype("chisquare", dtype)
    df = _cast_param("chisquare", df, dtype)
    shape = _result_shape("chisquare", shape, df)
    return _chisquare(key, df, shape, dtype)


@api_boundary
def f(key: KeyArrayLike, dfnum: ArrayLike, dfden: ArrayLike, shape: ShapeLike | None = None,
      dtype: DTypeLike | None = None) -> Array:
    """F-distribution samples: the ratio of two chi-squares, each divided by its degrees of
    freedom.

    Example:
        >>> import funcarray.random as fr
        >>> bool((fr.f(fr.key(0), 3.0, 5.0, (50,)) > 0).all())
        True
    """
    key = check_key("f", key)
    dtype = _float_dtype("f", dtype)
    dfnum, dfden = _cast_param("f", dfnum, dtype), _cast_param("f", dfden, dtype)
    shape = _result_shape("f", shape, dfnum, dfden)
    # JAX's order: the first key goes to the denominator.
    key_den, key_num = _keys_pair(key)
    numerator = _chisquare(key_num, dfnum, shape, dtype) / dfnum
    denominator = _chisquare(key_den, dfden, shape, dtype) / dfden
    return numerator / denominator


@api_boundary
def t(key: KeyArrayLike, df: ArrayLike, shape: ShapeLike | None = None,
      dtype: DTypeLike | None = None) -> Array:
    """Student's t samples with ``df > 0``: ``normal() * sqrt((df / 2) / gamma(df / 2))``.

    Example:
        >>> import funcarray.random as fr
        >>> fr.t(fr.key(0), 5.0, (3,)).shape
        (3,)
    """
    key = check_key("t", key)
    dtype = _float_dtype("t", dtype)
    df = _cast_param("t", df, dtype)
    shape = _result_shape("t", shape, df)
    key_normal, key_gamma = _keys_pair(key)
    n = _normal(key_normal, shape, dtype)
    half_df = df / 2.0
    g = _implicit_gamma(shape, dtype, False, key_gamma, half_df)
    return n * fnp.sqrt(half_df / g)


def _generalized_normal(key, p, shape, dtype):
    key_gamma, key_sign = _keys_pair(key)
    g = _implicit_gamma(shape, dtype, False, key_gamma,
                        _param("generalized_normal", 1.0 / p, dtype))
    return _rademacher_signs(key_sign, shape, dtype) * g ** (1.0 / p)


@api_boundary
def generalized_normal(key: KeyArrayLike, p: ArrayLike, shape: ShapeLike = (),
                       dtype: DTypeLike | None = None) -> Array:
    """Generalized normal samples (density proportional to ``exp(-|x|^p)``, ``p > 0``):
    a random sign times ``gamma(1 / p) ** (1 / p)``.

    Example:
        >>> import funcarray.random as fr
        >>> fr.generalized_normal(fr.key(0), 1.5, (4,)).shape
        (4,)
    """
    key = check_key("generalized_normal", key)
    shape = canonical_shape("generalized_normal", shape)
    dtype = _float_dtype("generalized_normal", dtype)
    p = _promoted("generalized_normal", p)
    _check_shape("generalized_normal", shape, _shape_of(p))
    return _generalized_normal(key, p, shape, dtype)
