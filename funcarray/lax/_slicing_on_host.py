"""Host shortcuts (``transforms/host_shortcuts.py``) of ``jax.lax``'s slicing: ``slice`` and
its ``*_in_dim`` forms, the ``dynamic_slice``/``dynamic_update_slice`` family, and the
``gather``/``scatter`` forms that index whole dimensions, each computed with one NumPy
indexing instead of argument parsing, a shape rule and a bind per primitive.

Each rule takes the common, valid forms of its operation and returns ``NotImplemented`` for
the rest (tracers, unusual arguments, anything the general path rejects), which hands the
call to the general path (``_ops_slicing.py``) and its result or error.

* ``slice``, ``slice_in_dim``, ``index_in_dim``: a NumPy basic-indexing view (Arrays are
  immutable); the whole array is the operand itself, as on the general path.
* the dynamic family: starts are Python or NumPy ints, 0-d integer arrays, or a 1-D integer
  array; each is wrapped once when negative (a Python int only when allowed, else the general
  path raises) and clamped so the slice fits, as the primitives do.
* ``gather``: the "take" form, where the indexed dimensions (``start_index_map``) are exactly
  the collapsed ones, with windows of size 1 there and of the whole dimension elsewhere, no
  batching dimensions; every mode (clip and promise_in_bounds clamp, fill fills).
* the scatters (``scatter``, ``_add``, ``_sub``, ``_mul``, ``_min``, ``_max``): the same form
  (inserted dimensions exactly the indexed ones, whole windows elsewhere). The flat positions
  and update values are laid out in the primitive kernel's order and combined by the same
  NumPy call (``ufunc.at`` / assignment), so repeated indices combine in the same order.

Example:
    >>> import funcarray.numpy as fnp
    >>> slice_on_host(fnp.arange(6), (1,), (4,))
    Array([1, 2, 3], dtype=int32)
    >>> slice_on_host(fnp.arange(6), (1,), (9,))  # out of bounds: the general path raises
    NotImplemented
"""

from __future__ import annotations

import functools
import math

import numpy as np

from funcarray.base.array import Array, DeviceArray
from funcarray.lax._ops_common import _plain_ints
from funcarray.primitives import elementwise as ew
from funcarray.primitives.gather import gather_fill_value
from funcarray.primitives.gather_scatter_dims import GatherDimensionNumbers, ScatterDimensionNumbers
from funcarray.primitives.scatter import _COMBINERS
from funcarray.transforms.host_shortcuts import host_value

__all__ = [
    "mode_name", "slice_on_host", "slice_in_dim_on_host", "index_in_dim_on_host",
    "dynamic_slice_on_host", "dynamic_slice_in_dim_on_host", "dynamic_index_in_dim_on_host",
    "dynamic_update_slice_on_host", "dynamic_update_slice_in_dim_on_host",
    "dynamic_update_index_in_dim_on_host", "gather_on_host", "scatter_shortcut",
]

_ndarray = np.ndarray
_UNSIGNED = {np.dtype(f"int{b}"): np.dtype(f"uint{b}") for b in (8, 16, 32, 64)}
_integer = np.integer
_INT64 = np.dtype(np.int64)

_MODE_NAMES = {"clip": "CLIP", "fill": "FILL_OR_DROP", "drop": "FILL_OR_DROP",
               "promise_in_bounds": "PROMISE_IN_BOUNDS"}


def mode_name(mode, gather_: bool) -> str | None:
    """The primitive's ``mode`` parameter for a ``gather``/``scatter`` ``mode`` argument (a
    name, jax's or funcarray's ``GatherScatterMode``, or None for jax.lax's default), or None
    for an unknown one."""
    if mode is None:  # jax.lax's defaults: gather promises in-bounds windows (then clamps)
        name = "PROMISE_IN_BOUNDS" if gather_ else "FILL_OR_DROP"
    elif isinstance(mode, str):
        name = _MODE_NAMES.get(mode)
    else:
        name = getattr(mode, "name", None)  # ours or jax's GatherScatterMode
    if name == "CLIP":
        return "clip"
    if name == "PROMISE_IN_BOUNDS":
        return "promise_in_bounds"
    if name == "FILL_OR_DROP":
        return "fill" if gather_ else "drop"
    return None


def _axis(axis, ndim: int):
    """A Python-int axis in range as a non-negative int, else None."""
    if type(axis) is not int or not -ndim <= axis < ndim:
        return None
    return axis % ndim


def _whole_or(operand, value, box):
    """``operand`` itself where ``box`` (slices) covers it whole (what the general path
    returns), else the view of ``value`` it selects."""
    view = value[box]
    if view.shape == value.shape:
        return operand
    return Array(view, operand._weak)


# --------------------------------------------------------------------------------------------
# Static slices
# --------------------------------------------------------------------------------------------

def slice_on_host(operand, start_indices, limit_indices, strides=None):
    """``lax.slice``'s shortcut, or NotImplemented."""
    value = host_value(operand)
    starts, limits = _plain_ints(start_indices), _plain_ints(limit_indices)
    if value is None or starts is None or limits is None:
        return NotImplemented
    shape = value.shape
    if not len(starts) == len(limits) == len(shape):
        return NotImplemented
    for s, lim, d in zip(starts, limits, shape):
        if not 0 <= s <= lim <= d:
            return NotImplemented
    if strides is None:
        return _whole_or(operand, value, tuple(map(slice, starts, limits)))
    steps = _plain_ints(strides)
    if steps is None or len(steps) != len(shape) or min(steps, default=1) < 1:
        return NotImplemented
    box = tuple(map(slice, starts, limits, steps))
    if max(steps, default=1) == 1:  # (a strided slice of a size-1 axis is not the operand)
        return _whole_or(operand, value, box)
    return Array(value[box], operand._weak)


def _static_slice_in_dim(value, start, limit, stride, axis):
    """``slice_in_dim``'s box (the general path's bounds: None for the ends, negatives count
    from the end once), or None to decline."""
    axis = _axis(axis, value.ndim)
    if axis is None:
        return None
    size = value.shape[axis]
    start = 0 if start is None else start
    limit = size if limit is None else limit
    if type(start) is not int or type(limit) is not int or type(stride) is not int:
        return None
    start = start + size if start < 0 else start
    limit = limit + size if limit < 0 else limit
    if stride < 1 or not 0 <= start <= limit <= size:
        return None
    return (slice(None),) * axis + (slice(start, limit, stride),)


def slice_in_dim_on_host(operand, start_index, limit_index, stride=1, axis=0):
    """``lax.slice_in_dim``'s shortcut, or NotImplemented."""
    value = host_value(operand)
    if value is None:
        return NotImplemented
    box = _static_slice_in_dim(value, start_index, limit_index, stride, axis)
    if box is None:
        return NotImplemented
    if stride == 1:
        return _whole_or(operand, value, box)
    return Array(value[box], operand._weak)


def _kept_or_squeezed(operand, value, box, axis, keepdims):
    """The size-1 slice ``box`` of ``value`` along ``axis``, squeezed unless ``keepdims``."""
    if keepdims:
        return _whole_or(operand, value, box)
    view = value[box]
    return Array(view.reshape(view.shape[:axis] + view.shape[axis + 1:]), operand._weak)


def index_in_dim_on_host(operand, index, axis=0, keepdims=True):
    """``lax.index_in_dim``'s shortcut, or NotImplemented."""
    value = host_value(operand)
    if value is None or type(index) is not int:
        return NotImplemented
    axis = _axis(axis, value.ndim)
    if axis is None:
        return NotImplemented
    size = value.shape[axis]
    wrapped = index + size if index < 0 else index
    if not 0 <= wrapped < size:
        return NotImplemented
    box = (slice(None),) * axis + (slice(wrapped, wrapped + 1),)
    return _kept_or_squeezed(operand, value, box, axis, keepdims)


# --------------------------------------------------------------------------------------------
# Dynamic slices
# --------------------------------------------------------------------------------------------

def _start_value(s):
    """``(value, static)`` of one start index: a Python int (or a NumPy integer) is static
    (a negative one is refused unless allowed), a 0-d integer array is not (a negative one
    wraps only when allowed and signed); None to decline (bools, uint64, floats, tracers)."""
    t = type(s)
    if t is int:
        return s, True
    if isinstance(s, _integer):
        return int(s), True
    v = host_value(s)
    if v is None or v.ndim != 0:
        return None
    kind = v.dtype.kind
    if kind == "i" or (kind == "u" and v.dtype.itemsize <= 4):
        return int(v), False
    return None


def _starts(start_indices, ndim):
    """The start indices as ``(value, static)`` pairs, one per dimension, or None."""
    t = type(start_indices)
    if t is Array or t is DeviceArray:
        v = start_indices._value
        kind = v.dtype.kind
        if v.ndim != 1 or not (kind == "i" or (kind == "u" and v.dtype.itemsize <= 4)):
            return None
        # (static: the general path reads a concrete array's entries as Python ints, so a
        # negative one not allowed is its IndexError)
        starts = [(int(s), True) for s in v.tolist()]
    elif t is tuple or t is list:
        starts = [_start_value(s) for s in start_indices]
        if None in starts:
            return None
    else:
        return None
    return starts if len(starts) == ndim else None


def _allowed(allow_negative_indices, ndim):
    """``allow_negative_indices`` per dimension, or None to decline."""
    if type(allow_negative_indices) is bool:
        return (allow_negative_indices,) * ndim
    if type(allow_negative_indices) in (tuple, list) and len(allow_negative_indices) == ndim:
        return tuple(bool(a) for a in allow_negative_indices)
    return None


def _part(start, allow, n, d):
    """The slice of ``n`` elements of a dimension of ``d`` at ``start`` (a ``_start_value``
    pair), wrapped once when negative and allowed (a static negative start not allowed is the
    general path's IndexError) and clamped so it fits; None to decline."""
    s, static = start
    if not 0 <= n <= d:
        return None
    if s < 0:
        if allow:
            s += d
        elif static:
            return None
    s = min(max(s, 0), d - n)
    return slice(s, s + n)


def _dynamic_box(shape, start_indices, sizes, allow_negative_indices):
    """The slices the dynamic family reads or writes (negative starts wrapped once, every
    start clamped so the slice fits), or None to decline."""
    starts = _starts(start_indices, len(shape))
    allow = _allowed(allow_negative_indices, len(shape))
    if starts is None or allow is None or len(sizes) != len(shape):
        return None
    box = []
    for start, ok, n, d in zip(starts, allow, sizes, shape):
        part = _part(start, ok, n, d)
        if part is None:
            return None
        box.append(part)
    return tuple(box)


def dynamic_slice_on_host(operand, start_indices, slice_sizes, *, allow_negative_indices=True):
    """``lax.dynamic_slice``'s shortcut, or NotImplemented."""
    value = host_value(operand)
    sizes = _plain_ints(slice_sizes)
    if value is None or sizes is None:
        return NotImplemented
    box = _dynamic_box(value.shape, start_indices, sizes, allow_negative_indices)
    if box is None:
        return NotImplemented
    return Array(value[box], operand._weak)


def _in_dim_args(value, start_index, size, axis, allow):
    """``(starts, sizes, allow)`` of a ``*_in_dim`` op along ``axis`` (the other axes whole
    from 0, their negative flags off), or None."""
    axis = _axis(axis, value.ndim)
    if axis is None or type(size) is not int or type(allow) is not bool:
        return None
    ndim = value.ndim
    starts = [0] * ndim
    starts[axis] = start_index
    sizes = list(value.shape)
    sizes[axis] = size
    flags = [False] * ndim
    flags[axis] = allow
    return starts, sizes, flags


def _dynamic_in_dim(operand, start_index, size, axis, allow):
    """``(value, box)`` of a dynamic slice along one axis (``_dynamic_box`` with the other
    axes whole), or None to decline."""
    value = host_value(operand)
    if value is None or type(size) is not int or type(allow) is not bool:
        return None
    axis = _axis(axis, value.ndim)
    start = _start_value(start_index)
    if axis is None or start is None:
        return None
    part = _part(start, allow, size, value.shape[axis])
    return None if part is None else (value, (slice(None),) * axis + (part,))


def dynamic_slice_in_dim_on_host(operand, start_index, slice_size, axis=0, *,
                                 allow_negative_indices=True):
    """``lax.dynamic_slice_in_dim``'s shortcut, or NotImplemented."""
    found = _dynamic_in_dim(operand, start_index, slice_size, axis, allow_negative_indices)
    if found is None:
        return NotImplemented
    value, box = found
    return Array(value[box], operand._weak)


def dynamic_index_in_dim_on_host(operand, index, axis=0, keepdims=True, *,
                                 allow_negative_indices=True):
    """``lax.dynamic_index_in_dim``'s shortcut, or NotImplemented."""
    found = _dynamic_in_dim(operand, index, 1, axis, allow_negative_indices)
    if found is None:
        return NotImplemented
    value, box = found
    if keepdims:  # (the general path's dynamic_slice never returns the operand itself)
        return Array(value[box], operand._weak)
    return _kept_or_squeezed(operand, value, box, axis % value.ndim, False)


def _updated(operand, value, update, box):
    """A copy of ``value`` with ``update``'s value written at ``box``."""
    out = value.copy()
    out[box] = update
    return Array(out, operand._weak)


def _update_value(value, u):
    """``u``, an update's value, where it has ``value``'s dtype and rank, else None."""
    if u is None or u.dtype != value.dtype or u.ndim != value.ndim:
        return None
    return u


def dynamic_update_slice_on_host(operand, update, start_indices, *,
                                 allow_negative_indices=True):
    """``lax.dynamic_update_slice``'s shortcut, or NotImplemented."""
    value = host_value(operand)
    if value is None:
        return NotImplemented
    u = _update_value(value, host_value(update))
    if u is None:
        return NotImplemented
    box = _dynamic_box(value.shape, start_indices, u.shape, allow_negative_indices)
    return NotImplemented if box is None else _updated(operand, value, u, box)


def _update_in_dim(operand, value, u, start_index, axis, allow):
    if u is None:
        return NotImplemented
    args = _in_dim_args(value, start_index, u.shape[axis % value.ndim] if value.ndim else 0,
                        axis, allow)
    if args is None:
        return NotImplemented
    starts, _, flags = args
    box = _dynamic_box(value.shape, starts, u.shape, flags)
    return NotImplemented if box is None else _updated(operand, value, u, box)


def dynamic_update_slice_in_dim_on_host(operand, update, start_index, axis, *,
                                        allow_negative_indices=True):
    """``lax.dynamic_update_slice_in_dim``'s shortcut, or NotImplemented."""
    value = host_value(operand)
    if value is None or _axis(axis, value.ndim) is None:
        return NotImplemented
    u = _update_value(value, host_value(update))
    return _update_in_dim(operand, value, u, start_index, axis, allow_negative_indices)


def dynamic_update_index_in_dim_on_host(operand, update, index, axis, *,
                                        allow_negative_indices=True):
    """``lax.dynamic_update_index_in_dim``'s shortcut, or NotImplemented; ``update`` may lack
    the axis."""
    value = host_value(operand)
    u = host_value(update)
    if value is None or u is None or _axis(axis, value.ndim) is None:
        return NotImplemented
    if u.ndim == value.ndim - 1:
        axis %= value.ndim
        u = u.reshape(u.shape[:axis] + (1,) + u.shape[axis:])
    return _update_in_dim(operand, value, _update_value(value, u), index, axis,
                          allow_negative_indices)


# --------------------------------------------------------------------------------------------
# gather and scatter: the forms that index whole dimensions
# --------------------------------------------------------------------------------------------

def _index_value(indices):
    """The value of an integer ``indices`` array with an index-vector dimension, or None
    (uint64, whose values past int64 the kernels saturate, is left to them)."""
    v = host_value(indices)
    if v is None or v.ndim == 0:
        return None
    kind = v.dtype.kind
    if kind == "i" or (kind == "u" and v.dtype.itemsize < 8):
        return v
    return None


def _take_form(shape, index_map, dropped, window_sizes):
    """Whether the indexed dimensions (``index_map``, distinct and in range) are exactly the
    ``dropped`` (collapsed/inserted) ones, each non-empty, with windows of size 1 there and
    of the whole dimension elsewhere (``window_sizes`` None: whole by construction)."""
    ndim = len(shape)
    if not index_map:
        return False
    if len(set(index_map)) != len(index_map) or tuple(sorted(index_map)) != dropped:
        return False
    if not all(0 <= d < ndim and shape[d] > 0 for d in index_map):
        return False
    if window_sizes is None:
        return True
    return len(window_sizes) == ndim and all(
        n == (1 if d in dropped else shape[d]) for d, n in enumerate(window_sizes))


def _offset_dims_ok(offset_dims, count, rank):
    """Whether ``offset_dims`` names ``count`` increasing result dimensions below ``rank``."""
    return (len(offset_dims) == count and all(0 <= d < rank for d in offset_dims)
            and all(a < b for a, b in zip(offset_dims, offset_dims[1:])))


def _front_order(index_map, ndim):
    """The transposition that puts the ``index_map`` dimensions first, in that order, then
    the others in order (indexing by the index columns then gives the kernels' layout: batch
    dimensions, then the window's); None for the identity."""
    order = tuple(index_map) + tuple(d for d in range(ndim) if d not in index_map)
    return None if order == tuple(range(ndim)) else order


def _offsets_order(n_batch, offset_dims):
    """The transposition that moves the window's dimensions (after ``n_batch`` batch
    dimensions) to ``offset_dims`` (the kernels' ``np.moveaxis``); None for the identity."""
    rank = n_batch + len(offset_dims)
    perm = [-1] * rank
    for j, d in enumerate(offset_dims):
        perm[d] = n_batch + j
    batch = iter(range(n_batch))
    perm = tuple(next(batch) if p < 0 else p for p in perm)
    return None if perm == tuple(range(rank)) else perm


def _transposed(a, order):
    return a if order is None else a.transpose(order)


# Up to this many index vectors, bounds are checked on the indices as Python ints.
_FEW_INDICES = 16


def _few_and_inside(cols, shape, index_map) -> bool:
    """Whether ``cols`` are a few 1-D index columns whose every index lies inside its
    dimension, read as Python ints: a few hundred ns where NumPy's compare and count cost
    ~2 us. False also for other columns (NumPy then tells)."""
    for c, d in zip(cols, index_map):
        if c.ndim != 1 or c.shape[0] > _FEW_INDICES:
            return False
        listed = c.tolist()
        if listed and (min(listed) < 0 or max(listed) >= shape[d]):
            return False
    return True


def _outside(cols, shape, index_map):
    """Per index vector, whether a component lies outside its dimension; None when none
    does (the common case, at one comparison per component)."""
    if _few_and_inside(cols, shape, index_map):
        return None
    bad = None
    for c, d in zip(cols, index_map):
        n = shape[d]
        unsigned = _UNSIGNED.get(c.dtype)
        if unsigned is not None and n <= 1 << (8 * c.dtype.itemsize - 1):
            mask = c.view(unsigned) >= n  # (negatives read as unsigned are past every n)
        elif c.dtype.kind == "u":
            mask = c >= n
        else:
            mask = (c < 0) | (c >= n)
        bad = mask if bad is None else bad | mask
    return bad if np.count_nonzero(bad) else None


def _clipped(cols, shape, index_map):
    """The index columns clamped into their dimensions."""
    return tuple(np.minimum(np.maximum(c.astype(np.intp), 0), shape[d] - 1)
                 for c, d in zip(cols, index_map))


def _index_columns(idx, k):
    """The ``k`` index columns of ``idx`` (views along its last dimension)."""
    if k == 1:
        return (idx[..., 0],)
    return tuple(idx[..., j] for j in range(k))


@functools.lru_cache(maxsize=512)
def _gather_plan(dn, shape, sizes, n_batch, k):
    """``(index_map, front order, offsets order)`` of a take-form gather (see the module
    doc) of these static arguments, or None (cached: they repeat)."""
    if dn.operand_batching_dims or dn.start_indices_batching_dims:
        return None
    index_map, collapsed, offset_dims = (_plain_ints(dn.start_index_map),
                                         _plain_ints(dn.collapsed_slice_dims),
                                         _plain_ints(dn.offset_dims))
    if index_map is None or collapsed is None or offset_dims is None:
        return None
    if k != len(index_map) or not _take_form(shape, index_map, collapsed, sizes):
        return None
    n_offset = len(shape) - len(collapsed)
    if not _offset_dims_ok(offset_dims, n_offset, n_batch + n_offset):
        return None
    return index_map, _front_order(index_map, len(shape)), _offsets_order(n_batch, offset_dims)


def gather_on_host(operand, start_indices, dimension_numbers, slice_sizes, *,
                   unique_indices=False, indices_are_sorted=False, mode=None,
                   fill_value=None):
    """``lax.gather``'s shortcut for the take form, or NotImplemented."""
    value = host_value(operand)
    idx = _index_value(start_indices)
    sizes = _plain_ints(slice_sizes)
    mode = mode_name(mode, True)
    if (value is None or idx is None or sizes is None or mode is None
            or type(dimension_numbers) is not GatherDimensionNumbers):
        return NotImplemented
    plan = _gather_plan(dimension_numbers, value.shape, sizes, idx.ndim - 1, idx.shape[-1])
    if plan is None:
        return NotImplemented
    index_map, front, offsets = plan
    if mode == "fill" and fill_value is not None and type(fill_value) not in (int, float, bool):
        return NotImplemented
    moved = _transposed(value, front)
    shape = value.shape
    cols = _index_columns(idx, len(index_map))
    if len(cols) == 1:  # NumPy's take clamps as the kernel does
        out = moved.take(cols[0], axis=0, mode="clip")
    else:
        out = moved[_clipped(cols, shape, index_map)]
    if mode == "fill":
        outside = _outside(cols, shape, index_map)
        if outside is not None:
            fill = gather_fill_value(value.dtype) if fill_value is None else fill_value
            out[outside] = np.asarray(fill).astype(value.dtype)
    return Array(_transposed(out, offsets), operand._weak)


@functools.lru_cache(maxsize=64)
def _small_iota(shape):
    out = np.arange(math.prod(shape), dtype=np.int64).reshape(shape)
    out.flags.writeable = False
    return out


def _iota(shape):
    """The flat position of each element of an array of ``shape`` (int64, as the kernels'),
    read-only and kept for small shapes."""
    if math.prod(shape) <= 1 << 14:
        return _small_iota(shape)
    return np.arange(math.prod(shape), dtype=np.int64).reshape(shape)


@functools.lru_cache(maxsize=512)
def _scatter_plan(dn, shape, updates_shape, indices_shape):
    """``(index_map, front order, updates order)`` of a take-form scatter (see the module
    doc) of these static arguments, or None (cached: they repeat)."""
    if dn.operand_batching_dims or dn.scatter_indices_batching_dims:
        return None
    index_map, inserted, window_dims = (_plain_ints(dn.scatter_dims_to_operand_dims),
                                        _plain_ints(dn.inserted_window_dims),
                                        _plain_ints(dn.update_window_dims))
    if index_map is None or inserted is None or window_dims is None:
        return None
    if indices_shape[-1] != len(index_map) or not _take_form(shape, index_map, inserted, None):
        return None
    n_batch = len(indices_shape) - 1
    rest = tuple(n for d, n in enumerate(shape) if d not in inserted)
    rank = len(updates_shape)
    if not _offset_dims_ok(window_dims, len(rest), rank) or rank != n_batch + len(rest):
        return None
    # The updates in the kernel's layout: batch dimensions first, then the window's.
    order = tuple(d for d in range(rank) if d not in window_dims) + window_dims
    if tuple(updates_shape[d] for d in order) != indices_shape[:-1] + rest:
        return None  # (a partial window, or the general path's error)
    return (index_map, _front_order(index_map, len(shape)),
            None if order == tuple(range(rank)) else order)


_ARITHMETIC_SCATTERS = frozenset({"scatter_sub", "scatter_add", "scatter_mul"})


def _flat_positions(cols, shape, front):
    """The flat position (int64, as the kernel's) in an array of ``shape`` of each element a
    take-form scatter reaches, laid out as the kernel's (the index vectors in order, then
    each window's elements), for in-bounds index columns ``cols``."""
    if len(shape) == 1:  # (one indexed dimension and no window: the index column itself)
        return cols[0].astype(_INT64)
    positions = _transposed(_iota(shape), front)
    return positions[cols] if len(cols) > 1 else positions.take(cols[0], axis=0)


def _flat(a):
    """``a`` as a 1-D array (itself when it is one)."""
    return a if a.ndim == 1 else a.reshape(-1)


def _scatter_on_host(name, operand, scatter_indices, updates, dimension_numbers, mode):
    """The scatter ``name`` (a key of the kernels' combiners) of the take form, or
    NotImplemented.

    The kernel combines flat positions laid out batch-major (then the window in order) with
    one NumPy call; here the same int64 positions (``_flat_positions``) and values
    go to the same call, so repeated positions combine in the same order, with the same
    loops (a NumPy ``ufunc.at`` on a 2-D view may give another NaN's sign)."""
    value = host_value(operand)
    idx = _index_value(scatter_indices)
    u = host_value(updates)
    mode = mode_name(mode, False)
    if (value is None or idx is None or u is None or mode is None or u.dtype != value.dtype
            or type(dimension_numbers) is not ScatterDimensionNumbers):
        return NotImplemented
    shape = value.shape
    plan = _scatter_plan(dimension_numbers, shape, u.shape, idx.shape)
    if plan is None:
        return NotImplemented
    index_map, front, order = plan
    u = _transposed(u, order)
    if name in _ARITHMETIC_SCATTERS and value.dtype.kind == "b":
        return NotImplemented  # (refused by the general path, as jax.lax's add and mul)
    if name == "scatter_sub":
        u = ew.neg_p.kernel(u)  # (the kernel the general path's neg_p binds)
        name = "scatter_add"
    cols = _index_columns(idx, len(index_map))
    if mode == "clip":
        cols = _clipped(cols, shape, index_map)
    else:
        outside = _outside(cols, shape, index_map)
        if outside is not None:
            inside = ~outside
            cols, u = tuple(c[inside] for c in cols), u[inside]
    out = value.copy()
    _COMBINERS[name](_flat(out), _flat(_flat_positions(cols, shape, front)), _flat(u))
    return Array(out, operand._weak)


def scatter_shortcut(name: str):
    """The shortcut of ``lax.<name>`` (a scatter, or ``scatter_sub``)."""
    def shortcut(operand, scatter_indices, updates, dimension_numbers, *,
                 indices_are_sorted=False, unique_indices=False, mode=None):
        return _scatter_on_host(name, operand, scatter_indices, updates, dimension_numbers,
                                mode)

    shortcut.__name__ = f"{name}_on_host"
    return shortcut
