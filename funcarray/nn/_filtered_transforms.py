"""``filter_jit``, ``filter_grad``, ``filter_value_and_grad``, ``filter_vmap``: transforms that
sort a model's leaves themselves, as Equinox's do.

``jit`` needs every argument leaf to be an array unless it is listed in ``static_argnums``;
``grad`` differentiates every leaf of its argument. A model mixes arrays with Python values
(sizes, flags, functions) and integer arrays (token ids, step counts), so these wrappers
partition each argument: under ``filter_jit`` arrays are traced and every other leaf is
static (hashed into the cache key), and ``filter_grad`` differentiates the floating-point
arrays of the first argument only, giving None for the other leaves; ``filter_vmap`` maps
the array leaves and passes every other leaf to each batch member unchanged.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from funcarray.api.autodiff import value_and_grad
from funcarray.api.jit import jit
from funcarray.api.vectorization import vmap
from funcarray.base import pytrees as tree
from funcarray.base.errors import op_type_error
from funcarray.nn._predicates import is_array, is_inexact_array

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["filter_jit", "filter_grad", "filter_value_and_grad", "filter_vmap"]


class _Static:
    """The non-array part of ``filter_jit``'s arguments as one hashable static argument: the
    tree structure of the arguments (static fields included) and each non-array leaf with its
    position and type (so that 1 and 1.0, equal with one hash, compile apart)."""

    __slots__ = ("treedef", "leaves", "_hash")

    def __init__(self, op: str, treedef: Any, leaves: tuple):
        self.treedef, self.leaves = treedef, leaves
        try:
            self._hash = hash((treedef, leaves))
        except TypeError:
            raise _unhashable_error(op, treedef, leaves) from None

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, _Static) and self.treedef == other.treedef
                and self.leaves == other.leaves)


def _unhashable_error(op: str, treedef: Any, leaves: tuple) -> TypeError:
    paths, _, _ = tree.flatten_with_path(tree.unflatten(treedef, range(treedef.num_leaves)))
    for position, _, leaf in leaves:
        try:
            hash(leaf)
        except TypeError:
            args_or_kwargs, *path = paths[position]
            where = ("argument " if args_or_kwargs == 0 else "keyword argument ") + \
                ".".join(map(str, path))
            return op_type_error(
                op, f"the leaf at {where} is a {type(leaf).__name__}, neither an array "
                    "(traced) nor hashable (a compile-time constant); make it an array, or a "
                    "hashable value such as a tuple")
    return op_type_error(op, "an argument leaf is not hashable")


def _split(op: str, args: tuple, kwargs: dict) -> tuple[list, _Static]:
    """The array leaves of ``(args, kwargs)`` (traced), and the rest as a ``_Static``."""
    leaves, treedef = tree.flatten((args, kwargs))
    dynamic, static = [], []
    for position, leaf in enumerate(leaves):
        if is_array(leaf):
            dynamic.append(leaf)
        else:
            static.append((position, type(leaf), leaf))
    return dynamic, _Static(op, treedef, tuple(static))


def _merge(dynamic: list, static: _Static) -> list:
    leaves = list(dynamic)
    for position, _, leaf in static.leaves:
        leaves.insert(position, leaf)
    return leaves


def _signature(dynamic: list) -> tuple:
    return tuple((tuple(x.shape), x.dtype) for x in dynamic)


def filter_jit(fun: Callable[..., Any]) -> Callable[..., Any]:
    """``jit`` that traces the array leaves of the arguments and treats every other leaf as
    static: a model (a ``Module`` with sizes, flags and activation functions among its
    fields) is passed as it is, with no ``static_argnums``. A call with other static values
    compiles anew, as ``jit`` does for a new static argument. The result may hold non-array
    leaves too; they are returned as the traced call produced them.

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp
        >>> @nn.filter_jit
        ... def apply(x, activation, times):
        ...     for _ in range(times):  # a Python int: static
        ...         x = activation(x)
        ...     return x
        >>> apply(fnp.asarray([-1.0, 2.0]), nn.relu, 2)
        Array([0., 2.], dtype=float32)
    """
    op = f"filter_jit({getattr(fun, '__qualname__', fun)!r})"
    # The non-array leaves of each traced call's result, keyed by the call's static part and
    # the shapes and dtypes of its arrays: the compiled call returns only arrays.
    static_outputs: dict = {}

    def run(dynamic, static):
        args, kwargs = tree.unflatten(static.treedef, _merge(dynamic, static))
        out = fun(*args, **kwargs)
        out_dynamic, out_static = tree.partition(out, is_array)
        static_outputs[(static, _signature(dynamic))] = out_static
        return out_dynamic

    compiled = jit(run, static_argnums=1)

    @functools.wraps(fun)
    def wrapper(*args, **kwargs):
        dynamic, static = _split(op, args, kwargs)
        out_dynamic = compiled(dynamic, static)
        out_static = static_outputs[(static, _signature(dynamic))]
        return tree.combine(out_dynamic, out_static)

    return wrapper


def filter_value_and_grad(fun: Callable[..., Any], *, has_aux: bool = False
                          ) -> Callable[..., Any]:
    """``fun``'s value and its gradient with respect to the floating-point (and complex)
    arrays of its first argument; the gradient has that argument's structure with None for
    every other leaf (integer arrays, Python values), so a model goes in whole.

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp
        >>> params = {"w": fnp.float32(3.0), "steps": 2, "ids": fnp.arange(2)}
        >>> loss = lambda p: p["w"] ** 2 * p["steps"] + fnp.sum(p["ids"])
        >>> nn.filter_value_and_grad(loss)(params)
        (Array(19., dtype=float32), {'ids': None, 'steps': None, 'w': Array(12., dtype=float32)})
    """
    @functools.wraps(fun)
    def wrapper(x, *args, **kwargs):
        differentiable, other = tree.partition(x, is_inexact_array)

        def of_differentiable(d):
            return fun(tree.combine(d, other), *args, **kwargs)

        return value_and_grad(of_differentiable, has_aux=has_aux)(differentiable)

    return wrapper


def filter_grad(fun: Callable[..., Any], *, has_aux: bool = False) -> Callable[..., Any]:
    """The gradient of ``fun`` with respect to the floating-point arrays of its first
    argument (None at every other leaf); see ``filter_value_and_grad``.

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp
        >>> nn.filter_grad(lambda p: p[0] * p[1])((fnp.float32(2.0), 5))
        (Array(5., dtype=float32), None)
    """
    value_and_grad_fun = filter_value_and_grad(fun, has_aux=has_aux)

    @functools.wraps(fun)
    def wrapper(*args, **kwargs):
        value, grads = value_and_grad_fun(*args, **kwargs)
        return (grads, value[1]) if has_aux else grads

    return wrapper


_UNMAPPED = object()


def filter_vmap(fun: Callable[..., Any] | None = None, *, in_axes: Any = 0,
                out_axes: Any = 0, axis_name: Any = None,
                axis_size: int | None = None) -> Any:
    """``vmap`` over the array leaves of the arguments, every other leaf (sizes, flags,
    functions, a model's static fields) passed unchanged to each batch member, as Equinox's
    ``filter_vmap``. ``in_axes`` is an axis (or None) for every array leaf, or a pytree
    prefix of the positional arguments holding them (keyword arguments map their arrays
    over axis 0); ``out_axes`` likewise for the result's arrays, whose other leaves are
    returned as the function gave them. Used as a decorator with or without arguments.

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp
        >>> scale = nn.filter_vmap(lambda x, power, f: f(x) ** power, in_axes=(0, None, None))
        >>> scale(fnp.asarray([1.0, -2.0]), 2, abs)
        Array([1., 4.], dtype=float32)
    """
    if fun is None:
        return functools.partial(filter_vmap, in_axes=in_axes, out_axes=out_axes,
                                 axis_name=axis_name, axis_size=axis_size)
    op = f"filter_vmap({getattr(fun, '__qualname__', fun)!r})"

    @functools.wraps(fun)
    def wrapper(*args, **kwargs):
        leaves, treedef = tree.flatten((args, kwargs))
        try:
            # (None marks an unmapped subtree: a leaf here, not pytrees' empty node)
            marked = tree.map(lambda a: _UNMAPPED if a is None else a, in_axes,
                              is_leaf=lambda a: a is None)
            axes = [None if a is _UNMAPPED else a for a in tree.broadcast_prefix(marked, args)]
            axes += [0] * len(tree.leaves(kwargs))
        except ValueError as exc:
            raise op_type_error(op, f"in_axes must be an axis, None, or a pytree prefix of "
                                    f"the positional arguments: {exc}") from None
        mapped = [i for i, leaf in enumerate(leaves) if is_array(leaf) and axes[i] is not None]
        static_out = []

        def run(*dynamic):
            full = list(leaves)
            for i, value in zip(mapped, dynamic):
                full[i] = value
            call_args, call_kwargs = tree.unflatten(treedef, full)
            out_dynamic, out_static = tree.partition(fun(*call_args, **call_kwargs), is_array)
            static_out.append(out_static)
            return out_dynamic

        batched = vmap(run, in_axes=tuple(axes[i] for i in mapped), out_axes=out_axes,
                       axis_name=axis_name, axis_size=axis_size)
        out_dynamic = batched(*(leaves[i] for i in mapped))
        return tree.combine(out_dynamic, static_out[-1])

    return wrapper
