"""Differential test of ``funcarray.numpy.linalg`` against jax: funcarray eager, funcarray
jit and ``jax.numpy.linalg`` on the same matrices must agree on whether they raise, and
otherwise on shape, dtype, weak type and values.

The operands are stacks of matrices of every dtype (empty, 1x1, square, rectangular, a batch
of two), with values that are well conditioned, singular (a repeated row), zero, or hold an
infinity or a NaN. Results whose value is unique (determinants, inverses, solutions,
singular and eigen values, norms, ranks) are compared within a bound that grows with the
condition number of the operand: ``k * eps * cond * |result|``. Where the operand is singular
or not finite the values are left open (LAPACK's and XLA's algorithms may rightly give any
non-finite or ill-determined value there) and only the kind of answer is compared: both
raise, or both give the same shape, dtype and weak type. Decompositions whose factors are not
unique (QR, SVD, eigh) are compared through what is unique: the product of the factors.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from differential_compare import BITS_64, Raised, attempt, parts
from differential_matrices import (
    KINDS_OF_VALUES,
    condition,
    half_precision_lapack,
    inexact_of,
    matrices,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from op_table import ALL_DTYPES, kind_of

import funcarray as fa
import funcarray.numpy as fnp
from funcarray import dtypes

# Each example compiles a funcarray program and a jax one: 5 examples for each of the ~40
# functions keeps the file within about half a minute on 2 idle cores (the thorough
# profile scales the count, conftest.py).
_EXAMPLES = settings(max_examples=5)

_SQUARE = ((0, 0), (1, 1), (3, 3), (2, 3, 3))
_ANY_SHAPE = ((0, 0), (1, 1), (3, 3), (2, 3), (3, 2), (2, 2, 3))


@dataclasses.dataclass(frozen=True)
class LinalgOp:
    """One function of ``numpy.linalg`` and how to compare its results.

    * ``shapes``: the operand shapes it is drawn with.
    * ``call``: ``call(linalg, x)`` runs it with either namespace's ``linalg``.
    * ``check``: "value" (unique results, within the condition-number bound), "exact"
      (integers: ranks), or "product" (factors compared through their product, which
      ``call`` returns).
      "set" (eigenvalues: each result value is within the bound of one of jax's, and the
      other way round, whatever the order).
    * ``hermitian``: the operand is made Hermitian positive definite first (cholesky, eigh).
    * ``function``: the ``linalg`` name it exercises, where a row's name adds its options.
    """

    name: str
    shapes: tuple
    call: Callable
    check: str = "value"
    hermitian: bool = False
    square_rhs: bool = False
    function: str = ""

    def __post_init__(self):
        if not self.function:
            object.__setattr__(self, "function", self.name)


def _reconstruct_qr(linalg, x):
    q, r = linalg.qr(x)
    return q @ r


def _reconstruct_svd(linalg, x):
    u, s, vh = linalg.svd(x, full_matrices=False)
    return (u * s[..., None, :]) @ vh


def _reconstruct_eigh(linalg, x):
    w, v = linalg.eigh(x)
    return (v * w[..., None, :]) @ v.conj().swapaxes(-1, -2)


def _eig_residual(linalg, x):
    """``x v - v diag(w)``: zero within rounding for any valid eigenvectors, which are not
    unique (scale, phase, order) and not comparable with jax's one by one."""
    w, v = linalg.eig(x)
    return x @ v - v * w[..., None, :]


_MATRIX_NORM_ORDERS = {"fro": "fro", "nuc": "nuc", "1": 1, "neg1": -1, "2": 2, "neg2": -2,
                       "inf": np.inf, "neg_inf": -np.inf}

LINALG_OPS = (
    LinalgOp("det", _SQUARE, lambda la, x: la.det(x)),
    LinalgOp("slogdet", _SQUARE, lambda la, x: la.slogdet(x)),
    LinalgOp("inv", _SQUARE, lambda la, x: la.inv(x)),
    LinalgOp("solve", _SQUARE, lambda la, x: la.solve(x, x[..., ::-1, :1])),
    LinalgOp("pinv", _ANY_SHAPE, lambda la, x: la.pinv(x)),
    LinalgOp("matrix_rank", _ANY_SHAPE, lambda la, x: la.matrix_rank(x), check="exact"),
    LinalgOp("matrix_power", _SQUARE, lambda la, x: la.matrix_power(x, 3)),
    LinalgOp("matrix_power_inverse", _SQUARE, lambda la, x: la.matrix_power(x, -2)),
    LinalgOp("norm", _ANY_SHAPE, lambda la, x: la.norm(x)),
    LinalgOp("norm_nuc", _ANY_SHAPE, lambda la, x: la.norm(x, ord="nuc", axis=(-2, -1))),
    LinalgOp("norm_2", _ANY_SHAPE, lambda la, x: la.norm(x, ord=2, axis=(-2, -1))),
    LinalgOp("norm_1", _ANY_SHAPE, lambda la, x: la.norm(x, ord=1, axis=(-2, -1))),
    LinalgOp("vector_norm", _ANY_SHAPE, lambda la, x: la.vector_norm(x, ord=3)),
    LinalgOp("cond", _SQUARE, lambda la, x: la.cond(x)),
    LinalgOp("svdvals", _ANY_SHAPE, lambda la, x: la.svdvals(x)),
    LinalgOp("eigvalsh", _SQUARE, lambda la, x: la.eigvalsh(x), hermitian=True),
    LinalgOp("cholesky", _SQUARE, lambda la, x: la.cholesky(x), hermitian=True),
    LinalgOp("lstsq", _ANY_SHAPE, lambda la, x: la.lstsq(x, x[..., ::-1, :1])[0]),
    LinalgOp("qr", _ANY_SHAPE, _reconstruct_qr, check="product"),
    LinalgOp("svd", _ANY_SHAPE, _reconstruct_svd, check="product"),
    LinalgOp("eigh", _SQUARE, _reconstruct_eigh, check="product", hermitian=True),
    LinalgOp("eig", _SQUARE, _eig_residual, check="product"),
    LinalgOp("eigvals", _SQUARE, lambda la, x: la.eigvals(x), check="set"),
    *(LinalgOp(f"matrix_norm_{label}", _ANY_SHAPE,
               lambda la, x, order=order: la.matrix_norm(x, ord=order), function="matrix_norm")
      for label, order in _MATRIX_NORM_ORDERS.items()),
    LinalgOp("multi_dot", _ANY_SHAPE,
             lambda la, x: la.multi_dot([x, x.swapaxes(-1, -2), x])),
    LinalgOp("tensorinv", _SQUARE, lambda la, x: la.tensorinv(x, ind=1)),
    LinalgOp("tensorsolve", _SQUARE, lambda la, x: la.tensorsolve(x, x[..., 0])),
    LinalgOp("trace", _ANY_SHAPE, lambda la, x: la.trace(x, offset=1)),
    LinalgOp("diagonal", _ANY_SHAPE, lambda la, x: la.diagonal(x, offset=-1)),
    LinalgOp("cross", _ANY_SHAPE, lambda la, x: la.cross(x, x[..., ::-1])),
    LinalgOp("matmul", _ANY_SHAPE, lambda la, x: la.matmul(x, x.swapaxes(-1, -2))),
    LinalgOp("outer", _ANY_SHAPE, lambda la, x: la.outer(x[..., 0], x[..., -1])),
    LinalgOp("tensordot", _ANY_SHAPE, lambda la, x: la.tensordot(x, x, axes=1)),
    LinalgOp("vecdot", _ANY_SHAPE, lambda la, x: la.vecdot(x, x[..., ::-1])),
    LinalgOp("matrix_transpose", _ANY_SHAPE, lambda la, x: la.matrix_transpose(x),
             check="exact"),
)

@dataclasses.dataclass(frozen=True)
class Case:
    x: np.ndarray
    values: str

    def __repr__(self):
        return f"(np.array({self.x.tolist()!r}, {self.x.dtype.name!r}), {self.values})"


@st.composite
def cases(draw, op):
    dtype = draw(st.sampled_from(ALL_DTYPES), label="dtype")
    shape = draw(st.sampled_from(op.shapes), label="shape")
    values = draw(st.sampled_from(KINDS_OF_VALUES), label="values")
    x = draw(matrices(dtype, shape, values, hermitian=op.hermitian), label="x")
    return Case(x, values)


# --------------------------------------------------------------------------------------------
# Running the three implementations
# --------------------------------------------------------------------------------------------


def _outputs_of(op):
    return op.name == "slogdet"


def _run_eager(op, case):
    return attempt(lambda: op.call(fnp.linalg, fnp.asarray(case.x)), _outputs_of(op))


def _run_jit(op, case):
    return attempt(lambda: fa.jit(lambda x: op.call(fnp.linalg, x))(fnp.asarray(case.x)),
                   _outputs_of(op))


def _run_jax(op, case):
    x64 = np.dtype(case.x.dtype) in BITS_64
    with jax.enable_x64(x64):
        return attempt(lambda: op.call(jnp.linalg, jnp.asarray(case.x)), _outputs_of(op))


# --------------------------------------------------------------------------------------------
# Bounds and allowances
# --------------------------------------------------------------------------------------------


def values_are_open(op, case) -> bool:
    """The operand is singular, zero, or not finite, or too ill-conditioned for the
    computing precision: the values of unique-result functions are not determined there
    (inverse of a singular matrix, rank of a matrix with a NaN), only the kind of answer."""
    if case.values in ("inf", "nan"):
        return True
    eps = float(dtypes.finfo(inexact_of(case.x.dtype)).eps)
    needs_inverse = op.function in ("det", "slogdet", "inv", "solve", "pinv", "matrix_rank",
                                    "matrix_power", "cond", "lstsq", "tensorinv",
                                    "tensorsolve")
    return needs_inverse and bool((condition(case.x) * eps > 1e-3).any())


def value_bound(op, case, want) -> np.ndarray:
    """``k * eps * (cond + 1) * scale`` per element of the result, where ``scale`` is the
    result's largest magnitude in its matrix (the operand's for products of factors)."""
    eps = float(dtypes.finfo(want.dtype).eps if kind_of(want.dtype) in "fc" else 0)
    cond = np.max(condition(case.x), initial=1.0)
    power = 3 if op.name.startswith("matrix_power") else 1
    with np.errstate(all="ignore"):
        reference = case.x.astype(np.complex128) if op.check == "product" else want
        scale = np.max(np.abs(reference.astype(np.complex128)), initial=1.0)
        return np.full(want.shape, 64 * eps * (cond + 1) ** power * max(scale, 1.0))


def jax_vector_norm_of_integers_is_an_integer(op, case, got, want) -> bool:
    """jax's vector_norm of integers or bools with ord other than 2 keeps the integer
    dtype (the 3-norm of ones(4) is 1); funcarray's is a float, as NumPy's and the Array
    API's. jax is asked again with the operand in funcarray's float dtype."""
    return (op.name == "vector_norm" and kind_of(case.x.dtype) in "biu"
            and not isinstance(got, Raised) and not isinstance(want, Raised)
            and kind_of(want[0][0].dtype) in "iu" and kind_of(got[0][0].dtype) == "f")


def rank_dtype_is_32_bit(op, got, want) -> bool:
    """matrix_rank is int32 in funcarray, its default int without a switch (README,
    "Dtypes"); jax's default int is int64 under x64. Values are compared."""
    return (op.name == "matrix_rank" and not isinstance(got, Raised)
            and not isinstance(want, Raised) and got[0][0].dtype == np.int32
            and want[0][0].dtype == np.int64)


# --------------------------------------------------------------------------------------------
# Comparison
# --------------------------------------------------------------------------------------------


def _check_against_jax(op, case, what, got, want):
    where = f"{op.name}{case}, {what}"
    if half_precision_lapack(case.x.dtype, got, want):
        return
    if jax_vector_norm_of_integers_is_an_integer(op, case, got, want):
        want = _run_jax(op, Case(case.x.astype(got[0][0].dtype), case.values))
    if rank_dtype_is_32_bit(op, got, want):
        want = [(want[0][0].astype(np.int32), want[0][1])]
    if isinstance(want, Raised) or isinstance(got, Raised):
        assert isinstance(want, Raised) and isinstance(got, Raised), (
            f"{where}: {got!r}, jax {want!r}")
        return
    open_values = values_are_open(op, case)
    for k, ((g, g_weak), (w, w_weak)) in enumerate(zip(got, want)):
        assert g.shape == w.shape, f"{where}, output {k}: shape {g.shape}, jax {w.shape}"
        assert g.dtype == w.dtype, f"{where}, output {k}: dtype {g.dtype}, jax {w.dtype}"
        assert g_weak == w_weak, f"{where}, output {k}: weak_type {g_weak}, jax {w_weak}"
        if open_values:
            continue
        if op.check == "exact" or kind_of(w.dtype) in "biu":
            assert (g == w).all(), f"{where}, output {k}:\n  got {g.tolist()}\n  jax {w.tolist()}"
            continue
        bound = value_bound(op, case, w)
        if op.check == "set":
            assert _same_values_in_any_order(g, w, bound), (
                f"{where}, output {k}:\n  got {g.tolist()}\n  jax {w.tolist()}")
            continue
        ok = np.ones(w.shape, bool)
        for gp, wp in zip(parts(g), parts(w)):
            gp, wp = gp.astype(np.float64), wp.astype(np.float64)
            with np.errstate(invalid="ignore"):
                ok &= (gp == wp) | (np.isnan(gp) & np.isnan(wp)) | (np.abs(gp - wp) <= bound)
        assert ok.all(), f"{where}, output {k}:\n  got {g.tolist()}\n  jax {w.tolist()}"


def _same_values_in_any_order(got, want, bound) -> bool:
    """Each of the last axis' values of ``got`` is within ``bound`` of one of ``want``'s in
    the same matrix, and the other way round (NaNs match NaNs)."""
    def close(a, b):
        a = a.astype(np.complex128)[..., :, None]
        b = b.astype(np.complex128)[..., None, :]
        with np.errstate(invalid="ignore"):
            near = np.abs(a - b) <= bound.reshape(bound.shape + (1,))
        return near | (np.isnan(a) & np.isnan(b))

    return bool(close(got, want).any(-1).all() and close(want, got).any(-1).all())


def check_case(op, case):
    """Run ``case`` through funcarray eager, funcarray jit and jax, and compare."""
    want = _run_jax(op, case)
    for what, run in (("eager", _run_eager), ("jit", _run_jit)):
        _check_against_jax(op, case, what, run(op, case), want)


@pytest.mark.parametrize("op", LINALG_OPS, ids=lambda op: op.name)
@_EXAMPLES
@given(data=st.data())
def test_eager_and_jit_match_jax(op, data):
    case = data.draw(cases(op), label="case")
    check_case(op, case)


def test_every_linalg_function_is_in_the_table():
    result_types = {"EigResult", "EighResult", "QRResult", "SVDResult", "SlogdetResult"}
    public = {name for name in dir(fnp.linalg)
              if not name.startswith("_") and callable(getattr(fnp.linalg, name))}
    assert public - result_types - {op.function for op in LINALG_OPS} == set()
