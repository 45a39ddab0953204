"""Real-world test functions, written once against a NumPy-like namespace ``lib``.

Each function takes ``lib`` first (``funcarray.numpy`` or ``jax.numpy``) so the very same code
runs in funcarray and in the jax oracle. They are written the way users write them: ``@``,
``tanh``, a max-stabilised ``logsumexp`` built from ``max``/``exp``/``log``/``sum``, ``mean``,
slicing, ``take_along_axis``, broadcasting. Every function works on one example (no leading
batch axis) as well as on a batch, so per-example gradients are ``vmap(grad(f))``.

``make_case(name, rng, dtype)`` returns the function and its arguments as NumPy pytrees.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

__all__ = ["logsumexp", "mlp_mse_loss", "mlp_xent_loss", "softmax_cross_entropy",
           "logdet_like", "elementwise_broadcast", "Case", "make_case", "CASE_NAMES"]


def logsumexp(lib, z, axis=-1):
    """``log(sum(exp(z)))`` along ``axis``, shifted by the max for stability."""
    m = lib.max(z, axis=axis, keepdims=True)
    return lib.log(lib.sum(lib.exp(z - m), axis=axis)) + lib.squeeze(m, axis=axis)


def _mlp_forward(lib, params, x, activation="tanh"):
    hidden = x @ params["w1"] + params["b1"]
    hidden = lib.tanh(hidden) if activation == "tanh" else lib.maximum(hidden, 0.0)
    return lib.dot(hidden, params["w2"]) + params["b2"]


def mlp_mse_loss(lib, params, x, y, activation="tanh"):
    """Two-layer perceptron, mean squared error against targets ``y``."""
    return lib.mean((_mlp_forward(lib, params, x, activation) - y) ** 2)


def mlp_xent_loss(lib, params, x, labels_onehot, activation="relu"):
    """Two-layer perceptron, softmax cross-entropy against one-hot labels."""
    logits = _mlp_forward(lib, params, x, activation)
    log_probs = logits - logsumexp(lib, logits)[..., None]
    return -lib.mean(lib.sum(labels_onehot * log_probs, axis=-1))


def softmax_cross_entropy(lib, logits, labels):
    """Mean softmax cross-entropy of ``logits`` (..., classes) against integer ``labels``."""
    log_probs = logits - logsumexp(lib, logits)[..., None]
    picked = lib.take_along_axis(log_probs, labels[..., None], axis=-1)[..., 0]
    return -lib.mean(picked)


def logdet_like(lib, a, x):
    """A log-determinant-like reduction: the sum of the logs of the positive diagonal of a
    diagonally dominant matrix built from ``a``, plus ``log(sum(exp(a @ x)))``."""
    gram = a @ a.T + a.shape[0] * lib.eye(a.shape[0], dtype=a.dtype)
    log_diag = lib.sum(lib.log(lib.diagonal(gram)))
    return log_diag + logsumexp(lib, a @ x) + 0.1 * lib.trace(a[:, 1:])


def elementwise_broadcast(lib, x, b):
    """Elementwise-heavy: ``x`` (..., n, m) broadcast against ``b`` (m,)."""
    scale = lib.exp(-b * b)
    smooth = lib.sqrt(x * x + b * b + 1.0)
    gate = 1.0 / (1.0 + lib.exp(-x))  # a sigmoid
    mixed = lib.sin(x) * scale + smooth * gate - x / (1.0 + b ** 2)
    return lib.sum(lib.where(x > 0, mixed, 0.5 * mixed) + lib.cos(b)[None] ** 2)


class Case(NamedTuple):
    """A scalar function of ``args`` (arg 0 is differentiated), a batch of per-example data
    for vmap (``batch_args``, mapped with ``in_axes``) and a tangent like arg 0."""

    name: str
    fun: Callable  # fun(lib, *args)
    args: tuple
    batch_args: tuple
    in_axes: tuple
    tangent: object


def _params(rng, dtype, n_in=3, n_hidden=4, n_out=2):
    return {"w1": rng.standard_normal((n_in, n_hidden)).astype(dtype),
            "b1": (0.1 * rng.standard_normal(n_hidden)).astype(dtype),
            "w2": rng.standard_normal((n_hidden, n_out)).astype(dtype),
            "b2": (0.1 * rng.standard_normal(n_out)).astype(dtype)}


def _like(rng, tree, dtype):
    if isinstance(tree, dict):
        return {k: _like(rng, v, dtype) for k, v in tree.items()}
    return rng.standard_normal(np.shape(tree)).astype(dtype)


def _onehot(rng, n, classes, dtype):
    return np.eye(classes, dtype=dtype)[rng.integers(0, classes, n)]


def make_case(name: str, rng: np.random.Generator, dtype=np.float64) -> Case:
    """The named case with fresh random values from ``rng``."""
    std = rng.standard_normal
    if name == "mlp_mse":
        params = _params(rng, dtype)
        x, y = std((5, 3)).astype(dtype), std((5, 2)).astype(dtype)
        return Case(name, mlp_mse_loss, (params, x, y), (params, x, y), (None, 0, 0),
                    _like(rng, params, dtype))
    if name == "mlp_xent":
        params = _params(rng, dtype, n_out=3)
        x, labels = std((5, 3)).astype(dtype), _onehot(rng, 5, 3, dtype)
        return Case(name, mlp_xent_loss, (params, x, labels), (params, x, labels),
                    (None, 0, 0), _like(rng, params, dtype))
    if name == "softmax_xent":
        logits = (2 * std((5, 4))).astype(dtype)
        labels = rng.integers(0, 4, 5).astype(np.int32)
        return Case(name, softmax_cross_entropy, (logits, labels), (logits, labels), (0, 0),
                    std(logits.shape).astype(dtype))
    if name == "logdet_like":
        a, x = std((4, 4)).astype(dtype), std(4).astype(dtype)
        xs = std((3, 4)).astype(dtype)
        return Case(name, logdet_like, (a, x), (a, xs), (None, 0), std(a.shape).astype(dtype))
    if name == "elementwise":
        x, b = std((3, 4)).astype(dtype), std(4).astype(dtype)
        return Case(name, elementwise_broadcast, (x, b), (std((2, 3, 4)).astype(dtype), b),
                    (0, None), std(x.shape).astype(dtype))
    raise ValueError(f"unknown case {name!r}")


CASE_NAMES = ("mlp_mse", "mlp_xent", "softmax_xent", "logdet_like", "elementwise")
