"""The continuous samplers of ``jax.random`` built from the basic ones: ``lognormal``,
``cauchy``, ``chisquare``, ``f``, ``t``, ``pareto``, ``rayleigh``, ``wald``, ``weibull_min``,
``maxwell``, ``double_sided_maxwell``, ``generalized_normal``, ``triangular``, ``ball`` and
``orthogonal``.

Each one applies JAX's own construction (which keys are split, which base draw feeds which
formula, in which order) to funcarray's ``uniform``/``normal``/``gamma`` kernels, so the same key
gives JAX's samples to within float rounding. They are compositions of ``funcarray.numpy``
operations, hence work eagerly and under ``jit``, ``vmap`` and ``grad``: gradients flow through
the parameters along the sample path, as in JAX for the reparameterised ones, and the gamma
draws behind chisquare, f, t, generalized_normal and ball carry JAX's implicit derivative.

Parameter dtypes follow JAX: samplers that convert their parameters to ``dtype`` refuse a
parameter whose dtype would be narrowed (a float64 array for a float32 sample), while
``weibull_min``, ``double_sided_maxwell``, ``generalized_normal`` and ``ball`` combine their
parameters with the sample by ordinary type promotion, as JAX's do.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from funcarray import dtypes
from funcarray import numpy as fnp
from funcarray._arguments import asarray_arg, broadcast_shapes, convert
from funcarray._errors import api_boundary, op_type_error, op_value_error
from funcarray.random._prng import _split, canonical_shape, check_key
from funcarray.random._samplers import (
    _check_shape,
    _draw_exponential,
    _float_dtype,
    _implicit_gamma,
    _normal,
    _normal_or_complex_dtype,
    _param,
    _result_shape,
    _uniform,
)

if TYPE_CHECKING:
    from funcarray.array import Array
    from funcarray.typing import ArrayLike, DTypeLike, ShapeLike

__all__ = ["lognormal", "cauchy", "chisquare", "f", "t", "pareto", "rayleigh", "wald",
           "weibull_min", "maxwell", "double_sided_maxwell", "generalized_normal", "triangular",
           "ball", "orthogonal"]


# --------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------

def _cast_param(op: str, x, dtype):
    """``x`` converted to ``dtype``, refusing a conversion that type promotion would not make
    (JAX's ``safe_to_cast`` check: a float64 array cannot become a float32 parameter)."""
    arr = asarray_arg(op, x)
    if dtypes.result_type(arr, dtype) != dtype:
        raise op_value_error(
            op, f"cannot safely cast a parameter of dtype {arr.dtype} to the sample dtype "
                f"{dtype}; pass dtype={arr.dtype} or convert the parameter first")
    return _param(op, x, dtype)


def _promoted(op: str, x):
    """A parameter combined with the sample by type promotion. Python ints and floats stay
    Python numbers (weak, and exact: ``1 / p`` must not be rounded to float32 first)."""
    if type(x) in (int, float):
        return x
    arr = asarray_arg(op, x)
    if not (dtypes.is_inexact(arr.dtype) or dtypes.is_integer(arr.dtype)):
        raise op_type_error(op, f"parameters must be numbers, got dtype {arr.dtype}")
    return arr


def _shape_of(x) -> tuple:
    return () if type(x) in (int, float) else x.shape


def _rademacher_signs(key, shape, dtype):
    """JAX's ``rademacher``: ``2 * bernoulli(key, 0.5, shape) - 1`` in ``dtype``."""
    heads = _uniform(key, shape, dtypes.float32) < 0.5
    return convert(2 * convert(heads, dtype) - 1, dtype)


def _keys_pair(key):
    pair = _split(key, (2,))
    return pair[0], pair[1]


# --------------------------------------------------------------------------------------------
# Transformations of one normal, uniform or exponential draw
# --------------------------------------------------------------------------------------------

@api_boundary
def lognormal(key: ArrayLike, sigma: ArrayLike = 1.0, shape: ShapeLike | None = None,
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
def cauchy(key: ArrayLike, shape: ShapeLike = (), dtype: DTypeLike | None = None) -> Array:
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
def pareto(key: ArrayLike, b: ArrayLike, shape: ShapeLike | None = None,
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
def rayleigh(key: ArrayLike, scale: ArrayLike, shape: ShapeLike | None = None,
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
def wald(key: ArrayLike, mean: ArrayLike, shape: ShapeLike | None = None,
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
def weibull_min(key: ArrayLike, scale: ArrayLike, concentration: ArrayLike, shape: ShapeLike = (),
                dtype: DTypeLike | None = None) -> Array:
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
def maxwell(key: ArrayLike, shape: ShapeLike = (), dtype: DTypeLike | None = None) -> Array:
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
def double_sided_maxwell(key: ArrayLike, loc: ArrayLike, scale: ArrayLike, shape: ShapeLike = (),
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
def triangular(key: ArrayLike, left: ArrayLike, mode: ArrayLike, right: ArrayLike,
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


# --------------------------------------------------------------------------------------------
# Gamma-based
# --------------------------------------------------------------------------------------------

def _chisquare(key, df, shape, dtype):
    half_df = df / 2.0
    return fnp.exp(_implicit_gamma(shape, dtype, True, key, half_df)) * 2.0


@api_boundary
def chisquare(key: ArrayLike, df: ArrayLike, shape: ShapeLike | None = None,
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
def f(key: ArrayLike, dfnum: ArrayLike, dfden: ArrayLike, shape: ShapeLike | None = None,
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
def t(key: ArrayLike, df: ArrayLike, shape: ShapeLike | None = None, dtype: DTypeLike | None = None
     ) -> Array:
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
def generalized_normal(key: ArrayLike, p: ArrayLike, shape: ShapeLike = (),
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


@api_boundary
def ball(key: ArrayLike, d: int, p: float = 2, shape: ShapeLike = (), dtype: DTypeLike | None = None
        ) -> Array:
    """Uniform samples from the unit Lp ball in ``d`` dimensions (shape ``shape + (d,)``),
    by Barthe-Guedon-Mendelson-Naor: generalized normals scaled by an exponential draw.

    Example:
        >>> import funcarray.random as fr
        >>> x = fr.ball(fr.key(0), 3, shape=(100,))
        >>> x.shape, bool(((x * x).sum(-1) <= 1).all())
        ((100, 3), True)
    """
    key = check_key("ball", key)
    shape = canonical_shape("ball", shape)
    dtype = _float_dtype("ball", dtype)
    d = _concrete_size("ball", "d", d)
    p = _promoted("ball", p)
    if _shape_of(p):
        raise op_value_error("ball", f"p must be a scalar, got shape {p.shape}")
    key_g, key_e = _keys_pair(key)
    g = _generalized_normal(key_g, p, shape + (d,), dtype)
    e = _draw_exponential(key_e, shape, dtype)
    radius = (fnp.sum(fnp.abs(g) ** p, axis=-1) + e) ** (1.0 / p)
    return g / radius[..., None]


def _concrete_size(op: str, name: str, n) -> int:
    import operator

    try:
        n = operator.index(n)
    except TypeError:
        raise op_type_error(
            op, f"{name} must be a concrete non-negative integer (it fixes the result shape), "
                f"got {type(n).__name__}") from None
    if n < 0:
        raise op_value_error(op, f"{name} must be non-negative, got {n}")
    return n


# --------------------------------------------------------------------------------------------
# Orthogonal matrices
# --------------------------------------------------------------------------------------------

@api_boundary
def orthogonal(key: ArrayLike, n: int, shape: ShapeLike = (), dtype: DTypeLike | None = None,
               m: int | None = None) -> Array:
    """Uniform samples from the orthogonal group O(n), shape ``shape + (n, m)``; ``m != n``
    gives semi-orthogonal matrices. (JAX's complex dtypes, for the unitary group, need a
    complex QR, which ``funcarray.numpy.linalg`` does not have yet.)

    The QR factorisation of a normal matrix, with the columns' signs fixed by ``R``'s
    diagonal (Mezzadri 2007), as in JAX.

    Example:
        >>> import funcarray.numpy as fnp
        >>> import funcarray.random as fr
        >>> q = fr.orthogonal(fr.key(0), 3)
        >>> bool(fnp.allclose(q @ q.T, fnp.eye(3), atol=1e-5))
        True
    """
    key = check_key("orthogonal", key)
    shape = canonical_shape("orthogonal", shape)
    dtype = _float_dtype("orthogonal", dtype)
    n = _concrete_size("orthogonal", "n", n)
    m = n if m is None else _concrete_size("orthogonal", "m", m)
    z = _normal(key, (*shape, max(n, m), min(n, m)), dtype)
    q, r = fnp.linalg.qr(z)
    signs = fnp.sign(fnp.diagonal(r, axis1=-2, axis2=-1))
    x = q * signs[..., None, :]
    return fnp.swapaxes(x, -1, -2) if n < m else x
