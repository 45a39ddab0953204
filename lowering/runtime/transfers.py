"""Host -> device and device -> host transfers of single-device values.

Transfers copy the host buffer during the call (``IMMUTABLE_ONLY_DURING_CALL``), never the
default zero-copy mode, which would alias NumPy memory the caller may reuse; and they pass
``enable_x64=True`` so 64-bit values stay 64-bit whatever jax's global flag says.
"""

from __future__ import annotations

import numpy as np

from funcarray.lowering.runtime.devices_and_processes import default_device
from funcarray.lowering.runtime.loading import _jax


def _as_aval(shape, dtype):
    jax, _ = _jax()
    return jax.core.ShapedArray(tuple(shape), np.dtype(dtype))


def device_put(value, device=None):
    """Copy a NumPy array (any funcarray dtype, 64-bit included) onto ``device``.

    The host buffer is copied during the call, so the caller may reuse ``value`` right after.
    """
    jax, xc = _jax()
    device = default_device() if device is None else device
    value = np.asarray(value)
    if not value.flags.c_contiguous:  # (np.ascontiguousarray would make a 0-d value 1-d)
        value = np.ascontiguousarray(value)
    sharding = jax.sharding.SingleDeviceSharding(device)
    try:
        return xc.batched_device_put(
            _as_aval(value.shape, value.dtype), sharding, [value], [device], committed=True,
            host_buffer_semantics=xc.HostBufferSemantics.IMMUTABLE_ONLY_DURING_CALL,
            enable_x64=True)
    except jax.errors.JaxRuntimeError as exc:
        raise TypeError(f"device_put: cannot copy a {value.dtype.name}{list(value.shape)} "
                        f"array to {device}: {exc}") from None


def to_numpy(device_array) -> np.ndarray:
    """The value of a device array as a (read-only) NumPy array."""
    return np.asarray(device_array)
