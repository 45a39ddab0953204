"""funcarray.numpy as an Array API 2024.12 namespace: the protocol (``__array_namespace__``,
``device``, ``to_device``, ``__array_namespace_info__``), the standard's keywords
(``device=``, ``copy=``) and return types, checked against array-api-strict (the standard's
reference implementation) and array_api_compat."""

from __future__ import annotations

import inspect

import array_api_compat
import array_api_strict as xps
import numpy as np
import pytest

import funcarray as fa
import funcarray.numpy as fnp
from funcarray.base.array import cpu_device
from funcarray.base.sharding import SingleDeviceSharding


def test_array_namespace_is_funcarray_numpy_eagerly_and_traced():
    x = fnp.ones(3)
    assert x.__array_namespace__() is fnp
    assert x.__array_namespace__(api_version="2024.12") is fnp
    assert array_api_compat.array_namespace(x) is fnp
    assert array_api_compat.array_namespace(x, fnp.zeros(2, dtype=fnp.int8)) is fnp
    seen = []

    def f(x):
        seen.append(array_api_compat.array_namespace(x))
        return x

    fa.jit(f)(x)
    fa.grad(lambda x: f(x).sum())(x)
    fa.vmap(f)(x)
    assert seen == [fnp, fnp, fnp]
    assert fnp.__array_api_version__ == "2024.12"


def test_array_namespace_rejects_unknown_version():
    with pytest.raises(ValueError, match=r"api_version='2099.01'.*2024\.12"):
        fnp.ones(1).__array_namespace__(api_version="2099.01")


@pytest.fixture
def strict_2024():
    """array-api-strict set to the standard's 2024.12 version."""
    with xps.ArrayAPIStrictFlags(api_version="2024.12"):
        yield xps


def test_namespace_info_matches_the_standard_kinds(strict_2024):
    info, strict = fnp.__array_namespace_info__(), strict_2024.__array_namespace_info__()
    assert set(info.capabilities()) >= set(strict.capabilities())
    assert isinstance(info.capabilities()["max dimensions"], int)
    kinds = [None, "bool", "signed integer", "unsigned integer", "integral", "real floating",
             "complex floating", "numeric", ("bool", "real floating")]
    for kind in kinds:
        ours = info.dtypes(kind=kind)
        assert set(ours) == set(strict.dtypes(kind=kind)), kind
        for name, dt in ours.items():
            assert dt == np.dtype(name) == getattr(fnp, name)
            assert kind is None or fnp.isdtype(dt, kind)
    defaults = info.default_dtypes(device=info.default_device())
    assert set(defaults) == set(strict.default_dtypes())
    # The defaults are what the namespace gives Python numbers and indices.
    assert fnp.asarray(1.0).dtype == defaults["real floating"]
    assert fnp.asarray(1j).dtype == defaults["complex floating"]
    assert fnp.asarray(1).dtype == defaults["integral"]
    assert fnp.argmax(fnp.ones(3)).dtype == defaults["indexing"]
    assert info.default_device() == fnp.ones(2).device
    assert info.default_device() in info.devices()
    with pytest.raises(ValueError, match="unknown kind 'floats'"):
        info.dtypes(kind="floats")


CREATION = {
    "arange": lambda d: fnp.arange(3, device=d),
    "asarray": lambda d: fnp.asarray([1.0, 2.0], device=d),
    "empty": lambda d: fnp.empty((2,), device=d),
    "empty_like": lambda d: fnp.empty_like(fnp.ones(2), device=d),
    "eye": lambda d: fnp.eye(2, device=d),
    "from_dlpack": lambda d: fnp.from_dlpack(np.ones(2), device=d),
    "full": lambda d: fnp.full((2,), 3, device=d),
    "full_like": lambda d: fnp.full_like(fnp.ones(2), 3, device=d),
    "linspace": lambda d: fnp.linspace(0, 1, 3, device=d),
    "ones": lambda d: fnp.ones((2,), device=d),
    "ones_like": lambda d: fnp.ones_like(fnp.ones(2), device=d),
    "zeros": lambda d: fnp.zeros((2,), device=d),
    "zeros_like": lambda d: fnp.zeros_like(fnp.ones(2), device=d),
}


@pytest.mark.parametrize("name", list(CREATION))
def test_creation_functions_take_device(name):
    assert "device" in inspect.signature(getattr(fnp, name)).parameters
    plain = CREATION[name](None)
    for device in (cpu_device(), SingleDeviceSharding(cpu_device()), fnp.ones(1).device):
        out = CREATION[name](device)
        assert out.device == cpu_device()
        np.testing.assert_array_equal(np.asarray(out), np.asarray(plain))
        assert out.dtype == plain.dtype
    with pytest.raises(TypeError, match=rf"{name}: device must be a funcarray Device"):
        CREATION[name]("cpu")


def test_device_of_a_runtime_device_and_to_device():
    device = fa.devices()[0]
    x = fnp.ones(3, device=device)
    assert x.device == device
    y = fnp.arange(3).to_device(device)
    assert y.device == device
    np.testing.assert_array_equal(np.asarray(y), np.arange(3))
    with pytest.raises(ValueError, match="stream"):
        y.to_device(device, stream=1)


def test_a_function_written_against_the_standard_runs_under_jit():
    """``device=x.device`` (the idiom of array-API code) inside jit: the traced value has no
    placement (device None), and the result lands on jit's device."""
    def f(x):
        xp = array_api_compat.array_namespace(x)
        out = xp.zeros(x.shape, dtype=x.dtype, device=x.device) + xp.ones_like(
            x, device=array_api_compat.device(x))
        freq = xp.fft.fftfreq(x.shape[0], device=x.device)
        return xp.astype(out, xp.float64, device=x.device) + freq * 0

    x = fnp.arange(4.0)
    np.testing.assert_array_equal(np.asarray(fa.jit(f)(x)), np.asarray(f(x)))
    np.testing.assert_array_equal(np.asarray(fa.vmap(f)(x[:, None])), np.ones((4, 1)))


@pytest.mark.parametrize("fn", ["broadcast_arrays", "meshgrid"])
def test_tuple_results(fn):
    a, b = fnp.arange(3), fnp.arange(2)
    out = getattr(fnp, fn)(a[:, None] if fn == "broadcast_arrays" else a, b)
    expected = getattr(xps, fn)(xps.asarray(np.asarray(a[:, None] if fn == "broadcast_arrays"
                                                       else a)), xps.asarray(np.asarray(b)))
    assert type(out) is tuple and type(expected) is tuple
    for o, e in zip(out, expected, strict=True):
        np.testing.assert_array_equal(np.asarray(o), np.asarray(e))


def test_reshape_takes_copy():
    x = fnp.arange(6)
    for copy in (None, True, False):
        np.testing.assert_array_equal(np.asarray(fnp.reshape(x, (2, 3), copy=copy)),
                                      np.arange(6).reshape(2, 3))


def test_item_assignment_still_points_at_at():
    x = fnp.zeros(3)
    with pytest.raises(TypeError, match=r"x\.at\[1\]\.set"):
        x[1] = 2.0


@pytest.mark.parametrize("shape", [(3, 4), (4, 3), (2, 3, 3)])
def test_complex_pinv_against_numpy_eagerly_and_under_jit(shape):
    rng = np.random.default_rng(sum(shape))
    a = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    want = np.linalg.pinv(a)
    for run in (fnp.linalg.pinv, fa.jit(fnp.linalg.pinv)):
        np.testing.assert_allclose(np.asarray(run(fnp.asarray(a))), want, rtol=1e-10,
                                   atol=1e-12)
