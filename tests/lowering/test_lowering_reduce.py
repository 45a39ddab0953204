"""Lowering of the reduction primitives (reduce_*, argmax/argmin, cumulative scans).

The eager NumPy kernels are the oracle: compiled (StableHLO -> XLA) and eager results must
agree in shape, dtype, weak_type and value. Values are chosen so that float sums are exact in
any order (multiples of 1/8 of moderate size) and include NaN, +-inf and -0.0; products and
logsumexp scans, whose rounding depends on the order XLA combines in, get an order-sized
tolerance. Hypothesis draws shapes (0-d and empty included), axes, directions and dtypes.
"""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest
from helpers import assert_compiled_matches_eager
from hypothesis import given, settings
from hypothesis import strategies as st

import funcarray.numpy as fnp
from funcarray import dtypes
from funcarray.base.array import Array
from funcarray.lowering import regions
from funcarray.lowering.stablehlo import lower_ir
from funcarray.primitives import reduce as red
from funcarray.transforms.staging import make_ir

INTS = [dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64]
UINTS = [np.dtype(np.uint8), np.dtype(np.uint16), np.dtype(np.uint32), np.dtype(np.uint64)]
FLOATS = [dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64]
COMPLEX = [dtypes.complex64, dtypes.complex128]
NUMBERS = INTS + UINTS + FLOATS + COMPLEX
ALL = [dtypes.bool_] + NUMBERS
BOOL_AND_INTS = [dtypes.bool_] + INTS + UINTS
REAL = [dtypes.bool_] + INTS + UINTS + FLOATS

SPECIALS = (math.nan, math.inf, -math.inf, -0.0)
EXACT_SUM_VALUES = st.one_of(st.integers(-800, 800).map(lambda k: k / 8),
                             st.sampled_from(SPECIALS))
# Products of at most 12 of these stay normal in float16 (no flush-to-zero differences).
FINITE_PRODUCT_VALUES = st.sampled_from([0.0, 0.5, -0.5, 1.0, -1.0, 1.5, -1.5, 2.0, -2.0])
PRODUCT_VALUES = st.one_of(FINITE_PRODUCT_VALUES, st.sampled_from(SPECIALS))


def _product_values(dtype):
    """Complex products of infinities depend on where the init 1+0j is mixed in (StableHLO
    leaves that to the implementation: XLA's reduce_window mixes it into every window, NumPy's
    accumulate never does, and (1+0j) * (0+infj) is nan+infj), so complex products get finite
    values."""
    return FINITE_PRODUCT_VALUES if dtypes.is_complex(dtype) else PRODUCT_VALUES


def _ids(dtype) -> str:
    return np.dtype(dtype).name


@st.composite
def shapes(draw, min_dims=0, max_dims=3, max_side=4):
    return tuple(draw(st.lists(st.integers(0, max_side), min_size=min_dims, max_size=max_dims)))


@st.composite
def arrays(draw, dtype, shape, floats=EXACT_SUM_VALUES, weak=False):
    """An Array of ``dtype`` and ``shape``; floats from ``floats``, ints over their range."""
    dtype = np.dtype(dtype)
    size = math.prod(shape)
    if dtype == dtypes.bool_:
        flat = np.array(draw(st.lists(st.booleans(), min_size=size, max_size=size)), bool)
    elif dtypes.is_integer(dtype):
        info = np.iinfo(dtype)
        values = draw(st.lists(st.integers(int(info.min), int(info.max)),
                               min_size=size, max_size=size))
        flat = np.array(values, dtype)
    else:
        parts = 2 if dtypes.is_complex(dtype) else 1
        values = np.array(draw(st.lists(floats, min_size=size * parts, max_size=size * parts)),
                          np.float64)
        if parts == 2:  # built part by part: 1j * inf would make a NaN real part
            flat = np.empty(size, np.complex128)
            flat.real, flat.imag = values[:size], values[size:]
        else:
            flat = values
        flat = flat.astype(dtype)
    is_weak = weak and dtype != dtypes.bool_ and draw(st.booleans())
    return Array(flat.reshape(shape), is_weak)


@st.composite
def axes_of(draw, ndim):
    return tuple(sorted(draw(st.sets(st.integers(0, ndim - 1), max_size=ndim)))) if ndim else ()


def _float_tolerance(dtype, count: int) -> float | None:
    """An rtol for results whose rounding depends on the combination order; None: the
    dtype's default tolerance (float16/bfloat16 round the float32 result once)."""
    work = np.dtype(dtype)
    if work in (dtypes.float32, dtypes.complex64):
        return 4 * max(count, 1) * float(np.finfo(np.float32).eps)
    if work in (dtypes.float64, dtypes.complex128):
        return 4 * max(count, 1) * float(np.finfo(np.float64).eps)
    return None


# --------------------------------------------------------------------------------------------
# Whole-axis reductions
# --------------------------------------------------------------------------------------------

REDUCTIONS = {
    "reduce_sum": (red.reduce_sum_p, NUMBERS),
    "reduce_prod": (red.reduce_prod_p, NUMBERS),
    "reduce_max": (red.reduce_max_p, ALL),
    "reduce_min": (red.reduce_min_p, ALL),
    "reduce_and": (red.reduce_and_p, BOOL_AND_INTS),
    "reduce_or": (red.reduce_or_p, BOOL_AND_INTS),
    "reduce_xor": (red.reduce_xor_p, BOOL_AND_INTS),
}


@pytest.mark.parametrize("name", list(REDUCTIONS))
@given(data=st.data())
def test_reduction_matches_eager(name, data):
    prim, accepted = REDUCTIONS[name]
    dtype = data.draw(st.sampled_from(accepted), label="dtype")
    is_prod = name == "reduce_prod"
    shape = data.draw(shapes(max_side=3 if is_prod else 4, max_dims=2 if is_prod else 3))
    axes = data.draw(axes_of(len(shape)), label="axes")
    x = data.draw(arrays(dtype, shape, _product_values(dtype) if is_prod else EXACT_SUM_VALUES,
                         weak=True))
    count = math.prod(shape[a] for a in axes)
    rtol = _float_tolerance(dtype, count) if is_prod else None
    assert_compiled_matches_eager(lambda v: prim.bind(v, axes=axes), x, rtol=rtol)


@pytest.mark.parametrize("name", list(REDUCTIONS))
def test_reduction_every_dtype(name):
    prim, accepted = REDUCTIONS[name]
    rng = np.random.default_rng(0)
    for dtype in accepted:
        x = Array(_fixed_values(rng, dtype, (3, 0, 2) if dtype == dtypes.int8 else (3, 4, 2)))
        assert_compiled_matches_eager(lambda v: prim.bind(v, axes=(0, 2)), x,
                                      rtol=_float_tolerance(dtype, 6))


def _fixed_values(rng, dtype, shape):
    dtype = np.dtype(dtype)
    if dtype == dtypes.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    if dtypes.is_integer(dtype):
        info = np.iinfo(dtype)
        return rng.integers(int(info.min), int(info.max), shape, dtype=dtype, endpoint=True)
    values = rng.choice([0.5, -1.5, 2.0, 1.0, -0.5, 3.0], size=shape)
    if dtypes.is_complex(dtype):
        values = values + 1j * rng.choice([0.5, -1.0, 2.0], size=shape)
    return values.astype(dtype)


@pytest.mark.parametrize("dtype", [dtypes.float16, dtypes.bfloat16], ids=_ids)
def test_low_precision_sums_accumulate_in_float32(dtype):
    # 3000 ones: a float16 accumulator sticks at 2048 (bfloat16 at 256); float32 gives 3000.
    x = fnp.ones(3000, dtype)
    total = assert_compiled_matches_eager(lambda v: red.reduce_sum_p.bind(v, axes=(0,)), x)
    scan = assert_compiled_matches_eager(lambda v: red.cumsum_p.bind(v, axis=0, reverse=False),
                                         x)
    assert float(np.asarray(total)) == float(np.asarray(scan)[-1]) == float(dtype.type(3000))


@pytest.mark.parametrize("prim", [red.reduce_max_p, red.reduce_min_p], ids=lambda p: p.name)
@pytest.mark.parametrize("dtype", COMPLEX, ids=_ids)
def test_complex_extrema_never_mix_in_the_init(prim, dtype):
    # Lexicographically (-inf, -1) < (-inf, 0) = XLA's max identity: it must not win.
    x = Array(np.array([[complex(-np.inf, -1), complex(np.inf, 2)],
                        [complex(np.inf, 1), complex(-np.inf, 3)]], dtype))
    for axes in ((0,), (1,), (0, 1)):
        assert_compiled_matches_eager(lambda v: prim.bind(v, axes=axes), x)
    empty = Array(np.zeros((0, 2), dtype))
    out = assert_compiled_matches_eager(lambda v: prim.bind(v, axes=(0,)), empty)
    sign = -1 if prim is red.reduce_max_p else 1
    np.testing.assert_array_equal(np.asarray(out), [complex(sign * np.inf, 0)] * 2)


def test_extrema_propagate_nan():
    x = Array(np.array([[1.0, np.nan, 3.0], [-np.inf, 2.0, np.inf]], np.float32))
    for prim in (red.reduce_max_p, red.reduce_min_p):
        out = assert_compiled_matches_eager(lambda v: prim.bind(v, axes=(1,)), x)
        assert np.isnan(np.asarray(out)[0])


# --------------------------------------------------------------------------------------------
# argmax / argmin
# --------------------------------------------------------------------------------------------

INDEX_DTYPES = [dtypes.int32, dtypes.int64, dtypes.int8, np.dtype(np.uint8)]
# Few distinct values, so ties and NaNs are frequent.
TIE_VALUES = st.sampled_from([0.0, 1.0, -1.0, math.nan, math.inf, -math.inf, -0.0])


@pytest.mark.parametrize("prim", [red.argmax_p, red.argmin_p], ids=lambda p: p.name)
@given(data=st.data())
def test_arg_reduction_matches_eager(prim, data):
    dtype = data.draw(st.sampled_from(REAL), label="dtype")
    shape = data.draw(shapes(min_dims=1))
    axis = data.draw(st.integers(0, len(shape) - 1), label="axis")
    shape = shape[:axis] + (max(shape[axis], 1),) + shape[axis + 1:]  # a non-empty axis
    x = data.draw(arrays(dtype, shape, TIE_VALUES, weak=True))
    index_dtype = data.draw(st.sampled_from(INDEX_DTYPES), label="index_dtype")
    assert_compiled_matches_eager(
        lambda v: prim.bind(v, axes=(axis,), index_dtype=index_dtype), x)


@pytest.mark.parametrize("prim", [red.argmax_p, red.argmin_p], ids=lambda p: p.name)
def test_arg_reduction_every_dtype_and_first_nan(prim):
    rng = np.random.default_rng(1)
    for dtype in REAL:
        x = Array(_fixed_values(rng, dtype, (5, 3)))
        assert_compiled_matches_eager(
            lambda v: prim.bind(v, axes=(0,), index_dtype=dtypes.int32), x)
    x = Array(np.array([1.0, np.nan, 5.0, np.nan, -np.inf], np.float16))
    out = assert_compiled_matches_eager(
        lambda v: prim.bind(v, axes=(0,), index_dtype=dtypes.int32), x)
    assert int(np.asarray(out)) == 1


def test_arg_reduction_indices_past_the_index_dtype_wrap_like_eager():
    # 300 elements, int8 indices: the maximum sits at 290, which int8 spells 34.
    values = np.zeros(300, np.float32)
    values[290] = values[295] = 1.0
    out = assert_compiled_matches_eager(
        lambda v: red.argmax_p.bind(v, axes=(0,), index_dtype=dtypes.int8), Array(values))
    assert int(np.asarray(out)) == np.int64(290).astype(np.int8)


# --------------------------------------------------------------------------------------------
# Cumulative scans
# --------------------------------------------------------------------------------------------

SCANS = {
    "cumsum": (red.cumsum_p, NUMBERS, EXACT_SUM_VALUES),
    "cumprod": (red.cumprod_p, NUMBERS, PRODUCT_VALUES),
    "cummax": (red.cummax_p, NUMBERS, EXACT_SUM_VALUES),
    "cummin": (red.cummin_p, NUMBERS, EXACT_SUM_VALUES),
    "cumlogsumexp": (red.cumlogsumexp_p, FLOATS,
                     st.one_of(st.integers(-160, 160).map(lambda k: k / 8),
                               st.sampled_from(SPECIALS))),
}


@pytest.mark.parametrize("name", list(SCANS))
@settings(max_examples=25)  # reduce_window compiles more slowly than reduce
@given(data=st.data())
def test_scan_matches_eager(name, data):
    prim, accepted, values = SCANS[name]
    dtype = data.draw(st.sampled_from(accepted), label="dtype")
    shape = data.draw(shapes(min_dims=1, max_side=6 if name != "cumprod" else 4))
    axis = data.draw(st.integers(0, len(shape) - 1), label="axis")
    reverse = data.draw(st.booleans(), label="reverse")
    if name == "cumprod":
        values = _product_values(dtype)
    x = data.draw(arrays(dtype, shape, values, weak=True))
    rtol = None
    if name in ("cumprod", "cumlogsumexp"):
        rtol = _float_tolerance(dtype, shape[axis])
    assert_compiled_matches_eager(lambda v: prim.bind(v, axis=axis, reverse=reverse), x,
                                  rtol=rtol)


@pytest.mark.parametrize("name", list(SCANS))
def test_scan_every_dtype(name):
    prim, accepted, _ = SCANS[name]
    rng = np.random.default_rng(2)
    for dtype in accepted:
        x = Array(_fixed_values(rng, dtype, (4, 3)))
        reverse = dtype.itemsize % 2 == 0  # both directions, over the dtypes
        assert_compiled_matches_eager(lambda v: prim.bind(v, axis=0, reverse=reverse), x,
                                      rtol=_float_tolerance(dtype, 4))


@pytest.mark.parametrize("prim", [red.cummax_p, red.cummin_p], ids=lambda p: p.name)
def test_complex_scans_never_mix_in_the_init(prim):
    x = Array(np.array([complex(-np.inf, -1), complex(np.inf, 2), complex(np.nan, 0),
                        complex(1, 1)], np.complex64))
    for reverse in (False, True):
        assert_compiled_matches_eager(lambda v: prim.bind(v, axis=0, reverse=reverse), x)


def test_cumlogsumexp_of_infinities():
    x = Array(np.array([-np.inf, -np.inf, 0.0, np.inf, np.inf, 1.0, np.nan, 2.0], np.float32))
    for reverse in (False, True):
        assert_compiled_matches_eager(
            lambda v: red.cumlogsumexp_p.bind(v, axis=0, reverse=reverse), x)


# --------------------------------------------------------------------------------------------
# Through funcarray.numpy, composition, and the text
# --------------------------------------------------------------------------------------------

# Each distinct shape and dtype compiles (tens of ms): the public-API tests draw fewer examples.
FEW = settings(max_examples=15)
PUBLIC = [fnp.sum, fnp.prod, fnp.max, fnp.min, fnp.all, fnp.any]


@pytest.mark.parametrize("fn", PUBLIC, ids=lambda f: f.__name__)
@FEW
@given(data=st.data())
def test_public_reductions(fn, data):
    dtype = data.draw(st.sampled_from([dtypes.bool_, dtypes.int8, dtypes.uint32,
                                       dtypes.float16, dtypes.float32, dtypes.complex64]))
    shape = data.draw(shapes(min_dims=1, max_side=3))
    x = data.draw(arrays(dtype, shape, _product_values(dtype)))
    axis = data.draw(st.one_of(st.none(), st.integers(-len(shape), len(shape) - 1)))
    keepdims = data.draw(st.booleans())
    kwargs = {"initial": 0} if fn in (fnp.max, fnp.min) and dtype != dtypes.complex64 else {}
    if fn in (fnp.max, fnp.min) and not kwargs and 0 in shape:
        return  # an empty max needs initial=
    assert_compiled_matches_eager(lambda v: fn(v, axis=axis, keepdims=keepdims, **kwargs), x,
                                  rtol=1e-4 if dtype in (dtypes.float32, dtypes.complex64)
                                  else None)


@pytest.mark.parametrize("fn", [fnp.argmax, fnp.argmin, fnp.cumsum, fnp.cumprod],
                         ids=lambda f: f.__name__)
@FEW
@given(data=st.data())
def test_public_arg_reductions_and_scans(fn, data):
    dtype = data.draw(st.sampled_from([dtypes.bool_, dtypes.int16, dtypes.bfloat16,
                                       dtypes.float64]))
    shape = data.draw(shapes(min_dims=1, max_side=4).filter(lambda s: 0 not in s))
    x = data.draw(arrays(dtype, shape, PRODUCT_VALUES))
    axis = data.draw(st.one_of(st.none(), st.integers(-len(shape), len(shape) - 1)))
    assert_compiled_matches_eager(lambda v: fn(v, axis=axis), x, rtol=1e-12
                                  if dtype == dtypes.float64 else None)


def test_reductions_compose_in_one_function():
    def f(x):
        scanned = fnp.cumsum(x, axis=1)
        best = fnp.argmax(scanned, axis=0)
        peak = red.cummax_p.bind(scanned, axis=0, reverse=True)
        soft = red.cumlogsumexp_p.bind(x, axis=1, reverse=False)
        return best, fnp.max(peak, axis=1) - fnp.min(soft), fnp.prod(x[0] > 0)

    x = Array(np.array([[1.0, -2.0, 3.5], [0.5, 4.0, -1.0], [2.0, 2.0, 2.0]], np.float32))
    assert_compiled_matches_eager(f, x, rtol=1e-5)


def test_every_reduction_lowers():
    def f(x, ints):
        floats = [red.reduce_sum_p.bind(x, axes=(0,)), red.reduce_prod_p.bind(x, axes=(1,)),
                  red.reduce_max_p.bind(x, axes=(0, 1)), red.reduce_min_p.bind(x, axes=())]
        bits = [p.bind(ints, axes=(1,)) for p in (red.reduce_and_p, red.reduce_or_p,
                                                   red.reduce_xor_p)]
        args = [p.bind(x, axes=(0,), index_dtype=dtypes.int32)
                for p in (red.argmax_p, red.argmin_p)]
        scans = [p.bind(x, axis=1, reverse=True) for p in (
            red.cumsum_p, red.cumprod_p, red.cummax_p, red.cummin_p, red.cumlogsumexp_p)]
        return floats, bits, args, scans

    x = Array(np.array([[1.0, -2.0], [0.5, 3.0]], np.float32))
    ints = Array(np.array([[6, 3], [-1, 12]], np.int32))
    text = lower_ir(make_ir(f)(x, ints))
    for prim in (*(p for p, _ in REDUCTIONS.values()), red.argmax_p, red.argmin_p,
                 *(p for p, _, _ in SCANS.values())):
        assert f"= {prim.name}[" in text, prim.name
    assert text.count('"stablehlo.reduce"(') == 9
    assert text.count('"stablehlo.reduce_window"(') == 5
    assert_compiled_matches_eager(f, x, ints, rtol=1e-5)


def test_lowering_text_is_deterministic():
    def f(x):
        return red.argmin_p.bind(red.cummin_p.bind(x, axis=0, reverse=True), axes=(1,),
                                 index_dtype=dtypes.int64)

    x = fnp.ones((3, 2))
    assert lower_ir(make_ir(f)(x)) == lower_ir(make_ir(f)(x))


def test_reduce_window_result_shape():
    # The helper computes StableHLO's output size: strides, padding and both dilations.
    size = regions._window_output_size
    assert size(5, 5, 1, 4, 0, 1, 1) == 5
    assert size(5, 2, 2, 0, 0, 1, 1) == 2
    assert size(5, 2, 1, 0, 0, 2, 1) == 8
    assert size(5, 3, 1, 0, 0, 1, 2) == 1
    assert size(0, 1, 1, 0, 0, 1, 1) == 0
    assert size(2, 5, 1, 0, 0, 1, 1) == 0


NARROW = [dtypes.float8_e4m3fn, dtypes.float8_e5m2, np.dtype(ml_dtypes.int4),
          np.dtype(ml_dtypes.uint2)]


@pytest.mark.parametrize("dtype", NARROW, ids=_ids)
def test_narrow_dtypes(dtype):
    # float8 computes in float32 like the kernels; sub-byte ints go through argmax widened.
    x = Array(np.array([[1, 2, 0], [3, 1, 1]]).astype(dtype))
    is_float = dtypes.is_float(dtype)

    def f(v):
        outs = [red.reduce_sum_p.bind(v, axes=(0,)), red.reduce_max_p.bind(v, axes=(1,)),
                red.argmin_p.bind(v, axes=(1,), index_dtype=dtypes.int32),
                red.cumprod_p.bind(v, axis=1, reverse=True)]
        if is_float:
            outs.append(red.cumlogsumexp_p.bind(v, axis=0, reverse=False))
        return outs

    assert_compiled_matches_eager(f, x, rtol=0.13 if is_float else None)
