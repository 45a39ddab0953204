"""Checks of sharded checkpoints on 8 CPU devices (run by test_sharded_checkpoints.py in a
subprocess: see multi_device.py): ``funcarray.io.save`` gathers arrays split over a mesh, and
``load(..., sharding=)`` places them back, the blocks checked against jax's layout."""

import os
import tempfile

import jax
import numpy as np
import pytest
from jax.sharding import NamedSharding as JNamedSharding
from jax.sharding import PartitionSpec as JP

import funcarray as fa
import funcarray.io as fio
from funcarray.sharding import AxisType, NamedSharding

P = fa.P
AUTO = (AxisType.Auto, AxisType.Auto)


def _params(mesh):
    rng = np.random.default_rng(0)
    host = {"dense": {"w": rng.standard_normal((8, 4)).astype(np.float32),
                      "b": rng.standard_normal(4).astype(np.float32)},
            "steps": np.array(7, np.int32)}
    shardings = {"dense": {"w": NamedSharding(mesh, P("a", "b")),
                           "b": NamedSharding(mesh, P("b"))},
                 "steps": NamedSharding(mesh, P())}
    return host, fa.device_put(host, shardings), shardings


def _assert_blocks_like_jax(x, host, spec):
    """x's shards hold jax's blocks of ``host`` for ``spec`` on the same 2x4 mesh."""
    jmesh = jax.make_mesh((2, 4), ("a", "b"), (jax.sharding.AxisType.Auto,) * 2)
    jx = jax.device_put(host, JNamedSharding(jmesh, JP(*spec)))
    ours = {s.device.id: (s.index, np.asarray(s.data)) for s in x.addressable_shards}
    assert len(ours) == len(jx.addressable_shards) == 8
    for js in jx.addressable_shards:
        index, data = ours[js.device.id]
        assert index == js.index
        np.testing.assert_array_equal(data, np.asarray(js.data))


def check_save_gathers_and_load_places_like_jax():
    mesh = fa.make_mesh((2, 4), ("a", "b"), AUTO)
    host, params, shardings = _params(mesh)
    for suffix in (".safetensors", ".npz"):
        path = os.path.join(tempfile.mkdtemp(), "params" + suffix)
        fio.save(path, params)
        plain = fio.load(path, like=host)  # gathered: the file holds whole arrays
        np.testing.assert_array_equal(np.asarray(plain["dense"]["w"]), host["dense"]["w"])
        loaded = fio.load(path, like=host, sharding=shardings)
        assert loaded["dense"]["w"].sharding == shardings["dense"]["w"]
        assert loaded["dense"]["b"].sharding == shardings["dense"]["b"]
        assert loaded["steps"].dtype == np.int32 and int(loaded["steps"]) == 7
        _assert_blocks_like_jax(loaded["dense"]["w"], host["dense"]["w"], ("a", "b"))
        _assert_blocks_like_jax(loaded["dense"]["b"], host["dense"]["b"], ("b",))


def check_load_onto_another_mesh_and_prefix_shardings():
    mesh = fa.make_mesh((2, 4), ("a", "b"), AUTO)
    host, params, _ = _params(mesh)
    path = os.path.join(tempfile.mkdtemp(), "params.safetensors")
    fio.save(path, params)
    # saved from a 2x4 mesh, loaded onto an 8-device 1-d mesh; one sharding for a subtree
    line = fa.make_mesh((8,), ("x",), (AxisType.Auto,))
    row = NamedSharding(line, P("x"))
    loaded = fio.load(path, sharding={"dense": {"w": row, "b": None},
                                      "steps": NamedSharding(line, P())})
    assert loaded["dense"]["w"].sharding == row
    assert {s.data.shape for s in loaded["dense"]["w"].addressable_shards} == {(1, 4)}
    assert len(loaded["dense"]["b"].sharding.device_set) == 1  # None: left on the host
    np.testing.assert_array_equal(np.asarray(loaded["dense"]["b"]), host["dense"]["b"])
    flat = fio.load(path, flat=True, sharding=NamedSharding(line, P()))
    assert sorted(flat) == ["dense.b", "dense.w", "steps"]
    assert all(x.sharding.is_fully_replicated and len(x.sharding.device_set) == 8
               for x in flat.values())
    np.testing.assert_array_equal(np.asarray(flat["dense.w"]), host["dense"]["w"])
    # a bare PartitionSpec under set_mesh, for every leaf of `like`
    with fa.set_mesh(line):
        replicated = fio.load(path, like=host, sharding=P())
    assert replicated["dense"]["w"].sharding == NamedSharding(line, P())


def check_load_sharding_errors():
    mesh = fa.make_mesh((2, 4), ("a", "b"), AUTO)
    host, params, _ = _params(mesh)
    path = os.path.join(tempfile.mkdtemp(), "params.safetensors")
    fio.save(path, params)
    with pytest.raises(ValueError, match="pytree prefix"):
        fio.load(path, like=host, sharding={"other": NamedSharding(mesh, P())})
    with pytest.raises(ValueError, match="divisible|divide"):
        # b has 4 elements, not divisible over the 8 devices of ("a", "b")
        fio.load(path, like=host, sharding=NamedSharding(mesh, P(("a", "b"))))
