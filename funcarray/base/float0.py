"""float0 values at the edge of the transforms (JAX's tangent type of integers and booleans).

Inside the transforms the tangent of an integer or boolean value is a symbolic ``Zero``
(``transforms/jvp.py``): it costs nothing and never becomes an array. JAX hands such tangents
to the user as NumPy arrays of dtype ``float0`` (zero bytes per element: only the shape is
stored), and so does funcarray, at the API edge only: ``grad(allow_int=True)``, ``vjp``,
``jvp``, ``linearize``, custom rules. A float0 array is not a funcarray ``Array`` (no
operation accepts it), so the transforms that carry pytrees of values through staged or
batched code (``jit``, ``vmap``) set float0 leaves aside, keeping their shapes as *holes*,
and put zeros of the right shape back afterwards.

Example:
    >>> import numpy as np
    >>> kept, holes = split([1.0, zeros((2,))])
    >>> kept, holes
    ([1.0], ((1, (2,)),))
    >>> fill(kept, holes)[1].shape
    (2,)
"""

from __future__ import annotations

import numpy as np

from funcarray.base.dtypes import float0

__all__ = ["is_float0", "is_float0_dtype", "zeros", "split", "fill"]


def is_float0(x) -> bool:
    """Whether ``x`` is a NumPy array (or scalar) of dtype float0.

    Example:
        >>> is_float0(zeros(3)), is_float0(np.zeros(3))
        (True, False)
    """
    return isinstance(x, (np.ndarray, np.generic)) and x.dtype == float0


def is_float0_dtype(dtype) -> bool:
    """Whether ``dtype`` is float0.

    Example:
        >>> is_float0_dtype(float0), is_float0_dtype(np.float32)
        (True, False)
    """
    try:
        return np.dtype(dtype) == float0
    except TypeError:  # not a dtype at all
        return False


def zeros(shape) -> np.ndarray:
    """The float0 array of ``shape`` (all float0 arrays are zeros).

    Example:
        >>> zeros((2, 3)).shape
        (2, 3)
    """
    return np.zeros(shape, float0)


def split(leaves) -> tuple[list, tuple | None]:
    """``(kept, holes)``: the leaves that are not float0, and the positions and shapes of the
    float0 ones (``None`` when there are none, the common case)."""
    holes = tuple((k, x.shape) for k, x in enumerate(leaves) if is_float0(x))
    if not holes:
        return list(leaves), None
    return [x for x in leaves if not is_float0(x)], holes


def fill(kept, holes, *, shapes=None) -> list:
    """``kept`` with float0 zeros put back at the ``holes`` (from ``split``); ``shapes``
    overrides the holes' shapes (a batch axis inserted, say)."""
    if not holes:
        return list(kept)
    out = list(kept)
    for i, (k, shape) in enumerate(holes):
        out.insert(k, zeros(shape if shapes is None else shapes[i]))
    return out
