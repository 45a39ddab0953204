"""Differential test of every elementwise function of ``funcarray.numpy`` (the op table)
against jax: funcarray eager, funcarray jit and ``jax.numpy`` on the same operands must agree
on whether they raise, and otherwise on shape, dtype, weak type and values.

The operands (``differential_values``) are arrays of any of the dtypes, 0-d, empty and
broadcasting shapes, values mixing the op's domain with each dtype's edge values, and Python
scalars of every kind in place of operands. The oracle is jax on the CPU, with x64 on only
when an operand is 64-bit: funcarray's Python scalar defaults are 32-bit (README, "Dtypes"),
as jax's are with x64 off.

Where funcarray and jax may rightly differ, an allowance below says so: each is a small
function naming the difference, applied only to the elements (or outputs) it concerns.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from differential_compare import BITS_64, DEFAULT_32, Raised, attempt, parts, subnormal
from differential_values import operands
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from op_table import ELEMENTWISE_OPS, kind_of, tolerance
from test_elementwise import JAX_STRONG_CONSTANT_QUIRKS

import funcarray as fa
import funcarray.numpy as fnp
from funcarray import dtypes

# Aliases (abs/absolute, mod/remainder...) are one function object: each is tested once.
_FUNCTIONS = list({id(spec.fn): spec for spec in reversed(ELEMENTWISE_OPS)}.values())[::-1]

# Every example compiles a funcarray program (about 0.15 s) and a few jax ones: 5 examples
# for each of the ~100 functions keeps the file near a minute on 2 idle cores. The thorough
# profile scales the count (conftest.py).
_EXAMPLES = settings(max_examples=5)


# --------------------------------------------------------------------------------------------
# Running the three implementations
# --------------------------------------------------------------------------------------------


def _run_eager(spec, case):
    return attempt(lambda: spec.fn(*case.with_arrays(map(fnp.asarray, _arrays(case)))),
                   spec.multiple_results)


def _run_jit(spec, case):
    # Python floats and complexes are jit arguments (they keep their double precision); ints
    # and bools are closed over (a Python int beyond int32 is refused as an argument).
    passed = [i for i, v in enumerate(case.values)
              if isinstance(v, np.ndarray) or type(v) in (float, complex)]

    def fn(*args):
        values = list(case.values)
        for i, v in zip(passed, args):
            values[i] = v
        return spec.fn(*values)

    args = [fnp.asarray(case.values[i]) if isinstance(case.values[i], np.ndarray)
            else case.values[i] for i in passed]
    return attempt(lambda: fa.jit(fn)(*args), spec.multiple_results)


def _x64(case) -> bool:
    return any(np.dtype(a.dtype) in BITS_64 for a in _arrays(case))


def _run_jax(spec, case, cast_to=None):
    """jax's outputs and whether x64 was on. ``cast_to``: the arrays converted to that dtype
    first (the conditions of ``where`` excepted)."""
    values = case.values
    if cast_to is not None:
        values = tuple(v.astype(cast_to) if isinstance(v, np.ndarray) and not (
            spec.condition and i == 0) else v for i, v in enumerate(values))

    jax_fn = jax.jit(spec.jax_fn) if jax_power_specialises_concrete_exponents(
        spec, case) else spec.jax_fn

    def call(x64):
        with jax.enable_x64(x64):
            return attempt(lambda: jax_fn(*(
                jnp.asarray(v) if isinstance(v, np.ndarray) else v for v in values)),
                spec.multiple_results)

    x64 = _x64(case) or cast_to is not None
    out = call(x64)
    if jax_x64_off_refuses_wide_python_ints(case, out, x64):
        wide = call(True)
        # An int result stays refused: funcarray's Python int default is int32.
        if not isinstance(wide, Raised) and all(kind_of(w.dtype) not in "iu" for w, _ in wide):
            return wide, True
    return out, x64


def _arrays(case):
    return [v for v in case.values if isinstance(v, np.ndarray)]


# --------------------------------------------------------------------------------------------
# Allowances: where funcarray may differ from jax, each as narrow as the difference
# --------------------------------------------------------------------------------------------


def xla_reads_subnormal_operands_as_zero(case, what, shape):
    """Elements of the eager result with a subnormal operand (a part of one): XLA on the CPU
    reads such operands as zero (or, inside its approximations such as log, near zero),
    NumPy's kernels as themselves, in every result dtype (logical_and of 1e-45 is False
    under XLA)."""
    allowed = np.zeros(shape, bool)
    if what == "eager":
        for v in case.values:
            v = np.asarray(v)
            if kind_of(v.dtype) in "fc" and v.size:
                for part in parts(v):
                    allowed |= np.broadcast_to(subnormal(part, v.dtype), shape)
    return allowed


def xla_flushes_subnormals(case, what, got, want, dtype):
    """XLA on the CPU flushes subnormal results to zero; NumPy's kernels keep them. Allowed,
    per real or imaginary part, eager and jit: a zero or subnormal where the other has a
    subnormal (under jit the flushing point can differ from jax's: funcarray's fmax is a
    max, jax's a select)."""
    allowed = xla_reads_subnormal_operands_as_zero(case, what, want.shape)
    return [allowed | (subnormal(g, dtype) & ((w == 0) | subnormal(w, dtype)))
            | (subnormal(w, dtype) & ((g == 0) | subnormal(g, dtype)))
            for g, w in zip(parts(got), parts(want))]


# IEEE leaves the sign of max(+0, -0) to the implementation (XLA and NumPy differ).
_ZERO_SIGN_UNSPECIFIED = frozenset({"maximum", "minimum", "fmax", "fmin", "clip"})
# funcarray gives the sign of a zero floor quotient as NumPy and Python do (-8.6 // -9e18 is
# 0.0; test_elementwise.py pins it); jax's quotient is -0.0.
_NUMPY_ZERO_QUOTIENT_SIGN = frozenset({"floor_divide", "divmod"})


def zero_sign_unspecified(spec, dtype) -> bool:
    """The sign of a zero result is left open: by IEEE for max/min of +0 and -0, by the
    NumPy convention for floor quotients, and for the zero parts of complex results, where
    C99's and XLA's formulas differ."""
    return (spec.name in _ZERO_SIGN_UNSPECIFIED | _NUMPY_ZERO_QUOTIENT_SIGN
            or kind_of(dtype) == "c")


def weak_default_is_32_bit(got, want, x64) -> bool:
    """A weak result under x64 (a Python scalar's kind won the promotion) is 64-bit in jax
    and 32-bit in funcarray, whose Python scalar defaults are 32-bit without a switch
    (README, "Dtypes"). The values are then compared with jax's in funcarray's dtype."""
    (g, g_weak), (w, w_weak) = got, want
    return x64 and g_weak and w_weak and DEFAULT_32.get(w.dtype) == g.dtype


def jax_strong_internal_constant(spec, got, want) -> bool:
    """jax.numpy builds some results from a strong internal constant (jnp.hypot(2.0, x) of a
    weak x is strong); funcarray's constants are weak (test_elementwise.py lists the ops)."""
    (g, g_weak), (w, w_weak) = got, want
    return (spec.name in JAX_STRONG_CONSTANT_QUIRKS and g_weak and not w_weak
            and DEFAULT_32.get(w.dtype, w.dtype) == g.dtype)


def jax_angle_of_a_0d_float_is_its_default_float(spec, case, got, want) -> bool:
    """jnp.angle of a 0-d real float array returns jax's default float (float32, or float64
    with x64) whatever the input's precision; funcarray keeps the input's float dtype, as jax
    does for every other shape. The values are compared in funcarray's dtype."""
    (g, _), (w, _) = got, want
    x = case.values[0]
    return (spec.name == "angle" and isinstance(x, np.ndarray) and x.ndim == 0
            and kind_of(x.dtype) == "f" and g.dtype == x.dtype != w.dtype)


def jax_x64_off_refuses_wide_python_ints(case, out, x64) -> bool:
    """With x64 off jax refuses a Python int beyond int32 even where it becomes a float
    (float32 array + 2**40); funcarray converts it to the float. jax is asked again with x64
    on, and its weak 64-bit results are read as funcarray's 32-bit ones."""
    return (not x64 and isinstance(out, Raised) and isinstance(out.exc, OverflowError)
            and any(type(v) is int and not -2**31 <= v < 2**31 for v in case.values))


def jax_exp2_is_exp_of_a_product(spec, case):
    """jax lowers exp2(x) to exp(x * log 2): the product's rounding error grows into
    |x| log 2 ulps of the result (14 ulps at float32's 2**127); funcarray's exp2 is exact
    there. Allowed tolerance, in ulps of the result: |x| + 4 (x: the operand, broadcast)."""
    if spec.name != "exp2":
        return 0.0
    with np.errstate(all="ignore"):
        return np.abs(np.asarray(case.values[0], np.complex128))


# XLA's complex atan and atanh give finite parts for NaN parts (atanh(0.2 + nan j) is
# nan - pi/2 j); NumPy's kernels, eager, give C99's nan + nan j.
_XLA_COMPLEX_NAN_PARTS = frozenset({"arctan", "arctanh"})


def xla_complex_nanparts(spec, case, what, shape):
    """Elements of the eager result of complex atan/atanh whose operand has a NaN part."""
    if what != "eager" or spec.name not in _XLA_COMPLEX_NAN_PARTS:
        return np.zeros(shape, bool)
    v = np.asarray(case.values[0])
    return np.broadcast_to(np.iscomplexobj(v) & (np.isnan(v.real) | np.isnan(v.imag)), shape)


# The op table rejects complex for these, as NumPy has no complex loop; jax computes them.
_JAX_TAKES_COMPLEX = frozenset({"logaddexp", "logaddexp2", "arctan2", "atan2"})


def jax_takes_complex(spec, case) -> bool:
    """Complex operands (arrays or Python scalars) of an op whose complex form only jax has:
    funcarray must raise TypeError; jax's result is not compared."""
    return spec.name in _JAX_TAKES_COMPLEX and any(
        np.iscomplexobj(v) for v in case.values)


def funcarray_refuses_int_out_of_range(case, got, want) -> bool:
    """funcarray raises IntegerOverflowError for a Python int out of the range of the
    integer dtype it is computed in (README, "Dtypes"): the integer result's, or for a
    comparison the integer operands'; jax wraps it (subtract(128, int8 array) is -128,
    less(-1, uint8 array) compares 255)."""
    if not (isinstance(got, Raised) and isinstance(got.exc, OverflowError)
            and not isinstance(want, Raised)):
        return False
    if all(kind_of(w.dtype) in "iu" for w, _ in want):
        computed_in = [w.dtype for w, _ in want]
    elif all(kind_of(w.dtype) == "b" for w, _ in want):
        computed_in = [a.dtype for a in _arrays(case) if kind_of(a.dtype) in "iu"]
    else:
        return False
    return any(type(v) is int and not _fits(v, dtype) for v in case.values
               for dtype in computed_in)


def jax_refuses_ints_beyond_64_bits(spec, case, got, want) -> bool:
    """jax refuses a Python int that fits no 64-bit integer even where it becomes a float
    (float16 array % 2**64, or compared with one); funcarray converts it to the float, as
    NumPy does."""
    float_operands = (all(kind_of(a.dtype) in "fc" for a in _arrays(case))
                      or spec.name.startswith("logical_"))  # (a Python int's truth)
    return (isinstance(want, Raised) and isinstance(want.exc, OverflowError)
            and not isinstance(got, Raised)
            and all(kind_of(g.dtype) in "fc" or (float_operands and kind_of(g.dtype) == "b")
                    for g, _ in got)
            and any(type(v) is int and not -2**63 <= v < 2**64 for v in case.values))


def jax_wraps_ints_on_the_way_to_floats(case, got) -> bool:
    """Where a Python int out of the integer operands' range meets them in a float result
    (atan2(-1, uint8 array)), jax converts it to the integer dtype first, wrapping it (-1 is
    255), and funcarray straight to the float, as NumPy does. jax is asked again with the
    arrays in funcarray's result dtype, where it converts the int straight too (its weak
    types are taken from the first answer)."""
    ints = [a.dtype for a in _arrays(case) if kind_of(a.dtype) in "iu"]
    return (not isinstance(got, Raised) and all(kind_of(g.dtype) in "fc" for g, _ in got)
            and any(type(v) is int and not _fits(v, dtype) for v in case.values
                    for dtype in ints))


def complex_non_finite_results(case, got, want, shape):
    """Elements of a complex result that is non-finite in both (an overflow, or an operand
    with an infinite or NaN part), or NaN in jax where an operand part is non-finite: NumPy's
    kernels (eager mode) follow C99's Annex G for these, XLA's formulas (jit, jax) differ in
    which parts are inf or NaN and in their signs (sqrt(nan + inf j) is inf + inf j in C99,
    nan + nan j in XLA)."""
    if kind_of(want.dtype) != "c":
        return np.zeros(shape, bool)
    special = np.zeros(shape, bool)
    for v in case.values:
        v = np.asarray(v)
        if np.iscomplexobj(v):
            special |= np.broadcast_to(~np.isfinite(v), shape)
    with np.errstate(invalid="ignore"):
        return (~np.isfinite(got) & ~np.isfinite(want)) | (special & np.isnan(want))


def complex_power_limits(spec, case, got, want, shape):
    """Elements of complex power(z, w) that are 0 eagerly and under funcarray's jit (NumPy's
    value, the limit: 0 ** w for Re(w) > 0, 3j ** (3e38j)) and NaN in jax (exp(w log z)); or
    where z is 1 and w has a NaN part: jax gives 1, NumPy (eager) NaN (C99 leaves cpow
    open)."""
    if spec.name not in ("power", "float_power") or kind_of(want.dtype) != "c":
        return np.zeros(shape, bool)
    base = np.broadcast_to(np.asarray(case.values[0]), shape)
    with np.errstate(invalid="ignore"):
        return ((got == 0) & np.isnan(want)) | ((base == 1) & np.isnan(got) & (want == 1))


def jax_power_specialises_concrete_exponents(spec, case) -> bool:
    """jnp.power called eagerly with a 0-d integer array exponent takes lax.integer_pow:
    its result dtype ignores the exponent's (False ** int8(0) is int32) and a negative
    exponent raises; jitted, it computes what funcarray does. jax is asked jitted."""
    exponent = case.values[1] if spec.name == "power" else None
    return (isinstance(exponent, np.ndarray) and exponent.ndim == 0
            and kind_of(exponent.dtype) in "biu")


def jax_integer_power_of_large_exponents(spec, case, got, shape):
    """Elements of an integer power whose exponent is negative (base other than 1, -1) or at
    least 64: funcarray gives the integer quotient 0 for the first and the exact wrapped
    power for the second (test_elementwise.py checks it against Python's pow); jax negates
    a negative exponent, which wraps (2 ** int8(-127) is 2), and XLA's integer power reads
    only the exponent's low 6 bits (int16(3) ** 32766 is -23751, not -29127)."""
    if spec.name != "power" or kind_of(got.dtype) not in "iu":
        return np.zeros(shape, bool)
    base, exponent = (np.broadcast_to(np.asarray(v), shape) for v in case.values[:2])
    with np.errstate(over="ignore"):
        quotient = (exponent < 0) & (np.abs(base.astype(np.float64)) > 1) & (got == 0)
    return quotient | (exponent >= 64)


def standard_floor_quotients_of_infinities(spec, case, got, want, shape):
    """Elements of a float floor quotient (floor_divide, divmod's first result) with exactly
    one infinite operand: funcarray gives the Array API standard's floor(x / y) (inf // 2 is
    inf, 1.0 // -inf is -0.0), jax and NumPy nan and -1.0 (docs/decisions.md;
    test_elementwise.py checks these values)."""
    if spec.name not in ("floor_divide", "divmod") or len(case.values) < 2:
        return np.zeros(shape, bool)
    x, y = (np.broadcast_to(np.asarray(v), shape) for v in case.values[:2])
    with np.errstate(all="ignore"):
        quotient = (x / y).astype(got.dtype)
    # (only where the result is that quotient: divmod's remainder is held to jax's)
    return ((np.isinf(x) != np.isinf(y)) & (got == quotient)
            & (np.signbit(got) == np.signbit(quotient)))


def xla_atan_at_its_branch_points(spec, case, got, want, shape):
    """Elements of complex atan (atanh) at a real part tiny beside an imaginary part of
    +-1 (the other way round for atanh): XLA squares the tiny part, which underflows, and
    gives an infinite part where NumPy's kernel (eager) gives the finite value
    (atan(1.2e-38 + 1j) is 0.785 + 44.0j)."""
    if spec.name not in ("arctan", "atan", "arctanh", "atanh") or kind_of(want.dtype) != "c":
        return np.zeros(shape, bool)
    z = np.broadcast_to(np.asarray(case.values[0]), shape)
    unit, tiny = (z.imag, z.real) if spec.name in ("arctan", "atan") else (z.real, z.imag)
    square_underflows = np.abs(tiny) < np.sqrt(np.finfo(got.real.dtype).tiny)
    return (np.abs(unit) == 1) & square_underflows & np.isinf(want) & np.isfinite(got)


def jax_bool_products_are_selects(spec, case, got, want, shape):
    """Elements of a product or quotient of bools (as floats) that are NaN in funcarray and
    NumPy (0 / 0, False * nan) and 0 in jax: XLA's simplifier turns jax's product with a
    float converted from a bool into a select (funcarray's lowering converts through uint8,
    ``conversions.py``)."""
    if spec.name not in ("multiply", "divide", "true_divide") or not any(
            np.asarray(v).dtype == np.bool_ for v in case.values):
        return np.zeros(shape, bool)
    return np.isnan(got) & (want == 0)


_DIVISIONS = frozenset({"divide", "true_divide", "floor_divide", "divmod", "remainder",
                        "mod"})


def xla_divides_by_a_broadcast_reciprocal(spec, case, got, want, shape):
    """Elements of a float division whose divisor is broadcast (a smaller array or a
    scalar), under XLA (jax; funcarray's jit too): XLA's simplifier rewrites a / broadcast(b)
    as a * broadcast(1 / b), which rounds twice (-65504 / 3 in float16 is -21824, not
    -21840; a floor quotient or remainder then moves by a step) and is 0 or NaN where 1 / b is
    subnormal and flushed (inf / -3.4e38 in bfloat16 is NaN). Eager mode divides, as NumPy.
    Allowed: a difference up to one step of the floor (1, or the divisor for a remainder)
    plus two ulps, or anything where 1 / b is subnormal in the computing precision."""
    divisor = np.asarray(case.values[1]) if len(case.values) > 1 else None
    if (spec.name not in _DIVISIONS or kind_of(want.dtype) != "f"
            or divisor is None or divisor.shape == shape):
        return np.zeros(shape, bool)
    computed_in = np.float32 if dtypes.is_half_precision(want.dtype) else want.dtype
    with np.errstate(all="ignore"):
        y = np.abs(np.broadcast_to(divisor, shape).astype(np.float64))
        flushed = y * float(np.finfo(computed_in).tiny) > 1
        g, w = got.astype(np.float64), want.astype(np.float64)
        step = np.maximum(1.0, y) + 2 * float(dtypes.finfo(want.dtype).eps) * np.abs(w)
        return flushed | (np.abs(g - w) <= step)


def jax_weak_bool(got, want) -> bool:
    """jax marks some bool results weak (logical_and(0, bool array)); a bool's weak type
    changes no promotion (bool is below every kind), funcarray's bools are strong."""
    (g, g_weak), (w, w_weak) = got, want
    return g.dtype == w.dtype == np.bool_ and w_weak and not g_weak


def _fits(value, dtype):
    info = np.iinfo(dtype)
    return int(info.min) <= value <= int(info.max)


_INT_DIVISIONS = frozenset({"floor_divide", "remainder", "mod", "fmod", "divmod"})


def integer_division_by_zero(spec, case, what, shape):
    """Elements of an integer quotient or remainder whose divisor is zero, eager and jit:
    NumPy's kernels, funcarray's lowering and jax's differ there (True % False is 1 eagerly
    and under funcarray's jit, 0 in jax)."""
    if spec.name not in _INT_DIVISIONS:
        return np.zeros(shape, bool)
    return np.broadcast_to(np.asarray(case.values[1]) == 0, shape)


def known_defect(spec, case) -> str | None:
    """Operands where funcarray differs from jax on purpose (docs/decisions.md): the draw
    skips them. Each names the difference."""
    if spec.name in ("maximum", "minimum") and any(
            np.iscomplexobj(v) and np.isnan(np.asarray(v)).any() for v in case.values):
        return ("complex maximum/minimum propagate NaN as NumPy and StableHLO say; jax's "
                "ignore it (docs/decisions.md)")
    return None


# --------------------------------------------------------------------------------------------
# Comparison
# --------------------------------------------------------------------------------------------


def _close(got, want, spec, dtype, allowed_parts, extra_ulps):
    """Elementwise, per real and imaginary part: equal (NaN equal NaN, zero signs equal
    unless unspecified) or, for the inexact tolerance classes, within the op table's ulps
    of the result (``extra_ulps`` more where an allowance says); or allowed."""
    if kind_of(dtype) in "biu":
        return (got == want) | allowed_parts
    rtol, _ = tolerance(spec.tol, dtype)
    eps = tolerance("arith", dtype)[0]
    bound = (rtol + extra_ulps * eps) * np.maximum(
        1.0, np.where(np.isfinite(want), np.abs(want.astype(np.complex128)), 0))
    ok = np.ones(want.shape, bool)
    for g, w, allowed in zip(parts(got), parts(want), allowed_parts):
        g, w = g.astype(np.float64), w.astype(np.float64)
        with np.errstate(invalid="ignore"):
            same = (g == w) | (np.isnan(g) & np.isnan(w))
            if not zero_sign_unspecified(spec, dtype):
                same &= (g != 0) | (np.signbit(g) == np.signbit(w))
            near = np.isfinite(g) & np.isfinite(w) & (np.abs(g - w) <= bound)
        ok &= same | near | allowed
    return ok


def _check_against_jax(spec, case, what, got, jax_out):
    """``got`` (eager or jit) against jax's ``(outputs, x64)``: both raise, or agree."""
    want, x64 = jax_out
    if (funcarray_refuses_int_out_of_range(case, got, want)
            or jax_refuses_ints_beyond_64_bits(spec, case, got, want)):
        return
    if jax_wraps_ints_on_the_way_to_floats(case, got) and not isinstance(want, Raised):
        again = _run_jax(spec, case, cast_to=got[0][0].dtype)[0]
        if not isinstance(again, Raised):  # (the weak types are the first call's)
            want = [(w, weak) for (w, _), (_, weak) in zip(again, want)]
    if isinstance(want, Raised) or isinstance(got, Raised):
        assert isinstance(want, Raised) and isinstance(got, Raised), (
            f"{spec.name}{case}: {what} {got!r}, jax {want!r}")
        return
    assert len(got) == len(want), f"{spec.name}{case}: {what} {len(got)} outputs"
    for k, ((g, g_weak), (w, w_weak)) in enumerate(zip(got, want)):
        where = f"{spec.name}{case}, output {k}, {what}"
        assert g.shape == w.shape, f"{where}: shape {g.shape}, jax {w.shape}"
        if jax_strong_internal_constant(spec, (g, g_weak), (w, w_weak)):
            w_weak = True
        if jax_angle_of_a_0d_float_is_its_default_float(spec, case, (g, g_weak), (w, w_weak)):
            w = w.astype(g.dtype)
        if weak_default_is_32_bit((g, g_weak), (w, w_weak), x64):
            w = _run_jax(spec, case, cast_to=g.dtype)[0][k][0]
        assert g.dtype == w.dtype, f"{where}: dtype {g.dtype}, jax {w.dtype}"
        if jax_weak_bool((g, g_weak), (w, w_weak)):
            w_weak = False
        assert g_weak == w_weak, f"{where}: weak_type {g_weak}, jax {w_weak}"
        if kind_of(g.dtype) in "fc":
            allowed = xla_flushes_subnormals(case, what, g, w, g.dtype)
            allowed = [a | xla_divides_by_a_broadcast_reciprocal(spec, case, g, w, w.shape)
                       for a in allowed]
            nan_parts = (xla_complex_nanparts(spec, case, what, w.shape)
                         | complex_non_finite_results(case, g, w, w.shape)
                         | complex_power_limits(spec, case, g, w, w.shape)
                         | xla_atan_at_its_branch_points(spec, case, g, w, w.shape)
                         | jax_bool_products_are_selects(spec, case, g, w, w.shape)
                         | standard_floor_quotients_of_infinities(spec, case, g, w, w.shape))
            allowed = [a | nan_parts for a in allowed]
        else:
            allowed = (xla_reads_subnormal_operands_as_zero(case, what, w.shape)
                       | integer_division_by_zero(spec, case, what, w.shape)
                       | jax_integer_power_of_large_exponents(spec, case, g, w.shape))
        ok = _close(g, w, spec, g.dtype, allowed, jax_exp2_is_exp_of_a_product(spec, case))
        assert ok.all(), f"{where}:\n  got {g.tolist()}\n  jax {w.tolist()}"


@pytest.mark.parametrize("spec", _FUNCTIONS, ids=lambda s: s.name)
@_EXAMPLES
@given(data=st.data())
def test_eager_and_jit_match_jax(spec, data):
    """Any dtype (where the op rejects the dtype's kind, all three raise, funcarray with
    TypeError), shapes with broadcasting, edge values, Python scalars."""
    case = data.draw(operands(spec.nargs, spec.domains, condition=spec.condition),
                     label="operands")
    assume(known_defect(spec, case) is None)
    check_case(spec, case)


def check_case(spec, case):
    """Run ``case`` through funcarray eager, funcarray jit and jax, and compare."""
    jax_out = _run_jax(spec, case)
    eager, jitted = _run_eager(spec, case), _run_jit(spec, case)
    # Rejected kinds among arrays alone (a Python scalar can promote a bool to an int).
    rejected = len(_arrays(case)) == len(case.values) and (
        {kind_of(a.dtype) for a in _arrays(case)} - set(spec.kinds + "b" * spec.condition))
    for got, what in ((eager, "eager"), (jitted, "jit")):
        if rejected or jax_takes_complex(spec, case):
            assert isinstance(got, Raised) and isinstance(got.exc, TypeError), (
                f"{spec.name}{case}: {what} {got!r} on rejected kinds")
        if not jax_takes_complex(spec, case):
            _check_against_jax(spec, case, what, got, jax_out)
