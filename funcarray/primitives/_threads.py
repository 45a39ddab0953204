"""Large, memory-bound eager kernels split over the CPU's cores.

NumPy runs a ufunc on one core, while XLA's CPU backend (and so jax eager) uses all of them.
For the few eager kernels whose output is large and cheap to compute per element (the outer
products of per-example gradients write 128 x 784 x 512 floats), filling the output in slices
from a small thread pool is ~1.7x faster on 2 cores: NumPy releases the GIL inside ufunc
loops, and the page faults of a fresh output allocation are served in parallel. The output
comes from ``_buffers`` (recycled memory: no page faults at all in a training loop).

Example:
    >>> import numpy as np
    >>> a, b = np.ones((4, 3, 1)), np.full((4, 1, 2), 2.0)
    >>> parallel_multiply(a, b).shape
    (4, 3, 2)
"""

from __future__ import annotations

import math
import os
import typing

import numpy as np

from funcarray.primitives import _buffers

__all__ = ["parallel_multiply", "PARALLEL_MIN_ELEMENTS"]

# Below this many output elements a thread hand-off (~20 us) costs more than it saves.
PARALLEL_MIN_ELEMENTS = 1 << 21

if typing.TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

_pool: ThreadPoolExecutor | None = None
_pool_pid = -1


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def _executor() -> ThreadPoolExecutor:
    # A pool made before a fork has no threads in the child: make a fresh one there.
    global _pool, _pool_pid
    if _pool is None or _pool_pid != os.getpid():
        # (imported here: concurrent.futures brings logging and queue, ~3 ms of start-up
        # for a pool that only large products use)
        from concurrent.futures import ThreadPoolExecutor

        _pool, _pool_pid = ThreadPoolExecutor(min(_cores(), 8), "funcarray-kernel"), os.getpid()
    return _pool


def parallel_multiply(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a * b`` with NumPy broadcasting; a large result is computed in slices of its first
    long axis, one per core (identical values: each element is one product either way)."""
    shape = np.broadcast_shapes(a.shape, b.shape)
    size = math.prod(shape)
    dtype = np.result_type(a, b)
    if size < PARALLEL_MIN_ELEMENTS and size * dtype.itemsize < _buffers.RECYCLE_MIN_BYTES:
        return a * b  # small: nothing to split or recycle
    out = _buffers.empty(shape, dtype)
    workers = _cores()
    axis = next((i for i, n in enumerate(shape) if n >= workers), None)
    if workers < 2 or size < PARALLEL_MIN_ELEMENTS or axis is None:
        return np.multiply(a, b, out=out)
    n = shape[axis]
    bounds = [n * i // workers for i in range(workers + 1)]
    futures = [
        _executor().submit(np.multiply, _part(a, axis, lo, hi, len(shape)),
                           _part(b, axis, lo, hi, len(shape)),
                           out=_part(out, axis, lo, hi, len(shape)))
        for lo, hi in zip(bounds, bounds[1:])
    ]
    for future in futures:
        future.result()
    return out


def _part(x: np.ndarray, axis: int, lo: int, hi: int, ndim: int) -> np.ndarray:
    """Rows ``lo:hi`` of the output's ``axis`` as seen by operand ``x`` (an operand that
    broadcasts along that axis is used whole)."""
    axis -= ndim - x.ndim  # x's own axes are the last x.ndim of the output's
    if axis < 0 or x.shape[axis] == 1:
        return x
    return x[(slice(None),) * axis + (slice(lo, hi),)]
