"""Arrays split over several devices: ``make_mesh``, placing host data with a
``NamedSharding`` (what ``device_put`` does with one), ``make_array_from_callback``,
``make_array_from_single_device_arrays``, and the resolution of a bare ``PartitionSpec``
against the mesh of ``set_mesh``.

A sharded Array is a ``DeviceArray`` whose buffer is one multi-device XLA array and whose
placement is the (canonical) ``NamedSharding``; ``np.asarray`` gathers it.

Example:
    >>> import numpy as np
    >>> import funcarray as fa
    >>> mesh = fa.make_mesh((1,), ("x",))
    >>> x = fa.device_put(np.arange(4.0), fa.sharding.NamedSharding(mesh, fa.P("x")))
    >>> x.sharding.spec, np.asarray(x)
    (P('x',), array([0., 1., 2., 3.]))
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from funcarray.base.array import Device, device_array
from funcarray.base.avals import ShapedArray, canonical_aval
from funcarray.base.mesh import Mesh, PartitionSpec, get_mesh, mesh_of_shape
from funcarray.base.sharding import (
    NamedSharding,
    Sharding,
    SingleDeviceSharding,
    canonical_sharding,
)
from funcarray.lowering import runtime
from funcarray.lowering.devices import devices as all_devices
from funcarray.lowering.devices import local_devices, runtime_device

__all__ = ["make_mesh", "resolve_sharding", "put_sharded", "make_array_from_callback",
           "addressable_layout",
           "make_array_from_single_device_arrays"]


def make_mesh(axis_shapes: Sequence[int], axis_names: Sequence[str], axis_types: Any = None,
              *, devices: Sequence[Device] | None = None) -> Mesh:
    """A mesh of ``axis_shapes`` named ``axis_names`` over the first ``prod(axis_shapes)``
    devices (``devices``, default ``funcarray.devices()``), as ``jax.make_mesh``; the axes
    are ``AxisType.Explicit`` unless ``axis_types`` says otherwise, as in JAX 0.10.

    Example:
        >>> import funcarray as fa
        >>> print(fa.make_mesh((1, 1), ("data", "model")))
        Mesh('data': 1, 'model': 1, axis_types=(Explicit, Explicit))
    """
    return mesh_of_shape(axis_shapes, axis_names, axis_types,
                         all_devices() if devices is None else devices)


def resolve_sharding(sharding: Any, where: str, *,
                     allow_unconstrained: bool = False) -> Sharding | None:
    """``sharding`` as a Sharding: a bare ``PartitionSpec`` means ``NamedSharding`` over the
    mesh of ``set_mesh`` (an error without one); None stays None. ``P.UNCONSTRAINED``
    entries are refused unless ``allow_unconstrained`` (a layout to place data with, or to
    compile a parameter or result with, leaves nothing to the partitioner), as in JAX."""
    if isinstance(sharding, PartitionSpec):
        mesh = get_mesh()
        if mesh is None:
            raise ValueError(f"{where}: the PartitionSpec {sharding!r} needs a mesh: pass "
                             f"NamedSharding(mesh, spec), or set one with "
                             f"funcarray.set_mesh(mesh)")
        sharding = NamedSharding(mesh, sharding)
    if sharding is None or isinstance(sharding, Sharding):
        if (not allow_unconstrained and isinstance(sharding, NamedSharding)
                and sharding.spec.unconstrained_dims()):
            raise ValueError(f"Unconstrained dims are not allowed when passed to {where}: "
                             f"{sharding!r}")
        return sharding
    raise TypeError(f"{where}: expected a Sharding (funcarray.sharding.NamedSharding, "
                    f"SingleDeviceSharding) or a PartitionSpec, got {type(sharding).__name__} "
                    f"{sharding!r}")


def put_sharded(value: np.ndarray, sharding: NamedSharding, weak_type: bool = False):
    """A sharded Array holding NumPy ``value``, each device getting its block of it."""
    sharding.check_shape(value.shape)
    placement = canonical_sharding(sharding)
    buf = runtime.device_put_sharded(value, placement)
    return device_array(placement, buf,
                        canonical_aval(ShapedArray(value.shape, value.dtype, weak_type)))


def make_array_from_callback(shape: Sequence[int], sharding: Sharding,
                             data_callback: Callable[[tuple], Any], dtype: Any = None):
    """An Array of ``shape`` laid out as ``sharding``, each device's block being
    ``data_callback(index)`` for that device's index (a tuple of slices into the whole
    array), as ``jax.make_array_from_callback``.

    Example:
        >>> import numpy as np
        >>> import funcarray as fa
        >>> data = np.arange(6.0).reshape(2, 3)
        >>> s = fa.sharding.NamedSharding(fa.make_mesh((1,), ("x",)), fa.P("x"))
        >>> fa.make_array_from_callback((2, 3), s, lambda index: data[index]).sum()
        Array(15., dtype=float64)
    """
    shape = tuple(int(d) for d in shape)
    sharding = resolve_sharding(sharding, "make_array_from_callback")
    if isinstance(sharding, SingleDeviceSharding):
        index = (slice(None),) * len(shape)
        return make_array_from_single_device_arrays(
            shape, sharding, [_piece(data_callback(index), shape, dtype,
                                     next(iter(sharding.device_set)), "make_array_from_callback")])
    sharding.check_shape(shape)
    block = sharding.shard_shape(shape)
    # (in a job of several processes, each calls back for its own devices' blocks only)
    pieces = [_piece(data_callback(index), block, dtype, device, "make_array_from_callback")
              for device, index in addressable_layout(sharding, shape)]
    return make_array_from_single_device_arrays(shape, sharding, pieces)


def addressable_layout(sharding: NamedSharding, shape: tuple) -> list:
    """``[(device, index), ...]`` of the blocks of a ``shape`` array laid out as
    ``sharding`` that this process's devices hold (all of them in a job of one process)."""
    mine = set(local_devices(backend=sharding.mesh.flat_devices[0].platform))
    return [(d, index) for d, index, _ in sharding.shard_layout(shape) if d in mine]


def _piece(data, shape, dtype, device, where):
    """``data`` (a callback's block) as a single-device Array on ``device``."""
    value = np.asarray(data) if dtype is None else np.asarray(data, dtype=dtype)
    if tuple(value.shape) != tuple(shape):
        raise ValueError(f"{where}: the data for device {device} has shape "
                         f"{tuple(value.shape)}, but its block of the array has shape "
                         f"{tuple(shape)}")
    jdev = runtime_device(device)
    return device_array(jdev, runtime.device_put(value, jdev),
                        canonical_aval(ShapedArray(value.shape, value.dtype)))


def make_array_from_single_device_arrays(shape: Sequence[int], sharding: Sharding,
                                         arrays: Sequence[Any], *, dtype: Any = None):
    """An Array of ``shape`` laid out as ``sharding`` from ``arrays``, one single-device
    Array per device of the sharding holding that device's block (in any order), as
    ``jax.make_array_from_single_device_arrays``. The blocks are used as they are, without
    copies.

    Example:
        >>> import funcarray as fa
        >>> s = fa.sharding.NamedSharding(fa.make_mesh((1,), ("x",)), fa.P())
        >>> piece = fa.device_put(fa.numpy.ones(3), fa.devices()[0])
        >>> fa.make_array_from_single_device_arrays((3,), s, [piece])
        Array([1., 1., 1.], dtype=float32)
    """
    where = "make_array_from_single_device_arrays"
    shape = tuple(int(d) for d in shape)
    sharding = resolve_sharding(sharding, where)
    arrays = list(arrays)
    if isinstance(sharding, SingleDeviceSharding):
        sharding = NamedSharding(Mesh([next(iter(sharding.device_set))], ("_",)),
                                 PartitionSpec(), memory_kind=sharding.memory_kind)
        if len(arrays) == 1 and tuple(arrays[0].shape) == shape:
            return arrays[0]
    if not isinstance(sharding, NamedSharding):
        raise TypeError(f"{where}: expected a NamedSharding, got {type(sharding).__name__}")
    sharding.check_shape(shape)
    block = sharding.shard_shape(shape)
    layout = addressable_layout(sharding, shape)  # (another process gives its own blocks)
    if len(arrays) != len(layout):
        raise ValueError(f"{where}: {sharding!r} places the array on {len(layout)} devices "
                         f"of this process, but {len(arrays)} arrays were given (one per "
                         f"device)")
    by_device: dict = {}
    for k, a in enumerate(arrays):
        entry = getattr(a, "_buf", None)
        if entry is None or type(entry[0]) is NamedSharding:
            raise TypeError(f"{where}: arrays[{k}] is not on a single device; place each "
                            f"block with funcarray.device_put(block, device) first")
        device = Device(entry[0].platform, entry[0].id)
        if device in by_device:
            raise ValueError(f"{where}: two arrays are on {device}; each device of the "
                             f"sharding gets exactly one")
        if tuple(a.shape) != block:
            raise ValueError(f"{where}: arrays[{k}] on {device} has shape {tuple(a.shape)}, "
                             f"but {sharding!r} gives each device a block of shape {block} "
                             f"of the array's {shape}")
        if dtype is not None and np.dtype(a.dtype) != np.dtype(dtype):
            raise ValueError(f"{where}: arrays[{k}] has dtype {a.dtype}, expected {dtype}")
        by_device[device] = a
    dtypes_seen = {np.dtype(a.dtype) for a in arrays}
    if len(dtypes_seen) != 1:
        raise ValueError(f"{where}: the arrays have different dtypes "
                         f"{sorted(d.name for d in dtypes_seen)}")
    missing = [d for d, _ in layout if d not in by_device]
    if missing:
        raise ValueError(f"{where}: no array is on {missing}, devices of {sharding!r}")
    placement = canonical_sharding(sharding)
    first = arrays[0]
    buf = runtime.assemble_sharded(shape, first.dtype, placement,
                                   [by_device[d]._buf[1] for d, _ in layout])
    return device_array(placement, buf,
                        canonical_aval(ShapedArray(shape, np.dtype(first.dtype),
                                                   first.weak_type)))
