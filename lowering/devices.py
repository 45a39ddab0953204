"""The devices jit and eager XLA ops run on: the selected platform's devices as funcarray
``Device`` values, and the jaxlib device behind each.

The platform is jax's default (GPU when jax's CUDA plugin finds one) unless the ``platform``
setting or the ``FUNCARRAY_PLATFORM`` environment variable names another (``cpu``, ``cuda``,
``rocm``, ...).

Example:
    >>> import funcarray as fa
    >>> fa.default_backend()
    'cpu'
    >>> fa.devices()
    [CpuDevice(id=0)]
"""

from __future__ import annotations

from funcarray.base.array import Device
from funcarray.base.config import config
from funcarray.lowering import runtime

__all__ = ["devices", "device_count", "local_devices", "local_device_count", "process_index",
           "process_count", "default_backend", "runtime_device"]


def _platform():
    return config.platform or None


def devices(backend: str | None = None) -> list:
    """The devices of ``backend`` (default: the selected platform), as funcarray Devices.

    Example:
        >>> import funcarray as fa
        >>> fa.devices()
        [CpuDevice(id=0)]
    """
    return [Device(d.platform, d.id) for d in runtime.devices(backend or _platform())]


def device_count(backend: str | None = None) -> int:
    """How many devices ``backend`` (default: the selected platform) has.

    Example:
        >>> import funcarray as fa
        >>> fa.device_count() >= 1
        True
    """
    return len(devices(backend))


def local_devices(process_index: int | None = None, backend: str | None = None) -> list:
    """The devices attached to process ``process_index`` (default: this process); all of
    them in one process. In a job of several processes (``funcarray.distributed``)
    ``devices()`` lists every process's devices and this only the ones a process drives.

    Example:
        >>> import funcarray as fa
        >>> fa.local_devices() == fa.devices()
        True
    """
    platform = backend or _platform()
    if process_index is None or process_index == runtime.process_index(platform):
        found = runtime.local_devices(platform)
    else:
        found = [d for d in runtime.devices(platform) if d.process_index == process_index]
        if not found:
            raise ValueError(f"local_devices: no process has index {process_index} (the job "
                             f"has {process_count(backend)})")
    return [Device(d.platform, d.id) for d in found]


def local_device_count(backend: str | None = None) -> int:
    """How many devices this process has (``device_count`` in one process).

    Example:
        >>> import funcarray as fa
        >>> fa.local_device_count() == fa.device_count()
        True
    """
    return len(local_devices(backend=backend))


def process_index(backend: str | None = None) -> int:
    """This process's index among the processes of a job (0 in one process; see
    ``funcarray.distributed.initialize``).

    Example:
        >>> import funcarray as fa
        >>> fa.process_index(), fa.process_count()
        (0, 1)
    """
    return runtime.process_index(backend or _platform())


def process_count(backend: str | None = None) -> int:
    """How many processes the job has (1 without ``funcarray.distributed.initialize``).

    Example:
        >>> import funcarray as fa
        >>> fa.process_count()
        1
    """
    return runtime.process_count(backend or _platform())


def default_backend() -> str:
    """The platform jit compiles for: ``"cpu"``, ``"gpu"``, ``"tpu"``...

    Example:
        >>> import funcarray as fa
        >>> fa.default_backend() in ("cpu", "gpu", "tpu")
        True
    """
    return runtime.default_device_for(_platform()).platform


def runtime_device(device=None):
    """The jaxlib device for a funcarray Device (None: the selected platform's first)."""
    if device is None:
        return runtime.default_device_for(_platform())
    if isinstance(device, Device):
        for d in runtime.devices(_backend_name(device.platform)):
            if d.id == device.id:
                return d
        raise ValueError(f"device {device!r} does not exist; available: {devices()}")
    if hasattr(device, "client"):  # already a jaxlib device
        return device
    raise TypeError(f"expected a funcarray Device (from funcarray.devices()), got "
                    f"{type(device).__name__}")


def _backend_name(platform: str) -> str:
    return platform
