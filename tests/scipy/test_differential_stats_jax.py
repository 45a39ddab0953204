"""Differential test of ``funcarray.scipy.stats``'s distributions against
``jax.scipy.stats``: funcarray eager, funcarray jit and jax on the same operands must agree on
whether they raise, and otherwise on shape, dtype, weak type and values.

Every function of every scalar distribution (logpdf, pdf, cdf, logcdf, sf, logsf, ppf, isf,
logpmf, pmf, entropy) is drawn as the special functions are (test_differential_special_jax:
dtypes, broadcasting shapes, Python floats, edge values), each argument's values chosen by its
name: points ``x`` over the real line and the support's edges, probabilities ``q`` in [0, 1],
counts ``k`` and ``n`` as integers, ``loc`` anywhere, ``scale`` and the shape parameters
positive with 0 and negative values among the edges (outside the support: NaN or -inf, which
both libraries must agree on).

Values are compared within 64 ulps of the computing precision relative to
``max(|jax|, 1)``: a density is a handful of special functions (lgamma, log1p, the incomplete
beta and gamma functions, erfc), each a few ulps, combined; log densities cancel large
terms (lgamma(a + b) - lgamma(a) - lgamma(b)), so their error is absolute near zero.
"""

from __future__ import annotations

import inspect

import jax
import jax.numpy as jnp
import jax.scipy.stats as jstats
import numpy as np
import pytest
import scipy.stats as scipy_stats
from hypothesis import given, settings
from hypothesis import strategies as st
from test_differential_special_jax import (
    _GAMMA_POINTS,
    _POSITIVE,
    _PROBABILITY,
    Arg,
    SpecialOp,
    cases,
    check_case,
)

import funcarray as fa
import funcarray.numpy as fnp
import funcarray.scipy.stats as fstats

# The CI budget: a fixed number of examples over the whole table, each drawing its
# function (the same ones every CI run, derandomized); the thorough profile scales the
# count (conftest.py) and so reaches every function often.
_EXAMPLES = settings(max_examples=20)

# The functions of funcarray.scipy.stats that are not distributions of scalars: each with why
# it is not drawn here.
NOT_SCALAR_DISTRIBUTIONS = {
    "ModeResult": "a result type, not a function",
    "mode": "a reduction with ties; not yet in a differential test",
    "rankdata": "a sort-based function with methods; not yet in a differential test",
    "sem": "a reduction; not yet in a differential test",
    "gaussian_kde": "a class over a data set; not yet in a differential test",
    "dirichlet": "vector-valued operands on a simplex; not yet in a differential test",
    "multinomial": "vector-valued operands; not yet in a differential test",
    "multivariate_normal": "matrix operands; not yet in a differential test",
}

_POINT = Arg(-20.0, 20.0, (0.0, -0.0, 1.0, -1.0, 0.5, 1e-30, 1e10, -1e10) + _GAMMA_POINTS[:4])
_COUNT = Arg(-1.0, 20.0, (0.0, 1.0, 2.0, -1.0, 5.0, 0.5))
_SHAPE_PARAMETER = Arg(0.0, 20.0, (0.0, 1.0, 0.5, 2.0, 1e-30, -1.0, 1e4))

# Each argument name of the distributions' functions and its values. A distribution added
# later whose functions take a new argument name fails here until it joins.
ARGUMENTS = {
    "x": _POINT, "k": _COUNT, "q": _PROBABILITY, "n": _COUNT, "loc": Arg(-5.0, 5.0, (0.0,)),
    "scale": _POSITIVE, "a": _SHAPE_PARAMETER, "b": _SHAPE_PARAMETER,
    "df": _SHAPE_PARAMETER, "mu": _SHAPE_PARAMETER, "beta": _SHAPE_PARAMETER,
    "kappa": _SHAPE_PARAMETER, "p": _PROBABILITY, "c": _PROBABILITY,
}


def _distribution_functions():
    """``(distribution, function name)`` of every scalar distribution, in a stable order."""
    for dist in fstats.__all__:
        if dist in NOT_SCALAR_DISTRIBUTIONS:
            continue
        module = getattr(fstats, dist)
        for name in module.__all__:
            yield dist, name


def _op(dist, name):
    fn = getattr(getattr(fstats, dist), name)
    names = [p for p in inspect.signature(fn).parameters]
    # gumbel's and logistic's ppf name their probability p and x: a probability either way.
    args = tuple(_PROBABILITY if name in ("ppf", "isf") and i == 0 else ARGUMENTS[p]
                 for i, p in enumerate(names))
    # SciPy's function of the same name is the third opinion where funcarray and jax differ.
    reference = getattr(getattr(scipy_stats, dist, None), name, None)
    return SpecialOp(f"{dist}.{name}", args, ulps=64, scale=1.0, fn=fn,
                     jax_fn=getattr(getattr(jstats, dist), name), namespace="stats",
                     reference=reference)


STATS_OPS = tuple(_op(dist, name) for dist, name in _distribution_functions())


def test_every_stats_function_is_in_the_table():
    """A name added to funcarray.scipy.stats later is either a scalar distribution (drawn
    from its signature, every function of its __all__) or listed with a reason."""
    for name in fstats.__all__:
        if name in NOT_SCALAR_DISTRIBUTIONS:
            continue
        assert hasattr(getattr(fstats, name), "__all__"), name
    tested = {op.name for op in STATS_OPS}
    assert {f"{d}.{n}" for d, n in _distribution_functions()} == tested
    assert set(NOT_SCALAR_DISTRIBUTIONS) <= set(fstats.__all__)


@_EXAMPLES
@given(op=st.sampled_from(STATS_OPS), data=st.data())
def test_eager_and_jit_match_jax(op, data):
    check_case(op, data.draw(cases(op), label="case"))


# The densities and distribution functions that are exp of a formula NaN for an invalid
# parameter (gumbel's scale, vonmises' kappa, wrapcauchy's c).
_EXP_OF_AN_INVALID_PARAMETER = (
    (fstats.gumbel_l.pdf, "scale"), (fstats.gumbel_l.cdf, "scale"),
    (fstats.gumbel_l.sf, "scale"), (fstats.gumbel_r.pdf, "scale"),
    (fstats.gumbel_r.cdf, "scale"), (fstats.gumbel_r.sf, "scale"),
    (fstats.vonmises.pdf, "kappa"), (fstats.wrapcauchy.pdf, "c"))


@pytest.mark.parametrize("fn, parameter", _EXP_OF_AN_INVALID_PARAMETER,
                         ids=lambda v: v if isinstance(v, str)
                         else f"{v.__module__.rsplit('.', 1)[-1]}.{v.__name__}")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("invalid", [0.0, -1.0])
def test_invalid_parameter_gives_nan_under_jit(fn, parameter, dtype, invalid):
    """An invalid parameter gives NaN under jit as eagerly (NumPy's exp of NaN is the
    oracle), although XLA on the CPU miscompiles exp of a select with a NaN constant:
    these formulas select after exp, and the lowering guards the exp as well."""
    x = np.linspace(0.0, 6.0, 8).astype(dtype)
    got = fa.jit(lambda x, p: fn(x, **{parameter: p}))(fnp.asarray(x), fnp.asarray(dtype(invalid)))
    assert got.dtype == dtype
    assert np.isnan(np.asarray(got)).all() and np.isnan(np.exp(dtype(np.nan))), got


def test_exp_of_a_nan_select_under_jit():
    """The raw pattern, which jax's jit (XLA on the CPU) turns into garbage: funcarray's
    lowering selects the NaN past the exp (lowering.stablehlo.EXP_POLYNOMIAL_OPS)."""
    def density(x, scale):
        return fnp.exp(fnp.where(scale > 0, x, np.nan))

    got = np.asarray(fa.jit(density)(fnp.zeros(3), 0.0))
    assert np.isnan(got).all(), got


# The operands of the weak-type test: a first argument (an int8 array, a weakly typed float
# array, a Python float) with parameters (Python floats, or an int8 array for each).
_WEAK_TYPE_CASES = ("int8 x", "weak x", "int8 parameters")


def _weak_type_operands(case, operands, n_params):
    int8, weak = operands
    if case == "int8 x":
        return (int8,) + (0.5,) * n_params
    if case == "weak x":
        return (weak,) + (0.5,) * n_params
    return (0.5,) + (int8,) * n_params


def _weak_type_cases():
    """``(distribution, function, case)`` of every function and operand case (jax refuses
    int8 in norm.ppf and norm.isf: their q is never int8 here)."""
    for dist, name in _distribution_functions():
        for case in _WEAK_TYPE_CASES:
            if case == "int8 x" and f"{dist}.{name}" in ("norm.ppf", "norm.isf"):
                continue
            yield dist, name, case


def test_stats_of_integer_and_weak_arrays_are_typed_as_jax():
    """Where jax's formula mixes a strong constant into the result (``lax._const``), the
    result of an array argument is strong even when the promoted arguments are weak (an
    integer array with Python-float parameters); where the constant's example is 0-d, it
    stays weak. Every function, eager and staged as jit stages it (``eval_shape``: types
    only, no compiling), against jax's types (``jax.eval_shape``)."""
    calls = [(dist, name, case, len(inspect.signature(getattr(getattr(fstats, dist), name))
                                    .parameters) - 1)
             for dist, name, case in _weak_type_cases()]

    def every_function(library, operands):
        return [getattr(getattr(library, dist), name)(*_weak_type_operands(case, operands, n))
                for dist, name, case, n in calls]

    int8 = np.asarray([0, 1, 2], np.int8)
    want = [r.weak_type for r in jax.eval_shape(
        lambda *ops: every_function(jstats, ops), jnp.asarray(int8), jnp.broadcast_to(0.5, (3,)))]
    eager = [r.weak_type for r in every_function(
        fstats, (fnp.asarray(int8), fnp.broadcast_to(0.5, (3,))))]
    staged = [r.weak_type for r in fa.eval_shape(
        lambda *ops: every_function(fstats, ops), fnp.asarray(int8), fnp.broadcast_to(0.5, (3,)))]
    labels = [f"{dist}.{name}({case})" for dist, name, case, _ in calls]
    assert [lab for lab, g, w in zip(labels, eager, want) if g != w] == []
    assert [lab for lab, g, w in zip(labels, staged, want) if g != w] == []
