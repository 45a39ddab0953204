"""The host shortcuts of ``x + y`` (promotion of device and mixed operands), of the logical
functions and of ``a @ b`` give exactly the general path's outcome: results (type, shape,
dtype, weak type, bits) and errors, over every dtype, NaN/inf/-0.0, weak operands, and operands
as Arrays, device arrays, NumPy arrays, lists and Python scalars."""

import operator

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from op_table import ALL_DTYPES
from shortcut_oracle import assert_same_outcome, general_path

import funcarray as fa
import funcarray.numpy as fnp
import funcarray.testing as ft
from funcarray.base import dtypes
from funcarray.base.array import Array, DeviceArray
from funcarray.numpy._linalg import _matmul_on_host
from funcarray.numpy._promotion import promote_binary

_SPECIALS = (np.nan, np.inf, -np.inf, -0.0, 0.0)
_WEAK_DTYPES = {"b": None, "i": dtypes.int32, "u": dtypes.int32, "f": dtypes.float32,
                "c": dtypes.complex64}


def _elements(dtype):
    if dtypes.is_complex(dtype):
        part = st.one_of(st.sampled_from(_SPECIALS), st.floats(-100, 100, width=32))
        return st.builds(complex, part, part)
    if dtypes.is_inexact(dtype):
        return st.one_of(st.sampled_from(_SPECIALS),
                         ft.finite_floats(dtype, min_value=-100, max_value=100))
    return None


_FORMS = ("array", "device", "numpy", "list", "weak")


@st.composite
def operands(draw, shape, dtype=None, forms=_FORMS):
    """An operand of ``shape``, as one of the ``forms`` a user passes."""
    dtype = draw(st.sampled_from(ALL_DTYPES)) if dtype is None else dtype
    x = draw(ft.arrays(dtype, shape, elements=_elements(dtype)))
    form = draw(st.sampled_from(forms + (("scalar",) if shape == () else ())))
    value = np.asarray(x)
    if form == "device":
        return fa.device_put(x)
    if form == "numpy":
        return value
    if form == "list":
        return value.tolist()
    if form == "scalar":
        return value.item()
    weak_dtype = _WEAK_DTYPES[np.dtype(dtype).kind if dtype != dtypes.bfloat16 else "f"]
    if form == "weak" and weak_dtype is not None:
        with np.errstate(all="ignore"):
            return Array(value.astype(weak_dtype), True)
    return x


# --------------------------------------------------------------------------------------------
# x + y and the other binary functions: the promotion step's shortcut
# --------------------------------------------------------------------------------------------

_BINARY = [operator.add, operator.mul, operator.sub, operator.truediv, fnp.add, fnp.maximum,
           fnp.less, fnp.logical_and, fnp.logical_or, fnp.logical_xor]


@given(st.sampled_from(_BINARY), ft.mutually_broadcastable_shapes(2, max_dims=2, max_side=3),
       st.booleans(), st.data())
def test_binary_operations_match_the_general_path(op, shapes, mismatched, data):
    x_shape, y_shape = shapes.input_shapes
    if mismatched:  # shapes that do not broadcast: the general path's error
        x_shape, y_shape = (2, *x_shape), (3, *y_shape)
    x = data.draw(operands(x_shape), label="x")
    y = data.draw(operands(y_shape), label="y")
    with np.errstate(all="ignore"):
        assert_same_outcome(lambda: op(x, y))


@given(st.sampled_from(_BINARY), ft.mutually_broadcastable_shapes(2, max_dims=2, max_side=3),
       st.booleans(), st.data())
def test_binary_operations_on_device_arrays_match_the_general_path(op, shapes, swap, data):
    x_shape, y_shape = shapes.input_shapes
    x = data.draw(operands(x_shape, forms=("device",)), label="x")
    y = data.draw(operands(y_shape), label="y")
    x, y = (y, x) if swap else (x, y)
    with np.errstate(all="ignore"):
        assert_same_outcome(lambda: op(x, y))


def test_device_operands_take_the_host_fast_paths():
    # (fresh device arrays for each path: a device array read once is an Array since)
    for make_y in (lambda: 2.0, lambda: fa.device_put(fnp.ones(3)), lambda: fnp.ones(3),
                   lambda: fnp.asarray(2.0)):
        promoted = promote_binary("add", fa.device_put(fnp.arange(3.0)), make_y())
        assert all(type(p) is not DeviceArray for p in promoted)
        with general_path():
            promoted = promote_binary("add", fa.device_put(fnp.arange(3.0)), make_y())
            assert any(type(p) is DeviceArray for p in promoted)


# --------------------------------------------------------------------------------------------
# a @ b
# --------------------------------------------------------------------------------------------

@st.composite
def matmul_shapes(draw):
    """Operand shapes of ``a @ b``: 0-d to 3-d, their inner dimensions mostly aligned."""
    side = st.integers(1, 3)
    k = draw(side)
    a_rank, b_rank = draw(st.integers(0, 3)), draw(st.integers(0, 3))
    a_shape = tuple(draw(side) for _ in range(max(a_rank - 1, 0))) + (k,) * (a_rank > 0)
    b_shape = tuple(draw(side) for _ in range(max(b_rank - 2, 0))) + (k,) * (b_rank > 0)
    b_shape += tuple(draw(side) for _ in range(b_rank > 1))
    if draw(st.integers(0, 5)) == 0 and a_shape:  # misaligned
        a_shape = (*a_shape[:-1], k + 1)
    return a_shape, b_shape


@given(matmul_shapes(), st.sampled_from(ALL_DTYPES), st.booleans(),
       st.sampled_from([{}, {}, {"precision": "highest"},
                        {"preferred_element_type": np.float32}]), st.booleans(), st.data())
def test_matmul_matches_the_general_path(shapes, dtype, same_dtype, kwargs, operator_form,
                                         data):
    a = data.draw(operands(shapes[0], dtype), label="a")
    b = data.draw(operands(shapes[1], dtype if same_dtype else None), label="b")
    with np.errstate(all="ignore"):
        if operator_form:
            assert_same_outcome(lambda: a @ b)
        else:
            assert_same_outcome(lambda: fnp.matmul(a, b, **kwargs))


@given(st.sampled_from([((2, 3), (3, 2)), ((3,), (3, 2)), ((2, 3), (3,)), ((3,), (3,)),
                        ((1, 1), (1, 4))]),
       st.sampled_from(ALL_DTYPES), st.booleans(), st.data())
def test_matmul_of_host_and_device_matrices_matches_the_general_path(shapes, dtype,
                                                                    operator_form, data):
    a = data.draw(operands(shapes[0], dtype, forms=("array", "device")), label="a")
    b = data.draw(operands(shapes[1], dtype, forms=("array", "device")), label="b")
    with np.errstate(all="ignore"):
        assert_same_outcome((lambda: a @ b) if operator_form else lambda: fnp.matmul(a, b))


def test_matmul_shortcut_takes_the_common_forms():
    m = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    for convert in (fnp.asarray, fa.device_put):
        for a, b in ((m, m.T), (m[0], m.T), (m, m[0]), (m[0], m[0])):
            a, b = convert(a), convert(b)
            for dtype in (np.float32, np.float64, np.int32, np.complex64, np.bool_):
                x, y = a.astype(dtype), b.astype(dtype)
                out = _matmul_on_host(x, y)
                assert type(out) is Array, (a.shape, b.shape, dtype)
                assert_same_outcome(lambda x=x, y=y: x @ y)
    # A wider accumulator, a weak operand, a 3-d one: the general path.
    half = fnp.ones((2, 2), np.float16)
    assert _matmul_on_host(half, half) is NotImplemented
    assert _matmul_on_host(Array(m, True), fnp.asarray(m.T)) is NotImplemented
    assert _matmul_on_host(fnp.ones((2, 2, 2)), fnp.ones((2, 2))) is NotImplemented


_SCALARS = st.one_of(st.integers(-2**40, 2**40), st.sampled_from([2**31 - 1, -2**31, 2**31]),
                     st.floats(allow_nan=True, allow_infinity=True))


@given(dtype=st.sampled_from(["int32", "float32", "complex64", "int8", "float16", "float64"]),
       value=st.sampled_from([0, 1, -3, 7.5, -0.0, np.inf]), scalar=_SCALARS,
       shape=st.sampled_from([(), (3,)]), scalar_first=st.booleans(),
       op=st.sampled_from([operator.add, operator.sub, operator.mul, operator.truediv,
                           operator.lt, fnp.maximum]))
def test_weak_arrays_with_python_scalars_promote_as_the_general_path(
        dtype, value, scalar, shape, scalar_first, op):
    # A weak array (from a Python scalar) meeting a Python scalar takes promote_binary's fast
    # path in both settings of eager_shortcuts: hold it to the lattice walk (_promote).
    from funcarray.numpy._promotion import _promote

    if np.dtype(dtype).kind == "i" and (not np.isfinite(value) or value != int(value)):
        value = -3  # (an integer array holds integers)
    x = Array(np.full(shape, value).astype(dtype), True)
    pair = (scalar, x) if scalar_first else (x, scalar)

    def outcome(promote):
        try:
            a, b = promote(*pair)
            return ("ok", [(np.asarray(v).tolist(), np.dtype(v.dtype), v.weak_type)
                           for v in (a, b)])
        except Exception as exc:  # noqa: BLE001 (the error is the outcome compared)
            return ("error", type(exc), str(exc).split("\n  (at ")[0])  # (not the location)

    fast = outcome(lambda a, b: promote_binary("add", a, b))
    general = outcome(lambda a, b: _promote("add", (a, b), eager_broadcast=True))
    assert repr(fast) == repr(general)  # (repr: NaNs compare equal)
    assert_same_outcome(lambda: op(*pair))
