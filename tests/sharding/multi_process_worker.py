"""One process of the two-process job that test_multi_process.py starts on 127.0.0.1:
``python multi_process_worker.py PORT PROCESS_ID FOLDER`` (FOLDER: where the checkpoint
goes). Each process has 2 CPU devices; together
they form a 4-device mesh. The process prints one line of JSON with what it saw and
computed, which the test compares with NumPy."""

import json
import os
import sys

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"
os.environ["JAX_PLATFORMS"] = "cpu"

import numpy as np  # noqa: E402

import funcarray as fa  # noqa: E402
import funcarray.io as fio  # noqa: E402
import funcarray.numpy as fnp  # noqa: E402
from funcarray import lax  # noqa: E402
from funcarray.lowering import runtime  # noqa: E402
from funcarray.sharding import NamedSharding  # noqa: E402

P = fa.P
MARK = "@@multi-process@@"


def loss(w, x, y):
    return fnp.mean((fnp.tanh(x @ w) - y) ** 2)


def main(port: str, pid: int, folder: str) -> None:
    if "SLURM_PROCID" in os.environ:  # started as srun starts a task: nothing to pass
        fa.distributed.initialize(initialization_timeout=60)
    else:
        fa.distributed.initialize(f"127.0.0.1:{port}", num_processes=2, process_id=pid,
                                  initialization_timeout=60)
    out = {"process_index": fa.process_index(), "process_count": fa.process_count(),
           "devices": [d.id for d in fa.devices()],
           "local_devices": [d.id for d in fa.local_devices()],
           "initialized": fa.distributed.is_initialized()}
    runtime.key_value_set(f"hello/{pid}", f"from {pid}")
    out["peer_says"] = runtime.key_value_get(f"hello/{1 - pid}", 30_000)

    mesh = fa.make_mesh((4,), ("x",))
    rows = NamedSharding(mesh, P("x"))
    replicated = NamedSharding(mesh, P())
    # each process holds its 2 of the 4 rows: process p has rows [2p, 2p + 2)
    local = np.arange(2 * 3, dtype=np.float32).reshape(2, 3) + 100 * pid
    x = fa.make_array_from_process_local_data(rows, local)
    out["global_shape"] = list(x.shape)
    total = fa.jit(lambda v: v.sum(axis=0), out_shardings=replicated)(x)
    out["jit_sum"] = np.asarray(total).tolist()
    psum = fa.shard_map(lambda b: lax.psum(b.sum(axis=0, keepdims=True), "x"), mesh=mesh,
                        in_specs=P("x"), out_specs=P())
    out["psum"] = np.asarray(fa.jit(psum)(x)).tolist()

    # one data-parallel step: the same w everywhere, the batch split over the 4 devices
    rng = np.random.default_rng(0)
    w = rng.standard_normal((3, 2)).astype(np.float32)
    batch_x = rng.standard_normal((8, 3)).astype(np.float32)
    batch_y = rng.standard_normal((8, 2)).astype(np.float32)
    mine = slice(4 * pid, 4 * pid + 4)
    xs = fa.make_array_from_process_local_data(rows, batch_x[mine])
    ys = fa.make_array_from_process_local_data(rows, batch_y[mine])

    def step(w, x, y):
        value, g = fa.value_and_grad(loss)(w, x, y)
        return w - 0.5 * g, value

    new_w, value = fa.jit(step, in_shardings=(replicated, rows, rows),
                          out_shardings=(replicated, replicated))(w, xs, ys)
    out["step_loss"] = float(value)
    out["step_w"] = np.asarray(new_w).tolist()

    # a checkpoint of arrays split across the processes: one file per process and an index
    path = os.path.join(folder, "params.safetensors")
    fio.save(path, {"x": x, "w": new_w, "step": np.int32(2)})
    fio.save(path, {"x": x, "w": new_w, "step": np.int32(3)}, metadata={"step": "3"})
    out["files"] = sorted(os.listdir(folder))
    back = fio.load(path, sharding={"x": rows, "w": replicated, "step": None})
    out["loaded_sharding_ok"] = back["x"].sharding == rows and back["w"].sharding == replicated
    out["loaded_x_blocks"] = {str(s.device.id): np.asarray(s.data).tolist()
                              for s in back["x"].addressable_shards}
    out["loaded_w"] = np.asarray(back["w"]).tolist()
    out["loaded_step"] = int(back["step"])
    fa.distributed.shutdown()
    out["after_shutdown"] = [fa.distributed.is_initialized(), fa.process_index(),
                             fa.process_count()]
    print(MARK + json.dumps(out), flush=True)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3])
