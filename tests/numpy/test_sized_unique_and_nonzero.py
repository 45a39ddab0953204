"""Value-dependent result sizes as jax.numpy takes them: ``unique`` (every ``return_*``
combination, ``axis=``, ``equal_nan=``, ``size=``, ``fill_value=``, ``sorted=``), the
``unique_*`` functions, the set operations, ``nonzero``/``flatnonzero``/``argwhere``/
``where(cond)`` with ``size=``/``fill_value=``. Hypothesis against jax.numpy (values,
dtypes, weak types, shapes, error classes) eagerly and under ``fa.jit``; ``fa.vmap``
against ``jax.vmap``; ``unique``'s host shortcut against its general path; the errors a
traced size raises.
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
from funcarray.transforms.core import ConcretizationTypeError
from tests.shortcut_oracle import assert_same_outcome

# Every jit example compiles with XLA: few of them, no shrinking.
FEW = settings(max_examples=5, phases=(Phase.explicit, Phase.generate), deadline=None)

_VALUES = {
    np.dtype(np.int32): [-2, 0, 1, 3],
    np.dtype(np.float32): [0.0, -0.0, 1.5, -2.0, np.nan, np.inf],
    np.dtype(np.bool_): [False, True],
    np.dtype(np.complex64): [0j, 1 + 1j, 1 + 0j, complex(np.nan, 0), complex(0, np.nan)],
}


@st.composite
def small_arrays(draw, min_dims=1, dtypes=tuple(_VALUES)):
    dtype = draw(st.sampled_from(dtypes))
    shape = draw(hnp.array_shapes(min_dims=min_dims, max_dims=3, min_side=0, max_side=4))
    return draw(hnp.arrays(dtype, shape, elements=st.sampled_from(_VALUES[dtype])))


def _outcome(call):
    try:
        return "ok", call()
    except (TypeError, ValueError) as exc:
        return "error", ValueError if isinstance(exc, ValueError) else TypeError


def _jax_outcome(call):
    # (the session runs jax with x64 on; funcarray follows jax's 32-bit defaults here)
    with jax.enable_x64(False):
        return _outcome(call)


def _assert_matches_jax(got, want, what):
    """The same outcome (result, or error class) with equal leaves: shape, dtype, weak
    type, bits (NaNs equal, signed zeros told apart)."""
    assert got[0] == want[0], f"{what}: funcarray {got}, jax {want}"
    if got[0] == "error":
        assert got[1] == want[1], f"{what}: funcarray raised {got[1]}, jax {want[1]}"
        return
    got_leaves, want_leaves = fa.tree.leaves(got[1]), jax.tree_util.tree_leaves(want[1])
    assert isinstance(got[1], tuple) == isinstance(want[1], tuple), what
    assert len(got_leaves) == len(want_leaves), what
    for g, w in zip(got_leaves, want_leaves):
        assert g.shape == w.shape, f"{what}: shape {g.shape} != jax {w.shape}"
        assert g.dtype == w.dtype, f"{what}: dtype {g.dtype} != jax {w.dtype}"
        assert g.weak_type == w.weak_type, f"{what}: weak_type {g.weak_type} != jax"
        g, w = np.asarray(g), np.asarray(w)
        np.testing.assert_array_equal(g, w, err_msg=what)
        if g.dtype.kind in "fc":
            for part in (np.real, np.imag):
                np.testing.assert_array_equal(np.signbit(part(g)), np.signbit(part(w)),
                                              err_msg=f"{what}: signed zeros")


@st.composite
def unique_calls(draw):
    x = draw(small_arrays())
    axis = draw(st.one_of(st.none(), st.integers(-x.ndim, x.ndim - 1)))
    flags = draw(st.tuples(st.booleans(), st.booleans(), st.booleans()))
    kwargs = dict(equal_nan=draw(st.booleans()),
                  size=draw(st.one_of(st.none(), st.integers(0, 6))),
                  fill_value=draw(st.sampled_from([None, 0, 1, -1])))
    if draw(st.booleans()):
        kwargs["sorted"] = False
    return x, (*flags, axis), kwargs


@settings(max_examples=12, deadline=None)
@given(unique_calls())
def test_unique_matches_jax(call):
    x, args, kwargs = call
    want = _jax_outcome(lambda: jnp.unique(x, *args, **kwargs))
    _assert_matches_jax(_outcome(lambda: fnp.unique(x, *args, **kwargs)), want,
                        f"unique{args} {kwargs}")


@FEW
@given(unique_calls())
def test_unique_under_jit_matches_jax(call):
    x, args, kwargs = call
    kwargs["size"] = 3 if kwargs["size"] is None else kwargs["size"]
    want = _jax_outcome(lambda: jnp.unique(x, *args, **kwargs))
    got = _outcome(lambda: fa.jit(lambda a: fnp.unique(a, *args, **kwargs))(x))
    _assert_matches_jax(got, want, f"jit unique{args} {kwargs}")


@settings(max_examples=10, deadline=None)
@given(small_arrays(), st.one_of(st.none(), st.integers(0, 5)),
       st.sampled_from([None, 2, -3]),
       st.sampled_from(["unique_values", "unique_counts", "unique_inverse", "unique_all"]))
def test_unique_functions_match_jax(x, size, fill_value, name):
    kwargs = dict(size=size, fill_value=fill_value)
    want = _jax_outcome(lambda: getattr(jnp, name)(x, **kwargs))
    got = _outcome(lambda: getattr(fnp, name)(x, **kwargs))
    _assert_matches_jax(got, want, f"{name} {kwargs}")
    if got[0] == "ok" and name != "unique_values":
        assert type(got[1]).__name__ == type(want[1]).__name__
        assert got[1]._fields == want[1]._fields


@settings(max_examples=40, deadline=None)
@given(unique_calls())
def test_unique_shortcut_keeps_the_general_path_outcome(call):
    x, args, kwargs = call
    assert_same_outcome(lambda: fnp.unique(fnp.asarray(x), *args, **kwargs))
    kwargs["size"] = None  # the forms the shortcut takes
    assert_same_outcome(lambda: fnp.unique(fnp.asarray(x), *args, **kwargs))
    for name in ("unique_values", "unique_counts", "unique_inverse", "unique_all"):
        for size in (None, 2):
            assert_same_outcome(lambda: getattr(fnp, name)(fnp.asarray(x), size=size))


@st.composite
def set_operation_calls(draw):
    dtype = draw(st.sampled_from([np.dtype(np.int32), np.dtype(np.float32)]))
    values = st.sampled_from(_VALUES[dtype])
    # (jax's set operations fail on empty inputs and size=0 in several ways: not compared)
    shapes = hnp.array_shapes(min_dims=1, max_dims=2, min_side=1, max_side=4)
    a, b = (draw(hnp.arrays(dtype, shapes, elements=values)) for _ in range(2))
    name = draw(st.sampled_from(["union1d", "intersect1d", "setdiff1d", "setxor1d"]))
    kwargs = dict(size=draw(st.one_of(st.none(), st.integers(1, 6))),
                  fill_value=draw(st.sampled_from([None, -1, 9])))
    if name == "setdiff1d" and kwargs["size"] is not None and np.isnan(a).any():
        # jax pads ar1's unique values with its smallest, then counts the padding NaNs (NaN
        # != NaN) as results when that is NaN: a NaN-free ar1 keeps to the shared meaning.
        a = np.where(np.isnan(a), np.float32(7.0), a)
    if name != "union1d" and draw(st.booleans()):
        # (jax's results for repeated values under assume_unique=True are unspecified)
        a, b = np.unique(a), np.unique(b)
        kwargs["assume_unique"] = True
    if name == "intersect1d":
        kwargs["return_indices"] = draw(st.booleans())
    return name, a, b, kwargs


@settings(max_examples=8, deadline=None)
@given(set_operation_calls())
def test_set_operations_match_jax(call):
    name, a, b, kwargs = call
    want = _jax_outcome(lambda: getattr(jnp, name)(a, b, **kwargs))
    got = _outcome(lambda: getattr(fnp, name)(a, b, **kwargs))
    _assert_matches_jax(got, want, f"{name} {kwargs}")


@FEW
@given(set_operation_calls())
def test_set_operations_under_jit_match_jax(call):
    name, a, b, kwargs = call
    kwargs["size"] = 3 if kwargs["size"] is None else kwargs["size"]
    want = _jax_outcome(lambda: getattr(jnp, name)(a, b, **kwargs))
    got = _outcome(lambda: fa.jit(lambda x, y: getattr(fnp, name)(x, y, **kwargs))(a, b))
    _assert_matches_jax(got, want, f"jit {name} {kwargs}")


_FILLS = st.one_of(st.none(), st.sampled_from([-1, 7, 2.5]),
                   st.integers(-2, 2).map(np.int32))


@st.composite
def nonzero_calls(draw):
    x = draw(small_arrays(min_dims=0))
    size = draw(st.one_of(st.none(), st.integers(0, 5)))
    fill = draw(_FILLS)
    if x.ndim and draw(st.booleans()):
        fill = tuple(draw(_FILLS.filter(lambda f: f is not None)) for _ in range(x.ndim))
    name = draw(st.sampled_from(["nonzero", "flatnonzero", "argwhere", "where"]))
    return name, x, dict(size=size, fill_value=fill)


@settings(max_examples=25, deadline=None)
@given(nonzero_calls())
def test_nonzero_family_matches_jax(call):
    name, x, kwargs = call
    want = _jax_outcome(lambda: getattr(jnp, name)(x, **kwargs))
    _assert_matches_jax(_outcome(lambda: getattr(fnp, name)(x, **kwargs)), want,
                        f"{name}{x.shape} {kwargs}")
    assert_same_outcome(lambda: getattr(fnp, name)(fnp.asarray(x), **kwargs))


@FEW
@given(nonzero_calls())
def test_nonzero_family_under_jit_matches_jax(call):
    name, x, kwargs = call
    kwargs["size"] = 2 if kwargs["size"] is None else kwargs["size"]
    want = _jax_outcome(lambda: getattr(jnp, name)(x, **kwargs))
    got = _outcome(lambda: fa.jit(lambda a: getattr(fnp, name)(a, **kwargs))(x))
    _assert_matches_jax(got, want, f"jit {name}{x.shape} {kwargs}")


def test_vmap_with_size_and_a_batched_fill_matches_jax():
    x = np.array([[3, 0, 3, 1], [0, 0, 2, 2], [5, 5, 5, 5]], np.int32)

    def program(np_):
        return lambda row: (
            np_.unique(row, return_index=True, return_counts=True, size=3, fill_value=row[0]),
            np_.unique_all(row, size=5),
            np_.nonzero(row, size=3, fill_value=row[3]),
            np_.where(row > 1, size=2, fill_value=-1),
            np_.argwhere(row, size=4, fill_value=(9,)),
        )

    with jax.enable_x64(False):
        want = jax.vmap(program(jnp))(x)
    _assert_matches_jax(("ok", fa.vmap(program(fnp))(x)), ("ok", want), "vmap")


def test_a_traced_size_or_no_size_raises_a_concretization_error():
    x = np.array([[1, 0], [2, 2]], np.int32)
    for name in ("unique", "unique_values", "unique_counts", "unique_inverse", "unique_all",
                 "nonzero", "flatnonzero", "argwhere", "where"):
        with pytest.raises(jax.errors.ConcretizationTypeError), jax.enable_x64(False):
            jax.jit(getattr(jnp, name))(x)
        with pytest.raises(ConcretizationTypeError, match=rf"^{name}: .*Pass a static size="):
            fa.jit(getattr(fnp, name))(x)
    for name in ("union1d", "intersect1d", "setdiff1d", "setxor1d"):
        with pytest.raises(jax.errors.ConcretizationTypeError), jax.enable_x64(False):
            jax.jit(getattr(jnp, name))(x, x)
        with pytest.raises(ConcretizationTypeError, match=rf"^{name}: .*Pass a static size="):
            fa.jit(getattr(fnp, name))(x, x)
    with pytest.raises(ConcretizationTypeError, match=r"^unique: size= must be static"):
        fa.jit(lambda a, n: fnp.unique(a, size=n))(x, 2)
    with pytest.raises(ConcretizationTypeError, match=r"^nonzero: size= must be static"):
        fa.jit(lambda a, n: fnp.nonzero(a, size=n))(x, 2)
    # Both are TypeErrors, as jax's ConcretizationTypeError is.
    assert issubclass(ConcretizationTypeError, TypeError)


def test_sizes_without_a_transform_value_known_under_grad():
    # grad's tracers know their values: no size= needed, as in jax.
    x = np.array([3.0, 1.0, 3.0, 0.0], np.float32)

    def loss(np_):
        # (as jax, the values of unique and the set operations carry no gradient without
        # size=: they are computed from the input's value)
        return lambda a: (a[np_.nonzero(a)[0]] * np_.unique(a)[-1]).sum() + (
            np_.union1d(a, a[:2]) * np_.intersect1d(a, a[1:])[0]).sum()

    with jax.enable_x64(False):
        want = jax.grad(loss(jnp))(x)
    np.testing.assert_allclose(fa.grad(loss(fnp))(x), want)


def test_unique_size_argument_errors():
    x = np.array([1, 2, 2], np.int32)
    with pytest.raises(TypeError, match="unique: size must be non-negative"):
        fnp.unique(x, size=-1)
    with pytest.raises(TypeError, match="unique: size must be an integer"):
        fnp.unique(x, size=2.0)
    with pytest.raises(ValueError, match="unique: the input is empty, so padding to size=2 "
                                         "needs a fill_value="):
        fnp.unique(np.zeros(0, np.int32), size=2)
    with pytest.raises(ValueError, match="nonzero: fill_value must be a scalar or a tuple of "
                                         "length 2"):
        fnp.nonzero(np.ones((2, 2)), size=2, fill_value=(1, 2, 3))


@pytest.mark.parametrize("name", [
    "unique", "unique_values", "unique_counts", "unique_inverse", "unique_all", "union1d",
    "intersect1d", "setdiff1d", "setxor1d", "where", "nonzero", "flatnonzero", "argwhere"])
def test_signatures_are_jax_numpys(name):
    def parameters(f):
        return [(p.name, p.kind, p.default) for p in inspect.signature(f).parameters.values()]

    assert parameters(getattr(fnp, name)) == parameters(getattr(jnp, name))
