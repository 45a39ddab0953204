"""Checks of meshes, NamedSharding and sharded arrays on 8 CPU devices, against jax (run by
test_sharded_arrays.py in a subprocess: see multi_device.py)."""

import jax
import numpy as np
import pytest
from jax.sharding import NamedSharding as JNamedSharding
from jax.sharding import PartitionSpec as JP

import funcarray as fa
from funcarray.sharding import AxisType, Mesh, NamedSharding, SingleDeviceSharding

P = fa.P
AUTO = (AxisType.Auto, AxisType.Auto)


def _meshes():
    mesh = fa.make_mesh((2, 4), ("a", "b"), AUTO)
    jmesh = jax.make_mesh((2, 4), ("a", "b"), (jax.sharding.AxisType.Auto,) * 2)
    return mesh, jmesh


def _jspec(spec):
    return JP(*spec)


SPECS = [P(), P("a"), P("b"), P(None, "b"), P("a", "b"), P("b", "a"), P(("a", "b")),
         P(None, ("b", "a"))]


def check_mesh_matches_jax():
    mesh, jmesh = _meshes()
    assert fa.device_count() == 8
    assert mesh.axis_names == jmesh.axis_names and mesh.axis_sizes == jmesh.axis_sizes
    assert mesh.size == jmesh.size and dict(mesh.shape) == dict(jmesh.shape)
    np.testing.assert_array_equal(mesh.device_ids, jmesh.device_ids)
    assert repr(mesh) == repr(jmesh)
    assert repr(fa.make_mesh((8,), ("x",))) == repr(jax.make_mesh((8,), ("x",)))
    assert fa.make_mesh((2, 4), ("a", "b")).axis_types == (AxisType.Explicit,) * 2
    grid = np.array(fa.devices(), dtype=object).reshape(4, 2)
    assert repr(Mesh(grid, ("x", "y"))) == repr(
        jax.sharding.Mesh(np.array(jax.devices()).reshape(4, 2), ("x", "y")))
    assert fa.make_mesh((3, 2), ("a", "b")).size == 6  # the first devices, as jax


def check_mesh_errors():
    with pytest.raises(ValueError, match="devices.ndim == 1 and len.axis_names. == 2"):
        Mesh(fa.devices(), ("a", "b"))
    with pytest.raises(ValueError, match="needs 16 devices, but 8 are available"):
        fa.make_mesh((4, 4), ("a", "b"))
    with pytest.raises(ValueError, match="same length"):
        fa.make_mesh((2, 4), ("a",))
    with pytest.raises(ValueError, match="name one axis twice"):
        Mesh(np.array(fa.devices(), dtype=object).reshape(2, 4), ("a", "a"))
    with pytest.raises(ValueError, match="each device may appear once"):
        Mesh([fa.devices()[0], fa.devices()[0]], ("a",))
    with pytest.raises(TypeError, match="funcarray Devices"):
        Mesh(["cpu:0"], ("a",))


def check_named_sharding_layout_matches_jax():
    mesh, jmesh = _meshes()
    for spec in SPECS:
        for shape in [(8, 16), (16, 8, 3)]:
            s, js = NamedSharding(mesh, spec), JNamedSharding(jmesh, _jspec(spec))
            mine = {d.id: idx for d, idx in s.devices_indices_map(shape).items()}
            theirs = {d.id: idx for d, idx in js.devices_indices_map(shape).items()}
            assert mine == theirs, (spec, shape)
            assert s.shard_shape(shape) == js.shard_shape(shape)
            assert s.is_fully_replicated == js.is_fully_replicated
            assert repr(s) == repr(js).replace("Explicit", "Auto")
    assert NamedSharding(mesh, P("a", None)) == NamedSharding(mesh, P("a"))
    assert len({NamedSharding(mesh, P("a", None)), NamedSharding(mesh, P("a"))}) == 1


def check_named_sharding_errors_match_jax():
    mesh, _ = _meshes()
    with pytest.raises(ValueError, match=r"Resource axis: c of P\('c',\) is not found in mesh"):
        NamedSharding(mesh, P("c"))
    with pytest.raises(ValueError, match="duplicate entries for `a`"):
        NamedSharding(mesh, P("a", "a"))
    with pytest.raises(TypeError, match="must be a PartitionSpec"):
        NamedSharding(mesh, ("a",))
    with pytest.raises(ValueError, match="array axis 0 is partitioned 2 times, but the "
                                         "dimension size is 3"):
        fa.device_put(np.ones((3, 4)), NamedSharding(mesh, P("a", "b")))
    with pytest.raises(ValueError, match="only valid for values of rank at least 2"):
        fa.device_put(np.ones(8), NamedSharding(mesh, P("a", "b")))
    with pytest.raises(ValueError, match="needs a mesh"):
        fa.device_put(np.ones(8), P("a"))


def check_device_put_shards_and_gathers_like_jax():
    mesh, jmesh = _meshes()
    rng = np.random.default_rng(0)
    for dtype in [np.float32, np.float64, np.int64, np.complex128, fa.numpy.bfloat16, np.bool_]:
        x = (rng.standard_normal((8, 16)) * 4).astype(dtype)
        for spec in SPECS:
            y = fa.device_put(x, NamedSharding(mesh, spec))
            jy = jax.device_put(x, JNamedSharding(jmesh, _jspec(spec)))
            assert y.dtype == x.dtype and y.shape == x.shape
            np.testing.assert_array_equal(np.asarray(y), x)  # gathered
            assert y.sharding == NamedSharding(mesh, spec)
            assert y.is_fully_replicated == jy.is_fully_replicated
            assert y.devices() == set(fa.devices())
            mine = [(s.device.id, s.index, s.replica_id, np.asarray(s.data).tolist())
                    for s in y.addressable_shards]
            theirs = [(s.device.id, s.index, s.replica_id, np.asarray(s.data).tolist())
                      for s in jy.addressable_shards]
            assert sorted(mine) == sorted(theirs), spec
            assert all(s.data.sharding == SingleDeviceSharding(s.device)
                       for s in y.addressable_shards)


def check_scalars_and_pytrees():
    mesh, _ = _meshes()
    rep = NamedSharding(mesh, P())
    y = fa.device_put(np.float64(2.5), rep)
    assert y.shape == () and np.asarray(y).shape == () and float(y) == 2.5
    tree = fa.device_put({"w": np.ones((8, 4)), "b": np.zeros(4)},
                         {"w": NamedSharding(mesh, P("a")), "b": rep})
    assert tree["w"].sharding.spec == P("a") and tree["b"].sharding == rep
    with fa.set_mesh(mesh):
        assert fa.device_put(np.ones(8), P("b")).sharding == NamedSharding(mesh, P("b"))
        assert fa.sharding.get_mesh() is mesh
    assert fa.sharding.get_mesh() is None


def check_resharding_keeps_values():
    mesh, _ = _meshes()
    x = np.arange(128.0).reshape(8, 16)
    y = fa.device_put(x, NamedSharding(mesh, P("a", "b")))
    for spec in SPECS:
        z = fa.device_put(y, NamedSharding(mesh, spec))
        assert z.sharding.spec == spec
        np.testing.assert_array_equal(np.asarray(z), x)
    assert fa.device_put(y, NamedSharding(mesh, P("a", "b"))) is y  # already there
    one = fa.device_put(y, fa.devices()[3])
    assert one.sharding == SingleDeviceSharding(fa.devices()[3])
    np.testing.assert_array_equal(np.asarray(one), x)
    assert y.sharding.spec == P("a", "b")  # moving a copy never re-places the original


def _eager_programs(np_, lax_):
    """Eager ops on an (8, 4) array: each function of (x, w) gives one result."""
    return [
        lambda x, w: x * 2 + 1,
        lambda x, w: np_.sin(x) - x,
        lambda x, w: x.sum(axis=0),
        lambda x, w: x.sum(),
        lambda x, w: x @ w,
        lambda x, w: x[0],
        lambda x, w: x.T,
        lambda x, w: np_.concatenate([x, x]),
        lambda x, w: lax_.cumsum(x, axis=0),
        lambda x, w: x.reshape(4, 8),
    ]


def check_eager_ops_keep_shardings_like_jax():
    mesh, jmesh = _meshes()
    x = np.arange(32.0, dtype=np.float32).reshape(8, 4)
    w = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)
    for spec in [P("a", "b"), P("b"), P(None, "a"), P()]:
        y = fa.device_put(x, NamedSharding(mesh, spec))
        jy = jax.device_put(x, JNamedSharding(jmesh, _jspec(spec)))
        for f, jf in zip(_eager_programs(fa.numpy, fa.lax),
                         _eager_programs(jax.numpy, jax.lax)):
            out, jout = f(y, w), jf(jy, w)
            np.testing.assert_allclose(np.asarray(out), np.asarray(jout), rtol=1e-6)
            assert isinstance(out.sharding, NamedSharding), (spec, out.sharding)
            assert out.sharding.mesh == mesh
            jspec = tuple(jout.sharding.spec) + (None,) * (out.ndim - len(jout.sharding.spec))
            mine = tuple(out.sharding.spec) + (None,) * (out.ndim - len(out.sharding.spec))
            assert mine == jspec, (spec, out.sharding.spec, jout.sharding.spec)
    # a host array or a one-device array beside a split one is copied to every device
    y = fa.device_put(x, NamedSharding(mesh, P("a")))
    assert (y + fa.numpy.ones(4)).sharding.spec == P("a")
    assert (fa.device_put(x, fa.devices()[5]) * y).sharding.spec == P("a")
    # arrays on two meshes: a clear error
    other = fa.make_mesh((8,), ("c",), (AxisType.Auto,))
    z = fa.device_put(x, NamedSharding(other, P("c")))
    with pytest.raises(ValueError, match="lie on two meshes"):
        y + z
    # the NumPy engine chosen explicitly, and the XLA engine, still compute the same values
    for engine in ("numpy", "xla"):
        fa.config.update("eager_backend", engine)
        try:
            got = fa.numpy.sin(y) * y
            np.testing.assert_allclose(np.asarray(got), np.sin(x) * x, rtol=1e-6)
            assert (engine == "numpy") == (got.sharding.num_devices == 1)
            assert y.sharding.spec == P("a")  # the operand keeps its own buffer and sharding
        finally:
            fa.config.update("eager_backend", "auto")


def check_make_array_from_callback_like_jax():
    mesh, jmesh = _meshes()
    x = np.arange(128, dtype=np.int32).reshape(8, 16)
    for spec in SPECS:
        seen = []
        y = fa.make_array_from_callback(x.shape, NamedSharding(mesh, spec),
                                        lambda idx: seen.append(idx) or x[idx])
        jy = jax.make_array_from_callback(x.shape, JNamedSharding(jmesh, _jspec(spec)),
                                          lambda idx: x[idx])
        np.testing.assert_array_equal(np.asarray(y), x)
        assert y.sharding.spec == spec and y.dtype == jy.dtype
        assert len(seen) == 8
    with pytest.raises(ValueError, match=r"has shape \(8, 16\), but its block"):
        fa.make_array_from_callback(x.shape, NamedSharding(mesh, P("a")), lambda idx: x)


def check_make_array_from_single_device_arrays():
    mesh, _ = _meshes()
    x = np.arange(64.0).reshape(8, 8)
    s = NamedSharding(mesh, P("b"))
    layout = s.devices_indices_map(x.shape)
    pieces = [fa.device_put(x[idx], d) for d, idx in layout.items()]
    y = fa.make_array_from_single_device_arrays(x.shape, s, pieces[::-1])  # any order
    np.testing.assert_array_equal(np.asarray(y), x)
    assert y.sharding == s
    with pytest.raises(ValueError, match="8 devices of this process, but 7 arrays"):
        fa.make_array_from_single_device_arrays(x.shape, s, pieces[:7])
    with pytest.raises(ValueError, match="two arrays are on"):
        fa.make_array_from_single_device_arrays(x.shape, s, pieces[:7] + pieces[:1])
    bad = [fa.device_put(np.ones((3, 8)), d) for d in layout]
    with pytest.raises(ValueError, match=r"gives each device a block of shape \(2, 8\)"):
        fa.make_array_from_single_device_arrays(x.shape, s, bad)


def check_resharding_moves_data_between_devices():
    from funcarray.base.array import _VALUE_SLOT, DeviceArray
    from funcarray.lowering import cache

    mesh, jmesh = _meshes()
    x = np.arange(128.0).reshape(16, 8)  # (a type no other check reshards)
    y = fa.device_put(x, NamedSharding(mesh, P("a", "b")))
    before = cache.compile_count()
    z = fa.device_put(y, NamedSharding(mesh, P(None, ("b", "a"))))
    assert cache.compile_count() == before + 1  # an identity executable XLA partitions
    with pytest.raises(AttributeError):  # y was never fetched to the host
        _VALUE_SLOT.__get__(y, DeviceArray)
    jz = jax.device_put(jax.device_put(x, JNamedSharding(jmesh, JP("a", "b"))),
                        JNamedSharding(jmesh, JP(None, ("b", "a"))))
    mine = sorted((s.device.id, s.index, np.asarray(s.data).tolist())
                  for s in z.addressable_shards)
    theirs = sorted((s.device.id, s.index, np.asarray(s.data).tolist())
                    for s in jz.addressable_shards)
    assert mine == theirs
    fa.device_put(y, NamedSharding(mesh, P(None, ("b", "a"))))
    assert cache.compile_count() == before + 1  # compiled once per (type, shardings)
    # another mesh over other devices: through the host
    other = Mesh(np.array(fa.devices()[::-1], dtype=object), ("c",))
    w = fa.device_put(y, NamedSharding(other, P("c")))
    np.testing.assert_array_equal(np.asarray(w), x)
    assert [s.device.id for s in w.addressable_shards] == list(range(7, -1, -1))
