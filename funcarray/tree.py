"""Pytrees: nested containers of arrays, through ``optree`` with JAX's semantics.

The public module; the implementation is ``funcarray/base/pytrees.py``.
"""

from funcarray.base.pytrees import (  # noqa: F401  (re-exports)
    PyTreeDef,
    all,
    combine,
    flatten,
    flatten_with_path,
    leaves,
    map,
    map_with_path,
    partition,
    reduce,
    register_dataclass,
    register_pytree_node,
    structure,
    transpose,
    unflatten,
)

__all__ = [
    'map', 'flatten', 'unflatten', 'leaves', 'structure', 'register_pytree_node',
    'register_dataclass', 'all', 'reduce', 'transpose', 'flatten_with_path',
    'map_with_path', 'PyTreeDef', 'partition', 'combine'
]
