"""Sharded checkpoints (funcarray.io's save of arrays split over a mesh and load with
``sharding=``) on 8 CPU devices, in one subprocess (checks_checkpoints.py; see
multi_device.py)."""

import os

import pytest
from multi_device import run_checks

_CHECKS = os.path.join(os.path.dirname(__file__), "checks_checkpoints.py")
_NAMES = ["check_save_gathers_and_load_places_like_jax",
          "check_load_onto_another_mesh_and_prefix_shardings", "check_load_sharding_errors"]


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
