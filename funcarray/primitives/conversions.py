"""The conversion primitives, ``convert_element_type`` and ``bitcast_convert_type``, with all
their rules.

Contract (StableHLO semantics, which the eager kernels reproduce exactly):

* ``convert_element_type(x, new_dtype, weak_type)`` from float to integer truncates toward
  zero and saturates; NaN becomes 0. Complex to real keeps the real part; anything to bool is
  ``x != 0``.
* ``bitcast_convert_type(x, new_dtype)`` reinterprets bits (a last dimension is added or
  consumed when the widths differ); as in JAX, bool, complex (and sub-byte) dtypes only
  "bitcast" to themselves.

Rules: ``convert_element_type`` is linear between inexact dtypes (to integer or bool there is
no tangent space); its transpose converts the cotangent back. ``bitcast_convert_type`` has a
zero tangent. Lowered to ``stablehlo.convert`` (after ``stablehlo.real`` for complex to real,
a comparison for bool) and ``stablehlo.bitcast_convert``.

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray.primitives.conversions import convert_element_type_p
    >>> convert_element_type_p.bind(fnp.array([-1.7, 300.0, float("nan")]),
    ...                             new_dtype=fnp.dtype("int8"), weak_type=False)
    Array([ -1, 127,   0], dtype=int8)
"""

from __future__ import annotations

import numpy as np

from funcarray.base import dtypes
from funcarray.base.array import Array, new_array
from funcarray.lowering.stablehlo import compare
from funcarray.primitives.elementwise import _defjvp_zero, _real_dtype
from funcarray.transforms import support
from funcarray.transforms.core import Primitive, ShapedArray
from funcarray.transforms.jvp import (
    Zero,
    tangent_aval,
)
from funcarray.transforms.vmap import vectorized_batch_rule

__all__ = ["convert_element_type_p", "bitcast_convert_type_p", "convert_kernel",
           "float_to_int_inside"]


# NumPy's float types, and the integer dtypes' limits as floats (what float values are
# compared with before a cast).
_BUILTIN_FLOATS = frozenset(np.dtype(t) for t in (np.float16, np.float32, np.float64))
_INT_BOUNDS = {np.dtype(t): (float(np.iinfo(t).min), float(np.iinfo(t).max))
               for t in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
                         np.uint32, np.uint64)}
# Up to this many elements, the listed values compared in Python cost less than two NumPy
# reductions (~0.4 us against ~2 us for a 4-vector).
_LISTED_RANGE_SIZE = 32


def float_to_int_inside(x, new_dtype):
    """``x`` (a NumPy float array) cast to the integer ``new_dtype`` when every value lies
    strictly inside the integer range, else None: NumPy's cast then truncates each value as
    the saturating conversion would, at a third of its cost. NaN is never inside."""
    bounds = _INT_BOUNDS.get(new_dtype)
    if bounds is None or x.dtype not in _BUILTIN_FLOATS or not x.size:
        return None
    low, high = bounds
    if x.size <= _LISTED_RANGE_SIZE:
        # (Python floats compare ~5x faster than NumPy values; NaN fails the test)
        for value in (x.reshape(-1).tolist() if x.ndim else (float(x),)):
            if not low < value < high:
                return None
        return x.astype(new_dtype)
    if low < 0 and float(np.vdot(x, x)) < 0.25 * high * high:
        # A signed target: a sum of squares below (high / 2)**2 holds every |value| below
        # half the bound, roundings included (they are monotone; NaN fails): one BLAS call
        # for the common case instead of two reductions.
        return x.astype(new_dtype)
    if x.min() > low and x.max() < high:
        return x.astype(new_dtype)
    return None


def convert_kernel(x, new_dtype):
    """Convert a NumPy value to ``new_dtype`` with XLA's semantics (see module docstring)."""
    x = np.asarray(x)
    src, new_dtype = x.dtype, np.dtype(new_dtype)
    if src == new_dtype:
        return x
    if src.kind == "c" and new_dtype.kind != "c":
        x, src = x.real, x.real.dtype
    if new_dtype == np.bool_:
        return x != 0
    if dtypes.is_float(src) and dtypes.is_integer(new_dtype):
        inside = float_to_int_inside(x, new_dtype)
        if inside is not None:
            return inside
        info = dtypes.iinfo(new_dtype)
        whole = np.trunc(x.astype(np.float64))
        # Saturate: compare in float64, where the integer limits are representable or rounded
        # outward; only values strictly inside the range are cast, so every cast is exact
        # (casting through int64 would wrap the top half of uint64).
        above, below = whole >= float(info.max), whole <= float(info.min)
        inside = np.where(above | below | np.isnan(whole), 0.0, whole).astype(new_dtype)
        out = np.where(above, np.asarray(info.max, new_dtype), inside)
        return np.where(below, np.asarray(info.min, new_dtype), out)
    # (isbuiltin == 2: a dtype from outside NumPy, so ml_dtypes is loaded already.)
    if (src.isbuiltin == 2 and src in dtypes.float8_types) or (
            new_dtype.isbuiltin == 2 and new_dtype in dtypes.float8_types):
        # ml_dtypes converts narrow floats reliably through float32.
        if src.itemsize <= 4 and new_dtype.itemsize <= 4:
            return x.astype(np.float32).astype(new_dtype)
    return x.astype(new_dtype)


convert_element_type_p = Primitive("convert_element_type")
convert_element_type_p.kernel = convert_kernel


@convert_element_type_p.def_impl
def _convert_impl(x, *, new_dtype, weak_type):
    return new_array(convert_kernel(x._value, new_dtype), weak_type)


@convert_element_type_p.def_abstract_eval
def _convert_abstract_eval(x, *, new_dtype, weak_type):
    return ShapedArray(x.shape, new_dtype, weak_type)


@convert_element_type_p.def_lower
def _convert_lower(ctx, x, *, new_dtype, weak_type):
    # The eager contract: complex -> real keeps the real part, anything -> bool is x != 0;
    # XLA's convert already truncates and saturates float -> int.
    src, new = ctx.avals_in[0], np.dtype(new_dtype)
    if src.dtype == new:
        return [x]
    if src.dtype.kind == "c" and new.kind != "c":
        src = ShapedArray(src.shape, _real_dtype(src.dtype))
        x = ctx.op("stablehlo.real", x, results=[src])[0]
        if src.dtype == new:
            return [x]
    if new == np.bool_:
        return [compare(ctx, x, ctx.constant(0, src), "NE")]
    if src.dtype == np.bool_ and new.kind in "fc":
        # Through uint8: XLA's simplifier turns a product (quotient) with a float converted
        # straight from a bool into a select, which gives False * nan = 0 and False / 0 = 0
        # where IEEE and eager mode give nan.
        x = ctx.op("stablehlo.convert", x, results=[ShapedArray(src.shape, np.uint8)])[0]
    return ctx.op("stablehlo.convert", x)


# Sub-byte types (int4, float4_e2m1fn...) take a whole byte in NumPy but their bit width in
# StableHLO, so the two engines would reinterpret different bits: not bitcast.
_SUB_BYTE_TYPES = dtypes.dtype_set(
    lambda dt: dt.isbuiltin == 2 and (dtypes.iinfo(dt) if dtypes.is_integer(dt)
                                   else dtypes.finfo(dt)).bits < 8)


def _bitcast_shape(shape, src, dst):
    if src == dst:
        return tuple(shape)
    for dt in (src, dst):
        # As in JAX: booleans are one bit in StableHLO, and XLA does not bitcast complex values.
        if dt == np.bool_ or dtypes.is_complex(dt) or dt in _SUB_BYTE_TYPES:
            raise TypeError(f"bitcast_convert_type does not support {dt} unless the operand "
                            f"and result dtypes match; got {src} to {dst}")
    if src.itemsize == dst.itemsize:
        return tuple(shape)
    if src.itemsize > dst.itemsize:
        return (*shape, src.itemsize // dst.itemsize)
    ratio = dst.itemsize // src.itemsize
    if not shape or shape[-1] != ratio:
        raise TypeError(
            f"bitcast_convert_type from {src} to {dst} needs a last dimension of {ratio}, "
            f"got shape {tuple(shape)}")
    return tuple(shape[:-1])


bitcast_convert_type_p = Primitive("bitcast_convert_type")


@bitcast_convert_type_p.def_impl
def _bitcast_impl(x, *, new_dtype):
    v = np.asarray(x._value)
    out_shape = _bitcast_shape(v.shape, v.dtype, np.dtype(new_dtype))
    # View the flat row-major buffer: NumPy cannot change the itemsize of a 0-d view.
    return Array(v.reshape(-1).view(new_dtype).reshape(out_shape), x._weak)


@bitcast_convert_type_p.def_abstract_eval
def _bitcast_abstract_eval(x, *, new_dtype):
    return ShapedArray(_bitcast_shape(x.shape, x.dtype, np.dtype(new_dtype)), new_dtype,
                       x.weak_type)


@bitcast_convert_type_p.def_lower
def _bitcast_lower(ctx, x, *, new_dtype):
    src, out = ctx.avals_in[0], ctx.avals_out[0]
    if src.dtype == out.dtype:
        return [x]
    return ctx.op("stablehlo.bitcast_convert", x)



@convert_element_type_p.def_jvp
def _convert_jvp(primals, tangents, *, new_dtype, weak_type):
    (x,), (t,) = primals, tangents
    out = convert_element_type_p.bind(x, new_dtype=new_dtype, weak_type=weak_type)
    if type(t) is Zero or not dtypes.is_inexact(new_dtype):
        return out, Zero(tangent_aval(out.aval))  # to integer or bool: no tangent space
    return out, convert_element_type_p.bind(t, new_dtype=new_dtype, weak_type=False)


@convert_element_type_p.def_transpose
def _convert_transpose(ct, x, *, new_dtype, weak_type):
    # float <-> float: convert back. complex -> real keeps the real part, so its transpose
    # embeds the real cotangent; real -> complex transposes to the real part.
    if not dtypes.is_inexact(x.aval.dtype):
        return [None]  # an integer operand is never a linear input
    return [convert_element_type_p.bind(ct, new_dtype=x.aval.dtype, weak_type=False)]


convert_element_type_p.batch_rule = vectorized_batch_rule(convert_element_type_p)
_defjvp_zero(bitcast_convert_type_p)


@bitcast_convert_type_p.def_batch
def _bitcast_batch(vals, dims, *, new_dtype):
    (x,), (bdim,) = vals, dims
    # The shape change is at the end (a last axis is added or consumed), so the batch axis
    # must not be last.
    if np.dtype(new_dtype).itemsize != x.dtype.itemsize and bdim == x.ndim - 1:
        x, bdim = support.ops.moveaxis(x, bdim, 0), 0
    return bitcast_convert_type_p.bind(x, new_dtype=new_dtype), bdim
