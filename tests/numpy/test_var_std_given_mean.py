"""``var``/``std``/``nanvar``/``nanstd`` with ``mean=`` (a mean computed beforehand), against
jax.numpy: values, dtypes and weak types over shapes, axes, ``keepdims``, ``ddof``/``correction``
and ``where=``, eagerly and under ``fa.jit``; the gradient with respect to the mean; the
shapes ``mean=`` may take.
"""

from __future__ import annotations

import inspect

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import funcarray as fa
import funcarray.numpy as fnp

NAMES = ("var", "std", "nanvar", "nanstd")


@st.composite
def calls(draw):
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))
    x = draw(hnp.arrays(np.float32, shape, elements=st.sampled_from(
        [0.0, 1.5, -2.0, 4.0, 0.25, np.nan])))
    axis = draw(st.one_of(st.none(), st.integers(0, x.ndim - 1),
                          st.lists(st.integers(0, x.ndim - 1), min_size=1, unique=True)
                          .map(tuple)))
    name = draw(st.sampled_from(NAMES))
    kwargs = dict(axis=axis, keepdims=draw(st.booleans()), ddof=draw(st.integers(0, 2)))
    if draw(st.booleans()):
        kwargs["where"] = draw(hnp.arrays(np.bool_, shape))
    # The mean as jax.numpy's docs compute it (the reduced axes kept), moved a little so
    # that using it (and not a recomputed one) shows, or a scalar.
    with jax.enable_x64(False):
        kept = np.asarray(jnp.nanmean(x, axis, keepdims=True))
    kwargs["mean"] = draw(st.sampled_from([kept + np.float32(0.5), kept, 1.0]))
    return name, x, kwargs


def _check(got, want, what):
    assert got.shape == want.shape, what
    assert got.dtype == want.dtype, what
    assert got.weak_type == want.weak_type, what
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=2e-6, atol=1e-6,
                               equal_nan=True, err_msg=what)


@settings(max_examples=25, deadline=None)
@given(calls())
def test_given_mean_matches_jax(call):
    name, x, kwargs = call
    with jax.enable_x64(False):
        want = getattr(jnp, name)(x, **kwargs)
    _check(getattr(fnp, name)(x, **kwargs), want, f"{name} {kwargs}")


@settings(max_examples=4, phases=(Phase.explicit, Phase.generate), deadline=None)
@given(calls())
def test_given_mean_under_jit_matches_jax(call):
    name, x, kwargs = call
    mean = kwargs.pop("mean")
    with jax.enable_x64(False):
        want = getattr(jnp, name)(x, mean=mean, **kwargs)
    got = fa.jit(lambda a, m: getattr(fnp, name)(a, mean=m, **kwargs))(x, mean)
    _check(got, want, f"jit {name} {kwargs}")


def test_gradient_with_respect_to_the_mean_matches_jax():
    x = np.array([[1.0, 2.0, np.nan], [4.0, 0.5, 3.0]], np.float32)
    mean = np.array([[1.0], [2.0]], np.float32)
    for name in NAMES:
        def loss(np_, name=name):
            return lambda m: getattr(np_, name)(x, axis=1, mean=m, ddof=1).sum()

        with jax.enable_x64(False):
            want = jax.grad(loss(jnp))(mean)
        np.testing.assert_allclose(fa.grad(loss(fnp))(mean), want, rtol=1e-6, err_msg=name)


def test_positional_where_and_mean_of_the_nan_forms_as_in_jax():
    x = np.array([1.0, np.nan, 3.0, 5.0], np.float32)
    where = np.array([True, True, True, False])
    with jax.enable_x64(False):
        want = jnp.nanvar(x, None, None, None, 0, False, where, 2.0)
    _check(fnp.nanvar(x, None, None, None, 0, False, where, 2.0), want, "nanvar positional")


@pytest.mark.parametrize("shape", [(3,), (3, 3), (1, 1, 3)])
def test_a_mean_of_another_rank_or_shape_raises_type_error_as_in_jax(shape):
    x = np.ones((2, 3), np.float32)
    with pytest.raises(TypeError), jax.enable_x64(False):
        jnp.var(x, axis=0, mean=np.ones(shape, np.float32))
    with pytest.raises(TypeError, match=r"var: mean= must be a scalar or broadcast to a's "
                                        r"shape \(2, 3\)"):
        fnp.var(x, axis=0, mean=np.ones(shape, np.float32))


@pytest.mark.parametrize("name", NAMES)
def test_signatures_are_jax_numpys(name):
    def parameters(f):
        return [(p.name, p.kind, p.default) for p in inspect.signature(f).parameters.values()]

    ours, theirs = parameters(getattr(fnp, name)), parameters(getattr(jnp, name))
    # (the nan forms also take the Array API's correction=, keyword-only, after jax's own)
    if name.startswith("nan"):
        assert ours[-1] == ("correction", inspect.Parameter.KEYWORD_ONLY, None)
        ours = ours[:-1]
    assert ours == theirs
