"""Shardings, as ``jax.sharding``: ``SingleDeviceSharding`` (what ``Array.sharding`` is:
funcarray places each array on one device), ``Sharding`` and ``Shard``.

The public module; the implementation is ``funcarray/base/sharding.py``.
"""

from funcarray.base.sharding import (  # noqa: F401  (re-exports)
    Shard,
    Sharding,
    SingleDeviceSharding,
)

__all__ = [
    'Sharding', 'SingleDeviceSharding', 'Shard'
]
