"""funcarray's typed intermediate representation (IR): a small, immutable ANF language.

Staging (``transforms/staging.py``) turns a Python function into an ``IR``; every later pass
(dead-code elimination, partial evaluation, transposition, lowering to StableHLO) is a plain
loop over its equations. This module knows no particular primitive: it only calls a
primitive's ``abstract_eval`` (to typecheck) and ``bind`` (to evaluate).

The pieces:

* ``Var(aval)`` -- a variable, defined exactly once. Vars hash by identity and carry no name:
  names (``a``, ``b``, ..., ``z``, ``ba``, ``bb``, ...) are given at print time, in order of
  appearance, so printing is deterministic.
* ``Lit(value, aval)`` -- an inline scalar constant. ``value`` is an object that ``bind``
  accepts (a 0-d funcarray ``Array`` made by staging), so ``eval_ir`` passes it on unchanged;
  this module only reads it through ``np.asarray`` to print it.
* ``Eqn(prim, inputs, params, outs)`` -- ``outs = prim(*inputs, **params)``; inputs are Vars or
  Lits, outs are Vars (a list of them for ``multiple_results`` primitives).
* ``IR(const_binders, in_binders, eqns, outs)`` -- a function. ``const_binders`` are the
  closed-over values (constants and tracers of outer transforms, JAX's closure conversion);
  they come first when the IR is evaluated. ``outs`` are Vars or Lits.
* ``ClosedIR(ir, consts)`` -- an IR together with the values of its const binders.

Each class also answers to the attribute names of its JAX counterpart (``Var``, ``Literal``,
``JaxprEqn``, ``Jaxpr``, ``ClosedJaxpr``), so code written to walk a jaxpr walks an IR
unchanged: ``eqn.primitive``, ``eqn.invars``, ``eqn.outvars``, ``eqn.params``, ``lit.val``,
``ir.invars``, ``ir.outvars``, ``ir.constvars``, ``ir.effects``, ``closed.jaxpr``,
``closed.literals``. IRs nested in params keep funcarray's param names (``ir`` of jit,
``body`` of scan, ``cond_ir``/``body_ir`` of while; ``branches`` of cond as in JAX).

All four are frozen dataclasses; ``Eqn.params`` is a dict that passes must not mutate (build a
new Eqn instead). IR and ClosedIR hash by identity, so they can be static parameters of
higher-order primitives (jit, cond, scan).

Printing convention (``str(ir)``)::

    { lambda a:f32[3] ; b:f32[3] c:f32[]{weak}. let
        d:f32[3] = sin b
        e:f32[3] = mul d a
        f:f32[3] = broadcast_in_dim[ broadcast_dimensions=() shape=(3,) ] 2.0:f32[]
      in (e, f) }

Const binders come before ``;``, arguments after it. Types are short, as in a jaxpr
(``ShapedArray.str_short(short_dtypes=True)``); a weak type (a value that came from a Python
scalar) is marked ``{weak}``. Literals print as ``value:type``. Params are sorted by name
inside ``[ ]``; a param holding an IR (jit, cond, scan) is printed as a nested, indented
block with its own names, one param per line.

Example:
    >>> import numpy as np
    >>> from funcarray.transforms.core import Primitive, ShapedArray
    >>> neg_p = Primitive("neg")
    >>> neg_p.abstract_eval = lambda x: x
    >>> f32 = ShapedArray((3,), np.float32)
    >>> x, y = Var(f32), Var(f32)
    >>> ir = IR((), (x,), (Eqn(neg_p, (x,), {}, (y,)),), (y,))
    >>> print(ir)
    { lambda ; a:f32[3]. let
        b:f32[3] = neg a
      in (b) }
    >>> typecheck(ir)
    [ShapedArray(float32[3])]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from funcarray.transforms.core import Primitive, ShapedArray

__all__ = [
    "Var", "Lit", "Eqn", "IR", "ClosedIR", "Atom",
    "typecheck", "eval_ir", "dce", "pp_ir", "pp_eqn", "type_str",
]


# --------------------------------------------------------------------------------------------
# The data structures
# --------------------------------------------------------------------------------------------


class _Immutable:
    """Base of ``Var`` and ``Eqn``: slots set once in ``__init__``, then read-only.

    Not frozen dataclasses: those are made once per staged primitive (every operation of an
    eager grad), and a frozen dataclass's ``__init__`` (``object.__setattr__`` per field)
    costs ~1.3 us an equation; setting the slots through their descriptors costs ~0.7 us.
    Equality and hashing are by identity.
    """

    __slots__ = ()

    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self).__name__} is immutable: cannot set {name!r}")

    __delattr__ = __setattr__


class Var(_Immutable):
    """A variable of the IR: an abstract value with an identity (and no name until printed)."""

    __slots__ = ("aval",)

    def __init__(self, aval: ShapedArray):
        _set_var_aval(self, aval)

    def __repr__(self):
        return f"Var({type_str(self.aval)})"


_set_var_aval = Var.aval.__set__


@dataclass(frozen=True, eq=False, slots=True)
class Lit:
    """An inline scalar constant. ``value`` is what ``bind`` receives (a 0-d funcarray Array)."""

    value: object
    aval: ShapedArray

    @property
    def val(self):
        """JAX's name (``Literal.val``): the literal's value."""
        return self.value

    def __repr__(self):
        return f"Lit({_literal_str(self)})"


Atom = Var | Lit


class Eqn(_Immutable):
    """One equation ``outs = prim(*inputs, **params)``. ``params`` must not be mutated."""

    __slots__ = ("prim", "inputs", "params", "outs")

    def __init__(self, prim: Primitive, inputs: tuple, params: dict, outs: tuple):
        _set_prim(self, prim)
        _set_inputs(self, inputs)
        _set_params(self, params)
        _set_outs(self, outs)

    # JAX's names (``JaxprEqn``), for code that walks a jaxpr.
    primitive = property(lambda self: self.prim)
    invars = property(lambda self: list(self.inputs))
    outvars = property(lambda self: list(self.outs))

    @property
    def effects(self) -> frozenset:
        """The names of the side-effecting primitives this equation runs (nested IRs too)."""
        own = {self.prim.name} if _has_side_effects(self.prim) else set()
        return frozenset(own.union(*(ir.effects for _, ir in _nested_irs(self.params))))

    def __str__(self):
        return pp_eqn(self, _Namer())

    __repr__ = __str__


_set_prim, _set_inputs, _set_params, _set_outs = (
    Eqn.prim.__set__, Eqn.inputs.__set__, Eqn.params.__set__, Eqn.outs.__set__)


@dataclass(frozen=True, eq=False, slots=True)
class IR:
    """A function in ANF: binders, a list of equations, and the outputs.

    Evaluation takes the const binders' values first, then the arguments
    (``eval_ir(ir, consts, args)``).
    """

    const_binders: tuple
    in_binders: tuple
    eqns: tuple
    outs: tuple

    @property
    def in_avals(self) -> list:
        return [v.aval for v in self.in_binders]

    @property
    def out_avals(self) -> list:
        return [x.aval for x in self.outs]

    # JAX's names (``Jaxpr``), for code that walks a jaxpr.
    invars = property(lambda self: list(self.in_binders))
    outvars = property(lambda self: list(self.outs))
    constvars = property(lambda self: list(self.const_binders))

    @property
    def effects(self) -> frozenset:
        """The names of the side-effecting primitives the IR runs (nested IRs included)."""
        return frozenset().union(*(eqn.effects for eqn in self.eqns))

    def __str__(self):
        return pp_ir(self)

    __repr__ = __str__


@dataclass(frozen=True, eq=False, slots=True)
class ClosedIR:
    """An IR with the values of its const binders: a self-contained function of its arguments.

    ``consts`` may hold concrete Arrays or tracers of an enclosing transform (closure
    conversion); calling it evaluates with ``bind``, so it can be traced again.
    """

    ir: IR
    consts: tuple

    @property
    def in_avals(self) -> list:
        return self.ir.in_avals

    @property
    def out_avals(self) -> list:
        return self.ir.out_avals

    # JAX's names (``ClosedJaxpr``), for code that walks a jaxpr.
    jaxpr = property(lambda self: self.ir)
    literals = property(lambda self: list(self.consts))
    eqns = property(lambda self: self.ir.eqns)
    invars = property(lambda self: self.ir.invars)
    outvars = property(lambda self: self.ir.outvars)
    constvars = property(lambda self: self.ir.constvars)
    effects = property(lambda self: self.ir.effects)

    def __call__(self, *args) -> list:
        """Evaluate on flat arguments; returns the list of outputs."""
        return eval_ir(self.ir, self.consts, args)

    def __str__(self):
        return pp_ir(self.ir)

    __repr__ = __str__


# --------------------------------------------------------------------------------------------
# Typechecking
# --------------------------------------------------------------------------------------------


def _out_avals_of(prim: Primitive, in_avals, params) -> list:
    out = prim.abstract_eval(*in_avals, **params)
    return list(out) if prim.multiple_results else [out]


def typecheck(ir: IR | ClosedIR) -> list:
    """Check that ``ir`` is well formed and well typed; return its output avals.

    Every Var is defined once, before use; every equation's outputs have exactly the avals
    (shape, dtype, weak_type) that ``prim.abstract_eval`` gives for its inputs. For a
    ClosedIR the consts must match the const binders; IRs nested in params (jit, cond) are
    checked too. Raises a TypeError that prints the
    offending equation (with the names ``str(ir)`` uses) and the mismatch.

    Example:
        >>> import numpy as np
        >>> from funcarray.transforms.core import Primitive, ShapedArray
        >>> id_p = Primitive("id")
        >>> id_p.abstract_eval = lambda x: x
        >>> x, y = Var(ShapedArray((2,), np.float32)), Var(ShapedArray((3,), np.float32))
        >>> typecheck(IR((), (x,), (Eqn(id_p, (x,), {}, (y,)),), (y,)))
        Traceback (most recent call last):
          ...
        TypeError: IR typecheck failed at equation 0:
            b:f32[3] = id a
        output 0 is declared f32[3] but id gives f32[2] for inputs (f32[2])
    """
    if isinstance(ir, ClosedIR):
        _check_consts(ir)
        ir = ir.ir
    namer = _Namer()
    try:
        # Name everything in print order first, so error messages agree with str(ir).
        pp_ir(ir, namer)
    except Exception:  # too malformed to print: the checks below say what is wrong
        pass
    defined: set = set()

    def fail(where: str, problem: str):
        raise TypeError(f"IR typecheck failed {where}:\n{problem}")

    for binder in (*ir.const_binders, *ir.in_binders):
        if not isinstance(binder, Var):
            fail("at the binders", f"binder {binder!r} is not a Var")
        if binder in defined:
            fail("at the binders", f"variable {namer.name(binder)} is bound twice")
        defined.add(binder)

    for i, eqn in enumerate(ir.eqns):
        def eqn_fail(problem, i=i, eqn=eqn):
            fail(f"at equation {i}", f"    {pp_eqn(eqn, namer)}\n{problem}")

        for x in eqn.inputs:
            _check_atom(x, defined, namer, eqn_fail)
        for key, nested in _nested_irs(eqn.params):
            try:
                typecheck(nested)
            except TypeError as exc:
                eqn_fail(f"in the IR of param '{key}': {exc}")
        in_avals = [x.aval for x in eqn.inputs]
        try:
            out_avals = _out_avals_of(eqn.prim, in_avals, eqn.params)
        except (TypeError, ValueError) as exc:
            eqn_fail(f"{eqn.prim.name} rejects its inputs: {exc}")
        if len(out_avals) != len(eqn.outs):
            eqn_fail(f"{eqn.prim.name} gives {len(out_avals)} outputs, the equation binds "
                     f"{len(eqn.outs)}")
        for k, (out, expected) in enumerate(zip(eqn.outs, out_avals)):
            if not isinstance(out, Var):
                eqn_fail(f"output {k} ({out!r}) is not a Var")
            if out in defined:
                eqn_fail(f"output {k} ({namer.name(out)}) is already defined")
            if out.aval != expected:
                ins = ", ".join(type_str(a) for a in in_avals)
                eqn_fail(f"output {k} is declared {type_str(out.aval)} but {eqn.prim.name} "
                         f"gives {type_str(expected)} for inputs ({ins})")
            defined.add(out)

    for x in ir.outs:
        _check_atom(x, defined, namer, lambda problem: fail("at the outputs", problem))
    return ir.out_avals


def _nested_irs(params):
    for key, value in params.items():
        for item in value if isinstance(value, tuple) else (value,):
            if isinstance(item, (IR, ClosedIR)):
                yield key, item


def _check_atom(x, defined, namer, fail):
    if isinstance(x, Lit):
        value_aval = getattr(x.value, "aval", None)
        if value_aval is not None and value_aval != x.aval:
            fail(f"literal {_literal_str(x)} holds a value of type {type_str(value_aval)}")
    elif not isinstance(x, Var):
        fail(f"{x!r} is neither a Var nor a Lit")
    elif x not in defined:
        fail(f"variable {namer.name(x)}:{type_str(x.aval)} is used before it is defined")


def _check_consts(closed: ClosedIR):
    binders = closed.ir.const_binders
    if len(binders) != len(closed.consts):
        raise TypeError(f"IR typecheck failed: {len(binders)} const binders but "
                        f"{len(closed.consts)} consts")
    for k, (var, const) in enumerate(zip(binders, closed.consts)):
        aval = getattr(const, "aval", None)
        if aval is not None and aval != var.aval:
            raise TypeError(f"IR typecheck failed: const {k} has type {type_str(aval)}, "
                            f"its binder {type_str(var.aval)}")


# --------------------------------------------------------------------------------------------
# Evaluation
# --------------------------------------------------------------------------------------------


def eval_ir(ir: IR, consts, args) -> list:
    """Evaluate ``ir`` on ``consts`` and ``args`` by binding each equation's primitive.

    Because every equation goes through ``bind``, evaluating IR under a transform transforms
    it (this is how a jit nested in a grad nested in a jit composes). Returns the list of
    outputs; literals are returned as their ``value``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.transforms.staging import make_ir
        >>> staged = make_ir(lambda x: x * 2.0)(fnp.ones(2))
        >>> eval_ir(staged.ir, staged.consts, [fnp.arange(2.0)])
        [Array([0., 2.], dtype=float32)]
    """
    n_consts, n_args = len(ir.const_binders), len(ir.in_binders)
    if len(consts) != n_consts or len(args) != n_args:
        raise TypeError(f"eval_ir: this IR takes {n_consts} consts and {n_args} arguments, "
                        f"got {len(consts)} consts and {len(args)} arguments")
    env = dict(zip(ir.const_binders, consts))
    env.update(zip(ir.in_binders, args))

    def read(x):
        return x.value if type(x) is Lit else env[x]

    for eqn in ir.eqns:
        out = eqn.prim.bind(*map(read, eqn.inputs), **eqn.params)
        if eqn.prim.multiple_results:
            env.update(zip(eqn.outs, out))
        else:
            env[eqn.outs[0]] = out
    return [read(x) for x in ir.outs]


# --------------------------------------------------------------------------------------------
# Dead-code elimination
# --------------------------------------------------------------------------------------------


def _has_side_effects(prim) -> bool:
    # Hook for effectful primitives (debug printing, callbacks): never dropped.
    return getattr(prim, "has_side_effects", False)


def dce(ir: IR | ClosedIR) -> IR | ClosedIR:
    """Drop the equations whose outputs are never used (and, for a ClosedIR, unused consts).

    The signature is unchanged: all argument binders and outputs stay. Equations of primitives
    with ``has_side_effects = True`` are always kept. Nested IRs in params are left alone
    (their primitives' own rules may simplify them).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray.transforms.staging import make_ir
        >>> def f(x):
        ...     unused = fnp.cos(x)
        ...     return fnp.sin(x)
        >>> print(dce(make_ir(f)(fnp.ones(2)).closed))
        { lambda ; a:f32[2]. let
            b:f32[2] = sin a
          in (b) }
    """
    if isinstance(ir, ClosedIR):
        pruned = dce(ir.ir)
        used = {v for eqn in pruned.eqns for v in eqn.inputs} | set(pruned.outs)
        keep = [k for k, v in enumerate(pruned.const_binders) if v in used]
        new_ir = IR(tuple(pruned.const_binders[k] for k in keep), pruned.in_binders,
                    pruned.eqns, pruned.outs)
        return ClosedIR(new_ir, tuple(ir.consts[k] for k in keep))
    live = {x for x in ir.outs if isinstance(x, Var)}
    kept = []
    for eqn in reversed(ir.eqns):
        if _has_side_effects(eqn.prim) or any(v in live for v in eqn.outs):
            kept.append(eqn)
            live.update(x for x in eqn.inputs if isinstance(x, Var))
    kept.reverse()
    return IR(ir.const_binders, ir.in_binders, tuple(kept), ir.outs)


# --------------------------------------------------------------------------------------------
# Printing
# --------------------------------------------------------------------------------------------


def type_str(aval: ShapedArray) -> str:
    """``f32[3,4]``; weak types (from Python scalars) are marked ``f32[]{weak}``."""
    return aval.str_short(short_dtypes=True) + ("{weak}" if aval.weak_type else "")


def _literal_str(lit: Lit) -> str:
    try:
        text = str(np.asarray(lit.value))
    except Exception:  # a value that cannot be read (should not happen): show its type
        text = type(lit.value).__name__
    return f"{text}:{type_str(lit.aval)}"


class _Namer:
    """Gives Vars the names a, b, ..., z, ba, bb, ... in order of first appearance."""

    __slots__ = ("names",)

    def __init__(self):
        self.names: dict = {}

    def name(self, var: Var) -> str:
        name = self.names.get(var)
        if name is None:
            name = self.names[var] = _letters(len(self.names))
        return name


def _letters(n: int) -> str:
    # Base 26 with a = 0, as JAX does: ..., y, z, ba, bb, ...
    out = ""
    while True:
        n, digit = divmod(n, 26)
        out = chr(ord("a") + digit) + out
        if not n:
            return out


def _atom_str(x, namer: _Namer) -> str:
    return _literal_str(x) if isinstance(x, Lit) else namer.name(x)


def _binder_str(v: Var, namer: _Namer) -> str:
    return f"{namer.name(v)}:{type_str(v.aval)}"


def _param_str(value) -> str:
    if isinstance(value, (IR, ClosedIR)):
        return pp_ir(value.ir if isinstance(value, ClosedIR) else value)
    if isinstance(value, tuple) and any(isinstance(v, (IR, ClosedIR)) for v in value):
        return "(\n" + "".join(_indent(_param_str(v), 2) + "\n" for v in value) + ")"
    if isinstance(value, str):
        return value
    if isinstance(value, (np.dtype, Primitive)):
        return getattr(value, "name", str(value))
    if isinstance(value, type) and issubclass(value, np.generic):
        return np.dtype(value).name
    if callable(value) and hasattr(value, "__name__"):
        return value.__name__
    return repr(value)


def _indent(text: str, n: int) -> str:
    pad = " " * n
    return "\n".join(pad + line if line else line for line in text.split("\n"))


def pp_eqn(eqn: Eqn, namer: _Namer) -> str:
    """One equation as text, naming its Vars with ``namer`` (multi-line for nested IRs)."""
    lhs = " ".join(_binder_str(v, namer) for v in eqn.outs)
    args = " ".join(_atom_str(x, namer) for x in eqn.inputs)
    params = [(k, _param_str(eqn.params[k])) for k in sorted(eqn.params)]
    if not params:
        rhs = eqn.prim.name
    elif any("\n" in text for _, text in params):
        lines = "".join(_indent(f"{k}={text}", 2) + "\n" for k, text in params)
        rhs = f"{eqn.prim.name}[\n{lines}]"
    else:
        rhs = f"{eqn.prim.name}[ " + " ".join(f"{k}={text}" for k, text in params) + " ]"
    return f"{lhs} = {rhs}" + (f" {args}" if args else "")


def pp_ir(ir: IR, namer: _Namer | None = None) -> str:
    """The text form of ``ir`` (see the module docstring for the convention)."""
    namer = _Namer() if namer is None else namer
    consts = " ".join(_binder_str(v, namer) for v in ir.const_binders)
    args = " ".join(_binder_str(v, namer) for v in ir.in_binders)
    head = "{ lambda " + (f"{consts} ; " if consts else "; ") + f"{args}. let"
    body = "".join("\n" + _indent(pp_eqn(eqn, namer), 4) for eqn in ir.eqns)
    outs = ", ".join(_atom_str(x, namer) for x in ir.outs)
    return f"{head}{body}\n  in ({outs}) }}"
