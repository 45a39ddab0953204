"""``jax.test_util``'s ``check_grads`` signature over funcarray's checker (``_checks``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from funcarray.testing import _checks

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

__all__ = ["check_grads"]


def check_grads(f: Callable[..., Any], args: Sequence[Any], order: int,
                modes: Sequence[str] = ("fwd", "rev"), atol: float | None = None,
                rtol: float | None = None, eps: float | None = None) -> None:
    """Check ``f``'s derivatives up to ``order`` against finite differences, with
    ``jax.test_util.check_grads``' signature: ``funcarray.testing.check_grads`` (``"fwd"``
    checks jvp, ``"rev"`` checks vjp; raises an AssertionError showing the mismatch).

    Example:
        >>> import funcarray.numpy as fnp
        >>> check_grads(fnp.tanh, (fnp.arange(3.0),), order=2)
        >>> check_grads(lambda x: x ** 2, (1.5,), 1, modes=["rev"], atol=1e-6)
    """
    _checks.check_grads(f, args, order, modes, eps=eps, rtol=rtol, atol=atol)
