"""Convolutions, as in ``jax.lax``: ``conv_general_dilated``, ``conv``,
``conv_with_general_padding``, ``conv_transpose``, ``conv_dimension_numbers``,
``ConvDimensionNumbers`` and ``conv_general_dilated_local`` (unshared convolution, composed
from the patches and ``dot_general``). The primitive and its rules are
``primitives/convolution.py``.

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray import lax
    >>> images = fnp.ones((2, 5, 5, 3))  # NHWC
    >>> kernel = fnp.ones((3, 3, 3, 8))  # HWIO
    >>> lax.conv_general_dilated(images, kernel, (1, 1), "SAME",
    ...                          dimension_numbers=("NHWC", "HWIO", "NHWC")).shape
    (2, 5, 5, 8)
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING

import numpy as np

from funcarray.api.arguments import _moveaxes, _rev
from funcarray.base.errors import op_type_error, op_value_error
from funcarray.lax._ops_common import _operand, _operand_of_kinds, _short
from funcarray.primitives.convolution import (
    ConvDimensionNumbers,
    conv_general_dilated_p,
    dilate_shape,
)
from funcarray.primitives.dot_general import PRECISION_NAMES, can_accumulate_in

if TYPE_CHECKING:
    from collections.abc import Sequence

    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike, DTypeLike, Shape
    from funcarray.lax._dot_algorithms import ConvGeneralDilatedDimensionNumbers, PrecisionLike

__all__ = ["conv_general_dilated", "conv", "conv_with_general_padding", "conv_transpose",
           "conv_dimension_numbers", "ConvDimensionNumbers", "padtype_to_pads",
           "conv_general_dilated_local"]
# (positive_ints and padding_pairs are shared with lax/_windowed.py, not re-exported)

_OP = "lax.conv_general_dilated"


def conv_dimension_numbers(lhs_shape: Shape, rhs_shape: Shape,
                           dimension_numbers: ConvGeneralDilatedDimensionNumbers
                           ) -> ConvDimensionNumbers:
    """``ConvDimensionNumbers`` from None (NCHW / OIHW / NCHW), a triple of layout strings
    such as ``("NHWC", "HWIO", "NHWC")`` (spatial axes matched by letter, in the kernel's
    order), or ConvDimensionNumbers itself.

    Example:
        >>> conv_dimension_numbers((1, 5, 5, 3), (3, 3, 3, 8), ("NHWC", "HWIO", "NHWC"))
        ConvDimensionNumbers(lhs_spec=(0, 3, 1, 2), rhs_spec=(3, 2, 0, 1), out_spec=(0, 3, 1, 2))
    """
    ndim = len(lhs_shape)
    if len(rhs_shape) != ndim:
        raise op_type_error(_OP, f"lhs and rhs must have the same rank, got shapes "
                                 f"{tuple(lhs_shape)} and {tuple(rhs_shape)}")
    if dimension_numbers is None:
        default = tuple(range(ndim))
        return ConvDimensionNumbers(default, default, default)
    if isinstance(dimension_numbers, ConvDimensionNumbers):
        specs = dimension_numbers
    elif (isinstance(dimension_numbers, (tuple, list)) and len(dimension_numbers) == 3
          and all(isinstance(s, str) for s in dimension_numbers)):
        specs = _from_strings(*dimension_numbers)
    else:
        raise op_type_error(_OP, f"dimension_numbers must be None, ConvDimensionNumbers or "
                                 f"three layout strings like ('NHWC', 'HWIO', 'NHWC'), got "
                                 f"{dimension_numbers!r}")
    for name, spec in zip(("lhs", "rhs", "out"), specs):
        if sorted(spec) != list(range(ndim)):
            raise op_value_error(_OP, f"the {name} spec {tuple(spec)} must be a permutation "
                                      f"of 0..{ndim - 1} for operands of rank {ndim}")
    return ConvDimensionNumbers(*(tuple(int(d) for d in spec) for spec in specs))


def _from_strings(lhs, rhs, out) -> ConvDimensionNumbers:
    if not (len(lhs) == len(rhs) == len(out)):
        raise op_value_error(_OP, f"layout strings must have one length, got {lhs!r}, {rhs!r}, "
                                  f"{out!r}")
    for spec, pair in ((lhs, "NC"), (rhs, "OI"), (out, "NC")):
        if any(spec.count(c) != 1 for c in pair) or len(set(spec)) != len(spec):
            raise op_value_error(_OP, f"layout {spec!r} must name {pair[0]} and {pair[1]} once "
                                      f"each and every spatial axis once")
    spatial = [c for c in rhs if c not in "OI"]
    for spec, pair in ((lhs, "NC"), (out, "NC")):
        if sorted(c for c in spec if c not in pair) != sorted(spatial):
            raise op_value_error(_OP, f"layout {spec!r} has other spatial axes than the "
                                      f"kernel's {rhs!r}")

    def perm(spec, pair):
        return (spec.index(pair[0]), spec.index(pair[1]), *(spec.index(c) for c in spatial))

    return ConvDimensionNumbers(perm(lhs, "NC"), perm(rhs, "OI"), perm(out, "NC"))


def padtype_to_pads(in_shape: Shape, window_shape: Shape, window_strides: Sequence[int],
                    padding: str | Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """``(lo, hi)`` per spatial axis for ``"VALID"``, ``"SAME"`` (output size
    ``ceil(in / stride)``, extra padding at the end) or ``"SAME_LOWER"`` (extra at the start).

    Example:
        >>> padtype_to_pads((5,), (3,), (2,), "SAME")
        [(1, 1)]
    """
    kind = padding.upper()
    if kind == "VALID":
        return [(0, 0)] * len(in_shape)
    if kind not in ("SAME", "SAME_LOWER"):
        raise op_value_error(_OP, f"padding must be 'VALID', 'SAME', 'SAME_LOWER' or a "
                                  f"sequence of (low, high) pairs, got {padding!r}")
    pads = []
    for size, window, stride in zip(in_shape, window_shape, window_strides):
        out = -(-size // stride)
        total = max((out - 1) * stride + window - size, 0)
        small, large = total // 2, total - total // 2
        pads.append((small, large) if kind == "SAME" else (large, small))
    return pads


def positive_ints(what: str, values, n: int, *, op: str = _OP,
                  per: str = "spatial axis") -> tuple:
    """``values`` (None: all 1) as ``n`` positive ints, one per ``per``; the strides and
    dilations of convolutions and window reductions."""
    if values is None:
        return (1,) * n
    try:
        values = tuple(operator.index(v) for v in values)
    except TypeError:
        raise op_type_error(op, f"{what} must be a sequence of {n} ints, got {values!r}") from None
    if len(values) != n:
        raise op_value_error(op, f"{what} needs one entry per {per} ({n}), got {values!r}")
    if any(v < 1 for v in values):
        raise op_value_error(op, f"{what} entries must be positive, got {values!r}")
    return values


def padding_pairs(padding, n: int, *, op: str = _OP, per: str = "spatial axis") -> tuple:
    """Explicit ``padding`` as ``n`` ``(low, high)`` int pairs, one per ``per``."""
    try:
        padding = tuple((operator.index(lo), operator.index(hi)) for lo, hi in padding)
    except (TypeError, ValueError):
        raise op_type_error(op, f"padding must be a string or a sequence of (low, high) int "
                                f"pairs, got {padding!r}") from None
    if len(padding) != n:
        raise op_value_error(op, f"padding needs one (low, high) pair per {per} ({n}), got "
                                 f"{padding!r}")
    return padding


def conv_general_dilated(lhs: ArrayLike, rhs: ArrayLike, window_strides: Sequence[int],
                         padding: str | Sequence[tuple[int, int]],
                         lhs_dilation: Sequence[int] | None = None,
                         rhs_dilation: Sequence[int] | None = None,
                         dimension_numbers: ConvGeneralDilatedDimensionNumbers = None,
                         feature_group_count: int = 1, batch_group_count: int = 1,
                         precision: PrecisionLike = None,
                         preferred_element_type: DTypeLike | None = None) -> Array:
    """XLA's general convolution (a cross-correlation; see ``primitives/convolution.py``).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> x = fnp.arange(5.0).reshape(1, 1, 5)
        >>> lax.conv_general_dilated(x, fnp.ones((1, 1, 2)), (2,), [(0, 1)])
        Array([[[1., 5., 4.]]], dtype=float32)
    """
    lhs = _operand_of_kinds(_OP, lhs, "iufc", "lhs")
    rhs = _operand_of_kinds(_OP, rhs, "iufc", "rhs")
    if lhs.ndim < 2:
        raise op_type_error(_OP, f"operands need a batch and a feature axis, got lhs "
                                 f"{_short(lhs)}")
    numbers = conv_dimension_numbers(lhs.shape, rhs.shape, dimension_numbers)
    lhs_spec, rhs_spec, _ = numbers
    if lhs.dtype != rhs.dtype:
        raise op_type_error(_OP, f"lhs and rhs must have one dtype, got {_short(lhs)} and "
                                 f"{_short(rhs)}; convert one with .astype")
    n = lhs.ndim - 2
    window_strides = positive_ints("window_strides", window_strides, n)
    lhs_dilation = positive_ints("lhs_dilation", lhs_dilation, n)
    rhs_dilation = positive_ints("rhs_dilation", rhs_dilation, n)
    if isinstance(padding, str):
        window = dilate_shape([rhs.shape[d] for d in rhs_spec[2:]], rhs_dilation)
        padding = padtype_to_pads([lhs.shape[d] for d in lhs_spec[2:]], window,
                                  window_strides, padding)
    padding = padding_pairs(padding, n)
    groups, batch_groups = _group_counts(lhs, rhs, numbers, feature_group_count,
                                         batch_group_count)
    if precision is not None:
        precision = (precision, precision) if isinstance(precision, str) else tuple(precision)
        precision = tuple(str(p).upper().replace("PRECISION.", "") for p in precision)
        if len(precision) != 2 or any(p not in PRECISION_NAMES for p in precision):
            raise op_value_error(_OP, f"precision must be None, one of {PRECISION_NAMES} or a "
                                      f"pair of them, got {precision!r}")
    if preferred_element_type is not None:
        preferred_element_type = np.dtype(preferred_element_type)
        if not can_accumulate_in(lhs.dtype, preferred_element_type):
            raise op_type_error(_OP, f"preferred_element_type {preferred_element_type} cannot "
                                     f"hold products of {lhs.dtype} operands")
    return conv_general_dilated_p.bind(
        lhs, rhs, window_strides=window_strides, padding=padding, lhs_dilation=lhs_dilation,
        rhs_dilation=rhs_dilation, dimension_numbers=numbers, feature_group_count=groups,
        batch_group_count=batch_groups, precision=precision,
        preferred_element_type=preferred_element_type)


def _group_counts(lhs, rhs, numbers, feature_group_count, batch_group_count):
    lhs_spec, rhs_spec, _ = numbers
    groups, batch_groups = operator.index(feature_group_count), operator.index(batch_group_count)
    n, c = lhs.shape[lhs_spec[0]], lhs.shape[lhs_spec[1]]
    o, i = rhs.shape[rhs_spec[0]], rhs.shape[rhs_spec[1]]
    if groups < 1 or batch_groups < 1:
        raise op_value_error(_OP, "feature_group_count and batch_group_count must be >= 1")
    if groups > 1 and batch_groups > 1:
        raise op_value_error(_OP, "feature_group_count and batch_group_count cannot both "
                                  "be above 1")
    if c != i * groups:
        raise op_value_error(_OP, f"the lhs has {c} features, the kernel takes {i} per group "
                                  f"x feature_group_count={groups} = {i * groups} (lhs "
                                  f"{_short(lhs)}, rhs {_short(rhs)})")
    if o % groups or o % batch_groups:
        raise op_value_error(_OP, f"the kernel's {o} output features must divide into "
                                  f"{max(groups, batch_groups)} groups")
    if n % batch_groups:
        raise op_value_error(_OP, f"the lhs batch size {n} must divide into "
                                  f"batch_group_count={batch_groups} groups")
    return groups, batch_groups


def conv(lhs: ArrayLike, rhs: ArrayLike, window_strides: Sequence[int],
         padding: str | Sequence[tuple[int, int]], precision: PrecisionLike = None,
         preferred_element_type: DTypeLike | None = None) -> Array:
    """``conv_general_dilated`` with NCHW / OIHW layouts and no dilation.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.conv(fnp.ones((1, 2, 3, 3)), fnp.ones((4, 2, 2, 2)), (1, 1), "VALID").shape
        (1, 4, 2, 2)
    """
    return conv_general_dilated(lhs, rhs, window_strides, padding, precision=precision,
                                preferred_element_type=preferred_element_type)


def conv_with_general_padding(lhs: ArrayLike, rhs: ArrayLike, window_strides: Sequence[int],
                              padding: str | Sequence[tuple[int, int]], lhs_dilation: Sequence[int],
                              rhs_dilation: Sequence[int], precision: PrecisionLike = None,
                              preferred_element_type: DTypeLike | None = None) -> Array:
    """``conv_general_dilated`` with NCHW / OIHW layouts.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.conv_with_general_padding(fnp.ones((1, 1, 3)), fnp.ones((1, 1, 2)), (1,),
        ...                               [(1, 1)], (2,), (1,)).shape
        (1, 1, 6)
    """
    return conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation,
                                precision=precision,
                                preferred_element_type=preferred_element_type)


_TRANSPOSE_LAYOUTS = {3: ("NHC", "HIO", "NHC"), 4: ("NHWC", "HWIO", "NHWC"),
                      5: ("NHWDC", "HWDIO", "NHWDC")}


def _transpose_padding(k: int, stride: int, padding: str):
    """The padding that makes ``conv_transpose`` the gradient of a strided conv."""
    if padding == "SAME":  # output = input * stride
        total = k + stride - 2
        before = k - 1 if stride > k - 1 else -(-total // 2)
    elif padding == "VALID":  # output = (input - 1) * stride + k
        total = k + stride - 2 + max(k - stride, 0)
        before = k - 1
    else:
        raise op_value_error("lax.conv_transpose", f"padding must be 'SAME', 'VALID' or a "
                                                   f"sequence of pairs, got {padding!r}")
    return before, total - before


def conv_transpose(lhs: ArrayLike, rhs: ArrayLike, strides: Sequence[int],
                   padding: str | Sequence[tuple[int, int]],
                   rhs_dilation: Sequence[int] | None = None,
                   dimension_numbers: ConvGeneralDilatedDimensionNumbers = None,
                   transpose_kernel: bool = False, precision: PrecisionLike = None,
                   preferred_element_type: DTypeLike | None = None) -> Array:
    """The transposed ("deconvolution") convolution of ``jax.lax.conv_transpose``: the
    strides dilate the input; default layouts NHC/HIO, NHWC/HWIO, NHWDC/HWDIO.
    ``transpose_kernel=True`` flips the kernel spatially and swaps its I/O axes (the exact
    gradient of a conv).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.conv_transpose(fnp.ones((1, 4, 4, 2)), fnp.ones((3, 3, 2, 5)), (2, 2),
        ...                    "SAME").shape
        (1, 8, 8, 5)
    """
    lhs = _operand_of_kinds("lax.conv_transpose", lhs, "iufc", "lhs")
    rhs = _operand_of_kinds("lax.conv_transpose", rhs, "iufc", "rhs")
    if dimension_numbers is None:
        if lhs.ndim not in _TRANSPOSE_LAYOUTS:
            raise op_type_error("lax.conv_transpose", f"without dimension_numbers the "
                                                      f"operands must have rank 3, 4 or 5, got "
                                                      f"{_short(lhs)}")
        dimension_numbers = _TRANSPOSE_LAYOUTS[lhs.ndim]
    numbers = conv_dimension_numbers(lhs.shape, rhs.shape, dimension_numbers)
    n = lhs.ndim - 2
    rhs_dilation = positive_ints("rhs_dilation", rhs_dilation, n)
    strides = positive_ints("strides", strides, n)
    kernel = dilate_shape([rhs.shape[d] for d in numbers.rhs_spec[2:]], rhs_dilation)
    if isinstance(padding, str):
        padding = [_transpose_padding(k, s, padding.upper()) for k, s in zip(kernel, strides)]
    if transpose_kernel:
        rhs = _rev(rhs, tuple(numbers.rhs_spec[2:]))
        rhs = rhs.swapaxes(numbers.rhs_spec[0], numbers.rhs_spec[1])
    return conv_general_dilated(lhs, rhs, (1,) * n, padding, strides, rhs_dilation, numbers,
                                precision=precision,
                                preferred_element_type=preferred_element_type)


def conv_general_dilated_local(lhs: ArrayLike, rhs: ArrayLike, window_strides: Sequence[int],
                               padding: str | Sequence[tuple[int, int]],
                               filter_shape: Sequence[int],
                               lhs_dilation: Sequence[int] | None = None,
                               rhs_dilation: Sequence[int] | None = None,
                               dimension_numbers: ConvGeneralDilatedDimensionNumbers = None,
                               precision: PrecisionLike = None) -> Array:
    """Unshared (locally connected) convolution, as in jax.lax: like
    ``conv_general_dilated``, but with its own kernel at each output position. ``rhs`` has
    the output's spatial sizes in its spatial dimensions, and its input-feature dimension
    holds ``C * prod(filter_shape)`` entries (channel first, then the window positions in the
    kernel's spatial order), as ``conv_general_dilated_patches`` lays them out; the result
    is those patches contracted with ``rhs`` position by position.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> x = fnp.arange(4.0).reshape(1, 1, 4)  # NCW: one channel, width 4
        >>> # O=1; I = C * 2 window taps; one kernel per output position (width 3)
        >>> w = fnp.asarray([[[1.0, 0.0, 2.0], [1.0, 0.0, 3.0]]])
        >>> lax.conv_general_dilated_local(x, w, (1,), "VALID", (2,))
        Array([[[ 1.,  0., 13.]]], dtype=float32)
    """
    from funcarray import lax
    from funcarray.lax._dot_algorithms import algorithm_of
    from funcarray.lax._ops_dot import _canonicalize_precision

    op = "lax.conv_general_dilated_local"
    x = _operand(op, lhs, "lhs")
    kernel = _operand(op, rhs, "rhs")
    # The patches are exact copies; a per-operand precision is passed on as jax does.
    patch_precision = None
    if precision is not None and algorithm_of(precision) is None:
        patch_precision = _canonicalize_precision(op, precision)[0]
    patches = lax.conv_general_dilated_patches(
        x, filter_shape, window_strides, padding, lhs_dilation=lhs_dilation,
        rhs_dilation=rhs_dilation, dimension_numbers=dimension_numbers,
        precision=patch_precision)
    numbers = conv_dimension_numbers(x.shape, (1, 1) + tuple(filter_shape), dimension_numbers)
    lhs_spec, rhs_spec, out_spec = numbers
    if kernel.ndim != x.ndim:
        raise op_type_error(op, f"rhs {_short(kernel)} must have the rank of lhs {_short(x)}")
    want = {rhs_spec[1]: patches.shape[out_spec[1]]}
    want.update({r: patches.shape[o] for r, o in zip(rhs_spec[2:], out_spec[2:])})
    wrong = [d for d, size in want.items() if kernel.shape[d] != size]
    if wrong:
        expected = tuple(want.get(d, kernel.shape[d]) for d in range(kernel.ndim))
        spatial = tuple(patches.shape[o] for o in out_spec[2:])
        raise op_value_error(
            op, f"rhs {_short(kernel)} does not fit: with these strides and padding its "
                f"spatial dimensions must be the output's {spatial} "
                f"and its input-feature dimension C * prod(filter_shape) = "
                f"{patches.shape[out_spec[1]]}; expected shape {expected} (the 'O' size free)")
    # Spatial positions are batch dimensions of the contraction, in the patches' order.
    pairs = sorted(zip(out_spec[2:], rhs_spec[2:]))
    dn = (((out_spec[1],), (rhs_spec[1],)),
          (tuple(p for p, _ in pairs), tuple(r for _, r in pairs)))
    out = lax.dot_general(patches, kernel, dn, precision=precision)
    # (spatial..., N, O) -> the output layout
    return _moveaxes(out, (out.ndim - 2, out.ndim - 1), (out_spec[0], out_spec[1]))
