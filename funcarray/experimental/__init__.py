"""``funcarray.experimental``, as ``jax.experimental``: ``io_callback``.

The public module; the implementation is ``funcarray/api/callbacks.py``.
"""

from funcarray.api.callbacks import io_callback  # noqa: F401  (re-export)

__all__ = ["io_callback"]
