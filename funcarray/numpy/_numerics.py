"""Numerical helpers of ``funcarray.numpy``: integer ``gcd``/``lcm``; floating-point
decomposition (``frexp``, ``ldexp``, ``modf``, ``spacing``); calculus (``gradient``,
``trapezoid``); ``unwrap``. Binning (``digitize``, ``histogram_bin_edges``, ``histogram2d``,
``histogramdd``), statistics (``cov``, ``corrcoef``) and window functions (``bartlett``,
``blackman``, ``hamming``, ``hanning``) live in ``_numerics_stats``.

All are compositions of funcarray operations with static shapes, following jax.numpy's
formulas (so values agree with jax's to rounding), and work eagerly and under every
transform. ``frexp`` reads exponents from the bits (exact, subnormals included) and forms the
mantissa as ``x`` times exact powers of two, so it differentiates like jax's
(``dm/dx = 2**-e``). ``gcd`` is Euclid's algorithm in a ``lax.while_loop``. ``gradient``
also accepts NumPy's ``edge_order=2`` (jax.numpy raises for any ``edge_order``).

Example:
    >>> import funcarray.numpy as fnp
    >>> fnp.gradient(fnp.array([1.0, 4.0, 9.0, 16.0]))
    Array([3., 4., 6., 7.], dtype=float32)
"""

from __future__ import annotations

import builtins
import math
from typing import TYPE_CHECKING

import numpy as np

from funcarray.api.arguments import convert
from funcarray.base import dtypes
from funcarray.base.array import Array, DeviceArray, new_array
from funcarray.base.errors import op_type_error, op_value_error
from funcarray.numpy._array_ops import diff
from funcarray.numpy._creation import arange, asarray, full_like
from funcarray.numpy._elementwise import abs as _abs
from funcarray.numpy._elementwise import (
    bitwise_and,
    isinf,
    isnan,
    maximum,
    minimum,
    nextafter,
    power,
    where,
)
from funcarray.numpy._index_routines import take
from funcarray.numpy._math_functions import copysign
from funcarray.numpy._predicates_and_bits import left_shift, right_shift
from funcarray.numpy._reductions import any as _any
from funcarray.numpy._reductions import cumsum
from funcarray.numpy._reductions import sum as _sum
from funcarray.numpy._rounding_and_division import (
    _ON_HOST,
    _remainder_values,
    ceil,
    floor,
    floor_divide,
    mod,
    remainder,
)
from funcarray.numpy._shape import broadcast_arrays, concatenate, moveaxis
from funcarray.primitives import elementwise as ew
from funcarray.primitives import reduce as red
from funcarray.primitives.conversions import convert_kernel
from funcarray.transforms.host_shortcuts import host_shortcut, host_value

if TYPE_CHECKING:
    from collections.abc import Sequence

    from funcarray.base.typing import ArrayLike

__all__ = ["gcd", "lcm", "frexp", "ldexp", "modf", "spacing", "gradient", "trapezoid",
           "unwrap"]




def _promote(op, *args, inexact=False):
    """The arguments as arrays of one promoted dtype (inexact if asked), shapes kept.

    Python scalars are made in the result dtype directly, so ``0.1`` next to a float64
    array is float64's 0.1, not float32's widened."""
    from funcarray.api.arguments import asarray_arg, to_inexact_dtype
    from funcarray.base.host_values import scalar_to_array
    values = [a if type(a) in (int, float, complex) else asarray_arg(op, a) for a in args]
    try:
        dt, weak = dtypes.result_type(*values, return_weak_type=True)
    except TypeError as exc:
        raise op_type_error(op, str(exc)) from None
    if inexact:
        dt = to_inexact_dtype(dt)
    out = []
    for a in values:
        if type(a) in (int, float, complex):
            a = scalar_to_array(op, a, dt)
            a._weak = weak
        else:
            a = convert(a, dt, weak)
        out.append(a)
    return out


promote_keep_shapes = _promote

# Host shortcuts (``funcarray.transforms.host_shortcuts``): the general paths below bind a
# primitive per step of a loop (Euclid's) or of a bit-level formula; the shortcuts compute the
# same values on the NumPy values at once, with the primitives' own kernels wherever NumPy's
# function could round differently from the general path's formula.
_HOST_ARRAYS = (Array, DeviceArray)
_HOST_FLOATS = (dtypes.float16, dtypes.float32, dtypes.float64)


def _host_float(x):
    """The NumPy value of a strong host or device array of a 16-, 32- or 64-bit IEEE float
    dtype (the dtypes whose NumPy functions the shortcuts call), else None. (Weak arrays take
    the general path, whose promotion of them the shortcuts do not repeat.)"""
    if type(x) not in _HOST_ARRAYS or x._weak:
        return None
    value = x._value
    return value if value.dtype in _HOST_FLOATS else None


def _check_real_float(op, x, what="x"):
    if dtypes.is_complex(x.dtype):
        raise op_type_error(op, f"{what} must be real, got dtype {x.dtype}")


# --------------------------------------------------------------------------------------------
# Integers
# --------------------------------------------------------------------------------------------

def _integer_pair(op, x1, x2):
    """The absolute values of ``x1`` and ``x2``, broadcast, in the unsigned dtype of their
    promoted dtype's width (where ``abs(int8(-128))`` is 128, not -128: Euclid's loop never
    ends on a negative remainder), and the promoted dtype and weak type the result goes back
    to (wrapping there as NumPy's does: ``gcd(int8(-128), 0) == -128``)."""
    x1, x2 = _promote(op, x1, x2)
    if not dtypes.is_integer(x1.dtype):
        raise op_type_error(op, f"takes integer arguments, got dtype {x1.dtype}; convert "
                                f"them first, e.g. x.astype(fnp.int32)")
    dtype, weak = x1.dtype, x1.weak_type
    unsigned = np.dtype(f"uint{dtype.itemsize * 8}")
    x1, x2 = (convert(_abs(x), unsigned, False) for x in broadcast_arrays(x1, x2))
    return x1, x2, dtype, weak


def _gcd_abs(x1, x2):
    from funcarray import lax

    def step(state):
        a, b = state
        nonzero = b != 0
        a, b = where(nonzero, b, a), where(nonzero, remainder(a, where(
            nonzero, b, 1)), 0)
        return maximum(a, b), minimum(a, b)

    return lax.while_loop(lambda state: _any(state[1] != 0), step, (x1, x2))[0]


def _integer_pair_on_host(op, x1, x2):
    """The NumPy values of ``x1`` and ``x2`` promoted as the general path promotes them, and
    their weak type, for host or device integer arrays (or one and a Python int); None for
    anything else."""
    t1, t2 = type(x1), type(x2)
    if t1 in _HOST_ARRAYS and t2 in _HOST_ARRAYS and x1._value.dtype == x2._value.dtype:
        v1, v2, weak = x1._value, x2._value, x1._weak and x2._weak
    elif (t1 in _HOST_ARRAYS or t1 is int) and (t2 in _HOST_ARRAYS or t2 is int) and (
            t1 is not int or t2 is not int):
        x1, x2 = _promote(op, x1, x2)  # mixed dtypes: the general path's promotion
        v1, v2, weak = x1._value, x2._value, x1._weak
    else:
        return None
    return (v1, v2, weak) if dtypes.is_integer(v1.dtype) else None


# NumPy's gcd and lcm of a signed dtype take the magnitudes as unsigned numbers, as the
# general path does (``gcd(int8(-128), 6)`` is 2), and wrap a result beyond the dtype's range
# back into it as the general path's conversion does (``gcd(int8(-128), 0)`` is -128, ``lcm``
# products wrap): the same values for every pair of one dtype (checked on all int8 and uint8
# pairs). NumPy's ufuncs broadcast, or raise and the general path raises its own error.
def _gcd_on_host(x1, x2):
    pair = _integer_pair_on_host("gcd", x1, x2)
    if pair is None:
        return NotImplemented
    v1, v2, weak = pair
    return new_array(np.gcd(v1, v2), weak)


def _lcm_on_host(x1, x2):
    pair = _integer_pair_on_host("lcm", x1, x2)
    if pair is None:
        return NotImplemented
    v1, v2, weak = pair
    return new_array(np.lcm(v1, v2), weak)


@host_shortcut(_gcd_on_host)
def gcd(x1: ArrayLike, x2: ArrayLike) -> Array:
    """The elementwise greatest common divisor of integers (``gcd(0, 0) == 0``).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.gcd(fnp.array([12, 7, 0]), fnp.array([18, 5, 4]))
        Array([6, 1, 4], dtype=int32)
    """
    x1, x2, dtype, weak = _integer_pair("gcd", x1, x2)
    return convert(_gcd_abs(x1, x2), dtype, weak)


@host_shortcut(_lcm_on_host)
def lcm(x1: ArrayLike, x2: ArrayLike) -> Array:
    """The elementwise least common multiple of integers (0 if either is 0).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.lcm(fnp.array([4, 6, 0]), fnp.array([6, 4, 5]))
        Array([12, 12,  0], dtype=int32)
    """
    x1, x2, dtype, weak = _integer_pair("lcm", x1, x2)
    d = _gcd_abs(x1, x2)
    zero = d == 0
    return convert(where(zero, 0, x1 * floor_divide(x2, where(zero, 1, d))), dtype, weak)


# --------------------------------------------------------------------------------------------
# Floating-point decomposition
# --------------------------------------------------------------------------------------------

_BITS = {2: dtypes.int16, 4: dtypes.int32, 8: dtypes.int64}


def _float_arg(op, x):
    (x,) = _promote(op, x, inexact=True)
    _check_real_float(op, x)
    if x.dtype.itemsize not in _BITS:
        raise op_type_error(op, f"supports 16-, 32- and 64-bit floats, got {x.dtype}; convert "
                                f"to float32 first")
    return x


def _exact_power_of_two(k, dtype):
    """``2.0 ** k`` for int32 ``k`` in the normal exponent range, built from its bits."""
    from funcarray import lax
    info = dtypes.finfo(dtype)
    bias = 1 - int(info.minexp)
    bits = left_shift(k.astype(_BITS[np.dtype(dtype).itemsize]) + bias, int(info.nmant))
    return lax.bitcast_convert_type(bits, dtype)


def _frexp(x):
    from funcarray import lax
    info = dtypes.finfo(x.dtype)
    int_dtype = _BITS[x.dtype.itemsize]
    nmant, bias = int(info.nmant), 1 - int(info.minexp)
    # The exponent comes from the bits (no gradient through the bit casts); subnormals are
    # first scaled into the normal range.
    magnitude = _abs(lax.stop_gradient(x))
    subnormal = magnitude < float(info.tiny)
    magnitude = where(subnormal, magnitude * float(2.0 ** nmant), magnitude)
    bits = lax.bitcast_convert_type(magnitude, int_dtype)
    field = bitwise_and(right_shift(bits, nmant), (1 << int(info.nexp)) - 1)
    e = field.astype(dtypes.int32) - (bias - 1) - where(subnormal, nmant, 0)
    special = isinf(x) | isnan(x) | (x == 0)
    e = where(special, 0, e)
    # m = x * 2**-e in two exact steps (2**-e alone may not be representable).
    half = floor_divide(-e, 2)
    m = x * _exact_power_of_two(half, x.dtype) * _exact_power_of_two(-e - half, x.dtype)
    return where(special, x, m), e


def _frexp_on_host(x, /):
    # NumPy's frexp is exact, as the general path's bit-level formula: the same mantissa and
    # exponent (and x itself, e == 0, for 0, inf and NaN).
    value = _host_float(x)
    if value is None:
        return NotImplemented
    m, e = np.frexp(value)
    return Array(np.asarray(m), False), Array(np.asarray(e, np.int32), False)


def _ldexp_on_host(x1, x2, /):
    # The general path's formula on the values with the primitives' kernels (NumPy's ldexp
    # rounds once, the formula's power of two may round first: float16 exponents below -24).
    v1 = _host_float(x1)
    if v1 is None or type(x2) not in _HOST_ARRAYS:
        return NotImplemented
    v2 = x2._value
    if v2.dtype.kind not in "iub":
        return NotImplemented
    dtype = v1.dtype
    if dtype in _LDEXP_FLOATS and v2.dtype in _LDEXP_EXPONENTS:
        # float32/float64: the formula below rounds once, where NumPy's ldexp rounds (the
        # power of two it multiplies by is exact down to the smallest subnormal, and below
        # it both give the zero of m's sign): the same bits (tests check millions).
        return Array(np.ldexp(v1, v2), False)
    m, e = np.frexp(v1)
    e = ew.add_p.kernel(e.astype(dtype), convert_kernel(v2, dtype))
    positive = e > 0
    one, two = dtype.type(1), dtype.type(2)
    m = np.where(positive, ew.mul_p.kernel(m, two), m)
    e = np.where(positive, ew.sub_p.kernel(e, one), e)
    x = ew.mul_p.kernel(m, ew.pow_p.kernel(np.asarray(two), np.asarray(e)))
    return Array(np.where(np.isinf(v1) | (v1 == 0), v1, x), False)


_LDEXP_FLOATS = frozenset((np.dtype(np.float32), np.dtype(np.float64)))
_LDEXP_EXPONENTS = frozenset((np.dtype(np.int8), np.dtype(np.int16), np.dtype(np.int32)))


# Up to this many values, they are listed to see whether NumPy's spacing gives the formula's
# bits (one NumPy call where the formula takes three).
_LISTED_SPACING = 16


def _numpy_spacing_agrees(value) -> bool:
    """Whether NumPy's spacing of the float32/float64 ``value`` is the general path's: it is
    for every value but -0.0 (NumPy gives +tiny, the formula -tiny) and the infinities
    (another NaN)."""
    for item in value.reshape(-1).tolist():
        if math.isinf(item) or (item == 0.0 and math.copysign(1.0, item) < 0):
            return False
    return True


def _spacing_on_host(x, /):
    # The general path's formula with the primitives' kernels: NumPy's spacing differs for
    # negative values and float16.
    value = _host_float(x)
    if value is None:
        return NotImplemented
    # (0-d constants: the kernels broadcast them to the values the general path fills)
    dtype = value.dtype
    if dtype != dtypes.float16 and value.size <= _LISTED_SPACING and _numpy_spacing_agrees(
            value):
        return Array(np.spacing(value), False)
    inf = np.asarray(np.inf, dtype)
    step = ew.nextafter_p.kernel
    if dtype == dtypes.float16:
        return Array(ew.sub_p.kernel(step(value, inf), value), False)
    # The general path then replaces a zero difference, which IEEE arithmetic never gives:
    # the step from a finite x is its nonzero ulp (the smallest subnormal from a zero), from
    # the largest finite one inf, from inf or NaN a NaN. Its select keeps every value.
    return Array(ew.sub_p.kernel(step(value, np.copysign(inf, value)), value), False)


@host_shortcut(_frexp_on_host)
def frexp(x: ArrayLike, /) -> tuple[Array, Array]:
    """Mantissa and exponent: ``x == m * 2**e`` with ``0.5 <= |m| < 1`` (``m = x``, ``e = 0``
    for 0, inf and NaN). ``e`` is int32; differentiable in ``m``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.frexp(fnp.array([8.0, 0.3, 0.0]))
        (Array([0.5, 0.6, 0. ], dtype=float32), Array([ 4, -1,  0], dtype=int32))
    """
    return _frexp(_float_arg("frexp", x))


@host_shortcut(_ldexp_on_host)
def ldexp(x1: ArrayLike, x2: ArrayLike, /) -> Array:
    """``x1 * 2**x2`` for integer exponents ``x2``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.ldexp(fnp.array([0.5, 3.0]), fnp.array([4, -1]))
        Array([8. , 1.5], dtype=float32)
    """
    op = "ldexp"
    from funcarray.api.arguments import asarray_arg
    x1, x2 = asarray_arg(op, x1), asarray_arg(op, x2)
    if dtypes.is_complex(x1.dtype) or dtypes.is_inexact(x2.dtype):
        raise op_type_error(op, f"needs a real x1 and integer exponents x2, got dtypes "
                                f"{x1.dtype} and {x2.dtype}")
    x1 = _float_arg(op, x1)
    m, e = _frexp(x1)
    # The exponent summed in x1's dtype, as jax.numpy computes it: no integer dtype wraps
    # (int8 exponents 127 + 3 stay 130), and out-of-range exponents give inf or 0.
    e = e.astype(x1.dtype) + x2.astype(x1.dtype)
    positive = e > 0
    m, e = where(positive, m * 2, m), where(positive, e - 1, e)
    x = m * power(asarray(2, x1.dtype), e)
    return where(isinf(x1) | (x1 == 0), x1, x)


def _modf_on_host(x, /, out=None):
    # NumPy's trunc is the general path's floor-or-ceil by sign bit for bit (-0.0 and NaN
    # included: see _trunc_on_host); the fraction is the same subtraction kernel. (NumPy's
    # modf differs: its fraction of -2.0 is -0.0, of inf 0.0.)
    value = host_value(x)
    if out is not None or value is None or value.dtype not in _HOST_FLOATS:
        return NotImplemented
    whole = np.trunc(value)
    return Array(ew.sub_p.kernel(value, whole), x._weak), Array(whole, x._weak)


@host_shortcut(_modf_on_host)
def modf(x: ArrayLike, /, out: None = None) -> tuple[Array, Array]:
    """Fractional and integral parts of ``x``, both with ``x``'s sign.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.modf(fnp.array([2.5, -1.25]))
        (Array([ 0.5 , -0.25], dtype=float32), Array([ 2., -1.], dtype=float32))
    """
    op = "modf"
    if out is not None:
        raise op_type_error(op, "out= is not supported: funcarray arrays are immutable; use "
                                "the returned arrays")
    (x,) = _promote(op, x, inexact=True)
    _check_real_float(op, x)
    whole = where(x >= 0, floor(x), ceil(x))
    return x - whole, whole


@host_shortcut(_spacing_on_host)
def spacing(x: ArrayLike, /) -> Array:
    """The distance from ``x`` to the next float away from zero (ULP of ``x``).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.spacing(fnp.array([1.0, -1.0], dtype=fnp.float32))
        Array([ 1.1920929e-07, -1.1920929e-07], dtype=float32)
    """
    op = "spacing"
    (x,) = _promote(op, x, inexact=True)
    _check_real_float(op, x)
    inf = full_like(x, np.inf)
    if x.dtype == dtypes.float16:  # as jax.numpy: float16 always steps up
        return nextafter(x, inf) - x
    result = nextafter(x, copysign(inf, x)) - x
    tiny = float(dtypes.finfo(x.dtype).smallest_subnormal)
    return where(result == 0, copysign(full_like(x, tiny), x), result)


# --------------------------------------------------------------------------------------------
# Calculus
# --------------------------------------------------------------------------------------------

def _gradient_along(f, h, axis, edge_order):
    n = f.shape[axis]

    def part(start, stop, x=f):
        index = [slice(None)] * x.ndim
        index[axis] = slice(start, stop)
        return x[tuple(index)]

    if h.ndim == 0:
        inner = (part(2, None) - part(None, -2)) * 0.5 / h
        if edge_order == 2:
            first = (-1.5 * part(0, 1) + 2.0 * part(1, 2) - 0.5 * part(2, 3)) / h
            last = (0.5 * part(n - 3, n - 2) - 2.0 * part(n - 2, n - 1)
                    + 1.5 * part(n - 1, n)) / h
        else:
            first = (part(1, 2) - part(0, 1)) / h
            last = (part(n - 1, n) - part(n - 2, n - 1)) / h
        return concatenate([first, inner, last], axis=axis)
    shape = [1] * f.ndim
    shape[axis] = n - 1
    dx = diff(h).reshape(tuple(shape))
    dx1, dx2 = part(0, -1, dx), part(1, None, dx)
    a = -dx2 / (dx1 * (dx1 + dx2))
    b = (dx2 - dx1) / (dx1 * dx2)
    c = dx1 / (dx2 * (dx1 + dx2))
    inner = a * part(0, -2) + b * part(1, -1) + c * part(2, None)
    if edge_order == 2:
        d1, d2 = part(0, 1, dx), part(1, 2, dx)
        first = (-(2.0 * d1 + d2) / (d1 * (d1 + d2)) * part(0, 1)
                 + (d1 + d2) / (d1 * d2) * part(1, 2) - d1 / (d2 * (d1 + d2)) * part(2, 3))
        d1, d2 = part(n - 3, n - 2, dx), part(n - 2, n - 1, dx)
        last = (d2 / (d1 * (d1 + d2)) * part(n - 3, n - 2) - (d2 + d1) / (d1 * d2)
                * part(n - 2, n - 1) + (2.0 * d2 + d1) / (d2 * (d1 + d2)) * part(n - 1, n))
    else:
        first = (part(1, 2) - part(0, 1)) / part(0, 1, dx)
        last = (part(n - 1, n) - part(n - 2, n - 1)) / part(n - 2, n - 1, dx)
    return concatenate([first, inner, last], axis=axis)


def _gradient_on_host(f, *varargs, axis=None, edge_order=None):
    """The general path's differences on a strong host float array with the default unit
    spacing (first order at the edges), along one int axis or all, with the kernels."""
    value = _host_float(f)
    if value is None or varargs or edge_order not in (None, 1) or value.ndim == 0:
        return NotImplemented
    ndim = value.ndim
    if axis is None:
        axes = range(ndim)
    elif type(axis) is int and -ndim <= axis < ndim:
        axes = (axis % ndim,)
    else:
        return NotImplemented
    if builtins.min(value.shape[a] for a in axes) < 2:
        return NotImplemented  # (the general path raises)
    dtype = value.dtype
    step, half = np.ones((), dtype), np.asarray(0.5, dtype)
    sub, div = ew.sub_p.kernel, ew.div_p.kernel
    outs = []
    for a in axes:
        n = value.shape[a]

        def part(start, stop, a=a):
            return value[(slice(None),) * a + (slice(start, stop),)]

        inner = div(ew.mul_p.kernel(sub(part(2, None), part(None, -2)), half), step)
        first = div(sub(part(1, 2), part(0, 1)), step)
        last = div(sub(part(n - 1, n), part(n - 2, n - 1)), step)
        outs.append(Array(np.concatenate([first, inner, last], axis=a), False))
    return outs[0] if len(outs) == 1 else outs


@host_shortcut(_gradient_on_host)
def gradient(f: ArrayLike, *varargs: ArrayLike, axis: int | Sequence[int] | None = None,
             edge_order: int | None = None) -> Array | list[Array]:
    """The gradient of the sampled function ``f`` by central differences inside and one-sided
    differences at the edges (second order there with ``edge_order=2``).

    ``varargs``: one spacing for all axes, or one per axis; each a scalar step or the 1-D
    coordinates along that axis. One axis gives an array, several a list (one per axis).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.gradient(fnp.array([1.0, 2.0, 4.0, 8.0]), 2.0)
        Array([0.5 , 0.75, 1.5 , 2.  ], dtype=float32)
        >>> fnp.gradient(fnp.array([0.0, 1.0, 4.0]), fnp.array([0.0, 1.0, 3.0]))
        Array([1.       , 1.1666667, 1.5      ], dtype=float32)
    """
    op = "gradient"
    from funcarray.api.arguments import canonicalize_axes, canonicalize_axis
    if edge_order not in (None, 1, 2):
        raise op_value_error(op, f"edge_order must be 1 or 2, got {edge_order!r}")
    f, *spacing = _promote(op, f, *varargs, inexact=True)
    if axis is None:
        axes = tuple(range(f.ndim))
    elif isinstance(axis, (tuple, list)):
        axes = tuple(canonicalize_axis(op, a, f.ndim) for a in axis)
    else:
        axes = canonicalize_axes(op, axis, f.ndim)
    if not axes:
        return []
    need = 3 if edge_order == 2 else 2
    if builtins.min(f.shape[a] for a in axes) < need:
        raise op_value_error(op, f"needs at least {need} samples along each axis "
                                 f"(edge_order={edge_order or 1}), got shape {tuple(f.shape)}")
    if not spacing:
        spacing = [1.0] * len(axes)
    elif len(spacing) == 1:
        spacing = spacing * len(axes)
    elif len(spacing) != len(axes):
        raise op_type_error(op, f"got {len(spacing)} spacings for {len(axes)} axes; pass one "
                                f"for all axes or one per axis")
    spacing = [asarray(h) for h in spacing]
    for a, h in zip(axes, spacing):
        if h.ndim > 1 or (h.ndim == 1 and h.shape[0] != f.shape[a]):
            raise op_value_error(op, f"a spacing must be a scalar or 1-D coordinates of length "
                                     f"{f.shape[a]} (axis {a}), got shape {tuple(h.shape)}")
    result = [_gradient_along(f, h, a, edge_order) for a, h in zip(axes, spacing)]
    return result[0] if len(axes) == 1 else result


def _trapezoid_on_host(y, x=None, dx=1.0, axis=-1):
    """The general path's uniform-step rule on a strong float32 or float64 host array (a
    Python-scalar ``dx``, an int ``axis``), with the kernels: the sum is the reduction's."""
    value = _host_float(y)
    if (value is None or value.dtype == dtypes.float16 or x is not None
            or type(dx) not in (int, float) or type(axis) is not int
            or not -value.ndim <= axis < value.ndim or value.shape[axis] == 0):
        return NotImplemented
    dtype = value.dtype
    value = np.moveaxis(value, axis, -1)
    total = red.reduce_sum_p.kernel(value, axes=(value.ndim - 1,))
    ends = ew.add_p.kernel(value[..., 0], value[..., -1])
    mul = ew.mul_p.kernel
    inside = ew.sub_p.kernel(total, mul(np.asarray(0.5, dtype), ends))
    return Array(mul(np.asarray(dx, dtype), inside), False)


@host_shortcut(_trapezoid_on_host)
def trapezoid(y: ArrayLike, x: ArrayLike | None = None, dx: ArrayLike = 1.0, axis: int = -1
              ) -> Array:
    """The integral of the samples ``y`` along ``axis`` by the trapezoidal rule, at the points
    ``x`` or with a uniform step ``dx``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.trapezoid(fnp.array([1.0, 2.0, 3.0]))
        Array(4., dtype=float32)
        >>> fnp.trapezoid(fnp.array([1.0, 2.0, 3.0]), x=fnp.array([0.0, 1.0, 3.0]))
        Array(6.5, dtype=float32)
    """
    op = "trapezoid"
    from funcarray.api.arguments import canonicalize_axis
    if x is None:
        y, step = _promote(op, y, dx, inexact=True)
        axis = canonicalize_axis(op, axis, y.ndim)
        if np.ndim(step) > 0:
            step = moveaxis(step.reshape((1,) * (y.ndim - step.ndim) + step.shape), axis, -1)
    else:
        y, x = _promote(op, y, x, inexact=True)
        axis = canonicalize_axis(op, axis, y.ndim)
        step = diff(x) if x.ndim == 1 else moveaxis(diff(x, axis=axis), axis, -1)
    y = moveaxis(y, axis, -1)
    if step.ndim == 0 or step.shape[-1] == 1:
        step = step if step.ndim == 0 else step[..., 0]
        return step * (_sum(y, axis=-1) - 0.5 * (y[..., 0] + y[..., -1]))
    return 0.5 * _sum(step * (y[..., 1:] + y[..., :-1]), axis=-1)


def _unwrap_on_host(p, discont=None, axis=-1, period=2 * np.pi):
    """The general path's formula on a strong host float array (Python-scalar ``discont``
    and ``period``, an int ``axis``), step by step with the primitives' kernels: the
    remainder is the general path's own formula on NumPy values."""
    value = _host_float(p)
    if (value is None or type(axis) is not int
            or type(period) not in (int, float)
            or (discont is not None and type(discont) not in (int, float))):
        return NotImplemented
    axis = axis + value.ndim if -value.ndim <= axis < 0 else axis
    if not 0 <= axis < value.ndim or value.shape[axis] == 0:
        return NotImplemented
    dtype = value.dtype
    period = np.asarray(period, dtype)
    interval = ew.div_p.kernel(period, np.asarray(2, dtype))
    discont = interval if discont is None else np.asarray(discont, dtype)
    later = (slice(None),) * axis + (slice(1, None),)
    earlier = (slice(None),) * axis + (slice(None, -1),)
    dd = ew.sub_p.kernel(value[later], value[earlier])
    ddmod = ew.sub_p.kernel(
        _remainder_values(ew.add_p.kernel(dd, interval), period, _ON_HOST), interval)
    at_minus_interval = ew.and_p.kernel(ew.eq_p.kernel(ddmod, ew.neg_p.kernel(interval)),
                                        ew.gt_p.kernel(dd, np.zeros((), dtype)))
    ddmod = np.where(at_minus_interval, interval, ddmod)
    correction = np.where(ew.lt_p.kernel(ew.abs_p.kernel(dd), discont), np.zeros((), dtype),
                          ew.sub_p.kernel(ddmod, dd))
    rest = ew.add_p.kernel(value[later], red.cumsum_p.kernel(correction, axis=axis,
                                                             reverse=False))
    head = (slice(None),) * axis + (slice(None, 1),)
    return Array(np.concatenate([value[head], rest], axis=axis), False)


@host_shortcut(_unwrap_on_host)
def unwrap(p: ArrayLike, discont: ArrayLike | None = None, axis: int = -1,
           period: ArrayLike = 2 * np.pi) -> Array:
    """``p`` with jumps larger than ``discont`` (default ``period / 2``) between neighbours
    along ``axis`` replaced by their ``period``-complement.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.unwrap(fnp.array([0.0, 5.0, 10.0]), period=6.0)
        Array([ 0., -1., -2.], dtype=float32)
    """
    op = "unwrap"
    from funcarray.api.arguments import canonicalize_axis
    p, period = _promote(op, p, period)
    if dtypes.is_complex(p.dtype):
        raise op_type_error(op, f"p must be real, got dtype {p.dtype}")
    axis = canonicalize_axis(op, axis, p.ndim)
    if p.shape[axis] == 0:
        return p
    if discont is None:
        discont = period / 2
    interval = period // 2 if dtypes.is_integer(p.dtype) else period / 2
    dd = diff(p, axis=axis)
    ddmod = mod(dd + interval, period) - interval
    ddmod = where((ddmod == -interval) & (dd > 0), interval, ddmod)
    correction = where(_abs(dd) < discont, 0, ddmod - dd)
    head = take(p, arange(1), axis=axis)
    rest = take(p, arange(1, p.shape[axis]), axis=axis)
    return concatenate([head, rest + cumsum(correction, axis=axis)], axis=axis)

