"""``funcarray.lax`` across its operations: gradients against ``jax.grad``, ``vmap`` against a
Python loop, and the namespace (every operation exported with an example, as jax.lax names
it; errors point at the caller's line).
"""

from __future__ import annotations

import importlib

import jax
import numpy as np
import pytest
from lax_oracle import (
    F32,
    F64,
    _grad_check_all,
    assert_same,
    rand,
    seeded_rng,  # noqa: F401  (an autouse fixture: rand() per test)
)

import funcarray as fa
import funcarray.numpy as fnp
from funcarray import lax
from funcarray.base.errors import is_internal_file
from funcarray.lax import _OP_MODULES as _OP_MODULE_NAMES

# ============================================================================================
# Gradients against jax.grad, vmap against a Python loop
# ============================================================================================

GRAD_CASES = {
    "integer_pow": (lambda m: (lambda x: m.integer_pow(x, -3)), [(2, 3)]),
    "clamp": (lambda m: (lambda lo, x: m.clamp(lo, x, np.float64(1.0))), [(3,), (3,)]),
    "select": (lambda m: (lambda a, b: m.select(a > b, a, b)), [(2, 3), (2, 3)]),
    "convert": (lambda m: (lambda x: m.convert_element_type(x, F32) * 2), [(3,)]),
    "complex-real-imag": (lambda m: (lambda x, y: m.real(m.complex(x, y) * m.complex(y, x))
                                     + m.imag(m.conj(m.complex(x, y)))), [(3,), (3,)]),
    "broadcast_in_dim": (lambda m: (lambda x: m.broadcast_in_dim(x, (2, 3, 4), (1, 2))),
                         [(3, 1)]),
    "reshape": (lambda m: (lambda x: m.reshape(x, (3, 2), (1, 0))), [(2, 3)]),
    "transpose-rev": (lambda m: (lambda x: m.rev(m.transpose(x, (1, 0)), (0,))), [(2, 3)]),
    "squeeze-expand": (lambda m: (lambda x: m.expand_dims(m.squeeze(x, (0,)), (1,))),
                       [(1, 3)]),
    "pad": (lambda m: (lambda x, v: m.pad(x, v, [(1, -1, 2), (-1, 2, 0)])), [(3, 4), ()]),
    "concatenate": (lambda m: (lambda x, y: m.concatenate([x, y, x], 1)), [(2, 3), (2, 1)]),
    "slice": (lambda m: (lambda x: m.slice(x, (0, 1), (2, 4), (1, 2))), [(3, 4)]),
    "dynamic_slice": (lambda m: (lambda x: m.dynamic_slice(x, (-1, 7), (2, 2))), [(3, 4)]),
    "dynamic_update_slice": (lambda m: (lambda x, u: m.dynamic_update_slice(x, u, (2, -3))),
                             [(3, 4), (2, 2)]),
    "dynamic_index_in_dim": (lambda m: (lambda x: m.dynamic_index_in_dim(x, 5, 1, False)),
                             [(3, 4)]),
    "broadcast-collapse": (lambda m: (lambda x: m.collapse(m.broadcast(x, (2,)), 0, 2)),
                           [(3, 2)]),
    "slice_in_dim-index_in_dim": (lambda m: (lambda x: m.slice_in_dim(x, -3, None, 2, 1)
                                             * m.index_in_dim(x, -1, 1)), [(2, 4)]),
    "dynamic_slice_in_dim": (lambda m: (lambda x: m.dynamic_slice_in_dim(x, -3, 2, 1)),
                             [(2, 4)]),
    "dynamic_update_index_in_dim": (lambda m: (lambda x, u: m.dynamic_update_index_in_dim(
        x, u, 9, 0)), [(3, 2), (2,)]),
    "reduce_min": (lambda m: (lambda x: m.reduce_min(x, (1,))), [(3, 4)]),
    "cummin": (lambda m: (lambda x: m.cummin(x, 1, True)), [(2, 4)]),
    "sort_key_val": (lambda m: (lambda k, v: m.sort_key_val(k, v)[1]), [(5,), (5,)]),
    "scatter-min-max": (lambda m: (lambda x, u: m.scatter(
        m.scatter_min(x, np.array([[0], [2]]), u, m.ScatterDimensionNumbers((1,), (0,), (0,))),
        np.array([[1]]), u[:1] * 3, m.ScatterDimensionNumbers((1,), (0,), (0,)))
        + m.scatter_max(x, np.array([[2], [1]]), u, m.ScatterDimensionNumbers((1,), (0,), (0,)))),
        [(3, 2), (2, 2)]),
    "reduce_sum": (lambda m: (lambda x: m.reduce_sum(x, (1,))), [(3, 4)]),
    "reduce_max": (lambda m: (lambda x: m.reduce_max(x, (0,))), [(3, 4)]),
    "reduce_prod": (lambda m: (lambda x: m.reduce_prod(x, (0, 1))), [(2, 3)]),
    "cumsum": (lambda m: (lambda x: m.cumsum(x, 1, True)), [(2, 4)]),
    "cumprod": (lambda m: (lambda x: m.cumprod(x, 0)), [(3, 2)]),
    "cummax": (lambda m: (lambda x: m.cummax(x, 1)), [(2, 4)]),
    "cumlogsumexp": (lambda m: (lambda x: m.cumlogsumexp(x, 0)), [(3, 2)]),
    "sort": (lambda m: (lambda x: m.sort(x, 0)), [(4, 2)]),
    "dot_general": (lambda m: (lambda a, b: m.dot_general(a, b, (((2,), (1,)), ((0,), (0,))))),
                    [(2, 3, 4), (2, 4, 2)]),
    "dot": (lambda m: (lambda a, b: m.dot(a, b)), [(3, 4), (4,)]),
    "batch_matmul": (lambda m: (lambda a, b: m.batch_matmul(a, b)), [(2, 2, 3), (2, 3, 2)]),
    "gather": (lambda m: (lambda x: m.gather(
        x, np.array([[2], [0], [2]]), m.GatherDimensionNumbers((1,), (0,), (0,)), (1, 2),
        mode="clip")), [(3, 2)]),
    "scatter_add": (lambda m: (lambda x, u: m.scatter_add(
        x, np.array([[2], [0], [2]]), u, m.ScatterDimensionNumbers((1,), (0,), (0,)))),
        [(3, 2), (3, 2)]),
}




def test_grads_match_jax():
    _grad_check_all({name: (make, [rand(s, F64, 0.5, 2) for s in shapes])
                     for name, (make, shapes) in GRAD_CASES.items()})


VMAP_CASES = {
    "add-broadcast": (lambda x, y: lax.add(x, y), [(2, 3), (1, 3)]),
    "tanh": (lax.tanh, [(3,)]),
    "clamp": (lambda lo, x: lax.clamp(lo, x, 1.0), [(), (3,)]),
    "select": (lambda a, b: lax.select(lax.gt(a, b), a, b), [(2, 3), (2, 3)]),
    "pad": (lambda x, v: lax.pad(x, v, [(1, -1, 1)]), [(3,), ()]),
    "transpose": (lambda x: lax.transpose(x, (1, 0)), [(2, 3)]),
    "dot_general": (lambda a, b: lax.dot_general(a, b, (((1,), (0,)), ((), ()))),
                    [(2, 3), (3, 2)]),
    "argmax": (lambda x: lax.argmax(x, 1, np.int32), [(2, 3)]),
    "cumsum": (lambda x: lax.cumsum(x, 0, True), [(3, 2)]),
    "reduce_max": (lambda x: lax.reduce_max(x, (0,)), [(3, 2)]),
    "sort": (lambda x: lax.sort(x), [(4,)]),
    "concatenate": (lambda x, y: lax.concatenate([x, y], 0), [(2,), (3,)]),
}




@pytest.mark.parametrize("case", list(VMAP_CASES))
def test_vmap_matches_a_loop(case):
    f, shapes = VMAP_CASES[case]
    batch = [fnp.asarray(rand((4, *s), F32)) for s in shapes]
    got = fa.vmap(f)(*batch)
    want = fnp.stack([f(*(b[k] for b in batch)) for k in range(4)])
    assert_same(got, want, rtol=1e-5, atol=1e-6)  # a batched dot may sum in another order




# ============================================================================================
# The namespace
# ============================================================================================

def test_every_op_is_exported_with_an_example_and_jax_has_it():
    missing_in_jax = {"zeros_like_array"}  # removed from jax.lax; kept for older code
    assert len(set(lax.__all__)) == len(lax.__all__), "a name is exported twice"
    modules = [importlib.import_module(f"funcarray.lax.{name}") for name in _OP_MODULE_NAMES]
    for name in (name for module in modules for name in module.__all__):
        assert name in lax.__all__ and hasattr(lax, name), name
        value = getattr(lax, name)
        if not isinstance(value, type):
            assert "Example:" in (value.__doc__ or ""), name
            assert value.__name__ == name
        if name not in missing_in_jax:
            assert hasattr(jax.lax, name), name


def test_errors_point_at_the_callers_line():
    with pytest.raises(TypeError) as info:
        lax.add(fnp.ones(2), fnp.ones(2, fnp.int32))
    assert "test_lax_grads_vmap_and_namespace.py" in str(info.value)
    tb, frames = info.value.__traceback__, []
    while tb is not None:
        frames.append(tb.tb_frame.f_code.co_filename)
        tb = tb.tb_next
    # One funcarray frame (the function's own, which filters its errors), none below it.
    assert len([f for f in frames if is_internal_file(f)]) == 1
