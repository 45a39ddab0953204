"""``debug_nans`` / ``debug_infs``: stop at the operation that first produced a NaN (an inf).

JAX's debugging flags, with the same switches: ``fa.config.update("debug_nans", True)``, the
environment variable ``FUNCARRAY_DEBUG_NANS=1``, or ``with fa.debug_nans():`` (``debug_infs``
likewise; its checks include NaN's).

* Eagerly (and inside eager ``grad``/``vmap``, whose primitives end up run by the eager trace),
  every primitive's floating-point outputs are checked as soon as it runs: the first NaN raises
  ``FloatingPointError`` naming the primitive and the user's line.
* A jitted call checks its outputs; on a NaN it re-runs the function eagerly (as if under
  ``disable_jit``) so that the error names the operation and the line that produced it, as
  JAX does. If the eager re-run computes no NaN (XLA's compiled numerics differ), or the call
  donated its arguments (they are gone), the error names the jitted function and the output.

Mechanism: the eager trace object's class is swapped for a checking subclass (as the
``eager_backend`` setting swaps it for the XLA one), and jit's dispatch fast path is off while
a flag is set; with both flags off nothing here runs.

Example:
    >>> import funcarray as fa
    >>> import funcarray.numpy as fnp
    >>> with fa.debug_nans():
    ...     fnp.log(fnp.asarray([-1.0]))
    Traceback (most recent call last):
    ...
    FloatingPointError: log: invalid value (nan) in the output...
"""

from __future__ import annotations

import contextlib

from funcarray.base import pytrees as fa_tree
from funcarray.base.config import config
from funcarray.lowering.executor import floating_point_error, invalid_value

__all__ = ["debug_nans", "debug_infs", "check_jit_outputs"]


def check_jit_outputs(fun, name: str, args, kwargs, out, *, can_rerun: bool) -> None:
    """After a jitted call ran: on a NaN (inf) in ``out``, re-run ``fun`` eagerly to raise at
    the operation that made it; failing that, raise naming the jitted function."""
    for i, x in enumerate(fa_tree.leaves(out)):
        found = invalid_value(x)
        if found is None:
            continue
        if can_rerun:
            from funcarray.api.jit import disable_jit

            with disable_jit():
                fun(*args, **kwargs)  # raises at the first operation with a NaN (inf)
            reason = "an eager re-run computed none (XLA's compiled numerics differ)"
        else:
            reason = "the call donated its arguments, so it cannot be re-run eagerly"
        raise floating_point_error(f"jit '{name}': invalid value ({found}) in output {i} "
                     f"({x.aval.str_short()}); {reason}")


def _flag_context(name: str):
    @contextlib.contextmanager
    def switch(enable: bool = True):
        previous = getattr(config, name)
        config.update(name, bool(enable))
        try:
            yield
        finally:
            config.update(name, previous)

    switch.__name__ = switch.__qualname__ = name
    return switch


debug_nans = _flag_context("debug_nans")
debug_nans.__doc__ = """Raise ``FloatingPointError`` at the first operation that produces a NaN
(inside this block; see ``funcarray.api.debug_nans``).

Example:
    >>> import funcarray as fa
    >>> import funcarray.numpy as fnp
    >>> with fa.debug_nans():
    ...     fnp.sqrt(fnp.asarray([4.0]))
    Array([2.], dtype=float32)
"""

debug_infs = _flag_context("debug_infs")
debug_infs.__doc__ = """Raise ``FloatingPointError`` at the first operation that produces an
inf or a NaN (inside this block).

Example:
    >>> import funcarray as fa
    >>> import funcarray.numpy as fnp
    >>> with fa.debug_infs():
    ...     fnp.exp(fnp.asarray([1.0])).round(3)
    Array([2.7180002], dtype=float32)
"""
