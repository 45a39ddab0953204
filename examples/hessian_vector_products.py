"""Hessian-vector products by forward-over-reverse differentiation, checked against the
explicit Hessian, and used for Newton-CG and for the Hessian's largest eigenvalue.

``fa.jvp(fa.grad(f), (x,), (v,))`` differentiates the gradient along ``v``: it costs a small
multiple of one gradient and never forms the ``n x n`` Hessian. The script compares it with
reverse-over-reverse and reverse-over-forward products and with ``fa.hessian(f)(x) @ v`` on
the loss of an L2-regularised softmax regression on scikit-learn's digits (float64, so the
methods agree to rounding), times them, then runs a few Newton-CG steps (conjugate gradients
on HVPs) and a power iteration for the top eigenvalue.

Run: python examples/hessian_vector_products.py [--quick]
"""

import argparse
import os
import sys
import time

import numpy as np

import funcarray as fa
import funcarray.nn as nn
import funcarray.numpy as fnp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import train_mlp  # noqa: E402  (the digits data)

N_FEATURES, N_CLASSES, L2 = 64, 10, 1e-2


def make_loss(images, labels):
    """The regularised cross-entropy as a function of one flat float64 parameter vector."""
    x = fnp.asarray(images.reshape(len(images), -1).astype(np.float64))
    targets = nn.one_hot(fnp.asarray(labels), N_CLASSES, dtype=fnp.float64)

    def loss(theta):
        w = theta[:N_FEATURES * N_CLASSES].reshape(N_FEATURES, N_CLASSES)
        b = theta[N_FEATURES * N_CLASSES:]
        log_probs = nn.log_softmax(x @ w + b)
        return -fnp.mean(fnp.sum(targets * log_probs, axis=-1)) + L2 * fnp.sum(theta ** 2)

    return loss


def hvp_forward_over_reverse(f):
    return lambda x, v: fa.jvp(fa.grad(f), (x,), (v,))[1]


def hvp_reverse_over_reverse(f):
    return lambda x, v: fa.grad(lambda y: fnp.vdot(fa.grad(f)(y), v))(x)


def hvp_reverse_over_forward(f):
    return lambda x, v: fa.grad(lambda y: fa.jvp(f, (y,), (v,))[1])(x)


def conjugate_gradient(hvp, b, iterations: int, tolerance: float = 1e-10):
    """Solve ``H d = b`` for a positive-definite ``H`` known only through ``hvp(v) = H v``."""
    d = fnp.zeros_like(b)
    r = b
    p = r
    rr = float(fnp.vdot(r, r))
    for _ in range(iterations):
        hp = hvp(p)
        alpha = rr / float(fnp.vdot(p, hp))
        d, r = d + alpha * p, r - alpha * hp
        rr_new = float(fnp.vdot(r, r))
        if rr_new < tolerance:
            break
        p, rr = r + (rr_new / rr) * p, rr_new
    return d


def line_search(f, x, g, direction, shrink: float = 0.5) -> float:
    """The first step ``1, 1/2, 1/4...`` along ``direction`` that decreases ``f`` enough
    (Armijo's rule)."""
    step, f_x, slope = 1.0, float(f(x)), float(fnp.vdot(g, direction))
    while float(f(x + step * direction)) > f_x + 1e-4 * step * slope and step > 1e-8:
        step *= shrink
    return step


def norm(x) -> float:
    return float(fnp.sqrt(fnp.vdot(x, x)))


def timed(fn, *args, repeat: int = 3) -> float:
    """Best wall time of ``repeat`` calls, in milliseconds."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn(*args).block_until_ready()
        best = min(best, time.perf_counter() - start)
    return best * 1e3


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", default=train_mlp.QUICK,
                        help="fewer examples and iterations, to check that everything runs")
    return parser.parse_args(argv)


def main(argv=None) -> dict:
    args = parse_args(argv)
    images, labels = train_mlp.load_splits()["train"]
    if args.quick:
        images, labels = images[:200], labels[:200]
    loss = make_loss(images, labels)
    n = N_FEATURES * N_CLASSES + N_CLASSES
    rng = np.random.default_rng(0)
    theta = fnp.asarray(rng.normal(scale=0.1, size=n))
    v = fnp.asarray(rng.normal(size=n))
    print(f"softmax regression on {len(labels)} digits: {n} parameters, float64")

    hessian = fa.hessian(loss)(theta)  # explicit n x n matrix: n forward passes of the gradient
    expected = hessian @ v
    methods = {"forward-over-reverse": hvp_forward_over_reverse(loss),
               "reverse-over-reverse": hvp_reverse_over_reverse(loss),
               "reverse-over-forward": hvp_reverse_over_forward(loss)}
    scale = float(fnp.max(fnp.abs(expected)))
    errors = {}
    for name, hvp in methods.items():
        errors[name] = float(fnp.max(fnp.abs(hvp(theta, v) - expected))) / scale
        print(f"{name:22s} vs hessian(f) @ v: max relative difference {errors[name]:.1e}")
        assert errors[name] < 1e-10, (name, errors[name])

    print("timings (jitted, after compiling):")
    hessian_jit = fa.jit(fa.hessian(loss))
    hessian_jit(theta)
    times = {"hessian(f)(x) @ v": timed(lambda x, w: hessian_jit(x) @ w, theta, v)}
    for name, hvp in methods.items():
        jitted = fa.jit(hvp)
        jitted(theta, v)
        times[name] = timed(jitted, theta, v)
    for name, ms in times.items():
        print(f"  {name:22s} {ms:8.2f} ms")

    # Newton-CG: solve H d = -g with conjugate gradients on HVPs (H is positive definite
    # thanks to the L2 term), with a backtracking line search; against gradient descent
    # given as many gradient-sized evaluations.
    grad = fa.jit(fa.grad(loss))
    hvp = fa.jit(hvp_forward_over_reverse(loss))
    steps, cg_iterations = (2, 10) if args.quick else (6, 30)
    x_newton, x_gd = theta, theta
    print(f"loss at the start {float(loss(theta)):.6f}")
    for step in range(1, steps + 1):
        g = grad(x_newton)
        direction = conjugate_gradient(lambda u, x=x_newton: hvp(x, u), -g, cg_iterations)
        x_newton = x_newton + line_search(loss, x_newton, g, direction) * direction
        for _ in range(cg_iterations):
            x_gd = x_gd - 0.5 * grad(x_gd)
        print(f"step {step}: Newton-CG loss {float(loss(x_newton)):.8f} (gradient norm "
              f"{norm(grad(x_newton)):.1e}); gradient descent, as many evaluations: "
              f"{float(loss(x_gd)):.8f}")

    # The largest eigenvalue by power iteration on HVPs, against the explicit spectrum.
    u = v / norm(v)
    for _ in range(20 if args.quick else 200):
        w = hvp(theta, u)
        u = w / norm(w)
    top = float(fnp.vdot(u, hvp(theta, u)))
    exact = float(np.linalg.eigvalsh(np.asarray(hessian))[-1])
    print(f"largest Hessian eigenvalue: power iteration on HVPs {top:.6f}, "
          f"eigvalsh of the explicit Hessian {exact:.6f}")
    return {"errors": errors, "times": times, "top_eigenvalue": (top, exact)}


if __name__ == "__main__":
    main()
