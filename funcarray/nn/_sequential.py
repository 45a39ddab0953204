"""``Sequential`` and ``MLP``: layers applied one after another."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from funcarray import random
from funcarray.nn._activations import relu
from funcarray.nn._linear import Linear
from funcarray.nn._module import Module, field

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence

    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike, DTypeLike
    from funcarray.random._keys import KeyArrayLike

__all__ = ["Sequential", "MLP"]


def _identity(x: Any) -> Any:
    return x


class Sequential(Module):
    """Calls its ``layers`` (a tuple of modules) in order. A ``key`` given to the call is
    split into one key per layer (for ``Dropout``), each passed as ``key=``, as Equinox's
    ``Sequential`` does; without one, each layer is called on ``x`` alone.

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp, funcarray.random as random
        >>> model = nn.Sequential([nn.Linear(2, 4, key=random.key(0)), nn.Lambda(nn.relu),
        ...                        nn.Linear(4, 1, key=random.key(1))])
        >>> len(model), model(fnp.ones(2)).shape
        (3, (1,))
    """

    layers: tuple

    def __init__(self, layers: Sequence[Any]):
        self.layers = tuple(layers)

    def __call__(self, x: Any, *, key: KeyArrayLike | None = None) -> Any:
        keys = [None] * len(self.layers) if key is None else random.split(key, len(self.layers))
        for layer, layer_key in zip(self.layers, keys, strict=True):
            # (without a key, layers that take none, such as a user's module, fit too)
            x = layer(x) if layer_key is None else layer(x, key=layer_key)
        return x

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return Sequential(self.layers[index])
        return self.layers[index]

    def __len__(self) -> int:
        return len(self.layers)

    def __iter__(self) -> Iterator[Any]:
        return iter(self.layers)


class MLP(Module):
    """A multilayer perceptron: ``depth`` hidden ``Linear`` layers of ``width_size`` units
    followed by ``activation``, then a ``Linear`` to ``out_size`` and ``final_activation``
    (Equinox's ``MLP``; the ``Linear`` layers keep PyTorch's initialisation).

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp, funcarray.random as random
        >>> mlp = nn.MLP(3, 1, width_size=8, depth=2, key=random.key(0))
        >>> [layer.weight.shape for layer in mlp.layers], mlp(fnp.ones(3)).shape
        ([(8, 3), (8, 8), (1, 8)], (1,))
    """

    layers: tuple
    activation: Callable[[Array], Array] = field(static=True)
    final_activation: Callable[[Array], Array] = field(static=True)
    in_size: int = field(static=True)
    out_size: int = field(static=True)
    width_size: int = field(static=True)
    depth: int = field(static=True)

    def __init__(self, in_size: int, out_size: int, width_size: int, depth: int,
                 activation: Callable[[Array], Array] = relu,
                 final_activation: Callable[[Array], Array] = _identity,
                 use_bias: bool = True, use_final_bias: bool = True, *,
                 dtype: DTypeLike | None = None, key: KeyArrayLike):
        keys = random.split(key, depth + 1)
        sizes = [in_size] + [width_size] * depth + [out_size]
        self.layers = tuple(
            Linear(sizes[k], sizes[k + 1], use_final_bias if k == depth else use_bias,
                   dtype=dtype, key=keys[k]) for k in range(depth + 1))
        self.activation, self.final_activation = activation, final_activation
        self.in_size, self.out_size = in_size, out_size
        self.width_size, self.depth = width_size, depth

    def __call__(self, x: ArrayLike, *, key: KeyArrayLike | None = None) -> Array:
        for layer in self.layers[:-1]:
            x = self.activation(layer(x))
        return self.final_activation(self.layers[-1](x))
