"""Loading jax and jaxlib lazily, the version check, and the runtime's error classes.

jax is imported on the first call that needs it (``import funcarray`` must stay as cheap as
``import numpy``), and the jaxlib version is checked then: other versions fail fast with an
error naming the supported range, because the private entry points the runtime uses change
without notice.
"""

from __future__ import annotations

import threading

# The jaxlib releases whose private compile/execute API this module speaks: the range
# pyproject.toml declares. CI runs the suite on both ends (constraints/: 0.10.2 on Python 3.11,
# the newest 0.11 on Python 3.12); the calls that differ between them are marked "0.11".
SUPPORTED_JAXLIB_VERSION = "0.10.2"  # the oldest supported, what CI pins for Python 3.11
SUPPORTED_JAXLIB_RANGE = ">=0.10.2,<0.12"


def _is_supported_version(version: str) -> bool:
    parts = version.split(".")
    try:
        major, minor, patch = int(parts[0]), int(parts[1]), int(parts[2])
    except (IndexError, ValueError):
        return False
    return major == 0 and (minor == 11 or (minor == 10 and patch >= 2))


class RuntimeVersionError(ImportError):
    """The installed jax/jaxlib is missing or is not the version this runtime supports."""


class CompileError(RuntimeError):
    """XLA rejected a StableHLO module; the message quotes the offending lines."""


class ExecutionError(RuntimeError):
    """An executable was called with the wrong arguments, or XLA failed while running it."""


# --------------------------------------------------------------------------------------------
# Lazy import of jax, with the version check
# --------------------------------------------------------------------------------------------

_modules: dict = {}
# Held while jax is imported: threads making their first calls at once would otherwise each
# import it, and one can see the jax module before its submodules are set on it
# ("module 'jax' has no attribute 'extend'"). ``_modules`` is filled only once all is loaded.
_import_lock = threading.Lock()


def _jax():
    """(jax, xla_client), imported on first use after checking jaxlib's version."""
    if not _modules:
        with _import_lock:
            if not _modules:
                _import_jax()
    return _modules["jax"], _modules["xc"]


def _import_jax() -> None:
    try:
        import jaxlib
    except ImportError as exc:
        raise RuntimeVersionError(
            f"funcarray's compiled mode (jit, devices) needs jax and jaxlib "
            f"{SUPPORTED_JAXLIB_RANGE}: pip install 'jax{SUPPORTED_JAXLIB_RANGE}' "
            f"'jaxlib{SUPPORTED_JAXLIB_RANGE}'") from exc
    _check_version(jaxlib.__version__)
    import jax
    import jax.extend.backend
    from jax._src.lib import xla_client

    # jaxlib 0.10's result handlers need _skip_checks=True; 0.11 dropped the argument.
    _modules.update(jax=jax, xc=xla_client,
                    legacy_handlers=jaxlib.__version__.startswith("0.10."))


def jaxlib_version() -> str:
    """The version of the jaxlib in use (keys the persistent compilation cache)."""
    _jax()
    import jaxlib

    return jaxlib.__version__


def _check_version(version: str) -> None:
    if not _is_supported_version(version):
        raise RuntimeVersionError(
            f"funcarray's runtime supports jaxlib {SUPPORTED_JAXLIB_RANGE} only (it uses "
            f"jaxlib's private compile/execute API, which changes between releases), but "
            f"jaxlib {version} is installed. Install a supported version: pip install "
            f"'jax{SUPPORTED_JAXLIB_RANGE}' 'jaxlib{SUPPORTED_JAXLIB_RANGE}'")
