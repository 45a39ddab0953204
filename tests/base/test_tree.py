"""funcarray.tree / funcarray.tree_util against jax.tree_util's semantics."""

import collections
import dataclasses
import functools
import inspect
import pickle

import jax
import jax.numpy as jnp
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


def test_transpose_takes_jax_arguments():
    assert (list(inspect.signature(fa.tree.transpose).parameters)
            == list(inspect.signature(jax.tree.transpose).parameters))
    trees = {"a": [1, 2], "b": [3, 4]}
    got = fa.tree.transpose(fa.tree.structure({"a": 0, "b": 0}), None,
                            pytree_to_transpose=trees)
    want = jax.tree.transpose(jax.tree.structure({"a": 0, "b": 0}), None,
                              pytree_to_transpose=trees)
    assert got == want == [{"a": 1, "b": 3}, {"a": 2, "b": 4}]


# jax.tree_util names funcarray leaves out: the registry object, and one-level flattening
# (its aux data is registry-specific: optree's differs from jaxlib's for builtins).
_SKIPPED_JAX_NAMES = {"default_registry", "flatten_one_level", "flatten_one_level_with_keys"}


def test_tree_util_names_match_jax():
    public = {n for n in dir(jax.tree_util) if not n.startswith("_")}
    missing = sorted(public - _SKIPPED_JAX_NAMES - set(dir(tree_util)))
    assert not missing
    assert set(tree_util.__all__) <= public


def test_arrays_are_leaves():
    params = {"w": fnp.ones((2, 2)), "b": np.zeros(3)}
    leaves = fa.tree.leaves(params)
    assert len(leaves) == 2 and isinstance(leaves[0], np.ndarray)  # "b" sorts first


# ---------------------------------------------------------------------- tree_util: key paths
#
# Each custom class below is registered twice, with jax.tree_util and with funcarray.tree_util
# (separate registries), so the same tree can go through both.


def _register_both(name, *args, **kwargs):
    getattr(jax.tree_util, name)(*args, **kwargs)
    getattr(tree_util, name)(*args, **kwargs)


@dataclasses.dataclass
class StaticFirst:  # a static field before the data fields: key names must skip it
    act: str = dataclasses.field(metadata=dict(static=True))
    w: object = 1.0
    b: object = 2.0


@dataclasses.dataclass
class Listed:
    w: object
    n: int


@dataclasses.dataclass
class PlainDataclassNode:  # a dataclass registered as a plain node: no names, as in JAX
    a: object
    b: object


class CustomPair:
    def __init__(self, a, b):
        self.a, self.b = a, b

    def __eq__(self, other):
        return type(other) is CustomPair and (self.a, self.b) == (other.a, other.b)


class ClassNode:
    def __init__(self, x, y, tag):
        self.x, self.y, self.tag = x, y, tag

    def tree_flatten(self):
        return (self.x, self.y), self.tag

    @classmethod
    def tree_unflatten(cls, tag, children):
        return cls(*children, tag)


class Keyed:
    def __init__(self, a, b):
        self.a, self.b = a, b


_register_both("register_dataclass", StaticFirst)
_register_both("register_dataclass", Listed, data_fields=["w"], meta_fields=["n"])
_register_both("register_pytree_node", PlainDataclassNode, lambda d: ((d.b, d.a), None),
               lambda aux, ch: PlainDataclassNode(ch[1], ch[0]))
_register_both("register_pytree_node", CustomPair, lambda p: ((p.a, p.b), "aux"),
               lambda aux, ch: CustomPair(*ch))
_register_both("register_pytree_node_class", ClassNode)
jax.tree_util.register_pytree_with_keys(
    Keyed, lambda k: (((jax.tree_util.GetAttrKey("a"), k.a),
                       (jax.tree_util.DictKey("bee"), k.b)), None),
    lambda aux, ch: Keyed(*ch))
tree_util.register_pytree_with_keys(
    Keyed, lambda k: (((tree_util.GetAttrKey("a"), k.a), (tree_util.DictKey("bee"), k.b)), None),
    lambda aux, ch: Keyed(*ch))


def _custom_tree(module):
    """The same tree of every node kind, built with ``module``'s Partial."""
    return {
        "p": Point(1, [2, None]), "s": StaticFirst("relu", 3.0, (4.0,)), "l": Listed(5.0, 7),
        "c": CustomPair(6, (7, 8)), "dn": PlainDataclassNode(9, 10), "k": Keyed(11, 12),
        "cls": ClassNode(13, [14], "tag"), "o": collections.OrderedDict(z=15, a=16),
        "dd": collections.defaultdict(list, {"b": 17, "a": 18}), "n": None,
        "part": module.Partial(max, 19, key=20), "t": (21, {"y": 22, "x": None}),
    }


def _same_keypaths(ours, theirs):
    """Key paths agree as strings (both keystr forms) and as key types and attributes."""
    assert len(ours) == len(theirs)
    for path, jax_path in zip(ours, theirs):
        assert tree_util.keystr(path) == jax.tree_util.keystr(jax_path)
        assert (tree_util.keystr(path, simple=True, separator="/")
                == jax.tree_util.keystr(jax_path, simple=True, separator="/"))
        assert [repr(k) for k in path] == [repr(k) for k in jax_path]  # type(attr=value)
        assert [type(k).__name__ for k in path] == [type(k).__name__ for k in jax_path]


def test_key_classes_match_jax():
    pairs = [(tree_util.DictKey("a"), jax.tree_util.DictKey("a")),
             (tree_util.DictKey(3), jax.tree_util.DictKey(3)),
             (tree_util.SequenceKey(0), jax.tree_util.SequenceKey(0)),
             (tree_util.GetAttrKey("w"), jax.tree_util.GetAttrKey("w")),
             (tree_util.FlattenedIndexKey(2), jax.tree_util.FlattenedIndexKey(2))]
    for ours, theirs in pairs:
        assert (repr(ours), str(ours)) == (repr(theirs), str(theirs))
        assert type(ours).__match_args__ == type(theirs).__match_args__
        assert tree_util.keystr((ours,), simple=True) == jax.tree_util.keystr((theirs,),
                                                                             simple=True)
        assert pickle.loads(pickle.dumps(ours)) == ours
    assert str(tree_util.DictKey("a")) == "['a']" and str(tree_util.SequenceKey(0)) == "[0]"
    assert str(tree_util.GetAttrKey("w")) == ".w"
    assert str(tree_util.FlattenedIndexKey(0)) == "[<flat index 0>]"
    # Frozen, hashable, equal by type and value.
    keys = {tree_util.DictKey("a"), tree_util.DictKey("a"), tree_util.SequenceKey(0),
            tree_util.FlattenedIndexKey(0)}
    assert len(keys) == 3 and tree_util.DictKey(0) != tree_util.SequenceKey(0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        tree_util.DictKey("a").key = "b"
    match tree_util.SequenceKey(4):
        case tree_util.SequenceKey(idx):
            assert idx == 4
    assert tree_util.SequenceKey(np.int64(1)) == tree_util.SequenceKey(1)


@pytest.mark.parametrize("make", [lambda: tree_util.SequenceKey("a"),
                                  lambda: tree_util.FlattenedIndexKey(1.5),
                                  lambda: tree_util.GetAttrKey(3)])
def test_key_classes_reject_bad_types_like_jax(make):
    with pytest.raises(TypeError):
        make()


def test_keystr_options():
    path = (tree_util.DictKey("layers"), tree_util.SequenceKey(0), tree_util.GetAttrKey("w"),
            tree_util.FlattenedIndexKey(1))
    assert tree_util.keystr(path) == "['layers'][0].w[<flat index 1>]"
    assert tree_util.keystr(path, simple=True) == "layers0w1"
    assert tree_util.keystr(path, simple=True, separator=".") == "layers.0.w.1"
    assert tree_util.keystr(path, separator="|") == "['layers']|[0]|.w|[<flat index 1>]"
    assert tree_util.keystr(()) == jax.tree_util.keystr(()) == ""
    assert tree_util.keystr(("raw", 3), simple=True) == "raw3"  # not keys: str() as in JAX


str_trees_st = st.recursive(
    st.one_of(st.integers(-5, 5), st.none()),
    lambda children: st.one_of(
        st.lists(children, max_size=3),
        st.tuples(children, children),
        st.dictionaries(st.sampled_from("abcde"), children, max_size=3),
        st.builds(Point, children, children),
    ),
    max_leaves=10,
)


@given(str_trees_st)
def test_flatten_with_path_matches_jax(tree):
    pairs, treedef = tree_util.tree_flatten_with_path(tree)
    jax_pairs, jax_treedef = jax.tree_util.tree_flatten_with_path(tree)
    _same_keypaths([p for p, _ in pairs], [p for p, _ in jax_pairs])
    assert [x for _, x in pairs] == [x for _, x in jax_pairs]
    assert treedef == fa.tree.structure(tree) and treedef.num_leaves == jax_treedef.num_leaves
    assert tree_util.tree_leaves_with_path(tree) == pairs


@given(str_trees_st)
def test_map_with_path_matches_jax(tree):
    ours = tree_util.tree_map_with_path(lambda p, x, y: (tree_util.keystr(p), x, y), tree, tree)
    theirs = jax.tree_util.tree_map_with_path(
        lambda p, x, y: (jax.tree_util.keystr(p), x, y), tree, tree)
    assert ours == theirs


@given(str_trees_st, st.integers(0, 3), st.booleans())
def test_is_leaf_takes_path_matches_jax(tree, depth, none_too):
    def is_leaf(path, x):  # a None it accepts becomes a leaf, in both
        return len(path) >= depth and (none_too or x is not None)

    pairs, treedef = tree_util.tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path=True)
    jax_pairs, jax_treedef = jax.tree_util.tree_flatten_with_path(
        tree, is_leaf, is_leaf_takes_path=True)
    _same_keypaths([p for p, _ in pairs], [p for p, _ in jax_pairs])
    assert [x for _, x in pairs] == [x for _, x in jax_pairs]
    assert treedef.num_leaves == jax_treedef.num_leaves == len(pairs)
    assert tree_util.tree_unflatten(treedef, [x for _, x in pairs]) == tree


def test_flatten_with_path_on_every_node_kind_matches_jax():
    pairs, treedef = tree_util.tree_flatten_with_path(_custom_tree(tree_util))
    jax_pairs, jax_treedef = jax.tree_util.tree_flatten_with_path(_custom_tree(jax.tree_util))
    _same_keypaths([p for p, _ in pairs], [p for p, _ in jax_pairs])
    assert [x for _, x in pairs] == [x for _, x in jax_pairs]
    assert treedef.num_leaves == jax_treedef.num_leaves
    by_str = {tree_util.keystr(p): p for p, _ in pairs}
    # Spot checks of the key objects themselves.
    assert by_str["['s'].w"][1] == tree_util.GetAttrKey("w")  # not 'act', the static field
    assert by_str["['c'][<flat index 1>][0]"][1] == tree_util.FlattenedIndexKey(1)
    assert by_str["['dn'][<flat index 0>]"][1] == tree_util.FlattenedIndexKey(0)
    assert by_str["['cls'][<flat index 1>][0]"][2] == tree_util.SequenceKey(0)
    assert by_str["['k']['bee']"][1] == tree_util.DictKey("bee")
    assert by_str["['p'].y[0]"][1].name == "y"
    assert "['n']" not in by_str and "['t'][1]['x']" not in by_str  # None: no leaves


def test_is_leaf_on_custom_nodes_matches_jax():
    def is_leaf(x):
        return isinstance(x, (CustomPair, Point))

    pairs, _ = tree_util.tree_flatten_with_path(_custom_tree(tree_util), is_leaf=is_leaf)
    jax_pairs, _ = jax.tree_util.tree_flatten_with_path(_custom_tree(jax.tree_util),
                                                        is_leaf=is_leaf)
    _same_keypaths([p for p, _ in pairs], [p for p, _ in jax_pairs])

    def is_leaf_path(path, x):
        return bool(path) and isinstance(path[-1], (tree_util.FlattenedIndexKey,
                                                    jax.tree_util.FlattenedIndexKey))

    pairs, treedef = tree_util.tree_flatten_with_path(
        _custom_tree(tree_util), is_leaf_path, is_leaf_takes_path=True)
    jax_pairs, jax_treedef = jax.tree_util.tree_flatten_with_path(
        _custom_tree(jax.tree_util), is_leaf_path, is_leaf_takes_path=True)
    _same_keypaths([p for p, _ in pairs], [p for p, _ in jax_pairs])
    assert treedef.num_leaves == jax_treedef.num_leaves


def test_map_with_path_on_every_node_kind_matches_jax():
    ours = tree_util.tree_map_with_path(
        lambda p, x: f"{tree_util.keystr(p)}={x}", _custom_tree(tree_util))
    theirs = jax.tree_util.tree_map_with_path(
        lambda p, x: f"{jax.tree_util.keystr(p)}={x}", _custom_tree(jax.tree_util))
    assert tree_util.tree_leaves(ours) == jax.tree_util.tree_leaves(theirs)
    assert ours["s"] == StaticFirst("relu", "['s'].w=3.0", ("['s'].b[0]=4.0",))
    assert ours["l"].n == 7 and ours["cls"].tag == "tag"
    # Several trees, and is_leaf.
    add = tree_util.tree_map_with_path(lambda p, x, y: x + y, {"a": [1, 2]}, {"a": [10, 20]})
    assert add == {"a": [11, 22]}
    whole = tree_util.tree_map_with_path(lambda p, x: tree_util.keystr(p),
                                         {"a": Point(1, 2)}, is_leaf=lambda x: isinstance(
                                             x, Point))
    assert whole == {"a": "['a']"}
    with pytest.raises(ValueError):
        tree_util.tree_map_with_path(lambda p, x, y: x, [1, 2], [1, 2, 3])


def test_funcarray_tree_paths_are_unchanged():
    # funcarray.tree keeps its optree-style paths (plain keys and flattening indices), which
    # checkpoint names are built from.
    tree = {"s": StaticFirst("relu", 1.0, 2.0), "c": CustomPair(3, 4), "p": Point(5, 6)}
    paths, leaves, _ = fa.tree.flatten_with_path(tree)
    assert paths == [("c", 0), ("c", 1), ("p", 0), ("p", 1), ("s", 0), ("s", 1)]
    assert leaves == [3, 4, 5, 6, 1.0, 2.0]
    assert fa.tree.map_with_path(lambda p, x: p, {"s": StaticFirst("x", 1.0, 2.0)})["s"].w == (
        "s", 0)


# ---------------------------------------------------------------------- registration


def test_register_pytree_node_class_through_jit_and_grad():
    node = ClassNode(np.arange(3.0), np.ones(3), "t")

    def f(n):
        return (n.x * n.y * 2).sum() if n.tag == "t" else n.x.sum()

    assert float(fa.jit(f)(node)) == float(jax.jit(f)(node)) == 6.0
    grads = fa.grad(f)(node)
    jax_grads = jax.grad(f)(node)
    assert isinstance(grads, ClassNode) and grads.tag == "t"
    np.testing.assert_allclose(np.asarray(grads.x), np.asarray(jax_grads.x))
    np.testing.assert_allclose(np.asarray(grads.y), np.asarray(jax_grads.y))


def test_register_pytree_node_class_returns_the_class():
    class Fresh:
        def __init__(self, v):
            self.v = v

        def tree_flatten(self):
            return (self.v,), None

        @classmethod
        def tree_unflatten(cls, aux, children):
            return cls(*children)

    assert tree_util.register_pytree_node_class(Fresh) is Fresh
    assert tree_util.tree_map(lambda v: v + 1, Fresh(1)).v == 2
    assert tree_util.keystr(tree_util.tree_leaves_with_path(Fresh(1))[0][0]) == "[<flat index 0>]"


def test_register_pytree_node_with_keys_func_and_static():
    class Named:
        def __init__(self, x):
            self.x = x

    tree_util.register_pytree_node(
        Named, lambda n: ((n.x,), None), lambda aux, ch: Named(*ch),
        lambda n: (((tree_util.GetAttrKey("x"), n.x),), None))
    assert tree_util.keystr(tree_util.tree_leaves_with_path([Named(1)])[0][0]) == "[0].x"

    @tree_util.register_pytree_with_keys_class
    class Cell:
        def __init__(self, h):
            self.h = h

        def tree_flatten_with_keys(self):
            return ((tree_util.DictKey("h"), self.h),), None

        @classmethod
        def tree_unflatten(cls, aux, children):
            return cls(*children)

    assert tree_util.tree_map(lambda v: v * 2, Cell(4)).h == 8
    assert tree_util.keystr(tree_util.tree_leaves_with_path(Cell(4))[0][0]) == "['h']"

    @tree_util.register_static
    class Mode(str):
        pass

    assert tree_util.tree_leaves([1, Mode("train")]) == [1]
    calls = []

    @fa.jit
    def f(x, mode):
        calls.append(mode)
        return x * 2 if mode == "double" else x

    f(fnp.ones(2), Mode("double"))
    f(fnp.ones(2), Mode("double"))
    assert f(fnp.ones(2), Mode("same")).tolist() == [1.0, 1.0] and len(calls) == 2


# ---------------------------------------------------------------------- Partial


def test_partial_through_jit_grad_vmap_matches_jax():
    def affine(w, x, b=0.0):
        return w * x + b

    w, b, x = np.array([1.0, 2.0]), np.array(0.5), np.array([3.0, 4.0])
    ours = tree_util.Partial(affine, fnp.asarray(w), b=fnp.asarray(b))
    theirs = jax.tree_util.Partial(affine, jnp.asarray(w), b=jnp.asarray(b))

    def loss(p, x):
        return (p(x) ** 2).sum()

    assert float(fa.jit(loss)(ours, x)) == pytest.approx(float(jax.jit(loss)(theirs, x)))
    grads, jax_grads = fa.grad(loss)(ours, x), jax.grad(loss)(theirs, x)
    assert isinstance(grads, tree_util.Partial) and grads.func is affine
    np.testing.assert_allclose(np.asarray(grads.args[0]), np.asarray(jax_grads.args[0]))
    np.testing.assert_allclose(np.asarray(grads.keywords["b"]),
                               np.asarray(jax_grads.keywords["b"]))
    xs = np.arange(6.0).reshape(3, 2)
    np.testing.assert_allclose(
        np.asarray(fa.vmap(lambda p, x: p(x), in_axes=(None, 0))(ours, xs)),
        np.asarray(jax.vmap(lambda p, x: p(x), in_axes=(None, 0))(theirs, xs)))
    # A batched Partial: its leaves are mapped over too.
    batched = tree_util.Partial(affine, fnp.ones((3, 2)), b=fnp.arange(3.0))
    out = fa.vmap(lambda p, x: p(x))(batched, xs)
    np.testing.assert_allclose(np.asarray(out), xs + np.arange(3.0)[:, None])


def test_partial_is_a_pytree_with_static_function():
    p = tree_util.Partial(max, 1, key=abs)
    assert p(-5) == -5 and tree_util.tree_leaves(p) == [1, abs]  # max(1, -5, key=abs)
    assert tree_util.tree_map(lambda v: v, p).func is max
    assert (tree_util.tree_structure(tree_util.Partial(np.add, 1))
            == tree_util.tree_structure(tree_util.Partial(np.add, 2)))
    assert (tree_util.tree_structure(tree_util.Partial(np.add, 1))
            != tree_util.tree_structure(tree_util.Partial(np.subtract, 1)))
    # A functools.partial inside stays whole (its arguments are not the Partial's leaves).
    inner = functools.partial(np.add, 1)
    wrapped = tree_util.Partial(inner, 2)
    assert wrapped() == 3 and tree_util.tree_leaves(wrapped) == [2]
    assert tree_util.tree_leaves(wrapped) == jax.tree_util.tree_leaves(
        jax.tree_util.Partial(inner, 2))
    traces = []

    @fa.jit
    def call(f, x):
        traces.append(1)
        return f(x)

    call(tree_util.Partial(fnp.multiply, fnp.ones(2)), fnp.ones(2))
    call(tree_util.Partial(fnp.multiply, fnp.zeros(2)), fnp.ones(2))
    assert len(traces) == 1  # same function, new leaves: no retrace
    call(tree_util.Partial(fnp.add, fnp.ones(2)), fnp.ones(2))
    assert len(traces) == 2


# ---------------------------------------------------------------------- register_dataclass


def test_register_dataclass_static_metadata_through_grad_and_jit():
    @fa.tree.register_dataclass
    @dataclasses.dataclass
    class Layer:
        w: object
        act: str = dataclasses.field(default="double", metadata=dict(static=True))

    @jax.tree_util.register_dataclass
    @dataclasses.dataclass
    class JaxLayer:
        w: object
        act: str = dataclasses.field(default="double", metadata=dict(static=True))

    assert fa.tree.leaves(Layer(1.0, "x")) == jax.tree_util.tree_leaves(JaxLayer(1.0, "x"))
    assert fa.tree.structure(Layer(1.0, "a")) != fa.tree.structure(Layer(1.0, "b"))

    def loss(layer):
        return ((layer.w * 2) ** 2).sum() if layer.act == "double" else (layer.w ** 2).sum()

    w = np.array([1.0, 3.0])
    grads = fa.grad(loss)(Layer(fnp.asarray(w)))
    assert isinstance(grads, Layer) and grads.act == "double"
    np.testing.assert_allclose(np.asarray(grads.w),
                               np.asarray(jax.grad(loss)(JaxLayer(jnp.asarray(w))).w))
    traces = []

    @fa.jit
    def f(layer):
        traces.append(layer.act)
        return loss(layer)

    assert float(f(Layer(fnp.asarray(w)))) == 40.0
    assert float(f(Layer(fnp.asarray(w)))) == 40.0
    assert float(f(Layer(fnp.asarray(w), "plain"))) == 10.0
    assert traces == ["double", "plain"]  # the static field is in the cache key


def test_register_dataclass_meta_fields_only_infers_the_data_fields():
    @dataclasses.dataclass
    class Q:
        w: object
        act: str

    assert tree_util.register_dataclass(Q, meta_fields=["act"]) is Q
    leaves, treedef = fa.tree.flatten(Q(1.0, "relu"))
    assert leaves == [1.0]
    assert fa.tree.unflatten(treedef, [2.0]) == Q(2.0, "relu")
    assert float(fa.grad(lambda q: q.w * 3.0)(Q(fnp.asarray(1.0), "relu")).w) == 3.0


def test_register_dataclass_data_fields_only_and_factory_form():
    @dataclasses.dataclass
    class D:
        a: object
        b: object
        tag: str

    fa.tree.register_dataclass(D, data_fields=["b", "a"])  # order is the leaves' order
    assert fa.tree.leaves(D(1, 2, "t")) == [2, 1]
    assert fa.tree.map(lambda x: -x, D(1, 2, "t")) == D(-1, -2, "t")

    @fa.tree.register_dataclass(data_fields=["x"])
    @dataclasses.dataclass
    class E:
        x: object
        y: str

    assert fa.tree.leaves(E(1, "s")) == [1]
    # JAX's spelling of the same: functools.partial over the class argument.
    @functools.partial(tree_util.register_dataclass, data_fields=["x"], meta_fields=["y"])
    @dataclasses.dataclass
    class F:
        x: object
        y: str

    assert tree_util.tree_leaves(F(1, "s")) == [1]


def test_register_dataclass_non_dataclass_with_both_lists_matches_jax():
    class Obj:
        def __init__(self, a, b):
            self.a, self.b = a, b

    _register_both("register_dataclass", Obj, data_fields=["a"], meta_fields=["b"])
    pairs, treedef = tree_util.tree_flatten_with_path(Obj(1, "m"))
    jax_pairs, _ = jax.tree_util.tree_flatten_with_path(Obj(1, "m"))
    _same_keypaths([p for p, _ in pairs], [p for p, _ in jax_pairs])
    assert tree_util.tree_unflatten(treedef, [5]).b == "m"


def test_register_dataclass_drop_and_non_init_fields():
    @dataclasses.dataclass
    class D:
        x: object
        cache: object = None
        derived: object = dataclasses.field(init=False, default=0)

    # JAX itself rejects inferring here (it counts non-init and dropped fields); funcarray
    # infers the remaining init fields.
    tree_util.register_dataclass(D, drop_fields=["cache"])
    assert fa.tree.leaves(D(1, cache="c")) == [1]
    assert fa.tree.map(lambda v: v + 1, D(1, cache="c")) == D(2)

    @dataclasses.dataclass
    class E:
        x: object
        cache: object = None

    _register_both("register_dataclass", E, data_fields=["x"], meta_fields=[],
                   drop_fields=["cache"])
    assert fa.tree.leaves(E(1, 2)) == jax.tree_util.tree_leaves(E(1, 2)) == [1]


def _error_of(fn):
    with pytest.raises(Exception) as info:
        fn()
    return info.value


@pytest.mark.parametrize("kwargs, error, names", [
    (dict(data_fields=["x", "y"], meta_fields=["x"]), ValueError, ["overlap", "'x'"]),
    (dict(data_fields=["x"], meta_fields=[]), ValueError, ["Missing fields", "'y'"]),
    (dict(data_fields=["x", "y", "q"], meta_fields=[]), ValueError, ["Unexpected fields",
                                                                     "'q'"]),
    (dict(data_fields=["x"], meta_fields=["x"]), ValueError, ["Missing fields", "'y'"]),
])
def test_register_dataclass_errors_match_jax(kwargs, error, names):
    def make():
        @dataclasses.dataclass
        class D:
            x: object
            y: object
        return D

    ours = _error_of(lambda: tree_util.register_dataclass(make(), **kwargs))
    theirs = _error_of(lambda: jax.tree_util.register_dataclass(make(), **kwargs))
    assert type(ours) is type(theirs) is error
    for name in names:
        assert name in str(ours) and name in str(theirs)
    assert str(ours) == str(theirs)


@pytest.mark.parametrize("kwargs", [{}, dict(data_fields=["a"]), dict(meta_fields=["a"])])
def test_register_dataclass_non_dataclass_needs_both_lists(kwargs):
    class Obj:
        pass

    with pytest.raises(TypeError, match="data_fields and meta_fields"):
        tree_util.register_dataclass(Obj, **kwargs)
    with pytest.raises(TypeError):
        jax.tree_util.register_dataclass(Obj, **kwargs)


@pytest.mark.parametrize("kwargs, missing", [(dict(meta_fields=["q"]), "'q'"),
                                             (dict(data_fields=["x", "q"]), "'q'")])
def test_register_dataclass_one_list_still_validated(kwargs, missing):
    @dataclasses.dataclass
    class D:
        x: object
        y: object

    with pytest.raises(ValueError, match=f"Unexpected fields: {{{missing}}}"):
        tree_util.register_dataclass(D, **kwargs)


# ---------------------------------------------------------------------- the other names


def test_other_tree_util_functions_match_jax():
    tree = {"a": [1, (2, None)], "b": Point(0, 3)}
    assert tree_util.tree_all(tree) == jax.tree_util.tree_all(tree) is False
    assert tree_util.tree_all(tree, is_leaf=lambda x: isinstance(x, Point)) is True
    for t in (1, None, [1], (), {"a": None}):
        assert (tree_util.treedef_is_leaf(tree_util.tree_structure(t))
                == jax.tree_util.treedef_is_leaf(jax.tree_util.tree_structure(t))), t
    outer = tree_util.tree_structure([0, 0])
    assert (tree_util.tree_transpose(outer, None, [(1, 2), (3, 4)])
            == jax.tree_util.tree_transpose(jax.tree_util.tree_structure([0, 0]), None,
                                            [(1, 2), (3, 4)]))
    assert tree_util.tree_reduce(lambda a, b: a + b, tree) == 6
    for leaves in ([], [1], [1, 2, 3, 4, 5]):
        assert (tree_util.tree_reduce_associative(lambda a, b: a + b,
                                                  [[x] for x in leaves], identity=[])
                == jax.tree_util.tree_reduce_associative(lambda a, b: a + b,
                                                         [[x] for x in leaves], identity=[]))
    with pytest.raises(TypeError):
        tree_util.tree_reduce_associative(lambda a, b: a + b, [])
    prefix, full = {"a": 1, "b": [2]}, {"a": [1, 2], "b": [(3, 4)]}
    assert tree_util.tree_broadcast(prefix, full) == jax.tree_util.tree_broadcast(prefix, full)
    for items in ([1, 2.0], [1, [2]], [None], []):
        assert tree_util.all_leaves(items) == jax.tree_util.all_leaves(items), items
    for typ in (dict, list, tuple, type(None), Point, CustomPair, int, str):
        assert tree_util.is_tree_node(typ) == jax.tree_util.is_tree_node(typ), typ
    children = tree_util.treedef_children(tree_util.tree_structure([(1, 2), 3, {"a": 4}]))
    assert children == [tree_util.tree_structure(c) for c in [(1, 2), 3, {"a": 4}]]
    assert (tree_util.treedef_tuple([tree_util.tree_structure([1]), tree_util.tree_structure(2)])
            == tree_util.tree_structure(([1], 2)))
