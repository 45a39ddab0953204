"""Dtype promotion against ``jax.numpy``, weak Python scalars, and 64-bit and narrow floats
without any global flag."""

from __future__ import annotations

import itertools
import re
import subprocess
import sys

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest
from helpers import assert_same
from hypothesis import given, settings
from hypothesis import strategies as st

import funcarray as fa
import funcarray.lax as flax
import funcarray.nn as fnn
import funcarray.numpy as fnp
from funcarray import dtypes

jax.config.update("jax_enable_x64", True)

_PAIRS = list(itertools.product(dtypes.supported_dtypes, repeat=2))


def _jax_promote(a, b):
    try:
        return jnp.promote_types(a, b)
    except (TypeError, jax.dtypes.TypePromotionError):
        return None


@pytest.mark.parametrize("a", dtypes.supported_dtypes, ids=str)
def test_promote_types_matches_jax_for_every_pair(a):
    """bfloat16, float8/float6/float4 and int4 included; where jax has no promotion,
    funcarray raises TypeError too."""
    for b in dtypes.supported_dtypes:
        expected = _jax_promote(a, b)
        if expected is None:
            with pytest.raises(TypeError, match="no implicit promotion"):
                dtypes.promote_types(a, b)
        else:
            assert dtypes.promote_types(a, b) == expected, (a, b)


def test_promote_types_is_symmetric_and_accepts_names():
    for a, b in _PAIRS:
        try:
            ab = dtypes.promote_types(a, b)
        except TypeError:
            with pytest.raises(TypeError):
                dtypes.promote_types(b, a)
            continue
        assert dtypes.promote_types(b, a) == ab
    assert dtypes.promote_types("int8", "uint8") == np.int16
    assert fnp.promote_types(fnp.bfloat16, fnp.float16) == np.float32


def test_unsupported_dtype_is_a_clear_type_error():
    with pytest.raises(TypeError, match="not supported"):
        dtypes.promote_types("int32", np.dtype("U3"))
    with pytest.raises(TypeError, match="not a valid dtype"):
        dtypes.canonicalize_dtype("float33")


# --------------------------------------------------------------------------------------------
# Weak Python scalars (JAX with x64 off: scalar defaults are 32-bit)
# --------------------------------------------------------------------------------------------

_32BIT = [dt for dt in dtypes.supported_dtypes if np.dtype(dt).itemsize < 8
          and np.dtype(dt) not in (dtypes.complex64,)] + [dtypes.complex64]


def _jax_weak_result(*args):
    """(dtype, weak_type) of jnp.add over ``args`` (dtypes as arrays, Python scalars as is)."""
    structs = [jax.ShapeDtypeStruct((), a) for a in args if not isinstance(a, (int, float,
                                                                              complex))]

    def add_all(*arrays):
        it = iter(arrays)
        full = [a if isinstance(a, (int, float, complex)) else next(it) for a in args]
        out = full[0]
        for x in full[1:]:
            out = jnp.add(out, x)
        return out if hasattr(out, "dtype") else jnp.asarray(out)

    try:
        with jax.enable_x64(False):
            out = jax.eval_shape(add_all, *structs)
    except (TypeError, jax.dtypes.TypePromotionError):
        return None
    return np.dtype(out.dtype), bool(out.weak_type)


@pytest.mark.parametrize("scalar", [True, 2, 2.5, 2j], ids=repr)
@pytest.mark.parametrize("dtype", _32BIT, ids=str)
def test_result_type_with_weak_scalars_matches_jax(dtype, scalar):
    expected = _jax_weak_result(dtype, scalar)
    if expected is None:
        with pytest.raises(TypeError):
            dtypes.result_type(dtype, scalar)
        return
    assert dtypes.result_type(dtype, scalar, return_weak_type=True) == expected
    assert dtypes.result_type(scalar, dtype, return_weak_type=True) == expected


@pytest.mark.parametrize("scalars", list(itertools.product([True, 3, 0.5, 1j], repeat=2)),
                         ids=repr)
def test_result_type_of_scalars_alone_matches_jax(scalars):
    expected = _jax_weak_result(*scalars)
    assert dtypes.result_type(*scalars, return_weak_type=True) == expected


def _sub_byte_float(dtype) -> bool:
    return dtype.name.startswith(("float4", "float6"))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(_32BIT), min_size=1, max_size=3),
       st.sampled_from([None, True, 2, 2.5, 2j]), st.booleans())
def test_result_type_of_arrays_matches_jax(array_dtypes, scalar, place):
    """Arrays of one dtype (no promotion to decide) or of several, host or device arrays,
    with or without a weak Python scalar: result_type gives jax's dtype and weak type.
    (float4/float6 cannot be device_put on this jaxlib; jax's oracle takes their
    ShapeDtypeStructs, strong as the arrays.)"""
    operands = [fa.device_put(fnp.zeros(2, dt)) if place and not _sub_byte_float(dt)
                else fnp.zeros(2, dt) for dt in array_dtypes]
    jax_operands = [jax.ShapeDtypeStruct((2,), dt) for dt in array_dtypes]
    if scalar is not None:
        operands.append(scalar)
        jax_operands.append(scalar)
    try:
        with jax.enable_x64(False):
            expected = jax.dtypes.result_type(*jax_operands, return_weak_type_flag=True)
    except (TypeError, jax.dtypes.TypePromotionError):
        with pytest.raises(TypeError):
            fnp.result_type(*operands)
        return
    assert fnp.result_type(*operands, return_weak_type=True) == expected
    assert fnp.result_type(*operands) == expected[0]


@pytest.mark.parametrize("scalar_type", [np.float32, np.float64, np.int8, np.complex64])
def test_result_type_takes_numpy_scalar_types_as_jax(scalar_type):
    # A scalar type's class attribute `dtype` is a descriptor, not a dtype: it raised. (jax
    # with x64 for 64-bit types only: funcarray's default float stays float32.)
    with jax.enable_x64(np.dtype(scalar_type).itemsize == 8):
        assert fnp.result_type(scalar_type, 0.5) == jnp.result_type(scalar_type, 0.5)
        assert fnp.result_type(scalar_type) == jnp.result_type(scalar_type)


def test_64bit_inputs_keep_64bit_with_weak_scalars():
    # JAX with x64 gives float64 here too; with 32-bit scalars the float stays 32-bit.
    assert dtypes.result_type(dtypes.int64, 2) == np.int64
    assert dtypes.result_type(dtypes.float64, 2.0) == np.float64
    assert dtypes.result_type(dtypes.complex128, 2.0) == np.complex128
    assert dtypes.result_type(dtypes.int64, 2.0) == np.float32  # scalar default: float32
    # Strong int64 with uint64 has no integer bound: float64 (jax: weak float64).
    assert dtypes.result_type(dtypes.int64, dtypes.uint64, return_weak_type=True) == (
        np.dtype(np.float64), False)


@pytest.mark.parametrize("dtype", [dtypes.int8, dtypes.uint8, dtypes.int16, dtypes.float16,
                                   dtypes.bfloat16, dtypes.float32, dtypes.float64], ids=str)
def test_arrays_with_python_scalars_keep_their_dtype(dtype):
    x = fnp.asarray(np.array([1, 2, 3]).astype(dtype))
    for out in (x + 1, 1 + x, x * 2, x - 1, x // 1 if dtype.kind != "f" else x * 1.0):
        assert out.dtype == dtype and not out.weak_type, out
    if dtypes.is_float(dtype):
        for out in (x * 2.0, 2.0 * x, x / 2.0, x ** 2.0):
            assert out.dtype == dtype and not out.weak_type, out


def test_int8_plus_one_stays_int8_and_wraps():
    x = fnp.array([127, -128], dtype=fnp.int8)
    out = x + 1
    assert out.dtype == np.int8
    assert out.tolist() == [-128, -127]


def test_float32_times_python_float_stays_float32():
    out = fnp.ones(3) * 2.0
    assert out.dtype == np.float32 and not out.weak_type
    assert (fnp.ones(3, dtype=fnp.int32) * 2.0).dtype == np.float32


_SCALAR_OPS = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b,
               "mul": lambda a, b: a * b, "maximum": fnp.maximum}


@pytest.mark.parametrize("scalar", [3, 2.5, 300], ids=repr)
@pytest.mark.parametrize("weak", [False, True], ids=["strong", "weak"])
@pytest.mark.parametrize("dtype", [d for d in dtypes.supported_dtypes if d != np.bool_], ids=str)
def test_traced_values_with_python_scalars_promote_as_eager_ones(dtype, weak, scalar):
    """Under a trace, a tracer meeting a Python scalar (``h - 1.0`` in a jitted or
    differentiated function) gets the eager result's dtype, weak type and values, or the
    eager error (300 does not fit in int8)."""
    import funcarray as fa
    from funcarray.base.array import Array

    x = fnp.asarray(np.array([1, 2, 3]).astype(dtype))
    if weak:
        x = Array(x._value, True)  # a weak array, as a Python scalar computation makes

    def f(a):  # every op, with the tracer first and with the scalar first
        return [out for op in _SCALAR_OPS.values() for out in (op(a, scalar), op(scalar, a))]

    try:
        eager = f(x)
    except (TypeError, ValueError, OverflowError) as exc:
        with pytest.raises(type(exc), match=re.escape(str(exc))):
            fa.make_ir(f)(x)
        return
    staged = fa.make_ir(f)(x).ir.outs
    assert [(v.aval.dtype, v.aval.weak_type) for v in staged] == [
        (e.dtype, e.weak_type) for e in eager]
    if dtype.name.startswith("float6"):  # refused by jit (test_lowering.py)
        return
    # (compared as float64/complex128: NumPy's NaN check does not know float8)
    wide = np.complex128 if dtypes.is_complex(dtype) else np.float64
    for got, want in zip(fa.jit(f)(x), eager):
        np.testing.assert_array_equal(np.asarray(got).astype(wide), np.asarray(want).astype(wide))


def test_python_scalars_alone_are_weak_32bit():
    for value, dtype in ((1, np.int32), (1.5, np.float32), (1j, np.complex64)):
        out = fnp.asarray(value)
        assert out.dtype == dtype and out.weak_type
    assert not fnp.asarray(True).weak_type
    with pytest.raises(OverflowError, match="int64"):
        fnp.asarray(2**40)


# --------------------------------------------------------------------------------------------
# float64 without a global flag, and dtype= in creation functions
# --------------------------------------------------------------------------------------------


def test_float64_input_stays_float64():
    x = fnp.asarray(np.array([1.0, 2.0]))
    assert x.dtype == np.float64
    for out in (x * 2.0, x + x, fnp.sin(x), x / 3, fnp.sqrt(x), -x, x ** 2):
        assert out.dtype == np.float64, out
    np.testing.assert_array_equal(np.asarray(x / 3), np.array([1.0, 2.0]) / 3)


def test_no_global_x64_flag_is_needed_in_a_fresh_process():
    code = (
        "import numpy as np, funcarray.numpy as fnp\n"
        "x = fnp.asarray(np.array([1/3]))\n"
        "assert (x * 3.0).dtype == np.float64\n"
        "assert fnp.zeros(2, dtype=fnp.float64).dtype == np.float64\n"
        "assert fnp.arange(3, dtype='int64').dtype == np.int64\n"
        "print(repr(x))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert "dtype=float64" in out.stdout


_CREATORS = [
    ("zeros", lambda dt: fnp.zeros((2, 3), dtype=dt)),
    ("ones", lambda dt: fnp.ones(4, dtype=dt)),
    ("full", lambda dt: fnp.full((2,), 1, dtype=dt)),
    ("empty", lambda dt: fnp.empty(3, dtype=dt)),
    ("array", lambda dt: fnp.array([1, 2], dtype=dt)),
    ("asarray", lambda dt: fnp.asarray([[1.0, 0.0]], dtype=dt)),
    ("arange", lambda dt: fnp.arange(0, 5, 2, dtype=dt)),
    ("linspace", lambda dt: fnp.linspace(0, 4, 5, dtype=dt)),
    ("eye", lambda dt: fnp.eye(3, dtype=dt)),
    ("zeros_like", lambda dt: fnp.zeros_like(fnp.ones(2), dtype=dt)),
    ("full_like", lambda dt: fnp.full_like(fnp.ones(2), 3, dtype=dt)),
]


@pytest.mark.parametrize("dtype", [np.float64, "float64", fnp.int64, fnp.uint64,
                                   fnp.complex128, fnp.bfloat16, fnp.float16, fnp.int8],
                         ids=str)
@pytest.mark.parametrize("name, make", _CREATORS, ids=[n for n, _ in _CREATORS])
def test_creation_functions_honour_dtype(name, make, dtype):
    out = make(dtype)
    assert out.dtype == np.dtype(dtype), name
    assert not out.weak_type, name


def test_creation_defaults_are_32bit():
    assert fnp.zeros(2).dtype == np.float32
    assert fnp.arange(3).dtype == np.int32
    assert fnp.arange(3.0).dtype == np.float32
    assert fnp.array([1.5]).dtype == np.float32
    assert fnp.array([1, 2]).dtype == np.int32
    assert fnp.array(np.array([1, 2], np.int64)).dtype == np.int64


# --------------------------------------------------------------------------------------------
# Narrow floats through astype
# --------------------------------------------------------------------------------------------

_NARROW = (dtypes.bfloat16, dtypes.float16, *dtypes.float8_types)


@pytest.mark.parametrize("dtype", _NARROW, ids=str)
def test_narrow_float_round_trips_through_astype(dtype):
    # Values every narrow format represents exactly (float4_e2m1fn has 0, 0.5 ... 6).
    finfo = ml_dtypes.finfo(dtype)
    candidates = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, -1.0, -2.0], np.float32)
    exact = candidates[(candidates.astype(dtype).astype(np.float32) == candidates)
                       & (np.abs(candidates) <= float(finfo.max))]
    x = fnp.asarray(exact)
    narrow = x.astype(dtype)
    assert narrow.dtype == dtype
    back = narrow.astype(np.float32)
    assert back.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(back), exact)
    if np.dtype(dtype).name.startswith("float6"):
        return  # XLA's CPU backend has no float6 conversions to compare with
    with jax.default_device(jax.devices("cpu")[0]):
        expected = np.asarray(jnp.asarray(exact).astype(dtype))
    np.testing.assert_array_equal(np.asarray(narrow).view(np.uint8), expected.view(np.uint8))


@pytest.mark.parametrize("dtype", [dtypes.bfloat16, dtypes.float16, dtypes.float8_e4m3fn,
                                   dtypes.float8_e5m2], ids=str)
def test_narrow_float_rounding_matches_jax(dtype):
    values = np.random.default_rng(0).normal(scale=30.0, size=64).astype(np.float32)
    values[:4] = [1e6, -1e6, np.nan, 1e-9]
    with jax.default_device(jax.devices("cpu")[0]):
        expected = np.asarray(jnp.asarray(values).astype(dtype))
    actual = np.asarray(fnp.asarray(values).astype(dtype))
    both_nan = np.isnan(actual.astype(np.float32)) & np.isnan(expected.astype(np.float32))
    np.testing.assert_array_equal(actual.astype(np.float32)[~both_nan],
                                  expected.astype(np.float32)[~both_nan])


def test_mixing_float8_with_float16_is_a_type_error_naming_both():
    x = fnp.ones(2, dtype=fnp.float8_e4m3fn)
    y = fnp.ones(2, dtype=fnp.float16)
    with pytest.raises(TypeError, match=r"float8_e4m3fn.*float16|float16.*float8_e4m3fn"):
        x + y
    assert (x.astype(fnp.float16) + y).dtype == np.float16  # the suggested fix works


_SCALAR_TYPE_NAMES = ["double", "single", "cdouble", "csingle", "float_", "complex_", "int_",
                      "uint", "int4", "uint4", "int2", "uint2", "float8_e4m3", "float8_e3m4",
                      "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu", "float4_e2m1fn"]


@pytest.mark.parametrize("name", _SCALAR_TYPE_NAMES)
def test_scalar_type_aliases_are_jax_numpys(name):
    # NumPy's aliases (double is float64...) and ml_dtypes' narrow types, as jax.numpy names them.
    assert np.dtype(getattr(fnp, name)) == np.dtype(getattr(jnp, name))
    assert getattr(fnp, name)(1).dtype == np.asarray(getattr(jnp, name)(1)).dtype
    assert fnp.issubdtype(fnp.double, fnp.floating) and fnp.generic is np.generic


@pytest.mark.parametrize("name", ["zeros_like", "ones_like", "full_like", "empty_like"])
def test_like_constructors_keep_weak_type_like_jax(name):
    with jax.enable_x64(False):
        for make, dtype in ((lambda np_: np_.asarray(1.0), None),
                            (lambda np_: np_.asarray(2) * np_.ones(3, np_.int8), None),
                            (lambda np_: np_.asarray(1.0), np.float32),
                            (lambda np_: np_.ones(2), None)):
            args = (3,) if name == "full_like" else ()
            ours = getattr(fnp, name)(make(fnp), *args, dtype=dtype)
            theirs = getattr(jnp, name)(make(jnp), *args, dtype=dtype)
            assert (ours.dtype, ours.weak_type) == (theirs.dtype, theirs.weak_type), (name, dtype)


X64 = np.linspace(-1.0, 1.0, 7)  # float64
MASK = X64 > 0

# float64 results whose algorithm differs from jax's in a last bit (float32's rounding of a
# Python float would be 1e-9 off)
_LAST_BIT = 2e-15


# --- Python floats meet float64 at float64's precision ---------------------------------------

# (name, f(module, x)): each takes Python floats into a float64 computation.
_PY_FLOAT_CASES = [
    ("full", lambda m, x: m.full(3, 0.1, dtype=m.float64)),
    ("full_like", lambda m, x: m.full_like(x, 0.1)),
    ("full_complex", lambda m, x: m.full(2, 0.1 + 0.3j, dtype=m.complex128)),
    ("arange", lambda m, x: m.arange(0, 1, 0.1, dtype=m.float64)),
    ("linspace", lambda m, x: m.linspace(0, 0.3, dtype=m.float64)),
    ("linspace_f64_start", lambda m, x: m.linspace(x[1], 0.3, 5)),
    ("logspace", lambda m, x: m.logspace(0.1, 0.7, 9, dtype=m.float64)),
    ("clip", lambda m, x: m.clip(x, 0.1, 0.3)),
    ("mul", lambda m, x: x * 0.1),
    ("where", lambda m, x: m.where(MASK, x, 0.1)),
    ("where_complex", lambda m, x: m.where(MASK, x + 0j, 0.1j)),
    ("pad", lambda m, x: m.pad(x, 1, constant_values=0.1)),
    ("pad_pair", lambda m, x: m.pad(x, 1, constant_values=(0.1, 0.3))),
    ("nan_to_num", lambda m, x: m.nan_to_num(x / 0, nan=0.1, posinf=0.3, neginf=-0.7)),
    ("fill_diagonal", lambda m, x: m.fill_diagonal(m.zeros((3, 3), m.float64), 0.1,
                                                   inplace=False)),
    ("at_set", lambda m, x: x.at[2].set(0.1)),
    ("at_add", lambda m, x: x.at[m.array([1, 2])].add(0.1)),
    ("at_multiply", lambda m, x: x.at[2].multiply(0.1)),
    ("interp_scalar_x", lambda m, x: m.interp(0.1, x, x ** 3)),
    ("ediff1d", lambda m, x: m.ediff1d(x, to_begin=0.1, to_end=0.3)),
    ("diff", lambda m, x: m.diff(x, prepend=0.1, append=0.3)),
    ("append", lambda m, x: m.append(x, 0.1)),
    ("sum_initial", lambda m, x: m.sum(x, initial=0.1)),
    ("quantile", lambda m, x: m.quantile(x, 0.1)),
    ("nanquantile", lambda m, x: m.nanquantile(x, 0.1)),
    ("percentile", lambda m, x: m.percentile(x, 10.1)),
    ("outer", lambda m, x: m.outer(x, 0.1)),
    ("dot", lambda m, x: m.dot(x, 0.1)),
    ("kron", lambda m, x: m.kron(x, 0.1)),
]


@pytest.mark.parametrize("name,f", _PY_FLOAT_CASES, ids=[c[0] for c in _PY_FLOAT_CASES])
def test_python_floats_keep_float64_precision(name, f):
    assert_same(f(fnp, fnp.asarray(X64)), f(jnp, jnp.asarray(X64)),
          rtol=_LAST_BIT if name == "linspace_f64_start" else 0.0)


def test_python_floats_keep_float64_precision_elsewhere():
    x = fnp.asarray(X64)
    assert_same(fnp.linspace(0, 0.3, dtype=fnp.float64)[-1], np.float64(0.3))
    assert_same(flax.convert_element_type(0.1, fnp.float64), np.float64(0.1))
    assert_same(fnn.logsumexp(x, b=0.1), jax.nn.logsumexp(jnp.asarray(X64), b=0.1), rtol=_LAST_BIT)
    # (NumPy as the oracle where jax's version compiles for long)
    assert_same(fnp.insert(x, 2, 0.1), np.insert(X64, 2, 0.1))
    placed = X64.copy()
    np.place(placed, MASK, 0.1)
    assert_same(fnp.place(x, MASK, 0.1, inplace=False), placed)
    put = X64.copy()
    np.put(put, 1, 0.1)
    assert_same(fnp.put(x, 1, 0.1, inplace=False), put)
    # and under jit, where the Python floats are constants of the staged program
    for name, f in [c for c in _PY_FLOAT_CASES if c[0] in ("pad", "at_set")]:
        assert_same(fa.jit(lambda x, f=f: f(fnp, x))(x), f(jnp, jnp.asarray(X64)))


# --- full / full_like with a float fill and an integer dtype truncate ------------------------

@pytest.mark.parametrize("dtype", ["int32", "uint8", "int64", "bool"])
def test_full_float_fill_to_integer_dtype_converts_as_jax(dtype):
    for fill in (2.7, -2.7, 1e10, float("nan"), 0.5):
        assert_same(fnp.full(3, fill, dtype=dtype), jnp.full(3, fill, dtype=dtype))
        assert_same(fnp.full_like(fnp.zeros(2, dtype), fill),
                    jnp.full_like(jnp.zeros(2, dtype), fill))
    assert_same(fa.jit(lambda: fnp.full(2, 2.7, dtype=dtype))(), jnp.full(2, 2.7, dtype=dtype))
    assert_same(fnp.full(2, 300, dtype="uint8"), jnp.full(2, 300, dtype="uint8"))  # wraps, as jax
