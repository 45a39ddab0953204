"""jit's trace cache is shared between the wrappers of one function with the same options
(``jit(f)(x)`` written inline traces once, as in jax), kept apart for other options, and
goes away with the function. Trace counts are compared with jax's for the same programs."""

import gc
import weakref

import jax
import jax.numpy as jnp
import numpy as np

import funcarray as fa
import funcarray.numpy as fnp


def traces_of(lib, xp, program):
    """How many times ``program(lib, f, x)`` traces ``f``, a function counting its traces."""
    traces = []

    def f(x, n=1, m=0):
        traces.append(None)
        return x * n + m

    program(lib, f, xp.arange(3.0))
    return len(traces)


def inline_calls(lib, f, x):
    for _ in range(3):
        lib.jit(f)(x)


def inline_calls_under_other_options(lib, f, x):
    for _ in range(2):
        lib.jit(f)(x)
        lib.jit(f, static_argnums=1)(x, 2)
        lib.jit(f, static_argnames="m")(x, m=1)


def test_inline_jit_traces_once_like_jax():
    for program in (inline_calls, inline_calls_under_other_options):
        assert traces_of(fa, fnp, program) == traces_of(jax, jnp, program)
    assert traces_of(fa, fnp, inline_calls) == 1
    assert traces_of(fa, fnp, inline_calls_under_other_options) == 3


def test_donation_and_the_device_key_caches_of_their_own():
    """jax traces once for all of these (donation and the backend act at lowering); a
    funcarray entry holds its donated positions and device, so each option set traces once
    (see docs/decisions.md)."""
    def twice(lib, f, x):
        for _ in range(2):
            lib.jit(f, donate_argnums=0)(x + 0.0)
            lib.jit(f, backend="cpu")(x)
    assert traces_of(fa, fnp, twice) == 2


def test_wrappers_share_the_cache_and_its_counts():
    def f(x):
        return x + 1.0

    first, second = fa.jit(f), fa.jit(f)
    assert first is not second
    np.testing.assert_array_equal(np.asarray(first(fnp.ones(2))), [2.0, 2.0])
    np.testing.assert_array_equal(np.asarray(second(fnp.ones(2))), [2.0, 2.0])
    assert second.cache_info()[:2] == (1, 1) == first.cache_info()[:2]
    fa.jit(f, static_argnums=()).clear_cache()  # the same options (normalised): shared
    assert first.cache_info().currsize == 0
    assert fa.jit(f, backend="cpu").cache_info().currsize == 0


def test_the_cache_goes_with_the_function():
    def make():
        return lambda x: x * 2.0

    f = make()
    jitted = fa.jit(f)
    jitted(fnp.ones(2))
    shared = weakref.ref(jitted._jit_state._shared)
    assert len(shared().entries) == 1
    fa.jit(f)(fnp.ones(2))
    del f, jitted
    gc.collect()
    assert shared() is None


def test_callables_without_weak_references_keep_a_cache_of_their_own():
    class Scale:
        __slots__ = ("k",)  # (no __weakref__)

        def __init__(self, k):
            self.k = k

        def __call__(self, x):
            return x * self.k

    scale = Scale(3.0)
    first, second = fa.jit(scale), fa.jit(scale)
    np.testing.assert_array_equal(np.asarray(first(fnp.ones(2))), [3.0, 3.0])
    assert second.cache_info().currsize == 0
    np.testing.assert_array_equal(np.asarray(second(fnp.ones(2))), [3.0, 3.0])
