"""Index parsing for ``x[idx]`` and ``x.at[idx]``: NumPy's index forms (ints, slices,
``...``, ``None``, integer and boolean arrays) normalised into one list of entries, and the
small builders the indexing modules share.

Boolean masks must be concrete: they become integer arrays (``np.nonzero``) here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from funcarray.api.arguments import (
    asarray_arg,
    broadcast_to_shape,
    is_array,
)
from funcarray.base import dtypes
from funcarray.base.array import Array
from funcarray.base.errors import NonConcreteBooleanIndexError, index_error, op_error
from funcarray.primitives import elementwise as ew
from funcarray.primitives.select_n import select_n_p
from funcarray.primitives.shape import reshape_p
from funcarray.transforms.core import Tracer

if TYPE_CHECKING:

    pass


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
        raise op_error(
            NonConcreteBooleanIndexError,
            op, f"a boolean mask index needs concrete values, but got a traced {mask.aval}: "
                f"the result's shape would depend on the mask's values. Use "
                f"`fnp.where(mask, x, 0)` to keep the shape, or `fnp.nonzero(mask, size=N)` "
                f"for a fixed number of indices.")
    return np.asarray(mask)


def _parse_index(op, shape, idx, *, clamp: bool = True, check_bounds: bool = False,
                 wrap_negative: bool = True):
    """Normalise ``idx`` for an array of ``shape``.

    Returns ``(new_shape, entries)``: ``new_shape`` is ``shape`` with size-1 dimensions added
    where a 0-d boolean indexes (NumPy treats ``x[True]`` as an advanced index over a new
    axis); ``entries`` hold one ``_Entry`` per dimension of ``new_shape`` plus the "none" ones.

    Out of bounds (JAX's rules): a static int is clamped into its axis with ``clamp`` (reads
    and mode "clip"), else it becomes a "dyn" entry holding the axis size, which the mode then
    fills or drops. ``check_bounds`` (the setting ``check_index_bounds``) raises NumPy's
    IndexError instead, for static ints and concrete index arrays. ``wrap_negative``: negative
    indices count from the end (else they are out of bounds).
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
            entries.append(_static_entry(op, tag, value, size, dim, clamp, check_bounds,
                                         wrap_negative))
            dim += 1
        if mark is not None and mark < len(entries):
            entries[mark].after_gap = True
    return tuple(new_shape), entries


def _static_entry(op, tag, value, size, dim, clamp, check_bounds, wrap_negative):
    if tag == "int":
        return _int_entry(op, value, size, dim, clamp, check_bounds, wrap_negative)
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
    if tag == "dyn" and size == 0:  # (as a static int: an error in every mode, as JAX)
        raise index_error(op, f"index is out of bounds for axis {dim} with size 0")
    if check_bounds and not _is_tracer(value):
        _check_concrete_indices(op, value, size, dim, wrap_negative)
    return _Entry(tag, value)  # "dyn" or "array"


def _int_entry(op, value, size, dim, clamp, check_bounds, wrap_negative):
    position = value + size if wrap_negative and value < 0 else value
    if 0 <= position < size:
        return _Entry("int", position)
    if size == 0:  # nothing to clamp to or to fill from: an error in every mode (as JAX)
        raise index_error(op, f"index {value} is out of bounds for axis {dim} with size 0")
    if check_bounds:
        raise _bounds_error(op, value, dim, size)
    if clamp:
        return _Entry("int", min(max(position, 0), size - 1))
    # Any out-of-bounds position fills or drops alike: the axis size is one, and fits the
    # index dtype.
    return _Entry("dyn", Array(np.asarray(size, _static_index_dtype(size))))


def _check_concrete_indices(op, value, size, dim, wrap_negative):
    """NumPy's IndexError for the first out-of-bounds entry of a concrete index array."""
    entries = np.asarray(value)
    low = -size if wrap_negative and entries.dtype.kind == "i" else 0
    outside = (entries < low) | (entries >= size)
    if outside.any():
        raise _bounds_error(op, int(entries[outside].flat[0]), dim, size)


def _bounds_error(op, value, dim, size):
    return index_error(op, f"index {value} is out of bounds for axis {dim} with size {size} "
                           f"(the setting check_index_bounds is on; off, JAX's rules clamp "
                           f"the index when reading and drop the update when writing)")


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


def _static_index_dtype(value: int):
    return dtypes.int32 if -2**31 <= value < 2**31 else dtypes.int64
