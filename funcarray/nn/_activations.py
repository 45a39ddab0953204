"""Activation functions of ``funcarray.nn``, with ``jax.nn``'s names, values and gradients.

Each function is built from ``funcarray.numpy`` operations, so it runs eagerly and under every
transform. Where the textbook formula misbehaves at an edge, the formula is arranged so that
plain autodiff gives ``jax.nn``'s derivative: ``relu``'s gradient at 0 is 0, ``softplus``
never overflows and has gradient ``sigmoid(x)`` everywhere, the branches of ``elu`` only see
inputs where they are finite (so a ``where`` never mixes a NaN cotangent in). ``glu``,
``hard_sigmoid``, ``hard_silu``/``hard_swish``, ``mish``, ``squareplus``, ``sparse_plus``,
``sparse_sigmoid``, ``log1mexp``, ``identity`` and ``tanh`` follow JAX's formulas and edges.

Example:
    >>> import funcarray.nn as nn, funcarray.numpy as fnp
    >>> nn.hard_sigmoid(fnp.asarray([-4.0, 0.0, 4.0]))
    Array([0. , 0.5, 1. ], dtype=float32)
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from funcarray import numpy as fnp
from funcarray.api.arguments import asarray_arg, convert, to_inexact_dtype
from funcarray.base import dtypes
from funcarray.base.errors import op_type_error
from funcarray.numpy._promotion import promote_args_inexact
from funcarray.primitives.elementwise import logistic_p
from funcarray.primitives.special import erfc_p
from funcarray.primitives.stop_gradient import stop_gradient_p

if TYPE_CHECKING:
    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike

__all__ = [
    "relu", "relu6", "leaky_relu", "hard_tanh", "sigmoid", "log_sigmoid", "softplus", "silu",
    "swish", "gelu", "elu", "celu", "selu", "soft_sign", "glu", "hard_sigmoid", "hard_silu",
    "hard_swish", "mish", "squareplus", "sparse_plus", "sparse_sigmoid", "log1mexp", "identity",
    "tanh",
]

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _real_arg(op: str, x):
    """``x`` as an Array of a real dtype. A bool becomes a weak int32: jax.nn's formulas
    first meet it with a Python-int constant (``maximum(x, 0)``, ``abs(x) + 1``), and a bool
    with a weak int is a weak int32 in JAX's lattice."""
    x = _strong_bool_real_arg(op, x)
    return convert(x, dtypes.int32, True) if x.dtype == np.bool_ else x


def _strong_bool_real_arg(op: str, x):
    """``x`` as an Array of a real dtype, bools kept (they promote as strong types)."""
    x = asarray_arg(op, x)
    if dtypes.is_complex(x.dtype):
        raise op_type_error(op, f"takes real arrays, got dtype {x.dtype}; apply it to the "
                                f"real and imaginary parts separately if that is what you mean")
    return x


def _inexact_arg(op: str, x):
    """``x`` as a real floating Array, as ``jax.numpy``'s inexact promotion gives: integers
    and bools compute in a strong float32 (float64 for 64-bit ints); weak inputs stay weak."""
    x = _strong_bool_real_arg(op, x)
    if not dtypes.is_inexact(x.dtype):
        x = convert(x, to_inexact_dtype(x.dtype), x.weak_type)
    return x


def _promoted_inexact_arg(op: str, x):
    """``_inexact_arg`` for the functions jax.nn starts with ``promote_args_inexact``
    (``gelu``, ``logsumexp``): a Python int beyond int32 converts straight to float there."""
    if type(x) is int:
        (x,) = promote_args_inexact(op, x)
    return _inexact_arg(op, x)


def _weak_bool_inexact_arg(op: str, x):
    """``_inexact_arg``, but a bool computes in a weak float32, for the formulas that meet
    it with a Python-int constant before a float one (``_real_arg``)."""
    return _inexact_arg(op, _real_arg(op, x))


def _float_constant_arg(op: str, x):
    """``x`` as a real floating Array where jax.nn's formula first meets it with a Python
    float (``minimum(x, 6.)``, ``x + 3.``, ``where(x > 0, 0., x)``): an integer or bool
    with a weak float is a weak float in JAX's lattice (float32; float64 from a 64-bit int)."""
    x = _strong_bool_real_arg(op, x)
    if not dtypes.is_inexact(x.dtype):
        x = convert(x, to_inexact_dtype(x.dtype), True)
    return x


def _stop_gradient(x):
    return stop_gradient_p.bind(x)


def relu(x: ArrayLike) -> Array:
    """Rectified linear unit, ``max(x, 0)``; its gradient at 0 is 0 (as in ``jax.nn``).

    NaN propagates, and integer arrays keep their dtype.

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp
        >>> nn.relu(fnp.asarray([-2.0, 0.0, 3.0]))
        Array([0., 0., 3.], dtype=float32)
    """
    x = _real_arg("relu", x)
    # The value is maximum(x, 0) (NaN stays NaN); the gradient is 1 only where x > 0, as
    # jax.nn's custom JVP says (0 at the tie x == 0, where maximum would split it, and at NaN).
    return fnp.where(x > 0, x, _stop_gradient(fnp.maximum(x, 0)))


def relu6(x: ArrayLike) -> Array:
    """``min(max(x, 0), 6)``; its gradient is 0 at both kinks, as in ``jax.nn``.

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp
        >>> nn.relu6(fnp.asarray([-1.0, 3.0, 9.0]))
        Array([0., 3., 6.], dtype=float32)
    """
    x = _float_constant_arg("relu6", x)
    # As relu: the gradient is 1 only strictly inside (0, 6), and 0 at NaN (jax.nn's JVP).
    return fnp.where((x > 0) & (x < 6), x, _stop_gradient(fnp.minimum(fnp.maximum(x, 0), 6)))


def leaky_relu(x: ArrayLike, negative_slope: ArrayLike = 1e-2) -> Array:
    """``x`` for ``x >= 0``, else ``negative_slope * x``.

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp
        >>> nn.leaky_relu(fnp.asarray([-2.0, 0.0, 3.0]), negative_slope=0.5)
        Array([-1.,  0.,  3.], dtype=float32)
    """
    x = _float_constant_arg("leaky_relu", x)
    return fnp.where(x >= 0, x, negative_slope * x)


def hard_tanh(x: ArrayLike) -> Array:
    """``x`` clipped to ``[-1, 1]`` (gradient 1 on the closed interval, as in ``jax.nn``).

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp
        >>> nn.hard_tanh(fnp.asarray([-2.0, 0.5, 3.0]))
        Array([-1. ,  0.5,  1. ], dtype=float32)
    """
    x = _real_arg("hard_tanh", x)
    if np.dtype(x.dtype).kind == "u":
        # No unsigned value is below -1 (and -1 is no unsigned value). jax compares with -1
        # wrapped to the dtype's maximum, so its hard_tanh maps 0 and 1 to that maximum.
        return fnp.minimum(x, 1)
    return fnp.where(x > 1, 1, fnp.where(x < -1, -1, x))


def sigmoid(x: ArrayLike) -> Array:
    """Logistic sigmoid ``1 / (1 + exp(-x))``, without overflow for large ``|x|``.

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp
        >>> nn.sigmoid(fnp.asarray([0.0, 100.0]))
        Array([0.5, 1. ], dtype=float32)
    """
    return logistic_p.bind(_inexact_arg("sigmoid", x))


def softplus(x: ArrayLike) -> Array:
    """``log(1 + exp(x))``, stable for large ``|x|``; its gradient is ``sigmoid(x)``.

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp
        >>> nn.softplus(fnp.asarray([0.0, 100.0]))
        Array([  0.6931472, 100.       ], dtype=float32)
    """
    x = _weak_bool_inexact_arg("softplus", x)
    positive = x > 0
    # Each branch is fed only inputs where exp cannot overflow, so neither branch produces an
    # inf/NaN derivative that the where would multiply by zero (giving NaN).
    x_pos = fnp.where(positive, x, 0)
    x_neg = fnp.where(positive, 0, x)
    return fnp.where(positive, x_pos + fnp.log1p(fnp.exp(-x_pos)), fnp.log1p(fnp.exp(x_neg)))


def log_sigmoid(x: ArrayLike) -> Array:
    """``log(sigmoid(x)) = -softplus(-x)``, stable for large ``|x|``.

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp
        >>> nn.log_sigmoid(fnp.asarray([-100.0, 0.0]))
        Array([-100.       ,   -0.6931472], dtype=float32)
    """
    return -softplus(-_inexact_arg("log_sigmoid", x))


def silu(x: ArrayLike) -> Array:
    """SiLU (swish): ``x * sigmoid(x)``.

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp
        >>> nn.silu(fnp.asarray([0.0, 1.0]))
        Array([0.       , 0.7310586], dtype=float32)
    """
    x = _inexact_arg("silu", x)
    return x * logistic_p.bind(x)


def swish(x: ArrayLike) -> Array:
    """Alias of :func:`silu`.

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp
        >>> nn.swish(fnp.asarray([1.0]))
        Array([0.7310586], dtype=float32)
    """
    return silu(x)


def gelu(x: ArrayLike, approximate: bool = True) -> Array:
    """Gaussian error linear unit, ``x * Phi(x)``.

    ``approximate=True`` (the default, as in ``jax.nn``) uses the tanh approximation
    ``x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))``; ``approximate=False`` the exact
    ``x/2 erfc(-x/sqrt(2))``.

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp
        >>> nn.gelu(fnp.asarray([-1.0, 0.0, 1.0]), approximate=False)
        Array([-0.15865...,  0.        ,  0.84134...], dtype=float32)
    """
    if not isinstance(approximate, (bool, np.bool_)):
        raise op_type_error("gelu", f"approximate must be True or False, got {approximate!r}")
    x = _promoted_inexact_arg("gelu", x)
    # The result is strong even for a weak x (a Python number): jax.nn.gelu multiplies by
    # constants of x's dtype and returns jnp.array(..., dtype=...), both strong.
    if approximate:
        cdf = 0.5 * (1 + fnp.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
        return convert(x * cdf, x.dtype)
    # Evaluated in float64 and rounded once, so every dtype gets a correctly rounded-ish erfc.
    work = convert(x, dtypes.float64, x.weak_type)
    out = 0.5 * work * erfc_p.bind(-work * math.sqrt(0.5))
    return convert(out, x.dtype)


def elu(x: ArrayLike, alpha: ArrayLike = 1.0) -> Array:
    """Exponential linear unit: ``x`` for ``x > 0``, else ``alpha * (exp(x) - 1)``.

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp
        >>> nn.elu(fnp.asarray([-1.0, 2.0]))
        Array([-0.63212055,  2.        ], dtype=float32)
    """
    x = _float_constant_arg("elu", x)
    positive = x > 0
    return fnp.where(positive, x, alpha * fnp.expm1(fnp.where(positive, 0, x)))


def celu(x: ArrayLike, alpha: ArrayLike = 1.0) -> Array:
    """Continuously differentiable ELU: ``max(x, 0) + alpha * expm1(min(x, 0) / alpha)``.

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp
        >>> nn.celu(fnp.asarray([-1.0, 2.0]), alpha=2.0)
        Array([-0.78693867,  2.        ], dtype=float32)
    """
    x = _float_constant_arg("celu", x)
    return fnp.maximum(x, 0) + alpha * fnp.expm1(fnp.minimum(x, 0) / alpha)


def selu(x: ArrayLike) -> Array:
    """Scaled ELU with the self-normalising constants ``scale * elu(x, alpha)``.

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp
        >>> nn.selu(fnp.asarray([-1.0, 1.0]))
        Array([-1.1113307,  1.050701 ], dtype=float32)
    """
    return _SELU_SCALE * elu(_float_constant_arg("selu", x), _SELU_ALPHA)


def soft_sign(x: ArrayLike) -> Array:
    """``x / (|x| + 1)``.

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp
        >>> nn.soft_sign(fnp.asarray([-3.0, 1.0]))
        Array([-0.75,  0.5 ], dtype=float32)
    """
    x = _weak_bool_inexact_arg("soft_sign", x)
    return x / (fnp.abs(x) + 1)


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
    return relu6(_float_constant_arg("hard_sigmoid", x) + 3.0) / 6.0


def hard_silu(x: ArrayLike) -> Array:
    """``x * hard_sigmoid(x)`` (also ``hard_swish``).

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp
        >>> nn.hard_silu(fnp.asarray([1.5]))
        Array([1.125], dtype=float32)
    """
    x = _float_constant_arg("hard_silu", x)
    return x * hard_sigmoid(x)


hard_swish = hard_silu


def mish(x: ArrayLike) -> Array:
    """``x * tanh(softplus(x))``.

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp
        >>> nn.mish(fnp.asarray([0.0]))
        Array([0.], dtype=float32)
    """
    x = _weak_bool_inexact_arg("mish", x)
    return x * fnp.tanh(softplus(x))


def squareplus(x: ArrayLike, b: ArrayLike = 4) -> Array:
    """``(x + sqrt(x**2 + b)) / 2``, a smooth ReLU.

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp
        >>> nn.squareplus(fnp.asarray([0.0]))
        Array([1.], dtype=float32)
    """
    x = _strong_bool_real_arg("squareplus", x)
    if not dtypes.is_inexact(x.dtype):
        # jax squares an integer x in its own dtype (wrapping past its range) and adds b: a
        # float b, a Python float included, makes that a float of b's weakness, an integer
        # b an integer (weak only with x). funcarray computes in float from the start, with
        # x as weak as needed for its result to be typed as jax's.
        b_arr = asarray_arg("squareplus", b)
        weak = dtypes.is_inexact(b_arr.dtype) or (x.weak_type and b_arr.weak_type)
        x = convert(x, to_inexact_dtype(x.dtype), weak)
    return (x + fnp.sqrt(x * x + b)) / 2


def sparse_plus(x: ArrayLike) -> Array:
    """0 below -1, ``(x + 1)**2 / 4`` on [-1, 1], ``x`` above 1 (a sparse softplus).

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp
        >>> nn.sparse_plus(fnp.asarray([-2.0, 0.0, 2.0]))
        Array([0.  , 0.25, 2.  ], dtype=float32)
    """
    x = _float_constant_arg("sparse_plus", x)
    return fnp.where(x <= -1.0, 0.0, fnp.where(x >= 1.0, x, (x + 1.0) ** 2 / 4))


def sparse_sigmoid(x: ArrayLike) -> Array:
    """0 below -1, ``(x + 1) / 2`` on [-1, 1], 1 above: ``sparse_plus``'s derivative.

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp
        >>> nn.sparse_sigmoid(fnp.asarray([-2.0, 0.0, 2.0]))
        Array([0. , 0.5, 1. ], dtype=float32)
    """
    x = _float_constant_arg("sparse_sigmoid", x)
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
