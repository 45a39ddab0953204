"""Named parameters: a model's arrays under dotted names, as PyTorch names them.

A leaf's name joins its path: field names of modules, dict keys, and list and tuple
positions as numbers (``layers.0.attn.query_proj.weight``). These are the names
``funcarray.io.save`` stores a module's arrays under, so a checkpoint saved from a module
loads back into it, and the names of a PyTorch ``state_dict`` can be matched one to one.
"""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING, Any

import numpy as np

from funcarray import numpy as fnp
from funcarray.base import pytrees as tree
from funcarray.base.errors import op_type_error, op_value_error
from funcarray.nn._predicates import is_array

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Mapping

    from funcarray.base.array import Array

__all__ = ["named_parameters", "state_dict", "load_state_dict", "name_mask"]

# How many problems one load_state_dict error lists before summarising the rest.
_MAX_LISTED = 20


def _name(op: str, path: tuple) -> str:
    parts = []
    for key in path:
        if isinstance(key, str):
            parts.append(key)
        elif isinstance(key, numbers.Integral) and not isinstance(key, bool):
            parts.append(str(int(key)))
        else:
            raise op_type_error(op, f"the leaf at path {path!r} has a {type(key).__name__} key "
                                    f"{key!r}; parameter names are built from str and int "
                                    "keys only")
    return ".".join(parts)


def _named_leaves(op: str, module: Any) -> tuple[list, list, Any]:
    """``(names, leaves, treedef)``: every leaf with its dotted name (None for non-arrays)."""
    paths, leaves, treedef = tree.flatten_with_path(module)
    names = [_name(op, p) if is_array(x) else None for p, x in zip(paths, leaves, strict=True)]
    return names, leaves, treedef


def named_parameters(module: Any) -> Iterator[tuple[str, Array]]:
    """``(name, array)`` for every array of ``module`` (any pytree), in tree order, each name
    the array's dotted path (PyTorch's ``named_parameters``).

    Example:
        >>> import funcarray.nn as nn, funcarray.random as random
        >>> model = nn.Sequential([nn.Linear(2, 3, key=random.key(0)), nn.Lambda(nn.relu)])
        >>> [(name, p.shape) for name, p in nn.named_parameters(model)]
        [('layers.0.weight', (3, 2)), ('layers.0.bias', (3,))]
    """
    names, leaves, _ = _named_leaves("named_parameters", module)
    for name, leaf in zip(names, leaves, strict=True):
        if name is not None:
            yield name, leaf


def state_dict(module: Any) -> dict[str, Array]:
    """A dict of ``module``'s arrays by dotted name, in tree order (PyTorch's ``state_dict``).

    Example:
        >>> import funcarray.nn as nn, funcarray.random as random
        >>> list(nn.state_dict(nn.Linear(2, 3, key=random.key(0))))
        ['weight', 'bias']
    """
    return dict(named_parameters(module))


def _describe(x: Any) -> str:
    return f"shape {tuple(np.shape(x))} {np.dtype(x.dtype).name}"


def load_state_dict(module: Any, flat: Mapping[str, Any], strict: bool = True) -> Any:
    """A copy of ``module`` with its arrays replaced by ``flat``'s (a dict of dotted names to
    arrays, such as ``state_dict`` or ``funcarray.io.load(path, flat=True)`` gives).

    Every array must keep its shape and dtype (cast before loading to change a dtype). With
    ``strict`` (the default) ``flat`` must name every array of ``module`` and nothing else;
    with ``strict=False`` missing names keep the module's arrays and extra names are ignored.
    All problems are reported in one ValueError, each naming its key.

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp, funcarray.random as random
        >>> layer = nn.Linear(2, 1, key=random.key(0))
        >>> new = nn.load_state_dict(layer, {"weight": fnp.ones((1, 2)), "bias": fnp.zeros(1)})
        >>> new(fnp.asarray([1.0, 2.0]))
        Array([3.], dtype=float32)
    """
    op = "load_state_dict"
    if not hasattr(flat, "items"):
        raise op_type_error(op, f"expected a dict of dotted names to arrays (state_dict's "
                                f"form), got {type(flat).__name__}")
    names, leaves, treedef = _named_leaves(op, module)
    problems, new_leaves = [], []
    for name, leaf in zip(names, leaves, strict=True):
        if name is None:
            new_leaves.append(leaf)
            continue
        if name not in flat:
            if strict:
                problems.append(f"key {name!r}: missing (expected {_describe(leaf)})")
            new_leaves.append(leaf)
            continue
        value = flat[name]
        if not (is_array(value) or hasattr(value, "__array__")):
            problems.append(f"key {name!r}: expected an array, got {type(value).__name__}")
            new_leaves.append(leaf)
            continue
        if tuple(np.shape(value)) != tuple(np.shape(leaf)) or np.dtype(
                value.dtype) != np.dtype(leaf.dtype):
            problems.append(f"key {name!r}: expected {_describe(leaf)}, got "
                            f"{_describe(value)}")
            new_leaves.append(leaf)
            continue
        new_leaves.append(fnp.asarray(value))
    if strict:
        known = set(names)
        problems += [f"key {name!r}: unexpected (the module has no such array; pass "
                     "strict=False to ignore it)" for name in flat if name not in known]
    if problems:
        listed = problems[:_MAX_LISTED]
        if len(problems) > _MAX_LISTED:
            listed.append(f"... and {len(problems) - _MAX_LISTED} more")
        raise op_value_error(op, f"the state dict does not match {type(module).__name__}:\n  "
                                 + "\n  ".join(listed))
    return tree.unflatten(treedef, new_leaves)


def name_mask(module: Any, predicate: Callable[[str], bool]) -> Any:
    """A tree of ``module``'s structure holding ``predicate(name)`` at each array (by its
    dotted name) and False at every other leaf: the mask that selects parameters by name, for
    ``funcarray.tree.partition`` (to freeze the rest) or an optimizer's ``mask=``.

    Example:
        >>> import funcarray as fa, funcarray.nn as nn, funcarray.random as random
        >>> model = nn.Linear(2, 3, key=random.key(0))
        >>> fa.tree.leaves(nn.name_mask(model, lambda name: name.endswith("weight")))
        [True, False]
    """
    names, leaves, treedef = _named_leaves("name_mask", module)
    return tree.unflatten(treedef, [name is not None and bool(predicate(name))
                                    for name in names])
