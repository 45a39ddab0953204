"""The dtype rules of the special functions.

* ``float_arg``: the argument converted to a float, as ``jax.numpy`` and
  ``jax.scipy.special`` do (``promote_args_inexact``): integers and bools compute as floats
  (int64 as float64, others as float32), complex inputs are refused. Used by lax's ``i0``
  (behind ``funcarray.numpy.i0`` and ``funcarray.scipy.special.i0``) and by every module of
  ``funcarray.scipy.special``; promoting several arguments to one dtype is
  ``funcarray.numpy``'s rule, so ``float_args`` is in ``funcarray/scipy/_special_arguments.py``.
* ``weak_result``: the result weakly typed when every operand is.
* ``in_float32``: float16 and bfloat16 compute in float32, as XLA does for these functions.

Example:
    >>> from funcarray.lax._special_dtypes import float_arg
    >>> float_arg("i0", 3)
    Array(3., dtype=float32, weak_type=True)
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import numpy as np

from funcarray.api.arguments import asarray_arg, convert, to_inexact_dtype
from funcarray.base import dtypes
from funcarray.base.errors import op_type_error
from funcarray.lax._ops_unary import convert_element_type

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike

__all__ = ["refuse_complex", "float_arg", "weak_result", "in_float32"]


def refuse_complex(op: str, x: Array) -> None:
    """Raise a TypeError naming ``op`` if ``x`` (an Array) is complex."""
    if x.dtype.kind == "c":
        raise op_type_error(op, f"complex inputs are not supported, got {x.dtype}; pass the "
                                "real part (fnp.real) if that is what you mean")


def float_arg(op: str, x: ArrayLike) -> Array:
    """``x`` as a real float Array (ints/bools converted, complex refused)."""
    x = asarray_arg(op, x)
    refuse_complex(op, x)
    if not dtypes.is_inexact(x.dtype):
        x = convert(x, to_inexact_dtype(x.dtype), x.weak_type)
    return x


def weak_result(fn: Callable[..., Array], arrays: Sequence[Array]) -> Array:
    """``fn(*arrays)``, weakly typed when every operand is (as JAX's elementwise results;
    intermediate ``zeros_like``/loop carries would otherwise make it strong)."""
    out = fn(*arrays)
    if all(a.weak_type for a in arrays) and not out.weak_type:
        out = convert(out, out.dtype, True)
    return out


def in_float32(fn: Callable[..., Array]) -> Callable[..., Array]:
    """``fn`` of float arrays of one dtype, computed in float32 (and rounded back) when that
    dtype is float16 or bfloat16."""
    @functools.wraps(fn)
    def wrapped(*args):
        dtype = args[0].dtype
        if np.dtype(dtype).itemsize < 4:
            return convert_element_type(
                fn(*(convert_element_type(x, np.float32) for x in args)), dtype)
        return fn(*args)

    return wrapped
