"""Debugging inside transformed code, as ``jax.debug``: ``print`` and ``callback``.

The public module; the implementation is ``funcarray/api/debugging.py``.
"""

from funcarray.api.debugging import (  # noqa: F401  (re-exports)
    callback,
    print,
)

__all__ = [
    'print', 'callback'
]
