"""Shape primitives: broadcast_in_dim, reshape (and the other shape ops beside them).

Contract (StableHLO semantics):

* ``broadcast_in_dim(x, shape, broadcast_dimensions)``: operand dimension ``i`` maps to result
  dimension ``broadcast_dimensions[i]``; each operand dimension is 1 or equals the result's.
* ``reshape(x, new_sizes)``: row-major reshape to a fully specified shape (no -1).
"""

from __future__ import annotations

import numpy as np

from funcarray.primitives._define import wrap_kernel
from funcarray.transforms.core import Primitive, ShapedArray


def _broadcast_in_dim_kernel(x, *, shape, broadcast_dimensions):
    x = np.asarray(x)
    # Put operand dims where they belong (size-1 dims elsewhere), then let NumPy broadcast.
    expanded = [1] * len(shape)
    for operand_dim, result_dim in enumerate(broadcast_dimensions):
        expanded[result_dim] = x.shape[operand_dim]
    return np.broadcast_to(x.reshape(expanded), shape)


broadcast_in_dim_p = Primitive("broadcast_in_dim")
broadcast_in_dim_p.kernel = _broadcast_in_dim_kernel
broadcast_in_dim_p.impl = wrap_kernel(_broadcast_in_dim_kernel, keep_weak=True)


@broadcast_in_dim_p.def_abstract_eval
def _broadcast_in_dim_abstract_eval(x, *, shape, broadcast_dimensions):
    if len(broadcast_dimensions) != x.ndim:
        raise TypeError(
            f"broadcast_in_dim: operand {x.str_short()} needs {x.ndim} broadcast_dimensions, "
            f"got {broadcast_dimensions}")
    for operand_dim, result_dim in enumerate(broadcast_dimensions):
        if not 0 <= result_dim < len(shape) or x.shape[operand_dim] not in (1, shape[result_dim]):
            raise TypeError(
                f"broadcast_in_dim: cannot broadcast {x.str_short()} to {tuple(shape)} with "
                f"broadcast_dimensions={broadcast_dimensions}")
    return ShapedArray(shape, x.dtype, x.weak_type)


def _reshape_kernel(x, *, new_sizes):
    return np.reshape(x, new_sizes)


reshape_p = Primitive("reshape")
reshape_p.kernel = _reshape_kernel
reshape_p.impl = wrap_kernel(_reshape_kernel, keep_weak=True)


@reshape_p.def_abstract_eval
def _reshape_abstract_eval(x, *, new_sizes):
    if int(np.prod(new_sizes, dtype=np.int64)) != x.size:
        raise TypeError(f"reshape: cannot reshape {x.str_short()} to {tuple(new_sizes)}")
    return ShapedArray(new_sizes, x.dtype, x.weak_type)


def _iota_kernel(*, dtype, shape, dimension):
    ramp = np.arange(shape[dimension], dtype=dtype)
    view = [1] * len(shape)
    view[dimension] = shape[dimension]
    return np.broadcast_to(ramp.reshape(view), shape)


# iota(dtype, shape, dimension): 0, 1, 2, ... along `dimension`, constant along the others.
iota_p = Primitive("iota")
iota_p.kernel = _iota_kernel
iota_p.impl = wrap_kernel(_iota_kernel)


@iota_p.def_abstract_eval
def _iota_abstract_eval(*, dtype, shape, dimension):
    if not 0 <= dimension < len(shape):
        raise TypeError(f"iota: dimension {dimension} is out of range for shape {shape}")
    return ShapedArray(shape, dtype)
