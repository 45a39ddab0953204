"""Recycled memory for large eager outputs.

A fresh NumPy allocation of hundreds of MB is mapped by the OS page by page on first write,
each page zeroed first: for the per-example weight gradients of an MLP (128 x 784 x 512
floats) that is about a third of the kernel's time. Like PyTorch's CUDA caching allocator, the
eager kernels that make such outputs (``parallel_multiply``) take them from a small pool of
buffers whose earlier arrays are all gone (nothing but the pool references them), so a
training loop reuses the same memory at every step.

Bounded: only outputs of at least ``RECYCLE_MIN_BYTES``, at most
``funcarray.config.eager_buffer_pool_bytes`` held in all (0 turns recycling off);
``funcarray.clear_caches()`` lets the pool's memory go.

Example:
    >>> import numpy as np
    >>> out = empty((4, 3), np.float32)  # small: a plain np.empty
    >>> out.shape, out.dtype
    ((4, 3), dtype('float32'))
"""

from __future__ import annotations

import math
import sys
import threading

import numpy as np

from funcarray.base.config import config

__all__ = ["empty", "release", "pooled_bytes", "RECYCLE_MIN_BYTES"]

RECYCLE_MIN_BYTES = 16 << 20

_pool: list[np.ndarray] = []  # flat uint8 buffers; arrays handed out are views of them
_lock = threading.Lock()  # finding a free buffer and viewing it must not interleave


def _refcount_when_free() -> int:
    """``sys.getrefcount`` of a pooled buffer that no array views, as seen inside the scan
    loop of ``empty`` (measured, not assumed: it differs between Python versions)."""
    probe = [np.empty(1, np.uint8)]
    count = 0
    for base in probe:
        count = sys.getrefcount(base)
    return count


_FREE = _refcount_when_free()


def empty(shape, dtype) -> np.ndarray:
    """``np.empty(shape, dtype)``, recycling a pooled buffer for large outputs."""
    dtype = np.dtype(dtype)
    nbytes = math.prod(shape) * dtype.itemsize
    limit = config.eager_buffer_pool_bytes
    if nbytes < RECYCLE_MIN_BYTES or limit <= 0:
        return np.empty(shape, dtype)
    with _lock:
        for base in _pool:
            if base.nbytes == nbytes and sys.getrefcount(base) == _FREE:
                return base.view(dtype).reshape(shape)
        base = np.empty(nbytes, np.uint8)
        _make_room(nbytes, limit)
        if sum(b.nbytes for b in _pool) + nbytes <= limit:
            _pool.append(base)
        return base.view(dtype).reshape(shape)


def _make_room(nbytes: int, limit: int) -> None:
    """Forget free buffers, oldest first, until ``nbytes`` more fit under ``limit``."""
    held = sum(b.nbytes for b in _pool)
    k = 0
    while held + nbytes > limit and k < len(_pool):
        base = _pool[k]
        if sys.getrefcount(base) == _FREE:
            del _pool[k]
            held -= base.nbytes
        else:
            k += 1


def release() -> None:
    """Forget every pooled buffer (arrays still using one keep it alive)."""
    with _lock:
        _pool.clear()


def pooled_bytes() -> int:
    """Bytes the pool holds, free or in use."""
    return sum(b.nbytes for b in _pool)
