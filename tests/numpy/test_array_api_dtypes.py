"""The Array API standard's dtype functions on funcarray.numpy: ``can_cast`` by the standard's
promotion table, ``finfo``/``iinfo`` with Python-number attributes, accumulation dtypes of
``cumulative_prod``, and fills that fit the dtype asked for."""

from __future__ import annotations

import array_api_strict as xps
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import funcarray as fa
import funcarray.numpy as fnp

STANDARD = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
            "float32", "float64", "complex64", "complex128")
FLOATS = ("float16", "bfloat16", "float32", "float64", "complex64", "complex128")
INTS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")


@pytest.mark.parametrize("src", STANDARD)
def test_can_cast_follows_the_standard(src):
    for dst in STANDARD:
        expected = xps.can_cast(getattr(xps, src), getattr(xps, dst))
        for from_ in (getattr(fnp, src), np.dtype(src), fnp.zeros((2,), dtype=src)):
            out = fnp.can_cast(from_, getattr(fnp, dst))
            assert type(out) is bool and out == expected, (src, dst)


def test_can_cast_outside_the_standard_follows_numpy():
    for src, dst in [("float16", "float32"), ("int8", "float16"), ("float32", "float16")]:
        assert fnp.can_cast(src, dst) == np.can_cast(src, dst)
    assert fnp.can_cast(fnp.int64, fnp.float64, casting="same_kind") == np.can_cast(
        np.int64, np.float64, casting="same_kind")
    with pytest.raises(TypeError, match="can_cast: expected a dtype or an array"):
        fnp.can_cast("not a dtype", fnp.int8)


@pytest.mark.parametrize("name", FLOATS)
def test_finfo_attributes_are_python_numbers(name):
    ours = fnp.finfo(getattr(fnp, name))
    reference = fa.dtypes.finfo(name)  # NumPy's or ml_dtypes' object
    for attr, kind in [("bits", int), ("eps", float), ("max", float), ("min", float),
                       ("smallest_normal", float)]:
        value = getattr(ours, attr)
        assert type(value) is kind, attr
        assert value == getattr(reference, attr), attr
    assert ours.dtype == reference.dtype
    assert ours.nmant == reference.nmant  # NumPy's other attributes, as they are
    assert fnp.finfo(fnp.ones(2, dtype=name)) == ours
    if name in STANDARD:
        strict = xps.finfo(getattr(xps, name))
        assert (ours.eps, ours.max, ours.min, ours.smallest_normal, ours.bits) == (
            strict.eps, strict.max, strict.min, strict.smallest_normal, strict.bits)


@pytest.mark.parametrize("name", INTS)
def test_iinfo_attributes_are_python_ints(name):
    ours, strict = fnp.iinfo(getattr(fnp, name)), xps.iinfo(getattr(xps, name))
    for attr in ("bits", "max", "min"):
        assert type(getattr(ours, attr)) is int
        assert getattr(ours, attr) == getattr(strict, attr)
    assert ours.dtype == np.dtype(name)
    assert fnp.iinfo(fnp.zeros(1, dtype=name)).max == ours.max


def test_finfo_and_iinfo_refuse_the_other_kind():
    with pytest.raises(ValueError, match="finfo: int32 is not a floating-point dtype; use iinfo"):
        fnp.finfo(fnp.int32)
    with pytest.raises(ValueError, match="iinfo: float32 is not an integer dtype; use finfo"):
        fnp.iinfo(fnp.float32)


def test_finfo_under_jit_reads_the_traced_dtype():
    out = fa.jit(lambda x: x * 0 + fnp.finfo(x).max)(fnp.ones(2, dtype=fnp.float64))
    np.testing.assert_array_equal(np.asarray(out), np.full(2, np.finfo(np.float64).max))


@pytest.mark.parametrize("name", INTS + ("float32", "float64", "complex64"))
def test_cumulative_prod_accumulates_like_prod(name):
    x = fnp.asarray(np.arange(1, 5).astype(name))
    out = fnp.cumulative_prod(x)
    # the standard's rule, as prod and cumulative_sum (both tested against jax) apply it
    assert out.dtype == fnp.prod(x).dtype
    assert out.dtype == fnp.cumulative_sum(x).dtype
    np.testing.assert_array_equal(np.asarray(out), np.cumprod(np.arange(1, 5)).astype(out.dtype))


@given(data=st.data())
def test_full_and_full_like_take_any_value_that_fits(data):
    name = data.draw(st.sampled_from(INTS + ("float32", "float64")))
    dtype = np.dtype(name)
    if dtype.kind in "iu":
        value = data.draw(st.integers(int(np.iinfo(dtype).min), int(np.iinfo(dtype).max)))
    else:
        value = data.draw(st.floats(width=dtype.itemsize * 8, allow_nan=False))
    like = fnp.zeros((2,), dtype=name)
    for out in (fnp.full((2,), value, dtype=name), fnp.full_like(like, value),
                fa.jit(lambda x, v=value: fnp.full_like(x, v))(like)):
        assert out.dtype == dtype
        np.testing.assert_array_equal(np.asarray(out), np.full((2,), value, dtype))
