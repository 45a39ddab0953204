"""``Linear``, ``Identity`` and ``Lambda``: the affine layer and the layers that wrap a
function."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from funcarray import numpy as fnp
from funcarray import random
from funcarray.api.arguments import asarray_arg
from funcarray.base import dtypes
from funcarray.base.errors import op_value_error
from funcarray.nn._module import Module, field

if TYPE_CHECKING:
    from collections.abc import Callable

    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike, DTypeLike
    from funcarray.random._keys import KeyArrayLike

__all__ = ["Linear", "Identity", "Lambda"]


def uniform_fan_in(key: KeyArrayLike, shape: tuple, fan_in: int, dtype: Any) -> Array:
    """PyTorch's default for linear and convolution weights and biases: uniform in
    ``(-1/sqrt(fan_in), 1/sqrt(fan_in))`` (``kaiming_uniform_(a=sqrt(5))`` for weights)."""
    bound = 1.0 / math.sqrt(fan_in) if fan_in else 0.0
    return random.uniform(key, shape, dtype, minval=-bound, maxval=bound)


class Linear(Module):
    """``y = weight @ x + bias``, with ``weight`` of shape ``(out_features, in_features)``
    and ``bias`` of shape ``(out_features,)`` (None when ``use_bias=False``).

    Initialised as PyTorch's ``nn.Linear``: weight and bias uniform in
    ``(-1/sqrt(in_features), 1/sqrt(in_features))``, drawn from ``key``. The call takes one
    example ``x`` of shape ``(in_features,)`` (leading axes are allowed and broadcast);
    batches go through ``vmap``. As in Equinox, ``in_features="scalar"`` takes a scalar
    input and ``out_features="scalar"`` gives a scalar output (a size-1 axis inside).

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp, funcarray.random as random
        >>> layer = nn.Linear(3, 2, key=random.key(0))
        >>> layer.weight.shape, layer(fnp.ones(3)).shape
        ((2, 3), (2,))
    """

    weight: Array
    bias: Array | None
    in_features: int | Literal["scalar"] = field(static=True)
    out_features: int | Literal["scalar"] = field(static=True)
    use_bias: bool = field(static=True)

    def __init__(self, in_features: int | Literal["scalar"],
                 out_features: int | Literal["scalar"], use_bias: bool = True, *,
                 dtype: DTypeLike | None = None, key: KeyArrayLike):
        dtype = dtypes.float32 if dtype is None else dtype
        n_in, n_out = (_size("in_features", in_features), _size("out_features", out_features))
        wkey, bkey = random.split(key)
        self.weight = uniform_fan_in(wkey, (n_out, n_in), n_in, dtype)
        self.bias = uniform_fan_in(bkey, (n_out,), n_in, dtype) if use_bias else None
        self.in_features, self.out_features = in_features, out_features
        self.use_bias = bool(use_bias)

    def __call__(self, x: ArrayLike, *, key: KeyArrayLike | None = None) -> Array:
        x = asarray_arg("Linear", x)
        if self.in_features == "scalar":
            if x.ndim != 0:
                raise op_value_error("Linear", f"expected a scalar input (in_features="
                                               f"'scalar'), got shape {tuple(x.shape)}")
            x = x[None]
        elif x.ndim == 0 or x.shape[-1] != self.in_features:
            raise op_value_error("Linear", f"expected an input of shape ({self.in_features},) "
                                           f"(in_features), got {tuple(x.shape)}; batches go "
                                           "through funcarray.vmap")
        y = fnp.matmul(x, self.weight.T)
        y = y if self.bias is None else y + self.bias
        return y[..., 0] if self.out_features == "scalar" else y


def _size(name: str, value: int | str) -> int:
    if value == "scalar":
        return 1
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 0:
        raise op_value_error("Linear", f"{name} must be a non-negative int or 'scalar', got "
                                       f"{value!r}")
    return int(value)


class Identity(Module):
    """Returns its input unchanged (a placeholder layer, for instance after surgery).

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp
        >>> nn.Identity()(fnp.ones(2))
        Array([1., 1.], dtype=float32)
    """

    def __call__(self, x: Any, *, key: KeyArrayLike | None = None) -> Any:
        return x


class Lambda(Module):
    """A function as a layer (an activation in a ``Sequential``); the function is static.

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp
        >>> nn.Lambda(nn.relu)(fnp.asarray([-1.0, 1.0]))
        Array([0., 1.], dtype=float32)
    """

    fn: Callable[..., Any] = field(static=True)

    def __call__(self, x: Any, *, key: KeyArrayLike | None = None) -> Any:
        return self.fn(x)
