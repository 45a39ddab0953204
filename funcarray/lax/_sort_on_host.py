"""Fast NumPy sorts with the ``sort`` primitive's exact results, for the host shortcuts of
``lax.sort``, ``lax.sort_key_val``, ``funcarray.numpy``'s ``sort``/``argsort`` and the
operations built on sorting (``transforms/host_shortcuts.py``).

The primitive's kernel (``primitives/sort.py``) is a stable ``np.lexsort`` and a gather: the
one order that is right for every input (NaNs last and tied, ``-0.0 == 0.0``, equal keys in
their original order), but it is ten times slower than NumPy's default (vectorised, unstable)
sort on a 64x64 matrix. These functions give the same bits faster:

* sorted values (``sorted_last``): equal keys with different bits are only ``-0.0``/``0.0``
  and NaNs of different bits, so NumPy's unstable sort is exact when the sorted result shows
  no such pair; otherwise the stable sort runs.
* the stable permutation (``order_last``): each key is mapped to a signed integer of 32
  bits that orders as the kernel does (floats by their total order once ``-0.0`` is made
  ``0.0`` and every NaN one NaN) and packed with its position into a 64-bit integer: these
  are distinct, so any sort of them gives the stable order, and NumPy's vectorised sort of
  int64 runs (faster than its argsort of the 32-bit keys).

Wider keys (64-bit integers and floats, complex numbers) take NumPy's stable sorts.

Example:
    >>> import numpy as np
    >>> order_last(np.array([2.0, -0.0, 0.0, np.nan, 1.0], np.float32))
    array([1, 2, 4, 0, 3])
"""

from __future__ import annotations

import numpy as np

from funcarray.base import dtypes

__all__ = ["sorted_last", "order_last", "sort_key_arrays", "along_last", "take_last",
           "sorted_along"]

_NARROW_INTS = {np.dtype(t): np.dtype(t).type(np.iinfo(t).min) for t in
                (np.int8, np.int16, np.int32, np.uint8, np.uint16, np.uint32)}
_HALF_FLOATS = dtypes.dtype_set(lambda d: dtypes.is_float(d) and np.dtype(d).itemsize < 4)
_SHORT = 16  # rows this short sort stably as fast as unstably (no checks needed)
_SIGN = np.uint32(0x80000000)
_LOW = np.int32(0x7FFFFFFF)


def sort_key_arrays(x: np.ndarray) -> np.ndarray | None:
    """``x`` as one real NumPy array that sorts as the kernel sorts ``x`` (narrow floats as
    float32: exact), or None for complex ``x`` (two keys)."""
    if x.dtype.kind == "c":
        return None
    return x.astype(np.float32) if x.dtype in _HALF_FLOATS and x.dtype.isbuiltin == 2 else x


def sorted_last(x: np.ndarray) -> np.ndarray:
    """``x`` sorted along its last axis, bit for bit as the kernel sorts it."""
    if x.dtype.isbuiltin == 2 or x.dtype.kind == "c":
        # (bfloat16, float8: sorted as float32 keys; complex: by real, then imaginary part)
        return take_last(x, order_last(x))
    if x.dtype.kind != "f":
        return np.sort(x, axis=-1)  # equal integers (and bools) have equal bits
    if x.shape[-1] <= _SHORT:
        return np.sort(x, axis=-1, kind="stable")
    out = np.sort(x, axis=-1)
    if np.isnan(out[..., -1]).any():
        return np.sort(x, axis=-1, kind="stable")  # NaNs (tied) of maybe different bits
    zero = out == 0
    if zero.any():
        negative = np.signbit(out) & zero
        if negative.any() and not np.array_equal(negative, zero):
            return np.sort(x, axis=-1, kind="stable")  # -0.0 and 0.0 in original order
    return out


def _ordered_int32(key: np.ndarray) -> np.ndarray | None:
    """A signed 32-bit integer per entry that orders as the kernel orders ``key`` (equal
    exactly when the kernel ties them), or None where ``key`` needs more bits."""
    dt = key.dtype
    if dt == np.bool_ or dt in _NARROW_INTS and dt.itemsize < 4:
        return key.astype(np.int32)
    if dt == np.int32:
        return key
    if dt == np.uint32:
        return (key ^ _SIGN).view(np.int32)  # (order kept: the top bit flipped)
    if dt.kind != "f" or dt.itemsize > 4:
        return None
    # (+ 0.0 makes -0.0 the 0.0 it ties; np.where with scalars costs more than the sort)
    f = (key if dt == np.float32 else key.astype(np.float32)) + np.float32(0)
    np.copyto(f, np.float32(np.nan), where=np.isnan(f))  # every NaN one NaN, above +inf
    bits = f.view(np.int32)
    # IEEE total order as signed integers: the magnitude bits of negatives flipped.
    return bits ^ ((bits >> 31) & _LOW)


def order_last(x: np.ndarray) -> np.ndarray:
    """The stable permutation (int64 positions) that sorts ``x`` along its last axis, as
    the kernel's ``np.lexsort`` finds it (complex ``x``: by real part, then imaginary)."""
    key = sort_key_arrays(x)
    if key is None:
        return np.lexsort([x.imag, x.real], axis=-1)
    n = x.shape[-1] if x.ndim else 1
    ordered = None if n <= _SHORT or n >= 2**32 else _ordered_int32(key)
    if ordered is None:
        return np.argsort(key, axis=-1, kind="stable")
    packed = (ordered.astype(np.int64) << np.int64(32)) | np.arange(n, dtype=np.int64)
    return np.sort(packed, axis=-1) & np.int64(0xFFFFFFFF)


def along_last(fn, x: np.ndarray, axis: int) -> np.ndarray:
    """``fn`` (a function of the last axis) applied along ``axis`` (non-negative) of ``x``
    (swapping axes is a view, cheaper than moving them)."""
    last = x.ndim - 1
    if axis == last:
        return fn(x)
    return fn(x.swapaxes(axis, last)).swapaxes(axis, last)


def take_last(x: np.ndarray, order: np.ndarray) -> np.ndarray:
    """``x`` permuted along its last axis by ``order`` (one permutation per row)."""
    if x.ndim == 1:
        return x[order]
    return np.take_along_axis(x, order, axis=-1)


def sorted_along(values, axis: int) -> list:
    """The arrays ``values`` (one shape, at least 1-d) sorted along ``axis`` (non-negative)
    by the first, as the kernel sorts them with one key."""
    last = values[0].ndim - 1
    if axis != last:
        values = [v.swapaxes(axis, last) for v in values]
    order = order_last(values[0])
    outs = [take_last(v, order) for v in values]
    return outs if axis == last else [out.swapaxes(axis, last) for out in outs]
