"""Implicit differentiation, as in ``jax.lax``: ``custom_linear_solve`` (a linear solve
differentiated by solving again, never through the solver's iterations) and
``custom_root`` (a root of ``f`` differentiated by the implicit function theorem).

The primitive behind ``custom_linear_solve`` is in ``primitives/linear_solve.py``.
``custom_root`` is a ``custom_jvp`` over ``f``'s closed-over values, whose rule is a
``custom_linear_solve`` of ``f``'s linearisation at the root.

Example:
    >>> import funcarray as fa, funcarray.numpy as fnp
    >>> from funcarray import lax
    >>> def sqrt(y):  # the root of x**2 - y by Newton's method, differentiated implicitly
    ...     newton = lambda f, x0: lax.fori_loop(0, 20, lambda i, x: x - f(x) / (2 * x), x0)
    ...     return lax.custom_root(lambda x: x ** 2 - y, 1.0, newton, lambda g, t: t / g(1.0))
    >>> fa.grad(sqrt)(4.0)
    Array(0.25, dtype=float32, weak_type=True)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from funcarray.api.arguments import asarray_arg
from funcarray.api.custom_derivatives import _stage_body, custom_jvp, zeros_like_tangent
from funcarray.api.linear_transpose import linear_transpose
from funcarray.base import pytrees as fa_tree
from funcarray.lax._common import (
    _CONCRETE,
    _EAGER_STAGED,
    _LEAF,
    _function_key,
    _remember_staged,
    _type_key,
)
from funcarray.primitives.linear_solve import custom_linear_solve_p
from funcarray.transforms.core import EVAL_TRACE, current_trace
from funcarray.transforms.ir import eval_ir

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


__all__ = ["custom_linear_solve", "custom_root"]


def _flat_function(what: str, fun, tree, avals, store=None, op="custom_linear_solve"):
    """``fun`` of a pytree like ``b`` (structure ``tree``, leaf types ``avals``) as a
    function of flat leaves that must return the same structure and types; with ``store``,
    ``fun`` returns ``(out, aux)`` and the aux leaves follow (their tree in ``store``)."""
    def flat(*leaves):
        out = fun(fa_tree.unflatten(tree, list(leaves)))
        if store is not None:
            if not (isinstance(out, tuple) and len(out) == 2):
                raise TypeError(f"lax.{op}: with has_aux=True, {what} must "
                                f"return a pair (x, aux)")
            out, aux = out
        out_leaves, out_tree = fa_tree.flatten(out)
        out_leaves = [asarray_arg(f"lax.{op}'s {what}", x) for x in out_leaves]
        got = [x.aval.str_short() for x in out_leaves]
        want = [a.str_short() for a in avals]
        if out_tree != tree or [(x.shape, x.dtype) for x in out_leaves] != [
                (a.shape, a.dtype) for a in avals]:
            raise TypeError(f"lax.{op}: {what} must return a pytree with the structure "
                            f"and types of its input: got {out_tree} {got}, expected {tree} "
                            f"{want}")
        if store is not None:
            aux_leaves, store["aux_tree"] = fa_tree.flatten(aux)
            out_leaves += [asarray_arg(f"lax.{op}'s aux", x)
                           for x in aux_leaves]
        return out_leaves
    return flat


def custom_linear_solve(matvec: Callable[[Any], Any], b: Any,
                        solve: Callable[[Callable[[Any], Any], Any], Any],
                        transpose_solve: Callable[[Callable[[Any], Any], Any], Any] | None = None,
                        symmetric: bool = False, has_aux: bool = False) -> Any:
    """``x = solve(matvec, b)`` for the linear system ``matvec(x) = b``, differentiated
    implicitly: tangents and cotangents are solves too (``solve`` with ``b``'s tangent, and
    ``transpose_solve(vecmat, x_ct)``), not derivatives of ``solve``'s own steps. ``b`` is a
    pytree; ``matvec`` maps it to the same structure. ``transpose_solve`` is needed for
    reverse mode; ``symmetric=True`` says ``matvec`` is its own transpose (no
    ``linear_transpose`` is taken). ``has_aux``: ``solve`` and ``transpose_solve`` return
    ``(x, aux)``, and so does this function.

    Example:
        >>> import funcarray as fa, funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> a = fnp.asarray([[4.0, 1.0], [1.0, 3.0]])
        >>> sol = lambda mv, b: fnp.linalg.solve(a, b)
        >>> f = lambda b: lax.custom_linear_solve(lambda x: a @ x, b, sol, sol,
        ...                                       symmetric=True).sum()
        >>> fa.grad(f)(fnp.asarray([1.0, 2.0]))
        Array([0.18181819, 0.27272728], dtype=float32)
    """
    if type(b) in _CONCRETE and current_trace() is EVAL_TRACE:  # (one array, as below)
        return solve(matvec, b)
    leaves, tree = fa_tree.flatten(b)
    leaves = [asarray_arg("lax.custom_linear_solve", x) for x in leaves]
    b = fa_tree.unflatten(tree, leaves)
    if current_trace() is EVAL_TRACE:  # nothing to differentiate: just solve
        return solve(matvec, b)
    avals = [x.aval for x in leaves]
    store = {} if has_aux else None
    matvec_call = _stage_body(_flat_function("matvec", matvec, tree, avals), leaves)
    solve_call = _stage_body(_flat_function(
        "solve", lambda v: solve(matvec, v), tree, avals, store), leaves)
    vecmat_call = tsolve_call = None
    if transpose_solve is not None:
        if symmetric:
            vecmat = matvec
            vecmat_call = matvec_call
        else:
            transposed = linear_transpose(matvec, b)
            vecmat = lambda x: transposed(x)[0]  # noqa: E731
            vecmat_call = _stage_body(_flat_function("vecmat", vecmat, tree, avals), leaves)
        tsolve_call = _stage_body(_flat_function(
            "transpose_solve", lambda v: transpose_solve(vecmat, v), tree, avals,
            {} if has_aux else None), leaves)
    calls = (matvec_call, vecmat_call, solve_call, tsolve_call)
    consts = [c for call in calls if call is not None for c in call.consts]
    outs = custom_linear_solve_p.bind(
        *consts, *leaves, matvec=matvec_call.ir,
        vecmat=None if vecmat_call is None else vecmat_call.ir, solve=solve_call.ir,
        transpose_solve=None if tsolve_call is None else tsolve_call.ir,
        const_counts=tuple(0 if call is None else len(call.consts) for call in calls),
        num_aux=len(solve_call.ir.outs) - len(leaves))
    x = fa_tree.unflatten(tree, outs[:len(leaves)])
    if has_aux:
        return x, fa_tree.unflatten(store["aux_tree"], outs[len(leaves):])
    return x


def custom_root(f: Callable[[Any], Any], initial_guess: Any,
                solve: Callable[[Callable[[Any], Any], Any], Any],
                tangent_solve: Callable[[Callable[[Any], Any], Any], Any],
                has_aux: bool = False) -> Any:
    """A root of ``f`` found by ``solve(f, initial_guess)``, differentiated implicitly: the
    derivative with respect to what ``f`` closes over comes from the implicit function
    theorem, ``dx = -(df/dx)^-1 (df/dtheta) dtheta``, with ``tangent_solve(g, y)`` solving the
    linear system ``g(x) = y`` for ``g``, ``f`` linearised at the root (for a scalar root,
    ``lambda g, y: y / g(1.0)``). ``solve``'s iterations are never differentiated. With
    ``has_aux``, ``solve`` returns ``(root, aux)``.

    Example:
        >>> import funcarray as fa, funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> def cube_root(y):
        ...     bisect = lambda f, x0: lax.fori_loop(
        ...         0, 40, lambda i, lh: fnp.where(f((lh[0] + lh[1]) / 2) > 0,
        ...                                         fnp.stack([lh[0], (lh[0] + lh[1]) / 2]),
        ...                                         fnp.stack([(lh[0] + lh[1]) / 2, lh[1]])),
        ...         fnp.asarray([0.0, 10.0]))[0]
        ...     return lax.custom_root(lambda x: x ** 3 - y, 1.0, bisect, lambda g, t: t / g(1.0))
        >>> round(float(fa.grad(cube_root)(8.0)), 4)  # 1 / (3 * 2**2)
        0.0833
    """
    if current_trace() is EVAL_TRACE:
        return _eager_custom_root(f, initial_guess, solve, has_aux)
    guess_leaves, tree = _guess_leaves(initial_guess)
    f_call = _stage_root_function(f, tree, guess_leaves)
    f_ir = f_call.ir
    store = {}

    def f_with(consts, x):  # f, its closed-over values passed explicitly
        leaves, _ = fa_tree.flatten(x)
        return fa_tree.unflatten(tree, eval_ir(f_ir, (), [*consts, *leaves]))

    def find_root(consts, guess):
        out = solve(lambda x: f_with(consts, x), guess)
        if has_aux:
            out, aux = out
            store["aux_tree"] = fa_tree.structure(aux)
            return out, fa_tree.leaves(aux)
        return out, []

    root = custom_jvp(find_root)

    @root.defjvp
    def root_jvp(primals, tangents):
        consts, guess = primals
        consts_dot, _ = tangents
        x, aux = root(consts, guess)
        from funcarray.api.autodiff import jvp

        # f(theta, x*(theta)) = 0  =>  (df/dx) dx = -(df/dtheta) dtheta
        _, rhs = jvp(lambda c: f_with(c, x), (consts,), (consts_dot,))
        def linearised(v):  # f's derivative in x at the root (v cast to x's types: a
            # tangent_solve may probe it with a Python scalar, g(1.0))
            v = fa_tree.map(lambda t, p: asarray_arg("lax.custom_root", t).astype(p.dtype), v, x)
            return jvp(lambda y: f_with(consts, y), (x,), (v,))[1]

        dx = custom_linear_solve(linearised, rhs, tangent_solve, tangent_solve)
        # (aux outputs have zero tangents: float0 for integer ones, as custom_jvp requires)
        return (x, aux), (fa_tree.map(lambda t: -t, dx),
                          [fa_tree.map(zeros_like_tangent, a) for a in aux])

    x, aux = root(list(f_call.consts), fa_tree.unflatten(tree, guess_leaves))
    if has_aux:
        return x, fa_tree.unflatten(store["aux_tree"], aux)
    return x


def _guess_leaves(initial_guess):
    if type(initial_guess) in _CONCRETE:  # (one array: no pytree work)
        return [initial_guess], _LEAF
    leaves, tree = fa_tree.flatten(initial_guess)
    return [asarray_arg("lax.custom_root", x) for x in leaves], tree


def _stage_root_function(f, tree, guess_leaves):
    """``f`` staged on the guess's types, checking that it keeps its input's structure and
    types."""
    avals = [x.aval for x in guess_leaves]
    return _stage_body(_flat_function("f", f, tree, avals, op="custom_root"), guess_leaves)


def _eager_custom_root(f, initial_guess, solve, has_aux):
    """``custom_root`` outside every transform, where there is nothing to differentiate:
    ``solve`` runs on ``f`` itself (values concrete, print and pdb work). ``f`` is checked
    as the general path checks it, by staging it on the guess's types, once per function key
    (code, closure types) and guess types: the outcome is the same for all of them."""
    guess_leaves, tree = _guess_leaves(initial_guess)
    try:
        key = ("custom_root", _function_key(f), None if tree is _LEAF else tree,
               tuple(map(_type_key, guess_leaves)))
        checked = key in _EAGER_STAGED
    except TypeError:  # something unhashable in a closure: check without caching
        key, checked = None, False
    if not checked:
        _stage_root_function(f, tree, guess_leaves)
        if key is not None:
            _remember_staged(key, True)
    guess = guess_leaves[0] if tree is _LEAF else fa_tree.unflatten(tree, guess_leaves)
    out = solve(_on_guess_structure(f, tree), guess)
    if not has_aux:
        return _as_arrays(out)
    x, aux = out
    return _as_arrays(x), _as_arrays(aux)


def _as_arrays(tree):
    """``solve``'s outputs as the general path returns them (the outputs of a custom_jvp
    function): arrays, a Python scalar made a weak one."""
    if type(tree) in _CONCRETE:
        return tree
    return fa_tree.map(lambda x: asarray_arg("lax.custom_root's solve", x), tree)


def _on_guess_structure(f, tree):
    """``f`` as the general path's solver calls it (its staged form): on the leaves of its
    argument in the guess's structure, returning that structure of arrays."""
    def f_on_guess_structure(x):
        if tree is _LEAF and type(x) in _CONCRETE:
            out = f(x)
        else:
            out = f(fa_tree.unflatten(tree, [asarray_arg("lax.custom_root's f", y)
                                             for y in fa_tree.leaves(x)]))
        if tree is _LEAF and type(out) in _CONCRETE:
            return out
        return fa_tree.unflatten(tree, [asarray_arg("lax.custom_root's f", y)
                                        for y in fa_tree.leaves(out)])
    return f_on_guess_structure
