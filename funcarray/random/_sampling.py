"""What every sampler is built on: argument checks (dtypes, parameters, shapes), the
rejection loop, and the batched uniform and normal kernels that reproduce ``jax.random``'s bits.

Every sampler takes a single key (shape ``(2,)``); ``vmap`` maps over a batch of keys.
Defaults follow JAX's 32-bit mode (float32, int32, uint32). ``uniform``, ``randint`` and
``bits`` give JAX's bits exactly; the other samplers apply the same transformations to them and
agree with JAX to within float rounding.

Rejection loops (``gamma`` and friends, ``poisson``, ``binomial``) run until every element is
done, exactly like JAX's ``while_loop``: on concrete arrays as a Python loop, under a trace
(``jit``, ``vmap``, ``grad``) as ``funcarray.lax.while_loop``, so that XLA compiles one loop
body instead of an unrolled copy per round.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from funcarray import numpy as fnp
from funcarray.api.arguments import asarray_arg, broadcast_shapes, convert
from funcarray.base import dtypes
from funcarray.base import pytrees as tree
from funcarray.base.array import Array
from funcarray.base.errors import op_type_error, op_value_error
from funcarray.lowering.executor import ops_run_on_accelerator
from funcarray.primitives import elementwise as ew
from funcarray.primitives.conversions import bitcast_convert_type_p
from funcarray.primitives.special import erf_inv_p
from funcarray.random._prng import _UINT_OF_WIDTH, _random_bits, _split, canonical_shape


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
    # funcarray.lax loads on first use: importing it costs several times funcarray.random.
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


def _uniform(keys, shape, dtype, minval=0.0, maxval=1.0):
    info = dtypes.finfo(dtype)
    nbits, nmant = dtype.itemsize * 8, info.nmant
    # Formats with fewer than 8 mantissa bits still draw a byte of randomness (as JAX does).
    rng_bits = 8 if nmant < 8 else nbits
    uint = _UINT_OF_WIDTH[nbits]
    raw = convert(_random_bits(keys, rng_bits, shape), uint)
    # Random mantissa under the exponent of 1.0 gives a float in [1, 2); subtract 1.
    one_bits = int(np.array(1.0, dtype).view(uint))
    mantissa = fnp.right_shift(raw, rng_bits - nmant) | one_bits
    floats = bitcast_convert_type_p.bind(mantissa, new_dtype=np.dtype(dtype)) - 1.0
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
    if ops_run_on_accelerator():
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


def _top_k_indices(values, k: int):
    """Indices of the ``k`` largest values along the last axis (ties: lowest index first)."""
    return fnp.argsort(values, axis=-1, stable=True, descending=True)[..., :k]


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
