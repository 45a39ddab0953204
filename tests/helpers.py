"""Shared test helpers: dtype-aware comparison against NumPy/jax oracles."""

from __future__ import annotations

import contextlib

import numpy as np

import funcarray as fa
from funcarray import dtypes

# Relative tolerances for comparing a funcarray result with an oracle computed in the same
# dtype. Exact ops are compared exactly by passing rtol=0.
RTOL = {
    dtypes.float16: 2e-3, dtypes.bfloat16: 1.6e-2, dtypes.float32: 2e-6, dtypes.float64: 1e-13,
    dtypes.complex64: 2e-6, dtypes.complex128: 1e-13,
}


def rtol_for(dtype) -> float:
    return RTOL.get(np.dtype(dtype), 0.0)


def to_numpy(x):
    """NumPy value of a funcarray Array (or any array-like), keeping the dtype."""
    return np.asarray(x)


def assert_array_equal_typed(actual, expected, *, rtol=None, atol=0.0, check_dtype=True):
    """Compare values (NaNs equal) and, by default, dtype and shape exactly."""
    assert isinstance(actual, fa.Array), f"expected a funcarray.Array, got {type(actual)}"
    a, e = to_numpy(actual), np.asarray(expected)
    assert a.shape == e.shape, f"shape {a.shape} != expected {e.shape}"
    if check_dtype:
        assert a.dtype == e.dtype, f"dtype {a.dtype} != expected {e.dtype}"
    rtol = rtol_for(e.dtype) if rtol is None else rtol
    if e.dtype.kind == "V" or e.dtype == dtypes.bfloat16:
        # ml_dtypes floats (kind 'V'): compare as float32 so NaNs count as equal.
        np.testing.assert_allclose(a.astype(np.float32), e.astype(np.float32), rtol=rtol,
                                   atol=atol, equal_nan=True)
    elif e.dtype.kind in "biuO" and rtol == 0:
        np.testing.assert_array_equal(a, e)
    else:
        wide = np.complex128 if e.dtype.kind == "c" else np.float64
        with np.errstate(invalid="ignore"):  # widening a signalling NaN (from a bitcast)
            a, e = a.astype(wide), e.astype(wide)
        np.testing.assert_allclose(a, e, rtol=rtol, atol=atol, equal_nan=True)


def assert_same(actual, expected, rtol=0.0):
    """Same dtype, shape and values (NaN == NaN), bit for bit unless ``rtol`` says."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    if rtol:
        np.testing.assert_allclose(actual, expected, rtol=rtol, atol=0)
    else:
        np.testing.assert_array_equal(actual, expected)


def compiled(f):
    """``f`` run through the compiler (XLA): ``fa.jit(f)``."""
    return fa.jit(f)


def assert_compiled_matches_eager(f, *args, rtol=None, atol=0.0):
    """Run ``f(*args)`` eagerly (NumPy kernels) and compiled (XLA); compare every output leaf:
    same shape, dtype and weak_type, values equal within ``rtol`` (default: tied to the dtype,
    exact for integers and bools; NaNs compare equal).

    Returns the eager outputs, for further checks.
    """
    from funcarray import tree

    want = f(*args)
    got = compiled(f)(*args)
    want_leaves, want_tree = tree.flatten(want)
    got_leaves, got_tree = tree.flatten(got)
    assert got_tree == want_tree, f"output structure {got_tree} != eager {want_tree}"
    for k, (g, w) in enumerate(zip(got_leaves, want_leaves)):
        assert isinstance(g, fa.Array), f"output {k}: expected an Array, got {type(g)}"
        assert g.weak_type == w.weak_type, (
            f"output {k}: weak_type {g.weak_type} compiled, {w.weak_type} eager")
        assert_array_equal_typed(g, np.asarray(w), rtol=rtol, atol=atol)
    return want


def run_portable(f, *args, platform=None) -> list:
    """Run ``f(*args)`` through the backend-neutral lowering (``platform=None``: no native
    kernels such as CPU LAPACK custom calls), compiled on the default device: the code
    other platforms get. With ``platform`` (``"gpu"``), the lowering that platform gets, run
    on the CPU. Returns NumPy arrays, one per output leaf."""
    from funcarray.lowering import runtime
    from funcarray.lowering.stablehlo import lower_ir
    from funcarray.transforms.staging import make_ir

    closed = make_ir(f)(*args).closed
    binders = (*closed.ir.const_binders, *closed.ir.in_binders)
    exe = runtime.compile(lower_ir(closed, platform=platform),
                          [(v.aval.shape, v.aval.dtype) for v in binders],
                          [(v.aval.shape, v.aval.dtype) for v in closed.ir.outs],
                          None if platform is None else runtime.devices("cpu")[0])
    values = [np.asarray(getattr(c, "_value", c)) for c in closed.consts]
    outs = runtime.execute(exe, values + [np.asarray(a) for a in args])
    return [runtime.to_numpy(out) for out in outs]


def skip_unless_numpy_eager():
    """Skip a test of the NumPy eager backend's own behaviour (host arrays, no compiles) where
    eager ops run through XLA: on an accelerator (``eager_backend="auto"`` switches once one
    is used, as in bench/gpu_check.sh) or with ``FUNCARRAY_EAGER_BACKEND=xla``."""
    import pytest

    from funcarray.transforms.core import running_numpy_kernels

    if not running_numpy_kernels():
        pytest.skip("eager ops run through XLA here (accelerator, or eager_backend='xla')")


@contextlib.contextmanager
def numpy_eager():
    """Run the block with NumPy eager kernels (restoring the setting after), for tests that
    count compiles or cache entries and must not see eager ops' single-op executables."""
    before = fa.config.eager_backend
    fa.config.update("eager_backend", "numpy")
    try:
        yield
    finally:
        fa.config.update("eager_backend", before)


@contextlib.contextmanager
def index_bounds_checked():
    """Run the block with the setting ``check_index_bounds`` on: out-of-bounds indices raise
    NumPy's IndexError instead of JAX's clamping and dropping."""
    fa.config.update("check_index_bounds", True)
    try:
        yield
    finally:
        fa.config.update("check_index_bounds", False)
