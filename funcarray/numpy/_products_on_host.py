"""Host shortcuts of the products (``funcarray.transforms.host_shortcuts``): ``dot``,
``inner``, ``vdot``, ``outer``, ``vecdot``, ``einsum``, ``matvec``, ``vecmat`` and ``cross``
of concrete host arrays, computed with the general path's own NumPy kernels at once.

The general path (``_linalg``) promotes, checks the shapes, and binds one ``dot_general`` (plus
reshapes and transposes) per product: ~5-15 us of Python around a kernel of well under a
microsecond for small operands. Each shortcut here takes only host arrays (``Array``,
``DeviceArray``) of one dtype whose promotion changes nothing, no ``precision`` and no
``preferred_element_type``, repeats the general path's shape logic, and calls
``dot_general``'s kernel with the dimension numbers the general path would bind, on operands
reshaped and transposed by the same NumPy calls as the shape primitives' kernels: the summation
order, hence the bits, are the general path's by construction. Anything else (a list, a
Python scalar, mixed dtypes, a shape that must raise) returns ``NotImplemented``, and the
general path runs and raises its own error.

Example:
    >>> import funcarray.numpy as fnp
    >>> _dot_on_host(fnp.asarray([1.0, 2.0]), fnp.asarray([3.0, 4.0]))
    Array(11., dtype=float32)
    >>> _dot_on_host([1.0, 2.0], fnp.asarray([3.0, 4.0]))  # a list: the general path
    NotImplemented
"""

from __future__ import annotations

import functools

import numpy as np

from funcarray.base import dtypes
from funcarray.base.array import Array, DeviceArray, new_array
from funcarray.numpy._shape_on_host import host_axis
from funcarray.primitives._threads import PARALLEL_MIN_ELEMENTS
from funcarray.primitives.dot_general import NATIVE_MATMUL_DTYPES, dot_general_p
from funcarray.primitives.shape import broadcast_in_dim_p

__all__ = ["host_product_operands", "_dot_on_host", "_inner_on_host", "_vdot_on_host",
           "_outer_on_host", "_vecdot_on_host", "_einsum_on_host", "_cross_on_host"]

_kernel = dot_general_p.kernel
_broadcast_kernel = broadcast_in_dim_p.kernel
_NO_DIMS = (((), ()), ((), ()))
# dimension_numbers of ``a @ b`` for a 1-d/2-d ``a`` (by a.ndim): the kernel's NumPy dot.
_PLAIN_MATMUL = {1: (((0,), (0,)), ((), ())), 2: (((1,), (0,)), ((), ()))}
# The strategy names einsum's general path accepts (an explicit path takes that path).
_STRATEGIES = frozenset(("auto", "greedy", "optimal", "dp"))


def host_product_operands(operands, precision=None, preferred_element_type=None):
    """The NumPy values of host arrays of one dtype that ``_Product`` leaves as they are, and
    the product's weak type; None to decline (the general path promotes or raises)."""
    if precision is not None or preferred_element_type is not None:
        return None
    values, weak = [], True
    for a in operands:
        t = type(a)
        if t is not Array and t is not DeviceArray:
            return None
        values.append(a._value)
        weak = weak and a._weak
    dtype = values[0].dtype
    if any(v.dtype != dtype for v in values):
        return None
    if any(a._weak for a in operands):
        # A weak operand: _Product promotes, which may change the dtype (a weak float16 is a
        # float32) and gives the weak type; decline unless the dtype stays.
        promoted, weak = dtypes.result_type(*operands, return_weak_type=True)
        if promoted != dtype:
            return None
    return values, weak


def _host_pair(a, b, precision=None, preferred_element_type=None):
    """``host_product_operands`` of two operands, unrolled (it runs on every call)."""
    ta, tb = type(a), type(b)
    if ((ta is not Array and ta is not DeviceArray) or (tb is not Array and tb is not DeviceArray)
            or precision is not None or preferred_element_type is not None):
        return None
    av, bv = a._value, b._value
    if av.dtype != bv.dtype:
        return None
    if a._weak or b._weak:
        return host_product_operands((a, b))
    return (av, bv), False


def _product(values, weak, dimension_numbers):
    av, bv = values
    if av.dtype in NATIVE_MATMUL_DTYPES:
        # The kernel's own first steps, without its dispatch: NumPy's dot for a plain
        # vector/matrix product, and for a product with nothing to sum (a 0-d operand) the
        # elementwise multiply it computes (one product per element either way).
        if dimension_numbers == _PLAIN_MATMUL.get(av.ndim) and bv.ndim <= 2:
            return new_array(np.dot(av, bv), weak)
        if dimension_numbers is _NO_DIMS and av.size * bv.size < PARALLEL_MIN_ELEMENTS:
            # (each of a's elements times the whole of b: a.shape + b.shape)
            return new_array(np.multiply(av.reshape(av.shape + (1,) * bv.ndim), bv), weak)
    return new_array(_kernel(av, bv, dimension_numbers=dimension_numbers), weak)


def _batched_vector_product(av, bv, weak, batch):
    """The sums ``av[i] . bv[i]`` over the last axis of two arrays of shape ``batch + (k,)``,
    as dot_general's kernel computes them for ``batch`` and ``k`` both above 1: one batched
    np.matmul of (B, 1, k) by (B, k, 1) matrices (the kernel's plan, without its dispatch)."""
    k = av.shape[-1]
    count = av.size // k if k else 0
    if av.dtype not in NATIVE_MATMUL_DTYPES or k < 2 or count < 2:
        dims = tuple(range(len(batch)))
        return _product((av, bv), weak, (((len(batch),), (len(batch),)), (dims, dims)))
    out = np.matmul(av.reshape(count, 1, k), bv.reshape(count, k, 1))
    return new_array(out.reshape(batch), weak)


def _ravel(x):
    return x if x.ndim == 1 else x.reshape(x.size)  # np.reshape's view, less dispatch


def _transpose(x, permutation):
    permutation = tuple(permutation)
    return x if permutation == tuple(range(x.ndim)) else np.transpose(x, permutation)


def _axis_last(x, axis):
    """``x`` with its (non-negative) ``axis`` moved last, by the transpose kernel."""
    if axis == x.ndim - 1:
        return x
    return np.transpose(x, (*(d for d in range(x.ndim) if d != axis), axis))


def _broadcast(x, shape):
    """``broadcast_to_shape``: the broadcast_in_dim kernel (a fresh array) unless it fits."""
    if x.shape == shape:
        return x
    lead = len(shape) - x.ndim
    return _broadcast_kernel(x, shape=shape, broadcast_dimensions=tuple(range(lead, len(shape))))


# --------------------------------------------------------------------------------------------
# dot, inner, vdot, outer, vecdot
# --------------------------------------------------------------------------------------------

def _scaled_or_contracted(a, b, precision, preferred_element_type, b_axis):
    """``dot`` and ``inner``: a 0-d operand scales the other; else a's last axis is summed
    against b's axis ``b_axis(b.ndim)``."""
    operands = _host_pair(a, b, precision, preferred_element_type)
    if operands is None:
        return NotImplemented
    values, weak = operands
    av, bv = values
    if av.ndim == 0 or bv.ndim == 0:
        return _product(values, weak, _NO_DIMS)
    a_dim, b_dim = av.ndim - 1, b_axis(bv.ndim)
    if av.shape[a_dim] != bv.shape[b_dim]:
        return NotImplemented
    return _product(values, weak, (((a_dim,), (b_dim,)), ((), ())))


def _dot_on_host(a, b, *, precision=None, preferred_element_type=None):
    return _scaled_or_contracted(a, b, precision, preferred_element_type,
                                 lambda ndim: max(ndim - 2, 0))


def _inner_on_host(a, b, *, precision=None, preferred_element_type=None):
    return _scaled_or_contracted(a, b, precision, preferred_element_type, lambda ndim: ndim - 1)


def _vdot_on_host(a, b, *, precision=None, preferred_element_type=None):
    operands = _host_pair(a, b, precision, preferred_element_type)
    if operands is None:
        return NotImplemented
    (av, bv), weak = operands
    if av.size != bv.size:
        return NotImplemented
    if av.dtype.kind == "c":
        av = np.conjugate(av)  # conj's kernel
    return _product((_ravel(av), _ravel(bv)), weak, (((0,), (0,)), ((), ())))


def _outer_on_host(a, b, out=None):
    operands = _host_pair(a, b)
    if operands is None or out is not None:
        return NotImplemented
    (av, bv), weak = operands
    return _product((_ravel(av), _ravel(bv)), weak, _NO_DIMS)


def _vecdot_on_host(x1, x2, /, *, axis=-1, precision=None, preferred_element_type=None):
    operands = _host_pair(x1, x2, precision, preferred_element_type)
    if operands is None:
        return NotImplemented
    (av, bv), weak = operands
    a1, a2 = host_axis(axis, av.ndim), host_axis(axis, bv.ndim)
    if a1 is None or a2 is None or av.shape[a1] != bv.shape[a2]:
        return NotImplemented
    if av.dtype.kind == "c":
        av = np.conjugate(av)
    if av.ndim == 1 and bv.ndim == 1:  # (no batch: a plain dot of two vectors)
        return _product((av, bv), weak, _PLAIN_MATMUL[1])
    av, bv = _axis_last(av, a1), _axis_last(bv, a2)
    batch = av.shape[:-1]
    if bv.shape[:-1] != batch:
        batch = tuple(np.broadcast_shapes(batch, bv.shape[:-1]))  # raises: declined
    av, bv = _broadcast(av, batch + av.shape[-1:]), _broadcast(bv, batch + bv.shape[-1:])
    return _batched_vector_product(av, bv, weak, batch)


# --------------------------------------------------------------------------------------------
# einsum
# --------------------------------------------------------------------------------------------

class _Recorder:
    """A ``_Product`` whose ``dot_general`` records the contraction instead of computing it:
    operands are numbered, each result gets the next number."""

    __slots__ = ("steps", "count")

    def __init__(self, count: int):
        self.steps, self.count = [], count

    def dot_general(self, x, y, contracting=((), ()), batch=((), ())):
        dimension_numbers = ((tuple(contracting[0]), tuple(contracting[1])),
                             (tuple(batch[0]), tuple(batch[1])))
        self.steps.append((x, y, dimension_numbers))
        self.count += 1
        return self.count - 1


@functools.lru_cache(maxsize=256)
def _einsum_plan(subscripts: str, shapes: tuple, optimize):
    """The general path's contractions of operands of ``shapes``, as ``(steps, result,
    permutation)``: each step ``(x, y, dimension_numbers)`` contracts two numbered operands or
    results; None when an operand needs a diagonal, a sum of its own or a broadcast dimension
    squeezed (the general path binds other primitives for those). Cached, as the spec is."""
    from funcarray.numpy._linalg import (
        _choose_pair,
        _contract_pair,
        _einsum_spec,
        _labels_kept,
    )
    labels, output, sizes = _einsum_spec(subscripts, shapes)
    current = []
    for index, (shape, term) in enumerate(zip(shapes, labels)):
        if len(set(term)) != len(term) or any(
                n != sizes[label] for n, label in zip(shape, term)):
            return None
        current.append((index, list(term)))
    for i, (_, term) in enumerate(current):
        keep = _labels_kept(current, (i,), output)
        if any(label not in keep for label in term):
            return None
    recorder = _Recorder(len(shapes))
    while len(current) > 1:
        i, j = _choose_pair(current, output, sizes, optimize)
        keep = _labels_kept(current, (i, j), output)
        merged = _contract_pair(recorder, current[i], current[j], keep,
                                output if len(current) == 2 else None)
        current = [op for k, op in enumerate(current) if k not in (i, j)] + [merged]
    result, result_labels = current[0]
    return tuple(recorder.steps), result, tuple(result_labels.index(t) for t in output)


def _einsum_on_host(subscripts, /, *operands, out=None, optimize="auto", precision=None,
                    preferred_element_type=None):
    """Two or more operands contracted pairwise as the general path plans it (see
    ``_einsum_plan``), each contraction the ``dot_general`` kernel."""
    if (out is not None or type(subscripts) is not str or len(operands) < 2
            or not (optimize is None or type(optimize) is bool
                    or (type(optimize) is str and optimize in _STRATEGIES))):
        return NotImplemented
    found = host_product_operands(operands, precision, preferred_element_type)
    if found is None:
        return NotImplemented
    values, weak = found
    plan = _einsum_plan(subscripts, tuple(v.shape for v in values), optimize)
    if plan is None:
        return NotImplemented
    steps, result, permutation = plan
    for x, y, dimension_numbers in steps:
        values.append(_kernel(values[x], values[y], dimension_numbers=dimension_numbers))
    return Array(_transpose(values[result], permutation), weak)


# --------------------------------------------------------------------------------------------
# cross
# --------------------------------------------------------------------------------------------

def _cross_on_host(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """The general path's formula with the multiply/subtract/negate kernels: each component
    is one product, or a difference of two, exactly as the general path computes it."""
    if axis is not None:
        axisa = axisb = axisc = axis
    operands = _host_pair(a, b)
    if operands is None:
        return NotImplemented
    (av, bv), weak = operands
    if av.dtype.kind not in "iufc" or av.ndim == 0 or bv.ndim == 0:
        return NotImplemented  # bools, ml_dtypes: the general path's own kernels decide
    ax, bx = host_axis(axisa, av.ndim), host_axis(axisb, bv.ndim)
    if ax is None or bx is None:
        return NotImplemented
    av, bv = _axis_last(av, ax), _axis_last(bv, bx)
    n, m = av.shape[-1], bv.shape[-1]
    if n not in (2, 3) or m not in (2, 3):
        return NotImplemented
    shape = tuple(np.broadcast_shapes(av.shape[:-1], bv.shape[:-1]))
    a0, a1, b0, b1 = av[..., 0], av[..., 1], bv[..., 0], bv[..., 1]
    z = np.subtract(np.multiply(a0, b1), np.multiply(a1, b0))
    if n == 2 and m == 2:
        return Array(z, weak)
    cx = axisc if type(axisc) is int else None
    if cx is None or not -(len(shape) + 1) <= cx <= len(shape):
        return NotImplemented
    a2 = av[..., 2] if n == 3 else None
    b2 = bv[..., 2] if m == 3 else None
    parts = [_cross_term(a1, b2, a2, b1), _cross_term(a2, b0, a0, b2), z]
    c = np.concatenate([_broadcast(np.asarray(p), shape).reshape(shape + (1,)) for p in parts],
                       axis=len(shape))
    cx = cx + c.ndim if cx < 0 else cx
    return Array(_transpose(c, (*range(cx), c.ndim - 1, *range(cx, c.ndim - 1))), weak)


def _cross_term(p, q, r, s):
    if p is None or q is None:
        return np.negative(np.multiply(r, s))
    if r is None or s is None:
        return np.multiply(p, q)
    return np.subtract(np.multiply(p, q), np.multiply(r, s))
