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
