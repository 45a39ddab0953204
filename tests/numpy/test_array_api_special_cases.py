"""funcarray.numpy against the Array API standard's special cases of its elementwise
functions (the table in ``tests/array_api_special_cases.py``), in float32 and float64,
eagerly and under jit."""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np
import pytest
from array_api_special_cases import (
    COMPLEX_SPECIAL_CASES,
    CONSTANTS,
    SPECIAL_CASES,
    VALUE_CLASSES,
)

import funcarray as fa
import funcarray.numpy as fnp

_SPECIAL_VALUES = {"nan": math.nan, "+inf": math.inf, "-inf": -math.inf, "+0": 0.0,
                   "-0": -0.0}


def _values(token) -> tuple[float, ...]:
    if isinstance(token, (int, float)):
        return (float(token),)
    if token in _SPECIAL_VALUES:
        return (_SPECIAL_VALUES[token],)
    return VALUE_CLASSES[token]


def _operands(args):
    """Every combination of the row's operand values (a second operand may refer to the
    first)."""
    if len(args) == 1:
        return [(v,) for v in _values(args[0])]
    out = []
    for x1 in _values(args[0]):
        if args[1] == "x1":
            out.append((x1, x1))
        elif args[1] == "-x1":
            out.append((x1, -x1))
        else:
            out.extend((x1, x2) for x2 in _values(args[1]))
    return out


def _expected(result, operands):
    if isinstance(result, bool):
        return result
    if isinstance(result, (int, float)):
        return float(result)
    if result in _SPECIAL_VALUES:
        return _SPECIAL_VALUES[result]
    if result == "0":
        return result
    if result in CONSTANTS:
        return CONSTANTS[result]
    x1 = operands[0]
    x2 = operands[-1]
    return {"x": x1, "x1": x1, "x2": x2, "|x1|": abs(x1), "-|x1|": -abs(x1),
            "|x2|": abs(x2)}[result]


_BY_FUNCTION: dict[str, list] = defaultdict(list)
for _name, _args, _result in SPECIAL_CASES:
    for _ops in _operands(_args):
        _BY_FUNCTION[_name].append((_ops, _expected(_result, _ops), _args, _result))


def _matches(got, want, dtype) -> bool:
    if isinstance(want, bool):
        return bool(got) is want
    if want == "0":  # the standard leaves the zero's sign open
        return got == 0
    want = float(np.asarray(want, dtype))  # the operand's dtype's nearest value
    if math.isnan(want):
        return math.isnan(got)
    if want == 0 or math.isinf(want):
        return got == want and math.copysign(1, got) == math.copysign(1, want)
    return math.isclose(got, want, rel_tol=4 * float(np.finfo(dtype).eps))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(_BY_FUNCTION))
def test_special_cases(name, dtype):
    rows = _BY_FUNCTION[name]
    nargs = len(rows[0][0])
    with np.errstate(all="ignore"):
        operands = [np.array([ops[k] for ops, *_ in rows], dtype) for k in range(nargs)]
    fn = getattr(fnp, name)
    for how, run in (("eager", fn), ("jit", fa.jit(fn))):
        out = np.asarray(run(*(fnp.asarray(o) for o in operands)))
        bad = [f"{name}{ops} = {got!r}, the standard says {result} ({args})"
               for (ops, want, args, result), got in zip(rows, out.tolist())
               if not _matches(got, want, dtype)]
        assert not bad, f"{how}, {np.dtype(dtype)}:\n" + "\n".join(bad[:20])


def _complex_expected(result, a, b):
    """(real, imag) expected for a + bj: tokens, a real result (one token), or a ``cis`` form
    evaluated in float64."""
    if isinstance(result, tuple):
        return result
    if result in ("|a|", "|b|"):
        return abs(a if result == "|a|" else b)
    if "cis" not in result:
        return result
    scale = 0.0 if result.startswith("+0") else math.inf
    minus = 1.0 if result.endswith("-1") else 0.0
    with np.errstate(all="ignore"):
        real = float(np.float64(scale) * np.cos(b)) - minus
        imag = float(np.float64(scale) * np.sin(b))
    return real, imag


def _part_matches(got, want, dtype) -> bool:
    if want == "0":
        return got == 0
    if want == "±inf":
        return math.isinf(got)
    if isinstance(want, str):
        value = CONSTANTS[want] if want in CONSTANTS else _SPECIAL_VALUES[want]
    else:
        value = float(want)
    return _matches(got, value, dtype)


def _complex_matches(got, want, dtype) -> bool:
    if not isinstance(want, tuple):  # a real result (abs)
        return _part_matches(got, want, dtype)
    return _part_matches(got.real, want[0], dtype) and _part_matches(got.imag, want[1], dtype)


_COMPLEX_ROWS: dict[str, list] = defaultdict(list)
for _name, (_a, _b), _result in COMPLEX_SPECIAL_CASES:
    for _x in _values(_a):
        for _y in _values(_b):
            _COMPLEX_ROWS[_name].append(((_x, _y), _result))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("name", sorted(_COMPLEX_ROWS))
def test_complex_special_cases(name, dtype):
    rows = _COMPLEX_ROWS[name]
    z = np.array([complex(*ab) for ab, _ in rows], dtype)
    real_dtype = np.finfo(dtype).dtype
    fn = getattr(fnp, name)
    for how, run in (("eager", fn), ("jit", fa.jit(fn))):
        out = np.asarray(run(fnp.asarray(z)))
        # (a cis result from b as the operand holds it: 1e30 rounds in complex64)
        wants = [_complex_expected(r, a, float(real_dtype.type(b))) for (a, b), r in rows]
        bad = [f"{name}({a!r} + {b!r}j) = {got!r}, the standard says {want}"
               for ((a, b), _), want, got in zip(rows, wants, out.tolist())
               if not _complex_matches(got, want, real_dtype)]
        assert not bad, f"{how}, {np.dtype(dtype)}:\n" + "\n".join(bad[:20])


_GRID = (0.0, -0.0, 1.0, -2.0, 2.5, math.inf, -math.inf, math.nan)


def _same_class(got, want):
    """Parts alike: NaN and NaN, finite and close (zero signs aside, which the standard
    mostly leaves open), infinite with one sign; an infinity's sign may differ where the
    other part is NaN (the standard's "sign unspecified" cases)."""
    ok = True
    for g, w, other in ((got.real, want.real, want.imag), (got.imag, want.imag, want.real)):
        if math.isnan(w) or math.isnan(g):
            ok &= math.isnan(w) and math.isnan(g)
        elif math.isinf(w) or math.isinf(g):
            ok &= g == w or (math.isinf(g) and math.isinf(w) and math.isnan(other))
        else:
            ok &= math.isclose(g, w, rel_tol=1e-12, abs_tol=1e-300)
    return ok


@pytest.mark.parametrize("name", ["sin", "cos", "tan", "sinh", "cosh", "tanh", "exp",
                                  "expm1", "log", "log1p", "sqrt", "acos", "asin", "atan",
                                  "acosh", "asinh", "atanh"])
def test_complex_special_values_under_jit_are_the_eager_ones(name):
    """At infinite, NaN and zero parts the eager kernels are NumPy's (C99's, which the
    standard's complex special cases follow); jit gives the same values, not XLA's NaNs."""
    z = np.array([complex(a, b) for a in _GRID for b in _GRID])
    fn = getattr(fnp, name)
    eager = np.asarray(fn(fnp.asarray(z)))
    jitted = np.asarray(fa.jit(fn)(fnp.asarray(z)))
    bad = [f"{name}({w!r}): jit {j!r}, eager {e!r}" for w, j, e in zip(z, jitted, eager)
           if not _same_class(complex(j), complex(e))]
    assert not bad, "\n".join(bad)
