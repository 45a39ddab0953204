"""Shardings (JAX's ``jax.sharding``): how an array's data is laid out over devices.

funcarray places every array on one device, so the one sharding is ``SingleDeviceSharding``,
what ``Array.sharding`` returns; ``Shard`` is an entry of ``Array.addressable_shards``. They
live here, in the bottom layer, because ``Array`` answers with them; ``funcarray.sharding``
is the public module.

Example:
    >>> from funcarray.base.array import cpu_device
    >>> s = SingleDeviceSharding(cpu_device())
    >>> s
    SingleDeviceSharding(device=CpuDevice(id=0), memory_kind=device)
    >>> s.devices_indices_map((2, 3))
    {CpuDevice(id=0): (slice(None, None, None), slice(None, None, None))}
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from funcarray.base.array import Device

__all__ = ["Sharding", "SingleDeviceSharding", "Shard"]

# The memory kinds jaxlib's CPU and GPU devices address ("device" is the default).
_MEMORY_KINDS = ("device", "pinned_host", "unpinned_host")


class Sharding:
    """The base of shardings (``jax.sharding.Sharding``), for ``isinstance`` checks."""

    __slots__ = ()


class SingleDeviceSharding(Sharding):
    """All of an array's data on one device (``jax.sharding.SingleDeviceSharding``).

    ``memory_kind`` is where on the device: ``"device"`` (the default), ``"pinned_host"`` or
    ``"unpinned_host"``.

    Example:
        >>> from funcarray.base.array import cpu_device
        >>> s = SingleDeviceSharding(cpu_device())
        >>> s.device_set, s.num_devices, s.is_fully_replicated, s.memory_kind
        ({CpuDevice(id=0)}, 1, True, 'device')
        >>> s == SingleDeviceSharding(cpu_device(), memory_kind="device")
        True
    """

    __slots__ = ("_device", "_memory_kind")

    def __init__(self, device: Device, *, memory_kind: str | None = None) -> None:
        from funcarray.base.array import Device
        from funcarray.base.errors import op_type_error, op_value_error

        if not isinstance(device, Device):
            raise op_type_error("SingleDeviceSharding", f"expected a Device (from "
                                f"funcarray.devices()), got {type(device).__name__}")
        if memory_kind is None:
            memory_kind = "device"
        if memory_kind not in _MEMORY_KINDS:
            raise op_value_error("SingleDeviceSharding", f"device {device!r} can address the "
                                 f"memory kinds {', '.join(_MEMORY_KINDS)}; got memory kind "
                                 f"{memory_kind!r}")
        self._device = device
        self._memory_kind = memory_kind

    @property
    def device_set(self) -> set[Device]:
        return {self._device}

    @property
    def addressable_devices(self) -> set[Device]:
        return {self._device}

    @property
    def num_devices(self) -> int:
        return 1

    @property
    def memory_kind(self) -> str:
        return self._memory_kind

    @property
    def is_fully_replicated(self) -> bool:
        return True

    @property
    def is_fully_addressable(self) -> bool:
        return True

    @property
    def has_addressable_devices(self) -> bool:
        return True

    def devices_indices_map(self, global_shape: tuple[int, ...]) -> dict[Device, tuple]:
        """Each device's index into an array of ``global_shape``: all of it."""
        return {self._device: (slice(None),) * len(global_shape)}

    addressable_devices_indices_map = devices_indices_map

    def shard_shape(self, global_shape: tuple[int, ...]) -> tuple[int, ...]:
        """The shape of the one shard: the whole array's."""
        return tuple(global_shape)

    def with_memory_kind(self, kind: str) -> SingleDeviceSharding:
        return SingleDeviceSharding(self._device, memory_kind=kind)

    def is_equivalent_to(self, other: Sharding, ndim: int) -> bool:
        """Whether ``other`` lays out ``ndim``-dimensional arrays the same way."""
        return self == other

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, SingleDeviceSharding) and self._device == other._device
                and self._memory_kind == other._memory_kind)

    def __hash__(self) -> int:
        return hash((self._device, self._memory_kind))

    def __repr__(self) -> str:
        return f"SingleDeviceSharding(device={self._device!r}, memory_kind={self._memory_kind})"


class Shard:
    """One piece of an array on one device (``jax.Shard``): ``device``, ``index`` (the
    slices of the array it holds), ``replica_id`` and ``data``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.ones(2).addressable_shards
        [Shard(device=CpuDevice(id=0), index=(slice(None, None, None),), replica_id=0, \
data=[1. 1.])]
    """

    __slots__ = ("device", "index", "replica_id", "data")

    def __init__(self, device: Device, index: tuple, replica_id: int, data: Any) -> None:
        self.device = device
        self.index = index
        self.replica_id = replica_id
        self.data = data

    def __repr__(self) -> str:
        import numpy as np

        return (f"Shard(device={self.device!r}, index={self.index}, "
                f"replica_id={self.replica_id}, data={np.asarray(self.data)})")
