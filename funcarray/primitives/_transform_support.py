"""Registers the operations the transforms need (see ``transforms/support.py``), built from
funcarray's own primitives so that they are traced like any other operation."""

from __future__ import annotations

import numpy as np

from funcarray.base.array import Array
from funcarray.primitives.elementwise import add_p
from funcarray.primitives.shape import broadcast_in_dim_p, transpose_p
from funcarray.transforms import support


def _add(x, y):
    return add_p.bind(x, y)


def _zeros(aval):
    scalar = Array(np.zeros((), aval.dtype))
    return broadcast_in_dim_p.bind(scalar, shape=tuple(aval.shape), broadcast_dimensions=())


def _moveaxis(x, src: int, dst: int):
    if src == dst:
        return x
    perm = [d for d in range(x.ndim) if d != src]
    perm.insert(dst, src)
    return transpose_p.bind(x, permutation=tuple(perm))


def _broadcast_batch(x, size: int, axis: int):
    shape = list(x.shape)
    shape.insert(axis, size)
    dims = tuple(d if d < axis else d + 1 for d in range(x.ndim))
    return broadcast_in_dim_p.bind(x, shape=tuple(shape), broadcast_dimensions=dims)


support.register(add=_add, zeros=_zeros, moveaxis=_moveaxis, broadcast_batch=_broadcast_batch,
                 broadcast_in_dim_p=broadcast_in_dim_p)
