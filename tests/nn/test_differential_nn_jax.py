"""Differential test of ``funcarray.nn``'s functions against ``jax.nn``: funcarray eager,
funcarray jit and jax on the same operand and parameters must agree on whether they raise,
and otherwise on shape, dtype, weak type and values.

The operand is an array of any dtype (0-d, empty, one or two axes; values mixing a small
range with each dtype's edge values: signed zeros, infinities, NaN, extremes, subnormals,
integer limits) or a Python scalar; the parameters are drawn per function (axes valid and out
of range, slopes, class counts). Values are compared within a few rounding errors of the
result's dtype, NaNs and signed zeros included. jax runs with x64 on only when the operand is
64-bit.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import jax
import numpy as np
import pytest
from differential_compare import (
    BITS_64,
    DEFAULT_32,
    Raised,
    attempt,
    parts,
    reproducer,
    same_kind_of_answer,
    subnormal,
)
from differential_values import array_of, python_scalars
from hypothesis import given, settings
from hypothesis import strategies as st
from op_table import ALL_DTYPES, ANY, kind_of

import funcarray as fa
import funcarray.nn as fnn
from funcarray import dtypes

_SHAPES = ((), (0,), (3,), (2, 3))

# Each example compiles a funcarray program and a jax one: 5 examples for each of the ~30
# functions keeps the file within about half a minute on 2 idle cores (the thorough
# profile scales the count, conftest.py).
_EXAMPLES = settings(max_examples=5)


@dataclasses.dataclass(frozen=True)
class NnOp:
    """One function and how to call it.

    * ``call(nn, x, **kwargs)`` runs it with either namespace (``funcarray.nn`` or
      ``jax.nn``).
    * ``kwargs(shape)`` is a Hypothesis strategy of its keyword arguments for an operand of
      ``shape`` (valid and invalid ones).
    * ``ulps``: how many rounding errors of the result's dtype the values may differ by
      (relative to the result, or to one where it is small).
    * ``elementwise``: each result element depends on the same operand element only, so a
      subnormal operand element excuses its own result element alone (below).
    """

    name: str
    call: Callable
    kwargs: Callable = lambda shape: st.just({})
    ulps: int = 8
    elementwise: bool = True


def _axis(shape, none=True):
    choices = st.integers(-len(shape) - 1, len(shape))
    return st.one_of(st.none(), choices) if none else choices


def _fixed(**strategies):
    return lambda shape: st.fixed_dictionaries(strategies)


def _unary(name, **kwargs):
    return NnOp(name, lambda nn, x, _name=name, **kw: getattr(nn, _name)(x, **kw), **kwargs)


_ALPHA = st.sampled_from((1.0, 0.5, 2.0, 0.0))
_REDUCING = {"elementwise": False, "ulps": 32}

NN_OPS = (
    *(_unary(name) for name in (
        "relu", "relu6", "sigmoid", "log_sigmoid", "silu", "swish", "soft_sign", "softplus",
        "selu", "mish", "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh", "identity",
        "tanh", "sparse_plus", "sparse_sigmoid", "log1mexp")),
    _unary("celu", kwargs=_fixed(alpha=_ALPHA)),
    _unary("elu", kwargs=_fixed(alpha=_ALPHA)),
    _unary("leaky_relu", kwargs=_fixed(negative_slope=st.sampled_from((0.01, 0.2, -1.0)))),
    _unary("gelu", kwargs=_fixed(approximate=st.booleans())),
    _unary("squareplus", kwargs=_fixed(b=st.sampled_from((4.0, 0.0, 1.0)))),
    _unary("glu", kwargs=lambda shape: st.fixed_dictionaries({"axis": _axis(shape, False)}),
           elementwise=False),
    _unary("softmax", kwargs=lambda shape: st.fixed_dictionaries({"axis": _axis(shape)}),
           **_REDUCING),
    _unary("log_softmax", kwargs=lambda shape: st.fixed_dictionaries({"axis": _axis(shape)}),
           **_REDUCING),
    _unary("logsumexp", kwargs=lambda shape: st.fixed_dictionaries(
        {"axis": _axis(shape), "keepdims": st.booleans()}), **_REDUCING),
    _unary("standardize", kwargs=lambda shape: st.fixed_dictionaries(
        {"axis": _axis(shape), "epsilon": st.sampled_from((1e-5, 0.0, 1.0))}), **_REDUCING),
    _unary("one_hot", kwargs=lambda shape: st.fixed_dictionaries(
        {"num_classes": st.integers(0, 4),
         "dtype": st.sampled_from((None, np.float32, np.int8, np.bool_, np.float16)),
         "axis": st.integers(-len(shape) - 2, len(shape) + 1)}), ulps=0),
)


def _attention(nn, q, **kwargs):
    # q, k and v of the same (batch, length, heads, head size) shape: k and v are views of q.
    return nn.dot_product_attention(q, q[..., ::-1, :, :], q * 0.5, **kwargs)


ATTENTION_OP = NnOp("dot_product_attention", _attention, lambda shape: st.fixed_dictionaries(
    {"is_causal": st.booleans(), "scale": st.sampled_from((None, 0.5))}), **_REDUCING)
_ATTENTION_SHAPES = ((1, 3, 2, 4), (2, 2, 1, 3), (1, 0, 1, 2), (3, 4))


# The public functions of funcarray.nn that are not jax.nn functions: the equinox-style model
# helpers, tested against their own oracles in tests/nn/test_module.py and test_state_dict.py.
_NOT_IN_JAX_NN = frozenset({
    "field", "filter_grad", "filter_jit", "filter_value_and_grad", "filter_vmap", "is_array",
    "is_inexact_array", "load_state_dict", "name_mask", "named_parameters", "state_dict",
    "static_field", "tree_at"})


def test_every_jax_nn_function_is_in_the_table():
    public = {name for name in dir(fnn) if not name.startswith("_")
              and callable(getattr(fnn, name)) and not isinstance(getattr(fnn, name), type)}
    tabled = {op.name for op in NN_OPS} | {ATTENTION_OP.name}
    assert public - _NOT_IN_JAX_NN == tabled
    assert all(hasattr(jax.nn, name) for name in tabled)


# --------------------------------------------------------------------------------------------
# Cases and the three implementations
# --------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Case:
    operand: object
    kwargs: dict

    def __repr__(self):
        return f"({reproducer(self.operand)}, **{self.kwargs!r})"


@st.composite
def cases(draw, op, shapes=_SHAPES):
    if op is not ATTENTION_OP and draw(st.integers(0, 5)) == 0:
        operand = draw(python_scalars(ANY), label="scalar")
        return Case(operand, draw(op.kwargs(()), label="kwargs"))
    dtype = draw(st.sampled_from(ALL_DTYPES), label="dtype")
    shape = draw(st.sampled_from(shapes), label="shape")
    operand = draw(array_of(dtype, shape, ANY), label="operand")
    return Case(operand, draw(op.kwargs(shape), label="kwargs"))


def _x64(case) -> bool:
    x = case.operand
    return (np.asarray(x).dtype in BITS_64 if isinstance(x, np.ndarray)
            else False)  # a Python scalar is 32-bit in funcarray, and in jax without x64


def _run(op, case, namespace, jit):
    x = case.operand
    if jit and isinstance(x, np.ndarray):
        return attempt(lambda: fa.jit(lambda v: op.call(namespace, v, **case.kwargs))(x),
                       multiple=False)
    return attempt(lambda: op.call(namespace, x, **case.kwargs), multiple=False)


def _run_jax(op, case):
    x64 = _x64(case)
    with jax.enable_x64(x64):
        return _run(op, case, jax.nn, jit=False), x64


# --------------------------------------------------------------------------------------------
# Allowances
# --------------------------------------------------------------------------------------------


# jax.nn raises on these real operands where funcarray computes the function of their float
# value (as jax.numpy's inexact promotion would): lax.logistic refuses integers and bools
# (sigmoid, silu/swish, glu), jax negates (log_sigmoid, log1mexp) or subtracts (softmax,
# log_softmax) a bool, which lax refuses. funcarray is compared with jax on the operand
# converted to the float funcarray computes in (docs/decisions.md, "Deliberate differences
# from JAX").
_JAX_REFUSES = {
    **dict.fromkeys(("sigmoid", "silu", "swish", "glu"), "biu"),
    **dict.fromkeys(("log_sigmoid", "log1mexp", "softmax", "log_softmax"), "b"),
}


def jax_refuses_a_real_operand(op, case) -> bool:
    x = case.operand
    if type(x) is int and not -2**31 <= x < 2**31:
        return False  # funcarray refuses a Python int beyond int32 too, as jax.numpy does
    return kind_of(np.asarray(x).dtype) in _JAX_REFUSES.get(op.name, "")


def jax_integer_arithmetic_wraps(op, case) -> bool:
    """jax.nn's formula does integer arithmetic that wraps around on this integer operand,
    where funcarray computes in float first, as the mathematics: it negates an unsigned
    operand or the dtype's minimum (log_sigmoid, log1mexp: -uint8(1) is 255), subtracts the
    maximum from an operand whose range exceeds its dtype's (softmax, log_softmax), squares
    past the dtype's range (squareplus, standardize) or adds 1 to an abs past it (soft_sign:
    abs(int8(-127)) + 1 is -128). funcarray's values are compared with jax's on the operand
    converted to float."""
    x = case.operand
    if isinstance(x, bool) or kind_of(np.asarray(x).dtype) not in "iu":
        return False
    dtype = x.dtype if isinstance(x, np.ndarray) else np.dtype(np.int32)  # a weak int32
    low, high = int(np.iinfo(dtype).min), int(np.iinfo(dtype).max)
    values = [int(v) for v in np.ravel(x)]
    if not values:
        return False
    negation_wraps = (low == 0 and max(values) > 0) or low in values
    wraps = {
        "log_sigmoid": negation_wraps,
        "log1mexp": negation_wraps,
        "softmax": min(values) - max(values) < low,
        "log_softmax": min(values) - max(values) < low,
        "squareplus": max(v * v for v in values) > high,
        "standardize": max(v * v for v in values) > high,
        "soft_sign": max(abs(v) for v in values) + 1 > high,
    }
    return wraps.get(op.name, False)


def _as_float(x):
    """``x`` as the float funcarray computes an integer or bool operand in: a Python int as
    a (weak) Python float, a bool as a strong float32, 64-bit integers as float64."""
    if isinstance(x, bool):
        return np.asarray(x, np.float32)
    if isinstance(x, int):
        return float(x)
    return x.astype(np.float64 if x.dtype.itemsize == 8 else np.float32)


# The functions of real arguments refuse complex operands with a TypeError, where jax.nn
# computes through formulas that mean nothing for complex numbers (relu's maximum is a
# lexicographic one, hard_tanh's comparisons compare real parts) or that funcarray does not
# extend (docs/decisions.md, "Deliberate differences from JAX"). identity and tanh take
# complex operands.
_TAKES_COMPLEX = frozenset({"identity", "tanh"})


def funcarray_refuses_complex(op, case, got) -> bool:
    return (op.name not in _TAKES_COMPLEX and np.iscomplexobj(case.operand)
            and isinstance(got, Raised) and isinstance(got.exc, TypeError)
            and "complex" in str(got.exc))


def jax_wraps_minus_one_to_unsigned(op, case) -> bool:
    """jax.nn.hard_tanh compares an unsigned operand with -1 wrapped to the dtype's maximum
    (hard_tanh(uint8 1) is 255 in jax); funcarray clips at 1 and is compared with NumPy."""
    return op.name == "hard_tanh" and kind_of(np.asarray(case.operand).dtype) == "u"


def one_hot_default_float_is_32_bit(op, case, x64) -> bool:
    """jax's one_hot defaults to its default float, float64 under x64 (64-bit indices here);
    funcarray's default float is always float32 (docs/decisions.md, "No global x64 flag").
    The values are compared in funcarray's dtype."""
    return op.name == "one_hot" and case.kwargs.get("dtype") is None and x64


def expected(op, case):
    """jax's answer for ``case``, or what the allowances above put in its place."""
    want, x64 = _run_jax(op, case)
    if isinstance(want, Raised) and jax_refuses_a_real_operand(op, case):
        want, _ = _run_jax(op, dataclasses.replace(case, operand=_as_float(case.operand)))
    elif isinstance(want, Raised):
        return want
    elif jax_integer_arithmetic_wraps(op, case):
        of_float, _ = _run_jax(op, dataclasses.replace(case, operand=_as_float(case.operand)))
        want = [(v.astype(w.dtype), weak) for (w, weak), (v, _) in zip(want, of_float)]
    elif jax_wraps_minus_one_to_unsigned(op, case):
        x = case.operand
        want = [(np.minimum(x, np.ones_like(x)), weak) for _, weak in want]
    elif one_hot_default_float_is_32_bit(op, case, x64):
        want = [(w.astype(DEFAULT_32.get(w.dtype, w.dtype)), weak) for w, weak in want]
    return want


def subnormal_elements(op, case, got, want):
    """Elements where XLA (jax, funcarray's jit) reads or writes a subnormal as zero and
    NumPy (funcarray's eager kernels) computes with it: an elementwise function's result
    element of a subnormal operand element, or a subnormal result; everything of a reducing
    function whose operand holds a subnormal."""
    excused = np.zeros(want.shape, bool)
    for result in (got, want):
        if kind_of(result.dtype) in "fc":
            for part in parts(result):
                excused |= subnormal(part, result.dtype)
    x = np.asarray(case.operand)
    if kind_of(x.dtype) not in "fc":
        return excused
    operand_subnormal = np.zeros(x.shape, bool)
    for part in parts(x):
        operand_subnormal |= subnormal(part, x.dtype)
    if not op.elementwise or operand_subnormal.shape != want.shape:
        return excused | operand_subnormal.any()
    return excused | operand_subnormal


def c99_complex_special_values(op, case, got, want):
    """Elements of complex tanh whose operand has an infinite or NaN part and whose result
    has a NaN part in jax: NumPy's kernels (funcarray eager) follow C99's Annex G there
    (tanh(0 + nan j) is 0 + nan j), XLA's formula (jax) gives nan + nan j; as in the
    elementwise table (tests/numpy/test_differential_jax.py)."""
    x = case.operand
    if op.name != "tanh" or not np.iscomplexobj(x):
        return np.zeros(want.shape, bool)
    with np.errstate(invalid="ignore"):
        return ~np.isfinite(np.asarray(x)) & (np.isnan(want.real) | np.isnan(want.imag))


def zero_variance_slices(op, case, got, want):
    """Elements of standardize with epsilon 0 in a slice of equal values: the variance is 0
    and the result 0 * rsqrt(0), NaN in exact arithmetic (funcarray's eager NumPy), but XLA
    rounds the mean of n equal values an ulp off them, so jax's variance is a round-off and
    its result 0, NaN or large."""
    x = np.asarray(case.operand)
    if op.name != "standardize" or case.kwargs.get("epsilon") != 0 or x.size == 0:
        return np.zeros(want.shape, bool)
    axis = case.kwargs.get("axis", -1)
    with np.errstate(invalid="ignore"):
        constant = (np.max(x, axis=axis, keepdims=True) == np.min(x, axis=axis, keepdims=True))
    return np.broadcast_to(constant, want.shape)


# --------------------------------------------------------------------------------------------
# Comparison
# --------------------------------------------------------------------------------------------


def _close(op, g, w):
    """Equal (signed zeros and NaNs included), or within ``op.ulps`` of the result's dtype."""
    same = np.ones(w.shape, bool)
    for gp, wp in zip(parts(g), parts(w)):
        gp, wp = gp.astype(np.float64), wp.astype(np.float64)
        with np.errstate(invalid="ignore", over="ignore"):
            equal = ((gp == wp) & (np.signbit(gp) == np.signbit(wp))) | (
                np.isnan(gp) & np.isnan(wp))
            if op.ulps and kind_of(w.dtype) in "fc":
                eps = float(dtypes.finfo(w.dtype).eps)
                equal |= np.abs(gp - wp) <= op.ulps * eps * np.maximum(np.abs(wp), 1.0)
        same &= equal
    return same


def check_case(op, case):
    """Run ``case`` through funcarray eager, funcarray jit and jax, and compare."""
    want = expected(op, case)
    for what, jit in (("eager", False), ("jit", True)):
        got = _run(op, case, fnn, jit)
        where = f"{op.name}{case}, {what}"
        if funcarray_refuses_complex(op, case, got):
            continue
        if not same_kind_of_answer(where, got, want):
            continue
        assert not isinstance(got, Raised)
        for k, ((g, _), (w, _)) in enumerate(zip(got, want)):
            ok = (_close(op, g, w) | subnormal_elements(op, case, g, w)
                  | c99_complex_special_values(op, case, g, w)
                  | zero_variance_slices(op, case, g, w))
            assert ok.all(), f"{where}, output {k}:\n  got {g.tolist()}\n  jax {w.tolist()}"


@pytest.mark.parametrize("op", NN_OPS, ids=lambda op: op.name)
@_EXAMPLES
@given(data=st.data())
def test_eager_and_jit_match_jax(op, data):
    check_case(op, data.draw(cases(op), label="case"))


@_EXAMPLES
@given(data=st.data())
def test_attention_eager_and_jit_match_jax(data):
    check_case(ATTENTION_OP, data.draw(cases(ATTENTION_OP, _ATTENTION_SHAPES), label="case"))


# Cases funcarray once typed or computed unlike jax (issue 27): integer and bool operands of
# the formulas with Python-float constants (weak floats in jax), bools meeting a Python int
# (weak int32), hard_tanh of unsigned operands (it raised), gelu of Python numbers (strong
# in jax; those beyond int32 convert straight to float, as for logsumexp), squareplus of
# integers with a float b (weak in jax).
_REGRESSIONS = (
    *((name, Case(np.array([-7, 0, 2, 9]).astype(dtype), {})) for name, dtype
      in zip(("relu6", "hard_sigmoid", "hard_silu", "sparse_plus", "sparse_sigmoid", "selu"),
             (np.int8, np.uint8, np.int16, np.int32, np.uint32, np.int64))),
    ("elu", Case(np.array([1, 0, 3], np.uint16), {"alpha": 0.5})),
    ("celu", Case(np.array([True, False], np.bool_), {"alpha": 2.0})),
    ("leaky_relu", Case(np.array([-3, 4], np.int64), {"negative_slope": 0.2})),
    ("relu", Case(np.array([True, False], np.bool_), {})),
    ("relu", Case(False, {})),
    ("softplus", Case(np.array([True, False], np.bool_), {})),
    ("soft_sign", Case(True, {})),
    ("mish", Case(np.array([True], np.bool_), {})),
    ("hard_tanh", Case(np.array([True, False], np.bool_), {})),
    ("hard_tanh", Case(np.array([0, 1, 5, 255], np.uint8), {})),
    ("hard_tanh", Case(np.array([0, 2**64 - 1], np.uint64), {})),
    ("gelu", Case(3, {"approximate": True})),
    ("gelu", Case(-2.5, {"approximate": False})),
    ("gelu", Case(2**31, {"approximate": True})),
    ("logsumexp", Case(-2**64, {"axis": None, "keepdims": False})),
    ("squareplus", Case(np.array([1, -2], np.int8), {"b": 4.0})),
    ("squareplus", Case(False, {"b": 1.0})),
    ("squareplus", Case(np.array([3], np.int32), {"b": 4})),
    ("one_hot", Case(np.array([0, 2, -1], np.int64), {"num_classes": 3, "dtype": None,
                                                     "axis": -1})),
)
_OPS_BY_NAME = {op.name: op for op in NN_OPS}


@pytest.mark.parametrize(("name", "case"), _REGRESSIONS, ids=lambda v: v if isinstance(v, str)
                         else None)
def test_typed_as_jax_on_integer_and_bool_operands(name, case):
    check_case(_OPS_BY_NAME[name], case)
