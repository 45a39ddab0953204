"""Gradient transformations: the building blocks the optimizers are chained from.

Each follows optax's published update equations (``g`` the incoming update, ``t`` the step
count after the increment):

- ``scale(s)``: ``u = s g``; ``scale_by_schedule(f)``: ``u = f(count) g``.
- ``trace(decay, nesterov)``: ``m = g + decay m``; ``u = m`` (or ``g + decay m`` with
  Nesterov).
- ``scale_by_adam(b1, b2, eps, eps_root)``: ``m = b1 m + (1 - b1) g``,
  ``v = b2 v + (1 - b2) g^2``, ``u = m_hat / (sqrt(v_hat + eps_root) + eps)`` with
  ``m_hat = m / (1 - b1^t)``, ``v_hat = v / (1 - b2^t)``.
- ``scale_by_rms(decay, eps, initial_scale)``: ``v = decay v + (1 - decay) g^2``,
  ``u = g / sqrt(v + eps)``; ``scale_by_stddev`` also tracks ``m`` and uses ``v - m^2``.
- ``scale_by_rss(initial_accumulator_value, eps)``: ``s = s + g^2``, ``u = g / sqrt(s + eps)``
  (0 where ``s`` is 0).
- ``add_decayed_weights(w)``: ``u = g + w p``.
- ``clip_by_global_norm(c)``: ``u = g`` if ``||g|| < c`` else ``g c / ||g||``.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

from funcarray import numpy as fnp
from funcarray.api.arguments import asarray_arg, is_array
from funcarray.base import pytrees as tree
from funcarray.base.errors import op_type_error, op_value_error
from funcarray.optim._base import (
    EmptyState,
    GradientTransformation,
    OptState,
    Params,
    Scalar,
    ScalarOrSchedule,
    Updates,
    cast_like,
    full_like_tree,
    global_norm,
    increment,
    init_count,
    tree_map,
    zeros_like_tree,
)

if TYPE_CHECKING:
    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike

__all__ = [
    "TraceState", "ScaleByAdamState", "ScaleByRmsState", "ScaleByStddevState",
    "ScaleByRssState", "ScaleByScheduleState", "scale", "scale_by_schedule",
    "scale_by_learning_rate", "trace", "scale_by_adam", "scale_by_rms", "scale_by_stddev",
    "scale_by_rss", "add_decayed_weights", "clip_by_global_norm",
]


class TraceState(NamedTuple):
    """The momentum buffer of :func:`trace`."""
    trace: Updates


class ScaleByAdamState(NamedTuple):
    """Adam's step count and first and second moment estimates."""
    # (optax's field name; it shadows tuple.count, which type checkers flag)
    count: Array  # type: ignore[assignment]
    mu: Updates
    nu: Updates


class ScaleByRmsState(NamedTuple):
    """RMSProp's running mean of squared gradients."""
    nu: Updates


class ScaleByStddevState(NamedTuple):
    """Centred RMSProp's running means of gradients and squared gradients."""
    mu: Updates
    nu: Updates


class ScaleByRssState(NamedTuple):
    """Adagrad's running sum of squared gradients."""
    sum_of_squares: Updates


class ScaleByScheduleState(NamedTuple):
    """The step count a schedule is evaluated at."""
    count: Array  # type: ignore[assignment]  # (shadows tuple.count: see ScaleByAdamState)


def check_number(op: str, name: str, value: Scalar, low: float | None = None,
                 high: float | None = None, *, allow_array: bool = True) -> Scalar:
    """A hyperparameter: a real number in ``[low, high]`` (or an array, checked by the user)."""
    if allow_array and is_array(value):
        return value
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise op_type_error(op, f"{name} must be a real number, got {value!r}")
    if (low is not None and value < low) or (high is not None and value > high):
        bounds = f"[{low if low is not None else '-inf'}, {high if high is not None else 'inf'}]"
        raise op_value_error(op, f"{name} must be in {bounds}, got {value!r}")
    return value


def _need_state(op: str, state: OptState, kind: type) -> None:
    if not isinstance(state, kind):
        raise op_type_error(
            op, f"expected a {kind.__name__} (the state this transformation's init made), got "
                f"{type(state).__name__}")


def scale(step_size: Scalar) -> GradientTransformation:
    """Multiply updates by a fixed ``step_size``.

    Example:
        >>> import funcarray.optim as optim, funcarray.numpy as fnp
        >>> optim.scale(-2.0).update(fnp.ones(2), optim.EmptyState())[0]
        Array([-2., -2.], dtype=float32)
    """
    check_number("scale", "step_size", step_size)

    def init(params):
        return EmptyState()

    def update(updates, state, params=None):
        return tree_map("scale", lambda g: g * cast_like(step_size, g), updates), state

    return GradientTransformation(init, update)


def scale_by_schedule(step_size_fn: Callable[[Array], ArrayLike]) -> GradientTransformation:
    """Multiply updates by ``step_size_fn(count)``, ``count`` the number of steps so far.

    Example:
        >>> import funcarray.optim as optim, funcarray.numpy as fnp
        >>> t = optim.scale_by_schedule(lambda count: 1.0 / (count + 1))
        >>> state = t.init(fnp.zeros(1))
        >>> _, state = t.update(fnp.ones(1), state)
        >>> t.update(fnp.ones(1), state)[0]
        Array([0.5], dtype=float32)
    """
    if not callable(step_size_fn):
        raise op_type_error("scale_by_schedule",
                            f"step_size_fn must be callable, got {step_size_fn!r}")

    def init(params):
        return ScaleByScheduleState(count=init_count())

    def update(updates, state, params=None):
        _need_state("scale_by_schedule", state, ScaleByScheduleState)
        step_size = step_size_fn(state.count)
        updates = tree_map("scale_by_schedule", lambda g: g * cast_like(step_size, g), updates)
        return updates, ScaleByScheduleState(count=increment(state.count))

    return GradientTransformation(init, update)


def scale_by_learning_rate(learning_rate: ScalarOrSchedule, *, flip_sign: bool = True
                           ) -> GradientTransformation:
    """Scale by ``-learning_rate`` (a number, an array or a schedule ``count -> rate``).

    Example:
        >>> import funcarray.optim as optim, funcarray.numpy as fnp
        >>> t = optim.scale_by_learning_rate(0.5)
        >>> t.update(fnp.ones(1), t.init(fnp.zeros(1)))[0]
        Array([-0.5], dtype=float32)
    """
    sign = -1 if flip_sign else 1
    if callable(learning_rate):
        return scale_by_schedule(lambda count: sign * learning_rate(count))
    check_number("scale_by_learning_rate", "learning_rate", learning_rate)
    return scale(sign * learning_rate)


def trace(decay: Scalar, nesterov: bool = False) -> GradientTransformation:
    """Momentum: ``m = g + decay * m``; the update is ``m`` (``g + decay * m`` if Nesterov).

    Example:
        >>> import funcarray.optim as optim, funcarray.numpy as fnp
        >>> t = optim.trace(0.5)
        >>> _, state = t.update(fnp.ones(1), t.init(fnp.zeros(1)))
        >>> t.update(fnp.ones(1), state)[0]
        Array([1.5], dtype=float32)
    """
    check_number("trace", "decay", decay, 0.0)

    def init(params):
        return TraceState(trace=zeros_like_tree(params))

    def update(updates, state, params=None):
        _need_state("trace", state, TraceState)

        def accumulate(g, m):
            return g + cast_like(decay, g) * m

        new_trace = tree_map("trace", accumulate, updates, state.trace)
        if nesterov:
            updates = tree_map("trace", accumulate, updates, new_trace)
        else:
            updates = new_trace
        return updates, TraceState(trace=new_trace)

    return GradientTransformation(init, update)


def _moment(g: Array, m: Array, decay: Scalar, power: int) -> Array:
    """The exponential moving average ``decay * m + (1 - decay) * g^power``."""
    decay = cast_like(decay, g)
    return decay * m + (1 - decay) * (g if power == 1 else fnp.square(g))


def _bias_corrected(moment: Array, decay: Scalar, count: Array) -> Array:
    """``moment / (1 - decay^count)``, in the moment's dtype."""
    decay = cast_like(decay, moment)
    return moment / (1 - decay ** cast_like(count, moment))


def scale_by_adam(b1: Scalar = 0.9, b2: Scalar = 0.999, eps: Scalar = 1e-8,
                  eps_root: Scalar = 0.0) -> GradientTransformation:
    """Adam's rescaling (Kingma & Ba, 2014), without the learning rate.

    Example:
        >>> import funcarray.optim as optim, funcarray.numpy as fnp
        >>> t = optim.scale_by_adam()
        >>> t.update(fnp.asarray([2.0, -3.0]), t.init(fnp.zeros(2)))[0]
        Array([ 1., -1.], dtype=float32)
    """
    op = "scale_by_adam"
    check_number(op, "b1", b1, 0.0, 1.0)
    check_number(op, "b2", b2, 0.0, 1.0)
    check_number(op, "eps", eps, 0.0)
    check_number(op, "eps_root", eps_root, 0.0)

    def init(params):
        return ScaleByAdamState(count=init_count(), mu=zeros_like_tree(params),
                                nu=zeros_like_tree(params))

    def update(updates, state, params=None):
        _need_state(op, state, ScaleByAdamState)
        mu = tree_map(op, lambda g, m: _moment(g, m, b1, 1), updates, state.mu)
        nu = tree_map(op, lambda g, v: _moment(g, v, b2, 2), updates, state.nu)
        count = increment(state.count)

        def direction(m, v):
            m_hat = _bias_corrected(m, b1, count)
            v_hat = _bias_corrected(v, b2, count)
            return m_hat / (fnp.sqrt(v_hat + cast_like(eps_root, v)) + cast_like(eps, v))

        updates = tree_map(op, direction, mu, nu)
        return updates, ScaleByAdamState(count=count, mu=mu, nu=nu)

    return GradientTransformation(init, update)


def scale_by_rms(decay: Scalar = 0.9, eps: Scalar = 1e-8, initial_scale: Scalar = 0.0
                 ) -> GradientTransformation:
    """RMSProp's rescaling (Hinton, 2012): ``g / sqrt(v + eps)``, ``v`` the running mean of
    ``g^2`` started at ``initial_scale``.

    Example:
        >>> import funcarray.optim as optim, funcarray.numpy as fnp
        >>> t = optim.scale_by_rms(decay=0.75, eps=0.0)
        >>> t.update(fnp.asarray([2.0]), t.init(fnp.zeros(1)))[0]
        Array([2.], dtype=float32)
    """
    op = "scale_by_rms"
    check_number(op, "decay", decay, 0.0, 1.0)
    check_number(op, "eps", eps, 0.0)
    check_number(op, "initial_scale", initial_scale, 0.0)

    def init(params):
        return ScaleByRmsState(nu=full_like_tree(params, initial_scale))

    def update(updates, state, params=None):
        _need_state(op, state, ScaleByRmsState)
        nu = tree_map(op, lambda g, v: _moment(g, v, decay, 2), updates, state.nu)
        updates = tree_map(op, lambda g, v: g / fnp.sqrt(v + cast_like(eps, v)), updates, nu)
        return updates, ScaleByRmsState(nu=nu)

    return GradientTransformation(init, update)


def scale_by_stddev(decay: Scalar = 0.9, eps: Scalar = 1e-8, initial_scale: Scalar = 0.0
                    ) -> GradientTransformation:
    """Centred RMSProp's rescaling (Graves, 2013): ``g / sqrt(v - m^2 + eps)`` with running
    means ``m`` of ``g`` and ``v`` of ``g^2``.

    Example:
        >>> import funcarray.optim as optim, funcarray.numpy as fnp
        >>> t = optim.scale_by_stddev(decay=0.5, eps=0.0)
        >>> t.update(fnp.asarray([2.0]), t.init(fnp.zeros(1)))[0]
        Array([2.], dtype=float32)
    """
    op = "scale_by_stddev"
    check_number(op, "decay", decay, 0.0, 1.0)
    check_number(op, "eps", eps, 0.0)
    check_number(op, "initial_scale", initial_scale, 0.0)

    def init(params):
        return ScaleByStddevState(mu=zeros_like_tree(params),
                                  nu=full_like_tree(params, initial_scale))

    def update(updates, state, params=None):
        _need_state(op, state, ScaleByStddevState)
        mu = tree_map(op, lambda g, m: _moment(g, m, decay, 1), updates, state.mu)
        nu = tree_map(op, lambda g, v: _moment(g, v, decay, 2), updates, state.nu)
        updates = tree_map(
            op, lambda g, m, v: g / fnp.sqrt(v - fnp.square(m) + cast_like(eps, v)),
            updates, mu, nu)
        return updates, ScaleByStddevState(mu=mu, nu=nu)

    return GradientTransformation(init, update)


def scale_by_rss(initial_accumulator_value: Scalar = 0.1, eps: Scalar = 1e-7
                 ) -> GradientTransformation:
    """Adagrad's rescaling (Duchi et al., 2011): ``g / sqrt(s + eps)``, ``s`` the running sum
    of ``g^2`` started at ``initial_accumulator_value`` (the update is 0 where ``s`` is 0).

    Example:
        >>> import funcarray.optim as optim, funcarray.numpy as fnp
        >>> t = optim.scale_by_rss(initial_accumulator_value=0.0, eps=0.0)
        >>> t.update(fnp.asarray([-3.0, 0.0]), t.init(fnp.zeros(2)))[0]
        Array([-1.,  0.], dtype=float32)
    """
    op = "scale_by_rss"
    check_number(op, "initial_accumulator_value", initial_accumulator_value, 0.0)
    check_number(op, "eps", eps, 0.0)

    def init(params):
        return ScaleByRssState(sum_of_squares=full_like_tree(params, initial_accumulator_value))

    def update(updates, state, params=None):
        _need_state(op, state, ScaleByRssState)
        sums = tree_map(op, lambda g, s: s + fnp.square(g), updates, state.sum_of_squares)

        def rescale(g, s):
            positive = s > 0
            # The where keeps 1/sqrt(0) = inf out of both the value and the gradient.
            safe = fnp.where(positive, s, 1)
            return fnp.where(positive, g / fnp.sqrt(safe + cast_like(eps, s)), 0)

        updates = tree_map(op, rescale, updates, sums)
        return updates, ScaleByRssState(sum_of_squares=sums)

    return GradientTransformation(init, update)


def _resolve_mask(op: str, mask: Params | Callable[[Params], Params] | None, params: Params
                  ) -> Params:
    """The tree of Python bools saying which leaves get weight decay (None: all)."""
    if mask is None:
        return tree.map(lambda p: True, params)
    # (a model used as a mask is callable but a tree of bools)
    resolved = mask(params) if tree.is_function_leaf(mask) else mask
    for leaf in tree.leaves(resolved):
        if not isinstance(leaf, bool):
            raise op_type_error(
                op, f"mask leaves must be Python bools (concrete, one per parameter), got "
                    f"{type(leaf).__name__}")
    return resolved


def add_decayed_weights(weight_decay: Scalar = 0.0,
                        mask: Params | Callable[[Params], Params] | None = None
                        ) -> GradientTransformation:
    """Add ``weight_decay * params`` to the updates (decoupled weight decay).

    ``mask`` (a tree of bools like the params, or a function of the params returning one)
    selects the leaves that decay. ``update`` needs ``params``.

    Example:
        >>> import funcarray.optim as optim, funcarray.numpy as fnp
        >>> t = optim.add_decayed_weights(0.5)
        >>> p = fnp.asarray([2.0])
        >>> t.update(fnp.asarray([1.0]), t.init(p), p)[0]
        Array([2.], dtype=float32)
    """
    op = "add_decayed_weights"
    check_number(op, "weight_decay", weight_decay)

    def init(params):
        return EmptyState()

    def update(updates, state, params=None):
        if params is None:
            raise op_value_error(op, "needs the current parameters: call "
                                     "update(grads, state, params)")
        keep = _resolve_mask(op, mask, params)

        def decay(g, p, selected):
            return g + cast_like(weight_decay, g) * p if selected else g

        return tree_map(op, decay, updates, params, keep), state

    return GradientTransformation(init, update)


def clip_by_global_norm(max_norm: Scalar) -> GradientTransformation:
    """Rescale the updates so that their global norm is at most ``max_norm``.

    Example:
        >>> import funcarray.optim as optim, funcarray.numpy as fnp
        >>> t = optim.clip_by_global_norm(1.0)
        >>> t.update([fnp.asarray([3.0]), fnp.asarray([4.0])], t.init(None))[0]
        [Array([0.6], dtype=float32), Array([0.8], dtype=float32)]
    """
    op = "clip_by_global_norm"
    check_number(op, "max_norm", max_norm, 0.0)

    def init(params):
        return EmptyState()

    def update(updates, state, params=None):
        norm = global_norm(updates)
        within = norm < max_norm

        def clip(g):
            g = asarray_arg(op, g)
            clipped = (g / cast_like(norm, g)) * cast_like(max_norm, g)
            return fnp.where(within, g, clipped)

        return tree_map(op, clip, updates), state

    return GradientTransformation(init, update)
