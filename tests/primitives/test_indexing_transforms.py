"""Transformation rules of the indexing primitives (dynamic_slice, dynamic_update_slice,
gather, the scatters, sort): jvp against finite differences, the transpose identity, vmap
against a Python loop, and jax as the oracle for ``x[idx]``, ``x.at[idx]`` updates, sort,
argsort, take and take_along_axis under grad, jvp, vjp and vmap.
"""

from __future__ import annotations

import functools

import hypothesis.strategies as st
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given

import funcarray as fa
import funcarray.numpy as fnp
from funcarray.primitives import scatter as scatter_module
from funcarray.primitives.dynamic_slice import (
    dynamic_slice,
    dynamic_slice_p,
    dynamic_update_slice,
    dynamic_update_slice_p,
)
from funcarray.primitives.gather import gather, gather_p
from funcarray.primitives.gather_scatter_dims import GatherDimensionNumbers, ScatterDimensionNumbers
from funcarray.primitives.scatter import (
    scatter_add_p,
    scatter_max_p,
    scatter_min_p,
    scatter_mul,
    scatter_mul_p,
    scatter_p,
)
from funcarray.primitives.sort import sort, sort_p
from funcarray.testing import assert_allclose, check_grads, check_jvp_vjp, check_vmap

jax.config.update("jax_enable_x64", True)

BATCH = 3  # the vmapped axis size


# --------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------

def _rng(draw):
    return np.random.default_rng(draw(st.integers(0, 2**32 - 1)))


def _normal(rng, shape):
    return rng.standard_normal(shape)


def _axis_for(draw, ndim, allow_none=True):
    """A batch axis for a value of rank ``ndim`` (negative half the time), or None."""
    choices = st.integers(-ndim - 1, ndim)
    return draw(st.none() | choices) if allow_none else draw(choices)


def _batched(rng, value, axis, make=None):
    """``value`` with a new batch axis at ``axis``: copies of fresh values made by ``make``
    (random normal by default), one per batch member."""
    if axis is None:
        return value
    make = make or (lambda: _normal(rng, np.shape(value)))
    return np.stack([np.asarray(make()) for _ in range(BATCH)], axis=axis)


def _in_axes(draw, ranks):
    """One batch axis per operand (None allowed), at least one of them not None."""
    axes = [_axis_for(draw, r) for r in ranks]
    if all(a is None for a in axes):
        axes[0] = _axis_for(draw, ranks[0], allow_none=False)
    return tuple(axes)


def _as_fa(*xs):
    return tuple(fnp.asarray(x) for x in xs)


# The jax oracle runs compiled, one program per test: jax's op-by-op dispatch would dominate
# the time of this file. A test's ``program(lib, t, *args)`` is written once for both
# libraries: ``lib`` is fnp or jnp, ``t`` is funcarray or jax (for the transforms).
def _against_jax(program, *args):
    """``program(fnp, fa, *args)`` (eager) against ``program(jnp, jax, *args)`` (compiled).
    ``args`` are pytrees of NumPy arrays; a program that checks several cases at once returns
    a dict from case name to results, which names the case that differs."""
    got = program(fnp, fa, *fa.tree.map(fnp.asarray, args))
    want = jax.jit(lambda *a: program(jnp, jax, *a))(*args)
    cases = got.keys() if isinstance(got, dict) else [None]
    for case in cases:
        got_leaves = fa.tree.leaves(got if case is None else got[case])
        want_leaves = jax.tree_util.tree_leaves(want if case is None else want[case])
        assert len(got_leaves) == len(want_leaves)
        for i, (g, w) in enumerate(zip(got_leaves, want_leaves)):
            assert_allclose(g, np.asarray(w), err_msg=f"case {case!r}, result {i}: ")


def _derivatives(t, f, args, cotangent, tangents):
    """``f(*args)``, its vjp of ``cotangent`` and its jvp of ``tangents``."""
    out, pullback = t.vjp(f, *args)
    return out, pullback(cotangent), t.jvp(f, tuple(args), tuple(tangents))[1]


def _cotangent_like(jf, args, seed=3):
    shape = jax.eval_shape(jf, *args).shape
    return _normal(np.random.default_rng(seed), shape)


# --------------------------------------------------------------------------------------------
# gather
# --------------------------------------------------------------------------------------------

@st.composite
def gather_cases(draw):
    """(operand shape, indices, dimension numbers, slice_sizes, mode) of a valid gather,
    indices out of bounds now and then, with an operand/indices batching pair sometimes."""
    rng = _rng(draw)
    rank = draw(st.integers(1, 3))
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=rank, max_size=rank)))
    dims = list(draw(st.permutations(range(rank))))
    batching = dims.pop() if rank > 1 and draw(st.booleans()) else None
    index_map = tuple(dims[:draw(st.integers(1, len(dims)))])
    collapsed = tuple(sorted(d for d in index_map if draw(st.booleans())))
    slice_sizes = tuple(1 if d in collapsed or d == batching else draw(st.integers(1, n))
                        for d, n in enumerate(shape))
    batch_shape = list(draw(st.lists(st.integers(1, 3), max_size=2)))
    operand_batching = indices_batching = ()
    if batching is not None:
        where = draw(st.integers(0, len(batch_shape)))
        batch_shape.insert(where, shape[batching])
        operand_batching, indices_batching = (batching,), (where,)
    high = max(shape) + 1
    indices = rng.integers(-1, high, (*batch_shape, len(index_map))).astype(np.int32)
    n_offset = rank - len(collapsed) - len(operand_batching)
    out_rank = len(batch_shape) + n_offset
    offset_dims = tuple(sorted(draw(st.permutations(range(out_rank)))[:n_offset]))
    dn = GatherDimensionNumbers(offset_dims, collapsed, index_map, operand_batching,
                                   indices_batching)
    mode = draw(st.sampled_from(["clip", "fill"]))
    return shape, indices, dn, slice_sizes, mode


def _gather_fn(dn, slice_sizes, mode):
    # A finite fill value: finite differences of NaN are NaN.
    return lambda x, idx: gather(x, idx, dn, slice_sizes, mode=mode, fill_value=0.5)


@given(gather_cases(), st.data())
def test_gather_grads_and_vmap(case, data):
    shape, indices, dn, slice_sizes, mode = case
    rng = _rng(data.draw)
    x = fnp.asarray(_normal(rng, shape))
    f = _gather_fn(dn, slice_sizes, mode)
    idx = fnp.asarray(indices)
    check_grads(lambda x: f(x, idx), (x,), order=2)
    x_axis, idx_axis = _in_axes(data.draw, (len(shape), indices.ndim))
    bx = _batched(rng, np.asarray(x), x_axis)
    bidx = _batched(rng, indices, idx_axis, lambda: rng.permutation(indices.reshape(-1))
                    .reshape(indices.shape))
    check_vmap(f, _as_fa(bx, bidx), in_axes=(x_axis, idx_axis))


@given(gather_cases(), st.data())
def test_gather_vmap_of_grad(case, data):
    """The transpose (a scatter_add) and the jvp are batched as well: vmap(vjp) == loop."""
    shape, indices, dn, slice_sizes, mode = case
    rng = _rng(data.draw)
    f = _gather_fn(dn, slice_sizes, mode)
    out_shape = f(fnp.zeros(shape, np.float64), fnp.asarray(indices)).shape

    def pullback(x, idx, ct):
        return fa.vjp(lambda x: f(x, idx), x)[1](ct)[0]

    axes = _in_axes(data.draw, (len(shape), indices.ndim, len(out_shape)))
    args = (_batched(rng, _normal(rng, shape), axes[0]),
            _batched(rng, indices, axes[1], lambda: np.flip(indices, 0)),
            _batched(rng, _normal(rng, out_shape), axes[2]))
    check_vmap(pullback, _as_fa(*args), in_axes=axes)


GATHER_JAX_CASES = [
    # x[idx] along axis 0 of a matrix, windows of whole rows
    ((5, 3), [[4], [0], [4], [6]], dict(offset_dims=(1,), collapsed_slice_dims=(0,),
                                        start_index_map=(0,)), (1, 3)),
    # 2-D windows at 2-D starts, not collapsed
    ((4, 5), [[[0, 1]], [[3, 3]]], dict(offset_dims=(2, 3), collapsed_slice_dims=(),
                                         start_index_map=(1, 0)), (2, 2)),
    # take_along_axis-like: a batching dimension
    ((3, 4), [[[1], [3]], [[0], [0]], [[2], [1]]],
     dict(offset_dims=(), collapsed_slice_dims=(1,), start_index_map=(1,),
          operand_batching_dims=(0,), start_indices_batching_dims=(0,)), (1, 1)),
]


def test_gather_against_jax():
    rng = np.random.default_rng(0)
    cases = {(n, mode): (shape, np.asarray(indices, np.int32), dn, sizes, mode)
             for n, (shape, indices, dn, sizes) in enumerate(GATHER_JAX_CASES)
             for mode in ("clip", "fill")}

    def gather(t, dn, slice_sizes, mode):
        if t is fa:
            return _gather_fn(GatherDimensionNumbers(**dn), slice_sizes, mode)
        jmode = jax.lax.GatherScatterMode.CLIP if mode == "clip" else \
            jax.lax.GatherScatterMode.FILL_OR_DROP
        return lambda x, i: jax.lax.gather(x, i, jax.lax.GatherDimensionNumbers(**dn),
                                           slice_sizes, mode=jmode, fill_value=0.5)

    def program(lib, t, inputs):
        results = {}
        for key, (x, idx, ct, xs, idxs) in inputs.items():
            _, _, dn, slice_sizes, mode = cases[key]
            f = gather(t, dn, slice_sizes, mode)
            results[key] = (_derivatives(t, lambda x: f(x, idx), (x,), ct, (lib.cos(x),)),
                            t.vmap(f)(xs, idxs), t.vmap(f, in_axes=(None, 0))(x, idxs))
        return results

    inputs = {}
    for key, (shape, idx, dn, slice_sizes, mode) in cases.items():
        x = _normal(rng, shape)
        ct = _cotangent_like(lambda x: gather(jax, dn, slice_sizes, mode)(x, idx), (x,))
        inputs[key] = (x, idx, ct, _normal(rng, (BATCH, *shape)),
                       np.stack([idx, idx[::-1], np.zeros_like(idx)]))
    _against_jax(program, inputs)


# --------------------------------------------------------------------------------------------
# scatter family
# --------------------------------------------------------------------------------------------

@st.composite
def scatter_cases(draw, unique=False):
    """(operand shape, indices, updates shape, dimension numbers, mode) of a valid scatter,
    with repeated and out-of-bounds indices unless ``unique`` (then each update element lands
    on its own position)."""
    rng = _rng(draw)
    rank = draw(st.integers(1, 3))
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=rank, max_size=rank)))
    dims = list(draw(st.permutations(range(rank))))
    index_map = tuple(dims[:draw(st.integers(1, rank))])
    inserted = tuple(sorted(d for d in index_map if draw(st.booleans())))
    window_dims = [d for d in range(rank) if d not in inserted]
    window = [1 if unique else draw(st.integers(1, shape[d])) for d in window_dims]
    if unique:  # distinct in-bounds starts of unit windows
        count = int(np.prod([shape[d] for d in index_map]))
        n = draw(st.integers(1, min(count, 4)))
        flat = rng.choice(count, n, replace=False)
        starts = np.stack(np.unravel_index(flat, [shape[d] for d in index_map]), axis=-1)
        indices = starts.astype(np.int32)
        batch_shape = [n]
    else:
        batch_shape = list(draw(st.lists(st.integers(1, 3), max_size=2)))
        indices = rng.integers(-1, max(shape) + 1, (*batch_shape, len(index_map)))
        indices = indices.astype(np.int32)
    updates_rank = len(batch_shape) + len(window)
    window_positions = sorted(draw(st.permutations(range(updates_rank)))[:len(window)])
    updates_shape, sizes, batch = [], iter(window), iter(batch_shape)
    for d in range(updates_rank):
        updates_shape.append(next(sizes) if d in window_positions else next(batch))
    dn = ScatterDimensionNumbers(tuple(window_positions), inserted, index_map)
    mode = draw(st.sampled_from(["clip", "drop"]))
    return shape, indices, tuple(updates_shape), dn, mode


def _scatter_fn(kind, dn, mode, unique=False):
    bind = getattr(scatter_module, kind)
    return lambda x, idx, u: bind(x, idx, u, dn, mode=mode, unique_indices=unique)


# (kind, derivative order checked): the extrema are piecewise linear, so order 1 for them.
SCATTER_KINDS = [("scatter_add", 2), ("scatter", 2), ("scatter_min", 1), ("scatter_max", 1)]


@pytest.mark.parametrize("kind, order", SCATTER_KINDS)
@given(case=scatter_cases(), data=st.data())
def test_scatter_grads(kind, order, case, data):
    shape, indices, updates_shape, dn, mode = case
    rng = _rng(data.draw)
    f = _scatter_fn(kind, dn, mode)
    idx = fnp.asarray(indices)
    args = _as_fa(_normal(rng, shape), _normal(rng, updates_shape))
    check_grads(lambda x, u: f(x, idx, u), args, order=order)


@given(case=scatter_cases(unique=True), data=st.data())
def test_scatter_second_order(case, data):
    # Second order of the replacing scatter with and without the unique_indices promise.
    shape, indices, updates_shape, dn, mode = case
    rng = _rng(data.draw)
    idx = fnp.asarray(indices)
    args = _as_fa(_normal(rng, shape), _normal(rng, updates_shape))
    for unique in (False, True):
        f = _scatter_fn("scatter", dn, mode, unique)
        check_grads(lambda x, u: f(x, idx, u), args, order=2)


@given(case=scatter_cases(unique=True), data=st.data())
def test_scatter_unique_grads(case, data):
    """With unique_indices=True: the replacing scatter is linear (its own transpose) and
    scatter_mul is differentiable in its updates."""
    shape, indices, updates_shape, dn, mode = case
    rng = _rng(data.draw)
    idx = fnp.asarray(indices)
    args = _as_fa(_normal(rng, shape), _normal(rng, updates_shape))
    for kind in ("scatter", "scatter_mul", "scatter_add", "scatter_max"):
        f = _scatter_fn(kind, dn, mode, unique=True)
        check_grads(lambda x, u: f(x, idx, u), args, order=1)


@given(case=scatter_cases(), data=st.data())
def test_scatter_mul_grads_in_operand(case, data):
    """scatter_mul is linear in its operand for any indices (repeated ones included)."""
    shape, indices, updates_shape, dn, mode = case
    rng = _rng(data.draw)
    f = _scatter_fn("scatter_mul", dn, mode)
    idx, u = fnp.asarray(indices), fnp.asarray(_normal(rng, updates_shape))
    check_grads(lambda x: f(x, idx, u), (fnp.asarray(_normal(rng, shape)),), order=2)


def test_scatter_mul_grad_in_updates_needs_unique_indices():
    dn = ScatterDimensionNumbers((), (0,), (0,))
    idx = fnp.array([[0], [0]])

    def f(u):
        return scatter_mul(fnp.ones(3, np.float64), idx, u, dn)

    with pytest.raises(NotImplementedError, match="unique_indices=True"):
        fa.jvp(f, (fnp.ones(2, np.float64),), (fnp.ones(2, np.float64),))


def test_at_multiply_with_one_traced_position_is_differentiable_like_jax():
    """A scalar index selects one position, unique by itself, even when it is traced (the
    loop counter of fori_loop under grad): JAX differentiates it, so must funcarray."""
    def make(np_, lax):
        def f(x):
            body = lambda i, c: c.at[i].multiply(x * c[i])  # noqa: E731
            return lax.fori_loop(0, 4, body, np_.arange(1.0, 5.0)).sum()
        return f

    for x in (2.0, -0.5):
        with jax.enable_x64(False):  # a Python float is float32 (weak) in funcarray
            want = jax.grad(make(jnp, jax.lax))(x)
        assert_allclose(fa.grad(make(fnp, fa.lax))(x), want)
    with pytest.raises(NotImplementedError, match="unique_indices=True"):  # two positions
        fa.grad(lambda x: fnp.ones(3).at[fnp.array([0, 0])].multiply(x).sum())(2.0)


@pytest.mark.parametrize("kind", ["scatter", "scatter_add", "scatter_mul", "scatter_min",
                                  "scatter_max"])
@given(case=scatter_cases(), data=st.data())
def test_scatter_vmap(kind, case, data):
    shape, indices, updates_shape, dn, mode = case
    rng = _rng(data.draw)
    f = _scatter_fn(kind, dn, mode)
    axes = _in_axes(data.draw, (len(shape), indices.ndim, len(updates_shape)))
    args = (_batched(rng, _normal(rng, shape), axes[0]),
            _batched(rng, indices, axes[1], lambda: rng.permutation(indices.reshape(-1))
                     .reshape(indices.shape)),
            _batched(rng, _normal(rng, updates_shape), axes[2]))
    check_vmap(f, _as_fa(*args), in_axes=axes)


JAX_SCATTERS = {"scatter": jax.lax.scatter, "scatter_add": jax.lax.scatter_add,
                "scatter_mul": jax.lax.scatter_mul, "scatter_min": jax.lax.scatter_min,
                "scatter_max": jax.lax.scatter_max}


# jax's scatter_min/max jvp reads the operand back with a filling gather, so in "clip" mode a
# clamped index gets a NaN tangent there: those two are compared in "drop" mode only (the
# finite-difference tests cover "clip").
def test_scatter_against_jax():
    rng = np.random.default_rng(1)
    # Rows of a (4, 3) operand; an out-of-bounds row (7) is dropped or clamped.
    dn = dict(update_window_dims=(1,), inserted_window_dims=(0,),
              scatter_dims_to_operand_dims=(0,))
    cases = [(kind, mode) for kind in JAX_SCATTERS for mode in ("clip", "drop")
             if mode == "drop" or kind not in ("scatter_min", "scatter_max")]

    def scatter(t, kind, mode, unique):
        if t is fa:
            return _scatter_fn(kind, ScatterDimensionNumbers(**dn), mode, unique)
        jmode = jax.lax.GatherScatterMode.CLIP if mode == "clip" else \
            jax.lax.GatherScatterMode.FILL_OR_DROP
        return lambda x, i, u: JAX_SCATTERS[kind](
            x, i, u, jax.lax.ScatterDimensionNumbers(**dn), mode=jmode, unique_indices=unique)

    def unique(kind):  # else the result depends on the order of the updates
        return kind in ("scatter", "scatter_mul")

    def program(lib, t, inputs):
        results = {}
        for (kind, mode), (x, u, idx, ct, tx, tu) in inputs.items():
            f = scatter(t, kind, mode, unique(kind))
            results[kind, mode] = _derivatives(t, lambda x, u: f(x, idx, u), (x, u), ct,
                                               (tx, tu))
        return results

    inputs = {}
    for kind, mode in cases:
        idx = np.array([[2], [0], [7]] if unique(kind) else [[2], [0], [2], [7]], np.int32)
        if mode == "clip" and unique(kind):
            idx[-1] = 1  # clamping 7 would make the indices repeat
        x, u = _normal(rng, (4, 3)), _normal(rng, (len(idx), 3))
        inputs[kind, mode] = (x, u, idx, _normal(rng, x.shape), _normal(rng, x.shape),
                              _normal(rng, u.shape))
    _against_jax(program, inputs)


def test_scatter_extremum_ties_average_like_jax():
    """Where the operand and several updates tie for the result, the tangent is their mean."""
    dn = dict(update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))
    idx = np.array([[1], [1], [2], [0]], np.int32)
    x, u = np.array([1.0, 2.0, 3.0]), np.array([2.0, 2.0, 3.0, 5.0])
    tx, tu = np.array([1.0, 10.0, 100.0]), np.array([1e3, 1e4, 1e5, 1e6])

    def program(lib, t, x, u, tx, tu):
        results = {}
        for kind in ("scatter_min", "scatter_max"):
            if t is fa:
                f = _scatter_fn(kind, ScatterDimensionNumbers(**dn), "drop")
            else:
                f = functools.partial(JAX_SCATTERS[kind],
                                      dimension_numbers=jax.lax.ScatterDimensionNumbers(**dn))
            results[kind] = t.jvp(lambda x, u, f=f: f(x, lib.asarray(idx), u), (x, u), (tx, tu))
        return results

    _against_jax(program, x, u, tx, tu)


# --------------------------------------------------------------------------------------------
# dynamic_slice / dynamic_update_slice
# --------------------------------------------------------------------------------------------

@st.composite
def box_cases(draw):
    """(shape, box sizes, starts) with starts that are sometimes clamped."""
    shape = tuple(draw(st.lists(st.integers(1, 4), max_size=3)))
    sizes = tuple(draw(st.integers(0, n)) for n in shape)
    starts = tuple(draw(st.integers(-2, n + 1)) for n in shape)
    return shape, sizes, starts


def _starts(values):
    return [fnp.asarray(np.int32(s)) for s in values]


@given(box_cases(), st.data())
def test_dynamic_slice_grads_and_vmap(case, data):
    shape, sizes, starts = case
    rng = _rng(data.draw)

    def f(x, *starts):
        return dynamic_slice(x, starts, sizes)

    x = fnp.asarray(_normal(rng, shape))
    check_grads(lambda x: f(x, *_starts(starts)), (x,), order=2)
    if not shape:
        return
    axes = _in_axes(data.draw, (len(shape),) + (0,) * len(shape))
    args = [_batched(rng, np.asarray(x), axes[0])]
    args += [_batched(rng, np.int32(s), a, lambda: rng.integers(-2, n + 2, dtype=np.int32))
             for s, a, n in zip(starts, axes[1:], shape)]
    check_vmap(f, _as_fa(*args), in_axes=axes)


@given(box_cases(), st.data())
def test_dynamic_update_slice_grads_and_vmap(case, data):
    shape, sizes, starts = case
    rng = _rng(data.draw)

    def f(x, u, *starts):
        return dynamic_update_slice(x, u, starts)

    x, u = _as_fa(_normal(rng, shape), _normal(rng, sizes))
    check_grads(lambda x, u: f(x, u, *_starts(starts)), (x, u), order=2)
    if not shape:
        return
    axes = _in_axes(data.draw, (len(shape), len(shape)) + (0,) * len(shape))
    args = [_batched(rng, np.asarray(x), axes[0]), _batched(rng, np.asarray(u), axes[1])]
    args += [_batched(rng, np.int32(s), a, lambda: rng.integers(-2, n + 2, dtype=np.int32))
             for s, a, n in zip(starts, axes[2:], shape)]
    check_vmap(f, _as_fa(*args), in_axes=axes)


@given(box_cases(), st.data())
def test_dynamic_slice_vmap_of_grad(case, data):
    """Batched starts turn the slice into a gather and the update into a scatter; their
    derivatives must batch too."""
    shape, sizes, starts = case
    if not shape:
        return
    rng = _rng(data.draw)

    def pullback(x, u, start):
        def f(x, u):
            s = [start, *_starts(starts[1:])]
            return dynamic_slice(dynamic_update_slice(x, u, s), s, sizes)
        out, f_vjp = fa.vjp(f, x, u)
        return f_vjp(fnp.ones(out.shape, np.float64))

    axes = (data.draw(st.sampled_from([0, None])), data.draw(st.sampled_from([0, None])), 0)
    args = (_batched(rng, _normal(rng, shape), axes[0]),
            _batched(rng, _normal(rng, sizes), axes[1]),
            rng.integers(-1, shape[0] + 1, BATCH).astype(np.int32))
    check_vmap(pullback, _as_fa(*args), in_axes=axes)


def test_dynamic_slice_against_jax():
    rng = np.random.default_rng(2)
    # jax.lax wraps negative starts (the primitive clamps them, as StableHLO): none here.
    x, starts = _normal(rng, (5, 4)), np.array([[3, 1], [1, 9], [0, 2]], np.int32)

    def program(lib, t, x, starts, cts, xs):
        bind = dynamic_slice if t is fa else jax.lax.dynamic_slice

        def f(x, s):
            return bind(x, (s[0], s[1]), (3, 2))
        derivatives = [t.vjp(lambda x: f(x, s), x)[1](ct) for s, ct in zip(starts, cts)]
        return derivatives, t.vmap(f)(xs, starts), t.vmap(f, in_axes=(None, 0))(x, starts)

    _against_jax(program, x, starts, _normal(rng, (3, 3, 2)), _normal(rng, (3, 5, 4)))


# --------------------------------------------------------------------------------------------
# sort
# --------------------------------------------------------------------------------------------

@st.composite
def sort_cases(draw):
    """(shape, dimension, number of float operands, integer keys first?)."""
    shape = tuple(draw(st.lists(st.integers(1, 4), max_size=3)))
    dimension = draw(st.integers(0, len(shape) - 1)) if shape else 0
    return shape, dimension, draw(st.integers(1, 2)), draw(st.booleans())


@given(sort_cases(), st.data())
def test_sort_grads_and_vmap(case, data):
    shape, dimension, n_float, int_key = case
    rng = _rng(data.draw)
    # Integer keys with ties: the float operands break them (num_keys=2) or ride along.
    keys = fnp.asarray(rng.integers(0, 2, shape).astype(np.int32))
    floats = _as_fa(*(_normal(rng, shape) for _ in range(n_float)))

    def f(*operands):
        ops = (keys, *operands) if int_key else operands
        outs = sort(ops, dimension=dimension, num_keys=2 if int_key else 1)
        return outs[1:] if int_key else outs  # the float results (the checks' tolerance)

    check_grads(f, floats, order=2)
    check_jvp_vjp(f, floats)
    axes = _in_axes(data.draw, (len(shape),) * (n_float + 1))

    def g(keys, *operands):
        return sort((keys, *operands), dimension=dimension, num_keys=1 + int_key)

    args = [_batched(rng, np.asarray(keys), axes[0], lambda: rng.integers(0, 2, shape))]
    args += [_batched(rng, np.asarray(x), a) for x, a in zip(floats, axes[1:])]
    check_vmap(g, _as_fa(*args), in_axes=axes)


# --------------------------------------------------------------------------------------------
# funcarray.numpy against jax.numpy: x[idx], x.at[idx], sort, argsort, take, take_along_axis
# --------------------------------------------------------------------------------------------

X_SHAPE = (4, 5)
GETITEM_CASES = {
    "int": (X_SHAPE, 1),
    "negative int and slice": (X_SHAPE, (-1, slice(1, 4))),
    "reversed strided slice": (X_SHAPE, (slice(None, None, -2), 2)),
    "ellipsis and None": (X_SHAPE, (Ellipsis, None, 3)),
    "int array with repeats": (X_SHAPE, np.array([0, 2, 2, -1])),
    "two broadcast int arrays": (X_SHAPE, (np.array([[0], [3]]), np.array([1, 4, 1]))),
    "slice then int array": (X_SHAPE, (slice(1, None), np.array([4, 0]))),
    "separated int arrays": ((3, 4, 5), (np.array([0, 2]), slice(None), np.array([4, 1]))),
    "mask": (X_SHAPE, np.arange(20).reshape(X_SHAPE) % 3 == 0),
    "row mask": (X_SHAPE, np.array([True, False, True, True])),
    "traced scalar": (X_SHAPE, np.int32(2)),
    "traced scalar and slice": (X_SHAPE, (slice(None), np.int32(-2))),
}


def _to(lib, idx):
    """The index with its integer arrays as ``lib`` arrays (traced under the transforms);
    boolean masks stay NumPy arrays (they must be concrete)."""
    if isinstance(idx, tuple):
        return tuple(_to(lib, i) for i in idx)
    if isinstance(idx, np.integer) or (isinstance(idx, np.ndarray) and idx.dtype != np.bool_):
        return lib.asarray(idx)
    return idx


def _index_variants(idx):
    """(position in the index tuple, BATCH variations of that part) for vmap over the index,
    or None when the index has no integer array or scalar part."""
    parts = idx if isinstance(idx, tuple) else (idx,)
    for k in reversed(range(len(parts))):
        part = parts[k]
        if isinstance(part, np.integer):
            return k, np.array([part, 0, -1], np.int32)
        if isinstance(part, np.ndarray) and part.dtype != np.bool_:
            # Permutations of the entries: indices that are unique stay unique.
            return k, np.stack([part, np.flip(part), np.roll(part, 1)])
    return None


def _replace_part(lib, idx, k, part):
    parts = idx if isinstance(idx, tuple) else (idx,)
    return tuple(part if i == k else _to(lib, p) for i, p in enumerate(parts))


def test_getitem_derivatives_against_jax():
    """x[idx] under vjp, jvp and grad, for each kind of index."""
    rng = np.random.default_rng(4)

    def program(lib, t, inputs):
        results = {}
        for name, (x, ct, tangent) in inputs.items():
            idx = GETITEM_CASES[name][1]

            def f(x, idx=idx):
                return x[_to(lib, idx)]
            results[name] = (_derivatives(t, f, (x,), ct, (tangent,)),
                             t.grad(lambda x, f=f: lib.sum(lib.sin(f(x))))(x))
        return results

    inputs = {}
    for name, (shape, idx) in GETITEM_CASES.items():
        x = _normal(rng, shape)
        inputs[name] = (x, _cotangent_like(lambda x, idx=idx: x[idx], (x,)), _normal(rng, shape))
    _against_jax(program, inputs)


@pytest.mark.parametrize("name", list(GETITEM_CASES))
def test_getitem_vmap(name):
    """x[idx] under vmap: batched operand, batched index (a traced scalar becomes a gather),
    both; and the vmap of its vjp."""
    shape, idx = GETITEM_CASES[name]
    rng = np.random.default_rng(5)
    xs = fnp.asarray(_normal(rng, (BATCH, *shape)))
    check_vmap(lambda x: x[_to(fnp, idx)], (xs,))
    variants = _index_variants(idx)
    if variants is None:
        return
    k, stacked = variants

    def index(x, part):
        return x[_replace_part(fnp, idx, k, part)]

    def pullback(x, part):
        out, f_vjp = fa.vjp(lambda x: index(x, part), x)
        return f_vjp(fnp.ones(out.shape, out.dtype))[0]

    moved = fnp.moveaxis(xs, 0, -1)
    for fn in (index, pullback):
        check_vmap(fn, (xs[0], fnp.asarray(stacked)), in_axes=(None, 0))
        check_vmap(fn, (moved, fnp.asarray(stacked)), in_axes=(-1, 0))


def test_getitem_vmap_against_jax():
    rng = np.random.default_rng(6)
    xs = _normal(rng, (BATCH, *X_SHAPE))
    rows = np.array([[0, 3, 3], [1, 0, 2], [-1, 2, 0]])
    scalars = np.array([2, 0, -1], np.int32)

    def program(lib, t, xs, rows, scalars):
        def index(x, i):
            return x[i]
        return [t.vmap(index)(xs, rows), t.vmap(index, in_axes=(None, 0))(xs[0], rows),
                t.vmap(index)(xs, scalars), t.vmap(index, in_axes=(None, 0))(xs[0], scalars),
                t.vmap(lambda x: x[lib.asarray([1, 1, 0]), 2:])(xs)]

    _against_jax(program, xs, rows, scalars)


UPDATE_CASES = {
    # name: (index, values shape, unique positions?)
    "int array with repeats": (np.array([3, 0, 3, -1]), (4, 5), False),
    "unique int array": (np.array([3, 0, -3]), (3, 5), True),
    "column array": ((slice(None), np.array([4, 1])), (4, 2), True),
    "static box": ((slice(1, 3), slice(0, 4)), (2, 4), True),
    "static int": (2, (5,), True),
    "mask": (np.arange(20).reshape(X_SHAPE) % 3 == 0, (7,), True),
    "traced scalar": (np.int32(1), (5,), True),
    "broadcast value": (np.array([2, 0]), (), True),
}
# jax compiles scatter derivatives slowly: it is the oracle for every update on these cases,
# for set and add on the others (which differ in the path to the scatter, not in the update),
# and finite differences check multiply/min/max on all of them.
ALL_OPS_AGAINST_JAX = ("int array with repeats", "unique int array")


def _ops_for(unique):
    # With repeated positions, which value `set` keeps is unspecified, and multiply's
    # derivative in the values needs unique indices (tested to raise below).
    return ["set", "add", "multiply", "min", "max"] if unique else ["add", "min", "max"]


def _update(lib, op, idx, unique):
    def f(x, v):
        ref = lib.asarray(x).at[_to(lib, idx)]
        kwargs = {"unique_indices": True} if unique and op in ("set", "multiply") else {}
        return getattr(ref, op)(v, **kwargs)
    return f


def test_at_update_derivatives_against_jax():
    """x.at[idx].set/add/multiply/min/max under vjp and jvp, in the operand and the values
    (random values: min and max never tie)."""
    rng = np.random.default_rng(7)

    def ops(name):
        unique = UPDATE_CASES[name][2]
        return [op for op in _ops_for(unique)
                if op in ("set", "add") or name in ALL_OPS_AGAINST_JAX]

    def program(lib, t, inputs):
        results = {}
        for name, (x, v, ct, tx, tv) in inputs.items():
            idx, _, unique = UPDATE_CASES[name]
            for op in ops(name):
                f = _update(lib, op, idx, unique)
                results[name, op] = _derivatives(t, f, (x, v), ct, (tx, tv))
        return results

    inputs = {name: (_normal(rng, X_SHAPE), _normal(rng, values_shape), _normal(rng, X_SHAPE),
                     _normal(rng, X_SHAPE), _normal(rng, values_shape))
              for name, (_, values_shape, _) in UPDATE_CASES.items()}
    _against_jax(program, inputs)


@pytest.mark.parametrize("name", list(UPDATE_CASES))
@pytest.mark.parametrize("op", ["multiply", "min", "max"])
def test_at_update_grads(name, op):
    idx, values_shape, unique = UPDATE_CASES[name]
    if op == "multiply" and not unique:
        pytest.skip("multiply's derivative in the values needs unique indices, as in JAX "
                    "(test_at_multiply_values_grad_needs_unique_indices checks the error)")
    rng = np.random.default_rng(8)
    args = _as_fa(_normal(rng, X_SHAPE), _normal(rng, values_shape))
    check_grads(_update(fnp, op, idx, unique), args, order=1)


@pytest.mark.parametrize("name", list(UPDATE_CASES))
def test_at_update_vmap(name):
    """vmap over the operand, the values, the index, and the vmap of the vjp."""
    idx, values_shape, unique = UPDATE_CASES[name]
    rng = np.random.default_rng(8)
    xs, vs = _as_fa(_normal(rng, (BATCH, *X_SHAPE)), _normal(rng, (BATCH, *values_shape)))
    variants = _index_variants(idx)
    for op in _ops_for(unique):
        f = _update(fnp, op, idx, unique)
        check_vmap(f, (xs, vs))
        check_vmap(f, (xs, vs[0]), in_axes=(0, None))
        check_vmap(f, (xs[0], fnp.moveaxis(vs, 0, -1)), in_axes=(None, -1))
        if op != "multiply" or unique:
            check_vmap(lambda x, v, f=f: fa.vjp(f, x, v)[1](x), (xs, vs))
        if variants is None or op == "set":  # a batched index may repeat positions
            continue
        k, stacked = variants

        def g(x, part, v, op=op):
            return getattr(x.at[_replace_part(fnp, idx, k, part)], op)(v)
        check_vmap(g, (xs[0], fnp.asarray(stacked), vs[0]), in_axes=(None, 0, None))
        check_vmap(g, (xs, fnp.asarray(stacked), vs))


def test_at_update_vmap_against_jax():
    rng = np.random.default_rng(9)
    xs, vs = _normal(rng, (BATCH, *X_SHAPE)), _normal(rng, (BATCH, 3, 5))
    rows = np.array([[0, 3, 3], [1, 0, 2], [-1, 2, 0]])

    def program(lib, t, xs, vs, rows):
        def update(op):
            return lambda x, i, v: getattr(x.at[i], op)(v)
        return [[t.vmap(update(op))(xs, rows, vs),
                 t.vmap(update(op), in_axes=(None, 0, None))(xs[0], rows, vs[0]),
                 t.vmap(update(op), in_axes=(0, None, 0))(xs, rows[0], vs)]
                for op in ("add", "max")]

    _against_jax(program, xs, vs, rows)


def test_at_update_grad_against_jax():
    idx = np.array([3, 0, -2])
    rng = np.random.default_rng(10)
    x, v = _normal(rng, X_SHAPE), _normal(rng, (3, 5))

    def program(lib, t, x, v):
        def loss(op):
            return lambda x, v: lib.sum(lib.sin(getattr(x.at[_to(lib, idx)], op)(v)))
        return [t.grad(loss(op), argnums=(0, 1))(x, v) for op in ("set", "add", "max")]

    _against_jax(program, x, v)


def test_at_multiply_values_grad_needs_unique_indices():
    x = fnp.arange(4.0)
    with pytest.raises(NotImplementedError, match="unique"):
        fa.vjp(lambda v: x.at[fnp.array([0, 2])].multiply(v), fnp.array([2.0, 3.0]))


SORT_FUNCTIONS = {
    # name: (function of (lib, x[, indices]), indices or None)
    "sort": (lambda lib, x: lib.sort(x, axis=1), None),
    "sort flattened": (lambda lib, x: lib.sort(x, axis=None), None),
    "sort descending": (lambda lib, x: lib.sort(x, axis=0, descending=True), None),
    "take": (lambda lib, x, i: lib.take(x, i, axis=1), np.array([[4, 0], [-1, 2]])),
    "take flattened": (lambda lib, x, i: lib.take(x, i), np.array([19, 0, 7])),
    "take_along_axis": (lambda lib, x, i: lib.take_along_axis(x, i, axis=1),
                        np.array([[0, 4], [1, 1], [3, 2], [-1, 0]])),
    "take_along_argsort": (lambda lib, x: lib.take_along_axis(x, lib.argsort(x, axis=0),
                                                              axis=0), None),
}


def _sort_fn(lib, name):
    fn, index = SORT_FUNCTIONS[name]
    return (lambda x: fn(lib, x)) if index is None else (lambda x: fn(lib, x, lib.asarray(index)))


def test_sort_and_take_derivatives_against_jax():
    """sort/argsort/take/take_along_axis under vjp, jvp and grad."""
    rng = np.random.default_rng(11)

    def program(lib, t, inputs):
        results = {}
        for name, (x, ct, tangent) in inputs.items():
            f = _sort_fn(lib, name)
            results[name] = (_derivatives(t, f, (x,), ct, (tangent,)),
                             t.grad(lambda x, f=f: lib.sum(lib.sin(f(x))))(x))
        return results

    inputs = {}
    for name in SORT_FUNCTIONS:
        x = _normal(rng, X_SHAPE)
        inputs[name] = (x, _cotangent_like(_sort_fn(jnp, name), (x,)), _normal(rng, X_SHAPE))
    _against_jax(program, inputs)


@pytest.mark.parametrize("name", list(SORT_FUNCTIONS))
def test_sort_and_take_vmap(name):
    fn, index = SORT_FUNCTIONS[name]
    rng = np.random.default_rng(12)
    xs = fnp.asarray(_normal(rng, (BATCH, *X_SHAPE)))
    f = _sort_fn(fnp, name)
    check_vmap(f, (xs,))
    check_vmap(lambda x: fa.vjp(f, x)[1](fnp.sin(f(x)))[0], (fnp.moveaxis(xs, 0, 1),),
               in_axes=1)
    if index is not None:
        stacked = fnp.asarray(np.stack([index, np.flip(index), np.zeros_like(index)]))
        check_vmap(lambda x, i: fn(fnp, x, i), (xs[0], stacked), in_axes=(None, 0))
        check_vmap(lambda x, i: fn(fnp, x, i), (xs, stacked))


def test_sort_and_take_vmap_against_jax():
    rng = np.random.default_rng(13)
    xs = _normal(rng, (BATCH, *X_SHAPE))
    cols = np.array([[4, 0], [1, 1], [-1, 2]])

    def program(lib, t, xs, cols):
        def sort_grad(x):
            return t.grad(lambda x: lib.sum(lib.sin(lib.sort(x, axis=0))))(x)
        # (argsort's indices are int32, jax's default without x64; the oracle runs with it)
        indices = t.vmap(lib.argsort)(xs)
        indices = indices.astype(jnp.int32) if lib is jnp else indices
        return (t.vmap(lambda x: lib.sort(x, axis=1))(xs), indices,
                t.vmap(sort_grad)(xs), t.vmap(lambda x, i: lib.take(x, i, axis=1))(xs, cols),
                t.vmap(lambda x, i: lib.take(x, i, axis=1), in_axes=(None, 0))(xs[0], cols))

    _against_jax(program, xs, cols)


def test_argsort_is_not_differentiated():
    x = fnp.asarray(_normal(np.random.default_rng(14), (BATCH, 6)))
    _, tangent = fa.jvp(lambda x: fnp.argsort(x).astype(np.float64), (x,), (fnp.ones_like(x),))
    assert_allclose(tangent, np.zeros(x.shape))


def test_nested_vmap_and_grad_of_vmap():
    """vmap of vmap over batched indices, and grad through a vmapped gather."""
    rng = np.random.default_rng(15)
    x = _normal(rng, (2, BATCH, 5))
    idx = rng.integers(0, 5, (2, BATCH, 4)).astype(np.int32)

    def program(lib, t, x, idx):
        def take(x, i):
            return x[i]

        def loss(x):
            return lib.sum(lib.sin(t.vmap(take, in_axes=(0, 1))(x, idx[0].T)))
        return t.vmap(t.vmap(take))(x, idx), t.grad(loss)(x[0])

    _against_jax(program, x, idx)


def test_rules_are_complete():
    """Every indexing primitive has jvp and batch rules; the linear ones transpose."""
    for prim in (dynamic_slice_p, dynamic_update_slice_p, gather_p, scatter_p,
                 scatter_add_p, scatter_mul_p, scatter_min_p, scatter_max_p,
                 sort_p):
        assert prim.jvp_rule and prim.batch_rule, prim
    for prim in (dynamic_slice_p, dynamic_update_slice_p, gather_p, scatter_p,
                 scatter_add_p, scatter_mul_p):
        assert prim.transpose_rule, prim
