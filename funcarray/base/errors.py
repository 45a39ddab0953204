"""Error helpers: messages that name the operation and point at the user's line.

funcarray raises ordinary Python exception types (``TypeError``, ``ValueError``,
``IndexError``), so user code can catch them as usual. Every message made here ends with the
first frame outside funcarray, e.g. ``(at train.py:42: y = x @ w)``, so the error points at the
user's code even when the traceback passes through funcarray's own frames.
"""

from __future__ import annotations

import functools
import importlib.util
import linecache
import os
import sys
from typing import TYPE_CHECKING

from funcarray.base.forwarding import exact_forwarding

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar

    _F = TypeVar("_F", bound=Callable[..., Any])
    _E = TypeVar("_E", bound=BaseException)


@functools.cache
def _internal_dirs() -> tuple:
    """The folders whose files belong to funcarray, not to the user. With the package-dir
    mapping, transforms/ and lowering/ may sit outside funcarray/'s folder; their places are
    looked up, not imported (this module sits below both)."""
    origins = [importlib.util.find_spec(name).origin
               for name in ("funcarray", "funcarray.transforms", "funcarray.lowering")]
    return tuple(os.path.dirname(os.path.abspath(p)) + os.sep for p in origins)


def is_internal_file(filename: str) -> bool:
    return (os.path.abspath(filename).startswith(_internal_dirs())
            or filename.startswith("<frozen"))


def user_location() -> str:
    """``file:line: source`` of the innermost frame outside funcarray, or '' if none."""
    frame = sys._getframe(1)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not is_internal_file(filename):
            line = linecache.getline(filename, frame.f_lineno).strip()
            where = f"{filename}:{frame.f_lineno}"
            return f"{where}: {line}" if line else where
        frame = frame.f_back
    return ""


def _mark(exc: BaseException) -> BaseException:
    """Mark an exception as a user-facing funcarray error (see ``filtered``)."""
    exc._funcarray_user_error = True
    return exc


def filtered(exc: BaseException) -> BaseException:
    """Drop funcarray's own frames from a user-facing error's traceback.

    Errors made by the helpers in this module explain themselves and point at the user's
    line, so the frames inside funcarray only hide that line. Other exceptions (bugs inside
    funcarray) keep their full traceback.
    """
    if not getattr(exc, "_funcarray_user_error", False):
        return exc
    tb, kept = exc.__traceback__, []
    while tb is not None:
        if not is_internal_file(tb.tb_frame.f_code.co_filename):
            kept.append(tb)
        tb = tb.tb_next
    new_tb = None
    for entry in reversed(kept):
        entry.tb_next = new_tb
        new_tb = entry
    return exc.with_traceback(new_tb)


# The wrapper's body (``{args}``: every parameter of the wrapped function, forwarded).
_BOUNDARY_BODY = """\
try:
    return fn({args})
except Exception as exc:
    raise filtered(exc) from exc.__cause__"""


def api_boundary(fn: _F) -> _F:
    """Wrap a public function so user-facing errors show the user's frames only.

    Example:
        >>> @api_boundary
        ... def f(x):
        ...     return x
        >>> f(1)
        1
    """
    if getattr(fn, "_filters_own_errors", False):  # (a host-shortcut operation)
        return fn

    # The first call gives the wrapper ``fn``'s parameter list (base/forwarding.py), the
    # lines of its body matching these.
    def wrapper(*args, **kwargs):
        exact_forwarding(wrapper, fn, _BOUNDARY_BODY)
        try:
            return wrapper(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001 (re-raised unchanged but for its traceback)
            raise filtered(exc) from exc.__cause__

    wrapper.__name__ = fn.__name__
    wrapper.__qualname__ = getattr(fn, "__qualname__", fn.__name__)
    wrapper.__doc__ = fn.__doc__
    wrapper.__module__ = fn.__module__
    wrapper.__wrapped__ = fn
    wrapper._api_boundary = True  # (array_methods' operators filter errors themselves)
    return wrapper


def _with_location(message: str) -> str:
    where = user_location()
    return f"{message}\n  (at {where})" if where else message


def op_type_error(op: str, message: str) -> TypeError:
    """A TypeError for operation ``op`` (bad dtype, bad argument kind)."""
    return _mark(TypeError(_with_location(f"{op}: {message}")))


def op_value_error(op: str, message: str) -> ValueError:
    """A ValueError for operation ``op`` (bad shape, bad parameter value)."""
    return _mark(ValueError(_with_location(f"{op}: {message}")))


class IntegerOverflowError(OverflowError, ValueError):
    """A Python int out of the range of the integer dtype it must become: an OverflowError,
    as jax raises, and a ValueError, as it is a bad value."""


def int_out_of_range_error(op: str, value, dtype,
                           fix: str = "convert the array to a wider dtype first "
                                      "(x.astype(...))") -> IntegerOverflowError:
    """The Python number ``value`` does not fit the integer ``dtype`` (jax raises
    OverflowError too); ``fix`` says what to do instead."""
    return _mark(IntegerOverflowError(_with_location(
        f"{op}: the Python {type(value).__name__} {value} is out of range for {dtype}; "
        f"{fix}")))


def axis_error(op: str, axis, ndim: int) -> ValueError:
    """An out-of-range axis, with the valid range spelled out."""
    return _mark(ValueError(
        _with_location(
            f"{op}: axis {axis} is out of bounds for an array of dimension {ndim} "
            f"(valid axes are {-ndim} to {ndim - 1})" if ndim else
            f"{op}: axis {axis} is out of bounds for a 0-d array (it has no axes)"
        )
    ))


def index_error(op: str, message: str) -> IndexError:
    return _mark(IndexError(_with_location(f"{op}: {message}")))


def op_error(error_type: type[_E], op: str, message: str) -> _E:
    """An ``error_type`` (one of JAX's classes, see ``funcarray.errors``) for operation
    ``op``, with the user's line.

    Example:
        >>> isinstance(op_error(KeyError, "take", "no such key"), KeyError)
        True
    """
    return _mark(error_type(_with_location(f"{op}: {message}")))


# JAX's exception classes that the base layer can define (the tracer errors sit in the
# transforms' core, beside the tracers that raise them); ``funcarray.errors`` exports them.


class NonConcreteBooleanIndexError(IndexError, TypeError):
    """A boolean mask index with traced values: the result's shape would depend on them.
    An IndexError, as JAX's, and a TypeError, as funcarray's other errors about traced
    values."""


class KeyReuseError(TypeError):
    """A PRNG key used twice. JAX raises it only under ``jax_debug_key_reuse``; funcarray
    has no key-reuse checker, so nothing raises it: it is here so that code catching it
    ports unchanged."""
