"""Linear algebra products: the dot_general primitive and matmul, dot, vdot, vecdot, inner,
outer, tensordot, einsum, kron, cross and matrix_power, against NumPy (values) and jax.numpy
(dtypes, weak types, XLA's accumulation)."""

from __future__ import annotations

import string

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest
from helpers import assert_array_equal_typed, rtol_for
from hypothesis import given
from hypothesis import strategies as st

import funcarray as fa
import funcarray.numpy as fnp
from funcarray import dtypes
from funcarray.numpy._linalg_solve import matrix_power
from funcarray.primitives.dot_general import dot_general, dot_general_p
from funcarray.transforms.staging import make_ir

BF16 = np.dtype(ml_dtypes.bfloat16)
# The dtypes the products are compared across (the brief's list plus bool, uint8, c128).
PRODUCT_DTYPES = (
    np.dtype("int8"), np.dtype("int32"), np.dtype("float16"), BF16, np.dtype("float32"),
    np.dtype("float64"), np.dtype("complex64"),
)
EXACT_DTYPES = (np.dtype("bool"), np.dtype("uint8"), np.dtype("int8"), np.dtype("int32"),
                np.dtype("int64"), np.dtype("float16"), BF16, np.dtype("float32"),
                np.dtype("float64"), np.dtype("complex64"), np.dtype("complex128"))


@pytest.fixture
def x64():
    """64-bit jax.numpy oracle results for the duration of one test."""
    previous = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    yield
    jax.config.update("jax_enable_x64", previous)


def jax_type(fn, *args, **kwargs):
    """Result (shape, dtype, weak_type) of a jax function, traced but never compiled (fast)."""
    out = jax.eval_shape(lambda *xs: fn(*xs, **kwargs), *args)
    return out.shape, out.dtype, out.weak_type


def fa_type(x):
    return x.shape, x.dtype, x.weak_type


def small_ints(rng, shape, dtype):
    """Values whose sums of products are exact in every dtype (|sum| < 256 for <= 27 terms)."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    lo = 0 if dtype.kind == "u" else -3
    values = rng.integers(lo, 4, shape)
    if dtype.kind == "c":
        values = values + 1j * rng.integers(-3, 4, shape)
    return values.astype(dtype)


def exact_oracle(spec, *operands, out_dtype):
    """np.einsum in a wide dtype, then wrapped/rounded to ``out_dtype`` like XLA."""
    def widen(x):
        if x.dtype == np.bool_ or dtypes.is_integer(x.dtype):
            return x.astype(np.int64)
        return x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)
    wide = np.einsum(spec, *(widen(x) for x in operands))
    if np.dtype(out_dtype) == np.bool_:
        return wide != 0
    return np.asarray(wide).astype(out_dtype)


def random_floats(rng, shape, dtype):
    """Positive reals (no cancellation, so relative tolerances hold); complex with both parts."""
    dtype = np.dtype(dtype)
    if dtypes.is_integer(dtype):
        return rng.integers(-100, 100, shape).astype(dtype)
    values = rng.uniform(0.5, 1.5, shape)
    if dtype.kind == "c":
        values = values + 1j * rng.uniform(0.5, 1.5, shape)
    return values.astype(dtype)


def float_oracle(fn, *operands, out_dtype):
    """A NumPy product computed in float64/complex128/int64, then cast to ``out_dtype``."""
    def widen(x):
        if dtypes.is_integer(x.dtype):
            return x.astype(np.int64)
        return x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)
    return np.asarray(fn(*(widen(x) for x in operands))).astype(out_dtype)


def assert_close(actual, expected):
    dtype = np.asarray(expected).dtype
    atol = 0.0 if dtypes.is_integer(dtype) or dtype == np.bool_ else 1e-5
    assert_array_equal_typed(actual, expected, rtol=rtol_for(dtype), atol=atol)


# --------------------------------------------------------------------------------------------
# dot_general primitive
# --------------------------------------------------------------------------------------------

@st.composite
def dot_general_cases(draw):
    """Random dimension numbers over random shapes (size-0 dims, batch dims, outer products)."""
    n_batch, n_contract = draw(st.integers(0, 2)), draw(st.integers(0, 2))
    n_lhs_free, n_rhs_free = draw(st.integers(0, 2)), draw(st.integers(0, 2))
    names = iter(string.ascii_lowercase)
    batch = [next(names) for _ in range(n_batch)]
    contract = [next(names) for _ in range(n_contract)]
    lhs_free = [next(names) for _ in range(n_lhs_free)]
    rhs_free = [next(names) for _ in range(n_rhs_free)]
    sizes = {name: draw(st.integers(0, 3)) for name in batch + contract + lhs_free + rhs_free}
    lhs_labels = draw(st.permutations(batch + contract + lhs_free))
    rhs_labels = draw(st.permutations(batch + contract + rhs_free))
    def positions(labels, names):
        return tuple(labels.index(name) for name in names)

    dimension_numbers = (
        (positions(lhs_labels, contract), positions(rhs_labels, contract)),
        (positions(lhs_labels, batch), positions(rhs_labels, batch)),
    )
    # Result: batch dims in lhs_batch order, then free dims in operand order.
    out_labels = (batch + [c for c in lhs_labels if c in lhs_free]
                  + [c for c in rhs_labels if c in rhs_free])
    spec = f"{''.join(lhs_labels)},{''.join(rhs_labels)}->{''.join(out_labels)}"
    shapes = tuple(sizes[c] for c in lhs_labels), tuple(sizes[c] for c in rhs_labels)
    return spec, shapes, dimension_numbers


@given(case=dot_general_cases(), dtype=st.sampled_from(EXACT_DTYPES), seed=st.integers(0, 2**16))
def test_dot_general_matches_einsum(case, dtype, seed):
    spec, (lhs_shape, rhs_shape), dimension_numbers = case
    rng = np.random.default_rng(seed)
    lhs, rhs = small_ints(rng, lhs_shape, dtype), small_ints(rng, rhs_shape, dtype)
    out = dot_general(fnp.asarray(lhs), fnp.asarray(rhs), dimension_numbers)
    assert_array_equal_typed(out, exact_oracle(spec, lhs, rhs, out_dtype=dtype), rtol=0)
    # The shape rule agrees with the kernel.
    aval = dot_general_p.abstract_eval(
        fnp.asarray(lhs).aval, fnp.asarray(rhs).aval, dimension_numbers=dimension_numbers,
        precision=None, preferred_element_type=None)
    assert aval.shape == out.shape and aval.dtype == out.dtype


@pytest.mark.parametrize("dtype, preferred", [
    ("int8", "int32"), ("uint8", "int32"), ("bool", "int32"), ("int16", "float32"),
    (BF16, "float32"), ("float16", "float32"), ("float32", "complex64"),
])
def test_dot_general_preferred_element_type(dtype, preferred):
    rng = np.random.default_rng(0)
    lhs, rhs = small_ints(rng, (2, 3, 4), dtype), small_ints(rng, (2, 4, 5), dtype)
    dn = (((2,), (1,)), ((0,), (0,)))
    out = dot_general(fnp.asarray(lhs), fnp.asarray(rhs), dn, preferred_element_type=preferred)
    assert_array_equal_typed(out, exact_oracle("bij,bjk->bik", lhs, rhs, out_dtype=preferred),
                             rtol=0)
    assert fa_type(out) == jax_type(jax.lax.dot_general, lhs, rhs, dimension_numbers=dn,
                                    preferred_element_type=preferred)


@pytest.mark.parametrize("shapes", [
    ((5, 1, 4), (1, 3, 1)), ((3,), (5, 3)), ((1, 7), (6, 1)), ((), (4, 5)), ((4, 5), ()),
    ((7, 2, 1), (7, 1, 3)), ((1, 1, 9), (2, 5, 1)),
])
def test_parallel_multiply_equals_a_broadcast_multiply(shapes, monkeypatch):
    """The threaded outer-product kernel, forced on for small arrays and split three ways
    (uneven slices, operands broadcast along the split axis), against NumPy's `*`."""
    from funcarray.primitives import _threads

    monkeypatch.setattr(_threads, "PARALLEL_MIN_ELEMENTS", 1)
    monkeypatch.setattr(_threads, "_cores", lambda: 3)
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal(s).astype(np.float32) for s in shapes)
    got = _threads.parallel_multiply(a, b)
    np.testing.assert_array_equal(got, a * b)
    assert got.dtype == (a * b).dtype and got.shape == np.broadcast_shapes(*shapes)


def test_outer_product_dot_generals_split_over_threads(monkeypatch):
    # per-example weight gradients: batch dims paired, nothing contracted
    from funcarray.primitives import _threads

    monkeypatch.setattr(_threads, "PARALLEL_MIN_ELEMENTS", 1)
    rng = np.random.default_rng(1)
    x, d = rng.standard_normal((6, 5)), rng.standard_normal((6, 4))
    got = dot_general(fnp.asarray(x), fnp.asarray(d), (((), ()), ((0,), (0,))))
    np.testing.assert_array_equal(got, np.einsum("bi,bj->bij", x, d))
    got = dot_general(fnp.asarray(x[0]), fnp.asarray(d[0]), (((), ()), ((), ())))
    np.testing.assert_array_equal(got, np.outer(x[0], d[0]))


@pytest.fixture
def small_recycling(monkeypatch):
    """Recycle outputs from 1 KiB on, in a fresh pool (restored afterwards)."""
    from funcarray.primitives import _buffers

    monkeypatch.setattr(_buffers, "RECYCLE_MIN_BYTES", 1024)
    monkeypatch.setattr(_buffers, "_pool", [])
    return _buffers


def _address(x) -> int:
    return np.asarray(x).__array_interface__["data"][0]


def test_large_outputs_reuse_memory_only_once_every_view_is_gone(small_recycling):
    x, d = fnp.ones((8, 40)), fnp.arange(8.0 * 30).reshape(8, 30)
    dn = (((), ()), ((0,), (0,)))  # per-example outer products: 8 x 40 x 30 floats
    want = np.einsum("bi,bj->bij", np.ones((8, 40)), np.arange(8.0 * 30).reshape(8, 30))
    first = dot_general(x, d, dn)
    kept_address = _address(first)
    second = dot_general(x, d, dn)  # `first` is alive: a new buffer
    assert _address(second) != kept_address
    row = first[3]  # a view keeps the buffer in use after `first` is dropped
    del first
    third = dot_general(x * 2.0, d, dn)
    assert _address(third) not in (kept_address, _address(second))
    np.testing.assert_array_equal(row, want[3])  # never overwritten
    np.testing.assert_array_equal(third, 2 * want)
    del row, third
    fourth = dot_general(x * 3.0, d, dn)  # now free: recycled
    pooled = [_address(b) for b in small_recycling._pool]
    assert kept_address in pooled and _address(fourth) == kept_address
    np.testing.assert_array_equal(fourth, 3 * want)
    np.testing.assert_array_equal(second, want)


def test_recycling_is_bounded_and_can_be_turned_off(small_recycling):
    x, d = fnp.ones((8, 40)), fnp.ones((8, 30))
    dn = (((), ()), ((0,), (0,)))
    nbytes = 8 * 40 * 30 * 4
    fa.config.update("eager_buffer_pool_bytes", 2 * nbytes)
    try:
        outs = [dot_general(x, d, dn) for _ in range(4)]  # all alive: 2 pooled, 2 plain
        assert small_recycling.pooled_bytes() == 2 * nbytes
        del outs
        fa.config.update("eager_buffer_pool_bytes", 0)
        a = dot_general(x, d, dn)
        assert _address(a) not in [_address(b) for b in small_recycling._pool]
        with pytest.raises(ValueError, match=">= 0"):
            fa.config.update("eager_buffer_pool_bytes", -1)
    finally:
        fa.config.update("eager_buffer_pool_bytes", 1 << 30)
    fa.clear_caches()
    assert small_recycling.pooled_bytes() == 0


def test_dot_general_integers_wrap_like_xla():
    lhs = np.full((3, 300), 100, np.int8)
    rhs = np.full((300, 2), 7, np.int8)
    dn = (((1,), (0,)), ((), ()))
    out = dot_general(fnp.asarray(lhs), fnp.asarray(rhs), dn)
    np.testing.assert_array_equal(out, jax.lax.dot_general(lhs, rhs, dn))
    widened = dot_general(fnp.asarray(lhs), fnp.asarray(rhs), dn, preferred_element_type="int32")
    np.testing.assert_array_equal(widened, np.full((3, 2), 210000, np.int32))


def test_dot_general_low_precision_accumulates_in_float32():
    # In float16 a running sum of ones stops at 2048; XLA (and funcarray) accumulate in f32.
    x = np.ones(4096, np.float16)
    dn = (((0,), (0,)), ((), ()))
    out = dot_general(fnp.asarray(x), fnp.asarray(x), dn)
    assert out.dtype == np.float16 and float(out) == 4096.0
    assert float(jax.lax.dot_general(x, x, dn)) == 4096.0
    # bf16 products returned as f32 are not rounded to bf16 on the way.
    y = np.array([1 + 2.0**-7], BF16)
    exact = dot_general(fnp.asarray(y), fnp.asarray(y), dn, preferred_element_type="float32")
    assert float(exact) == (1 + 2.0**-7) ** 2


def test_dot_general_weak_type():
    weak = fa.Array(np.ones(3, np.float32), True)
    strong = fnp.ones(3)
    dn = (((0,), (0,)), ((), ()))
    assert dot_general(weak, weak, dn).weak_type
    assert not dot_general(weak, strong, dn).weak_type
    assert not dot_general(weak, weak, dn, preferred_element_type="float64").weak_type


@pytest.mark.parametrize("lhs_shape, rhs_shape, dn, match", [
    ((2, 3), (4, 5), (((1,), (0,)), ((), ())), r"contracting dimensions must have equal sizes"),
    ((2, 3), (3, 5), (((1,), (0,)), ((0,), (1,))), r"batch dimensions must have equal sizes"),
    ((2, 3), (3, 2), (((2,), (0,)), ((), ())), r"lhs .* must be in range"),
    ((2, 3), (3, 2), (((1,), (0,)), ((1,), (1,))), r"lhs contracting and batch .* unique"),
    ((2, 3), (3, 2), (((1,), ()), ((), ())), r"as many contracting dimensions"),
    ((2, 3), (3, 2), ([[1], [0]], [[], []]), r"four tuples of ints"),
])
def test_dot_general_shape_errors(lhs_shape, rhs_shape, dn, match):
    lhs, rhs = fnp.ones(lhs_shape), fnp.ones(rhs_shape)
    with pytest.raises(TypeError, match=r"dot_general: .*" + match) as info:
        dot_general_p.bind(lhs, rhs, dimension_numbers=dn, precision=None,
                           preferred_element_type=None)
    if "four tuples" not in match:
        assert "lhs float32[" in str(info.value) and "rhs float32[" in str(info.value)


def test_dot_general_dtype_errors():
    dn = (((0,), (0,)), ((), ()))
    with pytest.raises(TypeError,
                       match=r"dot_general: operands must have one dtype.*float32.*int32"):
        dot_general(fnp.ones(3), fnp.ones(3, dtype="int32"), dn)
    with pytest.raises(TypeError, match=r"preferred_element_type int32 cannot hold .*float32"):
        dot_general(fnp.ones(3), fnp.ones(3), dn, preferred_element_type="int32")
    with pytest.raises(TypeError, match=r"dot_general: precision must be"):
        dot_general(fnp.ones(3), fnp.ones(3), dn, precision="fast")


# --------------------------------------------------------------------------------------------
# matmul, dot, tensordot, inner, outer, vdot, vecdot against NumPy across dtypes
# --------------------------------------------------------------------------------------------

PRODUCT_CASES = [
    # (name, funcarray fn, numpy fn, lhs shape, rhs shape)
    ("matmul 2x2", fnp.matmul, np.matmul, (3, 4), (4, 5)),
    ("matmul vec-mat", fnp.matmul, np.matmul, (4,), (4, 5)),
    ("matmul mat-vec", fnp.matmul, np.matmul, (3, 4), (4,)),
    ("matmul vec-vec", fnp.matmul, np.matmul, (4,), (4,)),
    ("matmul batch", fnp.matmul, np.matmul, (2, 3, 4), (2, 4, 5)),
    ("matmul broadcast", fnp.matmul, np.matmul, (2, 1, 3, 4), (5, 4, 2)),
    ("matmul batch-left", fnp.matmul, np.matmul, (6, 3, 4), (4, 2)),
    ("matmul batch-right", fnp.matmul, np.matmul, (3, 4), (6, 4, 2)),
    ("matmul vec-batch", fnp.matmul, np.matmul, (4,), (6, 4, 2)),
    ("matmul empty", fnp.matmul, np.matmul, (0, 4), (4, 3)),
    ("matmul empty-k", fnp.matmul, np.matmul, (3, 0), (0, 2)),
    ("dot nd", fnp.dot, np.dot, (2, 3, 4), (5, 4, 2)),
    ("dot scalar", fnp.dot, np.dot, (), (2, 3)),
    ("dot vec", fnp.dot, np.dot, (3,), (3,)),
    ("tensordot", fnp.tensordot, np.tensordot, (2, 3, 4), (3, 4, 5)),
    ("inner", fnp.inner, np.inner, (2, 3), (4, 3)),
    ("inner scalar", fnp.inner, np.inner, (2, 3), ()),
    ("outer", fnp.outer, np.outer, (2, 3), (4,)),
    ("vdot", fnp.vdot, np.vdot, (2, 3), (3, 2)),
]


@pytest.mark.parametrize("dtype", PRODUCT_DTYPES, ids=str)
@pytest.mark.parametrize("name, fn, np_fn, lhs_shape, rhs_shape", PRODUCT_CASES,
                         ids=[c[0] for c in PRODUCT_CASES])
def test_products_match_numpy(name, fn, np_fn, lhs_shape, rhs_shape, dtype):
    rng = np.random.default_rng(len(name))
    lhs, rhs = random_floats(rng, lhs_shape, dtype), random_floats(rng, rhs_shape, dtype)
    out = fn(lhs, rhs)
    assert_close(out, float_oracle(np_fn, lhs, rhs, out_dtype=dtype))


@pytest.mark.parametrize("dtype", PRODUCT_DTYPES, ids=str)
def test_vecdot_matches_numpy(dtype):
    rng = np.random.default_rng(1)
    x1, x2 = random_floats(rng, (2, 1, 3), dtype), random_floats(rng, (4, 3), dtype)
    assert_close(fnp.vecdot(x1, x2), float_oracle(np.vecdot, x1, x2, out_dtype=dtype))
    y1, y2 = random_floats(rng, (3, 2), dtype), random_floats(rng, (3, 5, 1), dtype)
    expected = float_oracle(lambda a, b: np.vecdot(a[:, None, :], b, axis=0), y1, y2,
                            out_dtype=dtype)
    assert_close(fnp.vecdot(y1[:, None, :], y2, axis=0), expected)


def test_vdot_and_vecdot_conjugate_the_first_operand():
    a = np.array([1 + 2j, 3 - 1j], np.complex64)
    b = np.array([2 - 1j, 1j], np.complex64)
    assert_close(fnp.vdot(a, b), np.vdot(a, b))
    assert_close(fnp.vecdot(a, b), np.vecdot(a, b))


@pytest.mark.parametrize("axes, lhs_shape, rhs_shape", [
    (0, (3, 2), (4,)), (1, (3, 4), (4, 2)), (2, (3, 4, 2), (4, 2, 3)),
    (([1, 0], [0, 1]), (3, 4, 2), (4, 3, 5)), (([-1], [0]), (3, 4), (4, 2)),
    ((2, 0), (3, 4, 2), (2, 5)), (([], []), (2,), (3,)),
])
def test_tensordot_axes(axes, lhs_shape, rhs_shape):
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal(lhs_shape), rng.standard_normal(rhs_shape)
    assert_close(fnp.tensordot(a, b, axes), np.tensordot(a, b, axes))


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32", "bool", "bfloat16"])
def test_matmul_dtype_matches_jax(dtype):
    rng = np.random.default_rng(0)
    a = small_ints(rng, (3, 40), dtypes.canonicalize_dtype(dtype)) * np.array(30).astype(dtype)
    b = small_ints(rng, (40, 2), dtypes.canonicalize_dtype(dtype))
    out, expected = fnp.matmul(a, b), jnp.matmul(a, b)
    assert out.dtype == expected.dtype
    np.testing.assert_array_equal(np.asarray(out), np.asarray(expected))  # int8 wraps in XLA
    if dtype in ("int8", "uint8", "int16", "bool"):
        widened = fnp.matmul(a, b, preferred_element_type="int32")
        expected = jnp.matmul(a, b, preferred_element_type="int32")
        assert widened.dtype == expected.dtype == np.int32
        np.testing.assert_array_equal(np.asarray(widened), np.asarray(expected))


@pytest.mark.parametrize("fn", ["matmul", "dot", "inner", "outer", "vdot", "kron", "tensordot"])
@pytest.mark.parametrize("lhs, rhs", [
    (np.ones(3, np.float32), 2.0), (2, np.ones(3, np.float32)), (np.ones(3, np.int8), 2),
    (np.ones(3, np.float16), np.ones(3, np.int32)), (np.ones(3, BF16), np.ones(3, np.float16)),
    (np.ones(3, np.uint8), np.ones(3, np.int8)),
])
def test_promotion_matches_jax(fn, lhs, rhs):
    if fn in ("matmul", "vdot") and (np.ndim(lhs) == 0 or np.ndim(rhs) == 0):
        return  # matmul rejects scalars; vdot of a scalar and a 3-vector is a size error
    kwargs = {"axes": 0} if fn == "tensordot" else {}
    out = getattr(fnp, fn)(lhs, rhs, **kwargs)
    if fn in ("dot", "tensordot") and 0 in (np.ndim(lhs), np.ndim(rhs)):
        # A product with a scalar is a multiplication (jnp.dot(int8_array, 2) trips over
        # its own preferred_element_type check in this jax version).
        assert fa_type(out) == jax_type(jnp.multiply, lhs, rhs)
    else:
        assert fa_type(out) == jax_type(getattr(jnp, fn), lhs, rhs, **kwargs)


def test_scalar_products_are_weak_like_jax():
    for fn in ("dot", "inner", "outer", "kron", "vdot"):
        out = getattr(fnp, fn)(2.0, 3.0)
        assert out.weak_type and jax_type(getattr(jnp, fn), 2.0, 3.0)[2]
        assert float(np.asarray(out).ravel()[0]) == 6.0


def test_operator_and_method_use_matmul_and_dot():
    a, b = fnp.ones((2, 3)), fnp.ones((3, 4))
    assert_close(a @ b, np.full((2, 4), 3.0, np.float32))
    assert_close(np.ones((2, 3), np.float32) @ b, np.full((2, 4), 3.0, np.float32))
    assert_close(a.dot(b), np.full((2, 4), 3.0, np.float32))


def test_precision_is_accepted_in_every_spelling():
    a = fnp.ones((2, 2))
    for precision in (None, "highest", "DEFAULT", jax.lax.Precision.HIGHEST, ("high", "default"),
                      "tensorfloat32"):
        assert_close(fnp.matmul(a, a, precision=precision), np.full((2, 2), 2.0, np.float32))
    with pytest.raises(ValueError, match=r"matmul: precision must be None"):
        fnp.matmul(a, a, precision="ultra")
    with pytest.raises(ValueError, match=r"einsum: precision needs one entry per operand"):
        fnp.einsum("ij,jk", a, a, precision=("high", "high", "high"))


# --------------------------------------------------------------------------------------------
# Shape errors
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("call, error, match", [
    (lambda: fnp.matmul(fnp.ones((3, 4)), fnp.ones((5, 6))), ValueError,
     r"matmul: shapes \(3, 4\) and \(5, 6\) are not aligned: 4 \(dim 1 of the first\) != 5 "
     r"\(dim 0 of the second\)"),
    (lambda: fnp.matmul(fnp.ones((2, 3, 4)), fnp.ones((3, 4, 5))), ValueError,
     r"matmul: the batch dimensions \(2,\) and \(3,\) of shapes \(2, 3, 4\) and \(3, 4, 5\)"),
    (lambda: fnp.matmul(fnp.ones(()), fnp.ones(3)), ValueError,
     r"matmul: operands must have at least one dimension"),
    (lambda: fnp.dot(fnp.ones((2, 3)), fnp.ones((4, 3))), ValueError,
     r"dot: shapes \(2, 3\) and \(4, 3\) are not aligned: 3 \(dim 1 of the first\) != 4"),
    (lambda: fnp.inner(fnp.ones((2, 3)), fnp.ones((3, 4))), ValueError,
     r"inner: shapes \(2, 3\) and \(3, 4\) are not aligned: 3 \(dim 1 .*\) != 4 \(dim 1 "),
    (lambda: fnp.vdot(fnp.ones((2, 3)), fnp.ones(5)), ValueError,
     r"vdot: operands must have the same number of elements, got shapes \(2, 3\)"),
    (lambda: fnp.vecdot(fnp.ones((2, 3)), fnp.ones(4)), ValueError,
     r"vecdot: axis -1 has size 3 in the first operand .* but 4 in the second"),
    (lambda: fnp.vecdot(fnp.ones((2, 3)), fnp.ones((4, 3))), ValueError,
     r"vecdot: the batch dimensions \(2,\) and \(4,\)"),
    (lambda: fnp.tensordot(fnp.ones((2, 3)), fnp.ones((4, 5)), 1), ValueError,
     r"tensordot: shapes \(2, 3\) and \(4, 5\) are not aligned: 3 \(dim 1 of the first\)"),
    (lambda: fnp.tensordot(fnp.ones((2, 3)), fnp.ones((3,)), 2), ValueError,
     r"tensordot: axes=2 must be between 0 and the smaller rank"),
    (lambda: fnp.tensordot(fnp.ones((2, 3)), fnp.ones((3,)), ([0, 1], [0])), ValueError,
     r"tensordot: the two operands need as many axes"),
    (lambda: fnp.tensordot(fnp.ones((2, 3)), fnp.ones((3,)), ([2], [0])), ValueError,
     r"tensordot: axis 2 is out of bounds"),
    (lambda: fnp.tensordot(fnp.ones((2, 3)), fnp.ones((3,)), "x"), TypeError,
     r"tensordot: axes must be an int or a pair"),
    (lambda: fnp.cross(fnp.ones(4), fnp.ones(3)), ValueError,
     r"cross: the vector axis must have 2 or 3 elements"),
    (lambda: fnp.matmul(fnp.ones(3), fnp.ones(3), preferred_element_type="int32"), TypeError,
     r"matmul: preferred_element_type int32 cannot hold products of float32 operands"),
    (lambda: fnp.matmul(fnp.ones(3, dtype="float8_e4m3fn"), fnp.ones(3, dtype="float16")),
     TypeError, r"matmul: Input dtypes .* have no implicit promotion path"),
])
def test_product_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


# --------------------------------------------------------------------------------------------
# einsum
# --------------------------------------------------------------------------------------------

EINSUM_TABLE = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),          # matrix product
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),  # batch matmul
    ("ii->", [(4, 4)]),                        # trace
    ("ii->i", [(4, 4)]),                       # diagonal
    ("ij->ji", [(3, 4)]),                      # transpose
    ("i,j->ij", [(3,), (4,)]),                 # outer
    ("ij->", [(3, 4)]),                        # sum
    ("ij->j", [(3, 4)]),                       # column sums
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]),  # ellipsis with broadcasting
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),         # three operands
    ("ij,jk", [(2, 3), (3, 4)]),               # implicit output
    ("ba", [(2, 3)]),                          # implicit output is alphabetical
    ("Ba,aB", [(2, 3), (3, 2)]),               # upper case letters
    ("i,i", [(5,), (5,)]),                     # inner product
    ("i,i->i", [(5,), (5,)]),                  # elementwise product
    ("iij,jk->ik", [(3, 3, 2), (2, 4)]),       # diagonal inside a contraction
    ("iii->i", [(3, 3, 3)]),                   # triple diagonal
    ("ij,ij,ij->", [(2, 3), (2, 3), (2, 3)]),  # elementwise triple product summed
    ("ij,jk->ik", [(2, 1), (3, 4)]),           # a size-1 dimension broadcasts
    ("...,...->...", [(2, 3), (3,)]),          # pure broadcasting
    ("ij->...ij", [(3, 4)]),                   # empty ellipsis
    (",->", [(), ()]),                         # scalars
    ("i,->i", [(3,), ()]),
    ("ab,cd->abcd", [(2, 0), (3, 2)]),         # empty dimension
    ("ab,bc->ac", [(2, 0), (0, 3)]),           # empty contraction
    ("i j , j k -> i k", [(2, 3), (3, 4)]),    # spaces are ignored
]


@pytest.mark.parametrize("subscripts, shapes", EINSUM_TABLE, ids=[t[0] for t in EINSUM_TABLE])
@pytest.mark.parametrize("optimize", ["auto", False])
def test_einsum_table(subscripts, shapes, optimize):
    rng = np.random.default_rng(0)
    operands = [rng.standard_normal(s) for s in shapes]
    out = fnp.einsum(subscripts, *operands, optimize=optimize)
    assert_array_equal_typed(out, np.einsum(subscripts, *operands), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", PRODUCT_DTYPES + (np.dtype("bool"), np.dtype("uint8")),
                         ids=str)
@pytest.mark.parametrize("subscripts, shapes", [
    ("ij,jk->ik", [(3, 4), (4, 5)]), ("ii->", [(4, 4)]), ("ii->i", [(3, 3)]),
    ("ij->j", [(3, 4)]), ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
])
def test_einsum_dtypes(subscripts, shapes, dtype, x64):
    rng = np.random.default_rng(0)
    operands = [small_ints(rng, s, dtype) for s in shapes]
    out = fnp.einsum(subscripts, *operands)
    assert_array_equal_typed(out, exact_oracle(subscripts, *operands, out_dtype=dtype), rtol=0)
    assert out.dtype == jax_type(lambda *xs: jnp.einsum(subscripts, *xs), *operands)[1]


def test_einsum_preferred_element_type_and_wrapping():
    rng = np.random.default_rng(0)
    a, b = (rng.integers(-128, 128, (3, 64)).astype(np.int8),
            rng.integers(-128, 128, (64, 2)).astype(np.int8))
    np.testing.assert_array_equal(fnp.einsum("ij,jk", a, b), jnp.einsum("ij,jk", a, b))
    widened = fnp.einsum("ij,jk,k->i", a, b, b[0], preferred_element_type=np.int32)
    expected = jnp.einsum("ij,jk,k->i", a, b, b[0], preferred_element_type=np.int32)
    assert widened.dtype == np.int32
    np.testing.assert_array_equal(widened, expected)
    summed = fnp.einsum("ij->", a, preferred_element_type=np.int32)
    assert summed.dtype == np.int32 and int(summed) == int(a.astype(np.int64).sum())


def test_einsum_sums_an_ellipsis_left_out_of_the_output():
    # NumPy refuses "...ij->ij"; jax.numpy sums the broadcast dimensions, and so do we.
    x = np.random.default_rng(0).standard_normal((2, 3, 4))
    assert_close(fnp.einsum("...ij->ij", x), x.sum(axis=0))


def test_einsum_diagonal_keeps_infinities():
    # The diagonal is selected, not multiplied by an identity mask (inf * 0 would be nan).
    x = np.array([[1.0, np.inf], [-np.inf, 2.0]], np.float32)
    assert_close(fnp.einsum("ii->i", x), np.array([1.0, 2.0], np.float32))
    assert_close(fnp.einsum("ii", x), np.float32(3.0))


def test_einsum_interleaved_form_and_explicit_path():
    rng = np.random.default_rng(0)
    a, b, c = rng.standard_normal((2, 3)), rng.standard_normal((3, 4)), rng.standard_normal(4)
    assert_close(fnp.einsum(a, [0, 1], b, [1, 2], [0, 2]), a @ b)
    assert_close(fnp.einsum(a, [Ellipsis, 1], b, [1, 2]), a @ b)
    path, _ = np.einsum_path("ij,jk,k->i", a, b, c, optimize="optimal")
    assert_close(fnp.einsum("ij,jk,k->i", a, b, c, optimize=path), a @ b @ c)
    assert_close(fnp.einsum("ij,jk,k->i", a, b, c, optimize=[(1, 2), (0, 1)]), a @ b @ c)


@st.composite
def einsum_cases(draw):
    """1-3 operands over labels a-e (repeats within an operand allowed), random output."""
    labels = "abcde"
    sizes = {c: draw(st.integers(1, 3)) for c in labels}
    n_operands = draw(st.integers(1, 3))
    terms = [draw(st.lists(st.sampled_from(labels), max_size=3)) for _ in range(n_operands)]
    used = sorted({c for t in terms for c in t})
    if draw(st.booleans()):
        subscripts = ",".join("".join(t) for t in terms)
    else:
        output = draw(st.permutations(used))[:draw(st.integers(0, len(used)))]
        subscripts = ",".join("".join(t) for t in terms) + "->" + "".join(output)
    shapes = [tuple(sizes[c] for c in t) for t in terms]
    return subscripts, shapes


@given(case=einsum_cases(), seed=st.integers(0, 2**16), optimize=st.sampled_from([True, False]))
def test_einsum_random_against_numpy(case, seed, optimize):
    subscripts, shapes = case
    rng = np.random.default_rng(seed)
    operands = [rng.standard_normal(s) for s in shapes]
    out = fnp.einsum(subscripts, *operands, optimize=optimize)
    assert_array_equal_typed(out, np.einsum(subscripts, *operands), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("subscripts, shapes, match", [
    ("ij,jk->ik", [(2, 3), (4, 5)],
     r"einsum: subscript 'j' has size 3 in operand 0 \(shape \(2, 3\)\) but 4 in operand 1 "
     r"\(shape \(4, 5\)\)"),
    ("ij", [(2, 3, 4)], r"einsum: operand 0 has shape \(2, 3, 4\) \(3 dimensions\) but its "
                        r"subscripts 'ij' in 'ij' name 2"),
    ("ijk", [(2, 3)], r"operand 0 has shape \(2, 3\) \(2 dimensions\) but its subscripts 'ijk'"),
    ("ij,jk", [(2, 3)], r"einsum: subscripts 'ij,jk' name 2 operand\(s\) but 1 were given"),
    ("i2", [(2, 3)], r"einsum: invalid character '2' in subscripts 'i2'"),
    ("ij->k", [(2, 3)], r"einsum: output subscript 'k' in 'ij->k' does not appear"),
    ("ij->ii", [(2, 3)], r"einsum: output subscript 'i' appears more than once"),
    ("ij->i->j", [(2, 3)], r"einsum: subscripts 'ij->i->j' must have at most one '->'"),
    ("i...j...", [(2, 3)], r"einsum: an ellipsis '...' appears twice"),
    ("ii", [(2, 3)], r"einsum: subscript 'i' is repeated in operand 0 \(shape \(2, 3\)\)"),
    ("ij->i,j", [(2, 3)], r"einsum: the output of 'ij->i,j' \(after '->'\) cannot contain ','"),
    ("...i,...i", [(2, 3), (4, 3)], r"einsum: subscript dimension 0 of '...' has size 2"),
])
def test_einsum_errors(subscripts, shapes, match):
    operands = [fnp.ones(s) for s in shapes]
    with pytest.raises(ValueError, match=match):
        fnp.einsum(subscripts, *operands)


def test_einsum_argument_errors():
    x = fnp.ones((2, 2))
    with pytest.raises(ValueError, match=r"einsum: needs at least one operand"):
        fnp.einsum("")
    with pytest.raises(ValueError, match=r"einsum: optimize must be"):
        fnp.einsum("ij", x, optimize="fastest")
    with pytest.raises(ValueError, match=r"einsum: an explicit optimize path must list 1 pairs"):
        fnp.einsum("ij,jk", x, x, optimize=[(0, 1), (0, 1)])
    with pytest.raises(ValueError, match=r"einsum: subscript lists hold ints 0-51"):
        fnp.einsum(x, [0, 99])
    with pytest.raises(ValueError, match=r"einsum: out= is not supported"):
        fnp.einsum("ij", x, out=x)


# --------------------------------------------------------------------------------------------
# kron, cross, matrix_power
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("lhs_shape, rhs_shape", [
    ((2, 3), (4, 5)), ((3,), (2, 2)), ((2, 2, 1), (3,)), ((), (3,)), ((0, 2), (2,)),
])
def test_kron_matches_numpy(lhs_shape, rhs_shape):
    rng = np.random.default_rng(0)
    a, b = rng.integers(-5, 5, lhs_shape).astype(np.int32), rng.standard_normal(rhs_shape)
    assert_close(fnp.kron(a, b), np.kron(a, b))


@pytest.mark.parametrize("lhs_shape, rhs_shape, kwargs", [
    ((3,), (3,), {}), ((4, 3), (3,), {}), ((2, 1, 3), (5, 3), {}),
    ((3, 4), (4, 3), {"axisa": 0}), ((3, 4), (3, 4), {"axis": 0}),
    ((4, 3), (4, 3), {"axisc": 0}), ((2, 4, 3), (3,), {"axisc": 1}),
])
def test_cross_matches_numpy(lhs_shape, rhs_shape, kwargs):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(lhs_shape), rng.standard_normal(rhs_shape)
    assert_close(fnp.cross(a, b, **kwargs), np.cross(a, b, **kwargs))


def test_cross_of_2_vectors(x64):
    a, b = np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([5.0, 7.0])
    # Two 2-vectors give the z component; a 2-vector with a 3-vector has z = 0 (NumPy 2
    # deprecates both, jax.numpy keeps them).
    assert_close(fnp.cross(a, b), a[:, 0] * b[1] - a[:, 1] * b[0])
    c = np.array([1.0, 2.0, 3.0])
    padded = np.concatenate([a, np.zeros((2, 1))], axis=1)
    assert_close(fnp.cross(a, c), np.cross(padded, c))
    assert_close(fnp.cross(c, a), np.cross(c, padded))
    a32 = a.astype(np.float32)
    assert fnp.cross(a32, c).dtype == jax_type(jnp.cross, a32, c)[1]


@pytest.mark.parametrize("n", [0, 1, 2, 5, 8])
def test_matrix_power_matches_numpy(n):
    a = np.random.default_rng(n).integers(-2, 3, (2, 3, 3)).astype(np.int32)
    assert_array_equal_typed(matrix_power(a, n), np.linalg.matrix_power(a, n), rtol=0)


def test_matrix_power_errors():
    with pytest.raises(ValueError, match=r"matrix_power: needs a \(batch of\) square matrices"):
        matrix_power(fnp.ones((2, 3)), 2)
    # (negative exponents were an error before funcarray.numpy.linalg had inv: now powers of
    # the inverse)
    a = np.array([[2.0, 1.0], [0.0, 4.0]])
    np.testing.assert_allclose(np.asarray(matrix_power(fnp.asarray(a), -1)), np.linalg.inv(a))
    with pytest.raises(TypeError, match=r"matrix_power: the exponent must be an int"):
        matrix_power(fnp.ones((2, 2)), 1.5)


# --------------------------------------------------------------------------------------------
# Under tracing
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("fn, shapes", [
    (lambda a, b: a @ b, [(2, 3, 4), (4,)]),
    (lambda a, b: fnp.matmul(a, b), [(3, 4), (5, 4, 2)]),
    (lambda a, b: fnp.matmul(a, b), [(2, 1, 3, 4), (5, 4, 2)]),
    (lambda a, b: fnp.tensordot(a, b, axes=([0], [1])), [(3, 4), (2, 3)]),
    (lambda a, b: fnp.einsum("ii,ij->j", a, b), [(3, 3), (3, 2)]),
    (lambda a, b: fnp.einsum("...ij,jk->k...", a, b), [(2, 3, 4), (4, 5)]),
    (lambda a, b: fnp.vecdot(a, b), [(2, 3), (3,)]),
    (lambda a, b: fnp.kron(a, b), [(2, 3), (2,)]),
    (lambda a, b: fnp.cross(a, b), [(2, 3), (3,)]),
])
def test_products_stage_and_evaluate_like_eager(fn, shapes):
    rng = np.random.default_rng(0)
    args = [fnp.asarray(rng.standard_normal(s).astype(np.float32)) for s in shapes]
    staged = make_ir(fn)(*args)
    eager = fn(*args)
    assert_array_equal_typed(staged(*args), np.asarray(eager), rtol=0)
