"""funcarray.errors against jax.errors: the same program raises an exception of the class
of the same name in both, and funcarray's is also of funcarray's own type for that kind of
error (ConcretizationError, TypeError, RuntimeError)."""

import operator

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import funcarray as fa
import funcarray.numpy as fnp
from funcarray.transforms.core import ConcretizationError

NAMES = ["ConcretizationTypeError", "KeyReuseError", "NonConcreteBooleanIndexError",
         "TracerArrayConversionError", "TracerBoolConversionError",
         "TracerIntegerConversionError", "UnexpectedTracerError"]


def _escaped(lib, xnp):
    saved = []

    def leak(x):
        saved.append(x)
        return x

    lib.jit(leak)(1.0)
    return xnp.sin(saved[0])


# name -> (run(lib, xnp), funcarray's own type for that error). ``lib`` is jax
# or funcarray, ``xnp`` its numpy.
PROGRAMS = {
    "if": (lambda lib, xnp: lib.jit(lambda x: 1.0 if x[0] > 0 else 2.0)(xnp.ones(3)),
           ConcretizationError),
    "if under vmap": (lambda lib, xnp: lib.vmap(lambda x: x if x > 0 else -x)(xnp.ones(3)),
                      ConcretizationError),
    "int": (lambda lib, xnp: lib.jit(lambda x: int(x[0]))(xnp.ones(3)), ConcretizationError),
    "float": (lambda lib, xnp: lib.jit(lambda x: float(x[0]))(xnp.ones(3)),
              ConcretizationError),
    "item": (lambda lib, xnp: lib.jit(lambda x: x[0].item())(xnp.ones(3)),
             ConcretizationError),
    "tolist": (lambda lib, xnp: lib.jit(lambda x: x.tolist())(xnp.ones(3)),
               ConcretizationError),
    "list index": (lambda lib, xnp: lib.jit(lambda i: [1, 2][i])(xnp.int32(1)),
                   ConcretizationError),
    "operator.index": (lambda lib, xnp: lib.jit(operator.index)(xnp.int32(1)),
                       ConcretizationError),
    "range": (lambda lib, xnp: lib.jit(lambda n: list(range(n)))(xnp.int32(2)),
              ConcretizationError),
    "np.asarray under jit": (lambda lib, xnp: lib.jit(np.asarray)(xnp.ones(3)),
                             ConcretizationError),
    "np.asarray under vmap": (lambda lib, xnp: lib.vmap(np.asarray)(xnp.ones(3)),
                              ConcretizationError),
    "np.asarray under grad": (lambda lib, xnp: lib.grad(lambda x: x * np.asarray(x))(1.0),
                              ConcretizationError),
    "boolean mask": (lambda lib, xnp: lib.jit(lambda x: x[x > 0])(xnp.ones(3)), TypeError),
    "boolean mask set": (lambda lib, xnp: lib.jit(lambda x: x.at[x > 0].set(0.0))(xnp.ones(3)),
                         TypeError),
    "nonzero": (lambda lib, xnp: lib.jit(xnp.nonzero)(xnp.ones(3)), TypeError),
    "unique": (lambda lib, xnp: lib.jit(xnp.unique)(xnp.ones(3)), TypeError),
    "escaped tracer": (_escaped, RuntimeError),
}


def _raised(run, lib, xnp) -> BaseException:
    with pytest.raises(Exception) as info:  # noqa: PT011 (the class is what is compared)
        run(lib, xnp)
    return info.value


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_the_same_program_raises_the_same_jax_classes(name):
    run, old_type = PROGRAMS[name]
    theirs = _raised(run, jax, jnp)
    ours = _raised(run, fa, fnp)
    expected = {n for n in NAMES if isinstance(theirs, getattr(jax.errors, n))}
    assert expected, f"jax raised none of the classes compared: {theirs!r}"
    assert {n for n in NAMES if isinstance(ours, getattr(fa.errors, n))} == expected
    assert isinstance(ours, old_type)


@pytest.mark.parametrize("name", NAMES)
def test_each_class_has_the_builtin_bases_of_jaxs(name):
    ours, theirs = getattr(fa.errors, name), getattr(jax.errors, name)
    builtin = {c for c in theirs.__mro__ if c.__module__ == "builtins"}
    assert builtin <= set(ours.__mro__)
    # and JAX's subclass relations among the seven, no more and no fewer
    for other in NAMES:
        assert (issubclass(ours, getattr(fa.errors, other))
                == issubclass(theirs, getattr(jax.errors, other)))


def test_the_tracer_errors_are_concretization_errors():
    for name in ["ConcretizationTypeError", "TracerArrayConversionError",
                 "TracerBoolConversionError", "TracerIntegerConversionError"]:
        assert issubclass(getattr(fa.errors, name), ConcretizationError)
