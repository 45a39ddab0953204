"""``lax.reduce`` with any computation, as in ``jax.lax``.

A single operand whose computation and init are one of the monoids (``lax.add`` from 0,
``lax.mul`` from 1, ``lax.max``/``lax.min`` from their identity, ``lax.bitwise_and``/``or``/
``xor`` on integers and bools) binds the existing reduction primitives, as JAX does; anything
else (several operands, another function, an init that is not the identity) stages the
computation on scalars and binds the general ``reduce`` primitive
(``primitives/reduce_general.py``). ``stage_computation`` is shared with
``lax.reduce_window``.

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray import lax
    >>> values, indices = fnp.array([3.0, 7.0, 5.0]), fnp.arange(3)
    >>> def larger(a, b):  # (value, index) pairs: an argmax
    ...     keep = lax.ge(a[0], b[0])
    ...     return lax.select(keep, a[0], b[0]), lax.select(keep, a[1], b[1])
    >>> lax.reduce((values, indices), (-fnp.inf, 0), larger, (0,))
    (Array(7., dtype=float32), Array(1, dtype=int32))
"""

from __future__ import annotations

import builtins
import functools
import operator
from typing import TYPE_CHECKING

import numpy as np

from funcarray.api.arguments import _int_tuple, asarray_arg, is_array
from funcarray.base import pytrees as fa_tree
from funcarray.base.array import Array
from funcarray.base.errors import op_type_error, op_value_error
from funcarray.lax import _ops_binary as raw
from funcarray.lax._ops_common import _operand, _same_dtype_operands, _short
from funcarray.primitives import reduce as red
from funcarray.primitives.reduce_general import reduce_p
from funcarray.transforms.core import ShapedArray, Tracer, current_trace, set_current_trace
from funcarray.transforms.host_shortcuts import host_shortcut, host_value
from funcarray.transforms.staging import StagingTrace

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any


__all__ = ["reduce"]


def flat_operands_and_inits(op: str, operands, init_values, *, unify: bool = True):
    """The flat operands and init values (one dtype per pair: a weak init takes its
    operand's dtype), their tree, checked as jax.lax checks them. With ``unify=False`` the
    init values are returned as given (the monoid check looks at their values first, as JAX
    does, so ``reduce_window(x_f16, 0, lax.add, ...)`` is a sum)."""
    flat_x, tree_x = fa_tree.flatten(operands)
    flat_i, tree_i = fa_tree.flatten(init_values)
    if tree_x != tree_i:
        raise op_value_error(op, f"operands must have the same tree structure as "
                                 f"init_values: {tree_x} vs. {tree_i}")
    if not flat_x:
        raise op_value_error(op, "needs at least one operand")
    if not unify:
        return [_operand(op, x) for x in flat_x], flat_i, tree_x
    pairs = [_same_dtype_operands(op, (x, i), anchor=0) for x, i in zip(flat_x, flat_i)]
    xs, inits = [p[0] for p in pairs], [p[1] for p in pairs]
    for i in inits:
        if i.shape != ():
            raise op_value_error(op, f"init values must be scalars, got {_short(i)}")
    if len({tuple(x.shape) for x in xs}) > 1:
        raise op_value_error(op, f"operands must have one shape, got "
                                 f"{', '.join(_short(x) for x in xs)}")
    return xs, inits, tree_x


def concrete_scalar(init):
    """``init``'s value as a 0-d NumPy array, or None if it is traced or not a scalar."""
    if isinstance(init, Tracer):
        return None
    value = np.asarray(getattr(init, "_value", init))
    return value if value.shape == () and value.dtype != object else None


def stage_computation(op: str, computation, treedef, inits):
    """``computation(acc_tree, value_tree) -> tree`` staged on scalars of the inits' types,
    as a ClosedIR of ``(*acc, *values) -> acc``; refuses closures over traced values (JAX
    does too) and results of another structure or type."""
    if not callable(computation):
        raise op_type_error(op, f"computation must be a function, got "
                                f"{type(computation).__name__}")
    avals = [ShapedArray((), i.dtype, i.weak_type) for i in inits]
    n = len(avals)
    trace = StagingTrace(current_trace())
    args = [trace.new_arg(a) for a in (*avals, *avals)]
    with set_current_trace(trace):
        out = computation(fa_tree.unflatten(treedef, args[:n]),
                          fa_tree.unflatten(treedef, args[n:]))
        leaves, out_tree = fa_tree.flatten(out)
        if out_tree != treedef:
            raise op_type_error(op, f"the computation must return the structure of the "
                                    f"operands, {treedef}; it returned {out_tree}")
        leaves = [x if is_array(x) else asarray_arg(op, x) for x in leaves]
        for x, a in zip(leaves, avals):
            if tuple(x.shape) != () or x.dtype != a.dtype:
                raise op_type_error(
                    op, f"the computation must return scalars of the init types "
                        f"({', '.join(b.str_short() for b in avals)}); it returned "
                        f"{', '.join(_short(y) for y in leaves)}")
    closed = trace.to_closed_ir(leaves)
    if any(isinstance(c, Tracer) for c in closed.consts):
        raise NotImplementedError(
            f"{op}: the computation closes over a traced value (an argument of an enclosing "
            f"jit, grad or vmap); reduction computations cannot (as in JAX). Pass it as an "
            f"extra operand instead, or compute it outside the transform")
    return closed


# The monoids: (the lax function's name, its Python equivalent, the reduction's name, the
# kinds it takes); the bitwise ones take integers and bools alone.
_MONOIDS = (("add", operator.add, "reduce_sum", "iufc"),
            ("mul", operator.mul, "reduce_prod", "iufc"),
            ("max", builtins.max, "reduce_max", "biuf"),
            ("min", builtins.min, "reduce_min", "biuf"),
            ("bitwise_or", None, "reduce_or", "biu"),
            ("bitwise_and", None, "reduce_and", "biu"),
            ("bitwise_xor", None, "reduce_xor", "biu"))


_REDUCTION_KERNELS = {name: getattr(red, name + "_p").kernel
                      for _, _, name, _ in _MONOIDS}


_EXACT_IDENTITIES = ("add", "mul", "bitwise_or", "bitwise_xor")


def _identity(name: str, dtype):
    if name in ("max", "min"):
        from funcarray.primitives.windowed import identity_of

        return identity_of(name, dtype)
    if name == "bitwise_and":
        return -1 if dtype != np.bool_ else True
    return 1 if name == "mul" else 0


# The monoid entries of the computations met so far (only those found: funcarray.numpy
# registers its equivalents on its import, and a lambda is new at every call).
_MONOID_OF_COMPUTATION: dict = {}


def _monoid_of(computation):
    """The ``_MONOIDS`` entry whose operation ``computation`` is, or None."""
    try:
        return _MONOID_OF_COMPUTATION[computation]
    except (KeyError, TypeError):  # (not met yet, or unhashable)
        pass
    from funcarray import lax

    for monoid in _MONOIDS:
        name, python_op = monoid[0], monoid[1]
        # (funcarray.numpy's functions are registered as equivalents on its import)
        if (computation is getattr(lax, name) or computation is getattr(raw, name)
                or (python_op is not None and computation is python_op)
                or any(computation is f for f in raw.EQUIVALENT_FUNCTIONS.get(name, ()))):
            _MONOID_OF_COMPUTATION[computation] = monoid
            return monoid
    return None


def _monoid_reducer(computation, x, init):
    """The lax reduction that ``computation`` from ``init`` is, if it is a monoid with its
    identity (``init`` a concrete scalar), else None."""
    value = concrete_scalar(init)
    if value is None:
        return None
    monoid = _monoid_of(computation)
    if monoid is None:
        return None
    name, _, reducer, kinds = monoid
    dtype = x.dtype
    kind = dtype.kind  # ("b" for bool; the ml_dtypes floats, "V", count as floats)
    if kind == "V":
        kind = "f"
    if kind not in kinds or (name.startswith("bitwise") and kind not in "biu"):
        return None
    if not _is_identity(value, name, dtype):
        return None
    from funcarray import lax

    return getattr(lax, reducer)


@functools.lru_cache(maxsize=256)
def _identity_in(name: str, dtype):
    """The monoid's identity as a 0-d array of ``dtype`` (made once per pair)."""
    return np.asarray(_identity(name, dtype)).astype(dtype)


def _is_identity(value, name: str, dtype) -> bool:
    """Whether the 0-d ``value`` is the monoid's identity in ``dtype``."""
    if name in _EXACT_IDENTITIES:
        # (0 and 1 are themselves in every dtype these monoids take: no cast to compare;
        # the Python number compares ~5x faster than the 0-d array)
        return value.item() == _identity(name, dtype)
    return bool(_identity_in(name, dtype) == value)


def _reduce_on_host(operands, init_values, computation, dimensions):
    """The shortcut of ``reduce``: one host array reduced by a monoid with its identity is
    its dedicated reduction (whose own shortcut runs), weakly typed as the general path
    makes it."""
    x = host_value(operands)
    if x is None or (type(dimensions) is not tuple and type(dimensions) is not list):
        return NotImplemented
    ndim = x.ndim
    for d in dimensions:
        if type(d) is not int or not 0 <= d < ndim:
            return NotImplemented
    if len(set(dimensions)) != len(dimensions):
        return NotImplemented
    reducer = _monoid_reducer(computation, operands, init_values)
    if reducer is None:
        return NotImplemented
    weak = operands.weak_type and (type(init_values) in (int, float, complex, bool)
                                   or getattr(init_values, "weak_type", False))
    # (the reduction's kernel: the lax function would check what _monoid_reducer has)
    kernel = _REDUCTION_KERNELS[reducer.__name__]
    return Array(kernel(x, axes=tuple(sorted(dimensions))), weak)


@host_shortcut(_reduce_on_host)
def reduce(operands: Any, init_values: Any, computation: Callable[[Any, Any], Any],
           dimensions: Sequence[int]) -> Any:
    """Reduce ``operands`` (an array or a pytree of arrays of one shape) over
    ``dimensions`` with ``computation(accumulators, values) -> accumulators`` (pytrees like
    ``operands`` of scalars), starting from ``init_values`` (scalars, one per operand).

    As in XLA, ``init_values`` and ``computation`` should form a monoid (an associative
    computation with the init as identity): the order of combination is unspecified.
    Monoids of ``lax.add``, ``lax.mul``, ``lax.max``, ``lax.min`` and the bitwise ops with
    their identity use the dedicated reductions.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.reduce(fnp.arange(6.0).reshape(2, 3), 0.0, lax.add, (1,))
        Array([ 3., 12.], dtype=float32)
        >>> lax.reduce(fnp.array([2.0, 3.0, 4.0]), 1.0, lambda a, b: a * b, (0,))
        Array(24., dtype=float32)
    """
    op = "lax.reduce"
    xs, raw_inits, treedef = flat_operands_and_inits(op, operands, init_values, unify=False)
    dims = _int_tuple(op, dimensions, "dimensions", sequence_only=True)
    ndim = xs[0].ndim
    if len(set(dims)) != len(dims) or any(not 0 <= d < ndim for d in dims):
        raise op_value_error(op, f"dimensions {dims} must be distinct axes of {_short(xs[0])} "
                                 f"in [0, {ndim})")
    if len(xs) == 1:
        reducer = _monoid_reducer(computation, xs[0], raw_inits[0])
        if reducer is not None:
            from funcarray.api.arguments import convert

            out = reducer(xs[0], dims)
            weak = xs[0].weak_type and (type(raw_inits[0]) in (int, float, complex, bool) or
                                        getattr(raw_inits[0], "weak_type", False))
            out = out if out.weak_type == weak else convert(out, out.dtype, weak)
            return fa_tree.unflatten(treedef, [out])
    xs, inits, _ = flat_operands_and_inits(op, operands, init_values)
    body = stage_computation(op, computation, treedef, inits)
    outs = reduce_p.bind(*xs, *inits, body=body, dimensions=dims)
    return fa_tree.unflatten(treedef, outs)

