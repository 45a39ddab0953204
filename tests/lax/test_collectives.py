"""Collectives over named vmap axes (lax.psum, pmean, pmax, pmin, all_gather, ppermute,
axis_index): against jax.vmap with the same axis_name, and against a Python loop over the
members, under every transform."""

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

SHIFT = [(0, 1), (1, 2), (2, 0)]

# name -> fun(lax, xp, x) for one member; each is compared with jax's on the same input.
CASES = {
    "psum": lambda L, xp, x: L.psum(x, "i"),
    "psum_of_constant": lambda L, xp, x: x + L.psum(2.0, "i"),
    "pmean_centred": lambda L, xp, x: x - L.pmean(x, "i"),
    "pmax": lambda L, xp, x: L.pmax(x, "i") * x,
    "pmin": lambda L, xp, x: L.pmin(x, "i") + x,
    "all_gather": lambda L, xp, x: L.all_gather(x, "i"),
    "all_gather_axis1": lambda L, xp, x: L.all_gather(x, "i", axis=1),
    "all_gather_tiled": lambda L, xp, x: L.all_gather(x, "i", axis=0, tiled=True),
    "ppermute": lambda L, xp, x: L.ppermute(x, "i", SHIFT),
    "axis_index": lambda L, xp, x: x * L.axis_index("i"),
    "pytree": lambda L, xp, x: L.psum({"a": x, "b": [xp.sin(x)]}, "i"),
}


def _members(seed=0, shape=(3, 2, 4)):
    return np.random.default_rng(seed).normal(size=shape)


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("in_axis", [0, 1, -1])
def test_collectives_match_jax(name, in_axis):
    x = _members(1, (3, 3, 2, 3))[..., 0, :]  # 3 members along any of the axes
    case = CASES[name]
    want = jax.vmap(lambda v: case(jax.lax, jnp, v), in_axes=in_axis, axis_name="i")(x)
    got = fa.vmap(lambda v: case(lax, fnp, v), in_axes=in_axis, axis_name="i")(fnp.asarray(x))
    fa.tree.map(assert_allclose, got, want)
    got_jit = fa.jit(fa.vmap(lambda v: case(lax, fnp, v), in_axes=in_axis, axis_name="i"))(
        fnp.asarray(x))
    fa.tree.map(assert_allclose, got_jit, want)
    got_inner_jit = fa.vmap(fa.jit(lambda v: case(lax, fnp, v)), in_axes=in_axis,
                            axis_name="i")(fnp.asarray(x))
    fa.tree.map(assert_allclose, got_inner_jit, want)


def test_psum_and_all_gather_against_a_python_loop():
    x = _members(2, (4, 3))
    members = [x[k] for k in range(4)]
    got = fa.vmap(lambda v: (lax.psum(v, "b"), lax.all_gather(v, "b"), lax.axis_index("b")),
                  axis_name="b")(fnp.asarray(x))
    assert_allclose(got[0], np.stack([sum(members)] * 4))
    assert_allclose(got[1], np.stack([np.stack(members)] * 4))
    np.testing.assert_array_equal(np.asarray(got[2]), np.arange(4))
    assert got[2].dtype == np.int32


def test_partial_permutation_sends_zeros_to_members_nobody_sends_to():
    """pmap's ppermute semantics (jax.vmap accepts only full permutations): checked against
    a loop, with its transpose through grad."""
    x = _members(8, (3, 2))
    perm = [(0, 2), (2, 1)]
    want = np.zeros_like(x)
    for src, dst in perm:
        want[dst] = x[src]
    shift = lambda v: lax.ppermute(v, "i", perm)  # noqa: E731
    assert_allclose(fa.vmap(shift, axis_name="i")(fnp.asarray(x)), want)
    assert_allclose(fa.vmap(shift, in_axes=1, out_axes=1, axis_name="i")(fnp.asarray(x.T)),
                    want.T)
    weights = np.arange(1.0, 4.0)[:, None]
    grads = fa.grad(lambda v: (fa.vmap(shift, axis_name="i")(v) * weights).sum())(
        fnp.asarray(x))
    want_grads = np.zeros_like(x)
    for src, dst in perm:  # member src's value lands on dst, weighted by dst's weight
        want_grads[src] = weights[dst]
    assert_allclose(grads, want_grads)


@pytest.mark.parametrize("names", ["i", "j", ("i", "j"), ("j", "i")])
def test_nested_named_axes(names):
    x = _members(3, (2, 3, 4))

    def run(L, vm, v):
        return vm(vm(lambda r: L.psum(r, names) * L.axis_index("j") + L.pmax(r, "i"),
                     axis_name="j"), axis_name="i")(v)

    assert_allclose(run(lax, fa.vmap, fnp.asarray(x)), run(jax.lax, jax.vmap, x))
    # an unnamed vmap in between is a member-wise axis for the named ones
    def middle(L, vm, v):
        inner = vm(lambda r: L.psum(r, "i"))  # no name: maps member-wise
        return vm(inner, axis_name="i")(v)

    assert_allclose(middle(lax, fa.vmap, fnp.asarray(x)), middle(jax.lax, jax.vmap, x))


@pytest.mark.parametrize("name", ["psum", "pmean_centred", "all_gather", "all_gather_tiled",
                                  "ppermute", "pytree", "axis_index"])
def test_gradients_through_collectives_match_jax(name):
    x = _members(4, (3, 4))
    case = CASES[name]

    def loss(L, xp):
        def per_member(v):
            out = case(L, xp, v)
            return sum(xp.sum(xp.sin(leaf) * (1.0 + leaf)) for leaf in jax.tree.leaves(out))
        return per_member

    # per-member gradients (each member differentiates its own loss) ...
    want = jax.vmap(jax.grad(loss(jax.lax, jnp)), axis_name="i")(x)
    assert_allclose(fa.vmap(fa.grad(loss(lax, fnp)), axis_name="i")(fnp.asarray(x)), want)
    assert_allclose(fa.jit(fa.vmap(fa.grad(loss(lax, fnp)), axis_name="i"))(fnp.asarray(x)),
                    want)
    # ... and the gradient of the total
    total = lambda L, xp, vm: lambda v: vm(loss(L, xp), axis_name="i")(v).sum()  # noqa: E731
    want = jax.grad(total(jax.lax, jnp, jax.vmap))(x)
    assert_allclose(fa.grad(total(lax, fnp, fa.vmap))(fnp.asarray(x)), want)
    assert_allclose(fa.hessian(total(lax, fnp, fa.vmap))(fnp.asarray(x)[:, :2].reshape(-1)[:6]
                                                          .reshape(3, 2)),
                    jax.hessian(total(jax.lax, jnp, jax.vmap))(x[:, :2]))
    # forward mode of the whole
    t = _members(5, (3, 4))
    _, got_t = fa.jvp(fa.vmap(loss(lax, fnp), axis_name="i"), (fnp.asarray(x),),
                      (fnp.asarray(t),))
    _, want_t = jax.jvp(jax.vmap(loss(jax.lax, jnp), axis_name="i"), (x,), (t,))
    assert_allclose(got_t, want_t)


@pytest.mark.parametrize("prim", ["pmax", "pmin"])
def test_extremum_derivatives_against_finite_differences(prim):
    """JAX has no derivative for pmax/pmin; funcarray gives the extremum members the
    tangent (shared among ties), checked with central differences."""
    x = fnp.asarray(np.array([[0.3, -1.2], [2.0, 0.5], [1.1, 0.9]]))
    collective = getattr(lax, prim)
    f = fa.vmap(lambda v: fnp.sin(collective(v, "i")) * v, axis_name="i")
    check_grads(f, (x,), order=2, modes=("fwd", "rev"))
    tied = fa.vmap(fa.grad(lambda v: collective(v, "i")), axis_name="i")(
        fnp.asarray([2.0, 2.0, 1.0] if prim == "pmax" else [1.0, 1.0, 2.0]))
    # Each of the 3 members' outputs is the extremum, whose tangent the two tied members
    # share: each gets 3 * 1/2 (per-member gradients sum over every member's output, as for
    # psum, whose vmap(grad) is the axis size).
    assert_allclose(tied, np.array([1.5, 1.5, 0.0], np.float32))


def test_collectives_inside_control_flow_and_checkpoint():
    x = _members(6, (3, 4))

    def body(L, xp, ckpt):
        def f(v):
            total, _ = L.scan(lambda c, y: (c + L.psum(y, "i"), None), 0.0, v)
            big = L.cond(L.pmax(L.stop_gradient(xp.sum(v)), "i") > 0, lambda u: L.pmean(u, "i"),
                         lambda u: u, v)
            n = L.fori_loop(0, 2, lambda k, c: c + L.all_gather(c, "i").sum(0) * 0.1, v)
            return xp.sum(ckpt(lambda u: xp.tanh(L.psum(u * u, "i")))(v)) + total + \
                xp.sum(big) + xp.sum(n)
        return f

    want = jax.vmap(body(jax.lax, jnp, jax.checkpoint), axis_name="i")(x)
    got = fa.vmap(body(lax, fnp, fa.checkpoint), axis_name="i")(fnp.asarray(x))
    assert_allclose(got, want)
    grads = jax.vmap(jax.grad(body(jax.lax, jnp, jax.checkpoint)), axis_name="i")(x)
    assert_allclose(fa.vmap(fa.grad(body(lax, fnp, fa.checkpoint)), axis_name="i")(
        fnp.asarray(x)), grads)
    assert_allclose(fa.jit(fa.vmap(fa.grad(body(lax, fnp, fa.checkpoint)), axis_name="i"))(
        fnp.asarray(x)), grads)


def test_batch_statistics_in_a_vmapped_model():
    """A batch-norm layer written per example, its statistics through pmean, trained with
    grad over the batch: jax's same program as the oracle."""
    rng = np.random.default_rng(7)
    w, x, y = rng.normal(size=(3, 4)), rng.normal(size=(8, 3)), rng.normal(size=(8, 4))

    def loss(L, xp, vm):
        def per_example(w, x, y):
            h = x @ w
            mean = L.pmean(h, "batch")
            var = L.pmean((h - mean) ** 2, "batch")
            return xp.sum(((h - mean) / xp.sqrt(var + 1e-5) - y) ** 2)
        return lambda w, x, y: vm(per_example, in_axes=(None, 0, 0),
                                  axis_name="batch")(w, x, y).mean()

    want = jax.value_and_grad(loss(jax.lax, jnp, jax.vmap))(w, x, y)
    got = fa.value_and_grad(loss(lax, fnp, fa.vmap))(fnp.asarray(w), fnp.asarray(x),
                                                      fnp.asarray(y))
    fa.tree.map(assert_allclose, got, want)
    got_jit = fa.jit(fa.value_and_grad(loss(lax, fnp, fa.vmap)))(
        fnp.asarray(w), fnp.asarray(x), fnp.asarray(y))
    fa.tree.map(assert_allclose, got_jit, want)


def test_jitted_function_recompiles_for_another_axis_size():
    gather = fa.jit(lambda v: lax.all_gather(v, "i"))
    for n in (2, 3):
        out = fa.vmap(gather, axis_name="i")(fnp.arange(float(n)))
        assert out.shape == (n, n)
        assert_allclose(out, np.tile(np.arange(n, dtype=np.float32), (n, 1)))


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_random_collectives_match_jax(data):
    size = data.draw(st.integers(1, 4), label="members")
    shape = data.draw(st.lists(st.integers(1, 3), min_size=0, max_size=2), label="shape")
    axis = data.draw(st.integers(0, len(shape)), label="in_axis")
    full = list(shape)
    full.insert(axis, size)
    x = np.random.default_rng(data.draw(st.integers(0, 99))).normal(size=full)
    name = data.draw(st.sampled_from(["psum", "pmean_centred", "pmax", "pmin", "all_gather",
                                      "axis_index", "pytree"]), label="collective")
    case = CASES[name]
    want = jax.vmap(lambda v: case(jax.lax, jnp, v), in_axes=axis, axis_name="i")(x)
    got = fa.vmap(lambda v: case(lax, fnp, v), in_axes=axis, axis_name="i")(fnp.asarray(x))
    fa.tree.map(assert_allclose, got, want)


def test_collective_errors():
    x = fnp.ones(3)
    with pytest.raises(NameError, match="unbound axis name: 'i'.*no enclosing vmap"):
        lax.psum(x, "i")
    with pytest.raises(NameError, match=r"unbound axis name: 'k'.*name \['i'\]"):
        fa.vmap(lambda v: lax.psum(v, "k"), axis_name="i")(x)
    with pytest.raises(NameError, match="unbound axis name"):
        fa.jit(lambda v: lax.axis_index("i"))(x)
    with pytest.raises(ValueError, match="chunk_size=2 cannot be combined with axis_name"):
        fa.vmap(lambda v: v, axis_name="i", chunk_size=2)
    with pytest.raises(TypeError, match="axis_name must be hashable"):
        fa.vmap(lambda v: v, axis_name=["i"])
    named = lambda f: fa.vmap(f, axis_name="i")(x)  # noqa: E731
    with pytest.raises(ValueError, match=r"axis=2 is out of range for an operand of shape \(\)"):
        named(lambda v: lax.all_gather(v, "i", axis=2))
    with pytest.raises(ValueError, match="tiled=True needs an operand with at least one axis"):
        named(lambda v: lax.all_gather(v, "i", tiled=True))
    with pytest.raises(ValueError, match="repeats a destination"):
        named(lambda v: lax.ppermute(v, "i", [(0, 1), (2, 1)]))
    with pytest.raises(ValueError, match=r"the pair \(0, 3\) names a member outside"):
        named(lambda v: lax.ppermute(v, "i", [(0, 3)]))
    with pytest.raises(NotImplementedError, match="axis_index_groups is not supported"):
        named(lambda v: lax.psum(v, "i", axis_index_groups=[[0, 1], [2]]))
    with pytest.raises(NotImplementedError, match="one axis name here"):
        fa.vmap(fa.vmap(lambda v: lax.all_gather(v, ("i", "j")), axis_name="j"),
                axis_name="i")(fnp.ones((2, 2)))
