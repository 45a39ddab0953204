"""jit's dispatch fast path: from positional Array arguments to the executable in one pass.

A jitted function called outside every transform with positional arguments that are Arrays,
or dicts (string keys), lists or tuples of them (nested too), skips pytree flattening and the
general cache key. Two levels:

* The *guard* of the signature called last: one pass over the arguments that checks each
  leaf's shape, dtype and weak_type against the compiled signature and collects its device
  buffer at the same time. A loop calling a jitted step with the same types (the common case)
  costs one guard and one execution, both called by ``jit``'s dispatcher itself (one array,
  ``f(x)``, is checked there without the guard). A DeviceArray made for this signature
  carries its canonical aval, so its check is one identity test (~0.1 us a leaf).
* A table from the argument signature (``fast_signature``) to the compiled entry, for
  functions called with alternating signatures.

An entry compiled for several devices (an SPMD executable, see ``jit_shardings``) is served
through the table only, by ``_sharded_runner``, which checks each leaf's sharding by
identity. Anything else (keyword arguments, static arguments, other leaf types, a signature
not compiled yet, an array split over devices where the entry was compiled for one) returns
``MISS`` and takes ``Jitted._call``'s general path, which compiles and
then ``remember`` s the entry here.

Example:
    >>> import funcarray as fa
    >>> import funcarray.numpy as fnp
    >>> f = fa.jit(lambda p: p["w"] * 2.0)
    >>> _ = f({"w": fnp.ones(2)})  # compiles, remembers the signature
    >>> f({"w": fnp.ones(2)})      # the guard matches: straight to the executable
    Array([2., 2.], dtype=float32)
"""

from __future__ import annotations

import functools
from operator import itemgetter

from funcarray.base import pytrees as tree
from funcarray.base.array import Array, DeviceArray, device_array
from funcarray.base.avals import ShapedArray, canonical_aval
from funcarray.base.sharding import NamedSharding
from funcarray.lowering import executor, runtime

__all__ = ["FastPath", "MISS", "fast_signature", "leaf_type"]

MISS = object()  # the fast path's "not handled here" (None is a valid jitted output)

# dict keys in the order given -> in pytree (sorted) order; bounded (dicts with ever new
# keys must not grow it forever), functools' LRU map: C, ~50 ns a hit.
_sorted_names = functools.lru_cache(maxsize=1024)(lambda names: tuple(sorted(names)))


_MAX_DEPTH = 4  # containers nested deeper take the general path


def fast_signature(args):
    """``(key, leaves)`` for positional arguments that are Arrays or dicts (string keys),
    lists and tuples of them, nested up to ``_MAX_DEPTH`` (an MLP's ``[(w, b), ...]``, a
    ``{"layer": {"w": ..., "b": ...}}``), the common cases, without general pytree flattening
    (optree takes ~5 us for a dict of 8 arrays); None for anything else. ``leaves`` are in
    pytree order (dict keys sorted), so the entry's flat signature applies. The key lists,
    in that order, each container's kind and size (a dict: its sorted keys) and each leaf's
    type."""
    key, leaves = [], []
    for x in args:
        if not _collect(x, key, leaves, _MAX_DEPTH):
            return None
    return tuple(key), leaves


def _collect(x, key: list, leaves: list, depth: int) -> bool:
    t = type(x)
    if t is Array or t is DeviceArray:
        key.append(leaf_type(x))
        leaves.append(x)
        return True
    if depth == 0:
        return False
    if t is dict:
        try:
            ordered = _sorted_names(tuple(x))
        except TypeError:  # keys that do not sort (or hash): the general path
            return False
        items = [x[k] for k in ordered]
        key.append(ordered)
    elif t is list or t is tuple:
        items = x
        key.append((t, len(x)))
    else:
        return False
    for item in items:
        if not _collect(item, key, leaves, depth - 1):
            return False
    return True


class FastPath:
    """One jitted function's fast-path state (see the module docstring)."""

    __slots__ = ("table", "last")

    def __init__(self):
        self.table: dict = {}  # fast_signature key -> _FastEntry
        # The signature called last (``_FastEntry.last``): Jitted's dispatcher checks and
        # runs it itself (no call between it and the executable on the hottest path), then
        # tries ``call_by_signature``.
        self.last = None

    def call_by_signature(self, args):
        """The outputs for ``args`` through the signature table (when ``self.last`` did not
        match), or ``MISS`` when the fast path cannot handle them."""
        fast = fast_signature(args)
        if fast is None:
            return MISS
        entry = self.table.get(fast[0])
        if entry is None:
            return MISS
        self.last = entry.last
        return entry.run_leaves(fast[1])

    def remember(self, args, entry, run_eagerly) -> None:
        """Add the compiled ``entry`` for arguments like ``args`` (a no-op for other types).
        ``run_eagerly(entry, leaves)`` serves entries with donated arguments."""
        fast = fast_signature(args)
        if fast is not None:
            fast_entry = self.table[fast[0]] = _FastEntry(args, entry, run_eagerly)
            self.last = fast_entry.last

    def clear(self) -> None:
        self.table.clear()
        self.last = None


class _FastEntry:
    """A compiled entry's fast dispatch. Everything that does not depend on the argument
    values (device, executable, output types and tree) is looked up once here.

    * ``run_leaves(leaves)`` -> the outputs for the argument leaves (in pytree order), or
      MISS.
    * ``last``: what ``jit``'s dispatcher runs itself for arguments of the types this entry
      was made for (None for an entry with donated arguments, whose bookkeeping lives in
      ``Jitted._run_eagerly``, and for one compiled for several devices), the tuple
      ``(call, jdev, aval_x, start, finish, handlers, exe, out_aval, out_weak)``:
      ``call(args)`` -> the outputs, or MISS when the arguments' structure or types differ
      (one Python call from the arguments to the outputs); ``aval_x``: for the commonest
      entry, one array argument, one output and no consts, the canonical aval the argument
      was compiled for, which the dispatcher checks itself and then runs
      ``finish(start(bufs), handlers)[0]`` of executable ``exe`` (``runtime.execute_steps``)
      on device ``jdev`` and wraps it as an ``out_aval`` array; else None.
    """

    __slots__ = ("last", "run_leaves")

    def __init__(self, args, entry, run_eagerly):
        if entry.donated:
            self.last = None
            self.run_leaves = lambda leaves: run_eagerly(entry, leaves)
            return
        if entry.exe.in_placements:
            self.last = None
            self.run_leaves = _sharded_runner(entry)
            return
        exe = entry.exe
        start, finish, handlers = runtime.execute_steps(exe)
        call = _make_call(args, entry, start, finish, handlers)
        self.run_leaves = lambda leaves: call(None, leaves)
        aval_x = out_aval = None
        if (entry.single_output and not entry.consts and len(args) == 1
                and type(args[0]) in (Array, DeviceArray)):
            aval_x, out_aval = _leaf_spec(args[0])[3], entry.out_avals[0]
        self.last = (call, exe.device, aval_x, start, finish, handlers, exe, out_aval,
                     out_aval is not None and out_aval.weak_type)


def _sharded_runner(entry):
    """``run_leaves`` of an entry compiled for several devices (an SPMD executable): each
    leaf must carry the sharding the entry was compiled for, or its parameter's sharding,
    or none if it carried none (it is then placed as the parameter wants, as jit's general
    path does); MISS otherwise. Outputs are split as the executable's results are."""
    exe, consts = entry.exe, entry.consts
    start, finish, handlers = runtime.execute_steps(exe)
    to_buffer = executor.to_buffer
    const_places = exe.in_placements[:len(consts)]
    leaf_places = exe.in_placements[len(consts):]
    wanted = entry.leaf_placements
    outs_typed = list(zip(entry.out_avals, exe.out_placements))
    out_tree, single = entry.out_tree, entry.single_output

    # The consts' buffers split as the executable wants, made on the first call and kept:
    # such a buffer is a private copy, which nothing else can donate. (A const already
    # split that way is the user's array: its buffer is read at each call.)
    const_buffers: list = []

    def const_bufs():
        if len(const_buffers) != len(consts):
            private = []
            for c, p in zip(consts, const_places):
                cached = getattr(c, "_buf", None)
                private.append(None if cached is not None and cached[0] is p
                               else to_buffer(c, p))
            const_buffers[:] = private
        return [c._buf[1] if b is None else b for c, b in zip(consts, const_buffers)]

    def run_leaves(leaves):
        bufs = const_bufs() if consts else []
        for x, want, place in zip(leaves, wanted, leaf_places):
            cached = getattr(x, "_buf", None)
            have = cached[0] if cached is not None and type(cached[0]) is NamedSharding else None
            # (canonical shardings: identity is equality) An array split exactly as the
            # parameter is also taken: a training step's sharded outputs fed back in, where
            # the first call had host arrays, run without a new trace.
            if have is not want and have is not place:
                return MISS
            bufs.append(cached[1] if have is place else to_buffer(x, place))
        try:
            out_buffers = finish(start(bufs), handlers)
        except Exception as exc:  # noqa: BLE001
            runtime.raise_execution_error(exe, exc)
        outs = [device_array(p, b, a) for b, (a, p) in zip(out_buffers, outs_typed)]
        return outs[0] if single else tree.unflatten(out_tree, outs)

    return run_leaves


def _flat_kind(out_tree, count: int):
    """list or tuple when ``out_tree`` is a flat list or tuple of ``count`` leaves, else
    None."""
    for kind in (list, tuple):
        if out_tree == tree.structure(kind(range(count))):
            return kind
    return None


_new_object = object.__new__


def leaf_type(x) -> tuple:
    """``(shape, dtype, weak_type)`` of an Array or DeviceArray, read without building an
    aval (a DeviceArray's host value is not fetched)."""
    if type(x) is DeviceArray:
        a = x._aval
        return a.shape, a.dtype, a.weak_type
    v = x._value
    return v.shape, v.dtype, x._weak


def _leaf_spec(x) -> tuple:
    """What a guard checks a leaf against: its ``leaf_type`` and the canonical aval of that
    type (a DeviceArray made by jit or device_put carries it: one identity check)."""
    shape, dtype, weak = leaf_type(x)
    return shape, dtype, weak, canonical_aval(ShapedArray(shape, dtype, weak))


def _values_getter(names: tuple):
    """``getter(d)`` -> the values of dict ``d`` under ``names``, in that order (KeyError when
    one is missing); C-level (``operator.itemgetter``), ~5x cheaper than a comprehension."""
    if not names:  # (an empty dict: itemgetter takes at least one name)
        return lambda d: ()
    if len(names) == 1:
        (name,) = names
        return lambda d: (d[name],)
    return itemgetter(*names)


def _make_call(args, entry, start, finish, handlers):
    """``call(args, items=None)``: the outputs of compiled ``entry`` for positional ``args``
    when they have the structure and leaf types of the ``args`` given here, else MISS; with
    ``items`` (the argument leaves in pytree order, of a signature already matched), for
    those. (``args`` passed ``fast_signature``: Arrays, dicts, lists and tuples of them.)

    One function from the arguments to the outputs: checking, running and wrapping are
    written out in it, not called, since each Python call is a few percent of a small jitted
    call. Three steps:

    * the structure: positional Arrays and a single flat dict, the common cases, are
      written out; anything else, nested containers too, goes through ``_flatten_into``;
    * the leaves: a DeviceArray with the compiled aval (the identical, canonical object) on
      the executable's device, or a host Array of that type whose buffer is there, costs one
      lean loop step; the first other leaf sends every leaf through ``_checked_buffers``,
      which accepts equal non-canonical avals and other devices (copied over);
    * the run and the outputs, built as ``device_array`` builds them (written out too).
    """
    exe, consts, jdev = entry.exe, entry.consts, entry.exe.device
    to_buffer = executor.to_buffer
    specs = [_structure(x) for x in args]
    n_args = len(args)
    all_leaves = all(spec is None for spec in specs)
    root = (tuple, n_args, None, specs, all_leaves)
    leaves = []
    _flatten_into(args, root, leaves)
    leaf_specs = [_leaf_spec(x) for x in leaves]
    avals = [aval for *_, aval in leaf_specs]
    one_dict = n_args == 1 and specs[0] is not None and specs[0][0] is dict and specs[0][4]
    if one_dict:
        _, dict_size, dict_values, _, _ = specs[0]
    single = entry.single_output
    outs_typed = [(a, a.weak_type) for a in entry.out_avals]
    out_aval, out_weak = outs_typed[0] if outs_typed else (None, False)
    out_tree = entry.out_tree
    # A flat list or tuple of arrays, the commonest result with several outputs, is built
    # directly (tree.unflatten costs ~40 ns an output).
    flat_kind = None if single else _flat_kind(out_tree, len(outs_typed))
    new = _new_object

    def call(args, items=None):
        if items is None:
            if len(args) != n_args:
                return MISS
            if all_leaves:
                items = args
            elif one_dict:
                x = args[0]
                if type(x) is not dict or len(x) != dict_size:
                    return MISS
                try:
                    items = dict_values(x)
                except KeyError:  # other keys
                    return MISS
            else:
                items = []
                if not _flatten_into(args, root, items):
                    return MISS
        bufs = []
        lean = False
        # A host array never passed to jit has no ``_buf`` yet (AttributeError): it takes
        # the full check, which puts it on the device.
        try:
            for item, aval in zip(items, avals):
                t = type(item)
                if t is DeviceArray:
                    if item._aval is not aval:
                        break
                elif t is Array:
                    v = item._value
                    if not (v.shape == aval.shape and v.dtype is aval.dtype
                            and item._weak == aval.weak_type):
                        break
                else:
                    return MISS
                cached = item._buf  # (device, buffer): see array.DeviceArray
                if cached[0] is not jdev:
                    break
                bufs.append(cached[1])
            else:
                lean = True
        except AttributeError:
            pass
        if not lean:
            bufs = _checked_buffers(items, leaf_specs, jdev, to_buffer)
            if bufs is MISS:
                return MISS
        if consts:  # resolved per call: a const's buffer may have been donated since
            bufs = [to_buffer(c, jdev) for c in consts] + bufs
        try:
            out_buffers = finish(start(bufs), handlers)
        except Exception as exc:  # noqa: BLE001
            runtime.raise_execution_error(exe, exc)
        if single:  # (no list of one output to build and index)
            out = new(DeviceArray)  # device_array(), written out
            out._weak = out_weak
            out._buf = (jdev, out_buffers[0])
            out._aval = out_aval
            out._ready = False
            return out
        outs = []
        for b, (a, weak) in zip(out_buffers, outs_typed):
            out = new(DeviceArray)
            out._weak = weak
            out._buf = (jdev, b)
            out._aval = a
            out._ready = False
            outs.append(out)
        if flat_kind is list:
            return outs
        if flat_kind is tuple:
            return tuple(outs)
        return tree.unflatten(out_tree, outs)

    return call


def _structure(x):
    """What a guard checks a positional argument's structure against: None for a leaf, else
    ``(kind, size, values, children, flat)``: the container's type and length, for a dict
    the getter of its values by sorted key (pytree order, so a dict with the same keys in
    another order matches too), the children's structures, and whether they are all leaves
    (then one ``extend`` flattens it)."""
    t = type(x)
    if t is Array or t is DeviceArray:
        return None
    if t is dict:
        ordered = _sorted_names(tuple(x))
        children = [_structure(x[k]) for k in ordered]
        values = _values_getter(ordered)
    else:
        children = [_structure(v) for v in x]
        values = None
    return t, len(x), values, children, all(c is None for c in children)


def _flatten_into(x, spec, items: list) -> bool:
    """Append the leaves of ``x`` to ``items`` if it has structure ``spec``; else False."""
    kind, size, values, children, flat = spec
    if type(x) is not kind or len(x) != size:
        return False
    if values is not None:
        try:
            x = values(x)
        except KeyError:  # other keys
            return False
    if flat:
        items.extend(x)
        return True
    for item, child in zip(x, children):
        if child is None:
            items.append(item)
        elif not _flatten_into(item, child, items):
            return False
    return True


def _checked_buffers(items, leaf_specs, jdev, to_buffer):
    """The device buffers of ``items`` (Arrays or DeviceArrays) on ``jdev``, copying where
    needed, or MISS when a leaf's shape, dtype or weak_type differs from ``leaf_specs``."""
    bufs = []
    for item, (shape, dtype, weak, aval) in zip(items, leaf_specs):
        t = type(item)
        if t is DeviceArray:
            a = item._aval
            if a is not aval and (a.shape != shape or a.dtype is not dtype
                                  or a.weak_type != weak):
                return MISS
        elif t is Array:
            v = item._value
            if v.shape != shape or v.dtype is not dtype or item._weak != weak:
                return MISS
        else:
            return MISS
        cached = getattr(item, "_buf", None)  # unset on a host array never passed to jit
        if cached is not None and type(cached[0]) is NamedSharding:
            return MISS  # (split over devices: jit's general path compiles for that)
        bufs.append(cached[1] if cached is not None and cached[0] is jdev
                    else to_buffer(item, jdev))
    return bufs
