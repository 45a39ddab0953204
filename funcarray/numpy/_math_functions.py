"""Math functions of ``funcarray.numpy``: square and cube roots, trigonometric and hyperbolic
functions, angle conversions, ``copysign``/``fmax``/``fmin``/``hypot``/``sinc``/``heaviside``,
and the complex parts (``real``, ``imag``, ``conj``, ``angle``). Exponentials and logarithms
are in ``_elementwise``, next to ``logaddexp``, which uses them.

Most are made by ``_elementwise``'s factories: ints and bools are converted to float first,
and each function filters its own error tracebacks (no wrapper on the hot path).
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING

import numpy as np

from funcarray.api.arguments import (
    asarray_arg,
    broadcast_to_shape,
    convert,
    to_inexact_dtype,
)
from funcarray.base import dtypes
from funcarray.base.array import Array, new_array
from funcarray.base.errors import filtered
from funcarray.numpy._elementwise import (
    _FORMULA_CONSTANTS,
    _FORMULA_DTYPES,
    _check_kinds,
    _doc,
    _has_nan,
    _materialized_pair,
    _to_inexact,
    _unary_inexact,
    absolute,
    add,
    arctan2,
    equal,
    greater,
    isinf,
    isnan,
    less,
    logical_or,
    maximum,
    minimum,
    multiply,
    negative,
    true_divide,
    where,
)
from funcarray.numpy._predicates_and_bits import signbit
from funcarray.numpy._promotion import host_pair, promote_args, promote_args_inexact
from funcarray.primitives import elementwise as ew
from funcarray.transforms.host_shortcuts import host_shortcut, host_value

if TYPE_CHECKING:
    from funcarray.base.typing import ArrayLike
    from funcarray.numpy._elementwise import _Unary


__all__ = [
    "acos", "acosh", "angle", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctanh", "asin",
    "asinh", "atan", "atanh", "cbrt", "conj", "conjugate", "copysign", "cos", "cosh", "deg2rad",
    "degrees", "fmax", "fmin", "heaviside", "hypot", "imag", "rad2deg", "radians", "real", "sin",
    "sinc", "sinh", "sqrt", "tan", "tanh",
]


# --------------------------------------------------------------------------------------------
# Roots, trigonometric and hyperbolic functions
# --------------------------------------------------------------------------------------------
sqrt = _unary_inexact("sqrt", ew.sqrt_p, "Square root.",
                      ("fnp.sqrt(fnp.array([4.0]))", "Array([2.], dtype=float32)"))


def cbrt(x: ArrayLike, /) -> Array:
    """Real cube root; ints and bools are converted to float first. Complex arrays raise
    TypeError, as in ``jax.numpy`` (StableHLO's cbrt takes floats only).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.cbrt(fnp.array([8.0, -1.0]))
        Array([ 2., -1.], dtype=float32)
    """
    if type(x) is Array and x._value.dtype in _REAL_FLOAT_DTYPES:
        return ew.cbrt_p.bind(x)  # (the common case: nothing to convert or check)
    try:
        x = asarray_arg("cbrt", x)
        _check_kinds("cbrt", x, {"b", "i", "u", "f"})
        return ew.cbrt_p.bind(_to_inexact(x))
    except Exception as exc:  # noqa: BLE001 (re-raised unchanged but for its traceback)
        raise filtered(exc) from exc.__cause__


cbrt._filters_own_errors = True  # (no api_boundary wrapper on the hot path)
_REAL_FLOAT_DTYPES = dtypes.dtype_set(dtypes.is_float)


sin = _unary_inexact("sin", ew.sin_p, "Sine.", ("fnp.sin(fnp.zeros(1))",
                                                "Array([0.], dtype=float32)"))
cos = _unary_inexact("cos", ew.cos_p, "Cosine.", ("fnp.cos(fnp.zeros(1))",
                                                  "Array([1.], dtype=float32)"))
tan = _unary_inexact("tan", ew.tan_p, "Tangent.", ("fnp.tan(fnp.zeros(1))",
                                                   "Array([0.], dtype=float32)"))
arcsin = _unary_inexact("arcsin", ew.asin_p, "Inverse sine.",
                        ("fnp.arcsin(fnp.zeros(1))", "Array([0.], dtype=float32)"))
arccos = _unary_inexact("arccos", ew.acos_p, "Inverse cosine.",
                        ("fnp.arccos(fnp.ones(1))", "Array([0.], dtype=float32)"))
arctan = _unary_inexact("arctan", ew.atan_p, "Inverse tangent.",
                        ("fnp.arctan(fnp.zeros(1))", "Array([0.], dtype=float32)"))
sinh = _unary_inexact("sinh", ew.sinh_p, "Hyperbolic sine.",
                      ("fnp.sinh(fnp.zeros(1))", "Array([0.], dtype=float32)"))
cosh = _unary_inexact("cosh", ew.cosh_p, "Hyperbolic cosine.",
                      ("fnp.cosh(fnp.zeros(1))", "Array([1.], dtype=float32)"))
tanh = _unary_inexact("tanh", ew.tanh_p, "Hyperbolic tangent.",
                      ("fnp.tanh(fnp.zeros(1))", "Array([0.], dtype=float32)"))
arcsinh = _unary_inexact("arcsinh", ew.asinh_p, "Inverse hyperbolic sine.",
                         ("fnp.arcsinh(fnp.zeros(1))", "Array([0.], dtype=float32)"))
arccosh = _unary_inexact("arccosh", ew.acosh_p, "Inverse hyperbolic cosine.",
                         ("fnp.arccosh(fnp.ones(1))", "Array([0.], dtype=float32)"))
arctanh = _unary_inexact("arctanh", ew.atanh_p, "Inverse hyperbolic tangent.",
                         ("fnp.arctanh(fnp.zeros(1))", "Array([0.], dtype=float32)"))
asin, acos, atan = arcsin, arccos, arctan
asinh, acosh, atanh = arcsinh, arccosh, arctanh


# --------------------------------------------------------------------------------------------
# Angle conversions
# --------------------------------------------------------------------------------------------

def _scale(name, factor, summary, example) -> _Unary:
    def fn(x, /):
        x = asarray_arg(name, x)
        if not dtypes.is_inexact(x.dtype):
            x = convert(x, to_inexact_dtype(x.dtype), x.weak_type)
        return multiply(x, factor)
    return host_shortcut(_scaled_on_host(factor))(_doc(fn, name, summary, example))


def _scaled_on_host(factor):
    """The shortcut of an angle conversion: NumPy's product of a strong host float or
    complex value and ``factor`` made in its dtype, as the general path's ``multiply`` makes
    the Python float (a 0-d array: NumPy takes one ~0.3 us faster than a Python float). A
    weak value takes the general path: beside a Python float it may widen (float16 to
    float32)."""
    factors = {np.dtype(t): np.asarray(factor, t) for t in (
        np.float16, np.float32, np.float64, np.complex64, np.complex128)}

    def on_host(x, /):
        value = host_value(x)
        if value is None or x._weak:
            return NotImplemented
        scale = factors.get(value.dtype)
        if scale is None:  # (integers and bools: converted to float first)
            return NotImplemented
        return new_array(np.multiply(value, scale), x._weak)
    return on_host


deg2rad = _scale("deg2rad", math.pi / 180, "Degrees to radians.",
                 ("fnp.deg2rad(180.0)", "Array(3.1415927, dtype=float32, weak_type=True)"))
rad2deg = _scale("rad2deg", 180 / math.pi, "Radians to degrees.",
                 ("fnp.rad2deg(0.0)", "Array(0., dtype=float32, weak_type=True)"))
radians, degrees = deg2rad, rad2deg


# --------------------------------------------------------------------------------------------
# Sign, extrema and special functions
# --------------------------------------------------------------------------------------------

def _same_host_float(vx, vy) -> bool:
    """Whether two host values (``host_value``) share one NumPy float dtype."""
    return (vx is not None and vy is not None and vx.dtype == vy.dtype
            and vx.dtype.kind == "f" and vx.dtype.isbuiltin == 1)


def _copysign_on_host(x, y, /):
    """NumPy's copysign of two host arrays of one float dtype (IEEE's: the magnitude of x, a
    NaN's included, with the sign bit of y), as the general path's where(signbit(y), ...)."""
    vx, vy = host_value(x), host_value(y)
    if not _same_host_float(vx, vy):
        return NotImplemented
    return Array(np.copysign(vx, vy), x._weak and y._weak)


@host_shortcut(_copysign_on_host)
def copysign(x: ArrayLike, y: ArrayLike, /) -> Array:
    """``|x|`` with the sign of ``y``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.copysign(fnp.array([1.0, 2.0]), -1.0)
        Array([-1., -2.], dtype=float32)
    """
    x, y = promote_args_inexact("copysign", x, y)
    _check_kinds("copysign", x, {"f"})
    magnitude = ew.abs_p.bind(x)
    return where(signbit(y), negative(magnitude), magnitude)


def _nan_ignoring_on_host(numpy_extremum):
    """The shortcut of fmax/fmin for two host arrays of one real float dtype: the general
    path's kernels in its order (maximum, then the other operand where one is NaN)."""
    def on_host(x, y, /):
        vx, vy = host_value(x), host_value(y)
        if not _same_host_float(vx, vy):
            return NotImplemented
        out = numpy_extremum(vx, vy)
        # It is NaN exactly where an operand is: with no NaN the selects change nothing.
        if _has_nan(out):
            out = np.where(np.isnan(vx), vy, np.where(np.isnan(vy), vx, out))
        return Array(out, x._weak and y._weak)
    return on_host


@host_shortcut(_nan_ignoring_on_host(np.maximum))
def fmax(x: ArrayLike, y: ArrayLike, /) -> Array:
    """Elementwise maximum that ignores NaN (returns the other value).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.fmax(fnp.array([fnp.nan, 1.0]), 0.0)
        Array([0., 1.], dtype=float32)
    """
    x, y = promote_args("fmax", x, y)
    return where(isnan(x), y, where(isnan(y), x, maximum(x, y)))


@host_shortcut(_nan_ignoring_on_host(np.minimum))
def fmin(x: ArrayLike, y: ArrayLike, /) -> Array:
    """Elementwise minimum that ignores NaN (returns the other value).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.fmin(fnp.array([fnp.nan, 1.0]), 0.0)
        Array([0., 0.], dtype=float32)
    """
    x, y = promote_args("fmin", x, y)
    return where(isnan(x), y, where(isnan(y), x, minimum(x, y)))


def _hypot_on_host(x, y, /):
    """The general path's formula on two host floats of one dtype (or a float and a Python
    scalar), step by step with the primitives' kernels: for float32 and float64 in fewer
    NumPy calls where that gives the same bits (``_hypot_of_scalars``,
    ``_hypot_of_ordinary_values``)."""
    pair = host_pair(x, y)
    if pair is None or pair[0].dtype.kind != "f":
        return NotImplemented
    vx, vy, weak = pair
    constants = _FORMULA_DTYPES.get(vx.dtype)
    if constants is not None:
        if vx.ndim == 0 and vy.ndim == 0:
            out = _hypot_of_scalars(vx[()], vy[()])
        else:
            out = _hypot_of_ordinary_values(vx, vy, constants.one_array)
        if out is not None:
            return new_array(out, weak)
    return new_array(_hypot_values(vx, vy), weak)


def _hypot_values(vx, vy):
    vx, vy = _materialized_pair(vx, vy)
    dtype = vx.dtype
    zero, one = np.zeros((), dtype), np.ones((), dtype)
    mul = ew.mul_p.kernel
    vx, vy = ew.abs_p.kernel(vx), ew.abs_p.kernel(vy)
    big, small = ew.max_p.kernel(vx, vy), ew.min_p.kernel(vx, vy)
    big_is_zero = ew.eq_p.kernel(big, zero)
    ratio = ew.div_p.kernel(small, np.where(big_is_zero, one, big))
    out = mul(big, ew.sqrt_p.kernel(ew.add_p.kernel(one, mul(ratio, ratio))))
    infinite = ew.or_p.kernel(np.isinf(vx), np.isinf(vy))
    return np.where(infinite, np.asarray(np.inf, dtype), np.where(big_is_zero, zero, out))


def _hypot_of_scalars(x, y):
    """The formula on two NumPy float32 or float64 scalars (~60 ns an operation, where a
    ufunc call on a scalar costs ~1 us), or None for a NaN beside no infinity (the array
    formula then decides which NaN)."""
    constants = _FORMULA_CONSTANTS[type(x)]
    x, y = abs(x), abs(y)
    if x == constants.inf or y == constants.inf:
        return constants.inf
    if x != x or y != y:
        return None
    big, small = (x, y) if x > y else (y, x)
    if big == 0:
        return constants.zero
    ratio = small / big
    return big * np.sqrt(constants.one + ratio * ratio)


def _hypot_of_ordinary_values(vx, vy, one):
    """The formula without its selects on float32 or float64 arrays, or None where that
    gives a NaN. Its selects change nothing elsewhere: a NaN-free result has a nonzero
    largest side (0 / 0 is NaN) and, if that one is infinite, a finite other side (inf / inf
    is NaN), whose result inf * 1 is the select's inf."""
    vx, vy = np.abs(vx), np.abs(vy)
    big = np.maximum(vx, vy)
    ratio = np.divide(np.minimum(vx, vy), big)
    out = np.multiply(big, np.sqrt(np.add(one, np.multiply(ratio, ratio))))
    return None if _has_nan(out) else out


@host_shortcut(_hypot_on_host)
def hypot(x: ArrayLike, y: ArrayLike, /) -> Array:
    """``sqrt(x**2 + y**2)`` without overflow or underflow in the squares.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.hypot(3.0, 4.0)
        Array(5., dtype=float32, weak_type=True)
    """
    x, y = promote_args_inexact("hypot", x, y)
    _check_kinds("hypot", x, {"f"})
    x, y = absolute(x), absolute(y)
    big, small = maximum(x, y), minimum(x, y)
    safe_big = where(big == 0, 1, big)
    ratio = true_divide(small, safe_big)
    out = multiply(big, sqrt(add(1, multiply(ratio, ratio))))
    # An infinite side makes the hypotenuse infinite even when the other side is NaN (C99).
    return where(logical_or(isinf(x), isinf(y)), np.inf, where(big == 0, 0, out))


def _sinc_on_host(x, /):
    """The general path's formula on a host float or complex value, with the primitives'
    kernels in its order (the Maclaurin value at 0 is ``pix * 0 + 1``, as its custom_jvp
    function computes it eagerly)."""
    value = host_value(x)
    if value is None or value.dtype.kind not in "fc" or value.dtype.isbuiltin != 1:
        return NotImplemented
    dtype = value.dtype
    zero, one = np.zeros((), dtype), np.ones((), dtype)
    is_zero = ew.eq_p.kernel(value, zero)
    pix = ew.mul_p.kernel(value, np.asarray(math.pi, dtype))
    safe = np.where(is_zero, one, pix)
    at_zero = ew.add_p.kernel(ew.mul_p.kernel(pix, zero), one)
    return Array(np.where(is_zero, at_zero, ew.div_p.kernel(ew.sin_p.kernel(safe), safe)),
                 x._weak)


@host_shortcut(_sinc_on_host)
def sinc(x: ArrayLike, /) -> Array:
    """``sin(pi x) / (pi x)``, 1 at 0.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.sinc(fnp.zeros(1))
        Array([1.], dtype=float32)
    """
    x = asarray_arg("sinc", x)
    if not dtypes.is_inexact(x.dtype):
        x = convert(x, to_inexact_dtype(x.dtype), x.weak_type)
    is_zero = equal(x, 0)
    pix = multiply(x, math.pi)
    safe = where(is_zero, 1, pix)
    # At 0 the value comes from the Maclaurin series of sin(t)/t at t = pi x, whose custom
    # derivative is the next term: every order of derivative is right there
    # (grad(grad(sinc))(0) is -pi**2/3, as in JAX), where a constant 1 made them all 0.
    return where(is_zero, _sinc_maclaurin()(0, pix), true_divide(sin(safe), safe))


@functools.cache
def _sinc_maclaurin():
    """``maclaurin(k, t)``: the k-th derivative of sin(t)/t at t = 0, shaped like ``t``, with
    ``maclaurin(k + 1, t) * dt`` as its tangent. (Made on first use: ``custom_jvp`` lives
    above funcarray.numpy in the import graph.)"""
    from funcarray.api.custom_derivatives import custom_jvp

    def maclaurin(k, t):
        # (t * 0: t's shape and dtype; only its value where t == 0 is used)
        return add(multiply(t, 0.0), 0.0 if k % 2 else (-1) ** (k // 2) / (k + 1))

    maclaurin = custom_jvp(maclaurin, nondiff_argnums=(0,))
    maclaurin.defjvp(lambda k, primals, tangents: (
        maclaurin(k, primals[0]), multiply(maclaurin(k + 1, primals[0]), tangents[0])))
    return maclaurin


def _heaviside_on_host(x1, x2, /):
    """NumPy's heaviside of two host floats of one dtype (or a float and a Python scalar):
    the general path's nested selects give 0, ``x2`` and 1 as NumPy does (``x2`` itself where
    ``x1`` is zero). A NaN result may be a NaN ``x1``, which the general path keeps where
    NumPy makes a new NaN: those take ``x1`` itself."""
    pair = host_pair(x1, x2)
    if pair is None or pair[0].dtype.kind != "f":
        return NotImplemented
    v1, v2, weak = pair
    out = np.heaviside(v1, v2)
    if _has_nan(out):
        out = np.where(np.isnan(v1), v1, out)
    return new_array(out, weak)


@host_shortcut(_heaviside_on_host)
def heaviside(x1: ArrayLike, x2: ArrayLike, /) -> Array:
    """0 where ``x1 < 0``, ``x2`` where ``x1 == 0``, 1 where ``x1 > 0``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.heaviside(fnp.array([-1.0, 0.0, 2.0]), 0.5)
        Array([0. , 0.5, 1. ], dtype=float32)
    """
    x1, x2 = promote_args_inexact("heaviside", x1, x2)
    _check_kinds("heaviside", x1, {"f"})
    return where(isnan(x1), x1, where(less(x1, 0), 0, where(greater(x1, 0), 1, x2)))


# --------------------------------------------------------------------------------------------
# Complex parts
# --------------------------------------------------------------------------------------------

def real(x: ArrayLike, /) -> Array:
    """The real part (``x`` itself for real dtypes).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.real(fnp.array([1 + 2j]))
        Array([1.], dtype=float32)
    """
    if type(x) is Array and x._value.dtype.kind != "c":  # (the common call, answered at once)
        return x
    x = asarray_arg("real", x)
    return ew.real_p.bind(x) if dtypes.is_complex(x.dtype) else x


def _imag_on_host(x, /):
    """The imaginary part of a host complex value (the primitive's), or zeros of a real
    one's dtype and weak type."""
    value = host_value(x)
    if value is None or value.dtype.kind not in "biufc":
        return NotImplemented
    if value.dtype.kind == "c":
        return ew.imag_p.impl(x)
    return Array(np.zeros(value.shape, value.dtype), x._weak)


@host_shortcut(_imag_on_host)
def imag(x: ArrayLike, /) -> Array:
    """The imaginary part (zeros for real dtypes).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.imag(fnp.array([1 + 2j]))
        Array([2.], dtype=float32)
    """
    x = asarray_arg("imag", x)
    if dtypes.is_complex(x.dtype):
        return ew.imag_p.bind(x)
    return broadcast_to_shape(Array(np.zeros((), x.dtype), x.weak_type), x.shape)


def conjugate(x: ArrayLike, /) -> Array:
    """The complex conjugate (``x`` itself for real dtypes).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.conj(fnp.array([1 + 2j]))
        Array([1.-2.j], dtype=complex64)
    """
    if type(x) is Array and x._value.dtype.kind != "c":
        return x
    x = asarray_arg("conjugate", x)
    return ew.conj_p.bind(x) if dtypes.is_complex(x.dtype) else x


conj = conjugate


def _angle_on_host(z, deg=False):
    """``atan2(imag, real)`` of a host float or complex value with the kernels (radians)."""
    value = host_value(z)
    if value is None or deg is not False or value.dtype.kind not in "fc":
        return NotImplemented
    if value.dtype.kind == "c":
        return Array(ew.atan2_p.kernel(ew.imag_p.kernel(value), ew.real_p.kernel(value)),
                     z._weak)
    return Array(ew.atan2_p.kernel(np.zeros(value.shape, value.dtype), value), z._weak)


@host_shortcut(_angle_on_host)
def angle(z: ArrayLike, deg: bool = False) -> Array:
    """The argument of a complex number (0 or pi for reals).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.angle(fnp.array([1j]))
        Array([1.5707964], dtype=float32)
    """
    z = asarray_arg("angle", z)
    z = _to_inexact(z)
    out = arctan2(imag(z), real(z))
    return rad2deg(out) if deg else out
