"""Running executables: argument checks (jaxlib silently reinterprets the bits of a
same-size wrong dtype, so every argument's shape and dtype is checked against what the
executable was compiled for), the fast buffer paths of jit's dispatch, errors raised by
host callbacks inside a computation, and the custom-call target of host callbacks."""

from __future__ import annotations

import itertools
import re

import numpy as np

from funcarray.base.lru_cache import LRUCache
from funcarray.lowering.runtime.compiling import Executable, _aval_str
from funcarray.lowering.runtime.loading import ExecutionError, _jax, _modules
from funcarray.lowering.runtime.sharded import _jax_sharding, device_put_sharded
from funcarray.lowering.runtime.transfers import device_put


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
    """``(start, finish, handlers)``: ``finish(start(buffers), handlers)`` runs ``exe`` on
    device buffers checked against ``exe.in_avals`` and returns the output buffers. ``start``
    and ``finish`` are C callables (jaxlib's bound ``execute_sharded`` and the unbound
    ``consume_with_handlers``, which skips the method lookup an ``operator.methodcaller``
    makes on each call: ~60 ns, 2% of a small jitted call): jit's dispatch calls them inline,
    where even ``buffer_executor``'s Python frame is a measurable share of a call. Their
    exceptions are jaxlib's own: pass them to ``raise_execution_error``."""
    return exe.loaded.execute_sharded, _consume_with_handlers(), exe._handlers


def _consume_with_handlers():
    """``consume(results, handlers)``: jaxlib's ``ExecuteResults.consume_with_handlers``,
    unbound (a Python function calling the method where jaxlib does not name the class)."""
    results_type = getattr(getattr(_modules["xc"], "_xla", None), "ExecuteResults", None)
    consume = getattr(results_type, "consume_with_handlers", None)
    if consume is None:
        return lambda results, handlers: results.consume_with_handlers(handlers)
    return consume


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
