"""Operations the transforms need but cannot define themselves.

The transforms know no particular primitive, yet they must add tangents and cotangents, make
zeros, and move or insert batch axes. funcarray registers those operations here at import
(``funcarray/primitives/_transform_support.py``), built from its own primitives, so that they
are traced like any other operation. Until then, using a transform raises a clear error.

Example:
    >>> import funcarray  # registers the operations
    >>> from funcarray.transforms import support
    >>> support.ops.add(funcarray.numpy.ones(2), funcarray.numpy.ones(2))
    Array([2., 2.], dtype=float32)
"""

from __future__ import annotations

__all__ = ["ops", "register"]


def _unregistered(name):
    def fail(*args, **kwargs):
        raise RuntimeError(
            f"The transform support operation '{name}' is not registered: import funcarray "
            f"(not only funcarray.transforms) before using a transform.")
    return fail


class _Ops:
    """``add(x, y)`` (same shape and dtype), ``zeros(aval)``, ``moveaxis(x, src, dst)``,
    ``broadcast_batch(x, size, axis)`` (insert a new axis of ``size`` at ``axis``), and the
    ``broadcast_in_dim_p`` primitive itself (the XLA eager engine puts it in the single-op
    IRs it compiles, to broadcast elementwise operands as staging does)."""

    NAMES = ("add", "zeros", "moveaxis", "broadcast_batch", "broadcast_in_dim_p")

    def __init__(self):
        for name in self.NAMES:
            setattr(self, name, _unregistered(name))


ops = _Ops()


def register(**functions) -> None:
    """Install the operations (called once by funcarray)."""
    for name, fn in functions.items():
        if name not in _Ops.NAMES:
            raise ValueError(f"unknown transform support operation {name!r}")
        setattr(ops, name, fn)
