"""XLA's random-number operations: ``rng_bit_generator`` (stateless: key in, new key and bits
out) and ``rng_uniform`` (stateful). The public wrappers are ``lax/_rng.py``.

* ``rng_bit_generator(key, shape, dtype, algorithm) -> [new_key, bits]``: ``key`` is
  ``uint32[4]`` (XLA's ``u64[2]`` state, bit-cast), ``bits`` has ``shape`` and an unsigned
  ``dtype``; ``algorithm`` is ``"DEFAULT"``, ``"THREE_FRY"`` or ``"PHILOX"``. The bits are
  whatever the backend's XLA produces (they differ between backends, in JAX too), so the eager
  kernel runs the same one-op StableHLO program on the default device rather than a NumPy
  imitation: eager, jit and jax.lax agree on one backend. Not differentiable (integer
  outputs). Batching runs one generator per member (a ``scan`` over the members), so each
  member's bits come from its own key (JAX's rule uses the first member's key for the whole batch).
* ``rng_uniform(a, b, shape)``: values in ``[a, b)`` from hidden state (XLA's ``rng``
  with ``UNIFORM``); eagerly NumPy's generator. No derivative (as in JAX); batching maps
  over the members.

Example:
    >>> import funcarray.numpy as fnp
    >>> key = fnp.asarray([0, 0, 0, 1], fnp.uint32)
    >>> new_key, bits = rng_bit_generator_p.bind(key, shape=(2,), dtype=fnp.dtype("uint32"),
    ...                                          algorithm="THREE_FRY")
    >>> bits.shape, bits.dtype
    ((2,), dtype('uint32'))
"""

from __future__ import annotations

import numpy as np

from funcarray.base.array import Array
from funcarray.primitives import bind_ops as ops
from funcarray.primitives import loops
from funcarray.transforms.core import Primitive, ShapedArray
from funcarray.transforms.jvp import Zero, tangent_aval

__all__ = ["rng_bit_generator_p", "rng_uniform_p", "ALGORITHMS", "BIT_DTYPES"]

ALGORITHMS = ("DEFAULT", "THREE_FRY", "PHILOX")
BIT_DTYPES = tuple(np.dtype(t) for t in (np.uint8, np.uint16, np.uint32, np.uint64))
_KEY = ShapedArray((4,), np.dtype(np.uint32))

rng_bit_generator_p = Primitive("rng_bit_generator", multiple_results=True)


@rng_bit_generator_p.def_abstract_eval
def _rbg_abstract_eval(key, *, shape, dtype, algorithm):
    if key.shape != _KEY.shape or key.dtype != _KEY.dtype:
        raise TypeError(f"rng_bit_generator: the key must be uint32[4], got {key.str_short()}")
    return [_KEY, ShapedArray(tuple(shape), np.dtype(dtype))]


def _run_one_op(prim, args, params) -> list:
    """``prim`` on concrete ``args`` as a one-equation XLA program (cached per signature)."""
    from funcarray.lowering.executor import execute_ir, single_op_ir

    ir = single_op_ir(prim, tuple(a.aval for a in args), params)
    return execute_ir(ir, args)


@rng_bit_generator_p.def_impl
def _rbg_impl(key, *, shape, dtype, algorithm):
    return _run_one_op(rng_bit_generator_p, [key],
                       dict(shape=shape, dtype=dtype, algorithm=algorithm))


@rng_bit_generator_p.def_jvp
def _rbg_jvp(primals, tangents, **params):
    outs = rng_bit_generator_p.bind(*primals, **params)
    return outs, [Zero(tangent_aval(o.aval)) for o in outs]


@rng_bit_generator_p.def_batch
def _rbg_batch(vals, dims, **params):
    (key,), (d,) = vals, dims
    outs = loops.map(lambda k: rng_bit_generator_p.bind(k, **params), ops.moveaxis(key, d, 0))
    return list(outs), [0, 0]


@rng_bit_generator_p.def_lower
def _rbg_lower(ctx, key, *, shape, dtype, algorithm):
    # XLA's state is u64[2]: the uint32[4] key, bit-cast pairwise (as JAX lowers it).
    pairs = ShapedArray((2, 2), np.dtype(np.uint32))
    state = ShapedArray((2,), np.dtype(np.uint64))
    (as_pairs,) = ctx.op("stablehlo.reshape", key, results=[pairs])
    (state_in,) = ctx.op("stablehlo.bitcast_convert", as_pairs, results=[state])
    state_out, bits = ctx.op(
        "stablehlo.rng_bit_generator", state_in, results=[state, ctx.avals_out[1]],
        attributes={"rng_algorithm": f"#stablehlo<rng_algorithm {algorithm}>"})
    (out_pairs,) = ctx.op("stablehlo.bitcast_convert", state_out, results=[pairs])
    (new_key,) = ctx.op("stablehlo.reshape", out_pairs, results=[_KEY])
    return [new_key, bits]


# --- rng_uniform -----------------------------------------------------------------------------

rng_uniform_p = Primitive("rng_uniform")
_host_generator = np.random.default_rng()


@rng_uniform_p.def_abstract_eval
def _rng_uniform_abstract_eval(a, b, *, shape):
    if a.shape or b.shape or a.dtype != b.dtype:
        raise TypeError(f"rng_uniform: a and b must be scalars of one dtype, got "
                        f"{a.str_short()} and {b.str_short()}")
    return ShapedArray(tuple(shape), a.dtype)


@rng_uniform_p.def_impl
def _rng_uniform_impl(a, b, *, shape):
    low, high = np.asarray(a._value), np.asarray(b._value)
    dtype = low.dtype
    if not high > low:  # XLA leaves the result undefined; give the lower bound
        return Array(np.full(shape, low, dtype))
    if dtype.kind in "iu":
        return Array(_host_generator.integers(low, high, size=shape, dtype=dtype))
    # a + (b - a) * u in float64, in place (Python floats and in-place products: half the
    # time of 0-d array arithmetic on a small draw), then rounded to the dtype.
    lo = float(low)
    wide = _host_generator.random(size=shape)
    wide *= float(high) - lo
    wide += lo
    values = wide.astype(dtype)
    # Rounding to the dtype can reach b (rarely): keep the interval half open.
    values[values >= high] = low
    return Array(values)


@rng_uniform_p.def_jvp
def _rng_uniform_jvp(primals, tangents, *, shape):
    raise NotImplementedError(
        "lax.rng_uniform has no derivative (a stateful sampler, as in JAX); for "
        "differentiable sampling use funcarray.random.uniform(key, ...) * (b - a) + a")


@rng_uniform_p.def_batch
def _rng_uniform_batch(vals, dims, *, shape):
    size = next(v.shape[d] for v, d in zip(vals, dims) if d is not None)
    a, b = (ops.broadcast_to(v, (size,)) if d is None else ops.moveaxis(v, d, 0)
            for v, d in zip(vals, dims))
    return loops.map(lambda ab: rng_uniform_p.bind(ab[0], ab[1], shape=shape), (a, b)), 0


@rng_uniform_p.def_lower
def _rng_uniform_lower(ctx, a, b, *, shape):
    dims = ctx.constant(np.asarray(shape, np.int64), ShapedArray((len(shape),),
                                                                 np.dtype(np.int64)))
    return ctx.op("stablehlo.rng", a, b, dims,
                  attributes={"rng_distribution": "#stablehlo<rng_distribution UNIFORM>"})
