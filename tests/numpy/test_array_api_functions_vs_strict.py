"""Every function of the Array API standard 2024.12 that is not elementwise (statistics,
searching, sorting, sets, manipulation, indexing, creation, data types, ``linalg`` and
``fft``) and the array object's methods and attributes, on funcarray.numpy against
array-api-strict over the dtypes each accepts: eagerly, and under jit where the result's
shape does not depend on the values.

A table entry is ``label -> cases``; its label names the standard function it covers before
any ``:`` (``"sum:dtype"``). CI compares every case eagerly and one per entry under jit
(compiling dominates); the thorough profile jits them all. Allowances:
``tests/array_api_strict_oracle.py``."""

from __future__ import annotations

import operator

import numpy as np
import pytest
from array_api_strict_oracle import (
    BOOL,
    COMPLEX,
    DTYPES,
    FLOATING,
    INTEGER,
    NUMERIC,
    REAL,
    REAL_FLOAT,
    Case,
    check_cases,
    operand,
)

# Non-elementwise results agree within this rtol and atol by precision: reductions,
# decompositions and transforms accumulate rounding in another order than NumPy's.
_LOOSE = {32: 1e-4, 64: 1e-10}
S3 = ((2, 3), (0, 3), (4,), (1, 2, 3))
SQUARE = ((3, 3), (2, 3, 3))
WIDE = SQUARE + ((2, 4),)

TABLE: dict[str, list[Case]] = {}


def _tolerance(dtype):
    bits = {"float32": 32, "complex64": 32}.get(dtype, 64)
    return _LOOSE[bits]


def over(label, call, dtypes, shapes=((2, 3),), kind="any", result="same", jit=True):
    """Register ``call(xp, x)`` on one operand of each dtype and shape."""
    TABLE[label] = [
        Case(f"{label}[{dtype}{shape}]", call,
             (operand(dtype, shape, f"{label}{dtype}{shape}", kind),), result=result,
             rtol=_tolerance(dtype), atol=_tolerance(dtype), jit=jit)
        for dtype in dtypes for shape in shapes]


def cases(label, made):
    """Register hand-made cases (no operand dtype sweep)."""
    TABLE[label] = made


def _dtype_name(dtype) -> str:
    """``int8`` for array-api-strict's, funcarray's and NumPy's int8."""
    return str(dtype).rpartition(".")[2]


def _spd(xp, x):
    """A Hermitian positive definite matrix (stack) made from ``x``."""
    return x @ xp.linalg.matrix_transpose(xp.conj(x)) + 3 * xp.eye(x.shape[-1], dtype=x.dtype)


def _other(xp, x):
    """A second operand of another dtype of the same kind (int16 or float32)."""
    integral = xp.isdtype(x.dtype, ("integral", "bool"))
    return xp.astype(x, xp.int16 if integral else xp.float32)


# ------------------------------------------------------------------ statistics
for f in ("max", "min"):
    over(f, lambda xp, x, f=f: getattr(xp, f)(x, axis=-1, keepdims=True), REAL,
         shapes=((2, 3), (4,)), kind="edge")
    over(f"{f}:all", lambda xp, x, f=f: getattr(xp, f)(x), REAL)
over("mean", lambda xp, x: xp.mean(x, axis=0), FLOATING, shapes=S3)
over("mean:all", lambda xp, x: xp.mean(x, keepdims=True), FLOATING, kind="edge")
for f in ("sum", "prod", "cumulative_sum", "cumulative_prod"):
    over(f, lambda xp, x, f=f: getattr(xp, f)(x, axis=-1), DTYPES, shapes=S3,
         result="default")
    over(f"{f}:dtype", lambda xp, x, f=f: getattr(xp, f)(x, axis=-1, dtype=xp.float64), REAL)
over("cumulative_sum:include_initial",
     lambda xp, x: xp.cumulative_sum(x, axis=0, include_initial=True), NUMERIC, shapes=S3,
     result="default")
over("cumulative_prod:include_initial",
     lambda xp, x: xp.cumulative_prod(x, axis=1, include_initial=True), NUMERIC,
     result="default")
over("sum:keepdims", lambda xp, x: xp.sum(x, axis=(0, 1), keepdims=True), NUMERIC,
     result="default")
over("sum:empty_axis", lambda xp, x: xp.sum(x, axis=()), NUMERIC, result="default")
for f in ("std", "var"):
    over(f, lambda xp, x, f=f: getattr(xp, f)(x, axis=1, correction=1, keepdims=True),
         REAL_FLOAT)
    over(f"{f}:all", lambda xp, x, f=f: getattr(xp, f)(x, correction=0.5), REAL_FLOAT,
         shapes=S3[:1] + S3[2:])

# ------------------------------------------------------------------ searching
for f in ("argmax", "argmin"):
    over(f, lambda xp, x, f=f: getattr(xp, f)(x, axis=1, keepdims=True), REAL,
         result="index")
    over(f"{f}:flat", lambda xp, x, f=f: getattr(xp, f)(x), REAL, result="index")
over("count_nonzero", lambda xp, x: xp.count_nonzero(x, axis=(0,)), DTYPES, shapes=S3,
     result="index")
over("count_nonzero:all", lambda xp, x: xp.count_nonzero(x, keepdims=True), DTYPES,
     shapes=S3, result="index")
over("nonzero", lambda xp, x: xp.nonzero(x), DTYPES, shapes=S3, result="index", jit=False)
over("searchsorted",
     lambda xp, x: xp.searchsorted(xp.sort(xp.reshape(x, (-1,))), x, side="right"), REAL,
     result="index")
over("searchsorted:sorter",
     lambda xp, x: xp.searchsorted(xp.reshape(x, (-1,)), x,
                                   sorter=xp.argsort(xp.reshape(x, (-1,)))), REAL,
     result="index")
over("where", lambda xp, x: xp.where(x if x.dtype == xp.bool else x > 0, x, x[0, ...]),
     BOOL + REAL)
over("where:scalar", lambda xp, x: xp.where(x > 0, x, 1), INTEGER)
over("where:scalar_first", lambda xp, x: xp.where(x > 0, 0.5, x), REAL_FLOAT)

# ------------------------------------------------------------------ sorting and sets
over("argsort", lambda xp, x: xp.argsort(x, axis=0, stable=True, descending=True),
     BOOL + REAL, result="index")
over("sort", lambda xp, x: xp.sort(x, axis=-1, descending=True), BOOL + REAL, shapes=S3)
over("unique_values", lambda xp, x: xp.sort(xp.unique_values(x)), BOOL + REAL, jit=False)
for f in ("unique_counts", "unique_inverse", "unique_all"):
    over(f, lambda xp, x, f=f: getattr(xp, f)(x), REAL, result="index", jit=False)

# ------------------------------------------------------------------ elementwise clip
over("clip", lambda xp, x: xp.clip(x, 1, 5), INTEGER)
over("clip:float", lambda xp, x: xp.clip(x, -0.5, None), REAL_FLOAT)
over("clip:array", lambda xp, x: xp.clip(x, x[:1, ...], None), REAL)

# ------------------------------------------------------------------ utility
over("all", lambda xp, x: xp.all(x, axis=0), DTYPES, shapes=S3)
over("any", lambda xp, x: xp.any(x, axis=(0, -1), keepdims=True), DTYPES)
over("diff", lambda xp, x: xp.diff(x, axis=-1, n=1), DTYPES, shapes=S3)
over("diff:prepend_append",
     lambda xp, x: xp.diff(x, axis=0, n=2, prepend=x[:1, ...], append=x[:2, ...]), NUMERIC)

# ------------------------------------------------------------------ indexing
over("take", lambda xp, x: xp.take(x, xp.asarray([0, 1, 0]), axis=1), DTYPES)
over("take:1d", lambda xp, x: xp.take(xp.reshape(x, (-1,)), xp.asarray([2, 0])), DTYPES)
over("take_along_axis",
     lambda xp, x: xp.take_along_axis(x, xp.asarray([[0, 2], [1, 1]]), axis=-1), DTYPES)

# ------------------------------------------------------------------ manipulation
over("broadcast_to", lambda xp, x: xp.broadcast_to(x, (4, 2, 3)), DTYPES)
over("broadcast_arrays", lambda xp, x: xp.broadcast_arrays(x, x[:1, ...]), DTYPES)
over("concat", lambda xp, x: xp.concat((x, x), axis=-1), DTYPES)
over("concat:none", lambda xp, x: xp.concat((x, x[0, ...]), axis=None), DTYPES)
over("concat:mixed_dtypes", lambda xp, x: xp.concat((x, _other(xp, x))), DTYPES)
over("stack", lambda xp, x: xp.stack((x, x), axis=1), DTYPES)
over("expand_dims", lambda xp, x: xp.expand_dims(x, axis=-2), DTYPES)
over("flip", lambda xp, x: xp.flip(x, axis=(0,)), DTYPES)
over("flip:all", lambda xp, x: xp.flip(x), DTYPES, shapes=S3)
over("moveaxis", lambda xp, x: xp.moveaxis(x, (0, 1), (1, 0)), DTYPES)
over("permute_dims", lambda xp, x: xp.permute_dims(x, (1, 0)), DTYPES)
over("repeat", lambda xp, x: xp.repeat(x, xp.asarray([2, 0, 1]), axis=1), DTYPES,
     jit=False)
over("repeat:int", lambda xp, x: xp.repeat(x, 2), DTYPES)
over("reshape", lambda xp, x: xp.reshape(x, (3, -1), copy=True), DTYPES)
over("roll", lambda xp, x: xp.roll(x, -4), DTYPES)
over("roll:axes", lambda xp, x: xp.roll(x, (1, 2), axis=(1, 0)), DTYPES)
over("squeeze", lambda xp, x: xp.squeeze(x[:1, ...], axis=(0,)), DTYPES)
over("tile", lambda xp, x: xp.tile(x, (2, 1, 2)), DTYPES)
over("unstack", lambda xp, x: xp.unstack(x, axis=-1), DTYPES)

# ------------------------------------------------------------------ creation
over("zeros_like", lambda xp, x: xp.zeros_like(x), DTYPES)
over("ones_like", lambda xp, x: xp.ones_like(x, dtype=xp.int16), DTYPES)
over("full_like", lambda xp, x: xp.full_like(x, 1), DTYPES)
over("full_like:float", lambda xp, x: xp.full_like(x, 0.5), FLOATING)
# empty_like's values are arbitrary: its dtype and shape, through a zeros array of them
over("empty_like", lambda xp, x: xp.zeros_like(xp.empty_like(x)), DTYPES)
over("empty_like:dtype", lambda xp, x: xp.zeros(xp.empty_like(x, dtype=xp.int8).shape),
     DTYPES, result="default")
over("tril", lambda xp, x: xp.tril(x, k=1), DTYPES)
over("triu", lambda xp, x: xp.triu(x, k=-1), DTYPES)
over("meshgrid", lambda xp, x: xp.meshgrid(xp.reshape(x, (-1,)), x[0, ...], indexing="ij"),
     DTYPES)
over("meshgrid:xy", lambda xp, x: xp.meshgrid(xp.reshape(x, (-1,)), x[0, ...]), DTYPES)
over("zeros", lambda xp, x: xp.zeros((2, 0, 3), dtype=x.dtype), DTYPES, shapes=((),))
over("ones", lambda xp, x: xp.ones(4, dtype=x.dtype), DTYPES, shapes=((),))
over("empty", lambda xp, x: xp.zeros(xp.empty((3, 2), dtype=x.dtype).shape, dtype=x.dtype),
     DTYPES, shapes=((),))
over("eye", lambda xp, x: tuple(xp.eye(3, 4, k=k, dtype=x.dtype) for k in (-2, 0, 1, 5)),
     DTYPES, shapes=((),))
cases("eye:default", [Case(f"eye:default{args}", lambda xp, args=args: xp.eye(*args),
                           result="default") for args in ((3,), (0, 2), (2, 3))])
_ARANGE = ((5,), (1, 7), (1, 7, 2), (7, 1, -2), (0.5, 3.0, 0.5), (0, 1, 0.1), (5, 0),
           (-3, 3, 1.5), (10, 0, -3))
cases("arange", [Case(f"arange{args}", lambda xp, args=args: xp.arange(*args),
                      result="default") for args in _ARANGE]
      + [Case(f"arange{args}[{d}]", lambda xp, args=args, d=d: xp.arange(
          *args, dtype=getattr(xp, d))) for args in _ARANGE
         for d in ("int8", "uint8", "int64", "float32", "float64")
         if not (d[0] in "iu" and any(isinstance(a, float) for a in args))
         and not (d == "uint8" and min(args) < 0)])
_LINSPACE = (((0, 1, 5), {}), ((0, 1, 5), {"endpoint": False}), ((2, 3, 1), {}),
             ((0, 1, 0), {}), ((1j, 2 + 3j, 4), {}), ((-1, 1, 7), {"endpoint": True}))
cases("linspace", [Case(f"linspace{args}{kw}", lambda xp, a=args, k=kw: xp.linspace(*a, **k),
                        result="default", rtol=1e-6, atol=1e-6) for args, kw in _LINSPACE]
      + [Case(f"linspace{args}{kw}[{d}]",
              lambda xp, a=args, k=kw, d=d: xp.linspace(*a, dtype=getattr(xp, d), **k),
              rtol=_tolerance(d), atol=_tolerance(d))
         for args, kw in _LINSPACE for d in FLOATING
         if not (isinstance(args[0], complex) and d in REAL_FLOAT)])


def _fills_for(dtype):
    """Fill values the standard lets ``dtype`` hold: of its kind or a lower one, in range."""
    kind = np.dtype(dtype).kind
    fills = [True] if kind == "b" else [3] if kind == "u" else [3, -2]
    if kind in "fc":
        fills += [2.5, float("nan"), float("inf"), -0.0]
    if kind == "c":
        fills += [1 + 2j]
    return fills


cases("full", [Case(f"full({v!r})[{d}]", lambda xp, v=v, d=d: xp.full((2, 3), v,
                                                                      dtype=getattr(xp, d)))
               for d in DTYPES for v in _fills_for(d)]
      + [Case(f"full({v!r})", lambda xp, v=v: xp.full((2, 3), v), result="default")
         for v in (True, 3, -2, 2.5, 1 + 2j)])
_OBJECTS = ([1, 2], [1.5, 2], [True, False], [[1, 2], [3, 4]], 3, 2.5, True, 1j, [], [[]],
            [1, 2.5j])
cases("asarray", [Case(f"asarray({o!r})", lambda xp, o=o: xp.asarray(o), result="default")
                  for o in _OBJECTS]
      + [Case(f"asarray({o!r})[{d}]", lambda xp, o=o, d=d: xp.asarray(o, dtype=getattr(xp, d)))
         for o in ([1, 2], [[1, 0], [3, 4]], 3, True, []) for d in DTYPES]
      + [Case(f"asarray(array)[{d}]", lambda xp, x: xp.asarray(x, dtype=xp.float64, copy=True),
              (operand(d, (2, 3), f"asarray{d}"),)) for d in REAL])
over("from_dlpack", lambda xp, x: xp.from_dlpack(x), DTYPES, jit=False)
over("from_dlpack:copy", lambda xp, x: xp.from_dlpack(x, copy=True), DTYPES, jit=False)

# ------------------------------------------------------------------ data types
cases("astype", [Case(f"astype({s}->{d})", lambda xp, x, d=d: xp.astype(x, getattr(xp, d)),
                      (operand(s, (5,), f"astype{s}{d}", "pos"),))
                 for s in DTYPES for d in DTYPES])
over("astype:copy", lambda xp, x: xp.astype(x, x.dtype, copy=False), DTYPES)
cases("can_cast", [Case(f"can_cast({s}, {d})", lambda xp, s=s, d=d: xp.can_cast(
    getattr(xp, s), getattr(xp, d)), jit=False) for s in DTYPES for d in DTYPES])
cases("result_type",
      [Case(f"result_type({a}, {b})",
            lambda xp, a=a, b=b: _dtype_name(xp.result_type(getattr(xp, a), getattr(xp, b))),
            jit=False) for a in DTYPES for b in DTYPES]
      + [Case(f"result_type({a}, {s!r})",
              lambda xp, a=a, s=s: _dtype_name(xp.result_type(getattr(xp, a), s)), jit=False)
         for a in DTYPES for s in (True, 1, 2.5, 1j, -1, 300)]
      + [Case(f"result_type(array {a}, {s!r})", lambda xp, x, s=s: _dtype_name(
          xp.result_type(s, x)), (operand(a, (2,), "result_type"),), jit=False)
         for a in DTYPES for s in (True, 1, 2.5, 1j)])
_KINDS = ("bool", "signed integer", "unsigned integer", "integral", "real floating",
          "complex floating", "numeric", ("integral", "bool"))
cases("isdtype", [Case(f"isdtype({d}, {k!r})", lambda xp, d=d, k=k: xp.isdtype(
    getattr(xp, d), k), jit=False) for d in DTYPES for k in _KINDS]
      + [Case(f"isdtype({d}, float32)", lambda xp, d=d: xp.isdtype(getattr(xp, d),
                                                                    xp.float32), jit=False)
         for d in DTYPES])
cases("finfo", [Case(f"finfo({d})", lambda xp, d=d: (
    lambda i: (i.bits, i.eps, i.max, i.min, i.smallest_normal, _dtype_name(i.dtype)))(
        xp.finfo(getattr(xp, d))), jit=False) for d in FLOATING])
cases("iinfo", [Case(f"iinfo({d})", lambda xp, d=d: (
    lambda i: (i.bits, i.max, i.min, _dtype_name(i.dtype)))(xp.iinfo(getattr(xp, d))),
    jit=False) for d in INTEGER])

# ------------------------------------------------------------------ linear algebra
over("matmul", lambda xp, x: xp.matmul(x, xp.matrix_transpose(x)), NUMERIC, kind="small")
over("tensordot", lambda xp, x: xp.tensordot(x, x, axes=([0, 1], [0, 1])), NUMERIC,
     kind="small")
over("tensordot:int", lambda xp, x: xp.tensordot(x, xp.matrix_transpose(x), axes=1), NUMERIC,
     kind="small")
over("vecdot", lambda xp, x: xp.vecdot(x, xp.flip(x, axis=0), axis=-2), NUMERIC,
     kind="small")
over("matrix_transpose", lambda xp, x: xp.matrix_transpose(x), DTYPES, shapes=((2, 3, 4),))
over("linalg.vecdot", lambda xp, x: xp.linalg.vecdot(x, x, axis=-1), NUMERIC, kind="small")
over("linalg.outer", lambda xp, x: xp.linalg.outer(x[0, ...], x[1, ...]), NUMERIC)
over("linalg.cross", lambda xp, x: xp.linalg.cross(x, xp.flip(x, axis=0)), NUMERIC,
     kind="small")
over("linalg.diagonal", lambda xp, x: xp.linalg.diagonal(x, offset=1), DTYPES)
over("linalg.trace", lambda xp, x: xp.linalg.trace(x, offset=-1), NUMERIC, result="default")
over("linalg.trace:dtype", lambda xp, x: xp.linalg.trace(x, dtype=xp.float64), REAL)
over("linalg.matrix_transpose", lambda xp, x: xp.linalg.matrix_transpose(x), DTYPES)
over("linalg.vector_norm", lambda xp, x: xp.linalg.vector_norm(x, axis=(0, 1), keepdims=True),
     FLOATING, shapes=S3[:2] + S3[3:])
for o in (0, 1, 2, 3, float("inf"), -float("inf"), -1, 0.5):
    over(f"linalg.vector_norm:ord={o}",
         lambda xp, x, o=o: xp.linalg.vector_norm(x, ord=o, axis=-1), FLOATING)
over("linalg.cholesky", lambda xp, x: xp.linalg.cholesky(_spd(xp, x)), FLOATING,
     shapes=SQUARE)
over("linalg.cholesky:upper", lambda xp, x: xp.linalg.cholesky(_spd(xp, x), upper=True),
     FLOATING, shapes=SQUARE)
over("linalg.det", lambda xp, x: xp.linalg.det(x), FLOATING, shapes=SQUARE)
over("linalg.slogdet", lambda xp, x: xp.linalg.slogdet(x), FLOATING, shapes=SQUARE)
over("linalg.eigvalsh", lambda xp, x: xp.linalg.eigvalsh(_spd(xp, x)), FLOATING,
     shapes=SQUARE)
# eigenvectors are unique up to a phase: their values, and A v = v diag(w)
over("linalg.eigh", lambda xp, x: (
    lambda a, r: (r.eigenvalues, xp.abs(a @ r.eigenvectors
                                        - r.eigenvectors * r.eigenvalues[..., None, :])))(
        _spd(xp, x), xp.linalg.eigh(_spd(xp, x))), FLOATING, shapes=SQUARE)
over("linalg.inv", lambda xp, x: xp.linalg.inv(_spd(xp, x)), FLOATING, shapes=SQUARE)
over("linalg.matrix_power", lambda xp, x: xp.linalg.matrix_power(x, 3), NUMERIC,
     shapes=SQUARE, kind="small")
over("linalg.matrix_power:negative", lambda xp, x: xp.linalg.matrix_power(_spd(xp, x), -2),
     FLOATING, shapes=SQUARE)
over("linalg.matrix_power:zero", lambda xp, x: xp.linalg.matrix_power(x, 0), NUMERIC,
     shapes=SQUARE)
over("linalg.matrix_rank", lambda xp, x: xp.linalg.matrix_rank(x), FLOATING, shapes=WIDE,
     result="index")
over("linalg.matrix_rank:rtol", lambda xp, x: xp.linalg.matrix_rank(x, rtol=0.1), FLOATING,
     shapes=WIDE, result="index")
for o in ("fro", "nuc", 1, -1, 2, -2, float("inf"), -float("inf")):
    over(f"linalg.matrix_norm:ord={o}",
         lambda xp, x, o=o: xp.linalg.matrix_norm(x, ord=o, keepdims=True), FLOATING,
         shapes=WIDE)
over("linalg.pinv", lambda xp, x: xp.linalg.pinv(x), FLOATING, shapes=WIDE)
over("linalg.pinv:rtol", lambda xp, x: xp.linalg.pinv(x, rtol=0.5), FLOATING, shapes=WIDE)
# Q and R are unique up to the signs (phases) of R's diagonal: |R|, and Q R = A
over("linalg.qr", lambda xp, x: (lambda r: (xp.abs(r.R), r.Q @ r.R))(xp.linalg.qr(x)),
     FLOATING, shapes=SQUARE + ((4, 2),))
over("linalg.qr:complete", lambda xp, x: (lambda r: (xp.abs(r.R), r.Q @ r.R))(
    xp.linalg.qr(x, mode="complete")), FLOATING, shapes=((4, 2),))
over("linalg.solve", lambda xp, x: xp.linalg.solve(_spd(xp, x), x), FLOATING, shapes=SQUARE)
over("linalg.solve:vector", lambda xp, x: xp.linalg.solve(_spd(xp, x), x[..., 0]), FLOATING,
     shapes=((3, 3),))
over("linalg.svdvals", lambda xp, x: xp.linalg.svdvals(x), FLOATING, shapes=WIDE)
# singular vectors are unique up to phases: S, the shapes of U and Vh, and U diag(S) Vh = A
over("linalg.svd", lambda xp, x: (lambda r: (r.S, r.U @ (r.S[..., None] * r.Vh)))(
    xp.linalg.svd(x, full_matrices=False)), FLOATING, shapes=WIDE)
over("linalg.svd:full_matrices", lambda xp, x: tuple(
    xp.zeros(t.shape, dtype=xp.float32) for t in xp.linalg.svd(x)), FLOATING,
     shapes=((2, 4), (4, 2)))
over("linalg.matmul", lambda xp, x: xp.linalg.matmul(x, x), NUMERIC, shapes=SQUARE,
     kind="small")
over("linalg.tensordot", lambda xp, x: xp.linalg.tensordot(x, x, axes=2), NUMERIC,
     kind="small")

# ------------------------------------------------------------------ fft
for f in ("fft", "ifft", "rfft", "ihfft"):
    over(f"fft.{f}", lambda xp, x, f=f: getattr(xp.fft, f)(x, n=5, axis=0, norm="ortho"),
         FLOATING)
    over(f"fft.{f}:defaults", lambda xp, x, f=f: getattr(xp.fft, f)(x), FLOATING)
for f in ("irfft", "hfft"):
    over(f"fft.{f}", lambda xp, x, f=f: getattr(xp.fft, f)(x, n=6, axis=-1, norm="forward"),
         FLOATING)
    over(f"fft.{f}:defaults", lambda xp, x, f=f: getattr(xp.fft, f)(x), COMPLEX)
for f in ("fftn", "ifftn", "rfftn"):
    over(f"fft.{f}", lambda xp, x, f=f: getattr(xp.fft, f)(x, s=(3, 4), axes=(0, 1)),
         FLOATING)
    over(f"fft.{f}:defaults", lambda xp, x, f=f: getattr(xp.fft, f)(x), FLOATING,
         shapes=((2, 3), (2, 3, 4)))
over("fft.irfftn", lambda xp, x: xp.fft.irfftn(x, s=(3, 4), axes=(0, 1)), COMPLEX)
over("fft.irfftn:defaults", lambda xp, x: xp.fft.irfftn(x), COMPLEX,
     shapes=((2, 3), (2, 3, 4)))
over("fft.fftshift", lambda xp, x: xp.fft.fftshift(x, axes=1), DTYPES)
over("fft.fftshift:all", lambda xp, x: xp.fft.fftshift(x), DTYPES)
over("fft.ifftshift", lambda xp, x: xp.fft.ifftshift(x, axes=(0, 1)), DTYPES)
for f in ("fftfreq", "rfftfreq"):
    cases(f"fft.{f}", [Case(f"fft.{f}({n}, d={d})[{t}]",
                            lambda xp, f=f, n=n, d=d, t=t: getattr(xp.fft, f)(
                                n, d=d, dtype=getattr(xp, t)), rtol=1e-6, atol=1e-7)
                       for n in (1, 5, 6) for d in (1.0, 0.25) for t in REAL_FLOAT]
          + [Case(f"fft.{f}({n})", lambda xp, f=f, n=n: getattr(xp.fft, f)(n),
                  result="default", rtol=1e-6, atol=1e-7) for n in (4, 7)])

# ------------------------------------------------------------------ the array object
_CONVERSIONS = {"__bool__": bool, "__int__": int, "__float__": float, "__complex__": complex,
                "__index__": operator.index}
for _name, _convert in _CONVERSIONS.items():
    cases(_name, [Case(f"{_name}({d}{shape})", lambda xp, x, c=_convert: c(x),
                       (operand(d, shape, f"{_name}{d}", "edge"),), jit=False)
                  for d in DTYPES for shape in ((), (1,))])
over("mT", lambda xp, x: x.mT, DTYPES, shapes=((2, 3, 4),))
over("T", lambda xp, x: x.T, DTYPES)
for _attribute in ("ndim", "size", "shape"):
    over(_attribute, lambda xp, x, a=_attribute: getattr(x, a), DTYPES, shapes=S3, jit=False)
over("dtype", lambda xp, x: _dtype_name(x.dtype), DTYPES, jit=False)
# basic, integer-array and boolean-mask indices; a mask's result shape depends on its values
_X = operand("float64", (4, 5, 6), "getitem")
_INDICES = {
    "0, ...": lambda xp: (0, Ellipsis), "-1, ...": lambda xp: (-1, Ellipsis),
    "1, 2, ...": lambda xp: (1, 2, Ellipsis), "1, 2, 3": lambda xp: (1, 2, 3),
    "::-1, ...": lambda xp: (slice(None, None, -1), Ellipsis),
    "::-1, :, 1": lambda xp: (slice(None, None, -1), slice(None), 1),
    "1::2, ..., 0": lambda xp: (slice(1, None, 2), Ellipsis, 0),
    "...": lambda xp: Ellipsis, "None, 1, ...": lambda xp: (None, 1, Ellipsis),
    "1, None, :, None, ...": lambda xp: (1, None, slice(None), None, Ellipsis),
    "3:0:-2, :, -3": lambda xp: (slice(3, 0, -2), slice(None), -3),
    "int array, 0, 1": lambda xp: (xp.asarray([0, 2, 1, 2]), 0, 1),
    "2-d int arrays": lambda xp: (xp.asarray([[0, 1], [3, 2]]), xp.asarray([[1], [4]]),
                                  xp.asarray([0, 5])),
    "0-d int array, 1, 3": lambda xp: (xp.asarray(2), 1, 3),
    "negative int array, 0, -1": lambda xp: (xp.asarray([-1, -4]), 0, -1),
    "0, 1, int array": lambda xp: (0, 1, xp.asarray([0, 2, 1, 2])),
}
cases("__getitem__", [Case(f"__getitem__[{k}]", lambda xp, x, i=i: x[i(xp)], (_X,))
                      for k, i in _INDICES.items()]
      + [Case("__getitem__[bool mask]", lambda xp, x: x[x[:, 0, 0] > 0], (_X,), jit=False),
         Case("__getitem__[3-d bool mask]", lambda xp, x: x[x > 0], (_X,), jit=False),
         Case("__getitem__[0-d bool]", lambda xp, x: x[xp.asarray(True)], (_X,), jit=False),
         Case("__getitem__[0-d False]", lambda xp, x: x[xp.asarray(False)], (_X,),
              jit=False)])


@pytest.mark.parametrize("label", sorted(TABLE))
def test_against_array_api_strict_over_dtypes(label):
    assert check_cases(TABLE[label], jit_count=1, key=label) > 0, \
        f"{label}: array-api-strict refused every case (the table's dtypes are wrong)"
