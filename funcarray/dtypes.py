"""Dtypes and type promotion, with JAX's lattice and weak-typed Python scalars.

The public module; the implementation is ``funcarray/base/dtypes.py``.
"""

from funcarray.base.dtypes import (  # noqa: F401  (re-exports)
    NARROW_DTYPE_NAMES,
    __getattr__,
    bool_,
    canonicalize_dtype,
    complex64,
    complex128,
    default_complex,
    default_float,
    default_int,
    dtype_map,
    dtype_set,
    extended,
    finfo,
    float0,
    float16,
    float32,
    float64,
    iinfo,
    int8,
    int16,
    int32,
    int64,
    is_complex,
    is_float,
    is_half_precision,
    is_inexact,
    is_integer,
    is_supported,
    is_weak_scalar,
    issubdtype,
    kind,
    load_narrow_dtypes,
    prng_key,
    promote_types,
    result_type,
    supported_dtypes,
    uint8,
    uint16,
    uint32,
    uint64,
)

__all__ = [
    'bool_', 'int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64',
    'float16', 'float32', 'float64', 'complex64', 'complex128', 'float0',
    'supported_dtypes', 'default_int', 'default_float', 'default_complex',
    'canonicalize_dtype', 'promote_types', 'result_type', 'is_weak_scalar',
    'is_supported', 'issubdtype', 'is_float', 'is_complex', 'is_integer', 'is_inexact',
    'is_half_precision', 'kind', 'finfo', 'iinfo', 'dtype_set', 'dtype_map',
    'load_narrow_dtypes', 'NARROW_DTYPE_NAMES', 'extended', 'prng_key'
]
