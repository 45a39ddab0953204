"""The jax.nn functions added late (glu, hard_sigmoid/silu/swish, mish, squareplus,
sparse_plus/sigmoid, log1mexp, identity, tanh, dot_product_attention): values and gradients
against jax.nn."""

import jax
import numpy as np
import pytest

import funcarray as fa
import funcarray.nn as nn
import funcarray.numpy as fnp
from funcarray.testing import assert_allclose

X = np.concatenate([np.linspace(-4.0, 4.0, 17), [-1.0, 1.0, 0.0, -3.0, 3.0]])


@pytest.mark.parametrize("name", ["glu", "hard_sigmoid", "hard_silu", "hard_swish", "mish",
                                  "squareplus", "sparse_plus", "sparse_sigmoid", "identity",
                                  "tanh"])
def test_activations_match_jax(name):
    x = np.stack([X, X[::-1]], axis=1) if name == "glu" else X  # glu halves the last axis
    ours, theirs = getattr(nn, name), getattr(jax.nn, name)
    assert_allclose(ours(fnp.asarray(x)), theirs(x))
    assert_allclose(fa.grad(lambda v: ours(v).sum())(fnp.asarray(x)),
                    jax.grad(lambda v: theirs(v).sum())(x))
    assert_allclose(fa.jit(ours)(fnp.asarray(x)), theirs(x))


def test_log1mexp_is_accurate_at_both_ends():
    x = np.array([1e-10, 1e-3, 0.5, np.log(2.0), 0.7, 5.0, 40.0])
    assert_allclose(nn.log1mexp(fnp.asarray(x)), jax.nn.log1mexp(x))
    assert_allclose(fa.grad(lambda v: nn.log1mexp(v).sum())(fnp.asarray(x)),
                    jax.grad(lambda v: jax.nn.log1mexp(v).sum())(x), rtol=1e-7)
    with pytest.raises(ValueError, match="glu: axis -1 of shape \\(3,\\) has odd size 3"):
        nn.glu(fnp.ones(3))


def _attention_inputs(seed=0, b=2, t=4, s=5, n=4, k=2, h=3):
    rng = np.random.default_rng(seed)
    return (rng.normal(size=(b, t, n, h)), rng.normal(size=(b, s, k, h)),
            rng.normal(size=(b, s, k, h)), rng.normal(size=(1, n, t, s)),
            rng.random((b, 1, t, s)) > 0.3)


@pytest.mark.parametrize("options", [
    {}, {"bias": True}, {"mask": True}, {"is_causal": True},
    {"query_seq_lengths": [3, 4], "key_value_seq_lengths": [5, 2]},
    {"local_window_size": (1, 2)}, {"local_window_size": 1, "scale": 0.3, "bias": True},
])
def test_dot_product_attention_matches_jax(options):
    q, k, v, bias, mask = _attention_inputs()
    kwargs = dict(options)
    if kwargs.pop("bias", False):
        kwargs["bias"] = bias
    if kwargs.pop("mask", False):
        kwargs["mask"] = mask
    for name in ("query_seq_lengths", "key_value_seq_lengths"):
        if name in kwargs:
            kwargs[name] = np.asarray(kwargs[name], np.int32)
    fa_kwargs = {name: fnp.asarray(value) if isinstance(value, np.ndarray) else value
                 for name, value in kwargs.items()}
    want = jax.nn.dot_product_attention(q, k, v, **kwargs)
    args = [fnp.asarray(a) for a in (q, k, v)]
    assert_allclose(nn.dot_product_attention(*args, **fa_kwargs), want, rtol=1e-6, atol=1e-6)
    loss = lambda lib, kw: lambda q, k, v: (lib.dot_product_attention(q, k, v, **kw) ** 2).sum()  # noqa
    got = fa.jit(fa.grad(loss(nn, fa_kwargs), argnums=(0, 1, 2)))(*args)
    fa.tree.map(lambda a, b: assert_allclose(a, b, rtol=1e-5, atol=1e-5), got,
                jax.grad(loss(jax.nn, kwargs), argnums=(0, 1, 2))(q, k, v))


def test_dot_product_attention_unbatched_residual_and_errors():
    q, k, v, _, _ = _attention_inputs(1)
    assert_allclose(nn.dot_product_attention(fnp.asarray(q[0]), fnp.asarray(k[0]),
                                             fnp.asarray(v[0])),
                    jax.nn.dot_product_attention(q[0], k[0], v[0]), rtol=1e-6, atol=1e-6)
    out, residual = nn.dot_product_attention(*(fnp.asarray(a) for a in (q, k, v)),
                                             return_residual=True)
    want_out, want_residual = jax.nn.dot_product_attention(q, k, v, return_residual=True)
    assert_allclose(residual, want_residual, rtol=1e-6, atol=1e-6)
    per_example = fa.vmap(lambda a, b, c: nn.dot_product_attention(a, b, c))(
        *(fnp.asarray(a) for a in (q, k, v)))
    assert_allclose(per_example, want_out, rtol=1e-6, atol=1e-6)
    with pytest.raises(ValueError, match="multiple of the key/value heads"):
        nn.dot_product_attention(fnp.ones((1, 2, 3, 4)), fnp.ones((1, 2, 2, 4)),
                                 fnp.ones((1, 2, 2, 4)))
    with pytest.raises(ValueError, match="implementation must be None or 'xla'"):
        nn.dot_product_attention(fnp.ones((2, 2, 4)), fnp.ones((2, 2, 4)), fnp.ones((2, 2, 4)),
                                 implementation="cudnn")
    with pytest.raises(TypeError, match="mask must be boolean"):
        nn.dot_product_attention(fnp.ones((2, 2, 4)), fnp.ones((2, 2, 4)), fnp.ones((2, 2, 4)),
                                 mask=fnp.ones((2, 2, 2)))
