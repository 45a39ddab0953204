"""Argument handling of ``funcarray.scipy.special``'s functions of several arguments
(``_special_*.py``): JAX's ``promote_args_inexact``.

Python scalars, lists and arrays are converted, promoted to one dtype and broadcast to one
shape; integer and bool results compute as floats (int64 as float64, others as float32);
complex inputs are refused with a TypeError naming the function. The one-argument form
``float_arg`` and ``weak_result`` are lax's (``funcarray/lax/_special_dtypes.py``), which
``funcarray.numpy.i0`` shares.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from funcarray.api.arguments import asarray_arg
from funcarray.base import dtypes
from funcarray.lax._special_dtypes import refuse_complex
from funcarray.numpy._promotion import promote_args_inexact

if TYPE_CHECKING:
    import numpy as np

    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike

__all__ = ["float_args", "finfo"]


def float_args(op: str, *args: ArrayLike) -> list[Array]:
    """The operands promoted to one real float dtype and broadcast to one shape."""
    arrays = [a if isinstance(a, (bool, int, float)) else asarray_arg(op, a) for a in args]
    for a in arrays:
        if not isinstance(a, (bool, int, float)):
            refuse_complex(op, a)
    return promote_args_inexact(op, *arrays)


def finfo(x: Array) -> np.finfo:
    """``np.finfo`` of an Array's float dtype (bfloat16 included, through ml_dtypes)."""
    return dtypes.finfo(x.dtype)
