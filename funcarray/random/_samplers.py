"""Samplers with ``jax.random``'s names, signatures and algorithms.

Every sampler takes a single key (shape ``(2,)``); ``vmap`` maps over a batch of keys.
Defaults follow JAX's 32-bit mode (float32, int32, uint32). ``uniform``, ``randint`` and
``bits`` give JAX's bits exactly; the other samplers apply the same transformations to them and
agree with JAX to within float rounding.

Rejection loops (``gamma`` and friends, ``poisson``) run until every element is done, exactly
like JAX's ``while_loop``: on concrete arrays as a Python loop, under a trace (``jit``,
``vmap``, ``grad``) as ``funcarray.lax.while_loop``, so that XLA compiles one loop body instead
of an unrolled copy per round. ``gamma`` is differentiable in its shape parameter along the
sample path (the loop itself only decides which normal draw is accepted).
"""

from __future__ import annotations

import functools
import math
import sys
from typing import TYPE_CHECKING

import numpy as np

from funcarray import dtypes
from funcarray import numpy as fnp
from funcarray._arguments import asarray_arg, broadcast_shapes, canonicalize_axis, convert
from funcarray._custom import custom_jvp
from funcarray._errors import api_boundary, op_type_error, op_value_error
from funcarray.array import Array
from funcarray.primitives import elementwise as ew
from funcarray.primitives.special import erf_inv_p, erf_p, lgamma_p
from funcarray.random._prng import _random_bits, _split, canonical_shape, check_key
from funcarray.transforms.core import running_numpy_kernels

if TYPE_CHECKING:
    from funcarray.typing import ArrayLike, DTypeLike, ShapeLike

__all__ = ["uniform", "normal", "randint", "bernoulli", "categorical", "choice", "permutation",
           "truncated_normal", "gamma", "loggamma", "beta", "dirichlet", "exponential",
           "laplace", "logistic", "multivariate_normal", "gumbel", "poisson"]

_UINT_OF_BITS = {8: dtypes.uint8, 16: dtypes.uint16, 32: dtypes.uint32, 64: dtypes.uint64}


# --------------------------------------------------------------------------------------------
# Argument helpers
# --------------------------------------------------------------------------------------------

def _float_dtype(op: str, dtype) -> np.dtype:
    dtype = dtypes.default_float if dtype is None else dtypes.canonicalize_dtype(dtype)
    if not dtypes.is_float(dtype):
        raise op_value_error(op, f"dtype must be a floating dtype, got {dtype}")
    return dtype


def _int_dtype(op: str, dtype) -> np.dtype:
    dtype = dtypes.default_int if dtype is None else dtypes.canonicalize_dtype(dtype)
    if not dtypes.is_integer(dtype):
        raise op_value_error(op, f"dtype must be an integer dtype, got {dtype}")
    return dtype


def _param(op: str, x, dtype):
    """A distribution parameter converted (strongly) to ``dtype``."""
    if type(x) in (int, float):
        return asarray_arg(op, x, dtype)  # straight to dtype: 0.1 must not pass float32
    return convert(asarray_arg(op, x), dtype)


def _check_shape(op: str, shape: tuple, *param_shapes):
    """``shape`` must be the broadcast of itself with every parameter's shape (JAX's rule)."""
    if not param_shapes:
        return
    together = broadcast_shapes(op, shape, *param_shapes)
    if together != shape:
        raise op_value_error(
            op, f"parameter shapes {', '.join(str(s) for s in param_shapes)} must broadcast to "
                f"the requested shape {shape}, but broadcasting gives {together}")


def _result_shape(op: str, shape, *params) -> tuple:
    """``shape`` checked against the parameters, or their broadcast shape when None."""
    if shape is None:
        return broadcast_shapes(op, *(p.shape for p in params)) if params else ()
    shape = canonical_shape(op, shape)
    _check_shape(op, shape, *(p.shape for p in params))
    return shape


def _is_concrete(x) -> bool:
    return type(x) is Array


# A masked loop on concrete values runs until no element is pending (JAX's while_loop); this
# limit only guards against a bug turning that into an endless loop.
_SAFETY_ROUNDS = 100_000


def _rejection_loop(pending, body, state):
    """``while pending(state): state = body(state)``, ``pending`` giving a bool scalar.

    On concrete values this is a Python loop (as in JAX, it stops when nothing is pending).
    Once a value is traced it continues as ``funcarray.lax.while_loop``, whose compiled form
    is one loop body, however many rounds the values need.
    """
    from funcarray import tree
    from funcarray.lax import while_loop

    for _ in range(_SAFETY_ROUNDS):
        if not all(_is_concrete(x) for x in tree.leaves(state)):
            return while_loop(pending, body, state)
        going = pending(state)
        if not _is_concrete(going):
            return while_loop(pending, body, state)
        if not bool(going):
            return state
        state = body(state)
    raise RuntimeError("funcarray.random: a rejection loop did not finish; please report this")


def _rem(x, y):
    """Integer remainder with StableHLO semantics (``x rem 0`` is ``x``), broadcast."""
    x, y = fnp.broadcast_arrays(x, y)
    return ew.rem_p.bind(x, y)


# --------------------------------------------------------------------------------------------
# Batched kernels: ``keys`` has shape ``batch + (2,)``, results ``batch + shape``.
# --------------------------------------------------------------------------------------------

def _uniform(keys, shape, dtype, minval=0.0, maxval=1.0):
    info = dtypes.finfo(dtype)
    nbits, nmant = dtype.itemsize * 8, info.nmant
    # Formats with fewer than 8 mantissa bits still draw a byte of randomness (as JAX does).
    rng_bits = 8 if nmant < 8 else nbits
    uint = _UINT_OF_BITS[nbits]
    raw = convert(_random_bits(keys, rng_bits, shape), uint)
    # Random mantissa under the exponent of 1.0 gives a float in [1, 2); subtract 1.
    one_bits = int(np.array(1.0, dtype).view(uint))
    mantissa = fnp.right_shift(raw, rng_bits - nmant) | one_bits
    floats = ew.bitcast_convert_type_p.bind(mantissa, new_dtype=np.dtype(dtype)) - 1.0
    minval, maxval = _param("uniform", minval, dtype), _param("uniform", maxval, dtype)
    return fnp.maximum(minval, _fused_multiply_add(floats, maxval - minval, minval))


def _fused_multiply_add(a, b, c):
    """``a * b + c`` rounded once, as XLA computes it (it contracts float32 and float64
    multiply-adds into FMA instructions), so that scaled uniforms match JAX bit for bit.

    float32 is computed in float64 (the product is exact there); float64 uses Dekker's exact
    product and Knuth's two-sum. Narrower floats round after each operation, as XLA does,
    except float16 on a CPU with native float16 arithmetic (x86 AVX512-FP16), where XLA's CPU
    backend keeps float16 and contracts the multiply-add too (checked with jax 0.10.2).
    XLA's GPU backend does not contract them (an H200 run: jax's scaled uniforms there are
    ``a * b + c`` rounded twice), so where XLA computes this on a GPU it is the plain
    expression. (A jit with ``device=`` on another platform than the default one follows the
    default's rule; so does a jit traced before jax is first imported.)
    """
    if _xla_on_gpu():
        return a * b + c
    if a.dtype == dtypes.float32 or (a.dtype == dtypes.float16 and _native_float16_cpu()):
        wide = [convert(x, dtypes.float64) for x in (a, b, c)]
        return convert(wide[0] * wide[1] + wide[2], a.dtype)
    if a.dtype != dtypes.float64:
        return a * b + c
    product = a * b
    a_high, a_low = _dekker_split(a)
    b_high, b_low = _dekker_split(b)
    product_error = ((a_high * b_high - product) + a_high * b_low + a_low * b_high
                     + a_low * b_low)
    total = product + c
    c_part = total - product
    sum_error = (product - (total - c_part)) + (c - c_part)
    return total + (sum_error + product_error)


def _xla_on_gpu() -> bool:
    """Whether these operations will run through XLA on a non-CPU platform. NumPy kernels
    run on the host; before jax is imported nothing has been placed on a device (and eager
    CPU work must not import it just to ask)."""
    if running_numpy_kernels() or "jax" not in sys.modules:
        return False
    from funcarray.lowering.devices import default_backend

    return default_backend() != "cpu"


@functools.cache
def _native_float16_cpu() -> bool:
    """Whether this host's CPU does float16 arithmetic natively (AVX512-FP16), as NumPy's
    runtime CPU feature detection reports it."""
    from numpy._core._multiarray_umath import __cpu_features__

    return bool(__cpu_features__.get("AVX512FP16", False))


def _dekker_split(x):
    """``x`` as high + low halves of 26 bits each, whose pairwise products are exact."""
    scaled = x * 134217729.0  # 2**27 + 1
    high = scaled - (scaled - x)
    return high, x - high


def _normal_real(keys, shape, dtype):
    below_one = -1.0 + float(dtypes.finfo(dtype).epsneg)  # nextafter(-1, 0)
    u = _uniform(keys, shape, dtype, below_one, 1.0)
    return _param("normal", math.sqrt(2), dtype) * erf_inv_p.bind(u)


def _normal(keys, shape, dtype):
    if not dtypes.is_complex(dtype):
        return _normal_real(keys, shape, dtype)
    halves = _split(keys, (2,))
    real_dtype = np.dtype(np.float32 if dtype == dtypes.complex64 else np.float64)
    re = _normal_real(halves[..., 0, :], shape, real_dtype)
    im = _normal_real(halves[..., 1, :], shape, real_dtype)
    return (convert(re, dtype) + 1j * convert(im, dtype)) / _param("normal", math.sqrt(2), dtype)


# --------------------------------------------------------------------------------------------
# Uniform families
# --------------------------------------------------------------------------------------------

@api_boundary
def uniform(key: ArrayLike, shape: ShapeLike = (), dtype: DTypeLike | None = None,
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


def _convert_and_clip(x, dtype):
    """Integer ``x`` in ``dtype``, clipped to the range both dtypes can hold (not wrapped)."""
    src, dst = dtypes.iinfo(x.dtype), dtypes.iinfo(dtype)
    lo, hi = max(src.min, dst.min), min(src.max, dst.max)
    clipped = fnp.minimum(fnp.maximum(x, Array(np.asarray(lo, x.dtype))),
                          Array(np.asarray(hi, x.dtype)))
    return convert(clipped, dtype)


def _int_bound(op: str, x):
    x = asarray_arg(op, x)
    if not dtypes.is_integer(x.dtype):
        if x.dtype == np.bool_ or dtypes.is_inexact(x.dtype):
            x = convert(x, dtypes.default_int)
        else:
            raise op_type_error(op, f"minval and maxval must be integers, got {x.dtype}")
    return x


def _randint(key, shape, minval, maxval, dtype):
    nbits = dtype.itemsize * 8
    unsigned = _UINT_OF_BITS[nbits]
    # randint(..., 0, 256, uint8) must reach 255: a maxval above the dtype's range widens
    # the span by one.
    top = _convert_and_clip(Array(np.asarray(dtypes.iinfo(dtype).max, dtype)), maxval.dtype)
    maxval_out_of_range = maxval > top
    minval, maxval = _convert_and_clip(minval, dtype), _convert_and_clip(maxval, dtype)
    halves = _split(key, (2,))
    higher = _random_bits(halves[0], nbits, shape)
    lower = _random_bits(halves[1], nbits, shape)
    span = convert(maxval - minval, unsigned)
    span = fnp.where(maxval <= minval, Array(np.ones((), unsigned)), span)
    span = fnp.where(maxval_out_of_range & (maxval > minval), span + 1, span)
    # (higher * 2**nbits + lower) mod span, without overflow: 2**nbits mod span is
    # ((2**(nbits/2) mod span)**2) mod span.
    multiplier = _rem(Array(np.asarray(2 ** (nbits // 2), unsigned)), span)
    multiplier = _rem(multiplier * multiplier, span)
    offset = _rem(_rem(higher, span) * multiplier + _rem(lower, span), span)
    return minval + convert(offset, dtype)


@api_boundary
def randint(key: ArrayLike, shape: ShapeLike, minval: ArrayLike, maxval: ArrayLike,
            dtype: DTypeLike | None = None) -> Array:
    """Uniform integers in ``[minval, maxval)`` (int32 unless ``dtype`` says otherwise).

    Reproduces ``jax.random.randint`` bit for bit, including its modulo bias for spans that
    are not powers of two, and its rule that ``maxval <= minval`` gives ``minval``.

    Example:
        >>> import funcarray.random as fr
        >>> r = fr.randint(fr.key(0), (1000,), 3, 7)
        >>> sorted(set(r.tolist()))
        [3, 4, 5, 6]
    """
    key = check_key("randint", key)
    shape = canonical_shape("randint", shape)
    dtype = _int_dtype("randint", dtype)
    minval, maxval = _int_bound("randint", minval), _int_bound("randint", maxval)
    _check_shape("randint", shape, minval.shape, maxval.shape)
    info = dtypes.iinfo(dtype)
    if info.bits < 32:
        # Narrow types are sampled as int32 to keep the bias down (as JAX does).
        low, high = Array(np.asarray(info.min, np.int32)), Array(np.asarray(info.max, np.int32))
        minval = fnp.minimum(fnp.maximum(convert(minval, dtypes.int32), low), high)
        maxval = fnp.minimum(fnp.maximum(convert(maxval, dtypes.int32), low), high + 1)
        return convert(_randint(key, shape, minval, maxval, dtypes.int32), dtype)
    return _randint(key, shape, minval, maxval, dtype)


@api_boundary
def bernoulli(key: ArrayLike, p: ArrayLike = 0.5, shape: ShapeLike | None = None, mode: str = "low"
             ) -> Array:
    """Booleans that are True with probability ``p`` (a float or a float array).

    ``mode="high"`` draws twice the bits, for probabilities below about 1e-7.

    Example:
        >>> import funcarray.random as fr
        >>> fr.bernoulli(fr.key(0), 0.5, (4,)).dtype
        dtype('bool')
    """
    key = check_key("bernoulli", key)
    if mode not in ("low", "high"):
        raise op_value_error("bernoulli", f"mode must be 'high' or 'low', got {mode!r}")
    p = asarray_arg("bernoulli", p)
    if not dtypes.is_float(p.dtype):
        raise op_type_error("bernoulli", f"the probability p must have a floating dtype, got "
                                         f"{p.dtype}")
    p = convert(p, p.dtype)
    shape = _result_shape("bernoulli", shape, p)
    if mode == "high":
        both = _uniform(key, (2, *shape), p.dtype)
        u1, u2 = both[0], both[1] * 2.0 ** -dtypes.finfo(p.dtype).nmant
        return u2 < p - u1
    return _uniform(key, shape, p.dtype) < p


# --------------------------------------------------------------------------------------------
# Continuous distributions by transformation
# --------------------------------------------------------------------------------------------

def _simple(op, draw):
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
def normal(key: ArrayLike, shape: ShapeLike = (), dtype: DTypeLike | None = None) -> Array:
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
def gumbel(key: ArrayLike, shape: ShapeLike = (), dtype: DTypeLike | None = None,
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
def truncated_normal(key: ArrayLike, lower: ArrayLike, upper: ArrayLike,
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
    from funcarray._api import stop_gradient
    low = fnp.nextafter(stop_gradient(lower), _param("truncated_normal", math.inf, dtype))
    high = fnp.nextafter(stop_gradient(upper), _param("truncated_normal", -math.inf, dtype))
    return fnp.minimum(fnp.maximum(out, low), high)


# --------------------------------------------------------------------------------------------
# Gamma family (Marsaglia-Tsang)
# --------------------------------------------------------------------------------------------

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
    from funcarray._api import stop_gradient

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
def gamma(key: ArrayLike, a: ArrayLike, shape: ShapeLike | None = None,
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
def loggamma(key: ArrayLike, a: ArrayLike, shape: ShapeLike | None = None,
             dtype: DTypeLike | None = None) -> Array:
    """``log`` of gamma samples, computed in log space (accurate for small ``a``).

    Example:
        >>> import funcarray.random as fr
        >>> fr.loggamma(fr.key(0), 0.01, (3,)).shape
        (3,)
    """
    return _gamma_public("loggamma", key, a, shape, dtype, log_space=True)


@api_boundary
def beta(key: ArrayLike, a: ArrayLike, b: ArrayLike, shape: ShapeLike | None = None,
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
def dirichlet(key: ArrayLike, alpha: ArrayLike, shape: ShapeLike | None = None,
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
    from funcarray._api import stop_gradient
    unnormalized = fnp.exp(logs - stop_gradient(fnp.max(logs, axis=-1, keepdims=True)))
    return unnormalized / fnp.sum(unnormalized, axis=-1, keepdims=True)


# --------------------------------------------------------------------------------------------
# Multivariate normal
# --------------------------------------------------------------------------------------------

def _cholesky(a):
    """Lower Cholesky factor of symmetric positive-definite ``a`` (..., n, n), column by column
    (NaN where ``a`` is not positive definite, like ``jnp.linalg.cholesky``)."""
    a = (a + fnp.swapaxes(a, -1, -2)) / 2.0
    n = a.shape[-1]
    rows = fnp.arange(n)
    columns = []
    for j in range(n):
        v = a[..., :, j]
        if columns:
            done = fnp.stack(columns, axis=-1)          # (..., n, j)
            v = v - fnp.sum(done * done[..., j:j + 1, :], axis=-1)
        pivot = fnp.sqrt(v[..., j:j + 1])
        columns.append(fnp.where(rows >= j, v / pivot, 0.0))
    return fnp.stack(columns, axis=-1)


@api_boundary
def multivariate_normal(key: ArrayLike, mean: ArrayLike, cov: ArrayLike,
                        shape: ShapeLike | None = None, dtype: DTypeLike | None = None,
                        method: str = "cholesky") -> Array:
    """Multivariate normal samples with ``mean`` (..., n) and covariance ``cov`` (..., n, n).

    The result has shape ``shape + (n,)`` (``shape`` defaults to the broadcast batch shape of
    ``mean`` and ``cov``). Only ``method="cholesky"`` (JAX's default) is available.

    Example:
        >>> import funcarray.random as fr
        >>> x = fr.multivariate_normal(fr.key(0), [0.0, 1.0], [[1.0, 0.5], [0.5, 2.0]], (5,))
        >>> x.shape
        (5, 2)
    """
    key = check_key("multivariate_normal", key)
    if method != "cholesky":
        raise op_value_error("multivariate_normal",
                             f"only method='cholesky' is implemented, got {method!r}")
    mean, cov = asarray_arg("multivariate_normal", mean), asarray_arg("multivariate_normal", cov)
    common = dtypes.result_type(mean, cov)
    common = common if dtypes.is_inexact(common) else dtypes.default_float
    dtype = common if dtype is None else _float_dtype("multivariate_normal", dtype)
    mean, cov = convert(mean, common), convert(cov, common)
    if mean.ndim < 1:
        raise op_value_error("multivariate_normal", "mean must have at least one dimension")
    n = mean.shape[-1]
    if cov.ndim < 2 or cov.shape[-2:] != (n, n):
        raise op_value_error(
            "multivariate_normal", f"cov must have shape (..., {n}, {n}) to match mean of shape "
                                   f"{mean.shape}, got {cov.shape}")
    if shape is None:
        shape = broadcast_shapes("multivariate_normal", mean.shape[:-1], cov.shape[:-2])
    else:
        shape = canonical_shape("multivariate_normal", shape)
        _check_shape("multivariate_normal", shape, mean.shape[:-1], cov.shape[:-2])
    factor = _cholesky(cov)
    samples = _normal(key, shape + (n,), dtype)
    return mean + fnp.matmul(factor, samples[..., None])[..., 0]


# --------------------------------------------------------------------------------------------
# Discrete choices
# --------------------------------------------------------------------------------------------

def _shuffle(key, x, axis: int):
    """Sort by fresh random 32-bit keys, enough rounds that ties are negligible (JAX's
    schedule: ceil(3 ln(size) / ln(2**32 - 1)) rounds)."""
    rounds = int(np.ceil(3 * np.log(max(1, x.size)) / np.log(2 ** 32 - 1)))
    for _ in range(rounds):
        pair = _split(key, (2,))
        key, subkey = pair[0], pair[1]
        order = fnp.argsort(_random_bits(subkey, 32, x.shape), axis=axis, stable=True)
        x = fnp.take_along_axis(x, order, axis=axis)
    return x


@api_boundary
def permutation(key: ArrayLike, x: ArrayLike, axis: int = 0, independent: bool = False) -> Array:
    """A random permutation of ``arange(x)`` (an int) or of ``x``'s slices along ``axis``
    (each slice shuffled separately when ``independent``).

    Example:
        >>> import funcarray.random as fr
        >>> sorted(fr.permutation(fr.key(0), 5).tolist())
        [0, 1, 2, 3, 4]
    """
    key = check_key("permutation", key)
    if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
        return _shuffle(key, fnp.arange(int(x)), 0)
    x = asarray_arg("permutation", x)
    if x.ndim == 0:
        if not dtypes.is_integer(x.dtype) or not _is_concrete(x):
            raise op_type_error("permutation", "x must be a concrete integer or an array with at "
                                               "least one dimension")
        return _shuffle(key, fnp.arange(int(x)), 0)
    axis = canonicalize_axis("permutation", axis, x.ndim)
    if independent or x.ndim == 1:
        return _shuffle(key, x, axis)
    order = _shuffle(key, fnp.arange(x.shape[axis]), 0)
    return fnp.take(x, order, axis=axis)


def _top_k_indices(values, k: int):
    """Indices of the ``k`` largest values along the last axis (ties: lowest index first)."""
    return fnp.argsort(values, axis=-1, stable=True, descending=True)[..., :k]


@api_boundary
def choice(key: ArrayLike, a: int | ArrayLike, shape: ShapeLike = (), replace: bool = True,
           p: ArrayLike | None = None, axis: int = 0, mode: str | None = None) -> Array:
    """Random samples from ``a`` (an array, or ``arange(a)`` for an int), with or without
    replacement, uniformly or with probabilities ``p``.

    Example:
        >>> import funcarray.random as fr
        >>> draws = fr.choice(fr.key(0), 5, (3,), replace=False)
        >>> len(set(draws.tolist()))
        3
    """
    key = check_key("choice", key)
    if not isinstance(shape, (tuple, list)):
        raise op_type_error("choice", f"shape must be a sequence, got {shape!r}")
    shape = canonical_shape("choice", shape)
    arr = asarray_arg("choice", a)
    if arr.ndim == 0:
        if not dtypes.is_integer(arr.dtype) or not _is_concrete(arr):
            raise op_type_error("choice", "a must be a concrete integer or an array")
        n_inputs = int(arr)
    else:
        axis = canonicalize_axis("choice", axis, arr.ndim)
        n_inputs = arr.shape[axis]
    n_draws = math.prod(shape)
    if n_draws == 0:
        return fnp.zeros(shape, dtype=arr.dtype)
    if n_inputs <= 0:
        raise op_value_error("choice", "a must be greater than 0 unless no samples are taken")
    if not replace and n_draws > n_inputs:
        raise op_value_error(
            "choice", f"cannot take a larger sample (size {n_draws}) than the population (size "
                      f"{n_inputs}) when replace=False")
    if p is None:
        if replace:
            ind = randint(key, shape, 0, n_inputs)
            result = ind if arr.ndim == 0 else fnp.take(arr, ind, axis=axis)
        else:
            population = n_inputs if arr.ndim == 0 else arr
            shuffled = permutation(key, population, axis)
            result = shuffled[(slice(None),) * (axis if arr.ndim else 0) + (slice(n_draws),)]
    else:
        p = asarray_arg("choice", p)
        p = convert(p, p.dtype if dtypes.is_inexact(p.dtype) else dtypes.default_float)
        if p.shape != (n_inputs,):
            raise op_value_error(
                "choice", f"p must be None or a 1-d vector with the same size as a.shape[axis]; "
                          f"p has shape {p.shape} and a.shape[axis] is {n_inputs}")
        if replace:
            cumulative = fnp.cumsum(p)
            r = cumulative[-1] * (1.0 - _uniform(key, shape, p.dtype))
            # searchsorted(cumulative, r, side="left"): how many entries lie below r.
            ind = fnp.sum(cumulative < r[..., None], axis=-1, dtype=dtypes.int32)
        else:
            draw_mode = "low" if mode is None else mode
            g = _draw_gumbel(key, (n_inputs,), p.dtype, draw_mode) + fnp.log(p)
            ind = _top_k_indices(g, n_draws)
        result = ind if arr.ndim == 0 else fnp.take(arr, ind, axis=axis)
    out_shape = shape if arr.ndim == 0 else arr.shape[:axis] + shape + arr.shape[axis + 1:]
    return fnp.reshape(result, out_shape)


@api_boundary
def categorical(key: ArrayLike, logits: ArrayLike, axis: int = -1, shape: ShapeLike | None = None,
                replace: bool = True, mode: str | None = None) -> Array:
    """Category indices (int32) drawn with probabilities ``softmax(logits, axis)``, by the
    Gumbel-max trick (Gumbel-top-k without replacement).

    Example:
        >>> import funcarray.random as fr
        >>> fr.categorical(fr.key(0), [-1e9, 0.0], shape=(3,))
        Array([1, 1, 1], dtype=int32)
    """
    key = check_key("categorical", key)
    logits = asarray_arg("categorical", logits)
    if not dtypes.is_float(logits.dtype):
        raise op_type_error("categorical", f"logits must have a floating dtype, got "
                                           f"{logits.dtype}")
    if logits.ndim == 0:
        raise op_value_error("categorical", "logits must have at least one dimension")
    axis = canonicalize_axis("categorical", axis, logits.ndim)
    mode = "low" if mode is None else mode
    if mode not in ("low", "high"):
        raise op_value_error("categorical", f"mode must be 'low' or 'high', got {mode!r}")
    batch_shape = logits.shape[:axis] + logits.shape[axis + 1:]
    if shape is None:
        shape = batch_shape
    else:
        shape = canonical_shape("categorical", shape)
        _check_shape("categorical", shape, batch_shape)
    prefix = shape[:len(shape) - len(batch_shape)]
    if replace:
        draw_shape = list(shape[len(prefix):])
        draw_shape.insert(axis, logits.shape[axis])
        noise = _draw_gumbel(key, prefix + tuple(draw_shape), logits.dtype, mode)
        scores = noise + fnp.reshape(logits, (1,) * len(prefix) + logits.shape)
        return fnp.argmax(scores, axis=axis - logits.ndim)
    k = math.prod(prefix)
    if k > logits.shape[axis]:
        raise op_value_error(
            "categorical", f"the number of samples without replacement ({k}) cannot exceed the "
                           f"number of categories ({logits.shape[axis]})")
    scores = logits + _draw_gumbel(key, logits.shape, logits.dtype, mode)
    indices = _top_k_indices(fnp.moveaxis(scores, axis, -1), k)      # batch + (k,)
    indices = fnp.moveaxis(indices, -1, 0)                           # (k,) + batch
    return fnp.reshape(indices, shape)


# --------------------------------------------------------------------------------------------
# Poisson
# --------------------------------------------------------------------------------------------

def _poisson_knuth(key, lam, shape):
    """Knuth's method: count uniforms until their product drops below exp(-lam)."""
    def body(state):
        key, k, log_prod = state
        pair = _split(key, (2,))
        k = fnp.where(log_prod > -lam, k + 1, k)
        return pair[0], k, log_prod + fnp.log(_uniform(pair[1], shape, dtypes.float32))

    init = (key, fnp.zeros(shape, dtypes.int32), fnp.zeros(shape, dtypes.float32))
    k = _rejection_loop(lambda state: fnp.any(state[2] > -lam), body, init)[1]
    return k - 1


def _poisson_rejection(key, lam, shape):
    """Hormann's transformed rejection (PTRS). Like JAX's loop, a later acceptance overwrites
    an earlier one until every element has been accepted once."""
    log_lam = fnp.log(lam)
    b = 0.931 + 2.53 * fnp.sqrt(lam)
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    v_r = 0.9277 - 3.6224 / (b - 2)

    def body(state):
        key, k_out, accepted = state
        triple = _split(key, (3,))
        u = _uniform(triple[1], shape, dtypes.float32) - 0.5
        v = _uniform(triple[2], shape, dtypes.float32)
        u_shifted = 0.5 - fnp.abs(u)
        k = fnp.floor((2 * a / u_shifted + b) * u + lam + 0.43)
        s = fnp.log(v * inv_alpha / (a / (u_shifted * u_shifted) + b))
        t = -lam + k * log_lam - lgamma_p.bind(k + 1)
        accept1 = (u_shifted >= 0.07) & (v <= v_r)
        reject = (k < 0) | ((u_shifted < 0.013) & (v > u_shifted))
        accept = accept1 | (~reject & (s <= t))
        return triple[0], fnp.where(accept, k, k_out), accepted | accept

    init = (key, fnp.full(shape, -1.0, dtypes.float32), fnp.zeros(shape, dtypes.bool_))
    return _rejection_loop(lambda state: ~fnp.all(state[2]), body, init)[1]


@api_boundary
def poisson(key: ArrayLike, lam: ArrayLike, shape: ShapeLike | None = None,
            dtype: DTypeLike | None = None) -> Array:
    """Poisson samples with rate ``lam >= 0`` (int32 unless ``dtype`` says otherwise).

    Knuth's algorithm for ``lam < 10``, Hormann's transformed rejection above, as in JAX
    (the rate is computed in float32).

    Example:
        >>> import funcarray.random as fr
        >>> x = fr.poisson(fr.key(0), 4.0, (2000,))
        >>> abs(float(x.mean()) - 4.0) < 0.2
        True
    """
    key = check_key("poisson", key)
    dtype = _int_dtype("poisson", dtype)
    lam = asarray_arg("poisson", lam)
    shape = lam.shape if shape is None else canonical_shape("poisson", shape)
    lam = convert(fnp.broadcast_to(lam, shape), dtypes.float32)
    use_knuth = fnp.isnan(lam) | (lam < 10)
    knuth = _poisson_knuth(key, fnp.where(use_knuth, lam, 0.0), shape)
    rejection = _poisson_rejection(key, fnp.where(use_knuth, 1e5, lam), shape)
    result = fnp.where(use_knuth, convert(knuth, dtype), convert(rejection, dtype))
    return fnp.where(lam == 0, Array(np.zeros((), dtype)), result)
