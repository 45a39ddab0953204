"""fnp.isscalar against jnp.isscalar: 0-d arrays count as scalars, as in jax."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import funcarray as fa
import funcarray.numpy as fnp

_VALUES = [1.0, 3, True, 1j, np.float32(1.0), np.int8(2), np.array(1.0), np.ones(2),
           np.ones((1, 1)), "text", None, [1], (1.0,)]


@pytest.mark.parametrize("value", _VALUES, ids=repr)
def test_isscalar_of_host_values_matches_jax(value):
    assert fnp.isscalar(value) == jnp.isscalar(value)


@pytest.mark.parametrize("shape", [(), (1,), (2, 3)])
def test_isscalar_of_arrays_and_tracers_matches_jax(shape):
    want = jnp.isscalar(jnp.ones(shape))
    assert fnp.isscalar(fnp.ones(shape)) == want
    for fa_transform, jax_transform in ((fa.jit, jax.jit), (fa.vmap, jax.vmap)):
        seen = {}

        def probe(lib, key):
            def f(x):
                seen[key] = lib.isscalar(x)
                return x
            return f

        fa_transform(probe(fnp, "fa"))(fnp.ones((2, *shape)))
        jax_transform(probe(jnp, "jax"))(jnp.ones((2, *shape)))
        assert seen["fa"] == seen["jax"]
    assert fa.grad(lambda x: float(fnp.isscalar(x)) * x)(1.0) == 1.0
