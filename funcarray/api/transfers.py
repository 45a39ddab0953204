"""Moving pytrees of arrays between the host and devices: ``device_put``, ``device_get``,
``block_until_ready`` (the devices themselves: ``funcarray.lowering.devices``).

Example:
    >>> import funcarray as fa
    >>> fa.device_put(fa.numpy.ones(2)).device
    CpuDevice(id=0)
"""

from __future__ import annotations

import numpy as np

from funcarray.api.arguments import asarray_arg
from funcarray.api.sharded_arrays import put_sharded, resolve_sharding
from funcarray.base import pytrees as tree
from funcarray.base.array import Array, Device, DeviceArray
from funcarray.base.mesh import PartitionSpec
from funcarray.base.sharding import (
    NamedSharding,
    Sharding,
    SingleDeviceSharding,
    canonical_sharding,
    placement_of,
)
from funcarray.lowering import runtime
from funcarray.lowering.devices import runtime_device
from funcarray.lowering.executor import from_buffer, to_buffer
from funcarray.transforms.core import Tracer

__all__ = ["block_until_ready", "device_get", "device_put"]


def device_put(x, device=None):
    """``x`` with every array placed on ``device`` (the default device when None): an Array,
    NumPy array or Python scalar, or a pytree of them (lists and dicts are containers, as in
    JAX). An Array already on ``device`` is returned as it is.

    ``device`` may be a sharding: a ``NamedSharding`` splits each array over the devices of
    its mesh (each device gets its block; an array split otherwise is gathered and split
    again), a bare ``PartitionSpec`` does so over the mesh of ``set_mesh``, a
    ``SingleDeviceSharding`` names one device. ``device`` may also be a pytree of those with
    the structure of ``x``. Under a transform (a traced value) it returns the value as it is,
    as JAX's ``jit`` does.

    Example:
        >>> import funcarray as fa
        >>> x = fa.device_put(fa.numpy.array([1.0, 2.0]), fa.devices()[0])
        >>> x, x.device
        (Array([1., 2.], dtype=float32), CpuDevice(id=0))
        >>> fa.device_put({"w": 1.0, "b": None})
        {'b': None, 'w': Array(1., dtype=float32, weak_type=True)}
    """
    if _is_placement(device):
        return tree.map(lambda leaf: _put(leaf, device), x)
    # a pytree of placements with x's structure (shardings and specs are its leaves)
    return tree.map(_put, x, device)


def _is_placement(device) -> bool:
    return device is None or isinstance(device, (Device, Sharding, PartitionSpec)) or hasattr(
        device, "client")


def _put(leaf, device):
    leaf = asarray_arg("device_put", leaf)
    sharding = None
    if isinstance(device, (Sharding, PartitionSpec)):
        sharding = resolve_sharding(device, "device_put")
    elif device is not None and not isinstance(device, Device) and not hasattr(
            device, "client"):
        raise TypeError(f"device_put: expected a funcarray Device (from funcarray.devices()),"
                        f" a Sharding (funcarray.sharding.NamedSharding...) or a "
                        f"PartitionSpec, got {type(device).__name__} {device!r}")
    if isinstance(leaf, Tracer):
        # Under a transform the traced value is returned as it is: jax 0.10's jit writes no
        # constraint for a device_put inside it either (verified: the output of
        # jit(lambda v: device_put(v * 2, NamedSharding(mesh, P(None, "b")))) is
        # replicated). lax.with_sharding_constraint is the way to constrain a layout.
        if isinstance(sharding, NamedSharding):
            sharding.check_shape(tuple(leaf.shape))
        return leaf
    if isinstance(sharding, SingleDeviceSharding):
        device = next(iter(sharding.device_set))
    elif sharding is not None:
        have = placement_of(leaf)
        if have == sharding:
            return leaf
        if have is not None:  # split another way: moved between the devices where it can
            sharding.check_shape(tuple(leaf.shape))
            target = canonical_sharding(sharding)
            return from_buffer(to_buffer(leaf, target), leaf.aval, target)
        return put_sharded(np.asarray(leaf), sharding, leaf.weak_type)
    jdev = runtime_device(device)
    entry = getattr(leaf, "_buf", None)
    if entry is not None and entry[0] == jdev:
        return leaf
    return from_buffer(to_buffer(leaf, jdev), leaf.aval, jdev)


def device_get(x):
    """``x`` with every Array fetched to the host as a NumPy array (a pytree of them; other
    leaves are returned as they are), like ``jax.device_get``.

    Example:
        >>> import funcarray as fa
        >>> fa.device_get({"w": fa.numpy.ones(2), "step": 3})
        {'step': 3, 'w': array([1., 1.], dtype=float32)}
    """
    if type(x) is DeviceArray:  # one jitted output: no pytree walk
        return np.asarray(x)
    return tree.map(lambda leaf: np.asarray(leaf) if isinstance(leaf, Array) else leaf, x)


def block_until_ready(x):
    """Wait until every Array in the pytree ``x`` is computed, and return ``x``, like
    ``jax.block_until_ready`` (timing code calls it before reading the clock).

    Example:
        >>> import funcarray as fa
        >>> out = fa.block_until_ready(fa.jit(lambda x: x * 2)(fa.numpy.ones(2)))
    """
    if type(x) is DeviceArray:  # one jitted output, the commonest call: no pytree walk
        return x.block_until_ready()
    # Only device arrays can be pending: a host Array is always ready, and tracers and other
    # leaves are left as they are.
    pending = []
    if not _collect_pending(x, pending, _MAX_DEPTH):
        pending = [leaf for leaf in tree.leaves(x) if type(leaf) is DeviceArray]
    if len(pending) == 1:
        pending[0].block_until_ready()
    elif pending:
        try:
            runtime.block_until_ready([leaf._buf[1] for leaf in pending])
        except Exception:  # noqa: BLE001 (a deferred error: the first array in pytree order
            # that has one raises it, translated, as its own block_until_ready does)
            for leaf in tree.leaves(x):
                if type(leaf) is DeviceArray:
                    leaf.block_until_ready()
    return x


# Leaves a pytree walk can pass over: nothing of theirs is pending (a host Array is computed).
_READY_LEAVES = frozenset({Array, int, float, bool, complex, str, np.ndarray, type(None)})
_MAX_DEPTH = 8  # containers nested deeper go through tree.leaves


def _collect_pending(node, found: list, depth: int) -> bool:
    """Append the DeviceArrays of ``node`` (a list, tuple or dict, exactly those types) and of
    its nested containers to ``found``, in no particular order; False when it holds any other
    node type (a namedtuple, a registered class: ``tree.leaves`` knows them), nests deeper
    than ``depth`` or holds a tracer. The common results (a list or dict of arrays) skip
    ``tree.leaves``, whose cost per leaf is several times this loop's."""
    t = type(node)
    if t is dict:
        node = node.values()
    elif t is not list and t is not tuple:
        return t in _READY_LEAVES
    for item in node:
        t = type(item)
        if t is DeviceArray:
            found.append(item)
        elif t is list or t is tuple or t is dict:
            if depth == 0 or not _collect_pending(item, found, depth - 1):
                return False
        elif t not in _READY_LEAVES:
            return False
    return True
