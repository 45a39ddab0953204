"""Native factorisation kernels: the LAPACK (CPU) and solver (GPU) custom calls behind
funcarray.numpy.linalg under jit, with their flags and operand layouts."""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from funcarray.lowering.runtime.loading import _jax


@dataclass(frozen=True)
class NativeCall:
    """A platform kernel a lowering rule can emit as ``stablehlo.custom_call``:
    ``target`` (the registered name) and ``config`` (its ``mhlo.backend_config`` dictionary,
    MLIR text). The operands and results follow LAPACK's routine, with matrices in
    column-major layout (``native_layout``) and a trailing int32 ``info`` per matrix."""

    target: str
    config: str


# funcarray factorisation -> (LAPACK routine, its backend_config): jaxlib's typed-FFI
# handlers take the routine's character flags as ui8 (76 'L'ower triangle, 86 'V'ectors).
def _lapack_flags(op: str, lower: bool = True, full_matrices: bool = False,
                  compute_uv: bool = True, left_side: bool = True, transpose: bool = False,
                  conjugate: bool = False, unit_diagonal: bool = False,
                  compute_right: bool = True, compute_schur_vectors: bool = True) -> str:
    """The routine's character flags as jaxlib's handlers take them (ui8 ASCII codes): ``uplo``
    'L'/'U' (the triangle read), ``mode`` 'V' (eigenvectors too) or, for gesdd, 'A' (full U,
    V^T), 'S' (reduced), 'N' (singular values only); trsm's ``side`` 'L'/'R', ``trans_x``
    'N'/'T'/'C' and ``diag`` 'U' (unit)/'N'; geev's ``compute_left`` (never: 'N') and
    ``compute_right`` ('V' or 'N'); gees's ``mode`` ('V': Schur vectors too, or 'N') and
    ``sort`` (never: 'N'). geqp3 and orgqr/ungqr take none."""
    uplo = ord("L" if lower else "U")
    if op == "cholesky":
        return f"{{uplo = {uplo} : ui8}}"
    if op == "eigh":
        return f"{{mode = {ord('V')} : ui8, uplo = {uplo} : ui8}}"
    if op == "svd":
        mode = ("A" if full_matrices else "S") if compute_uv else "N"
        return f"{{mode = {ord(mode)} : ui8}}"
    if op == "eig":
        return (f"{{compute_left = {ord('N')} : ui8, compute_right = "
                f"{ord('V' if compute_right else 'N')} : ui8}}")
    if op == "schur":
        return (f"{{mode = {ord('V' if compute_schur_vectors else 'N')} : ui8, sort = "
                f"{ord('N')} : ui8}}")
    if op == "triangular_solve":
        trans = ("C" if conjugate else "T") if transpose else "N"
        return (f"{{diag = {ord('U' if unit_diagonal else 'N')} : ui8, side = "
                f"{ord('L' if left_side else 'R')} : ui8, trans_x = {ord(trans)} : ui8, "
                f"uplo = {uplo} : ui8}}")
    return "{}"


# funcarray factorisation -> LAPACK (or BLAS, for trsm) routine
_LAPACK = {"cholesky": "potrf", "eigh": "syevd", "lu": "getrf", "svd": "gesdd",
           "triangular_solve": "trsm", "eig": "geev", "schur": "gees", "qr_pivoted": "geqp3",
           "householder_product": "orgqr"}


@functools.lru_cache(maxsize=256)
def native_linalg(platform: str | None, op: str, dtype, **flags) -> NativeCall | None:
    """The native kernel for ``op`` (``"cholesky"``, ``"eigh"``, ``"lu"``, ``"svd"``,
    ``"triangular_solve"``, ``"eig"``, ``"schur"``, ``"qr_pivoted"``, ``"householder_product"``)
    on ``dtype`` matrices on ``platform``, or None: the rule then lowers its portable
    composition. ``flags`` are the operation's own parameters (``lower``, ``full_matrices``,
    ``compute_uv``, ``left_side``, ``transpose``, ``conjugate``, ``unit_diagonal``,
    ``compute_right``, ``compute_schur_vectors``; see ``_lapack_flags``).

    On CPU these are jaxlib's LAPACK handlers (the ones jax's own CPU lowering calls; they are
    registered with XLA when jax is imported, and ``prepare_lapack_call`` loads LAPACK's
    entry points first: calling one before that would crash). Other platforms get None until
    their solvers (cuSOLVER...) are wired here.
    """
    if platform != "cpu" or op not in _LAPACK:
        return None
    _jax()  # registers the handlers
    from jaxlib import lapack
    try:
        routine = _LAPACK[op]
        if np.dtype(dtype).kind == "c":  # LAPACK's names for the unitary/Hermitian forms
            routine = {"orgqr": "ungqr", "syevd": "heevd"}.get(routine, routine)
        target = lapack.prepare_lapack_call(f"{routine}_ffi", np.dtype(dtype))
    except (NotImplementedError, AttributeError):  # a dtype or routine this jaxlib lacks
        return None
    return NativeCall(target, _lapack_flags(op, **flags))


def native_layout(rank: int, matrix: bool) -> str:
    """``operand_layouts``/``result_layouts`` entry for a native kernel's array of ``rank``:
    the last two axes column-major (LAPACK's order) when ``matrix``, batch axes major."""
    order = [rank - 2, rank - 1, *range(rank - 3, -1, -1)] if matrix else list(
        range(rank - 1, -1, -1))
    return f"dense<[{', '.join(map(str, order))}]> : tensor<{rank}xindex>" if order else (
        "dense<> : tensor<0xindex>")
