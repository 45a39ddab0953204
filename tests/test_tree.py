"""funcarray.tree / funcarray.tree_util against jax.tree_util's semantics."""

import collections
import dataclasses

import jax
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import funcarray as fa
import funcarray.numpy as fnp
from funcarray import tree_util

Point = collections.namedtuple("Point", ["x", "y"])

leaves_st = st.one_of(st.integers(-5, 5), st.floats(-2, 2, allow_nan=False), st.none())
trees_st = st.recursive(
    leaves_st,
    lambda children: st.one_of(
        st.lists(children, max_size=3),
        st.tuples(children, children),
        st.dictionaries(st.sampled_from("abcde"), children, max_size=3),
        st.builds(Point, children, children),
    ),
    max_leaves=8,
)


@given(trees_st)
def test_leaves_and_roundtrip_match_jax(tree):
    ours_leaves, treedef = fa.tree.flatten(tree)
    theirs_leaves, jax_treedef = jax.tree_util.tree_flatten(tree)
    assert ours_leaves == theirs_leaves  # None is an empty subtree in both
    assert fa.tree.unflatten(treedef, ours_leaves) == tree
    assert treedef.num_leaves == jax_treedef.num_leaves


@given(trees_st)
def test_map_matches_jax(tree):
    def f(x):
        return x * 2
    assert fa.tree.map(f, tree) == jax.tree_util.tree_map(f, tree)


def test_none_is_an_empty_subtree_and_dict_keys_sorted():
    assert fa.tree.leaves({"b": 1, "a": None, "c": (2, None)}) == [1, 2]
    assert fa.tree.leaves({"z": 1, "a": 2}) == [2, 1]


def test_map_over_several_trees_and_prefix_errors():
    assert fa.tree.map(lambda a, b: a + b, {"x": 1, "y": 2}, {"x": 10, "y": 20}) == {
        "x": 11, "y": 22}
    with pytest.raises(ValueError):
        fa.tree.map(lambda a, b: a + b, (1, 2), (1, 2, 3))


def test_register_pytree_node_uses_jax_signature():
    class Box:
        def __init__(self, value, label):
            self.value, self.label = value, label

    fa.tree.register_pytree_node(Box, lambda b: ((b.value,), b.label),
                                 lambda label, children: Box(children[0], label))
    doubled = fa.tree.map(lambda v: v * 2, Box(fnp.ones(2), "w"))
    assert isinstance(doubled, Box) and doubled.label == "w"
    assert doubled.value.tolist() == [2.0, 2.0]


def test_register_dataclass_with_meta_fields():
    @dataclasses.dataclass
    class Layer:
        w: object
        b: object
        name: str

    tree_util.register_dataclass(Layer, data_fields=["w", "b"], meta_fields=["name"])
    layer = Layer(fnp.ones(2), fnp.zeros(2), "dense")
    leaves, treedef = fa.tree.flatten(layer)
    assert len(leaves) == 2
    rebuilt = fa.tree.unflatten(treedef, [x + 1 for x in leaves])
    assert rebuilt.name == "dense" and rebuilt.b.tolist() == [1.0, 1.0]


def test_structure_all_reduce_transpose_and_paths():
    tree = {"a": [1, 2], "b": 3}
    assert fa.tree.structure(tree).num_leaves == 3
    assert fa.tree.all([True, (1, 2)]) and not fa.tree.all([True, 0])
    assert fa.tree.reduce(lambda x, y: x + y, tree) == 6
    assert fa.tree.reduce(lambda x, y: x + y, tree, 10) == 16
    paths, leaves, _ = fa.tree.flatten_with_path(tree)
    assert paths == [("a", 0), ("a", 1), ("b",)] and leaves == [1, 2, 3]
    outer, inner = fa.tree.structure([0, 0]), fa.tree.structure((0, 0))
    assert fa.tree.transpose(outer, inner, [(1, 2), (3, 4)]) == ([1, 3], [2, 4])


def test_tree_util_names_match_jax():
    for name in ("tree_map", "tree_flatten", "tree_unflatten", "tree_leaves", "tree_structure",
                 "tree_reduce", "tree_all", "tree_transpose", "register_pytree_node"):
        assert hasattr(tree_util, name) and hasattr(jax.tree_util, name), name


def test_arrays_are_leaves():
    params = {"w": fnp.ones((2, 2)), "b": np.zeros(3)}
    leaves = fa.tree.leaves(params)
    assert len(leaves) == 2 and isinstance(leaves[0], np.ndarray)  # "b" sorts first
