"""``jax.lax``'s low-level random numbers: ``rng_bit_generator``, ``RandomAlgorithm`` and
``rng_uniform`` (XLA's RngBitGenerator and Rng ops; primitives in ``primitives/rng.py``).

Most code should use ``funcarray.random`` (threefry keys, the same bits as ``jax.random``
everywhere). These two expose XLA's own generators: their bits depend on the backend (as
in JAX), eager mode runs the same XLA op as jit, so on one backend eager, jit and jax.lax give
the same bits.

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray import lax
    >>> key = fnp.asarray([1, 2, 3, 4], fnp.uint32)
    >>> new_key, bits = lax.rng_bit_generator(key, (2, 3), dtype=fnp.uint8)
    >>> bits.shape, bits.dtype, new_key.shape
    ((2, 3), dtype('uint8'), (4,))
"""

from __future__ import annotations

import enum
import operator
from typing import TYPE_CHECKING

import numpy as np

from funcarray.base.errors import op_type_error, op_value_error
from funcarray.lax._ops_common import (
    _concrete,
    _dtype_arg,
    _operand,
    _plain_ints,
    _same_dtype_operands,
    _short,
)
from funcarray.primitives.rng import BIT_DTYPES, rng_bit_generator_p, rng_uniform_p
from funcarray.transforms.host_shortcuts import host_shortcut

if TYPE_CHECKING:
    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike, DTypeLike, Shape

__all__ = ["RandomAlgorithm", "rng_bit_generator", "rng_uniform"]


class RandomAlgorithm(enum.IntEnum):
    """XLA's bit generator algorithms (jax.lax's enum): the backend's default, Threefry or
    Philox.

    Example:
        >>> from funcarray import lax
        >>> lax.RandomAlgorithm.RNG_PHILOX.value
        2
    """

    RNG_DEFAULT = 0
    RNG_THREE_FRY = 1
    RNG_PHILOX = 2


_ALGORITHM_NAMES = {0: "DEFAULT", 1: "THREE_FRY", 2: "PHILOX"}


def _shape_arg(op: str, shape) -> tuple:
    try:
        dims = (operator.index(shape),) if not hasattr(shape, "__iter__") else tuple(
            operator.index(d) for d in shape)
    except TypeError:
        raise op_type_error(op, f"shape must be a sequence of ints, got {shape!r}") from None
    if any(d < 0 for d in dims):
        raise op_value_error(op, f"shape {dims} has a negative dimension")
    return dims


def rng_bit_generator(key: ArrayLike, shape: Shape, dtype: DTypeLike = np.uint32,
                      algorithm: RandomAlgorithm = RandomAlgorithm.RNG_DEFAULT, *,
                      out_sharding: None = None) -> Array:
    """XLA's stateless bit generator: returns ``(new_key, bits)``, ``bits`` uniformly random
    of ``shape`` and an unsigned ``dtype`` (uint8/16/32/64), from a ``uint32[4]`` key. The
    bits are the backend's (they differ between CPU and GPU, as in JAX); the same key gives
    the same bits, and ``new_key`` continues the stream. ``out_sharding`` is accepted and
    ignored (one device). Under ``vmap`` each member draws from its own key.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> key = fnp.asarray([1, 2, 3, 4], fnp.uint32)
        >>> k1, a = lax.rng_bit_generator(key, (3,))
        >>> k2, b = lax.rng_bit_generator(key, (3,))
        >>> bool((a == b).all()), bool((k1 == key).all())
        (True, False)
    """
    op = "lax.rng_bit_generator"
    key = _operand(op, key, "key")
    if key.shape != (4,) or key.dtype != np.uint32:
        raise op_type_error(op, f"key must be a uint32 array of shape (4,), got {_short(key)}")
    dims = _shape_arg(op, shape)
    dt = _dtype_arg(op, dtype)
    if dt not in BIT_DTYPES:
        raise op_type_error(op, f"unsupported dtype {dt}; use uint8, uint16, uint32 or uint64")
    try:
        name = _ALGORITHM_NAMES[int(getattr(algorithm, "value", algorithm))]
    except (KeyError, TypeError, ValueError):
        raise op_value_error(op, f"algorithm must be a lax.RandomAlgorithm, got "
                                 f"{algorithm!r}") from None
    new_key, bits = rng_bit_generator_p.bind(key, shape=dims, dtype=dt, algorithm=name)
    return new_key, bits


def _uniform_dtype(dtype) -> bool:
    kind = dtype.kind
    return kind == "f" or dtype.name == "bfloat16" or (kind in "iu" and dtype.itemsize >= 4)


def _rng_uniform_on_host(a, b, shape):
    """Concrete scalar bounds of one accepted dtype (NumPy scalars made Arrays as the general
    path makes them) and a shape of plain ints go to the impl at once (the same draws from
    the same generator)."""
    low, high, shape = _concrete(a), _concrete(b), _plain_ints(shape)
    if (low is None or high is None or shape is None or low.dtype != high.dtype or low.ndim
            or high.ndim or not _uniform_dtype(low.dtype) or any(d < 0 for d in shape)):
        return NotImplemented
    return rng_uniform_p.impl(low, high, shape=shape)


@host_shortcut(_rng_uniform_on_host)
def rng_uniform(a: ArrayLike, b: ArrayLike, shape: Shape) -> Array:
    """XLA's stateful uniform generator: values in ``[a, b)`` (scalars of one float or
    integer dtype) of ``shape``, from hidden state, so each call (and each run of a compiled
    function) gives new values; if ``b <= a`` the result is unspecified. Experimental in JAX
    and not differentiable; prefer ``funcarray.random``.

    Example:
        >>> from funcarray import lax
        >>> x = lax.rng_uniform(0.0, 1.0, (3,))
        >>> x.shape, bool(((x >= 0) & (x < 1)).all())
        ((3,), True)
    """
    op = "lax.rng_uniform"
    low, high = _same_dtype_operands(op, (a, b))
    if low.ndim or high.ndim:
        raise op_value_error(op, f"a and b must be scalars, got {_short(low)} and "
                                 f"{_short(high)}")
    if not _uniform_dtype(low.dtype):
        raise op_type_error(op, f"does not accept dtype {low.dtype}; use a floating or a 32/64-bit "
                                f"integer dtype")
    return rng_uniform_p.bind(low, high, shape=_shape_arg(op, shape))
