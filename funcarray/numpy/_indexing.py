"""Indexing: ``x[idx]``, functional updates ``x.at[idx].set(v)``, and index-returning functions.

``x[idx]`` follows NumPy's rules (ints, slices with any step, ``...``, ``None``, integer and
boolean arrays, and their mixtures, with NumPy's placement of the advanced-index dimensions).
What it binds depends on the index, so that cheap indexing stays cheap and clean in IR:

* static ints and slices -> ``slice`` (+ ``rev`` for negative steps) and ``squeeze``;
  ``None`` -> ``reshape``;
* a traced (or Array) integer scalar -> ``dynamic_slice`` (clamped, as in JAX);
* integer arrays -> one ``gather``. Out-of-bounds entries are clamped (JAX's default for
  reading); negative entries count from the end first. Boolean masks must be concrete: they are
  turned into integer arrays with ``nonzero``.

A static Python int out of range raises an IndexError, as in NumPy (JAX clamps it silently).

``x.at[idx]`` gives JAX's functional updates. Out-of-bounds array entries (and traced scalar
indices) are dropped by the updates and clamped by ``.get()``, unless ``mode=`` says otherwise.
Boxes of static ints and unit-step slices update through ``dynamic_update_slice``; every other
index is turned into flat positions (the same indexing applied to an ``iota``) and updates
through a one-dimensional ``scatter``.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, overload

import numpy as np

from funcarray.api.arguments import (
    asarray_arg,
    broadcast_shapes,
    broadcast_to_shape,
    canonicalize_axis,
    convert,
    convert_arg,
    is_array,
)
from funcarray.base import dtypes
from funcarray.base.array import Array
from funcarray.base.errors import index_error, op_type_error, op_value_error
from funcarray.numpy._elementwise import power, true_divide, where
from funcarray.numpy._promotion import promote_args
from funcarray.primitives import elementwise as ew
from funcarray.primitives.dynamic_slice import dynamic_slice_p, dynamic_update_slice_p
from funcarray.primitives.gather import gather_fill_value, gather_p
from funcarray.primitives.gather_scatter_dims import GatherDimensionNumbers, ScatterDimensionNumbers
from funcarray.primitives.reduce import cumsum_p
from funcarray.primitives.scatter import (
    scatter_add_p,
    scatter_max_p,
    scatter_min_p,
    scatter_mul_p,
    scatter_p,
)
from funcarray.primitives.select_n import select_n_p
from funcarray.primitives.shape import concatenate_p, iota_p, reshape_p, rev_p, slice_p, squeeze_p
from funcarray.primitives.sort import sort_p
from funcarray.transforms.core import Tracer

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any, Literal

    from funcarray.base.typing import ArrayLike

__all__ = [
    "getitem", "IndexUpdateHelper", "nonzero", "flatnonzero", "argwhere", "take",
    "take_along_axis", "compress", "extract", "select", "sort", "argsort", "unique",
]

_VALID_INDICES = ("only integers, slices (`:`), ellipsis (`...`), None (`fnp.newaxis`) and "
                  "integer or boolean arrays are valid indices")


# --------------------------------------------------------------------------------------------
# Small builders
# --------------------------------------------------------------------------------------------

def _const(value, dtype, shape=()):
    """A constant of ``dtype`` broadcast to ``shape`` (a zero-copy view eagerly)."""
    return broadcast_to_shape(Array(np.array(value, dtype)), tuple(shape))


def _reshape(x, shape):
    shape = tuple(shape)
    return x if x.shape == shape else reshape_p.bind(x, new_sizes=shape)


def _ravel(x):
    return _reshape(x, (x.size,))


def _index_dtype(*dts):
    """int32 for indices, unless one of them needs 64 bits to keep its values."""
    wide = any(np.dtype(dt).itemsize == 8 or np.dtype(dt) == np.uint32 for dt in dts)
    return dtypes.int64 if wide else dtypes.int32


def _normalize_negative(idx, size):
    """``idx + size`` where ``idx < 0`` (counting from the end), elementwise."""
    if idx.dtype.kind == "u":
        return idx
    shape = idx.shape
    is_negative = ew.lt_p.bind(idx, _const(0, idx.dtype, shape))
    wrapped = ew.add_p.bind(idx, _const(size, idx.dtype, shape))
    return select_n_p.bind(is_negative, idx, wrapped)


def _is_tracer(x) -> bool:
    return isinstance(x, Tracer)


# --------------------------------------------------------------------------------------------
# Index parsing
# --------------------------------------------------------------------------------------------

class _Entry:
    """One component of a normalised index: it indexes exactly one dimension, or adds one.

    kinds: "none" (new axis), "int" (static, already non-negative), "slice" (static
    start/stop/step from ``slice.indices``), "dyn" (a 0-d integer Array/tracer), "array" (an
    integer Array/tracer of any rank).
    """

    __slots__ = ("kind", "value", "after_gap")

    def __init__(self, kind, value=None):
        self.kind = kind
        self.value = value
        # True when an explicit Ellipsis that covers no dimension comes right before: it
        # still separates advanced indices (x[:, i, ..., j] puts the index dims first).
        self.after_gap = False

    @property
    def advanced(self):
        return self.kind in ("int", "dyn", "array")


def _classify(op, item):
    """First pass over one index item: (tag, value) with no shape knowledge yet."""
    if item is None:
        return "none", None
    if item is Ellipsis:
        return "ellipsis", None
    if isinstance(item, slice):
        return "slice", item
    if isinstance(item, (bool, np.bool_)):
        return "bool0", bool(item)
    if isinstance(item, (int, np.integer)):
        return "int", int(item)
    if isinstance(item, (list, tuple)):
        item = asarray_arg(op, item) if _has_array(item) else np.asarray(item)
        if isinstance(item, np.ndarray) and item.size == 0 and item.dtype.kind == "f":
            item = item.astype(np.int32)  # `x[[]]` is an empty integer index in NumPy
    if isinstance(item, np.ndarray) or is_array(item):
        kind = np.dtype(item.dtype).kind
        if item.dtype == dtypes.bool_:
            return "mask", item
        if kind in "iu":
            if isinstance(item, np.ndarray) and item.ndim == 0:
                return "int", int(item)
            if isinstance(item, np.ndarray):
                item = asarray_arg(op, item)
            return ("dyn" if item.ndim == 0 else "array"), item
        raise index_error(op, f"{_VALID_INDICES}; got an array of dtype {item.dtype}")
    raise index_error(op, f"{_VALID_INDICES}; got {type(item).__name__} {item!r}")


def _has_array(seq) -> bool:
    return any(is_array(v) or (isinstance(v, (list, tuple)) and _has_array(v)) for v in seq)


def _consumed(tag, value) -> int:
    if tag in ("int", "dyn", "array", "slice"):
        return 1
    if tag == "mask":
        return value.ndim
    return 0


def _concrete_mask(op, mask):
    if _is_tracer(mask):
        raise op_type_error(
            op, f"a boolean mask index needs concrete values, but got a traced {mask.aval}: "
                f"the result's shape would depend on the mask's values. Use "
                f"`fnp.where(mask, x, 0)` to keep the shape, or `fnp.nonzero(mask, size=N)` "
                f"for a fixed number of indices.")
    return np.asarray(mask)


def _parse_index(op, shape, idx, strict: bool = True):
    """Normalise ``idx`` for an array of ``shape``.

    Returns ``(new_shape, entries)``: ``new_shape`` is ``shape`` with size-1 dimensions added
    where a 0-d boolean indexes (NumPy treats ``x[True]`` as an advanced index over a new
    axis); ``entries`` hold one ``_Entry`` per dimension of ``new_shape`` plus the "none" ones.
    """
    items = idx if isinstance(idx, tuple) else (idx,)
    tagged = [_classify(op, item) for item in items]
    n_ellipsis = sum(tag == "ellipsis" for tag, _ in tagged)
    if n_ellipsis > 1:
        raise index_error(op, "an index can only have a single ellipsis ('...')")
    used = sum(_consumed(tag, value) for tag, value in tagged)
    if used > len(shape):
        raise index_error(
            op, f"too many indices for array: array is {len(shape)}-dimensional, but {used} "
                f"were indexed")
    if n_ellipsis == 0:
        tagged.append(("ellipsis", None))
    new_shape, entries, dim = [], [], 0
    gap = False
    for k, (tag, value) in enumerate(tagged):
        if gap:
            gap = False
            mark = len(entries)  # the next entry, whatever adds it, follows the gap
        else:
            mark = None
        if tag == "ellipsis":
            gap = len(shape) == used and n_ellipsis and k < len(tagged) - 1
            for _ in range(len(shape) - used):
                entries.append(_Entry("slice", slice(None).indices(shape[dim])))
                new_shape.append(shape[dim])
                dim += 1
        elif tag == "none":
            entries.append(_Entry("none"))
        elif tag == "bool0":
            new_shape.append(1)
            entries.append(_Entry("array", Array(np.zeros(int(value), np.int32))))
        elif tag == "mask":
            dim = _add_mask(op, shape, dim, value, new_shape, entries)
        else:
            size = shape[dim]
            new_shape.append(size)
            entries.append(_static_entry(op, tag, value, size, dim, strict))
            dim += 1
        if mark is not None and mark < len(entries):
            entries[mark].after_gap = True
    return tuple(new_shape), entries


def _static_entry(op, tag, value, size, dim, strict=True):
    if tag == "int":
        if not -size <= value < size:
            if not strict:  # an explicit mode= decides, as for a traced index (JAX)
                return _Entry("dyn", Array(np.asarray(value, _static_index_dtype(value))))
            raise index_error(op, f"index {value} is out of bounds for axis {dim} with size "
                                  f"{size}; pass mode='clip', 'drop' or 'fill' to "
                                  f"x.at[...] to clamp or skip it instead")
        return _Entry("int", value % size)
    if tag == "slice":
        for part in (value.start, value.stop, value.step):
            if part is not None and not isinstance(part, (int, np.integer)):
                if is_array(part):
                    raise index_error(
                        op, "slice bounds must be static Python ints; for a traced start "
                            "use funcarray.lax.dynamic_slice (the slice size must be static)")
                raise index_error(op, f"slice indices must be integers or None, got "
                                      f"{type(part).__name__} {part!r}")
        if value.step == 0:
            raise index_error(op, "slice step cannot be zero")
        return _Entry("slice", value.indices(size))
    return _Entry(tag, value)  # "dyn" or "array"


def _add_mask(op, shape, dim, mask, new_shape, entries):
    """Turn a concrete boolean mask into one integer array per dimension it covers."""
    if mask.ndim == 0:  # a 0-d boolean array acts like Python's True / False
        value = bool(_concrete_mask(op, mask))
        new_shape.append(1)
        entries.append(_Entry("array", Array(np.zeros(int(value), np.int32))))
        return dim
    covered = tuple(shape[dim:dim + mask.ndim])
    if tuple(mask.shape) != covered:
        raise index_error(
            op, f"boolean index of shape {tuple(mask.shape)} does not match the indexed "
                f"dimensions {dim}..{dim + mask.ndim - 1} of shape {covered}")
    for positions in np.nonzero(_concrete_mask(op, mask)):
        entries.append(_Entry("array", Array(positions.astype(np.int32))))
        new_shape.append(shape[dim])
        dim += 1
    return dim


# --------------------------------------------------------------------------------------------
# getitem
# --------------------------------------------------------------------------------------------

def _slice_bounds(entry, size):
    """(start, limit, stride, reverse) for ``slice_p`` covering one entry's dimension."""
    if entry.kind == "int":
        return entry.value, entry.value + 1, 1, False
    if entry.kind != "slice":
        return 0, size, 1, False
    start, stop, step = entry.value
    length = len(range(start, stop, step))
    if length == 0:
        return 0, 0, 1, False
    last = start + (length - 1) * step
    if step > 0:
        return start, last + 1, step, False
    return last, start + 1, -step, True


def _apply_static(x, dim_entries):
    bounds = [_slice_bounds(e, n) for e, n in zip(dim_entries, x.shape)]
    starts = tuple(b[0] for b in bounds)
    limits = tuple(b[1] for b in bounds)
    strides = tuple(b[2] for b in bounds)
    if starts != (0,) * x.ndim or limits != x.shape or strides != (1,) * x.ndim:
        x = slice_p.bind(x, start_indices=starts, limit_indices=limits,
                         strides=None if set(strides) <= {1} else strides)
    reversed_dims = tuple(d for d, b in enumerate(bounds) if b[3])
    if reversed_dims:
        x = rev_p.bind(x, dimensions=reversed_dims)
    return x


def _apply_dynamic_scalars(x, dim_entries):
    dyn = [d for d, e in enumerate(dim_entries) if e.kind == "dyn"]
    if not dyn:
        return x
    index_dtype = _index_dtype(*(dim_entries[d].value.dtype for d in dyn))
    starts = [_const(0, index_dtype)] * x.ndim
    sizes = list(x.shape)
    for d in dyn:
        starts[d] = _normalize_negative(convert(dim_entries[d].value, index_dtype), x.shape[d])
        sizes[d] = 1
    return dynamic_slice_p.bind(x, *starts, slice_sizes=tuple(sizes))


def _output_layout(entries, advanced):
    """Result slots in order: "dim" (a sliced dimension), "new" (None) and "adv" (the block of
    advanced-index dimensions, placed where NumPy puts it)."""
    slots = {"slice": "dim", "none": "new"}
    positions = [i for i, e in enumerate(entries) if advanced(e)]
    if not positions:
        return [slots[e.kind] for e in entries if e.kind in slots]
    adjacent = positions[-1] - positions[0] + 1 == len(positions) and not any(
        entries[p].after_gap for p in positions[1:])
    rest = [slots[e.kind] for e in entries if not advanced(e)]
    if not adjacent:
        return ["adv", *rest]
    before = sum(1 for e in entries[:positions[0]] if not advanced(e))
    return [*rest[:before], "adv", *rest[before:]]


def _index_arrays(op, arrays, sizes):
    """Broadcast integer index arrays together, wrap negatives and stack them as ``(*S, k)``."""
    try:
        shape = broadcast_shapes(op, *(a.shape for a in arrays))
    except ValueError:
        shapes = " ".join(str(tuple(a.shape)) for a in arrays)
        raise index_error(op, f"shape mismatch: indexing arrays could not be broadcast "
                              f"together with shapes {shapes}") from None
    index_dtype = _index_dtype(*(a.dtype for a in arrays))
    columns = []
    for a, size in zip(arrays, sizes):
        a = _normalize_negative(convert(a, index_dtype), size)
        columns.append(_reshape(broadcast_to_shape(a, shape), (*shape, 1)))
    stacked = columns[0] if len(columns) == 1 else concatenate_p.bind(
        *columns, dimension=len(shape))
    return stacked, shape


def _gather_advanced(op, y, dim_entries, layout, mode, fill_value):
    """Index the "array" dimensions of ``y`` with one gather laid out as ``layout``."""
    array_dims = tuple(d for d, e in enumerate(dim_entries) if e.kind == "array")
    indices, batch_shape = _index_arrays(
        op, [dim_entries[d].value for d in array_dims], [y.shape[d] for d in array_dims])
    gathered = [s for s in layout if s != "new"]
    adv_at = gathered.index("adv")
    n_batch = len(batch_shape)
    offset_dims = tuple(i if i < adv_at else i + n_batch - 1
                        for i, s in enumerate(gathered) if s == "dim")
    out_shape = [y.shape[d] for d in range(y.ndim) if d not in array_dims]
    out_shape[adv_at:adv_at] = batch_shape
    if any(y.shape[d] == 0 for d in array_dims):
        if math.prod(batch_shape) and mode != "fill":
            raise index_error(op, "index is out of bounds for an axis of size 0")
        fill = _fill_scalar(y.dtype, fill_value) if mode == "fill" else 0
        return broadcast_to_shape(convert(_const(fill, y.dtype), y.dtype, y.weak_type),
                                  tuple(out_shape))
    dn = GatherDimensionNumbers(offset_dims=offset_dims, collapsed_slice_dims=array_dims,
                                start_index_map=array_dims)
    slice_sizes = tuple(1 if d in array_dims else n for d, n in enumerate(y.shape))
    return gather_p.bind(y, indices, dimension_numbers=dn, slice_sizes=slice_sizes,
                         indices_are_sorted=False, unique_indices=False, mode=mode,
                         fill_value=fill_value)


def _fill_scalar(dtype, fill_value):
    return gather_fill_value(dtype) if fill_value is None else fill_value


def _gather_mode(op, mode) -> str:
    if mode in (None, "clip", "promise_in_bounds"):
        return "clip"
    if mode in ("fill", "drop"):
        return "fill"
    raise op_value_error(op, f"mode must be None, 'clip', 'fill', 'drop' or "
                             f"'promise_in_bounds', got {mode!r}")


def _static_index_dtype(value: int):
    return dtypes.int32 if -2**31 <= value < 2**31 else dtypes.int64


def _rewriting_take(op, x, idx, mode=None, fill_value=None, strict=None):
    """``x[idx]`` in gather ``mode``. ``strict``: a static int out of bounds is an
    IndexError (NumPy), else it follows the mode; by default strict unless a mode is given."""
    x = asarray_arg(op, x)
    strict = mode is None if strict is None else strict
    mode = _gather_mode(op, mode)
    new_shape, entries = _parse_index(op, x.shape, idx, strict)
    x = _reshape(x, new_shape)
    if mode == "fill":
        # Scalars then follow the arrays' out-of-bounds rule: a 0-d advanced index.
        for e in entries:
            if e.kind == "dyn":
                e.kind = "array"
    has_arrays = any(e.kind == "array" for e in entries)
    dim_entries = [e for e in entries if e.kind != "none"]
    x = _apply_static(x, dim_entries)
    x = _apply_dynamic_scalars(x, dim_entries)
    scalar_dims = tuple(d for d, e in enumerate(dim_entries) if e.kind in ("int", "dyn"))
    if scalar_dims:
        x = squeeze_p.bind(x, dimensions=scalar_dims)
    dim_entries = [e for e in dim_entries if e.kind not in ("int", "dyn")]
    if has_arrays:
        layout = _output_layout(entries, lambda e: e.advanced)
        x = _gather_advanced(op, x, dim_entries, layout, mode, fill_value)
    n_new = sum(e.kind == "none" for e in entries)
    if n_new:
        layout = _output_layout(entries, lambda e: e.advanced and has_arrays)
        x = _reshape(x, _insert_new_axes(x.shape, layout))
    return x


def _insert_new_axes(shape, layout):
    """``shape`` (the result without its None axes) with 1s where ``layout`` has "new"."""
    sizes = iter(shape)
    out = []
    n_adv = len(shape) - sum(s == "dim" for s in layout)
    for slot in layout:
        if slot == "new":
            out.append(1)
        elif slot == "dim":
            out.append(next(sizes))
        else:
            out.extend(next(sizes) for _ in range(n_adv))
    return tuple(out)


def getitem(x: ArrayLike, idx: Any) -> Array:
    """``x[idx]`` with NumPy's indexing rules (what ``Array.__getitem__`` calls).

    Integer-array entries out of bounds are clamped (as in JAX); a static Python int out of
    bounds raises IndexError (as in NumPy). Boolean masks must be concrete.

    Example:
        >>> import funcarray.numpy as fnp
        >>> x = fnp.arange(12).reshape(3, 4)
        >>> x[1, ::-2]
        Array([7, 5], dtype=int32)
        >>> x[fnp.array([0, 2]), None, 1:3].shape
        (2, 1, 2)
    """
    return _rewriting_take("getitem", x, idx)


# --------------------------------------------------------------------------------------------
# Functional updates: x.at[idx]
# --------------------------------------------------------------------------------------------

_SCATTERS = {"set": scatter_p, "add": scatter_add_p, "multiply": scatter_mul_p,
             "min": scatter_min_p, "max": scatter_max_p}
_COMBINE = {"add": ew.add_p, "multiply": ew.mul_p, "min": ew.min_p, "max": ew.max_p}


def _scatter_mode(op, mode) -> str:
    # "promise_in_bounds" leaves out-of-bounds updates unspecified; dropping them is what XLA
    # (and so jax) does with them, and _gather_mode clamps its gathers, as XLA does.
    if mode in (None, "drop", "fill", "promise_in_bounds"):
        return "drop"
    if mode == "clip":
        return "clip"
    raise op_value_error(op, f"mode must be None, 'drop', 'clip', 'fill' or "
                             f"'promise_in_bounds', got {mode!r}")


def _broadcast_value(op, v, shape):
    """Broadcast the update values to the indexed shape (leading 1s of ``v`` may go)."""
    extra = v.ndim - len(shape)
    if extra > 0 and all(n == 1 for n in v.shape[:extra]):
        v = _reshape(v, v.shape[extra:])
    fits = v.ndim <= len(shape) and all(
        a in (1, b) for a, b in zip(v.shape[::-1], tuple(shape)[::-1]))
    if not fits:
        raise op_value_error(op, f"shape mismatch: value array of shape {tuple(v.shape)} "
                                 f"could not be broadcast to indexing result of shape "
                                 f"{tuple(shape)}")
    return broadcast_to_shape(v, tuple(shape))


def _static_box(entries):
    """(starts, sizes) when the index selects a box of ``x`` (static ints and unit-step
    slices, Ellipsis, None), else None."""
    starts, sizes = [], []
    for e in entries:
        if e.kind == "none":
            continue
        if e.kind == "int":
            starts.append(e.value)
            sizes.append(1)
        elif e.kind == "slice" and e.value[2] == 1:
            start, stop, _ = e.value
            starts.append(start)
            sizes.append(max(stop - start, 0))
        else:
            return None
    return starts, sizes


def _update_box(op, x, entries, v, kind, fn=None):
    starts, sizes = _static_box(entries)
    # The shape x[idx] has: ints dropped, None axes added.
    indexed_shape = [1 if e.kind == "none" else len(range(*e.value))
                     for e in entries if e.kind != "int"]
    start_arrays = [_const(s, dtypes.int32) for s in starts]
    if kind == "set":
        v = _reshape(_broadcast_value(op, v, indexed_shape), sizes)
        return dynamic_update_slice_p.bind(x, v, *start_arrays)
    limits = tuple(s + n for s, n in zip(starts, sizes))
    old = slice_p.bind(x, start_indices=tuple(starts), limit_indices=limits, strides=None)
    if kind == "apply":
        new = convert_arg(op, fn(_reshape(old, indexed_shape)), x.dtype, x.weak_type)
        new = _reshape(_broadcast_value(op, new, indexed_shape), sizes)
    else:
        v = _reshape(_broadcast_value(op, v, indexed_shape), sizes)
        new = _COMBINE[kind].bind(old, v)
    return dynamic_update_slice_p.bind(x, new, *start_arrays)


def _gather_flat(flat, positions, mode="clip", fill_value=None):
    """``flat[positions]`` for non-negative positions (no wrapping of negatives)."""
    dn = GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,))
    return gather_p.bind(flat, _reshape(positions, (*positions.shape, 1)), dimension_numbers=dn,
                         slice_sizes=(1,), indices_are_sorted=False, unique_indices=False,
                         mode=mode, fill_value=fill_value)


def _flat_positions(op, x, idx, mode, strict):
    """The flat position in ``x`` of every element ``x[idx]`` selects, in that layout.
    Out-of-bounds picks become ``x.size`` (dropped by the scatter) in drop mode."""
    index_dtype = dtypes.int64 if x.size >= 2**31 - 1 else dtypes.int32
    iota = _reshape(iota_p.bind(dtype=index_dtype, shape=(x.size,), dimension=0), x.shape)
    gather_mode = "fill" if mode == "drop" else "clip"
    return _rewriting_take(op, iota, idx, mode=gather_mode, fill_value=x.size, strict=strict)


def _scatter_update(op, x, idx, values, kind, mode=None, fn=None, *, unique_indices=False,
                    indices_are_sorted=False):
    x = asarray_arg(op, x)
    strict = mode is None  # a static int out of bounds raises unless a mode is asked for
    mode = _scatter_mode(op, mode)
    if kind != "apply":
        values = convert_arg(op, values, x.dtype, x.weak_type)
    new_shape, entries = _parse_index(op, x.shape, idx, strict)
    if new_shape == x.shape and _static_box(entries) is not None:
        return _update_box(op, x, entries, values, kind, fn)
    positions = _flat_positions(op, x, idx, mode, strict)
    if positions.size == 0:  # nothing selected: only check that the values would fit
        if kind != "apply":
            _broadcast_value(op, values, positions.shape)
        return x
    flat_x = _ravel(x)
    indices = _reshape(positions, (*positions.shape, 1))
    if kind == "apply":
        old = _gather_flat(flat_x, positions) if x.size else _reshape(flat_x, positions.shape)
        values = convert_arg(op, fn(old), x.dtype, x.weak_type)
        kind = "set"
    values = _broadcast_value(op, values, positions.shape)
    dn = ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                 scatter_dims_to_operand_dims=(0,))
    # The caller's promises carry over: flat positions are unique (sorted) exactly when the
    # index entries are. One position (a scalar index, even a traced one: x.at[i] in a loop)
    # is unique and sorted by itself. They let scatter_mul differentiate with respect to the
    # values.
    single = positions.size == 1
    out = _SCATTERS[kind].bind(flat_x, indices, values, dimension_numbers=dn,
                               indices_are_sorted=bool(indices_are_sorted) or single,
                               unique_indices=bool(unique_indices) or single, mode="drop")
    return _reshape(out, x.shape)


class _IndexUpdateRef:
    """``x.at[idx]``: the methods below return updated copies of ``x``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.zeros(3).at[1].set(5.0)
        Array([0., 5., 0.], dtype=float32)
    """

    __slots__ = ("array", "index")

    def __init__(self, array: Array, index: Any) -> None:
        self.array = array
        self.index = index

    def __repr__(self):
        return f"_IndexUpdateRef({self.array!r}, {self.index!r})"

    def get(self, *, indices_are_sorted: bool = False, unique_indices: bool = False,
            mode: str | None = None, fill_value: ArrayLike | None = None,
            wrap_negative_indices: bool = True) -> Array:
        """``x[idx]``, with a choice of out-of-bounds ``mode`` ("clip" or "fill").

        Example:
            >>> import funcarray.numpy as fnp
            >>> fnp.arange(3.0).at[fnp.array([0, 5])].get(mode="fill")
            Array([ 0., nan], dtype=float32)
        """
        return _rewriting_take("at[].get", self.array, self.index, mode, fill_value)

    def set(self, values: ArrayLike, *, indices_are_sorted: bool = False,
            unique_indices: bool = False, mode: str | None = None) -> Array:
        """``x[idx] = values`` as a new array (values are cast to ``x``'s dtype).

        Example:
            >>> import funcarray.numpy as fnp
            >>> fnp.arange(4).at[::2].set(9)
            Array([9, 1, 9, 3], dtype=int32)
        """
        return _scatter_update("at[].set", self.array, self.index, values, "set", mode,
                               unique_indices=unique_indices,
                               indices_are_sorted=indices_are_sorted)

    def add(self, values: ArrayLike, *, indices_are_sorted: bool = False,
            unique_indices: bool = False, mode: str | None = None) -> Array:
        """``x[idx] += values``; repeated indices accumulate.

        Example:
            >>> import funcarray.numpy as fnp
            >>> fnp.zeros(3).at[fnp.array([0, 0, 2])].add(1.0)
            Array([2., 0., 1.], dtype=float32)
        """
        return _scatter_update("at[].add", self.array, self.index, values, "add", mode,
                               unique_indices=unique_indices,
                               indices_are_sorted=indices_are_sorted)

    def multiply(self, values: ArrayLike, *, indices_are_sorted: bool = False,
                 unique_indices: bool = False, mode: str | None = None) -> Array:
        """``x[idx] *= values``; repeated indices accumulate.

        Example:
            >>> import funcarray.numpy as fnp
            >>> fnp.ones(3).at[fnp.array([1, 1])].multiply(3.0)
            Array([1., 9., 1.], dtype=float32)
        """
        return _scatter_update("at[].multiply", self.array, self.index, values, "multiply",
                               mode, unique_indices=unique_indices,
                               indices_are_sorted=indices_are_sorted)

    mul = multiply

    def divide(self, values: ArrayLike, *, indices_are_sorted: bool = False,
               unique_indices: bool = False, mode: str | None = None) -> Array:
        """``x[idx] /= values`` (true division, as ``x / y`` would give).

        Example:
            >>> import funcarray.numpy as fnp
            >>> fnp.ones(3).at[0].divide(4.0)
            Array([0.25, 1.  , 1.  ], dtype=float32)
        """
        x = asarray_arg("at[].divide", self.array)
        divisor = _scatter_update("at[].divide", _ones_like(x), self.index, values,
                                  "multiply", mode, unique_indices=unique_indices,
                                  indices_are_sorted=indices_are_sorted)
        return true_divide(x, divisor)

    def power(self, values: ArrayLike, *, indices_are_sorted: bool = False,
              unique_indices: bool = False, mode: str | None = None) -> Array:
        """``x[idx] **= values``.

        Example:
            >>> import funcarray.numpy as fnp
            >>> fnp.array([1.0, 2.0, 3.0]).at[2].power(2.0)
            Array([1., 2., 9.], dtype=float32)
        """
        x = asarray_arg("at[].power", self.array)
        exponent = _scatter_update("at[].power", _ones_like(x), self.index, values,
                                   "multiply", mode, unique_indices=unique_indices,
                                   indices_are_sorted=indices_are_sorted)
        return power(x, exponent)

    def min(self, values: ArrayLike, *, indices_are_sorted: bool = False,
            unique_indices: bool = False, mode: str | None = None) -> Array:
        """``x[idx] = minimum(x[idx], values)``; repeated indices accumulate.

        Example:
            >>> import funcarray.numpy as fnp
            >>> fnp.arange(3).at[1:].min(1)
            Array([0, 1, 1], dtype=int32)
        """
        return _scatter_update("at[].min", self.array, self.index, values, "min", mode,
                               unique_indices=unique_indices,
                               indices_are_sorted=indices_are_sorted)

    def max(self, values: ArrayLike, *, indices_are_sorted: bool = False,
            unique_indices: bool = False, mode: str | None = None) -> Array:
        """``x[idx] = maximum(x[idx], values)``; repeated indices accumulate.

        Example:
            >>> import funcarray.numpy as fnp
            >>> fnp.arange(3).at[:2].max(1)
            Array([1, 1, 2], dtype=int32)
        """
        return _scatter_update("at[].max", self.array, self.index, values, "max", mode,
                               unique_indices=unique_indices,
                               indices_are_sorted=indices_are_sorted)

    def apply(self, func: Callable[[Array], ArrayLike], *,
              indices_are_sorted: bool = False, unique_indices: bool = False,
              mode: str | None = None) -> Array:
        """``x[idx] = func(x[idx])`` (``func`` maps arrays elementwise). Unlike JAX, an index
        repeated in ``idx`` gets ``func`` applied once, not once per repetition.

        Example:
            >>> import funcarray.numpy as fnp
            >>> fnp.arange(4).at[1::2].apply(lambda v: v * 10)
            Array([ 0, 10,  2, 30], dtype=int32)
        """
        return _scatter_update("at[].apply", self.array, self.index, None, "apply", mode,
                               fn=func)


def _ones_like(x):
    return convert(_const(1, x.dtype, x.shape), x.dtype, x.weak_type)


class IndexUpdateHelper:
    """What ``x.at`` returns: index it to get an object with the update methods.

    Example:
        >>> import funcarray.numpy as fnp
        >>> x = fnp.zeros((2, 2))
        >>> x.at[0, :].add(1.0)
        Array([[1., 1.],
               [0., 0.]], dtype=float32)
    """

    __slots__ = ("array",)

    def __init__(self, array: Array) -> None:
        self.array = array

    def __getitem__(self, index: Any) -> _IndexUpdateRef:
        return _IndexUpdateRef(self.array, index)

    def __repr__(self):
        return f"IndexUpdateHelper({self.array!r})"


# --------------------------------------------------------------------------------------------
# nonzero, argwhere, take, take_along_axis, compress, extract, select
# --------------------------------------------------------------------------------------------

def _as_mask(x):
    if x.dtype == dtypes.bool_:
        return x
    return ew.ne_p.bind(x, _const(0, x.dtype, x.shape))


def _concrete_count(op, mask, what="the number of nonzero elements"):
    if _is_tracer(mask):
        raise op_type_error(
            op, f"the result's size is {what}, which is not known for a traced "
                f"{mask.aval}. Pass a static size= (and fill_value=) to fix it.")
    return int(np.count_nonzero(np.asarray(mask)))


def _nonzero_flat_positions(op, a, size):
    """(positions, valid): the flat positions of the first ``size`` nonzeros of ``a``
    (padded with 0) and whether each is a real hit."""
    mask = _ravel(_as_mask(a))
    n = mask.shape[0]
    # Each nonzero's rank among the nonzeros (a cumulative sum) is its output slot, and one
    # scatter puts its position there: O(n), where sorting on "is zero" was O(n log n). The
    # zeros (and nonzeros past ``size``) aim at slot ``size``, out of bounds, and are dropped.
    count = cumsum_p.bind(convert(mask, dtypes.int32), axis=0, reverse=False)
    rank = ew.sub_p.bind(count, _const(1, dtypes.int32, (n,)))
    slot = select_n_p.bind(mask, _const(size, dtypes.int32, (n,)), rank)
    dn = ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                 scatter_dims_to_operand_dims=(0,))
    positions = scatter_p.bind(
        _const(0, dtypes.int32, (size,)), _reshape(slot, (n, 1)),
        iota_p.bind(dtype=dtypes.int32, shape=(n,), dimension=0), dimension_numbers=dn,
        indices_are_sorted=False, unique_indices=False, mode="drop")
    total = slice_p.bind(count, start_indices=(n - 1,), limit_indices=(n,), strides=None)
    valid = ew.lt_p.bind(iota_p.bind(dtype=dtypes.int32, shape=(size,), dimension=0),
                         broadcast_to_shape(_reshape(total, ()), (size,)))
    return positions, valid


def _fill_values(op, fill_value, ndim):
    if fill_value is None:
        return (0,) * ndim
    if isinstance(fill_value, (tuple, list)):
        if len(fill_value) != ndim:
            raise op_value_error(op, f"fill_value needs one entry per dimension ({ndim}), got "
                                     f"{len(fill_value)}")
        return tuple(fill_value)
    return (fill_value,) * ndim


def nonzero(a: ArrayLike, *, size: int | None = None,
            fill_value: ArrayLike | tuple[ArrayLike, ...] | None = None
            ) -> tuple[Array, ...]:
    """The indices of the nonzero elements of ``a``, one int32 array per dimension.

    The number of results depends on the values, so a traced ``a`` needs a static ``size``:
    the first ``size`` indices are returned, padded with ``fill_value`` (default 0).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.nonzero(fnp.array([0, 3, 0, 4]))
        (Array([1, 3], dtype=int32),)
        >>> fnp.nonzero(fnp.array([0, 3]), size=3, fill_value=-1)
        (Array([ 1, -1, -1], dtype=int32),)
    """
    op = "nonzero"
    a = asarray_arg(op, a)
    if a.ndim == 0:
        raise op_value_error(op, "nonzero of a 0-d array is not allowed; use "
                                 "fnp.nonzero(fnp.atleast_1d(a)) or a.reshape(1)")
    if size is None:
        size = _concrete_count(op, a)
    size = int(size)
    fills = _fill_values(op, fill_value, a.ndim)
    if a.size == 0 or size == 0:
        return tuple(_const(f, dtypes.int32, (size,)) for f in fills)
    positions, valid = _nonzero_flat_positions(op, a, size)
    out = []
    for d, fill in enumerate(fills):
        stride = math.prod(a.shape[d + 1:])
        coord = ew.div_p.bind(positions, _const(stride, dtypes.int32, (size,)))
        coord = ew.rem_p.bind(coord, _const(a.shape[d], dtypes.int32, (size,)))
        out.append(select_n_p.bind(valid, _const(fill, dtypes.int32, (size,)), coord))
    return tuple(out)


def flatnonzero(a: ArrayLike, *, size: int | None = None,
                fill_value: ArrayLike | tuple[ArrayLike, ...] | None = None) -> Array:
    """Indices of the nonzero elements of ``ravel(a)``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.flatnonzero(fnp.array([[0, 1], [1, 0]]))
        Array([1, 2], dtype=int32)
    """
    a = asarray_arg("flatnonzero", a)
    return nonzero(_ravel(a), size=size, fill_value=fill_value)[0]


def argwhere(a: ArrayLike, *, size: int | None = None,
             fill_value: ArrayLike | tuple[ArrayLike, ...] | None = None) -> Array:
    """Indices of the nonzero elements as an ``(N, a.ndim)`` array.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.argwhere(fnp.array([[0, 1], [1, 0]]))
        Array([[0, 1],
               [1, 0]], dtype=int32)
    """
    a = asarray_arg("argwhere", a)
    if a.ndim == 0:
        count = nonzero(_reshape(a, (1,)), size=size, fill_value=fill_value)[0].shape[0]
        return _const(0, dtypes.int32, (count, 0))
    columns = nonzero(a, size=size, fill_value=fill_value)
    columns = [_reshape(c, (c.shape[0], 1)) for c in columns]
    return columns[0] if len(columns) == 1 else concatenate_p.bind(*columns, dimension=1)


def _integer_indices(op, indices):
    indices = asarray_arg(op, indices)
    if indices.dtype.kind not in "iu":
        raise op_type_error(op, f"indices must be integers, got dtype {indices.dtype}")
    return indices


def _wrap_indices(indices, size):
    """``indices mod size`` with a non-negative result (NumPy's mode="wrap")."""
    shape = indices.shape
    n = _const(size, indices.dtype, shape)
    rem = ew.rem_p.bind(indices, n)
    if indices.dtype.kind == "u":
        return rem
    return _normalize_negative(rem, size)


def _take_mode(op, mode):
    if mode is None:
        return "fill"
    if mode in ("fill", "clip", "wrap"):
        return mode
    if mode == "raise":
        raise op_value_error(op, "mode='raise' cannot be supported: funcarray never raises on "
                                 "values (they may be traced). Use 'fill', 'clip' or 'wrap'.")
    raise op_value_error(op, f"mode must be 'fill', 'clip' or 'wrap', got {mode!r}")


def take(a: ArrayLike, indices: ArrayLike, axis: int | None = None, mode: str | None = None,
         unique_indices: bool = False, indices_are_sorted: bool = False,
         fill_value: ArrayLike | None = None) -> Array:
    """Elements of ``a`` at ``indices`` along ``axis`` (the flattened array when None).

    ``mode`` (jax.numpy's default is "fill"): "fill" returns ``fill_value`` (NaN for floats)
    for indices out of ``[-n, n)``; "clip" clamps to ``[0, n - 1]`` (negative indices are
    clamped, as NumPy does); "wrap" takes indices modulo ``n``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.take(fnp.arange(5.0), fnp.array([-1, 7]))
        Array([ 4., nan], dtype=float32)
        >>> fnp.take(fnp.arange(6).reshape(2, 3), fnp.array([2, 0]), axis=1)
        Array([[2, 0],
               [5, 3]], dtype=int32)
    """
    op = "take"
    a = asarray_arg(op, a)
    indices = _integer_indices(op, indices)
    mode = _take_mode(op, mode)
    if axis is None:
        a, axis = _ravel(a), 0
    axis = canonicalize_axis(op, axis, a.ndim)
    size = a.shape[axis]
    indices = convert(indices, _index_dtype(indices.dtype))
    if mode == "wrap" and size:
        indices = _wrap_indices(indices, size)
    elif mode == "fill":
        indices = _normalize_negative(indices, size)
    gather_mode = "fill" if mode == "fill" else "clip"
    out_shape = (*a.shape[:axis], *indices.shape, *a.shape[axis + 1:])
    if size == 0:
        if indices.size and gather_mode != "fill":
            raise index_error(op, f"cannot take from axis {axis} of size 0")
        return broadcast_to_shape(_const(_fill_scalar(a.dtype, fill_value), a.dtype), out_shape)
    n_idx = indices.ndim
    offset_dims = (*range(axis), *range(axis + n_idx, len(out_shape)))
    dn = GatherDimensionNumbers(offset_dims=offset_dims, collapsed_slice_dims=(axis,),
                                start_index_map=(axis,))
    slice_sizes = tuple(1 if d == axis else n for d, n in enumerate(a.shape))
    return gather_p.bind(a, _reshape(indices, (*indices.shape, 1)), dimension_numbers=dn,
                         slice_sizes=slice_sizes, indices_are_sorted=bool(indices_are_sorted),
                         unique_indices=bool(unique_indices), mode=gather_mode,
                         fill_value=fill_value)


def take_along_axis(arr: ArrayLike, indices: ArrayLike, axis: int | None,
                    mode: str | None = None, fill_value: ArrayLike | None = None) -> Array:
    """``arr`` indexed along ``axis`` by ``indices`` of the same rank (other dimensions
    broadcast), as ``numpy.take_along_axis``. Negative indices count from the end;
    out-of-bounds ones give ``fill_value`` (mode "fill", the default) or are clamped ("clip").

    Example:
        >>> import funcarray.numpy as fnp
        >>> x = fnp.array([[10, 30, 20], [60, 40, 50]])
        >>> fnp.take_along_axis(x, fnp.argsort(x, axis=1), axis=1)
        Array([[10, 20, 30],
               [40, 50, 60]], dtype=int32)
    """
    op = "take_along_axis"
    arr = asarray_arg(op, arr)
    indices = _integer_indices(op, indices)
    if axis is None:
        if indices.ndim != 1:
            raise op_value_error(op, f"with axis=None the indices must be 1-D, got shape "
                                     f"{tuple(indices.shape)}")
        arr, axis = _ravel(arr), 0
    if indices.ndim != arr.ndim:
        raise op_value_error(op, f"indices {tuple(indices.shape)} and array "
                                 f"{tuple(arr.shape)} must have the same number of dimensions")
    axis = canonicalize_axis(op, axis, arr.ndim)
    gather_mode = _gather_mode(op, "fill" if mode is None else mode)
    size = arr.shape[axis]
    others = [d for d in range(arr.ndim) if d != axis]
    batch = broadcast_shapes(op, tuple(arr.shape[d] for d in others),
                             tuple(indices.shape[d] for d in others))
    arr = broadcast_to_shape(arr, _with_axis(batch, axis, size))
    indices = convert(indices, _index_dtype(indices.dtype))
    indices = broadcast_to_shape(indices, _with_axis(batch, axis, indices.shape[axis]))
    out_shape = indices.shape
    if size == 0:
        if indices.size and gather_mode != "fill":
            raise index_error(op, f"cannot take from axis {axis} of size 0")
        return broadcast_to_shape(_const(_fill_scalar(arr.dtype, fill_value), arr.dtype),
                                  out_shape)
    indices = _normalize_negative(indices, size)
    dn = GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(axis,),
                                start_index_map=(axis,), operand_batching_dims=tuple(others),
                                start_indices_batching_dims=tuple(others))
    return gather_p.bind(arr, _reshape(indices, (*out_shape, 1)), dimension_numbers=dn,
                         slice_sizes=(1,) * arr.ndim, indices_are_sorted=False,
                         unique_indices=False, mode=gather_mode, fill_value=fill_value)


def _with_axis(batch, axis, size):
    shape = list(batch)
    shape.insert(axis, size)
    return tuple(shape)


def compress(condition: ArrayLike, a: ArrayLike, axis: int | None = None, *,
             size: int | None = None, fill_value: ArrayLike = 0) -> Array:
    """The slices of ``a`` along ``axis`` where the 1-D ``condition`` is true (``a`` is
    flattened when ``axis`` is None). ``condition`` must be concrete unless ``size`` is given;
    a shorter ``condition`` counts as False beyond its end, as in NumPy.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.compress(fnp.array([True, False, True]), fnp.arange(6).reshape(3, 2), axis=0)
        Array([[0, 1],
               [4, 5]], dtype=int32)
    """
    op = "compress"
    condition = asarray_arg(op, condition)
    a = asarray_arg(op, a)
    if condition.ndim != 1:
        raise op_value_error(op, f"condition must be 1-D, got shape {tuple(condition.shape)}")
    if axis is None:
        a, axis = _ravel(a), 0
    axis = canonicalize_axis(op, axis, a.ndim)
    if condition.shape[0] > a.shape[axis]:
        raise op_value_error(op, f"condition of length {condition.shape[0]} is longer than "
                                 f"axis {axis} of size {a.shape[axis]}")
    (positions,) = nonzero(condition, size=size, fill_value=-1)
    taken = take(a, positions, axis=axis, mode="fill")
    if size is None:
        return taken
    keep = ew.ge_p.bind(positions, _const(0, dtypes.int32, positions.shape))
    keep = _reshape(keep, tuple(len(positions) if d == axis else 1 for d in range(a.ndim)))
    return where(keep, taken, convert(_const(fill_value, a.dtype), a.dtype, True))


def extract(condition: ArrayLike, arr: ArrayLike, *, size: int | None = None,
            fill_value: ArrayLike = 0) -> Array:
    """The elements of ``arr`` where ``condition`` is true, flattened.

    Example:
        >>> import funcarray.numpy as fnp
        >>> x = fnp.arange(6)
        >>> fnp.extract(x % 2 == 0, x)
        Array([0, 2, 4], dtype=int32)
    """
    condition = asarray_arg("extract", condition)
    arr = asarray_arg("extract", arr)
    return compress(_ravel(condition), _ravel(arr), size=size, fill_value=fill_value)


def select(condlist: Sequence[ArrayLike], choicelist: Sequence[ArrayLike],
           default: ArrayLike = 0) -> Array:
    """Elementwise, the choice of the first true condition (``default`` where none is).

    Example:
        >>> import funcarray.numpy as fnp
        >>> x = fnp.arange(5)
        >>> fnp.select([x < 2, x > 3], [x, x * 10], default=-1)
        Array([ 0,  1, -1, -1, 40], dtype=int32)
    """
    op = "select"
    condlist, choicelist = list(condlist), list(choicelist)
    if len(condlist) != len(choicelist):
        raise op_value_error(op, f"condlist and choicelist need the same length, got "
                                 f"{len(condlist)} and {len(choicelist)}")
    if not condlist:
        raise op_value_error(op, "condlist must not be empty")
    conds = [asarray_arg(op, c) for c in condlist]
    for i, c in enumerate(conds):
        if c.dtype != dtypes.bool_:
            raise op_type_error(op, f"condlist[{i}] must be a boolean array, got dtype "
                                    f"{c.dtype}")
    *choices, default = promote_args(op, *choicelist, default)
    shape = broadcast_shapes(op, default.shape, *(c.shape for c in conds))
    out = broadcast_to_shape(default, shape)
    for cond, choice in zip(reversed(conds), reversed(choices)):
        out = select_n_p.bind(broadcast_to_shape(cond, shape), out,
                              broadcast_to_shape(choice, shape))
    return out


# --------------------------------------------------------------------------------------------
# sort, argsort, unique
# --------------------------------------------------------------------------------------------

def _sort_axis(op, a, axis):
    if axis is None:
        return _ravel(a), 0
    return a, canonicalize_axis(op, axis, a.ndim)


def _check_sort_args(op, order):
    if order is not None:
        raise op_value_error(op, "order= (sorting structured arrays) is not supported")


def sort(a: ArrayLike, axis: int | None = -1, *, kind: None = None, order: None = None,
         stable: bool = True, descending: bool = False) -> Array:
    """A sorted copy of ``a`` along ``axis`` (flattened when None); NaNs sort last.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.sort(fnp.array([3.0, fnp.nan, 1.0]))
        Array([ 1.,  3., nan], dtype=float32)
        >>> fnp.sort(fnp.array([1, 3, 2]), descending=True)
        Array([3, 2, 1], dtype=int32)
    """
    op = "sort"
    _check_sort_args(op, order)
    a, axis = _sort_axis(op, asarray_arg(op, a), axis)
    (out,) = sort_p.bind(a, dimension=axis, is_stable=bool(stable), num_keys=1)
    return rev_p.bind(out, dimensions=(axis,)) if descending else out


def argsort(a: ArrayLike, axis: int | None = -1, *, kind: None = None, order: None = None,
            stable: bool = True, descending: bool = False) -> Array:
    """The int32 indices that sort ``a`` along ``axis`` (stable: ties keep their order, also
    when ``descending``).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.argsort(fnp.array([3.0, 1.0, 2.0]))
        Array([1, 2, 0], dtype=int32)
    """
    op = "argsort"
    _check_sort_args(op, order)
    a, axis = _sort_axis(op, asarray_arg(op, a), axis)
    if descending:
        # Sorting the reversed array keeps equal keys in their original order once the
        # result is reversed back.
        a = rev_p.bind(a, dimensions=(axis,))
    iota = iota_p.bind(dtype=dtypes.int32, shape=a.shape, dimension=axis)
    _, order_ = sort_p.bind(a, iota, dimension=axis, is_stable=bool(stable), num_keys=1)
    if not descending:
        return order_
    order_ = rev_p.bind(order_, dimensions=(axis,))
    last = _const(a.shape[axis] - 1, dtypes.int32, a.shape)
    return ew.sub_p.bind(last, order_)


@overload
def unique(ar: ArrayLike, return_index: Literal[False] = False,
           return_inverse: Literal[False] = False, return_counts: Literal[False] = False,
           axis: int | None = None, *, equal_nan: bool = True, size: int | None = None,
           fill_value: ArrayLike | None = None) -> Array: ...
@overload
def unique(ar: ArrayLike, return_index: bool = False, return_inverse: bool = False,
           return_counts: bool = False, axis: int | None = None, *, equal_nan: bool = True,
           size: int | None = None, fill_value: ArrayLike | None = None
           ) -> Array | tuple[Array, ...]: ...
def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *,
           equal_nan=True, size=None, fill_value=None):
    """The sorted unique values of a concrete ``ar`` (as ``numpy.unique``; indices int32).

    Only eager: the result's size depends on the values, so a traced ``ar`` raises.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.unique(fnp.array([3, 1, 1, 2]))
        Array([1, 2, 3], dtype=int32)
    """
    op = "unique"
    ar = asarray_arg(op, ar)
    if _is_tracer(ar):
        raise op_type_error(op, f"needs a concrete array, got a traced {ar.aval}: the number "
                                f"of unique values depends on the values")
    if size is not None:
        raise op_value_error(op, "size= is not supported yet")
    value = np.asarray(ar)
    if axis is not None:
        axis = canonicalize_axis(op, axis, value.ndim)
    results = np.unique(value, return_index=return_index, return_inverse=return_inverse,
                        return_counts=return_counts, axis=axis, equal_nan=equal_nan)
    if not isinstance(results, tuple):
        return Array(np.array(results, copy=True), ar.weak_type)
    first, *rest = results
    return (Array(np.array(first, copy=True), ar.weak_type),
            *(Array(np.asarray(r, dtype=np.int32)) for r in rest))
