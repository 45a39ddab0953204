"""Running funcarray and jax on calls of several operands, for the differential tables of
index routines, sets, searching and histograms against jax: a ``Routine`` says how to call a
function in either namespace and draws its ``Call``s; ``check_call`` runs a call through
funcarray eager, funcarray jit and ``jax.numpy`` and compares whether they raise, and
otherwise every output's shape, dtype, weak type and values.

Operands are NumPy arrays (converted by each library; traced under jit), Python values
(scalars, lists: passed as they are) or lists and tuples of them (``choose``'s choices,
``select``'s lists: their arrays are traced one by one). Keyword arguments are static.
jax runs with x64 on only when an array or a requested dtype is 64-bit. Functions whose
result shape depends on the values (``unique`` without ``size=``) cannot run under jit:
for those calls funcarray's jit is compared with jax's jit (both raise).

Example:
    >>> import funcarray.numpy as fnp
    >>> row = Routine("flatnonzero", lambda ns, x, **kw: ns.flatnonzero(x, **kw),
    ...               lambda: st.just(Call((np.array([0, 3, 0, 5]),), {"size": 3})),
    ...               positions=ALL)
    >>> check_call(row, Call((np.array([0, 3, 0, 5]),), {"size": 3}))
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from differential_compare import BITS_64, DEFAULT_32, Raised, attempt, parts, reproducer, subnormal
from differential_values import array_of
from hypothesis import given, settings
from hypothesis import strategies as st
from op_table import ALL_DTYPES, ANY, kind_of

import funcarray as fa
import funcarray.numpy as fnp
from funcarray import dtypes

__all__ = ["ALL", "AFTER_FIRST", "Call", "NONE", "Routine", "any_array", "check_call",
           "index_array", "INDEX_DTYPES", "assert_table_covers", "table_tests"]

# Which outputs are positions or counts (``Routine.positions``): their dtype is funcarray's
# default int (int32) where jax's is int64 under x64.
NONE, ALL, AFTER_FIRST = "none", "all", "after first"

# Index operands: every integer dtype (int32 twice: the usual one), and a float one now and
# then (jax refuses float indices).
INDEX_DTYPES = (np.int8, np.int16, np.int32, np.int32, np.int64, np.uint8, np.uint16,
                np.uint32, np.uint64, np.float32)


@dataclasses.dataclass(frozen=True)
class Call:
    """One call's operands (in argument order) and static keyword arguments, printed as a
    reproducer."""

    operands: tuple
    kwargs: dict

    def __repr__(self):
        return "(" + ", ".join([*map(reproducer, self.operands),
                                f"**{self.kwargs!r}"]) + ")"


@dataclasses.dataclass(frozen=True)
class Routine:
    """One function and how to call and compare it.

    * ``call(ns, *operands, **kwargs)`` runs it with either namespace (``fnp`` or ``jnp``).
    * ``calls()``: a Hypothesis strategy of its ``Call``s (valid and invalid ones).
    * ``positions``: which integer outputs are positions or counts (``NONE``, ``ALL``,
      ``AFTER_FIRST``).
    * ``computes``: float outputs are computed (bin edges, densities), compared within a
      few rounding errors; otherwise exactly (elements, counts, indices).
    * ``traceable(call)``: whether the call's result shape is static (False: jit is
      compared with jax's jit, where both must raise).
    """

    name: str
    call: Callable
    calls: Callable
    positions: str = NONE
    computes: bool = False
    traceable: Callable = lambda call: True


# --------------------------------------------------------------------------------------------
# Operands
# --------------------------------------------------------------------------------------------


@st.composite
def any_array(draw, shapes, dtype_choices=ALL_DTYPES):
    """A NumPy array of any dtype and one of ``shapes``, mixing small values with the
    dtype's edge values (signed zeros, infinities, NaN, extremes, integer limits)."""
    dtype = draw(st.sampled_from(dtype_choices), label="dtype")
    shape = draw(st.sampled_from(shapes), label="shape")
    return draw(array_of(dtype, shape, ANY), label="array")


@st.composite
def index_array(draw, shape, lo, hi, dtype_choices=INDEX_DTYPES):
    """An index array of ``shape`` with values in ``[lo, hi]`` (clipped to its dtype)."""
    dtype = np.dtype(draw(st.sampled_from(dtype_choices), label="index dtype"))
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        lo, hi = max(lo, int(info.min)), min(hi, int(info.max))
    n = int(np.prod(shape))
    values = draw(st.lists(st.integers(lo, max(lo, hi)), min_size=n, max_size=n))
    return np.array(values, dtype).reshape(shape)


# --------------------------------------------------------------------------------------------
# Running the three implementations
# --------------------------------------------------------------------------------------------


def _map_arrays(convert, value):
    """``value`` with its NumPy arrays (at any depth of lists and tuples) converted."""
    if isinstance(value, np.ndarray):
        return convert(value)
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        return type(value)(_map_arrays(convert, v) for v in value)
    return value


def _arrays_in(value) -> list:
    found = []
    _map_arrays(lambda a: found.append(a) or a, value)
    return found


def _flat(out) -> tuple:
    """The arrays of a result: itself, or those of a (nested) tuple or list."""
    if isinstance(out, (list, tuple)):
        return tuple(leaf for o in out for leaf in _flat(o))
    return (out,)


def _run(ns, routine, call, asarray):
    operands = _map_arrays(asarray, call.operands)
    return attempt(lambda: _flat(routine.call(ns, *operands, **call.kwargs)), True)


def _run_jit(ns, routine, call, jit, asarray):
    arrays = _arrays_in(call.operands)

    def staged(*traced):
        it = iter(traced)
        operands = _map_arrays(lambda a: next(it), call.operands)
        return routine.call(ns, *operands, **call.kwargs)

    return attempt(lambda: _flat(jit(staged)(*map(asarray, arrays))), True)


def _x64(call) -> bool:
    """jax's x64 on when an array or a requested dtype is 64-bit, or two arrays promote to
    a 64-bit dtype (int32 with uint32: funcarray keeps the int64 it promotes to)."""
    arrays = [a.dtype for a in _arrays_in(call.operands)]
    arrays += [_list_dtype(v) for v in call.operands
               if _is_plain_list(v) and _list_dtype(v) is not None]
    wide = arrays + [v for v in call.kwargs.values() if isinstance(v, np.dtype)]
    if any(np.dtype(d) in BITS_64 for d in wide):
        return True
    with jax.enable_x64(True):  # (pairs: a function may promote some operands alone)
        return any(np.dtype(jnp.promote_types(a, b)) in BITS_64
                   for a in arrays for b in arrays)


# --------------------------------------------------------------------------------------------
# Allowances
# --------------------------------------------------------------------------------------------


def index_dtype_is_32_bit(routine, k, got, want, x64) -> bool:
    """Positions and counts are int32 in funcarray, its default int without a switch
    (README, "Dtypes"); jax's default int is int64 under x64 (and positions padded with a
    float ``fill_value`` are float64 there, float32 in funcarray). Values are compared."""
    is_position = routine.positions == ALL or (routine.positions == AFTER_FIRST and k > 0)
    return (is_position and x64 and want.dtype in DEFAULT_32
            and got.dtype == DEFAULT_32[want.dtype])


def _python_numbers(call, kinds) -> list:
    found = []

    def visit(value):
        if type(value) in kinds:
            found.append(value)
        elif isinstance(value, (list, tuple)):
            for v in value:
                visit(v)
    visit(list(call.operands) + list(call.kwargs.values()))
    return found


def weak_default_is_32_bit(call, got, want) -> bool:
    """A Python float or complex next to 64-bit integers: funcarray's weak float is
    float32 (README, "Dtypes": Python numbers default to 32 bits, with no x64 switch);
    jax's under x64 is float64. Values are compared in funcarray's dtype."""
    wide_inexact = any(kind_of(a.dtype) in "fc" and np.dtype(a.dtype) in BITS_64
                       for a in _arrays_in(call.operands))
    return (not wide_inexact and want.dtype in DEFAULT_32
            and got.dtype == DEFAULT_32[want.dtype] and kind_of(want.dtype) in "fc"
            and bool(_python_numbers(call, (float, complex))))


def python_int_out_of_range(call, got) -> bool:
    """A Python int that the operand's dtype (or int32, funcarray's default int) cannot
    hold: funcarray refuses it, as its conversions of Python ints do everywhere
    (OverflowError); jax wraps it (a ``fill_value``) or, under x64, makes it int64."""
    return (isinstance(got, Raised) and isinstance(got.exc, OverflowError)
            and bool(_python_numbers(call, (int,))))


def jax_refuses_lists(call, want) -> bool:
    """jax's set and search functions refuse Python lists (``ensure_arraylike``); funcarray
    converts them, as all its functions do (docs/decisions.md, "As narrow as JAX"). Its
    answer is compared with jax's for the lists given as arrays."""
    return (isinstance(want, Raised) and isinstance(want.exc, TypeError)
            and "requires ndarray or scalar arguments" in str(want.exc)
            and any(_is_plain_list(v) for v in call.operands))


def _is_plain_list(value) -> bool:
    return isinstance(value, list) and not _arrays_in(value)


def _list_dtype(value):
    """The dtype funcarray converts a list to (Python numbers: 32-bit defaults, README
    "Dtypes"), or None where it refuses the list."""
    try:
        return np.asarray(fnp.asarray(value)).dtype
    except (OverflowError, TypeError, ValueError):
        return None


def _lists_as_arrays(call):
    """The lists as arrays of the dtype funcarray converts them to (jax's answer stays its
    refusal where funcarray refuses the list too)."""
    if any(_is_plain_list(v) and _list_dtype(v) is None for v in call.operands):
        return None
    return Call(tuple(jnp.asarray(v, _list_dtype(v)) if _is_plain_list(v) else v
                      for v in call.operands), call.kwargs)


def _has_subnormals(call) -> bool:
    """An array operand, or a Python float next to a half-precision or float32 array, with
    an element subnormal in the precision XLA computes it in."""
    arrays = _arrays_in(call.operands)
    floats = [np.asarray(v, np.float64) for v in _python_numbers(call, (float,))]
    return any(kind_of(a.dtype) in "fc" and (
        any(subnormal(p, a.dtype).any() for p in parts(a))
        or any(subnormal(f, a.dtype).any() for f in floats)) for a in arrays)


def subnormal_operands_computed_with(routine, call) -> bool:
    """A subnormal element in a computed result (bin edges, densities): XLA reads it as
    zero (jax), NumPy's kernels (funcarray's eager mode) as itself."""
    return routine.computes and _has_subnormals(call)


def _same_kinds(routine, where, got, want, x64):
    """subnormal_operands_compared: XLA's CPU compares (sorts, tests for zero, matches)
    with subnormals read as zero, and a result's count, order and kept element then differ
    from NumPy's (funcarray's eager mode), and funcarray's compiled program may compare
    them where jax's eager operations keep them; both must still raise alike and agree in
    dtype and weak type."""
    if isinstance(want, Raised) or isinstance(got, Raised):
        assert isinstance(want, Raised) and isinstance(got, Raised), (
            f"{where}: {got!r}, jax {want!r}")
        return
    assert len(got) == len(want), f"{where}: {len(got)} outputs, jax {len(want)}"
    for k, ((g, g_weak), (w, w_weak)) in enumerate(zip(got, want)):
        wanted = g.dtype if index_dtype_is_32_bit(routine, k, g, w, x64) else w.dtype
        assert (g.dtype, g_weak) == (wanted, w_weak), (
            f"{where}, output {k}: {g.dtype} weak {g_weak}, jax {w.dtype} weak {w_weak}")


def _tolerance(g, w):
    """Computed floats: within 8 rounding errors of the largest finite magnitude."""
    eps = float(dtypes.finfo(g.dtype).eps)
    finite = np.abs(w[np.isfinite(w)])
    return 8 * eps * (float(finite.max()) if finite.size else 0.0)


def _compare_outputs(routine, call, where, got, want, x64):
    assert len(got) == len(want), f"{where}: {len(got)} outputs, jax {len(want)}"
    for k, ((g, g_weak), (w, w_weak)) in enumerate(zip(got, want)):
        at = f"{where}, output {k}"
        if index_dtype_is_32_bit(routine, k, g, w, x64) or weak_default_is_32_bit(call, g, w):
            narrow = w.astype(g.dtype)
            w = narrow if ((narrow == w) | (narrow != narrow)).all() else w
        assert g.shape == w.shape, f"{at}: shape {g.shape}, jax {w.shape}"
        assert g.dtype == w.dtype, f"{at}: dtype {g.dtype}, jax {w.dtype}"
        assert g_weak == w_weak, f"{at}: weak_type {g_weak}, jax {w_weak}"
        ok = np.ones(w.shape, bool)
        for gp, wp in zip(parts(g), parts(w)):
            if kind_of(g.dtype) in "biu":
                ok &= gp == wp
                continue
            gp, wp = gp.astype(np.float64), wp.astype(np.float64)
            with np.errstate(invalid="ignore", over="ignore"):
                same = ((gp == wp) & (np.signbit(gp) == np.signbit(wp))) | (
                    np.isnan(gp) & np.isnan(wp))
                if routine.computes:
                    same |= np.abs(gp - wp) <= _tolerance(g, wp)
            ok &= same
        assert ok.all(), f"{at}:\n  got {g.tolist()}\n  jax {w.tolist()}"


def _compare(routine, call, where, got, want, x64):
    if isinstance(want, Raised) or isinstance(got, Raised):
        assert isinstance(want, Raised) and isinstance(got, Raised), (
            f"{where}: {got!r}, jax {want!r}")
        return
    _compare_outputs(routine, call, where, got, want, x64)


def check_call(routine, call, allowances=()):
    """Run ``call`` through funcarray eager, funcarray jit and jax, and compare;
    ``allowances``: the table's own, each ``(routine, call, got, want) -> bool`` (True: that
    difference is allowed, the run is not compared)."""
    x64 = _x64(call)
    with jax.enable_x64(x64):
        want = _run(jnp, routine, call, jnp.asarray)
        if jax_refuses_lists(call, want) and _lists_as_arrays(call) is not None:
            want = _run(jnp, routine, _lists_as_arrays(call), jnp.asarray)
        # A result shape that depends on the values: jax's jit raises, funcarray's must too.
        want_jit = (want if routine.traceable(call)
                    else _run_jit(jnp, routine, call, jax.jit, jnp.asarray))
    runs = (("eager", want, lambda: _run(fnp, routine, call, fnp.asarray)),
            ("jit", want_jit, lambda: _run_jit(fnp, routine, call, fa.jit, fnp.asarray)))
    for what, expected, run in runs:
        got = run()
        if (any(allowed(routine, call, got, expected) for allowed in allowances)
                or python_int_out_of_range(call, got)
                or subnormal_operands_computed_with(routine, call)):
            continue
        where = f"{routine.name}{call}, {what}"
        if _has_subnormals(call):
            _same_kinds(routine, where, got, expected, x64)  # subnormal_operands_compared
            continue
        _compare(routine, call, where, got, expected, x64)


def assert_table_covers(table, assigned, jax_lacks=()):
    """The table has one row per ``assigned`` name, each a function of funcarray.numpy and
    (but for ``jax_lacks``) of jax.numpy."""
    names = [row.name for row in table]
    assert sorted(names) == sorted(assigned)
    assert all(callable(getattr(fnp, name)) for name in names)
    assert all(callable(getattr(jnp, name)) for name in names if name not in jax_lacks)


def table_tests(table, allowances, regressions, examples):
    """A table's two tests: its ``regressions`` (``(name, Call)`` pairs: the calls that
    showed the defects it found) and ``examples`` calls drawn over the whole table, each
    drawing its function (the same ones every CI run, derandomized; the thorough profile
    scales the count, conftest.py, and so reaches every function often)."""
    by_name = {row.name: row for row in table}

    @pytest.mark.parametrize("name, call", regressions,
                             ids=lambda v: v if isinstance(v, str) else "")
    def test_regressions_match_jax(name, call):
        check_call(by_name[name], call, allowances)

    @settings(max_examples=examples)
    @given(routine=st.sampled_from(table), data=st.data())
    def test_eager_and_jit_match_jax(routine, data):
        check_call(routine, data.draw(routine.calls(), label="call"), allowances)

    return test_regressions_match_jax, test_eager_and_jit_match_jax
