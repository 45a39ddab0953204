"""The layers of funcarray.nn against jax.numpy formulas of the same function: values and
gradients (parameters and input), eagerly, under filter_jit and under vmap (against a Python
loop); PyTorch's initialisations by their statistics."""

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from layer_checks import RNG, check, check_vmap, normal

import funcarray as fa
import funcarray.nn as nn
import funcarray.numpy as fnp
from funcarray import random


@settings(max_examples=12, deadline=None)
@given(st.integers(1, 5), st.integers(1, 5), st.booleans())
def test_linear(in_features, out_features, use_bias):
    layer = nn.Linear(in_features, out_features, use_bias, key=random.key(in_features))
    assert layer.weight.shape == (out_features, in_features)
    assert (layer.bias is None) == (not use_bias)

    def reference(p, x):
        y = p["weight"] @ x
        return y + p["bias"] if use_bias else y

    check(layer, normal(in_features), reference)
    check_vmap(layer, normal(3, in_features))


def test_linear_initialisation_is_pytorchs():
    layer = nn.Linear(400, 300, key=random.key(0))
    bound = 1 / math.sqrt(400)
    for p in (np.asarray(layer.weight), np.asarray(layer.bias)):
        assert np.abs(p).max() <= bound and np.abs(p).max() > 0.95 * bound
    # Uniform on (-b, b): standard deviation b / sqrt(3).
    assert abs(np.asarray(layer.weight).std() - bound / math.sqrt(3)) < 0.01 * bound
    assert nn.Linear(2, 2, dtype="float64", key=random.key(0)).weight.dtype == np.float64
    # Another key, other weights; the same key, the same weights.
    assert not np.array_equal(nn.Linear(3, 3, key=random.key(1)).weight,
                              nn.Linear(3, 3, key=random.key(2)).weight)
    np.testing.assert_array_equal(nn.Linear(3, 3, key=random.key(1)).weight,
                                  nn.Linear(3, 3, key=random.key(1)).weight)


def test_linear_errors():
    layer = nn.Linear(3, 2, key=random.key(0))
    with pytest.raises(ValueError, match=r"Linear: expected an input of shape \(3,\).*\(4,\)"):
        layer(fnp.ones(4))
    with pytest.raises(ValueError, match=r"expected a scalar input \(in_features='scalar'\)"):
        nn.Linear("scalar", 2, key=random.key(0))(fnp.ones(1))
    with pytest.raises(ValueError, match="out_features must be a non-negative int or 'scalar'"):
        nn.Linear(2, "vector", key=random.key(0))


def test_linear_scalar_features():
    # Equinox's "scalar": a scalar input or output, a size-1 axis inside.
    layer = nn.Linear("scalar", "scalar", key=random.key(0))
    assert layer.weight.shape == (1, 1) and layer(fnp.float32(2.0)).shape == ()
    w, b = float(layer.weight[0, 0]), float(layer.bias[0])
    np.testing.assert_allclose(layer(fnp.float32(2.0)), 2 * w + b, rtol=1e-6)
    np.testing.assert_allclose(fa.grad(layer)(fnp.float32(2.0)), w, rtol=1e-6)
    mlp = nn.MLP("scalar", "scalar", width_size=4, depth=1, key=random.key(1))
    xs = normal(5)
    np.testing.assert_allclose(fa.vmap(mlp)(xs), [mlp(x) for x in xs], rtol=1e-6)


def test_mlp_and_sequential():
    mlp = nn.MLP(3, 2, width_size=4, depth=2, activation=nn.silu, final_activation=fnp.tanh,
                 use_final_bias=False, key=random.key(0))
    assert [n for n, _ in nn.named_parameters(mlp)] == [
        "layers.0.weight", "layers.0.bias", "layers.1.weight", "layers.1.bias",
        "layers.2.weight"]

    def reference(p, x):
        h = jax.nn.silu(p["layers.0.weight"] @ x + p["layers.0.bias"])
        h = jax.nn.silu(p["layers.1.weight"] @ h + p["layers.1.bias"])
        return jnp.tanh(p["layers.2.weight"] @ h)

    check(mlp, normal(3), reference)
    check_vmap(mlp, normal(4, 3))
    seq = nn.Sequential([mlp.layers[0], nn.Lambda(nn.silu), mlp.layers[1], nn.Lambda(nn.silu),
                         mlp.layers[2], nn.Lambda(fnp.tanh)])
    x = normal(3)
    np.testing.assert_array_equal(seq(x), mlp(x))
    assert len(seq) == 6 and seq[0] is mlp.layers[0] and len(seq[1:3]) == 2
    assert list(seq) == list(seq.layers)


def test_sequential_splits_its_key_for_dropout():
    seq = nn.Sequential([nn.Dropout(0.5), nn.Identity(), nn.Dropout(0.5)])
    x = fnp.ones(64)
    keys = random.split(random.key(3), 3)
    expected = nn.Dropout(0.5)(nn.Dropout(0.5)(x, key=keys[0]), key=keys[2])
    np.testing.assert_array_equal(seq(x, key=random.key(3)), expected)
    with pytest.raises(ValueError, match="Dropout: a random key is needed"):
        seq(x)
    # Without a key, layers that take none fit.
    np.testing.assert_array_equal(nn.Sequential([_Doubler(), nn.Dropout(0.5, inference=True)])(x),
                                  2 * np.ones(64))


class _Doubler(nn.Module):
    def __call__(self, x):
        return 2 * x


def test_embedding():
    embed = nn.Embedding(6, 3, key=random.key(0))
    ids = np.asarray([0, 5, 2, 5], dtype=np.int32)
    check(embed, ids, lambda p, x: p["weight"][x], differentiable_input=False)
    np.testing.assert_array_equal(embed(3), np.asarray(embed.weight)[3])
    check_vmap(embed, ids.reshape(2, 2))
    big = np.asarray(nn.Embedding(1000, 100, key=random.key(1)).weight)
    assert abs(big.mean()) < 0.01 and abs(big.std() - 1) < 0.01  # PyTorch's N(0, 1)
    table = np.arange(6.0, dtype=np.float32).reshape(3, 2)
    pretrained = nn.Embedding(weight=table)
    assert (pretrained.num_embeddings, pretrained.embedding_size) == (3, 2)
    with pytest.raises(TypeError, match="ids must be integers"):
        embed(fnp.ones(2))
    with pytest.raises(ValueError, match=r"weight must have shape.*\(4, 2\).*\(3, 2\)"):
        nn.Embedding(4, 2, weight=table)


@pytest.mark.parametrize("shape", [4, (2, 3)])
@pytest.mark.parametrize("use_weight, use_bias", [(True, True), (False, False), (True, False)])
def test_layer_norm(shape, use_weight, use_bias):
    layer = nn.LayerNorm(shape, eps=1e-3, use_weight=use_weight, use_bias=use_bias)
    dims = (shape,) if isinstance(shape, int) else shape
    # Non-trivial affine parameters, so that their gradients are checked for real.
    if use_weight:
        layer = nn.tree_at(lambda m: m.weight, layer, replace=fnp.asarray(normal(*dims)))
    if use_bias:
        layer = nn.tree_at(lambda m: m.bias, layer, replace=fnp.asarray(normal(*dims)))
    axes = tuple(range(-len(dims), 0))

    def reference(p, x):
        mean = x.mean(axis=axes, keepdims=True)
        y = (x - mean) / jnp.sqrt(((x - mean) ** 2).mean(axis=axes, keepdims=True) + 1e-3)
        y = y * p["weight"] if use_weight else y
        return y + p["bias"] if use_bias else y

    x = normal(2, *dims) * 3 + 1  # a leading axis is normalised independently
    check(layer, x, reference, rtol=1e-5, atol=1e-5)
    check_vmap(layer, x)


def test_layer_norm_matches_numpy_and_errors():
    x = normal(5) * 10
    y = np.asarray(nn.LayerNorm(5)(x))
    np.testing.assert_allclose(y, (x - x.mean()) / np.sqrt(x.var() + 1e-5), rtol=1e-5,
                               atol=1e-6)
    with pytest.raises(ValueError, match=r"LayerNorm: .*normalised shape \(5,\), got \(4,\)"):
        nn.LayerNorm(5)(fnp.ones(4))


@pytest.mark.parametrize("use_bias", [False, True])
def test_rms_norm(use_bias):
    layer = nn.RMSNorm(4, use_bias=use_bias)
    layer = nn.tree_at(lambda m: m.weight, layer, replace=fnp.asarray(normal(4)))

    def reference(p, x):
        y = x / jnp.sqrt((x ** 2).mean(axis=-1, keepdims=True) + 1e-5) * p["weight"]
        return y + p["bias"] if use_bias else y

    check(layer, normal(3, 4), reference, rtol=1e-5, atol=1e-5)
    check_vmap(layer, normal(3, 4))
    assert [n for n, _ in nn.named_parameters(layer)] == (
        ["weight", "bias"] if use_bias else ["weight"])


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_norms_of_half_precision_inputs_compute_in_float32(dtype):
    # A large offset: float16 statistics would lose the small variations around it.
    x = (normal(3, 8) * 0.01 + 100).astype(np.float32)
    low = fnp.asarray(x).astype(dtype)
    wide = np.asarray(low.astype("float32"))
    layers = [(nn.LayerNorm(8), lambda v: (v - v.mean(-1, keepdims=True))
               / np.sqrt(v.var(-1, keepdims=True) + 1e-5)),
              (nn.RMSNorm(8), lambda v: v / np.sqrt((v ** 2).mean(-1, keepdims=True) + 1e-5)),
              (nn.GroupNorm(3, 3), lambda v: (v - v.mean(-1, keepdims=True))
               / np.sqrt(v.var(-1, keepdims=True) + 1e-5))]
    for layer, reference in layers:
        y = layer(low)
        assert y.dtype == np.dtype(low.dtype), type(layer).__name__
        expected = reference(wide.astype(np.float64)).astype(np.float32)
        np.testing.assert_allclose(np.asarray(y.astype("float32")), expected,
                                   rtol=2e-2, atol=2e-2, err_msg=type(layer).__name__)
    bn = nn.BatchNorm(8, axis_name="b")
    y, _ = fa.vmap(bn, axis_name="b", in_axes=(0, None), out_axes=(0, None))(
        low, bn.init_state())
    assert y.dtype == np.dtype(low.dtype)
    expected = (wide - wide.mean(0)) / np.sqrt(wide.var(0) + 1e-5)
    np.testing.assert_allclose(np.asarray(y.astype("float32")), expected, rtol=2e-2, atol=3e-2)


def test_dropout():
    drop = nn.Dropout(0.25)
    x = fnp.ones(20000)
    y = np.asarray(drop(x, key=random.key(0)))
    assert set(np.unique(y).tolist()) == {0.0, float(np.float32(1) / np.float32(0.75))}
    assert abs((y == 0).mean() - 0.25) < 0.01
    np.testing.assert_array_equal(drop(x, key=random.key(0)), y)  # the key decides the mask
    assert not np.array_equal(drop(x, key=random.key(1)), y)
    np.testing.assert_array_equal(nn.filter_jit(lambda d, x, k: d(x, key=k))(
        drop, x, random.key(0)), y)
    # Gradients flow through the kept elements, scaled.
    g = fa.grad(lambda x: fnp.sum(drop(x, key=random.key(0))))(x)
    np.testing.assert_array_equal(g, y)
    np.testing.assert_array_equal(nn.Dropout(0.5, inference=True)(x), x)
    np.testing.assert_array_equal(drop(x, inference=True), x)
    np.testing.assert_array_equal(nn.Dropout(1.0)(x, key=random.key(0)), np.zeros(20000))
    np.testing.assert_array_equal(nn.Dropout(0.0)(x), x)
    # Under vmap, each example its own key.
    keys = random.split(random.key(0), 2)
    batched = fa.vmap(lambda x, k: drop(x, key=k))(fnp.ones((2, 8)), keys)
    np.testing.assert_array_equal(batched, np.stack([drop(fnp.ones(8), key=k) for k in keys]))
    with pytest.raises(ValueError, match=r"p must be a probability in \[0, 1\], got 1.5"):
        nn.Dropout(1.5)


class _SelfAttention(nn.Module):
    """A MultiHeadAttention called on one sequence, with a fixed mask, for check."""

    mha: nn.MultiHeadAttention
    mask: object = nn.field(static=True, default=None)
    is_causal: bool = nn.field(static=True, default=False)

    def __call__(self, x, *, key=None):
        mask = None if self.mask is None else fnp.asarray(np.asarray(self.mask))
        return self.mha(x, x, x, mask, is_causal=self.is_causal)


def _jax_attention(p, x, *, heads, kv_heads, qk, vo, mask=None, is_causal=False,
                   prefix="mha."):
    def proj(name, x):
        y = x @ p[f"{prefix}{name}.weight"].T
        return y + p[f"{prefix}{name}.bias"] if f"{prefix}{name}.bias" in p else y

    t = x.shape[0]
    q = proj("query_proj", x).reshape(t, heads, qk)
    k = jnp.repeat(proj("key_proj", x).reshape(t, kv_heads, qk), heads // kv_heads, axis=1)
    v = jnp.repeat(proj("value_proj", x).reshape(t, kv_heads, vo), heads // kv_heads, axis=1)
    logits = jnp.einsum("tnh,snh->nts", q, k) / np.sqrt(qk)
    keep = np.ones((heads, t, t), bool)
    if mask is not None:
        keep = keep & np.asarray(mask)
    if is_causal:
        keep = keep & np.tril(np.ones((t, t), bool))
    logits = jnp.where(keep, logits, -1e30)
    out = jnp.einsum("nts,snh->tnh", jax.nn.softmax(logits, axis=-1), v)
    return proj("output_proj", out.reshape(t, heads * vo))


@pytest.mark.parametrize("heads, kv_heads, qk, vo, causal, mask", [
    (2, 2, None, None, False, None),
    (4, 2, None, None, True, None),  # grouped-query heads, causal
    (2, 1, 3, 5, False, "padding"),  # value heads of another size: the explicit path
    (2, 2, None, None, True, "pattern"),
])
def test_multi_head_attention(heads, kv_heads, qk, vo, causal, mask):
    size, t = 8, 5
    mha = nn.MultiHeadAttention(heads, size, qk_size=qk, vo_size=vo, use_query_bias=True,
                                use_output_bias=True, num_kv_heads=kv_heads,
                                key=random.key(heads))
    # Non-zero biases, so that their gradients are checked for real.
    mha = nn.tree_at(lambda m: (m.query_proj.bias, m.output_proj.bias), mha,
                     replace=(fnp.asarray(normal(mha.query_proj.out_features)),
                              fnp.asarray(normal(size))))
    if mask == "padding":
        mask = np.asarray([True, True, True, False, False])  # the last two keys are padding
    elif mask == "pattern":
        mask = RNG.random((t, t)) < 0.6
        mask[:, 0] = True  # every query attends to something
    # (static fields hold hashable values: the mask as nested tuples)
    static_mask = None if mask is None else tuple(
        tuple(row) if isinstance(row, list) else row for row in mask.tolist())
    layer = _SelfAttention(mha, static_mask, causal)
    qk, vo = mha.qk_size, mha.vo_size
    x = normal(t, size)
    check(layer, x, lambda p, x: _jax_attention(p, x, heads=heads, kv_heads=kv_heads, qk=qk,
                                                 vo=vo, mask=mask, is_causal=causal),
           rtol=1e-5, atol=1e-5)
    check_vmap(layer, normal(3, t, size))


def test_multi_head_attention_initialisation_and_cross_attention():
    mha = nn.MultiHeadAttention(4, 64, key_size=32, value_size=16, output_size=8,
                                use_key_bias=True, key=random.key(0))
    assert [(n, p.shape) for n, p in nn.named_parameters(mha)] == [
        ("query_proj.weight", (64, 64)), ("key_proj.weight", (64, 32)),
        ("key_proj.bias", (64,)), ("value_proj.weight", (64, 16)),
        ("output_proj.weight", (8, 64))]
    # PyTorch's nn.MultiheadAttention: Glorot-uniform input projections, zero biases.
    w = np.asarray(mha.key_proj.weight)
    bound = np.sqrt(6 / (32 + 64))
    assert np.abs(w).max() <= bound and abs(w.std() - bound / np.sqrt(3)) < 0.05 * bound
    np.testing.assert_array_equal(mha.key_proj.bias, np.zeros(64))
    out = mha(normal(3, 64), normal(7, 32), normal(7, 16))
    assert out.shape == (3, 8)
    with pytest.raises(ValueError, match=r"key_ must have shape \(sequence, 32\)"):
        mha(normal(3, 64), normal(7, 64), normal(7, 16))
    with pytest.raises(ValueError, match=r"does not broadcast to \(num_heads, T, S\)"):
        mha(normal(3, 64), normal(7, 32), normal(7, 16), mask=np.ones(3, bool))
    with pytest.raises(TypeError, match="mask must be boolean"):
        mha(normal(3, 64), normal(7, 32), normal(7, 16), mask=np.ones(7))
    with pytest.raises(ValueError, match=r"num_heads \(3\) must be a positive multiple"):
        nn.MultiHeadAttention(3, 6, num_kv_heads=2, key=random.key(0))


def test_multi_head_attention_dropout():
    mha = nn.MultiHeadAttention(2, 4, dropout_p=0.5, key=random.key(0))
    x = normal(6, 4)
    with pytest.raises(ValueError, match="Dropout: a random key is needed"):
        mha(x, x, x)
    a, b = mha(x, x, x, key=random.key(1)), mha(x, x, x, key=random.key(2))
    assert not np.allclose(a, b)
    np.testing.assert_array_equal(mha(x, x, x, key=random.key(1)), a)
    # In inference, no dropout: the same as a layer without it.
    plain = nn.tree_at(lambda m: m.dropout, mha, replace=nn.Dropout(0.0))
    np.testing.assert_allclose(mha(x, x, x, inference=True), plain(x, x, x), rtol=1e-6)
    # The mean over many keys approaches the expectation (inverted dropout is unbiased).
    keys = random.split(random.key(3), 400)
    mean = np.mean(fa.vmap(lambda k: mha(x, x, x, key=k))(keys), axis=0)
    np.testing.assert_allclose(mean, plain(x, x, x), atol=0.1)
