"""``funcarray.jit``: stage a function once per signature, compile it with XLA, call it fast.

``jit(f)(*args)`` looks up its dispatch cache with a key made of the pytree structure of the
arguments, each leaf's shape, dtype and weak_type, the static arguments and the device. On a
miss it stages ``f`` to IR (``transforms/staging.py``), lowers it to StableHLO and compiles it;
on a hit, outside every transform, it goes straight to the executable: the key guarantees the
arguments have exactly the types it was compiled for (XLA would silently reinterpret the bits of
a same-size wrong dtype), so nothing else is checked. Under a transform (``grad``, ``vmap``,
another ``jit``) the call binds the ``jit`` primitive (``primitives/jit_call.py``) instead,
whose rules transform the staged body and keep it compiled.

Visible retracing: ``jit(f).cache_info()``, ``funcarray.config.explain_cache_misses`` (logs
which argument changed, from what to what), ``funcarray.clear_caches()``.

Example:
    >>> import funcarray as fa
    >>> import funcarray.numpy as fnp
    >>> @fa.jit
    ... def f(x, y):
    ...     return fnp.sin(x) * y + 1.0
    >>> f(fnp.zeros(3), 2.0)
    Array([1., 1., 1.], dtype=float32)
    >>> f.cache_info().misses
    1
"""

from __future__ import annotations

import contextlib
import copy
import functools
import threading
import time
import weakref
from typing import TYPE_CHECKING, NamedTuple, overload

import numpy as np

from funcarray.api.debug_nans import check_jit_outputs
from funcarray.api.jit_dispatch import MISS, FastPath, leaf_type
from funcarray.api.jit_shardings import (
    check_committed,
    entry_shardings,
    given_in_shardings,
    leaf_placement,
    sharding_option,
    uses_bare_specs,
)
from funcarray.base import float0 as _float0
from funcarray.base import host_values
from funcarray.base import pytrees as tree
from funcarray.base.array import Array, Device, DeviceArray
from funcarray.base.avals import canonical_aval
from funcarray.base.config import config
from funcarray.base.errors import _mark, _with_location, filtered
from funcarray.base.mesh import get_mesh
from funcarray.base.sharding import NamedSharding, SingleDeviceSharding
from funcarray.lowering import cache, executor, runtime
from funcarray.lowering.devices import devices, runtime_device
from funcarray.primitives import _buffers
from funcarray.primitives.conversions import convert_element_type_p
from funcarray.primitives.jit_call import jit_p
from funcarray.transforms.core import (
    CURRENT_TRACE,
    EVAL_TRACE,
    Tracer,
    current_trace,
    set_current_trace,
)
from funcarray.transforms.ir_transforms import closed_call
from funcarray.transforms.staging import StagingTrace
from funcarray.transforms.vmap import axis_env

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Sequence
    from typing import Any, ParamSpec, Protocol, Self, TypeVar

    from funcarray.base.typing import ArrayLike
    from funcarray.transforms.ir import IR

    _P = ParamSpec("_P")
    _R = TypeVar("_R")
    _R_co = TypeVar("_R_co", covariant=True)

__all__ = ["jit", "Jitted", "Lowered", "Compiled", "CacheInfo", "disable_jit", "clear_caches"]


def _logger():
    """The ``funcarray.jit`` logger (logging is imported only when a miss is explained)."""
    import logging

    return logging.getLogger("funcarray.jit")

_PY_SCALARS = (bool, int, float, complex)


class CacheInfo(NamedTuple):
    """Hits and misses of one jitted function's dispatch cache (like functools')."""

    hits: int
    misses: int
    maxsize: int | None
    currsize: int


class _Entry:
    """One compiled signature: the body in call form, its consts, and (once run eagerly) the
    executable."""

    __slots__ = ("ir", "consts", "out_tree", "out_avals", "exe", "donated", "single_output",
                 "stage_s", "lower_s", "compile_s", "float0", "shardings", "leaf_placements")

    def __init__(self, ir, consts, out_tree, donated=(), float0=None):
        self.ir = ir
        # float0 arguments and outputs (gradients of integer inputs) are neither operands nor
        # results of the executable, only zeros of a shape the key fixes: None, or
        # (argument positions, output holes, the outputs' whole tree), ``out_tree`` being
        # then that of the list of the other outputs (see ``Jitted._call_float0``).
        self.float0 = float0
        self.donated = donated  # executable parameter positions whose buffers are donated
        self.consts = consts
        self.out_tree = out_tree
        self.out_avals = [canonical_aval(x.aval) for x in ir.outs]
        # The output is one array (not a pytree of them): returned without unflattening.
        self.single_output = out_tree.num_leaves == 1 and out_tree.num_nodes == 1
        self.exe = None
        self.stage_s = self.lower_s = self.compile_s = 0.0
        # None, or (in_shardings, out_shardings): NamedSharding/None per executable parameter
        # and result, the Shardy annotations the module is partitioned with (jit_shardings)
        self.shardings = None
        # the sharding each argument leaf carried (None: none), checked by the fast path
        self.leaf_placements = ()


_all_trace_caches: weakref.WeakSet = weakref.WeakSet()  # (for clear_caches)


@overload
def jit(fun: Callable[_P, ArrayLike], /, *, in_shardings: Any = None, out_shardings: Any = None,
        static_argnums: int | Sequence[int] | None = None,
        static_argnames: str | Iterable[str] | None = None,
        donate_argnums: int | Sequence[int] | None = None,
        donate_argnames: str | Iterable[str] | None = None, keep_unused: bool = False,
        device: Device | None = None, backend: str | None = None, inline: bool = False,
        compiler_options: dict[str, Any] | None = None) -> JitWrapped[_P, Array]: ...
@overload
def jit(fun: Callable[_P, _R], /, *, in_shardings: Any = None, out_shardings: Any = None,
        static_argnums: int | Sequence[int] | None = None,
        static_argnames: str | Iterable[str] | None = None,
        donate_argnums: int | Sequence[int] | None = None,
        donate_argnames: str | Iterable[str] | None = None, keep_unused: bool = False,
        device: Device | None = None, backend: str | None = None, inline: bool = False,
        compiler_options: dict[str, Any] | None = None) -> JitWrapped[_P, _R]: ...
@overload
def jit(fun: None = None, /, *, in_shardings: Any = None, out_shardings: Any = None,
        static_argnums: int | Sequence[int] | None = None,
        static_argnames: str | Iterable[str] | None = None,
        donate_argnums: int | Sequence[int] | None = None,
        donate_argnames: str | Iterable[str] | None = None, keep_unused: bool = False,
        device: Device | None = None, backend: str | None = None, inline: bool = False,
        compiler_options: dict[str, Any] | None = None) -> _JitDecorator: ...
def jit(fun=None, *, in_shardings=None, out_shardings=None, static_argnums=None,
        static_argnames=None, donate_argnums=None, donate_argnames=None, keep_unused=False,
        device=None, backend=None, inline=False, compiler_options=None):
    """Compile ``fun`` with XLA: staged once per argument signature, then called fast.

    Arguments (JAX's):
        fun: a function of arrays (pytrees of arrays, Python scalars) returning a pytree of
            arrays. It must be pure: it is run once per signature, on abstract values.
        static_argnums, static_argnames: arguments passed to ``fun`` as Python values (not
            traced): flags, shapes, sizes, anything Python control flow needs. They must be
            hashable; each new value compiles again.
        donate_argnums, donate_argnames: arguments whose device buffers the caller gives up,
            so XLA may write outputs into them (a training step updating parameters in
            place). Afterwards a donated array that only lived on the device (a jit output)
            raises if used; an array with a host value keeps it (only its cached device copy
            is dropped). Ignored when the jit is nested in another transform.
        device: a ``funcarray.Device`` (from ``funcarray.devices()``) to compile for.
        backend: a platform name ("cpu", "gpu"...) to compile for, instead of ``device``.
        compiler_options: a dict of XLA options for this function's executables (JAX's),
            e.g. ``{"xla_backend_optimization_level": 0}`` to compile faster. They are part
            of every cache key (in memory and on disk). A jit nested in another jit is
            inlined and compiles with the outer one's options, as in JAX.
        keep_unused, inline: accepted for JAX compatibility; nested jits are always inlined
            into the enclosing executable, and unused arguments are always kept.
        in_shardings, out_shardings: how the arguments and outputs are split over devices,
            as pytree prefixes of the positional arguments and of the output: a
            ``NamedSharding``, a ``PartitionSpec`` (over the mesh of ``set_mesh``) or None
            (XLA's partitioner chooses). With any sharding (these, an argument already split
            over devices, or ``lax.with_sharding_constraint`` inside) the function is
            compiled once for all the devices of the mesh and partitioned by XLA (Shardy);
            arguments are moved where the executable wants them, and outputs are split as
            the executable says. See ``funcarray.api.jit_shardings``.

    Returns:
        A function like ``fun``, with ``lower(*args)``, ``cache_info()`` and
        ``clear_cache()`` attributes.
        Usable as a decorator with or without arguments (``@jit``, ``@partial(jit, ...)``).

    Example:
        >>> import funcarray as fa
        >>> import funcarray.numpy as fnp
        >>> def power(x, n):
        ...     for _ in range(n - 1):
        ...         x = x * x
        ...     return x
        >>> fast = fa.jit(power, static_argnums=1)
        >>> fast(fnp.array([1.0, 2.0]), 3)
        Array([ 1., 16.], dtype=float32)
    """
    if fun is None:
        return functools.partial(
            jit, in_shardings=in_shardings, out_shardings=out_shardings,
            static_argnums=static_argnums, static_argnames=static_argnames,
            donate_argnums=donate_argnums, donate_argnames=donate_argnames,
            keep_unused=keep_unused, device=device, backend=backend, inline=inline,
            compiler_options=compiler_options)
    if not callable(fun):
        raise TypeError(f"jit: expected a function, got {type(fun).__name__} {fun!r}")
    shardings = (sharding_option(in_shardings, "in_shardings"),
                 sharding_option(out_shardings, "out_shardings"))
    if shardings != (None, None) and (device is not None or backend is not None):
        raise ValueError("jit: pass in_shardings/out_shardings or device=/backend=, not both "
                         "(the shardings name the devices)")
    return _dispatcher(Jitted(fun, static_argnums, static_argnames, donate_argnums,
                              donate_argnames, device, backend, compiler_options, shardings))


def _dispatcher(state: Jitted):
    """The function ``jit`` returns: the fast path inline, ``state`` for everything else.

    A plain function, not a class instance with ``__call__``: calling an instance costs a
    type-slot lookup and an extra frame (~0.7 us, a tenth of a whole small jitted call), and
    functions bind as methods on their own. ``lower``, ``cache_info`` and ``clear_cache`` are
    attributes of the function, as on JAX's jitted functions.
    """
    fast, call, shared = state._fast, state._call, state._shared
    # (The general call's try/except is written out in both functions below, not shared: a
    # helper would be one more funcarray frame in the user's tracebacks.)
    if fast is None:  # static arguments: every call builds the general key
        def jitted(*args, **kwargs):
            try:
                return call(args, kwargs)
            except Exception as exc:  # noqa: BLE001 (re-raised, minus funcarray's frames)
                raise filtered(_explained(exc, args, kwargs)) from exc.__cause__
    else:
        def jitted(*args, **kwargs):
            # The fast path: positional Array arguments only, outside every transform, a
            # signature seen before. Its key needs no pytree flattening.
            if not kwargs and CURRENT_TRACE.get() is EVAL_TRACE and config._fast_dispatch:
                try:
                    last = fast.last  # the signature called last: see jit_dispatch._FastEntry
                    if last is None:
                        out = fast.call_by_signature(args)
                    else:
                        (run_args, jdev, aval_x, start, finish, handlers, exe, out_aval,
                         out_weak) = last
                        # f(x) of one output, the commonest call, checked and run here: a
                        # DeviceArray with the compiled aval object, on jdev
                        if (aval_x is not None and len(args) == 1
                                and type(x := args[0]) is DeviceArray
                                and x._aval is aval_x and (cached := x._buf)[0] is jdev):
                            try:
                                out_buffer = finish(start([cached[1]]), handlers)[0]
                            except Exception as exc:  # noqa: BLE001
                                runtime.raise_execution_error(exe, exc)
                            out = _new_object(DeviceArray)  # device_array(), written out
                            out._weak = out_weak
                            out._buf = (jdev, out_buffer)
                            out._aval = out_aval
                            out._ready = False
                            shared.hits += 1
                            return out
                        out = run_args(args)  # any other signature: one call
                        if out is MISS:
                            out = fast.call_by_signature(args)
                except Exception as exc:  # noqa: BLE001 (re-raised minus our frames)
                    raise filtered(_explained(exc, args, kwargs)) from exc.__cause__
                if out is not MISS:
                    shared.hits += 1
                    return out
            try:
                return call(args, kwargs)
            except Exception as exc:  # noqa: BLE001 (re-raised, minus funcarray's frames)
                raise filtered(_explained(exc, args, kwargs)) from exc.__cause__

    # updated=(): copying fun's __dict__ would, for jit(jit(f)), overwrite this function's
    # lower/cache_info/clear_cache with the inner one's.
    functools.update_wrapper(jitted, state._fun, updated=())
    jitted.lower = state.lower
    jitted.cache_info = state.cache_info
    jitted.clear_cache = state.clear_cache
    jitted._jit_state = state  # for introspection and tests
    return jitted


_new_object = object.__new__


def _explained(exc: Exception, args, kwargs) -> Exception:
    """``exc``, or a clearer error for it: XLA refuses an argument whose buffer was donated
    to an earlier call (CPU: "Buffer has been deleted or donated", GPU: "Donation requested
    for invalid buffer"); the user needs to know which argument and what to pass instead.
    Only runs once a call has failed."""
    if not isinstance(exc, runtime.ExecutionError):
        return exc
    leaves = tree.leaves((args, kwargs))
    gone = [k for k, x in enumerate(leaves) if getattr(x, "_donated", False)]
    if not gone:
        return exc
    x = leaves[gone[0]]
    return _mark(RuntimeError(_with_location(
        f"jit: argument leaf {gone[0]} ({x._aval.str_short()}) was donated to an earlier "
        f"jitted call (donate_argnums/donate_argnames), which reused its buffer for that "
        f"call's outputs, so it no longer has a value. Pass that call's outputs instead (e.g. "
        f"params = step(params, ...)), or do not donate arrays you use again.")))


def _as_tuple(value, what: str) -> tuple:
    if value is None:
        return ()
    if isinstance(value, (int, str)):
        value = (value,)
    value = tuple(value)
    for v in value:
        if what.endswith("argnums") and (not isinstance(v, int) or isinstance(v, bool)):
            raise TypeError(f"jit: {what} must be ints, got {v!r}")
        if what.endswith("argnames") and not isinstance(v, str):
            raise TypeError(f"jit: {what} must be strings, got {v!r}")
    return value


def _signature_params(fun):
    import inspect

    try:
        return list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):  # builtins, some callables
        return None


def _fill_argnums_and_names(fun, nums: tuple, names: tuple, what: str):
    """JAX's rule: static_argnums and static_argnames complete each other through ``fun``'s
    signature (a parameter named in one is static whichever way it is passed)."""
    params = _signature_params(fun)
    if params is None:
        return nums, names
    positional = [p.name for p in params
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    keyword = {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    has_var_kw = any(p.kind is p.VAR_KEYWORD for p in params)
    has_var_pos = any(p.kind is p.VAR_POSITIONAL for p in params)
    for name in names:
        if name not in keyword and not has_var_kw:
            raise ValueError(f"jit: {what}argnames names {name!r}, which is not a parameter of "
                             f"{_fun_name(fun)} (its parameters: {[p.name for p in params]})")
    for i in nums:
        if not has_var_pos and not -len(positional) <= i < len(positional):
            raise ValueError(f"jit: {what}argnums contains {i}, but {_fun_name(fun)} takes "
                             f"{len(positional)} positional arguments")
    nums_out = set(nums) | {positional.index(n) for n in names if n in positional}
    names_out = set(names) | {positional[i] for i in nums
                              if -len(positional) <= i < len(positional)
                              and positional[i] in keyword}
    return tuple(sorted(nums_out)), tuple(sorted(names_out))


def _defined_at(fun) -> str:
    """`` (defined at file:line)`` for Python functions, for error messages."""
    code = getattr(getattr(fun, "__wrapped__", fun), "__code__", None)
    return f" (defined at {code.co_filename}:{code.co_firstlineno})" if code else ""


def _fun_name(fun) -> str:
    return getattr(fun, "__qualname__", None) or getattr(fun, "__name__", None) or repr(fun)


class _TraceCache:
    """The compiled entries of one function under one set of jit options, shared by every
    ``jit`` wrapper of them (``jit(f)(x)`` written inline makes a new wrapper per call, and
    JAX traces it once): the dispatch cache, the fast path's tables, the hit and miss counts,
    and the running of an entry. It holds no reference to the function, which keys it
    weakly (``_trace_cache``)."""

    __slots__ = ("entries", "fast", "hits", "misses", "last_key", "_device", "_backend",
                 "_compiler_options", "__weakref__")
    # (in/out shardings are part of the options this cache is shared under: they change
    # what is compiled, never the dispatch below)

    def __init__(self, static: bool, device, backend, compiler_options):
        self._device, self._backend = device, backend
        self._compiler_options = compiler_options
        self.entries: dict = {}
        # The dispatch fast path (``jit_dispatch``); only for functions without static
        # arguments (their values would be part of the key).
        self.fast: FastPath | None = None if static else FastPath()
        self.hits = self.misses = 0
        self.last_key = None
        _all_trace_caches.add(self)

    def clear(self) -> None:
        self.entries.clear()
        if self.fast is not None:
            self.fast.clear()
        self.hits = self.misses = 0
        self.last_key = None

    def run_eagerly(self, entry, leaves):
        if entry.exe is None:
            self.compile(entry)
        operands = [*entry.consts, *(x if isinstance(x, Array) else _as_operand(x)
                                     for x in leaves)]
        outs = executor.run_executable(entry.exe, operands, entry.out_avals, entry.donated)
        if entry.single_output:
            return outs[0]
        return tree.unflatten(entry.out_tree, outs)

    def target_device(self):
        if self._backend is not None:
            return devices(self._backend)[0]
        return self._device

    def compile(self, entry, compiler_options=None) -> None:
        """Compile ``entry`` (with this function's XLA options, or ``compiler_options``)."""
        jdev = runtime_device(self.target_device())
        start = time.perf_counter()
        cache.lowered_text(entry.ir, entry.donated, jdev.platform, entry.shardings)
        entry.lower_s = time.perf_counter() - start
        start = time.perf_counter()
        entry.exe = cache.compile_ir(
            entry.ir, device=jdev, donated=entry.donated, shardings=entry.shardings,
            compiler_options=(self._compiler_options if compiler_options is None
                              else compiler_options))
        entry.compile_s = time.perf_counter() - start


# fun -> {jit options -> _TraceCache}. Weakly keyed: a function's entries go with it.
_trace_caches: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_trace_caches_lock = threading.Lock()


def _trace_cache(fun, options: tuple) -> _TraceCache:
    """The trace cache of ``fun`` under jit ``options`` (static and donated arguments, device,
    backend, compiler options), shared with every other wrapper of them; a callable that
    cannot be weakly referenced or hashed gets its own."""
    static, device, backend, compiler_options = bool(options[0]), *options[4:7]
    try:
        with _trace_caches_lock:
            per_options = _trace_caches.get(fun)
            if per_options is None:
                per_options = _trace_caches[fun] = {}
            shared = per_options.get(options)
            if shared is None:
                shared = per_options[options] = _TraceCache(static, device, backend,
                                                            compiler_options)
            return shared
    except TypeError:  # no weak reference or no hash: a cache of this wrapper's own
        return _TraceCache(static, device, backend, compiler_options)


class Jitted:
    """A jitted function's state: options, compiled entries, the fast path's tables and the
    general call path. ``jit`` returns ``_dispatcher(state)``, a function; see
    ``funcarray.jit``."""

    def __init__(self, fun, static_argnums, static_argnames, donate_argnums, donate_argnames,
                 device, backend, compiler_options=None, shardings=(None, None)):
        self._fun = fun
        self._shardings = shardings  # (in, out): jit_shardings.sharding_option forms
        self._bare_specs = uses_bare_specs(*shardings)
        self._given: dict = {}  # argument structure -> in_shardings per leaf
        # (name, value) pairs, validated now: a wrong value type fails at jit(), not later
        self._compiler_options = runtime.check_compiler_options(compiler_options)
        nums = _as_tuple(static_argnums, "static_argnums")
        names = _as_tuple(static_argnames, "static_argnames")
        self._static_argnums, self._static_argnames = _fill_argnums_and_names(
            fun, nums, names, "static_")
        dnums = _as_tuple(donate_argnums, "donate_argnums")
        dnames = _as_tuple(donate_argnames, "donate_argnames")
        self._donate_argnums, self._donate_argnames = _fill_argnums_and_names(
            fun, dnums, dnames, "donate_")
        both = set(self._static_argnums) & set(self._donate_argnums)
        if both:
            raise ValueError(f"jit: arguments {sorted(both)} are both static and donated; a "
                             f"static argument has no buffer to donate")
        if device is not None and backend is not None:
            raise ValueError("jit: pass device= or backend=, not both")
        self._device = device
        self._backend = backend
        self._name = _fun_name(fun)
        self._shared = shared = _trace_cache(fun, (
            self._static_argnums, self._static_argnames, self._donate_argnums,
            self._donate_argnames, device, backend, self._compiler_options, shardings))
        self._cache = shared.entries
        self._fast = shared.fast
        self._run_eagerly = shared.run_eagerly
        self._compile = shared.compile
        self._target_device = shared.target_device

    # --- the call (the fast path is in ``_dispatcher``) --------------------------------------
    def _call(self, args, kwargs):
        if config.disable_jit:
            return self._fun(*args, **kwargs)
        key, leaves, statics = self._key(args, kwargs)
        try:
            entry = self._cache.get(key)
        except TypeError:  # an unhashable static argument
            raise _unhashable_static(self._name, statics[0]) from None
        if entry is None:
            entry = self._miss(key, leaves, statics)
        else:
            self._shared.hits += 1
        if entry.float0 is not None:
            return self._call_float0(entry, leaves)
        if current_trace() is EVAL_TRACE:
            out = self._run_eagerly(entry, leaves)
            if not config._fast_dispatch:  # debug_nans / debug_infs
                check_jit_outputs(self._fun, self._name, args, kwargs, out,
                                  can_rerun=not entry.donated)
            if self._fast is not None and not kwargs and entry.exe is not None:
                self._fast.remember(args, entry, self._run_eagerly)
            return out
        options = ({"compiler_options": self._compiler_options} if self._compiler_options
                   else {})
        outs = jit_p.bind(*entry.consts, *_as_operands(leaves), ir=entry.ir, name=self._name,
                          device=self._target_device(), **options)
        return tree.unflatten(entry.out_tree, outs)

    def _call_float0(self, entry, leaves):
        """A call of an entry with float0 arguments or outputs: the executable (or the jit
        equation) runs on the other arguments, and float0 zeros fill the outputs' holes."""
        positions, holes, out_tree = entry.float0
        if positions:
            leaves = [x for k, x in enumerate(leaves) if k not in positions]
        if current_trace() is EVAL_TRACE:
            outs = self._run_eagerly(entry, leaves)
        else:
            outs = jit_p.bind(*entry.consts, *_as_operands(leaves), ir=entry.ir,
                              name=self._name, device=self._target_device(),
                              **({"compiler_options": self._compiler_options}
                                 if self._compiler_options else {}))
        return tree.unflatten(out_tree, _float0.fill(outs, holes))

    # --- the dispatch key ---------------------------------------------------------------------
    def _key(self, args, kwargs):
        statics = []
        dyn_args = args
        if self._static_argnums:
            n = len(args)
            positions = {i % n for i in self._static_argnums if -n <= i < n}
            statics = [(i, args[i]) for i in sorted(positions)]
            dyn_args = tuple(a for i, a in enumerate(args) if i not in positions)
        dyn_kwargs = kwargs
        if self._static_argnames and kwargs:
            statics.extend(sorted((k, v) for k, v in kwargs.items()
                                  if k in self._static_argnames))
            dyn_kwargs = {k: v for k, v in kwargs.items() if k not in self._static_argnames}
        leaves, in_tree = tree.flatten((dyn_args, dyn_kwargs))
        sig = [in_tree]
        for k, x in enumerate(leaves):
            t = type(x)
            if t is DeviceArray:
                where = x._buf[0]
                if type(where) is not NamedSharding:
                    sig.append(leaf_type(x))
                else:  # an array split over devices is compiled for its sharding...
                    want = self._given_in_sharding(in_tree, dyn_args, dyn_kwargs, k)
                    if want is None:
                        sig.append((*leaf_type(x), where))
                    else:  # ...unless in_shardings fixes it (and then it must agree)
                        check_committed(want, where, x, f"argument {k}", self._name)
                        sig.append(leaf_type(x))
            elif t is Array:
                sig.append(leaf_type(x))
            elif isinstance(x, Tracer):
                a = x.aval
                sig.append((a.shape, a.dtype, a.weak_type))
            elif t in _PY_SCALARS:
                sig.append(t)
            else:
                sig.append(_leaf_signature(self._name, x, k))
        # (the named vmap axes around the call: a body holding collectives depends on them)
        key = (tuple(sig), tuple(statics), self._device, self._backend, axis_env())
        if self._bare_specs:  # (bare PartitionSpecs mean the current mesh's)
            key = (*key, get_mesh())
        return key, leaves, (statics, in_tree, dyn_args, dyn_kwargs)

    def _given_in_sharding(self, in_tree, dyn_args, dyn_kwargs, k: int):
        """What ``in_shardings`` gives leaf ``k`` of arguments with structure ``in_tree``
        (None: nothing), resolved once per structure (and current mesh)."""
        if self._shardings[0] is None:
            return None
        key = (in_tree, get_mesh()) if self._bare_specs else in_tree
        given = self._given.get(key)
        if given is None:
            given = given_in_shardings(self._shardings[0], dyn_args, bool(dyn_kwargs),
                                       self._name)
            if len(self._given) >= 64:  # (bounded: argument structures rarely vary)
                self._given.clear()
            self._given[key] = given
        return given[k] if k < len(given) else None

    # --- a miss: stage the function ----------------------------------------------------------
    def _miss(self, key, leaves, statics):
        shared = self._shared
        shared.misses += 1
        if config.explain_cache_misses:
            _explain_miss(self._name, shared.last_key, key, self._cache)
        start = time.perf_counter()
        entry, cacheable = self._stage(leaves, statics)
        entry.stage_s = time.perf_counter() - start
        if cacheable:
            self._cache[key] = entry
            shared.last_key = key
        return entry

    def _stage(self, leaves, statics):
        static_list, in_tree, _, _ = statics
        # float0 arguments are not operands: the function gets zeros of their shape
        _, in_holes = _float0.split(leaves)
        float0_out = []
        dyn_leaves = [x for x in leaves if not _float0.is_float0(x)] if in_holes else leaves
        operands = _as_operands(dyn_leaves)
        out_trees = []
        fun = self._fun

        def flat_fun(*flat):
            if in_holes:
                flat = _float0.fill(flat, in_holes)
            call_args, call_kwargs = tree.unflatten(in_tree, flat)
            call_args = list(call_args)
            for pos, value in static_list:
                if isinstance(pos, int):
                    call_args.insert(pos, value)
                else:
                    call_kwargs = {**call_kwargs, pos: value}
            out = fun(*call_args, **call_kwargs)
            out_leaves, out_tree = tree.flatten(out)
            out_trees.append(out_tree)
            out_leaves = [_as_output(self._name, x) for x in out_leaves]
            out_leaves, holes = _float0.split(out_leaves)
            float0_out.append(holes)
            return out_leaves

        trace = StagingTrace(current_trace())
        trace.fun_name = f"jit({self._name}){_defined_at(fun)}"
        static_positions = {pos for pos, _ in static_list if isinstance(pos, int)}
        trace.arg_names = _without_holes(
            _argument_names(self._fun, in_tree, len(leaves), static_positions), in_holes)
        tracers = [_new_arg(trace, leaf, x) for leaf, x in zip(dyn_leaves, operands)]
        with set_current_trace(trace):
            outs = flat_fun(*tracers)
        closed = trace.to_closed_ir(outs)
        call = closed_call(closed)
        # Closed-over tracers of an enclosing transform are operands of this one call only:
        # such an entry cannot be reused.
        cacheable = not any(isinstance(c, Tracer) for c in call.consts)
        donated = ()
        if self._donate_argnums or self._donate_argnames:
            npositional = len(statics[2]) + len(static_positions)
            flags = [False] * len(leaves)
            for k in _donated_leaves(in_tree, len(leaves), static_positions, npositional,
                                     self._donate_argnums, self._donate_argnames):
                flags[k] = True
            donated = tuple(len(call.consts) + k for k, flag in
                            enumerate(_without_holes(flags, in_holes)) if flag)
        out_tree, float0 = out_trees[0], None
        if in_holes or float0_out[0]:
            float0 = (frozenset(k for k, _ in in_holes or ()), float0_out[0], out_tree)
            out_tree = tree.structure(list(closed.ir.outs))
        entry = _Entry(call.ir, tuple(call.consts), out_tree, donated, float0)
        if float0 is None:
            entry.shardings, entry.leaf_placements = entry_shardings(
                *self._shardings, statics[2], bool(statics[3]), dyn_leaves,
                trace.arg_names or [], len(call.consts), out_tree, entry.out_avals,
                self._name)
        elif self._shardings != (None, None):
            raise NotImplementedError(f"jit({self._name}): in_shardings/out_shardings with "
                                      f"float0 arguments or outputs")
        return entry, cacheable

    # --- introspection -------------------------------------------------------------------------
    def lower(self, *args: Any, **kwargs: Any) -> Lowered:
        """Stage and lower for these arguments: ``.as_text()`` is the StableHLO module,
        ``.compile()`` compiles it.

        Example:
            >>> import funcarray as fa
            >>> import funcarray.numpy as fnp
            >>> lowered = fa.jit(fnp.cos).lower(fnp.ones(2))
            >>> "stablehlo.cosine" in lowered.as_text()
            True
            >>> lowered.compile()(fnp.zeros(2))
            Array([1., 1.], dtype=float32)
        """
        with set_current_trace(EVAL_TRACE):
            key, leaves, statics = self._key(args, kwargs)
            try:
                entry = self._cache.get(key) or self._stage(leaves, statics)[0]
            except TypeError as exc:
                if "unhashable" not in str(exc):
                    raise
                raise _unhashable_static(self._name, statics[0]) from None
        return Lowered(self, entry, key)

    def cache_info(self) -> CacheInfo:
        """Hits and misses of the dispatch cache (each miss staged and compiled ``fun``)."""
        return CacheInfo(self._shared.hits, self._shared.misses, None, len(self._cache))

    def clear_cache(self) -> None:
        """Forget every compiled signature of this function (with these jit options)."""
        self._shared.clear()

    def __repr__(self):
        return f"<jitted function {self._name}>"


def _leaf_paths(in_tree, count: int, static_positions) -> list:
    """Per flat argument: ``(original position or keyword name, rest of its pytree path)``."""
    dummy = tree.unflatten(in_tree, list(range(count)))
    paths, _, _ = tree.flatten_with_path(dummy)
    original = [i for i in range(count + len(static_positions)) if i not in static_positions]
    out = []
    for kind, first, *rest in paths:
        if kind == 0:
            first = original[first] if first < len(original) else first
        out.append((first, rest))
    return out


def _donated_leaves(in_tree, count, static_positions, npositional, argnums, argnames) -> list:
    """Flat argument indices belonging to donated arguments (``npositional``: how many
    positional arguments the call had, static ones included)."""
    positions = {i % npositional for i in argnums if -npositional <= i < npositional}
    return [k for k, (first, _) in enumerate(_leaf_paths(in_tree, count, static_positions))
            if first in positions or first in argnames]


def _argument_names(fun, in_tree, count: int, static_positions=frozenset()) -> list:
    """A readable name per flat argument: ``x``, ``params['w']``, ``args[2][0]``."""
    params = _signature_params(fun) or []
    positional = [p.name for p in params
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    try:
        dummy = tree.unflatten(in_tree, list(range(count)))
        paths, _, _ = tree.flatten_with_path(dummy)
    except Exception:  # noqa: BLE001 (names are a nicety for error messages only)
        return [f"argument {k}" for k in range(count)]
    original = [i for i in range(count + len(static_positions)) if i not in static_positions]
    names = []
    for path in paths:
        kind, first, *rest = path
        if kind == 0:
            first = original[first] if first < len(original) else first
            base = positional[first] if first < len(positional) else f"args[{first}]"
        else:
            base = str(first)
        names.append(base + "".join(f"[{p!r}]" for p in rest))
    return names


def _array_signature(x):
    """(shape, dtype, weak_type) of an Array, or None for anything else."""
    t = type(x)
    if t is DeviceArray:
        a = x._aval
        return (a.shape, a.dtype, a.weak_type)
    if t is Array:
        v = x._value
        return (v.shape, v.dtype, x._weak)
    return None


def _as_array(x):
    if isinstance(x, (Tracer, Array)):
        return x
    from funcarray.api.arguments import asarray_arg

    return asarray_arg("jit", x)


# Python floats and complexes reach the executable at double precision (see ``_new_arg``).
_EXACT_SCALAR_DTYPES = {float: np.dtype(np.float64), complex: np.dtype(np.complex128)}


def _as_operand(x):
    """An argument leaf as the executable receives it."""
    if isinstance(x, (Tracer, Array)):
        return x
    wide = _EXACT_SCALAR_DTYPES.get(type(x))
    if wide is not None:
        return Array(np.asarray(x, wide), True)
    return _as_array(x)


def _as_operands(leaves) -> list:
    return [_as_operand(x) for x in leaves]


def _new_arg(trace, leaf, operand):
    """The tracer the staged function gets for argument ``leaf`` (passed as ``operand``).

    A Python float (complex) is seen as a weak float32 (complex64), as eager mode and JAX
    type it, but received as a float64 (complex128): where the function converts it to
    another dtype, as ``x64 + 0.1`` does, the double-precision value is converted, so the
    result is eager mode's (1.1, not 1.10000000149).
    """
    if type(leaf) not in _EXACT_SCALAR_DTYPES:
        return trace.new_arg(operand.aval)
    seen_dtype = host_values.SCALAR_DEFAULTS[type(leaf)]

    def round_view(wide):
        with set_current_trace(trace):
            return convert_element_type_p.bind(wide, new_dtype=seen_dtype, weak_type=True)

    return trace.new_rounded_arg(operand.aval, round_view, convert_element_type_p)


def _leaf_signature(name, x, k):
    if _float0.is_float0(x):  # (zeros: only the shape matters)
        return (x.shape, x.dtype, False)
    if isinstance(x, (np.ndarray, np.generic)) or hasattr(x, "__array__"):
        arr = _as_array(x)
        return (arr.shape, arr.dtype, arr.weak_type)
    raise _mark(TypeError(
        f"jit({name}): argument leaf {k} is a {type(x).__name__} ({x!r:.60}), not an array. "
        f"Pass non-array arguments as static (static_argnums=... or static_argnames=...), or "
        f"register the type as a pytree (funcarray.tree.register_pytree_node)."))


def _as_output(name, x):
    if isinstance(x, (Tracer, Array)) or _float0.is_float0(x):
        return x
    if isinstance(x, (*_PY_SCALARS, np.ndarray, np.generic)):
        return _as_array(x)
    raise _mark(TypeError(f"jit({name}): the function returned a {type(x).__name__} "
                          f"({x!r:.60}); jitted functions must return arrays (pytrees of "
                          f"arrays)"))


def _without_holes(items: list, holes) -> list:
    """``items`` (one per argument leaf) less the float0 arguments' (``holes``)."""
    if not holes:
        return items
    positions = {k for k, _ in holes}
    return [x for k, x in enumerate(items) if k not in positions]


def _unhashable_static(name, statics):
    for pos, value in statics:
        try:
            hash(value)
        except TypeError:
            where = f"position {pos}" if isinstance(pos, int) else f"name {pos!r}"
            return _mark(TypeError(
                f"jit({name}): the static argument at {where} has unhashable type "
                f"{type(value).__name__} ({value!r:.60}). Static arguments key the compile "
                f"cache, so they must be hashable: pass a tuple instead of a list, or make "
                f"the argument a traced (non-static) array."))
    return _mark(TypeError(f"jit({name}): unhashable arguments"))


def _describe_leaf(sig) -> str:
    if isinstance(sig, type):
        return f"Python {sig.__name__}"
    shape, dtype, weak = sig
    from funcarray.transforms.core import short_dtype_name

    return f"{short_dtype_name(dtype)}[{','.join(map(str, shape))}]" + ("{weak}" if weak else "")


def _explain_miss(name, last_key, key, cache) -> None:
    if last_key is None:
        _logger().warning("jit(%s): compiling for the first time", name)
        return
    reasons = []
    (old_sig, old_statics, *_), (new_sig, new_statics, *_) = last_key, key
    if old_sig[0] != new_sig[0]:
        reasons.append(f"the argument structure changed from {old_sig[0]} to {new_sig[0]}")
    else:
        for k, (a, b) in enumerate(zip(old_sig[1:], new_sig[1:])):
            if a != b:
                reasons.append(f"argument leaf {k} changed from {_describe_leaf(a)} to "
                               f"{_describe_leaf(b)}")
    if old_statics != new_statics:
        old, new = dict(old_statics), dict(new_statics)
        for pos in sorted(set(old) | set(new), key=str):
            if old.get(pos) != new.get(pos):
                reasons.append(f"static argument {pos} changed from {old.get(pos)!r} to "
                               f"{new.get(pos)!r}")
    if last_key[2:4] != key[2:4]:
        reasons.append(f"the device changed from {last_key[2:4]} to {key[2:4]}")
    if last_key[4] != key[4]:
        reasons.append(f"the named vmap axes around the call changed from {last_key[4]} to "
                       f"{key[4]}")
    _logger().warning("jit(%s): recompiling (cache size %d) because %s", name, len(cache),
                   "; ".join(reasons) or "of a change in the arguments")


if TYPE_CHECKING:
    class JitWrapped(Protocol[_P, _R_co]):
        """What ``jit(fun)`` returns, for type checkers: a function with ``fun``'s signature
        and result type (a single Array where ``fun`` returns an ArrayLike: Python scalars
        come back as Arrays), and the jitted function's attributes."""

        def __call__(self, *args: _P.args, **kwargs: _P.kwargs) -> _R_co: ...
        def lower(self, *args: _P.args, **kwargs: _P.kwargs) -> Lowered: ...
        def cache_info(self) -> CacheInfo: ...
        def clear_cache(self) -> None: ...

        # (set by functools.update_wrapper)
        __name__: str
        __qualname__: str
        __wrapped__: Callable[..., Any]

        # A jitted function in a class body is a method: it binds like a function.
        @overload
        def __get__(self, instance: None, owner: type | None = None) -> Self: ...
        @overload
        def __get__(self, instance: object, owner: type | None = None
                    ) -> Callable[..., _R_co]: ...

    class _JitDecorator(Protocol):
        """What ``jit(static_argnums=...)`` (no function) returns: ``jit`` with those
        options."""

        @overload
        def __call__(self, fun: Callable[_P, ArrayLike], /) -> JitWrapped[_P, Array]: ...
        @overload
        def __call__(self, fun: Callable[_P, _R], /) -> JitWrapped[_P, _R]: ...


class Lowered:
    """A jitted function lowered for one signature (``jit(f).lower(*args)``)."""

    def __init__(self, jitted: Jitted, entry: _Entry, key):
        self._jitted = jitted
        self._entry = entry
        self._key = key

    @property
    def ir(self) -> IR:
        """The staged body (funcarray IR, call form: consts first)."""
        return self._entry.ir

    def as_text(self) -> str:
        """The StableHLO module (MLIR generic form) that XLA compiles."""
        from funcarray.lowering import cache

        platform = runtime_device(self._jitted._target_device()).platform
        return cache.lowered_text(self._entry.ir, self._entry.donated, platform,
                                  self._entry.shardings)

    def compile(self, compiler_options: dict[str, Any] | None = None) -> Compiled:
        """Compile (or fetch from the cache) the executable.

        ``compiler_options`` (a dict of XLA options, JAX's argument) are added to the jitted
        function's own; with any, the result is an executable of its own, which the jitted
        function's calls do not use.

        Example:
            >>> import funcarray as fa
            >>> import funcarray.numpy as fnp
            >>> lowered = fa.jit(lambda x: x * 2).lower(fnp.ones(2))
            >>> fast = lowered.compile({"xla_backend_optimization_level": 0})
            >>> fast(fnp.ones(2))
            Array([2., 2.], dtype=float32)
        """
        if compiler_options:
            extra = runtime.check_compiler_options(compiler_options, "Lowered.compile")
            options = tuple(sorted({**dict(self._jitted._compiler_options),
                                    **dict(extra)}.items()))
            entry = copy.copy(self._entry)
            self._jitted._compile(entry, options)
            return Compiled(self._jitted, entry)
        if self._entry.exe is None:
            self._jitted._compile(self._entry)
        return Compiled(self._jitted, self._entry)


class Compiled:
    """A compiled executable for one signature; callable with arguments of that signature."""

    def __init__(self, jitted: Jitted, entry: _Entry):
        self._jitted = jitted
        self._entry = entry

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        key, leaves, _ = self._jitted._key(args, kwargs)
        if self._entry.float0 is not None:
            operands = _as_operands([x for k, x in enumerate(leaves)
                                     if k not in self._entry.float0[0]])
        else:
            operands = _as_operands(leaves)
        want = [v.aval for v in self._entry.ir.in_binders[len(self._entry.consts):]]
        if len(want) != len(operands) or any(
                (x.shape, x.dtype) != (a.shape, a.dtype) for x, a in zip(operands, want)):
            got = ", ".join(x.aval.str_short() for x in operands)
            raise TypeError(f"Compiled {self._jitted._name}: called with ({got}), compiled for "
                            f"({', '.join(a.str_short() for a in want)}); call the jitted "
                            f"function instead to compile for new types")
        if self._entry.float0 is not None:
            return self._jitted._call_float0(self._entry, leaves)
        self._check_placements(leaves)
        return self._jitted._run_eagerly(self._entry, leaves)

    def _check_placements(self, leaves) -> None:
        """An argument split over devices must be split as the executable's parameter is
        (jaxlib would crash on another split; JAX raises here too); arrays on one device or
        the host are placed by the call."""
        exe = self._entry.exe
        if not exe.in_placements:
            wanted = [None] * len(leaves)
        else:
            wanted = exe.in_placements[len(self._entry.consts):]
        for k, (x, want) in enumerate(zip(leaves, wanted)):
            have = leaf_placement(x)
            if have is not None and have is not want:
                raise ValueError(
                    f"Compiled {self._jitted._name}: argument {k} is split as {have!r}, but "
                    f"the executable was compiled for "
                    f"{want if want is not None else 'one device'}; move it with "
                    f"funcarray.device_put(x, sharding), or call the jitted function, which "
                    f"compiles for the arguments' shardings")

    def as_text(self) -> str:
        """XLA's optimised HLO module, as text."""
        return self._entry.exe.loaded.hlo_modules()[0].to_string()

    @property
    def output_shardings(self) -> Any:
        """The sharding of each output (a pytree like the output): what the executable
        returns, as XLA's partitioner decided where ``out_shardings`` did not say."""
        exe = self._entry.exe
        if exe.in_placements:
            shardings = list(exe.out_placements)
        else:
            device = Device(exe.device.platform, exe.device.id)
            shardings = [SingleDeviceSharding(device) for _ in exe.out_avals]
        if self._entry.single_output:
            return shardings[0]
        return tree.unflatten(self._entry.out_tree, shardings)

    def cost_analysis(self) -> dict[str, Any]:
        """XLA's cost estimates (flops, bytes accessed...), as a dict."""
        return dict(self._entry.exe.loaded.cost_analysis())

    def memory_analysis(self) -> Any:
        """XLA's memory statistics (argument, output, temp sizes in bytes)."""
        return self._entry.exe.loaded.get_compiled_memory_stats()


@contextlib.contextmanager
def disable_jit(disable: bool = True) -> Iterator[None]:
    """Run jitted functions eagerly inside this block (``print`` and ``pdb`` see values).

    Example:
        >>> import funcarray as fa
        >>> import funcarray.numpy as fnp
        >>> @fa.jit
        ... def f(x):
        ...     print("running with", type(x).__name__)
        ...     return x + 1
        >>> with fa.disable_jit():
        ...     y = f(fnp.ones(2))
        running with Array
    """
    previous = config.disable_jit
    config.update("disable_jit", bool(disable))
    try:
        yield
    finally:
        config.update("disable_jit", previous)


def clear_caches() -> None:
    """Empty every compilation cache: each jitted function's, the lowering and executable
    caches, the memoised transformed bodies and eager ``cond``'s branch types; and let the
    recycled eager output buffers go.

    Example:
        >>> import funcarray as fa
        >>> fa.clear_caches()
    """
    import sys

    from funcarray.lowering import cache
    from funcarray.transforms import ir_transforms

    for shared in list(_all_trace_caches):
        shared.clear()
    cache.clear()
    executor.clear_eager_caches()
    ir_transforms._memo.clear()
    lax_common = sys.modules.get("funcarray.lax._common")  # loaded lazily with funcarray.lax
    if lax_common is not None:
        lax_common._EAGER_STAGED.clear()
    _buffers.release()


# Executables compiled for the old platform are stale once config.platform changes.
config.subscribe(("platform",), lambda name, value: clear_caches(), now=False)
