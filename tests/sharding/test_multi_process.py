"""Two processes on loopback acting as one 4-device job (funcarray.distributed): the
coordination service's key-value store, a global array from each process's rows, a global
sum under jit, a shard_map psum across the processes, and one data-parallel training step,
checked against NumPy. Process 1 finds its place in the job from SLURM's environment
variables (distributed.initialize() without arguments). The test starts both processes
(multi_process_worker.py) on 127.0.0.1 with a free port and kills them if they are not done
within a bounded time."""

import json
import os
import socket
import subprocess
import sys
import time

import numpy as np
import pytest

_WORKER = os.path.join(os.path.dirname(__file__), "multi_process_worker.py")
_MARK = "@@multi-process@@"
_TIMEOUT_S = 120


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return str(tmp_path_factory.mktemp("checkpoint"))


@pytest.fixture(scope="module")
def outputs(folder):
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("XLA_FLAGS", "PYTHONPATH")}
    # Process 1 is told its place as SLURM's srun tells it (initialize() reads it: no
    # arguments), process 0 by arguments.
    slurm = {"SLURM_JOB_ID": "4242", "SLURM_STEP_NODELIST": "127.0.0.1", "SLURM_NTASKS": "2",
             "SLURM_PROCID": "1", "SLURM_LOCALID": "0", "JAX_COORDINATOR_PORT": str(port)}
    children = [subprocess.Popen([sys.executable, _WORKER, str(port), str(pid), folder],
                                 env=env if pid == 0 else {**env, **slurm},
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                for pid in (0, 1)]
    deadline = time.monotonic() + _TIMEOUT_S
    texts = []
    try:
        for child in children:
            out, err = child.communicate(timeout=max(1.0, deadline - time.monotonic()))
            texts.append((child.returncode, out, err))
    except subprocess.TimeoutExpired:
        pytest.fail(f"the two processes did not finish within {_TIMEOUT_S} s", pytrace=False)
    finally:
        for child in children:  # (a failed or hung child must not outlive the test)
            if child.poll() is None:
                child.kill()
                child.wait()
    results = []
    for pid, (code, out, err) in enumerate(texts):
        lines = [x for x in out.splitlines() if x.startswith(_MARK)]
        if code != 0 or not lines:
            pytest.fail(f"process {pid} failed (exit {code}):\n{out[-3000:]}\n{err[-3000:]}",
                        pytrace=False)
        results.append(json.loads(lines[0][len(_MARK):]))
    return results


def test_processes_see_one_job(outputs):
    for pid, out in enumerate(outputs):
        assert out["initialized"]
        assert (out["process_index"], out["process_count"]) == (pid, 2)
        assert len(out["devices"]) == 4 and out["devices"] == outputs[0]["devices"]
        assert len(out["local_devices"]) == 2
        assert set(out["local_devices"]) < set(out["devices"])
    assert not set(outputs[0]["local_devices"]) & set(outputs[1]["local_devices"])
    # after shutdown the client still spans both processes (as in jax)
    assert [out["after_shutdown"] for out in outputs] == [[False, 0, 2], [False, 1, 2]]


def test_key_value_store_is_shared(outputs):
    assert [out["peer_says"] for out in outputs] == ["from 1", "from 0"]


def test_global_array_sum_and_psum_across_processes(outputs):
    rows = np.concatenate([np.arange(6.0).reshape(2, 3) + 100 * p for p in (0, 1)])
    for out in outputs:
        assert out["global_shape"] == [4, 3]
        np.testing.assert_allclose(out["jit_sum"], rows.sum(axis=0))
        np.testing.assert_allclose(out["psum"], rows.sum(axis=0, keepdims=True))


def test_one_data_parallel_step_matches_numpy(outputs):
    rng = np.random.default_rng(0)
    w = rng.standard_normal((3, 2)).astype(np.float32)
    x = rng.standard_normal((8, 3)).astype(np.float32)
    y = rng.standard_normal((8, 2)).astype(np.float32)
    t = np.tanh(x.astype(np.float64) @ w)
    loss = np.mean((t - y) ** 2)
    grad = x.T @ (2 * (t - y) * (1 - t ** 2) / t.size)
    for out in outputs:
        np.testing.assert_allclose(out["step_loss"], loss, rtol=1e-5)
        np.testing.assert_allclose(out["step_w"], w - 0.5 * grad, rtol=1e-5, atol=1e-6)


def test_checkpoint_of_arrays_split_across_processes(outputs, folder):
    import funcarray.io as fio

    rows = np.concatenate([np.arange(6.0).reshape(2, 3) + 100 * p for p in (0, 1)])
    files = ["params.process0-of-2.safetensors", "params.process1-of-2.safetensors",
             "params.safetensors.index.json"]
    for out in outputs:
        assert out["files"] == files
        assert out["loaded_sharding_ok"] and out["loaded_step"] == 3
        np.testing.assert_array_equal(out["loaded_w"], outputs[0]["step_w"])
        blocks = out["loaded_x_blocks"]
        assert len(blocks) == 2  # this process's two devices, one row each
        for device_id, block in blocks.items():
            row = outputs[0]["devices"].index(int(device_id))
            np.testing.assert_array_equal(block, rows[row:row + 1])
    # one process alone (this one) reads the whole checkpoint back through the index
    loaded = fio.load(os.path.join(folder, "params.safetensors"))
    np.testing.assert_array_equal(np.asarray(loaded["x"]), rows.astype(np.float32))
    np.testing.assert_array_equal(np.asarray(loaded["w"]), outputs[0]["step_w"])
    assert int(loaded["step"]) == 3
    assert fio.load_metadata(os.path.join(folder, "params.safetensors")) == {"step": "3"}
    assert fio.load(os.path.join(folder, "params.process1-of-2.safetensors"), flat=True)


def test_initialize_after_the_first_computation_is_a_clear_error():
    import funcarray as fa

    fa.devices()  # the XLA client of this process now exists
    with pytest.raises(RuntimeError, match="before the first computation"):
        fa.distributed.initialize(f"127.0.0.1:{_free_port()}", num_processes=2, process_id=0)
    assert not fa.distributed.is_initialized()
    assert (fa.process_index(), fa.process_count()) == (0, 1)
    with pytest.raises(ValueError, match="process_id must be in"):
        fa.distributed.initialize("127.0.0.1:1", num_processes=2, process_id=2)
    with pytest.raises(ValueError, match="'host:port'"):
        fa.distributed.initialize("localhost", num_processes=1, process_id=0)
    with pytest.raises(RuntimeError, match="key-value store needs"):
        from funcarray.lowering import runtime

        runtime.key_value_get("k", 1)
