"""The runtime adapter: the ONLY module that touches jaxlib's private API.

Everything funcarray needs from XLA goes through the few functions here: the backend client and
its devices, host -> device transfers, compiling StableHLO text, running an executable, device
-> host transfers and (de)serializing executables. The calls are the ones verified in
``notes/jaxlib-runtime.md`` for jaxlib 0.10.2; anything that changes between jaxlib releases
changes here only.

jax is imported lazily, on the first call that needs it (``import funcarray`` must stay as
cheap as ``import numpy``), and the jaxlib version is checked then: other versions fail fast
with an error naming the supported one, because these private entry points change without
notice.

Two jaxlib behaviours shape this module:

* Transfers copy the host buffer during the call (``IMMUTABLE_ONLY_DURING_CALL``), never the
  default zero-copy mode, which would alias NumPy memory the caller may reuse; and they pass
  ``enable_x64=True`` so 64-bit values stay 64-bit whatever jax's global flag says.
* ``execute`` checks every argument's shape and dtype against what the executable was compiled
  for: jaxlib silently reinterprets the bits of a same-size wrong dtype (int32 for float32).

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

import functools
import itertools
import json
import operator
import re
import threading
from dataclasses import dataclass, field

import numpy as np

from funcarray.base.lru_cache import LRUCache

__all__ = [
    "SUPPORTED_JAXLIB_VERSION", "SUPPORTED_JAXLIB_RANGE", "RuntimeVersionError", "CompileError",
    "ExecutionError",
    "Executable", "backend", "devices", "default_device", "default_device_for", "device_put",
    "compile", "execute", "execute_buffers", "buffer_executor", "execute_steps",
    "raise_execution_error",
    "to_numpy", "serialize", "deserialize", "jaxlib_version", "device_put_sharded",
    "assemble_sharded", "single_device_pieces", "compile_spmd", "distributed_initialize",
    "distributed_shutdown", "distributed_state", "local_devices", "process_index",
    "process_count",
    "key_value_set", "key_value_get",
]

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


# --------------------------------------------------------------------------------------------
# Backend and devices
# --------------------------------------------------------------------------------------------


def backend(platform: str | None = None):
    """The XLA client for ``platform`` ("cpu", "gpu", "cuda"...; None: jax's default)."""
    jax, _ = _jax()
    return jax.extend.backend.get_backend(platform)


def devices(platform: str | None = None) -> list:
    """The devices of ``platform``'s client (None: the default backend)."""
    return list(backend(platform).devices())


def default_device():
    """The first device of the default backend that this process drives (``devices()[0]``
    in one process; in a multi-process job the global list starts with process 0's)."""
    return backend().local_devices()[0]


def local_devices(platform: str | None = None) -> list:
    """The devices of ``platform``'s client that this process drives."""
    return list(backend(platform).local_devices())


def process_index(platform: str | None = None) -> int:
    """This process's index in a multi-process job (0 without ``distributed_initialize``,
    answered without loading jaxlib)."""
    if not _job_started:
        return 0
    return backend(platform).process_index()


def process_count(platform: str | None = None) -> int:
    """How many processes the job's client spans (1 without ``distributed_initialize``;
    still the job's count after ``distributed_shutdown``, since the client stays)."""
    if not _job_started:
        return 1
    return len({d.process_index for d in backend(platform).devices()})


# --------------------------------------------------------------------------------------------
# Several processes as one job
# --------------------------------------------------------------------------------------------

# The job's settings once distributed_initialize has run (empty before and after shutdown).
_distributed: dict = {}
_distributed_lock = threading.Lock()
# Whether this process joined a job (set for good: its XLA client spans the job's processes).
_job_started = False


def distributed_initialize(coordinator_address: str, num_processes: int, process_id: int,
                           initialization_timeout: int = 300) -> None:
    """Join this process to a job of ``num_processes`` through jaxlib's distributed runtime:
    process 0 starts the coordination service (with its key-value store) at
    ``coordinator_address``, every process connects a client to it, and the CPU client made
    afterwards spans every process's devices, its collectives going through gloo over TCP.

    This is jax's own sequence (``jax._src.distributed.State.initialize``:
    ``get_distributed_runtime_service``, ``get_distributed_runtime_client(...).connect()``;
    then ``xla_bridge.make_cpu_client`` passes ``distributed_client``, ``node_id``,
    ``num_nodes`` and ``make_gloo_tcp_collectives(distributed_client)`` to
    ``xla_client.make_cpu_client``). It is run through ``jax.distributed.initialize``, because
    the client funcarray uses is the one jax's backend factory makes, and that factory reads
    the distributed client from jax's state: setting up the service here and a client jax
    does not know would give a single-process CPU client. The backend must not exist yet.
    """
    global _job_started
    with _distributed_lock:
        if _distributed:
            raise RuntimeError("funcarray.distributed.initialize: already initialized (call "
                               "funcarray.distributed.shutdown() first)")
        jax, _ = _jax()
        from jax._src import xla_bridge

        if xla_bridge.backends_are_initialized():
            raise RuntimeError(
                "funcarray.distributed.initialize must be called before the first computation "
                "that uses jaxlib (a jit call, an array on a device, funcarray.devices()...): "
                "the XLA client of this process already exists and cannot join a job. Call it "
                "at the start of the program.")
        # gloo is jax 0.10's default on CPU; said explicitly so the client gets
        # cross-process collectives whatever the jax setting's default becomes.
        jax.config.update("jax_cpu_collectives_implementation", "gloo")
        jax.distributed.initialize(coordinator_address=coordinator_address,
                                   num_processes=num_processes, process_id=process_id,
                                   initialization_timeout=initialization_timeout)
        _distributed.update(coordinator_address=coordinator_address,
                            num_processes=num_processes, process_id=process_id)
        _job_started = True


def distributed_shutdown() -> None:
    """Disconnect from the job (process 0 also stops the service); a no-op when not
    initialized. The CPU client made for the job stays as it is."""
    with _distributed_lock:
        if not _distributed:
            return
        jax, _ = _jax()
        jax.distributed.shutdown()
        _distributed.clear()


def distributed_state() -> dict:
    """``{"coordinator_address", "num_processes", "process_id"}`` of the job, or {}."""
    return dict(_distributed)


def _kv_client():
    if not _distributed:
        raise RuntimeError("the key-value store needs funcarray.distributed.initialize first")
    from jax._src import distributed

    return distributed.global_state.client


def key_value_set(key: str, value: str) -> None:
    """Store ``value`` under ``key`` in the coordination service's key-value store (every
    process of the job sees it; setting a key twice is an error there)."""
    _kv_client().key_value_set(key, value)


def key_value_get(key: str, timeout_ms: int) -> str:
    """The value of ``key`` in the key-value store, waiting up to ``timeout_ms`` for another
    process to set it."""
    return _kv_client().blocking_key_value_get(key, timeout_ms)


_default_devices: dict = {}


def default_device_for(platform: str | None):
    """The first device of ``platform`` (None: jax's default backend), memoised."""
    dev = _default_devices.get(platform)
    if dev is None:
        try:
            dev = _default_devices[platform] = local_devices(platform)[0]
        except RuntimeError as exc:
            raise RuntimeError(f"funcarray: the platform {platform!r} is not available "
                               f"({exc}). Choose another with funcarray.config.update("
                               f"'platform', ...) or FUNCARRAY_PLATFORM.") from None
    return dev


# --------------------------------------------------------------------------------------------
# Transfers
# --------------------------------------------------------------------------------------------


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


# --------------------------------------------------------------------------------------------
# Compiling
# --------------------------------------------------------------------------------------------


def _normalize_avals(avals) -> tuple:
    """((shape, dtype), ...) from ShapedArrays or (shape, dtype) pairs."""
    out = []
    for a in avals:
        shape, dtype = (a.shape, a.dtype) if hasattr(a, "shape") else a
        out.append((tuple(int(d) for d in shape), np.dtype(dtype)))
    return tuple(out)


def _aval_str(aval) -> str:
    shape, dtype = aval
    return f"{dtype.name}[{','.join(map(str, shape))}]"


@dataclass(frozen=True, eq=False)
class Executable:
    """A compiled, loaded XLA executable with the signature it was compiled for.

    ``in_avals``/``out_avals`` are ``((shape, dtype), ...)``; ``text`` is the StableHLO it was
    compiled from (empty when deserialized).
    """

    loaded: object
    in_avals: tuple
    out_avals: tuple
    device: object
    text: str = ""
    _handlers: list = field(default_factory=list, repr=False)
    # An SPMD executable (``compile_spmd``): where each parameter must be and where each
    # result is, as funcarray NamedShardings read back from the compiled executable; empty
    # for a single-device executable (everything on ``device``).
    in_placements: tuple = ()
    out_placements: tuple = ()

    def __repr__(self):
        ins = ", ".join(map(_aval_str, self.in_avals))
        outs = ", ".join(map(_aval_str, self.out_avals))
        where = (f"{self.in_placements[0].num_devices} devices" if self.in_placements
                 else self.device)
        return f"Executable(({ins}) -> ({outs}) on {where})"


def _make_executable(loaded, in_avals, out_avals, device, text="") -> Executable:
    jax, xc = _jax()
    sharding = jax.sharding.SingleDeviceSharding(device)
    if _modules["legacy_handlers"]:
        # _skip_checks=True is required there, or jaxlib reports "Wrong number of shards: 0".
        handlers = [xc.array_result_handler(_as_aval(*a), sharding, True, _skip_checks=True)
                    for a in out_avals]
    else:  # 0.11 dropped the argument
        handlers = [xc.array_result_handler(_as_aval(*a), sharding, True) for a in out_avals]
    return Executable(loaded, in_avals, out_avals, device, text, handlers)


def compile(text: str, in_avals, out_avals, device=None,  # noqa: A001
            host_callbacks=(), compiler_options=()) -> Executable:
    """Compile StableHLO ``text`` (entry function ``@main``) for one device.

    ``in_avals``/``out_avals`` (ShapedArrays or ``(shape, dtype)`` pairs) are the signature of
    ``@main``; ``execute`` checks arguments against them. XLA's errors are raised as
    ``CompileError`` quoting the offending lines of ``text``. ``host_callbacks`` are the
    Python functions the module's host-callback custom calls index (``host_callback_target``):
    jaxlib 0.10 accepts them only with a parsed ``ir.Module``, so such text is parsed first.
    Each must return a tuple matching its custom call's results exactly (jaxlib reads a wrong
    dtype as zeros and crashes on a wrong count): funcarray's wrappers check before returning.
    ``compiler_options`` are ``(name, value)`` pairs of XLA options (``jit``'s
    ``compiler_options``, checked by ``check_compiler_options``).
    """
    jax, xc = _jax()
    device = default_device() if device is None else device
    client = device.client
    options = _compile_options(xc, compiler_options)
    try:
        if host_callbacks:
            from jax._src.interpreters import mlir
            from jax._src.lib.mlir import ir

            with mlir.make_ir_context():
                module = ir.Module.parse(text)
                loaded = client.compile_and_load(module, xc.DeviceList((device,)), options,
                                                 host_callbacks=list(host_callbacks))
        else:
            loaded = client.compile_and_load(text, xc.DeviceList((device,)), options)
    except jax.errors.JaxRuntimeError as exc:
        if compiler_options and "option" in str(exc).lower():
            raise CompileError(
                f"XLA rejected the compiler options {dict(compiler_options)}: {exc}. Check "
                f"the option names and value types (XLA's debug options, e.g. "
                f"'xla_backend_optimization_level': 1).") from None
        raise CompileError(_with_text_context(str(exc), text)) from None
    return _make_executable(loaded, _normalize_avals(in_avals), _normalize_avals(out_avals),
                            device, text)


# Options XLA reads from ExecutableBuildOptions itself, not from the debug-option overrides
# (JAX passes these the same way).
_BUILD_OPTIONS = ("exec_time_optimization_effort", "memory_fitting_effort",
                  "optimization_level", "memory_fitting_level")


def check_compiler_options(options, where: str = "jit") -> tuple:
    """``options`` (a dict of XLA option names to values, or None) as sorted ``(name, value)``
    pairs, a hashable cache-key part; a clear TypeError for a value XLA cannot take."""
    if not options:
        return ()
    if not isinstance(options, dict):
        raise TypeError(f"{where}: compiler_options must be a dict of XLA option names to "
                        f"values, got {type(options).__name__}")
    pairs = []
    for name, value in options.items():
        if not isinstance(name, str):
            raise TypeError(f"{where}: compiler_options keys are XLA option names (str), got "
                            f"{name!r}")
        if not isinstance(value, (str, bool, int, float)):
            raise TypeError(f"{where}: compiler option {name!r} has a value of type "
                            f"{type(value).__name__}; XLA options take str, bool, int or "
                            f"float values")
        pairs.append((name, value))
    return tuple(sorted(pairs))


def _compile_options(xc, compiler_options):
    options = xc.CompileOptions()
    overrides = []
    for name, value in compiler_options:
        if name in _BUILD_OPTIONS:
            setattr(options.executable_build_options, name, value)
        else:
            overrides.append((name, value))
    if overrides:
        options.env_option_overrides = overrides
    return options


_LOCATION = re.compile(r"(?:^|\s)-?:(\d+):(\d+):")


def _with_text_context(message: str, text: str) -> str:
    """XLA's message plus the StableHLO lines it points at (``-:LINE:COL:``).

    The nearest ``//`` comment above the line is shown too: the lowering writes the funcarray
    equation each block of ops comes from as such a comment.
    """
    lines = text.splitlines()
    quoted = []
    for match in _LOCATION.finditer(message):
        lineno, col = int(match.group(1)), int(match.group(2))
        if not 1 <= lineno <= len(lines) or lineno in (q[0] for q in quoted):
            continue
        origin = next((lines[k].strip() for k in range(lineno - 1, -1, -1)
                       if lines[k].lstrip().startswith("//")), None)
        quoted.append((lineno, col, lines[lineno - 1], origin))
    context = []
    for lineno, col, line, origin in quoted[:3]:
        if origin:
            context.append(f"  from funcarray equation: {origin.lstrip('/ ')}")
        context.append(f"  line {lineno}: {line.strip()}")
    head = "XLA could not compile the StableHLO module:\n" + message.strip()
    return head + ("\nAt:\n" + "\n".join(context) if context else "")


# --------------------------------------------------------------------------------------------
# Sharded arrays and SPMD executables (docs/decisions.md, "Sharding")
# --------------------------------------------------------------------------------------------

# funcarray NamedSharding -> jax NamedSharding over the runtime's devices (bounded).
_jax_shardings = LRUCache(1024)


def _runtime_devices_of(mesh) -> list:
    """The runtime devices of a funcarray ``mesh``, in row-major mesh order."""
    by_id = {d.id: d for d in devices(mesh.flat_devices[0].platform)}
    try:
        return [by_id[d.id] for d in mesh.flat_devices]
    except KeyError:
        raise ValueError(f"the mesh {mesh} names devices this process does not have: "
                         f"{[d for d in mesh.flat_devices if d.id not in by_id]}; available: "
                         f"{sorted(by_id)}") from None


def _jax_sharding(sharding):
    """The jax ``NamedSharding`` with ``sharding``'s layout: jaxlib's transfers and result
    handlers take jax's sharding objects. Every axis is ``Auto`` there: the layout is all
    jaxlib needs (funcarray reads axis types itself)."""
    found = _jax_shardings.get(sharding)
    if found is None:
        jax, _ = _jax()
        mesh = sharding.mesh
        grid = np.empty(mesh.size, dtype=object)
        grid[:] = _runtime_devices_of(mesh)
        jmesh = jax.sharding.Mesh(grid.reshape(mesh.axis_sizes), mesh.axis_names,
                                  axis_types=(jax.sharding.AxisType.Auto,) * len(
                                      mesh.axis_names))
        spec = jax.sharding.PartitionSpec(*(
            None if not axes else axes[0] if len(axes) == 1 else axes
            for axes in sharding.spec.normalized()))
        found = jax.sharding.NamedSharding(jmesh, spec, memory_kind=sharding.memory_kind)
        _jax_shardings.put(sharding, found)
    return found


def device_put_sharded(value, sharding):
    """Copy NumPy ``value`` onto the devices of funcarray NamedSharding ``sharding``, each
    device getting its block (one multi-device array; jaxlib's ``batched_device_put`` with a
    shard per device, as ``jax.device_put`` does). The shape must fit the sharding (the
    caller checked it: ``NamedSharding.check_shape``)."""
    jax, xc = _jax()
    value = np.asarray(value)
    layout = sharding.shard_layout(value.shape)
    by_id = {d.id: d for d in _runtime_devices_of(sharding.mesh)}
    # Each shard is a copy of its own. jaxlib 0.10.2 (verified): with a copying
    # host_buffer_semantics, shards that are views of one host array raise "RuntimeError:
    # bad_function_call" for a partly replicated sharding (P("b") on a 2x4 mesh), though
    # not for a fully replicated or fully split one; distinct copies always work. A 0-d
    # value stays 0-d (np.ascontiguousarray would make it 1-d, which jaxlib accepts for a
    # 0-d array and then hands back as a 1-d value).
    # In a multi-process job each process puts the blocks of the devices it drives (every
    # process holds the whole value, as jax.device_put assumes there).
    here = process_index(sharding.mesh.flat_devices[0].platform)
    layout = [entry for entry in layout if by_id[entry[0].id].process_index == here]
    shards = [np.array(value[index] if index else value, order="C", copy=True)
              for _, index, _ in layout]
    try:
        return xc.batched_device_put(
            _as_aval(value.shape, value.dtype), _jax_sharding(sharding), shards,
            [by_id[d.id] for d, _, _ in layout], committed=True,
            host_buffer_semantics=xc.HostBufferSemantics.IMMUTABLE_ONLY_DURING_CALL,
            enable_x64=True)
    except jax.errors.JaxRuntimeError as exc:
        raise TypeError(f"device_put: cannot copy a {value.dtype.name}{list(value.shape)} "
                        f"array to {sharding}: {exc}") from None


def assemble_sharded(shape, dtype, sharding, pieces):
    """One multi-device array of ``shape`` and ``dtype`` laid out as funcarray
    NamedSharding ``sharding`` from ``pieces``, single-device arrays in the sharding's mesh
    order (each the block its device holds; the caller checked shapes, dtypes and devices:
    jaxlib's own checks abort on some mismatches)."""
    jax, _ = _jax()
    from jax._src.array import ArrayImpl

    # (ArrayImpl, not jax.make_array_from_single_device_arrays: that one canonicalises the
    # dtype through jax's x64 flag; funcarray keeps 64-bit types without it)
    return ArrayImpl(_as_aval(shape, dtype), _jax_sharding(sharding), list(pieces),
                     committed=True)


def single_device_pieces(buffer) -> dict:
    """``{device id: single-device array}`` of a multi-device array's pieces."""
    return {s.device.id: s.data for s in buffer.addressable_shards}


def compile_spmd(text: str, in_avals, out_avals, mesh, host_callbacks=(),
                 compiler_options=(), shardings=None) -> Executable:
    """Compile StableHLO ``text`` that carries Shardy annotations (``sdy.mesh @mesh`` and
    ``sdy.sharding`` on ``@main``'s parameters and results) for the devices of funcarray
    ``mesh``, partitioned by XLA's SPMD partitioner (Shardy): one partition per device, in
    row-major mesh order. The executable's parameter and result shardings (those the text
    gave, and those the partitioner chose for the others) are read back as funcarray
    NamedShardings over ``mesh``: ``in_placements``/``out_placements``. ``shardings`` (the
    ``(in, out)`` the text was annotated with, NamedSharding or None each) stand for what
    a one-device executable does not report."""
    jax, xc = _jax()
    from jax._src import sharding_impls

    from funcarray.base.mesh import PartitionSpec
    from funcarray.base.sharding import NamedSharding, canonical_sharding

    devs = _runtime_devices_of(mesh)
    options = _compile_options(xc, compiler_options)
    options.num_replicas = 1
    options.num_partitions = len(devs)
    options.executable_build_options.use_spmd_partitioning = True
    options.executable_build_options.use_shardy_partitioner = True
    # Partition k runs on the k-th device of the mesh (row-major). Verified on jaxlib 0.10.2:
    # the DeviceList given to compile_and_load does not set this, the default assignment is
    # the devices in id order, and a mesh of other order then gets buffers on devices its
    # partitions do not run on: an E0102 log line, then a segmentation fault at execution.
    options.executable_build_options.device_assignment = xc.DeviceAssignment.create(
        np.array([[d.id for d in devs]], dtype=np.int64))
    try:
        if host_callbacks:
            from jax._src.interpreters import mlir
            from jax._src.lib.mlir import ir

            with mlir.make_ir_context():
                module = ir.Module.parse(text)
                loaded = devs[0].client.compile_and_load(
                    module, xc.DeviceList(tuple(devs)), options,
                    host_callbacks=list(host_callbacks))
        else:
            loaded = devs[0].client.compile_and_load(text, xc.DeviceList(tuple(devs)), options)
    except jax.errors.JaxRuntimeError as exc:
        raise CompileError(_with_text_context(str(exc), text)) from None
    jmesh = _jax_sharding(NamedSharding(mesh, PartitionSpec())).mesh

    def placements(op_shardings, given):
        # jaxlib 0.10.2 (verified): an executable of one partition (a 1-device mesh) reports
        # None here instead of a list; everything is on that one device, so the annotated
        # shardings (or replicated ones) describe it.
        if op_shardings is None:
            return tuple(canonical_sharding(s if s is not None else
                                            NamedSharding(mesh, PartitionSpec()))
                         for s in given)
        out = []
        for op in op_shardings:
            spec = sharding_impls.parse_flatten_op_sharding(op, jmesh)[0]
            out.append(canonical_sharding(NamedSharding(mesh, PartitionSpec(*spec))))
        return tuple(out)

    in_avals, out_avals = _normalize_avals(in_avals), _normalize_avals(out_avals)
    given_in, given_out = shardings or ((), ())
    in_placements = placements(loaded.get_parameter_shardings(),
                               given_in or (None,) * len(in_avals))
    out_placements = placements(loaded.get_output_shardings(),
                                given_out or (None,) * len(out_avals))
    if _modules["legacy_handlers"]:
        handlers = [xc.array_result_handler(_as_aval(*a), _jax_sharding(p), True,
                                            _skip_checks=True)
                    for a, p in zip(out_avals, out_placements)]
    else:
        handlers = [xc.array_result_handler(_as_aval(*a), _jax_sharding(p), True)
                    for a, p in zip(out_avals, out_placements)]
    return Executable(loaded, in_avals, out_avals, devs[0], text, handlers, in_placements,
                      out_placements)


# --------------------------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------------------------


def _check_args(exe: Executable, args) -> None:
    if len(args) != len(exe.in_avals):
        raise ExecutionError(f"{exe!r} takes {len(exe.in_avals)} arguments, got {len(args)}")
    for k, (x, expected) in enumerate(zip(args, exe.in_avals)):
        got = (tuple(x.shape), np.dtype(x.dtype))
        if got != expected:
            raise ExecutionError(
                f"argument {k} of {exe!r} is {_aval_str(got)}, but the executable was compiled "
                f"for {_aval_str(expected)}; convert it (or compile again for this type)")


def execute_buffers(exe: Executable, buffers) -> list:
    """Run ``exe`` on device buffers the caller has already checked against
    ``exe.in_avals`` (the jit dispatch cache guarantees it); returns device arrays."""
    try:
        return exe.loaded.execute_sharded(buffers).consume_with_handlers(exe._handlers)
    except Exception as exc:  # noqa: BLE001 (jax is only looked up on this rare path)
        raise_execution_error(exe, exc)


def buffer_executor(exe: Executable):
    """``run(buffers) -> device arrays``: ``execute_buffers`` for one executable with its
    attribute lookups done once, for jit's dispatch fast path (a few hundred ns a call)."""
    execute_sharded, handlers = exe.loaded.execute_sharded, exe._handlers

    def run(buffers):
        try:
            return execute_sharded(buffers).consume_with_handlers(handlers)
        except Exception as exc:  # noqa: BLE001 (jax is only looked up on this rare path)
            raise_execution_error(exe, exc)

    return run


def execute_steps(exe: Executable):
    """``(start, finish)``: ``finish(start(buffers))`` runs ``exe`` on device buffers checked
    against ``exe.in_avals`` and returns the output buffers. Both are C callables (jaxlib's
    bound method and an ``operator.methodcaller``): jit's dispatch guard calls them inline,
    where even ``buffer_executor``'s Python frame is a measurable share of a call. Their
    exceptions are jaxlib's own: pass them to ``raise_execution_error``."""
    return exe.loaded.execute_sharded, operator.methodcaller(
        "consume_with_handlers", exe._handlers)


# Exceptions raised by host callbacks while XLA runs them. XLA passes on only a message (the
# callback's formatted traceback, inside its own error), so each exception is kept here under
# a number that the callback puts in the message it raises to XLA instead; the execution that
# failed then finds its own exception by that number, whichever thread ran the callback or
# made the call, and a computation that failed unread leaves at most a bounded entry behind.
_callback_errors = LRUCache(256)
_callback_error_numbers = itertools.count()
_CALLBACK_ERROR = re.compile(r"\[funcarray host callback error #(\d+)\]")


class HostCallbackFailed(Exception):
    """What a host callback raises to XLA in place of its exception, which
    ``record_callback_error`` kept: the message carries its number."""


def record_callback_error(exc: BaseException) -> HostCallbackFailed:
    """Keep ``exc`` (raised by a host callback while XLA ran it) for the execution that
    failed, and return the exception the callback raises to XLA instead."""
    number = next(_callback_error_numbers)
    _callback_errors.put(number, exc)
    return HostCallbackFailed(f"[funcarray host callback error #{number}] "
                              f"{type(exc).__name__}: {exc}")


def raise_execution_error(exe: Executable, exc: Exception):
    """Re-raise ``exc``, raised while running ``exe``: an exception a host callback raised
    as itself (the user's error, with the callback's traceback), XLA's other runtime errors
    as ``ExecutionError`` naming the executable, anything else as it is."""
    jax, _ = _jax()
    if isinstance(exc, jax.errors.JaxRuntimeError):
        _reraise_callback_error(exc, f"(raised by a Python callback while running {exe!r})")
        raise ExecutionError(f"XLA failed while running {exe!r}:\n{exc}") from None
    raise exc


def _reraise_callback_error(exc: Exception, note: str) -> None:
    """Raise the exception a host callback recorded for the execution that failed with
    ``exc`` (XLA's error, quoting the number ``record_callback_error`` gave it), with
    ``note`` added, if there is one."""
    match = _CALLBACK_ERROR.search(str(exc))
    original = match and _callback_errors.pop(int(match.group(1)))
    if original is not None:
        original.add_note(note)
        raise original.with_traceback(original.__traceback__)


def raise_deferred_error(exc: Exception):
    """Re-raise ``exc``, raised while waiting for or fetching a device array: on an
    accelerator a computation runs after its call returns, so an exception a host callback
    raised (``pure_callback``'s result check, the user's own) surfaces here, where the result
    is read; it is re-raised as itself, as ``raise_execution_error`` does at the call."""
    jax, _ = _jax()
    if isinstance(exc, jax.errors.JaxRuntimeError):
        _reraise_callback_error(exc, "(raised by a Python callback of the computation that "
                                "produced this array; on an accelerator it surfaces where "
                                "the result is first waited for or read)")
    raise exc


def execute(exe: Executable, args) -> list:
    """Run ``exe`` on ``args`` (NumPy arrays or device arrays); returns device arrays.

    Shapes and dtypes are checked first (jaxlib would reinterpret a same-size wrong dtype);
    NumPy arguments are copied to the executable's device, or, for an SPMD executable, split
    as its parameters are; a device array split otherwise is refused (jaxlib would crash).
    """
    jax, _ = _jax()
    _check_args(exe, args)
    if exe.in_placements:
        on_device = []
        for k, (x, place) in enumerate(zip(args, exe.in_placements)):
            want = _jax_sharding(place)
            if not isinstance(x, jax.Array):
                x = device_put_sharded(np.asarray(x), place)
            elif not x.sharding.is_equivalent_to(want, len(x.shape)):
                raise ExecutionError(f"argument {k} of {exe!r} is split as {x.sharding}, but "
                                     f"the executable takes it split as {place}")
            on_device.append(x)
    else:
        on_device = [x if isinstance(x, jax.Array) else device_put(np.asarray(x), exe.device)
                     for x in args]
    try:
        return exe.loaded.execute_sharded(on_device).consume_with_handlers(exe._handlers)
    except jax.errors.JaxRuntimeError as exc:
        raise_execution_error(exe, exc)


def block_until_ready(buffers) -> None:
    """Wait until every device array of ``buffers`` is computed, in one call into jaxlib
    (one release of the GIL for all of them, as ``jax.block_until_ready`` does for a pytree:
    waiting for each in turn costs ~0.5 us an array). Raises jaxlib's own error when a
    computation failed: the caller translates it (``raise_deferred_error``)."""
    _modules["xc"].batched_block_until_ready(buffers)  # loaded: the buffers came from it


# --------------------------------------------------------------------------------------------
# Host callbacks (debug.print, pure_callback under jit)
# --------------------------------------------------------------------------------------------

# (jaxlib names a CUDA or ROCm device's platform "gpu"; the plugin names are kept for
# callers that pass the platform a user selected)
_HOST_CALLBACK_TARGETS = {"cpu": "xla_ffi_python_cpu_callback",
                          "gpu": "xla_ffi_python_gpu_callback",
                          "cuda": "xla_ffi_python_gpu_callback",
                          "rocm": "xla_ffi_python_gpu_callback"}


def host_callback_target(platform: str | None):
    """The custom-call target through which a compiled module on ``platform`` calls a Python
    function (jaxlib's typed-FFI handler; ``backend_config = {index = N : ui64}`` picks the
    ``host_callbacks`` entry given to ``compile``), or None where funcarray has none (TPU
    uses send/recv; a backend-neutral lowering has no platform). Verified on CPU; the GPU
    target is jax's own choice, not yet run here."""
    return _HOST_CALLBACK_TARGETS.get(platform)


# --------------------------------------------------------------------------------------------
# Native factorisation kernels (the platform-specific side of funcarray.numpy.linalg)
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class NativeCall:
    """A platform kernel a lowering rule can emit as ``stablehlo.custom_call``:
    ``target`` (the registered name) and ``config`` (its ``mhlo.backend_config`` dictionary,
    MLIR text). The operands and results follow LAPACK's routine, with matrices in
    column-major layout (``native_layout``) and a trailing int32 ``info`` per matrix."""

    target: str
    config: str


# funcarray factorisation -> (LAPACK routine, its backend_config): jaxlib's typed-FFI
# handlers take the routine's character flags as ui8 (76 'L'ower triangle, 86 'V'ectors).
def _lapack_flags(op: str, lower: bool = True, full_matrices: bool = False,
                  compute_uv: bool = True, left_side: bool = True, transpose: bool = False,
                  conjugate: bool = False, unit_diagonal: bool = False,
                  compute_right: bool = True, compute_schur_vectors: bool = True) -> str:
    """The routine's character flags as jaxlib's handlers take them (ui8 ASCII codes): ``uplo``
    'L'/'U' (the triangle read), ``mode`` 'V' (eigenvectors too) or, for gesdd, 'A' (full U,
    V^T), 'S' (reduced), 'N' (singular values only); trsm's ``side`` 'L'/'R', ``trans_x``
    'N'/'T'/'C' and ``diag`` 'U' (unit)/'N'; geev's ``compute_left`` (never: 'N') and
    ``compute_right`` ('V' or 'N'); gees's ``mode`` ('V': Schur vectors too, or 'N') and
    ``sort`` (never: 'N'). geqp3 and orgqr/ungqr take none."""
    uplo = ord("L" if lower else "U")
    if op == "cholesky":
        return f"{{uplo = {uplo} : ui8}}"
    if op == "eigh":
        return f"{{mode = {ord('V')} : ui8, uplo = {uplo} : ui8}}"
    if op == "svd":
        mode = ("A" if full_matrices else "S") if compute_uv else "N"
        return f"{{mode = {ord(mode)} : ui8}}"
    if op == "eig":
        return (f"{{compute_left = {ord('N')} : ui8, compute_right = "
                f"{ord('V' if compute_right else 'N')} : ui8}}")
    if op == "schur":
        return (f"{{mode = {ord('V' if compute_schur_vectors else 'N')} : ui8, sort = "
                f"{ord('N')} : ui8}}")
    if op == "triangular_solve":
        trans = ("C" if conjugate else "T") if transpose else "N"
        return (f"{{diag = {ord('U' if unit_diagonal else 'N')} : ui8, side = "
                f"{ord('L' if left_side else 'R')} : ui8, trans_x = {ord(trans)} : ui8, "
                f"uplo = {uplo} : ui8}}")
    return "{}"


# funcarray factorisation -> LAPACK (or BLAS, for trsm) routine
_LAPACK = {"cholesky": "potrf", "eigh": "syevd", "lu": "getrf", "svd": "gesdd",
           "triangular_solve": "trsm", "eig": "geev", "schur": "gees", "qr_pivoted": "geqp3",
           "householder_product": "orgqr"}


@functools.lru_cache(maxsize=256)
def native_linalg(platform: str | None, op: str, dtype, **flags) -> NativeCall | None:
    """The native kernel for ``op`` (``"cholesky"``, ``"eigh"``, ``"lu"``, ``"svd"``,
    ``"triangular_solve"``, ``"eig"``, ``"schur"``, ``"qr_pivoted"``, ``"householder_product"``)
    on ``dtype`` matrices on ``platform``, or None: the rule then lowers its portable
    composition. ``flags`` are the operation's own parameters (``lower``, ``full_matrices``,
    ``compute_uv``, ``left_side``, ``transpose``, ``conjugate``, ``unit_diagonal``,
    ``compute_right``, ``compute_schur_vectors``; see ``_lapack_flags``).

    On CPU these are jaxlib's LAPACK handlers (the ones jax's own CPU lowering calls; they are
    registered with XLA when jax is imported, and ``prepare_lapack_call`` loads LAPACK's
    entry points first: calling one before that would crash). Other platforms get None until
    their solvers (cuSOLVER...) are wired here.
    """
    if platform != "cpu" or op not in _LAPACK:
        return None
    _jax()  # registers the handlers
    from jaxlib import lapack
    try:
        routine = _LAPACK[op]
        if np.dtype(dtype).kind == "c":  # LAPACK's names for the unitary/Hermitian forms
            routine = {"orgqr": "ungqr", "syevd": "heevd"}.get(routine, routine)
        target = lapack.prepare_lapack_call(f"{routine}_ffi", np.dtype(dtype))
    except (NotImplementedError, AttributeError):  # a dtype or routine this jaxlib lacks
        return None
    return NativeCall(target, _lapack_flags(op, **flags))


def native_layout(rank: int, matrix: bool) -> str:
    """``operand_layouts``/``result_layouts`` entry for a native kernel's array of ``rank``:
    the last two axes column-major (LAPACK's order) when ``matrix``, batch axes major."""
    order = [rank - 2, rank - 1, *range(rank - 3, -1, -1)] if matrix else list(
        range(rank - 1, -1, -1))
    return f"dense<[{', '.join(map(str, order))}]> : tensor<{rank}xindex>" if order else (
        "dense<> : tensor<0xindex>")


# --------------------------------------------------------------------------------------------
# Serialization
# --------------------------------------------------------------------------------------------

_MAGIC = b"funcarray-exe\0"


def serialize(exe: Executable) -> bytes:
    """Bytes that ``deserialize`` turns back into ``exe`` (same jaxlib, platform and device
    kind only: CPU executables hold machine code)."""
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
