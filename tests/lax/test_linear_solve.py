"""Implicit differentiation (lax.custom_linear_solve, lax.custom_root) and linear_transpose:
against jax's same programs, closed forms and finite differences, under every transform."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import funcarray as fa
import funcarray.numpy as fnp
from funcarray import lax
from funcarray.testing import assert_allclose, check_grads


def _spd(n, seed):
    a = np.random.default_rng(seed).normal(size=(n, n))
    return a @ a.T + n * np.eye(n)


def solve_program(L, xp, symmetric=False):
    """sum(sin(A^-1 b)) through custom_linear_solve, with a direct solver."""
    def f(a, b):
        solve = lambda mv, r: xp.linalg.solve(a, r)  # noqa: E731
        transpose_solve = lambda vm, r: xp.linalg.solve(a.T, r)  # noqa: E731
        x = L.custom_linear_solve(lambda v: a @ v, b, solve,
                                  solve if symmetric else transpose_solve,
                                  symmetric=symmetric)
        return xp.sum(xp.sin(x))
    return f


@pytest.mark.parametrize("symmetric", [False, True])
def test_custom_linear_solve_matches_jax_under_transforms(symmetric):
    a = _spd(4, 0) if symmetric else _spd(4, 0) + np.triu(np.ones((4, 4)))
    b = np.random.default_rng(1).normal(size=4)
    ours, theirs = solve_program(lax, fnp, symmetric), solve_program(jax.lax, jnp, symmetric)
    fa_a, fa_b = fnp.asarray(a), fnp.asarray(b)
    assert_allclose(ours(fa_a, fa_b), theirs(a, b))
    want = jax.grad(theirs, argnums=(0, 1))(a, b)
    fa.tree.map(assert_allclose, fa.grad(ours, argnums=(0, 1))(fa_a, fa_b), want)
    fa.tree.map(assert_allclose, fa.jit(fa.grad(ours, argnums=(0, 1)))(fa_a, fa_b), want)
    assert_allclose(fa.jacfwd(ours, argnums=1)(fa_a, fa_b), jax.jacfwd(theirs, argnums=1)(a, b))
    assert_allclose(fa.hessian(ours, argnums=1)(fa_a, fa_b), jax.hessian(theirs, argnums=1)(a, b))
    # per-example gradients over a batch of right sides, and a batch of matrices
    bs = np.random.default_rng(2).normal(size=(3, 4))
    assert_allclose(fa.vmap(fa.grad(ours, argnums=1), in_axes=(None, 0))(fa_a, fnp.asarray(bs)),
                    jax.vmap(jax.grad(theirs, argnums=1), in_axes=(None, 0))(a, bs))
    as_ = np.stack([a, a + np.eye(4), 2 * a])
    assert_allclose(fa.vmap(fa.grad(ours), in_axes=(0, None))(fnp.asarray(as_), fa_b),
                    jax.vmap(jax.grad(theirs), in_axes=(0, None))(as_, b))
    check_grads(ours, (fa_a, fa_b), order=2)


def test_solver_iterations_are_not_differentiated():
    """A conjugate-gradient while_loop as the solver: reverse mode through while_loop is
    impossible, the implicit rule never needs it."""
    a, b = _spd(5, 3), np.random.default_rng(4).normal(size=5)

    def cg(matvec, r):
        def body(state):
            x, res, p, rs = state
            ap = matvec(p)
            alpha = rs / fnp.vdot(p, ap)
            x, res = x + alpha * p, res - alpha * ap
            rs_new = fnp.vdot(res, res)
            return x, res, res + (rs_new / rs) * p, rs_new
        state = (fnp.zeros_like(r), r, r, fnp.vdot(r, r))
        return lax.while_loop(lambda s: s[3] > 1e-20, body, state)[0]

    def f(a, b):
        return fnp.sum(lax.custom_linear_solve(lambda v: a @ v, b, cg, cg, symmetric=True) ** 2)

    got = fa.grad(f, argnums=(0, 1))(fnp.asarray(a), fnp.asarray(b))
    x = np.linalg.solve(a, b)
    lam = np.linalg.solve(a.T, 2 * x)  # adjoint: d/db = A^-T 2x, d/dA = -lam x^T
    assert_allclose(got[1], lam, rtol=1e-6)
    assert_allclose(got[0], -np.outer(lam, x), rtol=1e-6)


def test_pytree_right_side_and_aux():
    rng = np.random.default_rng(5)
    d1, d2 = rng.uniform(1, 2, size=3), rng.uniform(1, 2, size=2)
    b = {"u": rng.normal(size=3), "v": rng.normal(size=2)}

    def program(L, xp):
        def f(b):
            matvec = lambda x: {"u": d1 * x["u"], "v": d2 * x["v"]}  # noqa: E731
            solve = lambda mv, r: ({"u": r["u"] / d1, "v": r["v"] / d2}, xp.sum(r["u"]))  # noqa
            x, aux = L.custom_linear_solve(matvec, b, solve, solve, symmetric=True,
                                           has_aux=True)
            return xp.sum(x["u"] ** 2) + xp.sum(xp.cos(x["v"])) + 0.0 * aux, aux
        return f

    fa_b = fa.tree.map(fnp.asarray, b)
    got = fa.grad(program(lax, fnp), has_aux=True)(fa_b)
    want = jax.grad(program(jax.lax, jnp), has_aux=True)(b)
    fa.tree.map(assert_allclose, got, want)
    fa.tree.map(assert_allclose, fa.jit(fa.grad(program(lax, fnp), has_aux=True))(fa_b), want)


def test_custom_linear_solve_errors():
    a = fnp.asarray(_spd(3, 6))
    b = fnp.ones(3, dtype=np.float64)
    solve = lambda mv, r: fnp.linalg.solve(a, r)  # noqa: E731
    with pytest.raises(TypeError, match="needs transpose_solve"):
        fa.grad(lambda b: lax.custom_linear_solve(lambda x: a @ x, b, solve).sum())(b)
    # forward mode needs no transpose
    _, t = fa.jvp(lambda b: lax.custom_linear_solve(lambda x: a @ x, b, solve), (b,), (b,))
    assert_allclose(t, np.linalg.solve(np.asarray(a), np.ones(3)))
    with pytest.raises(TypeError, match="matvec must return a pytree with the structure and "
                                        "types of its input"):
        fa.grad(lambda b: lax.custom_linear_solve(lambda x: (a @ x)[:2], b, solve,
                                                  solve).sum())(b)
    with pytest.raises(TypeError, match="with has_aux=True, solve must return a pair"):
        fa.jit(lambda b: lax.custom_linear_solve(lambda x: a @ x, b, solve, solve,
                                                 has_aux=True))(b)


def sqrt_by_newton(L, xp):
    def sqrt(y):
        newton = lambda f, x0: L.fori_loop(0, 30, lambda i, x: x - f(x) / (2 * x), x0)  # noqa
        return L.custom_root(lambda x: x ** 2 - y, xp.ones_like(y), newton,
                             lambda g, t: t / g(1.0))
    return sqrt


def test_custom_root_scalar_derivatives():
    sqrt = sqrt_by_newton(lax, fnp)
    y = fnp.asarray(np.array(4.0))
    assert_allclose(sqrt(y), 2.0)
    assert_allclose(fa.grad(sqrt)(y), 0.25)  # 1 / (2 sqrt y)
    assert_allclose(fa.grad(fa.grad(sqrt))(y), -1 / 32)  # -1 / (4 y^1.5)
    assert_allclose(fa.jit(fa.grad(sqrt))(y), 0.25)
    ys = np.array([1.0, 4.0, 9.0])
    assert_allclose(fa.vmap(fa.grad(sqrt))(fnp.asarray(ys)), 0.5 / np.sqrt(ys))
    _, t = fa.jvp(sqrt, (y,), (fnp.asarray(np.array(2.0)),))
    assert_allclose(t, 0.5)


def test_custom_root_system_matches_jax():
    """A vector fixed point x = tanh(W x + u) (a tiny deep equilibrium layer), solved by
    fixed-point iteration, differentiated with respect to W and u; jax's custom_root on the
    same program is the oracle."""
    rng = np.random.default_rng(7)
    w, u = rng.normal(size=(3, 3)) * 0.3, rng.normal(size=3)

    def program(L, xp):
        def layer(w, u):
            f = lambda x: x - xp.tanh(w @ x + u)  # noqa: E731
            iterate = lambda f, x0: L.fori_loop(0, 100, lambda i, x: x - f(x), x0)  # noqa
            tangent_solve = lambda g, y: xp.linalg.solve(jax.jacobian(g)(y) if xp is jnp  # noqa
                                                         else fa.jacfwd(g)(y), y)
            return xp.sum(L.custom_root(f, xp.zeros_like(u), iterate, tangent_solve) ** 2)
        return layer

    want = jax.grad(program(jax.lax, jnp), argnums=(0, 1))(w, u)
    got = fa.grad(program(lax, fnp), argnums=(0, 1))(fnp.asarray(w), fnp.asarray(u))
    fa.tree.map(assert_allclose, got, want)
    check_grads(program(lax, fnp), (fnp.asarray(w), fnp.asarray(u)), order=1,
                modes=("fwd", "rev"))


def test_custom_root_has_aux():
    def sqrt_with_steps(y):
        def newton(f, x0):
            x = lax.fori_loop(0, 30, lambda i, x: x - f(x) / (2 * x), x0)
            return x, {"residual": f(x)}
        return lax.custom_root(lambda x: x ** 2 - y, fnp.ones_like(y), newton,
                               lambda g, t: t / g(1.0), has_aux=True)

    y = fnp.asarray(np.array(9.0))
    x, aux = sqrt_with_steps(y)
    assert_allclose(x, 3.0)
    assert abs(float(aux["residual"])) < 1e-12
    assert_allclose(fa.grad(lambda y: sqrt_with_steps(y)[0])(y), 1 / 6)


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 4), st.integers(1, 3), st.integers(0, 999))
def test_linear_transpose_matches_jax(n, m, seed):
    rng = np.random.default_rng(seed)
    a, c = rng.normal(size=(m, n)), rng.normal(size=(n,))

    def fun(xp):
        return lambda x, y: {"p": a @ x + 2.0 * y.sum(), "q": c * x - y[0]}

    x, y = rng.normal(size=n), rng.normal(size=2)
    ct = {"p": rng.normal(size=m), "q": rng.normal(size=n)}
    got = fa.linear_transpose(fun(fnp), fnp.asarray(x), fnp.asarray(y))(
        fa.tree.map(fnp.asarray, ct))
    want = jax.linear_transpose(fun(jnp), x, y)(ct)
    fa.tree.map(assert_allclose, got, want)
    # the transpose identity <ct, f(u)> = <f_t(ct), u>
    f = fun(fnp)(fnp.asarray(x), fnp.asarray(y))
    lhs = sum(float((np.asarray(f[k]) * ct[k]).sum()) for k in ct)
    rhs = float((np.asarray(got[0]) * x).sum() + (np.asarray(got[1]) * y).sum())
    assert abs(lhs - rhs) < 1e-8 * max(1.0, abs(lhs))


def test_linear_transpose_under_transforms_and_errors():
    a = fnp.asarray(np.arange(6.0).reshape(2, 3))
    f_t = fa.linear_transpose(lambda x: a @ x, fa.ShapeDtypeStruct((3,), np.float64))
    ones = fnp.ones(2, dtype=np.float64)
    assert_allclose(fa.jit(f_t)(ones), (np.arange(6.0).reshape(2, 3).T @ np.ones(2),))
    batched = fa.vmap(lambda ct: f_t(ct)[0])(fnp.eye(2, dtype=np.float64))
    assert_allclose(batched, np.arange(6.0).reshape(2, 3))
    with pytest.raises(TypeError, match="not linear in its inputs"):
        fa.linear_transpose(fnp.sin, fnp.ones(2))(fnp.ones(2))
    with pytest.raises(TypeError, match="inputs must be floating or complex"):
        fa.linear_transpose(lambda i: i * 2, fnp.ones(2, dtype=np.int32))
    with pytest.raises(TypeError, match=r"cotangent 0 has type float32\[3\]"):
        fa.linear_transpose(lambda x: 2.0 * x, fnp.ones(2))(fnp.ones(3))


def test_cg_matches_jax():
    from jax.scipy.sparse.linalg import cg as jax_cg

    from funcarray.scipy.sparse.linalg import cg

    a, b = _spd(6, 8), np.random.default_rng(9).normal(size=6)
    m = np.diag(1.0 / np.diag(a))  # a Jacobi preconditioner
    fa_a, fa_b = fnp.asarray(a), fnp.asarray(b)
    assert_allclose(cg(fa_a, fa_b)[0], np.linalg.solve(a, b), rtol=1e-5)
    assert cg(fa_a, fa_b)[1] is None
    for kwargs in [{}, {"M": m}, {"x0": np.ones(6)}, {"tol": 1e-10, "maxiter": 3}]:
        fa_kwargs = {k: fnp.asarray(v) if isinstance(v, np.ndarray) else v
                     for k, v in kwargs.items()}
        assert_allclose(cg(fa_a, fa_b, **fa_kwargs)[0], jax_cg(a, b, **kwargs)[0])

    def loss(solver, xp):
        return lambda a, b: xp.sum(xp.sin(solver(lambda v: a @ v, b, tol=1e-12)[0]))

    want = jax.grad(loss(jax_cg, jnp), argnums=(0, 1))(a, b)
    fa.tree.map(assert_allclose, fa.grad(loss(cg, fnp), argnums=(0, 1))(fa_a, fa_b), want)
    fa.tree.map(assert_allclose, fa.jit(fa.grad(loss(cg, fnp), argnums=(0, 1)))(fa_a, fa_b),
                want)
    bs = np.random.default_rng(10).normal(size=(3, 6))
    assert_allclose(fa.vmap(lambda r: cg(fa_a, r)[0])(fnp.asarray(bs)),
                    np.linalg.solve(a, bs.T).T, rtol=1e-5)
    # a pytree right side, the operator a function of the pytree
    tree_b = {"u": fa_b[:3], "v": fa_b[3:]}
    x, _ = cg(lambda t: {"u": 2.0 * t["u"], "v": 4.0 * t["v"]}, tree_b)
    assert_allclose(x["u"], b[:3] / 2.0, rtol=1e-6)
    assert_allclose(x["v"], b[3:] / 4.0, rtol=1e-6)
    with pytest.raises(ValueError, match="x0 and b must have the same tree structure"):
        cg(fa_a, fa_b, x0=tree_b)
    with pytest.raises(TypeError, match="A must be a function or a 2-d matrix"):
        cg(fnp.ones(3), fa_b)
