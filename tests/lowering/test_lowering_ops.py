"""Compiled versus eager results for the lowering rules written beside the elementwise, shape,
linalg and autodiff primitives (``exp2``, ``sign`` of unsigned integers, ``square``, ``conj``,
``round``, ``integer_pow``, ``select_n``, ``clamp``, complex ``max``/``min``,
``bitcast_convert_type``, ``transpose``, ``squeeze``, ``rev``, ``concatenate``, ``pad``,
``slice``, ``dot_general``, ``stop_gradient``), and for the eager kernel of complex
``logistic``.

The eager NumPy kernels are the oracle: both engines follow StableHLO semantics, so
``assert_compiled_matches_eager`` demands equal shapes, dtypes and weak types, and values
equal exactly for integers and bools and within a dtype tolerance for floats. Each distinct
shape and dtype compiles once (tens of milliseconds), so the example counts are kept small.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from helpers import assert_array_equal_typed, assert_compiled_matches_eager, rtol_for
from hypothesis import given, settings
from hypothesis import strategies as st

import funcarray as fa
import funcarray.numpy as fnp
from funcarray import dtypes
from funcarray.base.array import Array
from funcarray.lowering.stablehlo import lower_ir
from funcarray.primitives import dot_general as dot_ops
from funcarray.primitives import elementwise as ew
from funcarray.primitives import shape as shape_ops
from funcarray.primitives.clamp import clamp_p
from funcarray.primitives.conversions import bitcast_convert_type_p
from funcarray.primitives.select_n import select_n_p
from funcarray.primitives.stop_gradient import stop_gradient_p
from funcarray.transforms.staging import make_ir

BOOL = [dtypes.bool_]
INTS = [dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64, dtypes.uint8, dtypes.uint32,
        dtypes.uint64]
FLOATS = [dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64]
COMPLEX = [dtypes.complex64, dtypes.complex128]
ALL = BOOL + INTS + FLOATS + COMPLEX

shapes = st.lists(st.integers(0, 4), max_size=3).map(tuple)
nonempty_shapes = st.lists(st.integers(1, 4), max_size=3).map(tuple)
seeds = st.integers(0, 2**32 - 1)
few = settings(max_examples=25)

SPECIALS = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 0.5, -2.5])


def values(dtype, shape, seed, *, specials=True, low=-5.0, high=5.0) -> Array:
    """A random array of ``dtype``; floats get NaN/inf/-0/halves at random places."""
    dtype, rng = np.dtype(dtype), np.random.default_rng(seed)
    if dtype == np.bool_:
        return Array(rng.integers(0, 2, shape).astype(bool))
    if dtypes.is_integer(dtype):
        info = np.iinfo(dtype)
        return Array(rng.integers(max(info.min, -100), min(info.max, 100), shape, dtype,
                                  endpoint=True))
    v = rng.uniform(low, high, shape)
    if specials and v.size:
        where = rng.random(shape) < 0.3
        v = np.where(where, rng.choice(SPECIALS, shape), v)
    if dtypes.is_complex(dtype):
        z = np.empty(np.shape(v), dtype)
        z.real = v
        z.imag = values(np.float64, shape, seed + 1, specials=specials, low=low,
                        high=high)._value
        return Array(z)
    return Array(np.asarray(v).astype(dtype))


def small_integers(dtype, shape, seed) -> Array:
    """Integer values in [-3, 3] (0/1 for bool, [0, 3] for unsigned) in ``dtype``: products
    and short sums of them are exact in every dtype, so float dots compare exactly."""
    dtype, rng = np.dtype(dtype), np.random.default_rng(seed)
    if dtype == np.bool_:
        return Array(rng.integers(0, 2, shape).astype(bool))
    low = 0 if dtype.kind == "u" else -3
    return Array(rng.integers(low, 4, shape).astype(dtype))


# --------------------------------------------------------------------------------------------
# Elementwise
# --------------------------------------------------------------------------------------------


@few
@given(shape=shapes, dtype=st.sampled_from(ALL), seed=seeds)
def test_square_and_conj(shape, dtype, seed):
    x = values(dtype, shape, seed)

    def f(x):
        public = fnp.square(x) if dtype != np.bool_ else x  # fnp.square makes bools ints
        return public, ew.square_p.bind(x), fnp.conj(x), ew.conj_p.bind(x)

    out = assert_compiled_matches_eager(f, x)
    assert out[1].dtype == dtype and out[3].dtype == dtype  # no dtype change, bools included


@few
@given(shape=shapes, dtype=st.sampled_from(FLOATS + COMPLEX), seed=seeds)
def test_exp2(shape, dtype, seed):
    # Finite complex values (XLA's complex pow and NumPy's disagree on infinite parts). Real
    # results stay >= the smallest normal float32: XLA on the CPU flushes subnormals to 0.
    x = values(dtype, shape, seed, specials=not dtypes.is_complex(dtype), low=-120, high=120)
    if not dtypes.is_complex(dtype):
        x = Array(np.maximum(x._value, np.asarray(-126, dtype)))
    rtol = 4 * rtol_for(dtype)
    assert_compiled_matches_eager(lambda x: (fnp.exp2(x), ew.exp2_p.bind(x)), x, rtol=rtol)


UNSIGNED = [dtypes.uint8, dtypes.uint16, dtypes.uint32, dtypes.uint64]


@pytest.mark.parametrize("dtype", UNSIGNED, ids=str)
def test_sign_of_unsigned_integers(dtype):
    # StableHLO's sign takes no unsigned operand: the rule lowers it to x != 0 (it used to
    # emit stablehlo.sign, which XLA refused to compile).
    info = np.iinfo(dtype)
    x = Array(np.array([0, 1, 2, 7, info.max // 2, info.max - 1, info.max], dtype))
    want = np.sign(x._value)
    out = assert_compiled_matches_eager(
        lambda x: (ew.sign_p.bind(x), fnp.sign(x), fa.lax.sign(x)), x)
    for o in out:
        assert_array_equal_typed(o, want)
    for f in (ew.sign_p.bind, fnp.sign, fa.lax.sign):
        assert_array_equal_typed(fa.jit(f)(x), want)


@pytest.mark.parametrize("dtype", COMPLEX, ids=str)
def test_logistic_of_complex_numbers(dtype):
    # The eager kernel took exp(-|x|), |x| the modulus for complex x: 0.64+0j for 0.5+0.3j.
    rng = np.random.default_rng(0)
    z = rng.uniform(-30, 30, 64) + 1j * rng.uniform(-4, 4, 64)
    z = np.concatenate([[0, 0.5 + 0.3j, 1j, -1 + 2j, 2 - 3j, 40 - 1j, -40 + 1j], z]).astype(dtype)
    want = (1 / (1 + np.exp(-z.astype(np.complex128)))).astype(dtype)
    out = assert_compiled_matches_eager(ew.logistic_p.bind, Array(z), rtol=4 * rtol_for(dtype))
    assert_array_equal_typed(out, want, rtol=4 * rtol_for(dtype))
    # The real path keeps evaluating where exp cannot overflow.
    x = Array(np.array([-800.0, -40.0, 0.0, 40.0, 800.0]))
    assert_array_equal_typed(ew.logistic_p.bind(x), 1 / (1 + np.exp(-np.array(
        [-np.inf, -40.0, 0.0, 40.0, np.inf]))))


@given(shape=shapes, dtype=st.sampled_from(FLOATS), seed=seeds)
def test_round_both_methods(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    halves = rng.integers(-9, 10, shape) / 2  # ties, where the two methods differ
    x = values(dtype, shape, seed)
    x = Array(np.where(rng.random(shape) < 0.5, halves, x._value).astype(dtype))
    out = assert_compiled_matches_eager(
        lambda x: (fnp.round(x), ew.round_p.bind(x, rounding_method=0),
                   ew.round_p.bind(x, rounding_method=1)), x, rtol=0)
    xs = np.asarray(x, np.float64)
    ties = np.isfinite(xs) & (np.abs(np.nan_to_num(xs, posinf=0, neginf=0)) % 1 == 0.5)
    if ties.any():  # stated independently of the kernels: afz moves ties away from zero
        away = np.asarray(out[1], np.float64)[ties]
        np.testing.assert_array_equal(away, xs[ties] + np.sign(xs[ties]) * 0.5)


def test_round_just_below_one_half():
    x = Array(np.array([0.49999997, -0.49999997, 2.5, -2.5, 3.5], np.float32))
    out = assert_compiled_matches_eager(lambda x: ew.round_p.bind(x, rounding_method=0), x)
    np.testing.assert_array_equal(np.asarray(out), [0.0, -0.0, 3.0, -3.0, 4.0])


@few
@given(shape=shapes, dtype=st.sampled_from(ALL), y=st.integers(-5, 9), seed=seeds)
def test_integer_pow(shape, dtype, y, seed):
    if dtype == np.bool_ and y < 0:
        y = -y
    x = values(dtype, shape, seed, low=-2, high=2)
    if dtypes.is_integer(dtype) and y < 0:  # 1 / x**n: 0 except at +-1, division by 0 at 0
        x = Array(np.resize(np.array([0, 1, 2, 3], dtype), shape))

    def f(x):
        if dtype == np.bool_ or (y < 0 and dtypes.is_integer(dtype)):
            return ew.integer_pow_p.bind(x, y=y)
        return fnp.power(x, y)

    assert_compiled_matches_eager(f, x, rtol=4 * rtol_for(dtype))


def test_integer_pow_negative_exponent_of_integers_follows_div():
    x = Array(np.array([0, 1, -1, 2, -3], np.int32))
    out = assert_compiled_matches_eager(lambda x: ew.integer_pow_p.bind(x, y=-3), x)
    np.testing.assert_array_equal(np.asarray(out), [-1, 1, -1, 0, 0])  # 1 / 0 is -1
    u = Array(np.array([0, 1, 2], np.uint8))
    out = assert_compiled_matches_eager(lambda x: ew.integer_pow_p.bind(x, y=-1), u)
    np.testing.assert_array_equal(np.asarray(out), [255, 1, 0])


@pytest.mark.parametrize("dtype", INTS, ids=str)
def test_integer_division_of_constants_at_trapping_operands(dtype):
    """XLA folds divisions of constants with the host's divide instruction, which traps on a
    zero divisor and on the minimum over -1 (the process died with SIGFPE): compiled, the
    quotient and remainder of constants there are XLA's defined values, as eagerly."""
    info = np.iinfo(dtype)
    signed = info.min < 0
    for x in (0, 5, int(info.min), int(info.max)):
        for y in (0, 1, *((-1,) if signed else ())):
            x_, y_ = Array(np.array(x, dtype)), Array(np.array(y, dtype))
            assert_compiled_matches_eager(
                lambda: (ew.div_p.bind(x_, y_), ew.rem_p.bind(x_, y_),
                         ew.integer_pow_p.bind(x_, y=-1) if signed else x_))
    # A divisor that XLA's simplifier makes constant: the sum over nothing.
    empty = Array(np.zeros((2, 0), dtype))
    out = assert_compiled_matches_eager(
        lambda e: (fnp.floor_divide(e.sum(), 0), fnp.mean(e, dtype=dtype)), empty)
    assert out[1].tolist() == (-1 if signed else int(info.max))  # 0 / 0


def test_integer_pow_rejects_negative_exponent_of_bool():
    with pytest.raises(TypeError, match="integer_pow: a bool operand cannot have a negative"):
        ew.integer_pow_p.bind(fnp.array([True]), y=-1)


@few
@given(shape=shapes, dtype=st.sampled_from(ALL), scalar_pred=st.booleans(), seed=seeds)
def test_select_n_bool_predicate(shape, dtype, scalar_pred, seed):
    pred = values(np.bool_, () if scalar_pred else shape, seed)
    x, y = values(dtype, shape, seed + 1), values(dtype, shape, seed + 2)
    assert_compiled_matches_eager(
        lambda p, x, y: (fnp.where(p, x, y), select_n_p.bind(p, x, y)), pred, x, y)


@few
@given(shape=shapes, dtype=st.sampled_from(ALL), n=st.integers(1, 4), scalar_which=st.booleans(),
       seed=seeds)
def test_select_n_int32_selector_clips(shape, dtype, n, scalar_which, seed):
    rng = np.random.default_rng(seed)
    # Out-of-range selectors clip to the first/last case, as the kernel (np.choose) does.
    which = Array(rng.integers(-2, n + 2, () if scalar_which else shape).astype(np.int32))
    cases = [values(dtype, shape, seed + k) for k in range(n)]
    assert_compiled_matches_eager(lambda w, *cs: select_n_p.bind(w, *cs), which, *cases)


@few
@given(shape=shapes, dtype=st.sampled_from(ALL), scalar_bounds=st.booleans(), seed=seeds)
def test_clamp(shape, dtype, scalar_bounds, seed):
    bound_shape = () if scalar_bounds else shape
    lo, hi = values(dtype, bound_shape, seed), values(dtype, bound_shape, seed + 1)
    x = values(dtype, shape, seed + 2)
    assert_compiled_matches_eager(lambda lo, x, hi: clamp_p.bind(lo, x, hi), lo, x, hi,
                                  rtol=0)


# NaN in either part, ties in the real part, infinities: the orders that XLA's own complex
# maximum/minimum/clamp get wrong.
COMPLEX_EDGES = np.array([1 + 2j, 1 + 1j, 2 + 0j, 3 - 1j, 0j, complex(np.nan, 0),
                          complex(1, np.nan), complex(np.inf, 1), complex(-np.inf, np.inf)])


@pytest.mark.parametrize("dtype", COMPLEX, ids=str)
def test_complex_max_min_clamp_order_lexicographically(dtype):
    a, b = np.meshgrid(COMPLEX_EDGES, COMPLEX_EDGES)
    x, y = Array(a.reshape(-1).astype(dtype)), Array(b.reshape(-1).astype(dtype))
    out = assert_compiled_matches_eager(
        lambda x, y: (ew.max_p.bind(x, y), ew.min_p.bind(x, y),
                      clamp_p.bind(Array(np.asarray(1 + 1j, dtype)), x, y)), x, y, rtol=0)
    k = list(COMPLEX_EDGES).index(1 + 2j) * len(COMPLEX_EDGES) + 1  # x = 1+1j, y = 1+2j
    assert complex(out[0]._value[k]) == 1 + 2j and complex(out[1]._value[k]) == 1 + 1j


BITCAST_DTYPES = [dtypes.int8, dtypes.uint8, dtypes.int16, dtypes.uint16, dtypes.float16,
                  dtypes.bfloat16, dtypes.int32, dtypes.uint32, dtypes.float32, dtypes.int64,
                  dtypes.uint64, dtypes.float64, np.dtype(ml_dtypes.float8_e4m3fn)]


@few
@given(shape=shapes, src=st.sampled_from(BITCAST_DTYPES), dst=st.sampled_from(BITCAST_DTYPES),
       seed=seeds)
def test_bitcast_convert_type(shape, src, dst, seed):
    if src.itemsize < dst.itemsize:
        shape = (*shape, dst.itemsize // src.itemsize)
    # Random bytes: every bit pattern (NaNs with payloads, subnormals) is fair game.
    raw = np.random.default_rng(seed).integers(0, 256, (*shape, src.itemsize), np.uint8)
    x = Array(raw.view(src).reshape(shape))

    def f(x):
        return bitcast_convert_type_p.bind(x, new_dtype=dst)

    if dst.kind != "V" or dst == dtypes.bfloat16:  # the helper compares float8 NaNs unequal
        assert_compiled_matches_eager(f, x)
    eager, compiled = f(x), fa.jit(f)(x)
    assert eager.dtype == compiled.dtype == dst and eager.shape == compiled.shape
    for out in (eager, compiled):  # bit for bit, NaN payloads included
        np.testing.assert_array_equal(np.asarray(out).reshape(-1).view(np.uint8),
                                      raw.reshape(-1))


@pytest.mark.parametrize("src, dst", [(np.bool_, np.uint8), (np.uint8, np.bool_),
                                      (np.complex64, np.uint64), (np.float32, np.complex64),
                                      (np.uint8, ml_dtypes.int4)])
def test_bitcast_rejects_bool_complex_and_sub_byte_types(src, dst):
    x = Array(np.zeros((2,), src))
    with pytest.raises(TypeError, match="bitcast_convert_type does not support"):
        bitcast_convert_type_p.bind(x, new_dtype=np.dtype(dst))
    with pytest.raises(TypeError, match="bitcast_convert_type does not support"):
        fa.jit(lambda x: bitcast_convert_type_p.bind(x, new_dtype=np.dtype(dst)))(x)


def test_elementwise_family_composed():
    x = values(np.float32, (3, 5), 1, specials=False)
    which = Array(np.array([0, 1, 2, 7, -1], np.int32))

    def f(x, which):
        z = fnp.square(fnp.round(x)) + fnp.exp2(x / 4) + fnp.power(x, 3)
        c = clamp_p.bind(Array(np.float32(-10)), z, Array(np.float32(10)))
        # Bits of an input: those of computed values may differ in the last place.
        bits = bitcast_convert_type_p.bind(x, new_dtype=np.dtype(np.uint32))
        picked = select_n_p.bind(which, c[0], c[1], c[2])
        return fnp.where(c > 0, c, fnp.conj(-c)), bits, picked

    assert_compiled_matches_eager(f, x, which)


# --------------------------------------------------------------------------------------------
# Shape
# --------------------------------------------------------------------------------------------


@few
@given(data=st.data(), shape=shapes, dtype=st.sampled_from(ALL), seed=seeds)
def test_transpose_and_rev(data, shape, dtype, seed):
    permutation = tuple(data.draw(st.permutations(range(len(shape)))))
    dims = tuple(data.draw(st.sets(st.integers(0, max(len(shape) - 1, 0)), max_size=len(shape))))
    x = values(dtype, shape, seed)
    assert_compiled_matches_eager(
        lambda x: (fnp.transpose(x, permutation), shape_ops.transpose_p.bind(
            x, permutation=permutation), shape_ops.rev_p.bind(x, dimensions=dims),
            fnp.flip(x)), x)


@few
@given(data=st.data(), shape=shapes, dtype=st.sampled_from(ALL), seed=seeds)
def test_squeeze(data, shape, dtype, seed):
    # Put size-1 dimensions at random places, then squeeze a random subset of them.
    ones = data.draw(st.lists(st.integers(0, len(shape)), max_size=3))
    full = list(shape)
    for position in sorted(ones, reverse=True):
        full.insert(position, 1)
    unit = [d for d, size in enumerate(full) if size == 1]
    dims = tuple(sorted(data.draw(st.sets(st.sampled_from(unit)) if unit else st.just(set()))))
    x = values(dtype, tuple(full), seed)
    assert_compiled_matches_eager(
        lambda x: (shape_ops.squeeze_p.bind(x, dimensions=dims), fnp.squeeze(x)), x)


@few
@given(data=st.data(), shape=nonempty_shapes.filter(len), dtype=st.sampled_from(ALL),
       seed=seeds)
def test_concatenate(data, shape, dtype, seed):
    dimension = data.draw(st.integers(0, len(shape) - 1))
    sizes = data.draw(st.lists(st.integers(0, 3), min_size=1, max_size=4))
    xs = []
    for k, size in enumerate(sizes):
        part = list(shape)
        part[dimension] = size
        xs.append(values(dtype, tuple(part), seed + k))
    axis = dimension - len(shape)  # the public function with a negative axis
    assert_compiled_matches_eager(
        lambda *xs: (shape_ops.concatenate_p.bind(*xs, dimension=dimension),
                     fnp.concatenate(xs, axis=axis)), *xs)


@few
@given(data=st.data(), shape=shapes, dtype=st.sampled_from(ALL), seed=seeds)
def test_pad_negative_and_interior(data, shape, dtype, seed):
    config = []
    for size in shape:
        interior = data.draw(st.integers(0, 2))
        grown = size + max(size - 1, 0) * interior
        low = data.draw(st.integers(-min(grown, 2), 3))  # negative: crop
        high = data.draw(st.integers(-min(grown + low, 2), 3) if grown + low >= 0
                         else st.integers(0, 3))
        config.append((low, high, interior))
    config = tuple(config)
    x, value = values(dtype, shape, seed), values(dtype, (), seed + 1)
    width = tuple((max(lo, 0), max(hi, 0)) for lo, hi, _ in config)
    def f(x, v):
        out = shape_ops.pad_p.bind(x, v, padding_config=config)
        return (out, fnp.pad(x, width, constant_values=v)) if shape else out

    assert_compiled_matches_eager(f, x, value)


@few
@given(data=st.data(), shape=shapes, dtype=st.sampled_from(ALL), seed=seeds)
def test_slice(data, shape, dtype, seed):
    starts, limits, strides = [], [], []
    for size in shape:
        start = data.draw(st.integers(0, size))
        starts.append(start)
        limits.append(data.draw(st.integers(start, size)))
        strides.append(data.draw(st.integers(1, 3)))
    starts, limits, strides = tuple(starts), tuple(limits), tuple(strides)
    x = values(dtype, shape, seed)
    index = tuple(slice(a, b, s) for a, b, s in zip(starts, limits, strides))
    assert_compiled_matches_eager(
        lambda x: (shape_ops.slice_p.bind(x, start_indices=starts, limit_indices=limits,
                                          strides=strides),
                   shape_ops.slice_p.bind(x, start_indices=starts, limit_indices=limits,
                                          strides=None),
                   x[index]), x)


def test_shape_family_composed():
    x = values(np.int32, (2, 1, 3), 4)

    def f(x):
        y = shape_ops.squeeze_p.bind(x, dimensions=(1,))
        y = fnp.concatenate([y, fnp.flip(y, 1)], axis=1).T
        y = shape_ops.pad_p.bind(y, Array(np.int32(-7)), padding_config=((-1, 2, 1), (1, 0, 0)))
        return y[1::2, ::-1], y

    assert_compiled_matches_eager(f, x)


# --------------------------------------------------------------------------------------------
# dot_general
# --------------------------------------------------------------------------------------------


@st.composite
def dot_problems(draw):
    """Operand shapes and dimension numbers: batch, contracting and free dimensions in
    random operand positions."""
    batch = draw(st.lists(st.integers(0, 3), max_size=2))
    contract = draw(st.lists(st.integers(0, 4), max_size=2))
    lhs_free = draw(st.lists(st.integers(0, 3), max_size=2))
    rhs_free = draw(st.lists(st.integers(0, 3), max_size=2))

    def layout(free):
        kinds = [("b", k) for k in range(len(batch))] + [("c", k) for k in range(len(contract))]
        kinds += [("f", k) for k in range(len(free))]
        order = draw(st.permutations(kinds))
        sizes = {"b": batch, "c": contract, "f": free}
        shape = tuple(sizes[kind][k] for kind, k in order)
        where = {item: pos for pos, item in enumerate(order)}
        return (shape, tuple(where[("c", k)] for k in range(len(contract))),
                tuple(where[("b", k)] for k in range(len(batch))))

    (lhs_shape, lc, lb), (rhs_shape, rc, rb) = layout(lhs_free), layout(rhs_free)
    return lhs_shape, rhs_shape, ((lc, rc), (lb, rb))


PREFERRED = [None, dtypes.int32, dtypes.int64, dtypes.int8, dtypes.float32, dtypes.float64,
             dtypes.bfloat16, dtypes.complex64]


@settings(max_examples=40)
@given(problem=dot_problems(), dtype=st.sampled_from(ALL), preferred=st.sampled_from(PREFERRED),
       seed=seeds)
def test_dot_general_exact_on_small_integers(problem, dtype, preferred, seed):
    lhs_shape, rhs_shape, dimension_numbers = problem
    if preferred is not None and not dot_ops.can_accumulate_in(dtype, preferred):
        preferred = None
    lhs, rhs = small_integers(dtype, lhs_shape, seed), small_integers(dtype, rhs_shape, seed + 1)
    # Products and sums of small integers are exact in every dtype, and integer sums wrap
    # alike in both engines, so every dtype compares exactly.
    assert_compiled_matches_eager(
        lambda x, y: dot_ops.dot_general(x, y, dimension_numbers,
                                        preferred_element_type=preferred), lhs, rhs, rtol=0)


@pytest.mark.parametrize("dtype", [dtypes.int8, dtypes.int32, dtypes.uint64], ids=str)
def test_dot_general_integers_wrap_around(dtype):
    big = Array(np.full((2, 9), np.iinfo(dtype).max, dtype))
    assert_compiled_matches_eager(
        lambda x: (dot_ops.dot_general(x, x, (((1,), (1,)), ((), ()))),
                   dot_ops.dot_general(x, x, (((1,), (1,)), ((), ())),
                                      preferred_element_type=np.int64)), big)


@few
@given(problem=dot_problems(), dtype=st.sampled_from(FLOATS + COMPLEX), seed=seeds)
def test_dot_general_random_floats(problem, dtype, seed):
    lhs_shape, rhs_shape, dimension_numbers = problem
    lhs = values(dtype, lhs_shape, seed, specials=False, low=-1, high=1)
    rhs = values(dtype, rhs_shape, seed + 1, specials=False, low=-1, high=1)
    k = int(np.prod([lhs_shape[d] for d in dimension_numbers[0][0]]))
    # Sums of k products in another order: an absolute tolerance of k roundings (one more
    # rounding for float16/bfloat16 results, which are rounded from float32 sums).
    eps = rtol_for(dtype)
    assert_compiled_matches_eager(
        lambda x, y: dot_ops.dot_general(x, y, dimension_numbers), lhs, rhs,
        rtol=2 * eps, atol=4 * (k + 1) * eps)


@pytest.mark.parametrize("dtype, expected", [
    (dtypes.float32, "HIGHEST"), (dtypes.complex64, "HIGHEST"), (dtypes.float64, "HIGHEST"),
    (dtypes.bfloat16, "DEFAULT"), (dtypes.int32, "DEFAULT")], ids=str)
def test_dot_general_precision_config(dtype, expected):
    x = Array(np.ones((2, 3), dtype))
    text = lower_ir(make_ir(lambda x: x @ x.T)(x))
    assert f"precision_config = [#stablehlo<precision {expected}>, " \
           f"#stablehlo<precision {expected}>]" in text
    explicit = lower_ir(make_ir(lambda x: fnp.matmul(x, x.T, precision=("high", "default")))(x))
    assert "[#stablehlo<precision HIGH>, #stablehlo<precision DEFAULT>]" in explicit


def test_dot_general_low_precision_multiplies_into_float32():
    x = Array(np.ones((2, 3), ml_dtypes.bfloat16))
    text = lower_ir(make_ir(lambda x: x @ x.T)(x))
    assert "(tensor<2x3xbf16>, tensor<3x2xbf16>) -> tensor<2x2xf32>" in text
    assert '"stablehlo.convert"' in text


def test_linalg_family_composed_with_grad():
    w = values(np.float32, (3, 4), 1, specials=False)
    x = values(np.float32, (5, 3), 2, specials=False)

    def loss(w, x):
        h = fnp.tanh(x @ w)
        target = fa.stop_gradient(h * 2.0)
        return fnp.sum((fnp.einsum("bi,ij->bj", x, w) - target) ** 2)

    assert_compiled_matches_eager(fa.grad(loss), w, x, rtol=1e-5, atol=1e-5)
    assert_compiled_matches_eager(lambda w, x: fa.vmap(lambda r: r @ w)(x), w, x, rtol=1e-5,
                                  atol=1e-5)


# --------------------------------------------------------------------------------------------
# stop_gradient, and every rule present
# --------------------------------------------------------------------------------------------


@few
@given(shape=shapes, dtype=st.sampled_from(ALL), seed=seeds)
def test_stop_gradient_is_the_identity(shape, dtype, seed):
    x = values(dtype, shape, seed)
    out = assert_compiled_matches_eager(lambda x: (fa.stop_gradient(x), stop_gradient_p.bind(x)),
                                        x, rtol=0)
    assert out[0].weak_type == x.weak_type


def test_weak_types_survive_compilation():
    x = fnp.asarray(2.0)  # weak
    assert x.weak_type
    out = assert_compiled_matches_eager(
        lambda x: (fa.stop_gradient(x), ew.square_p.bind(x), ew.integer_pow_p.bind(x, y=3),
                   shape_ops.pad_p.bind(x, x, padding_config=())), x)
    assert all(o.weak_type for o in out)


def test_every_primitive_of_the_family_lowers():
    f32, i32 = np.float32, np.int32

    def f(x, c, w, i):
        outs = [ew.exp2_p.bind(x), ew.square_p.bind(x), ew.conj_p.bind(c),
                ew.round_p.bind(x, rounding_method=0), ew.integer_pow_p.bind(x, y=3),
                select_n_p.bind(i, x, x, x), clamp_p.bind(x, x, x),
                bitcast_convert_type_p.bind(x, new_dtype=np.dtype(i32)),
                ew.max_p.bind(c, c),
                shape_ops.transpose_p.bind(w, permutation=(1, 0)),
                shape_ops.squeeze_p.bind(w[:1], dimensions=(0,)),
                shape_ops.rev_p.bind(w, dimensions=(0,)),
                shape_ops.concatenate_p.bind(w, w, dimension=0),
                shape_ops.pad_p.bind(w, Array(f32(0)), padding_config=((1, 1, 0), (0, 0, 1))),
                shape_ops.slice_p.bind(w, start_indices=(0, 0), limit_indices=(1, 2),
                                       strides=None),
                dot_ops.dot_general(w, w, (((1,), (1,)), ((), ()))),
                stop_gradient_p.bind(x)]
        return outs

    args = (Array(np.ones(3, f32)), Array(np.ones(3, np.complex64)), Array(np.ones((2, 3), f32)),
            Array(np.zeros(3, i32)))
    text = lower_ir(make_ir(f)(*args))  # raises MissingRuleError if any rule is missing
    for op in ("power", "multiply", "complex", "round_nearest_afz", "select", "clamp",
               "bitcast_convert", "transpose", "reshape", "reverse", "concatenate", "pad",
               "slice", "dot_general"):
        assert f'"stablehlo.{op}"' in text, op
    assert "= stop_gradient a" in text
    assert_compiled_matches_eager(f, *args)
