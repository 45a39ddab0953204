"""The Array API standard's special cases of its elementwise functions, as a table.

The standard (version 2024.12, "Special cases" of each elementwise function) states results
for real floating-point operands at NaN, infinities, signed zeros and domain edges. Each row
here is one such sentence: ``(function, operands, result)``, with operands and results
written as tokens:

* ``"nan"``, ``"+inf"``, ``"-inf"``, ``"+0"``, ``"-0"`` or a number: that value;
* a class of values, expanded to a few representatives: ``"pos"``/``"neg"`` (positive or
  negative finite, nonzero), ``"fin"`` (any finite), ``"nonzero"`` (finite, not zero),
  ``"gt1"``/``"lt-1"`` (finite beyond 1 or -1), ``"lt0"`` (finite below 0), ``"int"``
  (finite integer-valued), ``"any"`` (all of these and the non-finite values);
* a second operand may be ``"x1"`` or ``"-x1"`` (the first one, or its negation);
* results may also be ``"0"`` (a zero of either sign), ``"x"``/``"x1"``/``"x2"`` (an
  operand itself), ``"|x1|"``, ``"-|x1|"``, ``"|x2|"`` or a constant such as ``"pi/2"``.

Rows are checked by ``tests/numpy/test_array_api_special_cases.py``, eagerly and under jit.

Example:
    >>> ("exp", ("-inf",), "+0") in SPECIAL_CASES
    True
"""

from __future__ import annotations

import math

__all__ = ["SPECIAL_CASES", "COMPLEX_SPECIAL_CASES", "VALUE_CLASSES", "CONSTANTS"]

_POS = (0.5, 1.0, 2.5, 7.0, 1e30)
VALUE_CLASSES: dict[str, tuple[float, ...]] = {
    "pos": _POS,
    "neg": tuple(-v for v in _POS),
    "nonzero": _POS + tuple(-v for v in _POS),
    "fin": (0.0, -0.0) + _POS + tuple(-v for v in _POS),
    "gt1": (1.5, 3.0, 1e30),
    "lt-1": (-1.5, -3.0, -1e30),
    "lt0": (-0.5, -1.0, -1e30),
    "int": (1.0, -1.0, 2.0, -3.0, 1e10, -1e10),
    "any": (0.0, -0.0, math.nan, math.inf, -math.inf) + _POS + tuple(-v for v in _POS),
}
CONSTANTS = {"pi": math.pi, "pi/2": math.pi / 2, "-pi/2": -math.pi / 2, "-pi": -math.pi,
             "pi/4": math.pi / 4, "-pi/4": -math.pi / 4, "3pi/4": 3 * math.pi / 4,
             "-3pi/4": -3 * math.pi / 4}

# Rounding functions share their rows.
_ROUNDING = [(("int",), "x"), (("+inf",), "+inf"), (("-inf",), "-inf"), (("+0",), "+0"),
             (("-0",), "-0"), (("nan",), "nan")]
# log, log2 and log10 share theirs.
_LOG = [(("nan",), "nan"), (("lt0",), "nan"), (("-inf",), "nan"), (("+0",), "-inf"),
        (("-0",), "-inf"), ((1.0,), "+0"), (("+inf",), "+inf")]
# less, less_equal, greater, greater_equal, equal with a NaN are False; not_equal True.
_COMPARISONS = ("equal", "less", "less_equal", "greater", "greater_equal")

SPECIAL_CASES: list[tuple[str, tuple, object]] = [
    ("abs", ("nan",), "nan"), ("abs", ("-0",), "+0"), ("abs", ("-inf",), "+inf"),
    ("acos", ("nan",), "nan"), ("acos", ("gt1",), "nan"), ("acos", ("lt-1",), "nan"),
    ("acos", (1.0,), "+0"),
    ("acosh", ("nan",), "nan"), ("acosh", (0.5,), "nan"), ("acosh", ("lt0",), "nan"),
    ("acosh", (1.0,), "+0"), ("acosh", ("+inf",), "+inf"),
    ("asin", ("nan",), "nan"), ("asin", ("gt1",), "nan"), ("asin", ("lt-1",), "nan"),
    ("asin", ("+0",), "+0"), ("asin", ("-0",), "-0"),
    ("asinh", ("nan",), "nan"), ("asinh", ("+0",), "+0"), ("asinh", ("-0",), "-0"),
    ("asinh", ("+inf",), "+inf"), ("asinh", ("-inf",), "-inf"),
    ("atan", ("nan",), "nan"), ("atan", ("+0",), "+0"), ("atan", ("-0",), "-0"),
    ("atan", ("+inf",), "pi/2"), ("atan", ("-inf",), "-pi/2"),
    ("atanh", ("nan",), "nan"), ("atanh", ("lt-1",), "nan"), ("atanh", ("gt1",), "nan"),
    ("atanh", (-1.0,), "-inf"), ("atanh", (1.0,), "+inf"), ("atanh", ("+0",), "+0"),
    ("atanh", ("-0",), "-0"),
    *[("ceil", a, r) for a, r in _ROUNDING],
    ("cos", ("nan",), "nan"), ("cos", ("+0",), 1.0), ("cos", ("-0",), 1.0),
    ("cos", ("+inf",), "nan"), ("cos", ("-inf",), "nan"),
    ("cosh", ("nan",), "nan"), ("cosh", ("+0",), 1.0), ("cosh", ("-0",), 1.0),
    ("cosh", ("+inf",), "+inf"), ("cosh", ("-inf",), "+inf"),
    ("exp", ("nan",), "nan"), ("exp", ("+0",), 1.0), ("exp", ("-0",), 1.0),
    ("exp", ("+inf",), "+inf"), ("exp", ("-inf",), "+0"),
    ("expm1", ("nan",), "nan"), ("expm1", ("+0",), "+0"), ("expm1", ("-0",), "-0"),
    ("expm1", ("+inf",), "+inf"), ("expm1", ("-inf",), -1.0),
    *[("floor", a, r) for a, r in _ROUNDING],
    ("isfinite", ("+inf",), False), ("isfinite", ("-inf",), False),
    ("isfinite", ("nan",), False), ("isfinite", ("fin",), True),
    ("isinf", ("+inf",), True), ("isinf", ("-inf",), True), ("isinf", ("fin",), False),
    ("isinf", ("nan",), False),
    ("isnan", ("nan",), True), ("isnan", ("fin",), False), ("isnan", ("+inf",), False),
    *[(name, a, r) for name in ("log", "log2", "log10") for a, r in _LOG],
    ("log1p", ("nan",), "nan"), ("log1p", (-1.5,), "nan"), ("log1p", ("-inf",), "nan"),
    ("log1p", (-1.0,), "-inf"), ("log1p", ("-0",), "-0"), ("log1p", ("+0",), "+0"),
    ("log1p", ("+inf",), "+inf"),
    ("reciprocal", ("+0",), "+inf"), ("reciprocal", ("-0",), "-inf"),
    ("reciprocal", ("+inf",), "+0"), ("reciprocal", ("-inf",), "-0"),
    ("reciprocal", ("nan",), "nan"),
    *[("round", a, r) for a, r in _ROUNDING],
    ("round", (2.5,), 2.0), ("round", (3.5,), 4.0), ("round", (-2.5,), -2.0),
    ("round", (0.5,), "+0"), ("round", (-0.5,), "-0"),
    ("sign", ("lt0",), -1.0), ("sign", ("-inf",), -1.0), ("sign", ("+0",), "0"),
    ("sign", ("-0",), "0"), ("sign", ("pos",), 1.0), ("sign", ("+inf",), 1.0),
    ("sign", ("nan",), "nan"),
    ("signbit", ("+0",), False), ("signbit", ("-0",), True), ("signbit", ("+inf",), False),
    ("signbit", ("-inf",), True), ("signbit", ("pos",), False), ("signbit", ("neg",), True),
    ("sin", ("nan",), "nan"), ("sin", ("+0",), "+0"), ("sin", ("-0",), "-0"),
    ("sin", ("+inf",), "nan"), ("sin", ("-inf",), "nan"),
    ("sinh", ("nan",), "nan"), ("sinh", ("+0",), "+0"), ("sinh", ("-0",), "-0"),
    ("sinh", ("+inf",), "+inf"), ("sinh", ("-inf",), "-inf"),
    ("sqrt", ("nan",), "nan"), ("sqrt", ("lt0",), "nan"), ("sqrt", ("-inf",), "nan"),
    ("sqrt", ("+0",), "+0"), ("sqrt", ("-0",), "-0"), ("sqrt", ("+inf",), "+inf"),
    ("square", ("nan",), "nan"), ("square", ("+inf",), "+inf"), ("square", ("-inf",), "+inf"),
    ("square", ("-0",), "+0"),
    ("tan", ("nan",), "nan"), ("tan", ("+0",), "+0"), ("tan", ("-0",), "-0"),
    ("tan", ("+inf",), "nan"), ("tan", ("-inf",), "nan"),
    ("tanh", ("nan",), "nan"), ("tanh", ("+0",), "+0"), ("tanh", ("-0",), "-0"),
    ("tanh", ("+inf",), 1.0), ("tanh", ("-inf",), -1.0),
    *[("trunc", a, r) for a, r in _ROUNDING],
    # --- two operands ---------------------------------------------------------------------
    ("add", ("nan", "any"), "nan"), ("add", ("any", "nan"), "nan"),
    ("add", ("+inf", "-inf"), "nan"), ("add", ("-inf", "+inf"), "nan"),
    ("add", ("+inf", "+inf"), "+inf"), ("add", ("-inf", "-inf"), "-inf"),
    ("add", ("+inf", "fin"), "+inf"), ("add", ("-inf", "fin"), "-inf"),
    ("add", ("fin", "+inf"), "+inf"), ("add", ("fin", "-inf"), "-inf"),
    ("add", ("-0", "-0"), "-0"), ("add", ("-0", "+0"), "+0"), ("add", ("+0", "-0"), "+0"),
    ("add", ("+0", "+0"), "+0"), ("add", ("+0", "nonzero"), "x2"),
    ("add", ("-0", "nonzero"), "x2"), ("add", ("nonzero", "+0"), "x1"),
    ("add", ("nonzero", "-0"), "x1"), ("add", ("nonzero", "-x1"), "+0"),
    ("atan2", ("nan", "any"), "nan"), ("atan2", ("any", "nan"), "nan"),
    ("atan2", ("pos", "+0"), "pi/2"), ("atan2", ("pos", "-0"), "pi/2"),
    ("atan2", ("+0", "pos"), "+0"), ("atan2", ("+0", "+0"), "+0"),
    ("atan2", ("+0", "-0"), "pi"), ("atan2", ("+0", "neg"), "pi"),
    ("atan2", ("-0", "pos"), "-0"), ("atan2", ("-0", "+0"), "-0"),
    ("atan2", ("-0", "-0"), "-pi"), ("atan2", ("-0", "neg"), "-pi"),
    ("atan2", ("neg", "+0"), "-pi/2"), ("atan2", ("neg", "-0"), "-pi/2"),
    ("atan2", ("pos", "+inf"), "+0"), ("atan2", ("pos", "-inf"), "pi"),
    ("atan2", ("neg", "+inf"), "-0"), ("atan2", ("neg", "-inf"), "-pi"),
    ("atan2", ("+inf", "fin"), "pi/2"), ("atan2", ("-inf", "fin"), "-pi/2"),
    ("atan2", ("+inf", "+inf"), "pi/4"), ("atan2", ("+inf", "-inf"), "3pi/4"),
    ("atan2", ("-inf", "+inf"), "-pi/4"), ("atan2", ("-inf", "-inf"), "-3pi/4"),
    ("copysign", ("any", "neg"), "-|x1|"), ("copysign", ("any", "-0"), "-|x1|"),
    ("copysign", ("any", "+0"), "|x1|"), ("copysign", ("any", "pos"), "|x1|"),
    ("divide", ("nan", "any"), "nan"), ("divide", ("any", "nan"), "nan"),
    ("divide", ("+inf", "+inf"), "nan"), ("divide", ("-inf", "-inf"), "nan"),
    ("divide", ("+0", "+0"), "nan"), ("divide", ("-0", "+0"), "nan"),
    ("divide", ("+0", "pos"), "+0"), ("divide", ("-0", "pos"), "-0"),
    ("divide", ("+0", "neg"), "-0"), ("divide", ("-0", "neg"), "+0"),
    ("divide", ("pos", "+0"), "+inf"), ("divide", ("pos", "-0"), "-inf"),
    ("divide", ("neg", "+0"), "-inf"), ("divide", ("neg", "-0"), "+inf"),
    ("divide", ("+inf", "pos"), "+inf"), ("divide", ("+inf", "neg"), "-inf"),
    ("divide", ("-inf", "pos"), "-inf"), ("divide", ("-inf", "neg"), "+inf"),
    ("divide", ("pos", "+inf"), "+0"), ("divide", ("pos", "-inf"), "-0"),
    ("divide", ("neg", "+inf"), "-0"), ("divide", ("neg", "-inf"), "+0"),
    ("floor_divide", ("nan", "any"), "nan"), ("floor_divide", ("any", "nan"), "nan"),
    ("floor_divide", ("+inf", "+inf"), "nan"), ("floor_divide", ("-inf", "+inf"), "nan"),
    ("floor_divide", ("+0", "+0"), "nan"), ("floor_divide", ("-0", "-0"), "nan"),
    ("floor_divide", ("+0", "pos"), "+0"), ("floor_divide", ("-0", "pos"), "-0"),
    ("floor_divide", ("+0", "neg"), "-0"), ("floor_divide", ("-0", "neg"), "+0"),
    ("floor_divide", ("pos", "+0"), "+inf"), ("floor_divide", ("pos", "-0"), "-inf"),
    ("floor_divide", ("neg", "+0"), "-inf"), ("floor_divide", ("neg", "-0"), "+inf"),
    ("floor_divide", ("+inf", "pos"), "+inf"), ("floor_divide", ("+inf", "neg"), "-inf"),
    ("floor_divide", ("-inf", "pos"), "-inf"), ("floor_divide", ("-inf", "neg"), "+inf"),
    ("floor_divide", ("pos", "+inf"), "+0"), ("floor_divide", ("pos", "-inf"), "-0"),
    ("floor_divide", ("neg", "+inf"), "-0"), ("floor_divide", ("neg", "-inf"), "+0"),
    ("hypot", ("+inf", "any"), "+inf"), ("hypot", ("-inf", "any"), "+inf"),
    ("hypot", ("any", "+inf"), "+inf"), ("hypot", ("nan", "fin"), "nan"),
    ("hypot", ("fin", "nan"), "nan"), ("hypot", ("+0", "fin"), "|x2|"),
    ("hypot", ("-0", "fin"), "|x2|"),
    ("logaddexp", ("nan", "any"), "nan"), ("logaddexp", ("any", "nan"), "nan"),
    ("logaddexp", ("+inf", "fin"), "+inf"), ("logaddexp", ("fin", "+inf"), "+inf"),
    ("logaddexp", ("+inf", "+inf"), "+inf"), ("logaddexp", ("+inf", "-inf"), "+inf"),
    ("maximum", ("nan", "any"), "nan"), ("maximum", ("any", "nan"), "nan"),
    ("minimum", ("nan", "any"), "nan"), ("minimum", ("any", "nan"), "nan"),
    ("multiply", ("nan", "any"), "nan"), ("multiply", ("any", "nan"), "nan"),
    ("multiply", ("+inf", "+0"), "nan"), ("multiply", ("-0", "-inf"), "nan"),
    ("multiply", ("pos", "+inf"), "+inf"), ("multiply", ("neg", "+inf"), "-inf"),
    ("multiply", ("+inf", "neg"), "-inf"), ("multiply", ("-inf", "-inf"), "+inf"),
    ("multiply", ("+0", "neg"), "-0"), ("multiply", ("-0", "neg"), "+0"),
    ("nextafter", ("nan", "any"), "nan"), ("nextafter", ("any", "nan"), "nan"),
    ("nextafter", ("-0", "+0"), "+0"), ("nextafter", ("+0", "-0"), "-0"),
    ("nextafter", ("fin", "x1"), "x1"),
    ("pow", ("any", "+0"), 1.0), ("pow", ("any", "-0"), 1.0), ("pow", (1.0, "any"), 1.0),
    ("pow", ("nan", "nonzero"), "nan"), ("pow", (2.5, "nan"), "nan"),
    ("pow", (-0.5, "nan"), "nan"),
    ("pow", (1.5, "+inf"), "+inf"), ("pow", (-1.5, "+inf"), "+inf"),
    ("pow", (1.5, "-inf"), "+0"), ("pow", (0.5, "+inf"), "+0"), ("pow", (0.5, "-inf"), "+inf"),
    ("pow", ("+inf", "pos"), "+inf"), ("pow", ("+inf", "neg"), "+0"),
    ("pow", ("-inf", 3.0), "-inf"), ("pow", ("-inf", 2.0), "+inf"),
    ("pow", ("-inf", -3.0), "-0"), ("pow", ("-inf", -2.0), "+0"),
    ("pow", ("+0", "pos"), "+0"), ("pow", ("+0", "neg"), "+inf"),
    ("pow", ("-0", 3.0), "-0"), ("pow", ("-0", 2.0), "+0"), ("pow", ("-0", -3.0), "-inf"),
    ("pow", ("-0", -2.0), "+inf"), ("pow", (-2.0, 0.5), "nan"),
    ("remainder", ("nan", "any"), "nan"), ("remainder", ("any", "nan"), "nan"),
    ("remainder", ("+inf", "any"), "nan"), ("remainder", ("-inf", "any"), "nan"),
    ("remainder", ("fin", "+0"), "nan"), ("remainder", ("fin", "-0"), "nan"),
    ("remainder", ("+0", "pos"), "+0"), ("remainder", ("-0", "pos"), "+0"),
    ("remainder", ("+0", "neg"), "-0"), ("remainder", ("-0", "neg"), "-0"),
    ("remainder", ("pos", "+inf"), "x1"), ("remainder", ("pos", "-inf"), "x2"),
    ("remainder", ("neg", "+inf"), "x2"), ("remainder", ("neg", "-inf"), "x1"),
    ("subtract", ("nan", "any"), "nan"), ("subtract", ("+inf", "+inf"), "nan"),
    ("subtract", ("-0", "+0"), "-0"), ("subtract", ("+0", "+0"), "+0"),
    ("subtract", ("fin", "+inf"), "-inf"),
    *[(name, ("nan", "any"), False) for name in _COMPARISONS],
    *[(name, ("any", "nan"), False) for name in _COMPARISONS],
    ("not_equal", ("nan", "any"), True), ("not_equal", ("any", "nan"), True),
    ("equal", ("+0", "-0"), True), ("equal", ("+inf", "+inf"), True),
    ("less", ("-0", "+0"), False), ("less_equal", ("+0", "-0"), True),
]

# Complex operands a + bj: ``(function, (a, b), (real, imag))`` with the same tokens, plus
# ``"±inf"`` and ``"0"`` where the standard leaves the sign open, a real result (abs: one
# token, ``"|a|"`` or ``"|b|"``), and ``"cis"`` results:
# ``"+0*cis(b)-1"`` and ``"+inf*cis(b)-1"`` (``cis(v) = cos(v) + sin(v) j``) and their
# ``exp`` forms without the ``-1``.
COMPLEX_SPECIAL_CASES: list[tuple[str, tuple, object]] = [
    ("exp", ("+0", "+0"), (1.0, "+0")), ("exp", ("-0", "+0"), (1.0, "+0")),
    ("exp", ("fin", "+inf"), ("nan", "nan")), ("exp", ("fin", "nan"), ("nan", "nan")),
    ("exp", ("+inf", "+0"), ("+inf", "+0")), ("exp", ("-inf", "fin"), "+0*cis(b)"),
    ("exp", ("+inf", "nonzero"), "+inf*cis(b)"), ("exp", ("-inf", "+inf"), ("0", "0")),
    ("exp", ("+inf", "+inf"), ("±inf", "nan")), ("exp", ("-inf", "nan"), ("0", "0")),
    ("exp", ("+inf", "nan"), ("±inf", "nan")), ("exp", ("nan", "+0"), ("nan", "+0")),
    ("exp", ("nan", "nonzero"), ("nan", "nan")), ("exp", ("nan", "nan"), ("nan", "nan")),
    ("expm1", ("+0", "+0"), ("0", "+0")), ("expm1", ("-0", "+0"), ("0", "+0")),
    ("expm1", ("fin", "+inf"), ("nan", "nan")), ("expm1", ("fin", "nan"), ("nan", "nan")),
    ("expm1", ("+inf", "+0"), ("+inf", "+0")), ("expm1", ("-inf", "fin"), "+0*cis(b)-1"),
    ("expm1", ("+inf", "nonzero"), "+inf*cis(b)-1"),
    ("expm1", ("-inf", "+inf"), (-1.0, "0")), ("expm1", ("+inf", "+inf"), ("±inf", "nan")),
    ("expm1", ("-inf", "nan"), (-1.0, "0")), ("expm1", ("+inf", "nan"), ("±inf", "nan")),
    ("expm1", ("nan", "+0"), ("nan", "+0")), ("expm1", ("nan", "nonzero"), ("nan", "nan")),
    ("expm1", ("nan", "nan"), ("nan", "nan")),
    ("abs", ("+inf", "any"), "+inf"), ("abs", ("-inf", "any"), "+inf"),
    ("abs", ("any", "+inf"), "+inf"), ("abs", ("any", "-inf"), "+inf"),
    ("abs", ("+0", "fin"), "|b|"), ("abs", ("-0", "fin"), "|b|"),
    ("abs", ("fin", "+0"), "|a|"), ("abs", ("nan", "fin"), "nan"),
    ("abs", ("fin", "nan"), "nan"), ("abs", ("nan", "nan"), "nan"),
    *[(name, a, r) for name in ("log", "log2", "log10") for a, r in [
        (("+0", "+0"), ("-inf", "+0")), (("fin", "nan"), ("nan", "nan")),
        (("+inf", "nan"), ("+inf", "nan")), (("-inf", "nan"), ("+inf", "nan")),
        (("nan", "+inf"), ("+inf", "nan")), (("nan", "-inf"), ("+inf", "nan")),
        (("nan", "fin"), ("nan", "nan")),
        (("nan", "nan"), ("nan", "nan"))]],
    # (log2 and log10 are log scaled: where log's imaginary part is pi, theirs is
    # pi / log(2) or pi / log(10))
    *[("log", a, r) for a, r in [
        (("-0", "+0"), ("-inf", "pi")), (("fin", "+inf"), ("+inf", "pi/2")),
        (("-inf", "pos"), ("+inf", "pi")), (("+inf", "pos"), ("+inf", "+0")),
        (("-inf", "+inf"), ("+inf", "3pi/4")), (("+inf", "+inf"), ("+inf", "pi/4"))]],
    ("log1p", (-1.0, "+0"), ("-inf", "+0")), ("log1p", ("fin", "+inf"), ("+inf", "pi/2")),
    ("log1p", ("fin", "nan"), ("nan", "nan")), ("log1p", ("-inf", "pos"), ("+inf", "pi")),
    ("log1p", ("+inf", "pos"), ("+inf", "+0")), ("log1p", ("-inf", "+inf"), ("+inf", "3pi/4")),
    ("log1p", ("+inf", "+inf"), ("+inf", "pi/4")), ("log1p", ("+inf", "nan"), ("+inf", "nan")),
    ("log1p", ("-inf", "nan"), ("+inf", "nan")), ("log1p", ("nan", "fin"), ("nan", "nan")),
    ("log1p", ("nan", "+inf"), ("+inf", "nan")), ("log1p", ("nan", "nan"), ("nan", "nan")),
    ("sqrt", ("+0", "+0"), ("+0", "+0")), ("sqrt", ("-0", "+0"), ("+0", "+0")),
    ("sqrt", ("any", "+inf"), ("+inf", "+inf")), ("sqrt", ("fin", "nan"), ("nan", "nan")),
    ("sqrt", ("-inf", "pos"), ("+0", "+inf")), ("sqrt", ("+inf", "pos"), ("+inf", "+0")),
    ("sqrt", ("-inf", "nan"), ("nan", "±inf")), ("sqrt", ("+inf", "nan"), ("+inf", "nan")),
    ("sqrt", ("nan", "fin"), ("nan", "nan")), ("sqrt", ("nan", "nan"), ("nan", "nan")),
    # sinh, cosh and tanh: the standard's first-quadrant rows (the others follow by symmetry)
    ("sinh", ("+0", "+0"), ("+0", "+0")), ("sinh", ("+0", "+inf"), ("0", "nan")),
    ("sinh", ("+0", "nan"), ("0", "nan")), ("sinh", ("pos", "+inf"), ("nan", "nan")),
    ("sinh", ("pos", "nan"), ("nan", "nan")), ("sinh", ("+inf", "+0"), ("+inf", "+0")),
    ("sinh", ("+inf", "pos"), "+inf*cis(b)"), ("sinh", ("+inf", "+inf"), ("±inf", "nan")),
    ("sinh", ("+inf", "nan"), ("±inf", "nan")), ("sinh", ("nan", "+0"), ("nan", "+0")),
    ("sinh", ("nan", "nonzero"), ("nan", "nan")), ("sinh", ("nan", "nan"), ("nan", "nan")),
    ("cosh", ("+0", "+0"), (1.0, "+0")), ("cosh", ("+0", "+inf"), ("nan", "0")),
    ("cosh", ("+0", "nan"), ("nan", "0")), ("cosh", ("pos", "+inf"), ("nan", "nan")),
    ("cosh", ("pos", "nan"), ("nan", "nan")), ("cosh", ("+inf", "+0"), ("+inf", "+0")),
    ("cosh", ("+inf", "pos"), "+inf*cis(b)"), ("cosh", ("+inf", "+inf"), ("±inf", "nan")),
    ("cosh", ("+inf", "nan"), ("+inf", "nan")), ("cosh", ("nan", "+0"), ("nan", "0")),
    ("cosh", ("nan", "nonzero"), ("nan", "nan")), ("cosh", ("nan", "nan"), ("nan", "nan")),
    ("tanh", ("+0", "+0"), ("+0", "+0")), ("tanh", ("pos", "+inf"), ("nan", "nan")),
    ("tanh", ("+0", "+inf"), ("+0", "nan")), ("tanh", ("pos", "nan"), ("nan", "nan")),
    # (tanh(+inf + bj) for positive b: the standard writes 1 + 0j; C99 and NumPy give the
    # zero the sign of sin(2b), which the table leaves open)
    ("tanh", ("+0", "nan"), ("+0", "nan")), ("tanh", ("+inf", "pos"), (1.0, "0")),
    ("tanh", ("+inf", "+inf"), (1.0, "0")), ("tanh", ("+inf", "nan"), (1.0, "0")),
    ("tanh", ("nan", "+0"), ("nan", "+0")), ("tanh", ("nan", "nonzero"), ("nan", "nan")),
    ("tanh", ("nan", "nan"), ("nan", "nan")),
]
