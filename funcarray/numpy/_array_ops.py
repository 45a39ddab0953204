"""Small array utilities of ``funcarray.numpy``: ``diff``, ``ediff1d``, ``append``,
``nan_to_num``, ``copy`` and ``astype``.

They compose slicing, concatenation, ``where`` and conversion, so they work eagerly and under
every transform, and ``diff``/``nan_to_num`` are differentiable. ``n`` and ``axis`` must be
static ints.

Example:
    >>> import funcarray.numpy as fnp
    >>> fnp.diff(fnp.array([1, 4, 9, 16]))
    Array([3, 5, 7], dtype=int32)
"""

from __future__ import annotations

import functools
import warnings
from typing import TYPE_CHECKING

import numpy as np

from funcarray.api.arguments import (
    _concrete_int,
    asarray_arg,
    canonicalize_axis,
    convert,
    convert_arg,
)
from funcarray.api.placement import place
from funcarray.base import dtypes
from funcarray.base.array import Array, DeviceArray
from funcarray.base.errors import op_type_error, op_value_error
from funcarray.numpy._elementwise import isnan, not_equal, subtract, where
from funcarray.numpy._math_functions import imag, real
from funcarray.numpy._predicates_and_bits import isneginf, isposinf
from funcarray.numpy._promotion import promote_args_unbroadcast
from funcarray.numpy._shape import broadcast_to, concatenate, ravel
from funcarray.numpy._shape_on_host import host_concatenate
from funcarray.primitives.conversions import convert_kernel, float_to_int_inside
from funcarray.primitives.elementwise import complex_p
from funcarray.transforms.host_shortcuts import host_shortcut

if TYPE_CHECKING:
    from typing import Any

    from funcarray.base.typing import ArrayLike, DTypeLike

__all__ = ["diff", "ediff1d", "append", "nan_to_num", "copy", "astype"]


def _along(axis, ndim, index):
    return (slice(None),) * axis + (index,) + (slice(None),) * (ndim - axis - 1)


def diff(a: ArrayLike, n: int = 1, axis: int = -1, prepend: ArrayLike | None = None,
         append: ArrayLike | None = None) -> Array:
    """The ``n``-th discrete difference ``a[i + 1] - a[i]`` along ``axis`` (bools: ``!=``).

    ``prepend``/``append`` are joined to ``a`` along ``axis`` first (a scalar is broadcast
    to one slice).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.diff(fnp.array([[1.0, 2.0, 4.0], [0.0, 0.0, 5.0]]), n=2)
        Array([[1.],
               [5.]], dtype=float32)
        >>> fnp.diff(fnp.array([1, 2]), prepend=0)
        Array([1, 1], dtype=int32)
    """
    op = "diff"
    arr = asarray_arg(op, a)
    n = _concrete_int(op, n, "n")
    axis = _concrete_int(op, axis, "axis")
    if n < 0:
        raise op_value_error(op, f"the order n must be non-negative, got {n}")
    if n == 0:
        return arr
    if arr.ndim == 0:
        raise op_value_error(op, "needs an array with at least one dimension, got a 0-d value")
    axis = canonicalize_axis(op, axis, arr.ndim)
    parts = [extra for extra in (prepend, arr, append) if extra is not None]
    if len(parts) > 1:
        # (Promoted together first: a Python float joining float64 keeps float64's precision.)
        parts = promote_args_unbroadcast(op, *parts)
        slice_shape = arr.shape[:axis] + (1,) + arr.shape[axis + 1:]
        arr = concatenate([broadcast_to(p, slice_shape) if p.ndim == 0 else p for p in parts],
                          axis)
    later, earlier = _along(axis, arr.ndim, slice(1, None)), _along(axis, arr.ndim, slice(-1))
    for _ in range(n):
        if arr.dtype == dtypes.bool_:
            arr = not_equal(arr[later], arr[earlier])
        else:
            arr = subtract(arr[later], arr[earlier])
    return arr


def ediff1d(ary: ArrayLike, to_end: ArrayLike | None = None,
            to_begin: ArrayLike | None = None) -> Array:
    """The differences between consecutive elements of the flattened ``ary``, with
    ``to_begin``/``to_end`` (converted to ``ary``'s dtype) joined before/after.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.ediff1d(fnp.array([1, 3, 6]), to_begin=-9, to_end=fnp.array([7, 8]))
        Array([-9,  2,  3,  7,  8], dtype=int32)
    """
    op = "ediff1d"
    arr = ravel(asarray_arg(op, ary))
    if arr.dtype == dtypes.bool_:
        raise op_type_error(op, "cannot subtract booleans; convert first, e.g. "
                                "ary.astype(fnp.int32)")
    result = subtract(arr[1:], arr[:-1])
    if to_begin is not None:
        result = concatenate([ravel(convert_arg(op, to_begin, arr.dtype)), result])
    if to_end is not None:
        result = concatenate([result, ravel(convert_arg(op, to_end, arr.dtype))])
    return result


def _append_on_host(arr, values, axis=None):
    return host_concatenate((arr, values), axis)


@host_shortcut(_append_on_host)
def append(arr: ArrayLike, values: ArrayLike, axis: int | None = None) -> Array:
    """``arr`` with ``values`` joined at the end along ``axis`` (both flattened when None).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.append(fnp.array([[1, 2]]), fnp.array([[3, 4]]), axis=0)
        Array([[1, 2],
               [3, 4]], dtype=int32)
        >>> fnp.append(fnp.array([1, 2]), fnp.float32(3.5))
        Array([1. , 2. , 3.5], dtype=float32)
    """
    op = "append"
    arr, values = promote_args_unbroadcast(op, asarray_arg(op, arr), values)
    if axis is None:
        return concatenate([ravel(arr), ravel(values)], 0)
    return concatenate([arr, values], axis=_concrete_int(op, axis, "axis"))


def nan_to_num(x: ArrayLike, copy: bool = True, nan: ArrayLike = 0.0,
               posinf: ArrayLike | None = None, neginf: ArrayLike | None = None) -> Array:
    """``x`` with NaN replaced by ``nan``, +inf by ``posinf`` and -inf by ``neginf`` (the
    dtype's largest and lowest finite values by default); complex parts separately. Integer
    and bool arrays are returned unchanged.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.nan_to_num(fnp.array([fnp.nan, fnp.inf, -fnp.inf, 1.0]), posinf=9.0)
        Array([ 0.0000000e+00,  9.0000000e+00, -3.4028235e+38,  1.0000000e+00], dtype=float32)
    """
    op = "nan_to_num"
    x = asarray_arg(op, x)
    dt = x.dtype
    if not dtypes.is_inexact(dt):
        return x
    if dtypes.is_complex(dt):
        parts = (nan_to_num(p, nan=nan, posinf=posinf, neginf=neginf) for p in (real(x), imag(x)))
        return complex_p.bind(*parts)
    info = dtypes.finfo(dt)

    def value(v, default, name):
        if v is None:
            return Array(np.asarray(default, dt))
        # (a Python int beyond int32 is taken in x's dtype, as jax does: no int32 on the way)
        v_dtype = (np.dtype(type(v)) if type(v) in (bool, int, float, complex)
                   else asarray_arg(op, v).dtype)
        if dtypes.is_complex(v_dtype):
            raise op_type_error(op, f"{name} must be real, got dtype {v_dtype}")
        return convert_arg(op, v, dt)

    out = where(isnan(x), value(nan, 0.0, "nan"), x)
    out = where(isposinf(out), value(posinf, info.max, "posinf"), out)
    return where(isneginf(out), value(neginf, info.min, "neginf"), out)


def copy(a: ArrayLike, order: str | None = None) -> Array:
    """A copy of ``a`` as an array (funcarray arrays are immutable, so this is ``asarray``).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.copy([1, 2])
        Array([1, 2], dtype=int32)
    """
    op = "copy"
    if order not in (None, "C", "K", "A"):
        raise op_value_error(op, f"order must be None, 'K', 'A' or 'C', got {order!r} "
                                 f"(funcarray arrays are always row-major)")
    return asarray_arg(op, a)


def _astype_on_host(x, dtype, /, *, copy=False, device=None):
    t = type(x)
    if (t is not Array and t is not DeviceArray) or device is not None:
        return NotImplemented
    value = x._value
    if value.dtype.kind == "c":
        return NotImplemented  # (to real: a warning; to bool: a comparison)
    dtype = dtypes.default_float if dtype is None else _canonical_dtype(dtype)
    if value.dtype == dtype and not x._weak:
        return x
    # (the conversion kernel's first test, without its per-call dtype queries)
    inside = float_to_int_inside(value, dtype)
    return Array(convert_kernel(value, dtype) if inside is None else inside, False)


# A dtype-like (a name, a type, a dtype) as the supported dtype it names: a pure function's
# cache (an unhashable or invalid dtype-like raises, and the general path reports it).
_canonical_dtype = functools.lru_cache(maxsize=256)(dtypes.canonicalize_dtype)


@host_shortcut(_astype_on_host)
def astype(x: ArrayLike, dtype: DTypeLike | None, /, *, copy: bool = False,
           device: Any = None) -> Array:
    """``x`` converted to ``dtype`` (the default float dtype when None).

    Float to integer truncates toward zero; complex to bool is ``x != 0``; complex to real
    keeps the real part with a warning (as jax.numpy, which will make it an error).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.astype(fnp.array([1.7, -1.7]), fnp.int32)
        Array([ 1, -1], dtype=int32)
    """
    op = "astype"
    if dtype is None:
        dtype = dtypes.default_float
    try:
        dtype = dtypes.canonicalize_dtype(dtype)
    except TypeError as exc:
        raise op_type_error(op, str(exc)) from None
    # Python floats and complexes at double precision (astype(0.1, float64) is 0.1); a
    # complex to a real dtype goes through the complex dtype of its width (warned below).
    if type(x) is complex and dtype == dtypes.bool_:
        x = convert_arg(op, x != 0, dtype)
    elif type(x) is complex and not dtypes.is_complex(dtype):
        x = convert_arg(op, x, dtypes.complex128 if np.dtype(dtype).itemsize == 8
                        else dtypes.complex64)
    elif type(x) in (float, complex):
        x = convert_arg(op, x, dtype)
    x = asarray_arg(op, x)
    if dtypes.is_complex(x.dtype):
        if dtype == dtypes.bool_:
            x = not_equal(x, 0)
        elif not dtypes.is_complex(dtype):
            warnings.warn(f"astype: casting complex {x.dtype} to real {dtype} drops the "
                          f"imaginary part; take fnp.real(x) or fnp.imag(x) first",
                          np.exceptions.ComplexWarning, stacklevel=2)
            x = real(x)
    return place(op, convert(x, dtype), device)

