"""Running IR on a device: the one executor behind jit's calls, ``jit_p``'s eager rule, the
XLA eager engine and random bits drawn by XLA, and the choice of eager engine.

``execute_ir`` compiles an IR in call form (cached in ``cache.py``), moves the arguments to
the device (reusing a buffer an Array already holds), runs it and wraps the outputs as Arrays.
On the CPU an output's NumPy value is a zero-copy view of its XLA buffer, and the buffer stays
attached, so feeding outputs back into a jitted function costs no copy.

The eager engine: outside every transform a primitive runs its NumPy kernel (``EvalTrace``)
or, with ``eager_backend = "xla"`` (or ``"auto"`` once an accelerator holds an array), a
cached single-op executable (``XlaEvalTrace``); with ``debug_nans``/``debug_infs`` on, a
subclass of either checks each output. This module alone decides which: it sets the class of
the eager trace object when those settings change.
"""

from __future__ import annotations

import functools
import sys

import numpy as np

from funcarray.base import dtypes
from funcarray.base.array import Array, DeviceArray, device_array
from funcarray.base.avals import canonical_aval
from funcarray.base.config import config
from funcarray.base.errors import _mark, _with_location
from funcarray.base.host_values import host_array
from funcarray.base.lru_cache import LRUCache
from funcarray.base.sharding import NamedSharding, canonical_sharding, on_first_multi_device_layout
from funcarray.lowering import cache, runtime
from funcarray.lowering.devices import default_backend, runtime_device
from funcarray.transforms import support
from funcarray.transforms.core import CURRENT_TRACE, EVAL_TRACE, EvalTrace, Tracer
from funcarray.transforms.host_shortcuts import GeneralPathEvalTrace
from funcarray.transforms.ir import IR, ClosedIR, Eqn, Var

__all__ = ["execute_ir", "execute_ir_numpy", "run_executable", "to_buffer", "from_buffer",
           "reshard_on_devices",
           "single_op_ir", "XlaEvalTrace", "set_eager_backend", "clear_eager_caches",
           "invalid_value", "floating_point_error", "checking_trace_class",
           "ops_run_on_accelerator", "MeshAwareEvalTrace", "run_on_mesh"]


def _note_accelerator(jdev) -> None:
    """With ``eager_backend = "auto"`` (the default), eager ops switch to XLA the first time
    an array is placed on an accelerator, so device arrays stay on their device instead of
    being fetched to the host by every NumPy kernel."""
    if jdev.platform != "cpu" and config.eager_backend == "auto":
        set_eager_backend("xla")


def to_buffer(x, jdev):
    """The XLA buffer of Array ``x`` on ``jdev`` (a runtime device, or a canonical
    NamedSharding: then a multi-device buffer split that way), copied there once and cached
    on ``x``. An array split over devices keeps its own buffer (and sharding): elsewhere it
    is gathered and copied, never re-placed."""
    entry = getattr(x, "_buf", None)
    if entry is not None and (entry[0] is jdev or entry[0] == jdev):
        return entry[1]
    if type(jdev) is NamedSharding:
        if entry is not None and type(entry[0]) is NamedSharding:
            moved = reshard_on_devices(entry[1], entry[0], jdev, x.aval)
            if moved is not None:
                return moved
        value = np.asarray(x._value)  # (gathered to the host first, then split again)
        jdev.check_shape(value.shape)
        # Not cached on x: the array would then report this sharding, and jit would treat
        # it as committed to it; a host value is placed again on the next call instead.
        return runtime.device_put_sharded(value, jdev)
    buf = runtime.device_put(np.asarray(x._value), jdev)
    _note_accelerator(jdev)
    if entry is not None and type(entry[0]) is NamedSharding:
        return buf
    try:
        x._buf = (jdev, buf)
    except AttributeError:  # not an Array (a NumPy value): nothing to cache on
        pass
    return buf


# aval -> the IR returning its one argument (what a reshard compiles, with shardings)
_identity_irs = LRUCache(256)


def reshard_on_devices(buffer, source, target, aval):
    """``buffer`` (split as canonical NamedSharding ``source``) split as ``target`` instead,
    moved between the devices by XLA (an identity executable whose parameter and result
    carry the two shardings: the partitioner writes the collectives, as jax's reshard does);
    None when the two meshes differ (other devices, shape or axis names): the caller then
    goes through the host."""
    if (source.mesh.flat_devices, source.mesh.shape_tuple) != (
            target.mesh.flat_devices, target.mesh.shape_tuple):
        return None
    aval = canonical_aval(aval)
    ir = _identity_irs.get(aval)
    if ir is None:
        var = Var(aval)
        ir = IR((), (var,), (), (var,))
        _identity_irs.put(aval, ir)
    exe = cache.compile_ir(ir, shardings=((source,), (target,)))
    return runtime.execute_buffers(exe, [buffer])[0]


def from_buffer(buf, aval, jdev) -> Array:
    """An Array for an XLA output buffer of type ``aval`` on ``jdev`` (fetched lazily)."""
    return device_array(jdev, buf, canonical_aval(aval))




def execute_ir(ir, args, device=None, compiler_options=()) -> list:
    """Compile ``ir`` for ``device`` with XLA ``compiler_options`` (``(name, value)`` pairs)
    and run it on concrete ``args``; returns device Arrays. ``ir`` is an IR in call form (its
    constants are its first arguments) or a ``ClosedIR``, whose concrete constants are passed
    before ``args``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.transforms.staging import make_ir
        >>> staged = make_ir(lambda x, y: fnp.cos(x) * y)(fnp.zeros(2), fnp.ones(2))
        >>> execute_ir(staged.closed, [fnp.zeros(2), fnp.array([1.0, 2.0])])
        [Array([1., 2.], dtype=float32)]
    """
    jdev = runtime_device(device)
    exe = cache.compile_ir(ir, device=jdev, compiler_options=compiler_options)
    if isinstance(ir, ClosedIR):
        return run_executable(exe, [*ir.consts, *args], ir.out_avals)
    return run_executable(exe, args, [x.aval for x in ir.outs])


def execute_ir_numpy(ir, values, device) -> list:
    """``execute_ir`` for an eager kernel: ``ir`` in call form (its constants, if any, lead
    ``values``) run on ``device``, NumPy ``values`` in (copied there), NumPy values out
    (read-only views of the output buffers on the CPU). No Array is made on either side: that
    would be a fifth of the call for a small operand.

    Example:
        >>> import numpy as np
        >>> import funcarray.numpy as fnp
        >>> from funcarray.lowering import runtime
        >>> from funcarray.transforms.staging import make_ir
        >>> staged = make_ir(lambda x: x * 2.0)(fnp.zeros(2))
        >>> execute_ir_numpy(staged.closed.ir, [np.ones(2, np.float32)], runtime.default_device())
        [array([2., 2.], dtype=float32)]
    """
    exe = cache.compile_ir(ir, device=runtime_device(device))
    bufs = [runtime.device_put(v, exe.device) for v in values]
    return [np.asarray(b) for b in runtime.execute_buffers(exe, bufs)]


def run_executable(exe, args, out_avals, donated: tuple = ()) -> list:
    """Run compiled ``exe`` on Arrays ``args`` (each Array's buffer on the executable's
    device is reused, or made once and kept) and wrap its outputs, of types ``out_avals``, as
    device Arrays. ``donated``: the positions of arguments whose buffers XLA may reuse.
    An SPMD executable takes each argument split as its parameter's sharding (an array
    split otherwise is moved there) and returns arrays split as its results' shardings."""
    if exe.in_placements:
        bufs = [to_buffer(x, p) for x, p in zip(args, exe.in_placements)]
        if donated:
            given = [args[k] for k in donated]
            _prepare_donation(given)
            outs = runtime.execute_buffers(exe, bufs)
            _finish_donation(given)
        else:
            outs = runtime.execute_buffers(exe, bufs)
        return [device_array(p, b, aval)
                for b, aval, p in zip(outs, out_avals, exe.out_placements)]
    jdev = exe.device
    bufs = [to_buffer(x, jdev) for x in args]
    if donated:
        given = [args[k] for k in donated]
        _prepare_donation(given)
        outs = runtime.execute_buffers(exe, bufs)
        _finish_donation(given)
    else:
        outs = runtime.execute_buffers(exe, bufs)
    return [device_array(jdev, b, aval) for b, aval in zip(outs, out_avals)]


def _prepare_donation(arrays) -> None:
    """Before XLA may overwrite their buffers: a host value that may be a view of a donated
    CPU buffer (a device array's, read: an Array since, its buffer cached) must become a copy,
    or it would silently change under the user."""
    for x in arrays:
        if type(x) is Array and getattr(x, "_buf", None) is not None:
            x._value = np.array(x._value, copy=True)


def _finish_donation(arrays) -> None:
    """After the call the donated device buffers are gone: forget them."""
    for x in arrays:
        if type(x) is Array and getattr(x, "_buf", None) is not None:
            del x._buf  # the host value is intact; the next call copies it again
        elif type(x) is DeviceArray:
            x._donated = True
            x._ready = False  # waiting for it now raises jaxlib's "donated buffer" error


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
        if not all(isinstance(a, Array) for a in args):
            args = [a if isinstance(a, Array) else host_array(prim.name, a) for a in args]
        jdev = None
        for a in args:
            entry = getattr(a, "_buf", None)
            if entry is not None:
                if type(entry[0]) is not NamedSharding:
                    jdev = entry[0]
                    break
                if entry[0].num_devices > 1:  # an array over several devices: run there
                    return run_on_mesh(prim, args, params)
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
        ir = single_op_ir(prim, avals, params)
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


# (primitive, operand avals, params) -> its one-equation IR; bounded, as the other caches
single_op_irs = LRUCache(4096)


def clear_eager_caches() -> None:
    """Forget the XLA eager backend's executables, IRs and constant buffers
    (``funcarray.clear_caches``)."""
    _eager_ops.clear()
    _constant_buffers.clear()
    single_op_irs.clear()
    _mesh_ops.clear()


def single_op_ir(prim, avals, params):
    """The one-equation IR of ``prim`` on operands of ``avals`` (elementwise operands of
    other shapes are broadcast first, inside the IR, as staging does)."""
    try:
        key = (prim, avals, tuple(sorted(params.items())))
        ir = single_op_irs.get(key)
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
                    out = Var(support.ops.broadcast_in_dim_p.abstract_eval(v.aval, **bparams))
                    eqns.append(Eqn(support.ops.broadcast_in_dim_p, (v,), bparams, (out,)))
                    operands[k] = out
        out_avals = prim.abstract_eval(*(v.aval for v in operands), **params)
        out_avals = out_avals if prim.multiple_results else [out_avals]
        outs = tuple(Var(a) for a in out_avals)
        eqns.append(Eqn(prim, tuple(operands), dict(params), outs))
        ir = IR((), ins, tuple(eqns), outs)
        if key is not None:
            single_op_irs.put(key, ir)
    return ir


# --------------------------------------------------------------------------------------------
# Eager ops on arrays over several devices: one SPMD single-op executable on their mesh
# --------------------------------------------------------------------------------------------


def _multi_device_placement(a):
    entry = getattr(a, "_buf", None)
    if entry is not None and type(entry[0]) is NamedSharding and entry[0].num_devices > 1:
        return entry[0]
    return None


class MeshAwareEvalTrace(EvalTrace):
    """The NumPy engine once an array lives on several devices (``eager_backend = "auto"``):
    a primitive with such an operand runs where that operand lives (``run_on_mesh``), as in
    JAX, and keeps a layout over the mesh; every other op runs its NumPy kernel. Host
    shortcuts step aside (the trace is not exactly ``EvalTrace``): they would gather."""

    __slots__ = ()

    def process_primitive(self, prim, args, params):
        for a in args:
            if _multi_device_placement(a) is not None:
                return run_on_mesh(prim, args, params)
        return prim.impl(*args, **params)


def run_on_mesh(prim, args, params):
    """``prim`` applied eagerly to operands of which at least one is split or copied over the
    devices of a mesh: compiled once (per primitive, operand types, params and layouts) as a
    one-equation SPMD executable whose parameters keep the operands' layouts (other operands
    copied to every device), the result's layout chosen by XLA's partitioner, as JAX's eager
    ops do. Primitives without a lowering rule run their eager kernel (on gathered values)."""
    if not prim.lower_rule or prim.partial_eval_rule or getattr(prim, "eager_on_host", False):
        return prim.impl(*args, **params)
    from funcarray.base.mesh import PartitionSpec

    args = [a if isinstance(a, Array) else host_array(prim.name, a) for a in args]
    placements = [_multi_device_placement(a) for a in args]
    mesh = next(p.mesh for p in placements if p is not None)
    for p in placements:
        if p is not None and p.mesh != mesh:
            raise ValueError(
                f"{prim.name}: its operands lie on two meshes, {mesh} and {p.mesh}; move one "
                f"onto the other's with funcarray.device_put(x, NamedSharding(mesh, spec))")
    replicated = canonical_sharding(NamedSharding(mesh, PartitionSpec()))
    in_shardings = tuple(replicated if p is None else p for p in placements)
    avals = tuple(a.aval for a in args)
    try:
        key = (prim, avals, tuple(params.items()), in_shardings)
        op = _mesh_ops.get(key)
    except TypeError:  # an unhashable param: compile (a cache hit below) every time
        key, op = None, None
    if op is None:
        ir = single_op_ir(prim, avals, params)
        exe = cache.compile_ir(ir, shardings=(in_shardings, (None,) * len(ir.outs)))
        op = (exe, tuple(canonical_aval(v.aval) for v in ir.outs))
        if key is not None:
            _mesh_ops.put(key, op)
    exe, out_avals = op
    bufs = [a._buf[1] if p is s else to_buffer(a, s)
            for a, p, s in zip(args, placements, in_shardings)]
    outs = [device_array(place, buf, aval) for buf, aval, place
            in zip(runtime.execute_buffers(exe, bufs), out_avals, exe.out_placements)]
    return outs if prim.multiple_results else outs[0]


# (primitive, operand avals, params, operand layouts) -> (executable, output avals)
_mesh_ops = LRUCache(1024)


def _note_multi_device() -> None:
    """The first layout over several devices was made: with ``eager_backend = "auto"`` the
    NumPy engine becomes ``MeshAwareEvalTrace``."""
    global _multi_device_used
    _multi_device_used = True
    if config.eager_backend == "auto" and _eager_trace_class is EvalTrace:
        set_eager_backend("auto")


_multi_device_used = False


def set_eager_backend(name: str) -> None:
    """Make the eager trace run NumPy kernels (``"numpy"``) or XLA executables (``"xla"``);
    ``"auto"`` starts with NumPy and switches to XLA once an accelerator holds an array;
    once an array lives on several devices, ops on such arrays run there
    (``MeshAwareEvalTrace``).

    The eager trace object is the ContextVar's default, shared by every thread; switching its
    class (rather than testing a flag on every op) keeps the NumPy path free of overhead.
    """
    global _eager_trace_class
    if name == "auto":  # NumPy kernels until an accelerator is used (_note_accelerator)
        _eager_trace_class = MeshAwareEvalTrace if _multi_device_used else EvalTrace
    else:
        _eager_trace_class = _XlaEvalTrace if name == "xla" else EvalTrace
    refresh_eval_trace_class()


_eager_trace_class = EvalTrace  # the eager backend's trace class (set_eager_backend)


def refresh_eval_trace_class() -> None:
    """Give the eager trace the eager backend's class, or its NaN-checking subclass while
    ``debug_nans``/``debug_infs`` is on (``checking_trace_class``); the NumPy engine without
    host shortcuts while ``eager_shortcuts`` is off (``transforms/host_shortcuts.py``)."""
    cls = _eager_trace_class
    if cls is EvalTrace and not config.eager_shortcuts:
        cls = GeneralPathEvalTrace
    EVAL_TRACE.__class__ = (checking_trace_class(cls) if config.debug_nans or config.debug_infs
                            else cls)


def _make_xla_eval_trace_class():
    return type("XlaEvalTrace", (EvalTrace,), {
        "__slots__": (), "__doc__": XlaEvalTrace.__doc__,
        "process_primitive": XlaEvalTrace.process_primitive})


_XlaEvalTrace = _make_xla_eval_trace_class()


def ops_run_on_accelerator() -> bool:
    """Whether operations called now run through XLA on a platform other than the CPU: under
    a transform (what jit compiles) or with the XLA eager engine, when the default platform
    is an accelerator. Outside every transform the NumPy engine runs them on the host, with
    or without host shortcuts or NaN checks. Before jax is imported nothing has been placed
    on a device, and eager CPU work must not import it just to ask.

    Example:
        >>> ops_run_on_accelerator()  # eager, NumPy kernels
        False
    """
    if CURRENT_TRACE.get() is EVAL_TRACE and _eager_trace_class is EvalTrace:
        return False
    if "jax" not in sys.modules:
        return False
    return default_backend() != "cpu"




# --------------------------------------------------------------------------------------------
# debug_nans / debug_infs: the eager trace checks every primitive's outputs
# --------------------------------------------------------------------------------------------


def invalid_value(x) -> str | None:
    """'nan' or 'inf' when concrete ``x`` holds one the flags look for, else None."""
    if isinstance(x, Tracer) or not hasattr(x, "dtype") or not dtypes.is_inexact(x.dtype):
        return None
    value = np.asarray(x)
    if value.dtype.kind not in "fc":  # bfloat16, float8...: NumPy's isnan needs a float
        value = value.astype(np.float32)
    if np.isnan(value).any():
        return "nan"
    if config.debug_infs and np.isinf(value).any():
        return "inf"
    return None


def floating_point_error(message: str) -> FloatingPointError:
    return _mark(FloatingPointError(_with_location(message)))


def _check_primitive_outputs(prim, params, args, out) -> None:
    outs = out if prim.multiple_results else (out,)
    for i, x in enumerate(outs):
        found = invalid_value(x)
        if found is None:
            continue
        if prim.name == "jit":  # find the operation inside: evaluate the body op by op
            from funcarray.transforms.ir import eval_ir

            eval_ir(params["ir"], (), args)
            where = f"jit '{params['name']}'"
        else:
            where = prim.name
        which = f" {i}" if len(outs) > 1 else ""
        raise floating_point_error(f"{where}: invalid value ({found}) in the output{which} "
                     f"({x.aval.str_short()}); funcarray.config.debug_"
                     f"{'infs' if found == 'inf' else 'nans'} is on")


@functools.cache
def checking_trace_class(base: type) -> type:
    """A subclass of the eager trace class ``base`` that checks every primitive's outputs."""

    def process_primitive(self, prim, args, params):
        out = base.process_primitive(self, prim, args, params)
        _check_primitive_outputs(prim, params, args, out)
        return out

    return type(f"NanChecking{base.__name__}", (base,), {
        "__slots__": (), "__doc__": checking_trace_class.__doc__,
        "process_primitive": process_primitive})


# The eager trace's class follows the settings (from the environment at import, then each
# config.update).
config.subscribe(("eager_backend",), lambda name, value: set_eager_backend(value))
config.subscribe(("debug_nans", "debug_infs", "eager_shortcuts"),
                 lambda name, value: refresh_eval_trace_class(), now=False)
on_first_multi_device_layout(_note_multi_device)
