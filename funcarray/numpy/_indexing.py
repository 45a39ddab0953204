"""Indexing: ``x[idx]`` and functional updates ``x.at[idx].set(v)``. Index parsing lives in
``_index_parsing``; ``take``/``compress``/``select`` in ``_index_routines``; ``sort`` and
``nonzero`` in ``_sort_and_nonzero``.

``x[idx]`` follows NumPy's rules (ints, slices with any step, ``...``, ``None``, integer and
boolean arrays, and their mixtures, with NumPy's placement of the advanced-index dimensions).
What it binds depends on the index, so that cheap indexing stays cheap and clean in IR:

* static ints and slices -> ``slice`` (+ ``rev`` for negative steps) and ``squeeze``;
  ``None`` -> ``reshape``;
* a traced (or Array) integer scalar -> ``dynamic_slice``;
* integer arrays -> one ``gather``. Boolean masks must be concrete: they are turned into
  integer arrays with ``nonzero``.

Out of bounds follows JAX, for static and traced indices alike (so eager and jit agree):
negative indices count from the end first (unless ``wrap_negative_indices=False``), then
reads clamp (``x[11]`` of 10 elements is ``x[9]``) and updates drop, unless ``mode=`` says
otherwise; slices clamp as Python's. The setting ``check_index_bounds`` raises NumPy's
IndexError instead, for every index whose value is known (not a traced one).

``x.at[idx]`` gives JAX's functional updates. Boxes of static ints and unit-step slices update
through ``dynamic_update_slice``; every other index is turned into flat positions (the same
indexing applied to an ``iota``) and updates through a one-dimensional ``scatter``.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from funcarray.api.arguments import (
    asarray_arg,
    broadcast_shapes,
    broadcast_to_shape,
    convert,
    convert_arg,
)
from funcarray.api.jit import clear_caches
from funcarray.base import dtypes
from funcarray.base.array import Array
from funcarray.base.config import config
from funcarray.base.errors import index_error, op_value_error
from funcarray.numpy._elementwise import negative, power, true_divide
from funcarray.numpy._index_parsing import (
    _const,
    _index_dtype,
    _normalize_negative,
    _parse_index,
    _ravel,
    _reshape,
)
from funcarray.numpy._indexing_on_host import (
    divide_on_host,
    get_on_host,
    getitem_on_host,
    power_on_host,
    update_shortcut,
)
from funcarray.numpy._promotion import promote_args_unbroadcast
from funcarray.primitives import elementwise as ew
from funcarray.primitives.dynamic_slice import dynamic_slice_p, dynamic_update_slice_p
from funcarray.primitives.gather import gather_fill_value, gather_p
from funcarray.primitives.gather_scatter_dims import GatherDimensionNumbers, ScatterDimensionNumbers
from funcarray.primitives.scatter import (
    scatter_add_p,
    scatter_max_p,
    scatter_min_p,
    scatter_mul_p,
    scatter_p,
)
from funcarray.primitives.shape import concatenate_p, iota_p, rev_p, slice_p, squeeze_p
from funcarray.transforms.host_shortcuts import host_shortcut

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from funcarray.base.typing import ArrayLike

__all__ = ["getitem", "IndexUpdateHelper"]

# Traces cached with the setting off hold clamped or dropped indices where the setting would
# raise: a change re-traces.
config.subscribe(("check_index_bounds",), lambda name, value: clear_caches(), now=False)


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


def _apply_dynamic_scalars(x, dim_entries, wrap_negative):
    dyn = [d for d, e in enumerate(dim_entries) if e.kind == "dyn"]
    if not dyn:
        return x
    index_dtype = _index_dtype(*(dim_entries[d].value.dtype for d in dyn))
    starts = [_const(0, index_dtype)] * x.ndim
    sizes = list(x.shape)
    for d in dyn:
        start = convert(dim_entries[d].value, index_dtype)
        # dynamic_slice clamps the start: a negative one left unwrapped reads element 0
        starts[d] = _normalize_negative(start, x.shape[d]) if wrap_negative else start
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


def _index_arrays(op, arrays, sizes, wrap_negative):
    """Broadcast integer index arrays together, wrap negatives (with ``wrap_negative``) and
    stack them as ``(*S, k)``."""
    try:
        shape = broadcast_shapes(op, *(a.shape for a in arrays))
    except ValueError:
        shapes = " ".join(str(tuple(a.shape)) for a in arrays)
        raise index_error(op, f"shape mismatch: indexing arrays could not be broadcast "
                              f"together with shapes {shapes}") from None
    index_dtype = _index_dtype(*(a.dtype for a in arrays))
    columns = []
    for a, size in zip(arrays, sizes):
        a = convert(a, index_dtype)
        if wrap_negative:
            a = _normalize_negative(a, size)
        columns.append(_reshape(broadcast_to_shape(a, shape), (*shape, 1)))
    stacked = columns[0] if len(columns) == 1 else concatenate_p.bind(
        *columns, dimension=len(shape))
    return stacked, shape


def _gather_advanced(op, y, dim_entries, layout, mode, fill_value, wrap_negative):
    """Index the "array" dimensions of ``y`` with one gather laid out as ``layout``."""
    array_dims = tuple(d for d, e in enumerate(dim_entries) if e.kind == "array")
    indices, batch_shape = _index_arrays(
        op, [dim_entries[d].value for d in array_dims], [y.shape[d] for d in array_dims],
        wrap_negative)
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


def _checks_bounds(mode) -> bool:
    """Whether the setting ``check_index_bounds`` applies: on, and no out-of-bounds ``mode``
    asked for (JAX's default is "promise_in_bounds")."""
    return config.check_index_bounds and mode in (None, "promise_in_bounds")


def _rewriting_take(op, x, idx, mode=None, fill_value=None, *, wrap_negative=True,
                    check_bounds=None):
    """``x[idx]`` in gather ``mode`` (out-of-bounds indices clamped by default, as in JAX).
    ``check_bounds`` (by default: the setting, for the default mode) raises NumPy's
    IndexError for an index out of bounds instead."""
    x = asarray_arg(op, x)
    if check_bounds is None:
        check_bounds = _checks_bounds(mode)
    mode = _gather_mode(op, mode)
    new_shape, entries = _parse_index(op, x.shape, idx, clamp=mode == "clip",
                                      check_bounds=check_bounds, wrap_negative=wrap_negative)
    x = _reshape(x, new_shape)
    if mode == "fill":
        # Scalars then follow the arrays' out-of-bounds rule: a 0-d advanced index.
        for e in entries:
            if e.kind == "dyn":
                e.kind = "array"
    has_arrays = any(e.kind == "array" for e in entries)
    dim_entries = [e for e in entries if e.kind != "none"]
    x = _apply_static(x, dim_entries)
    x = _apply_dynamic_scalars(x, dim_entries, wrap_negative)
    scalar_dims = tuple(d for d, e in enumerate(dim_entries) if e.kind in ("int", "dyn"))
    if scalar_dims:
        x = squeeze_p.bind(x, dimensions=scalar_dims)
    dim_entries = [e for e in dim_entries if e.kind not in ("int", "dyn")]
    if has_arrays:
        layout = _output_layout(entries, lambda e: e.advanced)
        x = _gather_advanced(op, x, dim_entries, layout, mode, fill_value, wrap_negative)
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


@host_shortcut(getitem_on_host)
def getitem(x: ArrayLike, idx: Any) -> Array:
    """``x[idx]`` with NumPy's indexing rules (what ``Array.__getitem__`` calls).

    Indices out of bounds are clamped, as in JAX (the setting ``check_index_bounds`` makes
    them NumPy's IndexError). Boolean masks must be concrete.

    Example:
        >>> import funcarray.numpy as fnp
        >>> x = fnp.arange(12).reshape(3, 4)
        >>> x[1, ::-2]
        Array([7, 5], dtype=int32)
        >>> x[fnp.array([0, 2]), None, 1:3].shape
        (2, 1, 2)
        >>> x[5, -9]
        Array(8, dtype=int32)
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


def _flat_positions(op, x, idx, mode, wrap_negative):
    """The flat position in ``x`` of every element ``x[idx]`` selects, in that layout.
    Out-of-bounds picks become ``x.size`` (dropped by the scatter) in drop mode."""
    index_dtype = dtypes.int64 if x.size >= 2**31 - 1 else dtypes.int32
    iota = _reshape(iota_p.bind(dtype=index_dtype, shape=(x.size,), dimension=0), x.shape)
    gather_mode = "fill" if mode == "drop" else "clip"
    return _rewriting_take(op, iota, idx, mode=gather_mode, fill_value=x.size,
                           wrap_negative=wrap_negative, check_bounds=False)


def _promoted_update(op, x, values):
    """``x`` and the update ``values`` in their promoted dtype, as jax combines them: the
    update runs in that dtype and the result is cast back to ``x``'s (an int32 ``x`` plus 1.5
    adds in float and truncates the sum, not the 1.5). A Python int that fits ``x``'s integer
    dtype takes it, as in jax."""
    if (type(values) is int and dtypes.is_integer(x.dtype)
            and dtypes.iinfo(x.dtype).min <= values <= dtypes.iinfo(x.dtype).max):
        return x, convert_arg(op, values, x.dtype, x.weak_type)
    return promote_args_unbroadcast(op, x, values)


def _scatter_update(op, x, idx, values, kind, mode=None, fn=None, *, unique_indices=False,
                    indices_are_sorted=False, wrap_negative=True):
    x = asarray_arg(op, x)
    if kind in _COMBINE or kind == "subtract":
        dtype, weak = x.dtype, x.weak_type
        x, values = _promoted_update(op, x, values)
        if kind == "subtract":  # x - v is x + (-v) exactly, wrapping integers included
            values, kind = negative(values), "add"
        if x.dtype != dtype:
            out = _scatter_update(op, x, idx, values, kind, mode,
                                  unique_indices=unique_indices,
                                  indices_are_sorted=indices_are_sorted,
                                  wrap_negative=wrap_negative)
            return convert(out, dtype, weak)
    check_bounds = _checks_bounds(mode)
    mode = _scatter_mode(op, mode)
    if kind != "apply":
        values = convert_arg(op, values, x.dtype, x.weak_type)
    # Static ints out of bounds are clamped into the box in clip mode; in drop mode they
    # leave the box path (to be dropped by the scatter).
    new_shape, entries = _parse_index(op, x.shape, idx, clamp=mode == "clip",
                                      check_bounds=check_bounds, wrap_negative=wrap_negative)
    if new_shape == x.shape and _static_box(entries) is not None:
        return _update_box(op, x, entries, values, kind, fn)
    positions = _flat_positions(op, x, idx, mode, wrap_negative)
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

    @host_shortcut(get_on_host)
    def get(self, *, indices_are_sorted: bool = False, unique_indices: bool = False,
            mode: str | None = None, fill_value: ArrayLike | None = None,
            wrap_negative_indices: bool = True) -> Array:
        """``x[idx]``, with a choice of out-of-bounds ``mode``: clamped (None, "clip",
        "promise_in_bounds") or ``fill_value`` ("fill", "drop"; NaN for floats, the extreme
        value for integers). With ``wrap_negative_indices=False`` negative indices are out of
        bounds.

        Example:
            >>> import funcarray.numpy as fnp
            >>> fnp.arange(3.0).at[fnp.array([0, 5])].get(mode="fill")
            Array([ 0., nan], dtype=float32)
            >>> fnp.arange(3.0).at[-1].get(mode="fill", wrap_negative_indices=False)
            Array(nan, dtype=float32)
        """
        return _rewriting_take("at[].get", self.array, self.index, mode, fill_value,
                               wrap_negative=wrap_negative_indices)

    @host_shortcut(update_shortcut("set"))
    def set(self, values: ArrayLike, *, indices_are_sorted: bool = False,
            unique_indices: bool = False, mode: str | None = None,
            wrap_negative_indices: bool = True) -> Array:
        """``x[idx] = values`` as a new array (values are cast to ``x``'s dtype). As every
        update: indices out of bounds are dropped (``mode`` None, "drop", "fill",
        "promise_in_bounds") or clamped ("clip"); with ``wrap_negative_indices=False``
        negative ones are out of bounds.

        Example:
            >>> import funcarray.numpy as fnp
            >>> fnp.arange(4).at[::2].set(9)
            Array([9, 1, 9, 3], dtype=int32)
            >>> fnp.arange(4).at[7].set(9)
            Array([0, 1, 2, 3], dtype=int32)
            >>> fnp.arange(4).at[7].set(9, mode="clip")
            Array([0, 1, 2, 9], dtype=int32)
        """
        return _scatter_update("at[].set", self.array, self.index, values, "set", mode,
                               unique_indices=unique_indices,
                               indices_are_sorted=indices_are_sorted,
                               wrap_negative=wrap_negative_indices)

    @host_shortcut(update_shortcut("add"))
    def add(self, values: ArrayLike, *, indices_are_sorted: bool = False,
            unique_indices: bool = False, mode: str | None = None,
            wrap_negative_indices: bool = True) -> Array:
        """``x[idx] += values``; repeated indices accumulate. The sum is computed in the dtype
        ``x`` and ``values`` promote to and cast back to ``x``'s, as in jax.

        Example:
            >>> import funcarray.numpy as fnp
            >>> fnp.zeros(3).at[fnp.array([0, 0, 2])].add(1.0)
            Array([2., 0., 1.], dtype=float32)
        """
        return _scatter_update("at[].add", self.array, self.index, values, "add", mode,
                               unique_indices=unique_indices,
                               indices_are_sorted=indices_are_sorted,
                               wrap_negative=wrap_negative_indices)

    @host_shortcut(update_shortcut("subtract"))
    def subtract(self, values: ArrayLike, *, indices_are_sorted: bool = False,
                 unique_indices: bool = False, mode: str | None = None,
            wrap_negative_indices: bool = True) -> Array:
        """``x[idx] -= values``; repeated indices accumulate.

        Example:
            >>> import funcarray.numpy as fnp
            >>> fnp.zeros(3).at[fnp.array([0, 0, 2])].subtract(1.0)
            Array([-2.,  0., -1.], dtype=float32)
        """
        return _scatter_update("at[].subtract", self.array, self.index, values, "subtract",
                               mode, unique_indices=unique_indices,
                               indices_are_sorted=indices_are_sorted,
                               wrap_negative=wrap_negative_indices)

    @host_shortcut(update_shortcut("multiply"))
    def multiply(self, values: ArrayLike, *, indices_are_sorted: bool = False,
                 unique_indices: bool = False, mode: str | None = None,
            wrap_negative_indices: bool = True) -> Array:
        """``x[idx] *= values``; repeated indices accumulate.

        Example:
            >>> import funcarray.numpy as fnp
            >>> fnp.ones(3).at[fnp.array([1, 1])].multiply(3.0)
            Array([1., 9., 1.], dtype=float32)
        """
        return _scatter_update("at[].multiply", self.array, self.index, values, "multiply",
                               mode, unique_indices=unique_indices,
                               indices_are_sorted=indices_are_sorted,
                               wrap_negative=wrap_negative_indices)

    mul = multiply

    @host_shortcut(divide_on_host)
    def divide(self, values: ArrayLike, *, indices_are_sorted: bool = False,
               unique_indices: bool = False, mode: str | None = None,
            wrap_negative_indices: bool = True) -> Array:
        """``x[idx] /= values`` (true division, as ``x / y`` would give).

        Example:
            >>> import funcarray.numpy as fnp
            >>> fnp.ones(3).at[0].divide(4.0)
            Array([0.25, 1.  , 1.  ], dtype=float32)
        """
        x = asarray_arg("at[].divide", self.array)
        divisor = _scatter_update("at[].divide", _ones_like(x), self.index, values,
                                  "multiply", mode, unique_indices=unique_indices,
                                  indices_are_sorted=indices_are_sorted,
                                  wrap_negative=wrap_negative_indices)
        return true_divide(x, divisor)

    @host_shortcut(power_on_host)
    def power(self, values: ArrayLike, *, indices_are_sorted: bool = False,
              unique_indices: bool = False, mode: str | None = None,
            wrap_negative_indices: bool = True) -> Array:
        """``x[idx] **= values``.

        Example:
            >>> import funcarray.numpy as fnp
            >>> fnp.array([1.0, 2.0, 3.0]).at[2].power(2.0)
            Array([1., 2., 9.], dtype=float32)
        """
        x = asarray_arg("at[].power", self.array)
        exponent = _scatter_update("at[].power", _ones_like(x), self.index, values,
                                   "multiply", mode, unique_indices=unique_indices,
                                   indices_are_sorted=indices_are_sorted,
                                  wrap_negative=wrap_negative_indices)
        return power(x, exponent)

    @host_shortcut(update_shortcut("min"))
    def min(self, values: ArrayLike, *, indices_are_sorted: bool = False,
            unique_indices: bool = False, mode: str | None = None,
            wrap_negative_indices: bool = True) -> Array:
        """``x[idx] = minimum(x[idx], values)``; repeated indices accumulate.

        Example:
            >>> import funcarray.numpy as fnp
            >>> fnp.arange(3).at[1:].min(1)
            Array([0, 1, 1], dtype=int32)
        """
        return _scatter_update("at[].min", self.array, self.index, values, "min", mode,
                               unique_indices=unique_indices,
                               indices_are_sorted=indices_are_sorted,
                               wrap_negative=wrap_negative_indices)

    @host_shortcut(update_shortcut("max"))
    def max(self, values: ArrayLike, *, indices_are_sorted: bool = False,
            unique_indices: bool = False, mode: str | None = None,
            wrap_negative_indices: bool = True) -> Array:
        """``x[idx] = maximum(x[idx], values)``; repeated indices accumulate.

        Example:
            >>> import funcarray.numpy as fnp
            >>> fnp.arange(3).at[:2].max(1)
            Array([1, 1, 2], dtype=int32)
        """
        return _scatter_update("at[].max", self.array, self.index, values, "max", mode,
                               unique_indices=unique_indices,
                               indices_are_sorted=indices_are_sorted,
                               wrap_negative=wrap_negative_indices)

    @host_shortcut(update_shortcut("apply"))
    def apply(self, func: Callable[[Array], ArrayLike], *,
              indices_are_sorted: bool = False, unique_indices: bool = False,
              mode: str | None = None, wrap_negative_indices: bool = True) -> Array:
        """``x[idx] = func(x[idx])`` (``func`` maps arrays elementwise). Unlike JAX, an index
        repeated in ``idx`` gets ``func`` applied once, not once per repetition.

        Example:
            >>> import funcarray.numpy as fnp
            >>> fnp.arange(4).at[1::2].apply(lambda v: v * 10)
            Array([ 0, 10,  2, 30], dtype=int32)
        """
        return _scatter_update("at[].apply", self.array, self.index, None, "apply", mode,
                               fn=func, wrap_negative=wrap_negative_indices)


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
