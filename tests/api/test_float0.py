"""float0: the tangent type of integer and boolean values, at autodiff's API edge, against jax.

Every case runs the same program in funcarray and jax and compares the whole result: tree
structure, and for each leaf its kind (a float0 result is a NumPy float0 array, as jax's; a
numeric one an array), dtype, shape, weak type and, for numeric leaves, values.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import funcarray as fa
import funcarray.numpy as fnp

F0 = fa.dtypes.float0


@pytest.fixture(autouse=True)
def _jax_32_bit():
    """jax with its 32-bit defaults, which are funcarray's (Python scalars are 32-bit)."""
    with jax.enable_x64(False):
        yield


def _is_float0(x) -> bool:
    return isinstance(x, np.ndarray) and x.dtype == F0


def assert_like_jax(got, want):
    """``got`` (funcarray) has ``want``'s (jax) structure, and leaf by leaf its kind, dtype,
    shape, weak type and values."""
    assert fa.tree.structure(fa.tree.map(lambda _: 0, got)) == fa.tree.structure(
        jax.tree.map(lambda _: 0, want)), (got, want)
    for g, w in zip(fa.tree.leaves(got), jax.tree.leaves(want)):
        if np.asarray(w).dtype == jax.dtypes.float0:
            assert _is_float0(g) and not isinstance(g, fa.Array), (g, w)
            assert g.shape == np.shape(w)
            continue
        assert isinstance(g, fa.Array), (g, w)
        assert (g.dtype, g.shape) == (w.dtype, w.shape), (g, w)
        # (jax hands back an integer input's untraced results as the NumPy arrays they are)
        assert g.weak_type == getattr(w, "weak_type", False), (g, w)
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6)


def _f32(*values):
    return np.asarray(values[0] if len(values) == 1 else values, np.float32)


X, V = _f32(1.5), _f32(0.5, -1.0, 2.0)
N, NS, B = np.int32(3), np.arange(3, dtype=np.int32), np.array([True, False, True])


def _both(make):
    """``make(api, np_lib)`` run with (funcarray, funcarray.numpy) and (jax, jax.numpy)."""
    return make(fa, fnp), make(jax, jnp)


# --------------------------------------------------------------------------------------------
# grad, value_and_grad, vjp, jacrev
# --------------------------------------------------------------------------------------------

GRAD_CASES = {
    "grad_argnums_tuple": lambda a, xp: a.grad(lambda x, n: x * n, argnums=(0, 1),
                                                allow_int=True)(X, N),
    "grad_int_only": lambda a, xp: a.grad(lambda x, n: x * n, argnums=1, allow_int=True)(X, N),
    "grad_int_array": lambda a, xp: a.grad(lambda x, n: (x * n).sum(), argnums=(0, 1),
                                            allow_int=True)(V, NS),
    "grad_bool_array": lambda a, xp: a.grad(lambda x, b: xp.where(b, x, 2 * x).sum(),
                                             argnums=(0, 1), allow_int=True)(V, B),
    "grad_uint8": lambda a, xp: a.grad(lambda x, n: x * n, argnums=1, allow_int=True)(
        X, np.uint8(4)),
    "value_and_grad_pytree": lambda a, xp: a.value_and_grad(
        lambda p: (p["w"] * p["n"]).sum() + p["s"] * xp.where(p["b"], 1.0, 0.0).sum(),
        allow_int=True)({"w": V, "n": NS, "s": X, "b": B}),
    "value_and_grad_has_aux": lambda a, xp: a.value_and_grad(
        lambda x, n: ((x * n).sum(), n), argnums=(0, 1), has_aux=True, allow_int=True)(V, NS),
    "grad_of_grad": lambda a, xp: a.grad(
        lambda x, n: a.grad(lambda x, n: x * x * n, argnums=(0, 1), allow_int=True)(x, n)[0],
        argnums=(0, 1), allow_int=True)(X, N),
    "vjp": lambda a, xp: a.vjp(lambda x, n: x * n, X, N)[1](X),
    "vjp_int_output_float0_cotangent": lambda a, xp: a.vjp(
        lambda x, n: (x * n, n * 2), X, NS)[1]((_f32(1.0, 2.0, 3.0), np.zeros(3, F0))),
    "vjp_int_output_int_cotangent": lambda a, xp: a.vjp(
        lambda x, n: (x * n, n), X, N)[1]((X, np.int32(0))),
    "vjp_only_int_outputs": lambda a, xp: a.vjp(lambda n: n * 2, NS)[1](np.zeros(3, F0)),
    "jacrev_int_blocks": lambda a, xp: a.jacrev(lambda x, n: x * n, argnums=(0, 1),
                                                allow_int=True)(V, NS),
    "jacrev_int8": lambda a, xp: a.jacrev(lambda n: (n * 2.0).sum(), allow_int=True)(
        np.arange(2, dtype=np.int8)),
}


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_reverse_mode_matches_jax(name):
    assert_like_jax(*_both(GRAD_CASES[name]))


def test_grad_of_python_scalars_matches_jax():
    """The brief's example: ``grad(lambda x, n: x * n, argnums=(0, 1), allow_int=True)(1.0,
    3)`` (jax's 32-bit defaults, as funcarray's)."""
    assert_like_jax(*_both(lambda a, xp: a.grad(lambda x, n: x * n, argnums=(0, 1),
                                                 allow_int=True)(1.0, 3)))
    assert_like_jax(*_both(lambda a, xp: a.jacrev(lambda x, n: x * n, argnums=1,
                                                   allow_int=True)(1.0, 3)))
    g = fa.grad(lambda x, n: x * n, argnums=1, allow_int=True)(1.0, 3)
    assert _is_float0(g) and g.shape == ()


# --------------------------------------------------------------------------------------------
# jvp, linearize
# --------------------------------------------------------------------------------------------

def _jvp_case(f, primals, tangents):
    return lambda a, xp: a.jvp(lambda *args: f(xp, *args), primals, tangents)


JVP_CASES = {
    "float0_tangent_for_int": _jvp_case(lambda xp, x, n: (x * n, n * 2), (V, NS),
                                        (V, np.zeros(3, F0))),
    "int_output_of_float": _jvp_case(lambda xp, x: (x * 2).astype(xp.int32), (V,), (V,)),
    "bool_output": _jvp_case(lambda xp, x: {"pos": x > 0, "x": x}, (V,), (V,)),
    "bool_primal": _jvp_case(lambda xp, x, b: xp.where(b, x, 0.0), (V, B), (V, np.zeros(3, F0))),
    "zeros_like_float0": _jvp_case(lambda xp, n: n + 1, (NS,), (fnp.zeros_like(NS, F0),)),
    "jvp_of_grad": lambda a, xp: a.jvp(
        a.grad(lambda x, n: x * x * n, argnums=(0, 1), allow_int=True), (X, N),
        (X, np.zeros((), F0))),
    "linearize": lambda a, xp: a.linearize(lambda x, n: (x * n, n * 2), X, NS)[1](
        X, np.zeros(3, F0)),
}


@pytest.mark.parametrize("name", sorted(JVP_CASES))
def test_forward_mode_matches_jax(name):
    assert_like_jax(*_both(JVP_CASES[name]))


def test_jvp_has_aux_with_integer_aux():
    got = fa.jvp(lambda x: (x * 2, x.astype(fnp.int32)), (V,), (V,), has_aux=True)
    want = jax.jvp(lambda x: (x * 2, x.astype(jnp.int32)), (V,), (V,), has_aux=True)
    assert_like_jax(got, want)


# --------------------------------------------------------------------------------------------
# jit, vmap, pytrees, creation
# --------------------------------------------------------------------------------------------

def _grad_xn(a):
    return a.grad(lambda x, n: (x * n).sum(), argnums=(0, 1), allow_int=True)


TRANSFORM_CASES = {
    "jit_of_grad": lambda a, xp: a.jit(_grad_xn(a))(V, NS),
    "jit_float0_argument": lambda a, xp: a.jit(lambda x, g: (x * 2, g))(X, np.zeros(2, F0)),
    "jit_returns_zeros": lambda a, xp: a.jit(lambda x: (x, xp.zeros((2,), F0)))(X),
    "vmap_of_grad": lambda a, xp: a.vmap(_grad_xn(a))(V, NS),
    "vmap_unmapped_int": lambda a, xp: a.vmap(_grad_xn(a), in_axes=(0, None))(V, N),
    "vmap_float0_in_axes_1": lambda a, xp: a.vmap(lambda z, x: (z, x), in_axes=(1, 0),
                                                  out_axes=(1, 0))(np.zeros((2, 3), F0), V),
    "vmap_float0_out_axes_none": lambda a, xp: a.vmap(lambda x: (x, np.zeros((), F0)),
                                                      out_axes=(0, None))(V),
    "jit_of_vmap_of_grad": lambda a, xp: a.jit(a.vmap(_grad_xn(a)))(V, NS),
    "grad_of_vmap": lambda a, xp: a.grad(lambda x, n: a.vmap(lambda u, k: u * k)(x, n).sum(),
                                         argnums=(0, 1), allow_int=True)(V, NS),
}


@pytest.mark.parametrize("name", sorted(TRANSFORM_CASES))
def test_float0_through_jit_and_vmap_matches_jax(name):
    assert_like_jax(*_both(TRANSFORM_CASES[name]))


def test_jitted_update_takes_float0_gradients_and_caches():
    params = {"w": V, "n": NS}
    grads = fa.grad(lambda p: (p["w"] * p["n"]).sum(), allow_int=True)(params)
    step = fa.jit(lambda p, g: fa.tree.map(
        lambda x, d: x if d.dtype == F0 else x - 0.5 * d, p, g))
    for _ in range(2):
        new = step(params, grads)
        np.testing.assert_allclose(np.asarray(new["w"]), V - 0.5 * NS)
        np.testing.assert_array_equal(np.asarray(new["n"]), NS)
    assert step.cache_info().misses == 1
    # the chunked vmap concatenates float0 outputs too
    out = fa.vmap(_grad_xn(fa), chunk_size=2)(V, NS)
    assert _is_float0(out[1]) and out[1].shape == (3,)


def test_tree_util_over_float0_gradients():
    grads = fa.grad(lambda p: p["a"] * p["n"], allow_int=True)({"a": X, "n": N})
    want = jax.grad(lambda p: p["a"] * p["n"], allow_int=True)({"a": X, "n": N})
    assert fa.tree_util.tree_map(lambda g: (g.shape, g.dtype), grads) == jax.tree.map(
        lambda g: (g.shape, g.dtype), want)
    assert [type(x) is np.ndarray for x in fa.tree.leaves(grads)] == [False, True]


def test_zeros_with_float0_dtype_like_jax():
    for got, want in [(fnp.zeros((2, 3), F0), jnp.zeros((2, 3), jax.dtypes.float0)),
                      (fnp.zeros_like(NS, dtype=F0), jnp.zeros_like(NS, dtype=F0)),
                      (fnp.zeros_like(np.zeros(2, F0)), jnp.zeros_like(np.zeros(2, F0)))]:
        assert _is_float0(got) and got.shape == want.shape and want.dtype == F0
    assert F0 == jax.dtypes.float0 and F0.itemsize == 0
    assert hasattr(fnp, "float0") == hasattr(jnp, "float0")


# --------------------------------------------------------------------------------------------
# custom_jvp, custom_vjp
# --------------------------------------------------------------------------------------------

def _custom_jvp_scale(api, seen):
    @api.custom_jvp
    def scale(x, n):
        return x * n

    @scale.defjvp
    def scale_jvp(primals, tangents):
        (x, n), (tx, tn) = primals, tangents
        seen.append((np.asarray(tn).dtype, np.shape(tn)))
        return scale(x, n), tx * n

    return scale


def test_custom_jvp_rule_gets_float0_for_integer_arguments():
    ours, theirs = [], []
    got = fa.grad(_custom_jvp_scale(fa, ours), argnums=(0, 1), allow_int=True)(V[0], NS[1])
    want = jax.grad(_custom_jvp_scale(jax, theirs), argnums=(0, 1), allow_int=True)(V[0], NS[1])
    assert_like_jax(got, want)
    assert ours == theirs == [(F0, ())]
    ours.clear()
    got = fa.jvp(_custom_jvp_scale(fa, ours), (V, NS), (V, np.zeros(3, F0)))
    assert ours == [(F0, (3,))] and got[1].dtype == np.float32


def _int_output_rule(api, xp, tangent):
    @api.custom_jvp
    def f(x):
        return (x * 2).astype(xp.int32), x

    @f.defjvp
    def f_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return f(x), (tangent(x), t)

    return f


def test_custom_jvp_integer_output_tangent_must_be_float0():
    float0_tangent = lambda x: np.zeros(np.shape(x), F0)  # noqa: E731
    assert_like_jax(*_both(lambda a, xp: a.jvp(_int_output_rule(a, xp, float0_tangent),
                                                (V,), (V,))))
    for bad in [lambda x: x.astype(np.int32), lambda x: x * 0, lambda x: np.zeros(5, F0)]:
        with pytest.raises(TypeError, match="Custom JVP rule must produce"):
            jax.jvp(_int_output_rule(jax, jnp, bad), (V,), (V,))
        with pytest.raises(TypeError, match=r"tangent output leaf 0 .*int32\[3\].*float0"):
            fa.jvp(_int_output_rule(fa, fnp, bad), (V,), (V,))


def _custom_vjp_pair(api, xp, seen, int_cotangent):
    @api.custom_vjp
    def f(x, n):
        return x * n, (x * n).astype(xp.int32)

    def fwd(x, n):
        return f(x, n), n

    def bwd(n, cts):
        seen.append((np.asarray(cts[1]).dtype, np.shape(cts[1])))
        return cts[0] * n, int_cotangent(n)

    f.defvjp(fwd, bwd)
    return f


@pytest.mark.parametrize("int_cotangent", [lambda n: None, lambda n: np.zeros(np.shape(n), F0),
                                           lambda n: n * 0])
def test_custom_vjp_bwd_float0_in_and_out(int_cotangent):
    """bwd gets float0 cotangents for integer outputs, and may return None, float0 or zeros
    for integer inputs (ignored), as in jax."""
    ours, theirs = [], []

    def run(a, xp, seen):
        f = _custom_vjp_pair(a, xp, seen, int_cotangent)
        return a.grad(lambda x, n: f(x, n)[0].sum(), argnums=(0, 1), allow_int=True)(V, NS)

    assert_like_jax(run(fa, fnp, ours), run(jax, jnp, theirs))
    assert ours == theirs == [(F0, (3,))]
    got = fa.vmap(lambda x, n: run(fa, fnp, [])[0] * x)(V, NS)  # bwd under vmap too
    assert got.shape == (3, 3)


# --------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------

def test_jvp_refuses_non_float0_tangents_of_integer_primals():
    f = lambda x, n: x * n  # noqa: E731
    for bad in [np.int32(0), 0.0]:
        with pytest.raises(TypeError, match="tangent dtype must be float0"):
            jax.jvp(f, (X, N), (X, bad))
        with pytest.raises(TypeError, match=r"primals\[1\].*dtype .*int32.*float0") as info:
            fa.jvp(f, (X, N), (X, bad))
        assert "numpy.zeros((), funcarray.dtypes.float0)" in str(info.value)
    with pytest.raises(TypeError, match="expected tangent dtype float32"):
        jax.jvp(f, (X, N), (np.zeros((), F0), np.zeros((), F0)))
    with pytest.raises(TypeError, match=r"primals\[0\] is a float0 array.*float32\[\]"):
        fa.jvp(f, (X, N), (np.zeros((), F0), np.zeros((), F0)))
    with pytest.raises(TypeError, match=r"float0\[2\].*int32\[3\]"):
        fa.jvp(lambda x, n: x * n, (X, NS), (X, np.zeros(2, F0)))


def test_linearize_and_vjp_check_integer_slots():
    _, f_jvp = fa.linearize(lambda x, n: x * n, X, N)
    _, j_jvp = jax.linearize(lambda x, n: x * n, X, N)
    for bad in [np.int32(0), np.zeros(2, F0)]:
        with pytest.raises(ValueError, match="inconsistent with the original primal"):
            j_jvp(X, bad)
        with pytest.raises(ValueError, match=r"tangents\[1\].*int32\[\].*float0"):
            f_jvp(X, bad)
    with pytest.raises(ValueError, match="float0 is for integer primals"):
        f_jvp(np.zeros((), F0), np.zeros((), F0))
    _, f_vjp = fa.vjp(lambda x, n: (x * n, n), X, N)
    _, j_vjp = jax.vjp(lambda x, n: (x * n, n), X, N)
    with pytest.raises(ValueError, match="unexpected JAX type"):
        j_vjp((X, np.zeros(3, F0)))
    with pytest.raises(TypeError, match=r"cotangent\[1\] has shape \(3,\).*int32\[\]"):
        f_vjp((X, np.zeros(3, F0)))


def test_float0_arrays_refuse_operations_and_grad_needs_allow_int():
    with pytest.raises(TypeError, match="float0"):
        jnp.add(X, np.zeros((), F0))
    with pytest.raises(TypeError, match="add: got a float0 array.*allow_int"):
        fnp.add(X, np.zeros((), F0))
    with pytest.raises(TypeError, match="set allow_int to True"):
        jax.grad(lambda x, n: x * n, argnums=1)(X, N)
    with pytest.raises(TypeError, match="pass allow_int=True to get float0 zeros"):
        fa.grad(lambda x, n: x * n, argnums=1)(X, N)
    with pytest.raises(TypeError, match="use jvp directly"):
        fa.jacfwd(lambda n: n * 2.0)(NS)
