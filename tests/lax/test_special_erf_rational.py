"""erf and erfc's eager kernels (Cephes' float64 rational approximations, rounded to the
dtype), and the NumPy-scalar constants that the composite formulas' element-by-element path
shares.

* float64 results are within a few ulps of libm's ``math.erf``/``math.erfc`` (erfc below 1
  within a few ulps of 1, as ``1 - erf``; its tail within the error of ``exp(-x^2)`` of a
  rounded ``x^2``), float32 results are the float64 value rounded, and the special values
  are exact.
* An element's bits are the same alone (0-d, a few elements) and in a large array, whichever
  range of |x| the other elements fall in.
* ``SCALAR_OPS.full_like`` and ``select`` keep a constant's sign and type (zeros and NaNs
  included) and reuse the NumPy scalars of the others.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from funcarray.lax._special_host_ops import ON_ELEMENTS_UP_TO, SCALAR_OPS
from funcarray.primitives import special

_KERNELS = {"erf": (special.erf_p.kernel, math.erf), "erfc": (special.erfc_p.kernel, math.erfc)}
# Each range of the approximation and its edges: |x| < 1, [1, 8), [8, 28], beyond.
_EDGES = [0.0, -0.0, 0.5, 1.0, -1.0, 0.9999999999999999, 1.0000000000000002, 7.999999999999999,
          8.0, -8.0, 26.5, 27.3, 28.0, 28.5, -30.0, 1e-300, 5e-324, -5e-324, 1e300]
_FLOATS = st.one_of(st.sampled_from(_EDGES), st.floats(-30, 30), st.floats(-1.5, 1.5),
                    st.floats(allow_nan=False, allow_infinity=False))


def _ulps(got: float, want: float) -> float:
    return abs(got - want) / math.ulp(max(abs(want), 2.2250738585072014e-308))


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(_KERNELS)), _FLOATS)
def test_float64_values_are_within_a_few_ulps_of_libm(name, x):
    kernel, reference = _KERNELS[name]
    got, want = float(kernel(np.float64(x))), reference(x)
    # erfc's relative error grows as x^2 eps beyond 1 (exp of a rounded -x^2), as libm's
    # would without its extra precision; below 1 it is 1 - erf, a few ulps of 1.
    slack = 4 + (2 * x * x if name == "erfc" and x > 1 else 0)
    if abs(want) < 1e-300:  # (subnormal results: a few of the smallest steps)
        assert abs(got - want) <= 1e-310, (name, x, got, want)
    elif name == "erfc" and abs(x) < 1:
        assert abs(got - want) <= 2 * math.ulp(1.0), (name, x, got, want)
    else:
        assert _ulps(got, want) <= slack, (name, x, got, want)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(sorted(_KERNELS)), st.floats(-30, 30, width=32))
def test_float32_values_are_the_float64_values_rounded(name, x):
    kernel, _ = _KERNELS[name]
    x32 = np.float32(x)
    assert kernel(np.asarray(x32)) == np.float32(kernel(np.float64(x32)))


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(sorted(_KERNELS)), st.sampled_from([np.float32, np.float64]),
       st.lists(st.one_of(_FLOATS, st.just(math.nan), st.just(math.inf), st.just(-math.inf)),
                min_size=1, max_size=ON_ELEMENTS_UP_TO))
def test_each_element_has_the_same_bits_alone_and_among_many(name, dtype, values):
    kernel, _ = _KERNELS[name]
    with np.errstate(over="ignore"):
        x = np.asarray(values, np.float64).astype(dtype)
        edges = np.asarray(_EDGES, np.float64).astype(dtype)
    # The small array's elements each meet every range of the approximation in the large one.
    large = np.concatenate([x, edges, np.linspace(-30, 30, 50, dtype=dtype)])
    small, whole = kernel(x), kernel(large)[:x.size]
    assert small.tobytes() == whole.tobytes()
    for i in range(x.size):
        assert kernel(x[i]).tobytes() == whole[i:i + 1].tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_special_values(dtype):
    x = np.asarray([0.0, -0.0, np.inf, -np.inf, np.nan, 30.0, -30.0], dtype)
    for size in (1, x.size * ON_ELEMENTS_UP_TO):  # one element at a time, and a large array
        erf = np.concatenate([special.erf_p.kernel(np.tile(x[i:i + 1], size))[:1]
                              for i in range(x.size)])
        erfc = np.concatenate([special.erfc_p.kernel(np.tile(x[i:i + 1], size))[:1]
                               for i in range(x.size)])
        np.testing.assert_array_equal(erf, [0.0, -0.0, 1.0, -1.0, np.nan, 1.0, -1.0])
        np.testing.assert_array_equal(np.signbit(erf[:2]), [False, True])
        np.testing.assert_array_equal(erfc, [1.0, 1.0, 0.0, 2.0, np.nan, 0.0, 2.0])
        assert erf.dtype == erfc.dtype == dtype


@pytest.mark.parametrize("scalar_type", [np.float32, np.float64])
@pytest.mark.parametrize("value", [0.0, -0.0, 0, 1.0, 1, -2.5, 1e-3, math.inf, -math.inf,
                                   math.nan])
def test_scalar_constants_keep_their_type_sign_and_value(scalar_type, value):
    x = scalar_type(3.0)
    for _ in range(2):  # (built, then reused where it is kept)
        for constant in (SCALAR_OPS.full_like(x, value), SCALAR_OPS.select(True, value, x),
                         SCALAR_OPS.select(False, x, value)):
            assert type(constant) is scalar_type
            assert np.asarray(constant).tobytes() == np.asarray(scalar_type(value)).tobytes()
