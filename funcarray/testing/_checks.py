"""Transform-law checkers: finite differences, the transpose identity, vmap versus a loop.

Each checker returns None on success and raises an AssertionError that shows what was
compared, the two results, and the largest difference with its index.
"""

from __future__ import annotations

import numpy as np

from funcarray import dtypes
from funcarray import tree as fa_tree

__all__ = ["assert_allclose", "assert_trees_allclose", "check_grads", "check_jvp_vjp",
           "check_vmap"]

# Default (rtol, atol) by dtype for comparing results of one computation done two ways.
_TOLERANCE = {
    dtypes.float16: (1e-2, 1e-2), dtypes.bfloat16: (5e-2, 5e-2),
    dtypes.float32: (1e-4, 1e-5), dtypes.float64: (1e-9, 1e-11),
    dtypes.complex64: (1e-4, 1e-5), dtypes.complex128: (1e-9, 1e-11),
}


def _tolerance(dtype, rtol, atol):
    default = _TOLERANCE.get(np.dtype(dtype), (0.0, 0.0))
    return (default[0] if rtol is None else rtol), (default[1] if atol is None else atol)


def assert_allclose(actual, expected, *, rtol=None, atol=None, err_msg: str = ""):
    """Values close within a tolerance tied to the dtype (exact for ints and bools); shapes
    must match. NaNs compare equal.

    Example:
        >>> import funcarray.numpy as fnp
        >>> assert_allclose(fnp.ones(2), [1.0, 1.0])
    """
    a, e = np.asarray(actual), np.asarray(expected)
    if a.shape != e.shape:
        raise AssertionError(f"{err_msg}shapes differ: {a.shape} vs {e.shape}")
    rtol, atol = _tolerance(a.dtype, rtol, atol)
    wide = np.complex128 if np.iscomplexobj(a) or np.iscomplexobj(e) else np.float64
    a64, e64 = a.astype(wide), e.astype(wide)
    close = np.isclose(a64, e64, rtol=rtol, atol=atol, equal_nan=True)
    if not close.all():
        diff = np.where(close, 0, np.abs(a64 - e64))
        idx = np.unravel_index(np.argmax(diff), diff.shape) if diff.ndim else ()
        raise AssertionError(
            f"{err_msg}not close (rtol={rtol}, atol={atol}): {int((~close).sum())} of "
            f"{close.size} elements differ; largest difference {diff[idx]} at index {idx}: "
            f"{a64[idx]} vs {e64[idx]}\nactual:\n{a}\nexpected:\n{e}")


def assert_trees_allclose(actual, expected, *, rtol=None, atol=None):
    """``assert_allclose`` leaf by leaf, after checking the two trees' structures match.

    Example:
        >>> import funcarray.numpy as fnp
        >>> assert_trees_allclose({"a": fnp.ones(1)}, {"a": np.ones(1)})
    """
    a_leaves, a_tree = fa_tree.flatten(actual)
    e_leaves, e_tree = fa_tree.flatten(expected)
    if a_tree != e_tree:
        raise AssertionError(f"tree structures differ: {a_tree} vs {e_tree}")
    for i, (a, e) in enumerate(zip(a_leaves, e_leaves)):
        assert_allclose(a, e, rtol=rtol, atol=atol, err_msg=f"leaf {i}: ")


def _random_like(rng, x):
    x = np.asarray(x)
    if np.iscomplexobj(x):
        return (rng.standard_normal(x.shape) + 1j * rng.standard_normal(x.shape)).astype(x.dtype)
    return rng.standard_normal(x.shape).astype(x.dtype)


def _inner(xs, ys) -> float:
    # The unconjugated pairing: transposes are linear (no conjugation), as in JAX.
    total = 0.0
    for x, y in zip(xs, ys):
        total += np.real(np.sum(np.asarray(x, np.complex128) * np.asarray(y, np.complex128)))
    return total


def _flat_fun(f, args):
    leaves, tree = fa_tree.flatten(tuple(args))

    def flat(*xs):
        return fa_tree.leaves(f(*fa_tree.unflatten(tree, list(xs))))
    return flat, leaves


def check_jvp_vjp(f, args, *, seed: int = 0, rtol=None, atol=None):
    """The transpose identity ``<u, J v> == <J^T u, v>`` for random ``u``, ``v``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> check_jvp_vjp(fnp.sin, (fnp.arange(3.0),))
    """
    import funcarray as fa
    rng = np.random.default_rng(seed)
    flat, leaves = _flat_fun(f, args)
    leaves = [fa.numpy.asarray(x) for x in leaves]
    tangents = [fa.numpy.asarray(_random_like(rng, x)) for x in leaves]
    outs, out_tangents = fa.jvp(flat, tuple(leaves), tuple(tangents))
    cotangents = [fa.numpy.asarray(_random_like(rng, o)) for o in outs]
    _, f_vjp = fa.vjp(flat, *leaves)
    in_cts = f_vjp(list(cotangents))
    lhs, rhs = _inner(cotangents, out_tangents), _inner(in_cts, tangents)
    inexact = [np.asarray(o).dtype for o in outs if dtypes.is_inexact(np.asarray(o).dtype)]
    dtype = inexact[0] if inexact else np.float64
    rtol, atol = _tolerance(dtype, rtol, atol)
    if not np.isclose(lhs, rhs, rtol=rtol * 10, atol=atol * 10 * max(1, abs(lhs))):
        raise AssertionError(
            f"transpose identity violated: <u, J v> = {lhs} but <J^T u, v> = {rhs} "
            f"(difference {abs(lhs - rhs)}) for args {args}")


def _numerical_jvp(flat, leaves, tangents, eps):
    plus = [np.asarray(x) + eps * t for x, t in zip(leaves, tangents)]
    minus = [np.asarray(x) - eps * t for x, t in zip(leaves, tangents)]
    import funcarray as fa
    f_plus = flat(*[fa.numpy.asarray(p) for p in plus])
    f_minus = flat(*[fa.numpy.asarray(m) for m in minus])
    return [(np.asarray(p, np.complex128 if np.iscomplexobj(p) else np.float64) -
             np.asarray(m)) / (2 * eps) for p, m in zip(f_plus, f_minus)]


def check_grads(f, args, order: int = 1, modes=("fwd", "rev"), *, eps=None, rtol=None,
                atol=None, seed: int = 0):
    """Check ``f``'s derivatives against central finite differences in random directions.

    ``fwd`` compares ``jvp`` with the finite difference; ``rev`` checks the transpose identity
    between ``vjp`` and ``jvp``. ``order=2`` repeats the checks on the derivative function.
    Use float64 arguments for tight tolerances.

    Example:
        >>> import numpy as np
        >>> import funcarray.numpy as fnp
        >>> check_grads(fnp.sin, (fnp.asarray(np.arange(3.0)),), order=1)
    """
    import funcarray as fa
    rng = np.random.default_rng(seed)
    flat, leaves = _flat_fun(f, args)
    leaves = [fa.numpy.asarray(x) for x in leaves]
    dtype = np.asarray(leaves[0]).dtype
    double = dtype in (np.float64, np.complex128)
    eps = eps if eps is not None else (1e-6 if double else 1e-2)
    default_rtol = 1e-5 if double else 5e-2
    rtol = default_rtol if rtol is None else rtol
    atol = default_rtol if atol is None else atol
    tangents = [_random_like(rng, x) for x in leaves]
    if "fwd" in modes:
        _, out_t = fa.jvp(flat, tuple(leaves), tuple(fa.numpy.asarray(t) for t in tangents))
        expected = _numerical_jvp(flat, leaves, tangents, eps)
        for i, (a, e) in enumerate(zip(out_t, expected)):
            assert_allclose(a, e, rtol=rtol, atol=atol,
                            err_msg=f"jvp vs finite differences, output {i}: ")
    if "rev" in modes:
        check_jvp_vjp(flat, leaves, seed=seed, rtol=rtol, atol=atol)
    if order > 1:
        fixed = [fa.numpy.asarray(t) for t in tangents]

        def derivative(*xs):
            return fa.jvp(flat, tuple(xs), tuple(fixed))[1]
        check_grads(derivative, leaves, order - 1, modes, eps=eps, rtol=rtol, atol=atol,
                    seed=seed + 1)


def check_vmap(f, args, in_axes=0, out_axes=0, *, rtol=None, atol=None):
    """``vmap(f)`` equals applying ``f`` to each slice in a Python loop and stacking.

    Example:
        >>> import funcarray.numpy as fnp
        >>> check_vmap(lambda x, y: x + y, (fnp.ones((2, 3)), fnp.ones(3)), in_axes=(0, None))
    """
    import funcarray as fa
    import funcarray.numpy as fnp
    batched = fa.vmap(f, in_axes=in_axes, out_axes=out_axes)(*args)
    axes = in_axes if isinstance(in_axes, (tuple, list)) else (in_axes,) * len(args)
    sizes = {a.shape[ax] for a, ax in zip(args, axes) if ax is not None}
    (size,) = sizes
    results = []
    for i in range(size):
        sliced = [a if ax is None else fnp.take(a, i, axis=ax) for a, ax in zip(args, axes)]
        results.append(f(*sliced))
    out_axes_leaves = out_axes
    expected = fa_tree.map(lambda *xs: fnp.stack(xs, axis=out_axes_leaves), *results)
    assert_trees_allclose(batched, expected, rtol=rtol, atol=atol)
