"""Spectral decompositions for ``funcarray.numpy.linalg`` (qr, eigh, svd): not yet."""

from __future__ import annotations

__all__: list[str] = []
