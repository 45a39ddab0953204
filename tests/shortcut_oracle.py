"""The oracle of the host shortcuts: the general path of the same eager operation.

``assert_same_outcome(call)`` runs ``call()`` with the shortcuts on and with them off (the
setting ``eager_shortcuts``) and asserts the two outcomes are the same: the same error class
and message, or results of the same pytree structure whose leaves have the same type, shape,
dtype, weak type and bits (NaNs equal, signed zeros told apart).

Example:
    >>> import funcarray.numpy as fnp
    >>> x = fnp.arange(6.0).reshape(2, 3)
    >>> assert_same_outcome(lambda: x[1, ::2])
"""

from __future__ import annotations

import contextlib
import types

import numpy as np

import funcarray as fa
from funcarray import config
from funcarray.base import dtypes
from funcarray.base.array import Array, DeviceArray

__all__ = ["general_path", "assert_same_outcome", "outcome", "outcomes"]


@contextlib.contextmanager
def general_path():
    """Every eager operation takes the general path, primitive by primitive."""
    config.update("eager_shortcuts", False)
    try:
        yield
    finally:
        config.update("eager_shortcuts", True)


def outcome(call):
    """``("ok", result)`` or ``("error", class, message)``."""
    try:
        return ("ok", call())
    except Exception as exc:  # noqa: BLE001 (the error is the outcome compared)
        return ("error", type(exc), str(exc))


def _describe(leaf):
    if isinstance(leaf, Array):
        value = np.asarray(leaf)
        return ("Array", leaf.shape, np.dtype(leaf.dtype), bool(leaf.weak_type), value)
    return (type(leaf), None, None, None, leaf)


def _same_bits(a, b) -> bool:
    # (a 0-d result may hold a NumPy scalar: compared as an array, NaN equal to NaN)
    a, b = (np.asarray(v) if isinstance(v, np.generic) else v for v in (a, b))
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        if a.shape != b.shape or a.dtype != b.dtype:
            return False
        if a.dtype.kind in "fc" or dtypes.is_float(a.dtype):  # (ml_dtypes' floats: kind V)
            a64 = a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
            b64 = b.astype(a64.dtype)
            parts = ((a64.real, b64.real), (a64.imag, b64.imag)) if a.dtype.kind == "c" \
                else ((a64, b64),)
            return all(np.array_equal(x, y, equal_nan=True)
                       and np.array_equal(np.signbit(x), np.signbit(y)) for x, y in parts)
        return np.array_equal(a, b)
    if isinstance(a, float) and isinstance(b, float):
        return (a == b and np.signbit(a) == np.signbit(b)) or (a != a and b != b)
    if isinstance(a, complex) and isinstance(b, complex):
        return _same_bits(a.real, b.real) and _same_bits(a.imag, b.imag)
    # (objects without value equality, e.g. an iinfo, compare by their repr)
    return type(a) is type(b) and (a == b or repr(a) == repr(b))


def _device_arrays_of(call) -> list:
    """The DeviceArrays that ``call`` holds (in its closure, defaults and the globals it names,
    and in the lists, tuples, dicts and functions there), unread."""
    found, seen = [], set()

    def walk(obj, depth):
        if depth > 4 or id(obj) in seen:
            return
        seen.add(id(obj))
        if type(obj) is DeviceArray:
            found.append(obj)
        elif isinstance(obj, (list, tuple)):
            for item in obj:
                walk(item, depth + 1)
        elif isinstance(obj, dict):
            for item in obj.values():
                walk(item, depth + 1)
        elif isinstance(obj, types.FunctionType):
            for cell in obj.__closure__ or ():
                with contextlib.suppress(ValueError):  # (an empty cell)
                    walk(cell.cell_contents, depth + 1)
            for item in obj.__defaults__ or ():
                walk(item, depth + 1)
            for name in obj.__code__.co_names:  # (module-level operands)
                if name in obj.__globals__:
                    walk(obj.__globals__[name], depth + 1)
    walk(call, 0)
    return found


def _unread(arrays) -> None:
    """Put back device arrays read since (an Array from the first read on, its buffer kept)
    in their unread state, so that each path meets the DeviceArrays the test made."""
    for x in arrays:
        if type(x) is Array:
            del x._value
            x.__class__ = DeviceArray


def outcomes(call) -> tuple:
    """``(outcome with the shortcuts on, outcome with them off)`` of ``call()``; device arrays
    that ``call`` holds are unread before each path runs, and again after."""
    device_arrays = _device_arrays_of(call)
    fast = outcome(call)
    _unread(device_arrays)
    with general_path():
        general = outcome(call)
    _unread(device_arrays)
    return fast, general


def assert_same_outcome(call) -> None:
    """Assert ``call()`` ends the same with the host shortcuts on and off (module doc)."""
    fast, general = outcomes(call)
    if general[0] == "error" or fast[0] == "error":
        assert fast == general, f"shortcut: {fast!r}\ngeneral path: {general!r}"
        return
    fast_leaves, fast_tree = fa.tree.flatten(fast[1])
    general_leaves, general_tree = fa.tree.flatten(general[1])
    assert fast_tree == general_tree, f"structure {fast_tree} != general path's {general_tree}"
    for got, want in zip(fast_leaves, general_leaves):
        g, w = _describe(got), _describe(want)
        assert g[:4] == w[:4], f"shortcut gives {g[:4]}, the general path {w[:4]}"
        assert _same_bits(g[4], w[4]), f"shortcut gives {g[4]!r}, the general path {w[4]!r}"
