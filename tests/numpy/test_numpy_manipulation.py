"""funcarray.numpy's extra shape/update functions (block, resize, rollaxis, trim_zeros,
insert, delete, unstack, apply_along_axis, apply_over_axes, piecewise, choose, put,
put_along_axis, fill_diagonal, place) against jax.numpy (32-bit defaults): values and dtypes
eagerly and under fa.jit, gradients against jax.grad, vmap against a Python loop, errors."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from helpers import assert_same
from hypothesis import given, settings
from hypothesis import strategies as st

import funcarray as fa
import funcarray.numpy as fnp


def _jax32(f, *args, **kwargs):
    """jax's result with its 32-bit defaults, compiled as one jax.jit call (one compile
    instead of one per eager jax operation)."""
    with jax.enable_x64(False):
        return jax.jit(lambda: f(*args, **kwargs))()


def _same(got, want, rtol=1e-6):
    got_leaves = got if isinstance(got, (tuple, list)) else [got]
    want_leaves = want if isinstance(want, (tuple, list)) else [want]
    assert len(got_leaves) == len(want_leaves)
    for g, w in zip(got_leaves, want_leaves):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape, (g.shape, w.shape)
        assert g.dtype == w.dtype, (g.dtype, w.dtype)
        if w.dtype.kind == "f":
            np.testing.assert_allclose(g, w, rtol=rtol, atol=1e-6)
        else:
            np.testing.assert_array_equal(g, w)


def _arange(shape, dtype=np.float32):
    return np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape) - 2


# --------------------------------------------------------------------------------------------
# block, resize, rollaxis, trim_zeros, unstack
# --------------------------------------------------------------------------------------------

def test_block_matches_numpy_and_jax():
    a, b = _arange((2, 2)), np.ones((2, 1), np.float32)
    c = np.full((1, 3), 7.0, np.float32)
    for arrays in ([a, b], [[a, b], [c]], [[[a]], [[a]]], np.float32(5.0), [[a], [a]]):
        _same(fnp.block(arrays), np.block(arrays))
    # jax's promotion (NumPy would give float64 here) and Python scalars
    mixed = [np.int32(1), np.float32(2.0), 3]
    _same(fnp.block(mixed), _jax32(jnp.block, mixed))
    got = fa.jit(lambda x, y, z: fnp.block([[x, y], [z]]))(a, b, c)
    _same(got, np.block([[a, b], [c]]))


def test_block_errors():
    with pytest.raises(TypeError, match="block: tuples"):
        fnp.block((1, 2))
    with pytest.raises(ValueError, match="block: empty lists"):
        fnp.block([[1], []])
    with pytest.raises(ValueError, match="block: mismatched list depths"):
        fnp.block([[1], 2])


@settings(max_examples=20, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=0, max_size=3),
       st.lists(st.integers(0, 4), min_size=0, max_size=3))
def test_resize_matches_numpy(shape, new_shape):
    x = _arange(tuple(shape), np.int32)
    _same(fnp.resize(x, tuple(new_shape)), np.resize(x, tuple(new_shape)))


def test_resize_jit_grad_and_errors():
    x = _arange((3,))
    _same(fa.jit(lambda v: fnp.resize(v, (2, 4)))(x), np.resize(x, (2, 4)))
    g = fa.grad(lambda v: fnp.sum(fnp.resize(v, (7,)) ** 2))(x)
    _same(g, 2 * x * np.array([3, 2, 2], np.float32))  # each element used 3, 2, 2 times
    with pytest.raises(ValueError, match="resize: every element of new_shape"):
        fnp.resize(x, (-1, 2))


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 4), st.data())
def test_rollaxis_matches_jax(ndim, data):
    x = np.zeros(tuple(range(2, 2 + ndim)), np.float32)
    axis = data.draw(st.integers(-ndim, ndim - 1))
    start = data.draw(st.integers(-ndim, ndim))
    assert fnp.rollaxis(x, axis, start).shape == np.rollaxis(x, axis, start).shape


def test_rollaxis_errors():
    with pytest.raises(ValueError, match="rollaxis: start=4"):
        fnp.rollaxis(np.zeros((2, 3)), 0, 4)


@pytest.mark.parametrize("trim", ["fb", "f", "b"])
def test_trim_zeros_matches_numpy(trim):
    for x in (np.array([0, 0, 1, 0, 2, 0, 0]), np.zeros(3, np.int32), np.array([1, 2]),
              np.array([[0, 0, 0], [0, 1, 0], [0, 0, 0]])):
        x = x.astype(np.int32)
        _same(fnp.trim_zeros(x, trim), np.trim_zeros(x, trim))
    x = np.array([[0, 0, 0], [0, 1, 0], [0, 2, 0]], np.float32)
    for axis in (0, 1, -1, (0, 1)):
        _same(fnp.trim_zeros(x, trim, axis=axis), np.trim_zeros(x, trim, axis=axis))


def test_trim_zeros_needs_concrete_input():
    x = np.array([0.0, 1.0, 0.0], np.float32)
    _same(fnp.trim_zeros(x, ""), x)  # nothing to trim, as in jax.numpy (NumPy refuses "")
    with pytest.raises(Exception, match="trim_zeros"):
        fa.jit(fnp.trim_zeros)(np.array([0.0, 1.0]))


def test_unstack_matches_numpy_and_vmap():
    x = _arange((2, 3, 4))
    for axis in (0, 1, -1):
        _same(fnp.unstack(x, axis=axis), list(np.moveaxis(x, axis, 0)))
    got = fa.vmap(lambda v: fnp.unstack(v, axis=1)[2])(x)
    _same(got, x[:, :, 2])
    with pytest.raises(ValueError, match="unstack: x must have at least one dimension"):
        fnp.unstack(np.float32(1.0))


# --------------------------------------------------------------------------------------------
# insert, delete
# --------------------------------------------------------------------------------------------

_OBJ = st.one_of(
    st.integers(-6, 6),
    st.lists(st.integers(-6, 6), min_size=0, max_size=4).map(lambda v: np.array(v, np.int32)),
    st.tuples(st.sampled_from([None, 0, 1, -2]), st.sampled_from([None, 3, -1]),
              st.sampled_from([None, 1, 2])).map(lambda t: slice(*t)))


def _insert_case(shape, obj, data):
    x = _arange(tuple(shape), np.int32)
    axis = data.draw(st.sampled_from([None, *range(-len(shape), len(shape))]), label="axis")
    n = x.size if axis is None else x.shape[axis]
    if not isinstance(obj, slice):
        obj = np.clip(obj, -n, n)  # NumPy raises where jax.numpy clamps: keep in range
    return x, obj, axis


@settings(max_examples=20, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=2), _OBJ, st.data())
def test_insert_matches_numpy(shape, obj, data):
    # NumPy is the oracle for in-range positions (jax.numpy agrees there; eager jax would
    # compile every op for each drawn shape).
    x, obj, axis = _insert_case(shape, obj, data)
    values = np.int32(100)
    if data.draw(st.booleans(), label="vector values") and (axis is None or x.ndim == 1):
        count = (len(range(*obj.indices(x.size))) if isinstance(obj, slice)
                 else np.size(obj))
        values = np.arange(100, 100 + max(count, 1), dtype=np.int32)
    try:
        want = np.insert(x, obj, values, axis=axis)
    except (ValueError, TypeError, IndexError):
        return
    _same(fnp.insert(x, obj, values, axis=axis), want)


def test_insert_clamps_and_ties_as_jax():
    x = _arange((2, 3), np.int32)
    for obj, values, axis in [(np.array([-9, 9, 1, 1], np.int32), np.arange(4), None),
                              (7, np.array([5, 6, 7]), 0)]:
        values = np.asarray(values, np.int32)
        _same(fnp.insert(x, obj, values, axis=axis), _jax32(jnp.insert, x, obj, values,
                                                            axis=axis))


def test_insert_traced_indices_grad_and_vmap():
    x = _arange((2, 3))
    idx, vals = np.array([0, 3, 1], np.int32), np.array([7.0, 8.0, 9.0], np.float32)
    want = np.insert(x, idx, vals, axis=1)
    _same(fa.jit(lambda a, i, v: fnp.insert(a, i, v, axis=1))(x, idx, vals), want)

    def loss(np_):
        return lambda a, v: np_.sum(np_.sin(np_.insert(a, idx, v, axis=1)) * np_.arange(6.0))
    got = fa.grad(loss(fnp), argnums=(0, 1))(x, vals)
    want = _jax32(jax.grad(loss(jnp), argnums=(0, 1)), x, vals)
    _same(got, want, rtol=1e-5)
    batched = fa.vmap(lambda a: fnp.insert(a, 1, -1.0))(x)
    _same(batched, np.stack([np.insert(row, 1, -1.0) for row in x]))


def test_insert_errors():
    with pytest.raises(ValueError, match="insert: obj must be a slice, a 1-D array"):
        fnp.insert(np.arange(3), np.zeros((2, 2), np.int32), 1)
    with pytest.raises(TypeError, match="insert: obj must hold integers"):
        fnp.insert(np.arange(3), np.array([0.5]), 1)
    with pytest.raises(ValueError, match="insert: 2 positions but 3 values"):
        fnp.insert(np.arange(3), np.array([0, 1]), np.arange(3))


@settings(max_examples=20, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=2), _OBJ, st.data())
def test_delete_matches_numpy(shape, obj, data):
    x = _arange(tuple(shape), np.int32)
    axis = data.draw(st.sampled_from([None, *range(-len(shape), len(shape))]), label="axis")
    n = x.size if axis is None else x.shape[axis]
    if data.draw(st.booleans(), label="bool mask"):
        obj = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    try:
        want = np.delete(x, obj, axis=axis)
    except (ValueError, TypeError, IndexError):
        with pytest.raises((ValueError, TypeError, IndexError)):
            fnp.delete(x, obj, axis=axis)
        return
    _same(fnp.delete(x, obj, axis=axis), want)
    if not isinstance(obj, slice) and np.asarray(obj).dtype != bool:
        unique = np.unique(np.asarray(obj) % n) if n else np.asarray(obj)
        _same(fnp.delete(x, unique, axis=axis, assume_unique_indices=True), want)


def test_delete_unique_traced_indices_and_grad():
    x = _arange((3, 5))
    idx = np.array([4, 0, -2], np.int32)
    want = np.delete(x, idx, axis=1)
    got = fa.jit(lambda a, i: fnp.delete(a, i, axis=1, assume_unique_indices=True))(x, idx)
    _same(got, want)

    def loss(np_):
        return lambda a: np_.sum(np_.delete(a, idx, axis=1, assume_unique_indices=True) ** 3)
    _same(fa.grad(loss(fnp))(x), _jax32(jax.grad(loss(jnp)), x))
    with pytest.raises(Exception, match="assume_unique_indices=True"):
        fa.jit(lambda a, i: fnp.delete(a, i))(x, idx)
    with pytest.raises(ValueError, match="delete: index 99 is out of bounds"):
        fnp.delete(x, 99)
    with pytest.raises(ValueError, match="delete: a boolean obj must be 1-D"):
        fnp.delete(x, np.array([True]), axis=1)
    with pytest.raises(TypeError, match="delete: obj must be integers or booleans"):
        fnp.delete(x, np.array([0.5]))


# --------------------------------------------------------------------------------------------
# apply_along_axis, apply_over_axes, piecewise, choose
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("axis", [0, 1, -1])
def test_apply_along_axis_matches_numpy(axis):
    x = np.random.default_rng(0).normal(size=(2, 3, 4)).astype(np.float32)

    def f(np_):
        return lambda v, scale: np_.stack([np_.sum(v) * scale, np_.max(v)])
    got = fnp.apply_along_axis(f(fnp), axis, x, 2.0)
    _same(got, np.apply_along_axis(f(np), axis, x, np.float32(2.0)))
    _same(fnp.apply_along_axis(fnp.sort, axis, x), np.apply_along_axis(np.sort, axis, x))


def test_apply_along_axis_jit_grad_vmap():
    x = np.random.default_rng(1).normal(size=(3, 4)).astype(np.float32)

    def loss(np_):
        return lambda a: np_.sum(np_.apply_along_axis(lambda v: np_.cumsum(v ** 2), 0, a))
    _same(fa.grad(loss(fnp))(x), _jax32(jax.grad(loss(jnp)), x), rtol=1e-5)
    _same(fa.jit(lambda a: fnp.apply_along_axis(fnp.cumsum, 1, a))(x), np.cumsum(x, axis=1),
          rtol=1e-5)
    got = fa.vmap(lambda a: fnp.apply_along_axis(fnp.max, 0, a))(x[None].repeat(2, 0))
    _same(got, np.stack([x.max(0)] * 2))


def test_apply_over_axes_matches_numpy():
    x = _arange((2, 3, 4))
    for axes in ([0], [0, 2], (1, -1)):
        _same(fnp.apply_over_axes(fnp.sum, x, axes), np.apply_over_axes(np.sum, x, axes))
    with pytest.raises(ValueError, match="apply_over_axes: func returned shape"):
        fnp.apply_over_axes(lambda a, ax: fnp.ravel(a), x, [0])


def _pieces(np_):
    return [lambda v, k: v * k, lambda v, k: np_.sin(v) * k, 0.5]


def test_piecewise_matches_numpy_jit_and_jax_grad():
    x = np.linspace(-3, 3, 7, dtype=np.float32).reshape(7)
    conds = [x < -1, x > 1]
    want = np.piecewise(x, conds, _pieces(np), np.float32(3.0))
    _same(fnp.piecewise(x, conds, _pieces(fnp), 3.0), want)
    _same(fa.jit(lambda v: fnp.piecewise(v, [v < -1, v > 1], _pieces(fnp), 3.0))(x), want)
    # no default function: zeros where nothing holds; an array of conditions; int dtype
    xi = np.arange(-3, 4, dtype=np.int32).reshape(7, 1)
    _same(fnp.piecewise(xi, [xi > 0], [lambda v: v * 2]),
          np.piecewise(xi, [xi > 0], [lambda v: v * 2]))
    stacked = np.stack([x < 0, x > 0])
    _same(fnp.piecewise(x, stacked, [1.0, 2.0]), np.piecewise(x, stacked, [1.0, 2.0]))

    def loss(np_):
        return lambda v: np_.sum(np_.piecewise(v, [v < -1, v > 1], _pieces(np_), 3.0) ** 2)
    _same(fa.grad(loss(fnp))(x), _jax32(jax.grad(loss(jnp)), x), rtol=1e-5)
    with pytest.raises(ValueError, match="piecewise: with 2 condition"):
        fnp.piecewise(x, conds, [1.0])


def test_piecewise_vmap_matches_loop():
    x = np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4)

    def f(row):
        return fnp.piecewise(row, [row < 0], [lambda v: v ** 2, lambda v: -v])
    _same(fa.vmap(f)(x), np.stack([np.asarray(f(r)) for r in x]))


@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
def test_choose_matches_numpy(mode):
    choices = [_arange((3,)), np.full((2, 3), 10.0, np.float32), np.float32(-1.0)]
    a = np.array([[0, 1, 2], [2, 1, 0]], np.int32)
    if mode != "raise":
        a = a * 3 - 2
    want = np.choose(a, choices, mode=mode)
    _same(fnp.choose(a, choices, mode=mode), want)
    if mode == "wrap":
        _same(fa.jit(lambda i, c: fnp.choose(i, c, mode=mode))(a, choices), want)


def test_choose_errors():
    with pytest.raises(ValueError, match="choose: an entry of a is out of range"):
        fnp.choose(np.array([3]), [np.zeros(1), np.ones(1)])
    with pytest.raises(TypeError, match="choose: a must be an integer array"):
        fnp.choose(np.array([0.0]), [np.zeros(1)])
    with pytest.raises(Exception, match="mode='wrap'"):
        fa.jit(lambda i: fnp.choose(i, [np.zeros(1)]))(np.array([0]))
    with pytest.raises(ValueError, match="choose: mode must be"):
        fnp.choose(np.array([0]), [np.zeros(1)], mode="bad")


# --------------------------------------------------------------------------------------------
# put, put_along_axis, fill_diagonal, place
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", [None, "clip", "wrap"])
def test_put_matches_jax_and_numpy(mode):
    x = _arange((2, 3))
    ind = np.array([0, 4, 7, -2], np.int32)
    for v in (np.float32(9.0), np.array([1.0, 2.0], np.float32)):
        if mode is None:  # jax.numpy drops out-of-range positions, NumPy raises
            want = _jax32(jnp.put, x, ind, v, mode=mode, inplace=False)
        else:
            want = x.copy()
            np.put(want, ind, v, mode=mode)
        _same(fnp.put(x, ind, v, mode=mode, inplace=False), want)
    if mode == "clip":
        got = fa.jit(lambda a, i, v: fnp.put(a, i, v, mode=mode, inplace=False))(x, ind, v)
        _same(got, want)


def test_updates_refuse_inplace_and_bad_modes():
    x = np.zeros((2, 2), np.float32)
    for call in (lambda: fnp.put(x, np.array([0]), 1.0),
                 lambda: fnp.put_along_axis(x, np.zeros((2, 1), np.int32), 1.0, axis=1),
                 lambda: fnp.fill_diagonal(x, 1.0),
                 lambda: fnp.place(x, x > 0, np.ones(1))):
        with pytest.raises(ValueError, match="pass inplace=False"):
            call()
    with pytest.raises(ValueError, match="put: mode='raise'"):
        fnp.put(x, np.array([0]), 1.0, mode="raise", inplace=False)
    with pytest.raises(ValueError, match="fill_diagonal: wrap=True"):
        fnp.fill_diagonal(x, 1.0, wrap=True, inplace=False)
    with pytest.raises(ValueError, match="fill_diagonal: an array of more than 2"):
        fnp.fill_diagonal(np.zeros((2, 2, 3)), 1.0, inplace=False)
    with pytest.raises(ValueError, match="place: arr .* and mask .* must have the same size"):
        fnp.place(x, np.array([True]), np.ones(1), inplace=False)
    with pytest.raises(ValueError, match="put_along_axis: arr .* and indices"):
        fnp.put_along_axis(x, np.zeros(2, np.int32), 1.0, axis=0, inplace=False)


@settings(max_examples=15, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=3), st.data())
def test_put_along_axis_matches_numpy(shape, data):
    x = _arange(tuple(shape))
    axis = data.draw(st.sampled_from([None, *range(-len(shape), len(shape))]), label="axis")
    n = x.size if axis is None else x.shape[axis]
    ishape = (3,) if axis is None else tuple(3 if d == axis % x.ndim else s
                                             for d, s in enumerate(shape))
    idx = np.random.default_rng(len(shape)).integers(-n, n, size=ishape).astype(np.int32)
    values = np.float32(-7.0)
    want = x.copy()
    np.put_along_axis(want, idx, values, axis)
    _same(fnp.put_along_axis(x, idx, values, axis, inplace=False), want)


def test_put_along_axis_jit_and_grad():
    x = _arange((3, 4))
    idx = np.argsort(x * np.array([1, -1, 1, -1]), axis=1)[:, :2].astype(np.int32)
    vals = np.ones((3, 2), np.float32)
    want = x.copy()
    np.put_along_axis(want, idx, vals, 1)
    got = fa.jit(lambda a, i, v: fnp.put_along_axis(a, i, v, 1, inplace=False))(x, idx, vals)
    _same(got, want)

    def loss(np_):
        return lambda a, v: np_.sum(np_.put_along_axis(a, idx, v, 1, inplace=False) ** 2)
    _same(fa.grad(loss(fnp), argnums=(0, 1))(x, vals),
          _jax32(jax.grad(loss(jnp), argnums=(0, 1)), x, vals))


def test_fill_diagonal_matches_numpy():
    for shape in ((3, 3), (2, 4), (5, 2), (3, 3, 3), (0, 2)):
        x = _arange(shape)
        for val in (np.float32(9.0), np.array([1.0, 2.0], np.float32)):
            want = x.copy()
            np.fill_diagonal(want, val)
            _same(fnp.fill_diagonal(x, val, inplace=False), want)
    got = fa.jit(lambda a, v: fnp.fill_diagonal(a, v, inplace=False))(_arange((2, 4)), val)
    want = _arange((2, 4))
    np.fill_diagonal(want, val)
    _same(got, want)
    g = fa.grad(lambda v: fnp.sum(fnp.fill_diagonal(fnp.ones((3, 3)), v, inplace=False)))(
        fnp.array([1.0, 2.0]))
    _same(g, np.array([2.0, 1.0], np.float32))


def test_place_matches_numpy_with_traced_mask():
    x = _arange((2, 4))
    mask = (x.astype(np.int32) % 3) == 0
    for vals in (np.array([10.0, 20.0], np.float32), np.float32(5.0)):
        want = x.copy()
        np.place(want, mask, vals)
        _same(fnp.place(x, mask, vals, inplace=False), want)
    got = fa.jit(lambda a, m, v: fnp.place(a, m, v, inplace=False))(x, mask, vals)
    _same(got, want)
    with pytest.raises(ValueError, match="place: vals must not be empty"):
        fnp.place(x, mask, np.zeros(0), inplace=False)


# --------------------------------------------------------------------------------------------
# Index tricks: r_, c_, s_, index_exp, mgrid, ogrid, ix_, diag/tril/triu/mask indices
# --------------------------------------------------------------------------------------------

def _np32(value):
    """NumPy's result with jax's 32-bit defaults (Python ints/floats are int32/float32)."""
    value = np.asarray(value)
    return value.astype({"i": np.int32, "f": np.float32}.get(value.dtype.kind, value.dtype))


def test_r_and_c_match_numpy():
    a = np.array([1, 2, 3], np.int32)
    m = np.arange(6, dtype=np.int32).reshape(2, 3)
    cases = [
        lambda ns: ns.r_[0:3, 7, a], lambda ns: ns.r_[-1:1:5j, 0.5], lambda ns: ns.r_[m, m],
        lambda ns: ns.r_["0,2", a, a], lambda ns: ns.r_["0,2,0", a, a],
        lambda ns: ns.r_["0,2,-2", a, a], lambda ns: ns.r_["1,3", m, m],
        lambda ns: ns.r_[5:1:-2], lambda ns: ns.c_[a, a], lambda ns: ns.c_[m, m],
        lambda ns: ns.c_["0,2,-1", a, a], lambda ns: ns.c_[0:2, a[:2]],
    ]
    for case in cases:
        _same(case(fnp), _np32(case(np)))
    # The matrix directives (NumPy returns np.matrix; jax.numpy's documented results)
    twice = np.array([1, 2, 3, 1, 2, 3], np.int32)
    _same(fnp.r_["r", a, a], twice[None, :])
    _same(fnp.r_["c", a, a], twice[:, None])
    _same(fnp.c_["r", a, a], np.stack([a, a], axis=1))
    assert fnp.s_[1:2, ::3] == np.s_[1:2, ::3]
    assert fnp.index_exp[1:2] == np.index_exp[1:2]
    assert len(fnp.r_) == 0


def test_r_traced_items_and_errors():
    got = fa.jit(lambda v: fnp.r_[v, 0:2, v * 2])(np.array([1.0, 2.0], np.float32))
    _same(got, np.array([1, 2, 0, 1, 2, 4], np.float32))
    with pytest.raises(ValueError, match="r_: could not understand the directive 'x'"):
        fnp.r_["x", 1]
    with pytest.raises(ValueError, match="r_: the string directive 'r' must come first"):
        fnp.r_[1, "r"]
    with pytest.raises(TypeError, match="mgrid: the slice .* needs a stop"):
        fnp.mgrid[0::3j]


def test_mgrid_ogrid_match_numpy():
    for key in ((slice(0, 3), slice(1, 5, 2)), (slice(0, 1, 4j), slice(0, 2)), slice(2, 6),
                (slice(0, 2),), (slice(0, 2), slice(0, 3), slice(0, 1))):
        _same(fnp.mgrid[key], _np32(np.mgrid[key]))
        got, want = fnp.ogrid[key], np.ogrid[key]
        _same(got, [_np32(w) for w in want] if isinstance(want, (list, tuple))
              else _np32(want))
    _same(fnp.mgrid[()], np.arange(0, dtype=np.int32))


def test_ix_matches_numpy():
    rows, cols = np.array([0, 2], np.int32), np.array([1, 3, 0], np.int32)
    got = fnp.ix_(rows, cols)
    _same(got, list(np.ix_(rows, cols)))
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    _same(fnp.asarray(x)[got], x[np.ix_(rows, cols)])
    _same(fa.jit(lambda r, c: fnp.asarray(x)[fnp.ix_(r, c)])(rows, cols), x[np.ix_(rows, cols)])
    (empty,) = fnp.ix_(np.zeros(0, np.float32))
    assert empty.shape == (0,) and empty.dtype.kind == "i"
    with pytest.raises(TypeError, match="ix_: boolean arguments are not supported"):
        fnp.ix_(np.array([True]))
    with pytest.raises(ValueError, match="ix_: every argument must be 1-D"):
        fnp.ix_(np.zeros((2, 2), np.int32))


def test_diag_and_triangle_indices_match_numpy():
    _same(fnp.diag_indices(3), [_np32(i) for i in np.diag_indices(3)])
    _same(fnp.diag_indices(2, ndim=3), [_np32(i) for i in np.diag_indices(2, ndim=3)])
    x = np.zeros((3, 3, 3))
    _same(fnp.diag_indices_from(x), [_np32(i) for i in np.diag_indices_from(x)])
    for shape, k in (((3, 4), 0), ((4, 2), -1), ((3, 3), 2)):
        y = np.zeros(shape)
        _same(fnp.tril_indices_from(y, k=k), [_np32(i) for i in np.tril_indices_from(y, k=k)])
        _same(fnp.triu_indices_from(y, k=k), [_np32(i) for i in np.triu_indices_from(y, k=k)])
    for func, k in ((fnp.triu, 1), (fnp.tril, -1), (fnp.triu, 0)):
        want = np.mask_indices(4, getattr(np, func.__name__), k)
        _same(fnp.mask_indices(4, func, k), [_np32(i) for i in want])
    rows, cols = fnp.mask_indices(3, fnp.triu, size=8)
    assert rows.shape == cols.shape == (8,)
    with pytest.raises(ValueError, match="diag_indices_from: all dimensions of arr"):
        fnp.diag_indices_from(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="diag_indices_from: arr must be at least 2-D"):
        fnp.diag_indices_from(np.zeros(3))
    with pytest.raises(ValueError, match="tril_indices_from: arr must be 2-D"):
        fnp.tril_indices_from(np.zeros(3))
    with pytest.raises(ValueError, match="diag_indices: n and ndim must be non-negative"):
        fnp.diag_indices(-1)


# --- mode="promise_in_bounds" ----------------------------------------------------------------

def test_promise_in_bounds_matches_jax_for_in_bounds_indices():
    x = np.arange(12.0).reshape(3, 4)
    for idx in ((np.array([0, 2, -1]),), (slice(None), np.array([3, 0, -4]))):
        for kind in ("get", "set", "add"):
            def f(m, x, idx=idx, kind=kind):
                ref = m.asarray(x).at[idx]
                args = () if kind == "get" else (7.0,)
                return getattr(ref, kind)(*args, mode="promise_in_bounds")
            want = f(jnp, x)
            assert_same(f(fnp, x), want)
            if kind in ("get", "add"):
                assert_same(fa.jit(lambda x: f(fnp, x))(x), want)
    take = [np.array([[0], [3], [1]]), 1]
    assert_same(fnp.take_along_axis(x, *take, mode="promise_in_bounds"),
          jnp.take_along_axis(x, *take, mode="promise_in_bounds"))
