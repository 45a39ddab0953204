"""The discrete samplers of ``jax.random`` beyond ``randint``/``bernoulli``/``poisson``:
``rademacher``, ``geometric``, ``binomial``, ``multinomial``; and the key utilities ``clone``
and ``key_impl``.

``binomial`` follows JAX (which follows TensorFlow): inversion by summed geometric draws when
``n * min(p, 1 - p) <= 10``, Kachitvichyanukul-Schmeiser's BTRS transformed rejection above,
each a loop over whole-shape draws from one key that runs until every element is done
(``_rejection_loop``: a Python loop on concrete values, ``lax.while_loop`` under a trace). Both
loops run, from the same key, and a select picks each element's result, so the same key gives
JAX's counts. ``multinomial`` draws the categories one after another, each a binomial of what
is left, with one key per category.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from funcarray import dtypes
from funcarray import numpy as fnp
from funcarray._arguments import asarray_arg, convert, to_inexact_dtype
from funcarray._errors import api_boundary, op_type_error, op_value_error
from funcarray.array import Array
from funcarray.random._prng import _split, canonical_shape, check_key
from funcarray.random._samplers import (
    _check_shape,
    _int_dtype,
    _rejection_loop,
    _result_shape,
    _uniform,
)

if TYPE_CHECKING:
    from funcarray.typing import ArrayLike, DTypeLike, ShapeLike

__all__ = ["rademacher", "geometric", "binomial", "multinomial", "clone", "key_impl"]


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


# --------------------------------------------------------------------------------------------
# Key utilities
# --------------------------------------------------------------------------------------------

@api_boundary
def clone(key: ArrayLike) -> Array:
    """A copy of ``key`` for deliberate reuse; for funcarray's raw uint32 keys (as for JAX's
    outside its key-reuse checker) this is the identity.

    Example:
        >>> import funcarray.random as fr
        >>> k = fr.key(0)
        >>> bool(fr.uniform(k) == fr.uniform(fr.clone(k)))
        True
    """
    return check_key("clone", key, batched=True)


@api_boundary
def key_impl(keys: ArrayLike) -> str:
    """The name of the PRNG implementation behind ``keys``: always ``"threefry2x32"``, the
    only one funcarray has (JAX's answer for raw uint32 keys too).

    Example:
        >>> import funcarray.random as fr
        >>> fr.key_impl(fr.key(0))
        'threefry2x32'
    """
    check_key("key_impl", keys, batched=True)
    return "threefry2x32"


# --------------------------------------------------------------------------------------------
# Rademacher and geometric
# --------------------------------------------------------------------------------------------

@api_boundary
def rademacher(key: ArrayLike, shape: ShapeLike = (), dtype: DTypeLike | None = None) -> Array:
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
def geometric(key: ArrayLike, p: ArrayLike, shape: ShapeLike | None = None,
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


# --------------------------------------------------------------------------------------------
# Binomial
# --------------------------------------------------------------------------------------------

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
def binomial(key: ArrayLike, n: ArrayLike, p: ArrayLike, shape: ShapeLike | None = None,
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


# --------------------------------------------------------------------------------------------
# Multinomial
# --------------------------------------------------------------------------------------------

@api_boundary
def multinomial(key: ArrayLike, n: ArrayLike, p: ArrayLike, *, shape: ShapeLike | None = None,
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
