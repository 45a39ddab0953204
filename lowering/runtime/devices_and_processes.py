"""The backend client and its devices, and several processes joined as one job (jaxlib's
coordination service and key-value store; docs/decisions.md, "Several processes")."""

from __future__ import annotations

import threading

from funcarray.lowering.runtime.loading import _jax


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
