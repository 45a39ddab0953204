"""Rematerialisation: ``checkpoint`` (``remat``), its policies, ``checkpoint_name`` and the
residual inspectors, as in ``jax.ad_checkpoint``.

The public module; the implementation is ``funcarray/api/checkpoint.py``.
"""

from funcarray.api.checkpoint import (  # noqa: F401  (re-exports)
    checkpoint,
    checkpoint_name,
    checkpoint_policies,
    print_saved_residuals,
    remat,
    saved_residuals,
)

__all__ = [
    'checkpoint', 'remat', 'checkpoint_policies', 'checkpoint_name', 'saved_residuals',
    'print_saved_residuals'
]
