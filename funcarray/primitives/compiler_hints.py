"""Two small primitives of jax.lax: ``reduce_precision`` and ``optimization_barrier``.

``reduce_precision(x, exponent_bits, mantissa_bits)``
    Rounds each float to the nearest value of a float format with that many exponent and
    mantissa bits (ties to even), in ``x``'s own dtype: values beyond the format's range
    become +-inf, values at or below its smallest normal exponent become +-0 (the reduced
    format has no subnormals), NaN stays NaN. Eager: XLA's bit manipulation on the unsigned
    integer view; JVP: linear (the tangent is rounded the same way, as in JAX), and so is
    its transpose; batching: elementwise; lowering: ``stablehlo.reduce_precision``.

``optimization_barrier(*xs)``
    The identity on its operands, which XLA may not move computations across nor merge
    (CSE) with equal ones outside. Eager: the identity; JVP: barriers on the primals and on
    the tangents; transpose: a barrier on the cotangents; batching: the same batch axes;
    lowering: ``stablehlo.optimization_barrier``.

Example:
    >>> import funcarray.numpy as fnp
    >>> reduce_precision_p.bind(fnp.asarray([1.0009766, 3.14159]), exponent_bits=5,
    ...                         mantissa_bits=3)
    Array([1.   , 3.25], dtype=float32)
"""

from __future__ import annotations

import numpy as np

from funcarray.base import dtypes
from funcarray.base.array import Array
from funcarray.transforms.core import Primitive, ShapedArray
from funcarray.transforms.jvp import Zero, deflinear, instantiate
from funcarray.transforms.vmap import vectorized_batch_rule

__all__ = ["reduce_precision_p", "optimization_barrier_p", "reduce_precision_kernel"]

reduce_precision_p = Primitive("reduce_precision")
_UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def reduce_precision_kernel(x: np.ndarray, exponent_bits: int, mantissa_bits: int):
    """XLA's ``ReducePrecision`` on a NumPy float array (its elemental IR, on the bits)."""
    info = dtypes.finfo(x.dtype)
    src_exponent, src_mantissa = int(info.nexp), int(info.nmant)
    utype = _UNSIGNED[x.dtype.itemsize]
    nbits = 8 * x.dtype.itemsize
    bits = np.array(x, order="C").view(utype)  # (a copy; 0-d stays 0-d)

    def u(value):
        return utype(value & ((1 << nbits) - 1))

    if mantissa_bits < src_mantissa:
        # Round to nearest even: add half an ulp of the reduced format (minus one, plus the
        # last kept bit, so that ties go to even) and clear the dropped bits.
        shift = src_mantissa - mantissa_bits
        last_kept = u(1 << shift)
        bias = (bits & last_kept) >> utype(shift)
        bits = bits + bias + u((1 << (shift - 1)) - 1)
        bits = bits & u(~((1 << shift) - 1))
    if exponent_bits < src_exponent:
        sign = u(1 << (nbits - 1))
        exponent_mask = u(((1 << src_exponent) - 1) << src_mantissa)
        bias = (1 << (src_exponent - 1)) - 1
        reduced_bias = (1 << (exponent_bits - 1)) - 1
        exponent = bits & exponent_mask
        overflows = exponent > u((bias + reduced_bias) << src_mantissa)
        underflows = exponent <= u((bias - reduced_bias) << src_mantissa)
        signed_zero = bits & sign
        bits = np.where(overflows, signed_zero | exponent_mask,
                        np.where(underflows, signed_zero, bits))
    out = np.asarray(bits, utype).view(x.dtype)
    return np.where(np.isnan(x), x, out)  # (rounding could turn a NaN's bits into inf)


@reduce_precision_p.def_impl
def _reduce_precision_impl(x, *, exponent_bits, mantissa_bits):
    v = np.asarray(x._value)
    return Array(np.asarray(reduce_precision_kernel(v, exponent_bits, mantissa_bits)), x._weak)


@reduce_precision_p.def_abstract_eval
def _reduce_precision_abstract_eval(x, *, exponent_bits, mantissa_bits):
    return ShapedArray(x.shape, x.dtype, x.weak_type)


reduce_precision_p.batch_rule = vectorized_batch_rule(reduce_precision_p)
deflinear(reduce_precision_p)


@reduce_precision_p.def_transpose
def _reduce_precision_transpose(ct, x, **params):
    return [None if type(ct) is Zero else reduce_precision_p.bind(ct, **params)]


@reduce_precision_p.def_lower
def _reduce_precision_lower(ctx, x, *, exponent_bits, mantissa_bits):
    return ctx.op("stablehlo.reduce_precision", x,
                  attributes={"exponent_bits": f"{exponent_bits} : i32",
                              "mantissa_bits": f"{mantissa_bits} : i32"})


optimization_barrier_p = Primitive("optimization_barrier", multiple_results=True)


@optimization_barrier_p.def_impl
def _barrier_impl(*xs):
    return list(xs)


@optimization_barrier_p.def_abstract_eval
def _barrier_abstract_eval(*avals):
    return list(avals)


@optimization_barrier_p.def_jvp
def _barrier_jvp(primals, tangents):
    outs = optimization_barrier_p.bind(*primals)
    if all(type(t) is Zero for t in tangents):
        return outs, list(tangents)
    return outs, optimization_barrier_p.bind(*[instantiate(t) for t in tangents])


@optimization_barrier_p.def_transpose
def _barrier_transpose(cts, *xs):
    return optimization_barrier_p.bind(*[instantiate(ct, x.aval) for ct, x in zip(cts, xs)])


@optimization_barrier_p.def_batch
def _barrier_batch(vals, dims):
    return optimization_barrier_p.bind(*vals), list(dims)


@optimization_barrier_p.def_lower
def _barrier_lower(ctx, *xs):
    return ctx.op("stablehlo.optimization_barrier", *xs, results=[ctx.type_of(x) for x in xs])
