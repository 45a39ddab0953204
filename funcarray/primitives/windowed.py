"""Windowed reductions (pooling): ``reduce_window_sum``, ``reduce_window_max`` and
``reduce_window_min`` (the public ``lax.reduce_window`` is in ``lax/_windowed.py``; other
computations and inits use the general ``reduce_window`` of ``primitives/reduce_general.py``,
which shares ``_windows`` and ``_window_indices`` with these).

Each reduces every window of ``window_dimensions`` (one entry per axis) moved by
``window_strides`` over the operand, after ``base_dilation`` (holes between entries) and
``padding`` (``(lo, hi)`` per axis); holes and padding hold the reduction's identity (0,
-inf, +inf), and ``window_dilation`` spaces the window's taps. Rules:

* eager: a strided ``sliding_window_view`` reduced over the window axes;
* JVP: the sum is linear; max/min take each window's tangent at its first extremum (the
  windows of operand and tangent are gathered with the same static indices, so the rule is
  linear in the tangent and transposes through ``gather``);
* transpose of the sum: the cotangent padded with ``stride - 1`` zeros between entries and a
  border, summed over windows again with ``base_dilation`` as the strides;
* batching: the batch axis becomes a window axis of size 1;
* lowering: ``stablehlo.reduce_window``.

Example:
    >>> import funcarray.numpy as fnp
    >>> reduce_window_max_p.bind(fnp.asarray([1.0, 3.0, 2.0, 0.0]), window_dimensions=(2,),
    ...                          window_strides=(2,), padding=((0, 0),), base_dilation=(1,),
    ...                          window_dilation=(1,))
    Array([3., 2.], dtype=float32)
"""

from __future__ import annotations

import functools
import math

import numpy as np

from funcarray.base import dtypes
from funcarray.base.array import Array
from funcarray.lowering import regions
from funcarray.lowering.regions import _window_output_size
from funcarray.primitives import bind_ops as ops
from funcarray.primitives.convolution import adjoint_padding, dilate_shape
from funcarray.transforms.core import Primitive, ShapedArray
from funcarray.transforms.jvp import Zero, deflinear, tangent_aval

__all__ = ["reduce_window_sum_p", "reduce_window_max_p", "reduce_window_min_p",
           "identity_of", "window_output_shape"]


def identity_of(kind: str, dtype) -> object:
    """The identity of the window reduction ``kind`` for ``dtype`` (what padding holds)."""
    dtype = np.dtype(dtype)
    if kind == "sum":
        return dtype.type(0)
    if dtype == np.bool_:
        return kind == "min"
    if dtypes.is_integer(dtype):
        info = dtypes.iinfo(dtype)
        return info.min if kind == "max" else info.max
    return dtype.type(-np.inf if kind == "max" else np.inf)


def window_output_shape(shape, p) -> tuple:
    return tuple(_window_output_size(size, w, s, lo, hi, b, d) for size, w, s, (lo, hi), b, d
                 in zip(shape, p["window_dimensions"], p["window_strides"], p["padding"],
                        p["base_dilation"], p["window_dilation"]))


def _windows(x: np.ndarray, fill, p) -> np.ndarray:
    """(*output_shape, *window) view of ``x`` dilated and padded with ``fill``."""
    base = p["base_dilation"]
    if any(b > 1 for b in base):
        dilated = np.full(dilate_shape(x.shape, base), fill, x.dtype)
        dilated[tuple(slice(None, None, b) for b in base)] = x
        x = dilated
    pads = p["padding"]
    x = np.pad(x, [(max(lo, 0), max(hi, 0)) for lo, hi in pads], constant_values=fill)
    x = x[tuple(slice(-min(lo, 0), x.shape[i] + min(hi, 0)) for i, (lo, hi) in enumerate(pads))]
    window = dilate_shape(p["window_dimensions"], p["window_dilation"])
    out = window_output_shape(tuple(x.shape), dict(p, padding=((0, 0),) * x.ndim,
                                                   base_dilation=(1,) * x.ndim))
    views = np.lib.stride_tricks.sliding_window_view(x, window)
    return views[(*(slice(None, o * s, s) for o, s in zip(out, p["window_strides"])),
                  *(slice(None, None, d) for d in p["window_dilation"]))]


def _define(kind: str, reduce_fn, hlo_op: str, bool_op: str):
    prim = Primitive(f"reduce_window_{kind}")

    def impl(x, **p):
        v = np.asarray(x._value)
        if 0 in v.shape or 0 in window_output_shape(v.shape, p):
            return Array(np.full(window_output_shape(v.shape, p), identity_of(kind, v.dtype),
                                 v.dtype))
        views = _windows(v, identity_of(kind, v.dtype), p)
        axes = tuple(range(v.ndim, 2 * v.ndim))
        return Array(np.asarray(reduce_fn(views, axes, v.dtype)).astype(v.dtype, copy=False))

    def abstract_eval(x, **p):
        return ShapedArray(window_output_shape(x.shape, p), x.dtype, x.weak_type)

    def batch(vals, dims, **p):
        (x,), (d,) = vals, dims

        def insert(key, value):
            entries = list(p[key])
            entries.insert(d, value)
            return tuple(entries)

        new = dict(window_dimensions=insert("window_dimensions", 1),
                   window_strides=insert("window_strides", 1),
                   padding=insert("padding", (0, 0)), base_dilation=insert("base_dilation", 1),
                   window_dilation=insert("window_dilation", 1))
        return prim.bind(x, **new), d

    def lower(ctx, x, **p):
        (aval,) = ctx.avals_in
        init = ctx.constant(identity_of(kind, aval.dtype), ShapedArray((), aval.dtype))
        op = bool_op if aval.dtype == np.bool_ else hlo_op
        return regions.reduce_window(
            ctx, [x], [init], op, window_dimensions=p["window_dimensions"],
            window_strides=p["window_strides"], padding=p["padding"],
            base_dilations=p["base_dilation"], window_dilations=p["window_dilation"])

    prim.impl, prim.abstract_eval, prim.batch_rule, prim.lower_rule = (
        impl, abstract_eval, batch, lower)
    return prim


reduce_window_sum_p = _define("sum", lambda v, axes, dt: v.sum(axis=axes, dtype=dt),
                              "stablehlo.add", "stablehlo.or")
reduce_window_max_p = _define("max", lambda v, axes, dt: v.max(axis=axes),
                              "stablehlo.maximum", "stablehlo.or")
reduce_window_min_p = _define("min", lambda v, axes, dt: v.min(axis=axes),
                              "stablehlo.minimum", "stablehlo.and")
deflinear(reduce_window_sum_p)


@reduce_window_sum_p.def_transpose
def _sum_transpose(ct, x, **p):
    if type(ct) is Zero:
        return [None]
    shape = x.aval.shape
    pads = adjoint_padding(dilate_shape(shape, p["base_dilation"]),
                           dilate_shape(p["window_dimensions"], p["window_dilation"]),
                           dilate_shape(ct.shape, p["window_strides"]), p["padding"])
    config = [(lo, hi, stride - 1) for (lo, hi), stride in zip(pads, p["window_strides"])]
    padded = ops.pad(ct, ops.scalar(0, ct.dtype), config)
    ones = (1,) * len(shape)
    return [reduce_window_sum_p.bind(
        padded, window_dimensions=p["window_dimensions"], window_strides=p["base_dilation"],
        padding=((0, 0),) * len(shape), base_dilation=ones, window_dilation=p["window_dilation"])]


@functools.lru_cache(maxsize=256)
def _window_indices(shape: tuple, key: tuple) -> np.ndarray:
    """Flat indices into the dilated, padded operand of every window's taps, shaped
    (*output_shape, window_size) (static: computed once per shape and parameters)."""
    p = dict(key)
    ndim = len(shape)
    padded = tuple(s + lo + hi for s, (lo, hi) in
                   zip(dilate_shape(shape, p["base_dilation"]), p["padding"]))
    out = window_output_shape(shape, p)
    if ndim == 0:
        return np.zeros((1,), np.int64)
    coords = []
    for k, (o, s, w, d) in enumerate(zip(out, p["window_strides"], p["window_dimensions"],
                                         p["window_dilation"])):
        grid = np.arange(o)[:, None] * s + np.arange(w)[None, :] * d  # position x tap
        shape_k = [1] * (2 * ndim)
        shape_k[k], shape_k[ndim + k] = o, w  # axes (outputs..., taps...)
        coords.append(grid.reshape(shape_k))
    flat = np.ravel_multi_index(tuple(np.broadcast_arrays(*coords)), padded)
    return flat.reshape(*out, math.prod(p["window_dimensions"]))  # (no -1: out may be empty)


def _chooser_jvp(prim, kind: str):
    def jvp(primals, tangents, **p):
        (x,), (t,) = primals, tangents
        out = prim.bind(x, **p)
        if type(t) is Zero or 0 in out.shape:  # (no window: nothing to choose from)
            return out, Zero(tangent_aval(out.aval))
        key = tuple(sorted(p.items()))
        index = Array(_window_indices(tuple(x.shape), key))
        config = [(lo, hi, b - 1) for (lo, hi), b in zip(p["padding"], p["base_dilation"])]

        def windows(v, fill):
            padded = ops.pad(v, ops.scalar(fill, v.dtype), config)
            return ops.take(ops.reshape(padded, (math.prod(padded.shape),)), index)

        x_windows = windows(x, identity_of(kind, x.dtype))
        t_windows = windows(t, 0)
        last = x_windows.ndim - 1
        choice = (ops.argmax if kind == "max" else ops.argmin)(x_windows, last, np.int32)
        chosen = ops.take_along_axis(t_windows, ops.expand_dims(choice, last), last)
        return out, ops.squeeze(chosen, (last,))
    prim.jvp_rule = jvp


_chooser_jvp(reduce_window_max_p, "max")
_chooser_jvp(reduce_window_min_p, "min")
