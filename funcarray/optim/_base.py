"""The optimizer interface: ``GradientTransformation(init, update)`` and its plumbing.

An optimizer is a pair of pure functions, as in optax: ``init(params) -> state`` and
``update(updates, state, params=None) -> (updates, new_state)``. States are NamedTuples of
arrays (pytrees), the step count an int32 array, so an update step can be jitted, vmapped
and differentiated like any other function of arrays.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, TypeAlias

import numpy as np

from funcarray import numpy as fnp
from funcarray.api.arguments import asarray_arg, convert, is_array
from funcarray.base import dtypes
from funcarray.base import pytrees as tree
from funcarray.base.array import Array
from funcarray.base.errors import op_type_error, op_value_error
from funcarray.base.typing import ArrayLike

if TYPE_CHECKING:
    from typing import TypeVar

    _Params = TypeVar("_Params")

__all__ = [
    "GradientTransformation", "TransformInitFn", "TransformUpdateFn", "EmptyState", "Params",
    "Updates", "OptState", "Schedule", "ScalarOrSchedule", "identity", "chain",
    "apply_updates", "global_norm",
]

# optax's names for the pytrees an optimizer handles. No static type describes an arbitrary
# nest of containers (see funcarray.typing), so each is ``Any``; the names say which tree goes
# where in a signature.
Params: TypeAlias = Any
Updates: TypeAlias = Any
OptState: TypeAlias = Any
# A hyperparameter: a Python number, or an array (a traced one lets a jitted training step take
# its learning rate as an argument).
Scalar: TypeAlias = float | Array
# A learning-rate schedule: the step count (an int32 array in optimizer states, or a Python
# int) to the value at that step.
Schedule: TypeAlias = Callable[[ArrayLike], ArrayLike]
ScalarOrSchedule: TypeAlias = Scalar | Schedule


class TransformInitFn(Protocol):
    """``init(params) -> state``: the state a transformation starts from.

    Example:
        >>> import funcarray.optim as optim, funcarray.numpy as fnp
        >>> init: optim.TransformInitFn = optim.sgd(0.1, momentum=0.9).init
        >>> init(fnp.zeros(2))
        (TraceState(trace=Array([0., 0.], dtype=float32)), EmptyState())
    """

    def __call__(self, params: Params) -> OptState: ...


class TransformUpdateFn(Protocol):
    """``update(updates, state, params=None) -> (updates, new_state)``: one step.

    Example:
        >>> import funcarray.optim as optim, funcarray.numpy as fnp
        >>> update: optim.TransformUpdateFn = optim.sgd(0.5).update
        >>> update(fnp.ones(2), (optim.EmptyState(), optim.EmptyState()))[0]
        Array([-0.5, -0.5], dtype=float32)
    """

    def __call__(self, updates: Updates, state: OptState, params: Params | None = None
                 ) -> tuple[Updates, OptState]: ...


class GradientTransformation(NamedTuple):
    """An optimizer (or one stage of one): ``init(params) -> state`` and
    ``update(updates, state, params=None) -> (updates, new_state)``.

    Example:
        >>> import funcarray.optim as optim, funcarray.numpy as fnp
        >>> opt = optim.sgd(0.1)
        >>> params = {"w": fnp.ones(2)}
        >>> state = opt.init(params)
        >>> updates, state = opt.update({"w": fnp.ones(2)}, state)
        >>> optim.apply_updates(params, updates)["w"]
        Array([0.9, 0.9], dtype=float32)
    """

    init: TransformInitFn
    update: TransformUpdateFn


class EmptyState(NamedTuple):
    """The state of a stateless transformation."""


def tree_map(op: str, fn: Callable[..., Any], first: Any, *rest: Any) -> Any:
    """``tree.map`` over trees that must have one structure, with an error naming ``op``."""
    structure = tree.structure(first)
    for other in rest:
        other_structure = tree.structure(other)
        if other_structure != structure:
            raise op_value_error(
                op, f"the updates/parameters/state trees do not match: {structure} vs "
                    f"{other_structure}. Pass the same structure that init was given.")
    return tree.map(fn, first, *rest)


def leaves_as_arrays(op: str, updates: Updates) -> list[Array]:
    return [asarray_arg(op, leaf) for leaf in tree.leaves(updates)]


def zeros_like_tree(params: Params) -> Params:
    return tree.map(lambda p: fnp.zeros_like(asarray_arg("init", p)), params)


def full_like_tree(params: Params, value: Scalar) -> Params:
    return tree.map(lambda p: fnp.full_like(asarray_arg("init", p), value), params)


def init_count() -> Array:
    """The step count of a fresh state: an int32 zero (an array, so states jit and vmap)."""
    return fnp.zeros((), dtypes.int32)


def increment(count: Array) -> Array:
    """``count + 1``, saturating at the int32 maximum instead of wrapping to negative."""
    limit = np.iinfo(np.int32).max
    return fnp.where(count < limit, count + 1, limit)


def cast_like(value: ArrayLike, like: Array) -> Array:
    """``value`` (a number or array) in the dtype (and weak type) of the array ``like``.

    A Python number is converted straight to that dtype: going through float32 first would
    round hyperparameters such as ``b2=0.999`` for float64 parameters.
    """
    value = asarray_arg("optim", value, None if is_array(value) else like.dtype)
    return convert(value, like.dtype, like.weak_type)


def identity() -> GradientTransformation:
    """The transformation that passes updates through unchanged.

    Example:
        >>> import funcarray.optim as optim, funcarray.numpy as fnp
        >>> optim.identity().update(fnp.ones(2), optim.EmptyState())[0]
        Array([1., 1.], dtype=float32)
    """
    def init(params):
        return EmptyState()

    def update(updates, state, params=None):
        return updates, state

    return GradientTransformation(init, update)


def chain(*transforms: GradientTransformation) -> GradientTransformation:
    """Apply ``transforms`` one after the other; the state is the tuple of their states.

    Example:
        >>> import funcarray.optim as optim, funcarray.numpy as fnp
        >>> opt = optim.chain(optim.clip_by_global_norm(1.0), optim.sgd(1.0))
        >>> updates, _ = opt.update(fnp.asarray([3.0, 4.0]), opt.init(fnp.zeros(2)))
        >>> updates
        Array([-0.6, -0.8], dtype=float32)
    """
    for i, t in enumerate(transforms):
        if not isinstance(t, GradientTransformation):
            raise op_type_error(
                "chain", f"argument {i} is a {type(t).__name__}, not a GradientTransformation "
                         f"(call the constructor: optim.adam(1e-3), not optim.adam)")

    def init(params):
        return tuple(t.init(params) for t in transforms)

    def update(updates, state, params=None):
        if not isinstance(state, tuple) or len(state) != len(transforms):
            raise op_value_error(
                "chain", f"expected the state made by this chain's init (a tuple of "
                         f"{len(transforms)} states), got {type(state).__name__}")
        new_state = []
        for t, s in zip(transforms, state):
            updates, s = t.update(updates, s, params)
            new_state.append(s)
        return updates, tuple(new_state)

    return GradientTransformation(init, update)


def apply_updates(params: _Params, updates: Updates) -> _Params:
    """``params + updates`` leaf by leaf, each result keeping its parameter's dtype.

    Example:
        >>> import funcarray.optim as optim, funcarray.numpy as fnp
        >>> optim.apply_updates([fnp.ones(2)], [fnp.asarray([0.5, -1.0])])
        [Array([1.5, 0. ], dtype=float32)]
    """
    def apply(p, u):
        p = asarray_arg("apply_updates", p)
        return convert(p + u, p.dtype, p.weak_type)

    return tree_map("apply_updates", apply, params, updates)


def global_norm(updates: Updates) -> Array:
    """The 2-norm of all leaves of ``updates`` taken together (float32 for float32 leaves).

    Example:
        >>> import funcarray.optim as optim, funcarray.numpy as fnp
        >>> optim.global_norm({"a": fnp.asarray([3.0]), "b": fnp.asarray([[4.0]])})
        Array(5., dtype=float32)
    """
    squares = [fnp.sum(fnp.square(leaf)) for leaf in leaves_as_arrays("global_norm", updates)]
    if not squares:
        return fnp.zeros((), dtypes.float32)
    total = squares[0]
    for s in squares[1:]:
        total = total + s
    return fnp.sqrt(total)
