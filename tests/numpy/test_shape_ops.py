"""Shape operations: the primitives of ``primitives/shape.py`` and ``funcarray.numpy._shape``.

Oracles: NumPy for values and shapes (on Hypothesis-drawn shapes, 0-d and size-0 included, and
dtypes), ``jax.lax.pad`` for StableHLO's pad semantics (negative edges, interior padding), and
``jax.numpy`` for dtype promotion and weak types. A tracing-only trace (abstract evaluation, no
values) checks that every function works on tracers and that each primitive's shape rule
agrees with its eager kernel.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from helpers import assert_array_equal_typed
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import funcarray as fa
import funcarray.numpy as fnp
from funcarray import dtypes
from funcarray.base.array import Array
from funcarray.primitives import shape as sp
from funcarray.transforms.core import (
    ConcretizationError,
    ShapedArray,
    Trace,
    Tracer,
    current_trace,
    set_current_trace,
)

DTYPES = (
    dtypes.bool_, dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64, dtypes.uint8,
    dtypes.uint32, dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64,
    dtypes.complex64,
)


# --------------------------------------------------------------------------------------------
# Strategies and checks
# --------------------------------------------------------------------------------------------

def make_value(shape, dtype, seed: int) -> np.ndarray:
    """Distinct values (except for bool), so that a misplaced element changes the result."""
    size = int(np.prod(shape, dtype=np.int64))
    values = np.random.default_rng(seed).permutation(size) - (size // 2)
    if dtype == dtypes.bool_:
        values = values % 2
    elif np.dtype(dtype).kind == "u":
        values = values + size // 2
    return values.reshape(shape).astype(dtype)


@st.composite
def np_arrays(draw, min_dims=0, max_dims=4, max_side=4, dtype=None, shape=None):
    if shape is None:
        shape = draw(hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=0,
                                      max_side=max_side))
    dtype = draw(st.sampled_from(DTYPES)) if dtype is None else dtype
    return make_value(shape, dtype, draw(st.integers(0, 2**32 - 1)))


def maybe_negative(draw, axis: int, ndim: int) -> int:
    return axis - ndim if draw(st.booleans()) else axis


def check(actual, expected):
    """Same dtype, shape and values as the NumPy result, and read-only."""
    assert_array_equal_typed(actual, expected, rtol=0)
    assert not np.asarray(actual).flags.writeable


def check_all(actual, expected):
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected):
        check(a, e)


def same_error(fn_fa, fn_np):
    """Run both; if NumPy raises, funcarray must raise too (a ValueError/TypeError)."""
    try:
        expected = fn_np()
    except (ValueError, TypeError, IndexError):
        with pytest.raises((ValueError, TypeError, IndexError)):
            fn_fa()
        return None, None
    return fn_fa(), expected


# --------------------------------------------------------------------------------------------
# Reshaping and transposing
# --------------------------------------------------------------------------------------------

@st.composite
def reshape_cases(draw):
    x = draw(np_arrays())
    target = list(draw(st.permutations(list(x.shape) + [1] * draw(st.integers(0, 2)))))
    if len(target) >= 2 and draw(st.booleans()):
        target[:2] = [target[0] * target[1]]
    if target and draw(st.booleans()):
        i = draw(st.integers(0, len(target) - 1))
        if np.prod(target[:i] + target[i + 1:]) != 0:
            target[i] = -1
    return x, tuple(target), draw(st.sampled_from("CF"))


@given(reshape_cases())
def test_reshape(case):
    x, shape, order = case
    check(fnp.reshape(fnp.asarray(x), shape, order=order), np.reshape(x, shape, order=order))
    check(fnp.ravel(fnp.asarray(x), order=order), np.ravel(x, order=order))


@given(np_arrays(min_dims=1), st.data())
def test_reshape_method_and_flatten(x, data):
    a = fnp.asarray(x)
    check(a.reshape(*x.shape[::-1]), x.reshape(x.shape[::-1]))
    check(a.reshape(x.shape[::-1]), x.reshape(x.shape[::-1]))
    check(a.flatten(), x.flatten())
    check(a.ravel(), x.ravel())


@given(np_arrays(), st.data())
def test_transpose(x, data):
    a = fnp.asarray(x)
    perm = [maybe_negative(data.draw, p, x.ndim)
            for p in data.draw(st.permutations(range(x.ndim)))]
    check(fnp.transpose(a), np.transpose(x))
    check(fnp.transpose(a, perm), np.transpose(x, perm))
    check(fnp.permute_dims(a, perm), np.permute_dims(x, perm))
    check(a.T, x.T)
    check(a.transpose(*perm) if perm else a.transpose(), x.transpose(*perm))


@given(np_arrays(min_dims=2))
def test_matrix_transpose(x):
    a = fnp.asarray(x)
    check(fnp.matrix_transpose(a), np.matrix_transpose(x))
    check(a.mT, x.mT)


@given(np_arrays(), st.data())
def test_moveaxis_and_swapaxes(x, data):
    count = data.draw(st.integers(0, x.ndim))
    source = data.draw(st.permutations(range(x.ndim)))[:count]
    dest = [maybe_negative(data.draw, d, x.ndim)
            for d in data.draw(st.permutations(range(x.ndim)))[:count]]
    a = fnp.asarray(x)
    check(fnp.moveaxis(a, source, dest), np.moveaxis(x, source, dest))
    if x.ndim:
        i = maybe_negative(data.draw, data.draw(st.integers(0, x.ndim - 1)), x.ndim)
        j = data.draw(st.integers(0, x.ndim - 1))
        check(fnp.moveaxis(a, i, j), np.moveaxis(x, i, j))
        check(fnp.swapaxes(a, i, j), np.swapaxes(x, i, j))
        check(a.swapaxes(i, j), x.swapaxes(i, j))


@given(np_arrays(max_dims=3), st.data())
def test_expand_dims(x, data):
    count = data.draw(st.integers(0, 3))
    out_ndim = x.ndim + count
    axes = [maybe_negative(data.draw, d, out_ndim)
            for d in data.draw(st.permutations(range(out_ndim)))[:count]]
    a = fnp.asarray(x)
    check(fnp.expand_dims(a, tuple(axes)), np.expand_dims(x, tuple(axes)))
    axis = data.draw(st.integers(-x.ndim - 1, x.ndim))
    check(fnp.expand_dims(a, axis), np.expand_dims(x, axis))


@given(st.data())
def test_squeeze(data):
    shape = data.draw(st.lists(st.sampled_from([0, 1, 1, 2, 3]), max_size=4))
    x = data.draw(np_arrays(shape=tuple(shape)))
    a = fnp.asarray(x)
    check(fnp.squeeze(a), np.squeeze(x))
    check(a.squeeze(), x.squeeze())
    ones = [d for d, size in enumerate(shape) if size == 1]
    chosen = [maybe_negative(data.draw, d, x.ndim) for d in data.draw(st.permutations(ones))]
    chosen = chosen[:data.draw(st.integers(0, len(chosen)))]
    check(fnp.squeeze(a, tuple(chosen)), np.squeeze(x, tuple(chosen)))


# --------------------------------------------------------------------------------------------
# Broadcasting
# --------------------------------------------------------------------------------------------

@st.composite
def broadcastable_pair(draw):
    target = draw(hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=3))
    drop = draw(st.integers(0, len(target)))
    source = tuple(1 if draw(st.booleans()) else d for d in target[drop:])
    return draw(np_arrays(shape=source)), target


@given(broadcastable_pair())
def test_broadcast_to(case):
    x, target = case
    check(fnp.broadcast_to(fnp.asarray(x), target), np.broadcast_to(x, target))


@given(broadcastable_pair(), broadcastable_pair())
def test_broadcast_arrays_and_shapes(case1, case2):
    (x, _), (y, _) = case1, case2
    expected_shape = None
    try:
        expected_shape = np.broadcast_shapes(x.shape, y.shape)
    except ValueError:
        with pytest.raises(ValueError, match="broadcast_shapes"):
            fnp.broadcast_shapes(x.shape, y.shape)
        with pytest.raises(ValueError, match="broadcast_arrays"):
            fnp.broadcast_arrays(x, y)
        return
    assert fnp.broadcast_shapes(x.shape, y.shape) == expected_shape
    check_all(fnp.broadcast_arrays(fnp.asarray(x), fnp.asarray(y)), np.broadcast_arrays(x, y))


def test_broadcast_shapes_edge_cases():
    assert fnp.broadcast_shapes() == ()
    assert fnp.broadcast_shapes(3, (2, 1)) == (2, 3)
    assert fnp.broadcast_shapes((0, 1), (1, 5)) == (0, 5)


@given(np_arrays(max_dims=4))
def test_atleast(x):
    a = fnp.asarray(x)
    for name in ("atleast_1d", "atleast_2d", "atleast_3d"):
        check(getattr(fnp, name)(a), getattr(np, name)(x))
        check_all(getattr(fnp, name)(a, a), getattr(np, name)(x, x))


# --------------------------------------------------------------------------------------------
# Joining
# --------------------------------------------------------------------------------------------

@st.composite
def concat_cases(draw, same_shape=False):
    base = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=3))
    axis = draw(st.integers(0, len(base) - 1))
    dtype = draw(st.sampled_from(DTYPES))
    arrays = []
    for _ in range(draw(st.integers(1, 4))):
        shape = list(base)
        if not same_shape:
            shape[axis] = draw(st.integers(0, 3))
        arrays.append(draw(np_arrays(shape=tuple(shape), dtype=dtype)))
    return arrays, maybe_negative(draw, axis, len(base))


@given(concat_cases())
def test_concatenate(case):
    arrays, axis = case
    fa = [fnp.asarray(x) for x in arrays]
    check(fnp.concatenate(fa, axis=axis), np.concatenate(arrays, axis=axis))
    check(fnp.concat(fa, axis=axis), np.concatenate(arrays, axis=axis))
    check(fnp.concatenate(fa, axis=None), np.concatenate(arrays, axis=None))


@given(np_arrays(min_dims=2, max_dims=4), st.data())
def test_concatenate_and_stack_of_an_array(x, data):
    a = fnp.asarray(x)
    axis = data.draw(st.integers(-(x.ndim - 1), x.ndim - 2))
    out, expected = same_error(lambda: fnp.concatenate(a, axis=axis),
                               lambda: np.concatenate(x, axis=axis))
    if expected is not None:
        check(out, expected)
    stack_axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    if x.shape[0]:
        check(fnp.stack(a, axis=stack_axis), np.stack(x, axis=stack_axis))


@given(st.sampled_from(DTYPES), st.sampled_from(DTYPES), st.booleans())
def test_concatenate_promotes_like_jax(dt1, dt2, weak_second):
    x = make_value((2,), dt1, 0)
    if weak_second:
        # A weak-typed int32 array. jax canonicalises weak ints to int64 under x64, while
        # funcarray keeps int32 unless an input is 64-bit: match the oracle's x64 to that.
        y, oracle_y, wide = fnp.full((3,), 7), 7, x.dtype.itemsize == 8
    else:
        y = oracle_y = make_value((3,), dt2, 1)
        wide = True  # the lattice's answer, e.g. uint32 + int32 -> int64
    with jax.enable_x64(wide):
        try:
            dtype, weak = jax.dtypes.result_type(x, oracle_y, return_weak_type_flag=True)
        except TypeError:
            with pytest.raises(TypeError, match="concatenate"):
                fnp.concatenate([x, y])
            return
    out = fnp.concatenate([fnp.asarray(x), y])
    assert (out.dtype, out.weak_type) == (dtype, weak)
    check(out, np.concatenate([x.astype(dtype), np.asarray(y).astype(dtype)]))


def test_concatenate_dtype_argument():
    out = fnp.concatenate([fnp.arange(2), fnp.arange(2)], dtype=fnp.float16)
    check(out, np.array([0, 1, 0, 1], np.float16))


@given(concat_cases(same_shape=True), st.data())
def test_stack_family(case, data):
    arrays, _ = case
    fa = [fnp.asarray(x) for x in arrays]
    axis = data.draw(st.integers(-arrays[0].ndim - 1, arrays[0].ndim))
    check(fnp.stack(fa, axis=axis), np.stack(arrays, axis=axis))
    for name in ("vstack", "hstack", "dstack", "column_stack"):
        np_fn, fa_fn = getattr(np, name), getattr(fnp, name)
        out, expected = same_error(lambda: fa_fn(fa), lambda: np_fn(arrays))
        if expected is not None:
            check(out, expected)


@given(np_arrays(max_dims=1, max_side=3), st.data())
def test_stack_family_low_rank(x, data):
    # 0-d and 1-d inputs are where vstack/hstack/column_stack/dstack differ most.
    fa = [fnp.asarray(x), fnp.asarray(x)]
    for name in ("vstack", "hstack", "dstack", "column_stack", "stack"):
        check(getattr(fnp, name)(fa), getattr(np, name)([x, x]))


def test_stack_promotes_and_asarray_uses_it():
    out = fnp.stack([fnp.arange(2, dtype=fnp.int8), fnp.ones(2, dtype=fnp.float16)])
    check(out, np.array([[0, 1], [1, 1]], np.float16))
    nested = fnp.asarray([[fnp.array(1.0), 2.0], [3, fnp.array(4.0)]])
    check(nested, np.array([[1, 2], [3, 4]], np.float32))
    mixed = fnp.asarray([fnp.zeros(2, dtype=fnp.int64), np.ones(2, np.int64)])
    check(mixed, np.array([[0, 0], [1, 1]], np.int64))


# --------------------------------------------------------------------------------------------
# Splitting
# --------------------------------------------------------------------------------------------

@given(np_arrays(min_dims=1), st.data())
def test_split(x, data):
    axis = data.draw(st.integers(0, x.ndim - 1))
    size = x.shape[axis]
    axis = maybe_negative(data.draw, axis, x.ndim)
    a = fnp.asarray(x)
    sections = data.draw(st.sampled_from([s for s in range(1, 6) if size % s == 0]))
    check_all(fnp.split(a, sections, axis=axis), np.split(x, sections, axis=axis))
    indices = data.draw(st.lists(st.integers(-size - 2, size + 2), max_size=4))
    check_all(fnp.split(a, indices, axis=axis), np.split(x, indices, axis=axis))
    check_all(fnp.split(a, np.array(indices, np.int32), axis=axis),
              np.split(x, indices, axis=axis))
    uneven = data.draw(st.integers(1, size + 2))
    check_all(fnp.array_split(a, uneven, axis=axis), np.array_split(x, uneven, axis=axis))
    check_all(fnp.array_split(a, indices, axis=axis), np.array_split(x, indices, axis=axis))


@given(np_arrays(min_dims=1, shape=None), st.sampled_from(["vsplit", "hsplit", "dsplit"]))
def test_named_splits(x, name):
    axis = {"vsplit": 0, "hsplit": 1 if x.ndim > 1 else 0, "dsplit": 2}[name]
    sections = 1 if x.ndim <= axis or x.shape[axis] % 2 else 2
    out, expected = same_error(lambda: getattr(fnp, name)(fnp.asarray(x), sections),
                               lambda: getattr(np, name)(x, sections))
    if expected is not None:
        check_all(out, expected)


# --------------------------------------------------------------------------------------------
# Rearranging
# --------------------------------------------------------------------------------------------

@given(np_arrays(), st.data())
def test_flip(x, data):
    a = fnp.asarray(x)
    check(fnp.flip(a), np.flip(x))
    axes = [maybe_negative(data.draw, d, x.ndim)
            for d in data.draw(st.permutations(range(x.ndim)))]
    axes = axes[:data.draw(st.integers(0, len(axes)))]
    check(fnp.flip(a, tuple(axes)), np.flip(x, tuple(axes)))
    if x.ndim >= 1:
        check(fnp.flip(a, axes[0] if axes else 0), np.flip(x, axes[0] if axes else 0))
        check(fnp.flipud(a), np.flipud(x))
    if x.ndim >= 2:
        check(fnp.fliplr(a), np.fliplr(x))


@given(np_arrays(min_dims=2), st.integers(-5, 5), st.data())
def test_rot90(x, k, data):
    first, second = data.draw(st.permutations(range(x.ndim)))[:2]
    axes = (maybe_negative(data.draw, first, x.ndim), second)
    check(fnp.rot90(fnp.asarray(x), k, axes), np.rot90(x, k, axes))


@given(np_arrays(), st.data())
def test_roll(x, data):
    a = fnp.asarray(x)
    shift = data.draw(st.integers(-10, 10))
    check(fnp.roll(a, shift), np.roll(x, shift))
    if x.ndim:
        count = data.draw(st.integers(1, 3))
        axes = tuple(data.draw(st.integers(-x.ndim, x.ndim - 1)) for _ in range(count))
        shifts = tuple(data.draw(st.integers(-10, 10)) for _ in range(count))
        check(fnp.roll(a, shifts, axes), np.roll(x, shifts, axes))
        check(fnp.roll(a, shift, axes), np.roll(x, shift, axes))


@given(np_arrays(max_dims=3, max_side=3),
       st.one_of(st.integers(0, 3), st.lists(st.integers(0, 3), max_size=4)))
def test_tile(x, reps):
    check(fnp.tile(fnp.asarray(x), reps), np.tile(x, reps))


@given(np_arrays(max_dims=3), st.data())
def test_repeat(x, data):
    a = fnp.asarray(x)
    count = data.draw(st.integers(0, 3))
    check(fnp.repeat(a, count), np.repeat(x, count))
    check(a.repeat(count), x.repeat(count))
    if x.ndim:
        axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
        check(fnp.repeat(a, count, axis=axis), np.repeat(x, count, axis=axis))
        counts = data.draw(st.lists(st.integers(0, 3), min_size=x.shape[axis],
                                    max_size=x.shape[axis]))
        check(fnp.repeat(a, counts, axis=axis), np.repeat(x, counts, axis=axis))
        check(fnp.repeat(a, np.array(counts, np.int32), axis=axis),
              np.repeat(x, counts, axis=axis))


# jnp.repeat(jnp.arange(3), repeats, total_repeat_length=total), recorded from jax 0.10.
TOTAL_REPEAT_CASES = [
    (2, 0, []), (2, 2, [0, 0]), (2, 4, [0, 0, 1, 1]), (2, 9, [0, 0, 1, 1, 2, 2, 2, 2, 2]),
    ([1, 0, 2], 0, []), ([1, 0, 2], 2, [0, 2]), ([1, 0, 2], 4, [0, 2, 2, 2]),
    ([1, 0, 2], 9, [0, 2, 2, 2, 2, 2, 2, 2, 2]),
]


@pytest.mark.parametrize("repeats, total, expected", TOTAL_REPEAT_CASES)
def test_repeat_total_repeat_length_like_jax(repeats, total, expected):
    out = fnp.repeat(fnp.arange(3), repeats, total_repeat_length=total)
    check(out, np.array(expected, np.int32))
    # Traced repeats (under jit and vmap): the length is total_repeat_length's.
    traced = fa.jit(lambda r: fnp.repeat(fnp.arange(3), r, total_repeat_length=total))
    check(traced(np.asarray(repeats, np.int32)), np.array(expected, np.int32))


@settings(max_examples=15)
@given(shape=st.sampled_from([(3,), (2, 3), (4, 1)]), data=st.data())
def test_repeat_with_traced_repeats_matches_jax(shape, data):
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    size = shape[axis]
    repeats = np.array(data.draw(st.lists(st.integers(0, 3), min_size=size, max_size=size)),
                       np.int32)
    total = data.draw(st.integers(0, 10))
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)

    def ours(x, r):
        return fnp.repeat(x, r, axis=axis, total_repeat_length=total)

    def theirs(x, r):
        return jnp.repeat(x, r, axis=axis, total_repeat_length=total)

    want = np.asarray(jax.jit(theirs)(x, repeats))
    np.testing.assert_array_equal(np.asarray(fa.jit(ours)(x, repeats)), want)
    np.testing.assert_array_equal(np.asarray(ours(x, repeats)), want)
    batched = fa.vmap(ours, in_axes=(None, 0))(x, np.stack([repeats, repeats[::-1]]))
    np.testing.assert_array_equal(np.asarray(batched[0]), want)


# --------------------------------------------------------------------------------------------
# Triangles and diagonals
# --------------------------------------------------------------------------------------------

@given(np_arrays(min_dims=2), st.integers(-5, 5))
def test_tril_triu(x, k):
    a = fnp.asarray(x)
    check(fnp.tril(a, k), np.tril(x, k))
    check(fnp.triu(a, k), np.triu(x, k))
    check(fnp.tril(a), np.tril(x))


def test_tril_triu_huge_k():
    x = make_value((3, 4), np.float32, 0)
    for k in (-2**40, 2**40):
        check(fnp.tril(fnp.asarray(x), k), np.tril(x, k))
        check(fnp.triu(fnp.asarray(x), k), np.triu(x, k))


@given(np_arrays(min_dims=2), st.integers(-5, 5), st.data())
def test_diagonal(x, offset, data):
    first, second = data.draw(st.permutations(range(x.ndim)))[:2]
    first = maybe_negative(data.draw, first, x.ndim)
    a = fnp.asarray(x)
    check(fnp.diagonal(a, offset, first, second), np.diagonal(x, offset, first, second))
    check(a.diagonal(offset, first, second), x.diagonal(offset, first, second))
    check(fnp.diagonal(a), np.diagonal(x))


@given(np_arrays(min_dims=1, max_dims=2, max_side=5), st.integers(-4, 4))
def test_diag(x, k):
    check(fnp.diag(fnp.asarray(x), k), np.diag(x, k))


@given(np_arrays(min_dims=2, dtype=np.float64), st.integers(-3, 3))
def test_trace(x, offset):
    a = fnp.asarray(x)
    np.testing.assert_allclose(np.asarray(fnp.trace(a, offset)), np.trace(x, offset))
    np.testing.assert_allclose(np.asarray(a.trace(offset, 1, 0)), x.trace(offset, 1, 0))


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.bool_, np.float16, np.int64])
def test_trace_dtype_like_jax(dtype):
    x = make_value((3, 3), dtype, 0)
    with jax.enable_x64(np.dtype(dtype).itemsize == 8):  # funcarray's default int is int32
        expected = jnp.trace(jnp.asarray(x))
    out = fnp.trace(fnp.asarray(x))
    assert out.dtype == expected.dtype
    np.testing.assert_allclose(np.asarray(out).astype(np.float64),
                               np.asarray(expected).astype(np.float64))


# --------------------------------------------------------------------------------------------
# Weak types, compared with jax.numpy
# --------------------------------------------------------------------------------------------

WEAK_CASES = {
    "reshape": lambda m, x: m.reshape(x, (4, 3)),
    "transpose": lambda m, x: m.transpose(x),
    "moveaxis": lambda m, x: m.moveaxis(x, 0, 1),
    "expand_dims": lambda m, x: m.expand_dims(x, 0),
    "squeeze": lambda m, x: m.squeeze(m.expand_dims(x, 1)),
    "broadcast_to": lambda m, x: m.broadcast_to(x, (2, 3, 4)),
    "atleast_3d": lambda m, x: m.atleast_3d(x),
    "concatenate_weak_weak": lambda m, x: m.concatenate([x, x]),
    "concatenate_weak_strong": lambda m, x: m.concatenate([x, m.zeros((1, 4), m.int32)]),
    "stack": lambda m, x: m.stack([x, x]),
    "split": lambda m, x: m.split(x, 3)[0],
    "pad_constant": lambda m, x: m.pad(x, 1),
    "pad_strong_value": lambda m, x: m.pad(x, 1, constant_values=np.int32(2)),
    "pad_edge": lambda m, x: m.pad(x, 1, mode="edge"),
    "pad_reflect": lambda m, x: m.pad(x, 2, mode="reflect"),
    "pad_wrap": lambda m, x: m.pad(x, 5, mode="wrap"),
    "flip": lambda m, x: m.flip(x),
    "rot90": lambda m, x: m.rot90(x),
    "roll": lambda m, x: m.roll(x, 1),
    "tile": lambda m, x: m.tile(x, 2),
    "repeat": lambda m, x: m.repeat(x, 2),
    "repeat_counts": lambda m, x: m.repeat(x, np.array([1, 0, 2]), axis=0),
    "tril": lambda m, x: m.tril(x),
    "diag_1d": lambda m, x: m.diag(m.ravel(x)),
}


@pytest.mark.parametrize("name", sorted(WEAK_CASES))
def test_weak_type_like_jax(name):
    fn = WEAK_CASES[name]
    with jax.enable_x64(False):  # other test modules may switch x64 on globally
        expected = fn(jnp, jnp.full((3, 4), 7))  # a weak-typed int32 array
    out = fn(fnp, fnp.full((3, 4), 7))
    assert fnp.full((3, 4), 7).weak_type
    assert (out.dtype, out.weak_type) == (expected.dtype, expected.weak_type)
    check(out, np.asarray(expected))


# --------------------------------------------------------------------------------------------
# Tracers: every function runs under a trace that knows only shapes and dtypes
# --------------------------------------------------------------------------------------------

class ShapeTracer(Tracer):
    __slots__ = ("_aval",)

    def __init__(self, trace, aval):
        self._trace = trace
        self._aval = aval

    @property
    def aval(self):
        return self._aval


class ShapeTrace(Trace):
    """Interprets each primitive by its shape rule alone: no value is ever computed, so any
    function that reads a value (or lacks a shape rule) fails here."""

    def process_primitive(self, prim, args, params):
        for a in args:
            assert isinstance(a, (Array, ShapeTracer)), f"{prim.name} got {type(a).__name__}"
        return ShapeTracer(self, prim.abstract_eval(*(a.aval for a in args), **params))


def run_abstractly(fn, *arrays):
    trace = ShapeTrace(current_trace())
    with set_current_trace(trace):
        return fn(*(ShapeTracer(trace, a.aval) for a in arrays))


def avals_of(out):
    return [o.aval for o in out] if isinstance(out, (list, tuple)) else [out.aval]


X = make_value((2, 3, 4), np.float32, 0)
Y = make_value((2, 3, 4), np.int8, 1)
TRACED_CASES = {
    "reshape_F": lambda x, y: fnp.reshape(x, (4, -1), order="F"),
    "ravel": lambda x, y: fnp.ravel(x),
    "transpose": lambda x, y: fnp.transpose(x, (2, 0, 1)),
    "T_mT": lambda x, y: [x.T, x.mT],
    "moveaxis": lambda x, y: fnp.moveaxis(x, (0, 1), (-1, 0)),
    "swapaxes": lambda x, y: fnp.swapaxes(x, 0, -1),
    "expand_squeeze": lambda x, y: fnp.squeeze(fnp.expand_dims(x, (0, 4)), 0),
    "broadcast": lambda x, y: fnp.broadcast_arrays(x, fnp.zeros((5, 1, 1, 1))),
    "broadcast_to": lambda x, y: fnp.broadcast_to(x, (3, 2, 3, 4)),
    "atleast": lambda x, y: fnp.atleast_3d(x, fnp.ravel(y)),
    "concatenate": lambda x, y: fnp.concatenate([x, y, 1], axis=None),
    "concatenate_axis": lambda x, y: fnp.concatenate([x, y], axis=-1),
    "stack": lambda x, y: fnp.stack([x, y], axis=-1),
    "vstack_hstack_dstack": lambda x, y: [fnp.vstack([x, y]), fnp.hstack([x, y]),
                                          fnp.dstack([x, y])],
    "column_stack": lambda x, y: fnp.column_stack([fnp.ravel(x), fnp.ravel(y)]),
    "split": lambda x, y: fnp.split(x, [1, -1], axis=2) + fnp.array_split(y, 3, axis=-1),
    "pad": lambda x, y: [fnp.pad(x, 1), fnp.pad(x, (1, 2), constant_values=((1, 2),) * 3)]
    + [fnp.pad(y, ((1, 2), (3, 4), (9, 0)), mode=m) for m in ("edge", "reflect", "wrap",
                                                              "symmetric")],
    "flip": lambda x, y: [fnp.flip(x, (0, 2)), fnp.fliplr(x), fnp.rot90(x, 1, (2, 0))],
    "roll": lambda x, y: [fnp.roll(x, 3), fnp.roll(x, (1, -1), (0, 2))],
    "tile_repeat": lambda x, y: [fnp.tile(x, (2, 1, 1, 2)), fnp.repeat(x, 2, axis=1),
                                 fnp.repeat(x, [1, 0, 3], axis=1), x.repeat(2)],
    "tril_triu": lambda x, y: [fnp.tril(x, 1), fnp.triu(y, -1)],
    "diagonal": lambda x, y: [fnp.diagonal(x, 1, 2, 0), fnp.diag(fnp.reshape(x, (6, 4))),
                              fnp.diag(fnp.ravel(y), -2)],
}


@pytest.mark.parametrize("name", sorted(TRACED_CASES))
def test_functions_work_on_tracers(name):
    fn = TRACED_CASES[name]
    x, y = fnp.asarray(X), fnp.asarray(Y)
    eager = fn(x, y)
    traced = run_abstractly(fn, x, y)
    assert avals_of(traced) == avals_of(eager)


def test_traced_shape_arguments_are_refused():
    x = fnp.asarray(X)
    shift = fnp.asarray(np.int32(1))
    with pytest.raises(ConcretizationError):
        run_abstractly(lambda x, s: fnp.roll(x, s), x, shift)
    with pytest.raises(ConcretizationError):
        run_abstractly(lambda x, s: fnp.reshape(x, (s, -1)), x, shift)
    with pytest.raises(ConcretizationError):
        run_abstractly(lambda x, s: fnp.pad(x, s), x, shift)
    with pytest.raises(TypeError, match="repeat.*concrete"):
        run_abstractly(lambda x, s: fnp.repeat(x, fnp.stack([s, s, s]), axis=1), x, shift)


# --------------------------------------------------------------------------------------------
# Primitives: shape rule == eager result, StableHLO semantics, errors
# --------------------------------------------------------------------------------------------

def assert_rule_matches_impl(prim, operands, **params):
    out = prim.bind(*operands, **params)
    assert prim.abstract_eval(*(o.aval for o in operands), **params) == out.aval
    assert not np.asarray(out).flags.writeable
    return out


def weak_array(draw, x):
    return Array(x, draw(st.booleans()))


@given(np_arrays(), st.data())
def test_transpose_rev_reshape_primitives(x, data):
    a = weak_array(data.draw, x)
    perm = tuple(data.draw(st.permutations(range(x.ndim))))
    out = assert_rule_matches_impl(sp.transpose_p, [a], permutation=perm)
    check(out, np.transpose(x, perm))
    dims = tuple(sorted(set(data.draw(st.lists(st.integers(0, max(x.ndim - 1, 0)))))))
    dims = dims if x.ndim else ()
    check(assert_rule_matches_impl(sp.rev_p, [a], dimensions=dims), np.flip(x, dims))
    new = tuple(data.draw(st.permutations(x.shape)))
    check(assert_rule_matches_impl(sp.reshape_p, [a], new_sizes=new), x.reshape(new))


@given(st.data())
def test_squeeze_primitive(data):
    shape = tuple(data.draw(st.lists(st.sampled_from([0, 1, 2]), max_size=4)))
    x = data.draw(np_arrays(shape=shape))
    ones = [d for d, s in enumerate(shape) if s == 1]
    dims = tuple(sorted(data.draw(st.permutations(ones))[:data.draw(st.integers(0, len(ones)))]))
    out = assert_rule_matches_impl(sp.squeeze_p, [weak_array(data.draw, x)], dimensions=dims)
    check(out, np.squeeze(x, dims))


@given(concat_cases(), st.data())
def test_concatenate_primitive(case, data):
    arrays, axis = case
    operands = [weak_array(data.draw, x) for x in arrays]
    axis %= arrays[0].ndim
    out = assert_rule_matches_impl(sp.concatenate_p, operands, dimension=axis)
    assert out.weak_type == all(o.weak_type for o in operands)
    check(out, np.concatenate(arrays, axis))


@given(np_arrays(max_dims=3), st.data())
def test_slice_primitive(x, data):
    starts, limits, strides = [], [], []
    for d in x.shape:
        start = data.draw(st.integers(0, d))
        starts.append(start)
        limits.append(data.draw(st.integers(start, d)))
        strides.append(data.draw(st.integers(1, 3)))
    strides = tuple(strides) if data.draw(st.booleans()) else None
    out = assert_rule_matches_impl(sp.slice_p, [weak_array(data.draw, x)],
                                   start_indices=tuple(starts), limit_indices=tuple(limits),
                                   strides=strides)
    steps = strides or (1,) * x.ndim
    check(out, x[tuple(slice(*b) for b in zip(starts, limits, steps))])


@settings(max_examples=20)  # each example compiles a jax executable
@given(np_arrays(max_dims=3, max_side=3), st.data())
def test_pad_primitive_matches_lax_pad(x, data):
    config = tuple((data.draw(st.integers(-4, 3)), data.draw(st.integers(-4, 3)),
                    data.draw(st.integers(0, 2))) for _ in x.shape)
    assume(all(lo + hi + d + max(d - 1, 0) * i >= 0 for d, (lo, hi, i) in zip(x.shape, config)))
    value = make_value((), x.dtype, 3)
    operands = [weak_array(data.draw, x), weak_array(data.draw, value)]
    out = assert_rule_matches_impl(sp.pad_p, operands, padding_config=config)
    assert out.weak_type == (operands[0].weak_type and operands[1].weak_type)
    with jax.enable_x64(True):
        expected = np.asarray(jax.lax.pad(x, value, config))
    check(out, expected)


@given(broadcastable_pair(), st.data())
def test_broadcast_in_dim_primitive(case, data):
    x, target = case
    dims = tuple(range(len(target) - x.ndim, len(target)))
    out = assert_rule_matches_impl(sp.broadcast_in_dim_p, [weak_array(data.draw, x)],
                                   shape=target, broadcast_dimensions=dims)
    check(out, np.broadcast_to(x, target))


def test_iota_primitive():
    out = sp.iota_p.bind(dtype=np.dtype(np.int16), shape=(2, 3), dimension=1)
    assert sp.iota_p.abstract_eval(dtype=np.dtype(np.int16), shape=(2, 3), dimension=1) == \
        out.aval
    check(out, np.broadcast_to(np.arange(3, dtype=np.int16), (2, 3)))


F23 = ShapedArray((2, 3), np.float32)
I23 = ShapedArray((2, 3), np.int32)
F0 = ShapedArray((), np.float32)
PRIMITIVE_ERRORS = [
    (sp.transpose_p, [F23], dict(permutation=(0, 0)), r"transpose.*float32\[2,3\]"),
    (sp.transpose_p, [F23], dict(permutation=[1, 0]), r"transpose.*tuple"),
    (sp.squeeze_p, [F23], dict(dimensions=(0,)), r"squeeze.*float32\[2,3\].*size 1"),
    (sp.squeeze_p, [F23], dict(dimensions=(2,)), r"squeeze.*float32\[2,3\]"),
    (sp.rev_p, [F23], dict(dimensions=(1, 1)), r"rev.*float32\[2,3\]"),
    (sp.concatenate_p, [F23, I23], dict(dimension=0), r"concatenate.*float32\[2,3\].*int32\[2,3\]"),
    (sp.concatenate_p, [F23, ShapedArray((2, 4), np.float32)], dict(dimension=0),
     r"concatenate.*float32\[2,3\].*float32\[2,4\]"),
    (sp.concatenate_p, [F23], dict(dimension=2), r"concatenate.*float32\[2,3\]"),
    (sp.concatenate_p, [], dict(dimension=0), r"concatenate.*at least one"),
    (sp.pad_p, [F23, ShapedArray((), np.int32)], dict(padding_config=((0, 0, 0),) * 2),
     r"pad.*float32\[2,3\].*int32\[\]"),
    (sp.pad_p, [F23, F0], dict(padding_config=((0, 0, 0),)), r"pad.*float32\[2,3\]"),
    (sp.pad_p, [F23, F0], dict(padding_config=((0, 0, -1), (0, 0, 0))), r"pad.*interior"),
    (sp.pad_p, [F23, F0], dict(padding_config=((-3, 0, 0), (0, 0, 0))),
     r"pad.*negative.*float32\[2,3\]"),
    (sp.slice_p, [F23], dict(start_indices=(0, 2), limit_indices=(2, 1), strides=None),
     r"slice.*float32\[2,3\]"),
    (sp.slice_p, [F23], dict(start_indices=(0, 0), limit_indices=(2, 4), strides=None),
     r"slice.*float32\[2,3\]"),
    (sp.slice_p, [F23], dict(start_indices=(0,), limit_indices=(2, 3), strides=None),
     r"slice.*start_indices"),
    (sp.slice_p, [F23], dict(start_indices=(0, 0), limit_indices=(2, 3), strides=(1, 0)),
     r"slice.*strides"),
    (sp.reshape_p, [F23], dict(new_sizes=(4, 2)), r"reshape.*float32\[2,3\].*\(4, 2\)"),
    (sp.broadcast_in_dim_p, [F23], dict(shape=(2, 4), broadcast_dimensions=(0, 1)),
     r"broadcast_in_dim.*float32\[2,3\]"),
    (sp.broadcast_in_dim_p, [F23], dict(shape=(3, 3), broadcast_dimensions=(1, 1)),
     r"broadcast_in_dim.*unique"),
]


@pytest.mark.parametrize("prim, avals, params, match", PRIMITIVE_ERRORS)
def test_primitive_shape_rule_errors(prim, avals, params, match):
    with pytest.raises(TypeError, match=match):
        prim.abstract_eval(*avals, **params)


def test_memoized_shape_rule_still_explains_bad_params():
    # broadcast_in_dim's rule runs once per signature; a repeated signature gets the same
    # (shared) result, and params that cannot be looked up still get the rule's error.
    good = dict(shape=(4, 2, 3), broadcast_dimensions=(1, 2))
    first = sp.broadcast_in_dim_p.abstract_eval(F23, **good)
    assert sp.broadcast_in_dim_p.abstract_eval(F23, **good) is first
    assert first == ShapedArray((4, 2, 3), np.float32)
    with pytest.raises(TypeError, match=r"broadcast_in_dim: shape must be a tuple of ints"):
        sp.broadcast_in_dim_p.abstract_eval(F23, shape=[4, 2, 3], broadcast_dimensions=(1, 2))
    with pytest.raises(TypeError, match=r"broadcast_in_dim.*float32\[2,3\]"):
        sp.broadcast_in_dim_p.abstract_eval(F23, shape=(4, 2, 4), broadcast_dimensions=(1, 2))


# --------------------------------------------------------------------------------------------
# Error messages of the public functions
# --------------------------------------------------------------------------------------------

Z23 = fnp.zeros((2, 3))
API_ERRORS = [
    (lambda: fnp.reshape(fnp.arange(6), (4, -1)), ValueError, r"reshape.*\(6,\).*\(4, -1\)"),
    (lambda: fnp.reshape(fnp.arange(6), (-1, -1)), ValueError, r"reshape.*one -1"),
    (lambda: fnp.reshape(fnp.zeros((0, 3)), (0, -1)), ValueError, r"reshape.*\(0, 3\)"),
    (lambda: fnp.reshape(Z23, (2, 3), order="A"), ValueError, r"reshape.*order"),
    (lambda: fnp.reshape(Z23, (2.0, 3)), TypeError, r"reshape.*shape"),
    (lambda: fnp.ravel(Z23, order="K"), ValueError, r"ravel.*order"),
    (lambda: fnp.transpose(Z23, (0,)), ValueError, r"transpose.*\(2, 3\)"),
    (lambda: fnp.transpose(Z23, (0, 0)), ValueError, r"transpose.*repeated.*\(2, 3\)"),
    (lambda: fnp.transpose(Z23, (0, 2)), ValueError, r"transpose.*axis 2.*\(2, 3\)"),
    (lambda: fnp.permute_dims(Z23, (1, -3)), ValueError, r"permute_dims.*axis -3.*\(2, 3\)"),
    (lambda: fnp.matrix_transpose(fnp.zeros(3)), ValueError, r"matrix_transpose.*\(3,\)"),
    (lambda: fnp.moveaxis(Z23, (0, 1), 0), ValueError, r"moveaxis.*same number"),
    (lambda: fnp.moveaxis(Z23, 0, 2), ValueError, r"moveaxis.*axis 2.*\(2, 3\)"),
    (lambda: fnp.swapaxes(Z23, 0, 5), ValueError, r"swapaxes.*axis 5.*\(2, 3\)"),
    (lambda: fnp.expand_dims(Z23, 3), ValueError, r"expand_dims.*axis 3"),
    (lambda: fnp.expand_dims(Z23, (0, -4)), ValueError, r"expand_dims.*repeated"),
    (lambda: fnp.squeeze(fnp.zeros((1, 3)), 1), ValueError, r"squeeze.*axis 1.*\(1, 3\).*3"),
    (lambda: fnp.squeeze(Z23, 2), ValueError, r"squeeze.*axis 2.*\(2, 3\)"),
    (lambda: fnp.broadcast_to(fnp.zeros(3), (4,)), ValueError, r"broadcast_to.*\(3,\).*\(4,\)"),
    (lambda: fnp.broadcast_to(Z23, (3,)), ValueError, r"broadcast_to.*\(2, 3\).*\(3,\)"),
    (lambda: fnp.broadcast_arrays(fnp.zeros(3), fnp.zeros(4)), ValueError,
     r"broadcast_arrays.*\(3,\).*\(4,\)"),
    (lambda: fnp.broadcast_shapes((2,), (3,)), ValueError, r"broadcast_shapes.*\(2,\).*\(3,\)"),
    (lambda: fnp.concatenate([Z23, fnp.zeros((3, 3))], axis=1), ValueError,
     r"concatenate.*axis 1.*\(2, 3\), \(3, 3\)"),
    (lambda: fnp.concatenate([fnp.zeros(2), Z23]), ValueError,
     r"concatenate.*number of dimensions.*\(2,\), \(2, 3\)"),
    (lambda: fnp.concatenate([fnp.zeros(()), fnp.zeros(())]), ValueError, r"concatenate.*0-d"),
    (lambda: fnp.concatenate([]), ValueError, r"concatenate.*at least one"),
    (lambda: fnp.concatenate([fnp.zeros(2)], axis=1), ValueError,
     r"concatenate.*axis 1.*\(2,\)"),
    (lambda: fnp.concatenate([fnp.zeros(2, fnp.float16), fnp.zeros(2, fnp.float8_e4m3fn)]),
     TypeError, r"concatenate.*promotion"),
    (lambda: fnp.concat([Z23, fnp.zeros((2, 2))]), ValueError, r"concat.*\(2, 3\), \(2, 2\)"),
    (lambda: fnp.stack([fnp.zeros(2), fnp.zeros(3)]), ValueError, r"stack.*\(2,\), \(3,\)"),
    (lambda: fnp.stack([]), ValueError, r"stack.*at least one"),
    (lambda: fnp.stack([Z23], axis=3), ValueError, r"stack.*axis 3"),
    (lambda: fnp.vstack([fnp.zeros(2), fnp.zeros(3)]), ValueError, r"vstack.*\(1, 2\), \(1, 3\)"),
    (lambda: fnp.split(fnp.arange(5), 2), ValueError, r"split.*size 5.*\(5,\)"),
    (lambda: fnp.split(fnp.arange(5), 0), ValueError, r"split.*positive"),
    (lambda: fnp.split(fnp.zeros(()), 1), ValueError, r"split.*axis 0.*\(\)"),
    (lambda: fnp.vsplit(fnp.arange(4), 2), ValueError, r"vsplit.*\(4,\)"),
    (lambda: fnp.dsplit(Z23, 2), ValueError, r"dsplit.*\(2, 3\)"),
    (lambda: fnp.flip(Z23, 2), ValueError, r"flip.*axis 2.*\(2, 3\)"),
    (lambda: fnp.fliplr(fnp.zeros(3)), ValueError, r"fliplr.*\(3,\)"),
    (lambda: fnp.flipud(fnp.zeros(())), ValueError, r"flipud.*\(\)"),
    (lambda: fnp.rot90(fnp.zeros(3)), ValueError, r"rot90.*\(3,\)"),
    (lambda: fnp.rot90(Z23, axes=(0, -2)), ValueError, r"rot90.*repeated"),
    (lambda: fnp.roll(fnp.zeros(3), (1, 2), (0, 0, 0)), ValueError, r"roll.*same length"),
    (lambda: fnp.roll(Z23, 1, 2), ValueError, r"roll.*axis 2.*\(2, 3\)"),
    (lambda: fnp.roll(Z23, 1.5, 0), TypeError, r"roll.*shift"),
    (lambda: fnp.tile(fnp.zeros(2), -1), ValueError, r"tile.*negative"),
    (lambda: fnp.repeat(fnp.zeros(3), [1, 2]), ValueError, r"repeat.*2 repeat counts.*size 3"),
    (lambda: fnp.repeat(fnp.zeros(3), -1), ValueError, r"repeat.*negative"),
    (lambda: fnp.repeat(Z23, 2, axis=2), ValueError, r"repeat.*axis 2.*\(2, 3\)"),
    (lambda: fnp.tril(fnp.zeros(3)), ValueError, r"tril.*\(3,\)"),
    (lambda: fnp.triu(fnp.zeros(3)), ValueError, r"triu.*\(3,\)"),
    (lambda: fnp.diagonal(Z23, axis1=1, axis2=-1), ValueError, r"diagonal.*differ.*\(2, 3\)"),
    (lambda: fnp.diagonal(fnp.zeros(3)), ValueError, r"diagonal.*\(3,\)"),
    (lambda: fnp.diag(fnp.zeros((2, 2, 2))), ValueError, r"diag.*\(2, 2, 2\)"),
]


@pytest.mark.parametrize("call, exc_type, match", API_ERRORS)
def test_error_messages(call, exc_type, match):
    with pytest.raises(exc_type, match=match):
        call()


def test_results_are_read_only_and_inputs_unchanged():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    a = fnp.asarray(x)
    outs = [fnp.transpose(a), fnp.pad(a, 1), fnp.flip(a), fnp.diagonal(a), fnp.tile(a, 2),
            fnp.concatenate([a, a]), fnp.roll(a, 1), *fnp.split(a, 3, axis=1), fnp.tril(a)]
    for out in outs:
        view = np.asarray(out)
        assert not view.flags.writeable
        with pytest.raises(ValueError):
            view[...] = 0
    np.testing.assert_array_equal(np.asarray(a), x)


@settings(max_examples=40, deadline=None)
@given(start_shape=st.sampled_from([(), (2,), (3, 1)]),
       stop_shape=st.sampled_from([(), (2,), (1, 2)]), num=st.integers(0, 6),
       endpoint=st.booleans(), axis_pick=st.integers(-3, 2),
       dtype=st.sampled_from([np.float32, np.float64, np.int32]))
def test_linspace_array_endpoints_axis_and_integer_rounding_match_numpy(
        start_shape, stop_shape, num, endpoint, axis_pick, dtype):
    rng = np.random.default_rng(num)
    start = rng.normal(size=start_shape) * 4
    stop = rng.normal(size=stop_shape) * 4
    try:
        ndim = len(np.broadcast_shapes(start_shape, stop_shape)) + 1
    except ValueError:
        return
    axis = axis_pick % ndim if axis_pick >= ndim else axis_pick
    if not -ndim <= axis < ndim:
        return
    want, want_step = np.linspace(start.astype(np.float32), stop.astype(np.float32), num,
                                  endpoint=endpoint, retstep=True, dtype=dtype, axis=axis)
    got, step = fnp.linspace(fnp.asarray(start.astype(np.float32)),
                             fnp.asarray(stop.astype(np.float32)), num, endpoint=endpoint,
                             retstep=True, dtype=dtype, axis=axis)
    assert got.shape == want.shape and got.dtype == want.dtype
    if np.issubdtype(dtype, np.integer):  # floor of float32 values: exact but for ties
        assert np.abs(np.asarray(got).astype(np.int64) - want).max(initial=0) <= 1
    else:
        np.testing.assert_allclose(np.asarray(got), want, rtol=2e-6, atol=2e-6)
        np.testing.assert_allclose(np.asarray(step), np.asarray(want_step, dtype), rtol=2e-6,
                                   atol=2e-6)
