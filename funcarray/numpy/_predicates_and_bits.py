"""Predicates and bitwise functions of ``funcarray.numpy``: ``isfinite``, ``isposinf``,
``isneginf``, ``signbit``, ``logical_not``, ``bitwise_not``/``invert``, ``bitwise_count`` and
the shifts ``left_shift``/``right_shift``.

The predicates return bool arrays of the operand's shape; the bitwise functions accept bool
and integer dtypes only, as in NumPy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from funcarray.api.arguments import (
    asarray_arg,
    convert,
)
from funcarray.base import dtypes
from funcarray.base.array import Array, new_array
from funcarray.numpy._elementwise import (
    _BOOL_INT,
    _INT,
    _NUMERIC,
    _bool_to_int,
    _check_kinds,
    _doc,
    _dtypes_of_kinds,
    _float_test_on_host,
    _full_bool,
    _kind,
    _operands_alike,
    _to_bool,
    _unary_same,
    greater,
    isinf,
    less,
    logical_and,
)
from funcarray.numpy._promotion import host_pair, promote_binary
from funcarray.primitives import elementwise as ew
from funcarray.primitives.conversions import bitcast_convert_type_p
from funcarray.primitives.eager_entry import eager_entry
from funcarray.transforms.host_shortcuts import host_shortcut, host_value

if TYPE_CHECKING:
    from funcarray.base.typing import ArrayLike


__all__ = [
    "bitwise_count", "bitwise_invert", "bitwise_left_shift", "bitwise_not", "bitwise_right_shift",
    "invert", "isfinite", "isneginf", "isposinf", "left_shift", "logical_not", "right_shift",
    "signbit",
]


# --------------------------------------------------------------------------------------------
# Predicates
# --------------------------------------------------------------------------------------------

@host_shortcut(_float_test_on_host(np.isfinite, True))
def isfinite(x: ArrayLike, /) -> Array:
    """True where ``x`` is neither infinite nor NaN.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.isfinite(fnp.array([1.0, fnp.inf, fnp.nan]))
        Array([ True, False, False], dtype=bool)
    """
    x = asarray_arg("isfinite", x)
    if dtypes.is_complex(x.dtype):
        return ew.and_p.bind(isfinite(ew.real_p.bind(x)), isfinite(ew.imag_p.bind(x)))
    if not dtypes.is_float(x.dtype):
        return _full_bool(x, True)
    return ew.is_finite_p.bind(x)


def _float_predicate_on_host(numpy_predicate):
    """The shortcut of a predicate of a host float array: NumPy's, weak as its operand (the
    general path's comparisons are weak when their operands are)."""
    def predicate_on_host(x, /):
        value = host_value(x)
        if value is None or value.dtype.kind != "f" or value.dtype.isbuiltin != 1:
            return NotImplemented
        return Array(numpy_predicate(value), x._weak)
    return predicate_on_host


@host_shortcut(_float_predicate_on_host(np.isposinf))
def isposinf(x: ArrayLike, /) -> Array:
    """True where ``x`` is plus infinity.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.isposinf(fnp.array([fnp.inf, -fnp.inf]))
        Array([ True, False], dtype=bool)
    """
    x = asarray_arg("isposinf", x)
    _check_kinds("isposinf", x, _NUMERIC - {"c"} | {"b"})
    return logical_and(isinf(x), greater(x, 0))


@host_shortcut(_float_predicate_on_host(np.isneginf))
def isneginf(x: ArrayLike, /) -> Array:
    """True where ``x`` is minus infinity.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.isneginf(fnp.array([fnp.inf, -fnp.inf]))
        Array([False,  True], dtype=bool)
    """
    x = asarray_arg("isneginf", x)
    _check_kinds("isneginf", x, _NUMERIC - {"c"} | {"b"})
    return logical_and(isinf(x), less(x, 0))


@host_shortcut(_float_predicate_on_host(np.signbit))
def signbit(x: ArrayLike, /) -> Array:
    """True where the sign bit is set (``-0.0`` included).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.signbit(fnp.array([-0.0, 0.0, -1.0]))
        Array([ True, False,  True], dtype=bool)
    """
    x = asarray_arg("signbit", x)
    _check_kinds("signbit", x, _NUMERIC - {"c"} | {"b"})
    if _kind(x.dtype) in "bu":
        return _full_bool(x, False)
    if _kind(x.dtype) == "i":
        return less(x, 0)
    bits = np.dtype(f"i{x.dtype.itemsize}")
    as_int = bitcast_convert_type_p.bind(x, new_dtype=bits)
    return less(as_int, 0)


# --------------------------------------------------------------------------------------------
# Logic and bits
# --------------------------------------------------------------------------------------------

def _logical_not_on_host(x, /):
    """NumPy's logical_not of a host value: the general path's ``not(x != 0)`` (weak as
    ``x``: a comparison with a weak constant is weak when its operand is)."""
    value = host_value(x)
    if value is None or value.dtype.isbuiltin != 1:
        return NotImplemented
    return Array(np.logical_not(value), x._weak)


@host_shortcut(_logical_not_on_host)
def logical_not(x: ArrayLike, /) -> Array:
    """Elementwise logical NOT (nonzero is true).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.logical_not(fnp.array([1, 0]))
        Array([False,  True], dtype=bool)
    """
    return ew.not_p.bind(_to_bool("logical_not", x))


bitwise_not = _unary_same("bitwise_not", ew.not_p, _BOOL_INT, "Elementwise bitwise NOT.",
                          ("fnp.bitwise_not(fnp.array([0]))", "Array([-1], dtype=int32)"))
invert = bitwise_not
bitwise_invert = bitwise_not


def _bitwise_count_on_host(x, /):
    """NumPy's bitwise_count of a host integer value (it counts the bits of ``|x|``, and
    ``|int8(-128)|`` wraps to the same bits the general path counts), as strong uint8."""
    value = host_value(x)
    if value is None or value.dtype.kind not in "biu" or value.dtype.isbuiltin != 1:
        return NotImplemented
    if value.dtype == np.bool_:
        return Array(np.asarray(value, np.uint8))
    return Array(np.bitwise_count(value))


@host_shortcut(_bitwise_count_on_host)
def bitwise_count(x: ArrayLike, /) -> Array:
    """Number of set bits in each element (of ``|x|`` for signed integers), as uint8.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.bitwise_count(fnp.array([7, -7]))
        Array([3, 3], dtype=uint8)
    """
    x = asarray_arg("bitwise_count", x)
    _check_kinds("bitwise_count", x, _BOOL_INT)
    if x.dtype != np.bool_:
        if _kind(x.dtype) == "i":
            x = ew.abs_p.bind(x)  # NumPy counts the bits of the magnitude
        x = ew.population_count_p.bind(x)
    return convert(x, dtypes.uint8)


_SHIFTED_DTYPES = dtypes.dtype_set(dtypes.is_integer)


def _general_left_shift(x, y, /):
    x, y = promote_binary("left_shift", x, y)
    _check_kinds("left_shift", x, _BOOL_INT)
    return ew.shift_left_p.bind(_bool_to_int(x), _bool_to_int(y))


# (two integer arrays of one dtype, or one and a Python int: the kernel in the function's own
# frame, see ``eager_entry``; bools are shifted as int32 on the general path)
left_shift = _doc(eager_entry(ew.shift_left_p, _dtypes_of_kinds(_INT), _general_left_shift,
                              home=globals(), broadcasts=True),
                  "left_shift", "Elementwise ``x << y``.",
                  ("fnp.left_shift(fnp.array([1]), 3)", "Array([8], dtype=int32)"))


def _right_shift_on_host(x, y, /):
    """NumPy's right shift of two host integer arrays of one dtype (or one and a Python int
    its dtype takes): arithmetic for signed dtypes, logical for unsigned ones, as the general
    path's primitives, whose kernels are NumPy's shift of the same bits."""
    pair = host_pair(x, y)
    if pair is None or pair[0].dtype.kind not in "iu":
        return NotImplemented
    vx, vy, weak = pair
    return new_array(np.right_shift(vx, vy), weak)


@host_shortcut(_right_shift_on_host)
def right_shift(x: ArrayLike, y: ArrayLike, /) -> Array:
    """Elementwise ``x >> y`` (arithmetic for signed, logical for unsigned integers).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.right_shift(fnp.array([-8]), 1)
        Array([-4], dtype=int32)
    """
    if _operands_alike(x, y, _SHIFTED_DTYPES):  # (nothing to promote or convert)
        return _right_shift_p(x).bind(x, y)
    x, y = promote_binary("right_shift", x, y)
    _check_kinds("right_shift", x, _BOOL_INT)
    x, y = _bool_to_int(x), _bool_to_int(y)
    return _right_shift_p(x).bind(x, y)


def _right_shift_p(x):
    """Arithmetic shifts for signed integers, logical ones for unsigned."""
    return ew.shift_right_logical_p if _kind(x.dtype) == "u" else ew.shift_right_arithmetic_p


bitwise_left_shift, bitwise_right_shift = left_shift, right_shift
