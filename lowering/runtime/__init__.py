"""The runtime adapter: the ONLY package that touches jaxlib's private API.

Everything funcarray needs from XLA goes through the few functions here: the backend client and
its devices, host -> device transfers, compiling StableHLO text, running an executable, device
-> host transfers and (de)serializing executables. The calls are the ones verified in
``notes/jaxlib-runtime.md`` for jaxlib 0.10.2; anything that changes between jaxlib releases
changes here only.

jax is imported lazily, on the first call that needs it (``import funcarray`` must stay as
cheap as ``import numpy``), and the jaxlib version is checked then: other versions fail fast
with an error naming the supported one, because these private entry points change without
notice.

Two jaxlib behaviours shape this package:

* Transfers copy the host buffer during the call (``IMMUTABLE_ONLY_DURING_CALL``), never the
  default zero-copy mode, which would alias NumPy memory the caller may reuse; and they pass
  ``enable_x64=True`` so 64-bit values stay 64-bit whatever jax's global flag says.
* ``execute`` checks every argument's shape and dtype against what the executable was compiled
  for: jaxlib silently reinterprets the bits of a same-size wrong dtype (int32 for float32).

Its modules, imported by the rest of funcarray through this one: ``loading`` (the lazy
import of jax and the version check), ``devices_and_processes``, ``transfers``,
``compiling``, ``sharded`` (SPMD executables over a mesh), ``running``, ``native_kernels``
(LAPACK and solver custom calls) and ``serialization``.

Example:
    >>> import numpy as np
    >>> from funcarray.lowering import runtime
    >>> text = '''func.func public @main(%a: tensor<2xf32>) -> tensor<2xf32> {
    ...   %0 = "stablehlo.add"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    ...   "func.return"(%0) : (tensor<2xf32>) -> ()
    ... }'''
    >>> f32 = ((2,), np.dtype("float32"))
    >>> exe = runtime.compile(text, in_avals=[f32], out_avals=[f32])
    >>> [runtime.to_numpy(y) for y in runtime.execute(exe, [np.array([1.0, 2.5], np.float32)])]
    [array([2., 5.], dtype=float32)]
"""

from __future__ import annotations

from funcarray.lowering.runtime.compiling import (  # noqa: F401 (the runtime's API)
    Executable,
    check_compiler_options,
    compile,
)
from funcarray.lowering.runtime.devices_and_processes import (  # noqa: F401 (the runtime's API)
    backend,
    default_device,
    default_device_for,
    devices,
    distributed_initialize,
    distributed_shutdown,
    distributed_state,
    key_value_get,
    key_value_set,
    local_devices,
    process_count,
    process_index,
)
from funcarray.lowering.runtime.loading import (  # noqa: F401 (the runtime's API)
    SUPPORTED_JAXLIB_RANGE,
    SUPPORTED_JAXLIB_VERSION,
    CompileError,
    ExecutionError,
    RuntimeVersionError,
    _check_version,
    _jax,
    jaxlib_version,
)
from funcarray.lowering.runtime.native_kernels import (  # noqa: F401 (the runtime's API)
    NativeCall,
    native_layout,
    native_linalg,
)
from funcarray.lowering.runtime.running import (  # noqa: F401 (the runtime's API)
    HostCallbackFailed,
    _callback_errors,
    block_until_ready,
    buffer_executor,
    execute,
    execute_buffers,
    execute_steps,
    host_callback_target,
    raise_deferred_error,
    raise_execution_error,
    record_callback_error,
)
from funcarray.lowering.runtime.serialization import (  # noqa: F401 (the runtime's API)
    deserialize,
    serialize,
)
from funcarray.lowering.runtime.sharded import (  # noqa: F401 (the runtime's API)
    assemble_sharded,
    compile_spmd,
    device_put_sharded,
    single_device_pieces,
)
from funcarray.lowering.runtime.transfers import (  # noqa: F401 (the runtime's API)
    device_put,
    to_numpy,
)

__all__ = [
    "SUPPORTED_JAXLIB_VERSION", "SUPPORTED_JAXLIB_RANGE", "RuntimeVersionError",
    "CompileError", "ExecutionError", "Executable", "backend", "devices", "default_device",
    "default_device_for", "device_put", "compile", "execute", "execute_buffers",
    "buffer_executor", "execute_steps", "raise_execution_error", "to_numpy", "serialize",
    "deserialize", "jaxlib_version", "device_put_sharded", "assemble_sharded",
    "single_device_pieces", "compile_spmd", "distributed_initialize", "distributed_shutdown",
    "distributed_state", "local_devices", "process_index", "process_count", "key_value_set",
    "key_value_get", "NativeCall", "native_linalg", "native_layout", "host_callback_target",
    "record_callback_error", "check_compiler_options", "block_until_ready",
    "raise_deferred_error", "HostCallbackFailed",
]
