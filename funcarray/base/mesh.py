"""Device meshes and partition specs (JAX's ``jax.sharding.Mesh``, ``AxisType``,
``PartitionSpec`` and ``set_mesh``): the names a ``NamedSharding`` lays an array out with.

A ``Mesh`` is an n-dimensional array of devices with a name for each axis; a
``PartitionSpec`` says, for each dimension of an array, which mesh axes split it (None: not
split). Both are plain values: they touch no device and need no runtime.

Example:
    >>> from funcarray.base.array import cpu_device
    >>> mesh = Mesh([[cpu_device()]], ("data", "model"))
    >>> print(mesh)
    Mesh('data': 1, 'model': 1, axis_types=(Auto, Auto))
    >>> PartitionSpec("data", None)
    P('data', None)
"""

from __future__ import annotations

import contextvars
import enum
import math
from collections import OrderedDict
from typing import Any

import numpy as np

__all__ = ["AxisType", "Mesh", "PartitionSpec", "set_mesh", "get_mesh", "get_abstract_mesh",
           "mesh_of_shape"]


class AxisType(enum.Enum):
    """How a mesh axis is partitioned (``jax.sharding.AxisType``): ``Auto`` (XLA's
    partitioner decides, guided by shardings and constraints), ``Explicit`` (JAX tracks the
    sharding in the types; funcarray partitions it as ``Auto``, see docs/decisions.md) or
    ``Manual`` (inside ``shard_map``)."""

    Auto = enum.auto()
    Explicit = enum.auto()
    Manual = enum.auto()

    def __repr__(self) -> str:
        return self.name


def _check_name(name: Any, where: str) -> str:
    if not isinstance(name, str):
        raise TypeError(f"{where}: mesh axis names are strings, got {name!r}")
    return name


class Mesh:
    """Devices arranged in a named n-dimensional grid (``jax.sharding.Mesh``).

    ``devices`` is an array (or nested lists) of ``funcarray.Device`` with one axis per name
    in ``axis_names``; ``axis_types`` gives each axis's ``AxisType`` (default: all ``Auto``).

    Example:
        >>> from funcarray.base.array import cpu_device
        >>> mesh = Mesh([cpu_device()], ("x",))
        >>> dict(mesh.shape), mesh.size, mesh.axis_names
        ({'x': 1}, 1, ('x',))
    """

    __slots__ = ("_devices", "_axis_names", "_axis_types", "_flat", "_hash")

    def __init__(self, devices: Any, axis_names: Any, axis_types: Any = None) -> None:
        from funcarray.base.array import Device

        if isinstance(axis_names, str):
            axis_names = (axis_names,)
        axis_names = tuple(_check_name(n, "Mesh") for n in axis_names)
        grid = np.empty(np.shape(np.asarray(devices, dtype=object)), dtype=object)
        grid[...] = np.asarray(devices, dtype=object)
        if grid.ndim != len(axis_names):
            raise ValueError(
                f"Mesh requires the ndim of its first argument (`devices`) to equal the "
                f"length of its second argument (`axis_names`), but got devices.ndim == "
                f"{grid.ndim} and len(axis_names) == {len(axis_names)}.")
        if len(set(axis_names)) != len(axis_names):
            raise ValueError(f"Mesh: the axis names {axis_names} name one axis twice; each "
                             f"mesh axis needs its own name")
        flat = tuple(grid.flat)
        if not flat:
            raise ValueError("Mesh: a mesh needs at least one device")
        for d in flat:
            if not isinstance(d, Device):
                raise TypeError(f"Mesh: expected funcarray Devices (from funcarray.devices()),"
                                f" got {type(d).__name__} {d!r}")
        if len(set(flat)) != len(flat):
            raise ValueError(f"Mesh: each device may appear once in a mesh; got {list(flat)}")
        if len({d.platform for d in flat}) != 1:
            raise ValueError(f"Mesh: the devices of a mesh must share one platform; got "
                             f"{sorted({d.platform for d in flat})}")
        self._axis_types = _axis_types(axis_types, len(axis_names), AxisType.Auto, "Mesh")
        grid.flags.writeable = False
        self._devices = grid
        self._axis_names = axis_names
        self._flat = flat
        self._hash = hash((flat, grid.shape, axis_names, self._axis_types))

    @property
    def devices(self) -> np.ndarray:
        """The devices, an object array of the mesh's shape."""
        return self._devices

    @property
    def axis_names(self) -> tuple[str, ...]:
        return self._axis_names

    @property
    def axis_types(self) -> tuple[AxisType, ...]:
        return self._axis_types

    @property
    def axis_sizes(self) -> tuple[int, ...]:
        return self._devices.shape

    @property
    def shape(self) -> OrderedDict:
        """Each axis name with its size, in order."""
        return OrderedDict(zip(self._axis_names, self._devices.shape))

    @property
    def shape_tuple(self) -> tuple[tuple[str, int], ...]:
        return tuple(zip(self._axis_names, self._devices.shape))

    @property
    def size(self) -> int:
        return len(self._flat)

    @property
    def empty(self) -> bool:
        return False

    @property
    def device_ids(self) -> np.ndarray:
        return np.vectorize(lambda d: d.id, otypes=[int])(self._devices)

    @property
    def flat_devices(self) -> tuple:
        """The devices in row-major mesh order (the order XLA numbers the partitions)."""
        return self._flat

    @property
    def device_set(self) -> set:
        return set(self._flat)

    @property
    def local_devices(self) -> list:
        return list(self._flat)

    @property
    def abstract_mesh(self) -> Mesh:
        return self

    def __eq__(self, other: object) -> bool:
        return self is other or (
            isinstance(other, Mesh) and self._hash == other._hash
            and self._flat == other._flat and self._devices.shape == other._devices.shape
            and self._axis_names == other._axis_names
            and self._axis_types == other._axis_types)

    def __hash__(self) -> int:
        return self._hash

    def _types_text(self) -> str:
        types = ", ".join(t.name for t in self._axis_types)
        return types + ("," if len(self._axis_types) == 1 else "")

    def __str__(self) -> str:
        axes = ", ".join(f"{n!r}: {s}" for n, s in self.shape_tuple)
        return f"Mesh({axes}, axis_types=({self._types_text()}))"

    def __repr__(self) -> str:
        return (f"Mesh(axis_sizes={self.axis_sizes}, axis_names={self._axis_names}, "
                f"axis_types=({self._types_text()}))")


def _axis_types(axis_types, n: int, default: AxisType, where: str) -> tuple:
    if axis_types is None:
        return (default,) * n
    if isinstance(axis_types, AxisType):
        return (axis_types,) * n
    axis_types = tuple(axis_types)
    if len(axis_types) != n or not all(isinstance(t, AxisType) for t in axis_types):
        raise ValueError(f"{where}: axis_types must be an AxisType or one AxisType per mesh "
                         f"axis ({n}), got {axis_types!r}")
    return axis_types


class _Unconstrained:
    """The spec entry ``PartitionSpec.UNCONSTRAINED`` (one object, as JAX's)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "UNCONSTRAINED"

    def __reduce__(self) -> str:
        return "UNCONSTRAINED"  # (pickled by name: unpickling gives this same object)


UNCONSTRAINED = _Unconstrained()


class PartitionSpec:
    """How each dimension of an array is split over mesh axes (``jax.sharding.PartitionSpec``,
    also ``funcarray.P``): one entry per leading dimension, None (not split), an axis name, a
    tuple of axis names (split over their product, the first the major one), or
    ``P.UNCONSTRAINED`` (the partitioner chooses: only in ``lax.with_sharding_constraint``, on
    a mesh with ``Auto`` axes). Dimensions past the last entry are not split.

    Example:
        >>> from funcarray.sharding import PartitionSpec as P
        >>> spec = P("data", ("x", "y"), None)
        >>> spec, len(spec), spec[1]
        (P('data', ('x', 'y'), None), 3, ('x', 'y'))
    """

    __slots__ = ("_parts",)
    UNCONSTRAINED = UNCONSTRAINED

    def __init__(self, *partitions: Any) -> None:
        parts = []
        for p in partitions:
            if p is None or p is UNCONSTRAINED or isinstance(p, str):
                parts.append(p)
            elif isinstance(p, (tuple, list)):
                parts.append(tuple(_check_name(n, "PartitionSpec") for n in p))
            else:
                raise TypeError(f"PartitionSpec: each entry is None, a mesh axis name, a "
                                f"tuple of them or P.UNCONSTRAINED, got {p!r}")
        self._parts = tuple(parts)

    def __len__(self) -> int:
        return len(self._parts)

    def __getitem__(self, index: Any) -> Any:
        return self._parts[index]

    def __iter__(self):
        return iter(self._parts)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PartitionSpec) and self._parts == other._parts

    def __hash__(self) -> int:
        return hash(self._parts)

    def __repr__(self) -> str:
        inner = ", ".join(repr(p) for p in self._parts)
        return f"P({inner}{',' if len(self._parts) == 1 else ''})"

    def axes_of(self, dim: int) -> tuple[str, ...]:
        """The mesh axes dimension ``dim`` is split over (empty: not split)."""
        if dim >= len(self._parts) or self._parts[dim] is None \
                or self._parts[dim] is UNCONSTRAINED:
            return ()
        p = self._parts[dim]
        return (p,) if isinstance(p, str) else p

    def unconstrained_dims(self) -> tuple[int, ...]:
        """The dimensions whose entry is ``P.UNCONSTRAINED``."""
        return tuple(k for k, p in enumerate(self._parts) if p is UNCONSTRAINED)

    def normalized(self) -> tuple:
        """The entries as tuples of axis names, trailing unsplit dimensions dropped (two specs
        with the same normalized form lay arrays out the same way)."""
        out = [self.axes_of(k) for k in range(len(self._parts))]
        while out and not out[-1]:
            out.pop()
        return tuple(out)


# The mesh ``set_mesh`` made current (per thread and task: a ContextVar).
_CURRENT_MESH: contextvars.ContextVar = contextvars.ContextVar("funcarray_mesh", default=None)


class set_mesh:  # noqa: N801 (JAX's name; used as a function and a context manager)
    """Make ``mesh`` the current mesh, as ``jax.set_mesh``: a bare ``PartitionSpec`` then
    stands for ``NamedSharding(mesh, spec)`` wherever a sharding is expected (``device_put``,
    ``jit``'s ``in_shardings``/``out_shardings``, ``with_sharding_constraint``). Used as a
    context manager it restores the previous mesh on exit; called alone it stays set in the
    calling thread.

    Example:
        >>> from funcarray.base.array import cpu_device
        >>> mesh = Mesh([cpu_device()], ("x",))
        >>> with set_mesh(mesh):
        ...     get_mesh() is mesh
        True
        >>> get_mesh() is None
        True
    """

    __slots__ = ("_token", "_mesh")

    def __init__(self, mesh: Mesh) -> None:
        if not isinstance(mesh, Mesh):
            raise TypeError(f"set_mesh: expected a Mesh, got {type(mesh).__name__}")
        self._mesh = mesh
        self._token = _CURRENT_MESH.set(mesh)

    def __enter__(self) -> Mesh:
        return self._mesh

    def __exit__(self, *exc: Any) -> None:
        _CURRENT_MESH.reset(self._token)


def get_mesh() -> Mesh | None:
    """The mesh ``set_mesh`` made current, or None."""
    return _CURRENT_MESH.get()


get_abstract_mesh = get_mesh


def mesh_of_shape(axis_shapes: Any, axis_names: Any, axis_types: Any, devices: Any,
                  where: str = "make_mesh") -> Mesh:
    """A mesh of ``axis_shapes`` named ``axis_names`` over the first ``prod(axis_shapes)`` of
    ``devices``, the axes ``AxisType.Explicit`` unless ``axis_types`` says otherwise (JAX
    0.10's ``make_mesh``; the public one, ``funcarray.make_mesh``, fills in the devices).

    Example:
        >>> from funcarray.base.array import cpu_device
        >>> mesh_of_shape((1,), "x", None, [cpu_device()])
        Mesh(axis_sizes=(1,), axis_names=('x',), axis_types=(Explicit,))
    """
    shape = tuple(int(s) for s in axis_shapes)
    if isinstance(axis_names, str):
        axis_names = (axis_names,)
    axis_names = tuple(axis_names)
    if len(shape) != len(axis_names):
        raise ValueError(f"{where}: axis_shapes {shape} and axis_names {axis_names} must "
                         f"have the same length")
    devices = list(devices)
    size = math.prod(shape)
    if size > len(devices) or size < 1:
        raise ValueError(f"{where}: the mesh shape {shape} needs {size} devices, but "
                         f"{len(devices)} are available")
    grid = np.empty(size, dtype=object)
    grid[:] = devices[:size]
    return Mesh(grid.reshape(shape), axis_names,
                _axis_types(axis_types, len(shape), AxisType.Explicit, where))
