"""shard_map and collectives over mesh axes on 8 CPU devices, checked against NumPy and
jax's same programs in one subprocess (checks_shard_map.py; see multi_device.py)."""

from multi_device import check_tests

_NAMES = ["check_psum_pmean_pmax_pmin_against_numpy",
          "check_all_gather_and_axis_index_against_numpy", "check_ppermute_against_numpy",
          "check_psum_scatter_and_all_to_all_against_numpy", "check_lowering_matches_jax",
          "check_grad_of_shard_map_matches_jax", "check_vmap_of_shard_map",
          "check_data_parallel_mlp_training_equals_single_device", "check_errors",
          "check_vmap_spmd_axis_name_splits_the_batch_like_jax",
          "check_body_closing_over_traced_values", "check_mesh_of_reordered_devices",
          "check_composed_collectives_match_jax",
          "check_value_and_grad_linearize_and_hessian_through_shard_map",
          "check_manual_over_some_axes_matches_jax", "check_in_specs_read_from_the_arguments"]


results, test_every_check_ran, test_check = check_tests("checks_shard_map.py", _NAMES)
