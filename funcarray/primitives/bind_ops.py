"""Bind-level operations: the vocabulary that composite rules (jvp, transpose and batch rules,
composite lowerings) are written in.

Each function binds primitives on operands that are already well-formed: one dtype where the
primitive needs one, explicit shapes, axes already non-negative. Nothing is validated,
promoted or broadcast implicitly, so a rule states every conversion it makes, and its result
is the same whatever the weak types of its inputs (constants made here are strong). Python
scalars become arrays of the operand's dtype through ``full_like``.

``funcarray.lax`` and ``funcarray.numpy`` sit above the primitives; rules use this module
instead, so the primitives import nothing from the layers that wrap them.

Example:
    >>> import numpy as np
    >>> from funcarray.base.array import Array
    >>> from funcarray.primitives import bind_ops as ops
    >>> ops.matmul(ops.eye(2, np.float32), Array(np.ones((2, 3), np.float32))).shape
    (2, 3)
"""

from __future__ import annotations

import numpy as np

from funcarray.base import dtypes
from funcarray.base.array import Array
from funcarray.primitives import elementwise as ew
from funcarray.primitives.conversions import bitcast_convert_type_p, convert_element_type_p
from funcarray.primitives.dot_general import dot_general_p
from funcarray.primitives.dynamic_slice import dynamic_slice_p
from funcarray.primitives.gather import gather_p
from funcarray.primitives.gather_scatter_dims import GatherDimensionNumbers
from funcarray.primitives.reduce import (
    argmax_p,
    argmin_p,
    reduce_and_p,
    reduce_max_p,
    reduce_min_p,
    reduce_or_p,
    reduce_sum_p,
)
from funcarray.primitives.select_n import select_n_p
from funcarray.primitives.shape import (
    broadcast_in_dim_p,
    concatenate_p,
    iota_p,
    pad_p,
    reshape_p,
    rev_p,
    slice_p,
    squeeze_p,
    transpose_p,
)
from funcarray.primitives.sort import sort_p

# --------------------------------------------------------------------------------------------
# Constants
# --------------------------------------------------------------------------------------------


def scalar(value, dtype) -> Array:
    """A strong 0-d array of ``dtype``."""
    return Array(np.asarray(value, dtype))


def full(shape, value, dtype):
    """``value`` broadcast to ``shape``, strong."""
    s = scalar(value, dtype)
    shape = tuple(shape)
    if not shape:
        return s
    return broadcast_in_dim_p.bind(s, shape=shape, broadcast_dimensions=())


def full_like(x, value):
    """``value`` with ``x``'s shape and dtype (strong whatever ``x``'s weak type)."""
    return full(x.shape, value, x.dtype)


def zeros_like(x):
    return full(x.shape, 0, x.dtype)


def iota(dtype, shape, dimension: int):
    return iota_p.bind(dtype=np.dtype(dtype), shape=tuple(shape), dimension=dimension)


def arange(n: int, dtype=np.int32):
    return iota(dtype, (n,), 0)


def eye(n: int, dtype, m: int | None = None):
    """The ``n`` x ``m`` identity (``m = n`` by default) of ``dtype``."""
    shape = (n, n if m is None else m)
    same = ew.eq_p.bind(iota(np.int32, shape, 0), iota(np.int32, shape, 1))
    return convert(same, dtype)


# --------------------------------------------------------------------------------------------
# Elementwise (operands of one shape and dtype)
# --------------------------------------------------------------------------------------------


def add(x, y):
    return ew.add_p.bind(x, y)


def sub(x, y):
    return ew.sub_p.bind(x, y)


def mul(x, y):
    return ew.mul_p.bind(x, y)


def div(x, y):
    return ew.div_p.bind(x, y)


def neg(x):
    return ew.neg_p.bind(x)


def exp(x):
    return ew.exp_p.bind(x)


def sqrt(x):
    return ew.sqrt_p.bind(x)


def absolute(x):
    return ew.abs_p.bind(x)


def integer_pow(x, y: int):
    return ew.integer_pow_p.bind(x, y=y)


def maximum(x, y):
    return ew.max_p.bind(x, y)


def minimum(x, y):
    return ew.min_p.bind(x, y)


def hypot(x, y):
    """``sqrt(x**2 + y**2)`` for real ``x``, ``y`` without overflow in the squares; an
    infinite side gives inf even when the other is NaN (``numpy.hypot``)."""
    x, y = absolute(x), absolute(y)
    big, small = maximum(x, y), minimum(x, y)
    zero, one, inf = full_like(big, 0), full_like(big, 1), full_like(big, np.inf)
    big_is_zero = eq(big, zero)
    ratio = div(small, select(big_is_zero, one, big))
    out = mul(big, sqrt(add(one, mul(ratio, ratio))))
    infinite = logical_or(eq(x, inf), eq(y, inf))
    return select(infinite, inf, select(big_is_zero, zero, out))


def copysign(x, y):
    """``|x|`` with the sign bit of ``y`` (real floats of one dtype)."""
    magnitude = absolute(x)
    bits = bitcast_convert_type_p.bind(y, new_dtype=np.dtype(f"int{8 * y.dtype.itemsize}"))
    negative = lt(bits, full_like(bits, 0))
    return select(negative, neg(magnitude), magnitude)


def conj(x):
    """The complex conjugate; ``x`` itself when real (as ``numpy.conj``)."""
    return ew.conj_p.bind(x) if x.dtype.kind == "c" else x


def real(x):
    return ew.real_p.bind(x)


def imag(x):
    return ew.imag_p.bind(x)


def eq(x, y):
    return ew.eq_p.bind(x, y)


def ne(x, y):
    return ew.ne_p.bind(x, y)


def lt(x, y):
    return ew.lt_p.bind(x, y)


def le(x, y):
    return ew.le_p.bind(x, y)


def gt(x, y):
    return ew.gt_p.bind(x, y)


def ge(x, y):
    return ew.ge_p.bind(x, y)


def logical_and(x, y):
    return ew.and_p.bind(x, y)


def logical_or(x, y):
    return ew.or_p.bind(x, y)


def logical_not(x):
    return ew.not_p.bind(x)


def isnan(x):
    return ne(x, x)


def select(pred, on_true, on_false):
    """``on_true`` where ``pred`` else ``on_false`` (``numpy.where``'s argument order)."""
    return select_n_p.bind(pred, on_false, on_true)


def where(pred, x, y):
    """``numpy.where`` for a bool ``pred`` and ``x``, ``y`` of one dtype, the three broadcast
    to their common shape."""
    return select(*broadcast_arrays(pred, x, y))


def convert(x, dtype):
    """``x`` as a strong array of ``dtype`` (itself when it already is one)."""
    dtype = np.dtype(dtype)
    if x.dtype == dtype and not x.weak_type:
        return x
    return convert_element_type_p.bind(x, new_dtype=dtype, weak_type=False)


# --------------------------------------------------------------------------------------------
# Shapes
# --------------------------------------------------------------------------------------------


def reshape(x, shape):
    shape = tuple(shape)
    return x if tuple(x.shape) == shape else reshape_p.bind(x, new_sizes=shape)


def broadcast_in_dim(x, shape, broadcast_dimensions):
    return broadcast_in_dim_p.bind(x, shape=tuple(shape),
                                   broadcast_dimensions=tuple(broadcast_dimensions))


def broadcast_to(x, shape):
    """``x`` broadcast to ``shape`` with NumPy's alignment of trailing dimensions."""
    shape = tuple(shape)
    if tuple(x.shape) == shape:
        return x
    lead = len(shape) - x.ndim
    return broadcast_in_dim(x, shape, range(lead, len(shape)))


def broadcast_arrays(*xs):
    """The arrays broadcast to their common shape (NumPy's rules)."""
    shape = tuple(np.broadcast_shapes(*(tuple(x.shape) for x in xs)))
    return [broadcast_to(x, shape) for x in xs]


def expand_dims(x, axis: int):
    """``x`` with a new axis of size 1 at ``axis`` (non-negative)."""
    shape = list(x.shape)
    shape.insert(axis, 1)
    return reshape(x, shape)


def squeeze(x, dimensions):
    return squeeze_p.bind(x, dimensions=tuple(dimensions))


def transpose(x, permutation):
    permutation = tuple(permutation)
    if permutation == tuple(range(x.ndim)):
        return x
    return transpose_p.bind(x, permutation=permutation)


def moveaxis(x, source: int, destination: int):
    """Move axis ``source`` to ``destination`` (both non-negative)."""
    perm = [d for d in range(x.ndim) if d != source]
    perm.insert(destination, source)
    return transpose(x, perm)


def matrix_transpose(x):
    """Swap the last two axes."""
    n = x.ndim
    return transpose(x, (*range(n - 2), n - 1, n - 2))


def adjoint(x):
    """The conjugate transpose of the last two axes (the transpose for real ``x``)."""
    return conj(matrix_transpose(x))


def concatenate(xs, axis: int):
    return concatenate_p.bind(*xs, dimension=axis)


def stack(xs):
    """Arrays of one shape stacked along a new leading axis."""
    return concatenate([expand_dims(x, 0) for x in xs], 0)


def pad(x, padding_value, padding_config):
    """``lax.pad``: ``padding_value`` is a 0-d array of ``x``'s dtype."""
    return pad_p.bind(x, padding_value,
                      padding_config=tuple(tuple(c) for c in padding_config))


def rev(x, dimensions):
    return rev_p.bind(x, dimensions=tuple(dimensions))


def triangle(x, k: int, lower: bool):
    """``x`` with the elements above (``lower``) or below the ``k``-th diagonal of its last
    two axes set to 0, as ``numpy.tril`` / ``numpy.triu``."""
    rows_n, cols_n = x.shape[-2:]
    rows = iota(np.int32, (rows_n, cols_n), 0)
    cols = iota(np.int32, (rows_n, cols_n), 1)
    shifted = add(rows, full(rows.shape, k, np.int32))
    # Keep element (i, j) where j - i <= k (lower) or j - i >= k (upper).
    keep = ew.le_p.bind(cols, shifted) if lower else ew.ge_p.bind(cols, shifted)
    keep = broadcast_in_dim(keep, x.shape, (x.ndim - 2, x.ndim - 1))
    return select_n_p.bind(keep, zeros_like(x), x)


def diagonal(x):
    """The diagonal of the last two axes (square or not), as the last axis."""
    *batch, rows, cols = x.shape
    batch = tuple(batch)
    length = min(rows, cols)
    # The diagonal of an L x L block is every (L + 1)-th element of the block, flattened.
    block = slice_p.bind(x, start_indices=(0,) * x.ndim, limit_indices=batch + (length, length),
                         strides=None)
    flat = reshape(block, batch + (length * length,))
    return slice_p.bind(flat, start_indices=(0,) * (len(batch) + 1), limit_indices=flat.shape,
                        strides=(1,) * len(batch) + (length + 1,))


# --------------------------------------------------------------------------------------------
# Reductions and products
# --------------------------------------------------------------------------------------------


def reduce_sum(x, axes):
    """The sum over ``axes`` in ``x``'s dtype (*or* for bool, as ``numpy.sum`` with
    ``dtype=x.dtype``)."""
    prim = reduce_or_p if x.dtype == np.bool_ else reduce_sum_p
    return prim.bind(x, axes=tuple(axes))


def reduce_max(x, axes):
    return reduce_max_p.bind(x, axes=tuple(axes))


def reduce_min(x, axes):
    return reduce_min_p.bind(x, axes=tuple(axes))


def reduce_all(x, axes):
    """Whether every element of the bool ``x`` over ``axes`` is true."""
    return reduce_and_p.bind(x, axes=tuple(axes))


def argmax(x, axis: int, index_dtype=np.int32):
    return argmax_p.bind(x, axes=(axis,), index_dtype=np.dtype(index_dtype))


def argmin(x, axis: int, index_dtype=np.int32):
    return argmin_p.bind(x, axes=(axis,), index_dtype=np.dtype(index_dtype))


_PLAIN = {1: (((0,), (0,)), ((), ())), 2: (((1,), (0,)), ((), ()))}


def matmul(a, b):
    """``a @ b`` for operands of one dtype with NumPy's batch broadcasting (each at least
    2-d, or ``a`` 1-d/2-d against a 2-d ``b``), bound as ``dot_general``."""

    def dot(x, y, contracting, batch=((), ())):
        return dot_general_p.bind(x, y, dimension_numbers=(contracting, batch),
                                  precision=None, preferred_element_type=None)

    a_batch, b_batch = tuple(a.shape[:-2]), tuple(b.shape[:-2])
    if not b_batch:
        # a's batch dimensions are free dimensions of dot_general and come out in place.
        return dot(a, b, ((a.ndim - 1,), (max(b.ndim - 2, 0),)))
    if not a_batch:
        out = dot(a, b, ((a.ndim - 1,), (b.ndim - 2,)))
        # dot_general gives (m, *batch, n); matmul wants (*batch, m, n).
        return transpose(out, (*range(1, len(b_batch) + 1), 0, out.ndim - 1))
    batch = tuple(np.broadcast_shapes(a_batch, b_batch))
    a = broadcast_to(a, batch + tuple(a.shape[-2:]))
    b = broadcast_to(b, batch + tuple(b.shape[-2:]))
    dims = tuple(range(len(batch)))
    return dot(a, b, ((a.ndim - 1,), (b.ndim - 2,)), (dims, dims))


# --------------------------------------------------------------------------------------------
# Indexing
# --------------------------------------------------------------------------------------------


def take_along_axis(x, indices, axis: int):
    """``numpy.take_along_axis`` for in-range, non-negative integer ``indices`` of ``x``'s
    rank whose other dimensions equal ``x``'s."""
    others = tuple(d for d in range(x.ndim) if d != axis)
    dn = GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(axis,),
                                start_index_map=(axis,), operand_batching_dims=others,
                                start_indices_batching_dims=others)
    indices = convert(indices, _index_dtype(indices.dtype))
    return gather_p.bind(x, reshape(indices, (*indices.shape, 1)), dimension_numbers=dn,
                         slice_sizes=(1,) * x.ndim, indices_are_sorted=False,
                         unique_indices=False, mode="fill", fill_value=None)


def argsort(x, axis: int):
    """The int32 indices that sort ``x`` along ``axis`` (stable, ascending; NaN last)."""
    order = iota(np.int32, x.shape, axis)
    return sort_p.bind(x, order, dimension=axis, is_stable=True, num_keys=1)[1]


def take(x, indices, axis: int = 0):
    """``numpy.take`` along ``axis`` for in-range, non-negative integer ``indices`` (any
    shape, which replaces that axis)."""
    indices = convert(indices, _index_dtype(indices.dtype))
    n_idx = indices.ndim
    out_ndim = x.ndim - 1 + n_idx
    offset_dims = (*range(axis), *range(axis + n_idx, out_ndim))
    dn = GatherDimensionNumbers(offset_dims=offset_dims, collapsed_slice_dims=(axis,),
                                start_index_map=(axis,))
    slice_sizes = tuple(1 if d == axis else n for d, n in enumerate(x.shape))
    return gather_p.bind(x, reshape(indices, (*indices.shape, 1)), dimension_numbers=dn,
                         slice_sizes=slice_sizes, indices_are_sorted=False,
                         unique_indices=False, mode="fill", fill_value=None)


def _index_dtype(dt):
    """int32 for indices, unless they need 64 bits to keep their values."""
    dt = np.dtype(dt)
    return dtypes.int64 if dt.itemsize == 8 or dt == np.uint32 else dtypes.int32


def dynamic_slice_in_dim(x, start, size: int, axis: int):
    """The slice of ``size`` elements along ``axis`` from the integer 0-d ``start`` (clamped
    into range, as StableHLO does); the other axes whole."""
    starts = [full((), 0, start.dtype)] * x.ndim
    starts[axis] = start
    sizes = list(x.shape)
    sizes[axis] = size
    return dynamic_slice_p.bind(x, *starts, slice_sizes=tuple(sizes))


def dynamic_index_in_dim(x, index, axis: int):
    """The entry at the integer 0-d ``index`` along ``axis``, that axis dropped."""
    return squeeze(dynamic_slice_in_dim(x, index, 1, axis), (axis,))


def slice_in_dim(x, start: int, limit: int, stride: int, axis: int):
    """Elements ``start:limit:stride`` (static, in range) along ``axis``."""
    starts, limits, strides = [0] * x.ndim, list(x.shape), [1] * x.ndim
    starts[axis], limits[axis], strides[axis] = start, limit, stride
    return slice_p.bind(x, start_indices=tuple(starts), limit_indices=tuple(limits),
                        strides=tuple(strides))


def index_in_dim(x, index: int, axis: int):
    """The entry at the static ``index`` along ``axis``, that axis dropped."""
    start = [0] * x.ndim
    limit = list(x.shape)
    start[axis], limit[axis] = index, index + 1
    out = slice_p.bind(x, start_indices=tuple(start), limit_indices=tuple(limit), strides=None)
    return squeeze(out, (axis,))
