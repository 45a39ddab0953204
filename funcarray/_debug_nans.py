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
import functools

import numpy as np

from funcarray import dtypes
from funcarray import tree as fa_tree
from funcarray._config import config
from funcarray._errors import _mark, _with_location
from funcarray.transforms.core import Tracer

__all__ = ["debug_nans", "debug_infs", "checking_trace_class", "check_jit_outputs"]


def _problem(x) -> str | None:
    """'nan' or 'inf' when concrete ``x`` holds one the flags look for, else None."""
    if isinstance(x, Tracer) or not hasattr(x, "dtype") or not dtypes.is_inexact(x.dtype):
        return None
    value = np.asarray(x)
    if value.dtype.kind not in "fc":  # bfloat16, float8...: NumPy's isnan needs a float
        value = value.astype(np.float32)
    if np.isnan(value).any():
        return "nan"
    if config.debug_infs and np.isinf(value).any():
        return "inf"
    return None


def _error(message: str) -> FloatingPointError:
    return _mark(FloatingPointError(_with_location(message)))


def _check_primitive_outputs(prim, params, args, out) -> None:
    outs = out if prim.multiple_results else (out,)
    for i, x in enumerate(outs):
        found = _problem(x)
        if found is None:
            continue
        if prim.name == "jit":  # find the operation inside: evaluate the body op by op
            from funcarray.transforms.ir import eval_ir

            eval_ir(params["ir"], (), args)
            where = f"jit '{params['name']}'"
        else:
            where = prim.name
        which = f" {i}" if len(outs) > 1 else ""
        raise _error(f"{where}: invalid value ({found}) in the output{which} "
                     f"({x.aval.str_short()}); funcarray.config.debug_"
                     f"{'infs' if found == 'inf' else 'nans'} is on")


@functools.cache
def checking_trace_class(base: type) -> type:
    """A subclass of the eager trace class ``base`` that checks every primitive's outputs."""

    def process_primitive(self, prim, args, params):
        out = base.process_primitive(self, prim, args, params)
        _check_primitive_outputs(prim, params, args, out)
        return out

    return type(f"NanChecking{base.__name__}", (base,), {
        "__slots__": (), "__doc__": checking_trace_class.__doc__,
        "process_primitive": process_primitive})


def check_jit_outputs(fun, name: str, args, kwargs, out, *, can_rerun: bool) -> None:
    """After a jitted call ran: on a NaN (inf) in ``out``, re-run ``fun`` eagerly to raise at
    the operation that made it; failing that, raise naming the jitted function."""
    for i, x in enumerate(fa_tree.leaves(out)):
        found = _problem(x)
        if found is None:
            continue
        if can_rerun:
            from funcarray._jit import disable_jit

            with disable_jit():
                fun(*args, **kwargs)  # raises at the first operation with a NaN (inf)
            reason = "an eager re-run computed none (XLA's compiled numerics differ)"
        else:
            reason = "the call donated its arguments, so it cannot be re-run eagerly"
        raise _error(f"jit '{name}': invalid value ({found}) in output {i} "
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
(inside this block; see ``funcarray._debug_nans``).

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
    Array([2.718], dtype=float32)
"""
