"""Several processes as one job: ``distributed.initialize``/``shutdown`` (jaxlib's
coordination service and key-value store; the CPU client then spans every process's devices,
with gloo collectives between processes), and ``make_array_from_process_local_data``, a
global array from each process's part of it.

Without ``initialize`` funcarray runs as one process: ``process_index()`` is 0 and
``process_count()`` 1.

Example:
    >>> import numpy as np
    >>> import funcarray as fa
    >>> fa.distributed.is_initialized()
    False
    >>> s = fa.sharding.NamedSharding(fa.make_mesh((1,), ("x",)), fa.P("x"))
    >>> fa.make_array_from_process_local_data(s, np.arange(4.0)).shape
    (4,)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from funcarray.api.cluster_environments import CLUSTER_NAMES, detect_cluster
from funcarray.api.sharded_arrays import addressable_layout, resolve_sharding
from funcarray.base.array import device_array
from funcarray.base.avals import ShapedArray, canonical_aval
from funcarray.base.sharding import NamedSharding, canonical_sharding
from funcarray.lowering import runtime
from funcarray.lowering.devices import local_devices, process_count, runtime_device

__all__ = ["initialize", "shutdown", "is_initialized", "make_array_from_process_local_data"]


def initialize(coordinator_address: str | None = None, num_processes: int | None = None,
               process_id: int | None = None, *, initialization_timeout: int = 300,
               cluster_detection_method: str | None = None) -> None:
    """Make this process one of ``num_processes`` acting as one job, as
    ``jax.distributed.initialize``: process 0 serves the coordination service at
    ``coordinator_address`` (``"host:port"``), every process connects to it (waiting up to
    ``initialization_timeout`` seconds for all of them), and from then on ``devices()`` lists
    every process's devices, ``local_devices()`` this process's, and a mesh over all of them
    runs jit with collectives between the processes.

    Arguments left out are read from the cluster the process was started by, as jax does:
    SLURM (``srun``) or Open MPI (``mpirun``), or the one ``cluster_detection_method``
    names (``"slurm"``, ``"ompi"``); ``JAX_COORDINATOR_ADDRESS`` and
    ``JAX_COORDINATOR_PORT`` override the address (``api/cluster_environments.py``).

    Call it first, before anything that uses jaxlib (a jit call, a device array,
    ``funcarray.devices()``): the XLA client is made once per process.

    Example (two processes, one on each of two terminals; or ``fa.distributed.initialize()``
    in each task of ``srun -n 2``)::

        fa.distributed.initialize("127.0.0.1:1234", num_processes=2, process_id=0)
        fa.distributed.initialize("127.0.0.1:1234", num_processes=2, process_id=1)
    """
    if None in (coordinator_address, num_processes, process_id) \
            or cluster_detection_method is not None:
        found = detect_cluster(cluster_detection_method)
        if found is not None:
            _, address, count, index = found
            coordinator_address = address if coordinator_address is None else coordinator_address
            num_processes = count if num_processes is None else num_processes
            process_id = index if process_id is None else process_id
        missing = [name for name, value in (("coordinator_address", coordinator_address),
                                            ("num_processes", num_processes),
                                            ("process_id", process_id)) if value is None]
        if missing:
            raise ValueError(f"distributed.initialize: {', '.join(missing)} not given, and "
                             f"this process was not started by a cluster funcarray recognises "
                             f"({', '.join(CLUSTER_NAMES)}); pass coordinator_address="
                             f"'host:port', num_processes= and process_id=")
    if not isinstance(num_processes, int) or num_processes < 1:
        raise ValueError(f"distributed.initialize: num_processes must be a positive int, got "
                         f"{num_processes!r}")
    if not isinstance(process_id, int) or not 0 <= process_id < num_processes:
        raise ValueError(f"distributed.initialize: process_id must be in [0, {num_processes}),"
                         f" got {process_id!r}")
    if not isinstance(coordinator_address, str) or ":" not in coordinator_address:
        raise ValueError(f"distributed.initialize: coordinator_address must be 'host:port', "
                         f"got {coordinator_address!r}")
    runtime.distributed_initialize(coordinator_address, num_processes, process_id,
                                   initialization_timeout)


def shutdown() -> None:
    """Leave the job (process 0 also stops the coordination service); nothing happens when
    ``initialize`` was not called.

    Example:
        >>> import funcarray as fa
        >>> fa.distributed.shutdown()
    """
    runtime.distributed_shutdown()


def is_initialized() -> bool:
    """Whether ``initialize`` has made this process part of a job.

    Example:
        >>> import funcarray as fa
        >>> fa.distributed.is_initialized()
        False
    """
    return bool(runtime.distributed_state())


def make_array_from_process_local_data(sharding: Any, local_data: Any,
                                       global_shape: Sequence[int] | None = None):
    """A global Array laid out as ``sharding`` from the part of it this process holds, as
    ``jax.make_array_from_process_local_data``: ``local_data`` is the box of the global
    array that this process's devices cover (each process passes its own), and each local
    device gets its block of it. ``global_shape`` defaults to ``local_data``'s shape with
    each dimension multiplied by the number of distinct process boxes along it (a batch split
    over processes along axis 0 gives ``(process_count() * rows, ...)``).

    Example:
        >>> import numpy as np
        >>> import funcarray as fa
        >>> s = fa.sharding.NamedSharding(fa.make_mesh((1,), ("x",)), fa.P("x"))
        >>> np.asarray(fa.make_array_from_process_local_data(s, np.arange(3.0)))
        array([0., 1., 2.])
    """
    where = "make_array_from_process_local_data"
    sharding = resolve_sharding(sharding, where)
    if not isinstance(sharding, NamedSharding):
        raise TypeError(f"{where}: expected a NamedSharding, got {type(sharding).__name__}")
    value = np.asarray(local_data)
    mine = {d for d in local_devices(backend=sharding.mesh.flat_devices[0].platform)}
    if global_shape is None:
        global_shape = _global_shape(sharding, value.shape, mine)
    shape = tuple(int(d) for d in global_shape)
    sharding.check_shape(shape)
    layout = addressable_layout(sharding, shape)
    if not layout:
        raise ValueError(f"{where}: {sharding!r} places nothing on this process's devices")
    box = _box(layout, shape)
    want = tuple(stop - start for start, stop in box)
    if value.shape != want:
        raise ValueError(f"{where}: this process's devices hold the part {box} (shape {want}) "
                         f"of the global shape {shape}, but local_data has shape {value.shape}")
    pieces = []
    for device, index in layout:
        local_index = tuple(slice(s.start - b0 if s.start is not None else 0,
                                  s.stop - b0 if s.stop is not None else None)
                            for s, (b0, _) in zip(_full(index, shape), box, strict=True))
        block = np.array(value[local_index], order="C", copy=True)
        pieces.append(runtime.device_put(block, runtime_device(device)))
    placement = canonical_sharding(sharding)
    buf = runtime.assemble_sharded(shape, value.dtype, placement, pieces)
    return device_array(placement, buf, canonical_aval(ShapedArray(shape, value.dtype)))


def _full(index: tuple, shape: tuple) -> tuple:
    """``index`` with every dimension an explicit ``slice(start, stop)``."""
    index = tuple(index) + (slice(None),) * (len(shape) - len(index))
    return tuple(slice(*s.indices(n)[:2]) for s, n in zip(index, shape, strict=True))


def _box(layout: list, shape: tuple) -> list:
    """The smallest box of the global array holding every local block: (start, stop) per
    dimension."""
    spans = [_full(index, shape) for _, index in layout]
    return [(min(s[k].start for s in spans), max(s[k].stop for s in spans))
            for k in range(len(shape))]


def _global_shape(sharding: NamedSharding, local_shape: tuple, mine: set) -> tuple:
    """jax's inference: along each dimension, the local size times the number of distinct
    process boxes (found from the layout of a trial shape where every block has size 1)."""
    if process_count() == 1:
        return tuple(local_shape)
    trial = tuple(int(np.prod([sharding.mesh.shape[a] for a in axes])) if axes else 1
                  for axes in (sharding.spec.normalized() + ((),) * len(local_shape))
                  [:len(local_shape)])
    layout = [(d, index) for d, index, _ in sharding.shard_layout(trial) if d in mine]
    box = _box(layout, trial)
    return tuple(n * t // (stop - start)
                 for n, t, (start, stop) in zip(local_shape, trial, box, strict=True))
