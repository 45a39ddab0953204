"""Table-driven tests of the elementwise layer: ``funcarray.numpy``'s elementwise functions, the
elementwise primitives, and the Python operators.

Oracles: NumPy for values (computed in the result dtype, float16/bfloat16 through float32 as
XLA does), ``jax.numpy`` for result dtypes and weak types, ``jax.lax`` on the CPU for the
StableHLO corner cases (integer division by zero, shifts past the bit width, saturating
float-to-int conversion).
"""

from __future__ import annotations

import functools
import operator
import warnings

import jax
import jax.lax as lax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from op_table import (
    ALL_DTYPES,
    ELEMENTWISE_BY_NAME,
    ELEMENTWISE_OPS,
    PRIMITIVE_OPS,
    kind_of,
    standard_floor_divide,
    tolerance,
)

import funcarray as fa
import funcarray.numpy as fnp
from funcarray import dtypes
from funcarray.base.array import Array
from funcarray.primitives import elementwise as ew
from funcarray.primitives.conversions import convert_element_type_p
from funcarray.primitives.select_n import select_n_p

jax.config.update("jax_enable_x64", True)

_64BIT = {dtypes.int64, dtypes.uint64, dtypes.float64, dtypes.complex128}
_WEAK_DTYPES = (dtypes.int32, dtypes.float32, dtypes.complex64)
_STRONG_DEFAULT = {dtypes.float64: dtypes.float32, dtypes.int64: dtypes.int32,
                   dtypes.complex128: dtypes.complex64}

# Ops where jax.numpy builds the result from a strong internal constant or conversion, so a
# weak input gives a strong result (jnp.log2(2.0) is strong while jnp.log(2.0) is weak).
# funcarray's internal constants are weak: the result is weak when its promoted inputs are.
JAX_STRONG_CONSTANT_QUIRKS = frozenset({
    "angle", "deg2rad", "degrees", "heaviside", "hypot", "isfinite", "isinf", "isneginf",
    "isposinf", "log10", "log2", "logaddexp", "logaddexp2", "logical_and", "logical_not",
    "logical_or", "logical_xor", "power", "rad2deg", "radians", "rint", "signbit", "sinc",
})


# --------------------------------------------------------------------------------------------
# Value generation and references
# --------------------------------------------------------------------------------------------


def _int_values(rng, dtype, shape, domain):
    info = np.iinfo(dtype)
    if domain.shift:
        return rng.integers(0, info.bits, shape, endpoint=False).astype(dtype)
    if domain.full_int_range:
        return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
    lo = max(int(np.ceil(domain.lo)), int(info.min))
    hi = min(int(np.floor(domain.hi)), int(info.max))
    if kind_of(dtype) == "u" or domain.name in ("positive", "ge1"):
        lo = max(lo, 1 if domain.name in ("positive", "ge1") else 0)
    values = rng.integers(lo, max(lo, hi), shape, endpoint=True).astype(dtype)
    if domain.nonzero:
        values = np.where(values == 0, np.ones((), dtype), values)
    return values


def _float_values(rng, shape, domain, with_specials):
    values = rng.uniform(domain.lo, domain.hi, shape)
    if domain.nonzero:
        values = np.where(np.abs(values) < 0.5, 1.0, values)
    if with_specials and domain.specials and values.size:
        mask = rng.random(shape) < 0.2
        picks = rng.choice(np.asarray(domain.specials, np.float64), shape)
        values = np.where(mask, picks, values)
    return values


def make_values(rng, dtype, shape, domain, with_specials=True):
    """Random values of ``dtype`` and ``shape`` in ``domain`` (a NumPy array)."""
    dtype = np.dtype(dtype)
    kind = kind_of(dtype)
    if kind == "b":
        if domain.name in ("positive", "ge1") or domain.nonzero:
            return np.ones(shape, bool)
        return rng.random(shape) < 0.5
    if kind in "iu":
        return _int_values(rng, dtype, shape, domain)
    if domain.shift:
        return rng.integers(0, 8, shape).astype(dtype)
    real = _float_values(rng, shape, domain, with_specials and kind == "f")
    if kind == "c":
        imag = rng.uniform(-1.0, 1.0, shape)
        return (real + 1j * imag).astype(dtype)
    with np.errstate(over="ignore"):
        return real.astype(dtype)


def _compute_dtype(dtype, upcast_low):
    dtype = np.dtype(dtype)
    if upcast_low and dtypes.is_float(dtype) and dtype.itemsize < 4:
        return dtypes.float32
    return dtype


def reference(spec, values, out_dtypes, promoted_dtype):
    """NumPy's result for ``spec`` on ``values``, computed in the result dtype (math
    functions) or the promoted input dtype (comparisons), then cast to ``out_dtypes``."""
    target = promoted_dtype if spec.compute == "promoted" else out_dtypes[0]
    if spec.compute == "inexact" and dtypes.is_inexact(promoted_dtype):
        target = promoted_dtype
    compute = _compute_dtype(target, spec.upcast_low)
    args = [np.asarray(v, compute) if i != 0 or not spec.condition else v
            for i, v in enumerate(values)]
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = spec.ref(*args, **dict(spec.kwargs))
        outs = out if spec.multiple_results else (out,)
        return [np.asarray(o).astype(dt) for o, dt in zip(outs, out_dtypes)]


def _quick_match(actual, expected, tol_class, zero_sign) -> bool:
    """The common passing case, without numpy.testing's (slow) reporting machinery."""
    if actual.shape != expected.shape or actual.dtype != expected.dtype:
        return False
    if kind_of(expected.dtype) in "biu":
        return bool(np.array_equal(actual, expected))
    wide = np.complex128 if expected.dtype.kind == "c" else np.float64
    a, e = actual.astype(wide), expected.astype(wide)
    if tol_class == "exact":
        same = np.array_equal(a, e, equal_nan=True)
        if same and zero_sign and expected.dtype.kind == "f":
            same = np.array_equal(np.signbit(a), np.signbit(e))
        return bool(same)
    rtol, atol = tolerance(tol_class, expected.dtype)
    scale = np.abs(e[np.isfinite(e)]).max(initial=0)
    return bool(np.allclose(a, e, rtol=rtol, atol=atol * max(1.0, scale), equal_nan=True))


# IEEE leaves the sign of max(0.0, -0.0) to the implementation (XLA and NumPy differ).
_ZERO_SIGN_UNSPECIFIED = frozenset({"maximum", "minimum", "fmax", "fmin", "clip", "max", "min"})


def assert_close(actual, expected, tol_class, what="", zero_sign=True):
    """Compare with the tolerance of ``tol_class``; ``what`` (a string or a callable making
    one, so that passing cases never format arrays) names the case in the failure."""
    actual = np.asarray(actual)
    if callable(what) and not _quick_match(actual, expected, tol_class, zero_sign):
        what = what()
    elif callable(what):
        return
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    assert actual.dtype == expected.dtype, f"{what}: dtype {actual.dtype} != {expected.dtype}"
    rtol, atol = tolerance(tol_class, expected.dtype)
    if kind_of(expected.dtype) in "biu":
        np.testing.assert_array_equal(actual, expected, err_msg=what)
        return
    wide = np.complex128 if expected.dtype.kind == "c" else np.float64
    a, e = actual.astype(wide), expected.astype(wide)
    scale = np.where(np.isfinite(e), np.abs(e), 0.0)
    if tol_class == "exact":
        np.testing.assert_array_equal(a, e, err_msg=what)
        if zero_sign and expected.dtype.kind == "f":  # -0.0 and 0.0 differ for exact ops
            np.testing.assert_array_equal(np.signbit(a), np.signbit(e), err_msg=what + " sign")
        return
    np.testing.assert_allclose(a, e, rtol=rtol, atol=atol * max(1.0, scale.max(initial=0)),
                               equal_nan=True, err_msg=what)


# --------------------------------------------------------------------------------------------
# jax.numpy as the dtype and weak_type oracle
# --------------------------------------------------------------------------------------------


def _needs_x64(args) -> bool:
    """x64 keeps 64-bit arrays (and int8 + uint32 -> int64); it is off otherwise, where jax's
    x64 defaults (Python scalars, rint of int8) would be 64-bit and funcarray's are 32-bit."""
    arrays = [a for a in args if isinstance(a, jax.ShapeDtypeStruct)]
    mixed = len(arrays) == len(args) and len({np.dtype(a.dtype) for a in arrays}) > 1
    return mixed or any(np.dtype(a.dtype) in _64BIT for a in arrays)


def jax_result_types(fn, args, kwargs=()):
    """Cached: aliases and the promotion checks ask jax the same question many times."""
    return _jax_result_types(fn, tuple((type(a), a) for a in args), tuple(kwargs))


@functools.cache
def _jax_result_types(fn, typed_args, kwargs):
    """``(dtype, weak_type)`` of each output of ``fn`` on ``args`` (ShapeDtypeStructs and
    Python scalars), or None where jax refuses. Inputs are 64-bit only when an array is, so
    jax's scalar defaults are 32-bit like funcarray's; a weak 64-bit result under x64 comes
    from such a default and is mapped back to 32 bits."""
    args = [a for _, a in typed_args]
    x64 = _needs_x64(args)
    arrays = [a for a in args if isinstance(a, jax.ShapeDtypeStruct)]

    def call(*arrs):
        it = iter(arrs)
        full = [next(it) if isinstance(a, jax.ShapeDtypeStruct) else a for a in args]
        return fn(*full, **dict(kwargs))

    with jax.enable_x64(x64), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            out = jax.eval_shape(call, *arrays)
        except (TypeError, ValueError):
            return None
    outs = out if isinstance(out, tuple) else (out,)
    result = []
    for o in outs:
        dt = np.dtype(o.dtype)
        if o.weak_type and x64:
            dt = _STRONG_DEFAULT.get(dt, dt)
        result.append((dt, bool(o.weak_type)))
    return result


def _as_funcarray(arg):
    if isinstance(arg, jax.ShapeDtypeStruct):
        return Array(np.ones(arg.shape, arg.dtype), arg.weak_type)
    return arg


def funcarray_result_types(spec, args):
    out = spec.fn(*map(_as_funcarray, args), **dict(spec.kwargs))
    outs = out if spec.multiple_results else (out,)
    return [(o.dtype, o.weak_type) for o in outs]


def _is_weak(arg) -> bool:
    return arg.weak_type if isinstance(arg, jax.ShapeDtypeStruct) else type(arg) is not bool


def _add_all(*args):
    return functools.reduce(jnp.add, args)


def _promoted_weak(args, logical=False) -> bool:
    """jax's weak flag for promoting ``args`` together (what a quirk-free op returns).
    Logical ops promote the bools their operands become: a strong bool array keeps the result
    strong even beside a Python int."""
    if logical:
        return all(map(_is_weak, args))
    if len(args) == 1:
        only = args[0]
        return only.weak_type if isinstance(only, jax.ShapeDtypeStruct) else type(only) is not bool
    return jax_result_types(_add_all, args)[0][1]


def expected_result_types(spec, args):
    expected = jax_result_types(spec.jax_fn, args, spec.kwargs)
    logical = spec.name.startswith("logical_")
    if (expected is not None and spec.name in JAX_STRONG_CONSTANT_QUIRKS
            and _promoted_weak(args, logical)):
        # A weak result under x64 comes from a 32-bit default in funcarray.
        mapped = _STRONG_DEFAULT if _needs_x64(args) else {}
        expected = [(mapped.get(dt, dt), True) for dt, _ in expected]
    return expected


def _sds(dtype, shape=(2,), weak=False):
    return jax.ShapeDtypeStruct(shape, np.dtype(dtype), weak_type=weak)


def _array_args(spec, dtype, weak=False):
    args = [_sds(dtype, weak=weak) for _ in range(spec.nargs)]
    if spec.condition:
        args[0] = _sds(dtypes.bool_)
    return args


def _case_ids(cases):
    return [f"{spec.name}-{np.dtype(dt).name}" for spec, dt in cases]


# Aliases (abs/absolute, mod/remainder...) are the same function object: test each once.
_UNIQUE_OPS = list({id(spec.fn): spec for spec in reversed(ELEMENTWISE_OPS)}.values())[::-1]
_ACCEPTED = [(spec, dt) for spec in _UNIQUE_OPS for dt in spec.dtypes]
_REJECTED = [(spec, dt) for spec in ELEMENTWISE_OPS for dt in spec.rejected_dtypes]


@pytest.mark.parametrize("spec, dtype", _ACCEPTED, ids=_case_ids(_ACCEPTED))
def test_result_dtype_and_weak_type_match_jax(spec, dtype):
    # Weak arrays come from Python scalars, so they have the default dtypes.
    for weak in (False, True) if dtype in _WEAK_DTYPES else (False,):
        args = _array_args(spec, dtype, weak)
        expected = expected_result_types(spec, args)
        assert expected is not None, f"jax refuses {spec.name}({dtype}): fix the op table"
        assert funcarray_result_types(spec, args) == expected, f"weak inputs: {weak}"


@pytest.mark.parametrize("spec, dtype", _REJECTED, ids=_case_ids(_REJECTED))
def test_rejected_dtypes_raise_type_error(spec, dtype):
    args = [Array(np.ones(2, dtype)) for _ in range(spec.nargs)]
    if spec.condition:
        args[0] = Array(np.ones(2, bool))
    # Aliases (invert, bitwise_left_shift...) name the function they alias; divmod names the
    # half that refused.
    with pytest.raises(TypeError, match=spec.fn.__name__ if spec.name != "divmod" else "divide"):
        spec.fn(*args, **dict(spec.kwargs))


_SCALARS = (True, 3, 0.5, 1j)
# One dtype per promotion situation (bool, narrow/unsigned/64-bit ints, narrow/default/64-bit
# floats, complex); every dtype is covered with arrays alone above.
_SCALAR_CASE_DTYPES = (dtypes.bool_, dtypes.uint8, dtypes.int64, dtypes.bfloat16,
                       dtypes.float32, dtypes.complex64)


def _scalar_cases(spec):
    """Each accepted array dtype with a Python scalar in each position, and scalars alone."""
    cases = []
    for dtype in (dt for dt in spec.dtypes if dt in _SCALAR_CASE_DTYPES):
        for scalar in _SCALARS[1:]:
            for pos in range(spec.nargs):
                if spec.condition and pos == 0:
                    continue
                args = _array_args(spec, dtype)
                args[pos] = scalar
                cases.append(args)
    for scalar in _SCALARS:
        cases.append([True if spec.condition and i == 0 else scalar for i in range(spec.nargs)])
    return cases


@pytest.mark.parametrize("spec", _UNIQUE_OPS, ids=lambda s: s.name)
def test_weak_python_scalars_match_jax(spec):
    """Python scalars are weak: with arrays they take the array's dtype, alone they give
    weak 32-bit results; jax is asked with x64 off unless a 64-bit array is involved."""
    for args in _scalar_cases(spec):
        expected = expected_result_types(spec, args)
        what = f"{spec.name}{tuple(a if not hasattr(a, 'dtype') else str(a.dtype) for a in args)}"
        if expected is None:
            with pytest.raises((TypeError, ValueError)):
                funcarray_result_types(spec, args)
        else:
            try:
                actual = funcarray_result_types(spec, args)
            except (TypeError, ValueError):
                # Only where the op table says the promoted dtype is not accepted.
                promoted = jax_result_types(_add_all, args)
                assert promoted and kind_of(promoted[0][0]) not in spec.kinds, what
                continue
            assert actual == expected, what


# The whole lattice is checked by test_dtypes.py; here, that each family applies it.
_MIXED_OPS = ("add", "true_divide", "equal", "floor_divide", "arctan2", "where")
_MIXED_DTYPES = (dtypes.bool_, dtypes.int8, dtypes.uint8, dtypes.uint32, dtypes.int64,
                 dtypes.float16, dtypes.bfloat16, dtypes.float64, dtypes.complex64)


@pytest.mark.parametrize("name", _MIXED_OPS)
def test_mixed_dtype_pairs_match_jax(name):
    spec = ELEMENTWISE_BY_NAME[name]
    for a in _MIXED_DTYPES:
        for b in _MIXED_DTYPES:
            args = [_sds(a), _sds(b)]
            if spec.condition:
                args.insert(0, _sds(dtypes.bool_))
            expected = expected_result_types(spec, args)
            promoted = jax_result_types(jnp.add, [_sds(a), _sds(b)])[0][0]
            if expected is None or kind_of(promoted) not in spec.kinds:
                with pytest.raises(TypeError):
                    funcarray_result_types(spec, args)
            else:
                assert funcarray_result_types(spec, args) == expected, (a, b)


# --------------------------------------------------------------------------------------------
# Values against NumPy, with random shapes and broadcasting
# --------------------------------------------------------------------------------------------

_SHAPES = dict(min_dims=0, max_dims=3, min_side=0, max_side=4)
# Each example checks every accepted dtype (about 15 cases), so 5 examples still give each op
# over 70 random cases while keeping the file fast (the thorough run scales it: conftest.py).
_ALL_DTYPE_EXAMPLES = settings(max_examples=5)


@functools.cache
def _out_dtypes(name, dtype):
    spec = ELEMENTWISE_BY_NAME[name]
    return tuple(dt for dt, _ in jax_result_types(spec.jax_fn, _array_args(spec, dtype),
                                                   spec.kwargs))


def check_values(spec, dtype, shapes, rng):
    values = [make_values(rng, dtype, shape, domain)
              for shape, domain in zip(shapes.input_shapes, spec.domains)]
    if spec.condition:
        values[0] = rng.random(shapes.input_shapes[0]) < 0.5
    out = spec.fn(*(fnp.asarray(v) for v in values), **dict(spec.kwargs))
    outs = out if spec.multiple_results else (out,)
    expected = reference(spec, values, _out_dtypes(spec.name, dtype), dtype)
    for actual, exp in zip(outs, expected):
        assert isinstance(actual, Array)
        assert_close(actual, exp.reshape(shapes.result_shape), spec.tol,
                     lambda: f"{spec.name}({', '.join(map(repr, values))})",
                     zero_sign=spec.name not in _ZERO_SIGN_UNSPECIFIED)


@pytest.mark.parametrize("spec", _UNIQUE_OPS, ids=lambda s: s.name)
@_ALL_DTYPE_EXAMPLES
@given(data=st.data())
def test_values_match_numpy(spec, data):
    """Every accepted dtype on each drawn example: random shapes (0-d and size-0 included),
    broadcasting between operands, values in the op's domain with IEEE specials mixed in."""
    shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=spec.nargs, **_SHAPES))
    seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
    for dtype in spec.dtypes:
        check_values(spec, dtype, shapes, np.random.default_rng(seed))


def test_values_broadcast_across_dtypes():
    x = fnp.asarray(np.arange(6, dtype=np.int8).reshape(2, 3))
    y = fnp.asarray(np.array([0.5, 1.5, 2.5], np.float32))
    out = x * y
    assert out.dtype == np.float32 and out.shape == (2, 3)
    np.testing.assert_array_equal(np.asarray(out), np.arange(6).reshape(2, 3) * [0.5, 1.5, 2.5])


# --------------------------------------------------------------------------------------------
# Special values
# --------------------------------------------------------------------------------------------

_NAN, _INF = np.nan, np.inf
_FLOATS = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64)


def _f(values, dtype):
    return fnp.asarray(np.array(values, np.float64).astype(dtype))


@pytest.mark.parametrize("dtype", _FLOATS, ids=str)
def test_nan_propagation_maximum_minimum_and_fmax_fmin(dtype):
    x = _f([_NAN, 1.0, _NAN, -_INF], dtype)
    y = _f([0.0, _NAN, _NAN, 2.0], dtype)
    for fn, ref in ((fnp.maximum, np.maximum), (fnp.minimum, np.minimum),
                    (fnp.fmax, np.fmax), (fnp.fmin, np.fmin)):
        expected = ref(np.asarray(x, np.float64), np.asarray(y, np.float64)).astype(dtype)
        assert_close(fn(x, y), expected, "exact", fn.__name__, zero_sign=False)


@pytest.mark.parametrize("dtype", _FLOATS, ids=str)
def test_signed_zero_and_infinities(dtype):
    x = _f([-0.0, 0.0, -_INF, _INF, _NAN], dtype)
    wide = np.asarray(x, np.float64)
    for name in ("negative", "absolute", "sign", "signbit", "floor", "ceil", "trunc", "rint",
                 "isinf", "isnan", "isfinite", "isposinf", "isneginf", "sqrt", "exp", "tanh"):
        spec = ELEMENTWISE_BY_NAME[name]
        with np.errstate(all="ignore"):
            expected = np.asarray(spec.ref(wide)).astype(fnp.asarray(spec.fn(x)).dtype)
        assert_close(spec.fn(x), expected, "exact", name)
    assert_close(fnp.copysign(_f([1.0, 1.0], dtype), _f([-0.0, 0.0], dtype)),
                 np.array([-1.0, 1.0]).astype(dtype), "exact", "copysign")


def test_division_by_zero_floats_follow_ieee():
    x = _f([1.0, -1.0, 0.0], np.float32)
    out = np.asarray(x / 0.0)
    assert out[0] == np.inf and out[1] == -np.inf and np.isnan(out[2])


@pytest.mark.parametrize("dtype", _FLOATS, ids=str)
def test_floor_divide_and_remainder_match_python_semantics(dtype):
    xs = np.array([7.0, -7.0, 7.0, -7.0, 5.5, -0.5])
    ys = np.array([2.0, 2.0, -2.0, -2.0, 0.5, 3.0])
    x, y = _f(xs, dtype), _f(ys, dtype)
    cast = lambda a: np.asarray(a, np.float64)  # noqa: E731
    np.testing.assert_array_equal(cast(x // y), np.floor_divide(cast(x), cast(y)))
    np.testing.assert_array_equal(cast(x % y), np.remainder(cast(x), cast(y)))


def test_round_half_to_even_vs_away_from_zero():
    halves = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.49999997], np.float32)
    x = fnp.asarray(halves)
    np.testing.assert_array_equal(np.asarray(fnp.round(x)), np.round(halves))
    np.testing.assert_array_equal(np.asarray(fnp.rint(x)), np.rint(halves))
    away = ew.round_p.bind(x, rounding_method=0)
    even = ew.round_p.bind(x, rounding_method=1)
    with jax.default_device(jax.devices("cpu")[0]):
        np.testing.assert_array_equal(np.asarray(away), np.asarray(lax.round(halves, 0)))
        np.testing.assert_array_equal(np.asarray(even), np.asarray(lax.round(halves, 1)))
    np.testing.assert_array_equal(np.asarray(away), [-3, -2, -1, 1, 2, 3, 0])


@pytest.mark.parametrize("decimals", [-3, -2, -1, 0, 1, 2])
@pytest.mark.parametrize("dtype", [dtypes.int8, dtypes.int32, dtypes.uint16, dtypes.float16,
                                   dtypes.float32, dtypes.float64], ids=str)
def test_round_decimals_matches_numpy(decimals, dtype):
    """Halves to even at every scale (jax.numpy refuses integers with decimals < 0)."""
    values = np.array([1234, -1250, 15, 25, -15, -25, 125, 351, -449, 0, 127, -128])
    if kind_of(dtype) == "f":
        values = values / 8.0  # exact binary fractions, so the halves are real halves
    values = values.astype(dtype) if kind_of(dtype) != "u" else np.abs(values).astype(dtype)
    expected = np.round(values.astype(_compute_dtype(dtype, True)), decimals).astype(dtype)
    tol = "exact" if decimals <= 0 else "arith"
    assert_close(fnp.round(fnp.asarray(values), decimals), expected, tol, f"round({decimals})")


# --------------------------------------------------------------------------------------------
# Primitives (StableHLO semantics)
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("spec", PRIMITIVE_OPS, ids=[
    spec.name + "".join(f"-{k}={v}" for k, v in spec.params) for spec in PRIMITIVE_OPS])
@_ALL_DTYPE_EXAMPLES
@given(data=st.data())
def test_primitive_values_match_reference(spec, data):
    shape = data.draw(hnp.array_shapes(**_SHAPES))
    seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
    params = dict(spec.params)
    for dtype in spec.dtypes:
        rng = np.random.default_rng(seed)
        values = [make_values(rng, dtype, shape, domain) for domain in spec.domains]
        out = spec.prim.bind(*(Array(v) for v in values), **params)
        assert out.aval == spec.prim.abstract_eval(*(Array(v).aval for v in values), **params)
        compute = _compute_dtype(dtype, spec.upcast_low)
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = np.asarray(spec.ref(*(v.astype(compute) for v in values), **params))
        with np.errstate(all="ignore"):
            expected = expected.astype(out.dtype)
        assert_close(out, expected, spec.tol,
                     lambda: f"{spec.name}({values}, {params})",
                     zero_sign=spec.name not in _ZERO_SIGN_UNSPECIFIED)


def _jax_cpu(fn, *args, **params):
    with jax.default_device(jax.devices("cpu")[0]):
        return np.asarray(fn(*(jnp.asarray(a) for a in args), **params))


_INT_DTYPES = tuple(dt for dt in ALL_DTYPES if kind_of(dt) in "iu")


@pytest.mark.parametrize("dtype", _INT_DTYPES, ids=str)
def test_integer_div_rem_corner_cases_match_xla(dtype):
    info = np.iinfo(dtype)
    signed_min = -(2 ** (info.bits - 1))
    xs = [7, -7, 0, signed_min, info.max, signed_min, 5]
    ys = [0, 0, 0, -1, 0, 1, -3]
    # Unsigned dtypes get the same bit patterns (INT_MIN / -1 becomes 2**(n-1) / UINT_MAX).
    x, y = (np.array([v % 2**info.bits for v in vs], np.uint64).astype(dtype) for vs in (xs, ys))
    for prim, jax_fn in ((ew.div_p, lax.div), (ew.rem_p, lax.rem)):
        out = prim.bind(Array(x), Array(y))
        assert_close(out, _jax_cpu(jax_fn, x, y), "exact", f"{prim.name}({x}, {y})")


@pytest.mark.parametrize("dtype", _INT_DTYPES, ids=str)
def test_shifts_by_bit_width_or_more_match_xla(dtype):
    bits = np.iinfo(dtype).bits
    x = np.array([1, 3, -1, -8, 100, 5, 2], np.int64).astype(dtype)
    y = np.array([bits, bits + 1, bits, bits - 1, 0, 2 * bits, 1], np.int64).astype(dtype)
    for prim, jax_fn in ((ew.shift_left_p, lax.shift_left),
                         (ew.shift_right_arithmetic_p, lax.shift_right_arithmetic),
                         (ew.shift_right_logical_p, lax.shift_right_logical)):
        out = prim.bind(Array(x), Array(y))
        assert_close(out, _jax_cpu(jax_fn, x, y), "exact", f"{prim.name}({x}, {y})")


@pytest.mark.parametrize("to", (dtypes.int8, dtypes.int32, dtypes.int64, dtypes.uint8,
                                dtypes.uint64, dtypes.bool_), ids=str)
@pytest.mark.parametrize("src", _FLOATS, ids=str)
def test_float_to_int_conversion_saturates_like_xla(src, to):
    values = np.array([np.nan, np.inf, -np.inf, 1e30, -1e30, 300.7, -300.7, 2.5, -2.5, -0.0,
                       65504.0, -129.0, 4294967296.0, 0.3])
    with np.errstate(over="ignore"):
        x = values.astype(src)
    out = convert_element_type_p.bind(Array(x), new_dtype=np.dtype(to), weak_type=False)
    expected = _jax_cpu(lambda a: lax.convert_element_type(a, np.dtype(to)), x)
    assert_close(out, expected, "exact", f"convert {x} to {to}")


def test_primitives_reject_mixed_dtypes_and_shapes():
    a, b = Array(np.ones(2, np.float32)), Array(np.ones(2, np.float64))
    with pytest.raises(TypeError, match="add"):
        ew.add_p.abstract_eval(a.aval, b.aval)
    with pytest.raises(TypeError, match="mul"):
        ew.mul_p.abstract_eval(a.aval, Array(np.ones(3, np.float32)).aval)


# --------------------------------------------------------------------------------------------
# Python operators
# --------------------------------------------------------------------------------------------

_BINARY_OPERATORS = [
    (operator.add, "add"), (operator.sub, "subtract"), (operator.mul, "multiply"),
    (operator.truediv, "true_divide"), (operator.floordiv, "floor_divide"),
    (operator.mod, "remainder"), (operator.pow, "power"), (operator.and_, "bitwise_and"),
    (operator.or_, "bitwise_or"), (operator.xor, "bitwise_xor"),
    (operator.lshift, "left_shift"), (operator.rshift, "right_shift"),
    (operator.eq, "equal"), (operator.ne, "not_equal"), (operator.lt, "less"),
    (operator.le, "less_equal"), (operator.gt, "greater"), (operator.ge, "greater_equal"),
]
_OPERAND_DTYPES = (dtypes.int8, dtypes.int32, dtypes.uint8, dtypes.float32, dtypes.float64)


@pytest.mark.parametrize("op, name", _BINARY_OPERATORS, ids=[n for _, n in _BINARY_OPERATORS])
@pytest.mark.parametrize("dtype", _OPERAND_DTYPES, ids=str)
def test_binary_operators_and_reflected_forms(op, name, dtype):
    spec = ELEMENTWISE_BY_NAME[name]
    if kind_of(dtype) not in spec.kinds:
        with pytest.raises(TypeError):
            op(Array(np.ones(2, dtype)), Array(np.ones(2, dtype)))
        return
    rng = np.random.default_rng(0)
    xv = make_values(rng, dtype, (3, 4), spec.domains[0], with_specials=False)
    yv = make_values(rng, dtype, (4,), spec.domains[1], with_specials=False)
    x, y = fnp.asarray(xv), fnp.asarray(yv)
    scalar = 2 if spec.domains[1].shift or kind_of(dtype) in "iu" else 1.5
    cases = [
        (op(x, y), [xv, yv], [_sds(dtype, (3, 4)), _sds(dtype, (4,))]),
        (op(x, scalar), [xv, scalar], [_sds(dtype, (3, 4)), scalar]),
        (op(scalar, y), [scalar, yv], [scalar, _sds(dtype, (4,))]),  # reflected
        (op(xv, y), [xv, yv], [_sds(dtype, (3, 4)), _sds(dtype, (4,))]),  # NumPy on the left
    ]
    if name == "power":
        cases = [c for c in cases if not (isinstance(c[1][0], int))]  # int ** int array
    for out, vals, jargs in cases:
        assert isinstance(out, Array), f"{name}: got {type(out).__name__}"
        (dt, weak), = jax_result_types(op, jargs)
        assert (out.dtype, out.weak_type) == (dt, weak), (name, jargs)
        promoted = jax_result_types(jnp.add, jargs)[0][0]
        expected = reference(spec, vals, [dt], promoted)[0]
        assert_close(out, expected, spec.tol, f"{name}{tuple(jargs)}")


def test_int_true_divide_gives_float_and_floor_semantics():
    x = fnp.array([7, -7, 7, -7])
    y = fnp.array([2, 2, -2, -2])
    assert (x / y).dtype == np.float32
    assert (x // y).tolist() == [3, -4, -4, 3]
    assert (x % y).tolist() == [1, 1, -1, -1]
    assert divmod(x, y)[0].tolist() == [3, -4, -4, 3]
    assert (7 // y).tolist() == [3, 3, -4, -4]
    assert (7 % y).tolist() == [1, 1, -1, -1]
    assert (fnp.array(7, dtype=fnp.int64) / 2).dtype == np.float64


@pytest.mark.parametrize("dtype", (dtypes.bool_, dtypes.int8, dtypes.uint16, dtypes.float32,
                                   dtypes.complex64), ids=str)
def test_unary_operators(dtype):
    v = make_values(np.random.default_rng(1), dtype, (5,), ELEMENTWISE_BY_NAME["add"].domains[0],
                    with_specials=False)
    x = fnp.asarray(v)
    jarg = [_sds(dtype, (5,))]
    for op, np_op in ((operator.neg, np.negative), (operator.pos, lambda a: a),
                      (operator.invert, np.invert), (abs, np.abs)):
        expected = jax_result_types(op, jarg)
        if expected is None:
            with pytest.raises(TypeError):
                op(x)
            continue
        out = op(x)
        assert [(out.dtype, out.weak_type)] == expected, op
        assert_close(out, np.asarray(np_op(v)).astype(out.dtype), "exact", str(op))


def test_operators_return_not_implemented_for_unknown_types():
    x = fnp.ones(2)
    assert x.__add__("a") is NotImplemented
    with pytest.raises(TypeError):
        x + object()


def test_matmul_operator():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.arange(3, dtype=np.float32)
    np.testing.assert_allclose(np.asarray(fnp.asarray(a) @ fnp.asarray(b)), a @ b)
    np.testing.assert_allclose(np.asarray(a @ fnp.asarray(b)), a @ b)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_division_by_zero_and_infinities_like_xla(dtype):
    """Eager complex division (and negative integer powers, 1 / x**n) give XLA's answers
    where Smith's algorithm gives NaN + NaN j: C99's infinities and zeros."""
    parts = [0.0, -0.0, 1.0, -2.5, np.inf, -np.inf, np.nan, 1e30]
    values = np.array([complex(a, b) for a in parts for b in parts], dtype)
    x, y = (v.ravel() for v in np.meshgrid(values, values))
    with jax.enable_x64(dtype == np.complex128):
        want = np.asarray(jax.jit(jnp.divide)(x, y))
        want_pow = np.asarray(jax.jit(lambda v: lax.integer_pow(v, -2))(values))
    got = np.asarray(fnp.divide(fnp.asarray(x), fnp.asarray(y)))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=0, equal_nan=True)
    got_pow = np.asarray(ew.integer_pow_p.bind(fnp.asarray(values), y=-2))
    np.testing.assert_allclose(got_pow, want_pow, rtol=1e-5, atol=0, equal_nan=True)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("name", ["sin", "cos", "exp2"])
def test_complex_sin_cos_exp2_under_jit_give_numpys_values(dtype, name):
    """jit's complex sin, cos and exp2 agree with NumPy (the eager kernels) to a few ulps on
    small imaginary parts, where XLA's own expansion is several ulps off, and C99's finite
    parts at special values (sin(0 + nan j) is 0 + nan j, exp2(big + 0j) inf + 0j), where
    XLA's give NaN."""
    parts = [0.0, -0.0, 1e-3, 0.049, -0.7, 2.5, 1e30, np.inf, -np.inf, np.nan]
    values = np.array([complex(a, b) for a in parts for b in parts], dtype)
    with np.errstate(all="ignore"):
        want = getattr(np, name)(values)
    got = np.asarray(fa.jit(getattr(fnp, name))(values))
    eps = np.finfo(dtype).eps
    for g, w in ((got.real, want.real), (got.imag, want.imag)):
        finite = np.isfinite(w)
        np.testing.assert_array_equal(np.isfinite(g), finite)
        # (where C99 gives an infinity, XLA's formulas may give NaN, and zero signs are left
        # open: finite parts are compared)
        np.testing.assert_allclose(g[finite], w[finite], rtol=4 * eps, atol=0)


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8", "uint32",
                                   "uint64"])
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_integer_power_wraps_exactly_eagerly_and_under_jit(dtype, seed):
    """x ** y of integers is the exact power reduced to the dtype's range (Python's pow
    modulo 2**bits), for exponents up to the dtype's maximum, eagerly and under jit (XLA's
    own integer power reads only the exponent's low bits); negative exponents give the
    integer quotient (0, or 1 and -1 for the bases 1 and -1)."""
    dtype = np.dtype(dtype)
    info, bits = np.iinfo(dtype), dtype.itemsize * 8
    rng = np.random.default_rng(seed)
    x = rng.integers(max(info.min, -40), min(info.max, 40), 64, endpoint=True).astype(dtype)
    y = rng.integers(info.min, info.max, 64, dtype=dtype, endpoint=True)
    y[:4] = [0, 1, info.max, max(info.min, 0)]

    def expected(a, b):
        if b < 0:
            return 1 if a == 1 else ((-1) ** (-b % 2) if a == -1 else 0)
        wrapped = pow(a, b, 2**bits)
        return wrapped - 2**bits if info.min < 0 and wrapped > info.max else wrapped

    want = np.array([expected(int(a), int(b)) for a, b in zip(x, y)], dtype)
    for power in (fnp.power, fa.jit(fnp.power)):
        np.testing.assert_array_equal(np.asarray(power(x, y)), want)


@pytest.mark.parametrize("missing,what", [("matmul", "__matmul__"), ("divmod", "__divmod__"),
                                          ("cumsum", "method Target.cumsum")])
def test_operator_without_its_function_fails_at_import(monkeypatch, missing, what):
    """An operator or method whose funcarray.numpy function is missing is an import error
    that names both, never a class quietly left without the operator."""
    from funcarray.numpy import array_methods as _operators

    monkeypatch.delattr(fnp, missing)
    target = type("Target", (), {})
    with pytest.raises(ImportError, match=rf"{what} forwards to funcarray\.numpy\.{missing},"):
        _operators.install(target)


@pytest.mark.parametrize("dtype", [d for d in dtypes.supported_dtypes if d.itemsize <= 8])
@given(seed=st.integers(0, 2**32 - 1), n=st.sampled_from([4096, 5000, 3 * 4096 + 7]))
def test_large_bool_select_is_bit_exact_like_np_where(dtype, seed, n):
    """select_n with a boolean selector on large arrays takes a branchless bit-pattern path:
    it must pick exactly the same bits as np.where (NaN payloads, -0.0, inf included)."""
    rng = np.random.default_rng(seed)
    bits = np.dtype(f"u{dtype.itemsize}")
    raw = rng.integers(0, np.iinfo(bits).max, size=(2, n), dtype=bits, endpoint=True)
    on_false, on_true = (r.view(dtype) if dtype != np.bool_ else (r & 1).astype(bool)
                         for r in raw)
    mask = rng.random(n) < rng.random()
    got = select_n_p.bind(Array(mask), Array(on_false), Array(on_true))
    want = np.where(mask, on_true, on_false)
    assert got.dtype == dtype
    np.testing.assert_array_equal(np.asarray(got).view(bits) if dtype != np.bool_
                                  else np.asarray(got), want.view(bits)
                                  if dtype != np.bool_ else want)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", ["floor_divide", "remainder"])
def test_floor_divide_and_remainder_specials_match_numpy(name, dtype):
    """Division by zero and by infinity, signed zeros, inf and nan operands: NumPy's values
    and zero signs, eagerly and under jit (1.0 // 0.0 used to be nan, -1.0 % inf nan), but
    for the Array API standard's floor quotients with one infinite operand."""
    x = np.array([1.0, -1.0, 0.3, 0.0, -0.0, 5.0, -1.0, 1.0, np.inf, -2.5, -0.0, 6.0],
                 dtype)
    y = np.array([0.0, 0.0, 0.0, 0.0, 0.0, np.inf, np.inf, -np.inf, 2.0, 1.0, 3.0, -3.0],
                 dtype)
    with np.errstate(all="ignore"):
        want = (standard_floor_divide if name == "floor_divide" else np.remainder)(x, y)
    for run in (getattr(fnp, name), fa.jit(getattr(fnp, name))):
        got = np.asarray(run(fnp.asarray(x), fnp.asarray(y)))
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


@pytest.mark.parametrize("kwargs", [{"min": 0.0, "max": 1.0}, {"max": 1.0}, {"min": 0.0}])
def test_clip_takes_min_and_max_as_keywords_like_jax(kwargs):
    x = np.array([-2.0, 0.5, 3.0], np.float32)
    want = np.asarray(jnp.clip(jnp.asarray(x), **kwargs))
    np.testing.assert_array_equal(np.asarray(fnp.clip(fnp.asarray(x), **kwargs)), want)
    np.testing.assert_array_equal(np.asarray(fnp.asarray(x).clip(**kwargs)), want)
