"""Argument handling shared by the ``funcarray.scipy.stats`` distributions.

Every distribution function starts as JAX's do: its arguments are converted, promoted to one
inexact dtype (integers and bools become floats, complex is refused) and broadcast together,
so the formulas below can mix them freely and the result has the promoted dtype and the
broadcast shape.
"""

from __future__ import annotations

from funcarray import dtypes
from funcarray._errors import op_type_error
from funcarray.numpy._util import asarray_arg, convert, promote_args, to_inexact_dtype


def promote_args_inexact(op: str, *args):
    """``args`` as Arrays of one real inexact dtype and one broadcast shape."""
    arrays = promote_args(op, *args)
    dtype = arrays[0].dtype
    if dtypes.is_inexact(dtype) and dtype.kind == "c":
        raise op_type_error(op, f"complex arguments are not supported, got {dtype}; "
                                "pass real arrays (fnp.real) if that is what you mean")
    if not dtypes.is_inexact(dtype):
        target = to_inexact_dtype(dtype)
        arrays = [convert(a, target, a.weak_type) for a in arrays]
    return arrays


def promote_dtypes_inexact(op: str, *args):
    """``args`` as Arrays of one real inexact dtype, each keeping its own shape (for the
    multivariate distributions, whose arguments have different ranks)."""
    arrays = [asarray_arg(op, a) for a in args]
    try:
        dtype, weak = dtypes.result_type(*arrays, return_weak_type=True)
    except TypeError as exc:
        raise op_type_error(op, str(exc)) from None
    if dtypes.is_inexact(dtype) and dtype.kind == "c":
        raise op_type_error(op, f"complex arguments are not supported, got {dtype}; "
                                "pass real arrays (fnp.real) if that is what you mean")
    dtype = to_inexact_dtype(dtype)
    return [convert(a, dtype, weak) for a in arrays]
