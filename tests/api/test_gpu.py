"""Checks that need an NVIDIA GPU: skipped where there is none (CI never has one);
bench/gpu_check.sh runs them, with the jit tests and the jit benchmark, on a lent GPU.

Each compares funcarray on the GPU with jax on the same GPU or with float64 NumPy: device
placement, full-precision float32 matmuls (XLA's GPU default rounds operands to TF32),
eager ops on device arrays, transforms, linear algebra (portable lowerings; eig through a
host callback), host callbacks and donation.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import funcarray as fa
import funcarray.numpy as fnp
from funcarray.base.array import DeviceArray


def _gpus() -> list:
    try:
        return fa.devices("gpu")
    except RuntimeError:  # no GPU platform here
        return []


GPUS = _gpus()
pytestmark = pytest.mark.skipif(not GPUS, reason="needs a GPU (see bench/gpu_check.sh)")
RNG = np.random.default_rng(0)


def _on_gpu(x) -> bool:
    return type(x) is DeviceArray and x.device.platform == "gpu"


def _jax_gpu(x):
    return jax.device_put(x, jax.devices("gpu")[0])


def test_jit_outputs_and_eager_results_stay_on_the_gpu():
    x = fa.device_put(np.linspace(-1.0, 1.0, 8, dtype=np.float32), GPUS[0])
    assert _on_gpu(x)
    y = fa.jit(lambda v: v * 2.0 + 1.0)(x)
    z = fnp.sin(y) @ fnp.ones((8, 3))  # eager ops on device arrays run on the device
    assert _on_gpu(y) and _on_gpu(z)
    want = np.sin(np.linspace(-1.0, 1.0, 8) * 2.0 + 1.0) @ np.ones((8, 3))
    np.testing.assert_allclose(np.asarray(z), want, rtol=1e-6)
    on_cpu = fa.jit(lambda v: v + 1.0, device=fa.devices("cpu")[0])(x)
    assert on_cpu.device.platform == "cpu"
    np.testing.assert_array_equal(np.asarray(on_cpu), np.asarray(x) + 1.0)


def test_float32_matmul_is_full_precision_unless_asked_otherwise():
    a = RNG.standard_normal((256, 512)).astype(np.float32)
    b = RNG.standard_normal((512, 128)).astype(np.float32)
    exact = a.astype(np.float64) @ b.astype(np.float64)
    scale = np.abs(exact).max()
    ga, gb = fa.device_put(a), fa.device_put(b)
    for got in (fa.jit(fnp.matmul)(ga, gb), ga @ gb):  # jit, and an eager op on the GPU
        assert np.abs(np.asarray(got) - exact).max() / scale < 1e-5  # TF32: ~1e-3
    want = jnp.matmul(_jax_gpu(a), _jax_gpu(b), precision="highest")
    np.testing.assert_allclose(np.asarray(fa.jit(fnp.matmul)(ga, gb)), np.asarray(want),
                               rtol=1e-5, atol=1e-4)
    # An explicit precision is the user's: the same product jax computes with it.
    fast = fa.jit(lambda x, y: fnp.matmul(x, y, precision="default"))(ga, gb)
    jax_fast = jnp.matmul(_jax_gpu(a), _jax_gpu(b), precision="default")
    np.testing.assert_allclose(np.asarray(fast), np.asarray(jax_fast), rtol=1e-5, atol=1e-4)


def test_float64_and_bfloat16_run_on_the_gpu():
    x = RNG.standard_normal(1000)
    got = fa.jit(lambda v: fnp.sum(fnp.exp(v) * v))(fa.device_put(x))
    assert got.dtype == np.float64
    np.testing.assert_allclose(float(got), np.sum(np.exp(x) * x), rtol=1e-13)
    a = RNG.standard_normal((64, 32)).astype(jnp.bfloat16)
    got = fa.jit(lambda m: m.T @ m)(fa.device_put(a))
    want = _jax_gpu(a).T @ _jax_gpu(a)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(np.asarray(got, np.float32), np.asarray(want, np.float32),
                               rtol=2e-2, atol=1e-1)


def _mlp_loss(xp):
    def loss(params, x, y):
        h = xp.tanh(x @ params["w1"] + params["b1"])
        return xp.mean((h @ params["w2"] - y) ** 2)
    return loss


def test_per_example_gradients_and_hvp_match_jax_on_the_gpu():
    params = {"w1": RNG.standard_normal((5, 16)).astype(np.float32) * 0.3,
              "b1": np.zeros(16, np.float32),
              "w2": RNG.standard_normal((16, 2)).astype(np.float32) * 0.3}
    x = RNG.standard_normal((32, 5)).astype(np.float32)
    y = RNG.standard_normal((32, 2)).astype(np.float32)
    ours = fa.jit(fa.vmap(fa.grad(_mlp_loss(fnp)), in_axes=(None, 0, 0)))(
        fa.device_put(params), fa.device_put(x), fa.device_put(y))
    with jax.default_matmul_precision("highest"):
        theirs = jax.jit(jax.vmap(jax.grad(_mlp_loss(jnp)), in_axes=(None, 0, 0)))(
            _jax_gpu(params), _jax_gpu(x), _jax_gpu(y))
        hvp_jax = jax.jit(lambda p, v: jax.jvp(jax.grad(_mlp_loss(jnp)), (p, x, y),
                                               (v, x * 0, y * 0))[1])(params, params)
    for k in params:
        assert _on_gpu(ours[k])
        np.testing.assert_allclose(np.asarray(ours[k]), np.asarray(theirs[k]), rtol=1e-4,
                                   atol=1e-6)
    hvp = fa.jit(lambda p, v: fa.jvp(fa.grad(_mlp_loss(fnp)), (p, x, y),
                                     (v, x * 0, y * 0))[1])(params, params)
    for k in params:
        np.testing.assert_allclose(np.asarray(hvp[k]), np.asarray(hvp_jax[k]), rtol=1e-4,
                                   atol=1e-6)


def test_linear_algebra_under_jit_on_the_gpu():
    m = RNG.standard_normal((6, 6))
    spd = m @ m.T + 6 * np.eye(6)
    rhs = RNG.standard_normal((6, 2))
    g = fa.device_put(spd)
    out = fa.jit(lambda a, b: {
        "chol": fnp.linalg.cholesky(a), "solve": fnp.linalg.solve(a, b),
        "eigh": fnp.linalg.eigh(a)[0], "svd": fnp.linalg.svd(a, compute_uv=False),
        "det": fnp.linalg.det(a), "r": fnp.abs(fnp.linalg.qr(a)[1]),
        "eig": fnp.sort(fnp.linalg.eigvals(a).real)})(g, fa.device_put(rhs))
    want = {"chol": np.linalg.cholesky(spd), "solve": np.linalg.solve(spd, rhs),
            "eigh": np.linalg.eigvalsh(spd), "svd": np.linalg.svd(spd, compute_uv=False),
            "det": np.linalg.det(spd), "r": np.abs(np.linalg.qr(spd)[1]),
            "eig": np.sort(np.linalg.eigvals(spd).real)}
    for k in want:
        np.testing.assert_allclose(np.asarray(out[k]), want[k], rtol=1e-9, atol=1e-9,
                                   err_msg=k)


def test_host_callbacks_under_jit_on_the_gpu(capsys):
    def f(x):
        fa.debug.print("total={t}", t=fnp.sum(x))
        shape = fa.ShapeDtypeStruct(x.shape, x.dtype)
        return fa.pure_callback(lambda v: np.cos(np.asarray(v)), shape, x) * 2.0

    x = np.arange(4.0, dtype=np.float32)
    got = fa.jit(f)(fa.device_put(x))
    assert _on_gpu(got)
    np.testing.assert_allclose(np.asarray(got), np.cos(x) * 2.0, rtol=1e-6)
    assert "total=6.0" in capsys.readouterr().out


def test_donated_gpu_buffers_are_consumed():
    step = fa.jit(lambda p, g: p - 0.1 * g, donate_argnums=0)
    params = fa.device_put(np.ones(1024, np.float32))
    new = step(params, fa.device_put(np.ones(1024, np.float32)))
    np.testing.assert_allclose(np.asarray(new), 0.9, rtol=1e-6)
    with pytest.raises(RuntimeError, match="was donated"):
        np.asarray(params)
    with pytest.raises(RuntimeError, match="was donated"):
        step(params, new)
