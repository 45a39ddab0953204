"""``jax.lax``'s convolution helpers: ``conv_general_dilated_patches`` (image patches by a
convolution with an identity kernel, as in JAX, so every transform comes from
``conv_general_dilated``'s rules) and the shape utilities ``conv_general_permutations``,
``conv_shape_tuple``, ``conv_general_shape_tuple`` and ``conv_transpose_shape_tuple``.

Example:
    >>> from funcarray import lax
    >>> lax.conv_general_shape_tuple((1, 8, 8, 3), (3, 3, 3, 16), (2, 2), "SAME",
    ...                              ("NHWC", "HWIO", "NHWC"))
    (1, 4, 4, 16)
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from funcarray.base.array import Array
from funcarray.base.errors import op_type_error, op_value_error
from funcarray.lax._ops_common import _operand_of_kinds, _plain_ints, _short
from funcarray.transforms.host_shortcuts import host_shortcut, host_value

if TYPE_CHECKING:
    from collections.abc import Sequence

    from funcarray.base.typing import ArrayLike, DTypeLike, Shape
    from funcarray.lax._dot_algorithms import ConvGeneralDilatedDimensionNumbers, PrecisionLike
    from funcarray.primitives.convolution import ConvDimensionNumbers

__all__ = ["conv_general_dilated_patches", "conv_general_permutations", "conv_shape_tuple",
           "conv_general_shape_tuple", "conv_transpose_shape_tuple"]


def conv_general_permutations(dimension_numbers: ConvDimensionNumbers | tuple[str, str, str]
                              ) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """For layout strings ``(lhs, rhs, out)`` such as ``("NHWC", "HWIO", "NHWC")``, the
    permutations that bring each operand to XLA's canonical order (batch/output feature,
    feature/input feature, then the spatial axes in the kernel's order).

    Example:
        >>> from funcarray import lax
        >>> lax.conv_general_permutations(("NHWC", "HWIO", "NHWC"))
        ((0, 3, 1, 2), (3, 2, 0, 1), (0, 3, 1, 2))
    """
    op = "lax.conv_general_permutations"
    if (not isinstance(dimension_numbers, (tuple, list)) or len(dimension_numbers) != 3
            or not all(isinstance(s, str) for s in dimension_numbers)):
        raise op_type_error(op, f"dimension_numbers must be three layout strings like "
                                f"('NHWC', 'HWIO', 'NHWC'), got {dimension_numbers!r}")
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    pairs = (("N", "C"), ("O", "I"), ("N", "C"))
    for i, (a, b) in enumerate(pairs):
        spec = dimension_numbers[i]
        if not spec.count(a) == spec.count(b) == 1:
            raise op_type_error(op, f"dimension_numbers[{i}] must contain the characters "
                                    f"'{a}' and '{b}' exactly once, got {spec!r}")
        if len(spec) != len(set(spec)):
            raise op_type_error(op, f"dimension_numbers[{i}] cannot have duplicate "
                                    f"characters, got {spec!r}")
    if not (set(lhs_spec) - set("NC") == set(rhs_spec) - set("OI") == set(out_spec) - set("NC")):
        raise op_type_error(op, f"the layouts must each have the same set of spatial "
                                f"characters, got {dimension_numbers!r}")

    def perm(spec, pair):
        spatial = [i for i, c in enumerate(spec) if c not in pair]
        if spec is not rhs_spec:
            spatial.sort(key=lambda i: rhs_spec.index(spec[i]))
        return (spec.index(pair[0]), spec.index(pair[1]), *spatial)

    return tuple(perm(spec, pair) for spec, pair in zip(dimension_numbers, pairs))


def conv_shape_tuple(lhs_shape: Shape, rhs_shape: Shape, strides: Sequence[int],
                     pads: Sequence[tuple[int, int]], batch_group_count: int = 1
                     ) -> tuple[int, ...]:
    """The output shape of a convolution of operands in canonical order ((N, C, spatial...)
    and (O, I, spatial...)); ``pads`` is a padding string or ``(lo, hi)`` pairs.

    Example:
        >>> from funcarray import lax
        >>> lax.conv_shape_tuple((2, 3, 9, 9), (8, 3, 3, 3), (2, 2), "VALID")
        (2, 8, 4, 4)
    """
    from funcarray.lax._conv import padtype_to_pads

    op = "lax.conv_shape_tuple"
    lhs_shape, rhs_shape = tuple(lhs_shape), tuple(rhs_shape)
    if isinstance(pads, str):
        pads = padtype_to_pads(lhs_shape[2:], rhs_shape[2:], strides, pads)
    if len(pads) != len(lhs_shape) - 2:
        raise op_type_error(op, f"wrong number of explicit pads for convolution: expected "
                                f"{len(lhs_shape) - 2}, got {len(pads)}")
    padded = np.add(lhs_shape[2:], np.sum(np.array(pads, dtype=np.int64).reshape(-1, 2), 1))
    if np.any(padded < 0):
        raise op_value_error(op, f"negative padding is larger than the size of the "
                                 f"corresponding dimension: got padding={pads} for "
                                 f"lhs_shape[2:]={lhs_shape[2:]}")
    out_space = tuple(0 if p < k else (int(p) - k) // s + 1
                      for p, k, s in zip(padded, rhs_shape[2:], strides))
    if batch_group_count > 1:
        if lhs_shape[0] % batch_group_count:
            raise op_value_error(op, f"the batch size {lhs_shape[0]} is not a multiple of "
                                     f"batch_group_count={batch_group_count}")
        batch = lhs_shape[0] // batch_group_count
    else:
        batch = lhs_shape[0]
    return (batch, rhs_shape[0], *out_space)


def conv_general_shape_tuple(lhs_shape: Shape, rhs_shape: Shape,
                             window_strides: Sequence[int],
                             padding: str | Sequence[tuple[int, int]],
                             dimension_numbers: ConvGeneralDilatedDimensionNumbers
                             ) -> tuple[int, ...]:
    """The output shape of a convolution whose layouts are the strings of
    ``dimension_numbers`` (see ``conv_general_permutations``).

    Example:
        >>> from funcarray import lax
        >>> lax.conv_general_shape_tuple((1, 8, 8, 3), (3, 3, 3, 16), (1, 1), "VALID",
        ...                              ("NHWC", "HWIO", "NHWC"))
        (1, 6, 6, 16)
    """
    lhs_perm, rhs_perm, out_perm = conv_general_permutations(dimension_numbers)
    out = conv_shape_tuple(np.take(lhs_shape, lhs_perm), np.take(rhs_shape, rhs_perm),
                           window_strides, padding)
    return tuple(int(d) for d in np.take(out, np.argsort(out_perm)))


def conv_transpose_shape_tuple(lhs_shape: Shape, rhs_shape: Shape,
                               window_strides: Sequence[int],
                               padding: str | Sequence[tuple[int, int]],
                               dimension_numbers: ConvGeneralDilatedDimensionNumbers
                             ) -> tuple[int, ...]:
    """The output shape of ``lax.conv_transpose`` with these layouts.

    Example:
        >>> from funcarray import lax
        >>> lax.conv_transpose_shape_tuple((1, 4, 4, 3), (3, 3, 3, 16), (2, 2), "SAME",
        ...                                ("NHWC", "HWIO", "NHWC"))
        (1, 8, 8, 16)
    """
    from funcarray.lax._conv import _transpose_padding

    lhs_perm, rhs_perm, out_perm = conv_general_permutations(dimension_numbers)
    lhs_t, rhs_t = np.take(lhs_shape, lhs_perm), np.take(rhs_shape, rhs_perm)
    if isinstance(padding, str):
        padding = [_transpose_padding(int(k), s, padding.upper())
                   for k, s in zip(rhs_t[2:], window_strides)]
    totals = [int(np.sum(p)) for p in padding]
    space = [(int(i) - 1) * s - int(k) + 2 + p
             for i, k, s, p in zip(lhs_t[2:], rhs_t[2:], window_strides, totals)]
    out = (int(lhs_t[0]), int(rhs_t[0]), *space)
    return tuple(int(d) for d in np.take(out, np.argsort(out_perm)))


def _patches_on_host(lhs, filter_shape, window_strides, padding, lhs_dilation=None,
                     rhs_dilation=None, dimension_numbers=None, precision=None,
                     preferred_element_type=None):
    """The general path's convolution with an identity kernel, for finite integers and floats
    in the default NCHW layout without dilation: each output is the one window value its
    kernel entry picks, exactly (``x * 1`` plus products with 0, added in any order), but
    for a zero's sign: the kernel's sums start from +0, and ``+0 + -0`` is +0, so every zero
    output is +0. Non-finite values (``0 * inf`` is NaN) take the general path."""
    v = host_value(lhs)
    filter_shape, strides = _plain_ints(filter_shape), _plain_ints(window_strides)
    if (v is None or filter_shape is None or strides is None or v.dtype.kind not in "iuf"
            or lhs_dilation is not None or rhs_dilation is not None
            or dimension_numbers is not None or precision is not None
            or preferred_element_type is not None):
        return NotImplemented
    spatial = v.ndim - 2
    if padding == "VALID":
        padding = ((0, 0),) * spatial
    pads = [_plain_ints(pair) for pair in padding] if type(padding) in (list, tuple) else None
    if (pads is None or spatial < 1 or len(filter_shape) != spatial or len(strides) != spatial
            or len(pads) != spatial or any(p is None or len(p) != 2 or min(p) < 0 for p in pads)
            or min(filter_shape) < 1 or min(strides) < 1 or 0 in v.shape[:2]):
        return NotImplemented
    padded_shape = tuple(d + lo + hi for d, (lo, hi) in zip(v.shape[2:], pads))
    if any(d < f for d, f in zip(padded_shape, filter_shape)):
        return NotImplemented  # (an empty output)
    if v.dtype.kind == "f" and not np.isfinite(v).all():
        return NotImplemented
    if padded_shape == v.shape[2:]:
        padded = v
    else:
        padded = np.zeros(v.shape[:2] + padded_shape, v.dtype)
        padded[(..., *(slice(lo, lo + d) for d, (lo, _) in zip(v.shape[2:], pads)))] = v
    axes = tuple(range(2, v.ndim))
    picks = (..., *(slice(None, None, s) for s in strides), *(slice(None),) * spatial)

    def windows(a):  # (N, C, positions..., filter...)
        return np.lib.stride_tricks.sliding_window_view(a, filter_shape, axis=axes)[picks]

    view = windows(padded)
    n, c, positions = v.shape[0], v.shape[1], view.shape[2:2 + spatial]
    size = math.prod(filter_shape)
    order = (0, 1, *range(2 + spatial, 2 + 2 * spatial), *range(2, 2 + spatial))
    out = view.transpose(order).reshape(n, c * size, *positions)  # (one copy)
    if v.dtype.kind == "f" and not v.all():
        # Adding +0 turns -0 into +0 and keeps every other (finite) value: a new array (out
        # may be a view of lhs, never written into), made only where lhs has a zero.
        out = out + v.dtype.type(0)
    return Array(out)


@host_shortcut(_patches_on_host)
def conv_general_dilated_patches(lhs: ArrayLike, filter_shape: Sequence[int],
                                 window_strides: Sequence[int],
                                 padding: str | Sequence[tuple[int, int]],
                                 lhs_dilation: Sequence[int] | None = None,
                                 rhs_dilation: Sequence[int] | None = None,
                                 dimension_numbers: ConvGeneralDilatedDimensionNumbers = None,
                                 precision: PrecisionLike = None,
                                 preferred_element_type: DTypeLike | None = None) -> Array:
    """The patches of ``lhs`` that a convolution with a ``filter_shape`` kernel sees, each
    flattened into the output's feature dimension (size ``C * prod(filter_shape)``, ordered
    channel first, then the filter's spatial positions), as in jax.lax.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> x = fnp.arange(9.0).reshape(1, 1, 3, 3)  # NCHW
        >>> lax.conv_general_dilated_patches(x, (2, 2), (1, 1), "VALID")[0, :, 0, 0]
        Array([0., 1., 3., 4.], dtype=float32)
    """
    from funcarray import lax
    from funcarray.lax._conv import conv_dimension_numbers

    op = "lax.conv_general_dilated_patches"
    x = _operand_of_kinds(op, lhs, "iuf", "lhs")
    try:
        filter_shape = tuple(int(d) for d in filter_shape)
    except TypeError:
        raise op_type_error(op, f"filter_shape must be a sequence of ints, got "
                                f"{filter_shape!r}") from None
    if len(filter_shape) != x.ndim - 2 or any(d < 1 for d in filter_shape):
        raise op_value_error(op, f"filter_shape {filter_shape} needs one positive size per "
                                 f"spatial axis of lhs {_short(x)} ({x.ndim - 2})")
    numbers = conv_dimension_numbers(x.shape, (1, 1) + filter_shape, dimension_numbers)
    lhs_spec, rhs_spec, _ = numbers
    size = math.prod(filter_shape)
    channels = x.shape[lhs_spec[1]]
    # One output feature per (channel, filter position): each channel's group gets an
    # identity kernel that picks one position per output feature.
    eye = np.eye(size, dtype=x.dtype)
    kernel = np.broadcast_to(eye, (channels, size, size)).reshape(
        channels * size, 1, *filter_shape)
    kernel = np.moveaxis(kernel, (0, 1), (rhs_spec[0], rhs_spec[1]))
    return lax.conv_general_dilated(
        x, np.ascontiguousarray(kernel), window_strides, padding, lhs_dilation=lhs_dilation,
        rhs_dilation=rhs_dilation, dimension_numbers=numbers,
        feature_group_count=channels,
        precision=precision,
        preferred_element_type=preferred_element_type)
