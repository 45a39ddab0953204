"""Differential test of ``funcarray.numpy``'s numeric functions outside the elementwise op
table (floating-point decomposition, integer divisors, closeness and kind tests) against
jax: funcarray eager, funcarray jit and ``jax.numpy`` on the same operands must agree on
whether they raise, and otherwise on shape, dtype, weak type and values.

Each operand has its own dtype (ldexp's exponent, gcd's second integer): arrays of any of
the dtypes (0-d, empty, broadcasting shapes from differential_values), values mixing a range
with each dtype's edge values (signed zeros, infinities, NaN, extremes, subnormals, integer
minimum and maximum), and Python scalars of every kind in place of an operand. Parameters
(nan_to_num's replacements, isclose's tolerances) are drawn per function and closed over
under jit. jax runs with x64 on only when an array is 64-bit, as in the other differential
tests.

Results are compared exactly (each is an element of the operands, a bit-level decomposition,
an integer or a bool) except i0's, within a few ulps; every other difference allowed is a
named function below.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from differential_compare import (
    BITS_64,
    Raised,
    attempt,
    parts,
    reproducer,
    same_kind_of_answer,
    subnormal,
)
from differential_values import SHAPES, array_of, python_scalars
from hypothesis import given, settings
from hypothesis import strategies as st
from op_table import ALL_DTYPES, ANY, WIDE, Domain, dtypes_of_kinds, kind_of
from test_differential_jax import funcarray_refuses_int_out_of_range

import funcarray as fa
import funcarray.numpy as fnp
from funcarray import dtypes

# Every example compiles a funcarray program and a few jax ones: the CI budget is a fixed
# number of examples per function; the thorough profile scales it (conftest.py).
_EXAMPLES = settings(max_examples=5)

# ldexp's exponents: beyond every float's exponent range both ways, next to small ones.
_EXPONENTS = Domain("ldexp exponent", -1200.0, 1200.0)
_INTS = dtypes_of_kinds("iu")


@dataclasses.dataclass(frozen=True)
class NumericOp:
    """One function: its operands' dtypes (one tuple of choices per operand; an operand
    drawn from ``ALL_DTYPES`` a third of the time, so that refused kinds are compared), its
    operands' domain, its parameters (Hypothesis strategies, closed over under jit), its
    number of results and the ulps allowed to its float results."""

    name: str
    operand_dtypes: tuple
    domain: Domain = ANY
    params: dict = dataclasses.field(default_factory=dict)
    results: int = 1
    ulps: int = 0

    @property
    def fn(self) -> Callable:
        return getattr(fnp, self.name)

    @property
    def jax_fn(self) -> Callable:
        return getattr(jnp, self.name)


_FLOATS = dtypes_of_kinds("f")
_REAL = dtypes_of_kinds("biuf")
_REPLACEMENT = st.one_of(st.none(), st.sampled_from(
    (0.0, -1.5, 7, 1e300, -np.inf, np.nan, True, 2**40)))
_TOLERANCE = st.sampled_from((0.0, 1e-5, 0.5, 1, 1e-300))

NUMERIC_OPS = (
    NumericOp("frexp", (_FLOATS,), results=2),
    NumericOp("modf", (_FLOATS,), results=2),
    NumericOp("ldexp", (_FLOATS, _INTS), domain=_EXPONENTS),
    NumericOp("gcd", (_INTS, _INTS), domain=WIDE),
    NumericOp("lcm", (_INTS, _INTS), domain=WIDE),
    # i0 sums a series in the computing precision: its rounding errors add up to a few ulps.
    NumericOp("i0", (_REAL,), ulps=8),
    NumericOp("spacing", (_FLOATS,)),
    NumericOp("nan_to_num", (ALL_DTYPES,), params={
        "nan": _REPLACEMENT, "posinf": _REPLACEMENT, "neginf": _REPLACEMENT}),
    NumericOp("isclose", (ALL_DTYPES, ALL_DTYPES), params={
        "rtol": _TOLERANCE, "atol": _TOLERANCE, "equal_nan": st.booleans()}),
    NumericOp("iscomplex", (ALL_DTYPES,)),
    NumericOp("isreal", (ALL_DTYPES,)),
)

# Assigned names that are no row, with the reason.
_EXCLUDED = {
    "real_if_close": "neither funcarray.numpy nor jax.numpy has it (its result dtype depends "
                     "on the values, which jit cannot trace)",
}
_ASSIGNED = ("frexp", "modf", "ldexp", "gcd", "lcm", "i0", "spacing", "nan_to_num", "isclose",
             "iscomplex", "isreal", "real_if_close")


def test_every_assigned_function_is_in_the_table():
    names = {op.name for op in NUMERIC_OPS}
    assert names.isdisjoint(_EXCLUDED)
    assert names | set(_EXCLUDED) == set(_ASSIGNED)
    for name in names:
        assert hasattr(fnp, name) and hasattr(jnp, name), name
    for name in _EXCLUDED:
        assert not hasattr(fnp, name), f"{name} is public now: give it a row"


# --------------------------------------------------------------------------------------------
# Operands
# --------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Call:
    """The operands of one call (NumPy arrays and Python scalars, in argument order) and
    its parameters, printed as a reproducer."""

    values: tuple
    kwargs: dict

    @property
    def arrays(self) -> list:
        return [v for v in self.values if isinstance(v, np.ndarray)]

    def with_arrays(self, arrays) -> tuple:
        it = iter(arrays)
        return tuple(next(it) if isinstance(v, np.ndarray) else v for v in self.values)

    def __repr__(self):
        shown = ", ".join(map(reproducer, self.values))
        return f"({shown}, **{self.kwargs!r})"


@st.composite
def calls(draw, op):
    nargs = len(op.operand_dtypes)
    shapes = draw(st.sampled_from(SHAPES[nargs]), label="shapes")
    # A Python scalar in place of one operand (of the only one a sixth of the time).
    scalar_at = draw(st.integers(-1 if nargs > 1 else -5, nargs - 1), label="scalar at")
    values = []
    for i, (shape, choices) in enumerate(zip(shapes, op.operand_dtypes)):
        if i == scalar_at:
            values.append(draw(python_scalars(op.domain), label=f"scalar {i}"))
            continue
        pool = draw(st.sampled_from((choices, choices, ALL_DTYPES)))
        dtype = draw(st.sampled_from(pool), label=f"dtype {i}")
        values.append(draw(array_of(dtype, shape, op.domain), label=f"array {i}"))
    kwargs = {}
    for name, strategy in op.params.items():
        value = draw(strategy, label=name)
        if value is not None:
            kwargs[name] = value
    return Call(tuple(values), kwargs)


# --------------------------------------------------------------------------------------------
# Running the three implementations
# --------------------------------------------------------------------------------------------


def _run_eager(op, call):
    return attempt(lambda: op.fn(*call.with_arrays(map(fnp.asarray, call.arrays)),
                                 **call.kwargs), op.results > 1)


def _run_jit(op, call):
    def fn(*arrays):
        return op.fn(*call.with_arrays(arrays), **call.kwargs)

    return attempt(lambda: fa.jit(fn)(*map(fnp.asarray, call.arrays)), op.results > 1)


def _x64(call) -> bool:
    """x64 on where an array is 64-bit or the arrays promote to a 64-bit dtype (uint32 with
    int8 is int64 in funcarray, int32 in jax with x64 off)."""
    arrays = call.arrays
    with jax.enable_x64(True):
        promoted = jnp.result_type(*(a.dtype for a in arrays)) if arrays else None
    return any(np.dtype(d) in BITS_64 for d in [promoted, *(a.dtype for a in arrays)]
               if d is not None)


def _run_jax(op, call, values=None):
    """jax's results and whether x64 was on; ``values``: other operands in place of the
    call's (the same arrays, Python scalars converted)."""
    values = call.values if values is None else values

    def run(x64):
        with jax.enable_x64(x64):
            return attempt(lambda: op.jax_fn(*(
                jnp.asarray(v) if isinstance(v, np.ndarray) else v for v in values),
                **call.kwargs), op.results > 1)

    x64 = _x64(call)
    out = run(x64)
    if jax_x64_off_refuses_wide_python_int_parameters(call, out, x64):
        return run(True), True
    return out, x64


def jax_x64_off_refuses_wide_python_int_parameters(call, out, x64) -> bool:
    """With x64 off jax refuses a Python int beyond int32 even where it becomes a float
    (nan_to_num(float32 array, neginf=-2**40), modf(-2**31 - 1)); funcarray converts it.
    jax is asked again with x64 on (python_scalar_default_is_32_bit then reads its float64
    results as float32)."""
    return (not x64 and isinstance(out, Raised) and isinstance(out.exc, OverflowError)
            and any(type(v) is int and not -2**31 <= v < 2**31
                    for v in (*call.values, *call.kwargs.values())))


# --------------------------------------------------------------------------------------------
# Allowances
# --------------------------------------------------------------------------------------------


def xla_reads_subnormal_operands_as_zero(op, call, what, shape):
    """Elements of the eager result with a subnormal operand (a part of one): XLA on the
    CPU reads such operands as zero, NumPy's kernels (eager mode) as themselves. Under jit
    too for frexp, whose subnormal mantissas are flushed in both libraries, differently
    (frexp(3e-40) is 0.0 * 2**-149 under funcarray's jit, 0.5 * 2**-149 in jax, NumPy's
    0.8167 * 2**-131)."""
    allowed = np.zeros(shape, bool)
    if what == "eager" or op.name == "frexp":
        for v in call.arrays:
            if kind_of(v.dtype) in "fc" and v.size:
                for part in parts(v):
                    allowed |= np.broadcast_to(subnormal(part, v.dtype), shape)
    return allowed


def xla_flushes_subnormal_results(g, w, dtype):
    """XLA on the CPU flushes subnormal results to zero; NumPy's kernels keep them: a zero
    or subnormal where the other has a subnormal."""
    return ((subnormal(g, dtype) & ((w == 0) | subnormal(w, dtype)))
            | (subnormal(w, dtype) & ((g == 0) | subnormal(g, dtype))))


def jax_gcd_loops_forever_at_the_signed_minimum(op, call):
    """jax's gcd and lcm never end where an operand is the signed minimum of the result
    dtype (their Euclid loop's absolute value of int8's -128 is -128 again). Returns that
    minimum where the call has it, else None: jax is then asked with those elements 0 (for
    shape, dtype and weak type) and NumPy's gcd and lcm, which wrap as funcarray's, give
    the values there."""
    if op.name not in ("gcd", "lcm"):
        return None
    with jax.enable_x64(True):
        dtype = np.dtype(jnp.result_type(*call.values))
    if dtype.kind != "i":
        return None
    lowest = int(np.iinfo(dtype).min)
    has = any((isinstance(v, np.ndarray) or type(v) is int) and (np.asarray(v) == lowest).any()
              for v in call.values)
    return lowest if has else None


def _jax_with_numpy_at_the_minimum(op, call, lowest):
    at_minimum = [np.asarray(v) == lowest if isinstance(v, np.ndarray) or type(v) is int
                  else np.asarray(False) for v in call.values]
    cleared = tuple(np.where(m, 0, v).astype(v.dtype) if isinstance(v, np.ndarray)
                    else 0 if m else v for v, m in zip(call.values, at_minimum))
    out, x64 = _run_jax(op, Call(cleared, call.kwargs))
    if isinstance(out, Raised):
        return out, x64
    ((w, w_weak),) = out
    mask = np.logical_or.reduce(np.broadcast_arrays(*at_minimum))
    with np.errstate(all="ignore"):
        numpy = getattr(np, op.name)(*(np.asarray(v).astype(w.dtype) for v in call.values))
    return [(np.where(mask, numpy, w).astype(w.dtype), w_weak)], x64


def python_ints_are_32_bit(op, call, got, want, x64) -> bool:
    """funcarray refuses a Python int beyond int32 where it stays an integer (ldexp's
    exponent 2**31), its default int without a switch (README, "Dtypes"); jax with x64 on
    (a float64 array beside it) reads it as int64. Allowed where jax with x64 off refuses
    it too."""
    return (x64 and isinstance(got, Raised) and isinstance(got.exc, OverflowError)
            and not isinstance(want, Raised)
            and any(type(v) is int and not -2**31 <= v < 2**31 for v in call.values)
            and _refused_without_x64(op, call))


def _refused_without_x64(op, call) -> bool:
    with jax.enable_x64(False):
        out = attempt(lambda: op.jax_fn(*call.with_arrays(map(jnp.asarray, call.arrays)),
                                        **call.kwargs), op.results > 1)
    return isinstance(out, Raised) and isinstance(out.exc, OverflowError)


_JAX_STRONG_RESULTS = frozenset({"spacing", "gcd", "lcm"})


def jax_result_is_strong(op, g_weak, w_weak) -> bool:
    """jax's spacing of a weak operand, and gcd and lcm of weak operands (a bool array and
    a Python int), are strong (their results come from strong constants and loops);
    funcarray's constants are weak, as for the elementwise ops listed in
    test_elementwise.py's JAX_STRONG_CONSTANT_QUIRKS."""
    return op.name in _JAX_STRONG_RESULTS and g_weak and not w_weak


def python_scalar_default_is_32_bit(call, g, w, x64) -> bool:
    """With x64 on (a 64-bit integer array), jax takes a Python int or float operand of a
    float result as float64 (ldexp(300, int64 array) is float64); funcarray's Python scalar
    default is float32 without a switch (README, "Dtypes"). jax is asked again with the
    Python scalars as float32 arrays."""
    return (x64 and g.dtype == np.float32 and w.dtype == np.float64
            and any(type(v) in (bool, int, float) for v in call.values)
            and not any(np.dtype(a.dtype) == np.float64 for a in call.arrays))


def python_float_beside_integers_is_32_bit(op, call, g, x64) -> bool:
    """isclose of integer arrays and a Python float or complex under x64 (a 64-bit array):
    jax computes in float64, funcarray in float32, its Python float default without a
    switch (README, "Dtypes"; jax with x64 off does the same). jax is asked again with the
    integer arrays as float32, which the Python scalar then keeps."""
    return (op.name == "isclose" and x64 and g.dtype == np.bool_
            and any(type(v) in (float, complex) for v in call.values)
            and all(kind_of(a.dtype) in "biu" for a in call.arrays))


def _with_float32_arrays(call) -> tuple:
    return tuple(v.astype(np.float32) if isinstance(v, np.ndarray) else v
                 for v in call.values)


def _with_32_bit_scalars(call) -> tuple:
    return tuple(v if isinstance(v, np.ndarray) else np.asarray(v, np.float32)
                 for v in call.values)


# --------------------------------------------------------------------------------------------
# Comparison
# --------------------------------------------------------------------------------------------


def _values_match(op, call, what, g, w):
    allowed = xla_reads_subnormal_operands_as_zero(op, call, what, w.shape)
    if kind_of(g.dtype) in "biu":
        return (g == w) | allowed
    computed_in = np.float32 if dtypes.is_half_precision(g.dtype) else g.dtype
    eps = float(dtypes.finfo(computed_in).eps)
    ok = np.ones(w.shape, bool)
    for gp, wp in zip(parts(g), parts(w)):
        flushed = xla_flushes_subnormal_results(gp, wp, g.dtype)
        gp, wp = gp.astype(np.float64), wp.astype(np.float64)
        with np.errstate(invalid="ignore"):
            same = (gp == wp) | (np.isnan(gp) & np.isnan(wp))
            same &= (gp != 0) | (np.signbit(gp) == np.signbit(wp))
            near = (np.isfinite(gp) & np.isfinite(wp)
                    & (np.abs(gp - wp) <= op.ulps * eps * np.abs(wp)))
        ok &= same | near | flushed | allowed
    return ok


def _read_as_funcarray(op, call, got, want, x64):
    """jax's results with the allowances on dtypes and weak types applied."""
    if isinstance(got, Raised) or isinstance(want, Raised) or len(got) != len(want):
        return want
    read = []
    for k, ((g, g_weak), (w, w_weak)) in enumerate(zip(got, want)):
        if python_scalar_default_is_32_bit(call, g, w, x64):
            w = _run_jax(op, call, _with_32_bit_scalars(call))[0][k][0]
        if python_float_beside_integers_is_32_bit(op, call, g, x64):
            w = _run_jax(op, call, _with_float32_arrays(call))[0][k][0]
        read.append((w, w_weak or jax_result_is_strong(op, g_weak, w_weak)))
    return read


def _check_against_jax(op, call, what, got, jax_out):
    want, x64 = jax_out
    if (funcarray_refuses_int_out_of_range(call, got, want)
            or python_ints_are_32_bit(op, call, got, want, x64)):
        return
    want = _read_as_funcarray(op, call, got, want, x64)
    if same_kind_of_answer(f"{op.name}{call}, {what}", got, want):
        for k, ((g, _), (w, _)) in enumerate(zip(got, want)):
            ok = _values_match(op, call, what, g, w)
            assert ok.all(), (f"{op.name}{call}, result {k}, {what}:\n  got {g.tolist()}\n"
                              f"  jax {w.tolist()}")


def check_case(op, call):
    """Run ``call`` through funcarray eager, funcarray jit and jax, and compare."""
    lowest = jax_gcd_loops_forever_at_the_signed_minimum(op, call)
    jax_out = (_run_jax(op, call) if lowest is None
               else _jax_with_numpy_at_the_minimum(op, call, lowest))
    for what, run in (("eager", _run_eager), ("jit", _run_jit)):
        _check_against_jax(op, call, what, run(op, call), jax_out)


@pytest.mark.parametrize("op", NUMERIC_OPS, ids=lambda op: op.name)
@_EXAMPLES
@given(data=st.data())
def test_eager_and_jit_match_jax(op, data):
    check_case(op, data.draw(calls(op), label="call"))


# Defects this table found, fixed in funcarray: each call as it first failed.
_REGRESSIONS = (
    # a bool's imaginary part met a weak int 0: iscomplex and isreal of bools were weak
    ("iscomplex", Call((np.array([True, False]),), {})),
    ("isreal", Call((False,), {})),
    # a Python int replacement beyond int32 was refused on its way to x's float dtype
    ("nan_to_num", Call((np.array([-np.inf, np.nan, complex(np.inf, -np.inf)]),),
                        {"neginf": 2**40, "posinf": -2**63})),
    ("nan_to_num", Call((np.array([-np.inf, 1.0], np.float16),), {"neginf": -2**40})),
)


@pytest.mark.parametrize(("name", "call"), _REGRESSIONS, ids=[n for n, _ in _REGRESSIONS])
def test_regressions_match_jax(name, call):
    check_case(next(op for op in NUMERIC_OPS if op.name == name), call)
