"""Serialized executables (the persistent compilation cache): bytes with a header naming
the jaxlib, platform and device kind they are valid for."""

from __future__ import annotations

import numpy as np

from funcarray.lowering.runtime.compiling import Executable, _make_executable
from funcarray.lowering.runtime.devices_and_processes import default_device
from funcarray.lowering.runtime.loading import _jax

_MAGIC = b"funcarray-exe\0"


def serialize(exe: Executable) -> bytes:
    """Bytes that ``deserialize`` turns back into ``exe`` (same jaxlib, platform and device
    kind only: CPU executables hold machine code)."""
    import json  # (here: most programs never serialize, and start-up is measured)

    jax, _ = _jax()
    import jaxlib

    client = exe.device.client
    header = {
        "jaxlib": jaxlib.__version__, "platform": exe.device.platform,
        "platform_version": client.platform_version, "device_kind": exe.device.device_kind,
        "in": [[list(s), d.name] for s, d in exe.in_avals],
        "out": [[list(s), d.name] for s, d in exe.out_avals],
    }
    blob = client.serialize_executable(exe.loaded)
    head = json.dumps(header).encode()
    return _MAGIC + len(head).to_bytes(8, "little") + head + bytes(blob)


def _dtype_from_name(name: str) -> np.dtype:
    import ml_dtypes

    return np.dtype(getattr(ml_dtypes, name)) if hasattr(ml_dtypes, name) else np.dtype(name)


def deserialize(data: bytes, device=None) -> Executable:
    """Load an executable written by ``serialize``.

    Raises ``ValueError`` when ``data`` was not written by ``serialize`` or was written by
    another jaxlib, platform or device kind (callers treat that as a cache miss).
    """
    import json

    jax, xc = _jax()
    import jaxlib

    device = default_device() if device is None else device
    if not data.startswith(_MAGIC):
        raise ValueError("deserialize: these bytes were not written by runtime.serialize")
    start = len(_MAGIC) + 8
    size = int.from_bytes(data[len(_MAGIC):start], "little")
    header = json.loads(data[start:start + size])
    here = {"jaxlib": jaxlib.__version__, "platform": device.platform,
            "platform_version": device.client.platform_version,
            "device_kind": device.device_kind}
    for key, value in here.items():
        if header.get(key) != value:
            raise ValueError(f"deserialize: the executable was compiled for {key} "
                             f"{header.get(key)!r}, this device has {value!r}")
    try:
        loaded = device.client.deserialize_executable(
            data[start + size:], xc.DeviceList((device,)), xc.CompileOptions())
    except jax.errors.JaxRuntimeError as exc:
        raise ValueError(f"deserialize: XLA could not load the executable: {exc}") from None
    in_avals = tuple((tuple(s), _dtype_from_name(d)) for s, d in header["in"])
    out_avals = tuple((tuple(s), _dtype_from_name(d)) for s, d in header["out"])
    return _make_executable(loaded, in_avals, out_avals, device)
