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

Transformation rules:

* jvp: bilinear, ``d(x . y) = dx . y + x . dy`` with the same parameters (so the tangent has
  the result's dtype, ``preferred_element_type`` included).
* transpose (for each operand): the cotangent of one operand is a ``dot_general`` of the
  output cotangent with the *other* operand, contracting the other operand's free dimensions
  and pairing the batch dimensions, then a ``transpose`` into the operand's dimension order.
  Under jit, the cotangent is the first operand, as in jax (the program XLA's dot fusions
  are tuned on); run eagerly, whichever order makes the transpose unnecessary.
  It is the linear transpose, never conjugated (JAX's convention for complex values). When
  ``preferred_element_type`` made the result dtype differ from the operands', the product is
  formed in the promoted dtype and converted back (complex to real keeps the real part).
* batching: a batch axis on both operands becomes one more batch dimension pair (the result's
  batch axis is 0); a batch axis on one operand only stays a free dimension of that operand,
  and the result's batch axis is where that free dimension lands. Nothing is moved or copied.

Lowering: one ``stablehlo.dot_general`` following the kernel's recipe: operands are converted
to the accumulation dtype first (float16/bfloat16 instead multiply straight into a float32
result, which is exact), and the sum is converted to the result dtype afterwards. Without an
explicit ``precision``, float32/float64/complex dots ask for ``HIGHEST``: on GPUs XLA's
``DEFAULT`` would round float32 operands to TensorFloat-32, which the eager kernel never does.
An explicit ``precision`` is passed through as given.

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

from funcarray.base import dtypes
from funcarray.base.array import Array
from funcarray.primitives._define import LOW_PRECISION_FLOATS, memoized_abstract_eval
from funcarray.primitives._threads import parallel_multiply
from funcarray.primitives.conversions import convert_element_type_p
from funcarray.primitives.shape import transpose_p
from funcarray.transforms.core import Primitive, ShapedArray, current_trace
from funcarray.transforms.jvp import defbilinear
from funcarray.transforms.staging import StagingTrace
from funcarray.transforms.transpose import is_undefined
from funcarray.transforms.vmap import not_mapped

__all__ = [
    "dot_general_p", "dot_general", "PRECISION_NAMES", "accumulation_dtype", "can_accumulate_in",
    "free_dims", "plain_matmul", "NATIVE_MATMUL_DTYPES",
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
    return (dtypes.is_supported(preferred)
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


# dimension_numbers of ``a @ b`` for 1-d/2-d ``a`` (by a.ndim) and 1-d/2-d ``b``.
_PLAIN_MATMUL = {1: (((0,), (0,)), ((), ())), 2: (((1,), (0,)), ((), ()))}
# dimension_numbers of a product of two matrices -> (transpose lhs?, transpose rhs?).
_MATRIX_PRODUCTS = {(((1,), (0,)), ((), ())): (False, False),
                    (((0,), (0,)), ((), ())): (True, False),
                    (((1,), (1,)), ((), ())): (False, True),
                    (((0,), (1,)), ((), ())): (True, True)}


# Operand dtypes whose products NumPy computes in the operand dtype itself, as dot_general
# does (float16/bfloat16/float8 and int4 accumulate wider: they take the general path).
NATIVE_MATMUL_DTYPES = dtypes.dtype_set(lambda d: accumulation_dtype(d, d) == d)


def _dot_general_kernel(lhs, rhs, *, dimension_numbers, precision=None,
                        preferred_element_type=None):
    lhs, rhs = np.asarray(lhs), np.asarray(rhs)
    out_dtype = lhs.dtype if preferred_element_type is None else np.dtype(preferred_element_type)
    acc = accumulation_dtype(lhs.dtype, out_dtype)
    if out_dtype == lhs.dtype and lhs.dtype in NATIVE_MATMUL_DTYPES:
        if lhs.ndim <= 2 and rhs.ndim <= 2 and dimension_numbers == _PLAIN_MATMUL.get(
                lhs.ndim):
            # The common eager case, a vector or matrix times a vector or matrix (a @ b):
            # NumPy's dot has exactly dot_general's semantics here; skip the general plan
            # (~2x faster for small operands, as in an RNN step). (np.dot, not np.matmul:
            # same BLAS call, ~0.4 us less dispatch for a vector-matrix product.)
            return np.dot(lhs, rhs)
        transposes = _MATRIX_PRODUCTS.get(dimension_numbers)
        if transposes is not None and lhs.ndim == 2 and rhs.ndim == 2:
            # a.T @ b, a @ b.T, a.T @ b.T: the gradients of a matrix product. Transposed
            # views go to BLAS as they are (it takes a transpose flag), no plan needed.
            return np.dot(lhs.T if transposes[0] else lhs, rhs.T if transposes[1] else rhs)
    if lhs.dtype != acc:
        lhs, rhs = lhs.astype(acc), rhs.astype(acc)
    lhs_plan, rhs_plan, out_shape = _kernel_plan(lhs.shape, rhs.shape, dimension_numbers)
    # (batch, free, contract) @ (batch, contract, free): one np.matmul (BLAS for
    # float32/float64/complex; NumPy's integer loop wraps around like XLA) does all the work.
    lhs3, rhs3 = _as_batched_matrix(lhs, lhs_plan), _as_batched_matrix(rhs, rhs_plan)
    if lhs3.shape[-1] == 1:
        # Nothing to sum (outer products, e.g. per-example weight gradients under vmap): a
        # broadcast multiply is ~2x faster than a batched matmul with k = 1, and a large one
        # is split over the cores (it is memory-bound).
        out = parallel_multiply(lhs3, rhs3)
    elif lhs3.shape[0] == 1:
        out = np.matmul(lhs3[0], rhs3[0])
    else:
        out = np.matmul(lhs3, rhs3)
    if out.dtype != out_dtype:
        with np.errstate(over="ignore", invalid="ignore"):  # a narrow float may overflow
            out = out.astype(out_dtype)
    return out.reshape(out_shape)


dot_general_p = Primitive("dot_general")
dot_general_p.kernel = _dot_general_kernel

def plain_matmul(a, b):
    """``a @ b`` for two strong arrays or tracers of one dtype, each 1-d or 2-d, with aligned
    inner dimensions (the caller checked all of that): one ``dot_general`` with the matrix
    product's dimension numbers, nothing to plan or promote.
    """
    return dot_general_p.bind(a, b, dimension_numbers=_PLAIN_MATMUL[a.ndim], precision=None,
                              preferred_element_type=None)


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


# The checks cost ~20 us, more than the rest of staging a product under grad.
dot_general_p.abstract_eval = memoized_abstract_eval(_dot_general_abstract_eval)


@dot_general_p.def_impl
def _dot_general_impl(lhs, rhs, *, dimension_numbers, precision=None,
                      preferred_element_type=None):
    # Validate eagerly too (a NumPy error from inside the kernel would not name the operands),
    # through a cache: eager loops repeat the same shapes, and the checks cost more than a
    # small matmul.
    lv, rv = lhs._value, rhs._value
    key = (lv.shape, lv.dtype, lhs._weak, rv.shape, rv.dtype, rhs._weak, dimension_numbers,
           precision, preferred_element_type)
    try:
        weak = _validated.get(key)
    except TypeError:  # malformed parameters (lists): the uncached rule explains what is wrong
        weak = _dot_general_abstract_eval(
            lhs.aval, rhs.aval, dimension_numbers=dimension_numbers, precision=precision,
            preferred_element_type=preferred_element_type).weak_type
    if weak is None:
        weak = _validated[key] = dot_general_p.abstract_eval(
            lhs.aval, rhs.aval, dimension_numbers=dimension_numbers, precision=precision,
            preferred_element_type=preferred_element_type).weak_type
    out = _dot_general_kernel(
        lv, rv, dimension_numbers=dimension_numbers,
        preferred_element_type=preferred_element_type)
    return Array(out, weak)


# Operand signatures and params the eager impl has validated -> the result's weak_type.
_validated: dict = {}


# --------------------------------------------------------------------------------------------
# Lowering
# --------------------------------------------------------------------------------------------

# Operand dtypes whose products are exact in float32: a dot of them may return float32
# directly (GPUs multiply them on tensor cores and accumulate in float32).
_EXACT_IN_FLOAT32 = dtypes.dtype_set(lambda d: d == dtypes.float16 or d.name == "bfloat16")
# Without an explicit precision these run at full precision: on GPUs XLA's DEFAULT rounds
# float32 operands to TensorFloat-32, and the eager kernel never does.
_FULL_PRECISION_DTYPES = frozenset(
    (dtypes.float32, dtypes.float64, dtypes.complex64, dtypes.complex128))


def _dimension_numbers_attribute(dimension_numbers) -> str:
    (lc, rc), (lb, rb) = dimension_numbers
    fields = [(name, dims) for name, dims in (
        ("lhs_batching_dimensions", lb), ("rhs_batching_dimensions", rb),
        ("lhs_contracting_dimensions", lc), ("rhs_contracting_dimensions", rc)) if dims]
    body = ", ".join(f"{name} = [{', '.join(str(int(d)) for d in dims)}]"
                     for name, dims in fields)
    return f"#stablehlo.dot<{body}>"


def _precision_attribute(precision, operand_dtype) -> str:
    if precision is None:
        name = "HIGHEST" if operand_dtype in _FULL_PRECISION_DTYPES else "DEFAULT"
        precision = (name, name)
    return "[" + ", ".join(f"#stablehlo<precision {p}>" for p in precision) + "]"


@dot_general_p.def_lower
def _dot_general_lower(ctx, lhs, rhs, *, dimension_numbers, precision=None,
                       preferred_element_type=None):
    # The kernel's recipe: multiply and sum in accumulation_dtype, then convert the result.
    operand, out = ctx.avals_in[0].dtype, ctx.avals_out[0]
    acc = accumulation_dtype(operand, out.dtype)
    if operand != acc and not (operand in _EXACT_IN_FLOAT32 and acc == dtypes.float32):
        # Converting first makes integer wrap-around and float rounding those of ``acc``.
        lhs, rhs = (ctx.op("stablehlo.convert", x,
                           results=[ShapedArray(ctx.type_of(x).shape, acc)])[0]
                    for x in (lhs, rhs))
        operand = acc
    attributes = {"dot_dimension_numbers": _dimension_numbers_attribute(dimension_numbers),
                  "precision_config": _precision_attribute(precision, operand)}
    if acc == out.dtype:
        return ctx.op("stablehlo.dot_general", lhs, rhs, attributes=attributes)
    product = ctx.op("stablehlo.dot_general", lhs, rhs, attributes=attributes,
                     results=[ShapedArray(out.shape, acc)])[0]
    return ctx.op("stablehlo.convert", product)


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


# --------------------------------------------------------------------------------------------
# Transformation rules
# --------------------------------------------------------------------------------------------

defbilinear(dot_general_p)


def _ranks(order) -> tuple:
    """The permutation that sorts ``order`` (``order[perm[k]]`` is the k-th smallest)."""
    return tuple(sorted(range(len(order)), key=order.__getitem__))


def _in_common_dtype(ct, other):
    """``ct`` and ``other`` converted to one dtype (``ct`` has the result dtype, which
    ``preferred_element_type`` may have made differ from the operands')."""
    if ct.dtype == other.dtype:
        return ct, other
    common = dtypes.promote_types(ct.dtype, other.dtype)

    def to_common(x):
        if x.dtype == common:
            return x
        return convert_element_type_p.bind(x, new_dtype=common, weak_type=x.weak_type)
    return to_common(ct), to_common(other)


@functools.lru_cache(maxsize=1024)
def _cotangent_plan(own, other_dims, ndim, other_ndim, precision, staged):
    """How ``_operand_cotangent`` computes its product, from the dimension numbers alone
    (cached: a grad transposes the same few products over and over): ``(other_first,
    dimension_numbers, precision, permutation)``, permutation None when there is none.
    ``staged``: the product is traced into a program for XLA (``_staged_for_xla``)."""
    contracting, batch, _ = own
    other_contracting, other_batch, other_free_in_ct = other_dims
    other_free = free_dims(other_ndim, other_contracting, other_batch)
    ct_batch = tuple(range(len(batch)))
    # The other operand's leftover dimensions are its contracting ones in increasing order;
    # each stands for the operand dimension it was contracted with.
    leftover = tuple(contracting[i] for i in _ranks(other_contracting))
    own_free = free_dims(ndim, contracting, batch)
    # Two operand orders. Traced (for XLA): always the cotangent first, then a transpose, as
    # jax does. XLA folds that transpose into the dot and its neighbours; its CPU backend then
    # finds the weight gradients in the row-major form its dot fusions take. The other order,
    # whose result often needs no transpose of its own, meets the transpose that follows a
    # weight's ``.T`` in the forward pass, and XLA turns the pair into a dot of two
    # transposed operands, which it copies out and calls unfused (a quarter of the dots of a
    # transformer's training step). Run eagerly (grad, vmap), the order whose result needs no
    # transpose (both gradients of a matrix product): BLAS takes transposed operands as they
    # are, and a transpose would be one more primitive to run.
    ct_first = (batch + own_free + leftover, False,
                ((other_free_in_ct, other_free), (ct_batch, other_batch)), precision)
    other_first = (batch + leftover + own_free, True,
                   ((other_free, other_free_in_ct), (other_batch, ct_batch)),
                   None if precision is None else precision[::-1])
    identity = tuple(range(ndim))
    dims_as_own, swap, dimension_numbers, prec = (
        other_first if not staged and ct_first[0] != identity and other_first[0] == identity
        else ct_first)
    permutation = None if dims_as_own == identity else _ranks(dims_as_own)
    return swap, dimension_numbers, prec, permutation


def _staged_for_xla() -> bool:
    """Whether a primitive bound now ends up in a program XLA compiles (a jit trace below the
    current one), rather than running eagerly (under eager grad and vmap too)."""
    trace = current_trace()
    while trace is not None:
        if isinstance(trace, StagingTrace) and not trace.fold_constants:
            return True
        trace = trace.parent
    return False


def _operand_cotangent(ct, other, aval, own, other_dims, precision):
    """The cotangent of one operand of ``dot_general`` (its ``aval``), given the output
    cotangent ``ct`` and the other operand.

    ``own = (contracting, batch, free_positions_in_ct)`` describes the operand whose cotangent
    is wanted, ``other_dims`` the same for the other operand; ``precision`` is the pair
    (operand's, other's). The cotangent is ``ct`` contracted with ``other`` over the other
    operand's free dimensions, batch dimensions paired; what remains are the operand's batch,
    free and contracting dimensions, which a transpose puts back in the operand's order.
    """
    other_first, dimension_numbers, prec, permutation = _cotangent_plan(
        own, other_dims, aval.ndim, other.ndim, precision, _staged_for_xla())
    x, y = _in_common_dtype(*((other, ct) if other_first else (ct, other)))
    out = dot_general_p.bind(x, y, dimension_numbers=dimension_numbers, precision=prec,
                             preferred_element_type=None)
    if permutation is not None:
        out = transpose_p.bind(out, permutation=permutation)
    if out.dtype != aval.dtype or out.weak_type:
        out = convert_element_type_p.bind(out, new_dtype=aval.dtype, weak_type=False)
    return out


@dot_general_p.def_transpose
def _dot_general_transpose(ct, lhs, rhs, *, dimension_numbers, precision=None,
                           preferred_element_type=None):
    if is_undefined(lhs) and is_undefined(rhs):
        raise TypeError("dot_general transpose: the product is linear in one operand at a "
                        "time, but both operands are linear inputs")
    (lc, rc), (lb, rb) = dimension_numbers
    lhs_aval = lhs.aval
    rhs_aval = rhs.aval
    n_batch = len(lb)
    n_lhs_free = lhs_aval.ndim - len(lc) - n_batch
    n_rhs_free = rhs_aval.ndim - len(rc) - n_batch
    lhs_free_in_ct = tuple(range(n_batch, n_batch + n_lhs_free))
    rhs_free_in_ct = tuple(range(n_batch + n_lhs_free, n_batch + n_lhs_free + n_rhs_free))
    lhs_dims, rhs_dims = (lc, lb, lhs_free_in_ct), (rc, rb, rhs_free_in_ct)
    if is_undefined(lhs):
        return [_operand_cotangent(ct, rhs, lhs_aval, lhs_dims, rhs_dims, precision), None]
    swapped = None if precision is None else precision[::-1]
    return [None, _operand_cotangent(ct, lhs, rhs_aval, rhs_dims, lhs_dims, swapped)]


def _shift_past(dims, bdim: int) -> tuple:
    """Dimension indices of an unbatched operand as indices into its batched value."""
    return tuple(d + 1 if d >= bdim else d for d in dims)


@dot_general_p.def_batch
def _dot_general_batch(vals, dims, *, dimension_numbers, precision=None,
                       preferred_element_type=None):
    lhs, rhs = vals
    lhs_bdim, rhs_bdim = dims
    (lc, rc), (lb, rb) = dimension_numbers
    if lhs_bdim is not not_mapped:
        lc, lb = _shift_past(lc, lhs_bdim), _shift_past(lb, lhs_bdim)
    if rhs_bdim is not not_mapped:
        rc, rb = _shift_past(rc, rhs_bdim), _shift_past(rb, rhs_bdim)
    if lhs_bdim is not not_mapped and rhs_bdim is not not_mapped:
        # Both batched: the two batch axes are one more batch pair, which comes out first.
        lb, rb = (lhs_bdim, *lb), (rhs_bdim, *rb)
        out_dim = 0
    elif lhs_bdim is not not_mapped:
        # A free dimension of lhs: after the batch dims, among lhs's free dims in order.
        lhs_free = free_dims(lhs.ndim, lc, lb)
        out_dim = len(lb) + lhs_free.index(lhs_bdim)
    else:
        rhs_free = free_dims(rhs.ndim, rc, rb)
        out_dim = len(lb) + (lhs.ndim - len(lc) - len(lb)) + rhs_free.index(rhs_bdim)
    out = dot_general_p.bind(lhs, rhs, dimension_numbers=((lc, rc), (lb, rb)),
                             precision=precision,
                             preferred_element_type=preferred_element_type)
    return out, out_dim
