"""Linear algebra primitives: ``dot_general``.

Contract (StableHLO ``dot_general`` semantics; the eager kernel reproduces it):

* ``dot_general(lhs, rhs, dimension_numbers, precision=None, preferred_element_type=None)``.
  ``dimension_numbers = ((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch))``, four
  tuples of ints. Contracting dimensions are multiplied elementwise and summed; batch
  dimensions are paired (no summation); every other dimension is *free*. Within one operand the
  listed dimensions are unique and in range; paired dimensions have equal sizes. The result
  dimensions are: the batch dimensions (in ``lhs_batch`` order), then the free dimensions of
  ``lhs``, then those of ``rhs`` (each in operand order). No contracting dimensions at all is
  an outer product.
* Both operands have one dtype (``funcarray.numpy`` promotes first). The result has that dtype,
  or ``preferred_element_type`` when given: a dtype of the same or a "higher" kind (bool <
  integer < floating < complex), e.g. int8 x int8 -> int32 or bfloat16 x bfloat16 -> float32.
  The sum is accumulated in the wider of the operand and result dtypes, as XLA does: integers
  wrap around in that dtype; float16/bfloat16/float8 accumulate in float32 and round once at
  the end. Bool operands use the logical semiring (``or`` of ``and`` s), as XLA does.
* ``precision`` is ``None`` or a pair of precision names (``"DEFAULT"``, ``"HIGH"``,
  ``"HIGHEST"``) for the two operands. It is a hint for accelerators; the CPU kernel always
  computes at full precision.
* The result is weak-typed when both operands are and no ``preferred_element_type`` is given.

Example:
    >>> import funcarray.numpy as fnp
    >>> x = fnp.arange(6.0).reshape(2, 3)
    >>> dot_general_p.bind(x, x, dimension_numbers=(((1,), (1,)), ((), ())),
    ...                    precision=None, preferred_element_type=None)
    Array([[ 5., 14.],
           [14., 50.]], dtype=float32)
"""

from __future__ import annotations

import functools
import math

import numpy as np

from funcarray import dtypes
from funcarray.array import Array
from funcarray.primitives._define import LOW_PRECISION_FLOATS
from funcarray.transforms.core import Primitive, ShapedArray

__all__ = [
    "dot_general_p", "dot_general", "PRECISION_NAMES", "accumulation_dtype", "can_accumulate_in",
    "free_dims",
]

PRECISION_NAMES = ("DEFAULT", "HIGH", "HIGHEST")



def _kind_rank(dt: np.dtype) -> int:
    """bool < integer < floating < complex: preferred_element_type may widen along this order.

    (The dtypes predicates also know ml_dtypes' types, which NumPy reports as kind 'V'.)
    """
    if dtypes.is_complex(dt):
        return 3
    if dtypes.is_float(dt):
        return 2
    return 1 if dtypes.is_integer(dt) else 0


def free_dims(ndim: int, contracting, batch) -> tuple:
    """The dimensions of an operand that are neither contracted nor batched, in order."""
    used = set(contracting) | set(batch)
    return tuple(d for d in range(ndim) if d not in used)


def can_accumulate_in(operand_dtype, preferred_element_type) -> bool:
    """Whether ``preferred_element_type`` is allowed for operands of ``operand_dtype``."""
    preferred = np.dtype(preferred_element_type)
    return (preferred in dtypes.supported_dtypes
            and _kind_rank(preferred) >= _kind_rank(np.dtype(operand_dtype)))


@functools.cache
def accumulation_dtype(operand_dtype, result_dtype) -> np.dtype:
    """The dtype the kernel multiplies and sums in: the wider of the operand and result dtypes
    (result's kind), with float16/bfloat16/float8 raised to float32 as XLA does on the CPU."""
    operand_dtype, result_dtype = np.dtype(operand_dtype), np.dtype(result_dtype)
    acc = result_dtype
    if (_kind_rank(operand_dtype) == _kind_rank(result_dtype)
            and operand_dtype.itemsize > result_dtype.itemsize):
        acc = operand_dtype
    if acc in LOW_PRECISION_FLOATS:
        acc = np.dtype(np.float32)
    elif acc.kind == "V" and dtypes.is_integer(acc):  # int4 and friends: NumPy cannot matmul
        acc = np.dtype(np.int32)
    return acc


# --------------------------------------------------------------------------------------------
# Eager kernel
# --------------------------------------------------------------------------------------------

@functools.lru_cache(maxsize=1024)
def _kernel_plan(lhs_shape, rhs_shape, dimension_numbers):
    """Transpositions and shapes that turn the operands into (batch, free, contract) and
    (batch, contract, free) arrays, and the result shape; cached per shape signature."""
    (lc, rc), (lb, rb) = dimension_numbers
    lf, rf = free_dims(len(lhs_shape), lc, lb), free_dims(len(rhs_shape), rc, rb)

    def sizes(shape, dims):
        return tuple(shape[d] for d in dims)

    def plan(shape, batch, rows, cols):
        permutation = batch + rows + cols
        identity = permutation == tuple(range(len(shape)))
        matrix = tuple(math.prod(sizes(shape, dims)) for dims in (batch, rows, cols))
        return (None if identity else permutation), matrix

    out_shape = sizes(lhs_shape, lb) + sizes(lhs_shape, lf) + sizes(rhs_shape, rf)
    return plan(lhs_shape, lb, lf, lc), plan(rhs_shape, rb, rc, rf), out_shape


def _as_batched_matrix(x, plan):
    permutation, shape = plan
    if permutation is not None:
        x = np.transpose(x, permutation)
    return x.reshape(shape)


def _dot_general_kernel(lhs, rhs, *, dimension_numbers, precision=None,
                        preferred_element_type=None):
    lhs, rhs = np.asarray(lhs), np.asarray(rhs)
    out_dtype = lhs.dtype if preferred_element_type is None else np.dtype(preferred_element_type)
    acc = accumulation_dtype(lhs.dtype, out_dtype)
    if lhs.dtype != acc:
        lhs, rhs = lhs.astype(acc), rhs.astype(acc)
    lhs_plan, rhs_plan, out_shape = _kernel_plan(lhs.shape, rhs.shape, dimension_numbers)
    # (batch, free, contract) @ (batch, contract, free): one np.matmul (BLAS for
    # float32/float64/complex; NumPy's integer loop wraps around like XLA) does all the work.
    lhs3, rhs3 = _as_batched_matrix(lhs, lhs_plan), _as_batched_matrix(rhs, rhs_plan)
    out = np.matmul(lhs3[0], rhs3[0]) if lhs3.shape[0] == 1 else np.matmul(lhs3, rhs3)
    if out.dtype != out_dtype:
        with np.errstate(over="ignore", invalid="ignore"):  # a narrow float may overflow
            out = out.astype(out_dtype)
    return out.reshape(out_shape)


dot_general_p = Primitive("dot_general")
dot_general_p.kernel = _dot_general_kernel


# --------------------------------------------------------------------------------------------
# Shape/dtype rule
# --------------------------------------------------------------------------------------------

def _error(lhs, rhs, dimension_numbers, message: str) -> TypeError:
    """A TypeError naming the primitive, both operand types and the dimension numbers."""
    return TypeError(f"dot_general: {message}; lhs {lhs.str_short()}, rhs {rhs.str_short()}, "
                     f"dimension_numbers={dimension_numbers!r}")


def _is_int_tuple(value) -> bool:
    return type(value) is tuple and all(
        isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in value)


def _check_structure(lhs, rhs, dimension_numbers):
    ok = (type(dimension_numbers) is tuple and len(dimension_numbers) == 2
          and all(type(pair) is tuple and len(pair) == 2 and all(map(_is_int_tuple, pair))
                  for pair in dimension_numbers))
    if not ok:
        raise _error(lhs, rhs, dimension_numbers,
                     "dimension_numbers must be ((lhs_contracting, rhs_contracting), "
                     "(lhs_batch, rhs_batch)), four tuples of ints")


def _check_operand_dims(side: str, aval, contracting, batch, lhs, rhs, dimension_numbers):
    dims = contracting + batch
    for d in dims:
        if not 0 <= d < aval.ndim:
            raise _error(lhs, rhs, dimension_numbers,
                         f"{side} contracting/batch dimensions {dims} must be in range for a "
                         f"rank-{aval.ndim} operand (0 to {aval.ndim - 1})")
    if len(set(dims)) != len(dims):
        raise _error(lhs, rhs, dimension_numbers,
                     f"{side} contracting and batch dimensions {dims} must be unique")


def _check_pairs(what: str, lhs_dims, rhs_dims, lhs, rhs, dimension_numbers):
    if len(lhs_dims) != len(rhs_dims):
        raise _error(lhs, rhs, dimension_numbers,
                     f"lhs and rhs need as many {what} dimensions, got {lhs_dims} and "
                     f"{rhs_dims}")
    lhs_sizes = tuple(lhs.shape[d] for d in lhs_dims)
    rhs_sizes = tuple(rhs.shape[d] for d in rhs_dims)
    if lhs_sizes != rhs_sizes:
        raise _error(lhs, rhs, dimension_numbers,
                     f"{what} dimensions must have equal sizes, got {lhs_sizes} (lhs) and "
                     f"{rhs_sizes} (rhs)")


def _result_dtype(lhs, rhs, preferred_element_type, dimension_numbers) -> np.dtype:
    if lhs.dtype != rhs.dtype:
        raise _error(lhs, rhs, dimension_numbers,
                     "operands must have one dtype. Promote them first (funcarray.numpy does "
                     "this for you)")
    if preferred_element_type is None:
        return lhs.dtype
    preferred = np.dtype(preferred_element_type)
    if not can_accumulate_in(lhs.dtype, preferred):
        raise _error(lhs, rhs, dimension_numbers,
                     f"preferred_element_type {preferred} cannot hold products of {lhs.dtype} "
                     f"operands (it must be of the same or a wider kind: bool < integer < "
                     f"floating < complex)")
    return preferred


def _check_precision(precision):
    ok = precision is None or (
        type(precision) is tuple and len(precision) == 2
        and all(p in PRECISION_NAMES for p in precision))
    if not ok:
        raise TypeError(
            f"dot_general: precision must be None or a pair of names from {PRECISION_NAMES}, "
            f"got {precision!r}")


@dot_general_p.def_abstract_eval
def _dot_general_abstract_eval(lhs, rhs, *, dimension_numbers, precision=None,
                               preferred_element_type=None):
    dn = dimension_numbers
    _check_structure(lhs, rhs, dn)
    _check_precision(precision)
    (lc, rc), (lb, rb) = dn
    _check_operand_dims("lhs", lhs, lc, lb, lhs, rhs, dn)
    _check_operand_dims("rhs", rhs, rc, rb, lhs, rhs, dn)
    _check_pairs("batch", lb, rb, lhs, rhs, dn)
    _check_pairs("contracting", lc, rc, lhs, rhs, dn)
    dtype = _result_dtype(lhs, rhs, preferred_element_type, dn)
    shape = (tuple(lhs.shape[d] for d in lb)
             + tuple(lhs.shape[d] for d in free_dims(lhs.ndim, lc, lb))
             + tuple(rhs.shape[d] for d in free_dims(rhs.ndim, rc, rb)))
    weak = lhs.weak_type and rhs.weak_type and preferred_element_type is None
    return ShapedArray(shape, dtype, weak)


_cached_abstract_eval = functools.lru_cache(maxsize=1024)(_dot_general_abstract_eval)


@dot_general_p.def_impl
def _dot_general_impl(lhs, rhs, *, dimension_numbers, precision=None,
                      preferred_element_type=None):
    # Validate eagerly too (a NumPy error from inside the kernel would not name the operands),
    # through a cache: eager loops repeat the same shapes, and the checks cost more than a
    # small matmul.
    kwargs = dict(dimension_numbers=dimension_numbers, precision=precision,
                  preferred_element_type=preferred_element_type)
    try:
        hash((dimension_numbers, precision))
    except TypeError:  # malformed parameters (lists): the uncached rule explains what is wrong
        rule = _dot_general_abstract_eval
    else:
        rule = _cached_abstract_eval
    out_aval = rule(lhs.aval, rhs.aval, **kwargs)
    out = _dot_general_kernel(
        lhs._value, rhs._value, dimension_numbers=dimension_numbers,
        preferred_element_type=preferred_element_type)
    return Array(out, out_aval.weak_type)


def dot_general(lhs, rhs, dimension_numbers, precision=None, preferred_element_type=None):
    """Bind ``dot_general`` on same-dtype operands (see the module docstring for the contract).

    Example:
        >>> import funcarray.numpy as fnp
        >>> a = fnp.ones((2, 3, 4), dtype=fnp.int8)
        >>> dot_general(a, a, (((2,), (2,)), ((0,), (0,))), preferred_element_type=fnp.int32)
        Array([[[4, 4, 4],
                [4, 4, 4],
                [4, 4, 4]],
        <BLANKLINE>
               [[4, 4, 4],
                [4, 4, 4],
                [4, 4, 4]]], dtype=int32)
    """
    (lc, rc), (lb, rb) = dimension_numbers
    dimension_numbers = ((tuple(lc), tuple(rc)), (tuple(lb), tuple(rb)))
    if preferred_element_type is not None:
        preferred_element_type = np.dtype(preferred_element_type)
    return dot_general_p.bind(lhs, rhs, dimension_numbers=dimension_numbers,
                              precision=precision, preferred_element_type=preferred_element_type)
