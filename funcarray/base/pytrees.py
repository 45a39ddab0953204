"""Pytrees: nested containers of arrays, through ``optree`` with JAX's semantics.

A pytree is a nest of lists, tuples, dicts, namedtuples, ``None`` and registered classes whose
leaves are arrays (or anything else). As in JAX, ``None`` is an empty subtree (not a leaf),
dict leaves are flattened in sorted key order and dicts (and defaultdicts) are rebuilt in
sorted key order, while an OrderedDict keeps its own order; dataclasses can be registered.
Transforms flatten their arguments with these functions at the API edge only.

Example:
    >>> import funcarray as fa
    >>> fa.tree.map(lambda x: x * 2, {"w": 1, "b": (2, None)})
    {'b': (4, None), 'w': 2}
    >>> fa.tree.leaves({"w": 1, "b": (2, None)})
    [2, 1]
"""

from __future__ import annotations

import builtins
import collections
import dataclasses
from typing import TYPE_CHECKING, overload

import optree

if TYPE_CHECKING:
    from collections.abc import Callable, Hashable, Iterable, Sequence
    from typing import Any, TypeVar

    _T = TypeVar("_T")
    _Node = TypeVar("_Node")
    # As in JAX: what flatten_func returns, unflatten_func is given back (a lambda's
    # ``children`` is then the tuple or list the flatten side made).
    _Children = TypeVar("_Children", bound=Iterable[Any])
    _AuxData = TypeVar("_AuxData", bound=Hashable)
    # is_leaf: called on every node; True stops the flattening there.
    _IsLeaf = Callable[[Any], bool] | None

__all__ = [
    "map", "flatten", "unflatten", "leaves", "structure", "register_pytree_node",
    "register_dataclass", "all", "reduce", "transpose", "flatten_with_path", "map_with_path",
    "PyTreeDef", "broadcast_prefix", "partition", "combine",
]

# One namespace for every registration, so funcarray's registry does not collide with other
# optree users (torch's, for instance). JAX's semantics: None is an empty subtree.
NAMESPACE = "funcarray"
PyTreeDef = optree.PyTreeSpec

_OPTS: dict[str, Any] = {"none_is_leaf": False, "namespace": NAMESPACE}

# optree flattens a dict's leaves in sorted key order but its PyTreeSpec rebuilds the dict in
# the original insertion order; JAX rebuilds dicts (and defaultdicts) sorted. Every spec
# handed out here is therefore the "sorted" spec equal to optree's, one per structure: specs
# compare and hash without regard to dict order, so a cache keyed by the spec finds it.
# Specs compare the aux data of custom nodes with ==, so a spec holding custom nodes is keyed
# by its repr too: a cached spec made from ``act=1`` must not rebuild ``act=1.0`` as 1.
_SORTED_TYPES = (dict, collections.defaultdict)
_SORTED_SPECS: dict = {}  # spec, or (spec, repr) when it holds custom nodes -> sorted spec
_SORTED_SPECS_LIMIT = 4096
_HOLDS_CUSTOM_NODES = object()  # _SORTED_SPECS[spec] for those: look up (spec, repr) instead
# _SORTED_SPECS[spec] of a structure without dicts: the spec is its own sorted spec. Equal
# specs hold the same kinds of nodes, so no repr is needed to answer this (a model's
# structure, custom nodes throughout, is flattened at every jit call).
_HOLDS_NO_DICTS = object()


def _sort_dicts(spec: PyTreeDef) -> tuple[PyTreeDef, bool, bool]:
    """``(the sorted spec, whether spec holds custom nodes, whether it holds dicts)``."""
    custom, dicts = [], []

    def sorted_node(node: PyTreeDef) -> PyTreeDef:
        if node.kind == optree.PyTreeKind.CUSTOM:
            custom.append(node)
        if node.type not in _SORTED_TYPES:
            return node
        if node.num_children <= 1:
            # Already in sorted order, in every equal spec: not a dict that needs a repr to
            # tell apart (a jitted call's ``(args, {})`` holds an empty one).
            return node
        dicts.append(node)
        pairs = node.one_level().unflatten(node.children())  # {key: child}, insertion order
        items = {key: pairs[key] for key in node.entries()}  # entries(): optree's sorted order
        if node.type is dict:
            return optree.treespec_dict(items, **_OPTS)
        return optree.treespec_defaultdict(pairs.default_factory, items, **_OPTS)

    return optree.treespec_transform(spec, sorted_node), bool(custom), bool(dicts)


def sorted_spec(spec: PyTreeDef) -> PyTreeDef:
    """``spec`` rebuilding its dicts and defaultdicts in sorted key order, as JAX's do.

    Example:
        >>> spec = optree.tree_structure({"b": 1, "a": 2}, **_OPTS)
        >>> spec.unflatten([1, 2]), sorted_spec(spec).unflatten([1, 2])
        ({'b': 2, 'a': 1}, {'a': 1, 'b': 2})
    """
    if spec.num_nodes - spec.num_leaves <= 1 and spec.type not in _SORTED_TYPES:
        return spec  # a leaf, or one container (no dict) of leaves
    key = spec
    found = _SORTED_SPECS.get(key)
    if found is _HOLDS_NO_DICTS:
        return spec
    if found is _HOLDS_CUSTOM_NODES:
        key = (spec, repr(spec))
        found = _SORTED_SPECS.get(key)
    if found is None:
        found, custom, dicts = _sort_dicts(spec)
        if len(_SORTED_SPECS) >= _SORTED_SPECS_LIMIT:
            _SORTED_SPECS.clear()
        if not dicts:
            _SORTED_SPECS[spec] = _HOLDS_NO_DICTS
            return spec
        if custom:
            _SORTED_SPECS[spec] = _HOLDS_CUSTOM_NODES
            key = (spec, repr(spec))
        _SORTED_SPECS[key] = found
    return found


def flatten(tree: Any, is_leaf: _IsLeaf = None) -> tuple[list[Any], PyTreeDef]:
    """``(leaves, treedef)`` of ``tree``; ``unflatten(treedef, leaves)`` rebuilds it.

    Example:
        >>> leaves, treedef = flatten([1, (2, 3)])
        >>> leaves
        [1, 2, 3]
    """
    leaves, spec = optree.tree_flatten(tree, is_leaf=is_leaf, **_OPTS)
    return leaves, sorted_spec(spec)


def unflatten(treedef: PyTreeDef, leaves: Iterable[Any]) -> Any:
    """Rebuild a tree of ``treedef``'s structure from ``leaves``.

    Example:
        >>> leaves, treedef = flatten({"b": 1, "a": 2})
        >>> unflatten(treedef, [10, 20])
        {'a': 10, 'b': 20}
    """
    return optree.tree_unflatten(treedef, leaves)


def broadcast_prefix(prefix: Any, full: Any, is_leaf: _IsLeaf = None) -> list[Any]:
    """The leaves of ``prefix`` (a pytree prefix of ``full``) repeated for each leaf of
    ``full`` below them, in ``full``'s flattening order; a ValueError names the mismatch.

    Example:
        >>> broadcast_prefix((1, 2), ([7, 8], {"a": 9}))
        [1, 1, 2]
    """
    return optree.broadcast_prefix(prefix, full, is_leaf=is_leaf, **_OPTS)


def leaves(tree: Any, is_leaf: _IsLeaf = None) -> list[Any]:
    """The leaves of ``tree``, in flattening order.

    Example:
        >>> leaves([1, {"x": 2}, None])
        [1, 2]
    """
    return optree.tree_leaves(tree, is_leaf=is_leaf, **_OPTS)


def structure(tree: Any, is_leaf: _IsLeaf = None) -> PyTreeDef:
    """The tree structure (a PyTreeDef) of ``tree``.

    Example:
        >>> structure((1, 2)).num_leaves
        2
    """
    return sorted_spec(optree.tree_structure(tree, is_leaf=is_leaf, **_OPTS))


def map(f: Callable[..., Any], tree: Any, *rest: Any,  # noqa: A001 (JAX's name)
        is_leaf: _IsLeaf = None) -> Any:
    """Apply ``f`` to the leaves of ``tree`` (and matching leaves of ``rest``).

    Example:
        >>> map(lambda a, b: a + b, (1, 2), (10, 20))
        (11, 22)
    """
    leaves, spec = optree.tree_flatten(tree, is_leaf=is_leaf, **_OPTS)
    columns = [leaves] + [spec.flatten_up_to(r) for r in rest]
    return sorted_spec(spec).unflatten(builtins.map(f, *columns))


def map_with_path(f: Callable[..., Any], tree: Any, *rest: Any, is_leaf: _IsLeaf = None
                  ) -> Any:
    """Like ``map``, with each leaf's path (a tuple of keys) as ``f``'s first argument.

    Example:
        >>> map_with_path(lambda path, x: path, {"a": 1})
        {'a': ('a',)}
    """
    paths, leaves, spec = optree.tree_flatten_with_path(tree, is_leaf=is_leaf, **_OPTS)
    columns = [leaves] + [spec.flatten_up_to(r) for r in rest]
    return sorted_spec(spec).unflatten(builtins.map(f, paths, *columns))


def flatten_with_path(tree: Any, is_leaf: _IsLeaf = None
                      ) -> tuple[list[tuple[Any, ...]], list[Any], PyTreeDef]:
    """``(paths, leaves, treedef)``, each path a tuple of keys and indices.

    Example:
        >>> flatten_with_path({"a": [5]})[0]
        [('a', 0)]
    """
    paths, leaves, spec = optree.tree_flatten_with_path(tree, is_leaf=is_leaf, **_OPTS)
    return paths, leaves, sorted_spec(spec)


def all(tree: Any) -> bool:  # noqa: A001 (JAX's name)
    """True when every leaf is truthy.

    Example:
        >>> all([True, (1, 2)])
        True
    """
    return optree.tree_all(tree, **_OPTS)


_NO_INITIALIZER: Any = object()


def reduce(function: Callable[[_T, Any], _T], tree: Any, initializer: _T = _NO_INITIALIZER,
           is_leaf: _IsLeaf = None) -> _T:
    """Fold ``function`` over the leaves.

    Example:
        >>> reduce(lambda a, b: a + b, [1, 2, 3])
        6
    """
    if initializer is _NO_INITIALIZER:
        return optree.tree_reduce(function, tree, is_leaf=is_leaf, **_OPTS)
    return optree.tree_reduce(function, tree, initializer, is_leaf=is_leaf, **_OPTS)


def transpose(outer_treedef: PyTreeDef, inner_treedef: PyTreeDef | None,
              pytree_to_transpose: Any) -> Any:
    """Turn a tree of trees inside out (a list of pairs into a pair of lists...), with
    ``jax.tree.transpose``'s signature: ``inner_treedef=None`` takes the structure of the
    first inner tree.

    Example:
        >>> transpose(structure([0, 0]), structure((0, 0)), [(1, 2), (3, 4)])
        ([1, 3], [2, 4])
        >>> transpose(structure({"a": 0, "b": 0}), None, {"a": [1, 2], "b": [3, 4]})
        [{'a': 1, 'b': 3}, {'a': 2, 'b': 4}]
    """
    if inner_treedef is None:
        inner_treedef = structure(outer_treedef.flatten_up_to(pytree_to_transpose)[0])
    return optree.tree_transpose(outer_treedef, inner_treedef, pytree_to_transpose)


def register_pytree_node(nodetype: type[_Node],
                         flatten_func: Callable[[_Node], tuple[_Children, _AuxData]],
                         unflatten_func: Callable[[_AuxData, _Children], _Node]) -> type[_Node]:
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
    # FlattenedEntry: the children are anonymous, as in JAX (tree_util's key paths show
    # FlattenedIndexKey). optree's default would guess names from the type (a dataclass's
    # declared fields, say), which need not be what flatten_func returns.
    optree.register_pytree_node(
        nodetype, flatten_func, lambda aux, children: unflatten_func(aux, children),
        path_entry_type=optree.FlattenedEntry, namespace=NAMESPACE)
    return nodetype


class _FieldEntry(optree.GetAttrEntry):
    """Path entry of a ``register_dataclass`` child: the entry stays the child's index (so
    ``flatten_with_path`` is unchanged) and ``name`` looks up its field."""

    __slots__ = ()
    fields: tuple = ()  # set on the per-class subclass that register_dataclass makes

    @property
    def name(self):
        return self.fields[self.entry]

    def __repr__(self):
        return f"{type(self).__name__}(field={self.name!r}, type={self.type!r})"


@overload
def register_dataclass(nodetype: type[_Node], data_fields: Sequence[str] | None = None,
                       meta_fields: Sequence[str] | None = None,
                       drop_fields: Sequence[str] = ()) -> type[_Node]: ...


@overload
def register_dataclass(nodetype: None = None, data_fields: Sequence[str] | None = None,
                       meta_fields: Sequence[str] | None = None, drop_fields: Sequence[str] = ()
                       ) -> Callable[[type[_Node]], type[_Node]]: ...


def register_dataclass(nodetype: type[_Node] | None = None,
                       data_fields: Sequence[str] | None = None,
                       meta_fields: Sequence[str] | None = None, drop_fields: Sequence[str] = ()
                       ) -> type[_Node] | Callable[[type[_Node]], type[_Node]]:
    """Register a dataclass: its ``data_fields`` are children, its ``meta_fields`` static
    (part of the tree structure, so ``jit`` retraces when one changes), as in JAX.

    With neither list, a field made with ``dataclasses.field(metadata=dict(static=True))`` is
    meta and every other ``init`` field data. Where JAX wants both lists once one is given,
    the other is inferred here as the remaining ``init`` fields. ``drop_fields`` are left out
    of the tree (the constructor must default them). A class that is not a dataclass needs
    both lists. Usable as a decorator, bare or as ``register_dataclass(data_fields=...)``.

    Example:
        >>> import dataclasses
        >>> @register_dataclass
        ... @dataclasses.dataclass
        ... class Params:
        ...     w: float
        ...     b: float
        ...     act: str = dataclasses.field(default="relu", metadata=dict(static=True))
        >>> leaves(Params(1.0, 2.0))
        [1.0, 2.0]
        >>> map(lambda x: x * 10, Params(1.0, 2.0, "tanh"))
        Params(w=10.0, b=20.0, act='tanh')
    """
    if nodetype is None:
        # The decorator-factory form: register_dataclass(data_fields=[...]) over a class.
        return lambda klass: register_dataclass(klass, data_fields, meta_fields, drop_fields)
    data, meta = _dataclass_fields(nodetype, data_fields, meta_fields, drop_fields)

    def flatten_func(obj):
        return [getattr(obj, n) for n in data], tuple(getattr(obj, n) for n in meta)

    def unflatten_func(aux, children):
        return nodetype(**dict(zip(data, children)), **dict(zip(meta, aux)))

    # Each class gets its own entry type holding its data fields, so tree_util's key paths
    # name the children (GetAttrKey) even when static fields come first.
    entry_type = type(f"{nodetype.__name__}FieldEntry", (_FieldEntry,),
                      {"__slots__": (), "fields": data})
    optree.register_pytree_node(nodetype, flatten_func, unflatten_func,
                                path_entry_type=entry_type, namespace=NAMESPACE)
    return nodetype


def _dataclass_fields(nodetype, data_fields, meta_fields, drop_fields):
    """``(data, meta)`` field-name tuples for ``register_dataclass``, validated as JAX does."""
    is_dataclass = isinstance(nodetype, type) and dataclasses.is_dataclass(nodetype)
    if not is_dataclass:
        if data_fields is None or meta_fields is None:
            raise TypeError("register_dataclass: data_fields and meta_fields are both "
                            f"required when nodetype is not a dataclass. Got {nodetype=}, "
                            f"{data_fields=}, {meta_fields=}.")
        data, meta = tuple(data_fields), tuple(meta_fields)
    else:
        # Copies as tuples: the closures must not see later edits to the caller's lists.
        init = [f for f in dataclasses.fields(nodetype) if f.init and f.name not in drop_fields]
        if data_fields is None and meta_fields is None:
            data = tuple(f.name for f in init if not f.metadata.get("static", False))
            meta = tuple(f.name for f in init if f.metadata.get("static", False))
        elif meta_fields is None:
            data = tuple(data_fields)
            meta = tuple(f.name for f in init if f.name not in data)
        elif data_fields is None:
            meta = tuple(meta_fields)
            data = tuple(f.name for f in init if f.name not in meta)
        else:
            data, meta = tuple(data_fields), tuple(meta_fields)
        expected, given = {f.name for f in init}, {*data, *meta}
        if given != expected:
            msg = ("data_fields and meta_fields must include all dataclass fields with "
                   "``init=True`` and only them.")
            if missing := expected - given:
                msg += (f" Missing fields: {missing}. Add them to drop_fields to suppress "
                        "this error.")
            if unexpected := given - expected:
                msg += f" Unexpected fields: {unexpected}."
            raise ValueError(msg)
    if overlap := set(data) & set(meta):
        raise ValueError(f"data_fields and meta_fields must not overlap. Overlapping fields: "
                         f"{overlap}.")
    return data, meta


def _is_none(x: Any) -> bool:
    return x is None


def partition(tree: Any, filter_spec: Any, replace: Any = None, is_leaf: _IsLeaf = None
              ) -> tuple[Any, Any]:
    """Split ``tree`` in two trees of its structure: the leaves that ``filter_spec`` selects
    (the others replaced by ``replace``, None by default: an empty subtree), and the rest.
    ``combine`` puts them back together.

    ``filter_spec`` is a predicate called on each leaf (``funcarray.nn.is_inexact_array``,
    say), or a tree of bools (or predicates) whose structure is a prefix of ``tree``'s, such
    as the mask ``funcarray.nn.name_mask`` makes. Splitting a model this way lets a transform
    see only some of its leaves: ``grad`` the float arrays, ``jit`` the arrays with the rest
    static, an optimizer the parameters that are not frozen.

    Example:
        >>> params, rest = partition({"w": 1.5, "n": 3}, lambda x: isinstance(x, float))
        >>> params, rest
        ({'n': None, 'w': 1.5}, {'n': 3, 'w': None})
        >>> combine(params, rest)
        {'n': 3, 'w': 1.5}
    """
    if is_function_leaf(filter_spec):
        selected = map(lambda x: bool(filter_spec(x)), tree, is_leaf=is_leaf)
    else:
        selected = _broadcast_filter(tree, filter_spec, is_leaf)
    # None leaves of the mask stay empty subtrees: flatten `tree` up to the mask's leaves.
    spec = sorted_spec(optree.tree_structure(selected, **_OPTS))
    subtrees = spec.flatten_up_to(tree)
    flags = optree.tree_leaves(selected, **_OPTS)
    kept = spec.unflatten(s if f else map(lambda _: replace, s, is_leaf=is_leaf)
                          for f, s in zip(flags, subtrees, strict=True))
    rest = spec.unflatten(map(lambda _: replace, s, is_leaf=is_leaf) if f else s
                          for f, s in zip(flags, subtrees, strict=True))
    return kept, rest


def is_function_leaf(x: Any) -> bool:
    """True for a callable that is a leaf, False for a pytree node even when it is callable
    (a model used as a mask of bools has a ``__call__``): what a ``mask=`` or
    ``filter_spec`` argument that may be either a function or a tree of bools is.

    Example:
        >>> is_function_leaf(len), is_function_leaf({"w": True})
        (True, False)
    """
    return callable(x) and optree.treespec_is_leaf(optree.tree_structure(x, **_OPTS))


def _broadcast_filter(tree: Any, filter_spec: Any, is_leaf: _IsLeaf) -> Any:
    """``filter_spec`` (a tree of bools or predicates, a prefix of ``tree``) as a tree of
    bools, one per leaf of ``tree``."""
    spec = optree.tree_structure(filter_spec, **_OPTS)
    try:
        subtrees = spec.flatten_up_to(tree)
    except ValueError as error:
        raise ValueError(f"partition: filter_spec must be a predicate or a tree of bools whose "
                         f"structure is a prefix of the tree's: {error}") from None
    flags = optree.tree_leaves(filter_spec, **_OPTS)
    spec = sorted_spec(spec)
    expanded = []
    for flag, subtree in zip(flags, subtrees, strict=True):
        if callable(flag):  # (a leaf of filter_spec, so a predicate)
            expanded.append(map(lambda x, f=flag: bool(f(x)), subtree, is_leaf=is_leaf))
        elif isinstance(flag, bool):
            expanded.append(map(lambda _, f=flag: f, subtree, is_leaf=is_leaf))
        else:
            raise TypeError(f"partition: the leaves of filter_spec must be bools or "
                            f"predicates, got {type(flag).__name__} {flag!r}")
    return spec.unflatten(expanded)


def combine(*trees: Any, is_leaf: _IsLeaf = None) -> Any:
    """Merge trees of one structure that hold None in different places (``partition``'s
    halves): each leaf is the first one that is not None.

    Example:
        >>> combine({"a": 1, "b": None}, {"a": None, "b": 2})
        {'a': 1, 'b': 2}
    """
    if not trees:
        raise TypeError("combine: expected at least one tree")

    def first(*leaves):
        return next((x for x in leaves if x is not None), None)

    if is_leaf is None:
        node_is_leaf = _is_none
    else:
        def node_is_leaf(x):
            return x is None or is_leaf(x)
    return map(first, *trees, is_leaf=node_is_leaf)
