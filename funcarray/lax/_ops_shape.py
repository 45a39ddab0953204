"""``jax.lax``'s shape operations: broadcasting, reshaping, transposing, reversing, padding,
concatenating, and arrays made from a shape (``iota``, ``full``...).

Dimension lists are non-negative and in range where jax.lax wants them so (``transpose``,
``rev``, ``concatenate``, ``broadcast_in_dim``); ``squeeze``, ``expand_dims`` and
``collapse`` accept negative dimensions, as in JAX. ``reshape`` takes no ``-1``.

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray import lax
    >>> lax.pad(fnp.array([1, 2]), 0, [(1, 0, 1)])
    Array([0, 1, 0, 2], dtype=int32)
"""

from __future__ import annotations

import builtins
import math
import operator
from typing import TYPE_CHECKING

import numpy as np

from funcarray.api.arguments import _int_tuple, convert
from funcarray.base import dtypes
from funcarray.base.array import Array
from funcarray.base.errors import op_type_error, op_value_error
from funcarray.lax._ops_common import (
    _IUFC,
    _any_axis,
    _checked_bind,
    _dims,
    _dtype_arg,
    _int,
    _kind,
    _operand,
    _plain_ints,
    _refuse_python_complex_to_real,
    _same_dtype_operands,
    _short,
)
from funcarray.primitives import shape as sh
from funcarray.primitives.conversions import convert_kernel
from funcarray.transforms.host_shortcuts import host_shortcut, host_value

if TYPE_CHECKING:
    from collections.abc import Sequence

    from funcarray.base.typing import ArrayLike, DTypeLike, Shape

__all__ = [
    "broadcast", "broadcast_in_dim", "reshape", "collapse", "squeeze", "expand_dims",
    "transpose", "rev", "pad", "concatenate", "iota", "broadcasted_iota", "full", "full_like",
    "zeros_like_array",
]


def _shape_arg(op: str, shape, what: str = "shape") -> tuple:
    shape = _int_tuple(op, shape, what, sequence_only=True)
    if any(d < 0 for d in shape):
        raise op_value_error(op, f"{what}={shape} must have every element non-negative")
    return shape


def _broadcast_on_host(operand, shape: tuple, dims: tuple):
    """``broadcast_in_dim_p`` run at once on a concrete operand, its parameters checked by the
    primitive's own (cached) shape rule: it raises, and so declines, where the general path
    raises."""
    if operand.shape == shape and dims == tuple(range(len(shape))):
        return operand
    sh.broadcast_in_dim_p.abstract_eval(operand.aval, shape=shape, broadcast_dimensions=dims)
    return sh.broadcast_in_dim_p.impl(operand, shape=shape, broadcast_dimensions=dims)


def _broadcast_in_dim_on_host(operand, shape, broadcast_dimensions):
    shape, dims = _plain_ints(shape), _plain_ints(broadcast_dimensions)
    if (host_value(operand) is None or shape is None or dims is None
            or len(dims) != operand.ndim or any(d < 0 for d in shape + dims)):
        return NotImplemented
    return _broadcast_on_host(operand, shape, dims)


@host_shortcut(_broadcast_in_dim_on_host)
def broadcast_in_dim(operand: ArrayLike, shape: Shape,
                     broadcast_dimensions: Sequence[int]) -> Array:
    """Broadcast ``operand`` to ``shape``: operand dimension ``i`` becomes result dimension
    ``broadcast_dimensions[i]`` (each of size 1 or the result's size).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.broadcast_in_dim(fnp.array([1, 2]), (3, 2), (1,))
        Array([[1, 2],
               [1, 2],
               [1, 2]], dtype=int32)
    """
    op = "lax.broadcast_in_dim"
    x = _operand(op, operand)
    shape = _shape_arg(op, shape)
    dims = _int_tuple(op, broadcast_dimensions, "broadcast_dimensions", sequence_only=True)
    if len(dims) != x.ndim:
        raise op_type_error(op, f"broadcast_dimensions={dims} needs one entry per dimension "
                                f"of operand {_short(x)}")
    if any(d < 0 for d in dims):
        raise op_type_error(op, f"broadcast_dimensions={dims} must be non-negative")
    if x.shape == shape and dims == tuple(range(x.ndim)):
        return x
    return _checked_bind(op, sh.broadcast_in_dim_p, x, shape=shape, broadcast_dimensions=dims)


def _broadcast_sizes_on_host(operand, sizes):
    sizes = _plain_ints(sizes)
    if host_value(operand) is None or sizes is None or any(d < 0 for d in sizes):
        return NotImplemented
    n, ndim = len(sizes), operand.ndim
    return _broadcast_on_host(operand, sizes + operand.shape, tuple(range(n, n + ndim)))


@host_shortcut(_broadcast_sizes_on_host)
def broadcast(operand: ArrayLike, sizes: Shape) -> Array:
    """Add leading dimensions of ``sizes`` to ``operand`` (copies along them).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.broadcast(fnp.array([1, 2]), (2,))
        Array([[1, 2],
               [1, 2]], dtype=int32)
    """
    op = "lax.broadcast"
    x = _operand(op, operand)
    sizes = _shape_arg(op, sizes, "sizes")
    if not sizes:
        return x
    return _checked_bind(op, sh.broadcast_in_dim_p, x, shape=sizes + tuple(x.shape),
                         broadcast_dimensions=tuple(range(len(sizes), len(sizes) + x.ndim)))


def _reshape_on_host(operand, new_sizes, dimensions=None):
    v, new_sizes = host_value(operand), _plain_ints(new_sizes)
    if (v is None or new_sizes is None or dimensions is not None or any(d < 0 for d in new_sizes)
            or math.prod(new_sizes) != v.size):
        return NotImplemented
    return operand if new_sizes == v.shape else Array(v.reshape(new_sizes), operand._weak)


@host_shortcut(_reshape_on_host)
def reshape(operand: ArrayLike, new_sizes: Shape, dimensions: Sequence[int] | None = None) -> Array:
    """Row-major reshape to ``new_sizes`` (no ``-1``); with ``dimensions`` (a permutation)
    the operand is transposed to that order first.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.reshape(fnp.arange(6), (2, 3))
        Array([[0, 1, 2],
               [3, 4, 5]], dtype=int32)
        >>> lax.reshape(fnp.arange(6).reshape(2, 3), (6,), dimensions=(1, 0))
        Array([0, 3, 1, 4, 2, 5], dtype=int32)
    """
    op = "lax.reshape"
    x = _operand(op, operand)
    new_sizes = _int_tuple(op, new_sizes, "new_sizes", sequence_only=True)
    if any(d < 0 for d in new_sizes):
        raise op_value_error(op, f"new_sizes={new_sizes} must be non-negative; jax.lax.reshape "
                                 f"takes no -1 (funcarray.numpy.reshape does)")
    if dimensions is not None:
        dims = _int_tuple(op, dimensions, "dimensions", sequence_only=True)
        if sorted(dims) != list(range(x.ndim)):
            raise op_value_error(op, f"dimensions={dims} must be a permutation of the "
                                     f"dimensions of operand {_short(x)}")
        if dims != tuple(range(x.ndim)):
            x = sh.transpose_p.bind(x, permutation=dims)
    if math.prod(new_sizes) != math.prod(x.shape):
        raise op_value_error(op, f"cannot reshape {_short(x)} ({math.prod(x.shape)} elements) "
                                 f"to {new_sizes} ({math.prod(new_sizes)} elements)")
    if tuple(x.shape) == new_sizes:
        return x
    return sh.reshape_p.bind(x, new_sizes=new_sizes)


# Host shortcuts (transforms/host_shortcuts.py): each takes a concrete operand and plain int
# arguments that pass the general path's checks, and computes the result's NumPy value (a
# view where the kernel's is one: values are never mutated).
def _collapsed_shape(shape: tuple, start, stop):
    """``shape`` with ``shape[start:stop]`` merged into one dimension, the bounds read as a
    Python slice's (as jax.lax's); None where the slice ends before it starts."""
    lo, hi, _ = slice(start, stop).indices(len(shape))
    if hi < lo:
        return None
    return shape[:lo] + (math.prod(shape[lo:hi]),) + shape[hi:]


def _collapse_on_host(operand, start_dimension, stop_dimension=None):
    v = host_value(operand)
    if (v is None or type(start_dimension) is not int
            or (stop_dimension is not None and type(stop_dimension) is not int)):
        return NotImplemented
    new_shape = _collapsed_shape(v.shape, start_dimension, stop_dimension)
    if new_shape is None:
        return NotImplemented
    return operand if new_shape == v.shape else Array(v.reshape(new_shape), operand._weak)


@host_shortcut(_collapse_on_host)
def collapse(operand: ArrayLike, start_dimension: int,
             stop_dimension: int | None = None) -> Array:
    """Merge dimensions ``start_dimension:stop_dimension`` (Python slice semantics) into one.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.collapse(fnp.zeros((2, 3, 4)), 1).shape
        (2, 12)
    """
    op = "lax.collapse"
    x = _operand(op, operand)
    lo = _int(op, "start_dimension", start_dimension)
    hi = None if stop_dimension is None else _int(op, "stop_dimension", stop_dimension)
    new_shape = _collapsed_shape(tuple(x.shape), lo, hi)
    if new_shape is None:
        raise op_value_error(op, f"invalid dimension range {x.shape}[{lo}:{hi}]: the stop "
                                 f"dimension comes before the start (Python slice semantics)")
    return reshape(x, new_shape)


def _squeeze_on_host(array, dimensions):
    v, dims = host_value(array), _plain_ints(dimensions)
    if v is None or dims is None:
        return NotImplemented
    if not dims:
        return array
    # NumPy's squeeze raises (and so declines) for a dimension out of range, repeated or not
    # of size 1, where the general path raises its own error.
    return Array(v.squeeze(dims), array._weak)


@host_shortcut(_squeeze_on_host)
def squeeze(array: ArrayLike, dimensions: Sequence[int]) -> Array:
    """Remove the listed dimensions (each of size 1; negative values count from the end).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.squeeze(fnp.zeros((1, 3, 1)), (0, -1)).shape
        (3,)
    """
    op = "lax.squeeze"
    x = _operand(op, array, "array")
    dims = tuple(_any_axis(op, d, x.ndim)
                 for d in _int_tuple(op, dimensions, "dimensions", sequence_only=True))
    if len(set(dims)) != len(dims):
        raise op_value_error(op, f"dimensions are not unique: {tuple(dimensions)}")
    if any(x.shape[d] != 1 for d in dims):
        raise op_value_error(op, f"cannot squeeze dimensions {tuple(dimensions)} of "
                                 f"{_short(x)}: each must have size 1")
    if not dims:
        return x
    return sh.squeeze_p.bind(x, dimensions=tuple(sorted(dims)))


def _expand_dims_on_host(array, dimensions):
    v, raw = host_value(array), _plain_ints(dimensions)
    if v is None or raw is None:
        return NotImplemented
    ndim = v.ndim + len(raw)
    dims = {d % ndim for d in raw if -ndim <= d < ndim}
    if len(dims) != len(raw):
        return NotImplemented
    if not dims:
        return array
    sizes = iter(v.shape)
    return Array(v.reshape(tuple(1 if d in dims else next(sizes) for d in range(ndim))),
                 array._weak)


@host_shortcut(_expand_dims_on_host)
def expand_dims(array: ArrayLike, dimensions: Sequence[int]) -> Array:
    """Insert dimensions of size 1 at the listed positions of the result (negative values
    count from the end of the result).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.expand_dims(fnp.zeros((2, 3)), (0, -1)).shape
        (1, 2, 3, 1)
    """
    op = "lax.expand_dims"
    x = _operand(op, array, "array")
    raw = _int_tuple(op, dimensions, "dimensions", sequence_only=True)
    ndim_out = x.ndim + len(raw)
    dims = tuple(_any_axis(op, d, ndim_out) for d in raw)
    if len(set(dims)) != len(dims):
        raise op_value_error(op, f"repeated axis in dimensions={raw}")
    if not dims:
        return x
    kept = [d for d in range(ndim_out) if d not in dims]
    shape = [1] * ndim_out
    for d, size in zip(kept, x.shape):
        shape[d] = size
    return sh.broadcast_in_dim_p.bind(x, shape=tuple(shape), broadcast_dimensions=tuple(kept))


def _transpose_on_host(operand, permutation):
    v, perm = host_value(operand), _plain_ints(permutation)
    if v is None or perm is None or sorted(perm) != list(range(v.ndim)):
        return NotImplemented
    return operand if perm == tuple(range(v.ndim)) else Array(v.transpose(perm), operand._weak)


@host_shortcut(_transpose_on_host)
def transpose(operand: ArrayLike, permutation: Sequence[int]) -> Array:
    """Permute the dimensions: result dimension ``i`` is operand dimension
    ``permutation[i]``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.transpose(fnp.zeros((2, 3, 4)), (2, 0, 1)).shape
        (4, 2, 3)
    """
    op = "lax.transpose"
    x = _operand(op, operand)
    perm = _int_tuple(op, permutation, "permutation", sequence_only=True)
    if sorted(perm) != list(range(x.ndim)):
        raise op_value_error(op, f"permutation={perm} is not a permutation of the dimensions "
                                 f"of operand {_short(x)} (0 to {x.ndim - 1}, each once)")
    if perm == tuple(range(x.ndim)):
        return x
    return sh.transpose_p.bind(x, permutation=perm)


_ALL, _REVERSED = slice(None), slice(None, None, -1)


def _rev_on_host(operand, dimensions):
    v, dims = host_value(operand), _plain_ints(dimensions)
    if v is None or dims is None or len(set(dims)) != len(dims):
        return NotImplemented
    ndim = v.ndim
    if any(not 0 <= d < ndim for d in dims):
        return NotImplemented
    if not dims:
        return operand
    return Array(v[tuple(_REVERSED if d in dims else _ALL for d in range(ndim))],
                 operand._weak)


@host_shortcut(_rev_on_host)
def rev(operand: ArrayLike, dimensions: Sequence[int]) -> Array:
    """Reverse the order of elements along the listed dimensions.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.rev(fnp.arange(3), (0,))
        Array([2, 1, 0], dtype=int32)
    """
    op = "lax.rev"
    x = _operand(op, operand)
    dims = _dims(op, "dimensions", dimensions, x.ndim, x)
    if not dims:
        return x
    return sh.rev_p.bind(x, dimensions=dims)


def pad(operand: ArrayLike, padding_value: ArrayLike,
        padding_config: Sequence[tuple[int, int, int]]) -> Array:
    """Pad with ``padding_value``: one ``(low, high, interior)`` triple per dimension;
    ``interior`` values go between neighbours, negative ``low``/``high`` crop.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.pad(fnp.array([1, 2, 3]), 0, [(1, -1, 1)])
        Array([0, 1, 0, 2, 0], dtype=int32)
    """
    op = "lax.pad"
    x = _operand(op, operand)
    x, value = _same_dtype_operands(op, (x, padding_value), equivalent="pad", anchor=0)
    if value.ndim:
        raise op_value_error(op, f"padding_value must be a scalar, got {_short(value)}")
    try:
        config = tuple(tuple(operator.index(v) for v in triple) for triple in padding_config)
    except TypeError:
        raise op_type_error(op, f"padding_config must be a sequence of (low, high, interior) "
                                f"int triples, got {padding_config!r}") from None
    if len(config) != x.ndim or any(len(t) != 3 for t in config):
        raise op_value_error(op, f"padding_config needs one (low, high, interior) triple per "
                                 f"dimension of operand {_short(x)}, got {config}")
    if any(interior < 0 for _, _, interior in config):
        raise op_value_error(op, f"interior padding in padding_config must be non-negative, "
                                 f"got {config}")
    shape = tuple(lo + hi + d + builtins.max(d - 1, 0) * interior
                  for d, (lo, hi, interior) in zip(x.shape, config))
    if any(d < 0 for d in shape):
        raise op_value_error(op, f"dimension size after padding is not at least 0, got "
                                 f"result shape {shape} for padding_config {config} and "
                                 f"operand {_short(x)}")
    return sh.pad_p.bind(x, value, padding_config=config)


def _concatenate_on_host(operands, dimension):
    if (type(operands) is not list and type(operands) is not tuple) or not operands or (
            type(dimension) is not int):
        return NotImplemented
    values = [host_value(x) for x in operands]
    first = values[0]
    if first is None or not 0 <= dimension < first.ndim:
        return NotImplemented
    dtype, shape = first.dtype, first.shape
    for v in values:
        if v is None or v.dtype != dtype:
            return NotImplemented
        if v.shape != shape and (v.ndim != first.ndim or any(
                a != b for i, (a, b) in enumerate(zip(v.shape, shape)) if i != dimension)):
            return NotImplemented
    if len(values) == 1:
        return operands[0]
    return Array(np.concatenate(values, axis=dimension), all(x._weak for x in operands))


@host_shortcut(_concatenate_on_host)
def concatenate(operands: Sequence[ArrayLike], dimension: int) -> Array:
    """Join arrays of one dtype and rank along ``dimension`` (their other sizes agree).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.concatenate([fnp.array([1, 2]), fnp.array([3])], 0)
        Array([1, 2, 3], dtype=int32)
    """
    op = "lax.concatenate"
    xs = [_operand(op, x) for x in operands]
    if not xs:
        raise op_value_error(op, "requires a non-empty sequence of arrays")
    dimension = _int(op, "dimension", dimension)
    shapes = ", ".join(_short(x) for x in xs)
    if not 0 <= dimension < xs[0].ndim:
        raise op_value_error(op, f"dimension {dimension} is out of bounds for operands "
                                 f"{shapes} (valid: 0 to {xs[0].ndim - 1}; no negatives)")
    if any(x.dtype != xs[0].dtype for x in xs):
        raise op_type_error(op, f"requires arguments to have the same dtype, got {shapes}. "
                                f"Convert with lax.convert_element_type, or use "
                                f"funcarray.numpy.concatenate, which promotes")
    if any(x.ndim != xs[0].ndim or any(a != b for i, (a, b) in enumerate(zip(x.shape, xs[0].shape))
                                       if i != dimension) for x in xs):
        raise op_type_error(op, f"cannot concatenate arrays whose shapes differ in dimensions "
                                f"other than {dimension}: {shapes}")
    if len(xs) == 1:
        return xs[0]
    return sh.concatenate_p.bind(*xs, dimension=dimension)


def _iota_dtype(op: str, dtype) -> np.dtype:
    dtype = _dtype_arg(op, dtype)
    if _kind(dtype) not in _IUFC:
        raise op_type_error(op, f"does not accept dtype {dtype}; it takes integer, floating "
                                f"and complex dtypes")
    return dtype


_IOTA_DTYPES = dtypes.dtype_set(lambda d: _kind(d) in _IUFC)


def _iota_on_host(dtype, size):
    dtype = dtypes.canonicalize_dtype(dtype)
    if dtype not in _IOTA_DTYPES or type(size) is not int or size < 0:
        return NotImplemented
    return Array(np.arange(size, dtype=dtype))  # (the kernel's ramp)


@host_shortcut(_iota_on_host)
def iota(dtype: DTypeLike, size: int) -> Array:
    """``[0, 1, ..., size - 1]`` of ``dtype``.

    Example:
        >>> from funcarray import lax
        >>> lax.iota("float32", 3)
        Array([0., 1., 2.], dtype=float32)
    """
    op = "lax.iota"
    dtype = _iota_dtype(op, dtype)
    size = _int(op, "size", size)
    if size < 0:
        raise op_value_error(op, f"size must be non-negative, got {size}")
    return sh.iota_p.bind(dtype=dtype, shape=(size,), dimension=0)


def _broadcasted_iota_on_host(dtype, shape, dimension):
    dtype, shape = dtypes.canonicalize_dtype(dtype), _plain_ints(shape)
    if (dtype not in _IOTA_DTYPES or shape is None or type(dimension) is not int
            or not 0 <= dimension < len(shape) or any(d < 0 for d in shape)):
        return NotImplemented
    ramp = np.arange(shape[dimension], dtype=dtype)  # (the kernel's ramp, copied across)
    out = np.empty(shape, dtype)
    out[...] = ramp.reshape((-1,) + (1,) * (len(shape) - 1 - dimension))
    return Array(out)


@host_shortcut(_broadcasted_iota_on_host)
def broadcasted_iota(dtype: DTypeLike, shape: Shape, dimension: int) -> Array:
    """An array of ``shape`` counting 0, 1, ... along ``dimension``.

    Example:
        >>> from funcarray import lax
        >>> lax.broadcasted_iota("int32", (2, 3), 1)
        Array([[0, 1, 2],
               [0, 1, 2]], dtype=int32)
    """
    op = "lax.broadcasted_iota"
    dtype = _iota_dtype(op, dtype)
    shape = _shape_arg(op, shape)
    dimension = _int(op, "dimension", dimension)
    if not 0 <= dimension < len(shape):
        raise op_value_error(op, f"dimension must be between 0 and len(shape) - 1, got "
                                 f"dimension={dimension} for shape={shape}")
    return sh.iota_p.bind(dtype=dtype, shape=shape, dimension=dimension)


def _filled_on_host(op: str, shape, fill_value, dtype, weak: bool):
    """``_filled`` for a Python scalar and a shape of plain ints: the value made as there,
    then filled in with NumPy at once."""
    if shape is None or any(d < 0 for d in shape) or type(fill_value) not in (
            int, float, builtins.complex, bool):
        return NotImplemented
    if dtype is None:
        value = _operand(op, fill_value, "fill_value")
    else:
        dtype = dtypes.canonicalize_dtype(dtype)
        _refuse_python_complex_to_real(op, fill_value, dtype)
        value = Array(convert_kernel(np.asarray(fill_value), dtype), weak)
    if not shape:
        return value
    return Array(np.full(shape, value._value), value._weak)


def _full_on_host(shape, fill_value, dtype=None):
    return _filled_on_host("lax.full", _plain_ints(shape), fill_value, dtype, False)


@host_shortcut(_full_on_host)
def full(shape: Shape, fill_value: ArrayLike, dtype: DTypeLike | None = None) -> Array:
    """An array of ``shape`` filled with the scalar ``fill_value`` (of ``dtype``, else of
    the value's own dtype, weakly typed for a Python scalar).

    Example:
        >>> from funcarray import lax
        >>> lax.full((2,), 1.5)
        Array([1.5, 1.5], dtype=float32, weak_type=True)
        >>> lax.full((2,), 1.5, "int32")
        Array([1, 1], dtype=int32)
    """
    op = "lax.full"
    shape = _shape_arg(op, shape)
    dtype = None if dtype is None else _dtype_arg(op, dtype)
    return _filled(op, shape, fill_value, dtype, False)


def _filled(op: str, shape: tuple, fill_value, dtype, weak: bool):
    """``fill_value`` (a scalar) converted to ``dtype`` (if given) and broadcast to ``shape``.
    A Python scalar is converted with convert_element_type's semantics (2.7 -> 2 for an
    integer dtype, 64-bit ints kept whole), as jax.lax does."""
    if dtype is not None and type(fill_value) in (int, float, builtins.complex, bool):
        _refuse_python_complex_to_real(op, fill_value, dtype)
        try:
            value = Array(convert_kernel(np.asarray(fill_value), dtype), weak)
        except OverflowError:
            raise op_value_error(op, f"fill_value {fill_value} is out of range for "
                                     f"{dtype}") from None
    else:
        value = _operand(op, fill_value, "fill_value")
        if value.ndim:
            raise op_type_error(op, f"fill_value must be a scalar, got {_short(value)}")
        if dtype is not None:
            value = convert(value, dtype, weak)
    if not shape:
        return value
    return sh.broadcast_in_dim_p.bind(value, shape=shape, broadcast_dimensions=())


def _full_like_on_host(x, fill_value, dtype=None, shape=None):
    if host_value(x) is None:
        return NotImplemented
    return _filled_on_host("lax.full_like", x.shape if shape is None else _plain_ints(shape),
                           fill_value, x.dtype if dtype is None else dtype,
                           dtype is None and x._weak)


@host_shortcut(_full_like_on_host)
def full_like(x: ArrayLike, fill_value: ArrayLike, dtype: DTypeLike | None = None,
              shape: Shape | None = None) -> Array:
    """An array like ``x`` (its shape and dtype, unless given) filled with ``fill_value``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.full_like(fnp.zeros((2,), fnp.int8), 7)
        Array([7, 7], dtype=int8)
    """
    op = "lax.full_like"
    like = x if hasattr(x, "shape") and hasattr(x, "dtype") else _operand(op, x, "x")
    weak = dtype is None and bool(getattr(like, "weak_type", False))
    dtype = _dtype_arg(op, like.dtype if dtype is None else dtype)
    shape = tuple(like.shape) if shape is None else _shape_arg(op, shape)
    return _filled(op, shape, fill_value, dtype, weak)


def zeros_like_array(x: ArrayLike) -> Array:
    """Zeros with ``x``'s shape and dtype (``full_like(x, 0)``; older jax.lax name).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.zeros_like_array(fnp.array([1.5, 2.5]))
        Array([0., 0.], dtype=float32)
    """
    return full_like(x, 0)

