"""Differential test of ``funcarray.numpy``'s products, contractions, convolutions,
differences and statistics of pairs against jax: funcarray eager, funcarray jit and
``jax.numpy`` on the same operands and parameters must agree on whether they raise, and
otherwise on shape, dtype, weak type and values (within ``8 * eps * terms * scale`` for float
results). Operands, bounds and allowances: tests/differential_products.py.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from differential_products import (
    Case,
    ProductOp,
    accumulating,
    assert_covers,
    cases,
    check_case,
    distinct_points,
    fixed,
    magnitude,
    operand_values,
    power,
    row_named,
)
from hypothesis import given, settings
from hypothesis import strategies as st

# Each example compiles a funcarray program and jax's operations: 3 examples for each of
# the 22 rows keeps the file within about 20 s on 2 idle cores (the thorough profile scales
# the count, conftest.py).
_EXAMPLES = settings(max_examples=3)


_PAIR_VECTORS = (((3,), (3,)), ((), (3,)), ((), ()), ((0,), (0,)), ((2,), (3,)))
_DOT_SHAPES = (*_PAIR_VECTORS, ((2, 3), (3,)), ((2, 3), (3, 2)), ((2, 2, 3), (3, 2)),
               ((3,), (2, 3, 2)), ((2, 0), (0, 3)), ((2, 3), (2, 3)))
_MATMUL_SHAPES = (((3,), (3,)), ((2, 3), (3, 2)), ((2, 2, 3), (3, 2)), ((1, 2, 3), (2, 3, 1)),
                  ((3,), (2, 3, 2)), ((0, 3), (3, 2)), ((2, 0), (0, 2)), ((2, 3), (2, 3)),
                  ((), (3,)))
_INNER_SHAPES = (*_PAIR_VECTORS, ((2, 3), (3,)), ((2, 3), (2, 3)), ((2, 3), (3, 2)))
_ANY_PAIR = (((3,), (2,)), ((), (3,)), ((2, 2), (2,)), ((0,), (2,)), ((), ()), ((2, 1), (1, 2)))
_CONVOLVE_SHAPES = (((3,), (2,)), ((2,), (3,)), ((4,), (1,)), ((3,), (3,)), ((0,), (2,)),
                    ((), (2,)), ((2, 2), (2,)))
_MODES = st.sampled_from(("full", "same", "valid", "bad"))
_EINSUM = (
    ("ij,jk->ik", ((2, 3), (3, 2))), ("ii->", ((3, 3),)), ("ii->i", ((3, 3),)),
    ("...i,...i->...", ((2, 3), (3,))), ("i,i", ((3,), (3,))), ("ij->ji", ((2, 3),)),
    ("bij,bjk->bik", ((2, 2, 3), (2, 3, 2))), ("i,j->ij", ((2,), (3,))), ("ijk->", ((2, 3, 2),)),
    ("...ij->...ji", ((2, 2, 3),)), ("ij,j", ((2, 3), (2,))), ("i->", ((0,),)),
    ("ij,jk,kl->il", ((2, 3), (3, 2), (2, 2))), (",i->i", ((), (3,))),
    ("ij,ij->ij", ((2, 3), (1, 3))), ("iij->j", ((2, 2, 3),)),
)


_EINSUM_SHAPES = tuple(dict.fromkeys(shapes for _, shapes in _EINSUM))


def _einsum_subscripts(shapes):
    return st.fixed_dictionaries({"subscripts": st.sampled_from(
        [subscripts for subscripts, s in _EINSUM if s == shapes])})


def _einsum_terms(case):
    """The product of the operands' sizes: at least the number of terms summed."""
    return max((math.prod(np.shape(v)) for v in case.operands), default=1)


def _einsum_path_contraction(ns, *operands, subscripts, optimize):
    path = ns.einsum_path(subscripts, *operands, optimize=optimize)[0]
    return ns.einsum(subscripts, *operands, optimize=path)


def _gradient_terms(case):
    return 2


def _interp_scale(case):
    x, xp, fp = case.operands[:3]
    return magnitude(fp) * power(max(magnitude(x), magnitude(xp)), 2)


def _unwrap_scale(case):
    p = case.operands[0]
    period = case.kwargs.get("period", 2 * np.pi)
    return magnitude(p) + magnitude(period) * max(np.size(p), 1)


def _cov_scale(case):
    return power(max(magnitude(v) for v in case.operands), 2) * 4


def _corrcoef_scale(case):
    """The covariances over the standard deviations: relative error grows as the rows'
    spread shrinks against their magnitude."""
    x = np.asarray(case.operands[0], np.complex128)
    if x.size == 0 or not np.isfinite(x).all():
        return np.inf
    with np.errstate(all="ignore"):
        rows = np.atleast_2d(x if case.kwargs.get("rowvar", True) else x.T)
        spread = np.abs(rows - rows.mean(axis=1, keepdims=True)).max(axis=1)
    positive = spread[spread > 0]
    return power(magnitude(x), 2) / positive.min() ** 2 if positive.size else 1.0


@st.composite
def _interp_operands(draw, dtype, small):
    x = draw(operand_values(dtype, draw(st.sampled_from(((), (3,), (2, 2), (0,)))), small))
    n = draw(st.integers(1, 4))
    xp = np.array(draw(distinct_points(n))).astype(dtype)
    fp = draw(operand_values(dtype, draw(st.sampled_from(((n,), (n,), (n + 1,)))), small))
    return x, xp, fp


PRODUCT_OPS = (
    ProductOp("dot", lambda ns, a, b, **kw: ns.dot(a, b, **kw), _DOT_SHAPES, accumulating()),
    ProductOp("matmul", lambda ns, a, b, **kw: ns.matmul(a, b, **kw), _MATMUL_SHAPES,
              accumulating()),
    ProductOp("inner", lambda ns, a, b, **kw: ns.inner(a, b, **kw), _INNER_SHAPES,
              accumulating()),
    ProductOp("outer", lambda ns, a, b: ns.outer(a, b), _ANY_PAIR, terms=lambda case: 1),
    ProductOp("kron", lambda ns, a, b: ns.kron(a, b), _ANY_PAIR, terms=lambda case: 1),
    ProductOp("tensordot", lambda ns, a, b, axes, **kw: ns.tensordot(a, b, axes, **kw),
              (((2, 3), (3, 2)), ((2, 3), (2, 3)), ((3,), (3,)), ((2, 3), (3,))),
              accumulating(fixed(axes=st.sampled_from((0, 1, 2, 3, ([1], [0]), ([0, 1], [0, 1]),
                                                         ([1], [1]), ([-1], [0])))))),
    ProductOp("einsum", lambda ns, *ops, subscripts, **kw: ns.einsum(subscripts, *ops, **kw),
              _EINSUM_SHAPES, accumulating(_einsum_subscripts), terms=_einsum_terms),
    ProductOp("einsum_path", _einsum_path_contraction, _EINSUM_SHAPES,
              lambda shapes: st.fixed_dictionaries({
                  "subscripts": _einsum_subscripts(shapes).map(lambda kw: kw["subscripts"]),
                  "optimize": st.sampled_from(("greedy", "optimal", True))}),
              scalars=False, terms=_einsum_terms),
    ProductOp("vdot", lambda ns, a, b, **kw: ns.vdot(a, b, **kw),
              (*_PAIR_VECTORS, ((2, 3), (3, 2)), ((2, 3), (6,))), accumulating()),
    ProductOp("vecdot", lambda ns, a, b, axis, **kw: ns.vecdot(a, b, axis=axis, **kw),
              (((3,), (3,)), ((2, 3), (3,)), ((2, 3), (2, 3)), ((2, 3), (2, 1)), ((0,), (0,)),
               ((2,), (3,)), ((), (3,))),
              accumulating(fixed(axis=st.sampled_from((-1, 0, -2, 2)))), scalars=False),
    ProductOp("matvec", lambda ns, a, b: ns.matvec(a, b),
              (((2, 3), (3,)), ((2, 2, 3), (3,)), ((2, 3), (2, 3)), ((2, 3), (2,)),
               ((0, 3), (3,)), ((3,), (3,))), scalars=False),
    ProductOp("vecmat", lambda ns, a, b: ns.vecmat(a, b),
              (((3,), (3, 2)), ((2, 3), (3, 2)), ((2, 3), (2, 2, 3)), ((2,), (3, 2)),
               ((3,), (3,))), scalars=False),
    ProductOp("cross", lambda ns, a, b, **kw: ns.cross(a, b, **kw),
              (((3,), (3,)), ((2, 3), (3,)), ((2,), (3,)), ((2,), (2,)), ((3, 2), (3, 2)),
               ((2, 3), (4,)), ((0, 3), (3,))),
              lambda shapes: st.one_of(st.just({}), st.fixed_dictionaries(
                  {"axisa": st.sampled_from((0, -1)), "axisb": st.sampled_from((0, -1))}),
                  st.fixed_dictionaries({"axis": st.sampled_from((0, -1, 2))})),
              terms=lambda case: 2),
    ProductOp("convolve", lambda ns, a, v, mode: ns.convolve(a, v, mode), _CONVOLVE_SHAPES,
              fixed(mode=_MODES)),
    ProductOp("correlate", lambda ns, a, v, mode: ns.correlate(a, v, mode), _CONVOLVE_SHAPES,
              fixed(mode=_MODES)),
    ProductOp("trapezoid", lambda ns, y, x=None, **kw: ns.trapezoid(y, x, **kw),
              (((3,),), ((2, 3),), ((0,),), ((),), ((3,), (3,)), ((2, 3), (3,)), ((3,), (2,))),
              fixed(dx=st.sampled_from((1.0, 0.5, 2)), axis=st.sampled_from((-1, 0))),
              scalars=False),
    ProductOp("gradient", lambda ns, f, *dx, **kw: ns.gradient(f, *dx, **kw),
              (((3,),), ((2, 3),), ((1,),), ((),), ((3,), ()), ((3,), (3,)), ((2, 3), (3,))),
              lambda shapes: st.fixed_dictionaries({}, optional={
                  "axis": st.sampled_from((None, -1, 0, (0, 1))),
                  "edge_order": st.sampled_from((1, 2, 3))}),
              scalars=False, terms=_gradient_terms),
    ProductOp("ediff1d", lambda ns, a, **kw: ns.ediff1d(a, **kw),
              (((3,),), ((2, 3),), ((0,),), ((),)),
              lambda shapes: st.fixed_dictionaries({}, optional={
                  "to_end": st.sampled_from((0, -1.5, np.array([1, 2], np.int32))),
                  "to_begin": st.sampled_from((3, np.array([0.5], np.float32)))}),
              terms=lambda case: 2),
    ProductOp("unwrap", lambda ns, p, **kw: ns.unwrap(p, **kw),
              (((3,),), ((2, 3),), ((0,),), ((),)),
              lambda shapes: st.fixed_dictionaries({}, optional={
                  "discont": st.sampled_from((None, 1.0, 4.0)), "axis": st.sampled_from((-1, 0)),
                  "period": st.sampled_from((2 * np.pi, 4, 3.0))}),
              scale=_unwrap_scale),
    ProductOp("interp", lambda ns, x, xp, fp, **kw: ns.interp(x, xp, fp, **kw),
              kwargs=fixed(left=st.sampled_from((None, -1.0)),
                            right=st.sampled_from((None, 2.5)),
                            period=st.sampled_from((None, None, 3.0))),
              terms=lambda case: 4, scale=_interp_scale, operands=_interp_operands),
    ProductOp("cov", lambda ns, m, *y, **kw: ns.cov(m, *y, **kw),
              (((2, 3),), ((3,),), ((1, 3),), ((2, 3), (3,)), ((0,),), ((3, 1),)),
              lambda shapes: st.fixed_dictionaries({}, optional={
                  "rowvar": st.booleans(), "bias": st.booleans(),
                  "ddof": st.sampled_from((None, 0, 2)),
                  "fweights": st.sampled_from((None, np.array([1, 2, 1], np.int32),
                                               np.array([1, 1], np.int32))),
                  "aweights": st.sampled_from((None, np.array([0.5, 1.0, 2.0], np.float32)))}),
              scalars=False, scale=_cov_scale),
    ProductOp("corrcoef", lambda ns, x, *y, **kw: ns.corrcoef(x, *y, **kw),
              (((2, 3),), ((3,),), ((3, 3),), ((2, 3), (3,)), ((0,),)),
              fixed(rowvar=st.booleans()), scalars=False, scale=_corrcoef_scale),
)


# The functions this table answers for (issue 27); each is a row of PRODUCT_OPS.
ASSIGNED = (
    "dot matmul inner outer kron tensordot einsum einsum_path vdot vecdot matvec vecmat cross "
    "convolve correlate trapezoid gradient ediff1d unwrap interp cov corrcoef").split()


def test_every_assigned_function_is_in_the_table():
    assert_covers(PRODUCT_OPS, ASSIGNED)


@pytest.mark.parametrize("op", PRODUCT_OPS, ids=lambda op: op.name)
@_EXAMPLES
@given(data=st.data())
def test_eager_and_jit_match_jax(op, data):
    check_case(op, data.draw(cases(op), label="case"))


# Defects the table found, kept as explicit examples (each reproduces one on its own).
REGRESSIONS = (
    # vdot of two Python scalars, a bool promoted to int: strong, jax's is weak.
    ("vdot", Case((False, 0), {}, small=True)),
    # int32 products accumulated into int8 on request: jax refuses fewer bits than the
    # operands' for integer, bool and complex products.
    ("dot", Case((np.array([1, 2], np.int32), np.array([3, 4], np.int32)),
                 {"preferred_element_type": np.dtype(np.int8)}, small=True)),
    # einsum refused einsum_path's path of one operand, [(0,)].
    ("einsum_path", Case((np.ones((3, 3), np.float32),), {"subscripts": "ii->",
                                                         "optimize": "greedy"}, small=True)),
)


@pytest.mark.parametrize(("name", "case"), REGRESSIONS, ids=lambda v: str(v)[:40])
def test_regressions_match_jax(name, case):
    check_case(row_named(PRODUCT_OPS, name), case)
