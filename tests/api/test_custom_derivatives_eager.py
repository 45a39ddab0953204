"""custom_jvp / custom_vjp under eager transforms: the rules (and the function, for the
primal output) run on concrete values, so Python control flow and print work there, as in
jax; under jit they still stage (concretization error). Against jax."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import funcarray as fa
import funcarray.numpy as fnp
from funcarray.testing import assert_allclose
from funcarray.transforms.core import ConcretizationError, Tracer


def _abs_with_rule(lib):
    """The jax docs' kind of custom_jvp: Python branches on the primal, in the function and
    in its rule; ``seen`` records what each was called with."""
    seen = []

    @lib.custom_jvp
    def f(x):
        seen.append(("f", x))
        if x > 0:
            return x
        return -x

    @f.defjvp
    def f_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        seen.append(("rule", x))
        return f(x), (1.0 if x > 0 else -1.0) * t

    return f, seen


def _sin_with_printing_fwd(lib, np_, printed):
    @lib.custom_vjp
    def g(x):
        return np_.sin(x)

    def g_fwd(x):
        printed.append(f"fwd {float(x):.3f}")  # float(): needs a concrete value
        return np_.sin(x), np_.cos(x)

    def g_bwd(cos_x, ct):
        printed.append(f"bwd {float(cos_x):.3f}")
        return (cos_x * ct,)

    g.defvjp(g_fwd, g_bwd)
    return g


_TRANSFORMS = {
    "grad": lambda t, f: t.grad(f),
    "jacfwd": lambda t, f: t.jacfwd(f),
    "jacrev": lambda t, f: t.jacrev(f),
    "jvp": lambda t, f: lambda x: t.jvp(f, (x,), (2.0 * x,)),
    "vjp": lambda t, f: lambda x: t.vjp(f, x)[1](3.0 * x),
    "grad of grad": lambda t, f: t.grad(t.grad(f)),
}


def _concrete_numbers(seen) -> list:
    # (jacfwd's vmap stages the function once before running it on the concrete primal:
    # that attempt's tracer is left out)
    return [(who, float(np.asarray(x))) for who, x in seen if not isinstance(x, Tracer)]


@pytest.mark.parametrize("x", [1.5, -2.0])
@pytest.mark.parametrize("name", list(_TRANSFORMS))
def test_custom_jvp_with_python_control_flow_matches_jax(name, x):
    f, seen = _abs_with_rule(fa)
    jf, jax_seen = _abs_with_rule(jax)
    got = _TRANSFORMS[name](fa, f)(x)
    want = _TRANSFORMS[name](jax, jf)(x)
    for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want)):
        assert float(np.asarray(g)) == float(np.asarray(w))
    if name != "grad of grad":  # (the inner grad's values are tracers of the outer one)
        # the rule and the function saw the same concrete numbers as in jax
        assert _concrete_numbers(seen) == _concrete_numbers(jax_seen)


@pytest.mark.parametrize("name", ["grad", "jacrev", "vjp"])
def test_custom_vjp_rules_see_numbers_as_in_jax(name):
    printed, jax_printed = [], []
    g = _sin_with_printing_fwd(fa, fnp, printed)
    jg = _sin_with_printing_fwd(jax, jnp, jax_printed)
    got = _TRANSFORMS[name](fa, g)(0.7)
    want = _TRANSFORMS[name](jax, jg)(0.7)
    for a, b in zip(jax.tree.leaves(got), jax.tree.leaves(want)):
        assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6, check_dtype=False)
    assert printed == jax_printed == ["fwd 0.700", "bwd 0.765"]


def test_custom_jvp_vmap_of_grad_batches_the_rule():
    def smooth(lib, np_):
        @lib.custom_jvp
        def f(x):
            return np_.where(x > 0, x, 0.0)

        @f.defjvp
        def f_jvp(primals, tangents):
            (x,), (t,) = primals, tangents
            return f(x), np_.where(x > 0, 1.0, 0.5) * t
        return f

    xs = np.array([-1.0, 0.5, 2.0], np.float32)
    got = fa.vmap(fa.grad(smooth(fa, fnp)))(fnp.asarray(xs))
    want = jax.vmap(jax.grad(smooth(jax, jnp)))(jnp.asarray(xs))
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


@pytest.mark.parametrize("name", ["grad", "jacrev"])
def test_python_control_flow_under_jit_still_raises(name):
    f, _ = _abs_with_rule(fa)
    jf, _ = _abs_with_rule(jax)
    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.jit(_TRANSFORMS[name](jax, jf))(1.5)
    with pytest.raises(ConcretizationError):
        fa.jit(_TRANSFORMS[name](fa, f))(1.5)
    # and under vmap (batched primal values), in both
    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.vmap(jax.grad(jf))(jnp.array([1.0, -2.0]))
    with pytest.raises(ConcretizationError):
        fa.vmap(fa.grad(f))(fnp.array([1.0, -2.0]))
