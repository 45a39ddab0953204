"""The rest of jax.lax: named-axis collectives (psum_scatter, all_to_all, pswapaxes, pshuffle,
pbroadcast, pcast, ragged_all_to_all), ragged products, dot algorithms, XLA's random bit
generators, scatter_sub/scatter_apply, unshared convolution, scaled_dot and the small
utilities. jax.lax is the oracle (jax.vmap with the same axis_name for the collectives)."""

import inspect

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import funcarray as fa
import funcarray.numpy as fnp
from funcarray import lax
from funcarray.testing import assert_allclose, check_grads

RNG = np.random.default_rng(0)


def _normal(*shape, dtype=np.float32):
    return RNG.normal(size=shape).astype(dtype)


# --- signatures -------------------------------------------------------------------------------

NEW_FUNCTIONS = [
    "after_all", "all_to_all", "broadcast_like", "broadcast_shapes", "composite",
    "conv_general_dilated_local", "create_token", "dce_sink", "dtype", "pbroadcast", "pcast",
    "pshuffle", "psum_scatter", "pswapaxes", "ragged_all_to_all", "ragged_dot",
    "ragged_dot_general", "rng_bit_generator", "rng_uniform", "scaled_dot", "scatter_apply",
    "scatter_sub", "shape_as_value", "stage", "with_sharding_constraint"]


def test_new_names_have_jax_signatures():
    for name in NEW_FUNCTIONS:
        want = inspect.signature(getattr(jax.lax, name)).parameters.values()
        got = inspect.signature(inspect.unwrap(getattr(lax, name))).parameters.values()
        assert [(p.name, p.kind) for p in got] == [(p.name, p.kind) for p in want], name
        for g, w in zip(got, want):
            assert g.default == w.default or g.default is w.default or (
                np.dtype(g.default) == np.dtype(w.default)), (name, g.name)
    missing = [n for n in dir(jax.lax) if not n.startswith("_") and not n.endswith("_p")
               and not hasattr(lax, n)]
    assert missing == ["precv", "psend"]  # point-to-point sends: not on one device


# --- collectives ------------------------------------------------------------------------------

# name -> fun(lax, member value of shape (4, 3)); 4 members, compared with jax.vmap
COLLECTIVES = {
    "psum_scatter": lambda L, v: L.psum_scatter(v, "i"),
    "psum_scatter_tiled_dim1": lambda L, v: L.psum_scatter(
        v.reshape(1, 12), "i", scatter_dimension=1, tiled=True),
    "all_to_all": lambda L, v: L.all_to_all(v, "i", 0, 1),
    "all_to_all_tiled": lambda L, v: L.all_to_all(v.reshape(12, 1), "i", 0, 1, tiled=True),
    "all_to_all_tiled_same_axis": lambda L, v: L.all_to_all(v.T.reshape(12), "i", 0, 0,
                                                            tiled=True),
    "pswapaxes": lambda L, v: L.pswapaxes(v, "i", 0),
}


@pytest.fixture(scope="module")
def members():
    return _normal(4, 4, 3)


@pytest.mark.parametrize("name", list(COLLECTIVES))
def test_collectives_match_jax_vmap(name, members):
    case = COLLECTIVES[name]

    def loss(L, vm):
        return lambda v: (vm(lambda m: case(L, m), axis_name="i")(v) ** 2 * 1.5).sum()

    want = jax.jit(jax.vmap(lambda m: case(jax.lax, m), axis_name="i"))(members)
    want_grad = jax.jit(jax.grad(loss(jax.lax, jax.vmap)))(members)
    run = fa.vmap(lambda m: case(lax, m), axis_name="i")
    assert_allclose(run(fnp.asarray(members)), want)
    # batch axis elsewhere, and a jit inside the vmap
    moved = fa.vmap(fa.jit(lambda m: case(lax, m)), in_axes=2, axis_name="i")(
        fnp.asarray(members.transpose(1, 2, 0)))
    assert_allclose(moved, want)
    assert_allclose(fa.grad(loss(lax, fa.vmap))(fnp.asarray(members)), want_grad)
    assert_allclose(fa.jit(fa.grad(loss(lax, fa.vmap)))(fnp.asarray(members)), want_grad)


def test_collectives_against_a_python_loop(members):
    x = members  # member k holds x[k], of shape (4, 3)
    scattered = fa.vmap(lambda v: lax.psum_scatter(v, "i"), axis_name="i")(fnp.asarray(x))
    assert_allclose(scattered, x.sum(0))  # member k gets row k of the sum
    exchanged = fa.vmap(lambda v: lax.all_to_all(v, "i", 0, 1), axis_name="i")(fnp.asarray(x))
    want = np.stack([np.stack([x[j][k] for j in range(4)], axis=1) for k in range(4)])
    assert_allclose(exchanged, want)  # member k: column j is member j's row k
    shuffled = fa.vmap(lambda v: lax.pshuffle(v, "i", [2, 0, 3, 1]), axis_name="i")(
        fnp.asarray(x))
    assert_allclose(shuffled, x[[2, 0, 3, 1]])  # member k gets member perm[k]'s value
    # an operand the same on every member (unbatched)
    same = fa.vmap(lambda v: lax.psum_scatter(fnp.asarray(x[0]), "i") + 0 * v.sum(),
                   axis_name="i")(fnp.asarray(x))
    assert_allclose(same, 4 * x[0])
    same = fa.vmap(lambda v: lax.all_to_all(fnp.asarray(x[0]), "i", 0, 0) + 0 * v.sum(),
                   axis_name="i")(fnp.asarray(x))
    assert_allclose(same, np.stack([np.broadcast_to(x[0][k], (4, 3)) for k in range(4)]))


def test_nested_named_axes_and_an_unnamed_vmap_between():
    x = _normal(2, 3, 6, 2)

    def nested(L, vm, v):
        def inner(r):
            return L.all_to_all(r, "i", 0, 1, tiled=True).sum() * L.psum_scatter(
                r, "j", tiled=True)
        return vm(vm(inner, axis_name="j"), axis_name="i")(v)

    want = jax.jit(lambda v: nested(jax.lax, jax.vmap, v))(x)
    assert_allclose(nested(lax, fa.vmap, fnp.asarray(x)), want)
    want_grad = jax.jit(jax.grad(lambda v: nested(jax.lax, jax.vmap, v).sum()))(x)
    assert_allclose(fa.grad(lambda v: nested(lax, fa.vmap, v).sum())(fnp.asarray(x)), want_grad)

    def middle(L, vm, v):  # the unnamed vmap maps the collective member-wise
        return vm(vm(lambda r: L.psum_scatter(r, "i", tiled=True)), axis_name="i")(v)

    assert_allclose(middle(lax, fa.vmap, fnp.asarray(x)),
                    jax.jit(lambda v: middle(jax.lax, jax.vmap, v))(x))


def test_pbroadcast_pcast_and_per_member_gradients():
    x = _normal(4, 3)
    # jax documents pbroadcast as the masked psum (its own vmap rule fails)
    want = jax.vmap(lambda v: jax.lax.psum(jnp.where(jax.lax.axis_index("i") == 2, v, 0.0),
                                           "i"), axis_name="i")(x)
    got = fa.vmap(lambda v: lax.pbroadcast(v, "i", 2), axis_name="i")(fnp.asarray(x))
    assert_allclose(got, want)
    weights = np.arange(1.0, 5.0)[:, None]
    grads = fa.grad(lambda v: (fa.vmap(lambda m: lax.pbroadcast(m, "i", 2), axis_name="i")(v)
                               * weights).sum())(fnp.asarray(x))
    want_grads = np.zeros_like(x)
    want_grads[2] = weights.sum()
    assert_allclose(grads, want_grads)
    assert_allclose(fa.vmap(lambda v: lax.pcast(v, "i", to="varying"), axis_name="i")(
        fnp.asarray(x)), x)
    # per-member gradients: each member differentiates its own output
    square = np.concatenate([x, x[:, :1]], 1)  # (4 members, 4 entries)
    want = jax.vmap(jax.grad(lambda v: jax.lax.psum_scatter(v, "i").sum()), axis_name="i")(
        square)
    assert_allclose(fa.vmap(fa.grad(lambda v: lax.psum_scatter(v, "i").sum()),
                            axis_name="i")(fnp.asarray(square)), want)


def _ragged_all_to_all_reference(operand, output, in_off, send, out_off):
    """jax.lax.ragged_all_to_all's documented pseudocode, per member."""
    n = len(operand)
    per = in_off.shape[1] // n
    result = [o.copy() for o in output]
    for src in range(n):
        for i in range(in_off.shape[1]):
            dst = i // per
            piece = operand[src][in_off[src, i]:in_off[src, i] + send[src, i]]
            result[dst][out_off[src, i]:out_off[src, i] + len(piece)] = piece
    return np.stack(result)


def test_ragged_all_to_all_against_the_documented_semantics():
    operand = _normal(3, 5, 2)
    output = _normal(3, 6, 2)
    in_off = np.array([[0, 1, 3], [2, 0, 4], [0, 0, 1]], np.int32)
    send = np.array([[1, 2, 2], [2, 1, 1], [0, 3, 2]], np.int32)
    out_off = np.array([[0, 0, 4], [1, 3, 0], [3, 1, 2]], np.int32)
    recv = send.T.copy()  # the sizes each member receives
    f = fa.vmap(lambda *a: lax.ragged_all_to_all(*a, axis_name="i"), axis_name="i")
    args = (operand, output, in_off, send, out_off, recv)
    want = _ragged_all_to_all_reference(operand, output, in_off, send, out_off)
    assert_allclose(f(*map(fnp.asarray, args)), want)
    assert_allclose(fa.jit(f)(*map(fnp.asarray, args)), want)
    check_grads(lambda a, b: f(a, b, *map(fnp.asarray, args[2:])),
                (fnp.asarray(operand), fnp.asarray(output)), order=1)


def test_collective_argument_errors():
    named = lambda f, n=4: fa.vmap(f, axis_name="i")(fnp.ones((n, 3)))  # noqa: E731
    with pytest.raises(ValueError, match="tiled=False needs exactly one entry per member"):
        named(lambda v: lax.psum_scatter(v, "i"))
    with pytest.raises(ValueError, match="does not divide into the 2 members"):
        named(lambda v: lax.all_to_all(v, "i", 0, 0, tiled=True), n=2)
    with pytest.raises(ValueError, match=r"concat_axis=3 is out of range"):
        named(lambda v: lax.all_to_all(v, "i", 0, 3), n=3)
    with pytest.raises(ValueError, match="is not a permutation"):
        named(lambda v: lax.pshuffle(v, "i", [0, 0, 1, 2]))
    with pytest.raises(ValueError, match="source=5 names a member outside"):
        named(lambda v: lax.pbroadcast(v, "i", 5))
    with pytest.raises(ValueError, match="use one of varying"):
        named(lambda v: lax.pcast(v, "i", to="sideways"))
    with pytest.raises(NameError, match="unbound axis name"):
        lax.psum_scatter(fnp.ones(3), "i")
    with pytest.raises(NotImplementedError, match="axis_index_groups"):
        named(lambda v: lax.all_to_all(v, "i", 0, 0, axis_index_groups=[[0, 1], [2, 3]]))


# --- ragged products --------------------------------------------------------------------------

def _ragged_reference(lhs, rhs, sizes):
    out = np.zeros((lhs.shape[0], rhs.shape[2]), np.float64)
    start = 0
    for g, size in enumerate(sizes):
        out[start:start + size] = lhs[start:start + size] @ rhs[g]
        start += size
    return out.astype(np.result_type(lhs, rhs))  # accumulated in float64, the inputs' dtype


def test_ragged_dot_matches_jax_and_differentiates():
    lhs, rhs = _normal(7, 4), _normal(3, 4, 5)
    sizes = np.array([2, 0, 4], np.int32)  # the last row is in no group
    want = jax.lax.ragged_dot(lhs, rhs, sizes)
    assert_allclose(lax.ragged_dot(lhs, rhs, sizes), want)
    assert_allclose(fa.jit(lax.ragged_dot)(lhs, rhs, sizes), want)
    loss = lambda L: lambda a, b: (L.ragged_dot(a, b, sizes) ** 2).sum()  # noqa: E731
    want_grads = jax.jit(jax.grad(loss(jax.lax), argnums=(0, 1)))(lhs, rhs)
    fa.tree.map(assert_allclose, fa.grad(loss(lax), argnums=(0, 1))(lhs, rhs), want_grads)
    # vmap over lhs and group sizes together, against a loop
    lhs_b = _normal(3, 7, 4)
    sizes_b = np.array([[2, 0, 4], [1, 1, 1], [7, 0, 0]], np.int32)
    got = fa.vmap(lambda a, g: lax.ragged_dot(a, rhs, g))(lhs_b, sizes_b)
    assert_allclose(got, np.stack([_ragged_reference(a, rhs, g)
                                   for a, g in zip(lhs_b, sizes_b)]))
    assert lax.ragged_dot(lhs.astype(np.int8), rhs.astype(np.int8), sizes,
                          preferred_element_type=np.int32).dtype == np.int32


@pytest.mark.parametrize("mode", ["noncontracting", "contracting", "batch"])
def test_ragged_dot_general_modes_match_jax(mode):
    if mode == "noncontracting":  # batch dim 0, ragged m (dim 1), rhs group dim 2
        lhs, rhs = _normal(2, 6, 3), _normal(2, 3, 4, 5)
        sizes = np.array([[1, 2, 3, 0], [3, 3, 0, 0]], np.int32)
        dims = ((([2], [1]), ([0], [0])), [1], [2])
    elif mode == "contracting":  # ragged k: the result gets a leading group axis
        lhs, rhs = _normal(2, 3, 6), _normal(2, 6, 5)
        sizes = np.array([[1, 2, 3], [0, 4, 2]], np.int32)
        dims = ((([2], [1]), ([0], [0])), [2], [])
    else:
        lhs, rhs = _normal(2, 3, 6), _normal(2, 6, 5)
        sizes = np.array([1, 1], np.int32)
        dims = ((([2], [1]), ([0], [0])), [0], [])
    want = jax.lax.ragged_dot_general(lhs, rhs, sizes, jax.lax.RaggedDotDimensionNumbers(*dims))
    numbers = lax.RaggedDotDimensionNumbers(*dims)
    assert_allclose(lax.ragged_dot_general(lhs, rhs, sizes, numbers), want)
    if mode == "contracting":  # jax has no transpose rule here: finite differences
        check_grads(lambda a, b: lax.ragged_dot_general(a, b, sizes, numbers),
                    (fnp.asarray(lhs), fnp.asarray(rhs)), order=1, modes=("rev",))


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=4), st.integers(0, 2))
def test_ragged_dot_random_groups_against_numpy(sizes, extra_rows):
    m = sum(sizes) + extra_rows
    lhs, rhs = _normal(m, 2), _normal(len(sizes), 2, 3)
    got = lax.ragged_dot(lhs, rhs, np.array(sizes, np.int32))
    assert_allclose(got, _ragged_reference(lhs, rhs, sizes))


def test_ragged_dot_errors():
    with pytest.raises(TypeError, match="group_sizes must have an integer dtype"):
        lax.ragged_dot(fnp.ones((3, 2)), fnp.ones((2, 2, 1)), fnp.ones(2))
    with pytest.raises(TypeError, match="has size 2, but group_sizes has 3 groups"):
        lax.ragged_dot(fnp.ones((3, 2)), fnp.ones((2, 2, 1)), fnp.asarray([1, 1, 1]))
    with pytest.raises(TypeError, match="contracting dimensions .* must have equal sizes"):
        lax.ragged_dot(fnp.ones((3, 2)), fnp.ones((2, 3, 1)), fnp.asarray([1, 1]))
    with pytest.raises(NotImplementedError, match="group_offset"):
        lax.ragged_dot(fnp.ones((3, 2)), fnp.ones((2, 2, 1)), fnp.asarray([1, 1]),
                       group_offset=fnp.asarray([1]))


# --- dot algorithms ---------------------------------------------------------------------------

@pytest.mark.parametrize("preset,dtype", [
    ("F16_F16_F16", np.float32), ("BF16_BF16_F32", np.float16), ("BF16_BF16_F32_X3", np.float32),
    ("F64_F64_F64", np.float32)])
def test_dot_algorithm_presets_match_jax_on_cpu(preset, dtype):
    x, y = _normal(3, 64, dtype=dtype), _normal(64, 2, dtype=dtype)
    want = jax.lax.dot(x, y, precision=getattr(jax.lax.DotAlgorithmPreset, preset))
    got = fa.jit(lambda a, b: lax.dot(a, b, precision=preset))(x, y)  # by name
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))  # XLA's own numbers
    assert_allclose(lax.dot(x, y, precision=getattr(lax.DotAlgorithmPreset, preset)), want)


def test_dot_algorithms_convert_operands_and_raise_on_what_cannot_be_honoured():
    x = fnp.asarray([1.0, 2.0 ** -12])
    # float16 storage drops the small term; the float32 accumulation of F32_F32_F32 keeps it
    assert float(lax.dot(x, fnp.ones(2), precision="F16_F16_F16")) == 1.0
    assert float(lax.dot(x, fnp.ones(2), precision=lax.DotAlgorithmPreset.F32_F32_F32)) > 1.0
    f16_sum = lax.DotAlgorithm(np.float16, np.float16, np.float16)
    assert float(lax.dot(x, fnp.ones(2), precision=f16_sum)) == 1.0
    f32_sum = lax.DotAlgorithm(np.float16, np.float16, np.float32)  # 2**-12 is a float16
    assert float(lax.dot(x, fnp.ones(2), precision=f32_sum)) > 1.0
    assert lax.dot(x, x, precision=jax.lax.DotAlgorithmPreset.DEFAULT).dtype == np.float32
    g = fa.grad(lambda v: lax.dot(v, v, precision="BF16_BF16_F32"))(x)
    assert_allclose(g, 2 * np.asarray(x))
    with pytest.raises(TypeError, match="needs float8 operands"):
        lax.dot(x, x, precision="ANY_F8_ANY_F8_F32")
    f8 = fnp.asarray(np.ones(4, ml_dtypes.float8_e4m3fn))
    assert float(lax.dot(f8, f8, precision="ANY_F8_ANY_F8_F32",
                         preferred_element_type=np.float32)) == 4.0
    assert_allclose(lax.exp(fnp.zeros(2), accuracy=lax.AccuracyMode.HIGHEST), [1.0, 1.0])
    assert_allclose(lax.sin(fnp.zeros(2), accuracy=lax.Tolerance(atol=1e-3)), [0.0, 0.0])
    with pytest.raises(ValueError, match="at least one of atol"):
        lax.Tolerance()


# --- XLA's random bit generators --------------------------------------------------------------

KEY = np.array([1, 2, 3, 4], np.uint32)


@pytest.mark.parametrize("algorithm,dtype", [
    (lax.RandomAlgorithm.RNG_DEFAULT, np.uint32), (lax.RandomAlgorithm.RNG_THREE_FRY, np.uint8),
    (lax.RandomAlgorithm.RNG_PHILOX, np.uint64)])
def test_rng_bit_generator_is_xlas_generator(algorithm, dtype):
    new_key, bits = lax.rng_bit_generator(KEY, (2, 3), dtype, algorithm)
    assert bits.shape == (2, 3) and bits.dtype == dtype
    assert new_key.shape == (4,) and new_key.dtype == np.uint32
    assert not np.array_equal(new_key, KEY)
    again = lax.rng_bit_generator(KEY, (2, 3), dtype, algorithm)
    np.testing.assert_array_equal(again[1], bits)  # deterministic
    if algorithm == lax.RandomAlgorithm.RNG_DEFAULT:  # eager runs the same XLA op as jit
        jitted = fa.jit(lambda k: lax.rng_bit_generator(k, (2, 3), dtype, algorithm))(KEY)
        np.testing.assert_array_equal(jitted[1], bits)
        np.testing.assert_array_equal(jitted[0], new_key)
    if fa.default_backend() == "cpu":  # the bits are the backend's: compare on the CPU
        want_key, want = jax.lax.rng_bit_generator(
            KEY, (2, 3), dtype, jax.lax.RandomAlgorithm(int(algorithm)))
        np.testing.assert_array_equal(bits, want)
        np.testing.assert_array_equal(new_key, want_key)


def test_rng_bit_generator_streams_batching_and_errors():
    _, first = lax.rng_bit_generator(KEY, (4,))
    key, _ = lax.rng_bit_generator(KEY, (4,))
    _, second = lax.rng_bit_generator(key, (4,))
    assert not np.array_equal(first, second)  # the new key continues the stream
    keys = np.stack([KEY, KEY + 1, KEY])
    new_keys, bits = fa.vmap(lambda k: lax.rng_bit_generator(k, (5,)))(keys)
    for member in range(3):  # each member draws from its own key
        want_key, want = lax.rng_bit_generator(keys[member], (5,))
        np.testing.assert_array_equal(bits[member], want)
        np.testing.assert_array_equal(new_keys[member], want_key)
    np.testing.assert_array_equal(fa.jit(fa.vmap(lambda k: lax.rng_bit_generator(k, (5,))[1]))(
        keys), bits)
    grad = fa.grad(lambda x: (x * lax.rng_bit_generator(KEY, (3,))[1].astype(np.float32)).sum())(
        fnp.ones(3))
    np.testing.assert_array_equal(grad, lax.rng_bit_generator(KEY, (3,))[1].astype(np.float32))
    with pytest.raises(TypeError, match=r"key must be a uint32 array of shape \(4,\)"):
        lax.rng_bit_generator(KEY[:2], (3,))
    with pytest.raises(TypeError, match="unsupported dtype int32"):
        lax.rng_bit_generator(KEY, (3,), np.int32)


def test_rng_uniform():
    x = lax.rng_uniform(2.0, 3.0, (1000,))
    assert x.shape == (1000,) and x.dtype == np.float32
    assert 2.0 <= float(x.min()) and float(x.max()) < 3.0 and 2.4 < float(x.mean()) < 2.6
    ints = lax.rng_uniform(np.int32(0), np.int32(5), (200,))
    assert ints.dtype == np.int32 and set(np.unique(ints)) == {0, 1, 2, 3, 4}
    f = fa.jit(lambda a: lax.rng_uniform(a, a + 1.0, (50,)))
    a, b = f(fnp.asarray(1.0)), f(fnp.asarray(1.0))
    assert not np.array_equal(a, b) and 1.0 <= float(a.min()) and float(a.max()) < 2.0
    lows = fnp.asarray([0.0, 10.0, 100.0])
    for run in (fa.vmap, lambda g: fa.jit(fa.vmap(g))):
        out = np.asarray(run(lambda lo: lax.rng_uniform(lo, lo + 1.0, (20,)))(lows))
        assert ((out >= np.asarray(lows)[:, None]) & (out < np.asarray(lows)[:, None] + 1)).all()
    with pytest.raises(NotImplementedError, match="no derivative"):
        fa.grad(lambda lo: lax.rng_uniform(lo, 1.0, (2,)).sum())(0.0)
    with pytest.raises(ValueError, match="a and b must be scalars"):
        lax.rng_uniform(fnp.zeros(2), fnp.ones(2), (3,))


# --- scatters ---------------------------------------------------------------------------------

DN = lax.ScatterDimensionNumbers((1,), (0,), (0,))
JDN = jax.lax.ScatterDimensionNumbers((1,), (0,), (0,))
INDICES = np.array([[0], [2], [0], [7]])  # a repeat and one out of bounds (dropped)


def test_scatter_sub_matches_jax():
    x, updates = _normal(5, 3), _normal(4, 3)
    want = jax.lax.scatter_sub(x, INDICES, updates, JDN)
    assert_allclose(lax.scatter_sub(x, INDICES, updates, DN), want)
    assert_allclose(fa.jit(lambda a, u: lax.scatter_sub(a, INDICES, u, DN))(x, updates), want)
    ints = np.arange(5, dtype=np.uint8)
    dn0, jdn0 = (m.ScatterDimensionNumbers((), (0,), (0,)) for m in (lax, jax.lax))
    u8 = np.array([3, 4, 200, 1], np.uint8)
    np.testing.assert_array_equal(lax.scatter_sub(ints, INDICES, u8, dn0),
                                  jax.lax.scatter_sub(ints, INDICES, u8, jdn0))
    # d/dx sum(out**2) = 2 out; d/du = -2 out at each update's row (0 for the dropped one)
    grads = fa.grad(lambda a, u: (lax.scatter_sub(a, INDICES, u, DN) ** 2).sum(),
                    argnums=(0, 1))(x, updates)
    out = 2 * np.asarray(want)
    assert_allclose(grads[0], out)
    assert_allclose(grads[1], np.concatenate([-out[INDICES[:3, 0]], np.zeros((1, 3), out.dtype)]))
    batch = np.stack([updates, 2 * updates])
    assert_allclose(fa.vmap(lambda u: lax.scatter_sub(x, INDICES, u, DN))(batch),
                    jax.vmap(lambda u: jax.lax.scatter_sub(x, INDICES, u, JDN))(batch))
    with pytest.raises(TypeError, match="does not accept bool"):
        lax.scatter_sub(fnp.zeros(2, bool), INDICES, fnp.ones((4, 3), bool), DN)


def test_scatter_apply_matches_jax():
    x = _normal(5, 3)
    double = lambda v: v * 2 + 1  # noqa: E731
    want = jax.lax.scatter_apply(x, INDICES, double, JDN, update_shape=(4, 3))
    assert_allclose(lax.scatter_apply(x, INDICES, double, DN, update_shape=(4, 3)), want)
    assert_allclose(fa.jit(lambda a: lax.scatter_apply(a, INDICES, double, DN,
                                                       update_shape=(4, 3)))(x), want)
    batch = np.stack([x, x + 1])
    assert_allclose(fa.vmap(lambda a: lax.scatter_apply(a, INDICES, double, DN,
                                                        update_shape=(4, 3)))(batch),
                    np.stack([jax.lax.scatter_apply(a, INDICES, double, JDN, update_shape=(4, 3))
                              for a in batch]))
    # unique indices: one application, and a derivative (cos where hit, 1 elsewhere)
    unique = np.array([[0], [2]])
    grad = fa.grad(lambda a: lax.scatter_apply(a, unique, fnp.sin, DN, update_shape=(2, 3),
                                               unique_indices=True).sum())(x)
    want_grad = np.ones_like(x)
    want_grad[[0, 2]] = np.cos(x[[0, 2]])
    assert_allclose(grad, want_grad)
    with pytest.raises(TypeError, match="func must map a float32 scalar to a float32"):
        lax.scatter_apply(x, INDICES, lambda v: v > 0, DN, update_shape=(4, 3))


# --- convolutions and products ----------------------------------------------------------------

@pytest.mark.parametrize("numbers,filter_shape,padding,strides", [
    (None, (3, 2), "VALID", (1, 1)),
    (("NHWC", "HWIO", "NHWC"), (2, 3), ((1, 0), (2, 1)), (2, 1)),
])
def test_conv_general_dilated_local_matches_jax(numbers, filter_shape, padding, strides):
    lhs = _normal(2, 2, 5, 4)
    if numbers and numbers[0] == "NHWC":
        lhs = lhs.transpose(0, 2, 3, 1)
    specs = jax.lax.conv_dimension_numbers(lhs.shape, (1, 1) + filter_shape, numbers)
    patches = jax.lax.conv_general_dilated_patches(lhs, filter_shape, strides, padding,
                                                   dimension_numbers=numbers)
    shape = [3] * 4
    shape[specs.rhs_spec[1]] = patches.shape[specs.out_spec[1]]
    for r, o in zip(specs.rhs_spec[2:], specs.out_spec[2:]):
        shape[r] = patches.shape[o]
    rhs = _normal(*shape)

    def loss(L):
        return lambda a, b: (L.conv_general_dilated_local(
            a, b, strides, padding, filter_shape, dimension_numbers=numbers) ** 2).sum()

    want = jax.lax.conv_general_dilated_local(lhs, rhs, strides, padding, filter_shape,
                                              dimension_numbers=numbers)
    got = lax.conv_general_dilated_local(lhs, rhs, strides, padding, filter_shape,
                                         dimension_numbers=numbers)
    assert_allclose(got, want)
    check_grads(loss(lax), (fnp.asarray(lhs), fnp.asarray(rhs)), order=1, modes=("rev",))
    if numbers is None:
        jitted = fa.jit(fa.vmap(lambda a: lax.conv_general_dilated_local(
            a, rhs, strides, padding, filter_shape)))(lhs[:, None])
        assert_allclose(jitted[:, 0], want)
    with pytest.raises(ValueError, match="does not fit"):
        lax.conv_general_dilated_local(lhs, rhs[:1, :1], strides, padding, filter_shape,
                                       dimension_numbers=numbers)


def test_scaled_dot_matches_jax():
    a, b = _normal(3, 8), _normal(8, 2)
    sa = (2.0 ** RNG.integers(-2, 3, size=(3, 2))).astype(np.float32)
    sb = (2.0 ** RNG.integers(-2, 3, size=(2, 2))).astype(np.float32)
    want = jax.lax.scaled_dot(a, b, lhs_scale=sa, rhs_scale=sb)  # bfloat16 by default
    got = lax.scaled_dot(a, b, lhs_scale=sa, rhs_scale=sb)
    assert got.dtype == want.dtype
    assert_allclose(got, want)
    f8, e8 = ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e8m0fnu
    want = jax.lax.scaled_dot(a.astype(f8), b.astype(f8), lhs_scale=sa.astype(e8),
                              rhs_scale=sb.astype(e8), preferred_element_type=jnp.float32)
    assert_allclose(fa.jit(lambda *z: lax.scaled_dot(
        z[0], z[1], lhs_scale=z[2], rhs_scale=z[3], preferred_element_type=np.float32))(
        a.astype(f8), b.astype(f8), sa.astype(e8), sb.astype(e8)), want)
    with pytest.raises(TypeError, match="must be a multiple"):
        lax.scaled_dot(a, b, lhs_scale=fnp.ones((3, 8)))


# --- small utilities --------------------------------------------------------------------------

def test_small_utilities():
    with jax.enable_x64(False):  # a list of Python ints is int32, as in funcarray
        want = jax.lax.broadcast_like(jnp.asarray([1, 2, 3]), np.zeros((2, 3)))
    assert_allclose(lax.broadcast_like(fnp.asarray([1, 2, 3]), np.zeros((2, 3))), want)
    assert lax.broadcast_shapes((3, 1), (1, 4), (5, 1, 1)) == (5, 3, 4)
    with pytest.raises(ValueError):
        lax.broadcast_shapes((2,), (3,))
    with jax.enable_x64(False):  # (jax's 32-bit defaults for Python scalars)
        for value in (1, 1.0, 1j, True, np.arange(3, dtype=np.int8), "float16", np.uint16,
                      jnp.ones(2, jnp.bfloat16), fnp.ones(2, fnp.bfloat16)):
            assert lax.dtype(value) == jax.lax.dtype(value), value
    assert lax.dtype(np.float64(1.0)) == np.float64  # funcarray keeps explicit 64-bit types
    with pytest.raises(TypeError, match="cannot determine the dtype"):
        lax.dtype([1, 2])
    shape = lax.shape_as_value((2, 3))
    np.testing.assert_array_equal(shape, [2, 3])
    assert shape.dtype == np.int32 and lax.shape_as_value(()).shape == (0,)
    assert lax.stage(2.0).weak_type
    tree = {"a": fnp.ones(2), "b": [np.zeros(3)]}
    out = fa.jit(lambda t: lax.with_sharding_constraint(t, None))(tree)
    assert_allclose(out["b"][0], np.zeros(3))
    assert lax.dce_sink(tree) is None


def test_composite_inlines_its_decomposition():
    tangent = lax.composite(lambda v: fnp.sin(v) / fnp.cos(v), name="my.tangent")
    x = fnp.asarray([0.1, 0.5])
    assert_allclose(tangent(x), np.tan(np.asarray(x)))
    assert_allclose(fa.jit(fa.grad(lambda v: tangent(v).sum()))(x), 1 / np.cos(x) ** 2)
    scale = lax.composite(lambda v, *, by: v * by, name="my.scale", version=1)
    assert_allclose(fa.vmap(lambda v: scale(v, by=3.0))(x), 3 * np.asarray(x))
    with pytest.raises(TypeError, match="attributes are static"):
        fa.jit(lambda v: scale(v, by=v))(x)


def test_tokens_pass_through_transforms():
    token = lax.create_token()
    Token = type(token)  # noqa: N806
    out = fa.jit(lambda t, v: (lax.after_all(t, lax.create_token()), v * 2))(token, fnp.ones(2))
    assert isinstance(out[0], Token)
    assert_allclose(out[1], [2.0, 2.0])
    assert isinstance(lax.optimization_barrier((token, fnp.ones(1)))[0], Token)
    assert isinstance(fa.vmap(lambda v: (lax.create_token(), v))(fnp.ones(2))[0], Token)
    with pytest.raises(TypeError, match="not a token"):
        lax.after_all(token, fnp.ones(1))
