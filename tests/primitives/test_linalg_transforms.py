"""Transformation rules of ``dot_general`` (jvp, transpose, batching) and of the products
built on it (matmul, dot, tensordot, einsum), checked against finite differences, the
transpose identity, a Python loop, and jax as the oracle.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import funcarray as fa
import funcarray.numpy as fnp
from funcarray import dtypes
from funcarray.primitives.dot_general import dot_general, dot_general_p
from funcarray.testing import assert_allclose, check_grads, check_jvp_vjp, check_vmap
from funcarray.transforms.core import ShapedArray
from funcarray.transforms.transpose import UndefPrimal

# --------------------------------------------------------------------------------------------
# Strategies and helpers
# --------------------------------------------------------------------------------------------

@st.composite
def dot_general_cases(draw, max_rank: int = 4):
    """Shapes of two operands and random dimension numbers relating them: each operand's
    batch, contracting and free dimensions laid out in a random order."""
    n_batch = draw(st.integers(0, 2))
    n_contract = draw(st.integers(0, 2))
    n_lhs_free = draw(st.integers(0, max_rank - n_batch - n_contract if
                                  n_batch + n_contract < max_rank else 0))
    n_rhs_free = draw(st.integers(0, max_rank - n_batch - n_contract if
                                  n_batch + n_contract < max_rank else 0))
    size = st.integers(1, 3)
    batch_sizes = [draw(size) for _ in range(n_batch)]
    contract_sizes = [draw(size) for _ in range(n_contract)]

    def layout(n_free):
        roles = ([("b", i) for i in range(n_batch)] + [("c", i) for i in range(n_contract)]
                 + [("f", i) for i in range(n_free)])
        free_sizes = [draw(size) for _ in range(n_free)]
        order = draw(st.permutations(roles))
        sizes = {"b": batch_sizes, "c": contract_sizes, "f": free_sizes}
        shape = tuple(sizes[kind][i] for kind, i in order)
        batch = tuple(order.index(("b", i)) for i in range(n_batch))
        contract = tuple(order.index(("c", i)) for i in range(n_contract))
        return shape, batch, contract

    lhs_shape, lb, lc = layout(n_lhs_free)
    rhs_shape, rb, rc = layout(n_rhs_free)
    return lhs_shape, rhs_shape, ((lc, rc), (lb, rb))


def _random(rng, shape, dtype=np.float64):
    dtype = np.dtype(dtype)
    if dtypes.is_complex(dtype):
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def _jax_dot_general(dimension_numbers, preferred_element_type=None):
    return lambda a, b: jax.lax.dot_general(a, b, dimension_numbers,
                                            preferred_element_type=preferred_element_type)


def _fa_dot_general(dimension_numbers, preferred_element_type=None):
    return lambda a, b: dot_general(a, b, dimension_numbers,
                                    preferred_element_type=preferred_element_type)


def _with_batch_axis(rng, shape, axis, size):
    """A random operand of ``shape`` with a batch axis of ``size`` inserted at ``axis``
    (negative counts from the end of the batched shape); ``axis=None``: unbatched."""
    if axis is None:
        return _random(rng, shape)
    batched = list(shape)
    batched.insert(axis % (len(shape) + 1), size)
    return _random(rng, tuple(batched))


# --------------------------------------------------------------------------------------------
# dot_general on random dimension numbers
# --------------------------------------------------------------------------------------------

@given(dot_general_cases(), st.integers(0, 2**16))
def test_transpose_identity_each_operand(case, seed):
    lhs_shape, rhs_shape, dn = case
    rng = np.random.default_rng(seed)
    x, y = fnp.asarray(_random(rng, lhs_shape)), fnp.asarray(_random(rng, rhs_shape))
    f = _fa_dot_general(dn)
    check_jvp_vjp(lambda a: f(a, y), (x,), seed=seed)
    check_jvp_vjp(lambda b: f(x, b), (y,), seed=seed)
    check_grads(lambda a: f(a, y), (x,), order=1, seed=seed)
    check_grads(lambda b: f(x, b), (y,), order=1, seed=seed)


def _einsum_labels(lhs_ndim, rhs_ndim, dimension_numbers):
    """einsum subscripts of the two operands and the result of a dot_general: a NumPy oracle
    for its value, its jvp and (with the roles swapped) its transposes."""
    (lc, rc), (lb, rb) = dimension_numbers
    letters = iter("abcdefghijklmnopqrstuvwxyz")
    lhs, rhs = [None] * lhs_ndim, [None] * rhs_ndim
    for pairs in ((lb, rb), (lc, rc)):
        for i, j in zip(*pairs):
            lhs[i] = rhs[j] = next(letters)
    lhs = [t or next(letters) for t in lhs]
    rhs = [t or next(letters) for t in rhs]
    out = ([lhs[i] for i in lb] + [t for d, t in enumerate(lhs) if d not in lb + lc]
           + [t for d, t in enumerate(rhs) if d not in rb + rc])
    return "".join(lhs), "".join(rhs), "".join(out)


@given(dot_general_cases(), st.booleans(), st.integers(0, 2**16))
def test_vjp_and_jvp_match_einsum(case, complex_, seed):
    lhs_shape, rhs_shape, dn = case
    dtype = np.complex128 if complex_ else np.float64
    rng = np.random.default_rng(seed)
    x, y = _random(rng, lhs_shape, dtype), _random(rng, rhs_shape, dtype)
    tx, ty = _random(rng, lhs_shape, dtype), _random(rng, rhs_shape, dtype)
    lhs, rhs, out = _einsum_labels(len(lhs_shape), len(rhs_shape), dn)
    ct = _random(rng, np.einsum(f"{lhs},{rhs}->{out}", x, y).shape, dtype)
    f = _fa_dot_general(dn)
    fx, fy, fct = fnp.asarray(x), fnp.asarray(y), fnp.asarray(ct)
    (got_x,) = fa.vjp(lambda a: f(a, fy), fx)[1](fct)
    (got_y,) = fa.vjp(lambda b: f(fx, b), fy)[1](fct)
    # The transposes: contract the cotangent with the other operand, no conjugation.
    expected_x = np.einsum(f"{out},{rhs}->{lhs}", ct, y)
    expected_y = np.einsum(f"{lhs},{out}->{rhs}", x, ct)
    for got, expected, operand in ((got_x, expected_x, x), (got_y, expected_y, y)):
        assert got.shape == operand.shape and got.dtype == operand.dtype
        assert_allclose(got, expected)
    primal, tangent = fa.jvp(f, (fx, fy), (fnp.asarray(tx), fnp.asarray(ty)))
    assert_allclose(primal, np.einsum(f"{lhs},{rhs}->{out}", x, y))
    assert_allclose(tangent, np.einsum(f"{lhs},{rhs}->{out}", tx, y)
                    + np.einsum(f"{lhs},{rhs}->{out}", x, ty))


@pytest.mark.parametrize("lhs_shape, rhs_shape, dn", [
    ((3, 4, 5), (5, 3, 2, 4), (((1, 2), (3, 0)), ((0,), (1,)))),
    ((2, 3), (3, 2), (((0, 1), (1, 0)), ((), ()))),
    ((2, 3), (4,), (((), ()), ((), ()))),
    ((4, 2, 3), (3, 4), (((2,), (0,)), ((0,), (1,)))),
])
@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_vjp_and_jvp_match_jax(lhs_shape, rhs_shape, dn, dtype):
    rng = np.random.default_rng(0)
    x, y = _random(rng, lhs_shape, dtype), _random(rng, rhs_shape, dtype)
    out, jax_vjp = jax.vjp(_jax_dot_general(dn), x, y)
    ct = _random(rng, out.shape, dtype)
    f = _fa_dot_general(dn)
    fx, fy, fct = fnp.asarray(x), fnp.asarray(y), fnp.asarray(ct)
    got = (fa.vjp(lambda a: f(a, fy), fx)[1](fct)[0], fa.vjp(lambda b: f(fx, b), fy)[1](fct)[0])
    for g, e in zip(got, jax_vjp(ct)):
        assert g.dtype == e.dtype
        assert_allclose(g, np.asarray(e))
    tx, ty = _random(rng, lhs_shape, dtype), _random(rng, rhs_shape, dtype)
    _, expected = jax.jvp(_jax_dot_general(dn), (x, y), (tx, ty))
    _, got = fa.jvp(f, (fx, fy), (fnp.asarray(tx), fnp.asarray(ty)))
    assert_allclose(got, expected)

  # both operands differentiated: the tangents meet in an `add`
@pytest.mark.parametrize("lhs_shape, rhs_shape, dn", [
    ((3, 4, 2), (2, 3, 5), (((2,), (0,)), ((0,), (1,)))),
    ((2, 3), (3, 2), (((0, 1), (1, 0)), ((), ()))),
    ((2, 3), (4,), (((), ()), ((), ()))),
])
def test_grads_both_operands_second_order(lhs_shape, rhs_shape, dn):
    rng = np.random.default_rng(1)
    args = (fnp.asarray(_random(rng, lhs_shape)), fnp.asarray(_random(rng, rhs_shape)))
    check_grads(_fa_dot_general(dn), args, order=2)


@st.composite
def batched_cases(draw):
    """A dot_general case plus in_axes (None or an int, possibly negative) for each operand,
    at least one batched."""
    lhs_shape, rhs_shape, dn = draw(dot_general_cases(max_rank=3))

    def axis(ndim):
        return draw(st.one_of(st.none(), st.integers(-(ndim + 1), ndim)))
    in_axes = (axis(len(lhs_shape)), axis(len(rhs_shape)))
    if in_axes == (None, None):
        in_axes = (draw(st.integers(-(len(lhs_shape) + 1), len(lhs_shape))), None)
    return lhs_shape, rhs_shape, dn, in_axes


@given(batched_cases(), st.integers(1, 3), st.integers(0, 2**16))
def test_vmap_random_dims_and_axes(case, size, seed):
    lhs_shape, rhs_shape, dn, in_axes = case
    rng = np.random.default_rng(seed)
    x = _with_batch_axis(rng, lhs_shape, in_axes[0], size)
    y = _with_batch_axis(rng, rhs_shape, in_axes[1], size)
    f = _fa_dot_general(dn)
    check_vmap(f, (fnp.asarray(x), fnp.asarray(y)), in_axes=in_axes)


@given(batched_cases(), st.integers(0, 2**16))
def test_batch_rule_reports_the_batch_axis(case, seed):
    # Call the rule directly: the value it returns, with its batch axis moved to the front,
    # must equal the per-example products stacked.
    lhs_shape, rhs_shape, dn, in_axes = case
    rng = np.random.default_rng(seed)
    size = 2
    x = _with_batch_axis(rng, lhs_shape, in_axes[0], size)
    y = _with_batch_axis(rng, rhs_shape, in_axes[1], size)
    dims = [None if a is None else a % v.ndim for a, v in zip(in_axes, (x, y))]
    out, out_dim = dot_general_p.batch_rule(
        [fnp.asarray(x), fnp.asarray(y)], dims, dimension_numbers=dn, precision=None,
        preferred_element_type=None)
    assert out_dim is not None
    lhs, rhs, result = _einsum_labels(len(lhs_shape), len(rhs_shape), dn)
    expected = np.stack([np.einsum(f"{lhs},{rhs}->{result}",
                                   x if dims[0] is None else np.take(x, i, dims[0]),
                                   y if dims[1] is None else np.take(y, i, dims[1]))
                         for i in range(size)])
    assert_allclose(np.moveaxis(np.asarray(out), out_dim, 0), expected)


# --------------------------------------------------------------------------------------------
# dtypes: preferred_element_type, weak types, complex, integers
# --------------------------------------------------------------------------------------------

MATMUL_DN = (((1,), (0,)), ((), ()))


@pytest.mark.parametrize("operand_dtype, preferred", [
    (dtypes.bfloat16, np.float32), (np.float16, np.float32), (np.float32, np.float64),
    (np.float64, np.float32),
])
def test_preferred_element_type_cotangent_dtype(operand_dtype, preferred):
    rng = np.random.default_rng(0)
    x, y = _random(rng, (2, 3), operand_dtype), _random(rng, (3, 4), operand_dtype)
    ct = _random(rng, (2, 4), preferred)
    f = _fa_dot_general(MATMUL_DN, preferred)
    fx, fy = fnp.asarray(x), fnp.asarray(y)
    out, f_vjp = fa.vjp(lambda a: f(a, fy), fx)
    assert out.dtype == np.dtype(preferred)
    (got_x,) = f_vjp(fnp.asarray(ct))
    (got_y,) = fa.vjp(lambda b: f(fx, b), fy)[1](fnp.asarray(ct))
    _, jax_vjp = jax.vjp(_jax_dot_general(MATMUL_DN, preferred), x, y)
    expected_x, expected_y = jax_vjp(ct)
    # JAX rounds the float64 x float32 product differently; ours is at least as precise.
    rtol = 1e-6 if np.dtype(preferred) == np.float32 else None
    for got, expected in ((got_x, expected_x), (got_y, expected_y)):
        assert got.dtype == np.dtype(operand_dtype) and not got.weak_type
        assert_allclose(got, np.asarray(expected), rtol=rtol, atol=rtol)
    _, t = fa.jvp(lambda a: f(a, fy), (fx,), (fnp.asarray(_random(rng, (2, 3), operand_dtype)),))
    assert t.dtype == np.dtype(preferred)


def test_real_operands_complex_result_take_the_real_part():
    # float32 x float32 accumulated in complex64: the result is real-valued data in a complex
    # dtype, so a real operand's cotangent is the real part of the complex one (JAX's rule).
    rng = np.random.default_rng(1)
    x, y = _random(rng, (2, 3), np.float32), _random(rng, (3, 2), np.float32)
    ct = _random(rng, (2, 2), np.complex64)
    f = _fa_dot_general(MATMUL_DN, np.complex64)
    (got,) = fa.vjp(lambda a: f(a, fnp.asarray(y)), fnp.asarray(x))[1](fnp.asarray(ct))
    assert got.dtype == np.float32
    assert_allclose(got, np.real(ct @ y.T.astype(np.complex64)))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_vjp_is_the_unconjugated_transpose(dtype):
    rng = np.random.default_rng(2)
    dn = (((2,), (1,)), ((0,), (0,)))
    x, y = _random(rng, (2, 3, 4), dtype), _random(rng, (2, 4, 5), dtype)
    out, jax_vjp = jax.vjp(_jax_dot_general(dn), x, y)
    ct = _random(rng, out.shape, dtype)
    expected = jax_vjp(ct)
    f = _fa_dot_general(dn)
    fx, fy, fct = fnp.asarray(x), fnp.asarray(y), fnp.asarray(ct)
    got = (fa.vjp(lambda a: f(a, fy), fx)[1](fct)[0], fa.vjp(lambda b: f(fx, b), fy)[1](fct)[0])
    for g, e in zip(got, expected):
        assert g.dtype == np.dtype(dtype)
        assert_allclose(g, np.asarray(e))
    # The bilinear pairing (no conjugation): sum(ct * J t) == sum(J^T ct * t).
    t = _random(rng, x.shape, dtype)
    _, jt = fa.jvp(lambda a: f(a, fy), (fx,), (fnp.asarray(t),))
    np.testing.assert_allclose(np.sum(ct * np.asarray(jt)), np.sum(np.asarray(got[0]) * t),
                               rtol=1e-4)


def test_weak_typed_operands():
    # Weak-typed operands give a weak primal; tangents and cotangents are not weak.
    x = fnp.asarray(2.0) * fnp.ones((2, 2))
    y = fnp.ones((2, 2))
    out, t = fa.jvp(lambda a: fnp.matmul(a, y), (x,), (fnp.ones((2, 2)),))
    assert t.dtype == np.float32 and not t.weak_type
    (ct,) = fa.vjp(lambda a: fnp.matmul(a, y), x)[1](fnp.ones((2, 2)))
    assert ct.dtype == np.float32 and not ct.weak_type


def test_integer_operands_have_zero_tangents():
    x = fnp.arange(6, dtype=np.int8).reshape(2, 3)
    f = _fa_dot_general(MATMUL_DN, np.float32)
    out, t = fa.jvp(lambda a: f(a, a.T), (x,), (fnp.zeros((2, 3), dtype=dtypes.float0),))
    assert out.dtype == np.float32
    assert_allclose(t, np.zeros((2, 2), np.float32))


def test_transpose_rule_rejects_two_linear_operands():
    aval = ShapedArray((2, 2), np.dtype(np.float32), False)
    with pytest.raises(TypeError, match="dot_general transpose: .*both operands"):
        dot_general_p.transpose_rule(fnp.ones((2, 2)), UndefPrimal(aval), UndefPrimal(aval),
                                     dimension_numbers=MATMUL_DN)


# --------------------------------------------------------------------------------------------
# matmul, dot, tensordot, einsum under grad / vjp / jvp
# --------------------------------------------------------------------------------------------

def _sum_all(x):
    """Sum of all elements through products only (no reduce_sum rules needed)."""
    while x.ndim:
        x = x @ fnp.ones(x.shape[-1], dtype=x.dtype)
    return x


def _jsum_all(x):
    return jnp.sum(x)


PRODUCTS = {
    # name: (funcarray function, jax function, lhs shape, rhs shape)
    "matmul": (fnp.matmul, jnp.matmul, (3, 4), (4, 2)),
    "matmul_vec": (fnp.matmul, jnp.matmul, (3, 4), (4,)),
    "matmul_batched": (fnp.matmul, jnp.matmul, (2, 3, 4), (2, 4, 5)),
    "matmul_batch_lhs": (fnp.matmul, jnp.matmul, (2, 3, 4), (4, 5)),
    "dot": (fnp.dot, jnp.dot, (2, 3), (3,)),
    "dot_nd": (fnp.dot, jnp.dot, (2, 3, 4), (4, 2)),
    "tensordot": (lambda a, b: fnp.tensordot(a, b, axes=([0, 2], [1, 0])),
                  lambda a, b: jnp.tensordot(a, b, axes=([0, 2], [1, 0])), (2, 3, 4), (4, 2, 5)),
    "einsum_matmul": (lambda a, b: fnp.einsum("ij,jk->ik", a, b),
                      lambda a, b: jnp.einsum("ij,jk->ik", a, b), (3, 4), (4, 2)),
    "einsum_batch": (lambda a, b: fnp.einsum("bij,bkj->bik", a, b),
                     lambda a, b: jnp.einsum("bij,bkj->bik", a, b), (2, 3, 4), (2, 5, 4)),
    "einsum_chain": (lambda a, b: fnp.einsum("ij,jk,kl->il", a, b, b.T @ a.T),
                     lambda a, b: jnp.einsum("ij,jk,kl->il", a, b, b.T @ a.T), (3, 4), (4, 2)),
}
@pytest.mark.parametrize("name", list(PRODUCTS))
def test_products_grad_vjp_jvp_against_jax(name):
    f, jf, a_shape, b_shape = PRODUCTS[name]
    rng = np.random.default_rng(3)
    a, b = _random(rng, a_shape), _random(rng, b_shape)
    fa_, fb = fnp.asarray(a), fnp.asarray(b)
    # grad of a scalar loss, one operand at a time.
    assert_allclose(fa.grad(lambda x: _sum_all(f(x, fb)))(fa_),
                    jax.grad(lambda x: _jsum_all(jf(x, b)))(a))
    assert_allclose(fa.grad(lambda y: _sum_all(f(fa_, y)))(fb),
                    jax.grad(lambda y: _jsum_all(jf(a, y)))(b))
    # vjp with a random cotangent.
    out, jax_vjp = jax.vjp(lambda x: jf(x, b), a)
    ct = _random(rng, out.shape)
    (got,) = fa.vjp(lambda x: f(x, fb), fa_)[1](fnp.asarray(ct))
    assert_allclose(got, jax_vjp(ct)[0])
    # jvp in both operands (no add of tangents needed: jvp_flat sums inside the rule).
    ta, tb = _random(rng, a_shape), _random(rng, b_shape)
    _, expected = jax.jvp(jf, (a, b), (ta, tb))
    _, got = fa.jvp(f, (fa_, fb), (fnp.asarray(ta), fnp.asarray(tb)))
    assert_allclose(got, expected)

  # both operands at once: add's transpose; some products also transpose
@pytest.mark.parametrize("name", list(PRODUCTS))
def test_products_grads_both_operands(name):
    f, jf, a_shape, b_shape = PRODUCTS[name]
    rng = np.random.default_rng(4)
    a, b = _random(rng, a_shape), _random(rng, b_shape)
    got = fa.grad(lambda x, y: _sum_all(f(x, y)), argnums=(0, 1))(fnp.asarray(a),
                                                                   fnp.asarray(b))
    expected = jax.grad(lambda x, y: _jsum_all(jf(x, y)), argnums=(0, 1))(a, b)
    for g, e in zip(got, expected):
        assert_allclose(g, e)
    check_grads(f, (fnp.asarray(a), fnp.asarray(b)), order=2)


@pytest.mark.parametrize("name", list(PRODUCTS))
def test_products_finite_differences(name):
    f, _, a_shape, b_shape = PRODUCTS[name]
    rng = np.random.default_rng(5)
    a, b = fnp.asarray(_random(rng, a_shape)), fnp.asarray(_random(rng, b_shape))
    check_grads(lambda x: f(x, b), (a,), order=2)
    check_grads(lambda y: f(a, y), (b,), order=2)


def test_grad_of_grad_of_a_quadratic_form():
    # x^T A x has Hessian A + A^T: the second derivative goes through dot_general's transpose
    # rule under a JVP trace.
    rng = np.random.default_rng(6)
    a = _random(rng, (3, 3))
    fa_a = fnp.asarray(a)
    x = fnp.asarray(_random(rng, (3,)))

    def quad(v, w):  # bilinear in separate arguments, so no tangent needs an add
        return v @ (fa_a @ w)

    # d/dw quad = A^T v; its first entry is sum_i A[i, 0] v_i, whose gradient in v is A[:, 0].
    mixed = fa.grad(lambda v: fa.grad(quad, argnums=1)(v, x) @ fnp.asarray(np.eye(3)[0]))
    assert_allclose(mixed(x), a[:, 0])


# --------------------------------------------------------------------------------------------
# vmap of matmul, nested vmap, per-example gradients
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("in_axes, a_shape, b_shape", [
    ((0, None), (5, 3, 4), (4, 2)),
    ((None, 0), (3, 4), (5, 4, 2)),
    ((0, 0), (5, 3, 4), (5, 4, 2)),
    ((-1, None), (3, 4, 5), (4, 2)),
    ((None, -1), (3, 4), (4, 2, 5)),
    ((1, 2), (3, 5, 4), (4, 2, 5)),
    ((0, None), (5, 4), (4, 2)),  # vector @ matrix per example
    ((None, 1), (3, 4), (4, 5)),  # matrix @ vector per example
])
def test_vmap_matmul(in_axes, a_shape, b_shape):
    rng = np.random.default_rng(7)
    a, b = _random(rng, a_shape), _random(rng, b_shape)
    check_vmap(fnp.matmul, (fnp.asarray(a), fnp.asarray(b)), in_axes=in_axes)
    got = fa.vmap(fnp.matmul, in_axes=in_axes)(fnp.asarray(a), fnp.asarray(b))
    assert_allclose(got, jax.vmap(jnp.matmul, in_axes=in_axes)(a, b))


@pytest.mark.parametrize("outer_axes, inner_axes", [
    # Moving the inner result's batch axis to the front is a `transpose` under the outer vmap.
    ((0, None), (None, 0)),
    ((0, 0), (0, None)),
    ((None, 1), (1, 0)),
])
def test_nested_vmap_matmul(outer_axes, inner_axes):
    rng = np.random.default_rng(8)
    shapes = {((0, None), (None, 0)): ((6, 3, 4), (5, 4, 2)),
              ((0, 0), (0, None)): ((6, 5, 3, 4), (6, 4, 2)),
              ((None, 1), (1, 0)): ((3, 5, 4), (5, 6, 4, 2))}
    a_shape, b_shape = shapes[(outer_axes, inner_axes)]
    a, b = _random(rng, a_shape), _random(rng, b_shape)
    got = fa.vmap(fa.vmap(fnp.matmul, in_axes=inner_axes), in_axes=outer_axes)(
        fnp.asarray(a), fnp.asarray(b))
    expected = jax.vmap(jax.vmap(jnp.matmul, in_axes=inner_axes), in_axes=outer_axes)(a, b)
    assert_allclose(got, expected)


@pytest.mark.parametrize("name", ["dot", "tensordot", "einsum_matmul", "einsum_batch"])
def test_vmap_products_against_a_loop(name):
    f, jf, a_shape, b_shape = PRODUCTS[name]
    rng = np.random.default_rng(9)
    a, b = _random(rng, (4, *a_shape)), _random(rng, b_shape + (4,))
    check_vmap(f, (fnp.asarray(a), fnp.asarray(b)), in_axes=(0, -1))
    assert_allclose(fa.vmap(f, in_axes=(0, -1))(fnp.asarray(a), fnp.asarray(b)),
                    jax.vmap(jf, in_axes=(0, -1))(a, b))


def test_vmap_of_vjp_and_jvp_of_matmul():
    rng = np.random.default_rng(10)
    a, b, ct, t = (_random(rng, s) for s in ((4, 3, 5), (5, 2), (4, 3, 2), (4, 3, 5)))
    fb = fnp.asarray(b)

    def vjp_a(x, c):
        return fa.vjp(lambda y: y @ fb, x)[1](c)[0]

    def jvp_a(x, tx):
        return fa.jvp(lambda y: y @ fb, (x,), (tx,))[1]

    got = fa.vmap(vjp_a)(fnp.asarray(a), fnp.asarray(ct))
    assert_allclose(got, jax.vmap(lambda x, c: jax.vjp(lambda y: y @ b, x)[1](c)[0])(a, ct))
    got = fa.vmap(jvp_a)(fnp.asarray(a), fnp.asarray(t))
    assert_allclose(got, np.einsum("nij,jk->nik", t, b))


def test_per_example_gradients_of_a_matmul_only_loss():
    # loss(w; x) = (x @ w) @ c: its gradient in w is outer(x, c), different for each example.
    rng = np.random.default_rng(11)
    w, xs, c = _random(rng, (4, 3)), _random(rng, (6, 4)), _random(rng, (3,))
    fc = fnp.asarray(c)

    def loss(w, x):
        return (x @ w) @ fc

    got = fa.vmap(fa.grad(loss), in_axes=(None, 0))(fnp.asarray(w), fnp.asarray(xs))
    expected = jax.vmap(jax.grad(lambda w, x: (x @ w) @ c), in_axes=(None, 0))(w, xs)
    assert_allclose(got, expected)
    assert_allclose(got, np.einsum("ni,j->nij", xs, c))

  # mul, add and sub need jvp/transpose rules
def test_per_example_gradients_of_a_linear_model():
    rng = np.random.default_rng(12)
    w, b = _random(rng, (4, 3)), _random(rng, (3,))
    xs, ys = _random(rng, (6, 4)), _random(rng, (6, 3))

    def loss(params, x, y):
        w, b = params
        r = x @ w + b - y
        return (r * r) @ fnp.ones(3, dtype=r.dtype)

    def jax_loss(params, x, y):
        w, b = params
        return jnp.sum((x @ w + b - y) ** 2)

    params = (fnp.asarray(w), fnp.asarray(b))
    got = fa.vmap(fa.grad(loss), in_axes=(None, 0, 0))(params, fnp.asarray(xs), fnp.asarray(ys))
    expected = jax.vmap(jax.grad(jax_loss), in_axes=(None, 0, 0))((w, b), xs, ys)
    for g, e in zip(got, expected):
        assert_allclose(g, e)
