"""Tests of the lowering layer: IR -> StableHLO text -> XLA executable -> results.

The eager NumPy kernels are the oracle: both they and the lowering follow StableHLO
semantics, so compiled and eager results must agree (exactly for integer ops, within a
dtype-sized tolerance for transcendental functions).
"""

from __future__ import annotations

import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest
from helpers import numpy_eager, rtol_for
from hypothesis import given
from hypothesis import strategies as st

import funcarray as fa
import funcarray.numpy as fnp
from funcarray import dtypes
from funcarray.base.array import Array
from funcarray.lowering import cache, runtime
from funcarray.lowering import stablehlo as sh
from funcarray.lowering.executor import execute_ir
from funcarray.primitives import elementwise as ew
from funcarray.primitives import shape as shape_ops
from funcarray.primitives.conversions import convert_element_type_p
from funcarray.transforms.core import MissingRuleError, Primitive, ShapedArray
from funcarray.transforms.ir import IR, ClosedIR, Eqn, Var
from funcarray.transforms.staging import make_ir, stage_flat


def run_flat(f, *args):
    """Stage ``f(*args) -> list`` and run it compiled; returns NumPy values."""
    closed = stage_flat(f, [x.aval for x in args])
    return [np.asarray(y._value) for y in execute_ir(closed, list(args))]


def eager_flat(f, *args):
    return [np.asarray(y._value) for y in f(*args)]


def bits(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(x).view(np.uint8)


def assert_same_values(got, want, err_msg=""):
    """Exact equality with NaNs equal, for every dtype (ml_dtypes floats included)."""
    assert got.dtype == want.dtype, err_msg
    if got.dtype.kind in "fcV":
        wide = np.complex128 if got.dtype.kind == "c" else np.float64
        got, want = got.astype(wide), want.astype(wide)
    np.testing.assert_array_equal(got, want, err_msg=err_msg)


# --------------------------------------------------------------------------------------------
# runtime: version, imports, transfers, argument checks, serialization
# --------------------------------------------------------------------------------------------


def test_version_check():
    runtime._jax()  # the installed version is a supported one
    for version in ("0.10.2", "0.10.3", "0.11.0", "0.11.2"):
        runtime._check_version(version)
    for version in ("0.4.38", "0.10.1", "0.12.0", "1.10.3", "0.11", "0.11.dev"):
        with pytest.raises(runtime.RuntimeVersionError,
                           match=rf"supports jaxlib >=0\.10\.2,<0\.12 .*{version}"):
            runtime._check_version(version)


def test_importing_lowering_does_not_import_jax():
    code = ("import sys, funcarray, funcarray.numpy, funcarray.lowering.stablehlo, "
            "funcarray.lowering.runtime, funcarray.lowering.cache; "
            "assert 'jax' not in sys.modules and 'jaxlib' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


def _valid_values(dtype, rng) -> np.ndarray:
    """Values of ``dtype`` covering its bit patterns (specials included), 16 of them."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, 16).astype(bool)
    width = sh._bit_width(dtype) if dtype.kind == "V" or dtype.itemsize == 1 else None
    if dtype.name in ("int2", "int4", "uint2", "uint4"):
        info = ml_dtypes.iinfo(dtype)
        return rng.integers(int(info.min), int(info.max) + 1, 16).astype(dtype)
    raw = rng.integers(0, 256, 16 * dtype.itemsize, dtype=np.uint8)
    if width is not None and width < 8:
        raw &= (1 << width) - 1
    return raw.view(dtype)


TRANSFERABLE = [dt for dt in dtypes.supported_dtypes if not dt.name.startswith("float6")]


@pytest.mark.parametrize("dtype", TRANSFERABLE, ids=lambda d: d.name)
def test_device_put_round_trips_exactly(dtype):
    x = _valid_values(dtype, np.random.default_rng(0)).reshape(4, 4)
    y = runtime.to_numpy(runtime.device_put(x))
    assert y.dtype == x.dtype and y.shape == x.shape
    np.testing.assert_array_equal(bits(y), bits(x))


def test_device_put_copies_the_host_buffer():
    x = np.arange(4.0)
    on_device = runtime.device_put(x)
    x[:] = -1.0  # the caller may reuse its buffer right after the call
    np.testing.assert_array_equal(runtime.to_numpy(on_device), np.arange(4.0))


def test_device_put_unsupported_dtype_is_a_clear_error():
    x = np.arange(2).astype(ml_dtypes.float6_e2m3fn)
    try:
        buf = runtime.device_put(x)
    except TypeError as exc:  # jaxlib 0.10: not a device dtype
        assert "device_put: cannot copy a float6_e2m3fn[2]" in str(exc)
    else:  # jaxlib 0.11 added it: the values must arrive intact
        np.testing.assert_array_equal(runtime.to_numpy(buf).astype(np.float32), [0.0, 1.0])


@pytest.mark.parametrize("dtype", ["float6_e2m3fn", "float6_e3m2fn"])
@pytest.mark.parametrize("body", [lambda x: x + 3, lambda x: x, lambda x: x * x],
                         ids=["constant", "identity", "arithmetic"])
def test_jit_of_float6_is_a_clear_error_not_a_crash(dtype, body):
    # XLA aborts the process on a float6 constant (jaxlib 0.10 and 0.11) and cannot add float6
    # values on CPU: lowering refuses the type before XLA sees it, naming the fix.
    x = fnp.asarray(np.array([1.0, 2.0]).astype(getattr(ml_dtypes, dtype)))
    with pytest.raises(TypeError, match=f"jit: XLA cannot run {dtype} values.*astype"):
        fa.jit(body)(x)
    with numpy_eager():  # eager works, with NumPy's kernels (XLA's would raise the same)
        np.testing.assert_array_equal(np.asarray(body(x)).astype(np.float32),
                                      np.asarray(body(x.astype(np.float32))).astype(dtype)
                                      .astype(np.float32))


ADD_F32 = """module @m {
  func.func public @main(%a: tensor<3xf32>, %b: tensor<3xf32>) -> (tensor<3xf32>) {
    %0 = "stablehlo.add"(%a, %b) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    "func.return"(%0) : (tensor<3xf32>) -> ()
  }
}"""
F32_3 = ((3,), np.float32)


@pytest.fixture(scope="module")
def add_exe():
    return runtime.compile(ADD_F32, [F32_3, F32_3], [F32_3])


def test_execute_accepts_numpy_and_device_arrays(add_exe):
    a = np.array([1, 2, 3], np.float32)
    (out,) = runtime.execute(add_exe, [a, runtime.device_put(a)])
    np.testing.assert_array_equal(runtime.to_numpy(out), [2, 4, 6])


def test_execute_buffers_buffer_executor_and_execute_steps_agree(add_exe):
    a, b = (runtime.device_put(np.array(v, np.float32)) for v in ([1, 2, 3], [10, 20, 30]))
    (direct,) = runtime.execute_buffers(add_exe, [a, b])
    (bound,) = runtime.buffer_executor(add_exe)([a, b])
    start, finish, handlers = runtime.execute_steps(add_exe)
    (stepped,) = finish(start([a, b]), handlers)
    for out in (direct, bound, stepped):
        np.testing.assert_array_equal(runtime.to_numpy(out), [11, 22, 33])


def test_raise_execution_error_names_the_executable(add_exe):
    import jax

    with pytest.raises(runtime.ExecutionError, match="XLA failed while running"):
        runtime.raise_execution_error(add_exe, jax.errors.JaxRuntimeError("boom"))
    with pytest.raises(KeyError):  # not an XLA error: raised as it is
        runtime.raise_execution_error(add_exe, KeyError("k"))


@pytest.mark.parametrize("bad, message", [
    (np.array([1, 2, 3], np.int32), r"argument 1 .* is int32\[3\].*compiled for float32\[3\]"),
    (np.zeros(4, np.float32), r"argument 1 .* is float32\[4\].*compiled for float32\[3\]"),
    (np.zeros((3, 1), np.float32), r"argument 1 .* is float32\[3,1\]"),
])
def test_execute_rejects_wrong_dtype_and_shape(add_exe, bad, message):
    good = np.zeros(3, np.float32)
    with pytest.raises(runtime.ExecutionError, match=message):
        runtime.execute(add_exe, [good, bad])
    with pytest.raises(runtime.ExecutionError, match=message):
        runtime.execute(add_exe, [good, runtime.device_put(bad)])


def test_execute_rejects_wrong_argument_count(add_exe):
    with pytest.raises(runtime.ExecutionError, match="takes 2 arguments, got 1"):
        runtime.execute(add_exe, [np.zeros(3, np.float32)])


def test_compile_error_quotes_the_line():
    bad = ADD_F32.replace('"stablehlo.add"', '"stablehlo.bogus"')
    with pytest.raises(runtime.CompileError, match=r"(?s)stablehlo\.bogus.*line 3: %0 ="):
        runtime.compile(bad, [F32_3, F32_3], [F32_3])


def test_serialize_round_trip(add_exe):
    blob = runtime.serialize(add_exe)
    exe = runtime.deserialize(blob)
    assert exe.in_avals == add_exe.in_avals and exe.out_avals == add_exe.out_avals
    a = np.array([0.5, -1, 3], np.float32)
    (out,) = runtime.execute(exe, [a, a])
    np.testing.assert_array_equal(runtime.to_numpy(out), a + a)
    with pytest.raises(runtime.ExecutionError, match="compiled for float32"):
        runtime.execute(exe, [a, a.astype(np.float64)])


def test_deserialize_rejects_foreign_bytes(add_exe):
    with pytest.raises(ValueError, match="not written by runtime.serialize"):
        runtime.deserialize(b"garbage")
    import jaxlib

    installed = f'"jaxlib": "{jaxlib.__version__}"'.encode()
    blob = runtime.serialize(add_exe).replace(installed, b'"jaxlib": "0.10.1"')
    with pytest.raises(ValueError, match="compiled for jaxlib '0.10.1'"):
        runtime.deserialize(blob)


# --------------------------------------------------------------------------------------------
# stablehlo: types, constants, IR lowering
# --------------------------------------------------------------------------------------------


def test_mlir_types():
    assert sh.tensor_type(ShapedArray((2, 0, 3), np.dtype("uint16"))) == "tensor<2x0x3xui16>"
    assert sh.tensor_type(ShapedArray((), dtypes.bfloat16)) == "tensor<bf16>"
    assert sh.mlir_element_type(dtypes.float8_e4m3fn) == "f8E4M3FN"
    assert sh.mlir_element_type(dtypes.complex128) == "complex<f64>"
    with pytest.raises(TypeError, match="no type for dtype"):
        sh.mlir_element_type(np.dtype("datetime64[s]"))


CONSTANT_DTYPES = [dt for dt in TRANSFERABLE if dt.name not in ("int2", "uint2")]


def _constant_module(values: np.ndarray) -> str:
    aval = ShapedArray(values.shape, values.dtype)
    splat_aval = ShapedArray((2,), values.dtype)
    builder = sh._Builder()
    ctx = sh.LoweringContext((), (), builder)
    full = ctx.constant(values, aval)
    splat = ctx.constant(values[0], splat_aval)
    types = f"{sh.tensor_type(aval)}, {sh.tensor_type(splat_aval)}"
    ctx.emit(f'"func.return"({full}, {splat}) : ({types}) -> ()')
    body = "\n".join(builder.lines)
    return f"module @c {{\n  func.func public @main() -> ({types}) {{\n{body}\n  }}\n}}"


@pytest.mark.parametrize("dtype", CONSTANT_DTYPES, ids=lambda d: d.name)
def test_constants_are_bit_exact(dtype):
    values = _valid_values(dtype, np.random.default_rng(1))
    if np.dtype(dtype).kind in "fcV":
        # Keep NaNs out: XLA may canonicalise NaN payloads; specials are checked below.
        values = values[~np.isnan(values.astype(np.complex128))]
    exe = runtime.compile(_constant_module(values), [],
                          [(values.shape, dtype), ((2,), dtype)])
    full, splat = [runtime.to_numpy(y) for y in runtime.execute(exe, [])]
    np.testing.assert_array_equal(bits(full), bits(values))
    np.testing.assert_array_equal(bits(splat), bits(np.full(2, values[0], dtype)))


def test_float_constant_specials():
    values = np.array([np.nan, np.inf, -np.inf, -0.0, 5e-324, 1.7976931348623157e308])
    for dtype in (np.float64, np.float32, np.float16, dtypes.bfloat16):
        with np.errstate(over="ignore"):
            x = values.astype(dtype)
        exe = runtime.compile(_constant_module(x), [], [(x.shape, dtype), ((2,), dtype)])
        full, splat = [runtime.to_numpy(y) for y in runtime.execute(exe, [])]
        assert np.isnan(full[0].astype(np.float64)) and np.isnan(splat.astype(float)).all()
        np.testing.assert_array_equal(bits(full[1:]), bits(x[1:]))


def test_lower_ir_text():
    staged = make_ir(lambda x, y: fnp.sin(x) * y + 1.0)(fnp.ones(3), fnp.ones(3))
    text = sh.lower_ir(staged.closed, name="my fn")
    assert text.startswith("module @my_fn ")
    assert "func.func public @main(%arg0: tensor<3xf32>, %arg1: tensor<3xf32>)" in text
    assert "// c:f32[3] = sin a" in text
    assert 'stablehlo.constant"() {value = dense<0x3F800000> : tensor<f32>}' in text
    assert "broadcast_dimensions = array<i64>" in text


FLOAT_DTYPES = [dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64]
shapes = st.lists(st.integers(0, 4), min_size=0, max_size=3).map(tuple)


@given(shape=shapes, dtype=st.sampled_from(FLOAT_DTYPES), seed=st.integers(0, 2**32 - 1))
def test_staged_elementwise_matches_eager(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    x = Array(rng.uniform(-4, 4, shape).astype(dtype))
    y = Array(rng.uniform(-4, 4, shape).astype(dtype))

    def f(x, y):
        return [fnp.sin(x) * y + 1.0]

    (got,), (want,) = run_flat(f, x, y), eager_flat(f, x, y)
    assert got.dtype == want.dtype == dtype and got.shape == want.shape == shape
    tol = rtol_for(dtype)
    # XLA may keep fused intermediates in higher precision: allow one rounding of the sum.
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64),
                               rtol=4 * tol, atol=20 * tol)


def test_execute_ir_with_consts_literals_and_weak_outputs():
    w = fnp.arange(3.0)
    staged = make_ir(lambda x: (x * w, 2.0, x))(fnp.ones(3))
    assert len(staged.consts) == 1
    outs = execute_ir(staged.closed, [fnp.full(3, 2.0)])
    assert repr(outs[0]) == "Array([0., 2., 4.], dtype=float32)"
    assert outs[1].weak_type and float(outs[1]) == 2.0
    np.testing.assert_array_equal(np.asarray(outs[2]), [2.0, 2.0, 2.0])


def test_execute_ir_caches_executables():
    staged = make_ir(lambda x: [fnp.cos(x)])(fnp.ones(2))
    zeros = fnp.zeros(2)
    with numpy_eager():  # (XLA eager ops would use the same cache)
        cache.clear()
        for _ in range(3):
            execute_ir(staged.closed, [zeros])
        info = cache.info()
    assert (info["hits"], info["misses"], info["size"]) == (2, 1, 1)


UNARY_FLOAT = [
    (ew.neg_p, 2), (ew.sign_p, 2), (ew.floor_p, 2), (ew.ceil_p, 2), (ew.exp_p, 2),
    (ew.expm1_p, 2), (ew.log_p, 2), (ew.log1p_p, 2), (ew.sin_p, 2), (ew.cos_p, 2),
    (ew.tan_p, 2), (ew.asin_p, 1), (ew.acos_p, 1), (ew.atan_p, 2), (ew.sinh_p, 2),
    (ew.cosh_p, 2), (ew.tanh_p, 2), (ew.asinh_p, 2), (ew.acosh_p, 3), (ew.atanh_p, 1),
    (ew.sqrt_p, 2), (ew.rsqrt_p, 2), (ew.cbrt_p, 2), (ew.logistic_p, 2), (ew.abs_p, 2),
    (ew.is_finite_p, 2),
]


@pytest.mark.parametrize("dtype", [dtypes.float32, dtypes.float64, dtypes.bfloat16],
                         ids=lambda d: d.name)
def test_every_float_unary_op_matches_eager(dtype):
    rng = np.random.default_rng(2)
    inputs = {1: rng.uniform(-0.95, 0.95, 64), 2: rng.uniform(0.05, 3, 64),
              3: rng.uniform(1.05, 4, 64)}
    args = [Array(inputs[k].astype(dtype)) for _, k in UNARY_FLOAT]

    def f(*xs):
        return [prim.bind(x) for (prim, _), x in zip(UNARY_FLOAT, xs)]

    got, want = run_flat(f, *args), eager_flat(f, *args)
    for (prim, _), g, w in zip(UNARY_FLOAT, got, want):
        assert g.dtype == w.dtype, prim.name
        tol = 4 * rtol_for(dtype) if g.dtype != np.bool_ else 0
        np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=tol,
                                   err_msg=prim.name)


def test_complex_and_binary_float_ops_match_eager():
    rng = np.random.default_rng(3)
    x, y = (Array(rng.uniform(0.1, 2, 32).astype(np.float32)) for _ in range(2))
    binaries = [ew.add_p, ew.sub_p, ew.mul_p, ew.div_p, ew.rem_p, ew.pow_p, ew.max_p, ew.min_p,
                ew.atan2_p, ew.nextafter_p]

    def f(x, y):
        z = ew.complex_p.bind(x, y)
        return [p.bind(x, y) for p in binaries] + [
            z, ew.real_p.bind(z), ew.imag_p.bind(z), ew.abs_p.bind(z), ew.exp_p.bind(z)]

    for g, w in zip(run_flat(f, x, y), eager_flat(f, x, y)):
        assert g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=4e-6)


# --------------------------------------------------------------------------------------------
# Integer semantics and comparisons: compiled and eager follow StableHLO exactly
# --------------------------------------------------------------------------------------------


def _edge_pairs(dtype):
    dtype = np.dtype(dtype)
    info = np.iinfo(dtype)
    bits_ = dtype.itemsize * 8
    edges = {0, 1, 2, 3, 7, bits_ - 1, bits_, bits_ + 1, int(info.max), int(info.max) - 1}
    if info.min < 0:
        edges |= {-1, -2, -7, -bits_, int(info.min), int(info.min) + 1}
    edges = sorted(edges)
    x, y = np.meshgrid(np.array(edges, dtype), np.array(edges, dtype))
    return Array(x.reshape(-1)), Array(y.reshape(-1))


INT_BINARIES = [ew.div_p, ew.rem_p, ew.shift_left_p, ew.shift_right_arithmetic_p,
                ew.shift_right_logical_p, ew.add_p, ew.sub_p, ew.mul_p, ew.max_p, ew.min_p,
                ew.and_p, ew.or_p, ew.xor_p]


@pytest.mark.parametrize("dtype", ["int8", "int32", "int64", "uint8", "uint32", "uint64"])
def test_integer_ops_match_eager_exactly(dtype):
    x, y = _edge_pairs(dtype)

    def f(x, y):
        return [p.bind(x, y) for p in INT_BINARIES] + [
            ew.not_p.bind(x), ew.population_count_p.bind(x), ew.clz_p.bind(x),
            ew.neg_p.bind(x), ew.abs_p.bind(x) if dtype.startswith("int") else x]

    got, want = run_flat(f, x, y), eager_flat(f, x, y)
    names = [p.name for p in INT_BINARIES] + ["not", "popcnt", "clz", "neg", "abs"]
    for name, g, w in zip(names, got, want):
        assert g.dtype == w.dtype == np.dtype(dtype), name
        np.testing.assert_array_equal(g, w, err_msg=name)
    # popcnt counts the bits of the two's complement pattern, in both engines.
    unsigned = np.asarray(x._value).view(f"u{np.dtype(dtype).itemsize}")
    popcnt = got[names.index("popcnt")]
    np.testing.assert_array_equal(popcnt, np.bitwise_count(unsigned).astype(dtype))
    # The StableHLO semantics, stated independently of the kernels:
    div = got[0].reshape(-1)
    xs, ys = np.asarray(x._value), np.asarray(y._value)
    assert (div[ys == 0] == (-1 if dtype.startswith("int") else np.iinfo(dtype).max)).all()
    assert (got[1][ys == 0] == xs[ys == 0]).all()


COMPARISONS = [ew.eq_p, ew.ne_p, ew.lt_p, ew.le_p, ew.gt_p, ew.ge_p]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int8", "int64", "uint8", "uint64",
                                   "bool", "bfloat16", "complex64"])
def test_comparisons_match_eager(dtype):
    dtype = np.dtype(dtypes.bfloat16 if dtype == "bfloat16" else dtype)
    if dtype.kind in "fV":
        edges = np.array([np.nan, -np.inf, -1.5, -0.0, 0.0, 2.0, np.inf]).astype(dtype)
    elif dtype.kind == "c":
        edges = np.array([1 + 1j, 1 - 1j, np.nan, 0, -0.0]).astype(dtype)
    elif dtype == np.bool_:
        edges = np.array([False, True])
    else:  # large unsigned values would flip sign if compared as signed
        info = np.iinfo(dtype)
        edges = np.array(sorted({int(info.min), 0, 1, int(info.max) // 2 + 1, int(info.max)}),
                         dtype)
    a, b = np.meshgrid(edges, edges)
    x, y = Array(a.reshape(-1)), Array(b.reshape(-1))
    prims = COMPARISONS[:2] if dtype.kind == "c" else COMPARISONS

    def f(x, y):
        return [p.bind(x, y) for p in prims]

    for p, g, w in zip(prims, run_flat(f, x, y), eager_flat(f, x, y)):
        assert g.dtype == np.bool_
        np.testing.assert_array_equal(g, w, err_msg=p.name)


# --------------------------------------------------------------------------------------------
# The shape/conversion rules written here (attached by the fixture)
# --------------------------------------------------------------------------------------------

CONVERSIONS = [("float32", "int32"), ("float32", "uint8"), ("float64", "int64"),
               ("complex64", "float32"), ("complex128", "int32"), ("complex64", "bool"),
               ("float32", "bool"), ("int32", "bool"), ("bool", "float32"),
               ("int64", "float16"), ("float32", "bfloat16"), ("uint32", "int8"),
               ("float32", "complex128"), ("float32", "float8_e4m3fn")]


@pytest.mark.parametrize("src, dst", CONVERSIONS)
def test_convert_element_type_matches_eager(src, dst):
    src, dst = (np.dtype(getattr(ml_dtypes, t, t)) for t in (src, dst))
    base = np.array([np.nan, np.inf, -np.inf, 1e10, -1e10, 2.7, -2.7, 0.5, 0.0, -0.0, 300.0])
    if src.kind == "c":
        values = np.empty(base.shape, src)
        values.real, values.imag = base, base[::-1]
    elif src.kind in "iub":
        values = np.nan_to_num(base).clip(-1e9, 1e9).astype(np.int64).astype(src)
    else:
        values = base.astype(src)
    x = Array(values)

    def f(x):
        return [convert_element_type_p.bind(x, new_dtype=dst, weak_type=False)]

    (got,), (want,) = run_flat(f, x), eager_flat(f, x)
    assert got.dtype == want.dtype == dst
    assert_same_values(got, want)


def test_shape_ops_lower():
    x = fnp.arange(6.0).reshape(2, 3)

    def f(x):
        iota = shape_ops.iota_p.bind(dtype=np.dtype(np.int32), shape=(2, 3, 2), dimension=1)
        return [
            shape_ops.reshape_p.bind(x, new_sizes=(3, 2)),
            shape_ops.broadcast_in_dim_p.bind(x, shape=(4, 2, 3), broadcast_dimensions=(1, 2)),
            shape_ops.broadcast_in_dim_p.bind(x, shape=(2, 5, 3), broadcast_dimensions=(0, 2)),
            iota,
        ]

    got, want = run_flat(f, x), eager_flat(f, x)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g, w)


# --------------------------------------------------------------------------------------------
# Errors of the lowering itself
# --------------------------------------------------------------------------------------------


def _single_eqn_ir(prim, aval):
    x, y = Var(aval), Var(aval)
    return IR((), (x,), (Eqn(prim, (x,), {}, (y,)),), (y,))


F32_2 = ShapedArray((2,), np.dtype(np.float32))


def test_missing_lowering_rule_names_the_primitive_and_equation():
    prim = Primitive("no_lowering_yet")
    prim.abstract_eval = lambda x: x
    with pytest.raises(MissingRuleError, match=r"(?s)'no_lowering_yet' has no lowering.*"
                                               r"b:f32\[2\] = no_lowering_yet a"):
        sh.lower_ir(_single_eqn_ir(prim, F32_2))


def test_rule_returning_wrong_results_is_reported():
    prim = Primitive("liar")
    prim.abstract_eval = lambda x: x
    prim.lower_rule = lambda ctx, x: ctx.op("stablehlo.convert", x, results=[
        ShapedArray((2,), np.dtype(np.int32))])
    with pytest.raises(sh.LoweringError, match=r"returned i32\[2\] for output 0.*f32\[2\]"):
        sh.lower_ir(_single_eqn_ir(prim, F32_2))
    prim.lower_rule = lambda ctx, x: [x, x]
    with pytest.raises(sh.LoweringError, match="must return a list of 1 SSA names"):
        sh.lower_ir(_single_eqn_ir(prim, F32_2))


def test_compile_error_names_the_funcarray_equation():
    prim = Primitive("broken")
    prim.abstract_eval = lambda x: x
    prim.lower_rule = sh.elementwise_lowering("stablehlo.not_an_op")
    closed = ClosedIR(_single_eqn_ir(prim, F32_2), ())
    with pytest.raises(runtime.CompileError,
                       match=r"(?s)not_an_op.*from funcarray equation: b:f32\[2\] = broken a"):
        execute_ir(closed, [fnp.zeros(2)])


def test_elementwise_lowering_rejects_unknown_op_names():
    with pytest.raises(ValueError, match="neither a stablehlo/chlo op"):
        sh.elementwise_lowering("add")
