"""funcarray.numpy against array-api-strict (the standard's reference implementation) on the
standard's functions, with the standard's keywords, in 64-bit dtypes: values, shapes and
dtypes, eagerly and under jit (the data-dependent ``unique_*`` eagerly only)."""

from __future__ import annotations

import numpy as np
import pytest
from array_api_strict_oracle import Case, check_cases
from hypothesis import given, settings
from hypothesis import strategies as st

import funcarray.numpy as fnp

# Index results: funcarray's default index dtype (the allowance of array_api_strict_oracle)
_INDEX_RESULTS = {"argsort", "searchsorted", "unique_counts", "unique_inverse", "unique_all",
                  "nonzero", "count_nonzero", "argmax", "argmin", "linalg.matrix_rank",
                  "linalg.matrix_rank_rtol"}
_DATA_DEPENDENT = {"unique_values", "unique_counts", "unique_inverse", "unique_all"}


def _operands(seed):
    global A, S, SPD, N, B, C, V
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((3, 4))
    S = rng.standard_normal((4, 4))
    SPD = S @ S.T + 4 * np.eye(4)
    N = rng.integers(-5, 5, (3, 4))
    B = A > 0
    C = A + 1j * rng.standard_normal((3, 4))
    V = rng.standard_normal(4)


# name -> call(xp, asarray): the same call on either namespace
CALLS = {
    "take": lambda xp, a: xp.take(a(A), a(np.array([0, 2])), axis=1),
    "take_along_axis": lambda xp, a: xp.take_along_axis(a(A), a(np.array([[0],[1],[2]])), axis=1),
    "argsort": lambda xp, a: xp.argsort(a(A), axis=1, descending=True, stable=True),
    "sort": lambda xp, a: xp.sort(a(A), axis=0, descending=True),
    "searchsorted": lambda xp, a: xp.searchsorted(a(np.sort(V)), a(A), side="right"),
    "unique_values": lambda xp, a: xp.unique_values(a(N)),
    "unique_counts": lambda xp, a: xp.unique_counts(a(N))[1],
    "unique_inverse": lambda xp, a: xp.unique_inverse(a(N))[1],
    "unique_all": lambda xp, a: xp.unique_all(a(N))[2],
    "nonzero": lambda xp, a: xp.nonzero(a(B))[1],
    "where": lambda xp, a: xp.where(a(B), a(A), 0.5),
    "clip": lambda xp, a: xp.clip(a(A), -0.5, 0.5),
    "clip_arr": lambda xp, a: xp.clip(a(A), a(np.full((3,4), -0.1)), None),
    "count_nonzero": lambda xp, a: xp.count_nonzero(a(N), axis=1, keepdims=True),
    "cumulative_sum": lambda xp, a: xp.cumulative_sum(a(A), axis=1, include_initial=True),
    "cumulative_prod": lambda xp, a: xp.cumulative_prod(a(A), axis=0),
    "diff": lambda xp, a: xp.diff(a(A), axis=1, n=2, prepend=a(A[:, :1])),
    "max": lambda xp, a: xp.max(a(A), axis=(0, 1), keepdims=True),
    "mean": lambda xp, a: xp.mean(a(A), axis=-1),
    "prod": lambda xp, a: xp.prod(a(A), axis=1, dtype=xp.float64),
    "std": lambda xp, a: xp.std(a(A), axis=0, correction=1),
    "var": lambda xp, a: xp.var(a(A), correction=0.5),
    "sum": lambda xp, a: xp.sum(a(A), axis=None, keepdims=True),
    "all": lambda xp, a: xp.all(a(B), axis=1),
    "any": lambda xp, a: xp.any(a(B), axis=(0,)),
    "argmax": lambda xp, a: xp.argmax(a(A), axis=1, keepdims=True),
    "argmin": lambda xp, a: xp.argmin(a(A)),
    "broadcast_to": lambda xp, a: xp.broadcast_to(a(V), (2, 4)),
    "concat": lambda xp, a: xp.concat((a(A), a(A)), axis=None),
    "expand_dims": lambda xp, a: xp.expand_dims(a(A), axis=-1),
    "flip": lambda xp, a: xp.flip(a(A), axis=(0, 1)),
    "moveaxis": lambda xp, a: xp.moveaxis(a(A), 0, -1),
    "permute_dims": lambda xp, a: xp.permute_dims(a(A), (1, 0)),
    "repeat": lambda xp, a: xp.repeat(a(A), a(np.array([1, 0, 2])), axis=0),
    "repeat_int": lambda xp, a: xp.repeat(a(A), 2),
    "reshape": lambda xp, a: xp.reshape(a(A), (2, -1), copy=None),
    "roll": lambda xp, a: xp.roll(a(A), (1, -1), axis=(0, 1)),
    "squeeze": lambda xp, a: xp.squeeze(a(A[None]), axis=0),
    "stack": lambda xp, a: xp.stack((a(A), a(A)), axis=-1),
    "tile": lambda xp, a: xp.tile(a(A), (2, 1)),
    "unstack": lambda xp, a: xp.unstack(a(A), axis=1)[2],
    "matmul": lambda xp, a: xp.matmul(a(A), a(S)),
    "matrix_transpose": lambda xp, a: xp.matrix_transpose(a(A)),
    "tensordot": lambda xp, a: xp.tensordot(a(A), a(S), axes=([1], [0])),
    "vecdot": lambda xp, a: xp.vecdot(a(C), a(C), axis=-1),
    "astype": lambda xp, a: xp.astype(a(A), xp.int16),
    "isdtype": lambda xp, a: xp.asarray(xp.isdtype(xp.float32, ("real floating", xp.int8))),
    "linspace": lambda xp, a: xp.linspace(0.0, 1.0, 5, dtype=xp.float64, endpoint=False),
    "arange": lambda xp, a: xp.arange(1.0, 2.0, 0.25, dtype=xp.float64),
    "eye": lambda xp, a: xp.eye(3, 4, k=1, dtype=xp.float64),
    "tril": lambda xp, a: xp.tril(a(A), k=-1),
    "triu": lambda xp, a: xp.triu(a(A), k=1),
    "meshgrid": lambda xp, a: xp.meshgrid(a(V), a(V[:2]), indexing="ij")[0],
    "full": lambda xp, a: xp.full((2,), 3.0, dtype=xp.float64),
    "copysign": lambda xp, a: xp.copysign(a(A), -1.0),
    "hypot": lambda xp, a: xp.hypot(a(A), 2.0),
    "nextafter": lambda xp, a: xp.nextafter(a(A), 0.0),
    "signbit": lambda xp, a: xp.signbit(a(A)),
    "reciprocal": lambda xp, a: xp.reciprocal(a(A)),
    "logaddexp": lambda xp, a: xp.logaddexp(a(A), 1.0),
    "maximum": lambda xp, a: xp.maximum(a(A), 0),
    "round_c": lambda xp, a: xp.round(a(C * 3)),
    "sign_c": lambda xp, a: xp.sign(a(C)),
    "bitwise_left_shift": lambda xp, a: xp.bitwise_left_shift(a(N), 2),
    "bitwise_right_shift": lambda xp, a: xp.bitwise_right_shift(a(N), 1),
    "bitwise_invert": lambda xp, a: xp.bitwise_invert(a(N)),
    "pow_int": lambda xp, a: xp.pow(a(N), 2),
    "floor_divide_int": lambda xp, a: xp.floor_divide(a(N), 3),
    "remainder_int": lambda xp, a: xp.remainder(a(N), -3),
    "real": lambda xp, a: xp.real(a(C)),
    "imag": lambda xp, a: xp.imag(a(C)),
    "conj": lambda xp, a: xp.conj(a(C)),
    "abs_c": lambda xp, a: xp.abs(a(C)),
    "sqrt_c": lambda xp, a: xp.sqrt(a(C)),
    "log_c": lambda xp, a: xp.log(a(C)),
    "acos_c": lambda xp, a: xp.acos(a(C)),
    "equal_scalar": lambda xp, a: xp.equal(a(A), 0.5),
    "divide_scalar_left": lambda xp, a: xp.divide(1.0, a(A)),
    "linalg.cholesky": lambda xp, a: xp.linalg.cholesky(a(SPD), upper=True),
    "linalg.cross": lambda xp, a: xp.linalg.cross(a(A[:, :3]), a(A[:, 1:]), axis=-1),
    "linalg.det": lambda xp, a: xp.linalg.det(a(S)),
    "linalg.diagonal": lambda xp, a: xp.linalg.diagonal(a(S), offset=1),
    "linalg.eigh": lambda xp, a: xp.linalg.eigh(a(SPD)).eigenvalues,
    "linalg.eigvalsh": lambda xp, a: xp.linalg.eigvalsh(a(SPD)),
    "linalg.inv": lambda xp, a: xp.linalg.inv(a(S)),
    "linalg.matmul": lambda xp, a: xp.linalg.matmul(a(A), a(S)),
    "linalg.matrix_norm": lambda xp, a: xp.linalg.matrix_norm(a(S), ord="nuc", keepdims=True),
    "linalg.matrix_norm2": lambda xp, a: xp.linalg.matrix_norm(a(S), ord=-2),
    "linalg.matrix_power": lambda xp, a: xp.linalg.matrix_power(a(S), -2),
    "linalg.matrix_rank": lambda xp, a: xp.linalg.matrix_rank(a(S), rtol=1e-3),
    # rtol is relative to each matrix's largest singular value, one rtol per matrix
    "linalg.matrix_rank_rtol": lambda xp, a: xp.linalg.matrix_rank(
        a(np.stack([S * 50, S / 50])), rtol=a(np.array([0.3, 0.05]))),
    "linalg.matrix_transpose": lambda xp, a: xp.linalg.matrix_transpose(a(A)),
    "linalg.outer": lambda xp, a: xp.linalg.outer(a(V), a(V)),
    "linalg.pinv": lambda xp, a: xp.linalg.pinv(a(A), rtol=1e-3),
    "linalg.pinv_c": lambda xp, a: xp.linalg.pinv(a(C)),
    "linalg.qr": lambda xp, a: xp.abs(xp.linalg.qr(a(S), mode="reduced").R),
    "linalg.slogdet": lambda xp, a: xp.linalg.slogdet(a(S)).logabsdet,
    "linalg.solve": lambda xp, a: xp.linalg.solve(a(S), a(V)),
    "linalg.svd": lambda xp, a: xp.linalg.svd(a(A), full_matrices=False).S,
    "linalg.svdvals": lambda xp, a: xp.linalg.svdvals(a(A)),
    "linalg.tensordot": lambda xp, a: xp.linalg.tensordot(a(A), a(S), axes=1),
    "linalg.trace": lambda xp, a: xp.linalg.trace(a(S), offset=1, dtype=xp.float64),
    "linalg.vector_norm": lambda xp, a: xp.linalg.vector_norm(a(A), axis=(0, 1), ord=3,
                                                              keepdims=True),
    "fft.fft": lambda xp, a: xp.fft.fft(a(C), n=5, axis=0, norm="ortho"),
    "fft.ifft": lambda xp, a: xp.fft.ifft(a(C), norm="forward"),
    "fft.fftn": lambda xp, a: xp.fft.fftn(a(C), s=(2, 3), axes=(0, 1)),
    "fft.ifftn": lambda xp, a: xp.fft.ifftn(a(C), axes=(1,)),
    "fft.rfft": lambda xp, a: xp.fft.rfft(a(A), n=6),
    "fft.irfft": lambda xp, a: xp.fft.irfft(a(C), n=5),
    "fft.rfftn": lambda xp, a: xp.fft.rfftn(a(A), s=(3, 4), axes=(0, 1)),
    "fft.irfftn": lambda xp, a: xp.fft.irfftn(a(C), s=(3, 6), axes=(0, 1)),
    "fft.hfft": lambda xp, a: xp.fft.hfft(a(C), n=4),
    "fft.ihfft": lambda xp, a: xp.fft.ihfft(a(A)),
    "fft.fftfreq": lambda xp, a: xp.fft.fftfreq(5, d=0.5, dtype=xp.float64),
    "fft.rfftfreq": lambda xp, a: xp.fft.rfftfreq(6, d=2.0, dtype=xp.float64, device=None),
    "fft.fftshift": lambda xp, a: xp.fft.fftshift(a(A), axes=(1,)),
    "fft.ifftshift": lambda xp, a: xp.fft.ifftshift(a(A)),
}

@pytest.mark.parametrize("name", list(CALLS))
@settings(max_examples=2, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_against_array_api_strict(name, seed):
    _operands(seed)
    call = CALLS[name]
    case = Case(name, lambda xp: call(xp, xp.asarray),
                result="index" if name in _INDEX_RESULTS else "same", rtol=1e-9, atol=1e-11,
                jit=name not in _DATA_DEPENDENT)
    assert check_cases([case]) == (2 if case.jit else 1)


@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_repeat_with_an_array_of_repeats(data):
    """The standard's ``repeat(x, repeats, axis=)`` with a 1-d array of repeats (one per
    element along the axis, or a single one), eagerly, against NumPy."""
    shape = data.draw(st.lists(st.integers(0, 3), min_size=1, max_size=3), label="shape")
    x = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    axis = data.draw(st.one_of(st.none(), st.integers(-len(shape), len(shape) - 1)))
    n = x.size if axis is None else x.shape[axis]
    size = data.draw(st.sampled_from([1, n]), label="size")
    dtype = data.draw(st.sampled_from(["int8", "uint8", "int32", "int64", "uint64"]))
    repeats = np.asarray(data.draw(st.lists(st.integers(0, 3), min_size=size, max_size=size)),
                         dtype)
    want = np.repeat(x, repeats.astype(np.int64), axis=axis)
    got = fnp.repeat(fnp.asarray(x), fnp.asarray(repeats), axis=axis)
    assert got.shape == want.shape
    np.testing.assert_array_equal(np.asarray(got), want)
