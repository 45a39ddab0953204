"""funcarray.numpy's ufuncs (add, maximum, logaddexp...) and their methods, against jax.numpy."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import funcarray as fa
import funcarray.numpy as fnp

BINARY = ["add", "subtract", "multiply", "maximum", "minimum", "logaddexp", "logaddexp2",
          "logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or",
          "bitwise_xor"]
INTEGER_ONLY = {"bitwise_and", "bitwise_or", "bitwise_xor"}
FLOAT_ONLY = {"logaddexp", "logaddexp2"}
LOGICAL = {"logical_and", "logical_or", "logical_xor"}


def _data(name, shape=(3, 4), seed=0):
    rng = np.random.default_rng(seed)
    if name in LOGICAL:
        return rng.random(shape) > 0.4
    if name in INTEGER_ONLY:
        return rng.integers(0, 16, shape).astype(np.int32)
    if name in FLOAT_ONLY:
        return rng.normal(size=shape).astype(np.float32)
    return rng.integers(-4, 5, shape).astype(np.float32)


def _same(actual, expected):
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.shape == expected.shape and actual.dtype == expected.dtype, (
        actual.dtype, actual.shape, expected.dtype, expected.shape)
    np.testing.assert_allclose(actual, expected, rtol=2e-6, atol=1e-6)


def test_the_ufuncs_are_jax_numpys():
    names = sorted(n for n in dir(jnp) if isinstance(getattr(jnp, n), jnp.ufunc))
    assert names == sorted(n for n in dir(fnp) if isinstance(getattr(fnp, n), fnp.ufunc))
    for name in names:
        ours, theirs = getattr(fnp, name), getattr(jnp, name)
        assert (ours.nin, ours.nout, ours.nargs) == (theirs.nin, theirs.nout, theirs.nargs)
        assert (ours.identity is None) == (theirs.identity is None), name
        if ours.identity is not None:
            assert ours.identity == theirs.identity, name
        assert ours.__name__ == name


def _same_as(actual, numpy_value, jax_struct):
    """Values as NumPy's ufunc method computes them, dtype and shape as jax's (found by
    jax.eval_shape: tracing only, no compile per method)."""
    actual = np.asarray(actual)
    assert (actual.shape, actual.dtype) == (jax_struct.shape, jax_struct.dtype)
    np.testing.assert_allclose(actual, np.asarray(numpy_value).astype(actual.dtype),
                               rtol=2e-6, atol=1e-6)


@pytest.mark.parametrize("name", BINARY)
def test_methods_match_numpy_values_and_jax_types(name):
    ours, theirs, np_ufunc = getattr(fnp, name), getattr(jnp, name), getattr(np, name)
    x = _data(name)
    y = _data(name, (4,), seed=1)
    idx = np.array([0, 2, 0, 3, 0])
    values = _data(name, (5,), seed=2)
    starts = np.array([0, 2, 1])
    mask = np.arange(12).reshape(3, 4) % 3 != 0
    cases = [  # (ours, numpy's, jax's) as thunks
        (lambda u: u(x, y), lambda u: u(x, y)),
        (lambda u: u.outer(x[0], y), lambda u: u.outer(x[0], y)),
        # (NumPy refuses several axes for subtract: "not reorderable")
        *[(lambda u, a=axis: u.reduce(x, axis=a), lambda u, a=axis: u.reduce(x, axis=a))
          for axis in (0, -1, None) if axis is not None or name != "subtract"],
        (lambda u: u.reduce(x, axis=1, keepdims=True),
         lambda u: u.reduce(x, axis=1, keepdims=True)),
        (lambda u: u.accumulate(x, axis=1), lambda u: u.accumulate(x, axis=1)),
        (lambda u: u.accumulate(x, axis=0), lambda u: u.accumulate(x, axis=0)),
        (lambda u: u.reduceat(x, starts, axis=1), lambda u: u.reduceat(x, starts, axis=1)),
    ]
    if ours.identity is not None:
        cases.append((lambda u: u.reduce(x, axis=0, where=mask),
                      lambda u: u.reduce(x, axis=0, where=mask, initial=ours.identity)))
    with jax.enable_x64(False):
        for call, numpy_call in cases:
            _same_as(call(ours), numpy_call(np_ufunc), jax.eval_shape(lambda c=call: c(theirs)))
        expected = x[1].copy()
        np_ufunc.at(expected, idx, values)
        _same_as(ours.at(x[1], idx, values, inplace=False), expected,
                 jax.eval_shape(lambda: theirs.at(x[1], idx, values, inplace=False)))


def test_reduce_initial_empty_and_multiple_axes_match_jax():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 7
    with jax.enable_x64(False):
        for name in ("add", "maximum", "logaddexp", "subtract"):
            ours, theirs = getattr(fnp, name), getattr(jnp, name)
            _same(ours.reduce(x, axis=1, initial=5.0), theirs.reduce(x, axis=1, initial=5.0))
        _same(fnp.logaddexp.reduce(x, axis=(0, 2)), jnp.logaddexp.reduce(x, axis=(0, 2)))
        _same(fnp.add.reduce(np.zeros((0, 3), np.float32)),
              jnp.add.reduce(np.zeros((0, 3), np.float32)))
    with pytest.raises(ValueError, match="empty axis needs initial"):
        fnp.subtract.reduce(np.zeros((0, 3), np.float32))


def test_unary_at_and_frompyfunc_match_jax():
    x = np.arange(5.0, dtype=np.float32)
    with jax.enable_x64(False):
        _same(fnp.negative.at(x, np.array([1, 1, 3]), inplace=False),
              jnp.negative.at(x, np.array([1, 1, 3]), inplace=False))
        fun = lambda a, b: a * 2 + b  # noqa: E731
        ours, theirs = fnp.frompyfunc(fun, 2, 1), jnp.frompyfunc(fun, 2, 1)
        _same(ours(x, x[:, None]), theirs(x, x[:, None]))
        _same(ours.reduce(x), theirs.reduce(x))
        _same(ours.accumulate(x), theirs.accumulate(x))
        _same(ours.at(x, np.array([0, 0, 4]), 1.0, inplace=False),
              theirs.at(x, np.array([0, 0, 4]), 1.0, inplace=False))


def test_generic_methods_differentiate_jit_and_vmap():
    x = np.linspace(-1.0, 2.0, 6)
    loss = lambda np_: lambda v: np_.logaddexp.reduce(v * v) + np_.subtract.accumulate(v)[-1]  # noqa: E731
    np.testing.assert_allclose(fa.grad(loss(fnp))(fnp.asarray(x)), jax.grad(loss(jnp))(x),
                               rtol=1e-12)
    np.testing.assert_allclose(fa.jit(fa.grad(loss(fnp)))(fnp.asarray(x)),
                               jax.grad(loss(jnp))(x), rtol=1e-12)
    rows = np.arange(12.0).reshape(3, 4)
    idx = np.array([1, 1, 0])
    got = fa.vmap(lambda r: fnp.maximum.at(r, idx, 5.0, inplace=False))(fnp.asarray(rows))
    want = [np.asarray(jnp.maximum.at(r, idx, 5.0, inplace=False)) for r in rows]
    np.testing.assert_array_equal(got, np.stack(want))
    got = fa.jit(lambda r: fnp.multiply.at(r, idx, 2.0, inplace=False))(fnp.asarray(rows[0]))
    np.testing.assert_array_equal(got, [0.0, 4.0, 2.0, 3.0])


def test_errors_name_the_method_and_the_fix():
    x = fnp.arange(3.0)
    with pytest.raises(ValueError, match=r"add.at: arrays are immutable.*inplace=False"):
        fnp.add.at(x, 0, 1.0)
    with pytest.raises(ValueError, match="negative.reduce: needs a binary ufunc"):
        fnp.negative.reduce(x)
    with pytest.raises(TypeError, match="add: takes 2 arguments, got 1"):
        fnp.add(x)
    with pytest.raises(NotImplementedError, match="out= and where="):
        fnp.add(x, x, out=x)
    with pytest.raises(TypeError, match="indices must be concrete"):
        fa.jit(lambda i: fnp.add.reduceat(x, i))(fnp.asarray([0, 1]))
