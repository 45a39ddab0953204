"""``top_k``: the ``k`` largest entries along the last axis and their indices.

``top_k(x, k=k) -> (values, indices)``: ``values`` descending, ``indices`` int32 into the last
axis. The order is XLA's: a total order on floats (``-0.0`` below ``+0.0``, NaN above
``inf``), and among equal values the lower index first. Rules:

* eager: one stable NumPy argsort on a total-order integer key of the values (so the NumPy
  kernel and XLA agree on ties, signed zeros and NaN);
* JVP: the tangent's entries at ``indices`` (the indices have no tangent);
* batching: any batch axis but the last stays where it is (the op works on the last axis of
  arrays of any rank); a batch axis in last place moves to the front first;
* lowering: ``chlo.top_k``.

Example:
    >>> import funcarray.numpy as fnp
    >>> top_k_p.bind(fnp.asarray([1.0, 3.0, 2.0, 3.0]), k=2)
    [Array([3., 3.], dtype=float32), Array([1, 3], dtype=int32)]
"""

from __future__ import annotations

import numpy as np

from funcarray.base.array import Array
from funcarray.primitives import bind_ops as ops
from funcarray.transforms.core import Primitive, ShapedArray
from funcarray.transforms.jvp import Zero, tangent_aval
from funcarray.transforms.vmap import move_to_front

__all__ = ["top_k_p", "total_order_key"]

top_k_p = Primitive("top_k", multiple_results=True)

_SIGNED_VIEW = {2: np.int16, 4: np.int32, 8: np.int64}


def total_order_key(values: np.ndarray) -> np.ndarray:
    """Integers ordered as XLA's total order of ``values``: for floats the bits, with the
    magnitude bits of negative numbers flipped (-NaN < -inf < ... < -0 < +0 < ... < +NaN);
    integers and bools are their own key."""
    if values.dtype.kind not in "f" and values.dtype.name != "bfloat16":
        return values.astype(np.int8) if values.dtype == np.bool_ else values
    bits = values.view(_SIGNED_VIEW[values.dtype.itemsize])
    magnitude = np.array(np.iinfo(bits.dtype).max, dtype=bits.dtype)
    return np.where(bits < 0, bits ^ magnitude, bits)


@top_k_p.def_impl
def _top_k_impl(x, *, k):
    v = np.asarray(x._value)
    n = v.shape[-1]
    # A stable ascending sort of the reversed row, read backwards, is a descending sort
    # in which equal keys keep the lower original index first.
    ascending = np.argsort(total_order_key(v[..., ::-1]), axis=-1, kind="stable")
    indices = (n - 1 - ascending[..., ::-1][..., :k]).astype(np.int32)
    weak = x.weak_type  # (both outputs, as jax's: see the abstract evaluation)
    return [Array(np.take_along_axis(v, indices, axis=-1), weak), Array(indices, weak)]


@top_k_p.def_abstract_eval
def _top_k_abstract_eval(x, *, k):
    shape = x.shape[:-1] + (k,)
    # jax gives the indices the operand's weak type too (jax 0.10.2, checked by
    # tests/lax/test_top_k.py); eager and jit agree on both.
    return [ShapedArray(shape, x.dtype, x.weak_type),
            ShapedArray(shape, np.dtype(np.int32), x.weak_type)]


@top_k_p.def_jvp
def _top_k_jvp(primals, tangents, *, k):
    (x,), (t,) = primals, tangents
    values, indices = top_k_p.bind(x, k=k)
    index_zero = Zero(tangent_aval(indices.aval))
    if type(t) is Zero:
        return [values, indices], [Zero(tangent_aval(values.aval)), index_zero]
    return [values, indices], [ops.take_along_axis(t, indices, t.ndim - 1), index_zero]


@top_k_p.def_batch
def _top_k_batch(vals, dims, *, k):
    (x,), (d,) = vals, dims
    if d == x.ndim - 1:
        x, d = move_to_front(x, d, x.shape[d]), 0
    return top_k_p.bind(x, k=k), [d, d]


@top_k_p.def_lower
def _top_k_lower(ctx, x, *, k):
    return ctx.op("chlo.top_k", x, attributes={"k": f"{k} : i64"})
