"""The host shortcuts of ``sort`` and ``argsort`` (and the statistics and reductions beside
them) give the general path's outcome (``tests/shortcut_oracle.py``): the same result (type,
shape, dtype, weak type, bits) or the same error, for every dtype, special floats (NaN of both
signs and another payload, infinities, -0.0 beside 0.0, ties), the integer limits, empty and
0-d operands, rows short and long, ``axis`` None, negative or out of range, ``descending``,
and operands as Arrays, weak arrays, device arrays, NumPy arrays and lists. The last tests
check that the shortcuts take the common forms themselves."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from op_table import ALL_DTYPES
from reduction_operands import KINDS, SHAPES, as_input, tie_values
from shortcut_oracle import assert_same_outcome

import funcarray as fa
import funcarray.numpy as fnp
from funcarray.numpy._comparison import _isin_on_host
from funcarray.numpy._quantiles_on_host import _quantile_on_host
from funcarray.numpy._reductions_on_host import (
    _count_nonzero_on_host,
    _cumprod_on_host,
    _cumsum_on_host,
    _nanmax_on_host,
    _nanmin_on_host,
    _ptp_on_host,
)
from funcarray.numpy._search import _bincount_on_host, _histogram_on_host, _interp_on_host
from funcarray.numpy._sets import (
    _intersect1d_on_host,
    _setdiff1d_on_host,
    _setxor1d_on_host,
    _union1d_on_host,
)
from funcarray.numpy._sort_and_nonzero import (
    _argsort_on_host,
    _flatnonzero_on_host,
    _sort_on_host,
)
from funcarray.numpy._statistics import _nan_cumulative_on_host


@st.composite
def operands(draw, dtypes=ALL_DTYPES, shapes=SHAPES):
    """(NumPy value, the operand given as one of the kinds)."""
    value = tie_values(draw, draw(st.sampled_from(dtypes)), draw(shapes))
    return value, as_input(value, draw(st.sampled_from(KINDS[:-1])))


@settings(max_examples=300, deadline=None)
@given(operands(), st.sampled_from([None, -1, 0, 1, 2, -4, 1.0]), st.booleans(),
       st.booleans(), st.sampled_from(["sort", "argsort"]))
def test_sort_and_argsort_match_the_general_path(operand, axis, descending, stable, name):
    _, x = operand
    fn = getattr(fnp, name)
    assert_same_outcome(lambda: fn(x, axis, stable=stable, descending=descending))


def test_the_sort_shortcuts_take_the_common_forms():
    x = fnp.asarray(np.array([[3.0, -0.0, 0.0], [np.nan, 1.0, -2.0]], np.float32))
    for operand in (x, fa.device_put(x)):
        for rule in (_sort_on_host, _argsort_on_host):
            assert rule(operand) is not NotImplemented
            assert rule(operand, None) is not NotImplemented
            assert rule(operand, 0, descending=True) is not NotImplemented


_AXES = st.sampled_from([None, 0, 1, -1, 2, (0, 1), [1, 0], (0, 0), (), 1.0])


@settings(max_examples=400, deadline=None)
@given(operands(), _AXES, st.booleans(),
       st.sampled_from(["ptp", "count_nonzero", "nanmax", "nanmin", "cumsum", "cumprod"]),
       st.sampled_from(["none", "dtype", "initial", "where", "out"]))
def test_reductions_match_the_general_path(operand, axis, keepdims, name, extra):
    _, x = operand
    fn = getattr(fnp, name)
    if name in ("cumsum", "cumprod"):
        kwargs = {"dtype": fnp.float32} if extra == "dtype" else {}
        assert_same_outcome(lambda: fn(x, axis if type(axis) is not tuple else 0, **kwargs))
        return
    kwargs = {} if name == "count_nonzero" else {"keepdims": keepdims}
    if name == "count_nonzero":
        kwargs["keepdims"] = keepdims
    elif extra == "initial" and name != "ptp":
        kwargs["initial"] = 0.5
    elif extra == "where" and name != "ptp":
        kwargs["where"] = True
    elif extra == "out":
        kwargs["out"] = None
    assert_same_outcome(lambda: fn(x, axis, **kwargs))


def test_the_reduction_shortcuts_take_the_common_forms():
    x = fnp.asarray(np.array([[3.0, np.nan, 0.0], [np.nan, np.nan, -2.0]], np.float32))
    for operand in (x, fa.device_put(x)):
        for rule in (_ptp_on_host, _count_nonzero_on_host, _nanmax_on_host, _nanmin_on_host,
                     _cumsum_on_host, _cumprod_on_host):
            assert rule(operand) is not NotImplemented
            assert rule(operand, 1) is not NotImplemented
        for rule in (_ptp_on_host, _count_nonzero_on_host, _nanmax_on_host, _nanmin_on_host):
            assert rule(operand, (0, 1), keepdims=True) is not NotImplemented


_QUANTILE_OPS = ("quantile", "nanquantile", "percentile", "nanpercentile", "median",
                 "nanmedian")


@settings(max_examples=400, deadline=None)
@given(operands(), st.sampled_from(_QUANTILE_OPS),
       st.sampled_from([0.5, 0.25, 0.0, 1.0, 1, 0.3, -0.5, 2.0, np.nan, "array", "array64",
                        "matrix", "list"]),
       st.sampled_from([None, 0, -1, 1, (0, 1), (1, 0), 2, (0, 0)]), st.booleans(),
       st.sampled_from(["linear", "lower", "higher", "midpoint", "nearest", "cubic"]))
def test_quantiles_match_the_general_path(operand, name, q, axis, keepdims, method):
    _, x = operand
    fn = getattr(fnp, name)
    scale = 100 if "percentile" in name else 1
    if isinstance(q, str):
        q = {"array": fnp.asarray(np.array([0.1, 0.5, 1.0], np.float32) * scale),
             "array64": fnp.asarray(np.array(0.7, np.float64) * scale),
             "matrix": fnp.ones((2, 2)), "list": [0.5 * scale]}[q]
    elif isinstance(q, float) and "percentile" in name:
        q = q * scale
    if "median" in name:
        assert_same_outcome(lambda: fn(x, axis, keepdims=keepdims))
    else:
        assert_same_outcome(lambda: fn(x, q, axis, method=method, keepdims=keepdims))


def test_the_quantile_shortcuts_take_the_common_forms():
    x = fnp.asarray(np.array([[3.0, np.nan, 0.0], [5.0, 2.0, -2.0]], np.float32))
    for operand in (x, fa.device_put(x), fnp.asarray(np.arange(6).reshape(2, 3))):
        for skip_nan in (False, True):
            for q in (0.5, fnp.asarray([0.25, 0.75])):
                assert _quantile_on_host("quantile", operand, q, None, "linear", False,
                                         skip_nan) is not NotImplemented
            assert _quantile_on_host("median", operand, 0.5, 1, "midpoint", True,
                                     skip_nan) is not NotImplemented


_SET_SHAPES = st.sampled_from([(), (0,), (1,), (4,), (2, 3), (3, 7)])


@settings(max_examples=400, deadline=None)
@given(operands(shapes=_SET_SHAPES), operands(shapes=_SET_SHAPES),
       st.sampled_from(["intersect1d", "intersect1d_indices", "union1d", "setdiff1d",
                        "setxor1d", "isin", "isin_invert", "isin_sort", "unique",
                        "unique_counts", "unique_all", "unique_inverse", "unique_index"]),
       st.sampled_from([None, 3]))
def test_set_operations_match_the_general_path(first, second, name, size):
    (_, x), (_, y) = first, second
    if name == "intersect1d_indices":
        assert_same_outcome(lambda: fnp.intersect1d(x, y, return_indices=True, size=size))
    elif name.startswith("isin"):
        method = "sort" if name == "isin_sort" else "auto"
        assert_same_outcome(lambda: fnp.isin(x, y, invert=name == "isin_invert",
                                             method=method))
    elif name == "unique":
        assert_same_outcome(lambda: fnp.unique(x, size=size))
    elif name == "unique_index":
        assert_same_outcome(lambda: fnp.unique(x, return_index=True, return_counts=True))
    elif name.startswith("unique_"):
        assert_same_outcome(lambda: getattr(fnp, name)(x))
    else:
        assert_same_outcome(lambda: getattr(fnp, name)(x, y, size=size))


def test_the_set_shortcuts_take_the_common_forms():
    x = fnp.asarray(np.array([[3.0, np.nan, 0.0], [-0.0, np.nan, 3.0]], np.float32))
    y = fa.device_put(fnp.asarray(np.array([0.0, 3.0, 5.0, np.nan], np.float32)))
    for rule in (_intersect1d_on_host, _union1d_on_host, _setdiff1d_on_host,
                 _setxor1d_on_host, _isin_on_host):
        assert rule(x, y) is not NotImplemented
        assert rule(y, x) is not NotImplemented
    assert _intersect1d_on_host(x, y, return_indices=True) is not NotImplemented


_REALS = [dt for dt in ALL_DTYPES if np.dtype(dt).kind != "c"]


@settings(max_examples=300, deadline=None)
@given(operands(dtypes=_REALS, shapes=st.sampled_from([(), (0,), (1,), (4,), (2, 3)])),
       st.sampled_from([1, 3, 8, 0, 2.0, "auto"]))
def test_histogram_matches_the_general_path(operand, bins):
    _, x = operand
    assert_same_outcome(lambda: fnp.histogram(x, bins=bins))


@settings(max_examples=300, deadline=None)
@given(operands(dtypes=(fnp.float32, fnp.float64, fnp.int32),
                shapes=st.sampled_from([(), (0,), (1,), (4,), (2, 3)])),
       st.data(), st.integers(1, 5), st.sampled_from([None, 0.0, "extrapolate"]))
def test_interp_matches_the_general_path(operand, data, n, left):
    value, x = operand
    dtype = data.draw(st.sampled_from([value.dtype, np.float32]))
    xp = fnp.asarray(np.sort(tie_values(data.draw, dtype, (n,))))
    fp = fnp.asarray(tie_values(data.draw, dtype, (n,)))
    assert_same_outcome(lambda: fnp.interp(x, xp, fp, left=left))


_FLOAT_PAIRS = [(np.float32, np.float32), (np.float64, np.float64), (np.float32, np.float64),
                (np.float64, np.float32)]


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(_FLOAT_PAIRS),
       st.sampled_from([(), (4,), (32,), (33,), (3, 15)]), st.sampled_from([1, 2, 5, 32, 40]),
       st.sampled_from(["array", "device"]), st.booleans())
def test_interp_of_ordinary_values_matches_the_general_path(seed, pair, shape, n, kind,
                                                             special):
    # Values whose steps and ratios round, on both sides of the point-by-point threshold (32
    # points, 32 pivots); xp with repeated pivots, x with points on the pivots and, when
    # ``special``, an infinity or a NaN.
    rng = np.random.default_rng(seed)
    x_dtype, xp_dtype = pair
    xp = np.sort(rng.uniform(-2, 2, n).astype(xp_dtype))
    if n > 2:
        xp[1] = xp[2]
    fp = rng.uniform(-5, 5, n).astype(np.result_type(x_dtype, xp_dtype))
    x = rng.uniform(-3, 3, shape).astype(x_dtype)
    if x.size:
        x.reshape(-1)[0] = xp[-1]
        x.reshape(-1)[-1] = rng.choice([np.inf, -np.inf, np.nan]) if special else xp[0]
    x = fa.device_put(fnp.asarray(x)) if kind == "device" else fnp.asarray(x)
    xp, fp = fnp.asarray(xp), fnp.asarray(fp)
    assert_same_outcome(lambda: fnp.interp(x, xp, fp))


@settings(max_examples=300, deadline=None)
@given(operands(dtypes=_REALS, shapes=st.sampled_from([(), (0,), (1,), (4,), (2, 3)])),
       operands(dtypes=_REALS, shapes=st.sampled_from([(), (0,), (3,), (2, 2)])),
       st.sampled_from(["searchsorted", "bincount", "bincount_length", "flatnonzero",
                        "nancumsum", "nancumprod"]), st.sampled_from([None, 0, -1]))
def test_search_and_nan_scans_match_the_general_path(first, second, name, axis):
    (value, x), (_, y) = first, second
    if name == "searchsorted":
        pivots = fnp.asarray(np.sort(value.reshape(-1)))
        assert_same_outcome(lambda: fnp.searchsorted(pivots, y))
    elif name == "bincount":
        assert_same_outcome(lambda: fnp.bincount(x, minlength=2))
    elif name == "bincount_length":
        assert_same_outcome(lambda: fnp.bincount(x, length=3))
    elif name == "flatnonzero":
        assert_same_outcome(lambda: fnp.flatnonzero(x))
    else:
        assert_same_outcome(lambda: getattr(fnp, name)(x, axis))


def test_the_search_shortcuts_take_the_common_forms():
    x = fnp.asarray(np.array([0.5, 2.0, np.nan, 0.0], np.float32))
    xp = fnp.asarray(np.array([0.0, 1.0, 2.0], np.float32))
    for operand in (x, fa.device_put(x)):
        assert _interp_on_host(operand, xp, xp) is not NotImplemented
        assert _histogram_on_host(fnp.nan_to_num(operand), 4) is not NotImplemented
        assert _flatnonzero_on_host(operand) is not NotImplemented
        assert _nan_cumulative_on_host(_cumsum_on_host, 0)(operand) is not NotImplemented
    assert _bincount_on_host(fnp.asarray([1, 0, 3])) is not NotImplemented
