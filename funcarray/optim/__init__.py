"""``funcarray.optim``: optimizers as pure ``(init, update)`` pairs over parameter pytrees, in
the style of optax.

``opt = optim.adam(1e-3)``; ``state = opt.init(params)``; each step
``updates, state = opt.update(grads, state, params)`` then
``params = optim.apply_updates(params, updates)``. States are pytrees of arrays, so a whole
training step jits and vmaps. ``learning_rate`` accepts a number or a schedule
(``optim.cosine_decay_schedule(...)``); ``optim.chain`` composes transformations such as
``clip_by_global_norm``.

Example:
    >>> import funcarray as fa, funcarray.numpy as fnp, funcarray.optim as optim
    >>> loss = lambda p: fnp.sum((p["w"] - 3.0) ** 2)
    >>> opt = optim.sgd(0.25)
    >>> params = {"w": fnp.zeros(2)}
    >>> state = opt.init(params)
    >>> for _ in range(3):
    ...     updates, state = opt.update(fa.grad(loss)(params), state, params)
    ...     params = optim.apply_updates(params, updates)
    >>> params["w"]
    Array([2.625, 2.625], dtype=float32)
"""

from funcarray.optim._alias import *  # noqa: F403
from funcarray.optim._alias import __all__ as _alias_names
from funcarray.optim._base import *  # noqa: F403
from funcarray.optim._base import __all__ as _base_names
from funcarray.optim._masking import *  # noqa: F403
from funcarray.optim._masking import __all__ as _masking_names
from funcarray.optim._schedules import *  # noqa: F403
from funcarray.optim._schedules import __all__ as _schedule_names
from funcarray.optim._transforms import *  # noqa: F403
from funcarray.optim._transforms import __all__ as _transform_names

__all__ = [*_base_names, *_transform_names, *_masking_names, *_schedule_names,
           *_alias_names]
