"""Tracers print as jax's: repr, str and format of a traced value inside jit, grad, jvp,
linearize and vmap (and their compositions), for weak and strong types of several dtypes
and shapes. jax runs with its 32-bit defaults (x64 off), which funcarray's match for
Python scalars (weak float32, weak int32)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import funcarray as fa
import funcarray.numpy as fnp


def _printed(run, lib, xnp, value) -> list:
    seen = []

    def show(x):
        seen.append((repr(x), str(x), f"{x}"))
        return x

    run(lib, xnp, show, value)
    return seen


def _vmap_axis1(lib, xnp, show, v):
    return lib.vmap(show, in_axes=1)(xnp.stack([v, v, v])[None])


# name -> run(lib, xnp, show, value): a program that calls ``show`` on traced values.
PROGRAMS = {
    "jit": lambda lib, xnp, show, v: lib.jit(show)(v),
    "make_jaxpr": lambda lib, xnp, show, v: lib.make_jaxpr(show)(v),
    "eval_shape": lambda lib, xnp, show, v: lib.eval_shape(show, v),
    "grad": lambda lib, xnp, show, v: lib.grad(lambda x: xnp.sum(show(x * 1.0)))(v),
    "jvp": lambda lib, xnp, show, v: lib.jvp(show, (v,), (v,)),
    "linearize": lambda lib, xnp, show, v: lib.linearize(show, v),
    "vmap": lambda lib, xnp, show, v: lib.vmap(show)(xnp.stack([v, v])),
    "vmap in_axes=1": _vmap_axis1,
    "vmap named": lambda lib, xnp, show, v: lib.vmap(show, axis_name="i")(xnp.stack([v, v])),
    "jit of grad": lambda lib, xnp, show, v: lib.jit(lib.grad(
        lambda x: xnp.sum(show(x))))(v),
    "grad of jit": lambda lib, xnp, show, v: lib.grad(lib.jit(
        lambda x: xnp.sum(show(x))))(v),
    "jit of jvp": lambda lib, xnp, show, v: lib.jit(lambda x: lib.jvp(show, (x,), (x,)))(v),
    "vmap of grad": lambda lib, xnp, show, v: lib.vmap(lib.grad(
        lambda x: xnp.sum(show(x))))(xnp.stack([v, v])),
    "jit of vmap": lambda lib, xnp, show, v: lib.jit(lib.vmap(show))(xnp.stack([v, v])),
}

FLOAT_VALUES = {
    "weak scalar": lambda xnp: 1.5,
    "float32 scalar": lambda xnp: xnp.float32(1.5),
    "float32 vector": lambda xnp: xnp.arange(3, dtype=xnp.float32),
    "float32 matrix": lambda xnp: xnp.ones((2, 3), xnp.float32),
    "float16 vector": lambda xnp: xnp.ones(2, xnp.float16),
    "bfloat16 vector": lambda xnp: xnp.ones(2, xnp.bfloat16),
}
OTHER_VALUES = {  # not differentiable: jit and vmap only
    "weak int": lambda xnp: 3,
    "int32 matrix": lambda xnp: xnp.ones((2, 2), xnp.int32),
    "uint8 vector": lambda xnp: xnp.ones(3, xnp.uint8),
    "bool vector": lambda xnp: xnp.ones(2, xnp.bool_),
    "complex64 vector": lambda xnp: xnp.ones(2, xnp.complex64),
    "empty": lambda xnp: xnp.ones((0, 3), xnp.float32),
}
BASIC = ("jit", "grad", "jvp", "vmap")  # every value; the other programs two of them
CASES = ([(p, v) for p in BASIC for v in FLOAT_VALUES]
         + [(p, v) for p in PROGRAMS if p not in BASIC
            for v in ("weak scalar", "float32 matrix")]
         + [(p, v) for p in ("jit", "vmap") for v in OTHER_VALUES])
# (a Python scalar stacked along a batch axis is an array: vmap sees no weak value)
CASES = [(p, v) for p, v in CASES if not ("vmap" in p and v.startswith("weak"))]


@pytest.mark.parametrize(("program", "value"), CASES)
def test_tracers_print_as_jaxs(program, value):
    run = PROGRAMS[program]
    make = {**FLOAT_VALUES, **OTHER_VALUES}[value]
    with jax.enable_x64(False):
        theirs = _printed(run, jax, jnp, make(jnp))
    ours = _printed(run, fa, fnp, make(fnp))
    assert theirs, "the program traced nothing"
    assert ours == theirs


def test_printing_shows_the_tracer_kind():
    printed = _printed(PROGRAMS["jit of grad"], fa, fnp, np.float32(1.0))
    assert printed[0][0] == "GradTracer(primal=JitTracer(float32[]), typeof(tangent)=f32[])"
