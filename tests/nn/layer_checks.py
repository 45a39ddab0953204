"""Shared checks of the layer tests: a layer against a jax.numpy formula (values and
gradients, eagerly and under filter_jit) and under vmap against a Python loop."""

import jax
import jax.numpy as jnp
import numpy as np

import funcarray as fa
import funcarray.nn as nn
import funcarray.numpy as fnp

RNG = np.random.default_rng(0)


def normal(*shape):
    return RNG.normal(size=shape).astype(np.float32)


def check(layer, x, jax_fn, *, rtol=2e-5, atol=1e-6, differentiable_input=True):
    """``layer(x)`` against ``jax_fn(params, x)`` (params: the layer's arrays by dotted name,
    as NumPy), with gradients of a random projection of the output."""
    params = {name: np.asarray(p) for name, p in nn.named_parameters(layer)}
    expected = np.asarray(jax_fn(params, x))
    np.testing.assert_allclose(layer(x), expected, rtol=rtol, atol=atol)
    np.testing.assert_allclose(nn.filter_jit(lambda m, x: m(x))(layer, x), expected,
                               rtol=rtol, atol=atol)
    cotangent = normal(*expected.shape)

    def loss(m, x):
        return fnp.sum(m(x) * cotangent)

    def jax_loss(p, x):
        return jnp.sum(jax_fn(p, x) * cotangent)

    grads = nn.filter_grad(loss)(layer, x)
    argnums = (0, 1) if differentiable_input else 0
    want = jax.jit(jax.grad(jax_loss, argnums=argnums))(params, x)
    want_params = want[0] if differentiable_input else want
    got = nn.state_dict(grads)
    assert list(got) == list(params)
    for name in params:
        np.testing.assert_allclose(got[name], want_params[name], rtol=10 * rtol, atol=10 * atol,
                                   err_msg=name)
    if differentiable_input:
        np.testing.assert_allclose(fa.grad(loss, argnums=1)(layer, x), want[1],
                                   rtol=10 * rtol, atol=10 * atol)


def check_vmap(layer, xs, **kwargs):
    batched = fa.vmap(lambda x: layer(x, **kwargs))(xs)
    # (batched contractions may sum in another order: a few ulps)
    np.testing.assert_allclose(batched, np.stack([layer(x, **kwargs) for x in xs]), rtol=1e-5,
                               atol=1e-6)
