"""The ``device=`` argument of creation functions and ``Array.to_device``: an array placed on
the device asked for, without loading jaxlib when that device is the host CPU an eager array
already lives on.

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray.base.array import cpu_device
    >>> place("zeros", fnp.zeros(2), cpu_device()).device
    CpuDevice(id=0)
"""

from __future__ import annotations

from typing import Any

from funcarray.base.array import Array, Device, cpu_device
from funcarray.base.errors import op_type_error
from funcarray.base.sharding import SingleDeviceSharding
from funcarray.transforms.core import Tracer

__all__ = ["place", "check_device"]


def check_device(op: str, device: Any) -> Any:
    """``device`` as a ``Device`` or jaxlib device (a ``SingleDeviceSharding`` gives its
    device), or None; a clear TypeError for anything else."""
    if device is None or isinstance(device, Device) or hasattr(device, "client"):
        return device
    if isinstance(device, SingleDeviceSharding):
        return next(iter(device.device_set))
    raise op_type_error(op, f"device must be a funcarray Device (an array's .device, or one "
                            f"of funcarray.devices()), a SingleDeviceSharding or None; got "
                            f"{type(device).__name__} {device!r}")


def place(op: str, x: Array, device: Any) -> Array:
    """``x`` on ``device`` (None: where it is).

    A traced value is returned as it is: it has no placement until the transformed function
    returns, and jit places its outputs on the device it runs on. A host array asked for on
    the host CPU is returned as it is too, so eager code that passes ``device=x.device``
    never loads jaxlib.
    """
    if device is None:  # (the common call: no check, no cost)
        return x
    device = check_device(op, device)
    if isinstance(x, Tracer):
        return x
    if type(x) is Array and device == cpu_device():
        return x
    from funcarray.api.transfers import device_put
    return device_put(x, device)
