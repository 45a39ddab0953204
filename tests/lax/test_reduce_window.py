"""lax.reduce_window (sum / max / min pooling) against jax.lax.reduce_window: values eager and
under jit, gradients, vmap, for Hypothesis-drawn windows, strides, paddings and dilations;
finite differences where jax has no derivative (max with window dilation)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import funcarray as fa
import funcarray.numpy as fnp
from funcarray import lax
from funcarray.testing import assert_allclose, check_grads

MONOIDS = {"sum": (lax.add, jax.lax.add, 0.0), "max": (lax.max, jax.lax.max, -np.inf),
           "min": (lax.min, jax.lax.min, np.inf)}


@st.composite
def window_cases(draw):
    ndim = draw(st.integers(1, 3), label="rank")
    shape = tuple(draw(st.integers(1, 5)) for _ in range(ndim))
    window = tuple(draw(st.integers(1, 3)) for _ in range(ndim))
    strides = tuple(draw(st.integers(1, 2)) for _ in range(ndim))
    base = tuple(draw(st.integers(1, 2)) for _ in range(ndim))
    dilation = tuple(draw(st.integers(1, 2)) for _ in range(ndim))
    padding = []
    for size, w, b, d in zip(shape, window, base, dilation):
        lo, hi = draw(st.integers(0, 2)), draw(st.integers(0, 2))
        span = (size - 1) * b + 1 + lo + hi
        need = (w - 1) * d + 1
        padding.append((lo, hi + max(0, need - span)))
    padding = draw(st.sampled_from([tuple(padding), "SAME", "VALID"]))
    if padding == "VALID":
        shape = tuple(max(s, ((w - 1) * d + 1 + b - 1) // b) for s, w, d, b in
                      zip(shape, window, dilation, base))
    return dict(shape=shape, args=(window, strides, padding, base, dilation),
                kind=draw(st.sampled_from(sorted(MONOIDS))), seed=draw(st.integers(0, 999)))


@settings(max_examples=25, deadline=None)
@given(window_cases())
def test_reduce_window_matches_jax(case):
    x = np.random.default_rng(case["seed"]).normal(size=case["shape"])
    ours, theirs, init = MONOIDS[case["kind"]]
    f = lambda v: lax.reduce_window(v, init, ours, *case["args"])  # noqa: E731
    want = jax.lax.reduce_window(x, init, theirs, *case["args"])
    assert_allclose(f(fnp.asarray(x)), want)
    assert_allclose(fa.jit(f)(fnp.asarray(x)), want)
    batched = np.stack([x, -x], axis=x.ndim)
    assert_allclose(fa.vmap(f, in_axes=-1)(fnp.asarray(batched)),
                    jax.vmap(lambda v: jax.lax.reduce_window(v, init, theirs, *case["args"]),
                             in_axes=-1)(batched))


@settings(max_examples=15, deadline=None)
@given(window_cases())
def test_reduce_window_gradients_match_jax(case):
    x = np.random.default_rng(case["seed"]).normal(size=case["shape"])
    ours, theirs, init = MONOIDS[case["kind"]]
    window, strides, padding, base, dilation = case["args"]
    loss_f = lambda v: fnp.sum(fnp.tanh(lax.reduce_window(v, init, ours, *case["args"])))  # noqa
    loss_j = lambda v: jnp.sum(jnp.tanh(jax.lax.reduce_window(v, init, theirs, *case["args"])))  # noqa
    if case["kind"] != "sum" and any(d > 1 for d in dilation):
        # jax has no derivative here ("VJP not implemented for select_and_gather with window
        # dilation"): finite differences instead (the values are distinct: no ties)
        check_grads(loss_f, (fnp.asarray(x),), order=1, modes=("fwd", "rev"))
        return
    want = jax.grad(loss_j)(x)
    assert_allclose(fa.grad(loss_f)(fnp.asarray(x)), want)
    assert_allclose(fa.jit(fa.grad(loss_f))(fnp.asarray(x)), want)


@pytest.mark.parametrize("kind", ["max", "min"])
def test_gradient_with_an_empty_output_is_zero(kind):
    """A window longer than the (dilated) operand: no output, a zero gradient, as in jax."""
    ours, theirs, init = MONOIDS[kind]
    args = ((4,), (1,), "VALID", (2,), (1,))  # operand of 2 dilates to 3 < 4: output (0,)
    x = np.array([0.5, -1.0])
    want = jax.grad(lambda v: jnp.sum(jax.lax.reduce_window(v, init, theirs, *args)))(x)
    for grad in (fa.grad, lambda f: fa.jit(fa.grad(f))):
        got = grad(lambda v: fnp.sum(lax.reduce_window(v, init, ours, *args)))(fnp.asarray(x))
        assert_allclose(got, want)


def test_pooling_cnn_gradient_matches_jax():
    """conv -> max pool -> avg pool, the jitted gradient of the weights (NHWC)."""
    rng = np.random.default_rng(5)
    x = rng.normal(size=(2, 8, 8, 1)).astype(np.float32)
    w = (rng.normal(size=(3, 3, 1, 4)) / 3).astype(np.float32)

    def loss(L, xp):
        def f(w, x):
            h = L.conv_general_dilated(x, w, (1, 1), "SAME",
                                       dimension_numbers=("NHWC", "HWIO", "NHWC"))
            h = L.reduce_window(h, -np.inf, L.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
            h = L.reduce_window(h, 0.0, L.add, (1, 2, 2, 1), (1, 2, 2, 1), "VALID") / 4
            return xp.sum(h ** 2)
        return f

    with jax.enable_x64(False):
        want = jax.jit(jax.grad(loss(jax.lax, jnp)))(w, x)
    got = fa.jit(fa.grad(loss(lax, fnp)))(fnp.asarray(w), fnp.asarray(x))
    assert_allclose(got, want, rtol=1e-4, atol=1e-6)
    per_example = fa.vmap(fa.grad(lambda w, x: loss(lax, fnp)(w, x[None])), in_axes=(None, 0))(
        fnp.asarray(w), fnp.asarray(x))
    assert_allclose(per_example.sum(0), got, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("dtype", ["int32", "float16", "bool"])
def test_reduce_window_dtypes(dtype):
    x = np.random.default_rng(6).integers(-5, 5, size=(3, 4)).astype(dtype)
    for kind in (["max", "min"] if dtype == "bool" else ["sum", "max", "min"]):
        ours, theirs, _ = MONOIDS[kind]
        with jax.enable_x64(False):
            init = np.asarray(jax.lax.reduce_window(x, *(
                (np.array(0, x.dtype), theirs) if kind == "sum" else
                (np.array(x.min() if kind == "min" else x.max(), x.dtype), theirs)),
                (2, 2), (1, 1), "VALID")).dtype
            identity = {"sum": 0, "max": -np.inf, "min": np.inf}[kind]
            if dtype != "float16":
                identity = {"sum": 0, "max": np.iinfo(np.int32).min if dtype == "int32" else False,
                            "min": np.iinfo(np.int32).max if dtype == "int32" else True}[kind]
            want = jax.lax.reduce_window(x, np.array(identity, x.dtype), theirs, (2, 2), (1, 1),
                                         "SAME")
        got = lax.reduce_window(fnp.asarray(x), identity, ours, (2, 2), (1, 1), "SAME")
        assert got.dtype == want.dtype == init
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
        np.testing.assert_array_equal(
            np.asarray(fa.jit(lambda v: lax.reduce_window(v, identity, ours, (2, 2), (1, 1),
                                                          "SAME"))(fnp.asarray(x))),
            np.asarray(want))


def test_reduce_window_errors():
    # (general computations and non-identity inits work since lax's general reduce_window:
    # tests/lax/test_lax_reduce_and_precision.py)
    x = fnp.ones((4, 4))
    with pytest.raises(ValueError, match="window_dimensions needs one entry per axis"):
        lax.reduce_window(x, 0.0, lax.add, (2,), (1, 1), "VALID")
    with pytest.raises(ValueError, match="padding needs one"):
        lax.reduce_window(x, 0.0, lax.add, (2, 2), (1, 1), [(0, 0)])
