"""Dtypes and type promotion, with JAX's lattice and weak-typed Python scalars.

Rules (the same as ``jax.numpy`` with x64 enabled, but with no global switch):

* Python ``int``/``float``/``complex`` scalars are *weak*: they take the dtype of the array they
  meet (``int8_array + 1`` stays int8, ``f32_array * 2.0`` stays float32). On their own they
  default to int32 / float32 / complex64.
* A 64-bit array the user gives stays 64-bit, and ``dtype=float64`` works: nothing is silently
  truncated.
* Mixed dtypes promote to their least upper bound on the lattice below; where there is none
  (float8 with float16, say) promotion raises a ``TypeError`` that says how to cast explicitly.

Example:
    >>> import numpy as np
    >>> result_type(np.dtype("int8"), 1)
    dtype('int8')
    >>> result_type(np.dtype("int32"), 2.0)
    dtype('float32')
    >>> promote_types("uint8", "int8")
    dtype('int16')
"""

from __future__ import annotations

import functools

import ml_dtypes
import numpy as np

__all__ = [
    "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "bfloat16", "float32", "float64", "complex64", "complex128",
    "float8_e4m3fn", "float8_e5m2", "float8_types", "float0", "supported_dtypes",
    "default_int", "default_float", "default_complex",
    "canonicalize_dtype", "promote_types", "result_type", "is_weak_scalar",
    "issubdtype", "is_float", "is_complex", "is_integer", "is_inexact", "finfo", "iinfo",
]

bool_ = np.dtype(np.bool_)
int8, int16, int32, int64 = (np.dtype(t) for t in ("int8", "int16", "int32", "int64"))
uint8, uint16, uint32, uint64 = (np.dtype(t) for t in ("uint8", "uint16", "uint32", "uint64"))
float16, float32, float64 = np.dtype("float16"), np.dtype("float32"), np.dtype("float64")
bfloat16 = np.dtype(ml_dtypes.bfloat16)
complex64, complex128 = np.dtype("complex64"), np.dtype("complex128")

# Narrow floats and ints from ml_dtypes: storage and conversion types. As in JAX they sit on
# the lattice as leaves, so they promote with weak scalars and narrower ints but with no other
# float (float8_e4m3fn + float16 has no implicit promotion).
_NARROW_FLOAT_NAMES = (
    "float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz",
    "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu", "float6_e2m3fn", "float6_e3m2fn",
    "float4_e2m1fn",
)
float8_types = tuple(
    np.dtype(getattr(ml_dtypes, n)) for n in _NARROW_FLOAT_NAMES if hasattr(ml_dtypes, n)
)
_NARROW_INT_NAMES = ("int2", "int4", "uint2", "uint4")
_narrow_int_types = tuple(
    np.dtype(getattr(ml_dtypes, n)) for n in _NARROW_INT_NAMES if hasattr(ml_dtypes, n)
)
float8_e4m3fn = np.dtype(ml_dtypes.float8_e4m3fn)
float8_e5m2 = np.dtype(ml_dtypes.float8_e5m2)

default_int, default_float, default_complex = int32, float32, complex64

# The tangent (and cotangent) dtype of integer and boolean values, as in JAX: a structured
# void dtype of zero bytes per element, so an array of it holds only a shape. Autodiff hands
# these out at the API edge (``grad(..., allow_int=True)``, ``vjp``, ``jvp``); inside the
# transforms such tangents are symbolic zeros. No operation accepts a float0 array.
float0 = np.dtype([("float0", np.void, 0)])

supported_dtypes = (
    bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
    float16, bfloat16, float32, float64, complex64, complex128,
) + float8_types + _narrow_int_types

_SUPPORTED = frozenset(supported_dtypes)

# ------------------------------------------------------------------------------------------
# The lattice. Nodes are dtypes plus the three weak kinds ("i*", "f*", "c*") that stand for
# Python scalars. An edge a -> b means "a promotes to b"; the result of promoting a set of
# nodes is their least upper bound.
# ------------------------------------------------------------------------------------------
_WEAK_INT, _WEAK_FLOAT, _WEAK_COMPLEX = "i*", "f*", "c*"

_LATTICE = {
    bool_: [_WEAK_INT],
    _WEAK_INT: [uint8, int8, *_narrow_int_types],
    uint8: [int16, uint16],
    uint16: [int32, uint32],
    uint32: [int64, uint64],
    uint64: [_WEAK_FLOAT],
    int8: [int16],
    int16: [int32],
    int32: [int64],
    int64: [_WEAK_FLOAT],
    _WEAK_FLOAT: [_WEAK_COMPLEX, bfloat16, float16, *float8_types],
    bfloat16: [float32],
    float16: [float32],
    float32: [float64, complex64],
    float64: [complex128],
    _WEAK_COMPLEX: [complex64],
    complex64: [complex128],
    complex128: [],
    **{t: [] for t in float8_types + _narrow_int_types},
}


def _upper_bounds() -> dict:
    """For every node, the set of nodes it promotes to (itself included)."""
    bounds = {}

    def visit(node):
        if node not in bounds:
            ups = {node}
            for nxt in _LATTICE[node]:
                ups |= visit(nxt)
            bounds[node] = frozenset(ups)
        return bounds[node]

    for node in _LATTICE:
        visit(node)
    return bounds


_UPPER = _upper_bounds()
_WEAK_DEFAULT = {_WEAK_INT: default_int, _WEAK_FLOAT: default_float, _WEAK_COMPLEX: default_complex}
_STRONG_DEFAULT = {_WEAK_INT: int64, _WEAK_FLOAT: float64, _WEAK_COMPLEX: complex128}


@functools.cache
def _join(a, b):
    """Least upper bound of two lattice nodes, or None when they have no common bound."""
    common = _UPPER[a] & _UPPER[b]
    for node in common:
        if _UPPER[node] == common:  # the unique least element of the common bounds
            return node
    return None


def canonicalize_dtype(dtype) -> np.dtype:
    """Turn a dtype-like (``"float32"``, ``np.float32``, ``float``, a dtype) into a supported
    ``np.dtype``, with Python's types mapped to the 32-bit defaults as in JAX.

    Example:
        >>> canonicalize_dtype(float)
        dtype('float32')
    """
    if dtype is float:
        return default_float
    if dtype is int:
        return default_int
    if dtype is complex:
        return default_complex
    if dtype is bool:
        return bool_
    try:
        dt = np.dtype(dtype)
    except TypeError as exc:
        raise TypeError(f"{dtype!r} is not a valid dtype: {exc}") from None
    if dt not in _SUPPORTED:
        if dt == float0:
            raise TypeError(
                "dtype float0 is the tangent type of integer and boolean values: it holds no "
                "numbers and no operation computes with it (only zeros/zeros_like make float0 "
                "arrays). Pass a numeric dtype, e.g. float32.")
        raise TypeError(
            f"dtype {dt} is not supported by funcarray. Supported: "
            f"{', '.join(sorted(d.name for d in supported_dtypes))}."
        )
    return dt


def float0_message() -> str:
    """Why a float0 array was refused, and the fix (the message's body, after the op name).

    Example:
        >>> float0_message().split(".")[0]
        'got a float0 array'
    """
    return ("got a float0 array. float0 is the tangent type of integer and boolean values "
            "and supports no operation (it holds no numbers); if you need zeros, make them "
            "explicitly, e.g. numpy.zeros(g.shape, numpy.float32). If you did not expect a "
            "float0, you may have taken a gradient with respect to an integer or boolean "
            "argument (allow_int=True, or vjp).")


def is_weak_scalar(x) -> bool:
    """Python bool is not weak (it is a real bool); Python int/float/complex are."""
    return type(x) in (int, float, complex)


def _node_of(x, weak: bool = False):
    if type(x) is int:
        return _WEAK_INT
    if type(x) is float:
        return _WEAK_FLOAT
    if type(x) is complex:
        return _WEAK_COMPLEX
    if type(x) is bool:
        return bool_
    dt = np.dtype(x) if not hasattr(x, "dtype") else np.dtype(x.dtype)
    if weak:
        return _weak_node_of_dtype(dt)
    return dt


def _weak_node_of_dtype(dt):
    if dt.kind in "iu":
        return _WEAK_INT
    if dt.kind == "f" or dt == bfloat16:
        return _WEAK_FLOAT
    if dt.kind == "c":
        return _WEAK_COMPLEX
    return dt


def promote_types(a, b) -> np.dtype:
    """The dtype that arrays of dtypes ``a`` and ``b`` promote to (no weak types involved).

    Example:
        >>> promote_types("int32", "float16")
        dtype('float16')
    """
    da, db = canonicalize_dtype(a), canonicalize_dtype(b)
    return _result_dtype((da, db), (da, db))[0]


def _describe(x) -> str:
    """A dtype's name for error messages: arrays by their dtype, Python scalars by type."""
    if hasattr(x, "dtype"):
        return np.dtype(x.dtype).name
    if isinstance(x, np.dtype):
        return x.name
    return type(x).__name__


def _result_dtype(nodes, originals) -> tuple[np.dtype, bool]:
    out = nodes[0]
    for node in nodes[1:]:
        joined = _join(out, node)
        if joined is None:
            names = ", ".join(repr(_describe(o)) for o in originals)
            raise TypeError(
                f"Input dtypes ({names}) have no implicit promotion path: funcarray never "
                f"guesses between these types. Cast one explicitly, e.g. x.astype(y.dtype)."
            )
        out = joined
    if isinstance(out, str):
        if any(isinstance(n, str) for n in nodes):
            return _WEAK_DEFAULT[out], True
        # Only strong inputs meet at a weak kind: int64 with uint64 has no integer bound. Like
        # JAX with x64 it is float64 (strong, so that a later Python float cannot narrow it).
        return _STRONG_DEFAULT[out], False
    return out, False


def result_type(*args, return_weak_type: bool = False):
    """The dtype of an operation combining ``args`` (dtypes, arrays or Python scalars).

    Arrays carry their own ``weak_type`` flag; Python scalars are weak.

    Example:
        >>> import numpy as np
        >>> result_type(np.dtype("float16"), 3.0)
        dtype('float16')
        >>> result_type(1, 2.0, return_weak_type=True)
        (dtype('float32'), True)
    """
    if not args:
        raise ValueError("result_type needs at least one argument")
    nodes = []
    for a in args:
        weak = bool(getattr(a, "weak_type", False))
        if isinstance(a, type) and a in (int, float, complex, bool):
            a = {int: 0, float: 0.0, complex: 0j, bool: False}[a]
        elif not hasattr(a, "dtype") and not isinstance(a, (int, float, complex, bool)):
            a = canonicalize_dtype(a)
        nodes.append(_node_of(a, weak))
    for n in nodes:
        if not isinstance(n, str) and n not in _SUPPORTED:
            raise TypeError(f"dtype {n} is not supported by funcarray")
    if all(is_weak_scalar(a) or getattr(a, "weak_type", False) for a in args):
        # As in JAX, only weak values: promote their dtypes (Python scalars at their defaults)
        # and keep the result weak, so a weak int8 stays int8 and two weak bools stay bool.
        strong = [_WEAK_DEFAULT[n] if isinstance(n, str) else n
                  for n in (_node_of(a) for a in args)]
        dt = _result_dtype(strong, args)[0]
        return (dt, True) if return_weak_type else dt
    dt, weak = _result_dtype(nodes, args)
    return (dt, weak) if return_weak_type else dt


# ------------------------------------------------------------------------------------------
# Predicates
# ------------------------------------------------------------------------------------------

# Precomputed families: the predicates below run on the eager hot path.
_FLOATS = frozenset(d for d in supported_dtypes
                    if d.kind == "f" or d in float8_types or d == bfloat16)
_COMPLEXES = frozenset(d for d in supported_dtypes if d.kind == "c")
_INEXACT = _FLOATS | _COMPLEXES
_INTEGERS = frozenset(d for d in supported_dtypes if d.kind in "iu") | frozenset(
    _narrow_int_types)


def is_float(dt) -> bool:
    return (dt if isinstance(dt, np.dtype) else np.dtype(dt)) in _FLOATS


def is_complex(dt) -> bool:
    return (dt if isinstance(dt, np.dtype) else np.dtype(dt)) in _COMPLEXES


def is_inexact(dt) -> bool:
    return (dt if isinstance(dt, np.dtype) else np.dtype(dt)) in _INEXACT


def is_integer(dt) -> bool:
    return (dt if isinstance(dt, np.dtype) else np.dtype(dt)) in _INTEGERS


def issubdtype(a, b) -> bool:
    """``np.issubdtype`` that also knows bfloat16 and float8 are floating types.

    Example:
        >>> import numpy as np
        >>> issubdtype(bfloat16, np.floating)
        True
    """
    if b in (np.floating, np.inexact) and is_float(a):
        return True
    if b is np.number and (is_float(a) or is_integer(a) or is_complex(a)):
        return True
    return np.issubdtype(a, b)


def finfo(dtype):
    """Machine limits of a float dtype (bfloat16 and float8 included, via ml_dtypes)."""
    return ml_dtypes.finfo(canonicalize_dtype(dtype))


def iinfo(dtype):
    """Machine limits of an integer dtype."""
    return ml_dtypes.iinfo(canonicalize_dtype(dtype))
