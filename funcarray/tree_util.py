"""``jax.tree_util``'s names over ``funcarray.tree``, so JAX code ports by changing imports.

Example:
    >>> from funcarray import tree_util
    >>> tree_util.tree_map(lambda x: x + 1, [1, 2])
    [2, 3]
"""

from funcarray.tree import (  # noqa: F401
    PyTreeDef,
    register_dataclass,
    register_pytree_node,
)
from funcarray.tree import all as tree_all  # noqa: F401
from funcarray.tree import flatten as tree_flatten  # noqa: F401
from funcarray.tree import flatten_with_path as tree_flatten_with_path  # noqa: F401
from funcarray.tree import leaves as tree_leaves  # noqa: F401
from funcarray.tree import map as tree_map  # noqa: F401
from funcarray.tree import map_with_path as tree_map_with_path  # noqa: F401
from funcarray.tree import reduce as tree_reduce  # noqa: F401
from funcarray.tree import structure as tree_structure  # noqa: F401
from funcarray.tree import transpose as tree_transpose  # noqa: F401
from funcarray.tree import unflatten as tree_unflatten  # noqa: F401

__all__ = [
    "PyTreeDef", "register_dataclass", "register_pytree_node", "tree_all", "tree_flatten",
    "tree_flatten_with_path", "tree_leaves", "tree_map", "tree_map_with_path", "tree_reduce",
    "tree_structure", "tree_transpose", "tree_unflatten",
]
