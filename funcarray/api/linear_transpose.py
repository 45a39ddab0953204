"""``linear_transpose``: the transpose of a linear function, as in ``jax.linear_transpose``.

The function is staged once to IR on the primals' types (values it closes over become
constants) and ``backward_pass`` (``transforms/transpose.py``) runs its equations backwards on
each cotangent, the same machinery reverse mode uses for the linearised function.

Example:
    >>> import funcarray as fa, funcarray.numpy as fnp
    >>> a = fnp.asarray([[1.0, 2.0], [3.0, 4.0]])
    >>> f_t = fa.linear_transpose(lambda x: a @ x, fnp.zeros(2))
    >>> f_t(fnp.asarray([1.0, 0.0]))
    (Array([1., 2.], dtype=float32),)
"""

from __future__ import annotations

import numpy as np

from funcarray.api.arguments import asarray_arg, is_array
from funcarray.api.flat_functions import flatten_fun
from funcarray.base import pytrees as fa_tree
from funcarray.base.errors import api_boundary
from funcarray.transforms.core import MissingRuleError, ShapedArray
from funcarray.transforms.staging import stage_flat
from funcarray.transforms.transpose import backward_pass

__all__ = ["linear_transpose"]


def _aval_of(what: str, x) -> ShapedArray:
    """The type of a primal given as an array or anything with ``shape`` and ``dtype``
    (``ShapeDtypeStruct``): only its type is used."""
    if is_array(x):
        return x.aval
    if hasattr(x, "shape") and hasattr(x, "dtype"):
        return ShapedArray(tuple(x.shape), np.dtype(x.dtype))
    return asarray_arg(what, x).aval


@api_boundary
def linear_transpose(fun, *primals, reduce_axes=()):
    """The transpose of the linear function ``fun`` at inputs of the types of ``primals``:
    ``f_t(cotangent)`` returns a tuple with one cotangent per primal, ``f_t(ct) = ct @ J``.

    Example:
        >>> import funcarray as fa, funcarray.numpy as fnp
        >>> f_t = fa.linear_transpose(lambda x, y: 2.0 * x + y.sum(), fnp.zeros(3), fnp.zeros(2))
        >>> f_t(fnp.ones(3))
        (Array([2., 2., 2.], dtype=float32), Array([3., 3.], dtype=float32))
    """
    if reduce_axes:
        raise NotImplementedError("linear_transpose: reduce_axes is not supported (it is "
                                  "deprecated in JAX too)")
    leaves, in_tree = fa_tree.flatten(primals)
    avals = [_aval_of("linear_transpose", x) for x in leaves]
    for aval in avals:
        if aval.dtype.kind not in "fcV" and aval.dtype.name != "bfloat16":
            raise TypeError(f"linear_transpose: inputs must be floating or complex (a linear "
                            f"function of integers has no transpose); got {aval.str_short()}")
    flat_fun, store = flatten_fun(fun, in_tree)
    closed = stage_flat(flat_fun, avals)
    out_tree = store["out_tree"]
    out_avals = closed.ir.out_avals

    def transposed(cotangent):
        ct_leaves, ct_tree = fa_tree.flatten(cotangent)
        if ct_tree != out_tree:
            raise TypeError(f"linear_transpose: the cotangent's structure {ct_tree} does not "
                            f"match the function's output {out_tree}")
        ct_leaves = [x if is_array(x) else asarray_arg("linear_transpose", x)
                     for x in ct_leaves]
        for k, (ct, aval) in enumerate(zip(ct_leaves, out_avals)):
            if ct.weak_type and tuple(ct.shape) == aval.shape and ct.dtype != aval.dtype:
                ct = ct_leaves[k] = ct.astype(aval.dtype)  # a Python scalar takes the type
            if tuple(ct.shape) != aval.shape or ct.dtype != aval.dtype:
                raise TypeError(f"linear_transpose: cotangent {k} has type "
                                f"{ct.aval.str_short()}, the output it belongs to is "
                                f"{aval.str_short()}")
        try:
            cts = backward_pass(closed.ir, closed.consts, ct_leaves)
        except MissingRuleError as exc:
            raise TypeError(f"linear_transpose: the function is not linear in its inputs "
                            f"({exc})") from None
        return fa_tree.unflatten(in_tree, cts)

    return api_boundary(transposed)
