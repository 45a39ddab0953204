"""Transform-law checkers: finite differences, the transpose identity, vmap versus a loop,
jit versus eager.

Each checker returns None on success and raises an AssertionError that shows the input, the
two results that should agree, and the largest difference with its index. Tolerances are tied
to the dtype of the reference value (the expected one, the loop's, eager's) or, for derivative
checks, to the least precise float among the values compared.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

import numpy as np

from funcarray import numpy as fnp
from funcarray.api import autodiff as _api
from funcarray.api import jit as _jit
from funcarray.api.vectorization import vmap as _vmap
from funcarray.base import dtypes
from funcarray.base import pytrees as fa_tree
from funcarray.lowering import cache
from funcarray.transforms.core import short_dtype_name

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence
    from typing import Any, Literal

    import numpy.typing as npt

    from funcarray.base.typing import DTypeLike

    _Mode = Literal["fwd", "rev"]

__all__ = ["assert_allclose", "assert_trees_allclose", "check_grads", "check_jvp_vjp",
           "check_vmap", "check_jit", "check_transforms", "count_compiles", "tolerance"]

# Default (rtol, atol) by dtype for comparing results of one computation done two ways.
_TOLERANCE = {
    dtypes.float16: (1e-2, 1e-2), dtypes.bfloat16: (5e-2, 5e-2),
    dtypes.float32: (1e-4, 1e-5), dtypes.float64: (1e-9, 1e-11),
    dtypes.complex64: (1e-4, 1e-5), dtypes.complex128: (1e-9, 1e-11),
}
# Narrow ml_dtypes floats (float8, float6, float4) compare as loosely as their few bits allow.
_NARROW_FLOAT_TOLERANCE = (2.5e-1, 2.5e-1)

# Finite-difference step and (rtol, atol) by working precision. Central differences have error
# ~eps**2 (truncation) + machine_eps / eps (rounding), so the step balances the two.
_FD_SETTINGS = {
    "double": (1e-6, 1e-5, 1e-5),
    "single": (1e-2, 5e-2, 5e-2),
    "half": (1e-1, 2e-1, 2e-1),
}


# --------------------------------------------------------------------------------------------
# Tolerances and formatting
# --------------------------------------------------------------------------------------------

def _dtype_of(x) -> np.dtype:
    dtype = getattr(x, "dtype", None)
    return np.dtype(dtype) if dtype is not None else np.asarray(x).dtype


def tolerance(*dtype_list: DTypeLike, rtol: float | None = None, atol: float | None = None
              ) -> tuple[float, float]:
    """The default ``(rtol, atol)`` for comparing values of the given dtypes: the loosest one
    among them (exact for ints and bools); an explicit ``rtol``/``atol`` wins.

    Example:
        >>> tolerance("float32", "float64")
        (0.0001, 1e-05)
        >>> tolerance("int32")
        (0.0, 0.0)
    """
    default_rtol = default_atol = 0.0
    for dtype in dtype_list:
        dtype = np.dtype(dtype)
        if dtype in dtypes.float8_types:
            pair = _NARROW_FLOAT_TOLERANCE
        else:
            pair = _TOLERANCE.get(dtype, (0.0, 0.0))
        default_rtol, default_atol = max(default_rtol, pair[0]), max(default_atol, pair[1])
    return (default_rtol if rtol is None else rtol), (default_atol if atol is None else atol)


def _format_value(x) -> str:
    """A compact, dtype-labelled rendering of one leaf (large arrays are summarised)."""
    if not hasattr(x, "dtype") and not isinstance(x, (bool, int, float, complex, np.generic)):
        return repr(x)
    value = np.asarray(x)
    if isinstance(x, (bool, int, float, complex)):
        head = f"Python {type(x).__name__}"  # no dtype: its value is compared, not its type
    else:
        weak = " weak" if _weak_type_of(x) else ""
        head = f"{_short(value.dtype)}{list(value.shape)}{weak}"
    if value.dtype.kind == "V" or value.dtype in dtypes.float8_types or \
            value.dtype == dtypes.bfloat16:
        value = value.astype(np.float32)  # ml_dtypes print poorly inside array2string
    body = np.array2string(value, threshold=24, edgeitems=3, precision=6,
                           max_line_width=96, separator=", ")
    return f"{head} {body}" if "\n" not in body else f"{head}\n{_indent(body, 6)}"


def _short(dtype) -> str:
    return short_dtype_name(dtype)


def _indent(text: str, spaces: int) -> str:
    pad = " " * spaces
    return "\n".join(pad + line for line in text.splitlines())


def _path_str(path) -> str:
    return "".join(f"[{k!r}]" for k in path) or "(root)"


def _format_tree(tree, title: str) -> str:
    """``title`` then one line per leaf, labelled by its path in the tree."""
    paths, leaves, _ = fa_tree.flatten_with_path(tree)
    if paths == [()]:
        return f"  {title}: {_format_value(leaves[0])}"
    lines = [f"  {title}:"]
    for path, leaf in zip(paths, leaves):
        lines.append(f"    {_path_str(path)}: {_format_value(leaf)}")
    if not leaves:
        lines.append("    (no leaves)")
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# Comparison
# --------------------------------------------------------------------------------------------

def _wide(value: np.ndarray) -> np.ndarray:
    kind = np.complex128 if value.dtype.kind == "c" else np.float64
    return value.astype(kind)


def _weak_type_of(x) -> bool | None:
    """The weak-type flag of a funcarray or jax array; None for values that carry none (NumPy
    arrays and scalars, Python numbers)."""
    weak = getattr(x, "weak_type", None)
    return bool(weak) if isinstance(weak, (bool, np.bool_)) else None


def _declared_type(x, typed: bool | None) -> tuple[np.dtype | None, bool | None]:
    """``(dtype, weak_type)`` that a leaf states, None where it states none: a Python number
    has no dtype (its value is compared, not its type). ``typed`` overrides the leaf's own
    answer for a nested sequence already converted to one array (see ``_as_array_like``)."""
    if typed is not None:
        return (np.asarray(x).dtype if typed else None), None
    if getattr(x, "dtype", None) is None:
        return None, None
    return np.dtype(x.dtype), _weak_type_of(x)


_DTYPE_HINT = ("cast the expected value to the dtype the result should have, or pass "
               "check_dtype=False where the dtype is not what the test checks")
_WEAK_HINT = ("build the expected value with the weak type the result should have, or pass "
              "check_weak_type=False where weak typing is not what the test checks")


def _leaf_mismatch(actual, expected, *, rtol, atol, check_dtype, check_weak_type, names,
                   typed=(None, None), hints=False) -> str | None:
    """Why two leaves differ (shape, dtype, weak type or values), or None when they are
    close. The tolerance is the expected leaf's dtype's (the actual one's when the expected
    is a Python value); ``hints`` adds how to fix a type mismatch to the message."""
    a, e = np.asarray(actual), np.asarray(expected)
    if a.shape != e.shape:
        return f"shapes differ: {names[0]} {a.shape} vs {names[1]} {e.shape}"
    a_dtype, a_weak = _declared_type(actual, typed[0])
    e_dtype, e_weak = _declared_type(expected, typed[1])
    if check_dtype and a_dtype is not None and e_dtype is not None:
        if a_dtype != e_dtype:
            hint = f" ({_DTYPE_HINT})" if hints else ""
            return f"dtypes differ: {names[0]} {a_dtype} vs {names[1]} {e_dtype}{hint}"
        if check_weak_type and a_weak is not None and e_weak is not None and a_weak != e_weak:
            hint = f" ({_WEAK_HINT})" if hints else ""
            return (f"weak types differ: {names[0]} {a_dtype} weak_type={a_weak} vs "
                    f"{names[1]} {e_dtype} weak_type={e_weak}{hint}")
    rtol, atol = tolerance(e_dtype if e_dtype is not None else a.dtype, rtol=rtol, atol=atol)
    if not (dtypes.is_inexact(a.dtype) or dtypes.is_inexact(e.dtype)):
        close = np.asarray(a == e)  # ints and bools: exact, without a lossy float conversion
        a64, e64 = a, e
        diff = np.where(close, 0, np.abs(a64.astype(np.float64) - e64.astype(np.float64)))
    else:
        a64, e64 = _wide(a), _wide(e)
        close = np.isclose(a64, e64, rtol=rtol, atol=atol, equal_nan=True)
        with np.errstate(invalid="ignore", over="ignore"):
            diff = np.where(close, 0.0, np.abs(a64 - e64))
        diff = np.where(np.isnan(diff), np.inf, diff)  # a NaN on one side only: rank it first
    if close.all():
        return None
    idx = np.unravel_index(np.argmax(diff), diff.shape) if diff.ndim else ()
    idx = tuple(int(i) for i in idx)
    return (f"{int((~close).sum())} of {close.size} elements differ (rtol={rtol:g}, "
            f"atol={atol:g}); largest difference {diff[idx]:.6g} at index {idx}: "
            f"{names[0]} {a64[idx].item()!r} vs {names[1]} {e64[idx].item()!r}")


def _compare_trees(actual, expected, *, rtol=None, atol=None, check_dtype=True,
                   check_weak_type=True, title="values are not close",
                   names=("actual", "expected"), inputs=None, err_msg="", typed=(None, None),
                   hints=False):
    """Raise an AssertionError describing the first leaf where two trees differ."""
    a_paths, a_leaves, a_tree = fa_tree.flatten_with_path(actual)
    e_leaves, e_tree = fa_tree.flatten(expected)
    problem = None
    if a_tree != e_tree:
        problem = f"tree structures differ: {names[0]} {a_tree} vs {names[1]} {e_tree}"
    else:
        for path, a, e in zip(a_paths, a_leaves, e_leaves):
            why = _leaf_mismatch(a, e, rtol=rtol, atol=atol, check_dtype=check_dtype,
                                 check_weak_type=check_weak_type, names=names, typed=typed,
                                 hints=hints)
            if why is not None:
                where = f"leaf {_path_str(path)}: " if a_paths != [()] else ""
                problem = where + why
                break
    if problem is None:
        return
    parts = [f"{err_msg}{title}", f"  {problem}"]
    if inputs is not None:
        parts.append(_format_tree(inputs, "input"))
    parts.append(_format_tree(actual, names[0]))
    parts.append(_format_tree(expected, names[1]))
    raise AssertionError("\n".join(parts))


def _as_array_like(x) -> tuple[np.ndarray, bool]:
    """A nested sequence as one NumPy array, and whether it states a dtype: only when every
    number in it does (a list of NumPy or funcarray arrays, not of Python numbers)."""
    leaves = fa_tree.leaves(x)
    typed = bool(leaves) and all(getattr(leaf, "dtype", None) is not None for leaf in leaves)
    return np.asarray(x), typed


def _is_single_leaf(x) -> bool:
    leaves = fa_tree.leaves(x)
    return len(leaves) == 1 and leaves[0] is x


def assert_allclose(actual: npt.ArrayLike, expected: npt.ArrayLike, *,
                    rtol: float | None = None, atol: float | None = None, err_msg: str = "",
                    check_dtype: bool = True, check_weak_type: bool = True) -> None:
    """``actual`` equals ``expected`` within the expected value's dtype's tolerance (exact for
    ints and bools; ``rtol``/``atol`` override it); NaNs compare equal. The two must have the
    same shape, and, by default, the same dtype and weak type.

    Types are compared where both sides state them. A NumPy array or scalar, a jax array or a
    funcarray Array states its dtype; a Python scalar or a nested list of Python numbers
    states none, so only its values are compared (and the tolerance is the actual value's
    dtype's). Weak types are compared where both sides carry a ``weak_type`` flag (funcarray
    and jax arrays; NumPy values carry none). ``check_dtype=False`` turns off both checks,
    ``check_weak_type=False`` only the weak-type one. The error names the mismatch (with the
    leaf's path in a tree), shows both values and the largest difference with its index.

    Example:
        >>> import numpy as np
        >>> import funcarray.numpy as fnp
        >>> assert_allclose(fnp.ones(2), [1.0, 1.0])   # a Python list: values only
        >>> assert_allclose(fnp.ones(2), [1.0, 1.5])
        Traceback (most recent call last):
        AssertionError: values are not close
          1 of 2 ...; largest difference 0.5 at index (1,): actual 1.0 vs expected 1.5
        ...
        >>> assert_allclose(fnp.ones(2), np.ones(2))   # float32 result, float64 oracle
        Traceback (most recent call last):
        AssertionError: values are not close
          dtypes differ: actual float32 vs expected float64 (cast the expected value ...)
        ...
        >>> assert_allclose(fnp.ones(2), np.ones(2, np.float32))
        >>> assert_allclose(fnp.full(2, 2.0), fnp.ones(2) * 2)   # as jax: full(2, 2.0) is weak
        Traceback (most recent call last):
        AssertionError: values are not close
          weak types differ: actual float32 weak_type=True vs expected float32 weak_type=False ...
        ...
        >>> assert_allclose(fnp.full(2, 2.0), fnp.ones(2) * 2, check_weak_type=False)
        >>> assert_allclose(fnp.ones(2), np.ones(2), check_dtype=False)
    """
    typed = (None, None)
    # One side a single array and the other a nested list: compare them as arrays.
    if _is_single_leaf(actual) and not _is_single_leaf(expected):
        expected, e_typed = _as_array_like(expected)
        typed = (None, e_typed)
    elif _is_single_leaf(expected) and not _is_single_leaf(actual):
        actual, a_typed = _as_array_like(actual)
        typed = (a_typed, None)
    elif fa_tree.structure(actual) != fa_tree.structure(expected):
        # Two nestings of the same numbers (a tuple and a list): array-likes, as in NumPy.
        (actual, a_typed), (expected, e_typed) = _as_array_like(actual), _as_array_like(expected)
        typed = (a_typed, e_typed)
    _compare_trees(actual, expected, rtol=rtol, atol=atol, check_dtype=check_dtype,
                   check_weak_type=check_weak_type, err_msg=err_msg, typed=typed, hints=True)


def assert_trees_allclose(actual: Any, expected: Any, *, rtol: float | None = None,
                          atol: float | None = None, err_msg: str = "",
                          check_dtype: bool = True, check_weak_type: bool = True) -> None:
    """``assert_allclose`` leaf by leaf (same defaults: dtypes and weak types checked where
    both leaves state them, the expected leaf's tolerance), after checking the two trees'
    structures match; the error names the leaf by its path.

    Example:
        >>> import numpy as np
        >>> import funcarray.numpy as fnp
        >>> assert_trees_allclose({"a": fnp.ones(1)}, {"a": np.ones(1, np.float32)})
        >>> assert_trees_allclose({"a": fnp.ones(()), "b": fnp.arange(2)},
        ...                       {"a": 1.0, "b": np.arange(2, dtype=np.int32)})
        >>> assert_trees_allclose({"a": fnp.ones(1)}, {"a": np.ones(1)})
        Traceback (most recent call last):
        AssertionError: values are not close
          leaf ['a']: dtypes differ: actual float32 vs expected float64 ...
        ...
    """
    _compare_trees(actual, expected, rtol=rtol, atol=atol, check_dtype=check_dtype,
                   check_weak_type=check_weak_type, err_msg=err_msg, hints=True)


# --------------------------------------------------------------------------------------------
# Differentiation checks
# --------------------------------------------------------------------------------------------

def _is_inexact_leaf(x) -> bool:
    if isinstance(x, bool):
        return False
    if isinstance(x, (float, complex)):
        return True
    dtype = getattr(x, "dtype", None)
    return dtype is not None and dtypes.is_inexact(dtype)


def _upcast_dtype(dtype) -> np.dtype:
    return dtypes.complex128 if dtypes.is_complex(dtype) else dtypes.float64


class _Restricted:
    """``f`` seen as a function of its floating argument leaves to its floating output leaves.

    Integer and other leaves are held fixed (they have no derivative), so the checkers can
    differentiate any ``f(*args)`` with pytree arguments and results.
    """

    def __init__(self, f, args, upcast: bool):
        leaves, self.tree = fa_tree.flatten(tuple(args))
        self.leaves = list(leaves)
        self.positions = [i for i, x in enumerate(leaves) if _is_inexact_leaf(x)]
        primals = []
        for i in self.positions:
            x = fnp.asarray(leaves[i])
            if upcast:
                x = fnp.asarray(x, dtype=_upcast_dtype(x.dtype))
            primals.append(x)
        self.primals = primals
        self.f = f

    def full_args(self, xs):
        full = list(self.leaves)
        for p, x in zip(self.positions, xs):
            full[p] = x
        return fa_tree.unflatten(self.tree, full)

    def __call__(self, *xs):
        outs = fa_tree.leaves(self.f(*self.full_args(xs)))
        return [o for o in outs if _is_inexact_leaf(o)]


def _random_like(rng, x) -> np.ndarray:
    x = np.asarray(x)
    shape = x.shape
    if np.iscomplexobj(x):
        return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    return rng.standard_normal(shape)


def _precision(dtype_list) -> str:
    """The working precision of a derivative check: that of its least precise float."""
    bits = min((dtypes.finfo(dt).bits for dt in dtype_list if dtypes.is_inexact(dt)),
               default=64)
    return "double" if bits >= 64 else "single" if bits >= 32 else "half"


def _fd_settings(flat, xs, eps, rtol, atol):
    outs = flat(*xs)
    precision = _precision([_dtype_of(x) for x in xs] + [_dtype_of(o) for o in outs])
    d_eps, d_rtol, d_atol = _FD_SETTINGS[precision]
    return (outs, d_eps if eps is None else eps, d_rtol if rtol is None else rtol,
            d_atol if atol is None else atol)


def _numerical_jvp(flat, xs, tangents, eps):

    def shifted(sign):
        return [fnp.asarray((_wide(np.asarray(x)) + sign * eps * _wide(t)).astype(t.dtype))
                for x, t in zip(xs, tangents)]
    plus, minus = flat(*shifted(1)), flat(*shifted(-1))
    return [(_wide(np.asarray(p)) - _wide(np.asarray(m))) / (2 * eps)
            for p, m in zip(plus, minus)]


def _inner_and_scale(xs, ys) -> tuple[float, float]:
    # The unconjugated pairing: transposes are linear (no conjugation), as in JAX. The scale
    # (sum of |products|) sets the tolerance, so cancellation in the sum cannot hide an error.
    total = scale = 0.0
    for x, y in zip(xs, ys):
        prod = np.asarray(x, np.complex128) * np.asarray(y, np.complex128)
        total += float(np.real(np.sum(prod)))
        scale += float(np.sum(np.abs(prod)))
    return total, scale


def _check_inner_products(lhs, rhs, scale, rtol, atol, *, title, names, inputs, details):
    difference = abs(lhs - rhs)
    if difference <= rtol * scale + atol or (np.isnan(lhs) and np.isnan(rhs)):
        return
    parts = [title,
             f"  largest difference {difference:.6g} at index (): {names[0]} {lhs!r} vs "
             f"{names[1]} {rhs!r} (rtol={rtol:g} of scale {scale:.6g}, atol={atol:g})",
             _format_tree(inputs, "input")]
    parts.extend(_format_tree(tree, name) for name, tree in details)
    raise AssertionError("\n".join(parts))


def _check_fwd(flat, xs, tangents, eps, rtol, atol, inputs, label):
    _, out_t = _api.jvp(flat, tuple(xs), tuple(fnp.asarray(t) for t in tangents))
    expected = _numerical_jvp(flat, xs, tangents, eps)
    # The differences are taken in float64 whatever the function's dtype (so rounding there
    # does not add to the error): the dtypes differ by design, the tolerance is explicit.
    _compare_trees(
        list(out_t), expected, rtol=rtol, atol=atol, inputs=inputs, check_dtype=False,
        names=("jvp", "finite differences"),
        title=f"check_grads{label}: jvp differs from central finite differences (eps={eps:g}) "
              f"in a random direction")


def _check_rev(flat, xs, outs, tangents, cotangents, eps, rtol, atol, inputs, label):
    _, f_vjp = _api.vjp(flat, *xs)
    in_cts = f_vjp([fnp.asarray(c) for c in cotangents])
    fd = _numerical_jvp(flat, xs, tangents, eps)
    lhs, scale_l = _inner_and_scale(in_cts, tangents)
    rhs, scale_r = _inner_and_scale(cotangents, fd)
    _check_inner_products(
        lhs, rhs, max(scale_l, scale_r), rtol, atol, inputs=inputs,
        names=("<vjp(u), v>", "<u, finite-difference J v>"),
        title=f"check_grads{label}: vjp disagrees with central finite differences "
              f"(eps={eps:g}): <vjp(u), v> != <u, J v> for random u, v",
        details=[("vjp(u)", list(in_cts)), ("finite-difference J v", fd)])


def _check_grads_flat(flat, xs, order, modes, eps, rtol, atol, seed, inputs, label):
    rng = np.random.default_rng(seed)
    outs, eps_, rtol_, atol_ = _fd_settings(flat, xs, eps, rtol, atol)
    # Directions are rounded to the values' dtypes, so jvp/vjp and the differences see the
    # same ones.
    tangents = [_random_like(rng, x).astype(_dtype_of(x)) for x in xs]
    cotangents = [_random_like(rng, o).astype(_dtype_of(o)) for o in outs]
    if "fwd" in modes:
        _check_fwd(flat, xs, tangents, eps_, rtol_, atol_, inputs, label)
    if "rev" in modes:
        _check_rev(flat, xs, outs, tangents, cotangents, eps_, rtol_, atol_, inputs, label)
    if order <= 1:
        return
    fixed_t = tuple(fnp.asarray(t) for t in tangents)
    fixed_ct = [fnp.asarray(c) for c in cotangents]
    if "fwd" in modes:
        def jvp_in_fixed_direction(*ys):
            return list(_api.jvp(flat, ys, fixed_t)[1])
        _check_grads_flat(jvp_in_fixed_direction, xs, order - 1, modes, eps, rtol, atol,
                          seed + 1, inputs, label + " of the jvp")
    if "rev" in modes:
        def vjp_of_fixed_cotangent(*ys):
            return list(_api.vjp(flat, *ys)[1](fixed_ct))
        _check_grads_flat(vjp_of_fixed_cotangent, xs, order - 1, modes, eps, rtol, atol,
                          seed + 2, inputs, label + " of the vjp")


def check_grads(f: Callable[..., Any], args: Sequence[Any], order: int = 2,
                modes: Sequence[_Mode] = ("fwd", "rev"), *, eps: float | None = None,
                rtol: float | None = None, atol: float | None = None, seed: int = 0,
                upcast: bool = True) -> None:
    """Check ``f``'s derivatives up to ``order`` against central finite differences taken in
    random directions.

    ``"fwd"`` compares ``jvp`` with the finite difference; ``"rev"`` compares ``vjp`` with it
    through ``<vjp(u), v> == <u, J v>`` (use ``modes=("rev",)`` for a ``custom_vjp`` function,
    which has no forward mode). ``order=2`` repeats the checks on the jvp (in a fixed random
    direction) and on the vjp (of a fixed random cotangent), and so on. Floating argument
    leaves are differentiated (others are held fixed), and are first promoted to float64 (or
    complex128) so that the differences are accurate; ``upcast=False`` keeps their dtypes,
    with looser tolerances. ``args`` and the result may be pytrees.

    Example:
        >>> import funcarray.numpy as fnp
        >>> check_grads(fnp.sin, (fnp.arange(3.0),))
        >>> check_grads(lambda x: fnp.sum(x ** 3), (fnp.arange(3.0),), order=3)
    """
    if order < 1:
        raise ValueError(f"check_grads: order must be at least 1, got {order}")
    bad = set(modes) - {"fwd", "rev"}
    if bad or not modes:
        raise ValueError(f"check_grads: modes must be a non-empty subset of ('fwd', 'rev'), "
                         f"got {modes!r}")
    restricted = _Restricted(f, args, upcast)
    if not restricted.primals:
        raise ValueError("check_grads: no floating-point argument to differentiate among "
                         f"{len(restricted.leaves)} argument leaves")
    inputs = restricted.full_args(restricted.primals)
    _check_grads_flat(restricted, restricted.primals, order, tuple(modes), eps, rtol, atol,
                      seed, inputs, "")


def check_jvp_vjp(f: Callable[..., Any], args: Sequence[Any], *, seed: int = 0,
                  rtol: float | None = None, atol: float | None = None) -> None:
    """The transpose identity ``<u, J v> == <J^T u, v>`` (jvp against vjp) for random ``u``,
    ``v``, in the arguments' own dtypes.

    Example:
        >>> import funcarray.numpy as fnp
        >>> check_jvp_vjp(fnp.sin, (fnp.arange(3.0),))
    """
    rng = np.random.default_rng(seed)
    restricted = _Restricted(f, args, upcast=False)
    xs = restricted.primals
    tangents = [_random_like(rng, x) for x in xs]
    ts = tuple(fnp.asarray(t.astype(x.dtype)) for x, t in zip(xs, tangents))
    outs, out_tangents = _api.jvp(restricted, tuple(xs), ts)
    cotangents = [fnp.asarray(_random_like(rng, o).astype(_dtype_of(o))) for o in outs]
    _, f_vjp = _api.vjp(restricted, *xs)
    in_cts = f_vjp(list(cotangents))
    lhs, scale_l = _inner_and_scale(cotangents, out_tangents)
    rhs, scale_r = _inner_and_scale(in_cts, ts)
    rtol, atol = tolerance(*[_dtype_of(o) for o in outs], *[x.dtype for x in xs],
                           rtol=rtol, atol=atol)
    # Both sides accumulate rounding over every element: allow ten roundings' worth.
    _check_inner_products(
        lhs, rhs, max(scale_l, scale_r), 10 * rtol, 10 * atol,
        inputs=restricted.full_args(xs), names=("<u, J v>", "<J^T u, v>"),
        title="check_jvp_vjp: transpose identity violated, <u, J v> != <J^T u, v> for random "
              "u, v (jvp and vjp disagree)",
        details=[("J v (jvp)", list(out_tangents)), ("J^T u (vjp)", list(in_cts))])


# --------------------------------------------------------------------------------------------
# vmap and jit
# --------------------------------------------------------------------------------------------

def _axis_size(args, axes) -> int:
    sizes = set()
    for arg, ax in zip(args, axes):
        if ax is None:
            continue
        for leaf in fa_tree.leaves(arg):
            shape = np.shape(leaf) if not hasattr(leaf, "shape") else leaf.shape
            if not -len(shape) <= ax < len(shape):
                raise ValueError(f"check_vmap: in_axes {ax} is out of range for an argument "
                                 f"of shape {tuple(shape)}")
            sizes.add(shape[ax])
    if len(sizes) != 1:
        raise ValueError(f"check_vmap: the mapped axes must have one size, got sizes "
                         f"{sorted(sizes)} for in_axes {axes}")
    return sizes.pop()


def check_vmap(f: Callable[..., Any], args: Sequence[Any],
               in_axes: int | None | Sequence[int | None] = 0, out_axes: int = 0, *,
               rtol: float | None = None, atol: float | None = None) -> None:
    """``vmap(f)`` equals applying ``f`` to each slice in a Python loop and stacking.

    ``in_axes`` is one int/None for every argument or one per argument (an argument may be a
    pytree: its leaves are all mapped along that axis); ``out_axes`` is an int.

    Example:
        >>> import funcarray.numpy as fnp
        >>> check_vmap(lambda x, y: x + y, (fnp.ones((2, 3)), fnp.ones(3)), in_axes=(0, None))
    """
    args = tuple(args)
    axes = tuple(in_axes) if isinstance(in_axes, (tuple, list)) else (in_axes,) * len(args)
    if len(axes) != len(args):
        raise ValueError(f"check_vmap: in_axes has {len(axes)} entries for {len(args)} "
                         f"arguments")
    size = _axis_size(args, axes)
    batched = _vmap(f, in_axes=in_axes, out_axes=out_axes)(*args)
    results = []
    for i in range(size):
        sliced = [arg if ax is None else
                  fa_tree.map(lambda leaf, ax=ax: fnp.take(leaf, i, axis=ax), arg)
                  for arg, ax in zip(args, axes)]
        results.append(f(*sliced))
    looped = fa_tree.map(lambda *xs: fnp.stack(xs, axis=out_axes), *results)
    _compare_trees(batched, looped, rtol=rtol, atol=atol, check_dtype=True, inputs=args,
                   names=("vmap", "loop"),
                   title=f"check_vmap: vmap(f, in_axes={in_axes!r}, out_axes={out_axes!r}) "
                         f"differs from a Python loop over the {size} batch members")


def check_jit(f: Callable[..., Any], args: Sequence[Any], *,
              static_argnums: int | Sequence[int] = (), rtol: float | None = None,
              atol: float | None = None) -> None:
    """``jit(f)(*args)`` equals the eager ``f(*args)``: same tree, shapes, dtypes, and values
    within the dtype's tolerance (XLA may round transcendental functions differently).

    Example:
        >>> import funcarray.numpy as fnp
        >>> check_jit(lambda x: fnp.tanh(x) * 2, (fnp.linspace(-1.0, 1.0, 5),))
    """
    args = tuple(args)
    compiled = _jit.jit(f, static_argnums=static_argnums)(*args)
    eager = f(*args)
    _compare_trees(compiled, eager, rtol=rtol, atol=atol, check_dtype=True, inputs=args,
                   names=("jit", "eager"), title="check_jit: jit(f) differs from eager f")


def _perturbed_batch(args, size: int, seed: int):
    """A batch of ``size`` variants of ``args`` stacked on axis 0: floats are scaled by
    ``1 + 0.01 * noise`` (signs and zeros stay, so a function's domain usually does too)."""
    rng = np.random.default_rng(seed)

    def stack(leaf):
        if not hasattr(leaf, "dtype") and not isinstance(leaf, (int, float, complex)):
            return leaf
        value = np.asarray(leaf)
        members = [value]
        for _ in range(size - 1):
            if dtypes.is_inexact(value.dtype):
                noise = 1 + 0.01 * rng.standard_normal(value.shape)
                members.append((_wide(value) * noise).astype(value.dtype))
            else:
                members.append(value)
        return fnp.asarray(np.stack(members))
    return tuple(fa_tree.map(stack, arg) for arg in args)


def check_transforms(f: Callable[..., Any], args: Sequence[Any], *, order: int = 2,
                     modes: Sequence[_Mode] = ("fwd", "rev"),
                     batched_args: Sequence[Any] | None = None,
                     in_axes: int | None | Sequence[int | None] = 0, rtol: float | None = None,
                     atol: float | None = None, seed: int = 0) -> None:
    """All the checks at once: ``check_jit``, ``check_vmap`` (on ``batched_args``, by default
    three slightly perturbed copies of ``args`` stacked on axis 0), and, when some argument is
    floating-point, ``check_grads`` (``order``, ``modes``) and ``check_jvp_vjp`` (when
    ``"fwd"`` is among ``modes``).

    Example:
        >>> import funcarray.numpy as fnp
        >>> check_transforms(lambda x, y: fnp.sin(x) * y, (fnp.arange(3.0), fnp.ones(3)))
    """
    args = tuple(args)
    check_jit(f, args, rtol=rtol, atol=atol)
    if batched_args is None:
        batched_args, in_axes = _perturbed_batch(args, 3, seed), 0
    check_vmap(f, batched_args, in_axes=in_axes, rtol=rtol, atol=atol)
    if any(_is_inexact_leaf(x) for x in fa_tree.leaves(args)):
        check_grads(f, args, order=order, modes=modes, seed=seed)
        if "fwd" in modes:
            check_jvp_vjp(f, args, seed=seed, rtol=rtol, atol=atol)


# --------------------------------------------------------------------------------------------
# Compilation counting
# --------------------------------------------------------------------------------------------

class CompileCounter:
    """What ``count_compiles`` yields: ``count`` is the number of XLA compilations so far
    inside the ``with`` block (final once the block exits)."""

    def __init__(self, at_most):
        self._cache = cache
        self.at_most = at_most
        self._start = cache.compile_count()
        self._end = None

    @property
    def count(self) -> int:
        end = self._end if self._end is not None else self._cache.compile_count()
        return end - self._start

    def __repr__(self):
        return f"CompileCounter(count={self.count}, at_most={self.at_most})"


@contextlib.contextmanager
def count_compiles(at_most: int | None = None) -> Iterator[CompileCounter]:
    """Count the executables XLA compiles inside the block; with ``at_most``, fail when the
    block compiled more (a retracing bug: a changing static argument, a Python scalar that
    should be an array, ...). Cache hits, in memory or on disk, do not count.

    Example:
        >>> import funcarray as fa
        >>> import funcarray.numpy as fnp
        >>> f = fa.jit(lambda x: fnp.cosh(x) * 3.25 - 0.125)
        >>> with count_compiles(at_most=1) as counter:
        ...     for _ in range(5):
        ...         _ = f(fnp.ones(7))
        >>> counter.count
        1
    """
    counter = CompileCounter(at_most)
    try:
        yield counter
    finally:
        counter._end = counter._cache.compile_count()
    if at_most is not None and counter.count > at_most:
        raise AssertionError(f"count_compiles: the block compiled {counter.count} executables, "
                             f"expected at most {at_most}")
