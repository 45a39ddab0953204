"""Host shortcuts of indexing (``transforms/host_shortcuts.py``): ``x[idx]`` and the
``x.at[idx]`` updates of a concrete array as NumPy indexing at once, instead of a parse and
one bind per primitive.

Each shortcut takes the common, valid forms and returns ``NotImplemented`` for the rest, or
raises (NumPy's IndexError for too many indices...), which also hands the call to the general
path (``_indexing.py``) and its error.

* ``x[idx]``: ints, NumPy integers, slices, ``None``, ``...`` (a view of ``x``'s value: Arrays
  are immutable), integer arrays (lists, NumPy arrays, Arrays; 0-d Arrays too) and boolean
  masks, in any NumPy combination. Ints and integer-array entries out of bounds are clamped
  after negatives count from the end, as the general path does (JAX's rule); NumPy raises on
  them, so they are clamped only then, at no cost to in-bounds indexing. With the setting
  ``check_index_bounds`` on, they are declined: the general path raises.
* ``x.at[idx].<update>(values)`` with default keywords: a copy of the value updated in
  place. An index without arrays updates a view of the copy (it names each element once); an
  index with arrays updates flat positions with ``np.<ufunc>.at`` (repeated positions
  accumulate, and ``set`` keeps the last, as the general path's NumPy scatter does). Indices
  out of bounds are dropped, as by the general path (NumPy raises on them, so they cost only
  then: the positions come from an iota padded by one element on the axes they index);
  ``apply`` declines them, and empty selections are declined.

Example:
    >>> import funcarray.numpy as fnp
    >>> x = fnp.arange(6.0).reshape(2, 3)
    >>> getitem_on_host(x, (1, slice(None, None, -1)))
    Array([5., 4., 3.], dtype=float32)
    >>> getitem_on_host(x, 1.5)  # not an index: the general path raises its error
    NotImplemented
"""

from __future__ import annotations

import numpy as np

from funcarray.base import dtypes
from funcarray.base.array import Array, DeviceArray
from funcarray.base.config import config
from funcarray.numpy._elementwise import power, true_divide
from funcarray.primitives.conversions import convert_kernel

__all__ = ["getitem_on_host", "get_on_host", "update_shortcut", "divide_on_host",
           "power_on_host"]

_integer = np.integer
_ndarray = np.ndarray


def _bound(part) -> bool:
    """A slice bound the general path accepts as static (``slice.indices`` takes it)."""
    return part is None or type(part) is int or isinstance(part, _integer)


def _index_item(item):
    """One index item as NumPy reads it with the general path's meaning, and whether it is an
    array (advanced); ``(None, None)`` for an item to decline."""
    t = type(item)
    if t is int or item is None or item is Ellipsis:
        return item, False
    if t is slice:
        if _bound(item.start) and _bound(item.stop) and _bound(item.step) and item.step != 0:
            return item, False
        return None, None
    if t is Array or t is DeviceArray:
        value = item._value
    elif t is _ndarray:
        value = item
        if value.ndim == 0 and value.dtype.kind in "iu":
            return int(value), False  # a static int, as a Python int
    elif t is list or t is tuple:
        value = np.asarray(item)
        if value.ndim == 0 or value.size == 0:
            return None, None
    elif isinstance(item, _integer):
        return int(item), False
    else:  # bools act as new axes in NumPy, floats are errors: the general path's cases
        return None, None
    kind = value.dtype.kind
    if kind == "b":
        return (value, True) if value.ndim else (None, None)
    if kind == "i" or (kind == "u" and value.dtype.itemsize < 8):
        return np.asarray(value), True
    return None, None  # uint64 entries (wrapped to int64 by the general path), floats...


def _numpy_index(idx):
    """``(index, has_arrays, only_slices)`` for NumPy, or None to decline."""
    if type(idx) is not tuple:
        item, advanced = _index_item(idx)
        if advanced is None:
            return None
        return item, advanced, type(item) is slice or item is Ellipsis
    out = []
    has_arrays = False
    only_slices = True
    for entry in idx:
        item, advanced = _index_item(entry)
        if advanced is None:
            return None
        has_arrays = has_arrays or advanced
        only_slices = only_slices and (type(item) is slice or item is Ellipsis)
        out.append(item)
    return tuple(out), has_arrays, only_slices


def _clamped(index, shape):
    """``index`` with its ints and integer-array entries clamped to their axis as the general
    path's reads do (negatives count from the end first); None where it cannot say (the
    general path decides: too many indices, an axis of size 0, the setting
    ``check_index_bounds``)."""
    bounded = _bounded(index, shape, pad=False)
    return None if bounded is None else bounded[0]


def _bounded(index, shape, pad):
    """``(index, padded)``: ``index`` with its ints and integer-array entries made
    non-negative (negatives count from the end) and those out of bounds clamped, or with
    ``pad`` set to the axis size (one past the end: an axis padded by one element, which the
    caller adds to the ``padded`` axes); None where ``_clamped`` is."""
    if config.check_index_bounds:
        return None
    items = index if type(index) is tuple else (index,)
    used = sum(item.ndim if type(item) is _ndarray and item.dtype.kind == "b" else 1
               for item in items if item is not None and item is not Ellipsis)
    if used > len(shape):
        return None
    out = []
    padded = []
    dim = 0
    for item in items:
        if item is None:
            out.append(item)
            continue
        if item is Ellipsis:
            dim += len(shape) - used
        elif type(item) is _ndarray and item.dtype.kind == "b":
            dim += item.ndim
        elif type(item) is _ndarray or type(item) is int:
            size = shape[dim]
            if size == 0:
                return None
            wide = np.asarray(item, np.int64)
            wide = np.where(wide < 0, wide + size, wide)
            if pad:
                wide = np.where((wide < 0) | (wide >= size), size, wide)
                padded.append(dim)
            else:
                wide = np.clip(wide, 0, size - 1)
            item = int(wide) if type(item) is int else wide
            dim += 1
        else:
            dim += 1
        out.append(item)
    return (tuple(out) if type(index) is tuple else out[0]), padded


def _identity(view, value, idx) -> bool:
    """Whether the general path returns ``x`` itself for an index of slices and ``...``
    only: every slice covers its whole axis with step 1."""
    if view.shape != value.shape:
        return False
    items = idx if type(idx) is tuple else (idx,)
    return all(item is Ellipsis or item.step is None or item.step == 1 for item in items)


def getitem_on_host(x, idx):
    """``x[idx]`` (``getitem``'s shortcut), or NotImplemented."""
    t = type(x)
    if t is not Array and t is not DeviceArray:
        return NotImplemented
    value = x._value
    if type(idx) is int:  # the commonest index: NumPy checks its bounds
        try:
            return Array(value[idx], x._weak)
        except IndexError:
            index = _clamped(idx, value.shape)
            return NotImplemented if index is None else Array(value[index], x._weak)
    parsed = _numpy_index(idx)
    if parsed is None or not value.size:
        return NotImplemented
    index, has_arrays, only_slices = parsed
    try:
        out = value[index]
    except IndexError:
        index = _clamped(index, value.shape)
        if index is None:
            return NotImplemented
        out = value[index]
    else:
        if only_slices and _identity(out, value, index):
            return x
    return Array(out, x._weak)


def get_on_host(ref, *, indices_are_sorted=False, unique_indices=False, mode=None,
                fill_value=None, wrap_negative_indices=True):
    """``x.at[idx].get()`` with default keywords: ``x[idx]``."""
    if (mode is not None or fill_value is not None or indices_are_sorted is not False
            or unique_indices is not False or wrap_negative_indices is not True):
        return NotImplemented
    return getitem_on_host(ref.array, ref.index)


# --------------------------------------------------------------------------------------------
# x.at[idx] updates
# --------------------------------------------------------------------------------------------

_UFUNCS = {"add": np.add, "multiply": np.multiply, "min": np.minimum, "max": np.maximum}


def _fitted(v, shape):
    """``v`` broadcast to the indexed ``shape`` as the general path's ``_broadcast_value``
    does (leading 1s of ``v`` may go), or None where that raises. Scalars stay scalars
    (NumPy broadcasts them in the update)."""
    vshape = getattr(v, "shape", ())  # (a Python scalar's shape is (), np.shape is slow)
    if not vshape:
        return v
    extra = len(vshape) - len(shape)
    if extra > 0:
        if any(n != 1 for n in vshape[:extra]):
            return None
        vshape = vshape[extra:]
        v = np.reshape(v, vshape)
    if not all(a == 1 or a == b for a, b in zip(vshape[::-1], shape[::-1])):
        return None
    return v if vshape == shape else np.broadcast_to(v, shape)


def _flat(v):
    return np.reshape(v, -1) if getattr(v, "shape", ()) else v


def _kept(v, shape, kept):
    """The update values of the ``kept`` elements (all when None), flat."""
    if kept is None:
        return _flat(v)
    return np.reshape(np.broadcast_to(v, shape), -1)[kept]


def _copy(value):
    """A writable copy of an Array's value (an ndarray, or a NumPy scalar)."""
    return value.copy() if type(value) is _ndarray else np.array(value)


def _as_dtype(values, dtype):
    """``values`` converted to ``dtype`` as ``convert_arg`` converts them (Python floats and
    complexes at double precision, ints as int32); None for other kinds of values."""
    t = type(values)
    if t is float:
        if dtype.kind == "f" and dtype.isbuiltin == 1:
            return values  # NumPy's assignment rounds the double as astype would
        return convert_kernel(np.float64(values), dtype)
    if t is Array or t is DeviceArray:
        return convert_kernel(values._value, dtype)
    if t is int:
        if not -2**31 <= values < 2**31:
            return None
        return convert_kernel(np.int32(values), dtype)
    if t is complex:
        return convert_kernel(np.complex128(values), dtype)
    if t is bool:
        return convert_kernel(np.bool_(values), dtype)
    return None


def _promoted(x, values, kind):
    """``(x's value, values, weak)`` in the dtype the update computes in, as the general
    path's ``_promoted_update``; None to decline."""
    dtype = x.dtype
    t = type(values)
    if t is int and dtype.kind in "iu":
        if not -2**31 <= values < 2**31:
            return None  # the general path's error, even into int64
        info = dtypes.iinfo(dtype)
        if info.min <= values <= info.max:
            return x._value, np.asarray(values, dtype), x._weak
    if t not in (int, float, complex, bool, Array, DeviceArray):
        return None
    promoted, weak = dtypes.result_type(x, values, return_weak_type=True)
    if kind == "subtract" and promoted == np.bool_:
        return None
    if t is Array or t is DeviceArray:
        v = convert_kernel(values._value, promoted)
    else:
        v = np.asarray(values, promoted)
    return convert_kernel(x._value, promoted), v, weak


def _positions(index, shape):
    """The flat position of each element ``index`` selects, in its layout; NumPy raises
    for indices out of bounds."""
    size = 1
    for n in shape:
        size *= n
    return np.arange(size).reshape(shape)[index]


def _kept_positions(index, shape):
    """``(positions, kept)`` for an index with entries out of bounds: the flat positions
    (-1 where the general path's scatter drops the element) and where they are not -1; None
    where ``_bounded`` is."""
    bounded = _bounded(index, shape, pad=True)
    if bounded is None:
        return None
    index, padded = bounded
    padded_shape = tuple(n + 1 if d in padded else n for d, n in enumerate(shape))
    flat = np.full(padded_shape, -1, np.int64)
    flat[tuple(slice(0, n) for n in shape)] = _positions((), shape)
    positions = flat[index]
    return positions, np.reshape(positions, -1) >= 0


def _applied(x, index, func, shape):
    """``func`` (run once) of the elements ``index`` selects, in ``x``'s dtype and the
    indexed ``shape``. A result the general path converts differently or rejects raises,
    and the general path runs ``func`` again."""
    new = func(Array(x._value[index], x._weak))
    converted = _as_dtype(new, x.dtype)
    if converted is None:
        raise TypeError("declined: the general path converts this result")
    fitted = _fitted(converted, shape)
    if fitted is None:
        raise ValueError("declined: the general path reports the shape mismatch")
    return fitted


def update_on_host(kind, x, idx, values, indices_are_sorted=False, unique_indices=False,
                   mode=None, wrap_negative_indices=True):
    """``x.at[idx].<kind>(values)`` (kind: set, add, subtract, multiply, min, max, or apply
    with ``values`` the function), or NotImplemented. NumPy raises for an index out of
    bounds (dropped by the general path, or its error): declined."""
    t = type(x)
    if (t is not Array and t is not DeviceArray) or mode is not None or (
            indices_are_sorted is not False or unique_indices is not False
            or wrap_negative_indices is not True):
        return NotImplemented
    parsed = _numpy_index(idx)
    if parsed is None or not x.size:
        return NotImplemented
    index, has_arrays, _ = parsed
    value = x._value
    kept = None  # where not None: which selected elements are in bounds
    try:
        if has_arrays:
            positions = _positions(index, value.shape)
        else:
            shape = getattr(value[index], "shape", ())
    except IndexError:  # out of bounds (or another error, which the general path reports)
        if kind == "apply":
            return NotImplemented
        dropping = _kept_positions(index, value.shape)
        if dropping is None:
            return NotImplemented
        positions, kept = dropping
        has_arrays = True
    if has_arrays:
        shape = getattr(positions, "shape", ())
        positions = np.reshape(positions, -1)
        if kept is not None:
            positions = positions[kept]
    if 0 in shape:
        return NotImplemented
    dtype = x.dtype
    if kind == "set" or kind == "apply":
        v = _applied(x, index, values, shape) if kind == "apply" else _as_dtype(values, dtype)
        v = None if v is None else _fitted(v, shape)
        if v is None:
            return NotImplemented
        out = _copy(value)
        if has_arrays:
            out.reshape(-1)[positions] = _kept(v, shape, kept)
        else:
            out[index] = v
        return Array(out, x._weak)
    promoted = _promoted(x, values, kind)
    if promoted is None:
        return NotImplemented
    out, v, weak = promoted
    if kind == "subtract":
        v, kind = np.negative(v), "add"
    v = _fitted(v, shape)
    if v is None:
        return NotImplemented
    ufunc = _UFUNCS[kind]
    out = _copy(value) if out is value else np.asarray(out)
    if has_arrays:
        ufunc.at(out.reshape(-1), positions, _kept(v, shape, kept))
    else:
        out[index] = ufunc(out[index], v)
    if out.dtype != dtype:
        return Array(convert_kernel(out, dtype), x._weak)
    return Array(out, weak)


def update_shortcut(kind):
    """The shortcut of the ``x.at[idx]`` method ``kind`` (its arguments: the reference, the
    values or function, the keywords)."""
    def shortcut(ref, values, **keywords):
        return update_on_host(kind, ref.array, ref.index, values, **keywords)

    shortcut.__name__ = f"{kind}_on_host"
    return shortcut


def _ones_update(x, idx, values, keywords):
    """The array the general path divides by (or raises to): ones, times ``values`` at
    ``idx``; None to decline."""
    t = type(x)
    if t is not Array and t is not DeviceArray:
        return None
    ones = Array(np.ones(x.shape, x.dtype), x._weak)
    out = update_on_host("multiply", ones, idx, values, **keywords)
    return None if out is NotImplemented else out


def divide_on_host(ref, values, **keywords):
    """``x.at[idx].divide(values)``: ``x`` divided by ones times ``values`` at ``idx``."""
    divisor = _ones_update(ref.array, ref.index, values, keywords)
    return NotImplemented if divisor is None else true_divide(ref.array, divisor)


def power_on_host(ref, values, **keywords):
    """``x.at[idx].power(values)``: ``x`` to the power of ones times ``values`` at ``idx``."""
    exponent = _ones_update(ref.array, ref.index, values, keywords)
    return NotImplemented if exponent is None else power(ref.array, exponent)
