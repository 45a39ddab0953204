"""Train an MLP classifier on scikit-learn's handwritten digits with funcarray.

The first training step runs eagerly, line by line on NumPy kernels, so its intermediate
values can be printed (or inspected in pdb); the same step function is then compiled with
``fa.jit`` and trained to convergence. The script prints the test accuracy and the compiled
steps per second, saves a loss-curve PNG and a safetensors checkpoint in the output folder.

Run: python examples/train_mlp.py [--steps N] [--quick] [--out DIR]
(needs the examples extra: python -m pip install -e ".[examples]")
"""

import argparse
import math
import os
import sys
import time

import numpy as np

import funcarray as fa
import funcarray.io as fio
import funcarray.nn as nn
import funcarray.numpy as fnp
import funcarray.optim as optim
import funcarray.random as fr

# The test suite runs every example with FUNCARRAY_EXAMPLES_QUICK=1 (a few steps) and
# FUNCARRAY_EXAMPLES_OUT set to a temporary folder.
QUICK = os.environ.get("FUNCARRAY_EXAMPLES_QUICK") == "1"
DEFAULT_OUT = os.environ.get("FUNCARRAY_EXAMPLES_OUT", "outputs")
CHECKPOINT_NAME = "mlp.safetensors"
HIDDEN = (128, 128)


# --- a tiny progress bar --------------------------------------------------------------------

class ProgressBar:
    """A progress bar on stderr, redrawn in place on a terminal; when stderr is not a
    terminal (a log file, CI) it prints a plain line every ``total // lines`` steps instead."""

    def __init__(self, total: int, description: str = "", width: int = 30, lines: int = 10,
                 stream=None):
        self.total, self.description, self.width = total, description, width
        self.stream = stream or sys.stderr
        self.interactive = self.stream.isatty()
        self.every = max(1, total // lines)
        self.start = self.last_draw = time.perf_counter()

    def update(self, done: int, **info) -> None:
        now = time.perf_counter()
        finished = done == self.total
        if self.interactive:
            if not finished and now - self.last_draw < 0.1:
                return
            filled = self.width * done // max(self.total, 1)
            bar = "#" * filled + "." * (self.width - filled)
            self.stream.write(f"\r{self.description} [{bar}] {self._text(done, now, info)}")
            if finished:
                self.stream.write("\n")
        elif finished or done % self.every == 0:
            self.stream.write(f"{self.description} {self._text(done, now, info)}\n")
        self.stream.flush()
        self.last_draw = now

    def _text(self, done: int, now: float, info: dict) -> str:
        rate = done / max(now - self.start, 1e-9)
        fields = " ".join(f"{name} {value:.4f}" for name, value in info.items())
        return f"{done}/{self.total} {fields} {rate:.0f} steps/s"


# --- data and model ---------------------------------------------------------------------------

def load_splits(seed: int = 0) -> dict:
    """scikit-learn's 8x8 digits as float32 pixels in [0, 1] and int32 labels, split once with
    a fixed seed: 60% to train, 20% held out (for experiments of your own), 20% to test."""
    from sklearn.datasets import load_digits

    digits = load_digits()
    images = (digits.images / 16.0).astype(np.float32)
    labels = digits.target.astype(np.int32)
    order = np.random.default_rng(seed).permutation(len(labels))
    cut1, cut2 = int(0.6 * len(order)), int(0.8 * len(order))
    parts = {"train": order[:cut1], "held_out": order[cut1:cut2], "test": order[cut2:]}
    return {name: (images[idx], labels[idx]) for name, idx in parts.items()}


def init_mlp(key, sizes) -> dict:
    """``{"layers": [{"w", "b"}, ...]}``: He-initialised weights, zero biases."""
    init = nn.initializers.he_normal()
    layers = []
    for key, (n_in, n_out) in zip(fr.split(key, len(sizes) - 1), zip(sizes, sizes[1:])):
        layers.append({"w": init(key, (n_in, n_out)), "b": fnp.zeros(n_out)})
    return {"layers": layers}


def mlp(params, images):
    """Logits for a batch of 8x8 images."""
    x = images.reshape(images.shape[0], -1)
    *hidden, last = params["layers"]
    for layer in hidden:
        x = nn.relu(x @ layer["w"] + layer["b"])
    return x @ last["w"] + last["b"]


def loss_fn(params, images, labels):
    """Mean softmax cross-entropy."""
    logits = mlp(params, images)
    return -fnp.mean(fnp.sum(nn.one_hot(labels, 10) * nn.log_softmax(logits), axis=-1))


def accuracy(params, images, labels) -> float:
    predictions = fnp.argmax(mlp(params, fnp.asarray(images)), axis=-1)
    return float(fnp.mean(predictions == fnp.asarray(labels)))


def make_optimizer(learning_rate: float, steps: int):
    schedule = optim.cosine_decay_schedule(learning_rate, decay_steps=max(steps, 1))
    return optim.chain(optim.clip_by_global_norm(1.0), optim.adam(schedule))


def make_train_step(optimizer):
    def train_step(params, opt_state, images, labels):
        loss, grads = fa.value_and_grad(loss_fn)(params, images, labels)
        updates, opt_state = optimizer.update(grads, opt_state, params)
        return optim.apply_updates(params, updates), opt_state, loss

    return train_step


def batches(images, labels, batch_size: int, seed: int):
    """Endless shuffled minibatches (data loading stays in NumPy)."""
    rng = np.random.default_rng(seed)
    while True:
        order = rng.permutation(len(labels))
        for start in range(0, len(order) - batch_size + 1, batch_size):
            idx = order[start:start + batch_size]
            yield fnp.asarray(images[idx]), fnp.asarray(labels[idx])


def train(params, opt_state, step_fn, data, steps: int, description: str):
    """Run ``steps`` steps of the compiled ``step_fn``; returns params, state, losses, and
    the steady-state steps per second (the first call, which compiles, is timed apart)."""
    losses, progress = [], ProgressBar(steps, description)
    start = None
    for step in range(1, steps + 1):
        images, labels = next(data)
        params, opt_state, loss = step_fn(params, opt_state, images, labels)
        losses.append(float(loss))  # one small device-to-host copy per step, for the bar
        if step == 1:
            start = time.perf_counter()
        progress.update(step, loss=losses[-1])
    elapsed = time.perf_counter() - start
    return params, opt_state, losses, (steps - 1) / elapsed if steps > 1 else math.nan


def save_loss_curve(losses, path: str, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")  # no display needed
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(np.arange(1, len(losses) + 1), losses, lw=0.8, alpha=0.5, label="per step")
    window = max(1, len(losses) // 25)
    if len(losses) >= window:
        smooth = np.convolve(losses, np.ones(window) / window, mode="valid")
        ax.plot(np.arange(window, len(losses) + 1), smooth, lw=2, label=f"mean of {window}")
    ax.set(xlabel="step", ylabel="cross-entropy", yscale="log", title=title)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def parse_args(argv=None, default_steps: int = 1500):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=None,
                        help=f"training steps (default {default_steps}; 20 with --quick)")
    parser.add_argument("--quick", action="store_true", default=QUICK,
                        help="a few steps only, to check that everything runs")
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--learning-rate", type=float, default=3e-3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=DEFAULT_OUT, help="folder for the PNG and checkpoint")
    args = parser.parse_args(argv)
    if args.steps is None:
        args.steps = 20 if args.quick else default_steps
    return args


def main(argv=None) -> dict:
    args = parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    splits = load_splits()
    (train_x, train_y), (test_x, test_y) = splits["train"], splits["test"]
    print(f"digits: {len(train_y)} training and {len(test_y)} test images of 8x8 pixels "
          f"({len(splits['held_out'][1])} more held out)")

    sizes = (64, *HIDDEN, 10)
    params = init_mlp(fr.key(args.seed), sizes)
    optimizer = make_optimizer(args.learning_rate, args.steps)
    opt_state = optimizer.init(params)
    train_step = make_train_step(optimizer)
    data = batches(train_x, train_y, args.batch_size, args.seed)

    # Step 1, eagerly: every value is concrete, so it can be printed or inspected in pdb.
    images, labels = next(data)
    hidden = nn.relu(images.reshape(len(images), -1) @ params["layers"][0]["w"])
    print(f"eager step: first hidden layer {hidden.shape}, "
          f"{float(fnp.mean(hidden > 0)):.0%} of its units active")
    grads = fa.grad(loss_fn)(params, images, labels)
    for i, layer in enumerate(grads["layers"]):
        print(f"eager step: layer {i} gradient norm {float(optim.global_norm(layer)):.4f}")
    start = time.perf_counter()
    params, opt_state, loss = train_step(params, opt_state, images, labels)
    print(f"eager step: loss {float(loss):.4f} "
          f"({(time.perf_counter() - start) * 1e3:.0f} ms, no compilation)")

    # The remaining steps, compiled. Donating params and state lets XLA update them in place.
    step = fa.jit(train_step, donate_argnums=(0, 1))
    run_start = time.perf_counter()
    params, opt_state, losses, steps_per_second = train(
        params, opt_state, step, data, args.steps - 1, "training")
    losses.insert(0, float(loss))
    test_accuracy = accuracy(params, test_x, test_y)
    print(f"final loss {losses[-1]:.4f}; test accuracy {test_accuracy:.2%}")
    print(f"jitted: {steps_per_second:.0f} steps/s after compiling "
          f"(whole run {time.perf_counter() - run_start:.1f} s)")

    curve = os.path.join(args.out, "loss_curve.png")
    save_loss_curve(losses, curve, f"MLP on digits: test accuracy {test_accuracy:.1%}")
    checkpoint = os.path.join(args.out, CHECKPOINT_NAME)
    fio.save(checkpoint, params, metadata={
        "sizes": ",".join(map(str, sizes)), "steps": str(args.steps),
        "test_accuracy": f"{test_accuracy:.4f}"})
    print(f"saved {curve} and {checkpoint}")
    return {"params": params, "test_accuracy": test_accuracy, "checkpoint": checkpoint}


if __name__ == "__main__":
    main()
