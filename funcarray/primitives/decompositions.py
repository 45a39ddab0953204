"""Matrix factorisation primitives: ``cholesky``, ``triangular_solve`` and ``lu``.

Contract (JAX's ``jax.lax.linalg`` primitives of the same names):

* Operands are float32/float64/complex64/complex128 matrices in the last two axes, with any
  leading batch axes (equal across operands).
* ``cholesky(a)``: the lower-triangular ``L`` with ``L @ L^H = a``, reading only the lower
  triangle of ``a``; zeros above the diagonal. Not positive definite: the lower triangle all
  NaN (as JAX), never an exception.
* ``triangular_solve(a, b, left_side, lower, transpose_a, conjugate_a, unit_diagonal)``: ``x``
  with ``op(a) @ x = b`` (``left_side``) or ``x @ op(a) = b``, where ``op`` conjugates and/or
  transposes the triangle of ``a`` that ``lower`` names (the other triangle is ignored, and so
  is the diagonal with ``unit_diagonal``). A zero pivot gives inf/NaN, as LAPACK's ``trsm``.
* ``lu(a)`` for ``a`` of shape (..., m, n): ``(lu, pivots, permutation)`` with LAPACK
  ``getrf``'s partial pivoting: ``lu`` holds ``L`` below the diagonal (its unit diagonal
  implied) and ``U`` on and above it; ``pivots[i]`` (int32, length ``min(m, n)``) is the row
  swapped with row ``i`` at step ``i``; ``permutation`` (int32, length m) is the row order
  those swaps produce, so ``a[..., permutation, :] == L @ U``. Pivots are chosen by
  ``|re| + |im|`` (LAPACK's ``cabs1``) for complex matrices. A zero column skips its step.

Derivatives: JAX's rules (``cholesky``: ``L Phi(L^-1 A' L^-H)``;
``lu``: the triangular-factorisation rule of Murray, "Differentiation of the Cholesky
decomposition" / de Hoog et al., through two triangular solves), written with bind-level
operations (``bind_ops``) so that they differentiate again; ``triangular_solve`` is linear in
``b`` (its transpose solves with ``op(a)^T``).

Batching: every operand takes leading batch axes, so the batch axis moves to the front.

Lowering: where ``lowering/runtime/`` offers the platform's native kernel
(``runtime.native_linalg``: LAPACK ``potrf``/``getrf`` on CPU), ``cholesky`` and ``lu`` emit
it as a ``stablehlo.custom_call`` (``emit_native_call``). Otherwise, portably:
``stablehlo.cholesky`` (masked to its lower triangle: XLA leaves the upper one unspecified),
and ``lu``, which has no StableHLO op, as a loop of bind-level operations (``_lu_composite``:
one elimination step per column, vectorised over the batch). ``triangular_solve`` is always
``stablehlo.triangular_solve``.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from funcarray.base import dtypes
from funcarray.lowering import regions, runtime
from funcarray.lowering.stablehlo import compare, i64_array_attribute, lower_inline
from funcarray.primitives import bind_ops as ops
from funcarray.primitives._define import wrap_kernel
from funcarray.primitives.loops import fori_loop
from funcarray.transforms.core import Primitive, ShapedArray
from funcarray.transforms.jvp import Zero, tangent_aval
from funcarray.transforms.staging import stage_flat
from funcarray.transforms.transpose import is_undefined
from funcarray.transforms.vmap import bdim_at_front

__all__ = ["cholesky_p", "triangular_solve_p", "lu_p", "FACTORISABLE_DTYPES", "checked_impl",
           "emit_native_call", "failed_matrices", "failure_nan", "nan_where_lapack_fails",
           "permutation_from_pivots"]

# LAPACK's (and XLA's) four types; funcarray.numpy.linalg promotes other inputs to these.
FACTORISABLE_DTYPES = frozenset(np.dtype(d) for d in (dtypes.float32, dtypes.float64,
                                                      dtypes.complex64, dtypes.complex128))


def _check_matrix(op: str, name: str, aval, square: bool = True) -> None:
    if aval.ndim < 2 or (square and aval.shape[-1] != aval.shape[-2]):
        kind = "square matrices" if square else "matrices"
        raise TypeError(f"{op}: {name} must be a stack of {kind} (shape (..., n, n)), got "
                        f"{aval.str_short()}")
    if aval.dtype not in FACTORISABLE_DTYPES:
        raise TypeError(f"{op}: {name} has dtype {aval.dtype}, but only float32, float64, "
                        f"complex64 and complex128 can be factorised; convert it with "
                        f".astype(float) first (funcarray.numpy.linalg does this for you)")


def _mT(x):
    return np.swapaxes(x, -1, -2)


def failure_nan(dtype) -> complex | float:
    """What a failed factorisation's results hold, as in JAX: NaN, both parts for complex."""
    return complex(np.nan, np.nan) if np.dtype(dtype).kind == "c" else np.nan


def nan_where_lapack_fails(kernel, a, out_avals) -> list:
    """``kernel(a)`` (a list of arrays for ``a``'s stack of matrices) where NumPy's LAPACK call
    raises ``LinAlgError`` on some matrix (an inf or NaN entry: "did not converge"): that
    matrix's results are NaN and the others' are computed, as XLA's kernels give."""
    try:
        return kernel(a)
    except np.linalg.LinAlgError:
        pass
    outs = [np.full(aval.shape, failure_nan(aval.dtype), aval.dtype) for aval in out_avals]
    batch = a.shape[:-2]
    for index in np.ndindex(*batch):
        try:
            parts = kernel(a[index])
        except np.linalg.LinAlgError:
            continue
        for out, part in zip(outs, parts):
            out[index] = part
    return outs


def checked_impl(prim, impl):
    """``impl`` after ``prim``'s abstract evaluation: eager calls skip it otherwise, and the
    kernels would quietly accept what jit rejects (mixed dtypes, integer matrices)."""
    def checked(*args, **params):
        prim.abstract_eval(*(x.aval for x in args), **params)
        return impl(*args, **params)

    return checked


# --------------------------------------------------------------------------------------------
# cholesky
# --------------------------------------------------------------------------------------------

def _cholesky_kernel(a):
    try:
        return np.linalg.cholesky(a)  # reads the lower triangle only (LAPACK potrf, 'L')
    except np.linalg.LinAlgError:
        pass
    flat = a.reshape(-1, *a.shape[-2:])
    out = np.empty_like(flat)
    for i, matrix in enumerate(flat):  # only the failing matrices of a batch become NaN
        try:
            out[i] = np.linalg.cholesky(matrix)
        except np.linalg.LinAlgError:
            # as JAX: NaN below, 0 above
            out[i] = np.tril(np.full_like(matrix, failure_nan(matrix.dtype)))
    return out.reshape(a.shape)


cholesky_p = Primitive("cholesky")
cholesky_p.kernel = _cholesky_kernel


@cholesky_p.def_abstract_eval
def _cholesky_abstract_eval(a):
    _check_matrix("cholesky", "its operand", a)
    return ShapedArray(a.shape, a.dtype)


cholesky_p.def_impl(checked_impl(cholesky_p, wrap_kernel(_cholesky_kernel)))


@cholesky_p.def_jvp
def _cholesky_jvp(primals, tangents):
    (a,), (a_dot,) = primals, tangents
    lower = cholesky_p.bind(a)
    if type(a_dot) is Zero:
        return lower, Zero(tangent_aval(lower.aval))
    # The factorisation reads the lower triangle only, so the tangent is first made the
    # Hermitian matrix of its lower triangle (as jax >= 0.11 does; jax 0.10 used the whole
    # tangent, which gave derivatives for the entries above the diagonal that the result
    # does not depend on). Then L' = L Phi(L^-1 A' L^-H), where Phi keeps the lower
    # triangle and halves the diagonal.
    a_dot = _hermitian_from_lower(a_dot)
    right = triangular_solve_p.bind(lower, a_dot, left_side=False, lower=True,
                                    transpose_a=True, conjugate_a=True, unit_diagonal=False)
    middle = triangular_solve_p.bind(lower, right, left_side=True, lower=True,
                                     transpose_a=False, conjugate_a=False, unit_diagonal=False)
    half_diagonal = ops.mul(ops.mul(ops.full_like(middle, 0.5), middle),
                            ops.broadcast_to(ops.eye(a.shape[-1], middle.dtype), middle.shape))
    phi = ops.sub(ops.triangle(middle, 0, lower=True), half_diagonal)
    return lower, ops.matmul(lower, phi)


def _hermitian_from_lower(t):
    """The Hermitian matrix whose lower triangle is ``t``'s (a real diagonal)."""
    def mirror(x):  # the strictly lower triangle, transposed
        return ops.matrix_transpose(ops.triangle(x, -1, lower=True))

    if np.dtype(t.dtype).kind != "c":
        return ops.add(ops.triangle(t, 0, lower=True), mirror(t))
    re, im = ops.real(t), ops.imag(t)
    real_part = ops.add(ops.triangle(re, 0, lower=True), mirror(re))
    imag_part = ops.sub(ops.triangle(im, -1, lower=True), mirror(im))
    # (as NumPy's promotion computes ``real + 1j * imag``: both parts made complex first)
    imag_part = ops.mul(ops.full(imag_part.shape, 1j, t.dtype), ops.convert(imag_part, t.dtype))
    return ops.add(ops.convert(real_part, t.dtype), imag_part)


@cholesky_p.def_batch
def _cholesky_batch(vals, dims):
    (a,) = bdim_at_front(vals, dims)
    return cholesky_p.bind(a), 0


def emit_native_call(ctx, call, operands, results, matrix_results,
                     matrix_operands=None) -> list:
    """Emit ``runtime.native_linalg``'s kernel ``call`` on the matrices ``operands`` (one SSA
    name or a list) as a ``stablehlo.custom_call`` with result avals ``results``
    (``matrix_results[i]``: result i is a stack of matrices, laid out column-major like the
    operands; ``matrix_operands``, all true by default, says the same of the operands: geqp3's
    pivot vector is not one)."""
    operands = [operands] if isinstance(operands, str) else list(operands)
    rank = ctx.type_of(operands[0]).ndim
    if matrix_operands is None:
        matrix_operands = (True,) * len(operands)
    in_layouts = ", ".join(runtime.native_layout(ctx.type_of(x).ndim, m)
                           for x, m in zip(operands, matrix_operands))
    layouts = ", ".join(runtime.native_layout(r.ndim, m)
                        for r, m in zip(results, matrix_results))
    return ctx.op("stablehlo.custom_call", *operands, results=results, attributes={
        "call_target_name": f'"{call.target}"', "api_version": "1 : i32",
        "backend_config": '""', "operand_layouts": f"[{in_layouts}]",
        "result_layouts": f"[{layouts}]", "mhlo.backend_config": call.config,
        "mhlo.frontend_attributes": f'{{num_batch_dims = "{rank - 2}"}}'})


def failed_matrices(ctx, info: str, shape) -> str:
    """A bool array of ``shape`` (batch axes first), true for every matrix whose ``info`` (the
    native kernel's int32 status per matrix, of the batch shape) is nonzero."""
    batch = ctx.type_of(info).shape
    bad = compare(ctx, info, ctx.constant(0, ShapedArray(batch, np.int32)), "NE")
    return ctx.op("stablehlo.broadcast_in_dim", bad, results=[ShapedArray(shape, np.bool_)],
                  attributes={"broadcast_dimensions": i64_array_attribute(
                      range(len(batch)))})[0]


@cholesky_p.def_lower
def _cholesky_lower(ctx, a):
    aval = ctx.avals_out[0]
    nd = aval.ndim
    native = runtime.native_linalg(ctx.platform, "cholesky", aval.dtype)
    if native is not None:  # LAPACK potrf on CPU: its info flags a failed factorisation
        full, info = emit_native_call(ctx, native, a, [aval, ShapedArray(aval.shape[:-2],
                                                                         np.int32)],
                                      (True, False))
        failed = failed_matrices(ctx, info, aval.shape)
    else:
        full = ctx.op("stablehlo.cholesky", a, attributes={"lower": "true"})[0]
        # XLA's expander leaves some NaNs in a matrix that is not positive definite; JAX
        # (and the kernel) make its whole lower triangle NaN.
        nan = compare(ctx, full, full, "NE")
        failed = regions.reduce(ctx, [nan], [ctx.constant(False, ShapedArray((), np.bool_))],
                                (nd - 2, nd - 1), "stablehlo.or")[0]
        failed = ctx.op("stablehlo.broadcast_in_dim", failed,
                        results=[ShapedArray(aval.shape, np.bool_)],
                        attributes={"broadcast_dimensions": i64_array_attribute(
                            range(nd - 2))})[0]
    full = ctx.op("stablehlo.select", failed, ctx.constant(failure_nan(aval.dtype), aval), full,
                  results=[aval])[0]
    return [_keep_triangle(ctx, full, aval, lower=True)]


def _keep_triangle(ctx, x: str, aval, lower: bool) -> str:
    """``x`` with the other triangle (strictly above the diagonal when ``lower``) zeroed."""
    shape, nd = aval.shape, aval.ndim
    index = ShapedArray(shape, np.int32)
    rows = ctx.op("stablehlo.iota", results=[index],
                  attributes={"iota_dimension": f"{nd - 2} : i64"})[0]
    cols = ctx.op("stablehlo.iota", results=[index],
                  attributes={"iota_dimension": f"{nd - 1} : i64"})[0]
    keep = compare(ctx, cols, rows, "LE" if lower else "GE")
    zero = ctx.constant(0, aval)
    return ctx.op("stablehlo.select", keep, x, zero, results=[aval])[0]


# --------------------------------------------------------------------------------------------
# triangular_solve
# --------------------------------------------------------------------------------------------

def _op_of_triangle(a, *, lower, transpose_a, conjugate_a, unit_diagonal):
    """NumPy: the matrix ``op(a)`` that a triangular solve uses."""
    tri = np.tril(a) if lower else np.triu(a)
    if unit_diagonal:
        n = a.shape[-1]
        tri = tri.copy()
        tri[..., np.arange(n), np.arange(n)] = 1
    if conjugate_a:
        tri = np.conj(tri)
    return _mT(tri) if transpose_a else tri


def _substitute(m, b, lower_effective: bool):
    """``m^-1 b`` for a triangular ``m`` (lower if ``lower_effective``) by substitution, row
    by row over the whole batch: zero pivots give inf/NaN as LAPACK's ``trsm`` does (NumPy's
    ``solve`` raises on a singular matrix)."""
    n = m.shape[-1]
    x = np.zeros(np.broadcast_shapes(m.shape[:-2], b.shape[:-2]) + b.shape[-2:],
                 np.result_type(m, b))
    order = range(n) if lower_effective else range(n - 1, -1, -1)
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in order:
            partial = np.einsum("...k,...kj->...j", m[..., i, :], x)  # x rows not set yet are 0
            x[..., i, :] = (b[..., i, :] - partial) / m[..., i, i, None]
    return x


def _triangular_solve_kernel(a, b, *, left_side, lower, transpose_a, conjugate_a,
                             unit_diagonal):
    m = _op_of_triangle(a, lower=lower, transpose_a=transpose_a, conjugate_a=conjugate_a,
                        unit_diagonal=unit_diagonal)
    effective_lower = lower != transpose_a
    if not left_side:  # x m = b  <=>  m^T x^T = b^T
        m, b, effective_lower = _mT(m), _mT(b), not effective_lower
    try:
        x = np.linalg.solve(m, b)
    except np.linalg.LinAlgError:  # a zero pivot: substitute, giving inf/NaN like trsm
        x = _substitute(m, b, effective_lower)
    x = x.astype(np.result_type(a, b), copy=False)
    return x if left_side else _mT(x)


triangular_solve_p = Primitive("triangular_solve")
triangular_solve_p.kernel = _triangular_solve_kernel


@triangular_solve_p.def_abstract_eval
def _triangular_solve_abstract_eval(a, b, *, left_side, lower, transpose_a, conjugate_a,
                                    unit_diagonal):
    op = "triangular_solve"
    _check_matrix(op, "a", a)
    _check_matrix(op, "b", b, square=False)
    if b.dtype != a.dtype:
        raise TypeError(f"{op}: a and b must have one dtype, got {a.str_short()} and "
                        f"{b.str_short()}; convert one with .astype")
    m = a.shape[-1]
    solved = b.shape[-2] if left_side else b.shape[-1]
    if a.shape[:-2] != b.shape[:-2] or solved != m:
        side = "rows" if left_side else "columns"
        raise TypeError(f"{op}: with left_side={left_side}, b must have the batch axes of a "
                        f"and {m} {side} (a is {a.str_short()}), got b {b.str_short()}")
    return ShapedArray(b.shape, b.dtype)


triangular_solve_p.def_impl(checked_impl(triangular_solve_p,
                                          wrap_kernel(_triangular_solve_kernel)))


@triangular_solve_p.def_jvp
def _triangular_solve_jvp(primals, tangents, **params):
    (a, b), (a_dot, b_dot) = primals, tangents
    x = triangular_solve_p.bind(a, b, **params)
    tangent = None
    if type(b_dot) is not Zero:
        tangent = triangular_solve_p.bind(a, b_dot, **params)
    if type(a_dot) is not Zero:
        # op(a) x = b  =>  op(a') x + op(a) x' = 0  =>  x' = -op(a)^-1 op(a') x; on the right
        # side x' = -x op(a') op(a)^-1. Only the triangle the primal reads has a derivative.
        lower, unit = params["lower"], params["unit_diagonal"]
        tri = ops.triangle(a_dot, (-1 if unit else 0) if lower else (1 if unit else 0), lower)
        if params["conjugate_a"]:
            tri = ops.conj(tri)
        if params["transpose_a"]:
            tri = ops.matrix_transpose(tri)
        product = ops.matmul(tri, x) if params["left_side"] else ops.matmul(x, tri)
        from_a = ops.neg(triangular_solve_p.bind(a, product, **params))
        tangent = from_a if tangent is None else ops.add(tangent, from_a)
    if tangent is None:
        return x, Zero(tangent_aval(x.aval))
    return x, tangent


@triangular_solve_p.def_transpose
def _triangular_solve_transpose(ct, a, b, **params):
    # Linear in b: x = op(a)^-1 b (or b op(a)^-1), whose transpose applies op(a)^-T: the same
    # solve with transpose_a flipped (conjugation is not part of a linear transpose).
    if is_undefined(a):
        raise TypeError("triangular_solve is not linear in its matrix operand a; only b can "
                        "be transposed (a must be a known value)")
    if type(ct) is Zero:
        return [None, None]
    flipped = dict(params, transpose_a=not params["transpose_a"])
    return [None, triangular_solve_p.bind(a, ct, **flipped)]


@triangular_solve_p.def_batch
def _triangular_solve_batch(vals, dims, **params):
    a, b = bdim_at_front(vals, dims)
    return triangular_solve_p.bind(a, b, **params), 0


@triangular_solve_p.def_lower
def _triangular_solve_lower(ctx, a, b, *, left_side, lower, transpose_a, conjugate_a,
                            unit_diagonal):
    a_aval = ctx.avals_in[0]
    if conjugate_a and not transpose_a and np.dtype(a_aval.dtype).kind == "c":
        # StableHLO's ``transpose_a`` has ADJOINT but no plain conjugate: conjugate first.
        part = ShapedArray(a_aval.shape, np.float32 if a_aval.dtype == np.complex64
                           else np.float64)
        real = ctx.op("stablehlo.real", a, results=[part])[0]
        imag = ctx.op("stablehlo.negate", ctx.op("stablehlo.imag", a, results=[part])[0],
                      results=[part])[0]
        a = ctx.op("stablehlo.complex", real, imag, results=[a_aval])[0]
        conjugate_a = False
    native = runtime.native_linalg(ctx.platform, "triangular_solve", a_aval.dtype,
                                   lower=lower, left_side=left_side, transpose=transpose_a,
                                   conjugate=conjugate_a, unit_diagonal=unit_diagonal)
    if native is not None:  # BLAS trsm on CPU (XLA's own expansion is several times slower)
        return emit_native_call(ctx, native, [a, b], list(ctx.avals_out), (True,))
    mode = ("ADJOINT" if conjugate_a else "TRANSPOSE") if transpose_a else "NO_TRANSPOSE"
    return ctx.op("stablehlo.triangular_solve", a, b, attributes={
        "left_side": _bool(left_side), "lower": _bool(lower),
        "unit_diagonal": _bool(unit_diagonal),
        "transpose_a": f"#stablehlo<transpose {mode}>"})


def _bool(flag) -> str:
    return "true" if flag else "false"


# --------------------------------------------------------------------------------------------
# lu
# --------------------------------------------------------------------------------------------

def _pivot_magnitude(x):
    """LAPACK's pivot measure: ``|x|``, or ``|re| + |im|`` for complex (``cabs1``)."""
    return np.abs(x.real) + np.abs(x.imag) if np.iscomplexobj(x) else np.abs(x)


def _lu_single(a):
    """``_lu_kernel`` for one matrix: basic slicing instead of the batch path's fancy
    indexing (a 64 x 64 LU runs several times faster)."""
    m, n = a.shape
    lu = np.array(a, copy=True)
    pivots = np.zeros(min(m, n), np.int32)
    permutation = np.arange(m, dtype=np.int32)
    with np.errstate(divide="ignore", invalid="ignore"):
        for j in range(min(m, n)):
            p = j + int(np.argmax(_pivot_magnitude(lu[j:, j])))
            pivots[j] = p
            if p != j:
                lu[[j, p]] = lu[[p, j]]
                permutation[[j, p]] = permutation[[p, j]]
            if lu[j, j] != 0:  # a zero column: LAPACK skips the step
                lu[j + 1:, j] /= lu[j, j]
            lu[j + 1:, j + 1:] -= lu[j + 1:, j, None] * lu[j, None, j + 1:]
    return [lu, pivots, permutation]


def _lu_kernel(a):
    m, n = a.shape[-2:]
    k = min(m, n)
    if a.size == m * n and a.size:  # one matrix (whatever its batch axes of size 1)
        lu, pivots, permutation = _lu_single(a.reshape(m, n))
        batch_shape = a.shape[:-2]
        return [lu.reshape(a.shape), pivots.reshape(*batch_shape, k),
                permutation.reshape(*batch_shape, m)]
    # The batch size spelled out: reshape(-1, 0, 0) is ambiguous for a 0 x 0 matrix.
    lu = np.array(a.reshape(math.prod(a.shape[:-2]), m, n), copy=True)
    batch = np.arange(lu.shape[0])
    pivots = np.zeros((lu.shape[0], k), np.int32)
    permutation = np.broadcast_to(np.arange(m, dtype=np.int32), (lu.shape[0], m)).copy()
    with np.errstate(divide="ignore", invalid="ignore"):
        for j in range(k):
            p = j + np.argmax(_pivot_magnitude(lu[:, j:, j]), axis=1)
            pivots[:, j] = p
            lu[batch, j], lu[batch, p] = lu[batch, p], lu[batch, j].copy()
            permutation[batch, j], permutation[batch, p] = (permutation[batch, p],
                                                            permutation[batch, j].copy())
            pivot = lu[:, j, j]
            usable = pivot != 0  # a zero column: LAPACK skips the step
            scale = np.where(usable, pivot, 1)
            lu[:, j + 1:, j] = np.where(usable[:, None], lu[:, j + 1:, j] / scale[:, None],
                                        lu[:, j + 1:, j])
            lu[:, j + 1:, j + 1:] -= lu[:, j + 1:, j, None] * lu[:, j, None, j + 1:]
    batch_shape = a.shape[:-2]
    return [lu.reshape(a.shape), pivots.reshape(*batch_shape, k),
            permutation.reshape(*batch_shape, m)]


lu_p = Primitive("lu", multiple_results=True)
lu_p.kernel = _lu_kernel


@lu_p.def_abstract_eval
def _lu_abstract_eval(a):
    _check_matrix("lu", "its operand", a, square=False)
    batch, (m, n) = a.shape[:-2], a.shape[-2:]
    return [ShapedArray(a.shape, a.dtype), ShapedArray((*batch, min(m, n)), np.int32),
            ShapedArray((*batch, m), np.int32)]


lu_p.def_impl(checked_impl(lu_p, wrap_kernel(_lu_kernel, multiple_results=True)))


@lu_p.def_jvp
def _lu_jvp(primals, tangents):
    (a,), (a_dot,) = primals, tangents
    lu, pivots, permutation = lu_p.bind(a)
    int_zeros = [Zero(tangent_aval(pivots.aval)), Zero(tangent_aval(permutation.aval))]
    if type(a_dot) is Zero:
        return [lu, pivots, permutation], [Zero(tangent_aval(lu.aval)), *int_zeros]
    m, n = a.shape[-2:]
    k = min(m, n)
    batch = tuple(a_dot.shape[:-2])
    # P A = L U  =>  L^-1 P A' U^-1 = L^-1 L' + U' U^-1: its strictly lower part is L^-1 L'
    # and its upper part U' U^-1. L is completed to m x m and U to n x n with identity
    # blocks so that both solves are square.
    rows = ops.broadcast_to(ops.expand_dims(permutation, permutation.ndim), a_dot.shape)
    x = ops.take_along_axis(a_dot, rows, a_dot.ndim - 2)
    nd = lu.ndim
    eye_m, eye_n = ops.eye(m, lu.dtype), ops.eye(n, lu.dtype)
    lower = ops.triangle(ops.slice_in_dim(lu, 0, k, 1, nd - 1), -1, lower=True)
    lower = ops.concatenate([lower, ops.full((*lower.shape[:-1], m - k), 0, lu.dtype)], nd - 1)
    lower = ops.add(*ops.broadcast_arrays(lower, eye_m))
    upper = ops.triangle(ops.slice_in_dim(lu, 0, k, 1, nd - 2), 0, lower=False)
    upper = ops.concatenate([upper, ops.full((*upper.shape[:-2], n - k, n), 0, lu.dtype)],
                            nd - 2)
    # the identity in the columns past k, so that the completed U is invertible
    extra = ops.broadcast_to(ops.ge(ops.arange(n), ops.full((n,), k, np.int32)), (n, n))
    upper = ops.add(*ops.broadcast_arrays(upper, ops.select(extra, eye_n,
                                                            ops.zeros_like(eye_n))))
    lower = ops.broadcast_to(lower, (*batch, m, m))
    upper = ops.broadcast_to(upper, (*batch, n, n))
    solved = triangular_solve_p.bind(lower, x, left_side=True, lower=True, transpose_a=False,
                                     conjugate_a=False, unit_diagonal=True)
    both = triangular_solve_p.bind(upper, solved, left_side=False, lower=False,
                                   transpose_a=False, conjugate_a=False, unit_diagonal=False)
    lu_dot = ops.add(ops.matmul(lower, ops.triangle(both, -1, lower=True)),
                     ops.matmul(ops.triangle(both, 0, lower=False), upper))
    return [lu, pivots, permutation], [lu_dot, *int_zeros]


@lu_p.def_batch
def _lu_batch(vals, dims):
    (a,) = bdim_at_front(vals, dims)
    return lu_p.bind(a), [0, 0, 0]


@lu_p.def_lower
def _lu_lower(ctx, a):
    aval = ctx.avals_in[0]
    native = runtime.native_linalg(ctx.platform, "lu", aval.dtype)
    if native is None:
        return lower_inline(ctx, _lu_ir(aval), a)
    # LAPACK getrf (CPU): 1-based pivots and a status per matrix, negative only for an
    # invalid argument (a singular matrix is a valid factorisation, as in JAX).
    lu_aval, pivots_aval, permutation_aval = ctx.avals_out
    lu, pivots, info = emit_native_call(ctx, native, a, [lu_aval, pivots_aval, ShapedArray(
        aval.shape[:-2], np.int32)], (True, False, False))
    pivots = ctx.op("stablehlo.subtract", pivots, ctx.constant(1, pivots_aval),
                    results=[pivots_aval])[0]
    invalid = compare(ctx, info, ctx.constant(0, ShapedArray(aval.shape[:-2], np.int32)), "LT")
    invalid = ctx.op("stablehlo.broadcast_in_dim", invalid,
                     results=[ShapedArray(aval.shape, np.bool_)],
                     attributes={"broadcast_dimensions": i64_array_attribute(
                         range(aval.ndim - 2))})[0]
    lu = ctx.op("stablehlo.select", invalid, ctx.constant(failure_nan(lu_aval.dtype), lu_aval), lu,
                results=[lu_aval])[0]
    (permutation,) = lower_inline(ctx, _permutation_ir(pivots_aval, permutation_aval.shape[-1]),
                                  pivots)
    return [lu, pivots, permutation]


@functools.lru_cache(maxsize=64)
def _lu_ir(aval):
    return stage_flat(lambda a: list(_lu_composite(a)), [aval])


@functools.lru_cache(maxsize=64)
def _permutation_ir(pivots_aval, m: int):
    return stage_flat(lambda pivots: [permutation_from_pivots(pivots, m)], [pivots_aval])


def permutation_from_pivots(pivots, m: int):
    """The row order that LAPACK's swaps ``pivots`` (0-based int32, last axis) produce on
    ``range(m)``: a ``fori_loop`` of masked swaps, vectorised over the batch."""
    pivots = ops.convert(pivots, np.int32)
    rows = ops.arange(m, np.int32)
    steps = ops.arange(pivots.shape[-1], np.int32)
    last = pivots.ndim - 1

    def pick(mask, x):  # x's entry where the one-hot mask is true, keeping the axis
        picked = ops.reduce_sum(ops.where(mask, x, ops.zeros_like(x)), (last,))
        return ops.expand_dims(picked, last)

    def swap(j, permutation):
        at_j = ops.eq(rows, ops.broadcast_to(j, rows.shape))
        p = pick(ops.eq(steps, ops.broadcast_to(j, steps.shape)), pivots)
        at_p = ops.eq(*ops.broadcast_arrays(rows, p))
        value_j, value_p = pick(at_j, permutation), pick(at_p, permutation)
        return ops.where(at_j, value_p, ops.where(at_p, value_j, permutation))

    start = ops.broadcast_to(rows, (*pivots.shape[:-1], m))
    return fori_loop(0, pivots.shape[-1], swap, start)


def _lu_composite(a):
    """``lu``'s kernel written with bind-level operations, for lowering: one elimination step
    per column in a ``fori_loop``, each step a masked whole-matrix update (row swaps by
    selecting with index masks), vectorised over the batch. O(min(m, n) m n) like the kernel,
    and the same pivot choices (first maximum of the same measure)."""
    m, n = a.shape[-2:]
    k = min(m, n)
    batch = tuple(a.shape[:-2])
    nd = a.ndim
    row_ids, col_ids = ops.arange(m), ops.arange(n)
    rows, cols = ops.reshape(row_ids, (m, 1)), ops.reshape(col_ids, (1, n))

    def scalar_mask(ids, j, compare=ops.eq):  # ids (compared) j, for the int32 scalar j
        return compare(ids, ops.broadcast_to(j, ids.shape))

    def zeros(x):
        return ops.zeros_like(x)

    def pick_row(x, index):  # x[..., index, :] for a per-batch index, by masking
        at = ops.eq(*ops.broadcast_arrays(rows, ops.reshape(index, (*batch, 1, 1))))
        return ops.reduce_sum(ops.where(at, x, zeros(x)), (nd - 2,))

    def column_of(lu, j):  # lu[..., :, j]
        return ops.reduce_sum(ops.where(scalar_mask(cols, j), lu, zeros(lu)), (nd - 1,))

    def step(j, carry):
        lu, pivots, permutation = carry
        column = column_of(lu, j)
        if np.dtype(column.dtype).kind == "c":
            magnitude = ops.add(ops.absolute(ops.real(column)), ops.absolute(ops.imag(column)))
        else:
            magnitude = ops.absolute(column)
        candidates = ops.where(scalar_mask(row_ids, j, ops.ge), magnitude,
                               ops.full_like(magnitude, -1))
        # NaN must win as in NumPy's argmax (the first NaN): treat it as +inf.
        candidates = ops.select(ops.isnan(candidates), ops.full_like(candidates, np.inf),
                                candidates)
        p = ops.argmax(candidates, candidates.ndim - 1)
        row_j = pick_row(lu, ops.broadcast_to(j, batch))
        row_p = pick_row(lu, p)
        at_j = scalar_mask(rows, j)
        at_p = ops.eq(*ops.broadcast_arrays(rows, ops.reshape(p, (*batch, 1, 1))))
        lu = ops.where(at_j, ops.expand_dims(row_p, nd - 2),
                       ops.where(at_p, ops.expand_dims(row_j, nd - 2), lu))
        p_col = ops.expand_dims(p, nd - 2)  # (..., 1)
        perm_at_j = scalar_mask(row_ids, j)
        perm_at_p = ops.eq(*ops.broadcast_arrays(row_ids, p_col))
        perm_j = ops.reduce_sum(ops.where(perm_at_j, permutation, zeros(permutation)),
                                (nd - 2,))
        perm_p = ops.reduce_sum(ops.where(perm_at_p, permutation, zeros(permutation)),
                                (nd - 2,))
        permutation = ops.where(perm_at_j, ops.expand_dims(perm_p, nd - 2),
                                ops.where(perm_at_p, ops.expand_dims(perm_j, nd - 2),
                                          permutation))
        pivots = ops.where(scalar_mask(ops.arange(k), j), p_col, pivots)
        pivot = ops.reduce_sum(ops.where(scalar_mask(col_ids, j), row_p, zeros(row_p)),
                               (nd - 2,))
        usable = ops.ne(pivot, zeros(pivot))
        scale = ops.expand_dims(ops.select(usable, pivot, ops.full_like(pivot, 1)), nd - 2)
        column = column_of(lu, j)
        below = scalar_mask(row_ids, j, ops.gt)
        divided = ops.div(*ops.broadcast_arrays(column, scale))
        multipliers = ops.where(ops.logical_and(*ops.broadcast_arrays(
            below, ops.expand_dims(usable, nd - 2))), divided, column)
        in_column = ops.logical_and(*ops.broadcast_arrays(ops.reshape(below, (m, 1)),
                                                          scalar_mask(cols, j)))
        lu = ops.where(in_column, ops.expand_dims(multipliers, nd - 1), lu)
        below_multipliers = ops.where(below, multipliers, zeros(multipliers))
        update = ops.mul(*ops.broadcast_arrays(ops.expand_dims(below_multipliers, nd - 1),
                                               ops.expand_dims(row_p, nd - 2)))
        lu = ops.sub(lu, ops.where(scalar_mask(cols, j, ops.gt), update, zeros(update)))
        return lu, pivots, permutation

    pivots = ops.full((*batch, k), 0, np.int32)
    permutation = ops.broadcast_to(ops.arange(m, np.int32), (*batch, m))
    return fori_loop(0, k, step, (a, pivots, permutation))
