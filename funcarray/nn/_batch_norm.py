"""``BatchNorm``: normalisation by statistics over the batch, with the running statistics as
explicit state that the call takes and returns."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from funcarray import lax
from funcarray import numpy as fnp
from funcarray.api.arguments import asarray_arg
from funcarray.api.autodiff import stop_gradient
from funcarray.base import dtypes
from funcarray.base.errors import op_type_error, op_value_error
from funcarray.nn._module import Module, field
from funcarray.nn._normalization import widened

if TYPE_CHECKING:
    from collections.abc import Hashable

    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike, DTypeLike
    from funcarray.random._keys import KeyArrayLike

__all__ = ["BatchNorm", "BatchNormState"]


class BatchNormState(Module):
    """The running statistics of a ``BatchNorm``, per channel (PyTorch's buffer names).

    Example:
        >>> import funcarray.nn as nn
        >>> nn.BatchNorm(3, axis_name="batch").init_state()
        BatchNormState(running_mean=float32[3], running_var=float32[3])
    """

    running_mean: Array
    running_var: Array


class BatchNorm(Module):
    """Batch normalisation of one example ``(channels, *spatial)`` called under
    ``vmap(..., axis_name=axis_name)``: in training, each channel is normalised by its mean
    and (biased) variance over the batch (the named axis) and the spatial axes, and the call
    returns ``(y, new_state)`` with the running statistics updated as PyTorch's
    ``nn.BatchNorm*d`` does (``momentum`` the weight of the new batch, the running variance
    unbiased). In inference (``inference=True`` on the layer or the call) the running
    statistics normalise and the state comes back unchanged, so no named axis is needed.
    ``weight`` starts at ones and ``bias`` at zeros (None without ``channelwise_affine``);
    the state starts at zeros and ones (``init_state()``).

    Map the state with ``in_axes=None`` and ``out_axes=None``: it is one for the batch.

    Example:
        >>> import funcarray as fa, funcarray.nn as nn, funcarray.numpy as fnp
        >>> bn = nn.BatchNorm(2, axis_name="batch")
        >>> state = bn.init_state()
        >>> x = fnp.asarray([[1.0, 2.0], [3.0, 6.0]])  # two examples of two channels
        >>> train = fa.vmap(bn, axis_name="batch", in_axes=(0, None), out_axes=(0, None))
        >>> y, state = train(x, state)
        >>> y
        Array([[-0.99999..., -0.99999...],
               [ 0.99999...,  0.99999...]], dtype=float32)
        >>> state.running_mean
        Array([0.2, 0.4], dtype=float32)
    """

    weight: Array | None
    bias: Array | None
    channels: int = field(static=True)
    axis_name: Any = field(static=True)
    eps: float = field(static=True)
    momentum: float = field(static=True)
    inference: bool = field(static=True)
    dtype: Any = field(static=True)

    def __init__(self, channels: int, axis_name: Hashable, eps: float = 1e-5,
                 momentum: float = 0.1, channelwise_affine: bool = True,
                 inference: bool = False, *, dtype: DTypeLike | None = None):
        if not 0.0 <= momentum <= 1.0:
            raise op_value_error("BatchNorm", f"momentum must be in [0, 1], got {momentum}")
        self.dtype = dtypes.canonicalize_dtype(dtypes.float32 if dtype is None else dtype)
        self.channels, self.axis_name = int(channels), axis_name
        self.eps, self.momentum, self.inference = float(eps), float(momentum), bool(inference)
        self.weight = fnp.ones(channels, self.dtype) if channelwise_affine else None
        self.bias = fnp.zeros(channels, self.dtype) if channelwise_affine else None

    def init_state(self) -> BatchNormState:
        """The running statistics before any batch: mean zeros, variance ones (PyTorch's)."""
        return BatchNormState(fnp.zeros(self.channels, self.dtype),
                              fnp.ones(self.channels, self.dtype))

    def __call__(self, x: ArrayLike, state: BatchNormState, *,
                 key: KeyArrayLike | None = None, inference: bool | None = None
                 ) -> tuple[Array, BatchNormState]:
        x = asarray_arg("BatchNorm", x)
        if x.ndim < 1 or x.shape[0] != self.channels:
            raise op_value_error("BatchNorm", f"expected one example of shape (channels="
                                              f"{self.channels}, *spatial), got "
                                              f"{tuple(x.shape)}; batches go through "
                                              "funcarray.vmap with axis_name")
        if not isinstance(state, BatchNormState):
            raise op_type_error("BatchNorm", f"state must be a BatchNormState (from "
                                             f"init_state()), got {type(state).__name__}")
        x, dtype = widened(x)
        channel = (-1,) + (1,) * (x.ndim - 1)
        spatial = tuple(range(1, x.ndim))
        inference = self.inference if inference is None else inference
        if inference:
            mean, var = state.running_mean.astype(x.dtype), state.running_var.astype(x.dtype)
        else:
            mean = lax.pmean(fnp.mean(x, axis=spatial), self.axis_name)
            var = lax.pmean(fnp.mean(fnp.square(x - mean.reshape(channel)), axis=spatial),
                            self.axis_name)
            count = fnp.asarray(lax.psum(1, self.axis_name) * (x.size // self.channels),
                                dtype=var.dtype)
            unbiased = var * count / fnp.maximum(count - 1, 1)
            m = self.momentum
            state = BatchNormState(
                stop_gradient((1 - m) * state.running_mean + m * mean).astype(self.dtype),
                stop_gradient((1 - m) * state.running_var + m * unbiased).astype(self.dtype))
        y = (x - mean.reshape(channel)) * fnp.reciprocal(fnp.sqrt(var.reshape(channel)
                                                                  + self.eps))
        if self.weight is not None:
            y = y * self.weight.reshape(channel).astype(y.dtype)
        if self.bias is not None:
            y = y + self.bias.reshape(channel).astype(y.dtype)
        return y.astype(dtype), state
