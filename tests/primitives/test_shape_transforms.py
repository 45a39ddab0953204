"""Transformation rules of the shape primitives (broadcast_in_dim, reshape, iota, transpose,
squeeze, rev, concatenate, pad, slice) and of stop_gradient.

Two layers are tested:

* the primitives, bound directly with Hypothesis-chosen shapes and parameters: jvp against
  finite differences (orders 1 and 2), the transpose identity, vmap against a Python loop with
  random ``in_axes`` (None and negative axes included), and the rules composed with each other
  (vmap of a vjp, jvp of a vjp, vjp of a vmap);
* every public function of ``funcarray/numpy/_shape.py``, ``_padding.py``,
  ``_rearranging.py`` and ``_diagonals.py`` under ``fa.grad`` (of the result dotted with a
  fixed random array), ``fa.jvp``, ``fa.vjp`` and ``fa.vmap``, against finite
  differences and a Python loop, and against jax (``jax.grad``/``jax.jvp``/``jax.vmap`` of the
  ``jax.numpy`` function) on a few cases each.

The sums in these tests go through ``fnp.vdot`` (dot_general, which has all its rules), so they
do not depend on the elementwise rules. Some cases also run through rules of other families
(reduce_sum and sub in the transposes of broadcast_in_dim and pad, select_n in tril/triu and in
pad's batched padding value); they run here like the rest, so a deleted rule fails a test.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import hypothesis.strategies as st
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis.extra import numpy as hnp

import funcarray as fa
import funcarray.numpy as fnp
from funcarray.numpy import _diagonals, _padding, _rearranging, _shape
from funcarray.primitives import shape as sp
from funcarray.primitives.stop_gradient import stop_gradient_p
from funcarray.testing import assert_allclose, check_grads, check_jvp_vjp, check_vmap
from funcarray.transforms.jvp import Zero

BATCH = 3  # the size of every vmapped axis


# --------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------

def shapes(min_dims=0, max_dims=3, min_side=0, max_side=3):
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side,
                            max_side=max_side)


def axis_of(ndim: int):
    """An axis of a rank-``ndim`` array, negative half the time."""
    return st.integers(-ndim, ndim - 1)


def _values(rng, shape):
    return fnp.asarray(rng.standard_normal(shape))


def _batched(rng, shape, axis):
    """Random float64 values of ``shape`` with a batch axis of size BATCH at ``axis``."""
    if axis is None:
        return _values(rng, shape)
    full = list(shape)
    full.insert(axis % (len(shape) + 1), BATCH)
    return _values(rng, full)


def _draw_in_axes(draw, ranks):
    """One batch axis per operand (None or an axis, negative allowed), at least one not None.
    """
    axes = [draw(st.none() | st.integers(-r - 1, r)) for r in ranks]
    if all(a is None for a in axes):
        axes[0] = draw(st.integers(-ranks[0] - 1, ranks[0]))
    return tuple(axes)


def _leaves(out):
    return list(out) if isinstance(out, (list, tuple)) else [out]


def _flat(mod, out):
    """All the outputs' elements in one 1-d array (shape ops only)."""
    flat = [mod.ravel(o) for o in _leaves(out)]
    return flat[0] if len(flat) == 1 else mod.concatenate(flat)


def _inner(xs, ys) -> float:
    return float(sum(np.vdot(np.asarray(x), np.asarray(y)) for x, y in zip(xs, ys)))


def _size(out) -> int:
    return sum(int(np.prod(np.shape(o))) for o in _leaves(out))


def _check_grad_of_dot(f, args, rng):
    """``fa.grad`` of ``vdot(f(*args), w)`` in a random direction against a central difference
    (exact up to rounding: the function is linear)."""
    w = _values(rng, (_size(f(*args)),))

    def dotted(*xs):
        return fnp.vdot(_flat(fnp, f(*xs)), w)

    grads = fa.grad(dotted, argnums=tuple(range(len(args))))(*args)
    directions = [_values(rng, x.shape) for x in args]
    plus = dotted(*(x + v for x, v in zip(args, directions)))
    minus = dotted(*(x - v for x, v in zip(args, directions)))
    expected = (float(plus) - float(minus)) / 2
    actual = _inner(grads, directions)
    assert np.isclose(actual, expected, rtol=1e-9, atol=1e-9), (actual, expected)
    for g, x in zip(grads, args):
        assert g.shape == x.shape and g.dtype == x.dtype


def _check_vmap_of_vjp(f, args, draw, rng):
    """The pullback of ``f`` mapped over a batch of cotangents (random axes) against a loop."""
    outs = _leaves(f(*args))
    _, pullback = fa.vjp(f, *args)
    out = f(*args)
    structured = isinstance(out, (list, tuple))
    in_axes = _draw_in_axes(draw, [o.ndim for o in outs])
    cts = [_batched(rng, o.shape, a) for o, a in zip(outs, in_axes)]

    def pull(*cts):  # (the cotangent in the output's container: a list or a tuple)
        return pullback(type(out)(cts) if structured else cts[0])

    check_vmap(pull, cts, in_axes=in_axes)


def _check_jvp_of_vjp(f, args, rng):
    """Forward-over-reverse: the pullback is linear in the cotangent, so its jvp in direction
    ``dct`` is the pullback of ``dct``."""
    out = f(*args)
    structured = isinstance(out, (list, tuple))
    _, pullback = fa.vjp(f, *args)
    ct = [_values(rng, o.shape) for o in _leaves(out)]
    dct = [_values(rng, o.shape) for o in _leaves(out)]

    def pull(*cts):
        return pullback(type(out)(cts) if structured else cts[0])

    _, tangent = fa.jvp(pull, tuple(ct), tuple(dct))
    for a, e in zip(tangent, pull(*dct)):
        assert_allclose(a, e)


# --------------------------------------------------------------------------------------------
# The primitives, bound directly
# --------------------------------------------------------------------------------------------

def _describe(fn) -> str:
    """The parameters a case's function closes over (for Hypothesis' failure reports)."""
    cells = zip(fn.__code__.co_freevars, fn.__closure__ or ())
    return ", ".join(f"{name}={cell.cell_contents!r}" for name, cell in cells
                     if not callable(cell.cell_contents))


class PrimCase(NamedTuple):
    fn: Callable  # binds the primitive (operands only: the parameters are fixed)
    shapes: list  # operand shapes

    def __repr__(self):
        return f"PrimCase({_describe(self.fn)}, shapes={self.shapes})"


def _regroup(draw, shape):
    """A shape with the same number of elements: ``shape`` shuffled, adjacent groups merged,
    and ones inserted."""
    dims = list(draw(st.permutations(shape)))
    cuts = sorted(draw(st.sets(st.integers(1, max(len(dims) - 1, 1)), max_size=3)))
    groups = [dims[i:j] for i, j in zip([0, *cuts], [*cuts, len(dims)]) if dims[i:j]]
    out = [int(np.prod(g)) for g in groups]
    for _ in range(draw(st.integers(0, 2))):
        out.insert(draw(st.integers(0, len(out))), 1)
    return tuple(out)


@st.composite
def broadcast_in_dim_cases(draw):
    out_shape = draw(shapes(max_dims=4))
    n = len(out_shape)
    # StableHLO allows the operand's dimensions to map to result dimensions in any order.
    dims = tuple(draw(st.permutations(range(n)))[:draw(st.integers(0, n))])
    operand = tuple(draw(st.sampled_from([1, out_shape[d]])) for d in dims)
    return PrimCase(lambda x: sp.broadcast_in_dim_p.bind(
        x, shape=out_shape, broadcast_dimensions=dims), [operand])


@st.composite
def reshape_cases(draw):
    shape = draw(shapes())
    new_sizes = _regroup(draw, shape)
    return PrimCase(lambda x: sp.reshape_p.bind(x, new_sizes=new_sizes), [shape])


@st.composite
def transpose_cases(draw):
    shape = draw(shapes(max_dims=4))
    perm = tuple(draw(st.permutations(range(len(shape)))))
    return PrimCase(lambda x: sp.transpose_p.bind(x, permutation=perm), [shape])


@st.composite
def squeeze_cases(draw):
    shape = list(draw(shapes()))
    ones = []
    for _ in range(draw(st.integers(0, 2))):
        shape.insert(draw(st.integers(0, len(shape))), 1)
    ones = [d for d, size in enumerate(shape) if size == 1]
    dims = tuple(sorted(draw(st.sets(st.sampled_from(ones))) if ones else ()))
    return PrimCase(lambda x: sp.squeeze_p.bind(x, dimensions=dims), [tuple(shape)])


@st.composite
def rev_cases(draw):
    shape = draw(shapes())
    dims = tuple(draw(st.permutations(range(len(shape))))[:draw(st.integers(0, len(shape)))])
    return PrimCase(lambda x: sp.rev_p.bind(x, dimensions=dims), [shape])


@st.composite
def concatenate_cases(draw):
    shape = draw(shapes(min_dims=1))
    dim = draw(st.integers(0, len(shape) - 1))
    sizes = draw(st.lists(st.integers(0, 3), min_size=1, max_size=3))
    operands = [shape[:dim] + (s,) + shape[dim + 1:] for s in sizes]
    return PrimCase(lambda *xs: sp.concatenate_p.bind(*xs, dimension=dim), operands)


@st.composite
def pad_cases(draw):
    shape = draw(shapes())
    config = []
    for d in shape:
        interior = draw(st.integers(0, 2))
        grown = d + max(d - 1, 0) * interior
        low = draw(st.integers(-min(3, grown), 3))  # negative: cut elements off
        high = draw(st.integers(max(-3, -grown - low), 3))
        config.append((low, high, interior))
    config = tuple(config)
    return PrimCase(lambda x, v: sp.pad_p.bind(x, v, padding_config=config), [shape, ()])


@st.composite
def slice_cases(draw):
    # Built from each dimension's result size, so strided slices of several elements are
    # common (Hypothesis would mostly draw empty or one-element slices otherwise).
    shape, starts, limits, strides = [], [], [], []
    for _ in range(draw(st.integers(0, 3))):
        count, stride, start = (draw(st.integers(0, 3)), draw(st.integers(1, 3)),
                                draw(st.integers(0, 2)))
        limit = start + (count - 1) * stride + 1 + draw(st.integers(0, stride - 1)) if count \
            else start
        shape.append(limit + draw(st.integers(0, 2)))
        starts.append(start)
        limits.append(limit)
        strides.append(stride)
    shape, starts, limits = tuple(shape), tuple(starts), tuple(limits)
    strides = tuple(strides) if any(s != 1 for s in strides) or draw(st.booleans()) else None
    return PrimCase(lambda x: sp.slice_p.bind(x, start_indices=starts, limit_indices=limits,
                                              strides=strides), [shape])


PRIMITIVES = {
    "broadcast_in_dim": broadcast_in_dim_cases(), "reshape": reshape_cases(),
    "transpose": transpose_cases(), "squeeze": squeeze_cases(), "rev": rev_cases(),
    "concatenate": concatenate_cases(), "pad": pad_cases(), "slice": slice_cases(),
}


def test_every_shape_primitive_has_its_rules():
    for name in PRIMITIVES:
        prim = getattr(sp, f"{name}_p")
        assert prim.jvp_rule and prim.transpose_rule and prim.batch_rule, name
    assert stop_gradient_p.jvp_rule and stop_gradient_p.batch_rule


@pytest.mark.parametrize("name", PRIMITIVES)
@given(data=st.data())
def test_primitive_grads(name, data):
    case = data.draw(PRIMITIVES[name])
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    args = [_values(rng, s) for s in case.shapes]
    check_grads(case.fn, args, order=2)
    _check_grad_of_dot(case.fn, args, rng)


@pytest.mark.parametrize("name", PRIMITIVES)
@given(data=st.data())
def test_primitive_vmap(name, data):
    case = data.draw(PRIMITIVES[name])
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    in_axes = _draw_in_axes(data.draw, [len(s) for s in case.shapes])
    check_vmap(case.fn, [_batched(rng, s, a) for s, a in zip(case.shapes, in_axes)],
               in_axes=in_axes)


@pytest.mark.parametrize("name", PRIMITIVES)
@settings(max_examples=20)  # compositions: fewer examples than the laws above
@given(data=st.data())
def test_primitive_vmap_of_jvp(name, data):
    """The jvp rules' tangent computations batch (primals and tangents on their own axes)."""
    case = data.draw(PRIMITIVES[name])
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    n = len(case.shapes)
    in_axes = _draw_in_axes(data.draw, [len(s) for s in case.shapes] * 2)
    args = [_batched(rng, s, a) for s, a in zip(case.shapes * 2, in_axes)]

    def tangent_out(*xs):
        return fa.jvp(case.fn, tuple(xs[:n]), tuple(xs[n:]))[1]

    check_vmap(tangent_out, args, in_axes=in_axes)


@pytest.mark.parametrize("name", list(PRIMITIVES))
@settings(max_examples=20)  # compositions: fewer examples than the laws above
@given(data=st.data())
def test_primitive_vmap_of_vjp(name, data):
    case = data.draw(PRIMITIVES[name])
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    _check_vmap_of_vjp(case.fn, [_values(rng, s) for s in case.shapes], data.draw, rng)


@pytest.mark.parametrize("name", list(PRIMITIVES))
@settings(max_examples=20)  # compositions: fewer examples than the laws above
@given(data=st.data())
def test_primitive_jvp_of_vjp(name, data):
    case = data.draw(PRIMITIVES[name])
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    _check_jvp_of_vjp(case.fn, [_values(rng, s) for s in case.shapes], rng)


@pytest.mark.parametrize("name", list(PRIMITIVES))
@settings(max_examples=20)  # compositions: fewer examples than the laws above
@given(data=st.data())
def test_primitive_vjp_of_vmap(name, data):
    """The batch rules' results differentiate (pad with a batched padding value selects)."""
    case = data.draw(PRIMITIVES[name])
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    in_axes = _draw_in_axes(data.draw, [len(s) for s in case.shapes])
    args = [_batched(rng, s, a) for s, a in zip(case.shapes, in_axes)]
    check_jvp_vjp(fa.vmap(case.fn, in_axes=in_axes), args)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "complex64",
                                   "complex128"])
@pytest.mark.parametrize("name", PRIMITIVES)
def test_primitive_tangent_and_cotangent_dtypes(name, dtype):
    """Tangents and cotangents keep the operand's dtype (and are strong-typed)."""
    case = FIXED_PRIMS[name]
    args = [fnp.asarray(np.arange(1, np.prod(s, dtype=int) + 1).reshape(s)).astype(dtype)
            for s in case.shapes]
    out, tangent = fa.jvp(case.fn, tuple(args), tuple(fnp.ones_like(a) for a in args))
    assert tangent.dtype == out.dtype == np.dtype(dtype) and not tangent.weak_type
    _, pullback = fa.vjp(case.fn, *args)
    cts = pullback(fnp.ones_like(out))
    for ct, a in zip(cts, args):
        assert ct.shape == a.shape and ct.dtype == a.dtype
    if np.dtype(dtype).kind == "c":
        check_jvp_vjp(case.fn, args)


# One fixed, non-trivial case per primitive (for the dtype test).
FIXED_PRIMS = {
    "broadcast_in_dim": PrimCase(lambda x: sp.broadcast_in_dim_p.bind(
        x, shape=(2, 4, 3), broadcast_dimensions=(2, 0)), [(3, 1)]),
    "reshape": PrimCase(lambda x: sp.reshape_p.bind(x, new_sizes=(3, 2)), [(2, 3)]),
    "transpose": PrimCase(lambda x: sp.transpose_p.bind(x, permutation=(1, 0)), [(2, 3)]),
    "squeeze": PrimCase(lambda x: sp.squeeze_p.bind(x, dimensions=(0,)), [(1, 3)]),
    "rev": PrimCase(lambda x: sp.rev_p.bind(x, dimensions=(1,)), [(2, 3)]),
    "concatenate": PrimCase(lambda x, y: sp.concatenate_p.bind(x, y, dimension=1),
                            [(2, 1), (2, 3)]),
    "pad": PrimCase(lambda x, v: sp.pad_p.bind(
        x, v, padding_config=((1, -1, 1), (-1, 2, 0))), [(3, 2), ()]),
    "slice": PrimCase(lambda x: sp.slice_p.bind(
        x, start_indices=(0, 1), limit_indices=(3, 3), strides=(2, 1)), [(3, 3)]),
}


def test_symbolic_zero_tangents_stay_symbolic():
    """An operand without a tangent contributes nothing (deflinear instantiates zeros only
    when another operand has a tangent)."""
    x, v = fnp.asarray(np.arange(3.0)), fnp.asarray(np.float64(7.0))
    out, t = fa.jvp(lambda x: sp.pad_p.bind(x, v, padding_config=((1, 1, 1),)), (x,),
                    (fnp.ones(3, dtype="float64"),))
    assert_allclose(out, [7, 0, 7, 1, 7, 2, 7])
    assert_allclose(t, [0, 1, 0, 1, 0, 1, 0])
    rule_out = sp.reshape_p.jvp_rule([x], [Zero(x.aval)], new_sizes=(3, 1))
    assert type(rule_out[1]) is Zero and rule_out[1].aval.shape == (3, 1)


def test_pad_transpose_gives_the_padding_value_the_padded_positions():
    x, v = fnp.asarray(np.arange(1.0, 4.0)), fnp.asarray(np.float64(0.0))
    config = ((2, -1, 1),)  # [v v 1 v 2 v 3] minus the last element: [v v 1 v 2 v]
    _, pullback = fa.vjp(lambda x, v: sp.pad_p.bind(x, v, padding_config=config), x, v)
    ct_x, ct_v = pullback(fnp.asarray(np.array([1.0, 2, 3, 4, 5, 6])))
    assert_allclose(ct_x, [3, 5, 0])
    assert_allclose(ct_v, 1 + 2 + 4 + 6)


def test_iota_under_transforms():
    """iota has no operands: it is a constant for jvp and vmap."""
    def f(x):
        ramp = sp.iota_p.bind(dtype=np.dtype("float64"), shape=(3,), dimension=0)
        return fnp.vdot(ramp, x)

    x = fnp.asarray(np.ones(3))
    assert_allclose(fa.grad(f)(x), [0.0, 1.0, 2.0])
    assert_allclose(fa.jvp(f, (x,), (x,))[1], 3.0)
    check_vmap(f, (fnp.asarray(np.arange(6.0).reshape(3, 2)),), in_axes=-1)


def test_stop_gradient_rules():
    x = fnp.asarray(np.array([1.0, 2.0, 3.0]))
    # d/dx <stop_gradient(x), x> = stop_gradient(x): only the second operand is seen.
    assert_allclose(fa.grad(lambda x: fnp.vdot(fa.stop_gradient(x), x))(x), x)
    out, t = fa.jvp(fa.stop_gradient, (x,), (x,))
    assert_allclose(out, x)
    assert_allclose(t, np.zeros(3))
    check_vmap(fa.stop_gradient, (fnp.asarray(np.arange(6.0).reshape(2, 3)),), in_axes=1)
    jax_grad = jax.grad(lambda x: jnp.vdot(jax.lax.stop_gradient(x), x))(np.asarray(x))
    assert_allclose(fa.grad(lambda x: fnp.vdot(fa.stop_gradient(x), x))(x), jax_grad)


def test_broadcast_in_dim_transpose_against_jax():
    """Stretched size-1 dimensions and new dimensions are summed (jax.lax as the oracle)."""
    x = np.arange(3.0).reshape(3, 1)
    ct = np.arange(24.0).reshape(2, 3, 4)
    ours = fa.vjp(lambda x: sp.broadcast_in_dim_p.bind(
        x, shape=(2, 3, 4), broadcast_dimensions=(1, 2)), fnp.asarray(x))[1](fnp.asarray(ct))
    theirs = jax.vjp(lambda x: jax.lax.broadcast_in_dim(x, (2, 3, 4), (1, 2)), x)[1](ct)
    assert_allclose(ours[0], theirs[0])


def test_pad_and_slice_against_jax():
    x, v = np.arange(12.0).reshape(3, 4), np.float64(0.5)
    config = ((1, -2, 2), (-1, 3, 1))
    ct = np.random.default_rng(0).standard_normal((6, 9))
    ours = fa.vjp(lambda x, v: sp.pad_p.bind(x, v, padding_config=config),
                  fnp.asarray(x), fnp.asarray(v))[1](fnp.asarray(ct))
    theirs = jax.vjp(lambda x, v: jax.lax.pad(x, v, config), x, v)[1](ct)
    for a, e in zip(ours, theirs):
        assert_allclose(a, e)
    ct = np.random.default_rng(1).standard_normal((2, 2))
    ours = fa.vjp(lambda x: sp.slice_p.bind(x, start_indices=(0, 1), limit_indices=(3, 4),
                                            strides=(2, 2)), fnp.asarray(x))[1](fnp.asarray(ct))
    theirs = jax.vjp(lambda x: jax.lax.slice(x, (0, 1), (3, 4), (2, 2)), x)[1](ct)
    assert_allclose(ours[0], theirs[0])


# --------------------------------------------------------------------------------------------
# The public functions of funcarray.numpy's shape module
# --------------------------------------------------------------------------------------------

class Case(NamedTuple):
    fn: Callable  # fn(mod, *arrays), with mod funcarray.numpy or jax.numpy
    shapes: list  # operand shapes

    def __repr__(self):
        return f"Case({_describe(self.fn)}, shapes={self.shapes})"


def _maybe_negative(draw, axis: int, ndim: int) -> int:
    return axis - ndim if draw(st.booleans()) else axis


def _distinct_axes(draw, ndim: int, count: int, negative: bool = True) -> tuple:
    axes = draw(st.permutations(range(ndim)))[:count]
    return tuple(_maybe_negative(draw, a, ndim) if negative else a for a in axes)


def _sub_shape(draw, shape):
    """A trailing part of ``shape`` with some sizes replaced by 1 (broadcasts to ``shape``)."""
    tail = shape[draw(st.integers(0, len(shape))):]
    return tuple(1 if draw(st.booleans()) else d for d in tail)


@st.composite
def reshape_case(draw):
    shape = draw(shapes())
    new = list(_regroup(draw, shape))
    if new and draw(st.booleans()) and int(np.prod(shape)):
        new[draw(st.integers(0, len(new) - 1))] = -1
    order = draw(st.sampled_from("CF"))
    return Case(lambda m, x: m.reshape(x, tuple(new), order=order), [shape])


@st.composite
def ravel_case(draw):
    order = draw(st.sampled_from("CF"))
    return Case(lambda m, x: m.ravel(x, order=order), [draw(shapes())])


@st.composite
def transpose_case(draw):
    shape = draw(shapes(max_dims=4))
    axes = draw(st.none() | st.just(_distinct_axes(draw, len(shape), len(shape))))
    return Case(lambda m, x: m.transpose(x, axes), [shape])


@st.composite
def permute_dims_case(draw):
    shape = draw(shapes(max_dims=4))
    # jax.numpy.permute_dims takes no negative axes (transpose tests those).
    axes = _distinct_axes(draw, len(shape), len(shape), negative=False)
    return Case(lambda m, x: m.permute_dims(x, axes), [shape])


@st.composite
def matrix_transpose_case(draw):
    return Case(lambda m, x: m.matrix_transpose(x), [draw(shapes(min_dims=2, max_dims=4))])


@st.composite
def moveaxis_case(draw):
    shape = draw(shapes(max_dims=4))
    count = draw(st.integers(0, len(shape)))
    src, dst = _distinct_axes(draw, len(shape), count), _distinct_axes(draw, len(shape), count)
    if count == 1 and draw(st.booleans()):
        src, dst = src[0], dst[0]
    return Case(lambda m, x: m.moveaxis(x, src, dst), [shape])


@st.composite
def swapaxes_case(draw):
    shape = draw(shapes(min_dims=1))
    a, b = draw(axis_of(len(shape))), draw(axis_of(len(shape)))
    return Case(lambda m, x: m.swapaxes(x, a, b), [shape])


@st.composite
def expand_dims_case(draw):
    shape = draw(shapes())
    count = draw(st.integers(1, 2))
    axes = _distinct_axes(draw, len(shape) + count, count)
    axis = axes[0] if count == 1 else axes
    return Case(lambda m, x: m.expand_dims(x, axis), [shape])


@st.composite
def squeeze_case(draw):
    shape = list(draw(shapes(min_side=2)))
    for _ in range(draw(st.integers(0, 2))):
        shape.insert(draw(st.integers(0, len(shape))), 1)
    ones = [d for d, size in enumerate(shape) if size == 1]
    axis = None
    if ones and draw(st.booleans()):
        axis = tuple(_maybe_negative(draw, d, len(shape)) for d in
                     draw(st.permutations(ones))[:draw(st.integers(1, len(ones)))])
    return Case(lambda m, x: m.squeeze(x, axis), [tuple(shape)])


@st.composite
def broadcast_to_case(draw):
    target = draw(shapes(max_dims=4))
    return Case(lambda m, x: m.broadcast_to(x, target), [_sub_shape(draw, target)])


@st.composite
def broadcast_arrays_case(draw):
    target = draw(shapes())
    operands = [_sub_shape(draw, target) for _ in range(draw(st.integers(1, 3)))]
    return Case(lambda m, *xs: m.broadcast_arrays(*xs), operands)


def _atleast_case(name):
    @st.composite
    def case(draw):
        operands = draw(st.lists(shapes(), min_size=1, max_size=2))
        return Case(lambda m, *xs: getattr(m, name)(*xs), operands)
    return case()


def _joinable(draw, min_dims=1, count=None):
    """Shapes that agree except along one axis; returns (shapes, axis)."""
    shape = draw(shapes(min_dims=min_dims))
    axis = draw(st.integers(0, len(shape) - 1))
    count = count or draw(st.integers(1, 3))
    sizes = [draw(st.integers(0, 3)) for _ in range(count)]
    return [shape[:axis] + (s,) + shape[axis + 1:] for s in sizes], axis


@st.composite
def concatenate_case(draw):
    operands, axis = _joinable(draw)
    form = draw(st.sampled_from(["axis", "negative", "flat", "array"]))
    if form == "flat":
        return Case(lambda m, *xs: m.concatenate(xs, axis=None), [draw(shapes())
                                                                  for _ in operands])
    if form == "array":  # an array is a sequence of its sub-arrays
        shape = (draw(st.integers(1, 3)), *draw(shapes(min_dims=1)))
        return Case(lambda m, x: m.concatenate(x, axis=-1), [shape])
    axis = axis - len(operands[0]) if form == "negative" else axis
    return Case(lambda m, *xs: m.concatenate(xs, axis=axis), operands)


@st.composite
def concat_case(draw):
    operands, axis = _joinable(draw)
    axis = _maybe_negative(draw, axis, len(operands[0]))
    return Case(lambda m, *xs: m.concat(xs, axis=axis), operands)


@st.composite
def stack_case(draw):
    shape = draw(shapes())
    count = draw(st.integers(1, 3))
    axis = draw(st.integers(-len(shape) - 1, len(shape)))
    if draw(st.booleans()):
        return Case(lambda m, x: m.stack(x, axis=axis), [(count, *shape)])
    return Case(lambda m, *xs: m.stack(xs, axis=axis), [shape] * count)


@st.composite
def vstack_case(draw):
    if draw(st.booleans()):
        n = draw(st.integers(0, 3))
        return Case(lambda m, *xs: m.vstack(xs), [(n,)] * draw(st.integers(1, 3)))
    operands, _ = _joinable(draw, min_dims=2)
    operands = [s[:0] + (s[0],) + operands[0][1:] for s in operands]  # differ along axis 0
    return Case(lambda m, *xs: m.vstack(xs), operands)


@st.composite
def hstack_case(draw):
    if draw(st.booleans()):
        sizes = draw(st.lists(st.integers(0, 3), min_size=1, max_size=3))
        return Case(lambda m, *xs: m.hstack(xs), [(n,) for n in sizes])
    rows, cols = draw(st.integers(0, 3)), draw(st.lists(st.integers(0, 3), min_size=1,
                                                        max_size=3))
    return Case(lambda m, *xs: m.hstack(xs), [(rows, c) for c in cols])


@st.composite
def dstack_case(draw):
    if draw(st.booleans()):
        shape = draw(shapes(min_dims=2, max_dims=2))
        return Case(lambda m, *xs: m.dstack(xs), [shape] * draw(st.integers(1, 3)))
    a, b = draw(st.integers(0, 3)), draw(st.integers(0, 3))
    depths = draw(st.lists(st.integers(0, 3), min_size=1, max_size=3))
    return Case(lambda m, *xs: m.dstack(xs), [(a, b, d) for d in depths])


@st.composite
def column_stack_case(draw):
    rows = draw(st.integers(0, 3))
    operands = [(rows,) if draw(st.booleans()) else (rows, draw(st.integers(0, 3)))
                for _ in range(draw(st.integers(1, 3)))]
    return Case(lambda m, *xs: m.column_stack(xs), operands)


def _split_points(draw, size):
    return sorted(draw(st.lists(st.integers(0, size), max_size=3)))


@st.composite
def split_case(draw):
    shape = draw(shapes(min_dims=1))
    axis = draw(axis_of(len(shape)))
    size = shape[axis]
    if draw(st.booleans()):
        divisors = [n for n in range(1, 4) if size % n == 0]
        sections = draw(st.sampled_from(divisors))
    else:
        sections = _split_points(draw, size)
    return Case(lambda m, x: m.split(x, sections, axis=axis), [shape])


@st.composite
def array_split_case(draw):
    shape = draw(shapes(min_dims=1))
    axis = draw(axis_of(len(shape)))
    sections = draw(st.integers(1, 4))
    return Case(lambda m, x: m.array_split(x, sections, axis=axis), [shape])


def _split_family_case(name, min_dims, axis_for):
    @st.composite
    def case(draw):
        shape = draw(shapes(min_dims=min_dims))
        points = _split_points(draw, shape[axis_for(len(shape))])
        return Case(lambda m, x: getattr(m, name)(x, points), [shape])
    return case()


@st.composite
def pad_case(draw):
    shape = draw(shapes(min_side=1))
    widths = tuple((draw(st.integers(0, 3)), draw(st.integers(0, 3))) for _ in shape)
    widths = widths or draw(st.integers(0, 3))  # a 0-d array: NumPy's pad needs an int
    mode = draw(st.sampled_from(["constant", "constant_array", "constant_pairs", "empty",
                                 "edge", "reflect", "symmetric", "wrap", "reflect_odd",
                                 "symmetric_odd", "linear_ramp", "mean", "callable"]))
    # (not maximum, minimum or median: the checks here take the functions as linear;
    # tests/numpy/test_padding.py differentiates those modes)
    if mode == "constant":
        return Case(lambda m, x: m.pad(x, widths, constant_values=1.5), [shape])
    if mode == "constant_array":  # the padding value is an operand: it has a gradient
        return Case(lambda m, x, c: m.pad(x, widths, constant_values=c), [shape, ()])
    if mode == "constant_pairs":
        return Case(lambda m, x, c: m.pad(x, widths, constant_values=c),
                    [shape, (len(shape), 2)])
    if mode.endswith("_odd"):
        mode = mode.removesuffix("_odd")
        return Case(lambda m, x: m.pad(x, widths, mode=mode, reflect_type="odd"), [shape])
    if mode == "linear_ramp":  # (static end values: jax's pad takes no traced ones)
        return Case(lambda m, x: m.pad(x, widths, mode=mode, end_values=(1.5, -2.0)), [shape])
    if mode == "mean":
        length = draw(st.none() | st.integers(1, 3))
        return Case(lambda m, x: m.pad(x, widths, mode=mode, stat_length=length), [shape])
    if mode == "callable":  # (not 0-d: jax's pad fails to read a 0-d array's widths there)
        return Case(lambda m, x: m.pad(x, widths, mode=_pad_ends_with_axis),
                    [shape or (2,)])
    return Case(lambda m, x: m.pad(x, widths, mode=mode), [shape])


def _pad_ends_with_axis(vector, pair, axis, kwargs):
    """A padding function: the before side gets the axis number, the after side the vector's
    first value."""
    before, after = pair
    vector = vector.at[:before].set(axis)
    return vector.at[vector.shape[0] - after:].set(vector[before])


@st.composite
def flip_case(draw):
    shape = draw(shapes())
    axis = draw(st.none() | st.just(_distinct_axes(draw, len(shape),
                                                   draw(st.integers(0, len(shape))))))
    if axis and len(axis) == 1 and draw(st.booleans()):
        axis = axis[0]
    return Case(lambda m, x: m.flip(x, axis), [shape])


@st.composite
def rot90_case(draw):
    shape = draw(shapes(min_dims=2))
    k = draw(st.integers(-3, 5))
    axes = _distinct_axes(draw, len(shape), 2)
    return Case(lambda m, x: m.rot90(x, k, axes), [shape])


@st.composite
def roll_case(draw):
    shape = draw(shapes(min_dims=1))
    if draw(st.booleans()):
        shift = draw(st.integers(-5, 5))
        return Case(lambda m, x: m.roll(x, shift), [shape])
    axes = _distinct_axes(draw, len(shape), draw(st.integers(1, len(shape))))
    shifts = tuple(draw(st.integers(-5, 5)) for _ in axes)
    return Case(lambda m, x: m.roll(x, shifts, axes), [shape])


@st.composite
def tile_case(draw):
    shape = draw(shapes())
    reps = draw(st.integers(0, 3) | st.tuples(*[st.integers(0, 2)] * draw(st.integers(0, 4))))
    return Case(lambda m, x: m.tile(x, reps), [shape])


@st.composite
def repeat_case(draw):
    shape = draw(shapes(min_dims=1))
    axis = draw(st.none() | axis_of(len(shape)))
    size = int(np.prod(shape)) if axis is None else shape[axis]
    counts = st.lists(st.integers(0, 3), min_size=size, max_size=size)
    repeats = draw(st.integers(0, 3) | counts.map(lambda r: np.array(r, dtype=int)))
    total = draw(st.none() | st.integers(0, 8))
    if total is None:
        return Case(lambda m, x: m.repeat(x, repeats, axis=axis), [shape])
    return Case(lambda m, x: m.repeat(x, repeats, axis=axis, total_repeat_length=total),
                [shape])


def _triangle_case(name):
    @st.composite
    def case(draw):
        k = draw(st.integers(-3, 3))
        return Case(lambda m, x: getattr(m, name)(x, k), [draw(shapes(min_dims=2))])
    return case()


@st.composite
def diagonal_case(draw):
    shape = draw(shapes(min_dims=2))
    offset = draw(st.integers(-3, 3))
    a, b = _distinct_axes(draw, len(shape), 2)
    return Case(lambda m, x: m.diagonal(x, offset, a, b), [shape])


@st.composite
def trace_case(draw):
    shape = draw(shapes(min_dims=2))
    offset = draw(st.integers(-3, 3))
    a, b = _distinct_axes(draw, len(shape), 2)
    return Case(lambda m, x: m.trace(x, offset, a, b), [shape])


@st.composite
def diag_case(draw):
    shape = draw(shapes(min_dims=1, max_dims=2))
    k = draw(st.integers(-3, 3))
    return Case(lambda m, x: m.diag(x, k), [shape])


def _simple(name, **shape_kwargs):
    return st.builds(lambda s: Case(lambda m, x: getattr(m, name)(x), [s]),
                     shapes(**shape_kwargs))


PUBLIC = {
    "reshape": reshape_case(), "ravel": ravel_case(), "transpose": transpose_case(),
    "permute_dims": permute_dims_case(), "matrix_transpose": matrix_transpose_case(),
    "moveaxis": moveaxis_case(), "swapaxes": swapaxes_case(),
    "expand_dims": expand_dims_case(), "squeeze": squeeze_case(),
    "broadcast_to": broadcast_to_case(), "broadcast_arrays": broadcast_arrays_case(),
    "atleast_1d": _atleast_case("atleast_1d"), "atleast_2d": _atleast_case("atleast_2d"),
    "atleast_3d": _atleast_case("atleast_3d"),
    "concatenate": concatenate_case(), "concat": concat_case(), "stack": stack_case(),
    "vstack": vstack_case(), "hstack": hstack_case(), "dstack": dstack_case(),
    "column_stack": column_stack_case(),
    "split": split_case(), "array_split": array_split_case(),
    "vsplit": _split_family_case("vsplit", 2, lambda n: 0),
    "hsplit": _split_family_case("hsplit", 1, lambda n: 0 if n == 1 else 1),
    "dsplit": _split_family_case("dsplit", 3, lambda n: 2),
    "pad": pad_case(), "flip": flip_case(), "fliplr": _simple("fliplr", min_dims=2),
    "flipud": _simple("flipud", min_dims=1), "rot90": rot90_case(), "roll": roll_case(),
    "tile": tile_case(), "repeat": repeat_case(),
    "tril": _triangle_case("tril"), "triu": _triangle_case("triu"),
    "diagonal": diagonal_case(), "trace": trace_case(), "diag": diag_case(),
}
NOT_ARRAY_FUNCTIONS = {"broadcast_shapes"}  # takes shapes, returns a tuple


def test_every_public_shape_function_is_covered():
    public = {*_shape.__all__, *_padding.__all__, *_rearranging.__all__, *_diagonals.__all__}
    assert public - NOT_ARRAY_FUNCTIONS == set(PUBLIC)


def _draw_public(data, name):
    case = data.draw(PUBLIC[name])
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    return case, rng


# Fewer examples than the primitives' tests get: ~40 functions, built from the same rules.
@pytest.mark.parametrize("name", list(PUBLIC))
@settings(max_examples=15)
@given(data=st.data())
def test_public_grads_and_vmap(name, data):
    """jvp against finite differences, the transpose identity, fa.grad of the result dotted
    with a random array, and vmap (random in_axes) against a loop."""
    case, rng = _draw_public(data, name)
    args = [_values(rng, s) for s in case.shapes]

    def f(*xs):
        return case.fn(fnp, *xs)

    check_grads(f, args, order=1)
    _check_grad_of_dot(f, args, rng)
    in_axes = _draw_in_axes(data.draw, [len(s) for s in case.shapes])
    batched = [_batched(rng, s, a) for s, a in zip(case.shapes, in_axes)]
    check_vmap(f, batched, in_axes=in_axes)


@pytest.mark.parametrize("name", list(PUBLIC))
@settings(max_examples=8)
@given(data=st.data())
def test_public_pullback_under_vmap_and_jvp(name, data):
    """The transpose rules' computations batch and differentiate."""
    case, rng = _draw_public(data, name)
    args = [_values(rng, s) for s in case.shapes]

    def f(*xs):
        return case.fn(fnp, *xs)

    _check_vmap_of_vjp(f, args, data.draw, rng)
    _check_jvp_of_vjp(f, args, rng)


@pytest.mark.parametrize("name", list(PUBLIC))
@settings(max_examples=2)  # each example compiles a jax program
@given(data=st.data())
def test_public_against_jax(name, data):
    """fa.grad, fa.jvp and fa.vmap against jax's transforms of the jax.numpy function."""
    case, rng = _draw_public(data, name)
    args = [_values(rng, s) for s in case.shapes]
    tangents = [_values(rng, s) for s in case.shapes]
    in_axes = _draw_in_axes(data.draw, [len(s) for s in case.shapes])
    batched = [_batched(rng, s, a) for s, a in zip(case.shapes, in_axes)]
    w = rng.standard_normal(_size(case.fn(fnp, *args)))
    argnums = tuple(range(len(args)))

    def dotted(mod, *xs):
        return mod.vdot(_flat(mod, case.fn(mod, *xs)), mod.asarray(w))

    @jax.jit
    def oracle(args, tangents, batched):
        grads = jax.grad(lambda *xs: dotted(jnp, *xs), argnums=argnums)(*args)
        jvp_out = jax.jvp(lambda *xs: case.fn(jnp, *xs), tuple(args), tuple(tangents))[1]
        vmap_out = jax.vmap(lambda *xs: case.fn(jnp, *xs), in_axes=in_axes)(*batched)
        return grads, jvp_out, vmap_out

    to_np = [np.asarray(x) for x in args], [np.asarray(t) for t in tangents]
    grads, jvp_out, vmap_out = oracle(*to_np, [np.asarray(b) for b in batched])
    ours = fa.grad(lambda *xs: dotted(fnp, *xs), argnums=argnums)(*args)
    for a, e in zip(ours, grads):
        assert_allclose(a, e)
    ours = fa.jvp(lambda *xs: case.fn(fnp, *xs), tuple(args), tuple(tangents))[1]
    for a, e in zip(_leaves(ours), _leaves(jvp_out)):
        assert_allclose(a, e)
    ours = fa.vmap(lambda *xs: case.fn(fnp, *xs), in_axes=in_axes)(*batched)
    for a, e in zip(_leaves(ours), _leaves(vmap_out)):
        assert_allclose(a, e)
