"""``funcarray.lax``'s operations (``funcarray/lax/_ops_*.py``) against ``jax.lax``.

Every wrapper is compared with the jax.lax function of the same name on the same inputs,
eagerly and under ``fa.jit`` (dtype, shape and values; tolerances tied to the dtype). The
differentiable ones are compared under ``fa.grad`` with ``jax.grad``, a representative subset
under ``fa.vmap`` with a Python loop, and every error path is checked for a clear message.
``dynamic_slice`` and ``dynamic_update_slice`` are checked with out-of-range and traced start
indices (inside ``fa.jit`` and ``fa.lax.fori_loop``) against jax's clamping.

Speed: compilation dominates, so cases are compared in batches: each case eagerly (NumPy
kernels, no compilation), then the whole batch in one ``fa.jit`` against one ``jax.jit``.

The jax oracle runs with x64 on (``conftest.py``), so inputs are NumPy arrays of explicit
dtypes; Python scalars are checked on their own (jax's x64 mode makes them 64-bit).
"""

from __future__ import annotations

import importlib
import warnings
import zlib

import hypothesis.strategies as st
import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings

import funcarray as fa
import funcarray.numpy as fnp
from funcarray import lax
from funcarray.lax import _OP_MODULES as _OP_MODULE_NAMES

F16, BF16, F32, F64 = np.float16, ml_dtypes.bfloat16, np.float32, np.float64
C64, C128 = np.complex64, np.complex128
I8, I32, I64, U8, U32, BOOL = np.int8, np.int32, np.int64, np.uint8, np.uint32, np.bool_

# Relative tolerances for a funcarray result against jax's, by result dtype: a few ulp, as
# the eager kernels (NumPy) and XLA round transcendental functions differently.
RTOL = {np.dtype(F16): 2e-3, np.dtype(BF16): 1.6e-2, np.dtype(F32): 1e-5,
        np.dtype(F64): 1e-12, np.dtype(C64): 1e-5, np.dtype(C128): 1e-12}

RNG = np.random.default_rng(0)


@pytest.fixture(autouse=True)
def _seeded_rng(request):
    """Each test draws the same inputs whatever ran before it (xdist changes the order)."""
    global RNG
    RNG = np.random.default_rng(zlib.crc32(request.node.name.encode()))


def assert_same(got, want, rtol=None, atol=0.0, where=""):
    """Same dtype, shape and values (NaNs equal; exact for ints/bools)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, f"{where}: shape {got.shape} != jax's {want.shape}"
    assert got.dtype == want.dtype, f"{where}: dtype {got.dtype} != jax's {want.dtype}"
    rtol = RTOL.get(want.dtype, 0.0) if rtol is None else rtol
    if want.dtype.kind in "biu":
        np.testing.assert_array_equal(got, want, err_msg=where)
    else:
        wide = np.complex128 if want.dtype.kind == "c" else np.float64
        np.testing.assert_allclose(got.astype(wide), want.astype(wide), rtol=rtol,
                                   atol=atol, equal_nan=True, err_msg=where)


def check_all(cases, *, names=None, atol=0.0, jit=True):
    """Many ``(fa_fn, jax_fn, args, tol)`` cases (``tol``: an rtol, ``None`` for the dtype's
    default, or an ``(rtol, atol)`` pair): each eagerly against jax, and under one
    ``fa.jit`` against one ``jax.jit``. Compilation dominates this file's run time (about
    50 ms per operation on each side), so with ``names`` like ``"op(details)"`` only the
    first case of each op is jitted on funcarray's side: the eager kernels cover the dtype
    and parameter variants, the jitted case the op's lowering. Returns the eager results."""
    names = names or [f"case {k}" for k in range(len(cases))]
    jax_args = [tuple(jnp.asarray(a) for a in c[2]) for c in cases]
    fa_args = [tuple(fnp.asarray(a) for a in c[2]) for c in cases]
    want = jax.jit(lambda ins: [c[1](*a) for c, a in zip(cases, ins)])(jax_args)
    eager = [c[0](*a) for c, a in zip(cases, fa_args)]
    for name, c, got, wanted in zip(names, cases, eager, want):
        _compare(name + " (eager)", got, wanted, c[3], atol)
    if jit:
        first = {}
        for k, name in enumerate(names):
            first.setdefault(name.split("(")[0], k)
        picked = sorted(first.values())
        jitted = fa.jit(lambda ins: [cases[k][0](*a) for k, a in zip(picked, ins)])(
            [fa_args[k] for k in picked])
        for k, got in zip(picked, jitted):
            _compare(names[k] + " (jit)", got, want[k], cases[k][3], atol)
    return eager


def _compare(where, got, want, rtol, atol):
    if isinstance(rtol, tuple):  # a case's own (rtol, atol)
        rtol, atol = rtol
    want_leaves, got_leaves = jax.tree.leaves(want), fa.tree.leaves(got)
    assert len(want_leaves) == len(got_leaves), where
    for g, w in zip(got_leaves, want_leaves):
        assert isinstance(g, fa.Array), where
        assert_same(g, w, rtol, atol, where)


def rand(shape, dtype, lo=-2.0, hi=2.0):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return RNG.random(shape) < 0.5
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return RNG.integers(max(info.min, -50), min(info.max, 50), shape, dtype=dtype,
                            endpoint=True)
    if dtype.kind == "c":
        return (RNG.uniform(lo, hi, shape) + 1j * RNG.uniform(lo, hi, shape)).astype(dtype)
    return RNG.uniform(lo, hi, shape).astype(dtype)


def _dname(dtype) -> str:
    return np.dtype(dtype).name


# ============================================================================================
# Elementwise: values against jax.lax
# ============================================================================================

# name -> (dtypes, domain (lo, hi))
UNARY = {
    "neg": ((I32, C64), (-3, 3)),
    "sign": ((F32, U8, C64), (-3, 3)),
    "floor": ((F16,), (-3, 3)),
    "ceil": ((BF16,), (-3, 3)),
    "is_finite": ((F64,), (-3, 3)),
    "exp": ((F32, F64, C64), (-3, 3)),
    "exp2": ((F32, F16), (-3, 3)),
    "expm1": ((F32,), (-1, 1)),
    "log": ((F64, C64), (0.1, 3)),
    "log1p": ((F32,), (-0.5, 2)),
    "sin": ((F32, C64), (-3, 3)),
    "cos": ((F16,), (-3, 3)),
    "tan": ((F64,), (-1.2, 1.2)),
    "asin": ((F32,), (-0.9, 0.9)),
    "acos": ((F32,), (-0.9, 0.9)),
    "atan": ((F64,), (-3, 3)),
    "sinh": ((F32,), (-3, 3)),
    "cosh": ((F32,), (-3, 3)),
    "tanh": ((F32, C64), (-2, 2)),
    "asinh": ((F32,), (-3, 3)),
    "acosh": ((F32,), (1.1, 4)),
    "atanh": ((F32,), (-0.9, 0.9)),
    "sqrt": ((F32, C64), (0.1, 4)),
    "rsqrt": ((F64,), (0.1, 4)),
    "cbrt": ((F32,), (-8, 8)),
    "logistic": ((F32, C64), (-6, 6)),
    "square": ((U8, C64), (-3, 3)),
    "reciprocal": ((F32, C64), (0.5, 3)),
    "abs": ((I32, C64), (-3, 3)),
    "erf": ((F32, F64), (-2, 2)),
    "erfc": ((F32,), (-2, 2)),
    "erf_inv": ((F32,), (-0.9, 0.9)),
    "lgamma": ((F64,), (0.5, 5)),
    "digamma": ((F32,), (0.5, 5)),
    "bitwise_not": ((BOOL, U8), (-3, 3)),
    "population_count": ((I32, U8), (-3, 3)),
    "clz": ((U8,), (-3, 3)),
    "conj": ((C64, F64), (-3, 3)),
    "real": ((C128,), (-3, 3)),
    "imag": ((C64,), (-3, 3)),
}
# Special functions: funcarray's own kernels, a little further from XLA's than NumPy's.
SPECIAL_RTOL = {"lgamma": 64, "digamma": 64, "erf_inv": 16, "erfc": 16}


def test_unary_ops_match_jax():
    keys = [(n, d) for n, (ds, _) in UNARY.items() for d in ds]
    cases = []
    for name, dtype in keys:
        lo, hi = UNARY[name][1]
        rtol = RTOL.get(np.dtype(dtype), 0.0) * SPECIAL_RTOL.get(name, 1)
        cases.append((getattr(lax, name), getattr(jax.lax, name),
                      (rand((2, 3), dtype, lo, hi),), rtol or None))
    check_all(cases, names=[f"{n}({_dname(d)})" for n, d in keys])


def test_unary_special_values_match_jax():
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30], F32)
    names = ["exp", "log", "sqrt", "rsqrt", "tanh", "logistic", "sign", "floor", "abs",
             "is_finite", "expm1", "log1p", "cbrt"]
    check_all([(getattr(lax, n), getattr(jax.lax, n), (x,), None) for n in names],
              names=names, jit=False)


def test_round_and_integer_pow_match_jax():
    x = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.49999997, 3.7], F32)
    cases, names = [], []
    for method in (0, 1, lax.RoundingMethod.TO_NEAREST_EVEN,
                   jax.lax.RoundingMethod.AWAY_FROM_ZERO):
        cases.append((lambda v, m=method: lax.round(v, m),
                      lambda v, m=method: jax.lax.round(v, int(m)), (x,), None))
        names.append(f"round({method!r})")
    for dtype in (F32, I32, C64):
        for y in (0, 1, 2, 3, 5, -1, -2):
            if y < 0 and np.dtype(dtype).kind == "i":
                continue  # integers take no negative powers (tested with the errors)
            cases.append((lambda v, y=y: lax.integer_pow(v, y),
                          lambda v, y=y: jax.lax.integer_pow(v, y),
                          (rand((3,), dtype, 0.5, 2),), None))
            names.append(f"integer_pow({_dname(dtype)}, {y})")
    check_all(cases, names=names)


# name -> dtypes
BINARY = {
    "add": (U8, F16), "sub": (F32, C64), "mul": (I8, C64), "div": (I32, U32, C64),
    "rem": (F32, I32), "pow": (F32, C64), "max": (F32, BOOL, C64), "min": (I32, U8),
    "atan2": (F64,), "nextafter": (F32,), "complex": (F32, F64), "bitwise_and": (BOOL, I32),
    "bitwise_or": (U8,), "bitwise_xor": (BOOL, U32), "shift_left": (I32, U8),
    "shift_right_logical": (I32, U8), "shift_right_arithmetic": (U8, I8),
    "eq": (F32, C64), "ne": (BOOL,), "lt": (F32, BOOL), "le": (U8,), "gt": (I32,), "ge": (F32,),
}


def _binary_inputs(name, dtype, shape=(2, 3)):
    if name.startswith("shift"):
        bits = np.dtype(dtype).itemsize * 8
        return rand(shape, dtype), RNG.integers(-1, bits + 1, shape).astype(dtype)
    if name in ("div", "rem") and np.dtype(dtype).kind in "iu":
        y = rand(shape, dtype)
        return rand(shape, dtype), np.where(y == 0, 3, y).astype(dtype)  # x / 0: below
    if name == "pow":
        return rand(shape, dtype, 0.5, 2), rand(shape, dtype, -2, 2)
    return rand(shape, dtype), rand(shape, dtype)


def test_binary_ops_match_jax():
    keys = [(n, d) for n, ds in BINARY.items() for d in ds]
    cases = []
    for name, dtype in keys:
        x, y = _binary_inputs(name, dtype)
        if name in ("max", "min", "eq", "ne", "lt", "le", "gt", "ge"):
            y[0, 0] = x[0, 0]  # a tie
        cases.append((getattr(lax, name), getattr(jax.lax, name), (x, y), None))
    check_all(cases, names=[f"{n}({_dname(d)})" for n, d in keys])


def test_integer_division_and_integer_exponents_match_jax():
    x = np.array([7, -7, 0, np.iinfo(np.int32).min], I32)
    y = np.array([0, 0, 0, -1], I32)
    f = np.array([2.0, 3.0, 0.5, -2.0], F32)
    check_all([
        (lax.div, jax.lax.div, (x, y), None), (lax.rem, jax.lax.rem, (x, y), None),
        (lax.div, jax.lax.div, (np.array([7, 0], U8), np.array([0, 0], U8)), None),
        (lax.pow, jax.lax.pow, (f, np.array([3, -2, 0, 3], I32)), None),
        (lax.pow, jax.lax.pow, (f, np.array([1, 2, 3, 4], U8)), None),
        (lax.pow, jax.lax.pow, (f, np.array([2, -1, 5, 1], I64)), None),
        (lax.pow, jax.lax.pow, (f.astype(C64), np.array([2, 1, 0, 3], I32)), None),
    ])


BROADCAST_SHAPES = [((2, 3), (2, 3)), ((1, 3), (2, 3)), ((2, 1), (1, 3)), ((), (2, 3)),
                    ((2, 3), ()), ((1, 1), (4, 1)), ((), ()), ((0, 3), (1, 3))]
BROADCAST_OPS = [("add", F32), ("mul", I32), ("max", F32), ("lt", F32), ("atan2", F32),
                 ("bitwise_and", I32)]


def test_binary_broadcasting_matches_jax():
    cases, names = [], []
    for k, shapes in enumerate(BROADCAST_SHAPES):
        for name, dtype in (BROADCAST_OPS[k % 6], BROADCAST_OPS[(k + 3) % 6]):
            cases.append((getattr(lax, name), getattr(jax.lax, name),
                          (rand(shapes[0], dtype), rand(shapes[1], dtype)), None))
            names.append(f"{name}-{k}{shapes}")
    check_all(cases, names=names)


def test_clamp_and_select_match_jax():
    cases, names = [], []
    for dtype, bounds in ((F32, ((), ())), (I32, ((3,), ())), (U8, ((), (3,))),
                          (BOOL, ((3,), (3,))), (F64, ((3,), ()))):
        for lo_shape, hi_shape in (bounds,):
            a, b = rand((3,), dtype), rand((3,), dtype)
            lo, hi = np.minimum(a, b), np.maximum(a, b)
            lo, hi = (lo if lo_shape else lo[0]), (hi if hi_shape else hi[0])
            cases.append((lax.clamp, jax.lax.clamp, (lo, rand((3,), dtype), hi), None))
            names.append(f"clamp-{len(lo_shape)}{len(hi_shape)}({_dname(dtype)})")
    a, b = rand((2, 2), F32), rand((2, 2), F32)
    for pred in (np.asarray(True), RNG.random((2, 2)) < 0.5, np.array([[1, 0], [0, 1]])):
        cases.append((lax.select, jax.lax.select, (pred, a, b), None))
        names.append(f"select-{pred.dtype}{pred.ndim}")
    check_all(cases, names=names)


# ============================================================================================
# Weak types and Python scalars; elementwise errors
# ============================================================================================

def test_python_scalars_take_the_array_dtype_within_their_kind():
    x16 = fnp.array([1.0, 2.0], fnp.float16)
    out = lax.add(x16, 1.0)
    assert out.dtype == np.float16 and not out.weak_type
    np.testing.assert_array_equal(np.asarray(out), [2.0, 3.0])
    assert lax.mul(2.0, x16).dtype == np.float16
    assert lax.add(fnp.array([1, 2], fnp.uint8), 3).dtype == np.uint8
    assert lax.max(fnp.array([1.0], fnp.float64), 0.0).dtype == np.float64
    assert lax.add(fnp.array([1j], fnp.complex128), 1j).dtype == np.complex128
    assert lax.pow(x16, 2).dtype == np.float16 and lax.pow(x16, 0.5).dtype == np.float16
    # Python scalars alone: weak results of funcarray's default dtypes (jax's 32-bit mode).
    with jax.enable_x64(False):
        for name, args in (("add", (1, 2)), ("mul", (1.5, 2.0)), ("sub", (1j, 2j)),
                           ("sin", (1.0,)), ("neg", (3,))):
            got, want = getattr(lax, name)(*args), getattr(jax.lax, name)(*args)
            assert got.weak_type and want.weak_type
            assert_same(got, want)


def test_weak_arrays_adapt_under_jit_as_eagerly():
    x16 = fnp.array([1.0, 2.0], fnp.float16)
    got = fa.jit(lambda x, s: lax.add(x, s))(x16, 1.0)  # s is a weak float32 tracer
    assert got.dtype == np.float16
    np.testing.assert_array_equal(np.asarray(got), [2.0, 3.0])
    got = fa.jit(lambda s: lax.clamp(s, fnp.array([-1.0, 5.0], fnp.float64), 3.0))(0.0)
    assert got.dtype == np.float64 and np.asarray(got).tolist() == [0.0, 3.0]


MISMATCHES = [
    ("add", np.ones(2, F32), np.ones(2, I32), "float32, int32"),
    ("mul", np.ones(2, F16), np.ones(2, F32), "float16, float32"),
    ("max", np.ones(2, I32), np.ones(2, I64), "int32, int64"),
    ("atan2", np.ones(2, F32), np.ones(2, F64), "float32, float64"),
    ("eq", np.ones(2, F32), np.ones(2, C64), "float32, complex64"),
    ("shift_left", np.ones(2, U32), np.ones(2, I32), "uint32, int32"),
    ("complex", np.ones(2, F32), np.ones(2, F64), "float32, float64"),
    ("nextafter", np.ones(2, F32), np.ones(2, F64), "float32, float64"),
]


@pytest.mark.parametrize("name, x, y, dtypes_", MISMATCHES, ids=[m[0] for m in MISMATCHES])
def test_binary_dtype_mismatch_raises_like_jax(name, x, y, dtypes_):
    with pytest.raises(TypeError):
        getattr(jax.lax, name)(jnp.asarray(x), jnp.asarray(y))
    match = rf"lax\.{name}: requires arguments to have the same dtype, got {dtypes_}"
    with pytest.raises(TypeError, match=match):
        getattr(lax, name)(fnp.asarray(x), fnp.asarray(y))
    with pytest.raises(TypeError, match=match):
        fa.jit(getattr(lax, name))(fnp.asarray(x), fnp.asarray(y))


def test_python_scalars_of_another_kind_are_refused_like_jax():
    with pytest.raises(TypeError, match=r"lax\.add: .*float32, int32.*funcarray\.numpy\.add"):
        lax.add(fnp.ones(2), 1)
    with pytest.raises(TypeError, match=r"lax\.mul: .*int32, float32"):
        lax.mul(fnp.ones(2, fnp.int32), 1.5)
    with pytest.raises(TypeError, match=r"lax\.add: .*complex64, float32"):
        lax.add(fnp.ones(2, fnp.complex64), 1.0)
    with pytest.raises(TypeError, match=r"lax\.sub: .*float32, complex64"):
        lax.sub(fnp.ones(2), 1j)
    with pytest.raises(ValueError, match=r"lax\.add: the Python int 300 is out of range"):
        lax.add(fnp.ones(2, fnp.uint8), 300)


@pytest.mark.parametrize("name", ["add", "mul", "max", "eq", "bitwise_or"])
def test_binary_rank_mismatch_raises_like_jax(name):
    x, y = np.ones((3,), I32), np.ones((2, 3), I32)
    with pytest.raises(TypeError, match="same number of dimensions"):
        getattr(jax.lax, name)(jnp.asarray(x), jnp.asarray(y))
    with pytest.raises(TypeError, match=rf"lax\.{name}: arrays must have the same number of "
                                        r"dimensions.*\(3,\), \(2, 3\).*expand_dims"):
        getattr(lax, name)(fnp.asarray(x), fnp.asarray(y))
    with pytest.raises(TypeError, match=rf"lax\.{name}: got incompatible shapes for "
                                        r"broadcasting: \(2, 3\), \(3, 2\)"):
        getattr(lax, name)(fnp.ones((2, 3), fnp.int32), fnp.ones((3, 2), fnp.int32))


# Each op with a dtype jax.lax refuses: (name, args).
REFUSED = [
    ("sin", (np.ones(2, I32),)), ("exp", (np.ones(2, BOOL),)), ("floor", (np.ones(2, I32),)),
    ("floor", (np.ones(2, C64),)), ("erf", (np.ones(2, C64),)), ("lgamma", (np.ones(2, I32),)),
    ("abs", (np.ones(2, U8),)), ("neg", (np.ones(2, BOOL),)), ("sign", (np.ones(2, BOOL),)),
    ("sqrt", (np.ones(2, I32),)), ("cbrt", (np.ones(2, C64),)), ("round", (np.ones(2, I32),)),
    ("is_finite", (np.ones(2, I32),)), ("bitwise_not", (np.ones(2, F32),)),
    ("population_count", (np.ones(2, F32),)), ("clz", (np.ones(2, BOOL),)),
    ("real", (np.ones(2, F32),)), ("imag", (np.ones(2, I32),)), ("conj", (np.ones(2, I32),)),
    ("logistic", (np.ones(2, I32),)), ("reciprocal", (np.ones(2, I32),)),
    ("square", (np.ones(2, BOOL),)), ("rsqrt", (np.ones(2, I32),)), ("exp2", (np.ones(2, I32),)),
    ("add", (np.ones(2, BOOL), np.ones(2, BOOL))), ("rem", (np.ones(2, C64), np.ones(2, C64))),
    ("pow", (np.ones(2, I32), np.ones(2, I32))), ("atan2", (np.ones(2, I32), np.ones(2, I32))),
    ("lt", (np.ones(2, C64), np.ones(2, C64))), ("bitwise_and", (np.ones(2, F32),) * 2),
    ("shift_left", (np.ones(2, F32),) * 2), ("nextafter", (np.ones(2, I32),) * 2),
    ("complex", (np.ones(2, F16),) * 2), ("complex", (np.ones(2, I32),) * 2),
    ("integer_pow", (np.ones(2, BOOL), 2)),
]



@pytest.mark.parametrize("name, args", REFUSED, ids=[f"{n}-{a[0].dtype}" for n, a in REFUSED])
def test_refused_dtypes_raise_like_jax(name, args):
    with pytest.raises(TypeError):
        getattr(jax.lax, name)(*(jnp.asarray(a) if isinstance(a, np.ndarray) else a
                                 for a in args))
    fa_args = [fnp.asarray(a) if isinstance(a, np.ndarray) else a for a in args]
    with pytest.raises(TypeError, match=rf"lax\.{name}: .*{args[0].dtype}"):
        getattr(lax, name)(*fa_args)


def test_elementwise_argument_errors():
    with pytest.raises(TypeError, match=r"lax\.sin: x must be an array or a scalar, got a list"):
        lax.sin([1.0, 2.0])
    with pytest.raises(ValueError, match=r"lax\.round: rounding_method must be .*got 2"):
        lax.round(fnp.ones(2), 2)
    with pytest.raises(TypeError, match=r"lax\.integer_pow: the exponent y must be a Python "
                                        r"int, got 2\.5"):
        lax.integer_pow(fnp.ones(2), 2.5)
    with pytest.raises(TypeError, match=r"lax\.integer_pow: integers cannot be raised to "
                                        r"negative powers, got integer_pow\(i32\[2\], -1\)"):
        lax.integer_pow(fnp.ones(2, fnp.int32), -1)
    with pytest.raises(ValueError, match=r"lax\.exp: accuracy="):
        lax.exp(fnp.ones(2), accuracy="high")
    with pytest.raises(TypeError, match=r"lax\.clamp: requires min\.shape == operand\.shape "
                                        r"or min\.shape == \(\), got min\.shape=\(3,\)"):
        lax.clamp(fnp.zeros(3), fnp.ones((2, 3)), 2.0)
    with pytest.raises(TypeError, match=r"lax\.clamp: .*got int32, float32, float32"):
        lax.clamp(fnp.zeros((), fnp.int32), fnp.ones(3), 2.0)
    with pytest.raises(TypeError, match=r"lax\.select: cases must have the same shapes"):
        lax.select(fnp.array([True, False]), fnp.ones(2), 0.0)
    with pytest.raises(TypeError, match=r"lax\.select: pred must be boolean"):
        lax.select(fnp.ones(2), fnp.ones(2), fnp.zeros(2))
    with pytest.raises(TypeError, match=r"lax\.select: pred must be a scalar or have"):
        lax.select(fnp.array([True, False]), fnp.ones((2, 2)), fnp.zeros((2, 2)))
    with pytest.raises(TypeError, match=r"lax\.pow: .*same dtype, got complex64, float32"):
        lax.pow(fnp.ones(2, fnp.complex64), fnp.ones(2))


# ============================================================================================
# Conversions and shapes
# ============================================================================================

def test_conversions_match_jax():
    cases, names = [], []
    for src, dst in ((F32, I32), (F32, U8), (F64, F16), (C64, F32), (I32, BOOL), (BOOL, F32),
                     (F32, BF16), (I32, C64)):
        x = (np.array([-300.7, -1.5, -0.5, 0.0, 0.7, 2.5, 1e10, np.nan])
             if np.dtype(src).kind in "fc" else np.array([-3, 0, 1, 2]))
        cases.append((lambda v, d=dst: lax.convert_element_type(v, d),
                      lambda v, d=dst: jax.lax.convert_element_type(v, d), (x.astype(src),),
                      None))
        names.append(f"convert-{_dname(src)}-{_dname(dst)}")
    for src, dst, shape in ((F32, I32, (3,)), (F32, U8, (2,)), (U8, F32, (2, 4)),
                            (F64, I32, (3,))):
        cases.append((lambda v, d=dst: lax.bitcast_convert_type(v, d),
                      lambda v, d=dst: jax.lax.bitcast_convert_type(v, d),
                      (rand(shape, src),), None))
        names.append(f"bitcast-{_dname(src)}-{_dname(dst)}")
    with warnings.catch_warnings(), np.errstate(invalid="ignore"):
        warnings.simplefilter("ignore")  # jax warns about complex -> real
        check_all(cases, names=names)
    assert not lax.convert_element_type(1.0, F32).weak_type


SHAPE_CASES = {
    "broadcast": (lambda m: (lambda x: m.broadcast(x, (2, 1))), (3,)),
    "broadcast_in_dim": (lambda m: (lambda x: m.broadcast_in_dim(x, (4, 3, 2), (1, 0))), (3, 1)),
    "broadcast_in_dim-scalar": (lambda m: (lambda x: m.broadcast_in_dim(x, (2, 2), ())), ()),
    "reshape": (lambda m: (lambda x: m.reshape(x, (3, 2))), (2, 3)),
    "reshape-dims": (lambda m: (lambda x: m.reshape(x, (6,), (1, 0))), (2, 3)),
    "collapse": (lambda m: (lambda x: m.collapse(x, 1)), (2, 3, 4)),
    "collapse-neg": (lambda m: (lambda x: m.collapse(x, -3, -1)), (2, 3, 4)),
    "squeeze": (lambda m: (lambda x: m.squeeze(x, (0, -1))), (1, 3, 1)),
    "expand_dims": (lambda m: (lambda x: m.expand_dims(x, (0, -1, 2))), (2, 3)),
    "transpose": (lambda m: (lambda x: m.transpose(x, (2, 0, 1))), (2, 3, 4)),
    "rev": (lambda m: (lambda x: m.rev(x, (0, 2))), (2, 3, 4)),
    "pad": (lambda m: (lambda x: m.pad(x, np.float32(-1), [(1, -1, 1), (-2, 3, 0)])), (3, 4)),
    "pad-interior-only": (lambda m: (lambda x: m.pad(x, np.float32(0), [(0, 0, 2)])), (3,)),
    "concatenate": (lambda m: (lambda x: m.concatenate([x, x[:1], x], 0)), (2, 3)),
    "slice": (lambda m: (lambda x: m.slice(x, (1, 0), (3, 4), (1, 2))), (3, 4)),
    "slice-empty": (lambda m: (lambda x: m.slice(x, (2, 0), (2, 4))), (3, 4)),
    "slice_in_dim": (lambda m: (lambda x: m.slice_in_dim(x, -3, None, 2, 0)), (4, 2)),
    "slice_in_dim-axis": (lambda m: (lambda x: m.slice_in_dim(x, 1, -1, 1, -1)), (3, 4)),
    "index_in_dim": (lambda m: (lambda x: m.index_in_dim(x, -1, 1, False)), (3, 4)),
    "index_in_dim-keep": (lambda m: (lambda x: m.index_in_dim(x, 0)), (3, 4)),
    "full_like": (lambda m: (lambda x: m.full_like(x, 2)), (2, 3)),
    "full_like-dtype": (lambda m: (lambda x: m.full_like(x, 2, np.int8, (4,))), (2, 3)),
}




def test_shape_ops_match_jax():
    cases, names = [], []
    for case, (make, shape) in SHAPE_CASES.items():
        for dtype in (F32, I32):
            if case.startswith("pad") and dtype == I32:
                continue  # the padding value is float32
            cases.append((make(lax), make(jax.lax), (rand(shape, dtype),), None))
            names.append(f"{case}({_dname(dtype)})")
    check_all(cases, names=names)


def test_creation_ops_match_jax():
    cases, names = [], []
    for dtype in (I32, F32, C64, U8, F16):
        cases.append((lambda d=dtype: lax.iota(d, 5), lambda d=dtype: jax.lax.iota(d, 5), (),
                      None))
        names.append(f"iota({_dname(dtype)})")
        for dim in (0, 1, 2):
            cases.append((lambda d=dtype, k=dim: lax.broadcasted_iota(d, (2, 3, 2), k),
                          lambda d=dtype, k=dim: jax.lax.broadcasted_iota(d, (2, 3, 2), k), (),
                          None))
            names.append(f"broadcasted_iota({_dname(dtype)}, {dim})")
    cases += [
        (lambda: lax.full((2, 3), np.float32(1.5)), lambda: jax.lax.full((2, 3), np.float32(1.5)),
         (), None),
        (lambda: lax.full((2,), 2.7, I32), lambda: jax.lax.full((2,), 2.7, I32), (), None),
        (lambda: lax.full((), True), lambda: jax.lax.full((), True), (), None),
        (lambda: lax.zeros_like_array(fnp.ones((2, 3), fnp.int8)),
         lambda: jnp.zeros_like(jnp.ones((2, 3), jnp.int8)), (), None),
    ]
    names += ["full(f32)", "full(int32 of 2.7)", "full(bool)", "zeros_like_array"]
    check_all(cases, names=names)
    assert lax.full((2,), 1.5).weak_type and not lax.full((2,), 1.5, F32).weak_type
    weak = lax.full_like(lax.full((), 1.0), 2.0)
    assert weak.weak_type and weak.dtype == np.float32
    assert not lax.full_like(lax.full((), 1.0), 2.0, F32).weak_type


@pytest.mark.parametrize("call, exc, match", [
    (lambda: lax.broadcast_in_dim(fnp.ones((3, 4)), (3, 5), (0, 1)), TypeError,
     r"lax\.broadcast_in_dim: cannot broadcast f32\[3,4\] to \(3, 5\)"),
    (lambda: lax.broadcast_in_dim(fnp.ones((3, 4)), (2, 3, 4), (-2, -1)), TypeError,
     r"lax\.broadcast_in_dim: broadcast_dimensions=\(-2, -1\) must be non-negative"),
    (lambda: lax.broadcast_in_dim(fnp.ones(3), (3,), (0, 1)), TypeError,
     r"needs one entry per dimension of operand f32\[3\]"),
    (lambda: lax.broadcast(fnp.ones(3), (-2,)), ValueError, r"lax\.broadcast: sizes=\(-2,\)"),
    (lambda: lax.reshape(fnp.ones((3, 4)), (-1, 6)), ValueError,
     r"lax\.reshape: new_sizes=\(-1, 6\) must be non-negative"),
    (lambda: lax.reshape(fnp.ones((3, 4)), (5,)), ValueError,
     r"lax\.reshape: cannot reshape f32\[3,4\] \(12 elements\) to \(5,\)"),
    (lambda: lax.reshape(fnp.ones((3, 4)), (12,), (0, 0)), ValueError,
     r"dimensions=\(0, 0\) must be a permutation"),
    (lambda: lax.squeeze(fnp.ones((1, 3)), (1,)), ValueError, r"lax\.squeeze: cannot squeeze"),
    (lambda: lax.squeeze(fnp.ones((1, 3)), (0, 0)), ValueError, "not unique"),
    (lambda: lax.squeeze(fnp.ones((1, 3)), (2,)), ValueError, r"axis 2 is out of bounds"),
    (lambda: lax.expand_dims(fnp.ones(3), (0, 0)), ValueError, "repeated axis"),
    (lambda: lax.expand_dims(fnp.ones(3), (3,)), ValueError, r"axis 3 is out of bounds"),
    (lambda: lax.transpose(fnp.ones((3, 4)), (-1, 0)), ValueError,
     r"lax\.transpose: permutation=\(-1, 0\) is not a permutation .* f32\[3,4\]"),
    (lambda: lax.rev(fnp.ones((3, 4)), (-1,)), ValueError,
     r"lax\.rev: dimensions=\(-1,\) must be non-negative.*write \(1,\)"),
    (lambda: lax.rev(fnp.ones((3, 4)), (0, 0)), ValueError, "repeated dimension"),
    (lambda: lax.rev(fnp.ones((3, 4)), (2,)), ValueError, r"out of range .*valid: 0 to 1"),
    (lambda: lax.pad(fnp.ones((3, 4)), 0.0, [(1, -1, -1), (0, 0, 0)]), ValueError,
     "interior padding in padding_config must be non-negative"),
    (lambda: lax.pad(fnp.ones((3, 4)), 0, [(1, 1, 1), (0, 0, 0)]), TypeError,
     r"lax\.pad: requires arguments to have the same dtype, got float32, int32"),
    (lambda: lax.pad(fnp.ones((3, 4)), fnp.zeros(2), [(1, 1, 1), (0, 0, 0)]), ValueError,
     r"padding_value must be a scalar"),
    (lambda: lax.pad(fnp.ones((3, 4)), 0.0, [(1, 1, 1)]), ValueError,
     r"padding_config needs one \(low, high, interior\) triple per dimension"),
    (lambda: lax.pad(fnp.ones((3, 4)), 0.0, [(-5, 0, 0), (0, 0, 0)]), ValueError,
     r"result shape \(-2, 4\)"),
    (lambda: lax.concatenate([fnp.ones(2)], -1), ValueError,
     r"lax\.concatenate: dimension -1 is out of bounds"),
    (lambda: lax.concatenate([fnp.ones(2), fnp.ones(2, fnp.int32)], 0), TypeError,
     r"same dtype, got f32\[2\], i32\[2\]"),
    (lambda: lax.concatenate([], 0), ValueError, "non-empty"),
    (lambda: lax.concatenate([fnp.ones((3, 4)), fnp.ones((4, 3))], 0), TypeError,
     r"shapes differ in dimensions other than 0"),
    (lambda: lax.iota(fnp.bool_, 3), TypeError, r"lax\.iota: does not accept dtype bool"),
    (lambda: lax.iota(fnp.int32, -1), ValueError, "size must be non-negative"),
    (lambda: lax.broadcasted_iota(fnp.int32, (2, 3), -1), ValueError,
     r"dimension must be between 0 and len\(shape\) - 1, got dimension=-1"),
    (lambda: lax.full((2,), fnp.ones(2)), TypeError, r"lax\.full: fill_value must be a scalar"),
    (lambda: lax.full((-2,), 1.0), ValueError, r"lax\.full: shape=\(-2,\)"),
    (lambda: lax.full(3, 1.0), TypeError, r"lax\.full: shape must be a sequence of ints"),
    (lambda: lax.slice(fnp.ones((3, 4)), (-1, 0), (3, 4)), ValueError,
     r"lax\.slice: start_indices=\(-1, 0\) .* 0 <= start <= limit <= size"),
    (lambda: lax.slice(fnp.ones((3, 4)), (0,), (3,)), ValueError,
     r"start_indices=\(0,\) needs one entry per dimension"),
    (lambda: lax.slice(fnp.ones((3, 4)), (0, 0), (3, 4), (0, 1)), ValueError,
     r"strides=\(0, 1\) must all be positive"),
    (lambda: lax.slice(fnp.ones((3, 4)), (2, 0), (1, 4)), ValueError, "start <= limit"),
    (lambda: lax.slice_in_dim(fnp.ones((3, 4)), 1, 9, 1, 1), ValueError,
     r"limit_indices=\(3, 9\)"),
    (lambda: lax.slice_in_dim(fnp.ones((3, 4)), 0, 1, 1, 2), ValueError, "axis 2 is out"),
    (lambda: lax.index_in_dim(fnp.ones((3, 4)), 4, 1), IndexError,
     r"lax\.index_in_dim: index 4 is out of bounds for axis 1 with size 4"),
    (lambda: lax.convert_element_type(fnp.ones(2), "float128"), TypeError,
     r"lax\.convert_element_type: new_dtype"),
    (lambda: lax.bitcast_convert_type(fnp.ones(3, fnp.uint8), fnp.float32), TypeError,
     r"lax\.bitcast_convert_type: .*needs a last dimension of 4"),
])
def test_shape_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


# ============================================================================================
# dynamic_slice and friends: clamping, negative and traced indices
# ============================================================================================

X34 = np.arange(12, dtype=F32).reshape(3, 4)
SLICE_SIZES = [(0, 1), (2, 4), (1, 3)]


def _ds(x, i, j, n, m, allow):
    return lax.dynamic_slice(x, (i, j), (n, m), allow_negative_indices=allow)


# One compilation per (sizes, allow_negative_indices), reused by every example.
_DS_JIT = fa.jit(_ds, static_argnums=(3, 4, 5))
_DS_ARRAY_JIT = fa.jit(lambda x, ij, n, m: lax.dynamic_slice(x, ij, (n, m)),
                       static_argnums=(2, 3))
_DUS_JIT = fa.jit(lambda x, u, i, j: lax.dynamic_update_slice(x, u, (i, j)))


@settings(max_examples=15)
@given(st.integers(-9, 9), st.integers(-9, 9), st.sampled_from(SLICE_SIZES), st.booleans())
def test_dynamic_slice_clamps_like_jax(i, j, sizes, allow_negative):
    if not allow_negative:
        i, j = abs(i), abs(j)
    n, m = sizes
    want = jax.lax.dynamic_slice(jnp.asarray(X34), (i, j), (n, m),
                                 allow_negative_indices=allow_negative)
    x = fnp.asarray(X34)
    assert_same(_ds(x, i, j, n, m, allow_negative), want, where="static ints")
    assert_same(lax.dynamic_slice(x, np.array([i, j]), (n, m),
                                  allow_negative_indices=allow_negative), want, where="ndarray")
    for dtype in (fnp.int32, fnp.int64):
        assert_same(_DS_JIT(x, dtype(i), dtype(j), n, m, allow_negative), want,
                    where=f"traced {dtype}")
    if allow_negative:
        assert_same(_DS_ARRAY_JIT(x, fnp.array([i, j]), n, m), want, where="traced array")


@settings(max_examples=15)
@given(st.integers(-9, 9), st.integers(-9, 9))
def test_dynamic_update_slice_clamps_like_jax(i, j):
    update = -np.arange(1, 7, dtype=F32).reshape(2, 3)
    want = jax.lax.dynamic_update_slice(jnp.asarray(X34), jnp.asarray(update), (i, j))
    x, u = fnp.asarray(X34), fnp.asarray(update)
    assert_same(lax.dynamic_update_slice(x, u, (i, j)), want, where="static ints")
    assert_same(_DUS_JIT(x, u, fnp.int32(i), fnp.int32(j)), want, where="traced")
    want_unsigned = jax.lax.dynamic_update_slice(jnp.asarray(X34), jnp.asarray(update),
                                                 (abs(i), abs(j)))
    assert_same(_DUS_JIT(x, u, fnp.uint8(abs(i)), fnp.uint8(abs(j))), want_unsigned,
                where="traced uint8")


IN_DIM_CASES = {
    "dynamic_slice_in_dim": lambda m, v, s: m.dynamic_slice_in_dim(v, s, 2, axis=1),
    "dynamic_slice_in_dim(axis=-2)": lambda m, v, s: m.dynamic_slice_in_dim(v, s, 2, -2),
    "dynamic_index_in_dim": lambda m, v, s: m.dynamic_index_in_dim(v, s, 1, False),
    "dynamic_index_in_dim(keepdims)": lambda m, v, s: m.dynamic_index_in_dim(v, s),
    "dynamic_update_slice_in_dim":
        lambda m, v, s: m.dynamic_update_slice_in_dim(v, v[:, :2] * 0 - 1, s, 1),
    "dynamic_update_index_in_dim":
        lambda m, v, s: m.dynamic_update_index_in_dim(v, v[0] * 0 - 1, s, 0),
    "dynamic_update_index_in_dim(keepdims)":
        lambda m, v, s: m.dynamic_update_index_in_dim(v, v[:, :1] * 0 - 1, s, 1),
}


def test_dynamic_in_dim_helpers_match_jax():
    x = rand((3, 5), F32)
    jx, fx = jnp.asarray(x), fnp.asarray(x)
    starts, traced_starts = (-7, -2, 0, 1, 3, 9), (-7, 1, 9)
    jitted = fa.jit(lambda v, ss: [[f(lax, v, s) for s in ss] for f in IN_DIM_CASES.values()])
    traced = jitted(fx, [fnp.int32(s) for s in traced_starts])
    for (name, f), results in zip(IN_DIM_CASES.items(), traced):
        for s in starts:
            assert_same(f(lax, fx, s), f(jax.lax, jx, s), where=f"{name} at {s}")
        for s, got in zip(traced_starts, results):
            assert_same(got, f(jax.lax, jx, s), where=f"{name} at traced {s}")


def _loop_body(m, x, dtype):
    def step(i, acc):
        i = m.convert_element_type(i, dtype)
        a = m.dynamic_slice(x, (i - 2, 2 * i - 3), (2, 3))
        upd = m.dynamic_update_slice(acc, a * 0 + m.convert_element_type(i, acc.dtype),
                                     (i, i - 1))
        return upd + m.dynamic_index_in_dim(x, i + 2, 0)[0, :1] * 0 + a[0, 0]
    return step


def test_dynamic_slice_with_traced_index_inside_fori_loop_matches_jax():
    x = rand((4, 6), F32)
    for dtype in (I32, I64):
        want = jax.jit(lambda z: jax.lax.fori_loop(
            0, 7, _loop_body(jax.lax, jnp.asarray(x), dtype), z))(jnp.zeros((4, 6), F32))
        body = _loop_body(lax, fnp.asarray(x), dtype)
        assert_same(lax.fori_loop(0, 7, body, fnp.zeros((4, 6), fnp.float32)), want,
                    where="eager loop")
        assert_same(fa.jit(lambda z: lax.fori_loop(0, 7, body, z))(
            fnp.zeros((4, 6), fnp.float32)), want, where="jitted loop")


def test_dynamic_slice_static_index_beyond_int32_is_clamped():
    want = jax.lax.dynamic_slice(jnp.asarray(X34), (2**40, -2**40), (2, 2))
    assert_same(lax.dynamic_slice(fnp.asarray(X34), (2**40, -2**40), (2, 2)), want)


def test_dynamic_update_slice_takes_a_weak_update_of_the_operand_kind():
    out = lax.dynamic_update_slice(fnp.zeros(3, fnp.float16), fnp.ones(1, fnp.float16) * 2.0,
                                   (1,))
    assert out.dtype == np.float16
    assert lax.dynamic_update_slice(fnp.zeros((), fnp.float64), 2.0, ()).tolist() == 2.0


@pytest.mark.parametrize("call, exc, match", [
    (lambda: lax.dynamic_slice(fnp.ones((3, 4)), (1, 1, 1), (2, 2)), ValueError,
     r"lax\.dynamic_slice: slice_sizes=\(2, 2\)|needs one start index per operand dimension"),
    (lambda: lax.dynamic_slice(fnp.ones((3, 4)), (1, 1, 1), (2, 2, 1)), ValueError,
     r"slice_sizes=\(2, 2, 1\) must give one size"),
    (lambda: lax.dynamic_slice(fnp.ones((3, 4)), (1, 1), (4, 2)), ValueError,
     r"lax\.dynamic_slice: slice_sizes=\(4, 2\) must give one size in \[0, dim\] per "
     r"dimension of operand f32\[3,4\]"),
    (lambda: lax.dynamic_slice(fnp.ones((3, 4)), (1,), (2, 2)), ValueError,
     r"needs one start index per operand dimension \(2\), got 1"),
    (lambda: lax.dynamic_slice(fnp.ones((3, 4)), (1.0, 0), (2, 2)), TypeError,
     r"start indices must be integer scalars, got f32\[\]"),
    (lambda: lax.dynamic_slice(fnp.ones((3, 4)), (fnp.ones(2, fnp.int32), 1), (2, 2)),
     TypeError, r"start indices must be integer scalars, got i32\[2\]"),
    (lambda: lax.dynamic_slice(fnp.ones((3, 4)), fnp.ones((2, 1), fnp.int32), (2, 2)),
     TypeError, r"start_indices must be a 1-D integer sequence, got i32\[2,1\]"),
    (lambda: lax.dynamic_slice(fnp.ones((3, 4)), (-1, 0), (2, 2),
                               allow_negative_indices=False), IndexError,
     r"index -1 is out of bounds .* allow_negative_indices=False"),
    (lambda: lax.dynamic_update_slice(fnp.ones((3, 4)), fnp.ones((2, 2), fnp.int32), (0, 0)),
     TypeError, r"lax\.dynamic_update_slice: requires arguments to have the same dtype, got "
                r"float32, int32"),
    (lambda: lax.dynamic_update_slice(fnp.ones((3, 4)), fnp.ones(2), (0, 0)), TypeError,
     r"update must have the rank of the operand, got update f32\[2\] for operand f32\[3,4\]"),
    (lambda: lax.dynamic_update_slice(fnp.ones((3, 4)), fnp.ones((4, 2)), (0, 0)), TypeError,
     r"update f32\[4,2\] must fit inside operand f32\[3,4\]"),
    (lambda: lax.dynamic_slice_in_dim(fnp.ones((3, 4)), 1, 2, axis=5), ValueError,
     r"lax\.dynamic_slice_in_dim: axis 5 is out of bounds"),
    (lambda: lax.dynamic_update_index_in_dim(fnp.ones((3, 4)), fnp.ones(()), 0, 0), TypeError,
     r"update f32\[\] must have the rank of operand f32\[3,4\] or one less"),
])
def test_dynamic_slice_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()
    with pytest.raises(exc, match=match):  # the same error while tracing
        fa.jit(lambda: call())()


# ============================================================================================
# gather / scatter
# ============================================================================================

GDN = dict(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,))
SDN = dict(update_window_dims=(1,), inserted_window_dims=(0,),
           scatter_dims_to_operand_dims=(0,))


def test_gather_and_scatters_match_jax():
    x, updates = rand((5, 3), F32), rand((5, 3), F32)
    out_of_bounds = np.array([[4], [0], [7], [-1], [2]], I32)
    cases, names = [], []
    for mode, jax_mode in ((None, None), ("clip", "clip"), ("fill", "fill"),
                           (jax.lax.GatherScatterMode.CLIP, "clip"),
                           (lax.GatherScatterMode.FILL_OR_DROP, "fill"),
                           (lax.GatherScatterMode.PROMISE_IN_BOUNDS, "promise_in_bounds")):
        cases.append((lambda v, i, m=mode: lax.gather(v, i, lax.GatherDimensionNumbers(**GDN),
                                                      (1, 3), mode=m),
                      lambda v, i, m=jax_mode: jax.lax.gather(
                          v, i, jax.lax.GatherDimensionNumbers(**GDN), (1, 3), mode=m),
                      (x, out_of_bounds), None))
        names.append(f"gather[{mode}]")
    repeated = np.array([[4], [0], [7], [0], [2]], I32)
    for name in ("scatter_add", "scatter_mul", "scatter_min", "scatter_max"):
        for mode in (None, "clip"):
            cases.append((lambda v, i, u, n=name, m=mode: getattr(lax, n)(
                              v, i, u, lax.ScatterDimensionNumbers(**SDN), mode=m),
                          lambda v, i, u, n=name, m=mode: getattr(jax.lax, n)(
                              v, i, u, jax.lax.ScatterDimensionNumbers(**SDN), mode=m),
                          (x, repeated, updates), None))
            names.append(f"{name}[{mode}]")
    unique = np.array([[4], [0], [7], [1], [2]], I32)
    cases.append((lambda v, i, u: lax.scatter(v, i, u, jax.lax.ScatterDimensionNumbers(**SDN)),
                  lambda v, i, u: jax.lax.scatter(v, i, u,
                                                  jax.lax.ScatterDimensionNumbers(**SDN)),
                  (x, unique, updates), None))
    names.append("scatter")
    check_all(cases, names=names)


def test_gather_and_scatter_errors():
    x, idx = fnp.asarray(rand((5, 3), F32)), fnp.array([[4], [0]], fnp.int32)
    with pytest.raises(ValueError, match=r"lax\.gather: unknown mode 'one_hot'"):
        lax.gather(x, idx, lax.GatherDimensionNumbers(**GDN), (1, 3), mode="one_hot")
    with pytest.raises(TypeError, match=r"lax\.gather: .*slice_sizes"):
        lax.gather(x, idx, lax.GatherDimensionNumbers(**GDN), (9, 3))
    with pytest.raises(TypeError, match=r"lax\.gather: dimension_numbers must be a "
                                        r"lax\.GatherDimensionNumbers"):
        lax.gather(x, idx, ((1,), (0,)), (1, 3))
    with pytest.raises(TypeError, match=r"lax\.scatter_add: requires arguments to have the "
                                        r"same dtype, got float32, int32"):
        lax.scatter_add(x, idx, fnp.ones((2, 3), fnp.int32), lax.ScatterDimensionNumbers(**SDN))


# ============================================================================================
# Reductions, scans, sorting
# ============================================================================================

REDUCTIONS = {
    "reduce_sum": (F32, I32, C64), "reduce_prod": (I32,), "reduce_max": (F32, BOOL, C64),
    "reduce_min": (U8,), "reduce_and": (BOOL, I32), "reduce_or": (U8,), "reduce_xor": (BOOL,),
}
AXES = ((2, 0), (1,), (), (0, 1, 2))
SCANS = {"cumsum": (F32, I32, C64), "cumprod": (F32,), "cummax": (I32, U8),
         "cummin": (F32, I8), "cumlogsumexp": (F32, F64)}


def test_reductions_and_scans_match_jax():
    cases, names = [], []
    for name, dtypes_ in REDUCTIONS.items():
        for k, dtype in enumerate(dtypes_):
            x = rand((2, 3, 2), dtype, -1.5, 1.5)
            for axes in AXES[k % 2::2] if len(dtypes_) > 1 else AXES:
                cases.append((lambda v, n=name, a=axes: getattr(lax, n)(v, a),
                              lambda v, n=name, a=axes: getattr(jax.lax, n)(v, a), (x,),
                              _sum_tol(dtype)))
                names.append(f"{name}({_dname(dtype)}, {axes})")
        empty = np.zeros((0, 2), I32 if name in ("reduce_and", "reduce_or", "reduce_xor")
                         else F32)
        cases.append((lambda v, n=name: getattr(lax, n)(v, (0,)),
                      lambda v, n=name: getattr(jax.lax, n)(v, (0,)), (empty,), None))
        names.append(f"{name}(empty)")
    for name in ("argmax", "argmin"):
        for dtype, axis, index_dtype in ((F32, 1, I32), (I32, 0, U8), (BOOL, 1, I32)):
            x = rand((3, 4), dtype)
            x[1, 1] = x[1, 2]  # ties go to the first index
            cases.append((lambda v, n=name, a=axis, d=index_dtype: getattr(lax, n)(v, a, d),
                          lambda v, n=name, a=axis, d=index_dtype:
                          getattr(jax.lax, n)(v, a, d), (x,), None))
            names.append(f"{name}({_dname(dtype)}, {axis}, {_dname(index_dtype)})")
        cases.append((lambda v, n=name: getattr(lax, n)(v, 0, I32),
                      lambda v, n=name: getattr(jax.lax, n)(v, 0, I32),
                      (np.array([1.0, np.nan, 3.0, np.nan], F32),), None))
        names.append(f"{name}(NaN)")
    for name, dtypes_ in SCANS.items():
        for k, dtype in enumerate(dtypes_):
            x = rand((3, 4), dtype, -1.5, 1.5)
            for axis, reverse in ((0, False), (1, True)) if k == 0 else ((k % 2, k % 2 == 0),):
                cases.append((lambda v, n=name, a=axis, r=reverse: getattr(lax, n)(v, a, r),
                              lambda v, n=name, a=axis, r=reverse:
                              getattr(jax.lax, n)(v, a, r), (x,), _sum_tol(dtype)))
                names.append(f"{name}{'-reverse' if reverse else ''}({_dname(dtype)}, {axis})")
    check_all(cases, names=names)


def test_sort_matches_jax():
    x = np.array([[3.0, np.nan, -1.0, 2.0], [0.0, -0.0, 5.0, 5.0]], F32)
    keys = np.array([[2, 1, 2, 1], [0, 0, 1, 1]], I32)
    vals = rand((2, 4), F32)
    cases = [(lambda v, d=dim: lax.sort(v, dimension=d),
              lambda v, d=dim: jax.lax.sort(v, dimension=d), (x,), None) for dim in (-1, 0, 1)]
    cases += [
        (lambda k, v: lax.sort((k, v), num_keys=1), lambda k, v: jax.lax.sort((k, v)),
         (keys, vals), None),
        (lambda k, v: lax.sort([k, v], num_keys=2),
         lambda k, v: jax.lax.sort([k, v], num_keys=2), (keys, vals), None),
        (lax.sort_key_val, jax.lax.sort_key_val, (keys, vals), None),
        (lambda v: lax.sort([v]), lambda v: jax.lax.sort([v]), (x,), None),
        (lambda v: lax.sort(v, is_stable=False), lambda v: jax.lax.sort(v, is_stable=False),
         (x[0],), None),
    ]
    check_all(cases)


@pytest.mark.parametrize("call, exc, match", [
    (lambda: lax.reduce_sum(fnp.ones((3, 4)), (-1,)), ValueError,
     r"lax\.reduce_sum: axes=\(-1,\) must be non-negative of operand f32\[3,4\].*\(1,\)"),
    (lambda: lax.reduce_sum(fnp.ones((3, 4)), (1, 1)), ValueError, "repeated dimension"),
    (lambda: lax.reduce_sum(fnp.ones((3, 4)), (2,)), ValueError, "out of range"),
    (lambda: lax.reduce_sum(fnp.ones((3, 4)), 1), TypeError, r"write \(1,\)"),
    (lambda: lax.reduce_sum(fnp.ones(3, fnp.bool_), (0,)), TypeError,
     r"lax\.reduce_sum: does not accept dtype bool"),
    (lambda: lax.reduce_and(fnp.ones(3), (0,)), TypeError,
     r"lax\.reduce_and: does not accept dtype float32"),
    (lambda: lax.argmax(fnp.ones((3, 4)), -1, fnp.int32), ValueError,
     r"lax\.argmax: axis=-1 must be non-negative for operand f32\[3,4\].*write 1"),
    (lambda: lax.argmax(fnp.ones((3, 4)), 1, fnp.float32), TypeError,
     r"index_dtype must be an integer type, got float32"),
    (lambda: lax.argmax(fnp.ones(3, fnp.complex64), 0, fnp.int32), TypeError,
     r"lax\.argmax: does not accept dtype complex64"),
    (lambda: lax.argmin(fnp.ones((0, 3)), 0, fnp.int32), ValueError,
     r"requires a non-empty reduced dimension"),
    (lambda: lax.cumsum(fnp.ones((3, 4)), -1), ValueError,
     r"lax\.cumsum: axis=-1 must be non-negative"),
    (lambda: lax.cumsum(fnp.ones((3, 4)), 2), ValueError, "out of range"),
    (lambda: lax.cummax(fnp.ones(3, fnp.bool_)), TypeError, "does not accept dtype bool"),
    (lambda: lax.cumlogsumexp(fnp.ones(3, fnp.int32)), TypeError, "does not accept dtype int32"),
    (lambda: lax.sort(fnp.ones(3), num_keys=2), ValueError,
     r"num_keys=2 must equal 1 for a single operand"),
    (lambda: lax.sort((fnp.ones(3), fnp.ones(2))), TypeError, r"share one shape"),
    (lambda: lax.sort((fnp.ones(3),), num_keys=2), ValueError, "between 1 and"),
])
def test_reduction_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


# ============================================================================================
# Products
# ============================================================================================

DOT_GENERAL_CASES = [
    ((((1,), (1,)), ((), ())), ((3, 4), (5, 4))),
    ((((2,), (1,)), ((0,), (0,))), ((2, 3, 4), (2, 4, 5))),
    ((((1, 2), (0, 2)), ((), ())), ((2, 3, 4), (3, 5, 4))),
    ((((), ()), ((), ())), ((2,), (3,))),
    (([[2], [1]], [[0], [0]]), ((2, 3, 4), (2, 4, 5))),
]


# Sums of products cancel: an absolute tolerance tied to the accumulation dtype as well.
SUM_TOL = {np.dtype(F32): (1e-5, 1e-5), np.dtype(F64): (1e-12, 1e-12),
           np.dtype(F16): (2e-3, 2e-2), np.dtype(BF16): (1.6e-2, 5e-2),
           np.dtype(C64): (1e-5, 1e-5)}


def _sum_tol(*dtypes_):
    tols = [SUM_TOL.get(np.dtype(d)) for d in dtypes_]
    return max((t for t in tols if t), default=None)


def test_products_match_jax():
    cases, names = [], []
    for shapes in (((3, 4), (4,)), ((4,), (4,)), ((3,), (3, 4)), ((2, 3), (3, 5))):
        cases.append((lax.dot, jax.lax.dot, (rand(shapes[0], F32), rand(shapes[1], F32)),
                      _sum_tol(F32)))
        names.append(f"dot-{len(shapes[0])}{len(shapes[1])}{shapes}")
    a, b = rand((2, 3), F32), rand((3, 2), F32)
    cases.append((lambda x, y: lax.dot(x, y, precision=lax.Precision.HIGHEST),
                  lambda x, y: jax.lax.dot(x, y, precision=jax.lax.Precision.HIGHEST),
                  (a, b), _sum_tol(F32)))
    cases.append((lambda x, y: lax.dot(x, y, precision=(jax.lax.Precision.DEFAULT, "high")),
                  lambda x, y: jax.lax.dot(x, y, precision="highest"), (a, b),
                  _sum_tol(F32)))
    names += ["dot-HIGHEST", "dot-DEFAULT-high"]
    for dn, shapes in DOT_GENERAL_CASES:
        cases.append((lambda x, y, dn=dn: lax.dot_general(x, y, dn),
                      lambda x, y, dn=dn: jax.lax.dot_general(x, y, dn),
                      (rand(shapes[0], F32), rand(shapes[1], F32)), _sum_tol(F32)))
        names.append(f"dot_general({dn})")
    dn = (((1,), (0,)), ((), ()))
    for da, db in ((F64, F32), (F32, I32), (I8, I32), (U8, I8), (F32, C64), (BF16, F16),
                   (I32, U32)):
        cases.append((lambda x, y: lax.dot_general(x, y, dn),
                      lambda x, y: jax.lax.dot_general(x, y, dn),
                      (rand((2, 3), da), rand((3, 2), db)), _sum_tol(da, db)))
        names.append(f"dot_general-{_dname(da)}-{_dname(db)}")
    for operand, preferred in ((I8, I32), (F64, F32), (F64, I32), (F16, F32), (BF16, F32),
                               (I32, F32), (F32, C64)):
        a, b = rand((2, 3), operand), rand((3, 2), operand)
        if np.dtype(preferred).kind in "iu":
            a, b = np.round(a), np.round(b)  # an exact sum: no truncation at a boundary
        cases.append((lambda x, y, p=preferred: lax.dot(x, y, preferred_element_type=p),
                      lambda x, y, p=preferred: jax.lax.dot(x, y, preferred_element_type=p),
                      (a, b),
                      _sum_tol(operand, preferred)))
        names.append(f"dot-{_dname(operand)}-to-{_dname(preferred)}")
    for shapes in (((2, 3, 4), (2, 4, 5)), ((3, 4), (4, 5)), ((2, 1, 3, 4), (2, 1, 4, 2))):
        cases.append((lax.batch_matmul, jax.lax.batch_matmul,
                      (rand(shapes[0], F32), rand(shapes[1], F32)), _sum_tol(F32)))
        names.append(f"batch_matmul{shapes}")
    check_all(cases, names=names)


@pytest.mark.parametrize("call, exc, match", [
    (lambda: lax.dot(fnp.ones((2, 3, 4)), fnp.ones((4, 2))), ValueError,
     r"lax\.dot: dimension_numbers must be given .* got lhs f32\[2,3,4\], rhs f32\[4,2\]"),
    (lambda: lax.dot(fnp.ones((3, 4)), fnp.ones((3, 4))), ValueError,
     r"lax\.dot: dimension_numbers must be given"),
    (lambda: lax.dot_general(fnp.ones((3, 4)), fnp.ones((3, 4)), (((-1,), (1,)), ((), ()))),
     ValueError, r"lhs dimension numbers \(-1,\) must be non-negative"),
    (lambda: lax.dot_general(fnp.ones((3, 4)), fnp.ones((3, 4)), (((0,), (1,)), ((), ()))),
     TypeError, r"lax\.dot_general: contracting dimensions must have equal sizes, got \(3,\) "
                r"\(lhs\) and \(4,\) \(rhs\)"),
    (lambda: lax.dot_general(fnp.ones((3, 4)), fnp.ones((3, 4)), ((1,), (1,))), TypeError,
     r"dimension_numbers must be \(\(lhs_contracting"),
    (lambda: lax.dot(fnp.ones(3), fnp.ones(3), precision="fastest-ever"), ValueError,
     r"precision must be None"),
    (lambda: lax.dot(fnp.ones(3, fnp.int32), fnp.ones(3, fnp.int32), preferred_element_type=I8),
     TypeError, r"lax\.dot: preferred_element_type must not be narrower"),
    (lambda: lax.batch_matmul(fnp.ones((2, 3, 4)), fnp.ones((4, 5))), ValueError,
     r"lax\.batch_matmul: arguments must have the same rank"),
    (lambda: lax.batch_matmul(fnp.ones((2, 3, 4)), fnp.ones((3, 4, 5))), ValueError,
     r"batch dimensions must be equal"),
])
def test_product_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


# ============================================================================================
# Gradients against jax.grad, vmap against a Python loop
# ============================================================================================

GRAD_UNARY = ["neg", "exp", "exp2", "expm1", "log", "log1p", "sin", "cos", "tan", "asin",
              "atan", "sinh", "cosh", "tanh", "asinh", "sqrt", "rsqrt", "cbrt", "logistic",
              "square", "reciprocal", "abs", "erf", "erfc", "erf_inv", "lgamma", "digamma",
              "sign", "floor", "ceil", "round", "acos", "acosh", "atanh"]
GRAD_BINARY = ["add", "sub", "mul", "div", "pow", "atan2", "max", "min", "rem"]


def _unary_grad_case(name):
    lo, hi = UNARY[name][1] if name in UNARY else (-1, 1)
    return (lambda m: getattr(m, name)), [rand((5,), F64, lo, hi)]


def _binary_grad_case(name):
    x, y = rand((2, 3), F64, 0.5, 2), rand((1, 3), F64, 0.5, 2)
    if name in ("max", "min"):
        y[0, 1] = x[0, 1]  # a tie: jax's convention splits the gradient
    return (lambda m: getattr(m, name)), [x, y]


def _grad_check_all(cases, rtol=1e-9):
    """``grad`` of ``sum_k sum(f_k(*args_k) * w_k)`` (fixed random ``w_k``) with respect to
    every argument, in one ``jax.jit(jax.grad)`` and one eager ``fa.grad``."""
    names = list(cases)
    args = [[np.asarray(a) for a in cases[n][1]] for n in names]
    outs = [jax.eval_shape(cases[n][0](jax.lax), *a) for n, a in zip(names, args)]
    weights = [rand(o.shape, F64, 0.5, 1.5) for o in outs]

    def total(m, sum_, asarray, all_args):
        return sum(sum_(cases[n][0](m)(*a) * asarray(w))
                   for n, a, w in zip(names, all_args, weights))

    want = jax.jit(jax.grad(lambda a: total(jax.lax, jnp.sum, jnp.asarray, a)))(
        [[jnp.asarray(x) for x in a] for a in args])
    got = fa.grad(lambda a: total(lax, fnp.sum, fnp.asarray, a))(
        [[fnp.asarray(x) for x in a] for a in args])
    for name, g_args, w_args in zip(names, got, want):
        for k, (g, w) in enumerate(zip(g_args, w_args)):
            assert_same(g, w, rtol=rtol, atol=1e-12, where=f"d {name} / d arg {k}")


def test_elementwise_grads_match_jax():
    cases = {n: _unary_grad_case(n) for n in GRAD_UNARY}
    cases.update({n: _binary_grad_case(n) for n in GRAD_BINARY})
    for name in GRAD_BINARY:
        x = rand((2, 3), F64, 0.5, 2)
        cases[f"{name}(x, 1.5)"] = ((lambda m, n=name: lambda a: getattr(m, n)(a, 1.5)), [x])
    _grad_check_all(cases)


GRAD_CASES = {
    "integer_pow": (lambda m: (lambda x: m.integer_pow(x, -3)), [(2, 3)]),
    "clamp": (lambda m: (lambda lo, x: m.clamp(lo, x, np.float64(1.0))), [(3,), (3,)]),
    "select": (lambda m: (lambda a, b: m.select(a > b, a, b)), [(2, 3), (2, 3)]),
    "convert": (lambda m: (lambda x: m.convert_element_type(x, F32) * 2), [(3,)]),
    "complex-real-imag": (lambda m: (lambda x, y: m.real(m.complex(x, y) * m.complex(y, x))
                                     + m.imag(m.conj(m.complex(x, y)))), [(3,), (3,)]),
    "broadcast_in_dim": (lambda m: (lambda x: m.broadcast_in_dim(x, (2, 3, 4), (1, 2))),
                         [(3, 1)]),
    "reshape": (lambda m: (lambda x: m.reshape(x, (3, 2), (1, 0))), [(2, 3)]),
    "transpose-rev": (lambda m: (lambda x: m.rev(m.transpose(x, (1, 0)), (0,))), [(2, 3)]),
    "squeeze-expand": (lambda m: (lambda x: m.expand_dims(m.squeeze(x, (0,)), (1,))),
                       [(1, 3)]),
    "pad": (lambda m: (lambda x, v: m.pad(x, v, [(1, -1, 2), (-1, 2, 0)])), [(3, 4), ()]),
    "concatenate": (lambda m: (lambda x, y: m.concatenate([x, y, x], 1)), [(2, 3), (2, 1)]),
    "slice": (lambda m: (lambda x: m.slice(x, (0, 1), (2, 4), (1, 2))), [(3, 4)]),
    "dynamic_slice": (lambda m: (lambda x: m.dynamic_slice(x, (-1, 7), (2, 2))), [(3, 4)]),
    "dynamic_update_slice": (lambda m: (lambda x, u: m.dynamic_update_slice(x, u, (2, -3))),
                             [(3, 4), (2, 2)]),
    "dynamic_index_in_dim": (lambda m: (lambda x: m.dynamic_index_in_dim(x, 5, 1, False)),
                             [(3, 4)]),
    "broadcast-collapse": (lambda m: (lambda x: m.collapse(m.broadcast(x, (2,)), 0, 2)),
                           [(3, 2)]),
    "slice_in_dim-index_in_dim": (lambda m: (lambda x: m.slice_in_dim(x, -3, None, 2, 1)
                                             * m.index_in_dim(x, -1, 1)), [(2, 4)]),
    "dynamic_slice_in_dim": (lambda m: (lambda x: m.dynamic_slice_in_dim(x, -3, 2, 1)),
                             [(2, 4)]),
    "dynamic_update_index_in_dim": (lambda m: (lambda x, u: m.dynamic_update_index_in_dim(
        x, u, 9, 0)), [(3, 2), (2,)]),
    "reduce_min": (lambda m: (lambda x: m.reduce_min(x, (1,))), [(3, 4)]),
    "cummin": (lambda m: (lambda x: m.cummin(x, 1, True)), [(2, 4)]),
    "sort_key_val": (lambda m: (lambda k, v: m.sort_key_val(k, v)[1]), [(5,), (5,)]),
    "scatter-min-max": (lambda m: (lambda x, u: m.scatter(
        m.scatter_min(x, np.array([[0], [2]]), u, m.ScatterDimensionNumbers((1,), (0,), (0,))),
        np.array([[1]]), u[:1] * 3, m.ScatterDimensionNumbers((1,), (0,), (0,)))
        + m.scatter_max(x, np.array([[2], [1]]), u, m.ScatterDimensionNumbers((1,), (0,), (0,)))),
        [(3, 2), (2, 2)]),
    "reduce_sum": (lambda m: (lambda x: m.reduce_sum(x, (1,))), [(3, 4)]),
    "reduce_max": (lambda m: (lambda x: m.reduce_max(x, (0,))), [(3, 4)]),
    "reduce_prod": (lambda m: (lambda x: m.reduce_prod(x, (0, 1))), [(2, 3)]),
    "cumsum": (lambda m: (lambda x: m.cumsum(x, 1, True)), [(2, 4)]),
    "cumprod": (lambda m: (lambda x: m.cumprod(x, 0)), [(3, 2)]),
    "cummax": (lambda m: (lambda x: m.cummax(x, 1)), [(2, 4)]),
    "cumlogsumexp": (lambda m: (lambda x: m.cumlogsumexp(x, 0)), [(3, 2)]),
    "sort": (lambda m: (lambda x: m.sort(x, 0)), [(4, 2)]),
    "dot_general": (lambda m: (lambda a, b: m.dot_general(a, b, (((2,), (1,)), ((0,), (0,))))),
                    [(2, 3, 4), (2, 4, 2)]),
    "dot": (lambda m: (lambda a, b: m.dot(a, b)), [(3, 4), (4,)]),
    "batch_matmul": (lambda m: (lambda a, b: m.batch_matmul(a, b)), [(2, 2, 3), (2, 3, 2)]),
    "gather": (lambda m: (lambda x: m.gather(
        x, np.array([[2], [0], [2]]), m.GatherDimensionNumbers((1,), (0,), (0,)), (1, 2),
        mode="clip")), [(3, 2)]),
    "scatter_add": (lambda m: (lambda x, u: m.scatter_add(
        x, np.array([[2], [0], [2]]), u, m.ScatterDimensionNumbers((1,), (0,), (0,)))),
        [(3, 2), (3, 2)]),
}




def test_grads_match_jax():
    _grad_check_all({name: (make, [rand(s, F64, 0.5, 2) for s in shapes])
                     for name, (make, shapes) in GRAD_CASES.items()})


VMAP_CASES = {
    "add-broadcast": (lambda x, y: lax.add(x, y), [(2, 3), (1, 3)]),
    "tanh": (lax.tanh, [(3,)]),
    "clamp": (lambda lo, x: lax.clamp(lo, x, 1.0), [(), (3,)]),
    "select": (lambda a, b: lax.select(lax.gt(a, b), a, b), [(2, 3), (2, 3)]),
    "pad": (lambda x, v: lax.pad(x, v, [(1, -1, 1)]), [(3,), ()]),
    "transpose": (lambda x: lax.transpose(x, (1, 0)), [(2, 3)]),
    "dot_general": (lambda a, b: lax.dot_general(a, b, (((1,), (0,)), ((), ()))),
                    [(2, 3), (3, 2)]),
    "argmax": (lambda x: lax.argmax(x, 1, np.int32), [(2, 3)]),
    "cumsum": (lambda x: lax.cumsum(x, 0, True), [(3, 2)]),
    "reduce_max": (lambda x: lax.reduce_max(x, (0,)), [(3, 2)]),
    "sort": (lambda x: lax.sort(x), [(4,)]),
    "concatenate": (lambda x, y: lax.concatenate([x, y], 0), [(2,), (3,)]),
}




@pytest.mark.parametrize("case", list(VMAP_CASES))
def test_vmap_matches_a_loop(case):
    f, shapes = VMAP_CASES[case]
    batch = [fnp.asarray(rand((4, *s), F32)) for s in shapes]
    got = fa.vmap(f)(*batch)
    want = fnp.stack([f(*(b[k] for b in batch)) for k in range(4)])
    assert_same(got, want, rtol=1e-5, atol=1e-6)  # a batched dot may sum in another order


def test_vmap_of_dynamic_slices_with_batched_indices_matches_a_loop_and_jax():
    x = fnp.asarray(rand((5, 6), F32))
    starts = fnp.array([-7, -1, 0, 2, 4, 9], fnp.int32)
    updates = fnp.asarray(rand((6, 2, 2), F32))

    def f(m, x, i, u):
        return (m.dynamic_slice(x, (i, 2 * i), (2, 3)), m.dynamic_update_slice(x, u, (i + 1, i)),
                m.dynamic_index_in_dim(x, i, 1, False))

    got = fa.vmap(lambda i, u: f(lax, x, i, u))(starts, updates)
    want = jax.vmap(lambda i, u: f(jax.lax, jnp.asarray(x), i, u))(jnp.asarray(starts),
                                                                  jnp.asarray(updates))
    for k in range(6):
        for g, w in zip(got, f(lax, x, starts[k], updates[k])):
            assert_same(g[k], w)
    for g, w in zip(got, want):
        assert_same(g, w)
    for g, w in zip(fa.jit(fa.vmap(lambda i, u: f(lax, x, i, u)))(starts, updates), want):
        assert_same(g, w)


# ============================================================================================
# The namespace
# ============================================================================================

def test_every_op_is_exported_with_an_example_and_jax_has_it():
    missing_in_jax = {"zeros_like_array"}  # removed from jax.lax; kept for older code
    assert len(set(lax.__all__)) == len(lax.__all__), "a name is exported twice"
    modules = [importlib.import_module(f"funcarray.lax.{name}") for name in _OP_MODULE_NAMES]
    for name in (name for module in modules for name in module.__all__):
        assert name in lax.__all__ and hasattr(lax, name), name
        value = getattr(lax, name)
        if not isinstance(value, type):
            assert "Example:" in (value.__doc__ or ""), name
            assert value.__name__ == name
        if name not in missing_in_jax:
            assert hasattr(jax.lax, name), name


def test_errors_point_at_the_callers_line():
    with pytest.raises(TypeError) as info:
        lax.add(fnp.ones(2), fnp.ones(2, fnp.int32))
    assert "test_lax_ops.py" in str(info.value)
    tb, frames = info.value.__traceback__, []
    while tb is not None:
        frames.append(tb.tb_frame.f_code.co_filename)
        tb = tb.tb_next
    assert not any("funcarray/lax" in f for f in frames)
