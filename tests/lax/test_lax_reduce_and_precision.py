"""jax.lax's smaller operations (reduce_precision, optimization barriers, tiling...) and the
general reduce / reduce_window: values against jax.lax (eager and fa.jit), gradients against
jax and finite differences, vmap against a Python loop, and errors for bad input."""

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
from funcarray.primitives.compiler_hints import reduce_precision_kernel
from funcarray.testing import assert_allclose, check_grads

RNG = np.random.default_rng(0)


def _x(shape, dtype=np.float32):
    return RNG.normal(size=shape).astype(dtype)


def _same(got, want, rtol=1e-6, atol=1e-6):
    got_leaves, want_leaves = jax.tree.leaves(got), jax.tree.leaves(want)
    assert len(got_leaves) == len(want_leaves)
    for g, w in zip(got_leaves, want_leaves):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, g.dtype, w.shape, w.dtype)
        np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=rtol,
                                   atol=atol)


# ------------------------------------------------------------------------------------------
# shapes
# ------------------------------------------------------------------------------------------

def test_shape_ops_match_jax_eager_and_jit():
    x = _x((2, 3))
    cases = [
        (lambda m, a: m.tile(a, (2, 3)), x),
        (lambda m, a: m.stack([a, a * 2], axis=1), x),
        (lambda m, a: m.stack([a, a], axis=-1), x),
        (lambda m, a: m.unstack(a, axis=1), x),
        (lambda m, a: m.split(a, (1, 0, 2), axis=1), x),
        (lambda m, a: m.broadcast_to_rank(a, 4), x),
        (lambda m, a: m.index_take(a, (np.array([0, 1, -1]), np.array([2, 4, 0])), (0, 1)), x),
    ]
    wants = [f(jax.lax, arg) for f, arg in cases]
    for (f, arg), want in zip(cases, wants):
        _same(f(lax, fnp.asarray(arg)), want)
    # (one compiled program for all of them)
    _same(fa.jit(lambda a: [f(lax, a) for f, _ in cases])(fnp.asarray(x)), wants)
    assert lax.empty((2, 3), fnp.int8).dtype == np.int8
    assert fa.jit(lambda: lax.empty(4, fnp.float32))().shape == (4,)
    assert isinstance(lax.split(fnp.arange(4), (2, 2)), list)


def test_shape_ops_grad_and_vmap():
    x = fnp.asarray(_x((2, 3)))

    def f(a):
        parts = lax.split(lax.tile(a, (2, 1)), (1, 2), axis=1)
        stacked = lax.stack([parts[1][:, 0], parts[1][:, 1]], axis=0)
        return (lax.unstack(stacked)[0] ** 2).sum() + (parts[0] ** 3).sum()

    check_grads(f, (x,), order=1)
    batched = fa.vmap(lambda a: lax.tile(lax.stack([a, lax.neg(a)]), (1, 2)))(x)
    for k in range(2):
        assert_allclose(batched[k], lax.tile(lax.stack([x[k], lax.neg(x[k])]), (1, 2)))


def test_shape_ops_errors():
    x = fnp.ones((2, 3))
    with pytest.raises(TypeError, match="lax.tile.*reps"):
        lax.tile(x, (2,))
    with pytest.raises(TypeError, match="lax.stack.*same dtype"):
        lax.stack([x, fnp.ones((2, 3), fnp.int32)])
    with pytest.raises(ValueError, match="lax.stack.*same shape"):
        lax.stack([x, fnp.ones((3, 2))])
    with pytest.raises(ValueError, match="lax.split.*sum of sizes"):
        lax.split(x, (1, 1), axis=1)
    # (jax.lax.broadcast_to_rank returns an operand of the rank or more as it is)
    want = jax.lax.broadcast_to_rank(jnp.ones((2, 3)), 1)
    assert lax.broadcast_to_rank(x, 1).shape == want.shape
    with pytest.raises(TypeError, match="lax.index_take.*integers"):
        lax.index_take(x, (fnp.ones(2),), (0,))


# ------------------------------------------------------------------------------------------
# reduce_precision, optimization_barrier, mulhi, approx_k, platform_dependent, axis_size
# ------------------------------------------------------------------------------------------

_BITS = {np.float16: np.uint16, ml_dtypes.bfloat16: np.uint16, np.float32: np.uint32,
         np.float64: np.uint64}


# (each (exponent_bits, mantissa_bits) pair is one XLA compile in jax: a few per dtype)
@pytest.mark.parametrize("dtype,exponent_bits,mantissa_bits", [
    (np.float16, 5, 10), (np.float16, 3, 2), (ml_dtypes.bfloat16, 1, 0),
    (ml_dtypes.bfloat16, 5, 3), (np.float32, 5, 10), (np.float32, 8, 7), (np.float32, 2, 23),
    (np.float64, 8, 23), (np.float64, 11, 0)])
def test_reduce_precision_kernel_matches_xla_bits(dtype, exponent_bits, mantissa_bits):
    utype = _BITS[dtype]
    bits = RNG.integers(0, np.iinfo(utype).max, 400, dtype=np.uint64, endpoint=True)
    x = bits.astype(utype).view(np.dtype(dtype))
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, 1.5, 65504.0, 1e-8])
    x = np.concatenate([x, special.astype(dtype)])
    want = np.asarray(jax.lax.reduce_precision(x, exponent_bits, mantissa_bits))
    got = reduce_precision_kernel(x, exponent_bits, mantissa_bits)
    with np.errstate(invalid="ignore"):  # (bfloat16 NaNs warn in isnan)
        nan = np.isnan(want)
        np.testing.assert_array_equal(np.isnan(got), nan)
    np.testing.assert_array_equal(got.view(utype)[~nan], want.view(utype)[~nan])


@pytest.mark.parametrize("shape", [(), (1,), (2, 3)])
def test_reduce_precision_keeps_the_shape(shape):
    x = np.full(shape, 1.2345, np.float32)
    want = np.asarray(jax.lax.reduce_precision(x, 5, 10))
    for got in (lax.reduce_precision(x, 5, 10),
                fa.jit(lambda v: lax.reduce_precision(v, 5, 10))(x)):
        assert got.shape == shape
        np.testing.assert_array_equal(np.asarray(got), want)


def test_reduce_precision_transforms_and_errors():
    x = fnp.asarray(_x((3, 4)))
    want = jax.lax.reduce_precision(np.asarray(x), 5, 3)
    _same(lax.reduce_precision(x, 5, 3), want, rtol=0, atol=0)
    _same(fa.jit(lambda a: lax.reduce_precision(a, 5, 3))(x), want, rtol=0, atol=0)
    # the tangent is rounded too (JAX's linear rule)
    g = fa.grad(lambda a: (lax.reduce_precision(a, 5, 3) * a).sum())(x)
    jg = jax.grad(lambda a: (jax.lax.reduce_precision(a, 5, 3) * a).sum())(np.asarray(x))
    _same(g, jg)
    _same(fa.vmap(lambda a: lax.reduce_precision(a, 4, 2), in_axes=1)(x),
          jax.lax.reduce_precision(np.asarray(x).T, 4, 2), rtol=0, atol=0)
    assert lax.reduce_precision(1.0, 8, 7).weak_type
    with pytest.raises(TypeError, match="lax.reduce_precision"):
        lax.reduce_precision(fnp.arange(3), 5, 10)
    with pytest.raises(ValueError, match="exponent_bits must be positive"):
        lax.reduce_precision(x, 0, 10)
    with pytest.raises(ValueError, match="mantissa_bits must be non-negative"):
        lax.reduce_precision(x, 5, -1)


def test_optimization_barrier():
    x = fnp.asarray(_x((3,)))
    tree = {"a": x, "b": (x * 2, 3.0)}
    out = lax.optimization_barrier(tree)
    assert_allclose(out["b"][0], x * 2)
    jitted = fa.jit(lambda t: lax.optimization_barrier(t))
    assert_allclose(jitted(tree)["a"], x)
    assert "optimization_barrier" in fa.jit(
        lambda a: lax.optimization_barrier(fnp.sin(a)) + fnp.sin(a)).lower(x).as_text()
    g = fa.grad(lambda a: (lax.optimization_barrier((a * a, a))[0] * 3).sum())(x)
    assert_allclose(g, 6 * x)
    assert_allclose(fa.jit(fa.grad(lambda a: lax.optimization_barrier(a ** 3).sum()))(x),
                    3 * x ** 2, rtol=1e-6)
    assert fa.vmap(lambda a: lax.optimization_barrier([a, 1.0]))(x)[0].shape == (3,)


@pytest.mark.parametrize("dtype", ["int8", "uint32", "int64", "uint64"])
def test_mulhi_matches_jax(dtype):
    info = np.iinfo(dtype)
    a = RNG.integers(info.min, info.max, 50, dtype=dtype, endpoint=True)
    b = RNG.integers(info.min, info.max, 50, dtype=dtype, endpoint=True)
    a[:4] = [info.min, info.max, info.min, 0]
    b[:4] = [info.min, info.min, info.max, info.max]
    want = jax.lax.mulhi(a, b)
    _same(lax.mulhi(fnp.asarray(a), fnp.asarray(b)), want, rtol=0, atol=0)
    _same(fa.jit(lax.mulhi)(fnp.asarray(a), fnp.asarray(b)), want, rtol=0, atol=0)


def test_mulhi_vmap_and_errors():
    a = fnp.asarray(RNG.integers(-1000, 1000, (3, 4), dtype=np.int32))
    got = fa.vmap(lambda r: lax.mulhi(r, fnp.int32(1 << 30)))(a)
    assert_allclose(got, lax.mulhi(a, fnp.full((3, 4), 1 << 30, fnp.int32)))
    with pytest.raises(TypeError, match="lax.mulhi"):
        lax.mulhi(fnp.ones(2), fnp.ones(2))
    with pytest.raises(TypeError, match="lax.mulhi.*same dtype"):
        lax.mulhi(fnp.ones(2, fnp.int32), fnp.ones(2, fnp.int64))


def test_approx_k():
    x = _x((4, 7))
    for fa_fn, jax_fn in ((lax.approx_max_k, jax.lax.approx_max_k),
                          (lax.approx_min_k, jax.lax.approx_min_k)):
        want = jax_fn(x, 3, reduction_dimension=0, recall_target=0.9)
        _same(fa_fn(fnp.asarray(x), 3, reduction_dimension=0, recall_target=0.9), want)
        values, indices = fa_fn(fnp.asarray(x), 2)
        # d/dx sum(values ** 2): 2 x at the chosen entries, 0 elsewhere
        expected = np.zeros_like(x)
        np.put_along_axis(expected, np.asarray(indices), 2 * np.asarray(values), axis=1)
        assert_allclose(fa.grad(lambda a, f=fa_fn: (f(a, 2)[0] ** 2).sum())(fnp.asarray(x)),
                        expected)
        batched = fa.vmap(lambda r, f=fa_fn: f(r, 2)[1])(fnp.asarray(x))
        assert_allclose(batched, np.stack([np.asarray(fa_fn(fnp.asarray(r), 2)[1]) for r in x]))
    _same(fa.jit(lambda a: lax.approx_min_k(a, 3, 0))(fnp.asarray(x)),
          jax.lax.approx_min_k(x, 3, 0))
    with pytest.raises(ValueError, match="floating"):
        lax.approx_max_k(fnp.arange(5), 2)
    with pytest.raises(ValueError, match="k must be smaller"):
        lax.approx_min_k(fnp.ones(3), 4)
    with pytest.raises(NotImplementedError, match="aggregate_to_topk"):
        lax.approx_max_k(fnp.ones(8), 2, aggregate_to_topk=False)


def test_platform_dependent_and_axis_size():
    platform = fa.default_backend()
    branches = {platform: lambda v: v + 1}
    assert lax.platform_dependent(1, default=lambda v: v, **branches) == 2
    assert lax.platform_dependent(1, default=lambda v: v * 10, tpu_like_none=None) == 10
    assert_allclose(fa.jit(lambda v: lax.platform_dependent(v, default=lambda u: u,
                                                            **branches))(1.0), 2.0)
    with pytest.raises(ValueError, match="no branch for the platform"):
        lax.platform_dependent(1, not_a_platform=lambda v: v)
    f = fa.vmap(fa.vmap(lambda v: v * lax.axis_size(("i", "j")), axis_name="j"), axis_name="i")
    assert_allclose(f(fnp.ones((2, 3))), np.full((2, 3), 6.0, np.float32))
    assert fa.jit(fa.vmap(lambda v: v * lax.axis_size("i"), axis_name="i"))(
        fnp.ones(4)).tolist() == [4.0] * 4
    with pytest.raises(NameError, match="unbound axis name"):
        lax.axis_size("nope")


# ------------------------------------------------------------------------------------------
# convolution helpers
# ------------------------------------------------------------------------------------------

def test_conv_helpers_match_jax():
    for args in [((1, 8, 8, 3), (3, 3, 3, 16), (2, 2), "SAME", ("NHWC", "HWIO", "NHWC")),
                 ((2, 3, 9, 7), (4, 3, 3, 2), (2, 1), [(1, 0), (2, 2)],
                  ("NCHW", "OIHW", "NCHW"))]:
        assert lax.conv_general_shape_tuple(*args) == tuple(
            int(d) for d in jax.lax.conv_general_shape_tuple(*args))
        assert lax.conv_transpose_shape_tuple(*args) == tuple(
            int(d) for d in jax.lax.conv_transpose_shape_tuple(*args))
    spec = ("HWNC", "OIWH", "CWHN")
    assert lax.conv_general_permutations(spec) == jax.lax.conv_general_permutations(spec)
    assert lax.conv_shape_tuple((2, 3, 9, 9), (8, 3, 3, 3), (2, 2), "SAME") == tuple(
        int(d) for d in jax.lax.conv_shape_tuple((2, 3, 9, 9), (8, 3, 3, 3), (2, 2), "SAME"))
    with pytest.raises(TypeError, match="exactly once"):
        lax.conv_general_permutations(("NHW", "HWIO", "NHWC"))


def test_conv_general_dilated_patches():
    for dn, shape, filt in [(("HWNC", "OIWH", "CWHN"), (6, 5, 2, 3), (2, 3))]:
        x = _x(shape)
        kw = dict(window_strides=(1, 2), padding="SAME", rhs_dilation=(2, 1),
                  dimension_numbers=dn)
        want = jax.lax.conv_general_dilated_patches(x, filt, **kw)
        _same(lax.conv_general_dilated_patches(fnp.asarray(x), filt, **kw), want)
    x = fnp.asarray(_x((1, 2, 4, 3)))
    # each output is one input entry: the gradient counts the patches holding each entry
    f = lambda a: lax.conv_general_dilated_patches(a, (2, 2), (1, 1), "VALID").sum()  # noqa: E731
    counts = np.outer([1, 2, 2, 1], [1, 2, 1])
    assert_allclose(fa.grad(f)(x), np.broadcast_to(counts, (1, 2, 4, 3)).astype(x.dtype))
    with pytest.raises(ValueError, match="filter_shape"):
        lax.conv_general_dilated_patches(x, (2,), (1, 1), "VALID")


# ------------------------------------------------------------------------------------------
# general reduce
# ------------------------------------------------------------------------------------------

def _argmax_pair(np_mod):
    def larger(a, b):
        keep = a[0] >= b[0]
        return np_mod.where(keep, a[0], b[0]), np_mod.where(keep, a[1], b[1])
    return larger


def test_reduce_general_matches_jax():
    x = _x((3, 5))
    index = np.broadcast_to(np.arange(5, dtype=np.int32), (3, 5))
    inits = (np.float32(-np.inf), np.int32(0))
    want = jax.lax.reduce((x, index), inits, _argmax_pair(jnp), (1,))
    _same(lax.reduce((fnp.asarray(x), fnp.asarray(index)), inits, _argmax_pair(fnp), (1,)),
          want)
    _same(fa.jit(lambda a, i: lax.reduce((a, i), inits, _argmax_pair(fnp), (1,)))(
        fnp.asarray(x), fnp.asarray(index)), want)
    # an init that is not the identity is combined once, as XLA does
    for dims in ((0,), (0, 1), ()):
        want = jax.lax.reduce(x, np.float32(2.0), lambda a, b: a + b, dims)
        _same(lax.reduce(fnp.asarray(x), np.float32(2.0), lambda a, b: a + b, dims), want,
              rtol=1e-5)
        _same(fa.jit(lambda a, d=dims: lax.reduce(a, np.float32(2.0), lambda u, v: u + v, d))(
            fnp.asarray(x)), want, rtol=1e-5)
    # empty reduction: the init
    _same(lax.reduce(fnp.ones((0, 2)), np.float32(3.0), lambda a, b: a * b, (0,)),
          jax.lax.reduce(jnp.ones((0, 2), np.float32), np.float32(3.0), lambda a, b: a * b,
                         (0,)))


def test_reduce_monoids_route_to_reductions():
    x = fnp.asarray(_x((3, 4)))
    for fn, init, want in ((lax.add, 0.0, np.sum), (lax.max, -np.inf, np.max),
                           (lax.min, np.inf, np.min), (lax.mul, 1.0, np.prod)):
        out = lax.reduce(x, init, fn, (1,))
        assert_allclose(out, want(np.asarray(x), axis=1), rtol=1e-6)
        assert "reduce[" not in str(fa.make_ir(lambda a, f=fn, i=init: lax.reduce(
            a, i, f, (1,)))(x))
    assert lax.reduce(fnp.asarray([3, 5], fnp.int32), -1, lax.bitwise_and, (0,)) == 1
    assert lax.reduce(fnp.arange(4.0), 0.0, lax.add, (0,)).weak_type is False


def test_reduce_grad_vmap_and_jit():
    x = fnp.asarray(_x((3, 4)))

    def logsumexp_reduce(a):
        return lax.reduce(a, np.float32(-np.inf), fnp.logaddexp, (0,))

    # (jax's own gradient of a general reduce takes seconds to trace: softmax is the answer)
    e = np.exp(np.asarray(x, np.float64))
    want = (e / e.sum(0)).astype(np.float32)
    _same(fa.grad(lambda a: logsumexp_reduce(a).sum())(x), want, rtol=1e-5)
    _same(fa.jit(fa.grad(lambda a: logsumexp_reduce(a).sum()))(x), want, rtol=1e-5)
    # the init may have a tangent (JAX refuses)
    check_grads(lambda a, i: lax.reduce(a, i, lambda u, v: u * v, (1,)), (x[:2, :3], 1.5),
                order=1)
    batched = fa.vmap(logsumexp_reduce, in_axes=1)(x)
    assert_allclose(batched, [logsumexp_reduce(x[:, k]) for k in range(4)], rtol=1e-6)
    # batched init values: one reduction per member
    inits = fnp.asarray([1.0, 2.0], fnp.float32)
    got = fa.vmap(lambda i: lax.reduce(x, i, lambda u, v: u * v, (0,)))(inits)
    assert_allclose(got, [lax.reduce(x, i, lambda u, v: u * v, (0,)) for i in (1.0, 2.0)])


def test_reduce_errors():
    x = fnp.ones((2, 3))
    with pytest.raises(ValueError, match="same tree structure"):
        lax.reduce((x, x), 0.0, lambda a, b: a, (0,))
    with pytest.raises(ValueError, match="init values must be scalars"):
        lax.reduce(x, fnp.zeros(2), lambda a, b: a * b, (0,))
    with pytest.raises(TypeError, match="same dtype"):
        lax.reduce(x, fnp.int32(0), lambda a, b: a * b, (0,))
    with pytest.raises(ValueError, match="dimensions"):
        lax.reduce(x, 0.0, lambda a, b: a * b, (2,))
    with pytest.raises(TypeError, match="structure"):
        lax.reduce(x, 0.0, lambda a, b: (a, b), (0,))
    with pytest.raises(TypeError, match="scalars of the init types"):
        lax.reduce(x, 0.0, lambda a, b: fnp.stack([a, b]), (0,))
    with pytest.raises(NotImplementedError, match="closes over a traced value"):
        fa.jit(lambda a, c: lax.reduce(a, 0.0, lambda u, v: u + v * c, (0,)))(x, 2.0)


# ------------------------------------------------------------------------------------------
# general reduce_window
# ------------------------------------------------------------------------------------------

_WINDOW = dict(window_dimensions=(2, 3), window_strides=(1, 2), padding=((1, 0), (0, 2)),
               base_dilation=(1, 2), window_dilation=(2, 1))


@settings(max_examples=6, deadline=None)
@given(st.sampled_from(["mul", "sum_from_2", "argmax"]), st.integers(1, 3), st.integers(1, 2),
       st.integers(0, 1), st.integers(1, 2), st.integers(1, 2), st.integers(0, 2**31))
def test_reduce_window_general_matches_jax(kind, window, stride, pad, base, wdil, seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(4, 5)).astype(np.float32)
    kw = dict(window_dimensions=(window, 2), window_strides=(stride, 1),
              padding=((pad, 1), (0, pad)), base_dilation=(base, 1), window_dilation=(1, wdil))
    if kind == "argmax":
        index = np.arange(20, dtype=np.int32).reshape(4, 5)
        inits = (np.float32(-np.inf), np.int32(-1))
        want = jax.lax.reduce_window((x, index), inits, _argmax_pair(jnp), **kw)
        args, fn = (fnp.asarray(x), fnp.asarray(index)), _argmax_pair(fnp)
    else:
        init = np.float32(1.0 if kind == "mul" else 2.0)
        jfn, fn = (jax.lax.mul, lax.mul) if kind == "mul" else (jax.lax.add, lax.add)
        want = jax.lax.reduce_window(x, init, jfn, **kw)
        args, inits = fnp.asarray(x), init
    _same(lax.reduce_window(args, inits, fn, **kw), want, rtol=1e-5)
    _same(fa.jit(lambda a: lax.reduce_window(a, inits, fn, **kw))(args), want, rtol=1e-5)


def test_reduce_window_general_grad_vmap():
    x = fnp.asarray(_x((4, 5)))

    def f(a):
        return lax.reduce_window(a, 1.0, lambda u, v: u * v, (2, 2), (1, 1), "SAME")

    def jf(a):
        return jax.lax.reduce_window(a, np.float32(1.0), lambda u, v: u * v, (2, 2), (1, 1),
                                     "SAME")

    direction = _x((4, 5))
    want = jax.jvp(jf, (np.asarray(x),), (direction,))[1]
    _same(fa.jvp(f, (x,), (fnp.asarray(direction),))[1], want, rtol=1e-5)
    check_grads(f, (x,), order=1)
    # reverse mode (JAX has none for a general reduce_window), jitted
    cotangent = _x((4, 5))
    grad = fa.jit(fa.grad(lambda a: (f(a) * cotangent).sum()))(x)
    assert_allclose((np.asarray(grad) * direction).sum(), (np.asarray(want) * cotangent).sum(),
                    rtol=1e-4)
    assert_allclose(fa.vmap(f, in_axes=1, out_axes=1)(x[None].repeat(2, 0).transpose(1, 0, 2)),
                    np.stack([np.asarray(f(x))] * 2, 1))
    inits = fnp.asarray([1.0, 2.0], fnp.float32)
    got = fa.vmap(lambda i: lax.reduce_window(x, i, lax.mul, (2, 2), (1, 1), "VALID"))(inits)
    assert_allclose(got, [lax.reduce_window(x, i, lax.mul, (2, 2), (1, 1), "VALID")
                          for i in (1.0, 2.0)])


def test_degenerate_reductions_follow_xla():
    # With an init that is not the identity XLA's results depend on its simplifier: one
    # element per output comes back without the init, windows of one tap combine it.
    x = np.arange(1.0, 7.0, dtype=np.float32).reshape(2, 3)
    two = np.float32(2.0)
    cases = [lambda m, a: m.reduce_window(a, two, m.mul, (1, 1)),
             lambda m, a: m.reduce_window(a[0, 0], two, m.mul, ()),
             lambda m, a: m.reduce(a[:1], two, m.mul, (0,)),
             lambda m, a: m.reduce(a, two, m.mul, ())]
    wants = [f(jax.lax, x) for f in cases]
    for f, want in zip(cases, wants):
        _same(f(lax, fnp.asarray(x)), want)
    _same(fa.jit(lambda a: [f(lax, a) for f in cases])(fnp.asarray(x)), wants)


def test_reduce_window_shape_tuple_and_errors():
    args = ((4, 6), (2, 3), (1, 2), ((1, 0), (0, 2)), (1, 2), (2, 1))
    assert lax.reduce_window_shape_tuple(*args) == tuple(
        int(d) for d in jax.lax.reduce_window_shape_tuple(*args))
    x = fnp.ones((3, 3))
    with pytest.raises(ValueError, match="same tree structure"):
        lax.reduce_window((x, x), 0.0, lax.add, (2, 2))
    with pytest.raises(ValueError, match="window_dimensions"):
        lax.reduce_window(x, 1.0, lax.mul, (2,))
    with pytest.raises(TypeError, match="structure"):
        lax.reduce_window(x, 1.0, lambda a, b: (a, b), (2, 2))
