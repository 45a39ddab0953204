"""Type annotations for code that uses funcarray (JAX's ``jax.typing``).

The public module; the implementation is ``funcarray/base/typing.py``.
"""

from funcarray.base.typing import (  # noqa: F401  (re-exports)
    Array,
    ArrayLike,
    Axis,
    DType,
    DTypeLike,
    Shape,
    ShapeLike,
    StaticScalar,
    SupportsDType,
)

__all__ = [
    'Array', 'ArrayLike', 'Axis', 'DType', 'DTypeLike', 'Shape', 'ShapeLike',
    'StaticScalar', 'SupportsDType'
]
