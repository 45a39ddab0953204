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
from funcarray.base import pytrees as tree
from funcarray.base.array import Array
from funcarray.lowering.devices import runtime_device
from funcarray.lowering.executor import from_buffer, to_buffer
from funcarray.transforms.core import Tracer

__all__ = ["block_until_ready", "device_get", "device_put"]


def device_put(x, device=None):
    """``x`` with every array placed on ``device`` (the default device when None): an Array,
    NumPy array or Python scalar, or a pytree of them (lists and dicts are containers, as in
    JAX). An Array already on ``device`` is returned as it is.

    Example:
        >>> import funcarray as fa
        >>> x = fa.device_put(fa.numpy.array([1.0, 2.0]), fa.devices()[0])
        >>> x, x.device
        (Array([1., 2.], dtype=float32), CpuDevice(id=0))
        >>> fa.device_put({"w": 1.0, "b": None})
        {'w': Array(1., dtype=float32, weak_type=True), 'b': None}
    """
    jdev = runtime_device(device)

    def put(leaf):
        leaf = asarray_arg("device_put", leaf)
        entry = getattr(leaf, "_buf", None)
        if entry is not None and entry[0] == jdev:
            return leaf
        return from_buffer(to_buffer(leaf, jdev), leaf.aval, jdev)

    return tree.map(put, x)


def device_get(x):
    """``x`` with every Array fetched to the host as a NumPy array (a pytree of them; other
    leaves are returned as they are), like ``jax.device_get``.

    Example:
        >>> import funcarray as fa
        >>> fa.device_get({"w": fa.numpy.ones(2), "step": 3})
        {'w': array([1., 1.], dtype=float32), 'step': 3}
    """
    return tree.map(lambda leaf: np.asarray(leaf) if isinstance(leaf, Array) else leaf, x)


def block_until_ready(x):
    """Wait until every Array in the pytree ``x`` is computed, and return ``x``, like
    ``jax.block_until_ready`` (timing code calls it before reading the clock).

    Example:
        >>> import funcarray as fa
        >>> out = fa.block_until_ready(fa.jit(lambda x: x * 2)(fa.numpy.ones(2)))
    """
    for leaf in tree.leaves(x):
        if isinstance(leaf, Array) and not isinstance(leaf, Tracer):
            leaf.block_until_ready()
    return x


