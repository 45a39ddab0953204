"""Argument handling shared by ``funcarray.scipy.special``'s modules (``_special_*.py``).

JAX's ``promote_args_inexact``: Python scalars, lists and arrays are converted, promoted to
one dtype and broadcast to one shape; integer and bool results compute as floats (int64 as
float64, others as float32); complex inputs are refused with a TypeError naming the function.
"""

from __future__ import annotations

from funcarray.api.arguments import asarray_arg, convert, to_inexact_dtype
from funcarray.base import dtypes
from funcarray.base.errors import op_type_error
from funcarray.numpy._promotion import promote_args

__all__ = ["float_args", "float_arg", "finfo", "weak_result"]


def _refuse_complex(op: str, x):
    if x.dtype.kind == "c":
        raise op_type_error(op, f"complex inputs are not supported, got {x.dtype}; pass the "
                                "real part (fnp.real) if that is what you mean")


def float_arg(op: str, x):
    """``x`` as a real float Array (ints/bools converted, complex refused)."""
    x = asarray_arg(op, x)
    _refuse_complex(op, x)
    if not dtypes.is_inexact(x.dtype):
        x = convert(x, to_inexact_dtype(x.dtype), x.weak_type)
    return x


def float_args(op: str, *args):
    """The operands promoted to one real float dtype and broadcast to one shape."""
    arrays = [a if isinstance(a, (bool, int, float)) else asarray_arg(op, a) for a in args]
    for a in arrays:
        if not isinstance(a, (bool, int, float)):
            _refuse_complex(op, a)
    promoted = promote_args(op, *arrays)
    dtype = promoted[0].dtype
    if not dtypes.is_inexact(dtype):
        float_dtype = to_inexact_dtype(dtype)
        promoted = [convert(a, float_dtype, a.weak_type) for a in promoted]
    return promoted


def finfo(x):
    """``np.finfo`` of an Array's float dtype (bfloat16 included, through ml_dtypes)."""
    return dtypes.finfo(x.dtype)


def weak_result(fn, arrays):
    """``fn(*arrays)``, weakly typed when every operand is (as JAX's elementwise results;
    intermediate ``zeros_like``/loop carries would otherwise make it strong)."""
    out = fn(*arrays)
    if all(a.weak_type for a in arrays) and not out.weak_type:
        out = convert(out, out.dtype, True)
    return out
