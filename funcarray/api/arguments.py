"""Argument conversion shared by ``funcarray.lax``, ``funcarray.numpy``, the libraries and the
API functions (``grad``, ``jit``, callbacks...): user arguments to Arrays, dtype conversion,
shapes and axes.

This is where Python scalars, NumPy arrays, nested lists and negative axes become the strict
operands and parameters that primitives accept. NumPy's promotion of mixed operands lives
above, in ``funcarray.numpy._promotion``; nothing here promotes beyond joining a list of arrays.
"""

from __future__ import annotations

import operator

import numpy as np

from funcarray.base import dtypes
from funcarray.base.array import Array, DeviceArray, new_array
from funcarray.base.errors import axis_error, int_out_of_range_error, op_type_error, op_value_error
from funcarray.base.host_values import host_array
from funcarray.primitives._axis_slice import slice_axis
from funcarray.primitives.conversions import convert_element_type_p
from funcarray.primitives.shape import (
    broadcast_in_dim_p,
    concatenate_p,
    reshape_p,
    rev_p,
    transpose_p,
)
from funcarray.transforms.core import ConcretizationError, Tracer


def is_array(x) -> bool:
    """True for funcarray Arrays and tracers (anything ``bind`` accepts as an operand)."""
    # (Exact types and Tracer first: Array's isinstance check is a Python-level call for
    # anything but an exact Array, see array._ArrayMeta.)
    t = type(x)
    return t is Array or t is DeviceArray or isinstance(x, (Tracer, Array))


def _kind(seq) -> str:
    """NumPy's dtype kind of a nested sequence of Python scalars ("" if it is ragged)."""
    try:
        return np.asarray(seq).dtype.kind
    except ValueError:
        return ""


def _contains_arrays(seq) -> bool:
    for item in seq:
        if is_array(item) or isinstance(item, (np.ndarray, np.generic)):
            return True
        if isinstance(item, (list, tuple)) and _contains_arrays(item):
            return True
    return False


# The dtype each Python scalar type stands for as an input (a Python int is an int32 input,
# as in JAX; the arrays made from them are weakly typed).
PYTHON_SCALAR_DTYPES = {bool: np.dtype(bool), int: np.dtype(np.int32),
                        float: np.dtype(np.float32), complex: np.dtype(np.complex64)}


def asarray_arg(op: str, x, dtype=None):
    """Convert a user argument to an Array (or pass a tracer through).

    Python scalars become weak-typed arrays; NumPy arrays are copied and keep their dtype
    (float64 stays float64); lists of Python numbers default to int32/float32.
    """
    if is_array(x):
        return x if dtype is None else convert(x, dtypes.canonicalize_dtype(dtype))
    if isinstance(x, (list, tuple)) and _contains_arrays(x):
        out = _stack_arrays("stack", [asarray_arg(op, item) for item in x], 0)
        # A list built from arrays is a strong array, as in JAX, even if every item is weak.
        target = out.dtype if dtype is None else dtypes.canonicalize_dtype(dtype)
        return convert(out, target, weak_type=False)
    return host_array(op, x, dtype)


def convert(x, dtype, weak_type: bool = False):
    """Convert an Array/tracer to ``dtype`` (no-op when it already has it)."""
    if x.dtype == dtype and x.weak_type == weak_type:
        return x
    return convert_element_type_p.bind(x, new_dtype=np.dtype(dtype), weak_type=weak_type)


def convert_arg(op: str, x, dtype, weak_type: bool = False):
    """``convert(asarray_arg(op, x), dtype, weak_type)`` without rounding Python floats to
    float32 on the way: ``asarray_arg`` stores a Python float (or a list of them) as a weak
    float32, so converting that to float64 would keep float32's rounding (0.1 would become
    0.10000000149). Python floats and complexes (and lists of them) are taken at double
    precision instead; to an integer dtype they truncate as ``convert_element_type`` does.

    Example:
        >>> convert_arg("op", 0.1, np.float64).item()
        0.1
        >>> convert_arg("op", 2.7, np.int32)
        Array(2, dtype=int32)
    """
    t = type(x)
    dtype = dtypes.canonicalize_dtype(dtype)
    if t is float or t is complex:
        x = Array(np.asarray(x, np.complex128 if t is complex else np.float64))
    elif (t is list or t is tuple) and not _contains_arrays(x):
        x = Array(np.asarray(x)) if _kind(x) in "fc" else asarray_arg(op, x, dtype)
    elif t is int and not -2**31 <= x < 2**31:
        # Beyond the default int32 a Python int is converted as jax's convert_element_type
        # does: to bool whether it is nonzero, to an integer dtype wrapped modulo its width
        # when it fits 64 bits (full((2,), 2**32 + 5, dtype=int8) is 5); otherwise taken in
        # the dtype asked for directly, and asarray_arg says clearly if it does not fit.
        if dtype.kind == "b":
            x = asarray_arg(op, x != 0)
        elif dtype.kind in "iu" and -2**63 <= x < 2**64:
            x = Array(np.asarray(x, np.uint64 if x >= 2**63 else np.int64))
        else:
            x = asarray_arg(op, x, dtype)
    else:
        x = asarray_arg(op, x)
    return convert(x, dtype, weak_type)


def broadcast_shapes(op: str, *shapes) -> tuple:
    """NumPy's broadcasting of shapes, with an error that names the operation and shapes."""
    if len(shapes) == 2 and shapes[0] == shapes[1]:
        return tuple(shapes[0])
    ndim = max(len(s) for s in shapes)
    out = []
    for i in range(ndim):
        size = 1
        for s in shapes:
            d = s[i - ndim + len(s)] if i - ndim + len(s) >= 0 else 1
            if d != 1:
                if size != 1 and size != d:
                    raise op_value_error(
                        op, f"shapes {' and '.join(str(tuple(s)) for s in shapes)} cannot be "
                            f"broadcast together (dimension {i - ndim} has sizes {size} and {d}). "
                            f"Reshape or expand_dims one operand so the trailing dimensions "
                            f"match or are 1.")
                size = d
        out.append(size)
    return tuple(out)


def broadcast_to_shape(x, shape):
    """Broadcast an Array/tracer to ``shape`` with NumPy's rules (trailing alignment)."""
    if x.shape == shape:
        return x
    lead = len(shape) - x.ndim
    return broadcast_in_dim_p.bind(
        x, shape=tuple(shape), broadcast_dimensions=tuple(range(lead, len(shape))))


def _broadcast_to_checked(op: str, array, shape: tuple):
    """``array`` broadcast to ``shape`` with NumPy's rules, or an error naming both shapes."""
    lead = len(shape) - array.ndim
    fits = lead >= 0 and all(d >= 0 for d in shape) and all(
        size in (1, target) for size, target in zip(array.shape, shape[lead:]))
    if not fits:
        raise op_value_error(
            op, f"cannot broadcast an array of shape {array.shape} to shape "
                f"{shape}: each trailing axis must match the target or be 1")
    return broadcast_to_shape(array, shape)


def _scalar_operand(op: str, scalar, dtype) -> Array:
    try:
        return new_array(dtype.type(scalar), True)  # a NumPy scalar: ~3x cheaper than a 0-d array
    except OverflowError:
        raise int_out_of_range_error(op, scalar, dtype) from None


_new_object = object.__new__


def host_view(x):
    """``x``, or for a DeviceArray an Array over its host value (fetched once) with its weak
    type and cached device buffer: for eager code that runs NumPy kernels, where the host
    Array fast paths then apply. Only call it when NumPy kernels run (on an accelerator the
    value must stay on the device).

    Example:
        >>> import funcarray as fa
        >>> y = fa.jit(lambda x: x * 2)(fa.numpy.ones(2))
        >>> type(host_view(y)).__name__, host_view(y)
        ('Array', Array([2., 2.], dtype=float32))
    """
    if type(x) is not DeviceArray:
        return x
    view = _new_object(Array)
    view._value = x._value
    view._weak = x._weak
    view._buf = x._buf
    return view


def to_inexact_dtype(dtype) -> np.dtype:
    """The float dtype integer/bool inputs are computed in (int64 -> float64, else float32)."""
    if dtypes.is_inexact(dtype):
        return np.dtype(dtype)
    return dtypes.float64 if np.dtype(dtype).itemsize == 8 else dtypes.float32


def canonicalize_axis(op: str, axis, ndim: int) -> int:
    """A possibly negative axis as a non-negative int, or a clear out-of-range error."""
    try:
        axis = int(axis.__index__())
    except (AttributeError, TypeError):
        raise op_type_error(op, f"axis must be an integer, got {axis!r}") from None
    if not -ndim <= axis < ndim:
        raise axis_error(op, axis, ndim)
    return axis % ndim if ndim else axis


def canonicalize_axes(op: str, axis, ndim: int) -> tuple:
    """``None`` (all axes), an int or a sequence of ints as a sorted tuple of unique axes."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (tuple, list)):
        axes = tuple(canonicalize_axis(op, a, ndim) for a in axis)
        if len(set(axes)) != len(axes):
            raise op_value_error(op, f"repeated axis in {tuple(axis)}")
        return tuple(sorted(axes))
    return (canonicalize_axis(op, axis, ndim),)


# --------------------------------------------------------------------------------------------
# Concrete ints, axes and joining (a list of arrays is stacked; lax and numpy share these)
# --------------------------------------------------------------------------------------------

def _concrete_int(op: str, value, what: str) -> int:
    """``value`` as a Python int; a traced value raises the usual concretization error."""
    try:
        return int(operator.index(value))
    except ConcretizationError:
        raise
    except TypeError:
        raise op_type_error(op, f"{what} must be an integer, got {value!r}") from None


def _is_single_int(value) -> bool:
    return isinstance(value, (int, np.integer)) or (
        getattr(value, "ndim", None) == 0 and not isinstance(value, (list, tuple)))


def _int_tuple(op: str, value, what: str, *, sequence_only: bool = False) -> tuple:
    """An int or a sequence of ints (a tuple, a list, a concrete 1-d array) as a tuple of
    Python ints; with ``sequence_only`` (jax.lax's rule) only a tuple, a list or a NumPy array
    of ints, an error naming the whole ``value`` otherwise."""
    if sequence_only:
        if isinstance(value, np.ndarray):
            value = value.tolist()
        if isinstance(value, (tuple, list)):
            try:
                return tuple(operator.index(v) for v in value)
            except TypeError:
                pass
        raise op_type_error(op, f"{what} must be a sequence of ints, got {value!r}")
    if _is_single_int(value):
        return (_concrete_int(op, value, what),)
    if isinstance(value, Tracer):
        raise value._concretization_error(f"{op}: {what}")
    try:
        items = list(value)
    except TypeError:
        raise op_type_error(op, f"{what} must be an int or a sequence of ints, "
                                f"got {value!r}") from None
    return tuple(_concrete_int(op, v, what) for v in items)


def _axis(op: str, axis, shape, ndim: int | None = None) -> int:
    """A possibly negative axis as a non-negative int: an axis of an array of ``shape``, or,
    when ``ndim`` is given, of the ``ndim``-d result made from it (expand_dims, stack)."""
    what = f"an array of shape {tuple(shape)}"
    if ndim is None:
        ndim = len(shape)
    else:
        what = f"the {ndim}-d result made from {what}"
    try:
        return canonicalize_axis(op, axis, ndim)
    except ValueError:
        valid = f"valid axes are {-ndim} to {ndim - 1}" if ndim else "it has no axes"
        raise op_value_error(op, f"axis {axis} is out of bounds for {what} ({valid})") from None


def _shape_list(arrays) -> str:
    return ", ".join(str(tuple(a.shape)) for a in arrays)


# --------------------------------------------------------------------------------------------
# Thin wrappers over the primitives that skip no-op binds
# --------------------------------------------------------------------------------------------

def _reshape(x, shape: tuple):
    return x if x.shape == shape else reshape_p.bind(x, new_sizes=shape)


def _transpose(x, perm: tuple):
    if perm == tuple(range(x.ndim)):
        return x
    return transpose_p.bind(x, permutation=perm)


def _moveaxes(x, source: tuple, destination: tuple):
    """``x`` with the axes ``source`` moved to ``destination`` (non-negative, unique, of one
    length; the other axes keep their order)."""
    order = [d for d in range(x.ndim) if d not in source]
    for dest, src in sorted(zip(destination, source)):
        order.insert(dest, src)
    return _transpose(x, tuple(order))


def _rev(x, axes: tuple):
    axes = tuple(a for a in axes if x.shape[a] > 1)  # reversing 0 or 1 element is a no-op
    return rev_p.bind(x, dimensions=axes) if axes else x


def _concatenate(arrays, axis: int):
    return arrays[0] if len(arrays) == 1 else concatenate_p.bind(*arrays, dimension=axis)


def _broadcast_along(x, axis: int, count: int):
    """Broadcast ``x`` (of size 1 along ``axis``) to size ``count`` along ``axis``."""
    shape = list(x.shape)
    shape[axis] = count
    return broadcast_in_dim_p.bind(x, shape=tuple(shape),
                                   broadcast_dimensions=tuple(range(x.ndim)))


def _insert_axis(x, axis: int):
    """A new axis of size 1 at ``axis`` of the result."""
    shape = x.shape[:axis] + (1,) + x.shape[axis:]
    dims = tuple(d if d < axis else d + 1 for d in range(x.ndim))
    return broadcast_in_dim_p.bind(x, shape=shape, broadcast_dimensions=dims)


def _unstack(x):
    """The sub-arrays ``x[0], x[1], ...`` along the first axis."""
    return [_reshape(slice_axis(x, 0, i, i + 1), x.shape[1:]) for i in range(x.shape[0])]


def _promote_all(op: str, arrays, dtype=None) -> list:
    """Convert every array to one dtype: ``dtype`` if given, else their promoted type."""
    if dtype is not None:
        target, weak = dtypes.canonicalize_dtype(dtype), False
    else:
        try:
            target, weak = dtypes.result_type(*arrays, return_weak_type=True)
        except TypeError as exc:
            raise op_type_error(op, str(exc)) from None
    return [convert(a, target, weak) for a in arrays]


def _stack_arrays(op: str, arrays, axis, dtype=None):
    arrays = [asarray_arg(op, a) for a in arrays]
    if not arrays:
        raise op_value_error(op, "needs at least one array to stack")
    if any(a.shape != arrays[0].shape for a in arrays):
        raise op_value_error(op, f"all arrays must have the same shape, got shapes "
                                 f"{_shape_list(arrays)}")
    arrays = _promote_all(op, arrays, dtype)
    axis = _axis(op, axis, arrays[0].shape, arrays[0].ndim + 1)
    return _concatenate([_insert_axis(a, axis) for a in arrays], axis)


def _concatenate_arrays(op: str, arrays, axis, dtype=None):
    arrays = [asarray_arg(op, a) for a in arrays]
    if not arrays:
        raise op_value_error(op, "needs at least one array to concatenate")
    if axis is None:
        arrays = [_reshape(a, (a.size,)) for a in arrays]
        axis = 0
    arrays = _promote_all(op, arrays, dtype)
    first = arrays[0]
    if any(a.ndim == 0 for a in arrays):
        raise op_value_error(op, f"0-d arrays cannot be concatenated (shapes "
                                 f"{_shape_list(arrays)}); use stack, or atleast_1d first")
    if any(a.ndim != first.ndim for a in arrays):
        raise op_value_error(op, f"all arrays must have the same number of dimensions, got "
                                 f"shapes {_shape_list(arrays)}")
    axis = _axis(op, axis, first.shape)
    for a in arrays:
        if any(s != t for d, (s, t) in enumerate(zip(a.shape, first.shape)) if d != axis):
            raise op_value_error(op, f"array shapes must match except along axis {axis}, got "
                                     f"shapes {_shape_list(arrays)}")
    return _concatenate(arrays, axis)
