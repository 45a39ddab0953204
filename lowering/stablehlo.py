"""Lowering funcarray's IR to StableHLO text, one equation at a time.

``lower_ir(ir)`` prints a module whose entry function ``@main`` takes the IR's const binders
then its arguments, and returns its outputs. Each Var is one SSA value; each inline literal
becomes a ``stablehlo.constant``; each equation is emitted by its primitive's lowering rule::

    prim.lower_rule(ctx, *operand_names, **params) -> list of result SSA names

``ctx`` (a ``LoweringContext``) carries the equation's ``avals_in``/``avals_out`` and emits
ops: ``ctx.op("stablehlo.add", x, y)`` writes one op in MLIR's generic form (the operand types
are known to the context; the result types default to ``avals_out``) and returns its result
names. Every equation is preceded by a ``//`` comment holding the equation, so errors XLA
reports against a line of the text can name the funcarray equation it came from.

The text is plain MLIR generic form; it needs no MLIR bindings, costs microseconds per op, and
the same text compiles on several jaxlib releases (see ``notes/jaxlib-runtime.md``). This
module does not import jax: primitives import it to attach their rules when funcarray loads.

Generic rule makers for primitive families live here too: ``elementwise_lowering(hlo_op)``
(any ``stablehlo.*``/``chlo.*`` elementwise op, or a comparison direction ``"LT"``...). Rules
of individual primitives live beside the primitive (``@prim.def_lower``) and build on the
helpers here (``LoweringContext.op``, ``compare``, ``i64_array_attribute``).

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray.transforms.staging import make_ir
    >>> print(lower_ir(make_ir(lambda x: fnp.sin(x) * x)(fnp.ones(2))))
    module @main attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
      func.func public @main(%arg0: tensor<2xf32>) -> (tensor<2xf32>) {
        // b:f32[2] = sin a
        %0 = "stablehlo.sine"(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
        // c:f32[2] = mul b a
        %1 = "stablehlo.multiply"(%0, %arg0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
        "func.return"(%1) : (tensor<2xf32>) -> ()
      }
    }
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import numpy as np

from funcarray.transforms.core import MissingRuleError, ShapedArray
from funcarray.transforms.ir import IR, ClosedIR, Lit, _Namer, _param_str, type_str

__all__ = [
    "lower_module",
    "LoweringContext", "LoweringError", "lower_ir", "lower_inline", "mlir_element_type",
    "tensor_type", "elementwise_lowering", "compare", "COMPARISON_DIRECTIONS",
    "i64_array_attribute",
]

COMPARISON_DIRECTIONS = frozenset(("EQ", "NE", "LT", "LE", "GT", "GE"))


class LoweringError(TypeError):
    """A lowering rule produced something inconsistent with the IR it lowers."""


# --------------------------------------------------------------------------------------------
# Types
# --------------------------------------------------------------------------------------------

_BASIC_TYPES = {
    "bool": "i1", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
    "uint8": "ui8", "uint16": "ui16", "uint32": "ui32", "uint64": "ui64",
    "float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64",
    "complex64": "complex<f32>", "complex128": "complex<f64>",
    "int2": "i2", "int4": "i4", "uint2": "ui2", "uint4": "ui4",
}
# ml_dtypes' narrow floats: float8_e4m3fn -> f8E4M3FN, float4_e2m1fn -> f4E2M1FN, ...
# except these, which lowering refuses (see mlir_element_type).
_NO_XLA_SUPPORT = frozenset({"float6_e2m3fn", "float6_e3m2fn"})
_NARROW_FLOAT = re.compile(r"float(\d+)_(e\d+m\d+\w*)")


def mlir_element_type(dtype) -> str:
    """The MLIR element type of a NumPy/ml_dtypes dtype.

    Example:
        >>> import ml_dtypes
        >>> [mlir_element_type(t) for t in ("bool", "uint8", "complex64", ml_dtypes.float8_e5m2)]
        ['i1', 'ui8', 'complex<f32>', 'f8E5M2']
    """
    name = np.dtype(dtype).name
    known = _BASIC_TYPES.get(name)
    if known is not None:
        return known
    if name in _NO_XLA_SUPPORT:
        # Checked here, where every type of a module is spelled, because XLA aborts the
        # whole process on a float6 constant (jaxlib 0.10 and 0.11) and has no float6
        # arithmetic on CPU: a Python error is the only safe outcome.
        from funcarray.base.errors import op_type_error  # (lazily: _errors imports lowering)

        raise op_type_error(
            "jit", f"XLA cannot run {name} values (it has no {name} arithmetic, and its "
                   f"compiler crashes on {name} constants). Convert to a type XLA computes "
                   f"in before the jitted function, e.g. x.astype(funcarray.numpy.float32), "
                   f"or run this part without jit (with eager_backend='numpy' when eager ops "
                   f"run through XLA): NumPy eager kernels compute in {name}.")
    match = _NARROW_FLOAT.fullmatch(name)
    if match:  # an ml_dtypes float (the dtype exists, so ml_dtypes is loaded)
        return f"f{match.group(1)}{match.group(2).upper()}"
    raise TypeError(f"StableHLO lowering has no type for dtype {name}")


def tensor_type(aval) -> str:
    """``tensor<2x3xf32>`` for an aval (anything with ``shape`` and ``dtype``)."""
    return _tensor_types(tuple(aval.shape), aval.dtype)


# (shape, dtype) -> text: dtype.name is slow, and types repeat. A bounded LRU map (a program
# whose shapes keep changing must not grow it forever), functools' (C, ~50 ns a hit: it is
# looked up for every value a module names).
@functools.lru_cache(maxsize=4096)
def _tensor_types(shape: tuple, dtype) -> str:
    dims = "".join(f"{d}x" for d in shape)
    return f"tensor<{dims}{mlir_element_type(dtype)}>"


def _bits_of(value: np.ndarray) -> int:
    """The bit pattern of one float element, as an int."""
    itemsize = value.dtype.itemsize
    raw = int(np.frombuffer(np.ascontiguousarray(value).tobytes(), f"<u{itemsize}")[0])
    width = _bit_width(value.dtype)
    return raw & ((1 << width) - 1)


def _bit_width(dtype) -> int:
    match = _NARROW_FLOAT.fullmatch(np.dtype(dtype).name)
    return int(match.group(1)) if match else np.dtype(dtype).itemsize * 8


def _element_literal(value) -> str:
    """One element in MLIR attribute syntax; floats as exact bit patterns (NaN, inf too)."""
    value = np.asarray(value)
    dtype = value.dtype
    if dtype == np.bool_:
        return "true" if value else "false"
    if dtype.kind == "c":
        part = np.dtype(np.float32 if dtype == np.complex64 else np.float64)
        return f"({_element_literal(value.real.astype(part))}, " \
               f"{_element_literal(value.imag.astype(part))})"
    if dtype.kind in "iu" or np.dtype(dtype).name in ("int2", "int4", "uint2", "uint4"):
        return str(int(value))
    digits = (_bit_width(dtype) + 3) // 4
    return f"0x{_bits_of(value):0{digits}X}"


def dense_attribute(value, aval) -> str:
    """``dense<...> : tensor<...>`` holding ``value`` (a scalar, splat to ``aval``'s shape, or
    an array of that shape)."""
    value = np.ascontiguousarray(value, dtype=aval.dtype)
    flat = value.reshape(-1)
    if flat.size and _same_bits(flat):
        body = _element_literal(flat[0])
    else:
        body = _nested_literal(np.broadcast_to(value, aval.shape))
    return f"dense<{body}> : {tensor_type(aval)}"


def _same_bits(flat: np.ndarray) -> bool:
    raw = flat.view(np.uint8).reshape(flat.size, -1)
    return bool((raw == raw[0]).all())


def _nested_literal(value: np.ndarray) -> str:
    if value.ndim == 0:
        return _element_literal(value)
    return "[" + ", ".join(_nested_literal(v) for v in value) + "]"


# --------------------------------------------------------------------------------------------
# The emitter and the context passed to lowering rules
# --------------------------------------------------------------------------------------------


_TOP_INDENT = "    "  # (the entry function's body; a control-flow region's is deeper)


class _Builder:
    """Accumulates the lines of one function and knows the type of every SSA value."""

    __slots__ = ("lines", "types", "count", "indent", "platform", "host_callbacks",
                 "effect_token", "mesh")

    def __init__(self, indent: str = _TOP_INDENT, platform: str | None = None):
        self.lines: list = []
        self.types: dict = {}  # SSA name -> aval
        self.count = 0
        self.indent = indent
        self.platform = platform  # the PJRT platform compiled for; None: any
        self.host_callbacks: list = []  # Python functions the module calls, by index
        self.effect_token = None  # the token of the entry function's last ordered effect
        self.mesh = None  # the device mesh shardings in the module refer to (``@mesh``)

    def fresh(self, aval) -> str:
        name = f"%{self.count}"
        self.count += 1
        self.types[name] = aval
        return name


@dataclass(frozen=True, slots=True)
class LoweringContext:
    """What a lowering rule receives: the equation's avals and a way to emit ops."""

    avals_in: tuple
    avals_out: tuple
    _builder: _Builder

    @property
    def platform(self) -> str | None:
        """The PJRT platform the module is lowered for (``"cpu"``, ``"cuda"``...), or None
        for a backend-neutral module. Rules may ask ``lowering/runtime/`` for a native
        kernel of that platform (``runtime.native_linalg``) and must otherwise emit
        portable StableHLO."""
        return self._builder.platform

    def add_host_callback(self, fn) -> int:
        """Register a Python function the compiled module calls back (``debug.print``,
        ``pure_callback``); returns its index, the custom call's ``backend_config``. The
        module is compiled with the list (``lower_module``)."""
        callbacks = self._builder.host_callbacks
        callbacks.append(fn)
        return len(callbacks) - 1

    def effect_token(self) -> str | None:
        """The ``!stablehlo.token`` of the last ordered effect (``io_callback(ordered=True)``)
        in the entry function, made by ``stablehlo.create_token`` for the first one: an op
        that takes it and returns the next (``set_effect_token``) runs after that effect.
        None inside a control-flow region, which cannot use a value of the function around
        it that way."""
        builder = self._builder
        if builder.indent != _TOP_INDENT:
            return None
        if builder.effect_token is None:
            builder.effect_token = self.fresh(None)
            self.emit(f'{builder.effect_token} = "stablehlo.create_token"() : () -> '
                      f'!stablehlo.token')
        return builder.effect_token

    def set_effect_token(self, token: str) -> None:
        """Record ``token`` as the last ordered effect's (see ``effect_token``)."""
        self._builder.effect_token = token

    def sharding_attribute(self, sharding, ndim: int) -> str:
        """The Shardy attribute (``#sdy.sharding<@mesh, ...>``) of funcarray NamedSharding
        ``sharding`` for a value of rank ``ndim``; the module declares its mesh as ``@mesh``
        (a module partitions over one mesh: another one raises a ValueError)."""
        use_mesh(self._builder, sharding.mesh)
        return sharding_attribute(sharding, ndim)

    def emit(self, line: str) -> None:
        """Write one raw line of MLIR into the function body."""
        self._builder.lines.append(self._builder.indent + line)

    def fresh(self, aval) -> str:
        """A new SSA name for a value of type ``aval`` (for rules that write raw lines)."""
        return self._builder.fresh(aval)

    def type_of(self, value: str):
        """The aval of an SSA value."""
        return self._builder.types[value]

    def op(self, name: str, *operands: str, results=None, attributes=None) -> list:
        """Emit ``name`` (generic form) on ``operands``; returns the result names.

        ``results`` are the result avals (default: the equation's ``avals_out``);
        ``attributes`` maps attribute names to their MLIR text.
        """
        results = self.avals_out if results is None else tuple(results)
        names = [self.fresh(aval) for aval in results]
        in_types = ", ".join(tensor_type(self.type_of(x)) for x in operands)
        out_types = ", ".join(tensor_type(aval) for aval in results)
        if len(results) != 1:
            out_types = f"({out_types})"
        attrs = ""
        if attributes:
            attrs = " {" + ", ".join(f"{k} = {v}" for k, v in attributes.items()) + "}"
        lhs = f"{', '.join(names)} = " if names else ""
        self.emit(f'{lhs}"{name}"({", ".join(operands)}){attrs} : ({in_types}) -> {out_types}')
        return names

    def constant(self, value, aval) -> str:
        """A ``stablehlo.constant`` of type ``aval`` holding ``value`` (splat if scalar)."""
        aval = ShapedArray(tuple(aval.shape), np.dtype(aval.dtype))
        return self.op("stablehlo.constant", results=[aval],
                       attributes={"value": dense_attribute(value, aval)})[0]


# --------------------------------------------------------------------------------------------
# Lowering an IR
# --------------------------------------------------------------------------------------------


def _symbol(name: str) -> str:
    cleaned = re.sub(r"[^A-Za-z0-9_]", "_", name) or "main"
    return cleaned if not cleaned[0].isdigit() else f"_{cleaned}"


# aval -> "f32[3]", bounded as ``_tensor_types``
_type_strs = functools.lru_cache(maxsize=4096)(type_str)


def _eqn_comment(eqn, namer: _Namer, limit: int = 160) -> str:
    """The equation as ``str(ir)`` prints it (nested IRs elided), on one line."""
    lhs = " ".join(f"{namer.name(v)}:{_type_strs(v.aval)}" for v in eqn.outs)
    args = " ".join(f"{np.asarray(x.value)}:{_type_strs(x.aval)}" if isinstance(x, Lit)
                    else namer.name(x) for x in eqn.inputs)
    params = " ".join(f"{k}={_param_text(eqn.params[k])}" for k in sorted(eqn.params))
    text = f"{lhs} = {eqn.prim.name}" + (f"[ {params} ]" if params else "") + (
        f" {args}" if args else "")
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _param_text(value) -> str:
    nested = (IR, ClosedIR)
    if isinstance(value, nested) or (
            isinstance(value, tuple) and any(isinstance(v, nested) for v in value)):
        return "{ ... }"
    return " ".join(_param_str(value).split())


def lower_ir(ir: IR | ClosedIR, *, name: str = "main", donated: tuple = (),
             platform: str | None = None) -> str:
    """StableHLO text (MLIR generic form) for ``ir``: ``lower_module``'s text."""
    return lower_module(ir, name=name, donated=donated, platform=platform)[0]


def lower_module(ir: IR | ClosedIR, *, name: str = "main", donated: tuple = (),
                 platform: str | None = None, shardings=None) -> tuple:
    """``(text, host_callbacks, mesh)``: StableHLO text (MLIR generic form) for ``ir``, the
    Python functions its host-callback custom calls index (compile with them), and the
    funcarray ``Mesh`` it is partitioned over (None: a single-device module); ``name`` names
    the module.

    ``ir`` is an IR, a ClosedIR or what ``make_ir`` returns (a StagedIR). ``donated`` lists
    parameters (positions among const binders then arguments) whose buffers the caller gives
    up: they are marked ``jax.buffer_donor``, so XLA may write an output into them.
    ``shardings`` is None or ``(in_shardings, out_shardings)``: a funcarray NamedSharding or
    None (the partitioner chooses) for each parameter and each result, written as Shardy
    ``sdy.sharding`` attributes on ``@main``. A module with shardings (those or a sharding
    constraint inside) declares their mesh (``sdy.mesh @mesh``) and as many partitions as it
    has devices.

    The entry function is always ``@main`` (XLA requires it); its parameters are the const
    binders then the arguments. Raises the primitive's ``MissingRuleError`` (with the
    equation) when a primitive has no lowering rule, and ``LoweringError`` when a rule returns
    results that do not match the equation's outputs. ``platform`` (``"cpu"``, ``"cuda"``...)
    lets rules use that platform's native kernels (LAPACK factorisations on CPU); None lowers
    backend-neutrally.
    """
    ir = getattr(ir, "closed", ir)  # a StagedIR
    if isinstance(ir, ClosedIR):
        ir = ir.ir
    builder = _Builder(platform=platform)
    in_shardings, out_shardings = shardings or ((), ())
    params = []
    arg_names = []
    for k, var in enumerate((*ir.const_binders, *ir.in_binders)):
        arg_names.append(f"%arg{k}")
        builder.types[arg_names[-1]] = var.aval
        attrs = ["jax.buffer_donor = true"] if k in donated else []
        sharding = in_shardings[k] if in_shardings else None
        if sharding is not None:
            use_mesh(builder, sharding.mesh)
            attrs.append(f"sdy.sharding = {sharding_attribute(sharding, var.aval.ndim)}")
        attr_text = f" {{{', '.join(attrs)}}}" if attrs else ""
        params.append(f"%arg{k}: {tensor_type(var.aval)}{attr_text}")
    top = LoweringContext((), (), builder)
    results = _lower_body(top, ir, arg_names)
    out_types = ", ".join(tensor_type(x.aval) for x in ir.outs)
    top.emit(f'"func.return"({", ".join(results)}) : ({out_types}) -> ()')
    result_types = []
    for k, x in enumerate(ir.outs):
        sharding = out_shardings[k] if out_shardings else None
        if sharding is None:
            result_types.append(tensor_type(x.aval))
        else:
            use_mesh(builder, sharding.mesh)
            result_types.append(f"{tensor_type(x.aval)} {{sdy.sharding = "
                                f"{sharding_attribute(sharding, x.aval.ndim)}}}")
    body = "\n".join(builder.lines)
    mesh = builder.mesh
    partitions, mesh_line = 1, ""
    if mesh is not None:
        partitions = mesh.size
        axes = ", ".join(f'"{n}"={size}' for n, size in mesh.shape_tuple)
        mesh_line = f"  sdy.mesh @mesh = <[{axes}]>\n"
    text = (f"module @{_symbol(name)} attributes {{mhlo.num_partitions = {partitions} : i32, "
            f"mhlo.num_replicas = 1 : i32}} {{\n{mesh_line}"
            f"  func.func public @main({', '.join(params)}) -> ({', '.join(result_types)}) {{\n"
            f"{body}\n  }}\n}}")
    return text, tuple(builder.host_callbacks), mesh


def use_mesh(builder: _Builder, mesh) -> None:
    """Record ``mesh`` as the one the module's shardings refer to (``@mesh``). Meshes that
    differ only in their axis types are the same layout; any other second mesh is an error,
    because XLA partitions a module over one device assignment."""
    if builder.mesh is None:
        builder.mesh = mesh
        return
    seen = builder.mesh
    if (seen.flat_devices, seen.shape_tuple) != (mesh.flat_devices, mesh.shape_tuple):
        raise ValueError(f"a jitted computation is partitioned over one mesh, but its "
                         f"shardings use two: {seen} over devices "
                         f"{[d.id for d in seen.flat_devices]} and {mesh} over devices "
                         f"{[d.id for d in mesh.flat_devices]}")


def sharding_attribute(sharding, ndim: int) -> str:
    """``#sdy.sharding<@mesh, [{"a"}, {}, {?}, ...]>`` for a value of rank ``ndim`` laid out
    as funcarray NamedSharding ``sharding``: a dimension is closed (only the named axes split
    it, as JAX writes it) unless its entry is ``P.UNCONSTRAINED``, which is open (``{?}``:
    the partitioner chooses). The shape was checked against the sharding before lowering."""
    spec = sharding.spec
    if len(spec) > ndim:
        raise ValueError(f"Sharding {sharding!r} is only valid for values of rank at least "
                         f"{len(spec)}, but was applied to a value of rank {ndim}.")
    open_dims = spec.unconstrained_dims()
    dims = []
    for k in range(ndim):
        dims.append("{?}" if k in open_dims else
                    "{" + ", ".join(f'"{a}"' for a in spec.axes_of(k)) + "}")
    return f"#sdy.sharding<@mesh, [{', '.join(dims)}]>"


def lower_inline(ctx: LoweringContext, closed: IR | ClosedIR, *operands: str) -> list:
    """Emit the equations of a nested IR in place; returns the SSA names of its outputs.

    For the lowering rules of higher-order primitives (jit, custom_jvp, checkpoint...) whose
    params hold an IR: ``operands`` are the SSA names of the IR's inputs (after its const
    binders, whose values a ClosedIR carries and which become ``stablehlo.constant`` s;
    with a bare IR, ``operands`` cover const binders then inputs).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.transforms.staging import make_ir
        >>> inner = make_ir(fnp.cos)(fnp.zeros(2)).closed
        >>> class Call:  # a toy higher-order primitive: its rule inlines its IR
        ...     name = "call"
        ...     lower_rule = staticmethod(lambda ctx, x, *, ir: lower_inline(ctx, ir, x))
        >>> from funcarray.transforms.ir import IR, Eqn, Var
        >>> x, y = Var(inner.in_avals[0]), Var(inner.out_avals[0])
        >>> outer = IR((), (x,), (Eqn(Call, (x,), {"ir": inner}, (y,)),), (y,))
        >>> "stablehlo.cosine" in lower_ir(outer)
        True
    """
    if isinstance(closed, ClosedIR):
        consts = [ctx.constant(np.asarray(getattr(c, "_value", c)), v.aval)
                  for c, v in zip(closed.consts, closed.ir.const_binders)]
        ir, operands = closed.ir, (*consts, *operands)
    else:
        ir = closed
    expected = len(ir.const_binders) + len(ir.in_binders)
    if len(operands) != expected:
        raise LoweringError(f"lower_inline: the IR takes {expected} operands, got "
                            f"{len(operands)}")
    return _lower_body(ctx, ir, list(operands))


def _lower_body(top: LoweringContext, ir: IR, arg_names: list) -> list:
    """Emit ``ir``'s equations with its binders bound to ``arg_names``; returns its outputs."""
    builder = top._builder
    namer = _Namer()
    for var in (*ir.const_binders, *ir.in_binders):
        namer.name(var)  # the order str(ir) names them in, so comments agree with it
    env = dict(zip((*ir.const_binders, *ir.in_binders), arg_names))

    def read(atom):
        if isinstance(atom, Lit):
            return top.constant(np.asarray(atom.value), atom.aval)
        return env[atom]

    for eqn in ir.eqns:
        text = _eqn_comment(eqn, namer)
        top.emit(f"// {text}")
        ctx = LoweringContext(tuple(x.aval for x in eqn.inputs),
                              tuple(v.aval for v in eqn.outs), builder)
        operands = [read(x) for x in eqn.inputs]
        try:
            outs = eqn.prim.lower_rule(ctx, *operands, **eqn.params)
        except MissingRuleError as exc:
            raise MissingRuleError(f"{exc}\nWhile lowering the equation: {text}") from None
        _check_rule_results(eqn, text, outs, builder)
        env.update(zip(eqn.outs, outs))
    return [read(x) for x in ir.outs]


def _check_rule_results(eqn, text: str, outs, builder: _Builder) -> None:
    if not isinstance(outs, (list, tuple)) or len(outs) != len(eqn.outs):
        raise LoweringError(f"The lowering rule of '{eqn.prim.name}' must return a list of "
                            f"{len(eqn.outs)} SSA names, got {outs!r}\nEquation: {text}")
    for k, (name, var) in enumerate(zip(outs, eqn.outs)):
        got = builder.types.get(name)
        if got is None or tuple(got.shape) != var.aval.shape or got.dtype != var.aval.dtype:
            got_str = "an unknown value" if got is None else type_str(got)
            raise LoweringError(f"The lowering rule of '{eqn.prim.name}' returned {got_str} "
                                f"for output {k}, the equation declares "
                                f"{type_str(var.aval)}\nEquation: {text}")


# --------------------------------------------------------------------------------------------
# Generic rule makers and the rules of a few shape/conversion primitives
# --------------------------------------------------------------------------------------------


def _compare_type(element_type: str) -> str:
    if element_type.startswith(("f", "bf", "complex")):
        return "FLOAT"
    if element_type.startswith("ui") or element_type == "i1":
        return "UNSIGNED"
    return "SIGNED"


def compare(ctx: LoweringContext, x: str, y: str, direction: str) -> str:
    """Emit ``stablehlo.compare`` (IEEE for floats, signed/unsigned for integers)."""
    aval = ctx.type_of(x)
    ctype = _compare_type(mlir_element_type(aval.dtype))
    out = ShapedArray(tuple(aval.shape), np.dtype(np.bool_))
    return ctx.op("stablehlo.compare", x, y, results=[out], attributes={
        "comparison_direction": f"#stablehlo<comparison_direction {direction}>",
        "compare_type": f"#stablehlo<comparison_type {ctype}>"})[0]


# The unary ops XLA's CPU computes through its exp polynomial for float32 and narrower reals.
# The polynomial scales by ``2**n`` through an ``fptosi``, which LLVM folds to poison for a NaN
# *constant*: such an op that a NaN constant reaches in a fusion (``exp(where(p, x, nan))``,
# ``exp(x * nan)``) stores garbage, not NaN (XLA's defect; docs/decisions.md).
EXP_POLYNOMIAL_OPS = frozenset({"stablehlo.exponential", "stablehlo.exponential_minus_one",
                                "stablehlo.logistic", "chlo.cosh"})


def nan_passing(ctx: LoweringContext, hlo_op: str, x: str) -> str:
    """Emit the unary ``hlo_op`` of ``x``; for an op of ``EXP_POLYNOMIAL_OPS`` on a real
    float32-or-narrower operand, ``x``'s NaNs are selected past it (``select(x != x, x,
    op(x))``: the same values, and no constant NaN reaches the exp polynomial's result).
    A float64 operand takes the op alone (XLA's float64 exp handles NaN); complex exp selects
    a NaN real part in its own lowering (funcarray.primitives.elementwise).

    Example:
        >>> import numpy as np, funcarray as fa, funcarray.numpy as fnp
        >>> fa.jit(lambda x, s: fnp.exp(fnp.where(s > 0, x, np.nan)))(fnp.zeros(2), 0.0)
        Array([nan, nan], dtype=float32)
    """
    aval = ctx.type_of(x)
    out = ctx.op(hlo_op, x, results=[aval])[0]
    element = mlir_element_type(aval.dtype)
    if hlo_op not in EXP_POLYNOMIAL_OPS or not element.startswith(("f", "bf")) or (
            element == "f64"):
        return out
    return ctx.op("stablehlo.select", compare(ctx, x, x, "NE"), x, out, results=[aval])[0]


def elementwise_lowering(hlo_op: str):
    """The lowering rule of an elementwise primitive: one ``hlo_op`` on its operands.

    ``hlo_op`` is a ``stablehlo.*`` or ``chlo.*`` op name, or a comparison direction
    (``"EQ"``, ``"LT"``, ...) for ``stablehlo.compare``.
    """
    if hlo_op in COMPARISON_DIRECTIONS:
        def lower_comparison(ctx, x, y):
            return [compare(ctx, x, y, hlo_op)]

        return lower_comparison
    if not hlo_op.startswith(("stablehlo.", "chlo.")):
        raise ValueError(f"elementwise_lowering: {hlo_op!r} is neither a stablehlo/chlo op "
                         f"name nor a comparison direction {sorted(COMPARISON_DIRECTIONS)}")

    def lower_elementwise(ctx, *operands):
        if hlo_op in EXP_POLYNOMIAL_OPS:
            return [nan_passing(ctx, hlo_op, *operands)]
        return ctx.op(hlo_op, *operands)

    lower_elementwise.__qualname__ = f"lower_elementwise[{hlo_op}]"
    return lower_elementwise


def i64_array_attribute(values) -> str:
    """``array<i64: 1, 2>``: the form of StableHLO's dimension-list attributes."""
    return "array<i64" + (": " + ", ".join(str(int(v)) for v in values) if values else "") + ">"


