"""``tree_at``: a copy of a pytree (a model) with some of its nodes replaced.

Modules are immutable, so changing a layer or a parameter makes a new module. ``where``
picks the nodes with ordinary attribute and index access (``lambda m: m.layers[0].weight``);
to find them in the tree, ``where`` runs on a copy whose every leaf (and every None) is a
distinct marker object, and each node it returns is located by identity.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import optree

from funcarray.base import pytrees as tree
from funcarray.base.errors import op_type_error, op_value_error
from funcarray.base.pytrees import _OPTS

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["tree_at"]

_MISSING: Any = object()


class _Marker:
    """A leaf (or None) of the tree given to ``where``, unique by identity."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


def _is_leaf_or_none(is_leaf):
    if is_leaf is None:
        return lambda x: x is None
    return lambda x: x is None or is_leaf(x)


def _children(node):
    """``(children, spec)`` one level down from an inner node of the marked tree."""
    return optree.tree_flatten(node, is_leaf=lambda x: x is not node, **_OPTS)


def tree_at(where: Callable[[Any], Any], pytree: Any, replace: Any = _MISSING,
            replace_fn: Callable[[Any], Any] = _MISSING, is_leaf: Callable[[Any], bool] | None
            = None) -> Any:
    """A copy of ``pytree`` with the node ``where(pytree)`` (or each of the nodes in the
    tuple or list it returns) replaced by ``replace`` (a value, or a sequence of values, one
    per node) or by ``replace_fn(node)``, as Equinox's ``tree_at``. A node is a leaf, a None
    or a whole subtree (a layer); replacing None with an array adds a leaf.

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp, funcarray.random as random
        >>> model = nn.Sequential([nn.Linear(2, 2, key=random.key(0)), nn.Lambda(nn.relu)])
        >>> new = nn.tree_at(lambda m: m.layers[0].bias, model, replace=fnp.ones(2))
        >>> new.layers[0].bias
        Array([1., 1.], dtype=float32)
        >>> nn.tree_at(lambda m: m.layers[1], model, replace=nn.Lambda(nn.tanh)).layers[1]
        Lambda(fn=tanh)
    """
    op = "tree_at"
    if (replace is _MISSING) == (replace_fn is _MISSING):
        raise op_type_error(op, "pass exactly one of replace= and replace_fn=")
    leaf_test = _is_leaf_or_none(is_leaf)
    marked = tree.map(_Marker, pytree, is_leaf=leaf_test)
    selected = where(marked)
    nodes = _nodes_of(marked)
    if id(selected) in nodes:
        targets = [selected]
        replacements = None if replace is _MISSING else [replace]
    elif isinstance(selected, (tuple, list)) and all(id(s) in nodes for s in selected):
        targets = list(selected)
        if replace is _MISSING:
            replacements = None
        elif not isinstance(replace, (tuple, list)) or len(replace) != len(targets):
            raise op_value_error(op, f"where returned {len(targets)} nodes, so replace must be "
                                     f"a tuple or list of {len(targets)} values, got "
                                     f"{type(replace).__name__}")
        else:
            replacements = list(replace)
    else:
        raise op_value_error(op, "where(tree) must return a node of the tree (a field, an "
                                 "element, a leaf) or a tuple/list of nodes, reached by "
                                 "attribute and index access; it returned "
                                 f"{type(selected).__name__}, which is not in the tree (a "
                                 "value computed from it, or a static field?)")
    if len({id(t) for t in targets}) != len(targets):
        raise op_value_error(op, "where returned the same node twice")
    by_id = {}
    for k, target in enumerate(targets):
        if replacements is not None:
            by_id[id(target)] = replacements[k]
        else:
            by_id[id(target)] = replace_fn(_unmark(target))

    def rebuild(node):
        if id(node) in by_id:
            return by_id[id(node)]
        if isinstance(node, _Marker):
            return node.value
        children, spec = _children(node)
        return tree.sorted_spec(spec).unflatten([rebuild(c) for c in children])

    return rebuild(marked)


def _nodes_of(marked) -> set:
    """The ids of every node (inner nodes and markers) of the marked tree."""
    found = set()

    def visit(node):
        found.add(id(node))
        if isinstance(node, _Marker):
            return
        for child in _children(node)[0]:
            visit(child)

    visit(marked)
    return found


def _unmark(node):
    """A node of the marked tree with its markers turned back into the original leaves."""
    return tree.map(lambda m: m.value, node, is_leaf=lambda x: isinstance(x, _Marker))
