"""The host shortcuts of lax's elementwise wrappers (``reciprocal``, ``round``, ``conj``,
``clz``, ``convert_element_type``, ``bitcast_convert_type``, ``pow``, ``nextafter``,
``mulhi``, ``select``, ``clamp``) give the general path's outcome (``tests/shortcut_oracle.py``):
the same result (type, shape, dtype, weak type, bits) or the same error, for every dtype,
special values (NaN, infinities, -0.0, ties of rounding, the integer limits), shapes from 0-d
to empty, and operands given as Arrays, weak arrays, device arrays, NumPy arrays and scalars,
lists and Python scalars. The last tests check that the shortcuts take the common forms."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from op_table import ALL_DTYPES
from shortcut_oracle import assert_same_outcome

import funcarray as fa
import funcarray.numpy as fnp
from funcarray import lax
from funcarray.base.array import Array

_KINDS = ("array", "weak", "device", "numpy", "numpy_scalar", "list", "scalar")
_FLOATS = [0.0, -0.0, 0.5, -0.5, 1.5, -2.5, 0.49999997, 1.0, -1.0, 0.3, -7.5, 1e-40, 6e-8,
           65504.0, 2.0**31, -2.0**31, 3e9, 1e38, np.inf, -np.inf, np.nan, -np.nan]
_SHAPES = st.sampled_from([(), (1,), (3,), (2, 3), (0,), (2, 0)])


def _pool(dtype) -> list:
    """The values an operand of ``dtype`` is drawn from: the limits and small numbers of an
    integer dtype, the special floats otherwise."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return [False, True]
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return [v for v in (int(info.min), int(info.min) + 1, -7, -1, 0, 1, 2, 7, 100,
                            int(info.max)) if v >= info.min]
    return _FLOATS


def _values(draw, dtype, shape) -> np.ndarray:
    items = draw(st.lists(st.sampled_from(_pool(dtype)), min_size=int(np.prod(shape)),
                          max_size=int(np.prod(shape))))
    if np.dtype(dtype).kind in "biu":
        return np.asarray(items, dtype).reshape(shape)
    if np.dtype(dtype).kind == "c":  # (the imaginary parts: the values reversed)
        items = [complex(re, im) for re, im in zip(items, reversed(items))]
    with np.errstate(over="ignore", invalid="ignore"):
        return np.asarray(items).astype(dtype).reshape(shape)


def _as_input(value: np.ndarray, kind: str):
    if kind == "scalar":
        return value.item() if value.ndim == 0 and value.dtype.kind in "iuf" else (
            fnp.asarray(value))
    if kind == "numpy_scalar":
        return value[()] if value.ndim == 0 else value
    return {"array": fnp.asarray, "weak": lambda v: Array(v.copy(), True),
            "device": lambda v: fa.device_put(fnp.asarray(v)), "numpy": lambda v: v,
            "list": np.ndarray.tolist}[kind](value)


@st.composite
def operands(draw, dtypes=ALL_DTYPES, kinds=_KINDS, shape=None):
    dtype = draw(st.sampled_from(dtypes))
    value = _values(draw, dtype, draw(_SHAPES) if shape is None else shape)
    return _as_input(value, draw(st.sampled_from(kinds)))


_DTYPE_ARGS = st.sampled_from(list(ALL_DTYPES) + [float, int, bool, "float32", "int4x"])


@settings(max_examples=120, deadline=None)
@given(st.sampled_from([lax.reciprocal, lax.round, lax.conj, lax.clz, lax.sign,
                        lax.population_count, lax.exp]), operands())
def test_unary_ops_match_general_path(op, x):
    assert_same_outcome(lambda: op(x))


@settings(max_examples=40, deadline=None)
@given(operands(), st.sampled_from([0, 1, lax.RoundingMethod.TO_NEAREST_EVEN, True, 2, "x"]))
def test_round_methods_match_general_path(x, method):
    assert_same_outcome(lambda: lax.round(x, method))


@settings(max_examples=80, deadline=None)
@given(operands(), _DTYPE_ARGS)
def test_conversions_match_general_path(x, dtype):
    assert_same_outcome(lambda: lax.convert_element_type(x, dtype))
    assert_same_outcome(lambda: lax.bitcast_convert_type(x, dtype))


def test_round_ties_and_clz_limits_match_general_path():
    with np.errstate(over="ignore"):
        for dtype in (np.float16, np.float32, np.float64):
            x = np.asarray([0.5, -0.5, 2.5, -3.5, 0.49999997, -0.0, 1e30, np.inf, np.nan],
                           np.float64).astype(dtype)
            for values in (x, x[2:3], x[4:]):
                assert_same_outcome(lambda v=values: lax.round(fnp.asarray(v)))
    for dtype in ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"):
        info = np.iinfo(dtype)
        x = np.asarray([info.min, info.max, 0, 1, 2**(info.bits // 2)], dtype)
        assert_same_outcome(lambda v=x: lax.clz(fnp.asarray(v)))


def test_unary_shortcuts_take_the_common_forms():
    from funcarray.lax import _ops_unary as u

    x, c, i = fnp.asarray([0.5, 1.5]), fnp.asarray([1 + 2j]), fnp.asarray([1, 7])
    for rule, args in ((u._reciprocal_on_host, (x,)), (u._round_on_host, (x,)),
                       (u._conj_on_host, (c,)), (u._conj_on_host, (np.complex64(1j),)),
                       (u._conj_on_host, (x,)), (u._clz_on_host, (i,)),
                       (u._clz_on_host, (fa.device_put(i),)),
                       (u._convert_element_type_on_host, (x, np.int32)),
                       (u._bitcast_convert_type_on_host, (x, np.int32))):
        assert rule(*args) is not NotImplemented, rule.__name__
