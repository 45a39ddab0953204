"""Meshes, NamedSharding and arrays split over 8 CPU devices, checked against jax in one
subprocess (checks_arrays.py; see multi_device.py)."""

from multi_device import check_tests

_NAMES = ["check_mesh_matches_jax", "check_mesh_errors",
          "check_named_sharding_layout_matches_jax", "check_named_sharding_errors_match_jax",
          "check_device_put_shards_and_gathers_like_jax", "check_scalars_and_pytrees",
          "check_resharding_keeps_values", "check_eager_ops_keep_shardings_like_jax",
          "check_make_array_from_callback_like_jax",
          "check_make_array_from_single_device_arrays",
          "check_resharding_moves_data_between_devices"]


results, test_every_check_ran, test_check = check_tests("checks_arrays.py", _NAMES)
