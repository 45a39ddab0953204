"""Test configuration: Hypothesis profiles sized for a 2-core CI machine."""

import os

from hypothesis import HealthCheck, settings

# "ci" (the default) is derandomized: the gate that decides whether a change lands must not
# fail on an example no earlier run drew. "thorough" explores new random examples every run:
# FUNCARRAY_HYPOTHESIS_PROFILE=thorough python -m pytest -n 2 tests   (use it to hunt bugs).
# (30 examples: the suite must stay under 15 minutes on 2 cores; most property tests compile
# jax's and funcarray's program per example.)
settings.register_profile(
    "ci", max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow],
    print_blob=True, derandomize=True, database=None)
settings.register_profile(
    "thorough", max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("FUNCARRAY_HYPOTHESIS_PROFILE", "ci"))

# jax is the test oracle. funcarray keeps 64-bit inputs 64-bit with no switch, so the oracle
# runs with x64 on for the whole session (set once here, so results never depend on which
# test module was imported first). Tests of jax's 32-bit defaults use
# `with jax.enable_x64(False):` locally.
import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)
