"""The jax oracle of the ``funcarray.lax`` tests: inputs drawn per test, funcarray results
compared with jax.lax's eagerly and under ``jit`` (dtype, shape and values; tolerances tied to
the dtype), and gradients compared with ``jax.grad``.

Speed: compilation dominates, so cases are compared in batches: each case eagerly (NumPy
kernels, no compilation), then the whole batch in one ``fa.jit`` against one ``jax.jit``.

The jax oracle runs with x64 on (``conftest.py``), so inputs are NumPy arrays of explicit
dtypes; Python scalars are checked on their own (jax's x64 mode makes them 64-bit).
"""

from __future__ import annotations

import zlib

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest

import funcarray as fa
import funcarray.numpy as fnp
from funcarray import lax

F16, BF16, F32, F64 = np.float16, ml_dtypes.bfloat16, np.float32, np.float64
C64, C128 = np.complex64, np.complex128
I8, I32, I64, U8, U32, BOOL = np.int8, np.int32, np.int64, np.uint8, np.uint32, np.bool_

# Relative tolerances for a funcarray result against jax's, by result dtype: a few ulp, as
# the eager kernels (NumPy) and XLA round transcendental functions differently.
RTOL = {np.dtype(F16): 2e-3, np.dtype(BF16): 1.6e-2, np.dtype(F32): 1e-5,
        np.dtype(F64): 1e-12, np.dtype(C64): 1e-5, np.dtype(C128): 1e-12}

RNG = np.random.default_rng(0)


@pytest.fixture(autouse=True)
def seeded_rng(request):
    """Each test draws the same inputs whatever ran before it (xdist changes the order). An
    autouse fixture of every test module that imports it."""
    global RNG
    RNG = np.random.default_rng(zlib.crc32(request.node.name.encode()))


def rng() -> np.random.Generator:
    """The current test's generator."""
    return RNG


def assert_same(got, want, rtol=None, atol=0.0, where=""):
    """Same dtype, shape and values (NaNs equal; exact for ints/bools)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, f"{where}: shape {got.shape} != jax's {want.shape}"
    assert got.dtype == want.dtype, f"{where}: dtype {got.dtype} != jax's {want.dtype}"
    rtol = RTOL.get(want.dtype, 0.0) if rtol is None else rtol
    if want.dtype.kind in "biu":
        np.testing.assert_array_equal(got, want, err_msg=where)
    else:
        wide = np.complex128 if want.dtype.kind == "c" else np.float64
        np.testing.assert_allclose(got.astype(wide), want.astype(wide), rtol=rtol,
                                   atol=atol, equal_nan=True, err_msg=where)


def check_all(cases, *, names=None, atol=0.0, jit=True):
    """Many ``(fa_fn, jax_fn, args, tol)`` cases (``tol``: an rtol, ``None`` for the dtype's
    default, or an ``(rtol, atol)`` pair): each eagerly against jax, and under one
    ``fa.jit`` against one ``jax.jit``. Compilation dominates this file's run time (about
    50 ms per operation on each side), so with ``names`` like ``"op(details)"`` only the
    first case of each op is jitted on funcarray's side: the eager kernels cover the dtype
    and parameter variants, the jitted case the op's lowering. Returns the eager results."""
    names = names or [f"case {k}" for k in range(len(cases))]
    jax_args = [tuple(jnp.asarray(a) for a in c[2]) for c in cases]
    fa_args = [tuple(fnp.asarray(a) for a in c[2]) for c in cases]
    want = jax.jit(lambda ins: [c[1](*a) for c, a in zip(cases, ins)])(jax_args)
    eager = [c[0](*a) for c, a in zip(cases, fa_args)]
    for name, c, got, wanted in zip(names, cases, eager, want):
        _compare(name + " (eager)", got, wanted, c[3], atol)
    if jit:
        first = {}
        for k, name in enumerate(names):
            first.setdefault(name.split("(")[0], k)
        picked = sorted(first.values())
        jitted = fa.jit(lambda ins: [cases[k][0](*a) for k, a in zip(picked, ins)])(
            [fa_args[k] for k in picked])
        for k, got in zip(picked, jitted):
            _compare(names[k] + " (jit)", got, want[k], cases[k][3], atol)
    return eager


def _compare(where, got, want, rtol, atol):
    if isinstance(rtol, tuple):  # a case's own (rtol, atol)
        rtol, atol = rtol
    want_leaves, got_leaves = jax.tree.leaves(want), fa.tree.leaves(got)
    assert len(want_leaves) == len(got_leaves), where
    for g, w in zip(got_leaves, want_leaves):
        assert isinstance(g, fa.Array), where
        assert_same(g, w, rtol, atol, where)


def rand(shape, dtype, lo=-2.0, hi=2.0):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return RNG.random(shape) < 0.5
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return RNG.integers(max(info.min, -50), min(info.max, 50), shape, dtype=dtype,
                            endpoint=True)
    if dtype.kind == "c":
        return (RNG.uniform(lo, hi, shape) + 1j * RNG.uniform(lo, hi, shape)).astype(dtype)
    return RNG.uniform(lo, hi, shape).astype(dtype)


def _dname(dtype) -> str:
    return np.dtype(dtype).name


def _grad_check_all(cases, rtol=1e-9):
    """``grad`` of ``sum_k sum(f_k(*args_k) * w_k)`` (fixed random ``w_k``) with respect to
    every argument, in one ``jax.jit(jax.grad)`` and one eager ``fa.grad``."""
    names = list(cases)
    args = [[np.asarray(a) for a in cases[n][1]] for n in names]
    outs = [jax.eval_shape(cases[n][0](jax.lax), *a) for n, a in zip(names, args)]
    weights = [rand(o.shape, F64, 0.5, 1.5) for o in outs]

    def total(m, sum_, asarray, all_args):
        return sum(sum_(cases[n][0](m)(*a) * asarray(w))
                   for n, a, w in zip(names, all_args, weights))

    want = jax.jit(jax.grad(lambda a: total(jax.lax, jnp.sum, jnp.asarray, a)))(
        [[jnp.asarray(x) for x in a] for a in args])
    got = fa.grad(lambda a: total(lax, fnp.sum, fnp.asarray, a))(
        [[fnp.asarray(x) for x in a] for a in args])
    for name, g_args, w_args in zip(names, got, want):
        for k, (g, w) in enumerate(zip(g_args, w_args)):
            assert_same(g, w, rtol=rtol, atol=1e-12, where=f"d {name} / d arg {k}")

