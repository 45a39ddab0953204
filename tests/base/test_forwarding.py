"""Wrappers that take the wrapped function's parameter list on their first call
(funcarray/base/forwarding.py), and the API wrappers built on them: api_boundary and
host_shortcut keep their results, defaults, errors and filtered tracebacks."""

import threading
import traceback

import numpy as np
import pytest

import funcarray.numpy as fnp
from funcarray.base.array import Array
from funcarray.base.errors import api_boundary, is_internal_file, op_value_error
from funcarray.base.forwarding import exact_forwarding, same_parameters
from funcarray.transforms.host_shortcuts import host_shortcut

_SENTINEL = object()
_ONES, _OTHER_ONES = np.ones(2), np.ones(2)


def _forwarder(fn):
    def wrapper(*args, **kwargs):
        exact_forwarding(wrapper, fn, "return fn({args})")
        return wrapper(*args, **kwargs)
    return wrapper


def _signature_of(f):
    code = f.__code__
    n = code.co_argcount + code.co_kwonlyargcount + bool(code.co_flags & 8)
    return (code.co_varnames[:n], code.co_posonlyargcount, code.co_kwonlyargcount,
            f.__defaults__, f.__kwdefaults__)


def _every_kind(a, /, b, c=1, *, d, e=_SENTINEL, **rest):
    return a, b, c, d, e, rest


@pytest.mark.parametrize("call", [
    lambda f: f(1, 2, d=4),
    lambda f: f(1, b=2, c=3, d=4, e=5, z=6),
    lambda f: f(1, 2, 3, d=4, y=7),
])
def test_forwarding_keeps_every_kind_of_parameter(call):
    wrapper = _forwarder(_every_kind)
    assert call(wrapper) == call(_every_kind)  # the first call: through the generic code
    assert _signature_of(wrapper) == _signature_of(_every_kind)
    assert call(wrapper) == call(_every_kind)  # now through the exact code
    assert call(wrapper)[4] is call(_every_kind)[4]  # defaults are the same objects


def test_forwarding_refuses_the_same_calls_as_the_function():
    wrapper = _forwarder(_every_kind)
    wrapper(1, 2, d=3)
    for bad in (lambda f: f(1, 2), lambda f: f(a=1, b=2, d=3), lambda f: f(1, 2, 3, 4, d=5)):
        with pytest.raises(TypeError):
            bad(_every_kind)
        with pytest.raises(TypeError):
            bad(wrapper)


class _Holder:
    def method(self, x, y=2):
        return x + y


@pytest.mark.parametrize("target", [
    lambda *xs, scale=1: sum(xs) * scale,  # *args: stays generic
    _Holder().method,  # a bound method: its code takes self as well
    lambda fn, y=0: fn + y,  # a parameter named like the body's free variable
    len,  # no Python code
], ids=["varargs", "bound-method", "clash", "builtin"])
def test_what_cannot_be_forwarded_exactly_stays_generic(target):
    wrapper = _forwarder(target)
    args = ([1, 2, 3],) if target is len else (1, 2)
    assert wrapper(*args) == target(*args)
    assert wrapper.__code__.co_flags & 0x04  # *args
    assert wrapper(*args) == target(*args)


def test_same_parameters_compares_names_kinds_and_defaults():
    assert same_parameters(lambda x, /, y=None, *, k=3: 0, lambda x, /, y=None, *, k=3: 1)
    assert not same_parameters(lambda x, y=None: 0, lambda x, /, y=None: 1)
    assert not same_parameters(lambda x, y=None: 0, lambda x, z=None: 1)
    assert not same_parameters(lambda x, *, k=3: 0, lambda x, *, k=4: 1)
    assert not same_parameters(lambda x, y=1: 0, lambda x, y=1.0: 1)
    assert not same_parameters(lambda x, y=_ONES: 0, lambda x, y=_OTHER_ONES: 1)
    assert not same_parameters(len, lambda x: 1)


def test_threads_racing_on_the_first_call_get_the_same_results():
    wrapper = _forwarder(_every_kind)
    results, barrier = [], threading.Barrier(8)

    def work(i):
        barrier.wait()
        results.append(wrapper(i, 2, d=3))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == sorted(_every_kind(i, 2, d=3) for i in range(8))


def _funcarray_frames(exc):
    return [f for f in traceback.extract_tb(exc.__traceback__) if is_internal_file(f.filename)]


def _check_user_error(call):
    """The first call and a later one raise the same user-facing error, which names this
    file's line and keeps one funcarray frame in its traceback."""
    messages = []
    for _ in range(2):
        with pytest.raises(ValueError) as info:
            call()
        assert "test_forwarding.py" in str(info.value)
        assert len(_funcarray_frames(info.value)) == 1
        messages.append(str(info.value))
    assert messages[0].split("(at")[0] == messages[1].split("(at")[0]


def test_api_boundary_keeps_filtering_tracebacks():
    @api_boundary
    def checked(x, *, limit=3):
        if x > limit:
            raise op_value_error("checked", f"{x} is over {limit}")
        return x

    assert checked(2) == 2
    _check_user_error(lambda: checked(5))
    assert checked(5, limit=9) == 5
    assert _signature_of(checked) == _signature_of(checked.__wrapped__)


def test_host_shortcut_operation_forwards_to_its_shortcut_and_general_path():
    calls = []

    def shortcut(x, scale=2):
        calls.append("shortcut")
        return NotImplemented if scale < 0 else Array(np.asarray(x._value * scale))

    @host_shortcut(shortcut)
    def double(x, scale=2):
        calls.append("general")
        if scale < 0:
            raise op_value_error("double", "scale must not be negative")
        return Array(np.asarray(x._value * scale))

    x = fnp.arange(3)
    for _ in range(2):
        assert double(x)._value.tolist() == [0, 2, 4]
        assert double(x, scale=3)._value.tolist() == [0, 3, 6]
    assert calls == ["shortcut"] * 4
    assert _signature_of(double) == _signature_of(double.general_path)
    _check_user_error(lambda: double(x, -1))
    assert calls[4:] == ["shortcut", "general"] * 2


def test_host_shortcut_whose_parameters_differ_stays_generic():
    def shortcut(*args, **kwargs):
        return NotImplemented

    @host_shortcut(shortcut)
    def negate(x, /):
        return Array(-x._value)

    assert negate(fnp.arange(2))._value.tolist() == [0, -1]
    assert negate.__code__.co_flags & 0x04
    assert negate(fnp.arange(2))._value.tolist() == [0, -1]
