"""Every elementwise function and every operator of the Array API standard 2024.12 on
funcarray.numpy against array-api-strict: each dtype (pair) the standard allows, edge values
(NaN, infinities, signed zeros), Python scalars on either side, eagerly and under jit.

CI compares every case eagerly and a few per function under jit (compiling dominates); the
thorough profile jits them all. Allowances: ``tests/array_api_strict_oracle.py``."""

from __future__ import annotations

import itertools
import math
import operator

import numpy as np
import pytest
from array_api_strict_oracle import DTYPES, Case, check_cases, operand

UNARY = ["abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "bitwise_invert", "ceil",
         "conj", "cos", "cosh", "exp", "expm1", "floor", "imag", "isfinite", "isinf", "isnan",
         "log", "log10", "log1p", "log2", "logical_not", "negative", "positive", "real",
         "reciprocal", "round", "sign", "signbit", "sin", "sinh", "sqrt", "square", "tan",
         "tanh", "trunc"]
BINARY = ["add", "atan2", "bitwise_and", "bitwise_left_shift", "bitwise_or",
          "bitwise_right_shift", "bitwise_xor", "copysign", "divide", "equal", "floor_divide",
          "greater", "greater_equal", "hypot", "less", "less_equal", "logaddexp", "logical_and",
          "logical_or", "logical_xor", "maximum", "minimum", "multiply", "nextafter",
          "not_equal", "pow", "remainder", "subtract"]
# operator dunder -> the Python operator that calls it with the array on the left; the
# reflected ``__r*__`` is what a Python scalar on the left calls
BINARY_OPERATORS = {
    "__add__": operator.add, "__sub__": operator.sub, "__mul__": operator.mul,
    "__truediv__": operator.truediv, "__floordiv__": operator.floordiv,
    "__mod__": operator.mod, "__pow__": operator.pow, "__and__": operator.and_,
    "__or__": operator.or_, "__xor__": operator.xor, "__lshift__": operator.lshift,
    "__rshift__": operator.rshift, "__eq__": operator.eq, "__ne__": operator.ne,
    "__lt__": operator.lt, "__le__": operator.le, "__gt__": operator.gt, "__ge__": operator.ge}
UNARY_OPERATORS = {"__neg__": operator.neg, "__pos__": operator.pos,
                   "__invert__": operator.invert, "__abs__": abs}
# Python scalars mixed with arrays (the standard defines a scalar of the array's kind)
SCALARS = (True, False, 0, 2, -3, 2.5, -0.0, math.inf, math.nan, 1.5 - 0.5j)
# operands: 0-d, empty, edge values, and a 2-d block
UNARY_SHAPES = ((), (0,), (9,), (2, 3))
# Jitted cases per test in CI (the thorough profile jits every case)
JIT_PER_TEST = 1


# The standard leaves these results' zero signs open: sign(±0) is "0"; maximum and minimum
# of +0 and -0 may be either.
_ZERO_SIGN_OPEN = {"sign", "maximum", "minimum"}


def _unary_cases(name, fn):
    return [Case(f"{name}({dtype}{shape})", lambda xp, x: fn(xp)(x),
                 (operand(dtype, shape, f"{name}{dtype}{shape}", "edge"),),
                 signed_zeros=name not in _ZERO_SIGN_OPEN)
            for dtype in DTYPES for shape in UNARY_SHAPES]


def _pair_cases(name, fn):
    """Every dtype pair, broadcast (8, 1) against (8,): edge values meet edge values (none
    beside a complex operand), the right operand positive for integers (the standard leaves
    integer division by zero, negative shifts and negative integer powers open)."""
    cases = []
    edge = "finite-edge" if name in _FINITE_ONLY else "edge"
    for d1, d2 in itertools.product(DTYPES, DTYPES):
        complex_pair = "complex" in d1 + d2
        right = "pos" if np.dtype(d2).kind in "iu" else "any" if complex_pair else edge
        cases.append(Case(f"{name}({d1}, {d2})", fn,
                          (operand(d1, (8, 1), f"{name}{d1}{d2}",
                                   "any" if complex_pair else edge),
                           operand(d2, (8,), f"{name}{d2}{d1}", right)),
                          signed_zeros=name not in _ZERO_SIGN_OPEN))
    return cases


# Integer division by zero: the standard leaves it open (no zero divisors for integers)
_DIVISIONS = {"floor_divide", "remainder", "__floordiv__", "__mod__", "__ifloordiv__",
              "__imod__"}
# Where NumPy departs from the standard at infinities (the oracle's allowances)
_FINITE_ONLY = {"floor_divide", "__floordiv__", "__ifloordiv__"}
# Under jit, XLA folds x + 0 into x (the oracle's allowances)
_SUMS = {"add", "subtract", "__add__", "__sub__", "__iadd__", "__isub__"}


def _scalar_cases(name, left, right=None):
    """Each dtype with each Python scalar, on the right (``left(xp, x, s)``) and on the left
    (``right(xp, s, x)``); complex scalars and complex arrays meet no edge values."""
    cases = []
    edge = "finite-edge" if name in _FINITE_ONLY else "edge"
    for dtype in DTYPES:
        integer = np.dtype(dtype).kind in "iub"
        x = operand(dtype, (2, 3), f"{name}{dtype}scalar", edge)
        plain = operand(dtype, (2, 3), f"{name}{dtype}scalar")
        divisor = operand(dtype, (2, 3), f"{name}{dtype}divisor", "pos") if integer else x
        for s in SCALARS:
            complex_case = isinstance(s, complex) or np.dtype(dtype).kind == "c"
            if (complex_case or name in _FINITE_ONLY) and not math.isfinite(abs(s)) or (
                    complex_case and s == 0):
                continue  # complex special values, NumPy's infinities: the oracle's allowances
            signed_zeros = (name not in _ZERO_SIGN_OPEN
                            and ("eager" if name in _SUMS and s == 0 else True))
            if not (integer and name in _DIVISIONS and s == 0):
                cases.append(Case(f"{name}({dtype}, {s!r})", lambda xp, x, s=s: left(xp, x, s),
                                  (plain if complex_case else x,), signed_zeros=signed_zeros))
            if right is not None:
                cases.append(Case(f"{name}({s!r}, {dtype})",
                                  lambda xp, x, s=s: right(xp, s, x),
                                  (plain if complex_case else divisor,),
                                  signed_zeros=signed_zeros))
    return cases


@pytest.mark.parametrize("name", UNARY)
def test_unary_function(name):
    cases = _unary_cases(name, lambda xp: getattr(xp, name))
    assert check_cases(cases, jit_count=JIT_PER_TEST, key=name) > 0


@pytest.mark.parametrize("name", BINARY)
def test_binary_function_over_dtype_pairs(name):
    cases = _pair_cases(name, lambda xp, x, y: getattr(xp, name)(x, y))
    assert check_cases(cases, jit_count=JIT_PER_TEST, key=name) > 0


@pytest.mark.parametrize("name", BINARY)
def test_binary_function_with_python_scalars(name):
    cases = _scalar_cases(name, lambda xp, x, s: getattr(xp, name)(x, s),
                          lambda xp, s, x: getattr(xp, name)(s, x))
    assert check_cases(cases, jit_count=JIT_PER_TEST, key=name + "scalar") > 0


@pytest.mark.parametrize("name", sorted(BINARY_OPERATORS))
def test_binary_operator(name):
    """``x op y`` over dtype pairs, ``x op s`` and ``s op x`` (the reflected operator) with
    Python scalars, and ``x op= y`` (which rebinds ``x``: arrays are immutable)."""
    op = BINARY_OPERATORS[name]
    cases = _pair_cases(name, lambda xp, x, y: op(x, y))
    cases += _scalar_cases(name, lambda xp, x, s: op(x, s), lambda xp, s, x: op(s, x))
    if name not in ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"):
        in_place = getattr(operator, "__i" + name[2:])
        cases += _pair_cases("__i" + name[2:], lambda xp, x, y: in_place(x, y))
        cases += _scalar_cases("__i" + name[2:], lambda xp, x, s: in_place(x, s))
    assert check_cases(cases, jit_count=JIT_PER_TEST, key=name) > 0


def test_matmul_operator():
    """``x @ y`` (and ``y.__rmatmul__(x)``) and ``x @= y`` over dtype pairs, matrix by matrix
    and matrix by vector."""
    cases = []
    for d1, d2 in itertools.product(DTYPES, DTYPES):
        x = operand(d1, (2, 3), f"matmul{d1}{d2}", "small")
        for y in (operand(d2, (3, 4), f"matmul{d2}{d1}", "small"),
                  operand(d2, (3,), f"mv{d2}{d1}", "small")):
            cases.append(Case(f"__matmul__({d1}{x.shape}, {d2}{y.shape})",
                              lambda xp, x, y: x @ y, (x, y)))
            cases.append(Case(f"__rmatmul__({d2}{y.shape}, {d1}{x.shape})",
                              lambda xp, x, y: y.__rmatmul__(x), (x, y)))
        square = operand(d2, (3, 3), f"imatmul{d2}{d1}", "small")
        cases.append(Case(f"__imatmul__({d1}, {d2})", lambda xp, x, y: operator.imatmul(x, y),
                          (x, square)))
    assert check_cases(cases, jit_count=JIT_PER_TEST, key="matmul") > 0


@pytest.mark.parametrize("name", sorted(UNARY_OPERATORS))
def test_unary_operator(name):
    op = UNARY_OPERATORS[name]
    cases = _unary_cases(name, lambda xp: op)
    assert check_cases(cases, jit_count=JIT_PER_TEST, key=name) > 0
