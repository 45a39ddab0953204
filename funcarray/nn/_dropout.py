"""``Dropout``: zeroes random elements in training, with an explicit key."""

from __future__ import annotations

from typing import TYPE_CHECKING

from funcarray import numpy as fnp
from funcarray import random
from funcarray.api.arguments import asarray_arg
from funcarray.base.errors import op_value_error
from funcarray.nn._module import Module, field

if TYPE_CHECKING:
    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike
    from funcarray.random._keys import KeyArrayLike

__all__ = ["Dropout"]


class Dropout(Module):
    """Sets each element to zero with probability ``p`` and scales the others by
    ``1 / (1 - p)`` (PyTorch's and Equinox's inverted dropout), drawing from the call's
    ``key``. With ``inference=True`` (on the layer, or overriding it on the call) the input
    passes unchanged and no key is needed.

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp, funcarray.random as random
        >>> drop = nn.Dropout(0.5)
        >>> y = drop(fnp.ones(1000), key=random.key(0))
        >>> sorted(set(y.tolist())), drop(fnp.ones(2), inference=True)
        ([0.0, 2.0], Array([1., 1.], dtype=float32))
    """

    p: float = field(static=True, default=0.5)
    inference: bool = field(static=True, default=False)

    def __post_init__(self):
        if not 0.0 <= self.p <= 1.0:
            raise op_value_error("Dropout", f"p must be a probability in [0, 1], got {self.p}")

    def __call__(self, x: ArrayLike, *, key: KeyArrayLike | None = None,
                 inference: bool | None = None) -> Array:
        x = asarray_arg("Dropout", x)
        inference = self.inference if inference is None else inference
        if inference or self.p == 0.0:
            return x
        if key is None:
            raise op_value_error("Dropout", "a random key is needed in training mode: call "
                                            "it with key=..., or with inference=True")
        if self.p == 1.0:
            return fnp.zeros_like(x)
        keep = random.bernoulli(key, 1.0 - self.p, x.shape)
        return fnp.where(keep, x / (1.0 - self.p), fnp.zeros((), x.dtype))
