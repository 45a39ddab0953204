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

__all__ = ["top_k_p", "total_order_key", "flip_negative", "top_k_kernel"]

top_k_p = Primitive("top_k", multiple_results=True)

# Per float width: the signed integer view of its bits, the magnitude bits and the shift
# that spreads the sign bit over a word (made once: np.iinfo costs ~1 us a call).
_FLOAT_BITS = {n: (np.dtype(t), np.array(np.iinfo(t).max, t), np.array(8 * n - 1, t))
               for n, t in ((2, np.int16), (4, np.int32), (8, np.int64))}


def flip_negative(bits: np.ndarray) -> np.ndarray:
    """Signed integers with the magnitude bits of the negative ones flipped,
    ``bits ^ (sign mask & magnitude)``: an involution, so it maps total-order keys back to
    bits too."""
    _, magnitude, shift = _FLOAT_BITS[bits.dtype.itemsize]
    return bits ^ ((bits >> shift) & magnitude)


def total_order_key(values: np.ndarray) -> np.ndarray:
    """Integers ordered as XLA's total order of ``values``: for floats the bits, with the
    magnitude bits of negative numbers flipped (-NaN < -inf < ... < -0 < +0 < ... < +NaN);
    integers and bools are their own key.

    Example:
        >>> total_order_key(np.array([-0.0, 0.0], np.float32))  # -0.0 before +0.0
        array([-1,  0], dtype=int32)
    """
    if values.dtype.kind not in "f" and values.dtype.name != "bfloat16":
        return values.astype(np.int8) if values.dtype == np.bool_ else values
    return flip_negative(values.view(_FLOAT_BITS[values.dtype.itemsize][0]))


def top_k_kernel(v: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` largest entries of ``v``'s last axis in XLA's total order, descending, and
    their int32 indices (equal keys: the lower index first).

    Example:
        >>> top_k_kernel(np.array([1.0, 3.0, 2.0, 3.0]), 2)
        (array([3., 3.]), array([1, 3], dtype=int32))
    """
    n = v.shape[-1]
    # A stable ascending sort of the reversed row, read backwards, is a descending sort
    # in which equal keys keep the lower original index first.
    ascending = np.argsort(total_order_key(v[..., ::-1]), axis=-1, kind="stable")
    indices = (n - 1 - ascending[..., ::-1][..., :k]).astype(np.int32)
    if v.ndim == 1:  # (take_along_axis costs ~2 us of argument handling)
        return v[indices], indices
    return np.take_along_axis(v, indices, axis=-1), indices


@top_k_p.def_impl
def _top_k_impl(x, *, k):
    values, indices = top_k_kernel(np.asarray(x._value), k)
    weak = x.weak_type  # (both outputs, as jax's: see the abstract evaluation)
    return [Array(values, weak), Array(indices, weak)]


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
