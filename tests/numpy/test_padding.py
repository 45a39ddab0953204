"""``funcarray.numpy.pad``: every mode of ``jax.numpy.pad``, against jax as the oracle.

Hypothesis draws shapes (0-3 dims, size-1 and empty axes), every pad_width form, every mode
with its keyword arguments in each of their forms, and dtypes; the result (values, dtype, weak
type) must be jax's, eagerly and under ``jit``. jax runs with x64 off unless the input is a
64-bit dtype, so that both compute in the same precision (jax otherwise computes int32 means
and ramps in float64). Where jax fails on an empty axis it does not pad (linear_ramp and
maximum slice or reduce it anyway), NumPy's result is the oracle: the array padded along the
other axes. Then: gradients (finite differences) and vmap of every mode, the padding values
as traced operands, the callable mode, weak types, and the error messages.
"""

from __future__ import annotations

import contextlib

import hypothesis.strategies as st
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from helpers import assert_array_equal_typed
from hypothesis import given, settings

import funcarray as fa
import funcarray.numpy as fnp
from funcarray import dtypes
from funcarray.testing import check_grads, check_vmap

DTYPES = (dtypes.bool_, dtypes.int8, dtypes.uint8, dtypes.int32, dtypes.int64, dtypes.float16,
          dtypes.float32, dtypes.float64, dtypes.complex64)
STAT_MODES = ("maximum", "mean", "median", "minimum")
MODES = ("constant", "empty", "edge", "wrap", "reflect", "symmetric", "linear_ramp",
         *STAT_MODES)


# --------------------------------------------------------------------------------------------
# Values, oracle, comparison
# --------------------------------------------------------------------------------------------

def make_value(shape, dtype, seed: int) -> np.ndarray:
    """Distinct small values (bools excepted), so that a misplaced element changes the result
    and means of integers are exact in float32."""
    size = int(np.prod(shape, dtype=np.int64))
    values = np.random.default_rng(seed).permutation(size) - size // 3
    if dtype == dtypes.bool_:
        values = values % 2
    elif np.dtype(dtype).kind == "u":
        values = values + size
    elif np.dtype(dtype).kind == "c":
        values = values + 1j * values[::-1]
    return values.reshape(shape).astype(dtype)


def jax_context(dtype):
    """x64 on only for 64-bit inputs: jax then computes in the precision funcarray does."""
    wide = np.dtype(dtype) in (np.dtype(np.int64), np.dtype(np.float64),
                               np.dtype(np.complex128))
    return contextlib.nullcontext() if wide else jax.enable_x64(False)


def jax_pad(x: np.ndarray, pad_width, mode, **kwargs):
    with jax_context(x.dtype):
        return jnp.pad(jnp.asarray(x), pad_width, mode, **kwargs)


def check_like_jax(out, expected, mode=None):
    """Same shape, dtype, weak type and values (floats to their dtype's tolerance). Integer
    linear ramps may differ by 1: both floor ``start * (1 - t) + edge * t``, whose rounding
    just below an exact integer depends on whether XLA fuses the multiply-add."""
    assert out.weak_type == expected.weak_type
    expected = np.asarray(expected)
    if expected.dtype.kind in "iu" and mode == "linear_ramp":
        assert out.dtype == expected.dtype
        np.testing.assert_allclose(np.asarray(out, np.float64), expected.astype(np.float64),
                                   rtol=0, atol=1)
        return
    exact = expected.dtype.kind in "biu"
    assert_array_equal_typed(out, expected, rtol=0 if exact else None,
                             atol=0 if exact else 1e-6)


def padded_shape(shape, widths):
    pairs = np.broadcast_to(np.asarray(widths, dtype=np.int64), (len(shape), 2))
    return tuple(int(d + b + a) for d, (b, a) in zip(shape, pairs))


# --------------------------------------------------------------------------------------------
# Strategies
# --------------------------------------------------------------------------------------------

@st.composite
def pad_widths(draw, ndim: int, high: int = 6):
    """Every pad_width form NumPy and JAX share: ``n``, ``(n,)``, ``(before, after)``,
    ``((before, after),)`` and one pair per axis (zeros included)."""
    width = st.integers(0, high)
    forms = ["int", "single", "pair", "nested_pair"] + (["per_axis"] if ndim else [])
    form = draw(st.sampled_from(forms))
    if form == "int":
        return draw(width)
    if form == "single":
        return (draw(width),)
    if form == "pair":
        return (draw(width), draw(width))
    if form == "nested_pair":
        return ((draw(width), draw(width)),)
    return tuple((draw(width), draw(width)) for _ in range(ndim))


@st.composite
def pair_values(draw, ndim: int, element):
    """A scalar, ``(before, after)`` or one pair per axis, of ``element``."""
    form = draw(st.sampled_from(["scalar", "pair"] + (["per_axis"] if ndim else [])))
    if form == "scalar":
        return draw(element)
    if form == "pair":
        return (draw(element), draw(element))
    return tuple((draw(element), draw(element)) for _ in range(ndim))


def value_elements(dtype):
    """Padding values every dtype holds exactly (floats only for inexact arrays)."""
    if dtype == dtypes.bool_:
        return st.sampled_from([0, 1])
    if np.dtype(dtype).kind == "u":
        return st.integers(0, 100)
    if dtypes.is_inexact(dtype):
        return st.integers(-50, 50) | st.sampled_from([0.5, -2.25, 7.75])
    return st.integers(-50, 50)


@st.composite
def mode_kwargs(draw, mode: str, ndim: int, dtype):
    """The keyword arguments of ``mode``, each in one of its forms, or none."""
    if draw(st.booleans()):
        return {}
    if mode == "constant":
        return {"constant_values": draw(pair_values(ndim, value_elements(dtype)))}
    if mode in ("reflect", "symmetric"):
        return {"reflect_type": draw(st.sampled_from(["even", "odd"]))}
    if mode == "linear_ramp":
        return {"end_values": draw(pair_values(ndim, value_elements(dtype)))}
    if mode in STAT_MODES:
        return {"stat_length": draw(st.none() | pair_values(ndim, st.integers(1, 5)))}
    return {}


@st.composite
def pad_cases(draw):
    shape = draw(st.lists(st.integers(0, 4), min_size=0, max_size=3).map(tuple))
    dtype = draw(st.sampled_from(DTYPES))
    mode = draw(st.sampled_from(MODES))
    widths = draw(pad_widths(len(shape)))
    kwargs = draw(mode_kwargs(mode, len(shape), dtype))
    return make_value(shape, dtype, draw(st.integers(0, 2**16))), widths, mode, kwargs


def expected_pad(x: np.ndarray, widths, mode: str, kwargs: dict):
    """jax's result, or None where funcarray must raise (the error case is returned as the
    exception type); NumPy's empty result where jax fails on an unpadded empty axis."""
    pairs = np.broadcast_to(np.asarray(widths, dtype=np.int64), (x.ndim, 2))
    pads_empty = any(d == 0 and (b or a) for d, (b, a) in zip(x.shape, pairs))
    if x.size == 0 and mode not in ("constant", "empty"):
        if pads_empty:
            return ValueError
        with jax_context(x.dtype):  # the result is empty: only its dtype and weak type
            like = jnp.asarray(x)
        return jnp.zeros(padded_shape(x.shape, widths), like.dtype)
    try:
        return jax_pad(x, widths, mode, **kwargs)
    except (TypeError, ValueError) as error:
        return type(error)


# --------------------------------------------------------------------------------------------
# Results against jax
# --------------------------------------------------------------------------------------------

@given(pad_cases())
def test_pad_like_jax(case):
    x, widths, mode, kwargs = case
    expected = expected_pad(x, widths, mode, kwargs)
    if isinstance(expected, type):
        with pytest.raises(expected, match="pad"):
            fnp.pad(fnp.asarray(x), widths, mode, **kwargs)
        return
    check_like_jax(fnp.pad(fnp.asarray(x), widths, mode, **kwargs), expected, mode)


@settings(max_examples=10)
@given(pad_cases())
def test_pad_under_jit_like_jax(case):
    x, widths, mode, kwargs = case
    expected = expected_pad(x, widths, mode, kwargs)
    if isinstance(expected, type):
        return  # the errors are the eager ones, raised while tracing
    out = fa.jit(lambda v: fnp.pad(v, widths, mode, **kwargs))(fnp.asarray(x))
    check_like_jax(out, expected, mode)


@pytest.mark.parametrize("pad_width", [1, (2,), (1, 2), ((1, 2),), ((0, 1), (2, 0)),
                                       [[1], [2]], np.array([[1, 0], [0, 3]])])
@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "symmetric", "wrap"])
def test_pad_width_forms_like_numpy(pad_width, mode):
    """NumPy's forms, ``[[1], [2]]`` (one width per axis) included, which jax refuses."""
    x = make_value((3, 2), dtypes.int32, 0)
    out = fnp.pad(fnp.asarray(x), pad_width, mode=mode)
    assert_array_equal_typed(out, np.pad(x, pad_width, mode=mode), rtol=0)


@pytest.mark.parametrize("values", [5, 2.5, (1, 2), ((1, 2), (3, 4)), ((1, 2),), [[7], [8]]])
def test_constant_values_forms_like_numpy(values):
    for dtype in (np.int32, np.float32):
        x = make_value((2, 3), dtype, 0)
        assert_array_equal_typed(fnp.pad(fnp.asarray(x), ((1, 2), (2, 1)), constant_values=values),
                                 np.pad(x, ((1, 2), (2, 1)), constant_values=values), rtol=0)


def test_integer_statistics_round_half_to_even_like_jax():
    """Means and medians of integers are rounded (half to even), then cast back."""
    x = np.arange(5, dtype=np.int32)
    for kwargs in ({}, {"stat_length": 2}, {"stat_length": (1, 4)}, {"stat_length": 3}):
        for mode in ("mean", "median"):
            check_like_jax(fnp.pad(fnp.asarray(x), 2, mode, **kwargs),
                           jax_pad(x, 2, mode, **kwargs))
    assert fnp.pad(fnp.array([2, 3]), 1, "mean").tolist() == [2, 2, 3, 2]
    assert fnp.pad(fnp.array([3, 4]), 1, "mean").tolist() == [4, 3, 4, 4]


def test_odd_reflection_continues_the_trend():
    x = np.array([1, 2, 4], np.int32)
    for mode in ("reflect", "symmetric"):
        out = fnp.pad(fnp.asarray(x), (7, 5), mode, reflect_type="odd")
        check_like_jax(out, jax_pad(x, (7, 5), mode, reflect_type="odd"))
        assert np.asarray(out).tolist() == np.pad(x, (7, 5), mode, reflect_type="odd").tolist()


WEAK_CASES = {
    "constant": {}, "edge": {}, "wrap": {}, "reflect_odd": {"reflect_type": "odd"},
    "symmetric": {}, "linear_ramp": {"end_values": (1, 9)}, "maximum": {},
    "mean": {"stat_length": 2}, "median": {}, "minimum": {"stat_length": (1, 3)},
}


@pytest.mark.parametrize("name", sorted(WEAK_CASES))
def test_weak_type_like_jax(name):
    mode = name.removesuffix("_odd")
    with jax.enable_x64(False):
        expected = jnp.pad(jnp.full((3, 4), 7), 2, mode, **WEAK_CASES[name])
    out = fnp.pad(fnp.full((3, 4), 7), 2, mode, **WEAK_CASES[name])
    check_like_jax(out, expected)


# --------------------------------------------------------------------------------------------
# The callable mode
# --------------------------------------------------------------------------------------------

def set_ends(vector, pair, axis, kwargs):
    """jax's documented example, with the axis in the value: each end set to a constant."""
    before, after = pair
    vector = vector.at[:before].set(kwargs.get("low", 0) - axis)
    return vector.at[vector.shape[0] - after:].set(kwargs.get("high", 0) + axis)


@pytest.mark.parametrize("shape, widths", [((3,), 2), ((3,), (0, 1)), ((2, 3), ((1, 0), (2, 1))),
                                           ((2, 0, 2), 1)])
def test_callable_mode_like_jax(shape, widths):
    x = make_value(shape, np.int32, 1)
    expected = jax_pad(x, widths, set_ends, low=-10, high=10)
    check_like_jax(fnp.pad(fnp.asarray(x), widths, set_ends, low=-10, high=10), expected)
    jitted = fa.jit(lambda v: fnp.pad(v, widths, set_ends, low=-10, high=10))
    check_like_jax(jitted(fnp.asarray(x)), expected)


def test_callable_mode_returns_a_0d_array_as_it_is():
    """(jax's own pad fails here: it re-reads the widths of a 0-d array as one pair.)"""
    x = fnp.asarray(np.float32(2.5))
    assert_array_equal_typed(fnp.pad(x, 3, set_ends), np.float32(2.5))


def test_callable_mode_errors():
    def in_place(vector, pair, axis, kwargs):
        return None

    def shorter(vector, pair, axis, kwargs):
        return vector[1:]

    with pytest.raises(TypeError, match=r"pad.*returned None.*immutable"):
        fnp.pad(fnp.arange(3), 1, in_place)
    with pytest.raises(ValueError, match=r"pad.*returned shape \(4,\).*\(5,\)"):
        fnp.pad(fnp.arange(3), 1, shorter)


# --------------------------------------------------------------------------------------------
# Gradients and vmap
# --------------------------------------------------------------------------------------------

GRAD_CASES = {
    "constant": ((1, 2), {"constant_values": 1.5}),
    "edge": ((2, 1), {}),
    "wrap": ((5, 4), {}),
    "reflect": ((4, 3), {}),
    "reflect_odd": ((5, 2), {"reflect_type": "odd"}),
    "symmetric_odd": ((2, 6), {"reflect_type": "odd"}),
    "linear_ramp": ((3, 2), {"end_values": (1.0, -2.0)}),
    "maximum": ((1, 2), {"stat_length": 2}),
    "minimum": ((2, 1), {}),
    "mean": ((2, 2), {"stat_length": (1, 3)}),
    "median": ((1, 3), {}),
    "callable": ((2, 1), {"low": 3.0}),
}


def _grad_fn(name):
    widths, kwargs = GRAD_CASES[name]
    mode = set_ends if name == "callable" else name.removesuffix("_odd")
    return lambda x: fnp.pad(x, (widths, (1, 0)), mode, **kwargs)


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_grads(name):
    """Forward and reverse mode against finite differences (distinct values: the maximum,
    minimum and median have one source each)."""
    x = fnp.asarray(make_value((4, 3), np.float64, 2) * 0.37)
    check_grads(_grad_fn(name), (x,), order=2 if name != "callable" else 1)


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
@pytest.mark.parametrize("in_axis", [0, 2])
def test_vmap(name, in_axis):
    x = fnp.asarray(np.moveaxis(make_value((3, 4, 3), np.float32, 3), 0, in_axis))
    check_vmap(_grad_fn(name), (x,), in_axes=in_axis)


def test_padding_values_are_differentiable_and_batched_operands():
    """constant_values and end_values may be traced: jit, grad and vmap go through them."""
    x = fnp.asarray(make_value((3, 2), np.float64, 4))

    def constant(c):
        return fnp.pad(x, ((1, 2), (0, 1)), constant_values=c)

    def ramp(e):
        return fnp.pad(x, ((3, 2), (1, 0)), "linear_ramp", end_values=e)

    for f, value in ((constant, fnp.asarray([[1.0, -2.0], [3.0, 0.5]])),
                     (ramp, fnp.asarray([[1.0, -2.0], [3.0, 0.5]])), (ramp, fnp.asarray(2.0))):
        check_grads(f, (value,), order=1)
        check_vmap(f, (fnp.stack([value, value * 2, value - 1]),))
        assert_array_equal_typed(fa.jit(f)(value), np.asarray(f(value)))
    expected = jnp.pad(jnp.asarray(np.asarray(x)), ((3, 2), (1, 0)), "linear_ramp",
                       end_values=((1.0, -2.0), (3.0, 0.5)))
    check_like_jax(ramp(fnp.asarray([[1.0, -2.0], [3.0, 0.5]])), expected)


# --------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------

Z23 = fnp.zeros((2, 3))
ERRORS = [
    (lambda: fnp.pad(fnp.zeros(2), ((1, 2), (3, 4), (5, 6))), ValueError,
     r"pad.*pad_width.*\(2,\)"),
    (lambda: fnp.pad(fnp.zeros(2), -1), ValueError, r"pad.*negative"),
    (lambda: fnp.pad(fnp.zeros(2), 1.5), TypeError, r"pad.*pad_width"),
    (lambda: fnp.pad(fnp.zeros(2), 1, mode="cubic"), ValueError, r"pad.*'cubic'.*linear_ramp"),
    (lambda: fnp.pad(fnp.zeros(2), 1, mode=3), ValueError, r"pad.*mode 3"),
    (lambda: fnp.pad(fnp.zeros((0, 2)), 1, mode="edge"), ValueError,
     r"pad.*empty axis 0.*\(0, 2\)"),
    (lambda: fnp.pad(fnp.zeros((2, 0)), ((0, 0), (0, 1)), mode="mean"), ValueError,
     r"pad.*empty axis 1.*\(2, 0\).*'mean'"),
    (lambda: fnp.pad(fnp.zeros((0,)), 1, mode="linear_ramp"), ValueError,
     r"pad.*empty axis 0.*'linear_ramp'"),
    (lambda: fnp.pad(fnp.zeros(2), 1, mode="reflect", reflect_type="bad"), ValueError,
     r"pad.*reflect_type.*'even' or 'odd'.*'bad'"),
    (lambda: fnp.pad(fnp.array([True]), 1, mode="symmetric", reflect_type="odd"), TypeError,
     r"pad.*'symmetric'.*odd.*bool"),
    (lambda: fnp.pad(fnp.zeros(2), 1, stat_length=2), TypeError,
     r"pad.*stat_length.*'constant'.*constant_values"),
    (lambda: fnp.pad(fnp.zeros(2), 1, mode="edge", constant_values=3), TypeError,
     r"pad.*constant_values.*'edge'.*takes none"),
    (lambda: fnp.pad(fnp.zeros(2), 1, mode="mean", reflect_type="odd"), TypeError,
     r"pad.*reflect_type.*'mean'.*stat_length"),
    (lambda: fnp.pad(fnp.zeros(3), 1, mode="mean", stat_length=0), ValueError,
     r"pad.*stat_length 0 contains 0.*'mean'"),
    (lambda: fnp.pad(fnp.zeros(3), 1, mode="median", stat_length=((1, 0),)), ValueError,
     r"pad.*stat_length.*contains 0"),
    (lambda: fnp.pad(fnp.zeros(3), 1, mode="maximum", stat_length=-1), ValueError,
     r"pad.*stat_length must not be negative"),
    (lambda: fnp.pad(fnp.zeros(3), 1, mode="minimum", stat_length=1.5), TypeError,
     r"pad.*stat_length must be an int"),
    (lambda: fnp.pad(fnp.zeros(3), 1, mode="mean", stat_length=((1, 2), (3, 4))), ValueError,
     r"pad.*stat_length.*does not fit.*\(3,\)"),
    (lambda: fnp.pad(fnp.zeros(3), 1, mode="linear_ramp", end_values=((1, 2), (3, 4))),
     ValueError, r"pad.*end_values of shape \(2, 2\).*\(3,\)"),
    (lambda: fnp.pad(Z23, 1, constant_values=((1, 2, 3),)), ValueError,
     r"pad.*constant_values.*\(1, 3\).*\(2, 3\)"),
    (lambda: fnp.pad(fnp.array([1j, 2]), 1, mode="median"), ValueError,
     r"pad.*'median'.*complex"),
]


@pytest.mark.parametrize("call, exc_type, match", ERRORS)
def test_error_messages(call, exc_type, match):
    with pytest.raises(exc_type, match=match):
        call()
