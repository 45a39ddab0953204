"""``funcarray.numpy.linalg``'s solves, inverses, determinants and norms.

Built on the factorisation primitives of ``funcarray.primitives.decompositions``
(``cholesky``, ``lu``, ``triangular_solve``): ``solve`` is an LU factorisation with partial
pivoting and two triangular solves, ``inv`` solves against the identity, ``slogdet`` reads the
LU factors' diagonal and the pivots' parity, and ``det`` is JAX's: closed forms for 2 x 2 and
3 x 3 matrices, ``slogdet`` otherwise. Every function is composed from primitives with JVP,
transpose and batching rules, so grad, vmap and jit apply as to any other function. Integer
and bool inputs are computed in floating point, as in JAX.
"""

from __future__ import annotations

import builtins
import operator
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from funcarray.api.arguments import asarray_arg, broadcast_to_shape, convert, to_inexact_dtype
from funcarray.api.custom_derivatives import custom_jvp
from funcarray.base import dtypes
from funcarray.base.array import Array, DeviceArray
from funcarray.base.errors import op_type_error, op_value_error
from funcarray.lax.linalg import hermitian_part
from funcarray.numpy import _linalg_spectral
from funcarray.numpy._creation import eye
from funcarray.numpy._diagonals import diagonal as _diagonal
from funcarray.numpy._elementwise import abs, exp, isinf, isnan, log, power, sign, where
from funcarray.numpy._index_routines import take_along_axis
from funcarray.numpy._linalg import matmul, tensordot, vecdot
from funcarray.numpy._linalg import outer as _outer_of_flattened
from funcarray.numpy._math_functions import conj, sqrt
from funcarray.numpy._reductions import any, cumprod, max, min, prod, sum
from funcarray.numpy._search import argsort
from funcarray.numpy._shape import broadcast_to, concatenate, expand_dims, moveaxis, swapaxes
from funcarray.primitives.decompositions import (
    FACTORISABLE_DTYPES,
    cholesky_p,
    lu_p,
    triangular_solve_p,
)
from funcarray.primitives.elementwise import eq_p
from funcarray.primitives.reduce import reduce_sum_p
from funcarray.primitives.shape import iota_p
from funcarray.transforms.host_shortcuts import host_shortcut, host_value

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from funcarray.base.typing import ArrayLike, DTypeLike

__all__ = [
    "cholesky", "solve", "inv", "det", "slogdet", "SlogdetResult", "norm", "vector_norm",
    "matrix_norm", "matrix_power", "multi_dot", "matrix_transpose", "trace", "diagonal",
    "matmul", "outer", "tensordot", "vecdot",
]


class SlogdetResult(NamedTuple):
    """``slogdet``'s result: ``det = sign * exp(logabsdet)``."""

    sign: Array
    logabsdet: Array


# --------------------------------------------------------------------------------------------
# Argument checks
# --------------------------------------------------------------------------------------------

def _factorisable(op: str, x, dtype=None):
    """``x`` as a strong Array/tracer of a dtype LAPACK factorises (ints and bools become
    floats, as in JAX); ``dtype`` forces one (the promoted type of several operands)."""
    x = asarray_arg(op, x)
    target = np.dtype(dtype) if dtype is not None else to_inexact_dtype(x.dtype)
    if target not in FACTORISABLE_DTYPES:
        raise op_type_error(op, f"dtype {target} is not supported (float32, float64, complex64 "
                                f"and complex128 are); convert with .astype(fnp.float32)")
    return convert(x, target)


def _half_precision_dtype(op: str, a):
    """``a``'s dtype when it is float16 or bfloat16, else None. LAPACK has no 16-bit
    factorisations; ``det`` and ``slogdet`` of such matrices are computed in float32 and
    rounded back, as JAX's closed forms for 2x2 and 3x3 matrices give them (JAX raises for
    larger ones)."""
    dtype = asarray_arg(op, a).dtype
    return dtype if dtypes.is_half_precision(dtype) else None


def _square(op: str, a, name: str = "a"):
    a = _factorisable(op, a)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise op_value_error(op, f"{name} must be a square matrix or a stack of them (shape "
                                 f"(..., n, n)), got shape {tuple(a.shape)}")
    return a


def _mT(x):
    return swapaxes(x, -1, -2)


def _lapack(fn, *xs):
    """``fn`` of the operands' NumPy values as Arrays: NumPy's LAPACK routine in one step (a
    16 x 16 solve: tens of microseconds instead of the primitives' ~1.8 ms, an LU eliminated
    column by column in Python; the two differ only by rounding). ``NotImplemented`` (the
    host shortcut declines) when an operand is not a host or device array, or when LAPACK
    reports a singular matrix: the primitives then give JAX's inf/NaN instead of an
    exception."""
    for x in xs:
        if type(x) is not Array and type(x) is not DeviceArray:
            return NotImplemented
    try:
        with np.errstate(all="ignore"):
            out = fn(*(x._value for x in xs))
    except np.linalg.LinAlgError:
        return NotImplemented
    if isinstance(out, tuple):
        return tuple(Array(np.asarray(o)) for o in out)
    return Array(np.asarray(out))


# --------------------------------------------------------------------------------------------
# Factorisation-based functions
# --------------------------------------------------------------------------------------------

def cholesky(a: ArrayLike, *, upper: bool = False, symmetrize_input: bool = True) -> Array:
    """The Cholesky factor of a Hermitian positive-definite matrix (or stack of them).

    Returns the lower-triangular ``L`` with ``a = L @ L^H`` (``upper=True``: ``U = L^H`` with
    ``a = U^H @ U``). With ``symmetrize_input`` (JAX's default) ``(a + a^H) / 2`` is factored,
    so gradients are symmetric. A matrix that is not positive definite gives NaNs, as in JAX.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.linalg.cholesky(fnp.asarray([[4.0, 2.0], [2.0, 5.0]]))
        Array([[2., 0.],
               [1., 2.]], dtype=float32)
    """
    a = _square("linalg.cholesky", a)
    if symmetrize_input:
        a = hermitian_part(a)
    lower = cholesky_p.bind(a)
    return conj(_mT(lower)) if upper else lower


def _lu_solve(lu, permutation, b):
    """``a^-1 b`` from ``a``'s LU factors; ``b`` is (..., n, k) with ``lu``'s batch axes."""
    rows = take_along_axis(b, permutation[..., :, None], axis=-2)
    y = triangular_solve_p.bind(lu, rows, left_side=True, lower=True, transpose_a=False,
                                conjugate_a=False, unit_diagonal=True)
    return triangular_solve_p.bind(lu, y, left_side=True, lower=False, transpose_a=False,
                                   conjugate_a=False, unit_diagonal=False)


def _lu_solve_transposed(lu, permutation, b):
    """``a^-T b`` from ``a``'s LU factors (``a = P^T L U``, so ``a^T = U^T L^T P``)."""
    y = triangular_solve_p.bind(lu, b, left_side=True, lower=False, transpose_a=True,
                                conjugate_a=False, unit_diagonal=False)
    y = triangular_solve_p.bind(lu, y, left_side=True, lower=True, transpose_a=True,
                                conjugate_a=False, unit_diagonal=True)
    inverse = argsort(permutation, axis=-1)
    return take_along_axis(y, inverse[..., :, None], axis=-2)


def _implicit_solve(a, b):
    """``a^-1 b`` (b as (..., n, k)) under a transform, as JAX computes it: the LU of
    ``stop_gradient(a)`` inside ``custom_linear_solve``, so derivatives are solves with the
    same factors (``a``'s own derivative enters through the product ``a @ x``) instead of
    derivatives of the factorisation."""
    from funcarray.api.autodiff import stop_gradient
    from funcarray.lax._linear_solve import custom_linear_solve

    lu, _, permutation = lu_p.bind(stop_gradient(a))
    return custom_linear_solve(
        lambda x: matmul(a, x), b, solve=lambda _, r: _lu_solve(lu, permutation, r),
        transpose_solve=lambda _, r: _lu_solve_transposed(lu, permutation, r))


def solve_operands(op: str, a, b):
    """``(a, b, vector)`` for a solve of ``a x = b``: both promoted to one factorisable dtype,
    ``a`` a stack of square matrices, ``b`` as (..., n, k) matrices (``vector``: it was 1-d,
    NumPy 2's rule) and both broadcast to one batch shape."""
    a, b = asarray_arg(op, a), asarray_arg(op, b)
    dtype = to_inexact_dtype(dtypes.result_type(a, b))
    a, b = _square(op, _factorisable(op, a, dtype)), _factorisable(op, b, dtype)
    n = a.shape[-1]
    vector = b.ndim == 1
    if b.ndim < 1 or b.shape[0 if vector else -2] != n:
        raise op_value_error(op, f"b must have {n} rows to match a {tuple(a.shape)} (shape "
                                 f"({n},) or (..., {n}, k)), got shape {tuple(b.shape)}")
    if vector:
        b = b[:, None]
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    return (broadcast_to(a, (*batch, n, n)), broadcast_to(b, (*batch, *b.shape[-2:])),
            vector)


def _solve_on_host(a, b):
    """``solve`` of concrete operands with LAPACK's solve (see ``_lapack``)."""
    ta, tb = type(a), type(b)
    if (ta is Array or ta is DeviceArray) and (tb is Array or tb is DeviceArray):
        # The common case, one square matrix and a vector or matrix of its dtype: nothing to
        # promote or broadcast, so straight to LAPACK (solve_operands' checks and broadcasts
        # cost three times a 16 x 16 solve).
        av, bv = a._value, b._value
        if (av.dtype is bv.dtype and av.dtype in FACTORISABLE_DTYPES and av.ndim == 2
                and av.shape[0] == av.shape[1] and 1 <= bv.ndim <= 2
                and bv.shape[0] == av.shape[0]):
            try:  # (NumPy's solve sets its own errstate: none needed around it)
                return Array(np.linalg.solve(av, bv))
            except np.linalg.LinAlgError:  # singular: the primitives' inf/NaN
                return NotImplemented
    a, b, vector = solve_operands("linalg.solve", a, b)
    x = _lapack(np.linalg.solve, a, b)
    if x is NotImplemented or not vector:
        return x
    return Array(x._value[..., 0])


@host_shortcut(_solve_on_host)
def solve(a: ArrayLike, b: ArrayLike) -> Array:
    """The solution ``x`` of ``a @ x = b`` for square ``a`` (LU with partial pivoting).

    ``b`` is a vector when it is 1-d (shape (n,)), otherwise a stack of (n, k) matrices whose
    batch axes broadcast with ``a``'s (NumPy 2's and JAX's rule). A singular ``a`` gives
    inf/NaN entries, as in JAX.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.linalg.solve(fnp.asarray([[2.0, 0.0], [0.0, 4.0]]), fnp.asarray([1.0, 1.0]))
        Array([0.5 , 0.25], dtype=float32)
    """
    a, b, vector = solve_operands("linalg.solve", a, b)
    x = _implicit_solve(a, b)
    return x[..., 0] if vector else x


def _inv_on_host(a):
    """``inv`` of a concrete matrix (stack) with LAPACK's inverse (see ``_lapack``)."""
    return _lapack(np.linalg.inv, _square("linalg.inv", a))


@host_shortcut(_inv_on_host)
def inv(a: ArrayLike) -> Array:
    """The inverse of a square matrix (or of each in a stack); singular: inf/NaN, as JAX.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.linalg.inv(fnp.asarray([[2.0, 0.0], [0.0, 4.0]]))
        Array([[0.5 , 0.  ],
               [0.  , 0.25]], dtype=float32)
    """
    a = _square("linalg.inv", a)
    n = a.shape[-1]
    lu, _, permutation = lu_p.bind(a)
    return _lu_solve(lu, permutation, broadcast_to(eye(n, dtype=a.dtype), a.shape))


def _odd_permutation(pivots):
    """Whether the row swaps ``pivots`` (LAPACK's, per matrix) make an odd permutation."""
    swaps = sum(pivots != np.arange(pivots.shape[-1], dtype=np.int32), axis=-1)
    return swaps % 2 == 1


def _lu_diagonal_and_parity(op: str, a):
    """The LU factors' diagonal and whether the row permutation is odd."""
    a = _square(op, a)
    lu, pivots, _ = lu_p.bind(a)
    return _diagonal(lu, axis1=-2, axis2=-1), _odd_permutation(pivots)


def _det_2x2(a):
    """The determinant of 2 x 2 matrices in closed form, for NumPy arrays and Arrays alike:
    JAX's terms in JAX's order, so the same bits."""
    return a[..., 0, 0] * a[..., 1, 1] - a[..., 0, 1] * a[..., 1, 0]


def _det_3x3(a):
    """The determinant of 3 x 3 matrices in closed form, as ``_det_2x2``."""
    return (a[..., 0, 0] * a[..., 1, 1] * a[..., 2, 2]
            + a[..., 0, 1] * a[..., 1, 2] * a[..., 2, 0]
            + a[..., 0, 2] * a[..., 1, 0] * a[..., 2, 1]
            - a[..., 0, 2] * a[..., 1, 1] * a[..., 2, 0]
            - a[..., 0, 0] * a[..., 1, 2] * a[..., 2, 1]
            - a[..., 0, 1] * a[..., 1, 0] * a[..., 2, 2])


_CLOSED_FORMS = {2: _det_2x2, 3: _det_3x3}


def _cofactor_solve(a, b):
    """``(det(a), adj(a) @ b)`` for square ``a`` and ``b`` of one shape, well defined where
    ``a`` is singular (JAX's ``_cofactor_solve``, the JVP of ``det``).

    With ``a = P^T L U``, ``adj(a) @ b = det(a) U^-1 L^-1 P b``. When ``a`` has rank n - 1 only
    ``U``'s last pivot is 0: setting it to ``1 / prod(U's other pivots)`` and scaling all rows
    of ``L^-1 P b`` but the last by ``det(a)`` gives the same product without dividing by 0.
    With a lower rank the adjugate is 0, and the modified ``U`` is still singular, which a
    solve against ones detects (inf/NaN)."""
    n = a.shape[-1]
    if n == 1:
        return a[..., 0, 0], b
    lu, pivots, permutation = lu_p.bind(a)
    sign = where(_odd_permutation(pivots), -1, 1).astype(a.dtype)
    # partial_det[..., -1] is det(a), partial_det[..., -2] det(a) without U's last pivot.
    partial_det = cumprod(_diagonal(lu, axis1=-2, axis2=-1), axis=-1) * sign[..., None]
    lu = lu.at[..., -1, -1].set(1 / partial_det[..., -2])

    def upper_solve(x):
        return triangular_solve_p.bind(lu, x, left_side=True, lower=False, transpose_a=False,
                                       conjugate_a=False, unit_diagonal=False)

    probe = upper_solve(broadcast_to(np.ones((n, 1), a.dtype), (*a.shape[:-1], 1)))
    rank_below_n_minus_1 = any(isnan(probe) | isinf(probe), axis=(-2, -1))[..., None, None]
    x = where(rank_below_n_minus_1, 0, b)
    x = take_along_axis(x, permutation[..., :, None], axis=-2)
    x = triangular_solve_p.bind(lu, x, left_side=True, lower=True, transpose_a=False,
                                conjugate_a=False, unit_diagonal=True)
    x = concatenate([x[..., :-1, :] * partial_det[..., -1, None, None], x[..., -1:, :]],
                    axis=-2)
    x = where(rank_below_n_minus_1, 0, upper_solve(x))
    return partial_det[..., -1], x


def _det_from_slogdet_primal(a):
    sign, logabsdet = slogdet(a)
    return sign * exp(logabsdet).astype(sign.dtype)


# ``sign * exp(logabsdet)``'s own derivative is NaN at a singular matrix (log 0); the rule
# gives the adjugate's, ``d det(a) = tr(adj(a) da)``, defined at every matrix.
_det_from_slogdet = custom_jvp(_det_from_slogdet_primal)


@_det_from_slogdet.defjvp
def _det_from_slogdet_jvp(primals, tangents):
    (a,), (a_dot,) = primals, tangents
    det_a, adjugate_times_a_dot = _cofactor_solve(a, a_dot)
    return det_a, trace(adjugate_times_a_dot)


def _det_on_host(a):
    """``det`` of a concrete matrix (stack) in NumPy by the general path's formulas: the closed
    forms (the same elementwise kernels in the same order: the same bits), else
    ``sign * exp(logabsdet)`` from LAPACK's ``slogdet``, which differs from the general path's
    LU by rounding only."""
    a = _square("linalg.det", a)
    value = host_value(a)
    if value is None:
        return NotImplemented
    closed_form = _CLOSED_FORMS.get(a.shape[-1])
    with np.errstate(all="ignore"):
        if closed_form is not None:
            return Array(np.asarray(closed_form(value)))
        sign_, logabsdet = np.linalg.slogdet(value)
        return Array(np.asarray(sign_ * np.exp(logabsdet).astype(sign_.dtype)))


@host_shortcut(_det_on_host)
def det(a: ArrayLike) -> Array:
    """The determinant of a square matrix (or of each in a stack), computed as JAX does: 2 x 2
    and 3 x 3 matrices by their closed forms, others as ``sign * exp(logabsdet)`` from
    ``slogdet``, whose derivative is taken from the LU factors' cofactors, so that it is the
    adjugate's transpose also at singular matrices.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.linalg.det(fnp.asarray([[0.0, 2.0], [4.0, 1.0]]))
        Array(-8., dtype=float32)
        >>> fnp.linalg.det(fnp.asarray([[0.25, 0.0], [0.0, 0.5]], dtype=fnp.float64))
        Array(0.125, dtype=float64)
    """
    half = _half_precision_dtype("linalg.det", a)
    if half is not None:
        return det(convert(asarray_arg("linalg.det", a), np.float32)).astype(half)
    a = _square("linalg.det", a)
    closed_form = _CLOSED_FORMS.get(a.shape[-1])
    return closed_form(a) if closed_form is not None else _det_from_slogdet(a)


def _slogdet_on_host(a, *, method=None):
    """``slogdet`` of a concrete matrix (stack) with LAPACK's LU (see ``_lapack``)."""
    if method not in (None, "lu"):
        return NotImplemented
    out = _lapack(np.linalg.slogdet, _square("linalg.slogdet", a))
    return out if out is NotImplemented else SlogdetResult(*out)


@host_shortcut(_slogdet_on_host)
def slogdet(a: ArrayLike, *, method: str | None = None) -> SlogdetResult:
    """``(sign, logabsdet)`` with ``det(a) = sign * exp(logabsdet)``, without overflow.

    For a singular matrix ``sign`` is 0 and ``logabsdet`` is ``-inf``; for complex matrices
    ``sign`` has modulus 1. ``method`` may be None or ``"lu"`` (JAX also offers "qr").

    Example:
        >>> import funcarray.numpy as fnp
        >>> sign, logabsdet = fnp.linalg.slogdet(fnp.asarray([[0.0, 2.0], [4.0, 1.0]]))
        >>> sign, fnp.exp(logabsdet)
        (Array(-1., dtype=float32), Array(8., dtype=float32))
    """
    op = "linalg.slogdet"
    if method not in (None, "lu"):
        raise op_value_error(op, f"method={method!r} is not supported; use None or 'lu'")
    half = _half_precision_dtype(op, a)
    if half is not None:
        sign32, logabsdet32 = slogdet(convert(asarray_arg(op, a), np.float32))
        return SlogdetResult(sign32.astype(half), logabsdet32.astype(half))
    diag, odd = _lu_diagonal_and_parity(op, a)
    magnitude = abs(diag)
    logabsdet = sum(log(magnitude), axis=-1)
    if dtypes.is_complex(diag.dtype):
        phases = diag / where(magnitude == 0, 1, magnitude).astype(diag.dtype)
    else:
        phases = sign(diag)
    signs = prod(phases, axis=-1)
    signs = where(odd, -signs, signs)
    singular = any(diag == 0, axis=-1)
    return SlogdetResult(where(singular, 0, signs).astype(diag.dtype),
                         where(singular, -np.inf, logabsdet))


def outer(x1: ArrayLike, x2: ArrayLike, /) -> Array:
    """The outer product of two vectors: ``out[i, j] = x1[i] * x2[j]``. Unlike
    ``funcarray.numpy.outer``, which flattens its operands, the Array API's (and jax's)
    ``linalg.outer`` takes one-dimensional arrays only.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.linalg.outer(fnp.array([1, 2]), fnp.array([1, 10]))
        Array([[ 1, 10],
               [ 2, 20]], dtype=int32)
    """
    x1, x2 = asarray_arg("linalg.outer", x1), asarray_arg("linalg.outer", x2)
    if x1.ndim != 1 or x2.ndim != 1:
        raise op_value_error(
            "linalg.outer", f"takes one-dimensional arrays, got shapes {x1.shape} and "
            f"{x2.shape}: use funcarray.numpy.outer to multiply flattened arrays")
    return _outer_of_flattened(x1, x2)


def multi_dot(arrays: Sequence[ArrayLike], *, precision: Any = None) -> Array:
    """The product of a sequence of matrices (the first and last may be vectors), left to
    right.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.linalg.multi_dot([fnp.ones(2), fnp.eye(2), fnp.ones(2)])
        Array(2., dtype=float32)
    """
    arrays = list(arrays)
    if len(arrays) < 2:
        raise op_value_error("linalg.multi_dot", f"needs at least 2 arrays, got {len(arrays)}")
    arrays = [asarray_arg("linalg.multi_dot", x) for x in arrays]
    ends_are_vectors_or_matrices = all(x.ndim in (1, 2) for x in (arrays[0], arrays[-1]))
    if not ends_are_vectors_or_matrices or builtins.any(x.ndim != 2 for x in arrays[1:-1]):
        raise op_value_error(
            "linalg.multi_dot",
            f"takes matrices, the first and last may be vectors; got shapes "
            f"{[x.shape for x in arrays]}: use matmul for stacks of matrices")
    out = arrays[0]
    for x in arrays[1:]:
        out = matmul(out, x, precision=precision)
    return out


def matrix_power(a: ArrayLike, n: int) -> Array:
    """``a`` multiplied by itself ``n`` times (``n < 0``: powers of ``inv(a)``; the identity
    for ``n == 0``), by repeated squaring; ``a`` is a (batch of) square matrices.
    ``funcarray.numpy.linalg.matrix_power``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> matrix_power(fnp.array([[1, 1], [0, 1]]), 3)
        Array([[1, 3],
               [0, 1]], dtype=int32)
    """
    a = asarray_arg("matrix_power", a)
    try:
        n = operator.index(n)
    except TypeError:
        raise op_type_error("matrix_power", f"the exponent must be an int, got {n!r}") from None
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise op_value_error(
            "matrix_power", f"needs a (batch of) square matrices, got shape {a.shape}")
    if n < 0:  # powers of the inverse
        a, n = inv(a), -n
    if n == 0:
        size = a.shape[-1]
        rows = iota_p.bind(dtype=np.dtype(np.int32), shape=(size, size), dimension=0)
        cols = iota_p.bind(dtype=np.dtype(np.int32), shape=(size, size), dimension=1)
        eye = convert(eq_p.bind(rows, cols), a.dtype, a.weak_type)
        return broadcast_to_shape(eye, a.shape)
    result, power = None, a
    while n:
        if n & 1:
            result = power if result is None else matmul(result, power)
        n >>= 1
        if n:
            power = matmul(power, power)
    return result


# --------------------------------------------------------------------------------------------
# Norms
# --------------------------------------------------------------------------------------------

def _vector_norm(x, ord, axis, keepdims):
    magnitude = abs(x)
    if ord is None or ord == 2:
        # sqrt of a sum of squares, as JAX (its gradient at 0 is NaN there too)
        return sqrt(sum(magnitude * magnitude, axis=axis, keepdims=keepdims))
    if ord == np.inf:
        return max(magnitude, axis=axis, keepdims=keepdims)
    if ord == -np.inf:
        return min(magnitude, axis=axis, keepdims=keepdims)
    if ord == 0:
        return sum(magnitude != 0, axis=axis, keepdims=keepdims).astype(magnitude.dtype)
    if ord == 1:
        return sum(magnitude, axis=axis, keepdims=keepdims)
    if isinstance(ord, str):
        raise op_value_error("linalg.norm", f"ord={ord!r} is a matrix norm; a vector norm "
                                            f"takes a number or +-inf")
    return power(sum(power(magnitude, ord), axis=axis, keepdims=keepdims), 1.0 / ord)


def _singular_values(x, axes):
    svdvals = getattr(_linalg_spectral, "svdvals", None)
    if svdvals is None:
        raise op_value_error("linalg.norm", "the 2, -2 and 'nuc' matrix norms need "
                                            "linalg.svdvals, which is not available yet")
    return svdvals(moveaxis(x, axes, (-2, -1)))


def _matrix_norm(x, ord, axes, keepdims):
    row, col = axes
    magnitude = abs(x)

    def largest(values, axis):  # (0 for an empty matrix, as jax: norms are not negative)
        return max(values, axis=axis, initial=0)

    if ord is None or ord == "fro":
        out = sqrt(sum(magnitude * magnitude, axis=axes))
    elif ord in (1, -1):
        columns = sum(magnitude, axis=row)
        out = (largest if ord == 1 else min)(columns, axis=col - (col > row))
    elif ord in (np.inf, -np.inf):
        rows = sum(magnitude, axis=col)
        out = (largest if ord == np.inf else min)(rows, axis=row - (row > col))
    elif ord in (2, -2, "nuc"):
        values = _singular_values(x, axes)
        out = (sum if ord == "nuc" else largest if ord == 2 else min)(values, axis=-1)
    else:
        raise op_value_error("linalg.norm", f"ord={ord!r} is not a matrix norm; use None, "
                                            f"'fro', 'nuc', 1, -1, 2, -2, inf or -inf")
    if keepdims:
        out = expand_dims(out, tuple(sorted(axes)))
    return out


def _norm_axes(x, axis) -> tuple:
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    if len(axes) not in (1, 2):
        raise op_value_error("linalg.norm", f"axis must be an int or a pair of ints, got "
                                            f"{axis!r}")
    normalized = tuple(a + x.ndim if -x.ndim <= a < 0 else a for a in axes)
    if builtins.any(not 0 <= a < x.ndim for a in normalized) or len(set(normalized)) != len(
            normalized):
        raise op_value_error("linalg.norm", f"axis {axis!r} is out of range or repeated for "
                                            f"an array of {x.ndim} dimensions")
    return normalized


def _norm_on_host(x, ord=None, axis=None, keepdims=False):  # noqa: A002 (NumPy's name)
    """The default norm (the 2-norm of the flattened array) of a strong float32/float64 host
    array: the general path's kernels (abs, multiply, reduce_sum, sqrt) in its order, without
    converting, reshaping and binding around them."""
    v = host_value(x)
    if (v is None or ord is not None or axis is not None or x._weak
            or v.dtype not in _NORM_DTYPES or type(keepdims) is not bool):
        return NotImplemented
    magnitude = np.abs(v.reshape(-1))
    # (reduce_sum's and sqrt's kernels for these dtypes are exactly these NumPy calls)
    out = np.sqrt(np.add.reduce(np.multiply(magnitude, magnitude), axis=0, dtype=v.dtype))
    return Array(out.reshape((1,) * v.ndim) if keepdims else np.asarray(out))


_NORM_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


@host_shortcut(_norm_on_host)
def norm(x: ArrayLike, ord: int | float | str | None = None,
         axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Array:
    """A vector or matrix norm, with NumPy's (and JAX's) ``ord``/``axis`` rules.

    ``axis=None``: the 2-norm of the flattened array when ``ord`` is None, else the vector
    norm of a 1-d ``x`` or the matrix norm of a 2-d ``x``. An int ``axis`` gives vector norms
    (``ord``: None/2, 1, 0, inf, -inf or any p), a pair gives matrix norms (``ord``: None/'fro',
    'nuc', 1, -1, 2, -2, inf, -inf). Complex inputs give real norms.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.linalg.norm(fnp.asarray([3.0, 4.0]))
        Array(5., dtype=float32)
        >>> fnp.linalg.norm(fnp.asarray([[1.0, -2.0], [3.0, 4.0]]), ord=1)
        Array(6., dtype=float32)
    """
    op = "linalg.norm"
    x = asarray_arg(op, x)
    x = convert(x, to_inexact_dtype(x.dtype), x.weak_type)
    if axis is None:
        if ord is None:
            out = _vector_norm(x.reshape(-1), None, 0, False)
            return out.reshape((1,) * x.ndim) if keepdims else out
        if x.ndim not in (1, 2):
            raise op_value_error(op, f"with axis=None and ord={ord!r}, x must be 1-d or 2-d, "
                                     f"got shape {tuple(x.shape)}; pass axis")
        axis = tuple(range(x.ndim))
    axes = _norm_axes(x, axis)
    if len(axes) == 1:
        return _vector_norm(x, ord, axes[0], keepdims)
    return _matrix_norm(x, ord, axes, keepdims)


def vector_norm(x: ArrayLike, /, *, axis: int | tuple[int, ...] | None = None,
                keepdims: bool = False, ord: int | float = 2) -> Array:
    """The array API's vector norm: ``norm`` over ``axis`` (all axes, flattened, if None).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.linalg.vector_norm(fnp.asarray([[3.0], [4.0]]))
        Array(5., dtype=float32)
    """
    x = asarray_arg("linalg.vector_norm", x)
    x = convert(x, to_inexact_dtype(x.dtype), x.weak_type)
    if axis is None:
        out = _vector_norm(x.reshape(-1), ord, 0, False)
        return out.reshape((1,) * x.ndim) if keepdims else out
    axes = axis if isinstance(axis, tuple) else (axis,)
    return _vector_norm(x, ord, axes if len(axes) > 1 else axes[0], keepdims)


def matrix_norm(x: ArrayLike, /, *, keepdims: bool = False, ord: int | float | str = "fro"
                ) -> Array:
    """The array API's matrix norm of the last two axes.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.linalg.matrix_norm(fnp.asarray([[3.0, 0.0], [0.0, 4.0]]))
        Array(5., dtype=float32)
    """
    return norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)


# --------------------------------------------------------------------------------------------
# The array API's matrix helpers (JAX exposes them in jax.numpy.linalg)
# --------------------------------------------------------------------------------------------

def matrix_transpose(x: ArrayLike, /) -> Array:
    """Swap the last two axes.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.linalg.matrix_transpose(fnp.ones((2, 3))).shape
        (3, 2)
    """
    x = asarray_arg("linalg.matrix_transpose", x)
    if x.ndim < 2:
        raise op_value_error("linalg.matrix_transpose", f"x must have at least 2 dimensions, "
                                                        f"got shape {tuple(x.shape)}")
    return _mT(x)


def _diagonal_on_host(x, /, *, offset=0):
    """Each matrix's diagonal of a host array: NumPy's diagonal view (the same elements the
    general path's strided slice picks, in the same order)."""
    v = host_value(x)
    if v is None or v.ndim < 2 or type(offset) is not int:
        return NotImplemented
    return Array(np.diagonal(v, offset, -2, -1), x._weak)


def _trace_on_host(x, /, *, offset=0, dtype=None):
    """The diagonal's sum: for float32/float64 without ``dtype``, sum's kernel (its general
    path converts nothing there); else ``sum`` itself."""
    d = _diagonal_on_host(x, offset=offset)
    if d is NotImplemented:
        return d
    if dtype is not None or d._value.dtype not in _NORM_DTYPES:
        return sum(d, axis=-1, dtype=dtype)
    return Array(reduce_sum_p.kernel(d._value, axes=(d.ndim - 1,)), d._weak)


@host_shortcut(_trace_on_host)
def trace(x: ArrayLike, /, *, offset: int = 0, dtype: DTypeLike | None = None) -> Array:
    """The sum of each matrix's diagonal (the last two axes).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.linalg.trace(fnp.eye(3))
        Array(3., dtype=float32)
    """
    return sum(_diagonal(x, offset=offset, axis1=-2, axis2=-1), axis=-1, dtype=dtype)


@host_shortcut(_diagonal_on_host)
def diagonal(x: ArrayLike, /, *, offset: int = 0) -> Array:
    """Each matrix's diagonal (the last two axes; ``funcarray.numpy.diagonal`` takes axes).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.linalg.diagonal(fnp.eye(2))
        Array([1., 1.], dtype=float32)
    """
    return _diagonal(x, offset=offset, axis1=-2, axis2=-1)
