"""Debugging inside transformed code, as ``jax.debug``: ``print``, ``callback`` and
``breakpoint`` (its debugger is ``api/debugger.py``).

Outside every transform Python's own ``print`` already works (funcarray is eager). Under
``jit`` a value has no value yet at trace time, so ``debug.print`` stages a host callback that
prints when the compiled code runs; under ``vmap`` it prints once per batch member; under
``grad`` it prints the primal values (in the forward pass). The mechanism is
``primitives/callbacks.py``.

Example:
    >>> import funcarray as fa, funcarray.numpy as fnp
    >>> @fa.jit
    ... def f(x):
    ...     fa.debug.print("x = {x}, sum = {s}", x=x, s=x.sum())
    ...     return x * 2
    >>> _ = f(fnp.arange(3.0))
    x = [0. 1. 2.], sum = 3.0
"""

from __future__ import annotations

import builtins

from funcarray.api.arguments import asarray_arg
from funcarray.api.callbacks import flat_host_function
from funcarray.api.debugger import capture_frames, frames_as_operands
from funcarray.base import pytrees as fa_tree
from funcarray.base.errors import api_boundary
from funcarray.primitives.callbacks import HostCallback, debug_callback_p

__all__ = ["print", "callback", "breakpoint"]


@api_boundary
def callback(callback, *args, ordered=False, **kwargs):
    """Call ``callback(*args, **kwargs)`` for its side effect with the arguments' values as
    NumPy arrays, wherever this line runs: eagerly, in compiled code (``jit``), once per
    batch member (``vmap``), with primal values (``grad``). Returns None. Under ``jit``,
    XLA may run independent callbacks in any order; ``ordered=True`` ones run in program
    order (as ``io_callback(ordered=True)``: outside ``lax`` control-flow bodies).

    Example:
        >>> import funcarray as fa, funcarray.numpy as fnp
        >>> seen = []
        >>> fa.jit(lambda x: fa.debug.callback(seen.append, x) or x)(fnp.ones(2))
        Array([1., 1.], dtype=float32)
        >>> seen
        [array([1., 1.], dtype=float32)]
    """
    leaves, in_tree = fa_tree.flatten((args, kwargs))
    leaves = [asarray_arg("debug.callback", x) for x in leaves]
    name = f"debug.callback({getattr(callback, '__name__', type(callback).__name__)})"
    host = HostCallback(flat_host_function(callback, in_tree), (), name)
    debug_callback_p.bind(*leaves, callback=host, **({"ordered": True} if ordered else {}))


@api_boundary
def print(fmt: str, *args, ordered=False, **kwargs):  # noqa: A001 (JAX's name)
    """Print ``fmt.format(*args, **kwargs)`` with the arguments' values (NumPy arrays) when
    this line runs, even inside ``jit`` (see the module docstring).

    Example:
        >>> import funcarray as fa, funcarray.numpy as fnp
        >>> _ = fa.vmap(lambda x: fa.debug.print("member {}", x) or x)(fnp.arange(2.0))
        member 0.0
        member 1.0
    """
    if not isinstance(fmt, str):
        raise TypeError(f"debug.print: the format must be a string, got {type(fmt).__name__}")

    def show(*values, **named):
        builtins.print(fmt.format(*values, **named))

    callback(show, *args, ordered=ordered, **kwargs)


@api_boundary
def breakpoint(*, backend=None, filter_frames=True, num_frames=None, ordered=False,  # noqa: A001
               token=None, **kwargs):
    """Stop in a debugger here, with the local variables of this frame and its callers
    holding concrete values, also inside ``jit`` (when the compiled code runs), ``vmap``
    (once per batch member) and ``grad`` (primal values); see ``api/debugger.py`` for the
    commands. ``backend`` is ``"cli"`` (or None: the same); ``filter_frames`` leaves out
    funcarray's own frames, ``num_frames`` keeps that many; ``stdin``/``stdout`` (keyword
    arguments) replace the terminal. With ``token`` (a pytree of arrays) it stops once
    those are computed and returns them (pass them on, or nothing runs it under ``jit``).

    Example:
        >>> import io
        >>> import funcarray as fa, funcarray.numpy as fnp
        >>> shown = io.StringIO()
        >>> def f(x):
        ...     y = x + 1
        ...     fa.debug.breakpoint(stdin=commands, stdout=shown)
        ...     return y
        >>> commands = io.StringIO("p y.sum()\\nc\\n" * 2)  # (one stop per member)
        >>> _ = fa.vmap(f)(fnp.arange(2.0))
        >>> [line for line in shown.getvalue().splitlines() if "Array" in line]
        ['(jdb) Array(1., dtype=float32)', '(jdb) Array(2., dtype=float32)']
    """
    if backend not in (None, "cli"):
        raise ValueError(f"debug.breakpoint: unknown debugger backend {backend!r}; funcarray "
                         f"has the command-line one, 'cli' (the default)")
    if token is not None and ordered:
        raise ValueError("`ordered` and `token` are mutually exclusive arguments.")
    frames = capture_frames(filter_frames, num_frames, skip=1)
    operands, rebuild = frames_as_operands(frames)

    def stop(*values):
        from funcarray.api.debugger_cli import CliDebugger  # (see api/debugger.py)

        CliDebugger(rebuild(*values), **kwargs).run()

    if token is None:
        callback(stop, *operands, ordered=ordered)
        return None
    # (stopping once ``token`` is computed: it is an operand of the callback too)
    token_leaves, token_tree = fa_tree.flatten(token)
    count = len(token_leaves)
    callback(lambda *values: stop(*values[count:]), *token_leaves, *operands)
    return fa_tree.unflatten(token_tree, token_leaves)
