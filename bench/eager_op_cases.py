"""The op table of ``bench_eager_ops.py``: how to call each public operation, and NumPy's.

Each ``Op`` names a public function of ``funcarray.numpy``, ``funcarray.lax``,
``funcarray.numpy.linalg`` or ``funcarray.numpy.fft``, the input shapes it is timed on, a
builder that turns the inputs of one shape (a ``Gen``) into its arguments (an ``A``), and the
NumPy reference: the NumPy function of the same name by default, else the closest NumPy
(or SciPy) expression, written here. NumPy arrays among the arguments (also inside lists
and tuples) become funcarray arrays on the funcarray side; a ``Both(fa, np)`` argument is
``fa`` on the funcarray side and ``np`` on the NumPy side (a function the op applies).

Rows are made by kind, where many ops share a signature (``_rows("sin cos ...", X)``).
``SKIPPED`` gives the reason for each public name that is not timed and not a class, a
dtype object, a module or a constant (those are recognised by the benchmark).
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.special as sp
from numpy.lib.stride_tricks import sliding_window_view

import funcarray.lax as lax
import funcarray.numpy as fnp

SCALAR, VECTOR, MATRIX = "0-d", "4", "64x64"
SHAPES = {SCALAR: (), VECTOR: (4,), MATRIX: (64, 64)}
ALL = (SCALAR, VECTOR, MATRIX)
ARR = (VECTOR, MATRIX)
VEC = (VECTOR,)
MAT = (MATRIX,)


# --- the inputs -------------------------------------------------------------------------------
class Gen:
    """The inputs of one shape: floats in [0.25, 0.75] (every unary op's domain but acosh's),
    floats in [1.25, 1.75] (``p``), small positive ints, bools, a complex array and, for the
    matrix, a symmetric positive definite matrix (``spd``)."""

    def __init__(self, label: str):
        rng = np.random.default_rng(22)
        shape = SHAPES[label]
        self.label, self.shape, self.ndim = label, shape, len(shape)
        self.size = int(np.prod(shape, dtype=int))
        self.n = shape[0] if shape else 1  # the leading length (1 for a 0-d input)

        def floats(lo=0.25, hi=0.75):
            return np.asarray(rng.uniform(lo, hi, shape), np.float32)

        self.x, self.y, self.z, self.p = floats(), floats(), floats(), floats(1.25, 1.75)
        self.i = np.asarray(rng.integers(1, 9, shape), np.int32)
        self.j = np.asarray(rng.integers(1, 9, shape), np.int32)
        self.b = self.x > 0.5
        self.cx = (self.x + 1j * self.y).astype(np.complex64)
        self.ax = {"axis": -1} if shape else {}  # reductions: along the last axis
        self.last = max(self.ndim - 1, 0)
        self.idx = np.array([0, 2], np.int32)  # two rows (or elements) of an array input
        if shape == (64, 64):
            self.spd = (self.x @ self.x.T / 64 + np.eye(64)).astype(np.float32)

    def row(self, a: np.ndarray) -> np.ndarray:
        """A 1-D view of ``a``: its first row."""
        return a if a.ndim <= 1 else a[0]


@dataclass(frozen=True)
class A:
    """The arguments of one call."""

    args: tuple
    kwargs: dict

    def __init__(self, *args, **kwargs):
        object.__setattr__(self, "args", args)
        object.__setattr__(self, "kwargs", kwargs)


@dataclass(frozen=True)
class Both:
    """An argument that differs by library (a function the op applies)."""

    fa: object
    np: object


@dataclass(frozen=True)
class Op:
    module: str  # "numpy", "lax", "numpy.linalg" or "numpy.fft"
    name: str
    build: Callable[[Gen], A]
    reference: Callable
    shapes: tuple[str, ...] = ALL
    # How the function is called: invoke(function, *args, **kwargs) (an index trick is
    # subscripted, a transform's result is called); the same for both libraries.
    invoke: Callable | None = None
    check: bool = True  # False where results may rightly differ (signs, order, random bits)

    @property
    def key(self) -> str:
        return f"{self.module}.{self.name}"


TABLE: list[Op] = []


def _rows(spec: str, build: Callable[[Gen], A], shapes=ALL, module="numpy", **options):
    """One row per name of ``spec``: ``name`` (NumPy's function of that name is the
    reference) or ``name=ref``, ``ref`` a dotted path from ``np`` or ``sp`` (scipy.special)."""
    for item in spec.split():
        name, _, ref = item.partition("=")
        ref = ref or name
        root, *path = ref.split(".") if ref.startswith("sp.") else ["np", *ref.split(".")]
        target = sp if root == "sp" else np
        if module in ("numpy.linalg", "numpy.fft") and not ref.startswith("sp."):
            target = getattr(np, module.split(".")[1])
        for part in path:
            target = getattr(target, part)
        TABLE.append(Op(module, name, build, target, shapes, **options))


def _row(name, build, reference, shapes=ALL, module="numpy", **options):
    TABLE.append(Op(module, name, build, reference, shapes, **options))


def X(g):
    return A(g.x)


def XY(g):
    return A(g.x, g.y)


def IJ(g):
    return A(g.i, g.j)


def _copy_then(fill: Callable) -> Callable:
    """NumPy's in-place function as a pure one (funcarray's run with ``inplace=False``)."""
    def pure(a, *args, inplace=True, **kwargs):
        out = a.copy()
        fill(out, *args, **kwargs)
        return out
    return pure


def _numpy_while(cond, body, value):
    while cond(value):
        value = body(value)
    return value


def _numpy_fori(lower, upper, body, value):
    for i in range(lower, upper):
        value = body(i, value)
    return value


def _numpy_scan(f, carry, xs):
    ys = []
    for x in xs:
        carry, y = f(carry, x)
        ys.append(y)
    return carry, np.stack(ys)


def _conv_valid(lhs, rhs):
    """NCHW x OIHW correlation with VALID padding and unit strides."""
    windows = sliding_window_view(lhs, rhs.shape[2:], axis=(2, 3))  # N C H W kh kw
    return np.einsum("nchwij,ocij->nohw", windows, rhs)


def _patches(lhs, filter_shape):
    n, c, _, _ = lhs.shape
    windows = sliding_window_view(lhs, filter_shape, axis=(2, 3))
    return windows.transpose(0, 1, 4, 5, 2, 3).reshape(n, c * np.prod(filter_shape),
                                                       *windows.shape[2:4])


def _top_k(x, k, **_):
    order = np.argsort(-x, axis=-1, kind="stable")[..., :k]
    return np.take_along_axis(x, order, -1), order


def _slices(starts, sizes):
    return tuple(slice(s, s + n) for s, n in zip(starts, sizes))


# --- funcarray.numpy --------------------------------------------------------------------------
_rows("abs absolute acos arccos asin arcsin atan arctan asinh arcsinh atanh arctanh cbrt ceil"
      " conj conjugate cos cosh deg2rad degrees exp exp2 expm1 fabs fix floor i0 imag real"
      " log log10 log1p log2 negative positive rad2deg radians reciprocal rint round around"
      " sign signbit sin sinc sinh spacing sqrt square tan tanh trunc isfinite isinf isnan"
      " isneginf isposinf iscomplex isreal angle nan_to_num logical_not frexp modf"
      " iscomplexobj isrealobj isscalar iterable ndim shape size copy array asarray"
      " atleast_1d atleast_2d atleast_3d squeeze ravel transpose flip zeros_like ones_like"
      " from_dlpack", X)
_rows("empty_like array_repr array_str", X, check=False)
_rows("acosh arccosh", lambda g: A(g.p))
_rows("bitwise_not bitwise_invert invert bitwise_count", lambda g: A(g.i))
_rows("add subtract multiply divide true_divide floor_divide mod remainder fmod power pow"
      " float_power maximum minimum fmax fmin arctan2 atan2 hypot copysign nextafter logaddexp"
      " logaddexp2 heaviside equal not_equal greater greater_equal less less_equal logical_and"
      " logical_or logical_xor divmod isclose allclose array_equal array_equiv dot vdot inner"
      " result_type broadcast_arrays append", XY)
_rows("gcd lcm bitwise_and bitwise_or bitwise_xor left_shift right_shift bitwise_left_shift"
      " bitwise_right_shift", IJ)
_row("ldexp", lambda g: A(g.x, g.i), np.ldexp)
_row("clip", lambda g: A(g.x, 0.3, 0.6), np.clip)
_rows("packbits", lambda g: A(g.b), ARR)
_row("unpackbits", lambda g: A(g.i.astype(np.uint8)), np.unpackbits, ARR)
_rows("all any amax amin max min argmax argmin mean median prod sum std var ptp count_nonzero"
      " nanargmax nanargmin nanmax nanmean nanmedian nanmin nanprod nanstd nansum nanvar cumsum"
      " cumprod nancumsum nancumprod average", lambda g: A(g.x, **g.ax))
_rows("sort argsort diff unwrap trapezoid cumulative_sum cumulative_prod unstack",
      lambda g: A(g.x, axis=-1), ARR)
_row("gradient", lambda g: A(g.x, axis=-1), np.gradient, ARR)
_rows("percentile nanpercentile", lambda g: A(g.x, 50.0, **g.ax))
_rows("quantile nanquantile", lambda g: A(g.x, 0.5, **g.ax))
_rows("partition argpartition", lambda g: A(g.x, 1), ARR, check=False)

# Creation: the shape names the output; nothing is converted.
_rows("zeros ones", lambda g: A(g.shape))
_rows("empty", lambda g: A(g.shape), check=False)
_row("full", lambda g: A(g.shape, 1.5), np.full)
_row("full_like", lambda g: A(g.x, 1.5), np.full_like)
_rows("eye identity tri diag_indices tril_indices triu_indices", lambda g: A(g.n), ARR)
_rows("arange bartlett blackman hamming hanning", lambda g: A(g.size), ARR)
_row("kaiser", lambda g: A(g.size, 5.0), np.kaiser, ARR)
_rows("linspace logspace", lambda g: A(0.0, 1.0, g.size), ARR)
_row("geomspace", lambda g: A(1.0, 2.0, g.size), np.geomspace, ARR)
_row("indices", lambda g: A(g.shape), np.indices, ARR)
_row("mask_indices", lambda g: A(g.n, Both(fnp.triu, np.triu)), np.mask_indices, ARR)
_row("fromfunction", lambda g: A(lambda i, j: i + 2 * j, (g.n, g.n), dtype=np.float32),
     np.fromfunction, ARR)
_row("frombuffer", lambda g: A(g.x.tobytes(), dtype=np.float32), np.frombuffer, ARR)
_row("fromstring", lambda g: A(" ".join(["1.5"] * g.size), dtype=np.float32, sep=" "),
     np.fromstring, ARR)
_row("broadcast_to", lambda g: A(g.x, (2, *g.shape)), np.broadcast_to)
_row("broadcast_shapes", lambda g: A(g.shape, (2, *g.shape)), np.broadcast_shapes)
_row("astype", lambda g: A(g.x, "int32"), np.astype)
_row("can_cast", lambda g: A("int8", "int32"), np.can_cast, (SCALAR,))
# JAX's promotion differs from NumPy's here (float32, not float64).
_row("promote_types", lambda g: A("float32", "int32"), np.promote_types, (SCALAR,), check=False)
_row("finfo", lambda g: A("float32"), np.finfo, (SCALAR,), check=False)
_row("iinfo", lambda g: A("int32"), np.iinfo, (SCALAR,), check=False)
_row("issubdtype", lambda g: A("float32", np.floating), np.issubdtype, (SCALAR,))
_row("isdtype", lambda g: A(np.dtype("float32"), "real floating"), np.isdtype, (SCALAR,))
_row("get_printoptions", lambda g: A(), np.get_printoptions, (SCALAR,), check=False)

# Shapes and rearrangement.
_row("reshape", lambda g: A(g.x, (-1,)), np.reshape)
_row("expand_dims", lambda g: A(g.x, 0), np.expand_dims)
_row("permute_dims", lambda g: A(g.x, tuple(reversed(range(g.ndim)))), np.permute_dims)
_rows("swapaxes moveaxis", lambda g: A(g.x, 0, -1), ARR)
_row("rollaxis", lambda g: A(g.x, g.last), np.rollaxis, ARR)
_rows("matrix_transpose diagonal trace tril triu rot90 fliplr tril_indices_from"
      " triu_indices_from diag_indices_from", X, MAT)
_rows("flipud diag diagflat ediff1d", X, ARR)
_row("vander", lambda g: A(g.row(g.x), 4), np.vander, ARR)
_row("meshgrid", lambda g: A(g.row(g.x), g.row(g.y)), np.meshgrid, ARR)
_rows("concatenate concat hstack vstack dstack column_stack block",
      lambda g: A([g.x, g.y]), ARR)
_row("stack", lambda g: A([g.x, g.y]), np.stack)
_rows("split hsplit", lambda g: A(g.x, 2), ARR)
_row("array_split", lambda g: A(g.x, 3), np.array_split, ARR)
_row("vsplit", lambda g: A(g.x, 2), np.vsplit, MAT)
_row("dsplit", lambda g: A(g.x.reshape(64, 32, 2), 2), np.dsplit, MAT)
_rows("tile repeat", lambda g: A(g.x, 2))
_row("roll", lambda g: A(g.x, 1), np.roll)
_row("resize", lambda g: A(g.x, (8,)), np.resize)
_row("insert", lambda g: A(g.x, 1, 0.5), np.insert, ARR)
_row("delete", lambda g: A(g.x, 1), np.delete, ARR)
_row("trim_zeros", lambda g: A(np.concatenate([[0.0], g.x, [0.0]]).astype(np.float32)),
     np.trim_zeros, VEC)
_row("pad", lambda g: A(g.x, 1), np.pad)
_row("fill_diagonal", lambda g: A(g.x, 0.0, inplace=False), _copy_then(np.fill_diagonal), MAT)

# Indexing, searching, sets.
_row("getitem", lambda g: A(g.x, (0,)), operator.getitem, ARR)
_row("take", lambda g: A(g.x, g.idx), np.take, ARR)
_row("take_along_axis", lambda g: A(g.x, np.argsort(g.x, -1), axis=-1), np.take_along_axis, ARR)
_row("put", lambda g: A(g.x, [0, 1], [1.0, 2.0], inplace=False), _copy_then(np.put), ARR)
_row("put_along_axis", lambda g: A(g.x, np.argsort(g.x, -1)[..., :1], 0.0, -1, inplace=False),
     _copy_then(np.put_along_axis), ARR)
_row("place", lambda g: A(g.x, g.b, [0.0], inplace=False), _copy_then(np.place), ARR)
_row("choose", lambda g: A(g.i % 2, [g.x, g.y]), np.choose)
_row("compress", lambda g: A(g.row(g.b), g.x, axis=0), np.compress, ARR)
_row("extract", lambda g: A(g.b, g.x), np.extract, ARR)
_row("select", lambda g: A([g.b], [g.x]), np.select)
_row("where", lambda g: A(g.b, g.x, g.y), np.where)
_rows("nonzero flatnonzero argwhere", lambda g: A(g.b), ARR)
_row("searchsorted", lambda g: A(np.sort(g.x.ravel()), g.y), np.searchsorted)
_row("digitize", lambda g: A(g.x, np.linspace(0, 1, 5, dtype=np.float32)), np.digitize)
_row("bincount", lambda g: A(g.i.ravel()), np.bincount, ARR)
_row("unravel_index", lambda g: A(g.i, (8, 8)), np.unravel_index)
_row("ravel_multi_index", lambda g: A((g.i, g.j), (9, 9)), np.ravel_multi_index)
_row("ix_", lambda g: A(g.row(g.i), g.row(g.j)), np.ix_, ARR)
_row("lexsort", lambda g: A((g.x, g.y)), np.lexsort, ARR)
_rows("unique unique_all unique_counts unique_inverse", lambda g: A(g.i), ARR)
_row("unique_values", lambda g: A(g.i), np.unique_values, ARR, check=False)  # NumPy: unsorted
_rows("intersect1d union1d setdiff1d setxor1d", IJ, ARR)
_row("isin", IJ, np.isin)
_row("sort_complex", X, np.sort_complex, ARR)

# Products, statistics, polynomials.
_rows("matmul outer vecdot", XY, ARR)
_row("tensordot", lambda g: A(g.x, g.y, axes=1), np.tensordot, ARR)
_rows("einsum", lambda g: A("...i,...i->...", g.x, g.y), ARR)
_row("einsum_path", lambda g: A("...i,...i->...", g.x, g.y), np.einsum_path, ARR, check=False)
_rows("kron convolve correlate", XY, VEC)
_row("cross", lambda g: A(g.x[..., :3], g.y[..., :3]), np.cross, ARR)
_row("matvec", lambda g: A(g.x, g.y[0]), np.matvec, MAT)
_row("vecmat", lambda g: A(g.y[0], g.x), np.vecmat, MAT)
_rows("cov corrcoef", X, ARR)
_rows("histogram histogram_bin_edges", lambda g: A(g.x, bins=8), ARR)
_row("histogram2d", lambda g: A(g.x.ravel(), g.y.ravel(), bins=8), np.histogram2d, ARR)
_row("histogramdd", lambda g: A(np.stack([g.x.ravel(), g.y.ravel()], 1), bins=4),
     np.histogramdd, ARR)
_row("interp", lambda g: A(g.x, np.linspace(0, 1, 8), np.linspace(0, 1, 8) ** 2), np.interp)
_rows("poly polyder polyint roots", X, VEC, check=False)
_rows("polyadd polysub polymul polydiv", XY, VEC)
_row("polyval", lambda g: A(np.array([1.0, -2.0, 0.5, 3.0], np.float32), g.x), np.polyval)
_row("polyfit", lambda g: A(g.x.ravel(), g.y.ravel(), 2), np.polyfit, ARR)

# Functions that take functions, and the index tricks.
_row("apply_along_axis", lambda g: A(Both(fnp.sum, np.sum), -1, g.x), np.apply_along_axis, ARR)
_row("apply_over_axes", lambda g: A(Both(fnp.sum, np.sum), g.x, [0]), np.apply_over_axes, ARR)
_row("piecewise", lambda g: A(g.x, [g.b], [lambda v: v * 2.0, lambda v: v + 1.0]),
     np.piecewise)
_row("vectorize", lambda g: A(lambda v: v * 2.0 + 1.0, g.x), np.vectorize, ARR,
     invoke=lambda f, fn, x: f(fn)(x))
_row("frompyfunc", lambda g: A(lambda v: v * 2.0 + 1.0, g.x), np.frompyfunc, ARR,
     invoke=lambda f, fn, x: f(fn, 1, 1)(x), check=False)
_rows("r_ c_", XY, ARR, invoke=lambda f, x, y: f[x, y])
_rows("mgrid ogrid", lambda g: A(g.n), ARR, invoke=lambda f, n: f[0:n, 0:n])
_rows("s_ index_exp", lambda g: A(), (SCALAR,), invoke=lambda f: f[1:3, ::2])

# --- funcarray.numpy.linalg and funcarray.numpy.fft -------------------------------------------
_rows("cholesky inv det slogdet eigh eigvalsh cond", lambda g: A(g.spd), MAT,
      module="numpy.linalg")
_row("tensorinv", lambda g: A(g.spd, ind=1), np.linalg.tensorinv, MAT, module="numpy.linalg")
_rows("eig eigvals qr svd", X, MAT, module="numpy.linalg", check=False)
_rows("svdvals pinv matrix_rank matrix_norm diagonal trace matrix_transpose", X, MAT,
      module="numpy.linalg")
_row("solve", lambda g: A(g.spd, g.x), np.linalg.solve, MAT, module="numpy.linalg")
_row("tensorsolve", lambda g: A(g.spd, g.x[0]), np.linalg.tensorsolve, MAT,
     module="numpy.linalg")
_row("lstsq", XY, np.linalg.lstsq, MAT, module="numpy.linalg", check=False)
_row("matrix_power", lambda g: A(g.x, 3), np.linalg.matrix_power, MAT, module="numpy.linalg")
_row("multi_dot", lambda g: A([g.x, g.y, g.z]), np.linalg.multi_dot, MAT,
     module="numpy.linalg")
_rows("norm vector_norm", X, ARR, module="numpy.linalg")
_rows("matmul vecdot", XY, ARR, module="numpy.linalg")
_row("tensordot", lambda g: A(g.x, g.y, axes=1), np.linalg.tensordot, ARR,
     module="numpy.linalg")
_row("outer", XY, np.linalg.outer, VEC, module="numpy.linalg")
_row("cross", lambda g: A(g.x[..., :3], g.y[..., :3]), np.linalg.cross, ARR,
     module="numpy.linalg")
_rows("fft ifft rfft irfft hfft ihfft fftn ifftn rfftn irfftn", X, ARR, module="numpy.fft")
_rows("fft2 ifft2 rfft2 irfft2", X, MAT, module="numpy.fft")
_rows("fftshift ifftshift", X, ARR, module="numpy.fft")
_rows("fftfreq rfftfreq", lambda g: A(g.size), ARR, module="numpy.fft")

# --- funcarray.lax ----------------------------------------------------------------------------
_rows("abs cbrt ceil cos cosh exp exp2 expm1 floor log log1p sign sin sinh sqrt square tan tanh"
      " acos=arccos asin=arcsin atan=arctan asinh=arcsinh atanh=arctanh neg=negative"
      " is_finite=isfinite reciprocal erf=sp.erf erfc=sp.erfc erf_inv=sp.erfinv"
      " lgamma=sp.gammaln digamma=sp.digamma bessel_i0e=sp.i0e bessel_i1e=sp.i1e", X,
      module="lax")
# The identities return a new array object over the same values: in NumPy, a view.
for _name in ("stop_gradient", "optimization_barrier", "stage"):
    _row(_name, X, np.ndarray.view, module="lax")
_row("round", X, np.round, module="lax")
_row("acosh", lambda g: A(g.p), np.arccosh, module="lax")
_row("rsqrt", X, lambda x: 1 / np.sqrt(x), module="lax")
_row("logistic", X, lambda x: 1 / (1 + np.exp(-x)), module="lax")
_row("reduce_precision", lambda g: A(g.x, exponent_bits=5, mantissa_bits=10),
     lambda x, **_: x.astype(np.float16).astype(np.float32), module="lax")
_rows("real imag conj", lambda g: A(g.cx), module="lax")
_rows("bitwise_not population_count=bitwise_count", lambda g: A(g.i), module="lax")
_row("clz", lambda g: A(g.i), lambda i: (31 - np.floor(np.log2(i))).astype(np.int32),
     module="lax")
_rows("add sub=subtract mul=multiply div=divide rem=fmod pow=power max=maximum min=minimum"
      " atan2=arctan2 nextafter eq=equal ne=not_equal lt=less le=less_equal gt=greater"
      " ge=greater_equal igamma=sp.gammainc igammac=sp.gammaincc", XY, module="lax")
_row("zeta", lambda g: A(g.p, g.y), sp.zeta, module="lax")
_row("betainc", lambda g: A(g.p, g.p, g.x), sp.betainc, module="lax")
_row("polygamma", lambda g: A(np.ones_like(g.x), g.x), sp.polygamma, module="lax")
_row("complex", XY, lambda x, y: x + 1j * y, module="lax")
_rows("bitwise_and bitwise_or bitwise_xor shift_left=left_shift"
      " shift_right_arithmetic=right_shift shift_right_logical=right_shift", IJ, module="lax")
_row("mulhi", IJ, lambda a, b: ((a.astype(np.int64) * b) >> 32).astype(np.int32),
     module="lax")
_row("integer_pow", lambda g: A(g.x, 3), operator.pow, module="lax")
_row("clamp", lambda g: A(np.float32(0.3), g.x, np.float32(0.6)),
     lambda lo, x, hi: np.clip(x, lo, hi), module="lax")
_row("select", lambda g: A(g.b, g.x, g.y), np.where, module="lax")
_row("select_n", lambda g: A(g.b, g.x, g.y), lambda w, *cases: np.where(w, cases[1], cases[0]),
     module="lax")
_row("convert_element_type", lambda g: A(g.x, np.int32), lambda x, d: x.astype(d), module="lax")
_row("bitcast_convert_type", lambda g: A(g.x, np.int32), lambda x, d: x.view(d), module="lax")
_row("dtype", X, lambda x: x.dtype, module="lax")


for _name, _ref, _kind in (("reduce_sum", np.sum, "x"), ("reduce_max", np.max, "x"),
                          ("reduce_min", np.min, "x"), ("reduce_prod", np.prod, "x"),
                          ("reduce_and", np.all, "b"), ("reduce_or", np.any, "b"),
                          ("reduce_xor", np.bitwise_xor.reduce, "b")):
    # (np.asarray: the 0-d g.b is a NumPy bool scalar, which the table would pass unconverted)
    _row(_name, lambda g, _kind=_kind: A(np.asarray(getattr(g, _kind)), tuple(range(g.ndim))),
         lambda x, axes, _ref=_ref: _ref(x, axis=axes), module="lax")
for _name, _ref in (("argmax", np.argmax), ("argmin", np.argmin)):
    _row(_name, lambda g: A(g.x, g.last, np.int32),
         lambda x, axis, dt, _ref=_ref: _ref(x, axis).astype(dt), ARR, module="lax")
_rows("cumsum cumprod cummax=maximum.accumulate cummin=minimum.accumulate"
      " cumlogsumexp=logaddexp.accumulate", lambda g: A(g.x, axis=0), ARR, module="lax")
_row("reduce", lambda g: A(g.x, np.float32(0), Both(lax.add, np.add), (0,)),
     lambda x, init, fn, dims: fn.reduce(x, axis=dims), ARR, module="lax")
_row("reduce_window",
     lambda g: A(g.x, np.float32(0), Both(lax.add, np.add), (2,) * g.ndim, (1,) * g.ndim,
                 "VALID"),
     lambda x, init, fn, window, strides, pad: sliding_window_view(x, window).sum(
         axis=tuple(range(x.ndim, 2 * x.ndim))), ARR, module="lax")
_row("associative_scan", lambda g: A(Both(lax.add, np.add), g.x),
     lambda fn, x: fn.accumulate(x, axis=0), ARR, module="lax")

_row("reshape", lambda g: A(g.x, (g.size,)), np.reshape, module="lax")
_row("broadcast", lambda g: A(g.x, (2,)), lambda x, s: np.broadcast_to(x, s + x.shape),
     module="lax")
_row("broadcast_in_dim", lambda g: A(g.x, (2, *g.shape), tuple(range(1, g.ndim + 1))),
     lambda x, shape, dims: np.broadcast_to(x, shape), module="lax")
_row("broadcast_to_rank", lambda g: A(g.x, g.ndim + 1),
     lambda x, rank: x.reshape((1,) * (rank - x.ndim) + x.shape), module="lax")
_row("broadcast_like", lambda g: A(g.x, g.y[None]), lambda x, like: np.broadcast_to(x, like.shape),
     module="lax")
_row("broadcasted_iota", lambda g: A(np.int32, g.shape, 0),
     lambda dt, shape, d: np.indices(shape, dtype=dt)[d], ARR, module="lax")
_row("iota", lambda g: A(np.int32, g.size), lambda dt, n: np.arange(n, dtype=dt), ARR,
     module="lax")
_row("collapse", lambda g: A(g.x, 0), lambda x, start: x.reshape(-1), ARR, module="lax")
_row("expand_dims", lambda g: A(g.x, (0,)), np.expand_dims, module="lax")
_row("squeeze", lambda g: A(g.x[None], (0,)), np.squeeze, module="lax")
_row("transpose", lambda g: A(g.x, tuple(reversed(range(g.ndim)))), np.transpose, module="lax")
_row("rev", lambda g: A(g.x, (0,)), np.flip, ARR, module="lax")
_row("pad", lambda g: A(g.x, np.float32(0), [(1, 1, 0)] * g.ndim),
     lambda x, v, config: np.pad(x, [(lo, hi) for lo, hi, _ in config] or 0), module="lax")
_row("concatenate", lambda g: A([g.x, g.y], 0), np.concatenate, ARR, module="lax")
_row("stack", lambda g: A([g.x, g.y]), np.stack, module="lax")
_row("unstack", X, np.unstack, ARR, module="lax")
_row("tile", lambda g: A(g.x, (2,) * g.ndim), np.tile, module="lax")
_row("split", lambda g: A(g.x, [1, g.n - 1], 0),
     lambda x, sizes, axis: np.split(x, np.cumsum(sizes)[:-1], axis), ARR, module="lax")
_row("slice", lambda g: A(g.x, (0,) * g.ndim, (2,) * g.ndim),
     lambda x, start, limit: x[tuple(map(slice, start, limit))], ARR, module="lax")
_row("slice_in_dim", lambda g: A(g.x, 0, 2), lambda x, a, b: x[a:b], ARR, module="lax")
_row("index_in_dim", lambda g: A(g.x, 1), lambda x, i: x[i:i + 1], ARR, module="lax")
_row("dynamic_slice", lambda g: A(g.x, (1,) * g.ndim, (2,) * g.ndim),
     lambda x, starts, sizes: x[_slices(starts, sizes)], ARR, module="lax")
_row("dynamic_slice_in_dim", lambda g: A(g.x, 1, 2), lambda x, i, n: x[i:i + n], ARR,
     module="lax")
_row("dynamic_index_in_dim", lambda g: A(g.x, 1), lambda x, i: x[i:i + 1], ARR, module="lax")


def _updated(x, update, starts):
    out = x.copy()
    out[_slices(starts, update.shape)] = update
    return out


_row("dynamic_update_slice", lambda g: A(g.x, g.y[(slice(0, 2),) * g.ndim], (1,) * g.ndim),
     _updated, ARR, module="lax")
_row("dynamic_update_slice_in_dim", lambda g: A(g.x, g.y[:2], 1, 0),
     lambda x, u, i, axis: _updated(x, u, (i,) + (0,) * (x.ndim - 1)), ARR, module="lax")
_row("dynamic_update_index_in_dim", lambda g: A(g.x, g.y[:1], 1, 0),
     lambda x, u, i, axis: _updated(x, u, (i,) + (0,) * (x.ndim - 1)), ARR, module="lax")


def _gather_args(g):
    dims = lax.GatherDimensionNumbers(offset_dims=tuple(range(1, g.ndim)),
                                      collapsed_slice_dims=(0,), start_index_map=(0,))
    return A(g.x, g.idx[:, None], dims, (1, *g.shape[1:]))


def _scatter_args(g, updates=True):
    dims = lax.ScatterDimensionNumbers(update_window_dims=tuple(range(1, g.ndim)),
                                       inserted_window_dims=(0,),
                                       scatter_dims_to_operand_dims=(0,))
    if updates:
        return A(g.x, g.idx[:, None], g.y[:2], dims)
    return A(g.x, g.idx[:, None], lambda v: v * 2.0, dims, update_shape=(2, *g.shape[1:]))


def _numpy_scatter(ufunc):
    def scatter(x, idx, updates, dims):
        out = x.copy()
        if ufunc is None:
            out[idx[:, 0]] = updates
        else:
            ufunc.at(out, idx[:, 0], updates)
        return out
    return scatter


_row("gather", _gather_args, lambda x, idx, *_: x[idx[:, 0]], ARR, module="lax")
_row("index_take", lambda g: A(g.x, (g.idx,), (0,)), lambda x, idxs, axes: x[idxs[0]],
     ARR, module="lax")
for _name, _ufunc in (("scatter", None), ("scatter_add", np.add), ("scatter_sub", np.subtract),
                      ("scatter_mul", np.multiply), ("scatter_min", np.minimum),
                      ("scatter_max", np.maximum)):
    _row(_name, _scatter_args, _numpy_scatter(_ufunc), ARR, module="lax")


def _numpy_scatter_apply(x, idx, func, dims, update_shape):
    out = x.copy()
    out[idx[:, 0]] = func(out[idx[:, 0]])
    return out


_row("scatter_apply", lambda g: _scatter_args(g, updates=False), _numpy_scatter_apply, ARR,
     module="lax")
_row("sort", X, np.sort, ARR, module="lax")
_row("sort_key_val", XY,
     lambda k, v: (np.sort(k), np.take_along_axis(v, np.argsort(k, -1), -1)), ARR, module="lax")
_row("top_k", lambda g: A(g.x, 2), _top_k, ARR, module="lax")
_row("approx_max_k", lambda g: A(g.x, 2), _top_k, ARR, module="lax")
_row("approx_min_k", lambda g: A(g.x, 2),
     lambda x, k: tuple(-v if i == 0 else v for i, v in enumerate(_top_k(-x, k))), ARR,
     module="lax")
_row("dot", XY, np.dot, ARR, module="lax")
_row("dot_general", lambda g: A(g.x, g.y, (((g.last,), (0,)), ((), ()))),
     lambda x, y, dims: np.tensordot(x, y, (dims[0][0], dims[0][1])), ARR, module="lax")
_row("batch_matmul", lambda g: A(g.x.reshape(4, 16, 64), g.y.reshape(4, 64, 16)), np.matmul,
     MAT, module="lax")


def _numpy_ragged_dot(lhs, rhs, group_sizes, *_):
    parts = np.split(lhs, np.cumsum(group_sizes)[:-1])
    return np.concatenate([part @ weights for part, weights in zip(parts, rhs)])


def _ragged_args(g, general=False):
    args = A(g.x, np.stack([g.y, g.z]), np.array([32, 32], np.int32))
    if general:
        dims = lax.RaggedDotDimensionNumbers(dot_dimension_numbers=(([1], [1]), ([], [])),
                                             lhs_ragged_dimensions=[0],
                                             rhs_group_dimensions=[0])
        return A(*args.args, dims)
    return args


_row("ragged_dot", _ragged_args, _numpy_ragged_dot, MAT, module="lax")
_row("ragged_dot_general", lambda g: _ragged_args(g, general=True), _numpy_ragged_dot, MAT,
     module="lax")
_row("scaled_dot", lambda g: A(g.x.reshape(4, 16, 64), g.y.reshape(4, 64, 16)), np.matmul, MAT,
     module="lax", check=False)  # bfloat16 operands and result

_KERNEL = np.linspace(-1, 1, 9, dtype=np.float32).reshape(1, 1, 3, 3)


def _image(g):
    return g.x[None, None]


_row("conv", lambda g: A(_image(g), _KERNEL, (1, 1), "VALID"),
     lambda lhs, rhs, *_: _conv_valid(lhs, rhs), MAT, module="lax")
_row("conv_general_dilated", lambda g: A(_image(g), _KERNEL, (1, 1), "VALID"),
     lambda lhs, rhs, *_: _conv_valid(lhs, rhs), MAT, module="lax")
_row("conv_with_general_padding",
     lambda g: A(_image(g), _KERNEL, (1, 1), ((0, 0), (0, 0)), None, None),
     lambda lhs, rhs, *_: _conv_valid(lhs, rhs), MAT, module="lax")
_row("conv_transpose",
     lambda g: A(_image(g), _KERNEL, (1, 1), "VALID",
                 dimension_numbers=("NCHW", "OIHW", "NCHW")),
     lambda lhs, rhs, *_, **__: _conv_valid(np.pad(lhs, ((0, 0), (0, 0), (2, 2), (2, 2))), rhs),
     MAT, module="lax")
_row("conv_general_dilated_patches", lambda g: A(_image(g), (3, 3), (1, 1), "VALID"),
     lambda lhs, filter_shape, *_: _patches(lhs, filter_shape), MAT, module="lax")
_row("conv_general_dilated_local",
     lambda g: A(_image(g), np.broadcast_to(_KERNEL.reshape(1, 9, 1, 1), (1, 9, 62, 62)).copy(),
                 (1, 1), "VALID", (3, 3)),
     lambda lhs, rhs, strides, padding, filter_shape: np.einsum(
         "nkhw,okhw->nohw", _patches(lhs, filter_shape), rhs), MAT, module="lax")
_row("fft", lambda g: A(g.cx, "FFT", (g.shape[-1],)), lambda x, kind, lengths: np.fft.fft(x),
     ARR, module="lax")

_row("full", lambda g: A(g.shape, 1.5), np.full, module="lax")
_row("full_like", lambda g: A(g.x, 1.5), np.full_like, module="lax")
_row("empty", lambda g: A(g.shape, np.float32), np.empty, module="lax", check=False)
_row("zeros_like_array", X, np.zeros_like, module="lax")
_row("shape_as_value", lambda g: A(g.shape), np.asarray, ARR, module="lax")
_row("broadcast_shapes", lambda g: A(g.shape, (2, *g.shape)), np.broadcast_shapes, module="lax")
_RNG = np.random.default_rng(0)
_row("rng_bit_generator", lambda g: A(np.arange(4, dtype=np.uint32), g.shape),
     lambda key, shape: (key, _RNG.integers(0, 2**32, shape, dtype=np.uint32)), ARR,
     module="lax", check=False)
_row("rng_uniform", lambda g: A(np.float32(0), np.float32(1), g.shape),
     lambda a, b, shape: _RNG.uniform(a, b, shape).astype(np.float32), ARR, module="lax",
     check=False)

# Control flow, timed with trivial bodies against the same Python loop over NumPy.
_row("cond", lambda g: A(True, lambda v: v + 1.0, lambda v: v - 1.0, g.x),
     lambda pred, on_true, on_false, x: on_true(x) if pred else on_false(x), module="lax")
_row("switch", lambda g: A(1, [lambda v: v + 1.0, lambda v: v - 1.0], g.x),
     lambda i, branches, x: branches[i](x), module="lax")
_row("while_loop", lambda g: A(lambda c: c[0] < 10, lambda c: (c[0] + 1, c[1] * 0.5), (0, g.x)),
     _numpy_while, module="lax")
_row("fori_loop", lambda g: A(0, 10, lambda i, v: v * 0.5 + 1.0, g.x), _numpy_fori,
     module="lax")
_row("scan", lambda g: A(lambda c, v: (c + v, c * 2.0), np.zeros_like(g.x[0]), g.x),
     _numpy_scan, ARR, module="lax")
_row("map", lambda g: A(lambda v: v * 2.0, g.x), lambda f, xs: np.stack([f(v) for v in xs]),
     ARR, module="lax")
_row("custom_root",
     lambda g: A(lambda v: v - 0.5, g.x, lambda f, x0: x0 * 0.0 + 0.5, lambda g_, y: y),
     lambda f, x0, solve, tangent_solve: solve(f, x0), module="lax")
_row("custom_linear_solve", lambda g: A(lambda v: v * 2.0, g.x, lambda mv, b: b * 0.5),
     lambda matvec, b, solve: solve(matvec, b), module="lax")
_row("platform_dependent", lambda g: A(g.x, default=lambda v: v + 1.0),
     lambda x, default: default(x), module="lax")
_row("composite", lambda g: A(lambda v: v + 1.0, "bench.add_one", g.x),
     lambda decomposition, name: decomposition, module="lax",
     invoke=lambda f, decomposition, name, x: f(decomposition, name)(x))

# --- names not timed --------------------------------------------------------------------------
_COLLECTIVE = "a collective: needs a named axis (inside vmap/pmap with axis_name)"
_SHAPE_RULE = "shape arithmetic on tuples of ints, no NumPy counterpart"
SKIPPED: dict[str, str] = {
    **{f"lax.{name}": _COLLECTIVE for name in (
        "all_gather all_to_all axis_index axis_size pbroadcast pcast pmax pmean pmin ppermute"
        " pshuffle psum psum_scatter pswapaxes ragged_all_to_all").split()},
    **{f"lax.{name}": _SHAPE_RULE for name in (
        "conv_dimension_numbers conv_general_permutations conv_general_shape_tuple"
        " conv_shape_tuple conv_transpose_shape_tuple padtype_to_pads"
        " reduce_window_shape_tuple").split()},
    "lax.after_all": "makes an ordering token (effects under jit), no NumPy counterpart",
    "lax.create_token": "makes an ordering token (effects under jit), no NumPy counterpart",
    "lax.dce_sink": "a compiler hint that returns nothing, no NumPy counterpart",
    "lax.with_sharding_constraint": "a sharding annotation (needs a mesh), no NumPy counterpart",
    "lax.igamma_grad_a": "the derivative of igamma in a: no NumPy or SciPy counterpart",
    "lax.random_gamma_grad": "the derivative of a gamma sample: no NumPy or SciPy counterpart",
    "numpy.fromiter": "not provided (raises NotImplementedError, as jax.numpy does)",
    "numpy.load": "file I/O",
    "numpy.save": "file I/O",
    "numpy.savez": "file I/O",
    "numpy.set_printoptions": "changes a global display setting",
    "numpy.printoptions": "a context manager for display settings",
}
