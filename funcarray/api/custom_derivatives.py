"""Custom derivative rules: ``custom_jvp`` and ``custom_vjp`` (``checkpoint`` is in
``funcarray/api/checkpoint.py`` and shares the staging helpers here).

The signatures and semantics are JAX's. Outside every transform a decorated function simply
runs (``print`` and ``pdb`` work inside it). Differentiated (an argument carries a tangent of
the current JVP trace), the call runs its rule directly on the primal values, one level down
(JAX's ``process_custom_jvp_call``): under an eager grad, jvp or vjp these are numbers, so
Python control flow on them works in the function and its rules. Under other transforms
(vmap, jit, ...) its body is staged to IR -- values it closes over become leading operands --
and bound as a higher-order primitive (``primitives/custom_derivatives.py``), whose rules
make it compose with every transform in any order.

The user's rules are Python callables, run when a transform needs them: a custom_jvp rule
when the function is differentiated (with concrete primal values under an eager ``grad``);
``fwd`` when reverse mode reaches the function and ``bwd`` in the backward pass. Their
results are checked (structure, shapes, dtypes) with errors naming the function.

Limits (as in JAX unless noted): a custom rule only sees the explicit arguments, so a value
the function closes over must not be differentiated (error: pass it as an argument);
``nondiff_argnums`` arguments are passed as they are (Python values: functions, flags) and
are not differentiated; forward mode of a custom_vjp function is an error; a custom rule
that closes over a ``vmap`` or ``jit`` tracer works inside that transform but not when the
function is differentiated outside it (funcarray's traces are identified by identity, so a
rule run later cannot meet the tracers of a finished trace); ``defvjp(symbolic_zeros=True)``
is not supported.

Example:
    >>> import funcarray as fa
    >>> import funcarray.numpy as fnp
    >>> @fa.custom_jvp
    ... def log1pexp(x):
    ...     return fnp.log1p(fnp.exp(x))
    >>> @log1pexp.defjvp
    ... def log1pexp_jvp(primals, tangents):
    ...     (x,), (t,) = primals, tangents
    ...     return log1pexp(x), t * (1.0 - 1.0 / (1.0 + fnp.exp(x)))
    >>> fa.grad(log1pexp)(fnp.array(100.0))
    Array(1., dtype=float32, weak_type=True)
"""

from __future__ import annotations

import functools
import inspect
from typing import TYPE_CHECKING, Generic, ParamSpec, TypeVar

import numpy as np

from funcarray.api.arguments import asarray_arg, is_array
from funcarray.base import dtypes
from funcarray.base import float0 as _float0
from funcarray.base import pytrees as fa_tree
from funcarray.base.array import Array
from funcarray.primitives.custom_derivatives import (
    custom_jvp_call_p,
    custom_vjp_call_p,
    custom_vjp_rule_jvp,
)
from funcarray.primitives.shape import broadcast_in_dim_p
from funcarray.transforms.core import (
    EVAL_TRACE,
    ConcretizationError,
    ShapedArray,
    Tracer,
    UnexpectedTracerError,
    current_trace,
    set_current_trace,
)
from funcarray.transforms.ir_transforms import closed_call
from funcarray.transforms.jvp import JVPTrace, Zero, instantiate, tangent_aval
from funcarray.transforms.staging import StagingTrace

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

    import numpy as np

    from funcarray.base.array import Array

    _G = TypeVar("_G", bound=Callable[..., Any])

# The type parameters of custom_jvp / custom_vjp: the wrapped function's parameters and result
# (for type checkers; at run time only the Generic base's bookkeeping).
_P = ParamSpec("_P")
_R = TypeVar("_R")

__all__ = ["custom_jvp", "custom_vjp", "SymbolicZero"]


# --------------------------------------------------------------------------------------------
# Shared helpers
# --------------------------------------------------------------------------------------------

def _fun_name(fun) -> str:
    return getattr(fun, "__name__", None) or type(fun).__name__


def _resolve_kwargs(fun, args, kwargs) -> tuple:
    """Keyword arguments bound to positions through ``fun``'s signature, and the defaults of
    parameters not passed filled in (as JAX does: the rules get every argument)."""
    if not kwargs:
        try:
            declared = _positional_count(fun)
        except TypeError:  # an unhashable callable: not cached
            declared = _positional_count.__wrapped__(fun)
        if len(args) >= declared:
            return tuple(args)
    try:
        bound = inspect.signature(fun).bind(*args, **kwargs)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{_fun_name(fun)}: {exc}") from None
    bound.apply_defaults()
    if bound.kwargs:
        raise TypeError(f"{_fun_name(fun)}: keyword-only arguments ({sorted(bound.kwargs)}) "
                        f"are not supported by custom_jvp/custom_vjp/checkpoint; make them "
                        f"positional")
    return tuple(bound.args)


@functools.lru_cache(maxsize=512)
def _positional_count(fun) -> int:
    """How many positional parameters ``fun`` declares (0 when it has no signature): fewer
    arguments than this means defaults to fill in. Cached: ``inspect.signature`` costs ~10 us,
    more than a small eager call."""
    try:
        params = inspect.signature(fun).parameters.values()
    except (TypeError, ValueError):
        return 0
    return sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)


def argnames_to_argnums(what: str, option: str, fun, names) -> tuple:
    """The positions of the parameters ``names`` (a name or names) in ``fun``'s signature,
    for the ``*_argnames`` options (JAX's: arguments named here are treated as the
    positions they bind to)."""
    names = (names,) if isinstance(names, str) else tuple(names)
    if not names:
        return ()
    try:
        params = list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        raise TypeError(f"{what}: {option} needs a function with a signature; "
                        f"{_fun_name(fun)} has none (use the *_argnums option)") from None
    positional = [p.name for p in params
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    out = []
    for name in names:
        if name not in positional:
            raise ValueError(f"{what}: {option} names {name!r}, which is not a positional "
                             f"parameter of {_fun_name(fun)} (its parameters: {positional})")
        out.append(positional.index(name))
    return tuple(out)


_SLOT = object()  # a placeholder leaf: where an argument of custom_vjp has an array


def _check_argnums(what: str, name: str, argnums, nargs: int) -> tuple:
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    out = []
    for i in nums:
        if not isinstance(i, int) or not -nargs <= i < nargs:
            raise ValueError(f"{what} of '{name}': {i!r} is out of range for a call with "
                             f"{nargs} positional arguments")
        out.append(i % nargs)
    return tuple(sorted(set(out)))


def _split_args(args, positions):
    static = [(i, args[i]) for i in positions]
    dyn = tuple(a for i, a in enumerate(args) if i not in positions)
    return static, dyn


def _merge_args(static, dyn) -> list:
    args = list(dyn)
    for i, value in static:
        args.insert(i, value)
    return args


def _as_leaves(what: str, leaves) -> list:
    return [x if is_array(x) else asarray_arg(what, x) for x in leaves]


def _stage_body(flat_fun, leaves):
    """Stage ``flat_fun`` on ``leaves``' avals under the current trace (closure conversion:
    the values it closes over become the leading operands). Returns the CallForm."""
    trace = StagingTrace(current_trace())
    args = [trace.new_arg(x.aval) for x in leaves]
    with set_current_trace(trace):
        outs = flat_fun(*args)
    return closed_call(trace.to_closed_ir(list(outs)))


def _stage_call_site(fun, nondiff_argnums, name, args, trace=None):
    """Split a custom_jvp/custom_vjp call's arguments (static ``nondiff_argnums`` and dynamic
    pytrees) and stage ``fun`` on them: ``(static, dyn, leaves, in_tree, store, call)``, where
    ``store`` receives the output tree and ``call`` is the body in call form. None when
    ``fun`` needs concrete values and may run one level below ``trace`` instead: ``trace``
    is not staging (jit) and none of ``args`` is its tracer (jacfwd's vmap meets the primal
    values of its jvp unbatched)."""
    positions = _check_argnums("nondiff_argnums", name, nondiff_argnums, len(args))
    static, dyn = _split_args(args, positions)
    leaves, in_tree = fa_tree.flatten(dyn)
    leaves = _as_leaves(name, leaves)
    store = {}
    try:
        call = _stage_body(_flat_body(fun, static, in_tree, name, store), leaves)
    except ConcretizationError:
        if trace is None or type(trace) is StagingTrace or any(
                isinstance(x, Tracer) and x._trace is trace for x in fa_tree.leaves(args)):
            raise
        return None
    return static, dyn, leaves, in_tree, store, call


def _flat_body(fun, static, in_tree, name, store):
    def flat(*xs):
        out = fun(*_merge_args(static, fa_tree.unflatten(in_tree, list(xs))))
        out_leaves, store["out_tree"] = fa_tree.flatten(out)
        return _as_leaves(f"the output of {name}", out_leaves)
    return flat


def _folds(trace, args) -> bool:
    """Whether ``trace`` is a constant-folding staging trace (the forward pass of a grad)
    that stages none of ``args``: it would fold the call, so the call runs one level down
    (on concrete values under an eager grad), the function unstaged."""
    return (type(trace) is StagingTrace and trace.fold_constants
            and all(map(trace.is_known, fa_tree.leaves(args))))


def _split_under_jvp(trace: JVPTrace, nondiff_argnums, name, args):
    """The call's arguments as seen by the JVP trace ``trace`` (JAX's
    ``process_custom_jvp_call``): ``(static, dyn, in_tree, primals, tangents)`` of the
    dynamic leaves, or None when no argument has a nonzero tangent (the call is then staged
    as usual: what it closes over may still be differentiated)."""
    positions = _check_argnums("nondiff_argnums", name, nondiff_argnums, len(args))
    static, dyn = _split_args(args, positions)
    leaves, in_tree = fa_tree.flatten(dyn)
    pairs = [trace._split(x) for x in _as_leaves(name, leaves)]
    if all(type(t) is Zero for _, t in pairs):
        return None
    return static, dyn, in_tree, [p for p, _ in pairs], [t for _, t in pairs]


def _run_below(trace: JVPTrace, kind: str, name: str, run):
    """``run()`` (a user rule) one level below ``trace``. A tracer of ``trace`` met there was
    closed over by the function or its rule: its derivative would be wrong, so it is an
    error naming the function."""
    try:
        with set_current_trace(trace.parent):
            return run()
    except UnexpectedTracerError as exc:
        raise UnexpectedTracerError(
            f"The {kind} function '{name}' (or its rule) closes over a value that is being "
            f"differentiated by the same transform as its arguments ({exc}). Its custom rule "
            f"only sees the function's explicit arguments, so that derivative would be wrong. "
            f"Pass the value as an explicit argument instead (or wrap it in "
            f"funcarray.stop_gradient if it should not be differentiated).") from exc


def _same_type(x, aval) -> bool:
    return tuple(x.shape) == tuple(aval.shape) and x.dtype == aval.dtype


def _describe(leaves) -> str:
    return "(" + ", ".join(getattr(x, "aval", None).str_short() if hasattr(x, "aval")
                           else type(x).__name__ for x in leaves) + ")"


# --------------------------------------------------------------------------------------------
# custom_jvp
# --------------------------------------------------------------------------------------------

class SymbolicZero:
    """A zero tangent passed to a custom_jvp rule defined with ``symbolic_zeros=True``.

    It has the ``aval``, ``shape`` and ``dtype`` of the tangent it stands for;
    ``instantiate()`` makes the zeros. A rule may return one as an output tangent.

    Example:
        >>> import numpy as np
        >>> from funcarray.transforms.core import ShapedArray
        >>> SymbolicZero(ShapedArray((2,), np.float32)).instantiate()
        Array([0., 0.], dtype=float32)
    """

    __slots__ = ("aval",)

    def __init__(self, aval: ShapedArray) -> None:
        self.aval = aval

    @property
    def shape(self) -> tuple[int, ...]:
        return self.aval.shape

    @property
    def dtype(self) -> np.dtype:
        return self.aval.dtype

    def instantiate(self) -> Array:
        return _public_zero(self.aval)

    def __repr__(self):
        if _float0.is_float0_dtype(self.aval.dtype):
            return f"SymbolicZero(float0{list(self.aval.shape)})"
        return f"SymbolicZero({self.aval.str_short()})"


def zeros_like_tangent(x):
    """The zero tangent of ``x`` as the user sees it: float0 for integer and boolean values,
    zeros of ``x``'s dtype otherwise.

    Example:
        >>> import funcarray as fa
        >>> import funcarray.numpy as fnp
        >>> from funcarray.api.custom_derivatives import zeros_like_tangent
        >>> zeros_like_tangent(fnp.arange(2)).dtype == fa.dtypes.float0
        True
        >>> zeros_like_tangent(fnp.ones(2))
        Array([0., 0.], dtype=float32)
    """
    if _float0.is_float0(x) or not dtypes.is_inexact(x.dtype):
        return _float0.zeros(x.shape)
    zero = Array(np.zeros((), x.dtype), x.weak_type)  # (fnp.zeros_like keeps the weak type)
    return broadcast_in_dim_p.bind(zero, shape=tuple(x.shape), broadcast_dimensions=())


class _CustomCall:
    """What custom_jvp and custom_vjp calls share: where a call goes under the current trace.
    Subclasses define ``_jvp_of_call`` (differentiated: the rule, unstaged) and ``_bind`` (the
    staged body bound as the primitive)."""

    fun: Callable[..., Any]
    nondiff_argnums: tuple

    def _dispatch(self, name, args):
        trace = current_trace()
        if trace is EVAL_TRACE:
            return self.fun(*args)
        if _folds(trace, args):
            with set_current_trace(trace.parent):
                return self(*args)
        if type(trace) is JVPTrace:
            split = _split_under_jvp(trace, self.nondiff_argnums, name, args)
            if split is not None:
                return self._jvp_of_call(trace, name, *split)
        staged = _stage_call_site(self.fun, self.nondiff_argnums, name, args, trace)
        if staged is None:
            with set_current_trace(trace.parent):
                return self(*args)
        return self._bind(name, *staged)


class custom_jvp(_CustomCall, Generic[_P, _R]):
    """A function with a custom forward-mode derivative rule (JAX's ``jax.custom_jvp``).

    ``f = custom_jvp(fun, nondiff_argnums=())``, then ``f.defjvp(rule)`` where
    ``rule(*nondiff_args, primals, tangents) -> (primal_out, tangent_out)``: ``primals`` and
    ``tangents`` are tuples of the differentiable arguments, the outputs pytrees shaped like
    ``fun``'s output. Reverse mode (``grad``, ``vjp``) transposes the rule's linear part, so
    one rule serves both modes. ``f.defjvps(*per_arg)`` defines it from one function per
    argument, ``jvp_i(t_i, primal_out, *primals)`` (``None``: no dependence).

    Zero tangents reach the rule as zeros, or as ``SymbolicZero`` objects with
    ``defjvp(rule, symbolic_zeros=True)``. As in JAX, integer and bool arguments' tangents
    are float0 arrays (``numpy.zeros(shape, funcarray.dtypes.float0)``), and the rule must
    return float0 zeros (or a ``SymbolicZero``) as the tangent of an integer or bool output.
    Arguments in ``nondiff_argnums`` are passed as they are (Python values such as functions
    or flags).

    Example:
        >>> import funcarray as fa
        >>> import funcarray.numpy as fnp
        >>> @fa.custom_jvp
        ... def f(x):
        ...     return fnp.sin(x)
        >>> @f.defjvp
        ... def f_jvp(primals, tangents):
        ...     (x,), (t,) = primals, tangents
        ...     return f(x), 2.0 * t  # a deliberately "wrong" derivative
        >>> fa.grad(f)(fnp.array(0.0))
        Array(2., dtype=float32, weak_type=True)
    """

    def __init__(self, fun: Callable[_P, _R], nondiff_argnums: Sequence[int] = (),
                 nondiff_argnames: Sequence[str] = ()) -> None:
        if not callable(fun):
            raise TypeError(f"custom_jvp: expected a function, got {type(fun).__name__}")
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums) + argnames_to_argnums(
            "custom_jvp", "nondiff_argnames", fun, nondiff_argnames)
        self.jvp = None
        self.symbolic_zeros = False

    def defjvp(self, jvp: _G, symbolic_zeros: bool = False) -> _G:
        """Set the jvp rule (usable as a decorator); returns ``jvp``."""
        if not callable(jvp):
            raise TypeError(f"custom_jvp.defjvp: expected a function, got {type(jvp).__name__}")
        self.jvp = jvp
        self.symbolic_zeros = bool(symbolic_zeros)
        return jvp

    def defjvps(self, *jvps: Callable[..., Any] | None) -> None:
        """Set the rule from one tangent function per argument (``None``: zero)."""
        if self.nondiff_argnums:
            raise TypeError("custom_jvp.defjvps can't be used with nondiff_argnums; use defjvp")
        fun = self.fun

        def jvp(primals, tangents):
            primal_out = fun(*primals)
            contributions = [rule(t, primal_out, *primals)
                             for rule, t in zip(jvps, tangents) if rule is not None]
            if not contributions:
                return primal_out, fa_tree.map(zeros_like_tangent, primal_out)
            # (float0 tangents of integer outputs are zeros: not summed)
            return primal_out, fa_tree.map(lambda *ts: ts[0] if _float0.is_float0(ts[0]) else
                                           functools.reduce(lambda a, b: a + b, ts),
                                           *contributions)

        self.defjvp(jvp)

    def __call__(self, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        name = _fun_name(self.fun)
        if self.jvp is None:
            raise AttributeError(f"No JVP defined for custom_jvp function {name} using defjvp.")
        args = _resolve_kwargs(self.fun, args, kwargs)
        return self._dispatch(name, args)

    def _bind(self, name, static, dyn, leaves, in_tree, store, call):
        rule = _UserJVPRule(self.jvp, name, [v for _, v in static], in_tree, store["out_tree"],
                            [x.aval for x in call.ir.outs], len(call.consts),
                            self.symbolic_zeros)
        outs = custom_jvp_call_p.bind(*call.consts, *leaves, call=call.ir, jvp=rule,
                                      num_consts=len(call.consts),
                                      symbolic_zeros=self.symbolic_zeros)
        return fa_tree.unflatten(store["out_tree"], outs)

    def _jvp_of_call(self, trace, name, static, dyn, in_tree, primals, tangents):
        """Differentiated by ``trace``: run the rule on the primal values one level down, as
        JAX does, without staging the function: under an eager grad or jvp they are concrete,
        so Python control flow, ``print`` and ``pdb`` see numbers in the function and the
        rule. The output structure is the rule's."""
        rule = _UserJVPRule(self.jvp, name, [v for _, v in static], in_tree, None, None, 0,
                            self.symbolic_zeros)
        primals_out, tangents_out = _run_below(trace, "custom_jvp", name,
                                               lambda: rule(primals, tangents))
        return fa_tree.unflatten(rule.out_tree, [
            trace._wrap(p, t) for p, t in zip(primals_out, tangents_out)])


class _UserJVPRule:
    """The flat jvp rule of one custom_jvp call: ``(primals, tangents) -> (primals_out,
    tangents_out)`` over the primitive's operands (closed-over values first, ignored).
    ``out_tree``/``out_avals`` None (the function was not staged): the rule's primal output
    sets them."""

    def __init__(self, jvp, name, nondiff, in_tree, out_tree, out_avals, num_consts,
                 symbolic_zeros):
        self.jvp = jvp
        self.name = name
        self.nondiff = nondiff
        self.in_tree = in_tree
        self.out_tree = out_tree
        self.out_avals = out_avals
        self.num_consts = num_consts
        self.symbolic_zeros = symbolic_zeros

    def __repr__(self):
        return f"jvp({self.name})"

    def __call__(self, primals, tangents):
        primals, tangents = primals[self.num_consts:], tangents[self.num_consts:]
        # (integer and bool arguments' tangents are float0, as in JAX)
        if self.symbolic_zeros:
            tangents = [_symbolic_zero(t.aval) if type(t) is Zero else t for t in tangents]
        else:
            tangents = [_instantiate_public(t) for t in tangents]
        p_args = fa_tree.unflatten(self.in_tree, primals)
        t_args = fa_tree.unflatten(self.in_tree, tangents)
        result = self.jvp(*self.nondiff, tuple(p_args), tuple(t_args))
        if not (isinstance(result, (tuple, list)) and len(result) == 2):
            raise TypeError(f"The custom_jvp rule of '{self.name}' must return a pair "
                            f"(primal_out, tangent_out), got {type(result).__name__}")
        return self._primals_out(result[0]), self._tangents_out(result[1])

    def _primals_out(self, primal_out) -> list:
        leaves, tree = fa_tree.flatten(primal_out)
        leaves = _as_leaves(f"the custom_jvp rule of {self.name}", leaves)
        if self.out_tree is None:
            self.out_tree, self.out_avals = tree, [x.aval for x in leaves]
        if tree != self.out_tree:
            raise TypeError(f"The custom_jvp rule of '{self.name}' returned a primal output of "
                            f"structure {tree}, but the function returns {self.out_tree}")
        for i, (x, aval) in enumerate(zip(leaves, self.out_avals)):
            if not _same_type(x, aval):
                raise TypeError(
                    f"The custom_jvp rule of '{self.name}' returned a primal output leaf {i} "
                    f"of type {x.aval.str_short()}, but the function's output is "
                    f"{aval.str_short()}; the rule's primal output must match the function's")
        return leaves

    def _tangents_out(self, tangent_out) -> list:
        leaves, tree = fa_tree.flatten(tangent_out, is_leaf=lambda x: type(x) is SymbolicZero)
        if tree != self.out_tree:
            raise TypeError(f"The custom_jvp rule of '{self.name}' returned a tangent output "
                            f"of structure {tree}, but the function returns {self.out_tree}")
        out = []
        for i, (t, aval) in enumerate(zip(leaves, self.out_avals)):
            want = tangent_aval(aval)
            if type(t) is SymbolicZero:
                out.append(Zero(want))
                continue
            if not _inexact(aval.dtype):
                # As in JAX, the tangent of an integer or bool output must be float0 zeros.
                if not (_float0.is_float0(t) and tuple(t.shape) == tuple(aval.shape)):
                    raise TypeError(
                        f"The custom_jvp rule of '{self.name}' returned a tangent output leaf "
                        f"{i} of type {_type_str(t)}, but its primal output is "
                        f"{aval.str_short()}, an integer/bool value, whose tangent must be "
                        f"float0: return numpy.zeros({tuple(aval.shape)}, "
                        f"funcarray.dtypes.float0)")
                out.append(Zero(want))
                continue
            t = asarray_arg(f"the custom_jvp rule of {self.name}", t) if not is_array(t) else t
            if t.dtype != want.dtype and t.weak_type and tuple(t.shape) == want.shape:
                t = t.astype(want.dtype)  # a Python scalar tangent adopts the output dtype
            if not _same_type(t, want):
                raise TypeError(
                    f"The custom_jvp rule of '{self.name}' returned a tangent output leaf {i} "
                    f"of type {t.aval.str_short()}, but its primal output is "
                    f"{aval.str_short()}; tangents must have the primal's shape and dtype")
            out.append(t)
        return out


def _inexact(dtype) -> bool:
    from funcarray.base.dtypes import is_inexact

    return is_inexact(dtype)


def _public_zero(aval):
    """A zero tangent or cotangent as a user's rule sees it: float0 zeros for an integer or
    bool value (JAX's convention), zeros of its dtype otherwise."""
    if _inexact(aval.dtype):
        return instantiate(Zero(aval))
    return _float0.zeros(aval.shape)


def _instantiate_public(t):
    if type(t) is Zero:
        return _public_zero(t.aval)
    return t if _inexact(t.dtype) else _float0.zeros(t.shape)


def _symbolic_zero(aval) -> SymbolicZero:
    """The SymbolicZero of a zero tangent: of float0 dtype for integer and bool values."""
    if _inexact(aval.dtype):
        return SymbolicZero(aval)
    from funcarray.base.dtypes import float0

    return SymbolicZero(ShapedArray(aval.shape, float0))


def _type_str(x) -> str:
    if _float0.is_float0(x):
        return f"float0{list(x.shape)}"
    aval = getattr(x, "aval", None)
    return aval.str_short() if aval is not None else type(x).__name__


# --------------------------------------------------------------------------------------------
# custom_vjp
# --------------------------------------------------------------------------------------------

class custom_vjp(_CustomCall, Generic[_P, _R]):
    """A function with a custom reverse-mode derivative rule (JAX's ``jax.custom_vjp``).

    ``f = custom_vjp(fun, nondiff_argnums=())``, then ``f.defvjp(fwd, bwd)``:
    ``fwd(*args) -> (out, residuals)`` (residuals: a pytree of arrays) and
    ``bwd(*nondiff_args, residuals, cotangent_out) -> tuple`` with one cotangent (pytree like
    the argument, or ``None`` for zero) per differentiable argument. As in JAX, ``bwd``
    receives float0 cotangents for integer and bool outputs, and what it returns for an
    integer or bool argument (``None``, float0 or zeros) is ignored: they get float0.
    Forward mode (``jvp``, ``jacfwd``) of a custom_vjp function is an error.

    Example:
        >>> import funcarray as fa
        >>> import funcarray.numpy as fnp
        >>> @fa.custom_vjp
        ... def clip_gradient(x):
        ...     return x
        >>> def fwd(x):
        ...     return x, None
        >>> def bwd(_, g):
        ...     return (fnp.clip(g, -1.0, 1.0),)
        >>> clip_gradient.defvjp(fwd, bwd)
        >>> fa.grad(lambda x: 5.0 * clip_gradient(x))(fnp.array(2.0))
        Array(1., dtype=float32, weak_type=True)
    """

    def __init__(self, fun: Callable[_P, _R], nondiff_argnums: Sequence[int] = (),
                 nondiff_argnames: Sequence[str] = ()) -> None:
        if not callable(fun):
            raise TypeError(f"custom_vjp: expected a function, got {type(fun).__name__}")
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums) + argnames_to_argnums(
            "custom_vjp", "nondiff_argnames", fun, nondiff_argnames)
        self.fwd = self.bwd = None

    def defvjp(self, fwd: Callable[..., tuple[Any, Any]], bwd: Callable[..., Any],
               symbolic_zeros: bool = False, optimize_remat: bool = False) -> None:
        """Set the forward and backward rules."""
        if symbolic_zeros:
            raise NotImplementedError("custom_vjp.defvjp: symbolic_zeros=True is not supported "
                                      "by funcarray; bwd always receives instantiated zeros")
        if not (callable(fwd) and callable(bwd)):
            raise TypeError("custom_vjp.defvjp: fwd and bwd must be functions")
        self.fwd, self.bwd = fwd, bwd

    def __call__(self, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        name = _fun_name(self.fun)
        if self.fwd is None:
            raise AttributeError(f"No VJP defined for custom_vjp function {name} using defvjp.")
        args = _resolve_kwargs(self.fun, args, kwargs)
        return self._dispatch(name, args)

    def _bind(self, name, static, dyn, leaves, in_tree, store, call):
        rule = _UserVJPRule(self, name, static, dyn, in_tree, store["out_tree"],
                            [x.aval for x in call.ir.outs], [x.aval for x in leaves],
                            len(call.consts))
        outs = custom_vjp_call_p.bind(*call.consts, *leaves, call=call.ir, rule=rule,
                                      num_consts=len(call.consts))
        return fa_tree.unflatten(store["out_tree"], outs)

    def _jvp_of_call(self, trace, name, static, dyn, in_tree, primals, tangents):
        """Differentiated by ``trace``: run ``fwd`` on the primal values one level down, as
        JAX does, without staging the function (concrete values under an eager grad: Python
        control flow, ``print`` and ``pdb`` work in ``fwd`` and ``bwd``)."""
        rule = _UserVJPRule(self, name, static, dyn, in_tree, None, None,
                            [x.aval for x in primals], 0)
        primals_out, tangents_out = _run_below(
            trace, "custom_vjp", name, lambda: custom_vjp_rule_jvp(rule, primals, tangents))
        return fa_tree.unflatten(rule.out_tree, [
            trace._wrap(p, t) for p, t in zip(primals_out, tangents_out)])


class _UserVJPRule:
    """The flat ``fwd``/``bwd`` of one custom_vjp call, over the primitive's operands
    (closed-over values first). ``fwd`` records the residuals' tree for ``bwd``, and the
    output's tree and avals where they are None (the function was not staged)."""

    def __init__(self, owner, name, static, dyn, in_tree, out_tree, out_avals, in_avals,
                 num_consts):
        self.fwd_fun, self.bwd_fun = owner.fwd, owner.bwd
        self.name = name
        self.static = static
        self.dyn_structures = [fa_tree.structure(a) for a in dyn]
        self.in_tree = in_tree
        self.out_tree = out_tree
        self.out_avals = out_avals
        self.in_avals = in_avals
        self.num_consts = num_consts
        self.res_tree = None

    def __repr__(self):
        return f"vjp({self.name})"

    def fwd(self, operands):
        args = fa_tree.unflatten(self.in_tree, operands[self.num_consts:])
        result = self.fwd_fun(*_merge_args(self.static, args))
        if not (isinstance(result, (tuple, list)) and len(result) == 2):
            raise TypeError(f"The custom_vjp fwd rule of '{self.name}' must return a pair "
                            f"(output, residuals), got {type(result).__name__}")
        out, res = result
        out_leaves, tree = fa_tree.flatten(out)
        out_leaves = _as_leaves(f"the fwd rule of {self.name}", out_leaves)
        if self.out_tree is None:
            self.out_tree, self.out_avals = tree, [x.aval for x in out_leaves]
        if tree != self.out_tree:
            raise TypeError(f"The custom_vjp fwd rule of '{self.name}' returned an output of "
                            f"structure {tree}, but the function returns {self.out_tree}")
        for i, (x, aval) in enumerate(zip(out_leaves, self.out_avals)):
            if not _same_type(x, aval):
                raise TypeError(
                    f"The custom_vjp fwd rule of '{self.name}' returned an output leaf {i} of "
                    f"type {x.aval.str_short()}, but the function's output is "
                    f"{aval.str_short()}; fwd's output must match the function's")
        res_leaves, self.res_tree = fa_tree.flatten(res)
        return out_leaves, _as_leaves(f"the residuals of {self.name}", res_leaves)

    def bwd(self, residuals, cts) -> list:
        res = fa_tree.unflatten(self.res_tree, residuals)
        # (integer and bool outputs' cotangents are float0, as in JAX)
        ct = fa_tree.unflatten(self.out_tree, [
            ct if _inexact(aval.dtype) else _float0.zeros(aval.shape)
            for ct, aval in zip(cts, self.out_avals)])
        nondiff = [v for _, v in self.static]
        result = self.bwd_fun(*nondiff, res, ct)
        n = len(self.dyn_structures)
        if not isinstance(result, (tuple, list)) or len(result) != n:
            got = (f"a {type(result).__name__} of length {len(result)}"
                   if isinstance(result, (tuple, list)) else type(result).__name__)
            raise TypeError(
                f"The custom_vjp bwd rule of '{self.name}' must return a tuple with one "
                f"cotangent per differentiable argument ({n}), got {got}")
        flat = [None] * self.num_consts
        for k, (entry, structure) in enumerate(zip(result, self.dyn_structures)):
            flat.extend(self._arg_cotangents(k, entry, structure))
        in_avals = iter(self.in_avals)
        return flat[:self.num_consts] + [
            self._check_leaf(i, ct, next(in_avals)) for i, ct in
            enumerate(flat[self.num_consts:])]

    def _arg_cotangents(self, k, entry, structure) -> list:
        if entry is None:
            return [None] * structure.num_leaves
        leaves, tree = fa_tree.flatten(entry, is_leaf=lambda x: x is None)
        if tree == structure:
            return leaves
        # As in JAX, a None may also stand for a whole subtree of zeros, or mirror a None
        # (empty subtree) of the argument: match the cotangent against the argument's tree.
        slots = fa_tree.unflatten(structure, [_SLOT] * structure.num_leaves)
        leaves = []

        def collect(ct, slot):
            if ct is None:
                leaves.extend([None] * len(fa_tree.leaves(slot)))
            elif slot is _SLOT:
                leaves.append(ct)
            else:
                raise ValueError("a cotangent leaf where the argument has a subtree")
            return ct

        try:
            fa_tree.map(collect, entry, slots, is_leaf=lambda x: x is None)
        except ValueError:
            raise TypeError(
                f"The custom_vjp bwd rule of '{self.name}' returned a cotangent of structure "
                f"{tree} for argument {k}, whose structure is {structure}") from None
        return leaves

    def _check_leaf(self, i, ct, aval):
        if ct is None or not _inexact(aval.dtype):
            return None  # zero, or an integer argument (no cotangent)
        ct = ct if is_array(ct) else asarray_arg(f"the bwd rule of {self.name}", ct)
        if ct.dtype != aval.dtype and ct.weak_type and tuple(ct.shape) == aval.shape:
            ct = ct.astype(aval.dtype)
        if not _same_type(ct, aval):
            raise TypeError(
                f"The custom_vjp bwd rule of '{self.name}' returned a cotangent of type "
                f"{ct.aval.str_short()} for argument leaf {i} of type {aval.str_short()}; "
                f"cotangents must have their argument's shape and dtype")
        return ct
