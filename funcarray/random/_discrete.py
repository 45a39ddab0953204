"""Discrete samplers: ``randint``, ``bernoulli``, ``categorical``, ``poisson``,
``rademacher``, ``geometric``, ``binomial``, ``multinomial``.

``randint`` reproduces ``jax.random.randint`` bit for bit. ``categorical`` uses the Gumbel-max
trick (Gumbel-top-k without replacement). ``poisson`` is Knuth's method for small rates and
transformed rejection above, as in JAX. ``binomial`` follows JAX (which follows TensorFlow):
inversion by summed geometric draws when ``n * min(p, 1 - p) <= 10``,
Kachitvichyanukul-Schmeiser's BTRS transformed rejection above, each a loop over whole-shape
draws from one key that runs until every element is done (``_rejection_loop``: a Python loop
on concrete values, ``lax.while_loop`` under a trace). Both loops run, from the same key, and a
select picks each element's result, so the same key gives JAX's counts. ``multinomial`` draws
the categories one after another, each a binomial of what is left, with one key per category.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from funcarray import numpy as fnp
from funcarray.api.arguments import asarray_arg, canonicalize_axis, convert, to_inexact_dtype
from funcarray.base import dtypes
from funcarray.base.array import Array
from funcarray.base.errors import api_boundary, op_type_error, op_value_error
from funcarray.primitives.special import lgamma_p
from funcarray.random._continuous import _draw_gumbel
from funcarray.random._prng import _UINT_OF_WIDTH, _random_bits, _split, canonical_shape, check_key
from funcarray.random._sampling import (
    _check_shape,
    _int_dtype,
    _rejection_loop,
    _rem,
    _result_shape,
    _top_k_indices,
    _uniform,
)

if TYPE_CHECKING:
    from funcarray.base.typing import ArrayLike, DTypeLike, ShapeLike
    from funcarray.random._keys import KeyArrayLike

__all__ = ["randint", "bernoulli", "categorical", "poisson", "rademacher", "geometric", "binomial",
           "multinomial"]


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
    unsigned = _UINT_OF_WIDTH[nbits]
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
def randint(key: KeyArrayLike, shape: ShapeLike, minval: ArrayLike, maxval: ArrayLike,
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
def bernoulli(key: KeyArrayLike, p: ArrayLike = 0.5, shape: ShapeLike | None = None,
              mode: str = "low") -> Array:
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


@api_boundary
def categorical(key: KeyArrayLike, logits: ArrayLike, axis: int = -1,
                shape: ShapeLike | None = None, replace: bool = True, mode: str | None = None
                ) -> Array:
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
def poisson(key: KeyArrayLike, lam: ArrayLike, shape: ShapeLike | None = None,
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


def _inexact_param(op: str, x):
    """``x`` as a strong array of an inexact dtype (JAX's ``promote_dtypes_inexact``)."""
    arr = asarray_arg(op, x)
    if not (dtypes.is_inexact(arr.dtype) or dtypes.is_integer(arr.dtype)
            or arr.dtype == np.bool_):
        raise op_type_error(op, f"parameters must be numbers, got dtype {arr.dtype}")
    return convert(arr, to_inexact_dtype(arr.dtype))


def _sample_dtype(op: str, dtype) -> np.dtype:
    dtype = dtypes.default_float if dtype is None else dtypes.canonicalize_dtype(dtype)
    if not dtypes.is_float(dtype):
        raise op_value_error(op, f"dtype must be a floating dtype (counts are returned as "
                                 f"floats, as in JAX), got {dtype}")
    return dtype


@api_boundary
def rademacher(key: KeyArrayLike, shape: ShapeLike = (), dtype: DTypeLike | None = None) -> Array:
    """Random signs: -1 or 1 with probability 1/2 each (int32 unless ``dtype`` says
    otherwise), as ``2 * bernoulli(key, 0.5, shape) - 1``.

    Example:
        >>> import funcarray.random as fr
        >>> sorted(set(fr.rademacher(fr.key(0), (100,)).tolist()))
        [-1, 1]
    """
    key = check_key("rademacher", key)
    shape = canonical_shape("rademacher", shape)
    dtype = dtypes.default_int if dtype is None else dtypes.canonicalize_dtype(dtype)
    heads = _uniform(key, shape, dtypes.float32) < 0.5
    return convert(2 * convert(heads, dtype) - 1, dtype)


@api_boundary
def geometric(key: KeyArrayLike, p: ArrayLike, shape: ShapeLike | None = None,
              dtype: DTypeLike | None = None) -> Array:
    """Geometric samples: the number of Bernoulli(``p``) trials up to and including the first
    success (values 1, 2, ...; int32 unless ``dtype`` says otherwise).

    Example:
        >>> import funcarray.random as fr
        >>> bool((fr.geometric(fr.key(0), 0.3, (100,)) >= 1).all())
        True
    """
    key = check_key("geometric", key)
    dtype = _int_dtype("geometric", dtype)
    p = _inexact_param("geometric", p)
    shape = _result_shape("geometric", shape, p)
    u = _uniform(key, shape, p.dtype)
    # u == 0 is mapped to 1 (JAX's choice): a finite log without changing the other samples.
    u = fnp.where(u == 0, Array(np.ones((), p.dtype)), u)
    log_one_minus_p = fnp.broadcast_to(fnp.log1p(-p), shape)
    return convert(fnp.floor(fnp.log(u) / log_one_minus_p) + 1.0, dtype)


# log(k!) - (Stirling's approximation of it) for k = 0..9 (TensorFlow's table).
_STIRLING_TAIL = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983,
                  0.02079067210376509, 0.0166446911898211, 0.0138761288230707,
                  0.0118967099458917, 0.0104112652619720, 0.00925546218271273,
                  0.00833056343336287)


def _stirling_tail(k):
    """The table for ``k <= 9``, the series above. Like JAX, the series is evaluated at ``k``
    clamped to [0, 9], so every ``k > 9`` gets the series' value at 9 (kept for agreement)."""
    table = Array(np.asarray(_STIRLING_TAIL, k.dtype))
    small = k <= 9
    k = fnp.clip(k, 0.0, 9.0)
    kp1sq = (k + 1.0) * (k + 1.0)
    series = (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1.0)
    tabulated = fnp.take(table, convert(fnp.floor(k), dtypes.int32))
    return fnp.where(small, tabulated, series)


def _binomial_inversion(key, count, prob, shape):
    """Count geometric waiting times (``ceil(log u / log(1 - p))``) until they sum past
    ``count``; ``prob == 0`` gives an infinite first wait (``log1p(-0.0) == -0.0``)."""
    log1minusprob = fnp.log1p(-prob)

    def body(state):
        key, num_geom, geom_sum = state
        pair = _split(key, (2,))
        subkey, key = pair[0], pair[1]
        num_geom = fnp.where(geom_sum <= count, num_geom + 1.0, num_geom)
        u = _uniform(subkey, shape, prob.dtype)
        return key, num_geom, geom_sum + fnp.ceil(fnp.log(u) / log1minusprob)

    zeros = fnp.zeros(shape, prob.dtype)
    state = _rejection_loop(lambda s: fnp.any(s[2] <= count), body, (key, zeros, zeros))
    return state[1] - 1.0


def _binomial_btrs(key, count, prob, shape):
    """Transformed rejection with squeeze (BTRS; Hormann 1993), for ``count * prob > 10``."""
    stddev = fnp.sqrt(count * prob * (1.0 - prob))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = count * prob + 0.5
    v_r = 0.92 - 4.2 / b
    r = prob / (1.0 - prob)
    alpha = (2.83 + 5.1 / b) * stddev
    m = fnp.floor((count + 1.0) * prob)

    def body(state):
        key, k_out, accepted = state
        triple = _split(key, (3,))
        u = _uniform(triple[1], shape, prob.dtype) - 0.5
        v = _uniform(triple[2], shape, prob.dtype)
        us = 0.5 - fnp.abs(u)
        accept_fast = (us >= 0.07) & (v <= v_r)
        k = fnp.floor((2.0 * a / us + b) * u + c)
        reject = (k < 0) | (k > count)
        log_v = fnp.log(v * alpha / (a / (us * us) + b))
        # Summed in JAX's order, so that rounding decides borderline candidates alike.
        bound = ((m + 0.5) * fnp.log((m + 1.0) / (r * (count - m + 1.0)))
                 + (count + 1.0) * fnp.log((count - m + 1.0) / (count - k + 1.0))
                 + (k + 0.5) * fnp.log(r * (count - k + 1.0) / (k + 1.0))
                 + _stirling_tail(m) + _stirling_tail(count - m)
                 - _stirling_tail(k) - _stirling_tail(count - k))
        accept = accept_fast | (~reject & (log_v <= bound))
        return triple[0], fnp.where(accept, k, k_out), accepted | accept

    init = (key, fnp.full(shape, -1.0, prob.dtype), fnp.zeros(shape, dtypes.bool_))
    return _rejection_loop(lambda s: ~fnp.all(s[2]), body, init)[1]


def _binomial(key, count, prob, shape, dtype):
    """Binomial counts (as ``dtype``) for ``count`` and ``prob`` of one float dtype."""
    count = fnp.broadcast_to(count, shape)
    prob = fnp.broadcast_to(prob, shape)
    fdt = prob.dtype

    def full(value):
        return fnp.full(shape, value, fdt)

    p_below_half = prob < 0.5
    q = fnp.where(p_below_half, prob, 1.0 - prob)
    count_nan_or_neg = fnp.isnan(count) | (count < 0.0)
    count_inf = fnp.isinf(count)
    q_nan, q_negative = fnp.isnan(q), q < 0.0
    q = fnp.where(q_nan | q_negative, full(0.01), q)
    use_inversion = count_nan_or_neg | (count * q <= 10.0)
    count = fnp.floor(count)
    inversion = _binomial_inversion(key, fnp.where(use_inversion, count, full(0.0)), q, shape)
    btrs = _binomial_btrs(key, fnp.where(use_inversion, full(1e4), count),
                          fnp.where(use_inversion, full(0.5), q), shape)
    samples = fnp.where(use_inversion, convert(inversion, dtype), convert(btrs, dtype))
    # NaN for a NaN or negative count or an invalid p, inf for an infinite count.
    invalid = q_negative | q_nan | count_nan_or_neg
    samples = fnp.where(invalid, fnp.full(shape, np.nan, dtype), samples)
    samples = fnp.where(count_inf & ~invalid, fnp.full(shape, np.inf, dtype), samples)
    # Samples were drawn for min(p, 1 - p); count the failures instead where p >= 1/2.
    keep = p_below_half | count_nan_or_neg | q_nan | count_inf
    return fnp.where(keep, samples, convert(count, dtype) - samples)


@api_boundary
def binomial(key: KeyArrayLike, n: ArrayLike, p: ArrayLike, shape: ShapeLike | None = None,
             dtype: DTypeLike | None = None) -> Array:
    """Binomial counts of successes in ``n`` trials of probability ``p`` (returned as floats:
    float32 unless ``dtype`` says otherwise, as in JAX).

    A float ``n`` is floored; a NaN or negative ``n`` or a ``p`` outside [0, 1] gives NaN, an
    infinite ``n`` gives inf.

    Example:
        >>> import funcarray.random as fr
        >>> x = fr.binomial(fr.key(0), 20.0, 0.3, (2000,))
        >>> abs(float(x.mean()) - 6.0) < 0.2
        True
    """
    key = check_key("binomial", key)
    dtype = _sample_dtype("binomial", dtype)
    n = asarray_arg("binomial", n)
    p = _inexact_param("binomial", p)
    if not (dtypes.is_float(n.dtype) or dtypes.is_integer(n.dtype)):
        raise op_type_error("binomial", f"n must be a real number, got dtype {n.dtype}")
    if dtypes.is_complex(p.dtype):
        raise op_type_error("binomial", f"p must be real, got dtype {p.dtype}")
    shape = _result_shape("binomial", shape, n, p)
    return _binomial(key, convert(n, p.dtype), p, shape, dtype)


@api_boundary
def multinomial(key: KeyArrayLike, n: ArrayLike, p: ArrayLike, *, shape: ShapeLike | None = None,
                dtype: DTypeLike | None = None, unroll: int | bool = 1) -> Array:
    """Multinomial counts: ``n`` trials spread over the outcomes of probability ``p`` (outcomes
    along the last axis). The result has shape ``p.shape`` or ``shape``, which, as in JAX's
    implementation, includes the outcome axis; ``n`` broadcasts to the batch ``shape[:-1]``.

    Categories are drawn in order, each as a binomial of the trials left with probability
    ``p_i / (p_i + ... + p_last)``. ``unroll`` is accepted for JAX compatibility: the loop over
    categories is always unrolled.

    Example:
        >>> import funcarray.random as fr
        >>> c = fr.multinomial(fr.key(0), 10.0, [0.2, 0.3, 0.5])
        >>> c.shape, float(c.sum())
        ((3,), 10.0)
    """
    key = check_key("multinomial", key)
    dtype = _sample_dtype("multinomial", dtype)
    n, p = asarray_arg("multinomial", n), asarray_arg("multinomial", p)
    common = dtypes.result_type(n, p)
    common = to_inexact_dtype(common)
    if not dtypes.is_float(common):
        raise op_type_error("multinomial", f"n and p must be real, got {n.dtype} and {p.dtype}")
    n, p = convert(n, common), convert(p, common)
    if p.ndim < 1:
        raise op_value_error("multinomial", "p must have at least one dimension (the outcomes)")
    shape = p.shape if shape is None else canonical_shape("multinomial", shape)
    if len(shape) < 1:
        raise op_value_error("multinomial", "shape must include the outcome axis (last)")
    _check_shape("multinomial", shape, p.shape)
    _check_shape("multinomial", shape[:-1], n.shape)
    remainder = fnp.broadcast_to(n, shape[:-1])
    p = fnp.moveaxis(fnp.broadcast_to(p, shape), -1, 0)
    # Probability of each outcome given that none of the earlier ones happened.
    remaining = fnp.flip(fnp.cumsum(fnp.flip(p, 0), axis=0), 0)
    ratios = p / fnp.where(remaining == 0, Array(np.ones((), common)), remaining)
    ratios = fnp.clip(ratios, 0.0, 1.0)
    keys = _split(key, (shape[-1],))
    counts = []
    for i in range(shape[-1]):
        count = _binomial(keys[i], remainder, ratios[i], shape[:-1], common)
        remainder = remainder - count
        counts.append(count)
    return convert(fnp.stack(counts, axis=-1), dtype)
