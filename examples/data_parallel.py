"""Data-parallel training of the digits MLP on 8 simulated CPU devices.

The parameters and optimizer state are replicated on every device of a one-axis mesh
``("data",)``; each batch is split along its first axis, one eighth per device. The
training step is the plain single-device ``train_step`` of ``train_mlp.py`` under ``jit``
with ``in_shardings``/``out_shardings``: no collective is written by hand. XLA's SPMD
partitioner sees that the mean loss sums over a split axis and inserts the all-reduce that
averages the gradients. The script checks the first steps against the same training on
one device, then saves the replicated parameters (``funcarray.io.save`` gathers) and loads
them back onto the mesh with ``load(..., sharding=)``.

Run: python examples/data_parallel.py [--steps N] [--quick]
"""

import os
import sys

# XLA fixes the number of CPU devices when it starts: ask for 8 before funcarray loads jaxlib.
os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "")
                           + " --xla_force_host_platform_device_count=8").strip()

import numpy as np  # noqa: E402

import funcarray as fa  # noqa: E402
import funcarray.io as fio  # noqa: E402
import funcarray.random as fr  # noqa: E402
from funcarray.sharding import NamedSharding  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from train_mlp import (  # noqa: E402  (the model, data and optimizer of the one-device run)
    HIDDEN,
    accuracy,
    init_mlp,
    load_splits,
    make_optimizer,
    make_train_step,
    parse_args,
)

P = fa.P


def numpy_batches(images, labels, batch_size: int, seed: int):
    """Endless shuffled minibatches as NumPy arrays (jit splits them over the mesh)."""
    rng = np.random.default_rng(seed)
    while True:
        order = rng.permutation(len(labels))
        for start in range(0, len(order) - batch_size + 1, batch_size):
            idx = order[start:start + batch_size]
            yield images[idx], labels[idx]


def main(argv=None) -> dict:
    args = parse_args(argv, default_steps=600)
    os.makedirs(args.out, exist_ok=True)
    n = len(fa.devices())
    print(f"devices: {n}")
    if args.batch_size % n:
        raise SystemExit(f"--batch-size {args.batch_size} must be a multiple of {n} devices")
    splits = load_splits()
    (train_x, train_y), (test_x, test_y) = splits["train"], splits["test"]

    mesh = fa.make_mesh((n,), ("data",))
    replicated = NamedSharding(mesh, P())
    split = NamedSharding(mesh, P("data"))  # a batch: one slice of its rows per device

    params = init_mlp(fr.key(args.seed), (64, *HIDDEN, 10))
    optimizer = make_optimizer(args.learning_rate, args.steps)
    opt_state = optimizer.init(params)
    train_step = make_train_step(optimizer)

    # The same step twice: on one device, and partitioned over the mesh. Shardings are pytree
    # prefixes: one for all of params and one for all of the optimizer state.
    one_device = fa.jit(train_step)
    parallel = fa.jit(train_step,
                      in_shardings=(replicated, replicated, split, split),
                      out_shardings=(replicated, replicated, replicated))

    data = numpy_batches(train_x, train_y, args.batch_size, args.seed)
    # What the partitioner wrote: the compiled step reduces the gradients across devices.
    images, labels = train_x[:args.batch_size], train_y[:args.batch_size]
    hlo = parallel.lower(params, opt_state, images, labels).compile().as_text()
    print(f"compiled step: all-reduce ops inserted by the partitioner: {hlo.count(' all-reduce(')}")
    check_steps = min(3, args.steps)
    p1, s1 = params, opt_state
    pn, sn = fa.device_put((params, opt_state), replicated)
    losses = []
    for step in range(1, args.steps + 1):
        images, labels = next(data)
        pn, sn, loss = parallel(pn, sn, images, labels)
        losses.append(float(loss))
        if step <= check_steps:
            p1, s1, loss1 = one_device(p1, s1, images, labels)
            print(f"step {step}: data-parallel loss {losses[-1]:.5f}, one device "
                  f"{float(loss1):.5f}")
        if step == check_steps:
            worst = max(float(np.max(np.abs(np.asarray(a) - np.asarray(b))))
                        for a, b in zip(fa.tree.leaves(pn), fa.tree.leaves(p1), strict=True))
            print(f"after step {step}: largest parameter difference from one device "
                  f"{worst:.2e}")
    w = pn["layers"][0]["w"]
    print(f"parameters: {w.sharding.spec} over {len(w.sharding.device_set)} devices; "
          f"a batch of {args.batch_size}: {args.batch_size // n} rows per device")
    test_accuracy = accuracy(pn, test_x, test_y)
    print(f"final loss {losses[-1]:.4f}; test accuracy {test_accuracy:.2%}")

    checkpoint = os.path.join(args.out, "data_parallel.safetensors")
    fio.save(checkpoint, pn)  # gathers each parameter from the devices
    restored = fio.load(checkpoint, like=params, sharding=replicated)
    same = all(np.array_equal(np.asarray(a), np.asarray(b)) and a.sharding == replicated
               for a, b in zip(fa.tree.leaves(restored), fa.tree.leaves(pn), strict=True))
    print(f"saved {checkpoint}; loaded back onto the mesh, identical: {same}")
    return {"params": pn, "test_accuracy": test_accuracy, "checkpoint": checkpoint}


if __name__ == "__main__":
    main()
