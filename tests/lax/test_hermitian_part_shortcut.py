"""``lax.linalg.hermitian_part``'s host shortcut (one NumPy expression) gives exactly the
general path's ``(a + a^H) / 2``, and so do the factorisations that symmetrise with it."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from op_table import ALL_DTYPES
from shortcut_oracle import assert_same_outcome

import funcarray as fa
import funcarray.numpy as fnp
import funcarray.testing as ft
from funcarray.base.array import Array
from funcarray.lax import linalg
from funcarray.lax.linalg import _hermitian_part_on_host

_SPECIALS = st.sampled_from([np.nan, np.inf, -np.inf, -0.0, 0.0])


@st.composite
def matrices(draw):
    """Host, device or weak (stacks of) square matrices of any dtype, NaN/inf/-0.0 included."""
    n = draw(st.integers(1, 3))
    shape = draw(st.sampled_from([(n, n), (2, n, n), (n, n + 1), (n,)]))
    dtype = draw(st.sampled_from(ALL_DTYPES))
    real = st.one_of(_SPECIALS, st.floats(-100, 100, width=32))
    elements = (st.builds(complex, real, real) if np.dtype(dtype).kind == "c"
                else st.one_of(_SPECIALS, ft.finite_floats(dtype, min_value=-100, max_value=100))
                if np.dtype(dtype).kind == "f" or dtype == fa.dtypes.bfloat16 else None)
    x = draw(ft.arrays(dtype, shape, elements=elements))
    form = draw(st.sampled_from(["array", "device", "weak"]))
    if form == "device":
        return fa.device_put(x)
    if form == "weak" and np.dtype(dtype).kind == "f":
        return Array(np.asarray(x).astype(np.float32), True)
    return x


@given(matrices(), st.sampled_from(["hermitian_part", "cholesky", "eigh"]))
def test_hermitian_part_matches_the_general_path(a, name):
    fn = {"hermitian_part": linalg.hermitian_part, "cholesky": linalg.cholesky,
          "eigh": lambda a: linalg.eigh(a)[1]}[name]
    with np.errstate(all="ignore"):
        assert_same_outcome(lambda: fn(a))


def test_hermitian_part_shortcut_takes_the_common_forms():
    m = np.arange(9.0).reshape(3, 3)
    for convert in (fnp.asarray, fa.device_put):
        for dtype in (np.float32, np.float64, np.complex64, np.complex128):
            a = convert(m.astype(dtype))
            assert type(_hermitian_part_on_host(a)) is Array
            assert type(_hermitian_part_on_host(fnp.stack([a, a]))) is Array
    assert _hermitian_part_on_host(fnp.ones((2, 2), np.int32)) is NotImplemented


def test_complex_infinities_halve_as_on_the_general_path():
    """A complex infinity over 2 is NaN in NumPy's division, infinite in XLA's (the general
    path's kernel): the shortcut divides with that kernel."""
    values = [complex(np.inf, np.nan), complex(-np.inf, 1.0), complex(np.nan, np.inf)]
    for dtype in (np.complex64, np.complex128):
        for value in values:
            a = fnp.asarray(np.full((2, 2), value, dtype))
            with np.errstate(all="ignore"):
                assert_same_outcome(lambda a=a: linalg.hermitian_part(a))
