"""Gradient checking for tests, as ``jax.test_util``: ``check_grads``.

The public module; the implementation is ``funcarray/testing/_jax_test_util.py`` (over
``funcarray.testing``'s checker, which has more options).
"""

from funcarray.testing._jax_test_util import (  # noqa: F401  (re-exports)
    check_grads,
)

__all__ = [
    'check_grads'
]
