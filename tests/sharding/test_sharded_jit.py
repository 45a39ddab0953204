"""jit over 8 CPU devices through XLA's Shardy partitioner, checked against jax's same
programs in one subprocess (checks_jit.py; see multi_device.py)."""

from multi_device import check_tests

_NAMES = ["check_in_out_shardings_match_jax", "check_sharded_arguments_are_partitioned_that_way",
          "check_mixed_placements_and_single_device_results",
          "check_dispatch_cache_and_fast_path", "check_pytree_prefix_shardings",
          "check_with_sharding_constraint_matches_jax", "check_unconstrained_dims_match_jax",
          "check_data_parallel_mlp_equals_single_device",
          "check_tensor_parallel_mlp_equals_single_device",
          "check_errors_for_shardings_that_do_not_fit",
          "check_compiled_objects_validate_argument_shardings",
          "check_consts_static_arguments_and_donation",
          "check_threads_share_sharded_executables",
          "check_runtime_execute_refuses_other_splits",
          "check_device_put_under_jit_is_the_identity_like_jax",
          "check_mesh_in_another_device_order"]


results, test_every_check_ran, test_check = check_tests("checks_jit.py", _NAMES)
