"""lax.top_k: values and indices against jax.lax.top_k (eager and jit, every real dtype, ties,
signed zeros, NaN), its JVP and gradient against jax and finite differences, and vmap against
a Python loop."""

import jax
import numpy as np
import pytest
from helpers import run_portable
from hypothesis import given, settings
from hypothesis import strategies as st

import funcarray as fa
import funcarray.numpy as fnp
from funcarray import lax
from funcarray.testing import assert_allclose, check_grads

DTYPES = ["bool", "int8", "uint8", "int32", "int64", "uint32", "float16", "bfloat16",
          "float32", "float64"]


def _values(rng, shape, dtype):
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    if np.dtype(dtype).kind in "iu":
        info = np.iinfo(dtype)
        # few distinct values (ties) plus the extremes
        pool = np.array([info.min, info.max, 0, 1, 2], dtype=dtype)
        return rng.choice(pool, size=shape)
    pool = np.array([-np.inf, -1.5, -0.0, 0.0, 0.5, 0.5, 2.0, np.inf, np.nan])
    return rng.choice(pool, size=shape).astype(jax.numpy.dtype(dtype))


def _assert_same(got, want):
    (gv, gi), (wv, wi) = got, want
    np.testing.assert_array_equal(np.asarray(gi), np.asarray(wi))
    assert np.asarray(gv).dtype == np.asarray(wv).dtype
    # bitwise equality: signed zeros and NaNs must come out where XLA puts them
    np.testing.assert_array_equal(np.ascontiguousarray(gv).view(np.uint8),
                                  np.ascontiguousarray(wv).view(np.uint8))


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(DTYPES), st.lists(st.integers(1, 5), min_size=1, max_size=3),
       st.data())
def test_top_k_matches_jax(dtype, shape, data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16), label="seed"))
    x = _values(rng, tuple(shape), dtype)
    axis = data.draw(st.integers(-len(shape), len(shape) - 1), label="axis")
    k = data.draw(st.integers(0, shape[axis]), label="k")
    want = jax.lax.top_k(x, k, axis=axis)
    _assert_same(lax.top_k(fnp.asarray(x), k, axis=axis), want)
    _assert_same(fa.jit(lambda v: lax.top_k(v, k, axis=axis))(fnp.asarray(x)), want)


def test_top_k_portable_lowering_and_weak_type():
    x = np.array([[2.0, -1.0, 7.0], [0.0, 0.0, -3.0]])
    got = run_portable(lambda v: lax.top_k(v, 2), fnp.asarray(x))
    _assert_same(got, jax.lax.top_k(x, 2))
    values, indices = lax.top_k(3.0 * fnp.ones(3), 1)
    assert indices.dtype == np.int32 and values.shape == (1,)


def test_top_k_derivatives():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(3, 6))  # distinct values: the derivative is defined everywhere

    def f(xp_lax):
        return lambda v: xp_lax.top_k(v * v, 3)[0] * 2.0

    t = rng.normal(size=x.shape)
    got = fa.jvp(f(lax), (fnp.asarray(x),), (fnp.asarray(t),))
    want = jax.jvp(f(jax.lax), (x,), (t,))
    fa.tree.map(assert_allclose, got, want)
    loss = lambda xp_lax: lambda v: (xp_lax.top_k(v, 2, axis=0)[0] ** 2).sum()  # noqa: E731
    assert_allclose(fa.grad(loss(lax))(fnp.asarray(x)), jax.grad(loss(jax.lax))(x))
    assert_allclose(fa.jit(fa.grad(loss(lax)))(fnp.asarray(x)), jax.grad(loss(jax.lax))(x))
    check_grads(f(lax), (fnp.asarray(x),), order=2)


@pytest.mark.parametrize("in_axis", [0, 1, 2, -1])
def test_top_k_vmap_against_a_loop(in_axis):
    x = np.random.default_rng(4).integers(-3, 3, size=(3, 4, 5)).astype(np.float32)
    got = fa.vmap(lambda v: lax.top_k(v, 2), in_axes=in_axis)(fnp.asarray(x))
    moved = np.moveaxis(x, in_axis, 0)
    for b in range(moved.shape[0]):
        want = jax.lax.top_k(moved[b], 2)
        _assert_same((got[0][b], got[1][b]), want)


def test_top_k_errors():
    with pytest.raises(TypeError, match="lax.top_k.*at least one axis"):
        lax.top_k(fnp.asarray(1.0), 1)
    with pytest.raises(ValueError, match=r"k=4 must be between 0 and the size of axis 0 \(3\)"):
        lax.top_k(fnp.ones(3), 4)
    with pytest.raises(TypeError, match="lax.top_k.*does not accept dtype complex64"):
        lax.top_k(fnp.ones(3, dtype=np.complex64), 1)
    with pytest.raises(TypeError, match="k must be an int"):
        lax.top_k(fnp.ones(3), 1.5)


@pytest.mark.parametrize("largest", [True, False])
def test_weak_operands_keep_jax_weak_types_eagerly_and_under_jit(largest):
    # jax gives both outputs the operand's weak type (indices included); eager top_k gave
    # strong outputs where jit gave weak values, so the two disagreed.
    weak = lax.broadcast(fnp.asarray(2.5), (4,))
    jweak = jax.lax.broadcast(jax.numpy.asarray(2.5), (4,))
    want = [a.weak_type for a in jax.lax.top_k(jweak, 2)]
    assert want == [True, True]
    fn = (lambda v: lax.top_k(v, 2)) if largest else (lambda v: lax.approx_min_k(v, 2))
    jfn = (lambda v: jax.lax.top_k(v, 2)) if largest else (lambda v: jax.lax.approx_min_k(v, 2))
    want = [a.weak_type for a in jfn(jweak)]
    for got in (fn(weak), fa.jit(fn)(weak), lax.approx_max_k(weak, 2)):
        assert [a.weak_type for a in got] == want
    strong = fnp.asarray(np.arange(4.0, dtype=np.float32))
    assert [a.weak_type for a in fn(strong)] == [False, False]
