"""Test configuration: Hypothesis profiles sized for a 2-core CI machine, and the thorough run."""

import os
import secrets

import pytest
from hypothesis import HealthCheck, settings

# "ci" (the default) is derandomized: the gate that decides whether a change lands must not
# fail on an example no earlier run drew. (20 examples: the suite must stay under 15 minutes
# on 2 cores; most property tests compile jax's and funcarray's program per example, and a
# slower 2-core machine took 16.5 minutes with 30.)
#
# "thorough" hunts bugs (README, "Tests"):
#     FUNCARRAY_HYPOTHESIS_PROFILE=thorough python -m pytest -q -n 2 tests
# It draws random examples from a seed: FUNCARRAY_HYPOTHESIS_SEED or --hypothesis-seed, else a
# fresh one each run, printed at the end of the run so that a failure can be replayed with
# it. Every property test explores more: THOROUGH_EXAMPLES examples, and for the tests that
# pin a small max_examples in CI (their examples are costly; see
# pytest_collection_modifyitems) THOROUGH_PINNED_SCALE times theirs, at least
# THOROUGH_PINNED_MIN. About 30 minutes with -n 2 on 2 idle cores.
CI_EXAMPLES, THOROUGH_EXAMPLES = 20, 300
THOROUGH_PINNED_SCALE, THOROUGH_PINNED_MIN = 10, 200
SEED_VARIABLE = "FUNCARRAY_HYPOTHESIS_SEED"

settings.register_profile(
    "ci", max_examples=CI_EXAMPLES, deadline=None,
    suppress_health_check=[HealthCheck.too_slow], print_blob=True, derandomize=True,
    database=None)
# No example database: a run is replayed from its seed alone.
settings.register_profile(
    "thorough", max_examples=THOROUGH_EXAMPLES, deadline=None,
    suppress_health_check=[HealthCheck.too_slow], print_blob=True, database=None)
settings.load_profile(os.environ.get("FUNCARRAY_HYPOTHESIS_PROFILE", "ci"))

# jax is the test oracle. funcarray keeps 64-bit inputs 64-bit with no switch, so the oracle
# runs with x64 on for the whole session (set once here, so results never depend on which
# test module was imported first). Tests of jax's 32-bit defaults use
# `with jax.enable_x64(False):` locally.
import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)


def _thorough(config) -> bool:
    profile = config.getoption("hypothesis_profile", None)
    return (profile or os.environ.get("FUNCARRAY_HYPOTHESIS_PROFILE", "ci")) == "thorough"


@pytest.hookimpl(tryfirst=True)  # before Hypothesis's plugin reads --hypothesis-seed
def pytest_configure(config):
    if not _thorough(config):
        return
    seed = (config.getoption("hypothesis_seed", None) or os.environ.get(SEED_VARIABLE)
            or str(secrets.randbelow(2**32)))
    # The main process picks the seed before pytest-xdist starts its workers, which inherit
    # the environment: every worker draws from the same seed.
    os.environ[SEED_VARIABLE] = seed
    config.option.hypothesis_seed = seed


def pytest_report_header(config):
    if _thorough(config):
        return f"hypothesis: thorough profile, seed {os.environ[SEED_VARIABLE]}"


def pytest_terminal_summary(terminalreporter, config):
    if _thorough(config):
        seed = os.environ[SEED_VARIABLE]
        terminalreporter.write_line(
            f"Hypothesis thorough profile, seed {seed}: rerun these examples with "
            f"FUNCARRAY_HYPOTHESIS_PROFILE=thorough {SEED_VARIABLE}={seed}")


def pytest_collection_modifyitems(config, items):
    """Under the thorough profile, scale the examples of the property tests that pin
    ``max_examples`` (``@settings(max_examples=N)``, sized for CI):
    ``THOROUGH_PINNED_SCALE * N``, at least THOROUGH_PINNED_MIN. The scaled settings replace
    the test's own, as Hypothesis's pytest plugin does for parametrized tests."""
    if not _thorough(config):
        return
    default = settings.default.max_examples
    done = set()
    for item in items:
        test = getattr(getattr(item, "obj", None), "__func__", getattr(item, "obj", None))
        own = getattr(test, "_hypothesis_internal_use_settings", None)
        if own is None or id(test) in done or own.max_examples == default:
            continue
        done.add(id(test))
        scaled = max(own.max_examples * THOROUGH_PINNED_SCALE, THOROUGH_PINNED_MIN)
        test._hypothesis_internal_use_settings = settings(own, max_examples=scaled)
