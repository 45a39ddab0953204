"""A small transformer language model built from the layers trains under filter_jit: the
loss falls, jit agrees with eager, dropout keys thread through, and a checkpoint reloads."""

import numpy as np

import funcarray as fa
import funcarray.io as fio
import funcarray.nn as nn
import funcarray.numpy as fnp
import funcarray.optim as optim
from funcarray import random

VOCAB, SIZE, HEADS, LENGTH = 7, 16, 4, 6


class Block(nn.Module):
    attn_norm: nn.LayerNorm
    attn: nn.MultiHeadAttention
    mlp_norm: nn.RMSNorm
    mlp: nn.MLP
    dropout: nn.Dropout

    def __init__(self, *, key):
        k1, k2 = random.split(key)
        self.attn_norm = nn.LayerNorm(SIZE)
        self.attn = nn.MultiHeadAttention(HEADS, SIZE, num_kv_heads=2, key=k1)
        self.mlp_norm = nn.RMSNorm(SIZE)
        self.mlp = nn.MLP(SIZE, SIZE, 2 * SIZE, 1, activation=nn.gelu, key=k2)
        self.dropout = nn.Dropout(0.1)

    def __call__(self, x, *, key=None, inference=False):
        h = fa.vmap(self.attn_norm)(x)
        x = x + self.attn(h, h, h, is_causal=True)
        x = x + self.dropout(fa.vmap(self.mlp)(fa.vmap(self.mlp_norm)(x)), key=key,
                             inference=inference)
        return x


class LanguageModel(nn.Module):
    embed: nn.Embedding
    position: nn.Embedding
    blocks: tuple
    head: nn.Linear

    def __init__(self, *, key):
        keys = random.split(key, 4)
        self.embed = nn.Embedding(VOCAB, SIZE, key=keys[0])
        self.position = nn.Embedding(LENGTH, SIZE, key=keys[1])
        self.blocks = (Block(key=keys[2]), Block(key=keys[3]))
        self.head = nn.Linear(SIZE, VOCAB, key=keys[3])

    def __call__(self, ids, *, key=None, inference=False):
        x = self.embed(ids) + self.position(fnp.arange(ids.shape[0]))
        keys = [None] * len(self.blocks) if key is None else random.split(key, len(self.blocks))
        for block, k in zip(self.blocks, keys, strict=True):
            x = block(x, key=k, inference=inference)
        return fa.vmap(self.head)(x)


def _loss(model, ids, key=None, inference=False):
    keys = None if key is None else random.split(key, ids.shape[0])
    if keys is None:
        logits = fa.vmap(lambda i: model(i, inference=True))(ids[:, :-1])
    else:
        logits = fa.vmap(lambda i, k: model(i, key=k, inference=inference))(ids[:, :-1], keys)
    targets = ids[:, 1:]
    log_probs = nn.log_softmax(logits)
    return -fnp.mean(fnp.take_along_axis(log_probs, targets[..., None], axis=-1))


def test_a_transformer_trains_and_reloads(tmp_path):
    model = LanguageModel(key=random.key(0))
    # A repeating pattern, learnable by a causal model.
    ids = fnp.asarray(np.stack([(np.arange(LENGTH + 1) + s) % VOCAB for s in range(4)]),
                      dtype="int32")
    opt = optim.adamw(3e-3)
    state = opt.init(fa.tree.partition(model, nn.is_inexact_array)[0])

    @nn.filter_jit
    def step(model, state, key):
        loss, grads = nn.filter_value_and_grad(_loss)(model, ids, key)
        params = fa.tree.partition(model, nn.is_inexact_array)[0]
        updates, state = opt.update(grads, state, params)
        return optim.apply_updates(model, updates), state, loss

    first = float(_loss(model, ids))
    np.testing.assert_allclose(nn.filter_jit(_loss)(model, ids), first, rtol=1e-5)
    key = random.key(1)
    for _ in range(15):
        key, sub = random.split(key)
        model, state, loss = step(model, state, sub)
    last = float(_loss(model, ids))
    assert last < 0.7 * first, (first, last)
    # Dropout makes a training loss depend on its key; inference does not.
    a, b = (float(_loss(model, ids, random.key(k))) for k in (1, 2))
    assert a != b
    path = tmp_path / "lm.safetensors"
    fio.save(path, model)
    assert "blocks.1.attn.key_proj.weight" in fio.load(path, flat=True)
    reloaded = fio.load(path, like=LanguageModel(key=random.key(5)))
    np.testing.assert_array_equal(_loss(reloaded, ids), _loss(model, ids))
