"""Differential test of ``funcarray.scipy.linalg`` against ``jax.scipy.linalg``: funcarray
eager, funcarray jit and jax on the same operands and keyword options must agree on whether
they raise, and otherwise on the number, shape, dtype and weak type of the outputs, and on
their values.

Operands: matrices of every dtype (empty, 1x1, square, rectangular where the function takes
them, a batch of two where jax takes one) that are well conditioned, singular, zero or hold
an infinity or a NaN (``differential_matrices``), and for the special matrices (toeplitz,
block_diag, ...) vectors and Python scalars holding every dtype's edge values
(``differential_values``). The keyword options are drawn per function, invalid ones
included: raising is part of the behaviour compared.

Values: results that are unique (solutions, inverses, determinants, Cholesky factors,
eigenvalues, singular values, matrix functions) are compared directly; factors that are not
(Q and R, U and V, Schur and Hessenberg forms, eigenvectors, LU pivots among equal
candidates) through what is unique: the product of the factors, ``Q^H Q``, ``R^H R``, the
zero triangle. Each compared value may differ by ``64 * eps * (cond + 1) * max(|jax|, 1)``,
``eps`` of the output dtype and ``cond`` the float64 condition number that governs the
function's forward error (the operand's for solves, inverses, square roots and polar
factors; the Kronecker system's for Sylvester equations; 1 for backward-stable products of
factors and for Hermitian eigenvalues, whose errors scale with ``|a|`` alone; ``1 + |A|_1``
for the exponential, squared for its Frechet derivative; ``exp(|A|_1)`` for the
Schur-Parlett functions of ``A``). Where the operand is not finite, or too ill conditioned
for the computing precision, the values are open (either library may rightly give any
non-finite or ill-determined value) and only the kind of answer is compared. The special
matrices are compared exactly, or within ``8 * eps * max|jax|`` where they divide or take
roots (hilbert, helmert, dft, companion); pascal, invpascal and invhilbert with SciPy's
exact values. Each difference from jax that is allowed is a named function below, with its
reason (docs/decisions.md, "Deliberate differences from JAX").
"""

from __future__ import annotations

import dataclasses
import math
import types
import warnings
from collections.abc import Callable

import jax
import jax.numpy as jnp
import jax.scipy.linalg as jsl
import numpy as np
import pytest
import scipy.linalg
from differential_compare import (
    BITS_64,
    DEFAULT_32,
    Raised,
    attempt,
    parts,
    same_kind_of_answer,
    subnormal,
)
from differential_matrices import (
    KINDS_OF_VALUES,
    condition,
    half_precision_lapack,
    matrices,
    wide,
)
from differential_values import array_of, python_scalars
from hypothesis import given, settings
from hypothesis import strategies as st
from op_table import ALL_DTYPES, ANY, kind_of

import funcarray as fa
import funcarray.numpy as fnp
import funcarray.scipy.linalg as fsl
from funcarray import dtypes

# Each example compiles a funcarray program and a jax one: 3 examples for each of the ~40
# functions keeps the file within about 20 s on 2 idle cores (the thorough profile
# scales the count, conftest.py).
_EXAMPLES = settings(max_examples=3)

FUNCARRAY = types.SimpleNamespace(name="funcarray", linalg=fsl, np=fnp)
JAX = types.SimpleNamespace(name="jax", linalg=jsl, np=jnp)

_SQUARE = ((0, 0), (1, 1), (3, 3), (2, 3, 3))
_ANY_SHAPE = ((0, 0), (1, 1), (3, 3), (2, 3), (3, 2), (2, 2, 3))
_UNBATCHED_SQUARE = ((0, 0), (1, 1), (2, 2), (3, 3))
_INEXACT = tuple(dt for dt in ALL_DTYPES if kind_of(dt) in "fc")


@dataclasses.dataclass(frozen=True)
class Case:
    """One call: the operands (NumPy arrays or Python scalars, traced under jit), static
    keyword arguments, the kind of values, and the condition number bounding the error."""

    operands: tuple
    kwargs: dict
    values: str = "regular"
    cond: float = 1.0

    @property
    def dtype(self):
        arrays = [x for x in self.operands if isinstance(x, np.ndarray)]
        return arrays[0].dtype if arrays else None

    def __repr__(self):
        shown = ", ".join(f"np.array({x.tolist()!r}, {x.dtype.name!r}).reshape({x.shape})"
                          if isinstance(x, np.ndarray) else repr(x) for x in self.operands)
        return f"({shown}, **{self.kwargs!r}) [{self.values}, cond {self.cond:.3g}]"


@dataclasses.dataclass(frozen=True)
class ScipyLinalgOp:
    """One function of ``scipy.linalg`` and how to compare its results.

    * ``cases``: a strategy of ``Case``.
    * ``call``: ``call(lib, *operands, **kwargs)`` runs it with ``FUNCARRAY`` or ``JAX`` and
      returns the outputs as a tuple of arrays.
    * ``project``: ``project(outputs, case)`` maps the outputs (NumPy arrays) to the values
      that are unique, which are compared; None compares the outputs themselves.
    * ``check``: "value" (within the condition-number bound), "exact", or "ulps" (a few
      roundings: ``8 * eps * max|jax|``).
    * ``exact_values``: ``exact_values(**kwargs)`` gives SciPy's exact values, which
      funcarray's (exact integers rounded once) are compared with instead of jax's
      (``jax_integer_matrices_are_inexact``).
    """

    name: str
    cases: Callable
    call: Callable
    project: Callable | None = None
    check: str = "value"
    exact_values: Callable | None = None


# --------------------------------------------------------------------------------------------
# Operands
# --------------------------------------------------------------------------------------------


def _values(draw):
    return draw(st.sampled_from(KINDS_OF_VALUES), label="values")


def _cond_or_open(x, values):
    """The condition number of the stack ``x`` (its worst matrix), inf where the values are
    not finite."""
    if values in ("inf", "nan"):
        return np.inf
    return float(np.max(condition(x), initial=1.0))


def _finite_or_open(values, cond=1.0):
    return np.inf if values in ("inf", "nan") else cond


def _rhs(draw, dtype, a_shape):
    """A right-hand side for the square ``a_shape``: a vector (unbatched ``a`` only, where
    every function takes one) or two columns."""
    n = a_shape[-1]
    shapes = ((n, 2), (n,)) if len(a_shape) == 2 else (a_shape[:-1] + (2,),)
    shape = draw(st.sampled_from(shapes), label="b shape")
    return draw(matrices(dtype, shape, "regular"), label="b")


@st.composite
def _one_matrix(draw, shapes=_SQUARE, hermitian=False, cond=True, kwargs=None,
                dtype_choices=ALL_DTYPES):
    """A matrix and keyword options drawn from ``kwargs`` (name: strategy); ``cond`` False:
    the result's error does not grow with the condition number (backward-stable products,
    Hermitian eigenvalues)."""
    dtype = draw(st.sampled_from(dtype_choices), label="dtype")
    shape = draw(st.sampled_from(shapes), label="shape")
    values = _values(draw)
    x = draw(matrices(dtype, shape, values, hermitian=hermitian), label="a")
    kw = {name: draw(s, label=name) for name, s in (kwargs or {}).items()}
    bound_cond = _cond_or_open(x, values) if cond else _finite_or_open(values)
    return Case((x,), kw, values, bound_cond)


@st.composite
def _triangular_system(draw):
    dtype = draw(st.sampled_from(ALL_DTYPES), label="dtype")
    shape = draw(st.sampled_from(_SQUARE), label="shape")
    values = _values(draw)
    a = draw(matrices(dtype, shape, values), label="a")
    kw = {"trans": draw(st.sampled_from((0, 1, 2, "N", "T", "C", 3)), label="trans"),
          "lower": draw(st.booleans(), label="lower"),
          "unit_diagonal": draw(st.booleans(), label="unit_diagonal")}
    triangle = wide(a)
    triangle = np.tril(triangle) if kw["lower"] else np.triu(triangle)
    if kw["unit_diagonal"] and triangle.size:
        idx = np.arange(shape[-1])
        triangle[..., idx, idx] = 1
    cond = float(np.max(condition(triangle), initial=1.0))
    return Case((a, _rhs(draw, dtype, shape)), kw, values, _finite_or_open(values, cond))


@st.composite
def _solve_system(draw):
    dtype = draw(st.sampled_from(ALL_DTYPES), label="dtype")
    shape = draw(st.sampled_from(_SQUARE), label="shape")
    values = _values(draw)
    assume_a = draw(st.sampled_from(("gen", "sym", "her", "pos", "banded")), label="assume_a")
    a = draw(matrices(dtype, shape, values, hermitian=assume_a == "pos"), label="a")
    if assume_a in ("sym", "her") and a.size and kind_of(dtype) != "b":
        a = a + (np.conj(np.swapaxes(a, -1, -2)) if assume_a == "her" else np.swapaxes(a, -1, -2))
    kw = {"assume_a": assume_a, "lower": draw(st.booleans(), label="lower")}
    return Case((a, _rhs(draw, dtype, shape)), kw, values, _cond_or_open(a, values))


@st.composite
def _cholesky_solve(draw):
    """``cho_solve`` of a Cholesky factor: an upper or lower triangle from float64, and a
    right-hand side."""
    dtype = draw(st.sampled_from(ALL_DTYPES), label="dtype")
    shape = draw(st.sampled_from(_SQUARE), label="shape")
    values = draw(st.sampled_from(("regular", "regular", "inf", "nan")), label="values")
    a = wide(draw(matrices(np.float64 if kind_of(dtype) != "c" else np.complex128, shape,
                           "regular", hermitian=True), label="a"))
    lower = draw(st.booleans(), label="lower")
    c = np.linalg.cholesky(a) if a.size else a
    if not lower:
        c = np.conj(np.swapaxes(c, -1, -2))
    if values in ("inf", "nan") and c.size:
        c.reshape(-1)[0] = np.inf if values == "inf" else np.nan
    with np.errstate(all="ignore"):
        c = c.astype(dtype) if kind_of(dtype) in "fc" else np.round(c).astype(dtype)
    cond = float(np.max(condition(a), initial=1.0))
    if kind_of(dtype) not in "fc":  # rounded to integers: the factor is another matrix
        cond = float(np.max(condition(c), initial=1.0)) ** 2
    return Case((c, _rhs(draw, dtype, shape)), {"lower": lower}, values,
                _finite_or_open(values, cond))


@st.composite
def _lu_solve_system(draw):
    """``lu_solve`` of SciPy's float64 ``lu_factor`` (per matrix of a batch), cast."""
    dtype = draw(st.sampled_from(_INEXACT + (np.int32,)), label="dtype")
    shape = draw(st.sampled_from(_SQUARE), label="shape")
    values = draw(st.sampled_from(("regular", "regular", "singular")), label="values")
    a = wide(draw(matrices(dtype, shape, values), label="a"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", scipy.linalg.LinAlgWarning)  # singular: U has a 0
        factors = [scipy.linalg.lu_factor(m, check_finite=False)
                   for m in a.reshape((math.prod(shape[:-2]),) + shape[-2:])]
    with np.errstate(all="ignore"):
        lu = a.astype(dtype) if a.size == 0 else np.stack(
            [f[0] for f in factors]).reshape(shape).astype(dtype)
    piv = np.zeros(shape[:-1], np.int32) if a.size == 0 else np.stack(
        [f[1] for f in factors]).astype(np.int32).reshape(shape[:-1])
    trans = draw(st.sampled_from((0, 1, 2, 3)), label="trans")
    return Case((lu, piv, _rhs(draw, dtype, shape)), {"trans": trans}, values,
                _cond_or_open(a.astype(dtype), values))


@st.composite
def _eigh_case(draw):
    case = draw(_one_matrix(hermitian=True, cond=False, kwargs={
        "lower": st.booleans(), "eigvals_only": st.booleans(),
        "extra": st.sampled_from((None,) * 6 + ("b", "eigvals", "type"))}))
    kw = dict(case.kwargs)
    extra = kw.pop("extra")
    operands = case.operands
    if extra == "b":
        operands += (np.eye(case.operands[0].shape[-1], dtype=case.dtype),)
    elif extra == "eigvals":
        kw["eigvals"] = (0, 0)
    elif extra == "type":
        kw["type"] = 2
    return dataclasses.replace(case, operands=operands, kwargs=kw)


@st.composite
def _expm_case(draw, frechet=False):
    """``A`` (upper triangular when ``upper_triangular``); the exponential's error grows
    with ``|A|``, its condition number."""
    kwargs = ({"method": st.sampled_from((None, None, "SPS", "blockEnlarge", "other")),
               "compute_expm": st.booleans()} if frechet else
              {"upper_triangular": st.booleans(),
               "max_squarings": st.sampled_from((16, 16, 0))})
    case = draw(_one_matrix(cond=False, kwargs=kwargs))
    a = case.operands[0]
    if case.kwargs.get("upper_triangular") and a.ndim >= 2:
        a = np.triu(a)
    norm = float(np.max(np.abs(wide(a)).sum(-2), initial=0.0)) if a.size else 0.0
    operands = (a,)
    if frechet:
        operands += (draw(matrices(case.dtype, a.shape, "regular"), label="E"),)
    power = 2 if frechet else 1
    return dataclasses.replace(case, operands=operands,
                               cond=_finite_or_open(case.values, (1 + norm) ** power))


@st.composite
def _sylvester_case(draw):
    dtype = draw(st.sampled_from(ALL_DTYPES), label="dtype")
    m, n = draw(st.sampled_from(((1, 1), (2, 3), (3, 2), (0, 2))), label="m, n")
    values = _values(draw)
    a = draw(matrices(dtype, (m, m), values), label="A")
    b = draw(matrices(dtype, (n, n), "regular"), label="B")
    c = draw(matrices(dtype, (m, n), "regular"), label="C")
    # Vec(A X + X B) = (I kron A + B^T kron I) vec(X): its condition number bounds X's error.
    with np.errstate(invalid="ignore"):  # inf * 0
        kron = np.kron(np.eye(n), wide(a)) + np.kron(wide(b).T, np.eye(m))
    cond = float(condition(kron)) if kron.size else 1.0
    return Case((a, b, c), {}, values, _finite_or_open(values, cond))


@st.composite
def _sqrtm_case(draw):
    """``A`` with its eigenvalues in the right half-plane (shifted by ``2 |A| I``), where the
    principal square root is unique."""
    case = draw(_one_matrix(kwargs={"blocksize": st.sampled_from((1, 1, 1, 2))}))
    a = case.operands[0]
    if a.size and kind_of(a.dtype) not in "b":
        shift = 2 * np.max(np.abs(wide(a)).sum(-1)) + 1
        with np.errstate(all="ignore"):
            a = (wide(a) + shift * np.eye(a.shape[-1])).astype(a.dtype)
    return dataclasses.replace(case, operands=(a,),
                               cond=_cond_or_open(a, case.values))


@st.composite
def _funm_case(draw):
    """``A`` with well separated eigenvalues (the Schur-Parlett recurrence divides by their
    differences): a diagonal 0, 3, 6, ... plus entries in [-1, 1]."""
    case = draw(_one_matrix(shapes=_UNBATCHED_SQUARE, cond=False, kwargs={
        "func": st.sampled_from(("sin", "exp", "cos")), "disp": st.booleans()}))
    a = case.operands[0]
    if a.size and kind_of(a.dtype) in "fc":
        with np.errstate(all="ignore"):
            a = (wide(a) / 4 + np.diag(3.0 * np.arange(a.shape[-1]))).astype(a.dtype)
    norm = float(np.max(np.abs(wide(a)).sum(-2), initial=0.0)) if a.size else 0.0
    return dataclasses.replace(case, operands=(a,),
                               cond=_finite_or_open(case.values, np.exp(norm)))


@st.composite
def _rsf2csf_case(draw):
    """A real Schur form ``(T, Z)`` from SciPy, cast to the dtype."""
    dtype = draw(st.sampled_from(ALL_DTYPES), label="dtype")
    shape = draw(st.sampled_from(_UNBATCHED_SQUARE), label="shape")
    values = draw(st.sampled_from(("regular", "regular", "nan")), label="values")
    a = wide(draw(matrices(np.float64, shape, values), label="a")).real
    if a.size and np.isfinite(a).all():
        t, z = scipy.linalg.schur(a)
    else:
        t, z = a, np.eye(shape[-1])
    with np.errstate(all="ignore"):
        return Case((t.astype(dtype), z.astype(dtype)), {}, values, _finite_or_open(values))


@st.composite
def _qr_multiply_case(draw):
    dtype = draw(st.sampled_from(ALL_DTYPES), label="dtype")
    m, n = draw(st.sampled_from(((3, 3), (3, 2), (2, 3), (1, 1))), label="m, n")
    values = _values(draw)
    a = draw(matrices(dtype, (m, n), values), label="a")
    mode = draw(st.sampled_from(("right", "left", "up")), label="mode")
    k = min(m, n)
    shape = draw(st.sampled_from(((2, m), (m,)) if mode != "left" else ((k, 2), (k,))),
                 label="c shape")
    c = draw(matrices(dtype, shape, "regular"), label="c")
    kw = {"mode": mode, "pivoting": draw(st.booleans(), label="pivoting"),
          "conjugate": draw(st.booleans(), label="conjugate")}
    return Case((a, c), kw, values, _finite_or_open(values))


@st.composite
def _tridiagonal_case(draw):
    dtype = draw(st.sampled_from(ALL_DTYPES), label="dtype")
    n = draw(st.sampled_from((0, 1, 2, 4)), label="n")
    values = draw(st.sampled_from(("regular", "regular", "zero", "nan")), label="values")
    d = draw(matrices(dtype, (n,), values), label="d")
    e = draw(matrices(dtype, (max(n - 1, 0),), "regular"), label="e")
    select = draw(st.sampled_from(("a", "a", "i", "v")), label="select")
    kw = {"eigvals_only": draw(st.booleans(), label="eigvals_only"), "select": select}
    if select == "i":
        kw["select_range"] = (0, max(n - 2, 0))
    elif select == "v":
        kw["select_range"] = (-1.0, 1.0)
    return Case((d, e), kw, values, _finite_or_open(values))


# Special matrices: vectors and Python scalars with every dtype's edge values.

_VECTOR_SHAPES = ((), (0,), (1,), (3,), (2, 3))


def _vector(draw, dtype, shapes=_VECTOR_SHAPES, scalars=True):
    if scalars and draw(st.integers(0, 5), label="python scalar?") == 0:
        return draw(python_scalars(ANY), label="scalar")
    shape = draw(st.sampled_from(shapes), label="shape")
    return draw(array_of(dtype, shape, ANY), label="vector")


@st.composite
def _vectors(draw, count, shapes=_VECTOR_SHAPES, optional_last=False, kwargs=None):
    dtype = draw(st.sampled_from(ALL_DTYPES), label="dtype")
    number = count - (optional_last and draw(st.booleans(), label="omit last"))
    operands = tuple(_vector(draw, dtype, shapes) for _ in range(number))
    kw = {name: draw(s, label=name) for name, s in (kwargs or {}).items()}
    return Case(operands, kw, "edge")


@st.composite
def _block_diag_case(draw):
    """Up to three blocks of any dtypes (promoted together) and ranks 0 to 2."""
    number = draw(st.integers(0, 3), label="blocks")
    blocks = []
    for _ in range(number):
        dtype = draw(st.sampled_from(ALL_DTYPES), label="dtype")
        blocks.append(_vector(draw, dtype, ((), (2,), (2, 3), (0, 2), (1, 1))))
    return Case(tuple(blocks), {}, "edge")


@st.composite
def _sizes(draw, sizes=(0, 1, 2, 3, 5), kwargs=None):
    """Functions of a size ``n`` alone (and options): nothing traced under jit."""
    kw = {"n": draw(st.sampled_from(sizes), label="n")}
    kw.update({name: draw(s, label=name) for name, s in (kwargs or {}).items()})
    return Case((), kw, "edge")


# --------------------------------------------------------------------------------------------
# Calls and projections
# --------------------------------------------------------------------------------------------


def _as_tuple(out):
    return tuple(out) if isinstance(out, (tuple, list)) else (out,)


def _mH(x):
    return np.conj(np.swapaxes(x, -1, -2))


def _cho_factor(lib, a, lower):
    c, flag = lib.linalg.cho_factor(a, lower=lower)
    if flag is not lower:
        raise AssertionError(f"cho_factor returned lower={flag!r}, asked for {lower!r}")
    return (c,)


def _lu_factor_product(outs, case):
    """``P^T L U`` from the packed factors and LAPACK's 0-based row swaps."""
    lu, piv = (wide(outs[0]), outs[1])
    m, n = lu.shape[-2:]
    k = min(m, n)
    lower = np.tril(lu[..., :, :k], -1) + np.eye(m, k)
    product = lower @ np.triu(lu[..., :k, :])
    batch = math.prod(lu.shape[:-2])
    flat, swaps = product.reshape((batch, m, n)), piv.reshape((batch, k))
    for matrix, rows in zip(flat, swaps):
        for i in reversed(range(k)):
            matrix[[i, rows[i]]] = matrix[[rows[i], i]]
    return [flat.reshape(product.shape)]


def _lu_product(outs, case):
    if case.kwargs["permute_l"]:
        pl, u = map(wide, outs)
        return [pl @ u, np.tril(u, -1)]
    p, low, u = map(wide, outs)
    return [p @ low @ u, np.triu(low, 1), np.diagonal(low, axis1=-2, axis2=-1),
            np.tril(u, -1), p @ _mH(p)]


def _inverse_permutation(p):
    return np.argsort(p, axis=-1)


def _unpivot_columns(x, p):
    """``x`` with its columns put back: ``y[..., :, p] = x``."""
    inverse = _inverse_permutation(p)
    return np.take_along_axis(x, np.broadcast_to(inverse[..., None, :], x.shape), axis=-1)


def _gram(r, p=None):
    """``R^H R`` (``= A^H A``, unique), rows and columns unpivoted."""
    g = _mH(r) @ r
    if p is not None:
        g = _unpivot_columns(g, p)
        g = np.swapaxes(_unpivot_columns(np.swapaxes(g, -1, -2), p), -1, -2)
    return g


def _qr_invariants(outs, case):
    outs = list(map(wide, outs))
    p = outs.pop().real.astype(np.int64) if case.kwargs["pivoting"] else None
    r = outs[-1]
    values = [_gram(r, p), np.tril(r, -1)]
    if len(outs) == 2:
        q = outs[0]
        qr = q @ r
        values += [qr if p is None else _unpivot_columns(qr, p), _mH(q) @ q]
    return values


def _svd_invariants(outs, case):
    if not case.kwargs["compute_uv"]:
        return [wide(outs[0])]
    u, s, vh = map(wide, outs)
    k = s.shape[-1]
    return [s, (u[..., :, :k] * s[..., None, :]) @ vh[..., :k, :], _mH(u) @ u, vh @ _mH(vh)]


def _eigh_invariants(outs, case):
    if case.kwargs["eigvals_only"]:
        return [wide(outs[0])]
    w, v = map(wide, outs)
    return [w, (v * w[..., None, :]) @ _mH(v), _mH(v) @ v]


def _hessenberg_invariants(outs, case):
    """``|H|`` is unique for an unreduced Hessenberg form with ``Q e_1 = e_1`` (the implicit
    Q theorem: another is ``D^H H D`` for a diagonal ``D`` of unit phases)."""
    h = wide(outs[0])
    values = [np.abs(h), np.tril(h, -2)]
    if case.kwargs["calc_q"]:
        q = wide(outs[1])
        values += [q @ h @ _mH(q), _mH(q) @ q]
    return values


def _schur_invariants(outs, case):
    """``Z T Z^H`` and ``Z^H Z``, and the zero part of ``T``: below the diagonal for the
    complex form, below the subdiagonal for the real one (2x2 blocks)."""
    t, z = map(wide, outs)
    below = -1 if np.iscomplexobj(outs[0]) else -2
    return [z @ t @ _mH(z), _mH(z) @ z, np.tril(t, below)]


def _qr_multiply_invariants(outs, case):
    """'right': ``(c Q) R = c A`` (columns unpivoted); 'left': ``Q c`` where ``R``'s leading
    square fixes it (``Q c = A_p[:, :k] R_k^{-1} c``); ``R^H R`` in both."""
    outs = list(map(wide, outs))
    p = outs.pop().real.astype(np.int64) if case.kwargs["pivoting"] else None
    product, r = outs
    values = [_gram(r, p)]
    if case.kwargs["mode"] == "right":
        cqr = (product[None, :] if product.ndim == 1 else product) @ r
        values.append(cqr if p is None else _unpivot_columns(cqr, p))
    return values


def _tridiagonal_invariants(outs, case):
    if case.kwargs["eigvals_only"] or len(outs) == 1:
        return [wide(outs[0])]
    w, v = map(wide, outs)
    return [w, _mH(v) @ v]


def _first_only(outs, case):
    """funm's error estimate (``disp=False``) is the algorithm's own: only its shape, dtype
    and weak type are compared."""
    return [wide(outs[0])]


def _scipy_pascal(function):
    """SciPy's pascal or invpascal, whose ``kind`` has no None (jax's default)."""
    return lambda n, kind: function(n, kind or "symmetric")


def _unary(name):
    return lambda lib, *xs, **kw: _as_tuple(getattr(lib.linalg, name)(*xs, **kw))


# --------------------------------------------------------------------------------------------
# The table
# --------------------------------------------------------------------------------------------

_BOOL = st.booleans()

SCIPY_LINALG_OPS = (
    ScipyLinalgOp("solve_triangular", _triangular_system(), _unary("solve_triangular")),
    ScipyLinalgOp("cholesky", _one_matrix(hermitian=True, kwargs={"lower": _BOOL}),
                  _unary("cholesky")),
    ScipyLinalgOp("cho_factor", _one_matrix(hermitian=True, kwargs={"lower": _BOOL}),
                  _cho_factor),
    ScipyLinalgOp("cho_solve", _cholesky_solve(),
                  lambda lib, c, b, lower: (lib.linalg.cho_solve((c, lower), b),)),
    ScipyLinalgOp("lu_factor", _one_matrix(_ANY_SHAPE, cond=False), _unary("lu_factor"),
                  _lu_factor_product),
    ScipyLinalgOp("lu", _one_matrix(_ANY_SHAPE, cond=False, kwargs={"permute_l": _BOOL}),
                  _unary("lu"), _lu_product),
    ScipyLinalgOp("lu_solve", _lu_solve_system(),
                  lambda lib, lu, piv, b, trans: (lib.linalg.lu_solve((lu, piv), b, trans),)),
    ScipyLinalgOp("solve", _solve_system(), _unary("solve")),
    ScipyLinalgOp("inv", _one_matrix(), _unary("inv")),
    ScipyLinalgOp("det", _one_matrix(), _unary("det")),
    ScipyLinalgOp("eigh", _eigh_case(), _unary("eigh"), _eigh_invariants),
    ScipyLinalgOp("qr", _one_matrix(_ANY_SHAPE, cond=False, kwargs={
        "mode": st.sampled_from(("full", "economic", "r", "raw")), "pivoting": _BOOL}),
        _unary("qr"), _qr_invariants),
    ScipyLinalgOp("svd", _one_matrix(_ANY_SHAPE, cond=False, kwargs={
        "full_matrices": _BOOL, "compute_uv": _BOOL}), _unary("svd"), _svd_invariants),
    ScipyLinalgOp("hessenberg", _one_matrix(cond=False, kwargs={"calc_q": _BOOL}),
                  _unary("hessenberg"), _hessenberg_invariants),
    ScipyLinalgOp("expm", _expm_case(), _unary("expm")),
    ScipyLinalgOp("expm_frechet", _expm_case(frechet=True), _unary("expm_frechet")),
    ScipyLinalgOp("polar", _one_matrix(_ANY_SHAPE, kwargs={
        "side": st.sampled_from(("right", "left", "up")),
        "method": st.sampled_from(("qdwh", "svd", "newton"))}), _unary("polar")),
    ScipyLinalgOp("solve_sylvester", _sylvester_case(), _unary("solve_sylvester")),
    ScipyLinalgOp("schur", _one_matrix(_UNBATCHED_SQUARE, cond=False, kwargs={
        "output": st.sampled_from(("real", "complex", "r", "c", "other"))}),
        _unary("schur"), _schur_invariants),
    ScipyLinalgOp("rsf2csf", _rsf2csf_case(), _unary("rsf2csf"), _schur_invariants),
    ScipyLinalgOp("sqrtm", _sqrtm_case(), _unary("sqrtm")),
    ScipyLinalgOp("funm", _funm_case(),
                  lambda lib, a, func, disp: _as_tuple(
                      lib.linalg.funm(a, getattr(lib.np, func), disp=disp)), _first_only),
    ScipyLinalgOp("qr_multiply", _qr_multiply_case(), _unary("qr_multiply"),
                  _qr_multiply_invariants),
    ScipyLinalgOp("eigh_tridiagonal", _tridiagonal_case(), _unary("eigh_tridiagonal"),
                  _tridiagonal_invariants),
    # Special matrices.
    ScipyLinalgOp("toeplitz", _vectors(2, optional_last=True), _unary("toeplitz"),
                  check="exact"),
    ScipyLinalgOp("hankel", _vectors(2, optional_last=True), _unary("hankel"), check="exact"),
    ScipyLinalgOp("circulant", _vectors(1), _unary("circulant"), check="exact"),
    ScipyLinalgOp("companion", _vectors(1), _unary("companion"), check="ulps"),
    ScipyLinalgOp("fiedler", _vectors(1), _unary("fiedler"), check="exact"),
    ScipyLinalgOp("fiedler_companion", _vectors(1), _unary("fiedler_companion"),
                  check="ulps"),
    ScipyLinalgOp("leslie", _vectors(2, ((3,), (2,), (2, 3), (1,), ()))
                  , _unary("leslie"), check="exact"),
    ScipyLinalgOp("convolution_matrix", _vectors(1, ((0,), (1,), (3,), (2, 3)), kwargs={
        "n": st.sampled_from((0, 1, 2, 4)),
        "mode": st.sampled_from(("full", "same", "valid", "other"))}),
        _unary("convolution_matrix"), check="exact"),
    ScipyLinalgOp("block_diag", _block_diag_case(), _unary("block_diag"), check="exact"),
    ScipyLinalgOp("hilbert", _sizes(), _unary("hilbert"), check="ulps"),
    ScipyLinalgOp("invhilbert", _sizes((0, 1, 2, 4, 8, 15)), _unary("invhilbert"),
                  check="exact", exact_values=scipy.linalg.invhilbert),
    ScipyLinalgOp("pascal", _sizes((0, 1, 3, 6, 20), kwargs={
        "kind": st.sampled_from((None, "symmetric", "lower", "upper", "other"))}),
        _unary("pascal"), check="exact", exact_values=_scipy_pascal(scipy.linalg.pascal)),
    ScipyLinalgOp("invpascal", _sizes((0, 1, 3, 6, 20), kwargs={
        "kind": st.sampled_from((None, "symmetric", "lower", "upper", "other"))}),
        _unary("invpascal"), check="exact", exact_values=_scipy_pascal(scipy.linalg.invpascal)),
    ScipyLinalgOp("helmert", _sizes(kwargs={"full": _BOOL}), _unary("helmert"), check="ulps"),
    ScipyLinalgOp("hadamard", _sizes((0, 1, 2, 3, 4, 8), kwargs={
        "dtype": st.sampled_from((int, float, np.int8, np.float16, np.complex128, bool))}),
        _unary("hadamard"), check="exact"),
    ScipyLinalgOp("dft", _sizes(kwargs={
        "scale": st.sampled_from((None, "sqrtn", "n", "other")),
        "dtype": st.sampled_from((None, np.complex64, np.complex128, np.float32))}),
        _unary("dft"), check="ulps"),
)

# Public names of funcarray.scipy.linalg with no row in the table, and why.
EXCLUDED: dict[str, str] = {}


def test_every_scipy_linalg_function_is_in_the_table():
    """A function added to funcarray.scipy.linalg later must join SCIPY_LINALG_OPS (or
    EXCLUDED, with a reason) or this fails."""
    tested = {op.name for op in SCIPY_LINALG_OPS}
    assert not tested & set(EXCLUDED)
    assert set(fsl.__all__) == tested | set(EXCLUDED)
    public = {name for name in dir(fsl) if not name.startswith("_")
              and callable(getattr(fsl, name))
              and getattr(getattr(fsl, name), "__module__", "").startswith("funcarray.scipy")}
    assert public <= set(fsl.__all__)


# --------------------------------------------------------------------------------------------
# Running the three implementations
# --------------------------------------------------------------------------------------------


def _x64(case) -> bool:
    """jax runs with x64 on when an operand, the operands' promoted dtype, or the dtype
    asked for is 64-bit (and off for Python scalars, sizes and Python types alone: their
    defaults are 32-bit in funcarray)."""
    asked = case.kwargs.get("dtype")
    if asked not in (None, bool, int, float, complex) and np.dtype(asked) in BITS_64:
        return True
    arrays = [np.dtype(x.dtype) for x in case.operands if isinstance(x, np.ndarray)]
    if not arrays:
        return False
    with jax.enable_x64(True):  # block_diag's int8 and uint32 blocks promote to int64
        return bool(BITS_64.intersection(arrays)) or jnp.result_type(*arrays) in BITS_64


def _convert(case, asarray):
    return tuple(asarray(x) if isinstance(x, np.ndarray) else x for x in case.operands)


def _run_eager(op, case):
    return attempt(lambda: op.call(FUNCARRAY, *_convert(case, fnp.asarray), **case.kwargs),
                   True)


def _beyond_int32(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and not -2**31 <= x < 2**31


def _run_jit(op, case):
    """Operands are the jitted function's arguments, but Python ints beyond int32, which
    jit's boundary refuses (as jax.jit's does): the function closes over those."""
    operands = _convert(case, fnp.asarray)
    traced = [i for i, x in enumerate(operands) if not _beyond_int32(x)]

    def program(*xs):
        given = dict(zip(traced, xs))
        return op.call(FUNCARRAY, *(given.get(i, x) for i, x in enumerate(operands)),
                       **case.kwargs)

    return attempt(lambda: fa.jit(program)(*(operands[i] for i in traced)), True)


def _run_jax(op, case):
    with jax.enable_x64(_x64(case)):
        return attempt(lambda: op.call(JAX, *_convert(case, jnp.asarray), **case.kwargs), True)


# --------------------------------------------------------------------------------------------
# Comparison
# --------------------------------------------------------------------------------------------


def values_are_open(case, eps) -> bool:
    """Not finite, or too ill conditioned for the computing precision: only the kind of
    answer is compared."""
    return case.cond * eps > 1e-3


def _eps_of(outs) -> float:
    inexact = [o.dtype for o, _ in outs if kind_of(o.dtype) in "fc"]
    return float(dtypes.finfo(inexact[0]).eps) if inexact else 0.0


def _compare_values(op, case, where, got, want):
    g_outs, w_outs = [g for g, _ in got], [w for w, _ in want]
    eps = _eps_of(want)
    if op.exact_values is not None:
        w_outs = [np.asarray(op.exact_values(**case.kwargs), np.float64).astype(w_outs[0].dtype)]
    if op.check in ("exact", "ulps"):
        for k, (g, w) in enumerate(zip(g_outs, w_outs)):
            rounds = op.check == "ulps" or jax_convolves_complex_entries(op, w)
            slack = 8 * eps if rounds and kind_of(w.dtype) in "fc" else 0
            _assert_close(where, k, g, w, slack * _finite_max(w))
        return
    if values_are_open(case, eps):
        return
    g_vals = op.project(g_outs, case) if op.project else list(map(wide, g_outs))
    w_vals = op.project(w_outs, case) if op.project else list(map(wide, w_outs))
    for k, (g, w) in enumerate(zip(g_vals, w_vals)):
        _assert_close(where, k, g, w, 64 * eps * (case.cond + 1) * max(_finite_max(w), 1.0))


def _finite_max(w) -> float:
    """The largest finite magnitude in ``w`` (0 if none)."""
    magnitude = np.abs(wide(w))
    return float(np.max(magnitude[np.isfinite(magnitude)], initial=0.0))


# jax's special matrices whose entries go through a convolution (patches of the operand).
_JAX_CONVOLVES = frozenset({"toeplitz", "hankel", "convolution_matrix"})


def jax_convolution_spreads_non_finite(op, case) -> bool:
    """An infinity, NaN or subnormal in the operand of jax's toeplitz, hankel or
    convolution_matrix: each entry is a dot product of the operand with a patch of ones and
    zeros, so ``0 * nan`` poisons entries the value does not occupy (``hankel([0, 0, nan])``
    is all NaN), a complex ``0 + inf j`` becomes ``nan + inf j``, and the product flushes a
    subnormal to zero; funcarray's entries are copies (eager and jit), SciPy's values.
    Values are open there; the kind of answer is compared."""
    def unusual(x):
        x = np.asarray(x)
        return (not np.isfinite(x.astype(np.complex128)).all()
                or any(subnormal(p, x.dtype).any() for p in parts(x)))
    return op.name in _JAX_CONVOLVES and any(
        isinstance(x, (np.ndarray, float, complex)) and unusual(x) for x in case.operands)


def jax_convolves_complex_entries(op, w) -> bool:
    """jax's toeplitz, hankel and convolution_matrix of complex operands multiply each
    entry by 1 in a complex convolution whose three-product form rounds (``1 + 1e-5j``
    becomes ``1 + 1.00136e-5j`` in complex64); funcarray's copy the entries, as SciPy.
    Compared within ``8 * eps * max|jax|``."""
    return op.name in _JAX_CONVOLVES and kind_of(w.dtype) == "c"


def _assert_close(where, k, g, w, bound: float):
    assert g.shape == w.shape, f"{where}, value {k}: shape {g.shape}, jax {w.shape}"
    ok = np.ones(w.shape, bool)
    for gp, wp in zip(parts(wide(g)), parts(wide(w))):
        with np.errstate(invalid="ignore"):
            ok &= (gp == wp) | (np.isnan(gp) & np.isnan(wp)) | (np.abs(gp - wp) <= bound)
    assert ok.all(), f"{where}, value {k}:\n  got {g.tolist()}\n  jax {w.tolist()}"


# --------------------------------------------------------------------------------------------
# Allowances (docs/decisions.md, "scipy.linalg")
# --------------------------------------------------------------------------------------------

# jax refuses integer and bool operands here (a dtype check, or jvp's tangent rule in
# expm_frechet) where its expm, sqrtm, solve_sylvester, rsf2csf and qr_multiply take them.
_JAX_REFUSES_EXACT = frozenset({"hessenberg", "schur", "funm", "polar", "expm_frechet"})


def jax_refuses_exact_dtype(op, case, got, want) -> bool:
    """An integer or bool operand: funcarray computes in its inexact dtype, as every other
    function of its scipy.linalg and numpy.linalg does; jax's functions above raise (or,
    hessenberg of an empty matrix, return it in its own dtype)."""
    if op.name not in _JAX_REFUSES_EXACT or case.dtype is None or kind_of(case.dtype) not in "biu":
        return False
    if isinstance(got, Raised) or kind_of(got[0][0].dtype) not in "fc":
        return False
    return isinstance(want, Raised) or (want[0][0].size == 0 and want[0][0].dtype == case.dtype)


def jax_fails_on_empty_matrix(case, got, want) -> bool:
    """A 0 x 0 operand: jax's sqrtm, rsf2csf and solve_sylvester index its first element
    (IndexError); funcarray returns the empty result."""
    empty = any(isinstance(x, np.ndarray) and x.size == 0 for x in case.operands)
    return (empty and isinstance(want, Raised) and isinstance(want.exc, IndexError)
            and not isinstance(got, Raised))


# jax's functions that take one matrix where funcarray's take a stack, and jax's error.
_JAX_ONE_MATRIX = {"lu": "too many values to unpack", "sqrtm": "diag input must be 1d or 2d"}


def jax_refuses_a_stack(op, case, got, want) -> bool:
    """jax's scipy.linalg.lu unpacks ``m, n = a.shape`` and its sqrtm takes ``diag`` of a
    matrix (ValueErrors for a stack); funcarray's treat leading axes as batch axes, as its
    and jax's other functions (lu_factor, inv) do."""
    return (op.name in _JAX_ONE_MATRIX and case.operands[0].ndim > 2
            and isinstance(want, Raised) and _JAX_ONE_MATRIX[op.name] in str(want.exc)
            and not isinstance(got, Raised))


def eager_keeps_subnormals(case, what) -> bool:
    """An operand holding subnormals (in the precision XLA computes its dtype in): XLA
    flushes them to zero, in jax and in funcarray's jit; funcarray's eager results keep them
    (docs/decisions.md, "Subnormals are kept in eager results"), so the values that depend
    on them differ (``companion([0, 0, tiny])``: -inf eagerly, NaN in jax). Values are open
    there; the kind of answer is compared."""
    return what == "eager" and any(
        isinstance(x, np.ndarray) and kind_of(x.dtype) in "fc"
        and any(subnormal(p, x.dtype).any() for p in parts(x)) for x in case.operands)


def jax_qdwh_refuses_the_shape(op, case, want) -> bool:
    """jax's polar with method='qdwh' (its default) refuses side='right' with fewer rows
    than columns and side='left' with at least as many (square included):
    NotImplementedError. funcarray computes both methods from the SVD; the polar factors
    are unique, so jax is asked again with method='svd'."""
    return (op.name == "polar" and case.kwargs["method"] == "qdwh"
            and isinstance(want, Raised) and isinstance(want.exc, NotImplementedError))


def python_scalar_default_is_32_bit(case, got, want) -> bool:
    """A Python scalar's kind won the promotion with a 64-bit integer operand
    (``block_diag(int64 array, 0.0)``): jax's default float under x64 is float64,
    funcarray's is float32 without a switch (README, "Dtypes"). jax's values are then
    compared in funcarray's dtype."""
    scalars = any(isinstance(x, (float, complex)) for x in case.operands)
    return (scalars and _x64(case) and not isinstance(got, Raised)
            and not isinstance(want, Raised) and len(got) == len(want)
            and all(DEFAULT_32.get(w.dtype) == g.dtype for (g, _), (w, _) in zip(got, want)))


def _check_against_jax(op, case, what, got, want):
    where = f"{op.name}{case}, {what}"
    if python_scalar_default_is_32_bit(case, got, want):
        want = [(w.astype(g.dtype), weak) for (g, _), (w, weak) in zip(got, want)]
    if jax_refuses_a_stack(op, case, got, want):
        return
    if jax_qdwh_refuses_the_shape(op, case, want):
        want = _run_jax(op, dataclasses.replace(case, kwargs={**case.kwargs, "method": "svd"}))
    if case.dtype is not None and half_precision_lapack(case.dtype, got, want):
        return
    if jax_refuses_exact_dtype(op, case, got, want) or jax_fails_on_empty_matrix(case, got,
                                                                                 want):
        return
    if (same_kind_of_answer(where, got, want) and not eager_keeps_subnormals(case, what)
            and not jax_convolution_spreads_non_finite(op, case)):
        _compare_values(op, case, where, got, want)


def check_case(op, case):
    """Run ``case`` through funcarray eager, funcarray jit and jax, and compare."""
    want = _run_jax(op, case)
    for what, run in (("eager", _run_eager), ("jit", _run_jit)):
        _check_against_jax(op, case, what, run(op, case), want)


@pytest.mark.parametrize("op", SCIPY_LINALG_OPS, ids=lambda op: op.name)
@_EXAMPLES
@given(data=st.data())
def test_eager_and_jit_match_jax(op, data):
    check_case(op, data.draw(op.cases, label="case"))


_BY_NAME = {op.name: op for op in SCIPY_LINALG_OPS}

# Cases where funcarray differed from jax, each checked on every run.
REGRESSIONS = (
    # lu and lu_factor of a 0 x 0 matrix raised (reshape(-1, 0, 0) is ambiguous).
    ("lu_factor", Case((np.zeros((0, 0), np.float32),), {})),
    ("lu", Case((np.zeros((0, 0), bool),), {"permute_l": False})),
    # hadamard(2, dtype=bool) was all True (-1 has no bool value); jax raises.
    ("hadamard", Case((), {"n": 2, "dtype": bool}, "edge")),
    # fiedler_companion of a Python scalar was strong, toeplitz's and block_diag's weak.
    ("fiedler_companion", Case((0.0,), {}, "edge")),
    ("toeplitz", Case((0, 1.0), {}, "edge")),
    ("block_diag", Case((0, 1.0), {}, "edge")),
    # fiedler_companion of a Python int beyond int32 overflowed; jax makes it a weak float.
    ("fiedler_companion", Case((2**31,), {}, "edge")),
    # eigh_tridiagonal of one or no eigenvalue refused select='v'; jax returns them first.
    ("eigh_tridiagonal", Case((np.zeros(0, np.float32), np.zeros(0, np.float32)),
                              {"eigvals_only": False, "select": "v",
                               "select_range": (-1.0, 1.0)})),
    ("eigh_tridiagonal", Case((np.ones(1, np.float64), np.zeros(0, np.float64)),
                              {"eigvals_only": True, "select": "other"})),
    # A Python float beside a float64 block or vector was rounded to float32 first.
    ("block_diag", Case((np.array(0.0), 0.7896545237559689), {}, "edge")),
    ("leslie", Case((np.array([1.0, 2.0]), 0.7896545237559689), {}, "edge")),
    # A bool vector and a Python int meet in a weak int (jax's promote_dtypes): leslie's
    # result was strong.
    ("leslie", Case((np.array([False, False]), 0), {}, "edge")),
    # polar refused complex matrices.
    ("polar", Case((np.array([[1 + 2j, 3], [4j, 1], [1, -1j]], np.complex64),),
                   {"side": "right", "method": "svd"})),
    ("polar", Case((np.array([[1 + 2j, 3], [4j, 1]], np.complex128),),
                   {"side": "left", "method": "svd"}, cond=3.0)),
)


@pytest.mark.parametrize(("name", "case"), REGRESSIONS,
                         ids=[f"{name}-{i}" for i, (name, _) in enumerate(REGRESSIONS)])
def test_case_where_funcarray_differed_from_jax(name, case):
    check_case(_BY_NAME[name], case)


def test_special_matrices_copy_non_finite_entries():
    """funcarray's toeplitz and hankel place an operand's NaN and infinities where they
    belong, as SciPy (jax's convolution spreads them: jax_convolution_spreads_non_finite)."""
    c = np.array([0.0, 0.0, np.nan], np.float16)
    for name in ("toeplitz", "hankel"):
        got = np.asarray(getattr(fsl, name)(c))
        np.testing.assert_array_equal(got, getattr(scipy.linalg, name)(c))
        np.testing.assert_array_equal(np.asarray(fa.jit(getattr(fsl, name))(c)), got)
    x = np.array([1j * np.inf], np.complex64)
    np.testing.assert_array_equal(np.asarray(fsl.convolution_matrix(x, 1)), x[None, :])
