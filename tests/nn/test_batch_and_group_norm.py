"""BatchNorm (statistics over a named vmap axis, running statistics as returned state) and
GroupNorm against NumPy formulas of PyTorch's definitions, with gradients against jax."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from layer_checks import check, check_vmap, normal

import funcarray as fa
import funcarray.nn as nn
import funcarray.numpy as fnp


def _train(bn):
    return fa.vmap(bn, axis_name="batch", in_axes=(0, None), out_axes=(0, None))


def _affine(bn, channels):
    return nn.tree_at(lambda m: (m.weight, m.bias), bn,
                      replace=(fnp.asarray(normal(channels)), fnp.asarray(normal(channels))))


def _jax_batch_norm(w, b, x, eps=1e-5):
    axes = (0,) + tuple(range(2, x.ndim))
    shape = (1, -1) + (1,) * (x.ndim - 2)
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    return (x - mean) / jnp.sqrt(var + eps) * w.reshape(shape) + b.reshape(shape)


@pytest.mark.parametrize("spatial", [(), (5,), (3, 2)])
def test_batch_norm_training_matches_pytorchs_definition(spatial):
    bn = _affine(nn.BatchNorm(3, axis_name="batch", momentum=0.25), 3)
    x = normal(4, 3, *spatial) * 2 + 1
    state = bn.init_state()
    y, new_state = _train(bn)(x, state)
    w, b = np.asarray(bn.weight), np.asarray(bn.bias)
    np.testing.assert_allclose(y, _jax_batch_norm(w, b, x), rtol=1e-5, atol=1e-5)
    axes = (0,) + tuple(range(2, x.ndim))
    n = x.size // 3
    np.testing.assert_allclose(new_state.running_mean, 0.25 * x.mean(axis=axes), rtol=1e-5,
                               atol=1e-6)
    # The running variance is updated with the unbiased batch variance, as in PyTorch.
    np.testing.assert_allclose(new_state.running_var,
                               0.75 + 0.25 * x.var(axis=axes) * n / (n - 1), rtol=1e-5)
    # Under jit, the same; the state is one for the batch (out_axes=None).
    y_jit, state_jit = fa.jit(_train(bn))(x, state)
    np.testing.assert_allclose(y_jit, y, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(state_jit.running_var, new_state.running_var, rtol=1e-6)
    # Gradients flow through the batch statistics, as jax's through the formula.
    cotangent = normal(*x.shape)

    def loss(bn, x):
        return fnp.sum(_train(bn)(x, state)[0] * cotangent)

    grads = nn.filter_grad(loss)(bn, x)
    want = jax.jit(jax.grad(lambda w, b, x: jnp.sum(_jax_batch_norm(w, b, x) * cotangent),
                            argnums=(0, 1, 2)))(w, b, x)
    np.testing.assert_allclose(grads.weight, want[0], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(grads.bias, want[1], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(fa.grad(loss, argnums=1)(bn, x), want[2], rtol=1e-4, atol=1e-4)


def test_batch_norm_running_statistics_and_inference():
    bn = nn.BatchNorm(2, axis_name="batch")
    state = bn.init_state()
    np.testing.assert_array_equal(state.running_mean, [0, 0])
    np.testing.assert_array_equal(state.running_var, [1, 1])
    xs = [normal(8, 2) * 3 + 5 for _ in range(3)]
    mean, var = np.zeros(2), np.ones(2)
    for x in xs:
        _, state = _train(bn)(x, state)
        mean = 0.9 * mean + 0.1 * x.mean(axis=0)
        var = 0.9 * var + 0.1 * x.var(axis=0, ddof=1)
    np.testing.assert_allclose(state.running_mean, mean, rtol=1e-5)
    np.testing.assert_allclose(state.running_var, var, rtol=1e-5)
    # Inference: the running statistics normalise, per example, with no named axis.
    x = normal(2)
    y, same = bn(x, state, inference=True)
    assert same is state
    np.testing.assert_allclose(y, (x - mean) / np.sqrt(var + 1e-5), rtol=1e-5, atol=1e-6)
    frozen = nn.BatchNorm(2, axis_name="batch", inference=True)
    np.testing.assert_allclose(frozen(x, state)[0], y, rtol=1e-6)
    # The running statistics get no gradient (PyTorch's buffers).
    g = fa.grad(lambda s: fnp.sum(_train(bn)(xs[0], s)[1].running_mean))(state)
    np.testing.assert_array_equal(g.running_mean, [0, 0])
    assert [n for n, _ in nn.named_parameters(state)] == ["running_mean", "running_var"]


def test_batch_norm_errors():
    bn = nn.BatchNorm(3, axis_name="batch")
    with pytest.raises(ValueError, match=r"BatchNorm: expected one example of shape "
                                         r"\(channels=3"):
        bn(fnp.ones(2), bn.init_state(), inference=True)
    with pytest.raises(TypeError, match="state must be a BatchNormState"):
        bn(fnp.ones(3), None, inference=True)
    with pytest.raises(ValueError, match="momentum must be in"):
        nn.BatchNorm(3, axis_name="batch", momentum=2.0)


@pytest.mark.parametrize("groups, channels, spatial", [(1, 4, (3,)), (2, 4, (2, 3)),
                                                      (4, 4, ())])
def test_group_norm(groups, channels, spatial):
    norm = _affine(nn.GroupNorm(groups, channels, eps=1e-3), channels)

    def reference(p, x):
        g = x.reshape(groups, -1)
        g = (g - g.mean(axis=1, keepdims=True)) / jnp.sqrt(g.var(axis=1, keepdims=True) + 1e-3)
        shape = (-1,) + (1,) * len(spatial)
        return g.reshape(x.shape) * p["weight"].reshape(shape) + p["bias"].reshape(shape)

    x = normal(channels, *spatial) * 2 + 1 if spatial else normal(channels)
    if not spatial and groups == channels:
        # One value per group: normalised to zero, the output is the bias.
        np.testing.assert_allclose(norm(x), norm.bias, atol=1e-5)
    else:
        check(norm, x, reference, rtol=1e-5, atol=1e-5)
    check_vmap(norm, np.stack([x, -x]))


def test_group_norm_errors_and_no_affine():
    with pytest.raises(ValueError, match=r"channels \(6\) must be a multiple of groups \(4\)"):
        nn.GroupNorm(4, 6)
    plain = nn.GroupNorm(2, 4, channelwise_affine=False)
    assert plain.weight is None and nn.state_dict(plain) == {}
    with pytest.raises(ValueError, match=r"GroupNorm: expected one example of shape "
                                         r"\(channels=4"):
        plain(fnp.ones((3, 4)))
