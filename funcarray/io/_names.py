"""Dotted names for the leaves of a pytree, and nested dicts rebuilt from them.

A leaf's name joins its path with ".": dict keys as they are, list and tuple positions as
numbers, so ``{"layers": [{"weight": w}]}`` names ``w`` ``"layers.0.weight"``, the way a
PyTorch ``state_dict`` does. ``funcarray.nn.Module`` fields contribute their names
(``layers.0.attn.weight``); namedtuples and other registered classes their flattening index.
"""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING

from funcarray.base import pytrees as _tree
from funcarray.base.errors import op_type_error, op_value_error

if TYPE_CHECKING:
    from typing import Any

__all__ = ["leaf_names", "nest", "RESERVED"]

# Names that the file formats use for themselves; a tree may not use them for a leaf.
RESERVED = ("__metadata__", "__funcarray__")


def _part(op: str, key, path: tuple) -> str:
    if isinstance(key, str):
        return key
    if isinstance(key, numbers.Integral) and not isinstance(key, bool):
        return str(int(key))
    shown = ".".join(str(k) for k in path)
    raise op_type_error(op, f"the leaf at path {path!r} ({shown!r}) has a {type(key).__name__} "
                            f"key {key!r}; checkpoint names are built from str and int keys only")


def leaf_names(op: str, tree: Any) -> tuple:
    """``(names, leaves, treedef)`` of ``tree``, each name the leaf's dotted path.

    Example:
        >>> leaf_names("save", {"layers": [{"w": 1, "b": 2}]})[0]
        ['layers.0.b', 'layers.0.w']
    """
    paths, leaves, treedef = _tree.flatten_with_path(tree)
    names, seen = [], {}
    for path in paths:
        if not path:
            raise op_type_error(op, "expected a pytree of arrays (a dict, a list...), got a "
                                    "single array; give it a name: {'x': array}")
        name = ".".join(_part(op, key, path) for key in path)
        if name in RESERVED:
            raise op_value_error(op, f"the name {name!r} is reserved by the file format")
        if name in seen:
            raise op_value_error(op, f"two leaves get the same name {name!r} (paths "
                                     f"{seen[name]!r} and {path!r}): a dict key with a '.' "
                                     "collides with a nested path")
        seen[name] = path
        names.append(name)
    return names, leaves, treedef


def nest(op: str, flat: dict) -> dict:
    """Nested dicts rebuilt from dotted names: ``{"a.b": x}`` becomes ``{"a": {"b": x}}``.

    Every level is a dict with str keys (list positions stay the keys ``"0"``, ``"1"``...).

    Example:
        >>> nest("load", {"layers.0.w": 1, "layers.0.b": 2, "scale": 3})
        {'layers': {'0': {'w': 1, 'b': 2}}, 'scale': 3}
    """
    root: dict = {}
    for name, value in flat.items():
        *parents, last = name.split(".")
        node = root
        for depth, part in enumerate(parents):
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                prefix = ".".join(parents[:depth + 1])
                raise _conflict(op, prefix, name)
        if last in node:
            raise _conflict(op, name, next(iter(_names_under(node[last], name))))
        node[last] = value
    return root


def _names_under(node, prefix: str):
    if not isinstance(node, dict):
        yield prefix
        return
    for key, child in node.items():
        yield from _names_under(child, f"{prefix}.{key}")


def _conflict(op: str, leaf: str, other: str) -> ValueError:
    return op_value_error(op, f"the names {leaf!r} and {other!r} cannot both be rebuilt into "
                              "nested dicts (one is an array, the other needs it to be a dict); "
                              "load with flat=True to get the names as they are")
