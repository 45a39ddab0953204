"""Questions about dtypes: ``finfo``, ``iinfo`` (machine limits) and ``can_cast``.

``finfo`` and ``iinfo`` give the Array API standard's attributes as Python numbers (``bits``,
``eps``, ``max``, ``min``, ``smallest_normal``, ``dtype``) and every other attribute of
NumPy's (or ml_dtypes') object as it is. ``can_cast`` follows the standard's promotion table
among its dtypes.

Example:
    >>> import funcarray.numpy as fnp
    >>> fnp.finfo(fnp.float32).eps
    1.1920928955078125e-07
    >>> fnp.iinfo(fnp.int8).max, fnp.can_cast(fnp.int8, fnp.float32)
    (127, False)
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from funcarray.base import dtypes
from funcarray.base.errors import op_type_error, op_value_error

__all__ = ["finfo", "iinfo", "can_cast"]


def _dtype_of(op: str, x: Any) -> np.dtype:
    """The dtype named by ``x`` (a dtype, a scalar type, an array or a tracer)."""
    dt = getattr(x, "dtype", x)
    try:
        return dtypes.canonicalize_dtype(dt)
    except TypeError as exc:
        raise op_type_error(op, f"expected a dtype or an array, got {x!r} ({exc})") from None


def _info_dtype_of(op: str, x: Any) -> np.dtype:
    """``_dtype_of``, and a Python int's default dtype (jax's iinfo, as NumPy's, takes a
    number for its type: ``iinfo(0)``; its finfo takes no float)."""
    return _dtype_of(op, int if type(x) is int else x)


class _Info:
    """Machine limits: the standard's attributes as Python numbers, the rest NumPy's."""

    __slots__ = ("_info",)
    _PYTHON: dict[str, type] = {}

    def __init__(self, info: Any) -> None:
        self._info = info

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._info, name)
        cast = self._PYTHON.get(name)
        return value if cast is None else cast(value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Info) and self._info == other._info

    def __hash__(self) -> int:
        return hash(self._info)

    def __repr__(self) -> str:
        return repr(self._info)


class FInfo(_Info):
    """What ``finfo`` returns."""

    __slots__ = ()
    _PYTHON = {"bits": int, "eps": float, "max": float, "min": float,
               "smallest_normal": float, "tiny": float, "smallest_subnormal": float,
               "resolution": float, "epsneg": float}


class IInfo(_Info):
    """What ``iinfo`` returns."""

    __slots__ = ()
    _PYTHON = {"bits": int, "max": int, "min": int}


def finfo(type: Any) -> FInfo:  # noqa: A002 (the Array API standard's parameter name)
    """Machine limits of a floating dtype (of the real part for complex dtypes).

    ``bits``, ``eps``, ``max``, ``min``, ``smallest_normal`` (and NumPy's ``tiny``,
    ``resolution``, ``epsneg``, ``smallest_subnormal``) are Python numbers, as the Array API
    standard asks; ``dtype`` is the real floating dtype. bfloat16 and the float8 types are
    described too (by ml_dtypes).

    Example:
        >>> import funcarray.numpy as fnp
        >>> info = fnp.finfo(fnp.complex64)
        >>> info.bits, info.max, info.dtype
        (32, 3.4028234663852886e+38, dtype('float32'))
    """
    dt = _dtype_of("finfo", type)
    if not dtypes.is_inexact(dt):
        raise op_value_error("finfo", f"{dt} is not a floating-point dtype; use iinfo for "
                                     f"integer dtypes")
    return FInfo(dtypes.finfo(dt))


def iinfo(type: Any) -> IInfo:  # noqa: A002 (the Array API standard's parameter name)
    """Machine limits of an integer dtype, as Python ints.

    Example:
        >>> import funcarray.numpy as fnp
        >>> info = fnp.iinfo(fnp.uint8)
        >>> info.bits, info.min, info.max
        (8, 0, 255)
    """
    dt = _info_dtype_of("iinfo", type)
    if not dtypes.is_integer(dt):
        raise op_value_error("iinfo", f"{dt} is not an integer dtype; use finfo for "
                                     f"floating-point dtypes")
    return IInfo(dtypes.iinfo(dt))


# The Array API standard's dtypes, each with its family for can_cast: bool with nothing else,
# the integers together, the real and complex floating dtypes together.
_FAMILY = {np.dtype(n): f for f, names in (
    ("b", ("bool",)),
    ("i", ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")),
    ("f", ("float32", "float64", "complex64", "complex128"))) for n in names}


def _standard_can_cast(src: np.dtype, dst: np.dtype) -> bool:
    """The standard's rule: ``src`` promotes to ``dst`` in its promotion table."""
    if _FAMILY[src] != _FAMILY[dst]:
        return False
    if src.kind == "b":
        return True
    if src.kind in "iu":
        return bool(dtypes.iinfo(dst).min <= dtypes.iinfo(src).min
                    and dtypes.iinfo(src).max <= dtypes.iinfo(dst).max)
    if src.kind == "c" and dst.kind != "c":
        return False
    return bool(np.finfo(dst).bits >= np.finfo(src).bits)


def can_cast(from_: Any, to: Any, casting: str = "safe") -> bool:
    """Whether ``from_`` (a dtype or an array) casts to the dtype ``to`` without losing
    values.

    Between the Array API standard's dtypes with ``casting="safe"`` it follows the standard's
    promotion table: bool casts only to bool, integers only to integers that hold every value,
    real and complex floats to floats at least as precise; an integer never casts to a float
    (NumPy and jax.numpy say int8 -> float32 is safe). Other dtypes (float16, bfloat16...) and
    other ``casting`` modes follow NumPy.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.can_cast(fnp.int8, fnp.int16), fnp.can_cast(fnp.uint64, fnp.int64)
        (True, False)
        >>> fnp.can_cast(fnp.float32, fnp.complex64), fnp.can_cast(fnp.bool, fnp.int8)
        (True, False)
    """
    if type(from_) is str and type(to) is str and type(casting) is str:
        return _can_cast_named(from_, to, casting)
    return _can_cast(from_, to, casting)


def _can_cast(from_: Any, to: Any, casting: str) -> bool:
    src, dst = _dtype_of("can_cast", from_), _dtype_of("can_cast", to)
    if casting == "safe" and src in _FAMILY and dst in _FAMILY:
        return _standard_can_cast(src, dst)
    return bool(np.can_cast(src, dst, casting))


# Dtypes named by strings: the answer depends on the names alone, so it is kept (a pure
# function's cache; an error is raised afresh on each call).
_can_cast_named = functools.lru_cache(maxsize=256)(_can_cast)
