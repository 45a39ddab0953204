"""Mesh, PartitionSpec, NamedSharding and set_mesh on this process's one device, against
jax's (the 8-device checks are in tests/sharding/)."""

import threading

import jax
import numpy as np
import pytest
from jax.sharding import PartitionSpec as JP

import funcarray as fa
from funcarray.sharding import AxisType, Mesh, NamedSharding, PartitionSpec

P = fa.P
_SPECS = [(), (None,), ("x",), ("x", None), (None, "y"), (("x", "y"),), ("y", "x"),
          (None, ("y", "x"), None)]


@pytest.mark.parametrize("parts", _SPECS)
def test_partition_spec_matches_jax(parts):
    spec, jspec = P(*parts), JP(*parts)
    assert repr(spec) == repr(jspec) and len(spec) == len(jspec)
    assert list(spec) == list(jspec)
    assert spec == P(*parts) and hash(spec) == hash(P(*parts))
    assert PartitionSpec is P
    assert (spec == P(*parts, None)) == (jspec == JP(*parts, None))


def test_partition_spec_rejects_other_entries():
    with pytest.raises(TypeError, match="a mesh axis name, a tuple of them or P.UNCONSTRAINED"):
        P(1)
    with pytest.raises(TypeError, match="mesh axis names are strings"):
        P(("x", 2))


def _one_device_meshes():
    mesh = fa.make_mesh((1, 1), ("x", "y"))
    jmesh = jax.make_mesh((1, 1), ("x", "y"), devices=jax.devices("cpu")[:1])
    return mesh, jmesh


def test_mesh_matches_jax():
    mesh, jmesh = _one_device_meshes()
    assert repr(mesh) == repr(jmesh) and str(mesh) == str(jmesh)
    assert mesh.axis_types == (AxisType.Explicit,) * 2 == tuple(
        AxisType[t.name] for t in jmesh.axis_types)
    assert (mesh.axis_names, mesh.axis_sizes, mesh.size) == (
        jmesh.axis_names, jmesh.axis_sizes, jmesh.size)
    assert dict(mesh.shape) == dict(jmesh.shape) and mesh.shape_tuple == jmesh.shape_tuple
    np.testing.assert_array_equal(mesh.device_ids, jmesh.device_ids)
    auto = Mesh(np.array(fa.devices()[:1], dtype=object), ("d",))
    assert auto.axis_types == (AxisType.Auto,)
    assert auto == Mesh(fa.devices()[:1], "d") and hash(auto) == hash(Mesh(fa.devices()[:1], "d"))
    assert auto != Mesh(fa.devices()[:1], "d", AxisType.Explicit)


@pytest.mark.parametrize("parts", [p for p in _SPECS if len(p) <= 2])
def test_named_sharding_matches_jax(parts):
    mesh, jmesh = _one_device_meshes()
    s, js = NamedSharding(mesh, P(*parts)), jax.sharding.NamedSharding(jmesh, JP(*parts))
    assert repr(s) == repr(js)
    for shape in [(2, 4), (3, 5, 1)]:
        assert s.shard_shape(shape) == js.shard_shape(shape)
        assert ([(d.id, i) for d, i in s.devices_indices_map(shape).items()]
                == [(d.id, i) for d, i in js.devices_indices_map(shape).items()])
    assert s.is_fully_replicated == js.is_fully_replicated
    assert (s.num_devices, s.memory_kind) == (js.num_devices, js.memory_kind)


def test_one_device_placement_and_jit():
    mesh = fa.make_mesh((1,), ("x",), AxisType.Auto)
    s = NamedSharding(mesh, P("x"))
    x = fa.device_put(np.arange(4.0), s)
    assert x.sharding == s and x.device == fa.devices()[0] and x.is_fully_replicated
    assert [(sh.index, sh.replica_id) for sh in x.addressable_shards] == [((slice(None),), 0)]
    f = fa.jit(lambda v: fa.lax.with_sharding_constraint(v * 2, s), out_shardings=s)
    y = f(x)
    np.testing.assert_array_equal(np.asarray(y), 2 * np.arange(4.0))
    assert y.sharding == s and "sdy.sharding_constraint" in f.lower(x).as_text()


def test_set_mesh_is_per_thread_and_restores():
    mesh, _ = _one_device_meshes()
    seen = []
    with fa.set_mesh(mesh) as entered:
        assert entered is mesh and fa.sharding.get_mesh() is mesh
        worker = threading.Thread(target=lambda: seen.append(fa.sharding.get_mesh()))
        worker.start()
        worker.join()
    assert seen == [None] and fa.sharding.get_mesh() is None
    with pytest.raises(TypeError, match="expected a Mesh"):
        fa.set_mesh("mesh")
