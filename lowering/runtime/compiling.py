"""Compiling StableHLO text into a loaded executable on one device, the compiler options
users may pass, and compile errors that quote the offending lines."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from funcarray.lowering.runtime.devices_and_processes import default_device
from funcarray.lowering.runtime.loading import CompileError, _jax, _modules
from funcarray.lowering.runtime.transfers import _as_aval


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
