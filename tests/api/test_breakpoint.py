"""funcarray.debug.breakpoint against jax.debug.breakpoint, its debugger driven through
stdin/stdout: the same program and commands print the same session (concrete values of
the user's locals; one stop per batch member under vmap; primal values under grad)."""

import io

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import funcarray as fa
import funcarray.numpy as fnp

LIBS = {"jax": (jax, jnp), "funcarray": (fa, fnp)}
COMMANDS = "p y\np (x, scale)\npp {'total': y.sum()}\np undefined_name\nc\n"

TRANSFORMS = {
    "eager": lambda lib, f: f,
    "jit": lambda lib, f: lib.jit(f),
    "vmap": lambda lib, f: lib.vmap(f),
    "grad": lambda lib, f: lib.grad(lambda v: (f(v) ** 2).sum()),
    "jit_vmap": lambda lib, f: lib.jit(lib.vmap(f)),
}


def session(lib_name, transform, stops):
    lib, xp = LIBS[lib_name]
    shown = io.StringIO()
    commands = io.StringIO(COMMANDS * stops)

    def f(x):
        scale = 3
        y = x * scale + 1  # (values whose printing both libraries agree on)
        lib.debug.breakpoint(stdin=commands, stdout=shown)
        return y

    TRANSFORMS[transform](lib, f)(xp.asarray(np.arange(3, dtype=np.float32) / 2))
    return shown.getvalue()


@pytest.mark.parametrize("transform", TRANSFORMS)
def test_session_matches_jax(transform):
    stops = 3 if transform.endswith("vmap") else 1
    got = session("funcarray", transform, stops)
    assert got == session("jax", transform, stops)
    assert got.count("Entering jdb:") == stops
    assert "Array(" in got and "NameError" in got


def test_up_and_where_show_the_callers_frame():
    shown = io.StringIO()
    marker = np.float32(7.0)  # noqa: F841 (read by the debugger, in this frame)

    def inner(x):
        fa.debug.breakpoint(stdin=io.StringIO("u\np marker\nw\nc\n"), stdout=shown,
                            num_frames=2)
        return x

    fa.jit(inner)(fnp.ones(2))
    # (prompts start lines; source lines are indented)
    intro, up, value, where, end = shown.getvalue().split("\n(jdb) ")
    assert intro == "Entering jdb:" and end == ""
    assert "->      fa.jit(inner)(fnp.ones(2))" in up  # this frame: jit's own are left out
    assert value == "np.float32(7.0)"
    assert where.count('File "') == 2 and "fa.debug.breakpoint(" in where


def test_token_and_backend_arguments():
    x = fnp.arange(3.0)
    with pytest.raises(ValueError, match="mutually exclusive"):
        fa.debug.breakpoint(token=x, ordered=True)
    with pytest.raises(ValueError, match="unknown debugger backend"):
        fa.debug.breakpoint(backend="web")
    shown = io.StringIO()

    def f(v):
        w = v + 1
        return fa.debug.breakpoint(token=w, stdin=io.StringIO("p w\nc\n"), stdout=shown) * 2

    np.testing.assert_array_equal(np.asarray(fa.jit(f)(x)), [2.0, 4.0, 6.0])
    assert "Array([1., 2., 3.], dtype=float32)" in shown.getvalue()
