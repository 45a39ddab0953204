"""Host values as Arrays: Python scalars (weak-typed, at funcarray's default dtypes), NumPy
arrays (copied, keeping their dtype) and nested lists of numbers. What needs no primitive to
become an array; lists holding arrays are joined above, by ``funcarray.api.arguments``.

Example:
    >>> from funcarray.base.host_values import host_array
    >>> host_array("example", 2.0)
    Array(2., dtype=float32, weak_type=True)
    >>> host_array("example", [1, 2]).dtype
    dtype('int32')
"""

from __future__ import annotations

import numpy as np

from funcarray.base import dtypes
from funcarray.base.array import Array, new_array
from funcarray.base.errors import int_out_of_range_error, op_type_error, op_value_error

__all__ = ["SCALAR_DEFAULTS", "host_array", "scalar_to_array", "from_numpy",
           "sequence_default_dtype"]

SCALAR_DEFAULTS = {int: dtypes.default_int, float: dtypes.default_float,
                   complex: dtypes.default_complex, bool: dtypes.bool_}
_INT32 = np.iinfo(np.int32)


def scalar_to_array(op: str, x, dtype=None) -> Array:
    t = type(x)
    weak = t is not bool and dtype is None  # an explicit dtype makes the value strong
    if dtype is None:
        dtype = SCALAR_DEFAULTS[t]
        if t is int and not _INT32.min <= x <= _INT32.max:
            raise OverflowError(
                f"{op}: the Python int {x} does not fit in int32, the default integer type. "
                f"Pass an explicit 64-bit array, e.g. fnp.asarray({x}, dtype=fnp.int64).")
    if t is float and dtypes.is_integer(dtype):
        # As jax and NumPy (fnp.int8(2.7) is 2): truncate toward zero; a NaN or an infinity
        # has no integer value, and the range is checked as for a Python int.
        if x != x:
            raise op_value_error(op, f"cannot convert the float {x} to integer dtype {dtype}")
        info = dtypes.iinfo(dtype)  # (ml_dtypes would wrap int4's ints, not refuse them)
        if not info.min - 1 < x < info.max + 1:  # its integer part does not fit
            raise int_out_of_range_error(op, x, dtype)
        return Array(np.asarray(int(x), dtype), weak)
    try:
        return new_array(np.asarray(x, dtype), weak)
    except OverflowError:
        raise int_out_of_range_error(op, x, dtype) from None


def _parsed(op: str, text, dtype) -> np.ndarray:
    try:
        return np.asarray(text, dtypes.canonicalize_dtype(dtype))
    except (ValueError, TypeError) as exc:
        raise op_value_error(op, f"cannot read {text!r} as {np.dtype(dtype).name}: {exc}")
    except OverflowError as exc:
        raise OverflowError(f"{op}: {text!r} is out of range for {np.dtype(dtype).name} "
                            f"({exc})") from None


def from_numpy(op: str, x, dtype=None) -> Array:
    value = np.asarray(x)
    if value.dtype.kind in "US" and dtype is not None:
        value = _parsed(op, value, dtype)
    if value.dtype.kind in "OUSV" and not dtypes.is_supported(value.dtype):
        if value.dtype == dtypes.float0:
            raise op_type_error(op, dtypes.float0_message())
        raise op_type_error(
            op, f"cannot make an array from {type(x).__name__} of dtype {value.dtype}; "
                f"funcarray holds numbers and booleans only")
    target = dtypes.canonicalize_dtype(value.dtype if dtype is None else dtype)
    # Copy: the caller keeps their NumPy array and may mutate it; ours must never change.
    return Array(np.array(value, dtype=target, copy=True))


def sequence_default_dtype(seq):
    """Python lists of Python scalars default to int32/float32/complex64, as in JAX."""
    value = np.asarray(seq)
    kind = value.dtype.kind
    if kind == "O":  # a Python int beyond 64 bits: the kinds of the leaves decide, as jax's
        kind = _leaf_kind(seq)
    if kind == "f":
        return dtypes.default_float
    if kind in "iu":
        return dtypes.default_int
    if kind == "c":
        return dtypes.default_complex
    return value.dtype


def host_array(op: str, x, dtype=None) -> Array:
    """``x`` (a Python scalar, a NumPy array or scalar, a nested list of numbers, or an
    object with ``__array__``) as an Array; ``op`` names the operation in errors."""
    t = type(x)
    if t in SCALAR_DEFAULTS:
        return scalar_to_array(op, x, None if dtype is None else dtypes.canonicalize_dtype(dtype))
    if isinstance(x, (np.ndarray, np.generic)):
        return from_numpy(op, x, dtype)
    if (t is str or t is bytes) and dtype is not None:
        # Text is a number only with a dtype to parse it as (NumPy's parsing, as jax's:
        # fnp.float32("2.5")); without one it is refused below, as jax refuses string arrays.
        return from_numpy(op, _parsed(op, x, dtype), dtype)
    if isinstance(x, (list, tuple)):
        if dtype is None:
            dtype = sequence_default_dtype(x)
        target = dtypes.canonicalize_dtype(dtype)
        try:
            # Converted by NumPy straight to the dtype, as jax does: a Python int that does
            # not fit raises ([2**31] to int32, [-1] to uint8) rather than wrapping.
            value = np.asarray(x) if target.kind in "OUS" else np.asarray(x, target)
        except OverflowError as exc:
            raise OverflowError(f"{op}: {exc} (in a list converted to {target.name}); pass "
                                f"values that fit or a wider dtype") from None
        except ValueError as exc:
            raise op_value_error(op, f"cannot make an array from this nested sequence: {exc}")
        return from_numpy(op, value, dtype)
    if isinstance(getattr(x, "dtype", None), dtypes.ExtendedDType):
        raise op_type_error(op, f"does not accept dtype {x.dtype}: {x.dtype.refusal}")
    if hasattr(x, "__array__") or hasattr(x, "__array_interface__"):
        return from_numpy(op, np.asarray(x), dtype)
    raise op_type_error(
        op, f"expected an array, a number or a (nested) list of numbers, got "
            f"{type(x).__name__}")


def _leaf_kind(seq) -> str:
    """The NumPy kind letter of the widest Python number kind in a nested sequence."""
    kinds = set()
    stack = [seq]
    while stack:
        item = stack.pop()
        if isinstance(item, (list, tuple)):
            stack.extend(item)
        else:
            kinds.add(type(item))
    for t, kind in ((complex, "c"), (float, "f"), (int, "i")):
        if any(issubclass(k, t) and k is not bool for k in kinds):
            return kind
    return "O"
