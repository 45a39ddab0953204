"""Several processes as one job, as ``jax.distributed``: ``initialize``, ``shutdown`` and
``is_initialized``. See ``funcarray/api/multi_process.py``.
"""

from funcarray.api.multi_process import (  # noqa: F401  (re-exports)
    initialize,
    is_initialized,
    shutdown,
)

__all__ = ["initialize", "shutdown", "is_initialized"]
