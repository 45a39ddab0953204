"""Out-of-bounds indices follow JAX: ``x[idx]``, ``x.at[idx].get()/set()/add()/...`` in
every mode (with ``wrap_negative_indices``), ``take`` and ``take_along_axis`` give jax's
results eagerly, under jit with static indices and under jit with traced ones; the setting
``check_index_bounds`` raises NumPy's IndexError (NumPy as the oracle) at the user's line."""

from __future__ import annotations

import inspect

import hypothesis.strategies as st
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from helpers import index_bounds_checked
from hypothesis import given, settings

import funcarray as fa
import funcarray.numpy as fnp

MODES = [None, "clip", "drop", "fill", "promise_in_bounds"]
UPDATES = ["set", "add", "multiply", "min", "max", "apply"]


@pytest.fixture(autouse=True)
def _jax_default_32_bit():
    with jax.enable_x64(False):
        yield


# --------------------------------------------------------------------------------------------
# Strategies and the comparison
# --------------------------------------------------------------------------------------------

shapes = st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple)


def _entries(draw, size, shape):
    count = int(np.prod(shape))
    values = draw(st.lists(st.integers(-2 * size - 2, 2 * size + 1), min_size=count,
                           max_size=count))
    return np.array(values, np.int32).reshape(shape)


@st.composite
def indices(draw, shape, arrays=True):
    """An index for ``shape`` whose ints and array entries reach out of bounds on both sides
    (negatives beyond ``-size`` too), with slices past the ends, ``None`` and ``...``."""
    items = []
    for size in shape[:draw(st.integers(0, len(shape)))]:
        kind = draw(st.sampled_from(["int", "slice", "array"] if arrays else ["int", "slice"]))
        if kind == "int":
            items.append(draw(st.integers(-2 * size - 2, 2 * size + 1)))
        elif kind == "slice":
            bound = st.none() | st.integers(-size - 3, size + 3)
            step = draw(st.sampled_from([None, 1, 2, -1, -3]))
            items.append(slice(draw(bound), draw(bound), step))
        else:
            items.append(_entries(draw, size, draw(st.sampled_from([(), (1,), (3,), (2, 1)]))))
    if draw(st.booleans()):
        items.insert(draw(st.integers(0, len(items))), Ellipsis)
    for _ in range(draw(st.integers(0, 2))):
        items.insert(draw(st.integers(0, len(items))), None)
    return items[0] if len(items) == 1 and draw(st.booleans()) else tuple(items)


def _split(idx):
    """``(leaves, rebuild)``: the ints and arrays of ``idx`` as int32 arrays (to pass traced
    to a jitted function) and the function that puts them back in their places."""
    items = idx if isinstance(idx, tuple) else (idx,)
    places = [i for i, item in enumerate(items) if isinstance(item, (int, np.ndarray))]
    leaves = [np.asarray(items[i], np.int32) for i in places]

    def rebuild(*values):
        out = list(items)
        for i, v in zip(places, values):
            out[i] = v
        return tuple(out) if isinstance(idx, tuple) else out[0]
    return leaves, rebuild


def _outcome(call):
    try:
        out = call()
    except Exception as exc:  # noqa: BLE001 (the error class is the outcome compared)
        return type(exc)
    return np.asarray(out)


def _assert_same(got, want, what):
    if isinstance(want, type) or isinstance(got, type):
        assert got is want or (isinstance(got, type) and isinstance(want, type)
                               and issubclass(got, want)), (what, got, want)
        return
    assert got.dtype == want.dtype and got.shape == want.shape, (what, got, want)
    np.testing.assert_array_equal(got, want, err_msg=str(what))


def assert_like_jax(program, x, idx):
    """``program(module, x, idx)`` in funcarray eagerly, jitted with the index static and
    jitted with its ints and arrays traced, against jax (eager, and jitted alike)."""
    want = _outcome(lambda: program(jnp, jnp.asarray(x), idx))
    _assert_same(_outcome(lambda: program(fnp, fnp.asarray(x), idx)), want, ("eager", idx))
    static = fa.jit(lambda v: program(fnp, v, idx))
    _assert_same(_outcome(lambda: static(x)), want, ("jit, static index", idx))
    leaves, rebuild = _split(idx)
    want_traced = _outcome(lambda: jax.jit(lambda v, *i: program(jnp, v, rebuild(*i)))(
        x, *leaves))
    traced = fa.jit(lambda v, *i: program(fnp, v, rebuild(*i)))
    _assert_same(_outcome(lambda: traced(x, *leaves)), want_traced, ("jit, traced index", idx))


def _values(shape):
    return np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape) - 3


# --------------------------------------------------------------------------------------------
# x[idx] and x.at[idx]
# --------------------------------------------------------------------------------------------

@settings(max_examples=15)  # (each example compiles four programs)
@given(shapes, st.data())
def test_getitem_like_jax(shape, data):
    idx = data.draw(indices(shape))
    assert_like_jax(lambda m, v, i: v[i], _values(shape), idx)


@settings(max_examples=15)  # (each example compiles four programs)
@given(shapes, st.sampled_from(MODES), st.booleans(), st.data())
def test_at_get_like_jax(shape, mode, wrap, data):
    idx = data.draw(indices(shape))
    fill = data.draw(st.sampled_from([None, -7.0]))
    assert_like_jax(lambda m, v, i: v.at[i].get(mode=mode, fill_value=fill,
                                                wrap_negative_indices=wrap),
                    _values(shape), idx)


def _update(method, mode, wrap, values):
    def program(m, v, i):
        ref = v.at[i]
        if method == "apply":
            return ref.apply(lambda u: u * 3 + 1, mode=mode, wrap_negative_indices=wrap)
        return getattr(ref, method)(values(m, v, i), mode=mode, wrap_negative_indices=wrap)
    return program


@pytest.mark.parametrize("mode", MODES)
@settings(max_examples=6)
@given(shapes, st.sampled_from(UPDATES), st.booleans(), st.data())
def test_at_updates_like_jax(mode, shape, method, wrap, data):
    # apply runs once per selected element in funcarray, once per repetition in jax: its
    # indices select each element once (no arrays).
    idx = data.draw(indices(shape, arrays=method != "apply"))
    if method == "set" or data.draw(st.booleans()):
        def values(m, v, i):  # one value: which of repeated writes wins does not matter
            return 5.0
    else:
        def values(m, v, i):  # a value per selected element (small integers: exact sums)
            return m.arange(v.at[i].get(mode="clip").size, dtype=m.float32
                            ).reshape(v.at[i].get(mode="clip").shape) % 3 + 2
    assert_like_jax(_update(method, mode, wrap, values), _values(shape), idx)


@pytest.mark.parametrize("method", ["subtract", "divide", "power"])
def test_other_updates_drop_out_of_bounds_like_jax(method):
    x = _values((5,)) + 4
    for idx, wrap in ((7, True), (-1, False), (np.array([0, 9, -9, -1]), True),
                      (np.array([0, 9, -9, -1]), False)):
        assert_like_jax(lambda m, v, i: getattr(v.at[i], method)(
            2.0, wrap_negative_indices=wrap), x, idx)


def test_axes_of_size_zero_like_jax():
    z = np.zeros((0, 3), np.float32)
    for idx in (0, -1, 5, (slice(None), 5), slice(2, 9), (Ellipsis, 1)):
        assert_like_jax(lambda m, v, i: v[i], z, idx)
        assert_like_jax(lambda m, v, i: v.at[i].set(1.0), z, idx)
        assert_like_jax(lambda m, v, i: v.at[i].get(mode="fill"), z, idx)


_ROWS = np.array([5, -1, 9], np.int32)
TRANSFORMED = {
    "vmap-static": lambda m, t, v: t.vmap(lambda r: r[7])(v),
    "vmap-traced-set": lambda m, t, v: t.vmap(lambda r, i: r.at[i].set(-1.0))(v, _ROWS),
    "vmap-clip-add": lambda m, t, v: t.vmap(lambda r: r.at[-9].add(5.0, mode="clip"))(v),
    "grad-getitem": lambda m, t, v: t.grad(lambda u: u[5, -9] * 2)(v),
    "grad-dropped-set": lambda m, t, v: t.grad(lambda u: m.sum(u.at[7].set(3.0) * u))(v),
    "grad-fill-get": lambda m, t, v: t.grad(lambda u: m.sum(
        u.at[np.array([0, 7])].get(mode="fill", fill_value=0.0)))(v),
    "grad-take-along-axis": lambda m, t, v: t.grad(lambda u: m.sum(m.take_along_axis(
        u, m.array([[-1, 2, 9, 0]]), axis=0, mode="clip", wrap_negative_indices=False)))(v),
}


@pytest.mark.parametrize("program", TRANSFORMED.values(), ids=TRANSFORMED.keys())
def test_vmap_and_grad_of_out_of_bounds_indices_like_jax(program):
    x = _values((3, 4))
    want = np.asarray(program(jnp, jax, jnp.asarray(x)))
    _assert_same(np.asarray(program(fnp, fa, fnp.asarray(x))), want, "eager")
    _assert_same(np.asarray(fa.jit(lambda v: program(fnp, fa, v))(x)), want, "jit")


# --------------------------------------------------------------------------------------------
# take, take_along_axis
# --------------------------------------------------------------------------------------------

@settings(max_examples=15)  # (each example compiles four programs)
@given(shapes, st.sampled_from([None, "fill", "clip", "wrap"]), st.data())
def test_take_like_jax(shape, mode, data):
    axis = data.draw(st.none() | st.integers(-len(shape), len(shape) - 1))
    size = int(np.prod(shape)) if axis is None else shape[axis]
    entries = _entries(data.draw, size, data.draw(st.sampled_from([(), (3,), (2, 2)])))
    fill = data.draw(st.sampled_from([None, -7.0]))
    assert_like_jax(lambda m, v, i: m.take(v, i, axis=axis, mode=mode, fill_value=fill),
                    _values(shape), entries)


@settings(max_examples=15)  # (each example compiles four programs)
@given(shapes, st.sampled_from(MODES), st.sampled_from([None, True, False]), st.data())
def test_take_along_axis_like_jax(shape, mode, wrap, data):
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    index_shape = list(shape)
    index_shape[axis] = data.draw(st.integers(1, 4))
    for d in range(len(shape)):  # other dimensions broadcast
        if d != axis % len(shape) and data.draw(st.booleans()):
            index_shape[d] = 1
    entries = _entries(data.draw, shape[axis], tuple(index_shape))
    fill = data.draw(st.sampled_from([None, -7.0]))
    assert_like_jax(lambda m, v, i: m.take_along_axis(v, i, axis, mode=mode, fill_value=fill,
                                                      wrap_negative_indices=wrap),
                    _values(shape), entries)


def test_take_along_axis_defaults_like_jax():
    x = _values((2, 5))
    idx = np.array([[7, -1, -9]], np.int32)
    for call in (lambda m, v, i: m.take_along_axis(v, i),
                 lambda m, v, i: m.take_along_axis(v, i, mode="promise_in_bounds"),
                 lambda m, v, i: m.take_along_axis(v, np.array([-1, 255], np.uint8), None,
                                                   wrap_negative_indices=False)):
        assert_like_jax(call, x, idx)
    assert_like_jax(lambda m, v, i: m.take(v, i, None, None, "clip"), x, idx)


# --------------------------------------------------------------------------------------------
# The setting check_index_bounds: NumPy's IndexError
# --------------------------------------------------------------------------------------------

def _numpy_update(n, idx, method):
    out = n.copy()
    if method == "set":
        out[idx] = 5.0
    else:
        np.add.at(out, idx, 5.0)
    return out


@given(shapes, st.sampled_from(["getitem", "set", "add"]), st.data())
def test_check_index_bounds_raises_where_numpy_does(shape, method, data):
    idx = data.draw(indices(shape))
    n = _values(shape)
    want = _outcome(lambda: n[idx] if method == "getitem" else _numpy_update(n, idx, method))
    x = fnp.asarray(n)
    with index_bounds_checked():
        got = _outcome(lambda: x[idx] if method == "getitem" else getattr(x.at[idx], method)(5.0))
    if want is IndexError or got is IndexError:
        assert got is want is IndexError, (idx, got, want)
    else:
        _assert_same(got, want, idx)


def test_check_index_bounds_points_at_the_users_line():
    x = fnp.arange(10.0)
    calls = [lambda: x[11], lambda: x[np.array([3, -11])], lambda: x.at[10].add(1.0),
             lambda: x.at[fnp.array([12])].get(),
             lambda: x.at[-1].set(0.0, wrap_negative_indices=False)]
    with index_bounds_checked():
        for call in calls:
            with pytest.raises(IndexError, match="out of bounds for axis 0 with size 10") as info:
                call()
            line = inspect.getsourcelines(call)[1]
            assert f"(at {__file__}:{line}:" in str(info.value), str(info.value)


def test_check_index_bounds_under_jit():
    """Static ints and constant index arrays are checked when tracing; a traced index cannot
    raise and keeps JAX's semantics. Turning the setting on re-traces cached functions."""
    x = fnp.arange(10.0)
    static = fa.jit(lambda v: v[11])
    assert float(static(x)) == 9.0
    with index_bounds_checked():
        with pytest.raises(IndexError, match="index 11 is out of bounds"):
            static(x)
        with pytest.raises(IndexError, match="index -12 is out of bounds"):
            fa.jit(lambda v: v.at[np.array([0, -12])].add(1.0))(x)
        assert float(fa.jit(lambda v, i: v[i])(x, 11)) == 9.0
        np.testing.assert_array_equal(fa.jit(lambda v, i: v.at[i].set(0.0))(x, 11), x)
        # an explicit mode is not checked
        assert float(x.at[11].get(mode="clip")) == 9.0
        assert np.isnan(fnp.take(x, fnp.array([11]))[0])
    assert float(static(x)) == 9.0
