"""make_jaxpr's result walked as a ClosedJaxpr, and ShapeDtypeStruct.like; against jax."""

import collections
import inspect

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import funcarray as fa
import funcarray.numpy as fnp
from funcarray import lax


def _primitive_counts(closed) -> collections.Counter:
    """A jaxpr-walking helper as JAX's docs write it: primitive names, nested ones too."""
    counts = collections.Counter()

    def walk(jaxpr):
        for eqn in jaxpr.eqns:
            counts[eqn.primitive.name] += 1
            for value in eqn.params.values():
                for sub in value if isinstance(value, tuple) else (value,):
                    if hasattr(sub, "jaxpr"):  # a ClosedJaxpr / ClosedIR
                        walk(sub.jaxpr)
                    elif hasattr(sub, "eqns"):  # a Jaxpr / IR
                        walk(sub)

    walk(closed.jaxpr)
    return counts


def _sub_jaxprs(params: dict) -> list:
    subs = []
    for value in params.values():
        for sub in value if isinstance(value, tuple) else (value,):
            if hasattr(sub, "eqns"):
                subs.append(getattr(sub, "jaxpr", sub))
    return subs


@pytest.mark.parametrize("name, program", [
    ("sin times x", lambda np_: lambda x: np_.sin(x) * x),
    ("tanh of a sum", lambda np_: lambda x: np_.tanh(x + x)),
    ("exp minus cos", lambda np_: lambda x: np_.exp(x) - np_.cos(x)),
])
def test_primitive_names_and_avals_match_jax(name, program):
    x = np.linspace(-1.0, 1.0, 6, dtype=np.float32).reshape(2, 3)
    got = fa.make_jaxpr(program(fnp))(fnp.asarray(x))
    want = jax.make_jaxpr(program(jnp))(jnp.asarray(x))
    assert ([e.primitive.name for e in got.jaxpr.eqns]
            == [e.primitive.name for e in want.jaxpr.eqns])
    assert [e.primitive.name for e in got.eqns] == [e.primitive.name for e in want.eqns]

    def avals(avals_):
        return [(a.shape, a.dtype, a.weak_type) for a in avals_]

    assert avals(got.in_avals) == avals(want.in_avals)
    assert avals(got.out_avals) == avals(want.out_avals)
    assert avals(v.aval for v in got.jaxpr.invars) == avals(v.aval for v in want.jaxpr.invars)
    assert avals(v.aval for v in got.jaxpr.outvars) == avals(v.aval for v in want.jaxpr.outvars)
    for got_eqn, want_eqn in zip(got.jaxpr.eqns, want.jaxpr.eqns):
        assert len(got_eqn.invars) == len(want_eqn.invars)
        assert avals(v.aval for v in got_eqn.outvars) == avals(v.aval for v in want_eqn.outvars)
    assert got.jaxpr.effects == frozenset() and not want.jaxpr.effects


def test_equations_are_wired_through_their_variables():
    closed = fa.make_jaxpr(lambda x, y: fnp.sin(x) * y + 1.0)(fnp.ones(3), fnp.ones(3))
    jaxpr = closed.jaxpr
    defined = set(jaxpr.invars) | set(jaxpr.constvars)
    for eqn in jaxpr.eqns:
        for v in eqn.invars:
            assert v in defined or hasattr(v, "val")  # a variable defined above, or a literal
        defined.update(eqn.outvars)
    assert all(v in defined for v in jaxpr.outvars)
    literals = [v.val for eqn in jaxpr.eqns for v in eqn.invars if hasattr(v, "val")]
    assert [float(np.asarray(v)) for v in literals] == [1.0]
    # str() prints the JAX-style text, as before
    assert str(closed).startswith("{ lambda ; a:f32[3] b:f32[3]. let")


def test_consts_and_literals_are_the_closed_over_values():
    w = fnp.arange(3.0)
    closed = fa.make_jaxpr(lambda x: x * w)(fnp.ones(3))
    assert len(closed.jaxpr.constvars) == len(closed.consts) == len(closed.literals) == 1
    assert closed.jaxpr.constvars[0].aval.shape == (3,)
    np.testing.assert_array_equal(np.asarray(closed.literals[0]), [0.0, 1.0, 2.0])


def _control_flow(lax_, np_, jit):
    def f(x):
        y = lax_.cond(x.sum() > 0, lambda x: x * x, lambda x: np_.sin(x), x)
        _, z = lax_.scan(lambda c, a: (c + a, c * a), np_.float32(0), x)
        w = jit(lambda x: np_.cos(x))(x)
        n = lax_.while_loop(lambda c: c < 3, lambda c: c + 1, np.int32(0))
        return y + z + w + n
    return f


def test_nested_jaxprs_of_control_flow_are_walked_like_jax():
    x = np.linspace(-1.0, 1.0, 3, dtype=np.float32)
    got = fa.make_jaxpr(_control_flow(lax, fnp, fa.jit))(fnp.asarray(x))
    want = jax.make_jaxpr(_control_flow(jax.lax, jnp, jax.jit))(jnp.asarray(x))
    top = ["cond", "scan", "jit", "while"]
    for closed in (got, want):
        names = [e.primitive.name for e in closed.jaxpr.eqns]
        assert [n for n in names if n in top] == top
    got_counts, want_counts = _primitive_counts(got), _primitive_counts(want)
    for name in ("cond", "scan", "jit", "while", "sin", "cos", "lt"):
        assert got_counts[name] == want_counts[name], name
    for prim in top:
        got_eqn = next(e for e in got.jaxpr.eqns if e.primitive.name == prim)
        want_eqn = next(e for e in want.jaxpr.eqns if e.primitive.name == prim)
        got_subs, want_subs = _sub_jaxprs(got_eqn.params), _sub_jaxprs(want_eqn.params)
        assert len(got_subs) == len(want_subs), prim
        for g, w in zip(got_subs, want_subs):
            assert ([(v.aval.shape, v.aval.dtype) for v in g.invars]
                    == [(v.aval.shape, v.aval.dtype) for v in w.invars]), prim


def test_make_jaxpr_signature_and_static_arguments():
    def parameters(fn):
        return list(inspect.signature(fn).parameters)

    assert parameters(fa.make_jaxpr) == parameters(jax.make_jaxpr)
    closed, shape = fa.make_jaxpr(lambda x, n: x * n, static_argnums=1,
                                  return_shape=True)(fnp.ones(2, fnp.int32), 3)
    want, want_shape = jax.make_jaxpr(lambda x, n: x * n, static_argnums=1,
                                      return_shape=True)(jnp.ones(2, jnp.int32), 3)
    assert len(closed.jaxpr.invars) == len(want.jaxpr.invars) == 1
    assert closed.eqns[-1].primitive.name == want.eqns[-1].primitive.name == "mul"
    assert (shape.shape, shape.dtype) == (want_shape.shape, want_shape.dtype)


@pytest.mark.parametrize("name, program", [
    ("psum", lambda lax_: lambda x: lax_.psum(x, "i") * 2),
    ("axis_index", lambda lax_: lambda x: x + lax_.axis_index("i")),
    ("pmean of two axes", lambda lax_: lambda x: lax_.pmean(x, ("i", "j"))),
])
def test_axis_env_binds_named_axes_like_jax(name, program):
    axis_env = [("i", 4), ("j", 2)]
    got = fa.make_jaxpr(program(lax), axis_env=axis_env)(fnp.ones(3))
    want = jax.make_jaxpr(program(jax.lax), axis_env=axis_env)(jnp.ones(3, jnp.float32))
    collectives = {"psum", "axis_index"}
    assert ([e.primitive.name for e in got.eqns if e.primitive.name in collectives]
            == [e.primitive.name for e in want.eqns if e.primitive.name in collectives])
    assert ([(a.shape, a.dtype) for a in got.out_avals]
            == [(a.shape, a.dtype) for a in want.out_avals])
    with pytest.raises(NameError):
        jax.make_jaxpr(program(jax.lax))(jnp.ones(3))
    with pytest.raises(NameError, match="unbound axis name"):
        fa.make_jaxpr(program(lax))(fnp.ones(3))
    with pytest.raises(TypeError, match="axis_env"):
        fa.make_jaxpr(program(lax), axis_env=[("i",)])


# (Python scalars are weak and 32-bit, as in jax without x64; NumPy values keep their dtype.)
@pytest.mark.parametrize("value, x64", [
    (np.ones((2, 3), np.float32), True), (np.arange(4, dtype=np.int8), True), (1.0, False),
    (3, False), (True, False), (np.float64(2.0), True),
    (jax.ShapeDtypeStruct((5,), jnp.bfloat16), True)], ids=repr)
def test_shape_dtype_struct_like_matches_jax(value, x64):
    with jax.enable_x64(x64):
        want = jax.ShapeDtypeStruct.like(value)
    got = fa.ShapeDtypeStruct.like(value)
    assert (got.shape, got.dtype, got.weak_type) == (want.shape, want.dtype, want.weak_type)
    assert fa.ShapeDtypeStruct.like(got) == got
    if not hasattr(value, "sharding"):  # the array made from the value, in both libraries
        with jax.enable_x64(x64):
            want = jax.ShapeDtypeStruct.like(jnp.asarray(value))
        got = fa.ShapeDtypeStruct.like(fnp.asarray(value))
        assert (got.shape, got.dtype, got.weak_type) == (want.shape, want.dtype, want.weak_type)


def test_shape_dtype_struct_like_of_tracers_and_non_arrays():
    assert fa.vmap(lambda x: fnp.zeros(fa.ShapeDtypeStruct.like(x).shape))(
        fnp.ones((4, 2))).shape == (4, 2)
    for bad in ([1, 2], "text"):
        with pytest.raises(TypeError):
            jax.ShapeDtypeStruct.like(bad)
        with pytest.raises(TypeError, match="ShapeDtypeStruct.like|typeof"):
            fa.ShapeDtypeStruct.like(bad)


def test_effects_mark_the_side_effecting_equations_as_in_jax():
    def program(lib, np_):
        def f(x):
            lib.debug.print("x={x}", x=x)
            return lib.jit(np_.sin)(x)
        return f

    got = fa.make_jaxpr(program(fa, fnp))(fnp.ones(2))
    want = jax.make_jaxpr(program(jax, jnp))(jnp.ones(2))
    assert ([bool(e.effects) for e in got.eqns] == [bool(e.effects) for e in want.eqns]
            == [True, False])
    assert bool(got.effects) == bool(got.jaxpr.effects) == bool(want.jaxpr.effects) is True
    nested = fa.make_jaxpr(lambda x: fa.jit(program(fa, fnp))(x))(fnp.ones(2))
    assert nested.eqns[0].effects == got.effects  # a jit's equation carries its body's


def test_shape_dtype_struct_sharding_and_keywords_match_jax():
    def parameters(cls):
        return [(p.name, p.kind, p.default)
                for p in inspect.signature(cls).parameters.values()
                if p.name in ("shape", "dtype", "sharding", "weak_type")]

    assert parameters(fa.ShapeDtypeStruct) == parameters(jax.ShapeDtypeStruct)
    got = fa.ShapeDtypeStruct((2,), np.float32, weak_type=True,
                              sharding=fa.sharding.SingleDeviceSharding(fa.devices()[0]))
    want = jax.ShapeDtypeStruct((2,), jnp.float32, weak_type=True,
                                sharding=jax.sharding.SingleDeviceSharding(jax.devices()[0]))
    assert repr(got) == repr(want)
    assert fa.ShapeDtypeStruct.like(got) == got != fa.ShapeDtypeStruct((2,), np.float32,
                                                                       weak_type=True)
    assert fa.ShapeDtypeStruct.like(fnp.ones(2)).sharding is None  # (as jax's, uncommitted)
    for lib in (jax, fa):
        with pytest.raises(TypeError):
            lib.ShapeDtypeStruct((2,), np.float32, True)
        with pytest.raises(ValueError, match="sharding"):
            lib.ShapeDtypeStruct((2,), np.float32, sharding="cpu")
