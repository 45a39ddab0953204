"""funcarray.test_util.check_grads against jax.test_util.check_grads: same signature, same
verdicts on right and wrong derivative rules."""

import inspect

import jax
import jax.numpy as jnp
import jax.test_util
import numpy as np
import pytest

import funcarray as fa
import funcarray.numpy as fnp
from funcarray import test_util


def test_signature_is_jax():
    def parameters(fn):
        return [(p.name, p.default) for p in inspect.signature(fn).parameters.values()]

    assert parameters(test_util.check_grads) == parameters(jax.test_util.check_grads)
    assert fa.test_util.check_grads is test_util.check_grads


def _sin_with_rule(lib, custom_jvp, scale):
    @custom_jvp
    def f(x):
        return lib.sin(x)

    @f.defjvp
    def f_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return lib.sin(x), scale * lib.cos(x) * t

    return f


@pytest.mark.parametrize("scale, order, modes", [
    (1.0, 1, ("fwd", "rev")), (1.0, 2, ["fwd"]), (1.0, 1, ["rev"]),
    (1.5, 1, ("fwd", "rev")), (1.5, 1, ["rev"])])
def test_verdicts_match_jax(scale, order, modes):
    x = np.array([0.3, -0.7, 1.1])

    def verdict(check, f, arg):
        try:
            check(f, (arg,), order, modes=modes, atol=1e-2, rtol=1e-2)
        except AssertionError:
            return "wrong"
        return "right"

    got = verdict(test_util.check_grads, _sin_with_rule(fnp, fa.custom_jvp, scale),
                  fnp.asarray(x))
    want = verdict(jax.test_util.check_grads, _sin_with_rule(jnp, jax.custom_jvp, scale),
                   jnp.asarray(x))
    assert got == want == ("right" if scale == 1.0 else "wrong")


def test_pytree_arguments_and_bad_modes():
    test_util.check_grads(lambda p: fnp.sum(p["w"] * fnp.tanh(p["b"])),
                          ({"w": fnp.ones(2), "b": fnp.arange(2.0)},), 2)
    with pytest.raises(ValueError, match="modes"):
        test_util.check_grads(fnp.sin, (1.0,), 1, modes=("sideways",))
