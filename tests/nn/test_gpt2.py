"""GPT-2: a checkpoint in Hugging Face's names and layouts, written here with the
``safetensors`` package, loads into ``nn.GPT2`` and gives the logits of a NumPy reference
forward pass over the same weights."""

import numpy as np
import pytest

import funcarray as fa
import funcarray.io as fio
import funcarray.nn as nn

safetensors_numpy = pytest.importorskip("safetensors.numpy")

VOCAB, POSITIONS, EMBD, LAYERS, HEADS = 37, 16, 24, 2, 3


def hf_checkpoint(seed=0, prefix=""):
    """Random weights under Hugging Face GPT2Model's names, Conv1D weights as (in, out),
    with the causal-mask buffers such checkpoints carry."""
    rng = np.random.default_rng(seed)

    def normal(*shape, scale=0.2):
        return (scale * rng.standard_normal(shape)).astype(np.float32)

    t = {"wte.weight": normal(VOCAB, EMBD, scale=0.5), "wpe.weight": normal(POSITIONS, EMBD),
         "ln_f.weight": 1 + normal(EMBD), "ln_f.bias": normal(EMBD)}
    for i in range(LAYERS):
        p = f"h.{i}."
        t |= {p + "ln_1.weight": 1 + normal(EMBD), p + "ln_1.bias": normal(EMBD),
              p + "attn.c_attn.weight": normal(EMBD, 3 * EMBD),
              p + "attn.c_attn.bias": normal(3 * EMBD),
              p + "attn.c_proj.weight": normal(EMBD, EMBD), p + "attn.c_proj.bias": normal(EMBD),
              p + "ln_2.weight": 1 + normal(EMBD), p + "ln_2.bias": normal(EMBD),
              p + "mlp.c_fc.weight": normal(EMBD, 4 * EMBD), p + "mlp.c_fc.bias": normal(4 * EMBD),
              p + "mlp.c_proj.weight": normal(4 * EMBD, EMBD), p + "mlp.c_proj.bias": normal(EMBD),
              p + "attn.bias": np.tril(np.ones((POSITIONS, POSITIONS), np.float32))[None, None]}
    return {prefix + name: value for name, value in t.items()}


def reference_logits(t, ids):
    """GPT-2's forward pass in float64 NumPy, written from Hugging Face's modeling_gpt2."""
    t = {k: v.astype(np.float64) for k, v in t.items()}

    def layer_norm(x, p):
        mean, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
        return (x - mean) / np.sqrt(var + 1e-5) * t[p + ".weight"] + t[p + ".bias"]

    def conv1d(x, p):
        return x @ t[p + ".weight"] + t[p + ".bias"]

    def gelu_new(x):
        return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))

    n, d = len(ids), EMBD // HEADS
    x = t["wte.weight"][ids] + t["wpe.weight"][:n]
    for i in range(LAYERS):
        p = f"h.{i}."
        q, k, v = np.split(conv1d(layer_norm(x, p + "ln_1"), p + "attn.c_attn"), 3, axis=-1)
        q, k, v = (a.reshape(n, HEADS, d).transpose(1, 0, 2) for a in (q, k, v))
        scores = q @ k.transpose(0, 2, 1) / np.sqrt(d)
        scores = np.where(np.tril(np.ones((n, n), bool)), scores, -np.inf)
        weights = np.exp(scores - scores.max(-1, keepdims=True))
        weights /= weights.sum(-1, keepdims=True)
        heads = (weights @ v).transpose(1, 0, 2).reshape(n, EMBD)
        x = x + conv1d(heads, p + "attn.c_proj")
        hidden = gelu_new(conv1d(layer_norm(x, p + "ln_2"), p + "mlp.c_fc"))
        x = x + conv1d(hidden, p + "mlp.c_proj")
    return layer_norm(x, "ln_f") @ t["wte.weight"].T


@pytest.mark.parametrize("prefix", ["", "transformer."])
def test_hf_checkpoint_matches_numpy_reference(tmp_path, prefix):
    tensors = hf_checkpoint(prefix=prefix)
    if prefix:  # GPT2LMHeadModel also stores the tied head
        tensors["lm_head.weight"] = tensors[prefix + "wte.weight"]
    path = tmp_path / "model.safetensors"
    safetensors_numpy.save_file(tensors, str(path))
    model = fio.load_gpt2(path, n_head=HEADS)
    assert model.config == nn.GPT2Config(VOCAB, POSITIONS, EMBD, LAYERS, HEADS)
    plain = hf_checkpoint()
    ids = np.random.default_rng(1).integers(0, VOCAB, size=(2, 11))
    expected = np.stack([reference_logits(plain, row) for row in ids])
    np.testing.assert_allclose(np.asarray(fa.vmap(model)(ids)), expected, rtol=2e-4,
                               atol=2e-4)
    np.testing.assert_allclose(np.asarray(fa.jit(fa.vmap(model))(ids)), expected, rtol=2e-4,
                               atol=2e-4)
    # Layouts: Conv1D (in, out) became Linear (out, in); the head is the token embedding.
    np.testing.assert_array_equal(np.asarray(model.h[1].mlp.c_fc.weight),
                                  plain["h.1.mlp.c_fc.weight"].T)


def test_logits_are_causal():
    model = fio_model()
    ids = np.arange(8) % VOCAB
    changed = ids.copy()
    changed[5] = (changed[5] + 1) % VOCAB
    a, b = np.asarray(model(ids)), np.asarray(model(changed))
    np.testing.assert_array_equal(a[:5], b[:5])
    assert not np.allclose(a[5:], b[5:])


def fio_model():
    return nn.GPT2.from_hf_state_dict(hf_checkpoint(), n_head=HEADS)


def test_missing_and_misshaped_keys_are_named():
    tensors = hf_checkpoint()
    del tensors["h.1.ln_2.bias"]
    tensors["h.0.attn.c_proj.weight"] = tensors["h.0.attn.c_proj.weight"][:, :-1]
    tensors["h.0.mlp.c_fc.weight"] = tensors["h.0.mlp.c_fc.weight"].T  # a Linear layout
    tensors["h.0.extra"] = np.zeros(2, np.float32)
    with pytest.raises(ValueError) as info:
        nn.GPT2.from_hf_state_dict(tensors, n_head=HEADS)
    message = str(info.value)
    assert "missing 'h.1.ln_2.bias' (shape (24,))" in message
    assert "'h.0.attn.c_proj.weight' has shape (24, 23), expected (24, 24)" in message
    assert "'h.0.mlp.c_fc.weight' has shape (96, 24), expected (24, 96) (a Conv1D" in message
    assert "unexpected 'h.0.extra'" in message
    with pytest.raises(ValueError, match="'wte.weight' must be a 2-d array"):
        nn.GPT2.from_hf_state_dict({}, n_head=HEADS)


def test_init_sizes_and_names():
    config = nn.GPT2Config(vocab_size=11, n_positions=8, n_embd=16, n_layer=2, n_head=4)
    model = nn.GPT2(config, key=fa.random.key(0))
    names = dict(nn.named_parameters(model))
    assert names["h.1.attn.c_attn.weight"].shape == (48, 16)
    assert names["h.0.mlp.c_proj.weight"].shape == (16, 64)
    assert len(names) == 4 + 12 * 2
    assert {str(p.dtype) for p in names.values()} == {"float32"}
    half = nn.GPT2(config, dtype="bfloat16", key=fa.random.key(0))
    assert {str(p.dtype) for _, p in nn.named_parameters(half)} == {"bfloat16"}
    assert 0.015 < float(np.std(np.asarray(names["h.0.attn.c_attn.weight"]))) < 0.025
    with pytest.raises(ValueError, match="longer than n_positions"):
        model(np.zeros(9, int))
    with pytest.raises(ValueError, match="multiple of n_head"):
        nn.GPT2(nn.GPT2Config(n_embd=10, n_head=4), key=fa.random.key(0))
