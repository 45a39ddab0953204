"""funcarray.experimental.io_callback against jax.experimental.io_callback: the same
programs make the same calls (which, how many, in which order) and return the same values,
eagerly, under jit (never removed, ordered ones in program order), vmap and control flow,
and fail the same way under vmap (ordered) and differentiation."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.experimental import io_callback as jax_io_callback

import funcarray as fa
import funcarray.numpy as fnp
from funcarray.experimental import io_callback as fa_io_callback

LIBS = {"jax": (jax, jnp, jax_io_callback, jax.lax),
        "funcarray": (fa, fnp, fa_io_callback, fa.lax)}


def run(lib_name, program):
    """``program(lib, np_like, io_callback, lax, log)``'s result (as NumPy) and the calls
    its callbacks logged."""
    lib, xp, io_callback, lax = LIBS[lib_name]
    log = []
    out = program(lib, xp, io_callback, lax, log)
    out = None if out is None else jax.tree.map(np.asarray, out)
    return out, log


def same_as_jax(program):
    (want, want_log), (got, got_log) = run("jax", program), run("funcarray", program)
    assert got_log == want_log
    # (rtol: the tests run jax with 64-bit floats on)
    jax.tree.map(lambda a, b: np.testing.assert_allclose(a, b, rtol=1e-6), got, want)
    return got, got_log


def interleaved(lib, xp, io_callback, lax, log):
    """Forty ordered calls between computations they do not depend on (XLA reorders such
    side effects unless they are chained)."""
    def f(x):
        total = x
        for k in range(40):
            y = xp.sin(x * k)
            io_callback(lambda v, k=k: log.append(k), None, y if k % 2 else x, ordered=True)
            total = total + y
        return total
    return lib.jit(f)(xp.ones(8))


def unused_results(lib, xp, io_callback, lax, log):
    out = lib.ShapeDtypeStruct((), np.float32)

    def record(v):
        log.append(float(v))
        return np.float32(v + 1)

    def f(x):
        io_callback(record, out, x)  # results unused: neither call is removed
        io_callback(record, out, x * 2, ordered=True)
        return x
    return lib.jit(f)(xp.float32(1.5))


def batched(lib, xp, io_callback, lax, log):
    out = lib.ShapeDtypeStruct((2,), np.float32)

    def record(v, w):
        log.append((v.tolist(), float(w)))
        return (v * w).astype(np.float32)

    f = lib.vmap(lambda v, w: io_callback(record, out, v, w), in_axes=(1, None))
    x = xp.arange(6.0).reshape(2, 3)
    return f(x, xp.float32(2.0)), lib.jit(f)(x, xp.float32(3.0))


def in_a_loop(lib, xp, io_callback, lax, log):
    def body(i, carry):
        io_callback(lambda k: log.append(int(k)), None, i, ordered=True)
        return carry + i
    return lib.jit(lambda n: lax.fori_loop(0, 4, body, n))(xp.int32(10))


def eager(lib, xp, io_callback, lax, log):
    out = lib.ShapeDtypeStruct((3,), np.float32)
    result = io_callback(lambda v: log.append(v.sum()) or (v * 2).astype(np.float32), out,
                         xp.arange(3.0), ordered=True)
    return result, io_callback(lambda: log.append("none"), None)


@pytest.mark.parametrize("program", [interleaved, unused_results, batched, in_a_loop, eager])
def test_calls_and_results_match_jax(program):
    same_as_jax(program)


def test_ordered_calls_keep_program_order_under_jit():
    _, log = same_as_jax(interleaved)
    assert log == list(range(40))


@pytest.mark.parametrize("transform", ["vmap", "jit_vmap", "grad", "jvp"])
def test_errors_match_jax(transform):
    def attempt(lib_name):
        lib, xp, io_callback, _ = LIBS[lib_name]
        out = lib.ShapeDtypeStruct((), np.float32)
        ordered = transform.endswith("vmap")
        f = lambda x: io_callback(lambda v: v, out, x, ordered=ordered)  # noqa: E731
        with pytest.raises(ValueError) as info:
            if transform == "vmap":
                lib.vmap(f)(xp.ones(3))
            elif transform == "jit_vmap":
                lib.jit(lib.vmap(f))(xp.ones(3))
            elif transform == "grad":
                lib.grad(f)(xp.float32(1.0))
            else:
                lib.jvp(f, (xp.float32(1.0),), (xp.float32(1.0),))
        return str(info.value).splitlines()[0]
    assert attempt("funcarray") == attempt("jax")
