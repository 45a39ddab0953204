"""funcarray.lax control flow: cond, switch, while_loop (also bounded by max_steps), fori_loop,
scan, map, associative_scan, select_n.

Each construct is compared with a Python reference and with jax.lax, eagerly and under jit,
under grad (finite differences and jax.grad), vmap (batched and unbatched predicates and
operands) and their compositions.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from helpers import assert_same
from hypothesis import given
from hypothesis import strategies as st

import funcarray as fa
import funcarray.numpy as fnp
from funcarray import lax
from funcarray.testing import assert_allclose, check_grads, check_vmap

RNG = np.random.default_rng(0)


def rand(*shape):
    return fnp.asarray(RNG.standard_normal(shape))  # float64


def close(a, b, tol=1e-10):
    assert_allclose(a, b, rtol=tol, atol=tol)


# --------------------------------------------------------------------------------------------
# cond / switch
# --------------------------------------------------------------------------------------------

def f_cond(x, y):
    return lax.cond(x.sum() > 0, lambda a, b: fnp.sin(a) * b, lambda a, b: a - fnp.cos(b), x, y)


def j_cond(x, y):
    return jax.lax.cond(x.sum() > 0, lambda a, b: jnp.sin(a) * b, lambda a, b: a - jnp.cos(b),
                        x, y)


def py_cond(x, y):
    x, y = np.asarray(x), np.asarray(y)
    return np.sin(x) * y if x.sum() > 0 else x - np.cos(y)


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_cond_eager_jit_grad_vs_jax(sign):
    x, y = fnp.abs(rand(3)) * sign, rand(3)
    for fn in (f_cond, fa.jit(f_cond)):
        close(fn(x, y), py_cond(x, y))
    loss = lambda x, y: (f_cond(x, y) ** 2).sum()  # noqa: E731
    jloss = lambda x, y: (j_cond(x, y) ** 2).sum()  # noqa: E731
    want = jax.grad(jloss, (0, 1))(np.asarray(x), np.asarray(y))
    for g in (fa.grad(loss, (0, 1)), fa.jit(fa.grad(loss, (0, 1))), fa.grad(fa.jit(loss), (0, 1))):
        got = g(x, y)
        close(got[0], want[0])
        close(got[1], want[1])
    check_grads(f_cond, (x, y), order=2)
    check_grads(fa.jit(f_cond), (x, y), order=1)


def test_cond_closure_and_pytrees():
    w = rand(3)

    def f(x, p):
        out = lax.cond(p, lambda d: {"a": d["x"] * w, "b": 2.0},
                       lambda d: {"a": d["x"] + w, "b": d["s"]}, {"x": x, "s": x.sum()})
        return out["a"].sum() * out["b"]

    x = rand(3)
    for p in (True, False):
        ref = f(x, p)
        close(fa.jit(f)(x, p), ref, 1e-6)
        jw = np.asarray(w)
        jf = lambda x: (lambda o: o["a"].sum() * o["b"])(jax.lax.cond(  # noqa: E731
            p, lambda d: {"a": d["x"] * jw, "b": 2.0},
            lambda d: {"a": d["x"] + jw, "b": d["s"]}, {"x": x, "s": x.sum()}))
        close(fa.grad(f)(x, p), jax.grad(jf)(np.asarray(x)))
        close(fa.jit(fa.grad(f))(x, p), jax.grad(jf)(np.asarray(x)))
    # The closed-over value is differentiated too.
    g = fa.grad(lambda w_: lax.cond(True, lambda: (w_ * w_).sum(), lambda: w_.sum()))(w)
    close(g, 2 * np.asarray(w))


def test_cond_vmap_batched_and_unbatched_predicate():
    xs, ys = rand(5, 3), rand(5, 3)
    want = np.stack([py_cond(a, b) for a, b in zip(xs, ys)])
    close(fa.vmap(f_cond)(xs, ys), want)
    close(fa.jit(fa.vmap(f_cond))(xs, ys), want)
    check_vmap(f_cond, (xs, ys), in_axes=(0, 0))
    check_vmap(f_cond, (xs[0], ys), in_axes=(None, 0))  # unbatched predicate
    check_vmap(f_cond, (xs.T, ys), in_axes=(1, 0))
    # vmap of grad and grad of vmap, against jax.
    jl = lambda x, y: (j_cond(x, y) ** 2).sum()  # noqa: E731
    fl = lambda x, y: (f_cond(x, y) ** 2).sum()  # noqa: E731
    want = jax.vmap(jax.grad(jl))(np.asarray(xs), np.asarray(ys))
    close(fa.vmap(fa.grad(fl))(xs, ys), want)
    close(fa.jit(fa.vmap(fa.grad(fl)))(xs, ys), want)
    want = jax.grad(lambda x, y: jax.vmap(jl)(x, y).sum())(np.asarray(xs), np.asarray(ys))
    close(fa.grad(lambda x, y: fa.vmap(fl)(x, y).sum())(xs, ys), want)


def test_cond_integer_outputs_and_jvp_instantiation():
    # One branch's output does not depend on the input: its tangent is instantiated as zeros.
    def f(x):
        out, n = lax.cond(x > 1.0, lambda v: (v * 3.0, 1), lambda v: (fnp.ones_like(v), 2), x)
        return out * n

    for v in (0.5, 2.0):
        x = fnp.array(v)
        jf = lambda x: (lambda o: o[0] * o[1])(jax.lax.cond(  # noqa: E731
            x > 1.0, lambda v: (v * 3.0, 1), lambda v: (jnp.ones_like(v), 2), x))
        with jax.enable_x64(False):  # Python floats are float32 (weak) in funcarray
            grad, jvp, hessian = jax.grad(jf)(v), jax.jvp(jf, (v,), (1.0,))[1], \
                jax.hessian(jf)(v)
        close(fa.grad(f)(x), grad)
        close(fa.jit(fa.grad(f))(x), grad)
        close(fa.jvp(f, (x,), (fnp.array(1.0),))[1], jvp)
        close(fa.jit(fa.hessian(f))(x), hessian)
    check_vmap(f, (fnp.array([0.5, 1.5, 3.0]),))


def test_cond_pred_types():
    assert lax.cond(3, lambda: 1, lambda: 2) == 1  # nonzero integer: true
    close(fa.jit(lambda p: lax.cond(p, lambda: 1.0, lambda: 2.0))(0), 2.0)
    with pytest.raises(TypeError, match="boolean or integer"):
        lax.cond(1.0, lambda: 1, lambda: 2)
    with pytest.raises(TypeError, match="scalar"):
        lax.cond(fnp.ones(2) > 0, lambda: 1, lambda: 2)


def test_cond_branch_type_errors():
    x = fnp.ones(3)
    with pytest.raises(TypeError,
                       match=r"output\[1\] is float32\[2\] in false_fun and float32\[3\] in tr"):
        fa.jit(lambda x: lax.cond(True, lambda v: (v, v), lambda v: (v, v[:2]), x))(x)
    with pytest.raises(TypeError, match="same pytree structure"):
        fa.jit(lambda x: lax.cond(True, lambda v: (v, v), lambda v: v, x))(x)
    with pytest.raises(TypeError, match=r"is float32\[3\] in false_fun and int32\[3\] in true_fun"):
        fa.jit(lambda x: lax.cond(True, lambda v: v.astype("int32"), lambda v: v, x))(x)
    # A Python scalar output adopts the other branch's dtype (weak typing).
    out = fa.jit(lambda x: lax.cond(x > 0, lambda v: v, lambda v: 0.0, x))(fnp.float64(-1.0))
    assert out.dtype == np.float64 and not out.weak_type
    out = lax.cond(False, lambda: fnp.complex64(1j), lambda: 2)
    assert out.dtype == np.complex64 and complex(out) == 2


@pytest.mark.parametrize("weak, strong", [
    (lambda: 2.7, lambda: fnp.int32(0)),  # would truncate to 2
    (lambda: 300, lambda: fnp.uint8(0)),  # would wrap to 44
    (lambda: -2.7, lambda: fnp.uint8(0)),
    (lambda: 1j, lambda: fnp.float32(0)),  # would drop the imaginary part
])
@pytest.mark.parametrize("jit", [False, True])
def test_cond_refuses_python_scalars_that_would_change_kind(weak, strong, jit):
    """As in JAX, a weakly typed branch output only adopts another branch's dtype when no
    value can change: a float or int into a float dtype, anything into complex."""
    for pred in (True, False):
        f = lambda p: lax.cond(p, weak, strong)  # noqa: E731
        with pytest.raises(TypeError, match="Python scalar only adopts a float or complex"):
            (fa.jit(f) if jit else f)(pred)
        g = lambda i: lax.switch(i, [strong, weak])  # noqa: E731
        with pytest.raises(TypeError, match="same types"):
            (fa.jit(g) if jit else g)(int(pred))
        with pytest.raises(TypeError, match="equal output types"):
            jax.lax.cond(pred, weak, lambda: np.asarray(strong()))  # the oracle agrees


def test_switch_clamps_and_matches_jax():
    branches = [lambda x: x + 1.0, lambda x: fnp.sin(x) * 10.0, lambda x: -(x ** 2)]
    jbranches = [lambda x: x + 1.0, lambda x: jnp.sin(x) * 10.0, lambda x: -(x ** 2)]
    x = rand(4)
    for i in (-3, 0, 1, 2, 7):
        want = jax.lax.switch(i, jbranches, np.asarray(x))
        close(lax.switch(i, branches, x), want)
        close(fa.jit(lambda i, x: lax.switch(i, branches, x))(i, x), want)
        close(fa.grad(lambda x: lax.switch(i, branches, x).sum())(x),
              jax.grad(lambda x: jax.lax.switch(i, jbranches, x).sum())(np.asarray(x)))
    idx = fnp.array([-1, 0, 1, 2, 9])
    xs = rand(5)
    want = jax.vmap(lambda i, x: jax.lax.switch(i, jbranches, x))(np.asarray(idx), np.asarray(xs))
    close(fa.vmap(lambda i, x: lax.switch(i, branches, x))(idx, xs), want)
    want = jax.vmap(jax.grad(lambda x, i: jax.lax.switch(i, jbranches, x)))(
        np.asarray(xs), np.asarray(idx))
    close(fa.jit(fa.vmap(fa.grad(lambda x, i: lax.switch(i, branches, x))))(xs, idx), want)
    assert lax.switch(5, [lambda: 3]) == 3
    with pytest.raises(TypeError, match="integer"):
        lax.switch(1.0, branches, x)


def test_cond_eager_runs_python():
    seen = []

    def true_fun(x):
        seen.append(float(x))  # concrete value: Python works inside the branch
        return x * 2

    assert float(lax.cond(True, true_fun, lambda x: x, fnp.array(3.0))) == 6.0
    assert seen == [3.0]


def test_eager_cond_and_switch_check_and_type_like_jit():
    """Eagerly only the chosen branch runs on values, yet the result has the types jit gives
    and the branch errors jit raises appear even when the faulty branch is not chosen."""
    x = fnp.ones(2)
    for pred in (True, False):
        f = lambda x, p=pred: lax.cond(p, lambda x: x.sum(), lambda x: 0, x)  # noqa: E731
        eager, jitted = f(x), fa.jit(f)(x)
        assert (eager.dtype, eager.weak_type) == (jitted.dtype, jitted.weak_type) == (
            np.float32, False)
        assert float(eager) == float(jitted)
    for pred in (True, False):
        with pytest.raises(TypeError, match=r"same types.*float32\[1\].*float32\[2\]"):
            lax.cond(pred, lambda x: x * 2.0, lambda x: x[:1], x)
        with pytest.raises(TypeError, match="same pytree structure"):
            lax.cond(pred, lambda x: (x, x), lambda x: x, x)
    with pytest.raises(TypeError, match="same types"):
        lax.switch(0, [lambda x: x, lambda x: x, lambda x: x.sum()], x)
    out = lax.switch(2, [lambda x: x.sum(), lambda x: 1, lambda x: 2], x)
    assert out.dtype == np.float32 and not out.weak_type and float(out) == 2.0


_BRANCH_OUTPUTS = {
    "weak int": lambda x: 3,
    "weak float": lambda x: 2.5,
    "f32 scalar": lambda x: x.sum(),
    "f64 scalar": lambda x: x.sum().astype(fnp.float64),
    "i32 scalar": lambda x: fnp.int32(7),
    "f32 vector": lambda x: x * 2.0,
    "pair": lambda x: (x.sum(), 1.0),
}


@given(st.sampled_from(sorted(_BRANCH_OUTPUTS)), st.sampled_from(sorted(_BRANCH_OUTPUTS)),
       st.booleans())
def test_eager_cond_agrees_with_jit_on_every_branch_type_pair(false_kind, true_kind, pred):
    """For any two branch output types, eager cond returns what jit returns (dtype,
    weak_type, value) or raises the same kind of error."""
    f = lambda p, x: lax.cond(p, _BRANCH_OUTPUTS[true_kind],  # noqa: E731
                              _BRANCH_OUTPUTS[false_kind], x)
    x = fnp.arange(3.0)
    outcomes = []
    for fn in (f, fa.jit(f)):
        try:
            out = fn(pred, x)
        except TypeError as exc:
            outcomes.append(("error", "same types" in str(exc) or "same pytree" in str(exc)))
            continue
        outcomes.append([(np.asarray(o).tolist(), o.dtype, o.weak_type)
                         for o in fa.tree.leaves(out)])
    assert outcomes[0] == outcomes[1], (false_kind, true_kind, pred)


def test_eager_cond_stages_other_branches_once_and_allows_python_on_values():
    traced = []

    def other(x):
        traced.append(type(x).__name__)
        return x - 1.0

    for i in range(5):
        out = lax.cond(True, lambda x: x * 2.0, other, fnp.full(3, float(i)))
        np.testing.assert_array_equal(np.asarray(out), np.full(3, 2.0 * i))
    assert len(traced) == 1  # staged (on a tracer) for the first call only: cached
    lax.cond(True, lambda x: x * 2.0, other, fnp.ones(4))  # new operand type: staged again
    assert len(traced) == 2 and traced[0] != "Array"

    class Model:  # branches that are bound methods: the instance is part of the cache key
        def __init__(self, w):
            self.w = w

        def scaled(self, x):
            return x * self.w

    def run(model):  # one call site: the same branch code objects for both models
        return lax.cond(False, model.scaled, lambda x: x, fnp.ones(2))

    for _ in range(20):  # a freed model's address is often reused by the next one:
        assert run(Model(fnp.float32(2.0))).dtype == np.float32  # its types must not be
        with pytest.raises(TypeError, match="same types"):  # taken for the new model's
            run(Model(fnp.float64(2.0)))

    def needs_values(x):  # Python control flow on values: fine eagerly, cannot be staged
        return x if float(x.sum()) > 0 else -x

    assert float(lax.cond(True, lambda x: x, needs_values, fnp.float32(3.0))) == 3.0
    assert float(lax.cond(False, lambda x: x, needs_values, fnp.float32(-3.0))) == 3.0


def test_cond_lowering_is_case():
    text = fa.jit(f_cond).lower(rand(3), rand(3)).as_text()
    assert "stablehlo.case" in text


# --------------------------------------------------------------------------------------------
# while_loop / fori_loop
# --------------------------------------------------------------------------------------------

def f_while(x, n):
    def body(c):
        i, v = c
        return i + 1, fnp.sin(v) + x

    return lax.while_loop(lambda c: c[0] < n, body, (0, x))[1]


def j_while(x, n):
    def body(c):
        i, v = c
        return i + 1, jnp.sin(v) + x

    return jax.lax.while_loop(lambda c: c[0] < n, body, (0, x))[1]


def py_while(x, n):
    x = np.asarray(x)
    v = x
    for _ in range(int(n)):
        v = np.sin(v) + x
    return v


def test_while_eager_jit_jvp_vs_jax():
    x = rand(3)
    for n in (0, 1, 4):
        close(f_while(x, n), py_while(x, n))
        close(fa.jit(f_while)(x, n), py_while(x, n))
        t = rand(3)
        want = jax.jvp(lambda x: j_while(x, n), (np.asarray(x),), (np.asarray(t),))
        for fn in (lambda x, t: fa.jvp(lambda x: f_while(x, n), (x,), (t,)),
                   fa.jit(lambda x, t: fa.jvp(lambda x: f_while(x, n), (x,), (t,)))):
            got = fn(x, t)
            close(got[0], want[0])
            close(got[1], want[1])
        close(fa.jacfwd(lambda x: f_while(x, n))(x),
              jax.jacfwd(lambda x: j_while(x, n))(np.asarray(x)))
    check_grads(lambda x: f_while(x, 3), (x,), order=2, modes=("fwd",))


def test_while_vmap_batched_predicate_runs_until_all_done():
    xs, ns = rand(4, 2), fnp.array([0, 3, 1, 5])
    want = np.stack([py_while(x, n) for x, n in zip(xs, ns)])
    close(fa.vmap(f_while)(xs, ns), want)
    close(fa.jit(fa.vmap(f_while))(xs, ns), want)
    close(fa.vmap(f_while, (0, None))(xs, 3), np.stack([py_while(x, 3) for x in xs]))
    close(fa.vmap(f_while, (None, 0))(xs[0], ns), np.stack([py_while(xs[0], n) for n in ns]))
    # vmap of jvp and jvp of vmap
    ts = rand(4, 2)
    want = jax.vmap(lambda x, n, t: jax.jvp(lambda x: j_while(x, n), (x,), (t,))[1])(
        np.asarray(xs), np.asarray(ns), np.asarray(ts))
    close(fa.vmap(lambda x, n, t: fa.jvp(lambda x: f_while(x, n), (x,), (t,))[1])(xs, ns, ts),
          want)
    close(fa.jvp(lambda x: fa.vmap(f_while)(x, ns), (xs,), (ts,))[1], want)


def test_while_reverse_mode_error_points_at_max_steps():
    with pytest.raises(TypeError, match="max_steps"):
        fa.grad(lambda x: f_while(x, 3).sum())(rand(3))
    with pytest.raises(TypeError, match="max_steps"):
        fa.jit(fa.grad(lambda x: f_while(x, 3).sum()))(rand(3))
    # The primal value is still computed under linearize (forward-only use works).
    y, f_jvp = fa.linearize(lambda x: f_while(x, 2), rand(3))
    assert y.shape == (3,)


def test_while_carry_type_errors_and_weak_promotion():
    with pytest.raises(TypeError, match=r"carry\[1\] is float32\[3\] on input and float32\[2\]"):
        fa.jit(lambda x: lax.while_loop(lambda c: c[0] < 2, lambda c: (c[0] + 1, c[1][:2]),
                                        (0, x)))(fnp.ones(3))
    with pytest.raises(TypeError, match=r"float32\[3\] on input and int32\[3\]"):
        lax.while_loop(lambda c: c[0] < 2, lambda c: (c[0] + 1, c[1].astype("int32")),
                       (0, fnp.ones(3)))
    with pytest.raises(TypeError, match="boolean scalar"):
        fa.jit(lambda x: lax.while_loop(lambda c: c, lambda c: c + 1, x))(1)
    # A Python-scalar init adopts the body's float64 type under jit.
    out = fa.jit(lambda x: lax.while_loop(lambda v: v < 10.0, lambda v: v + x, 0.0))(
        fnp.float64(3.0))
    assert out.dtype == np.float64
    close(out, 12.0)


# while_loop(..., max_steps=N): a bounded loop, differentiable in reverse mode too.

def f_bounded(x, w, n, max_steps=4, lib=None):
    """Iterate ``v = sin(v) * w + x`` while ``i < n`` and ``|v|.sum() < 8`` (both stop it),
    at most ``max_steps`` times; ``lib=jax`` builds the equivalent jax scan of conds."""
    xp = fnp if lib is None else jnp

    def keep_going(c):
        return (c[0] < n) & (xp.abs(c[1]).sum() < 8.0)

    def body(c):
        return c[0] + 1, xp.sin(c[1]) * w + x

    if lib is None:
        return lax.while_loop(keep_going, body, (0, x), max_steps=max_steps)[1]
    step = lambda c, _: (jax.lax.cond(keep_going(c), body, lambda c: c, c), None)  # noqa: E731
    return jax.lax.scan(step, (0, x), None, length=max_steps)[0][1]


def py_bounded(x, w, n, max_steps=4):
    x, w, v = np.asarray(x), np.asarray(w), np.asarray(x)
    for i in range(max_steps):
        if not (i < n and np.abs(v).sum() < 8.0):
            break
        v = np.sin(v) * w + x
    return v


@pytest.mark.parametrize("n", [0, 2, 9])  # 9: the bound stops the loop
def test_bounded_while_eager_jit_grad_vs_python_and_jax(n):
    x, w = rand(3), rand(3)
    want = py_bounded(x, w, n)
    jwant = jax.lax.while_loop(  # jax's unbounded loop with the bound in its predicate
        lambda c: (c[0] < min(n, 4)) & (jnp.abs(c[1]).sum() < 8.0),
        lambda c: (c[0] + 1, jnp.sin(c[1]) * np.asarray(w) + np.asarray(x)),
        (0, np.asarray(x)))[1]
    close(want, jwant)
    close(f_bounded(x, w, n), want)
    close(fa.jit(f_bounded)(x, w, n), want)
    loss = lambda x, w: (f_bounded(x, w, n) ** 2).sum()  # noqa: E731
    jloss = lambda x, w: (f_bounded(x, w, n, lib=jax) ** 2).sum()  # noqa: E731
    gwant = jax.grad(jloss, (0, 1))(np.asarray(x), np.asarray(w))
    for g in (fa.grad(loss, (0, 1)), fa.jit(fa.grad(loss, (0, 1))),
              fa.grad(fa.jit(loss), (0, 1))):
        got = g(x, w)
        close(got[0], gwant[0])
        close(got[1], gwant[1])
    check_grads(lambda x, w: f_bounded(x, w, n), (x, w), order=2)


def test_bounded_while_vmap_batched_predicate():
    xs, ws, ns = rand(5, 3), rand(5, 3), fnp.array([0, 1, 3, 4, 7])
    want = np.stack([py_bounded(x, w, n) for x, w, n in zip(xs, ws, ns)])
    close(fa.vmap(f_bounded)(xs, ws, ns), want)
    close(fa.jit(fa.vmap(f_bounded))(xs, ws, ns), want)
    check_vmap(f_bounded, (xs, ws[0], ns), in_axes=(0, None, 0))
    check_vmap(f_bounded, (xs.T, ws, 3), in_axes=(1, 0, None))
    # Per-example gradients through the bounded loop, against jax's scan of conds.
    jl = lambda x, w, n: (f_bounded(x, w, n, lib=jax) ** 2).sum()  # noqa: E731
    fl = lambda x, w, n: (f_bounded(x, w, n) ** 2).sum()  # noqa: E731
    want = jax.vmap(jax.grad(jl, 1))(np.asarray(xs), np.asarray(ws), np.asarray(ns))
    close(fa.vmap(fa.grad(fl, 1))(xs, ws, ns), want)
    close(fa.jit(fa.vmap(fa.grad(fl, 1)))(xs, ws, ns), want)


def test_bounded_while_stops_at_max_steps_and_runs_python_eagerly():
    calls = []

    def body(v):
        calls.append(float(v))  # eager: concrete values, and the loop stops early
        return v * 2.0

    assert float(lax.while_loop(lambda v: v < 10.0, body, fnp.float32(1.0), max_steps=100)) \
        == 16.0
    assert calls == [1.0, 2.0, 4.0, 8.0]
    # cond_fun is still true after max_steps: the loop stops there, eagerly and compiled.
    f = lambda v: lax.while_loop(lambda v: v < 1e6, lambda v: v * 2.0, v,  # noqa: E731
                                 max_steps=3)
    assert float(f(fnp.float32(1.0))) == 8.0
    assert float(fa.jit(f)(fnp.float32(1.0))) == 8.0
    assert float(fa.grad(f)(fnp.float32(1.0))) == 8.0
    assert float(lax.while_loop(lambda v: True, lambda v: v + 1, 0, max_steps=0)) == 0
    assert "stablehlo.case" in fa.jit(f).lower(fnp.float32(1.0)).as_text()


def test_bounded_while_types_and_errors():
    # A Python-scalar init adopts the body's float64 type, as without max_steps.
    f = lambda x: lax.while_loop(lambda v: v < 10.0, lambda v: v + x, 0.0,  # noqa: E731
                                 max_steps=20)
    out = fa.jit(f)(fnp.float64(3.0))
    assert out.dtype == np.float64
    close(out, 12.0)
    close(fa.grad(f)(fnp.float64(3.0)), 4.0)
    with pytest.raises(TypeError, match=r"carry\[1\] is float32\[3\] on input and float32\[2\]"):
        fa.jit(lambda x: lax.while_loop(lambda c: c[0] < 2, lambda c: (c[0] + 1, c[1][:2]),
                                        (0, x), max_steps=3))(fnp.ones(3))
    with pytest.raises(TypeError, match="boolean scalar"):
        fa.jit(lambda x: lax.while_loop(lambda c: c, lambda c: c + 1, x, max_steps=3))(1)
    for bad in (-1, 2.5, True, fnp.ones(2, dtype="int32")):
        with pytest.raises(TypeError, match="max_steps must be a concrete non-negative"):
            lax.while_loop(lambda v: v < 3, lambda v: v + 1, 0, max_steps=bad)
    with pytest.raises(TypeError, match="max_steps must be a concrete"):
        fa.jit(lambda n: lax.while_loop(lambda v: v < 3, lambda v: v + 1, 0, max_steps=n))(3)


@pytest.mark.parametrize("unroll", [2, True, False])
def test_fori_loop_accepts_unroll_like_jax(unroll):
    body = lambda i, v: v * 0.5 + i  # noqa: E731
    with jax.enable_x64(False):  # the Python float carry is float32 (weak) in funcarray
        want = jax.lax.fori_loop(0, 5, body, 1.0, unroll=unroll)
    for run in (lambda f: f(), lambda f: fa.jit(f)()):
        close(run(lambda: lax.fori_loop(0, 5, body, 1.0, unroll=unroll)), want)
        close(fa.grad(lambda x: lax.fori_loop(0, 5, lambda i, v: v * x, 1.0, unroll=unroll))(
            2.0), 80.0)
    with pytest.raises(ValueError, match="unroll= needs loop bounds known before tracing"):
        fa.jit(lambda n: lax.fori_loop(0, n, body, 1.0, unroll=unroll))(3)
    with pytest.raises(TypeError, match="unroll must be an int or a bool"):
        lax.fori_loop(0, 5, body, 1.0, unroll=1.5)


def test_fori_loop_static_and_dynamic_bounds():
    def f(x, lo=0, hi=4):
        return lax.fori_loop(lo, hi, lambda i, v: v * fnp.cos(v) + i, x)

    def jf(x, lo=0, hi=4):
        return jax.lax.fori_loop(lo, hi, lambda i, v: v * jnp.cos(v) + i, x)

    x = rand(3)
    want = jf(np.asarray(x))
    close(f(x), want)
    close(fa.jit(f)(x), want)
    gwant = jax.grad(lambda x: jf(x).sum())(np.asarray(x))
    close(fa.grad(lambda x: f(x).sum())(x), gwant)
    close(fa.jit(fa.grad(lambda x: f(x).sum()))(x), gwant)
    check_grads(f, (x,), order=2)
    check_vmap(f, (rand(2, 3),))
    # Traced bounds: a while loop (forward mode only).
    close(fa.jit(f)(x, 1, 3), jf(np.asarray(x), 1, 3))
    xb, his = rand(3, 3), [0, 2, 5]
    close(fa.vmap(lambda x, hi: f(x, 0, hi))(xb, fnp.array(his)),
          np.stack([jf(np.asarray(v), 0, h) for v, h in zip(xb, his)]))


# --------------------------------------------------------------------------------------------
# scan / map
# --------------------------------------------------------------------------------------------

def f_scan(c0, xs, w, reverse=False):
    def step(c, x):
        h = fnp.tanh(c * w + x["a"]) + x["b"]
        return h, (h * 2.0, h.sum())

    return lax.scan(step, c0, xs, reverse=reverse)


def j_scan(c0, xs, w, reverse=False):
    def step(c, x):
        h = jnp.tanh(c * w + x["a"]) + x["b"]
        return h, (h * 2.0, h.sum())

    return jax.lax.scan(step, c0, xs, reverse=reverse)


def scan_args():
    return rand(3), {"a": rand(5, 3), "b": rand(5, 3)}, rand(3)


def to_np(tree):
    return jax.tree_util.tree_map(np.asarray, fa.tree.map(np.asarray, tree))


@pytest.mark.parametrize("reverse", [False, True])
def test_scan_eager_jit_vs_jax_and_python(reverse):
    c0, xs, w = scan_args()
    want = j_scan(*to_np((c0, xs, w)), reverse=reverse)
    for fn in (f_scan, fa.jit(f_scan, static_argnums=3)):
        got = fn(c0, xs, w, reverse)
        for a, b in zip(fa.tree.leaves(got), jax.tree_util.tree_leaves(want)):
            close(a, b)
    # A plain Python loop as a second reference.
    c, hs = np.asarray(c0), []
    order = range(4, -1, -1) if reverse else range(5)
    for i in order:
        c = np.tanh(c * np.asarray(w) + np.asarray(xs["a"][i])) + np.asarray(xs["b"][i])
        hs.append(c * 2.0)
    close(f_scan(c0, xs, w, reverse)[1][0], np.stack(hs[::-1] if reverse else hs))


@pytest.mark.parametrize("reverse", [False, True])
def test_eager_scan_of_single_arrays_vs_python_and_jit(reverse):
    """The eager loop for one carry array and one xs array (an RNN) against a Python loop
    and jit, with ys that are arrays, then pytrees, and 1-d xs (scalar slices)."""
    w, h0, xs = rand(3, 3), rand(3), rand(6, 3)

    def rnn(h, x):
        h = fnp.tanh(x @ w + h @ w)
        return h, h

    def rnn_tree(h, x):
        h, y = rnn(h, x)
        return h, {"h": y, "s": y.sum()}

    order = range(5, -1, -1) if reverse else range(6)
    h, hs = np.asarray(h0), [None] * 6
    for i in order:
        h = np.tanh(np.asarray(xs[i]) @ np.asarray(w) + h @ np.asarray(w))
        hs[i] = h
    for step in (rnn, rnn_tree):
        for fn in (lax.scan, fa.jit(lax.scan, static_argnums=(0, 3, 4))):
            c, ys = fn(step, h0, xs, None, reverse)
            close(c, h)
            close(ys if step is rnn else ys["h"], np.stack(hs))
            if step is rnn_tree:
                close(ys["s"], np.stack(hs).sum(1))
    c, ys = lax.scan(lambda c, x: (c + x, c * x), fnp.float64(0.5), xs[:, 0], reverse=reverse)
    ref_c, ref_ys = 0.5, [None] * 6
    for i in order:
        ref_ys[i] = ref_c * float(xs[i, 0])
        ref_c += float(xs[i, 0])
    close(c, ref_c)
    close(ys, np.array(ref_ys))


def test_eager_scan_of_single_arrays_checks_every_step():
    xs = fnp.arange(4.0)
    with pytest.raises(TypeError, match=r"carry is float32\[\] on input and float32\[2\]"):
        lax.scan(lambda c, x: (c + fnp.ones(2) if x > 1 else c, x), fnp.float32(0.0), xs)
    with pytest.raises(TypeError, match="ys of one pytree structure"):
        lax.scan(lambda c, x: (c, x if x < 2 else (x,)), fnp.float32(0.0), xs)
    with pytest.raises(TypeError, match="must return a pair"):
        lax.scan(lambda c, x: c, fnp.float32(0.0), xs)
    # ys whose dtype changes between steps are promoted when stacked, as fnp.stack does
    _, ys = lax.scan(lambda c, x: (c, x if x < 2 else x.astype(fnp.float64)),
                     fnp.float32(0.0), xs)
    assert ys.dtype == np.float64 and ys.tolist() == [0.0, 1.0, 2.0, 3.0]
    # a list pair is accepted, as in the general loop
    c, ys = lax.scan(lambda c, x: [c + x, x * 2], fnp.float32(0.0), xs)
    assert float(c) == 6.0 and ys.tolist() == [0.0, 2.0, 4.0, 6.0]


@pytest.mark.parametrize("reverse", [False, True])
def test_scan_grad_vs_jax(reverse):
    c0, xs, w = scan_args()

    def loss(c0, xs, w):
        c, (hs, sums) = f_scan(c0, xs, w, reverse)
        return (c ** 2).sum() + (hs * fnp.sin(hs)).sum() + sums.sum()

    def jloss(c0, xs, w):
        c, (hs, sums) = j_scan(c0, xs, w, reverse)
        return (c ** 2).sum() + (hs * jnp.sin(hs)).sum() + sums.sum()

    want = jax.grad(jloss, (0, 1, 2))(*to_np((c0, xs, w)))
    for g in (fa.grad(loss, (0, 1, 2)), fa.jit(fa.grad(loss, (0, 1, 2))),
              fa.grad(fa.jit(loss), (0, 1, 2))):
        for a, b in zip(fa.tree.leaves(g(c0, xs, w)), jax.tree_util.tree_leaves(want)):
            close(a, b)
    check_grads(lambda c0, xs, w: f_scan(c0, xs, w, reverse), (c0, xs, w), order=2)


def test_scan_grad_reads_residuals_from_ys():
    """A residual that is also a y of the scan is not stacked a second time."""
    def f(c, xs, lib=lax, xp=fnp):
        def step(c, x):
            h = c * x
            return xp.sin(h * h), h  # h: a y, and a residual of h * h
        c, hs = lib.scan(step, c, xs)
        return c + (hs ** 3).sum()

    c, xs = fnp.float64(0.7), rand(5)
    want = jax.grad(lambda c, xs: f(c, xs, jax.lax, jnp), (0, 1))(0.7, np.asarray(xs))
    for g in (fa.grad(f, (0, 1)), fa.jit(fa.grad(f, (0, 1))), fa.grad(fa.jit(f), (0, 1))):
        got = g(c, xs)
        close(got[0], want[0])
        close(got[1], want[1])
    forward = next(e for e in fa.make_ir(fa.grad(f))(c, xs).closed.ir.eqns
                   if e.prim.name == "scan")
    assert len(forward.outs) == 3  # the carry, the ys h, and one stacked residual (cos)


def test_scan_grad_computes_loop_invariant_residuals_once():
    """A residual computed from closed-over values alone (exp(w) for the tangent of exp) is
    the same at every step: computed once before the loop and handed to the backward scan as
    a const, never stacked per iteration, whichever way grad and jit are composed."""
    def f(w, xs, lib=lax, xp=fnp):
        def step(h, x):
            h = xp.tanh(x @ xp.exp(w).T + h)
            return h, h
        return (lib.scan(step, xp.zeros_like(xs[0]), xs)[1] ** 2).sum()

    w, xs = rand(3, 3), rand(50, 3)
    want = jax.grad(lambda w, xs: f(w, xs, jax.lax, jnp))(*to_np((w, xs)))
    g = fa.grad(f)
    for fn in (g, fa.jit(g), fa.grad(fa.jit(f))):
        close(fn(w, xs), want)
    bw = fnp.stack([w, w * 0.5])
    close(fa.vmap(g, (0, None))(bw, xs),
          jax.vmap(jax.grad(lambda w, xs: f(w, xs, jax.lax, jnp)), (0, None))(*to_np((bw, xs))))

    def scan_outputs(ir):
        for eqn in ir.eqns:
            if eqn.prim.name == "scan":
                yield [v.aval.shape for v in eqn.outs]
            for value in eqn.params.values():
                if hasattr(value, "eqns"):
                    yield from scan_outputs(value)

    for fn in (g, fa.grad(fa.jit(f))):
        shapes = [s for outs in scan_outputs(fa.make_ir(fn)(w, xs).closed.ir) for s in outs]
        assert (50, 3, 3) not in shapes, shapes


def test_scan_vmap():
    c0, xs, w = scan_args()
    bc0, bxs = rand(4, 3), {"a": rand(4, 5, 3), "b": rand(5, 4, 3)}
    f = lambda c0, a, b, w: f_scan(c0, {"a": a, "b": b}, w)  # noqa: E731
    check_vmap(f, (bc0, bxs["a"], bxs["b"], w), in_axes=(0, 0, 1, None))
    check_vmap(f, (c0, bxs["a"], xs["b"], w), in_axes=(None, 0, None, None))
    check_vmap(f, (c0, xs["a"], xs["b"], rand(2, 3)), in_axes=(None, None, None, 0))
    jf = lambda c0, a, b, w: j_scan(c0, {"a": a, "b": b}, w)  # noqa: E731
    args = (bc0, bxs["a"], bxs["b"], w)
    want = jax.vmap(jf, (0, 0, 1, None))(*to_np(args))
    got = fa.jit(fa.vmap(f, (0, 0, 1, None)))(*args)
    for a, b in zip(fa.tree.leaves(got), jax.tree_util.tree_leaves(want)):
        close(a, b)
    # vmap of grad (per-example gradients through a scan)
    gl = lambda c0, a, b, w: f(c0, a, b, w)[0].sum()  # noqa: E731
    jgl = lambda c0, a, b, w: jf(c0, a, b, w)[0].sum()  # noqa: E731
    want = jax.vmap(jax.grad(jgl, 3), (0, 0, 1, None))(*to_np(args))
    close(fa.vmap(fa.grad(gl, 3), (0, 0, 1, None))(*args), want)


def test_scan_errors_and_length():
    with pytest.raises(TypeError, match=r"carry is float32\[3,3\] on input and float32\[2,3\]"):
        fa.jit(lambda x: lax.scan(lambda c, x: (c[:2], x), x, x))(fnp.ones((3, 3)))
    with pytest.raises(ValueError, match="same leading axis"):
        lax.scan(lambda c, x: (c, x), 0.0, (fnp.ones(2), fnp.ones(3)))
    with pytest.raises(ValueError, match="length"):
        lax.scan(lambda c, x: (c, x), 0.0, None)
    for run in (lambda f: f(), lambda f: fa.jit(f)()):  # was [] eagerly, a parse error in jit
        with pytest.raises(ValueError, match="length must be non-negative, got length=-1"):
            run(lambda: lax.scan(lambda c, x: (c, c), 0.0, None, length=-1))
    with pytest.raises(TypeError, match="ys of one pytree structure"):
        lax.scan(lambda c, x: (c, (x,) if x > 0 else x), 1.0, fnp.array([1.0, -1.0]))
    c, ys = lax.scan(lambda c, _: (c + 1, c), 0, None, length=4)
    assert int(c) == 4 and ys.tolist() == [0, 1, 2, 3]
    assert ys.dtype == np.int32 and ys.weak_type  # as jit gives: stacked weak ints
    assert fa.jit(lambda: lax.scan(lambda c, _: (c + 1, c), 0, None, length=4)[1])().weak_type
    c, ys = fa.jit(lambda x: lax.scan(lambda c, x: (c + x, c), 0.0, x))(fnp.ones(0))
    assert ys.shape == (0,) and float(c) == 0.0


def test_map_and_batch_size():
    xs = rand(7, 3)
    want = np.stack([np.sin(np.asarray(x)).sum() for x in xs])
    for bs in (None, 1, 3, 7, 10):
        close(lax.map(lambda x: fnp.sin(x).sum(), xs, batch_size=bs), want)
        close(fa.jit(lambda xs: lax.map(lambda x: fnp.sin(x).sum(), xs, batch_size=bs))(xs),
              want)
    close(fa.grad(lambda xs: lax.map(lambda x: fnp.sin(x).sum(), xs).sum())(xs),
          np.cos(np.asarray(xs)))


def test_nested_loops_and_cond_in_scan():
    def f(x):
        def outer(i, v):
            def inner(c, xi):
                c = lax.cond(xi > 0, lambda c: c * xi, lambda c: c - xi, c)
                return c, c
            c, _ = lax.scan(inner, v, x)
            return c + i
        return lax.fori_loop(0, 3, outer, x.sum())

    def jf(x):
        def outer(i, v):
            def inner(c, xi):
                c = jax.lax.cond(xi > 0, lambda c: c * xi, lambda c: c - xi, c)
                return c, c
            c, _ = jax.lax.scan(inner, v, x)
            return c + i
        return jax.lax.fori_loop(0, 3, outer, x.sum())

    x = rand(4) * 0.5
    close(f(x), jf(np.asarray(x)))
    close(fa.jit(f)(x), jf(np.asarray(x)))
    close(fa.grad(f)(x), jax.grad(jf)(np.asarray(x)))
    close(fa.jit(fa.grad(f))(x), jax.grad(jf)(np.asarray(x)))
    xb = rand(2, 4) * 0.5
    close(fa.vmap(fa.grad(f))(xb), jax.vmap(jax.grad(jf))(np.asarray(xb)))


def test_rnn_with_scan_grad_and_vmap():
    """An Elman RNN over a sequence: loss differentiated and vmapped over a batch."""
    params = {"wx": rand(2, 4) * 0.5, "wh": rand(4, 4) * 0.5, "b": rand(4), "wo": rand(4)}
    seqs = rand(3, 6, 2)

    def rnn_loss(params, seq, xp=fnp, scan=lax.scan):
        def cell(h, x):
            h = xp.tanh(x @ params["wx"] + h @ params["wh"] + params["b"])
            return h, h @ params["wo"]
        _, outs = scan(cell, xp.zeros(4, dtype=seq.dtype), seq)
        return (outs ** 2).mean()

    def jloss(params, seq):
        return rnn_loss(params, seq, jnp, jax.lax.scan)

    jparams = to_np(params)
    for seq in seqs:
        close(rnn_loss(params, seq), jloss(jparams, np.asarray(seq)))
    want = jax.vmap(jax.grad(jloss), (None, 0))(jparams, np.asarray(seqs))
    for g in (fa.vmap(fa.grad(rnn_loss), (None, 0)), fa.jit(fa.vmap(fa.grad(rnn_loss), (None, 0)))):
        got = g(params, seqs)
        for k in params:
            close(got[k], want[k])
    check_grads(lambda p: rnn_loss(p, seqs[0]), (params,), order=1)


# --------------------------------------------------------------------------------------------
# associative_scan
# --------------------------------------------------------------------------------------------

def compose_affine(f, g, xp=fnp):
    """``g after f`` for affine maps ``v -> m @ v + b`` stored as ``{"m": [..., 2, 2], "b":
    [..., 2]}``: associative but not commutative, so the order of arguments is checked."""
    m = xp.einsum("...ij,...jk->...ik", g["m"], f["m"])
    b = xp.einsum("...ij,...j->...i", g["m"], f["b"]) + g["b"]
    return {"m": m, "b": b}


def py_associative_scan(fn, xs, reverse=False):
    """The sequential reference on a list of elements."""
    order = list(reversed(xs)) if reverse else list(xs)
    out = [order[0]]
    for x in order[1:]:
        out.append(fn(out[-1], x))
    return list(reversed(out)) if reverse else out


@pytest.mark.parametrize("n", [0, 1, 2, 8, 13])
@pytest.mark.parametrize("reverse", [False, True])
def test_associative_scan_pytree_vs_jax_and_python(n, reverse):
    elems = {"m": rand(n, 2, 2), "b": rand(n, 2)}
    got = lax.associative_scan(compose_affine, elems, reverse=reverse)
    want = jax.jit(lambda e: jax.lax.associative_scan(lambda f, g: compose_affine(f, g, jnp),
                                                      e, reverse=reverse))(to_np(elems))
    close(got["m"], want["m"])
    close(got["b"], want["b"])
    close(fa.jit(lambda e: lax.associative_scan(compose_affine, e, reverse))(elems)["b"],
          want["b"])
    if n:
        items = [{"m": np.asarray(elems["m"][i]), "b": np.asarray(elems["b"][i])}
                 for i in range(n)]
        ref = py_associative_scan(lambda f, g: compose_affine(f, g, np), items, reverse)
        close(got["b"], np.stack([r["b"] for r in ref]))


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_associative_scan_axis_and_dtypes(axis):
    x = fnp.asarray(RNG.integers(-5, 5, (4, 7, 3)).astype(np.int32))
    for fn, jfn in ((fnp.add, jnp.add), (fnp.maximum, jnp.maximum)):
        for reverse in (False, True):
            got = lax.associative_scan(fn, x, reverse=reverse, axis=axis)
            # (jax's reverse scan rejects a negative axis: give it the positive one)
            want = jax.lax.associative_scan(jfn, np.asarray(x), reverse=reverse, axis=axis % 3)
            assert got.dtype == want.dtype == np.int32
            np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    f32 = fnp.asarray(RNG.standard_normal((6, 5)).astype(np.float32))
    close(lax.associative_scan(fnp.add, f32, axis=axis % 2), np.cumsum(np.asarray(f32),
                                                                       axis=axis % 2), 1e-5)


def test_associative_scan_transforms():
    x, w = rand(6), rand(6)  # 6 -> 3 -> 1: even and odd lengths
    # A linear recurrence h_i = a_i * h_{i-1} + b_i as an associative scan over (a, b) pairs.
    combine = lambda p, q: (p[0] * q[0], p[1] * q[0] + q[1])  # noqa: E731

    def f(x, w, lib=lax, xp=fnp):
        return lib.associative_scan(combine, (xp.tanh(w), xp.sin(x)))[1]

    def jf(x, w):
        return f(x, w, jax.lax, jnp)

    check_grads(f, (x, w), order=2)
    # (jax oracles are jitted: eager jax compiles every op of the scan, which is slow)
    gwant = jax.jit(jax.grad(lambda x, w: (jf(x, w) ** 2).sum(), (0, 1)))(np.asarray(x),
                                                                           np.asarray(w))
    for g in (fa.grad(lambda x, w: (f(x, w) ** 2).sum(), (0, 1)),
              fa.jit(fa.grad(lambda x, w: (f(x, w) ** 2).sum(), (0, 1)))):
        got = g(x, w)
        close(got[0], gwant[0])
        close(got[1], gwant[1])
    xb = rand(3, 6)
    check_vmap(f, (xb, w), in_axes=(0, None))
    check_vmap(f, (xb.T, xb), in_axes=(1, 0))
    close(fa.vmap(f, (0, None))(xb, w),
          jax.jit(jax.vmap(jf, (0, None)))(np.asarray(xb), np.asarray(w)))


def test_associative_scan_errors():
    with pytest.raises(TypeError, match="needs an axis"):
        lax.associative_scan(fnp.add, fnp.float32(1.0))
    with pytest.raises(ValueError, match="same length along axis 0, got lengths"):
        lax.associative_scan(lambda a, b: a, (fnp.ones(3), fnp.ones(4)))
    with pytest.raises(ValueError, match="out of bounds"):
        lax.associative_scan(fnp.add, fnp.ones(3), axis=1)
    with pytest.raises(TypeError, match="keeping their shape and dtype"):
        lax.associative_scan(lambda a, b: (a + b).sum(), fnp.ones(4))
    with pytest.raises(TypeError, match="keeping their shape and dtype"):
        lax.associative_scan(lambda a, b: a / b, fnp.ones(4, dtype="int32"))
    with pytest.raises(TypeError, match="structure of elems"):
        lax.associative_scan(lambda a, b: a[0], (fnp.ones(4), fnp.ones(4)))


def test_select_n_and_stop_gradient():
    cases = [rand(4), rand(4), rand(4)]
    which = fnp.array([0, 2, 1, 5])
    want = jax.lax.select_n(np.asarray(which).clip(0, 2).astype(np.int32),
                            *[np.asarray(c) for c in cases])
    close(lax.select_n(which, *cases), want)
    close(lax.select_n(fnp.array([True, False, True, False]), *cases[:2]),
          np.where([True, False, True, False], np.asarray(cases[1]), np.asarray(cases[0])))
    with pytest.raises(TypeError, match="share a shape"):
        lax.select_n(True, fnp.ones(2), fnp.ones(3))
    assert float(fa.grad(lambda x: x * lax.stop_gradient(x))(fnp.array(3.0))) == 3.0


_SEES_ARRAYS = {
    "cond": lambda seen: lax.cond(True, lambda x: seen(x) + 1, lambda x: x, 1.5),
    "switch": lambda seen: lax.switch(1, [lambda x: x, lambda x: seen(x) * 2], 1.5),
    "switch, one branch": lambda seen: lax.switch(0, [lambda x: seen(x) * 2], 1.5),
    "while_loop": lambda seen: lax.while_loop(lambda c: c < 3, lambda c: seen(c) + 1, 0.0),
    "fori_loop": lambda seen: lax.fori_loop(0, 2, lambda i, c: seen(c) + i, 0.5),
    "scan": lambda seen: lax.scan(lambda c, x: (seen(c) + x, x), 0.0, fnp.arange(3.0))[0],
}


@pytest.mark.parametrize("name", sorted(_SEES_ARRAYS))
def test_eager_control_flow_hands_python_scalars_to_the_user_as_arrays(name):
    """Eagerly as under jit, branch and body functions get arrays for Python-scalar operands
    and carries (``c.astype``, ``x.shape`` work), and the results agree."""
    types = []

    def seen(x):
        types.append((type(x), x.astype(fnp.float32).shape))
        return x

    eager = _SEES_ARRAYS[name](seen)  # (DeviceArrays where eager ops run through XLA)
    assert types and all(issubclass(t, fa.Array) and s == () for t, s in types), types
    jitted = fa.jit(lambda: _SEES_ARRAYS[name](lambda x: x))()
    assert (eager.dtype, eager.weak_type, float(eager)) == (
        jitted.dtype, jitted.weak_type, float(jitted))


# --- an eager scan whose ys hold vjp functions -----------------------------------------------

def test_eager_scan_stacks_vjp_functions_in_ys():
    def body(m, vjp):
        def step(c, x):
            y, f_vjp = vjp(lambda a: m.sin(a) * c, x)
            return c + 1.0, (y, f_vjp)
        return step

    xs = np.linspace(0.0, 1.0, 8).reshape(4, 2).astype(np.float32)
    want_c, (want_y, want_f) = jax.lax.scan(body(jnp, jax.vjp), jnp.float32(1.0), xs)
    want = jax.vmap(lambda f, ct: f(ct))(want_f, jnp.ones_like(xs))
    c, (y, f) = lax.scan(body(fnp, fa.vjp), fnp.float32(1.0), xs)
    assert_same(c, want_c)
    np.testing.assert_allclose(y, want_y, rtol=1e-6)
    np.testing.assert_allclose(fa.vmap(lambda f, ct: f(ct))(f, fnp.ones_like(xs))[0], want[0],
                               rtol=1e-6)
    # a body that really changes the structure of its ys still gets the eager error
    with pytest.raises(TypeError, match="ys of one pytree structure"):
        lax.scan(lambda c, x: (c, x if x < 2 else (x,)), fnp.float32(0.0), fnp.arange(4.0))
