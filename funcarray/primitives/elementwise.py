"""Elementwise primitives: arithmetic, math functions, comparisons and logic (``select_n``,
``clamp`` and the conversions are in ``select_n.py``, ``clamp.py`` and ``conversions.py``).

Contract (StableHLO semantics, which the eager kernels reproduce exactly):

* Operands have one shape and one dtype; no implicit broadcasting or promotion
  (``funcarray.numpy`` does both before binding).
* Integer ``div`` truncates toward zero; ``x / 0`` is -1 for signed and the maximum for
  unsigned integers; ``INT_MIN / -1`` is ``INT_MIN``. Integer ``rem`` takes the sign of the
  dividend, and ``x rem 0`` is ``x``. Float ``rem`` is C's ``fmod``.
* ``max``/``min`` propagate NaN. Comparisons are IEEE (NaN compares unequal to everything).
* Shifts by a negative amount or by at least the bit width give 0 (left, right logical) or the
  sign fill (right arithmetic).
* Transcendental functions of float16/bfloat16/float8 are computed in float32 and rounded.
* A result is weak-typed exactly when every operand is (JAX's rule), whatever its dtype:
  ``eq`` of two weak ints gives a weak bool.
* ``integer_pow(x, y)`` multiplies by repeated squaring; a negative ``y`` is ``1 / x**-y``
  with ``div``'s semantics (a bool operand takes no negative ``y``). ``conj`` of a real value
  is the value.

Lowering: most primitives are one StableHLO op (``hlo=`` in the family helpers). The rest
are short sequences beside their primitive: ``exp2`` is ``power(2, x)``, ``sign`` of an
unsigned integer is ``select(x != 0, 1, 0)`` (StableHLO's ``sign`` takes signed types only),
``square`` is ``multiply(x, x)``, ``conj`` rebuilds ``complex(real, -imag)``, ``integer_pow``
emits the kernel's multiplications in the kernel's order, and complex ``max``/``min`` spell out
the lexicographic comparison (XLA's own disagree with NumPy and the spec).
"""

from __future__ import annotations

import numpy as np

from funcarray.base import dtypes
from funcarray.base.array import Array
from funcarray.lowering.stablehlo import compare, elementwise_lowering, nan_passing
from funcarray.primitives._define import (
    binary,
    elementwise_abstract_eval,
    elementwise_impl,
    unary,
)
from funcarray.primitives.select_n import select_n_p
from funcarray.primitives.shape import broadcast_in_dim_p
from funcarray.transforms.core import Primitive, ShapedArray
from funcarray.transforms.jvp import (
    Zero,
    defbilinear,
    defjvp,
    defjvp_with_output,
    deflinear,
    tangent_aval,
)
from funcarray.transforms.transpose import is_undefined
from funcarray.transforms.vmap import vectorized_batch_rule

_bool = lambda dt: dtypes.bool_  # noqa: E731  (result dtype of comparisons and predicates)


def _real_dtype(dt):
    return np.dtype(np.float32) if dt == dtypes.complex64 else (
        np.dtype(np.float64) if dt == dtypes.complex128 else dt)


# --------------------------------------------------------------------------------------------
# Kernels that need more than a NumPy ufunc to follow StableHLO
# --------------------------------------------------------------------------------------------

def _div_kernel(x, y):
    if x.dtype.kind == "c":
        return _complex_div_kernel(x, y)
    if x.dtype.kind not in "iu":
        return np.divide(x, y)
    x, y = np.asarray(x), np.asarray(y)
    safe_y = np.where(y == 0, np.ones_like(y), y)
    q = np.floor_divide(x, safe_y)
    r = x - q * safe_y
    # floor -> truncation: step back toward zero where the signs differ and r != 0.
    q = q + ((r != 0) & ((x < 0) != (safe_y < 0))).astype(x.dtype)
    by_zero = dtypes.iinfo(x.dtype).max if x.dtype.kind == "u" else -1
    return np.where(y == 0, np.asarray(by_zero, x.dtype), q).astype(x.dtype, copy=False)


def _complex_div_kernel(x, y):
    """``x / y`` for complex arrays as XLA computes it where that is not NumPy's answer: where
    XLA's Smith's-algorithm quotient is NaN + NaN j, XLA follows C99 (Annex G) for a zero
    denominator (infinite, signed by the denominator's real part), an infinite numerator
    over a finite denominator (infinite) and a finite numerator over an infinite one (zero).
    Elsewhere NumPy's quotient (within an ulp of XLA's)."""
    with np.errstate(all="ignore"):
        q = np.asarray(np.divide(x, y))
        if np.isfinite(q).all():  # (the common case: no infinity, NaN or zero denominator)
            return q
        x, y = np.broadcast_arrays(x, y)
        ar, ai, br, bi = x.real, x.imag, y.real, y.imag
        # XLA's Smith's algorithm, only to find where it gives NaN + NaN j.
        r1, r2 = br / bi, bi / br
        d1, d2 = bi + r1 * br, br + r2 * bi
        imag_larger = np.abs(br) < np.abs(bi)
        smith_r = np.where(imag_larger, (r1 * ar + ai) / d1, (r2 * ai + ar) / d2)
        smith_i = np.where(imag_larger, (r1 * ai - ar) / d1, (ai - r2 * ar) / d2)
        lost = np.isnan(smith_r) & np.isnan(smith_i)
        if not lost.any():
            return q

        def unit(part):  # +-1 where part is infinite, +-0 elsewhere (its sign kept)
            return np.copysign(np.isinf(part).astype(part.dtype), part)

        zero_den = (br == 0) & (bi == 0) & ~(np.isnan(ar) & np.isnan(ai))
        inf_num = (np.isinf(ar) | np.isinf(ai)) & np.isfinite(br) & np.isfinite(bi)
        inf_den = (np.isinf(br) | np.isinf(bi)) & np.isfinite(ar) & np.isfinite(ai)
        big = np.copysign(np.asarray(np.inf, br.dtype), br)
        ur, ui, vr, vi = unit(ar), unit(ai), unit(br), unit(bi)
        cases = [
            (np.ones_like(lost), smith_r, smith_i),  # none applies: NaN + NaN j
            (inf_den, 0.0 * (ar * vr + ai * vi), 0.0 * (ai * vr - ar * vi)),
            (inf_num, np.inf * (ur * br + ui * bi), np.inf * (ui * br - ur * bi)),
            (zero_den, big * ar, big * ai),  # the first case in XLA's order wins: set last
        ]
        real, imag = np.array(q.real), np.array(q.imag)
        for where, r, i in cases:
            where = lost & where
            real[where], imag[where] = r[where], i[where]
        out = np.empty(q.shape, q.dtype)
        out.real, out.imag = real, imag
        return out


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


# NumPy's shifts already give StableHLO's results for amounts outside [0, bits): 0 for left
# and logical right shifts, the sign for arithmetic ones (its npy_lshift/npy_rshift test the
# amount as an unsigned number, so a negative one is out of range too). The right shifts
# reinterpret the bits as signed or unsigned first.
_shift_left_kernel = np.left_shift


# The signed and unsigned integer dtypes of each width (a dtype built from its name costs
# ~0.8 us a call).
_SIGNED_OF_WIDTH = {n: np.dtype(f"i{n}") for n in (1, 2, 4, 8)}
_UNSIGNED_OF_WIDTH = {n: np.dtype(f"u{n}") for n in (1, 2, 4, 8)}


def _shift_right_as(x, y, view):
    """``x >> y`` on the bits of ``x`` read as ``view`` (the result read back as x's dtype):
    arithmetic for a signed view, logical for an unsigned one."""
    x, y = np.asarray(x), np.asarray(y)
    if y.dtype != view:
        # (an integer y of the same width read as ``view``: the bits its cast would give)
        y = y.view(view) if y.dtype.itemsize == view.itemsize and y.dtype.kind in "iu" else (
            y.astype(view))
    if x.dtype == view:
        return np.right_shift(x, y)
    return np.right_shift(x.view(view), y).view(x.dtype)


def _shift_right_arithmetic_kernel(x, y):
    return _shift_right_as(x, y, _SIGNED_OF_WIDTH[x.dtype.itemsize])


def _shift_right_logical_kernel(x, y):
    return _shift_right_as(x, y, _UNSIGNED_OF_WIDTH[x.dtype.itemsize])


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


_SCALAR_MATH_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def _logistic_kernel(x):
    # Evaluate on the side where exp cannot overflow: 1 / (1 + exp(-x)) where Re(x) >= 0,
    # else its equal exp(x) / (1 + exp(x)). (For complex x, |x| is the modulus, not the
    # distance to the imaginary axis: exp(-|x|) would drop the imaginary part.)
    if x.ndim == 0 and x.dtype in _SCALAR_MATH_DTYPES:
        # The same operations on a NumPy scalar: ~60 ns each where a 0-d array's ufunc call
        # costs ~1 us (NaN takes the second form, as the array's select does).
        v = x[()]
        e = np.exp(-abs(v))
        return np.asarray(1 / (1 + e) if v >= 0 else e / (1 + e))
    if x.dtype.kind == "c":
        nonneg = x.real >= 0
        e = np.exp(np.where(nonneg, -x, x))
    else:
        nonneg = x >= 0
        e = np.exp(-np.abs(x))
    return np.where(nonneg, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)


def _complex_kernel(re, im):
    out_dtype = np.result_type(re.dtype, np.complex64)
    out = np.empty(np.shape(re), out_dtype)
    out.real = re
    out.imag = im
    return out


# --------------------------------------------------------------------------------------------
# Unary math (names follow jax.lax; StableHLO op names for lowering)
# --------------------------------------------------------------------------------------------
def _sign(x):
    """np.sign, keeping a zero's sign as XLA does (sign(-0.0) is -0.0; NumPy gives +0.0); of
    a complex z, z / |z| part by part as XLA computes it (NaN parts where a part is infinite;
    NumPy 2 gives the unit of the infinite direction), z itself at 0."""
    if x.dtype.kind == "f":
        # (the sign of x on NumPy's answer: a zero keeps its sign, and a NaN, which np.sign
        # returns as it is, keeps its own)
        return np.copysign(np.sign(x), x)
    if x.dtype.kind != "c":
        return np.sign(x)
    with np.errstate(all="ignore"):
        mag = np.abs(x)
        out = np.empty_like(x)
        out.real, out.imag = x.real / mag, x.imag / mag
    return np.where(mag == 0, x, out)


neg_p = unary("neg", np.negative, hlo="stablehlo.negate")
sign_p = unary("sign", _sign, hlo="stablehlo.sign")
floor_p = unary("floor", np.floor, hlo="stablehlo.floor")
ceil_p = unary("ceil", np.ceil, hlo="stablehlo.ceil")
is_finite_p = unary("is_finite", np.isfinite, hlo="stablehlo.is_finite", out_dtype=_bool)
exp_p = unary("exp", np.exp, hlo="stablehlo.exponential", upcast_low_precision=True)
exp2_p = unary("exp2", np.exp2, upcast_low_precision=True)
def _expm1_kernel(x):
    """np.expm1; for complex operands the formula of ``_complex_expm1_lower`` (NumPy's
    complex expm1 is exp(x) - 1, which misses the C99 / Array API special values:
    expm1(inf + 0j) is inf + 0j, expm1(-inf + inf j) is -1 + 0j)."""
    if x.dtype.kind != "c":
        return np.expm1(x)
    a, b = x.real, x.imag
    with np.errstate(invalid="ignore", over="ignore"):
        half_sin = np.sin(b / 2)
        real = np.expm1(a) * np.cos(b) - 2 * half_sin * half_sin
        imag = np.exp(a) * np.sin(b)
        finite_b = np.isfinite(b)
        # exp(-inf) is exactly 0: -1 + 0j for any b (a signed zero times sin(b) if finite).
        real = np.where(a == -np.inf, -1, real)
        imag = np.where(a == -np.inf, np.where(finite_b, imag, 0), imag)
        # inf + (inf or nan) j: inf + nan j; a zero imaginary part stays that zero.
        real = np.where((a == np.inf) & ~finite_b, np.inf, real)
        imag = np.where(b == 0, b, imag)
    out = np.empty(x.shape, x.dtype)
    out.real, out.imag = real, imag
    return out


expm1_p = unary("expm1", _expm1_kernel, hlo="stablehlo.exponential_minus_one",
                upcast_low_precision=True)
log_p = unary("log", np.log, hlo="stablehlo.log", upcast_low_precision=True)
log1p_p = unary("log1p", np.log1p, hlo="stablehlo.log_plus_one", upcast_low_precision=True)
sin_p = unary("sin", np.sin, hlo="stablehlo.sine", upcast_low_precision=True)
cos_p = unary("cos", np.cos, hlo="stablehlo.cosine", upcast_low_precision=True)
tan_p = unary("tan", np.tan, hlo="stablehlo.tan", upcast_low_precision=True)


def _unsigned_complex_zeros(kernel):
    """``kernel`` reading a complex operand's zero parts as +0. XLA's complex asin, acos,
    asinh, acosh and sqrt ignore the sign of a zero part, where NumPy's follow C99's branch
    cuts on it (asinh(-0 + pi j) is -1.81 + 1.57j in NumPy, +1.81 + 1.57j in XLA): the eager
    kernel gives jit's and jax's values. Real operands keep their signed zeros."""
    def unsigned_zeros_kernel(v):
        return kernel(v + 0.0 if v.dtype.kind == "c" else v)
    unsigned_zeros_kernel.real_kernel = kernel  # (for real operands: see elementwise_impl)
    return unsigned_zeros_kernel


asin_p = unary("asin", _unsigned_complex_zeros(np.arcsin), hlo="chlo.asin",
               upcast_low_precision=True)
acos_p = unary("acos", _unsigned_complex_zeros(np.arccos), hlo="chlo.acos",
               upcast_low_precision=True)
atan_p = unary("atan", np.arctan, hlo="chlo.atan", upcast_low_precision=True)
sinh_p = unary("sinh", np.sinh, hlo="chlo.sinh", upcast_low_precision=True)
cosh_p = unary("cosh", np.cosh, hlo="chlo.cosh", upcast_low_precision=True)
tanh_p = unary("tanh", np.tanh, hlo="stablehlo.tanh", upcast_low_precision=True)
asinh_p = unary("asinh", _unsigned_complex_zeros(np.arcsinh), hlo="chlo.asinh",
                upcast_low_precision=True)
acosh_p = unary("acosh", _unsigned_complex_zeros(np.arccosh), hlo="chlo.acosh",
                upcast_low_precision=True)
atanh_p = unary("atanh", np.arctanh, hlo="chlo.atanh", upcast_low_precision=True)
sqrt_p = unary("sqrt", _unsigned_complex_zeros(np.sqrt), hlo="stablehlo.sqrt",
               upcast_low_precision=True)
rsqrt_p = unary("rsqrt", lambda x: 1 / np.sqrt(x), hlo="stablehlo.rsqrt",
                upcast_low_precision=True)
cbrt_p = unary("cbrt", np.cbrt, hlo="stablehlo.cbrt", upcast_low_precision=True)
logistic_p = unary("logistic", _logistic_kernel, hlo="stablehlo.logistic",
                   upcast_low_precision=True)
# x * x, not np.square, which turns bools into int8 (StableHLO multiplies booleans with and).
square_p = unary("square", lambda x: np.multiply(x, x))
abs_p = unary("abs", np.abs, hlo="stablehlo.abs", out_dtype=_real_dtype)
not_p = unary("not", np.invert, hlo="stablehlo.not")
real_p = unary("real", np.real, hlo="stablehlo.real", out_dtype=_real_dtype)
imag_p = unary("imag", np.imag, hlo="stablehlo.imag", out_dtype=_real_dtype)
# np.conjugate turns bools into int8; the conjugate of any real number is itself.
conj_p = unary("conj", lambda x: np.conjugate(x) if x.dtype.kind == "c" else x)
# np.bitwise_count counts the bits of |x| for signed ints; StableHLO counts the two's
# complement bits, so count on the unsigned view.
population_count_p = unary("population_count",
                           lambda x: np.bitwise_count(
                               np.asarray(x).view(f"u{x.dtype.itemsize}")).astype(x.dtype),
                           hlo="stablehlo.popcnt")
clz_p = unary("clz", _clz_kernel, hlo="stablehlo.count_leading_zeros")


@exp2_p.def_lower
def _exp2_lower(ctx, x):
    # Real: power(2, x), not exp(x * log 2): rounding x * log 2 costs up to 4 ulp in float32
    # for large |x|, while XLA's pow agrees with NumPy's exp2 (the eager kernel) to the last
    # bit. Complex: exp of the parts scaled by log 2 (XLA's complex pow makes
    # exp2(big + 0j) inf + nan j where C99 and NumPy give inf + 0j).
    aval = ctx.avals_in[0]
    if not dtypes.is_complex(aval.dtype):
        return ctx.op("stablehlo.power", ctx.constant(2, aval), x)
    part = ShapedArray(aval.shape, _real_dtype(aval.dtype))
    log2 = ctx.constant(np.log(2), part)
    re, im = (ctx.op(f"stablehlo.{name}", x, results=[part])[0] for name in ("real", "imag"))
    scaled = ctx.op("stablehlo.complex", *(ctx.op("stablehlo.multiply", p, log2,
                                                  results=[part])[0] for p in (re, im)))[0]
    # exp(-inf + iy) is 0 for every y, an infinite or NaN y too (C99; XLA's exp gives NaN).
    vanishes = compare(ctx, re, ctx.constant(-np.inf, part), "EQ")
    return ctx.op("stablehlo.select", vanishes, ctx.constant(0, aval),
                  ctx.op("stablehlo.exponential", scaled)[0])


def _complex_sin_cos_lower(real_op: str, sine: bool):
    """sin (``sine``) or cos: ``real_op`` for real operands; for complex ones the product
    formulas with sinh and cosh built from expm1, accurate for small imaginary parts (XLA's
    own expansion is off by several ulps there), with C99's zero parts: a zero real or
    imaginary part keeps the result's matching part zero also where the other factor is
    infinite or NaN (sin(0 + nan j) is 0 + nan j, sin(inf + 0j) nan + 0j: NumPy's, the eager
    kernel's; 0 * inf would make them NaN)."""
    def lower(ctx, x):
        aval = ctx.avals_in[0]
        if not dtypes.is_complex(aval.dtype):
            return ctx.op(real_op, x)
        part = ShapedArray(aval.shape, _real_dtype(aval.dtype))

        def op(name, *operands):
            return ctx.op(name, *operands, results=[part])[0]

        re, im = op("stablehlo.real", x), op("stablehlo.imag", x)
        sin_re, cos_re = op("stablehlo.sine", re), op("stablehlo.cosine", re)
        up = op("stablehlo.exponential_minus_one", im)
        down = op("stablehlo.exponential_minus_one", op("stablehlo.negate", im))
        two = ctx.constant(2, part)
        sinh = op("stablehlo.divide", op("stablehlo.subtract", up, down), two)
        cosh = op("stablehlo.divide", op("stablehlo.add", op("stablehlo.add", up, down), two),
                  two)
        flags = ShapedArray(aval.shape, np.bool_)

        def both(a, b):
            return ctx.op("stablehlo.and", a, b, results=[flags])[0]

        def non_finite(v):
            finite = ctx.op("stablehlo.is_finite", v, results=[flags])[0]
            return ctx.op("stablehlo.not", finite, results=[flags])[0]

        zero = ctx.constant(0, part)
        zero_re, zero_im = compare(ctx, re, zero, "EQ"), compare(ctx, im, zero, "EQ")
        # A zero part times an infinite or NaN factor is the zero part itself.
        if sine:
            real = op("stablehlo.select", zero_re, re, op("stablehlo.multiply", sin_re, cosh))
            imag = op("stablehlo.select", both(zero_im, non_finite(cos_re)), im,
                      op("stablehlo.multiply", cos_re, sinh))
        else:
            real = op("stablehlo.multiply", cos_re, cosh)
            imag = op("stablehlo.negate", op("stablehlo.multiply", sin_re, sinh))
            imag = op("stablehlo.select", both(zero_re, non_finite(sinh)),
                      op("stablehlo.negate", re), imag)
            imag = op("stablehlo.select", both(zero_im, non_finite(sin_re)), im, imag)
        return ctx.op("stablehlo.complex", real, imag)

    return lower


@exp_p.def_lower
def _complex_exp_lower(ctx, x):
    """XLA's complex exp, with the Array API standard's (C99's, NumPy's: the eager kernel's)
    special values where XLA makes NaNs: +0 cis(b) where a is -inf (0 + 0j for an infinite or
    NaN b), inf + nan j where a is inf and b is not finite, and a zero b kept."""
    aval = ctx.avals_in[0]
    if not dtypes.is_complex(aval.dtype):
        return [nan_passing(ctx, "stablehlo.exponential", x)]
    out = ctx.op("stablehlo.exponential", x)[0]
    part = ShapedArray(aval.shape, _real_dtype(aval.dtype))
    flags = ShapedArray(aval.shape, np.bool_)

    def op(name, *operands, result=part):
        return ctx.op(name, *operands, results=[result])[0]

    a, b = op("stablehlo.real", x), op("stablehlo.imag", x)
    real, imag = op("stablehlo.real", out), op("stablehlo.imag", out)
    # A NaN a gives NaN parts (XLA's too, but its exp of a constant NaN stores garbage:
    # lowering.stablehlo.EXP_POLYNOMIAL_OPS), the zero b kept below.
    nan_a = compare(ctx, a, a, "NE")
    real, imag = (op("stablehlo.select", nan_a, a, part_of_out) for part_of_out in (real, imag))
    zero = ctx.constant(0, part)
    finite_b = op("stablehlo.is_finite", b, result=flags)
    minus_inf = compare(ctx, a, ctx.constant(-np.inf, part), "EQ")
    plus_inf = compare(ctx, a, ctx.constant(np.inf, part), "EQ")
    real = op("stablehlo.select", minus_inf,
              op("stablehlo.select", finite_b,
                 op("stablehlo.multiply", zero, op("stablehlo.cosine", b)), zero), real)
    imag = op("stablehlo.select", minus_inf,
              op("stablehlo.select", finite_b,
                 op("stablehlo.multiply", zero, op("stablehlo.sine", b)), zero), imag)
    not_finite_b = op("stablehlo.not", finite_b, result=flags)
    real = op("stablehlo.select", op("stablehlo.and", plus_inf, not_finite_b, result=flags),
              ctx.constant(np.inf, part), real)
    imag = op("stablehlo.select", compare(ctx, b, zero, "EQ"), b, imag)
    return ctx.op("stablehlo.complex", real, imag)


@expm1_p.def_lower
def _complex_expm1_lower(ctx, x):
    """Complex expm1 by parts, with the Array API standard's (C99's) special values:
    real = expm1(a) cos(b) - 2 sin(b/2)^2 (accurate near 0), imag = exp(a) sin(b); -1 + 0j
    where a is -inf, inf + nan j where a is inf and b is not finite, and a zero b kept."""
    aval = ctx.avals_in[0]
    if not dtypes.is_complex(aval.dtype):
        return [nan_passing(ctx, "stablehlo.exponential_minus_one", x)]
    part = ShapedArray(aval.shape, _real_dtype(aval.dtype))
    flags = ShapedArray(aval.shape, np.bool_)

    def op(name, *operands, out=part):
        return ctx.op(name, *operands, results=[out])[0]

    a, b = op("stablehlo.real", x), op("stablehlo.imag", x)
    half_sin = op("stablehlo.sine", op("stablehlo.multiply", b, ctx.constant(0.5, part)))
    real = op("stablehlo.subtract",
              op("stablehlo.multiply", nan_passing(ctx, "stablehlo.exponential_minus_one", a),
                 op("stablehlo.cosine", b)),
              op("stablehlo.multiply", ctx.constant(2, part),
                 op("stablehlo.multiply", half_sin, half_sin)))
    imag = op("stablehlo.multiply", nan_passing(ctx, "stablehlo.exponential", a),
              op("stablehlo.sine", b))
    finite_b = op("stablehlo.is_finite", b, out=flags)
    minus_inf = compare(ctx, a, ctx.constant(-np.inf, part), "EQ")
    plus_inf = compare(ctx, a, ctx.constant(np.inf, part), "EQ")
    zero = ctx.constant(0, part)
    real = op("stablehlo.select", minus_inf, ctx.constant(-1, part), real)
    imag = op("stablehlo.select", minus_inf,
              op("stablehlo.select", finite_b, imag, zero), imag)
    real = op("stablehlo.select",
              op("stablehlo.and", plus_inf, op("stablehlo.not", finite_b, out=flags),
                 out=flags), ctx.constant(np.inf, part), real)
    imag = op("stablehlo.select", compare(ctx, b, zero, "EQ"), b, imag)
    return ctx.op("stablehlo.complex", real, imag)


def _infinite_part(ctx, x, part):
    """Whether the real or the imaginary part of complex ``x`` is infinite."""
    inf = ctx.constant(np.inf, part)

    def infinite(v):
        return compare(ctx, ctx.op("stablehlo.abs", v, results=[part])[0], inf, "EQ")

    flags = ShapedArray(part.shape, np.bool_)
    re = ctx.op("stablehlo.real", x, results=[part])[0]
    im = ctx.op("stablehlo.imag", x, results=[part])[0]
    return ctx.op("stablehlo.or", infinite(re), infinite(im), results=[flags])[0]


@clz_p.def_lower
def _clz_lower(ctx, x):
    """Signed integers are counted on their unsigned bits: XLA's constant folder counts a
    negative constant's leading zeros as minus the width (``clz(int32(-9))`` folds to -32;
    jax.jit gives that too), where the compiled kernel and jax's eager result give 0."""
    aval = ctx.avals_in[0]
    if np.dtype(aval.dtype).kind != "i":
        return ctx.op("stablehlo.count_leading_zeros", x)
    unsigned = ShapedArray(aval.shape, np.dtype(f"u{np.dtype(aval.dtype).itemsize}"))
    bits = ctx.op("stablehlo.bitcast_convert", x, results=[unsigned])[0]
    count = ctx.op("stablehlo.count_leading_zeros", bits, results=[unsigned])[0]
    return ctx.op("stablehlo.bitcast_convert", count, results=[aval])


@abs_p.def_lower
def _abs_lower(ctx, x):
    """|a + bj| is +inf where a part is infinite, a NaN other part too (C99, the Array API
    standard; XLA's complex abs gives NaN there)."""
    aval = ctx.avals_in[0]
    if not dtypes.is_complex(aval.dtype):
        return ctx.op("stablehlo.abs", x)
    part = ShapedArray(aval.shape, _real_dtype(aval.dtype))
    out = ctx.op("stablehlo.abs", x, results=[part])[0]
    return ctx.op("stablehlo.select", _infinite_part(ctx, x, part), ctx.constant(np.inf, part),
                  out, results=[part])


def _complex_log_lower(hlo: str):
    """log or log1p: for complex operands, a real part of +inf where a part of the operand is
    infinite, a NaN other part too (C99, the standard: log(inf + nan j) is inf + nan j; XLA
    gives NaN + NaN j)."""
    def lower(ctx, x):
        aval = ctx.avals_in[0]
        out = ctx.op(hlo, x)[0]
        if not dtypes.is_complex(aval.dtype):
            return [out]
        part = ShapedArray(aval.shape, _real_dtype(aval.dtype))
        real = ctx.op("stablehlo.real", out, results=[part])[0]
        imag = ctx.op("stablehlo.imag", out, results=[part])[0]
        real = ctx.op("stablehlo.select", _infinite_part(ctx, x, part),
                      ctx.constant(np.inf, part), real, results=[part])[0]
        return ctx.op("stablehlo.complex", real, imag)
    return lower


log_p.def_lower(_complex_log_lower("stablehlo.log"))
log1p_p.def_lower(_complex_log_lower("stablehlo.log_plus_one"))


class _Parts:
    """StableHLO helpers over the real and imaginary parts ``a``, ``b`` of a complex operand,
    for the special-value fix-ups below."""

    def __init__(self, ctx, x):
        self.ctx = ctx
        aval = ctx.avals_in[0]
        self.part = ShapedArray(aval.shape, _real_dtype(aval.dtype))
        self.flags = ShapedArray(aval.shape, np.bool_)
        self.a, self.b = self.op("stablehlo.real", x), self.op("stablehlo.imag", x)

    def op(self, name, *operands, flags=False):
        return self.ctx.op(name, *operands, results=[self.flags if flags else self.part])[0]

    def const(self, value):
        return self.ctx.constant(value, self.part)

    def zero(self, v):
        return compare(self.ctx, v, self.const(0), "EQ")

    def infinite(self, v):
        return compare(self.ctx, self.op("stablehlo.abs", v), self.const(np.inf), "EQ")

    def not_finite(self, v):
        return self.op("stablehlo.not", self.op("stablehlo.is_finite", v, flags=True),
                       flags=True)

    def both(self, p, q):
        return self.op("stablehlo.and", p, q, flags=True)

    def where(self, p, v, w):
        return self.op("stablehlo.select", p, v, w)

    def signed_one(self, v):
        """+-1 with the sign of ``v`` (v may be infinite)."""
        return self.where(compare(self.ctx, v, self.const(0), "LT"), self.const(-1),
                          self.const(1))

    def signed_one_bit(self, v):
        """+-1 with the sign bit of ``v`` (-1 for -0.0 and for a negative NaN too)."""
        bits = ShapedArray(self.part.shape, np.dtype(f"int{self.part.dtype.itemsize * 8}"))
        as_int = self.ctx.op("stablehlo.bitcast_convert", v, results=[bits])[0]
        negative = compare(self.ctx, as_int, self.ctx.constant(0, bits), "LT")
        return self.where(negative, self.const(-1), self.const(1))


def _with_complex_fixes(lower, fix):
    """``lower`` (a unary lowering) with ``fix(parts, re, im) -> (re, im)`` applied to the
    result's parts for complex operands: C99's values where XLA's complex formulas make
    NaNs (at infinite or NaN parts: NumPy's, the eager kernels', values)."""
    def fixed(ctx, x):
        out = lower(ctx, x)
        if not dtypes.is_complex(ctx.avals_in[0].dtype):
            return out
        parts = _Parts(ctx, x)
        re, im = fix(parts, parts.op("stablehlo.real", out[0]),
                     parts.op("stablehlo.imag", out[0]))
        return ctx.op("stablehlo.complex", re, im)
    return fixed


def _fix_sinh(p, re, im):
    # sinh(+-0 + (inf or nan) j) is +-0 + nan j; sinh(a + 0j) is real; sinh(+-inf + (inf
    # or nan) j) is +-inf + nan j.
    re = p.where(p.both(p.zero(p.a), p.not_finite(p.b)), p.a, re)
    im = p.where(p.zero(p.b), p.b, im)
    edge = p.both(p.infinite(p.a), p.not_finite(p.b))
    return p.where(edge, p.a, re), p.where(edge, p.const(np.nan), im)


def _fix_cosh(p, re, im):
    # cosh(+-0 + (inf or nan) j) is nan + 0j; cosh((inf or nan) + 0j) is real; cosh(+-inf +
    # (inf or nan) j) is inf + nan j.
    im = p.where(p.both(p.zero(p.b), p.not_finite(p.a)), p.b, im)
    im = p.where(p.both(p.zero(p.a), p.not_finite(p.b)), p.const(0), im)
    edge = p.both(p.infinite(p.a), p.not_finite(p.b))
    return p.where(edge, p.const(np.inf), re), p.where(edge, p.const(np.nan), im)


def _fix_tanh(p, re, im):
    # tanh(+-inf + bj) is +-1 + 0j (any b); tanh(+-0 + (inf or nan) j) is +-0 + nan j;
    # tanh(a + 0j) is real.
    inf_a = p.infinite(p.a)
    re = p.where(inf_a, p.signed_one(p.a), re)
    # (the zero has the sign of sin(2b) where b is finite, as C99's)
    signed_zero = p.op("stablehlo.multiply", p.const(0),
                       p.op("stablehlo.sine", p.op("stablehlo.add", p.b, p.b)))
    im = p.where(inf_a, p.where(p.not_finite(p.b), p.const(0), signed_zero), im)
    re = p.where(p.both(p.zero(p.a), p.not_finite(p.b)), p.a, re)
    return re, p.where(p.zero(p.b), p.b, im)


def _fix_sin(p, re, im):
    # sin(z) = -j sinh(jz): sin((inf or nan) + +-inf j) is nan +-inf j.
    edge = p.both(p.infinite(p.b), p.not_finite(p.a))
    return p.where(edge, p.const(np.nan), re), p.where(edge, p.b, im)


def _fix_cos(p, re, im):
    # cos(z) = cosh(jz): cos((inf or nan) + +-inf j) is inf + nan j.
    edge = p.both(p.infinite(p.b), p.not_finite(p.a))
    return p.where(edge, p.const(np.inf), re), p.where(edge, p.const(np.nan), im)


def _fix_tan(p, re, im):
    # tan(z) = -j tanh(jz): tan(a +-inf j) is 0 +-1j (any a); tan(a + 0j) is real.
    inf_b = p.infinite(p.b)
    re = p.where(inf_b, p.const(0), re)
    im = p.where(inf_b, p.signed_one(p.b), im)
    return re, p.where(p.zero(p.b), p.b, im)


def _fix_sqrt(p, re, im):
    # sqrt(a +-inf j) is inf +-inf j (any a); sqrt(+inf + nan j) is inf + nan j and
    # sqrt(-inf + nan j) nan + inf j.
    inf_b = p.infinite(p.b)
    re = p.where(inf_b, p.const(np.inf), re)
    im = p.where(inf_b, p.b, im)
    nan_b = p.op("stablehlo.not", compare(p.ctx, p.b, p.b, "EQ"), flags=True)
    plus = p.both(nan_b, compare(p.ctx, p.a, p.const(np.inf), "EQ"))
    minus = p.both(nan_b, compare(p.ctx, p.a, p.const(-np.inf), "EQ"))
    re = p.where(plus, p.const(np.inf), p.where(minus, p.const(np.nan), re))
    im = p.where(plus, p.const(np.nan), p.where(minus, p.const(np.inf), im))
    return re, im


def _is_nan(p, v):
    return p.op("stablehlo.not", compare(p.ctx, v, v, "EQ"), flags=True)


def _signed_zero(p, v):
    """A zero with the sign bit of ``v`` (NaN's too)."""
    return p.op("stablehlo.multiply", p.const(0), p.signed_one_bit(v))


def _nan_where_a_part_is_nan(p, re, im):
    """NaN + NaN j where a part of the operand is NaN (the cases the callers then set)."""
    nan = p.op("stablehlo.or", _is_nan(p, p.a), _is_nan(p, p.b), flags=True)
    return p.where(nan, p.const(np.nan), re), p.where(nan, p.const(np.nan), im)


def _fix_atanh(p, re, im):
    # C99's catanh: an infinite b gives +-0 +-pi/2 j (a NaN a too); an infinite a gives
    # +-0 + (+-pi/2 or nan) j; atanh(+-0 + nan j) is +-0 + nan j; other NaN parts give
    # nan + nan j (XLA's atanh gives +-pi/2 imaginary parts there).
    half_pi = p.op("stablehlo.multiply", p.const(np.pi / 2), p.signed_one_bit(p.b))
    inf_a, inf_b, nan_b = p.infinite(p.a), p.infinite(p.b), _is_nan(p, p.b)
    edge = p.op("stablehlo.or", inf_a, inf_b, flags=True)
    re, im = _nan_where_a_part_is_nan(p, re, im)
    re = p.where(edge, _signed_zero(p, p.a), re)
    im = p.where(edge, p.where(nan_b, p.const(np.nan), half_pi), im)
    return p.where(p.both(p.zero(p.a), nan_b), p.a, re), im


def _fix_atan(p, re, im):
    # atan(z) = -j atanh(jz): an infinite a gives +-pi/2 +-0 j (a NaN b too); an infinite b
    # gives (+-pi/2 or nan) +-0 j; atan(nan +-0 j) is nan +-0 j; other NaN parts give
    # nan + nan j.
    half_pi = p.op("stablehlo.multiply", p.const(np.pi / 2), p.signed_one_bit(p.a))
    inf_a, inf_b, nan_a = p.infinite(p.a), p.infinite(p.b), _is_nan(p, p.a)
    edge = p.op("stablehlo.or", inf_a, inf_b, flags=True)
    re, im = _nan_where_a_part_is_nan(p, re, im)
    re = p.where(edge, p.where(nan_a, p.const(np.nan), half_pi), re)
    im = p.where(edge, _signed_zero(p, p.b), im)
    return re, p.where(p.both(p.zero(p.b), nan_a), p.b, im)


def _nan_where_nan_meets_finite(p, re, im):
    """NaN + NaN j where one part is NaN and the other finite (C99's inverse functions; XLA's
    large-argument branches give a finite part from the finite one alone)."""
    def finite(v):
        return p.op("stablehlo.not", p.not_finite(v), flags=True)

    nan = p.op("stablehlo.or", p.both(_is_nan(p, p.a), finite(p.b)),
               p.both(_is_nan(p, p.b), finite(p.a)), flags=True)
    return p.where(nan, p.const(np.nan), re), p.where(nan, p.const(np.nan), im)


def _fix_acos(p, re, im):
    # acos(+-0 + nan j) is pi/2 + nan j.
    re, im = _nan_where_nan_meets_finite(p, re, im)
    edge = p.both(p.zero(p.a), _is_nan(p, p.b))
    return p.where(edge, p.const(np.pi / 2), re), im


def _fix_asin(p, re, im):
    # asin(+-0 + nan j) is +-0 + nan j.
    re, im = _nan_where_nan_meets_finite(p, re, im)
    edge = p.both(p.zero(p.a), _is_nan(p, p.b))
    return p.where(edge, p.a, re), im


def _fix_acosh(p, re, im):
    # acosh(+-0 + nan j) is nan + pi/2 j (the standard leaves the sign open).
    re, im = _nan_where_nan_meets_finite(p, re, im)
    edge = p.both(p.zero(p.a), _is_nan(p, p.b))
    return re, p.where(edge, p.const(np.pi / 2), im)


def _fix_asinh(p, re, im):
    # asinh(nan +-0 j) is nan +-0 j.
    re, im = _nan_where_nan_meets_finite(p, re, im)
    edge = p.both(p.zero(p.b), _is_nan(p, p.a))
    return re, p.where(edge, p.b, im)


sin_p.def_lower(_with_complex_fixes(_complex_sin_cos_lower("stablehlo.sine", sine=True),
                                    _fix_sin))
cos_p.def_lower(_with_complex_fixes(_complex_sin_cos_lower("stablehlo.cosine", sine=False),
                                    _fix_cos))
tan_p.def_lower(_with_complex_fixes(elementwise_lowering("stablehlo.tan"), _fix_tan))
sinh_p.def_lower(_with_complex_fixes(elementwise_lowering("chlo.sinh"), _fix_sinh))
cosh_p.def_lower(_with_complex_fixes(elementwise_lowering("chlo.cosh"), _fix_cosh))
tanh_p.def_lower(_with_complex_fixes(elementwise_lowering("stablehlo.tanh"), _fix_tanh))
sqrt_p.def_lower(_with_complex_fixes(elementwise_lowering("stablehlo.sqrt"), _fix_sqrt))
atan_p.def_lower(_with_complex_fixes(elementwise_lowering("chlo.atan"), _fix_atan))
atanh_p.def_lower(_with_complex_fixes(elementwise_lowering("chlo.atanh"), _fix_atanh))
acos_p.def_lower(_with_complex_fixes(elementwise_lowering("chlo.acos"), _fix_acos))
asin_p.def_lower(_with_complex_fixes(elementwise_lowering("chlo.asin"), _fix_asin))
acosh_p.def_lower(_with_complex_fixes(elementwise_lowering("chlo.acosh"), _fix_acosh))
asinh_p.def_lower(_with_complex_fixes(elementwise_lowering("chlo.asinh"), _fix_asinh))


@sign_p.def_lower
def _sign_lower(ctx, x):
    aval = ctx.avals_in[0]
    if not (dtypes.is_integer(aval.dtype) and dtypes.iinfo(aval.dtype).min == 0):
        return ctx.op("stablehlo.sign", x)
    # StableHLO's sign takes no unsigned operand: the sign of an unsigned x is x != 0.
    one, zero = ctx.constant(1, aval), ctx.constant(0, aval)
    return ctx.op("stablehlo.select", compare(ctx, x, zero, "NE"), one, zero)


@square_p.def_lower
def _square_lower(ctx, x):
    return ctx.op("stablehlo.multiply", x, x)


@conj_p.def_lower
def _conj_lower(ctx, x):
    aval = ctx.avals_in[0]
    if not dtypes.is_complex(aval.dtype):
        return [x]  # the conjugate of a real number is itself
    part = ShapedArray(aval.shape, _real_dtype(aval.dtype))
    re = ctx.op("stablehlo.real", x, results=[part])[0]
    im = ctx.op("stablehlo.imag", x, results=[part])[0]
    neg_im = ctx.op("stablehlo.negate", im, results=[part])[0]
    return ctx.op("stablehlo.complex", re, neg_im)


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

    prim.abstract_eval, prim.impl = abstract_eval, elementwise_impl(kernel, prim.nargs)
    return prim


for _prim in (is_finite_p, abs_p, real_p, imag_p):
    _weak_if_all_operands_weak(_prim)

# round has a static parameter: rounding_method 0 = half away from zero, 1 = half to even.
round_p = Primitive("round")
round_p.kernel = _round_kernel
round_p.abstract_eval = elementwise_abstract_eval("round")
round_p.impl = lambda x, *, rounding_method: Array(
    _round_kernel(x._value, rounding_method=rounding_method), x._weak)
round_p.lower_rule = lambda ctx, x, *, rounding_method: ctx.op(
    "stablehlo.round_nearest_even" if rounding_method == 1 else "stablehlo.round_nearest_afz", x)

# --------------------------------------------------------------------------------------------
# Binary arithmetic, comparisons and logic
# --------------------------------------------------------------------------------------------
add_p = binary("add", np.add, hlo="stablehlo.add")
sub_p = binary("sub", np.subtract, hlo="stablehlo.subtract")
mul_p = binary("mul", np.multiply, hlo="stablehlo.multiply")
div_p = binary("div", _div_kernel, hlo="stablehlo.divide")
rem_p = binary("rem", _rem_kernel, hlo="stablehlo.remainder")
pow_p = binary("pow", _pow_kernel, hlo="stablehlo.power", upcast_low_precision=True)


def _integer_quotient(ctx, name, x, y):
    """``x / y`` or ``x rem y`` of integers with XLA's results where the divisor is 0 (a
    quotient of -1, or the maximum for unsigned; a remainder of x) and at the minimum over
    -1 (the wrapped minimum, and 0), dividing by 1 there instead: XLA folds a division of
    constants with the host's divide instruction, which traps on those operands and kills
    the process (``sum(x[:0]) // 0`` under jit)."""
    aval = ctx.avals_in[0]

    def op(opname, *operands):
        return ctx.op(opname, *operands, results=[aval])[0]

    zero, one = ctx.constant(0, aval), ctx.constant(1, aval)
    by_zero = compare(ctx, y, zero, "EQ")
    unsafe = by_zero
    info = dtypes.iinfo(aval.dtype)
    if info.min < 0:
        truth = aval.update(dtype=dtypes.bool_)
        overflow = ctx.op("stablehlo.and", compare(ctx, x, ctx.constant(int(info.min), aval), "EQ"),
                          compare(ctx, y, ctx.constant(-1, aval), "EQ"), results=[truth])[0]
        unsafe = ctx.op("stablehlo.or", by_zero, overflow, results=[truth])[0]
    quotient = op(name, x, op("stablehlo.select", unsafe, one, y))
    if name == "stablehlo.remainder":
        return [op("stablehlo.select", by_zero, x, quotient)]
    by_zero_value = ctx.constant(int(info.max) if info.min == 0 else -1, aval)
    return [op("stablehlo.select", by_zero, by_zero_value, quotient)]


@div_p.def_lower
def _div_lower(ctx, x, y):
    if dtypes.is_integer(ctx.avals_in[0].dtype):
        return _integer_quotient(ctx, "stablehlo.divide", x, y)
    return ctx.op("stablehlo.divide", x, y)


@rem_p.def_lower
def _rem_lower(ctx, x, y):
    if dtypes.is_integer(ctx.avals_in[0].dtype):
        return _integer_quotient(ctx, "stablehlo.remainder", x, y)
    return ctx.op("stablehlo.remainder", x, y)


@pow_p.def_lower
def _pow_lower(ctx, x, y):
    # Integers: square-and-multiply over every bit of the exponent. XLA's integer power
    # loops over only the low 6 bits (3 ** 256 in int16 is 1 under XLA, -3071 in NumPy, the
    # eager kernel, and in the wrapping arithmetic both promise).
    aval = ctx.avals_in[0]
    if not dtypes.is_integer(aval.dtype):
        return ctx.op("stablehlo.power", x, y)
    signed = dtypes.iinfo(aval.dtype).min < 0
    zero, one = ctx.constant(0, aval), ctx.constant(1, aval)

    def op(name, *operands, results=(aval,)):
        return ctx.op(name, *operands, results=list(results))[0]

    negative = compare(ctx, y, zero, "LT") if signed else None
    exponent = op("stablehlo.select", negative, zero, y) if signed else y
    result, base = one, x
    for _ in range(aval.dtype.itemsize * 8 - signed):
        odd = compare(ctx, op("stablehlo.and", exponent, one), zero, "NE")
        result = op("stablehlo.select", odd, op("stablehlo.multiply", result, base), result)
        base = op("stablehlo.multiply", base, base)
        exponent = op("stablehlo.shift_right_logical", exponent, one)
    if not signed:
        return [result]
    # x ** -n: 1 for x == 1, +-1 for x == -1 (by the parity of n), else 0, as the kernel.
    minus_one = ctx.constant(-1, aval)
    odd_y = compare(ctx, op("stablehlo.and", y, one), zero, "NE")
    of_minus_one = op("stablehlo.select", odd_y, minus_one, one)
    reciprocal = op("stablehlo.select", compare(ctx, x, one, "EQ"), one, op(
        "stablehlo.select", compare(ctx, x, minus_one, "EQ"), of_minus_one, zero))
    return [op("stablehlo.select", negative, reciprocal, result)]



# NumPy's maximum/minimum of equal operands return the first: max(-0.0, +0.0) is -0.0 here and
# +0.0 in XLA, which orders -0 below +0. Matching XLA eagerly costs ~3 us a call (a zero test
# of every result) on the ops relu and clip are made of; the sign of such a zero is left open
# (the Array API leaves it unspecified; docs/decisions.md).
max_p = binary("max", np.maximum, hlo="stablehlo.maximum")
min_p = binary("min", np.minimum, hlo="stablehlo.minimum")


def _atan2_kernel(y, x):
    """``arctan(y / x)`` with the quadrant; complex operands (which np.arctan2 refuses) by
    StableHLO's definition, ``-i log((x + iy) / sqrt(x^2 + y^2))``, as XLA computes it."""
    if y.dtype.kind == "c" or x.dtype.kind == "c":  # (NumPy values: a ufunc's operands)
        with np.errstate(all="ignore"):
            return -1j * np.log((x + 1j * y) / np.sqrt(x * x + y * y))
    return np.arctan2(y, x)


atan2_p = binary("atan2", _atan2_kernel, hlo="stablehlo.atan2", upcast_low_precision=True)
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


def _complex_max_or_min(ctx, x, y, direction: str) -> str:
    """``max`` (``direction="GT"``) or ``min`` (``"LT"``) of complex values as the kernel
    (NumPy) and the StableHLO spec order them: lexicographically by (real, imag), a NaN
    operand (either part NaN) winning, ``x`` first. XLA's own complex maximum/minimum
    disagree with both, so the comparison is spelled out."""
    aval = ctx.type_of(x)
    part = ShapedArray(aval.shape, _real_dtype(aval.dtype))
    pred = ShapedArray(aval.shape, dtypes.bool_)

    def op(name, *operands, result=pred):
        return ctx.op(name, *operands, results=[result])[0]

    rx, ix = op("stablehlo.real", x, result=part), op("stablehlo.imag", x, result=part)
    ry, iy = op("stablehlo.real", y, result=part), op("stablehlo.imag", y, result=part)
    real_wins = compare(ctx, rx, ry, direction)
    imag_decides = op("stablehlo.and", compare(ctx, rx, ry, "EQ"),
                      compare(ctx, ix, iy, direction[0] + "E"))
    x_ordered_first = op("stablehlo.or", real_wins, imag_decides)
    x_is_nan, y_is_nan = compare(ctx, x, x, "NE"), compare(ctx, y, y, "NE")
    pick_x = op("stablehlo.or", x_is_nan,
                op("stablehlo.and", op("stablehlo.not", y_is_nan), x_ordered_first))
    return ctx.op("stablehlo.select", pick_x, x, y, results=[aval])[0]


def _max_min_lowering(prim, direction: str):
    real_rule = prim.lower_rule

    def lower_max_min(ctx, x, y):
        if dtypes.is_complex(ctx.avals_in[0].dtype):
            return [_complex_max_or_min(ctx, x, y, direction)]
        return real_rule(ctx, x, y)

    prim.lower_rule = lower_max_min


_max_min_lowering(max_p, "GT")
_max_min_lowering(min_p, "LT")

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
    # StableHLO's divide: for integers 1 / 0 is -1 (signed) or the maximum (unsigned).
    return _div_kernel(np.ones_like(x), acc) if y < 0 else acc


integer_pow_p = Primitive("integer_pow")
integer_pow_p.kernel = _integer_pow_kernel


@integer_pow_p.def_abstract_eval
def _integer_pow_abstract_eval(x, *, y):
    if x.dtype == np.bool_ and y < 0:
        # 1 / x has no bool value (and StableHLO cannot divide booleans).
        raise TypeError(f"integer_pow: a bool operand cannot have a negative exponent, got "
                        f"y={y} for {x.str_short()}")
    return ShapedArray(x.shape, x.dtype, x.weak_type)


@integer_pow_p.def_impl
def _integer_pow_impl(x, *, y):
    if y < 0:
        _integer_pow_abstract_eval(x.aval, y=y)  # the kernel would return floats for bools
    return Array(_integer_pow_kernel(x._value, y=y), x._weak)


@integer_pow_p.def_lower
def _integer_pow_lower(ctx, x, *, y):
    # The same multiplications in the same order as the kernel, so both round alike.
    aval = ctx.avals_out[0]
    if y == 0:
        return [ctx.constant(1, aval)]

    def mul(a, b):
        return ctx.op("stablehlo.multiply", a, b)[0]

    base, n, acc = x, abs(y), None
    while n:
        if n & 1:
            acc = base if acc is None else mul(acc, base)
        n >>= 1
        if n:
            base = mul(base, base)
    if y < 0:
        if dtypes.is_integer(aval.dtype):
            return _integer_quotient(ctx, "stablehlo.divide", ctx.constant(1, aval), acc)
        return ctx.op("stablehlo.divide", ctx.constant(1, aval), acc)
    return [acc]

# ============================================================================================
# Differentiation rules
# ============================================================================================
# JVP rules follow jax.lax's conventions, edge points included, so that ``fa.grad`` and
# ``jax.grad`` agree: d|x| at 0 is 1, ``max``/``min`` split the tangent equally on ties,
# d sqrt(x) at 0 is inf, d/dy x**y at x = 0 is 0. Complex functions are holomorphic (their
# tangent is f'(z) * t) and ``abs``/``real``/``imag`` follow JAX's conventions for complex
# inputs. Piecewise-constant functions and those with integer or bool results (comparisons,
# ``floor``, ``sign``, ``round``, bit operations) have zero tangents. Transpose rules are
# given for the primitives that are linear in some operand; cotangents are unconjugated, as in
# JAX. Rules compute with ``bind`` so they run on the tracers of any enclosing transform.


def _const(x, value):
    """``value`` with ``x``'s shape and dtype. Not weak-typed: a tangent built from it has its
    primal's dtype whatever the primal's weak_type."""
    scalar = Array(np.asarray(value, x.dtype))
    if not x.shape:
        return scalar
    return broadcast_in_dim_p.bind(scalar, shape=tuple(x.shape), broadcast_dimensions=())


def _add(x, y):
    return add_p.bind(x, y)


def _sub(x, y):
    return sub_p.bind(x, y)


def _mul(x, y):
    return mul_p.bind(x, y)


def _div(x, y):
    return div_p.bind(x, y)


def _neg(x):
    return neg_p.bind(x)


def _square(x):
    return square_p.bind(x)


def _select(pred, on_false, on_true):
    return select_n_p.bind(pred, on_false, on_true)


def _zero_jvp_rule(prim):
    def rule(primals, tangents, **params):
        out = prim.bind(*primals, **params)
        return out, Zero(tangent_aval(out.aval))
    return rule


def _defjvp_zero(*prims):
    """Zero tangents: the primitive is piecewise constant or has an integer/bool result."""
    for prim in prims:
        prim.jvp_rule = _zero_jvp_rule(prim)


def _transpose_linear_unary(prim, transposed):
    """Set the transpose of a unary primitive that is linear in its operand."""
    def rule(ct, x, **params):
        return [transposed(ct)]
    prim.transpose_rule = rule


# --- unary math -----------------------------------------------------------------------------
deflinear(neg_p)
_transpose_linear_unary(neg_p, _neg)
_defjvp_zero(sign_p, floor_p, ceil_p, is_finite_p)
defjvp_with_output(exp_p, lambda t, out, x: _mul(t, out))
defjvp_with_output(exp2_p, lambda t, out, x: _mul(t, _mul(out, _const(x, np.log(2)))))
# exp(x) = expm1(x) + 1: reuses the result instead of a second exponential.
defjvp_with_output(expm1_p, lambda t, out, x: _mul(t, _add(out, _const(x, 1))))
defjvp(log_p, lambda t, x: _div(t, x))
defjvp(log1p_p, lambda t, x: _div(t, _add(x, _const(x, 1))))
defjvp(sin_p, lambda t, x: _mul(t, cos_p.bind(x)))
defjvp(cos_p, lambda t, x: _neg(_mul(t, sin_p.bind(x))))
defjvp_with_output(tan_p, lambda t, out, x: _mul(t, _add(_const(x, 1), _square(out))))
defjvp(asin_p, lambda t, x: _mul(t, rsqrt_p.bind(_sub(_const(x, 1), _square(x)))))
defjvp(acos_p, lambda t, x: _neg(_mul(t, rsqrt_p.bind(_sub(_const(x, 1), _square(x))))))
defjvp(atan_p, lambda t, x: _div(t, _add(_const(x, 1), _square(x))))
defjvp(sinh_p, lambda t, x: _mul(t, cosh_p.bind(x)))
defjvp(cosh_p, lambda t, x: _mul(t, sinh_p.bind(x)))
# (1 + tanh)(1 - tanh) keeps its accuracy where tanh is near +-1 (1 - tanh**2 cancels).
defjvp_with_output(tanh_p, lambda t, out, x: _mul(
    t, _mul(_add(_const(x, 1), out), _sub(_const(x, 1), out))))
defjvp(asinh_p, lambda t, x: _mul(t, rsqrt_p.bind(_add(_square(x), _const(x, 1)))))
# sqrt(x - 1) sqrt(x + 1), not sqrt(x**2 - 1): no cancellation near 1, and the right sign of
# the principal branch for complex x with a negative real part.
defjvp(acosh_p, lambda t, x: _div(t, _mul(sqrt_p.bind(_sub(x, _const(x, 1))),
                                          sqrt_p.bind(_add(x, _const(x, 1))))))
defjvp(atanh_p, lambda t, x: _div(t, _mul(_add(_const(x, 1), x), _sub(_const(x, 1), x))))
defjvp_with_output(sqrt_p, lambda t, out, x: _mul(t, _div(_const(x, 0.5), out)))
defjvp_with_output(rsqrt_p, lambda t, out, x: _mul(t, _mul(_const(x, -0.5), _div(out, x))))
defjvp_with_output(cbrt_p, lambda t, out, x: _mul(
    t, _mul(_const(x, 1 / 3), integer_pow_p.bind(out, y=-2))))
# logistic(x) * logistic(-x), not out * (1 - out), which is 0 wherever out rounds to 1.
defjvp_with_output(logistic_p, lambda t, out, x: _mul(t, _mul(out, logistic_p.bind(_neg(x)))))
defjvp(square_p, lambda t, x: _mul(t, _mul(_const(x, 2), x)))


def _abs_jvp(t, out, x):
    if dtypes.is_complex(x.dtype):
        # d|z| = Re(conj(z) dz) / |z|; at z = 0 JAX divides by 1 instead, which gives 0.
        safe = _select(eq_p.bind(out, _const(out, 0)), out, _const(out, 1))
        return _div(real_p.bind(_mul(t, conj_p.bind(x))), safe)
    return _select(ge_p.bind(x, _const(x, 0)), _neg(t), t)  # +t at 0, as JAX


defjvp_with_output(abs_p, _abs_jvp)
_defjvp_zero(not_p)
deflinear(real_p)
_transpose_linear_unary(real_p, lambda ct: complex_p.bind(ct, _const(ct, 0)))
deflinear(imag_p)
# imag(z) = <z, -i>: its transpose maps a real cotangent c to -i c (JAX's convention).
_transpose_linear_unary(imag_p, lambda ct: complex_p.bind(_const(ct, 0), _neg(ct)))
deflinear(conj_p)
_transpose_linear_unary(conj_p, lambda ct: conj_p.bind(ct))
_defjvp_zero(population_count_p, clz_p, round_p)
round_p.batch_rule = vectorized_batch_rule(round_p)


# --- binary arithmetic ----------------------------------------------------------------------

@add_p.def_jvp
def _add_jvp(primals, tangents):
    tx, ty = tangents
    out = add_p.bind(*primals)
    if type(tx) is Zero:
        return out, ty
    return out, (tx if type(ty) is Zero else add_p.bind(tx, ty))


@add_p.def_transpose
def _add_transpose(ct, x, y):
    return [ct if is_undefined(x) else None, ct if is_undefined(y) else None]


@sub_p.def_jvp
def _sub_jvp(primals, tangents):
    tx, ty = tangents
    out = sub_p.bind(*primals)
    if type(tx) is Zero:
        return out, (ty if type(ty) is Zero else _neg(ty))
    return out, (tx if type(ty) is Zero else sub_p.bind(tx, ty))


@sub_p.def_transpose
def _sub_transpose(ct, x, y):
    return [ct if is_undefined(x) else None, _neg(ct) if is_undefined(y) else None]


defbilinear(mul_p)


@mul_p.def_transpose
def _mul_transpose(ct, x, y):
    if is_undefined(x) and is_undefined(y):
        raise TypeError("mul: a product of two linear inputs is not linear; cannot transpose")
    if is_undefined(x):
        return [_mul(ct, y), None]
    return [None, _mul(x, ct)]


defjvp(div_p, lambda t, x, y: _div(t, y),
       lambda t, x, y: _mul(_mul(_neg(t), x), integer_pow_p.bind(y, y=-2)))


@div_p.def_transpose
def _div_transpose(ct, x, y):
    if is_undefined(y):
        raise TypeError("div: the divisor is a linear input, which is not linear; "
                        "cannot transpose")
    return [_div(ct, y), None]


def _trunc(x):
    return _mul(sign_p.bind(x), floor_p.bind(abs_p.bind(x)))


# x rem y = x - y * trunc(x / y), and trunc is piecewise constant.
defjvp(rem_p, lambda t, x, y: t, lambda t, x, y: _mul(_neg(t), _trunc(_div(x, y))))


def _pow_jvp_base(t, out, x, y):
    # y * x**(y - 1), with no special case at x = 0 (as JAX: 0 * 0**-1 is nan there).
    return _mul(t, _mul(y, pow_p.bind(x, _sub(y, _const(y, 1)))))


def _pow_jvp_exponent(t, out, x, y):
    # log(x) * x**y, with log(1) in place of log(0): 0**y is flat in y (JAX's convention).
    safe_x = _select(eq_p.bind(x, _const(x, 0)), x, _const(x, 1))
    return _mul(t, _mul(log_p.bind(safe_x), out))


defjvp_with_output(pow_p, _pow_jvp_base, _pow_jvp_exponent)


# chooser_share(x, out, y): the share of the tangent of ``out = max(x, y)`` (or min) that
# comes from ``x``: 1 where ``x`` gave the result, 0 where it did not, 1/2 where ``x`` and
# ``y`` both did (a tie), so the tangent is split equally, as in JAX (whose rule computes the
# same numbers as eq/select/div on constants). One primitive instead of those nine: ReLU's
# derivative costs one eager kernel and one IR equation, not nine arrays of the input's size.
def _chooser_share_kernel(x, out, y):
    x, out, y = np.asarray(x), np.asarray(out), np.asarray(y)
    share = np.empty(out.shape, out.dtype)
    np.equal(x, out, out=share)  # 1 where x gave the result (written as out's dtype)
    # A tie is x == out and y == out, i.e. x == out and x == y (== is transitive; NaN equals
    # nothing): halve the share where x == y (0 stays 0). Exact ties are rare (ReLU: x == 0),
    # so this is usually one comparison and an any().
    same = np.equal(x, y)
    if same.any():
        np.multiply(share, 0.5, out=share, where=same)
    return share


chooser_share_p = Primitive("chooser_share")
chooser_share_p.kernel = _chooser_share_kernel


@chooser_share_p.def_impl
def _chooser_share_impl(x, out, y):
    xv, ov, yv = x._value, out._value, y._value
    if not (xv.shape == ov.shape == yv.shape and xv.dtype == ov.dtype == yv.dtype
            and dtypes.is_inexact(xv.dtype)):
        _chooser_share_abstract_eval(x.aval, out.aval, y.aval)  # raises, naming the primitive
    return Array(_chooser_share_kernel(xv, ov, yv))

_chooser_share_types = elementwise_abstract_eval("chooser_share", out_dtype=lambda d: d)


@chooser_share_p.def_abstract_eval
def _chooser_share_abstract_eval(x, out, y):
    if not dtypes.is_inexact(x.dtype):  # a tangent weight: integers have no tangents
        raise TypeError(f"Primitive 'chooser_share' takes float or complex operands, got "
                        f"{x.str_short()}")
    return _chooser_share_types(x, out, y)


chooser_share_p.batch_rule = vectorized_batch_rule(chooser_share_p)


@chooser_share_p.def_lower
def _chooser_share_lower(ctx, x, out, y):
    aval = ctx.avals_out[0]
    one, half, zero = (ctx.constant(v, aval) for v in (1, 0.5, 0))
    from_x = ctx.op("stablehlo.select", compare(ctx, y, out, "EQ"), half, one)[0]
    return ctx.op("stablehlo.select", compare(ctx, x, out, "EQ"), from_x, zero)


def _defjvp_chooser(prim):
    defjvp_with_output(prim, lambda t, out, x, y: _mul(t, chooser_share_p.bind(x, out, y)),
                       lambda t, out, x, y: _mul(t, chooser_share_p.bind(y, out, x)))


_defjvp_chooser(max_p)
_defjvp_chooser(min_p)
_defjvp_zero(chooser_share_p)  # piecewise constant


def _atan2_denominator(x, y):
    return _add(_square(x), _square(y))


# atan2(x, y) is the angle of the point (y, x).
defjvp(atan2_p, lambda t, x, y: _mul(t, _div(y, _atan2_denominator(x, y))),
       lambda t, x, y: _mul(t, _div(_neg(x), _atan2_denominator(x, y))))
_defjvp_zero(nextafter_p)
deflinear(complex_p)


@complex_p.def_transpose
def _complex_transpose(ct, re, im):
    # complex(a, b) = a + i b; its transpose under the unconjugated pairing: (Re ct, -Im ct).
    return [real_p.bind(ct) if is_undefined(re) else None,
            _neg(imag_p.bind(ct)) if is_undefined(im) else None]


_defjvp_zero(and_p, or_p, xor_p, shift_left_p, shift_right_arithmetic_p,
             shift_right_logical_p, eq_p, ne_p, lt_p, le_p, gt_p, ge_p)


# --- integer_pow ---------------------------------------------------------------------------

def _integer_pow_jvp(t, x, *, y):
    if y == 0:
        return Zero(tangent_aval(x.aval))
    if y == 1:
        return t
    power = x if y == 2 else integer_pow_p.bind(x, y=y - 1)
    return _mul(t, _mul(_const(x, y), power))


defjvp(integer_pow_p, _integer_pow_jvp)
integer_pow_p.batch_rule = vectorized_batch_rule(integer_pow_p)
