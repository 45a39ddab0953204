"""jit's dispatch fast path (funcarray/api/jit_dispatch.py and jit's dispatcher): one-array
calls checked by the dispatcher itself, flat list and tuple results, errors raised on the
fast path, and several threads calling the same jitted function."""

import collections
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import funcarray as fa
import funcarray.numpy as fnp
from funcarray.base.array import DeviceArray, device_array
from funcarray.base.avals import ShapedArray

Pair = collections.namedtuple("Pair", "a b")


def test_one_array_calls_of_every_kind_alternate():
    """f(x) with a host Array, a DeviceArray, one with an aval of its own, another dtype and
    another device buffer: each takes the right executable, each signature compiles once."""
    f = fa.jit(lambda x: x * 2)
    f32 = fnp.arange(4.0, dtype=fnp.float32)
    on_device = fa.device_put(f32)
    own_aval = device_array(on_device._buf[0], on_device._buf[1],
                            ShapedArray((4,), np.float32, False))
    i32 = fnp.arange(4, dtype=fnp.int32)
    weak = fa.Array(np.arange(4.0, dtype=np.float32), True)
    variants = [f32, on_device, own_aval, i32, fa.device_put(i32), weak, f(f32)]
    rng = np.random.default_rng(0)
    for k in rng.integers(0, len(variants), 50):
        x = variants[k]
        got = f(x)
        assert type(got) is DeviceArray
        np.testing.assert_array_equal(np.asarray(got), np.asarray(x) * 2)
        assert (got.dtype, got.weak_type) == (x.dtype, x.weak_type)
    assert f.cache_info().misses == 3  # float32, int32, weak float32


@pytest.mark.parametrize("result", [
    lambda x: [x, x * 2, x + 1],
    lambda x: (x, x * 2),
    lambda x: Pair(x, x * 2),
    lambda x: {"b": x, "a": [x * 2, (x + 1,)]},
    lambda x: [],
], ids=["list", "tuple", "namedtuple", "nested", "empty"])
def test_results_keep_their_structure_on_the_fast_path(result):
    f = fa.jit(result)
    x = fnp.arange(3.0)
    want = result(x)
    for _ in range(3):
        got = f(x)
        assert fa.tree.structure(got) == fa.tree.structure(want)
        assert type(got) is type(want)
        for mine, theirs in zip(fa.tree.leaves(got), fa.tree.leaves(want)):
            np.testing.assert_array_equal(np.asarray(mine), np.asarray(theirs))
    assert f.cache_info()[:2] == (2, 1)


@pytest.mark.parametrize("empty", [{}, [], ()], ids=["dict", "list", "tuple"])
def test_empty_containers_are_arguments_as_in_jax(empty):
    # (jax takes them: they flatten to no leaves; an empty dict once broke the guard)
    f = fa.jit(lambda x, extra: x + len(extra))
    x = fnp.arange(3.0)
    for _ in range(3):
        np.testing.assert_array_equal(np.asarray(f(x, empty)), np.arange(3.0))
    np.testing.assert_array_equal(np.asarray(f(x, {"a": x} if empty == {} else [x])),
                                  np.arange(3.0) + 1)


@pytest.mark.parametrize("several", [False, True], ids=["one_output", "two_outputs"])
def test_a_callback_error_is_raised_by_every_fast_call(several):
    calls = []

    def check(v):
        calls.append(v)
        if len(calls) > 1:
            raise ZeroDivisionError("second call")

    def body(x):
        fa.debug.callback(check, x)
        return [x * 2, x] if several else x * 2

    f = fa.jit(body)
    x = fa.device_put(fnp.ones(2))
    fa.block_until_ready(f(x))
    for _ in range(2):
        with pytest.raises(ZeroDivisionError, match="second call"):
            fa.block_until_ready(f(x))


def test_threads_calling_one_jitted_function_get_their_own_results():
    """Threads alternate between signatures (the dispatcher's ``last`` changes under them)."""
    f = fa.jit(lambda x: x * 3)
    g = fa.jit(lambda p: [p["a"] + p["b"], p["a"] * p["b"]])
    inputs = [fnp.arange(4.0), fnp.arange(4, dtype=fnp.int32), fnp.arange(5.0),
              fa.device_put(fnp.arange(4.0))]

    def work(k):
        for i in range(200):
            x = inputs[(i + k) % len(inputs)]
            np.testing.assert_array_equal(np.asarray(f(x)), np.asarray(x) * 3)
            a, b = g({"a": x, "b": x})
            np.testing.assert_array_equal(np.asarray(b), np.asarray(x) ** 2)

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(work, range(4)))  # re-raises what a thread raised


@pytest.mark.parametrize("pytree", [False, True], ids=["one_array", "dict"])
def test_a_donated_array_on_the_fast_path_of_another_function_is_refused(pytree):
    """An array donated to one jitted function, passed to another whose fast path knows its
    type (checked by the dispatcher itself, or by the signature's closure), names the
    donation instead of running on a deleted buffer."""
    step = fa.jit(lambda p, g: p - 0.5 * g, donate_argnums=0)
    f = fa.jit(lambda d: [d["a"] * 2, d["b"]]) if pytree else fa.jit(lambda x: x + 1.0)
    params = fa.jit(lambda x: x * 2.0)(fnp.ones(3))
    other = fa.device_put(fnp.ones(3))
    args = {"a": other, "b": params} if pytree else params
    for _ in range(2):
        fa.block_until_ready(f(args))
    step(params, fnp.ones(3))
    with pytest.raises(RuntimeError, match=f"argument leaf {int(pytree)} .*was donated"):
        f(args)
    assert f.cache_info().misses == 1
