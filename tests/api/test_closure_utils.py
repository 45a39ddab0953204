"""jacobian, closure_convert, custom_gradient, named_call and ensure_compile_time_eval:
against jax's same programs."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import funcarray as fa
import funcarray.numpy as fnp
from funcarray.testing import assert_allclose


def test_jacobian_is_jacrev():
    x = np.array([0.3, -1.2, 2.0])
    f = lambda xp: lambda v: xp.sin(v) * v[::-1]  # noqa: E731
    assert fa.jacobian is fa.jacrev
    assert_allclose(fa.jacobian(f(fnp))(fnp.asarray(x)), jax.jacobian(f(jnp))(x))


def test_custom_gradient_matches_jax():
    def make(lib, xp):
        @lib.custom_gradient
        def clipped(x, y):
            value = xp.sin(x) * y
            return value, lambda g: (xp.clip(g * xp.cos(x) * y, -0.5, 0.5), g * xp.sin(x))
        return clipped

    x, y = np.array([0.1, 1.0, 2.5]), np.array([3.0, -2.0, 0.5])
    ours, theirs = make(fa, fnp), make(jax, jnp)
    assert_allclose(ours(fnp.asarray(x), fnp.asarray(y)), theirs(x, y))
    loss = lambda f: lambda a, b: f(a, b).sum()  # noqa: E731
    want = jax.grad(loss(theirs), argnums=(0, 1))(x, y)
    got = fa.grad(loss(ours), argnums=(0, 1))(fnp.asarray(x), fnp.asarray(y))
    fa.tree.map(assert_allclose, got, want)
    got_jit = fa.jit(fa.grad(loss(ours), argnums=(0, 1)))(fnp.asarray(x), fnp.asarray(y))
    fa.tree.map(assert_allclose, got_jit, want)
    per_row = fa.vmap(fa.grad(lambda a, b: ours(a, b).sum()))(fnp.asarray(np.stack([x, x])),
                                                           fnp.asarray(np.stack([y, y])))
    assert_allclose(per_row, np.stack([want[0], want[0]]))


def test_closure_convert_lets_custom_vjp_differentiate_a_closure():
    """JAX's documented use: hoist what a function closes over so a custom_vjp can give
    it a cotangent."""
    def outer(xp, lib):
        def loss(w, x):
            f = lambda v: xp.tanh(w * v)  # noqa: E731  (closes over w)
            closed, consts = lib.closure_convert(f, x)

            @lib.custom_vjp
            def apply(v, *cs):
                return closed(v, *cs)

            def fwd(v, *cs):
                return closed(v, *cs), (v, *cs)

            apply.defvjp(fwd, lambda res, g: lib.vjp(closed, *res)[1](g))
            return apply(x, *consts).sum()
        return loss

    w, x = np.float64(0.7), np.array([0.5, -1.0, 2.0])
    want = jax.grad(outer(jnp, jax), argnums=(0, 1))(w, x)
    got = fa.grad(outer(fnp, fa), argnums=(0, 1))(fnp.asarray(w), fnp.asarray(x))
    fa.tree.map(assert_allclose, got, want)


def test_named_call_and_ensure_compile_time_eval():
    f = fa.named_call(lambda x: x * 2, name="double")
    assert f.__name__ == "double"
    assert_allclose(fa.jit(fa.grad(lambda x: f(x).sum()))(fnp.ones(3)), np.full(3, 2, np.float32))

    @fa.jit
    def g(x):
        with fa.ensure_compile_time_eval():
            n = int(fnp.arange(5).sum())  # concrete while tracing
            table = fnp.asarray([1.0, 2.0]) * 3  # computed now, not staged
        return x * n + table

    assert_allclose(g(fnp.ones(2)), [13.0, 16.0])
    assert "mul" not in str(fa.make_ir(lambda x: g(x))(fnp.ones(2))).split("jit[")[0]
    with pytest.raises(fa.transforms.core.ConcretizationError):
        fa.jit(lambda x: int(fnp.arange(5).sum()) * x)(fnp.ones(2))
