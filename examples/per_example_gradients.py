"""Per-example gradients with ``vmap(grad(...))``, and DP-SGD training built on them.

``fa.grad`` of a one-example loss, mapped over the batch with ``fa.vmap``, gives every
example's gradient in one vectorised computation. The script checks it against a Python loop
of ``fa.grad`` calls, times the loop, the eager ``vmap`` and the jitted ``vmap``, then trains
an MLP on scikit-learn's digits with DP-SGD: each example's gradient is clipped to a maximum
norm, the clipped gradients are summed, and Gaussian noise scaled to the clipping norm is
added before the update (Abadi et al., 2016), all inside one jitted step.

Run: python examples/per_example_gradients.py [--steps N] [--quick]
"""

import argparse
import os
import sys
import time

import funcarray as fa
import funcarray.nn as nn
import funcarray.numpy as fnp
import funcarray.optim as optim
import funcarray.random as fr

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import train_mlp  # noqa: E402  (data, model and progress bar)


def example_loss(params, image, label):
    """Cross-entropy of one example (no batch axis): what per-example gradients differentiate."""
    logits = train_mlp.mlp(params, image[None])[0]
    return -fnp.sum(nn.one_hot(label, 10) * nn.log_softmax(logits))


# in_axes: the parameters are shared (None), images and labels are mapped over axis 0.
per_example_grads = fa.vmap(fa.grad(example_loss), in_axes=(None, 0, 0))


def loop_grads(params, images, labels):
    """The same gradients, one ``fa.grad`` call per example, stacked."""
    grads = [fa.grad(example_loss)(params, images[i], labels[i]) for i in range(len(labels))]
    return fa.tree.map(lambda *g: fnp.stack(g), *grads)


def clip_per_example(grads, max_norm: float):
    """Scale each example's gradient (all leaves together) to a norm of at most ``max_norm``."""
    squares = [fnp.sum(g.reshape(g.shape[0], -1) ** 2, axis=1) for g in fa.tree.leaves(grads)]
    norms = fnp.sqrt(sum(squares))
    factors = fnp.minimum(1.0, max_norm / (norms + 1e-12))
    return fa.tree.map(lambda g: g * factors.reshape((-1,) + (1,) * (g.ndim - 1)), grads), norms


def _normal_like(key, tree):
    """Standard normal noise shaped like ``tree``, drawn in one call and cut into leaves."""
    leaves, treedef = fa.tree.flatten(tree)
    draws = fr.normal(key, (sum(leaf.size for leaf in leaves),))
    noise, start = [], 0
    for leaf in leaves:
        noise.append(draws[start:start + leaf.size].reshape(leaf.shape).astype(leaf.dtype))
        start += leaf.size
    return fa.tree.unflatten(treedef, noise)


def make_dp_step(optimizer, max_norm: float, noise_multiplier: float):
    def dp_step(params, opt_state, key, images, labels):
        key, noise_key = fr.split(key)
        clipped, norms = clip_per_example(per_example_grads(params, images, labels), max_norm)
        summed = fa.tree.map(lambda g: fnp.sum(g, axis=0), clipped)
        noise = _normal_like(noise_key, summed)
        grads = fa.tree.map(lambda g, z: (g + noise_multiplier * max_norm * z) / images.shape[0],
                            summed, noise)
        updates, opt_state = optimizer.update(grads, opt_state, params)
        return optim.apply_updates(params, updates), opt_state, key, fnp.mean(norms)

    return dp_step


def timed(fn, *args, repeat: int = 3) -> float:
    """Best wall time of ``repeat`` calls, in milliseconds (results made concrete)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fa.tree.map(lambda x: x.block_until_ready(), fn(*args))
        best = min(best, time.perf_counter() - start)
    return best * 1e3


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=None,
                        help="DP-SGD steps (default 600; 10 with --quick)")
    parser.add_argument("--quick", action="store_true", default=train_mlp.QUICK)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--max-norm", type=float, default=1.0, help="per-example clip norm")
    parser.add_argument("--noise-multiplier", type=float, default=1.0)
    args = parser.parse_args(argv)
    if args.steps is None:
        args.steps = 10 if args.quick else 600
    return args


def main(argv=None) -> dict:
    args = parse_args(argv)
    splits = train_mlp.load_splits()
    (train_x, train_y), (test_x, test_y) = splits["train"], splits["test"]
    params = train_mlp.init_mlp(fr.key(0), (64, 32, 10))
    images = fnp.asarray(train_x[:args.batch_size])
    labels = fnp.asarray(train_y[:args.batch_size])

    vectorised = per_example_grads(params, images, labels)
    looped = loop_grads(params, images, labels)
    difference = max(float(fnp.max(fnp.abs(a - b))) for a, b in
                     zip(fa.tree.leaves(vectorised), fa.tree.leaves(looped), strict=True))
    shapes = {name: g.shape for name, g in vectorised["layers"][0].items()}
    print(f"per-example gradients of layer 0 for {len(labels)} examples: {shapes}")
    print(f"vmap(grad) vs a loop of grad: max abs difference {difference:.2e}")
    assert difference < 1e-5, difference

    jitted = fa.jit(per_example_grads)
    jitted(params, images, labels)  # compile once before timing
    times = {"loop of grad (eager)": timed(loop_grads, params, images, labels, repeat=1),
             "vmap(grad) (eager)": timed(per_example_grads, params, images, labels),
             "jit(vmap(grad))": timed(jitted, params, images, labels)}
    for name, ms in times.items():
        print(f"  {name:22s} {ms:8.2f} ms  ({times['loop of grad (eager)'] / ms:6.1f}x)")

    optimizer = optim.adam(3e-3)
    step = fa.jit(make_dp_step(optimizer, args.max_norm, args.noise_multiplier),
                  donate_argnums=(0, 1))
    opt_state, key = optimizer.init(params), fr.key(1)
    data = train_mlp.batches(train_x, train_y, args.batch_size, seed=0)
    progress = train_mlp.ProgressBar(args.steps, "DP-SGD")
    start = time.perf_counter()
    for i in range(1, args.steps + 1):
        params, opt_state, key, mean_norm = step(params, opt_state, key, *next(data))
        if i == 1:
            compiled_at = time.perf_counter()
            print(f"compiled the DP-SGD step in {compiled_at - start:.1f} s")
        progress.update(i, mean_grad_norm=float(mean_norm))
    steps_per_second = (args.steps - 1) / max(time.perf_counter() - compiled_at, 1e-9)
    test_accuracy = train_mlp.accuracy(params, test_x, test_y)
    print(f"DP-SGD (clip {args.max_norm}, noise multiplier {args.noise_multiplier}, "
          f"{args.steps} steps, {steps_per_second:.0f} steps/s): test accuracy "
          f"{test_accuracy:.2%}")
    return {"difference": difference, "test_accuracy": test_accuracy, "times": times}


if __name__ == "__main__":
    main()
