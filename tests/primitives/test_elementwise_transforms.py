"""Transformation rules (jvp, transpose, batching) of the elementwise primitives and of the
``funcarray.numpy`` elementwise functions built on them.

Driven by the op tables of ``op_table.py`` (each op's jax oracle, accepted dtypes and value
domain):

* every differentiable public function and primitive: ``check_grads`` in float64 (orders 1 and
  2, values inside the op's domain and away from its non-differentiable points), the transpose
  identity in float32, complex128 where the op takes complex numbers, and ``fa.vjp``/``fa.jvp``
  against ``jax.vjp``/``jax.jvp`` of the jax function (``jax.numpy`` of the same name, or the
  ``jax.lax`` primitive);
* every op under ``fa.vmap`` with random ``in_axes`` (None and negative axes included), against
  a Python loop and against ``jax.vmap``; vmap of the gradient too;
* non-differentiable ops (comparisons, rounding, ``sign``, predicates, bit operations) give
  zero tangents and zero cotangents; integer inputs get zero tangents;
* the rules written by hand: ``integer_pow``, ``round``, ``chooser_share``, the complex
  parts, and JAX's conventions at edge points (``abs`` at 0, ties of ``max``/``min``/``clip``,
  ``sqrt`` at 0, ``pow`` at 0).

Those of ``select_n``, ``clamp`` and the conversions are in
``test_select_clamp_conversion_transforms.py``; the domains and jax comparisons both use are in
``elementwise_domains.py``.
"""

from __future__ import annotations

import hypothesis.strategies as st
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from elementwise_domains import (
    COMPLEX,
    COMPLEX128_STEPS,
    DIFFERENTIABLE,
    FEW,
    INTEGER_ONLY,
    INTERVALS,
    JAX_SHAPE,
    NONZERO,
    OVERRIDES,
    PRIM_OVERRIDES,
    ZERO_DERIVATIVE,
    _as_fa,
    _batched,
    _compare_jvp_with_jax,
    _compare_vjp_with_jax,
    _int_sample,
    _intervals,
    _public_fns,
    _random_ct,
    _sample,
    _unique_fns,
    in_axes_for,
    seeds,
    shapes,
)
from hypothesis import given, settings
from jax import lax
from op_table import ELEMENTWISE_BY_NAME, PRIMITIVE_OPS, kind_of

import funcarray as fa
import funcarray.numpy as fnp
from funcarray.primitives import clamp, conversions, select_n
from funcarray.primitives import elementwise as ew
from funcarray.primitives.clamp import clamp_p
from funcarray.primitives.conversions import convert_element_type_p
from funcarray.primitives.select_n import select_n_p
from funcarray.testing import assert_allclose, check_grads, check_jvp_vjp, check_vmap
from funcarray.transforms.core import ShapedArray
from funcarray.transforms.jvp import Zero
from funcarray.transforms.transpose import UndefPrimal

jax.config.update("jax_enable_x64", True)

# --------------------------------------------------------------------------------------------
# Every primitive has its rules
# --------------------------------------------------------------------------------------------

ALL_PRIMS = sorted({p for module in (ew, select_n, clamp, conversions)
                    for p in vars(module).values() if isinstance(p, type(ew.add_p))},
                   key=lambda p: p.name)


@pytest.mark.parametrize("prim", ALL_PRIMS, ids=lambda p: p.name)
def test_every_elementwise_primitive_has_jvp_and_batch_rules(prim):
    assert prim.jvp_rule, f"{prim.name} has no jvp rule"
    assert prim.batch_rule, f"{prim.name} has no batch rule"


LINEAR = [ew.add_p, ew.sub_p, ew.neg_p, ew.mul_p, ew.div_p, convert_element_type_p,
          ew.real_p, ew.imag_p, ew.conj_p, ew.complex_p, select_n_p]


@pytest.mark.parametrize("prim", LINEAR, ids=lambda p: p.name)
def test_linear_primitives_have_transpose_rules(prim):
    assert prim.transpose_rule, f"{prim.name} has no transpose rule"


def test_the_classification_covers_the_table():
    assert ZERO_DERIVATIVE <= set(ELEMENTWISE_BY_NAME)
    assert set(DIFFERENTIABLE) | ZERO_DERIVATIVE | INTEGER_ONLY == set(ELEMENTWISE_BY_NAME)


# --------------------------------------------------------------------------------------------
# Public functions: derivatives
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", DIFFERENTIABLE)
@FEW
@given(shape=shapes, seed=seeds)
def test_public_grads(name, shape, seed):
    spec = ELEMENTWISE_BY_NAME[name]
    rng = np.random.default_rng(seed)
    f, _, args = _public_fns(spec, rng, shape, np.float64)
    check_grads(f, _as_fa(*args), order=2, seed=seed % 1000)
    check_jvp_vjp(f, _as_fa(*(a.astype(np.float32) for a in args)), seed=seed % 1000)


@pytest.mark.parametrize("name", COMPLEX)
@settings(max_examples=2)
@given(shape=shapes, seed=seeds)
def test_public_grads_complex(name, shape, seed):
    spec = ELEMENTWISE_BY_NAME[name]
    rng = np.random.default_rng(seed)
    f, _, args = _public_fns(spec, rng, shape, np.complex128)
    check_grads(f, _as_fa(*args), order=1, seed=seed % 1000, **COMPLEX128_STEPS)


@pytest.mark.parametrize("name", _unique_fns(DIFFERENTIABLE))
def test_public_derivatives_against_jax(name):
    spec = ELEMENTWISE_BY_NAME[name]
    rng = np.random.default_rng(0)
    f, jf, args = _public_fns(spec, rng, JAX_SHAPE, np.float64)
    _compare_vjp_with_jax(f, jf, args, rng)
    _compare_jvp_with_jax(f, jf, args, rng)
    if spec.nargs == 1:  # second order: the derivative of the vjp
        ct = _random_ct(rng, args[0])

        def fa_second(x):
            return fa.vjp(f, x)[1](fnp.asarray(ct))[0]

        def jax_second(x):
            return jax.vjp(jf, x)[1](ct)[0]
        _compare_jvp_with_jax(fa_second, jax_second, args, rng, rtol=1e-8, atol=1e-10)
    if name in COMPLEX:
        f, jf, args = _public_fns(spec, rng, JAX_SHAPE, np.complex128)
        _compare_vjp_with_jax(f, jf, args, rng)


@pytest.mark.parametrize("name", sorted(ZERO_DERIVATIVE))
def test_public_zero_derivative(name):
    spec = ELEMENTWISE_BY_NAME[name]
    rng = np.random.default_rng(1)
    args = _as_fa(*(_sample(rng, INTERVALS["any"], (2, 3)) for _ in range(spec.nargs)))
    tangents = _as_fa(*(np.ones((2, 3)) for _ in args))
    outs, out_tangents = fa.jvp(spec.fn, args, tangents)
    for t in (out_tangents if isinstance(out_tangents, tuple) else (out_tangents,)):
        assert not np.asarray(t).any()
    out, f_vjp = fa.vjp(spec.fn, *args)
    for ct in f_vjp(fnp.ones_like(out)):
        assert ct.dtype == np.float64 and not np.asarray(ct).any()


@pytest.mark.parametrize("order", [1, 2, 3, 4])
def test_sinc_derivatives_of_every_order_at_zero_match_jax(order):
    """sinc is a where(x == 0, 1, ...) in value, but its derivatives at 0 are not 0 from the
    second order on (-pi**2/3, 0, pi**4/5): JAX gets them from a custom Maclaurin rule."""
    f, jf = fnp.sinc, jnp.sinc
    for _ in range(order):
        f, jf = fa.grad(f), jax.grad(jf)
    xs = np.array([0.0, 0.25, -1.5])
    want = [float(jf(float(x))) for x in xs]
    for run in (f, fa.jit(f)):
        assert_allclose(np.array([float(run(float(x))) for x in xs]), want, rtol=1e-4,
                        atol=1e-5)
    assert_allclose(fa.vmap(f)(fnp.asarray(xs.astype(np.float32))), want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("transform", [lambda f: f, fa.jit])
def test_remainder_derivative_where_the_remainder_is_exactly_zero(transform):
    """d(x % y)/dx is 1 and d(x % y)/dy is -floor(x / y) everywhere, also at multiples of y
    (where the signed-zero fix used to select a constant: derivative 0)."""
    x = np.array([0.0, -0.0, 4.0, -4.5, 3.0, 0.5, -7.0, 2.0])
    y = np.array([1.0, 3.0, 2.0, 1.5, -1.5, 1.0, -3.5, 0.25])
    for argnums in (0, 1):
        got = transform(fa.grad(lambda a, b: fnp.remainder(a, b).sum(), argnums=argnums))(
            fnp.asarray(x), fnp.asarray(y))
        want = jax.grad(lambda a, b: jnp.remainder(a, b).sum(), argnums=argnums)(x, y)
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    out = np.asarray(transform(fnp.remainder)(fnp.asarray(x), fnp.asarray(y)))
    np.testing.assert_array_equal(out, np.remainder(x, y))
    assert (np.signbit(out) == np.signbit(np.remainder(x, y))).all()  # NumPy's signed zeros


@pytest.mark.parametrize("name", ["floor", "ceil", "trunc", "rint", "round", "sign",
                                  "floor_divide"])
def test_public_zero_derivative_against_jax(name):
    spec = ELEMENTWISE_BY_NAME[name]
    rng = np.random.default_rng(2)
    args = tuple(_sample(rng, INTERVALS["any"], (4,)) for _ in range(spec.nargs))
    _compare_vjp_with_jax(spec.fn, spec.jax_fn, args, rng)


@pytest.mark.parametrize("name", sorted(INTEGER_ONLY))
def test_integer_ops_have_zero_tangents(name):
    spec = ELEMENTWISE_BY_NAME[name]
    rng = np.random.default_rng(3)
    args = _as_fa(*(_int_sample(rng, d.name, (3,)) for d in spec.domains))
    # (integer primals take float0 tangents and integer outputs get them, as in JAX)
    _, tangent = fa.jvp(spec.fn, args, tuple(fnp.zeros_like(a, dtype=fa.dtypes.float0)
                                             for a in args))
    assert tangent.dtype == fa.dtypes.float0 and tangent.shape == (3,)


def test_integer_inputs_get_zero_tangents_and_cotangents():
    x, n = fnp.asarray([1.5, -2.0, 3.0]), fnp.asarray([2, 3, -1])

    def f(x, n):
        return fnp.sum(fnp.multiply(fnp.sin(x), n) + fnp.power(x, 2) * n)

    gx, gn = fa.grad(f, argnums=(0, 1), allow_int=True)(x, n)
    jx, _ = jax.grad(lambda x, n: jnp.sum(jnp.sin(x) * n + x ** 2 * n), argnums=(0, 1),
                     allow_int=True)(np.asarray(x), np.asarray(n))
    assert_allclose(gx, jx)
    assert gn.dtype == fa.dtypes.float0 and gn.shape == (3,)  # JAX's float0 zeros
    _, t = fa.jvp(lambda n: fnp.multiply(n, 2), (n,), (fnp.zeros_like(n, dtype=fa.dtypes.float0),))
    assert t.dtype == fa.dtypes.float0 and t.shape == (3,)


# --------------------------------------------------------------------------------------------
# Public functions: vmap
# --------------------------------------------------------------------------------------------

def _public_vmap_case(spec, rng, shape, in_axes):
    if name_is_integer_only(spec):
        sample = lambda i: _int_sample(rng, spec.domains[i].name, shape)  # noqa: E731
        return spec.fn, spec.jax_fn, _batched(rng, sample, in_axes)
    if spec.condition:
        cond = rng.integers(0, 2, shape).astype(bool)
        sample = lambda i: _sample(rng, INTERVALS["wide"], shape)  # noqa: E731
        return ((lambda x, y: spec.fn(cond, x, y)), (lambda x, y: spec.jax_fn(cond, x, y)),
                _batched(rng, sample, in_axes))
    intervals = _intervals(spec, OVERRIDES)
    sample = lambda i: _sample(rng, intervals[i], shape)  # noqa: E731
    return spec.fn, spec.jax_fn, _batched(rng, sample, in_axes)


def name_is_integer_only(spec):
    return spec.name in INTEGER_ONLY


def _nargs(spec):
    return 2 if spec.condition else spec.nargs


@pytest.mark.parametrize("name", sorted(ELEMENTWISE_BY_NAME))
@FEW
@given(data=st.data())
def test_public_vmap(name, data):
    spec = ELEMENTWISE_BY_NAME[name]
    shape = data.draw(shapes, label="shape")
    in_axes = data.draw(in_axes_for([len(shape)] * _nargs(spec)), label="in_axes")
    rng = np.random.default_rng(data.draw(seeds, label="seed"))
    f, _, args = _public_vmap_case(spec, rng, shape, in_axes)
    check_vmap(f, _as_fa(*args), in_axes=in_axes)


def _jax_in_axes(index, nargs):
    """Fixed but varied in_axes for the jax comparisons: None, negative and positive axes."""
    choices = [0, None, -1, 1, -3, 2]
    axes = tuple(choices[(index + 2 * i) % len(choices)] for i in range(nargs))
    return axes if any(a is not None for a in axes) else (0,) + axes[1:]


@pytest.mark.parametrize("index, name", list(enumerate(_unique_fns(ELEMENTWISE_BY_NAME))))
def test_public_vmap_against_jax(index, name):
    spec = ELEMENTWISE_BY_NAME[name]
    in_axes = _jax_in_axes(index, _nargs(spec))
    rng = np.random.default_rng(index)
    f, jf, args = _public_vmap_case(spec, rng, JAX_SHAPE, in_axes)
    got = fa.vmap(f, in_axes=in_axes)(*_as_fa(*args))
    with jax.disable_jit():
        want = jax.vmap(jf, in_axes=in_axes)(*args)
    for g, w in zip(got if isinstance(got, tuple) else (got,),
                    want if isinstance(want, tuple) else (want,)):
        assert_allclose(g, w, rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("name", DIFFERENTIABLE)
@settings(max_examples=2)
@given(data=st.data())
def test_public_vmap_of_grad(name, data):
    spec = ELEMENTWISE_BY_NAME[name]
    shape = data.draw(shapes, label="shape")
    in_axes = data.draw(in_axes_for([len(shape)] * _nargs(spec)), label="in_axes")
    rng = np.random.default_rng(data.draw(seeds, label="seed"))
    f, _, args = _public_vmap_case(spec, rng, shape, in_axes)
    ct = fnp.asarray(rng.standard_normal(shape))

    def per_member_grad(*xs):  # the vjp with a fixed cotangent: a gradient of <ct, f>
        out, f_vjp = fa.vjp(f, *xs)
        outs = out if isinstance(out, tuple) else (out,)
        return f_vjp(tuple(ct for _ in outs) if isinstance(out, tuple) else ct)
    check_vmap(per_member_grad, _as_fa(*args), in_axes=in_axes)


# --------------------------------------------------------------------------------------------
# Primitives, bound directly
# --------------------------------------------------------------------------------------------

PRIM_ZERO_DERIVATIVE = frozenset({
    "sign", "floor", "ceil", "is_finite", "round", "nextafter",
    "eq", "ne", "lt", "le", "gt", "ge"})
FLOAT_PRIMS = [s for s in PRIMITIVE_OPS if "f" in s.kinds]
DIFF_PRIMS = [s for s in FLOAT_PRIMS if s.name not in PRIM_ZERO_DERIVATIVE]
COMPLEX_PRIMS = [s for s in PRIMITIVE_OPS if "c" in s.kinds and s.name not in ("max", "min")
                 and s.name not in PRIM_ZERO_DERIVATIVE]


def _spec_id(spec):
    return spec.name + "".join(f"-{k}={v}" for k, v in spec.params)


def _prim_case(spec, rng, shape, dtype=np.float64):
    params = dict(spec.params)
    args = tuple(_sample(rng, iv, shape, dtype) for iv in _intervals(spec, PRIM_OVERRIDES))

    def f(*xs):
        return spec.prim.bind(*xs, **params)

    def jf(*xs):
        return spec.jax_fn(*xs, **params)
    return f, jf, args


@pytest.mark.parametrize("spec", DIFF_PRIMS, ids=_spec_id)
@FEW
@given(shape=shapes, seed=seeds)
def test_primitive_grads(spec, shape, seed):
    rng = np.random.default_rng(seed)
    f, _, args = _prim_case(spec, rng, shape)
    check_grads(f, _as_fa(*args), order=2, seed=seed % 1000)
    check_jvp_vjp(f, _as_fa(*(a.astype(np.float32) for a in args)), seed=seed % 1000)


@pytest.mark.parametrize("spec", COMPLEX_PRIMS, ids=_spec_id)
@settings(max_examples=2)
@given(shape=shapes, seed=seeds)
def test_primitive_grads_complex(spec, shape, seed):
    rng = np.random.default_rng(seed)
    f, _, args = _prim_case(spec, rng, shape, np.complex128)
    check_grads(f, _as_fa(*args), order=2, seed=seed % 1000, **COMPLEX128_STEPS)


@pytest.mark.parametrize("spec", DIFF_PRIMS + [s for s in COMPLEX_PRIMS if "f" not in s.kinds],
                         ids=_spec_id)
def test_primitive_derivatives_against_jax(spec):
    rng = np.random.default_rng(10)
    for dtype in (np.float64, np.complex128):
        if kind_of(dtype) in spec.kinds and (dtype == np.float64 or spec in COMPLEX_PRIMS):
            f, jf, args = _prim_case(spec, rng, JAX_SHAPE, dtype)
            _compare_vjp_with_jax(f, jf, args, rng)


@pytest.mark.parametrize("spec", [s for s in FLOAT_PRIMS if s.name in PRIM_ZERO_DERIVATIVE],
                         ids=_spec_id)
def test_primitive_zero_derivative(spec):
    rng = np.random.default_rng(4)
    f, _, args = _prim_case(spec, rng, (2, 3))
    args = _as_fa(*args)
    _, tangent = fa.jvp(f, args, tuple(fnp.ones_like(a) for a in args))
    assert not np.asarray(tangent).any()
    out, f_vjp = fa.vjp(f, *args)
    for ct in f_vjp(fnp.ones_like(out)):
        assert ct.dtype == np.float64 and not np.asarray(ct).any()


@pytest.mark.parametrize("spec", PRIMITIVE_OPS, ids=_spec_id)
@FEW
@given(data=st.data())
def test_primitive_vmap(spec, data):
    shape = data.draw(shapes, label="shape")
    in_axes = data.draw(in_axes_for([len(shape)] * spec.nargs), label="in_axes")
    rng = np.random.default_rng(data.draw(seeds, label="seed"))
    kind = next(k for k in "fcui" if k in spec.kinds)
    dtype = {"f": np.float64, "c": np.complex128, "u": np.uint32, "i": np.int32}[kind]
    params = dict(spec.params)
    if kind in "ui":
        sample = lambda i: _int_sample(rng, spec.domains[i].name, shape, dtype)  # noqa: E731
    else:
        intervals = _intervals(spec, PRIM_OVERRIDES)
        sample = lambda i: _sample(rng, intervals[i], shape, dtype)  # noqa: E731
    args = _as_fa(*_batched(rng, sample, in_axes))
    check_vmap(lambda *xs: spec.prim.bind(*xs, **params), args, in_axes=in_axes)


# --------------------------------------------------------------------------------------------
# JAX's conventions at edge points
# --------------------------------------------------------------------------------------------

def _grads(f, jf, *args, argnums=0):
    got = fa.grad(f, argnums=argnums)(*(fnp.asarray(np.float64(a)) for a in args))
    want = jax.grad(jf, argnums=argnums)(*(np.float64(a) for a in args))
    assert_allclose(got, want)
    return got


@pytest.mark.parametrize("f, jf, args", [
    (fnp.abs, jnp.abs, (0.0,)),
    (fnp.abs, jnp.abs, (-0.0,)),
    (fnp.sqrt, jnp.sqrt, (0.0,)),
    (fnp.cbrt, jnp.cbrt, (0.0,)),
    (fnp.arctan2, jnp.arctan2, (0.0, 0.0)),
    (lambda x: ew.rsqrt_p.bind(x), lax.rsqrt, (0.0,)),
    (lambda x: ew.logistic_p.bind(x), lax.logistic, (-30.0,)),
    (fnp.sign, jnp.sign, (0.0,)),
    (fnp.floor, jnp.floor, (2.0,)),
])
def test_unary_edge_points_match_jax(f, jf, args):
    _grads(f, jf, *args)


@pytest.mark.parametrize("op", ["maximum", "minimum"])
@pytest.mark.parametrize("argnums", [0, 1])
def test_max_min_split_the_tangent_on_ties(op, argnums):
    got = _grads(getattr(fnp, op), getattr(jnp, op), 1.5, 1.5, argnums=argnums)
    assert float(got) == 0.5
    _grads(getattr(fnp, op), getattr(jnp, op), np.nan, 1.5, argnums=argnums)


@pytest.mark.parametrize("x, y", [(0.0, 2.0), (0.0, 0.0), (0.0, 0.5), (0.0, -1.0), (2.0, 0.0),
                                  (3.0, 1.5)])
@pytest.mark.parametrize("argnums", [0, 1])
def test_pow_at_zero_matches_jax(x, y, argnums):
    _grads(lambda a, b: ew.pow_p.bind(a, b), lax.pow, x, y, argnums=argnums)


@pytest.mark.parametrize("x", [-1.0, 0.0, 0.5, 1.0, 2.0])
@pytest.mark.parametrize("argnums", [0, 1, 2])
def test_clip_and_clamp_ties_match_jax(x, argnums):
    _grads(fnp.clip, jnp.clip, x, 0.0, 1.0, argnums=argnums)
    _grads(lambda lo, v, hi: clamp_p.bind(lo, v, hi), lax.clamp, 0.0, x, 1.0,
           argnums=argnums)


def test_expm1_log1p_logistic_stay_accurate():
    # The tangents are evaluated in forms that do not cancel: tiny x keeps full precision.
    x = fnp.asarray(np.float32(-40.0))
    g = fa.grad(lambda v: ew.logistic_p.bind(v))(x)
    assert float(g) > 0 and np.isclose(float(g), np.exp(-40.0), rtol=1e-5)
    assert_allclose(fa.grad(fnp.expm1)(fnp.asarray(1e-8)), 1.0 + 1e-8)
    assert_allclose(fa.grad(fnp.log1p)(fnp.asarray(1e-8)), 1 / (1 + 1e-8))
    assert_allclose(fa.grad(fnp.tanh)(fnp.asarray(np.float32(8.0))), 4.5014e-7, rtol=1e-4)


@given(st.sampled_from([np.float32, np.float64]),
       st.floats(allow_nan=True, allow_infinity=True, width=32)
       | st.sampled_from([0.0, -0.0, 88.8, -88.8, 745.2, -745.2, 1e-30]))
def test_logistic_of_a_scalar_is_that_of_an_array(dtype, value):
    """0-d operands take a NumPy-scalar path in the eager kernel; its bits are those of the
    array path (a 2-element array holds the same value)."""
    x = np.asarray(value, dtype)
    scalar = ew.logistic_p.kernel(x)
    array = ew.logistic_p.kernel(np.stack([x, x]))
    assert type(scalar) is np.ndarray and scalar.shape == () and scalar.dtype == dtype
    assert scalar.tobytes() == array[:1].tobytes()


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("transform", [lambda f: f, fa.jit], ids=["eager", "jit"])
def test_logistic_of_complex_numbers_and_its_jvp_match_jax(dtype, transform):
    # The eager kernel took exp(-|x|) (|x| the modulus): 0.64+0j for logistic(0.5+0.3j).
    rng = np.random.default_rng(8)
    z = (rng.uniform(-6, 6, (3, 4)) + 1j * rng.uniform(-3, 3, (3, 4))).astype(dtype)
    t = (rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))).astype(dtype)
    out, tangent = transform(lambda z, t: fa.jvp(ew.logistic_p.bind, (z,), (t,)))(*_as_fa(z, t))
    with jax.disable_jit():
        want, want_tangent = jax.jvp(lax.logistic, (z,), (t,))
    tol = 1e-5 if dtype == np.complex64 else 1e-12
    assert out.dtype == tangent.dtype == dtype
    assert_allclose(out, want, rtol=tol, atol=tol)
    assert_allclose(tangent, want_tangent, rtol=tol, atol=tol)
    _compare_vjp_with_jax(ew.logistic_p.bind, lax.logistic, (z,), rng, rtol=tol, atol=tol)


def test_weak_typed_inputs_get_strong_tangents_of_their_dtype():
    g = fa.grad(fnp.sin)(1.0)  # a Python float is a weak float32
    assert g.dtype == np.float32
    assert_allclose(g, np.cos(np.float32(1.0)))
    _, t = fa.jvp(lambda x: fnp.exp(x) * 2.0, (fnp.asarray(np.float32(1.0)),),
                  (fnp.asarray(np.float32(1.0)),))
    assert t.dtype == np.float32 and not t.weak_type


# --------------------------------------------------------------------------------------------
# Complex parts: JAX's transpose conventions
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["real", "imag", "conj", "abs"])
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_parts_vjp_match_jax(name, dtype):
    rng = np.random.default_rng(5)
    z = _sample(rng, NONZERO, (2, 2), dtype)
    jf = {"real": lax.real, "imag": lax.imag, "conj": lax.conj, "abs": lax.abs}[name]
    prim = {"real": ew.real_p, "imag": ew.imag_p, "conj": ew.conj_p, "abs": ew.abs_p}[name]
    tol = 1e-5 if dtype == np.complex64 else 1e-12
    _compare_vjp_with_jax(prim.bind, jf, (z,), rng, rtol=tol, atol=tol)


def test_complex_of_parts_vjp_matches_jax():
    rng = np.random.default_rng(6)
    re, im = rng.standard_normal(3), rng.standard_normal(3)
    _compare_vjp_with_jax(ew.complex_p.bind, lax.complex, (re, im), rng)
    check_grads(ew.complex_p.bind, _as_fa(re, im), order=2)


def test_abs_of_complex_zero_has_zero_derivative():
    z = fnp.asarray(np.complex128(0))
    _, t = fa.jvp(fnp.abs, (z,), (fnp.asarray(np.complex128(1 + 1j)),))
    assert float(t) == 0.0


@pytest.mark.parametrize("prim, ct_dtype, operand_dtype", [
    (ew.real_p, np.float32, np.complex64), (ew.imag_p, np.float64, np.complex128),
    (ew.conj_p, np.complex64, np.complex64)])
def test_complex_part_transposes_have_the_operand_dtype(prim, ct_dtype, operand_dtype):
    ct = fnp.asarray(np.ones(2, ct_dtype))
    (out,) = prim.transpose_rule(ct, UndefPrimal(ShapedArray((2,), np.dtype(operand_dtype))))
    assert out.dtype == operand_dtype and out.shape == (2,)


# --------------------------------------------------------------------------------------------
# chooser_share: the split of max/min's tangent (ReLU's derivative), one primitive
# --------------------------------------------------------------------------------------------

# Few distinct values, so that ties, NaN and signed zeros are common.
TIE_VALUES = st.sampled_from([-1.0, -0.0, 0.0, 0.5, 1.0, np.inf, np.nan])
SHARE_DTYPES = [np.float16, jnp.bfloat16, np.float32, np.float64, np.complex64]


def _jax_share(x, out, y):
    """JAX's max/min jvp weight, written as jax.lax writes it: select and divide."""
    one, two, zero = (jnp.full(out.shape, v, out.dtype) for v in (1, 2, 0))
    return lax.div(lax.select(lax.eq(x, out), one, zero), lax.select(lax.eq(y, out), two, one))


@settings(max_examples=20)  # (each example compiles jax's and our jit: suite time)
@given(data=st.data(), dtype=st.sampled_from(SHARE_DTYPES), choose=st.sampled_from(["max", "min"]))
def test_chooser_share_matches_jax_eagerly_and_under_jit(data, dtype, choose):
    shape = data.draw(shapes, label="shape")
    size = int(np.prod(shape))
    x, y = (np.asarray(data.draw(st.lists(TIE_VALUES, min_size=size, max_size=size)),
                       dtype).reshape(shape) for _ in range(2))
    with np.errstate(invalid="ignore"):  # NaN operands
        out = (np.maximum if choose == "max" else np.minimum)(x, y)
    expected = np.asarray(_jax_share(jnp.asarray(x), jnp.asarray(out), jnp.asarray(y)))
    args = _as_fa(x, out, y)
    eager = ew.chooser_share_p.bind(*args)
    assert eager.dtype == np.dtype(dtype) and not eager.weak_type
    np.testing.assert_array_equal(np.asarray(eager), expected)
    np.testing.assert_array_equal(np.asarray(fa.jit(ew.chooser_share_p.bind)(*args)), expected)


@settings(max_examples=20)
@given(data=st.data())
def test_chooser_share_vmap(data):
    shape = data.draw(shapes, label="shape")
    in_axes = data.draw(in_axes_for([len(shape)] * 3), label="in_axes")
    rng = np.random.default_rng(data.draw(seeds, label="seed"))
    # Values from {0, 1, 2}: ties between x, out and y in every batch member.
    args = _batched(rng, lambda i: rng.integers(0, 3, shape).astype(np.float32), in_axes)
    check_vmap(ew.chooser_share_p.bind, _as_fa(*args), in_axes=in_axes)


def test_chooser_share_rejects_integers():
    i = fnp.arange(3)
    with pytest.raises(TypeError, match="chooser_share.*float or complex.*int32"):
        ew.chooser_share_p.bind(i, i, i)


def test_chooser_share_has_zero_derivative_and_relu_stages_one_equation():
    x = fnp.asarray([-1.0, 0.0, 2.0])
    assert_allclose(fa.grad(lambda v: ew.chooser_share_p.bind(v, v, v).sum())(x), [0.0] * 3)
    ir = fa.make_ir(fa.grad(lambda v: fnp.maximum(v, 0.0).sum()))(x)
    names = [eqn.prim.name for eqn in ir.ir.eqns]
    assert names.count("chooser_share") == 1 and "select_n" not in names and "div" not in names


# --------------------------------------------------------------------------------------------
# integer_pow, round
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("y", [-3, -2, -1, 0, 1, 2, 3, 5])
@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_integer_pow_grads(y, dtype):
    rng = np.random.default_rng(7)
    x = _sample(rng, NONZERO, (2, 3), dtype)

    def f(v):
        return ew.integer_pow_p.bind(v, y=y)
    check_grads(f, _as_fa(x), order=2, **COMPLEX128_STEPS)
    _compare_vjp_with_jax(f, lambda v: lax.integer_pow(v, y), (x,), rng)
    check_vmap(f, _as_fa(x), in_axes=-1)


@pytest.mark.parametrize("method", [0, 1])
def test_round_vmap_and_zero_derivative(method):
    x = fnp.asarray(np.array([[0.5, 1.5, -2.5], [2.4, -0.6, 7.5]]))

    def f(v):
        return ew.round_p.bind(v, rounding_method=method)
    check_vmap(f, (x,), in_axes=1)
    assert_allclose(fa.vmap(f, in_axes=1)(x),
                    jax.vmap(lambda v: lax.round(v, method), in_axes=1)(np.asarray(x)))
    _, t = fa.jvp(f, (x,), (fnp.ones_like(x),))
    assert not np.asarray(t).any()


# --------------------------------------------------------------------------------------------
# Symbolic zeros and composition
# --------------------------------------------------------------------------------------------

def test_one_sided_tangents_stay_symbolic():
    x = fnp.asarray([1.0, 2.0])
    for prim in (ew.add_p, ew.sub_p, ew.complex_p):
        out, t = prim.jvp_rule([x, x], [Zero(x.aval), Zero(x.aval)])
        assert type(t) is Zero
    out, t = ew.sub_p.jvp_rule([x, x], [Zero(x.aval), x])
    assert_allclose(t, -np.asarray(x))
    out, t = select_n_p.jvp_rule(
        [fnp.asarray([True, False]), x, x], [Zero(ShapedArray((2,), np.dtype(bool))),
                                             Zero(x.aval), x])
    assert_allclose(t, [1.0, 0.0])


def test_grad_of_grad_and_vmap_of_grad_compose():
    def f(x):
        return fnp.sum(fnp.tanh(x) * fnp.exp(-x * x) + fnp.maximum(x, 0.3) ** 3)

    def jf(x):
        return jnp.sum(jnp.tanh(x) * jnp.exp(-x * x) + jnp.maximum(x, 0.3) ** 3)
    x = np.linspace(-1.0, 1.0, 5)
    xs = np.linspace(-1.0, 1.0, 15).reshape(3, 5)
    # (jax's oracles jitted: one compile each instead of one per eager op)
    want = (jax.jit(jax.grad(lambda v: jnp.sum(jax.grad(jf)(v))))(x),
            jax.jit(jax.vmap(jax.grad(jf)))(xs),
            jax.jit(jax.grad(lambda v: jnp.sum(jax.vmap(jf)(v))))(xs))
    assert_allclose(fa.grad(lambda v: fnp.sum(fa.grad(f)(v)))(fnp.asarray(x)), want[0])
    assert_allclose(fa.vmap(fa.grad(f))(fnp.asarray(xs)), want[1])
    assert_allclose(fa.grad(lambda v: fnp.sum(fa.vmap(f)(v)))(fnp.asarray(xs)), want[2])


def test_logaddexp_gradient_at_a_tie_matches_jax():
    import jax
    import jax.numpy as jnp

    for a, b in [(0.0, 0.0), (5.0, 5.0), (1.0, -2.0)]:
        got = fa.grad(lambda x, y: fnp.logaddexp(x, y), argnums=(0, 1))(a, b)
        want = jax.grad(lambda x, y: jnp.logaddexp(x, y), argnums=(0, 1))(a, b)
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)
