"""The optimizers: ``sgd``, ``adam``, ``adamw``, ``rmsprop``, ``adagrad``, each a chain of the
transformations in ``_transforms`` ending with ``scale_by_learning_rate`` (so updates are
*added* to the parameters with ``apply_updates``). ``learning_rate`` is a number or a schedule.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from funcarray.base.errors import op_type_error
from funcarray.optim._base import (
    GradientTransformation,
    Params,
    Scalar,
    ScalarOrSchedule,
    chain,
    identity,
)
from funcarray.optim._transforms import (
    add_decayed_weights,
    check_number,
    scale_by_adam,
    scale_by_learning_rate,
    scale_by_rms,
    scale_by_rss,
    scale_by_stddev,
    trace,
)

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["sgd", "adam", "adamw", "rmsprop", "adagrad"]


def _learning_rate(op: str, learning_rate: ScalarOrSchedule) -> GradientTransformation:
    if not callable(learning_rate):
        check_number(op, "learning_rate", learning_rate)
    return scale_by_learning_rate(learning_rate)


def _momentum(op: str, momentum: Scalar | None, nesterov: bool) -> GradientTransformation:
    if not isinstance(nesterov, bool):
        raise op_type_error(op, f"nesterov must be True or False, got {nesterov!r}")
    if momentum is None:
        return identity()
    return trace(check_number(op, "momentum", momentum, 0.0), nesterov)


def sgd(learning_rate: ScalarOrSchedule, momentum: Scalar | None = None, nesterov: bool = False
        ) -> GradientTransformation:
    """Stochastic gradient descent, with optional (Nesterov) momentum.

    ``m = g + momentum * m``; ``u = -lr * m`` (``-lr * (g + momentum * m)`` with Nesterov).

    Example:
        >>> import funcarray.optim as optim, funcarray.numpy as fnp
        >>> opt = optim.sgd(0.1, momentum=0.9)
        >>> state = opt.init(fnp.zeros(1))
        >>> u1, state = opt.update(fnp.ones(1), state)
        >>> u2, state = opt.update(fnp.ones(1), state)
        >>> u2
        Array([-0.19], dtype=float32)
    """
    return chain(_momentum("sgd", momentum, nesterov), _learning_rate("sgd", learning_rate))


def adam(learning_rate: ScalarOrSchedule, b1: Scalar = 0.9, b2: Scalar = 0.999,
         eps: Scalar = 1e-8, eps_root: Scalar = 0.0) -> GradientTransformation:
    """Adam (Kingma & Ba, 2014): ``u = -lr * m_hat / (sqrt(v_hat + eps_root) + eps)``.

    Example:
        >>> import funcarray.optim as optim, funcarray.numpy as fnp
        >>> opt = optim.adam(0.1)
        >>> opt.update(fnp.asarray([5.0, -0.5]), opt.init(fnp.zeros(2)))[0]
        Array([-0.1,  0.1], dtype=float32)
    """
    return chain(scale_by_adam(b1, b2, eps, eps_root), _learning_rate("adam", learning_rate))


def adamw(learning_rate: ScalarOrSchedule, b1: Scalar = 0.9, b2: Scalar = 0.999,
          eps: Scalar = 1e-8, eps_root: Scalar = 0.0, weight_decay: Scalar = 1e-4,
          mask: Params | Callable[[Params], Params] | None = None) -> GradientTransformation:
    """AdamW (Loshchilov & Hutter, 2019): Adam with decoupled weight decay,
    ``u = -lr * (m_hat / (sqrt(v_hat + eps_root) + eps) + weight_decay * p)``.

    ``update`` needs ``params``. ``mask`` (a tree of bools, or a function of the params)
    selects the parameters that decay.

    Example:
        >>> import funcarray.optim as optim, funcarray.numpy as fnp
        >>> opt = optim.adamw(0.1, weight_decay=0.5)
        >>> p = fnp.asarray([2.0])
        >>> opt.update(fnp.asarray([3.0]), opt.init(p), p)[0]
        Array([-0.2], dtype=float32)
    """
    return chain(scale_by_adam(b1, b2, eps, eps_root),
                 add_decayed_weights(weight_decay, mask),
                 _learning_rate("adamw", learning_rate))


def rmsprop(learning_rate: ScalarOrSchedule, decay: Scalar = 0.9, eps: Scalar = 1e-8,
            initial_scale: Scalar = 0.0, centered: bool = False, momentum: Scalar | None = None,
            nesterov: bool = False) -> GradientTransformation:
    """RMSProp (Hinton, 2012): ``u = -lr * g / sqrt(v + eps)``; ``centered=True`` divides by
    the running standard deviation instead; ``momentum`` then adds a trace of the updates
    (applied after the learning rate, as in optax).

    Example:
        >>> import funcarray.optim as optim, funcarray.numpy as fnp
        >>> opt = optim.rmsprop(0.1, decay=0.75, eps=0.0)
        >>> opt.update(fnp.asarray([-2.0]), opt.init(fnp.zeros(1)))[0]
        Array([0.2], dtype=float32)
    """
    rescale = (scale_by_stddev if centered else scale_by_rms)(decay, eps, initial_scale)
    return chain(rescale, _learning_rate("rmsprop", learning_rate),
                 _momentum("rmsprop", momentum, nesterov))


def adagrad(learning_rate: ScalarOrSchedule, initial_accumulator_value: Scalar = 0.1,
            eps: Scalar = 1e-7) -> GradientTransformation:
    """Adagrad (Duchi et al., 2011): ``s = s + g^2``; ``u = -lr * g / sqrt(s + eps)``.

    Example:
        >>> import funcarray.optim as optim, funcarray.numpy as fnp
        >>> opt = optim.adagrad(1.0, initial_accumulator_value=0.0, eps=0.0)
        >>> opt.update(fnp.asarray([4.0]), opt.init(fnp.zeros(1)))[0]
        Array([-1.], dtype=float32)
    """
    return chain(scale_by_rss(initial_accumulator_value, eps),
                 _learning_rate("adagrad", learning_rate))
