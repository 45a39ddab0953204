"""Debugging inside transformed code, as ``jax.debug``: ``print``, ``callback`` and ``breakpoint``.

The public module; the implementation is ``funcarray/api/debugging.py``.
"""

from funcarray.api.debugging import (  # noqa: F401  (re-exports)
    breakpoint,
    callback,
    print,
)

__all__ = [
    'print', 'callback', 'breakpoint'
]
