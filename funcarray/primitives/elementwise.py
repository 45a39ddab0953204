"""Elementwise primitives: arithmetic, math functions, comparisons, logic, conversion.

Contract (StableHLO semantics, which the eager kernels reproduce exactly):

* Operands have one shape and one dtype; no implicit broadcasting or promotion
  (``funcarray.numpy`` does both before binding).
* Integer ``div`` truncates toward zero; ``x / 0`` is -1 for signed and the maximum for
  unsigned integers; ``INT_MIN / -1`` is ``INT_MIN``. Integer ``rem`` takes the sign of the
  dividend, and ``x rem 0`` is ``x``. Float ``rem`` is C's ``fmod``.
* ``max``/``min`` propagate NaN. Comparisons are IEEE (NaN compares unequal to everything).
* Shifts by a negative amount or by at least the bit width give 0 (left, right logical) or the
  sign fill (right arithmetic).
* ``convert_element_type`` from float to integer truncates toward zero and saturates; NaN
  becomes 0. Complex to real keeps the real part.
* Transcendental functions of float16/bfloat16/float8 are computed in float32 and rounded.
* A result is weak-typed exactly when every operand is (JAX's rule), whatever its dtype:
  ``eq`` of two weak ints gives a weak bool.
"""

from __future__ import annotations

import numpy as np

from funcarray import dtypes
from funcarray.array import Array
from funcarray.primitives._define import binary, elementwise_abstract_eval, unary
from funcarray.transforms.core import Primitive, ShapedArray

_bool = lambda dt: dtypes.bool_  # noqa: E731  (result dtype of comparisons and predicates)


def _real_dtype(dt):
    return np.dtype(np.float32) if dt == dtypes.complex64 else (
        np.dtype(np.float64) if dt == dtypes.complex128 else dt)


# --------------------------------------------------------------------------------------------
# Kernels that need more than a NumPy ufunc to follow StableHLO
# --------------------------------------------------------------------------------------------

def _div_kernel(x, y):
    if x.dtype.kind not in "iu":
        return np.divide(x, y)
    x, y = np.asarray(x), np.asarray(y)
    safe_y = np.where(y == 0, np.ones_like(y), y)
    q = np.floor_divide(x, safe_y)
    r = x - q * safe_y
    # floor -> truncation: step back toward zero where the signs differ and r != 0.
    q = q + ((r != 0) & ((x < 0) != (safe_y < 0))).astype(x.dtype)
    by_zero = np.iinfo(x.dtype).max if x.dtype.kind == "u" else -1
    return np.where(y == 0, np.asarray(by_zero, x.dtype), q).astype(x.dtype, copy=False)


def _rem_kernel(x, y):
    if x.dtype.kind not in "iu":
        return np.fmod(x, y)
    x, y = np.asarray(x), np.asarray(y)
    safe_y = np.where(y == 0, np.ones_like(y), y)
    # fmod(INT_MIN, -1) is 0 in C semantics; numpy agrees. x rem 0 is x.
    return np.where(y == 0, x, np.fmod(x, safe_y)).astype(x.dtype, copy=False)


def _pow_kernel(x, y):
    if x.dtype.kind not in "iu":
        return np.power(x, y)
    x, y = np.asarray(x), np.asarray(y)
    negative = y < 0
    out = np.power(x, np.where(negative, np.zeros_like(y), y))
    if negative.any():
        # x ** -n for integers: 1 when x == 1, +-1 when x == -1, else 0 (XLA's semantics).
        odd = (y % 2) != 0
        neg_pow = np.where(x == 1, 1, np.where(x == -1, np.where(odd, -1, 1), 0))
        out = np.where(negative, neg_pow.astype(x.dtype), out)
    return out.astype(x.dtype, copy=False)


def _bits(dt) -> int:
    return np.dtype(dt).itemsize * 8


def _shift_left_kernel(x, y):
    x, y = np.asarray(x), np.asarray(y)
    ok = (y >= 0) & (y < _bits(x.dtype))
    shifted = np.left_shift(x, np.where(ok, y, np.zeros_like(y)))
    return np.where(ok, shifted, np.zeros_like(x))


def _shift_right_arithmetic_kernel(x, y):
    x, y = np.asarray(x), np.asarray(y)
    bits = _bits(x.dtype)
    signed = x.view(np.dtype(f"i{x.dtype.itemsize}"))
    amount = np.where((y >= 0) & (y < bits), y, np.full_like(y, bits - 1)).astype(signed.dtype)
    return np.right_shift(signed, amount).view(x.dtype)


def _shift_right_logical_kernel(x, y):
    x, y = np.asarray(x), np.asarray(y)
    bits = _bits(x.dtype)
    unsigned = x.view(np.dtype(f"u{x.dtype.itemsize}"))
    ok = (y >= 0) & (y < bits)
    amount = np.where(ok, y, np.zeros_like(y)).astype(unsigned.dtype)
    out = np.where(ok, np.right_shift(unsigned, amount), np.zeros_like(unsigned))
    return out.view(x.dtype)


def _clz_kernel(x):
    x = np.asarray(x)
    bits = _bits(x.dtype)
    u = x.view(np.dtype(f"u{x.dtype.itemsize}")).astype(np.uint64)
    count = np.zeros(x.shape, np.int64)
    # Binary search for the highest set bit, 32, 16, ..., 1 bits at a time.
    width = 32
    while width:
        high = u >> np.uint64(width)
        has_high = high != 0
        u = np.where(has_high, high, u)
        count = count + np.where(has_high, width, 0)
        width //= 2
    highest = count + (u != 0)  # bit_length
    return (bits - highest).astype(x.dtype)


def _round_kernel(x, *, rounding_method):
    if rounding_method == 1:  # ROUND_NEAREST_EVEN (numpy's rint)
        return np.rint(x)
    # ROUND_NEAREST_AFZ: half away from zero. Adding 0.5 then truncating is wrong for
    # 0.49999997f (the sum rounds up to 1), so compare the fractional part instead.
    t = np.trunc(x)
    return np.where(np.abs(x - t) >= 0.5, t + np.sign(x), t).astype(x.dtype, copy=False)


def _logistic_kernel(x):
    # Evaluate on the side where exp cannot overflow.
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)


def _complex_kernel(re, im):
    out_dtype = np.result_type(re.dtype, np.complex64)
    out = np.empty(np.shape(re), out_dtype)
    out.real = re
    out.imag = im
    return out


# --------------------------------------------------------------------------------------------
# Unary math (names follow jax.lax; StableHLO op names for lowering)
# --------------------------------------------------------------------------------------------
neg_p = unary("neg", np.negative, hlo="stablehlo.negate")
sign_p = unary("sign", np.sign, hlo="stablehlo.sign")
floor_p = unary("floor", np.floor, hlo="stablehlo.floor")
ceil_p = unary("ceil", np.ceil, hlo="stablehlo.ceil")
is_finite_p = unary("is_finite", np.isfinite, hlo="stablehlo.is_finite", out_dtype=_bool)
exp_p = unary("exp", np.exp, hlo="stablehlo.exponential", upcast_low_precision=True)
exp2_p = unary("exp2", np.exp2, upcast_low_precision=True)
expm1_p = unary("expm1", np.expm1, hlo="stablehlo.exponential_minus_one",
                upcast_low_precision=True)
log_p = unary("log", np.log, hlo="stablehlo.log", upcast_low_precision=True)
log1p_p = unary("log1p", np.log1p, hlo="stablehlo.log_plus_one", upcast_low_precision=True)
sin_p = unary("sin", np.sin, hlo="stablehlo.sine", upcast_low_precision=True)
cos_p = unary("cos", np.cos, hlo="stablehlo.cosine", upcast_low_precision=True)
tan_p = unary("tan", np.tan, hlo="stablehlo.tan", upcast_low_precision=True)
asin_p = unary("asin", np.arcsin, hlo="chlo.asin", upcast_low_precision=True)
acos_p = unary("acos", np.arccos, hlo="chlo.acos", upcast_low_precision=True)
atan_p = unary("atan", np.arctan, hlo="chlo.atan", upcast_low_precision=True)
sinh_p = unary("sinh", np.sinh, hlo="chlo.sinh", upcast_low_precision=True)
cosh_p = unary("cosh", np.cosh, hlo="chlo.cosh", upcast_low_precision=True)
tanh_p = unary("tanh", np.tanh, hlo="stablehlo.tanh", upcast_low_precision=True)
asinh_p = unary("asinh", np.arcsinh, hlo="chlo.asinh", upcast_low_precision=True)
acosh_p = unary("acosh", np.arccosh, hlo="chlo.acosh", upcast_low_precision=True)
atanh_p = unary("atanh", np.arctanh, hlo="chlo.atanh", upcast_low_precision=True)
sqrt_p = unary("sqrt", np.sqrt, hlo="stablehlo.sqrt", upcast_low_precision=True)
rsqrt_p = unary("rsqrt", lambda x: 1 / np.sqrt(x), hlo="stablehlo.rsqrt",
                upcast_low_precision=True)
cbrt_p = unary("cbrt", np.cbrt, hlo="stablehlo.cbrt", upcast_low_precision=True)
logistic_p = unary("logistic", _logistic_kernel, hlo="stablehlo.logistic",
                   upcast_low_precision=True)
square_p = unary("square", np.square)
abs_p = unary("abs", np.abs, hlo="stablehlo.abs", out_dtype=_real_dtype)
not_p = unary("not", np.invert, hlo="stablehlo.not")
real_p = unary("real", np.real, hlo="stablehlo.real", out_dtype=_real_dtype)
imag_p = unary("imag", np.imag, hlo="stablehlo.imag", out_dtype=_real_dtype)
conj_p = unary("conj", np.conjugate)
population_count_p = unary("population_count", lambda x: np.bitwise_count(x).astype(x.dtype),
                           hlo="stablehlo.popcnt")
clz_p = unary("clz", _clz_kernel, hlo="stablehlo.count_leading_zeros")



def _weak_if_all_operands_weak(prim):
    """Give a primitive whose result dtype differs from its operands' (comparisons, ``abs`` of
    complex...) JAX's weak-type rule: the result is weak exactly when every operand is, so
    ``fnp.abs(-2)`` and ``fnp.equal(2, 3)`` stay weak like the Python scalars they came from.

    The family helpers in ``_define`` make such results strong; this restores the rule shared
    by every other elementwise primitive.
    """
    kernel, base_eval = prim.kernel, prim.abstract_eval

    def abstract_eval(*avals, **params):
        out = base_eval(*avals, **params)
        return out.update(weak_type=all(a.weak_type for a in avals))

    if prim.nargs == 1:
        def impl(x):
            return Array(kernel(x._value), x._weak)
    else:
        def impl(x, y):
            return Array(kernel(x._value, y._value), x._weak and y._weak)
    prim.abstract_eval, prim.impl = abstract_eval, impl
    return prim


for _prim in (is_finite_p, abs_p, real_p, imag_p):
    _weak_if_all_operands_weak(_prim)

# round has a static parameter: rounding_method 0 = half away from zero, 1 = half to even.
round_p = Primitive("round")
round_p.kernel = _round_kernel
round_p.abstract_eval = elementwise_abstract_eval("round")
round_p.impl = lambda x, *, rounding_method: Array(
    _round_kernel(x._value, rounding_method=rounding_method), x._weak)

# --------------------------------------------------------------------------------------------
# Binary arithmetic, comparisons and logic
# --------------------------------------------------------------------------------------------
add_p = binary("add", np.add, hlo="stablehlo.add")
sub_p = binary("sub", np.subtract, hlo="stablehlo.subtract")
mul_p = binary("mul", np.multiply, hlo="stablehlo.multiply")
div_p = binary("div", _div_kernel, hlo="stablehlo.divide")
rem_p = binary("rem", _rem_kernel, hlo="stablehlo.remainder")
pow_p = binary("pow", _pow_kernel, hlo="stablehlo.power", upcast_low_precision=True)
max_p = binary("max", np.maximum, hlo="stablehlo.maximum")
min_p = binary("min", np.minimum, hlo="stablehlo.minimum")
atan2_p = binary("atan2", np.arctan2, hlo="stablehlo.atan2", upcast_low_precision=True)
nextafter_p = binary("nextafter", np.nextafter, hlo="chlo.next_after")
complex_p = binary("complex", _complex_kernel, hlo="stablehlo.complex",
                   out_dtype=lambda dt: np.result_type(dt, np.complex64))
and_p = binary("and", np.bitwise_and, hlo="stablehlo.and")
or_p = binary("or", np.bitwise_or, hlo="stablehlo.or")
xor_p = binary("xor", np.bitwise_xor, hlo="stablehlo.xor")
shift_left_p = binary("shift_left", _shift_left_kernel, hlo="stablehlo.shift_left")
shift_right_arithmetic_p = binary("shift_right_arithmetic", _shift_right_arithmetic_kernel,
                                  hlo="stablehlo.shift_right_arithmetic")
shift_right_logical_p = binary("shift_right_logical", _shift_right_logical_kernel,
                               hlo="stablehlo.shift_right_logical")

# Comparisons: StableHLO `compare` with a direction; one primitive per direction, as in JAX.
eq_p = binary("eq", np.equal, hlo="EQ", out_dtype=_bool)
ne_p = binary("ne", np.not_equal, hlo="NE", out_dtype=_bool)
lt_p = binary("lt", np.less, hlo="LT", out_dtype=_bool)
le_p = binary("le", np.less_equal, hlo="LE", out_dtype=_bool)
gt_p = binary("gt", np.greater, hlo="GT", out_dtype=_bool)
ge_p = binary("ge", np.greater_equal, hlo="GE", out_dtype=_bool)
for _prim in (complex_p, eq_p, ne_p, lt_p, le_p, gt_p, ge_p):
    _weak_if_all_operands_weak(_prim)
del _prim

# --------------------------------------------------------------------------------------------
# integer_pow: x ** y for a static Python int y, by repeated squaring (as XLA lowers it), so
# the eager and compiled results agree to the last bit.
# --------------------------------------------------------------------------------------------


def _integer_pow_kernel(x, *, y):
    if y == 0:
        return np.ones_like(x)
    base, n, acc = x, abs(y), None
    while n:
        if n & 1:
            acc = base if acc is None else acc * base
        n >>= 1
        if n:
            base = base * base
    return (np.ones_like(x) / acc).astype(x.dtype, copy=False) if y < 0 else acc


integer_pow_p = Primitive("integer_pow")
integer_pow_p.kernel = _integer_pow_kernel
integer_pow_p.abstract_eval = elementwise_abstract_eval("integer_pow")
integer_pow_p.impl = lambda x, *, y: Array(_integer_pow_kernel(x._value, y=y), x._weak)

# --------------------------------------------------------------------------------------------
# select_n(which, *cases): cases[which] elementwise. `which` is bool (two cases) or int32.
# --------------------------------------------------------------------------------------------
select_n_p = Primitive("select_n")


@select_n_p.def_impl
def _select_n_impl(which, *cases):
    w = which._value
    if len(cases) == 1:
        return cases[0]
    if w.dtype == np.bool_:
        out = np.where(w, cases[1]._value, cases[0]._value)
    else:
        out = np.choose(w, [c._value for c in cases], mode="clip")
    return Array(out, all(c._weak for c in cases))


@select_n_p.def_abstract_eval
def _select_n_abstract_eval(which, *cases):
    if not cases:
        raise TypeError("select_n needs at least one case")
    if which.dtype != np.bool_ and which.dtype != np.int32:
        raise TypeError(f"select_n: the selector must be bool or int32, got {which.dtype}")
    if which.dtype == np.bool_ and len(cases) > 2:
        raise TypeError("select_n: a boolean selector chooses between at most two cases")
    first = cases[0]
    for c in cases[1:]:
        if c.shape != first.shape or c.dtype != first.dtype:
            raise TypeError("select_n: cases must share a shape and dtype, got "
                            + ", ".join(c.str_short() for c in cases))
    if which.shape not in ((), first.shape):
        raise TypeError(f"select_n: selector shape {which.shape} must be () or {first.shape}")
    return ShapedArray(first.shape, first.dtype, all(c.weak_type for c in cases))


# clamp(lo, x, hi) = min(max(x, lo), hi); lo and hi are scalars or have x's shape.
clamp_p = Primitive("clamp")
clamp_p.impl = lambda lo, x, hi: Array(np.minimum(np.maximum(x._value, lo._value), hi._value),
                                       x._weak)


@clamp_p.def_abstract_eval
def _clamp_abstract_eval(lo, x, hi):
    for bound in (lo, hi):
        if bound.dtype != x.dtype or bound.shape not in ((), x.shape):
            raise TypeError(f"clamp: bounds must be scalars or {x.str_short()}, "
                            f"got {lo.str_short()} and {hi.str_short()}")
    return ShapedArray(x.shape, x.dtype, x.weak_type)


# --------------------------------------------------------------------------------------------
# Conversions
# --------------------------------------------------------------------------------------------

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
        info = dtypes.iinfo(new_dtype)
        wide = x.astype(np.float64)
        # Saturate: compare in float64, where the integer limits are representable or
        # rounded outward, then fix up the ends after the conversion.
        safe = np.where(np.isnan(wide), 0.0, np.clip(np.trunc(wide), -2.0**62, 2.0**62))
        out = safe.astype(np.int64)
        out = np.where(wide >= float(info.max), info.max, out)
        out = np.where(wide <= float(info.min), info.min, out)
        out = np.clip(out, info.min, info.max)
        return out.astype(new_dtype)
    if src in dtypes.float8_types or new_dtype in dtypes.float8_types:
        # ml_dtypes converts narrow floats reliably through float32.
        if src.itemsize <= 4 and new_dtype.itemsize <= 4:
            return x.astype(np.float32).astype(new_dtype)
    return x.astype(new_dtype)


convert_element_type_p = Primitive("convert_element_type")
convert_element_type_p.kernel = convert_kernel


@convert_element_type_p.def_impl
def _convert_impl(x, *, new_dtype, weak_type):
    return Array(convert_kernel(x._value, new_dtype), weak_type)


@convert_element_type_p.def_abstract_eval
def _convert_abstract_eval(x, *, new_dtype, weak_type):
    return ShapedArray(x.shape, new_dtype, weak_type)


def _bitcast_shape(shape, src, dst):
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
    v = np.asarray(x._value, order="C")  # not ascontiguousarray: it makes 0-d arrays 1-d
    out_shape = _bitcast_shape(v.shape, v.dtype, np.dtype(new_dtype))
    return Array(v.view(new_dtype).reshape(out_shape), x._weak)


@bitcast_convert_type_p.def_abstract_eval
def _bitcast_abstract_eval(x, *, new_dtype):
    return ShapedArray(_bitcast_shape(x.shape, x.dtype, np.dtype(new_dtype)), new_dtype,
                       x.weak_type)
