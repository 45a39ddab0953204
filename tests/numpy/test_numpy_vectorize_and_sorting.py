"""funcarray.numpy's assorted functions (vectorize, fromfunction, from*, geomspace, logspace,
diagflat, lexsort, partition, argpartition, sort_complex, packbits, unpackbits, vecmat,
matvec, the predicates, print options, einsum_path, pow, from_dlpack, load/save/savez)
against jax.numpy with its 32-bit defaults (or NumPy where they agree): values and dtypes
eagerly and under fa.jit, gradients against jax.grad, vmap against a Python loop, errors."""

import io

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import funcarray as fa
import funcarray.numpy as fnp


def _jax32(f, *args, **kwargs):
    """jax's result with its 32-bit defaults, as one jax.jit call (one compile)."""
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
        if w.dtype.kind in "fc":
            np.testing.assert_allclose(g, w, rtol=rtol, atol=1e-6)
        else:
            np.testing.assert_array_equal(g, w)


_RNG = np.random.default_rng(0)
X = _RNG.normal(size=(3, 5)).astype(np.float32)
A = _RNG.normal(size=(4, 2, 3)).astype(np.float32)


# --------------------------------------------------------------------------------------------
# vectorize
# --------------------------------------------------------------------------------------------

def _matvec(np_):
    return lambda m, v: np_.matmul(m, v)


@settings(max_examples=15, deadline=None)
@given(st.lists(st.sampled_from([1, 2, 3]), min_size=0, max_size=2), st.data())
def test_vectorize_signature_broadcasts_as_numpy(loop_a, data):
    # Loop dimensions of size 1 and of different rank broadcast; compare with NumPy's
    # vectorize (same semantics, no compile per drawn shape).
    keep = data.draw(st.integers(0, len(loop_a)), label="rank of the second loop shape")
    loop_b = [data.draw(st.sampled_from([1, n])) for n in loop_a[len(loop_a) - keep:]]
    if data.draw(st.booleans(), label="swap"):
        loop_a, loop_b = loop_b, loop_a
    m = _RNG.normal(size=(*loop_a, 2, 3)).astype(np.float32)
    v = _RNG.normal(size=(*loop_b, 3)).astype(np.float32)
    want = np.vectorize(_matvec(np), signature="(n,m),(m)->(n)")(m, v)
    _same(fnp.vectorize(_matvec(fnp), signature="(n,m),(m)->(n)")(m, v), want, rtol=1e-5)


@settings(max_examples=20, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([(), (1,), (4,), (1, 3), (2, 3), (2, 1)]),
                          st.sampled_from([(), (1,), (3,), (2, 1), (1, 3)])),
                min_size=2, max_size=4))
def test_one_vectorized_function_over_changing_shapes_as_numpy(shape_pairs):
    # One vectorized function of scalars called on a sequence of broadcasting shapes (each
    # call maps along its own chain of axes), eagerly and under jit, as NumPy's vectorize.
    f = fnp.vectorize(lambda a, b: a * b + a)
    reference = np.vectorize(lambda a, b: a * b + a, otypes=[np.float32])
    for shape_a, shape_b in shape_pairs:
        try:
            np.broadcast_shapes(shape_a, shape_b)
        except ValueError:
            continue
        a = _RNG.normal(size=shape_a).astype(np.float32)
        b = _RNG.normal(size=shape_b).astype(np.float32)
        want = reference(a, b)
        _same(f(a, b), want, rtol=1e-6)
        _same(fa.jit(f)(a, b), want, rtol=1e-6)


def test_vectorize_scalar_excluded_none_and_tuple_outputs_as_jax():
    cases = [
        (lambda ns: ns.vectorize(lambda a, b: a * b + 1), (X, X[0])),
        (lambda ns: ns.vectorize(lambda a, p: a ** p, excluded={1}), (X, 2)),
        (lambda ns: ns.vectorize(lambda a, b: a if b is None else b), (X, None)),
        (lambda ns: ns.vectorize(lambda a, b: a * b), (X[:1, :1], np.ones((1, 1), np.float32))),
        (lambda ns: ns.vectorize(lambda a: (a.sum(), a * 2), signature="(n)->(),(n)"), (X,)),
    ]
    for make, args in cases:
        want = _jax32(lambda make=make, args=args: make(jnp)(*args))
        _same(make(fnp)(*args), want, rtol=1e-5)


def test_vectorize_keyword_excluded():
    f = fnp.vectorize(lambda a, *, k: a * k, excluded={"k"})
    _same(f(X, k=3.0), X * np.float32(3.0))


def test_vectorize_jit_grad_vmap():
    norm = fnp.vectorize(lambda v: fnp.sqrt(v @ v), signature="(n)->()")
    want = np.linalg.norm(A, axis=-1)
    _same(fa.jit(norm)(A), want, rtol=1e-5)
    _same(fa.vmap(norm)(A), want, rtol=1e-5)
    _same(fa.vmap(norm, in_axes=1)(A), want.T, rtol=1e-5)
    got = fa.grad(lambda a: fnp.sum(norm(a)))(A)
    _same(got, A / np.linalg.norm(A, axis=-1, keepdims=True), rtol=1e-5)


def test_vectorize_errors():
    f = fnp.vectorize(lambda m, v: m @ v, signature="(n,m),(m)->(n)")
    with pytest.raises(ValueError, match="vectorize: core dimension 'm' has sizes 3 and 2"):
        f(A, np.ones(2))
    with pytest.raises(ValueError, match="vectorize: input of shape"):
        f(np.ones(3), np.ones(3))
    with pytest.raises(TypeError, match="vectorize: expected 2 array arguments, got 1"):
        f(A)
    with pytest.raises(ValueError, match="vectorize: not a valid gufunc signature"):
        fnp.vectorize(lambda a: a, signature="(n)->")
    with pytest.raises(ValueError, match="vectorize: output of shape"):
        fnp.vectorize(lambda v: v, signature="(n)->()")(np.ones(3))
    with pytest.raises(TypeError, match="vectorize: the signature has 2 outputs"):
        fnp.vectorize(lambda v: v, signature="(n)->(n),(n)")(np.ones(3))
    with pytest.raises(TypeError, match="vectorize: excluded may hold only"):
        fnp.vectorize(lambda a: a, excluded={1.5})
    with pytest.raises(ValueError, match="vectorize: excluded=.* has a negative position"):
        fnp.vectorize(lambda a: a, excluded={-1})
    with pytest.raises(ValueError, match="vectorize: the loop dimensions"):
        fnp.vectorize(lambda a, b: a + b)(np.ones(2), np.ones(3))


# --------------------------------------------------------------------------------------------
# Constructors
# --------------------------------------------------------------------------------------------

def test_fromfunction_matches_jax_and_jit():
    f = lambda i, j: i * 2 + j  # noqa: E731
    for dtype in (float, int, np.float32):
        _same(fnp.fromfunction(f, (2, 3), dtype=dtype),
              _jax32(jnp.fromfunction, f, (2, 3), dtype=dtype))
    _same(fa.jit(lambda: fnp.fromfunction(lambda i: i ** 2, (4,), dtype=int))(),
          np.arange(4, dtype=np.int32) ** 2)


def test_frombuffer_fromstring_fromiter():
    raw = np.array([1.5, -2.0]).tobytes()
    with jax.enable_x64(False):
        _same(fnp.frombuffer(raw), jnp.frombuffer(raw))
        _same(fnp.fromstring("1 2 3", sep=" "), jnp.fromstring("1 2 3", sep=" "))
    _same(fnp.frombuffer(b"\x01\x02\x03", dtype=np.uint8, count=2, offset=1),
          np.array([2, 3], np.uint8))
    _same(fnp.fromstring("1,2", dtype=int, sep=","), np.array([1, 2], np.int32))
    with pytest.raises(NotImplementedError, match="fromiter is not provided"):
        fnp.fromiter(range(3), dtype=int)
    with pytest.raises(ValueError, match="fromstring: sep must be a non-empty separator"):
        fnp.fromstring("1 2", sep="")


@pytest.mark.parametrize("args", [(1, 16, 5), (-1, -16, 4, False), (2.0, 5.0, 1),
                                  (np.array([1.0, 30.0], np.float32), 2.0, 4)])
def test_geomspace_logspace_match_numpy(args):
    _same(fnp.geomspace(*args), np.geomspace(*args).astype(np.float32), rtol=2e-6)
    _same(fnp.logspace(*args[:2], *args[2:]),
          np.logspace(*args).astype(np.float32), rtol=1e-5)


def test_geomspace_logspace_options_jit_and_grad():
    start, stop = np.array([1.0, 1000.0], np.float32), np.array([27.0, 1.0], np.float32)
    _same(fnp.geomspace(start, stop, 4, axis=1), np.geomspace(start, stop, 4, axis=1)
          .astype(np.float32), rtol=2e-6)
    _same(fnp.logspace(0, 3, 4, base=2.0, dtype=int), np.array([1, 2, 4, 8], np.int32))
    _same(fnp.geomspace(1, 1000, 4, dtype=np.float64), np.geomspace(1, 1000, 4))
    _same(fa.jit(lambda a, b: fnp.logspace(a, b, 3))(start / 100, stop),
          np.logspace(start / 100, stop, 3).astype(np.float32), rtol=1e-5)

    def loss(np_):
        return lambda a, b: np_.sum(np_.geomspace(a, b, 4) ** 2 + np_.logspace(a / 4, b / 4, 4))
    got = fa.grad(loss(fnp), argnums=(0, 1))(2.0, 5.0)
    want = _jax32(jax.grad(loss(jnp), argnums=(0, 1)), 2.0, 5.0)
    _same(got, want, rtol=1e-5)


def test_diagflat_matches_numpy_and_grad():
    m = np.arange(4, dtype=np.int32).reshape(2, 2)
    for k in (0, 2, -1):
        _same(fnp.diagflat(m, k), np.diagflat(m, k))
    g = fa.grad(lambda v: fnp.sum(fnp.diagflat(v, 1) * fnp.arange(9.0).reshape(3, 3)))(
        np.ones(2, np.float32))
    _same(g, np.array([1.0, 5.0], np.float32))


# --------------------------------------------------------------------------------------------
# Sorting
# --------------------------------------------------------------------------------------------

def test_lexsort_matches_numpy():
    keys = _RNG.integers(0, 3, size=(3, 4, 5)).astype(np.int32)
    for axis in (-1, 0, 1):
        _same(fnp.lexsort(keys, axis=axis), np.lexsort(keys, axis=axis).astype(np.int32))
    _same(fnp.lexsort([X[0], keys[0, 0]]), np.lexsort([X[0], keys[0, 0]]).astype(np.int32))
    _same(fa.jit(lambda a, b: fnp.lexsort((a, b)))(keys[0], keys[1]),
          np.lexsort((keys[0], keys[1])).astype(np.int32))
    _same(fnp.lexsort([np.int32(3)]), np.int32(0))
    with pytest.raises(ValueError, match="lexsort: all keys need the same shape"):
        fnp.lexsort([np.zeros(2), np.zeros(3)])
    with pytest.raises(TypeError, match="lexsort: keys must hold at least one array"):
        fnp.lexsort([])


_PARTITION_VALUES = {
    # (no signed zeros: top_k orders -0.0 below 0.0, NumPy's sort calls them equal)
    "float32": np.array([3.0, -1.0, 3.0, 0.5, 1.5, 0.0, 2.0, -7.0], np.float32),
    "int32": np.array([3, 1, 3, 0, -5, 2, 2, 9], np.int32),
    "uint8": np.array([3, 0, 3, 255, 0, 2, 2, 9], np.uint8),
}


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(sorted(_PARTITION_VALUES)), st.integers(1, 3), st.data())
def test_partition_argpartition_match_jax_order(dtype, rows, data):
    # jax.numpy's order is top_k's: bottom part ascending, top part descending (values) /
    # in index order (argpartition); rebuilt here from a stable NumPy sort.
    x = np.stack([np.roll(_PARTITION_VALUES[dtype], r) for r in range(rows)])
    axis = data.draw(st.sampled_from([-1, 0]), label="axis")
    n = x.shape[axis]
    kth = data.draw(st.integers(-n, n - 1), label="kth")
    k = kth % n
    moved = np.moveaxis(x, axis, -1)
    order = np.argsort(moved, axis=-1, kind="stable")
    bottom = order[..., :k + 1]
    rest = np.sort(order[..., k + 1:], axis=-1)
    want_idx = np.concatenate([bottom, rest], axis=-1)
    want_val = np.concatenate([np.take_along_axis(moved, bottom, -1),
                               -np.sort(-np.take_along_axis(moved, rest, -1).astype(np.float64),
                                        axis=-1).astype(moved.dtype)], axis=-1)
    _same(fnp.partition(x, kth, axis=axis), np.moveaxis(want_val, -1, axis))
    _same(fnp.argpartition(x, kth, axis=axis),
          np.moveaxis(want_idx, -1, axis).astype(np.int32))


def test_partition_matches_jax_jit_grad_vmap():
    _same(fnp.partition(X, 2), _jax32(jnp.partition, X, 2))
    _same(fa.jit(lambda v: fnp.argpartition(v, 1, axis=0))(X),
          _jax32(jnp.argpartition, X, 1, axis=0))
    _same(fa.vmap(lambda v: fnp.argpartition(v, 3))(X),
          np.stack([np.asarray(fnp.argpartition(r, 3)) for r in X]))

    def loss(np_):
        return lambda v: np_.sum(np_.partition(v, 2) * np_.arange(5.0))
    _same(fa.grad(loss(fnp))(X), _jax32(jax.grad(loss(jnp)), X))
    with pytest.raises(TypeError, match="partition: complex arrays are not supported"):
        fnp.partition(np.ones(3, np.complex64), 1)
    with pytest.raises(ValueError, match="argpartition: kth=5 is out of bounds"):
        fnp.argpartition(np.ones(3), 5)


def test_sort_complex_matches_numpy():
    c = (X[0] + 1j * X[1]).astype(np.complex64)
    c[1] = c[3].real + 1j * np.float32(-4.0)
    for v in (X[0], np.array([3, 1, 2], np.int32), c, X):
        want = np.sort_complex(v)
        want = want.astype(np.complex64) if v.dtype != np.float64 else want
        _same(fnp.sort_complex(v), want)
    _same(fnp.sort_complex(X.astype(np.float64)), np.sort_complex(X.astype(np.float64)))


# --------------------------------------------------------------------------------------------
# packbits, unpackbits
# --------------------------------------------------------------------------------------------

@settings(max_examples=20, deadline=None)
@given(st.lists(st.integers(1, 11), min_size=1, max_size=2), st.data())
def test_packbits_unpackbits_match_numpy(shape, data):
    bits = _RNG.integers(0, 3, size=tuple(shape)).astype(np.int32)
    axis = data.draw(st.sampled_from([None, *range(-len(shape), len(shape))]), label="axis")
    order = data.draw(st.sampled_from(["big", "little"]), label="bitorder")
    packed = np.packbits(bits, axis=axis, bitorder=order)
    _same(fnp.packbits(bits, axis=axis, bitorder=order), packed)
    count = data.draw(st.sampled_from([None, 0, 3, 20]), label="count")
    _same(fnp.unpackbits(packed, axis=axis, count=count, bitorder=order),
          np.unpackbits(packed, axis=axis, count=count, bitorder=order))


def test_packbits_jit_vmap_and_errors():
    x = X > 0
    _same(fa.jit(lambda v: fnp.packbits(v, axis=1))(x), np.packbits(x, axis=1))
    _same(fa.vmap(fnp.packbits)(x), np.stack([np.packbits(r) for r in x]))
    u = np.array([7, 255, 0], np.uint8)
    _same(fa.jit(lambda v: fnp.unpackbits(v, count=3))(u), np.unpackbits(u, count=3))
    with pytest.raises(TypeError, match="packbits: a must be integer or boolean"):
        fnp.packbits(X)
    with pytest.raises(TypeError, match="unpackbits: a must be uint8"):
        fnp.unpackbits(np.ones(2, np.int32))
    with pytest.raises(ValueError, match="packbits: bitorder must be 'big' or 'little'"):
        fnp.packbits(x, bitorder="middle")


# --------------------------------------------------------------------------------------------
# vecmat, matvec
# --------------------------------------------------------------------------------------------

def test_matvec_vecmat_match_numpy_and_grad():
    v3, v2 = X[0, :3], X[1, :2]
    _same(fnp.matvec(A, v3), np.einsum("...ij,...j->...i", A, v3), rtol=1e-5)
    _same(fnp.vecmat(v2, A), np.einsum("...i,...ij->...j", v2, A), rtol=1e-5)
    c = (v2 + 1j * X[2, :2]).astype(np.complex64)
    _same(fnp.vecmat(c, A), np.einsum("...i,...ij->...j", c.conj(), A), rtol=1e-5)
    _same(fa.jit(fnp.matvec)(A, v3), np.einsum("...ij,...j->...i", A, v3), rtol=1e-5)

    def loss(np_):
        return lambda m, v: np_.sum(np_.sin(np_.matvec(m, v))) + np_.sum(np_.vecmat(v[:2], m))
    got = fa.grad(loss(fnp), argnums=(0, 1))(A, v3)
    _same(got, _jax32(jax.grad(loss(jnp), argnums=(0, 1)), A, v3), rtol=1e-5)
    with pytest.raises(ValueError, match="vectorize: core dimension"):
        fnp.matvec(A, X[0])


# --------------------------------------------------------------------------------------------
# Predicates, printing, einsum_path, pow, from_dlpack, files
# --------------------------------------------------------------------------------------------

def test_predicates_match_jax():
    c = np.array([1 + 0j, 2j, 0j], np.complex64)
    for v in (c, X[0], np.array([1, 2], np.int32)):
        _same(fnp.isreal(v), np.isreal(v))
        _same(fnp.iscomplex(v), np.iscomplex(v))
        assert fnp.iscomplexobj(v) is jnp.iscomplexobj(v)
        assert fnp.isrealobj(v) is jnp.isrealobj(v)
    for obj in (1j, 1.0, None, [1, 2j], fnp.ones(2), np.complex64(1)):
        assert fnp.iscomplexobj(obj) == jnp.iscomplexobj(obj)
    _same(fa.jit(fnp.iscomplex)(c), np.iscomplex(c))
    assert fnp.iterable([1]) and not fnp.iterable(3) and fnp.iterable(fnp.ones(2))
    assert not fnp.iterable(fnp.ones(()))


def test_isdtype_matches_jax():
    kinds = ["bool", "signed integer", "unsigned integer", "integral", "real floating",
             "complex floating", "numeric", np.float32, ("bool", np.int8)]
    for dt in (np.bool_, np.int8, np.uint32, ml_dtypes.bfloat16, np.float64, np.complex64,
               ml_dtypes.float8_e4m3fn, ml_dtypes.int4):
        for kind in kinds:
            assert fnp.isdtype(dt, kind) == jnp.isdtype(dt, kind), (dt, kind)
    with pytest.raises(ValueError, match="isdtype: unknown kind 'floaty'"):
        fnp.isdtype(np.float32, "floaty")
    with pytest.raises(TypeError, match="isdtype: kind must be"):
        fnp.isdtype(np.float32, 3.5)


def test_print_options_and_reprs():
    x = fnp.array([1 / 3, 2.0])
    before = fnp.get_printoptions()
    with fnp.printoptions(precision=2):
        assert "0.33" in repr(x) and fnp.get_printoptions()["precision"] == 2
    assert fnp.get_printoptions() == before
    assert fnp.array_repr(x, precision=3) == "Array([0.333, 2.   ], dtype=float32)"
    assert fnp.array_str(x, precision=3) == np.array_str(np.asarray(x), precision=3)
    assert fnp.array_repr(fnp.zeros((2, 0))) == repr(fnp.zeros((2, 0)))
    fnp.set_printoptions(precision=before["precision"])


def test_einsum_path_and_pow():
    x, y, z = np.ones((2, 3)), np.ones((3, 100)), np.ones((100, 5))
    for optimize in ("auto", "optimal", "greedy", True):
        path, report = fnp.einsum_path("ij,jk,kl", x, y, z, optimize=optimize)
        assert path == jnp.einsum_path("ij,jk,kl", x, y, z, optimize=optimize)[0]
        assert "Complete contraction" in str(report)
        _same(fnp.einsum("ij,jk,kl", x, y, z, optimize=path), x @ y @ z)
    path, _ = fnp.einsum_path("ij,jk", x, y, optimize=[(0, 1)])
    assert path == [(0, 1)]
    with pytest.raises(ValueError, match="einsum_path: .*shapes"):
        fnp.einsum_path("ij,jk", x, z)
    _same(fnp.pow(np.array([2, 3], np.int32), 2), np.array([4, 9], np.int32))
    _same(fa.grad(lambda v: fnp.pow(v, 3.0))(2.0), np.float32(12.0))


def test_from_dlpack():
    src = np.arange(4, dtype=np.int16)
    got = fnp.from_dlpack(src)
    src[0] = 9  # the import is a copy
    _same(got, np.arange(4, dtype=np.int16))
    _same(fnp.from_dlpack(jnp.arange(3.0, dtype=jnp.float32)), np.arange(3.0, dtype=np.float32))
    _same(fnp.from_dlpack(fnp.ones(2)), np.ones(2, np.float32))
    with pytest.raises(ValueError, match="from_dlpack: funcarray always copies"):
        fnp.from_dlpack(src, copy=False)
    with pytest.raises(TypeError, match="from_dlpack: list does not implement __dlpack__"):
        fnp.from_dlpack([1, 2])


def test_save_load_savez_round_trip(tmp_path):
    for value in (fnp.arange(3, dtype=fnp.bfloat16), fnp.ones((2, 2)),
                  fnp.array([1 + 2j], dtype=fnp.complex64)):
        buf = io.BytesIO()
        fnp.save(buf, value)
        buf.seek(0)
        _same(fnp.load(buf), np.asarray(value))
    path = tmp_path / "arrays.npz"
    fnp.savez(path, fnp.ones(2), w=fnp.zeros(3, dtype=int))
    with fnp.load(path) as archive:
        _same(fnp.asarray(archive["w"]), np.zeros(3, np.int32))
        _same(fnp.asarray(archive["arr_0"]), np.ones(2, np.float32))
    np.save(tmp_path / "text.npy", np.array(["a", "b"]))
    assert isinstance(fnp.load(tmp_path / "text.npy"), np.ndarray)
