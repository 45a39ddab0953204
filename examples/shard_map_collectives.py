"""shard_map with XLA collectives on 8 simulated CPU devices.

``fa.shard_map`` runs a function once per device of a mesh on that device's block of each
argument; inside it ``lax.psum``, ``all_gather``, ``ppermute``, ``psum_scatter``,
``all_to_all`` and ``axis_index`` over the mesh axes become XLA collectives. The script
checks each collective against NumPy, then trains an MLP data-parallel (each device takes
an eighth of the batch, gradients averaged with ``pmean``) and checks every step against the
same training on one device.

Run: python examples/shard_map_collectives.py [--steps N] [--quick]
"""

import argparse
import os

# XLA fixes the number of CPU devices when it starts: ask for 8 before funcarray loads jaxlib.
os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "")
                           + " --xla_force_host_platform_device_count=8").strip()

import numpy as np  # noqa: E402

import funcarray as fa  # noqa: E402
import funcarray.numpy as fnp  # noqa: E402
from funcarray import lax  # noqa: E402

P = fa.P


def collectives(mesh):
    """Each collective over the 2x4 mesh ("rows", "cols") against NumPy."""
    x = np.arange(8 * 16, dtype=np.float32).reshape(8, 16)
    blocks = [np.split(r, 4, axis=1) for r in np.split(x, 2, axis=0)]  # blocks[i][j]

    def run(body, out_specs):
        return fa.shard_map(body, mesh=mesh, in_specs=P("rows", "cols"), out_specs=out_specs)(x)

    got = run(lambda b: lax.psum(b, "cols"), P("rows", None))
    print("psum over cols      ", np.allclose(got, np.concatenate([sum(r) for r in blocks])))
    got = run(lambda b: lax.all_gather(b, "rows", tiled=True), P(None, "cols"))
    print("all_gather over rows", np.allclose(got, x))
    shift = [(j, (j + 1) % 4) for j in range(4)]
    got = run(lambda b: lax.ppermute(b, "cols", shift), P("rows", "cols"))
    want = np.concatenate([np.concatenate([r[(j - 1) % 4] for j in range(4)], 1) for r in blocks])
    print("ppermute (ring)     ", np.allclose(got, want))
    got = run(lambda b: lax.psum_scatter(b, "cols", scatter_dimension=1, tiled=True),
              P("rows", "cols"))
    print("psum_scatter        ", np.allclose(got, np.concatenate([sum(r) for r in blocks])))
    got = run(lambda b: lax.all_to_all(b, "cols", 1, 0, tiled=True), P("rows", "cols"))
    print("all_to_all          ", got.shape == (32, 4))
    got = run(lambda b: (lax.axis_index("rows") * 4 + lax.axis_index("cols")).reshape(1, 1),
              P("rows", "cols"))
    print("axis_index          ", np.array_equal(got, np.arange(8).reshape(2, 4)))


def mlp(params, x):
    (w1, b1), (w2, b2) = params
    return fnp.tanh(x @ w1 + b1) @ w2 + b2


def loss(params, x, y):
    return fnp.mean((mlp(params, x) - y) ** 2)


def train(steps):
    mesh = fa.make_mesh((8,), ("data",))
    rng = np.random.default_rng(0)
    params = [(rng.normal(size=(4, 32)).astype(np.float32) * 0.3, np.zeros(32, np.float32)),
              (rng.normal(size=(32, 1)).astype(np.float32) * 0.3, np.zeros(1, np.float32))]
    x = rng.normal(size=(256, 4)).astype(np.float32)
    y = np.sin(x.sum(1, keepdims=True))

    def local_step(p, xb, yb):  # on each device: its eighth of the batch
        value, grads = fa.value_and_grad(loss)(p, xb, yb)
        return lax.pmean(value, "data"), lax.pmean(grads, "data")

    sharded = fa.jit(fa.shard_map(local_step, mesh=mesh, in_specs=(P(), P("data"), P("data")),
                                  out_specs=P()))
    single = fa.jit(fa.value_and_grad(loss))
    p_dp = p_one = params
    worst = 0.0
    for step in range(steps):
        value, grads = sharded(p_dp, x, y)
        value_one, grads_one = single(p_one, x, y)
        worst = max(worst, max(float(np.max(np.abs(np.asarray(a) - np.asarray(b))))
                               for a, b in zip(fa.tree.leaves(grads),
                                               fa.tree.leaves(grads_one))))
        p_dp = fa.tree.map(lambda p, g: p - 0.05 * g, p_dp, grads)
        p_one = fa.tree.map(lambda p, g: p - 0.05 * g, p_one, grads_one)
        print(f"step {step}: data-parallel loss {float(value):.5f}, one device "
              f"{float(value_one):.5f}")
    print(f"largest gradient difference from one device: {worst:.2e}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    quick = args.quick or os.environ.get("FUNCARRAY_EXAMPLES_QUICK") == "1"
    print("devices:", len(fa.devices()))
    collectives(fa.make_mesh((2, 4), ("rows", "cols")))
    train(3 if quick else args.steps)


if __name__ == "__main__":
    main()
