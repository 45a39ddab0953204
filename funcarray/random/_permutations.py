"""Shuffles and draws from a population: ``permutation`` and ``choice``, with
``jax.random``'s algorithms (sorting by fresh random bits, JAX's number of rounds; Gumbel-top-k
for weighted draws without replacement).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from funcarray import numpy as fnp
from funcarray.api.arguments import asarray_arg, canonicalize_axis, convert
from funcarray.base import dtypes
from funcarray.base.array import Array
from funcarray.base.errors import api_boundary, op_type_error, op_value_error
from funcarray.random._continuous import _draw_gumbel
from funcarray.random._discrete import randint
from funcarray.random._prng import _random_bits, _split, canonical_shape, check_key
from funcarray.random._sampling import _is_concrete, _top_k_indices, _uniform

if TYPE_CHECKING:
    from funcarray.base.typing import ArrayLike, ShapeLike
    from funcarray.random._keys import KeyArrayLike

__all__ = ["permutation", "choice"]


def _shuffle(key, x, axis: int):
    """Sort by fresh random 32-bit keys, enough rounds that ties are negligible (JAX's
    schedule: ceil(3 ln(size) / ln(2**32 - 1)) rounds)."""
    rounds = int(np.ceil(3 * np.log(max(1, x.size)) / np.log(2 ** 32 - 1)))
    for _ in range(rounds):
        pair = _split(key, (2,))
        key, subkey = pair[0], pair[1]
        order = fnp.argsort(_random_bits(subkey, 32, x.shape), axis=axis, stable=True)
        x = fnp.take_along_axis(x, order, axis=axis)
    return x


@api_boundary
def permutation(key: KeyArrayLike, x: ArrayLike, axis: int = 0, independent: bool = False) -> Array:
    """A random permutation of ``arange(x)`` (an int) or of ``x``'s slices along ``axis``
    (each slice shuffled separately when ``independent``).

    Example:
        >>> import funcarray.random as fr
        >>> sorted(fr.permutation(fr.key(0), 5).tolist())
        [0, 1, 2, 3, 4]
    """
    key = check_key("permutation", key)
    if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
        return _shuffle(key, fnp.arange(int(x)), 0)
    x = asarray_arg("permutation", x)
    if x.ndim == 0:
        if not dtypes.is_integer(x.dtype) or not _is_concrete(x):
            raise op_type_error("permutation", "x must be a concrete integer or an array with at "
                                               "least one dimension")
        return _shuffle(key, fnp.arange(int(x)), 0)
    axis = canonicalize_axis("permutation", axis, x.ndim)
    if independent or x.ndim == 1:
        return _shuffle(key, x, axis)
    order = _shuffle(key, fnp.arange(x.shape[axis]), 0)
    return fnp.take(x, order, axis=axis)


@api_boundary
def choice(key: KeyArrayLike, a: int | ArrayLike, shape: ShapeLike = (), replace: bool = True,
           p: ArrayLike | None = None, axis: int = 0, mode: str | None = None) -> Array:
    """Random samples from ``a`` (an array, or ``arange(a)`` for an int), with or without
    replacement, uniformly or with probabilities ``p``.

    Example:
        >>> import funcarray.random as fr
        >>> draws = fr.choice(fr.key(0), 5, (3,), replace=False)
        >>> len(set(draws.tolist()))
        3
    """
    key = check_key("choice", key)
    if not isinstance(shape, (tuple, list)):
        raise op_type_error("choice", f"shape must be a sequence, got {shape!r}")
    shape = canonical_shape("choice", shape)
    arr = asarray_arg("choice", a)
    if arr.ndim == 0:
        if not dtypes.is_integer(arr.dtype) or not _is_concrete(arr):
            raise op_type_error("choice", "a must be a concrete integer or an array")
        n_inputs = int(arr)
    else:
        axis = canonicalize_axis("choice", axis, arr.ndim)
        n_inputs = arr.shape[axis]
    n_draws = math.prod(shape)
    if n_draws == 0:
        return fnp.zeros(shape, dtype=arr.dtype)
    if n_inputs <= 0:
        raise op_value_error("choice", "a must be greater than 0 unless no samples are taken")
    if not replace and n_draws > n_inputs:
        raise op_value_error(
            "choice", f"cannot take a larger sample (size {n_draws}) than the population (size "
                      f"{n_inputs}) when replace=False")
    if p is None:
        if replace:
            ind = randint(key, shape, 0, n_inputs)
            result = ind if arr.ndim == 0 else fnp.take(arr, ind, axis=axis)
        else:
            population = n_inputs if arr.ndim == 0 else arr
            shuffled = permutation(key, population, axis)
            result = shuffled[(slice(None),) * (axis if arr.ndim else 0) + (slice(n_draws),)]
    else:
        p = asarray_arg("choice", p)
        p = convert(p, p.dtype if dtypes.is_inexact(p.dtype) else dtypes.default_float)
        if p.shape != (n_inputs,):
            raise op_value_error(
                "choice", f"p must be None or a 1-d vector with the same size as a.shape[axis]; "
                          f"p has shape {p.shape} and a.shape[axis] is {n_inputs}")
        if replace:
            cumulative = fnp.cumsum(p)
            r = cumulative[-1] * (1.0 - _uniform(key, shape, p.dtype))
            # searchsorted(cumulative, r, side="left"): how many entries lie below r.
            ind = fnp.sum(cumulative < r[..., None], axis=-1, dtype=dtypes.int32)
        else:
            draw_mode = "low" if mode is None else mode
            g = _draw_gumbel(key, (n_inputs,), p.dtype, draw_mode) + fnp.log(p)
            ind = _top_k_indices(g, n_draws)
        result = ind if arr.ndim == 0 else fnp.take(arr, ind, axis=axis)
    out_shape = shape if arr.ndim == 0 else arr.shape[:axis] + shape + arr.shape[axis + 1:]
    return fnp.reshape(result, out_shape)
