"""The public transforms' API: argument handling, pytrees, errors, composition; against jax."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import funcarray as fa
import funcarray.numpy as fnp
from funcarray.api.arguments import is_array
from funcarray.base.array import DeviceArray
from funcarray.testing import assert_allclose, assert_trees_allclose, check_vmap
from funcarray.transforms.core import Tracer


def mlp_loss(lib, params, x, y):
    w1, b1, w2 = params["w1"], params["b1"], params["w2"]
    h = lib.tanh(x @ w1 + b1)
    return lib.mean((h @ w2 - y) ** 2)


def _params(rng, dtype=np.float64):
    return {"w1": rng.standard_normal((3, 4)).astype(dtype),
            "b1": rng.standard_normal(4).astype(dtype),
            "w2": rng.standard_normal((4, 2)).astype(dtype)}


def _to(lib_asarray, tree):
    return fa.tree.map(lib_asarray, tree)


def test_grad_of_mlp_loss_matches_jax():
    rng = np.random.default_rng(0)
    params = _params(rng)
    x, y = rng.standard_normal((5, 3)), rng.standard_normal((5, 2))
    ours = fa.grad(lambda p: mlp_loss(fnp, p, fnp.asarray(x), fnp.asarray(y)))(
        _to(fnp.asarray, params))
    theirs = jax.grad(lambda p: mlp_loss(jnp, p, jnp.asarray(x), jnp.asarray(y)))(
        _to(jnp.asarray, params))
    assert_trees_allclose(ours, fa.tree.map(np.asarray, dict(theirs)))


def test_per_example_gradients_vmap_of_grad_matches_jax():
    rng = np.random.default_rng(1)
    params = _params(rng)
    x, y = rng.standard_normal((6, 3)), rng.standard_normal((6, 2))

    def loss_one(lib):
        return lambda p, xi, yi: mlp_loss(lib, p, xi[None], yi[None])

    ours = fa.vmap(fa.grad(loss_one(fnp)), in_axes=(None, 0, 0))(
        _to(fnp.asarray, params), fnp.asarray(x), fnp.asarray(y))
    theirs = jax.vmap(jax.grad(loss_one(jnp)), in_axes=(None, 0, 0))(
        _to(jnp.asarray, params), jnp.asarray(x), jnp.asarray(y))
    assert_trees_allclose(ours, fa.tree.map(np.asarray, dict(theirs)))


def test_value_and_grad_argnums_and_has_aux():
    def f(a, b, c):
        return (a * b).sum() + c, {"aux": a * 2}

    a, b = fnp.asarray(np.arange(3.0)), fnp.asarray(np.ones(3))
    (value, aux), (ga, gc) = fa.value_and_grad(f, argnums=(0, 2), has_aux=True)(a, b, 1.0)
    assert_allclose(value, 4.0)
    assert_allclose(aux["aux"], [0.0, 2.0, 4.0])
    assert_allclose(ga, [1.0, 1.0, 1.0])
    assert_allclose(gc, 1.0)


def test_aux_outputs_that_are_not_arrays_come_back_unchanged_as_in_jax():
    def f(lib):
        return lambda x: (x ** 2, {"label": "step", "count": 3, "double": x * 2})

    transforms = [
        lambda m, f: m.grad(f, has_aux=True)(2.0)[1],
        lambda m, f: m.value_and_grad(f, has_aux=True)(2.0)[0][1],
        lambda m, f: m.jvp(f, (2.0,), (1.0,), has_aux=True)[2],
        lambda m, f: m.vjp(f, 2.0, has_aux=True)[2],
        lambda m, f: m.linearize(f, 2.0, has_aux=True)[2],
        lambda m, f: m.jacrev(f, has_aux=True)(2.0)[1],
    ]  # (jax's jacfwd refuses them: its aux goes through vmap's outputs)
    for transform in transforms:
        got, want = transform(fa, f(fnp)), transform(jax, f(jnp))
        assert (got["label"], got["count"]) == (want["label"], want["count"]) == ("step", 3)
        np.testing.assert_allclose(np.asarray(got["double"]), np.asarray(want["double"]))
    # Under jit a number becomes an array, and a string is refused, as jit's outputs are.
    aux = fa.jit(fa.grad(lambda x: (x ** 2, {"count": 3}), has_aux=True))(2.0)[1]
    assert is_array(aux["count"]) and int(aux["count"]) == 3
    with pytest.raises(TypeError, match="returned a str"):
        fa.jit(fa.grad(lambda x: (x ** 2, "step"), has_aux=True))(2.0)


def test_grad_errors_are_clear():
    with pytest.raises(TypeError, match=r"scalar output.*shape \(3,\)"):
        fa.grad(lambda x: x * 2)(fnp.ones(3))
    with pytest.raises(TypeError, match="real- or complex-valued inputs.*int32"):
        fa.grad(lambda x: (x * 2).sum())(fnp.arange(3))
    with pytest.raises(ValueError, match="argnums"):
        fa.grad(lambda x: x.sum(), argnums=3)(fnp.ones(3))


@pytest.mark.parametrize("call", [
    lambda grad: grad(lambda x: x * 2.0)(3),
    lambda grad: grad(lambda p: p[0] * p[1])((2.0, 3)),
    lambda grad: grad(lambda w, n: (w * n).sum(), argnums=1)(np.ones(2), 4),
    lambda grad: grad(lambda b: b * 2.0)(True),
])
def test_grad_refuses_python_int_inputs_like_jax(call):
    """A Python int (or bool) is an integer input: no gradient, as in JAX (it used to get a
    silent zero, although d(2x)/dx at x=3 is 2)."""
    with pytest.raises(TypeError, match="real- or complex-valued inputs"):
        call(fa.grad)
    with pytest.raises(TypeError, match="real- or complex-valued inputs"):
        call(jax.grad)
    assert float(fa.grad(lambda x: x * 2.0)(3.0)) == 2.0


def test_grad_runs_eagerly_with_python_control_flow():
    seen = []

    def f(x):
        if float(x.sum()) > 0:  # concrete primal values under grad
            seen.append(float(x.sum()))
            return (x * x).sum()
        return x.sum()

    g = fa.grad(f)(fnp.asarray(np.array([1.0, 2.0])))
    assert seen == [3.0]
    assert_allclose(g, [2.0, 4.0])


def test_jvp_and_linearize_agree_with_jax():
    x = np.array([0.3, -1.2, 2.0])
    v = np.array([1.0, 0.5, -2.0])
    out, tangent = fa.jvp(lambda x: fnp.sin(x) * fnp.exp(x), (fnp.asarray(x),),
                          (fnp.asarray(v),))
    j_out, j_tangent = jax.jvp(lambda x: jnp.sin(x) * jnp.exp(x), (x,), (v,))
    assert_allclose(out, j_out)
    assert_allclose(tangent, j_tangent)
    _, f_jvp = fa.linearize(lambda x: fnp.sin(x) * fnp.exp(x), fnp.asarray(x))
    assert_allclose(f_jvp(fnp.asarray(v)), j_tangent)
    # has_aux: the aux output is returned, not linearised
    def with_aux(xp):
        return lambda x: ({"y": xp.sin(x) * xp.exp(x)}, [xp.cos(x), 2 * x])
    out, f_jvp, aux = fa.linearize(with_aux(fnp), fnp.asarray(x), has_aux=True)
    j_out, j_f_jvp, j_aux = jax.linearize(with_aux(jnp), x, has_aux=True)
    fa.tree.map(assert_allclose, (out, f_jvp(fnp.asarray(v)), aux),
                (j_out, j_f_jvp(v), j_aux))


def test_jvp_rejects_mismatched_tangent():
    with pytest.raises(TypeError, match="tangent 0 has shape/dtype"):
        fa.jvp(fnp.sin, (fnp.ones(3),), (fnp.ones(2),))


def test_jacobians_and_hessian_match_jax():
    x = np.array([0.5, -0.7, 1.3])

    def f(lib):
        return lambda x: lib.sin(x) * x[::-1]

    for ours, theirs in ((fa.jacfwd, jax.jacfwd), (fa.jacrev, jax.jacrev)):
        assert_allclose(ours(f(fnp))(fnp.asarray(x)), theirs(f(jnp))(x))

    def scalar(lib):
        return lambda x: (lib.sin(x) * x * x).sum()
    assert_allclose(fa.hessian(scalar(fnp))(fnp.asarray(x)), jax.hessian(scalar(jnp))(x))


@pytest.mark.parametrize("name", ["grad", "jacfwd", "jacrev", "hessian"])
def test_derivatives_of_weak_scalars_stay_weak_like_jax(name):
    f = lambda x: x * x * 3.0  # noqa: E731
    for x in (2.0, np.float32(2.0), fnp.array(2.0)):
        got = getattr(fa, name)(f)(x)
        want = getattr(jax, name)(f)(jnp.array(2.0) if is_array(x) else x)
        # (the oracle runs with 64-bit floats enabled: a Python float is float64 there)
        assert got.weak_type == want.weak_type, x
        assert got.dtype == np.float32 and float(got) == float(want)


def test_jacfwd_runs_the_function_once():
    calls = []

    def f(x):
        calls.append(None)
        return fnp.sin(x) * x, x.sum()

    jac, aux = fa.jacfwd(f, has_aux=True)(fnp.arange(3.0))
    assert len(calls) == 1
    want, want_aux = jax.jacfwd(lambda x: (jnp.sin(x) * x, x.sum()), has_aux=True)(
        np.arange(3.0, dtype=np.float32))
    assert_allclose(jac, want)
    assert_allclose(aux, want_aux)


def test_jacobian_pytree_structure_matches_jax():
    x = {"a": np.array([1.0, 2.0]), "b": np.array(3.0)}

    def f(lib):
        return lambda p: (p["a"] * p["b"], lib.sin(p["b"]))

    ours = fa.jacrev(f(fnp))(fa.tree.map(fnp.asarray, x))
    theirs = jax.jacrev(f(jnp))(x)
    assert_trees_allclose(ours, fa.tree.map(np.asarray, theirs))


def test_hessian_vector_product_forward_over_reverse():
    x = np.array([0.1, 0.2, 0.3])
    v = np.array([1.0, -1.0, 0.5])

    def f(lib):
        return lambda x: (lib.exp(x) * x).sum()

    hvp = fa.jvp(fa.grad(f(fnp)), (fnp.asarray(x),), (fnp.asarray(v),))[1]
    expected = jax.jvp(jax.grad(f(jnp)), (x,), (v,))[1]
    assert_allclose(hvp, expected)


def test_grad_of_grad():
    x = fnp.asarray(np.array(0.7))
    d2 = fa.grad(fa.grad(lambda x: fnp.sin(x) * x))(x)
    assert_allclose(d2, jax.grad(jax.grad(lambda x: jnp.sin(x) * x))(np.array(0.7)))


def test_stop_gradient():
    g = fa.grad(lambda x: (x * fa.stop_gradient(x)).sum())(fnp.asarray(np.array([2.0, 3.0])))
    assert_allclose(g, [2.0, 3.0])


# --- vmap --------------------------------------------------------------------------------

@given(st.integers(1, 4), st.integers(1, 3), st.sampled_from([0, 1, -1, None]))
def test_vmap_matches_loop_for_random_axes(n, m, axis_y):
    rng = np.random.default_rng(n * 10 + m)
    x = fnp.asarray(rng.standard_normal((n, m)))
    y_shape = (m, n) if axis_y in (1, -1) else (n, m)
    y = fnp.asarray(rng.standard_normal(y_shape if axis_y is not None else (m,)))
    check_vmap(lambda a, b: fnp.sin(a) * b + 1.0, (x, y), in_axes=(0, axis_y))


_BINARY_UFUNCS = ("add", "subtract", "multiply", "true_divide", "maximum", "minimum",
                  "power", "arctan2", "remainder", "floor_divide", "nextafter", "greater",
                  "equal", "logical_and", "bitwise_and", "left_shift", "copysign")


@given(st.sampled_from(_BINARY_UFUNCS), st.sampled_from(["float32", "float64", "int32",
                                                         "bfloat16", "python float"]),
       st.integers(0, 2), st.sampled_from([0, 1, -1]), st.sampled_from([0, -1]),
       st.booleans())
def test_eager_vmap_of_a_binary_op_with_an_unmapped_operand_matches_jit_and_loop(
        name, dtype, member_rank, in_axis, out_axis, mapped_first):
    """An eager vmap binds an elementwise primitive on its batched operand and the unbatched
    one as it is (the kernel broadcasts), with one array per argument taking vmap's short
    path: the values, dtype and weak type are those of jit(vmap) (which broadcasts first)
    and of a Python loop over the members."""
    fn = getattr(fnp, name)
    rng = np.random.default_rng(member_rank)
    member = (3, 2)[:member_rank]
    axis = min(in_axis % (member_rank + 1), member_rank) if in_axis >= 0 else in_axis
    batched_shape = list(member)
    batched_shape.insert(axis % (member_rank + 1), 4)
    if dtype == "python float":
        mapped = fnp.asarray(rng.uniform(0.5, 2, batched_shape).astype(np.float32))
        other = 1.5
    else:
        values = rng.uniform(0.5, 3, (2, *batched_shape))
        if dtype == "int32":
            values = np.round(values)
        mapped = fnp.asarray(values[0].astype(dtype))
        other = fnp.asarray(np.moveaxis(values[1], axis, 0)[0].astype(dtype))
    if name in ("bitwise_and", "left_shift") and mapped.dtype != np.int32:
        return  # (integer-only functions: their error is tested elsewhere)
    args, in_axes = ((mapped, other), (axis, None)) if mapped_first else (
        (other, mapped), (None, axis))
    if isinstance(other, float):  # (a Python scalar is passed through, as in JAX)
        f = (lambda a: fn(a, other)) if mapped_first else (lambda a: fn(other, a))
        args, in_axes = (mapped,), (axis,)
    else:
        f = fn
    eager = fa.vmap(f, in_axes=in_axes, out_axes=out_axis)(*args)
    jitted = fa.jit(fa.vmap(f, in_axes=in_axes, out_axes=out_axis))(*args)
    assert (eager.shape, eager.dtype, eager.weak_type) == (
        jitted.shape, jitted.dtype, jitted.weak_type)
    # (XLA's float32 division may round the last bit otherwise)
    assert_allclose(eager, jitted, rtol=1e-6)
    # Bit for bit, the eager function on the batch with the other operand broadcast first.
    front = fnp.moveaxis(mapped, axis, 0)
    full = other if isinstance(other, float) else fnp.broadcast_to(other, front.shape)
    whole = fn(front, full) if mapped_first else fn(full, front)
    np.testing.assert_array_equal(np.asarray(fnp.moveaxis(eager, out_axis, 0)),
                                  np.asarray(whole))
    check_vmap(f, args, in_axes=in_axes, out_axes=out_axis)


def test_vmap_pytree_in_axes_and_out_axes():
    params = {"w": fnp.ones((2, 3)), "b": fnp.zeros(3)}
    xs = fnp.asarray(np.arange(12.0).reshape(4, 3))
    out = fa.vmap(lambda p, x: {"y": p["b"] + x, "s": x * 2}, in_axes=({"w": None, "b": None}, 0),
                  out_axes={"y": 1, "s": 0})(params, xs)
    assert out["y"].shape == (3, 4)
    assert out["s"].shape == (4, 3)
    assert_allclose(out["y"], np.asarray(xs).T)


def test_vmap_out_axes_none_for_unbatched_output():
    out = fa.vmap(lambda x, c: (x * 2, c), in_axes=(0, None), out_axes=(0, None))(
        fnp.ones(3), fnp.ones(2))
    assert out[0].shape == (3,) and out[1].shape == (2,)


def test_vmap_inconsistent_sizes_names_each_argument():
    with pytest.raises(ValueError) as info:
        fa.vmap(lambda xs, ys: xs + ys)(fnp.ones(3), fnp.ones(4))
    message = str(info.value)
    assert "inconsistent sizes" in message
    assert "'xs'" in message and "'ys'" in message and "size 3" in message and "size 4" in message


def test_vmap_axis_size_and_errors():
    out = fa.vmap(lambda c: c * 2.0, in_axes=None, axis_size=3)(fnp.ones(2))
    assert out.shape == (3, 2)
    with pytest.raises(ValueError, match="axis_size"):
        fa.vmap(lambda c: c, in_axes=None)(fnp.ones(2))
    with pytest.raises(ValueError, match="in_axes=2 is out of range"):
        fa.vmap(lambda c: c, in_axes=2)(fnp.ones((2, 2)))
    with pytest.raises(ValueError, match="tuple of 1 entries"):
        fa.vmap(lambda a, b: a, in_axes=(0,))(fnp.ones(2), fnp.ones(2))


@pytest.mark.parametrize("chunk_size", [1, 2, 3, 7, 100])
def test_vmap_chunk_size_equals_unchunked(chunk_size):
    x = fnp.asarray(np.arange(14.0).reshape(7, 2))
    full = fa.vmap(lambda r: fnp.sin(r) * 3.0)(x)
    chunked = fa.vmap(lambda r: fnp.sin(r) * 3.0, chunk_size=chunk_size)(x)
    assert_allclose(chunked, full)


def test_nested_vmap_matches_jax():
    x = np.arange(6.0).reshape(2, 3)
    y = np.arange(3.0)
    ours = fa.vmap(fa.vmap(lambda a, b: a * b + 1.0, in_axes=(0, 0)), in_axes=(0, None))(
        fnp.asarray(x), fnp.asarray(y))
    theirs = jax.vmap(jax.vmap(lambda a, b: a * b + 1.0, in_axes=(0, 0)), in_axes=(0, None))(
        x, y)
    assert_allclose(ours, theirs)


def test_vmap_keyword_arguments_are_mapped():
    out = fa.vmap(lambda x, scale: x * scale)(fnp.ones(3), scale=fnp.asarray(np.arange(3.0)))
    assert_allclose(out, [0.0, 1.0, 2.0])


def test_grad_of_vmap_and_jacrev_of_vmap():
    x = np.array([0.2, 0.4, 0.6])
    ours = fa.grad(lambda x: fa.vmap(fnp.sin)(x).sum())(fnp.asarray(x))
    assert_allclose(ours, np.cos(x))
    jac = fa.jacrev(fa.vmap(lambda t: fnp.sin(t) * t))(fnp.asarray(x))
    assert_allclose(jac, jax.jacrev(jax.vmap(lambda t: jnp.sin(t) * t))(x))


def test_vmap_of_jvp():
    x = np.array([[0.1, 0.2], [0.3, 0.4]])
    ours = fa.vmap(lambda r: fa.jvp(fnp.sin, (r,), (fnp.ones_like(r),))[1])(fnp.asarray(x))
    assert_allclose(ours, np.cos(x))


def _mlp_init_like(np_, x, sizes=(5, 3)):
    """A model function whose output tree mixes arrays, weak scalars and dtypes."""
    h = np_.tanh(x @ np_.ones((x.shape[-1], sizes[0]), np_.float32))
    return {"h": h, "logits": h @ np_.ones((sizes[0], sizes[1]), np_.float32),
            "count": x.shape[0] * 1.0, "mask": h > 0, "ids": np_.argmax(h, axis=-1)}


@pytest.mark.parametrize("make_input", [
    lambda lib: lib.ShapeDtypeStruct((4, 7), np.float32),
    lambda lib: jax.ShapeDtypeStruct((2, 7), np.float32),
    lambda lib: np.ones((3, 7), np.float32),
])
def test_eval_shape_matches_jax_without_computing(make_input):
    got = fa.eval_shape(lambda x: _mlp_init_like(fnp, x), make_input(fa))
    with jax.enable_x64(False):  # JAX's default types (conftest enables x64)
        want = jax.eval_shape(lambda x: _mlp_init_like(jnp, x), make_input(jax))
    assert fa.tree.structure(got) == fa.tree.structure(want)
    for g, w in zip(fa.tree.leaves(got), fa.tree.leaves(want)):
        assert isinstance(g, fa.ShapeDtypeStruct)
        assert (g.shape, g.dtype, g.weak_type) == (w.shape, w.dtype, w.weak_type), (g, w)

    calls = []

    def side_effect(x):
        calls.append(type(x).__name__)
        return fnp.sin(x)

    assert fa.eval_shape(side_effect, fa.ShapeDtypeStruct((2,), np.float16)) == \
        fa.ShapeDtypeStruct((2,), np.float16)
    assert calls == ["StagingTracer"]  # traced once, on an abstract value


def test_eval_shape_errors_and_struct_validation():
    with pytest.raises(TypeError, match="shape must be a sequence of ints"):
        fa.ShapeDtypeStruct((2.5,), np.float32)
    with pytest.raises(ValueError, match="must not be negative"):
        fa.ShapeDtypeStruct((-1,), np.float32)
    with pytest.raises(TypeError, match="Argument leaf 0 is not an array"):
        fa.eval_shape(lambda s: s, "not an array")
    with pytest.raises(ValueError, match=r"add: shapes \(2,\) and \(3,\) cannot be broadcast"):
        fa.eval_shape(lambda a, b: a + b, fa.ShapeDtypeStruct((2,), np.float32),
                      fa.ShapeDtypeStruct((3,), np.float32))


def test_make_jaxpr_and_typeof_port_jax_code():
    def f(x, n):
        return fnp.sin(x) * n, x.sum()

    ir, shapes = fa.make_jaxpr(f, static_argnums=1, return_shape=True)(fnp.ones(3), 2)
    _, want = jax.make_jaxpr(lambda x: (jnp.sin(x) * 2, x.sum()), return_shape=True)(
        jnp.ones(3, jnp.float32))
    assert [(s.shape, s.dtype) for s in shapes] == [(s.shape, s.dtype) for s in want]
    assert "sin" in str(ir) and [str(o) for o in ir(fnp.ones(3))] == ["[1.682942 1.682942 "
                                                                      "1.682942]", "3.0"]
    # (Python scalars are weak and 32-bit, as in jax without x64; NumPy values keep their dtype)
    for value, x64 in ((np.ones((2, 3), np.int8), True), (1.0, False), (3, False),
                       (np.float64(2.0), True)):
        with jax.enable_x64(x64):
            want = jax.typeof(value)
        got = fa.typeof(value)
        assert (got.shape, got.dtype, got.weak_type) == (want.shape, want.dtype, want.weak_type)
    assert fa.vmap(lambda x: fnp.zeros(fa.typeof(x).shape))(fnp.ones((4, 2))).shape == (4, 2)


@pytest.mark.parametrize("name, fun", [
    ("square", lambda np_: lambda x: x ** 2),
    ("strong constant", lambda np_: lambda x: x * np_.float32(2)),
    ("strong reduction", lambda np_: lambda x: np_.sin(x) * np_.ones(3, np_.float32).sum()),
])
@pytest.mark.parametrize("arg", [3.0, "f32 array"])
def test_cotangents_take_the_weak_type_of_their_primal_like_jax(name, fun, arg):
    """A Python-float argument gets a weakly typed gradient (it then adopts the dtype of
    what it meets, e.g. bfloat16 parameters); a strong argument a strong one."""
    fa_arg, jax_arg = (arg, arg) if arg == 3.0 else (fnp.float32(3.0), jnp.float32(3.0))
    with jax.enable_x64(False):
        want = jax.grad(fun(jnp))(jax_arg)
        want_pair = jax.grad(lambda p: fun(jnp)(p[0]) * p[1], argnums=0)((jax_arg, 2.0))
    got = fa.grad(fun(fnp))(fa_arg)
    got_pair = fa.grad(lambda p: fun(fnp)(p[0]) * p[1], argnums=0)((fa_arg, 2.0))
    for g, w in ((got, want), *zip(got_pair, want_pair)):
        assert (g.dtype, g.weak_type) == (w.dtype, w.weak_type), name
        assert_allclose(g, np.asarray(w), rtol=1e-6)
    assert (fnp.ones(2, fnp.bfloat16) * got).dtype == (arg == 3.0 and fnp.bfloat16 or np.float32)


_UNMAPPED_PYTHON_VALUES = {
    "zeros(n)": (lambda np_: lambda y, n: np_.zeros(n) + y.sum(), 3),
    "reshape(shape)": (lambda np_: lambda y, s: y.reshape(s), (3, 1)),
    "range(n)": (lambda np_: lambda y, n: sum(y[i] for i in range(n)), 2),
    "float scale": (lambda np_: lambda y, c: y * c, 0.5),
}


@pytest.mark.parametrize("name", sorted(_UNMAPPED_PYTHON_VALUES))
@pytest.mark.parametrize("chunk_size", [None, 3])
def test_vmap_passes_unmapped_python_values_through_like_jax(name, chunk_size):
    """An in_axes=None Python scalar (or tuple of them) reaches the function as it is: a
    shape, a range bound or a static argument, as in JAX (it used to become an Array)."""
    make, value = _UNMAPPED_PYTHON_VALUES[name]
    x = np.arange(12.0, dtype=np.float32).reshape(4, 3)
    got = fa.vmap(make(fnp), in_axes=(0, None), chunk_size=chunk_size)(fnp.asarray(x), value)
    with jax.enable_x64(False):  # zeros(n) is float32, as in funcarray
        want = jax.vmap(make(jnp), in_axes=(0, None))(x, value)
    assert got.shape == want.shape
    assert_allclose(got, np.asarray(want))
    static = fa.jit(lambda y, n: y ** n, static_argnums=1)
    assert_allclose(fa.vmap(static, in_axes=(0, None))(fnp.asarray(x), 2), x ** 2)


@pytest.mark.parametrize("transform", [fa.jit, fa.vmap, fa.grad,
                                       lambda f: lambda x: fa.jvp(f, (x,), (x,))[1]])
def test_isinstance_array_holds_for_traced_values_like_jax(transform):
    """JAX code branching on isinstance(x, jax.Array) takes the same path eagerly and under
    every transform; funcarray's tracers used to fail isinstance(x, fa.Array)."""
    def f(x):
        assert isinstance(x, fa.Array) and not isinstance(x, DeviceArray)
        return (x * 2.0).sum() if isinstance(x, fa.Array) else x
    x = fnp.arange(3.0)
    assert_allclose(transform(f)(x), transform(lambda x: (x * 2.0).sum())(x))
    assert isinstance(fnp.ones(2), fa.Array) and isinstance(fa.jit(f)(x), fa.Array)
    assert not isinstance(2.0, fa.Array) and not isinstance(np.ones(2), fa.Array)
    assert not isinstance(fa.jit(lambda x: x)(x), Tracer)


def test_tracers_know_their_nbytes_and_itemsize():
    x = fnp.ones((2, 3), fnp.float16)
    for transform in (fa.jit, fa.vmap):
        out = transform(lambda a: a * 0 + a.nbytes * 100 + a.itemsize)(x)
        per = (3 * 2) if transform is fa.vmap else (6 * 2)
        np.testing.assert_array_equal(np.asarray(out), np.full((2, 3), per * 100 + 2))


# --- vjp and linearize return pytrees (JAX's Partial): residuals are the leaves ------------------
def _sin_twice(lib):
    return lambda x: lib.sin(x) * lib.cos(x[::-1])


def test_vjp_function_is_a_custom_vjp_residual_like_jax():
    # The idiom: a custom_vjp forward pass keeps the vjp function of a sub-computation.
    def make(lib, api):
        @api.custom_vjp
        def f(x):
            return _sin_twice(lib)(x)

        def fwd(x):
            return api.vjp(_sin_twice(lib), x)

        f.defvjp(fwd, lambda vjp_fn, g: vjp_fn(g * 2.0))
        return lambda x: lib.sum(f(x) ** 2)

    x = np.linspace(-1.0, 2.0, 5)
    want = jax.grad(make(jnp, jax))(x)
    assert_allclose(fa.grad(make(fnp, fa))(fnp.asarray(x)), want, rtol=1e-12)
    assert_allclose(fa.jit(fa.grad(make(fnp, fa)))(fnp.asarray(x)), want, rtol=1e-12)


def test_vjp_and_linearize_functions_cross_jit_both_ways():
    x, ct = np.linspace(0.1, 1.0, 4), np.arange(4.0)
    _, want_vjp = jax.vjp(_sin_twice(jnp), x)
    _, want_lin = jax.linearize(_sin_twice(jnp), x)
    _, f_vjp = fa.vjp(_sin_twice(fnp), fnp.asarray(x))
    _, f_lin = fa.linearize(_sin_twice(fnp), fnp.asarray(x))
    assert type(f_vjp) is fa.tree_util.Partial
    # leaves: the residuals, the same count as jax's
    assert len(fa.tree.leaves(f_vjp)) == len(jax.tree.leaves(want_vjp))
    # passed into a jitted function
    assert_allclose(fa.jit(lambda v, c: v(c))(f_vjp, fnp.asarray(ct))[0], want_vjp(ct)[0],
                    rtol=1e-12)
    assert_allclose(fa.jit(lambda f, t: f(t))(f_lin, fnp.asarray(ct)), want_lin(ct), rtol=1e-12)
    # returned from one
    made = fa.jit(lambda x: fa.vjp(_sin_twice(fnp), x)[1])(fnp.asarray(x))
    assert_allclose(made(fnp.asarray(ct))[0], want_vjp(ct)[0], rtol=1e-12)
    # has_aux keeps its zero aux cotangents
    _, f_aux, aux = fa.vjp(lambda x: (fnp.sin(x), x * 3), fnp.asarray(x), has_aux=True)
    assert_allclose(f_aux(fnp.asarray(ct))[0], np.cos(x) * ct, rtol=1e-12)
    with pytest.raises(TypeError, match="tree structure"):
        f_vjp((fnp.asarray(ct),))
