"""Differential test of ``funcarray.scipy.sparse.linalg`` (``cg``) against
``jax.scipy.sparse.linalg``: funcarray eager, funcarray jit and jax on the same system must
agree on whether they raise, and otherwise on the solution's shape, dtype and weak type, and
on its values.

Systems: ``A`` Hermitian positive definite of every dtype (0 x 0 to 4 x 4, singular: a
repeated row and column, or with an infinity or a NaN), given as a matrix or as a function
``v -> A v``; ``b`` a vector or a Python list; ``x0`` absent, zeros or random; ``tol``,
``atol``, ``maxiter`` (one step included) and a Jacobi preconditioner ``M``. Both run the
same iteration, so their iterates differ by rounding alone: a converged solution (or the
first iterate) may differ by ``64 * eps * cond(A) * max(|x|, 1)`` on top of the tolerance's
own ``cond(A) * max(tol |b|, atol)``. Values of singular or non-finite systems are open.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import jax.scipy.sparse.linalg as jssl
import numpy as np
import pytest
from differential_compare import BITS_64, Raised, attempt, parts, same_kind_of_answer
from differential_matrices import condition, matrices, wide
from hypothesis import given, settings
from hypothesis import strategies as st
from op_table import ALL_DTYPES

import funcarray as fa
import funcarray.numpy as fnp
import funcarray.scipy.sparse.linalg as fssl
from funcarray import dtypes

# Each example compiles a funcarray program and a jax one (a while_loop): 24 examples keep
# the file within about 10 s on 2 idle cores (the thorough profile scales the count).
_EXAMPLES = settings(max_examples=24)

TESTED = ("cg",)


def test_every_sparse_linalg_function_is_in_the_table():
    """A solver added to funcarray.scipy.sparse.linalg later (jax also has gmres and
    bicgstab) must join TESTED or this fails."""
    assert set(fssl.__all__) == set(TESTED)


@dataclasses.dataclass(frozen=True)
class Case:
    a: np.ndarray
    b: object
    x0: np.ndarray | None
    m: np.ndarray | None
    kwargs: dict
    operator: str
    values: str

    def __repr__(self):
        def shown(x):
            return (f"np.array({x.tolist()!r}, {x.dtype.name!r}).reshape({x.shape})"
                    if isinstance(x, np.ndarray) else repr(x))
        return (f"(A={shown(self.a)} as a {self.operator}, b={shown(self.b)}, "
                f"x0={shown(self.x0)}, M={shown(self.m)}, **{self.kwargs!r}) [{self.values}]")


@st.composite
def cases(draw):
    dtype = draw(st.sampled_from(ALL_DTYPES), label="dtype")
    n = draw(st.sampled_from((0, 1, 3, 4)), label="n")
    values = draw(st.sampled_from(("regular",) * 4 + ("singular", "inf", "nan")), label="values")
    a = draw(matrices(dtype, (n, n), values, hermitian=True), label="A")
    b = draw(matrices(dtype, (n,), "regular"), label="b")
    if draw(st.integers(0, 5), label="b as a list?") == 0:
        b = b.tolist()
    x0 = draw(st.sampled_from((None, None, "zeros", "random")), label="x0")
    if x0 is not None:
        x0 = (np.zeros(n, dtype) if x0 == "zeros"
              else draw(matrices(dtype, (n,), "regular"), label="x0 values"))
    m = None
    if draw(st.booleans(), label="preconditioned") and n and np.isfinite(wide(a)).all():
        with np.errstate(all="ignore"):
            m = np.diag(1 / np.diagonal(wide(a))).astype(dtype)
    kwargs = {"tol": draw(st.sampled_from((1e-5, 1e-5, 1e-10, 0.0)), label="tol"),
              "atol": draw(st.sampled_from((0.0, 0.0, 1e-3)), label="atol"),
              "maxiter": draw(st.sampled_from((None, None, 1, 50)), label="maxiter")}
    operator = draw(st.sampled_from(("matrix", "function")), label="A as")
    return Case(a, b, x0, m, kwargs, operator, values)


def _call(cg, np_, case, a, b, x0, m):
    operator = a if case.operator == "matrix" else (lambda v: np_.matmul(a, v))
    x, info = cg(operator, b, x0, M=m, **case.kwargs)
    if info is not None:
        raise AssertionError(f"cg's info is {info!r}, not None")
    return x


def _operands(case, asarray):
    def convert(x):
        return asarray(x) if isinstance(x, np.ndarray) else x
    return convert(case.a), convert(case.b), convert(case.x0), convert(case.m)


def _run_eager(case):
    return attempt(lambda: _call(fssl.cg, fnp, case, *_operands(case, fnp.asarray)), False)


def _run_jit(case):
    def program(a, b, x0, m):
        return _call(fssl.cg, fnp, case, a, b, x0, m)
    return attempt(lambda: fa.jit(program)(*_operands(case, fnp.asarray)), False)


def _run_jax(case):
    with jax.enable_x64(np.dtype(case.a.dtype) in BITS_64):
        return attempt(lambda: _call(jssl.cg, jnp, case, *_operands(case, jnp.asarray)), False)


def _check_against_jax(case, what, got, want):
    where = f"cg{case}, {what}"
    if not same_kind_of_answer(where, got, want):
        return
    g, w = got[0][0], want[0][0]
    if case.values != "regular" or w.dtype.kind not in "fc":
        return
    eps = float(dtypes.finfo(w.dtype).eps)
    cond = float(condition(case.a.astype(w.dtype))) if case.a.size else 1.0
    if cond * eps > 1e-3:
        return
    b_norm = float(np.linalg.norm(wide(np.asarray(case.b))))
    residual = max(case.kwargs["tol"] * b_norm, case.kwargs["atol"])
    scale = max(float(np.max(np.abs(wide(w)), initial=0.0)), 1.0)
    bound = cond * 2 * residual + 64 * eps * cond * scale
    ok = np.ones(w.shape, bool)
    for gp, wp in zip(parts(wide(g)), parts(wide(w))):
        ok &= (gp == wp) | (np.abs(gp - wp) <= bound)
    assert ok.all(), f"{where}:\n  got {g.tolist()}\n  jax {w.tolist()}"


def check_case(case):
    """Run ``case`` through funcarray eager, funcarray jit and jax, and compare."""
    want = _run_jax(case)
    for what, run in (("eager", _run_eager), ("jit", _run_jit)):
        _check_against_jax(case, what, run(case), want)


@_EXAMPLES
@given(case=cases())
def test_cg_eager_and_jit_match_jax(case):
    check_case(case)


@pytest.mark.parametrize("operator", ["matrix", "function"])
def test_cg_of_a_float64_system_matches_jax(operator):
    """A fixed well-conditioned float64 system, both operator forms: the solutions agree to
    the bound above (a floor under the drawn examples)."""
    rng = np.random.default_rng(0)
    a = rng.uniform(-1, 1, (4, 4))
    a = a @ a.T + 4 * np.eye(4)
    case = Case(a, rng.uniform(-1, 1, 4), None, None,
                {"tol": 1e-12, "atol": 0.0, "maxiter": None}, operator, "regular")
    check_case(case)


@pytest.mark.parametrize("dtype", [np.int32, np.bool_])
def test_cg_of_an_integer_system_raises_as_jax(dtype):
    """Integer iterates truncated every step (cg([[2]], [1]) gave 0) and bool gave int32:
    both raise now, as jax does."""
    case = Case(np.array([[2]], dtype), np.array([1], dtype), None, None,
                {"tol": 1e-5, "atol": 0.0, "maxiter": None}, "matrix", "regular")
    check_case(case)
    assert isinstance(_run_eager(case), Raised)
