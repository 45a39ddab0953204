"""JAX's exception classes, as ``jax.errors``, raised where JAX raises them.

Each is also an instance of the ordinary type funcarray's other errors of its kind are
(``ConcretizationError``, a ``TypeError``, for every conversion of a traced value), so code
catching either keeps working. ``KeyReuseError`` is defined for code that catches it, but
nothing raises it: funcarray has no key-reuse checker (JAX's ``jax_debug_key_reuse``).

The public module; the classes are defined in ``transforms/core.py`` (the tracer errors) and
``funcarray/base/errors.py``.

Example:
    >>> import funcarray as fa
    >>> import funcarray.numpy as fnp
    >>> @fa.jit
    ... def relu(x):
    ...     return x if x > 0 else 0.0
    >>> try:
    ...     relu(fnp.float32(2.0))
    ... except fa.errors.TracerBoolConversionError as e:
    ...     print(type(e).__name__, isinstance(e, fa.errors.ConcretizationTypeError))
    TracerBoolConversionError True
"""

from funcarray.base.errors import (  # noqa: F401  (re-exports)
    KeyReuseError,
    NonConcreteBooleanIndexError,
)
from funcarray.transforms.core import (  # noqa: F401  (re-exports)
    ConcretizationTypeError,
    TracerArrayConversionError,
    TracerBoolConversionError,
    TracerIntegerConversionError,
    UnexpectedTracerError,
)

__all__ = [
    'ConcretizationTypeError', 'KeyReuseError', 'NonConcreteBooleanIndexError',
    'TracerArrayConversionError', 'TracerBoolConversionError', 'TracerIntegerConversionError',
    'UnexpectedTracerError'
]
