"""Structured control flow: ``while_loop``, ``fori_loop``, ``scan``, ``map``,
``associative_scan`` and ``select_n`` (JAX's ``jax.lax`` signatures; ``cond`` and ``switch``
are in ``_branches.py``).

Outside every transform the user's functions run as plain Python on concrete values, so
``print`` and ``pdb`` work inside a branch or a loop body. Under a transform (jit, grad,
vmap...) they are staged to IR -- values they close over become leading operands -- and bound
as the higher-order primitives of ``funcarray/primitives/control_flow.py``, whose rules make
them compose with every transform. The eager loops keep their own bookkeeping on NumPy
values (slicing xs, stacking ys, checking carries, ``associative_scan``'s slicing and
interleaving), so that a small body costs about what its own operations cost.
"""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING, overload

import numpy as np

from funcarray.api.arguments import (
    _concatenate,
    _concatenate_arrays,
    _insert_axis,
    _reshape,
    _rev,
    _stack_arrays,
    asarray_arg,
    canonicalize_axis,
    is_array,
)
from funcarray.base import dtypes
from funcarray.base import pytrees as fa_tree
from funcarray.base.array import Array, DeviceArray, new_array
from funcarray.base.errors import op_type_error, op_value_error
from funcarray.lax._branches import cond
from funcarray.lax._common import (
    _CONCRETE,
    _LEAF,
    _arrays,
    _as_leaves,
    _check_callable,
    _convert,
    _eager,
    _int32,
    _paths,
    _scalar,
    _stage,
)
from funcarray.primitives._axis_slice import slice_axis as _slice_axis
from funcarray.primitives.control_flow import scan_p, while_p
from funcarray.primitives.control_flow_bodies import convert_outputs
from funcarray.primitives.conversions import convert_kernel
from funcarray.primitives.select_n import select_n_kernel, select_n_p
from funcarray.transforms.core import to_concrete_value
from funcarray.transforms.host_shortcuts import host_shortcut, host_value
from funcarray.transforms.ir_transforms import CallForm

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar

    from funcarray.base.typing import ArrayLike

    _T = TypeVar("_T")
    _Carry = TypeVar("_Carry")
    _X = TypeVar("_X")
    _Y = TypeVar("_Y")

__all__ = ["while_loop", "fori_loop", "scan", "map", "associative_scan", "select_n"]


# --------------------------------------------------------------------------------------------
# Carries: the loop-carried values of while_loop and scan
# --------------------------------------------------------------------------------------------

def _carry_error(what, body_name, path, before, after):
    return TypeError(
        f"{what}: {body_name} must return a carry of the same type as its input, but carry"
        f"{path} is {before} on input and {after} in {body_name}'s output. Make the body "
        f"return values of the carry's shape and dtype (e.g. with .astype(...)).")


def _fix_carry(what, body_name, carry, out_avals, carry_tree):
    """Reconcile a staged body's carry outputs with the carry: returns ``(carry, targets)``,
    the carry to restage with (None if it is fine) and the output types to convert to."""
    paths = _paths(carry_tree)
    new_carry, changed, targets = [], False, []
    for path, x, out in zip(paths, carry, out_avals):
        aval = x.aval
        if out.shape != aval.shape or (out.dtype != aval.dtype and not aval.weak_type):
            raise _carry_error(what, body_name, path, aval.str_short(), out.str_short())
        if aval.weak_type and (out.dtype != aval.dtype or not out.weak_type):
            # A Python-scalar initial value adopts the type the body gives it (as in JAX).
            new_carry.append(_convert(x, out))
            changed = True
            targets.append(out)
        else:
            new_carry.append(x)
            targets.append(aval)
    return (new_carry if changed else None), targets


def _check_eager_carry(what, body_name, before, after, carry_tree) -> None:
    leaves, tree = fa_tree.flatten(after)
    if tree == carry_tree and _same_array_types(before, leaves):
        return
    if tree != carry_tree:
        raise TypeError(f"{what}: {body_name} must return a carry of the same pytree "
                        f"structure as its input, got {tree} for {carry_tree}")
    leaves = _as_leaves(what, leaves)
    for i, (x, y) in enumerate(zip(before, leaves)):
        if x.shape != y.shape or (x.dtype != y.dtype and not x.weak_type):
            # (paths are built only here: this check runs at every eager iteration)
            raise _carry_error(what, body_name, _paths(carry_tree)[i], x.aval.str_short(),
                               y.aval.str_short())


def _carry_test(init, leaves, carry_tree):
    """A cheap test, run at each eager iteration, that a body's output is a carry of the
    types of ``leaves``: an array (host or device) of its leaf's shape and dtype (any dtype
    for a weak leaf, as ``_check_eager_carry`` allows) where the carry is one array, a tuple
    or list of such arrays where it is a flat tuple or list of leaves. It is False for
    anything else, which ``_check_eager_carry`` then decides, flattening it."""
    types = []
    for x in leaves:
        if type(x) not in _CONCRETE:
            return _never
        types.append((x.shape, x.dtype, x._weak))
    if carry_tree.num_nodes == 1 and carry_tree.num_leaves == 1:
        (shape, dtype, weak), = types

        def is_leaf_carry(out) -> bool:
            value = _typed(out)
            return value is not None and value.shape == shape and (value.dtype == dtype or weak)
        return is_leaf_carry
    # (a flat container: one node for it, one per leaf)
    container = type(init) if carry_tree.num_nodes == len(leaves) + 1 else None
    if container not in (tuple, list):
        return _never
    n = len(types)

    def is_flat_carry(out) -> bool:
        if type(out) is not container or len(out) != n:
            return False
        k = 0  # (indexing types costs less than zipping them in: ~0.1 us a leaf)
        for y in out:
            value = _typed(y)
            if value is None:
                return False
            shape, dtype, weak = types[k]
            if value.shape != shape or (value.dtype != dtype and not weak):
                return False
            k += 1
        return True
    return is_flat_carry


def _never(out) -> bool:
    return False


def _typed(x):
    """What holds an array's shape and dtype: a host array's value, a device array's aval
    (reading its value would fetch it); None for anything else."""
    t = type(x)
    if t is Array:
        return x._value
    if t is DeviceArray:
        return x._aval
    return None


def _same_array_types(before, leaves) -> bool:
    """Whether every leaf is an Array of its carry's shape and dtype (or any dtype, for a
    weak carry): the common case of the check above, run at every eager iteration."""
    for x, y in zip(before, leaves):
        if type(y) is not Array or type(x) not in _CONCRETE:
            return False
        vy = y._value
        if x.shape != vy.shape or (x.dtype != vy.dtype and not x._weak):
            return False
    return True


# --------------------------------------------------------------------------------------------
# while_loop / fori_loop
# --------------------------------------------------------------------------------------------

@overload
def while_loop(cond_fun: Callable[[Array], Any], body_fun: Callable[[Array], ArrayLike],
               init_val: ArrayLike, *, max_steps: int | None = None) -> Array: ...
@overload
def while_loop(cond_fun: Callable[[_T], Any], body_fun: Callable[[_T], _T], init_val: _T, *,
               max_steps: int | None = None) -> _T: ...
def while_loop(cond_fun, body_fun, init_val, *, max_steps=None):
    """``val = init_val; while cond_fun(val): val = body_fun(val)``; returns ``val``.

    ``cond_fun`` returns a boolean scalar; ``body_fun`` returns a value of the same pytree
    structure, shapes and dtypes as ``init_val``. Under ``vmap`` with a batched predicate the
    loop runs until every member is done (finished members keep their value). Forward-mode
    differentiation works; reverse mode (``grad``) needs ``max_steps``, a bound on the
    number of iterations.

    ``max_steps=N`` (beyond JAX) bounds the loop: it stops after at most ``N`` iterations,
    even if ``cond_fun`` is still true then (like a ``fori_loop`` of ``N`` steps that skips
    the body once ``cond_fun`` is false). Under a transform such a loop is a ``scan`` of
    ``N`` steps whose body is a ``cond`` (the user's body runs only while ``cond_fun`` holds),
    so it is differentiable in reverse mode too (``grad`` through an unbounded loop raises
    an error pointing here); compiled, it runs ``N`` steps, the finished ones doing nothing
    but evaluate ``cond_fun``. Outside every transform it is a Python loop that stops as soon
    as ``cond_fun`` is false.

    Example:
        >>> import funcarray as fa
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.while_loop(lambda v: v[0] < 5, lambda v: (v[0] + 1, v[1] * 2.0), (0, 1.0))
        (Array(5, dtype=int32, weak_type=True), Array(32., dtype=float32, weak_type=True))
        >>> halve = lambda x: lax.while_loop(lambda v: v > 1.0, lambda v: v * 0.5, x,
        ...                                  max_steps=10)
        >>> halve(fnp.float32(5.0)), fa.grad(halve)(fnp.float32(5.0))
        (Array(0.625, dtype=float32), Array(0.125, dtype=float32))
    """
    _check_callable("while_loop", "cond_fun", cond_fun)
    _check_callable("while_loop", "body_fun", body_fun)
    if max_steps is not None:
        max_steps = _max_steps(max_steps)
    leaves, carry_tree = _flat_leaves("while_loop", init_val)
    if _eager():
        return _eager_while(cond_fun, body_fun, init_val, leaves, carry_tree, max_steps)
    if max_steps is not None:
        return _bounded_while(cond_fun, body_fun, init_val, leaves, carry_tree, max_steps)
    return fa_tree.unflatten(carry_tree, _staged_while(cond_fun, body_fun, leaves, carry_tree))


def _eager_while(cond_fun, body_fun, init_val, leaves, carry_tree, max_steps):
    """The loop as Python on concrete values, each new carry checked (``_carry_test``)."""
    # (the carry as arrays, as the body sees it under jit: 0.0 has .astype and .shape)
    val = fa_tree.unflatten(carry_tree, leaves)
    is_carry = _carry_test(init_val, leaves, carry_tree)
    all_arrays, steps = True, 0
    while (max_steps is None or steps < max_steps) and _eager_pred(cond_fun(val)):
        val = body_fun(val)
        all_arrays = is_carry(val)
        if not all_arrays:
            _check_eager_carry("while_loop", "body_fun", leaves, val, carry_tree)
        steps += 1
    return val if all_arrays else _arrays("while_loop", val)


def _max_steps(max_steps) -> int:
    steps = None
    if isinstance(max_steps, (int, np.integer)) and not isinstance(max_steps, bool):
        steps = int(max_steps)
    elif is_array(max_steps) and max_steps.shape == () and max_steps.dtype.kind in "iu":
        steps = _concrete_int(max_steps)  # None when traced
    if steps is None or steps < 0:
        raise TypeError(f"while_loop: max_steps must be a concrete non-negative integer (a "
                        f"bound on the number of iterations), got {max_steps!r}")
    return steps


def _bounded_while(cond_fun, body_fun, init_val, leaves, carry_tree, max_steps):
    """The loop as a scan of ``max_steps`` steps, each ``cond(cond_fun(val), body_fun,
    identity)``: once ``cond_fun`` is false the value no longer changes, so neither does
    the predicate, and every later step keeps it."""
    def checked_body(val):
        out = body_fun(val)
        # Checked here so that a wrong carry is reported as while_loop's, not cond's.
        _check_eager_carry("while_loop", "body_fun", fa_tree.leaves(val), out, carry_tree)
        return out

    def step(val, _):
        pred = _checked_pred(cond_fun(val))
        return cond(pred, checked_body, lambda v: v, val), None

    init = fa_tree.unflatten(carry_tree, leaves)
    return scan(step, init, None, length=max_steps)[0]


def _checked_pred(pred):
    pred = pred if is_array(pred) else asarray_arg("while_loop", pred)
    if pred.shape != () or pred.dtype != np.bool_:
        raise TypeError(f"while_loop: cond_fun must return a boolean scalar, got "
                        f"{pred.aval.str_short()}")
    return pred


def _eager_pred(pred) -> bool:
    if type(pred) is Array:
        value = pred._value
        if type(value) is np.bool_:  # (what a comparison of 0-d arrays gives)
            return bool(value)
        if value.dtype == np.bool_ and not value.shape:
            return bool(value)
    return bool(np.asarray(_checked_pred(pred)._value))


def _staged_while(cond_fun, body_fun, leaves, carry_tree) -> list:
    for _ in range(2):
        avals = [x.aval for x in leaves]
        store = {}

        def body_flat(*xs):
            out = body_fun(fa_tree.unflatten(carry_tree, xs))
            out_leaves, store["tree"] = fa_tree.flatten(out)
            return _as_leaves("while_loop: the output of body_fun", out_leaves)

        body = _stage(body_flat, avals)
        if store["tree"] != carry_tree:
            raise TypeError(f"while_loop: body_fun must return a carry of the same pytree "
                            f"structure as init_val, got {store['tree']} for {carry_tree}")
        new_leaves, targets = _fix_carry("while_loop", "body_fun", leaves, body.ir.out_avals,
                                         carry_tree)
        if new_leaves is None:
            break
        leaves = new_leaves
    body = CallForm((convert_outputs(body.ir, targets), body.consts))

    def cond_flat(*xs):
        return [_checked_pred(cond_fun(fa_tree.unflatten(carry_tree, xs)))]

    cond = _stage(cond_flat, [x.aval for x in leaves])
    return while_p.bind(*cond.consts, *body.consts, *leaves, cond_ir=cond.ir, body_ir=body.ir,
                        cond_nconsts=len(cond.consts), body_nconsts=len(body.consts))


def _concrete_int(x):
    if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
        return int(x)
    value = to_concrete_value(x)
    return None if value is None else int(np.asarray(value))


def _eager_fori(lower, upper, dtype, body_fun, init_val):
    """The loop as Python on concrete values, each new carry checked as jit checks it (the
    staged loop is a scan or while_loop of the same carry)."""
    val = init_val if type(init_val) in _CONCRETE else _arrays("fori_loop", init_val)
    leaves, carry_tree = _flat_leaves("fori_loop", val)
    is_carry = _carry_test(val, leaves, carry_tree)
    for i in range(lower, upper):
        val = body_fun(new_array(np.asarray(i, dtype)), val)
        if not is_carry(val):
            _check_eager_carry("fori_loop", "body_fun", leaves, val, carry_tree)
    return val if type(val) in _CONCRETE else _arrays("fori_loop", val)


@overload
def fori_loop(lower: ArrayLike, upper: ArrayLike, body_fun: Callable[[Any, Array], ArrayLike],
              init_val: ArrayLike, *, unroll: int | bool | None = None) -> Array: ...
@overload
def fori_loop(lower: ArrayLike, upper: ArrayLike, body_fun: Callable[[Any, _T], _T],
              init_val: _T, *, unroll: int | bool | None = None) -> _T: ...
def fori_loop(lower, upper, body_fun, init_val, *, unroll=None):
    """``val = init_val; for i in range(lower, upper): val = body_fun(i, val)``.

    With concrete bounds (Python ints, or concrete arrays) the loop is a ``scan`` of
    ``upper - lower`` steps, so it is reverse-differentiable; otherwise a ``while_loop``.
    ``unroll`` (an int or bool) is accepted for JAX compatibility and passed to ``scan``, which
    ignores it; as in JAX it needs concrete bounds.

    Example:
        >>> import funcarray as fa
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> power = lambda x: lax.fori_loop(0, 3, lambda i, v: v * x, 1.0)
        >>> power(fnp.float32(2.0)), fa.grad(power)(fnp.float32(2.0))
        (Array(8., dtype=float32), Array(12., dtype=float32))
    """
    _check_callable("fori_loop", "body_fun", body_fun)
    if (type(lower) is int and type(upper) is int and -2**31 <= lower < 2**31
            and -2**31 <= upper < 2**31 and (unroll is None or isinstance(unroll, (bool, int)))
            and _eager()):
        # Python int bounds: int32 counters (what the general conversion below gives them)
        return _eager_fori(lower, upper, np.dtype(np.int32), body_fun, init_val)
    lo = _scalar("fori_loop", "lower", lower)
    hi = _scalar("fori_loop", "upper", upper)
    if lo.dtype.kind not in "iu" or hi.dtype.kind not in "iu":
        raise TypeError(f"fori_loop: lower and upper must be integers, got {lo.dtype} and "
                        f"{hi.dtype}")
    dtype = dtypes.result_type(lo, hi)
    lo = _convert(lo, lo.aval.update(dtype=dtype, weak_type=False))
    hi = _convert(hi, hi.aval.update(dtype=dtype, weak_type=False))
    if unroll is not None and not isinstance(unroll, (bool, int)):
        raise TypeError(f"fori_loop: unroll must be an int or a bool, got {unroll!r}")
    if _eager():
        return _eager_fori(int(np.asarray(lo._value)), int(np.asarray(hi._value)), dtype,
                           body_fun, init_val)
    lo_int, hi_int = _concrete_int(lower), _concrete_int(upper)
    if lo_int is not None and hi_int is not None:
        def step(carry, _):
            i, val = carry
            return (i + 1, body_fun(i, val)), None
        (_, val), _ = scan(step, (lo, init_val), None, length=builtins.max(hi_int - lo_int, 0),
                           unroll=1 if unroll is None else unroll)
        return val
    if unroll is not None:
        raise ValueError("fori_loop: unroll= needs loop bounds known before tracing (Python "
                         "ints or concrete arrays); these are traced. Drop unroll= or make "
                         "the bounds static (static_argnums).")

    def body(carry):
        i, hi_, val = carry
        return i + 1, hi_, body_fun(i, val)
    return while_loop(lambda c: c[0] < c[1], body, (lo, hi, init_val))[2]


# --------------------------------------------------------------------------------------------
# scan / map
# --------------------------------------------------------------------------------------------

@overload
def scan(f: Callable[[Array, _X], tuple[ArrayLike, _Y]], init: ArrayLike, xs: _X | None = None,
         length: int | None = None, reverse: bool = False, unroll: int | bool = 1
         ) -> tuple[Array, _Y]: ...
@overload
def scan(f: Callable[[_Carry, _X], tuple[_Carry, _Y]], init: _Carry, xs: _X | None = None,
         length: int | None = None, reverse: bool = False, unroll: int | bool = 1
         ) -> tuple[_Carry, _Y]: ...
def scan(f, init, xs=None, length=None, reverse=False, unroll=1):
    """Loop ``carry, y = f(carry, x)`` over the leading axis of ``xs``; returns the final
    carry and the ``y`` s stacked.

    ``xs`` is a pytree of arrays with one leading length (or None, with ``length``);
    ``reverse`` scans from the last element to the first (the ys keep their positions).
    ``unroll`` is accepted for compatibility and ignored.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.scan(lambda c, x: (c + x, c * x), 0.0, fnp.arange(1.0, 4.0))
        (Array(6., dtype=float32), Array([0., 2., 9.], dtype=float32))
    """
    _check_callable("scan", "f", f)
    x_leaves, xs_tree = _flat_leaves("scan", xs)
    length = _scan_length(x_leaves, length)
    carry_leaves, carry_tree = _flat_leaves("scan", init)
    if _eager() and length > 0:
        try:
            return _eager_scan(f, init, x_leaves, xs_tree, carry_leaves, carry_tree, length,
                               bool(reverse))
        except _YsStructureError as exc:
            # The ys changed structure between eager steps. Where only their static parts
            # differ (fa.vjp's function is made anew at each step, its residuals being the
            # leaves) JAX, which traces f once, stacks them: so trace f once too. A body
            # that really changes structure (or cannot be traced) keeps this error.
            try:
                return _staged_scan(f, x_leaves, xs_tree, carry_leaves, carry_tree, length,
                                    reverse)
            except Exception:
                raise exc from None
    return _staged_scan(f, x_leaves, xs_tree, carry_leaves, carry_tree, length, reverse)


def _flat_leaves(what, tree):
    """``fa_tree.flatten(tree)`` with its leaves as arrays (one array: no pytree work)."""
    if type(tree) in _CONCRETE:
        return [tree], _LEAF
    leaves, treedef = fa_tree.flatten(tree)
    return _as_leaves(what, leaves), treedef


def _staged_scan(f, x_leaves, xs_tree, carry_leaves, carry_tree, length, reverse):
    """scan with ``f`` traced once into the body of a ``scan`` primitive."""
    slice_avals = [x.aval.update(shape=x.shape[1:]) for x in x_leaves]
    for _ in range(2):
        store = {}

        def body_flat(*args, carry_tree=carry_tree):
            n = carry_tree.num_leaves
            carry = fa_tree.unflatten(carry_tree, args[:n])
            x = fa_tree.unflatten(xs_tree, args[n:])
            out = f(carry, x)
            if not (isinstance(out, (tuple, list)) and len(out) == 2):
                raise TypeError(f"scan: f must return a pair (carry, y), got "
                                f"{type(out).__name__}")
            c_leaves, store["carry"] = fa_tree.flatten(out[0])
            y_leaves, store["y"] = fa_tree.flatten(out[1])
            return _as_leaves("scan: the output of f", [*c_leaves, *y_leaves])

        body = _stage(body_flat, [x.aval for x in carry_leaves] + slice_avals)
        if store["carry"] != carry_tree:
            raise TypeError(f"scan: f must return a carry of the same pytree structure as "
                            f"init, got {store['carry']} for {carry_tree}")
        n = len(carry_leaves)
        new_carry, targets = _fix_carry("scan", "f", carry_leaves, body.ir.out_avals[:n],
                                        carry_tree)
        if new_carry is None:
            break
        carry_leaves = new_carry
    targets += body.ir.out_avals[n:]
    body = CallForm((convert_outputs(body.ir, targets), body.consts))
    outs = scan_p.bind(*body.consts, *carry_leaves, *x_leaves, body=body.ir, length=length,
                       reverse=bool(reverse), num_consts=len(body.consts), num_carry=n)
    return fa_tree.unflatten(carry_tree, outs[:n]), fa_tree.unflatten(store["y"], outs[n:])


def _scan_length(x_leaves, length) -> int:
    lengths = set()
    for x in x_leaves:
        if not x.shape:
            raise TypeError(f"scan: every leaf of xs needs a leading axis to scan over, got "
                            f"a scalar {x.aval.str_short()}")
        lengths.add(x.shape[0])
    if length is not None:
        length = _concrete_int(length)
        if length is None:
            raise TypeError("scan: length must be a concrete integer")
        if length < 0:
            raise ValueError(f"scan: length must be non-negative, got length={length}")
        if lengths - {length}:
            raise ValueError(f"scan: length={length} but xs have leading axes of sizes "
                             f"{sorted(lengths)}")
        return length
    if not lengths:
        raise ValueError("scan: got no xs to scan over and no length; pass length=")
    if len(lengths) > 1:
        raise ValueError(f"scan: all xs must have the same leading axis size, got "
                         f"{sorted(lengths)}")
    return lengths.pop()


def _eager_scan(f, init, x_leaves, xs_tree, carry_leaves, carry_tree, length, reverse):
    # Outside every transform the values are concrete: the slices of xs are taken, and the
    # ys stacked, on the NumPy values directly (a primitive per slice would cost more than
    # a small loop body).
    if (xs_tree.num_nodes == 1 and carry_tree.num_nodes == 1 and len(x_leaves) == 1
            and len(carry_leaves) == 1 and type(carry_leaves[0]) is Array):
        return _eager_scan_arrays(f, carry_leaves[0], x_leaves[0], reverse)
    values = [np.asarray(x._value) for x in x_leaves]
    carry, ys, y_tree = init, [], None
    is_carry = _carry_test(init, carry_leaves, carry_tree)
    for i in (range(length - 1, -1, -1) if reverse else range(length)):
        x = fa_tree.unflatten(xs_tree, [Array(np.asarray(v[i]), leaf.weak_type)
                                        for v, leaf in zip(values, x_leaves)])
        carry, y = _scan_step_output(f(carry, x))
        if not is_carry(carry):
            _check_eager_carry("scan", "f", carry_leaves, carry, carry_tree)
        y_leaves, tree = fa_tree.flatten(y)
        if y_tree is not None and tree != y_tree:
            raise _ys_structure_error(y_tree, tree)
        y_tree = tree
        ys.append(_as_leaves("scan: the output of f", y_leaves))
    if reverse:
        ys.reverse()
    return _arrays("scan", carry), fa_tree.unflatten(y_tree, [_stack(col) for col in zip(*ys)])


def _eager_scan_arrays(f, carry, xs, reverse):
    """``_eager_scan`` when the carry and xs are single arrays (an RNN): the loop runs
    without pytree work when f returns (Array, Array) of unchanged types, and falls back to
    the general checks for a step that does not. Its per-step cost is a few hundred ns."""
    init = carry
    cshape, cdtype = carry.shape, carry.dtype
    weak = xs._weak
    ys, y_tree = [], None
    values = np.asarray(xs._value)
    for row in (values[::-1] if reverse else values):
        out = f(carry, new_array(row, weak))
        if type(out) is tuple and len(out) == 2:
            new, y = out
        else:
            new, y = _scan_step_output(out)
        if not (type(new) is Array and new._value.shape == cshape
                and new._value.dtype == cdtype):
            _check_eager_carry("scan", "f", [init], new, fa_tree.structure(init))
        carry = new
        if type(y) is Array and (y_tree is None or y_tree is _ONE_ARRAY):
            y_tree = _ONE_ARRAY
            ys.append(y)
            continue
        y_tree = _other_ys(ys, y, y_tree)
    if reverse:
        ys.reverse()
    if type(carry) is not Array:
        carry = _arrays("scan", carry)
    if y_tree is _ONE_ARRAY:
        return carry, _stack(ys)
    return carry, fa_tree.unflatten(y_tree, [_stack(col) for col in zip(*ys)])


def _eager_map_array(f, xs):
    """An eager ``map`` over the rows of one array: ``_eager_scan_arrays`` without a carry
    (the general path is a scan whose carry is ``()``, whose pytree work costs more than a
    small ``f``)."""
    weak = xs._weak
    ys, y_tree = [], None
    for row in np.asarray(xs._value):
        y = f(Array(np.asarray(row), weak))  # (a 0-d array, not a NumPy scalar, as in scan)
        if type(y) is Array and (y_tree is None or y_tree is _ONE_ARRAY):
            y_tree = _ONE_ARRAY
            ys.append(y)
            continue
        y_tree = _other_ys(ys, y, y_tree)
    if y_tree is _ONE_ARRAY:
        return _stack(ys)
    return fa_tree.unflatten(y_tree, [_stack(col) for col in zip(*ys)])


# _eager_scan_arrays' marker for "every y so far is a single Array" (kept in a flat list).
_ONE_ARRAY = object()


def _other_ys(ys, y, y_tree):
    """Append a ``y`` that is not a single Array to ``ys`` (lists of leaves from now on);
    returns its tree structure, checked against the previous steps'."""
    if y_tree is _ONE_ARRAY:  # the earlier steps gave single Arrays: convert them to leaf lists
        ys[:] = [(prev,) for prev in ys]
        y_tree = fa_tree.structure(ys[0][0])
    leaves, tree = fa_tree.flatten(y)
    if y_tree is not None and tree != y_tree:
        raise _ys_structure_error(y_tree, tree)
    ys.append(_as_leaves("scan: the output of f", leaves))
    return tree


def _scan_step_output(out):
    if not (isinstance(out, (tuple, list)) and len(out) == 2):
        raise TypeError(f"scan: f must return a pair (carry, y), got {type(out).__name__}")
    return out[0], out[1]


class _YsStructureError(TypeError):
    """An eager scan's ys changed pytree structure between steps."""


def _ys_structure_error(before, after) -> TypeError:
    return _YsStructureError(f"scan: f must return ys of one pytree structure at every step, "
                             f"got {before} then {after}")


def _stack(arrays):
    first = arrays[0]._value
    shape, dtype = first.shape, first.dtype
    values = [a._value for a in arrays]
    if all(v.shape == shape and v.dtype == dtype for v in values):
        # (np.stack reshapes each value first: 3x slower than one concatenate for 1000 ys)
        stacked = (np.array(values, dtype) if not shape
                   else np.concatenate(values).reshape(len(values), *shape))
        return Array(stacked, all(a._weak for a in arrays))
    return _stack_arrays("stack", arrays, 0)  # the ys' types differ between steps: promote


@overload
def map(f: Callable[[_X], ArrayLike], xs: _X, *,  # noqa: A001 (JAX's name)
        batch_size: int | None = None) -> Array: ...
@overload
def map(f: Callable[[_X], _Y], xs: _X, *,  # noqa: A001 (JAX's name)
        batch_size: int | None = None) -> _Y: ...
def map(f, xs, *, batch_size=None):  # noqa: A001 (JAX's name)
    """``f`` applied to each slice of ``xs`` along its leading axis, results stacked.

    With ``batch_size``, slices are processed ``batch_size`` at a time with ``vmap``
    (bounded memory, fewer loop iterations).

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.map(lambda x: x.sum(), fnp.ones((3, 2)))
        Array([2., 2., 2.], dtype=float32)
    """
    _check_callable("map", "f", f)
    if batch_size is None:
        if type(xs) in _CONCRETE and xs.ndim and xs.shape[0] and _eager():
            try:
                return _eager_map_array(f, xs)
            except _YsStructureError as exc:  # (as scan does: see there)
                try:
                    return _staged_scan(lambda carry, x: (carry, f(x)), [xs],
                                        fa_tree.structure(xs), [], fa_tree.structure(()),
                                        xs.shape[0], False)[1]
                except Exception:
                    raise exc from None
        return scan(lambda carry, x: (carry, f(x)), (), xs)[1]
    from funcarray.api.vectorization import vmap

    batch_size = int(batch_size)
    if batch_size < 1:
        raise ValueError(f"map: batch_size must be positive, got {batch_size}")
    leaves, tree = fa_tree.flatten(xs)
    leaves = _as_leaves("map", leaves)
    n = _scan_length(leaves, None)
    full, rest = divmod(n, batch_size)
    parts = []
    if full:
        chunks = [x[:full * batch_size].reshape(full, batch_size, *x.shape[1:]) for x in leaves]
        ys = scan(lambda c, x: (c, vmap(f)(x)), (), fa_tree.unflatten(tree, chunks))[1]
        parts.append(fa_tree.map(lambda y: y.reshape(full * batch_size, *y.shape[2:]), ys))
    if rest:
        parts.append(vmap(f)(fa_tree.unflatten(tree, [x[full * batch_size:] for x in leaves])))
    if len(parts) == 1:
        return parts[0]
    return fa_tree.map(lambda a, b: _concatenate_arrays("concatenate", [a, b], 0), *parts)


# --------------------------------------------------------------------------------------------
# associative_scan
# --------------------------------------------------------------------------------------------

@overload
def associative_scan(fn: Callable[[Array, Array], ArrayLike], elems: ArrayLike,
                     reverse: bool = False, axis: int = 0) -> Array: ...
@overload
def associative_scan(fn: Callable[[_T, _T], _T], elems: _T, reverse: bool = False,
                     axis: int = 0) -> _T: ...
def associative_scan(fn, elems, reverse=False, axis=0):
    """All prefix combinations of ``elems`` along ``axis`` under the associative ``fn``:
    ``out[0] = x[0]``, ``out[i] = fn(out[i - 1], x[i])`` (with ``reverse``,
    ``out[i] = fn(out[i + 1], x[i])``), computed as a parallel prefix scan.

    ``elems`` is a pytree of arrays sharing their length along ``axis``; ``fn(a, b)`` takes
    two pytrees of that structure holding *slices* along ``axis`` (of equal length) and
    returns their combinations elementwise, with the same structure, shapes and dtypes.
    ``fn`` is called O(log n) times on ever shorter slices (the result differs from a
    sequential loop only by rounding when ``fn`` is associative). It is built from slices,
    concatenations and ``fn``, so it works under every transform.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.associative_scan(fnp.add, fnp.arange(1.0, 6.0))
        Array([ 1.,  3.,  6., 10., 15.], dtype=float32)
        >>> lax.associative_scan(fnp.maximum, fnp.array([[3, 1], [2, 5]]), reverse=True, axis=1)
        Array([[3, 1],
               [5, 5]], dtype=int32)
    """
    _check_callable("associative_scan", "fn", fn)
    if type(elems) in _CONCRETE:  # (one array: no pytree work)
        leaves, tree = [elems], _LEAF
    else:
        leaves, tree = fa_tree.flatten(elems)
        if not leaves:
            raise op_value_error("associative_scan", "elems must contain at least one array")
        leaves = _as_leaves("associative_scan", leaves)
    axis = _scan_axis(leaves, axis)
    if _eager() and leaves[0].shape[axis] > 1 and all(
            type(x) in _CONCRETE and not x._weak for x in leaves):
        out = _prefix_scan_on_host(fn, tree, leaves, axis, bool(reverse))
        if out is not None:
            return out[0] if tree is _LEAF else fa_tree.unflatten(tree, out)
    if reverse:
        leaves = [_rev(x, (axis,)) for x in leaves]
    out = _prefix_scan(_combiner(fn, tree, leaves, axis), leaves, axis)
    if reverse:
        out = [_rev(x, (axis,)) for x in out]
    return fa_tree.unflatten(tree, out)


def _scan_axis(leaves, axis) -> int:
    for x in leaves:
        if x.ndim == 0:
            raise op_type_error("associative_scan", f"every leaf of elems needs an axis to "
                                f"scan along, got a scalar {x.aval.str_short()}")
    axis = canonicalize_axis("associative_scan", axis, leaves[0].ndim)
    if len(leaves) == 1:
        return axis
    lengths = []
    for x in leaves:
        ax = canonicalize_axis("associative_scan", axis, x.ndim)
        lengths.append(x.shape[ax])
    if len(set(lengths)) > 1:
        raise op_value_error("associative_scan", f"every leaf of elems must have the same "
                             f"length along axis {axis}, got lengths {lengths}")
    return axis


def _combiner(fn, tree, leaves, axis):
    """``fn`` on lists of leaves, checking that it keeps the structure and types."""
    single = tree.num_nodes == 1 and tree.num_leaves == 1  # (one array: no pytree work)

    def combine(a, b):
        if single:
            return _combined_leaves(tree, a, fn(a[0], b[0]))
        return _combined_leaves(tree, a, fn(fa_tree.unflatten(tree, a),
                                            fa_tree.unflatten(tree, b)))
    return combine


def _combined_leaves(tree, a, out) -> list:
    """The leaves of ``out``, what ``fn`` returned for the slices ``a`` (and others), checked
    to have the structure of elems and the slices' shapes and dtypes."""
    if type(out) in _CONCRETE and tree.num_nodes == 1 and tree.num_leaves == 1:
        out_leaves, out_tree = [out], tree
    else:
        out_leaves, out_tree = fa_tree.flatten(out)
    if out_tree != tree:
        raise op_type_error("associative_scan", f"fn must return a pytree of the "
                            f"structure of elems, {tree}, got {out_tree}")
    out_leaves = _as_leaves("associative_scan", out_leaves)
    for i, (x, y) in enumerate(zip(a, out_leaves)):
        if x.shape != y.shape or x.dtype != y.dtype:
            path = _paths(tree)[i]
            raise op_type_error(
                "associative_scan", f"fn must combine slices elementwise, keeping their "
                f"shape and dtype, but given {x.aval.str_short()} slices it returned "
                f"{y.aval.str_short()} for output{path}")
    return out_leaves


def _prefix_scan(combine, xs, axis):
    """The inclusive prefix combinations of the leaves ``xs`` along ``axis``.

    Pair neighbours (x0.x1, x2.x3, ...), scan the pairs recursively -- that gives the
    prefixes at the odd positions -- then extend each to the next even position, and
    interleave. Each level halves the length: O(log n) calls of ``combine``.
    """
    n = xs[0].shape[axis]
    if n < 2:
        return xs
    half = n // 2
    pairs = combine([_slice_axis(x, axis, 0, 2 * half, 2) for x in xs],
                    [_slice_axis(x, axis, 1, n, 2) for x in xs])
    odd = _prefix_scan(combine, pairs, axis)  # prefixes ending at 1, 3, 5, ...
    n_rest = (n - 1) // 2  # even positions 2, 4, ... each follows an odd prefix
    firsts = [_slice_axis(x, axis, 0, 1) for x in xs]
    if n_rest:
        rest = combine([_slice_axis(o, axis, 0, n_rest) for o in odd],
                       [_slice_axis(x, axis, 2, n, 2) for x in xs])
        even = [_concatenate([f, r], axis) for f, r in zip(firsts, rest)]
    else:
        even = firsts
    return [_interleave(e, o, axis) for e, o in zip(even, odd)]


class _WeakCombination(Exception):
    """``fn`` combined strong slices into weakly typed ones (``_prefix_scan_on_host``)."""


def _prefix_scan_on_host(fn, tree, leaves, axis, reverse):
    """``_prefix_scan`` of concrete, strongly typed leaves with the slices, concatenations
    and interleavings done on their NumPy values (each a primitive there: they only move
    data, so the values ``fn`` sees and the result are the same), ``fn`` still called on
    Arrays in the same order and checked as ``_combiner`` checks it. None, before any result,
    when ``fn`` returns weakly typed values: the general path then decides how they join the
    others."""
    values = [np.flip(x._value, axis) if reverse else x._value for x in leaves]
    combine = _combiner(fn, tree, leaves, axis)
    single = len(leaves) == 1 and tree.num_nodes == 1

    def on_host(a, b):
        if single:  # (one array: the common outcome, a strong Array of the slices' type,
            x = a[0]  # told without building lists)
            out = fn(new_array(x), new_array(b[0]))
            if type(out) is Array and not out._weak:
                value = out._value
                if value.shape == x.shape and value.dtype == x.dtype:
                    return [value]
            outs = _combined_leaves(tree, [new_array(x)], out)
        else:
            outs = combine([new_array(v) for v in a], [new_array(v) for v in b])
        if not all(type(o) in _CONCRETE and not o._weak for o in outs):
            raise _WeakCombination
        return [o._value for o in outs]

    try:
        out = _prefix_values(on_host, values, axis)
    except _WeakCombination:
        return None
    return [Array(np.flip(v, axis) if reverse else v) for v in out]


def _prefix_values(combine, xs, axis):
    """``_prefix_scan`` on NumPy values (``combine`` takes and gives lists of them), without
    recursion but with its calls of ``combine`` in its order: pair neighbours level by
    level (``levels[k]`` combines runs of ``2**k`` elements) down to one element, then fill
    the prefixes from that level up. A level's prefixes are a strided view of the result
    (positions ``2**k - 1``, every ``2**k``): its odd positions are the prefixes of the level
    below, its even ones after the first combine those with the next element, so each
    position of the result is written once."""
    head = (slice(None),) * axis  # (indices as head + (i,): ~0.2 us less than (*head, i))
    levels = [xs]
    n = xs[0].shape[axis]
    while n > 1:
        evens, odds = head + (slice(0, n - n % 2, 2),), head + (slice(1, n, 2),)
        levels.append(combine([x[evens] for x in levels[-1]], [x[odds] for x in levels[-1]]))
        n //= 2
    results = [np.empty(x.shape, x.dtype) for x in xs]
    first, odd_prefixes = head + (0,), None
    for k in range(len(levels) - 1, -1, -1):
        step = 2 ** k
        prefixes = [r[head + (slice(step - 1, None, step),)] for r in results]
        for p, x in zip(prefixes, levels[k]):
            p[first] = x[first]
        n = levels[k][0].shape[axis]
        n_rest = (n - 1) // 2  # even positions 2, 4, ... each follows an odd prefix
        if n_rest:
            ends, nexts = head + (slice(0, n_rest),), head + (slice(2, n, 2),)
            rest = combine([o[ends] for o in odd_prefixes], [x[nexts] for x in levels[k]])
            evens = head + (slice(2, None, 2),)
            for p, r in zip(prefixes, rest):
                p[evens] = r
        odd_prefixes = prefixes
    return results


def _interleave(even, odd, axis):
    """``even[0], odd[0], even[1], odd[1], ...`` along ``axis`` (``even`` may be one
    longer)."""
    m = odd.shape[axis]
    pairs = _concatenate([_insert_axis(_slice_axis(even, axis, 0, m), axis + 1),
                          _insert_axis(odd, axis + 1)], axis + 1)
    shape = list(odd.shape)
    shape[axis] = 2 * m
    out = _reshape(pairs, tuple(shape))
    if even.shape[axis] > m:
        out = _concatenate([out, _slice_axis(even, axis, m, m + 1)], axis)
    return out


# --------------------------------------------------------------------------------------------
# select_n
# --------------------------------------------------------------------------------------------

_INT32 = np.dtype(np.int32)


def _selector_value(which):
    """The NumPy value of a concrete selector (an array, or a NumPy or Python bool) as the
    primitive gets it (an integer one converted to int32 as the general path does), or None
    for anything else (the general path converts or rejects it)."""
    w = host_value(which)
    if w is None:
        t = type(which)
        return which if t is np.bool_ else np.bool_(which) if t is bool else None
    if w.dtype == np.bool_ or w.dtype == _INT32:
        return w
    return convert_kernel(w, _INT32) if w.dtype.kind in "iu" else None


def _select_n_on_host(which, *cases):
    """``select_n``'s shortcut for concrete cases and selector (see ``_selector_value``): the
    primitive's kernel on their values, after the general path's checks."""
    w = _selector_value(which)
    if w is None or not cases:
        return NotImplemented
    first = host_value(cases[0])
    if first is None:
        return NotImplemented
    values = [first]
    for c in cases[1:]:
        v = host_value(c)
        if v is None or v.shape != first.shape or v.dtype != first.dtype:
            return NotImplemented
        values.append(v)
    if (w.shape != () and w.shape != first.shape) or (w.dtype == np.bool_ and len(cases) > 2):
        return NotImplemented
    if len(cases) == 1:
        return cases[0]
    return Array(select_n_kernel(w, values), all(c._weak for c in cases))


@host_shortcut(_select_n_on_host)
def select_n(which: ArrayLike, *cases: ArrayLike) -> Array:
    """``cases[which]`` elementwise: ``which`` is a boolean (two cases) or integer array,
    a scalar or of the cases' shape; the cases share a shape and dtype.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.select_n(fnp.array([0, 2, 1]), fnp.zeros(3), fnp.ones(3), fnp.full(3, 2.0))
        Array([0., 2., 1.], dtype=float32)
    """
    if not cases:
        raise ValueError("select_n: needs at least one case")
    which = which if is_array(which) else asarray_arg("select_n", which)
    cases = _as_leaves("select_n", cases)
    if which.dtype != np.bool_:
        if which.dtype.kind not in "iu":
            raise TypeError(f"select_n: which must be boolean or integer, got {which.dtype}")
        which = _int32(which)
    first = cases[0]
    for c in cases[1:]:
        if c.shape != first.shape or c.dtype != first.dtype:
            raise TypeError("select_n: cases must share a shape and dtype, got "
                            + ", ".join(c.aval.str_short() for c in cases))
    if which.shape not in ((), first.shape):
        raise TypeError(f"select_n: which has shape {which.shape}; it must be a scalar or "
                        f"have the cases' shape {first.shape}")
    return select_n_p.bind(which, *cases)
