"""Regression tests for a batch of small correctness fixes, each compared with jax (x64 on,
see conftest.py): Python floats meeting float64 keep float64's precision; ``full`` with a
float fill and an integer dtype truncates; the weak types of the discrete distributions;
``nonzero(size=)`` without a sort; ``mode="promise_in_bounds"``; the gradients of ``relu``
and ``relu6`` at NaN; ``lgamma``'s exact zeros at 1 and 2; eager subnormals of ``sigmoid``;
an eager ``scan`` whose ys hold ``vjp`` functions.
"""

import math

import jax
import jax.numpy as jnp
import jax.scipy.stats as jstats
import numpy as np
import pytest

import funcarray as fa
import funcarray.lax as flax
import funcarray.nn as fnn
import funcarray.numpy as fnp
import funcarray.scipy.special as fss
import funcarray.scipy.stats as fstats

X64 = np.linspace(-1.0, 1.0, 7)  # float64
MASK = X64 > 0


def _same(actual, expected, rtol=0.0):
    """Same dtype, shape and values (NaN == NaN), bit for bit unless ``rtol`` says."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    if rtol:
        np.testing.assert_allclose(actual, expected, rtol=rtol, atol=0)
    else:
        np.testing.assert_array_equal(actual, expected)


# float64 results whose algorithm differs from jax's in a last bit (float32's rounding of a
# Python float would be 1e-9 off)
_LAST_BIT = 2e-15


# --- 1. Python floats meet float64 at float64's precision ------------------------------------

# (name, f(module, x)): each takes Python floats into a float64 computation.
_PY_FLOAT_CASES = [
    ("full", lambda m, x: m.full(3, 0.1, dtype=m.float64)),
    ("full_like", lambda m, x: m.full_like(x, 0.1)),
    ("full_complex", lambda m, x: m.full(2, 0.1 + 0.3j, dtype=m.complex128)),
    ("arange", lambda m, x: m.arange(0, 1, 0.1, dtype=m.float64)),
    ("linspace", lambda m, x: m.linspace(0, 0.3, dtype=m.float64)),
    ("linspace_f64_start", lambda m, x: m.linspace(x[1], 0.3, 5)),
    ("logspace", lambda m, x: m.logspace(0.1, 0.7, 9, dtype=m.float64)),
    ("clip", lambda m, x: m.clip(x, 0.1, 0.3)),
    ("mul", lambda m, x: x * 0.1),
    ("where", lambda m, x: m.where(MASK, x, 0.1)),
    ("where_complex", lambda m, x: m.where(MASK, x + 0j, 0.1j)),
    ("pad", lambda m, x: m.pad(x, 1, constant_values=0.1)),
    ("pad_pair", lambda m, x: m.pad(x, 1, constant_values=(0.1, 0.3))),
    ("nan_to_num", lambda m, x: m.nan_to_num(x / 0, nan=0.1, posinf=0.3, neginf=-0.7)),
    ("fill_diagonal", lambda m, x: m.fill_diagonal(m.zeros((3, 3), m.float64), 0.1,
                                                   inplace=False)),
    ("at_set", lambda m, x: x.at[2].set(0.1)),
    ("at_add", lambda m, x: x.at[m.array([1, 2])].add(0.1)),
    ("at_multiply", lambda m, x: x.at[2].multiply(0.1)),
    ("interp_scalar_x", lambda m, x: m.interp(0.1, x, x ** 3)),
    ("ediff1d", lambda m, x: m.ediff1d(x, to_begin=0.1, to_end=0.3)),
    ("diff", lambda m, x: m.diff(x, prepend=0.1, append=0.3)),
    ("append", lambda m, x: m.append(x, 0.1)),
    ("sum_initial", lambda m, x: m.sum(x, initial=0.1)),
    ("quantile", lambda m, x: m.quantile(x, 0.1)),
    ("nanquantile", lambda m, x: m.nanquantile(x, 0.1)),
    ("percentile", lambda m, x: m.percentile(x, 10.1)),
    ("outer", lambda m, x: m.outer(x, 0.1)),
    ("dot", lambda m, x: m.dot(x, 0.1)),
    ("kron", lambda m, x: m.kron(x, 0.1)),
]


@pytest.mark.parametrize("name,f", _PY_FLOAT_CASES, ids=[c[0] for c in _PY_FLOAT_CASES])
def test_python_floats_keep_float64_precision(name, f):
    _same(f(fnp, fnp.asarray(X64)), f(jnp, jnp.asarray(X64)),
          rtol=_LAST_BIT if name == "linspace_f64_start" else 0.0)


def test_python_floats_keep_float64_precision_elsewhere():
    x = fnp.asarray(X64)
    _same(fnp.linspace(0, 0.3, dtype=fnp.float64)[-1], np.float64(0.3))
    _same(flax.convert_element_type(0.1, fnp.float64), np.float64(0.1))
    _same(fnn.logsumexp(x, b=0.1), jax.nn.logsumexp(jnp.asarray(X64), b=0.1), rtol=_LAST_BIT)
    # (NumPy as the oracle where jax's version compiles for long)
    _same(fnp.insert(x, 2, 0.1), np.insert(X64, 2, 0.1))
    placed = X64.copy()
    np.place(placed, MASK, 0.1)
    _same(fnp.place(x, MASK, 0.1, inplace=False), placed)
    put = X64.copy()
    np.put(put, 1, 0.1)
    _same(fnp.put(x, 1, 0.1, inplace=False), put)
    # and under jit, where the Python floats are constants of the staged program
    for name, f in [c for c in _PY_FLOAT_CASES if c[0] in ("pad", "at_set")]:
        _same(fa.jit(lambda x, f=f: f(fnp, x))(x), f(jnp, jnp.asarray(X64)))


# --- 2. full / full_like with a float fill and an integer dtype truncate ---------------------

@pytest.mark.parametrize("dtype", ["int32", "uint8", "int64", "bool"])
def test_full_float_fill_to_integer_dtype_converts_as_jax(dtype):
    for fill in (2.7, -2.7, 1e10, float("nan"), 0.5):
        _same(fnp.full(3, fill, dtype=dtype), jnp.full(3, fill, dtype=dtype))
        _same(fnp.full_like(fnp.zeros(2, dtype), fill), jnp.full_like(jnp.zeros(2, dtype), fill))
    _same(fa.jit(lambda: fnp.full(2, 2.7, dtype=dtype))(), jnp.full(2, 2.7, dtype=dtype))
    _same(fnp.full(2, 300, dtype="uint8"), jnp.full(2, 300, dtype="uint8"))  # wraps, as jax


# --- 3. weak types of the discrete distributions ---------------------------------------------

_K_INT = np.arange(4, dtype=np.int32)
_DISCRETE = [  # (distribution, function, parameters)
    ("betabinom", "logpmf", (4, 2.0, 3.0)), ("betabinom", "pmf", (np.array([4, 5, 6, 7]), 2, 3)),
    ("binom", "logpmf", (4, 0.3)), ("geom", "logpmf", (0.3,)), ("geom", "pmf", (0.3,)),
    ("nbinom", "logpmf", (3, 0.3)), ("poisson", "pmf", (2.5,)), ("poisson", "cdf", (2.5,)),
    ("bernoulli", "logpmf", (0.3,)), ("bernoulli", "cdf", (0.3,)), ("bernoulli", "ppf", (0.3,)),
]


@pytest.mark.parametrize("dist,fn,params", _DISCRETE, ids=[f"{d}.{f}" for d, f, _ in _DISCRETE])
def test_discrete_distributions_weak_type_as_jax(dist, fn, params):
    ours, theirs = getattr(getattr(fstats, dist), fn), getattr(getattr(jstats, dist), fn)
    for k in (2, _K_INT, _K_INT.astype(np.float32)):
        if fn == "ppf" and not isinstance(k, int):
            k = k.astype(np.float32) / 4
        # (the oracle's types by tracing alone: jax's eager special functions compile slowly)
        want = jax.eval_shape(lambda k: theirs(k, *params), k).weak_type
        assert ours(k, *params).weak_type == want, (k, want)
    k = _K_INT if fn != "ppf" else _K_INT.astype(np.float32) / 4
    want = jax.eval_shape(lambda k: theirs(k, *params), k).weak_type
    assert fa.jit(lambda k: ours(k, *params))(k).weak_type == want


# --- 4. nonzero(size=) is a cumulative sum and a scatter -------------------------------------

def _padded_nonzero(a, size, fill):
    """jax.numpy's nonzero(size=, fill_value=) from NumPy's: the first ``size`` indices,
    padded with ``fill`` (0 by default)."""
    fills = (0,) * a.ndim if fill is None else fill if isinstance(fill, tuple) else (
        (fill,) * a.ndim)
    return [np.concatenate([i[:size], np.full(max(size - len(i), 0), f, i.dtype)])
            for i, f in zip(np.nonzero(a), fills)]


def test_nonzero_with_size_matches_jax_without_a_sort():
    rng = np.random.default_rng(0)
    for shape in [(7,), (3, 4), (2, 3, 2)]:
        a = (rng.random(shape) > 0.5) * rng.integers(1, 5, shape)
        for size in (0, 1, 3, 30):
            for fill in (None, -1, (9,) * len(shape)):
                for g, w in zip(fnp.nonzero(a, size=size, fill_value=fill),
                                _padded_nonzero(a, size, fill)):
                    np.testing.assert_array_equal(g, w)
    a = np.array([[0, 3, 0, 1], [2, 0, 0, 5]])
    for size, fill in ((6, -1),):
        want = jnp.nonzero(a, size=size, fill_value=fill)
        for got in (fnp.nonzero(a, size=size, fill_value=fill),
                    fa.jit(lambda a: fnp.nonzero(a, size=size, fill_value=fill))(a)):
            for g, w in zip(got, want):
                np.testing.assert_array_equal(g, w)
    np.testing.assert_array_equal(fnp.argwhere(a, size=6, fill_value=-1), np.stack(want, 1))
    np.testing.assert_array_equal(fnp.flatnonzero(a, size=6, fill_value=-1),
                                  _padded_nonzero(a.ravel(), 6, -1)[0])
    np.testing.assert_array_equal(fa.vmap(lambda r: fnp.nonzero(r, size=3, fill_value=-1)[0])(a),
                                  [[1, 3, -1], [0, 3, -1]])
    text = fa.jit(lambda a: fnp.nonzero(a, size=3)).lower(fnp.zeros(5)).as_text()
    assert "stablehlo.scatter" in text and "stablehlo.sort" not in text


# --- 5. mode="promise_in_bounds" ------------------------------------------------------------

def test_promise_in_bounds_matches_jax_for_in_bounds_indices():
    x = np.arange(12.0).reshape(3, 4)
    for idx in ((np.array([0, 2, -1]),), (slice(None), np.array([3, 0, -4]))):
        for kind in ("get", "set", "add"):
            def f(m, x, idx=idx, kind=kind):
                ref = m.asarray(x).at[idx]
                args = () if kind == "get" else (7.0,)
                return getattr(ref, kind)(*args, mode="promise_in_bounds")
            want = f(jnp, x)
            _same(f(fnp, x), want)
            if kind in ("get", "add"):
                _same(fa.jit(lambda x: f(fnp, x))(x), want)
    take = [np.array([[0], [3], [1]]), 1]
    _same(fnp.take_along_axis(x, *take, mode="promise_in_bounds"),
          jnp.take_along_axis(x, *take, mode="promise_in_bounds"))


# --- 6. activation gradients at 0 and NaN ----------------------------------------------------

@pytest.mark.parametrize("name", ["relu", "relu6", "hard_sigmoid", "leaky_relu", "elu", "gelu",
                                  "silu"])
def test_activation_gradients_at_zero_and_nan_match_jax(name):
    ours, theirs = getattr(fnn, name), getattr(jax.nn, name)
    changed = name in ("relu", "relu6", "hard_sigmoid")  # (the others were right already)
    for dtype in (np.float32, np.float64) if changed else (np.float32,):
        x = np.array([0.0, np.nan, -0.0, 6.0, -3.0], dtype)
        # (one compile per dtype for the oracle: jax's eager grad compiles per call)
        want_grad = jax.jit(jax.vmap(jax.grad(theirs)))(x)
        got_grads = fa.vmap(fa.grad(ours))(x), fa.jit(fa.vmap(fa.grad(ours)))(x)
        # gelu/silu: XLA's and NumPy's exp/tanh differ in last bits away from 0; elu's
        # gradient is expm1(x) + 1 (as jax's), where one ulp of expm1 near -1 (NumPy's
        # AVX-512 float32 kernel vs XLA's) is ~1e-6 relative of the result at x = -3
        rtol = 2e-5 if name in ("gelu", "silu") else 5e-6 if name == "elu" else 0.0
        for got in got_grads:
            _same(got, want_grad, rtol)
            _same(got[:3], want_grad[:3])  # at 0, NaN and -0: exactly
        _same(ours(x), jax.jit(theirs)(x), rtol)


# --- 7. lgamma is exactly 0 at 1 and 2 -------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_lgamma_exact_zeros_and_accuracy(dtype):
    ones_twos = np.array([1.0, 2.0], dtype)
    for got in (flax.lgamma(ones_twos), fa.jit(flax.lgamma)(ones_twos)):
        _same(got, np.zeros(2, dtype))
    # Accuracy elsewhere is the Lanczos approximation's: within a few ulps of the terms it
    # sums (|lgamma| + 7), as XLA's lgamma is.
    xs = np.concatenate([np.linspace(0.01, 30.0, 2001), np.linspace(-9.7, 0.45, 501)])
    xs = xs.astype(dtype)
    want = np.array([math.lgamma(float(v)) for v in xs])
    scale = np.finfo(dtype).eps * (np.abs(want) + 7.0)
    for got in (flax.lgamma(xs), fa.jit(flax.lgamma)(xs)):
        assert np.max(np.abs(np.asarray(got, np.float64) - want) / scale) < 16
    # gammainc/gammaincc at a = 1 (exp(-x)) no longer carry lgamma(1)'s error
    one = dtype(1.0)
    np.testing.assert_allclose(fss.gammaincc(one, one), math.exp(-1),
                               rtol=3 * np.finfo(dtype).eps)


# --- 8. eager sigmoid keeps subnormals; compiled code flushes them (documented) --------------

def test_sigmoid_subnormals_eager_and_flushed_under_jit():
    x = np.array([-80.0, -90.0, -100.0, 0.0, 30.0], np.float32)
    exact = (1 / (1 + np.exp(-x.astype(np.float64)))).astype(np.float32)
    eager, jitted = np.asarray(fnn.sigmoid(x)), np.asarray(fa.jit(fnn.sigmoid)(x))
    np.testing.assert_array_equal(eager[1:3], exact[1:3])  # NumPy's subnormals, kept
    np.testing.assert_array_equal(jitted, np.asarray(jax.jit(jax.nn.sigmoid)(x)))  # flushed
    np.testing.assert_array_equal(np.asarray(fss.expit(x)), eager)
    np.testing.assert_allclose(eager, jitted, rtol=1e-6, atol=np.finfo(np.float32).tiny)


# --- 9. an eager scan whose ys hold vjp functions --------------------------------------------

def test_eager_scan_stacks_vjp_functions_in_ys():
    def body(m, vjp):
        def step(c, x):
            y, f_vjp = vjp(lambda a: m.sin(a) * c, x)
            return c + 1.0, (y, f_vjp)
        return step

    xs = np.linspace(0.0, 1.0, 8).reshape(4, 2).astype(np.float32)
    want_c, (want_y, want_f) = jax.lax.scan(body(jnp, jax.vjp), jnp.float32(1.0), xs)
    want = jax.vmap(lambda f, ct: f(ct))(want_f, jnp.ones_like(xs))
    c, (y, f) = flax.scan(body(fnp, fa.vjp), fnp.float32(1.0), xs)
    _same(c, want_c)
    np.testing.assert_allclose(y, want_y, rtol=1e-6)
    np.testing.assert_allclose(fa.vmap(lambda f, ct: f(ct))(f, fnp.ones_like(xs))[0], want[0],
                               rtol=1e-6)
    # a body that really changes the structure of its ys still gets the eager error
    with pytest.raises(TypeError, match="ys of one pytree structure"):
        flax.scan(lambda c, x: (c, x if x < 2 else (x,)), fnp.float32(0.0), fnp.arange(4.0))
