"""array-api-extra's functions, written against the Array API standard, on funcarray arrays:
the same call on NumPy arrays is the oracle, eagerly and (where the function's output shape
does not depend on values) under jit."""

from __future__ import annotations

import warnings

import array_api_extra as xpx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import funcarray as fa
import funcarray.numpy as fnp

# name -> (call(xp, x) on a float64 matrix x, jittable)
CALLS = {
    "atleast_nd": (lambda xp, x: xpx.atleast_nd(x[0], ndim=3, xp=xp), True),
    "cov": (lambda xp, x: xpx.cov(x, xp=xp), True),
    "kron": (lambda xp, x: xpx.kron(x, x[:2, :2], xp=xp), True),
    "sinc": (lambda xp, x: xpx.sinc(x, xp=xp), True),
    "isclose": (lambda xp, x: xpx.isclose(x, x * (1 + 1e-9), xp=xp), True),
    "apply_where": (lambda xp, x: xpx.apply_where(x > 0, x, xp.log, fill_value=-1.0, xp=xp),
                    True),
    "nan_to_num": (lambda xp, x: xpx.nan_to_num(xp.log(x), xp=xp), True),
    "nanmean": (lambda xp, x: xpx.nanmean(xp.log(x), axis=0, xp=xp), True),
    "one_hot": (lambda xp, x: xpx.one_hot(xp.asarray([0, 2, 1, 2]), 3, xp=xp), True),
    "angle": (lambda xp, x: xpx.angle(x * 1j - 0.5, xp=xp), True),
    "unravel_index": (lambda xp, x: xp.stack(xpx.unravel_index(
        xp.asarray([0, 3, 5]), (2, 3), xp=xp)), True),
    "partition": (lambda xp, x: xp.sort(xpx.partition(xp.reshape(x, (-1,)), 2, xp=xp)[:3]),
                  True),
    "nunique": (lambda xp, x: xpx.nunique(xp.round(x), xp=xp), False),
    "setdiff1d": (lambda xp, x: xpx.setdiff1d(xp.round(x[0]), xp.round(x[1]), xp=xp), False),
    "union1d": (lambda xp, x: xpx.union1d(xp.round(x[0]), xp.round(x[1]), xp=xp), False),
    "isin": (lambda xp, x: xpx.isin(xp.round(x), xp.round(x[0]), xp=xp), True),
}

_MATRICES = hnp.arrays(np.float64, st.tuples(st.integers(2, 4), st.integers(2, 4)),
                       elements=st.floats(-4, 4, allow_subnormal=False))


@pytest.mark.parametrize("name", list(CALLS))
@settings(max_examples=5, deadline=None)
@given(x=_MATRICES)
def test_array_api_extra_on_funcarray_matches_numpy(name, x):
    call, jittable = CALLS[name]
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (NumPy's nanmean of all-NaN)
        want = np.asarray(call(np, x))
    runs = [("eager", lambda a: call(fnp, a))]
    if jittable:
        runs.append(("jit", fa.jit(lambda a: call(fnp, a))))
    for how, run in runs:
        got = run(fnp.asarray(x))
        assert isinstance(got, fa.Array), (how, type(got))
        assert got.shape == want.shape, how
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12, atol=1e-12,
                                   err_msg=how)


def test_mutating_helpers_are_refused_with_the_functional_update():
    """array-api-extra updates arrays it does not know to be immutable in place (only jax's
    are known to it): funcarray keeps its arrays immutable and names ``.at[]``."""
    with pytest.raises(TypeError, match=r"(?s)immutable.*\.at\["):
        xpx.at(fnp.zeros(3))[1].set(2.0)
