"""Type annotations for code that uses funcarray (JAX's ``jax.typing``).

``ArrayLike`` is what funcarray's functions accept where an array is expected: an ``Array``, a
NumPy array, or a NumPy or Python scalar. As in JAX it leaves out nested lists (which
funcarray converts at run time too), so annotated code checks the same against jax.
``DTypeLike`` is what a ``dtype=`` argument accepts: a name (``"float32"``), a scalar type
(``float``, ``np.int8``), a ``numpy.dtype``, or anything with a ``dtype`` attribute
(``funcarray.numpy.float32``).

Pytrees (the arguments and results of ``grad``, ``vmap``, ``jit``...) are typed ``Any``: no
static type describes an arbitrary nest of containers.

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray.typing import ArrayLike
    >>> def double(x: ArrayLike) -> fnp.ndarray:
    ...     return fnp.asarray(x) * 2
    >>> double(1.5)
    Array(3., dtype=float32, weak_type=True)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, SupportsIndex, TypeAlias, runtime_checkable

import numpy as np

from funcarray.base.array import Array

__all__ = ["Array", "ArrayLike", "Axis", "DType", "DTypeLike", "Shape", "ShapeLike",
           "StaticScalar", "SupportsDType"]


@runtime_checkable
class SupportsDType(Protocol):
    """Anything with a ``dtype`` attribute, such as ``funcarray.numpy.float32``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> isinstance(fnp.float32, SupportsDType)
        True
    """

    @property
    def dtype(self, /) -> np.dtype: ...


DType: TypeAlias = np.dtype
# Python and NumPy scalars: what can be converted to a 0-d array and passed as a static
# argument.
StaticScalar: TypeAlias = np.bool_ | np.number | bool | int | float | complex
ArrayLike: TypeAlias = Array | np.ndarray | StaticScalar
DTypeLike: TypeAlias = str | type[Any] | np.dtype | SupportsDType
Shape: TypeAlias = Sequence[int]

# Shorthands of funcarray's own signatures: a shape argument (``fnp.zeros(3)``,
# ``fnp.zeros((2, n))``; NumPy integers count), and an axis argument (one axis, several, or
# None for every axis).
ShapeLike: TypeAlias = SupportsIndex | Sequence[SupportsIndex]
Axis: TypeAlias = int | Sequence[int] | None
