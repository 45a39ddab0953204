"""``LayerNorm``, ``RMSNorm`` and ``GroupNorm``: normalisation within one example."""

from __future__ import annotations

from typing import TYPE_CHECKING

from funcarray import numpy as fnp
from funcarray.api.arguments import asarray_arg
from funcarray.base import dtypes
from funcarray.base.errors import op_value_error
from funcarray.nn._module import Module, field

if TYPE_CHECKING:
    from collections.abc import Sequence

    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike, DTypeLike
    from funcarray.random._keys import KeyArrayLike

__all__ = ["LayerNorm", "RMSNorm", "GroupNorm"]


def _shape(shape: int | Sequence[int]) -> tuple:
    return (int(shape),) if isinstance(shape, int) else tuple(int(n) for n in shape)


def widened(x) -> tuple:
    """``(x in the dtype its statistics are computed in, the result's dtype)``: at least
    float32 (so float16 and bfloat16 inputs keep their variance, as in Equinox), with the
    result in ``x``'s dtype (a float one for integer inputs)."""
    wide = dtypes.promote_types(x.dtype, dtypes.float32)
    return x.astype(wide), (x.dtype if dtypes.is_inexact(x.dtype) else wide)


def _affine(y, weight, bias, shape=None):
    """``y * weight + bias`` (either may be None) in ``y``'s dtype."""
    if weight is not None:
        y = y * (weight if shape is None else weight.reshape(shape)).astype(y.dtype)
    if bias is not None:
        y = y + (bias if shape is None else bias.reshape(shape)).astype(y.dtype)
    return y


def _check(op: str, x, shape: tuple):
    x = asarray_arg(op, x)
    if tuple(x.shape[x.ndim - len(shape):]) != shape or x.ndim < len(shape):
        raise op_value_error(op, f"expected an input whose trailing axes have the normalised "
                                 f"shape {shape}, got {tuple(x.shape)}")
    return x


class LayerNorm(Module):
    """``(x - mean) / sqrt(var + eps) * weight + bias`` over the trailing axes of
    ``shape`` (the biased variance, as PyTorch's ``nn.LayerNorm``); ``weight`` starts at
    ones and ``bias`` at zeros, each None when not used. Statistics are computed in at least
    float32 and the result has the input's dtype (as in Equinox).

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp
        >>> nn.LayerNorm(2)(fnp.asarray([1.0, 3.0]))
        Array([-0.999995,  0.999995], dtype=float32)
    """

    weight: Array | None
    bias: Array | None
    shape: tuple = field(static=True)
    eps: float = field(static=True)

    def __init__(self, shape: int | Sequence[int], eps: float = 1e-5, use_weight: bool = True,
                 use_bias: bool = True, *, dtype: DTypeLike | None = None):
        self.shape = _shape(shape)
        dtype = dtypes.float32 if dtype is None else dtype
        self.weight = fnp.ones(self.shape, dtype) if use_weight else None
        self.bias = fnp.zeros(self.shape, dtype) if use_bias else None
        self.eps = float(eps)

    def __call__(self, x: ArrayLike, *, key: KeyArrayLike | None = None) -> Array:
        x, dtype = widened(_check("LayerNorm", x, self.shape))
        axes = tuple(range(x.ndim - len(self.shape), x.ndim))
        mean = fnp.mean(x, axis=axes, keepdims=True)
        var = fnp.mean(fnp.square(x - mean), axis=axes, keepdims=True)
        y = (x - mean) * fnp.reciprocal(fnp.sqrt(var + self.eps))
        return _affine(y, self.weight, self.bias).astype(dtype)


class RMSNorm(Module):
    """``x / sqrt(mean(x**2) + eps) * weight + bias`` over the trailing axes of ``shape``
    (root-mean-square normalisation, no centring); ``weight`` starts at ones and ``bias`` at
    zeros, each None when not used (Equinox's signature, a bias by default; PyTorch's
    ``nn.RMSNorm`` has none: ``use_bias=False``).

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp
        >>> nn.RMSNorm(2, eps=0.0)(fnp.asarray([6.0, 8.0])) * fnp.sqrt(2.0)
        Array([1.2, 1.6], dtype=float32)
    """

    weight: Array | None
    bias: Array | None
    shape: tuple = field(static=True)
    eps: float = field(static=True)

    def __init__(self, shape: int | Sequence[int], eps: float = 1e-5, use_weight: bool = True,
                 use_bias: bool = True, *, dtype: DTypeLike | None = None):
        self.shape = _shape(shape)
        dtype = dtypes.float32 if dtype is None else dtype
        self.weight = fnp.ones(self.shape, dtype) if use_weight else None
        self.bias = fnp.zeros(self.shape, dtype) if use_bias else None
        self.eps = float(eps)

    def __call__(self, x: ArrayLike, *, key: KeyArrayLike | None = None) -> Array:
        x, dtype = widened(_check("RMSNorm", x, self.shape))
        axes = tuple(range(x.ndim - len(self.shape), x.ndim))
        y = x * fnp.reciprocal(fnp.sqrt(fnp.mean(fnp.square(x), axis=axes, keepdims=True)
                                        + self.eps))
        return _affine(y, self.weight, self.bias).astype(dtype)


class GroupNorm(Module):
    """Normalises one example ``(channels, *spatial)`` over each group of
    ``channels // groups`` channels and all spatial axes, then scales and shifts each channel
    (``weight`` ones, ``bias`` zeros, both None without ``channelwise_affine``), as PyTorch's
    ``nn.GroupNorm(num_groups, num_channels)`` (the biased variance).

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp
        >>> norm = nn.GroupNorm(2, 4)
        >>> norm(fnp.arange(8.0).reshape(4, 2))[:, 0]
        Array([-1.3416355 ,  0.44721183, -1.3416355 ,  0.44721183], dtype=float32)
    """

    weight: Array | None
    bias: Array | None
    groups: int = field(static=True)
    channels: int = field(static=True)
    eps: float = field(static=True)

    def __init__(self, groups: int, channels: int, eps: float = 1e-5,
                 channelwise_affine: bool = True, *, dtype: DTypeLike | None = None):
        if groups < 1 or channels % groups:
            raise op_value_error("GroupNorm", f"channels ({channels}) must be a multiple of "
                                              f"groups ({groups})")
        dtype = dtypes.float32 if dtype is None else dtype
        self.groups, self.channels, self.eps = int(groups), int(channels), float(eps)
        self.weight = fnp.ones(channels, dtype) if channelwise_affine else None
        self.bias = fnp.zeros(channels, dtype) if channelwise_affine else None

    def __call__(self, x: ArrayLike, *, key: KeyArrayLike | None = None) -> Array:
        x = asarray_arg("GroupNorm", x)
        if x.ndim < 1 or x.shape[0] != self.channels:
            raise op_value_error("GroupNorm", f"expected one example of shape (channels="
                                              f"{self.channels}, *spatial), got "
                                              f"{tuple(x.shape)}; batches go through "
                                              "funcarray.vmap")
        x, dtype = widened(x)
        grouped = x.reshape((self.groups, -1))
        mean = fnp.mean(grouped, axis=1, keepdims=True)
        var = fnp.mean(fnp.square(grouped - mean), axis=1, keepdims=True)
        y = ((grouped - mean) * fnp.reciprocal(fnp.sqrt(var + self.eps))).reshape(x.shape)
        channel = (-1,) + (1,) * (x.ndim - 1)
        return _affine(y, self.weight, self.bias, channel).astype(dtype)
