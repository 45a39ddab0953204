"""Smoke test of an installed (non-editable) funcarray, run by tests/package/test_packaging.py
and by .ci/run against the built wheel and sdist:
``python tests/package/install_smoke.py [subpackage ...]`` from a directory outside the
repository. Prints "ok"."""

import importlib
import importlib.resources
import importlib.util
import sys

import numpy as np

import funcarray as fa
import funcarray.lowering
import funcarray.numpy as fnp
import funcarray.transforms.core

assert "site-packages" in fa.__file__, fa.__file__
assert "site-packages" in funcarray.transforms.core.__file__
assert "site-packages" in funcarray.lowering.__file__
assert importlib.util.find_spec("transforms") is None, "top-level transforms installed"
assert importlib.util.find_spec("lowering") is None, "top-level lowering installed"
assert fa.__version__, "no version"
assert importlib.util.find_spec("funcarray") is not None
typed = importlib.resources.files("funcarray") / "py.typed"
assert typed.is_file(), "py.typed missing"
for name in sys.argv[1:]:  # every subpackage of the source tree must be installed
    importlib.import_module(name)
    assert "site-packages" in sys.modules[name].__file__, name
# Eager, grad, vmap and jit (jit needs jaxlib from the environment).
x = fnp.arange(3.0)
assert (x * 2).tolist() == [0.0, 2.0, 4.0]
g = fa.grad(lambda v: fnp.sum(v ** 3))(x)
np.testing.assert_allclose(np.asarray(g), 3 * np.arange(3.0) ** 2)
assert fa.vmap(lambda v: v @ v)(fnp.ones((2, 3))).tolist() == [3.0, 3.0]
assert fa.jit(lambda v: fnp.sin(v) + 1)(x).shape == (3,)
print("ok")
