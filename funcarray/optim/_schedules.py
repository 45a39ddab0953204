"""Learning-rate schedules: functions ``count -> value`` of the step count (optax's names and
formulas). They take a Python int or an int32 array (the count optimizers keep in their state)
and work under ``jit``; pass one as ``learning_rate=`` to any optimizer.
"""

from __future__ import annotations

import math
import numbers
from typing import TYPE_CHECKING

from funcarray import numpy as fnp
from funcarray.base.errors import op_type_error, op_value_error

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike
    from funcarray.optim._base import Schedule

__all__ = [
    "constant_schedule", "polynomial_schedule", "linear_schedule", "exponential_decay",
    "cosine_decay_schedule", "warmup_cosine_decay_schedule", "join_schedules",
    "piecewise_constant_schedule",
]


def _real(op: str, name: str, value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise op_type_error(op, f"{name} must be a real number, got {value!r}")
    return value


def _int(op: str, name: str, value: int, low: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise op_type_error(op, f"{name} must be a Python int, got {value!r}")
    if value < low:
        raise op_value_error(op, f"{name} must be >= {low}, got {value}")
    return int(value)


def _float_count(count: ArrayLike) -> Array:
    """The step count as a float32 array (or float64 if it is 64-bit)."""
    count = fnp.asarray(count)
    return count if fnp.issubdtype(count.dtype, fnp.floating) else (
        count.astype(fnp.float64 if count.dtype.itemsize == 8 else fnp.float32))


def constant_schedule(value: float) -> Callable[[ArrayLike], float]:
    """The schedule that is always ``value``.

    Example:
        >>> import funcarray.optim as optim
        >>> optim.constant_schedule(0.1)(100)
        0.1
    """
    _real("constant_schedule", "value", value)
    return lambda count: value


def polynomial_schedule(init_value: float, end_value: float, power: float,
                        transition_steps: int, transition_begin: int = 0
                        ) -> Callable[[ArrayLike], Array]:
    """``(init - end) (1 - s / transition_steps)^power + end``, ``s`` the steps since
    ``transition_begin`` clipped to ``[0, transition_steps]``.

    Example:
        >>> import funcarray.optim as optim
        >>> optim.polynomial_schedule(1.0, 0.0, 2, 10)(5)
        Array(0.25, dtype=float32)
    """
    op = "polynomial_schedule"
    for name, value in (("init_value", init_value), ("end_value", end_value), ("power", power)):
        _real(op, name, value)
    transition_steps = _int(op, "transition_steps", transition_steps, 1)
    transition_begin = _int(op, "transition_begin", transition_begin)

    def schedule(count):
        steps = fnp.clip(_float_count(count) - transition_begin, 0, transition_steps)
        fraction = 1 - steps / transition_steps
        return (init_value - end_value) * fraction ** power + end_value

    return schedule


def linear_schedule(init_value: float, end_value: float, transition_steps: int,
                    transition_begin: int = 0) -> Callable[[ArrayLike], Array]:
    """Linear interpolation from ``init_value`` to ``end_value`` over ``transition_steps``.

    Example:
        >>> import funcarray.optim as optim
        >>> optim.linear_schedule(1.0, 0.0, 4)(1)
        Array(0.75, dtype=float32)
    """
    return polynomial_schedule(init_value, end_value, 1, transition_steps, transition_begin)


def exponential_decay(init_value: float, transition_steps: int, decay_rate: float,
                      transition_begin: int = 0, staircase: bool = False,
                      end_value: float | None = None) -> Callable[[ArrayLike], Array]:
    """``init_value * decay_rate^(s / transition_steps)``, ``s`` the steps since
    ``transition_begin`` (``init_value`` before it); the exponent is floored with
    ``staircase=True`` and the value bounded by ``end_value`` if given.

    Example:
        >>> import funcarray.optim as optim
        >>> optim.exponential_decay(1.0, transition_steps=10, decay_rate=0.5)(20)
        Array(0.25, dtype=float32)
    """
    op = "exponential_decay"
    _real(op, "init_value", init_value)
    _real(op, "decay_rate", decay_rate)
    transition_steps = _int(op, "transition_steps", transition_steps, 1)
    transition_begin = _int(op, "transition_begin", transition_begin)
    if decay_rate <= 0:
        raise op_value_error(op, f"decay_rate must be positive, got {decay_rate}")
    if end_value is not None:
        _real(op, "end_value", end_value)

    def schedule(count):
        steps = _float_count(count) - transition_begin
        exponent = steps / transition_steps
        if staircase:
            exponent = fnp.floor(exponent)
        value = fnp.where(steps <= 0, init_value, init_value * decay_rate ** exponent)
        if end_value is not None:
            # The bound is a floor when decaying and a ceiling when growing.
            value = (fnp.maximum if decay_rate < 1 else fnp.minimum)(value, end_value)
        return value

    return schedule


def cosine_decay_schedule(init_value: float, decay_steps: int, alpha: float = 0.0,
                          exponent: float = 1.0) -> Callable[[ArrayLike], Array]:
    """``init_value * ((1 - alpha) c^exponent + alpha)``, ``c = (1 + cos(pi s / decay_steps))
    / 2`` with ``s = min(count, decay_steps)`` (Loshchilov & Hutter, 2016).

    Example:
        >>> import funcarray.optim as optim
        >>> optim.cosine_decay_schedule(2.0, decay_steps=10, alpha=0.25)(20)
        Array(0.5, dtype=float32)
    """
    op = "cosine_decay_schedule"
    _real(op, "init_value", init_value)
    _real(op, "alpha", alpha)
    _real(op, "exponent", exponent)
    decay_steps = _int(op, "decay_steps", decay_steps, 1)

    def schedule(count):
        steps = fnp.minimum(_float_count(count), decay_steps)
        cosine = 0.5 * (1 + fnp.cos(math.pi * steps / decay_steps))
        return init_value * ((1 - alpha) * cosine ** exponent + alpha)

    return schedule


def join_schedules(schedules: Sequence[Schedule], boundaries: Sequence[int]) -> Schedule:
    """``schedules[i](count - boundaries[i-1])`` for counts from ``boundaries[i-1]`` on.

    Example:
        >>> import funcarray.optim as optim
        >>> s = optim.join_schedules([optim.constant_schedule(1.0),
        ...                           optim.linear_schedule(1.0, 0.0, 10)], [5])
        >>> s(10)
        Array(0.5, dtype=float32)
    """
    op = "join_schedules"
    schedules, boundaries = list(schedules), [_int(op, "boundary", b) for b in boundaries]
    if len(schedules) != len(boundaries) + 1:
        raise op_value_error(op, f"needs one more schedule than boundaries, got "
                                 f"{len(schedules)} schedules and {len(boundaries)} boundaries")

    def schedule(count):
        count = fnp.asarray(count)
        value = schedules[0](count)
        for boundary, later in zip(boundaries, schedules[1:]):
            value = fnp.where(count < boundary, value, later(count - boundary))
        return value

    return schedule


def warmup_cosine_decay_schedule(init_value: float, peak_value: float, warmup_steps: int,
                                 decay_steps: int, end_value: float = 0.0,
                                 exponent: float = 1.0) -> Schedule:
    """Linear warmup from ``init_value`` to ``peak_value`` over ``warmup_steps``, then cosine
    decay to ``end_value`` at step ``decay_steps`` (counted from 0, warmup included).

    Example:
        >>> import funcarray.optim as optim
        >>> s = optim.warmup_cosine_decay_schedule(0.0, 1.0, warmup_steps=2, decay_steps=12)
        >>> s(1), s(2), s(12)
        (Array(0.5, dtype=float32), Array(1., dtype=float32), Array(0., dtype=float32))
    """
    op = "warmup_cosine_decay_schedule"
    _real(op, "peak_value", peak_value)
    _real(op, "end_value", end_value)
    warmup_steps = _int(op, "warmup_steps", warmup_steps)
    decay_steps = _int(op, "decay_steps", decay_steps, 1)
    if decay_steps <= warmup_steps:
        raise op_value_error(op, f"decay_steps ({decay_steps}) counts the warmup too, so it "
                                 f"must exceed warmup_steps ({warmup_steps})")
    alpha = 0.0 if peak_value == 0 else end_value / peak_value
    warmup = (linear_schedule(init_value, peak_value, warmup_steps) if warmup_steps
              else constant_schedule(peak_value))
    return join_schedules(
        [warmup, cosine_decay_schedule(peak_value, decay_steps - warmup_steps, alpha, exponent)],
        [warmup_steps])


def piecewise_constant_schedule(init_value: float,
                                boundaries_and_scales: Mapping[int, float] | None = None
                                ) -> Callable[[ArrayLike], Array]:
    """``init_value`` times every ``scale`` whose boundary the count has reached.

    Example:
        >>> import funcarray.optim as optim
        >>> s = optim.piecewise_constant_schedule(1.0, {2: 0.5, 4: 0.1})
        >>> s(3), s(4)
        (Array(0.5, dtype=float32), Array(0.05, dtype=float32))
    """
    op = "piecewise_constant_schedule"
    _real(op, "init_value", init_value)
    pieces = sorted((_int(op, "boundary", b), _real(op, "scale", s))
                    for b, s in (boundaries_and_scales or {}).items())

    def schedule(count):
        count = fnp.asarray(count)
        value = fnp.full((), init_value, fnp.float32)
        for boundary, factor in pieces:
            value = fnp.where(count < boundary, value, value * factor)
        return value

    return schedule
