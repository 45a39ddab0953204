"""The special functions' short paths give the bits of their general paths.

* The eager kernels of ``erf``, ``erfc``, ``erf_inv``, ``lgamma`` and ``digamma`` run a small
  array element by element on NumPy scalars and a larger one as a whole: each element's
  result is the same either way (it depends on that element only).
* The host shortcuts of ``lax.bessel_i0e``/``i1e``, ``igamma``/``igammac``, ``betainc``,
  ``zeta`` and ``polygamma`` (element by element for a few elements, whole arrays beyond)
  give the general path's outcome (``tests/shortcut_oracle.py``) for every size, dtype,
  special value and operand kind; ``funcarray.numpy.i0`` and ``kaiser`` too.
* The shortcuts are taken for the common forms (a later change cannot silently drop them).
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from shortcut_oracle import assert_same_outcome

import funcarray as fa
import funcarray.numpy as fnp
from funcarray import lax
from funcarray.base.array import Array
from funcarray.lax import _special
from funcarray.lax._special_bessel import _i0_on_host
from funcarray.lax._special_host_ops import HOST_OPS, ON_ELEMENTS_UP_TO, SCALAR_OPS, on_elements
from funcarray.numpy._numerics_stats import _kaiser_on_host
from funcarray.primitives import special

_SPECIAL_FLOATS = [0.0, -0.0, 1.0, 2.0, -1.0, -2.0, 0.5, -0.5, 1.5, -1.5, 3.0, 25.0, -30.0,
                   0.99999994, -0.99999994, 1e-40, -3e-39, 5e-324, 1e-30, 1e30, -1e30, 3e38,
                   1e300, np.inf, -np.inf, np.nan]
_VALUES = st.one_of(st.sampled_from(_SPECIAL_FLOATS), st.floats(-40, 40),
                    st.floats(-1, 1), st.floats(allow_nan=True, allow_infinity=True))
_KERNELS = ["erf", "erfc", "erf_inv", "lgamma", "digamma"]
_KINDS = ("array", "weak", "device", "numpy", "list")


def _same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def _same_value(a, b):
    """The same bits, or both NaN: NumPy's own ufunc loops give a NaN of either sign where
    two NaNs meet (its 0-d and 1-d loops differ), so a kernel's NaN sign is NumPy's."""
    a, b = np.asarray(a), np.asarray(b)
    both_nan = a.dtype == b.dtype and a.shape == b.shape and bool(np.isnan(a) & np.isnan(b))
    return both_nan or _same_bits(a, b)


def _cast(values, dtype):
    with np.errstate(over="ignore"):
        return np.asarray(values, np.float64).astype(dtype)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(_KERNELS), st.sampled_from([np.float32, np.float64]),
       st.lists(_VALUES, min_size=1, max_size=12))
def test_kernels_give_each_element_the_same_bits_alone_and_in_a_large_array(name, dtype,
                                                                           values):
    kernel = getattr(special, f"{name}_p").kernel
    # Repeated past the element-by-element size, so that the whole-array path runs too.
    x = _cast(values * (ON_ELEMENTS_UP_TO + 1), dtype)
    with np.errstate(all="ignore"):
        whole = kernel(x)
        alone = [kernel(x[i:i + 1]) for i in range(len(values))]
        zero_d = [kernel(x[i]) for i in range(len(values))]
    assert whole.dtype == dtype and whole.shape == x.shape
    for i in range(len(values)):
        assert _same_value(whole[i:i + 1], alone[i]), (name, x[i])
        assert _same_value(whole[i], zero_d[i]), (name, x[i])


@pytest.mark.parametrize("name", _KERNELS)
def test_kernels_keep_shapes_and_low_precision_dtypes(name):
    prim = getattr(special, f"{name}_p")
    for shape in [(0,), (), (1,), (2, 3), (3, 0, 2), (4, 4)]:
        for dtype in (np.float16, np.float32, np.float64):
            x = np.full(shape, 0.25, dtype)
            out = prim.kernel(x)
            assert out.shape == shape and out.dtype == dtype


def _operand(value, kind):
    if kind == "numpy":
        return value
    if kind == "list":
        return value.tolist()
    if kind == "weak":
        return Array(value.copy(), True)
    if kind == "device":
        return fa.device_put(fnp.asarray(value))
    return fnp.asarray(value)


_ARGUMENTS = st.one_of(st.sampled_from([1.0, 2.0, 0.5, -2.0, 0.0, -1.5, 30.0, 1e30, np.inf,
                                        -np.inf, np.nan]), st.floats(-5, 40))
_ONE_OPERAND = [lax.bessel_i0e, lax.bessel_i1e]
_TWO_OPERANDS = [lax.zeta, lax.igamma, lax.igammac, lax.polygamma]


@settings(max_examples=50, deadline=None)
@given(st.sampled_from(_ONE_OPERAND + _TWO_OPERANDS + [lax.betainc]),
       st.sampled_from([np.float16, np.float32, np.float64]),
       st.integers(0, ON_ELEMENTS_UP_TO + 3), st.data(), st.sampled_from(_KINDS))
def test_composite_shortcuts_match_general_path_for_every_size(op, dtype, size, data, kind):
    arity = 1 if op in _ONE_OPERAND else 3 if op is lax.betainc else 2
    columns = []
    for i in range(arity):
        values = data.draw(st.lists(
            st.floats(0, 1) if (op is lax.betainc and i == 2) else _ARGUMENTS,
            min_size=size, max_size=size))
        if op is lax.polygamma and i == 0:
            values = [float(round(abs(v))) % 6 if np.isfinite(v) else v for v in values]
        columns.append(_cast(values, dtype))
    shape = data.draw(st.sampled_from([(size,), (1, size)] + ([()] if size == 1 else [])))
    operands = [_operand(c.reshape(shape), kind) for c in columns]
    assert_same_outcome(lambda: op(*operands))


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([fnp.i0, lambda x: fnp.kaiser(5, x), lambda x: fnp.kaiser(9, x),
                        lambda x: fnp.kaiser(1, x)]),
       st.sampled_from([np.float16, np.float32, np.float64, np.int32, np.bool_]),
       st.lists(_ARGUMENTS, max_size=ON_ELEMENTS_UP_TO + 3),
       st.sampled_from(_KINDS + ("scalar",)))
def test_i0_and_kaiser_match_general_path(op, dtype, values, kind):
    with np.errstate(all="ignore"):
        x = _cast(values, np.float64).astype(dtype) if dtype != np.bool_ else (
            np.asarray(values) > 1)
    if op is not fnp.i0:
        x = x[:1].reshape(()) if x.size else np.asarray(3.0, dtype)
    if kind == "scalar":
        arg = x.item() if x.ndim == 0 else fnp.asarray(x)
    else:
        arg = _operand(x, kind)
    assert_same_outcome(lambda: op(arg))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_formulas_on_scalars_and_on_whole_arrays_agree(dtype):
    rng = np.random.default_rng(0)
    a, b, x = (rng.uniform(0.1, 5, 10).astype(dtype) for _ in range(3))
    u = rng.uniform(0, 1, 10).astype(dtype)
    cases = [(_special.igamma_formula, [a, x]), (_special.igammac_formula, [a, x]),
             (_special.zeta_formula, [a + 1, x]), (_special.betainc_formula, [a, b, u]),
             (_special.polygamma_formula, [np.floor(a), x])]
    with np.errstate(all="ignore"):
        for formula, values in cases:
            assert _same_bits(on_elements(formula, values), formula(*values, HOST_OPS))


def test_shortcuts_take_the_common_forms():
    for dtype in (np.float32, np.float64):
        for shape in [(), (4,), (8, 8)]:
            x = fnp.asarray(np.full(shape, 0.5, dtype))
            d = fa.device_put(x)
            for operand in (x, d):
                for order in (0, 1):
                    assert type(_special._bessel_on_host(order)(operand)) is Array
                for formula in (_special.igamma_formula, _special.igammac_formula,
                                _special.zeta_formula, _special.polygamma_formula):
                    assert type(_special._formula_on_host(formula)(operand, x)) is Array
                assert type(_special._formula_on_host(_special.betainc_formula)(
                    operand, x, x)) is Array
                assert type(_i0_on_host(operand)) is Array
    for M in (2, 5, 64):
        assert type(_kaiser_on_host(M, 5.0)) is Array
        assert type(_kaiser_on_host(M, 3)) is Array


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_whole_array_shortcuts_match_general_path_when_every_element_takes_one_branch(dtype):
    # select_lazily computes only the branch every element takes, if one: all small,
    # all large and mixed arguments (bessel's |x| = 25, log_beta's 8, igamma's x = a).
    rng = np.random.default_rng(1)
    for low, high in [(0.1, 5), (30, 60), (0.1, 60), (8, 900)]:
        a, b = (fnp.asarray(rng.uniform(low, high, 12).astype(dtype)) for _ in range(2))
        u = fnp.asarray(rng.uniform(0, 1, 12).astype(dtype))
        for op in (lax.bessel_i0e, lax.bessel_i1e, fnp.i0):
            assert_same_outcome(lambda op=op: op(a))
            assert_same_outcome(lambda op=op: op(-a))
        for op in (lax.igamma, lax.igammac, lax.zeta):
            assert_same_outcome(lambda op=op: op(a, b))
        assert_same_outcome(lambda: lax.betainc(a, b, u))
        assert_same_outcome(lambda: lax.polygamma(fnp.floor(a % 4), b))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_scalar_max_min_rem_give_the_ufuncs_bits(dtype):
    grid = [0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, 37.5, -11.0, 3e38, -3e38, 1e-40, np.inf,
            -np.inf, np.nan, -np.nan]
    a = np.repeat(grid, len(grid)).astype(dtype)
    b = np.tile(grid, len(grid)).astype(dtype)
    with np.errstate(all="ignore"):
        for scalar_op, ufunc in ((SCALAR_OPS.max, np.maximum), (SCALAR_OPS.min, np.minimum),
                                 (SCALAR_OPS.rem, np.fmod)):
            whole = ufunc(a, b)
            for i in range(len(a)):
                out = scalar_op(a[i], b[i])
                assert type(out) is dtype and _same_bits(out, whole[i]), (ufunc, a[i], b[i])
