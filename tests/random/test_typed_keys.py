"""Typed key arrays (``random.key``, dtype ``key<fry>``) against jax's: printing, dtypes,
the streams they give, split/fold_in kinds, key_data/wrap_key_data, the transforms, and the
refusal of arithmetic."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import jax.random as jr
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import funcarray as fa
import funcarray.numpy as fnp
import funcarray.random as fr

SEEDS = st.integers(0, 2**32 - 1)


def _bits(x):
    """The raw data of a typed key (funcarray's or jax's), as NumPy."""
    if isinstance(x, jax.Array):
        return np.asarray(jr.key_data(x))
    return np.asarray(fr.key_data(x))


def _same_keys(got, want):
    assert got.shape == want.shape, (got.shape, want.shape)
    assert str(got.dtype) == str(want.dtype) == "key<fry>"
    np.testing.assert_array_equal(_bits(got), _bits(want))


def _jax32(f, *args):
    """``f(*args)`` in jax's default (32-bit) mode, the mode ported programs run in."""
    with jax.enable_x64(False):
        return f(*args)


# --------------------------------------------------------------------------------------------
# What a key array is
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("make", [
    lambda r: r.key(0), lambda r: r.key(42), lambda r: r.split(r.key(0), 3),
    lambda r: r.split(r.key(7), (2, 2)), lambda r: r.split(r.key(0), 3)[1],
    lambda r: r.split(r.key(0), 0)])
def test_keys_print_and_describe_themselves_as_jax(make):
    got, want = make(fr), _jax32(make, jr)
    assert repr(got) == repr(want) and str(got) == str(want)
    assert (got.shape, got.ndim, got.size, got.itemsize) == (
        want.shape, want.ndim, want.size, want.itemsize)
    assert str(got.dtype) == str(want.dtype) and got.dtype == fr.key(1).dtype
    for b_fa, b_jax in [(fa.dtypes.prng_key, jax.dtypes.prng_key),
                        (fa.dtypes.extended, jax.dtypes.extended), (np.generic, np.generic),
                        (fnp.integer, jnp.integer), (fnp.unsignedinteger, jnp.unsignedinteger),
                        (fnp.number, jnp.number), (fnp.uint32, jnp.uint32)]:
        assert fnp.issubdtype(got.dtype, b_fa) == jnp.issubdtype(want.dtype, b_jax), b_fa
    assert not fnp.issubdtype(fnp.uint32, fa.dtypes.prng_key)


@settings(max_examples=15)
@given(SEEDS, st.sampled_from([2, 3, (2, 3), (), (0,)]), st.integers(0, 2**32 - 1))
def test_key_split_and_fold_in_match_jax(seed, num, data):
    _same_keys(fr.key(seed), _jax32(jr.key, seed))
    _same_keys(fr.split(fr.key(seed), num), _jax32(jr.split, jr.key(seed), num))
    _same_keys(fr.fold_in(fr.key(seed), data), _jax32(jr.fold_in, jr.key(seed), data))
    # The raw kind keeps its layout: uint32 data with a trailing axis of 2.
    raw = fr.split(fr.PRNGKey(seed), num)
    assert raw.dtype == fnp.uint32
    np.testing.assert_array_equal(np.asarray(raw), _jax32(jr.split, jr.PRNGKey(seed), num))
    np.testing.assert_array_equal(np.asarray(raw), _bits(fr.split(fr.key(seed), num)))


@settings(max_examples=5)
@given(SEEDS)
def test_samplers_give_the_same_streams_through_typed_and_raw_keys_as_jax(seed):
    k, raw, jk = fr.key(seed), fr.PRNGKey(seed), jr.key(seed)
    exact = [
        (lambda r, k: r.bits(k, (7,)), None),
        (lambda r, k: r.uniform(k, (5,), minval=-1.0, maxval=2.0), None),
        (lambda r, k: r.randint(k, (6,), 0, 100), None),
        (lambda r, k: r.bernoulli(k, 0.3, (8,)), None),
        (lambda r, k: r.permutation(k, 9), None),
        (lambda r, k: r.normal(k, (6,)), 2e-6),
        (lambda r, k: r.gamma(k, 1.5, (4,)), 2e-5),
        (lambda r, k: r.categorical(k, np.log(np.float32([0.2, 0.5, 0.3])), shape=(5,)),
         None),
    ]
    for f, rtol in exact:
        got, via_raw = np.asarray(f(fr, k)), np.asarray(f(fr, raw))
        want = np.asarray(_jax32(f, jr, jk))
        np.testing.assert_array_equal(got, via_raw)
        assert got.dtype == want.dtype
        if rtol is None:
            np.testing.assert_array_equal(got, want)
        else:
            np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol)


def test_key_data_wrap_key_data_and_key_impl():
    keys = fr.split(fr.key(3), (2, 3))
    data = fr.key_data(keys)
    assert data.shape == (2, 3, 2) and data.dtype == fnp.uint32
    _same_keys(fr.wrap_key_data(data), _jax32(jr.wrap_key_data, jnp.asarray(data)))
    _same_keys(fr.wrap_key_data(data, impl="threefry2x32"), keys)
    assert fr.key_impl(keys) == fr.key_impl(fr.PRNGKey(0)) == jr.key_impl(jr.key(0))
    np.testing.assert_array_equal(np.asarray(fr.key_data(fr.PRNGKey(5))), [0, 5])
    # jax raises TypeError for key data of the wrong shape or dtype, ValueError for an
    # unknown implementation.
    for bad in (fnp.zeros((3,), fnp.uint32), fnp.zeros((3, 2), fnp.int32)):
        with pytest.raises(TypeError):
            jr.wrap_key_data(jnp.asarray(bad))
        with pytest.raises(TypeError, match="wrap_key_data"):
            fr.wrap_key_data(bad)
    with pytest.raises(ValueError, match="unknown PRNG implementation 'rbg2'"):
        fr.key(0, impl="rbg2")
    with pytest.raises(ValueError):
        jr.key(0, impl="rbg2")


def test_indexing_reshaping_and_equality_follow_jax():
    ops = [lambda ks: ks[0], lambda ks: ks[-1], lambda ks: ks[1:], lambda ks: ks[None],
           lambda ks: ks[..., 1], lambda ks: ks[np.array([2, 0])],
           lambda ks: ks[np.array([[True, False, True], [False, True, True]])],
           lambda ks: ks.reshape(3, 2), lambda ks: ks.reshape((-1,)), lambda ks: ks.ravel(),
           lambda ks: ks.T, lambda ks: ks.transpose(1, 0), lambda ks: ks.swapaxes(0, -1),
           lambda ks: ks[:1].squeeze(0), lambda ks: ks[:, :1].squeeze(),
           lambda ks: list(ks)[1]]
    keys, jkeys = fr.split(fr.key(1), (2, 3)), _jax32(jr.split, jr.key(1), (2, 3))
    for op in ops:
        _same_keys(op(keys), op(jkeys))
    assert len(keys) == len(jkeys) == 2
    np.testing.assert_array_equal(np.asarray(keys == keys[0]), np.asarray(jkeys == jkeys[0]))
    np.testing.assert_array_equal(np.asarray(keys != keys[:, :1]),
                                  np.asarray(jkeys != jkeys[:, :1]))


@pytest.mark.parametrize("op", [
    lambda m, ks: m.concatenate([ks, ks[:1]]), lambda m, ks: m.concatenate([ks, ks], axis=-1),
    lambda m, ks: m.concatenate([ks, ks], axis=None), lambda m, ks: m.stack([ks, ks], axis=-1),
    lambda m, ks: m.stack([ks[0, 0], ks[1, 2]]),
    lambda m, ks: m.where(m.asarray([True, False, True]), ks, ks[1, 1]),
    lambda m, ks: m.broadcast_to(ks[0, 0], (2, 3)), lambda m, ks: m.expand_dims(ks, (0, -1)),
    lambda m, ks: m.asarray(ks), lambda m, ks: m.array(ks[0])])
def test_numpy_functions_on_key_arrays_follow_jax(op):
    keys, jkeys = fr.split(fr.key(6), (2, 3)), _jax32(jr.split, jr.key(6), (2, 3))
    _same_keys(op(fnp, keys), _jax32(op, jnp, jkeys))
    _same_keys(fa.jit(lambda ks: op(fnp, ks))(keys), _jax32(op, jnp, jkeys))


def test_numpy_functions_refuse_keys_mixed_with_numbers():
    for op in (lambda m, r: m.concatenate([r.split(r.key(0)), m.zeros((2,), m.uint32)]),
               lambda m, r: m.where(True, r.key(0), 1)):
        with pytest.raises(ValueError):
            _jax32(op, jnp, jr)
        with pytest.raises(ValueError, match="extended dtype"):
            op(fnp, fr)


# --------------------------------------------------------------------------------------------
# Keys under the transforms
# --------------------------------------------------------------------------------------------

def test_keys_as_jit_arguments_and_results():
    def f(r, k):
        k, sub = r.split(k)
        return k, r.normal(sub, (3,))

    k = fr.key(5)
    got_key, got = fa.jit(lambda k: f(fr, k))(k)
    want_key, want = _jax32(jax.jit(lambda k: f(jr, k)), jr.key(5))
    _same_keys(got_key, want_key)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=2e-6)
    _same_keys(fa.jit(lambda: fr.key(9))(), _jax32(jr.key, 9))
    np.testing.assert_array_equal(np.asarray(fa.jit(fr.key_data)(k)), _bits(k))


def test_vmap_over_typed_keys():
    keys, jkeys = fr.split(fr.key(0), 8), _jax32(jr.split, jr.key(0), 8)
    np.testing.assert_allclose(np.asarray(fa.vmap(fr.normal)(keys)),
                               np.asarray(_jax32(jax.vmap(jr.normal), jkeys)), rtol=2e-6)
    _same_keys(fa.vmap(lambda k: fr.split(k, 3))(keys),
               _jax32(jax.vmap(lambda k: jr.split(k, 3)), jkeys))
    _same_keys(fa.vmap(lambda k: fr.split(k, 3), out_axes=1)(keys),
               _jax32(jax.vmap(lambda k: jr.split(k, 3), out_axes=1), jkeys))
    _same_keys(fa.vmap(fr.key)(fnp.arange(4)), _jax32(jax.vmap(jr.key), jnp.arange(4)))
    # Mapped over axis 1 of a (2, 4) key array, each member is a (2,) key array.
    batch = fa.vmap(lambda k: fr.uniform(k[1], (2,)), in_axes=1)(keys.reshape(2, 4))
    want = _jax32(jax.vmap(lambda k: jr.uniform(k[1], (2,)), in_axes=1), jkeys.reshape(2, 4))
    np.testing.assert_array_equal(np.asarray(batch), np.asarray(want))
    # Negative axes count from the end of the key shape, in and out, chunked or not.
    for chunk_size in (None, 2):
        got_keys, got_x = fa.vmap(lambda k, x: (fr.split(k[1], 3), x), in_axes=(-1, -1),
                                  out_axes=-1, chunk_size=chunk_size)(
            keys.reshape(2, 4), fnp.ones((5, 4)))
        want_keys, want_x = _jax32(jax.vmap(lambda k, x: (jr.split(k[1], 3), x),
                                            in_axes=(-1, -1), out_axes=-1),
                                   jkeys.reshape(2, 4), jnp.ones((5, 4)))
        _same_keys(got_keys, want_keys)
        assert got_x.shape == want_x.shape
    np.testing.assert_allclose(np.asarray(fa.vmap(fr.normal, in_axes=-1)(keys)),
                               np.asarray(_jax32(jax.vmap(jr.normal, in_axes=-1), jkeys)),
                               rtol=2e-6)


def _scan_program(r, lax, k):
    def body(carry, x):
        k, total = carry
        k, sub = r.split(k)
        return (k, total + x * r.normal(sub)), r.fold_in(sub, 1)

    return lax.scan(body, (k, 0.0), np.arange(4, dtype=np.float32))


def test_keys_in_loop_carries_and_branches():
    (k, total), ys = _scan_program(fr, fa.lax, fr.key(2))
    (jk, jtotal), jys = _jax32(_scan_program, jr, jax.lax, jr.key(2))
    _same_keys(k, jk)
    _same_keys(ys, jys)
    np.testing.assert_allclose(float(total), float(jtotal), rtol=1e-5)
    fold = lambda r, lax: lax.fori_loop(0, 3, lambda i, k: r.fold_in(k, i), r.key(4))  # noqa: E731
    _same_keys(fold(fr, fa.lax), _jax32(fold, jr, jax.lax))
    branch = lambda r, lax, p: lax.cond(p, lambda k: r.split(k)[1], lambda k: k, r.key(4))  # noqa: E731
    for p in (True, False):
        _same_keys(branch(fr, fa.lax, p), _jax32(branch, jr, jax.lax, p))


def test_grad_with_keys_as_arguments():
    def loss(r, x, k):
        return x * r.normal(k)

    got = fa.grad(lambda x, k: loss(fr, x, k))(1.5, fr.key(3))
    want = _jax32(jax.grad(lambda x, k: loss(jr, x, k)), 1.5, jr.key(3))
    np.testing.assert_allclose(float(got), float(want), rtol=1e-6)
    # Differentiating with respect to a key is a TypeError in both; with allow_int its
    # gradient is float0 zeros of the key's shape.
    with pytest.raises(TypeError):
        jax.grad(lambda k: loss(jr, 1.0, k))(jr.key(3))
    with pytest.raises(TypeError, match="grad"):
        fa.grad(lambda k: loss(fr, 1.0, k))(fr.key(3))
    g = fa.grad(lambda x, k: loss(fr, x, k[0]), argnums=1, allow_int=True)(
        1.0, fr.split(fr.key(3), 2))
    jg = _jax32(jax.grad(lambda x, k: loss(jr, x, k[0]), argnums=1, allow_int=True),
                1.0, jr.split(jr.key(3), 2))
    assert (g.shape, g.dtype) == (jg.shape, jg.dtype) == ((2,), fa.dtypes.float0)


def test_keys_are_pytree_nodes_over_their_data():
    # A deliberate difference from jax (docs/decisions.md, "Random numbers"): the leaf is
    # the key's uint32 data, which is how every transform carries a key.
    state = {"key": fr.key(1), "w": fnp.ones(2)}
    leaves, tree = fa.tree.flatten(state)
    np.testing.assert_array_equal(np.asarray(leaves[0]), [0, 1])
    _same_keys(fa.tree.unflatten(tree, leaves)["key"], _jax32(jr.key, 1))
    _same_keys(fa.tree.map(lambda x: x, state)["key"], _jax32(jr.key, 1))
    on_host = fa.device_get(state)["key"]
    _same_keys(on_host, _jax32(jax.device_get, jr.key(1)))
    assert isinstance(fr.key_data(on_host), fa.Array)
    np.testing.assert_array_equal(np.asarray(fr.uniform(on_host, (3,))),
                                  np.asarray(fr.uniform(fr.key(1), (3,))))


# --------------------------------------------------------------------------------------------
# No arithmetic on keys
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("name", "op"), [
    ("add", lambda k, m: k + 1), ("add", lambda k, m: 1 + k),
    ("multiply", lambda k, m: k * 2), ("subtract", lambda k, m: k - k),
    ("negative", lambda k, m: -k), ("less", lambda k, m: k < k),
    ("sin", lambda k, m: m.sin(k)), ("sum", lambda k, m: m.sum(k)),
    ("add", lambda k, m: m.ones(2) + k), ("astype", lambda k, m: k.astype(m.uint32)),
    ("NumPy", lambda k, m: np.asarray(k))])
def test_arithmetic_on_keys_is_a_type_error_naming_key_data(name, op):
    with pytest.raises((TypeError, NotImplementedError)):
        _jax32(op, jr.key(0), jnp)
    with pytest.raises(TypeError, match=rf"(?s)(?=.*{name})(?=.*key<fry>).*random\.key_data"):
        op(fr.key(0), fnp)


def test_samplers_refuse_a_batch_of_typed_keys_as_jax():
    for f in (lambda r, k: r.normal(k), lambda r, k: r.split(k), lambda r, k: r.fold_in(k, 1)):
        with pytest.raises(ValueError, match="vmap"):
            f(jr, jr.split(jr.key(0), 3))
        with pytest.raises(ValueError, match=r"key array of shape \(3,\).*vmap"):
            f(fr, fr.split(fr.key(0), 3))
