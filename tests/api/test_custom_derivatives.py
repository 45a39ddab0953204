"""custom_jvp, custom_vjp and checkpoint: against jax and finite differences, under every
transform and in every order with jit."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import funcarray as fa
import funcarray.numpy as fnp
from funcarray.api.custom_derivatives import SymbolicZero
from funcarray.primitives.elementwise import sin_p
from funcarray.testing import assert_allclose, check_grads, check_vmap
from funcarray.transforms.autodiff import linearize_flat
from funcarray.transforms.core import UnexpectedTracerError

RNG = np.random.default_rng(0)


def f64(*shape):
    return RNG.normal(size=shape)


def fd_grad(f, x, eps=1e-6):
    """Central finite-difference gradient of a scalar NumPy-valued function."""
    x = np.asarray(x, np.float64)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        g[i] = (float(f(fnp.asarray(x + e))) - float(f(fnp.asarray(x - e)))) / (2 * eps)
    return g


# --------------------------------------------------------------------------------------------
# The same functions in funcarray and in jax
# --------------------------------------------------------------------------------------------

def make_wrong_sin(xp, custom_jvp):
    """sin with a deliberately "wrong" derivative (3 cos x): shows the rule is used."""
    @custom_jvp
    def wrong_sin(x):
        return xp.sin(x)

    @wrong_sin.defjvp
    def _jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return wrong_sin(x), 3.0 * xp.cos(x) * t

    return wrong_sin


def make_log1pexp(xp, custom_jvp):
    @custom_jvp
    def log1pexp(x):
        return xp.log(1.0 + xp.exp(x))

    @log1pexp.defjvp
    def _jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return log1pexp(x), t * (1.0 - 1.0 / (1.0 + xp.exp(x)))

    return log1pexp


def make_scaled_vjp(xp, custom_vjp):
    """f(x, y) = sin(x) * y with a bwd that scales x's cotangent by 10."""
    @custom_vjp
    def f(x, y):
        return xp.sin(x) * y

    def fwd(x, y):
        return f(x, y), (xp.cos(x), xp.sin(x), y)

    def bwd(res, g):
        cos_x, sin_x, y = res
        return (10.0 * cos_x * y * g, sin_x * g)

    f.defvjp(fwd, bwd)
    return f


FA_WRONG_SIN = make_wrong_sin(fnp, fa.custom_jvp)
JAX_WRONG_SIN = make_wrong_sin(jnp, jax.custom_jvp)
FA_SCALED = make_scaled_vjp(fnp, fa.custom_vjp)
JAX_SCALED = make_scaled_vjp(jnp, jax.custom_vjp)


# --------------------------------------------------------------------------------------------
# custom_jvp
# --------------------------------------------------------------------------------------------

def test_custom_jvp_eager_call_runs_the_function():
    x = f64(3)
    assert_allclose(FA_WRONG_SIN(fnp.asarray(x)), np.sin(x))


def test_custom_jvp_rule_is_used_in_every_mode():
    x = f64(4)
    fx = fnp.asarray(x)
    expected = jax.grad(lambda x: JAX_WRONG_SIN(x).sum())(x)
    assert_allclose(expected, 3 * np.cos(x))
    assert_allclose(fa.grad(lambda x: FA_WRONG_SIN(x).sum())(fx), expected)
    _, t = fa.jvp(FA_WRONG_SIN, (fx,), (fnp.ones(4, dtype="float64"),))
    assert_allclose(t, 3 * np.cos(x))
    assert_allclose(fa.jacrev(FA_WRONG_SIN)(fx), np.diag(3 * np.cos(x)))
    assert_allclose(fa.jacfwd(FA_WRONG_SIN)(fx), np.diag(3 * np.cos(x)))


def test_log1pexp_stable_where_autodiff_is_nan():
    fa_f = make_log1pexp(fnp, fa.custom_jvp)
    x = fnp.asarray(np.array([0.0, 5.0, 1000.0]))
    plain = fa.vmap(fa.grad(lambda x: fnp.log(1.0 + fnp.exp(x))))(x)
    assert np.isnan(np.asarray(plain)[-1])
    stable = fa.vmap(fa.grad(fa_f))(x)
    jax_f = make_log1pexp(jnp, jax.custom_jvp)
    assert_allclose(stable, jax.vmap(jax.grad(jax_f))(np.asarray(x)))
    assert np.isfinite(np.asarray(stable)).all()


def test_custom_jvp_check_grads_and_grad_of_grad():
    fa_f = make_log1pexp(fnp, fa.custom_jvp)
    x = f64(3)
    check_grads(fa_f, (fnp.asarray(x),), order=2)
    sig = 1 / (1 + np.exp(-x))
    gg = fa.grad(lambda x: fa.grad(lambda y: fa_f(y).sum())(x).sum())(fnp.asarray(x))
    assert_allclose(gg, sig * (1 - sig))
    assert_allclose(fa.hessian(lambda x: fa_f(x).sum())(fnp.asarray(x)),
                    np.diag(sig * (1 - sig)))
    # the second derivative differentiates the (wrong) rule: d(3 cos x) = -3 sin x
    assert_allclose(fa.hessian(lambda x: FA_WRONG_SIN(x).sum())(fnp.asarray(x)),
                    np.diag(-3 * np.sin(x)))


def make_pytree_fn(xp, custom_jvp):
    @custom_jvp
    def f(params, x):
        return {"y": params["w"] * xp.sin(x), "z": (params["b"] + x, xp.sum(x))}

    @f.defjvp
    def _jvp(primals, tangents):
        (p, x), (tp, tx) = primals, tangents
        out = f(p, x)
        t_y = tp["w"] * xp.sin(x) + p["w"] * xp.cos(x) * tx
        return out, {"y": t_y, "z": (tp["b"] + 2.0 * tx, xp.sum(tx))}

    return f


def test_custom_jvp_pytrees_match_jax():
    fa_f, jax_f = make_pytree_fn(fnp, fa.custom_jvp), make_pytree_fn(jnp, jax.custom_jvp)
    p = {"w": f64(3), "b": f64(3)}
    x = f64(3)

    def loss(f, xp):
        return lambda p, x: xp.sum(f(p, x)["y"] * f(p, x)["z"][0]) + f(p, x)["z"][1]

    got = fa.grad(loss(fa_f, fnp), argnums=(0, 1))(fa.tree.map(fnp.asarray, p), fnp.asarray(x))
    want = jax.grad(loss(jax_f, jnp), argnums=(0, 1))(p, x)
    fa.tree.map(assert_allclose, got, want)


def test_custom_jvp_nondiff_argnums_matches_jax():
    def make(xp, custom_jvp):
        @custom_jvp
        def app(f, x):
            return f(x)

        app = custom_jvp(app.fun, nondiff_argnums=(0,))

        @app.defjvp
        def _jvp(f, primals, tangents):
            (x,), (t,) = primals, tangents
            return f(x), 5.0 * t
        return app

    fa_app, jax_app = make(fnp, fa.custom_jvp), make(jnp, jax.custom_jvp)
    x = f64(3)
    got = fa.grad(lambda x: fa_app(fnp.sin, x).sum())(fnp.asarray(x))
    want = jax.grad(lambda x: jax_app(jnp.sin, x).sum())(x)
    assert_allclose(got, want)
    assert_allclose(got, np.full(3, 5.0))
    assert_allclose(fa.jit(fa.grad(lambda x: fa_app(fnp.sin, x).sum()))(fnp.asarray(x)), want)


@pytest.mark.parametrize("call", ["positional", "keyword", "default"])
def test_parameter_defaults_reach_the_rules_like_jax(call):
    """Arguments left to their defaults are filled in before the rules run (JAX binds the
    signature): the rules always see every argument."""
    def make(lib):
        @lib.custom_jvp
        def f(x, y=3.0):
            return x * y

        f.defjvp(lambda p, t: (p[0] * p[1], t[0] * p[1] + t[1] * p[0]))

        @lib.custom_vjp
        def g(x, y=3.0):
            return x * y

        g.defvjp(lambda x, y=3.0: (x * y, (x, y)), lambda r, ct: (ct * r[1], ct * r[0]))
        h = lib.checkpoint(lambda x, y=3.0: lib.numpy.sin(x) * y)
        return f, g, h

    def calls(fun):
        return {"positional": lambda x: fun(x, 2.0), "keyword": lambda x: fun(x, y=2.0),
                "default": lambda x: fun(x)}[call]

    for mine, theirs in zip(make(fa), make(jax)):
        for x in (1.5, -0.5):
            got = fa.grad(calls(mine))(x)
            with jax.enable_x64(False):  # Python floats are float32 (weak) in funcarray
                want, want_value = jax.grad(calls(theirs))(x), calls(theirs)(x)
            assert_allclose(got, want, rtol=1e-6)
            assert_allclose(calls(mine)(x), want_value, rtol=1e-6)


def test_custom_jvp_symbolic_zeros():
    seen = []

    @fa.custom_jvp
    def f(x, y):
        return x * y

    @f.defjvp
    def _jvp(primals, tangents):
        (x, y), (tx, ty) = primals, tangents
        seen.append((type(tx), type(ty)))
        t = 0.0 * x
        if not isinstance(tx, SymbolicZero):
            t = t + tx * y
        if not isinstance(ty, SymbolicZero):
            t = t + x * ty
        return f(x, y), t

    f.defjvp(_jvp, symbolic_zeros=True)
    x, y = fnp.asarray(f64(2)), fnp.asarray(f64(2))
    g = fa.grad(lambda x: f(x, y).sum())(x)
    assert_allclose(g, y)
    assert seen[-1][1] is SymbolicZero and seen[-1][0] is not SymbolicZero
    # Without symbolic_zeros the rule sees instantiated zeros.
    f.defjvp(_jvp)
    fa.grad(lambda y: f(x, y).sum())(y)
    assert SymbolicZero not in seen[-1]


def test_custom_jvp_defjvps_matches_jax():
    def make(xp, custom_jvp):
        @custom_jvp
        def f(x, y):
            return xp.sin(x) * y
        f.defjvps(lambda t, ans, x, y: xp.cos(x) * y * t, lambda t, ans, x, y: 7.0 * t)
        return f

    fa_f, jax_f = make(fnp, fa.custom_jvp), make(jnp, jax.custom_jvp)
    x, y = f64(3), f64(3)
    got = fa.grad(lambda x, y: fa_f(x, y).sum(), argnums=(0, 1))(fnp.asarray(x), fnp.asarray(y))
    want = jax.grad(lambda x, y: jax_f(x, y).sum(), argnums=(0, 1))(x, y)
    fa.tree.map(assert_allclose, got, want)


def test_custom_jvp_closures_over_outer_tracers():
    x0 = fnp.asarray(f64(3))

    def outer(c):
        @fa.custom_jvp
        def f(x):
            return c * fnp.sin(x)

        @f.defjvp
        def _jvp(primals, tangents):
            (x,), (t,) = primals, tangents
            return f(x), c * fnp.cos(x) * t

        return fa.grad(lambda x: f(x).sum())(x0).sum()

    # d/dc sum(c cos x0) = sum(cos x0), through the rule's own computation
    assert_allclose(fa.grad(outer)(fnp.asarray(2.0, dtype="float64")), np.cos(x0).sum())
    # closing over a vmap tracer, differentiated inside the vmap
    cs = fnp.asarray(f64(4))
    got = fa.vmap(lambda c: fa.grad(lambda x: (c * FA_WRONG_SIN(x)).sum())(x0))(cs)
    assert_allclose(got, 3 * np.cos(x0)[None, :] * np.asarray(cs)[:, None])
    # closing over jit tracers, differentiated inside the jit
    assert_allclose(fa.jit(outer)(fnp.asarray(2.0, dtype="float64")),
                    2 * np.cos(x0).sum())


def test_custom_jvp_closing_over_differentiated_value_errors():
    def loss(c):
        @fa.custom_jvp
        def f(x):
            return c * x

        f.defjvp(lambda p, t: (f(p[0]), 10.0 * c * t[0]))
        return f(fnp.asarray(3.0)) + f(c)

    with pytest.raises(UnexpectedTracerError, match="closes over a value that is being"):
        fa.grad(loss)(fnp.asarray(2.0))

    def closure_only(c):
        @fa.custom_jvp
        def f(x):
            return c * x

        f.defjvp(lambda p, t: (f(p[0]), 10.0 * c * t[0]))
        return f(fnp.asarray(3.0))

    # Only the closed-over value is differentiated: plain autodiff of the body, d(3c)/dc.
    assert_allclose(fa.grad(closure_only)(fnp.asarray(2.0)), 3.0)


@pytest.mark.parametrize("in_axes", [0, 1, -1, (0, None), (None, 1)])
def test_custom_jvp_vmap_matches_loop(in_axes):
    def f(x, y):
        return FA_WRONG_SIN(x) * y

    x, y = fnp.asarray(f64(3, 3)), fnp.asarray(f64(3, 3))
    check_vmap(f, (x, y), in_axes=in_axes)
    check_vmap(fa.grad(lambda x, y: f(x, y).sum()), (x, y), in_axes=in_axes)


@given(st.integers(1, 4), st.sampled_from(["vmap_grad", "grad_vmap", "jit_vmap_grad",
                                           "vmap_jit_grad", "grad_jit_vmap"]))
def test_custom_jvp_compositions_with_jit_and_vmap(n, order):
    x = RNG.normal(size=(n, 2))
    want = 3 * np.cos(x)
    loss = (lambda x: FA_WRONG_SIN(x).sum())
    fx = fnp.asarray(x)
    if order == "vmap_grad":
        got = fa.vmap(fa.grad(loss))(fx)
    elif order == "grad_vmap":
        got = fa.grad(lambda x: fa.vmap(loss)(x).sum())(fx)
    elif order == "jit_vmap_grad":
        got = fa.jit(fa.vmap(fa.grad(loss)))(fx)
    elif order == "vmap_jit_grad":
        got = fa.vmap(fa.jit(fa.grad(loss)))(fx)
    else:
        got = fa.grad(fa.jit(lambda x: fa.vmap(loss)(x).sum()))(fx)
    assert_allclose(got, want)


def test_custom_jvp_jit_orders():
    x = f64(3)
    want = jax.grad(lambda x: JAX_WRONG_SIN(x).sum())(x)
    loss = lambda x: FA_WRONG_SIN(x).sum()  # noqa: E731
    fx = fnp.asarray(x)
    for fn in (fa.jit(fa.grad(loss)), fa.grad(fa.jit(loss)), fa.jit(fa.grad(fa.jit(loss))),
               fa.grad(lambda x: fa.jit(FA_WRONG_SIN)(x).sum())):
        assert_allclose(fn(fx), want)
    assert_allclose(fa.jit(FA_WRONG_SIN)(fx), np.sin(x))
    assert "custom_jvp_call" in str(fa.make_ir(FA_WRONG_SIN)(fx))


def test_custom_jvp_rule_errors():
    @fa.custom_jvp
    def f(x):
        return fnp.sin(x)

    f.defjvp(lambda p, t: (f(p[0]), t[0][:1]))
    with pytest.raises(TypeError, match="tangent output leaf 0 of type float64\\[1\\]"):
        fa.grad(lambda x: f(x).sum())(fnp.asarray(f64(3)))
    f.defjvp(lambda p, t: (f(p[0]), t[0].astype("float32")))
    with pytest.raises(TypeError, match="shape and dtype"):
        fa.jvp(f, (fnp.asarray(f64(3)),), (fnp.asarray(f64(3)),))
    f.defjvp(lambda p, t: (f(p[0]), (t[0], t[0])))
    with pytest.raises(TypeError, match="structure"):
        fa.grad(lambda x: f(x).sum())(fnp.asarray(f64(3)))
    f.defjvp(lambda p, t: f(p[0]))
    with pytest.raises(TypeError, match="must return a pair"):
        fa.grad(lambda x: f(x)[0])(fnp.asarray(f64(2)))
    f.defjvp(lambda p, t: (p[0][:1], t[0][:1]))
    # A rule whose primal output is not the function's: seen when the function is staged
    # (differentiating a jit of it); a grad meeting the call runs the rule only and follows
    # it, as jax does.
    with pytest.raises(TypeError, match="primal output"):
        fa.grad(fa.jit(lambda x: f(x).sum()))(fnp.asarray(f64(3)))
    jf = jax.custom_jvp(jnp.sin)
    jf.defjvp(lambda p, t: (p[0][:1], t[0][:1]))
    assert_allclose(fa.grad(lambda x: f(x).sum())(fnp.asarray(f64(3))),
                    jax.grad(lambda x: jf(x).sum())(jnp.asarray(f64(3))))
    with pytest.raises(AttributeError, match="No JVP defined"):
        fa.custom_jvp(fnp.sin)(fnp.ones(2))


# --------------------------------------------------------------------------------------------
# custom_vjp
# --------------------------------------------------------------------------------------------

def test_custom_vjp_rule_is_used_and_matches_jax():
    x, y = f64(3), f64(3)
    fx, fy = fnp.asarray(x), fnp.asarray(y)
    assert_allclose(FA_SCALED(fx, fy), np.sin(x) * y)
    want = jax.grad(lambda x, y: JAX_SCALED(x, y).sum(), argnums=(0, 1))(x, y)
    got = fa.grad(lambda x, y: FA_SCALED(x, y).sum(), argnums=(0, 1))(fx, fy)
    fa.tree.map(assert_allclose, got, want)
    assert_allclose(got[0], 10 * np.cos(x) * y)
    assert_allclose(fa.jacrev(FA_SCALED)(fx, fy), jax.jacrev(JAX_SCALED)(x, y))


def test_custom_vjp_correct_rule_matches_finite_differences():
    @fa.custom_vjp
    def f(x):
        return fnp.tanh(x) ** 2

    def fwd(x):
        t = fnp.tanh(x)
        return t ** 2, t

    f.defvjp(fwd, lambda t, g: (2 * t * (1 - t ** 2) * g,))
    x = f64(4)
    loss = lambda x: f(x).sum()  # noqa: E731
    assert_allclose(fa.grad(loss)(fnp.asarray(x)), fd_grad(loss, x), rtol=1e-6, atol=1e-8)
    # second order: the bwd rule is itself differentiated
    g_sum = lambda x: fa.grad(loss)(x).sum()  # noqa: E731
    assert_allclose(fa.grad(g_sum)(fnp.asarray(x)), fd_grad(g_sum, x), rtol=1e-5, atol=1e-7)
    assert_allclose(fa.hessian(loss)(fnp.asarray(x)), np.diag(fd_grad(g_sum, x)), rtol=1e-5,
                    atol=1e-7)


def test_custom_vjp_pytrees_nondiff_and_none_cotangents():
    def make(xp, custom_vjp):
        def f(scale, params, n):
            return {"out": scale(params["a"]) * params["b"] + 0 * n}

        f = custom_vjp(f, nondiff_argnums=(0,))

        def fwd(scale, params, n):
            return f(scale, params, n), (params["a"], params["b"])

        def bwd(scale, res, g):
            a, b = res
            return ({"a": None, "b": scale(a) * g["out"] * 2.0}, None)

        f.defvjp(fwd, bwd)
        return f

    fa_f, jax_f = make(fnp, fa.custom_vjp), make(jnp, jax.custom_vjp)
    p = {"a": f64(3), "b": f64(3)}
    n = np.arange(3, dtype=np.int32)
    got = fa.grad(lambda p: fa_f(fnp.exp, p, fnp.asarray(n))["out"].sum())(
        fa.tree.map(fnp.asarray, p))
    want = jax.grad(lambda p: jax_f(jnp.exp, p, n)["out"].sum())(p)
    fa.tree.map(assert_allclose, got, want)
    assert_allclose(got["a"], np.zeros(3))


@pytest.mark.parametrize("cotangent", ["mirrors a None argument", "None for a subtree"])
def test_custom_vjp_none_cotangents_match_the_argument_tree_like_jax(cotangent):
    """A None in the bwd output may mirror an argument's None (an empty subtree) or stand for
    a whole subtree of zero cotangents, as in JAX."""
    def make(custom_vjp):
        @custom_vjp
        def f(p):
            return p["a"]["x"] * 2.0 + p["c"]

        def bwd(_, g):
            if cotangent == "mirrors a None argument":
                return ({"a": {"x": g * 2.0, "y": None}, "b": None, "c": g},)
            return ({"a": None, "b": None, "c": g},)

        f.defvjp(lambda p: (f(p), None), bwd)
        return f

    p = {"a": {"x": np.ones(2), "y": np.ones(1)}, "b": None, "c": np.full(2, 3.0)}
    got = fa.grad(lambda p: make(fa.custom_vjp)(p).sum())(fa.tree.map(fnp.asarray, p))
    want = jax.grad(lambda p: make(jax.custom_vjp)(p).sum())(p)
    assert fa.tree.structure(got) == fa.tree.structure(want)
    fa.tree.map(assert_allclose, got, want)
    with pytest.raises(TypeError, match="returned a cotangent of structure"):
        bad = fa.custom_vjp(lambda p: p["c"] * 2.0)
        bad.defvjp(lambda p: (bad(p), None), lambda _, g: ({"a": g, "b": None, "c": g},))
        fa.grad(lambda p: bad(p).sum())(fa.tree.map(fnp.asarray, p))


def test_custom_vjp_integer_input_gets_no_cotangent():
    @fa.custom_vjp
    def f(x, k):
        return x * k

    f.defvjp(lambda x, k: (f(x, k), k), lambda k, g: (g * k, fnp.ones(3)))
    x, k = fnp.asarray(f64(3)), fnp.asarray(np.array([1, 2, 3], np.int64))
    gx, gk = fa.grad(lambda x, k: f(x, k).sum(), argnums=(0, 1), allow_int=True)(x, k)
    assert_allclose(gx, [1.0, 2.0, 3.0])
    assert gk.dtype == fa.dtypes.float0 and gk.shape == (3,)  # JAX's float0 zeros


@pytest.mark.parametrize("order", ["vmap_grad", "grad_vmap", "jit_grad", "grad_jit",
                                   "vmap_jit_grad", "jit_vmap_grad", "grad_jit_jit"])
def test_custom_vjp_compositions(order):
    x, y = f64(4, 2), f64(4, 2)
    want = jax.vmap(jax.grad(lambda x, y: JAX_SCALED(x, y).sum()))(x, y)
    loss = lambda x, y: FA_SCALED(x, y).sum()  # noqa: E731
    fx, fy = fnp.asarray(x), fnp.asarray(y)
    if order == "vmap_grad":
        got = fa.vmap(fa.grad(loss))(fx, fy)
    elif order == "grad_vmap":
        got = fa.grad(lambda x, y: fa.vmap(loss)(x, y).sum())(fx, fy)
    elif order == "jit_grad":
        got = fa.jit(fa.vmap(fa.grad(loss)))(fx, fy)
    elif order == "grad_jit":
        got = fa.grad(fa.jit(lambda x, y: fa.vmap(loss)(x, y).sum()))(fx, fy)
    elif order == "vmap_jit_grad":
        got = fa.vmap(fa.jit(fa.grad(loss)))(fx, fy)
    elif order == "jit_vmap_grad":
        got = fa.jit(fa.vmap(fa.grad(fa.jit(loss))))(fx, fy)
    else:
        got = fa.grad(fa.jit(lambda x, y: fa.jit(loss)(x, y)))(fx, fy)
    assert_allclose(got, want)


def test_custom_vjp_vmap_matches_loop():
    x, y = fnp.asarray(f64(3, 2)), fnp.asarray(f64(2))
    check_vmap(FA_SCALED, (x, y), in_axes=(0, None))
    check_vmap(fa.grad(lambda x, y: FA_SCALED(x, y).sum()), (x, fnp.asarray(f64(3))),
               in_axes=(1, None))


def test_custom_vjp_closure_over_outer_tracer():
    x0 = fnp.asarray(f64(3))

    def outer(c):
        @fa.custom_vjp
        def f(x):
            return c * fnp.sin(x)

        f.defvjp(lambda x: (f(x), fnp.cos(x)), lambda cos_x, g: (c * cos_x * g,))
        return fa.grad(lambda x: f(x).sum())(x0).sum()

    assert_allclose(fa.grad(outer)(fnp.asarray(2.0, dtype="float64")), np.cos(x0).sum())
    assert_allclose(fa.jit(outer)(fnp.asarray(2.0, dtype="float64")), 2 * np.cos(x0).sum())


def test_custom_vjp_forward_mode_errors():
    x = fnp.asarray(f64(3))
    with pytest.raises(TypeError, match="can't apply forward-mode autodiff"):
        fa.jvp(FA_SCALED, (x, x), (x, x))
    with pytest.raises(TypeError, match="can't apply forward-mode autodiff"):
        fa.jacfwd(FA_SCALED)(x, x)
    with pytest.raises(TypeError, match="can't apply forward-mode autodiff"):
        fa.jit(lambda x: fa.jvp(FA_SCALED, (x, x), (x, x)))(x)


def test_custom_vjp_rule_errors():
    x = fnp.asarray(f64(3))

    def run(fwd, bwd, staged=False):
        @fa.custom_vjp
        def f(x, y):
            return x * y
        f.defvjp(fwd, bwd)
        loss = lambda x: f(x, x).sum()  # noqa: E731
        return fa.grad(fa.jit(loss) if staged else loss)(x)

    good_fwd = lambda x, y: (x * y, (x, y))  # noqa: E731
    with pytest.raises(TypeError, match="one cotangent per differentiable argument \\(2\\)"):
        run(good_fwd, lambda r, g: (g,))
    with pytest.raises(TypeError, match="cotangent of type float64\\[2\\] for argument leaf 1"):
        run(good_fwd, lambda r, g: (g, g[:2]))
    with pytest.raises(TypeError, match="must return a pair"):
        run(lambda x, y: x * y, lambda r, g: (g, g))
    # fwd's output against the function's: checked where the function is staged (a grad of
    # its jit); a grad meeting the call unstaged finds the mismatch in bwd, as jax does.
    bad_fwd = lambda x, y: ((x * y)[:1], None)  # noqa: E731
    with pytest.raises(TypeError, match="output leaf 0 of type float64\\[1\\]"):
        run(bad_fwd, lambda r, g: (g, g), staged=True)
    with pytest.raises(TypeError, match="cotangent of type float64\\[1\\] for argument leaf 0"):
        run(bad_fwd, lambda r, g: (g, g))
    with pytest.raises(UnexpectedTracerError, match="custom_vjp function"):
        def closes(c):
            @fa.custom_vjp
            def f(x):
                return c * x
            f.defvjp(lambda x: (f(x), None), lambda r, g: (g,))
            return f(c * x).sum()
        fa.grad(closes)(fnp.asarray(2.0))
    with pytest.raises(AttributeError, match="No VJP defined"):
        fa.custom_vjp(fnp.sin)(x)


# --------------------------------------------------------------------------------------------
# checkpoint / remat
# --------------------------------------------------------------------------------------------

def chain(xp):
    def f(x, w):
        for _ in range(3):
            x = xp.sin(x * w)
        return {"y": x, "s": xp.sum(x)}
    return f


def test_checkpoint_grads_match_jax_and_finite_differences():
    x, w = f64(3), f64(3)
    fa_f, jax_f = fa.checkpoint(chain(fnp)), jax.checkpoint(chain(jnp))
    assert fa.remat is fa.checkpoint
    got = fa.grad(lambda x, w: fa_f(x, w)["s"], argnums=(0, 1))(fnp.asarray(x), fnp.asarray(w))
    want = jax.grad(lambda x, w: jax_f(x, w)["s"], argnums=(0, 1))(x, w)
    fa.tree.map(assert_allclose, got, want)
    check_grads(lambda x, w: fa_f(x, w)["y"], (fnp.asarray(x), fnp.asarray(w)), order=2)
    plain = chain(fnp)  # same maths without remat (its derivatives are tested elsewhere)
    assert_allclose(fa.hessian(lambda x: fa_f(x, fnp.asarray(w))["s"])(fnp.asarray(x)),
                    fa.hessian(lambda x: plain(x, fnp.asarray(w))["s"])(fnp.asarray(x)))


def test_checkpoint_saves_only_inputs_and_recomputes():
    x = fnp.asarray(f64(3))
    plain = lambda x: [fnp.sin(fnp.sin(x))]  # noqa: E731
    _, lin_plain, _ = linearize_flat(plain, [x])
    _, lin_ckpt, _ = linearize_flat(lambda x: [fa.checkpoint(plain)(x)[0]], [x])
    # Without remat the residuals are cos(x), cos(sin x); with it, only x itself.
    assert len(lin_plain.consts) == 2
    assert len(lin_ckpt.consts) == 1 and lin_ckpt.consts[0] is x
    (eqn,) = lin_ckpt.ir.eqns
    assert eqn.prim.name == "checkpoint"
    assert [e.prim.name for e in eqn.params["call"].eqns].count("sin") == 1
    # everything_saveable: no recomputation, residuals saved as for plain code
    saving = fa.checkpoint(plain, policy=fa.checkpoint_policies.everything_saveable)
    _, lin_save, _ = linearize_flat(lambda x: [saving(x)[0]], [x])
    assert len(lin_save.consts) == 2


def test_checkpoint_recomputes_in_the_backward_pass(monkeypatch):
    calls = []
    impl = sin_p.impl
    monkeypatch.setattr(sin_p, "impl", lambda *a, **k: calls.append(1) or impl(*a, **k))
    x = fnp.asarray(f64(3))
    f = lambda x: fnp.sin(fnp.sin(x)).sum()  # noqa: E731
    g_plain = fa.grad(f)(x)
    n_plain = len(calls)
    calls.clear()
    g_ckpt = fa.grad(fa.checkpoint(f))(x)
    assert_allclose(g_ckpt, g_plain)
    # forward: sin twice; backward: sin(x) again (cos(sin x) needs it), sin(sin x) is unused
    assert n_plain == 2 and len(calls) == 3


@pytest.mark.parametrize("order", ["grad_ckpt", "jit_grad_ckpt", "grad_jit_ckpt",
                                   "vmap_grad_ckpt", "grad_vmap_ckpt", "ckpt_grad",
                                   "grad_ckpt_jit", "jit_grad_jit_ckpt"])
def test_checkpoint_compositions(order):
    x, w = f64(4, 3), f64(3)
    jf = jax.checkpoint(chain(jnp))
    want = jax.vmap(jax.grad(lambda x: jf(x, w)["s"]))(x)
    f = fa.checkpoint(chain(fnp))
    fw = fnp.asarray(w)
    loss = lambda x: f(x, fw)["s"]  # noqa: E731
    fx = fnp.asarray(x)
    ck = fa.checkpoint
    orders = {
        "grad_ckpt": lambda: fa.vmap(fa.grad(loss))(fx),
        "jit_grad_ckpt": lambda: fa.jit(fa.vmap(fa.grad(loss)))(fx),
        "grad_jit_ckpt": lambda: fa.vmap(fa.grad(fa.jit(loss)))(fx),
        "vmap_grad_ckpt": lambda: fa.vmap(fa.grad(loss))(fx),
        "grad_vmap_ckpt": lambda: fa.grad(lambda x: fa.vmap(loss)(x).sum())(fx),
        "ckpt_grad": lambda: fa.vmap(ck(fa.grad(lambda x: chain(fnp)(x, fw)["s"])))(fx),
        "grad_ckpt_jit": lambda: fa.vmap(fa.grad(ck(fa.jit(lambda x: chain(fnp)(x, fw)["s"]))))(
            fx),
        "jit_grad_jit_ckpt": lambda: fa.jit(fa.vmap(fa.grad(fa.jit(loss))))(fx),
    }
    assert_allclose(orders[order](), want)


def test_checkpoint_under_jit_lowers_with_barrier_and_jvp():
    f = fa.checkpoint(lambda x: fnp.sin(fnp.sin(x)))
    x = fnp.asarray(f64(3))
    g = fa.jit(fa.grad(lambda x: f(x).sum()))
    assert "optimization_barrier" in g.lower(x).as_text()
    assert_allclose(g(x), jax.grad(lambda x: jnp.sin(jnp.sin(x)).sum())(np.asarray(x)))
    _, t = fa.jvp(f, (x,), (fnp.ones_like(x),))
    assert_allclose(t, np.cos(np.sin(np.asarray(x))) * np.cos(np.asarray(x)))
    check_vmap(f, (fnp.asarray(f64(2, 3)),), in_axes=1)


def test_checkpoint_static_argnums_closures_and_policy_type_error():
    x = fnp.asarray(f64(3))

    def f(x, n):
        for _ in range(n):
            x = fnp.sin(x)
        return x

    g = fa.grad(lambda x: fa.checkpoint(f, static_argnums=(1,))(x, 2).sum())(x)
    assert_allclose(g, jax.grad(lambda x: jnp.sin(jnp.sin(x)).sum())(np.asarray(x)))
    # differentiating a closed-over value goes through the checkpointed body
    c = fnp.asarray(1.5, dtype="float64")
    gc = fa.grad(lambda c: fa.checkpoint(lambda x: fnp.sin(c * x))(x).sum())(c)
    assert_allclose(gc, (np.cos(1.5 * np.asarray(x)) * np.asarray(x)).sum())
    with pytest.raises(TypeError, match="policy must be None or a callable"):
        fa.checkpoint(f, policy="dots_saveable")


def test_argnames_options_match_jax():
    """checkpoint's static_argnames and custom_jvp/custom_vjp's nondiff_argnames name the
    arguments JAX's argnums options would give by position."""
    import functools

    def repeat(xp):
        def f(x, n):
            for _ in range(n):
                x = xp.sin(x)
            return x
        return f

    x = f64(3)
    want = jax.grad(lambda x: repeat(jnp)(x, 2).sum())(x)  # (jax's own fails with n=2 here)
    got = fa.grad(lambda x: fa.checkpoint(repeat(fnp), static_argnames="n")(x, n=2).sum())(
        fnp.asarray(x))
    assert_allclose(got, want)
    with pytest.raises(ValueError, match="static_argnames names 'm'.*parameters: \\['x', 'n'\\]"):
        fa.checkpoint(repeat(fnp), static_argnames="m")

    def scaled(lib, xp):
        @functools.partial(lib.custom_jvp, nondiff_argnames=("scale",))
        def g(x, scale):
            return xp.sin(x) * scale

        @g.defjvp
        def g_jvp(scale, primals, tangents):  # a deliberately different rule: 10x
            return g(primals[0], scale), xp.cos(primals[0]) * scale * tangents[0] * 10
        return g

    def vjp_scaled(lib, xp):
        @functools.partial(lib.custom_vjp, nondiff_argnames=("scale",))
        def g(x, scale):
            return xp.sin(x) * scale
        g.defvjp(lambda x, scale: (g(x, scale), x),
                 lambda scale, x, ct: (xp.cos(x) * scale * ct * 10,))
        return g

    for make in (scaled, vjp_scaled):
        ours, theirs = make(fa, fnp), make(jax, jnp)
        assert_allclose(fa.grad(lambda x: ours(x, scale=2.0).sum())(fnp.asarray(x)),
                        jax.grad(lambda x: theirs(x, scale=2.0).sum())(x))
        assert_allclose(fa.grad(lambda x: ours(x, 2.0).sum())(fnp.asarray(x)),
                        jax.grad(lambda x: theirs(x, 2.0).sum())(x))
