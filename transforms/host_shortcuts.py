"""Host shortcuts: the eager engine's short path for whole API operations.

An eager operation on concrete arrays normally takes the general path: argument parsing,
promotion, then one ``bind`` per primitive it is made of (``x[3]`` is a ``dynamic_slice`` and a
``squeeze``, ``x.max()`` a ``reduce_max``, ...). With the NumPy engine each bind runs a NumPy
kernel, and the Python generality around the kernels costs 10-100x the kernels themselves.

A host shortcut computes the whole operation with NumPy at once. This module decides when one
runs, in one place: outside every transform, with the NumPy engine (the eager trace's class
is exactly ``EvalTrace``: not the XLA engine, not the NaN-checking one, not with the setting
``eager_shortcuts`` off). Each shortcut sits beside the operation it speeds up, as a
primitive's rules sit beside the primitive, and returns ``NotImplemented`` for any input it
does not handle (a tracer, an unusual argument, a value that must raise): the general path
then runs, so results and errors are those of the general path by construction, and the
differential tests (``tests/shortcut_oracle.py`` and the tests that use it) hold each
shortcut to it.

A shortcut that raises is a shortcut that declined: the general path runs and raises its own,
clear error. Shortcuts hold no state, so they are as thread-safe as the kernels.

Example:
    >>> from funcarray.base.array import Array
    >>> import numpy as np
    >>> def _fast_double(x):
    ...     if type(x) is not Array:
    ...         return NotImplemented
    ...     return Array(x._value * 2, x.weak_type)
    >>> @host_shortcut(_fast_double)
    ... def double(x):
    ...     return x + x  # the general path: one bind per primitive
    >>> double(Array(np.arange(3)))._value
    array([0, 2, 4])
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from funcarray.base.array import Array, DeviceArray
from funcarray.base.errors import filtered
from funcarray.base.forwarding import exact_forwarding, same_parameters
from funcarray.transforms.core import CURRENT_TRACE, EvalTrace

__all__ = ["host_shortcut", "host_value", "GeneralPathEvalTrace", "shortcuts_run_now"]

F = TypeVar("F", bound=Callable[..., Any])


class GeneralPathEvalTrace(EvalTrace):
    """The NumPy engine with every shortcut off (the setting ``eager_shortcuts`` False): each
    primitive still runs its NumPy kernel, reached through ``bind``'s general dispatch."""

    __slots__ = ()

    def process_primitive(self, prim, args, params):
        return prim.impl(*args, **params)


def host_value(a):
    """The NumPy value of a concrete array, or None for anything else (a tracer, a list, a
    NumPy array, a Python scalar: the general path converts or rejects those).

    A ``DeviceArray`` (a jit output, a ``device_put`` result) reads its buffer once and keeps
    the value, so every shortcut treats it as a host array. Shortcuts call this first, in
    every layer, instead of testing types themselves.

    Example:
        >>> import funcarray.numpy as fnp
        >>> host_value(fnp.arange(3))
        array([0, 1, 2], dtype=int32)
        >>> host_value([0, 1, 2]) is None
        True
    """
    t = type(a)
    return a._value if t is Array or t is DeviceArray else None


def shortcuts_run_now() -> bool:
    """True when an operation called now may take its host shortcut (see the module doc)."""
    return CURRENT_TRACE.get().__class__ is EvalTrace


# The operation's body (``{args}``: every parameter, forwarded): the shortcut outside every
# transform with the NumPy engine (an exception from it declines: the general path then
# raises clearly), else the general path, its errors' tracebacks filtered as api_boundary's.
_get_trace = CURRENT_TRACE.get
_OPERATION_BODY = """\
if _get_trace().__class__ is EvalTrace:
    try:
        _out = shortcut({args})
    except Exception:
        _out = NotImplemented
    if _out is not NotImplemented:
        return _out
try:
    return general({args})
except Exception as exc:
    raise filtered(exc) from exc.__cause__"""


def host_shortcut(shortcut: Callable[..., Any]) -> Callable[[F], F]:
    """Decorate an API function (the general path) with its host shortcut.

    ``shortcut`` takes the function's arguments and returns the result, or
    ``NotImplemented`` to hand the call to the general path.
    """
    def decorate(general: F) -> F:
        @functools.wraps(general)
        def operation(*args, **kwargs):
            # The first call gives the operation ``general``'s parameter list, where the
            # shortcut takes the same parameters (base/forwarding.py).
            exact_forwarding(operation, general if same_parameters(shortcut, general) else None,
                             _OPERATION_BODY)
            try:
                return operation(*args, **kwargs)
            except Exception as exc:  # noqa: BLE001 (re-raised unchanged but for its traceback)
                raise filtered(exc) from exc.__cause__

        operation.general_path = general  # type: ignore[attr-defined]
        # It filters its own tracebacks (as ``api_boundary`` does), so the namespaces that wrap
        # their public functions leave it as it is; ``__wrapped__`` (from functools.wraps)
        # only serves ``inspect.signature`` and help().
        operation._filters_own_errors = True  # type: ignore[attr-defined]
        return operation  # type: ignore[return-value]

    return decorate
