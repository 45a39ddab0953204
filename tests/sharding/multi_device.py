"""Running sharding checks on 8 simulated CPU devices, in a subprocess.

XLA's device count is fixed when jaxlib starts its CPU client, so checks that need several
devices run in a fresh interpreter with ``XLA_FLAGS=--xla_force_host_platform_device_count=8``
(the rest of the suite keeps one device). A check module defines ``check_*`` functions; the
subprocess runs them all (one interpreter start and one jax import for the module) and
reports each one's outcome, which the test module turns into one pytest test per check.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import traceback

DEVICES = 8
_MARK = "@@sharding-checks@@"


def run_checks(path: str, timeout: float = 300) -> dict:
    """``{check name: None (passed) or the failure's traceback}`` for the ``check_*``
    functions of the module at ``path``, run in a subprocess with 8 CPU devices."""
    env = dict(os.environ)
    env["XLA_FLAGS"] = (env.get("XLA_FLAGS", "") +
                        f" --xla_force_host_platform_device_count={DEVICES}").strip()
    env["JAX_PLATFORMS"] = "cpu"
    out = subprocess.run([sys.executable, __file__, path], env=env, capture_output=True,
                         text=True, timeout=timeout)
    for line in out.stdout.splitlines():
        if line.startswith(_MARK):
            return json.loads(line[len(_MARK):])
    raise AssertionError(f"the check subprocess failed (exit {out.returncode}):\n"
                         f"{out.stdout[-4000:]}\n{out.stderr[-4000:]}")


def check_tests(checks_file: str, names: list[str]) -> tuple:
    """The pytest pieces of a test module for the checks in ``checks_file`` (a file beside
    this one): a module-scoped ``results`` fixture that runs them once in the subprocess, a
    test that every named check ran, and one test per name. Assign them at module level:
    ``results, test_every_check_ran, test_check = check_tests("checks_x.py", NAMES)``."""
    import pytest

    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), checks_file)

    @pytest.fixture(scope="module")
    def results():
        return run_checks(path)

    def test_every_check_ran(results):
        assert sorted(results) == sorted(names)

    @pytest.mark.parametrize("name", names)
    def test_check(results, name):
        failure = results.get(name, "did not run")
        if failure is not None:
            pytest.fail(f"{name} failed in the {DEVICES}-device subprocess:\n{failure}",
                        pytrace=False)

    return results, test_every_check_ran, test_check


def _main(path: str) -> None:
    import jax

    jax.config.update("jax_enable_x64", True)  # (as the suite's conftest: jax is the oracle)
    spec = importlib.util.spec_from_file_location("sharding_checks", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    results = {}
    for name in sorted(n for n in dir(module) if n.startswith("check_")):
        try:
            getattr(module, name)()
            results[name] = None
        except BaseException:  # noqa: BLE001 (reported to the parent as the failure)
            results[name] = traceback.format_exc()
    print(_MARK + json.dumps(results), flush=True)


if __name__ == "__main__":
    _main(sys.argv[1])
