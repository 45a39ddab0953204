"""``masked`` and ``set_to_zero``: transformations applied to some parameters only, as
optax's; together they freeze parameters (``set_to_zero`` on the frozen ones)."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from funcarray.base import pytrees as tree
from funcarray.optim._base import EmptyState, GradientTransformation, zeros_like_tree
from funcarray.optim._transforms import _resolve_mask

if TYPE_CHECKING:
    from collections.abc import Callable

    from funcarray.optim._base import OptState, Params

__all__ = ["MaskedState", "masked", "set_to_zero"]


class MaskedState(NamedTuple):
    """The state of ``masked``: the inner transformation's state over the masked
    parameters only."""

    inner_state: OptState


def masked(inner: GradientTransformation, mask: Params | Callable[[Params], Params]
           ) -> GradientTransformation:
    """``inner`` applied to the parameters where ``mask`` (a tree of bools like the params,
    or a function of the params returning one) is True; the other updates pass through
    unchanged. ``inner`` sees, and keeps state for, the masked parameters only: the others
    are None (empty subtrees) in the trees it gets.

    Freezing, the optax way: ``chain(masked(adam(lr), trainable), masked(set_to_zero(),
    frozen))`` with complementary masks (``funcarray.nn.name_mask`` makes them from names).

    Example:
        >>> import funcarray.numpy as fnp, funcarray.optim as optim
        >>> params = {"w": fnp.ones(2), "frozen": fnp.ones(2)}
        >>> opt = optim.masked(optim.set_to_zero(), {"w": False, "frozen": True})
        >>> opt.update({"w": fnp.ones(2), "frozen": fnp.ones(2)}, opt.init(params), params)[0]
        {'frozen': Array([0., 0.], dtype=float32), 'w': Array([1., 1.], dtype=float32)}
    """
    op = "masked"

    def init(params):
        selected, _ = tree.partition(params, _resolve_mask(op, mask, params))
        return MaskedState(inner.init(selected))

    def update(updates, state, params=None):
        keep = _resolve_mask(op, mask, updates if params is None else params)
        selected, rest = tree.partition(updates, keep)
        selected_params = None if params is None else tree.partition(params, keep)[0]
        new, inner_state = inner.update(selected, state.inner_state, selected_params)
        return tree.combine(new, rest), MaskedState(inner_state)

    return GradientTransformation(init, update)


def set_to_zero() -> GradientTransformation:
    """Replaces every update by zeros (frozen parameters, under ``masked``).

    Example:
        >>> import funcarray.numpy as fnp, funcarray.optim as optim
        >>> optim.set_to_zero().update(fnp.ones(2), optim.EmptyState())[0]
        Array([0., 0.], dtype=float32)
    """

    def init(params):
        return EmptyState()

    def update(updates, state, params=None):
        return zeros_like_tree(updates), state

    return GradientTransformation(init, update)
