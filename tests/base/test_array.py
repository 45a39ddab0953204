"""The Array type: immutability, attributes, Python/NumPy protocols, repr (against jax's),
pickling, lazy jax import, and error messages that point at the user's line."""

from __future__ import annotations

import copy
import inspect
import pickle
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import funcarray as fa
import funcarray.numpy as fnp
from funcarray import dtypes

jax.config.update("jax_enable_x64", True)


def _line_of(marker: str) -> int:
    """The line in this file that contains ``marker`` (for the error-location tests)."""
    lines = inspect.getsource(sys.modules[__name__]).splitlines()
    return next(number for number, line in enumerate(lines, start=1)
                if marker in line and "_line_of" not in line)


# --------------------------------------------------------------------------------------------
# Immutability
# --------------------------------------------------------------------------------------------


def test_item_assignment_raises_and_points_at_at_set():
    x = fnp.zeros(3)
    with pytest.raises(TypeError, match=r"x\.at\[0\]\.set"):
        x[0] = 1
    with pytest.raises(TypeError, match=r"x\.at\[1:, \.\.\.\]\.set"):
        x[1:, ...] = 1
    with pytest.raises(TypeError, match="immutable"):
        del x[0]
    assert x.tolist() == [0.0, 0.0, 0.0]


def test_numpy_view_is_read_only():
    x = fnp.arange(4)
    view = np.asarray(x)
    assert not view.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        view[0] = 10
    assert x.tolist() == [0, 1, 2, 3]
    copied = np.array(x)  # an explicit copy is the user's to change
    copied[0] = 10
    assert x.tolist() == [0, 1, 2, 3]


def test_mutating_the_numpy_source_does_not_change_the_array():
    src = np.array([1.0, 2.0, 3.0])
    for make in (fnp.array, fnp.asarray):
        x = make(src)
        src[0] = 100.0
        assert x.tolist()[0] != 100.0
        src[0] = 1.0
    nested = [[1, 2], [3, 4]]
    y = fnp.array(nested)
    nested[0][0] = 9
    assert y.tolist() == [[1, 2], [3, 4]]


def test_at_set_returns_a_new_array():
    x = fnp.zeros(3)
    y = x.at[0].set(1.0)
    assert x.tolist() == [0.0, 0.0, 0.0] and y.tolist() == [1.0, 0.0, 0.0]


# --------------------------------------------------------------------------------------------
# Attributes and protocols
# --------------------------------------------------------------------------------------------


def test_attributes_match_numpy():
    value = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    x = fnp.asarray(value)
    assert x.shape == (2, 3, 4) and x.ndim == 3 and x.size == 24
    assert x.dtype == np.float64 and x.nbytes == value.nbytes and x.itemsize == 8
    assert x.device == fa.Device("cpu", 0) and x.devices() == {x.device}
    np.testing.assert_array_equal(np.asarray(x.T), value.T)
    np.testing.assert_array_equal(np.asarray(x.mT), np.swapaxes(value, -1, -2))
    assert x.T.dtype == np.float64
    assert fnp.zeros(()).shape == () and fnp.zeros((0, 2)).size == 0


def test_array_protocol_and_dtype_conversion():
    x = fnp.asarray(np.array([1.5, 2.5], np.float32))
    assert np.asarray(x).dtype == np.float32
    assert np.asarray(x, dtype=np.float64).dtype == np.float64
    assert np.array(x, copy=True).flags.writeable
    np.testing.assert_array_equal(np.add(x, 1), [2.5, 3.5])


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.bool_, np.complex64], ids=str)
def test_dlpack_round_trip(dtype):
    value = np.arange(6).reshape(2, 3).astype(dtype)
    x = fnp.asarray(value)
    out = np.from_dlpack(x)
    np.testing.assert_array_equal(out, value)
    assert out.dtype == value.dtype and out.shape == value.shape
    if out.flags.writeable:  # a consumer that could not be told "read-only" gets a copy
        out[...] = 0
    np.testing.assert_array_equal(np.asarray(x), value)
    assert x.__dlpack_device__() == value.__dlpack_device__()


def test_len_iter_and_scalar_conversions():
    x = fnp.array([[1, 2], [3, 4]])
    assert len(x) == 2
    rows = list(x)
    assert all(isinstance(r, fa.Array) for r in rows)
    assert [r.tolist() for r in rows] == [[1, 2], [3, 4]]
    with pytest.raises(TypeError, match="0-d"):
        len(fnp.asarray(np.float32(1)))
    with pytest.raises(TypeError, match="0-d"):
        iter(fnp.asarray(np.float32(1)))
    s = fnp.asarray(np.int32(7))
    assert int(s) == 7 and float(s) == 7.0 and complex(s) == 7 + 0j
    assert bool(s) is True and bool(fnp.asarray(np.int32(0))) is False
    assert [10, 20, 30, 40, 50, 60, 70, 80][s] == 80  # __index__
    assert s.item() == 7 and type(s.item()) is int
    assert fnp.asarray(np.float32(2.5)).item() == 2.5
    with pytest.raises(TypeError, match="integer"):
        [1, 2][fnp.asarray(np.float32(1.0))]
    with pytest.raises(ValueError, match="ambiguous"):
        bool(fnp.ones(2))


def test_tolist_astype_reshape_and_methods():
    x = fnp.arange(6)
    assert x.tolist() == [0, 1, 2, 3, 4, 5]
    assert fnp.asarray(np.float32(1.5)).tolist() == 1.5
    y = x.astype(np.float16)
    assert y.dtype == np.float16 and y.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    assert x.astype("float64").dtype == np.float64
    assert fnp.array([-1.7, 2.9]).astype(np.int32).tolist() == [-1, 2]  # truncates
    assert x.reshape(2, 3).shape == (2, 3) and x.reshape((3, 2)).shape == (3, 2)
    assert x.reshape(-1, 2).shape == (3, 2)
    assert float(x.sum()) == 15.0 and int(x.max()) == 5 and int(x.argmax()) == 5
    assert x.reshape(2, 3).transpose().shape == (3, 2)
    assert x.flatten().shape == (6,) and x.copy() is x
    np.testing.assert_array_equal(np.asarray(x.reshape(2, 3).mean(axis=0)), [1.5, 2.5, 3.5])
    assert round(fnp.asarray(np.float32(2.6))) == 3


# --------------------------------------------------------------------------------------------
# repr, like jax's
# --------------------------------------------------------------------------------------------

_REPR_VALUES = [
    np.array([1.0, 2.0], np.float32),
    np.array([[1, 2], [3, 4]], np.int8),
    np.array(3.5, np.float64),
    np.zeros((0, 3), np.float32),
    np.zeros((2, 0), np.int32),
    np.array([1.5, 2.25, -3.0], dtypes.bfloat16),
    np.array([0.1, 1e4], np.float16),
    np.array([True, False]),
    np.array([1 + 2j, -0.5j], np.complex64),
    np.arange(12.0).reshape(3, 4),
    np.array([1e-8, 1e8], np.float32),
    np.array([np.nan, np.inf, -np.inf], np.float32),
    np.arange(2000, dtype=np.int32),  # summarised with ...
    np.array([255, 0], np.uint8),
    np.array([1, 2], np.uint64),
    np.arange(24, dtype=np.int16).reshape(2, 3, 4),
]


@pytest.mark.parametrize("value", _REPR_VALUES, ids=lambda v: f"{v.dtype}{list(v.shape)}")
def test_repr_matches_jax(value):
    assert repr(fnp.asarray(value)) == repr(jnp.asarray(value))


@pytest.mark.parametrize("scalar", [1, 2.5, 1j], ids=repr)
def test_repr_of_weak_values_matches_jax(scalar):
    with jax.enable_x64(False):
        expected = repr(jnp.asarray(scalar))
    assert repr(fnp.asarray(scalar)) == expected
    assert "weak_type=True" in expected


def test_repr_of_float8_names_the_dtype():
    x = fnp.ones(2, dtype=fnp.float8_e4m3fn)
    assert repr(x) == repr(jnp.ones(2, dtype=jnp.float8_e4m3fn))


def test_str_and_format():
    x = fnp.array([1.0, 2.0])
    assert str(x) == str(np.array([1.0, 2.0], np.float32))
    assert f"{fnp.asarray(np.float32(1.25)):.1f}" == "1.2"


# --------------------------------------------------------------------------------------------
# Hashing, pickling, copying
# --------------------------------------------------------------------------------------------


def test_arrays_are_unhashable():
    with pytest.raises(TypeError, match="unhashable"):
        hash(fnp.zeros(2))
    with pytest.raises(TypeError):
        {fnp.zeros(2): 1}


@pytest.mark.parametrize("x", [fnp.array([1.0, 2.0]), fnp.asarray(3), fnp.zeros((0, 2)),
                               fnp.ones(3, dtype=fnp.bfloat16)], ids=repr)
def test_pickle_round_trip_keeps_value_dtype_and_weak_type(x):
    y = pickle.loads(pickle.dumps(x))
    assert isinstance(y, fa.Array)
    assert (y.shape, y.dtype, y.weak_type) == (x.shape, x.dtype, x.weak_type)
    np.testing.assert_array_equal(np.asarray(y), np.asarray(x))
    assert not np.asarray(y).flags.writeable


def test_copy_and_deepcopy_are_the_same_immutable_value():
    x = fnp.array([1, 2])
    for y in (copy.copy(x), copy.deepcopy(x), copy.deepcopy({"a": [x]})["a"][0]):
        assert isinstance(y, fa.Array) and y.tolist() == [1, 2]


# --------------------------------------------------------------------------------------------
# jax stays unloaded in eager mode
# --------------------------------------------------------------------------------------------


def test_eager_work_does_not_import_jax():
    code = (
        "import sys\n"
        "import funcarray as fa, funcarray.numpy as fnp\n"
        "x = fnp.arange(6.0).reshape(2, 3)\n"
        "y = fnp.sin(x) * 2 + x.T.T - fnp.ones(3)\n"
        "z = fnp.where(y > 0, y, 0.0).sum()\n"
        "w = fnp.asarray([1, 2], dtype=fnp.bfloat16) // 2\n"
        "print(repr(z), w.tolist())\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('jax', 'jaxlib'))\n"
        "assert not loaded, loaded\n"
        # the subpackages load on first use (keeps `import funcarray` light); numpy uses a
        # few of lax's modules, and those do not load the rest of lax
        "lazy = [m for m in ('funcarray.lax._control_flow', 'funcarray.lax._collectives',\n"
        "                    'funcarray.scipy', 'funcarray.random',\n"
        "                    'funcarray.nn', 'funcarray.optim') if m in sys.modules]\n"
        "assert not lazy, lazy\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr


# --------------------------------------------------------------------------------------------
# Error messages
# --------------------------------------------------------------------------------------------


def test_shape_mismatch_names_op_shapes_and_user_line():
    x, y = fnp.ones((2, 3)), fnp.ones((4,))
    with pytest.raises(ValueError) as info:
        x + y  # MARK-shape-mismatch
    message = str(info.value)
    assert "add" in message and "(2, 3)" in message and "(4,)" in message
    assert f"test_array.py:{_line_of('MARK-shape-mismatch')}" in message


def test_out_of_range_axis_names_the_valid_range_and_user_line():
    x = fnp.ones((2, 3))
    with pytest.raises(ValueError) as info:
        fnp.sum(x, axis=2)  # MARK-axis
    message = str(info.value)
    assert "sum" in message and "axis 2" in message and "-2 to 1" in message
    assert f"test_array.py:{_line_of('MARK-axis')}" in message


def test_invalid_dtype_combination_names_both_dtypes_and_user_line():
    x = fnp.ones(2, dtype=fnp.float8_e4m3fn)
    y = fnp.ones(2, dtype=fnp.float16)
    with pytest.raises(TypeError) as info:
        fnp.multiply(x, y)  # MARK-dtypes
    message = str(info.value)
    assert "multiply" in message and "float8_e4m3fn" in message and "float16" in message
    assert "astype" in message  # the fix
    assert f"test_array.py:{_line_of('MARK-dtypes')}" in message


def test_unsupported_operand_type_is_a_type_error():
    with pytest.raises(TypeError, match="add"):
        fnp.add(fnp.ones(2), "text")
