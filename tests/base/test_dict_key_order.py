"""The key order of rebuilt dicts against jax: dicts and defaultdicts come back sorted,
OrderedDicts in their own order, from the tree functions and from jit, grad and vmap."""

import collections
import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
from hypothesis import given
from hypothesis import strategies as st

import funcarray as fa
import funcarray.numpy as fnp
from funcarray import tree_util

MAPPINGS = {
    "dict": dict,
    "OrderedDict": collections.OrderedDict,
    "defaultdict": lambda items: collections.defaultdict(list, items),
}


def _mapping(kind, keys, children):
    return MAPPINGS[kind](list(zip(keys, children)))


def _trees(leaves):
    """Nests of the three mappings (keys in any insertion order), lists and tuples."""
    return st.recursive(leaves, lambda children: st.one_of(
        st.builds(_mapping, st.sampled_from(sorted(MAPPINGS)),
                  st.permutations("dbca").map(lambda keys: keys[:3]),
                  st.lists(children, min_size=3, max_size=3)),
        st.lists(children, max_size=2),
        st.tuples(children, children),
    ), max_leaves=6)


def layout(tree):
    """The tree as nested lists in iteration order: what a user iterating it sees (types,
    keys in order, leaves as floats)."""
    if isinstance(tree, dict):
        return (type(tree).__name__, [(k, layout(v)) for k, v in tree.items()])
    if isinstance(tree, (list, tuple)):
        return (type(tree).__name__, [layout(v) for v in tree])
    return float(np.asarray(tree))


@given(_trees(st.integers(-3, 3)))
def test_tree_functions_rebuild_mappings_in_jaxs_key_order(tree):
    theirs_leaves, theirs_def = jax.tree_util.tree_flatten(tree)
    ours_leaves, ours_def = fa.tree.flatten(tree)
    assert ours_leaves == theirs_leaves
    rebuilt = [x * 10 for x in theirs_leaves]
    want = layout(jax.tree_util.tree_unflatten(theirs_def, rebuilt))
    assert layout(fa.tree.unflatten(ours_def, rebuilt)) == want
    assert layout(tree_util.tree_unflatten(tree_util.tree_structure(tree), rebuilt)) == want

    def f(x):
        return x * 10

    assert layout(fa.tree.map(f, tree)) == want
    assert layout(tree_util.tree_map(f, tree)) == want
    assert layout(fa.tree.map(lambda a, b: a * 10, tree, tree)) == want
    assert layout(tree_util.tree_map_with_path(lambda p, x: x * 10, tree)) == want
    assert layout(fa.tree.map_with_path(lambda p, x: x * 10, tree)) == want
    theirs_paths = [jax.tree_util.keystr(p)
                    for p, _ in jax.tree_util.tree_leaves_with_path(tree)]
    assert [tree_util.keystr(p) for p, _ in tree_util.tree_leaves_with_path(tree)] == (
        theirs_paths)


def _params(kind):
    return MAPPINGS[kind]([("w", np.float32([1.0, 2.0])), ("b", np.float32([3.0, 4.0])),
                           ("a", np.float32([5.0, 6.0]))])


def _outputs(lib, xnp, kind):
    """A program's outputs that rebuild a mapping of ``kind`` under jit, grad and vmap."""
    params = lib.tree_util.tree_map(xnp.asarray, _params(kind))

    def made_inside(x):  # a mapping built inside the function, keys unsorted
        return MAPPINGS[kind]([("z", x * 2.0), ("y", x)])

    def loss(p):
        return sum(xnp.sum(v * v) for v in p.values())

    return {
        "jit identity": lib.jit(lambda p: p)(params),
        "jit built": lib.jit(made_inside)(xnp.float32(1.0)),
        "grad": lib.grad(loss)(params),
        "vmap": lib.vmap(lambda p: lib.tree_util.tree_map(lambda v: v * 2.0, p))(params),
        "vmap built": lib.vmap(made_inside)(xnp.ones(2)),
    }


def test_transforms_rebuild_mappings_in_jaxs_key_order():
    for kind in MAPPINGS:
        theirs, ours = _outputs(jax, jnp, kind), _outputs(fa, fnp, kind)
        for name, out in theirs.items():
            assert type(ours[name]) is type(out), (kind, name)
            assert list(ours[name]) == list(out), (kind, name)
            for key in out:
                np.testing.assert_allclose(np.asarray(ours[name][key]), np.asarray(out[key]))


def test_flatten_hands_out_one_spec_per_structure_whatever_the_insertion_order():
    a = fa.tree.structure({"b": 1, "a": {"d": 2, "c": 3}})
    b = fa.tree.structure({"a": {"c": 3, "d": 2}, "b": 1})
    assert a == b
    assert list(fa.tree.unflatten(a, [1, 2, 3])) == list(fa.tree.unflatten(b, [1, 2, 3]))


def _layer_class():
    @dataclasses.dataclass
    class Layer:
        w: float
        act: object = dataclasses.field(default=1, metadata=dict(static=True))
    return Layer


def test_equal_structures_keep_their_own_static_fields():
    # Specs compare static (aux) data with ==: 1, 1.0 and True are one structure, yet each
    # tree must be rebuilt with its own, as jax does.
    ours_cls = tree_util.register_dataclass(_layer_class())
    theirs_cls = jax.tree_util.register_dataclass(_layer_class())
    for act in (1, 1.0, True, 1):
        ours = fa.tree.map(lambda x: x, {"b": ours_cls(1.0, act), "a": 0})
        theirs = jax.tree_util.tree_map(lambda x: x, {"b": theirs_cls(1.0, act), "a": 0})
        assert list(ours) == list(theirs)
        assert type(ours["b"].act) is type(theirs["b"].act) is type(act)
