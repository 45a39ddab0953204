"""Shardings (JAX's ``jax.sharding``): how an array's data is laid out over devices.

``SingleDeviceSharding`` (all of an array on one device, what an unsharded ``Array`` has)
and ``NamedSharding`` (split over a ``Mesh`` as a ``PartitionSpec`` says); ``Shard`` is an
entry of ``Array.addressable_shards``. They live here, in the bottom layer, because
``Array`` answers with them; ``funcarray.sharding`` is the public module.

Example:
    >>> from funcarray.base.array import cpu_device
    >>> s = SingleDeviceSharding(cpu_device())
    >>> s
    SingleDeviceSharding(device=CpuDevice(id=0), memory_kind=device)
    >>> s.devices_indices_map((2, 3))
    {CpuDevice(id=0): (slice(None, None, None), slice(None, None, None))}
"""

from __future__ import annotations

import math
import threading
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from funcarray.base.array import Device

__all__ = ["Sharding", "SingleDeviceSharding", "NamedSharding", "Shard", "placement_of",
           "canonical_sharding", "on_first_multi_device_layout"]

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


class NamedSharding(Sharding):
    """An array split over the devices of ``mesh`` as ``spec`` says
    (``jax.sharding.NamedSharding``): dimension ``k`` is cut into as many equal blocks as
    the mesh axes ``spec[k]`` name have devices together, and every device holds the block
    its mesh coordinates pick; mesh axes the spec does not name hold copies.

    Example:
        >>> from funcarray.base.array import cpu_device
        >>> from funcarray.base.mesh import Mesh, PartitionSpec as P
        >>> s = NamedSharding(Mesh([cpu_device()], ("x",)), P("x"))
        >>> s
        NamedSharding(mesh=Mesh('x': 1, axis_types=(Auto,)), spec=P('x',), memory_kind=device)
        >>> s.shard_shape((4, 2)), s.is_fully_replicated
        ((4, 2), True)
    """

    __slots__ = ("_mesh", "_spec", "_memory_kind", "_key")

    def __init__(self, mesh: Any, spec: Any, *, memory_kind: str | None = None) -> None:
        from funcarray.base.mesh import AxisType, Mesh, PartitionSpec

        if not isinstance(mesh, Mesh):
            raise TypeError(f"NamedSharding: expected a Mesh, got {type(mesh).__name__}")
        if not isinstance(spec, PartitionSpec):
            raise TypeError(f"NamedSharding: the spec must be a PartitionSpec (funcarray.P), "
                            f"got {type(spec).__name__} {spec!r}")
        if memory_kind is None:
            memory_kind = "device"
        if memory_kind not in _MEMORY_KINDS:
            raise ValueError(f"NamedSharding: memory kinds are {', '.join(_MEMORY_KINDS)}; "
                             f"got {memory_kind!r}")
        seen: set = set()
        for k in range(len(spec)):
            for name in spec.axes_of(k):
                if name not in mesh.axis_names:
                    raise ValueError(f"Resource axis: {name} of {spec!r} is not found in "
                                     f"mesh: {mesh.axis_names}.")
                if name in seen:
                    raise ValueError(
                        f"A single NamedSharding spec specification can map every mesh axis "
                        f"to at most one positional dimension, but {spec!r} has duplicate "
                        f"entries for `{name}`")
                seen.add(name)
        open_dims = spec.unconstrained_dims()
        if open_dims and AxisType.Auto not in mesh.axis_types:
            raise ValueError(f"{spec!r} cannot contain `P.UNCONSTRAINED` when no mesh "
                             f"axis_types are `Auto`. Got mesh axis_types: "
                             f"{mesh.axis_types}")
        self._mesh, self._spec, self._memory_kind = mesh, spec, memory_kind
        self._key = (mesh, spec.normalized(), memory_kind, open_dims)

    @property
    def mesh(self):
        return self._mesh

    @property
    def spec(self):
        return self._spec

    @property
    def memory_kind(self) -> str:
        return self._memory_kind

    @property
    def device_set(self) -> set:
        return self._mesh.device_set

    @property
    def addressable_devices(self) -> set:
        return self._mesh.device_set

    @property
    def num_devices(self) -> int:
        return self._mesh.size

    @property
    def is_fully_replicated(self) -> bool:
        """Whether every device holds the whole array (no mesh axis of size > 1 splits it)."""
        sizes = self._mesh.shape
        return all(sizes[name] == 1 for axes in self._key[1] for name in axes)

    @property
    def is_fully_addressable(self) -> bool:
        return True

    @property
    def has_addressable_devices(self) -> bool:
        return True

    def _splits(self, ndim: int) -> list:
        """For each of ``ndim`` dimensions, the mesh axes splitting it (checked: the spec
        fits an array of that rank)."""
        if len(self._spec) > ndim:
            raise ValueError(f"Sharding {self!r} is only valid for values of rank at least "
                             f"{len(self._spec)}, but was applied to a value of rank {ndim}.")
        return [self._spec.axes_of(k) for k in range(ndim)]

    def check_shape(self, global_shape: tuple) -> None:
        """Raise a ValueError naming the dimension when ``global_shape`` does not fit: a rank
        below the spec's length, or a dimension the mesh axes do not divide evenly."""
        sizes = self._mesh.shape
        factors = [math.prod(sizes[a] for a in axes) for axes in self._splits(len(global_shape))]
        for k, (dim, factor) in enumerate(zip(global_shape, factors)):
            if dim % factor:
                raise ValueError(
                    f"Sharding {self!r} implies that array axis {k} is partitioned {factor} "
                    f"times, but the dimension size is {dim} (full shape: "
                    f"{tuple(global_shape)}, per-dimension tiling factors: {factors} should "
                    f"evenly divide the shape)")

    def devices_indices_map(self, global_shape: tuple[int, ...]) -> dict:
        """Each device's index (a tuple of slices) into an array of ``global_shape``."""
        global_shape = tuple(global_shape)
        self.check_shape(global_shape)
        return {d: index for d, index, _ in self._layout(global_shape)}

    addressable_devices_indices_map = devices_indices_map

    def _layout(self, global_shape: tuple) -> list:
        """``[(device, index, replica_id)]`` in mesh order."""
        mesh = self._mesh
        sizes = mesh.shape
        splits = self._splits(len(global_shape))
        out, replicas = [], {}
        for coords in np.ndindex(*mesh.axis_sizes):
            at = dict(zip(mesh.axis_names, coords))
            index = []
            for dim, axes in zip(global_shape, splits):
                block, count = 0, 1
                for a in axes:
                    block, count = block * sizes[a] + at[a], count * sizes[a]
                if count == 1:
                    index.append(slice(None))
                else:
                    step = dim // count
                    index.append(slice(block * step, (block + 1) * step))
            index = tuple(index)
            key = tuple((s.start, s.stop) for s in index)
            # (devices holding the same block count up from 0 in mesh order, as in JAX)
            replica = replicas[key] = replicas.get(key, -1) + 1
            out.append((mesh.devices[coords], index, replica))
        return out

    def shard_layout(self, global_shape: tuple) -> list:
        """``[(device, index, replica_id)]`` for an array of ``global_shape``, in mesh order
        (the order XLA numbers the partitions)."""
        global_shape = tuple(global_shape)
        self.check_shape(global_shape)
        return self._layout(global_shape)

    def shard_shape(self, global_shape: tuple[int, ...]) -> tuple[int, ...]:
        """The shape of each device's block of an array of ``global_shape``."""
        self.check_shape(tuple(global_shape))
        sizes = self._mesh.shape
        return tuple(dim // math.prod(sizes[a] for a in axes)
                     for dim, axes in zip(global_shape, self._splits(len(global_shape))))

    def with_memory_kind(self, kind: str) -> NamedSharding:
        return NamedSharding(self._mesh, self._spec, memory_kind=kind)

    def with_spec(self, spec: Any) -> NamedSharding:
        from funcarray.base.mesh import PartitionSpec

        if not isinstance(spec, PartitionSpec):
            spec = PartitionSpec(*spec)
        return NamedSharding(self._mesh, spec, memory_kind=self._memory_kind)

    def is_equivalent_to(self, other: Sharding, ndim: int) -> bool:
        """Whether ``other`` lays out ``ndim``-dimensional arrays the same way."""
        if isinstance(other, NamedSharding):
            return self._key == other._key
        if isinstance(other, SingleDeviceSharding):
            return self.num_devices == 1 and other.device_set == self.device_set
        return False

    def __eq__(self, other: object) -> bool:
        return isinstance(other, NamedSharding) and self._key == other._key

    def __hash__(self) -> int:
        return hash(self._key)

    def __repr__(self) -> str:
        return (f"NamedSharding(mesh={self._mesh}, spec={self._spec!r}, "
                f"memory_kind={self._memory_kind})")


# Every NamedSharding an array is placed with is this table's instance for its layout, so
# that "is this array where the executable wants it" is an identity test on jit's dispatch
# path (see ``placement_of``). Bounded by the distinct layouts a program uses.
_canonical: dict = {}
_canonical_lock = threading.Lock()


def canonical_sharding(sharding: NamedSharding) -> NamedSharding:
    """The one instance of ``sharding``'s layout arrays are placed with."""
    found = _canonical.get(sharding)
    if found is None:
        with _canonical_lock:
            found = _canonical.setdefault(sharding, sharding)
        if found.num_devices > 1 and _multi_device_listeners:
            _notify_multi_device()
    return found


# Called once, when the first layout over several devices is made (an array about to be
# split or copied over them): the eager engine then starts running ops on such arrays where
# they live (``lowering/executor.py``), while a program on one device never pays for it.
_multi_device_listeners: list = []


def on_first_multi_device_layout(listener) -> None:
    """Call ``listener()`` when the first layout over several devices is made (at once if
    one already was), then never again."""
    with _canonical_lock:
        seen = any(s.num_devices > 1 for s in _canonical)
        if not seen:
            _multi_device_listeners.append(listener)
    if seen:
        listener()


def _notify_multi_device() -> None:
    with _canonical_lock:
        listeners = list(_multi_device_listeners)
        _multi_device_listeners.clear()
    for listener in listeners:
        listener()


def placement_of(x: Any) -> NamedSharding | None:
    """The (canonical) NamedSharding a device array is split with, or None (a host array, a
    single-device array, anything else)."""
    entry = getattr(x, "_buf", None)
    if entry is not None and type(entry[0]) is NamedSharding:
        return entry[0]
    return None


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
