"""Weight initializers in the style of ``jax.nn.initializers``.

An initializer is a pure function ``init(key, shape, dtype=float32) -> Array`` of an explicit
random key (a ``funcarray.random`` key); the constructors (``normal(stddev)``,
``glorot_uniform()``, ``variance_scaling(scale, mode, distribution)``...) fix the
hyperparameters. ``zeros`` and ``ones`` are initializers themselves, as in JAX.

Variance scaling draws with variance ``scale / n``, where ``n`` is the fan-in, the fan-out,
their mean (``fan_avg``) or geometric mean (``fan_geo_avg``) of the weight shape; axes that are
neither the input, the output nor a batch axis form the receptive field (convolution kernels)
and multiply both fans.

Example:
    >>> from funcarray.nn import initializers
    >>> initializers.zeros(None, (2,))
    Array([0., 0.], dtype=float32)
"""

from __future__ import annotations

import math
import operator
from typing import TYPE_CHECKING, Protocol

import numpy as np

from funcarray import numpy as fnp
from funcarray.base import dtypes
from funcarray.base.errors import op_type_error, op_value_error

if TYPE_CHECKING:
    from collections.abc import Sequence

    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike, DTypeLike, ShapeLike
    from funcarray.random._keys import KeyArrayLike

    class _ScalingConstructor(Protocol):
        """``glorot_uniform`` and the other named ``variance_scaling`` constructors."""

        def __call__(self, in_axis: int | Sequence[int] = -2, out_axis: int | Sequence[int] = -1,
                     batch_axis: int | Sequence[int] = (), dtype: DTypeLike = ...
                     ) -> Initializer: ...

__all__ = [
    "zeros", "ones", "constant", "uniform", "normal", "truncated_normal", "variance_scaling",
    "glorot_uniform", "glorot_normal", "xavier_uniform", "xavier_normal", "lecun_uniform",
    "lecun_normal", "he_uniform", "he_normal", "kaiming_uniform", "kaiming_normal",
    "Initializer",
]


class Initializer(Protocol):
    """The type of an initializer, ``init(key, shape, dtype=float32) -> Array`` (JAX's).

    Example:
        >>> from funcarray.nn import initializers
        >>> init: initializers.Initializer = initializers.constant(0.5)
        >>> init(None, (2,))
        Array([0.5, 0.5], dtype=float32)
    """

    def __call__(self, key: KeyArrayLike | None, shape: ShapeLike,
                 dtype: DTypeLike = ...) -> Array: ...


_MODES = ("fan_in", "fan_out", "fan_avg", "fan_geo_avg")
_DISTRIBUTIONS = ("truncated_normal", "normal", "uniform")
# The standard deviation of a standard normal truncated to (-2, 2): dividing by it makes the
# truncated draws have the requested variance.
_TRUNCATED_STDDEV = 0.87962566103423978


def _random():
    # funcarray.random builds on funcarray.numpy; importing it late keeps ``funcarray.nn``
    # importable on its own.
    from funcarray import random
    return random


def _shape_tuple(op: str, shape) -> tuple:
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    try:
        shape = tuple(operator.index(d) for d in shape)
    except TypeError:
        raise op_type_error(op, f"shape must be a tuple of Python ints, got {shape!r}") from None
    if any(d < 0 for d in shape):
        raise op_value_error(op, f"shape must not have negative sizes, got {shape}")
    return shape


def _float_dtype(op: str, dtype) -> np.dtype:
    dtype = dtypes.canonicalize_dtype(dtype)
    if not dtypes.is_inexact(dtype) or dtypes.is_complex(dtype):
        raise op_type_error(op, f"draws real floating values; dtype {dtype} is not one "
                                f"(use e.g. float32)")
    return dtype


def zeros(key: KeyArrayLike | None, shape: ShapeLike, dtype: DTypeLike = dtypes.float32
          ) -> Array:
    """An array of zeros (the key is ignored).

    Example:
        >>> from funcarray.nn import initializers
        >>> initializers.zeros(None, (2, 1))
        Array([[0.],
               [0.]], dtype=float32)
    """
    return fnp.zeros(_shape_tuple("zeros", shape), dtype)


def ones(key: KeyArrayLike | None, shape: ShapeLike, dtype: DTypeLike = dtypes.float32
         ) -> Array:
    """An array of ones (the key is ignored).

    Example:
        >>> from funcarray.nn import initializers
        >>> initializers.ones(None, (2,))
        Array([1., 1.], dtype=float32)
    """
    return fnp.ones(_shape_tuple("ones", shape), dtype)


def constant(value: ArrayLike, dtype: DTypeLike = dtypes.float32) -> Initializer:
    """An initializer that fills the shape with ``value``.

    Example:
        >>> from funcarray.nn import initializers
        >>> initializers.constant(-7)(None, (2,))
        Array([-7., -7.], dtype=float32)
    """
    def init(key, shape, dtype=dtype):
        return fnp.full(_shape_tuple("constant", shape), value, dtype)
    return init


def uniform(scale: ArrayLike = 1e-2, dtype: DTypeLike = dtypes.float32) -> Initializer:
    """An initializer drawing uniformly from ``[0, scale)``.

    Example:
        >>> from funcarray.nn import initializers
        >>> init = initializers.uniform(0.5)
        >>> callable(init)
        True
    """
    return _scaled_draw("uniform", scale, dtype)


def normal(stddev: ArrayLike = 1e-2, dtype: DTypeLike = dtypes.float32) -> Initializer:
    """An initializer drawing from a normal distribution with mean 0 and std ``stddev``.

    Example:
        >>> from funcarray.nn import initializers
        >>> init = initializers.normal(0.1)
        >>> callable(init)
        True
    """
    return _scaled_draw("normal", stddev, dtype)


def _scaled_draw(sampler: str, scale, default_dtype):
    """An initializer: ``funcarray.random.<sampler>(key, shape, dtype) * scale``."""
    def init(key, shape, dtype=default_dtype):
        dtype = _float_dtype(sampler, dtype)
        values = getattr(_random(), sampler)(key, _shape_tuple(sampler, shape), dtype)
        return values * fnp.asarray(scale, dtype)
    return init


def truncated_normal(stddev: ArrayLike = 1e-2, dtype: DTypeLike = dtypes.float32,
                     lower: ArrayLike = -2.0, upper: ArrayLike = 2.0) -> Initializer:
    """An initializer drawing ``stddev * z`` with ``z`` standard normal truncated to
    ``(lower, upper)`` (so the draws' own std is below ``stddev``, as in JAX).

    Example:
        >>> from funcarray.nn import initializers
        >>> init = initializers.truncated_normal(0.1)
        >>> callable(init)
        True
    """
    def init(key, shape, dtype=dtype):
        dtype = _float_dtype("truncated_normal", dtype)
        shape = _shape_tuple("truncated_normal", shape)
        values = _random().truncated_normal(key, lower, upper, shape, dtype)
        return values * fnp.asarray(stddev, dtype)
    return init


def _axes_size(op: str, shape: tuple, axes, what: str) -> int:
    """The product of the sizes of ``axes`` (an int or a sequence of ints) of ``shape``."""
    single = isinstance(axes, (int, np.integer))
    axes = (axes,) if single else tuple(axes)
    size = 1
    for axis in axes:
        if not -len(shape) <= axis < len(shape):
            raise op_value_error(
                op, f"{what} {axis} is out of range for a weight of shape {shape}")
        size *= shape[axis]
    return size


def _compute_fans(op: str, shape: tuple, in_axis, out_axis, batch_axis) -> tuple:
    if in_axis == -2 and len(shape) <= 1:
        raise op_value_error(
            op, f"cannot tell the input and output sizes of a {len(shape)}-dimensional weight "
                f"{shape} with the default in_axis=-2; give a shape of at least 2 dimensions "
                f"or pass in_axis explicitly")
    in_size = _axes_size(op, shape, in_axis, "in_axis")
    out_size = _axes_size(op, shape, out_axis, "out_axis")
    batch_size = _axes_size(op, shape, batch_axis, "batch_axis")
    if in_size * out_size * batch_size == 0:
        raise op_value_error(op, f"the weight shape {shape} has a zero-sized fan axis")
    receptive_field = math.prod(shape) / in_size / out_size / batch_size
    return in_size * receptive_field, out_size * receptive_field


def variance_scaling(scale: float, mode: str, distribution: str,
                     in_axis: int | Sequence[int] = -2, out_axis: int | Sequence[int] = -1,
                     batch_axis: int | Sequence[int] = (), dtype: DTypeLike = dtypes.float32
                     ) -> Initializer:
    """An initializer with variance ``scale / n``, ``n`` given by ``mode`` (see the module).

    ``distribution`` is ``"truncated_normal"`` (normal truncated at 2 standard deviations,
    rescaled to keep the variance), ``"normal"`` or ``"uniform"`` (on ``[-a, a)`` with
    ``a = sqrt(3 * variance)``).

    Example:
        >>> from funcarray.nn import initializers
        >>> init = initializers.variance_scaling(2.0, "fan_in", "normal")
        >>> callable(init)
        True
    """
    op = "variance_scaling"
    if mode not in _MODES:
        raise op_value_error(op, f"mode must be one of {_MODES}, got {mode!r}")
    if distribution not in _DISTRIBUTIONS:
        raise op_value_error(
            op, f"distribution must be one of {_DISTRIBUTIONS}, got {distribution!r}")
    if not isinstance(scale, (int, float, np.integer, np.floating)) or scale < 0:
        raise op_value_error(op, f"scale must be a non-negative number, got {scale!r}")

    def init(key, shape, dtype=dtype):
        dtype = _float_dtype(op, dtype)
        shape = _shape_tuple(op, shape)
        fan_in, fan_out = _compute_fans(op, shape, in_axis, out_axis, batch_axis)
        denominator = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2,
                       "fan_geo_avg": math.sqrt(fan_in * fan_out)}[mode]
        stddev = math.sqrt(scale / denominator)
        random = _random()
        if distribution == "truncated_normal":
            values = random.truncated_normal(key, -2.0, 2.0, shape, dtype)
            return values * fnp.asarray(stddev / _TRUNCATED_STDDEV, dtype)
        if distribution == "normal":
            return random.normal(key, shape, dtype) * fnp.asarray(stddev, dtype)
        values = random.uniform(key, shape, dtype, minval=-1.0, maxval=1.0)
        return values * fnp.asarray(math.sqrt(3.0) * stddev, dtype)

    return init


def _named_scaling(name: str, scale: float, mode: str, distribution: str
                   ) -> _ScalingConstructor:
    def constructor(in_axis=-2, out_axis=-1, batch_axis=(), dtype=dtypes.float32):
        return variance_scaling(scale, mode, distribution, in_axis, out_axis, batch_axis, dtype)

    constructor.__name__ = constructor.__qualname__ = name
    constructor.__doc__ = (
        f"``variance_scaling({scale}, {mode!r}, {distribution!r})``.\n\n"
        f"    Example:\n"
        f"        >>> from funcarray.nn import initializers\n"
        f"        >>> init = initializers.{name}()\n"
        f"        >>> callable(init)\n"
        f"        True\n")
    return constructor


glorot_uniform = _named_scaling("glorot_uniform", 1.0, "fan_avg", "uniform")
glorot_normal = _named_scaling("glorot_normal", 1.0, "fan_avg", "truncated_normal")
lecun_uniform = _named_scaling("lecun_uniform", 1.0, "fan_in", "uniform")
lecun_normal = _named_scaling("lecun_normal", 1.0, "fan_in", "truncated_normal")
he_uniform = _named_scaling("he_uniform", 2.0, "fan_in", "uniform")
he_normal = _named_scaling("he_normal", 2.0, "fan_in", "truncated_normal")
xavier_uniform, xavier_normal = glorot_uniform, glorot_normal
kaiming_uniform, kaiming_normal = he_uniform, he_normal
