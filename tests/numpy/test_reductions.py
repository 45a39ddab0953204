"""Reductions: primitives (reduce.py) and funcarray.numpy's reduction functions.

Values are checked against NumPy (computed the way XLA does: float16/bfloat16 accumulate in
float32, narrow integers in int32); result dtypes and weak types against ``jax.numpy`` (with
x64 switched on only when an input is 64-bit, since funcarray keeps 64-bit inputs 64-bit and
otherwise follows JAX's defaults). A small abstract trace checks that every function works on
tracers and that the primitives' abstract_eval rules agree with their eager kernels.
"""

from __future__ import annotations

import functools
import warnings

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from jax import lax

import funcarray as fa
import funcarray.numpy as fnp
from funcarray.primitives import reduce as red
from funcarray.transforms.core import ShapedArray, Trace, Tracer, set_current_trace

BF16 = np.dtype(ml_dtypes.bfloat16)
F16, F32, F64 = np.dtype("float16"), np.dtype("float32"), np.dtype("float64")
INTS = [np.dtype(t) for t in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                              "uint64")]
FLOATS = [F16, BF16, F32, F64]
COMPLEX = [np.dtype("complex64"), np.dtype("complex128")]
REAL = [np.dtype(bool), *INTS, *FLOATS]
ALL = [*REAL, *COMPLEX]
WIDE = {np.dtype(t) for t in ("int64", "uint64", "float64", "complex128")}
LOW = (F16, BF16)

_VALUES = [-3.0, -2.0, -1.5, -1.0, -0.25, 0.0, 0.5, 1.0, 2.0, 3.0]


# --------------------------------------------------------------------------------------------
# Strategies
# --------------------------------------------------------------------------------------------

def _cast(raw, dt):
    if dt == np.bool_:
        return raw != 0
    if dt.kind in "iu":
        return np.trunc(np.abs(raw) if dt.kind == "u" else raw).astype(dt)
    return raw.astype(dt)


@st.composite
def arrays(draw, dtype_list=tuple(ALL), *, nan=False, inf=False, min_dims=0, max_dims=3,
           min_side=0):
    dt = np.dtype(draw(st.sampled_from(dtype_list)))
    shape = draw(hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side,
                                  max_side=4))
    values = list(_VALUES)
    inexact = dt.kind in "fc" or dt == BF16
    if nan and inexact:
        values += [np.nan, np.nan]
    if inf and inexact:
        values += [np.inf, -np.inf]
    raw = draw(hnp.arrays(np.float64, shape, elements=st.sampled_from(values)))
    if dt.kind == "c":
        imag = draw(hnp.arrays(np.float64, shape, elements=st.sampled_from(_VALUES)))
        return (raw + 1j * imag).astype(dt)
    return _cast(raw, dt)


@st.composite
def axes_for(draw, ndim):
    """None, an int (maybe negative) or a tuple of distinct axes (maybe negative)."""
    kind = draw(st.sampled_from(["none", "int", "tuple"]))
    if kind == "none" or (kind == "int" and ndim == 0):
        return None
    if kind == "int":
        return draw(st.integers(-ndim, ndim - 1))
    perm = draw(st.permutations(range(ndim)))
    chosen = perm[:draw(st.integers(0, ndim))]
    return tuple(a - ndim if draw(st.booleans()) else a for a in chosen)


@st.composite
def masks_for(draw, shape):
    """None, or a bool mask of ``shape`` or of a shape that broadcasts to it."""
    if draw(st.booleans()):
        return None
    drop = draw(st.integers(0, len(shape)))
    return draw(hnp.arrays(np.bool_, tuple(shape)[drop:]))


def _norm_axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    axes = axis if isinstance(axis, tuple) else (axis,)
    return tuple(sorted(a % ndim for a in axes))


# --------------------------------------------------------------------------------------------
# Oracles and comparison
# --------------------------------------------------------------------------------------------

@functools.cache
def _jax_result(op, x_dtype, weights_dtype, static):
    # x64 only when an input is 64-bit, or when mixing them promotes to 64 bits (int32 and
    # uint32 give int64 in funcarray, where no flag ever truncates it to int32).
    wide = x_dtype in WIDE or weights_dtype in WIDE or (
        weights_dtype is not None and fnp.promote_types(x_dtype, weights_dtype) in WIDE)
    x = jax.ShapeDtypeStruct((3,), x_dtype)
    extra = {} if weights_dtype is None else {"weights": jax.ShapeDtypeStruct((3,), weights_dtype)}
    with jax.enable_x64(wide):
        return jax.eval_shape(lambda a, kw: getattr(jnp, op)(a, **kw, **dict(static)), x, extra)


def jax_result(op, x, *, weights=None, **static):
    """jax.numpy's result dtype/weak_type for ``op`` on arrays of the dtypes of ``x``/``weights``.

    Dtypes do not depend on shapes or axes, so this traces a fixed 1-d shape once per dtype
    combination (no compiling), with x64 on only when an input is 64-bit.
    """
    weights_dtype = None if weights is None else np.dtype(weights.dtype)
    return _jax_result(op, np.dtype(x.dtype), weights_dtype, tuple(sorted(static.items())))


def _f64(x):
    x = np.asarray(x)
    return x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)


def _quiet(fn, *args, **kwargs):
    """Run a NumPy oracle without its empty-slice/0/0 warnings (pytest makes them errors)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


_RTOL = {F16: 2e-3, BF16: 1.6e-2, F32: 1e-5, F64: 1e-12, np.dtype("complex64"): 1e-5,
         np.dtype("complex128"): 1e-12}


def check(actual, expected, dtype, *, weak=False, rtol=None, atol=0.0):
    """``actual`` is an Array of exactly ``dtype``/``weak`` whose values match ``expected``."""
    assert isinstance(actual, fa.Array), type(actual)
    assert actual.dtype == np.dtype(dtype), f"dtype {actual.dtype} != {np.dtype(dtype)}"
    assert actual.weak_type == weak, f"weak_type {actual.weak_type} != {weak}"
    expected = np.asarray(expected)
    got = np.asarray(actual)
    assert got.shape == expected.shape, f"shape {got.shape} != {expected.shape}"
    rtol = _RTOL.get(np.dtype(dtype), 0.0) if rtol is None else rtol
    if got.dtype.kind in "biu":
        np.testing.assert_array_equal(got, expected.astype(got.dtype))
    else:
        np.testing.assert_allclose(_f64(got), _f64(expected.astype(got.dtype)), rtol=rtol,
                                   atol=atol, equal_nan=True)


def check_against_jax(actual, jax_out, expected, **kwargs):
    check(actual, expected, jax_out.dtype, weak=bool(getattr(jax_out, "weak_type", False)),
          **kwargs)


def _accumulator(dt):
    return F32 if dt in LOW else dt


def _promoted(dt):
    """The dtype jax.numpy's sum/prod give (x64 off, except 64-bit inputs)."""
    dt = np.dtype(dt)
    if dt == np.bool_:
        return np.dtype("int32")
    if dt.kind in "iu" and dt.itemsize < 4:
        return np.dtype("uint32" if dt.kind == "u" else "int32")
    return dt


def _inexact(dt):
    dt = np.dtype(dt)
    if dt.kind in "fc" or dt == BF16:
        return dt
    return F64 if dt.itemsize == 8 else F32


def _empty_reduction(shape, axis):
    return any(shape[i] == 0 for i in _norm_axes(axis, len(shape)))


# --------------------------------------------------------------------------------------------
# sum, prod, nansum, nanprod
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("op", ["sum", "prod", "nansum", "nanprod"])
@given(data=st.data())
def test_sum_prod_against_numpy_and_jax(op, data):
    x = data.draw(arrays(nan=op.startswith("nan")))
    axis = data.draw(axes_for(x.ndim))
    keepdims = data.draw(st.booleans())
    where = data.draw(masks_for(x.shape))
    initial = data.draw(st.none() | st.integers(0, 3))
    dtype = data.draw(st.sampled_from([None, None, "int32", "float32"]))
    if x.dtype.kind == "c":  # complex to real drops the imaginary part (with a warning)
        dtype = None
    kwargs = dict(axis=axis, keepdims=keepdims, initial=initial, dtype=dtype)

    out = getattr(fnp, op)(x, **kwargs, where=where)
    jax_out = jax_result(op, x, dtype=dtype)

    result_dtype = np.dtype(dtype) if dtype else _promoted(x.dtype)
    acc = _accumulator(result_dtype)
    values = x
    if op.startswith("nan") and (x.dtype.kind in "fc" or x.dtype == BF16):
        values = np.where(np.isnan(_f64(x)), 1 if "prod" in op else 0, x).astype(x.dtype)
    ufunc = np.multiply if "prod" in op else np.add
    np_kwargs = dict(axis=axis, keepdims=keepdims, dtype=acc)
    if initial is not None:
        np_kwargs["initial"] = initial
    if where is not None:
        np_kwargs["where"] = where
    expected = _quiet(ufunc.reduce, _quiet(values.astype, acc), **np_kwargs)
    n = max(x.size, 1)
    rtol = None if result_dtype in LOW else _RTOL.get(result_dtype, 0) * n
    check_against_jax(out, jax_out, _quiet(np.asarray(expected).astype, result_dtype),
                      rtol=rtol)


def test_sum_float16_accumulates_in_float32():
    x = np.full(3000, 0.1, F16)
    out = fnp.sum(x)
    # Sequential float16 additions stall at 256; one float32 accumulation rounds to 300.
    check(out, np.asarray(jnp.sum(x)), F16)
    assert float(out) == 300.0
    check(fnp.sum(x.astype(BF16)), np.asarray(jnp.sum(x.astype(BF16))), BF16)
    # The primitive itself upcasts, so eager agrees with jit of jnp.sum (which converts).
    assert float(red.reduce_sum_p.bind(fnp.asarray(x), axes=(0,))) == 300.0


def test_prod_float16_accumulates_in_float32():
    x = np.full(30, 1.1, F16)
    check(fnp.prod(x), np.asarray(jnp.prod(x)), F16, rtol=0)


def test_int8_sum_promotes_to_int32_like_jax():
    x = np.full(200, 100, np.int8)
    out = fnp.sum(x)
    check(out, np.asarray(jnp.sum(x)), np.int32)
    assert int(out) == 20000
    # An explicit int8 accumulator wraps around like XLA's (and JAX's) integer adds.
    wrapped = fnp.sum(x, dtype=fnp.int8)
    check(wrapped, np.asarray(jnp.sum(x, dtype=jnp.int8)), np.int8)
    assert int(wrapped) == (20000 + 128) % 256 - 128
    assert fnp.sum(x, promote_integers=False).dtype == np.int8
    big = np.full(3, 2**30, np.int32)
    check(fnp.sum(big), np.asarray(jnp.sum(big)), np.int32)  # wraps to -2**30


def test_sum_of_bool_dtype_is_any_and_prod_is_all():
    x = np.array([[0, 2], [0, 0]])
    check(fnp.sum(x, axis=1, dtype=bool), np.asarray(jnp.sum(x, axis=1, dtype=bool)), bool)
    check(fnp.prod(x, axis=0, dtype=bool), np.asarray(jnp.prod(x, axis=0, dtype=bool)), bool)


@pytest.mark.parametrize("op", ["mean", "nanmean"])
def test_mean_in_bool_dtype_raises_as_in_jax(op):
    x = np.array([1.0, 0.0], np.float32)
    with pytest.raises(TypeError):
        getattr(jnp, op)(x, dtype=bool)
    for call in (getattr(fnp, op), fa.jit(getattr(fnp, op), static_argnames="dtype")):
        with pytest.raises(TypeError, match=f"{op}: dtype=bool cannot hold a mean"):
            call(x, dtype=bool)


def test_reductions_of_python_scalars_and_lists_are_strong():
    for fn in (fnp.sum, fnp.prod, fnp.max, fnp.min, fnp.mean, fnp.var, fnp.cumsum):
        for value in (2.0, 3, [1.0, 2.0]):
            with jax.enable_x64(False):  # Python scalars' default dtypes, as in funcarray
                ref = jax.eval_shape(lambda: getattr(jnp, fn.__name__)(jnp.asarray(value)))
            expected = getattr(np, fn.__name__)(np.asarray(value))
            check(fn(value), expected, ref.dtype, weak=ref.weak_type)
            assert not ref.weak_type


# --------------------------------------------------------------------------------------------
# max, min, nanmax, nanmin, ptp
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("op", ["max", "min", "amax", "amin", "nanmax", "nanmin"])
@given(data=st.data())
def test_max_min_against_numpy_and_jax(op, data):
    x = data.draw(arrays(nan=True, inf=True))
    if x.dtype.kind == "c":  # NaN ordering of complex numbers is not specified anywhere
        x = np.where(np.isnan(x), 0, x).astype(x.dtype)
    axis = data.draw(axes_for(x.ndim))
    keepdims = data.draw(st.booleans())
    initial = data.draw(st.none() | st.sampled_from([-1, 0, 2]))
    where = data.draw(masks_for(x.shape)) if initial is not None else None
    kwargs = dict(axis=axis, keepdims=keepdims, initial=initial)
    fn = getattr(fnp, op)

    if initial is None and _empty_reduction(x.shape, axis):
        with pytest.raises(ValueError, match=f"{op.lstrip('a')}.*zero-size array"):
            fn(x, **kwargs)
        return
    out = fn(x, **kwargs, where=where)
    jax_out = jax_result(op, x)

    is_max = "max" in op
    if op.startswith("nan"):
        ufunc = np.fmax if is_max else np.fmin
    else:
        ufunc = np.maximum if is_max else np.minimum
    wide = x.astype(F32) if x.dtype in LOW else x
    np_kwargs = dict(axis=axis, keepdims=keepdims)
    if initial is not None:  # converted to x's dtype first (-1 wraps around for uint8)
        np_kwargs.update(initial=np.asarray(initial).astype(x.dtype).astype(wide.dtype),
                         where=True if where is None else where)
    expected = _quiet(ufunc.reduce, wide, **np_kwargs)
    check_against_jax(out, jax_out, np.asarray(expected).astype(x.dtype), rtol=0)


def test_max_min_propagate_nan_like_jax():
    x = np.array([[1.0, np.nan, 3.0], [4.0, 5.0, -np.inf]], np.float32)
    for op in ("max", "min"):
        for axis in (None, 0, 1):
            check(getattr(fnp, op)(x, axis=axis), np.asarray(getattr(jnp, op)(x, axis=axis)),
                  np.float32)


def test_max_min_of_bool_and_complex_like_jax():
    b = np.array([[True, False], [False, False]])
    check(fnp.max(b, axis=1), np.asarray(jnp.max(b, axis=1)), bool)
    check(fnp.min(b, axis=0), np.asarray(jnp.min(b, axis=0)), bool)
    c = np.array([1 + 2j, 2 + 0j, 1 + 3j], np.complex64)  # lexicographic order
    check(fnp.max(c), np.asarray(jnp.max(c)), np.complex64)
    check(fnp.min(c), np.asarray(jnp.min(c)), np.complex64)


@given(data=st.data())
def test_ptp_against_numpy(data):
    x = data.draw(arrays([*INTS, *FLOATS], inf=True))
    axis = data.draw(axes_for(x.ndim))
    keepdims = data.draw(st.booleans())
    if _empty_reduction(x.shape, axis):
        with pytest.raises(ValueError, match="ptp"):
            fnp.ptp(x, axis=axis)
        return
    out = fnp.ptp(x, axis=axis, keepdims=keepdims)
    jax_out = jax_result("ptp", x)
    wide = x.astype(F32) if x.dtype in LOW else x
    expected = _quiet(np.ptp, wide, axis=axis, keepdims=keepdims)
    check_against_jax(out, jax_out, np.asarray(expected).astype(x.dtype), rtol=0)


# --------------------------------------------------------------------------------------------
# argmax, argmin, nanargmax, nanargmin
# --------------------------------------------------------------------------------------------

def _nan_arg_oracle(x, axis, keepdims, is_max):
    wide = _f64(x)
    nan = np.isnan(wide)
    filled = np.where(nan, -np.inf if is_max else np.inf, wide)
    index = (np.argmax if is_max else np.argmin)(filled, axis=axis, keepdims=keepdims)
    return np.where(np.all(nan, axis=axis, keepdims=keepdims), -1, index)


@pytest.mark.parametrize("op", ["argmax", "argmin", "nanargmax", "nanargmin"])
@given(data=st.data())
def test_argmax_argmin_against_numpy_and_jax(op, data):
    x = data.draw(arrays(REAL, nan=True, inf=True))
    axis = data.draw(st.none() | st.integers(-x.ndim, x.ndim - 1)) if x.ndim else None
    keepdims = data.draw(st.booleans())
    fn = getattr(fnp, op)
    empty = x.size == 0 if axis is None else x.shape[axis] == 0
    if empty:
        with pytest.raises(ValueError, match=f"{op}.*empty"):
            fn(x, axis=axis)
        return
    out = fn(x, axis=axis, keepdims=keepdims)
    jax_out = jax_result(op, x)
    is_max = "max" in op
    if op.startswith("nan"):
        expected = _nan_arg_oracle(x, axis, keepdims, is_max)
    else:  # NumPy, like JAX, reports the first NaN
        wide = x.astype(F32) if x.dtype in LOW else x
        expected = (np.argmax if is_max else np.argmin)(wide, axis=axis, keepdims=keepdims)
    # Indices are int32 even for 64-bit inputs (x64-mode JAX would give int64).
    check(out, expected, np.int32)
    assert not jax_out.weak_type and np.dtype(jax_out.dtype).kind == "i"


def test_argmax_with_nan_matches_jax_values():
    x = np.array([[1.0, np.nan, 3.0, np.nan], [-np.inf, -np.inf, 2.0, 2.0],
                  [np.nan, 0.0, np.nan, 5.0]], np.float32)
    calls = [(op, axis) for op in ("argmax", "argmin", "nanargmax", "nanargmin")
             for axis in (None, 0, 1)]
    refs = jax.jit(lambda a: [getattr(jnp, op)(a, axis=axis) for op, axis in calls])(x)
    for (op, axis), ref in zip(calls, refs):
        check(getattr(fnp, op)(x, axis=axis), np.asarray(ref), np.int32)
    low = [x.astype(F16), x.astype(BF16)]
    refs = jax.jit(lambda ys: [jnp.argmax(y, axis=1) for y in ys])(low)
    for y, ref in zip(low, refs):
        check(fnp.argmax(y, axis=1), np.asarray(ref), np.int32)


def test_nanargmax_all_nan_slice_gives_minus_one_like_jax():
    x = np.array([[np.nan, np.nan], [1.0, np.nan]], np.float32)
    check(fnp.nanargmax(x, axis=1), np.asarray(jnp.nanargmax(x, axis=1)), np.int32)
    check(fnp.nanargmin(x, axis=1, keepdims=True), [[-1], [0]], np.int32)


def test_argmax_keepdims_without_axis_keeps_every_dimension():
    x = np.arange(6.0).reshape(2, 3)
    out = fnp.argmax(x, keepdims=True)
    check(out, np.asarray(jnp.argmax(x, keepdims=True)), np.int32)
    assert out.shape == (1, 1)


# --------------------------------------------------------------------------------------------
# all, any, count_nonzero
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("op", ["all", "any"])
@given(data=st.data())
def test_all_any_against_numpy(op, data):
    x = data.draw(arrays(nan=True))
    axis = data.draw(axes_for(x.ndim))
    keepdims = data.draw(st.booleans())
    where = data.draw(masks_for(x.shape))
    out = getattr(fnp, op)(x, axis=axis, keepdims=keepdims, where=where)
    jax_out = jax_result(op, x)
    truth = _f64(x) != 0  # NumPy's rule: nonzero (complex: either part) is true
    expected = getattr(np, op)(truth, axis=axis, keepdims=keepdims,
                               where=True if where is None else where)
    check_against_jax(out, jax_out, expected)


def test_any_of_imaginary_numbers_follows_numpy():
    # jax.numpy looks at the real part only and says False here; NumPy (and we) say True.
    assert bool(fnp.any(np.array([1j], np.complex64)))
    assert not bool(fnp.all(np.array([1j, 0j], np.complex64)))


@given(data=st.data())
def test_count_nonzero_against_numpy(data):
    x = data.draw(arrays(nan=True))
    axis = data.draw(axes_for(x.ndim))
    keepdims = data.draw(st.booleans())
    out = fnp.count_nonzero(x, axis=axis, keepdims=keepdims)
    jax_out = jax_result("count_nonzero", x)
    expected = np.count_nonzero(_f64(x), axis=axis, keepdims=keepdims)
    check(out, expected, np.int32)
    assert jax_out.dtype == np.int32 or np.dtype(x.dtype) in WIDE


# --------------------------------------------------------------------------------------------
# mean, var, std and their NaN-skipping forms, average
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("op", ["mean", "nanmean"])
@given(data=st.data())
def test_mean_against_numpy_and_jax(op, data):
    x = data.draw(arrays(nan=op == "nanmean"))
    axis = data.draw(axes_for(x.ndim))
    keepdims = data.draw(st.booleans())
    where = data.draw(masks_for(x.shape))
    out = getattr(fnp, op)(x, axis=axis, keepdims=keepdims, where=where)
    jax_out = jax_result(op, x)
    np_fn = np.nanmean if op == "nanmean" else np.mean
    expected = _quiet(np_fn, _f64(x), axis=axis, keepdims=keepdims,
                      where=True if where is None else where)
    check_against_jax(out, jax_out, np.asarray(expected).astype(_inexact(x.dtype)))


def _var_oracle(op, x, axis, keepdims, where, ddof):
    wide = _f64(x)
    valid = np.ones(x.shape, bool) if where is None else np.broadcast_to(where, x.shape)
    if op.startswith("nan"):
        valid = valid & ~np.isnan(wide)
    np_fn = {"var": np.var, "std": np.std, "nanvar": np.nanvar, "nanstd": np.nanstd}[op]
    expected = _quiet(np_fn, wide, axis=axis, keepdims=keepdims, ddof=ddof,
                      where=True if where is None else where)
    count = np.sum(valid, axis=axis, keepdims=keepdims)
    return np.where(count - ddof > 0, expected, np.nan)  # no degrees of freedom left: NaN


@pytest.mark.parametrize("op", ["var", "std", "nanvar", "nanstd"])
@given(data=st.data())
def test_var_std_against_numpy_and_jax(op, data):
    x = data.draw(arrays(nan=op.startswith("nan")))
    axis = data.draw(axes_for(x.ndim))
    keepdims = data.draw(st.booleans())
    where = data.draw(masks_for(x.shape))
    ddof = data.draw(st.sampled_from([0, 1, 2]))
    use_correction = data.draw(st.booleans())
    spread = dict(correction=ddof) if use_correction else dict(ddof=ddof)
    out = getattr(fnp, op)(x, axis=axis, keepdims=keepdims, where=where, **spread)
    jax_out = jax_result(op, x)
    expected = _var_oracle(op, x, axis, keepdims, where, ddof)
    real = np.dtype(jax_out.dtype)
    check_against_jax(out, jax_out, expected.real.astype(real), rtol=_RTOL[real] * 10,
                      atol=_RTOL[real] * 10)


def test_var_ddof_and_correction_together_raise():
    with pytest.raises(ValueError, match="var: give ddof or correction, not both"):
        fnp.var(np.ones(3), ddof=1, correction=1)


def test_std_dtype_must_be_inexact():
    with pytest.raises(ValueError, match="std: dtype must be a float or complex"):
        fnp.std(np.ones(3), dtype=np.int32)
    check(fnp.var(np.arange(4), dtype=np.float64), np.var(np.arange(4)), F64)


@given(data=st.data())
def test_average_against_numpy_and_jax(data):
    # (uint64 is left out: funcarray's lattice sends uint64 + int32 to weak float32, where
    # x64-mode JAX gives float64; that rule belongs to dtypes.py, not to average.)
    x_dtypes = [d for d in REAL if d != np.uint64] + [np.dtype("complex64")]
    x = data.draw(arrays(x_dtypes, min_dims=1, min_side=1))
    axis = data.draw(st.none() | st.integers(-x.ndim, x.ndim - 1))
    weight_kind = data.draw(st.sampled_from(["none", "full", "axis"] if axis is not None
                                            else ["none", "full"]))
    weight_dtype = np.dtype(data.draw(st.sampled_from([np.int32, np.float32, np.float16])))
    keepdims = data.draw(st.booleans())
    returned = data.draw(st.booleans())
    weights = None
    if weight_kind != "none":
        shape = x.shape if weight_kind == "full" else (x.shape[axis],)
        weights = data.draw(hnp.arrays(weight_dtype, shape, elements=st.sampled_from([1, 2, 3])))
    out = fnp.average(x, axis=axis, weights=weights, returned=returned, keepdims=keepdims)
    jax_out = jax_result("average", x, weights=weights, returned=returned)
    expected = _quiet(np.average, _f64(x), axis=axis, returned=returned, keepdims=keepdims,
                      weights=None if weights is None else _f64(weights))
    if returned:
        for got, ref, exp in zip(out, jax_out, expected):
            check_against_jax(got, ref, np.asarray(exp).astype(ref.dtype))
    else:
        check_against_jax(out, jax_out, np.asarray(expected).astype(jax_out.dtype))


def test_average_weights_along_several_axes():
    x = np.arange(24.0, dtype=np.float32).reshape(2, 3, 4)
    w = np.arange(1.0, 9.0, dtype=np.float32).reshape(4, 2)
    out = fnp.average(x, axis=(2, 0), weights=w)
    check(out, np.average(x, axis=(2, 0), weights=w), np.float32)
    with pytest.raises(ValueError, match="average: weights of shape"):
        fnp.average(x, axis=1, weights=np.ones(4))
    with pytest.raises(ValueError, match="average: axis must be given"):
        fnp.average(x, weights=np.ones(4))


# --------------------------------------------------------------------------------------------
# Cumulative reductions
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
@given(data=st.data())
def test_cumsum_cumprod_against_numpy_and_jax(op, data):
    x = data.draw(arrays())
    axis = data.draw(st.none() | st.integers(-x.ndim, x.ndim - 1)) if x.ndim else None
    dtype = data.draw(st.sampled_from([None, None, "int32", "float32", "bool"]))
    if x.dtype.kind == "c":  # complex to real drops the imaginary part (with a warning)
        dtype = None
    out = getattr(fnp, op)(x, axis=axis, dtype=dtype)
    jax_out = jax_result(op, x, dtype=dtype)
    values = (_f64(x) != 0) if dtype == "bool" else x
    if dtype == "bool":
        acc = np.dtype(np.int32)
    elif dtype is not None:
        acc = np.dtype(dtype)
    else:
        acc = np.dtype(np.int32) if x.dtype == bool else x.dtype
    acc = _accumulator(acc)
    expected = _quiet(getattr(np, op), _quiet(values.astype, acc), axis=axis, dtype=acc)
    result_dtype = np.dtype(dtype) if dtype else (np.dtype(np.int32) if x.dtype == bool
                                                   else x.dtype)
    rtol = None if result_dtype in LOW else _RTOL.get(result_dtype, 0) * max(x.size, 1)
    # (a float32 accumulator's overflow to inf when cast back is part of what is compared)
    check_against_jax(out, jax_out, _quiet(np.asarray(expected).astype, result_dtype), rtol=rtol)


@pytest.mark.parametrize("op", ["cumulative_sum", "cumulative_prod"])
@given(data=st.data())
def test_cumulative_array_api_against_numpy_and_jax(op, data):
    x = data.draw(arrays(min_dims=1))
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1)) if x.ndim > 1 or data.draw(
        st.booleans()) else None
    include_initial = data.draw(st.booleans())
    out = getattr(fnp, op)(x, axis=axis, include_initial=include_initial)
    # (cumulative_prod accumulates as cumulative_sum does, by the Array API standard; jax's
    # keeps narrow integers: docs/decisions.md, "The Array API standard")
    jax_out = jax_result("cumulative_sum", x)
    acc = _accumulator(np.dtype(jax_out.dtype))
    expected = _quiet(getattr(np, op), x.astype(acc), axis=axis, dtype=acc,
                      include_initial=include_initial)
    rtol = None if jax_out.dtype in LOW else _RTOL.get(np.dtype(jax_out.dtype), 0) * x.size
    check_against_jax(out, jax_out, np.asarray(expected).astype(jax_out.dtype), rtol=rtol)


def test_cumulative_sum_needs_axis_for_nd_arrays():
    with pytest.raises(ValueError, match="cumulative_sum: axis must be given"):
        fnp.cumulative_sum(np.ones((2, 2)))
    with pytest.raises(ValueError, match="cumulative_prod: needs an array with at least one"):
        fnp.cumulative_prod(np.float32(1))


def test_cumsum_int8_keeps_dtype_and_wraps_like_jax():
    x = np.full(4, 100, np.int8)
    check(fnp.cumsum(x), np.asarray(jnp.cumsum(x)), np.int8)
    check(fnp.cumsum(x > 0), np.asarray(jnp.cumsum(x > 0)), np.int32)


# --------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("op", ["sum", "prod", "mean", "var", "std", "max", "min", "all", "any",
                                "nansum", "nanmean", "nanvar", "count_nonzero"])
def test_bad_axes_raise_clear_errors(op):
    fn, x = getattr(fnp, op), np.ones((2, 3), np.float32)
    with pytest.raises(ValueError, match=rf"{op}: axis 2 is out of bounds .* -2 to 1"):
        fn(x, axis=2)
    with pytest.raises(ValueError, match=rf"{op}: axis -3 is out of bounds"):
        fn(x, axis=(0, -3))
    with pytest.raises(ValueError, match=rf"{op}: repeated axis"):
        fn(x, axis=(1, -1))
    with pytest.raises(TypeError, match=rf"{op}: axis must be an integer"):
        fn(x, axis=0.5)
    with pytest.raises(ValueError, match=rf"{op}: axis 0 is out of bounds for a 0-d"):
        fn(np.float32(1), axis=0)


@pytest.mark.parametrize("op", ["argmax", "argmin", "cumsum", "cumprod"])
def test_bad_single_axis_raises(op):
    with pytest.raises(ValueError, match=rf"{op}: axis 2 is out of bounds"):
        getattr(fnp, op)(np.ones((2, 3)), axis=2)


def test_out_argument_is_refused():
    for fn in (fnp.sum, fnp.max, fnp.mean, fnp.argmax, fnp.cumsum, fnp.nanvar, fnp.all):
        with pytest.raises(TypeError, match=rf"{fn.__name__}: out= is not supported.*immutable"):
            fn(np.ones(2), out=np.ones(2))


def test_where_mask_errors():
    with pytest.raises(TypeError, match="sum: where= must be a boolean mask"):
        fnp.sum(np.ones(3), where=np.ones(3, np.int32))
    with pytest.raises(ValueError, match=r"mean: .*\(2,\) and \(3,\) cannot be broadcast"):
        fnp.mean(np.ones(3), where=np.ones(2, bool))
    with pytest.raises(ValueError, match=r"all: the where= mask of shape \(2, 3\) does not"):
        fnp.all(np.ones(3), where=np.ones((2, 3), bool))
    with pytest.raises(ValueError, match="max: where= needs initial="):
        fnp.max(np.ones(3), where=np.ones(3, bool))


def test_empty_max_and_argmax_errors_name_the_function():
    with pytest.raises(ValueError, match="min: zero-size array to reduction operation min"):
        fnp.min(np.ones((0, 3)), axis=0)
    check(fnp.min(np.ones((0, 3)), axis=1), np.ones((0,)), np.float64)
    check(fnp.max(np.ones((0, 3), np.float32), axis=0, initial=2.5), [2.5] * 3, np.float32)
    with pytest.raises(ValueError, match="argmin: attempt to get argmin of an empty sequence"):
        fnp.argmin(np.ones((2, 0)), axis=1)


def test_dtype_errors():
    with pytest.raises(TypeError, match="argmax: complex numbers"):
        fnp.argmax(np.ones(2, np.complex64))
    with pytest.raises(TypeError, match="ptp: bool arrays"):
        fnp.ptp(np.ones(2, bool))
    with pytest.raises(ValueError, match="sum: initial must be a scalar"):
        fnp.sum(np.ones(2), initial=np.ones(2))
    with pytest.raises(TypeError, match="sum: .*not supported"):
        fnp.sum(np.ones(2), dtype="U3")


def test_array_methods_use_these_functions():
    x = fnp.asarray(np.arange(6, dtype=np.int8).reshape(2, 3))
    check(x.sum(axis=0), np.asarray(jnp.sum(np.asarray(x), axis=0)), np.int32)
    check(x.max(1), [2, 5], np.int8)
    check(x.argmin(), np.int32(0), np.int32)
    check(x.mean(), 2.5, np.float32)
    check(x.var(ddof=1), np.var(np.arange(6), ddof=1), np.float32)
    check(x.cumsum(axis=1), np.cumsum(np.asarray(x), axis=1).astype(np.int8), np.int8)
    assert bool(x.any()) and not bool(x.all())


# --------------------------------------------------------------------------------------------
# Primitives: contracts, identities, weak types, abstract_eval vs impl
# --------------------------------------------------------------------------------------------

_REDUCERS = {
    "reduce_sum": (red.reduce_sum_p, lax.reduce_sum, [*INTS, *FLOATS, *COMPLEX]),
    "reduce_prod": (red.reduce_prod_p, lax.reduce_prod, [*INTS, *FLOATS, *COMPLEX]),
    "reduce_max": (red.reduce_max_p, lax.reduce_max, ALL),
    "reduce_min": (red.reduce_min_p, lax.reduce_min, ALL),
    "reduce_and": (red.reduce_and_p, lax.reduce_and, [np.dtype(bool), *INTS]),
    "reduce_or": (red.reduce_or_p, lax.reduce_or, [np.dtype(bool), *INTS]),
    "reduce_xor": (red.reduce_xor_p, lax.reduce_xor, [np.dtype(bool), *INTS]),
}
_SCANS = {
    "cumsum": (red.cumsum_p, [*INTS, *FLOATS, *COMPLEX]),
    "cumprod": (red.cumprod_p, [*INTS, *FLOATS, *COMPLEX]),
    "cummax": (red.cummax_p, [*INTS, *FLOATS]),
    "cummin": (red.cummin_p, [*INTS, *FLOATS]),
    "cumlogsumexp": (red.cumlogsumexp_p, FLOATS),
}


def _reduce_oracle(name, x, axes):
    acc = F32 if x.dtype in LOW else x.dtype
    if name in ("reduce_sum", "reduce_prod"):
        ufunc = np.add if name == "reduce_sum" else np.multiply
        return ufunc.reduce(x.astype(acc), axis=axes, dtype=acc).astype(x.dtype)
    if name in ("reduce_max", "reduce_min"):
        ident = red.max_identity(x.dtype) if name == "reduce_max" else red.min_identity(x.dtype)
        ufunc = np.maximum if name == "reduce_max" else np.minimum
        # The identity only fills empty reductions: complex (+-inf, 0) is no true identity.
        start = {"initial": ident.astype(acc)} if _empty_reduction(x.shape, axes) else {}
        return ufunc.reduce(x.astype(acc), axis=axes, **start).astype(x.dtype)
    ufunc = {"reduce_and": np.bitwise_and, "reduce_or": np.bitwise_or,
             "reduce_xor": np.bitwise_xor}[name]
    return np.asarray(ufunc.reduce(x, axis=axes)).astype(x.dtype)


@pytest.mark.parametrize("name", sorted(_REDUCERS))
@given(data=st.data())
def test_reduce_primitives_against_numpy(name, data):
    prim, _, accepted = _REDUCERS[name]
    x = data.draw(arrays(accepted, nan=name in ("reduce_max", "reduce_min"), inf=True))
    if x.dtype.kind == "c":
        x = np.where(np.isnan(x), 0, x).astype(x.dtype)
    axes = tuple(sorted(data.draw(st.sets(st.integers(0, max(x.ndim - 1, 0)))))) if x.ndim \
        else ()
    weak = data.draw(st.booleans())
    arg = fa.Array(np.array(x), weak)
    out = prim.bind(arg, axes=axes)
    n = max(x.size, 1)
    rtol = 0 if x.dtype.kind in "biu" or "max" in name or "min" in name else (
        _RTOL[F32 if x.dtype in LOW else x.dtype] * n)
    keeps_weak = name not in ("reduce_and", "reduce_or", "reduce_xor")
    check(out, _quiet(_reduce_oracle, name, x, axes), x.dtype, weak=weak and keeps_weak,
          rtol=rtol)
    assert prim.abstract_eval(arg.aval, axes=axes) == out.aval


def test_reduce_identities_of_empty_reductions_match_xla():
    for dt in ALL:
        if dt in WIDE:
            continue
        names = [n for n, (_, _, accepted) in _REDUCERS.items() if dt in accepted]
        # One compiled function per dtype keeps this test fast.
        refs = jax.jit(lambda x: [_REDUCERS[n][1](x, (0,)) for n in names])(np.zeros((0, 2), dt))
        for name, ref in zip(names, refs):
            out = _REDUCERS[name][0].bind(fa.Array(np.zeros((0, 2), dt)), axes=(0,))
            check(out, np.asarray(ref), dt, rtol=0)


def test_primitive_weak_types_match_jax():
    for name, (prim, lax_fn, _) in _REDUCERS.items():
        scalar = 2 if name in ("reduce_and", "reduce_or", "reduce_xor") else 2.0
        ref = jax.eval_shape(lambda s: lax_fn(lax.broadcast_in_dim(s, (3,), ()), (0,)), scalar)
        arg = fa.Array(np.full(3, scalar, np.dtype(ref.dtype)), True)
        assert prim.bind(arg, axes=(0,)).aval == ShapedArray((), ref.dtype, ref.weak_type), name
    ref = jax.eval_shape(lambda s: lax.argmax(lax.broadcast_in_dim(s, (3,), ()), 0, jnp.int32),
                         2.0)
    out = red.argmax_p.bind(fa.Array(np.ones(3, np.float32), True), axes=(0,),
                            index_dtype=np.dtype(np.int32))
    assert out.aval == ShapedArray((), ref.dtype, ref.weak_type)


@pytest.mark.parametrize("name", sorted(_SCANS))
@given(data=st.data())
def test_scan_primitives_against_numpy(name, data):
    prim, accepted = _SCANS[name]
    x = data.draw(arrays(accepted, min_dims=1, nan=True, inf=name != "cumprod"))
    axis = data.draw(st.integers(0, x.ndim - 1))
    reverse = data.draw(st.booleans())
    weak = data.draw(st.booleans())
    arg = fa.Array(np.array(x), weak)
    out = prim.bind(arg, axis=axis, reverse=reverse)
    acc = F32 if x.dtype in LOW else x.dtype
    ufunc = {"cumsum": np.add, "cumprod": np.multiply, "cummax": np.maximum,
             "cummin": np.minimum, "cumlogsumexp": np.logaddexp}[name]
    work = np.flip(x, axis) if reverse else x
    expected = _quiet(ufunc.accumulate, work.astype(acc), axis=axis, dtype=acc)
    expected = (np.flip(expected, axis) if reverse else expected).astype(x.dtype)
    exact = x.dtype.kind in "biu" or name in ("cummax", "cummin")
    rtol = 0 if exact else _RTOL[acc] * x.shape[axis] * 4
    check(out, expected, x.dtype, weak=weak, rtol=rtol)
    assert prim.abstract_eval(arg.aval, axis=axis, reverse=reverse) == out.aval


def test_scan_primitives_match_jax_lax_on_a_sample():
    x = np.array([[0.5, -1.0, np.nan, 2.0], [3.0, -np.inf, 1.0, 0.25]], np.float32)
    calls = [(name, reverse) for name in ("cumsum", "cummax", "cummin", "cumlogsumexp")
             for reverse in (False, True)]
    refs = jax.jit(lambda a: [getattr(lax, name)(a, axis=1, reverse=reverse)
                              for name, reverse in calls])(x)
    for (name, reverse), ref in zip(calls, refs):
        out = _SCANS[name][0].bind(fa.Array(x), axis=1, reverse=reverse)
        check(out, np.asarray(ref), np.float32)


@given(data=st.data())
def test_arg_primitives_against_numpy(data):
    x = data.draw(arrays(REAL, min_dims=1, min_side=1, nan=True, inf=True))
    axis = data.draw(st.integers(0, x.ndim - 1))
    index_dtype = np.dtype(data.draw(st.sampled_from([np.int32, np.int64, np.uint8])))
    for prim, np_fn in ((red.argmax_p, np.argmax), (red.argmin_p, np.argmin)):
        arg = fa.Array(np.array(x), data.draw(st.booleans()))
        out = prim.bind(arg, axes=(axis,), index_dtype=index_dtype)
        wide = x.astype(F32) if x.dtype in LOW else x
        check(out, np_fn(wide, axis=axis), index_dtype)
        assert prim.abstract_eval(arg.aval, axes=(axis,), index_dtype=index_dtype) == out.aval


@pytest.mark.parametrize("bad", [(1, 0), (0, 0), (2,), (-1,), [0], (0.0,)])
def test_primitives_reject_bad_axes(bad):
    x = fa.Array(np.ones((2, 3), np.float32))
    for prim in (red.reduce_sum_p, red.reduce_max_p):
        match = rf"Primitive '{prim.name}' needs axes as a sorted tuple .* float32\[2,3\]"
        with pytest.raises(TypeError, match=match):
            prim.bind(x, axes=bad)
        with pytest.raises(TypeError, match=match):
            prim.abstract_eval(x.aval, axes=bad)


def test_remembered_axes_checks_still_reject_equal_values_of_other_types():
    # A checked signature is remembered, keyed by the axes' types too: (0,) == (0.0,) and
    # (np.int64(0),) in Python, but only ints are valid axes.
    x = fa.Array(np.ones((2, 3), np.float32))
    for prim in (red.reduce_sum_p, red.reduce_max_p):
        prim.bind(x, axes=(0,))
        prim.bind(x, axes=(0,))  # remembered
        for bad in ((0.0,), (np.int64(0),), [0]):
            with pytest.raises(TypeError, match="needs axes as a sorted tuple"):
                prim.bind(x, axes=bad)
            with pytest.raises(TypeError, match="needs axes as a sorted tuple"):
                prim.abstract_eval(x.aval, axes=bad)


def test_primitives_reject_bad_dtypes_and_params():
    b = fa.Array(np.ones(3, bool))
    with pytest.raises(TypeError, match=r"'reduce_sum' does not accept bool\[3\]; it takes"):
        red.reduce_sum_p.bind(b, axes=(0,))
    with pytest.raises(TypeError, match="'reduce_and' does not accept float32"):
        red.reduce_and_p.abstract_eval(ShapedArray((3,), F32), axes=(0,))
    with pytest.raises(TypeError, match="'cumlogsumexp' does not accept int32"):
        red.cumlogsumexp_p.bind(fa.Array(np.ones(3, np.int32)), axis=0, reverse=False)
    with pytest.raises(TypeError, match="'cumsum' needs axis as an int in"):
        red.cumsum_p.bind(fa.Array(np.ones(3)), axis=1, reverse=False)
    with pytest.raises(TypeError, match="'argmax' reduces exactly one axis"):
        red.argmax_p.bind(fa.Array(np.ones((2, 2))), axes=(0, 1), index_dtype=np.dtype("i4"))
    with pytest.raises(TypeError, match="'argmin' needs a non-empty axis"):
        red.argmin_p.abstract_eval(ShapedArray((0, 2), F32), axes=(0,),
                                   index_dtype=np.dtype("i4"))
    with pytest.raises(TypeError, match="'argmax' needs an integer np.dtype"):
        red.argmax_p.bind(fa.Array(np.ones(2)), axes=(0,), index_dtype=np.dtype("f4"))
    with pytest.raises(TypeError, match="'argmax' does not accept complex64"):
        red.argmax_p.bind(fa.Array(np.ones(2, np.complex64)), axes=(0,),
                          index_dtype=np.dtype("i4"))


# --------------------------------------------------------------------------------------------
# The public functions under a transform: an abstract trace that only knows avals
# --------------------------------------------------------------------------------------------

class _AvalTracer(Tracer):
    __slots__ = ("_aval",)

    def __init__(self, trace, aval):
        self._trace = trace
        self._aval = aval

    @property
    def aval(self):
        return self._aval


class _AvalTrace(Trace):
    """Evaluates nothing: each primitive's abstract_eval gives the result's aval."""

    __slots__ = ()

    def process_primitive(self, prim, args, params):
        out = prim.abstract_eval(*(a.aval for a in args), **params)
        return _AvalTracer(self, out)


def abstract_result(fn, *arrays):
    trace = _AvalTrace()
    tracers = [_AvalTracer(trace, fa.Array(np.asarray(a)).aval) for a in arrays]
    with set_current_trace(trace):
        out = fn(*tracers)
    return [o.aval for o in out] if isinstance(out, tuple) else out.aval


_TRACED_CALLS = [
    ("sum", dict(axis=(0, -1), keepdims=True, initial=1)),
    ("prod", dict(axis=1, dtype="float32")),
    ("mean", dict(axis=0)),
    ("var", dict(ddof=1, axis=(1,))),
    ("std", dict(keepdims=True)),
    ("max", dict(axis=1, initial=0)),
    ("min", dict(axis=(0, 1))),
    ("argmax", dict(axis=1, keepdims=True)),
    ("argmin", dict()),
    ("all", dict(axis=0)),
    ("any", dict(keepdims=True)),
    ("cumsum", dict(axis=-1)),
    ("cumprod", dict()),
    ("cumulative_sum", dict(axis=0, include_initial=True)),
    ("cumulative_prod", dict(axis=1)),
    ("ptp", dict(axis=0)),
    ("average", dict(axis=1, returned=True)),
    ("count_nonzero", dict(axis=1)),
    ("nansum", dict(axis=0)),
    ("nanprod", dict()),
    ("nanmean", dict(axis=1)),
    ("nanmax", dict(axis=0)),
    ("nanmin", dict(keepdims=True)),
    ("nanargmax", dict(axis=0)),
    ("nanargmin", dict()),
    ("nanvar", dict(axis=1, ddof=1)),
    ("nanstd", dict()),
]


@pytest.mark.parametrize("op, kwargs", _TRACED_CALLS, ids=[c[0] for c in _TRACED_CALLS])
@pytest.mark.parametrize("dtype", [np.int8, np.float16, np.float32])
def test_functions_trace_and_abstract_eval_agrees_with_eager(op, kwargs, dtype):
    x = np.arange(12).reshape(3, 4).astype(dtype)
    if np.dtype(dtype).kind == "f":
        x[1, 2] = np.nan
    fn = getattr(fnp, op)
    eager = fn(x, **kwargs)
    traced = abstract_result(lambda t: fn(t, **kwargs), x)
    if isinstance(eager, tuple):
        assert traced == [e.aval for e in eager]
    else:
        assert traced == eager.aval


def test_where_mask_can_be_traced():
    x, m = np.ones((2, 3), np.float32), np.array([True, False, True])
    traced = abstract_result(lambda a, w: fnp.mean(a, axis=1, where=w), x, m)
    assert traced == fnp.mean(x, axis=1, where=m).aval == ShapedArray((2,), F32)

