"""``Conv`` (``Conv1d``, ``Conv2d``, ``Conv3d``) and ``ConvTranspose`` (``ConvTranspose1d``...):
convolutions over one example of shape ``(channels, *spatial)``."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from funcarray import lax, random
from funcarray import numpy as fnp
from funcarray.api.arguments import asarray_arg
from funcarray.base import dtypes
from funcarray.base.errors import op_value_error
from funcarray.nn._linear import uniform_fan_in
from funcarray.nn._module import Module, field

if TYPE_CHECKING:
    from collections.abc import Sequence

    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike, DTypeLike
    from funcarray.random._keys import KeyArrayLike

__all__ = ["Conv", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose", "ConvTranspose1d",
           "ConvTranspose2d", "ConvTranspose3d"]

# padding_mode -> numpy.pad's mode (PyTorch's names, upper case as Equinox spells them).
_PAD_MODES = {"ZEROS": "constant", "REFLECT": "reflect", "REPLICATE": "edge",
              "CIRCULAR": "wrap"}


def _tuple(op: str, name: str, value: int | Sequence[int], n: int) -> tuple:
    values = (value,) * n if isinstance(value, int) else tuple(value)
    if len(values) != n or not all(isinstance(v, int | np.integer) and v >= 0 for v in values):
        raise op_value_error(op, f"{name} must be a non-negative int or {n} of them, got "
                                 f"{value!r}")
    return tuple(int(v) for v in values)


def _padding(op: str, padding, n: int):
    """``"SAME"``/``"VALID"`` as given, else ``n`` (low, high) pairs."""
    if isinstance(padding, str):
        if padding.upper() not in ("SAME", "VALID"):
            raise op_value_error(op, f"padding must be an int, pairs of ints, 'SAME' or "
                                     f"'VALID', got {padding!r}")
        return padding.upper()
    if isinstance(padding, int):
        return ((padding, padding),) * n
    pairs = tuple(padding)
    if len(pairs) == n and all(isinstance(p, int) for p in pairs):
        return tuple((p, p) for p in pairs)
    if len(pairs) == n and all(len(p) == 2 for p in pairs):
        return tuple((int(lo), int(hi)) for lo, hi in pairs)
    raise op_value_error(op, f"padding must be an int, {n} ints or {n} (low, high) pairs, got "
                             f"{padding!r}")


def _check_input(op: str, x, in_channels: int, n: int):
    x = asarray_arg(op, x)
    if x.ndim != n + 1 or x.shape[0] != in_channels:
        raise op_value_error(op, f"expected one example of shape (in_channels={in_channels}, "
                                 f"{n} spatial axes), got {tuple(x.shape)}; batches go through "
                                 "funcarray.vmap")
    return x


class Conv(Module):
    """An ``num_spatial_dims``-dimensional convolution (a cross-correlation, as PyTorch's)
    of one example ``(in_channels, *spatial)`` with a ``(out_channels, in_channels // groups,
    *kernel_size)`` weight, plus a ``(out_channels,)`` bias.

    ``padding`` is an int, one per axis, ``(low, high)`` pairs or ``"SAME"``/``"VALID"``;
    ``padding_mode`` is ``"ZEROS"``, ``"REFLECT"``, ``"REPLICATE"`` or ``"CIRCULAR"``.
    Initialised as PyTorch's ``nn.Conv*d``: weight and bias uniform in
    ``(-1/sqrt(fan_in), 1/sqrt(fan_in))`` with ``fan_in = in_channels // groups *
    prod(kernel_size)``. ``Conv1d``, ``Conv2d`` and ``Conv3d`` fix ``num_spatial_dims``.

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp, funcarray.random as random
        >>> conv = nn.Conv2d(3, 8, kernel_size=3, padding=1, key=random.key(0))
        >>> conv.weight.shape, conv(fnp.ones((3, 5, 5))).shape
        ((8, 3, 3, 3), (8, 5, 5))
    """

    weight: Array
    bias: Array | None
    num_spatial_dims: int = field(static=True)
    in_channels: int = field(static=True)
    out_channels: int = field(static=True)
    kernel_size: tuple = field(static=True)
    stride: tuple = field(static=True)
    padding: object = field(static=True)
    dilation: tuple = field(static=True)
    groups: int = field(static=True)
    padding_mode: str = field(static=True)

    def __init__(self, num_spatial_dims: int, in_channels: int, out_channels: int,
                 kernel_size: int | Sequence[int], stride: int | Sequence[int] = 1,
                 padding: str | int | Sequence[int] | Sequence[tuple[int, int]] = 0,
                 dilation: int | Sequence[int] = 1, groups: int = 1, use_bias: bool = True,
                 padding_mode: str = "ZEROS", *, dtype: DTypeLike | None = None,
                 key: KeyArrayLike):
        op, n = type(self).__name__, num_spatial_dims
        if groups < 1 or in_channels % groups or out_channels % groups:
            raise op_value_error(op, f"in_channels ({in_channels}) and out_channels "
                                     f"({out_channels}) must be multiples of groups ({groups})")
        if padding_mode.upper() not in _PAD_MODES:
            raise op_value_error(op, f"padding_mode must be one of {sorted(_PAD_MODES)}, got "
                                     f"{padding_mode!r}")
        self.num_spatial_dims, self.groups = n, groups
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = _tuple(op, "kernel_size", kernel_size, n)
        self.stride = _tuple(op, "stride", stride, n)
        self.dilation = _tuple(op, "dilation", dilation, n)
        self.padding = _padding(op, padding, n)
        self.padding_mode = padding_mode.upper()
        if self.padding_mode != "ZEROS" and isinstance(self.padding, str):
            raise op_value_error(op, f"padding_mode {padding_mode!r} needs explicit padding "
                                     "sizes, not 'SAME'/'VALID'")
        dtype = dtypes.float32 if dtype is None else dtype
        wkey, bkey = random.split(key)
        fan_in = self._fan_in()
        self.weight = uniform_fan_in(wkey, self._weight_shape(), fan_in, dtype)
        self.bias = uniform_fan_in(bkey, (out_channels,), fan_in, dtype) if use_bias else None

    def _fan_in(self) -> int:
        return self.in_channels // self.groups * math.prod(self.kernel_size)

    def _weight_shape(self) -> tuple:
        return (self.out_channels, self.in_channels // self.groups, *self.kernel_size)

    def _add_bias(self, y):
        if self.bias is None:
            return y
        return y + self.bias.reshape((-1,) + (1,) * self.num_spatial_dims)

    def __call__(self, x: ArrayLike, *, key: KeyArrayLike | None = None) -> Array:
        x = _check_input(type(self).__name__, x, self.in_channels, self.num_spatial_dims)
        padding = self.padding
        if self.padding_mode != "ZEROS":
            x = fnp.pad(x, ((0, 0), *padding), mode=_PAD_MODES[self.padding_mode])
            padding = ((0, 0),) * self.num_spatial_dims
        y = lax.conv_general_dilated(x[None], self.weight, self.stride, padding,
                                     rhs_dilation=self.dilation,
                                     feature_group_count=self.groups)[0]
        return self._add_bias(y)


class ConvTranspose(Conv):
    """The transposed convolution (the gradient of ``Conv`` with respect to its input, a
    "deconvolution"), as PyTorch's ``nn.ConvTranspose*d``: weight of shape ``(in_channels,
    out_channels // groups, *kernel_size)``, output size ``(size - 1) * stride - 2 * padding +
    dilation * (kernel_size - 1) + output_padding + 1`` per axis. ``padding`` is an int or
    one per axis (PyTorch's meaning: it trims the output), ``padding_mode`` only
    ``"ZEROS"``. Initialised as PyTorch's: uniform in ``(-1/sqrt(fan_in), 1/sqrt(fan_in))``,
    where PyTorch's ``fan_in`` of this weight is ``out_channels // groups *
    prod(kernel_size)``.

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp, funcarray.random as random
        >>> up = nn.ConvTranspose1d(4, 2, kernel_size=4, stride=2, padding=1,
        ...                         key=random.key(0))
        >>> up.weight.shape, up(fnp.ones((4, 8))).shape
        ((4, 2, 4), (2, 16))
    """

    output_padding: tuple = field(static=True)

    def __init__(self, num_spatial_dims: int, in_channels: int, out_channels: int,
                 kernel_size: int | Sequence[int], stride: int | Sequence[int] = 1,
                 padding: int | Sequence[int] = 0, output_padding: int | Sequence[int] = 0,
                 dilation: int | Sequence[int] = 1, groups: int = 1, use_bias: bool = True,
                 padding_mode: str = "ZEROS", *, dtype: DTypeLike | None = None,
                 key: KeyArrayLike):
        op = type(self).__name__
        if isinstance(padding, str) or padding_mode.upper() != "ZEROS":
            raise op_value_error(op, "padding must be an int or one int per axis, with "
                                     "padding_mode='ZEROS'")
        self.output_padding = _tuple(op, "output_padding", output_padding, num_spatial_dims)
        super().__init__(num_spatial_dims, in_channels, out_channels, kernel_size, stride,
                         padding, dilation, groups, use_bias, padding_mode, dtype=dtype,
                         key=key)
        if any(lo != hi for lo, hi in self.padding):
            raise op_value_error(op, f"padding must be symmetric (PyTorch's), got {padding!r}")
        if any(p >= max(s, d) for p, s, d in zip(self.output_padding, self.stride,
                                                  self.dilation, strict=True)):
            raise op_value_error(op, f"output_padding {self.output_padding} must be smaller "
                                     f"than the stride {self.stride} or the dilation "
                                     f"{self.dilation}")

    def _fan_in(self) -> int:
        return self.out_channels // self.groups * math.prod(self.kernel_size)

    def _weight_shape(self) -> tuple:
        return (self.in_channels, self.out_channels // self.groups, *self.kernel_size)

    def __call__(self, x: ArrayLike, *, key: KeyArrayLike | None = None) -> Array:
        n, g = self.num_spatial_dims, self.groups
        x = _check_input(type(self).__name__, x, self.in_channels, n)
        # A convolution of the input dilated by the stride, with the kernel flipped and its
        # in/out axes swapped within each group, padded so that every kernel tap that
        # touches the input contributes (PyTorch's padding then trims both ends).
        w = self.weight.reshape((g, self.in_channels // g, self.out_channels // g)
                                + self.kernel_size)
        w = fnp.swapaxes(w, 1, 2).reshape((self.out_channels, self.in_channels // g)
                                          + self.kernel_size)
        w = fnp.flip(w, axis=tuple(range(2, 2 + n)))
        pads = [(d * (k - 1) - p, d * (k - 1) - p + op)
                for k, d, (p, _), op in zip(self.kernel_size, self.dilation, self.padding,
                                             self.output_padding, strict=True)]
        y = lax.conv_general_dilated(x[None], w, (1,) * n, pads, lhs_dilation=self.stride,
                                     rhs_dilation=self.dilation, feature_group_count=g)[0]
        return self._add_bias(y)


class Conv1d(Conv):
    """``Conv`` over 1 spatial axis, as PyTorch's ``nn.Conv1d``: one example is
    ``(in_channels, spatial)``.

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp, funcarray.random as random
        >>> nn.Conv1d(2, 4, 3, key=random.key(0))(fnp.ones((2, 5))).shape
        (4, 3)
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int | Sequence[int],
                 stride: int | Sequence[int] = 1,
                 padding: str | int | Sequence[int] | Sequence[tuple[int, int]] = 0,
                 dilation: int | Sequence[int] = 1, groups: int = 1, use_bias: bool = True,
                 padding_mode: str = "ZEROS", *, dtype: DTypeLike | None = None,
                 key: KeyArrayLike):
        super().__init__(1, in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, use_bias, padding_mode, dtype=dtype, key=key)


class Conv2d(Conv):
    """``Conv`` over 2 spatial axes, as PyTorch's ``nn.Conv2d``: one example is
    ``(in_channels, spatial_0, spatial_1)``.

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp, funcarray.random as random
        >>> nn.Conv2d(2, 4, 3, key=random.key(0))(fnp.ones((2, 5, 5))).shape
        (4, 3, 3)
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int | Sequence[int],
                 stride: int | Sequence[int] = 1,
                 padding: str | int | Sequence[int] | Sequence[tuple[int, int]] = 0,
                 dilation: int | Sequence[int] = 1, groups: int = 1, use_bias: bool = True,
                 padding_mode: str = "ZEROS", *, dtype: DTypeLike | None = None,
                 key: KeyArrayLike):
        super().__init__(2, in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, use_bias, padding_mode, dtype=dtype, key=key)


class Conv3d(Conv):
    """``Conv`` over 3 spatial axes, as PyTorch's ``nn.Conv3d``: one example is
    ``(in_channels, spatial_0, spatial_1, spatial_2)``.

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp, funcarray.random as random
        >>> nn.Conv3d(2, 4, 3, key=random.key(0))(fnp.ones((2, 5, 5, 5))).shape
        (4, 3, 3, 3)
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int | Sequence[int],
                 stride: int | Sequence[int] = 1,
                 padding: str | int | Sequence[int] | Sequence[tuple[int, int]] = 0,
                 dilation: int | Sequence[int] = 1, groups: int = 1, use_bias: bool = True,
                 padding_mode: str = "ZEROS", *, dtype: DTypeLike | None = None,
                 key: KeyArrayLike):
        super().__init__(3, in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, use_bias, padding_mode, dtype=dtype, key=key)


class ConvTranspose1d(ConvTranspose):
    """``ConvTranspose`` over 1 spatial axis, as PyTorch's
    ``nn.ConvTranspose1d``.

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp, funcarray.random as random
        >>> nn.ConvTranspose1d(2, 4, 3, key=random.key(0))(fnp.ones((2, 5))).shape
        (4, 7)
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int | Sequence[int],
                 stride: int | Sequence[int] = 1, padding: int | Sequence[int] = 0,
                 output_padding: int | Sequence[int] = 0, dilation: int | Sequence[int] = 1,
                 groups: int = 1, use_bias: bool = True, padding_mode: str = "ZEROS", *,
                 dtype: DTypeLike | None = None, key: KeyArrayLike):
        super().__init__(1, in_channels, out_channels, kernel_size, stride, padding,
                         output_padding, dilation, groups, use_bias, padding_mode, dtype=dtype,
                         key=key)


class ConvTranspose2d(ConvTranspose):
    """``ConvTranspose`` over 2 spatial axes, as PyTorch's
    ``nn.ConvTranspose2d``.

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp, funcarray.random as random
        >>> nn.ConvTranspose2d(2, 4, 3, key=random.key(0))(fnp.ones((2, 5, 5))).shape
        (4, 7, 7)
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int | Sequence[int],
                 stride: int | Sequence[int] = 1, padding: int | Sequence[int] = 0,
                 output_padding: int | Sequence[int] = 0, dilation: int | Sequence[int] = 1,
                 groups: int = 1, use_bias: bool = True, padding_mode: str = "ZEROS", *,
                 dtype: DTypeLike | None = None, key: KeyArrayLike):
        super().__init__(2, in_channels, out_channels, kernel_size, stride, padding,
                         output_padding, dilation, groups, use_bias, padding_mode, dtype=dtype,
                         key=key)


class ConvTranspose3d(ConvTranspose):
    """``ConvTranspose`` over 3 spatial axes, as PyTorch's
    ``nn.ConvTranspose3d``.

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp, funcarray.random as random
        >>> nn.ConvTranspose3d(2, 4, 3, key=random.key(0))(fnp.ones((2, 5, 5, 5))).shape
        (4, 7, 7, 7)
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int | Sequence[int],
                 stride: int | Sequence[int] = 1, padding: int | Sequence[int] = 0,
                 output_padding: int | Sequence[int] = 0, dilation: int | Sequence[int] = 1,
                 groups: int = 1, use_bias: bool = True, padding_mode: str = "ZEROS", *,
                 dtype: DTypeLike | None = None, key: KeyArrayLike):
        super().__init__(3, in_channels, out_channels, kernel_size, stride, padding,
                         output_padding, dilation, groups, use_bias, padding_mode, dtype=dtype,
                         key=key)
