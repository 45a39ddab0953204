"""The fast paths and host shortcuts of the elementwise math functions give exactly the
general path's outcome (``tests/shortcut_oracle.py``): the binary functions that bind at once
for two arrays of one dtype (``true_divide``, ``power``, ``float_power``, ``fmod``), and the
shortcuts that evaluate a composite's formula with the primitives' NumPy kernels
(``floor_divide``, ``remainder``, ``divmod``) or with NumPy functions of the same bits. Every
dtype, the integer limits, NaN, infinities, signed zeros, division by zero, broadcasting and
operands as Arrays, weak arrays, device arrays, NumPy arrays, lists and Python scalars. The
last tests check that the shortcuts take the common forms themselves."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from op_table import ALL_DTYPES
from shortcut_oracle import assert_same_outcome
from test_slow_op_shortcuts import _as_input, _values, operands

import funcarray as fa
import funcarray.numpy as fnp
from funcarray.numpy import _rounding_and_division as division

_SHAPES = st.sampled_from([(), (1,), (3,), (2, 3)])
_KINDS = ("array", "weak", "device", "numpy", "list", "scalar")


@st.composite
def operand_pairs(draw, dtypes=ALL_DTYPES):
    """Two operands: mostly of one dtype and shape (the fast paths' case), else any two."""
    if draw(st.booleans()):
        return draw(operands(dtypes)), draw(operands(dtypes))
    dtype = np.dtype(draw(st.sampled_from(dtypes)))
    shape = draw(_SHAPES)
    kinds = st.sampled_from(_KINDS)
    return (_as_input(_values(draw, dtype, shape), draw(kinds)),
            _as_input(_values(draw, dtype, shape), draw(kinds)))


_BINARY = [fnp.true_divide, fnp.power, fnp.float_power, fnp.fmod, fnp.floor_divide,
           fnp.remainder, fnp.divmod]


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(_BINARY), operand_pairs())
def test_binary_functions_match_general_path(op, pair):
    x, y = pair
    assert_same_outcome(lambda: op(x, y))


@pytest.mark.parametrize("op", [division._floor_divide_on_host, division._remainder_on_host,
                                division._divmod_on_host])
@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int32, np.float16, np.float32,
                                   np.float64])
def test_division_shortcuts_take_common_forms(op, dtype):
    x = fnp.asarray(np.arange(-3, 3).astype(dtype) if np.dtype(dtype).kind != "u"
                    else np.arange(6).astype(dtype))
    for y in (x[::-1], fa.device_put(x[::-1]), 2):
        assert op(x, y) is not NotImplemented
    assert op(fa.device_put(x), 3) is not NotImplemented


def _general_binds(op, x, y):
    """What the binary functions with a fast path compute without it (their general path,
    written out): the promoted operands bound to the primitive."""
    from funcarray.numpy._elementwise import _bool_to_int
    from funcarray.numpy._promotion import promote_args, promote_args_inexact
    from funcarray.primitives import elementwise as ew
    prim, promote, prepare = {
        "true_divide": (ew.div_p, promote_args_inexact, lambda a: a),
        "float_power": (ew.pow_p, promote_args_inexact, lambda a: a),
        "power": (ew.pow_p, promote_args, _bool_to_int),
        "fmod": (ew.rem_p, promote_args, _bool_to_int),
    }[op.__name__]
    x, y = promote(op.__name__, x, y)
    return prim.bind(prepare(x), prepare(y))


@settings(max_examples=100, deadline=None)
@given(st.sampled_from([fnp.true_divide, fnp.power, fnp.float_power, fnp.fmod]),
       st.sampled_from([d for d in ALL_DTYPES if d != fnp.bool_]), _SHAPES,
       st.sampled_from(["array", "weak", "device"]), st.data())
def test_binary_fast_paths_match_their_general_binds(op, dtype, shape, kind, data):
    # The fast path (two arrays of one dtype and shape) runs with the shortcuts on and off,
    # so the oracle cannot see it: compare it with the general path's binds instead.
    if op is fnp.fmod and np.dtype(dtype).kind == "c":
        return
    x, y = (_as_input(_values(data.draw, np.dtype(dtype), shape), kind) for _ in range(2))
    assert_same_outcome(lambda: op(x, y))
    got, want = op(x, y), _general_binds(op, x, y)
    assert (got.dtype, got.shape, got.weak_type) == (want.dtype, want.shape, want.weak_type)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
