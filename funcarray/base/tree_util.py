"""``jax.tree_util`` over ``funcarray.tree``, so JAX code ports by changing the import.

The names, signatures and results follow ``jax.tree_util``: key paths are tuples of
``DictKey`` / ``SequenceKey`` / ``GetAttrKey`` / ``FlattenedIndexKey`` that ``keystr`` prints
as JAX does, ``Partial`` is a pytree, and the ``register_*`` functions take JAX's arguments.
(``funcarray.tree`` keeps its own optree-style API: its paths are plain keys and indices.)

Example:
    >>> from funcarray import tree_util
    >>> tree_util.tree_map(lambda x: x + 1, [1, 2])
    [2, 3]
    >>> [tree_util.keystr(p) for p, _ in tree_util.tree_leaves_with_path({"a": [1, 2]})]
    ["['a'][0]", "['a'][1]"]
"""

from __future__ import annotations

import builtins
import dataclasses
import functools
import operator
from typing import TYPE_CHECKING, Any, TypeVar

import optree

from funcarray.base import pytrees as _tree
from funcarray.base.pytrees import _OPTS, NAMESPACE, PyTreeDef, register_dataclass, sorted_spec
from funcarray.base.pytrees import flatten as tree_flatten
from funcarray.base.pytrees import leaves as tree_leaves
from funcarray.base.pytrees import map as tree_map
from funcarray.base.pytrees import reduce as tree_reduce
from funcarray.base.pytrees import structure as tree_structure
from funcarray.base.pytrees import unflatten as tree_unflatten

__all__ = [
    "DictKey", "FlattenedIndexKey", "GetAttrKey", "KeyEntry", "KeyPath", "Partial", "PyTreeDef",
    "SequenceKey", "all_leaves", "is_tree_node", "keystr", "register_dataclass",
    "register_pytree_node", "register_pytree_node_class", "register_pytree_with_keys",
    "register_pytree_with_keys_class", "register_static", "tree_all", "tree_broadcast",
    "tree_flatten", "tree_flatten_with_path", "tree_leaves", "tree_leaves_with_path",
    "tree_map", "tree_map_with_path", "tree_reduce", "tree_reduce_associative",
    "tree_structure", "tree_transpose", "tree_unflatten", "treedef_children",
    "treedef_is_leaf", "treedef_tuple",
]

KeyEntry = TypeVar("KeyEntry", bound=Any)
KeyPath = tuple[KeyEntry, ...]

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from funcarray.base.pytrees import _T, _AuxData, _Children, _IsLeaf, _Node

    # is_leaf with is_leaf_takes_path=True: called as is_leaf(key_path, node).
    _IsLeafMaybePath = Callable[[Any], bool] | Callable[[KeyPath, Any], bool] | None


# ----------------------------------------------------------------------------- key entries


@dataclasses.dataclass(frozen=True)
class DictKey:
    """The key of a dict (or other mapping) child in a key path.

    Example:
        >>> DictKey("a"), str(DictKey("a"))
        (DictKey(key='a'), "['a']")
    """

    key: Any

    def __str__(self):
        return f"[{self.key!r}]"


@dataclasses.dataclass(frozen=True)
class SequenceKey:
    """The index of a list or tuple child in a key path.

    Example:
        >>> SequenceKey(0), str(SequenceKey(0))
        (SequenceKey(idx=0), '[0]')
    """

    idx: int

    def __post_init__(self):
        # JAX's key is typed int; numpy integers are accepted and stored as int.
        object.__setattr__(self, "idx", _as_int("SequenceKey", "idx", self.idx))

    def __str__(self):
        return f"[{self.idx!r}]"


@dataclasses.dataclass(frozen=True)
class GetAttrKey:
    """The attribute name of a namedtuple or dataclass child in a key path.

    Example:
        >>> GetAttrKey("w"), str(GetAttrKey("w"))
        (GetAttrKey(name='w'), '.w')
    """

    name: str

    def __post_init__(self):
        if not isinstance(self.name, str):
            raise TypeError(f"GetAttrKey: name must be a str, got {type(self.name).__name__}")

    def __str__(self):
        return f".{self.name}"


@dataclasses.dataclass(frozen=True)
class FlattenedIndexKey:
    """The position of a child of a custom node (one without named children) in a key path.

    Example:
        >>> FlattenedIndexKey(0), str(FlattenedIndexKey(0))
        (FlattenedIndexKey(key=0), '[<flat index 0>]')
    """

    key: int

    def __post_init__(self):
        object.__setattr__(self, "key", _as_int("FlattenedIndexKey", "key", self.key))

    def __str__(self):
        return f"[<flat index {self.key!r}>]"


def _as_int(cls_name: str, field: str, value: Any) -> int:
    if isinstance(value, bool):
        raise TypeError(f"{cls_name}: {field} must be an int, got bool")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{cls_name}: {field} must be an int, got "
                        f"{type(value).__name__}") from None


def keystr(keys: KeyPath, *, simple: bool = False, separator: str = "") -> str:
    """A key path as a string: each key's ``str`` (or, with ``simple``, its bare key, index or
    name) joined by ``separator``.

    Example:
        >>> path = (DictKey("layers"), SequenceKey(0), GetAttrKey("w"))
        >>> keystr(path)
        "['layers'][0].w"
        >>> keystr(path, simple=True, separator="/")
        'layers/0/w'
    """
    str_fn = _simple_entrystr if simple else str
    return separator.join(builtins.map(str_fn, keys))


def _simple_entrystr(key):
    if isinstance(key, (DictKey, FlattenedIndexKey)):
        return str(key.key)
    if isinstance(key, SequenceKey):
        return str(key.idx)
    if isinstance(key, GetAttrKey):
        return key.name
    return str(key)


class _KeyedEntry(optree.PyTreeEntry):
    """optree path entry of a ``register_pytree_with_keys`` node: the entry is the user's key."""

    __slots__ = ()

    def codify(self, node=""):
        return f"{node}{self.entry}"


def _key(entry):
    """The JAX key of one optree path entry."""
    # Subclasses before their bases: NamedTupleEntry is a SequenceEntry.
    if isinstance(entry, _KeyedEntry):
        return entry.entry
    if isinstance(entry, optree.MappingEntry):
        return DictKey(entry.key)
    if isinstance(entry, (optree.NamedTupleEntry, optree.StructSequenceEntry)):
        return GetAttrKey(entry.field)
    if isinstance(entry, optree.SequenceEntry):
        return SequenceKey(entry.index)
    if isinstance(entry, optree.GetAttrEntry):  # register_dataclass's fields
        return GetAttrKey(entry.name)
    # register_pytree_node's children are anonymous in JAX too.
    return FlattenedIndexKey(entry.entry)


# ----------------------------------------------------------------------------- key paths


def tree_flatten_with_path(tree: Any, is_leaf: _IsLeafMaybePath = None,
                           is_leaf_takes_path: bool = False
                           ) -> tuple[list[tuple[KeyPath, Any]], PyTreeDef]:
    """``([(key_path, leaf), ...], treedef)``, each key path a tuple of JAX keys.

    With ``is_leaf_takes_path``, ``is_leaf`` is called as ``is_leaf(key_path, node)``.

    Example:
        >>> pairs, treedef = tree_flatten_with_path({"a": [5], "b": None})
        >>> pairs
        [((DictKey(key='a'), SequenceKey(idx=0)), 5)]
    """
    if is_leaf is not None and is_leaf_takes_path:
        return _flatten_with_path_predicate(tree, is_leaf)
    accessors, leaves, treedef = optree.tree_flatten_with_accessor(
        tree, is_leaf=is_leaf, **_OPTS)
    paths = [tuple(_key(e) for e in accessor) for accessor in accessors]
    return list(zip(paths, leaves)), sorted_spec(treedef)


def _flatten_with_path_predicate(tree, is_leaf):
    # optree's is_leaf sees no path, so walk the tree here one level at a time, asking
    # is_leaf(path, node) in optree's order (pre-order, every node, leaves and None included),
    # then replay those answers to optree for the treedef, which then matches exactly.
    pairs, answers = [], []

    def visit(path, node):
        answer = bool(is_leaf(path, node))
        answers.append(answer)
        if answer:
            pairs.append((path, node))
            return
        # Expand the root only: its children come back as one-entry accessors.
        accessors, children, _ = optree.tree_flatten_with_accessor(
            node, is_leaf=lambda x: x is not node, **_OPTS)
        if accessors == [optree.PyTreeAccessor()]:  # a leaf type, not a container
            pairs.append((path, node))
            return
        for accessor, child in zip(accessors, children):
            visit(path + (_key(accessor[0]),), child)

    visit((), tree)
    replay = iter(answers)
    treedef = optree.tree_structure(tree, is_leaf=lambda _: next(replay), **_OPTS)
    return pairs, sorted_spec(treedef)


def tree_leaves_with_path(tree: Any, is_leaf: _IsLeafMaybePath = None,
                          is_leaf_takes_path: bool = False) -> list[tuple[KeyPath, Any]]:
    """``[(key_path, leaf), ...]``: the first element of ``tree_flatten_with_path``.

    Example:
        >>> tree_leaves_with_path((1, {"x": 2}))
        [((SequenceKey(idx=0),), 1), ((SequenceKey(idx=1), DictKey(key='x')), 2)]
    """
    return tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)[0]


def tree_map_with_path(f: Callable[..., Any], tree: Any, *rest: Any,
                       is_leaf: _IsLeafMaybePath = None, is_leaf_takes_path: bool = False
                       ) -> Any:
    """Like ``tree_map``, with each leaf's key path as ``f``'s first argument.

    Example:
        >>> tree_map_with_path(lambda p, x, y: f"{keystr(p)}={x + y}", {"a": 1}, {"a": 10})
        {'a': "['a']=11"}
    """
    pairs, treedef = tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)
    columns = [treedef.flatten_up_to(r) for r in rest]
    return treedef.unflatten(
        f(path, leaf, *more) for (path, leaf), *more in zip(pairs, *columns))


# ----------------------------------------------------------------------------- registration


def register_pytree_node(
        nodetype: type[_Node], flatten_func: Callable[[_Node], tuple[_Children, _AuxData]],
        unflatten_func: Callable[[_AuxData, _Children], _Node],
        flatten_with_keys_func: Callable[[_Node], tuple[Iterable[tuple[KeyEntry, Any]],
                                                        _AuxData]] | None = None
) -> type[_Node]:
    """Register a container type: ``flatten_func(node) -> (children, aux_data)``,
    ``unflatten_func(aux_data, children) -> node``. Its children's keys are
    ``FlattenedIndexKey``, unless ``flatten_with_keys_func(node) -> (((key, child), ...),
    aux_data)`` gives them.

    Example:
        >>> class Pair:
        ...     def __init__(self, a, b): self.a, self.b = a, b
        >>> _ = register_pytree_node(Pair, lambda p: ((p.a, p.b), None),
        ...                          lambda aux, ch: Pair(*ch))
        >>> [keystr(p) for p, _ in tree_leaves_with_path(Pair(1, 2))]
        ['[<flat index 0>]', '[<flat index 1>]']
    """
    if flatten_with_keys_func is not None:
        return register_pytree_with_keys(nodetype, flatten_with_keys_func, unflatten_func,
                                         flatten_func)
    return _tree.register_pytree_node(nodetype, flatten_func, unflatten_func)


def register_pytree_with_keys(
        nodetype: type[_Node],
        flatten_with_keys: Callable[[_Node], tuple[Iterable[tuple[KeyEntry, Any]], _AuxData]],
        unflatten_func: Callable[[_AuxData, Iterable[Any]], _Node],
        flatten_func: Callable[[_Node], tuple[Iterable[Any], _AuxData]] | None = None
) -> type[_Node]:
    """Register a container type whose children have keys:
    ``flatten_with_keys(node) -> (((key, child), ...), aux_data)``.

    The keys appear in key paths as given (JAX key objects, usually). ``flatten_func`` is
    accepted for JAX's signature; flattening always uses ``flatten_with_keys``.

    Example:
        >>> class Named:
        ...     def __init__(self, x): self.x = x
        >>> _ = register_pytree_with_keys(
        ...     Named, lambda n: (((GetAttrKey("x"), n.x),), None), lambda aux, ch: Named(*ch))
        >>> keystr(tree_leaves_with_path(Named(3))[0][0])
        '.x'
    """
    del flatten_func  # optree takes one flatten function; flatten_with_keys serves both

    def flatten(node):
        pairs, aux = flatten_with_keys(node)
        pairs = list(pairs)
        return [c for _, c in pairs], aux, [k for k, _ in pairs]

    optree.register_pytree_node(nodetype, flatten, lambda aux, ch: unflatten_func(aux, ch),
                                path_entry_type=_KeyedEntry, namespace=NAMESPACE)
    return nodetype


def register_pytree_node_class(cls: type[_Node]) -> type[_Node]:
    """Register ``cls`` with its ``tree_flatten()`` method and ``tree_unflatten(aux_data,
    children)`` classmethod; returns ``cls``, so it works as a decorator.

    Example:
        >>> @register_pytree_node_class
        ... class Box:
        ...     def __init__(self, value, label): self.value, self.label = value, label
        ...     def tree_flatten(self): return (self.value,), self.label
        ...     @classmethod
        ...     def tree_unflatten(cls, label, children): return cls(children[0], label)
        >>> tree_map(lambda v: v * 2, Box(21, "w")).value
        42
    """
    register_pytree_node(cls, operator.methodcaller("tree_flatten"), cls.tree_unflatten)
    return cls


def register_pytree_with_keys_class(cls: type[_Node]) -> type[_Node]:
    """Register ``cls`` with its ``tree_flatten_with_keys()`` method and ``tree_unflatten``
    classmethod (see ``register_pytree_with_keys``); returns ``cls``.

    Example:
        >>> @register_pytree_with_keys_class
        ... class Cell:
        ...     def __init__(self, h): self.h = h
        ...     def tree_flatten_with_keys(self): return ((GetAttrKey("h"), self.h),), None
        ...     @classmethod
        ...     def tree_unflatten(cls, aux, children): return cls(*children)
        >>> keystr(tree_leaves_with_path(Cell(1))[0][0])
        '.h'
    """
    flatten_func = (operator.methodcaller("tree_flatten") if hasattr(cls, "tree_flatten")
                    else None)
    register_pytree_with_keys(cls, operator.methodcaller("tree_flatten_with_keys"),
                              cls.tree_unflatten, flatten_func)
    return cls


def register_static(cls: type[_Node]) -> type[_Node]:
    """Register ``cls`` as a pytree with no leaves: its instances are static (part of the
    treedef, so hashable), as in JAX. Returns ``cls``.

    Example:
        >>> @register_static
        ... class Mode(str):
        ...     pass
        >>> tree_leaves([1, Mode("train")])
        [1]
    """
    register_pytree_with_keys(cls, lambda obj: ((), obj), lambda obj, _: obj)
    return cls


class _HashableCallableShim:
    """Stands for a ``functools.partial`` given to ``Partial`` (see ``Partial.__new__``)."""

    def __init__(self, fun):
        self.fun = fun

    def __call__(self, *args, **kw):
        return self.fun(*args, **kw)

    def __hash__(self):
        return hash(self.fun)

    def __eq__(self, other):
        if isinstance(other, _HashableCallableShim):
            return self.fun == other.fun
        return self.fun == other

    def __repr__(self):
        return f"_HashableCallableShim({self.fun!r})"


class Partial(functools.partial):
    """A ``functools.partial`` that is a pytree: the bound arguments are its children and the
    function is static (in the treedef), so it can be passed into ``jit``, ``grad``, ``vmap``.

    Example:
        >>> import funcarray as fa
        >>> scale = Partial(lambda a, x: a * x, 3.0)
        >>> fa.jit(lambda f, x: f(x))(scale, 2.0)
        Array(6., dtype=float32, weak_type=True)
        >>> tree_leaves(scale)
        [3.0]
    """

    def __new__(cls, func, *args, **kw):
        # functools.partial merges a partial func's arguments into the new one; box it so this
        # Partial's children are exactly the arguments given here (JAX does the same).
        if isinstance(func, functools.partial):
            original = func
            func = _HashableCallableShim(original)
            out = super().__new__(cls, func, *args, **kw)
            func.func, func.args, func.keywords = original.func, original.args, original.keywords
            return out
        return super().__new__(cls, func, *args, **kw)


_tree.register_pytree_node(
    Partial,
    lambda p: ((p.args, p.keywords), p.func),
    lambda func, children: Partial(func, *children[0], **children[1]),
)


# ----------------------------------------------------------------------------- the rest


def tree_all(tree: Any, *, is_leaf: _IsLeaf = None) -> bool:
    """True when every leaf is truthy.

    Example:
        >>> tree_all([True, (1, None)]), tree_all({"a": 0})
        (True, False)
    """
    return builtins.all(tree_leaves(tree, is_leaf=is_leaf))


def tree_transpose(outer_treedef: PyTreeDef, inner_treedef: PyTreeDef | None,
                   pytree_to_transpose: Any) -> Any:
    """Turn a tree of trees inside out; ``inner_treedef=None`` infers it from the first inner
    tree, as in JAX.

    Example:
        >>> outer = tree_structure([0, 0])
        >>> tree_transpose(outer, None, [(1, 2), (3, 4)])
        ([1, 3], [2, 4])
    """
    return _tree.transpose(outer_treedef, inner_treedef, pytree_to_transpose)


_NO_IDENTITY: Any = object()


def tree_reduce_associative(operation: Callable[[_T, _T], _T], tree: Any, *,
                            identity: _T = _NO_IDENTITY, is_leaf: _IsLeaf = None) -> _T:
    """Fold an associative ``operation`` over the leaves, pairwise (a balanced tree of calls);
    ``identity`` is the result for a tree without leaves.

    Example:
        >>> tree_reduce_associative(lambda a, b: a + b, [1, (2, 3)])
        6
    """
    sequence = tree_leaves(tree, is_leaf=is_leaf)
    if not sequence:
        if identity is _NO_IDENTITY:
            raise TypeError("tree_reduce_associative: must have at least one leaf or an "
                            "identity")
        return identity
    while len(sequence) > 1:
        pairs = [operation(a, b) for a, b in zip(sequence[0::2], sequence[1::2])]
        sequence = pairs + sequence[len(pairs) * 2:]
    return sequence[0]


def tree_broadcast(prefix_tree: Any, full_tree: Any, is_leaf: _IsLeaf = None) -> Any:
    """``prefix_tree`` with each leaf repeated over the matching subtree of ``full_tree``.

    Example:
        >>> tree_broadcast({"a": 1, "b": 2}, {"a": [0, 0], "b": (0,)})
        {'a': [1, 1], 'b': (2,)}
    """
    leaves = optree.broadcast_prefix(prefix_tree, full_tree, is_leaf=is_leaf, **_OPTS)
    return tree_structure(full_tree, is_leaf=is_leaf).unflatten(leaves)


def all_leaves(iterable: Iterable[Any], is_leaf: _IsLeaf = None) -> bool:
    """True when every element of ``iterable`` is a leaf (``None`` is not: it is an empty
    subtree).

    Example:
        >>> all_leaves([1, 2.0]), all_leaves([1, [2]]), all_leaves([None])
        (True, False, False)
    """
    return optree.all_leaves(iterable, is_leaf=is_leaf, **_OPTS)


def is_tree_node(typ: type) -> bool:
    """True when instances of ``typ`` are pytree nodes (builtin containers, namedtuples,
    registered classes, ``NoneType``).

    Example:
        >>> is_tree_node(dict), is_tree_node(int)
        (True, False)
    """
    return (optree.register_pytree_node.get(typ, namespace=NAMESPACE) is not None
            or optree.is_namedtuple_class(typ) or optree.is_structseq_class(typ))


def treedef_is_leaf(treedef: PyTreeDef) -> bool:
    """True when ``treedef`` is a single node: a leaf, or ``None`` (an empty tree), as in JAX.

    Example:
        >>> treedef_is_leaf(tree_structure(1)), treedef_is_leaf(tree_structure([1]))
        (True, False)
    """
    return treedef.num_nodes == 1


def treedef_children(treedef: PyTreeDef) -> list[PyTreeDef]:
    """The treedefs of the root's children.

    Example:
        >>> [t.num_leaves for t in treedef_children(tree_structure([(1, 2), 3]))]
        [2, 1]
    """
    return treedef.children()


def treedef_tuple(treedefs: Iterable[PyTreeDef]) -> PyTreeDef:
    """The treedef of a tuple whose children have the given treedefs.

    Example:
        >>> treedef_tuple([tree_structure([1]), tree_structure(2)]) == tree_structure(([1], 2))
        True
    """
    return optree.treespec_tuple(list(treedefs), **_OPTS)
