"""Reductions of ``funcarray.numpy``: sums, means, extrema, arg-extrema, scans, NaN-aware forms.

The semantics and dtypes are jax.numpy's with JAX's default (32-bit) settings, except that a
64-bit input stays 64-bit:

* ``sum``/``prod`` of bool and of integers narrower than 32 bits accumulate in int32 (uint32
  for unsigned): ``sum(int8_array)`` is int32 and wraps around past 2**31, like JAX; pass
  ``dtype=`` to choose. float16/bfloat16 sums accumulate in float32 and round once.
* ``mean``/``var``/``std`` of integers and bools give float32 (float64 for 64-bit integers);
  ``var`` of complex values is real. ``var`` with ``ddof``/``correction`` at least the count
  gives NaN (as in JAX; NumPy gives inf).
* Results are never weak-typed, even for Python scalar inputs.
* ``max``/``min`` of an empty reduction need ``initial=``; NaN propagates. ``argmax``/
  ``argmin`` give int32 indices, and the first NaN wins; ``nanargmax`` of an all-NaN slice
  gives -1 (NumPy raises, which is impossible under ``jit``).
* ``all``/``any``/``count_nonzero`` treat any nonzero value as true, complex included (NumPy's
  rule; jax.numpy's ``all``/``any`` look only at the real part of complex numbers).
* ``out=`` raises: funcarray arrays are immutable, results are always new arrays.

``median``, ``quantile`` and ``percentile`` are not here yet (they need sorting).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, overload

import numpy as np

from funcarray.api.arguments import (
    asarray_arg,
    broadcast_shapes,
    broadcast_to_shape,
    canonicalize_axes,
    canonicalize_axis,
    convert,
    convert_arg,
    to_inexact_dtype,
)
from funcarray.base import dtypes
from funcarray.base.array import Array
from funcarray.base.errors import op_type_error, op_value_error
from funcarray.numpy._reductions_on_host import (
    _all_on_host,
    _any_on_host,
    _argmax_on_host,
    _argmin_on_host,
    _count_nonzero_on_host,
    _cumprod_on_host,
    _cumsum_on_host,
    _cumulative_prod_on_host,
    _cumulative_sum_on_host,
    _max_on_host,
    _mean_on_host,
    _min_on_host,
    _nanargmax_on_host,
    _nanargmin_on_host,
    _nanmax_on_host,
    _nanmin_on_host,
    _nanprod_on_host,
    _nansum_on_host,
    _prod_on_host,
    _ptp_on_host,
    _std_on_host,
    _sum_on_host,
    _var_on_host,
    promote_integer,
    upcast_f16,
)
from funcarray.primitives import elementwise as ew
from funcarray.primitives import reduce as red
from funcarray.primitives.select_n import select_n_p
from funcarray.primitives.shape import broadcast_in_dim_p, reshape_p
from funcarray.transforms.host_shortcuts import host_shortcut

if TYPE_CHECKING:
    from typing import Literal

    from funcarray.base.typing import ArrayLike, Axis, DTypeLike

__all__ = [
    "sum", "prod", "mean", "var", "std", "max", "min", "amax", "amin", "argmax", "argmin",
    "all", "any", "cumsum", "cumprod", "cumulative_sum", "cumulative_prod", "ptp", "average",
    "count_nonzero", "nansum", "nanprod", "nanmean", "nanmax", "nanmin", "nanargmax",
    "nanargmin", "nanvar", "nanstd",
]

_INT32 = dtypes.int32
_BOOL = dtypes.bool_


# --------------------------------------------------------------------------------------------
# Argument normalisation
# --------------------------------------------------------------------------------------------

def _no_out(op: str, out):
    if out is not None:
        raise op_type_error(
            op, "out= is not supported: funcarray arrays are immutable, so every result is a "
                f"new array. Write `result = fnp.{op}(...)` instead.")


def _user_dtype(op: str, dtype) -> np.dtype:
    try:
        return dtypes.canonicalize_dtype(dtype)
    except TypeError as exc:
        raise op_type_error(op, str(exc)) from None


def _where_mask(op: str, where, shape):
    """The ``where=`` mask as a bool array of ``shape`` (or None)."""
    if where is None:
        return None
    mask = asarray_arg(op, where)
    if mask.dtype != _BOOL:
        raise op_type_error(
            op, f"where= must be a boolean mask, got dtype {mask.dtype}. Compare first, "
                f"e.g. where=x > 0.")
    if broadcast_shapes(op, mask.shape, shape) != tuple(shape):
        raise op_value_error(
            op, f"the where= mask of shape {mask.shape} does not broadcast to the array's "
                f"shape {tuple(shape)}")
    return broadcast_to_shape(mask, tuple(shape))


def _prepare(op: str, a, axis, where):
    """Convert ``a``, normalise ``axis`` to sorted non-negative axes, check ``where``."""
    a = asarray_arg(op, a)
    return a, canonicalize_axes(op, axis, a.ndim), _where_mask(op, where, a.shape)


def _real_dtype(dt) -> np.dtype:
    return {dtypes.complex64: dtypes.float32, dtypes.complex128: dtypes.float64}.get(
        np.dtype(dt), np.dtype(dt))


# --------------------------------------------------------------------------------------------
# Building blocks (all operands already have one dtype; shapes made explicit)
# --------------------------------------------------------------------------------------------

def _const(value, dtype, shape=()):
    return broadcast_to_shape(Array(np.asarray(value, dtype)), tuple(shape))


def _out_shape(shape, axes, keepdims: bool) -> tuple:
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def _keepdims(result, shape, axes, keepdims: bool):
    """Put the reduced axes back as size-1 dimensions when ``keepdims``."""
    if not keepdims or not axes:
        return result
    return reshape_p.bind(result, new_sizes=_out_shape(shape, axes, True))


def _masked(a, mask, fill):
    """``a`` where ``mask`` holds, else ``fill`` (the reduction's identity)."""
    if mask is None:
        return a
    return select_n_p.bind(mask, _const(fill, a.dtype, a.shape), a)


def _isnan(a):
    return ew.ne_p.bind(a, a)


def _nonzero(a):
    if a.dtype == _BOOL:
        return a
    return ew.ne_p.bind(a, _const(0, a.dtype, a.shape))


def _divide(x, y):
    return ew.div_p.bind(x, broadcast_to_shape(y, x.shape))


def _reduce_sum(a, axes, mask, dtype, keepdims):
    """Sum of ``a`` converted to ``dtype`` (bool sums are *or*, as in JAX)."""
    a = _masked(convert(a, dtype), mask, 0)
    prim = red.reduce_or_p if dtype == _BOOL else red.reduce_sum_p
    return _keepdims(prim.bind(a, axes=axes), a.shape, axes, keepdims)


def _count(shape, axes, mask, dtype, keepdims):
    """How many elements each reduction sees, as an array of the result's shape."""
    if mask is None:
        n = math.prod(shape[i] for i in axes)
        return _const(n, dtype, _out_shape(shape, axes, keepdims))
    return _reduce_sum(mask, axes, None, dtype, keepdims)


def _combine_initial(op: str, prim, result, initial):
    init = asarray_arg(op, initial)
    if init.ndim != 0:
        raise op_value_error(op, f"initial must be a scalar, got an array of shape {init.shape}")
    init = convert_arg(op, initial, result.dtype)  # (a Python float at full precision)
    return prim.bind(broadcast_to_shape(init, result.shape), result)


# --------------------------------------------------------------------------------------------
# sum, prod
# --------------------------------------------------------------------------------------------

def _sum_like(op, prim, bool_prim, combine, bool_combine, identity, a, axis, dtype, out,
              keepdims, initial, where, promote_integers):
    _no_out(op, out)
    a, axes, mask = _prepare(op, a, axis, where)
    if dtype is not None:
        dt = _user_dtype(op, dtype)
    else:
        dt = promote_integer(a.dtype) if promote_integers else a.dtype
    if dt == _BOOL:  # a bool accumulator: sum is *or*, prod is *and* (as in JAX)
        prim, combine = bool_prim, bool_combine
    a = _masked(convert(a, dt), mask, identity)
    result = prim.bind(a, axes=axes)
    if initial is not None:
        result = _combine_initial(op, combine, result, initial)
    return _keepdims(result, a.shape, axes, keepdims)


@host_shortcut(_sum_on_host)
def sum(a: ArrayLike, axis: Axis = None, dtype: DTypeLike | None = None, out: None = None,  # noqa: A001
        keepdims: bool = False, initial: ArrayLike | None = None,
        where: ArrayLike | None = None, promote_integers: bool = True) -> Array:
    """Sum of the elements over ``axis`` (all axes when None).

    bool and integers narrower than 32 bits are summed in int32 (uint32 for unsigned ones),
    and wrap around on overflow; ``dtype=`` chooses the accumulator and result dtype
    (``promote_integers=False`` keeps the input's). float16/bfloat16 accumulate in float32.
    ``initial`` is added to each result; ``where`` masks elements out.

    Example:
        >>> import funcarray.numpy as fnp
        >>> x = fnp.array([[1, 2, 3], [4, 5, 6]], dtype=fnp.int8)
        >>> fnp.sum(x, axis=1)
        Array([ 6, 15], dtype=int32)
        >>> fnp.sum(x, axis=0, keepdims=True, where=x > 1)
        Array([[4, 7, 9]], dtype=int32)
    """
    return _sum_like("sum", red.reduce_sum_p, red.reduce_or_p, ew.add_p, ew.or_p, 0, a, axis,
                     dtype, out, keepdims, initial, where, promote_integers)


@host_shortcut(_prod_on_host)
def prod(a: ArrayLike, axis: Axis = None, dtype: DTypeLike | None = None, out: None = None,
         keepdims: bool = False, initial: ArrayLike | None = None,
         where: ArrayLike | None = None, promote_integers: bool = True) -> Array:
    """Product of the elements over ``axis`` (all axes when None).

    Same dtype rules as ``sum``: narrow integers and bool multiply in int32 (wrapping around),
    float16/bfloat16 in float32. ``initial`` multiplies each result; ``where`` masks elements
    out.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.prod(fnp.array([[1., 2.], [3., 4.]]), axis=0)
        Array([3., 8.], dtype=float32)
    """
    return _sum_like("prod", red.reduce_prod_p, red.reduce_and_p, ew.mul_p, ew.and_p, 1, a, axis,
                     dtype, out, keepdims, initial, where, promote_integers)


# --------------------------------------------------------------------------------------------
# max, min, ptp
# --------------------------------------------------------------------------------------------

def _extremum(op, prim, combine, identity, a, axis, out, keepdims, initial, where):
    _no_out(op, out)
    a, axes, mask = _prepare(op, a, axis, where)
    if initial is None:
        if mask is not None:
            raise op_value_error(
                op, "where= needs initial= as well: the maximum/minimum has no identity to "
                    "give the masked-out elements. Pass e.g. initial=-fnp.inf.")
        empty = [i for i in axes if a.shape[i] == 0]
        if empty:
            raise op_value_error(
                op, f"zero-size array to reduction operation {op} which has no identity "
                    f"(axis {empty[0]} of shape {a.shape} is empty). Pass initial= to give "
                    f"empty reductions a value.")
    a = _masked(convert(a, a.dtype), mask, identity(a.dtype))
    result = prim.bind(a, axes=axes)
    if initial is not None:
        result = _combine_initial(op, combine, result, initial)
    return _keepdims(result, a.shape, axes, keepdims)


@host_shortcut(_max_on_host)
def max(a: ArrayLike, axis: Axis = None, out: None = None, keepdims: bool = False,  # noqa: A001
        initial: ArrayLike | None = None, where: ArrayLike | None = None) -> Array:
    """Maximum over ``axis`` (all axes when None); NaN propagates.

    An empty reduction needs ``initial``, which also takes part in every result; ``where``
    masks elements out (and needs ``initial``).

    Example:
        >>> import funcarray.numpy as fnp
        >>> x = fnp.array([[1, 5, 2], [7, 0, 3]])
        >>> fnp.max(x, axis=1)
        Array([5, 7], dtype=int32)
        >>> fnp.max(x, initial=10)
        Array(10, dtype=int32)
    """
    return _extremum("max", red.reduce_max_p, ew.max_p, red.max_identity, a, axis, out,
                     keepdims, initial, where)


@host_shortcut(_min_on_host)
def min(a: ArrayLike, axis: Axis = None, out: None = None, keepdims: bool = False,  # noqa: A001
        initial: ArrayLike | None = None, where: ArrayLike | None = None) -> Array:
    """Minimum over ``axis`` (all axes when None); NaN propagates.

    An empty reduction needs ``initial``, which also takes part in every result; ``where``
    masks elements out (and needs ``initial``).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.min(fnp.array([[1., 5.], [7., 0.]]), axis=0)
        Array([1., 0.], dtype=float32)
    """
    return _extremum("min", red.reduce_min_p, ew.min_p, red.min_identity, a, axis, out,
                     keepdims, initial, where)


amax = max
amin = min


@host_shortcut(_ptp_on_host)
def ptp(a: ArrayLike, axis: Axis = None, out: None = None, keepdims: bool = False) -> Array:
    """Peak to peak: ``max(a) - min(a)`` over ``axis``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.ptp(fnp.array([[4, 9, 2], [1, 1, 1]]), axis=1)
        Array([7, 0], dtype=int32)
    """
    _no_out("ptp", out)
    a = asarray_arg("ptp", a)
    if a.dtype == _BOOL:
        raise op_type_error("ptp", "bool arrays have no difference; convert them to an "
                                   "integer dtype first, e.g. a.astype(fnp.int32)")
    hi = _extremum("ptp", red.reduce_max_p, ew.max_p, red.max_identity, a, axis, None,
                   keepdims, None, None)
    lo = _extremum("ptp", red.reduce_min_p, ew.min_p, red.min_identity, a, axis, None,
                   keepdims, None, None)
    return ew.sub_p.bind(hi, lo)


# --------------------------------------------------------------------------------------------
# argmax, argmin
# --------------------------------------------------------------------------------------------

def _arg_extremum(op, prim, a, axis, out, keepdims):
    _no_out(op, out)
    a = asarray_arg(op, a)
    if dtypes.is_complex(a.dtype):
        raise op_type_error(op, f"complex numbers ({a.dtype}) have no order; take "
                                f"fnp.abs() or .real first")
    shape = a.shape
    if axis is None:
        if a.ndim != 1:
            a = reshape_p.bind(a, new_sizes=(a.size,))
        ax = 0
    else:
        ax = canonicalize_axis(op, axis, a.ndim)
    if a.shape[ax] == 0:
        raise op_value_error(op, f"attempt to get {op} of an empty sequence (axis {ax} of "
                                 f"shape {shape} has size 0)")
    result = prim.bind(a, axes=(ax,), index_dtype=_INT32)
    if keepdims:
        kept = (1,) * len(shape) if axis is None else _out_shape(shape, (ax,), True)
        result = reshape_p.bind(result, new_sizes=kept)
    return result


@host_shortcut(_argmax_on_host)
def argmax(a: ArrayLike, axis: int | None = None, out: None = None,
           keepdims: bool | None = None) -> Array:
    """Index of the maximum along ``axis`` (of the flattened array when None), as int32.

    Ties go to the first index; NaN counts as the maximum, so the first NaN's index wins.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.argmax(fnp.array([[1, 5, 5], [7, 0, 3]]), axis=1)
        Array([1, 0], dtype=int32)
    """
    return _arg_extremum("argmax", red.argmax_p, a, axis, out, keepdims)


@host_shortcut(_argmin_on_host)
def argmin(a: ArrayLike, axis: int | None = None, out: None = None,
           keepdims: bool | None = None) -> Array:
    """Index of the minimum along ``axis`` (of the flattened array when None), as int32.

    Ties go to the first index; NaN counts as the minimum, so the first NaN's index wins.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.argmin(fnp.array([3., 1., 2., 1.]))
        Array(1, dtype=int32)
    """
    return _arg_extremum("argmin", red.argmin_p, a, axis, out, keepdims)


# --------------------------------------------------------------------------------------------
# all, any, count_nonzero
# --------------------------------------------------------------------------------------------

def _logical(op, prim, identity, a, axis, out, keepdims, where):
    _no_out(op, out)
    a, axes, mask = _prepare(op, a, axis, where)
    a = _masked(_nonzero(a), mask, identity)
    return _keepdims(prim.bind(a, axes=axes), a.shape, axes, keepdims)


@host_shortcut(_all_on_host)
def all(a: ArrayLike, axis: Axis = None, out: None = None, keepdims: bool = False, *,  # noqa: A001
        where: ArrayLike | None = None) -> Array:
    """Whether every element over ``axis`` is nonzero (True for empty reductions).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.all(fnp.array([[1, 0], [2, 3]]), axis=1)
        Array([False,  True], dtype=bool)
    """
    return _logical("all", red.reduce_and_p, True, a, axis, out, keepdims, where)


@host_shortcut(_any_on_host)
def any(a: ArrayLike, axis: Axis = None, out: None = None, keepdims: bool = False, *,  # noqa: A001
        where: ArrayLike | None = None) -> Array:
    """Whether some element over ``axis`` is nonzero (False for empty reductions).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.any(fnp.array([[0, 0], [2, 0]]), axis=1)
        Array([False,  True], dtype=bool)
    """
    return _logical("any", red.reduce_or_p, False, a, axis, out, keepdims, where)


@host_shortcut(_count_nonzero_on_host)
def count_nonzero(a: ArrayLike, axis: Axis = None, keepdims: bool = False) -> Array:
    """How many elements over ``axis`` are nonzero, as int32.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.count_nonzero(fnp.array([[1, 0, 2], [0, 0, 3]]), axis=1)
        Array([2, 1], dtype=int32)
    """
    a, axes, _ = _prepare("count_nonzero", a, axis, None)
    return _reduce_sum(_nonzero(a), axes, None, _INT32, keepdims)


# --------------------------------------------------------------------------------------------
# mean, var, std, average
# --------------------------------------------------------------------------------------------

def _mean_dtype(op: str, dtype) -> np.dtype:
    """The dtype a mean is asked in: any but bool, which cannot hold the quotient (jax
    raises too; NumPy's bool mean is the truth of the float mean)."""
    dtype = _user_dtype(op, dtype)
    if dtype == _BOOL:
        raise op_type_error(op, "dtype=bool cannot hold a mean; ask for a float dtype "
                                "(dtype=float32) and compare the result instead")
    return dtype


def _mean(op, a, axes, mask, dtype, keepdims):
    if dtype is None:
        result_dtype = to_inexact_dtype(a.dtype)
        computation = upcast_f16(result_dtype)  # one rounding at the end, as in JAX
    else:
        result_dtype = computation = _mean_dtype(op, dtype)
    total = _reduce_sum(a, axes, mask, computation, keepdims)
    count = _count(a.shape, axes, mask, computation, keepdims)
    return convert(_divide(total, count), result_dtype)


@host_shortcut(_mean_on_host)
def mean(a: ArrayLike, axis: Axis = None, dtype: DTypeLike | None = None, out: None = None,
         keepdims: bool = False, *, where: ArrayLike | None = None) -> Array:
    """Arithmetic mean over ``axis``; integers and bools give float32 (float64 for int64).

    float16/bfloat16 are summed and divided in float32, then rounded once.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.mean(fnp.array([[1, 2], [3, 5]]), axis=0)
        Array([2. , 3.5], dtype=float32)
    """
    _no_out("mean", out)
    a, axes, mask = _prepare("mean", a, axis, where)
    return _mean("mean", a, axes, mask, dtype, keepdims)


def _correction(op: str, ddof, correction):
    if correction is None:
        return ddof
    if not (isinstance(ddof, (int, np.integer)) and ddof == 0):
        raise op_value_error(op, "give ddof or correction, not both (they are the same thing)")
    return correction


def _var_dtypes(op: str, a_dtype, dtype):
    """(computation dtype, result dtype) of a variance, as in jax.numpy."""
    if dtype is not None:
        dt = _user_dtype(op, dtype)
        if not dtypes.is_inexact(dt):
            raise op_value_error(op, f"dtype must be a float or complex dtype, got {dt}")
        if dtypes.is_complex(a_dtype) and not dtypes.is_complex(dt):
            raise op_value_error(
                op, f"a real dtype ({dt}) for the variance of complex values is ambiguous; "
                    f"leave dtype=None (the result is real) or pass a complex dtype")
        return upcast_f16(dt), dt
    if not dtypes.is_inexact(a_dtype):
        dt = to_inexact_dtype(a_dtype)
        return upcast_f16(dt), dt
    return upcast_f16(a_dtype), _real_dtype(a_dtype)


def _given_mean(op, mean, a):
    """The ``mean=`` of a variance, in ``a``'s dtype and broadcast to its shape: a scalar or
    an array of ``a``'s rank (the reduced axes kept as size 1, as ``keepdims=True`` gives)."""
    mean = asarray_arg(op, mean)
    # (this module's ``any`` is the array reduction: count the mismatched dimensions instead)
    mismatched = [m for m, n in zip(mean.shape, a.shape) if m not in (1, n)]
    if mean.ndim not in (0, a.ndim) or mismatched:
        raise op_type_error(
            op, f"mean= must be a scalar or broadcast to a's shape {a.shape} with the same "
                f"number of dimensions (keep the reduced axes: fnp.mean(a, axis, "
                f"keepdims=True)), got shape {mean.shape}")
    return broadcast_to_shape(convert(mean, a.dtype), a.shape)


def _var(op, a, axis, dtype, correction, keepdims, where, skip_nan: bool, mean=None):
    a, axes, mask = _prepare(op, a, axis, where)
    computation, result_dtype = _var_dtypes(op, a.dtype, dtype)
    a = convert(a, computation)
    real = _real_dtype(computation)
    if mean is not None:
        centre = _given_mean(op, mean, a)
    if skip_nan:
        nan = _isnan(a)
        if mean is None:
            centre = _nan_mean(a, axes, mask, computation, keepdims=True)
        centred = ew.sub_p.bind(a, broadcast_to_shape(centre, a.shape))
        centred = select_n_p.bind(nan, centred, _const(0, computation, a.shape))
        count = _reduce_sum(ew.not_p.bind(nan), axes, mask, real, keepdims)
    else:
        if mean is None:
            centre = _mean(op, a, axes, mask, computation, keepdims=True)
        centred = ew.sub_p.bind(a, broadcast_to_shape(centre, a.shape))
        count = None if mask is None else _count(a.shape, axes, mask, real, keepdims)
    if dtypes.is_complex(computation):
        squares = ew.real_p.bind(ew.mul_p.bind(centred, ew.conj_p.bind(centred)))
    else:
        squares = ew.mul_p.bind(centred, centred)
    total = _reduce_sum(squares, axes, mask, real, keepdims)
    if mask is None and not skip_nan and isinstance(correction, (int, float, np.number)):
        # The count is static: divide by a constant (or give NaN) without a select.
        dof = math.prod(a.shape[i] for i in axes) - correction
        if dof <= 0:
            return convert(_const(np.nan, real, total.shape), result_dtype)
        return convert(_divide(total, _const(dof, real)), result_dtype)
    if count is None:
        count = _count(a.shape, axes, None, real, keepdims)
    correction = convert_arg(op, correction, real)
    normalizer = ew.sub_p.bind(count, broadcast_to_shape(correction, count.shape))
    result = _divide(total, normalizer)
    # No degrees of freedom left: NaN, as in JAX (NumPy divides by zero).
    positive = ew.gt_p.bind(normalizer, _const(0, real, normalizer.shape))
    result = select_n_p.bind(positive, _const(np.nan, real, result.shape), result)
    return convert(result, result_dtype)


@host_shortcut(_var_on_host)
def var(a: ArrayLike, axis: Axis = None, dtype: DTypeLike | None = None, out: None = None,
        ddof: int = 0, keepdims: bool = False, *, where: ArrayLike | None = None,
        mean: ArrayLike | None = None, correction: int | float | None = None) -> Array:
    """Variance over ``axis``: the mean squared deviation, divided by ``N - ddof``.

    ``correction`` is the Array API name of ``ddof`` (give one of them). ``mean`` is the
    mean already computed (a scalar, or ``a``'s rank with the reduced axes kept: what
    ``mean(a, axis, keepdims=True)`` gives), used instead of computing it again, as in
    jax.numpy. Integers give float32 (float64 for 64-bit), complex inputs a real result.
    With no degrees of freedom left (``N - ddof <= 0``) the result is NaN.

    Example:
        >>> import funcarray.numpy as fnp
        >>> x = fnp.array([1., 2., 3., 4.])
        >>> fnp.var(x)
        Array(1.25, dtype=float32)
        >>> fnp.var(x, ddof=1)
        Array(1.6666666, dtype=float32)
        >>> fnp.var(x, mean=fnp.mean(x, keepdims=True))
        Array(1.25, dtype=float32)
    """
    _no_out("var", out)
    correction = _correction("var", ddof, correction)
    return _var("var", a, axis, dtype, correction, keepdims, where, skip_nan=False, mean=mean)


@host_shortcut(_std_on_host)
def std(a: ArrayLike, axis: Axis = None, dtype: DTypeLike | None = None, out: None = None,
        ddof: int = 0, keepdims: bool = False, *, where: ArrayLike | None = None,
        mean: ArrayLike | None = None, correction: int | float | None = None) -> Array:
    """Standard deviation over ``axis``: ``sqrt(var(...))`` with the same arguments.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.std(fnp.array([1., 3.]))
        Array(1., dtype=float32)
        >>> fnp.std(fnp.array([1., 3.]), mean=0.0)
        Array(2.236068, dtype=float32)
    """
    _no_out("std", out)
    correction = _correction("std", ddof, correction)
    return ew.sqrt_p.bind(_var("std", a, axis, dtype, correction, keepdims, where, False,
                               mean=mean))


def _average_axes(op, axis, ndim):
    """The axes in the caller's order (weights' dimensions follow that order)."""
    if isinstance(axis, (tuple, list)):
        axes = tuple(canonicalize_axis(op, ax, ndim) for ax in axis)
        if len(set(axes)) != len(axes):
            raise op_value_error(op, f"repeated axis in {tuple(axis)}")
        return axes
    return (canonicalize_axis(op, axis, ndim),)


def _spread_weights(op, w, shape, axis):
    """Weights given along ``axis`` only, broadcast to the full ``shape``."""
    if axis is None:
        raise op_value_error(
            op, f"axis must be given when a (shape {shape}) and weights (shape {w.shape}) "
                f"have different shapes")
    axes = _average_axes(op, axis, len(shape))
    if w.shape != tuple(shape[ax] for ax in axes):
        raise op_value_error(
            op, f"weights of shape {w.shape} must match a's shape {shape} along axis {axis}, "
                f"i.e. have shape {tuple(shape[ax] for ax in axes)}")
    order = sorted(range(len(axes)), key=lambda i: axes[i])
    if order != list(range(len(axes))):
        from funcarray.primitives.shape import transpose_p
        w = transpose_p.bind(w, permutation=tuple(order))
    return broadcast_in_dim_p.bind(w, shape=tuple(shape), broadcast_dimensions=tuple(sorted(axes)))


@overload
def average(a: ArrayLike, axis: Axis = None, weights: ArrayLike | None = None,
            returned: Literal[False] = False, keepdims: bool = False) -> Array: ...
@overload
def average(a: ArrayLike, axis: Axis = None, weights: ArrayLike | None = None, *,
            returned: Literal[True], keepdims: bool = False) -> tuple[Array, Array]: ...
@overload
def average(a: ArrayLike, axis: Axis = None, weights: ArrayLike | None = None,
            returned: bool = False, keepdims: bool = False
            ) -> Array | tuple[Array, Array]: ...
def average(a, axis=None, weights=None, returned=False, keepdims=False):
    """Weighted mean over ``axis``: ``sum(a * weights) / sum(weights)``.

    ``weights`` has ``a``'s shape, or the shape of ``a`` along ``axis``. With ``returned``
    the result is ``(average, sum_of_weights)``, the second broadcast to the first's shape.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.average(fnp.array([1., 2., 4.]), weights=fnp.array([1., 1., 2.]))
        Array(2.75, dtype=float32)
    """
    a = asarray_arg("average", a)
    axes = canonicalize_axes("average", axis, a.ndim)
    if weights is None:
        a = convert(a, to_inexact_dtype(a.dtype))
        avg = _mean("average", a, axes, None, None, keepdims)
        weight_sum = _count(a.shape, axes, None, avg.dtype, keepdims)
    else:
        w = asarray_arg("average", weights)
        try:
            dt = dtypes.result_type(a, w)
        except TypeError as exc:
            raise op_type_error("average", str(exc)) from None
        dt = to_inexact_dtype(dt)
        a, w = convert(a, dt), convert(w, dt)
        if w.shape != a.shape:
            w = _spread_weights("average", w, a.shape, axis)
        weight_sum = _reduce_sum(w, axes, None, dt, keepdims)
        avg = _divide(_reduce_sum(ew.mul_p.bind(a, w), axes, None, dt, keepdims), weight_sum)
    if returned:
        return avg, broadcast_to_shape(weight_sum, avg.shape)
    return avg


# --------------------------------------------------------------------------------------------
# Cumulative reductions
# --------------------------------------------------------------------------------------------

def _cumulative(op, prim, a, axis, dtype, promote_integers):
    a = asarray_arg(op, a)
    if axis is None:
        a = reshape_p.bind(a, new_sizes=(a.size,)) if a.ndim != 1 else a
        axis = 0
    axis = canonicalize_axis(op, axis, a.ndim)
    if dtype is None:
        result_dtype = computation = (
            promote_integer(a.dtype) if promote_integers or a.dtype == _BOOL else a.dtype)
    else:
        result_dtype = _user_dtype(op, dtype)
        computation = result_dtype
        if result_dtype == _BOOL:
            # Scan the truth values as integers: [-1, 1] must not cancel out.
            a, computation = _nonzero(a), _INT32
    result = prim.bind(convert(a, computation), axis=axis, reverse=False)
    return convert(result, result_dtype)


@host_shortcut(_cumsum_on_host)
def cumsum(a: ArrayLike, axis: int | None = None, dtype: DTypeLike | None = None,
           out: None = None) -> Array:
    """Running sum along ``axis`` (of the flattened array when None).

    Integers keep their dtype (and wrap around); bools count in int32.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.cumsum(fnp.array([[1, 2], [3, 4]]), axis=1)
        Array([[1, 3],
               [3, 7]], dtype=int32)
    """
    _no_out("cumsum", out)
    return _cumulative("cumsum", red.cumsum_p, a, axis, dtype, promote_integers=False)


@host_shortcut(_cumprod_on_host)
def cumprod(a: ArrayLike, axis: int | None = None, dtype: DTypeLike | None = None,
            out: None = None) -> Array:
    """Running product along ``axis`` (of the flattened array when None).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.cumprod(fnp.array([1., 2., 3.]))
        Array([1., 2., 6.], dtype=float32)
    """
    _no_out("cumprod", out)
    return _cumulative("cumprod", red.cumprod_p, a, axis, dtype, promote_integers=False)


def _array_api_cumulative(op, prim, x, axis, dtype, include_initial, identity, promote):
    x = asarray_arg(op, x)
    if x.ndim == 0:
        raise op_value_error(op, "needs an array with at least one dimension, got a 0-d value")
    if axis is None:
        if x.ndim > 1:
            raise op_value_error(op, f"axis must be given for an array of {x.ndim} dimensions "
                                     f"(it is optional only for 1-d arrays)")
        axis = 0
    axis = canonicalize_axis(op, axis, x.ndim)
    out = _cumulative(op, prim, x, axis, dtype, promote_integers=promote)
    if include_initial:
        from funcarray.primitives.shape import concatenate_p
        first = _const(identity, out.dtype, _out_shape(out.shape, (axis,), True))
        out = concatenate_p.bind(first, out, dimension=axis)
    return out


@host_shortcut(_cumulative_sum_on_host)
def cumulative_sum(x: ArrayLike, /, *, axis: int | None = None,
                   dtype: DTypeLike | None = None, include_initial: bool = False) -> Array:
    """Running sum along ``axis`` (Array API): narrow integers accumulate in int32.

    ``axis`` may be left out for 1-d arrays only; ``include_initial`` starts with a 0.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.cumulative_sum(fnp.array([1, 2, 3], dtype=fnp.int8))
        Array([1, 3, 6], dtype=int32)
    """
    return _array_api_cumulative("cumulative_sum", red.cumsum_p, x, axis, dtype,
                                 include_initial, 0, promote=True)


@host_shortcut(_cumulative_prod_on_host)
def cumulative_prod(x: ArrayLike, /, *, axis: int | None = None,
                    dtype: DTypeLike | None = None, include_initial: bool = False) -> Array:
    """Running product along ``axis`` (Array API); ``include_initial`` starts with a 1.

    Narrow integers accumulate in int32 or uint32, as in ``prod`` and ``cumulative_sum`` (the
    standard's rule; jax.numpy keeps the input's dtype here).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.cumulative_prod(fnp.array([[1, 2], [3, 4]]), axis=0)
        Array([[1, 2],
               [3, 8]], dtype=int32)
        >>> fnp.cumulative_prod(fnp.array([16, 16], dtype=fnp.uint8))
        Array([ 16, 256], dtype=uint32)
    """
    return _array_api_cumulative("cumulative_prod", red.cumprod_p, x, axis, dtype,
                                 include_initial, 1, promote=True)


# --------------------------------------------------------------------------------------------
# NaN-aware reductions: NaNs are skipped (replaced by the reduction's identity)
# --------------------------------------------------------------------------------------------

def _without_nan(a, fill):
    return select_n_p.bind(_isnan(a), a, _const(fill, a.dtype, a.shape))


@host_shortcut(_nansum_on_host)
def nansum(a: ArrayLike, axis: Axis = None, dtype: DTypeLike | None = None, out: None = None,
           keepdims: bool = False, initial: ArrayLike | None = None,
           where: ArrayLike | None = None) -> Array:
    """``sum`` that treats NaN as zero.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.nansum(fnp.array([1., fnp.nan, 2.]))
        Array(3., dtype=float32)
    """
    a = asarray_arg("nansum", a)
    if dtypes.is_inexact(a.dtype):
        a = _without_nan(a, 0)
    return _sum_like("nansum", red.reduce_sum_p, red.reduce_or_p, ew.add_p, ew.or_p, 0, a, axis,
                     dtype, out, keepdims, initial, where, True)


@host_shortcut(_nanprod_on_host)
def nanprod(a: ArrayLike, axis: Axis = None, dtype: DTypeLike | None = None,
            out: None = None, keepdims: bool = False, initial: ArrayLike | None = None,
            where: ArrayLike | None = None) -> Array:
    """``prod`` that treats NaN as one.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.nanprod(fnp.array([2., fnp.nan, 3.]))
        Array(6., dtype=float32)
    """
    a = asarray_arg("nanprod", a)
    if dtypes.is_inexact(a.dtype):
        a = _without_nan(a, 1)
    return _sum_like("nanprod", red.reduce_prod_p, red.reduce_and_p, ew.mul_p, ew.and_p, 1, a,
                     axis, dtype, out, keepdims, initial, where, True)


def _nan_mean(a, axes, mask, dtype, keepdims, result_dtype=None):
    """Mean of the non-NaN elements of inexact ``a``, computed in ``dtype``."""
    total = _reduce_sum(_without_nan(a, 0), axes, mask, dtype, keepdims)
    count = _reduce_sum(ew.not_p.bind(_isnan(a)), axes, mask, dtype, keepdims)
    return convert(_divide(total, count), result_dtype or dtype)


def nanmean(a: ArrayLike, axis: Axis = None, dtype: DTypeLike | None = None,
            out: None = None, keepdims: bool = False, *,
            where: ArrayLike | None = None) -> Array:
    """``mean`` of the non-NaN elements (NaN where all are NaN).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.nanmean(fnp.array([1., fnp.nan, 3.]))
        Array(2., dtype=float32)
    """
    _no_out("nanmean", out)
    a, axes, mask = _prepare("nanmean", a, axis, where)
    if not dtypes.is_inexact(a.dtype):
        return _mean("nanmean", a, axes, mask, dtype, keepdims)
    if dtype is None:
        result_dtype, computation = a.dtype, upcast_f16(a.dtype)
    else:
        result_dtype = computation = _mean_dtype("nanmean", dtype)
    return _nan_mean(convert(a, a.dtype), axes, mask, computation, keepdims, result_dtype)


def _nan_extremum(op, prim, combine, identity, a, axis, out, keepdims, initial, where):
    _no_out(op, out)
    a = asarray_arg(op, a)
    if dtypes.is_inexact(a.dtype):
        nan = _isnan(a)
        a = _without_nan(a, identity(a.dtype))
    result = _extremum(op, prim, combine, identity, a, axis, None, keepdims, initial, where)
    if initial is not None or not dtypes.is_inexact(a.dtype):
        return result
    all_nan = all(nan, axis, keepdims=keepdims)
    return select_n_p.bind(all_nan, result, _const(np.nan, a.dtype, result.shape))


@host_shortcut(_nanmax_on_host)
def nanmax(a: ArrayLike, axis: Axis = None, out: None = None, keepdims: bool = False,
           initial: ArrayLike | None = None, where: ArrayLike | None = None) -> Array:
    """``max`` that skips NaN (NaN only where every element is NaN and no ``initial``).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.nanmax(fnp.array([1., fnp.nan, 3.]))
        Array(3., dtype=float32)
    """
    return _nan_extremum("nanmax", red.reduce_max_p, ew.max_p, red.max_identity, a, axis, out,
                         keepdims, initial, where)


@host_shortcut(_nanmin_on_host)
def nanmin(a: ArrayLike, axis: Axis = None, out: None = None, keepdims: bool = False,
           initial: ArrayLike | None = None, where: ArrayLike | None = None) -> Array:
    """``min`` that skips NaN (NaN only where every element is NaN and no ``initial``).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.nanmin(fnp.array([1., fnp.nan, 3.]))
        Array(1., dtype=float32)
    """
    return _nan_extremum("nanmin", red.reduce_min_p, ew.min_p, red.min_identity, a, axis, out,
                         keepdims, initial, where)


def _nan_arg_extremum(op, prim, identity, a, axis, out, keepdims):
    _no_out(op, out)
    a = asarray_arg(op, a)
    if not dtypes.is_float(a.dtype):  # complex is rejected by the arg reduction itself
        return _arg_extremum(op, prim, a, axis, None, keepdims)
    nan = _isnan(a)
    index = _arg_extremum(op, prim, _without_nan(a, identity(a.dtype)), axis, None, keepdims)
    all_nan = all(nan, axis, keepdims=bool(keepdims))
    return select_n_p.bind(all_nan, index, _const(-1, index.dtype, index.shape))


@host_shortcut(_nanargmax_on_host)
def nanargmax(a: ArrayLike, axis: int | None = None, out: None = None,
              keepdims: bool | None = None) -> Array:
    """``argmax`` that skips NaN; an all-NaN slice gives -1 (NumPy raises instead).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.nanargmax(fnp.array([1., fnp.nan, 3.]))
        Array(2, dtype=int32)
    """
    return _nan_arg_extremum("nanargmax", red.argmax_p, red.max_identity, a, axis, out,
                             keepdims)


@host_shortcut(_nanargmin_on_host)
def nanargmin(a: ArrayLike, axis: int | None = None, out: None = None,
              keepdims: bool | None = None) -> Array:
    """``argmin`` that skips NaN; an all-NaN slice gives -1 (NumPy raises instead).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.nanargmin(fnp.array([4., fnp.nan, 3.]))
        Array(2, dtype=int32)
    """
    return _nan_arg_extremum("nanargmin", red.argmin_p, red.min_identity, a, axis, out,
                             keepdims)


def nanvar(a: ArrayLike, axis: Axis = None, dtype: DTypeLike | None = None, out: None = None,
           ddof: int = 0, keepdims: bool = False, where: ArrayLike | None = None,
           mean: ArrayLike | None = None, *,
           correction: int | float | None = None) -> Array:
    """``var`` of the non-NaN elements (``N`` counts the non-NaN ones); ``mean`` as in
    ``var`` (NaN elements still skipped).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.nanvar(fnp.array([1., fnp.nan, 3.]))
        Array(1., dtype=float32)
        >>> fnp.nanvar(fnp.array([1., fnp.nan, 3.]), mean=1.0)
        Array(2., dtype=float32)
    """
    _no_out("nanvar", out)
    correction = _correction("nanvar", ddof, correction)
    return _var("nanvar", a, axis, dtype, correction, keepdims, where, skip_nan=True,
                mean=mean)


def nanstd(a: ArrayLike, axis: Axis = None, dtype: DTypeLike | None = None, out: None = None,
           ddof: int = 0, keepdims: bool = False, where: ArrayLike | None = None,
           mean: ArrayLike | None = None, *,
           correction: int | float | None = None) -> Array:
    """``std`` of the non-NaN elements: ``sqrt(nanvar(...))``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.nanstd(fnp.array([1., fnp.nan, 3.]))
        Array(1., dtype=float32)
    """
    _no_out("nanstd", out)
    correction = _correction("nanstd", ddof, correction)
    return ew.sqrt_p.bind(_var("nanstd", a, axis, dtype, correction, keepdims, where, True,
                               mean=mean))

