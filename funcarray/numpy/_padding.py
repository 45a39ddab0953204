"""Padding of ``funcarray.numpy``: ``pad`` with every mode of ``jax.numpy.pad``.

The widths decide the result's shape and, like ``stat_length``, must be concrete; the array,
``constant_values`` and ``end_values`` may be traced (under ``jit``, ``grad`` or ``vmap``).
Each axis is padded in turn, so the values a later axis reads (its edges, statistics, ramps)
include the padding of the earlier axes, as in NumPy and JAX. Results keep the operand's weak
type, as in JAX.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from funcarray.api.arguments import (
    _broadcast_along,
    _concatenate,
    _reshape,
    _rev,
    asarray_arg,
    broadcast_to_shape,
    convert,
    convert_arg,
    to_inexact_dtype,
)
from funcarray.base import dtypes
from funcarray.base.array import Array
from funcarray.base.errors import op_type_error, op_value_error
from funcarray.numpy._elementwise import add, multiply, subtract, true_divide
from funcarray.numpy._manipulation import apply_along_axis
from funcarray.numpy._reductions import max as _max
from funcarray.numpy._reductions import mean as _mean
from funcarray.numpy._reductions import min as _min
from funcarray.numpy._rounding_and_division import floor
from funcarray.numpy._rounding_and_division import round as _round
from funcarray.numpy._statistics import median as _median
from funcarray.primitives._axis_slice import slice_axis as _slice_axis
from funcarray.primitives.shape import iota_p, pad_p, slice_p

if TYPE_CHECKING:
    from typing import Any

    from funcarray.base.typing import ArrayLike


__all__ = ["pad"]

# The keyword arguments each mode reads (jax.numpy.pad's table); any other is an error.
_MODE_KWARGS = {
    "constant": ("constant_values",), "empty": (), "edge": (), "wrap": (),
    "linear_ramp": ("end_values",), "maximum": ("stat_length",), "mean": ("stat_length",),
    "median": ("stat_length",), "minimum": ("stat_length",), "reflect": ("reflect_type",),
    "symmetric": ("reflect_type",),
}
_STATISTICS = {"maximum": _max, "minimum": _min, "mean": _mean, "median": _median}


# --------------------------------------------------------------------------------------------
# Arguments
# --------------------------------------------------------------------------------------------

def _int_pairs(values, shape, name: str) -> tuple:
    """NumPy's forms of ``pad_width`` and ``stat_length`` (``n``, ``(before, after)``, one
    pair per axis...) as one ``(before, after)`` pair of non-negative ints per axis."""
    try:
        pairs = np.asarray(values)
    except ValueError:
        pairs = None  # ragged nested sequences
    if pairs is None or (pairs.size and pairs.dtype.kind not in "iu"):
        raise op_type_error("pad", f"{name} must be an int or (nested) sequence of ints, "
                                   f"got {values!r}")
    try:
        pairs = np.broadcast_to(pairs.astype(np.int64), (len(shape), 2))
    except ValueError:
        raise op_value_error(
            "pad", f"{name} {values!r} does not fit an array of shape {tuple(shape)}: "
                   f"give an int, a (before, after) pair, or one pair per axis") from None
    if (pairs < 0).any():
        raise op_value_error("pad", f"{name} must not be negative, got {values!r}")
    return tuple((int(before), int(after)) for before, after in pairs)


def _value_pairs(values, x, name: str):
    """``constant_values`` or ``end_values`` (a scalar, a ``(before, after)`` pair or one
    pair per axis; arrays, traced ones included) as an array of shape ``(x.ndim, 2)``."""
    fits = values.ndim <= 2 and all(
        size in (1, target) for size, target in zip(values.shape[::-1], (2, x.ndim)))
    if not fits:
        raise op_value_error(
            "pad", f"{name} of shape {values.shape} does not fit an array of shape "
                   f"{x.shape}: give a scalar, a (before, after) pair, or one pair per axis")
    return broadcast_to_shape(values, (x.ndim, 2))


def _pair_item(pairs, axis: int, side: int):
    """The scalar ``pairs[axis, side]`` of an array of shape ``(ndim, 2)``."""
    item = slice_p.bind(pairs, start_indices=(axis, side), limit_indices=(axis + 1, side + 1),
                        strides=None)
    return _reshape(item, ())


def _check_kwargs(mode: str, kwargs: dict) -> None:
    unexpected = sorted(set(kwargs) - set(_MODE_KWARGS[mode]))
    if unexpected:
        allowed = _MODE_KWARGS[mode]
        takes = f"takes only {', '.join(allowed)}" if allowed else "takes none"
        raise op_type_error("pad", f"unexpected keyword arguments {unexpected} for mode "
                                   f"{mode!r}, which {takes}")


# --------------------------------------------------------------------------------------------
# Modes
# --------------------------------------------------------------------------------------------

def _pad_constant(x, widths, constant_values):
    values = convert_arg("pad", constant_values, x.dtype, x.weak_type)
    if values.ndim == 0:
        if not any(before or after for before, after in widths):
            return x
        value = convert(values, x.dtype, x.weak_type)
        config = tuple((before, after, 0) for before, after in widths)
        return pad_p.bind(x, value, padding_config=config)
    # One (before, after) value per axis; later axes overwrite the corners, as in NumPy.
    values = _value_pairs(values, x, "constant_values")
    for axis, pair in enumerate(widths):
        for side, width in enumerate(pair):
            if not width:
                continue
            value = convert(_pair_item(values, axis, side), x.dtype, x.weak_type)
            config = [(0, 0, 0)] * x.ndim
            config[axis] = (width, 0, 0) if side == 0 else (0, width, 0)
            x = pad_p.bind(x, value, padding_config=tuple(config))
    return x


def _pad_edge(x, axis: int, before: int, after: int):
    size = x.shape[axis]
    parts = []
    if before:
        parts.append(_broadcast_along(_slice_axis(x, axis, 0, 1), axis, before))
    parts.append(x)
    if after:
        parts.append(_broadcast_along(_slice_axis(x, axis, size - 1, size), axis, after))
    return _concatenate(parts, axis)


def _pad_periodic(x, axis: int, before: int, after: int, mode: str):
    """Pad modes ``wrap``, ``symmetric`` and ``reflect`` (even) extend ``x`` periodically
    along ``axis``; build one period, repeat it, and cut out the padded window."""
    size = x.shape[axis]
    if mode == "wrap" or (mode == "reflect" and size == 1):
        period = x  # wrap: x0 x1 x2 | x0 x1 x2 ...
    elif mode == "symmetric":
        period = _concatenate([x, _rev(x, (axis,))], axis)  # x0 x1 x2 x2 x1 x0
    else:
        inner = _slice_axis(x, axis, 1, size - 1)
        period = _concatenate([x, _rev(inner, (axis,))], axis)  # x0 x1 x2 x1
    length = period.shape[axis]
    total = before + size + after
    offset = -before % length  # result[i] = period[(i - before) mod length]
    copies = -(-(offset + total) // length)
    tiled = _concatenate([period] * copies, axis)
    return _slice_axis(tiled, axis, offset, offset + total)


def _pad_odd(x, axis: int, before: int, after: int, mode: str):
    """Odd reflection (``reflect_type='odd'``): each reflected value ``v`` becomes
    ``2 * edge - v``, so the padding continues the array's trend instead of mirroring it.
    Not periodic: the padding grows one reflection (of at most the axis's size) at a time,
    each about the outer edge of the last, as in NumPy and JAX."""
    size = x.shape[axis]
    offset = 1 if mode == "reflect" and size > 1 else 0  # reflect skips the edge itself
    for at_start, padding in ((True, before), (False, after)):
        length = x.shape[axis]
        edge = _slice_axis(x, axis, 0, 1) if at_start else _slice_axis(x, axis, length - 1,
                                                                         length)
        while padding > 0:
            length = x.shape[axis]
            chunk = min(padding, size - offset)
            padding -= chunk
            if at_start:
                piece = _slice_axis(x, axis, offset, offset + chunk)
            else:
                piece = _slice_axis(x, axis, length - chunk - offset, length - offset)
            piece = subtract(multiply(2, edge), _rev(piece, (axis,)))
            if size > 1:  # the next reflection is about the new outer edge
                edge = (_slice_axis(piece, axis, 0, 1) if at_start
                        else _slice_axis(piece, axis, chunk - 1, chunk))
            x = _concatenate([piece, x] if at_start else [x, piece], axis)
    return x


def _ramp(start, edge, width: int, axis: int, dtype, weak_type: bool):
    """``width`` values from ``start`` toward ``edge`` (size 1 along ``axis``), ``edge``
    excluded, in ``dtype``: JAX's ``linspace(start, edge, width, endpoint=False)`` formula,
    ``start * (1 - t) + edge * t`` for ``t = i / width`` in the inexact computation dtype,
    integers rounded toward minus infinity, so that integer ramps floor the values JAX's pad
    floors (where the exact value is an integer, rounding can put it just below: JAX pads
    ``[0]`` of int8 by 3 toward 3 as ``3, 1, 0``, NumPy as ``3, 2, 1``)."""
    compute = to_inexact_dtype(dtype)
    real = np.empty(0, compute).real.dtype  # t is real even for complex ramps
    shape = tuple(width if d == axis else 1 for d in range(edge.ndim))
    t = true_divide(iota_p.bind(dtype=real, shape=shape, dimension=axis),
                    Array(np.asarray(width, real)))
    t = convert(t, compute)
    out = add(multiply(convert(start, compute), subtract(1, t)),
              multiply(convert(edge, compute), t))
    if dtypes.is_integer(dtype):
        out = floor(out)
    return convert(out, dtype, weak_type)


def _pad_linear_ramp(x, axis: int, before: int, after: int, end_values):
    """Ramps from ``end_values`` at the outer ends to the edge values (excluded)."""
    size = x.shape[axis]
    parts = [x]
    if before:
        edge = _slice_axis(x, axis, 0, 1)
        parts.insert(0, _ramp(_pair_item(end_values, axis, 0), edge, before, axis, x.dtype,
                              x.weak_type))
    if after:
        edge = _slice_axis(x, axis, size - 1, size)
        ramp = _ramp(_pair_item(end_values, axis, 1), edge, after, axis, x.dtype, x.weak_type)
        parts.append(_rev(ramp, (axis,)))
    return _concatenate(parts, axis)


def _pad_statistic(x, axis: int, before: int, after: int, mode: str, lengths):
    """Pad with a statistic (``maximum``, ``minimum``, ``mean``, ``median``) of the whole
    axis or of its first/last ``lengths`` values; integer statistics round half to even
    before the cast back, as in JAX."""
    size = x.shape[axis]
    statistic = _STATISTICS[mode]

    def value(lo: int, hi: int):
        out = statistic(_slice_axis(x, axis, lo, hi), axis=axis, keepdims=True)
        if dtypes.is_integer(x.dtype):
            out = _round(out)
        return convert(out, x.dtype, x.weak_type)

    if lengths is None:
        whole = value(0, size)
        first = last = whole
    else:
        first = value(0, min(lengths[0], size)) if before else None
        last = value(size - min(lengths[1], size), size) if after else None
    parts = [x]
    if before:
        parts.insert(0, _broadcast_along(first, axis, before))
    if after:
        parts.append(_broadcast_along(last, axis, after))
    return _concatenate(parts, axis)


def _pad_function(x, widths, function, kwargs: dict):
    """A callable mode: ``function(vector, (before, after), axis, kwargs)`` returns each 1-D
    slice of the zero-padded array along each axis in turn, padded (arrays are immutable:
    NumPy's in-place form, which returns None, is refused). Applied through ``vmap``, as in
    JAX."""
    def padded_vector(vector, pair, axis, kwargs):
        out = function(vector, pair, axis, kwargs)
        if out is None:
            raise op_type_error(
                "pad", f"the padding function {function!r} returned None: arrays are "
                       f"immutable, so return the padded vector (for example "
                       f"vector.at[:before].set(value)) instead of writing into it")
        out = asarray_arg("pad", out)
        if out.shape != vector.shape:
            raise op_value_error(
                "pad", f"the padding function {function!r} returned shape {out.shape} for "
                       f"a vector of shape {vector.shape} (axis {axis}); it must return "
                       f"the vector's shape")
        return out

    x = _pad_constant(x, widths, 0)
    for axis in range(x.ndim):
        x = apply_along_axis(padded_vector, axis, x, widths[axis], axis, kwargs)
    return x


# --------------------------------------------------------------------------------------------
# pad
# --------------------------------------------------------------------------------------------

def pad(array: ArrayLike, pad_width: Any, mode: Any = "constant", **kwargs: Any) -> Array:
    """Pad an array, with every mode of ``jax.numpy.pad``.

    ``pad_width`` is ``n``, ``(before, after)`` or one ``(before, after)`` pair per axis, as in
    NumPy; so are ``constant_values``, ``end_values`` and ``stat_length``. ``mode`` is:

    - ``'constant'`` (default): ``constant_values`` (default 0);
    - ``'empty'``: the same as ``'constant'`` with 0 (arrays are never uninitialised);
    - ``'edge'``: the edge values;
    - ``'wrap'``: the array repeated;
    - ``'reflect'``, ``'symmetric'``: the array mirrored about its edge values (``reflect``)
      or its edges (``symmetric``); ``reflect_type='odd'`` reflects each value ``v`` to
      ``2 * edge - v`` instead;
    - ``'linear_ramp'``: a ramp from ``end_values`` (default 0) to the edge value;
    - ``'maximum'``, ``'minimum'``, ``'mean'``, ``'median'``: that statistic of the whole
      axis, or of its first/last ``stat_length`` values; integer statistics round half to
      even, as in JAX;
    - a callable ``f(vector, (before, after), axis, kwargs)``: it gets each 1-D slice along
      each axis in turn, zero-padded, and returns it padded (arrays are immutable: NumPy's
      in-place form is not accepted); ``kwargs`` are the extra keyword arguments of ``pad``.

    Every mode but ``'constant'``, ``'empty'`` and a callable needs a non-empty axis to pad.
    A 0-d array is returned as it is.

    Example:
        >>> import funcarray.numpy as fnp
        >>> x = fnp.array([10, 20, 30, 40])
        >>> fnp.pad(x, (2, 1), mode="reflect")
        Array([30, 20, 10, 20, 30, 40, 30], dtype=int32)
        >>> fnp.pad(x, 2, mode="reflect", reflect_type="odd")
        Array([-10,   0,  10,  20,  30,  40,  50,  60], dtype=int32)
        >>> fnp.pad(fnp.array([2, 3]), 1, mode="mean")
        Array([2, 2, 3, 2], dtype=int32)
        >>> fnp.pad(x, (0, 3), mode="linear_ramp", end_values=(0, 70))
        Array([10, 20, 30, 40, 50, 60, 70], dtype=int32)
        >>> fnp.pad(x, 1, mode="maximum", stat_length=2)
        Array([20, 10, 20, 30, 40, 40], dtype=int32)
        >>> def ends(vector, pair, axis, kwargs):
        ...     before, after = pair
        ...     vector = vector.at[:before].set(kwargs["low"])
        ...     return vector.at[vector.shape[0] - after:].set(kwargs["high"])
        >>> fnp.pad(fnp.array([2, 3, 4]), 2, ends, low=-1, high=9)
        Array([-1, -1,  2,  3,  4,  9,  9], dtype=int32)
    """
    x = asarray_arg("pad", array)
    widths = _int_pairs(pad_width, x.shape, "pad_width")
    if callable(mode):
        return _pad_function(x, widths, mode, kwargs)
    if not isinstance(mode, str) or mode not in _MODE_KWARGS:
        raise op_value_error("pad", f"mode {mode!r} is not supported; use one of "
                                    f"{', '.join(_MODE_KWARGS)} or a callable")
    _check_kwargs(mode, kwargs)
    if mode in ("constant", "empty"):
        return _pad_constant(x, widths, kwargs.get("constant_values", 0))
    reflect_type = kwargs.get("reflect_type", "even")
    if reflect_type not in ("even", "odd"):
        raise op_value_error("pad", f"reflect_type must be 'even' or 'odd', got "
                                    f"{reflect_type!r}")
    if mode == "median" and dtypes.is_complex(x.dtype) and x.ndim:
        raise op_value_error("pad", f"mode 'median' does not support complex arrays (got "
                                   f"{x.dtype}): a median of complex numbers is not defined")
    lengths = None
    if mode in _STATISTICS and kwargs.get("stat_length") is not None:
        lengths = _int_pairs(kwargs["stat_length"], x.shape, "stat_length")
        if any(0 in pair for pair in lengths):
            raise op_value_error("pad", f"stat_length {kwargs['stat_length']!r} contains 0, "
                                        f"which yields no value for mode {mode!r}: give "
                                        f"lengths of at least 1, or None for the whole axis")
    end_values = None
    if mode == "linear_ramp":
        end_values = _value_pairs(
            convert_arg("pad", kwargs.get("end_values", 0), to_inexact_dtype(x.dtype)), x,
            "end_values")
    for axis, (before, after) in enumerate(widths):
        if (before or after) and x.shape[axis] == 0:
            raise op_value_error("pad", f"cannot pad the empty axis {axis} of an array of shape "
                                        f"{x.shape} with mode {mode!r}; use mode='constant'")
    odd = reflect_type == "odd" and mode in ("reflect", "symmetric")
    if odd and x.dtype == dtypes.bool_ and any(b or a for b, a in widths):
        raise op_type_error("pad", f"mode {mode!r} with reflect_type='odd' computes "
                                   f"2 * edge - value, which bool arrays do not support; "
                                   f"use reflect_type='even' or convert to an integer dtype")
    for axis, (before, after) in enumerate(widths):
        if not (before or after):
            continue
        if mode == "edge":
            x = _pad_edge(x, axis, before, after)
        elif odd:
            x = _pad_odd(x, axis, before, after, mode)
        elif mode in ("wrap", "reflect", "symmetric"):
            x = _pad_periodic(x, axis, before, after, mode)
        elif mode == "linear_ramp":
            x = _pad_linear_ramp(x, axis, before, after, end_values)
        else:
            x = _pad_statistic(x, axis, before, after, mode,
                               None if lengths is None else lengths[axis])
    return x
