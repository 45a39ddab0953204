"""Pytrees: nested containers of arrays, through ``optree`` with JAX's semantics.

A pytree is a nest of lists, tuples, dicts, namedtuples, ``None`` and registered classes whose
leaves are arrays (or anything else). As in JAX, ``None`` is an empty subtree (not a leaf),
dict leaves are flattened in sorted key order, and dataclasses can be registered. (One
difference: rebuilt dicts keep the original key order, where JAX's come back sorted.)
Transforms flatten their arguments with these functions at the API edge only.

Example:
    >>> import funcarray as fa
    >>> fa.tree.map(lambda x: x * 2, {"w": 1, "b": (2, None)})
    {'w': 2, 'b': (4, None)}
    >>> fa.tree.leaves({"w": 1, "b": (2, None)})
    [2, 1]
"""

from __future__ import annotations

import dataclasses

import optree

__all__ = [
    "map", "flatten", "unflatten", "leaves", "structure", "register_pytree_node",
    "register_dataclass", "all", "reduce", "transpose", "flatten_with_path", "map_with_path",
    "PyTreeDef",
]

# One namespace for every registration, so funcarray's registry does not collide with other
# optree users (torch's, for instance). JAX's semantics: None is an empty subtree.
NAMESPACE = "funcarray"
PyTreeDef = optree.PyTreeSpec

_OPTS = {"none_is_leaf": False, "namespace": NAMESPACE}


def flatten(tree, is_leaf=None):
    """``(leaves, treedef)`` of ``tree``; ``unflatten(treedef, leaves)`` rebuilds it.

    Example:
        >>> leaves, treedef = flatten([1, (2, 3)])
        >>> leaves
        [1, 2, 3]
    """
    return optree.tree_flatten(tree, is_leaf=is_leaf, **_OPTS)


def unflatten(treedef, leaves):
    """Rebuild a tree of ``treedef``'s structure from ``leaves``.

    Example:
        >>> leaves, treedef = flatten({"a": 1, "b": 2})
        >>> unflatten(treedef, [10, 20])
        {'a': 10, 'b': 20}
    """
    return optree.tree_unflatten(treedef, leaves)


def leaves(tree, is_leaf=None):
    """The leaves of ``tree``, in flattening order.

    Example:
        >>> leaves([1, {"x": 2}, None])
        [1, 2]
    """
    return optree.tree_leaves(tree, is_leaf=is_leaf, **_OPTS)


def structure(tree, is_leaf=None):
    """The tree structure (a PyTreeDef) of ``tree``.

    Example:
        >>> structure((1, 2)).num_leaves
        2
    """
    return optree.tree_structure(tree, is_leaf=is_leaf, **_OPTS)


def map(f, tree, *rest, is_leaf=None):  # noqa: A001 (JAX's name)
    """Apply ``f`` to the leaves of ``tree`` (and matching leaves of ``rest``).

    Example:
        >>> map(lambda a, b: a + b, (1, 2), (10, 20))
        (11, 22)
    """
    return optree.tree_map(f, tree, *rest, is_leaf=is_leaf, **_OPTS)


def map_with_path(f, tree, *rest, is_leaf=None):
    """Like ``map``, with each leaf's path (a tuple of keys) as ``f``'s first argument.

    Example:
        >>> map_with_path(lambda path, x: path, {"a": 1})
        {'a': ('a',)}
    """
    return optree.tree_map_with_path(f, tree, *rest, is_leaf=is_leaf, **_OPTS)


def flatten_with_path(tree, is_leaf=None):
    """``(paths, leaves, treedef)``, each path a tuple of keys and indices.

    Example:
        >>> flatten_with_path({"a": [5]})[0]
        [('a', 0)]
    """
    return optree.tree_flatten_with_path(tree, is_leaf=is_leaf, **_OPTS)


def all(tree):  # noqa: A001 (JAX's name)
    """True when every leaf is truthy.

    Example:
        >>> all([True, (1, 2)])
        True
    """
    return optree.tree_all(tree, **_OPTS)


_NO_INITIALIZER = object()


def reduce(function, tree, initializer=_NO_INITIALIZER, is_leaf=None):
    """Fold ``function`` over the leaves.

    Example:
        >>> reduce(lambda a, b: a + b, [1, 2, 3])
        6
    """
    if initializer is _NO_INITIALIZER:
        return optree.tree_reduce(function, tree, is_leaf=is_leaf, **_OPTS)
    return optree.tree_reduce(function, tree, initializer, is_leaf=is_leaf, **_OPTS)


def transpose(outer_treedef, inner_treedef, tree):
    """Turn a tree of trees inside out (a list of pairs into a pair of lists...).

    Example:
        >>> transpose(structure([0, 0]), structure((0, 0)), [(1, 2), (3, 4)])
        ([1, 3], [2, 4])
    """
    return optree.tree_transpose(outer_treedef, inner_treedef, tree)


def register_pytree_node(nodetype, flatten_func, unflatten_func):
    """Register a container type, with JAX's signatures:
    ``flatten_func(node) -> (children, aux_data)`` and
    ``unflatten_func(aux_data, children) -> node``.

    Example:
        >>> class Pair:
        ...     def __init__(self, a, b): self.a, self.b = a, b
        >>> _ = register_pytree_node(Pair, lambda p: ((p.a, p.b), None),
        ...                          lambda aux, ch: Pair(*ch))
        >>> leaves(Pair(1, 2))
        [1, 2]
    """
    optree.register_pytree_node(
        nodetype, flatten_func, lambda aux, children: unflatten_func(aux, children),
        namespace=NAMESPACE)
    return nodetype


def register_dataclass(cls=None, *, data_fields=None, meta_fields=None):
    """Register a dataclass: its ``data_fields`` are children, ``meta_fields`` static.

    By default every field is a data field. Usable as a decorator.

    Example:
        >>> import dataclasses
        >>> @register_dataclass
        ... @dataclasses.dataclass
        ... class Params:
        ...     w: float
        ...     b: float
        >>> leaves(Params(1.0, 2.0))
        [1.0, 2.0]
    """
    def register(klass):
        fields = [f.name for f in dataclasses.fields(klass)]
        data = list(fields if data_fields is None else data_fields)
        meta = list([] if meta_fields is None else meta_fields)
        if data_fields is not None and meta_fields is None:
            meta = [f for f in fields if f not in data]

        def flatten_func(obj):
            return [getattr(obj, n) for n in data], tuple(getattr(obj, n) for n in meta)

        def unflatten_func(aux, children):
            return klass(**dict(zip(data, children)), **dict(zip(meta, aux)))

        optree.register_pytree_node(klass, flatten_func, unflatten_func, namespace=NAMESPACE)
        return klass

    return register if cls is None else register(cls)
