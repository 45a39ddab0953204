"""Shardings, as ``jax.sharding``: ``Mesh``, ``AxisType``, ``PartitionSpec``,
``NamedSharding`` (an array split over a mesh's devices), ``SingleDeviceSharding`` (an
array on one device), ``Sharding``, ``Shard``, ``set_mesh`` and ``get_mesh``.

The public module; the implementation is ``funcarray/base/mesh.py`` and
``funcarray/base/sharding.py``.
"""

from funcarray.base.mesh import (  # noqa: F401  (re-exports)
    AxisType,
    Mesh,
    PartitionSpec,
    get_abstract_mesh,
    get_mesh,
    set_mesh,
)
from funcarray.base.sharding import (  # noqa: F401  (re-exports)
    NamedSharding,
    Shard,
    Sharding,
    SingleDeviceSharding,
)

__all__ = [
    'Sharding', 'SingleDeviceSharding', 'NamedSharding', 'Shard', 'Mesh', 'AxisType',
    'PartitionSpec', 'set_mesh', 'get_mesh', 'get_abstract_mesh',
]
