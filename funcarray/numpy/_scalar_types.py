"""Scalar types: ``fnp.float32`` is both a dtype and a constructor, as in jax.numpy.

``fnp.float32(1.5)`` returns a strong-typed 0-d Array (``fnp.float32([1, 2])`` an Array of
that dtype); everywhere a dtype is expected (``dtype=fnp.float32``, ``np.dtype(fnp.float32)``,
``x.dtype == fnp.float32``) it behaves as the NumPy dtype it wraps. ``funcarray.dtypes`` keeps
the plain NumPy dtypes for internal use.

Example:
    >>> import numpy as np
    >>> import funcarray.numpy as fnp
    >>> fnp.float32(1.5)
    Array(1.5, dtype=float32)
    >>> fnp.zeros(2, fnp.int8).dtype == fnp.int8, np.dtype(fnp.bfloat16).name
    (True, 'bfloat16')
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from funcarray.numpy._creation import asarray

if TYPE_CHECKING:
    from typing import Any

    from funcarray.base.array import Array
    from funcarray.base.typing import DTypeLike

__all__ = ["ScalarType"]


class ScalarType:
    """A dtype that can be called to make an Array of that dtype (see the module docstring)."""

    __slots__ = ("dtype",)
    dtype: np.dtype

    def __init__(self, dtype: DTypeLike) -> None:
        self.dtype = np.dtype(dtype)

    def __call__(self, value: Any) -> Array:
        return asarray(value, dtype=self.dtype)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ScalarType):
            return self.dtype == other.dtype
        try:
            return self.dtype == np.dtype(other)
        except TypeError:
            return NotImplemented

    def __hash__(self) -> int:
        return hash(self.dtype)

    @property
    def name(self) -> str:
        return self.dtype.name

    def __repr__(self) -> str:
        return f"funcarray.numpy.{self.dtype.name}"
