"""A static slice along one axis, written with ``slice_p.bind`` (so it runs eagerly and on
tracers alike): the composite rules here (the reductions' scans and tree reductions) and
the layers above (argument handling, vmap's chunks, the Jacobians' basis) share it.

Example:
    >>> import funcarray.numpy as fnp
    >>> slice_axis(fnp.arange(6).reshape(2, 3), 1, 0, 3, 2)
    Array([[0, 2],
           [3, 5]], dtype=int32)
"""

from __future__ import annotations

from funcarray.primitives.shape import slice_p

__all__ = ["slice_axis"]


def slice_axis(x, axis: int, start: int, stop: int, step: int = 1):
    """``x[..., start:stop:step, ...]`` along ``axis``, with ``0 <= start <= stop <= size``;
    ``x`` itself when that keeps every element (no equation is staged for it)."""
    if start == 0 and stop == x.shape[axis] and step == 1:
        return x
    starts, limits = [0] * x.ndim, list(x.shape)
    starts[axis], limits[axis] = start, stop
    strides = None  # (unit strides are None, as everywhere in the IR)
    if step != 1:
        strides = [1] * x.ndim
        strides[axis] = step
        strides = tuple(strides)
    return slice_p.bind(x, start_indices=tuple(starts), limit_indices=tuple(limits),
                        strides=strides)
