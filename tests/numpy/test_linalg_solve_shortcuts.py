"""The host shortcuts of ``solve``, ``inv``, ``det`` and ``slogdet`` (NumPy's LAPACK routines
in one step) against the general path (the LU primitives, composed).

The two differ by rounding only: where the arithmetic is exact (scaled permutation matrices
with power-of-two entries), on singular matrices (the shortcut declines) and for every error,
the outcomes are identical (but for the sign of a complex ``slogdet`` sign's zero imaginary
part: LAPACK multiplies the pivots' phases into the permutation's +-1 one by one, the general
path negates their product); on other matrices everything but the last bits (and the sign of
a singular matrix's zero determinant) is. (An empty 0 x 0 system is left out: the shortcut
solves it, while the LU kernel of the general path fails on it.)"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from shortcut_oracle import assert_same_outcome, outcomes

import funcarray as fa
import funcarray.numpy as fnp
from funcarray.base import dtypes
from funcarray.base.array import Array
from funcarray.numpy._linalg_solve import (
    _det_on_host,
    _inv_on_host,
    _slogdet_on_host,
    _solve_on_host,
)

_DTYPES = (np.float32, np.float64, np.complex64, np.complex128, np.int32, np.bool_)
_FORMS = ("array", "device", "numpy", "list", "weak")


def _as_form(value, form):
    if form == "device":
        return fa.device_put(value)
    if form == "numpy":
        return value
    if form == "list":
        return value.tolist()
    if form == "weak" and value.dtype.kind == "f":
        return Array(value.astype(np.float32), True)
    return fnp.asarray(value)


def _calls(a, b):
    return {"solve": lambda: fnp.linalg.solve(a, b), "inv": lambda: fnp.linalg.inv(a),
            "det": lambda: fnp.linalg.det(a), "slogdet": lambda: fnp.linalg.slogdet(a)}


@st.composite
def exact_systems(draw):
    """``(a, b)``: ``a`` a (stack of) permutation matrices scaled by powers of two, ``b``
    small integers (1-d or (n, k)): every result is exact on both paths."""
    n = draw(st.integers(1, 4))
    batch = draw(st.sampled_from([(), (), (2,)]))
    dtype = draw(st.sampled_from(_DTYPES[:4]))
    count = int(np.prod(batch, dtype=int))
    mats = []
    for _ in range(count):
        order = draw(st.permutations(range(n)))
        scales = draw(st.lists(st.sampled_from([0.25, 0.5, 1.0, 2.0, 4.0, -0.5, -1.0, -2.0]),
                               min_size=n, max_size=n))
        m = np.zeros((n, n))
        m[np.arange(n), order] = scales
        mats.append(m)
    a = np.array(mats).reshape(*batch, n, n).astype(dtype)
    b_shape = draw(st.sampled_from([(n,), (n, 2), (*batch, n, 1)]))
    b = np.array(draw(st.lists(st.integers(-8, 8), min_size=int(np.prod(b_shape)),
                               max_size=int(np.prod(b_shape))))).reshape(b_shape).astype(dtype)
    return a, b


@given(exact_systems(), st.sampled_from(_FORMS), st.sampled_from(_FORMS),
       st.sampled_from(["solve", "inv", "det", "slogdet"]))
def test_exact_systems_match_the_general_path(system, a_form, b_form, name):
    a, b = _as_form(system[0], a_form), _as_form(system[1], b_form)
    if name == "slogdet" and np.iscomplexobj(system[0]):
        _same_up_to_zero_signs(_calls(a, b)[name])
    else:
        assert_same_outcome(_calls(a, b)[name])


def _same_up_to_zero_signs(call):
    """Like ``assert_same_outcome``, with -0.0 equal to 0.0 (see the module docstring)."""
    fast, general = outcomes(call)
    assert fast[0] == general[0] == "ok", (fast, general)
    for got, want in zip(fa.tree.leaves(fast[1]), fa.tree.leaves(general[1]), strict=True):
        assert (type(got), got.shape, got.dtype, got.weak_type) == (
            type(want), want.shape, want.dtype, want.weak_type)
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


@st.composite
def singular_systems(draw):
    """``(a, b)``: ``a`` with a row twice another, of small integers."""
    n = draw(st.integers(2, 4))
    rows = draw(st.lists(st.integers(-3, 3), min_size=n * (n - 1), max_size=n * (n - 1)))
    m = np.array(rows, np.float64).reshape(n - 1, n)
    dtype = draw(st.sampled_from(_DTYPES))
    return np.concatenate([m, m[:1] * 2]).astype(dtype), np.arange(n).astype(dtype)


@given(singular_systems(), st.sampled_from(_FORMS), st.sampled_from(["solve", "inv"]))
def test_singular_matrices_take_the_general_path(system, form, name):
    a, b = (_as_form(x, form) for x in system)
    with np.errstate(all="ignore"):
        assert_same_outcome(_calls(a, b)[name])


@given(st.sampled_from([((3, 2), (3,)), ((2, 2), (3,)), ((2, 2), ()), ((2,), (2,)),
                        ((2, 2, 2), (2, 3)), ((2, 2), (2, 2, 2)), ((1, 1), (1,))]),
       st.sampled_from((*_DTYPES, np.float16, dtypes.bfloat16, np.uint8)),
       st.sampled_from(_FORMS), st.sampled_from(["solve", "inv", "det", "slogdet"]))
def test_errors_and_edge_shapes_match_the_general_path(shapes, dtype, form, name):
    a = np.full(shapes[0], 2, dtype)
    b = np.ones(shapes[1], dtype)
    assert_same_outcome(_calls(_as_form(a, form), _as_form(b, form))[name])


def test_slogdet_methods_match_the_general_path():
    a = fnp.eye(2)
    for method in (None, "lu", "qr", 3):
        assert_same_outcome(lambda method=method: fnp.linalg.slogdet(a, method=method))


def _same_up_to_rounding(call):
    """Like ``assert_same_outcome``, with values equal to within a few ulps of the general
    path's (LAPACK's blocked elimination and the primitives' round differently)."""
    fast, general = outcomes(call)
    assert fast[0] == general[0] == "ok", (fast, general)
    fast_leaves, fast_tree = fa.tree.flatten(fast[1])
    general_leaves, general_tree = fa.tree.flatten(general[1])
    assert fast_tree == general_tree
    for got, want in zip(fast_leaves, general_leaves):
        assert (type(got), got.shape, got.dtype, got.weak_type) == (
            type(want), want.shape, want.dtype, want.weak_type)
        rtol = 1e-3 if got.dtype in (np.float32, np.complex64) else 1e-10
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=rtol, atol=rtol)


@given(st.integers(1, 5), st.sampled_from(_DTYPES), st.sampled_from(_FORMS),
       st.sampled_from([(), (2,)]), st.sampled_from(["solve", "inv", "det", "slogdet"]),
       st.data())
def test_well_conditioned_matrices_match_the_general_path_to_rounding(n, dtype, form, batch,
                                                                      name, data):
    count = int(np.prod((*batch, n, n)))
    entries = data.draw(st.lists(st.floats(-1, 1, width=32), min_size=count, max_size=count))
    a = (np.array(entries).reshape(*batch, n, n) + 2 * n * np.eye(n))
    if dtype in (np.complex64, np.complex128):
        a = a + 0.5j * np.eye(n)
    a = a.astype(dtype)
    b = np.linspace(-1, 1, n).astype(dtype)
    _same_up_to_rounding(_calls(_as_form(a, form), _as_form(b, form))[name])


@given(singular_systems(), st.sampled_from(_FORMS), st.sampled_from(["det", "slogdet"]))
def test_determinants_of_singular_matrices_match_the_general_path_to_the_sign_of_zero(
        system, form, name):
    # (LAPACK's LU gives a zero determinant where the primitives' may give -0.0)
    a, b = (_as_form(x, form) for x in system)
    with np.errstate(all="ignore"):
        _same_up_to_rounding(_calls(a, b)[name])


@pytest.mark.parametrize("convert", [fnp.asarray, fa.device_put])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
def test_shortcuts_take_the_common_forms(convert, dtype):
    a = convert((np.eye(3) * 2 + np.ones((3, 3)) * 0.25).astype(dtype))
    b_vector, b_matrix = convert(np.ones(3, dtype)), convert(np.ones((3, 2), dtype))
    stack = convert(np.stack([np.eye(3), 2 * np.eye(3)]).astype(dtype))
    for out in (_solve_on_host(a, b_vector), _solve_on_host(a, b_matrix),
                _solve_on_host(a, [1.0, 2.0, 3.0]), _solve_on_host(stack, b_vector),
                _inv_on_host(a), _inv_on_host(stack), _det_on_host(a), _det_on_host(stack),
                *_slogdet_on_host(a), *_slogdet_on_host(stack, method="lu")):
        assert type(out) is Array
    singular = convert(np.ones((3, 3), dtype))
    assert _solve_on_host(singular, b_vector) is NotImplemented
    assert _inv_on_host(singular) is NotImplemented
