"""Array creation: ``array``, ``asarray``, ``zeros``, ``ones``, ``full``, ``arange``, ``eye``...

Creation functions bind primitives (a scalar broadcast with ``broadcast_in_dim``, ramps with
``iota``) rather than building big NumPy constants, so that under ``jit`` they stage as a few
small operations, and eagerly they cost a zero-copy NumPy view.
Defaults follow JAX: Python floats give float32, Python ints int32. Each takes ``device=``
(the Array API's and jax.numpy's keyword): the result is placed there, and under a transform
the traced result is left to the transform (jit places its outputs on its own device).
"""

from __future__ import annotations

import math
import operator
import warnings
from typing import TYPE_CHECKING, overload

import numpy as np

from funcarray.api.arguments import (
    _int_tuple,
    asarray_arg,
    broadcast_to_shape,
    canonicalize_axis,
    convert,
    convert_arg,
    to_inexact_dtype,
)
from funcarray.api.placement import check_device, place
from funcarray.base import dtypes
from funcarray.base import float0 as _float0
from funcarray.base.array import Array, DeviceArray, new_array
from funcarray.base.errors import int_out_of_range_error, op_type_error, op_value_error
from funcarray.base.host_values import scalar_to_array
from funcarray.numpy._elementwise import add, equal, multiply, subtract, where
from funcarray.numpy._extended_arrays import is_extended
from funcarray.numpy._rounding_and_division import floor
from funcarray.numpy._shape import broadcast_arrays, expand_dims, reshape
from funcarray.numpy._shape_on_host import host_dims
from funcarray.primitives import elementwise as ew
from funcarray.primitives.conversions import convert_kernel
from funcarray.primitives.shape import iota_p
from funcarray.transforms.host_shortcuts import host_shortcut

if TYPE_CHECKING:
    from typing import Any, Literal

    from funcarray.base.typing import ArrayLike, DTypeLike, ShapeLike

__all__ = [
    "array", "asarray", "zeros", "ones", "full", "empty", "zeros_like", "ones_like",
    "full_like", "empty_like", "arange", "linspace", "eye", "identity",
]


def shape_tuple(op: str, shape: Any) -> tuple[int, ...]:
    """``shape`` (an int or a sequence of non-negative ints) as a tuple of ints: the one
    check of every function that takes a shape. A traced value raises the concretization
    error that names static_argnums (``fnp.zeros(n)`` under jit with a traced ``n``)."""
    shape = _int_tuple(op, shape, "shape")
    if any(d < 0 for d in shape):
        raise op_value_error(op, f"negative dimensions are not allowed, got shape {shape}")
    return shape


def _memory_order(op: str, order: str | None) -> None:
    """funcarray arrays have no memory layout to choose: only ``order='K'`` (or None) is
    taken, as jax. (Callers test for those first: ``array`` is on many hot paths.)"""
    if order not in (None, "K"):
        raise NotImplementedError(f"{op}: only order='K' is implemented, got order="
                                  f"{order!r} (funcarray arrays have no memory layout)")


def array(object: Any, dtype: DTypeLike | None = None, copy: bool = True,
          order: str | None = "K", ndmin: int = 0, *, device: Any = None) -> Array:
    """Create an Array from a scalar, a nested list, a NumPy array or another Array.

    Python floats default to float32 and ints to int32 (as in JAX); a NumPy float64 array
    stays float64. The data is copied, so mutating the source later never changes the Array.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.array([[1, 2], [3, 4]])
        Array([[1, 2],
               [3, 4]], dtype=int32)
    """
    if order != "K" and order is not None:
        _memory_order("array", order)
    if dtype is None and not ndmin and is_extended(object):
        return object  # a key array, as it is (arrays are immutable: no copy to make)
    out = asarray_arg("array", object, dtype)
    if ndmin > out.ndim:
        out = reshape(out, (1,) * (ndmin - out.ndim) + out.shape)
    return out if device is None else place("array", out, device)


def asarray(a: Any, dtype: DTypeLike | None = None, order: str | None = None, *,
            copy: bool | None = None, device: Any = None) -> Array:
    """Convert ``a`` to an Array, without copying when it already is one of that dtype.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.asarray(3.0).dtype
        dtype('float32')
    """
    if order is not None:
        _memory_order("asarray", order)
    if dtype is None and is_extended(a):
        return a
    return place("asarray", asarray_arg("asarray", a, dtype), device)


_PYTHON_SCALARS = (bool, int, float, complex)


def _filled(dims: tuple, value: Array) -> Array:
    """The 0-d ``value`` broadcast to ``dims`` into a fresh array (the broadcast kernel's
    copy), or ``value`` itself for a 0-d result."""
    if not dims:
        return value
    out = np.empty(dims, value._value.dtype)
    np.copyto(out, value._value, casting="no")
    return new_array(out, value._weak)


def _fill_value(fill_value, dtype):
    """``fill_value`` (a Python scalar or a 0-d host array) as ``full`` converts it, or None."""
    t = type(fill_value)
    if t is Array or t is DeviceArray:
        if fill_value._value.ndim:
            return None
        return fill_value if dtype is None else convert_arg("full", fill_value, dtype)
    if t not in _PYTHON_SCALARS or (t is complex and dtype is not None):
        return None  # (a complex to a real dtype raises in the general path)
    if dtype is None:
        return scalar_to_array("full", fill_value)
    if t is float:
        # convert_arg's conversion of a float (its float64 value, then convert_element_type's
        # impl) without the bind, which costs twice the kernel
        value = np.asarray(fill_value, np.float64)
        return new_array(convert_kernel(value, dtypes.canonicalize_dtype(dtype)))
    return convert_arg("full", fill_value, dtype)


def _full_on_host(shape, fill_value, dtype=None, *, device=None):
    dims = host_dims(shape)
    value = None if dims is None else _fill_value(fill_value, dtype)
    return NotImplemented if value is None else place("full", _filled(dims, value), device)


@host_shortcut(_full_on_host)
def full(shape: ShapeLike, fill_value: ArrayLike, dtype: DTypeLike | None = None, *,
         device: Any = None) -> Array:
    """An array of ``shape`` filled with ``fill_value``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.full((2,), 7)
        Array([7, 7], dtype=int32, weak_type=True)
    """
    shape = shape_tuple("full", shape)
    if type(fill_value) is complex and dtype is not None:
        kind = dtypes.canonicalize_dtype(dtype).kind
        if kind == "b":  # a Python complex fills a bool array with whether it is nonzero
            fill_value = fill_value != 0  # (jax converts it as NumPy does)
        elif kind != "c":
            raise op_type_error("full", f"a complex fill_value ({fill_value!r}) cannot fill "
                                        f"a {np.dtype(dtype).name} array (as in jax.numpy); "
                                        f"pass its real part or a complex dtype")
    # With a dtype the fill value is converted as lax.convert_element_type does, like
    # jax.numpy.full: a float to an integer dtype truncates (2.7 -> 2), a Python float to
    # float64 keeps its double value.
    value = (asarray_arg("full", fill_value) if dtype is None
             else convert_arg("full", fill_value, dtype))
    return place("full", broadcast_to_shape(value, shape), device)


def _new_on_host(numpy_new, shape, dtype, device):
    dims = host_dims(shape)
    if dims is None:
        return NotImplemented
    # (float0 and other dtypes canonicalize_dtype rejects: the general path handles them)
    dtype = dtypes.default_float if dtype is None else dtypes.canonicalize_dtype(dtype)
    return place(numpy_new.__name__, Array(numpy_new(dims, dtype)), device)


def _zeros_on_host(shape, dtype=None, *, device=None):
    return _new_on_host(np.zeros, shape, dtype, device)


def _ones_on_host(shape, dtype=None, *, device=None):
    return _new_on_host(np.ones, shape, dtype, device)


@host_shortcut(_zeros_on_host)
def zeros(shape: ShapeLike, dtype: DTypeLike | None = None, *, device: Any = None) -> Array:
    """An array of zeros (float32 unless ``dtype`` says otherwise). With
    ``dtype=funcarray.dtypes.float0`` it is a NumPy float0 array, as in JAX (the tangent type
    of integers: no operation takes it).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.zeros((2, 2), dtype=fnp.int8)
        Array([[0, 0],
               [0, 0]], dtype=int8)
    """
    try:
        dtype = dtypes.default_float if dtype is None else dtypes.canonicalize_dtype(dtype)
    except TypeError:
        if _float0.is_float0_dtype(dtype):
            return _float0.zeros(_int_tuple("zeros", shape, "shape"))
        raise
    return full(shape, Array(np.zeros((), dtype)), device=check_device("zeros", device))


@host_shortcut(_ones_on_host)
def ones(shape: ShapeLike, dtype: DTypeLike | None = None, *, device: Any = None) -> Array:
    """An array of ones (float32 unless ``dtype`` says otherwise).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.ones(3)
        Array([1., 1., 1.], dtype=float32)
    """
    dtype = dtypes.default_float if dtype is None else dtypes.canonicalize_dtype(dtype)
    return full(shape, Array(np.ones((), dtype)), device=check_device("ones", device))


@host_shortcut(_zeros_on_host)
def empty(shape: ShapeLike, dtype: DTypeLike | None = None, *, device: Any = None) -> Array:
    """Same as ``zeros``: arrays are immutable, so uninitialised memory has no use.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.empty(2)
        Array([0., 0.], dtype=float32)
    """
    return zeros(shape, dtype, device=check_device("empty", device))


def _like(op, a, dtype, shape):
    """The shape and dtype a ``*_like`` function makes for ``a``, and whether the result is
    weakly typed: it is when it takes a weakly typed ``a``'s dtype (as jax's ``*_like``:
    ``zeros_like`` of a Python scalar or of a value born of one still adopts the other
    operand's dtype). A Python scalar's value is never read, only its type: an int beyond
    the default integer still gives its zeros, as jax's."""
    if type(a) in _PYTHON_SCALARS:
        a_dtype, a_weak, a_shape = *dtypes.result_type(a, return_weak_type=True), ()
    else:
        a = asarray_arg(op, a)
        a_dtype, a_weak, a_shape = a.dtype, a.weak_type, a.shape
    weak = dtype is None and a_weak
    dtype = a_dtype if dtype is None else dtypes.canonicalize_dtype(dtype)
    return (a_shape if shape is None else shape), dtype, weak


def _weak_if(out, weak):
    return convert(out, out.dtype, weak_type=True) if weak else out


def _new_like_on_host(numpy_new, a, dtype, shape, device):
    t = type(a)
    if t is not Array and t is not DeviceArray:
        return NotImplemented
    dims = a.shape if shape is None else host_dims(shape)
    if dims is None:
        return NotImplemented
    if dtype is None:  # a's dtype, and its weak type (see _like)
        out = Array(numpy_new(dims, a.dtype), a._weak)
    else:
        out = Array(numpy_new(dims, dtypes.canonicalize_dtype(dtype)))
    return place(numpy_new.__name__ + "_like", out, device)


def _zeros_like_on_host(a, dtype=None, shape=None, *, device=None):
    return _new_like_on_host(np.zeros, a, dtype, shape, device)


def _ones_like_on_host(a, dtype=None, shape=None, *, device=None):
    return _new_like_on_host(np.ones, a, dtype, shape, device)


@host_shortcut(_zeros_like_on_host)
def zeros_like(a: ArrayLike, dtype: DTypeLike | None = None,
               shape: ShapeLike | None = None, *, device: Any = None) -> Array:
    """Zeros with the shape and dtype of ``a``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.zeros_like(fnp.arange(3))
        Array([0, 0, 0], dtype=int32)
    """
    if _float0.is_float0(a) or (dtype is not None and _float0.is_float0_dtype(dtype)):
        # float0 zeros (JAX's zeros_like of a float0 array, or with dtype=float0)
        return _float0.zeros(np.shape(a) if shape is None
                             else _int_tuple("zeros_like", shape, "shape"))
    shape, dtype, weak = _like("zeros_like", a, dtype, shape)
    out = _weak_if(zeros(shape, dtype), weak)
    return place("zeros_like", out, device)


@host_shortcut(_ones_like_on_host)
def ones_like(a: ArrayLike, dtype: DTypeLike | None = None,
              shape: ShapeLike | None = None, *, device: Any = None) -> Array:
    """Ones with the shape and dtype of ``a``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.ones_like(fnp.zeros(2))
        Array([1., 1.], dtype=float32)
    """
    shape, dtype, weak = _like("ones_like", a, dtype, shape)
    out = _weak_if(ones(shape, dtype), weak)
    return place("ones_like", out, device)


@host_shortcut(_zeros_like_on_host)
def empty_like(a: ArrayLike, dtype: DTypeLike | None = None,
               shape: ShapeLike | None = None, *, device: Any = None) -> Array:
    """Same as ``zeros_like`` (arrays are immutable).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.empty_like(fnp.ones(2)).shape
        (2,)
    """
    return zeros_like(a, dtype, shape, device=check_device("empty_like", device))


def _full_like_on_host(a, fill_value, dtype=None, shape=None, *, device=None):
    t = type(a)
    if t is not Array and t is not DeviceArray:
        return NotImplemented
    dims = a.shape if shape is None else host_dims(shape)
    value = None if dims is None else _fill_value(
        fill_value, a.dtype if dtype is None else dtypes.canonicalize_dtype(dtype))
    if value is None:
        return NotImplemented
    out = _filled(dims, value)
    if dtype is None and a._weak:  # a's dtype, and its weak type (see _like)
        out = new_array(out._value, True)
    return place("full_like", out, device)


@host_shortcut(_full_like_on_host)
def full_like(a: ArrayLike, fill_value: ArrayLike, dtype: DTypeLike | None = None,
              shape: ShapeLike | None = None, *, device: Any = None) -> Array:
    """``fill_value`` with the shape and dtype of ``a``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.full_like(fnp.zeros(2), 5)
        Array([5., 5.], dtype=float32)
    """
    shape, full_dtype, weak = _like("full_like", a, dtype, shape)
    if weak and type(fill_value) is complex and full_dtype.kind != "c":
        fill_value = fill_value.real  # jax converts to a weak dtype as NumPy casts
    out = _weak_if(full(shape, fill_value, full_dtype), weak)
    return place("full_like", out, device)


def _concrete_number(op, x, name):
    if x is None or isinstance(x, (int, float, np.integer, np.floating)):
        return x
    if isinstance(x, Array) and x.ndim == 0:
        return x.item()
    raise op_type_error(op, f"{name} must be a concrete number, got {type(x).__name__}; "
                            f"array sizes must be known while tracing")


def _arange_on_host(start, stop=None, step=None, dtype=None, *, device=None):
    if type(start) is int and stop is None and step is None and dtype is None and (
            device is None):
        # arange(n), the common form: the iota kernel's ramp (0 values for n <= 0).
        _check_arange_fits(0, 1, max(start, 0), dtypes.default_int)
        return Array(np.arange(max(start, 0), dtype=dtypes.default_int))
    for v in (start, stop, step):
        if v is not None and type(v) is not int and type(v) is not float:
            return NotImplemented
    if stop is None:
        start, stop = 0, start
    step = 1 if step is None else step
    if step == 0:
        return NotImplemented
    if dtype is None:
        any_float = type(start) is float or type(stop) is float or type(step) is float
        dtype = dtypes.default_float if any_float else dtypes.default_int
    dtype = dtypes.canonicalize_dtype(dtype)
    if dtype == dtypes.bool_:
        return NotImplemented
    n = max(0, math.ceil((stop - start) / step))
    _check_arange_fits(start, step, n, dtype)  # (raising declines: the general path raises)
    # The general path's kernels on the same values: the iota, times step, plus start.
    compute = _arange_compute_dtype(dtype)
    ramp = iota_p.kernel(dtype=compute, shape=(n,), dimension=0)
    if step != 1:
        ramp = ew.mul_p.kernel(ramp, _in_dtype(step, compute))
    if start != 0:
        ramp = ew.add_p.kernel(ramp, _in_dtype(start, compute))
    return place("arange", Array(ramp if compute == dtype else convert_kernel(ramp, dtype)),
                 device)


def _real_part_for(op: str, value, dtype):
    """A Python complex ``value`` computed in a real ``dtype``: its real part, with NumPy's
    ComplexWarning (as jax.numpy converts it)."""
    if type(value) is not complex or dtypes.is_complex(dtype):
        return value
    warnings.warn(f"{op}: casting the complex {value!r} to {np.dtype(dtype).name} drops the "
                  f"imaginary part", np.exceptions.ComplexWarning, stacklevel=3)
    return value.real


def _in_dtype(value, dtype) -> np.ndarray:
    """A Python number as a 0-d array of ``dtype``, integers wrapping (a step of -1 is 255
    for uint8: the ramp's wrapping products and sums count down, as NumPy's arange does)."""
    return np.asarray(value).astype(dtype)


def _check_arange_fits(start, step, n: int, dtype) -> None:
    """Raise when an integer ramp's values would wrap in ``dtype`` (``arange(0, 2**40, 2**38)``
    in int32 would silently give zeros; jax wraps them, funcarray refuses out-of-range Python
    ints everywhere)."""
    if n == 0 or not dtypes.is_integer(dtype):
        return
    info = dtypes.iinfo(dtype)
    for value in (start, start + (n - 1) * step):
        if not info.min <= value <= info.max:
            wider = "uint64" if info.min == 0 and value > 0 else "int64"
            raise int_out_of_range_error(
                "arange", value, dtype,
                f"pass dtype={wider} (or a float dtype) for a range beyond {dtype}")


def _arange_compute_dtype(dtype):
    """float16 and bfloat16 ramps are computed in float32 and rounded once, as jax does
    (start + i * step accumulated in float16 drifts by ulps)."""
    # (16-bit floats tested by size: naming bfloat16 would import ml_dtypes for any arange)
    return dtypes.float32 if dtype.itemsize == 2 and dtypes.is_float(dtype) else dtype


@host_shortcut(_arange_on_host)
def arange(start: ArrayLike, stop: ArrayLike | None = None, step: ArrayLike | None = None,
           dtype: DTypeLike | None = None, *, device: Any = None) -> Array:
    """Evenly spaced values in ``[start, stop)``, like ``numpy.arange``.

    Integer arguments give int32, float arguments float32 (unless ``dtype`` is given).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.arange(1, 7, 2)
        Array([1, 3, 5], dtype=int32)
    """
    start = _concrete_number("arange", start, "start")
    stop = _concrete_number("arange", stop, "stop")
    step = _concrete_number("arange", step, "step")
    if stop is None:
        start, stop = 0, start
    step = 1 if step is None else step
    if step == 0:
        raise op_value_error("arange", "step must not be zero")
    if dtype is None:
        any_float = any(isinstance(v, (float, np.floating)) for v in (start, stop, step))
        dtype = dtypes.default_float if any_float else dtypes.default_int
    dtype = dtypes.canonicalize_dtype(dtype)
    n = max(0, math.ceil((stop - start) / step))
    _check_arange_fits(start, step, n, dtype)
    compute = _arange_compute_dtype(dtype)
    ramp = iota_p.bind(dtype=compute, shape=(n,), dimension=0)
    if step != 1:
        ramp = multiply(ramp, Array(_in_dtype(step, compute)))
    if start != 0:
        ramp = add(ramp, Array(_in_dtype(start, compute)))
    return place("arange", convert(ramp, dtype), device)


def _linspace_on_host(start, stop, num=50, endpoint=True, retstep=False, dtype=None,
                     axis=0, *, device=None):
    """The general path's kernels for Python-float (or int32) endpoints and at least two
    samples, ``stop`` included, in the default float dtype: ``start + i * step`` with the
    step ``(stop - start) * (1 / (num - 1))``, then ``stop`` itself last."""
    if (type(num) is not int or num < 2 or endpoint is not True or retstep is not False
            or dtype is not None or type(axis) is not int or axis not in (0, -1)
            or device is not None):
        return NotImplemented
    for v in (start, stop):
        if type(v) is not float and (type(v) is not int or not -2**31 <= v < 2**31):
            return NotImplemented
    compute = dtypes.default_float
    first, last = np.asarray(start, compute), np.asarray(stop, compute)
    step = ew.mul_p.kernel(ew.sub_p.kernel(last, first), np.asarray(1.0 / (num - 1), compute))
    ramp = iota_p.kernel(dtype=compute, shape=(num,), dimension=0)
    out = ew.add_p.kernel(first, ew.mul_p.kernel(ramp, step))
    out[-1] = last  # (a fresh array: the general path's select of stop there)
    return Array(out)


@overload
def linspace(start: ArrayLike, stop: ArrayLike, num: int = 50, endpoint: bool = True,
             retstep: Literal[False] = False, dtype: DTypeLike | None = None,
             axis: int = 0, *, device: Any = None) -> Array: ...
@overload
def linspace(start: ArrayLike, stop: ArrayLike, num: int, endpoint: bool,
             retstep: Literal[True], dtype: DTypeLike | None = None,
             axis: int = 0, *, device: Any = None) -> tuple[Array, Array]: ...
@overload
def linspace(start: ArrayLike, stop: ArrayLike, num: int = 50, endpoint: bool = True, *,
             retstep: Literal[True], dtype: DTypeLike | None = None,
             axis: int = 0, device: Any = None) -> tuple[Array, Array]: ...
@overload
def linspace(start: ArrayLike, stop: ArrayLike, num: int = 50, endpoint: bool = True,
             retstep: bool = False, dtype: DTypeLike | None = None,
             axis: int = 0, *, device: Any = None) -> Array | tuple[Array, Array]: ...
@host_shortcut(_linspace_on_host)
def linspace(start, stop, num: int = 50, endpoint: bool = True, retstep: bool = False,
             dtype=None, axis: int = 0, *, device=None):
    """``num`` evenly spaced values from ``start`` to ``stop`` (inclusive by default).

    ``start`` and ``stop`` may be arrays (broadcast together): the samples run along the new
    ``axis`` of the result. Integer dtypes round toward minus infinity (NumPy 2, JAX).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.linspace(0, 1, 5)
        Array([0.  , 0.25, 0.5 , 0.75, 1.  ], dtype=float32)
        >>> fnp.linspace(fnp.zeros(2), fnp.array([1.0, 3.0]), 3, axis=-1)
        Array([[0. , 0.5, 1. ],
               [0. , 1.5, 3. ]], dtype=float32)
    """
    num = int(operator.index(num))
    if num < 0:
        raise op_value_error("linspace", f"num must be non-negative, got {num}")
    if dtype is None:  # float32 for Python numbers, float64 for float64 (or int64) arrays
        dtype = to_inexact_dtype(dtypes.result_type(asarray_arg("linspace", start),
                                                    asarray_arg("linspace", stop)))
    dtype = dtypes.canonicalize_dtype(dtype)
    compute = to_inexact_dtype(dtype)  # (float64 for 64-bit integers, as jax)
    # (asarray_arg with the dtype: a Python float becomes float64 from its exact value, not
    # from a weak float32 rounding of it)
    start, stop = (_real_part_for("linspace", v, compute) for v in (start, stop))
    start, stop = broadcast_arrays(asarray_arg("linspace", start, compute),
                                   asarray_arg("linspace", stop, compute))
    axis = canonicalize_axis("linspace", axis, start.ndim + 1)
    start, stop = expand_dims(start, axis), expand_dims(stop, axis)
    div = (num - 1) if endpoint else num
    # start + i * ((stop - start) * (1 / div)): XLA turns jax's division by the constant div
    # into this product with its reciprocal, so eager values match jit's and jax's.
    step = subtract(stop, start) * (1.0 / div) if div > 0 else subtract(stop, start) * 0.0
    ramp_shape = tuple(num if d == axis else 1 for d in range(start.ndim))
    ramp = iota_p.bind(dtype=compute, shape=ramp_shape, dimension=axis)
    # (one sample is start itself, as in jax, even where the step is not finite)
    out = start if num == 1 else add(start, multiply(ramp, step))
    if endpoint and num > 1:
        # Make the last value exactly `stop`, as NumPy does.
        last = iota_p.bind(dtype=dtypes.int32, shape=ramp_shape, dimension=axis) == num - 1
        out = where(last, stop, out)
    if dtypes.is_integer(dtype):  # (bool is not: any nonzero sample is True, as in jax)
        out = floor(out)
    out = convert(out, dtype)
    if retstep:
        if div <= 0:  # no step between fewer than two samples: NumPy says nan
            step = full(step.shape, float("nan"), step.dtype)  # (nan + 0j if complex, as jax)
        # The step stays in the computation's inexact dtype (jax): 10/3 is not 3.
        return (place("linspace", out, device),
                step.reshape(step.shape[:axis] + step.shape[axis + 1:]))
    return place("linspace", out, device)


def _eye_on_host(N, M=None, k=0, dtype=None, *, device=None):
    M = N if M is None else M
    # (k beyond int32 fails in the general path's int32 arithmetic: it raises there)
    if (type(N) is not int or type(M) is not int or type(k) is not int or N < 0 or M < 0
            or not -2**31 <= k < 2**31):
        return NotImplemented
    dtype = dtypes.default_float if dtype is None else dtypes.canonicalize_dtype(dtype)
    return place("eye", Array(np.eye(N, M, k, dtype=dtype)), device)


@host_shortcut(_eye_on_host)
def eye(N: int, M: int | None = None, k: int = 0, dtype: DTypeLike | None = None, *,
        device: Any = None) -> Array:
    """A 2-D array with ones on the ``k``-th diagonal.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.eye(2, dtype=int)
        Array([[1, 0],
               [0, 1]], dtype=int32)
    """
    M = N if M is None else M
    dtype = dtypes.default_float if dtype is None else dtypes.canonicalize_dtype(dtype)
    rows = iota_p.bind(dtype=dtypes.int32, shape=(N, M), dimension=0)
    cols = iota_p.bind(dtype=dtypes.int32, shape=(N, M), dimension=1)
    return place("eye", convert(equal(add(rows, k), cols), dtype), device)


def identity(n: int, dtype: DTypeLike | None = None) -> Array:
    """The ``n`` x ``n`` identity matrix.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.identity(2)
        Array([[1., 0.],
               [0., 1.]], dtype=float32)
    """
    return eye(n, dtype=dtype)
