"""Sharded checkpoints (funcarray.io's save of arrays split over a mesh and load with
``sharding=``) on 8 CPU devices, in one subprocess (checks_checkpoints.py; see
multi_device.py)."""

from multi_device import check_tests

_NAMES = ["check_save_gathers_and_load_places_like_jax",
          "check_load_onto_another_mesh_and_prefix_shardings", "check_load_sharding_errors"]


results, test_every_check_ran, test_check = check_tests("checks_checkpoints.py", _NAMES)
