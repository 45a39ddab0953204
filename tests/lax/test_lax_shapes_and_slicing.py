"""``funcarray.lax``'s shape, slicing and indexing operations (``funcarray/lax/_ops_shape.py``,
``_ops_slicing.py``) against ``jax.lax``. ``dynamic_slice`` and ``dynamic_update_slice`` are
checked with out-of-range and traced start indices (inside ``fa.jit`` and
``fa.lax.fori_loop``) against jax's clamping, and under ``vmap`` with batched indices.
"""

from __future__ import annotations

import hypothesis.strategies as st
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from lax_oracle import (
    C64,
    F16,
    F32,
    I32,
    I64,
    U8,
    _dname,
    assert_same,
    check_all,
    rand,
    seeded_rng,  # noqa: F401  (an autouse fixture: rand() per test)
)

import funcarray as fa
import funcarray.numpy as fnp
from funcarray import lax

# ============================================================================================
# Shapes
# ============================================================================================

SHAPE_CASES = {
    "broadcast": (lambda m: (lambda x: m.broadcast(x, (2, 1))), (3,)),
    "broadcast_in_dim": (lambda m: (lambda x: m.broadcast_in_dim(x, (4, 3, 2), (1, 0))), (3, 1)),
    "broadcast_in_dim-scalar": (lambda m: (lambda x: m.broadcast_in_dim(x, (2, 2), ())), ()),
    "reshape": (lambda m: (lambda x: m.reshape(x, (3, 2))), (2, 3)),
    "reshape-dims": (lambda m: (lambda x: m.reshape(x, (6,), (1, 0))), (2, 3)),
    "collapse": (lambda m: (lambda x: m.collapse(x, 1)), (2, 3, 4)),
    "collapse-neg": (lambda m: (lambda x: m.collapse(x, -3, -1)), (2, 3, 4)),
    "squeeze": (lambda m: (lambda x: m.squeeze(x, (0, -1))), (1, 3, 1)),
    "expand_dims": (lambda m: (lambda x: m.expand_dims(x, (0, -1, 2))), (2, 3)),
    "transpose": (lambda m: (lambda x: m.transpose(x, (2, 0, 1))), (2, 3, 4)),
    "rev": (lambda m: (lambda x: m.rev(x, (0, 2))), (2, 3, 4)),
    "pad": (lambda m: (lambda x: m.pad(x, np.float32(-1), [(1, -1, 1), (-2, 3, 0)])), (3, 4)),
    "pad-interior-only": (lambda m: (lambda x: m.pad(x, np.float32(0), [(0, 0, 2)])), (3,)),
    "concatenate": (lambda m: (lambda x: m.concatenate([x, x[:1], x], 0)), (2, 3)),
    "slice": (lambda m: (lambda x: m.slice(x, (1, 0), (3, 4), (1, 2))), (3, 4)),
    "slice-empty": (lambda m: (lambda x: m.slice(x, (2, 0), (2, 4))), (3, 4)),
    "slice_in_dim": (lambda m: (lambda x: m.slice_in_dim(x, -3, None, 2, 0)), (4, 2)),
    "slice_in_dim-axis": (lambda m: (lambda x: m.slice_in_dim(x, 1, -1, 1, -1)), (3, 4)),
    "index_in_dim": (lambda m: (lambda x: m.index_in_dim(x, -1, 1, False)), (3, 4)),
    "index_in_dim-keep": (lambda m: (lambda x: m.index_in_dim(x, 0)), (3, 4)),
    "full_like": (lambda m: (lambda x: m.full_like(x, 2)), (2, 3)),
    "full_like-dtype": (lambda m: (lambda x: m.full_like(x, 2, np.int8, (4,))), (2, 3)),
}




def test_shape_ops_match_jax():
    cases, names = [], []
    for case, (make, shape) in SHAPE_CASES.items():
        for dtype in (F32, I32):
            if case.startswith("pad") and dtype == I32:
                continue  # the padding value is float32
            cases.append((make(lax), make(jax.lax), (rand(shape, dtype),), None))
            names.append(f"{case}({_dname(dtype)})")
    check_all(cases, names=names)


def test_creation_ops_match_jax():
    cases, names = [], []
    for dtype in (I32, F32, C64, U8, F16):
        cases.append((lambda d=dtype: lax.iota(d, 5), lambda d=dtype: jax.lax.iota(d, 5), (),
                      None))
        names.append(f"iota({_dname(dtype)})")
        for dim in (0, 1, 2):
            cases.append((lambda d=dtype, k=dim: lax.broadcasted_iota(d, (2, 3, 2), k),
                          lambda d=dtype, k=dim: jax.lax.broadcasted_iota(d, (2, 3, 2), k), (),
                          None))
            names.append(f"broadcasted_iota({_dname(dtype)}, {dim})")
    cases += [
        (lambda: lax.full((2, 3), np.float32(1.5)), lambda: jax.lax.full((2, 3), np.float32(1.5)),
         (), None),
        (lambda: lax.full((2,), 2.7, I32), lambda: jax.lax.full((2,), 2.7, I32), (), None),
        (lambda: lax.full((), True), lambda: jax.lax.full((), True), (), None),
        (lambda: lax.zeros_like_array(fnp.ones((2, 3), fnp.int8)),
         lambda: jnp.zeros_like(jnp.ones((2, 3), jnp.int8)), (), None),
    ]
    names += ["full(f32)", "full(int32 of 2.7)", "full(bool)", "zeros_like_array"]
    check_all(cases, names=names)
    assert lax.full((2,), 1.5).weak_type and not lax.full((2,), 1.5, F32).weak_type
    weak = lax.full_like(lax.full((), 1.0), 2.0)
    assert weak.weak_type and weak.dtype == np.float32
    assert not lax.full_like(lax.full((), 1.0), 2.0, F32).weak_type


@pytest.mark.parametrize("call, exc, match", [
    (lambda: lax.broadcast_in_dim(fnp.ones((3, 4)), (3, 5), (0, 1)), TypeError,
     r"lax\.broadcast_in_dim: cannot broadcast float32\[3,4\] to \(3, 5\)"),
    (lambda: lax.broadcast_in_dim(fnp.ones((3, 4)), (2, 3, 4), (-2, -1)), TypeError,
     r"lax\.broadcast_in_dim: broadcast_dimensions=\(-2, -1\) must be non-negative"),
    (lambda: lax.broadcast_in_dim(fnp.ones(3), (3,), (0, 1)), TypeError,
     r"needs one entry per dimension of operand float32\[3\]"),
    (lambda: lax.broadcast(fnp.ones(3), (-2,)), ValueError, r"lax\.broadcast: sizes=\(-2,\)"),
    (lambda: lax.reshape(fnp.ones((3, 4)), (-1, 6)), ValueError,
     r"lax\.reshape: new_sizes=\(-1, 6\) must be non-negative"),
    (lambda: lax.reshape(fnp.ones((3, 4)), (5,)), ValueError,
     r"lax\.reshape: cannot reshape float32\[3,4\] \(12 elements\) to \(5,\)"),
    (lambda: lax.reshape(fnp.ones((3, 4)), (12,), (0, 0)), ValueError,
     r"dimensions=\(0, 0\) must be a permutation"),
    (lambda: lax.squeeze(fnp.ones((1, 3)), (1,)), ValueError, r"lax\.squeeze: cannot squeeze"),
    (lambda: lax.squeeze(fnp.ones((1, 3)), (0, 0)), ValueError, "not unique"),
    (lambda: lax.squeeze(fnp.ones((1, 3)), (2,)), ValueError, r"axis 2 is out of bounds"),
    (lambda: lax.expand_dims(fnp.ones(3), (0, 0)), ValueError, "repeated axis"),
    (lambda: lax.expand_dims(fnp.ones(3), (3,)), ValueError, r"axis 3 is out of bounds"),
    (lambda: lax.transpose(fnp.ones((3, 4)), (-1, 0)), ValueError,
     r"lax\.transpose: permutation=\(-1, 0\) is not a permutation .* float32\[3,4\]"),
    (lambda: lax.rev(fnp.ones((3, 4)), (-1,)), ValueError,
     r"lax\.rev: dimensions=\(-1,\) must be non-negative.*write \(1,\)"),
    (lambda: lax.rev(fnp.ones((3, 4)), (0, 0)), ValueError, "repeated dimension"),
    (lambda: lax.rev(fnp.ones((3, 4)), (2,)), ValueError, r"out of range .*valid: 0 to 1"),
    (lambda: lax.pad(fnp.ones((3, 4)), 0.0, [(1, -1, -1), (0, 0, 0)]), ValueError,
     "interior padding in padding_config must be non-negative"),
    (lambda: lax.pad(fnp.ones((3, 4)), 0, [(1, 1, 1), (0, 0, 0)]), TypeError,
     r"lax\.pad: requires arguments to have the same dtype, got float32, int32"),
    (lambda: lax.pad(fnp.ones((3, 4)), fnp.zeros(2), [(1, 1, 1), (0, 0, 0)]), ValueError,
     r"padding_value must be a scalar"),
    (lambda: lax.pad(fnp.ones((3, 4)), 0.0, [(1, 1, 1)]), ValueError,
     r"padding_config needs one \(low, high, interior\) triple per dimension"),
    (lambda: lax.pad(fnp.ones((3, 4)), 0.0, [(-5, 0, 0), (0, 0, 0)]), ValueError,
     r"result shape \(-2, 4\)"),
    (lambda: lax.concatenate([fnp.ones(2)], -1), ValueError,
     r"lax\.concatenate: dimension -1 is out of bounds"),
    (lambda: lax.concatenate([fnp.ones(2), fnp.ones(2, fnp.int32)], 0), TypeError,
     r"same dtype, got float32\[2\], int32\[2\]"),
    (lambda: lax.concatenate([], 0), ValueError, "non-empty"),
    (lambda: lax.concatenate([fnp.ones((3, 4)), fnp.ones((4, 3))], 0), TypeError,
     r"shapes differ in dimensions other than 0"),
    (lambda: lax.iota(fnp.bool_, 3), TypeError, r"lax\.iota: does not accept dtype bool"),
    (lambda: lax.iota(fnp.int32, -1), ValueError, "size must be non-negative"),
    (lambda: lax.broadcasted_iota(fnp.int32, (2, 3), -1), ValueError,
     r"dimension must be between 0 and len\(shape\) - 1, got dimension=-1"),
    (lambda: lax.full((2,), fnp.ones(2)), TypeError, r"lax\.full: fill_value must be a scalar"),
    (lambda: lax.full((-2,), 1.0), ValueError, r"lax\.full: shape=\(-2,\)"),
    (lambda: lax.full(3, 1.0), TypeError, r"lax\.full: shape must be a sequence of ints"),
    (lambda: lax.slice(fnp.ones((3, 4)), (-1, 0), (3, 4)), ValueError,
     r"lax\.slice: start_indices=\(-1, 0\) .* 0 <= start <= limit <= size"),
    (lambda: lax.slice(fnp.ones((3, 4)), (0,), (3,)), ValueError,
     r"start_indices=\(0,\) needs one entry per dimension"),
    (lambda: lax.slice(fnp.ones((3, 4)), (0, 0), (3, 4), (0, 1)), ValueError,
     r"strides=\(0, 1\) must all be positive"),
    (lambda: lax.slice(fnp.ones((3, 4)), (2, 0), (1, 4)), ValueError, "start <= limit"),
    (lambda: lax.slice_in_dim(fnp.ones((3, 4)), 1, 9, 1, 1), ValueError,
     r"limit_indices=\(3, 9\)"),
    (lambda: lax.slice_in_dim(fnp.ones((3, 4)), 0, 1, 1, 2), ValueError, "axis 2 is out"),
    (lambda: lax.index_in_dim(fnp.ones((3, 4)), 4, 1), IndexError,
     r"lax\.index_in_dim: index 4 is out of bounds for axis 1 with size 4"),
    (lambda: lax.convert_element_type(fnp.ones(2), "float128"), TypeError,
     r"lax\.convert_element_type: new_dtype"),
    (lambda: lax.bitcast_convert_type(fnp.ones(3, fnp.uint8), fnp.float32), TypeError,
     r"lax\.bitcast_convert_type: .*needs a last dimension of 4"),
])
def test_shape_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()




# ============================================================================================
# dynamic_slice and friends: clamping, negative and traced indices
# ============================================================================================

X34 = np.arange(12, dtype=F32).reshape(3, 4)
SLICE_SIZES = [(0, 1), (2, 4), (1, 3)]


def _ds(x, i, j, n, m, allow):
    return lax.dynamic_slice(x, (i, j), (n, m), allow_negative_indices=allow)


# One compilation per (sizes, allow_negative_indices), reused by every example.
_DS_JIT = fa.jit(_ds, static_argnums=(3, 4, 5))
_DS_ARRAY_JIT = fa.jit(lambda x, ij, n, m: lax.dynamic_slice(x, ij, (n, m)),
                       static_argnums=(2, 3))
_DUS_JIT = fa.jit(lambda x, u, i, j: lax.dynamic_update_slice(x, u, (i, j)))


@settings(max_examples=15)
@given(st.integers(-9, 9), st.integers(-9, 9), st.sampled_from(SLICE_SIZES), st.booleans())
def test_dynamic_slice_clamps_like_jax(i, j, sizes, allow_negative):
    if not allow_negative:
        i, j = abs(i), abs(j)
    n, m = sizes
    want = jax.lax.dynamic_slice(jnp.asarray(X34), (i, j), (n, m),
                                 allow_negative_indices=allow_negative)
    x = fnp.asarray(X34)
    assert_same(_ds(x, i, j, n, m, allow_negative), want, where="static ints")
    assert_same(lax.dynamic_slice(x, np.array([i, j]), (n, m),
                                  allow_negative_indices=allow_negative), want, where="ndarray")
    for dtype in (fnp.int32, fnp.int64):
        assert_same(_DS_JIT(x, dtype(i), dtype(j), n, m, allow_negative), want,
                    where=f"traced {dtype}")
    if allow_negative:
        assert_same(_DS_ARRAY_JIT(x, fnp.array([i, j]), n, m), want, where="traced array")


@settings(max_examples=15)
@given(st.integers(-9, 9), st.integers(-9, 9))
def test_dynamic_update_slice_clamps_like_jax(i, j):
    update = -np.arange(1, 7, dtype=F32).reshape(2, 3)
    want = jax.lax.dynamic_update_slice(jnp.asarray(X34), jnp.asarray(update), (i, j))
    x, u = fnp.asarray(X34), fnp.asarray(update)
    assert_same(lax.dynamic_update_slice(x, u, (i, j)), want, where="static ints")
    assert_same(_DUS_JIT(x, u, fnp.int32(i), fnp.int32(j)), want, where="traced")
    want_unsigned = jax.lax.dynamic_update_slice(jnp.asarray(X34), jnp.asarray(update),
                                                 (abs(i), abs(j)))
    assert_same(_DUS_JIT(x, u, fnp.uint8(abs(i)), fnp.uint8(abs(j))), want_unsigned,
                where="traced uint8")


IN_DIM_CASES = {
    "dynamic_slice_in_dim": lambda m, v, s: m.dynamic_slice_in_dim(v, s, 2, axis=1),
    "dynamic_slice_in_dim(axis=-2)": lambda m, v, s: m.dynamic_slice_in_dim(v, s, 2, -2),
    "dynamic_index_in_dim": lambda m, v, s: m.dynamic_index_in_dim(v, s, 1, False),
    "dynamic_index_in_dim(keepdims)": lambda m, v, s: m.dynamic_index_in_dim(v, s),
    "dynamic_update_slice_in_dim":
        lambda m, v, s: m.dynamic_update_slice_in_dim(v, v[:, :2] * 0 - 1, s, 1),
    "dynamic_update_index_in_dim":
        lambda m, v, s: m.dynamic_update_index_in_dim(v, v[0] * 0 - 1, s, 0),
    "dynamic_update_index_in_dim(keepdims)":
        lambda m, v, s: m.dynamic_update_index_in_dim(v, v[:, :1] * 0 - 1, s, 1),
}


def test_dynamic_in_dim_helpers_match_jax():
    x = rand((3, 5), F32)
    jx, fx = jnp.asarray(x), fnp.asarray(x)
    starts, traced_starts = (-7, -2, 0, 1, 3, 9), (-7, 1, 9)
    jitted = fa.jit(lambda v, ss: [[f(lax, v, s) for s in ss] for f in IN_DIM_CASES.values()])
    traced = jitted(fx, [fnp.int32(s) for s in traced_starts])
    for (name, f), results in zip(IN_DIM_CASES.items(), traced):
        for s in starts:
            assert_same(f(lax, fx, s), f(jax.lax, jx, s), where=f"{name} at {s}")
        for s, got in zip(traced_starts, results):
            assert_same(got, f(jax.lax, jx, s), where=f"{name} at traced {s}")


def _loop_body(m, x, dtype):
    def step(i, acc):
        i = m.convert_element_type(i, dtype)
        a = m.dynamic_slice(x, (i - 2, 2 * i - 3), (2, 3))
        upd = m.dynamic_update_slice(acc, a * 0 + m.convert_element_type(i, acc.dtype),
                                     (i, i - 1))
        return upd + m.dynamic_index_in_dim(x, i + 2, 0)[0, :1] * 0 + a[0, 0]
    return step


def test_dynamic_slice_with_traced_index_inside_fori_loop_matches_jax():
    x = rand((4, 6), F32)
    for dtype in (I32, I64):
        want = jax.jit(lambda z: jax.lax.fori_loop(
            0, 7, _loop_body(jax.lax, jnp.asarray(x), dtype), z))(jnp.zeros((4, 6), F32))
        body = _loop_body(lax, fnp.asarray(x), dtype)
        assert_same(lax.fori_loop(0, 7, body, fnp.zeros((4, 6), fnp.float32)), want,
                    where="eager loop")
        assert_same(fa.jit(lambda z: lax.fori_loop(0, 7, body, z))(
            fnp.zeros((4, 6), fnp.float32)), want, where="jitted loop")


def test_dynamic_slice_static_index_beyond_int32_is_clamped():
    want = jax.lax.dynamic_slice(jnp.asarray(X34), (2**40, -2**40), (2, 2))
    assert_same(lax.dynamic_slice(fnp.asarray(X34), (2**40, -2**40), (2, 2)), want)


def test_dynamic_update_slice_takes_a_weak_update_of_the_operand_kind():
    out = lax.dynamic_update_slice(fnp.zeros(3, fnp.float16), fnp.ones(1, fnp.float16) * 2.0,
                                   (1,))
    assert out.dtype == np.float16
    assert lax.dynamic_update_slice(fnp.zeros((), fnp.float64), 2.0, ()).tolist() == 2.0


@pytest.mark.parametrize("call, exc, match", [
    (lambda: lax.dynamic_slice(fnp.ones((3, 4)), (1, 1, 1), (2, 2)), ValueError,
     r"lax\.dynamic_slice: slice_sizes=\(2, 2\)|needs one start index per operand dimension"),
    (lambda: lax.dynamic_slice(fnp.ones((3, 4)), (1, 1, 1), (2, 2, 1)), ValueError,
     r"slice_sizes=\(2, 2, 1\) must give one size"),
    (lambda: lax.dynamic_slice(fnp.ones((3, 4)), (1, 1), (4, 2)), ValueError,
     r"lax\.dynamic_slice: slice_sizes=\(4, 2\) must give one size in \[0, dim\] per "
     r"dimension of operand float32\[3,4\]"),
    (lambda: lax.dynamic_slice(fnp.ones((3, 4)), (1,), (2, 2)), ValueError,
     r"needs one start index per operand dimension \(2\), got 1"),
    (lambda: lax.dynamic_slice(fnp.ones((3, 4)), (1.0, 0), (2, 2)), TypeError,
     r"start indices must be integer scalars, got float32\[\]"),
    (lambda: lax.dynamic_slice(fnp.ones((3, 4)), (fnp.ones(2, fnp.int32), 1), (2, 2)),
     TypeError, r"start indices must be integer scalars, got int32\[2\]"),
    (lambda: lax.dynamic_slice(fnp.ones((3, 4)), fnp.ones((2, 1), fnp.int32), (2, 2)),
     TypeError, r"start_indices must be a 1-D integer sequence, got int32\[2,1\]"),
    (lambda: lax.dynamic_slice(fnp.ones((3, 4)), (-1, 0), (2, 2),
                               allow_negative_indices=False), IndexError,
     r"index -1 is out of bounds .* allow_negative_indices=False"),
    (lambda: lax.dynamic_update_slice(fnp.ones((3, 4)), fnp.ones((2, 2), fnp.int32), (0, 0)),
     TypeError, r"lax\.dynamic_update_slice: requires arguments to have the same dtype, got "
                r"float32, int32"),
    (lambda: lax.dynamic_update_slice(fnp.ones((3, 4)), fnp.ones(2), (0, 0)), TypeError,
     r"update must have the rank of the operand, got update float32\[2\] for operand "
     r"float32\[3,4\]"),
    (lambda: lax.dynamic_update_slice(fnp.ones((3, 4)), fnp.ones((4, 2)), (0, 0)), TypeError,
     r"update float32\[4,2\] must fit inside operand float32\[3,4\]"),
    (lambda: lax.dynamic_slice_in_dim(fnp.ones((3, 4)), 1, 2, axis=5), ValueError,
     r"lax\.dynamic_slice_in_dim: axis 5 is out of bounds"),
    (lambda: lax.dynamic_update_index_in_dim(fnp.ones((3, 4)), fnp.ones(()), 0, 0), TypeError,
     r"update float32\[\] must have the rank of operand float32\[3,4\] or one less"),
])
def test_dynamic_slice_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()
    with pytest.raises(exc, match=match):  # the same error while tracing
        fa.jit(lambda: call())()


# ============================================================================================
# gather / scatter
# ============================================================================================

GDN = dict(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,))
SDN = dict(update_window_dims=(1,), inserted_window_dims=(0,),
           scatter_dims_to_operand_dims=(0,))


def test_gather_and_scatters_match_jax():
    x, updates = rand((5, 3), F32), rand((5, 3), F32)
    out_of_bounds = np.array([[4], [0], [7], [-1], [2]], I32)
    cases, names = [], []
    for mode, jax_mode in ((None, None), ("clip", "clip"), ("fill", "fill"),
                           (jax.lax.GatherScatterMode.CLIP, "clip"),
                           (lax.GatherScatterMode.FILL_OR_DROP, "fill"),
                           (lax.GatherScatterMode.PROMISE_IN_BOUNDS, "promise_in_bounds")):
        cases.append((lambda v, i, m=mode: lax.gather(v, i, lax.GatherDimensionNumbers(**GDN),
                                                      (1, 3), mode=m),
                      lambda v, i, m=jax_mode: jax.lax.gather(
                          v, i, jax.lax.GatherDimensionNumbers(**GDN), (1, 3), mode=m),
                      (x, out_of_bounds), None))
        names.append(f"gather[{mode}]")
    repeated = np.array([[4], [0], [7], [0], [2]], I32)
    for name in ("scatter_add", "scatter_mul", "scatter_min", "scatter_max"):
        for mode in (None, "clip"):
            cases.append((lambda v, i, u, n=name, m=mode: getattr(lax, n)(
                              v, i, u, lax.ScatterDimensionNumbers(**SDN), mode=m),
                          lambda v, i, u, n=name, m=mode: getattr(jax.lax, n)(
                              v, i, u, jax.lax.ScatterDimensionNumbers(**SDN), mode=m),
                          (x, repeated, updates), None))
            names.append(f"{name}[{mode}]")
    unique = np.array([[4], [0], [7], [1], [2]], I32)
    cases.append((lambda v, i, u: lax.scatter(v, i, u, jax.lax.ScatterDimensionNumbers(**SDN)),
                  lambda v, i, u: jax.lax.scatter(v, i, u,
                                                  jax.lax.ScatterDimensionNumbers(**SDN)),
                  (x, unique, updates), None))
    names.append("scatter")
    check_all(cases, names=names)


def test_gather_and_scatter_errors():
    x, idx = fnp.asarray(rand((5, 3), F32)), fnp.array([[4], [0]], fnp.int32)
    with pytest.raises(ValueError, match=r"lax\.gather: unknown mode 'one_hot'"):
        lax.gather(x, idx, lax.GatherDimensionNumbers(**GDN), (1, 3), mode="one_hot")
    with pytest.raises(TypeError, match=r"lax\.gather: .*slice_sizes"):
        lax.gather(x, idx, lax.GatherDimensionNumbers(**GDN), (9, 3))
    with pytest.raises(TypeError, match=r"lax\.gather: dimension_numbers must be a "
                                        r"lax\.GatherDimensionNumbers"):
        lax.gather(x, idx, ((1,), (0,)), (1, 3))
    with pytest.raises(TypeError, match=r"lax\.scatter_add: requires arguments to have the "
                                        r"same dtype, got float32, int32"):
        lax.scatter_add(x, idx, fnp.ones((2, 3), fnp.int32), lax.ScatterDimensionNumbers(**SDN))




def test_vmap_of_dynamic_slices_with_batched_indices_matches_a_loop_and_jax():
    x = fnp.asarray(rand((5, 6), F32))
    starts = fnp.array([-7, -1, 0, 2, 4, 9], fnp.int32)
    updates = fnp.asarray(rand((6, 2, 2), F32))

    def f(m, x, i, u):
        return (m.dynamic_slice(x, (i, 2 * i), (2, 3)), m.dynamic_update_slice(x, u, (i + 1, i)),
                m.dynamic_index_in_dim(x, i, 1, False))

    got = fa.vmap(lambda i, u: f(lax, x, i, u))(starts, updates)
    want = jax.vmap(lambda i, u: f(jax.lax, jnp.asarray(x), i, u))(jnp.asarray(starts),
                                                                  jnp.asarray(updates))
    for k in range(6):
        for g, w in zip(got, f(lax, x, starts[k], updates[k])):
            assert_same(g[k], w)
    for g, w in zip(got, want):
        assert_same(g, w)
    for g, w in zip(fa.jit(fa.vmap(lambda i, u: f(lax, x, i, u)))(starts, updates), want):
        assert_same(g, w)

