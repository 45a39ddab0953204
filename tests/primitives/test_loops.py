"""The bind-level loops of ``funcarray/primitives/loops.py`` (``fori_loop``, ``while_loop``,
``map``) and the bind-level operations that composite rules are written with
(``funcarray/primitives/bind_ops.py``): eager and under jit (staged into ``scan``/``while``),
closing over traced values, differentiated and vectorised, against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import funcarray as fa
import funcarray.numpy as fnp
from funcarray.base.array import Array
from funcarray.primitives import bind_ops as ops
from funcarray.primitives import loops


def _f32(x):
    return Array(np.asarray(x, np.float32))


def _power_loop(x, n=3):
    """``x ** n`` as a fori_loop that closes over ``x``."""
    return loops.fori_loop(0, n, lambda i, acc: ops.mul(acc, x), ops.full_like(x, 1))


@pytest.mark.parametrize("staged", [False, True])
def test_fori_loop_counts_from_lower_and_closes_over_values(staged):
    def f(x):
        def body(i, carry):
            total, scaled = carry
            return ops.add(total, ops.convert(i, np.float32)), ops.mul(scaled, x)
        return loops.fori_loop(2, 5, body, (ops.full_like(x, 0), x))

    run = fa.jit(f) if staged else f
    total, scaled = run(_f32(2.0))
    np.testing.assert_array_equal(np.asarray(total), np.float32(2 + 3 + 4))
    np.testing.assert_array_equal(np.asarray(scaled), np.float32(16.0))


def test_fori_loop_is_a_scan_with_an_int32_counter():
    ir = fa.make_ir(_power_loop)(_f32(2.0)).ir
    (eqn,) = [e for e in ir.eqns if e.prim.name == "scan"]
    assert eqn.params["length"] == 3
    assert eqn.params["num_carry"] == 2
    assert eqn.params["body"].in_binders[1].aval.dtype == np.int32  # after the closed-over x


def test_fori_loop_of_no_steps_returns_the_carry():
    out = fa.jit(lambda x: loops.fori_loop(3, 3, lambda i, v: ops.neg(v), x))(_f32(1.5))
    np.testing.assert_array_equal(np.asarray(out), np.float32(1.5))


def test_fori_loop_differentiates_and_vectorises():
    x = np.float32(1.5)
    np.testing.assert_allclose(np.asarray(fa.grad(_power_loop)(_f32(x))), 3 * x ** 2,
                               rtol=1e-6)
    xs = np.array([1.0, 2.0, -3.0], np.float32)
    np.testing.assert_allclose(np.asarray(fa.vmap(_power_loop)(Array(xs))), xs ** 3)


def test_fori_loop_rejects_a_body_that_changes_the_carry():
    with pytest.raises(TypeError, match="fori_loop: the body returns"):
        fa.jit(lambda x: loops.fori_loop(0, 2, lambda i, v: ops.convert(v, np.int32), x))(
            _f32(1.0))


@pytest.mark.parametrize("staged", [False, True])
def test_while_loop_runs_until_the_condition_fails(staged):
    def halve_until_small(x):
        def cond(carry):
            count, value = carry
            return ops.gt(value, ops.full_like(value, 1))

        def body(carry):
            count, value = carry
            return ops.add(count, ops.full_like(count, 1)), ops.mul(value, ops.full_like(value,
                                                                                      0.5))

        return loops.while_loop(cond, body, (ops.scalar(0, np.int32), x))

    run = fa.jit(halve_until_small) if staged else halve_until_small
    count, value = run(_f32(10.0))
    assert int(np.asarray(count)) == 4
    np.testing.assert_array_equal(np.asarray(value), np.float32(0.625))


def test_while_loop_jvp():
    def f(x):
        return loops.while_loop(lambda v: ops.lt(v, ops.full_like(v, 10)),
                                lambda v: ops.mul(v, x), x)

    value, tangent = fa.jvp(f, (_f32(2.0),), (_f32(1.0),))
    np.testing.assert_allclose(np.asarray(value), 16.0)
    np.testing.assert_allclose(np.asarray(tangent), 4 * 2.0 ** 3)  # d(x^4)/dx


@pytest.mark.parametrize("staged", [False, True])
def test_map_stacks_each_slice_result(staged):
    def f(xs, ys):
        return loops.map(lambda pair: [ops.mul(pair[0], pair[1]), ops.reduce_sum(pair[0], (0,))],
                         (xs, ys))

    xs = np.arange(6, dtype=np.float32).reshape(3, 2)
    ys = np.array([[1, -1], [2, 0], [0.5, 3]], np.float32)
    run = fa.jit(f) if staged else f
    products, sums = run(Array(xs), Array(ys))
    np.testing.assert_array_equal(np.asarray(products), xs * ys)
    np.testing.assert_array_equal(np.asarray(sums), xs.sum(axis=1))


def test_bind_ops_hypot_and_copysign_match_numpy():
    x = np.array([3.0, 0.0, -np.inf, np.nan, 1e30, -0.0], np.float32)
    y = np.array([-4.0, 0.0, np.nan, 2.0, 1e30, 5.0], np.float32)
    np.testing.assert_array_equal(np.asarray(ops.hypot(Array(x), Array(y))), np.hypot(x, y))
    np.testing.assert_array_equal(np.asarray(ops.copysign(Array(x), Array(y))),
                                  np.copysign(x, y))
    np.testing.assert_array_equal(np.asarray(fa.jit(ops.hypot)(Array(x), Array(y))),
                                  np.hypot(x, y))


def test_bind_ops_where_broadcasts_and_argsort_is_stable():
    pred = Array(np.array([True, False, True]))
    x = Array(np.ones((2, 3), np.float32))
    out = ops.where(pred, x, ops.zeros_like(x))
    np.testing.assert_array_equal(np.asarray(out), np.where([True, False, True],
                                                            np.ones((2, 3)), 0))
    keys = np.array([[2.0, 1.0, 2.0, np.nan, 1.0]], np.float32)
    np.testing.assert_array_equal(np.asarray(ops.argsort(Array(keys), 1)),
                                  np.argsort(keys, axis=1, kind="stable"))
    assert fnp.asarray(ops.reduce_all(ops.gt(Array(keys[0, :3]), Array(np.zeros(3, np.float32))),
                                      (0,)))
