"""The elementwise API functions' eager entry (``funcarray/primitives/eager_entry.py``).

Every function made by ``eager_entry`` (``fnp.sin``, ``fnp.add``, ``lax.exp``...) runs its
primitive's kernel in its own frame for concrete operands of an accepted dtype; held here to
the general path (``bind``, primitive by primitive, the setting ``eager_shortcuts`` off) on
every accepted dtype, host and device arrays, edge values included. A replaced ``impl`` is
honoured: the entries bind until the original is back.
"""

import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from shortcut_oracle import assert_same_outcome

import funcarray as fa
import funcarray.numpy as fnp
from funcarray.primitives import eager_entry as entry_module
from funcarray.primitives import elementwise as ew


def _is_entry(fn):
    code = getattr(fn, "__code__", None)
    return code is not None and code.co_filename == entry_module.__file__


def _entries():
    found = {}
    for prefix, namespace in (("numpy", fnp), ("lax", fa.lax)):
        for name in dir(namespace):
            fn = getattr(namespace, name)
            if isinstance(fn, fnp.ufunc):  # (its call, and the function it wraps)
                if _is_entry(type(fn).__call__):
                    found[f"{prefix}.{name}.__call__"] = type(fn).__call__
                fn = fn.__wrapped__
            if _is_entry(fn):
                found[f"{prefix}.{name}"] = fn
    for name in dir(fa.Array):  # the operators
        if _is_entry(fn := getattr(fa.Array, name)):
            found[f"Array.{name}"] = fn
    return found


ENTRIES = _entries()


def _closure(fn, name):
    return fn.__closure__[fn.__code__.co_freevars.index(name)].cell_contents


def test_the_elementwise_families_are_entries():
    for name in ("numpy.sin", "numpy.add", "numpy.less", "numpy.sqrt", "numpy.square",
                 "numpy.absolute", "numpy.negative", "lax.exp", "lax.add", "lax.sin"):
        assert name in ENTRIES, name
    for name in ("numpy.add.__call__", "numpy.negative.__call__", "Array.__add__",
                 "Array.__radd__", "Array.__lt__", "Array.__neg__"):
        assert name in ENTRIES, name
    assert len(ENTRIES) > 100


def _values(draw, dtype, shape):
    size = int(np.prod(shape))
    if dtype == np.bool_:
        raw = draw(st.lists(st.booleans(), min_size=size, max_size=size))
        return np.array(raw, dtype).reshape(shape)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        edges = st.sampled_from([int(info.min), int(info.max), 0, -1 if info.min else 1])
        ints = st.one_of(edges, st.integers(int(info.min), int(info.max)))
        return np.array(draw(st.lists(ints, min_size=size, max_size=size)),
                        np.int64 if dtype.kind == "i" else np.uint64).astype(dtype).reshape(shape)
    floats = st.one_of(st.sampled_from([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, 0.5, -2.0]),
                       st.floats(-1e6, 1e6, allow_nan=False, width=32))
    real = np.array(draw(st.lists(floats, min_size=size, max_size=size)), np.float64)
    if dtype.kind == "c":
        imag = np.array(draw(st.lists(floats, min_size=size, max_size=size)), np.float64)
        real = real.astype(np.complex128)
        real.imag = imag  # (not real + 1j * imag: inf * 1j has a NaN real part)
    with np.errstate(all="ignore"):
        return real.astype(dtype).reshape(shape)


# Shapes of two operands: one shape, shapes that broadcast, shapes that do not.
_SHAPE_PAIRS = [((), ()), ((3,), (3,)), ((2, 3), (2, 3)), ((3,), (2, 3)), ((), (2, 3)),
                ((2, 1), (1, 3)), ((2,), (3,))]


@st.composite
def _operands(draw, fn):
    accepted = sorted(_closure(fn, "accepted"), key=str)
    dtype = np.dtype(draw(st.sampled_from(accepted)))
    shapes = draw(st.sampled_from(_SHAPE_PAIRS))[:_closure(fn, "prim").nargs]
    place = draw(st.sampled_from([fnp.asarray, _device_put]))
    operands = [place(_values(draw, dtype, shape)) for shape in shapes]
    if len(operands) == 2 and draw(st.integers(0, 2)) == 0:  # (x * 0.5, i + 3, 1 - x)
        operands[1] = draw(_PYTHON_SCALARS)
        if draw(st.booleans()):
            operands.reverse()
    return operands


_PYTHON_SCALARS = st.one_of(
    st.sampled_from([0.5, -0.0, float("nan"), float("inf"), 1e300, 1e-40, 3.0, 0, -1, 7,
                     2**31 - 1, -(2**31), 2**31, 2**40, -(2**63), True, 1j]),
    st.floats(), st.integers(-(2**33), 2**33))


def _device_put(value):
    try:
        return fa.device_put(value)
    except TypeError:  # (a dtype this jaxlib cannot hold, float4/float6: a host array then)
        return fnp.asarray(value)


@pytest.mark.parametrize("name", sorted(ENTRIES))
@settings(max_examples=12, deadline=None)
@given(data=st.data())
def test_entry_ends_as_the_general_path(name, data):
    fn = ENTRIES[name]
    operands = data.draw(_operands(fn))
    assert_same_outcome(lambda: fn(*operands))


def test_a_replaced_impl_is_called_until_the_original_is_back(monkeypatch):
    x = fnp.asarray(np.array([0.5, 1.0], np.float32))
    calls = []
    impl = ew.sin_p.impl
    monkeypatch.setattr(ew.sin_p, "impl", lambda *a: calls.append(1) or impl(*a))
    np.testing.assert_array_equal(fnp.sin(x), np.sin(x._value))
    fa.lax.sin(x)
    x + x  # (another primitive: its entries still inline)
    assert len(calls) == 2
    monkeypatch.undo()
    calls.clear()
    fnp.sin(x)
    assert calls == [] and _closure(fnp.sin, "eager") is not None


def test_errors_of_the_general_path_point_at_the_callers_line():
    with pytest.raises(TypeError, match="sin") as info:
        fnp.sin("not a number")
    line = sys._getframe().f_lineno - 1
    assert f"test_eager_entry.py:{line}: fnp.sin(" in str(info.value)
    # (no frame of funcarray's between the test and the entry, which re-raised)
    frames = [entry.path.name for entry in info.traceback]
    assert frames == ["test_eager_entry.py", "eager_entry.py"]


def test_keyword_option_goes_to_the_general_path():
    x = fnp.asarray(np.array([0.5], np.float32))
    np.testing.assert_allclose(fa.lax.exp(x, accuracy=None), np.exp(x._value))
    with pytest.raises(Exception, match="accuracy"):
        fa.lax.exp(x, accuracy=object())


def test_a_ufunc_objects_other_calls_go_to_the_ufunc_layer():
    x = fnp.asarray(np.array([0.5, 1.0], np.float32))
    np.testing.assert_array_equal(fnp.add(x, x), [1.0, 2.0])
    for call in (lambda: fnp.add(x, x, out=x), lambda: fnp.add(x, x, where=True),
                 lambda: fnp.negative(x, out=x)):
        with pytest.raises(NotImplementedError, match="out= and where="):
            call()
    # (as jax.numpy's: a surplus operand is a TypeError, not NumPy's positional out)
    for call in (lambda: fnp.add(x), lambda: fnp.add(), lambda: fnp.negative(),
                 lambda: fnp.add(x, x, x), lambda: fnp.negative(x, x),
                 lambda: fnp.logical_and(x, x, x)):
        with pytest.raises(TypeError, match="takes"):
            call()
    for call, name in ((lambda: fnp.add(x, x, x, x, x, x), "add"),
                       (lambda: fnp.logical_and(x, x, x, x, x, x), "logical_and")):
        with pytest.raises(TypeError, match=rf"^{name}\(\) takes"):
            call()


def test_an_operator_answers_not_implemented_to_foreign_operands():
    x = fnp.asarray(np.array([0.5, 1.0], np.float32))
    assert x.__add__("a") is NotImplemented and x.__lt__(object()) is NotImplemented
    with pytest.raises(TypeError, match="unsupported operand"):
        x + "a"
    np.testing.assert_array_equal(x + fnp.asarray(np.float32(2)), [2.5, 3.0])
