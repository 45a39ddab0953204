"""Host shortcuts of the shape functions (``funcarray.transforms.host_shortcuts``): reshaping,
transposing, adding and removing axes, joining, computed with NumPy at once.

Each shortcut takes the same arguments as the function it speeds up (in ``_shape``) and
handles only concrete host arrays (``Array``, ``DeviceArray``) with plain Python-int shapes
and axes that are valid; anything else (a list operand, a NumPy int axis, a bad axis, an
element count that does not fit) returns ``NotImplemented``, so the general path runs and
raises its own error. The results are those of the general path: the same weak type, NumPy
views where the general path's kernels give a view or a copy of the same values (values
inside Arrays are never written), and the operand itself where the general path returns it
(an identity permutation, a reshape to the same shape).

The axis helpers here are shared with the reductions' shortcuts (``_reductions_on_host``).

Example:
    >>> import funcarray.numpy as fnp
    >>> _reshape_on_host(fnp.arange(6), (2, -1)).shape
    (2, 3)
    >>> _reshape_on_host(fnp.arange(6), (4, -1))  # does not fit: the general path raises
    NotImplemented
"""

from __future__ import annotations

import numpy as np

from funcarray.base import dtypes
from funcarray.base.array import Array, DeviceArray, new_array
from funcarray.primitives.conversions import convert_kernel
from funcarray.transforms.host_shortcuts import host_value

__all__ = [
    "host_axis", "host_axes", "host_sorted_axes", "host_dims", "host_operands",
    "host_concatenate",
    "_reshape_on_host", "_ravel_on_host", "_transpose_on_host", "_permute_dims_on_host",
    "_matrix_transpose_on_host", "_moveaxis_on_host", "_swapaxes_on_host",
    "_expand_dims_on_host", "_squeeze_on_host", "at_least_1d_shape", "at_least_2d_shape",
    "at_least_3d_shape", "_atleast_1d_on_host", "_atleast_2d_on_host", "_atleast_3d_on_host",
    "_concatenate_on_host", "_concat_on_host",
    "_stack_on_host", "_vstack_on_host", "_hstack_on_host", "_dstack_on_host",
    "_column_stack_on_host",
]


# --------------------------------------------------------------------------------------------
# Axes given as Python ints (None: decline, the general path parses or rejects the rest)
# --------------------------------------------------------------------------------------------

def host_axis(axis, ndim: int):
    """A valid Python-int ``axis`` of an ``ndim``-d array as a non-negative int, or None."""
    if type(axis) is int and -ndim <= axis < ndim:
        return axis + ndim if axis < 0 else axis
    return None


def host_axes(axes, ndim: int):
    """An int or a tuple/list of distinct valid Python-int axes as a tuple of non-negative
    axes in the given order, or None."""
    if type(axes) is int:
        axis = host_axis(axes, ndim)
        return None if axis is None else (axis,)
    if type(axes) is not tuple and type(axes) is not list:
        return None
    out = []
    for a in axes:
        if type(a) is not int or not -ndim <= a < ndim:
            return None
        out.append(a + ndim if a < 0 else a)
    out = tuple(out)
    return out if len(set(out)) == len(out) else None


def host_sorted_axes(axis, ndim: int):
    """``axis`` of a reduction (None: all of them) as sorted non-negative axes, or None."""
    if axis is None:
        return tuple(range(ndim))
    if type(axis) is int:
        if -ndim <= axis < ndim:
            return (axis + ndim if axis < 0 else axis,)
        return None
    axes = host_axes(axis, ndim)
    return None if axes is None else tuple(sorted(axes))


def host_shape(shape):
    """``shape`` given as a Python int or a tuple/list of them, as a tuple, or None."""
    if type(shape) is int:
        return (shape,)
    if type(shape) is not tuple and type(shape) is not list:
        return None
    for d in shape:  # (a loop: all() over a generator costs twice as much)
        if type(d) is not int:
            return None
    return tuple(shape)


def host_dims(shape):
    """The shape of a new array given as a non-negative Python int or a tuple/list of them,
    as a tuple, or None."""
    shape = host_shape(shape)
    return None if shape is None or min(shape, default=0) < 0 else shape


def host_operands(arrays):
    """The values of a non-empty list or tuple of host arrays, converted to their promoted
    dtype, and that dtype's weak type, as ``_promote_all`` gives them; None to decline."""
    if (type(arrays) is not list and type(arrays) is not tuple) or not arrays:
        return None
    values, weak, dtype, mixed = [], True, None, False
    for a in arrays:  # (one loop, no generators: joins of a few small arrays are hot)
        t = type(a)
        if t is not Array and t is not DeviceArray:
            return None
        v = a._value
        if dtype is None:
            dtype = v.dtype
        elif v.dtype != dtype:
            mixed = True
        weak = weak and a._weak
        values.append(v)
    if not mixed:
        return values, weak
    dtype, weak = dtypes.result_type(*arrays, return_weak_type=True)
    return [convert_kernel(v, dtype) for v in values], weak


# --------------------------------------------------------------------------------------------
# Reshaping
# --------------------------------------------------------------------------------------------

def _reshape_on_host(a, shape, order="C", *, copy=None):
    x = host_value(a)
    if x is None or order != "C":
        return NotImplemented
    if type(shape) is int:
        shape = (shape,)
    elif type(shape) is list:
        shape = tuple(shape)
    elif type(shape) is not tuple:
        return NotImplemented
    # (one loop, not the general path's parsing: x.reshape(-1) is called in inner loops)
    known, unknown = 1, -1
    for i, d in enumerate(shape):
        if type(d) is not int:
            return NotImplemented
        if d >= 0:
            known *= d
        elif d == -1 and unknown < 0:
            unknown = i
        else:
            return NotImplemented  # a size below -1, or a second -1
    size = x.size
    if unknown >= 0:
        if known == 0 or size % known:
            return NotImplemented
        shape = (*shape[:unknown], size // known, *shape[unknown + 1:])
    elif known != size:
        return NotImplemented
    if x.shape == shape:
        return a
    return Array(x.reshape(shape), a._weak)


def _ravel_on_host(a, order="C"):
    t = type(a)
    if (t is not Array and t is not DeviceArray) or order != "C":
        return NotImplemented
    x = a._value
    if x.ndim == 1:
        return a
    return Array(x.reshape(-1), a._weak)


def _transpose_on_host(a, axes=None):
    x = host_value(a)
    if x is None:
        return NotImplemented
    if axes is None:
        return a if x.ndim < 2 else Array(x.T, a._weak)
    perm = host_axes(axes, x.ndim)
    if perm is None or len(perm) != x.ndim:
        return NotImplemented
    if perm == tuple(range(x.ndim)):
        return a
    return Array(x.transpose(perm), a._weak)


def _permute_dims_on_host(a, /, axes):
    return NotImplemented if axes is None else _transpose_on_host(a, axes)


def _matrix_transpose_on_host(x, /):
    t = type(x)
    if (t is not Array and t is not DeviceArray) or x._value.ndim < 2:
        return NotImplemented
    return Array(x._value.swapaxes(-1, -2), x._weak)


def _moveaxis_on_host(a, source, destination):
    x = host_value(a)
    if x is None:
        return NotImplemented
    source, destination = host_axes(source, x.ndim), host_axes(destination, x.ndim)
    if source is None or destination is None or len(source) != len(destination):
        return NotImplemented
    # Axis source[i] lands at destination[i]: the identity exactly when the two agree.
    if source == destination:
        return a
    return Array(np.moveaxis(x, source, destination), a._weak)


def _swapaxes_on_host(a, axis1, axis2):
    x = host_value(a)
    if x is None:
        return NotImplemented
    i, j = host_axis(axis1, x.ndim), host_axis(axis2, x.ndim)
    if i is None or j is None:
        return NotImplemented
    return a if i == j else Array(x.swapaxes(i, j), a._weak)


def _expand_dims_on_host(a, axis):
    x = host_value(a)
    if x is None:
        return NotImplemented
    requested = (axis,) if type(axis) is int else axis
    if type(requested) is not tuple and type(requested) is not list:
        return NotImplemented
    new_axes = host_axes(requested, x.ndim + len(requested))
    if new_axes is None:
        return NotImplemented
    if not new_axes:
        return a
    shape = list(x.shape)
    for d in sorted(new_axes):
        shape.insert(d, 1)
    return Array(x.reshape(shape), a._weak)


def _squeeze_on_host(a, axis=None):
    x = host_value(a)
    if x is None:
        return NotImplemented
    shape = x.shape
    if axis is None:  # (NumPy's squeeze: every axis of size 1, a view)
        return a if 1 not in shape else Array(x.squeeze(), a._weak)
    axes = host_axes(axis, x.ndim)
    if axes is None or any(shape[d] != 1 for d in axes):
        return NotImplemented
    kept = tuple(d for i, d in enumerate(shape) if i not in axes)
    return a if len(kept) == len(shape) else Array(x.reshape(kept), a._weak)


# --------------------------------------------------------------------------------------------
# At least n dimensions: the new shape of an operand, or None where it is kept as it is
# (shared with the general path)
# --------------------------------------------------------------------------------------------

def at_least_1d_shape(shape: tuple):
    """The shape ``atleast_1d`` gives an array of ``shape`` (None: the array itself)."""
    return (1,) if not shape else None


def at_least_2d_shape(shape: tuple):
    """The shape ``atleast_2d`` gives an array of ``shape``: ``(N,)`` becomes ``(1, N)``."""
    return (1,) * (2 - len(shape)) + shape if len(shape) < 2 else None


def at_least_3d_shape(shape: tuple):
    """The shape ``atleast_3d`` gives an array of ``shape``: ``(N,)`` becomes ``(1, N, 1)``,
    ``(M, N)`` becomes ``(M, N, 1)``."""
    ndim = len(shape)
    if ndim == 0:
        return (1, 1, 1)
    if ndim == 1:
        return (1, shape[0], 1)
    return shape + (1,) if ndim == 2 else None


def _at_least_on_host(arys, lifted_shape):
    outs = []
    for a in arys:
        x = host_value(a)
        if x is None:
            return NotImplemented
        shape = lifted_shape(x.shape)
        outs.append(a if shape is None else new_array(x.reshape(shape), a._weak))
    if not outs:
        return NotImplemented
    return outs[0] if len(outs) == 1 else outs


def _atleast_1d_on_host(*arys):
    return _at_least_on_host(arys, at_least_1d_shape)


def _atleast_2d_on_host(*arys):
    return _at_least_on_host(arys, at_least_2d_shape)


def _atleast_3d_on_host(*arys):
    return _at_least_on_host(arys, at_least_3d_shape)


# --------------------------------------------------------------------------------------------
# Joining
# --------------------------------------------------------------------------------------------

def _concat_on_host(arrays, /, *, axis=0):
    return host_concatenate(arrays, axis)


def _concatenate_on_host(arrays, axis=0, dtype=None):
    return host_concatenate(arrays, axis) if dtype is None else NotImplemented


def host_concatenate(arrays, axis):
    """``concatenate(arrays, axis)`` of host arrays (the one operand itself where the general
    path returns it), or NotImplemented."""
    operands = host_operands(arrays)
    if operands is None:
        return NotImplemented
    values, weak = operands
    if axis is None:
        if len(values) == 1:
            v = values[0]
            # the one operand, flattened (a 1-d one comes back as it is)
            return arrays[0] if v.ndim == 1 else new_array(v.reshape(-1), weak)
        values, axis = [v.reshape(-1) for v in values], 0
    ndim = values[0].ndim
    if type(axis) is not int or not -ndim <= axis < ndim:  # (a 0-d operand: ndim 0)
        return NotImplemented
    for v in values:
        if v.ndim != ndim:
            return NotImplemented
    if len(values) == 1:
        return arrays[0]  # the general path returns the one operand as it is
    return new_array(np.concatenate(values, axis=axis), weak)


def _stack_on_host(arrays, axis=0, out=None, dtype=None):
    if out is not None or dtype is not None:
        return NotImplemented
    operands = host_operands(arrays)
    if operands is None:
        return NotImplemented
    values, weak = operands
    shape = values[0].shape
    if any(v.shape != shape for v in values):
        return NotImplemented
    axis = host_axis(axis, len(shape) + 1)
    if axis is None:
        return NotImplemented
    return Array(np.stack(values, axis=axis), weak)


def _stacked_with(numpy_stack):
    """The shortcut of ``vstack``-like ``fn(tup, dtype=None)``: ``numpy_stack`` (np.vstack...)
    of the promoted values, which makes the operands 1-, 2- or 3-d as the general path
    does; a mismatch raises in NumPy, and the general path then raises its own error."""
    def stack_on_host(tup, dtype=None):
        if dtype is not None:
            return NotImplemented
        operands = host_operands(tup)
        if operands is None:
            return NotImplemented
        values, weak = operands
        return Array(numpy_stack(values), weak)
    return stack_on_host


_vstack_on_host = _stacked_with(np.vstack)
_hstack_on_host = _stacked_with(np.hstack)
_dstack_on_host = _stacked_with(np.dstack)
_column_stack_on_host = _stacked_with(np.column_stack)  # (it has no dtype argument)
