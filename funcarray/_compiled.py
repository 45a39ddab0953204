"""Running compiled IR on funcarray Arrays: devices, transfers and result wrapping.

The bridge between the Array world (a NumPy value per array) and ``lowering/runtime.py`` (XLA
buffers). ``execute_ir`` compiles an IR in call form (cached in ``lowering/cache.py``), moves
the arguments to the device (reusing a buffer an Array already holds), runs it and wraps the
outputs as Arrays. On the CPU an output's NumPy value is a zero-copy view of its XLA buffer,
and the buffer stays attached, so feeding outputs back into a jitted function costs no copy.

Devices: ``devices()``, ``default_backend()``, ``device_put(x, device)``. The platform is
jax's default (GPU when jax's CUDA plugin finds one) unless the ``platform`` setting or the
``FUNCARRAY_PLATFORM`` environment variable names another (``cpu``, ``cuda``, ``rocm``, ...).

Example:
    >>> import funcarray as fa
    >>> fa.default_backend()
    'cpu'
    >>> fa.device_put(fa.numpy.ones(2)).device
    CpuDevice(id=0)
"""

from __future__ import annotations

import numpy as np

from funcarray._arguments import asarray_arg
from funcarray._config import config
from funcarray.array import Array, Device, device_array
from funcarray.lowering import cache, runtime
from funcarray.primitives.shape import broadcast_in_dim_p
from funcarray.transforms.core import EVAL_TRACE, EvalTrace, Tracer, canonical_aval
from funcarray.transforms.ir import IR, Eqn, Var

__all__ = ["block_until_ready", "devices", "default_backend", "device_get", "device_put",
           "device_count", "local_devices", "local_device_count", "process_index",
           "process_count",
           "execute_ir", "runtime_device"]


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
    """The devices attached to this process (funcarray runs in one process: all of them).

    Example:
        >>> import funcarray as fa
        >>> fa.local_devices() == fa.devices()
        True
    """
    if process_index not in (None, 0):
        raise ValueError(f"local_devices: funcarray runs in a single process (index 0), got "
                         f"process_index={process_index}")
    return devices(backend)


def local_device_count(backend: str | None = None) -> int:
    """How many devices this process has (``device_count`` in one process).

    Example:
        >>> import funcarray as fa
        >>> fa.local_device_count() == fa.device_count()
        True
    """
    return len(local_devices(backend=backend))


def process_index(backend: str | None = None) -> int:
    """This process's index among the processes of a multi-host job: always 0 (funcarray
    runs in one process).

    Example:
        >>> import funcarray as fa
        >>> fa.process_index(), fa.process_count()
        (0, 1)
    """
    return 0


def process_count(backend: str | None = None) -> int:
    """How many processes the job has: always 1 (see ``process_index``).

    Example:
        >>> import funcarray as fa
        >>> fa.process_count()
        1
    """
    return 1


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


def _note_accelerator(jdev) -> None:
    """With ``eager_backend = "auto"`` (the default), eager ops switch to XLA the first time
    an array is placed on an accelerator, so device arrays stay on their device instead of
    being fetched to the host by every NumPy kernel."""
    if jdev.platform != "cpu" and config.eager_backend == "auto":
        set_eager_backend("xla")


def to_buffer(x, jdev):
    """The XLA buffer of Array ``x`` on ``jdev``, copied there once and cached on ``x``."""
    entry = getattr(x, "_buf", None)
    if entry is not None and (entry[0] is jdev or entry[0] == jdev):
        return entry[1]
    buf = runtime.device_put(np.asarray(x._value), jdev)
    _note_accelerator(jdev)
    try:
        x._buf = (jdev, buf)
    except AttributeError:  # not an Array (a NumPy value): nothing to cache on
        pass
    return buf


def from_buffer(buf, aval, jdev) -> Array:
    """An Array for an XLA output buffer of type ``aval`` on ``jdev`` (fetched lazily)."""
    return device_array(jdev, buf, canonical_aval(aval))


def device_put(x, device=None):
    """``x`` with every array placed on ``device`` (the default device when None): an Array,
    NumPy array or Python scalar, or a pytree of them (lists and dicts are containers, as in
    JAX). An Array already on ``device`` is returned as it is.

    Example:
        >>> import funcarray as fa
        >>> x = fa.device_put(fa.numpy.array([1.0, 2.0]), fa.devices()[0])
        >>> x, x.device
        (Array([1., 2.], dtype=float32), CpuDevice(id=0))
        >>> fa.device_put({"w": 1.0, "b": None})
        {'w': Array(1., dtype=float32, weak_type=True), 'b': None}
    """
    from funcarray import tree
    from funcarray.numpy import asarray

    jdev = runtime_device(device)

    def put(leaf):
        leaf = asarray(leaf)
        entry = getattr(leaf, "_buf", None)
        if entry is not None and entry[0] == jdev:
            return leaf
        return from_buffer(to_buffer(leaf, jdev), leaf.aval, jdev)

    return tree.map(put, x)


def device_get(x):
    """``x`` with every Array fetched to the host as a NumPy array (a pytree of them; other
    leaves are returned as they are), like ``jax.device_get``.

    Example:
        >>> import funcarray as fa
        >>> fa.device_get({"w": fa.numpy.ones(2), "step": 3})
        {'w': array([1., 1.], dtype=float32), 'step': 3}
    """
    from funcarray import tree

    return tree.map(lambda leaf: np.asarray(leaf) if isinstance(leaf, Array) else leaf, x)


def block_until_ready(x):
    """Wait until every Array in the pytree ``x`` is computed, and return ``x``, like
    ``jax.block_until_ready`` (timing code calls it before reading the clock).

    Example:
        >>> import funcarray as fa
        >>> out = fa.block_until_ready(fa.jit(lambda x: x * 2)(fa.numpy.ones(2)))
    """
    from funcarray import tree

    for leaf in tree.leaves(x):
        if isinstance(leaf, Array) and not isinstance(leaf, Tracer):
            leaf.block_until_ready()
    return x


def execute_ir(ir, args, device=None, compiler_options=()) -> list:
    """Compile ``ir`` (an IR in call form) for ``device`` with XLA ``compiler_options``
    (``(name, value)`` pairs) and run it on concrete ``args``."""
    jdev = runtime_device(device)
    exe = cache.compile_ir(ir, device=jdev, compiler_options=compiler_options)
    bufs = [to_buffer(x, jdev) for x in args]
    outs = runtime.execute_buffers(exe, bufs)
    return [device_array(jdev, b, x.aval) for b, x in zip(outs, ir.outs)]


# --------------------------------------------------------------------------------------------
# Eager execution through XLA: one cached single-op executable per (primitive, types, params)
# --------------------------------------------------------------------------------------------


class XlaEvalTrace:
    """Eager mode through XLA instead of NumPy (the ``eager_backend = "xla"`` setting).

    ``funcarray.config.update("eager_backend", "xla")`` switches the eager trace to this
    class, so each primitive applied outside every transform compiles once (per primitive,
    operand types, params and device) into a one-equation executable and runs it. On the CPU
    this reproduces jit's numerics op by op; on an accelerator it is how eager ops run on the
    device. Primitives without a lowering rule (and higher-order ones, which compile
    themselves) and host callbacks (``eager_on_host``: they run at once, their errors raised
    at the user's line) run their eager kernel.

    An op runs on the device of its first operand that lives on one (as in JAX), else on the
    selected platform's default device. Each call is one executable run: operands of other
    shapes are broadcast inside it, and small constants (the Python scalars of ``x * 1.5``)
    keep one device copy per value (``_constant_buffer``).
    """

    __slots__ = ()

    def process_primitive(self, prim, args, params):
        if not prim.lower_rule or prim.partial_eval_rule or getattr(
                prim, "eager_on_host", False):
            return prim.impl(*args, **params)
        args = [a if isinstance(a, Array) else asarray_arg(prim.name, a) for a in args]
        jdev = None
        for a in args:
            entry = getattr(a, "_buf", None)
            if entry is not None:
                jdev = entry[0]
                break
        if jdev is None:
            jdev = runtime.default_device_for(config.platform or None)
        avals = tuple(a.aval for a in args)
        try:
            key = (prim, avals, tuple(params.items()), jdev)
            op = _eager_ops.get(key)
        except TypeError:  # an unhashable param: look the executable up every time
            key, op = None, None
        if op is None:
            op = _EagerOp(prim, avals, params, jdev)
            if key is not None:
                if len(_eager_ops) >= _EAGER_OPS_MAX:
                    _eager_ops.clear()
                _eager_ops[key] = op
        bufs = []
        for a in args:
            entry = getattr(a, "_buf", None)
            if entry is not None and entry[0] is jdev:
                bufs.append(entry[1])
            elif entry is None and a.ndim == 0:
                bufs.append(_constant_buffer(a, jdev))
            else:
                bufs.append(to_buffer(a, jdev))
        outs = op.run(bufs)
        if op.single:
            return device_array(jdev, outs[0], op.out_avals[0])
        return [device_array(jdev, b, aval) for b, aval in zip(outs, op.out_avals)]


class _EagerOp:
    """One primitive's compiled single-op executable for given operand types and params,
    with what a call needs at hand (``run``: ``runtime.buffer_executor``)."""

    __slots__ = ("run", "out_avals", "single")

    def __init__(self, prim, avals, params, jdev):
        ir = _single_op_ir(prim, avals, params)
        exe = cache.compile_ir(ir, device=jdev)
        self.run = runtime.buffer_executor(exe)
        self.out_avals = tuple(canonical_aval(v.aval) for v in ir.outs)
        self.single = not prim.multiple_results


# (primitive, operand avals, params, device) -> _EagerOp. Bounded: cleared when full (a
# program whose shapes keep changing recompiles nothing: cache.compile_ir keeps the
# executables; only this shortcut is rebuilt).
_eager_ops: dict = {}
_EAGER_OPS_MAX = 4096


# (device, dtype, bytes) -> the device buffer of a 0-d constant made afresh for each op
# (``x * 1.5`` converts 1.5 every time): copied to the device once per value, not per call.
_constant_buffers: dict = {}


def _constant_buffer(a, jdev):
    value = np.asarray(a._value)
    key = (jdev, value.dtype, value.tobytes())
    buf = _constant_buffers.get(key)
    if buf is None:
        if len(_constant_buffers) >= 1024:
            _constant_buffers.clear()
        # (not cached on ``a`` as to_buffer would: a jit that donated ``a`` would then
        # delete the buffer every op with this value shares)
        buf = _constant_buffers[key] = runtime.device_put(value, jdev)
    return buf


_single_op_irs: dict = {}


def clear_eager_caches() -> None:
    """Forget the XLA eager backend's executables, IRs and constant buffers
    (``funcarray.clear_caches``)."""
    _eager_ops.clear()
    _constant_buffers.clear()
    _single_op_irs.clear()


def _single_op_ir(prim, avals, params):
    """The one-equation IR of ``prim`` on operands of ``avals`` (elementwise operands of
    other shapes are broadcast first, inside the IR, as staging does)."""
    try:
        key = (prim, avals, tuple(sorted(params.items())))
        ir = _single_op_irs.get(key)
    except TypeError:  # an unhashable param: build it every time
        key, ir = None, None
    if ir is None:
        ins = tuple(Var(a) for a in avals)
        eqns, operands = [], list(ins)
        if getattr(prim, "nargs", 1) > 1 and len({a.shape for a in avals}) > 1:
            shape = np.broadcast_shapes(*(a.shape for a in avals))
            for k, v in enumerate(ins):
                if v.aval.shape != shape:
                    dims = tuple(range(len(shape) - v.aval.ndim, len(shape)))
                    bparams = {"shape": shape, "broadcast_dimensions": dims}
                    out = Var(broadcast_in_dim_p.abstract_eval(v.aval, **bparams))
                    eqns.append(Eqn(broadcast_in_dim_p, (v,), bparams, (out,)))
                    operands[k] = out
        out_avals = prim.abstract_eval(*(v.aval for v in operands), **params)
        out_avals = out_avals if prim.multiple_results else [out_avals]
        outs = tuple(Var(a) for a in out_avals)
        eqns.append(Eqn(prim, tuple(operands), dict(params), outs))
        ir = IR((), ins, tuple(eqns), outs)
        if key is not None:
            _single_op_irs[key] = ir
    return ir


def set_eager_backend(name: str) -> None:
    """Make the eager trace run NumPy kernels (``"numpy"``) or XLA executables (``"xla"``);
    ``"auto"`` starts with NumPy and switches to XLA once an accelerator holds an array.

    The eager trace object is the ContextVar's default, shared by every thread; switching its
    class (rather than testing a flag on every op) keeps the NumPy path free of overhead.
    """
    if name == "auto":  # NumPy kernels until an accelerator is used (_note_accelerator)
        name = "numpy"
    global _eager_trace_class
    _eager_trace_class = _XlaEvalTrace if name == "xla" else EvalTrace
    refresh_eval_trace_class()


_eager_trace_class = EvalTrace  # the eager backend's trace class (set_eager_backend)


def refresh_eval_trace_class() -> None:
    """Give the eager trace the eager backend's class, or its NaN-checking subclass while
    ``debug_nans``/``debug_infs`` is on (``funcarray._debug_nans``)."""
    from funcarray._debug_nans import checking_trace_class

    cls = _eager_trace_class
    EVAL_TRACE.__class__ = (checking_trace_class(cls) if config.debug_nans or config.debug_infs
                            else cls)


def _make_xla_eval_trace_class():
    return type("XlaEvalTrace", (EvalTrace,), {
        "__slots__": (), "__doc__": XlaEvalTrace.__doc__,
        "process_primitive": XlaEvalTrace.process_primitive})


_XlaEvalTrace = _make_xla_eval_trace_class()


# The eager trace's class follows the settings (from the environment at import, then each
# config.update).
config.subscribe(("eager_backend",), lambda name, value: set_eager_backend(value))
config.subscribe(("debug_nans", "debug_infs"), lambda name, value: refresh_eval_trace_class(),
                 now=False)
