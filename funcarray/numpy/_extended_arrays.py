"""The ``funcarray.numpy`` functions JAX allows on arrays of an extended dtype (typed PRNG
keys): ``asarray``, ``concatenate``, ``stack``, ``where``, ``broadcast_to``, ``expand_dims``.

Such an array is a pytree node over its data, of shape ``shape + dtype.element_shape``
(``base.dtypes.ExtendedDType``), so each function runs on the data, with axes counted over
the array's own shape, and rebuilds the array. The general functions pass themselves in as
the data operation (this module imports none of them).

Example:
    >>> import funcarray.numpy as fnp, funcarray.random as fr
    >>> fnp.concatenate([fr.split(fr.key(0), 2), fr.split(fr.key(1), 3)]).shape
    (5,)
"""

from __future__ import annotations

from typing import Any

from funcarray.base import dtypes
from funcarray.base import pytrees as fa_tree
from funcarray.base.errors import op_value_error

__all__ = ["is_extended", "any_extended", "extended_join", "extended_where",
           "extended_broadcast", "extended_expand_dims"]


def is_extended(x: Any) -> bool:
    return isinstance(getattr(x, "dtype", None), dtypes.ExtendedDType)


def any_extended(xs: Any) -> bool:
    return isinstance(xs, (list, tuple)) and any(is_extended(x) for x in xs)


def _data(op: str, arrays: list) -> tuple[list, Any, Any]:
    """The data of ``arrays`` (all of one extended dtype), the tree that rebuilds one of them,
    and the dtype."""
    dtype = arrays[0].dtype if is_extended(arrays[0]) else None
    for x in arrays:
        if not is_extended(x) or x.dtype != dtype:
            got = ", ".join(str(getattr(a, "dtype", type(a).__name__)) for a in arrays)
            # A ValueError, as jax's (its promotion finds no common dtype).
            raise op_value_error(op, f"takes arrays of one extended dtype together, got {got}")
    flat = [fa_tree.flatten(x) for x in arrays]
    return [leaves[0] for leaves, _ in flat], flat[0][1], dtype


def _axis(op: str, axis: int, ndim: int) -> int:
    if not -ndim <= axis < ndim:
        raise op_value_error(op, f"axis {axis} is out of bounds for an array of {ndim} "
                                 f"dimensions")
    return axis % ndim


def extended_join(op: str, arrays: list, axis: int | None, new_axis: bool, joiner):
    """``concatenate`` (``new_axis=False``) or ``stack`` of extended arrays, ``joiner`` the
    general function doing it to their data."""
    datas, tree, dtype = _data(op, list(arrays))
    element = dtype.element_shape
    if axis is None:  # concatenate's flattened form
        datas, axis = [d.reshape((-1, *element)) for d in datas], 0
    axis = _axis(op, axis, arrays[0].ndim + new_axis)
    return fa_tree.unflatten(tree, [joiner(datas, axis=axis)])


def extended_where(condition, x, y, where, asarray):
    """``where(condition, x, y)`` of two extended arrays: the condition broadcasts over their
    shape and selects whole elements."""
    (dx, dy), tree, dtype = _data("where", [x, y])
    condition = asarray(condition)
    trailing = (1,) * len(dtype.element_shape)
    return fa_tree.unflatten(tree, [where(condition.reshape(condition.shape + trailing),
                                          dx, dy)])


def extended_broadcast(x, shape: tuple, broadcast_to):
    ([data], tree, dtype) = _data("broadcast_to", [x])
    return fa_tree.unflatten(tree, [broadcast_to(data, (*shape, *dtype.element_shape))])


def extended_expand_dims(x, axis, expand_dims):
    ([data], tree, _) = _data("expand_dims", [x])
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    out_ndim = x.ndim + len(axes)
    return fa_tree.unflatten(
        tree, [expand_dims(data, tuple(_axis("expand_dims", a, out_ndim) for a in axes))])
