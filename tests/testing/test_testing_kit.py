"""funcarray.testing: the strategies draw every promised dtype and shape family and shrink; the
checkers pass on correct rules and catch deliberately wrong gradients, transposes, batching
rules and lowerings, with messages that show the input, both results and the largest
difference."""

import ml_dtypes
import numpy as np
import pytest
from hypothesis import find, given
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument, NoSuchExample

import funcarray as fa
import funcarray.numpy as fnp
import funcarray.random as fr
import funcarray.testing as ft
from funcarray import dtypes
from funcarray.lowering.stablehlo import elementwise_lowering
from funcarray.primitives._define import elementwise_abstract_eval
from funcarray.transforms.core import Primitive
from funcarray.transforms.jvp import deflinear
from funcarray.transforms.vmap import vectorized_batch_rule

ALL = (dtypes.bool_, dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64, dtypes.uint8,
       dtypes.uint16, dtypes.uint32, dtypes.uint64, dtypes.float16, dtypes.bfloat16,
       dtypes.float32, dtypes.float64, dtypes.complex64, dtypes.complex128)
FAMILIES = {
    "floating": {dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64},
    "integer": {dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64, dtypes.uint8,
                dtypes.uint16, dtypes.uint32, dtypes.uint64},
    "complex": {dtypes.complex64, dtypes.complex128},
    "bool": {dtypes.bool_},
    "all": set(ALL),
}


def f64(*shape, seed=0):
    return fnp.asarray(np.random.default_rng(seed).normal(size=shape))


# --------------------------------------------------------------------------------------------
# Strategies
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_dtype_families_generate_exactly_their_dtypes(family):
    strategy = ft.dtypes(family)
    for dtype in FAMILIES[family]:
        assert find(strategy, lambda d, dtype=dtype: d == dtype) == dtype
    with pytest.raises(NoSuchExample):
        find(strategy, lambda d: d not in FAMILIES[family])
    if family in ("floating", "all"):
        assert find(strategy, lambda d: True) == dtypes.float32  # shrinks to the default


def test_dtypes_rejects_unknown_family():
    with pytest.raises(InvalidArgument, match="unknown family"):
        ft.dtypes("floats")


@pytest.mark.parametrize("dtype", ALL + dtypes.float8_types[:2], ids=str)
def test_arrays_of_every_dtype_are_funcarray_arrays(dtype):
    x = find(ft.arrays(dtype, (2, 3)), lambda x: bool(np.asarray(x != 0).any()))
    assert isinstance(x, fa.Array)
    assert (x.dtype, x.shape) == (dtype, (2, 3))
    if dtypes.is_inexact(dtype):
        assert np.isfinite(np.asarray(x).astype(np.complex128)).all()


@given(ft.arrays(ft.dtypes("all"), ft.array_shapes(max_dims=3)))
def test_arrays_from_strategies_are_finite_and_well_typed(x):
    assert isinstance(x, fa.Array) and x.dtype in FAMILIES["all"]
    assert x.ndim <= 3
    if dtypes.is_inexact(x.dtype):
        value = np.asarray(x).astype(np.complex128)
        assert np.isfinite(value).all()
        small = np.abs(value[value != 0]) if value.size else np.array([])
        assert (small >= float(dtypes.finfo(x.dtype).smallest_normal)).all()  # no subnormals


def test_bfloat16_arrays_hold_non_integer_values_and_honour_bounds():
    x = find(ft.arrays("bfloat16", 4, elements={"min_value": 0.3, "max_value": 0.7}),
             lambda x: len(set(np.asarray(x).astype(float).tolist())) >= 3)
    values = np.asarray(x).astype(np.float64)
    assert ((values >= 0.3) & (values <= 0.7)).all()
    assert not np.all(values == np.round(values))


@given(st.data())
def test_finite_floats_are_representable_finite_and_in_bounds(data):
    dtype = data.draw(ft.dtypes("floating") | st.sampled_from(dtypes.float8_types[:2]))
    lo = data.draw(st.floats(-10, 0))
    value = data.draw(ft.finite_floats(dtype, min_value=lo, max_value=lo + 10))
    assert np.isfinite(value) and lo <= value <= lo + 10
    assert float(np.asarray(value).astype(dtype)) == value  # exactly representable


@given(ft.finite_floats(ft.dtypes("complex")),
       ft.finite_floats("complex64", min_value=-1.5, max_value=0.25))
def test_finite_floats_of_complex_dtypes_are_complex(value, bounded):
    assert isinstance(value, complex) and np.isfinite(value)
    assert -1.5 <= bounded.real <= 0.25 and -1.5 <= bounded.imag <= 0.25
    assert complex(np.complex64(bounded)) == bounded


def test_finite_floats_rejects_integer_dtypes():
    with pytest.raises(InvalidArgument, match="not a floating-point dtype"):
        ft.finite_floats("int32")


@given(ft.array_shapes(min_dims=1, max_dims=4, min_side=0, max_side=3))
def test_array_shapes_respect_their_bounds(shape):
    assert 1 <= len(shape) <= 4 and all(0 <= s <= 3 for s in shape)


def test_array_shapes_cover_zero_d_and_high_rank_and_empty():
    assert find(ft.array_shapes(), lambda s: True) == ()
    assert len(find(ft.array_shapes(max_dims=4), lambda s: len(s) == 4)) == 4
    assert 0 in find(ft.array_shapes(min_side=0), lambda s: 0 in s)


@given(st.data())
def test_broadcastable_shapes_broadcast(data):
    base = data.draw(ft.array_shapes(max_dims=3))
    shape = data.draw(ft.broadcastable_shapes(base))
    result = np.broadcast_shapes(base, shape)  # raises if they do not broadcast
    tail = result[len(result) - len(base):]
    # A size-1 dimension of base may grow; every other one is kept.
    assert all(r == b for r, b in zip(tail, base) if b != 1), (base, shape, result)
    other = data.draw(ft.broadcastable_shapes(ft.array_shapes(max_dims=2)))
    assert isinstance(other, tuple)


@given(ft.mutually_broadcastable_shapes(3, base_shape=ft.array_shapes(max_dims=2)))
def test_mutually_broadcastable_shapes_broadcast_together(shapes):
    assert np.broadcast_shapes(*shapes.input_shapes, shapes.result_shape) == \
        shapes.result_shape
    xs = [fnp.ones(s) for s in shapes.input_shapes]
    total = xs[0] + xs[1] + xs[2]
    assert np.broadcast_shapes(total.shape, shapes.result_shape) == shapes.result_shape


@given(ft.pytrees(ft.arrays("float64", ft.array_shapes(max_dims=1))))
def test_pytrees_have_the_requested_leaves(tree):
    for leaf in fa.tree.leaves(tree):
        assert isinstance(leaf, fa.Array) and leaf.dtype == dtypes.float64


def test_pytrees_nest_and_shrink_to_a_leaf():
    assert isinstance(find(ft.pytrees(), lambda t: len(fa.tree.leaves(t)) == 1), fa.Array)
    nested = find(ft.pytrees(st.integers()), lambda t: isinstance(t, dict) and any(
        isinstance(v, (list, tuple)) and v for v in t.values()))
    assert isinstance(nested, dict)


@given(ft.keys(), ft.keys(shape=ft.array_shapes(max_dims=1, max_side=3)))
def test_keys_are_usable_random_keys(key, batch):
    assert (key.dtype, key.shape) == (dtypes.uint32, (2,))
    assert batch.shape[-1] == 2 and batch.dtype == dtypes.uint32
    assert fr.uniform(key, (2,)).shape == (2,)


@given(st.data())
def test_axes_are_valid(data):
    ndim = data.draw(st.integers(1, 4))
    axis = data.draw(ft.axes(ndim))
    assert -ndim <= axis < ndim
    assert 0 <= data.draw(ft.axes(ndim, allow_negative=False)) < ndim
    many = data.draw(ft.axes(ndim, multiple=True, min_size=1))
    assert 1 <= len(many) and len({a % ndim for a in many}) == len(many)
    x = fnp.ones((2,) * ndim)
    assert x.sum(axis=many).ndim == ndim - len(many)


def test_axes_of_a_scalar_need_multiple():
    with pytest.raises(InvalidArgument, match="no axis"):
        ft.axes(0)
    assert find(ft.axes(0, multiple=True), lambda t: True) == ()


def test_failing_property_shrinks_to_small_shape_and_simple_values():
    x = find(ft.arrays(ft.dtypes("floating"), ft.array_shapes()),
             lambda x: x.size >= 2 and float(np.abs(np.asarray(x, np.float64)).max()) > 1)
    assert x.shape == (2,) and x.dtype == dtypes.float32
    assert set(np.abs(np.asarray(x)).tolist()) <= {0.0, 2.0}  # the simplest float above 1


# --------------------------------------------------------------------------------------------
# Faulty rules the checkers must catch
# --------------------------------------------------------------------------------------------

def make_sin(jvp_factor=1.0, *, second_order_ok=True):
    """sin with a custom_jvp; jvp_factor != 1 gives a wrong first derivative, and
    second_order_ok=False a right first derivative whose own derivative is wrong."""
    @fa.custom_jvp
    def f(x):
        return fnp.sin(x)

    @f.defjvp
    def _jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        point = x if second_order_ok else fa.stop_gradient(x)
        return f(x), jvp_factor * fnp.cos(point) * t

    return f


def make_vjp_fn(bwd_factor=1.0):
    """f(x, y) = sin(x) * y with a custom_vjp; bwd_factor != 1 scales x's cotangent."""
    @fa.custom_vjp
    def f(x, y):
        return fnp.sin(x) * y

    def fwd(x, y):
        return f(x, y), (x, y)

    def bwd(res, g):
        x, y = res
        return bwd_factor * fnp.cos(x) * y * g, fnp.sin(x) * g

    f.defvjp(fwd, bwd)
    return f


def make_scale_primitive(transpose_factor):
    """x -> 2 x, linear, with a transpose rule that multiplies by ``transpose_factor``."""
    prim = Primitive(f"test_scale_by_2_t{transpose_factor}")
    prim.def_impl(lambda x: fa.Array(2 * x._value, x._weak))
    prim.def_abstract_eval(elementwise_abstract_eval(prim.name))
    deflinear(prim)
    prim.def_transpose(lambda ct, x: [ct * transpose_factor])
    prim.def_batch(vectorized_batch_rule(prim))
    return prim


def make_sin_primitive(*, reverse_batch=False, lower_as="stablehlo.sine"):
    """An eager sin whose batch rule may reverse the batch, and whose lowering may compute
    another function."""
    prim = Primitive(f"test_sin_{reverse_batch}_{lower_as}")
    prim.def_impl(lambda x: fa.Array(np.sin(x._value), x._weak))
    prim.def_abstract_eval(elementwise_abstract_eval(prim.name))
    prim.def_lower(elementwise_lowering(lower_as))
    if reverse_batch:
        @prim.def_batch
        def _batch(vals, dims):
            x = fnp.moveaxis(vals[0], dims[0], 0)
            return prim.bind(x[::-1]), 0
    else:
        prim.def_batch(vectorized_batch_rule(prim))
    return prim


def _assert_full_report(message, first, second):
    for part in ("input", first, second, "largest difference", "at index"):
        assert part in message, f"{part!r} missing from:\n{message}"


# --------------------------------------------------------------------------------------------
# check_grads, check_jvp_vjp
# --------------------------------------------------------------------------------------------

def test_check_grads_passes_on_correct_rules_and_pytrees():
    ft.check_grads(make_sin(), (f64(3),))
    ft.check_grads(make_vjp_fn(), (f64(3), f64(3, seed=1)), modes=("rev",))
    ft.check_grads(lambda d, n: {"y": fnp.tanh(d["w"]) * d["b"] ** n, "n": n},
                   ({"w": f64(2, 2), "b": f64(2, seed=2)}, 2), order=2)
    ft.check_grads(lambda x: x * x, (fnp.ones(3, dtype="float32"),), upcast=False)


def test_check_grads_upcasts_float32_arguments_for_tight_tolerances():
    # 1 % off: invisible to float32 finite differences, caught by the float64 check.
    with pytest.raises(AssertionError, match="jvp differs"):
        ft.check_grads(make_sin(1.01), (fnp.ones(3, dtype="float32"),), order=1)
    ft.check_grads(make_sin(1.01), (fnp.ones(3, dtype="float32"),), order=1, upcast=False)


def test_check_grads_catches_a_wrong_custom_jvp():
    with pytest.raises(AssertionError) as info:
        ft.check_grads(make_sin(3.0), (f64(3),), order=1, modes=("fwd",))
    message = str(info.value)
    assert "jvp differs from central finite differences" in message
    _assert_full_report(message, "jvp", "finite differences")


def test_check_grads_catches_a_wrong_custom_vjp():
    with pytest.raises(AssertionError) as info:
        ft.check_grads(make_vjp_fn(10.0), (f64(3), f64(3, seed=1)), modes=("rev",))
    message = str(info.value)
    assert "vjp disagrees with central finite differences" in message
    _assert_full_report(message, "<vjp(u), v>", "<u, finite-difference J v>")


def test_check_grads_order_two_catches_a_wrong_second_derivative():
    f = make_sin(second_order_ok=False)
    ft.check_grads(f, (f64(3),), order=1)
    with pytest.raises(AssertionError, match="of the (jvp|vjp)"):
        ft.check_grads(f, (f64(3),), order=2)


def test_check_grads_argument_errors():
    with pytest.raises(ValueError, match="no floating-point argument"):
        ft.check_grads(lambda i: i * 2, (fnp.arange(3),))
    with pytest.raises(ValueError, match="modes"):
        ft.check_grads(fnp.sin, (f64(2),), modes=("backward",))


def test_check_jvp_vjp_catches_a_wrong_transpose_rule():
    ft.check_jvp_vjp(make_scale_primitive(2.0).bind, (f64(4),))
    wrong = make_scale_primitive(3.0)
    with pytest.raises(AssertionError) as info:
        ft.check_jvp_vjp(wrong.bind, (fnp.ones(4, dtype="float32"),))
    _assert_full_report(str(info.value), "<u, J v>", "<J^T u, v>")
    with pytest.raises(AssertionError, match="vjp disagrees"):
        ft.check_grads(wrong.bind, (f64(4),), order=1)


# --------------------------------------------------------------------------------------------
# check_vmap, check_jit, check_transforms
# --------------------------------------------------------------------------------------------

def test_check_vmap_catches_a_wrong_batch_rule():
    xs = f64(4, 3)
    ft.check_vmap(make_sin_primitive().bind, (xs,))
    wrong = make_sin_primitive(reverse_batch=True)
    with pytest.raises(AssertionError) as info:
        ft.check_vmap(wrong.bind, (xs,))
    message = str(info.value)
    assert "differs from a Python loop over the 4 batch members" in message
    _assert_full_report(message, "vmap", "loop")


def test_check_vmap_with_pytrees_and_axes():
    tree = {"a": f64(3, 2), "b": f64(2, 3, seed=1)}
    ft.check_vmap(lambda t, y: t["a"] * y, ({"a": tree["a"]}, f64(2)), in_axes=(0, None))
    ft.check_vmap(lambda x: fnp.sum(x), (tree["b"],), in_axes=-1, out_axes=0)
    with pytest.raises(ValueError, match="one size"):
        ft.check_vmap(lambda x, y: x + y, (f64(2), f64(3)))


def test_check_jit_catches_a_lowering_that_differs_from_eager():
    x = fnp.linspace(0.1, 1.0, 5)
    ft.check_jit(make_sin_primitive().bind, (x,))
    wrong = make_sin_primitive(lower_as="stablehlo.cosine")
    with pytest.raises(AssertionError) as info:
        ft.check_jit(wrong.bind, (x,))
    _assert_full_report(str(info.value), "jit", "eager")


def test_check_jit_compares_dtypes():
    ft.check_jit(lambda x, n: x * n, (fnp.ones(3), 2), static_argnums=(1,))
    with pytest.raises(AssertionError, match="dtypes differ"):
        ft.assert_allclose(fnp.ones(2), np.ones(2))


def test_check_transforms_runs_every_check():
    ft.check_transforms(lambda x, y: {"s": fnp.sum(fnp.sin(x) * y), "p": x * y},
                        (f64(3), f64(3, seed=1)))
    ft.check_transforms(make_vjp_fn(), (f64(3), f64(3, seed=1)), modes=("rev",), order=1)
    with pytest.raises(AssertionError, match="check_vmap"):
        ft.check_transforms(make_sin_primitive(reverse_batch=True).bind, (f64(3),))
    with pytest.raises(AssertionError, match="check_jit"):
        ft.check_transforms(make_sin_primitive(lower_as="stablehlo.cosine").bind, (f64(3),))
    with pytest.raises(AssertionError, match="check_grads"):
        ft.check_transforms(make_sin(3.0), (f64(3),))


# --------------------------------------------------------------------------------------------
# assert_allclose, assert_trees_allclose, count_compiles
# --------------------------------------------------------------------------------------------

def test_assert_allclose_tolerance_follows_the_expected_dtype():
    x = np.array([1.0, 2.0, 3.0])
    x32 = x.astype(np.float32)
    ft.assert_allclose(fnp.asarray(x32), x32 * (1 + 1e-6))  # float32 noise, float32 tolerance
    with pytest.raises(AssertionError, match=r"largest difference 1e-06 at index \(0,\)"):
        ft.assert_allclose(fnp.asarray(x), x + np.array([1e-6, 0, 0]))
    # A float64 result off by 5e-5 fails against a float64 oracle (float32's tolerance would
    # have let it through).
    with pytest.raises(AssertionError, match="rtol=1e-09"):
        ft.assert_allclose(fnp.asarray(x * (1 + 5e-5)), x)
    # With the dtype check off, the expected side still decides the tolerance.
    ft.assert_allclose(fnp.asarray(x * (1 + 1e-6)), x32, check_dtype=False)
    with pytest.raises(AssertionError, match="elements differ"):
        ft.assert_allclose(fnp.asarray(x32), x * (1 + 1e-6), check_dtype=False)
    # A Python list states no dtype: the actual value's decides.
    ft.assert_allclose(fnp.asarray(x32), (x * (1 + 1e-6)).tolist())
    with pytest.raises(AssertionError, match="elements differ"):
        ft.assert_allclose(fnp.asarray(x), (x * (1 + 1e-6)).tolist())
    ft.assert_allclose(fnp.asarray(x), (x * (1 + 1e-6)).tolist(), rtol=2e-6)  # explicit wins
    bf16 = fnp.asarray(x.astype(ml_dtypes.bfloat16))
    ft.assert_allclose(bf16, (x * 1.01).astype(ml_dtypes.bfloat16))
    with pytest.raises(AssertionError, match="elements differ"):
        ft.assert_allclose(fnp.arange(3), [0, 1, 3])  # ints compare exactly
    ft.assert_allclose(fnp.asarray([np.nan, 1.0]), [np.nan, 1.0])
    with pytest.raises(AssertionError, match="shapes differ"):
        ft.assert_allclose(fnp.ones(2), fnp.ones(3))
    ft.assert_allclose(fnp.asarray(np.array([2**63], np.uint64)), np.array([2**63], np.uint64))


def test_assert_allclose_checks_dtypes_stated_on_both_sides():
    import jax.numpy as jnp
    with pytest.raises(AssertionError, match=r"dtypes differ: actual float32 vs expected "
                                             r"float64 \(cast .* check_dtype=False"):
        ft.assert_allclose(fnp.ones(2), np.ones(2))
    with pytest.raises(AssertionError, match="dtypes differ: actual int32 vs expected int64"):
        ft.assert_allclose(fnp.arange(2), jnp.arange(2, dtype=jnp.int64))
    with pytest.raises(AssertionError, match="dtypes differ: actual float32 vs expected float16"):
        ft.assert_allclose(fnp.ones(()), np.float16(1))  # a NumPy scalar states its dtype
    with pytest.raises(AssertionError, match="dtypes differ"):
        ft.assert_allclose(fnp.ones(2), [np.float64(1), np.float64(1)])  # so does a list of them
    ft.assert_allclose(fnp.ones(2), np.ones(2, np.float32))
    ft.assert_allclose(fnp.ones(2), [1, 1])  # Python numbers: values only
    ft.assert_allclose(fnp.ones(()), 1.0)
    ft.assert_allclose(1.0, np.float32(1))  # a Python result: values only too
    ft.assert_allclose(fnp.ones(2), np.ones(2), check_dtype=False)


def test_assert_allclose_checks_weak_types_where_both_sides_carry_them():
    import jax
    import jax.numpy as jnp
    weak, strong = fnp.full(2, 2.0), fnp.ones(2) * 2  # the same values and dtype
    assert (weak.weak_type, strong.weak_type) == (True, False)
    with pytest.raises(AssertionError, match=r"weak types differ: actual float32 weak_type=True "
                                             r"vs expected float32 weak_type=False \(.*"
                                             r"check_weak_type=False"):
        ft.assert_allclose(weak, strong)
    with jax.enable_x64(False):
        jax_weak = jnp.full(2, 2.0)  # float32, weak: jax arrays carry the flag too
    with pytest.raises(AssertionError, match="weak types differ"):
        ft.assert_allclose(strong, jax_weak)
    ft.assert_allclose(weak, jax_weak)
    ft.assert_allclose(weak, np.full(2, 2.0, np.float32))  # NumPy values carry none
    ft.assert_allclose(weak, strong, check_weak_type=False)
    ft.assert_allclose(weak, strong, check_dtype=False)  # no type checks at all
    with pytest.raises(AssertionError, match=r"leaf \['b'\]: weak types differ"):
        ft.assert_trees_allclose({"a": strong, "b": strong}, {"a": strong, "b": weak})


def test_assert_trees_allclose_names_the_leaf():
    ours = {"a": fnp.ones(2), "b": (fnp.zeros((2, 2)), fnp.ones(1))}
    f32 = np.float32
    b = (np.zeros((2, 2), f32), np.ones(1, f32))
    ft.assert_trees_allclose(ours, {"a": np.ones(2, f32), "b": b})
    ft.assert_trees_allclose({"s": fnp.ones(())}, {"s": 1.0})  # a Python leaf: values only
    with pytest.raises(AssertionError, match=r"leaf \['b'\]\[0\].*index \(1, 0\)"):
        ft.assert_trees_allclose(
            ours, {"a": np.ones(2, f32), "b": (np.array([[0, 0], [5, 0]], f32), np.ones(1, f32))})
    with pytest.raises(AssertionError, match="tree structures differ"):
        ft.assert_trees_allclose(ours, {"a": np.ones(2)})
    with pytest.raises(AssertionError, match=r"leaf \['a'\]: dtypes differ: actual float32 vs "
                                             r"expected float64 \(cast"):
        ft.assert_trees_allclose(ours, {"a": np.ones(2), "b": b})


def test_count_compiles_bounds_compilations():
    f = fa.jit(lambda x: fnp.sinh(x) * 5.375 + 0.625)
    with ft.count_compiles(at_most=1) as counter:
        for _ in range(3):
            f(fnp.ones(11))
    assert counter.count == 1
    with pytest.raises(AssertionError, match="compiled 2 executables, expected at most 1"):
        with ft.count_compiles(at_most=1):
            f(fnp.ones(12))
            f(fnp.ones(13))
    with ft.count_compiles() as counter:
        f(fnp.ones(11))
    assert counter.count == 0
