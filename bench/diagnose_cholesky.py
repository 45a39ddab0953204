"""Cholesky's gradient on a GPU against the CPU: which piece differs, if any.

An H200 run of tests/numpy/test_linalg_decompositions.py found funcarray's gradient of
``sum(|sin(cholesky(x))|^2)`` on the GPU off from jax's on the GPU (both agree on the CPU).
This prints the gradient from jax and funcarray on each platform, then the pieces of
funcarray's rule (the factor, the two triangular solves) on the GPU against NumPy.
bench/gpu_check.sh runs it (part ``cholesky``); information only.

Usage:
    FUNCARRAY_PLATFORM=cuda python bench/diagnose_cholesky.py
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

import funcarray as fa
import funcarray.numpy as fnp
from funcarray.primitives.decompositions import cholesky_p, triangular_solve_p


def loss(lib, chol):
    return lambda x: lib.sum(lib.abs(lib.sin(chol(x))) ** 2)


def jax_cholesky(x):
    return jax.lax.linalg.cholesky(x, symmetrize_input=False)


def report(name, got, want):
    print(f"  {name:44s} max |diff| {np.max(np.abs(np.asarray(got) - np.asarray(want))):.3e}")


def main() -> int:
    jax.config.update("jax_enable_x64", True)
    rng = np.random.default_rng(5)
    for dtype in (np.float64, np.complex128):
        m = rng.normal(size=(3, 3)) + (1j * rng.normal(size=(3, 3)) if dtype == np.complex128
                                       else 0)
        a = (m @ m.conj().T + 3 * np.eye(3)).astype(dtype)
        print(f"== {np.dtype(dtype).name}")
        grads = {}
        for platform in ("cpu", "gpu"):
            with jax.default_device(jax.devices(platform)[0]):
                grads[f"jax {platform}"] = np.asarray(
                    jax.jit(jax.grad(loss(jnp, jax_cholesky)))(a))
            grads[f"funcarray jit {platform}"] = np.asarray(fa.jit(
                fa.grad(loss(fnp, cholesky_p.bind)), backend=platform)(a))
        grads["funcarray eager on gpu arrays"] = np.asarray(
            fa.grad(loss(fnp, cholesky_p.bind))(fa.device_put(a, fa.devices("gpu")[0])))
        for name, g in grads.items():
            report(f"{name} vs jax cpu", g, grads["jax cpu"])
        lower = np.linalg.cholesky(a)
        got = fa.jit(cholesky_p.bind, backend="gpu")(a)
        report("cholesky on gpu vs numpy", got, lower)
        t = rng.normal(size=(3, 3)).astype(dtype)
        for left, transpose, conj in ((False, True, True), (True, False, False),
                                      (True, True, False), (False, False, False)):
            flags = dict(left_side=left, lower=True, transpose_a=transpose,
                         conjugate_a=conj, unit_diagonal=False)
            got = fa.jit(lambda l_, b_, f=flags: triangular_solve_p.bind(l_, b_, **f),
                         backend="gpu")(lower, t)
            op = lower.conj().T if (transpose and conj) else lower.T if transpose else lower
            want = np.linalg.solve(op, t) if left else np.linalg.solve(op.T, t.T).T
            report(f"triangular_solve {flags['left_side'], transpose, conj} gpu", got, want)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
