"""Normalising functions of ``funcarray.nn``: softmax, log-softmax, logsumexp, one-hot,
standardize, with ``jax.nn``'s signatures.

Stability follows ``jax.nn``: the maximum subtracted before ``exp`` is wrapped in
``stop_gradient`` (the results do not depend on it, so its derivative would only add
round-off and the tie-splitting of ``max``); logsumexp replaces an infinite maximum by 0 so
that a slice of ``-inf`` gives ``-inf`` rather than NaN.
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, overload

import numpy as np

from funcarray import numpy as fnp
from funcarray.api.arguments import asarray_arg, canonicalize_axes, canonicalize_axis, convert
from funcarray.base import dtypes
from funcarray.base.errors import op_type_error, op_value_error
from funcarray.nn._activations import _inexact_arg, _promoted_inexact_arg
from funcarray.numpy._promotion import promote_args
from funcarray.primitives.elementwise import rsqrt_p

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Literal

    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike, DTypeLike

__all__ = ["softmax", "log_softmax", "logsumexp", "one_hot", "standardize"]


def _stop_gradient(x):
    from funcarray.api.autodiff import (
        stop_gradient,  # _api imports funcarray.numpy: import late
    )
    return stop_gradient(x)


def _mask_arg(op: str, where, shape):
    """``where`` as a bool Array broadcastable to ``shape`` (or None)."""
    if where is None:
        return None
    mask = asarray_arg(op, where)
    if mask.dtype != np.bool_:
        raise op_type_error(op, f"where must be a boolean mask, got dtype {mask.dtype}")
    fnp.broadcast_shapes(mask.shape, shape)  # a clear error now, not deep inside a reduction
    return mask


def _masked_max(x, axes, where, keepdims=True):
    """The maximum over ``axes`` (``-inf`` for empty or fully masked slices), no gradient."""
    # (the input, not the result, is cut from the gradient: then no JVP of the max is
    # staged at all, where a zeroed result still leaves its argmax masks in the program)
    return fnp.max(_stop_gradient(x), axes, keepdims=keepdims, where=where, initial=-np.inf)


def softmax(x: ArrayLike, axis: int | tuple[int, ...] | None = -1, where: ArrayLike | None = None
           ) -> Array:
    """``exp(x) / sum(exp(x))`` along ``axis`` (an int, a tuple of ints or None for all).

    Stable for large logits; entries of ``-inf`` get probability 0 (and gradient 0); entries
    masked out by ``where`` are 0.

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp
        >>> nn.softmax(fnp.asarray([1000.0, 1000.0, -fnp.inf]))
        Array([0.5, 0.5, 0. ], dtype=float32)
    """
    x = _inexact_arg("softmax", x)
    axes = canonicalize_axes("softmax", axis, x.ndim)
    mask = _mask_arg("softmax", where, x.shape)
    x_safe = x if mask is None else fnp.where(mask, x, -np.inf)
    unnormalized = fnp.exp(x_safe - _masked_max(x, axes, mask))
    result = unnormalized / fnp.sum(unnormalized, axes, keepdims=True, where=mask)
    return result if mask is None else fnp.where(mask, result, 0)


def log_softmax(x: ArrayLike, axis: int | tuple[int, ...] | None = -1,
                where: ArrayLike | None = None) -> Array:
    """``x - logsumexp(x)`` along ``axis``, computed without overflow.

    Entries of ``-inf`` stay ``-inf`` with finite gradients; masked-out entries are ``-inf``.

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp
        >>> nn.log_softmax(fnp.asarray([0.0, 0.0, -fnp.inf]))
        Array([-0.6931472, -0.6931472,       -inf], dtype=float32)
    """
    x = _inexact_arg("log_softmax", x)
    axes = canonicalize_axes("log_softmax", axis, x.ndim)
    mask = _mask_arg("log_softmax", where, x.shape)
    x_safe = x if mask is None else fnp.where(mask, x, -np.inf)
    shifted = x_safe - _masked_max(x, axes, mask)
    result = shifted - fnp.log(fnp.sum(fnp.exp(shifted), axes, keepdims=True, where=mask))
    return result if mask is None else fnp.where(mask, result, -np.inf)


@overload
def logsumexp(a: ArrayLike, axis: int | tuple[int, ...] | None = None,
              b: ArrayLike | None = None, keepdims: bool = False,
              return_sign: Literal[False] = False, where: ArrayLike | None = None) -> Array: ...
@overload
def logsumexp(a: ArrayLike, axis: int | tuple[int, ...] | None, b: ArrayLike | None,
              keepdims: bool, return_sign: Literal[True], where: ArrayLike | None = None
              ) -> tuple[Array, Array]: ...
@overload
def logsumexp(a: ArrayLike, axis: int | tuple[int, ...] | None = None,
              b: ArrayLike | None = None, keepdims: bool = False, *,
              return_sign: Literal[True], where: ArrayLike | None = None
              ) -> tuple[Array, Array]: ...
@overload
def logsumexp(a: ArrayLike, axis: int | tuple[int, ...] | None = None,
              b: ArrayLike | None = None, keepdims: bool = False, return_sign: bool = False,
              where: ArrayLike | None = None) -> Array | tuple[Array, Array]: ...
def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False, where=None):
    """``log(sum(b * exp(a)))`` over ``axis``, computed without overflow.

    With weights ``b``, a negative sum gives NaN unless ``return_sign=True``, which returns
    ``(log(|sum|), sign(sum))``. A slice of only ``-inf`` gives ``-inf``.

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp
        >>> nn.logsumexp(fnp.asarray([1000.0, 1000.0]))
        Array(1000.6932, dtype=float32)
        >>> nn.logsumexp(fnp.asarray([1.0, 2.0]), b=fnp.asarray([1.0, -1.0]), return_sign=True)
        (Array(1.541325, dtype=float32), Array(-1., dtype=float32))
    """
    op = "logsumexp"
    if b is None:
        a = _promoted_inexact_arg(op, a)
    else:
        # (A Python number b is promoted as itself: float64 a meets it at float64 precision.)
        a, b = promote_args(op, _inexact_arg(op, a),
                            b if type(b) in (int, float) else _inexact_arg(op, b))
        # Zero weights drop their term entirely, even where a is inf or NaN.
        a = fnp.where(b != 0, a, -np.inf)
    axes = canonicalize_axes(op, axis, a.ndim)
    mask = _mask_arg(op, where, a.shape)
    amax = fnp.max(a, axes, keepdims=keepdims, where=mask, initial=-np.inf)
    # An infinite maximum (all -inf, or a +inf entry) would give inf - inf = NaN below.
    amax = _stop_gradient(fnp.where(fnp.isfinite(amax), amax, 0))
    amax_with_dims = amax if keepdims else fnp.expand_dims(amax, axes)
    exp_a = fnp.exp(a - amax_with_dims)
    if b is not None:
        exp_a = exp_a * b
    sumexp = fnp.sum(exp_a, axes, keepdims=keepdims, where=mask)
    sign = fnp.sign(sumexp)
    out = fnp.log(fnp.abs(sumexp)) + amax
    if return_sign:
        return out, sign
    if b is not None:
        out = fnp.where(sign < 0, np.nan, out)
    return out


def one_hot(x: ArrayLike, num_classes: int, *, dtype: DTypeLike | None = None,
            axis: int | Sequence[int] = -1) -> Array:
    """One-hot encoding of the integer indices ``x`` along a new axis ``axis``.

    Indices outside ``[0, num_classes)`` give a row of zeros. ``dtype`` defaults to float32.

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp
        >>> nn.one_hot(fnp.asarray([0, 2, -1]), 3)
        Array([[1., 0., 0.],
               [0., 0., 1.],
               [0., 0., 0.]], dtype=float32)
    """
    op = "one_hot"
    try:
        num_classes = operator.index(num_classes)
    except TypeError:
        raise op_type_error(
            op, f"num_classes must be a concrete Python int, got {num_classes!r}") from None
    if num_classes < 0:
        raise op_value_error(op, f"num_classes must be >= 0, got {num_classes}")
    x = asarray_arg(op, x)
    if x.dtype == np.bool_ or dtypes.is_complex(x.dtype):
        raise op_type_error(op, f"takes integer (or real) class indices, got dtype {x.dtype}")
    dtype = dtypes.default_float if dtype is None else dtypes.canonicalize_dtype(dtype)
    axis = canonicalize_axis(op, axis, x.ndim + 1)
    index_shape = [1] * (x.ndim + 1)
    index_shape[axis] = num_classes
    index_dtype = dtypes.int64 if np.dtype(x.dtype).itemsize == 8 else dtypes.int32
    classes = fnp.reshape(fnp.arange(num_classes, dtype=index_dtype), tuple(index_shape))
    hot = fnp.expand_dims(x, axis) == classes
    return convert(hot, dtype)


def standardize(x: ArrayLike, axis: int | tuple[int, ...] | None = -1,
                mean: ArrayLike | None = None, variance: ArrayLike | None = None,
                epsilon: ArrayLike = 1e-5, where: ArrayLike | None = None, *,
                algorithm: str = "fast") -> Array:
    """``(x - mean) / sqrt(variance + epsilon)`` with the mean and variance over ``axis``.

    ``algorithm="fast"`` (``jax.nn``'s default) computes the variance as
    ``mean(x^2) - mean(x)^2`` clipped at 0; ``"stable"`` as ``mean((x - mean)^2)``. A given
    ``mean``/``variance`` is used as is (it must broadcast against ``x``).

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp
        >>> nn.standardize(fnp.asarray([1.0, 2.0, 3.0]), epsilon=0.0)
        Array([-1.224745,  0.      ,  1.224745], dtype=float32)
    """
    op = "standardize"
    if algorithm not in ("fast", "stable"):
        raise op_value_error(op, f"algorithm must be 'fast' or 'stable', got {algorithm!r}")
    x = _inexact_arg(op, x)
    axes = canonicalize_axes(op, axis, x.ndim)
    mask = _mask_arg(op, where, x.shape)
    if mean is None:
        mean = fnp.mean(x, axes, keepdims=True, where=mask)
    else:
        mean = _inexact_arg(op, mean)
    if variance is None:
        if algorithm == "stable":
            variance = fnp.mean(fnp.square(x - mean), axes, keepdims=True, where=mask)
        else:
            variance = fnp.mean(fnp.square(x), axes, keepdims=True, where=mask)
            # The one-pass formula can dip below 0 by round-off; rsqrt would give NaN.
            variance = fnp.maximum(variance - fnp.square(mean), 0)
    else:
        variance = _inexact_arg(op, variance)
    return (x - mean) * rsqrt_p.bind(_inexact_arg(op, variance + epsilon))
