"""``jax.lax``'s one-operand elementwise operations, dtype conversions and
``reduce_precision``.

Thin wrappers over the elementwise primitives (``funcarray/primitives/elementwise.py``,
``special.py``, ``conversions.py``): each checks that its operand has a dtype jax.lax accepts
(``lax.sin`` of an integer array is an error, not a float32 result; ``lax.abs`` refuses
unsigned integers) and binds the primitive. ``accuracy=`` (jax.lax's transcendental accuracy
hint) is accepted only as ``None``: funcarray computes at the dtype's full accuracy.
``reduce_precision`` binds the primitive of ``primitives/compiler_hints.py``.

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray import lax
    >>> lax.sign(fnp.array([0, 7], fnp.uint8))
    Array([0, 1], dtype=uint8)
"""

from __future__ import annotations

import enum
import functools
import operator
from typing import TYPE_CHECKING, overload

import numpy as np

from funcarray.api.arguments import convert, convert_arg
from funcarray.base import dtypes
from funcarray.base.array import Array, new_array
from funcarray.base.errors import op_type_error, op_value_error
from funcarray.lax._ops_common import (
    _BIU,
    _F,
    _FC,
    _IU,
    _IUFC,
    _check_kinds,
    _checked_bind,
    _concrete,
    _doc,
    _dtype_arg,
    _int,
    _kind,
    _no_accuracy,
    _operand,
    _operand_of_kinds,
    _refuse_python_complex_to_real,
    _short,
)
from funcarray.primitives import elementwise as ew
from funcarray.primitives import special as sp
from funcarray.primitives.compiler_hints import reduce_precision_kernel, reduce_precision_p
from funcarray.primitives.conversions import (
    bitcast_convert_type_p,
    convert_kernel,
    float_to_int_inside,
)
from funcarray.primitives.eager_entry import eager_entry
from funcarray.transforms.host_shortcuts import host_shortcut, host_value

if TYPE_CHECKING:
    from typing import Any, Literal, Protocol

    from funcarray.base.typing import ArrayLike

    # The signatures of the operations ``_unary`` makes.
    class _UnaryOp(Protocol):
        def __call__(self, x: ArrayLike) -> Array: ...

    class _UnaryOpWithAccuracy(Protocol):
        def __call__(self, x: ArrayLike, *, accuracy: None = None) -> Array: ...
    from funcarray.base.typing import DTypeLike


__all__ = [
    "neg", "sign", "floor", "ceil", "round", "RoundingMethod", "is_finite", "exp", "exp2",
    "expm1", "log", "log1p", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh",
    "tanh", "asinh", "acosh", "atanh", "sqrt", "rsqrt", "cbrt", "logistic", "square",
    "reciprocal", "abs", "erf", "erfc", "erf_inv", "lgamma", "digamma", "bitwise_not",
    "population_count", "clz", "conj", "real", "imag", "integer_pow",
    "convert_element_type", "bitcast_convert_type", "reduce_precision",
]


@overload
def _unary(name: str, prim: Any, kinds: str, summary: str, example: tuple[str, str]
           ) -> _UnaryOp: ...
@overload
def _unary(name: str, prim: Any, kinds: str, summary: str, example: tuple[str, str], *,
           accuracy: Literal[True]) -> _UnaryOpWithAccuracy: ...
def _unary(name, prim, kinds, summary, example, *, accuracy=False):
    op = f"lax.{name}"
    accepted = dtypes.dtype_set(lambda d: _kind(d) in kinds)

    # An eager array of an accepted dtype needs no check (lax's special functions are chains
    # of these): its kernel runs in the function's own frame (``eager_entry``).
    def operand_of(x):
        # (a NumPy scalar, say a 0-d NumPy result, as the strong Array ``_operand`` makes
        # of it, without its conversions: ~1 us instead of ~4)
        operand = _concrete(x)
        if operand is None or operand.dtype not in accepted:
            operand = _operand_of_kinds(op, x, kinds, "x")
        return operand

    if accuracy:
        def general(x, accuracy):
            _no_accuracy(op, accuracy)
            return prim.bind(operand_of(x))
    else:
        def general(x):
            return prim.bind(operand_of(x))
    fn = eager_entry(prim, accepted, general, home=globals(), positional_only=False,
                     option="accuracy" if accuracy else None)
    return _doc(fn, name, summary, example)


neg = _unary("neg", ew.neg_p, _IUFC, "Elementwise negation ``-x``.",
             ("lax.neg(fnp.array([1, -2]))", "Array([-1,  2], dtype=int32)"))
sign = _unary("sign", ew.sign_p, _IUFC, "Elementwise sign: -1, 0 or 1 (``x / |x|`` for complex "
              "``x``).", ("lax.sign(fnp.array([-3.0, 0.0, 2.0]))",
                          "Array([-1.,  0.,  1.], dtype=float32)"))
floor = _unary("floor", ew.floor_p, _F, "Elementwise floor (floats only).",
               ("lax.floor(fnp.array([-1.5, 1.5]))", "Array([-2.,  1.], dtype=float32)"))
ceil = _unary("ceil", ew.ceil_p, _F, "Elementwise ceiling (floats only).",
              ("lax.ceil(fnp.array([-1.5, 1.5]))", "Array([-1.,  2.], dtype=float32)"))
is_finite = _unary("is_finite", ew.is_finite_p, _F, "Elementwise test for a finite float "
                   "(not inf, not NaN).", ("lax.is_finite(fnp.array([1.0, fnp.inf]))",
                                           "Array([ True, False], dtype=bool)"))
exp = _unary("exp", ew.exp_p, _FC, "Elementwise ``e ** x``.",
             ("lax.exp(fnp.array([0.0]))", "Array([1.], dtype=float32)"), accuracy=True)
exp2 = _unary("exp2", ew.exp2_p, _FC, "Elementwise ``2 ** x``.",
              ("lax.exp2(fnp.array([3.0]))", "Array([8.], dtype=float32)"), accuracy=True)
expm1 = _unary("expm1", ew.expm1_p, _FC, "Elementwise ``e ** x - 1``, accurate near 0.",
               ("lax.expm1(fnp.array([0.0]))", "Array([0.], dtype=float32)"), accuracy=True)
log = _unary("log", ew.log_p, _FC, "Elementwise natural logarithm.",
             ("lax.log(fnp.array([1.0]))", "Array([0.], dtype=float32)"), accuracy=True)
log1p = _unary("log1p", ew.log1p_p, _FC, "Elementwise ``log(1 + x)``, accurate near 0.",
               ("lax.log1p(fnp.array([0.0]))", "Array([0.], dtype=float32)"), accuracy=True)
sin = _unary("sin", ew.sin_p, _FC, "Elementwise sine.",
             ("lax.sin(fnp.array([0.0]))", "Array([0.], dtype=float32)"), accuracy=True)
cos = _unary("cos", ew.cos_p, _FC, "Elementwise cosine.",
             ("lax.cos(fnp.array([0.0]))", "Array([1.], dtype=float32)"), accuracy=True)
tan = _unary("tan", ew.tan_p, _FC, "Elementwise tangent.",
             ("lax.tan(fnp.array([0.0]))", "Array([0.], dtype=float32)"), accuracy=True)
asin = _unary("asin", ew.asin_p, _FC, "Elementwise arcsine.",
              ("lax.asin(fnp.array([0.0]))", "Array([0.], dtype=float32)"))
acos = _unary("acos", ew.acos_p, _FC, "Elementwise arccosine.",
              ("lax.acos(fnp.array([1.0]))", "Array([0.], dtype=float32)"))
atan = _unary("atan", ew.atan_p, _FC, "Elementwise arctangent.",
              ("lax.atan(fnp.array([0.0]))", "Array([0.], dtype=float32)"))
sinh = _unary("sinh", ew.sinh_p, _FC, "Elementwise hyperbolic sine.",
              ("lax.sinh(fnp.array([0.0]))", "Array([0.], dtype=float32)"))
cosh = _unary("cosh", ew.cosh_p, _FC, "Elementwise hyperbolic cosine.",
              ("lax.cosh(fnp.array([0.0]))", "Array([1.], dtype=float32)"))
tanh = _unary("tanh", ew.tanh_p, _FC, "Elementwise hyperbolic tangent.",
              ("lax.tanh(fnp.array([0.0]))", "Array([0.], dtype=float32)"), accuracy=True)
asinh = _unary("asinh", ew.asinh_p, _FC, "Elementwise inverse hyperbolic sine.",
               ("lax.asinh(fnp.array([0.0]))", "Array([0.], dtype=float32)"))
acosh = _unary("acosh", ew.acosh_p, _FC, "Elementwise inverse hyperbolic cosine.",
               ("lax.acosh(fnp.array([1.0]))", "Array([0.], dtype=float32)"))
atanh = _unary("atanh", ew.atanh_p, _FC, "Elementwise inverse hyperbolic tangent.",
               ("lax.atanh(fnp.array([0.0]))", "Array([0.], dtype=float32)"))
sqrt = _unary("sqrt", ew.sqrt_p, _FC, "Elementwise square root.",
              ("lax.sqrt(fnp.array([4.0]))", "Array([2.], dtype=float32)"), accuracy=True)
rsqrt = _unary("rsqrt", ew.rsqrt_p, _FC, "Elementwise reciprocal square root ``1 / sqrt(x)``.",
               ("lax.rsqrt(fnp.array([4.0]))", "Array([0.5], dtype=float32)"), accuracy=True)
cbrt = _unary("cbrt", ew.cbrt_p, _F, "Elementwise cube root (floats only).",
              ("lax.cbrt(fnp.array([-8.0]))", "Array([-2.], dtype=float32)"), accuracy=True)
logistic = _unary("logistic", ew.logistic_p, _FC, "Elementwise logistic sigmoid "
                  "``1 / (1 + exp(-x))``.", ("lax.logistic(fnp.array([0.0]))",
                                             "Array([0.5], dtype=float32)"), accuracy=True)
square = _unary("square", ew.square_p, _IUFC, "Elementwise ``x * x``.",
                ("lax.square(fnp.array([3, -2]))", "Array([9, 4], dtype=int32)"))
abs = _unary("abs", ew.abs_p, "ifc",  # noqa: A001 (jax's name)
             "Elementwise absolute value (``|x|``, real for complex ``x``); unsigned integers "
             "are refused, as in jax.lax.",
             ("lax.abs(fnp.array([-1.5, 2.0]))", "Array([1.5, 2. ], dtype=float32)"))
erf = _unary("erf", sp.erf_p, _F, "Elementwise error function (floats only).",
             ("lax.erf(fnp.array([0.0]))", "Array([0.], dtype=float32)"))
erfc = _unary("erfc", sp.erfc_p, _F, "Elementwise complementary error function ``1 - erf(x)``.",
              ("lax.erfc(fnp.array([0.0]))", "Array([1.], dtype=float32)"))
erf_inv = _unary("erf_inv", sp.erf_inv_p, _F, "Elementwise inverse error function.",
                 ("lax.erf_inv(fnp.array([0.0]))", "Array([0.], dtype=float32)"))
lgamma = _unary("lgamma", sp.lgamma_p, _F, "Elementwise log of the absolute gamma function.",
                ("lax.lgamma(fnp.array([3.0]))", "Array([0.69314...], dtype=float32)"))
digamma = _unary("digamma", sp.digamma_p, _F, "Elementwise digamma function "
                 "(the derivative of lgamma).", ("lax.digamma(fnp.array([1.0]))",
                                                 "Array([-0.57721...], dtype=float32)"))
bitwise_not = _unary("bitwise_not", ew.not_p, _BIU, "Elementwise bitwise (logical for bool) "
                     "not.", ("lax.bitwise_not(fnp.array([True, False]))",
                              "Array([False,  True], dtype=bool)"))
population_count = _unary("population_count", ew.population_count_p, _IU, "Elementwise "
                          "number of set bits (two's complement for signed integers).",
                          ("lax.population_count(fnp.array([7, -1]))",
                           "Array([ 3, 32], dtype=int32)"))


def _clz_on_host(x):
    """``clz`` of a host array of at most 32-bit integers from the exponent of its unsigned
    bits as float64 (exact there): the bit length, where the primitive's kernel finds it by a
    binary search of ~20 NumPy calls. 64-bit integers take the general path."""
    v = host_value(x)
    if v is None or v.dtype.kind not in "iu" or v.dtype.itemsize > 4:
        return NotImplemented
    unsigned = np.asarray(v).view(f"u{v.dtype.itemsize}")
    _, bit_length = np.frexp(unsigned.astype(np.float64))  # (0 for 0)
    return Array((8 * v.dtype.itemsize - bit_length).astype(v.dtype), x._weak)


clz = host_shortcut(_clz_on_host)(_unary(
    "clz", ew.clz_p, _IU, "Elementwise count of leading zero bits.",
    ("lax.clz(fnp.array([1, 7]))", "Array([31, 29], dtype=int32)")))
real = _unary("real", ew.real_p, "c", "Elementwise real part of a complex array.",
              ("lax.real(fnp.array([1 + 2j]))", "Array([1.], dtype=float32)"))
imag = _unary("imag", ew.imag_p, "c", "Elementwise imaginary part of a complex array.",
              ("lax.imag(fnp.array([1 + 2j]))", "Array([2.], dtype=float32)"))


# Host shortcuts (transforms/host_shortcuts.py): the operation of a concrete array run with
# its primitive's kernel (or impl) at once, past the argument checks it passes.
_F_DTYPES = dtypes.dtype_set(lambda d: _kind(d) == "f")
_FC_DTYPES = dtypes.dtype_set(lambda d: _kind(d) in _FC)


def _conj_on_host(x):
    x = _concrete(x)
    if x is None:
        return NotImplemented
    v = x._value
    kind = v.dtype.kind
    if kind == "c":
        return ew.conj_p.impl(x)
    if v.dtype == dtypes.float32 or v.dtype == dtypes.float64:
        wide = dtypes.complex64 if v.dtype == dtypes.float32 else dtypes.complex128
        return Array(convert_kernel(v, wide), x._weak)  # (imaginary parts +0, as conj's)
    return NotImplemented


@host_shortcut(_conj_on_host)
def conj(x: ArrayLike) -> Array:
    """Elementwise complex conjugate. As in jax.lax, a float32/float64 operand gives a
    complex64/complex128 result.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.conj(fnp.array([1 + 2j]))
        Array([1.-2.j], dtype=complex64)
    """
    op = "lax.conj"
    x = _operand(op, x, "x")
    if x.dtype in (dtypes.float32, dtypes.float64):
        # jax.lax's: the real operand as a complex one, its imaginary part +0 (conjugating
        # that zero would give -0)
        return convert(x, dtypes.complex64 if x.dtype == dtypes.float32 else dtypes.complex128,
                       x.weak_type)
    _check_kinds(op, x, "c")
    return ew.conj_p.bind(x)


class RoundingMethod(enum.IntEnum):
    """How ``round`` breaks ties (jax.lax's enum; jax's own members are accepted too)."""

    AWAY_FROM_ZERO = 0
    TO_NEAREST_EVEN = 1


_ROUNDING_METHODS = {0: 0, 1: 1}  # (IntEnum members hash as their values)


def _round_on_host(x, rounding_method=RoundingMethod.AWAY_FROM_ZERO):
    v = host_value(x)
    method = _ROUNDING_METHODS.get(rounding_method)
    if v is None or method is None or v.dtype not in _F_DTYPES:
        return NotImplemented
    if method == 0 and v.dtype.kind == "f":
        # Half away from zero is NumPy's rint (half to even) wherever x is no tie (x - rint(x)
        # = +-0.5, where rint may go toward zero): one NumPy call and a test instead of the
        # kernel's seven. With a tie anywhere, the kernel. (The test's largest |x - rint(x)|
        # passes over NaNs, those of NaN and infinite x, which rint and the kernel keep.)
        nearest = np.rint(v)
        if not _largest_ignoring_nan(np.abs(np.subtract(v, nearest)), axis=None) == 0.5:
            return new_array(nearest, x._weak)
    return new_array(ew.round_p.kernel(v, rounding_method=method), x._weak)


_largest_ignoring_nan = np.fmax.reduce


@host_shortcut(_round_on_host)
def round(x: ArrayLike,
          rounding_method: RoundingMethod | int = RoundingMethod.AWAY_FROM_ZERO) -> Array:  # noqa: A001 (jax's name)
    """Elementwise rounding to the nearest integer (floats only); ties go away from zero, or
    to the even neighbour with ``RoundingMethod.TO_NEAREST_EVEN`` (or 1).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.round(fnp.array([0.5, 1.5, 2.5]))
        Array([1., 2., 3.], dtype=float32)
        >>> lax.round(fnp.array([0.5, 1.5, 2.5]), lax.RoundingMethod.TO_NEAREST_EVEN)
        Array([0., 2., 2.], dtype=float32)
    """
    op = "lax.round"
    try:
        method = int(RoundingMethod(int(rounding_method)))
    except (TypeError, ValueError):
        raise op_value_error(
            op, f"rounding_method must be lax.RoundingMethod.AWAY_FROM_ZERO (0) or "
                f"TO_NEAREST_EVEN (1), got {rounding_method!r}") from None
    x = _operand_of_kinds(op, x, _F, "x")
    return ew.round_p.bind(x, rounding_method=method)


_IUFC_DTYPES = dtypes.dtype_set(lambda d: _kind(d) in _IUFC)


def _integer_pow_on_host(x, y):
    """A concrete operand of an accepted dtype and a Python int exponent: the primitive's
    impl at once (the general path's checks and bind cost ~5 us, the kernel ~1 us). A
    negative exponent of an integer array is left to the general path, which refuses it."""
    x = _concrete(x)
    if x is None or type(y) is not int:
        return NotImplemented
    dtype = x.dtype
    if dtype not in _IUFC_DTYPES or (y < 0 and _kind(dtype) in "iu"):
        return NotImplemented
    return ew.integer_pow_p.impl(x, y=y)


@host_shortcut(_integer_pow_on_host)
def integer_pow(x: ArrayLike, y: int) -> Array:
    """Elementwise ``x ** y`` for a static Python int ``y`` (repeated multiplication).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.integer_pow(fnp.array([2.0, 3.0]), 3)
        Array([ 8., 27.], dtype=float32)
    """
    op = "lax.integer_pow"
    if isinstance(y, float) and y.is_integer():
        y = int(y)
    try:
        y = operator.index(y)
    except TypeError:
        raise op_type_error(op, f"the exponent y must be a Python int, got {y!r}; use lax.pow "
                                f"for array or fractional exponents") from None
    x = _operand_of_kinds(op, x, _IUFC, "x")
    if y < 0 and _kind(x.dtype) in "iu":
        raise op_type_error(op, f"integers cannot be raised to negative powers, got "
                                f"integer_pow({_short(x)}, {y})")
    return ew.integer_pow_p.bind(x, y=y)


# (the kernel's 1 / x is ones divided by x: NumPy's reciprocal computes the same quotient
# in one call, without the array of ones)
_RECIPROCAL_BY_NUMPY = (np.dtype(np.float32), np.dtype(np.float64))


def _reciprocal_on_host(x):
    v = host_value(x)
    if v is None or v.dtype not in _FC_DTYPES:
        return NotImplemented
    if v.dtype in _RECIPROCAL_BY_NUMPY:
        return new_array(np.reciprocal(v), x._weak)
    return new_array(ew.integer_pow_p.kernel(v, y=-1), x._weak)


@host_shortcut(_reciprocal_on_host)
def reciprocal(x: ArrayLike) -> Array:
    """Elementwise ``1 / x`` (``integer_pow(x, -1)``, as in jax.lax; inexact dtypes only).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.reciprocal(fnp.array([2.0, 4.0]))
        Array([0.5 , 0.25], dtype=float32)
    """
    op = "lax.reciprocal"
    x = _operand_of_kinds(op, x, _FC, "x")
    return ew.integer_pow_p.bind(x, y=-1)


def _convert_element_type_on_host(operand, new_dtype):
    v = host_value(operand)
    if v is None:
        return NotImplemented
    new_dtype = dtypes.canonicalize_dtype(new_dtype)
    src = v.dtype
    if src == new_dtype:
        return operand if not operand._weak else Array(v)
    if src.kind == "f" and new_dtype.kind in "iu":
        # convert_kernel's first test, without its per-call dtype checks: values strictly
        # inside the range (NaN fails) truncate by NumPy's cast; the others saturate there.
        inside = float_to_int_inside(v, new_dtype)
        if inside is not None:
            return new_array(inside)
    elif src.kind in "biuf" and new_dtype.kind in "iufc":
        return new_array(v.astype(new_dtype))  # (convert_kernel's last line for these)
    return new_array(convert_kernel(v, new_dtype))


def _convert_wide_python_int(op: str, value: int, new_dtype) -> Array:
    """A Python int beyond int32 converted as jax.lax does: to a float or complex dtype at
    its value (2**64 to float32 is 1.8e19), to an integer dtype through its 64 bits
    (wrapping: 2**40 to int32 is 0), to bool by its truth; beyond 64 bits to an integer
    dtype it overflows."""
    if _kind(new_dtype) in "fc":
        return convert(Array(np.asarray(float(value))), new_dtype, False)
    if _kind(new_dtype) == "b":
        return Array(np.asarray(value != 0))
    if not -2**63 <= value < 2**64:
        raise OverflowError(f"{op}: the Python int {value} does not fit in 64 bits")
    wide = np.int64 if value < 2**63 else np.uint64
    return convert(Array(np.asarray(value, wide)), new_dtype, False)


@host_shortcut(_convert_element_type_on_host)
def convert_element_type(operand: ArrayLike, new_dtype: DTypeLike) -> Array:
    """Elementwise conversion to ``new_dtype`` (a strong result). Float to integer truncates
    toward zero and saturates; complex to real keeps the real part.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.convert_element_type(fnp.array([1.7, -1.7]), fnp.int32)
        Array([ 1, -1], dtype=int32)
    """
    op = "lax.convert_element_type"
    new_dtype = _dtype_arg(op, new_dtype, "new_dtype")
    _refuse_python_complex_to_real(op, operand, new_dtype)
    if type(operand) is int and not -2**31 <= operand < 2**31:
        return _convert_wide_python_int(op, operand, new_dtype)
    if type(operand) in (float, complex):  # from its double value: 0.1 to float64 stays 0.1
        return convert_arg(op, operand, new_dtype)
    return convert(_operand(op, operand), new_dtype, False)


def _bitcast_convert_type_on_host(operand, new_dtype):
    v = host_value(operand)
    if v is None:
        return NotImplemented
    new_dtype = dtypes.canonicalize_dtype(new_dtype)
    src = v.dtype
    if src.itemsize == new_dtype.itemsize and (src == new_dtype or (
            src.kind in "iuf" and new_dtype.kind in "iuf" and src.isbuiltin == 1
            and new_dtype.isbuiltin == 1)):
        # (NumPy's view of the same bits: the impl's, whose flat view serves widths that
        # differ; a result strong, as bitcast_convert_type's)
        return new_array(v.view(new_dtype), False)
    # (the impl checks the dtypes and shape: it raises, and so declines, where the general
    # path raises)
    out = bitcast_convert_type_p.impl(operand, new_dtype=new_dtype)
    return new_array(out._value, False)


@host_shortcut(_bitcast_convert_type_on_host)
def bitcast_convert_type(operand: ArrayLike, new_dtype: DTypeLike) -> Array:
    """Reinterpret the bits of ``operand`` as ``new_dtype``. A narrower type adds a last
    dimension (of the width ratio); a wider one consumes a last dimension of that size.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.bitcast_convert_type(fnp.float32(1.0), fnp.int32)
        Array(1065353216, dtype=int32)
    """
    op = "lax.bitcast_convert_type"
    new_dtype = _dtype_arg(op, new_dtype, "new_dtype")
    out = _checked_bind(op, bitcast_convert_type_p, _operand(op, operand), new_dtype=new_dtype)
    # jax.lax's result is strongly typed, a Python scalar's too (the primitive keeps weak
    # types for funcarray's own bit tricks, as copysign and signbit)
    return convert(out, new_dtype, False) if out.weak_type else out


@functools.lru_cache(maxsize=64)
def _bit_rounder(nbits: int, src_exponent: int, src_mantissa: int, exponent_bits: int,
                 mantissa_bits: int):
    """``reduce_precision_kernel``'s steps on the bits of one float as a Python int (with its
    unsigned wrap-around), its constants computed once per format: for a few floats, no
    NumPy call per step. A NaN keeps its bits, as in the kernel."""
    full = (1 << nbits) - 1
    all_ones = ((1 << src_exponent) - 1) << src_mantissa
    payload = (1 << src_mantissa) - 1
    shift = src_mantissa - mantissa_bits
    round_mantissa = shift > 0
    if round_mantissa:
        half, keep = (1 << (shift - 1)) - 1, ~((1 << shift) - 1) & full
    clip_exponent = exponent_bits < src_exponent
    sign = 1 << (nbits - 1)
    bias = (1 << (src_exponent - 1)) - 1
    reduced_bias = (1 << (exponent_bits - 1)) - 1
    overflow = (bias + reduced_bias) << src_mantissa
    underflow = (bias - reduced_bias) << src_mantissa

    def rounded(bits: int) -> int:
        if bits & all_ones == all_ones and bits & payload:
            return bits  # (NaN)
        if round_mantissa:
            bits = ((bits + ((bits >> shift) & 1) + half) & full) & keep
        if clip_exponent:
            exponent = bits & all_ones
            if exponent > overflow:
                bits = (bits & sign) | all_ones
            elif exponent <= underflow:
                bits &= sign
        return bits

    return rounded


_UNSIGNED = {2: np.dtype(np.uint16), 4: np.dtype(np.uint32), 8: np.dtype(np.uint64)}
_FLOAT_FORMATS = {np.dtype(d): (int(np.finfo(d).nexp), int(np.finfo(d).nmant))
                  for d in (np.float16, np.float32, np.float64)}


def _reduce_precision_on_host(operand, exponent_bits, mantissa_bits):
    v = host_value(operand)
    if (v is None or type(exponent_bits) is not int or type(mantissa_bits) is not int
            or exponent_bits < 1 or mantissa_bits < 0 or v.dtype not in _F_DTYPES):
        return NotImplemented
    v = np.asarray(v)
    layout = _FLOAT_FORMATS.get(v.dtype)
    if v.size > 8 or layout is None:
        return Array(np.asarray(reduce_precision_kernel(v, exponent_bits, mantissa_bits)),
                     operand._weak)
    utype = _UNSIGNED[v.dtype.itemsize]
    rounded = _bit_rounder(8 * v.dtype.itemsize, *layout, exponent_bits, mantissa_bits)
    bits = list(map(rounded, v.view(utype).ravel().tolist()))
    return Array(np.asarray(bits, utype).view(v.dtype).reshape(v.shape), operand._weak)


@host_shortcut(_reduce_precision_on_host)
def reduce_precision(operand: ArrayLike, exponent_bits: int,
                     mantissa_bits: int) -> Array:
    """Round each float of ``operand`` to the nearest value representable with
    ``exponent_bits`` exponent bits and ``mantissa_bits`` mantissa bits (ties to even;
    overflow gives inf, values below the format's normal range 0), keeping its dtype.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.reduce_precision(fnp.array([0.1, 1000.0, 1e6]), 5, 10)  # float16's format
        Array([9.9975586e-02, 1.0000000e+03,           inf], dtype=float32)
    """
    op = "lax.reduce_precision"
    x = _operand_of_kinds(op, operand, "f")
    exponent_bits = _int(op, "exponent_bits", exponent_bits)
    mantissa_bits = _int(op, "mantissa_bits", mantissa_bits)
    if exponent_bits < 1:
        raise op_value_error(op, f"exponent_bits must be positive; got {exponent_bits}")
    if mantissa_bits < 0:
        raise op_value_error(op, f"mantissa_bits must be non-negative; got {mantissa_bits}")
    return reduce_precision_p.bind(x, exponent_bits=exponent_bits, mantissa_bits=mantissa_bits)
