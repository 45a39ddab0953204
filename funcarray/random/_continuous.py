"""Continuous univariate samplers: ``uniform``, ``normal``, ``truncated_normal``,
``exponential``, ``laplace``, ``logistic``, ``gumbel``, and those built from them:
``lognormal``, ``cauchy``, ``pareto``, ``rayleigh``, ``wald``, ``weibull_min``, ``maxwell``,
``double_sided_maxwell``, ``triangular``.

Each one applies JAX's own construction (which keys are split, which base draw feeds which
formula, in which order) to funcarray's ``uniform``/``normal`` kernels, so the same key gives
JAX's samples to within float rounding (``uniform`` bit for bit). They are compositions of
``funcarray.numpy`` operations, hence work eagerly and under ``jit``, ``vmap`` and ``grad``:
gradients flow through the parameters along the sample path, as in JAX.

Parameter dtypes follow JAX: samplers that convert their parameters to ``dtype`` refuse a
parameter whose dtype would be narrowed (a float64 array for a float32 sample), while
``weibull_min`` and ``double_sided_maxwell`` combine their parameters with the sample by
ordinary type promotion, as JAX's do.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from funcarray import numpy as fnp
from funcarray.api.arguments import broadcast_shapes
from funcarray.api.autodiff import stop_gradient
from funcarray.base import dtypes
from funcarray.base.array import Array
from funcarray.base.errors import api_boundary, op_value_error
from funcarray.primitives.special import erf_inv_p, erf_p
from funcarray.random._prng import canonical_shape, check_key
from funcarray.random._sampling import (
    _cast_param,
    _check_shape,
    _float_dtype,
    _keys_pair,
    _normal,
    _param,
    _promoted,
    _rademacher_signs,
    _result_shape,
    _shape_of,
    _uniform,
)

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Protocol

    import numpy as np

    from funcarray.base.typing import ArrayLike, DTypeLike, ShapeLike
    from funcarray.random._keys import KeyArrayLike

    class _Sampler(Protocol):
        """``exponential``, ``laplace``, ``logistic``: standard samples of one distribution."""

        def __call__(self, key: KeyArrayLike, shape: ShapeLike = (), dtype: DTypeLike | None = None
                     ) -> Array: ...

__all__ = ["uniform", "normal", "exponential", "laplace", "logistic", "gumbel", "truncated_normal",
           "lognormal", "cauchy", "pareto", "rayleigh", "wald", "weibull_min", "maxwell",
           "double_sided_maxwell", "triangular"]


@api_boundary
def uniform(key: KeyArrayLike, shape: ShapeLike = (), dtype: DTypeLike | None = None,
            minval: ArrayLike = 0.0, maxval: ArrayLike = 1.0) -> Array:
    """Uniform floats in ``[minval, maxval)`` (float32 unless ``dtype`` says otherwise).

    Reproduces ``jax.random.uniform`` bit for bit.

    Example:
        >>> import funcarray.random as fr
        >>> u = fr.uniform(fr.key(0), (1000,))
        >>> bool((u >= 0).all() and (u < 1).all())
        True
    """
    key = check_key("uniform", key)
    shape = canonical_shape("uniform", shape)
    dtype = _float_dtype("uniform", dtype)
    minval, maxval = _param("uniform", minval, dtype), _param("uniform", maxval, dtype)
    _check_shape("uniform", shape, minval.shape, maxval.shape)
    return _uniform(key, shape, dtype, minval, maxval)


def _simple(op: str, draw: Callable[[Array, tuple[int, ...], np.dtype], Array]) -> _Sampler:
    """Public sampler ``op(key, shape=(), dtype=None)`` applying ``draw(key, shape, dtype)``."""
    def sampler(key, shape=(), dtype=None):
        key = check_key(op, key)
        shape = canonical_shape(op, shape)
        return draw(key, shape, _float_dtype(op, dtype))
    sampler.__name__ = sampler.__qualname__ = op
    return sampler


def _draw_exponential(key, shape, dtype):
    # 1 - u lies in (0, 1], so the log is finite.
    return -fnp.log1p(-_uniform(key, shape, dtype))


def _draw_laplace(key, shape, dtype):
    u = _uniform(key, shape, dtype, -1.0 + float(dtypes.finfo(dtype).epsneg), 1.0)
    return fnp.sign(u) * fnp.log1p(-fnp.abs(u))


def _draw_logistic(key, shape, dtype):
    x = _uniform(key, shape, dtype, float(dtypes.finfo(dtype).tiny), 1.0)
    return fnp.log(x) - fnp.log1p(-x)


def _draw_gumbel(key, shape, dtype, mode="low"):
    info = dtypes.finfo(dtype)
    if mode == "high":
        both = _uniform(key, (2, *shape), dtype)
        high, low = both[0], both[1]
        x = fnp.where(high >= 0.5, high, high + 2.0 ** -info.nmant * low + float(info.tiny))
        return -fnp.log(-fnp.log1p(-x))
    return -fnp.log(-fnp.log(_uniform(key, shape, dtype, float(info.tiny), 1.0)))


def _normal_or_complex_dtype(op, dtype):
    dtype = dtypes.default_float if dtype is None else dtypes.canonicalize_dtype(dtype)
    if not dtypes.is_inexact(dtype):
        raise op_value_error(op, f"dtype must be a floating or complex dtype, got {dtype}")
    return dtype


@api_boundary
def normal(key: KeyArrayLike, shape: ShapeLike = (), dtype: DTypeLike | None = None) -> Array:
    key = check_key("normal", key)
    shape = canonical_shape("normal", shape)
    return _normal(key, shape, _normal_or_complex_dtype("normal", dtype))


normal.__doc__ = """Standard normal samples (float32 unless ``dtype`` says otherwise; complex
    dtypes give unit-variance complex normals).

    Computed as ``sqrt(2) * erf_inv(u)`` for ``u`` uniform in (-1, 1), as in JAX.

    Example:
        >>> import funcarray.random as fr
        >>> x = fr.normal(fr.key(0), (10000,))
        >>> abs(float(x.mean())) < 0.05 and abs(float(x.std()) - 1) < 0.05
        True
    """


exponential = api_boundary(_simple("exponential", _draw_exponential))


exponential.__doc__ = """Standard exponential samples (density ``exp(-x)`` on x >= 0).

    Example:
        >>> import funcarray.random as fr
        >>> bool((fr.exponential(fr.key(0), (100,)) >= 0).all())
        True
    """


laplace = api_boundary(_simple("laplace", _draw_laplace))


laplace.__doc__ = """Standard Laplace samples (density ``exp(-|x|) / 2``).

    Example:
        >>> import funcarray.random as fr
        >>> fr.laplace(fr.key(0), (3,)).shape
        (3,)
    """


logistic = api_boundary(_simple("logistic", _draw_logistic))


logistic.__doc__ = """Standard logistic samples (density ``e^-x / (1 + e^-x)^2``).

    Example:
        >>> import funcarray.random as fr
        >>> fr.logistic(fr.key(0), (3,)).dtype
        dtype('float32')
    """


@api_boundary
def gumbel(key: KeyArrayLike, shape: ShapeLike = (), dtype: DTypeLike | None = None,
           mode: str | None = None) -> Array:
    """Standard Gumbel samples (density ``exp(-(x + exp(-x)))``).

    ``mode="high"`` draws twice the bits to reach further into the right tail; the default is
    ``"low"`` (JAX's default). JAX's float32-only ``"highest"`` mode is not provided.

    Example:
        >>> import funcarray.random as fr
        >>> fr.gumbel(fr.key(0), (2, 3)).shape
        (2, 3)
    """
    key = check_key("gumbel", key)
    shape = canonical_shape("gumbel", shape)
    dtype = _float_dtype("gumbel", dtype)
    mode = "low" if mode is None else mode
    if mode not in ("low", "high"):
        raise op_value_error("gumbel", f"mode must be 'low' or 'high', got {mode!r}")
    return _draw_gumbel(key, shape, dtype, mode)


@api_boundary
def truncated_normal(key: KeyArrayLike, lower: ArrayLike, upper: ArrayLike,
                     shape: ShapeLike | None = None, dtype: DTypeLike | None = None) -> Array:
    """Standard normal samples truncated to the open interval ``(lower, upper)``.

    Example:
        >>> import funcarray.random as fr
        >>> x = fr.truncated_normal(fr.key(0), -1.0, 2.0, (1000,))
        >>> bool((x > -1).all() and (x < 2).all())
        True
    """
    key = check_key("truncated_normal", key)
    dtype = _float_dtype("truncated_normal", dtype)
    lower = _param("truncated_normal", lower, dtype)
    upper = _param("truncated_normal", upper, dtype)
    shape = _result_shape("truncated_normal", shape, lower, upper)
    sqrt2 = _param("truncated_normal", math.sqrt(2), dtype)
    a, b = erf_p.bind(lower / sqrt2), erf_p.bind(upper / sqrt2)
    out = sqrt2 * erf_inv_p.bind(_uniform(key, shape, dtype, a, b))
    # Rounding (or u == a) could land on a bound: clamp into the open interval.
    low = fnp.nextafter(stop_gradient(lower), _param("truncated_normal", math.inf, dtype))
    high = fnp.nextafter(stop_gradient(upper), _param("truncated_normal", -math.inf, dtype))
    return fnp.minimum(fnp.maximum(out, low), high)


@api_boundary
def lognormal(key: KeyArrayLike, sigma: ArrayLike = 1.0, shape: ShapeLike | None = None,
              dtype: DTypeLike | None = None) -> Array:
    """Log-normal samples ``exp(sigma * normal())`` (float32 unless ``dtype`` says otherwise).

    Example:
        >>> import funcarray.random as fr
        >>> x = fr.lognormal(fr.key(0), 0.5, (3,))
        >>> x.shape, bool((x > 0).all())
        ((3,), True)
    """
    key = check_key("lognormal", key)
    dtype = _normal_or_complex_dtype("lognormal", dtype)
    sigma = _cast_param("lognormal", sigma, dtype)
    shape = _result_shape("lognormal", shape, sigma)
    return fnp.exp(_normal(key, shape, dtype) * sigma)


@api_boundary
def cauchy(key: KeyArrayLike, shape: ShapeLike = (), dtype: DTypeLike | None = None) -> Array:
    """Standard Cauchy samples (density ``1 / (pi (1 + x^2))``): ``tan(pi (u - 1/2))``.

    Example:
        >>> import funcarray.random as fr
        >>> fr.cauchy(fr.key(0), (2, 3)).shape
        (2, 3)
    """
    key = check_key("cauchy", key)
    shape = canonical_shape("cauchy", shape)
    dtype = _float_dtype("cauchy", dtype)
    # u in [eps, 1): the tangent never reaches -pi/2.
    u = _uniform(key, shape, dtype, float(dtypes.finfo(dtype).eps), 1.0)
    return fnp.tan(_param("cauchy", math.pi, dtype) * (u - 0.5))


@api_boundary
def pareto(key: KeyArrayLike, b: ArrayLike, shape: ShapeLike | None = None,
           dtype: DTypeLike | None = None) -> Array:
    """Pareto samples with shape parameter ``b > 0`` (density ``b / x^(b+1)`` on x >= 1):
    ``exp(exponential() / b)``.

    Example:
        >>> import funcarray.random as fr
        >>> bool((fr.pareto(fr.key(0), 3.0, (100,)) >= 1).all())
        True
    """
    key = check_key("pareto", key)
    dtype = _float_dtype("pareto", dtype)
    b = _cast_param("pareto", b, dtype)
    shape = _result_shape("pareto", shape, b)
    return fnp.exp(_draw_exponential(key, shape, dtype) / b)


@api_boundary
def rayleigh(key: KeyArrayLike, scale: ArrayLike, shape: ShapeLike | None = None,
             dtype: DTypeLike | None = None) -> Array:
    """Rayleigh samples with ``scale > 0``: ``scale * sqrt(-2 log(u))``.

    Example:
        >>> import funcarray.random as fr
        >>> bool((fr.rayleigh(fr.key(0), 2.0, (100,)) >= 0).all())
        True
    """
    key = check_key("rayleigh", key)
    dtype = _float_dtype("rayleigh", dtype)
    scale = _cast_param("rayleigh", scale, dtype)
    shape = _result_shape("rayleigh", shape, scale)
    u = _uniform(key, shape, dtype)
    return fnp.broadcast_to(scale, shape) * fnp.sqrt(fnp.log(u) * -2.0)


@api_boundary
def wald(key: KeyArrayLike, mean: ArrayLike, shape: ShapeLike | None = None,
         dtype: DTypeLike | None = None) -> Array:
    """Wald (inverse Gaussian) samples with ``mean > 0`` and unit shape parameter, by the
    Michael-Schucany-Haas transformation of a normal and a uniform draw.

    Example:
        >>> import funcarray.random as fr
        >>> bool((fr.wald(fr.key(0), 1.5, (100,)) > 0).all())
        True
    """
    key = check_key("wald", key)
    dtype = _float_dtype("wald", dtype)
    mean = _cast_param("wald", mean, dtype)
    shape = _result_shape("wald", shape, mean)
    key_normal, key_uniform = _keys_pair(key)
    mean = fnp.broadcast_to(mean, shape)
    v = _normal(key_normal, shape, dtype)
    z = _uniform(key_uniform, shape, dtype)
    y = v * v
    mean_sq = mean * mean
    sqrt_term = fnp.sqrt(4.0 * mean * y + mean_sq * (y * y))
    x = mean + mean_sq * y / 2.0 - mean / 2.0 * sqrt_term
    return fnp.where(z <= mean / (mean + x), x, mean_sq / x)


@api_boundary
def weibull_min(key: KeyArrayLike, scale: ArrayLike, concentration: ArrayLike,
                shape: ShapeLike = (), dtype: DTypeLike | None = None) -> Array:
    """Weibull samples ``scale * (-log(1 - u)) ** (1 / concentration)`` (the inverse CDF).

    As in JAX, ``shape`` is the shape of the uniform draw; the parameters broadcast against
    it (and promote with it) in the final arithmetic.

    Example:
        >>> import funcarray.random as fr
        >>> fr.weibull_min(fr.key(0), 1.0, 2.0, (4,)).shape
        (4,)
    """
    key = check_key("weibull_min", key)
    shape = canonical_shape("weibull_min", shape)
    dtype = _float_dtype("weibull_min", dtype)
    scale = _promoted("weibull_min", scale)
    concentration = _promoted("weibull_min", concentration)
    u = _uniform(key, shape, dtype)
    return fnp.power(-fnp.log1p(-u), 1.0 / concentration) * scale


@api_boundary
def maxwell(key: KeyArrayLike, shape: ShapeLike = (), dtype: DTypeLike | None = None) -> Array:
    """One-sided Maxwell samples: the Euclidean norm of three standard normals.

    Example:
        >>> import funcarray.random as fr
        >>> fr.maxwell(fr.key(0), (5,)).shape
        (5,)
    """
    key = check_key("maxwell", key)
    shape = canonical_shape("maxwell", shape)
    return _maxwell(key, shape, _float_dtype("maxwell", dtype))


def _maxwell(key, shape, dtype):
    draws = _normal(key, shape + (3,), dtype)
    return fnp.sqrt(fnp.sum(draws * draws, axis=-1))


@api_boundary
def double_sided_maxwell(key: KeyArrayLike, loc: ArrayLike, scale: ArrayLike, shape: ShapeLike = (),
                         dtype: DTypeLike | None = None) -> Array:
    """Double-sided Maxwell samples ``sign * maxwell() * scale + loc``.

    As in JAX, the result shape is ``shape + broadcast(loc, scale).shape`` (with ``shape=()``
    standing for the parameters' shape, so scalar-shaped draws are never made).

    Example:
        >>> import funcarray.random as fr
        >>> fr.double_sided_maxwell(fr.key(0), 0.0, 1.0, (4,)).shape
        (4,)
    """
    key = check_key("double_sided_maxwell", key)
    shape = canonical_shape("double_sided_maxwell", shape)
    dtype = _float_dtype("double_sided_maxwell", dtype)
    loc = _promoted("double_sided_maxwell", loc)
    scale = _promoted("double_sided_maxwell", scale)
    param_shape = broadcast_shapes("double_sided_maxwell", _shape_of(loc), _shape_of(scale))
    shape = (shape or param_shape) + param_shape
    key_maxwell, key_sign = _keys_pair(key)
    magnitude = _maxwell(key_maxwell, shape, dtype)
    return _rademacher_signs(key_sign, shape, dtype) * magnitude * scale + loc


@api_boundary
def triangular(key: KeyArrayLike, left: ArrayLike, mode: ArrayLike, right: ArrayLike,
               shape: ShapeLike | None = None, dtype: DTypeLike | None = None) -> Array:
    """Triangular samples on ``[left, right]`` with peak at ``mode`` (inverse CDF).

    Example:
        >>> import funcarray.random as fr
        >>> x = fr.triangular(fr.key(0), 0.0, 1.0, 3.0, (100,))
        >>> bool((x >= 0).all() and (x <= 3).all())
        True
    """
    key = check_key("triangular", key)
    dtype = _float_dtype("triangular", dtype)
    left, mode, right = (_cast_param("triangular", v, dtype) for v in (left, mode, right))
    shape = _result_shape("triangular", shape, left, mode, right)
    left, mode, right = (fnp.broadcast_to(v, shape) for v in (left, mode, right))
    u = _uniform(key, shape, dtype)
    width = right - left
    below = left + fnp.sqrt(u * width * (mode - left))
    above = right - fnp.sqrt((1.0 - u) * width * (right - mode))
    return fnp.where(u < (mode - left) / width, below, above)
