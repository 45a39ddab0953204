"""Named parameters, state_dict/load_state_dict, funcarray.io with modules, tree_at and
freezing parameters by name."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import funcarray as fa
import funcarray.io as fio
import funcarray.nn as nn
import funcarray.numpy as fnp
import funcarray.optim as optim
from funcarray import random


class Block(nn.Module):
    attn: nn.Linear
    norm: nn.LayerNorm

    def __init__(self, size, *, key):
        self.attn = nn.Linear(size, size, key=key)
        self.norm = nn.LayerNorm(size)

    def __call__(self, x, *, key=None):
        return self.norm(x + self.attn(x))


class Model(nn.Module):
    embed: nn.Embedding
    layers: tuple
    head: nn.Linear

    def __init__(self, *, key):
        keys = random.split(key, 4)
        self.embed = nn.Embedding(5, 4, key=keys[0])
        self.layers = (Block(4, key=keys[1]), Block(4, key=keys[2]))
        self.head = nn.Linear(4, 2, use_bias=False, key=keys[3])

    def __call__(self, ids):
        x = fnp.mean(self.embed(ids), axis=0)
        for layer in self.layers:
            x = layer(x)
        return self.head(x)


NAMES = ["embed.weight", "layers.0.attn.weight", "layers.0.attn.bias", "layers.0.norm.weight",
         "layers.0.norm.bias", "layers.1.attn.weight", "layers.1.attn.bias",
         "layers.1.norm.weight", "layers.1.norm.bias", "head.weight"]


def _model(seed=0):
    return Model(key=random.key(seed))


def test_named_parameters_and_state_dict():
    model = _model()
    assert [name for name, _ in nn.named_parameters(model)] == NAMES
    flat = nn.state_dict(model)
    assert list(flat) == NAMES
    assert flat["layers.1.attn.weight"] is model.layers[1].attn.weight
    assert [p.shape for p in flat.values()] == [(5, 4), (4, 4), (4,), (4,), (4,), (4, 4), (4,),
                                               (4,), (4,), (2, 4)]
    # Dict keys and list positions join the names too; non-array leaves are not parameters.
    assert list(nn.state_dict({"a": [fnp.ones(1), 3], "b": {"c": np.zeros(2)}})) == [
        "a.0", "b.c"]


def test_load_state_dict_round_trip():
    model, other = _model(0), _model(1)
    loaded = nn.load_state_dict(model, nn.state_dict(other))
    ids = fnp.asarray([0, 3, 4])
    np.testing.assert_array_equal(loaded(ids), other(ids))
    assert type(loaded) is Model and fa.tree.structure(loaded) == fa.tree.structure(model)
    # From NumPy arrays (a PyTorch checkpoint's tensors converted), non-strict with a subset.
    head = np.arange(8, dtype=np.float32).reshape(2, 4)
    partial = nn.load_state_dict(model, {"head.weight": head, "extra": np.ones(1)},
                                 strict=False)
    np.testing.assert_array_equal(partial.head.weight, head)
    assert isinstance(partial.head.weight, fa.Array)
    assert partial.embed.weight is model.embed.weight


def test_load_state_dict_errors_name_the_keys():
    model = _model()
    flat = nn.state_dict(model)
    flat.pop("layers.0.norm.bias")
    flat["layers.1.attn.weight"] = fnp.ones((4, 5))
    flat["head.weight"] = fnp.ones((2, 4), dtype="float16")
    flat["layers.2.attn.weight"] = fnp.ones(1)
    with pytest.raises(ValueError) as info:
        nn.load_state_dict(model, flat)
    message = str(info.value)
    assert "load_state_dict" in message
    assert "'layers.0.norm.bias': missing (expected shape (4,) float32)" in message
    assert "'layers.1.attn.weight': expected shape (4, 4) float32, got shape (4, 5) " \
           "float32" in message
    assert "'head.weight': expected shape (2, 4) float32, got shape (2, 4) float16" in message
    assert "'layers.2.attn.weight': unexpected" in message and "strict=False" in message
    # Shapes and dtypes are checked even when not strict.
    with pytest.raises(ValueError, match="layers.1.attn.weight"):
        nn.load_state_dict(model, flat, strict=False)
    with pytest.raises(TypeError, match="dict of dotted names"):
        nn.load_state_dict(model, [1, 2])


@pytest.mark.parametrize("suffix", [".safetensors", ".npz"])
def test_io_saves_and_loads_a_module(tmp_path, suffix):
    model, other = _model(0), _model(1)
    path = tmp_path / f"model{suffix}"
    fio.save(path, model)
    assert list(fio.load(path, flat=True)) == NAMES if suffix == ".safetensors" else \
        sorted(fio.load(path, flat=True)) == sorted(NAMES)
    loaded = fio.load(path, like=other)
    assert type(loaded) is Model
    for (name, a), (_, b) in zip(nn.named_parameters(loaded), nn.named_parameters(model),
                                 strict=True):
        np.testing.assert_array_equal(a, b, err_msg=name)
    # A file's flat dict loads through load_state_dict as well.
    again = nn.load_state_dict(other, fio.load(path, flat=True))
    np.testing.assert_array_equal(again(fnp.asarray([1])), model(fnp.asarray([1])))
    small = tmp_path / f"small{suffix}"
    fio.save(small, {"head": {"weight": fnp.ones((3, 4))}})
    with pytest.raises(ValueError, match=r"head.weight.*expected shape \(2, 4\)"):
        fio.load(small, like=model)


def test_tree_at_replaces_parameters_layers_and_none():
    model = _model()
    new = nn.tree_at(lambda m: m.layers[1].attn.bias, model, replace=fnp.zeros(4))
    np.testing.assert_array_equal(new.layers[1].attn.bias, np.zeros(4))
    assert new.layers[0] is not model.layers[0]  # a new tree, the old one unchanged
    assert model.layers[1].attn.bias is not new.layers[1].attn.bias
    np.testing.assert_array_equal(model.layers[1].attn.bias,
                                  nn.state_dict(_model())["layers.1.attn.bias"])
    # A whole layer.
    swapped = nn.tree_at(lambda m: m.layers[0], model, replace=nn.Identity())
    x = fnp.asarray([2])
    expected = model.head(model.layers[1](fnp.mean(model.embed(x), axis=0)))
    np.testing.assert_allclose(swapped(x), expected, rtol=1e-6)
    # Several nodes, replace_fn, and None (head.bias) replaced by an array.
    both = nn.tree_at(lambda m: (m.embed.weight, m.head.weight), model,
                      replace_fn=lambda w: w * 0)
    assert float(fnp.abs(both.embed.weight).sum() + fnp.abs(both.head.weight).sum()) == 0
    with_bias = nn.tree_at(lambda m: m.head.bias, model, replace=fnp.ones(2))
    assert "head.bias" in nn.state_dict(with_bias)
    np.testing.assert_allclose(with_bias(x), model(x) + 1, rtol=1e-6)


def test_tree_at_errors():
    model = _model()
    with pytest.raises(ValueError, match="not in the tree"):
        nn.tree_at(lambda m: nn.Identity(), model, replace=1)  # a new node
    with pytest.raises(ValueError, match="not in the tree"):
        nn.tree_at(lambda m: m.head.in_features, model, replace=3)  # a static field
    with pytest.raises(TypeError, match="exactly one of replace= and replace_fn="):
        nn.tree_at(lambda m: m.head, model)
    with pytest.raises(ValueError, match="tuple or list of 2 values"):
        nn.tree_at(lambda m: (m.head, m.embed), model, replace=nn.Identity())


def test_freezing_by_name_keeps_frozen_parameters_bit_identical():
    model = _model()
    ids = fnp.asarray([[0, 1], [2, 3], [4, 0]])
    targets = fnp.asarray([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    # Train the layers' attention only: the embedding, the norms and the head are frozen.
    mask = nn.name_mask(model, lambda name: ".attn." in name)
    trainable, frozen = fa.tree.partition(model, mask)
    assert [n for n, _ in nn.named_parameters(trainable)] == [
        "layers.0.attn.weight", "layers.0.attn.bias", "layers.1.attn.weight",
        "layers.1.attn.bias"]
    opt = optim.adamw(1e-2, weight_decay=0.1)
    state = opt.init(trainable)
    # Optimizer state exists for the trainable parameters only.
    assert len(fa.tree.leaves(state)) == 1 + 2 * 4  # the step count, two moments each

    @nn.filter_jit
    def step(trainable, frozen, state):
        def loss(t):
            m = fa.tree.combine(t, frozen)
            return fnp.mean((fa.vmap(m)(ids) - targets) ** 2)
        value, grads = fa.value_and_grad(loss)(trainable)
        updates, state = opt.update(grads, state, trainable)
        return optim.apply_updates(trainable, updates), state, value

    losses = []
    for _ in range(5):
        trainable, state, value = step(trainable, frozen, state)
        losses.append(float(value))
    assert losses[-1] < losses[0]
    trained = fa.tree.combine(trainable, frozen)
    before, after = nn.state_dict(model), nn.state_dict(trained)
    for name in NAMES:
        if ".attn." in name:
            assert not np.array_equal(before[name], after[name]), name
        else:
            assert np.asarray(after[name]).tobytes() == np.asarray(before[name]).tobytes(), name


def test_name_mask_as_an_optimizer_mask():
    model = _model()
    # Weight decay on the weights of linear layers only (not on norms and embeddings).
    mask = nn.name_mask(model, lambda name: name.endswith("attn.weight") or name == "head.weight")
    opt = optim.add_decayed_weights(0.5, mask=mask)
    zeros = fa.tree.map(fnp.zeros_like, model)
    updates, _ = opt.update(zeros, opt.init(model), model)
    for name, update in nn.named_parameters(updates):
        param = nn.state_dict(model)[name]
        expected = 0.5 * np.asarray(param) if name.endswith("weight") and "norm" not in name \
            and "embed" not in name else np.zeros_like(param)
        np.testing.assert_array_equal(update, expected, err_msg=name)


def test_freezing_with_masked_optimizers_on_the_whole_model():
    model = _model()
    ids = fnp.asarray([[0, 1], [2, 3]])
    trainable = nn.name_mask(model, lambda name: name.startswith("layers.1."))
    frozen = nn.name_mask(model, lambda name: not name.startswith("layers.1."))
    opt = optim.chain(optim.masked(optim.adam(1e-2), trainable),
                      optim.masked(optim.set_to_zero(), frozen))
    state = opt.init(model)
    # Adam's moments exist for the four trainable arrays only.
    assert len(fa.tree.leaves(state[0].inner_state)) == 1 + 2 * 4

    @nn.filter_jit
    def step(model, state):
        grads = nn.filter_grad(lambda m: fnp.sum(fa.vmap(m)(ids) ** 2))(model)
        updates, state = opt.update(grads, state, model)
        return optim.apply_updates(model, updates), state

    trained = model
    for _ in range(3):
        trained, state = step(trained, state)
    before, after = nn.state_dict(model), nn.state_dict(trained)
    for name in NAMES:
        if name.startswith("layers.1."):
            assert not np.array_equal(before[name], after[name]), name
        else:
            assert np.asarray(after[name]).tobytes() == np.asarray(before[name]).tobytes(), name


@settings(max_examples=20, deadline=None)
@given(sizes=st.lists(st.integers(1, 4), min_size=2, max_size=4),
       dtype=st.sampled_from(["float16", "bfloat16", "float32", "float64"]),
       use_bias=st.booleans(), suffix=st.sampled_from([".safetensors", ".npz"]))
def test_round_trips_of_random_models(tmp_path_factory, sizes, dtype, use_bias, suffix):
    keys = random.split(random.key(len(sizes)), len(sizes) - 1)
    model = nn.Sequential([nn.Linear(a, b, use_bias, dtype=dtype, key=k)
                           for a, b, k in zip(sizes, sizes[1:], keys, strict=False)])
    leaves, treedef = fa.tree.flatten(model)
    assert all(x.dtype == np.dtype(dtype) for x in leaves)
    assert fa.tree.unflatten(treedef, leaves).layers[-1].out_features == sizes[-1]
    names = [n for n, _ in nn.named_parameters(model)]
    assert names == [f"layers.{k}.{p}" for k in range(len(sizes) - 1)
                     for p in (("weight", "bias") if use_bias else ("weight",))]
    path = tmp_path_factory.mktemp("models") / f"model{suffix}"
    fio.save(path, model)
    for loaded in (fio.load(path, like=model),
                   nn.load_state_dict(model, fio.load(path, flat=True))):
        assert fa.tree.structure(loaded) == treedef
        for a, b in zip(fa.tree.leaves(loaded), leaves, strict=True):
            assert a.dtype == b.dtype and np.asarray(a).tobytes() == np.asarray(b).tobytes()
