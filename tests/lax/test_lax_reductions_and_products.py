"""``funcarray.lax``'s reductions, scans, sorts (``funcarray/lax/_ops_reduce.py``) and products
(``_ops_dot.py``) against ``jax.lax``, eagerly and under ``fa.jit``, and their errors.
"""

from __future__ import annotations

import jax
import numpy as np
import pytest
from lax_oracle import (
    BF16,
    BOOL,
    C64,
    F16,
    F32,
    F64,
    I8,
    I32,
    U8,
    U32,
    _dname,
    check_all,
    rand,
    seeded_rng,  # noqa: F401  (an autouse fixture: rand() per test)
)

import funcarray.numpy as fnp
from funcarray import lax

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
     r"lax\.reduce_sum: axes=\(-1,\) must be non-negative of operand float32\[3,4\].*\(1,\)"),
    (lambda: lax.reduce_sum(fnp.ones((3, 4)), (1, 1)), ValueError, "repeated dimension"),
    (lambda: lax.reduce_sum(fnp.ones((3, 4)), (2,)), ValueError, "out of range"),
    (lambda: lax.reduce_sum(fnp.ones((3, 4)), 1), TypeError, r"write \(1,\)"),
    (lambda: lax.reduce_sum(fnp.ones(3, fnp.bool_), (0,)), TypeError,
     r"lax\.reduce_sum: does not accept dtype bool"),
    (lambda: lax.reduce_and(fnp.ones(3), (0,)), TypeError,
     r"lax\.reduce_and: does not accept dtype float32"),
    (lambda: lax.argmax(fnp.ones((3, 4)), -1, fnp.int32), ValueError,
     r"lax\.argmax: axis=-1 must be non-negative for operand float32\[3,4\].*write 1"),
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
     r"lax\.dot: dimension_numbers must be given .* got lhs float32\[2,3,4\], rhs float32\[4,2\]"),
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


