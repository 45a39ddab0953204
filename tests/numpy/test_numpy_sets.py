"""funcarray.numpy's set operations (intersect1d, union1d, setdiff1d, setxor1d, unique_all,
unique_counts, unique_inverse, unique_values): Hypothesis against NumPy (eager, and with
size= against NumPy's result truncated/padded by jax.numpy's fill rules), fixed cases against
jax.numpy's values, fa.jit and fa.vmap with size=, and the errors."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import funcarray as fa
import funcarray.numpy as fnp

SETOPS = ("intersect1d", "union1d", "setdiff1d", "setxor1d")


def _equal(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (got, want)
    np.testing.assert_array_equal(got, want)


def _padded(values, size, fill):
    values = np.asarray(values)[:size]
    return np.concatenate([values, np.full(size - values.shape[0], fill, values.dtype)])


def _default_fill(name, want):
    """jax.numpy's padding when no fill_value is given."""
    if name == "setdiff1d":
        return 0
    return want.min() if want.size else 0


small_ints = st.lists(st.integers(0, 6), max_size=8).map(lambda v: np.array(v, np.int32))


@settings(max_examples=12, deadline=None)
@given(small_ints, small_ints, st.integers(0, 10), st.booleans())
def test_setops_match_numpy(a, b, size, unique_inputs):
    if unique_inputs:
        a, b = np.unique(a), np.unique(b)
    for name in SETOPS:
        kwargs = {} if name == "union1d" else {"assume_unique": unique_inputs}
        ours, theirs = getattr(fnp, name), getattr(np, name)
        want = theirs(a, b, **kwargs)
        _equal(ours(a, b, **kwargs), want)
        if name == "union1d" and size and not a.size + b.size:
            # jax.numpy's union1d has no default padding for nothing: a fill_value is needed.
            with pytest.raises(ValueError, match="union1d: an empty input .* fill_value="):
                ours(a, b, size=size)
        else:
            _equal(ours(a, b, size=size, **kwargs),
                   _padded(want, size, _default_fill(name, want)))
        _equal(ours(a, b, size=size, fill_value=-1, **kwargs), _padded(want, size, -1))
    values, i1, i2 = fnp.intersect1d(a, b, assume_unique=unique_inputs, return_indices=True)
    want = np.intersect1d(a, b, assume_unique=unique_inputs, return_indices=True)
    for got, w in zip((values, i1, i2), want):
        _equal(got, w)
    values, i1, i2 = fnp.intersect1d(a, b, unique_inputs, True, size=size)
    _equal(i1, _padded(want[1], size, a.size))
    _equal(i2, _padded(want[2], size, b.size))


floats = st.lists(st.sampled_from([0.0, -1.5, 2.0, 2.0, np.nan, np.inf]), max_size=7).map(
    lambda v: np.array(v, np.float32))


@settings(max_examples=15, deadline=None)
@given(st.one_of(small_ints, floats), st.integers(1, 8))
def test_unique_functions_match_numpy(x, size):
    want = np.unique_all(x)
    got = fnp.unique_all(x)
    for g, w in zip(got, want):
        _equal(g, w)
    # (NumPy's unique_values need not sort; jax.numpy's and ours do.)
    _equal(fnp.unique_values(x), np.unique(x, equal_nan=False))
    for g, w in zip(fnp.unique_counts(x), np.unique_counts(x)):
        _equal(g, w)
    for g, w in zip(fnp.unique_inverse(x), np.unique_inverse(x)):
        _equal(g, w)
    if x.size:
        sized = fnp.unique_all(x, size=size)
        _equal(sized.values, _padded(want.values, size, want.values[0]))
        _equal(sized.indices, _padded(want.indices, size, want.indices[0]))
        _equal(sized.inverse_indices, want.inverse_indices)
        _equal(sized.counts, _padded(want.counts, size, 0))
        _equal(fnp.unique_values(x, size=size, fill_value=9),
               _padded(want.values, size, 9))


def test_match_jax_fixed_cases():
    # Expected values recorded from jax.numpy 0.10.2 (its sized set operations compile
    # one program per call, too slow to run here each time).
    a = np.array([[3, 1, 4], [1, 5, 9]], np.int32)
    b = np.array([5, 3, 5, 8], np.int32)
    result = fnp.unique_all(a, size=7, fill_value=-1)
    want = ([1, 3, 4, 5, 9, -1, -1], [1, 0, 2, 4, 5, 1, 1], [[1, 0, 2], [0, 3, 4]],
            [2, 1, 1, 1, 1, 0, 0])
    for g, w in zip(result, want):
        _equal(g, w)
    assert type(result).__name__ == "_UniqueAllResult"
    for g, w in zip(fnp.intersect1d(a, b, return_indices=True, size=4),
                    ([3, 5, 3, 3], [0, 4, 6, 6], [1, 0, 4, 4])):
        _equal(g, w)
    _equal(fnp.setxor1d(a, b, size=8), [1, 4, 8, 9, 1, 1, 1, 1])
    _equal(fnp.union1d(a, b, size=9, fill_value=0), [1, 3, 4, 5, 8, 9, 0, 0, 0])
    _equal(fnp.setdiff1d(a, b, size=5), [1, 4, 9, 0, 0])
    _equal(fnp.unique_values(np.array([2.0, 1.0, 2.0], np.float32), size=3), [1.0, 2.0, 1.0])
    # Promotion: an int array with a float array gives floats.
    assert fnp.union1d(a, np.array([0.5], np.float32)).dtype == np.float32


def test_jit_and_vmap_with_size():
    a = np.array([[3, 1, 4, 1, 5], [2, 2, 0, 7, 3]], np.int32)
    b = np.array([5, 3, 8], np.int32)

    def everything(x, y):
        return ([getattr(fnp, name)(x, y, size=4, fill_value=-1) for name in SETOPS],
                fnp.intersect1d(x, y, return_indices=True, size=3),
                fnp.unique_all(x, size=6))

    def some(x, y):  # one small program, one compile: the other set operations share its code
        return (fnp.intersect1d(x, y, return_indices=True, size=3), fnp.unique_all(x, size=6))

    jitted = fa.jit(some)
    batched = fa.vmap(everything, in_axes=(0, None))(a, b)
    for i, row in enumerate(a):
        want = fa.tree.leaves(everything(row, b))
        assert len(want) == 11
        for got_vmap, w in zip(fa.tree.leaves(batched), want):
            _equal(got_vmap[i], w)
        for got_jit, w in zip(fa.tree.leaves(jitted(row, b)), want[4:]):
            _equal(got_jit, w)


def test_empty_inputs():
    empty = np.zeros(0, np.int32)
    _equal(fnp.unique_values(empty), empty)
    _equal(fnp.unique_values(empty, size=2, fill_value=4), [4, 4])
    for name in SETOPS:
        _equal(getattr(fnp, name)(empty, empty), getattr(np, name)(empty, empty))
        _equal(getattr(fnp, name)(empty, empty, size=2, fill_value=3), [3, 3])


def test_errors():
    x = np.array([1, 2, 2], np.int32)
    for name in ("unique_values", "unique_all"):
        with pytest.raises(TypeError, match=f"{name}.*size="):
            fa.jit(getattr(fnp, name))(x)
    for name in SETOPS:
        with pytest.raises(TypeError, match=f"{name}.*size="):
            fa.jit(getattr(fnp, name))(x, x)
    with pytest.raises(TypeError, match="size must be non-negative"):
        fnp.union1d(x, x, size=-1)
    with pytest.raises(TypeError, match="size must be an integer"):
        fnp.unique_values(x, size=2.5)
    with pytest.raises(ValueError, match="unique_values.*fill_value"):
        fnp.unique_values(np.zeros(0), size=3)
    with pytest.raises(TypeError, match="intersect1d"):
        fnp.intersect1d(x, "abc")
