"""The rest of ``jax.nn``'s activations: ``glu``, ``hard_sigmoid``, ``hard_silu``/
``hard_swish``, ``mish``, ``squareplus``, ``sparse_plus``, ``sparse_sigmoid``, ``log1mexp``,
``identity`` and ``tanh``; composites of ``funcarray.numpy`` (JAX's formulas and edges).

Example:
    >>> import funcarray.nn as nn, funcarray.numpy as fnp
    >>> nn.hard_sigmoid(fnp.asarray([-4.0, 0.0, 4.0]))
    Array([0. , 0.5, 1. ], dtype=float32)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

import funcarray.numpy as fnp
from funcarray.nn._activations import _inexact_arg, relu6, sigmoid, softplus

if TYPE_CHECKING:
    from funcarray.array import Array
    from funcarray.typing import ArrayLike

__all__ = ["glu", "hard_sigmoid", "hard_silu", "hard_swish", "mish", "squareplus",
           "sparse_plus", "sparse_sigmoid", "log1mexp", "identity", "tanh"]


def glu(x: ArrayLike, axis: int = -1) -> Array:
    """Gated linear unit: ``x`` split in two along ``axis``, ``a * sigmoid(b)``.

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp
        >>> nn.glu(fnp.asarray([2.0, 0.0]))
        Array([1.], dtype=float32)
    """
    x = _inexact_arg("glu", x)
    size = x.shape[axis]
    if size % 2:
        raise ValueError(f"glu: axis {axis} of shape {tuple(x.shape)} has odd size {size}; it "
                         f"must split into two halves")
    a, b = fnp.split(x, 2, axis=axis)
    return a * sigmoid(b)


def hard_sigmoid(x: ArrayLike) -> Array:
    """``relu6(x + 3) / 6``.

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp
        >>> nn.hard_sigmoid(fnp.asarray([1.5]))
        Array([0.75], dtype=float32)
    """
    return relu6(_inexact_arg("hard_sigmoid", x) + 3.0) / 6.0


def hard_silu(x: ArrayLike) -> Array:
    """``x * hard_sigmoid(x)`` (also ``hard_swish``).

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp
        >>> nn.hard_silu(fnp.asarray([1.5]))
        Array([1.125], dtype=float32)
    """
    x = _inexact_arg("hard_silu", x)
    return x * hard_sigmoid(x)


hard_swish = hard_silu


def mish(x: ArrayLike) -> Array:
    """``x * tanh(softplus(x))``.

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp
        >>> nn.mish(fnp.asarray([0.0]))
        Array([0.], dtype=float32)
    """
    x = _inexact_arg("mish", x)
    return x * fnp.tanh(softplus(x))


def squareplus(x: ArrayLike, b: ArrayLike = 4) -> Array:
    """``(x + sqrt(x**2 + b)) / 2``, a smooth ReLU.

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp
        >>> nn.squareplus(fnp.asarray([0.0]))
        Array([1.], dtype=float32)
    """
    x = _inexact_arg("squareplus", x)
    return (x + fnp.sqrt(x * x + b)) / 2


def sparse_plus(x: ArrayLike) -> Array:
    """0 below -1, ``(x + 1)**2 / 4`` on [-1, 1], ``x`` above 1 (a sparse softplus).

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp
        >>> nn.sparse_plus(fnp.asarray([-2.0, 0.0, 2.0]))
        Array([0.  , 0.25, 2.  ], dtype=float32)
    """
    x = _inexact_arg("sparse_plus", x)
    return fnp.where(x <= -1.0, 0.0, fnp.where(x >= 1.0, x, (x + 1.0) ** 2 / 4))


def sparse_sigmoid(x: ArrayLike) -> Array:
    """0 below -1, ``(x + 1) / 2`` on [-1, 1], 1 above: ``sparse_plus``'s derivative.

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp
        >>> nn.sparse_sigmoid(fnp.asarray([-2.0, 0.0, 2.0]))
        Array([0. , 0.5, 1. ], dtype=float32)
    """
    x = _inexact_arg("sparse_sigmoid", x)
    return 0.5 * fnp.clip(x + 1.0, 0.0, 2.0)  # (jax's form: its gradient at +-1 is 1/2)


def log1mexp(x: ArrayLike) -> Array:
    """``log(1 - exp(-x))`` for ``x > 0``, accurate at both ends (Maechler's switch at
    ``log 2`` between ``log(-expm1(-x))`` and ``log1p(-exp(-x))``).

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp
        >>> nn.log1mexp(fnp.asarray([0.6931472]))
        Array([-0.6931472], dtype=float32)
    """
    x = _inexact_arg("log1mexp", x)
    small = x < np.log(2.0)
    # each branch only sees inputs where it is accurate, so no NaN leaks into the gradient
    x_small = fnp.where(small, x, 1.0)
    x_large = fnp.where(small, 1.0, x)
    return fnp.where(small, fnp.log(-fnp.expm1(-x_small)), fnp.log1p(-fnp.exp(-x_large)))


def identity(x: ArrayLike) -> Array:
    """``x`` itself.

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp
        >>> nn.identity(fnp.asarray([1.0]))
        Array([1.], dtype=float32)
    """
    return fnp.asarray(x)


def tanh(x: ArrayLike) -> Array:
    """``funcarray.numpy.tanh``, under ``nn`` as in ``jax.nn``.

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp
        >>> nn.tanh(fnp.asarray([0.0]))
        Array([0.], dtype=float32)
    """
    return fnp.tanh(x)
