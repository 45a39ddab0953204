"""``jax.lax``'s elementwise operations of two or more operands: arithmetic, bit operations,
comparisons, ``clamp``, ``select`` and ``mulhi`` (a widened product; 64-bit operands: a
product of 32-bit halves).

They neither promote dtypes nor broadcast ranks, as in jax.lax: operands share one dtype (a
weak-typed Python scalar of the same kind takes the array's dtype) and their shapes have one
rank (dimensions equal or 1) or are scalars. A mismatch is a ``TypeError`` that names the
``funcarray.numpy`` function that promotes and broadcasts.

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray import lax
    >>> lax.mul(fnp.array([1, 2], fnp.int8), 3)
    Array([3, 6], dtype=int8)
"""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING

import numpy as np

from funcarray.api.arguments import convert
from funcarray.base import dtypes
from funcarray.base.array import Array, DeviceArray
from funcarray.base.errors import op_type_error
from funcarray.lax._ops_common import (
    _BIU,
    _F,
    _FC,
    _IU,
    _IUFC,
    _broadcast_operands,
    _check_kinds,
    _concrete,
    _doc,
    _kind,
    _operand,
    _same_dtype_operands,
    _short,
)
from funcarray.primitives import elementwise as ew
from funcarray.primitives.clamp import clamp_p
from funcarray.primitives.eager_entry import eager_entry
from funcarray.primitives.select_n import select_n_p
from funcarray.transforms.host_shortcuts import host_shortcut, host_value

if TYPE_CHECKING:
    from typing import Protocol

    from funcarray.base.typing import ArrayLike

    class _BinaryOp(Protocol):
        """The signature of the operations ``_binary`` makes."""

        def __call__(self, x: ArrayLike, y: ArrayLike) -> Array: ...


__all__ = [
    "add", "sub", "mul", "div", "rem", "pow", "max", "min", "atan2", "nextafter", "complex",
    "bitwise_and", "bitwise_or", "bitwise_xor", "shift_left", "shift_right_logical",
    "shift_right_arithmetic", "eq", "ne", "lt", "le", "gt", "ge", "clamp", "select",
    "mulhi",
]


def _operand_pair(op: str, x, y, kinds: str, equivalent: str | None):
    """The operands of a binary op: one dtype of ``kinds``, broadcast to one shape (jax.lax's
    rules; ``equivalent`` names the ``funcarray.numpy`` function that promotes)."""
    x, y = _same_dtype_operands(op, (x, y), equivalent=equivalent)
    _check_kinds(op, x, kinds, 0)
    return _broadcast_operands(op, (x, y), equivalent=equivalent)


def _plain_pair(x, y, accepted) -> bool:
    """True for two eager arrays of one accepted dtype and one shape, which need no check
    (a device array's dtype and shape come from its aval: the XLA engine keeps it on the
    device)."""
    tx, ty = type(x), type(y)
    if (tx is not Array and tx is not DeviceArray) or (ty is not Array and ty is not DeviceArray):
        return False
    dtype = x.dtype
    return dtype == y.dtype and x.shape == y.shape and dtype in accepted


def _binary(name, prim, kinds, summary, example, *, equivalent=None) -> _BinaryOp:
    op = f"lax.{name}"
    accepted = dtypes.dtype_set(lambda d: _kind(d) in kinds)

    def general(x, y):
        return prim.bind(*_operand_pair(op, x, y, kinds, equivalent))

    # Two eager arrays of one accepted dtype and shape need no check (lax's special functions
    # are chains of these): the kernel runs in the function's own frame (``eager_entry``).
    fn = eager_entry(prim, accepted, general, home=globals(), positional_only=False)
    return _doc(fn, name, summary, example)


add = _binary("add", ew.add_p, _IUFC, "Elementwise ``x + y`` (one dtype, no promotion).",
              ("lax.add(fnp.array([1.0, 2.0]), 1.0)", "Array([2., 3.], dtype=float32)"),
              equivalent="add")
sub = _binary("sub", ew.sub_p, _IUFC, "Elementwise ``x - y`` (one dtype, no promotion).",
              ("lax.sub(fnp.array([1, 2]), fnp.array([1, 1]))", "Array([0, 1], dtype=int32)"),
              equivalent="subtract")
mul = _binary("mul", ew.mul_p, _IUFC, "Elementwise ``x * y`` (one dtype, no promotion).",
              ("lax.mul(fnp.array([1.0, 2.0]), 3.0)", "Array([3., 6.], dtype=float32)"),
              equivalent="multiply")
div = _binary("div", ew.div_p, _IUFC, "Elementwise ``x / y``; integer division rounds toward "
              "zero (not NumPy's floor division).",
              ("lax.div(fnp.array([7, -7]), fnp.array([2, 2]))", "Array([ 3, -3], dtype=int32)"),
              equivalent="divide")
rem = _binary("rem", ew.rem_p, "iuf", "Elementwise remainder with the sign of the dividend "
              "(C's ``fmod``, not NumPy's ``mod``).",
              ("lax.rem(fnp.array([5, -5]), fnp.array([3, 3]))", "Array([ 2, -2], dtype=int32)"),
              equivalent="remainder")
max = _binary("max", ew.max_p, "biufc", "Elementwise maximum (NaN propagates).",  # noqa: A001
              ("lax.max(fnp.array([1.0, 5.0]), 2.0)", "Array([2., 5.], dtype=float32)"),
              equivalent="maximum")
min = _binary("min", ew.min_p, "biufc", "Elementwise minimum (NaN propagates).",  # noqa: A001
              ("lax.min(fnp.array([1.0, 5.0]), 2.0)", "Array([1., 2.], dtype=float32)"),
              equivalent="minimum")
atan2 = _binary("atan2", ew.atan2_p, _FC, "Elementwise arctangent of ``x / y`` with the "
                "quadrant of ``(y, x)``.", ("lax.atan2(fnp.array([1.0]), fnp.array([-1.0]))",
                                            "Array([2.3561945], dtype=float32)"),
                equivalent="arctan2")
bitwise_and = _binary("bitwise_and", ew.and_p, _BIU, "Elementwise bitwise (logical for bool) "
                      "and.", ("lax.bitwise_and(fnp.array([6]), fnp.array([3]))",
                               "Array([2], dtype=int32)"), equivalent="bitwise_and")
bitwise_or = _binary("bitwise_or", ew.or_p, _BIU, "Elementwise bitwise (logical for bool) or.",
                     ("lax.bitwise_or(fnp.array([6]), fnp.array([3]))",
                      "Array([7], dtype=int32)"), equivalent="bitwise_or")
bitwise_xor = _binary("bitwise_xor", ew.xor_p, _BIU, "Elementwise bitwise (logical for bool) "
                      "exclusive or.", ("lax.bitwise_xor(fnp.array([6]), fnp.array([3]))",
                                        "Array([5], dtype=int32)"), equivalent="bitwise_xor")
shift_left = _binary("shift_left", ew.shift_left_p, _IU, "Elementwise ``x << y``; a shift by "
                     "a negative amount or by the bit width or more gives 0.",
                     ("lax.shift_left(fnp.array([1]), fnp.array([3]))",
                      "Array([8], dtype=int32)"), equivalent="left_shift")
shift_right_logical = _binary(
    "shift_right_logical", ew.shift_right_logical_p, _IU, "Elementwise logical right shift "
    "(zeros shifted in, whatever the sign).",
    ("lax.shift_right_logical(fnp.array([-8]), fnp.array([28]))", "Array([15], dtype=int32)"),
    equivalent="right_shift")
shift_right_arithmetic = _binary(
    "shift_right_arithmetic", ew.shift_right_arithmetic_p, _IU, "Elementwise arithmetic right "
    "shift (the sign bit shifted in).",
    ("lax.shift_right_arithmetic(fnp.array([-8]), fnp.array([2]))", "Array([-2], dtype=int32)"),
    equivalent="right_shift")
eq = _binary("eq", ew.eq_p, "biufc", "Elementwise ``x == y`` (bool result).",
             ("lax.eq(fnp.array([1, 2]), fnp.array([1, 3]))", "Array([ True, False], dtype=bool)"),
             equivalent="equal")
ne = _binary("ne", ew.ne_p, "biufc", "Elementwise ``x != y`` (bool result).",
             ("lax.ne(fnp.array([1, 2]), fnp.array([1, 3]))", "Array([False,  True], dtype=bool)"),
             equivalent="not_equal")
lt = _binary("lt", ew.lt_p, "biuf", "Elementwise ``x < y`` (bool result).",
             ("lax.lt(fnp.array([1, 2]), fnp.array([2, 2]))", "Array([ True, False], dtype=bool)"),
             equivalent="less")
le = _binary("le", ew.le_p, "biuf", "Elementwise ``x <= y`` (bool result).",
             ("lax.le(fnp.array([1, 2]), fnp.array([2, 2]))", "Array([ True,  True], dtype=bool)"),
             equivalent="less_equal")
gt = _binary("gt", ew.gt_p, "biuf", "Elementwise ``x > y`` (bool result).",
             ("lax.gt(fnp.array([1, 2]), fnp.array([2, 1]))", "Array([False,  True], dtype=bool)"),
             equivalent="greater")
ge = _binary("ge", ew.ge_p, "biuf", "Elementwise ``x >= y`` (bool result).",
             ("lax.ge(fnp.array([1, 2]), fnp.array([2, 1]))", "Array([False,  True], dtype=bool)"),
             equivalent="greater_equal")


# The dtypes whose operands the fast paths below take unchecked.
_F_DTYPES = dtypes.dtype_set(lambda d: _kind(d) in _F)
_FC_DTYPES = dtypes.dtype_set(lambda d: _kind(d) in _FC)
_ANY_DTYPE = dtypes.dtype_set(lambda d: True)


def nextafter(x1: ArrayLike, x2: ArrayLike) -> Array:
    """Elementwise next representable float after ``x1`` in the direction of ``x2``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.nextafter(fnp.array([0.0]), fnp.array([1.0]))
        Array([1.e-45], dtype=float32)
    """
    if _plain_pair(x1, x2, _F_DTYPES):
        return ew.nextafter_p.bind(x1, x2)
    return ew.nextafter_p.bind(*_operand_pair("lax.nextafter", x1, x2, _F, "nextafter"))


def complex(x: ArrayLike, y: ArrayLike) -> Array:  # noqa: A001 (jax's name)
    """Elementwise ``x + 1j * y`` from two float32 (complex64 result) or float64 (complex128)
    arrays of one dtype.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.complex(fnp.array([1.0]), fnp.array([2.0]))
        Array([1.+2.j], dtype=complex64)
    """
    op = "lax.complex"
    x, y = _same_dtype_operands(op, (x, y))
    if x.dtype not in (dtypes.float32, dtypes.float64):
        raise op_type_error(op, f"takes float32 or float64 operands, got dtype {x.dtype} "
                                f"({_short(x)}); convert with lax.convert_element_type first")
    x, y = _broadcast_operands(op, (x, y))
    return ew.complex_p.bind(x, y)


def pow(x: ArrayLike, y: ArrayLike) -> Array:  # noqa: A001 (jax's name)
    """Elementwise ``x ** y`` for a float or complex ``x``; ``y`` has ``x``'s dtype or is an
    integer array (converted to ``x``'s dtype, as jax.lax lowers it).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.pow(fnp.array([2.0, 4.0]), fnp.array([3, -1]))
        Array([8.  , 0.25], dtype=float32)
    """
    if _plain_pair(x, y, _FC_DTYPES):
        return ew.pow_p.bind(x, y)
    op = "lax.pow"
    y_array = None if type(y) in (float, builtins.complex) else _operand(op, y, "y")
    if y_array is not None and _kind(y_array.dtype) in "iu":
        x, y = _operand(op, x, "x"), y_array
    else:
        x, y = _same_dtype_operands(op, (x, y), equivalent="power")
    _check_kinds(op, x, _FC, 0)
    if _kind(y.dtype) in "iu":
        y = convert(y, x.dtype, y.weak_type)
    elif y.dtype != x.dtype:
        raise op_type_error(op, f"y must have x's dtype or an integer dtype, got {_short(x)} "
                                f"and {_short(y)}")
    x, y = _broadcast_operands(op, (x, y), equivalent="power")
    return ew.pow_p.bind(x, y)


def clamp(min: ArrayLike, x: ArrayLike,
          max: ArrayLike) -> Array:  # noqa: A002 (jax's parameter names)
    """Elementwise ``min(max(x, min), max)``; the bounds are scalars or have ``x``'s shape,
    and every operand has ``x``'s dtype.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.clamp(0.0, fnp.array([-1.0, 0.5, 2.0]), 1.0)
        Array([0. , 0.5, 1. ], dtype=float32)
    """
    if type(x) is Array or type(x) is DeviceArray:
        # Bounds of x's dtype (NumPy scalars made Arrays as the general path makes them),
        # scalars or of x's shape, need no check.
        lo, hi = _concrete(min), _concrete(max)
        if (lo is not None and hi is not None and lo.dtype == x.dtype == hi.dtype
                and lo.shape in ((), x.shape) and hi.shape in ((), x.shape)):
            return clamp_p.bind(lo, x, hi)
    op = "lax.clamp"
    lo, x, hi = _same_dtype_operands(op, (min, x, max), equivalent="clip", anchor=1)
    for name, bound in (("min", lo), ("max", hi)):
        if bound.shape not in ((), x.shape):
            raise op_type_error(
                op, f"requires {name}.shape == operand.shape or {name}.shape == (), got "
                    f"{name}.shape={tuple(bound.shape)}, operand.shape={tuple(x.shape)}")
    return clamp_p.bind(lo, x, hi)


def select(pred: ArrayLike, on_true: ArrayLike, on_false: ArrayLike) -> Array:
    """Elementwise ``on_true if pred else on_false``. ``pred`` is a boolean scalar or has the
    cases' shape; the cases share a shape and dtype (no broadcasting, as in jax.lax).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.select(fnp.array([True, False]), fnp.array([1, 2]), fnp.array([3, 4]))
        Array([1, 4], dtype=int32)
    """
    if _plain_pair(on_true, on_false, _ANY_DTYPE):
        which = _concrete(pred)  # (a NumPy bool made an Array as the general path makes it)
        if which is not None and which.dtype == np.bool_ and which.shape in ((), on_true.shape):
            return select_n_p.bind(which, on_false, on_true)
    op = "lax.select"
    pred = _operand(op, pred, "pred")
    on_true, on_false = _same_dtype_operands(op, (on_true, on_false), equivalent="where")
    if on_true.shape != on_false.shape:
        raise op_type_error(op, f"cases must have the same shapes, got {_short(on_true)} and "
                                f"{_short(on_false)}")
    if _kind(pred.dtype) not in "biu":
        raise op_type_error(op, f"pred must be boolean (or integer), got {_short(pred)}")
    if pred.shape not in ((), on_true.shape):
        raise op_type_error(op, f"pred must be a scalar or have the cases' shape "
                                f"{tuple(on_true.shape)}, got {_short(pred)}")
    if pred.dtype != np.bool_:
        pred = convert(pred, dtypes.int32)
    return select_n_p.bind(pred, on_false, on_true)


# Binary functions of the namespaces above lax that compute what lax's do (funcarray.numpy's
# add, maximum, ...): lax.reduce and lax.reduce_window recognise a monoid by the function's
# identity. lax may not import those namespaces, so each registers its functions on import.
EQUIVALENT_FUNCTIONS: dict[str, tuple] = {}


def register_equivalents(**functions) -> None:
    """Record ``name=function``: ``function`` computes what ``lax.<name>`` computes."""
    for name, function in functions.items():
        EQUIVALENT_FUNCTIONS[name] = EQUIVALENT_FUNCTIONS.get(name, ()) + (function,)


def _widened_mulhi(x, y, wide):
    from funcarray import lax

    product = lax.mul(lax.convert_element_type(x, wide), lax.convert_element_type(y, wide))
    bits = 8 * x.dtype.itemsize
    shift = lax.full(product.shape, bits, wide)
    high = (lax.shift_right_arithmetic if np.dtype(wide).kind == "i"
            else lax.shift_right_logical)(product, shift)
    return lax.convert_element_type(high, x.dtype)


def _mulhi_u64(x, y):
    """High 64 bits of the 128-bit product of uint64 arrays, from 32-bit halves."""
    from funcarray import lax

    def const(v):
        return lax.full(x.shape, v, np.uint64)

    low_mask, thirty_two = const(0xFFFFFFFF), const(32)
    x_lo, x_hi = lax.bitwise_and(x, low_mask), lax.shift_right_logical(x, thirty_two)
    y_lo, y_hi = lax.bitwise_and(y, low_mask), lax.shift_right_logical(y, thirty_two)
    lo_lo, hi_lo = lax.mul(x_lo, y_lo), lax.mul(x_hi, y_lo)
    lo_hi, hi_hi = lax.mul(x_lo, y_hi), lax.mul(x_hi, y_hi)
    # (each partial product is below 2**64; cross sums three terms below 2**32, 2**32, 2**64
    # - 2**33 + 1, so it does not overflow either)
    cross = lax.add(lax.add(lax.shift_right_logical(lo_lo, thirty_two),
                            lax.bitwise_and(hi_lo, low_mask)), lo_hi)
    return lax.add(lax.add(hi_hi, lax.shift_right_logical(hi_lo, thirty_two)),
                   lax.shift_right_logical(cross, thirty_two))


def _numpy_mulhi_u64(x, y):
    """``_mulhi_u64`` on NumPy uint64 values (the same wrapping products, sums and shifts)."""
    low_mask, thirty_two = np.uint64(0xFFFFFFFF), np.uint64(32)
    x_lo, x_hi, y_lo, y_hi = x & low_mask, x >> thirty_two, y & low_mask, y >> thirty_two
    hi_lo = x_hi * y_lo
    cross = ((x_lo * y_lo) >> thirty_two) + (hi_lo & low_mask) + x_lo * y_hi
    return x_hi * y_hi + (hi_lo >> thirty_two) + (cross >> thirty_two)


_INTEGER_DTYPES = dtypes.dtype_set(lambda d: d.kind in "iu")  # (builtin ones: kind "V" else)


def _mulhi_on_host(x, y, /):
    """The general path's arithmetic on NumPy values of one integer dtype and shape: widened
    product and shift, or for 64 bits the product of 32-bit halves (uint64 wraps as lax's
    uint64 ops do). The result is strong, as the general path's conversions make it."""
    if not _plain_pair(x, y, _INTEGER_DTYPES):
        return NotImplemented
    # (flat: NumPy warns when scalars wrap around, never arrays)
    xv, yv = np.ravel(host_value(x)), np.ravel(host_value(y))
    dtype, shape = xv.dtype, np.shape(host_value(x))
    size = dtype.itemsize
    if size < 8:
        wide = np.dtype(f"{dtype.kind}{2 * size}")  # (>> is arithmetic for signed NumPy ints)
        high = (xv.astype(wide) * yv.astype(wide)) >> (8 * size)
    elif dtype.kind == "u":
        high = _numpy_mulhi_u64(xv, yv)
    else:
        ux, uy = xv.view(np.uint64), yv.view(np.uint64)
        zero = np.uint64(0)
        high = (_numpy_mulhi_u64(ux, uy) - np.where(xv < 0, uy, zero)
                - np.where(yv < 0, ux, zero)).view(dtype)
    return Array(high.astype(dtype, copy=False).reshape(shape))


@host_shortcut(_mulhi_on_host)
def mulhi(x: ArrayLike, y: ArrayLike, /) -> Array:
    """The high half of the double-width product of integers ``x`` and ``y`` (one dtype):
    for N-bit inputs, the upper N bits of the 2N-bit product.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.mulhi(fnp.array([-100], fnp.int8), fnp.array([100], fnp.int8))
        Array([-40], dtype=int8)
    """
    from funcarray import lax

    op = "lax.mulhi"
    x, y = _same_dtype_operands(op, (x, y))
    _check_kinds(op, x, "iu", 0)
    x, y = _broadcast_operands(op, (x, y))
    signed = x.dtype.kind == "i"
    size = x.dtype.itemsize
    if size < 8:
        wide = np.dtype(f"{'i' if signed else 'u'}{2 * size}")
        return _widened_mulhi(x, y, wide)
    if not signed:
        return _mulhi_u64(x, y)
    # Signed: the unsigned high word minus y where x < 0 and x where y < 0 (mod 2**64).
    ux, uy = (lax.bitcast_convert_type(v, np.uint64) for v in (x, y))
    high = _mulhi_u64(ux, uy)
    zero = lax.full(x.shape, 0, np.uint64)
    high = lax.sub(high, lax.select(lax.lt(x, lax.full(x.shape, 0, x.dtype)), uy, zero))
    high = lax.sub(high, lax.select(lax.lt(y, lax.full(y.shape, 0, y.dtype)), ux, zero))
    return lax.bitcast_convert_type(high, x.dtype)
