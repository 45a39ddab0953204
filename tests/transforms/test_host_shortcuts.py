"""When a host shortcut runs: eagerly with the NumPy engine only; declining or raising hands
the call to the general path."""

import numpy as np
import pytest

import funcarray as fa
import funcarray.numpy as fnp
from funcarray import config
from funcarray.base.array import Array
from funcarray.transforms.host_shortcuts import host_shortcut, shortcuts_run_now

calls = []


def _shortcut(x, *, fail=None):
    calls.append("shortcut")
    if fail == "decline":
        return NotImplemented
    if fail == "raise":
        raise ValueError("a shortcut's own error")
    return Array(np.asarray(x) * 2, False)


@host_shortcut(_shortcut)
def double(x, *, fail=None):
    """The general path."""
    calls.append("general")
    return fnp.asarray(x) * 2


@pytest.fixture(autouse=True)
def _clear_calls():
    calls.clear()


def test_eager_call_takes_the_shortcut():
    assert shortcuts_run_now()
    np.testing.assert_array_equal(double(fnp.arange(3)), [0, 2, 4])
    assert calls == ["shortcut"]


@pytest.mark.parametrize("fail", ["decline", "raise"])
def test_declining_or_raising_runs_the_general_path(fail):
    np.testing.assert_array_equal(double(fnp.arange(3), fail=fail), [0, 2, 4])
    assert calls == ["shortcut", "general"]


def test_transforms_take_the_general_path():
    np.testing.assert_array_equal(fa.jit(double)(fnp.arange(3.0)), [0, 2, 4])
    np.testing.assert_array_equal(fa.grad(lambda x: double(x).sum())(fnp.arange(3.0)), [2] * 3)
    np.testing.assert_array_equal(fa.vmap(double)(fnp.arange(3.0)), [0, 2, 4])
    assert calls and set(calls) == {"general"}


@pytest.mark.parametrize("setting, value", [("eager_shortcuts", False), ("debug_nans", True),
                                            ("eager_backend", "xla")])
def test_settings_that_turn_shortcuts_off(setting, value):
    before = getattr(config, setting)
    config.update(setting, value)
    try:
        assert not shortcuts_run_now()
        np.testing.assert_array_equal(double(fnp.arange(3.0)), [0, 2, 4])
    finally:
        config.update(setting, before)
    assert calls == ["general"]
    assert shortcuts_run_now()


def test_the_decorated_function_keeps_name_doc_and_general_path():
    assert double.__name__ == "double" and double.__doc__ == "The general path."
    calls.clear()
    double.general_path(fnp.arange(2))
    assert calls == ["general"]


@pytest.mark.parametrize("call", [
    lambda: fnp.reshape(fnp.arange(6), (4,)),
    lambda: fnp.arange(6).reshape(4),
    lambda: fnp.sum(fnp.ones(3), axis=2),
    lambda: fnp.ones(3).sum(axis=2),
])
def test_errors_of_shortcut_operations_show_the_users_frames_only(call):
    with pytest.raises(ValueError) as info:
        call()
    tb, files = info.value.__traceback__, []
    while tb is not None:
        files.append(tb.tb_frame.f_code.co_filename)
        tb = tb.tb_next
    # Only the re-raising boundary frames remain, not the implementation's.
    assert files[0] == __file__
    assert not any("funcarray/numpy/_" in f or "primitives" in f for f in files), files
