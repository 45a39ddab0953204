"""Differential test of ``funcarray.numpy``'s index-trick objects (``r_``, ``c_``, ``mgrid``,
``ogrid``, ``s_``, ``index_exp``) against ``jax.numpy``'s: the same subscript must raise in
both, or give the same shapes, dtypes, weak types and values.

Subscripts mix slices (integer, float and complex steps: a complex step is a point count,
as NumPy's), scalars of every Python kind, arrays of any dtype and lists; ``r_``/``c_`` also
take a leading directive string (``"0,2"``, ``"r"``, ``"c"``, ``"-1,3,0"``). Arrays built
from the subscript run eagerly and under ``jit`` (``r_`` and ``c_`` of traced arrays).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from differential_compare import Raised, attempt, parts, same_kind_of_answer
from differential_values import array_of
from hypothesis import given, settings
from hypothesis import strategies as st
from op_table import ALL_DTYPES, SMALL

import funcarray as fa
import funcarray.numpy as fnp
from funcarray import dtypes

_EXAMPLES = settings(max_examples=25)

_BOUNDS = st.one_of(st.none(), st.integers(-3, 4), st.sampled_from((0.5, -1.5, 2.25)))
_STEPS = st.one_of(st.none(), st.integers(-2, 3), st.sampled_from((0.5, -0.75, 3j, 4j, 0j)))
_SLICES = st.builds(slice, _BOUNDS, _BOUNDS, _STEPS)
_SCALARS = st.one_of(st.booleans(), st.integers(-3, 3), st.sampled_from((1.5, -0.0, 2j)))


def _arrays(ndim_max=2):
    shapes = st.sampled_from(((), (2,), (0,), (1, 2), (2, 2))[:2 + 2 * ndim_max])
    return st.tuples(st.sampled_from(ALL_DTYPES), shapes).flatmap(
        lambda ds: array_of(ds[0], ds[1], SMALL))


_CONCATENATED_ITEM = st.one_of(_SLICES, _SCALARS, _arrays(), st.lists(st.integers(-3, 3),
                                                                       max_size=3))
_DIRECTIVES = st.sampled_from(("0", "1", "-1", "0,2", "1,2", "0,2,0", "-1,3,0", "r", "c",
                               "x", "0,2,5"))

# The index tricks whose subscript builds arrays, and those giving index tuples.
_CONCATENATORS = ("r_", "c_")
_GRIDS = ("mgrid", "ogrid")
_INDEX_EXPRESSIONS = ("s_", "index_exp")
INDEX_TRICK_OBJECTS = (*_CONCATENATORS, *_GRIDS, *_INDEX_EXPRESSIONS)


@st.composite
def subscripts(draw, name):
    if name in _GRIDS:
        return tuple(draw(st.lists(_SLICES, min_size=1, max_size=3)))
    if name in _INDEX_EXPRESSIONS:
        return tuple(draw(st.lists(st.one_of(_SLICES, _SCALARS, st.none()), max_size=3)))
    items = draw(st.lists(_CONCATENATED_ITEM, min_size=1, max_size=3))
    if draw(st.booleans()):
        items.insert(0, draw(_DIRECTIVES))
    return tuple(items)


def _x64(subscript) -> bool:
    return any(isinstance(v, np.ndarray) and v.dtype.itemsize == 8 and v.dtype.kind != "c"
               or isinstance(v, np.ndarray) and v.dtype == np.complex128 for v in subscript)


def _outputs(name, result):
    if name in _INDEX_EXPRESSIONS:
        return result  # a tuple of slices and scalars, compared as is
    return result if isinstance(result, (list, tuple)) else (result,)


def _run(namespace, name, subscript):
    def call():
        return _outputs(name, getattr(namespace, name)[subscript])

    if name in _INDEX_EXPRESSIONS:
        try:
            return call()
        except Exception as exc:  # noqa: BLE001 (raising is compared)
            return Raised(exc)
    return attempt(call, multiple=True)


def _run_jit(name, subscript):
    """``r_``/``c_`` with the arrays of the subscript traced."""
    positions = [k for k, v in enumerate(subscript) if isinstance(v, np.ndarray)]

    def build(*arrays):
        items = list(subscript)
        for k, a in zip(positions, arrays):
            items[k] = a
        return getattr(fnp, name)[tuple(items)]

    return attempt(lambda: (fa.jit(build)(*(subscript[k] for k in positions)),),
                   multiple=True)


def zero_step(subscript) -> bool:
    """A slice stepping by 0 (or 0j): jax reads it as a step of 1 (``step or 1``); funcarray
    raises for 0 as NumPy does, and gives NumPy's zero points for 0j."""
    return any(isinstance(v, slice) and v.step is not None and v.step == 0
               for v in subscript)


def signed_with_uint64_is_strong(subscript, got, want) -> bool:
    """A signed integer (a slice's range, a Python int) concatenated with uint64: no integer
    holds both, so the result is float64, strong in funcarray (it has no x64 switch; a strong
    float64 keeps a later float32 operand from narrowing it: docs/decisions.md) and weak in
    jax. Values are compared."""
    has_uint64 = any(isinstance(v, np.ndarray) and v.dtype == np.uint64 for v in subscript)
    return (has_uint64 and not isinstance(got, Raised) and not isinstance(want, Raised)
            and all(g.dtype == w.dtype == np.float64 and w_weak and not g_weak
                    for (g, g_weak), (w, w_weak) in zip(got, want)))


def _check(where, got, want):
    if not same_kind_of_answer(where, got, want):
        return
    for k, ((g, _), (w, _)) in enumerate(zip(got, want)):
        ok = np.ones(w.shape, bool)
        for gp, wp in zip(parts(g), parts(w)):
            if gp.dtype.kind in "biu":
                ok &= gp == wp
                continue
            gp, wp = gp.astype(np.float64), wp.astype(np.float64)
            eps = float(dtypes.finfo(w.dtype).eps)
            with np.errstate(invalid="ignore"):
                ok &= (gp == wp) | (np.isnan(gp) & np.isnan(wp)) | (
                    np.abs(gp - wp) <= 4 * eps * np.maximum(np.abs(wp), 1.0))
        assert ok.all(), f"{where}, output {k}:\n  got {g.tolist()}\n  jax {w.tolist()}"


@pytest.mark.parametrize("name", INDEX_TRICK_OBJECTS)
@_EXAMPLES
@given(data=st.data())
def test_index_tricks_match_jax(name, data):
    subscript = data.draw(subscripts(name), label="subscript")
    with jax.enable_x64(_x64(subscript)):
        want = _run(jnp, name, subscript)
    if zero_step(subscript):
        return
    got = _run(fnp, name, subscript)
    where = f"fnp.{name}[{subscript!r}]"
    if signed_with_uint64_is_strong(subscript, got, want):
        want = [(w, False) for w, _ in want]
    if name in _INDEX_EXPRESSIONS:
        assert repr(got) == repr(want), f"{where}: {got!r}, jax {want!r}"
        return
    _check(where + ", eager", got, want)
    if name in _CONCATENATORS and any(isinstance(v, np.ndarray) for v in subscript):
        jitted = _run_jit(name, subscript)
        _check(where + ", jit", jitted, want)


@pytest.mark.parametrize("name, key", [
    ("r_", (slice(2, None),)), ("r_", (slice(3, None, 2),)), ("c_", (slice(2, None),)),
    ("mgrid", (slice(3, None),)), ("mgrid", (slice(1, 3), slice(2, None))),
    ("ogrid", (slice(None, 2), slice(4, None))),
])
def test_a_slice_without_stop_ends_at_its_start_as_jax(name, key):
    # NumPy's reading, kept by jax: ``r_[2:]`` is ``arange(2)``.
    got = _outputs(name, getattr(fnp, name)[key])
    with jax.enable_x64(False):
        want = _outputs(name, getattr(jnp, name)[key])
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
