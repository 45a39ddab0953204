"""Array.sharding and funcarray.sharding.SingleDeviceSharding against jax's."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import funcarray as fa
import funcarray.numpy as fnp
from funcarray.sharding import Sharding, SingleDeviceSharding

_SHAPES = [(), (3,), (2, 3), (1, 0, 2)]


def _pair(memory_kind=None):
    return (SingleDeviceSharding(fa.devices()[0], memory_kind=memory_kind),
            jax.sharding.SingleDeviceSharding(jax.devices("cpu")[0], memory_kind=memory_kind))


@pytest.mark.parametrize("memory_kind", [None, "device", "pinned_host", "unpinned_host"])
def test_single_device_sharding_matches_jax(memory_kind):
    got, want = _pair(memory_kind)
    assert repr(got) == repr(want) and str(got) == str(want)
    assert got.memory_kind == want.memory_kind
    assert (got.num_devices, got.is_fully_replicated, got.is_fully_addressable,
            got.has_addressable_devices) == (want.num_devices, want.is_fully_replicated,
                                             want.is_fully_addressable,
                                             want.has_addressable_devices)
    assert repr(got.device_set) == repr(want.device_set)
    assert repr(got.addressable_devices) == repr(want.addressable_devices)
    for shape in _SHAPES:
        assert repr(got.devices_indices_map(shape)) == repr(want.devices_indices_map(shape))
        assert (repr(got.addressable_devices_indices_map(shape))
                == repr(want.addressable_devices_indices_map(shape)))
        assert got.shard_shape(shape) == want.shard_shape(shape)
    assert isinstance(got, Sharding)


def test_equality_hashing_and_memory_kinds():
    device = fa.devices()[0]
    a, b = SingleDeviceSharding(device), SingleDeviceSharding(device, memory_kind="device")
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    pinned = a.with_memory_kind("pinned_host")
    assert pinned != a and pinned.memory_kind == "pinned_host"
    assert a.is_equivalent_to(b, 2) and not a.is_equivalent_to(pinned, 2)
    assert a != 3 and (a == 3) == (_pair()[1] == 3)
    with pytest.raises(ValueError):
        jax.sharding.SingleDeviceSharding(jax.devices("cpu")[0], memory_kind="bogus")
    with pytest.raises(ValueError, match="memory kind 'bogus'"):
        SingleDeviceSharding(device, memory_kind="bogus")
    with pytest.raises(TypeError, match="expected a Device"):
        SingleDeviceSharding("cpu")


@pytest.mark.parametrize("shape", _SHAPES)
def test_array_placement_matches_jax(shape):
    value = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    want = jnp.asarray(value)
    for got in (fnp.asarray(value), fa.jit(lambda x: x + 0)(fnp.asarray(value))):
        assert repr(got.sharding) == repr(want.sharding)
        assert got.sharding == SingleDeviceSharding(got.device)
        assert repr(got.devices()) == repr(want.devices())
        assert got.is_fully_replicated == want.is_fully_replicated
        assert got.is_fully_addressable == want.is_fully_addressable
        (shard,), (want_shard,) = got.addressable_shards, want.addressable_shards
        assert repr(shard.device) == repr(want_shard.device)
        assert (shard.index, shard.replica_id) == (want_shard.index, want_shard.replica_id)
        np.testing.assert_array_equal(np.asarray(shard.data), np.asarray(want_shard.data))
        assert repr(shard) == repr(want_shard)


@pytest.mark.parametrize("transform", ["jit", "vmap", "grad"])
def test_tracers_have_no_sharding_as_in_jax(transform):
    def probe(x):
        with pytest.raises(AttributeError, match="'sharding' attribute is not available"):
            x.sharding
        return (x * x).sum()

    for lib, np_ in ((jax, jnp), (fa, fnp)):
        getattr(lib, transform)(probe)(np_.ones((2, 3)))
