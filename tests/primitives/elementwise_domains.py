"""The elementwise ops' differentiability classes and value domains (inside each op's domain,
away from its non-differentiable points), the inputs drawn from them, and the comparisons of
``fa.vjp``/``fa.jvp`` with ``jax.vjp``/``jax.jvp`` that the transformation tests share.
"""

from __future__ import annotations

import dataclasses

import hypothesis.strategies as st
import jax
import numpy as np
from hypothesis import settings
from op_table import ELEMENTWISE_BY_NAME

import funcarray as fa
import funcarray.numpy as fnp
from funcarray.testing import assert_allclose

BATCH = 3  # the size of every vmapped axis
# check_grads picks float32-sized steps and tolerances for every dtype but float64; complex128
# needs float64's (a 1e-2 step crosses branch cuts and loses the second order's accuracy).
COMPLEX128_STEPS = {"eps": 1e-6, "rtol": 1e-5, "atol": 1e-5}
FEW = settings(max_examples=4)  # table-driven tests: many ops, a few shapes each

# --------------------------------------------------------------------------------------------
# Which public functions are differentiable
# --------------------------------------------------------------------------------------------

# Piecewise constant, or with bool results: zero tangents and cotangents for float inputs.
ZERO_DERIVATIVE = frozenset({
    "around", "ceil", "equal", "fix", "floor", "floor_divide", "greater", "greater_equal",
    "isfinite", "isinf", "isnan", "isneginf", "isposinf", "less", "less_equal", "logical_and",
    "logical_not", "logical_or", "logical_xor", "nextafter", "not_equal", "rint", "round",
    "sign", "signbit", "trunc",
})
# Bool and integer inputs only: every tangent is zero.
INTEGER_ONLY = frozenset(
    name for name, spec in ELEMENTWISE_BY_NAME.items() if "f" not in spec.kinds)
DIFFERENTIABLE = sorted(set(ELEMENTWISE_BY_NAME) - ZERO_DERIVATIVE - INTEGER_ONLY)
# Complex-differentiable in the sense JAX uses (real/imag/conj/abs/angle are not holomorphic,
# but their vjp follows JAX's convention, which the jax comparison checks).
NOT_FOR_COMPLEX = frozenset({"maximum", "minimum", "fmax", "fmin"})  # lexicographic order
COMPLEX = sorted(name for name in DIFFERENTIABLE
                 if "c" in ELEMENTWISE_BY_NAME[name].kinds and name not in NOT_FOR_COMPLEX)


# --------------------------------------------------------------------------------------------
# Values inside each op's domain, away from non-differentiable points
# --------------------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Interval:
    """Floats drawn uniformly from [lo, hi]; with ``away_from_zero``, magnitudes in [lo, hi]
    with a random sign."""

    lo: float
    hi: float
    away_from_zero: bool = False


NONZERO = Interval(0.5, 5.0, True)
INTERVALS = {  # op_table domain name -> where its derivatives are checked
    "any": Interval(-4.0, 4.0), "wide": Interval(-8.0, 8.0), "small": Interval(-3.0, 3.0),
    "exp_arg": Interval(-5.0, 5.0), "positive": Interval(0.2, 20.0), "nonzero": NONZERO,
    "unit": Interval(-0.9, 0.9), "open_unit": Interval(-0.9, 0.9),
    "ge1": Interval(1.2, 20.0), "gt_m1": Interval(-0.8, 5.0), "exponent": Interval(0.5, 3.0),
}
# Ops whose table domain holds a singular or non-differentiable point (0 for abs and cbrt,
# pi/2 for tan, negative bases with fractional exponents for power).
OVERRIDES = {
    "tan": (Interval(-1.2, 1.2),), "cbrt": (NONZERO,), "abs": (NONZERO,),
    "absolute": (NONZERO,), "fabs": (NONZERO,), "reciprocal": (NONZERO,), "angle": (NONZERO,),
    "copysign": (NONZERO, NONZERO), "hypot": (NONZERO, NONZERO),
    "arctan2": (NONZERO, NONZERO), "atan2": (NONZERO, NONZERO),
    "power": (Interval(0.5, 4.0), Interval(0.5, 3.0)),
}
PRIM_OVERRIDES = {
    "tan": (Interval(-1.2, 1.2),), "cbrt": (NONZERO,), "abs": (NONZERO,),
    "atan2": (NONZERO, NONZERO),
}


def _sample(rng, interval: Interval, shape, dtype=np.float64):
    dtype = np.dtype(dtype)
    re = rng.uniform(interval.lo, interval.hi, shape)
    if interval.away_from_zero:
        re = re * rng.choice([-1.0, 1.0], shape)
    if dtype.kind == "c":  # a small imaginary part keeps clear of the real-axis branch cuts
        return (re + 1j * rng.uniform(-0.5, 0.5, shape)).astype(dtype)
    return re.astype(dtype)


def _intervals(spec, overrides):
    return overrides.get(spec.name) or tuple(INTERVALS[d.name] for d in spec.domains)


def _int_sample(rng, domain_name, shape, dtype=np.int32):
    if domain_name == "shift":
        return rng.integers(0, 8, shape).astype(dtype)
    return rng.integers(-50, 50, shape).astype(dtype)


def _as_fa(*xs):
    return tuple(fnp.asarray(x) for x in xs)


def _public_fns(spec, rng, shape, dtype):
    """``(fa_fn, jax_fn, args)``: the bool condition of ``where`` is closed over (it has no
    derivative, and finite differences must not perturb it)."""
    if spec.condition:
        cond = rng.integers(0, 2, shape).astype(bool)
        args = tuple(_sample(rng, INTERVALS["wide"], shape, dtype) for _ in range(2))
        return (lambda x, y: spec.fn(cond, x, y)), (lambda x, y: spec.jax_fn(cond, x, y)), args
    args = tuple(_sample(rng, iv, shape, dtype) for iv in _intervals(spec, OVERRIDES))
    return spec.fn, spec.jax_fn, args


shapes = st.lists(st.integers(1, 3), max_size=2).map(tuple)
seeds = st.integers(0, 2**31 - 1)


def _random_ct(rng, out):
    out = np.asarray(out)
    if out.dtype.kind == "c":
        return (rng.standard_normal(out.shape) + 1j * rng.standard_normal(out.shape)).astype(
            out.dtype)
    return rng.standard_normal(out.shape).astype(out.dtype)


def _unique_fns(names):
    """One name per distinct function (``asin`` is ``arcsin``): the jax comparisons are the
    slow tests, and an alias adds nothing to them."""
    seen, out = set(), []
    for name in sorted(names):
        fn = ELEMENTWISE_BY_NAME[name].fn
        if id(fn) not in seen:
            seen.add(id(fn))
            out.append(name)
    return out


def _compare_vjp_with_jax(f, jf, args, rng, rtol=1e-9, atol=1e-11):
    """``fa.vjp`` and ``jax.vjp`` give the same outputs and cotangents.

    jax runs op by op (``disable_jit``): its per-primitive compilation cache is then shared by
    all the ops, where jitted ``jax.numpy`` functions would each compile their own programs.
    """
    out, f_vjp = fa.vjp(f, *_as_fa(*args))
    with jax.disable_jit():
        jout, j_vjp = jax.vjp(jf, *args)
    jouts = jout if isinstance(jout, tuple) else (jout,)
    outs = out if isinstance(out, tuple) else (out,)
    cts = tuple(_random_ct(rng, o) for o in jouts)
    got = f_vjp(tuple(fnp.asarray(c) for c in cts) if isinstance(jout, tuple)
                else fnp.asarray(cts[0]))
    with jax.disable_jit():
        want = j_vjp(cts if isinstance(jout, tuple) else cts[0])
    for o, jo in zip(outs, jouts):
        assert_allclose(o, jo, rtol=rtol, atol=atol)
    for i, (g, w) in enumerate(zip(got, want)):
        assert np.asarray(g).dtype == np.asarray(w).dtype, (i, g, w)
        assert_allclose(g, w, rtol=rtol, atol=atol, err_msg=f"cotangent {i}: ")


def _compare_jvp_with_jax(f, jf, args, rng, rtol=1e-9, atol=1e-11):
    tangents = tuple(_random_ct(rng, a) for a in args)
    _, got = fa.jvp(f, _as_fa(*args), _as_fa(*tangents))
    with jax.disable_jit():
        _, want = jax.jvp(jf, args, tangents)
    for g, w in zip(got if isinstance(got, tuple) else (got,),
                    want if isinstance(want, tuple) else (want,)):
        assert_allclose(g, w, rtol=rtol, atol=atol)


# The jax comparisons use one shape, so that jax compiles each of its primitives once.
JAX_SHAPE = (2, 3)


@st.composite
def in_axes_for(draw, ndims):
    """One batch axis per argument (None, or a position in the batched array, possibly
    negative); at least one argument is batched."""
    axes = [draw(st.one_of(st.none(), st.integers(-(nd + 1), nd))) for nd in ndims]
    if all(a is None for a in axes):
        i = draw(st.integers(0, len(ndims) - 1))
        axes[i] = draw(st.integers(-(ndims[i] + 1), 0))
    return tuple(axes)


def _batched(rng, sample_one, in_axes):
    """Arguments with a batch axis of size BATCH where ``in_axes`` says (``sample_one(i)``
    draws argument i for one batch member)."""
    out = []
    for i, axis in enumerate(in_axes):
        if axis is None:
            out.append(sample_one(i))
        else:
            out.append(np.moveaxis(np.stack([sample_one(i) for _ in range(BATCH)]), 0, axis))
    return out
