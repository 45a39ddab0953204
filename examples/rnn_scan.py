"""Train a small recurrent network written with ``funcarray.lax.scan``.

The network reads a noisy sine wave one step at a time and predicts the next value. The
recurrence is a ``scan`` (one compiled loop, not an unrolled Python loop); ``grad``
differentiates through it and ``vmap`` runs it over a batch of sequences.

Run: ``python examples/rnn_scan.py`` (a few seconds on a CPU).
"""

import argparse

import numpy as np

import funcarray as fa
import funcarray.numpy as fnp
from funcarray import lax

HIDDEN = 16


def init_params(rng):
    scale = 1.0 / np.sqrt(HIDDEN)
    return {
        "wx": fnp.asarray(rng.normal(0, 1.0, (1, HIDDEN)), dtype="float32"),
        "wh": fnp.asarray(rng.normal(0, scale, (HIDDEN, HIDDEN)), dtype="float32"),
        "b": fnp.zeros(HIDDEN),
        "wo": fnp.asarray(rng.normal(0, scale, (HIDDEN, 1)), dtype="float32"),
    }


def predict(params, seq):
    """One sequence ``(T, 1)`` -> the predicted next values ``(T, 1)``."""
    def cell(h, x):
        h = fnp.tanh(x @ params["wx"] + h @ params["wh"] + params["b"])
        return h, h @ params["wo"]

    _, outs = lax.scan(cell, fnp.zeros(HIDDEN), seq)
    return outs


def loss(params, inputs, targets):
    preds = fa.vmap(predict, in_axes=(None, 0))(params, inputs)
    return ((preds - targets) ** 2).mean()


@fa.jit
def train_step(params, inputs, targets, lr):
    value, grads = fa.value_and_grad(loss)(params, inputs, targets)
    return fa.tree.map(lambda p, g: p - lr * g, params, grads), value


def make_data(rng, batch, length):
    phase = rng.uniform(0, 2 * np.pi, (batch, 1))
    t = np.arange(length + 1) * 0.3
    wave = np.sin(t + phase) + rng.normal(0, 0.05, (batch, length + 1))
    wave = wave.astype(np.float32)[..., None]
    return fnp.asarray(wave[:, :-1]), fnp.asarray(wave[:, 1:])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=150)
    parser.add_argument("--lr", type=float, default=0.1)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    params = init_params(rng)
    inputs, targets = make_data(rng, batch=32, length=20)
    first = None
    for step in range(args.steps):
        params, value = train_step(params, inputs, targets, args.lr)
        first = float(value) if first is None else first
        if step % 50 == 0 or step == args.steps - 1:
            print(f"step {step:4d}  loss {float(value):.4f}")
    final = float(loss(params, inputs, targets))
    print(f"loss: {first:.4f} -> {final:.4f}")
    if not final < first:
        raise SystemExit("training did not reduce the loss")


if __name__ == "__main__":
    main()
