"""``conv_general_dilated``: XLA's convolution (the public wrappers are ``lax/_conv.py``).

``conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation,
dimension_numbers, feature_group_count, batch_group_count, precision,
preferred_element_type)`` with ``dimension_numbers = ConvDimensionNumbers(lhs_spec, rhs_spec,
out_spec)``: each spec lists the positions of (batch, feature, spatial...) in the lhs and
output, and of (out feature, in feature, spatial...) in the kernel. It computes a
cross-correlation (no kernel flip): the lhs is dilated (``lhs_dilation - 1`` zeros between
entries), padded (``(lo, hi)`` per spatial axis, negative crops), the dilated kernel slides
with ``window_strides``; ``feature_group_count`` splits features into independent groups,
``batch_group_count`` splits the batch into groups matched with output-feature groups.

Rules:
* eager: a strided window view of the dilated, padded lhs contracted with the kernel by one
  ``np.einsum`` per call (in float32 for 16-bit floats, as XLA on CPU);
* JVP: bilinear (``defbilinear``);
* transpose: the cotangent of the lhs is a convolution of the output cotangent with the
  spatially reversed kernel (strides become lhs dilation); that of the kernel is a
  convolution of the lhs with the output cotangent as kernel (strides become kernel
  dilation; feature and batch groups trade places). Padding makes the shapes come out right;
  the formulas are the standard adjoint identities, checked against jax.grad in the tests;
* batching: operands in canonical layout, a batch axis folded into the batch dimension
  (lhs only), into the output features (kernel only) or into feature groups (both), and
  split out of the result;
* lowering: ``stablehlo.convolution``.

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray import lax
    >>> lax.conv(fnp.ones((1, 1, 4)), fnp.ones((1, 1, 2)), (1,), "VALID")
    Array([[[2., 2., 2.]]], dtype=float32)
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np

from funcarray.base.array import Array
from funcarray.lowering.regions import _window_output_size
from funcarray.primitives import bind_ops as ops
from funcarray.primitives.dot_general import _precision_attribute, accumulation_dtype
from funcarray.transforms.core import Primitive, ShapedArray
from funcarray.transforms.jvp import Zero, defbilinear
from funcarray.transforms.transpose import is_undefined
from funcarray.transforms.vmap import move_to_front

__all__ = ["conv_general_dilated_p", "ConvDimensionNumbers", "conv_output_shape",
           "dilate_shape", "adjoint_padding", "contract_windows"]


class ConvDimensionNumbers(NamedTuple):
    """Positions of (batch, feature, spatial...) in lhs and output, of (out feature, in
    feature, spatial...) in the kernel (JAX's ``ConvDimensionNumbers``)."""

    lhs_spec: tuple
    rhs_spec: tuple
    out_spec: tuple


conv_general_dilated_p = Primitive("conv_general_dilated")


def dilate_shape(shape, dilation) -> tuple:
    """Sizes after inserting ``dilation - 1`` zeros between entries (0 stays 0)."""
    return tuple(0 if s == 0 else 1 + d * (s - 1) for s, d in zip(shape, dilation))


def adjoint_padding(in_dilated, window_dilated, out_dilated, padding) -> tuple:
    """The ``(lo, hi)`` padding under which sliding a (reversed) window over the output,
    dilated by the strides, gives back the input's size: the transpose of a windowed op with
    ``padding`` (convolution's lhs cotangent, reduce_window_sum's cotangent)."""
    pairs = []
    for size, w, o, (lo, _) in zip(in_dilated, window_dilated, out_dilated, padding):
        before = w - lo - 1
        pairs.append((before, size + w - 1 - o - before))
    return tuple(pairs)


def conv_output_shape(lhs_shape, rhs_shape, window_strides, padding, lhs_dilation,
                      rhs_dilation, dimension_numbers, batch_group_count) -> tuple:
    """The output shape, in ``out_spec`` order."""
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    spatial = [_window_output_size(lhs_shape[dl], rhs_shape[dr], stride, lo, hi, ld, rd)
               for dl, dr, stride, (lo, hi), ld, rd in zip(
                   lhs_spec[2:], rhs_spec[2:], window_strides, padding, lhs_dilation,
                   rhs_dilation)]
    out = [0] * len(out_spec)
    out[out_spec[0]] = lhs_shape[lhs_spec[0]] // batch_group_count
    out[out_spec[1]] = rhs_shape[rhs_spec[0]]
    for d, size in zip(out_spec[2:], spatial):
        out[d] = size
    return tuple(out)


@conv_general_dilated_p.def_abstract_eval
def _abstract_eval(lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
                   dimension_numbers, feature_group_count, batch_group_count, precision,
                   preferred_element_type):
    shape = conv_output_shape(lhs.shape, rhs.shape, window_strides, padding, lhs_dilation,
                              rhs_dilation, dimension_numbers, batch_group_count)
    dtype = lhs.dtype if preferred_element_type is None else np.dtype(preferred_element_type)
    return ShapedArray(shape, dtype, lhs.weak_type and rhs.weak_type)


# --- eager kernel ----------------------------------------------------------------------------

def _dilate_and_pad(x, lhs_dilation, padding):
    """``x`` (N, C, spatial...) with zeros between entries and ``padding`` applied
    (negative padding crops)."""
    if any(d > 1 for d in lhs_dilation):
        out = np.zeros(x.shape[:2] + dilate_shape(x.shape[2:], lhs_dilation), x.dtype)
        out[(slice(None), slice(None), *(slice(None, None, d) for d in lhs_dilation))] = x
        x = out
    grow = [(max(lo, 0), max(hi, 0)) for lo, hi in padding]
    if any(p != (0, 0) for p in grow):  # (zeros and one assignment: np.pad costs ~15 us)
        out = np.zeros(x.shape[:2] + tuple(s + lo + hi for s, (lo, hi) in zip(x.shape[2:], grow)),
                       x.dtype)
        out[(slice(None), slice(None), *(slice(lo, lo + s) for s, (lo, _) in
                                         zip(x.shape[2:], grow)))] = x
        x = out
    crop = (slice(None), slice(None), *(slice(-min(lo, 0), x.shape[2 + i] + min(hi, 0))
                                        for i, (lo, hi) in enumerate(padding)))
    return x[crop]


def _conv_nchw(x, w, window_strides, padding, lhs_dilation, rhs_dilation, groups,
               batch_groups):
    """The convolution of canonical-layout operands: x (N, C, S...), w (O, I, K...)."""
    n_spatial = x.ndim - 2
    x = _dilate_and_pad(x, lhs_dilation, padding)
    window = dilate_shape(w.shape[2:], rhs_dilation)
    out_spatial = [max(0, (x.shape[2 + i] - window[i]) // window_strides[i] + 1)
                   if x.shape[2 + i] >= window[i] else 0 for i in range(n_spatial)]
    if 0 in out_spatial or 0 in x.shape[:2] or 0 in w.shape:
        n = x.shape[0] // batch_groups
        return np.zeros((n, w.shape[0], *out_spatial), x.dtype)
    views = np.lib.stride_tricks.sliding_window_view(x, window, axis=tuple(range(2, x.ndim)))
    # (N, C, P..., Kd...): take every stride-th position and every dilation-th tap
    views = views[(slice(None), slice(None),
                   *(slice(None, out_spatial[i] * window_strides[i], window_strides[i])
                     for i in range(n_spatial)),
                   *(slice(None, None, d) for d in rhs_dilation))]
    p = "".join(chr(ord("p") + i) for i in range(n_spatial))  # output positions
    k = "".join(chr(ord("h") + i) for i in range(n_spatial))  # kernel taps
    n, c = x.shape[:2]
    o = w.shape[0]
    multiply_adds = views.size * w.shape[0] // max(groups * batch_groups, 1)
    if batch_groups > 1:  # batch group g pairs with output-feature group g
        views = views.reshape(batch_groups, n // batch_groups, c, *views.shape[2:])
        wg = w.reshape(batch_groups, o // batch_groups, *w.shape[1:])
        out = contract_windows(f"gnc{p}{k},goc{k}->ngo{p}", views, wg, multiply_adds)
        return out.reshape(n // batch_groups, o, *out.shape[3:])
    views = views.reshape(n, groups, c // groups, *views.shape[2:])
    wg = w.reshape(groups, o // groups, *w.shape[1:])
    out = contract_windows(f"ngc{p}{k},goc{k}->ngo{p}", views, wg, multiply_adds)
    return out.reshape(n, o, *out.shape[3:])


# Multiply-adds (roughly) below which einsum contracts directly, without its path search.
_EINSUM_SEARCH_MIN = 1 << 14

try:  # NumPy's C einsum, which np.einsum(optimize=False) calls after ~0.4 us of Python
    from numpy._core.multiarray import c_einsum as _direct_einsum
except ImportError:  # (a private name: NumPy may move it)
    _direct_einsum = functools.partial(np.einsum, optimize=False)


def contract_windows(subscripts: str, views, weights, multiply_adds: int):
    """The eager kernel's one contraction: ``np.einsum(subscripts, views, weights)``.
    einsum's contraction-order search (optimize=True, which then calls BLAS) costs ~30 us a
    call: it is worth it only above ``_EINSUM_SEARCH_MIN`` multiply-adds. Its rounding depends
    on the operands' strides, so a caller that builds the windows itself (numpy's
    convolve/correlate shortcut) gives them the kernel's layout."""
    if multiply_adds > _EINSUM_SEARCH_MIN:
        return np.einsum(subscripts, views, weights, optimize=True)
    return _direct_einsum(subscripts, views, weights)


@conv_general_dilated_p.def_impl
def _impl(lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
          dimension_numbers, feature_group_count, batch_group_count, precision,
          preferred_element_type):
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    x, w = np.asarray(lhs._value), np.asarray(rhs._value)
    out_dtype = x.dtype if preferred_element_type is None else np.dtype(preferred_element_type)
    acc = accumulation_dtype(x.dtype, out_dtype)
    x = np.transpose(x, lhs_spec).astype(acc, copy=False)
    w = np.transpose(w, rhs_spec).astype(acc, copy=False)
    out = _conv_nchw(x, w, window_strides, padding, lhs_dilation, rhs_dilation,
                     feature_group_count, batch_group_count)
    out = np.transpose(out, np.argsort(out_spec))
    return Array(np.ascontiguousarray(out).astype(out_dtype, copy=False)
                 if out.ndim else out.astype(out_dtype))


defbilinear(conv_general_dilated_p)


# --- transposes (reverse mode) ----------------------------------------------------------------

def _swap_first_two(spec):
    return (spec[1], spec[0], *spec[2:])


def _split_axis(x, axis, parts):
    """``x`` with axis ``axis`` split into (parts, size // parts), the parts first."""
    shape = x.shape
    return ops.reshape(x, shape[:axis] + (parts, shape[axis] // parts) + shape[axis + 1:])


def _merge_axes(x, src, dst):
    """Move axis ``src`` next to (before) axis ``dst`` and merge the two (``src`` major)."""
    x = ops.moveaxis(x, src, dst if dst < src else dst - 1)
    dst = dst if dst < src else dst - 1
    shape = x.shape
    return ops.reshape(x, shape[:dst] + (shape[dst] * shape[dst + 1],) + shape[dst + 2:])


def _transpose_lhs(ct, rhs, lhs_aval, params):
    lhs_spec, rhs_spec, out_spec = params["dimension_numbers"]
    strides, padding = params["window_strides"], params["padding"]
    lhs_dil, rhs_dil = params["lhs_dilation"], params["rhs_dilation"]
    groups, batch_groups = params["feature_group_count"], params["batch_group_count"]
    kernel_spatial = [rhs.shape[d] for d in rhs_spec[2:]]
    if groups > 1 or batch_groups > 1:
        # the kernel's out-feature groups become in-feature groups of the transposed conv
        count = max(groups, batch_groups)
        rhs = _split_axis(rhs, rhs_spec[0], count)  # (count, O/count) at rhs_spec[0]
        o_axis, i_axis = rhs_spec[0], rhs_spec[1] + (rhs_spec[1] > rhs_spec[0])
        rhs = _merge_axes(rhs, o_axis, i_axis)
    new_padding = adjoint_padding(
        dilate_shape([lhs_aval.shape[d] for d in lhs_spec[2:]], lhs_dil),
        dilate_shape(kernel_spatial, rhs_dil),
        dilate_shape([ct.shape[d] for d in out_spec[2:]], strides), padding)
    numbers = ConvDimensionNumbers(out_spec, _swap_first_two(rhs_spec), lhs_spec)
    out = conv_general_dilated_p.bind(
        ct, ops.rev(rhs, rhs_spec[2:]), window_strides=lhs_dil,
        padding=new_padding, lhs_dilation=strides, rhs_dilation=rhs_dil,
        dimension_numbers=numbers, feature_group_count=max(groups, batch_groups),
        batch_group_count=1, precision=params["precision"],
        preferred_element_type=params["preferred_element_type"])
    if batch_groups > 1:
        # the features came out grouped (batch group, batch): move the groups back to batch
        out = _split_axis(out, lhs_spec[1], batch_groups)
        out = _merge_axes(out, lhs_spec[1], lhs_spec[0] + (lhs_spec[0] > lhs_spec[1]))
    return ops.convert(out, lhs_aval.dtype) if out.dtype != lhs_aval.dtype else out


def _transpose_rhs(ct, lhs, rhs_aval, params):
    lhs_spec, rhs_spec, out_spec = params["dimension_numbers"]
    strides, padding = params["window_strides"], params["padding"]
    lhs_dil, rhs_dil = params["lhs_dilation"], params["rhs_dilation"]
    groups, batch_groups = params["feature_group_count"], params["batch_group_count"]
    in_spatial = dilate_shape([lhs.shape[d] for d in lhs_spec[2:]], lhs_dil)
    window = dilate_shape([rhs_aval.shape[d] for d in rhs_spec[2:]], rhs_dil)
    out_spatial = dilate_shape([ct.shape[d] for d in out_spec[2:]], strides)
    new_padding = tuple((lo, o - size + w - lo - 1)
                        for size, w, o, (lo, _) in zip(in_spatial, window, out_spatial, padding))
    numbers = ConvDimensionNumbers(_swap_first_two(lhs_spec), _swap_first_two(out_spec),
                                   _swap_first_two(rhs_spec))
    out = conv_general_dilated_p.bind(
        lhs, ct, window_strides=rhs_dil, padding=new_padding, lhs_dilation=lhs_dil,
        rhs_dilation=strides, dimension_numbers=numbers, feature_group_count=batch_groups,
        batch_group_count=groups, precision=params["precision"],
        preferred_element_type=params["preferred_element_type"])
    return ops.convert(out, rhs_aval.dtype) if out.dtype != rhs_aval.dtype else out


@conv_general_dilated_p.def_transpose
def _transpose(ct, lhs, rhs, **params):
    if type(ct) is Zero:
        return [None, None]
    if is_undefined(lhs) and is_undefined(rhs):
        raise TypeError("conv_general_dilated is bilinear: transpose it in one operand")
    if is_undefined(lhs):
        return [_transpose_lhs(ct, rhs, lhs.aval, params), None]
    return [None, _transpose_rhs(ct, lhs, rhs.aval, params)]


# --- batching --------------------------------------------------------------------------------

@conv_general_dilated_p.def_batch
def _batch(vals, dims, **params):
    lhs, rhs = vals
    lhs_dim, rhs_dim = dims
    size = lhs.shape[lhs_dim] if lhs_dim is not None else rhs.shape[rhs_dim]
    lhs_spec, rhs_spec, out_spec = params["dimension_numbers"]
    groups, batch_groups = params["feature_group_count"], params["batch_group_count"]
    # canonical layouts with the vmap axis in front: lhs (B, N, C, S...), rhs (B, O, I, K...)
    if lhs_dim is not None:
        lhs = ops.transpose(move_to_front(lhs, lhs_dim, size), (0, *(d + 1 for d in lhs_spec)))
    else:
        lhs = ops.transpose(lhs, lhs_spec)
    if rhs_dim is not None:
        rhs = ops.transpose(move_to_front(rhs, rhs_dim, size), (0, *(d + 1 for d in rhs_spec)))
    else:
        rhs = ops.transpose(rhs, rhs_spec)
    n_spatial = len(lhs_spec) - 2
    canonical = tuple(range(n_spatial + 2))
    new = dict(params, dimension_numbers=ConvDimensionNumbers(canonical, canonical, canonical))
    if rhs_dim is None:  # fold B into the batch dimension, inside each batch group
        b, n = lhs.shape[:2]
        lhs = _split_axis(lhs, 1, batch_groups)  # (B, G, N/G, ...)
        lhs = ops.reshape(ops.moveaxis(lhs, 0, 1), (b * n, *lhs.shape[3:]))  # (G, B, N/G) merged
        out = conv_general_dilated_p.bind(lhs, rhs, **new)  # (B * N/G, O, ...)
        out = ops.reshape(out, (b, out.shape[0] // b, *out.shape[1:]))
    elif lhs_dim is None:  # fold B into the output features, inside each feature group
        b, o = rhs.shape[:2]
        count = max(groups, batch_groups)
        rhs = _split_axis(rhs, 1, count)  # (B, count, O/count, ...)
        rhs = ops.reshape(ops.moveaxis(rhs, 0, 1), (b * o, *rhs.shape[3:]))  # (count, B, O/count)
        out = conv_general_dilated_p.bind(lhs, rhs, **new)  # (N', count*B*O/count, ...)
        out = _split_axis(out, 1, count)  # (N', count, B*O/count, ...)
        out = _split_axis(out, 2, b)  # (N', count, B, O/count, ...)
        out = ops.moveaxis(out, 2, 0)
        out = ops.reshape(out, (b, out.shape[1], o, *out.shape[4:]))
    else:  # both: B more feature groups (or batch groups) of the same convolution
        b, n, c = lhs.shape[:3]
        o = rhs.shape[1]
        if batch_groups > 1:
            lhs = ops.reshape(lhs, (b * n, *lhs.shape[2:]))  # batch groups (B, G), B major
            rhs = ops.reshape(rhs, (b * o, *rhs.shape[2:]))
            new["batch_group_count"] = b * batch_groups
        else:
            lhs = ops.reshape(ops.moveaxis(lhs, 0, 1), (n, b * c, *lhs.shape[3:]))
            rhs = ops.reshape(rhs, (b * o, *rhs.shape[2:]))
            new["feature_group_count"] = b * groups
        out = conv_general_dilated_p.bind(lhs, rhs, **new)  # (N', B*O, ...)
        out = ops.moveaxis(_split_axis(out, 1, b), 1, 0)
    # out: (B, N', O, S...) canonical -> the caller's out_spec, B in front
    return ops.transpose(out, (0, *(int(i) + 1 for i in np.argsort(out_spec)))), 0


# --- lowering --------------------------------------------------------------------------------

def _labels(spec, first: str, second: str) -> str:
    labels = [""] * len(spec)
    labels[spec[0]], labels[spec[1]] = first, second
    for i, d in enumerate(spec[2:]):
        labels[d] = str(i)
    return "[" + ", ".join(labels) + "]"


def _i64_array(values) -> str:
    return "array<i64" + (": " + ", ".join(str(int(v)) for v in values) if values else "") + ">"


def _complex_as_real_convolutions(ctx, lhs, rhs, out_aval, attributes) -> str:
    """A complex convolution as three real ones, for XLA's GPU backend, which has none
    (as jax does there): with ``a = ar + i ai`` and ``b = br + i bi``, ``k1 = (ar + ai) * br``,
    ``k2 = ar * (bi - br)``, ``k3 = ai * (br + bi)`` give ``a * b = (k1 - k3) + i (k1 + k2)``."""
    def part(x, name, aval):
        return ctx.op(f"stablehlo.{name}", x, results=[aval.update(dtype=real)])[0]

    def binary(name, x, y, aval):
        return ctx.op(f"stablehlo.{name}", x, y, results=[aval])[0]

    lhs_aval, rhs_aval = ctx.type_of(lhs), ctx.type_of(rhs)
    real = np.dtype(lhs_aval.dtype).type(0).real.dtype
    lhs_r, rhs_r = lhs_aval.update(dtype=real), rhs_aval.update(dtype=real)
    out_r = out_aval.update(dtype=real)
    ar, ai = part(lhs, "real", lhs_aval), part(lhs, "imag", lhs_aval)
    br, bi = part(rhs, "real", rhs_aval), part(rhs, "imag", rhs_aval)

    def conv(x, y):
        return ctx.op("stablehlo.convolution", x, y, results=[out_r], attributes=attributes)[0]

    k1 = conv(binary("add", ar, ai, lhs_r), br)
    k2 = conv(ar, binary("subtract", bi, br, rhs_r))
    k3 = conv(ai, binary("add", br, bi, rhs_r))
    return ctx.op("stablehlo.complex", binary("subtract", k1, k3, out_r),
                  binary("add", k1, k2, out_r), results=[out_aval])[0]


def _dims_xla_would_misswap(lhs_shape, rhs_shape, lhs_spec, rhs_spec, strides, padding,
                            lhs_dilation, rhs_dilation, feature_groups, batch_groups):
    """The spatial dimensions that XLA's convolution operand swap mistakes for group
    dimensions: unpadded, undilated kernel of size k with lhs dilation k and stride k - 1 over
    an input of another size. XLA copies such a dimension's window unchanged when it swaps
    the operands (it swaps ungrouped convolutions whose kernel outweighs the input), builds
    an invalid convolution and aborts the process (jax crashes the same way). A reversed
    kernel under ``window_reversal`` computes the same convolution and is swapped correctly."""
    if feature_groups != 1 or batch_groups != 1:
        return ()
    return tuple(
        d for d, (stride, (lo, hi), lhs_dil, rhs_dil) in enumerate(
            zip(strides, padding, lhs_dilation, rhs_dilation))
        if (lo, hi) == (0, 0) and rhs_dil == 1 and lhs_dil == rhs_shape[rhs_spec[2 + d]]
        and stride == lhs_dil - 1 and lhs_shape[lhs_spec[2 + d]] != lhs_dil)


@conv_general_dilated_p.def_lower
def _lower(ctx, lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
           dimension_numbers, feature_group_count, batch_group_count, precision,
           preferred_element_type):
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    lhs_aval, rhs_aval = ctx.avals_in
    (out_aval,) = ctx.avals_out
    acc = accumulation_dtype(lhs_aval.dtype, out_aval.dtype)
    if lhs_aval.dtype != acc:  # operands in the accumulation dtype, as the eager kernel
        lhs = ctx.op("stablehlo.convert", lhs, results=[lhs_aval.update(dtype=acc)])[0]
        rhs = ctx.op("stablehlo.convert", rhs, results=[rhs_aval.update(dtype=acc)])[0]
    numbers = (f"#stablehlo.conv<{_labels(lhs_spec, 'b', 'f')}x"
               f"{_labels(rhs_spec, 'o', 'i')}->{_labels(out_spec, 'b', 'f')}>")
    n = len(padding)
    pads = ", ".join(f"[{lo}, {hi}]" for lo, hi in padding)
    attributes = {
        "batch_group_count": f"{batch_group_count} : i64",
        "dimension_numbers": numbers,
        "feature_group_count": f"{feature_group_count} : i64",
        "lhs_dilation": _i64_array(lhs_dilation),
        "padding": f"dense<[{pads}]> : tensor<{n}x2xi64>" if n else "dense<> : tensor<0x2xi64>",
        "precision_config": _precision_attribute(precision, acc),
        "rhs_dilation": _i64_array(rhs_dilation),
        "window_strides": _i64_array(window_strides),
    }
    reversed_dims = _dims_xla_would_misswap(lhs_aval.shape, rhs_aval.shape, lhs_spec, rhs_spec,
                                            window_strides, padding, lhs_dilation, rhs_dilation,
                                            feature_group_count, batch_group_count)
    if reversed_dims:
        rhs = ctx.op("stablehlo.reverse", rhs, results=[ctx.type_of(rhs)], attributes={
            "dimensions": _i64_array(rhs_spec[2 + d] for d in reversed_dims)})[0]
        attributes["window_reversal"] = "array<i1: " + ", ".join(
            "true" if d in reversed_dims else "false" for d in range(n)) + ">"
    acc_aval = out_aval.update(dtype=acc)
    if np.dtype(acc).kind == "c" and ctx.platform not in ("cpu", None):
        out = _complex_as_real_convolutions(ctx, lhs, rhs, acc_aval, attributes)
    else:
        (out,) = ctx.op("stablehlo.convolution", lhs, rhs, results=[acc_aval],
                        attributes=attributes)
    if acc != out_aval.dtype:
        out = ctx.op("stablehlo.convert", out, results=[out_aval])[0]
    return [out]
