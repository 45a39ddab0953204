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
import sys
import threading

import numpy as np

# bfloat16, float8_e4m3fn, float8_e5m2 and float8_types are module attributes made on first
# access (module __getattr__, at the end), so they are not listed here.
__all__ = [
    "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128", "float0", "supported_dtypes",
    "default_int", "default_float", "default_complex",
    "canonicalize_dtype", "promote_types", "result_type", "is_weak_scalar", "is_supported",
    "issubdtype", "is_float", "is_complex", "is_integer", "is_inexact", "is_half_precision",
    "kind", "finfo", "iinfo", "dtype_set", "dtype_map", "load_narrow_dtypes",
    "NARROW_DTYPE_NAMES", "extended", "prng_key", "ExtendedDType",
]

bool_ = np.dtype(np.bool_)
int8, int16, int32, int64 = (np.dtype(t) for t in ("int8", "int16", "int32", "int64"))
uint8, uint16, uint32, uint64 = (np.dtype(t) for t in ("uint8", "uint16", "uint32", "uint64"))
float16, float32, float64 = np.dtype("float16"), np.dtype("float32"), np.dtype("float64")
complex64, complex128 = np.dtype("complex64"), np.dtype("complex128")

default_int, default_float, default_complex = int32, float32, complex64

# The tangent (and cotangent) dtype of integer and boolean values, as in JAX: a structured
# void dtype of zero bytes per element, so an array of it holds only a shape. Autodiff hands
# these out at the API edge (``grad(..., allow_int=True)``, ``vjp``, ``jvp``); inside the
# transforms such tangents are symbolic zeros. No operation accepts a float0 array.
float0 = np.dtype([("float0", np.void, 0)])



# Extended dtypes (``jax.dtypes.extended``): element types that are not numbers, such as the
# key dtype of ``funcarray.random.key``. They are no NumPy dtypes; their scalar types sit in
# NumPy's hierarchy under ``extended``, so ``issubdtype(key.dtype, prng_key)`` answers as in
# JAX. The dtype objects themselves are defined where their arrays are (funcarray.random).
class extended(np.generic):  # noqa: N801 (JAX's name)
    """The scalar type above every extended dtype (``jax.dtypes.extended``)."""


class prng_key(extended):  # noqa: N801 (JAX's name)
    """The scalar type of PRNG key dtypes (``jax.dtypes.prng_key``)."""


class ExtendedDType:
    """Base of the extended dtypes: ``type`` is the scalar type (a subclass of ``extended``),
    ``name`` the printed name, and ``refusal`` says what to do instead of computing with the
    elements (put in the error of an operation that gets such an array). An array of an
    extended dtype is a pytree node over its data, of shape ``shape + element_shape``."""

    type: type = extended
    name: str = "extended"
    refusal: str = "no numeric operation accepts it"
    element_shape: tuple = ()

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return self.name


# NumPy's own dtypes. bfloat16 and the narrow floats and ints (float8/6/4, int4/int2...) come
# from ml_dtypes, which is loaded on first use (load_narrow_dtypes, below): importing
# ml_dtypes 0.7 costs ~0.8 s, five times all the rest of `import funcarray`, and eager work
# that never meets a low-precision dtype should not pay for it.
supported_dtypes = (
    bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
    float16, float32, float64, complex64, complex128,
)
_SUPPORTED = set(supported_dtypes)

# ------------------------------------------------------------------------------------------
# The lattice. Nodes are dtypes plus the three weak kinds ("i*", "f*", "c*") that stand for
# Python scalars. An edge a -> b means "a promotes to b"; the result of promoting a set of
# nodes is their least upper bound.
# ------------------------------------------------------------------------------------------
_WEAK_INT, _WEAK_FLOAT, _WEAK_COMPLEX = "i*", "f*", "c*"

_LATTICE = {
    bool_: [_WEAK_INT],
    _WEAK_INT: [uint8, int8],
    uint8: [int16, uint16],
    uint16: [int32, uint32],
    uint32: [int64, uint64],
    uint64: [_WEAK_FLOAT],
    int8: [int16],
    int16: [int32],
    int32: [int64],
    int64: [_WEAK_FLOAT],
    _WEAK_FLOAT: [_WEAK_COMPLEX, float16],
    float16: [float32],
    float32: [float64, complex64],
    float64: [complex128],
    _WEAK_COMPLEX: [complex64],
    complex64: [complex128],
    complex128: [],
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


_UPPER = _upper_bounds()  # replaced (with the narrow types added) by load_narrow_dtypes
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
        # "bfloat16", "float8_e4m3fn"... parse only once ml_dtypes has registered them.
        if _narrow is None and isinstance(dtype, str):
            load_narrow_dtypes()
            return canonicalize_dtype(dtype)
        raise TypeError(f"{dtype!r} is not a valid dtype: {exc}") from None
    if dt not in _SUPPORTED and not _is_narrow(dt):
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
    # A scalar type (np.float32) has a `dtype` attribute too, but only on its instances.
    dt = np.dtype(x) if isinstance(x, type) or not hasattr(x, "dtype") else np.dtype(x.dtype)
    if weak:
        return _weak_node_of_dtype(dt)
    return dt


def _weak_node_of_dtype(dt):
    if dt.kind in "iu":
        return _WEAK_INT
    if dt.kind == "f" or is_float(dt):
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
        # Strong inputs that meet at a weak kind (int64 with uint64 has no integer bound) give
        # float64, as JAX with x64: strong, so that a Python scalar cannot narrow it, whether
        # it joins in the same call (result_type(int8, uint64, 2)) or a later one.
        if not _strong_inputs_meet_at_a_weak_kind(nodes):
            return _WEAK_DEFAULT[out], True
        return _STRONG_DEFAULT[out], False
    return out, False


def _strong_inputs_meet_at_a_weak_kind(nodes) -> bool:
    strong = [n for n in nodes if not isinstance(n, str)]
    if not strong:
        return False
    out = strong[0]
    for node in strong[1:]:
        out = _join(out, node)
    return isinstance(out, str)


def _shared_strong_dtype(args) -> np.dtype | None:
    """The dtype of ``args`` when they are all strongly typed arrays of one supported dtype
    (the commonest call, ``result_type(x)`` or ``result_type(x, y)``), where promotion has
    nothing to decide; None sends the call through the lattice."""
    dt = getattr(args[0], "dtype", None)
    if not isinstance(dt, np.dtype) or dt not in _SUPPORTED:
        return None
    for a in args:
        # (identity: NumPy takes ``None == dtype`` as a comparison with float64; the
        # builtin dtypes are singletons, so an array of the same dtype passes)
        if getattr(a, "dtype", None) is not dt or getattr(a, "weak_type", False):
            return None
    return dt


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
    shared = _shared_strong_dtype(args)
    if shared is not None:
        return (shared, False) if return_weak_type else shared
    nodes = []
    for a in args:
        weak = bool(getattr(a, "weak_type", False))
        if isinstance(a, type) and a in (int, float, complex, bool):
            a = {int: 0, float: 0.0, complex: 0j, bool: False}[a]
        elif not hasattr(a, "dtype") and not isinstance(a, (int, float, complex, bool)):
            a = canonicalize_dtype(a)
        nodes.append(_node_of(a, weak))
    for n in nodes:
        if not isinstance(n, str) and n not in _SUPPORTED and not _is_narrow(n):
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

# Precomputed families: the predicates below run on the eager hot path. They are sets that
# load_narrow_dtypes extends in place.
_FLOATS = {d for d in supported_dtypes if d.kind == "f"}
_COMPLEXES = {d for d in supported_dtypes if d.kind == "c"}
_INEXACT = _FLOATS | _COMPLEXES
_INTEGERS = {d for d in supported_dtypes if d.kind in "iu"}


def _is_narrow(dt) -> bool:
    """Whether ``dt`` is one of ml_dtypes' types, loading them if it may be (a dtype NumPy
    does not define itself: an array of one exists only once its program has imported
    ml_dtypes). NumPy's kind for them is 'V', but 'f' for float8_e5m2."""
    if dt.isbuiltin != 2:
        return False
    return dt in (_narrow or load_narrow_dtypes()).all


def is_supported(dt) -> bool:
    """Whether funcarray computes with dtype ``dt`` (a ``np.dtype``).

    Example:
        >>> import numpy as np
        >>> is_supported(np.dtype("float32")), is_supported(np.dtype("datetime64[s]"))
        (True, False)
    """
    return dt in _SUPPORTED or _is_narrow(dt)


def is_float(dt) -> bool:
    d = dt if isinstance(dt, np.dtype) else np.dtype(dt)
    return d in _FLOATS or (_is_narrow(d) and d in _FLOATS)


def is_complex(dt) -> bool:
    return (dt if isinstance(dt, np.dtype) else np.dtype(dt)) in _COMPLEXES


def is_inexact(dt) -> bool:
    d = dt if isinstance(dt, np.dtype) else np.dtype(dt)
    return d in _INEXACT or (_is_narrow(d) and d in _INEXACT)


def is_integer(dt) -> bool:
    d = dt if isinstance(dt, np.dtype) else np.dtype(dt)
    return d in _INTEGERS or (_is_narrow(d) and d in _INTEGERS)


def is_half_precision(dt) -> bool:
    """float16 or bfloat16 (checked without loading ml_dtypes for NumPy's own dtypes).

    Example:
        >>> is_half_precision(np.dtype("float16")), is_half_precision(np.dtype("float32"))
        (True, False)
    """
    d = dt if isinstance(dt, np.dtype) else np.dtype(dt)
    return d == float16 or (_is_narrow(d) and d == _narrow.bfloat16)


def kind(dt) -> str:
    """The family letter of a supported dtype: ``b``, ``i``, ``u``, ``f`` or ``c`` (ml_dtypes'
    floats count as ``f`` and its ints as ``i``/``u``, where NumPy says ``V``).

    Example:
        >>> kind(np.dtype("float32")), kind(np.dtype("uint8"))
        ('f', 'u')
    """
    d = dt if isinstance(dt, np.dtype) else np.dtype(dt)
    if d.kind != "V":
        return d.kind
    if is_float(d):
        return "f"
    if is_integer(d):
        return "u" if iinfo(d).min == 0 else "i"
    return d.kind


def issubdtype(a, b) -> bool:
    """``np.issubdtype`` that also knows bfloat16 and float8 are floating types.

    Example:
        >>> import numpy as np
        >>> issubdtype(bfloat16, np.floating)
        True
    """
    if isinstance(a, ExtendedDType) or isinstance(b, ExtendedDType):
        # An extended dtype is under its scalar type's ancestors and equal to itself only.
        if isinstance(b, ExtendedDType):
            return a == b
        return isinstance(b, type) and issubclass(a.type, b)
    if b in (np.floating, np.inexact) and is_float(a):
        return True
    if b is np.number and (is_float(a) or is_integer(a) or is_complex(a)):
        return True
    return np.issubdtype(a, b)


def finfo(dtype):
    """Machine limits of a float dtype (bfloat16 and float8 included, via ml_dtypes)."""
    dt = canonicalize_dtype(dtype)
    if dt.isbuiltin != 2:
        return np.finfo(dt)
    return load_narrow_dtypes().ml_dtypes.finfo(dt)


def iinfo(dtype):
    """Machine limits of an integer dtype (one object per dtype: NumPy builds a new one per
    call, ~1 us, where eager kernels ask on every call).

    Example:
        >>> iinfo("int8").max
        127
    """
    return _iinfo_of(canonicalize_dtype(dtype))


@functools.cache
def _iinfo_of(dt):
    if dt.isbuiltin != 2:
        return np.iinfo(dt)
    return load_narrow_dtypes().ml_dtypes.iinfo(dt)


# ------------------------------------------------------------------------------------------
# ml_dtypes' narrow types, loaded on first use
# ------------------------------------------------------------------------------------------
# Tables of dtypes that other modules build at import (the dtypes an op accepts, each dtype's
# family letter) are made with dtype_set / dtype_map, so they stay plain sets and dicts on the
# hot path and are extended in place when the narrow types load.

_NARROW_FLOAT_NAMES = (
    "float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz",
    "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu", "float6_e2m3fn", "float6_e3m2fn",
    "float4_e2m1fn",
)
_NARROW_INT_NAMES = ("int2", "int4", "uint2", "uint4")
# Every name funcarray may take from ml_dtypes (those the installed version has are loaded).
NARROW_DTYPE_NAMES = ("bfloat16", *_NARROW_FLOAT_NAMES, *_NARROW_INT_NAMES)
# Module attributes that exist once the narrow types are loaded (module __getattr__ below).
_NARROW_ATTRIBUTES = frozenset(("bfloat16", "float8_e4m3fn", "float8_e5m2", "float8_types"))

_narrow = None  # a _NarrowDtypes once loaded
_loading = None  # the same, while the loading thread extends the tables
# Re-entrant: the predicates that extend the tables ask about narrow dtypes themselves.
_narrow_lock = threading.RLock()
_derived_sets: list = []  # (set, predicate)
_derived_maps: list = []  # (dict, function)


class _NarrowDtypes:
    """ml_dtypes' types as funcarray uses them (built once, by load_narrow_dtypes)."""

    def __init__(self, ml_dtypes):
        self.ml_dtypes = ml_dtypes
        self.bfloat16 = np.dtype(ml_dtypes.bfloat16)
        self.float8_types = tuple(np.dtype(getattr(ml_dtypes, n))
                                  for n in _NARROW_FLOAT_NAMES if hasattr(ml_dtypes, n))
        self.int_types = tuple(np.dtype(getattr(ml_dtypes, n))
                               for n in _NARROW_INT_NAMES if hasattr(ml_dtypes, n))
        self.all = frozenset((self.bfloat16, *self.float8_types, *self.int_types))


def load_narrow_dtypes():
    """Import ml_dtypes and add bfloat16, the float8/6/4 types and int4/int2 to every dtype
    table (the lattice, the predicates, the tables made by dtype_set/dtype_map). Runs once;
    safe from several threads. Accessing ``dtypes.bfloat16`` (or ``funcarray.numpy.bfloat16``),
    naming such a dtype, or passing an array of one calls it.

    Example:
        >>> load_narrow_dtypes().bfloat16
        dtype(bfloat16)
    """
    global _narrow, _loading, _UPPER, supported_dtypes
    if _narrow is not None:
        return _narrow
    with _narrow_lock:
        if _narrow is not None or _loading is not None:
            return _narrow or _loading
        import ml_dtypes

        narrow = _loading = _NarrowDtypes(ml_dtypes)
        # As in JAX, the narrow types sit on the lattice as leaves: they promote with weak
        # scalars and narrower ints but with no other float (float8_e4m3fn + float16 has no
        # implicit promotion). bfloat16 promotes to float32.
        _LATTICE[_WEAK_INT] = [*_LATTICE[_WEAK_INT], *narrow.int_types]
        _LATTICE[_WEAK_FLOAT] = [*_LATTICE[_WEAK_FLOAT], narrow.bfloat16, *narrow.float8_types]
        _LATTICE[narrow.bfloat16] = [float32]
        _LATTICE.update({t: [] for t in narrow.float8_types + narrow.int_types})
        _UPPER = _upper_bounds()
        _join.cache_clear()
        _FLOATS.update((narrow.bfloat16, *narrow.float8_types))
        _INEXACT.update((narrow.bfloat16, *narrow.float8_types))
        _INTEGERS.update(narrow.int_types)
        supported_dtypes = supported_dtypes[:10] + (narrow.bfloat16,) + supported_dtypes[10:] \
            + narrow.float8_types + narrow.int_types
        globals().update(bfloat16=narrow.bfloat16, float8_types=narrow.float8_types,
                         float8_e4m3fn=np.dtype(ml_dtypes.float8_e4m3fn),
                         float8_e5m2=np.dtype(ml_dtypes.float8_e5m2))
        for table, predicate in _derived_sets:
            table.update(d for d in narrow.all if predicate(d))
        for table, function in _derived_maps:
            table.update((d, function(d)) for d in narrow.all)
        # Published last: every way in for a foreign dtype (canonicalize_dtype, result_type,
        # is_supported) checks _SUPPORTED first and otherwise waits here for the lock.
        _SUPPORTED.update(narrow.all)
        _narrow = narrow
    return narrow


def dtype_set(predicate) -> set:
    """The supported dtypes for which ``predicate(dtype)`` holds, as a set that gains the
    narrow types that satisfy it when they load (so a module-level table stays complete
    without importing ml_dtypes at import time).

    Example:
        >>> float32 in dtype_set(is_inexact)
        True
    """
    with _narrow_lock:
        table = {d for d in supported_dtypes if predicate(d)}
        if _narrow is None:
            _derived_sets.append((table, predicate))
    return table


def dtype_map(function) -> dict:
    """``{dtype: function(dtype)}`` over the supported dtypes, extended in place when the
    narrow types load (see dtype_set).

    Example:
        >>> dtype_map(kind)[float32]
        'f'
    """
    with _narrow_lock:
        table = {d: function(d) for d in supported_dtypes}
        if _narrow is None:
            _derived_maps.append((table, function))
    return table


def __getattr__(name):
    if name in _NARROW_ATTRIBUTES:
        load_narrow_dtypes()
        return globals()[name]
    raise AttributeError(f"module 'funcarray.dtypes' has no attribute {name!r}")


if "ml_dtypes" in sys.modules:  # already paid for by the program (jax imports it)
    load_narrow_dtypes()
