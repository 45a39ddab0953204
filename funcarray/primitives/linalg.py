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

import math

import numpy as np

from funcarray import dtypes
from funcarray.array import Array
from funcarray.primitives._define import LOW_PRECISION_FLOATS
from funcarray.transforms.core import Primitive, ShapedArray

__all__ = ["dot_general_p", "dot_general", "PRECISION_NAMES"]

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

def _dot_general_kernel(lhs, rhs, *, dimension_numbers, precision=None,
                        preferred_element_type=None):
    lhs, rhs = np.asarray(lhs), np.asarray(rhs)
    (lc, rc), (lb, rb) = dimension_numbers
    lf, rf = free_dims(lhs.ndim, lc, lb), free_dims(rhs.ndim, rc, rb)
    out_dtype = lhs.dtype if preferred_element_type is None else np.dtype(preferred_element_type)
    acc = accumulation_dtype(lhs.dtype, out_dtype)
    batch_shape = tuple(lhs.shape[d] for d in lb)
    out_shape = batch_shape + tuple(lhs.shape[d] for d in lf) + tuple(rhs.shape[d] for d in rf)
    # Bring both operands to (batch, free, contract) / (batch, contract, free) matrices, so one
    # np.matmul (BLAS for float32/float64/complex) does all the work.
    batch = math.prod(batch_shape)
    contract = math.prod(lhs.shape[d] for d in lc)
    lhs3 = np.transpose(lhs, lb + lf + lc).astype(acc, copy=False)
    rhs3 = np.transpose(rhs, rb + rc + rf).astype(acc, copy=False)
    lhs3 = lhs3.reshape(batch, math.prod(lhs.shape[d] for d in lf), contract)
    rhs3 = rhs3.reshape(batch, contract, math.prod(rhs.shape[d] for d in rf))
    out = np.matmul(lhs3[0], rhs3[0]) if batch == 1 else np.matmul(lhs3, rhs3)
    with np.errstate(over="ignore", invalid="ignore"):  # rounding to a narrow float may overflow
        return out.astype(out_dtype, copy=False).reshape(out_shape)


dot_general_p = Primitive("dot_general")
dot_general_p.kernel = _dot_general_kernel


# --------------------------------------------------------------------------------------------
# Shape/dtype rule
# --------------------------------------------------------------------------------------------

def _describe(lhs, rhs, dimension_numbers) -> str:
    return (f"lhs {lhs.str_short()}, rhs {rhs.str_short()}, "
            f"dimension_numbers={dimension_numbers}")


def _is_int_tuple(value) -> bool:
    return isinstance(value, tuple) and all(
        isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in value)


def _check_structure(lhs, rhs, dimension_numbers):
    ok = (isinstance(dimension_numbers, tuple) and len(dimension_numbers) == 2
          and all(isinstance(pair, tuple) and len(pair) == 2 and all(map(_is_int_tuple, pair))
                  for pair in dimension_numbers))
    if not ok:
        raise TypeError(
            f"dot_general: dimension_numbers must be ((lhs_contracting, rhs_contracting), "
            f"(lhs_batch, rhs_batch)), four tuples of ints; got {dimension_numbers!r} for "
            f"lhs {lhs.str_short()}, rhs {rhs.str_short()}")


def _check_operand_dims(side: str, aval, contracting, batch, where: str):
    dims = contracting + batch
    if not all(0 <= d < aval.ndim for d in dims):
        raise TypeError(
            f"dot_general: {side} contracting/batch dimensions {dims} must be in range for a "
            f"rank-{aval.ndim} operand (0 to {aval.ndim - 1}); {where}")
    if len(set(dims)) != len(dims):
        raise TypeError(
            f"dot_general: {side} contracting and batch dimensions {dims} must be unique; "
            f"{where}")


def _check_pairs(what: str, lhs, rhs, lhs_dims, rhs_dims, where: str):
    if len(lhs_dims) != len(rhs_dims):
        raise TypeError(
            f"dot_general: lhs and rhs need as many {what} dimensions, got {lhs_dims} and "
            f"{rhs_dims}; {where}")
    lhs_sizes = tuple(lhs.shape[d] for d in lhs_dims)
    rhs_sizes = tuple(rhs.shape[d] for d in rhs_dims)
    if lhs_sizes != rhs_sizes:
        raise TypeError(
            f"dot_general: {what} dimensions must have equal sizes, got {lhs_sizes} (lhs) and "
            f"{rhs_sizes} (rhs); {where}")


def _result_dtype(lhs, rhs, preferred_element_type, where: str) -> np.dtype:
    if lhs.dtype != rhs.dtype:
        raise TypeError(
            f"dot_general: operands must have one dtype, got {where}. Promote them first "
            f"(funcarray.numpy does this for you).")
    if preferred_element_type is None:
        return lhs.dtype
    preferred = np.dtype(preferred_element_type)
    if preferred not in dtypes.supported_dtypes or _kind_rank(preferred) < _kind_rank(lhs.dtype):
        raise TypeError(
            f"dot_general: preferred_element_type {preferred} cannot hold products of "
            f"{lhs.dtype} operands (it must be of the same or a wider kind: bool < integer < "
            f"floating < complex); {where}")
    return preferred


def _check_precision(precision):
    ok = precision is None or (
        isinstance(precision, tuple) and len(precision) == 2
        and all(p in PRECISION_NAMES for p in precision))
    if not ok:
        raise TypeError(
            f"dot_general: precision must be None or a pair of names from {PRECISION_NAMES}, "
            f"got {precision!r}")


@dot_general_p.def_abstract_eval
def _dot_general_abstract_eval(lhs, rhs, *, dimension_numbers, precision=None,
                               preferred_element_type=None):
    _check_structure(lhs, rhs, dimension_numbers)
    _check_precision(precision)
    (lc, rc), (lb, rb) = dimension_numbers
    where = _describe(lhs, rhs, dimension_numbers)
    _check_operand_dims("lhs", lhs, lc, lb, where)
    _check_operand_dims("rhs", rhs, rc, rb, where)
    _check_pairs("batch", lhs, rhs, lb, rb, where)
    _check_pairs("contracting", lhs, rhs, lc, rc, where)
    dtype = _result_dtype(lhs, rhs, preferred_element_type, where)
    shape = (tuple(lhs.shape[d] for d in lb)
             + tuple(lhs.shape[d] for d in free_dims(lhs.ndim, lc, lb))
             + tuple(rhs.shape[d] for d in free_dims(rhs.ndim, rc, rb)))
    weak = lhs.weak_type and rhs.weak_type and preferred_element_type is None
    return ShapedArray(shape, dtype, weak)


@dot_general_p.def_impl
def _dot_general_impl(lhs, rhs, *, dimension_numbers, precision=None,
                      preferred_element_type=None):
    # Validate eagerly too: a NumPy error from inside the kernel would not name the operands.
    out_aval = _dot_general_abstract_eval(
        lhs.aval, rhs.aval, dimension_numbers=dimension_numbers, precision=precision,
        preferred_element_type=preferred_element_type)
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
