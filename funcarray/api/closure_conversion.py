"""The smaller transform utilities of JAX's top level: ``closure_convert``,
``custom_gradient``, ``named_call`` and ``ensure_compile_time_eval``.

Example:
    >>> import funcarray as fa, funcarray.numpy as fnp
    >>> @fa.custom_gradient
    ... def clipped_square(x):
    ...     return x ** 2, lambda g: (fnp.clip(g * 2 * x, -1.0, 1.0),)
    >>> fa.grad(clipped_square)(3.0)
    Array(1., dtype=float32, weak_type=True)
"""

from __future__ import annotations

import contextlib
import functools

from funcarray.api.custom_derivatives import custom_vjp
from funcarray.api.linear_transpose import _aval_of
from funcarray.base import pytrees as fa_tree
from funcarray.base.errors import api_boundary
from funcarray.base.tree_util import register_static
from funcarray.transforms.core import current_trace
from funcarray.transforms.ir import eval_ir
from funcarray.transforms.staging import StagingTrace, stage_flat

__all__ = ["closure_convert", "custom_gradient", "named_call", "ensure_compile_time_eval"]


@api_boundary
def closure_convert(fun, *example_args):
    """``(closed_fun, consts)``: ``fun`` staged on the types of ``example_args``, with the
    values it closes over (arrays, or tracers of an enclosing transform) hoisted out as
    ``consts``; ``closed_fun(*args, *consts)`` computes ``fun(*args)``. Used to pass a
    closure where only explicit arrays may go, e.g. to a ``custom_vjp`` that must
    differentiate with respect to what the closure captured (JAX's ``closure_convert``).

    Example:
        >>> import funcarray as fa, funcarray.numpy as fnp
        >>> w = fnp.asarray(3.0)
        >>> closed, consts = fa.closure_convert(lambda x: x * w, fnp.asarray(1.0))
        >>> closed(fnp.asarray(2.0), *consts)
        Array(6., dtype=float32, weak_type=True)
    """
    leaves, in_tree = fa_tree.flatten(example_args)
    avals = [_aval_of("closure_convert", x) for x in leaves]
    store = {}

    def flat_fun(*xs):
        out = fun(*fa_tree.unflatten(in_tree, list(xs)))
        out_leaves, store["out_tree"] = fa_tree.flatten(out)
        return out_leaves

    closed = stage_flat(flat_fun, avals)
    n_consts = len(closed.consts)
    ir, out_tree = closed.ir, store["out_tree"]

    def closed_fun(*args):
        args, consts = args[:len(args) - n_consts], args[len(args) - n_consts:]
        arg_leaves, tree = fa_tree.flatten(args)
        if tree != in_tree:
            raise TypeError(f"closure_convert: the converted function takes arguments of "
                            f"structure {in_tree} followed by {n_consts} constants, got "
                            f"{tree}")
        return fa_tree.unflatten(out_tree, eval_ir(ir, list(consts), arg_leaves))

    return closed_fun, list(closed.consts)


@register_static
class _Static:
    """A Python value carried in a pytree's structure (no leaves): lets a custom_vjp
    residual hold the converted vjp function next to its arrays."""

    def __init__(self, value):
        self.value = value


def custom_gradient(fun):
    """A function with its own reverse-mode rule given inline: ``fun(*args)`` returns
    ``(value, vjp)``, where ``vjp(cotangent)`` returns one cotangent per argument (a tuple),
    as ``jax.custom_gradient``. Built on ``custom_vjp`` (reverse mode only).

    Example:
        >>> import funcarray as fa, funcarray.numpy as fnp
        >>> @fa.custom_gradient
        ... def log1pexp(x):
        ...     e = fnp.exp(x)
        ...     return fnp.log1p(e), lambda g: (g * (1 - 1 / (1 + e)),)
        >>> fa.grad(log1pexp)(100.0)
        Array(1., dtype=float32, weak_type=True)
    """
    @custom_vjp
    def wrapped(*args):
        return fun(*args)[0]

    def fwd(*args):
        value, vjp = fun(*args)
        # the vjp closes over values of the forward pass: hoist them as array residuals
        closed, consts = closure_convert(vjp, value)
        return value, (consts, _Static(closed))

    def bwd(residuals, cotangent):
        consts, closed = residuals
        cts = closed.value(cotangent, *consts)
        return tuple(cts) if isinstance(cts, (tuple, list)) else (cts,)

    wrapped.defvjp(fwd, bwd)
    return functools.wraps(fun)(wrapped)


def named_call(fun, *, name: str | None = None):
    """``fun`` under another name (``jax.named_call``). JAX uses the name in profiles and
    HLO metadata; funcarray's IR has no such scopes, so this only renames the function.

    Example:
        >>> import funcarray as fa
        >>> fa.named_call(lambda x: x + 1, name="step").__name__
        'step'
    """
    @functools.wraps(fun)
    def named(*args, **kwargs):
        return fun(*args, **kwargs)

    if name is not None:
        named.__name__ = named.__qualname__ = name
    return named


@contextlib.contextmanager
def ensure_compile_time_eval():
    """Inside this block, operations whose operands are all concrete run right away even
    while tracing ``jit`` (they are not staged), so their results are concrete Python-usable
    values, as ``jax.ensure_compile_time_eval``. Operations on traced values are staged as
    usual.

    Example:
        >>> import funcarray as fa, funcarray.numpy as fnp
        >>> @fa.jit
        ... def f(x):
        ...     with fa.ensure_compile_time_eval():
        ...         n = int(fnp.arange(4).sum())  # concrete: computed while tracing
        ...     return x * n
        >>> f(fnp.ones(2))
        Array([6., 6.], dtype=float32)
    """
    stages, trace = [], current_trace()
    while trace is not None:
        if isinstance(trace, StagingTrace) and not trace.fold_constants:
            stages.append(trace)
        trace = trace.parent
    for stage in stages:
        stage.fold_constants = True
    try:
        yield
    finally:
        for stage in stages:
            stage.fold_constants = False
