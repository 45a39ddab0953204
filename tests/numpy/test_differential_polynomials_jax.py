"""Differential test of ``funcarray.numpy``'s polynomial and window functions against jax:
funcarray eager, funcarray jit and ``jax.numpy`` on the same operands and parameters must
agree on whether they raise, and otherwise on shape, dtype, weak type and values (within a
bound grown with the degree, the divisor's leading coefficient or the fit's condition
number). Operands, bounds and allowances: tests/differential_products.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from differential_products import (
    Case,
    ProductOp,
    assert_covers,
    cases,
    check_case,
    distinct_points,
    fixed,
    magnitude,
    operand_values,
    power,
    row_named,
    vander_condition,
)
from hypothesis import given, settings
from hypothesis import strategies as st

# Each example compiles a funcarray program and jax's operations: 3 examples for each of
# the 17 rows keeps the file within about 15 s on 2 idle cores (the thorough profile scales
# the count, conftest.py).
_EXAMPLES = settings(max_examples=3)


_POLY_PAIRS = (((3,), (2,)), ((1,), (4,)), ((0,), (2,)), ((), (2,)), ((3,), (3,)))
_WINDOW_M = st.sampled_from((-1, 0, 1, 2, 5))


def _windows(name):
    return ProductOp(name, lambda ns, *, M: getattr(ns, name)(M), shapes=((),),
                     kwargs=fixed(M=_WINDOW_M), scalars=False,
                     terms=lambda case: 4, scale=lambda case: 1.0)


def _polyval_scale(case):
    p, x = case.operands
    degree = max(np.size(p) - 1, 0)
    return magnitude(p) * power(magnitude(x), degree) * max(np.size(p), 1)


def _polydiv_scale(case):
    u, v = case.operands
    lead = abs(complex(np.ravel(v)[0])) if np.size(v) else 1.0
    return magnitude(u) * power(magnitude(v) / max(lead, 1e-30), np.size(u))


def _polyfit_scale(case):
    """Per output: the coefficients, the residuals (squares of ``y``), the rank, the
    singular values (of unit columns) and rcond."""
    y = case.operands[1]
    cond = min(vander_condition(case), 1e30)
    points = max(np.size(case.operands[0]), 1)
    return (magnitude(y) * cond * 8, power(magnitude(y), 2) * points * cond, 1.0,
            points * cond, 1.0)


def _poly_scale(case):
    return power(1 + magnitude(case.operands[0]), np.size(case.operands[0]))


def _roots_scale(case):
    return 1e3 * magnitude(case.operands[0])


@st.composite
def _polyfit_operands(draw, dtype, small):
    n = draw(st.integers(1, 5))
    x = np.array(draw(distinct_points(n))).astype(dtype)
    y = draw(operand_values(dtype, draw(st.sampled_from(((n,), (n, 2), (n + 1,)))), small))
    return x, y


@st.composite
def _roots_operands(draw, dtype, small):
    """Coefficients of a polynomial with distinct small integer roots (well separated, so
    the roots are well conditioned), leading or trailing zeros sometimes added."""
    if not small:
        return (draw(operand_values(dtype, draw(st.sampled_from(((3,), (0,), ()))), small)),)
    zeros = draw(distinct_points(draw(st.integers(0, 3))))
    lead = draw(st.sampled_from((1, 2, -1)))
    coeffs = lead * np.poly(zeros) if zeros else np.array([lead])
    pad = draw(st.sampled_from(((0, 0), (1, 0), (0, 1))))
    return (np.pad(coeffs, pad).astype(dtype),)


POLYNOMIAL_OPS = (
    ProductOp("poly", lambda ns, r: ns.poly(r), (((3,),), ((0,),), ((2, 2),), ((),), ((2, 3),)),
              scalars=False, scale=_poly_scale),
    ProductOp("polyadd", lambda ns, a, b: ns.polyadd(a, b), _POLY_PAIRS, terms=lambda case: 1),
    ProductOp("polysub", lambda ns, a, b: ns.polysub(a, b), _POLY_PAIRS, terms=lambda case: 1),
    ProductOp("polymul", lambda ns, a, b: ns.polymul(a, b), _POLY_PAIRS),
    ProductOp("polydiv", lambda ns, u, v: ns.polydiv(u, v),
              (((3,), (2,)), ((4,), (1,)), ((2,), (3,)), ((3,), (3,))),
              scalars=False, scale=_polydiv_scale),
    ProductOp("polyder", lambda ns, p, m: ns.polyder(p, m), (((4,),), ((1,),), ((0,),)),
              fixed(m=st.sampled_from((0, 1, 2, 5, -1))), scalars=False,
              scale=lambda case: magnitude(case.operands[0]) * 24),
    ProductOp("polyint", lambda ns, p, **kw: ns.polyint(p, **kw),
              (((3,),), ((1,),), ((0,),)),
              fixed(m=st.sampled_from((0, 1, 2, -1)),
                     k=st.sampled_from((None, 2.0, np.array([1.0, -1.0], np.float32),
                                        0))), scalars=False),
    ProductOp("polyval", lambda ns, p, x: ns.polyval(p, x),
              (((3,), (2,)), ((3,), ()), ((1,), (2, 2)), ((0,), (3,)), ((4,), (0,)), ((), (2,))),
              scale=_polyval_scale),
    ProductOp("polyfit", lambda ns, x, y, **kw: ns.polyfit(x, y, **kw),
              kwargs=fixed(deg=st.sampled_from((0, 1, 2)), full=st.booleans(),
                            cov=st.just(False)),
              scalars=False, scale=_polyfit_scale, operands=_polyfit_operands),
    ProductOp("roots", lambda ns, p, **kw: ns.roots(p, **kw),
              kwargs=fixed(strip_zeros=st.booleans()), scalars=False, scale=_roots_scale,
              jit=lambda kwargs: not kwargs["strip_zeros"], operands=_roots_operands),
    ProductOp("vander", lambda ns, x, **kw: ns.vander(x, **kw), (((3,),), ((0,),), ((),),
                                                                 ((2, 2),)),
              fixed(N=st.sampled_from((None, 0, 2, 4)), increasing=st.booleans()),
              scalars=False, terms=lambda case: 4,
              scale=lambda case: power(magnitude(case.operands[0]), 4)),
    *(_windows(name) for name in ("bartlett", "blackman", "hamming", "hanning")),
    ProductOp("kaiser", lambda ns, beta, *, M: ns.kaiser(M, beta), ((),),
              fixed(M=_WINDOW_M), terms=lambda case: 16, scale=lambda case: 1.0),
)


# The functions this table answers for (issue 27); each is a row of POLYNOMIAL_OPS.
ASSIGNED = (
    "poly polyadd polysub polymul polydiv polyder polyint polyval polyfit roots vander "
    "bartlett blackman hamming hanning kaiser").split()


def test_every_assigned_function_is_in_the_table():
    assert_covers(POLYNOMIAL_OPS, ASSIGNED)


@pytest.mark.parametrize("op", POLYNOMIAL_OPS, ids=lambda op: op.name)
@_EXAMPLES
@given(data=st.data())
def test_eager_and_jit_match_jax(op, data):
    check_case(op, data.draw(cases(op), label="case"))


# Defects the table found, kept as explicit examples (each reproduces one on its own).
REGRESSIONS = (
    # kaiser normalised by a float32 i0(beta) under a float64 window: the centre was 1 - 6e-9.
    ("kaiser", Case((np.array(5.0),), {"M": 3}, small=True)),
    # polyfit built the powers of integer x in its dtype: uint8 255**2 wrapped to 1.
    ("polyfit", Case((np.array([255], np.uint8), np.array([1], np.uint8)),
                     {"deg": 2, "full": False, "cov": False}, small=True)),
)


@pytest.mark.parametrize(("name", "case"), REGRESSIONS, ids=lambda v: str(v)[:40])
def test_regressions_match_jax(name, case):
    check_case(row_named(POLYNOMIAL_OPS, name), case)
