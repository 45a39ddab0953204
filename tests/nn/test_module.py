"""funcarray.nn.Module as a pytree, the filtered transforms, and tree.partition/combine."""

import abc
import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import funcarray as fa
import funcarray.nn as nn
import funcarray.numpy as fnp
from funcarray import tree_util


class Affine(nn.Module):
    weight: fa.Array
    bias: fa.Array | None
    size: int = nn.field(static=True)
    activation: object = nn.static_field(default=fnp.tanh)

    def __init__(self, size, *, key, use_bias=True, activation=fnp.tanh):
        self.weight = fa.random.normal(key, (size, size))
        self.bias = fnp.arange(float(size)) if use_bias else None
        self.size = size
        self.activation = activation

    def __call__(self, x):
        y = self.weight @ x
        return self.activation(y if self.bias is None else y + self.bias)


class Pair(nn.Module):  # the generated __init__
    first: Affine
    second: Affine
    scale: float = 2.0
    tags: tuple = nn.field(static=True, default=())

    def __call__(self, x):
        return self.scale * self.second(self.first(x))


def _pair(size=3):
    k1, k2 = fa.random.split(fa.random.key(0))
    return Pair(Affine(size, key=k1), Affine(size, key=k2, use_bias=False))


def _reference(model, x):
    """The model's function in jax, from its NumPy weights."""
    w1, b1 = (np.asarray(a) for a in (model.first.weight, model.first.bias))
    w2 = np.asarray(model.second.weight)
    return model.scale * jnp.tanh(w2 @ jnp.tanh(w1 @ x + b1))


def test_fields_are_leaves_and_static_fields_structure():
    model = _pair()
    leaves, treedef = fa.tree.flatten(model)
    # None (second.bias) is an empty subtree; the Python float 2.0 is a leaf.
    assert [np.shape(x) for x in leaves] == [(3, 3), (3,), (3, 3), ()]
    assert leaves[3] == 2.0
    rebuilt = fa.tree.unflatten(treedef, leaves)
    assert type(rebuilt) is Pair and rebuilt.second.bias is None
    assert rebuilt.first.activation is fnp.tanh and rebuilt.first.size == 3
    np.testing.assert_array_equal(rebuilt(fnp.ones(3)), model(fnp.ones(3)))
    # A static field is in the structure: another value is another treedef.
    other = Pair(model.first, model.second, tags=("x",))
    assert fa.tree.structure(other) != treedef
    relu_model = Pair(Affine(3, key=fa.random.key(1), activation=nn.relu), model.second)
    assert fa.tree.structure(relu_model) != treedef


def test_key_paths_name_fields():
    model = _pair()
    paths = [tree_util.keystr(p) for p, _ in tree_util.tree_leaves_with_path(model)]
    assert paths == [".first.weight", ".first.bias", ".second.weight", ".scale"]
    assert [p for p in fa.tree.flatten_with_path({"m": [model]})[0]] == [
        ("m", 0, "first", "weight"), ("m", 0, "first", "bias"),
        ("m", 0, "second", "weight"), ("m", 0, "scale")]


def test_tree_map_does_not_call_init():
    model = _pair()
    doubled = fa.tree.map(lambda x: x * 2, model)
    np.testing.assert_array_equal(doubled.first.weight, np.asarray(model.first.weight) * 2)
    assert doubled.scale == 4.0 and doubled.first.size == 3


def test_modules_are_immutable():
    model = _pair()
    with pytest.raises(dataclasses.FrozenInstanceError, match="tree_at"):
        model.scale = 3.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        del model.first
    assert dataclasses.is_dataclass(model)
    assert [f.name for f in dataclasses.fields(Pair)] == ["first", "second", "scale", "tags"]


def test_init_errors():
    class Forgets(nn.Module):
        a: fa.Array
        b: fa.Array

        def __init__(self):
            self.a = fnp.ones(1)

    with pytest.raises(TypeError, match=r"Forgets.__init__ did not set the field 'b'"):
        Forgets()

    class Unhashable(nn.Module):
        sizes: list = nn.field(static=True)

    with pytest.raises(TypeError, match=r"static field 'sizes' holds an unhashable list"):
        Unhashable([1, 2])


def test_subclass_inherits_custom_init_and_adds_fields():
    class Named(Affine):
        label: str = nn.field(static=True, default="layer")

    m = Named(2, key=fa.random.key(0))
    assert m.label == "layer" and m.size == 2
    assert repr(m) == "Named(weight=float32[2,2], bias=float32[2], size=2, activation=tanh, " \
                      "label='layer')"


def test_abstract_modules():
    class Layer(nn.Module):
        @abc.abstractmethod
        def __call__(self, x): ...

    class Double(Layer):
        def __call__(self, x):
            return 2 * x

    with pytest.raises(TypeError, match="abstract"):
        Layer()
    assert float(Double()(fnp.float32(3.0))) == 6.0 and isinstance(Double(), Layer)
    assert fa.tree.leaves(nn.Module()) == [] and repr(nn.Module()) == "Module()"


def test_grad_jit_vmap_of_a_module_match_jax():
    model = _pair()
    x = np.linspace(-1, 1, 3).astype(np.float32)

    def loss(m, x):
        return fnp.sum(m(x) ** 2)

    grads = fa.grad(loss)(model, x)
    assert type(grads) is Pair and grads.second.bias is None

    def jax_loss(w1, b1, w2, x):
        m = model
        return jnp.sum((m.scale * jnp.tanh(w2 @ jnp.tanh(w1 @ x + b1))) ** 2)

    expected = jax.grad(jax_loss, argnums=(0, 1, 2))(
        *(np.asarray(a) for a in (model.first.weight, model.first.bias, model.second.weight)),
        x)
    for got, want in zip((grads.first.weight, grads.first.bias, grads.second.weight), expected,
                         strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(fa.jit(lambda m, x: m(x))(model, x), _reference(model, x),
                               rtol=1e-6)
    xs = np.random.default_rng(0).normal(size=(4, 3)).astype(np.float32)
    batched = fa.vmap(lambda m, x: m(x), in_axes=(None, 0))(model, xs)
    np.testing.assert_allclose(batched, np.stack([model(x) for x in xs]), rtol=1e-6)


def test_filter_jit_static_leaves_and_retracing():
    traces = []

    @nn.filter_jit
    def apply(model, x, times, name="f"):
        traces.append(times)
        for _ in range(times):
            x = model(x)
        return x, times, name

    model = _pair()
    x = fnp.ones(3)
    out, times, name = apply(model, x, 2)
    assert (times, name) == (2, "f")
    np.testing.assert_allclose(out, model(model(x)), rtol=1e-6)
    apply(model, x + 1, 2)
    assert traces == [2]  # same static values and shapes: cached
    apply(model, x, 1)
    apply(fa.tree.map(lambda a: a + 1 if nn.is_array(a) else a, model), x, 1)
    assert traces == [2, 1]  # new array values: cached
    apply(fa.tree.map(lambda a: a + 1, model), x, 1)  # scale, a Python float, is static
    assert traces == [2, 1, 1]
    other = Pair(model.first, model.second, tags=("t",))  # a new static field value
    apply(other, x, 1)
    assert traces == [2, 1, 1, 1]
    assert apply(model, x, 1, 1)[2] == 1
    out = apply(model, x, 1, 1.0)  # 1.0 == 1 but another type: compiled apart
    assert type(out[2]) is float and len(traces) == 6


def test_filter_jit_unhashable_leaf_error():
    f = nn.filter_jit(lambda x, s: x)
    with pytest.raises(TypeError, match=r"filter_jit.*the leaf at argument 1.a is a set"):
        f(fnp.ones(1), {"a": {1, 2}})


def test_filter_grad_differentiates_inexact_arrays_only():
    params = {"w": fnp.asarray([1.0, 2.0]), "ids": fnp.asarray([0, 1]), "n": 3,
              "half": fnp.asarray([1.0], dtype="float16")}

    def loss(p, x):
        return fnp.sum(p["w"][p["ids"]] * x) * p["n"] + fnp.sum(p["half"]).astype("float32")

    value, grads = nn.filter_value_and_grad(loss)(params, fnp.asarray([3.0, 4.0]))
    assert float(value) == (3.0 + 8.0) * 3 + 1.0
    assert grads["ids"] is None and grads["n"] is None
    np.testing.assert_array_equal(grads["w"], [9.0, 12.0])
    assert grads["half"].dtype == np.float16
    g, aux = nn.filter_grad(lambda p: (fnp.sum(p["w"] ** 2), p["n"] + 1.0), has_aux=True)(params)
    assert float(aux) == 4.0
    np.testing.assert_array_equal(g["w"], [2.0, 4.0])


def test_filter_vmap_maps_arrays_and_passes_other_leaves():
    model = _pair()
    xs = np.random.default_rng(1).normal(size=(4, 3)).astype(np.float32)

    def apply(m, x, times):
        for _ in range(times):  # a Python int: passed to every member, never mapped
            x = m(x)
        return x, times

    out, times = nn.filter_vmap(apply, in_axes=(None, 0, None))(model, xs, 2)
    assert times == 2
    np.testing.assert_allclose(out, np.stack([model(model(x)) for x in xs]), rtol=1e-6)
    # An ensemble: a stack of models (their arrays gain a leading axis; the Python scale
    # and the static fields stay single), each applied to the same input.
    models = [fa.tree.map(lambda a, k=k: a * k if nn.is_array(a) else a, model)
              for k in (1.0, -0.5, 2.0)]
    stacked = fa.tree.map(lambda *a: fnp.stack(a) if nn.is_array(a[0]) else a[0], *models)
    x = xs[0]
    ensemble = nn.filter_vmap(in_axes=(0, None))(lambda m, x: m(x))
    np.testing.assert_allclose(ensemble(stacked, x), np.stack([m(x) for m in models]),
                               rtol=1e-6)
    np.testing.assert_allclose(nn.filter_jit(ensemble)(stacked, x),
                               np.stack([m(x) for m in models]), rtol=1e-6)
    moved = nn.filter_vmap(lambda x, k: x * k, out_axes=1)(fnp.asarray(xs), 2.0)
    np.testing.assert_allclose(moved, (xs * 2).T, rtol=1e-6)
    with pytest.raises(TypeError, match="filter_vmap.*in_axes"):
        nn.filter_vmap(lambda a, b: a, in_axes=(0, None, 0))(fnp.ones(2), fnp.ones(2))


def test_predicates():
    assert nn.is_array(np.zeros(2)) and nn.is_array(np.float32(1.0)) and nn.is_array(fnp.ones(1))
    assert nn.is_array(fa.random.key(0)) and not nn.is_inexact_array(fa.random.key(0))
    assert not nn.is_array(1.0) and not nn.is_array([1.0])
    assert nn.is_inexact_array(fnp.ones(1, dtype="bfloat16"))
    assert nn.is_inexact_array(fnp.ones(1, dtype="complex64"))
    assert not nn.is_inexact_array(fnp.ones(1, dtype=bool))
    seen = []
    fa.vmap(lambda x: seen.append(nn.is_inexact_array(x)) or x)(fnp.ones(2))
    assert seen == [True]


_trees = st.recursive(
    st.one_of(st.integers(-3, 3), st.floats(-2, 2), st.none()),
    lambda children: st.one_of(st.lists(children, max_size=3).map(tuple),
                               st.dictionaries(st.sampled_from("abc"), children, max_size=3)),
    max_leaves=8)


@settings(max_examples=60, deadline=None)
@given(_trees)
def test_partition_combine_round_trip(tree):
    def is_float(x):
        return isinstance(x, float)
    kept, rest = fa.tree.partition(tree, is_float)
    assert all(isinstance(x, float) for x in fa.tree.leaves(kept))
    assert not any(isinstance(x, float) for x in fa.tree.leaves(rest))
    assert fa.tree.combine(kept, rest) == tree
    assert fa.tree.structure(fa.tree.combine(kept, rest)) == fa.tree.structure(tree)
    # A mask tree gives the same split as the predicate it was made from.
    mask = fa.tree.map(is_float, tree)
    assert fa.tree.partition(tree, mask) == (kept, rest)
    marked, _ = fa.tree.partition(tree, is_float, replace="x")
    assert fa.tree.leaves(marked) == [x if is_float(x) else "x" for x in fa.tree.leaves(tree)]


def test_partition_prefix_spec_and_errors():
    tree = {"enc": (1.0, 2.0), "dec": (3.0, 4.0)}
    kept, rest = fa.tree.partition(tree, {"enc": True, "dec": lambda x: x > 3})
    assert kept == {"dec": (None, 4.0), "enc": (1.0, 2.0)}
    assert rest == {"dec": (3.0, None), "enc": (None, None)}
    with pytest.raises(ValueError, match="prefix"):
        fa.tree.partition(tree, {"enc": True})
    with pytest.raises(TypeError, match="bools or predicates"):
        fa.tree.partition(tree, {"enc": 1, "dec": True})
    assert fa.tree.combine((None, 2), (1, None), (5, 6)) == (1, 2)


def test_equal_static_values_of_other_types_are_rebuilt_as_given():
    class Scaled(nn.Module):
        w: fa.Array
        scale: object = nn.field(static=True)

    for scale in (1, 1.0, True, 1, 1.0):  # equal values, one cached structure
        model = Scaled(fnp.ones(1), scale)
        rebuilt = fa.tree.map(lambda x: x, model)
        assert type(rebuilt.scale) is type(scale)
        leaves, treedef = fa.tree.flatten(model)
        assert type(fa.tree.unflatten(treedef, leaves).scale) is type(scale)
