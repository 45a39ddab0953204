"""Meshes, NamedSharding and arrays split over 8 CPU devices, checked against jax in one
subprocess (checks_arrays.py; see multi_device.py)."""

import os

import pytest
from multi_device import run_checks

_CHECKS = os.path.join(os.path.dirname(__file__), "checks_arrays.py")
_NAMES = ["check_mesh_matches_jax", "check_mesh_errors",
          "check_named_sharding_layout_matches_jax", "check_named_sharding_errors_match_jax",
          "check_device_put_shards_and_gathers_like_jax", "check_scalars_and_pytrees",
          "check_resharding_keeps_values", "check_eager_ops_on_sharded_arrays_gather",
          "check_make_array_from_callback_like_jax",
          "check_make_array_from_single_device_arrays",
          "check_resharding_moves_data_between_devices"]


@pytest.fixture(scope="module")
def results():
    return run_checks(_CHECKS)


def test_every_check_ran(results):
    assert sorted(results) == sorted(_NAMES)


@pytest.mark.parametrize("name", _NAMES)
def test_check(results, name):
    failure = results.get(name, "did not run")
    if failure is not None:
        pytest.fail(f"{name} failed in the 8-device subprocess:\n{failure}", pytrace=False)
