"""The derivatives with pytrees in and out: ``jvp``, ``vjp``, ``linearize``, ``grad``,
``value_and_grad``, the Jacobians (``jacfwd``, ``jacrev``, ``hessian``) and
``stop_gradient``, with JAX's rules for integer inputs (float0 tangents and cotangents),
``has_aux`` and weak types. ``transforms/jvp.py`` and ``transforms/autodiff.py`` work on the
flat functions (``flat_functions.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, overload

import numpy as np

from funcarray.api.arguments import PYTHON_SCALAR_DTYPES, asarray_arg, convert, is_array
from funcarray.api.flat_functions import (
    as_array_leaves,
    filled,
    flat_outputs,
    flatten_fun,
    split_aux,
)
from funcarray.api.vectorization import vmap
from funcarray.base import dtypes
from funcarray.base import float0 as _float0
from funcarray.base import pytrees as fa_tree
from funcarray.base.array import Array, DeviceArray
from funcarray.base.errors import api_boundary
from funcarray.base.tree_util import Partial
from funcarray.primitives._axis_slice import slice_axis
from funcarray.primitives.conversions import convert_element_type_p
from funcarray.primitives.elementwise import eq_p
from funcarray.primitives.shape import iota_p, reshape_p
from funcarray.transforms.autodiff import linearize_flat, vjp_flat, vjp_flat_residuals
from funcarray.transforms.host_shortcuts import host_shortcut
from funcarray.transforms.ir import eval_ir
from funcarray.transforms.jvp import Zero, instantiate, jvp_flat, tangent_aval

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any, Literal, ParamSpec, TypeVar

    _P = ParamSpec("_P")
    _T = TypeVar("_T")

__all__ = ["jvp", "vjp", "linearize", "grad", "value_and_grad", "stop_gradient", "jacfwd",
           "jacrev", "hessian"]


# --------------------------------------------------------------------------------------------
# Forward mode: jvp
# --------------------------------------------------------------------------------------------

@overload
def jvp(fun: Callable[..., Any], primals: Sequence[Any], tangents: Sequence[Any],
        has_aux: Literal[False] = False) -> tuple[Any, Any]: ...
@overload
def jvp(fun: Callable[..., Any], primals: Sequence[Any], tangents: Sequence[Any],
        has_aux: Literal[True]) -> tuple[Any, Any, Any]: ...
@api_boundary
def jvp(fun, primals, tangents, has_aux: bool = False):
    """Forward-mode derivative: ``(fun(*primals), J(primals) @ tangents)``.

    ``primals`` and ``tangents`` are tuples (or lists) of pytrees with the same structure,
    shapes and dtypes, except that, as in JAX, an integer or bool primal's tangent is a
    float0 array of its shape (``numpy.zeros(shape, funcarray.dtypes.float0)``), and an
    integer or bool output's tangent is one too.

    Example:
        >>> import numpy as np
        >>> import funcarray as fa, funcarray.numpy as fnp
        >>> y, dy = fa.jvp(fnp.sin, (fnp.zeros(2),), (fnp.ones(2),))
        >>> dy
        Array([1., 1.], dtype=float32)
        >>> n, f0 = fnp.arange(2), fa.dtypes.float0
        >>> y, (dx, dn) = fa.jvp(lambda x, n: (x * n, n + 1), (fnp.ones(2), n),
        ...                      (fnp.ones(2), np.zeros(2, f0)))
        >>> dx, dn.dtype == f0
        (Array([0., 1.], dtype=float32), True)
    """
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError(
            "jvp: primals and tangents must be tuples or lists of arguments, e.g. "
            "jvp(f, (x,), (v,)), got " f"{type(primals).__name__} and {type(tangents).__name__}")
    primal_leaves, in_tree = fa_tree.flatten(tuple(primals))
    tangent_leaves, tangent_tree = fa_tree.flatten(tuple(tangents))
    if in_tree != tangent_tree:
        raise TypeError(f"jvp: primals and tangents must have the same tree structure, got "
                        f"{in_tree} and {tangent_tree}")
    primal_leaves = as_array_leaves("jvp", primal_leaves)
    flat_tangents = [_checked_tangent(primals, i, p, t)
                     for i, (p, t) in enumerate(zip(primal_leaves, tangent_leaves))]
    flat_fun, store = flatten_fun(fun, in_tree, has_aux, float0_ok=True)
    out_primals, out_tangents = jvp_flat(flat_fun, primal_leaves, flat_tangents,
                                         instantiate_zeros=False)
    out_tangents = [_public_tangent(p, t) for p, t in zip(out_primals, out_tangents)]
    out_primals, aux = split_aux(store, filled(store, out_primals))
    # (a float0 output's tangent is float0 too)
    out_tangents = filled(store, out_tangents)[:store["n_out"]]
    out_tree = store["out_tree"]
    result = (fa_tree.unflatten(out_tree, out_primals), fa_tree.unflatten(out_tree, out_tangents))
    return (*result, aux) if has_aux else result


def _checked_tangent(primals, i, p, t):
    """Leaf ``i``'s tangent ``t`` for primal ``p`` as jvp_flat takes it, checked as JAX
    does: a float/complex primal takes a tangent of its shape and dtype, an integer or bool
    primal a float0 array of its shape (a symbolic zero inside)."""
    if _float0.is_float0(t):
        if not _differentiable(p):
            if t.shape == p.shape:
                return Zero(tangent_aval(p.aval))
            raise TypeError(
                f"jvp: the tangent of primals{_leaf_path(tuple(primals), i)} is "
                f"float0{list(t.shape)}, but the primal is {p.aval.str_short()}; a tangent "
                f"must have its primal's shape: pass numpy.zeros({tuple(p.shape)}, "
                f"funcarray.dtypes.float0)")
        raise TypeError(
            f"jvp: the tangent of primals{_leaf_path(tuple(primals), i)} is a float0 array, "
            f"but the primal is {p.aval.str_short()}; float0 tangents are for integer and "
            f"boolean primals only: pass a {p.dtype} tangent of shape {tuple(p.shape)}")
    t = t if is_array(t) else asarray_arg("jvp", t)
    if not _differentiable(p):
        raise TypeError(
            f"jvp: the tangent of primals{_leaf_path(tuple(primals), i)} has dtype "
            f"{t.dtype}, but the primal is {p.aval.str_short()}, an integer/bool value, whose "
            f"tangent dtype must be float0 (dtypes must be equal, or float0 for an integer or "
            f"boolean primal, as in JAX): pass numpy.zeros({tuple(p.shape)}, "
            f"funcarray.dtypes.float0)")
    expected = tangent_aval(p.aval)
    if t.shape != expected.shape or t.dtype != expected.dtype:
        raise TypeError(
            f"jvp: tangent {i} has shape/dtype {t.aval.str_short()}, but its primal is "
            f"{p.aval.str_short()}; a tangent must match its primal's shape and dtype")
    return t


def _leaf_path(tree, i) -> str:
    """Leaf ``i`` of ``tree`` as a key path (``[1]['n']``), for error messages."""
    from funcarray.base.tree_util import keystr, tree_flatten_with_path

    return keystr(tree_flatten_with_path(tree)[0][i][0])


def _public_tangent(primal, tangent):
    """An output tangent as the API returns it: float0 zeros for an integer or bool output
    (whatever the transforms carried: a symbolic zero, or zeros of its dtype), instantiated
    zeros for a symbolic zero of a float output; weak when its primal is, as JAX types a
    tangent by its primal (the rules inside carry strong tangents)."""
    if not _differentiable(primal):
        return _float0.zeros(primal.shape)
    tangent = instantiate(tangent) if type(tangent) is Zero else tangent
    return _weak_like(tangent, primal)


def _differentiable(x) -> bool:
    return dtypes.is_inexact(x.dtype)


# --------------------------------------------------------------------------------------------
# Reverse mode: vjp, linearize, grad, value_and_grad
# --------------------------------------------------------------------------------------------

@overload
def vjp(fun: Callable[..., Any], *primals: Any, has_aux: Literal[False] = False
        ) -> tuple[Any, Callable[[Any], tuple[Any, ...]]]: ...
@overload
def vjp(fun: Callable[..., Any], *primals: Any, has_aux: Literal[True]
        ) -> tuple[Any, Callable[[Any], tuple[Any, ...]], Any]: ...
@api_boundary
def vjp(fun, *primals, has_aux: bool = False):
    """Reverse-mode derivative: ``(fun(*primals), f_vjp)`` where ``f_vjp(cotangent)`` returns
    one cotangent per primal (a tuple), i.e. ``cotangent @ J``.

    As in JAX, an integer or bool primal's cotangent is a float0 array of its shape (NumPy
    zeros of dtype ``funcarray.dtypes.float0``, which no operation accepts), and an integer
    or bool output's cotangent may be any value of its shape (float0 zeros, say): it is
    ignored.

    Example:
        >>> import funcarray as fa, funcarray.numpy as fnp
        >>> y, f_vjp = fa.vjp(fnp.sin, fnp.zeros(2))
        >>> f_vjp(fnp.ones(2))
        (Array([1., 1.], dtype=float32),)
        >>> _, f_vjp = fa.vjp(lambda x, n: x * n, 1.0, 3)
        >>> dx, dn = f_vjp(1.0)
        >>> dx, dn.dtype == fa.dtypes.float0, dn.shape
        (Array(3., dtype=float32, weak_type=True), True, ())
    """
    leaves, in_tree = fa_tree.flatten(primals)
    leaves = as_array_leaves("vjp", leaves)
    flat_fun, store = flatten_fun(fun, in_tree, has_aux, float0_ok=True)
    kept_outs, pullback, residuals = vjp_flat_residuals(flat_fun, leaves)
    all_outs = filled(store, kept_outs)
    out_leaves, aux = split_aux(store, all_outs)
    out_tree = store["out_tree"]
    holes = store["float0"]
    # Aux outputs (the kept ones: not float0) get zero cotangents.
    hole_positions = set() if holes is None else {k for k, _ in holes}
    aux_zeros = [Zero(tangent_aval(x.aval)) for k, x in enumerate(all_outs)
                 if k >= len(out_leaves) and k not in hole_positions]
    # Only float outputs take cotangents; integer, bool and float0 ones take any value of
    # their shape (float0, as JAX returns them, or zeros), which is ignored.
    numeric = holes is None and all(_differentiable(x) for x in out_leaves)

    def f_vjp(residuals, cotangent):
        ct_leaves, ct_tree = fa_tree.flatten(cotangent)
        if ct_tree != out_tree:
            raise TypeError(f"vjp: the cotangent's tree structure {ct_tree} does not match the "
                            f"output's {out_tree}")
        if numeric:
            cts = as_array_leaves("vjp", ct_leaves)
        else:
            cts = _numeric_cotangents(cotangent, ct_leaves, out_leaves, hole_positions)
        cts = pullback(residuals, cts + aux_zeros, instantiate_zeros=False)
        # (an integer or bool primal's cotangent is a symbolic zero: float0 for the user)
        return fa_tree.unflatten(in_tree, [
            _float0.zeros(c.aval.shape) if type(c) is Zero else c for c in cts])

    # A pytree whose leaves are the residuals (as JAX's): it can be returned from a jitted
    # function, passed into one, or be a custom_vjp residual.
    out = fa_tree.unflatten(out_tree, out_leaves)
    f_vjp = Partial(api_boundary(f_vjp), residuals)
    return (out, f_vjp, aux) if has_aux else (out, f_vjp)


def _numeric_cotangents(cotangent, ct_leaves, out_leaves, hole_positions) -> list:
    """The cotangents the pullback takes: those of float outputs as arrays, symbolic zeros
    for integer and bool outputs (their cotangent must only have the output's shape, as in
    JAX), none for float0 outputs (the transform never saw them)."""
    cts = []
    for j, (ct, out) in enumerate(zip(ct_leaves, out_leaves)):
        if j not in hole_positions and _differentiable(out):
            cts.append(ct if is_array(ct) else asarray_arg("vjp", ct))
            continue
        if np.shape(ct) != tuple(out.shape):
            raise TypeError(
                f"vjp: the cotangent{_leaf_path(cotangent, j)} has shape {np.shape(ct)}, but "
                f"the output it belongs to is {_aval_str(out)}; the cotangent of an integer, "
                f"bool or float0 output is ignored but must have its shape: pass "
                f"numpy.zeros({tuple(out.shape)}, funcarray.dtypes.float0)")
        if j not in hole_positions:
            cts.append(Zero(tangent_aval(out.aval)))
    return cts


def _aval_str(x) -> str:
    return f"float0{list(x.shape)}" if _float0.is_float0(x) else x.aval.str_short()


@overload
def linearize(fun: Callable[..., Any], *primals: Any, has_aux: Literal[False] = False
              ) -> tuple[Any, Callable[..., Any]]: ...
@overload
def linearize(fun: Callable[..., Any], *primals: Any, has_aux: Literal[True]
              ) -> tuple[Any, Callable[..., Any], Any]: ...
@api_boundary
def linearize(fun, *primals, has_aux: bool = False):
    """``(fun(*primals), f_jvp)`` where ``f_jvp(*tangents)`` is the linear map ``J @ t``,
    evaluated without re-running ``fun``; with ``has_aux=True`` ``fun`` returns
    ``(out, aux)`` and linearize returns ``(out, f_jvp, aux)``. Integer and bool primals
    take float0 tangents and integer and bool outputs give them, as in ``jvp``.

    Example:
        >>> import funcarray as fa, funcarray.numpy as fnp
        >>> y, f_jvp = fa.linearize(fnp.sin, fnp.zeros(2))
        >>> f_jvp(fnp.full(2, 3.0))
        Array([3., 3.], dtype=float32)
    """
    leaves, in_tree = fa_tree.flatten(primals)
    leaves = as_array_leaves("linearize", leaves)
    flat_fun, store = flatten_fun(fun, in_tree, has_aux, float0_ok=True)
    kept_outs, linear, mask = linearize_flat(flat_fun, leaves)
    out_leaves, aux = split_aux(store, filled(store, kept_outs))
    out_tree, n_out = store["out_tree"], store["n_out"]
    # (what the tangent checks need of the primals: not the arrays, which f_jvp must not
    # keep alive)
    primal_avals = [x.aval for x in leaves]
    int_shapes = [None if m else tuple(x.shape) for x, m in zip(leaves, mask)]
    int_outs = [None if _differentiable(x) else tuple(x.shape) for x in kept_outs]

    def f_jvp(consts, *tangents):
        t_leaves, t_tree = fa_tree.flatten(tangents)
        if t_tree != in_tree:
            raise TypeError(f"linearize: tangents have structure {t_tree}, expected {in_tree}")
        kept = []
        for i, (t, shape) in enumerate(zip(t_leaves, int_shapes)):
            if shape is None and not _float0.is_float0(t):
                kept.append(t if is_array(t) else asarray_arg("linearize", t))
            elif shape is None or not (_float0.is_float0(t) and t.shape == shape):
                raise _linearize_tangent_error(tangents, i, t, primal_avals[i].str_short(),
                                               shape)
        outs = eval_ir(linear.ir, consts, kept)
        outs = [t if shape is None else _float0.zeros(shape) for t, shape in zip(outs, int_outs)]
        return fa_tree.unflatten(out_tree, filled(store, outs)[:n_out])

    # A pytree whose leaves are the linearisation's constants (JAX's Partial), like vjp's.
    out = fa_tree.unflatten(out_tree, out_leaves)
    f_jvp = Partial(api_boundary(f_jvp), tuple(linear.consts))
    return (out, f_jvp, aux) if has_aux else (out, f_jvp)


def _linearize_tangent_error(tangents, i, t, primal_type, int_shape) -> ValueError:
    """JAX's ValueError for a tangent whose type does not fit its primal in ``f_jvp``."""
    got = (f"float0{list(t.shape)}" if _float0.is_float0(t)
           else f"{getattr(t, 'dtype', type(t).__name__)}{list(np.shape(t))}")
    if int_shape is None:
        fix = "pass a tangent of the primal's dtype and shape (float0 is for integer primals)"
    else:
        fix = (f"an integer or bool primal's tangent is a float0 array of its shape: pass "
               f"numpy.zeros({int_shape}, funcarray.dtypes.float0)")
    return ValueError(
        f"linearize: the linearized function's argument tangents{_leaf_path(tangents, i)} "
        f"has type {got}, but its primal has type {primal_type}; {fix}")


def _check_argnums(name, argnums, nargs):
    single = isinstance(argnums, int)
    nums = (argnums,) if single else tuple(argnums)
    for a in nums:
        if not isinstance(a, int) or not -nargs <= a < nargs:
            raise ValueError(f"{name}: argnums={argnums!r} is out of range for a function "
                             f"called with {nargs} positional arguments")
    return single, tuple(a % nargs for a in nums)


def _split_args(args, argnums):
    """A function of the differentiated arguments only, closing over the others."""
    def with_args(fun):
        def partial(*diff_args):
            full = list(args)
            for i, a in zip(argnums, diff_args):
                full[i] = a
            return fun(*full)
        return partial
    return with_args, tuple(args[i] for i in argnums)


def _check_grad_inputs(name, diff_args, allow_int, holomorphic) -> bool:
    """Refuse inputs without a gradient (integer and bool ones unless ``allow_int``: their
    gradients are then float0 zeros, as in JAX); returns whether any input is weakly typed (a
    Python scalar or a weak array), whose gradient grad then makes weak too."""
    any_weak = False
    for leaf in fa_tree.leaves(diff_args):
        if type(leaf) in PYTHON_SCALAR_DTYPES:  # a Python int is an int32 input, as in JAX
            dt = PYTHON_SCALAR_DTYPES[type(leaf)]
            any_weak = True
        else:
            dt = getattr(leaf, "dtype", None)
            if dt is None:
                continue
            dt = dtypes.canonicalize_dtype(dt)
            any_weak = any_weak or bool(getattr(leaf, "weak_type", False))
        if not dtypes.is_inexact(dt) and not allow_int:
            fix = ("use jvp directly (with float0 tangents for them)" if name == "jacfwd" else
                   "pass allow_int=True to get float0 zeros for them")
            raise TypeError(
                f"{name} requires real- or complex-valued inputs (floating dtypes), but got "
                f"{dt}. Integer and boolean inputs have no gradient; {fix}, or differentiate "
                f"with respect to other arguments (argnums).")
        if holomorphic and not dtypes.is_complex(dt):
            raise TypeError(f"{name} with holomorphic=True requires complex inputs, got {dt}")
    return any_weak


def _check_scalar_output(name, out, holomorphic):
    if not hasattr(out, "shape"):
        raise TypeError(f"{name}: the function must return a scalar array, got "
                        f"{type(out).__name__}. (With has_aux=True return (value, aux).)")
    if out.shape != ():
        raise TypeError(
            f"{name} requires a scalar output, but the function returned shape "
            f"{tuple(out.shape)}. Reduce it (e.g. .sum() or .mean()), or use vjp / jacrev for "
            f"non-scalar outputs.")
    if dtypes.is_complex(out.dtype) and not holomorphic:
        raise TypeError(
            f"{name} requires a real-valued output, but got {out.dtype}. For holomorphic "
            f"functions pass holomorphic=True; otherwise use vjp directly.")
    if not dtypes.is_inexact(out.dtype):
        raise TypeError(f"{name} requires a floating-point output, but got {out.dtype}")


def _weak_like(g, primal):
    """Gradient ``g`` with ``primal``'s weak type when ``primal`` is weakly typed (float0
    gradients of integer inputs have no weak type)."""
    if dtypes.is_inexact(g.dtype) and getattr(
            primal, "weak_type", type(primal) in (int, float, complex)) and not g.weak_type:
        return convert(g, g.dtype, True)
    return g


def value_and_grad(fun: Callable[_P, Any], argnums: int | Sequence[int] = 0,
                   has_aux: bool = False, holomorphic: bool = False,
                   allow_int: bool = False) -> Callable[_P, tuple[Any, Any]]:
    """``fun``'s value and its gradient with respect to ``argnums`` (JAX's signature).

    Integer and bool inputs are refused unless ``allow_int=True``, which gives them float0
    gradients (NumPy zeros of dtype ``funcarray.dtypes.float0`` and the input's shape), as
    in JAX; see ``grad``.

    Example:
        >>> import funcarray as fa, funcarray.numpy as fnp
        >>> fa.value_and_grad(lambda x: (x ** 2).sum())(fnp.arange(3.0))
        (Array(5., dtype=float32), Array([0., 2., 4.], dtype=float32))
    """
    def value_and_grad_fun(*args, **kwargs):
        single, nums = _check_argnums("grad", argnums, len(args))
        with_args, diff_args = _split_args(args, nums)
        any_weak = _check_grad_inputs("grad", diff_args, allow_int, holomorphic)
        f = with_args(lambda *a: fun(*a, **kwargs))
        if has_aux:
            out, f_vjp, aux = vjp(f, *diff_args, has_aux=True)
        else:
            out, f_vjp = vjp(f, *diff_args)
        _check_scalar_output("grad", out, holomorphic)
        # The seed keeps the output's weak_type, and a weak input (a Python float) gets a
        # weak gradient whatever its path through strong constants, as in JAX: so
        # `bf16_params * grad(f)(3.0)` stays bfloat16.
        grads = f_vjp(Array(np.ones((), out.dtype), bool(out.weak_type)))
        if any_weak:  # (a pytree pass only when some input is weak: rare in a training loop)
            grads = fa_tree.map(_weak_like, grads, diff_args)
        grads = grads[0] if single else grads
        return ((out, aux), grads) if has_aux else (out, grads)

    value_and_grad_fun.__name__ = f"value_and_grad({getattr(fun, '__name__', 'fun')})"
    return api_boundary(value_and_grad_fun)


def grad(fun: Callable[_P, Any], argnums: int | Sequence[int] = 0, has_aux: bool = False,
         holomorphic: bool = False, allow_int: bool = False) -> Callable[_P, Any]:
    """The gradient of a scalar function with respect to ``argnums`` (JAX's signature).

    Runs eagerly: ``print`` and Python control flow on values work inside ``fun``.

    Differentiating with respect to an integer or bool input is an error unless
    ``allow_int=True``: its gradient is then a float0 array of the input's shape, JAX's type
    for "no tangent space" (NumPy zeros of dtype ``funcarray.dtypes.float0``: no operation
    accepts them; they pass through ``jit``, ``vmap`` and the pytree functions).

    Example:
        >>> import funcarray as fa, funcarray.numpy as fnp
        >>> fa.grad(lambda x: fnp.sin(x).sum())(fnp.zeros(2))
        Array([1., 1.], dtype=float32)
        >>> gx, gn = fa.grad(lambda x, n: x * n, argnums=(0, 1), allow_int=True)(1.0, 3)
        >>> gx, gn.dtype == fa.dtypes.float0
        (Array(3., dtype=float32, weak_type=True), True)
    """
    vg = value_and_grad(fun, argnums, has_aux, holomorphic, allow_int)

    def grad_fun(*args, **kwargs):
        (value, grads) = vg(*args, **kwargs)
        return (grads, value[1]) if has_aux else grads

    grad_fun.__name__ = f"grad({getattr(fun, '__name__', 'fun')})"
    return api_boundary(grad_fun)


@api_boundary
def _stop_gradient_on_host(x):
    """Outside every transform a concrete array has no derivative to stop: itself."""
    t = type(x)
    return x if t is Array or t is DeviceArray else NotImplemented


@host_shortcut(_stop_gradient_on_host)
def stop_gradient(x: _T) -> _T:
    """``x`` itself, with no derivative flowing through it (applied to every leaf).

    Example:
        >>> import funcarray as fa, funcarray.numpy as fnp
        >>> fa.grad(lambda x: (x * fa.stop_gradient(x)).sum())(fnp.ones(2))
        Array([1., 1.], dtype=float32)
    """
    from funcarray.primitives.stop_gradient import stop_gradient_p

    def stop(leaf):
        leaf = leaf if is_array(leaf) else asarray_arg("stop_gradient", leaf)
        return stop_gradient_p.bind(leaf)
    return fa_tree.map(stop, x)


# --------------------------------------------------------------------------------------------
# Jacobians
# --------------------------------------------------------------------------------------------

def _aux_zero_cotangents(store, all_outs) -> list:
    """The cotangents of the aux outputs (``has_aux``): symbolic zeros."""
    return [Zero(tangent_aval(x.aval)) for x in all_outs[store["n_out"]:]]


def _with_zero_aux_cotangents(f_vjp_flat, store, all_outs):
    """``f_vjp`` over the declared outputs only: aux outputs get zero cotangents."""
    zeros = _aux_zero_cotangents(store, all_outs)
    return lambda cts: f_vjp_flat(list(cts) + zeros)


def _std_basis(leaves):
    """Rows of the identity over all leaves' elements, split back into per-leaf arrays with a
    leading basis axis: the tangents (or cotangents) that build a Jacobian."""
    sizes = [int(x.size) for x in leaves]
    total = sum(sizes)
    dtype = _common_float_dtype(leaves)
    rows, cols = (iota_p.bind(dtype=dtypes.int32, shape=(total, total), dimension=d)
                  for d in (0, 1))
    eye = convert_element_type_p.bind(eq_p.bind(rows, cols), new_dtype=np.dtype(dtype),
                                      weak_type=False)
    parts, start = [], 0
    for x, n in zip(leaves, sizes):
        block = reshape_p.bind(slice_axis(eye, 1, start, start + n),
                               new_sizes=(total, *x.shape))
        # in each leaf's dtype and weak_type, so weak inputs get weak Jacobians (JAX)
        parts.append(convert(block, x.dtype, x.weak_type))
        start += n
    return parts, total


def _common_float_dtype(leaves):
    inexact = [x.dtype for x in leaves if dtypes.is_inexact(x.dtype)]
    return dtypes.result_type(*inexact) if inexact else dtypes.float32


def _jacobian_tree(out_tree, in_tree, blocks):
    """Nest per-(output leaf, input leaf) Jacobian blocks as JAX does: the output structure
    outside, the input structure inside each output leaf."""
    rows = [fa_tree.unflatten(in_tree, row) for row in blocks]
    return fa_tree.unflatten(out_tree, rows)


def _jacobian_inputs(name, fun, argnums, args, kwargs, has_aux, allow_int, holomorphic):
    """The flat view of a Jacobian's inputs: ``(in_leaves, in_tree, flat_f, box)`` where
    ``flat_f(*leaves)`` returns the output leaves and fills ``box`` with the output tree (and
    ``aux``)."""
    single, nums = _check_argnums(name, argnums, len(args))
    with_args, diff_args = _split_args(args, nums)
    _check_grad_inputs(name, diff_args, allow_int, holomorphic)
    f = with_args(lambda *a: fun(*a, **kwargs))
    # One argument differentiated (argnums an int): the Jacobian's inner structure is that
    # argument's, not a 1-tuple.
    in_leaves, in_tree = fa_tree.flatten(diff_args[0] if single else diff_args)
    in_leaves = as_array_leaves(name, in_leaves)
    box = {}

    def flat_f(*xs):
        rebuilt = fa_tree.unflatten(in_tree, list(xs))
        return flat_outputs(f(rebuilt) if single else f(*rebuilt), box, has_aux, name)

    return in_leaves, in_tree, flat_f, box


def jacfwd(fun: Callable[_P, Any], argnums: int | Sequence[int] = 0, has_aux: bool = False,
           holomorphic: bool = False) -> Callable[_P, Any]:
    """The Jacobian by forward mode (one jvp per input element, vectorised with vmap).

    The result has shape ``out.shape + in.shape`` for each (output, input) leaf pair.

    Example:
        >>> import funcarray as fa, funcarray.numpy as fnp
        >>> fa.jacfwd(lambda x: x * 2.0)(fnp.ones(2))
        Array([[2., 0.],
               [0., 2.]], dtype=float32)
    """
    def jac_fun(*args, **kwargs):
        in_leaves, in_tree, flat_f, aux_box = _jacobian_inputs(
            "jacfwd", fun, argnums, args, kwargs, has_aux, False, holomorphic)
        basis, _ = _std_basis(in_leaves)

        def push(*tangents):
            outs, tans = jvp_flat(flat_f, in_leaves, list(tangents))
            return outs, tans[:aux_box["n_out"]]

        # One pass: the primal outputs do not depend on the tangents (out_axes None), the
        # columns are the tangents, each out.shape + (total,).
        all_outs, columns = vmap(push, in_axes=0, out_axes=(None, -1))(*basis)
        out_leaves, aux = split_aux(aux_box, all_outs)
        blocks = []
        for out, col in zip(out_leaves, columns):
            row, start = [], 0
            for x in in_leaves:
                n = int(x.size)
                part = col[..., start:start + n] if n else col[..., :0]
                # weak when the output is: the block is a tangent of it (JAX's typing)
                row.append(_weak_like(part.reshape((*out.shape, *x.shape)), out))
                start += n
            blocks.append(row)
        jac = _jacobian_tree(aux_box["out_tree"], in_tree, blocks)
        return (jac, aux) if has_aux else jac

    return api_boundary(jac_fun)


def jacrev(fun: Callable[_P, Any], argnums: int | Sequence[int] = 0, has_aux: bool = False,
           holomorphic: bool = False, allow_int: bool = False) -> Callable[_P, Any]:
    """The Jacobian by reverse mode (one vjp per output element, vectorised with vmap).

    The result has shape ``out.shape + in.shape`` for each (output, input) leaf pair. With
    ``allow_int=True`` an integer input's blocks are zeros of its dtype (as JAX's jacrev).

    Example:
        >>> import funcarray as fa, funcarray.numpy as fnp
        >>> fa.jacrev(lambda x: x * 2.0)(fnp.ones(2))
        Array([[2., 0.],
               [0., 2.]], dtype=float32)
    """
    def jac_fun(*args, **kwargs):
        in_leaves, in_tree, flat_f, aux_box = _jacobian_inputs(
            "jacrev", fun, argnums, args, kwargs, has_aux, allow_int, holomorphic)

        all_outs, f_vjp_all = vjp_flat(flat_f, in_leaves)
        out_leaves, aux = split_aux(aux_box, all_outs)
        f_vjp = _with_zero_aux_cotangents(f_vjp_all, aux_box, all_outs)
        basis, _ = _std_basis(out_leaves)
        rows = vmap(lambda *cts: f_vjp(list(cts)), in_axes=0, out_axes=0)(*basis)
        # rows[j]: (total_out, *in_j.shape); split the leading axis by output leaf.
        blocks, start = [], 0
        for out in out_leaves:
            n = int(out.size)
            # Each block is a cotangent of its input: weak when the input is, as grad's (an
            # integer input's block: zeros of its dtype, weak for a Python int, as JAX).
            blocks.append([_weak_like(_weak_int_like(
                r[start:start + n].reshape((*out.shape, *x.shape)), x), x)
                for r, x in zip(rows, in_leaves)])
            start += n
        jac = _jacobian_tree(aux_box["out_tree"], in_tree, blocks)
        return (jac, aux) if has_aux else jac

    return api_boundary(jac_fun)


def _weak_int_like(block, x):
    if x.weak_type and not block.weak_type and not _differentiable(x):
        return convert(block, block.dtype, True)
    return block


def hessian(fun: Callable[_P, Any], argnums: int | Sequence[int] = 0, has_aux: bool = False,
            holomorphic: bool = False) -> Callable[_P, Any]:
    """The Hessian, as ``jacfwd(jacrev(fun))`` (forward-over-reverse).

    Example:
        >>> import funcarray as fa, funcarray.numpy as fnp
        >>> fa.hessian(lambda x: (x ** 3).sum())(fnp.array([1.0, 2.0]))
        Array([[ 6.,  0.],
               [ 0., 12.]], dtype=float32)
    """
    return jacfwd(jacrev(fun, argnums, has_aux, holomorphic), argnums, has_aux, holomorphic)
